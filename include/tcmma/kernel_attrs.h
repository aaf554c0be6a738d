/* Kernel attributes as values (tables/kernel_attrs.def): launch bounds,
 * __maxnreg__, __cluster_dims__, __grid_constant__ and setmaxnreg, each a
 * row with its floor; the one signature every tcmma kernel is rendered
 * with, and the setmaxnreg statement of warp-specialised kernels. */
#ifndef TCMMA_KERNEL_ATTRS_H
#define TCMMA_KERNEL_ATTRS_H

#include <stdbool.h>
#include <stddef.h>
#include "tcmma/buf.h"
#include "tcmma/ptx.h"
#include "tcmma/render.h"
#include "tcmma/status.h"

#ifdef __cplusplus
extern "C" {
#endif
#pragma GCC visibility push(default) /* public: the library builds with -fvisibility=hidden */

/* The rows of tables/kernel_attrs.def. */
typedef enum {
#define TCMMA_KERNEL_ATTR(ID, value, ...) TCMMA_KERNEL_ATTR_##ID = (value),
#include "tables/kernel_attrs.def"
#undef TCMMA_KERNEL_ATTR
  /* the number of rows (the values: 0..COUNT-1 in any row order, mma/abi_values.c) */
  TCMMA_KERNEL_ATTR_COUNT = 0
#define TCMMA_KERNEL_ATTR(...) +1
#include "tables/kernel_attrs.def"
#undef TCMMA_KERNEL_ATTR
} tcmma_kernel_attr;

/* A row's floor as a constant, for the tables that name it
 * (tables/markers.def): TCMMA_KERNEL_ATTR_FLOOR(CLUSTER_DIMS) is 90. */
enum {
#define TCMMA_KERNEL_ATTR(ID, value, cuda, host, floor, ...) TCMMA_KERNEL_ATTR_FLOOR_##ID = (floor),
#include "tables/kernel_attrs.def"
#undef TCMMA_KERNEL_ATTR
};
#define TCMMA_KERNEL_ATTR_FLOOR(ID) TCMMA_KERNEL_ATTR_FLOOR_##ID

/* One row of tables/kernel_attrs.def (its columns, documented there). */
typedef struct {
  const char *id;        /* "CLUSTER_DIMS" */
  const char *cuda;      /* "__cluster_dims__" */
  const char *host;      /* "TCMMA_SIM_CLUSTER_DIMS" */
  int floor;             /* 90 */
  tcmma_ptx_suffix suffix;
  int lo, hi, step;      /* the argument's values; 0 0 0: none */
  const char *directive; /* ".reqnctapercluster"; "" none */
} tcmma_kernel_attr_info;

/* Row a; NULL when a is out of range. */
const tcmma_kernel_attr_info *tcmma_kernel_attr_get(tcmma_kernel_attr a);

/* The attributes of one kernel. 0 everywhere means "none": the signature
 * is the bare `extern "C" __global__ void name(params)`. Start one with
 * tcmma_kernel_attrs_default() or TCMMA_KERNEL_ATTRS_INIT: a size of 0 is
 * TCMMA_INVALID. Grows only at the end (size first). */
typedef struct {
  size_t size;        /* sizeof(tcmma_kernel_attrs) where the caller was built */
  int max_threads;    /* __launch_bounds__'s threads per block; 0: no launch bounds */
  int min_blocks;     /* its minimum resident blocks per SM (0: not given) */
  int cluster_blocks; /* its maximum blocks per cluster (sm_90; never with cluster); 0: none */
  int max_regs;       /* __maxnreg__ (never with max_threads: NVRTC's rule); 0: none */
  int cluster[3];     /* __cluster_dims__ x, y, z (sm_90); all 0: none */
  /* setmaxnreg counts of a warp-specialised kernel (sm_90a): the producer
   * warp group lowers its registers to dec, the consumers raise theirs to
   * inc; 0: none. The kernel's body renders them (tcmma_render_setmaxnreg);
   * the check needs the register count at entry known to ptxas. */
  int setmaxnreg_dec, setmaxnreg_inc;
} tcmma_kernel_attrs;

/* An initializer (C): TCMMA_KERNEL_ATTRS_INIT(.max_threads = 256, .min_blocks = 1). */
#define TCMMA_KERNEL_ATTRS_INIT(...) {.size = sizeof(tcmma_kernel_attrs), __VA_ARGS__}

/* No attributes, the size set; inline, so the size is the caller's sizeof. */
static inline tcmma_kernel_attrs tcmma_kernel_attrs_default(void) {
  tcmma_kernel_attrs a = {0};
  a.size = sizeof a;
  return a;
}

/* TCMMA_OK when attrs can be rendered: each value in its row's range,
 * min_blocks and cluster_blocks only with max_threads, max_regs never with
 * it, all three cluster dims or none and never with cluster_blocks, setmaxnreg counts only where the
 * register count at entry is known. TCMMA_INVALID naming the value and
 * what was expected otherwise. NULL is no attributes. */
tcmma_status tcmma_kernel_attrs_check(const tcmma_kernel_attrs *attrs, tcmma_error *err);

/* The lowest cc attrs need (0: any) and, in *suffix (may be NULL), the
 * targets that hold it; attrs is assumed checked. */
int tcmma_kernel_attrs_floor(const tcmma_kernel_attrs *attrs, tcmma_ptx_suffix *suffix);

/* Appends a kernel's signature in dialect: `extern "C" __global__ void`,
 * the attributes, then `name(params)` (params "" is an empty list) without
 * the body. Errors: those of tcmma_kernel_attrs_check; TCMMA_INVALID for a
 * bad dialect, a NULL out or params, a name that is no C identifier. */
tcmma_status tcmma_render_kernel_signature(tcmma_dialect dialect, const tcmma_kernel_attrs *attrs,
                                           const char *name, const char *params, tcmma_buf *out,
                                           tcmma_error *err);

/* Which way a setmaxnreg moves a warp group's registers. */
typedef enum { TCMMA_SETMAXNREG_DEC = 0, TCMMA_SETMAXNREG_INC = 1 } tcmma_setmaxnreg_dir;

/* Appends one statement, indented by depth two-space steps, that sets the
 * executing warp group's registers per thread to count (setmaxnreg; sm_90a):
 * every warp of the group must run it. TCMMA_INVALID when count is not in
 * SETMAXNREG's row (a multiple of 8 in 24..256) or dir, dialect or out is bad. */
tcmma_status tcmma_render_setmaxnreg(tcmma_dialect dialect, tcmma_setmaxnreg_dir dir, int count,
                                     int depth, tcmma_buf *out, tcmma_error *err);

#pragma GCC visibility pop
#ifdef __cplusplus
}
#endif

#endif
