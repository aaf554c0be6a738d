/* Pieces of nvrtc/ shared between its files; not public. */
#ifndef TCMMA_NVRTC_INTERNAL_H
#define TCMMA_NVRTC_INTERNAL_H

#include <stdbool.h>
#include <stddef.h>
#include "tcmma/compile.h"
#include "nvrtc/sha256.h"

/* One raw NVRTC compile (one nvrtcProgram): fills out->ptx, ->cubin (when
 * want_cubin), ->log, ->nvrtc_major/minor. TCMMA_COMPILE with the log's first
 * line in err when NVRTC rejects the source. */
tcmma_status tcmma_nvrtc_compile_raw(const char *source, size_t len, const char *name,
                                     const char *const *options, size_t n_options,
                                     bool want_cubin, tcmma_program *out, tcmma_error *err);

/* The --gpu-architecture option for arch with suffix 0, 'a' or 'f':
 * compute_<arch><suffix> (PTX), or sm_<arch><suffix> when sass (a CUBIN). */
void tcmma__arch_option(char *buf, size_t cap, bool sass, int arch, char suffix);

/* "a" or "f" for suffix 'a' or 'f'; "" for anything else. */
const char *tcmma__arch_suffix(char suffix);

/* The loaded NVRTC's exact build (version, library path, GNU build-id,
 * size, mtime, inode; the same of its builtin-headers library), or NULL
 * when NVRTC does not load. Part of every cache key. */
const char *tcmma__nvrtc_identity(void);

/* The identity of the library file at path (its real path, GNU build-id,
 * size, mtime, inode) into out; false when it cannot be read. */
bool tcmma__library_identity(const char *path, char *out, size_t cap);

/* Adds to key every file a compile of source (program name, option list)
 * reads through #include, as NVRTC resolves it: the spelling, the path it
 * resolved to, and the SHA-256 of the file (nvrtc/includes.c). false when
 * some include cannot be resolved for certain: the compile must not be
 * cached, and note says why. */
bool tcmma__include_deps(const char *source, size_t len, const char *name,
                         const char *const *options, size_t n_options, tcmma_sha256 *key,
                         char *note, size_t note_cap);

/* strdup that returns NULL on NULL. */
char *tcmma_strdup(const char *s);

/* Cache: look up / store a compiled program under key (32 bytes). Lookup
 * fills out's ptx/cubin on a hit and returns true. */
bool tcmma_cache_lookup(const unsigned char key[32], tcmma_program *out);
void tcmma_cache_store(const unsigned char key[32], const tcmma_program *p);

/* TCMMA_INVALID naming the value when TCMMA_CACHE is neither unset, 0 nor 1. */
tcmma_status tcmma_cache_check_setting(tcmma_error *err);

/* The target of the innermost open scope, or CURRENT when none is open. */
tcmma_target tcmma_target_scope_innermost(void);

/* Appends a record of p to every open scope (a compile, not a cache hit). */
void tcmma_target_scope_record(const tcmma_program *p);

#endif
