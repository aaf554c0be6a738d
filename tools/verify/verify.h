/* The arm matrix and its executors (docs/design.md §12): one data-driven list of
 * cases that the compile check, the host warp simulator and the GPU
 * executor all run. CLI-side (linked into the tcmma tool, not libtcmma). */
#ifndef TCMMA_VERIFY_H
#define TCMMA_VERIFY_H

#include <stdbool.h>
#include <stddef.h>
#include "tcmma/tcmma.h"

typedef struct {
  char name[384];        /* unique and readable, e.g. "mma-bf16/fragment/32x16x32/a=shared,swizzled/b=t" */
  tcmma_call call;       /* the call; call.scope says statement or fragment */
  int outer;             /* fragment scope: update statements over an outer reduction (>= 1) */
  bool pieces;           /* the kernel composes the pieces, fragments double-buffered */
  bool indexed;          /* the kernel offsets its bases by block and warp indices */
  double alpha, beta;    /* init scale: the values of call.alpha and call.beta */
  tcmma_decline expect;  /* TCMMA_DECLINE_NONE: must be accepted */
  tcmma_arm expect_arm;  /* accepted cases: the arm the plan must choose */
} verify_case;

/* The kernel options a case renders with (its outer steps and form). */
tcmma_kernel_opts verify_case_kernel_opts(const verify_case *c);

/* The most cases the matrix holds; building more fails tests/test_matrix.c. */
#define VERIFY_MATRIX_MAX 2048

/* The whole matrix, built once (accepted cases and declined cases). */
size_t verify_matrix(const verify_case **cases);

/* Which operands an accepted case is expected to load through ldmatrix,
 * from the PTX ISA facts written in the matrix (not from the arm table's
 * rule): only swizzled shared operands of inline-PTX arms; 16-bit operands in
 * either orientation (.trans as needed), 8-bit ones only where a register's
 * four bytes lie along k in memory (A row-major, B stored transposed). */
void verify_case_expect_ldmatrix(const verify_case *c, bool *a, bool *b);

/* A deterministic stratified subset for quick runs: every declined case and,
 * of the accepted ones, the first of each (arm, scope, outer, expected
 * ldmatrix use of a, of b, orientation of a and b). */
bool verify_case_in_subset(const verify_case *c);

typedef enum { VERIFY_EXEC_SIM, VERIFY_EXEC_COMPILE, VERIFY_EXEC_GPU } verify_executor;

typedef enum { VERIFY_CASE_PASSED, VERIFY_CASE_FAILED, VERIFY_CASE_SKIPPED } verify_case_outcome;

typedef struct {
  verify_case_outcome outcome;
  char reason[512];      /* why it failed or was skipped */
} verify_case_result;

/* Sets r's outcome and its reason (printf-style). Returns whether the
 * outcome is PASSED, so `return verify_case_set(r, VERIFY_CASE_FAILED, ...)`
 * ends a check that returns false on failure. */
bool verify_case_set(verify_case_result *r, verify_case_outcome outcome, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));

/* Plans c and checks the plan against the case's expectation: a declined
 * case must decline with the expected reason (and a message); an accepted
 * one must choose the expected arm, the tiling m/tile x n/tile x k/tile of
 * that arm and the expected ldmatrix operands (verify_case_expect_ldmatrix).
 * true: an accepted plan matched, *plan holds it, the executor goes on.
 * false: r is final (PASSED for a matching decline, FAILED naming what
 * differs). Shared by every executor. */
bool verify_case_check_plan(const verify_case *c, tcmma_plan *plan, verify_case_result *r);

/* Each executor runs one case (declined cases: checks the decline reason).
 * An executor that cannot run at all here (no GPU) reports SKIPPED with the
 * reason, never PASSED. */
void verify_exec_sim(const verify_case *c, verify_case_result *r);
void verify_exec_compile(const verify_case *c, verify_case_result *r);
void verify_exec_gpu(const verify_case *c, verify_case_result *r);

/* The compile executor's census check of an accepted case: the plan's census
 * against the compiled PTX (px), for `statements` rendered statements' worth
 * of products (set here). false with r FAILED naming the difference. */
bool verify_exec_compile_census(const verify_case *c, const tcmma_plan *plan,
                                const tcmma_census *cen, const tcmma_ptx_info *px,
                                verify_case_result *r, size_t *statements);

/* The sim executor compiles host-dialect kernels with the system C
 * compiler; prepare compiles the accepted cases among cases in one run so
 * that verify_exec_sim of each needs no compile (a case not prepared compiles
 * alone); finish releases that module. Optional, for speed. */
void verify_exec_sim_prepare(const verify_case *const *cases, size_t count);
void verify_exec_sim_finish(void);

/* The compile executor's: prepare renders the cases and runs all their
 * compiles in batches on every core (tools/verify/compile_run.c), so that
 * verify_exec_compile of each only checks (a case not prepared compiles
 * alone); finish releases the results. Optional, for speed. */
void verify_exec_compile_prepare(const verify_case *const *cases, size_t count);
void verify_exec_compile_finish(void);

#endif
