/* Tracking of cp.async copies into shared memory, per 16-byte chunk (the
 * block's lock held throughout): which chunks have a copy in flight, who
 * landed each and in which synchronization epoch, and which warps read it
 * since the last __syncthreads(). That makes the three races of a staged
 * pipeline deterministic failures, whatever order the threads run in:
 *   - a read (ldmatrix, wmma) of a chunk whose copy has not landed;
 *   - a read of a chunk another warp landed with no __syncthreads() since
 *     (the landing thread's own warp needs a __syncwarp());
 *   - a copy issued into a chunk another warp read since the last
 *     __syncthreads() (the stage was overwritten while still in use).
 * The table is an open-addressing hash on the chunk address, reset for each
 * block. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "mma/sim/internal.h"

enum { CHUNK = 16 };

typedef struct {
  uintptr_t key;            /* chunk address / CHUNK + 1; 0: empty slot */
  unsigned pending;         /* copies in flight into the chunk */
  int pending_thread;       /* one of them, for messages */
  unsigned long pending_group;
  bool landed;
  int land_thread, land_warp; /* land_warp -1: several warps landed in one block epoch */
  unsigned long land_block_epoch, land_warp_epoch;
  unsigned long read_epoch; /* the block epoch of the reads below */
  uint32_t read_warps;      /* warps that read the chunk in read_epoch */
} chunk;

static chunk *table;
static size_t cap, used; /* cap a power of two; used slots */

void tcmma__sim_track_reset(void) {
  if (table) memset(table, 0, cap * sizeof *table);
  used = 0;
}

void tcmma__sim_track_free(void) {
  free(table);
  table = NULL;
  cap = used = 0;
}

static size_t slot_of(uintptr_t key) {
  uint64_t h = (uint64_t)key * 0x9e3779b97f4a7c15ull;
  return (size_t)(h >> 17) & (cap - 1);
}

/* The chunk at address a; created when create, else NULL when absent. */
static chunk *find(uintptr_t a, bool create) {
  uintptr_t key = a / CHUNK + 1;
  if (create && (used + 1) * 2 > cap) {
    size_t old_cap = cap, new_cap = cap ? 2 * cap : 1024;
    chunk *old = table, *grown = calloc(new_cap, sizeof *grown);
    if (!grown) return NULL;
    table = grown, cap = new_cap, used = 0;
    for (size_t i = 0; i < old_cap; i++)
      if (old[i].key) {
        size_t s = slot_of(old[i].key);
        while (table[s].key) s = (s + 1) & (cap - 1);
        table[s] = old[i];
        used++;
      }
    free(old);
  }
  if (!cap) return NULL;
  for (size_t s = slot_of(key);; s = (s + 1) & (cap - 1)) {
    if (table[s].key == key) return &table[s];
    if (!table[s].key) {
      if (!create) return NULL;
      table[s].key = key;
      used++;
      return &table[s];
    }
  }
}

/* The warps of mask other than warp, as "1,3" into buf. */
static void warp_names(char *buf, size_t cap_, uint32_t mask, int warp) {
  size_t n = 0;
  buf[0] = '\0';
  for (int w = 0; w < 32 && n < cap_; w++)
    if ((mask >> w & 1) && w != warp)
      n += (size_t)snprintf(buf + n, cap_ - n, "%s%d", n ? "," : "", w);
}

bool tcmma__sim_track_issue(const void *dst, unsigned bytes, int thread, int warp,
                            unsigned long group) {
  unsigned long epoch = tcmma__sim_block_epoch();
  if (!tcmma__sim_access_check(dst, bytes, "cp.async", warp, thread % SIM_LANES)) return false;
  for (uintptr_t a = (uintptr_t)dst / CHUNK * CHUNK; a < (uintptr_t)dst + bytes; a += CHUNK) {
    chunk *c = find(a, true);
    if (!c) return false;
    if (c->read_epoch == epoch && (c->read_warps & ~(1u << warp))) {
      char who[96];
      warp_names(who, sizeof who, c->read_warps, warp);
      tcmma__sim_fail("cp.async by thread %d (warp %d) into shared bytes %p..+%d, which warp %s "
                      "read since the last __syncthreads: the stage is overwritten while in use "
                      "(a barrier must separate the reads from the next copy into them)",
                      thread, warp, (void *)a, CHUNK, who);
      return false;
    }
    if (!c->pending) c->pending_thread = thread, c->pending_group = group;
    c->pending++;
  }
  return true;
}

void tcmma__sim_track_land(const void *dst, unsigned bytes, int thread, int warp) {
  for (uintptr_t a = (uintptr_t)dst / CHUNK * CHUNK; a < (uintptr_t)dst + bytes; a += CHUNK) {
    chunk *c = find(a, false);
    if (!c) continue;
    if (c->pending) c->pending--;
    /* a chunk landed in parts by several warps (4- or 8-byte copies) is
     * visible to none of them before a __syncthreads(), whatever lands last */
    bool mixed = c->landed && c->land_block_epoch == tcmma__sim_block_epoch() &&
                 c->land_warp != warp;
    c->landed = true;
    c->land_thread = thread, c->land_warp = mixed ? -1 : warp;
    c->land_block_epoch = tcmma__sim_block_epoch();
    c->land_warp_epoch = tcmma__sim_warp_epoch(warp);
  }
}

bool tcmma__sim_track_read(const void *p, unsigned bytes, int warp, int lane, const char *what) {
  unsigned long epoch = tcmma__sim_block_epoch();
  if (!tcmma__sim_access_check(p, bytes, what, warp, lane)) return false;
  for (uintptr_t a = (uintptr_t)p / CHUNK * CHUNK; a < (uintptr_t)p + bytes; a += CHUNK) {
    chunk *c = find(a, true); /* reads are remembered for the next copy's check */
    if (!c) {
      tcmma__sim_fail("%s: out of memory tracking shared memory", what);
      return false;
    }
    if (c->pending) {
      tcmma__sim_fail("%s by lane %d of warp %d reads shared bytes %p..+%d before thread %d's "
                      "cp.async into them (group %lu) landed (expected cp.async.wait_group or "
                      "wait_all, then a barrier, before the read)", what, lane, warp, (void *)a,
                      CHUNK, c->pending_thread, c->pending_group);
      return false;
    }
    bool visible = !c->landed || c->land_block_epoch < epoch ||
                   (c->land_warp == warp && c->land_warp_epoch < tcmma__sim_warp_epoch(warp));
    if (!visible && c->land_warp < 0) {
      tcmma__sim_fail("%s by lane %d of warp %d reads shared bytes %p..+%d that threads of more "
                      "than one warp landed (thread %d last) with no __syncthreads since", what,
                      lane, warp, (void *)a, CHUNK, c->land_thread);
      return false;
    }
    if (!visible) {
      tcmma__sim_fail("%s by lane %d of warp %d reads shared bytes %p..+%d that thread %d (warp "
                      "%d) landed with no %s since", what, lane, warp, (void *)a, CHUNK,
                      c->land_thread, c->land_warp,
                      c->land_warp == warp ? "__syncwarp or __syncthreads" : "__syncthreads");
      return false;
    }
    if (c->read_epoch != epoch) c->read_epoch = epoch, c->read_warps = 0;
    c->read_warps |= 1u << warp;
  }
  return true;
}
