/* The block scheduler of the host simulator (docs/design.md §11): one POSIX
 * thread per simulated thread of a block, reused for every block of the
 * grid, which run one after another. Warp collectives are a rendezvous of
 * the warp's 32 lanes: the last lane to arrive checks that all reached the
 * same collective, runs its model once for the warp and releases the
 * others. __syncthreads() is the same for every thread of the block. One
 * lock guards the whole block, so a state where every live thread waits and
 * nothing can complete is seen at once and reported as a deadlock instead
 * of hanging. Threads (not coroutines) keep ASan, UBSan, TSan and valgrind
 * exact without stack-switching annotations. A failure stops every thread
 * by longjmp back to its thread body, so a broken run ends. */
#include <limits.h>
#include <pthread.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>
#include "mma/sim/internal.h"

/* Each thread's stack: the host kernels keep a few kilobytes of locals;
 * a fixed size keeps a 1024-thread block's address space modest. */
enum { THREAD_STACK = 1 << 20 };

/* Bytes kept after a block's dynamic shared memory (and its rounding up to
 * 128 bytes), owned by the simulator: ldmatrix, wmma and cp.async that reach
 * into them, and plain writes found there when the block ends, are reported
 * instead of landing in other host memory (a GPU faults on them). */
enum { SHARED_GUARD = 4096 };

/* The shared window reserved around a block's dynamic shared memory
 * (inaccessible but for the memory and its guard): nothing else of the
 * host lives there, so an ldmatrix, wmma or cp.async address in it is a
 * shared address and checked against the exact extent, however far past
 * the end (up to 70 times any device's shared memory) or before the start. */
enum { WINDOW_BEFORE = 64 << 10, WINDOW_AFTER = 16 << 20 };

/* The most dynamic shared memory a block may ask for: the largest device's,
 * from the table. */
static size_t shared_limit(void) {
  static const size_t rows[] = {
#define TCMMA_SHARED_MEMORY(cc, bytes) bytes,
#include "tables/shared_memory.def"
#undef TCMMA_SHARED_MEMORY
  };
  size_t max = 0;
  for (size_t i = 0; i < sizeof rows / sizeof rows[0]; i++) max = rows[i] > max ? rows[i] : max;
  return max;
}

typedef struct {
  pthread_cond_t cv;
  unsigned size;             /* lanes in this warp (the last may be partial) */
  unsigned arrived, exited;  /* at the current collective; gone from this block */
  unsigned long generation;  /* completed collectives */
  bool waiting[SIM_LANES];
  const char *opcode[SIM_LANES];
  sim_exec_fn exec[SIM_LANES];
  void *arg[SIM_LANES];
} sim_warp;

typedef struct {
  void (*entry)(void *);
  void *arg;
  unsigned tid;       /* linear index in the block */
  unsigned long seen; /* the last block generation this thread ran */
} sim_thread;

static struct {
  pthread_cond_t bar_cv, block_cv;
  /* the launch */
  unsigned dim_grid[3], dim_block[3], nthreads, nwarps;
  const unsigned *list;
  size_t nlist, pos;       /* blocks to run (list NULL: all, in order) and the next */
  bool done;
  /* the block */
  unsigned long generation; /* blocks started */
  unsigned block_idx[3];
  sim_warp warp[SIM_WARPS];
  unsigned exited, blocked, finished;
  unsigned bar_arrived;
  bool bar_waiting[TCMMA_SIM_BLOCK_THREADS_MAX];
  /* threads blocked in tcmma__sim_block_wait_locked: what each waits for */
  pthread_cond_t async_cv;
  const char *async_wait[TCMMA_SIM_BLOCK_THREADS_MAX];
} blk = {PTHREAD_COND_INITIALIZER, PTHREAD_COND_INITIALIZER, .async_cv = PTHREAD_COND_INITIALIZER};

/* The state below the scheduler (lane.c): lock, failure, shared memory
 * (allocated: rounded, plus SHARED_GUARD), epochs. */
#define sh tcmma__sim_state

static pthread_mutex_t launch_mu = PTHREAD_MUTEX_INITIALIZER;
static _Thread_local const sim_thread *tls_thread;

static unsigned axis_of(unsigned tid, unsigned axis) {
  unsigned x = blk.dim_block[0], y = blk.dim_block[1];
  return axis == 0 ? tid % x : axis == 1 ? tid / x % y : tid / (x * y);
}

unsigned tcmma_sim_thread_idx(unsigned axis) {
  return tls_thread && axis < 3 ? axis_of(tls_thread->tid, axis) : 0u;
}
unsigned tcmma_sim_lane(void) { return tcmma_sim_thread_idx(0); }
unsigned tcmma_sim_block_idx(unsigned axis) {
  return tls_thread && axis < 3 ? blk.block_idx[axis] : 0u;
}
unsigned tcmma_sim_block(void) { return tcmma_sim_block_idx(0); }
unsigned tcmma_sim_block_dim(unsigned axis) {
  return tls_thread && axis < 3 ? blk.dim_block[axis] : 0u;
}
unsigned tcmma_sim_grid_dim(unsigned axis) {
  return tls_thread && axis < 3 ? blk.dim_grid[axis] : 0u;
}
void *tcmma_sim_dynamic_shared(void) { return tls_thread ? sh.dyn : NULL; }

/* ---- failure ---- */

/* A failure wakes every waiter of the block (lock held). */
static void wake_all_locked(void) {
  for (unsigned w = 0; w < SIM_WARPS; w++) pthread_cond_broadcast(&blk.warp[w].cv);
  pthread_cond_broadcast(&blk.bar_cv);
  pthread_cond_broadcast(&blk.block_cv);
  pthread_cond_broadcast(&blk.async_cv);
}

static void fail_locked(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
static void fail_locked(const char *fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  tcmma__sim_vfail_locked(fmt, ap);
  va_end(ap);
}

#define stop_thread tcmma__sim_stop_thread

/* ---- lists for messages ---- */

typedef bool (*pick_fn)(unsigned i, const void *ctx);

/* "0-3,8" style list of the indices below n where pick holds. */
static void index_list(char *buf, size_t cap, unsigned n, pick_fn pick, const void *ctx) {
  size_t used = 0;
  buf[0] = '\0';
  for (unsigned l = 0; l < n; l++) {
    if (!pick(l, ctx)) continue;
    unsigned end = l;
    while (end + 1 < n && pick(end + 1, ctx)) end++;
    int k = end > l ? snprintf(buf + used, cap - used, "%s%u-%u", used ? "," : "", l, end)
                    : snprintf(buf + used, cap - used, "%s%u", used ? "," : "", l);
    if (k < 0 || (size_t)k >= cap - used) return;
    used += (size_t)k;
    l = end;
  }
}

static bool pick_waiting(unsigned l, const void *w) { return ((const sim_warp *)w)->waiting[l]; }
static bool pick_gone(unsigned l, const void *w) { return !((const sim_warp *)w)->waiting[l]; }
typedef struct { const sim_warp *w; unsigned ref; } same_ctx;
static bool pick_same(unsigned l, const void *ctx) {
  const same_ctx *s = ctx;
  return s->w->waiting[l] && s->w->exec[l] == s->w->exec[s->ref] &&
         strcmp(s->w->opcode[l], s->w->opcode[s->ref]) == 0;
}
static bool pick_bar(unsigned t, const void *ctx) { (void)ctx; return blk.bar_waiting[t]; }
static bool pick_async(unsigned t, const void *ctx) { (void)ctx; return blk.async_wait[t]; }
static bool pick_not_bar(unsigned t, const void *ctx) {
  (void)ctx;
  const sim_warp *w = &blk.warp[t / SIM_LANES];
  return !blk.bar_waiting[t] && !w->waiting[t % SIM_LANES] && !blk.async_wait[t];
}

/* " (warp 2)" or " (threads 64-95)": where a warp's lanes sit in a block of
 * more than one warp. */
static void warp_where(char *buf, size_t cap, unsigned w) {
  if (blk.nwarps > 1) snprintf(buf, cap, " of warp %u", w);
  else buf[0] = '\0';
}

/* ---- warp collectives ---- */

static void exec_syncwarp(const char *opcode, void *const lane_args[SIM_LANES]) {
  (void)opcode, (void)lane_args;
  sh.warp_epoch[tcmma__sim_current_warp()]++;
}

/* Every lane of warp w has arrived or exited (sh.mu held): fail when some
 * exited or they disagree, else run the collective; then release them.
 * by_arrival: the completing thread is one of the arrived (not blocked). */
static void complete_warp_locked(sim_warp *w, unsigned wi, bool by_arrival) {
  char a[160], b[160], at[32];
  unsigned ref = 0;
  while (ref < w->size && !w->waiting[ref]) ref++;
  warp_where(at, sizeof at, wi);
  if (w->exited > 0) {
    index_list(a, sizeof a, w->size, pick_waiting, w);
    index_list(b, sizeof b, w->size, pick_gone, w);
    fail_locked("divergence: lanes %s%s wait at '%s' but lanes %s have exited", a, at,
                w->opcode[ref], b);
  } else {
    bool same = true;
    for (unsigned l = 0; l < w->size && same; l++) {
      same_ctx sr = {w, ref}, sl = {w, l};
      if (pick_same(l, &sr)) continue;
      same = false;
      index_list(a, sizeof a, w->size, pick_same, &sr);
      index_list(b, sizeof b, w->size, pick_same, &sl);
      fail_locked("divergence: lanes %s%s are at '%s' while lanes %s are at '%s'", a, at,
                  w->opcode[ref], b, w->opcode[l]);
    }
    if (same && w->size < SIM_LANES && w->exec[ref] != exec_syncwarp)
      fail_locked("'%s' in warp %u of %u lanes: warp collectives need all %d lanes (make the "
                  "block's threads a multiple of %d)", w->opcode[ref], wi, w->size, SIM_LANES,
                  SIM_LANES);
    else if (same)
      w->exec[ref](w->opcode[ref], w->arg);
  }
  /* the waiters are released (a completing lane never counted as blocked) */
  blk.blocked -= w->arrived - (by_arrival ? 1 : 0);
  memset(w->waiting, 0, sizeof w->waiting);
  w->arrived = 0;
  w->generation++;
  pthread_cond_broadcast(&w->cv);
}

/* Every live thread waits and nothing can complete (sh.mu held): the
 * block is stuck; name who waits where. */
static void check_deadlock_locked(void) {
  if (sh.failed || blk.blocked == 0 || blk.blocked + blk.exited != blk.nthreads) return;
  char msg[TCMMA_ERROR_MAX], list[160];
  size_t used = (size_t)snprintf(msg, sizeof msg, "deadlock in block %u:", blk.block_idx[0]);
  if (blk.bar_arrived) {
    index_list(list, sizeof list, blk.nthreads, pick_bar, NULL);
    used += (size_t)snprintf(msg + used, sizeof msg - used, " threads %s wait at __syncthreads;",
                             list);
  }
  for (unsigned wi = 0; wi < blk.nwarps && used < sizeof msg; wi++) {
    sim_warp *w = &blk.warp[wi];
    if (!w->arrived) continue;
    unsigned ref = 0;
    while (!w->waiting[ref]) ref++;
    index_list(list, sizeof list, w->size, pick_waiting, w);
    used += (size_t)snprintf(msg + used, sizeof msg - used, " lanes %s of warp %u wait at '%s';",
                             list, wi, w->opcode[ref]);
  }
  for (unsigned t = 0; t < blk.nthreads && used < sizeof msg; t++)
    if (blk.async_wait[t]) { /* named by the first waiter's barrier */
      index_list(list, sizeof list, blk.nthreads, pick_async, NULL);
      used += (size_t)snprintf(msg + used, sizeof msg - used, " threads %s wait on %s;", list,
                               blk.async_wait[t]);
      break;
    }
  if (blk.exited && used < sizeof msg) {
    index_list(list, sizeof list, blk.nthreads, pick_not_bar, NULL);
    used += (size_t)snprintf(msg + used, sizeof msg - used, " threads %s have exited;", list);
  }
  fail_locked("%s a barrier or collective not reached by every thread it waits for", msg);
}

bool tcmma__sim_collective(const char *opcode, sim_exec_fn exec, void *lane_arg) {
  const sim_thread *t = tls_thread;
  if (!t) return false;
  unsigned wi = t->tid / SIM_LANES, lane = t->tid % SIM_LANES;
  sim_warp *w = &blk.warp[wi];
  pthread_mutex_lock(&sh.mu);
  if (sh.failed) {
    pthread_mutex_unlock(&sh.mu);
    stop_thread();
  }
  w->waiting[lane] = true;
  w->opcode[lane] = opcode ? opcode : "(null)";
  w->exec[lane] = exec;
  w->arg[lane] = lane_arg;
  w->arrived++;
  unsigned long gen = w->generation;
  if (w->arrived + w->exited == w->size) {
    complete_warp_locked(w, wi, true);
  } else {
    blk.blocked++;
    check_deadlock_locked();
    while (w->generation == gen && !sh.failed) pthread_cond_wait(&w->cv, &sh.mu);
  }
  bool failed = sh.failed;
  pthread_mutex_unlock(&sh.mu);
  if (failed) stop_thread();
  return true;
}

void tcmma_sim_syncwarp(void) { tcmma__sim_collective("syncwarp", exec_syncwarp, NULL); }

/* ---- waits on asynchronous state (mbarrier phases) ---- */

static void block_wait_locked(bool (*ready)(void *ctx), void *ctx, const char *what) {
  const sim_thread *t = tls_thread;
  if (!t) return;
  while (!sh.failed && !ready(ctx)) {
    blk.async_wait[t->tid] = what;
    blk.blocked++;
    check_deadlock_locked();
    /* the waker counts this thread unblocked and clears its entry */
    while (blk.async_wait[t->tid] && !sh.failed) pthread_cond_wait(&blk.async_cv, &sh.mu);
  }
}

static void block_wake_locked(void) {
  for (unsigned t = 0; t < blk.nthreads; t++)
    if (blk.async_wait[t]) blk.async_wait[t] = NULL, blk.blocked--;
  pthread_cond_broadcast(&blk.async_cv);
}

/* ---- __syncthreads ---- */

/* Every thread of the block has arrived or exited (sh.mu held);
 * by_arrival as for complete_warp_locked. */
static void complete_barrier_locked(bool by_arrival) {
  if (blk.exited > 0) {
    char a[160], b[160];
    index_list(a, sizeof a, blk.nthreads, pick_bar, NULL);
    index_list(b, sizeof b, blk.nthreads, pick_not_bar, NULL);
    fail_locked("__syncthreads in block %u not reached by every thread: threads %s wait at it "
                "but threads %s have exited", blk.block_idx[0], a, b);
  }
  blk.blocked -= blk.bar_arrived - (by_arrival ? 1 : 0);
  memset(blk.bar_waiting, 0, sizeof blk.bar_waiting[0] * blk.nthreads);
  blk.bar_arrived = 0;
  sh.bar_generation++;
  pthread_cond_broadcast(&blk.bar_cv);
}

void tcmma_sim_syncthreads(void) {
  const sim_thread *t = tls_thread;
  if (!t) return;
  pthread_mutex_lock(&sh.mu);
  if (sh.failed) {
    pthread_mutex_unlock(&sh.mu);
    stop_thread();
  }
  blk.bar_waiting[t->tid] = true;
  blk.bar_arrived++;
  unsigned long gen = sh.bar_generation;
  if (blk.bar_arrived + blk.exited == blk.nthreads) {
    complete_barrier_locked(true);
  } else {
    blk.blocked++;
    check_deadlock_locked();
    while (sh.bar_generation == gen && !sh.failed) pthread_cond_wait(&blk.bar_cv, &sh.mu);
  }
  bool failed = sh.failed;
  pthread_mutex_unlock(&sh.mu);
  if (failed) stop_thread();
}

/* ---- blocks and threads ---- */

/* Starts the next block of the launch, or marks the launch done (sh.mu
 * held). */
static void next_block_locked(void) {
  size_t total = (size_t)blk.dim_grid[0] * blk.dim_grid[1] * blk.dim_grid[2];
  size_t count = blk.list ? blk.nlist : total;
  if (sh.failed || blk.pos >= count) {
    blk.done = true;
    pthread_cond_broadcast(&blk.block_cv);
    return;
  }
  unsigned linear = blk.list ? blk.list[blk.pos] : (unsigned)blk.pos;
  blk.pos++;
  blk.block_idx[0] = linear % blk.dim_grid[0];
  blk.block_idx[1] = linear / blk.dim_grid[0] % blk.dim_grid[1];
  blk.block_idx[2] = linear / (blk.dim_grid[0] * blk.dim_grid[1]);
  for (unsigned wi = 0; wi < blk.nwarps; wi++) {
    sim_warp *w = &blk.warp[wi];
    unsigned first = wi * SIM_LANES;
    w->size = blk.nthreads - first < SIM_LANES ? blk.nthreads - first : SIM_LANES;
    w->arrived = w->exited = 0;
    sh.warp_epoch[wi] = 0;
    memset(w->waiting, 0, sizeof w->waiting);
  }
  blk.exited = blk.blocked = blk.finished = blk.bar_arrived = 0;
  sh.bar_generation = 0;
  memset(blk.bar_waiting, 0, sizeof blk.bar_waiting);
  memset(blk.async_wait, 0, sizeof blk.async_wait);
  tcmma__sim_tma_reset();
  if (sh.dyn) memset(sh.dyn, 0xff, sh.dyn_alloc); /* uninitialized: NaN in every format */
  tcmma__sim_track_reset();
  tcmma__sim_wgmma_reset();
  tcmma__sim_tmem_reset();
  blk.generation++;
  pthread_cond_broadcast(&blk.block_cv);
}

/* The calling thread has left the block (sh.mu held): collectives and the
 * barrier it no longer joins may complete (and fail), or the rest may be
 * stuck. */
static void thread_exit_locked(const sim_thread *t) {
  sim_warp *w = &blk.warp[t->tid / SIM_LANES];
  w->exited++;
  blk.exited++;
  if (w->arrived > 0 && w->arrived + w->exited == w->size)
    complete_warp_locked(w, t->tid / SIM_LANES, false);
  if (blk.bar_arrived > 0 && blk.bar_arrived + blk.exited == blk.nthreads)
    complete_barrier_locked(false);
  check_deadlock_locked();
}

/* The block has ended (sh.mu held): fail when a thread wrote into the
 * bytes after its dynamic shared memory (still 0xff unless written). */
static void check_guard_locked(void) {
  for (size_t i = sh.dyn_bytes; sh.dyn && i < sh.dyn_alloc; i++)
    if (sh.dyn[i] != 0xff) {
      fail_locked("block %u wrote past the end of its %zu bytes of dynamic shared memory (byte "
                  "%zu)", blk.block_idx[0], sh.dyn_bytes, i);
      return;
    }
}

static void *thread_main(void *p) {
  sim_thread *t = p;
  tls_thread = t;
  tcmma__sim_tid = (int)t->tid;
  pthread_mutex_lock(&sh.mu);
  for (;;) {
    while (!blk.done && blk.generation == t->seen) pthread_cond_wait(&blk.block_cv, &sh.mu);
    if (blk.done) break;
    t->seen = blk.generation;
    pthread_mutex_unlock(&sh.mu);
    jmp_buf stop;
    tcmma__sim_stop = &stop;
    if (setjmp(stop) == 0) t->entry(t->arg);
    unsigned pending = tcmma__sim_cp_async_lane_end();
    unsigned wg_pending = tcmma__sim_wgmma_lane_end();
    unsigned ld_pending = tcmma__sim_tmem_lane_end();
    pthread_mutex_lock(&sh.mu);
    if (ld_pending && !sh.failed)
      fail_locked("thread %u (lane %u) of block %u ended with %u tcgen05.ld results never "
                  "waited for (expected tcgen05.wait::ld before the registers are used)",
                  t->tid, t->tid % SIM_LANES, blk.block_idx[0], ld_pending);
    if (wg_pending && !sh.failed)
      fail_locked("thread %u (lane %u) of block %u ended with %u wgmma accumulator arrays in "
                  "flight (expected wgmma.wait_group before the accumulators are used)",
                  t->tid, t->tid % SIM_LANES, blk.block_idx[0], wg_pending);
    if (pending && !sh.failed)
      fail_locked("thread %u (lane %u) of block %u ended with %u cp.async copies never waited "
                  "for (expected cp.async.wait_group or wait_all before the data is used)",
                  t->tid, t->tid % SIM_LANES, blk.block_idx[0], pending);
    thread_exit_locked(t);
    if (++blk.finished == blk.nthreads) {
      if (!sh.failed) check_guard_locked();
      if (!sh.failed) tcmma__sim_tma_block_end(blk.block_idx[0]);
      if (!sh.failed) tcmma__sim_tmem_block_end(blk.block_idx[0]);
      next_block_locked();
    }
  }
  pthread_mutex_unlock(&sh.mu);
  tls_thread = NULL;
  tcmma__sim_tid = -1;
  tcmma__sim_stop = NULL;
  return NULL;
}

/* d[0]*d[1]*d[2], or ULLONG_MAX when that exceeds 64 bits (three 32-bit
 * factors can: a wrapped count would pass the limits below). */
static unsigned long long count_of(const unsigned d[3]) {
  unsigned long long n = 1;
  for (int i = 0; i < 3; i++) n = d[i] && n > ULLONG_MAX / d[i] ? ULLONG_MAX : n * d[i];
  return n;
}

/* The registry of global buffers: both arrays when any, each range set and
 * inside the address space. */
static tcmma_status check_buffers(const tcmma_sim_config *cfg, tcmma_error *err) {
  if (cfg->n_buffers && (!cfg->buffers || !cfg->buffer_bytes))
    return tcmma_fail(err, TCMMA_INVALID, "n_buffers %zu without buffers and buffer_bytes",
                      cfg->n_buffers);
  for (size_t i = 0; i < cfg->n_buffers; i++)
    if (!cfg->buffers[i] || cfg->buffer_bytes[i] > UINTPTR_MAX - (uintptr_t)cfg->buffers[i])
      return tcmma_fail(err, TCMMA_INVALID, "registered buffer %zu (%p, %zu bytes): expected a "
                        "non-NULL base and a range inside the address space", i, cfg->buffers[i],
                        cfg->buffer_bytes[i]);
  return TCMMA_OK;
}

static tcmma_status check_config(const tcmma_sim_config *cfg, tcmma_error *err) {
  for (int i = 0; i < 3; i++)
    if (cfg->grid[i] == 0 || cfg->block[i] == 0)
      return tcmma_fail(err, TCMMA_INVALID, "grid %ux%ux%u, block %ux%ux%u: every dimension must "
                        "be at least 1", cfg->grid[0], cfg->grid[1], cfg->grid[2], cfg->block[0],
                        cfg->block[1], cfg->block[2]);
  unsigned long long threads = count_of(cfg->block), blocks = count_of(cfg->grid);
  if (threads > TCMMA_SIM_BLOCK_THREADS_MAX)
    return tcmma_fail(err, TCMMA_INVALID, "block %ux%ux%u has %llu%s threads: at most %d",
                      cfg->block[0], cfg->block[1], cfg->block[2], threads,
                      threads == ULLONG_MAX ? " or more" : "", TCMMA_SIM_BLOCK_THREADS_MAX);
  if (blocks > 0xffffffffull)
    return tcmma_fail(err, TCMMA_INVALID, "grid %ux%ux%u has %llu%s blocks: at most 2^32 - 1",
                      cfg->grid[0], cfg->grid[1], cfg->grid[2], blocks,
                      blocks == ULLONG_MAX ? " or more" : "");
  if (cfg->n_blocks && !cfg->blocks)
    return tcmma_fail(err, TCMMA_INVALID, "n_blocks %zu without a list of blocks", cfg->n_blocks);
  for (size_t i = 0; cfg->blocks && i < cfg->n_blocks; i++)
    if (cfg->blocks[i] >= blocks)
      return tcmma_fail(err, TCMMA_INVALID, "sampled block %u (entry %zu) is outside the grid of "
                        "%llu blocks", cfg->blocks[i], i, blocks);
  if (cfg->dynamic_shared > shared_limit())
    return tcmma_fail(err, TCMMA_INVALID, "dynamic_shared %zu bytes: at most %zu (the largest "
                      "shared memory of any device)", cfg->dynamic_shared, shared_limit());
  return check_buffers(cfg, err);
}

/* Sets the launch up (sh.mu held); TCMMA_NO_MEMORY without shared memory. */
static tcmma_status setup_locked(const tcmma_sim_config *cfg, tcmma_error *err) {
  memcpy(blk.dim_grid, cfg->grid, sizeof blk.dim_grid);
  memcpy(blk.dim_block, cfg->block, sizeof blk.dim_block);
  blk.nthreads = cfg->block[0] * cfg->block[1] * cfg->block[2];
  sh.nthreads = blk.nthreads; /* the models (wgmma.c) read it there */
  blk.nwarps = (blk.nthreads + SIM_LANES - 1) / SIM_LANES;
  blk.list = cfg->blocks;
  blk.nlist = cfg->blocks ? cfg->n_blocks : 0;
  blk.pos = 0;
  blk.done = false;
  sh.failed = false;
  sh.message[0] = '\0';
  blk.generation = 0;
  sh.wake = wake_all_locked;
  sh.async_wait = block_wait_locked, sh.async_wake = block_wake_locked;
  sh.buffers = cfg->buffers;
  sh.buffer_bytes = cfg->buffer_bytes;
  sh.n_buffers = cfg->n_buffers;
  sh.dyn_bytes = cfg->dynamic_shared; /* at most shared_limit() (check_config) */
  sh.dyn = NULL;
  sh.zone_lo = 0, sh.zone_hi = SIM_NULL_ZONE;
  /* rounded up to whole 128-byte units, then the guard */
  sh.dyn_alloc = (sh.dyn_bytes + 127) / 128 * 128 + SHARED_GUARD;
  if (!sh.dyn_bytes) return TCMMA_OK;
  size_t page = (size_t)sysconf(_SC_PAGESIZE);
  size_t rw = (sh.dyn_alloc + page - 1) / page * page;
  void *base = mmap(NULL, WINDOW_BEFORE + WINDOW_AFTER, PROT_NONE,
                    MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
  if (base != MAP_FAILED &&
      mprotect((char *)base + WINDOW_BEFORE, rw, PROT_READ | PROT_WRITE) != 0) {
    munmap(base, WINDOW_BEFORE + WINDOW_AFTER);
    base = MAP_FAILED;
  }
  if (base == MAP_FAILED)
    return tcmma_fail(err, TCMMA_NO_MEMORY, "no memory for %zu bytes of dynamic shared memory",
                      sh.dyn_bytes);
  sh.dyn = (unsigned char *)base + WINDOW_BEFORE;
  sh.zone_lo = (uintptr_t)base, sh.zone_hi = sh.zone_lo + WINDOW_BEFORE + WINDOW_AFTER;
  return TCMMA_OK;
}

/* Unmaps the shared window (sh.mu held). */
static void release_shared_locked(void) {
  if (sh.dyn) munmap(sh.dyn - WINDOW_BEFORE, WINDOW_BEFORE + WINDOW_AFTER);
  sh.dyn = NULL;
  sh.dyn_bytes = 0;
  sh.zone_lo = 0, sh.zone_hi = SIM_NULL_ZONE;
  sh.buffers = NULL, sh.buffer_bytes = NULL, sh.n_buffers = 0;
}

tcmma_status tcmma_sim_launch_grid(void (*entry)(void *arg), void *arg,
                                   const tcmma_sim_config *cfg, tcmma_error *err) {
  if (!entry || !cfg)
    return tcmma_fail(err, TCMMA_INVALID, "tcmma_sim_launch_grid: entry and cfg are required");
  /* The caller's config as this simulator's whole struct: an older, smaller
   * one gets the defaults for the rest. (mma/abi.h's helper is hidden in
   * libtcmma.so, which a program linking libtcmma_sim.a may be using.) */
  tcmma_sim_config taken = tcmma_sim_config_default();
  if (cfg->size == 0 || cfg->size < sizeof cfg->size)
    return tcmma_fail(err, TCMMA_INVALID, "tcmma_sim_config.size is %zu: start the struct with "
                      "tcmma_sim_config_default() or TCMMA_SIM_CONFIG_INIT (this simulator's "
                      "tcmma_sim_config has %zu bytes)", cfg->size, sizeof taken);
  if (cfg->size > sizeof taken)
    return tcmma_fail(err, TCMMA_INVALID, "tcmma_sim_config.size is %zu, larger than this "
                      "simulator's tcmma_sim_config (%zu bytes): the caller was built against "
                      "newer tcmma headers", cfg->size, sizeof taken);
  memcpy(&taken, cfg, cfg->size);
  taken.size = sizeof taken;
  cfg = &taken;
  if (tls_thread) /* the threads of this launch would wait for us forever */
    return tcmma_fail(err, TCMMA_INVALID, "tcmma_sim_launch called from thread %u of a running "
                      "launch", tls_thread->tid);
  tcmma_status st = check_config(cfg, err);
  if (st != TCMMA_OK) return st;
  pthread_mutex_lock(&launch_mu);
  pthread_mutex_lock(&sh.mu);
  st = setup_locked(cfg, err);
  pthread_mutex_unlock(&sh.mu);
  unsigned n = cfg->block[0] * cfg->block[1] * cfg->block[2];
  sim_thread *threads = st == TCMMA_OK ? calloc(n, sizeof *threads) : NULL;
  pthread_t *ids = threads ? calloc(n, sizeof *ids) : NULL;
  if (st == TCMMA_OK && !ids) st = tcmma_fail(err, TCMMA_NO_MEMORY, "no memory for %u threads", n);
  pthread_attr_t attr;
  bool attr_ok = pthread_attr_init(&attr) == 0;
  if (attr_ok) pthread_attr_setstacksize(&attr, THREAD_STACK);
  unsigned started = 0;
  for (; st == TCMMA_OK && started < n; started++) {
    threads[started] = (sim_thread){entry, arg, started, 0};
    if (pthread_create(&ids[started], attr_ok ? &attr : NULL, thread_main, &threads[started]))
      break;
  }
  if (attr_ok) pthread_attr_destroy(&attr);
  pthread_mutex_lock(&sh.mu);
  if (st == TCMMA_OK && started < n) {
    st = TCMMA_NO_MEMORY;
    fail_locked("could not start thread %u of %u (pthread_create failed)", started, n);
    blk.done = true;
    pthread_cond_broadcast(&blk.block_cv);
  } else if (st == TCMMA_OK) {
    next_block_locked();
  }
  pthread_mutex_unlock(&sh.mu);
  for (unsigned i = 0; i < started; i++) pthread_join(ids[i], NULL);
  pthread_mutex_lock(&sh.mu);
  if (sh.failed) {
    if (st == TCMMA_OK) st = TCMMA_INVALID;
    tcmma_fail(err, st, "%s", sh.message);
  }
  release_shared_locked();
  tcmma__sim_track_free();
  tcmma__sim_wgmma_free();
  pthread_mutex_unlock(&sh.mu);
  pthread_mutex_unlock(&launch_mu);
  free(threads);
  free(ids);
  return st;
}

tcmma_status tcmma_sim_launch(void (*entry)(void *arg), void *arg, tcmma_error *err) {
  if (!entry) return tcmma_fail(err, TCMMA_INVALID, "tcmma_sim_launch: entry is NULL");
  tcmma_sim_config cfg = TCMMA_SIM_CONFIG_INIT({1, 1, 1}, {SIM_LANES, 1, 1}, 0, NULL, 0);
  return tcmma_sim_launch_grid(entry, arg, &cfg, err);
}
