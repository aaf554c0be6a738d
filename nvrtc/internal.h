/* Pieces of nvrtc/ shared between its files; not public. */
#ifndef TCMMA_NVRTC_INTERNAL_H
#define TCMMA_NVRTC_INTERNAL_H

#include <stdbool.h>
#include <stddef.h>
#include "tcmma/compile.h"

/* One raw NVRTC compile (one nvrtcProgram): fills out->ptx, ->cubin (when
 * want_cubin), ->log, ->nvrtc_major/minor. TCMMA_COMPILE with the log's first
 * line in err when NVRTC rejects the source. */
tcmma_status tcmma_nvrtc_compile_raw(const char *source, size_t len, const char *name,
                                     const char *const *options, size_t n_options,
                                     bool want_cubin, tcmma_program *out, tcmma_error *err);

/* strdup that returns NULL on NULL. */
char *tcmma_strdup(const char *s);

/* Cache: look up / store a compiled program under key (32 bytes). Lookup
 * fills out's ptx/cubin on a hit and returns true. */
bool tcmma_cache_lookup(const unsigned char key[32], tcmma_program *out);
void tcmma_cache_store(const unsigned char key[32], const tcmma_program *p);

/* The target of the innermost open scope, or CURRENT when none is open. */
tcmma_target tcmma_target_scope_innermost(void);

/* Appends a record of p to every open scope (a compile, not a cache hit). */
void tcmma_target_scope_record(const tcmma_program *p);

#endif
