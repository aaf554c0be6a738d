/* The hand-written host-dialect kernel of the tcgen05 simulator tests
 * (tests/util_tcgen05.c): 128 threads that allocate Tensor Memory, store D0,
 * A and the block scales with tcgen05.st (or copy the scales with
 * tcgen05.cp), let thread 0 issue one tcgen05.mma and commit it to an
 * mbarrier, wait, read D back with tcgen05.ld and free the memory; each
 * step can be broken on purpose (the misuse tests). */
#ifndef TCMMA_TEST_UTIL_TCGEN05_H
#define TCMMA_TEST_UTIL_TCGEN05_H

#include <stdbool.h>
#include <stdint.h>
#include "tcmma/sim.h"

/* Shared memory: A's tile, B's tile, the scale sources of tcgen05.cp, the
 * mbarrier and the allocation's address slot. */
enum { TC_A_AT = 0, TC_B_AT = 16384, TC_SF_AT = 49152, TC_BAR_AT = 53248, TC_SLOT_AT = 53256,
       TC_SMEM = 54272 };
/* Tensor Memory columns: D, A, the A and B scales. */
enum { TC_D_COL = 0, TC_A_COL = 256, TC_SFA_COL = 264, TC_SFB_COL = 272, TC_COLS = 512 };

/* What the kernel breaks (0: nothing). */
typedef enum {
  TC_OK,
  TC_NO_DEALLOC,      /* never frees */
  TC_DOUBLE_DEALLOC,  /* frees twice */
  TC_DEALLOC_SIZE,    /* frees 256 of 512 columns */
  TC_ALLOC_AFTER_RELINQUISH,
  TC_MMA_OUTSIDE,     /* D at column 480 (N spills past 512... into no allocation) */
  TC_LD_OUTSIDE,      /* allocates 256 columns, reads column 256.. */
  TC_LD_WRONG_QUARTER,/* warp 1 reads lanes 0..31 */
  TC_LD_BEFORE_WAIT,  /* tcgen05.ld of D without waiting on the commit's barrier */
  TC_NO_COMMIT,       /* thread 0 never commits: the wait deadlocks */
  TC_NO_WAIT_LD,      /* reads the registers before tcgen05.wait::ld, waits after */
  TC_NEVER_WAIT_LD,   /* never tcgen05.wait::ld */
  TC_ST_NO_WAIT,      /* the A/scale stores are not waited for (wait::st) */
  TC_SCALE_NOT_DUP,   /* the scale in lane quarter 2 differs */
  TC_OBSERVER_ONLY,   /* only thread 0 waits on the barrier, no __syncthreads after */
  TC_LD_UNCOMMITTED,  /* no commit and no wait: D read while its mma is not committed */
  TC_ST_OUTSIDE,      /* allocates 256 columns, stores A at column 256.. */
  TC_CP_OUTSIDE,      /* allocates 256 columns, copies the scales to column 264.. */
  TC_NO_FENCE_AFTER,  /* no tcgen05.fence::after_thread_sync between the wait and the ld */
  TC_NO_FENCE_BEFORE, /* no tcgen05.fence::before_thread_sync after the stores */
  TC_NO_FENCE_AFTER_ST, /* no tcgen05.fence::after_thread_sync after the stores' barrier */
  TC_ST_NO_SYNC,      /* warps 1-3 signal their stores through a plain memory flag, no
                         __syncthreads(): the model does not see such a synchronization */
  TC_A_LANE,          /* A in Tensor Memory at lane 16 while D sits at lane 0 (M 64) */
  TC_LD_NONUNIFORM,   /* lane 5 passes another address to tcgen05.ld */
  TC_OWN_WARP_ST,     /* not broken: warp 0 stores its quarter after the __syncthreads(),
                         and its thread 0 issues the mma after warp 0's wait::st */
} tc_break;

typedef struct {
  /* the instruction */
  const char *opcode;
  bool scaled, a_tmem, cp_scales;
  unsigned idesc;
  uint64_t adesc, bdesc, sfa_desc, sfb_desc;
  unsigned d_lane; /* the lane field of d-tmem and a-tmem (16: M 64's upper half) */
  int enable_d;
  tc_break brk;
  /* the data (per Tensor Memory lane) */
  unsigned char smem[TC_SMEM];
  uint32_t a_words[128][8], d0[128][256], sfa[128][4], sfb[128][8];
  /* what the kernel read back */
  uint32_t out[128][256];
  uint32_t early[4]; /* TC_NO_WAIT_LD: thread 0's registers before the wait */
  int ready;         /* TC_ST_NO_SYNC: warps done storing */
} tc_run;

/* Runs r's kernel on a block of 128 threads. */
tcmma_status tc_launch(tc_run *r, tcmma_error *err);

#endif
