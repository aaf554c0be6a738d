/* TMA copies and mbarrier phases (include/tcmma/sim.h, "TMA and
 * mbarrier"): per block, the barriers by address and the copies not yet
 * landed, under the block's lock. A copy lands lazily, once its barrier's
 * arrivals are all in and a thread waits for the phase: a read of its bytes
 * before then (tcmma_sim_ld_shared) is the kernel reading before its wait,
 * or after a wait on the wrong parity, and is reported. A copy reads the
 * map's global memory through tcmma's own tensor-map value (the driver's
 * encoding is opaque): the box at the coordinates, zeros outside the dims,
 * each element placed where tcmma_tensor_map_shared_offset says. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "mma/sim/internal.h"

#define SIM_MBARS 64

/* Phases whose first observation (a wait returning after them) is
 * remembered per barrier, for tcgen05's completion check. */
enum { SEEN_RING = 16 };

typedef struct {
  const unsigned long long *addr;
  unsigned arrivals, pending; /* expected per phase; still to come in this one */
  long long tx;               /* bytes expected and not yet delivered */
  unsigned long phase;        /* phases completed */
  unsigned long observed;     /* the most phases any wait has returned after */
  unsigned long seen_epoch[SEEN_RING]; /* block epoch of phase p's first observation */
} sim_mbar;

typedef struct {
  unsigned char *dst;
  tcmma_tensor_map map;
  sim_mbar *bar;
  int coords[TCMMA_TMAP_RANK_MAX];
  long long bytes;
  int thread;
} sim_tma;

static sim_mbar bars[SIM_MBARS];
static unsigned n_bars;
/* seen[b][t]: the phases completed when thread t's last wait on bars[b] returned */
static unsigned long seen[SIM_MBARS][TCMMA_SIM_BLOCK_THREADS_MAX];
static sim_tma *copies;
static unsigned n_copies, cap_copies;
static _Thread_local char wait_what[192]; /* what a blocked thread waits on */

/* The opcodes of tables/collectives.def (TMA_LOAD: a format of the rank). */
enum {
#define TCMMA_COLLECTIVE(ID, opcode) OP_##ID,
#include "tables/collectives.def"
#undef TCMMA_COLLECTIVE
};
static const char *const opcodes[] = {
#define TCMMA_COLLECTIVE(ID, opcode) opcode,
#include "tables/collectives.def"
#undef TCMMA_COLLECTIVE
};

void tcmma__sim_tma_reset(void) {
  for (unsigned i = 0; i < n_bars; i++) memset(seen[i], 0, sizeof seen[i]);
  n_bars = 0;
  n_copies = 0;
}

void tcmma__sim_tma_block_end(unsigned block) {
  if (n_copies)
    tcmma__sim_fail("block %u ended with %u cp.async.bulk.tensor copies never landed (thread %d's "
                    "into %p: no thread waited on mbarrier %p's phase with every arrival in)",
                    block, n_copies, copies[0].thread, (void *)copies[0].dst,
                    (const void *)copies[0].bar->addr);
  free(copies);
  copies = NULL;
  n_copies = cap_copies = 0;
}

/* Unlocks; stops the calling thread when the run has failed. */
static void leave(void) {
  bool failed = tcmma__sim_state.failed;
  tcmma__sim_unlock();
  if (failed) tcmma__sim_stop_thread();
}

static bool opcode_is(const char *opcode, int op) {
  return opcode && strcmp(opcode, opcodes[op]) == 0;
}

/* Fails naming the call (lock held) unless opcode is op's. */
static bool check_opcode(const char *call, const char *opcode, int op) {
  if (opcode_is(opcode, op)) return true;
  tcmma__sim_fail("%s: unknown opcode '%s': expected %s", call, opcode ? opcode : "(null)",
                  opcodes[op]);
  return false;
}

/* The initialised barrier at bar, or NULL after a failure naming call. */
static sim_mbar *find_bar(const char *call, const unsigned long long *bar) {
  for (unsigned i = 0; i < n_bars; i++)
    if (bars[i].addr == bar) return &bars[i];
  tcmma__sim_fail("%s by thread %d: mbarrier %p used before mbarrier.init", call,
                  tcmma__sim_current_thread(), (const void *)bar);
  return NULL;
}

void tcmma_sim_mbar_init(const char *opcode, unsigned long long *bar, unsigned arrivals) {
  if (tcmma__sim_current_lane() < 0) return;
  tcmma__sim_lock();
  const char *call = "mbarrier.init";
  if (!check_opcode(call, opcode, OP_MBAR_INIT)) return leave();
  if (!bar || (uintptr_t)bar % 8 || arrivals == 0 || arrivals >= (1u << 20)) {
    tcmma__sim_fail("%s by thread %d: barrier %p with %u arrivals: expected an 8-byte aligned "
                    "barrier and 1 to 2^20-1 arrivals", call, tcmma__sim_current_thread(),
                    (void *)bar, arrivals);
    return leave();
  }
  if (!tcmma__sim_access_check(bar, 8, call, tcmma__sim_current_warp(), tcmma__sim_current_lane()))
    return leave();
  sim_mbar *b = NULL;
  for (unsigned i = 0; i < n_bars && !b; i++)
    if (bars[i].addr == bar) b = &bars[i];
  if (!b && n_bars == SIM_MBARS)
    tcmma__sim_fail("%s: more than %d mbarriers in one block", call, SIM_MBARS);
  else if (!b)
    b = &bars[n_bars++];
  if (b) {
    *b = (sim_mbar){bar, arrivals, arrivals, 0, 0, 0, {0}};
    memset(seen[b - bars], 0, sizeof seen[b - bars]);
  }
  leave();
}

void tcmma_sim_fence(const char *opcode) {
  if (tcmma__sim_current_lane() < 0) return;
  if (opcode_is(opcode, OP_MBAR_INIT_FENCE)) return;
  if (opcode_is(opcode, OP_FENCE_PROXY_ASYNC)) { /* wgmma's view (wgmma.c) */
    tcmma__sim_lock();
    tcmma__sim_async_view_fence();
    tcmma__sim_unlock();
    return;
  }
  tcmma__sim_fail_lane("fence: unknown opcode '%s': expected %s or %s", opcode ? opcode : "(null)",
                       opcodes[OP_MBAR_INIT_FENCE],
                       opcodes[OP_FENCE_PROXY_ASYNC]);
}

/* Lands bar's queued copies (its arrivals are all in): writes their
 * bytes and delivers them to the barrier; fails for bytes beyond what the
 * phase expects. */
static void land_copies(sim_mbar *b);

/* Completes b's phase when its arrivals and bytes are in. */
static void try_complete(sim_mbar *b) {
  if (b->pending || b->tx) return;
  b->phase++;
  b->pending = b->arrivals;
  tcmma__sim_block_wake_locked();
}

void tcmma_sim_mbar_arrive(const char *opcode, unsigned long long *bar, unsigned tx_bytes) {
  if (tcmma__sim_current_lane() < 0) return;
  tcmma__sim_lock();
  bool expect = opcode_is(opcode, OP_MBAR_EXPECT_TX);
  if (!expect && !check_opcode("mbarrier.arrive", opcode, OP_MBAR_ARRIVE)) return leave();
  sim_mbar *b = find_bar(opcodes[expect ? OP_MBAR_EXPECT_TX : OP_MBAR_ARRIVE], bar);
  if (!b) return leave();
  if (!expect && tx_bytes) {
    tcmma__sim_fail("mbarrier.arrive with %u transaction bytes: expected arrive.expect_tx",
                    tx_bytes);
    return leave();
  }
  if (b->pending == 0) {
    tcmma__sim_fail("%s by thread %d on mbarrier %p: more arrivals than the %u its phase expects",
                    opcodes[expect ? OP_MBAR_EXPECT_TX : OP_MBAR_ARRIVE],
                    tcmma__sim_current_thread(), (void *)bar, b->arrivals);
    return leave();
  }
  b->tx += tx_bytes;
  b->pending--;
  if (b->pending == 0) land_copies(b);
  if (!tcmma__sim_state.failed) try_complete(b);
  tcmma__sim_block_wake_locked(); /* waiters recheck with the new counts */
  leave();
}

typedef struct {
  sim_mbar *bar;
  unsigned parity;
} wait_ctx;

/* The calling thread's wait on b returned: it has seen every phase completed
 * so far; a phase seen for the first time remembers the block epoch. */
static void observe(sim_mbar *b) {
  int tid = tcmma__sim_current_thread();
  if (tid < 0 || tcmma__sim_state.failed) return;
  seen[b - bars][tid] = b->phase;
  for (unsigned long p = b->observed + 1; p <= b->phase; p++)
    b->seen_epoch[p % SEEN_RING] = tcmma__sim_block_epoch();
  if (b->phase > b->observed) b->observed = b->phase;
}

bool tcmma__sim_mbar_arrive_async(const unsigned long long *bar, const char *what,
                                  unsigned long *complete_at) {
  sim_mbar *b = find_bar(what, bar);
  if (!b) return false;
  if (b->pending == 0) {
    tcmma__sim_fail("%s by thread %d on mbarrier %p: more arrivals than the %u its phase expects",
                    what, tcmma__sim_current_thread(), (const void *)bar, b->arrivals);
    return false;
  }
  *complete_at = b->phase + 1;
  b->pending--;
  if (b->pending == 0) land_copies(b);
  if (!tcmma__sim_state.failed) try_complete(b);
  tcmma__sim_block_wake_locked();
  return !tcmma__sim_state.failed;
}

int tcmma__sim_mbar_observed(const unsigned long long *bar, unsigned long phases, int thread) {
  const sim_mbar *b = NULL;
  for (unsigned i = 0; i < n_bars && !b; i++)
    if (bars[i].addr == bar) b = &bars[i];
  if (!b || b->phase < phases) return -1;
  if (thread >= 0 && seen[b - bars][thread] >= phases) return 1;
  if (b->observed < phases) return 0;
  /* seen by another thread: a __syncthreads() since its first observation */
  unsigned long at = b->observed - phases < SEEN_RING ? b->seen_epoch[phases % SEEN_RING] : 0;
  return tcmma__sim_block_epoch() > at;
}

/* Whether the phase of that parity completed (the current phase's parity
 * differs), landing the copies in flight first once every arrival is in;
 * else the wait's description, with the counts as they are now. Run by the
 * waiting thread each time it is woken. */
static bool phase_ready(void *ctx) {
  const wait_ctx *w = ctx;
  sim_mbar *b = w->bar;
  if ((b->phase & 1u) != w->parity) return true;
  if (b->pending == 0) {
    land_copies(b);
    if (tcmma__sim_state.failed) return true;
    try_complete(b);
    if ((b->phase & 1u) != w->parity) return true;
  }
  snprintf(wait_what, sizeof wait_what, "mbarrier %p's phase of parity %u (%u of %u arrivals "
           "still to come, %lld transaction bytes still expected)", (const void *)b->addr,
           w->parity, b->pending, b->arrivals, b->tx);
  return false;
}

void tcmma_sim_mbar_wait(const char *opcode, unsigned long long *bar, unsigned parity) {
  if (tcmma__sim_current_lane() < 0) return;
  tcmma__sim_lock();
  if (!check_opcode("mbarrier.try_wait", opcode, OP_MBAR_TRY_WAIT)) return leave();
  sim_mbar *b = find_bar(opcode, bar);
  if (!b) return leave();
  if (parity > 1) {
    tcmma__sim_fail("%s: parity %u: expected 0 or 1", opcode, parity);
    return leave();
  }
  wait_ctx w = {b, parity};
  tcmma__sim_block_wait_locked(phase_ready, &w, wait_what);
  observe(b);
  leave();
}

/* Writes copy c's box (lock held): each landed element from global memory,
 * or zeros outside the dims. False after a bounds failure. */
static bool land_one(const sim_tma *c) {
  const tcmma_tensor_map *m = &c->map;
  int eb = tcmma_prec_bytes(m->prec), rank = m->rank;
  unsigned idx[TCMMA_TMAP_RANK_MAX] = {0}, landed[TCMMA_TMAP_RANK_MAX];
  for (int i = 0; i < rank; i++) landed[i] = tcmma_tensor_map_box_elems(m, i);
  for (;;) {
    long long addr = 0;
    bool inside = true;
    for (int i = 0; i < rank; i++) {
      long long g = (long long)c->coords[i] + (long long)idx[i] * (i ? m->element_strides[i] : 1);
      inside = inside && g >= 0 && (unsigned long long)g < m->dims[i];
      addr += i ? g * (long long)m->strides[i - 1] : g * eb;
    }
    unsigned char *dst = c->dst + tcmma_tensor_map_shared_offset(m, idx);
    const void *src = (const void *)(uintptr_t)(m->address + (unsigned long long)addr);
    if (!inside) {
      memset(dst, 0, (size_t)eb);
    } else {
      if (!tcmma__sim_access_check(src, (size_t)eb, "cp.async.bulk.tensor (its global source)",
                                   c->thread / SIM_LANES, c->thread % SIM_LANES))
        return false;
      memcpy(dst, src, (size_t)eb);
    }
    tcmma__sim_async_view_write(dst, (size_t)eb); /* the async proxy wrote it */
    int i = 0; /* the next index, dimension 0 fastest */
    while (i < rank && ++idx[i] == landed[i]) idx[i++] = 0;
    if (i == rank) return true;
  }
}

static void land_copies(sim_mbar *b) {
  unsigned kept = 0;
  for (unsigned i = 0; i < n_copies; i++) {
    sim_tma *c = &copies[i];
    if (c->bar != b) {
      copies[kept++] = *c;
      continue;
    }
    if (!land_one(c)) return;
    b->tx -= c->bytes;
    if (b->tx < 0) {
      tcmma__sim_fail("cp.async.bulk.tensor by thread %d delivered %lld bytes to mbarrier %p, %lld "
                      "more than its phase expected (mbarrier.arrive.expect_tx)", c->thread,
                      c->bytes, (const void *)b->addr, -b->tx);
      return;
    }
  }
  n_copies = kept;
}

/* The copy's map and destination, as the model takes them (lock held). */
static bool check_copy(const char *opcode, const unsigned char *dst, const tcmma_tensor_map *map) {
  tcmma_error err;
  if (tcmma_tensor_map_check(map, NULL, &err) != TCMMA_OK) {
    tcmma__sim_fail("cp.async.bulk.tensor by thread %d: %s", tcmma__sim_current_thread(),
                    err.message);
    return false;
  }
  char want[160];
  snprintf(want, sizeof want, opcodes[OP_TMA_LOAD], map->rank);
  int sw = tcmma_swizzle_get(map->swizzle)->bytes;
  size_t align = sw ? (size_t)sw * 8 : 128;
  const char *why = !opcode || strcmp(opcode, want) ? "its opcode is not the map's rank's"
                    : map->interleave != TCMMA_TMAP_INTERLEAVE_NONE ? "interleaved maps are not modelled"
                    : map->oob_fill != TCMMA_TMAP_OOB_ZERO ? "only the zero out-of-bounds fill is modelled"
                    : (uintptr_t)dst % align ? "its destination is misaligned"
                    : NULL;
  if (!why) return true;
  tcmma__sim_fail("'%s' by thread %d into %p: %s (expected '%s', a destination %zu-byte aligned)",
                  opcode ? opcode : "(null)", tcmma__sim_current_thread(), (const void *)dst, why,
                  want, align);
  return false;
}

void tcmma_sim_tma_load(const char *opcode, void *dst, const tcmma_tensor_map *map,
                        unsigned long long *bar, const int *coords) {
  if (tcmma__sim_current_lane() < 0) return;
  tcmma__sim_lock();
  if (!map || !coords) {
    tcmma__sim_fail("cp.async.bulk.tensor by thread %d: map and coordinates are required",
                    tcmma__sim_current_thread());
    return leave();
  }
  sim_mbar *b = find_bar("cp.async.bulk.tensor", bar);
  if (!b || !check_copy(opcode, dst, map)) return leave();
  long long bytes = tcmma_tensor_map_box_bytes(map);
  if (!tcmma__sim_access_check(dst, (size_t)bytes, "cp.async.bulk.tensor (its shared destination)",
                               tcmma__sim_current_warp(), tcmma__sim_current_lane()))
    return leave();
  if (n_copies == cap_copies) {
    unsigned cap = cap_copies ? 2 * cap_copies : 16;
    sim_tma *grown = realloc(copies, cap * sizeof *grown);
    if (!grown) {
      tcmma__sim_fail("cp.async.bulk.tensor: out of memory queueing a copy");
      return leave();
    }
    copies = grown, cap_copies = cap;
  }
  sim_tma *c = &copies[n_copies++];
  *c = (sim_tma){dst, *map, b, {0}, bytes, tcmma__sim_current_thread()};
  c->map.size = sizeof c->map;
  memcpy(c->coords, coords, (size_t)map->rank * sizeof *coords);
  tcmma__sim_block_wake_locked(); /* a waiter may land it now */
  leave();
}

void tcmma_sim_ld_shared(void *dst, const void *src, size_t bytes) {
  if (tcmma__sim_current_lane() < 0 || !dst || !src) return;
  tcmma__sim_lock();
  const unsigned char *p = src;
  for (unsigned i = 0; i < n_copies; i++) {
    const sim_tma *c = &copies[i];
    if (p + bytes <= c->dst || p >= c->dst + c->bytes) continue;
    tcmma__sim_fail("thread %d reads shared bytes %p..+%zu before the cp.async.bulk.tensor copy "
                    "into them (thread %d's, on mbarrier %p) completed: wait for its phase "
                    "(tcmma_mbar_wait with the phase's parity) first", tcmma__sim_current_thread(),
                    src, bytes, c->thread, (const void *)c->bar->addr);
    return leave();
  }
  memcpy(dst, src, bytes);
  leave();
}
