/* Planning a tile-MMA call: accept (arm, tiling, ldmatrix operands) or
 * decline with a reason, without any address (docs/design.md §5). */
#ifndef TCMMA_PLAN_H
#define TCMMA_PLAN_H

#include <stdbool.h>
#include "tcmma/resolve.h"
#include "tcmma/layout.h"
#include "tcmma/swizzle.h"

#ifdef __cplusplus
extern "C" {
#endif
#pragma GCC visibility push(default) /* public: the library builds with -fvisibility=hidden */

typedef enum { TCMMA_SPACE_GLOBAL = 0, TCMMA_SPACE_SHARED = 1, TCMMA_SPACE_THREAD = 2 } tcmma_space;

typedef enum {
#define TCMMA_DECLINE(ID, value, ...) TCMMA_DECLINE_##ID = (value),
#include "tables/declines.def"
#undef TCMMA_DECLINE
  /* the number of rows (the values: 0..COUNT-1 in any row order, mma/abi_values.c) */
  TCMMA_DECLINE_COUNT = 0
#define TCMMA_DECLINE(...) +1
#include "tables/declines.def"
#undef TCMMA_DECLINE
} tcmma_decline;

/* One coordinate of a sub-tile's origin in its parent tile, in elements:
 * value + expr, where expr (a warp-uniform C int expression, borrowed, at
 * most TCMMA_EXPR_MAX characters; NULL: none) is always a non-negative
 * multiple of `multiple` (0 means 1). The plan checks value and multiple
 * against the operand's layout (decline `subtile`); the renderers add the
 * origin to every address, so the expression is evaluated in the text. */
typedef struct {
  long value;
  const char *expr;
  long multiple;
} tcmma_coord;

/* One operand as stored: a sub-tile of a parent tile. Its role is d: m x n,
 * a: m x k, b: k x n; transposed means stored as the transpose of the role
 * (a: k x m, ...). The pointer expressions given to the renderers point at
 * the parent's base; the sub-tile starts at stored row row0, column col0 of
 * the parent (rows of ld elements, laid out by swizzle). */
typedef struct {
  tcmma_prec prec;
  bool transposed;
  long ld;            /* leading dimension of the parent, in elements; 0: dense */
  tcmma_space space;
  tcmma_swizzle swizzle; /* TCMMA_SWIZZLE_NONE: plain rows */
  tcmma_coord row0, col0; /* the sub-tile's origin; zero: the parent itself */
  /* block-scaled precisions (tcmma_prec_is_scaled) only, NULL and 0
   * otherwise: the ue8m0 scales, one byte per row of A (column of B) and
   * block of the arm's scale_block consecutive k, in a parent of their own
   * indexed by the operand's role coordinates in its parent: the scale of
   * a's element (i, k) is scale[i * scale_ld + k / scale_block] (b's (k, j):
   * scale[j * scale_ld + k / scale_block]), i, j and k counted from the
   * parent's origin like the elements (so the sub-tile's origin places the
   * scales too) */
  const char *scale;  /* pointer expression (borrowed; `const unsigned char *`,
                         at most TCMMA_EXPR_MAX characters) */
  long scale_ld;      /* scales per row of the scale parent; 0: dense (the
                         k origin's value plus k, over scale_block) */
} tcmma_operand_desc;

/* How the accumulator starts and how it is stored back (d's initial value
 * is d0): LOAD: acc = d0, d = acc (D += A B); ZERO: acc = 0, d = acc
 * (D = A B); SCALE: acc = 0, d = alpha * acc + beta * d0, in f32 with the
 * call's alpha and beta expressions (D = alpha A B + beta D); an s32
 * accumulator takes them as int and wraps in 32 bits, an f64 one computes
 * in double. */
typedef enum { TCMMA_INIT_LOAD = 0, TCMMA_INIT_ZERO = 1, TCMMA_INIT_SCALE = 2 } tcmma_init;

/* The register budget per lane when the call gives none: the accumulator
 * plus one k step of A and B fragments within it leaves room under the 255
 * registers a thread can hold for a second fragment buffer, addresses and
 * loop state. TCMMA_REGISTERS_MAX: the most a call may allow. */
#define TCMMA_REGISTERS_DEFAULT 192
#define TCMMA_REGISTERS_MAX 255
/* The registers one block may hold on every device from cc 7.0 to 12.x:
 * under __launch_bounds__(T), ptxas takes at most this over T a thread. */
#define TCMMA_REGISTERS_PER_BLOCK 65536

/* The most tile products (mt*nt*kt) one rendered statement or update may
 * unroll: beyond it NVRTC's time and the code size grow without bound; a
 * longer reduction is the caller's loop around fragment-scope updates. */
#define TCMMA_PRODUCTS_MAX 1024

/* The longest lane or warp expression a call may carry (characters): the
 * renderers expand it into fixed buffers. */
#define TCMMA_EXPR_MAX 128

/* The most warps a block holds (call.warps): a CUDA block has at most 1024
 * threads. */
#define TCMMA_WARPS_MAX (1024 / TCMMA_WARP_SIZE)

/* One call: D[m x n] += A[m x k] B[k x n]. Start one with
 * tcmma_call_default(): a size of 0 is TCMMA_INVALID. */
typedef struct {
  size_t size;            /* sizeof(tcmma_call) where the caller was built, set by
                             tcmma_call_default(): the library reads the fields it covers,
                             defaults the rest (docs/design.md §15) */
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
  tcmma_init init;        /* how the accumulator starts and is stored (LOAD) */
  const char *alpha, *beta; /* SCALE: float C expressions (borrowed; at most
                             TCMMA_EXPR_MAX characters); unused otherwise */
  int registers;          /* register budget per lane for the accumulator and one
                             k step of A and B fragments; 0: TCMMA_REGISTERS_DEFAULT;
                             at most TCMMA_REGISTERS_MAX */
} tcmma_call;

/* One operand's layout as the plan decided it (tcmma_operand_stored_shape of
 * its call, ld filled): the sub-tile's rows x cols as stored, in elements,
 * and its parent's leading dimension. */
typedef struct {
  long rows, cols, ld;
} tcmma_stored_shape;

typedef struct {
  bool accepted;
  tcmma_decline reason;   /* TCMMA_DECLINE_NONE when accepted */
  char message[512];      /* names the value and the rule when declined */
  tcmma_arm arm;          /* the resolved arm (also set for most declines) */
  tcmma_call call;        /* the call, with ld filled in when it was 0 */
  int mt, nt, kt;         /* tiles along m, n, k */
  bool a_ldmatrix, b_ldmatrix;
  tcmma_stored_shape stored[3]; /* indexed by tcmma_operand (c: d); computed once by the
                                   planner (every accepted plan), read by the renderers
                                   and the census */
} tcmma_plan;

/* Census of what an accepted plan's emission loads, derived from the rule the
 * renderer applies. Its field order is final under libtcmma.so.2 (the ones
 * added in the middle under .so.1 stay where they are): it is written whole
 * and embedded in tcmma_gemm_plan, so it changes only with the soname, new
 * fields then at the end (docs/design.md §15). */
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
  int a_ldmatrix_x4, a_ldmatrix_x2; /* ldmatrix.x4 / .x2 instructions per k step loading
                                   a: one 8x8 matrix per fragment register, four per
                                   .x4, the rest in a .x2 and a .x1 (one .x4 per
                                   m16n8k16 tile) */
  int b_ldmatrix_x4, b_ldmatrix_x2; /* ... loading b (m16n8k16: one .x4 per pair of
                                   tiles, one .x2 for a last odd tile) */
  int registers;                /* 32-bit registers per lane the accumulator and one k
                                   step of A and B fragments hold (wmma: the elements
                                   a lane's share of each tile needs at least) */
  int a_ldmatrix_x1, b_ldmatrix_x1; /* ldmatrix.x1 per k step: a last single matrix
                                   (fragments of one register) */
} tcmma_census;

/* Whether the renderers load an operand fragment of arm again for every tile
 * of the other operand's free axis (the load rule behind the census's loads
 * per k step); false for an out-of-range arm. */
bool tcmma_arm_reloads(tcmma_arm arm);

/* Fills the first `size` bytes of *out (size: the caller's sizeof(tcmma_call))
 * with the defaults: operands global, plain, not transposed, dense; statement
 * scope; any device; default numerics; precisions f32/f16/f16; out->size =
 * size. For bindings, which cannot call the inline tcmma_call_default. NULL
 * or a size too small to hold the size field does nothing. */
void tcmma_call_init(tcmma_call *out, size_t size);

/* The defaults as a value. Inline, so that the size is the caller's own
 * sizeof, not the library's. */
static inline tcmma_call tcmma_call_default(void) {
  tcmma_call c;
  tcmma_call_init(&c, sizeof c);
  return c;
}

/* Plans call. TCMMA_OK: out->accepted. TCMMA_DECLINED: out->reason and
 * out->message say why (also copied to err). TCMMA_INVALID: the call itself
 * is malformed (NULL, precision or enum out of range). */
tcmma_status tcmma_plan_call(const tcmma_call *call, tcmma_plan *out, tcmma_error *err);

/* The census of an accepted plan; TCMMA_INVALID for a declined one or one
 * changed after planning (as the renderers, include/tcmma/render.h). */
tcmma_status tcmma_plan_census(const tcmma_plan *plan, tcmma_census *out, tcmma_error *err);

/* Names of declines ("extents"), spaces ("global") and init modes ("zero");
 * "?" when out of range. tcmma_decline_rule: the rule sentence of a reason. */
const char *tcmma_decline_name(tcmma_decline reason);
const char *tcmma_decline_rule(tcmma_decline reason);
const char *tcmma_space_name(tcmma_space space);
const char *tcmma_init_name(tcmma_init init);

/* Parses an init mode ("load", "zero", "scale") into *out; TCMMA_INVALID
 * naming the value and the valid names otherwise. */
tcmma_status tcmma_init_parse(const char *name, tcmma_init *out, tcmma_error *err);

/* The 32-bit registers one lane's share of operand op's tile of arm holds
 * (a, b: one k step of one tile, plus the scale register of a block-scaled
 * arm; c: one accumulator tile): the tile's elements over the warp at
 * storage width (acc precision for c). 0 for an out-of-range arm or op. */
int tcmma_tile_registers(tcmma_arm arm, tcmma_operand op, tcmma_prec prec);

/* The stored shape of operand op (a, b, or c for d) of call: rows x cols in
 * elements of the sub-tile as stored (transposed swaps the role's axes), and
 * its parent's leading dimension (call's ld, or col0's value + cols when 0). */
void tcmma_operand_stored_shape(const tcmma_call *call, tcmma_operand op, long *rows,
                                long *cols, long *ld);

/* The scale parent of a block-scaled operand op (a or b) of call with
 * blocks of `block` k elements: its rows (the free axis's origin value
 * plus m for a, n for b), its scales per row and its leading dimension
 * (scale_ld, or dense: the k origin's value plus k, over block). The
 * origin's coordinates along the free axis and along k come back too. */
void tcmma_operand_scale_shape(const tcmma_call *call, tcmma_operand op, int block, long *rows,
                               long *cols, long *ld, const tcmma_coord **free_origin,
                               const tcmma_coord **k_origin);

#pragma GCC visibility pop
#ifdef __cplusplus
}
#endif

#endif
