/* The arm matrix and its executors (DESIGN §7): one data-driven list of
 * cases that the compile check, the host warp simulator and the GPU
 * executor all run. CLI-side (linked into the tcmma tool, not libtcmma). */
#ifndef TCMMA_VERIFY_H
#define TCMMA_VERIFY_H

#include <stdbool.h>
#include <stddef.h>
#include "tcmma/tcmma.h"

typedef struct {
  char name[160];        /* unique and readable, e.g. "mma-bf16/fragment/32x16x32/a=shared,swizzled/b=t" */
  tcmma_call call;       /* the call; call.scope says statement or fragment */
  int outer;             /* fragment scope: update statements over an outer reduction (>= 1) */
  tcmma_decline expect;  /* TCMMA_DECLINE_NONE: must be accepted */
  tcmma_arm expect_arm;  /* accepted cases: the arm the plan must choose */
} tcmma_case;

/* The whole matrix, built once (accepted cases and declined cases). */
size_t tcmma_matrix(const tcmma_case **cases);

typedef enum { TCMMA_EXEC_SIM, TCMMA_EXEC_COMPILE, TCMMA_EXEC_GPU } tcmma_executor;

typedef enum { TCMMA_CASE_PASSED, TCMMA_CASE_FAILED, TCMMA_CASE_SKIPPED } tcmma_case_outcome;

typedef struct {
  tcmma_case_outcome outcome;
  char reason[512];      /* why it failed or was skipped */
} tcmma_case_result;

/* Each executor runs one case (declined cases: checks the decline reason).
 * An executor that cannot run at all here (no GPU) reports SKIPPED with the
 * reason, never PASSED. */
void tcmma_exec_sim(const tcmma_case *c, tcmma_case_result *r);
void tcmma_exec_compile(const tcmma_case *c, tcmma_case_result *r);
void tcmma_exec_gpu(const tcmma_case *c, tcmma_case_result *r);

#endif
