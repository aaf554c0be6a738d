/* Pieces of nvrtc/ shared between its files; not public. */
#ifndef TCMMA_NVRTC_INTERNAL_H
#define TCMMA_NVRTC_INTERNAL_H

#include <stdbool.h>
#include <stddef.h>
#include "tcmma/compile.h"
#include "tcmma/arch.h"
#include "tcmma/buf.h"
#include "tcmma/ptx.h"
#include "nvrtc/sha256.h"

/* One raw NVRTC compile (one nvrtcProgram): fills out->ptx, ->cubin (when
 * want_cubin), ->log (as NVRTC gave it, ptxas -v's lines included: their
 * figures are read into out's ptxas fields), ->nvrtc_major/minor.
 * TCMMA_COMPILE with the log's first diagnostic line in err when NVRTC
 * rejects the source (*rejected then true: the outcome is the source's,
 * worth caching; a ptxas rejection keeps the PTX it rejected in out->ptx).
 * rejected may be NULL. */
tcmma_status tcmma__nvrtc_compile_raw(const char *source, size_t len, const char *name,
                                      const char *const *options, size_t n_options, bool want_cubin,
                                      tcmma_program *out, bool *rejected, tcmma_error *err);

/* An optional symbol of the loaded CUDA driver (one a driver may lack, as
 * cuTensorMapEncodeTiled before 12.0), loading the driver first; NULL with
 * TCMMA_UNAVAILABLE in err without a driver or without the symbol. */
void *tcmma__nvrtc_driver_symbol(const char *sym, tcmma_error *err);

/* The --gpu-architecture option for arch with suffix 0, 'a' or 'f':
 * compute_<arch><suffix> (PTX), or sm_<arch><suffix> when sass (a CUBIN). */
void tcmma__arch_option(char *buf, size_t cap, bool sass, int arch, char suffix);

/* "a" or "f" for suffix 'a' or 'f'; "" for anything else. */
const char *tcmma__arch_suffix(char suffix);

/* What the cache key and the options need of NVRTC. */
typedef struct {
  tcmma_nvrtc_info info;            /* version, library, include directories */
  int archs[TCMMA_ARCH_MAX_ARCHS];  /* nvrtcGetSupportedArchs */
  size_t n_archs;
  char identity[3 * 4096];          /* the exact build: tcmma__nvrtc_identity_of */
} tcmma__nvrtc_facts;

/* The loaded NVRTC's facts, loading it once (nvrtc/nvrtc.c); NULL with err
 * set when it cannot load. */
const tcmma__nvrtc_facts *tcmma__nvrtc_loaded(tcmma_error *err);

/* NVRTC's facts as nvrtc/nvrtc_facts.c knows them: from the disk cache's
 * facts file of the very library the loader would take, without loading it,
 * else from the loaded NVRTC. info NULL / identity NULL when NVRTC cannot
 * load. The identity (version, library path, GNU build-id, size, mtime,
 * inode; the same of its builtin-headers library) is part of every key. */
const tcmma_nvrtc_info *tcmma__nvrtc_info(void);
const char *tcmma__nvrtc_identity(void);

/* Whether the facts are the loaded NVRTC's (loading it): false only when a
 * facts file stood for a library that is not what loaded, whose programs
 * must then not be cached under keys made from the facts. */
bool tcmma__nvrtc_facts_current(void);

/* The library paths NVRTC loading tries, in order ($TCMMA_NVRTC alone, else
 * the toolkit roots' lib64/libnvrtc.so, then the sonames); how many. */
#define TCMMA__NVRTC_CANDIDATES 6
int tcmma__nvrtc_candidates(char paths[TCMMA__NVRTC_CANDIDATES][4096]);

/* The toolkit's include/ and include/cccl for NVRTC at real_library (its
 * real path, or NULL: next to it, else under the toolkit roots) into info's
 * include fields. */
void tcmma__nvrtc_include_dirs(const char *real_library, tcmma_nvrtc_info *info);

/* NVRTC version major.minor at library's exact build into out: the
 * library's identity (real_library: its real path, NULL when it has none)
 * and that of libnvrtc-builtins.so.<major>.<minor>, the one beside the real
 * path, else (pin only) the one the loader finds. With pin that library is
 * opened and kept open, so that NVRTC's own load of it gets this very one.
 * false when it cannot be told without the loader (no builtins beside
 * library, pin false) or does not fit. */
bool tcmma__nvrtc_identity_of(const char *library, const char *real_library, int major,
                              int minor, bool pin, char *out, size_t cap);

/* Whether the loaded NVRTC compiles an empty program for
 * compute_<arch><suffix> (loading it). */
bool tcmma__nvrtc_probe_arch(int arch, char suffix);

/* The identity of the library file at path (its real path, GNU build-id,
 * size, mtime, inode) into out; false when it cannot be read. */
bool tcmma__nvrtc_library_identity(const char *path, char *out, size_t cap);

/* The same for a path realpath has resolved (no lookups of its parts). */
bool tcmma__nvrtc_resolved_library_identity(const char *real, char *out, size_t cap);

/* Adds to key every file a compile of source (program name, option list)
 * reads through #include, as NVRTC resolves it: the spelling, the path it
 * resolved to, and the SHA-256 of the file (nvrtc/includes.c). false when
 * some include cannot be resolved for certain: the compile must not be
 * cached, and note says why. */
bool tcmma__cache_include_deps(const char *source, size_t len, const char *name,
                               const char *const *options, size_t n_options,
                               tcmma__sha256_state *key, char *note, size_t note_cap);
/* The same, telling apart a compile that must not run: 1 certain, 0
 * uncertain, -1 an include names a FIFO, socket or device (NVRTC would block
 * reading it; note names it). Uses of __TIME__, __DATE__ or __TIMESTAMP__
 * and options naming files NVRTC or ptxas read are uncertain. */
int tcmma__cache_include_scan(const char *source, size_t len, const char *name,
                              const char *const *options, size_t n_options,
                              tcmma__sha256_state *key, char *note, size_t note_cap);

/* "floor or native" (the targets a text or a scope may name), with current
 * "current, floor or native", from tcmma_target_name (nvrtc/arch.c), for
 * messages; returns buf. */
const char *tcmma__arch_target_names(char *buf, size_t cap, bool current);

/* strdup that returns NULL on NULL. */
char *tcmma__compile_strdup(const char *s);

/* ptxas -v's lines in a log (nvrtc/ptxas_info.c). The log NVRTC gives and
 * the cache keeps holds them; tcmma_compile drops them from the log it
 * returns. */
/* Whether the function name[0..len) is one whose figures count. */
typedef bool (*tcmma__ptxas_filter)(const char *name, size_t len, const void *ctx);
/* Reads the figures of log into p's ptxas fields: of every function when
 * wanted is NULL, else of the functions wanted(ctx) takes (an entry's
 * registers and shared memory, any function's stack and spills).
 * p->ptxas_info says whether a register count was taken. */
void tcmma__compile_ptxas_figures(const char *log, tcmma__ptxas_filter wanted, const void *ctx,
                                  tcmma_program *p);
/* tcmma_compile with ptxas -v's lines left in out->log (nvrtc/compile.c). */
tcmma_status tcmma__compile_keeping_figures(const char *source, size_t len,
                                            const tcmma_compile_opts *opts, tcmma_program *out,
                                            tcmma_error *err);
/* Drops ptxas -v's lines from log, in place. */
void tcmma__compile_ptxas_drop(char *log);
/* The first line of log that is not one of ptxas -v's (its end when none). */
const char *tcmma__compile_log_first_diagnostic(const char *log);

/* Cache: look up / store a compile's outcome under key (32 bytes): status
 * TCMMA_OK, or TCMMA_COMPILE (NVRTC or ptxas rejected the source; message is
 * the error's), with the program's PTX (when any), CUBIN and log. Lookup
 * fills out's ptx, cubin and log, *status and message[cap] on a hit and
 * returns true. Other statuses are never stored. */
bool tcmma__cache_lookup(const unsigned char key[32], tcmma_program *out, tcmma_status *status,
                         char *message, size_t cap);
void tcmma__cache_store(const unsigned char key[32], const tcmma_program *p, tcmma_status status,
                        const char *message);

/* The disk cache's file names: <key hex><suffix>, a compile's outcome or
 * NVRTC's facts (nvrtc/nvrtc_facts.c); both are entries to the size bound,
 * the survey and clearing (a facts file evicted is written again the next
 * time NVRTC loads). */
#define TCMMA__CACHE_ENTRY_SUFFIX ".bin"
#define TCMMA__CACHE_FACTS_SUFFIX ".facts"

/* Bytes kept in the disk cache under key, in a file named <key hex><suffix>
 * (TCMMA__CACHE_ENTRY_SUFFIX or TCMMA__CACHE_FACTS_SUFFIX), written and
 * read like the compile entries (0600, HMAC'd): get fills *data
 * (malloc'ed) and *len and returns true on a hit; put stores (nothing when
 * the disk cache is off or refused). */
bool tcmma__cache_blob_get(const unsigned char key[32], const char *suffix, void **data,
                           size_t *len);
void tcmma__cache_blob_put(const unsigned char key[32], const char *suffix, const void *data,
                           size_t len);

/* TCMMA_INVALID naming the value when TCMMA_CACHE is neither unset, 0 nor 1,
 * or TCMMA_CACHE_MAX_BYTES is not a positive decimal number. */
tcmma_status tcmma__cache_check_setting(tcmma_error *err);

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
void tcmma__cache_random_hex(char *out, size_t bytes);

/* Removes temporary files older than ten minutes, then, while the entries
 * exceed max_bytes, the least recently used (oldest mtime) entry. */
void tcmma__cache_upkeep(int dirfd, unsigned long long max_bytes);

/* The upkeep after a store of size bytes (nvrtc/cache_upkeep.c): adds it to
 * the running estimate in the directory's state file and walks (sweeping,
 * evicting past max_bytes) only when the estimate crosses the bound, every
 * 256 stores, or when there is no estimate; clears the last failure. */
void tcmma__cache_stored(int dirfd, unsigned long long size, unsigned long long max_bytes);

/* After a failed store: removes the least recently used half of the entries
 * (of at most max_bytes), so that a retry may find room. */
void tcmma__cache_make_room(int dirfd, unsigned long long max_bytes);

/* Records a store that failed even after make_room: error (its why) kept in
 * the state file for tcmma_cache_info; failures counted since the last clear. */
#define TCMMA__CACHE_ERROR_MAX 256
void tcmma__cache_store_failed(int dirfd, const char *error);
void tcmma__cache_failures(int dirfd, size_t *failures, char *error, size_t cap);
/* Empties the state file (tcmma_cache_clear). */
void tcmma__cache_state_reset(int dirfd);

/* Tests only: how many walks the upkeep made in this process; the next n
 * disk stores fail with errno error. */
size_t tcmma__cache_upkeep_walks(void);
void tcmma__cache_inject_store_failures(int n, int error);

/* Counts the entries, their bytes and the temporary files; with remove,
 * removes them (temporary files only once stale) and counts what went. */
void tcmma__cache_survey(int dirfd, bool remove, size_t *entries, unsigned long long *bytes,
                         size_t *temps);

/* The target of the innermost open scope, or CURRENT when none is open. */
tcmma_target tcmma__arch_target_scope_innermost(void);

/* Appends a record of p to every open scope (a compile, not a cache hit). */
void tcmma__arch_target_scope_record(const tcmma_program *p);

/* Every marker of a source (nvrtc/source.c): hits in source order (first
 * occurrences, no cap: the decision checks a target against all of them)
 * and the highest floor. */
typedef struct {
  tcmma_marker_hit *hits;
  size_t count, cap;
  int floor;
  size_t *index, index_cap; /* hits by kind, floor and text: slot = hit + 1, 0 empty */
} tcmma__arch_scan;

/* Reads source[0..len) (NULL: none) into *out, freed with tcmma__arch_scan_free;
 * TCMMA_NO_MEMORY (out then empty). */
tcmma_status tcmma__arch_scan_source(const char *source, size_t len, tcmma__arch_scan *out);
void tcmma__arch_scan_free(tcmma__arch_scan *s);

/* Fills info's required_* fields and no_target from its census
 * (nvrtc/ptx/features.c, called by the reader). */
void tcmma__ptx_requirement(tcmma_ptx_info *info);

/* Module ptx[0..len) cut down to one kernel (nvrtc/ptx/slice.c): every
 * top-level item that defines no function, the .entry named kernel and the
 * .func definitions it reaches by name. *out (malloc'ed, NUL-terminated,
 * *out_len bytes) and the lines of the entry in ptx (*first, *last). 1 done;
 * 0 the module has no such entry; -1 no memory. */
int tcmma__ptx_slice(const char *ptx, size_t len, const char *kernel, char **out,
                     size_t *out_len, long *first, long *last);

/* Whether ptx[0..len) defines (with a body) the .func name[0..name_len);
 * false on no memory. */
bool tcmma__ptx_defines_func(const char *ptx, size_t len, const char *name, size_t name_len);

/* The .entry kernels of ptx[0..len) (nvrtc/probe_body.c): each name goes
 * to suspect when its body holds no instruction but ret and exit, or holds
 * a trap or brkpt (compiled away, if a higher target keeps work in it with
 * no trap), else to clean; space-separated (either may be NULL). The number
 * of kernels with a body. */
int tcmma__arch_kernels(const char *ptx, size_t len, tcmma_buf *suspect, tcmma_buf *clean);

/* Whether the space-separated list holds name[0..n). */
bool tcmma__arch_name_in(const char *list, const char *name, size_t n);

/* Whether message (a rung's compile error for source, compiled as program
 * name) is a failure no target changes (nvrtc/probe_fixed.c): an #include
 * of the source itself, outside every #if group, whose file is not found.
 * Then first_line (cap bytes) gets the error, the path the source's name. */
bool tcmma__arch_failure_fixed(const char *source, size_t len, const char *name,
                               const char *message, char *first_line, size_t cap);

/* The nvcc to run (nvrtc/nvcc.c): given when non-empty, else $TCMMA_NVCC
 * when set, else the first executable of $CUDA_HOME/bin/nvcc, the build's
 * CUDA_HOME and /usr/local/cuda; false with the paths tried in looked
 * (NULL allowed). */
bool tcmma__nvcc_path(const char *given, char *buf, size_t cap, char *looked, size_t looked_cap);

/* TCMMA_UNAVAILABLE naming the paths tried for nvcc. */
tcmma_status tcmma__nvcc_missing(const char *given, tcmma_error *err);

/* What names this nvcc in a cache key (its real path, size and mtime);
 * false when there is none. */
bool tcmma__nvcc_identity(const char *given, char *buf, size_t cap);

/* tcmma__nvrtc_compile_raw's contract, with nvcc (given as for
 * tcmma__nvcc_path): the source written into a private directory, its own
 * directory (from name) searched first. */
tcmma_status tcmma__nvcc_compile_raw(const char *given, const char *source, size_t len,
                                     const char *name,
                                     const char *const *options, size_t n_options, bool cubin,
                                     tcmma_program *out, bool *rejected, tcmma_error *err);

#endif
