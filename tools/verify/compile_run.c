/* The compile executor over many cases (docs/design.md §12.3):
 * verify_exec_compile_prepare renders every selected case and runs all their
 * compiles — at the floor and, for inline-PTX arms, just below it — through
 * tools/verify/batch.c: kernels of one arch share an NVRTC program, the
 * programs run on every core, and each outcome is what the case's own compile
 * gives (a batch that warns or fails is compiled again case by case; a
 * rejection ptxas pins on a case's own PTX is that case's). verify_exec_compile
 * then only checks; a case not prepared compiles alone. */
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include "tools/verify/compile.h"

static pthread_mutex_t mu = PTHREAD_MUTEX_INITIALIZER;
static struct {
  compile_case *cases;
  verify_job *jobs; /* two per case: floor, below */
  size_t count;
} prepared;

/* Starts n cases and runs their jobs; *cases and *jobs (2n) are the caller's
 * to free with release(). */
static void run(const verify_case *const *list, size_t n, compile_case *cases, verify_job *jobs) {
  verify_job *pending = calloc(2 * n + 1, sizeof *pending);
  size_t *slot = calloc(2 * n + 1, sizeof *slot), k = 0;
  for (size_t i = 0; i < n; i++) {
    compile_case_start(list[i], &cases[i]);
    if (!cases[i].ready) continue;
    compile_case_jobs(&cases[i], &jobs[2 * i], &jobs[2 * i + 1]);
    if (!pending || !slot) continue;
    pending[k] = jobs[2 * i], slot[k++] = 2 * i;
    if (cases[i].below) pending[k] = jobs[2 * i + 1], slot[k++] = 2 * i + 1;
  }
  if (pending && slot) {
    verify_compile_jobs(pending, k);
    for (size_t j = 0; j < k; j++) jobs[slot[j]] = pending[j];
  } else { /* no memory to batch: each alone */
    for (size_t i = 0; i < 2 * n; i++)
      if (cases[i / 2].ready && (i % 2 == 0 || cases[i / 2].below)) verify_compile_jobs(&jobs[i], 1);
  }
  free(pending), free(slot);
}

static void release(compile_case *cases, verify_job *jobs, size_t n) {
  for (size_t i = 0; cases && i < n; i++) compile_case_free(&cases[i]);
  for (size_t i = 0; jobs && i < 2 * n; i++) tcmma_program_free(&jobs[i].prog);
  free(cases), free(jobs);
}

void verify_exec_compile_prepare(const verify_case *const *list, size_t count) {
  verify_exec_compile_finish();
  compile_case *cases = calloc(count ? count : 1, sizeof *cases);
  verify_job *jobs = calloc(2 * count + 1, sizeof *jobs);
  if (!cases || !jobs) { /* the cases then compile one by one */
    free(cases), free(jobs);
    return;
  }
  run(list, count, cases, jobs);
  pthread_mutex_lock(&mu);
  prepared.cases = cases, prepared.jobs = jobs, prepared.count = count;
  pthread_mutex_unlock(&mu);
}

void verify_exec_compile_finish(void) {
  pthread_mutex_lock(&mu);
  release(prepared.cases, prepared.jobs, prepared.count);
  memset(&prepared, 0, sizeof prepared);
  pthread_mutex_unlock(&mu);
}

void verify_exec_compile(const verify_case *c, verify_case_result *r) {
  pthread_mutex_lock(&mu);
  for (size_t i = 0; i < prepared.count; i++)
    if (prepared.cases[i].c == c) {
      compile_case_finish(&prepared.cases[i], &prepared.jobs[2 * i], &prepared.jobs[2 * i + 1], r);
      pthread_mutex_unlock(&mu);
      return;
    }
  pthread_mutex_unlock(&mu);
  compile_case one;
  verify_job jobs[2];
  memset(jobs, 0, sizeof jobs);
  const verify_case *list[1] = {c};
  run(list, 1, &one, jobs);
  compile_case_finish(&one, &jobs[0], &jobs[1], r);
  compile_case_free(&one);
  tcmma_program_free(&jobs[0].prog), tcmma_program_free(&jobs[1].prog);
}
