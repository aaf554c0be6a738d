/* The sim executor's compiled module, kept in the compile cache by content
 * (tools/verify/sim_cache.c), so that a run whose kernels, headers, compiler
 * and flags are those of an earlier one loads that run's shared object
 * instead of compiling it again. */
#ifndef TCMMA_VERIFY_SIM_CACHE_H
#define TCMMA_VERIFY_SIM_CACHE_H

#include <stdbool.h>
#include <stddef.h>

/* The key of the module whose C source is at source (its path), compiled by
 * the executable compiler with argv[0..argc): the source, every file its
 * #includes read through argv's -I directories (by content), the argument
 * vector and the compiler's identity (real path, build-id, size, mtime,
 * inode). false when it cannot be known for certain (an include that
 * cannot be resolved, a flag that reads other files, the compiler's search
 * changed through the environment): the module is then compiled, never
 * cached. */
bool sim_cache_key(const char *source, const char *compiler, const char *const *argv,
                   size_t argc, unsigned char key[32]);

/* On a hit, writes the cached shared object to so (0600) and returns true. */
bool sim_cache_get(const unsigned char key[32], const char *so);

/* Stores the shared object at so under key (nothing when the disk cache is
 * off or refused). */
void sim_cache_put(const unsigned char key[32], const char *so);

#endif
