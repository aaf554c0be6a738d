/* cp.async model: per thread (the PTX instructions are per thread, not warp
 * collectives). A copy is queued when issued, in the thread's open group;
 * commit_group closes the group; a copy lands (its bytes are written) only
 * when its group is waited for: wait_group N lands every committed group but
 * the N most recent, wait_all lands everything. Issue and landing are
 * tracked per 16-byte chunk of shared memory (shared_track.c), so that
 * ldmatrix or wmma reading a chunk before its copy landed, or before a
 * barrier made it visible, ends the run naming both. Plain C reads of
 * shared data see stale bytes until the copy lands, as they might on the
 * GPU. */
#include <stdlib.h>
#include <string.h>
#include "mma/sim/internal.h"

typedef struct {
  void *dst;
  const void *src;
  unsigned bytes, src_bytes;
  unsigned long group;
} pending_copy;

static _Thread_local pending_copy *queue;
static _Thread_local unsigned queued, queue_cap;
static _Thread_local unsigned long committed; /* groups closed so far: 0..committed-1 */

/* Checks a copy's opcode, size and alignment (failing the thread), and
 * queues it in the open group. */
static void issue(const char *opcode, void *dst, const void *src, unsigned bytes,
                  unsigned src_bytes, bool zfill) {
  bool cg = opcode && strcmp(opcode, "cp.async.cg.shared.global") == 0;
  bool ca = opcode && strcmp(opcode, "cp.async.ca.shared.global") == 0;
  int lane = tcmma__sim_current_lane(), thread = tcmma__sim_current_thread();
  if (lane < 0) return;
  if (!cg && !ca)
    tcmma__sim_fail_lane("unknown cp.async opcode '%s': expected cp.async.ca.shared.global or "
                         "cp.async.cg.shared.global",
                         opcode ? opcode : "(null)");
  if (cg ? bytes != 16 : (bytes != 4 && bytes != 8 && bytes != 16))
    tcmma__sim_fail_lane("%s: lane %d copies %u bytes; expected %s", opcode, lane, bytes,
                         cg ? "16 (.cg)" : "4, 8 or 16");
  if (zfill && src_bytes > bytes)
    tcmma__sim_fail_lane("%s: lane %d's src-size %u exceeds the copy's %u bytes", opcode, lane,
                         src_bytes, bytes);
  /* src-size 0 reads nothing: its source address is not checked */
  bool reads = !zfill || src_bytes > 0;
  /* NULL and the other addresses outside memory the launch knows: the
   * bounds checks below */
  if ((uintptr_t)dst % bytes || (reads && (uintptr_t)src % bytes))
    tcmma__sim_fail_lane("%s: lane %d's addresses %p <- %p are not %u-byte aligned", opcode, lane,
                         dst, src, bytes);
  if (queued == queue_cap) {
    unsigned cap = queue_cap ? 2 * queue_cap : 64;
    pending_copy *grown = realloc(queue, cap * sizeof *grown);
    if (!grown) tcmma__sim_fail_lane("cp.async: out of memory queueing lane %d's copy", lane);
    queue = grown, queue_cap = cap;
  }
  int warp = tcmma__sim_current_warp();
  tcmma__sim_lock();
  /* the source at issue (the copy reads it when it lands), then the
   * destination (its bounds, then its races) */
  bool ok = (!reads || tcmma__sim_access_check(src, zfill ? src_bytes : bytes, opcode, warp,
                                               lane)) &&
            tcmma__sim_track_issue(dst, bytes, thread, warp, committed);
  tcmma__sim_unlock();
  /* a bounds or race failure is recorded already (the first one stands) */
  if (!ok) tcmma__sim_fail_lane("cp.async: the shared-memory tracking failed (out of memory)");
  queue[queued++] = (pending_copy){dst, reads ? src : NULL, bytes, zfill ? src_bytes : bytes,
                                   committed};
}

void tcmma_sim_cp_async(const char *opcode, void *dst, const void *src, unsigned bytes) {
  issue(opcode, dst, src, bytes, bytes, false);
}

void tcmma_sim_cp_async_zfill(const char *opcode, void *dst, const void *src, unsigned bytes,
                              unsigned src_bytes) {
  issue(opcode, dst, src, bytes, src_bytes, true);
}

void tcmma_sim_cp_async_commit(void) {
  if (tcmma__sim_current_lane() >= 0) committed++;
}

/* Lands the queued copies of groups below `below` (in issue order) and
 * keeps the rest. */
static void land_below(unsigned long below) {
  int thread = tcmma__sim_current_thread(), warp = tcmma__sim_current_warp();
  unsigned kept = 0;
  tcmma__sim_lock();
  for (unsigned i = 0; i < queued; i++) {
    pending_copy *c = &queue[i];
    if (c->group >= below) {
      queue[kept++] = *c;
      continue;
    }
    if (c->src_bytes) memcpy(c->dst, c->src, c->src_bytes);
    memset((unsigned char *)c->dst + c->src_bytes, 0, c->bytes - c->src_bytes);
    tcmma__sim_track_land(c->dst, c->bytes, thread, warp);
  }
  tcmma__sim_unlock();
  queued = kept;
}

void tcmma_sim_cp_async_wait_group(unsigned n) {
  if (tcmma__sim_current_lane() < 0) return;
  land_below(committed > n ? committed - n : 0);
}

/* wait_all completes every copy, committed or not (as PTX specifies: a
 * commit_group followed by wait_group 0). */
void tcmma_sim_cp_async_wait_all(void) {
  if (tcmma__sim_current_lane() < 0) return;
  committed++;
  land_below(committed);
}

unsigned tcmma__sim_cp_async_lane_end(void) {
  unsigned pending = queued;
  free(queue);
  queue = NULL;
  queued = queue_cap = 0;
  committed = 0;
  return pending;
}

/* The global-memory operations between blocks (include/tcmma/sim.h): a
 * split-K GEMM's slices count their arrivals with atomicAdd and publish
 * their partial tiles with __threadfence. The lanes are threads, so the
 * count is a real atomic. Here, beside the copies, so that every program
 * that links the copies links these. */
unsigned tcmma_sim_atomic_add(unsigned *p, unsigned v) {
  return __atomic_fetch_add(p, v, __ATOMIC_SEQ_CST);
}

void tcmma_sim_threadfence(void) { __atomic_thread_fence(__ATOMIC_SEQ_CST); }

float tcmma_sim_ldcg(const float *p) { return *p; }
