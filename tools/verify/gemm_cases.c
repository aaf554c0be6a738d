/* The GEMM matrix (tools/verify/gemm.h): a few configurations of each
 * axis the generator varies — arm, block tile, warp grid, stages 1..4,
 * orientations, odd sizes, alpha/beta, C in place — kept small enough that
 * the simulator runs every case in seconds, and one case per decline. */
#include <stdio.h>
#include <string.h>
#include "tools/verify/gemm_epilogue.h"

typedef struct {
  const char *d, *a, *b; /* precisions */
  bool at, bt;           /* a, b stored transposed */
  int m, n, k, bm, bn, bk, wm, wn, stages;
  long lda, ldb, ldd;    /* 0: dense */
  double alpha, beta;
  bool c_is_d, unpredicated;
  int cc, registers;
  const char *arm;
  tcmma_gemm_decline expect;
  bool tf32; /* the numerics policy allows tf32 */
  bool args; /* shape-generic: the shape passed as kernel arguments */
  int aa, ab, ad; /* alignment classes asked (bytes; 0: the widest each ld allows) */
  int batch, split; /* matrices over grid z; K slices (0: 1) */
  bool parr;        /* pointer arrays instead of strides */
  long long sa, sb, sd; /* strides (elements; 0: dense) */
  tcmma_gemm_kernel kernel; /* the kind asked for (0: AUTO, the wgmma kernel on cc 90 where
                               it serves the row) */
} row;

/* The rows' tail fields for a kind asked for (after args: the alignment
 * classes, batch, split, pointer arrays and strides at their defaults). */
#define KIND(k) 0, 0, 0, 0, 0, false, 0, 0, 0, TCMMA_GEMM_KERNEL_##k

static const row rows[] = {
    /* accepted: the default tile, then each axis varied */
    {"f32", "bf16", "bf16", false, false, 128, 128, 128, 128, 128, 32, 2, 2, 3, 0, 0, 0, 1, 0,
     false, false, 80, 0, NULL, TCMMA_GEMM_DECLINE_NONE},
    {"f32", "bf16", "bf16", false, true, 128, 64, 96, 64, 64, 32, 2, 2, 2, 0, 0, 0, 2, -1,
     false, false, 80, 0, NULL, TCMMA_GEMM_DECLINE_NONE},
    {"bf16", "bf16", "bf16", true, true, 64, 128, 128, 64, 128, 32, 2, 4, 4, 0, 0, 0, 1, 1,
     true, false, 80, 0, NULL, TCMMA_GEMM_DECLINE_NONE},
    {"f32", "f16", "f16", false, false, 127, 129, 65, 64, 64, 32, 2, 2, 3, 72, 136, 132, -1, 2,
     false, false, 80, 0, NULL, TCMMA_GEMM_DECLINE_NONE},
    {"f16", "f16", "f16", true, true, 127, 129, 65, 64, 64, 32, 2, 2, 1, 128, 72, 136, 1, 1,
     true, false, 80, 0, NULL, TCMMA_GEMM_DECLINE_NONE},
    {"f32", "f16", "f16", true, false, 64, 64, 80, 64, 64, 16, 4, 1, 2, 0, 0, 0, 1, 0,
     false, false, 80, 0, NULL, TCMMA_GEMM_DECLINE_NONE},
    {"f32", "e4m3", "e4m3", false, true, 128, 64, 192, 64, 64, 64, 2, 2, 3, 0, 0, 0, 1, 0,
     false, false, 89, 0, NULL, TCMMA_GEMM_DECLINE_NONE},
    {"f32", "e5m2", "e4m3", false, true, 65, 33, 70, 64, 32, 64, 2, 1, 2, 80, 80, 36, 2, -1,
     false, false, 89, 0, NULL, TCMMA_GEMM_DECLINE_NONE},
    {"bf16", "bf16", "bf16", false, false, 128, 128, 64, 128, 128, 32, 4, 2, 3, 0, 0, 0, 1, 0,
     false, true, 90, 0, NULL, TCMMA_GEMM_DECLINE_NONE},
    {"f32", "e4m3", "e4m3", true, false, 64, 64, 128, 64, 64, 64, 2, 2, 2, 0, 0, 0, 1, 0,
     false, false, 89, 0, NULL, TCMMA_GEMM_DECLINE_NONE},
    {"f32", "bf16", "bf16", false, true, 640, 192, 32, 64, 64, 32, 2, 2, 2, 0, 0, 0, 1, 0,
     false, false, 80, 0, NULL, TCMMA_GEMM_DECLINE_NONE}, /* 10x3 blocks: two groups of rows */
    {"f32", "f16", "f16", false, true, 64, 64, 64, 64, 64, 32, 2, 2, 2, 0, 0, 0, 1, 0,
     false, false, 80, 0, "mma-f16-k8", TCMMA_GEMM_DECLINE_NONE}, /* Turing's shape */
    /* shape-generic and alignment classes (issue #22): dense rows of any
     * length, K = 65 (2-byte classes, plain loads), 8- and 4-byte cp.async,
     * 1-byte fp8 rows, and each as a fixed-shape and a shape-argument kernel */
    {"f32", "bf16", "bf16", false, false, 127, 129, 65, 64, 64, 32, 2, 2, 3, 0, 0, 0, 1, 0,
     false, false, 80, 0, NULL, TCMMA_GEMM_DECLINE_NONE},
    {"f32", "bf16", "bf16", false, false, 127, 129, 65, 64, 64, 32, 2, 2, 3, 0, 0, 0, 1, 0,
     false, false, 80, 0, NULL, TCMMA_GEMM_DECLINE_NONE, false, true},
    {"bf16", "bf16", "bf16", true, true, 127, 129, 65, 64, 64, 32, 2, 2, 2, 0, 0, 0, 2, -1,
     false, false, 80, 0, NULL, TCMMA_GEMM_DECLINE_NONE, false, true},
    {"f32", "f16", "f16", false, false, 127, 129, 65, 64, 64, 32, 2, 2, 3, 72, 136, 132, -1, 2,
     false, false, 80, 0, NULL, TCMMA_GEMM_DECLINE_NONE, false, true},
    {"f32", "bf16", "bf16", false, false, 128, 128, 128, 64, 64, 32, 2, 2, 3, 0, 0, 0, 1, 1,
     true, false, 80, 0, NULL, TCMMA_GEMM_DECLINE_NONE, false, true},
    {"f32", "bf16", "bf16", false, false, 128, 128, 64, 128, 128, 32, 2, 2, 3, 0, 0, 0, 1, 0,
     false, true, 80, 0, NULL, TCMMA_GEMM_DECLINE_NONE, false, true},
    {"f32", "bf16", "bf16", false, false, 64, 66, 68, 64, 64, 32, 2, 2, 2, 0, 0, 0, 1, 0,
     false, false, 80, 0, NULL, TCMMA_GEMM_DECLINE_NONE}, /* classes 8, 4, 8 */
    {"bf16", "bf16", "bf16", true, false, 64, 66, 68, 64, 64, 32, 2, 2, 3, 0, 0, 0, 1, 0,
     false, false, 80, 0, NULL, TCMMA_GEMM_DECLINE_NONE, false, true, 4, 4, 4},
    {"f32", "e4m3", "e4m3", false, true, 65, 33, 65, 64, 64, 32, 2, 2, 2, 0, 0, 0, 1, 0,
     false, false, 89, 0, NULL, TCMMA_GEMM_DECLINE_NONE, false, true}, /* 1-byte rows */
    /* Turing: the plain-load loader (no cp.async below cc 80) */
    {"f32", "f16", "f16", false, true, 64, 64, 64, 64, 64, 32, 2, 2, 2, 0, 0, 0, 1, 0,
     false, false, 75, 0, NULL, TCMMA_GEMM_DECLINE_NONE},
    {"f16", "f16", "f16", true, false, 127, 129, 65, 64, 64, 32, 2, 2, 3, 0, 0, 0, 1, 1,
     true, false, 75, 0, NULL, TCMMA_GEMM_DECLINE_NONE, false, true},
    /* batches (strided, pointer arrays) and split-K (issue #22) */
    {"f32", "bf16", "bf16", false, true, 96, 80, 64, 64, 64, 32, 2, 2, 3, 0, 0, 0, 1, 0,
     false, false, 80, 0, NULL, TCMMA_GEMM_DECLINE_NONE, false, false, 0, 0, 0, 3},
    {"f32", "bf16", "bf16", false, false, 64, 64, 32, 64, 64, 32, 2, 2, 2, 0, 0, 0, 2, 1,
     false, false, 80, 0, NULL, TCMMA_GEMM_DECLINE_NONE, false, false, 0, 0, 0, 2, 0, false,
     64 * 32 + 64, 32 * 64 + 128, 64 * 64 + 96}, /* gaps between the matrices */
    {"f16", "f16", "f16", true, false, 127, 129, 65, 64, 64, 32, 2, 2, 3, 0, 0, 0, 1, 1,
     false, false, 80, 0, NULL, TCMMA_GEMM_DECLINE_NONE, false, true, 0, 0, 0, 3, 0, true},
    {"f32", "bf16", "bf16", false, false, 64, 64, 256, 64, 64, 32, 2, 2, 3, 0, 0, 0, 1, 1,
     true, false, 80, 0, NULL, TCMMA_GEMM_DECLINE_NONE, false, false, 0, 0, 0, 0, 3},
    {"bf16", "bf16", "bf16", false, true, 65, 70, 200, 64, 64, 32, 2, 2, 2, 0, 0, 0, 1, 0,
     false, false, 80, 0, NULL, TCMMA_GEMM_DECLINE_NONE, false, true, 0, 0, 0, 2, 4},
    {"f32", "f16", "f16", false, false, 64, 128, 160, 64, 64, 32, 2, 2, 1, 0, 0, 0, 2, -1,
     false, false, 80, 0, NULL, TCMMA_GEMM_DECLINE_NONE, false, false, 0, 0, 0, 0, 4},
    /* block-scaled at cc 12.x (issue #26): packed fp4 with ue8m0 (mxf4) and
     * ue4m3 (nvf4) scales, fp8 with ue8m0 (mxfp8); ragged m, n and k (a
     * partial last scale block), shape arguments, split-K */
    {"f32", "mxf4", "mxf4", false, true, 128, 128, 256, 128, 128, 128, 4, 2, 3, 0, 0, 0, 1, 0,
     false, false, 120, 0, NULL, TCMMA_GEMM_DECLINE_NONE},
    {"f32", "nvf4", "nvf4", false, true, 65, 33, 200, 64, 64, 128, 2, 2, 2, 0, 0, 0, 2, -1,
     false, false, 120, 0, NULL, TCMMA_GEMM_DECLINE_NONE},
    {"f32", "mxf4", "mxf4", false, true, 127, 129, 192, 64, 64, 128, 2, 2, 3, 0, 0, 0, 1, 1,
     true, false, 120, 0, NULL, TCMMA_GEMM_DECLINE_NONE, false, true},
    {"f32", "nvf4", "nvf4", false, true, 64, 64, 1024, 64, 64, 128, 2, 2, 2, 0, 0, 0, 1, 0,
     false, false, 120, 0, NULL, TCMMA_GEMM_DECLINE_NONE, false, false, 0, 0, 0, 0, 2},
    {"f32", "mxe4m3", "mxe5m2", false, true, 128, 64, 256, 64, 64, 128, 2, 2, 3, 0, 0, 0, 1, 0,
     false, false, 120, 0, NULL, TCMMA_GEMM_DECLINE_NONE},
    {"f32", "mxf4", "mxf4", false, true, 64, 64, 256, 64, 64, 128, 2, 2, 3, 0, 0, 0, 1, 0,
     false, false, 120, 0, NULL, TCMMA_GEMM_DECLINE_NONE}, /* six k tile bodies: the unrolled ring */
    {"f32", "mxe2m3", "mxe3m2", false, true, 96, 64, 160, 64, 64, 64, 2, 2, 2, 0, 0, 0, 1, 0,
     false, false, 120, 0, NULL, TCMMA_GEMM_DECLINE_NONE}, /* fp6; 2 scales a row: plain loads */
    {"f32", "mxf4", "mxf4", false, true, 64, 48, 192, 64, 64, 128, 2, 2, 2, 0, 0, 0, 1, 0,
     false, false, 120, 0, NULL, TCMMA_GEMM_DECLINE_NONE, false, false, 8, 2, 0}, /* classes 8, 2 */
    /* strided batches: each matrix's scale tensors after the last's */
    {"f32", "nvf4", "nvf4", false, true, 64, 96, 256, 64, 64, 128, 2, 2, 2, 0, 0, 0, 1, 0,
     false, false, 120, 0, NULL, TCMMA_GEMM_DECLINE_NONE, false, false, 0, 0, 0, 3},
    {"f32", "mxf4", "mxf4", false, true, 65, 40, 192, 64, 64, 128, 2, 2, 3, 0, 0, 0, 1, 1,
     false, false, 120, 0, NULL, TCMMA_GEMM_DECLINE_NONE, false, true, 0, 0, 0, 2, 0, false,
     65 * 192 + 64, 40 * 192 + 32, 65 * 40 + 8},
    /* the Hopper GEMM (cc 90, AUTO chooses it): TMA stages, wgmma consumers, a
     * producer warpgroup; the default 128x256x64 tile over two consumers with
     * setmaxnreg, then one consumer (no setmaxnreg) at ragged sizes with c,
     * four consumers over a 2x2 warpgroup grid with shape arguments, fp8 at
     * k tiles of 128, mixed fp8, and a 64-byte swizzle (k tiles of 32) */
    {"f32", "bf16", "bf16", false, true, 128, 256, 256, 128, 256, 64, 8, 1, 4, 0, 0, 0, 1, 0,
     false, false, 90, 0, NULL, TCMMA_GEMM_DECLINE_NONE},
    {"bf16", "bf16", "bf16", false, true, 127, 129, 65, 64, 128, 64, 4, 1, 2, 72, 72, 136, 2, -1,
     false, false, 90, 0, NULL, TCMMA_GEMM_DECLINE_NONE},
    {"f16", "f16", "f16", false, true, 192, 128, 128, 128, 128, 64, 8, 2, 3, 0, 0, 0, 1, 1,
     true, false, 90, 0, NULL, TCMMA_GEMM_DECLINE_NONE, false, true},
    {"f32", "e4m3", "e4m3", false, true, 128, 128, 384, 128, 128, 128, 8, 1, 3, 0, 0, 0, 1, 0,
     false, false, 90, 0, NULL, TCMMA_GEMM_DECLINE_NONE},
    {"bf16", "e5m2", "e4m3", false, true, 64, 96, 256, 64, 96, 128, 4, 1, 2, 0, 0, 0, 1, 0,
     false, false, 90, 0, NULL, TCMMA_GEMM_DECLINE_NONE},
    {"f32", "bf16", "bf16", false, true, 64, 64, 96, 64, 64, 32, 4, 1, 3, 0, 0, 0, 1, 0,
     false, false, 90, 0, NULL, TCMMA_GEMM_DECLINE_NONE},
    /* strided batches through the tensor maps' third dimension: gaps between
     * the matrices (n 80: one consumer of n80), and dense with two consumers */
    {"f32", "bf16", "bf16", false, true, 96, 80, 64, 64, 80, 64, 4, 1, 2, 0, 0, 0, 1, 1,
     false, false, 90, 0, NULL, TCMMA_GEMM_DECLINE_NONE, false, false, 0, 0, 0, 3, 0, false,
     96 * 64 + 64, 80 * 64 + 128, 96 * 80 + 96},
    {"bf16", "bf16", "bf16", false, true, 128, 256, 128, 128, 256, 64, 8, 1, 3, 0, 0, 0, 1, 0,
     false, false, 90, 0, NULL, TCMMA_GEMM_DECLINE_NONE, false, false, 0, 0, 0, 2},
    /* an M-major a (stored k x m: 16-bit rows have imm-trans), panels of 64
     * columns a TMA box each: two consumers; ragged with padded ld's, C and
     * k tiles of 32 (a 64-byte swizzle for b beside a's 128); a batch */
    {"f32", "bf16", "bf16", true, true, 128, 256, 128, 128, 256, 64, 8, 1, 4, 0, 0, 0, 1, 0,
     false, false, 90, 0, NULL, TCMMA_GEMM_DECLINE_NONE},
    {"f16", "f16", "f16", true, true, 127, 129, 96, 64, 128, 32, 4, 1, 3, 136, 104, 136, 2, -1,
     false, false, 90, 0, NULL, TCMMA_GEMM_DECLINE_NONE},
    {"f32", "bf16", "bf16", true, true, 64, 64, 64, 64, 64, 64, 4, 1, 2, 0, 0, 0, 1, 1,
     false, false, 90, 0, NULL, TCMMA_GEMM_DECLINE_NONE, false, false, 0, 0, 0, 2},
    /* an N-major b (stored k x n: 16-bit rows have imm-trans), panels of 64
     * columns a TMA box each, a consumer's n over its panels through one
     * descriptor (LBO a panel): the default tile, f16; ragged with padded
     * ld's and C over a block_n of 128 and k tiles of 32 (panels of 32
     * rows); two consumers along n (the second from panel 2) with shape
     * arguments; an M-major a beside it */
    {"f32", "bf16", "bf16", false, false, 128, 256, 256, 128, 256, 64, 8, 1, 4, 0, 0, 0, 1, 0,
     false, false, 90, 0, NULL, TCMMA_GEMM_DECLINE_NONE},
    {"f32", "f16", "f16", false, false, 128, 256, 128, 128, 256, 64, 8, 1, 3, 0, 0, 0, 1, 0,
     false, false, 90, 0, NULL, TCMMA_GEMM_DECLINE_NONE},
    {"f16", "f16", "f16", false, false, 127, 129, 96, 64, 128, 32, 4, 1, 3, 104, 136, 136, 2, -1,
     false, false, 90, 0, NULL, TCMMA_GEMM_DECLINE_NONE},
    {"bf16", "bf16", "bf16", false, false, 64, 512, 128, 64, 256, 64, 4, 2, 3, 0, 0, 0, 1, 1,
     true, false, 90, 0, NULL, TCMMA_GEMM_DECLINE_NONE, false, true},
    {"f32", "bf16", "bf16", true, false, 128, 256, 128, 128, 256, 64, 8, 1, 4, 0, 0, 0, 1, 0,
     false, false, 90, 0, NULL, TCMMA_GEMM_DECLINE_NONE},
    /* the mma.sync kernel asked for on cc 90, where AUTO would take wgmma */
    {"f32", "bf16", "bf16", false, true, 128, 128, 128, 128, 128, 64, 8, 1, 3, 0, 0, 0, 1, 0,
     false, false, 90, 0, NULL, TCMMA_GEMM_DECLINE_NONE, false, false, KIND(MMA_SYNC)},
    /* the Blackwell GEMM (cc 10.x, AUTO chooses it): one thread's tcgen05.mma
     * into Tensor Memory, a TMA thread, an epilogue warpgroup; the default
     * 128x256x64 tile, ragged sizes with padded ld's and c at cc 10.3, shape
     * arguments, fp8 at k tiles of 128, mixed fp8 into bf16 at n 96, a
     * 64-byte swizzle (k tiles of 32), a strided batch with gaps */
    {"f32", "bf16", "bf16", false, true, 128, 256, 256, 128, 256, 64, 4, 1, 4, 0, 0, 0, 1, 0,
     false, false, 100, 0, NULL, TCMMA_GEMM_DECLINE_NONE},
    {"bf16", "bf16", "bf16", false, true, 127, 129, 65, 128, 128, 64, 4, 1, 2, 72, 72, 136, 2, -1,
     false, false, 103, 0, NULL, TCMMA_GEMM_DECLINE_NONE},
    {"f16", "f16", "f16", false, true, 192, 100, 128, 128, 64, 64, 4, 1, 3, 0, 0, 0, 1, 1,
     false, false, 100, 0, NULL, TCMMA_GEMM_DECLINE_NONE, false, true},
    {"f32", "e4m3", "e4m3", false, true, 128, 128, 384, 128, 128, 128, 4, 1, 3, 0, 0, 0, 1, 0,
     false, false, 100, 0, NULL, TCMMA_GEMM_DECLINE_NONE},
    {"bf16", "e5m2", "e4m3", false, true, 64, 96, 256, 128, 96, 128, 4, 1, 2, 0, 0, 0, 1, 0,
     false, false, 100, 0, NULL, TCMMA_GEMM_DECLINE_NONE},
    {"f32", "bf16", "bf16", false, true, 128, 64, 96, 128, 64, 32, 4, 1, 3, 0, 0, 0, 1, 0,
     false, false, 100, 0, NULL, TCMMA_GEMM_DECLINE_NONE},
    {"f32", "bf16", "bf16", false, true, 96, 80, 64, 128, 80, 64, 4, 1, 2, 0, 0, 0, 1, 1,
     false, false, 100, 0, NULL, TCMMA_GEMM_DECLINE_NONE, false, false, 0, 0, 0, 3, 0, false,
     96 * 64 + 64, 80 * 64 + 128, 96 * 80 + 96},
    /* an N-major b (stored k x n): panels of one span along n, a TMA box and
     * a product each: bf16 at ragged sizes with padded ld's and c, fp8
     * (panels of 128) with shape arguments */
    {"f32", "bf16", "bf16", false, false, 127, 250, 96, 128, 256, 64, 4, 1, 3, 104, 264, 264, 1, 1,
     false, false, 100, 0, NULL, TCMMA_GEMM_DECLINE_NONE},
    {"bf16", "e4m3", "e5m2", false, false, 128, 256, 256, 128, 256, 128, 4, 1, 2, 0, 0, 0, 1, 0,
     false, false, 103, 0, NULL, TCMMA_GEMM_DECLINE_NONE, false, true},
    /* an M-major a (stored k x m, f16 and bf16): two panels of 64 columns, a
     * TMA box each, the m128 product's one descriptor with the panel as its
     * LBO: the default tile; ragged f16 with padded ld's, alpha and beta and
     * k tiles of 32 (panels of 32 rows beside b's 64-byte swizzle) at cc
     * 10.3; an N-major b beside it with shape arguments */
    {"f32", "bf16", "bf16", true, true, 128, 256, 256, 128, 256, 64, 4, 1, 4, 0, 0, 0, 1, 0,
     false, false, 100, 0, NULL, TCMMA_GEMM_DECLINE_NONE},
    {"f16", "f16", "f16", true, true, 127, 129, 96, 128, 128, 32, 4, 1, 3, 136, 104, 136, 2, -1,
     false, false, 103, 0, NULL, TCMMA_GEMM_DECLINE_NONE},
    {"bf16", "bf16", "bf16", true, false, 128, 256, 192, 128, 256, 64, 4, 1, 3, 0, 0, 0, 1, 1,
     true, false, 100, 0, NULL, TCMMA_GEMM_DECLINE_NONE, false, true},
    /* block-scaled on the Blackwell GEMM (AUTO at cc 10.x): mxe4m3/mxe5m2
     * with ue8m0 scales copied into Tensor Memory by tcgen05.cp per k tile;
     * three k tiles, ragged m, n and k (7 blocks of 32 in k 208) with alpha and beta, b's
     * scales in two atoms (n 256) at cc 10.3 */
    {"f32", "mxe4m3", "mxe5m2", false, true, 128, 128, 384, 128, 128, 128, 4, 1, 3, 0, 0, 0, 1, 0,
     false, false, 100, 0, NULL, TCMMA_GEMM_DECLINE_NONE},
    {"f32", "mxe5m2", "mxe4m3", false, true, 127, 129, 208, 128, 128, 128, 4, 1, 2, 0, 0, 0, 2,
     -1, false, false, 100, 0, NULL, TCMMA_GEMM_DECLINE_NONE},
    {"f32", "mxe4m3", "mxe4m3", false, true, 64, 256, 256, 128, 256, 128, 4, 1, 2, 0, 0, 0, 1, 0,
     false, false, 103, 0, NULL, TCMMA_GEMM_DECLINE_NONE},
    /* and packed fp4 (two e2m1 a byte along k, TMA boxes of 128 bytes: k
     * tiles of 256): mxf4 (ue8m0 per 32: two cells of scales a k tile),
     * nvf4 (ue4m3 per 16: four) ragged with alpha and beta, and a strided
     * batch at cc 10.3 */
    {"f32", "mxf4", "mxf4", false, true, 128, 128, 512, 128, 128, 256, 4, 1, 3, 0, 0, 0, 1, 0,
     false, false, 100, 0, NULL, TCMMA_GEMM_DECLINE_NONE},
    {"f32", "nvf4", "nvf4", false, true, 65, 200, 320, 128, 256, 256, 4, 1, 2, 0, 0, 0, 2, -1,
     false, false, 100, 0, NULL, TCMMA_GEMM_DECLINE_NONE},
    {"f32", "mxf4", "mxf4", false, true, 64, 64, 256, 128, 64, 256, 4, 1, 2, 0, 0, 0, 1, 0,
     false, false, 103, 0, NULL, TCMMA_GEMM_DECLINE_NONE, false, false, 0, 0, 0, 2},
    /* the mma.sync kernel asked for on cc 100, where AUTO would take tcgen05 */
    {"f32", "bf16", "bf16", false, true, 128, 128, 128, 128, 128, 32, 2, 2, 3, 0, 0, 0, 1, 0,
     false, false, 100, 0, NULL, TCMMA_GEMM_DECLINE_NONE, false, false, KIND(MMA_SYNC)},
    /* declined: one per reason */
    {"f32", "bf16", "bf16", false, false, 128, 128, 128, 128, 128, 32, 2, 2, 5, 0, 0, 0, 1, 0,
     false, false, 80, 0, NULL, TCMMA_GEMM_DECLINE_CALL},
    {"f32", "f16", "f16", false, false, 128, 128, 128, 128, 128, 32, 2, 2, 3, 0, 0, 0, 1, 0,
     false, false, 80, 0, "wmma-f16f32", TCMMA_GEMM_DECLINE_ARM},
    {"f32", "f32", "f32", true, false, 64, 64, 64, 64, 64, 32, 2, 2, 3, 0, 0, 0, 1, 0,
     false, false, 80, 0, NULL, TCMMA_GEMM_DECLINE_ARM, true},
    {"f32", "mxf4", "mxf4", true, true, 128, 128, 128, 128, 128, 128, 2, 2, 3, 0, 0, 0, 1, 0,
     false, false, 120, 0, NULL, TCMMA_GEMM_DECLINE_ARM}, /* packed fp4 stored m-major */
    {"f32", "nvf4", "nvf4", false, true, 64, 64, 129, 64, 64, 128, 2, 2, 2, 0, 0, 0, 1, 0,
     false, false, 120, 0, NULL, TCMMA_GEMM_DECLINE_ALIGNMENT}, /* half a byte of k */
    {"f32", "mxf4", "mxf4", false, true, 64, 64, 128, 64, 64, 128, 2, 2, 2, 0, 0, 0, 1, 0,
     false, false, 120, 0, NULL, TCMMA_GEMM_DECLINE_CALL, false, false, 0, 0, 0, 2, 0, true},
    {"f32", "bf16", "bf16", false, false, 256, 128, 64, 256, 128, 32, 2, 2, 2, 0, 0, 0, 1, 0,
     false, false, 80, 0, NULL, TCMMA_GEMM_DECLINE_WARP_TILE},
    {"f32", "bf16", "bf16", false, false, 128, 128, 128, 128, 128, 32, 3, 1, 3, 0, 0, 0, 1, 0,
     false, false, 80, 0, NULL, TCMMA_GEMM_DECLINE_TILE},
    {"f32", "bf16", "bf16", false, false, 256, 256, 256, 256, 256, 64, 4, 4, 4, 0, 0, 0, 1, 0,
     false, false, 89, 0, NULL, TCMMA_GEMM_DECLINE_SHARED},
    {"f32", "bf16", "bf16", false, false, 128, 128, 128, 128, 128, 32, 2, 2, 3, 0, 0, 0, 1, 0,
     false, false, 80, 128, NULL, TCMMA_GEMM_DECLINE_REGISTERS},
    {"f32", "bf16", "bf16", false, false, 127, 128, 128, 128, 128, 32, 2, 2, 3, 0, 0, 0, 1, 0,
     false, true, 80, 0, NULL, TCMMA_GEMM_DECLINE_PREDICATION},
    {"f32", "f16", "f16", false, true, 64, 64, 64, 64, 64, 32, 2, 2, 2, 0, 0, 0, 1, 0,
     false, false, 70, 0, "mma-f16-k8", TCMMA_GEMM_DECLINE_ARCH}, /* Volta: below the arm */
    {"f32", "bf16", "bf16", false, false, 128, 128, 65, 128, 128, 32, 2, 2, 3, 0, 0, 0, 1, 0,
     false, false, 80, 0, NULL, TCMMA_GEMM_DECLINE_ALIGNMENT, false, false, 16},
    {"f32", "bf16", "bf16", false, false, 64, 64, 64, 64, 64, 32, 2, 2, 2, 0, 0, 0, 1, 0,
     false, false, 80, 0, NULL, TCMMA_GEMM_DECLINE_CALL, false, false, 0, 0, 0, 0, 3},
    /* the wgmma kernel's: an M-major fp8 a, an N-major fp8 b, cc 8.0, a k tile of no swizzle span, shared
     * memory (4 stages of 256x256x64), registers (n256 over four consumers) */
    {"f32", "e4m3", "e4m3", true, true, 128, 256, 128, 128, 256, 128, 8, 1, 4, 0, 0, 0, 1, 0,
     false, false, 90, 0, NULL, TCMMA_GEMM_DECLINE_KERNEL, false, false, KIND(WGMMA)},
    {"f32", "e4m3", "e4m3", false, false, 128, 256, 128, 128, 256, 128, 8, 1, 4, 0, 0, 0, 1, 0,
     false, false, 90, 0, NULL, TCMMA_GEMM_DECLINE_KERNEL, false, false, KIND(WGMMA)},
    {"f32", "bf16", "bf16", false, true, 128, 256, 128, 128, 256, 64, 8, 1, 4, 0, 0, 0, 1, 0,
     false, false, 80, 0, NULL, TCMMA_GEMM_DECLINE_ARCH, false, false, KIND(WGMMA)},
    {"f32", "bf16", "bf16", false, true, 128, 256, 128, 128, 256, 48, 8, 1, 4, 0, 0, 0, 1, 0,
     false, false, 90, 0, NULL, TCMMA_GEMM_DECLINE_TILE, false, false, KIND(WGMMA)},
    {"f32", "bf16", "bf16", false, true, 256, 256, 128, 256, 256, 64, 16, 1, 4, 0, 0, 0, 1, 0,
     false, false, 90, 0, NULL, TCMMA_GEMM_DECLINE_SHARED, false, false, KIND(WGMMA)},
    {"f32", "bf16", "bf16", false, true, 256, 256, 128, 256, 256, 64, 16, 1, 2, 0, 0, 0, 1, 0,
     false, false, 90, 0, NULL, TCMMA_GEMM_DECLINE_REGISTERS, false, false, KIND(WGMMA)},
    /* the tcgen05 kernel's: an M-major fp8 a, cc 9.0, an n no tcgen05.ld load divides,
     * shared memory (5 stages of 128x256x64), registers (a budget of 64) */
    {"f32", "e4m3", "e4m3", true, true, 128, 256, 256, 128, 256, 128, 4, 1, 3, 0, 0, 0, 1, 0,
     false, false, 100, 0, NULL, TCMMA_GEMM_DECLINE_KERNEL, false, false, KIND(TCGEN05)},
    {"f32", "bf16", "bf16", false, true, 128, 256, 128, 128, 256, 64, 4, 1, 4, 0, 0, 0, 1, 0,
     false, false, 90, 0, NULL, TCMMA_GEMM_DECLINE_ARCH, false, false, KIND(TCGEN05)},
    {"f32", "bf16", "bf16", false, true, 128, 120, 128, 128, 120, 64, 4, 1, 4, 0, 0, 0, 1, 0,
     false, false, 100, 0, NULL, TCMMA_GEMM_DECLINE_TILE, false, false, KIND(TCGEN05)},
    {"f32", "bf16", "bf16", false, true, 128, 256, 128, 128, 256, 64, 4, 1, 5, 0, 0, 0, 1, 0,
     false, false, 100, 0, NULL, TCMMA_GEMM_DECLINE_SHARED, false, false, KIND(TCGEN05)},
    {"f32", "bf16", "bf16", false, true, 128, 256, 128, 128, 256, 64, 4, 1, 4, 0, 0, 0, 1, 0,
     false, false, 100, 64, NULL, TCMMA_GEMM_DECLINE_REGISTERS, false, false, KIND(TCGEN05)},
};
enum { ROWS = sizeof rows / sizeof rows[0] };

static verify_gemm_case cases[ROWS + VERIFY_GEMM_EPILOGUE_CASES]; /* and the epilogue cases */
static size_t built;

static void parse_prec(const char *s, tcmma_prec *out) {
  tcmma_error e;
  if (tcmma_prec_parse(s, out, &e) != TCMMA_OK) *out = TCMMA_PREC_F32; /* the rows above are valid */
}

static void build(void) {
  for (size_t i = 0; i < ROWS; i++) {
    const row *w = &rows[i];
    verify_gemm_case *c = &cases[i];
    c->call = tcmma_gemm_call_default();
    tcmma_gemm_call *g = &c->call;
    parse_prec(w->d, &g->d.prec), parse_prec(w->a, &g->a.prec), parse_prec(w->b, &g->b.prec);
    g->a.transposed = w->at, g->b.transposed = w->bt;
    g->a.ld = w->lda, g->b.ld = w->ldb, g->d.ld = w->ldd;
    g->m = w->m, g->n = w->n, g->k = w->k;
    g->block_m = w->bm, g->block_n = w->bn, g->block_k = w->bk;
    g->warps_m = w->wm, g->warps_n = w->wn, g->stages = w->stages;
    g->unpredicated = w->unpredicated, g->cc = w->cc, g->registers = w->registers;
    g->arm = w->arm;
    g->numerics.tf32 = w->tf32;
    g->name = "tcmma_kernel";
    c->opts = tcmma_gemm_opts_default();
    c->opts.shape_args = w->args;
    c->opts.a_align = w->aa, c->opts.b_align = w->ab, c->opts.d_align = w->ad;
    c->opts.batch = w->batch, c->opts.split_k = w->split, c->opts.pointer_array = w->parr;
    c->opts.stride_a = w->sa, c->opts.stride_b = w->sb, c->opts.stride_d = w->sd;
    c->opts.kernel = w->kernel;
    c->alpha = w->alpha, c->beta = w->beta, c->c_is_d = w->c_is_d;
    c->expect = w->expect;
    char ld[96] = "";
    int at = 0;
    if (w->lda || w->ldb || w->ldd)
      at = snprintf(ld, sizeof ld, "/ld=%ld,%ld,%ld", w->lda, w->ldb, w->ldd);
    if (w->aa || w->ab || w->ad)
      at += snprintf(ld + at, sizeof ld - (size_t)at, "/align=%d,%d,%d", w->aa, w->ab, w->ad);
    if (w->args) at += snprintf(ld + at, sizeof ld - (size_t)at, "/args");
    if (w->batch)
      at += snprintf(ld + at, sizeof ld - (size_t)at, "/batch=%d%s%s", w->batch,
                     w->parr ? ",pointers" : "", w->sa ? ",strides" : "");
    if (w->split) at += snprintf(ld + at, sizeof ld - (size_t)at, "/split-k=%d", w->split);
    if (w->kernel)
      at += snprintf(ld + at, sizeof ld - (size_t)at, "/kernel=%s", tcmma_gemm_kernel_name(w->kernel));
    /* below cp.async's 8.0 the same call plans another loader: a name of its own */
    if (w->cc < 80) snprintf(ld + at, sizeof ld - (size_t)at, "/cc=%d", w->cc);
    /* an accepted case is named by the arm its plan runs (a plan that
     * declines after all fails the case when it runs) */
    tcmma_gemm_plan plan;
    tcmma_gemm_info info = {.size = sizeof info};
    const char *arm = "declined";
    if (!w->expect && tcmma_gemm_plan_opts(g, &c->opts, &plan, &info, NULL) == TCMMA_OK)
      arm = verify_gemm_kernel_arm(&plan, &info);
    snprintf(c->name, sizeof c->name,
             "gemm/%s%s/%dx%dx%d/w%dx%d/s%d/d=%s/a=%s%s/b=%s%s/%dx%dx%d%s/alpha=%g,beta=%g%s",
             w->expect ? "decline-" : "", w->expect ? tcmma_gemm_decline_name(w->expect) : arm,
             w->bm, w->bn, w->bk, w->wm, w->wn, w->stages, w->d, w->a, w->at ? ",t" : "", w->b,
             w->bt ? ",t" : "", w->m, w->n, w->k, ld, w->alpha, w->beta,
             w->c_is_d ? "/c=d" : "");
  }
  built = ROWS + verify_gemm_epilogue_cases(cases + ROWS, sizeof cases / sizeof cases[0] - ROWS);
}

size_t verify_gemm_matrix(const verify_gemm_case **out) {
  if (!built) build();
  *out = cases;
  return built;
}

bool verify_gemm_case_plan(const verify_gemm_case *c, tcmma_gemm_plan *plan,
                           verify_case_result *r) {
  tcmma_gemm_info info;
  return verify_gemm_case_plan_info(c, plan, &info, r);
}

bool verify_gemm_case_plan_info(const verify_gemm_case *c, tcmma_gemm_plan *plan,
                                tcmma_gemm_info *info, verify_case_result *r) {
  tcmma_error err = {0};
  tcmma_gemm_opts o = verify_gemm_case_opts(c);
  info->size = sizeof *info;
  tcmma_status st = tcmma_gemm_plan_opts(&c->call, &o, plan, info, &err);
  if (c->expect != TCMMA_GEMM_DECLINE_NONE) {
    if (st == TCMMA_DECLINED && plan->reason == c->expect && plan->message[0])
      verify_case_set(r, VERIFY_CASE_PASSED, "declined as expected: %s", plan->message);
    else
      verify_case_set(r, VERIFY_CASE_FAILED, "expected a decline (%s), got %s: %s",
                      tcmma_gemm_decline_name(c->expect),
                      st == TCMMA_OK ? "accepted" : tcmma_gemm_decline_name(plan->reason),
                      plan->message);
    return false;
  }
  if (st != TCMMA_OK) return verify_case_set(r, VERIFY_CASE_FAILED, "declined: %s", plan->message);
  return true;
}
