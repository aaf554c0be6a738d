/* The pieces the whole arm matrix builds from (tools/verify/matrix.h): the
 * resolution rows (the oracle, docs/design.md §12.1), the shared axes, the
 * helpers that make one case's call and name, and the store the cases are
 * added to. matrix.c (the product of the axes, the declines) and
 * matrix_layouts.c (layouts and compositions) both build on it, neither on
 * the other's internals. */
#include <stdio.h>
#include <string.h>
#include "tools/verify/matrix.h"
#include "tools/verify/matrix_names.h"

/* ---- axis: resolution rows ---- */

/* The resolution table of docs/design.md §4, restated as expectations. */
static const matrix_row rows[] = {
    /* tier 1: one row per arm */
    {"f32=f16.f16/ptx", P(F32), P(F16), P(F16), W, false, PTX, 0, 1,
     {A(MMA_F16), A(MMA_F16)}, {OK_, OK_}},
    {"f32=bf16.bf16/ptx", P(F32), P(BF16), P(BF16), W, false, PTX, 0, 1,
     {A(MMA_BF16), A(MMA_BF16)}, {OK_, OK_}},
    {"f32=e4m3.e4m3", P(F32), P(E4M3), P(E4M3), W, false, PTX, 0, 1,
     {A(MMA_FP8), A(MMA_FP8)}, {OK_, OK_}},
    {"f16=f16.f16/narrow/wmma", P(F16), P(F16), P(F16), N, false, WMMA, 0, 1,
     {A(WMMA_F16), A(WMMA_F16)}, {OK_, OK_}},
    {"f32=f16.f16/wmma", P(F32), P(F16), P(F16), W, false, WMMA, 0, 1,
     {A(WMMA_F16F32), A(WMMA_F16F32)}, {OK_, OK_}},
    /* uniform f16, wide, below every inline arm's floor: the statement list
     * holds only inline arms (a statement never converts its destination);
     * the fragment list falls back to the staged wmma arm */
    {"f16=f16.f16/wide@70", P(F16), P(F16), P(F16), W, false, PTX, 70, 1,
     {NONE_ARM, A(WMMA_F16_WIDE)}, {D(FLOOR), OK_}},
    {"f32=bf16.bf16/wmma", P(F32), P(BF16), P(BF16), W, false, WMMA, 0, 1,
     {A(WMMA_BF16), A(WMMA_BF16)}, {OK_, OK_}},
    {"f32=f32.f32/tf32/wmma", P(F32), P(F32), P(F32), W, true, WMMA, 0, 1,
     {A(WMMA_TF32), A(WMMA_TF32)}, {OK_, OK_}},
    /* tier 3: the newer arms, one row each (the reduced product plus the
     * layout and composition cases) */
    /* Turing: below sm_80 an f16 product still gets inline PTX (m16n8k8) */
    {"f32=f16.f16/ptx@75", P(F32), P(F16), P(F16), W, false, PTX, 75, 3,
     {A(MMA_F16_K8), A(MMA_F16_K8)}, {OK_, OK_}},
    {"f32=f32.f32/tf32", P(F32), P(F32), P(F32), W, true, PTX, 0, 3,
     {A(MMA_TF32), A(MMA_TF32)}, {OK_, OK_}},
    /* integers: s8/u8 products into s32, wrapping or saturating */
    {"s32=s8.s8", P(S32), P(S8), P(S8), W, false, PTX, 0, 3,
     {A(MMA_S8), A(MMA_S8)}, {OK_, OK_}},
    {"s32=u8.s8/sat", P(S32), P(U8), P(S8), W, false, PTX, 0, 3,
     {A(MMA_S8_SAT), A(MMA_S8_SAT)}, {OK_, OK_}, NULL, true},
    /* f64: m8n8k4, fused multiply-adds */
    {"f64=f64.f64", P(F64), P(F64), P(F64), W, false, PTX, 0, 3,
     {A(MMA_F64), A(MMA_F64)}, {OK_, OK_}},
    /* f16 accumulators: the narrow policy's inline arms */
    {"f16=f16.f16/narrow", P(F16), P(F16), P(F16), N, false, PTX, 0, 3,
     {A(MMA_F16_ACC16), A(MMA_F16_ACC16)}, {OK_, OK_}},
    {"f16=e4m3.e5m2/narrow", P(F16), P(E4M3), P(E5M2), N, false, PTX, 0, 3,
     {A(MMA_FP8_ACC16), A(MMA_FP8_ACC16)}, {OK_, OK_}},
    /* block-scaled fp8: one ue8m0 scale per 32 k of each row of a and
     * column of b, given apart (the kernel's sa and sb) */
    {"f32=mxe4m3.mxe4m3@120", P(F32), P(MXE4M3), P(MXE4M3), W, false, PTX, 120, 3,
     {A(MMA_MXFP8), A(MMA_MXFP8)}, {OK_, OK_}},
    /* fp4 and fp6 (kind::f8f6f4, 8-bit containers; from the PTX ISA alone) */
    {"f32=e2m1.e2m1@120", P(F32), P(E2M1), P(E2M1), W, false, PTX, 120, 3,
     {A(MMA_F8F6F4), A(MMA_F8F6F4)}, {OK_, OK_}},
    /* packed fp4 at m16n8k64 (kind::mxf4nvf4): MXFP4 (2 ue8m0 scales a
     * tile) and NVFP4 (4 ue4m3 scales a tile) */
    {"f32=mxf4.mxf4@120", P(F32), P(MXF4), P(MXF4), W, false, PTX, 120, 3,
     {A(MMA_MXF4), A(MMA_MXF4)}, {OK_, OK_}},
    {"f32=nvf4.nvf4@120", P(F32), P(NVF4), P(NVF4), W, false, PTX, 120, 3,
     {A(MMA_NVF4), A(MMA_NVF4)}, {OK_, OK_}},
    /* tier 2: other destinations, mixes, policies, devices */
    {"f16=f16.f16/wide", P(F16), P(F16), P(F16), W, false, PTX, 0, 2,
     {A(MMA_F16), A(MMA_F16)}, {OK_, OK_}},
    {"f16=f16.f16/wide@90", P(F16), P(F16), P(F16), W, false, PTX, 90, 2,
     {A(MMA_F16), A(MMA_F16)}, {OK_, OK_}},
    {"f16=f16.f16/narrow@75", P(F16), P(F16), P(F16), N, false, PTX, 75, 2,
     {A(WMMA_F16), A(WMMA_F16)}, {OK_, OK_}},
    /* a Turing device: the statement gets inline PTX too, at f32 */
    {"f16=f16.f16/wide@75", P(F16), P(F16), P(F16), W, false, PTX, 75, 2,
     {A(MMA_F16_K8), A(MMA_F16_K8)}, {OK_, OK_}},
    {"f32=f16.f16/ptx@70", P(F32), P(F16), P(F16), W, false, PTX, 70, 2,
     {A(WMMA_F16F32), A(WMMA_F16F32)}, {OK_, OK_}},
    {"bf16=bf16.bf16", P(BF16), P(BF16), P(BF16), W, false, PTX, 0, 2,
     {A(MMA_BF16), A(MMA_BF16)}, {OK_, OK_}},
    {"bf16=bf16.bf16/wmma", P(BF16), P(BF16), P(BF16), W, false, WMMA, 0, 2,
     {A(MMA_BF16), A(MMA_BF16)}, {OK_, OK_}},
    {"f32=bf16.bf16/ptx@86", P(F32), P(BF16), P(BF16), W, false, PTX, 86, 2,
     {A(MMA_BF16), A(MMA_BF16)}, {OK_, OK_}},
    {"f32=e5m2.e5m2@89", P(F32), P(E5M2), P(E5M2), W, false, PTX, 89, 2,
     {A(MMA_FP8), A(MMA_FP8)}, {OK_, OK_}},
    {"f16=e4m3.e5m2", P(F16), P(E4M3), P(E5M2), W, false, PTX, 0, 2,
     {A(MMA_FP8), A(MMA_FP8)}, {OK_, OK_}},
    {"bf16=e5m2.e4m3", P(BF16), P(E5M2), P(E4M3), N, false, WMMA, 0, 2,
     {A(MMA_FP8), A(MMA_FP8)}, {OK_, OK_}},
    {"f32=f32.f32/tf32@90", P(F32), P(F32), P(F32), W, true, WMMA, 90, 2,
     {A(WMMA_TF32), A(WMMA_TF32)}, {OK_, OK_}},
    /* a call may name its arm: any arm resolution can choose for the triple
     * and policy; the staged destination still needs fragment scope */
    {"f16=f16.f16/wide/arm=wmma-f16-wide", P(F16), P(F16), P(F16), W, false, PTX, 0, 2,
     {NONE_ARM, A(WMMA_F16_WIDE)}, {D(CONVERTED_DEST), OK_}, "wmma-f16-wide"},
    {"f16=f16.f16/wide@70/arm=wmma-f16-wide", P(F16), P(F16), P(F16), W, false, PTX, 70, 0,
     {NONE_ARM, A(WMMA_F16_WIDE)}, {D(CONVERTED_DEST), OK_}, "wmma-f16-wide"},
    {"f32=f16.f16/ptx/arm=wmma-f16f32", P(F32), P(F16), P(F16), W, false, PTX, 0, 2,
     {A(WMMA_F16F32), A(WMMA_F16F32)}, {OK_, OK_}, "wmma-f16f32"},
    {"f16=e5m2.e4m3/narrow@90", P(F16), P(E5M2), P(E4M3), N, true, WMMA, 90, 2,
     {A(MMA_FP8_ACC16), A(MMA_FP8_ACC16)}, {OK_, OK_}},
    {"f64=f64.f64@90", P(F64), P(F64), P(F64), N, true, WMMA, 90, 2,
     {A(MMA_F64), A(MMA_F64)}, {OK_, OK_}},
    {"s32=u8.u8@86", P(S32), P(U8), P(U8), W, false, WMMA, 86, 2,
     {A(MMA_S8), A(MMA_S8)}, {OK_, OK_}},
    {"s32=s8.u8/sat@90", P(S32), P(S8), P(U8), N, true, PTX, 90, 2,
     {A(MMA_S8_SAT), A(MMA_S8_SAT)}, {OK_, OK_}, NULL, true},
    {"f32=mxe5m2.mxe4m3@121", P(F32), P(MXE5M2), P(MXE4M3), N, true, WMMA, 121, 2,
     {A(MMA_MXFP8), A(MMA_MXFP8)}, {OK_, OK_}},
    /* fp6 and fp4 mixes: with fp8 unscaled, and block-scaled through kind::mxf8f6f4 */
    {"f32=e4m3.e3m2@120", P(F32), P(E4M3), P(E3M2), W, false, PTX, 120, 2,
     {A(MMA_F8F6F4), A(MMA_F8F6F4)}, {OK_, OK_}},
    {"f32=e2m3.e2m1@121", P(F32), P(E2M3), P(E2M1), N, true, WMMA, 121, 2,
     {A(MMA_F8F6F4), A(MMA_F8F6F4)}, {OK_, OK_}},
    {"f32=mxf4.mxf4/arm=mma-mxfp8@120", P(F32), P(MXF4), P(MXF4), W, false, PTX, 120, 2,
     {A(MMA_MXFP8), A(MMA_MXFP8)}, {OK_, OK_}, "mma-mxfp8"},
    {"f32=mxe2m3.mxe3m2@120", P(F32), P(MXE2M3), P(MXE3M2), W, false, PTX, 120, 2,
     {A(MMA_MXFP8), A(MMA_MXFP8)}, {OK_, OK_}},
    {"f32=mxe4m3.mxf4@121", P(F32), P(MXE4M3), P(MXF4), W, false, PTX, 121, 2,
     {A(MMA_MXFP8), A(MMA_MXFP8)}, {OK_, OK_}},
    /* narrow lists wmma-f16 after the inline f16-accumulate arm: a call may name it */
    {"f16=f16.f16/narrow/arm=wmma-f16", P(F16), P(F16), P(F16), N, false, PTX, 86, 2,
     {A(WMMA_F16), A(WMMA_F16)}, {OK_, OK_}, "wmma-f16"},
    /* the Turing arm on a newer device, and wmma-tf32 under prefer ptx */
    {"f32=f16.f16/ptx/arm=mma-f16-k8", P(F32), P(F16), P(F16), W, false, PTX, 90, 2,
     {A(MMA_F16_K8), A(MMA_F16_K8)}, {OK_, OK_}, "mma-f16-k8"},
    {"f32=f32.f32/tf32/arm=wmma-tf32", P(F32), P(F32), P(F32), W, true, PTX, 86, 2,
     {A(WMMA_TF32), A(WMMA_TF32)}, {OK_, OK_}, "wmma-tf32"},
    /* prefer-ptx lists wmma-bf16 after the inline arm: a call may name it */
    {"f32=bf16.bf16/ptx/arm=wmma-bf16", P(F32), P(BF16), P(BF16), W, false, PTX, 90, 2,
     {A(WMMA_BF16), A(WMMA_BF16)}, {OK_, OK_}, "wmma-bf16"},
    /* naming an arm never lifts a numerics rule: tf32 off, fp16 narrow */
    {"f32=f32.f32/no-tf32/arm=wmma-tf32", P(F32), P(F32), P(F32), W, false, PTX, 0, 0,
     {NONE_ARM, NONE_ARM}, {D(NO_ARM), D(NO_ARM)}, "wmma-tf32"},
    {"f16=f16.f16/wide/arm=wmma-f16", P(F16), P(F16), P(F16), W, false, PTX, 0, 0,
     {NONE_ARM, NONE_ARM}, {D(NO_ARM), D(NO_ARM)}, "wmma-f16"},
    {"f32=bf16.bf16/ptx/arm=mma-f16", P(F32), P(BF16), P(BF16), W, false, PTX, 0, 0,
     {NONE_ARM, NONE_ARM}, {D(NO_ARM), D(NO_ARM)}, "mma-f16"},
    {"f32=e4m3.e4m3/arm=mma-fp8@80", P(F32), P(E4M3), P(E4M3), W, false, PTX, 80, 0,
     {NONE_ARM, NONE_ARM}, {D(FLOOR), D(FLOOR)}, "mma-fp8"},
    {"f16=e5m2.e5m2/wide/arm=mma-fp8-acc16", P(F16), P(E5M2), P(E5M2), W, false, PTX, 0, 0,
     {NONE_ARM, NONE_ARM}, {D(NO_ARM), D(NO_ARM)}, "mma-fp8-acc16"},
    {"f16=e4m3.e4m3/narrow@88", P(F16), P(E4M3), P(E4M3), N, false, PTX, 88, 0,
     {NONE_ARM, NONE_ARM}, {D(FLOOR), D(FLOOR)}},
    /* the policy picks wrapping or saturating: naming the other is no-arm */
    {"s32=s8.s8/arm=mma-s8-sat", P(S32), P(S8), P(S8), W, false, PTX, 0, 0,
     {NONE_ARM, NONE_ARM}, {D(NO_ARM), D(NO_ARM)}, "mma-s8-sat"},
    {"s32=s8.s8/sat/arm=mma-s8", P(S32), P(S8), P(S8), W, false, PTX, 0, 0,
     {NONE_ARM, NONE_ARM}, {D(NO_ARM), D(NO_ARM)}, "mma-s8", true},
    {"s32=s8.u8@75", P(S32), P(S8), P(U8), W, false, PTX, 75, 0,
     {NONE_ARM, NONE_ARM}, {D(FLOOR), D(FLOOR)}},
    {"f32=s8.s8", P(F32), P(S8), P(S8), W, false, PTX, 0, 0,
     {NONE_ARM, NONE_ARM}, {D(NO_ARM), D(NO_ARM)}},
    {"s32=s8.e4m3", P(S32), P(S8), P(E4M3), W, false, PTX, 0, 0,
     {NONE_ARM, NONE_ARM}, {D(NO_ARM), D(NO_ARM)}},
    {"f32=f32.f32/tf32/wmma/arm=mma-tf32", P(F32), P(F32), P(F32), W, true, WMMA, 0, 0,
     {NONE_ARM, NONE_ARM}, {D(NO_ARM), D(NO_ARM)}, "mma-tf32"},
    {"f32=f16.f16/ptx@70/arm=mma-f16-k8", P(F32), P(F16), P(F16), W, false, PTX, 70, 0,
     {NONE_ARM, NONE_ARM}, {D(FLOOR), D(FLOOR)}, "mma-f16-k8"},
    /* declines of resolution: no arm */
    {"f32=f32.f32/no-tf32", P(F32), P(F32), P(F32), W, false, PTX, 0, 0,
     {NONE_ARM, NONE_ARM}, {D(NO_ARM), D(NO_ARM)}},
    {"f32=f64.f64", P(F32), P(F64), P(F64), W, false, PTX, 0, 0,
     {NONE_ARM, NONE_ARM}, {D(NO_ARM), D(NO_ARM)}},
    {"f64=f64.f64@75", P(F64), P(F64), P(F64), W, false, PTX, 75, 0,
     {NONE_ARM, NONE_ARM}, {D(FLOOR), D(FLOOR)}},
    {"f32=f16.bf16", P(F32), P(F16), P(BF16), W, false, PTX, 0, 0,
     {NONE_ARM, NONE_ARM}, {D(NO_ARM), D(NO_ARM)}},
    {"f16=bf16.bf16", P(F16), P(BF16), P(BF16), W, false, PTX, 0, 0,
     {NONE_ARM, NONE_ARM}, {D(NO_ARM), D(NO_ARM)}},
    {"f32=e4m3.f16", P(F32), P(E4M3), P(F16), W, false, PTX, 0, 0,
     {NONE_ARM, NONE_ARM}, {D(NO_ARM), D(NO_ARM)}},
    /* declines of resolution: every listed arm above the device */
    {"f32=bf16.bf16/ptx@75", P(F32), P(BF16), P(BF16), W, false, PTX, 75, 0,
     {NONE_ARM, NONE_ARM}, {D(FLOOR), D(FLOOR)}},
    {"bf16=bf16.bf16@75", P(BF16), P(BF16), P(BF16), W, false, PTX, 75, 0,
     {NONE_ARM, NONE_ARM}, {D(FLOOR), D(FLOOR)}},
    {"f32=e4m3.e4m3@80", P(F32), P(E4M3), P(E4M3), W, false, PTX, 80, 0,
     {NONE_ARM, NONE_ARM}, {D(FLOOR), D(FLOOR)}},
    {"f16=e5m2.e4m3@88", P(F16), P(E5M2), P(E4M3), W, false, PTX, 88, 0,
     {NONE_ARM, NONE_ARM}, {D(FLOOR), D(FLOOR)}},
    {"f32=f32.f32/tf32@75", P(F32), P(F32), P(F32), W, true, PTX, 75, 0,
     {NONE_ARM, NONE_ARM}, {D(FLOOR), D(FLOOR)}},
    {"f16=f16.f16/narrow@61", P(F16), P(F16), P(F16), N, false, PTX, 61, 0,
     {NONE_ARM, NONE_ARM}, {D(FLOOR), D(FLOOR)}},
    {"f16=f16.f16/wide@61", P(F16), P(F16), P(F16), W, false, PTX, 61, 0,
     {NONE_ARM, NONE_ARM}, {D(FLOOR), D(FLOOR)}},
    {"f32=f16.f16/wmma@61", P(F32), P(F16), P(F16), W, false, WMMA, 61, 0,
     {NONE_ARM, NONE_ARM}, {D(FLOOR), D(FLOOR)}},
    /* the family arm off its family (12.x only): declined by floor; block
     * scales only with block-scaled elements on both sides */
    {"f32=mxe4m3.mxe4m3@90", P(F32), P(MXE4M3), P(MXE4M3), W, false, PTX, 90, 0,
     {NONE_ARM, NONE_ARM}, {D(FLOOR), D(FLOOR)}},
    {"f32=mxe5m2.mxe5m2@100", P(F32), P(MXE5M2), P(MXE5M2), W, false, PTX, 100, 0,
     {NONE_ARM, NONE_ARM}, {D(FLOOR), D(FLOOR)}},
    {"f32=mxe4m3.e4m3", P(F32), P(MXE4M3), P(E4M3), W, false, PTX, 0, 0,
     {NONE_ARM, NONE_ARM}, {D(NO_ARM), D(NO_ARM)}},
    {"f16=mxe4m3.mxe4m3", P(F16), P(MXE4M3), P(MXE4M3), W, false, PTX, 120, 0,
     {NONE_ARM, NONE_ARM}, {D(NO_ARM), D(NO_ARM)}},
    /* fp6/fp4 off 12.x; mixed scale types and an f16 destination have no arm */
    {"f32=e2m1.e3m2@100", P(F32), P(E2M1), P(E3M2), W, false, PTX, 100, 0,
     {NONE_ARM, NONE_ARM}, {D(FLOOR), D(FLOOR)}},
    {"f32=mxf4.mxf4@90", P(F32), P(MXF4), P(MXF4), W, false, PTX, 90, 0,
     {NONE_ARM, NONE_ARM}, {D(FLOOR), D(FLOOR)}},
    {"f32=nvf4.nvf4@100", P(F32), P(NVF4), P(NVF4), W, false, PTX, 100, 0,
     {NONE_ARM, NONE_ARM}, {D(FLOOR), D(FLOOR)}},
    {"f32=nvf4.mxf4", P(F32), P(NVF4), P(MXF4), W, false, PTX, 120, 0,
     {NONE_ARM, NONE_ARM}, {D(NO_ARM), D(NO_ARM)}},
    {"f16=e2m1.e2m1", P(F16), P(E2M1), P(E2M1), W, false, PTX, 120, 0,
     {NONE_ARM, NONE_ARM}, {D(NO_ARM), D(NO_ARM)}},
};

/* ---- axis: scopes ---- */

const matrix_scope matrix_scopes[3] = {
    {"statement", TCMMA_SCOPE_STATEMENT, 1},
    {"fragment-r1", TCMMA_SCOPE_FRAGMENT, 1},
    {"fragment-r3", TCMMA_SCOPE_FRAGMENT, 3},
};

/* ---- axis: orientations (a, b stored transposed) ---- */

const matrix_orient matrix_orients[4] = {{false, false}, {false, true}, {true, false}, {true, true}};

/* ---- axis: extents, in tiles of the expected arm ---- */

const matrix_extent matrix_extents[3] = {{1, 1, 1}, {2, 2, 2}, {3, 1, 2}};

/* ---- the cases ---- */

static verify_case matrix_cases[VERIFY_MATRIX_MAX];
static size_t ncases;

tcmma_call matrix_base_call(const matrix_row *r, tcmma_scope scope) {
  tcmma_call c;
  memset(&c, 0, sizeof c);
  c.size = sizeof c;
  c.d.prec = r->d, c.a.prec = r->a, c.b.prec = r->b;
  c.d.space = c.a.space = c.b.space = TCMMA_SPACE_GLOBAL;
  c.d.swizzle = c.a.swizzle = c.b.swizzle = TCMMA_SWIZZLE_NONE;
  c.scope = scope;
  c.cc = r->cc;
  c.numerics.fp16 = r->fp16;
  c.numerics.tf32 = r->tf32;
  c.numerics.prefer = r->prefer;
  c.numerics.saturate = r->saturate;
  c.lane = NULL;
  c.arm = r->force;
  /* block scales: the kernel renderer puts its own sa and sb in (dense) */
  if (tcmma_prec_is_scaled(r->a)) c.a.scale = "sa";
  if (tcmma_prec_is_scaled(r->b)) c.b.scale = "sb";
  return c;
}

/* A shared operand in swizzle sw: rows rounded up to whole spans of the
 * atom (SPAN bytes: 16 << bits, written here from docs/design.md §5). */
void matrix_set_swizzled(tcmma_operand_desc *o, tcmma_swizzle sw, long lead) {
  static const long span[] = {1, 32, 64, 128}; /* none, 32, 64, 128 */
  long eb = tcmma_prec_bytes(o->prec);
  o->space = TCMMA_SPACE_SHARED, o->swizzle = sw;
  o->ld = (lead * eb + span[sw] - 1) / span[sw] * span[sw] / eb;
}

/* An operand of the call. `lead` is the length of a stored row: global
 * operands are dense (ld 0, for the planner to fill in); plain shared rows
 * are padded by TCMMA_WMMA_ALIGN bytes, keeping wmma's row rule; swizzled
 * rows are rounded up to whole swizzle lines. */
void matrix_set_operand(tcmma_operand_desc *o, bool transposed, matrix_storage st, long lead) {
  long eb = tcmma_prec_bytes(o->prec);
  o->transposed = transposed;
  switch (st) {
  case ST_GLOBAL:
    o->space = TCMMA_SPACE_GLOBAL, o->swizzle = TCMMA_SWIZZLE_NONE;
    o->ld = 0;
    break;
  case ST_SHARED:
    o->space = TCMMA_SPACE_SHARED, o->swizzle = TCMMA_SWIZZLE_NONE;
    o->ld = lead + TCMMA_WMMA_ALIGN / eb;
    break;
  case ST_SWIZZLED:
    matrix_set_swizzled(o, TCMMA_SWIZZLE_B128, lead);
    break;
  }
}

/* An origin expression without its blanks, for a case name. */
static void squeeze(const char *expr, char *out, size_t cap) {
  size_t n = 0;
  for (const char *s = expr; s && *s && n + 1 < cap; s++)
    if (*s != ' ') out[n++] = *s;
  out[n] = '\0';
}

void matrix_describe(char *out, size_t cap, const tcmma_operand_desc *o) {
  snprintf(out, cap, "%s,%s", o->transposed ? "t" : "n",
           o->space == TCMMA_SPACE_THREAD                ? "thread"
           : o->swizzle == TCMMA_SWIZZLE_B128            ? "swizzled"
           : o->swizzle != TCMMA_SWIZZLE_NONE            ? "swizzle="
           : o->space == TCMMA_SPACE_SHARED              ? "shared"
                                                         : "global");
  size_t n = strlen(out);
  if (o->swizzle != TCMMA_SWIZZLE_NONE && o->swizzle != TCMMA_SWIZZLE_B128)
    snprintf(out + n, cap - n, "%s", tcmma_swizzle_name(o->swizzle));
  n = strlen(out);
  if (o->ld) snprintf(out + n, cap - n, ",ld=%ld", o->ld);
  n = strlen(out);
  if (o->row0.value || o->col0.value || o->row0.expr || o->col0.expr) {
    char r[TCMMA_EXPR_MAX + 1] = "", c[TCMMA_EXPR_MAX + 1] = "";
    squeeze(o->row0.expr, r, sizeof r);
    squeeze(o->col0.expr, c, sizeof c);
    snprintf(out + n, cap - n, ",at=%s%s%ld:%s%s%ld", r, *r ? "+" : "", o->row0.value, c,
             *c ? "+" : "", o->col0.value);
  }
}

void matrix_add(const verify_case *c) {
  if (ncases < VERIFY_MATRIX_MAX) matrix_cases[ncases++] = *c;
}

size_t matrix_cases_built(const verify_case **out) {
  if (out) *out = matrix_cases;
  return ncases;
}

const matrix_row *matrix_row_at(int i) {
  return i >= 0 && i < COUNT(rows) ? &rows[i] : NULL;
}

const matrix_row *matrix_find_row(const char *label) {
  for (int i = 0; i < COUNT(rows); i++)
    if (strcmp(rows[i].label, label) == 0) return &rows[i];
  return NULL;
}
