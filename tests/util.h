/* Helpers shared by the tests (tests/util_*.c). cmocka must be included
 * after the standard headers it needs, so include this first. */
#ifndef TCMMA_TEST_UTIL_H
#define TCMMA_TEST_UTIL_H

#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <stdbool.h>
#include "tcmma/ptx.h"

/* Output of one run of the tcmma CLI. */
typedef struct {
  int exit_code;  /* exit status, or 128+signal */
  char *out;      /* stdout, NUL-terminated, owned */
  size_t out_len;
  char *err;      /* stderr, NUL-terminated, owned */
  size_t err_len;
} cli_result;

/* Runs $TCMMA_BIN (default build/tcmma) with argv (NULL-terminated, without
 * the program name) in the source root, with stdin from `input` (NULL: empty). */
cli_result run_cli(const char *const *argv, const char *input);
/* The same, run in directory dir (NULL: the source root). */
cli_result run_cli_in(const char *dir, const char *const *argv, const char *input);
void cli_result_free(cli_result *r);

/* The integer after "key": in a JSON text; -1 when absent. */
long json_int_of(const char *json, const char *key);

/* Reads a whole file; NULL when it cannot. *len set when non-NULL. Owned. */
char *read_file(const char *path, size_t *len);

/* Compiles host-dialect text with $CC into a shared object and dlopens it
 * (tests/util_module.c); NULL when it does not compile or load. */
void *host_module_open(const char *text);

/* The host module of text, compiled and loaded (host_module_open), and its
 * function name(void *args) in *entry; fails the test when it does not
 * compile or lacks name. The handle, for dlclose. */
typedef void (*host_entry_fn)(void *);
void *host_module_entry(const char *text, const char *name, host_entry_fn *entry);

/* The precision a name (tables/prec.def) parses to; fails the test when none. */
#include "tcmma/prec.h"
tcmma_prec test_prec(const char *name);

/* text (malloc'd, freed here) with its first from replaced by to, as a new
 * malloc'd string; fails the test when from is not in it. */
char *text_edited(char *text, const char *from, const char *to);

/* Builds the first ```c block after heading in doc (relative to the
 * source root) into a program against $TCMMA_BUILD's libtcmma.a, in a
 * fresh folder (its name into dir; remove it with doc_example_remove);
 * the program's path (owned), or NULL, saying why on stderr. */
char *doc_example_build(const char *doc, const char *heading, char *dir, size_t cap);
void doc_example_remove(const char *dir);

/* $TCMMA_SRCDIR (default ".") joined with a relative path; static buffer. */
const char *src_path(const char *rel);

/* Runs the shell script rel (relative to the source root) with sh, copying
 * its output, stderr included, to stdout; its wait status (0: it passed),
 * -1 when it cannot be started. */
int run_script(const char *rel);

/* The CUDA toolkit the tests use: $CUDA_HOME, else the build's. */
const char *cuda_home(void);

/* Builds the fake libcuda (tests/fake_cuda.c: two devices, cc 8.0 and 9.0
 * unless FAKE_CUDA_CCS says otherwise) once; its path, or NULL. */
const char *fake_cuda_build(void);

/* Unloads the driver and deletes the fake library. */
void fake_cuda_remove(void);

/* Points the driver wrapper at library (TCMMA_LIBCUDA; NULL: the default)
 * for a fresh load, with the fake's own settings cleared. */
void fake_cuda_use(const char *library);

/* A PTX module of the corpus (tests/util_ptx.c): its path under the source
 * tree and its text. */
typedef struct {
  char name[160];
  char *text;
  size_t len;
} ptx_module;

/* The .ptx files of tests/data and tests/data/ptx, in name order:
 * ptx_corpus_setup, a cmocka group setup, reads them into
 * ptx_corpus[0..ptx_corpus_count) and fails with fewer than 10;
 * ptx_corpus_teardown frees them. */
#define PTX_CORPUS_MAX 48
extern ptx_module ptx_corpus[PTX_CORPUS_MAX];
extern size_t ptx_corpus_count;
int ptx_corpus_setup(void **state);
int ptx_corpus_teardown(void **state);

/* Fails unless PTX reads a and b agree in every field (tests/util_ptx.c);
 * name and how say which module and which read. */
void ptx_info_same(const tcmma_ptx_info *a, const tcmma_ptx_info *b, const char *name,
                   const char *how);

/* ptxas (tests/util_ptxas.c). Its path under the toolkit, NULL when missing. */
const char *ptxas_path(void);

/* The GPU targets ptxas --help lists, at most cap, lowest first (sm_75,
 * ..., sm_90, sm_90a, sm_100, sm_100a, sm_100f, ...); how many. */
size_t ptxas_targets(char (*out)[16], size_t cap);

/* One ptxas run: text (len bytes) assembled with -arch arch; rc (exit
 * status, -1: could not run) and log (its output, owned) are filled. */
typedef struct {
  const char *text;
  size_t len;
  const char *arch;
  int rc;
  char *log;
} ptxas_job;

/* Runs the jobs, one per online CPU at a time. */
void ptxas_run(ptxas_job *jobs, size_t n);

/* Whether log reports an error or fatal error at line. */
bool ptxas_error_at(const char *log, int line);

/* The first line with an error that lines[] (count entries) does not mark,
 * 0 when there is none. */
int ptxas_error_outside(const char *log, const bool *lines, int count);

/* ptxas's highest PTX ISA version (major*10+minor: 90 for 9.0); 0 when it
 * cannot be asked. */
int ptxas_top_version(void);

/* Frees the logs of n jobs. */
void ptxas_jobs_free(ptxas_job *jobs, size_t n);

/* A scratch compile cache (tests/util_cache.c): sets TCMMA_CACHE_DIR to a
 * new /tmp/tcmma-test-<tag>-<pid>-<n> (into dir), unsets TCMMA_CACHE and
 * TCMMA_PTX_TARGET and empties the memory cache; remove deletes the
 * directory and all under it (0, or -1 when it could not). */
void test_cache_fresh(char *dir, size_t cap, const char *tag);
int test_cache_remove(const char *dir);

/* Runs fn in a fresh child process (a fork: what this process has loaded
 * or found once, the child has too) and returns its exit status; fails the
 * test when the child does not exit normally. */
int test_in_child(int (*fn)(void));

/* Plans D = A x B with the operand SPECs d, a, b (tools/cli_parse.h) over
 * m x n x k in scope, forcing arm when not NULL (with the numerics it needs:
 * tf32 for wmma-tf32, fp16 narrow for wmma-f16); fails the test when the
 * plan declines. */
#include "tcmma/plan.h"
tcmma_plan test_plan(const char *d, const char *a, const char *b, int m, int n, int k,
                     tcmma_scope scope, const char *arm);

/* A render context and a stage copy as one expression (compound literals
 * that live to the end of the enclosing block), for the tests' one-line
 * renderer calls. */
#include "tcmma/render.h"
#define RCTX(plan, dialect, names, out) \
  (&(tcmma_render_ctx)TCMMA_RENDER_CTX_INIT((plan), (dialect), (names), (out)))
#define STAGE_OPTS(...) (&(tcmma_stage_opts){sizeof(tcmma_stage_opts), __VA_ARGS__})

/* The TMA GEMM tests' call (tests/util_plan.c): D[m x n] f32 = A bf16
 * (stored m x k) B bf16 (stored n x k) at cc, every tile field left to the
 * plan. */
#include "tcmma/gemm.h"
tcmma_gemm_call test_gemm_kmajor(int m, int n, int k, int cc);

/* The kernel kind planned for c under o, accepted or declined; fails the
 * test on any other status. */
tcmma_gemm_kernel test_gemm_kind(const tcmma_gemm_call *c, const tcmma_gemm_opts *o);

/* Renders plan p with options o in dialect dl into out; fails the test on
 * an error. */
void test_gemm_render(const tcmma_gemm_plan *p, const tcmma_gemm_opts *o, tcmma_dialect dl,
                      tcmma_buf *out);

/* A one-block tcgen05 test kernel around tcmma_tcgen05_render (tests/util_tcgen05_kernel.c):
 *   tcmma_kernel(unsigned *d, const unsigned char *ga, const unsigned char *gb,
 *                const unsigned *gta, const unsigned *gsf)
 * (host dialect: also tcmma_kernel_entry(void *args), args a void *[5]), 128
 * threads, dynamic shared memory tcgen05_shared_bytes(call): the block copies
 * A (ga, shared; gta: per lane the 32-bit words of A's row when A is in
 * Tensor Memory) and B (gb) into place, warp 0 allocates Tensor Memory, one
 * thread issues the product and commits it to an mbarrier, every thread
 * waits on it and stores its lane's D row (n 32-bit words; d[t * n + j])
 * through tcgen05.ld.32x32b, and warp 0 frees the columns. Block-scaled
 * rows: gsf holds the bytes of the scale atoms (tcmma_tcgen05_scale_cell's
 * src), A's tcgen05_scale_atoms(call, A) then B's, copied to shared memory at
 * tcgen05_sf_at(call) and by the issuing thread into Tensor Memory with
 * tcmma_tcgen05_cp_scales before the product. A and B are stored by the
 * caller's bytes as the layouts say: A at offset 0, B at tcgen05_b_at(call). */
#include "tcmma/tcgen05.h"
int tcgen05_scale_atoms(const tcmma_tcgen05_call *call, tcmma_operand op);
long tcgen05_sf_at(const tcmma_tcgen05_call *call);
long tcgen05_b_at(const tcmma_tcgen05_call *call);
size_t tcgen05_shared_bytes(const tcmma_tcgen05_call *call);
int tcgen05_a_words(const tcmma_tcgen05_call *call);
void tcgen05_kernel(const tcmma_tcgen05_call *call, tcmma_buf *out);

#endif
