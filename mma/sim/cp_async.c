/* cp.async model: per lane (the PTX instructions are per thread, not warp
 * collectives). A copy is queued when issued and performed only when the
 * lane waits, so text that reads shared data before cp.async.wait_all sees
 * stale bytes, as it might on the GPU. */
#include <stdlib.h>
#include <string.h>
#include "mma/sim/internal.h"

typedef struct {
  void *dst;
  const void *src;
  unsigned bytes;
} pending_copy;

static _Thread_local pending_copy *queue;
static _Thread_local unsigned queued, queue_cap;

void tcmma_sim_cp_async(const char *opcode, void *dst, const void *src, unsigned bytes) {
  bool cg = opcode && strcmp(opcode, "cp.async.cg.shared.global") == 0;
  bool ca = opcode && strcmp(opcode, "cp.async.ca.shared.global") == 0;
  if (tcmma__sim_current_lane() < 0) return;
  if (!cg && !ca)
    tcmma__sim_fail_lane("unknown cp.async opcode '%s': expected cp.async.ca.shared.global or "
                         "cp.async.cg.shared.global",
                         opcode ? opcode : "(null)");
  if (cg ? bytes != 16 : (bytes != 4 && bytes != 8 && bytes != 16))
    tcmma__sim_fail_lane("%s: lane %d copies %u bytes; expected %s", opcode,
                         tcmma__sim_current_lane(), bytes, cg ? "16 (.cg)" : "4, 8 or 16");
  if (!dst || !src || (uintptr_t)dst % bytes || (uintptr_t)src % bytes)
    tcmma__sim_fail_lane("%s: lane %d's addresses %p <- %p are not %u-byte aligned", opcode,
                         tcmma__sim_current_lane(), dst, src, bytes);
  if (queued == queue_cap) {
    unsigned cap = queue_cap ? 2 * queue_cap : 64;
    pending_copy *grown = realloc(queue, cap * sizeof *grown);
    if (!grown)
      tcmma__sim_fail_lane("cp.async: out of memory queueing lane %d's copy",
                           tcmma__sim_current_lane());
    queue = grown, queue_cap = cap;
  }
  queue[queued++] = (pending_copy){dst, src, bytes};
}

/* Groups only matter to wait_group N, which the renderer does not use:
 * wait_all completes every copy, committed or not (as PTX specifies). */
void tcmma_sim_cp_async_commit(void) {}

void tcmma_sim_cp_async_wait_all(void) {
  for (unsigned i = 0; i < queued; i++) memcpy(queue[i].dst, queue[i].src, queue[i].bytes);
  queued = 0;
}

unsigned tcmma__sim_cp_async_lane_end(void) {
  unsigned pending = queued;
  free(queue);
  queue = NULL;
  queued = queue_cap = 0;
  return pending;
}
