/* Pieces of nvrtc/ shared between its files; not public. */
#ifndef TCMMA_NVRTC_INTERNAL_H
#define TCMMA_NVRTC_INTERNAL_H

#include <stdbool.h>
#include <stddef.h>
#include "tcmma/compile.h"
#include "tcmma/arch.h"
#include "tcmma/ptx.h"

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

/* The loaded NVRTC's facts (loading it once); NULL when it cannot load. */
const tcmma_nvrtc_info *tcmma__nvrtc_info(void);

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

/* Every marker of a source (nvrtc/source.c): hits in source order (first
 * occurrences, no cap: the decision checks a target against all of them)
 * and the highest floor. */
typedef struct {
  tcmma_marker_hit *hits;
  size_t count, cap;
  int floor;
} tcmma__scan;

/* Reads source[0..len) (NULL: none) into *out, freed with tcmma__scan_free;
 * TCMMA_NO_MEMORY (out then empty). */
tcmma_status tcmma__scan_source(const char *source, size_t len, tcmma__scan *out);
void tcmma__scan_free(tcmma__scan *s);

/* Fills info's required_* fields and no_target from its census
 * (nvrtc/ptx/features.c, called by the reader). */
void tcmma__ptx_requirement(tcmma_ptx_info *info);

#endif
