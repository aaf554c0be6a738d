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

/* tcgen05.commit's arrival (lock held; what names the instruction): one
 * arrival on the initialised barrier at bar, as mbarrier.arrive; sets
 * *complete_at to the phases completed once the phase it arrives in does.
 * False after a failure (no such barrier, more arrivals than expected). */
bool tcmma__sim_mbar_arrive_async(const unsigned long long *bar, const char *what,
                                  unsigned long *complete_at);
/* Whether thread has observed bar's completion of its first `phases` phases
 * (lock held): 1 when its own wait returned after them, or some thread's did
 * and a __syncthreads() followed; 0 when completed but not observed so; -1
 * when not completed (or no such barrier). */
int tcmma__sim_mbar_observed(const unsigned long long *bar, unsigned long phases, int thread);

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

/* Whether the async proxy's view agrees with the bytes [p, p+bytes) of the
 * dynamic shared memory (lock held): else a generic-proxy store changed them
 * after the block's last fence.proxy.async, and the run fails naming what. */
bool tcmma__sim_async_view_check(const void *p, size_t bytes, const char *what);

/* ---- the sm_100 shared memory descriptor (umma_desc.c; lock held) ---- */

typedef struct {
  long start, lbo, sbo; /* byte offsets into the dynamic shared memory */
  int mode;             /* the swizzle code, bits 61-63 */
  long span;            /* its span in bytes (0: none) */
} sim_umma_desc;

/* Decodes desc for what (the instruction, for the message): fails for a
 * version other than 0b001, a base offset, the absolute LBO mode, reserved
 * bits, swizzle codes 3/5/7, or no dynamic shared memory. */
bool tcmma__sim_umma_desc(uint64_t desc, const char *what, sim_umma_desc *out);
/* The shared byte offset of the 16-byte chunk that holds element (i, j) (i
 * along M or N, j along K) of the canonical layout, T elements a chunk;
 * *u: the element's index in the chunk. */
long tcmma__sim_umma_chunk(const sim_umma_desc *d, bool mn_major, int t, int i, int j, int *u);
/* Reads bytes at shared offset at into out for what (issued by warp):
 * fails outside the dynamic shared memory, for bytes a cp.async has not
 * landed, and for bytes the async proxy does not see yet. */
bool tcmma__sim_umma_read(long at, size_t bytes, const char *what, int warp, void *out);

/* ---- Tensor Memory (tmem.c; lock held unless said) ---- */

enum { TMEM_LANES = 128, TMEM_COLS = 512 };

/* A new block: nothing allocated, the permit back, every word 0xffffffff
 * and readable; the block's end: fails for columns still allocated. */
void tcmma__sim_tmem_reset(void);
void tcmma__sim_tmem_block_end(unsigned block);
/* Marks the Tensor Memory used in this block (reset clears it then). */
void tcmma__sim_tmem_touch(void);
/* The calling thread leaves its block (lock NOT held): how many tcgen05.ld
 * results it held without a wait::ld (forgotten). */
unsigned tcmma__sim_tmem_lane_end(void);
/* tcgen05.alloc of ncols columns by warp (what names the instruction): the
 * lowest free run aligned to its size, its address in *taddr; dealloc of the
 * allocation starting at taddr with exactly ncols; relinquish forbids later
 * allocs. False after a failure naming the misuse. */
bool tcmma__sim_tmem_alloc(const char *what, unsigned ncols, int warp, uint32_t *taddr);
bool tcmma__sim_tmem_dealloc(const char *what, uint32_t taddr, unsigned ncols, int warp);
void tcmma__sim_tmem_relinquish(void);
/* Whether lanes [lane, lane+lanes) x columns [col, col+cols) lie in one
 * allocation; else fails naming what and thread. */
bool tcmma__sim_tmem_range(const char *what, int thread, unsigned lane, unsigned lanes,
                           unsigned col, unsigned cols);
/* The word at (lane, col), both in range. */
uint32_t *tcmma__sim_tmem_word(unsigned lane, unsigned col);
/* Tickets: the thread's open group of tcgen05.mma/cp (made on first use),
 * closed by its commit with the barrier and the phases completed when the
 * commit's arrival lands; a warp's tcgen05.st since its last wait::st, closed
 * by wait::st. tag marks a word as last written under a ticket. */
unsigned tcmma__sim_tmem_async_ticket(int thread);
void tcmma__sim_tmem_commit(int thread, const unsigned long long *bar, unsigned long complete_at);
unsigned tcmma__sim_tmem_st_ticket(int warp);
void tcmma__sim_tmem_st_done(int warp);
void tcmma__sim_tmem_tag(unsigned lane, unsigned col, unsigned ticket);
/* tcgen05.fence::after_thread_sync (after) or ::before_thread_sync by thread. */
void tcmma__sim_tmem_fence(int thread, bool after);
/* Whether thread may read the word (lane, col) now (pipelined: the read is
 * by a tcgen05.mma/cp the thread issues, ordered after the mma and cp issued
 * before it); else fails naming what, the writer and what is missing. */
bool tcmma__sim_tmem_readable(const char *what, int thread, bool pipelined, unsigned lane,
                              unsigned col);
/* tcgen05.ld: n values for thread's registers regs, which hold
 * TCMMA_SIM_TCGEN05_POISON until land (wait::ld) writes them. */
bool tcmma__sim_tmem_hold(int thread, uint32_t *regs, const uint32_t *values, unsigned n);
void tcmma__sim_tmem_land(int thread);

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
