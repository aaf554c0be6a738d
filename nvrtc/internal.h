/* Pieces of nvrtc/ shared between its files; not public. */
#ifndef TCMMA_NVRTC_INTERNAL_H
#define TCMMA_NVRTC_INTERNAL_H

#include <stdbool.h>
#include <stddef.h>
#include "tcmma/compile.h"
#include "tcmma/arch.h"
#include "tcmma/ptx.h"
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

/* The loaded NVRTC's facts (loading it once); NULL when it cannot load. */
const tcmma_nvrtc_info *tcmma__nvrtc_info(void);

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

/* TCMMA_INVALID naming the value when TCMMA_CACHE is neither unset, 0 nor 1,
 * or TCMMA_CACHE_MAX_BYTES is not a positive decimal number. */
tcmma_status tcmma_cache_check_setting(tcmma_error *err);

/* TCMMA_CACHE: 1 (unset, empty or "1": disk too), 0 ("0"), -1 anything else. */
int tcmma__cache_setting(void);

/* The disk cache directory the settings name into buf: 1; 0 when there is
 * none (TCMMA_CACHE=0, no home); -n when its path of n bytes exceeds cap. */
int tcmma__cache_path(char *buf, size_t cap);

/* The size bound of the disk cache when none is set (bytes). */
#define TCMMA__CACHE_MAX_BYTES_DEFAULT (256LL << 20)

/* TCMMA_CACHE_MAX_BYTES (unset or empty: the default) into *out (may be
 * NULL); false when it is not a decimal number of bytes from 1. */
bool tcmma__cache_max_bytes(unsigned long long *out);

/* An opened, vetted cache directory (nvrtc/cache_dir.c). */
typedef struct {
  int fd;                     /* the directory; every file is reached through it */
  bool has_secret;
  unsigned char secret[32];   /* keys the entries' HMAC */
} tcmma__cache_dir;

/* Opens the directory at path: with create, making it (0700) and its secret
 * when missing. 1 opened; 0 it does not exist (only without create); -1 it is
 * refused or unusable, why saying why (owned by someone else, writable by
 * others, a symlink someone else owns, a secret that is not private). */
int tcmma__cache_open(const char *path, bool create, tcmma__cache_dir *out, char *why,
                      size_t cap);
void tcmma__cache_close(tcmma__cache_dir *d);

/* 2 * bytes random lower-case hex digits (bytes <= 32) into out. */
void tcmma__random_hex(char *out, size_t bytes);

/* Removes temporary files older than ten minutes, then, while the entries
 * exceed max_bytes, the least recently used (oldest mtime) entry. */
void tcmma__cache_upkeep(int dirfd, unsigned long long max_bytes);

/* Counts the entries, their bytes and the temporary files; with remove,
 * removes them (temporary files only once stale) and counts what went. */
void tcmma__cache_survey(int dirfd, bool remove, size_t *entries, unsigned long long *bytes,
                         size_t *temps);

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
