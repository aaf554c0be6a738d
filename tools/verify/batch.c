/* Many one-warp kernels compiled in batches on every core, each outcome what
 * a compile of its own would give (tools/verify/batch.h). The fixed cost of
 * an NVRTC program (its start-up, the headers it parses) is paid once per
 * batch instead of once per kernel. */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "tools/verify/batch.h"

/* Kernels per NVRTC program: enough to spread the fixed cost thin, few
 * enough that a failed batch costs little to redo and the batches spread
 * over the cores. */
#define BATCH_MAX 24

static bool same_list(const char *const *a, size_t na, const char *const *b, size_t nb) {
  if (na != nb) return false;
  for (size_t i = 0; i < na; i++)
    if ((a[i] == NULL) != (b[i] == NULL) || (a[i] && strcmp(a[i], b[i]) != 0)) return false;
  return true;
}

static bool same_text(const char *a, const char *b) {
  return (a == NULL) == (b == NULL) && (!a || strcmp(a, b) == 0);
}

static bool same_opts(const tcmma_compile_opts *a, const tcmma_compile_opts *b) {
  return same_text(a->name, b->name) && a->target == b->target && a->cc == b->cc &&
         a->sass == b->sass && a->fmad_false == b->fmad_false && a->debug == b->debug &&
         a->arch == b->arch && a->arch_suffix == b->arch_suffix && same_text(a->std, b->std) &&
         a->minimal == b->minimal && same_list(a->extra, a->n_extra, b->extra, b->n_extra) &&
         same_list(a->include_dirs, a->n_include_dirs, b->include_dirs, b->n_include_dirs) &&
         same_list(a->defines, a->n_defines, b->defines, b->n_defines);
}

/* One NVRTC program's worth of jobs, and the arch they all compile at. */
typedef struct {
  verify_job **jobs;
  size_t count;
  int arch;        /* 0: a unit of one job, compiled as it is */
  char suffix;
} unit;

/* The arch a job compiles at: opts.arch, else what its markers and target
 * ask for; 0 when that cannot be told here (the job then compiles alone,
 * and its own compile says why). */
static int arch_of(const verify_job *j, char *suffix) {
  *suffix = j->opts.arch_suffix;
  if (j->opts.arch) return j->opts.arch;
  tcmma_arch_options *a = malloc(sizeof *a);
  int arch = 0;
  if (a && tcmma_gpu_arch_options(j->source, j->len, j->opts.cc, j->opts.target, a, NULL) ==
               TCMMA_OK)
    arch = a->arch, *suffix = a->suffix;
  free(a);
  return arch;
}

static void finish(verify_job *j) {
  if (!j->keep_cubin) free(j->prog.cubin), j->prog.cubin = NULL;
}

static void alone(verify_job *j) {
  tcmma_error_clear(&j->err);
  j->status = tcmma_compile(j->source, j->len, &j->opts, &j->prog, &j->err);
  j->batched = false;
  finish(j);
}

/* The first line of log where ptxas names an error in a PTX line (*len its
 * length, at most 511), or NULL. */
static const char *ptxas_blame(const char *log, int *len) {
  for (const char *p = log; p && *p;) {
    const char *nl = strchr(p, '\n');
    size_t n = nl ? (size_t)(nl - p) : strlen(p);
    char line[512];
    *len = (int)(n < sizeof line ? n : sizeof line - 1);
    snprintf(line, sizeof line, "%.*s", *len, p);
    if (strstr(line, "ptx input, line ") && strstr(line, "error")) return p;
    p += n + (nl != NULL);
  }
  return NULL;
}

/* Whether head[0..n) holds line[0..len) as a line of its own. */
static bool holds_line(const char *head, size_t n, const char *line, size_t len) {
  for (size_t at = 0; at + len < n + 1; at++)
    if ((at == 0 || head[at - 1] == '\n') && memcmp(head + at, line, len) == 0 &&
        (at + len == n || head[at + len] == '\n'))
      return true;
  return false;
}

/* Appends to head every system #include line of src[0..len) (the vendor
 * headers tcmma_render_includes writes) it does not hold yet. */
static void hoist_includes(tcmma_buf *head, const char *src, size_t len) {
  static const char system_include[] = "#include <";
  const size_t mark = sizeof system_include - 1;
  for (size_t at = 0; at < len;) {
    const char *nl = memchr(src + at, '\n', len - at);
    size_t n = nl ? (size_t)(nl - (src + at)) : len - at;
    if (n > mark && memcmp(src + at, system_include, mark) == 0 &&
        !holds_line(head->data ? head->data : "", head->len, src + at, n)) {
      tcmma_buf_append(head, src + at, n);
      tcmma_buf_printf(head, "\n");
    }
    at += n + 1;
  }
}

/* The unit's source: the vendor headers any job includes, first, then each
 * job's kernel renamed tcmma_kernel_<i> (48 bytes hold any size_t). The
 * headers lead because an inline-PTX kernel declares the few vendor words
 * it uses only where the header defining them is not in yet (their guards,
 * tables/cuda_words.def): a header after such a kernel would define its
 * words again and fail the whole program. */
static char *compose(const unit *u, size_t *len, char (*names)[48]) {
  tcmma_buf b = {0};
  for (size_t i = 0; i < u->count; i++) hoist_includes(&b, u->jobs[i]->source, u->jobs[i]->len);
  for (size_t i = 0; i < u->count; i++) {
    snprintf(names[i], sizeof names[i], "tcmma_kernel_%zu", i);
    tcmma_buf_printf(&b, "#define tcmma_kernel %s\n", names[i]);
    tcmma_buf_append(&b, u->jobs[i]->source, u->jobs[i]->len);
    tcmma_buf_printf(&b, "\n#undef tcmma_kernel\n");
  }
  if (b.failed) return tcmma_buf_free(&b), NULL;
  *len = b.len;
  return b.data;
}

static void run_unit(const unit *u) {
  if (u->count == 1 || !u->arch) {
    for (size_t i = 0; i < u->count; i++) alone(u->jobs[i]);
    return;
  }
  char (*names)[48] = calloc(u->count, sizeof *names);
  const char **kernels = calloc(u->count, sizeof *kernels);
  tcmma_program *progs = calloc(u->count, sizeof *progs);
  size_t len = 0;
  char *src = names && kernels && progs ? compose(u, &len, names) : NULL;
  tcmma_error err;
  tcmma_status st = TCMMA_NO_MEMORY;
  if (src) {
    for (size_t i = 0; i < u->count; i++) kernels[i] = names[i];
    /* the arch every job of the unit asks for, as an explicit one: the
     * options NVRTC gets are each job's own */
    tcmma_compile_opts opts = u->jobs[0]->opts;
    opts.arch = u->arch, opts.arch_suffix = u->suffix;
    st = tcmma_compile_batch(src, len, kernels, u->count, &opts, progs, &err);
  }
  bool clean = st == TCMMA_OK && progs[0].log && !progs[0].log[0];
  for (size_t i = 0; i < u->count; i++) {
    verify_job *j = u->jobs[i];
    const char *blame = NULL;
    int blame_len = 0;
    bool take = clean || (st == TCMMA_COMPILE && progs[i].ptx &&
                          (blame = ptxas_blame(progs[i].log, &blame_len)));
    if (take) {
      j->prog = progs[i];
      j->status = st;
      /* the job's own error, not the batch's first (another kernel's) */
      tcmma_error_clear(&j->err);
      if (blame)
        tcmma_fail(&j->err, st, "ptxas rejected the kernel's PTX (compiled in a batch): %.*s",
                   blame_len, blame);
      j->batched = true;
      finish(j);
    } else {
      if (progs) tcmma_program_free(&progs[i]);
      alone(j);
    }
  }
  free(src), free(names), free(kernels), free(progs);
}

typedef struct {
  unit *units;
  size_t count, next;
  pthread_mutex_t mu;
} queue;

static void *worker(void *arg) {
  queue *q = arg;
  for (;;) {
    pthread_mutex_lock(&q->mu);
    size_t i = q->next < q->count ? q->next++ : q->count;
    pthread_mutex_unlock(&q->mu);
    if (i == q->count) return NULL;
    run_unit(&q->units[i]);
  }
}

/* qsort's order of units: the largest first (then as planned), so that the
 * threads take the long ones early and finish together. */
static int larger_first(const void *pa, const void *pb) {
  const unit *a = pa, *b = pb;
  if (a->count != b->count) return a->count < b->count ? 1 : -1;
  return (a->jobs > b->jobs) - (a->jobs < b->jobs);
}

/* The jobs grouped by options and arch, each group cut into even units of
 * at most `per` jobs: the jobs' share of a thread, BATCH_MAX at most. A
 * group within its share stays one program, since every cut costs a
 * program's start-up (CPU) and the groups themselves spread over the
 * threads. */
static unit *plan_units(verify_job *jobs, size_t n, size_t threads, size_t *count,
                        verify_job **slots) {
  unit *units = calloc(n ? n : 1, sizeof *units);
  bool *placed = calloc(n ? n : 1, sizeof *placed);
  int *arch = calloc(n ? n : 1, sizeof *arch);
  char *suffix = calloc(n ? n : 1, sizeof *suffix);
  if (!units || !placed || !arch || !suffix) {
    free(units), free(placed), free(arch), free(suffix);
    return NULL;
  }
  for (size_t i = 0; i < n; i++) arch[i] = arch_of(&jobs[i], &suffix[i]);
  size_t per = (n + threads - 1) / threads;
  if (per > BATCH_MAX) per = BATCH_MAX;
  if (per < 1) per = 1;
  size_t at = 0, k = 0;
  for (size_t i = 0; i < n; i++) {
    if (placed[i]) continue;
    size_t members = 0, start = at;
    for (size_t j = i; j < n; j++)
      if (!placed[j] && same_opts(&jobs[i].opts, &jobs[j].opts) && arch[i] == arch[j] &&
          suffix[i] == suffix[j] && (arch[i] || j == i)) {
        placed[j] = true;
        slots[at++] = &jobs[j];
        members++;
      }
    size_t pieces = (members + per - 1) / per;
    for (size_t p = 0, s = 0; p < pieces; p++) {
      size_t size = members / pieces + (p < members % pieces);
      units[k++] = (unit){&slots[start + s], size, arch[i], suffix[i]};
      s += size;
    }
  }
  free(placed), free(arch), free(suffix);
  qsort(units, k, sizeof *units, larger_first);
  *count = k;
  return units;
}

void verify_compile_jobs(verify_job *jobs, size_t n) {
  long online = sysconf(_SC_NPROCESSORS_ONLN);
  verify_compile_jobs_on(jobs, n, online > 0 ? (size_t)online : 1);
}

void verify_compile_jobs_on(verify_job *jobs, size_t n, size_t threads) {
  if (threads < 1) threads = 1;
  verify_job **slots = calloc(n ? n : 1, sizeof *slots);
  queue q = {.mu = PTHREAD_MUTEX_INITIALIZER};
  q.units = slots ? plan_units(jobs, n, threads, &q.count, slots) : NULL;
  if (!q.units) { /* no memory to plan: one at a time */
    for (size_t i = 0; i < n; i++) alone(&jobs[i]);
    free(slots);
    return;
  }
  if (threads > q.count) threads = q.count;
  pthread_t *tid = calloc(threads ? threads : 1, sizeof *tid);
  size_t started = 0;
  for (size_t t = 1; tid && t < threads; t++)
    if (pthread_create(&tid[started], NULL, worker, &q) == 0) started++;
  worker(&q); /* this thread works too */
  for (size_t t = 0; t < started; t++) pthread_join(tid[t], NULL);
  free(tid), free(q.units), free(slots);
}
