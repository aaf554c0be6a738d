/* Whole GEMM kernels, D = alpha*A*B + beta*C, one block tile per CUDA block
 * (docs/design.md §6, GEMM kernels; docs/emit.md, GEMM): a planner that
 * accepts or declines with a reason, and a renderer built on the tile-MMA
 * pieces, the swizzle atoms and the stage copies. */
#ifndef TCMMA_GEMM_H
#define TCMMA_GEMM_H

#include <stddef.h>
#include "tcmma/buf.h"
#include "tcmma/plan.h"
#include "tcmma/render.h"

#ifdef __cplusplus
extern "C" {
#endif
#pragma GCC visibility push(default) /* public: the library builds with -fvisibility=hidden */

typedef enum {
#define TCMMA_GEMM_DECLINE(ID, value, ...) TCMMA_GEMM_DECLINE_##ID = (value),
#include "tables/gemm_declines.def"
#undef TCMMA_GEMM_DECLINE
  /* the number of rows (the values: 0..COUNT-1 in any row order, mma/abi_values.c) */
  TCMMA_GEMM_DECLINE_COUNT = 0
#define TCMMA_GEMM_DECLINE(...) +1
#include "tables/gemm_declines.def"
#undef TCMMA_GEMM_DECLINE
} tcmma_gemm_decline;

/* The GEMM's kernel kinds (tables/gemm_kernels.def; docs/emit.md, The
 * Hopper GEMM): asked for in tcmma_gemm_opts.kernel, reported in
 * tcmma_gemm_info.kernel. */
typedef enum {
#define TCMMA_GEMM_KERNEL(ID, value, ...) TCMMA_GEMM_KERNEL_##ID = (value),
#include "tables/gemm_kernels.def"
#undef TCMMA_GEMM_KERNEL
  TCMMA_GEMM_KERNEL_COUNT = 0
#define TCMMA_GEMM_KERNEL(...) +1
#include "tables/gemm_kernels.def"
#undef TCMMA_GEMM_KERNEL
} tcmma_gemm_kernel;

/* The name of kind ("wgmma") and its sentence; "?" out of range.
 * tcmma_gemm_kernel_parse: the kind named name; TCMMA_INVALID naming the
 * value and every name otherwise (err may be NULL). */
const char *tcmma_gemm_kernel_name(tcmma_gemm_kernel kind);
const char *tcmma_gemm_kernel_text(tcmma_gemm_kernel kind);
tcmma_status tcmma_gemm_kernel_parse(const char *name, tcmma_gemm_kernel *out, tcmma_error *err);

/* The GEMM's epilogue operations, applied in the caller's order to each
 * element after alpha and beta (tables/epilogues.def; docs/emit.md, GEMM
 * epilogues). */
typedef enum {
#define TCMMA_EPILOGUE(ID, value, ...) TCMMA_EPILOGUE_##ID = (value),
#include "tables/epilogues.def"
#undef TCMMA_EPILOGUE
  TCMMA_EPILOGUE_COUNT = 0
#define TCMMA_EPILOGUE(...) +1
#include "tables/epilogues.def"
#undef TCMMA_EPILOGUE
} tcmma_epilogue_kind;

/* Where a bias or scale vector runs (tables/epilogue_axes.def). */
typedef enum {
#define TCMMA_EPILOGUE_AXIS(ID, value, ...) TCMMA_EPILOGUE_AXIS_##ID = (value),
#include "tables/epilogue_axes.def"
#undef TCMMA_EPILOGUE_AXIS
  TCMMA_EPILOGUE_AXIS_COUNT = 0
#define TCMMA_EPILOGUE_AXIS(...) +1
#include "tables/epilogue_axes.def"
#undef TCMMA_EPILOGUE_AXIS
} tcmma_epilogue_axis;

/* The most operations one epilogue lists. */
#define TCMMA_EPILOGUE_OPS_MAX 16
/* The longest hook body (bytes, without its NUL). */
#define TCMMA_EPILOGUE_BODY_MAX 4096

/* One epilogue operation. Start one with tcmma_epilogue_op_default(); every
 * element of an array carries the same size (the caller's sizeof). Fields
 * an op does not take are ignored. */
typedef struct {
  size_t size;              /* sizeof(tcmma_epilogue_op) where the caller was built */
  tcmma_epilogue_kind kind;
  tcmma_epilogue_axis axis; /* bias: ROW or COL; scale: TENSOR, ROW or COL */
  tcmma_prec prec;          /* cvt: f32, f16, bf16, e4m3 or e5m2 (d's storage) */
  float lo, hi;             /* clamp: lo <= hi, neither NaN */
  const char *body;         /* hook: the statements of `float f(float x, int row, int
                               col)`, valid CUDA and C (borrowed; not blank, braces
                               balanced, at most TCMMA_EPILOGUE_BODY_MAX bytes) */
} tcmma_epilogue_op;

/* Fills the first `size` bytes of *out with the defaults (kind RELU, axis
 * COL, prec f32, lo 0, hi 0, body NULL); out->size = size. NULL or a size
 * too small for the size field does nothing. */
void tcmma_epilogue_op_init(tcmma_epilogue_op *out, size_t size);

/* The defaults as a value, with the caller's own sizeof. */
static inline tcmma_epilogue_op tcmma_epilogue_op_default(void) {
  tcmma_epilogue_op o;
  tcmma_epilogue_op_init(&o, sizeof o);
  return o;
}

/* The name of kind ("gelu-tanh") or axis ("row"); "?" out of range.
 * tcmma_epilogue_parse: the kind named name; TCMMA_INVALID naming the value
 * and every name otherwise (err may be NULL). */
const char *tcmma_epilogue_name(tcmma_epilogue_kind kind);
const char *tcmma_epilogue_axis_name(tcmma_epilogue_axis axis);
tcmma_status tcmma_epilogue_parse(const char *name, tcmma_epilogue_kind *out, tcmma_error *err);
/* What kind takes, as the CLI spells it after the name: "" (nothing),
 * "row|col" or "tensor|row|col" (axis), "lo:hi" (lo, hi), "prec" (prec),
 * "body" (body); "?" out of range. */
const char *tcmma_epilogue_args(tcmma_epilogue_kind kind);

/* The defaults of a call's zero fields: a 128x128 block tile over 2x2
 * warps and a 3-stage cp.async ring; block_k TCMMA_GEMM_K_STEPS of the
 * arm's k, at least TCMMA_GEMM_BLOCK_K (32 for bf16, 64 for fp8, 128 for
 * packed fp4). 1-byte operands (fp8, the MX containers, packed fp4) keep
 * their fragments in registers in a warp tile of at most
 * TCMMA_GEMM_BYTE_WARP_ROWS_MAX rows (32x64, not 64x64): where the 2x2
 * grid's would be taller they take a TCMMA_GEMM_BYTE_WARPS_M x _N grid. */
#define TCMMA_GEMM_BLOCK_M 128
#define TCMMA_GEMM_BLOCK_N 128
#define TCMMA_GEMM_BLOCK_K 32
#define TCMMA_GEMM_K_STEPS 2
#define TCMMA_GEMM_WARPS_M 2
#define TCMMA_GEMM_WARPS_N 2
#define TCMMA_GEMM_BYTE_WARPS_M 4
#define TCMMA_GEMM_BYTE_WARPS_N 2
#define TCMMA_GEMM_BYTE_WARP_ROWS_MAX 32
#define TCMMA_GEMM_STAGES 3
#define TCMMA_GEMM_STAGES_MAX 4

/* The wgmma kernel's defaults for a call's zero fields (docs/emit.md, The
 * Hopper GEMM): a 128x256 block tile, k tiles of one 128-byte swizzle span
 * (64 bf16 or f16, 128 fp8 elements), a warp grid of 16-row warps (block_m
 * / 16 x 1: two consumer warpgroups of m64 x n256), 4 stages; at most
 * WGMMA_STAGES_MAX stages (shared memory decides below that). Its producer
 * warpgroup lowers its registers to WGMMA_PRODUCER_REGISTERS (setmaxnreg);
 * the consumers raise theirs to what the block's register file leaves. */
#define TCMMA_GEMM_WGMMA_BLOCK_M 128
#define TCMMA_GEMM_WGMMA_BLOCK_N 256
#define TCMMA_GEMM_WGMMA_STAGES 4
#define TCMMA_GEMM_WGMMA_STAGES_MAX 8
#define TCMMA_GEMM_WGMMA_PRODUCER_REGISTERS 40
/* The registers a consumer thread takes beyond its accumulators (the
 * descriptors, the barriers' stage and phase, the epilogue's indices):
 * an upper bound fitted on ptxas -v at sm_90a (docs/emit.md, The Hopper
 * GEMM); a plan whose consumer count is below accumulators + this
 * declines `registers`. */
#define TCMMA_GEMM_WGMMA_REGISTER_OVERHEAD 48

/* The tcgen05 kernel's defaults for a call's zero fields (docs/emit.md, The
 * Blackwell GEMM): a 128x256 block tile (one tcgen05.mma of m128 x n256
 * per k step), k tiles of one 128-byte swizzle span, 4 stages; at most
 * TCGEN05_STAGES_MAX (shared memory decides below that). Its block is an
 * epilogue warpgroup, a TMA producer warp and an MMA warp (192 threads);
 * each thread is expected to take at most TCGEN05_REGISTERS registers (an
 * upper bound fitted on ptxas -v at sm_100f over the GEMM matrix's tcgen05
 * cases and every epilogue op, CUDA 13.0). */
#define TCMMA_GEMM_TCGEN05_BLOCK_M 128
#define TCMMA_GEMM_TCGEN05_BLOCK_N 256
#define TCMMA_GEMM_TCGEN05_STAGES 4
#define TCMMA_GEMM_TCGEN05_STAGES_MAX 8
#define TCMMA_GEMM_TCGEN05_REGISTERS 96

/* Blocks run in groups of this many block rows, down each column of the
 * group first, so the blocks resident at once share A and B tiles in L2. */
#define TCMMA_GEMM_GROUP_ROWS 8

/* The largest M, N or K a GEMM takes: every element offset the kernel
 * computes stays an int. */
#define TCMMA_GEMM_EXTENT_MAX (1 << 20)

/* The most rows of blocks a grid may have: CUDA's limit on gridDim.y. */
#define TCMMA_GEMM_GRID_Y_MAX 65535
/* The most blocks along grid z (batch x split_k): CUDA's limit on gridDim.z. */
#define TCMMA_GEMM_GRID_Z_MAX 65535

/* The registers per thread the plan expects beyond the accumulator and one
 * k step of A and B fragments (the warp tile's census): OVERHEAD, plus
 * PER_K_STEP per k step of a k tile, PER_COPY per 16-byte copy a thread
 * issues per k tile, BYTE_OPERANDS when an operand is 1-byte (fp8) and
 * PREDICATED when M, N or K is ragged. An upper bound fitted on ptxas -v at
 * each plan's cc over 150 random configurations (seed 0x99; CUDA 13.0: the
 * estimate is 8..180 above ptxas, ~60 on average; ptxas takes registers
 * freely below 255 with no launch bound, so a tight figure is not to be
 * had); tests/test_gemm_sample.c checks it on another seed. */
#define TCMMA_GEMM_REGISTER_OVERHEAD 32
#define TCMMA_GEMM_REGISTERS_PER_K_STEP 2
#define TCMMA_GEMM_REGISTERS_PER_COPY 6
#define TCMMA_GEMM_REGISTERS_BYTE_OPERANDS 80
#define TCMMA_GEMM_REGISTERS_PREDICATED 16
/* And NARROW_COPY per copy beyond the 16-byte ones when an operand's class
 * is under 16 bytes (fitted on the GEMM matrix's 2-, 4- and 8-byte rows). */
#define TCMMA_GEMM_REGISTERS_PER_NARROW_COPY 2
/* And K_ROWS_UNROLLED when the ring's steady state is unrolled by its
 * stages (two or more; not where ptxas emulates the arm) and an operand's
 * stored rows run along k (A transposed, B not): fitted on ptxas -v over
 * the GEMM matrix and the shipped kernels (CUDA 13.0: ptxas took 4 to 8
 * registers above the estimate without it; docs/emit.md, GEMM main loop). */
#define TCMMA_GEMM_REGISTERS_K_ROWS_UNROLLED 10
/* And EMULATED when ptxas emulates the arm's mma.sync on the plan's cc
 * (tcmma_arm_sass_products above 1: fp8 on 9.0 to 11.0 unpacks operands to
 * f16 for two HMMA per product): fitted on ptxas -v at sm_90 and sm_100
 * over the fp8 kernels the plan accepts at sm_89 (docs/emit.md, GEMM
 * registers), where ptxas takes 1.5 to 3 times the registers of sm_89. */
#define TCMMA_GEMM_REGISTERS_EMULATED 24

/* The GEMM's default budget per thread (a call's registers 0): all a thread
 * may have, since a block of the GEMM runs few warps (not the one-warp
 * emitter's TCMMA_REGISTERS_DEFAULT). */
#define TCMMA_GEMM_REGISTERS TCMMA_REGISTERS_MAX

/* One GEMM: D[m x n] = alpha * A[m x k] B[k x n] + beta * C[m x n], C stored
 * like D (C may be D). Operands are in global memory: d, a, b give the
 * precision, `transposed` (a, b: stored as the transpose of the role) and
 * ld (elements; 0: dense); their space, swizzle and origin must be left at
 * their defaults. Zero tile, warp and stage fields take the defaults. Start
 * one with tcmma_gemm_call_default(): a size of 0 is TCMMA_INVALID. */
typedef struct {
  size_t size;             /* sizeof(tcmma_gemm_call) where the caller was built, set by
                              tcmma_gemm_call_default(): the library reads the fields it
                              covers, defaults the rest (docs/design.md §15) */
  int m, n, k;
  tcmma_operand_desc d, a, b;
  int cc;                  /* device compute capability; 0: any device */
  tcmma_numerics numerics;
  const char *arm;         /* NULL: resolve (as tcmma_call.arm; borrowed) */
  int block_m, block_n, block_k;
  int warps_m, warps_n;    /* the warp grid over the block tile */
  int stages;              /* 1..TCMMA_GEMM_STAGES_MAX k tiles in flight */
  bool unpredicated;       /* no bounds checks: decline sizes that are not
                              multiples of the block tile */
  int registers;           /* budget per thread; 0: TCMMA_GEMM_REGISTERS */
  const char *name;        /* the kernel's name (a C identifier); NULL: "tcmma_gemm" */
} tcmma_gemm_call;

typedef struct {
  bool accepted;
  tcmma_gemm_decline reason;
  char message[640];       /* names the value and the rule when declined */
  tcmma_gemm_call call;    /* the call with defaults and ld filled in */
  tcmma_arm arm;           /* the resolved arm (TCMMA_ARM_NONE before resolution) */
  int warp_m, warp_n;      /* one warp's tile; its k is the block's */
  tcmma_census census;     /* the warp tile's census over one k tile: a, b read
                              from the shared stages, d the epilogue's f32 tile */
  long a_rows, a_cols, b_rows, b_cols; /* the stages' tiles as stored (elements) */
  tcmma_swizzle a_swizzle, b_swizzle; /* and their swizzle atoms */
  long epilogue_ld;        /* f32 elements per row of the epilogue tile */
  bool predicated;         /* M, N or K not multiples of the block tile */
  int threads;             /* per block */
  unsigned grid[3];        /* blocks: n tiles, m tiles, 1 */
  int k_tiles;             /* block-k tiles of the reduction */
  size_t stage_bytes;      /* one stage: the block's A and B tiles */
  size_t epilogue_bytes;   /* the f32 block tile the epilogue reads */
  size_t shared_bytes;     /* dynamic shared memory per block */
  size_t shared_max;       /* what the device (or every device of the arm) allows */
  int registers;           /* registers per thread expected */
  int mma_per_k_tile;      /* per warp */
  int ldmatrix_per_k_tile; /* per warp */
  int cp_async_per_k_tile; /* per thread: 16-byte copies of A and B */
} tcmma_gemm_plan;

/* The alignment classes a GEMM operand's rows and base pointer may have
 * (bytes): 16-byte cp.async.cg at 16, cp.async.ca of 8 or 4 bytes, plain
 * loads of 2 or 1 bytes; never below the element's bytes. */
#define TCMMA_GEMM_ALIGN_MAX 16

/* The GEMM's options beyond tcmma_gemm_call (issue #22; docs/emit.md,
 * GEMM), a struct of its own because tcmma_gemm_call is embedded in the
 * frozen tcmma_gemm_plan (docs/design.md §15): size first, fields appended
 * at the end. Start one with tcmma_gemm_opts_default(): a size of 0 is
 * TCMMA_INVALID. All zero: the fixed-shape kernel of tcmma_gemm_plan_call. */
typedef struct {
  size_t size;             /* sizeof(tcmma_gemm_opts) where the caller was built */
  bool shape_args;         /* shape-generic: m, n, k, lda, ldb, ldc, ldd are kernel
                              arguments; the call's sizes and ld are one shape the
                              kernel serves (the plan's grid is for it) */
  int a_align, b_align, d_align; /* alignment class (bytes, a power of two, at least
                              the element, at most TCMMA_GEMM_ALIGN_MAX) of the
                              operand's base and rows (d's class is c's too); 0: the
                              widest the call's ld allows */
  int batch;               /* GEMMs in one launch, over grid z; 0: 1 (with shape_args: a
                              batched kernel, the count its grid's; this one the example) */
  bool pointer_array;      /* batch: d, a, b, c are arrays of `batch` pointers
                              (`T *const *`) instead of one base each */
  long long stride_a, stride_b, stride_d; /* strided batch: elements from one matrix to the
                              next (c's is d's); 0: dense (stored rows x ld). With
                              shape_args the kernel takes stride_a, stride_b, stride_c and
                              stride_d as arguments instead */
  int split_k;             /* slices of K over grid z (0: 1, at most the k tiles and
                              TCMMA_GEMM_SPLIT_K_MAX): each slice stores its f32 partial
                              tile in the workspace and the slice that arrives last sums
                              every slice's in slice order (deterministic) before the
                              epilogue */
  const tcmma_epilogue_op *epilogue; /* the epilogue: epilogue[0..epilogue_count) applied in
                              order to each element after alpha and beta (borrowed; every
                              element of the caller's size; NULL with a count of 0) */
  int epilogue_count;      /* 0..TCMMA_EPILOGUE_OPS_MAX; 0: alpha and beta only */
  /* Fields past the old struct's tail padding (tail_pad), so that an old
   * caller's size never covers them. */
  int tail_pad;            /* unused, never read: an old caller's size covers it with whatever
                              it held */
  tcmma_gemm_kernel kernel; /* the kernel kind: AUTO (0: the tcgen05 kernel on cc 10.x or
                              the wgmma kernel on cc 9.0 where it serves the call, else
                              mma.sync), MMA_SYNC, WGMMA or TCGEN05 (declines `kernel`
                              naming what it cannot serve). NULL opts and opts from before
                              this field plan MMA_SYNC: their kernel takes no tensor maps */
} tcmma_gemm_opts;

/* The most K slices a split-K plan takes. */
#define TCMMA_GEMM_SPLIT_K_MAX 64

/* What a plan made with options serves and how its loader copies, written
 * by tcmma_gemm_plan_opts up to the caller's size (size first, grows at
 * the end). */
typedef struct {
  size_t size;             /* sizeof(tcmma_gemm_info) where the caller was built */
  bool shape_args;         /* the kernel takes its shape as arguments */
  int a_align, b_align, d_align; /* the classes planned (bytes) */
  int a_copy_bytes, b_copy_bytes; /* bytes per copy of the loader */
  bool a_plain, b_plain;   /* plain loads (below cc 80, or a class under 4 bytes)
                              instead of cp.async */
  bool a_edge, b_edge;     /* tiles at a ragged edge take a separate predicated
                              copy path; interior tiles copy unpredicated */
  int m_multiple, n_multiple, k_multiple; /* shapes served: extents multiples of these
                              (1: any) up to TCMMA_GEMM_EXTENT_MAX, every ld a
                              multiple of its class over the element's bytes
                              (fixed shape: only the call's own) */
  int batch, split_k;      /* as planned (1 when not asked) */
  int k_tiles_per_split;   /* k tiles each slice reduces (the last may have fewer) */
  size_t workspace_bytes;  /* split_k > 1: the `void *workspace` argument's bytes: batch x
                              split_k x tiles f32 partial tiles of block_m x block_n, then
                              one unsigned counter per output tile from
                              workspace_counters; the counters must be zero before the
                              first launch (each launch leaves them zero). With
                              shape_args: for the call's shape (same formula) */
  size_t workspace_counters; /* byte offset of the counters in the workspace */
  /* Block-scaled operands (mma-mxfp8, mma-mxf4, mma-nvf4 at cc 12.x, and
   * the tcgen05 kernel of the same triples at cc 10.x with the same
   * contract; docs/emit.md, Block-scaled GEMMs, The Blackwell GEMM); 1, 0,
   * 0 for every other arm: */
  int pack;                /* elements of a and b per stored byte: 2 for packed fp4 (two
                              e2m1 a byte along k, the lower k in the low nibble), else 1 */
  int scale_block;         /* k elements sharing one scale (32 ue8m0, nvf4: 16 ue4m3) */
  long scale_ld;           /* bytes per row of the scale tensors sfa [m x scale_ld] and
                              sfb [n x scale_ld] for the call's k: ceil(k / scale_block)
                              rounded up to TCMMA_GEMM_SCALE_ROW_ALIGN (a strided batch:
                              each matrix's after the last's) */
  int scale_copy_bytes;    /* bytes per copy of the scales' loader (cp.async.ca of 4; plain
                              loads below 4) */
  tcmma_gemm_kernel kernel; /* the kind planned: MMA_SYNC, WGMMA or TCGEN05 (never AUTO) */
  int wgmma;               /* WGMMA: the warpgroup arm, a tcmma_wgmma (tcmma/wgmma.h;
                              TCMMA_WGMMA_NONE, -1, for mma.sync) */
  int consumer_warpgroups; /* WGMMA: warpgroups that multiply, each m64 x wgmma_n of the
                              block tile (warpgroup 0 loads); 0 for mma.sync */
  int wgmma_n;             /* WGMMA: each consumer's instruction n */
  int producer_registers, consumer_registers; /* WGMMA: the setmaxnreg counts (0: none,
                              one consumer warpgroup keeps what the launch bound gives) */
  /* Fields past the old struct's tail padding (tail_pad), so that an old
   * caller's size never covers them. */
  int tail_pad;            /* unused: written 0 */
  int tcgen05;             /* TCGEN05: the Tensor Memory arm, a tcmma_tcgen05
                              (tcmma/tcgen05.h; TCMMA_TCGEN05_NONE, -1, for the others) */
  int tmem_columns;        /* TCGEN05: Tensor Memory columns the kernel allocates (the
                              f32 accumulator's block_n, rounded up to a power of two
                              from 32); 0 for the others */
  char arch_suffix;        /* the target the kernel compiles for: sm_<call.cc> with this
                              suffix (tcmma_compile_opts.arch_suffix): 'a' (arch-specific:
                              the wgmma kernel's sm_90a, an arch-only tcgen05 row's
                              sm_100a), 'f' (family: the tcgen05 kernel's sm_100f, the
                              block-scaled mma.sync kernels' sm_120f) or 0 (none; also for
                              a plan for any device, cc 0) */
} tcmma_gemm_info;

/* The scale tensors' rows are whole units of this many scales (bytes): a
 * row holds ceil(k / scale_block) scales, then padding (never read). */
#define TCMMA_GEMM_SCALE_ROW_ALIGN 4

/* Fills the first `size` bytes of *out (the caller's sizeof) with the
 * defaults (no option: a fixed-shape kernel, classes from the ld's, one
 * matrix, no split, no epilogue); out->size = size. NULL or a size too
 * small for the size field does nothing. tcmma_gemm_opts_default: the
 * same as a value, with the caller's own sizeof. */
void tcmma_gemm_opts_init(tcmma_gemm_opts *out, size_t size);
static inline tcmma_gemm_opts tcmma_gemm_opts_default(void) {
  tcmma_gemm_opts o;
  tcmma_gemm_opts_init(&o, sizeof o);
  return o;
}

/* Fills the first `size` bytes of *out (the caller's sizeof(tcmma_gemm_call))
 * with the defaults: 128x128x128 of f32 = bf16 x bf16, every field that has
 * a default at 0; out->size = size. For bindings; NULL or a size too small to
 * hold the size field does nothing. */
void tcmma_gemm_call_init(tcmma_gemm_call *out, size_t size);

/* The defaults as a value. Inline, so that the size is the caller's own
 * sizeof, not the library's. */
static inline tcmma_gemm_call tcmma_gemm_call_default(void) {
  tcmma_gemm_call c;
  tcmma_gemm_call_init(&c, sizeof c);
  return c;
}

/* Plans call's mma.sync kernel (the options' defaults but kernel
 * MMA_SYNC: its arguments are d, a, b, c, alpha, beta, and a block-scaled
 * arm's sfa, sfb; AUTO and WGMMA need tcmma_gemm_plan_opts). TCMMA_OK:
 * out->accepted. TCMMA_DECLINED: out->reason and out->message say why
 * (also copied to err). TCMMA_INVALID: NULL pointers or an enum out of
 * range. */
tcmma_status tcmma_gemm_plan_call(const tcmma_gemm_call *call, tcmma_gemm_plan *out,
                                  tcmma_error *err);

/* Plans call with opts (NULL: the defaults), as tcmma_gemm_plan_call, and
 * fills *info (NULL: not wanted; its size set by the caller, or 0 for this
 * library's). TCMMA_INVALID also for a bad opts or info size, an epilogue
 * op's size or enum out of range, or ops NULL with a count. A bad
 * epilogue list declines `call` (an op's argument, cvt not last, a
 * residual with pointer arrays) or `arch`. */
tcmma_status tcmma_gemm_plan_opts(const tcmma_gemm_call *call, const tcmma_gemm_opts *opts,
                                  tcmma_gemm_plan *out, tcmma_gemm_info *info, tcmma_error *err);

/* The name of a decline ("shared") and its rule sentence; "?" out of range. */
const char *tcmma_gemm_decline_name(tcmma_gemm_decline reason);
const char *tcmma_gemm_decline_rule(tcmma_gemm_decline reason);

/* Shared memory per block (bytes) a device of compute capability cc allows
 * with the opt-in (tables/shared_memory.def); cc 0: the least of every
 * device at or above floor. 0 for a cc below every row. */
size_t tcmma_shared_memory_max(int cc, int floor);

/* Renders the whole kernel of an accepted plan into ctx->out in
 * ctx->dialect (ctx->plan and ctx->names unused; the kernel names its own
 * locals): `NAME(D *d, const A *a,
 * const B *b, const D *c, float alpha, float beta)` (extern "C" __global__
 * in CUDA, launched with grid, threads and shared_bytes of dynamic shared
 * memory; pointers 16-byte aligned; c read only when beta != 0). The HOST
 * dialect adds `void NAME_entry(void *args)`, args a `void *[6]` of d, a,
 * b, c, &alpha, &beta, for tcmma_sim_launch_grid. TCMMA_INVALID for a
 * bad ctx, a declined plan, a plan changed after planning (it must be what
 * tcmma_gemm_plan_call gives for its own call; the message names the
 * field) or a bad dialect; TCMMA_NO_MEMORY when out failed. */
tcmma_status tcmma_render_gemm(const tcmma_render_ctx *ctx, const tcmma_gemm_plan *plan,
                               tcmma_error *err);

/* tcmma_render_gemm of a plan made by tcmma_gemm_plan_opts with the same
 * opts (NULL: the defaults). The kernel's arguments, in order: d, a, b, c
 * (with pointer_array `D *const *d_batch, const A *const *a_batch, ...`),
 * alpha, beta; for a block-scaled plan (tcmma_gemm_info.scale_block)
 * `const unsigned char *sfa, const unsigned char *sfb`; with shape_args
 * `int m, int n, int k, int lda, int ldb, int ldc, int ldd` and, batched
 * and strided, `long long stride_a, stride_b,
 * stride_c, stride_d`; with split_k `void *workspace`; then one argument
 * per epilogue op that has one, in list order, named by the op and its
 * place: `const float *biasI` and `*scaleI` (n or m floats by axis, one
 * for tensor; shared by every matrix of a batch), `const C *residualI`
 * (stored like c, moved through a strided batch as c is), `float *amaxI`
 * (raised to max |x| over the whole launch with atomicMax on its bits;
 * zero it before the launch); a WGMMA plan's kernel then takes the tensor
 * maps of a and b (include/tcmma/gemm_tma.h), as does a TCGEN05 plan's. d is stored in cvt's
 * precision when the list ends with cvt (c keeps d's). With split_k the epilogue runs once
 * per element, in the slice that arrives last. Launched with grid
 * ceil(n / block_n) x ceil(m / block_m) x (batch * split_k). The HOST entry
 * takes a `void *[]` of pointers to each argument in that order.
 * Pointers aligned to their operand's class. */
tcmma_status tcmma_render_gemm_opts(const tcmma_render_ctx *ctx, const tcmma_gemm_plan *plan,
                                    const tcmma_gemm_opts *opts, tcmma_error *err);

#pragma GCC visibility pop
#ifdef __cplusplus
}
#endif

#endif
