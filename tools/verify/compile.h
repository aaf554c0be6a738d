/* Internal to the compile executor (tools/verify/compile*.c): one case's
 * kernel and its two compiles, which tools/verify/compile_run.c runs for many
 * cases at once in batches (tools/verify/batch.h). */
#ifndef TCMMA_VERIFY_COMPILE_H
#define TCMMA_VERIFY_COMPILE_H

#include "tools/verify/batch.h"
#include "tools/verify/verify.h"

typedef struct {
  const verify_case *c;
  bool ready;               /* planned and rendered: its compiles decide; else r is final */
  verify_case_result r;
  tcmma_plan plan;
  tcmma_census cen;
  tcmma_buf src;            /* the kernel, CUDA dialect */
  const tcmma_arm_info *info;
  int want;                 /* the .target the floor compile must reach */
  int below;                /* the arch ptxas must refuse it at (0: none to check) */
} compile_case;

/* Plans and renders c into *k: k->ready, or k->r final (a decline checked, a
 * render failure, NVRTC unavailable). */
void compile_case_start(const verify_case *c, compile_case *k);

/* k's jobs (k->ready): the compile to a CUBIN at the floor target, and the
 * one at the arch below (meaningful when k->below). They point into k. */
void compile_case_jobs(const compile_case *k, verify_job *floor, verify_job *below);

/* k's outcome from its jobs once they ran (ignored when k is not ready). */
void compile_case_finish(const compile_case *k, const verify_job *floor, const verify_job *below,
                         verify_case_result *r);

void compile_case_free(compile_case *k);

#endif
