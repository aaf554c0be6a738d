/* The GEMM matrix's compile executor (docs/verify.md, GEMM cases):
 * tcmma_gemm_compile_prepare renders every selected case the plan accepts
 * and compiles them all through tools/verify/batch.c, as the arm matrix's
 * executor does (kernels of one arch share an NVRTC program, the programs
 * run on every core, each kernel's PTX and ptxas figures are its own);
 * tcmma_gemm_exec_compile then only checks, and compiles a case that was
 * not prepared alone. */
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include "tools/verify/batch.h"
#include "tools/verify/gemm.h"

/* One case's compile: the kernel's text and its job. */
typedef struct {
  const tcmma_gemm_case *c;
  tcmma_buf text;
  tcmma_error render_err;
  bool rendered;
  verify_job job;
} gemm_compile;

static pthread_mutex_t mu = PTHREAD_MUTEX_INITIALIZER;
static struct {
  gemm_compile *items;
  size_t count;
} prepared;

/* Renders plan's kernel into g and makes its job: a CUBIN at the floor, one
 * program name for all, so that every case of one arch can share a batch. */
static void start(const tcmma_gemm_case *c, const tcmma_gemm_plan *p, gemm_compile *g) {
  memset(g, 0, sizeof *g);
  g->c = c;
  g->rendered = tcmma_render_gemm(p, TCMMA_DIALECT_CUDA, &g->text, &g->render_err) == TCMMA_OK;
  g->job = (verify_job){.source = tcmma_buf_str(&g->text), .len = g->text.len,
                        .opts = TCMMA_COMPILE_OPTS_INIT(.name = "verify-gemm.cu", .sass = true)};
}

static void release(gemm_compile *items, size_t n) {
  for (size_t i = 0; items && i < n; i++) {
    tcmma_buf_free(&items[i].text);
    tcmma_program_free(&items[i].job.prog);
  }
  free(items);
}

/* The case's outcome from its compile. */
static void judge(const tcmma_gemm_plan *p, const gemm_compile *g, tcmma_case_result *r) {
  const verify_job *j = &g->job;
  char why[400];
  if (!g->rendered)
    tcmma_case_set(r, TCMMA_CASE_FAILED, "render: %s", g->render_err.message);
  else if (j->status == TCMMA_UNAVAILABLE)
    tcmma_case_set(r, TCMMA_CASE_SKIPPED, "%s", j->err.message);
  else if (j->status != TCMMA_OK)
    tcmma_case_set(r, TCMMA_CASE_FAILED, "compile: %s", j->err.message);
  else if (!tcmma_gemm_compile_check(p, &j->prog, why, sizeof why))
    tcmma_case_set(r, TCMMA_CASE_FAILED, "%s", why);
  else
    tcmma_case_set(r, TCMMA_CASE_PASSED, "%d registers (plan %d), no spills, census as planned",
                   j->prog.registers, p->registers);
}

void tcmma_gemm_compile_prepare(const tcmma_gemm_case *const *list, size_t count) {
  tcmma_gemm_compile_finish();
  gemm_compile *items = calloc(count ? count : 1, sizeof *items);
  verify_job *jobs = calloc(count ? count : 1, sizeof *jobs);
  size_t *slot = calloc(count ? count : 1, sizeof *slot);
  if (!items || !jobs || !slot) { /* the cases then compile one by one */
    free(items), free(jobs), free(slot);
    return;
  }
  size_t n = 0, k = 0;
  for (size_t i = 0; i < count; i++) {
    tcmma_gemm_plan p;
    tcmma_case_result r;
    memset(&r, 0, sizeof r);
    if (!tcmma_gemm_case_plan(list[i], &p, &r)) continue; /* declined: nothing to compile */
    start(list[i], &p, &items[n]);
    if (items[n].rendered) jobs[k] = items[n].job, slot[k++] = n;
    n++;
  }
  verify_compile_jobs(jobs, k);
  for (size_t i = 0; i < k; i++) items[slot[i]].job = jobs[i];
  free(jobs), free(slot);
  pthread_mutex_lock(&mu);
  prepared.items = items, prepared.count = n;
  pthread_mutex_unlock(&mu);
}

void tcmma_gemm_compile_finish(void) {
  pthread_mutex_lock(&mu);
  release(prepared.items, prepared.count);
  memset(&prepared, 0, sizeof prepared);
  pthread_mutex_unlock(&mu);
}

void tcmma_gemm_exec_compile(const tcmma_gemm_case *c, const tcmma_gemm_plan *p,
                             tcmma_case_result *r) {
  pthread_mutex_lock(&mu);
  for (size_t i = 0; i < prepared.count; i++)
    if (prepared.items[i].c == c) {
      judge(p, &prepared.items[i], r);
      pthread_mutex_unlock(&mu);
      return;
    }
  pthread_mutex_unlock(&mu);
  gemm_compile one;
  start(c, p, &one);
  if (one.rendered) verify_compile_jobs(&one.job, 1);
  judge(p, &one, r);
  tcmma_buf_free(&one.text);
  tcmma_program_free(&one.job.prog);
}
