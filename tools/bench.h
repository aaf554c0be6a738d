/* Shared pieces of `tcmma bench` (tools/bench_*.c): clocks, medians, runs of
 * a fresh process, and the kernels the compile and emit benches use.
 * Benchmarks measure; no test ever times anything. */
#ifndef TCMMA_BENCH_H
#define TCMMA_BENCH_H

#include <stdbool.h>
#include <stddef.h>
#include "cli.h"
#include "tools/verify/verify.h"
#include "tcmma/gemm.h"

/* A measurement: wall-clock and CPU seconds (user + system, every thread). */
typedef struct {
  double wall, cpu;
} bench_time;

/* Monotonic wall-clock seconds, and this process's CPU seconds. */
double bench_wall(void);
double bench_cpu(void);

/* The time since *start (taken with bench_now). */
bench_time bench_now(void);
bench_time bench_since(bench_time start);

/* Sorts v[0..n) and returns its median (the lower middle for even n). */
double bench_median(double *v, size_t n);

/* Runs path (NULL: this very program, /proc/self/exe) with argv (argv[0]
 * included, NULL-terminated) in a fresh process, with env (NULL-terminated
 * "NAME=VALUE" settings added to ours; NULL: none), stdin from /dev/null,
 * stdout to out_fd (-1: /dev/null) and stderr to /dev/null. *t gets its wall
 * time and CPU time (its own and its children's). false when it could not
 * run or exited with a status other than 0. */
bool bench_spawn(const char *path, const char *const *argv, const char *const *env, int out_fd,
                 bench_time *t);

/* A scratch directory under $TMPDIR (else /tmp) into buf; removed with
 * bench_rmdir (it and everything under it). false when it cannot be made. */
bool bench_tmpdir(char *buf, size_t cap);
void bench_rmdir(const char *dir);

/* Writes n bytes to path; false on failure. */
bool bench_write_file(const char *path, const void *data, size_t n);

/* The options bench compile and bench emit share: [--kernels N]
 * [--repeat N] [--json]. */
typedef struct {
  long kernels, repeat;
  bool json;
} bench_args;

/* Parses argv[1..argc) of bench `name` into *a (which holds the defaults).
 * -1: parsed; else the exit status to return at once (CLI_OK after printing
 * help, CLI_USAGE after a message). */
int bench_parse_args(const char *name, const char *help, int argc, char **argv, bench_args *a);

/* One emitted kernel of the bench set. */
typedef struct {
  const verify_case *c; /* its matrix case */
  char *source;         /* the one-warp kernel tcmma renders (CUDA dialect) */
  size_t len;
  char *naive;          /* the same kernel as a generator without tcmma writes it:
                         * the vendor headers of its precisions and arm first */
  size_t naive_len;
  bool wmma;            /* a wmma arm (it includes mma.h either way) */
  char arch[64];        /* the --gpu-architecture option its markers ask for */
} bench_kernel;

/* Up to want distinct kernels: accepted cases of the arm matrix, one per
 * arm, scope and tile count, taken round-robin over the arms so that every
 * arm is in the set. *out (free with bench_kernels_free) and their count; 0
 * with why set when none renders. */
size_t bench_kernels(size_t want, bench_kernel **out, char *why, size_t cap);
void bench_kernels_free(bench_kernel *k, size_t n);

/* The GEMM configurations the benches measure (tools/bench_gemm.def). */
typedef struct {
  const char *name;           /* "bf16" */
  tcmma_prec d, a, b;
  int bits;                   /* an input element's bits in memory: 16, 8, 4 (packed fp4) */
  int cc;                     /* the arch --static compiles it for; 0: sm_80 and sm_90 */
} bench_gemm_dtype;

typedef struct {
  int bm, bn, bk, wm, wn, stages;
  bool bt;  /* b stored n x k */
  int bits; /* for inputs of these bits (bench_gemm_dtype): 8, k tiles of 64+; 4, of 128 */
  tcmma_gemm_kernel kernel; /* MMA_SYNC or WGMMA */
} bench_gemm_config;

/* c's fields "tile", "warps", "stages", "b_transposed" into the open object. */
void bench_gemm_config_json(json_writer *w, const bench_gemm_config *c);

extern const bench_gemm_dtype bench_gemm_dtypes[];
extern const bench_gemm_config bench_gemm_configs[];
extern const int bench_gemm_n_dtypes, bench_gemm_n_configs;

/* The call of dtype t and configuration c for an m x n x k GEMM at cc. */
tcmma_gemm_call bench_gemm_call(const bench_gemm_dtype *t, const bench_gemm_config *c, int m,
                                int n, int k, int cc);

/* The options of configuration c: its kernel kind asked for. */
tcmma_gemm_opts bench_gemm_opts(const bench_gemm_config *c);

/* "128x128x32 w2x2 s3 b,t": c as the tables print it. */
void bench_gemm_config_text(const bench_gemm_config *c, char *buf, size_t cap);

/* tcmma bench gemm --static (tools/bench_gemm_static.c): argv without --static. */
int bench_gemm_static(int argc, char **argv);

/* A subcommand of tcmma bench (tools/bench.def). */
#define TCMMA_BENCH(name, fn, summary) int fn(int argc, char **argv);
#include "bench.def"
#undef TCMMA_BENCH

#endif
