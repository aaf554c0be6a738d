/* The state every part of the host simulator shares, below the block
 * scheduler (block.c) and the instruction models: the calling thread's
 * place in its block, the block's lock, the run's first failure and how a
 * lane stops, the dynamic shared memory's bounds and the synchronization
 * epochs. block.c fills it in; cp_async.c, shared_track.c and the models
 * read it without calling back up into the scheduler. */
#include <setjmp.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include "mma/sim/internal.h"

sim_shared tcmma__sim_state = {.mu = PTHREAD_MUTEX_INITIALIZER};
_Thread_local int tcmma__sim_tid = -1;
_Thread_local jmp_buf *tcmma__sim_stop;

void tcmma__sim_lock(void) { pthread_mutex_lock(&tcmma__sim_state.mu); }
void tcmma__sim_unlock(void) { pthread_mutex_unlock(&tcmma__sim_state.mu); }

int tcmma__sim_current_thread(void) { return tcmma__sim_tid; }
int tcmma__sim_current_lane(void) { return tcmma__sim_tid < 0 ? -1 : tcmma__sim_tid % SIM_LANES; }
int tcmma__sim_current_warp(void) { return tcmma__sim_tid < 0 ? -1 : tcmma__sim_tid / SIM_LANES; }

unsigned long tcmma__sim_block_epoch(void) { return tcmma__sim_state.bar_generation; }
unsigned long tcmma__sim_warp_epoch(int warp) {
  return warp >= 0 && warp < SIM_WARPS
             ? tcmma__sim_state.warp_epoch[warp] + tcmma__sim_state.bar_generation
             : 0;
}

/* The access [a, a+bytes) against the registered buffers (some registered). */
static bool in_buffer(const sim_shared *s, uintptr_t a, size_t bytes) {
  for (size_t i = 0; i < s->n_buffers; i++) {
    uintptr_t lo = (uintptr_t)s->buffers[i];
    if (a >= lo && bytes <= s->buffer_bytes[i] && a - lo <= s->buffer_bytes[i] - bytes)
      return true;
  }
  return false;
}

bool tcmma__sim_access_check(const void *p, size_t bytes, const char *what, int warp, int lane) {
  const sim_shared *s = &tcmma__sim_state;
  uintptr_t a = (uintptr_t)p, lo = (uintptr_t)s->dyn;
  if (bytes > UINTPTR_MAX - a) {
    tcmma__sim_fail("%s by lane %d of warp %d: %zu bytes at %p wrap around the address space",
                    what, lane, warp, bytes, p);
    return false;
  }
  if (s->dyn && a < SIM_NULL_ZONE) { /* NULL plus an offset: never memory */
    tcmma__sim_fail("%s by lane %d of warp %d touches bytes %p..+%zu: a NULL-based address "
                    "(the dynamic shared memory is %zu bytes at %p)", what, lane, warp, p, bytes,
                    s->dyn_bytes, (void *)s->dyn);
    return false;
  }
  if (a + bytes > s->zone_lo && a < s->zone_hi) { /* the shared window: only the extent */
    if (s->dyn && a >= lo && bytes <= s->dyn_bytes && a - lo <= s->dyn_bytes - bytes) return true;
    tcmma__sim_fail("%s by lane %d of warp %d touches bytes %p..+%zu, outside the %zu bytes of "
                    "dynamic shared memory at %p%s", what, lane, warp, p, bytes, s->dyn_bytes,
                    (void *)s->dyn, s->dyn ? "" : " (the launch asked for none)");
    return false;
  }
  if (!s->n_buffers || in_buffer(s, a, bytes)) return true;
  tcmma__sim_fail("%s by lane %d of warp %d touches bytes %p..+%zu, outside the %zu bytes of "
                  "dynamic shared memory at %p and every one of the %zu buffers the launch "
                  "registered", what, lane, warp, p, bytes, s->dyn_bytes, (void *)s->dyn,
                  s->n_buffers);
  return false;
}

void tcmma__sim_vfail_locked(const char *fmt, va_list ap) {
  sim_shared *s = &tcmma__sim_state;
  if (s->failed) return;
  s->failed = true;
  vsnprintf(s->message, sizeof s->message, fmt, ap);
  if (s->wake) s->wake();
}

/* Called from an exec (the lock held by the rendezvous). */
void tcmma__sim_fail(const char *fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  tcmma__sim_vfail_locked(fmt, ap);
  va_end(ap);
}

_Noreturn void tcmma__sim_stop_thread(void) { longjmp(*tcmma__sim_stop, 1); }

void tcmma__sim_fail_lane(const char *fmt, ...) {
  pthread_mutex_lock(&tcmma__sim_state.mu);
  va_list ap;
  va_start(ap, fmt);
  tcmma__sim_vfail_locked(fmt, ap);
  va_end(ap);
  pthread_mutex_unlock(&tcmma__sim_state.mu);
  tcmma__sim_stop_thread();
}

void tcmma__sim_block_wait_locked(bool (*ready)(void *ctx), void *ctx, const char *what) {
  if (tcmma__sim_state.async_wait) tcmma__sim_state.async_wait(ready, ctx, what);
}

void tcmma__sim_block_wake_locked(void) {
  if (tcmma__sim_state.async_wake) tcmma__sim_state.async_wake();
}
