/* Internals shared by the host simulator's sources (mma/sim/): the shared
 * state under everything (lane.c: place, lock, failure, bounds, epochs), the
 * block scheduler (block.c) and the lockstep rendezvous every warp
 * collective goes through, the shared-memory tracking of cp.async copies
 * (shared_track.c), and the exact small-float codec the conversions and
 * models share. */
#ifndef TCMMA_SIM_INTERNAL_H
#define TCMMA_SIM_INTERNAL_H

#include <pthread.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include "tcmma/arm.h"
#include "tcmma/sim.h"

#define SIM_LANES TCMMA_WARP_SIZE
#define SIM_WARPS (TCMMA_SIM_BLOCK_THREADS_MAX / SIM_LANES)

/* ---- the shared state (lane.c) ----
 * The scheduler (block.c) sets it up per launch and block; everything else
 * reads it, so no model or tracking file calls back up into the scheduler. */
typedef struct {
  pthread_mutex_t mu; /* the block's lock */
  unsigned nthreads;  /* threads in a block of the launch */
  bool failed;        /* the run's first failure, in message */
  char message[TCMMA_ERROR_MAX];
  void (*wake)(void); /* wakes every waiter after a failure (lock held); block.c's */
  /* block.c's waits on asynchronous state (tcmma__sim_block_wait_locked) */
  void (*async_wait)(bool (*ready)(void *ctx), void *ctx, const char *what);
  void (*async_wake)(void);
  unsigned char *dyn; /* dynamic shared memory: asked for, allocated (with the guard) */
  size_t dyn_bytes, dyn_alloc;
  /* The shared window [zone_lo, zone_hi): address space around dyn that the
   * simulator reserved (nothing else lives there), or [0, SIM_NULL_ZONE)
   * without dynamic shared memory: an access into it must lie in the
   * extent [dyn, dyn + dyn_bytes). */
  uintptr_t zone_lo, zone_hi;
  const void *const *buffers; /* the launch's registered global buffers */
  const size_t *buffer_bytes;
  size_t n_buffers;
  unsigned long bar_generation;        /* __syncthreads()s completed in this block */
  unsigned long warp_epoch[SIM_WARPS]; /* __syncwarp()s completed, per warp */
} sim_shared;

extern sim_shared tcmma__sim_state;
/* The calling thread's linear index in its block (-1 outside a launch) and
 * where tcmma__sim_stop_thread jumps to (its thread body). */
extern _Thread_local int tcmma__sim_tid;
extern _Thread_local jmp_buf *tcmma__sim_stop;

/* Records a failure (lock held) unless one is recorded; wakes every waiter. */
void tcmma__sim_vfail_locked(const char *fmt, va_list ap);
/* Leaves the calling lane's kernel code (longjmp to its thread body). */
_Noreturn void tcmma__sim_stop_thread(void);

/* Runs once per collective, by the last lane to arrive, with the opcode all
 * lanes passed and every lane's argument block (indexed by lane), under the
 * block's lock; may call tcmma__sim_fail and the tracking below. */
typedef void (*sim_exec_fn)(const char *opcode, void *const lane_args[SIM_LANES]);

/* Called by each lane at a collective: waits for all 32 lanes, checks that
 * they all reached the same collective (exec and opcode), runs exec once, and
 * releases them. On any failure of the run the calling lane stops (never
 * returns). Outside a launch there is no warp: it does nothing and returns
 * false. */
bool tcmma__sim_collective(const char *opcode, sim_exec_fn exec, void *lane_arg);

/* Records the run's first failure (TCMMA_INVALID, printf-style message).
 * Inside an exec the rendezvous stops every lane afterwards; in lane code
 * (non-collective calls), use tcmma__sim_fail_lane to stop the calling lane too. */
void tcmma__sim_fail(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
_Noreturn void tcmma__sim_fail_lane(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

/* The calling thread's lane (0..31), warp and linear index in its block,
 * or -1 outside a launch. */
int tcmma__sim_current_lane(void);
int tcmma__sim_current_warp(void);
int tcmma__sim_current_thread(void);

/* Bytes from address 0 taken as shared offsets from a NULL base (a kernel
 * that touches dynamic shared memory the launch did not ask for): more than
 * any device's shared memory, and below where anything is ever mapped. */
#define SIM_NULL_ZONE ((uintptr_t)1 << 20)

/* Whether the access [p, p+bytes) (what: the instruction; warp and lane:
 * whose address it is, for the message) is inside memory the launch knows:
 * an access into the shared window must lie in the dynamic shared memory's
 * exact extent; elsewhere, when the launch registered buffers, inside one of
 * them (with none registered, elsewhere passes). Else fails
 * (tcmma__sim_fail: lock held) and returns false. */
bool tcmma__sim_access_check(const void *p, size_t bytes, const char *what, int warp, int lane);

/* Per-thread cp.async state, released when the thread ends its block:
 * returns how many copies were still pending (never waited for). */
unsigned tcmma__sim_cp_async_lane_end(void);

/* ---- waits on asynchronous state (lane.c, through block.c's; lock held) ---- */

/* Blocks the calling thread until ready(ctx) holds (rechecked whenever
 * tcmma__sim_block_wake_locked is called) or the run fails; what names the
 * wait in a deadlock message (a string that lives until the thread wakes). */
void tcmma__sim_block_wait_locked(bool (*ready)(void *ctx), void *ctx, const char *what);
/* Wakes every thread blocked there, to recheck. */
void tcmma__sim_block_wake_locked(void);

/* The TMA and mbarrier model (tma.c; lock held): forget every barrier and
 * copy (a new block); and the block's end (fails for copies never landed). */
void tcmma__sim_tma_reset(void);
void tcmma__sim_tma_block_end(unsigned block);

/* The block's lock, for lane code (cp.async) that touches the tracking
 * below; execs already hold it. */
void tcmma__sim_lock(void);
void tcmma__sim_unlock(void);

/* The block's synchronization epochs: __syncthreads()s completed, and the
 * __syncwarp()s of warp w plus every __syncthreads() (lock held). */
unsigned long tcmma__sim_block_epoch(void);
unsigned long tcmma__sim_warp_epoch(int warp);

/* ---- shared-memory tracking of cp.async (shared_track.c; lock held) ----
 * Shared memory is tracked in 16-byte chunks (ldmatrix rows, cp.async's
 * widest copy). A copy is pending from issue to landing; landed bytes are
 * visible to the landing thread's warp after a __syncwarp() and to every
 * warp after a __syncthreads(). */

/* Forgets every chunk (a new block). */
void tcmma__sim_track_reset(void);
/* Frees the table (the end of a launch). */
void tcmma__sim_track_free(void);
/* Thread thread of warp warp issues a copy into [dst, dst+bytes) of group
 * group: fails (tcmma__sim_fail, false) when another warp read those bytes
 * since the last __syncthreads() (a write-after-read race); false without
 * memory. */
bool tcmma__sim_track_issue(const void *dst, unsigned bytes, int thread, int warp,
                            unsigned long group);
/* The copy lands: its chunks stop being pending and remember who landed
 * them and when. */
void tcmma__sim_track_land(const void *dst, unsigned bytes, int thread, int warp);
/* Warp warp reads [p, p+bytes) (what: the instruction, lane: the lane whose
 * address it is, for the message): fails (false) when a copy into those
 * bytes is pending, or landed by another warp with no __syncthreads()
 * since (or by this warp with no __syncwarp() since). */
bool tcmma__sim_track_read(const void *p, unsigned bytes, int warp, int lane, const char *what);

/* ---- wgmma (wgmma.c) ---- */

/* A new block (lock held): every thread's groups forgotten, the async
 * proxy's view of the dynamic shared memory taken (it is all 0xff). */
void tcmma__sim_wgmma_reset(void);
/* The end of a launch: the view's memory freed. */
void tcmma__sim_wgmma_free(void);
/* The calling thread leaves its block (lock not held): the wgmma groups it
 * still had in flight (forgotten). */
unsigned tcmma__sim_wgmma_lane_end(void);
/* fence.proxy.async (lock held): the async proxy's view becomes the dynamic
 * shared memory as it is now. */
void tcmma__sim_async_view_fence(void);
/* An async-proxy write (a TMA landing) of [p, p+bytes) (lock held): the view
 * takes those bytes too. */
void tcmma__sim_async_view_write(const void *p, size_t bytes);

/* A binary floating-point format: exp_bits, man_bits, bias; has_inf: the
 * all-ones exponent is Inf/NaN (IEEE); otherwise (e4m3) only all-ones
 * exponent and mantissa is NaN and the rest of that binade is finite.
 * finite_only (OCP fp6/fp4): no NaN either, every pattern a number;
 * unsigned_ (ue4m3): no sign bit, so the format is exp_bits + man_bits wide. */
typedef struct {
  int exp_bits, man_bits, bias;
  bool has_inf, finite_only, unsigned_;
} sim_format;

extern const sim_format tcmma__sim_fmt_f16, tcmma__sim_fmt_bf16, tcmma__sim_fmt_e4m3,
    tcmma__sim_fmt_e5m2, tcmma__sim_fmt_e2m1, tcmma__sim_fmt_e2m3, tcmma__sim_fmt_e3m2,
    tcmma__sim_fmt_ue4m3;

/* The value of bits in fmt (NaN, Inf, subnormals exact). */
double tcmma__sim_decode(const sim_format *fmt, uint32_t bits);

/* x rounded to nearest even in fmt. Overflow: Inf when fmt has_inf and
 * !satfinite, else the largest finite with x's sign. NaN: the canonical NaN
 * (all ones but the sign); in a finite_only format the positive largest
 * finite (as CUDA's fp4/fp6 conversions do). Unsigned formats: a negative x
 * is 0 (the nearest the format holds). */
uint32_t tcmma__sim_encode(const sim_format *fmt, double x, bool satfinite);

#endif
