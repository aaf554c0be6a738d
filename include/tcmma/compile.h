/* Compiling CUDA source with NVRTC (loaded with dlopen on first use), through
 * a memory + disk cache, at the current target, recording every program that
 * is really compiled in the open target scopes. */
#ifndef TCMMA_COMPILE_H
#define TCMMA_COMPILE_H

#include <stdbool.h>
#include <stddef.h>
#include "tcmma/arch.h"
#include "tcmma/status.h"

#ifdef __cplusplus
extern "C" {
#endif
#pragma GCC visibility push(default) /* public: the library builds with -fvisibility=hidden */

/* ---- NVRTC ------------------------------------------------------------- */

/* Facts of the loaded NVRTC. */
typedef struct {
  int major, minor;          /* nvrtcVersion */
  char library[512];         /* the path dlopen loaded */
  char include_dir[512];     /* the toolkit's include/ (mma.h, cuda_bf16.h) */
  char cccl_include_dir[512]; /* its include/cccl (<cuda/pipeline>, <cuda/barrier>:
                               * CUDA 13 keeps libcu++ there); "" when absent */
} tcmma_nvrtc_info;

/* Loads NVRTC once per process: $TCMMA_NVRTC when set (only that), else
 * $CUDA_HOME/lib64, the build's CUDA_HOME, /usr/local/cuda/lib64, then the
 * sonames libnvrtc.so.13 and libnvrtc.so. Fills *info (may be NULL).
 * TCMMA_UNAVAILABLE naming every path tried. */
tcmma_status tcmma_nvrtc_load(tcmma_nvrtc_info *info, tcmma_error *err);

/* NVRTC's facts into *info (may be NULL), without loading it where the disk
 * cache keeps them for the very library loading would take (its facts file,
 * keyed by the library file's identity; docs/nvrtc.md), else loading it as
 * tcmma_nvrtc_load. Errors of tcmma_nvrtc_load. */
tcmma_status tcmma_nvrtc_facts(tcmma_nvrtc_info *info, tcmma_error *err);

/* What NVRTC compiles for (nvrtcGetSupportedArchs; a/f targets are detected
 * by compiling an empty program for them, once per NVRTC build: the disk
 * cache's facts file keeps the answers), from its facts as
 * tcmma_nvrtc_facts finds them. */
tcmma_status tcmma_nvrtc_support(tcmma_arch_support *out, tcmma_error *err);

/* ---- programs ---------------------------------------------------------- */

/* A compiled program (or, after a failed compile, its log and options). */
typedef struct {
  char *name;              /* program name given to NVRTC */
  char **options;          /* the complete option list, as passed */
  size_t n_options;
  char *ptx;               /* NUL-terminated PTX; NULL after a failure, except when ptxas
                            * rejected the PTX NVRTC made: then that PTX (the log's
                            * "ptx input, line N" point into it) */
  size_t ptx_len;
  unsigned char *cubin;    /* CUBIN when compiled for sm_XX, else NULL */
  size_t cubin_len;
  char *log;               /* NVRTC's log ("" when empty; a CUBIN compile's ptxas -v
                            * figures are in the fields below, not here) */
  int nvrtc_major, nvrtc_minor;
  char target_arch[24];    /* the PTX's .target arch without modifiers ("sm_80") */
  bool cache_hit;          /* served from the memory or disk cache */
  char *cache_note;        /* why the compile bypassed the cache (an #include tcmma cannot
                            * resolve for certain: docs/nvrtc.md), else NULL */
  /* A CUBIN compile runs ptxas with -v; its info log gives, over the
   * program's entries and functions: */
  bool ptxas_info;         /* the log held ptxas's figures (false for a PTX compile) */
  int registers;           /* registers per thread, the most any entry uses */
  int spill_store_bytes, spill_load_bytes; /* summed */
  int stack_bytes;         /* the largest stack frame */
  int shared_bytes;        /* static shared memory, the most any entry declares */
} tcmma_program;

/* What a compile asks for; every field but size at zero means: the current
 * target, no device cc, PTX only, default options. Start one with
 * tcmma_compile_opts_default() or TCMMA_COMPILE_OPTS_INIT(.sass = true, ...):
 * a size of 0 is TCMMA_INVALID. */
typedef struct {
  size_t size;             /* sizeof(tcmma_compile_opts) where the caller was built, set by
                            * tcmma_compile_opts_default() or TCMMA_COMPILE_OPTS_INIT: the
                            * library reads the fields it covers, defaults the rest
                            * (docs/design.md §15) */
  const char *name;        /* NULL: "tcmma.cu" */
  tcmma_target target;     /* CURRENT: the current setting */
  int cc;                  /* device cc (0: unknown; NATIVE then asks the driver) */
  bool sass;               /* compile for sm_XX: runs ptxas, yields a CUBIN */
  bool fmad_false;         /* the contraction pin: --fmad=false */
  bool debug;              /* -G (.target gains ", debug") */
  int arch;                /* explicit arch (90: compute_90, or sm_90 with sass), replacing
                            * the one derived from markers, target and cc, which are then
                            * not checked: a compile below a floor reaches ptxas. 0: derived */
  char arch_suffix;        /* with arch: 0, 'a' or 'f' (sm_90a, sm_120f) */
  const char *const *extra; /* more NVRTC options, appended as given; none may name
                             * an arch (give arch) */
  size_t n_extra;
  const char *const *include_dirs; /* searched before the toolkit's include/ and
                                    * include/cccl, in order (-I DIR) */
  size_t n_include_dirs;
  const char *const *defines; /* "NAME" or "NAME=VALUE" (-D), NAME an identifier */
  size_t n_defines;
  const char *std;         /* the C++ dialect: "c++03", "c++11", "c++14", "c++17", "c++20";
                            * NULL: NVRTC's default */
  bool minimal;            /* --minimal where NVRTC has it (12.4 on): leaves out texture and
                            * surface functions, the cudadevrt runtime functions (cuda*),
                            * launches from device code and the runtime's types, and so
                            * compiles a small program faster; for sources that use none
                            * of them (tcmma's kernels) */
  const char *nvcc;        /* non-NULL: compile with nvcc instead of NVRTC (whole programs: host
                            * code, host headers, nvcc-only options in extra), through the same
                            * cache; "" finds the toolkit's ($TCMMA_NVCC, else
                            * $CUDA_HOME/bin/nvcc, /usr/local/cuda/bin/nvcc), else the path of
                            * the nvcc to run. TCMMA_UNAVAILABLE when there is none. NULL: NVRTC */
} tcmma_compile_opts;

/* An initializer (C): the size, then designated fields, e.g.
 * tcmma_compile_opts o = TCMMA_COMPILE_OPTS_INIT(.sass = true); */
#define TCMMA_COMPILE_OPTS_INIT(...) {.size = sizeof(tcmma_compile_opts), __VA_ARGS__}

/* The defaults with the size set (C and C++). Inline, so that the size is
 * the caller's own sizeof, not the loaded library's. */
static inline tcmma_compile_opts tcmma_compile_opts_default(void) {
  tcmma_compile_opts o = {0};
  o.size = sizeof o;
  return o;
}

/* Compiles source[0..len) through the cache: arch options from its markers
 * (tcmma_gpu_arch_options) or opts->arch, then the include directories
 * (tcmma_compile_include_dirs), the defines, the dialect, the pins, extra.
 * *out is filled on success, on TCMMA_COMPILE (log, options, NVRTC version)
 * and on TCMMA_FLOOR (the whole program); free it with tcmma_program_free.
 * Errors: those of tcmma_gpu_arch_options; TCMMA_COMPILE (NVRTC or ptxas
 * rejected it; the message names the first log line); TCMMA_FLOOR when the
 * PTX needs more than its own .target holds (an instruction in inline asm
 * the markers did not show, or an explicit arch below it: the message names
 * the instruction and what it needs); TCMMA_UNAVAILABLE; TCMMA_NO_MEMORY;
 * TCMMA_INVALID (an opts->arch or suffix NVRTC does not compile for, naming
 * the ones it does; a bad define, dialect, or an extra option naming an
 * arch). */
tcmma_status tcmma_compile(const char *source, size_t len, const tcmma_compile_opts *opts,
                           tcmma_program *out, tcmma_error *err);

/* Frees everything p owns and zeroes it; NULL is allowed. */
void tcmma_program_free(tcmma_program *p);

/* ---- floors proven by compiling (docs/nvrtc.md, "Probes") ------------- */

/* What tcmma_probe_floor found. Start one with tcmma_probe_init(): a size
 * of 0 is TCMMA_INVALID. */
typedef struct {
  size_t size;             /* sizeof(tcmma_probe) where the caller was built */
  int marker_floor;        /* the markers' floor (tcmma_arch_options.floor; 0: none) */
  char marker_option[64];  /* the markers' option at the floor target ("" for none) */
  int arch;                /* the proven floor: the lowest rung of the ladder that */
  char suffix;             /* compiles, passes tcmma_ptx_check_target and keeps every
                            * kernel's work; 0 / 0 when no rung does */
  char option[64];         /* "--gpu-architecture=compute_80" ("" when no rung passes) */
  char below[64];          /* the rung just below it ("" when it is the ladder's first) */
  tcmma_status below_status; /* why that rung fails: TCMMA_COMPILE, or TCMMA_FLOOR (its PTX
                              * needs more than its .target, or below_empty) */
  bool below_empty;        /* it compiles, but kernels are compiled away there */
  char evidence[1024];     /* that rung's error, or the kernels it compiled away and the
                            * rung that keeps their work */
  int rungs;               /* compiles the ladder ran */
  int cache_hits;          /* of them, answered by the cache */
  const char *compiler;    /* "nvrtc", or "nvcc" when the ladder ran with nvcc: NVRTC refused
                            * the source for host code and nvcc is present, or opts asked */
  int batches;             /* the batches the rungs were compiled in, each up to one rung a
                            * core at once (rungs / batches: how many ran side by side) */
  const char *unproven;     /* NULL, or why the walk stopped at the ladder's first rung with
                            * no floor (static text): the source fails there for a reason no
                            * target changes (an #include outside every #if whose file is
                            * not found, the same at the next rung); arch is 0 */
  char fails_at[64];       /* then that rung's option ("" otherwise); evidence holds its
                            * error */
} tcmma_probe;

/* A tcmma_probe with its size set (inline: the caller's own sizeof). */
static inline tcmma_probe tcmma_probe_init(void) {
  tcmma_probe p = {0};
  p.size = sizeof p;
  return p;
}

/* Compiles source up the ladder of NVRTC's targets (each arch ascending:
 * compute_N, then compute_Nf, then compute_Na), a batch of rungs at once on
 * the cores (the rung it needs and the next ones above, each compiled once
 * per probe), through the cache with
 * opts (NULL: defaults; its arch, target, cc and sass are the ladder's own)
 * and fills *out with the lowest rung that compiles, whose PTX holds its own
 * .target, and where no kernel is compiled away (its body only ret and
 * exit, or holding a trap or brkpt, while a higher passing rung gives it
 * work and no trap). TCMMA_OK
 * also when no rung passes (out->arch 0: evidence says why), and when the
 * first rung fails for a reason no target changes (out->unproven: the walk
 * stops there, not proven); errors:
 * TCMMA_INVALID (bad out, opts), TCMMA_UNAVAILABLE (no NVRTC),
 * TCMMA_NO_MEMORY. */
tcmma_status tcmma_probe_floor(const char *source, size_t len, const tcmma_compile_opts *opts,
                               tcmma_probe *out, tcmma_error *err);

/* Whether p (a compile of source with opts) compiled kernels away: TCMMA_OK
 * when none of its .entry bodies is only ret/exit or traps (trap, brkpt),
 * or when no higher passing rung gives such a body work and no trap; TCMMA_FLOOR naming
 * the kernels and the rung that keeps their work otherwise (names, cap bytes,
 * gets them space-separated when non-NULL). TCMMA_INVALID for a p with no
 * PTX or .target; TCMMA_NO_MEMORY. */
tcmma_status tcmma_check_compiled_away(const char *source, size_t len,
                                       const tcmma_compile_opts *opts, const tcmma_program *p,
                                       char *names, size_t cap, tcmma_error *err);

/* Compiles source, which defines every kernel named in kernels[0..n) (their
 * extern "C" names, each once), as ONE NVRTC program through the cache (one
 * entry for the whole source, exactly as tcmma_compile), and splits the
 * result by kernel into out[0..n): out[i]'s ptx is the module's header and
 * declarations with kernels[i]'s .entry and the .func definitions it calls
 * (the PTX reader's census of it is that kernel's alone); its cubin is the
 * whole module's (load it and look kernels[i] up by name); its log is
 * NVRTC's log less the ptxas lines that point outside out[i]'s ptx or name
 * another of the kernels, with their "ptx input, line N" counted in out[i]'s
 * ptx (front-end lines name no kernel and stay in every log); name, options,
 * NVRTC version and cache facts are the compile's; a CUBIN compile's ptxas
 * figures are the kernel's own (its entry's registers and shared memory,
 * the stack and spills of its entry and of the .funcs its part defines), as
 * when it compiles alone. Kernels of one arch
 * share the compiler's start-up and headers: many small kernels compile in
 * a fraction of their separate time. Returns tcmma_compile's status; out[]
 * is filled (free each with tcmma_program_free) on TCMMA_OK, TCMMA_FLOOR
 * (the message names the first kernel whose PTX needs more than .target
 * holds) and TCMMA_COMPILE (every program has the log; a ptxas rejection
 * keeps each kernel's PTX, and a kernel ptxas did not blame has no error
 * line in its log), else zeroed. TCMMA_INVALID: a kernel name NULL, empty or
 * repeated, n = 0, or a kernel with no .entry in the PTX. */
tcmma_status tcmma_compile_batch(const char *source, size_t len, const char *const *kernels,
                                 size_t n, const tcmma_compile_opts *opts, tcmma_program *out,
                                 tcmma_error *err);

/* The include directories a compile with opts (NULL: none) searches, in
 * order: opts->include_dirs, then the loaded toolkit's include/ and
 * include/cccl where found. Fills dirs (at most cap; pointers into opts
 * and into tcmma_nvrtc_load's storage), returns how many there are. */
size_t tcmma_compile_include_dirs(const tcmma_compile_opts *opts, const char **dirs, size_t cap);

/* ---- the target setting and scopes ------------------------------------- */

/* The current target: the innermost open scope's, else the one set with
 * tcmma_target_set, else $TCMMA_PTX_TARGET (floor|native; unset or empty:
 * floor). TCMMA_INVALID when the variable holds anything else. */
tcmma_status tcmma_target_current(tcmma_target *out, tcmma_error *err);

/* Sets the process-wide target (FLOOR, NATIVE, or CURRENT to go back to the
 * environment variable). TCMMA_INVALID for other values. */
tcmma_status tcmma_target_set(tcmma_target target, tcmma_error *err);

/* One program compiled inside a scope. */
typedef struct {
  char *name;
  char *options;           /* the option list, space-separated */
  char *ptx;
  char target_arch[24];    /* the PTX's .target arch without modifiers ("sm_80") */
} tcmma_record;

typedef struct {
  tcmma_record *items;     /* oldest first */
  size_t count;
} tcmma_records;

typedef struct tcmma_target_scope tcmma_target_scope;

/* Opens a process-wide scope at target (FLOOR or NATIVE): until it ends it is
 * the current target unless a newer scope is open. *out gets its handle.
 * TCMMA_INVALID for other targets, TCMMA_NO_MEMORY. */
tcmma_status tcmma_target_scope_begin(tcmma_target target, tcmma_target_scope **out, tcmma_error *err);

/* Closes scope (any order; the innermost remaining scope's target is current
 * again) and moves its records (every program compiled, not served from the
 * cache, while it was open, oldest first) into *records (may be NULL). */
void tcmma_target_scope_end(tcmma_target_scope *scope, tcmma_records *records);

/* Runs fn(arg) inside a scope at target and returns fn's status; *records
 * gets the programs compiled meanwhile. Errors of tcmma_target_scope_begin. */
tcmma_status tcmma_with_target(tcmma_target target, tcmma_status (*fn)(void *arg), void *arg,
                               tcmma_records *records, tcmma_error *err);

/* Frees the records and zeroes r; NULL is allowed. */
void tcmma_records_free(tcmma_records *r);

/* ---- the cache --------------------------------------------------------- */

/* The disk cache directory in use ($TCMMA_CACHE_DIR, $XDG_CACHE_HOME/tcmma,
 * ~/.cache/tcmma) into buf; false when the disk cache is off (TCMMA_CACHE=0,
 * no home, a path longer than PATH_MAX (with the warning), or refused or
 * degraded after a failure), or the path does not fit cap. TCMMA_CACHE other
 * than unset, empty, 0 or 1 is off here and makes tcmma_compile fail
 * (TCMMA_INVALID). */
bool tcmma_cache_dir(char *buf, size_t cap);

/* The one warning the cache raised in this process (a directory that is not
 * the user's own, writable by others, unwritable, or a path longer than
 * PATH_MAX: memory-only from then on), or NULL. The library never prints it. */
const char *tcmma_cache_warning(void);

/* Empties the in-memory cache (the disk cache is untouched). */
void tcmma_cache_clear_memory(void);

/* What the disk cache holds, for `tcmma cache`. */
typedef struct {
  char directory[4096];          /* the directory the settings name ("" when none) */
  bool enabled;                  /* it is (or will be) used: on, and safe to use */
  char problem[512];             /* why it is not used ("" when it is) */
  size_t entries;                /* cached programs */
  unsigned long long bytes;      /* their size */
  size_t temp_files;             /* temporary files (a writer at work, or one killed) */
  unsigned long long max_bytes;  /* the size bound: TCMMA_CACHE_MAX_BYTES, default 256 MiB */
  size_t store_failures;         /* stores that failed even after evicting (a full disk), since
                                    the last clear, by any process */
  char last_error[256];          /* why the latest store failed; "" when none has since the
                                    last clear, or a later store worked */
} tcmma_cache_info;

/* Fills *out from the settings and the directory. TCMMA_INVALID for a bad
 * TCMMA_CACHE or TCMMA_CACHE_MAX_BYTES; an unusable directory is not an
 * error: out->problem says why. */
tcmma_status tcmma_cache_info_get(tcmma_cache_info *out, tcmma_error *err);

/* Removes every entry of the disk cache (and stale temporary files) and
 * empties the memory cache; *removed (may be NULL) gets the directory and
 * what was removed. TCMMA_IO when the directory is refused (nothing is
 * removed from a directory that is not the user's), TCMMA_UNAVAILABLE when
 * there is no disk cache (TCMMA_CACHE=0, no home). */
tcmma_status tcmma_cache_clear(tcmma_cache_info *removed, tcmma_error *err);

/* ---- the blob cache: a caller's own bytes, by what made them ----------- */

/* The disk cache also keeps bytes a caller makes (a host module the verify
 * harness compiles with the C compiler): same directory, 0600 HMAC'd files,
 * size bound, TCMMA_CACHE setting and tcmma_cache_clear as the compiles;
 * disk only (no memory cache). The key is derived from what made the bytes,
 * so a change to any of them is a miss. */

/* What a blob is made from (initialize with TCMMA_CACHE_INPUTS_INIT). */
typedef struct tcmma_cache_inputs {
  size_t size;              /* sizeof(tcmma_cache_inputs) */
  const char *domain;       /* what kind of bytes ("sim module"); required: domains never share
                               a key with each other or with the compiles */
  const char *const *parts; /* strings keyed in order (a command line); their -I DIR / -IDIR
                               are where source's #includes are looked for */
  size_t n_parts;
  const char *program;      /* a program or library keyed by identity (real path, GNU build-id,
                               size, mtime, inode); NULL: none */
  const char *source;       /* text keyed by content, with every file its #includes read; NULL:
                               none */
  size_t source_len;
  const char *source_name;  /* its path: quoted #includes start in its directory (NULL: the
                               current one) */
} tcmma_cache_inputs;
#define TCMMA_CACHE_INPUTS_INIT {sizeof(tcmma_cache_inputs), NULL, NULL, 0, NULL, NULL, 0, NULL}

/* A blob's key (tcmma_cache_key_make). */
typedef struct {
  unsigned char bytes[32];
} tcmma_cache_key;

/* Derives *key from in. TCMMA_INVALID: in or key NULL, in->size too small, no domain, parts
 * NULL with n_parts; TCMMA_IO: the program cannot be read, or an #include of source cannot be
 * followed for certain (the message says which): such bytes must not be cached. */
tcmma_status tcmma_cache_key_make(const tcmma_cache_inputs *in, tcmma_cache_key *key,
                                  tcmma_error *err);

/* Stores data[0..len) under key. TCMMA_OK also when the disk cache is off or refused the write
 * (a cache never fails its caller); TCMMA_INVALID: key NULL, data NULL or len 0, or
 * TCMMA_CACHE neither unset, empty, 0 nor 1. */
tcmma_status tcmma_cache_store(const tcmma_cache_key *key, const void *data, size_t len,
                               tcmma_error *err);

/* On a hit, *data (malloc'ed: free it) and *len get the bytes stored under key and *hit is
 * true; on a miss, or with the disk cache off, *hit is false (*data NULL, *len 0). TCMMA_INVALID
 * as for tcmma_cache_store, or an output NULL. */
tcmma_status tcmma_cache_fetch(const tcmma_cache_key *key, void **data, size_t *len, bool *hit,
                               tcmma_error *err);

#pragma GCC visibility pop
#ifdef __cplusplus
}
#endif

#endif
