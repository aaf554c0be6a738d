/* The arm matrix (docs/design.md §12.1): every case the executors run, generated from
 * the compact axis tables below, never listed by hand.
 *
 * The expected arm or decline of each case is written here, in the
 * resolution rows, independently of tables/resolve.def and of
 * tcmma_resolve: the matrix is the oracle the planner is checked against.
 * Tiles are read from the arm table (through tcmma_arm_get) so that the
 * extents axis counts in tiles of the expected arm.
 *
 * Accepted cases: each tier-1 row runs the full product
 *   scopes (statement; fragment with outer reduction 1 and 3)
 *   x orientations (a, b stored transposed or not)
 *   x storages (global; shared plain; shared swizzled_b128 and a mix, the
 *     swizzled ones only for inline-PTX arms, since wmma has no swizzled load)
 * with the extents (1x1x1, 2x2x2, 3x1x2 tiles) rotating so that every
 * (row, scope, storage) sees every extent. Tier-2 rows (further destination
 * precisions, policies and devices) run scopes x storages with orientation
 * and extents rotating. Every row accepted on an inline-PTX arm (tier 1 or
 * 2) also runs each scope with each d storage (odd ld; transposed), with
 * orientation, a/b storage and extents rotating. Declined cases: one per
 * declining row and scope, plus the geometric mutations of the decline
 * table. */
#include <pthread.h>
#include <stdio.h>
#include <string.h>
#include "tools/verify/matrix.h"

#define NONE_ARM TCMMA_ARM_NONE
#define OK_ TCMMA_DECLINE_NONE

/* ---- axis: resolution rows ---- */


#define P(x) TCMMA_PREC_##x
#define A(x) TCMMA_ARM_##x
#define D(x) TCMMA_DECLINE_##x
#define W TCMMA_FP16_WIDE
#define N TCMMA_FP16_NARROW
#define PTX TCMMA_PREFER_PTX
#define WMMA TCMMA_PREFER_WMMA

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
};

/* ---- axis: scopes ---- */

const matrix_scope matrix_scopes[3] = {
    {"statement", TCMMA_SCOPE_STATEMENT, 1},
    {"fragment-r1", TCMMA_SCOPE_FRAGMENT, 1},
    {"fragment-r3", TCMMA_SCOPE_FRAGMENT, 3},
};

/* ---- axis: orientations (a, b stored transposed) ---- */

const matrix_orient matrix_orients[4] = {{false, false}, {false, true}, {true, false}, {true, true}};

/* ---- axis: storages of a and b ---- */


static const struct {
  matrix_storage a, b;
  bool inline_only; /* swizzled: wmma has no swizzled load (declined by layout) */
} storages[] = {
    {ST_GLOBAL, ST_GLOBAL, false},
    {ST_SHARED, ST_SHARED, false},
    {ST_SHARED, ST_GLOBAL, false},
    {ST_SWIZZLED, ST_SWIZZLED, true},
    {ST_SWIZZLED, ST_SHARED, true},
};

/* ---- axis: storages of d other than dense row-major (inline arms) ---- */

/* The inline d boundary moves register pairs as one access only where the
 * pair is adjacent and aligned (dense row-major d, every row above); these
 * take the element-by-element path: an odd ld misaligns every other row, a
 * transposed d puts a pair's elements in different stored rows. */
static const struct {
  bool transposed;
  long pad; /* elements added to the stored row length: the ld */
} d_storages[] = {{false, 1}, {true, 0}};

/* ---- axis: extents, in tiles of the expected arm ---- */

const matrix_extent matrix_extents[3] = {{1, 1, 1}, {2, 2, 2}, {3, 1, 2}};

#define COUNT(x) ((int)(sizeof(x) / sizeof((x)[0])))

/* ---- the decline table: one mutation of a base call each ---- */

typedef enum { MUT_EXTENTS, MUT_LD, MUT_SPACE, MUT_LAYOUT, MUT_ORIGIN } mutation_kind;

typedef struct {
  tcmma_decline expect;
  const char *row;    /* label of a resolution row */
  tcmma_scope scope;
  mutation_kind kind;
  char operand;       /* 'd', 'a' or 'b' (MUT_LD, MUT_SPACE, MUT_LAYOUT) */
  bool transposed;    /* the mutated operand's orientation */
  long m, n, k;       /* MUT_EXTENTS: the extents (elements) */
  long ld;            /* MUT_LD, MUT_LAYOUT: the leading dimension */
  tcmma_space space;  /* MUT_SPACE, MUT_LAYOUT, MUT_ORIGIN */
  const char *what;   /* readable mutation, part of the name */
  tcmma_swizzle swizzle; /* MUT_ORIGIN: the operand's swizzle, ld and origin */
  long row0, col0;
} decline_row;

#define STMT TCMMA_SCOPE_STATEMENT
#define FRAG TCMMA_SCOPE_FRAGMENT
#define SH TCMMA_SPACE_SHARED
#define GL TCMMA_SPACE_GLOBAL
#define TH TCMMA_SPACE_THREAD

/* Each mutation breaks exactly one planning rule (docs/design.md §5). */
static const decline_row declines[] = {
    /* extents: not positive multiples of the tile */
    {D(EXTENTS), "f32=f16.f16/ptx", STMT, MUT_EXTENTS, 0, false, 16, 8, 24, 0, GL, "k=24"},
    {D(EXTENTS), "f32=bf16.bf16/ptx", FRAG, MUT_EXTENTS, 0, false, 8, 8, 16, 0, GL, "m=8"},
    {D(EXTENTS), "f32=bf16.bf16/ptx", STMT, MUT_EXTENTS, 0, false, 0, 8, 16, 0, GL, "m=0"},
    {D(EXTENTS), "f32=e4m3.e4m3", STMT, MUT_EXTENTS, 0, false, 16, 8, 16, 0, GL, "k=16"},
    {D(EXTENTS), "f16=f16.f16/narrow/wmma", STMT, MUT_EXTENTS, 0, false, 16, 8, 16, 0, GL, "n=8"},
    {D(EXTENTS), "f16=e4m3.e5m2/narrow", FRAG, MUT_EXTENTS, 0, false, 16, 8, 48, 0, GL, "k=48"},
    {D(EXTENTS), "f64=f64.f64", STMT, MUT_EXTENTS, 0, false, 12, 8, 4, 0, GL, "m=12"},
    {D(EXTENTS), "f32=f32.f32/tf32", FRAG, MUT_EXTENTS, 0, false, 16, 16, 4, 0, GL, "k=4"},
    {D(EXTENTS), "f16=f16.f16/wide@70", FRAG, MUT_EXTENTS, 0, false, 16, 24, 16, 0, GL, "n=24"},
    {D(EXTENTS), "f32=f16.f16/ptx@75", STMT, MUT_EXTENTS, 0, false, 16, 8, 12, 0, GL, "k=12"},
    /* stride: wmma's ldm must be a multiple of 16 bytes (PTX ISA); the rows
     * of a swizzled tile are whole spans of the atom (128 bytes here) */
    {D(STRIDE), "f16=f16.f16/narrow/wmma", STMT, MUT_LD, 'a', false, 0, 0, 0, 20, GL, "a.ld=20"},
    {D(STRIDE), "f32=f32.f32/tf32/wmma", STMT, MUT_LD, 'b', true, 0, 0, 0, 10, GL, "b=t.ld=10"},
    {D(STRIDE), "f32=f16.f16/wmma", FRAG, MUT_LD, 'd', false, 0, 0, 0, 18, GL, "d.ld=18"},
    {D(STRIDE), "f32=bf16.bf16/wmma", STMT, MUT_LD, 'a', true, 0, 0, 0, 20, SH, "a=t.shared.ld=20"},
    {D(STRIDE), "f32=f16.f16/ptx", STMT, MUT_LAYOUT, 'a', false, 0, 0, 0, 72, SH,
     "a=swizzled.ld=72"},
    {D(STRIDE), "f32=e4m3.e4m3", FRAG, MUT_LAYOUT, 'b', true, 0, 0, 0, 48, SH,
     "b=t.swizzled.ld=48"},
    {D(STRIDE), "s32=u8.s8/sat", STMT, MUT_LD, 'a', false, 0, 0, 0, 34, GL, "a.ld=34"},
    {D(STRIDE), "f64=f64.f64", FRAG, MUT_LAYOUT, 'b', true, 0, 0, 0, 12, SH, "b=t.swizzled.ld=12"},
    /* space: thread-space operands */
    {D(SPACE), "f32=f16.f16/ptx", STMT, MUT_SPACE, 'a', false, 0, 0, 0, 0, TH, "a=thread"},
    {D(SPACE), "f32=bf16.bf16/wmma", STMT, MUT_SPACE, 'b', false, 0, 0, 0, 0, TH, "b=thread"},
    {D(SPACE), "bf16=bf16.bf16", STMT, MUT_SPACE, 'd', false, 0, 0, 0, 0, TH, "d=thread"},
    {D(SPACE), "f32=e4m3.e4m3", FRAG, MUT_SPACE, 'a', false, 0, 0, 0, 0, TH, "a=thread"},
    /* layout: a swizzled operand the arm cannot load */
    {D(LAYOUT), "f16=f16.f16/narrow/wmma", STMT, MUT_LAYOUT, 'a', false, 0, 0, 0, 64, SH,
     "a=swizzled"},
    {D(LAYOUT), "f32=f32.f32/tf32/wmma", FRAG, MUT_LAYOUT, 'b', false, 0, 0, 0, 32, SH,
     "b=swizzled"},
    {D(LAYOUT), "f16=f16.f16/wide@70", FRAG, MUT_LAYOUT, 'b', true, 0, 0, 0, 64, SH,
     "b=t.swizzled"},
    {D(LAYOUT), "f32=f32.f32/tf32", STMT, MUT_LAYOUT, 'a', true, 0, 0, 0, 64, GL,
     "a=t.global.swizzled"},
    {D(LAYOUT), "f32=bf16.bf16/ptx", STMT, MUT_LAYOUT, 'a', false, 0, 0, 0, 64, GL,
     "a=global.swizzled"},
    /* overflow: offsets that would not fit */
    {D(OVERFLOW), "f32=f16.f16/ptx", STMT, MUT_EXTENTS, 0, false, 1L << 30, 8, 16, 0, GL,
     "m=2^30"},
    {D(OVERFLOW), "f32=e4m3.e4m3", STMT, MUT_EXTENTS, 0, false, 16, 8, 1L << 30, 0, GL,
     "k=2^30"},
    {D(OVERFLOW), "f32=f16.f16/wmma", STMT, MUT_LD, 'a', false, 0, 0, 0, 1L << 33, GL,
     "a.ld=2^33"},
    /* subtile: origins off their layout's period: a swizzled tile's rows
     * (8) and 16-byte units, 32-bit register loads (4 bytes), wmma's
     * 32-byte-aligned pointer */
    {D(SUBTILE), "f32=bf16.bf16/ptx", STMT, MUT_ORIGIN, 'a', false, 0, 0, 0, 64, SH,
     "a=swizzled.at=4:0", TCMMA_SWIZZLE_B128, 4, 0},
    {D(SUBTILE), "f32=f16.f16/ptx", FRAG, MUT_ORIGIN, 'b', true, 0, 0, 0, 32, SH,
     "b=t.swizzle=64.at=0:4", TCMMA_SWIZZLE_B64, 0, 4},
    {D(SUBTILE), "f32=e4m3.e4m3", STMT, MUT_ORIGIN, 'a', false, 0, 0, 0, 64, GL, "a.at=0:2",
     TCMMA_SWIZZLE_NONE, 0, 2},
    {D(SUBTILE), "s32=s8.s8", FRAG, MUT_ORIGIN, 'b', true, 0, 0, 0, 64, GL, "b=t.at=0:3",
     TCMMA_SWIZZLE_NONE, 0, 3},
    {D(SUBTILE), "f32=f16.f16/wmma", STMT, MUT_ORIGIN, 'a', false, 0, 0, 0, 24, GL,
     "a.ld=24.at=1:0", TCMMA_SWIZZLE_NONE, 1, 0},
    /* registers: accumulators beyond the default budget (192 per lane) */
    {D(REGISTERS), "f32=bf16.bf16/ptx", FRAG, MUT_EXTENTS, 0, false, 128, 64, 16, 0, GL,
     "128x64"},
    {D(REGISTERS), "f32=f16.f16/wmma", STMT, MUT_EXTENTS, 0, false, 64, 128, 16, 0, GL,
     "64x128"},
    /* unroll: more than 1024 tile products in one statement or update */
    {D(UNROLL), "f32=bf16.bf16/ptx", STMT, MUT_EXTENTS, 0, false, 16, 8, 16 * 1025, 0, GL,
     "k=16*1025"},
    {D(UNROLL), "f32=f32.f32/tf32", FRAG, MUT_EXTENTS, 0, false, 16, 16, 8 * 1025, 0, GL,
     "k=8*1025"},
};

/* ---- building ---- */


static tcmma_case matrix_cases[TCMMA_MATRIX_MAX];
static size_t ncases;
static pthread_once_t once = PTHREAD_ONCE_INIT;

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

void matrix_add(const tcmma_case *c) {
  if (ncases < TCMMA_MATRIX_MAX) matrix_cases[ncases++] = *c;
}

static void add_accepted_d(const matrix_row *r, int s, int o, int st, int e, int ds) {
  tcmma_arm arm = r->arm[matrix_scopes[s].scope];
  const tcmma_arm_info *info = tcmma_arm_get(arm);
  if (!info) return;
  tcmma_case c;
  memset(&c, 0, sizeof c);
  c.call = matrix_base_call(r, matrix_scopes[s].scope);
  c.outer = matrix_scopes[s].outer;
  c.expect = TCMMA_DECLINE_NONE;
  c.expect_arm = arm;
  c.call.m = matrix_extents[e].mt * info->m;
  c.call.n = matrix_extents[e].nt * info->n;
  c.call.k = matrix_extents[e].kt * info->k;
  /* a: m x k (transposed: k x m); b: k x n (transposed: n x k) */
  matrix_set_operand(&c.call.a, matrix_orients[o].a_t, storages[st].a, matrix_orients[o].a_t ? c.call.m : c.call.k);
  matrix_set_operand(&c.call.b, matrix_orients[o].b_t, storages[st].b, matrix_orients[o].b_t ? c.call.k : c.call.n);
  char a[48], b[48], d[56] = "";
  matrix_describe(a, sizeof a, &c.call.a);
  matrix_describe(b, sizeof b, &c.call.b);
  if (ds >= 0) {
    /* d: m x n (transposed: n x m), global */
    c.call.d.transposed = d_storages[ds].transposed;
    c.call.d.ld = d_storages[ds].pad ? (c.call.d.transposed ? c.call.m : c.call.n) +
                                           d_storages[ds].pad
                                     : 0;
    snprintf(d, sizeof d, "/d=");
    matrix_describe(d + 3, sizeof d - 3, &c.call.d);
  }
  snprintf(c.name, sizeof c.name, "%s/%s/%s/%dx%dx%d/a=%s/b=%s%s", info->marker, r->label,
           matrix_scopes[s].label, c.call.m, c.call.n, c.call.k, a, b, d);
  matrix_add(&c);
}

static void add_accepted(const matrix_row *r, int s, int o, int st, int e) {
  add_accepted_d(r, s, o, st, e, -1);
}

const matrix_row *matrix_row_at(int i) {
  return i >= 0 && i < COUNT(rows) ? &rows[i] : NULL;
}

const matrix_row *matrix_find_row(const char *label) {
  for (int i = 0; i < COUNT(rows); i++)
    if (strcmp(rows[i].label, label) == 0) return &rows[i];
  return NULL;
}

/* The one-tile base geometry of a decline: a tile of the row's arm (of the
 * statement-scope arm, else the fragment-scope one), or 16x16x32, which is
 * a multiple of every arm's tile, when the row has no arm. */
static void base_extents(const matrix_row *r, tcmma_call *c) {
  const tcmma_arm_info *info = tcmma_arm_get(r->arm[c->scope]);
  if (!info) info = tcmma_arm_get(r->arm[TCMMA_SCOPE_FRAGMENT]);
  c->m = info ? info->m : 16;
  c->n = info ? info->n : 16;
  c->k = info ? info->k : 32;
}

static void add_resolution_decline(const matrix_row *r, int s) {
  tcmma_case c;
  memset(&c, 0, sizeof c);
  c.call = matrix_base_call(r, matrix_scopes[s].scope);
  c.outer = matrix_scopes[s].outer;
  c.expect = r->why[matrix_scopes[s].scope];
  c.expect_arm = TCMMA_ARM_NONE;
  base_extents(r, &c.call);
  snprintf(c.name, sizeof c.name, "decline-%s/%s/%s/%dx%dx%d", tcmma_decline_name(c.expect),
           r->label, matrix_scopes[s].label, c.call.m, c.call.n, c.call.k);
  matrix_add(&c);
}

static void add_mutation(const decline_row *dr) {
  const matrix_row *r = matrix_find_row(dr->row);
  if (!r) return;
  tcmma_case c;
  memset(&c, 0, sizeof c);
  c.call = matrix_base_call(r, dr->scope);
  c.outer = 1;
  c.expect = dr->expect;
  c.expect_arm = r->arm[dr->scope];
  base_extents(r, &c.call);
  tcmma_operand_desc *o = dr->operand == 'a'   ? &c.call.a
                          : dr->operand == 'b' ? &c.call.b
                          : dr->operand == 'd' ? &c.call.d
                                               : NULL;
  switch (dr->kind) {
  case MUT_EXTENTS:
    c.call.m = (int)dr->m, c.call.n = (int)dr->n, c.call.k = (int)dr->k;
    break;
  case MUT_LD:
    if (o) o->ld = dr->ld, o->transposed = dr->transposed, o->space = dr->space;
    break;
  case MUT_SPACE:
    if (o) o->space = dr->space, o->transposed = dr->transposed;
    break;
  case MUT_LAYOUT:
    if (o)
      o->swizzle = TCMMA_SWIZZLE_B128, o->space = dr->space, o->ld = dr->ld,
      o->transposed = dr->transposed;
    break;
  case MUT_ORIGIN:
    if (o)
      o->swizzle = dr->swizzle, o->space = dr->space, o->ld = dr->ld,
      o->transposed = dr->transposed, o->row0.value = dr->row0, o->col0.value = dr->col0;
    break;
  }
  snprintf(c.name, sizeof c.name, "decline-%s/%s/%s/%s", tcmma_decline_name(c.expect), r->label,
           tcmma_scope_name(dr->scope), dr->what);
  matrix_add(&c);
}

static void build(void) {
  for (int i = 0; i < COUNT(rows); i++) {
    const matrix_row *r = &rows[i];
    for (int s = 0; s < COUNT(matrix_scopes); s++) {
      tcmma_scope sc = matrix_scopes[s].scope;
      if (r->why[sc] != TCMMA_DECLINE_NONE) {
        /* one case per declining scope; outer 3 adds nothing to a decline */
        if (matrix_scopes[s].outer == 1) add_resolution_decline(r, s);
        continue;
      }
      const tcmma_arm_info *info = tcmma_arm_get(r->arm[sc]);
      bool is_wmma = info && info->form == TCMMA_FORM_WMMA;
      for (int st = 0; st < COUNT(storages); st++) {
        if (storages[st].inline_only && is_wmma) continue;
        if (r->tier == 1) {
          for (int o = 0; o < COUNT(matrix_orients); o++)
            add_accepted(r, s, o, st, (o + st + s) % COUNT(matrix_extents));
        } else if (r->tier >= 2) {
          add_accepted(r, s, (s + st + i) % COUNT(matrix_orients), st, (s + 2 * st + i) % COUNT(matrix_extents));
        }
      }
      if (r->tier >= 1 && info && info->form == TCMMA_FORM_PTX)
        for (int ds = 0; ds < COUNT(d_storages); ds++)
          add_accepted_d(r, s, (i + s + ds) % COUNT(matrix_orients), (i + 2 * s + ds) % COUNT(storages),
                         (i + s + 2 * ds + 1) % COUNT(matrix_extents), ds);
    }
  }
  for (int i = 0; i < COUNT(declines); i++) add_mutation(&declines[i]);
  matrix_add_layout_cases();
}

static void build_once(void) { build(); }

size_t tcmma_matrix(const tcmma_case **out) {
  pthread_once(&once, build_once);
  if (out) *out = matrix_cases;
  return ncases;
}

/* ---- expectations derived from the case ---- */

/* Whether the eight 16-byte rows of an ldmatrix matrix land in eight
 * distinct bank groups (address bits 4-6), for every 16-byte column unit:
 * the swizzle of docs/design.md §5 restated here, byte c of row r at
 * r*ld_bytes + (c ^ ((r >> (3 - B)) & (2^B - 1)) * 16). */
static bool rows_conflict_free(tcmma_swizzle sw, long ld_bytes) {
  static const int bits_of[] = {0, 1, 2, 3}; /* none, 32, 64, 128 */
  int b = bits_of[sw];
  if (ld_bytes % 16 || (b && ld_bytes % (16L << b))) return false;
  for (long unit = 0; unit < 8; unit++) {
    bool seen[8] = {false};
    for (long r = 0; r < 8; r++) {
      long mask = b ? ((r >> (3 - b)) & ((1 << b) - 1)) * 16 : 0;
      long group = ((r * ld_bytes + ((unit * 16) ^ mask)) / 16) % 8;
      if (seen[group]) return false;
      seen[group] = true;
    }
  }
  return true;
}

void tcmma_case_expect_ldmatrix(const tcmma_case *c, bool *a, bool *b) {
  const tcmma_arm_info *info = tcmma_arm_get(c->expect_arm);
  bool inline_arm = c->expect == TCMMA_DECLINE_NONE && info && info->form == TCMMA_FORM_PTX;
  const tcmma_operand_desc *o[2] = {&c->call.a, &c->call.b};
  bool out[2];
  for (int i = 0; i < 2; i++) {
    long eb = tcmma_prec_bytes(o[i]->prec), ld = o[i]->ld;
    if (!ld) tcmma_operand_stored_shape(&c->call, i ? TCMMA_OPERAND_B : TCMMA_OPERAND_A, NULL,
                                        NULL, &ld);
    long cm = o[i]->col0.multiple > 0 ? o[i]->col0.multiple : 1;
    /* every lane's row a whole 16-byte unit: the column origin too */
    bool unit_origin = (o[i]->col0.value * eb) % 16 == 0 && (!o[i]->col0.expr || (cm * eb) % 16 == 0);
    /* A's k runs along a stored row when not transposed; B's when transposed */
    bool k_contiguous = i == 0 ? !o[i]->transposed : o[i]->transposed;
    /* ldmatrix delivers 32-bit registers: 64-bit elements never */
    out[i] = inline_arm && o[i]->space == TCMMA_SPACE_SHARED && unit_origin &&
             rows_conflict_free(o[i]->swizzle, ld * eb) && tcmma_prec_bits(o[i]->prec) <= 32 &&
             (tcmma_prec_bits(o[i]->prec) == 16 || k_contiguous);
  }
  if (a) *a = out[0];
  if (b) *b = out[1];
}

bool tcmma_case_in_subset(const tcmma_case *c) {
  if (c->expect != TCMMA_DECLINE_NONE) return true;
  const tcmma_case *all;
  size_t n = tcmma_matrix(&all);
  bool a, b;
  tcmma_case_expect_ldmatrix(c, &a, &b);
  for (size_t i = 0; i < n && &all[i] != c; i++) {
    const tcmma_case *o = &all[i];
    bool oa, ob;
    tcmma_case_expect_ldmatrix(o, &oa, &ob);
    if (o->expect == TCMMA_DECLINE_NONE && o->expect_arm == c->expect_arm &&
        o->call.scope == c->call.scope && o->outer == c->outer && oa == a && ob == b &&
        o->call.a.transposed == c->call.a.transposed &&
        o->call.b.transposed == c->call.b.transposed)
      return false; /* an earlier case covers the stratum */
  }
  return true;
}
