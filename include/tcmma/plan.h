/* Planning a tile-MMA call: accept (arm, tiling, ldmatrix operands) or
 * decline with a reason, without any address (docs/design.md §5). */
#ifndef TCMMA_PLAN_H
#define TCMMA_PLAN_H

#include <stdbool.h>
#include "tcmma/resolve.h"
#include "tcmma/layout.h"

#ifdef __cplusplus
extern "C" {
#endif
#pragma GCC visibility push(default) /* public: the library builds with -fvisibility=hidden */

typedef enum { TCMMA_SPACE_GLOBAL, TCMMA_SPACE_SHARED, TCMMA_SPACE_THREAD } tcmma_space;

/* plain, or swizzled_b128: shared memory in rows of 16-byte units whose unit
 * index is XORed with row % 8 (row bytes a multiple of TCMMA_SWIZZLE_LINE). */
typedef enum { TCMMA_LAYOUT_PLAIN, TCMMA_LAYOUT_SWIZZLED_B128 } tcmma_layout;

/* The swizzled_b128 line: 8 units of 16 bytes, the span the XOR permutes. */
#define TCMMA_SWIZZLE_LINE 128

typedef enum {
#define TCMMA_DECLINE(ID, name, rule) TCMMA_DECLINE_##ID,
#include "tables/declines.def"
#undef TCMMA_DECLINE
  TCMMA_DECLINE_COUNT
} tcmma_decline;

/* One operand as stored. Its role is d: m x n, a: m x k, b: k x n;
 * transposed means stored as the transpose of the role (a: k x m, ...). */
typedef struct {
  tcmma_prec prec;
  bool transposed;
  long ld;            /* leading dimension in elements; 0: dense */
  tcmma_space space;
  tcmma_layout layout;
} tcmma_operand_desc;

/* The longest lane or warp expression a call may carry (characters): the
 * renderers expand it into fixed buffers. */
#define TCMMA_EXPR_MAX 128

/* The most warps a block holds (call.warps): a CUDA block has at most 1024
 * threads. */
#define TCMMA_WARPS_MAX (1024 / TCMMA_WARP_SIZE)

/* One call: D[m x n] += A[m x k] B[k x n]. */
typedef struct {
  int m, n, k;
  tcmma_operand_desc d, a, b;
  tcmma_scope scope;
  int cc;                 /* device compute capability; 0: any device */
  tcmma_numerics numerics;
  const char *lane;       /* lane expression; NULL: "threadIdx.x % 32" (borrowed;
                             at most TCMMA_EXPR_MAX characters, like warp) */
  int warps;              /* warps per block whose blocks share one kernel prologue
                             (wmma-f16-wide's stage tile is per warp); 0: one;
                             at most TCMMA_WARPS_MAX */
  const char *warp;       /* this warp's index, 0..warps-1; NULL: "threadIdx.x / 32"
                             when warps > 1 (borrowed) */
  const char *arm;        /* NULL: resolve; else the marker of the arm to use, which
                             must be on the triple's preference list under the
                             call's own numerics policy, in either scope (naming an
                             arm never lifts a numerics rule) (borrowed) */
} tcmma_call;

typedef struct {
  bool accepted;
  tcmma_decline reason;   /* TCMMA_DECLINE_NONE when accepted */
  char message[512];      /* names the value and the rule when declined */
  tcmma_arm arm;          /* the resolved arm (also set for most declines) */
  tcmma_call call;        /* the call, with ld filled in when it was 0 */
  int mt, nt, kt;         /* tiles along m, n, k */
  bool a_ldmatrix, b_ldmatrix;
} tcmma_plan;

/* Census of what an accepted plan's emission loads, derived from the rule the
 * renderer applies. */
typedef struct {
  bool a_ldmatrix, b_ldmatrix;
  int tile_m, tile_n, tile_k;   /* the arm's fragment tile */
  bool reloads;                 /* fragments reloaded per tile of the other operand
                                   (tcmma_arm_reloads) */
  int a_loads_per_k, b_loads_per_k; /* fragment loads per k step */
  int mma_per_statement;        /* mt * nt * kt */
  int mt, nt, kt;               /* tiles along m, n, k */
  bool a_vector, b_vector;      /* inline gathers: one 32-bit load per register */
  bool d_vector;                /* inline d load/store: one two-element access
                                   (float2, __half2, ...) per register pair */
  size_t shared_bytes;          /* kernel-prologue shared bytes this plan needs */
} tcmma_census;

/* Whether the renderers load an operand fragment of arm again for every tile
 * of the other operand's free axis (the load rule behind the census's loads
 * per k step); false for an out-of-range arm. */
bool tcmma_arm_reloads(tcmma_arm arm);

/* A call with the defaults: operands global, plain, not transposed, dense;
 * statement scope; any device; default numerics. Precisions f32/f16/f16. */
tcmma_call tcmma_call_default(void);

/* Plans call. TCMMA_OK: out->accepted. TCMMA_DECLINED: out->reason and
 * out->message say why (also copied to err). TCMMA_INVALID: the call itself
 * is malformed (NULL, precision or enum out of range). */
tcmma_status tcmma_plan_call(const tcmma_call *call, tcmma_plan *out, tcmma_error *err);

/* The census of an accepted plan; TCMMA_INVALID for a declined one. */
tcmma_status tcmma_plan_census(const tcmma_plan *plan, tcmma_census *out, tcmma_error *err);

/* Names of declines ("extents"), spaces ("global") and layouts ("swizzled");
 * "?" when out of range. tcmma_decline_rule: the rule sentence of a reason. */
const char *tcmma_decline_name(tcmma_decline reason);
const char *tcmma_decline_rule(tcmma_decline reason);
const char *tcmma_space_name(tcmma_space space);
const char *tcmma_layout_name(tcmma_layout layout);

/* The stored shape of operand op (a, b, or c for d) of call: rows x cols in
 * elements of the operand as stored (transposed swaps the role's axes), and
 * its leading dimension (call's ld, or cols when 0). */
void tcmma_operand_stored_shape(const tcmma_call *call, tcmma_operand op, long *rows,
                                long *cols, long *ld);

#pragma GCC visibility pop
#ifdef __cplusplus
}
#endif

#endif
