/* Tensor Memory (docs/sim.md "tcgen05"): per block 128 lanes x 512 columns
 * of 32-bit words, the allocation bookkeeping of tcgen05.alloc/dealloc/
 * relinquish_alloc_permit, and who may read each word yet. Every word
 * remembers the ticket of its last writer: a thread's open group of
 * asynchronous operations (tcgen05.mma and tcgen05.cp since its last
 * tcgen05.commit, closed by the commit with the mbarrier phase that completes
 * it) or a warp's tcgen05.st not yet waited for. A read is checked against
 * the writer's ticket (tcmma__sim_tmem_readable). Also the tcgen05.ld
 * results each thread holds until its tcgen05.wait::ld. The lock is held
 * throughout, except in tcmma__sim_tmem_lane_end. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "mma/sim/internal.h"

#define sh tcmma__sim_state

enum { ALLOCS = TMEM_COLS / 32, TICKETS = 4096 };

typedef enum { T_ASYNC, T_ST } ticket_kind;

typedef struct {
  unsigned ticket;     /* its number; 0: a free slot */
  ticket_kind kind;
  int thread, warp;    /* the issuing thread (async) or warp (st) */
  bool closed;         /* async: committed; st: waited for */
  unsigned long closed_seq; /* the event count when it closed */
  const unsigned long long *bar; /* async: the commit's barrier */
  unsigned long complete_at;     /* and the phases completed when it arrives */
  unsigned long epoch; /* st: the block epoch of its wait::st */
} group;

typedef struct {
  uint32_t *regs;   /* the thread's destination registers */
  uint32_t *values; /* what lands there at wait::ld */
  unsigned n;
} held_ld;

static uint32_t cells[TMEM_LANES][TMEM_COLS];
static unsigned tags[TMEM_LANES][TMEM_COLS];
static group groups[TICKETS];
static unsigned next_ticket = 1;
static unsigned open_async[TCMMA_SIM_BLOCK_THREADS_MAX], open_st[SIM_WARPS];
/* Events in order (closing a ticket, a fence): the last tcgen05.fence::
 * after_thread_sync of each thread, ::before_thread_sync of each warp. */
static unsigned long events, fence_after[TCMMA_SIM_BLOCK_THREADS_MAX], fence_before[SIM_WARPS];
static struct {
  unsigned col, ncols;
  int warp;
} allocs[ALLOCS];
static unsigned n_allocs;
static bool relinquished, touched;
static struct {
  held_ld *h;
  unsigned n, cap;
} held[TCMMA_SIM_BLOCK_THREADS_MAX];

void tcmma__sim_tmem_reset(void) {
  if (touched) {
    memset(cells, 0xff, sizeof cells); /* uninitialized: NaN as f32 */
    memset(tags, 0, sizeof tags);
    memset(groups, 0, sizeof groups);
    memset(open_async, 0, sizeof open_async);
    memset(open_st, 0, sizeof open_st);
    memset(fence_after, 0, sizeof fence_after);
    memset(fence_before, 0, sizeof fence_before);
  }
  touched = false;
  n_allocs = 0;
  relinquished = false;
}

void tcmma__sim_tmem_touch(void) { touched = true; }

void tcmma__sim_tmem_block_end(unsigned block) {
  if (!n_allocs) return;
  unsigned cols = 0;
  for (unsigned i = 0; i < n_allocs; i++) cols += allocs[i].ncols;
  tcmma__sim_fail("block %u ended with %u columns of Tensor Memory still allocated (%u "
                  "allocation(s); the first: columns %u..%u by warp %d): every tcgen05.alloc "
                  "needs its tcgen05.dealloc before the kernel exits", block, cols, n_allocs,
                  allocs[0].col, allocs[0].col + allocs[0].ncols - 1, allocs[0].warp);
}

unsigned tcmma__sim_tmem_lane_end(void) {
  int tid = tcmma__sim_current_thread();
  if (tid < 0) return 0;
  tcmma__sim_lock();
  unsigned n = held[tid].n;
  for (unsigned i = 0; i < n; i++) free(held[tid].h[i].values);
  free(held[tid].h);
  memset(&held[tid], 0, sizeof held[tid]);
  tcmma__sim_unlock();
  return n;
}

/* ---- allocation ---- */

static bool is_free(unsigned col, unsigned ncols) {
  for (unsigned i = 0; i < n_allocs; i++)
    if (col < allocs[i].col + allocs[i].ncols && allocs[i].col < col + ncols) return false;
  return true;
}

bool tcmma__sim_tmem_alloc(const char *what, unsigned ncols, int warp, uint32_t *taddr) {
  touched = true;
  if (ncols < 32 || ncols > TMEM_COLS || (ncols & (ncols - 1))) {
    tcmma__sim_fail("%s by warp %d: %u columns (expected a power of two from 32 to %d)", what,
                    warp, ncols, TMEM_COLS);
    return false;
  }
  if (relinquished) {
    tcmma__sim_fail("%s by warp %d after the block's tcgen05.relinquish_alloc_permit (the ISA "
                    "forbids any alloc after it)", what, warp);
    return false;
  }
  for (unsigned col = 0; col + ncols <= TMEM_COLS; col += ncols)
    if (is_free(col, ncols)) {
      allocs[n_allocs].col = col, allocs[n_allocs].ncols = ncols, allocs[n_allocs].warp = warp;
      n_allocs++;
      *taddr = col; /* lane 0 */
      return true;
    }
  tcmma__sim_fail("%s of %u columns by warp %d: no %u free columns (%u allocation(s) hold the "
                  "rest; the hardware would block until a dealloc, which the model does not "
                  "wait for)", what, ncols, warp, ncols, n_allocs);
  return false;
}

bool tcmma__sim_tmem_dealloc(const char *what, uint32_t taddr, unsigned ncols, int warp) {
  touched = true;
  unsigned col = taddr & 0xffffu;
  for (unsigned i = 0; i < n_allocs; i++) {
    if (allocs[i].col != col || (taddr >> 16)) continue;
    if (allocs[i].ncols != ncols) {
      tcmma__sim_fail("%s by warp %d of %u columns at 0x%08x: that allocation holds %u columns "
                      "(expected the size it was allocated with)", what, warp, ncols, taddr,
                      allocs[i].ncols);
      return false;
    }
    allocs[i] = allocs[--n_allocs];
    return true;
  }
  tcmma__sim_fail("%s by warp %d of %u columns at 0x%08x: no allocation starts there (freed "
                  "twice, or never allocated)", what, warp, ncols, taddr);
  return false;
}

void tcmma__sim_tmem_relinquish(void) { relinquished = true; }

bool tcmma__sim_tmem_range(const char *what, int thread, unsigned lane, unsigned lanes,
                           unsigned col, unsigned cols) {
  touched = true;
  if (lane + lanes <= TMEM_LANES && col + cols <= TMEM_COLS)
    for (unsigned i = 0; i < n_allocs; i++)
      if (col >= allocs[i].col && col + cols <= allocs[i].col + allocs[i].ncols) return true;
  tcmma__sim_fail("%s by thread %d: Tensor Memory lanes %u..%u, columns %u..%u are outside "
                  "every allocation (%u allocation(s) in the block; %d lanes x %d columns in "
                  "all)", what, thread, lane, lane + lanes - 1, col, col + cols - 1, n_allocs,
                  TMEM_LANES, TMEM_COLS);
  return false;
}

uint32_t *tcmma__sim_tmem_word(unsigned lane, unsigned col) { return &cells[lane][col]; }

/* ---- tickets ---- */

static unsigned new_ticket(ticket_kind kind, int thread, int warp) {
  unsigned t = next_ticket++;
  if (next_ticket == 0) next_ticket = 1;
  groups[t % TICKETS] = (group){t, kind, thread, warp, false, 0, NULL, 0, 0};
  return t;
}

static group *find(unsigned ticket) {
  group *g = &groups[ticket % TICKETS];
  return ticket && g->ticket == ticket ? g : NULL; /* an evicted ticket is long complete */
}

unsigned tcmma__sim_tmem_async_ticket(int thread) {
  if (!find(open_async[thread])) open_async[thread] = new_ticket(T_ASYNC, thread, thread / SIM_LANES);
  return open_async[thread];
}

void tcmma__sim_tmem_commit(int thread, const unsigned long long *bar, unsigned long complete_at) {
  group *g = find(open_async[thread]);
  if (g) g->closed = true, g->closed_seq = ++events, g->bar = bar, g->complete_at = complete_at;
  open_async[thread] = 0;
}

unsigned tcmma__sim_tmem_st_ticket(int warp) {
  if (!find(open_st[warp])) open_st[warp] = new_ticket(T_ST, warp * SIM_LANES, warp);
  return open_st[warp];
}

void tcmma__sim_tmem_st_done(int warp) {
  group *g = find(open_st[warp]);
  if (g) g->closed = true, g->closed_seq = ++events, g->epoch = tcmma__sim_block_epoch();
  open_st[warp] = 0;
}

void tcmma__sim_tmem_fence(int thread, bool after) {
  touched = true;
  if (after) fence_after[thread] = ++events;
  else fence_before[thread / SIM_LANES] = ++events;
}

void tcmma__sim_tmem_tag(unsigned lane, unsigned col, unsigned ticket) { tags[lane][col] = ticket; }

/* Why an asynchronous write g (an mma or cp) is not yet readable by thread
 * (NULL: it is). Another mma or cp reads it in issue order (the tcgen05
 * pipeline; PTX ISA "Pipelined instructions"); a tcgen05.ld needs the
 * commit's phase completed and observed, then a fence::after_thread_sync. */
static const char *async_pending(const group *g, int thread, bool pipelined) {
  if (pipelined) return NULL;
  if (!g->closed) return "no tcgen05.commit covers it yet";
  int seen = tcmma__sim_mbar_observed(g->bar, g->complete_at, thread);
  if (seen < 0) return "the mbarrier phase its tcgen05.commit arrives in has not completed";
  if (!seen)
    return "its commit's mbarrier phase completed, but this thread has not observed it (an "
           "mbarrier wait on that phase, or a __syncthreads() after another thread's wait)";
  return fence_after[thread] > g->closed_seq
             ? NULL
             : "this thread executed no tcgen05.fence::after_thread_sync since the commit (the "
               "ISA's order: mbarrier wait, tcgen05.fence::after_thread_sync, tcgen05.ld)";
}

/* Why a tcgen05.st g is not yet readable by thread: its warp reads it after
 * wait::st; another thread after the warp's fence::before_thread_sync, a
 * __syncthreads() and its own fence::after_thread_sync. */
static const char *st_pending(const group *g, int thread) {
  if (!g->closed) return "its warp has not executed tcgen05.wait::st since";
  if (g->warp == thread / SIM_LANES) return NULL; /* the storing warp, after its wait::st */
  if (tcmma__sim_block_epoch() <= g->epoch) return "no __syncthreads() since its warp's tcgen05.wait::st";
  if (fence_before[g->warp] < g->closed_seq)
    return "its warp executed no tcgen05.fence::before_thread_sync after its tcgen05.wait::st";
  return fence_after[thread] > g->closed_seq
             ? NULL
             : "this thread executed no tcgen05.fence::after_thread_sync since";
}

bool tcmma__sim_tmem_readable(const char *what, int thread, bool pipelined, unsigned lane,
                              unsigned col) {
  const group *g = find(tags[lane][col]);
  if (!g) return true;
  const char *why = g->kind == T_ASYNC ? async_pending(g, thread, pipelined)
                                        : st_pending(g, thread);
  if (!why) return true;
  tcmma__sim_fail("%s by thread %d reads Tensor Memory lane %u, column %u, written by %s %d's "
                  "%s: %s", what, thread, lane, col, g->kind == T_ASYNC ? "thread" : "warp",
                  g->kind == T_ASYNC ? g->thread : g->warp,
                  g->kind == T_ASYNC ? "tcgen05.mma/cp" : "tcgen05.st", why);
  return false;
}

/* ---- tcgen05.ld results held until wait::ld ---- */

bool tcmma__sim_tmem_hold(int thread, uint32_t *regs, const uint32_t *values, unsigned n) {
  touched = true;
  if (held[thread].n == held[thread].cap) {
    unsigned cap = held[thread].cap ? 2 * held[thread].cap : 8;
    held_ld *grown = realloc(held[thread].h, cap * sizeof *grown);
    if (!grown) goto oom;
    held[thread].h = grown, held[thread].cap = cap;
  }
  uint32_t *copy = malloc(n * sizeof *copy);
  if (!copy) goto oom;
  memcpy(copy, values, n * sizeof *copy);
  held[thread].h[held[thread].n++] = (held_ld){regs, copy, n};
  for (unsigned i = 0; i < n; i++) regs[i] = TCMMA_SIM_TCGEN05_POISON;
  return true;
oom:
  tcmma__sim_fail("tcgen05.ld: out of memory holding thread %d's results", thread);
  return false;
}

void tcmma__sim_tmem_land(int thread) {
  for (unsigned i = 0; i < held[thread].n; i++) {
    memcpy(held[thread].h[i].regs, held[thread].h[i].values, held[thread].h[i].n * 4u);
    free(held[thread].h[i].values);
  }
  held[thread].n = 0;
}
