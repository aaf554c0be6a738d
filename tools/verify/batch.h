/* Compiling many one-warp kernels (tcmma_render_kernel's, entry
 * tcmma_kernel) as they would compile alone, but in batches on every core:
 * the compile executor and tcmma bench compile (tools/verify/batch.c). */
#ifndef TCMMA_VERIFY_BATCH_H
#define TCMMA_VERIFY_BATCH_H

#include <stdbool.h>
#include <stddef.h>
#include "tcmma/tcmma.h"

typedef struct {
  const char *source;        /* a complete kernel whose entry is tcmma_kernel */
  size_t len;
  tcmma_compile_opts opts;   /* jobs whose options are equal share programs */
  bool keep_cubin;           /* false: the CUBIN's bytes are freed as soon as the job
                              * is done (prog.cubin NULL, prog.cubin_len kept) */
  /* filled by verify_compile_jobs */
  tcmma_status status;
  tcmma_error err;
  tcmma_program prog;        /* the job's program; free with tcmma_program_free */
  bool batched;              /* the outcome came from a batch, not a compile alone */
} verify_job;

/* Compiles every job. Jobs of equal options go up to a batch's worth at a
 * time into one tcmma_compile_batch (the system headers any of them
 * includes first, so that an inline-PTX kernel's declared vendor words step
 * aside for them; each kernel renamed by a #define around its text, its
 * program the batch's split: its own PTX); the batches
 * run on every online core. A batch that compiles with an empty log gives
 * each job its split, TCMMA_OK. A batch that fails gives a job its split,
 * TCMMA_COMPILE, when ptxas blamed the job's own PTX (an error line in its
 * part: its entry or a .func it calls); every other job of a failed batch, and every job of a batch
 * whose log is not empty (a warning), is compiled alone, so that its
 * outcome and log are its own. A lone job is compiled alone. */
void verify_compile_jobs(verify_job *jobs, size_t n);

/* The same on `threads` threads (at least 1) instead of one per online core:
 * the jobs' share of a thread sets how big a batch gets. */
void verify_compile_jobs_on(verify_job *jobs, size_t n, size_t threads);

#endif
