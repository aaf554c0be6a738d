/* The ladder of a probe (docs/nvrtc.md, "Probes"): its rungs, and their
 * compiles run a batch at a time, one thread a rung, on the cores. The walk
 * (nvrtc/probe.c) asks for rungs in its own order and gets each one's
 * outcome as a compile of its own would give it: a batch only runs the next
 * rungs the walk will most likely ask for while it waits for the first. */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "nvrtc/probe_ladder.h"
#include "nvrtc/internal.h"

#define WIDTH_MAX 8

tcmma__arch_ladder *tcmma__arch_ladder_open(const tcmma_arch_support *s, const char *source,
                                            size_t len, const tcmma_compile_opts *opts) {
  tcmma__arch_ladder *l = calloc(1, sizeof *l);
  if (!l) return NULL;
  l->source = source, l->len = len, l->opts = *opts;
  int archs[TCMMA_ARCH_MAX_ARCHS];
  size_t n = s->count < TCMMA_ARCH_MAX_ARCHS ? s->count : TCMMA_ARCH_MAX_ARCHS;
  memcpy(archs, s->archs, n * sizeof *archs);
  for (size_t i = 1; i < n; i++) /* nvrtcGetSupportedArchs lists them ascending; be sure */
    for (size_t j = i; j > 0 && archs[j - 1] > archs[j]; j--) {
      int t = archs[j];
      archs[j] = archs[j - 1], archs[j - 1] = t;
    }
  for (size_t i = 0; i < n; i++) {
    l->rungs[l->n++] = (tcmma__arch_rung){archs[i], 0};
    if (s->accepts && s->accepts(archs[i], 'f', s->ctx))
      l->rungs[l->n++] = (tcmma__arch_rung){archs[i], 'f'};
    if (s->accepts && s->accepts(archs[i], 'a', s->ctx))
      l->rungs[l->n++] = (tcmma__arch_rung){archs[i], 'a'};
  }
  long online = sysconf(_SC_NPROCESSORS_ONLN);
  l->width = online < 1 ? 1 : online > WIDTH_MAX ? WIDTH_MAX : (size_t)online;
  return l;
}

/* Compiles rung i into l->done[i]: a CUBIN, so that ptxas checks every
 * instruction too, those no table row knows. Touches done[i] only: the
 * batch's threads run it side by side. */
static void compile_rung(tcmma__arch_ladder *l, size_t i) {
  tcmma__arch_outcome *o = &l->done[i];
  memset(o, 0, sizeof *o);
  tcmma_compile_opts opts = l->opts;
  opts.arch = l->rungs[i].arch, opts.arch_suffix = l->rungs[i].suffix, opts.sass = true;
  tcmma_program p;
  tcmma_error err = {0};
  o->st = tcmma_compile(l->source, l->len, &opts, &p, &err);
  snprintf(o->message, sizeof o->message, "%s", o->st == TCMMA_OK ? "" : err.message);
  o->hit = p.cache_hit;
  if (o->st == TCMMA_OK && p.ptx) tcmma__arch_kernels(p.ptx, p.ptx_len, &o->idle, &o->busy);
  tcmma_program_free(&p);
  /* NVRTC missing or out of memory: this rung can say nothing */
  if (o->st == TCMMA_UNAVAILABLE || o->st == TCMMA_NO_MEMORY) o->hard = o->st;
  if (o->idle.failed || o->busy.failed) o->hard = TCMMA_NO_MEMORY;
}

typedef struct {
  tcmma__arch_ladder *l;
  size_t i;
} job;

static void *run_job(void *arg) {
  job *j = arg;
  compile_rung(j->l, j->i);
  return NULL;
}

/* Compiles rung i and the rungs above it not yet compiled, width at once:
 * a thread each but the first, which this thread compiles (a thread that
 * cannot start is run here after it). */
static void run_batch(tcmma__arch_ladder *l, size_t i) {
  job jobs[WIDTH_MAX];
  pthread_t tid[WIDTH_MAX];
  bool started[WIDTH_MAX] = {false};
  size_t k = 0;
  for (size_t j = i; j < l->n && k < l->width; j++)
    if (!l->have[j]) jobs[k++] = (job){l, j};
  if (k == 0) return; /* rung i was compiled already */
  for (size_t t = 1; t < k; t++) started[t] = pthread_create(&tid[t], NULL, run_job, &jobs[t]) == 0;
  run_job(&jobs[0]);
  for (size_t t = 1; t < k; t++) {
    if (started[t]) pthread_join(tid[t], NULL);
    else run_job(&jobs[t]);
  }
  for (size_t t = 0; t < k; t++) {
    l->have[jobs[t].i] = true;
    l->ran++, l->hits += l->done[jobs[t].i].hit;
  }
  l->batches++;
}

const tcmma__arch_outcome *tcmma__arch_ladder_at(tcmma__arch_ladder *l, size_t i) {
  if (i >= l->n) return NULL;
  if (!l->have[i]) run_batch(l, i);
  return &l->done[i];
}

void tcmma__arch_ladder_close(tcmma__arch_ladder *l) {
  for (size_t i = 0; l && i < l->n; i++)
    if (l->have[i]) tcmma_buf_free(&l->done[i].idle), tcmma_buf_free(&l->done[i].busy);
  free(l);
}
