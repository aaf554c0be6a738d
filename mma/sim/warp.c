/* The warp scheduler of the host simulator: 32 POSIX threads, one per lane,
 * meeting at every collective. The last lane to arrive checks that all 32
 * reached the same collective, runs its model once for the whole warp and
 * releases the others. Threads (not coroutines) keep ASan, UBSan and
 * valgrind exact without stack-switching annotations. A failure (divergence,
 * an unknown opcode) stops every lane by longjmp back to its thread body, so
 * a broken run ends instead of hanging. */
#include <pthread.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>
#include "mma/sim/internal.h"

typedef struct {
  pthread_mutex_t mu;
  pthread_cond_t cv;
  unsigned arrived, exited;
  unsigned long generation;
  bool failed;
  char message[TCMMA_ERROR_MAX];
  bool waiting[SIM_LANES];
  const char *opcode[SIM_LANES];
  sim_exec_fn exec[SIM_LANES];
  void *arg[SIM_LANES];
} sim_warp;

static pthread_mutex_t launch_mu = PTHREAD_MUTEX_INITIALIZER;
static sim_warp warp = {PTHREAD_MUTEX_INITIALIZER, PTHREAD_COND_INITIALIZER};

typedef struct {
  void (*entry)(void *);
  void *arg;
  int lane;
} lane_start;

static _Thread_local int tls_lane = -1;
static _Thread_local jmp_buf *tls_stop;

int tcmma__sim_current_lane(void) { return tls_lane; }
unsigned tcmma_sim_lane(void) { return tls_lane < 0 ? 0u : (unsigned)tls_lane; }

unsigned tcmma_sim_block(void) { return 0u; }

/* Caller holds warp.mu. */
static void vfail_locked(const char *fmt, va_list ap) {
  if (warp.failed) return;
  warp.failed = true;
  vsnprintf(warp.message, sizeof warp.message, fmt, ap);
  pthread_cond_broadcast(&warp.cv);
}

static void fail_locked(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
static void fail_locked(const char *fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  vfail_locked(fmt, ap);
  va_end(ap);
}

/* Called from an exec (warp.mu held by the rendezvous). */
void tcmma__sim_fail(const char *fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  vfail_locked(fmt, ap);
  va_end(ap);
}

static _Noreturn void stop_lane(void) { longjmp(*tls_stop, 1); }

void tcmma__sim_fail_lane(const char *fmt, ...) {
  pthread_mutex_lock(&warp.mu);
  va_list ap;
  va_start(ap, fmt);
  vfail_locked(fmt, ap);
  va_end(ap);
  pthread_mutex_unlock(&warp.mu);
  stop_lane();
}

/* "0-3,8" style list of the lanes where pick(lane) holds. */
static void lane_list(char *buf, size_t cap, bool (*pick)(int lane, const void *ctx),
                      const void *ctx) {
  size_t used = 0;
  buf[0] = '\0';
  for (int l = 0; l < SIM_LANES; l++) {
    if (!pick(l, ctx)) continue;
    int end = l;
    while (end + 1 < SIM_LANES && pick(end + 1, ctx)) end++;
    int n = end > l ? snprintf(buf + used, cap - used, "%s%d-%d", used ? "," : "", l, end)
                    : snprintf(buf + used, cap - used, "%s%d", used ? "," : "", l);
    if (n < 0 || (size_t)n >= cap - used) return;
    used += (size_t)n;
    l = end;
  }
}

static bool pick_waiting(int l, const void *ctx) { (void)ctx; return warp.waiting[l]; }
static bool pick_gone(int l, const void *ctx) { (void)ctx; return !warp.waiting[l]; }
static bool pick_same(int l, const void *ctx) {
  int ref = *(const int *)ctx;
  return warp.exec[l] == warp.exec[ref] && strcmp(warp.opcode[l], warp.opcode[ref]) == 0;
}

static int first_waiting(void) {
  for (int l = 0; l < SIM_LANES; l++)
    if (warp.waiting[l]) return l;
  return 0;
}

/* All lanes have either arrived or exited (warp.mu held): fail when some
 * exited or they disagree, else run the collective. */
static void complete_locked(void) {
  char a[128], b[128];
  int ref = first_waiting();
  if (warp.exited > 0) {
    lane_list(a, sizeof a, pick_waiting, NULL);
    lane_list(b, sizeof b, pick_gone, NULL);
    fail_locked("divergence: lanes %s wait at '%s' but lanes %s have exited", a,
                warp.opcode[ref], b);
    return;
  }
  for (int l = 0; l < SIM_LANES; l++) {
    if (pick_same(l, &ref)) continue;
    lane_list(a, sizeof a, pick_same, &ref);
    lane_list(b, sizeof b, pick_same, &l);
    fail_locked("divergence: lanes %s are at '%s' while lanes %s are at '%s'", a,
                warp.opcode[ref], b, warp.opcode[l]);
    return;
  }
  warp.exec[ref](warp.opcode[ref], warp.arg);
}

bool tcmma__sim_collective(const char *opcode, sim_exec_fn exec, void *lane_arg) {
  int lane = tls_lane;
  if (lane < 0) return false;
  pthread_mutex_lock(&warp.mu);
  if (warp.failed) {
    pthread_mutex_unlock(&warp.mu);
    stop_lane();
  }
  warp.waiting[lane] = true;
  warp.opcode[lane] = opcode ? opcode : "(null)";
  warp.exec[lane] = exec;
  warp.arg[lane] = lane_arg;
  warp.arrived++;
  unsigned long gen = warp.generation;
  if (warp.arrived + warp.exited == SIM_LANES) {
    complete_locked();
    memset(warp.waiting, 0, sizeof warp.waiting);
    warp.arrived = 0;
    warp.generation++;
    pthread_cond_broadcast(&warp.cv);
  } else {
    while (warp.generation == gen && !warp.failed) pthread_cond_wait(&warp.cv, &warp.mu);
  }
  bool failed = warp.failed;
  pthread_mutex_unlock(&warp.mu);
  if (failed) stop_lane();
  return true;
}

static void *lane_main(void *p) {
  const lane_start *s = p;
  jmp_buf stop;
  tls_lane = s->lane;
  tls_stop = &stop;
  if (setjmp(stop) == 0) s->entry(s->arg);
  unsigned pending = tcmma__sim_cp_async_lane_end();
  pthread_mutex_lock(&warp.mu);
  if (pending && !warp.failed)
    fail_locked("lane %d ended with %u cp.async copies never waited for "
                "(expected cp.async.wait_all before the data is used)",
                s->lane, pending);
  warp.exited++;
  if (warp.arrived > 0 && warp.arrived + warp.exited == SIM_LANES) complete_locked();
  pthread_mutex_unlock(&warp.mu);
  tls_lane = -1;
  tls_stop = NULL;
  return NULL;
}

tcmma_status tcmma_sim_launch(void (*entry)(void *arg), void *arg, tcmma_error *err) {
  if (!entry) return tcmma_fail(err, TCMMA_INVALID, "tcmma_sim_launch: entry is NULL");
  if (tls_lane >= 0) /* the lanes of this launch would wait for us forever */
    return tcmma_fail(err, TCMMA_INVALID, "tcmma_sim_launch called from lane %d of a running launch",
                      tls_lane);
  pthread_mutex_lock(&launch_mu);
  pthread_mutex_lock(&warp.mu);
  warp.arrived = warp.exited = 0;
  warp.failed = false;
  warp.message[0] = '\0';
  memset(warp.waiting, 0, sizeof warp.waiting);
  pthread_mutex_unlock(&warp.mu);

  lane_start starts[SIM_LANES];
  pthread_t threads[SIM_LANES];
  int started = 0;
  tcmma_status st = TCMMA_OK;
  for (; started < SIM_LANES; started++) {
    starts[started] = (lane_start){entry, arg, started};
    if (pthread_create(&threads[started], NULL, lane_main, &starts[started]) != 0) {
      st = TCMMA_NO_MEMORY;
      break;
    }
  }
  if (st != TCMMA_OK) {
    /* Lanes already running stop at their next collective. */
    pthread_mutex_lock(&warp.mu);
    fail_locked("could not start lane %d of %d (pthread_create failed)", started, SIM_LANES);
    pthread_mutex_unlock(&warp.mu);
  }
  for (int l = 0; l < started; l++) pthread_join(threads[l], NULL);
  pthread_mutex_lock(&warp.mu);
  if (warp.failed) {
    if (st == TCMMA_OK) st = TCMMA_INVALID;
    tcmma_fail(err, st, "%s", warp.message);
  }
  pthread_mutex_unlock(&warp.mu);
  pthread_mutex_unlock(&launch_mu);
  return st;
}

static void exec_syncwarp(const char *opcode, void *const lane_args[SIM_LANES]) {
  (void)opcode, (void)lane_args;
}

void tcmma_sim_syncwarp(void) { tcmma__sim_collective("syncwarp", exec_syncwarp, NULL); }
