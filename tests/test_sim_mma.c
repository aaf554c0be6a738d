/* mma.sync and ldmatrix models, driven by hand-written host-dialect lane
 * functions that gather fragments per the PTX ISA layouts (written here, in
 * the ISA's register-by-register form) and compared with a plain C matrix
 * product on integer-valued inputs, where every product and sum is exact. */
#include "util.h"
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "tcmma/sim.h"

enum { M = 16, N = 8, KMAX = 32 };

typedef enum { T_F16, T_BF16, T_E4M3, T_E5M2 } elem_type;
static const char *const type_names[] = {"f16", "bf16", "e4m3", "e5m2"};

typedef struct {
  const char *opcode;
  int k;
  elem_type ta, tb;
  uint32_t a_bits[M][KMAX], b_bits[KMAX][N]; /* storage patterns */
  float c[M][N], d[M][N];
  bool use_ldmatrix;
  uint16_t a_smem[M][8 * 2] __attribute__((aligned(16))); /* A row-major, k = 16 */
  uint16_t b_smem[16][N] __attribute__((aligned(16)));    /* B stored k x n, row-major */
} mma_case;

static uint32_t encode(elem_type t, float v) {
  switch (t) {
  case T_F16: return tcmma_sim_float2half_rn(v).bits;
  case T_BF16: return tcmma_sim_float2bfloat16_rn(v).bits;
  case T_E4M3: return tcmma_sim_float_to_e4m3(v);
  default: return tcmma_sim_float_to_e5m2(v);
  }
}

/* Pack element values into 32-bit registers: 16-bit (k16) or 8-bit (k32)
 * pieces, the first element in the lowest bits. */
static void put(uint32_t *reg, int piece, int k, uint32_t bits) {
  int w = k == 16 ? 16 : 8;
  *reg |= bits << (w * piece);
}

/* A lane of a one-warp kernel in the host dialect. The register formulas
 * follow the PTX ISA figures: for m16n8k16 A, a0:a1 at (g, 2q..), a2:a3 at
 * (g+8, 2q..), a4:a5 at (g, 2q+8..), a6:a7 at (g+8, 2q+8..); B b0:b1 at
 * (2q.., g), b2:b3 at (2q+8.., g). For m16n8k32 the same with four bytes per
 * register and 4q, 16 in place of 2q, 8. C: c0:c1 at (g, 2q..), c2:c3 at
 * (g+8, 2q..). */
static void lane_mma(void *arg) {
  mma_case *t = arg;
  unsigned lane = tcmma_sim_lane(), g = lane / 4, q = lane % 4;
  int per = t->k == 16 ? 2 : 4, step = t->k == 16 ? 8 : 16;
  uint32_t a[4] = {0}, b[2] = {0};
  float c[4], d[4];
  for (int r = 0; r < 4; r++)
    for (int p = 0; p < per; p++) {
      unsigned row = g + 8 * (r % 2), col = (unsigned)per * q + (unsigned)p + (unsigned)step * (r / 2);
      put(&a[r], p, t->k, t->a_bits[row][col]);
    }
  for (int r = 0; r < 2; r++)
    for (int p = 0; p < per; p++) {
      unsigned kk = (unsigned)per * q + (unsigned)p + (unsigned)step * (unsigned)r;
      put(&b[r], p, t->k, t->b_bits[kk][g]);
    }
  if (t->use_ldmatrix) {
    /* docs/design.md §7: A via .x4, lane l at A[l%16][(l/16)*8]; B (k x n) via
     * .x2.trans, lane l at row k = l%16. */
    uint32_t la[4], lb[2];
    tcmma_sim_ldmatrix("ldmatrix.sync.aligned.m8n8.x4.shared.b16", la,
                       &t->a_smem[lane % 16][(lane / 16) * 8]);
    tcmma_sim_ldmatrix("ldmatrix.sync.aligned.m8n8.x2.trans.shared.b16", lb,
                       &t->b_smem[lane % 16][0]);
    memcpy(a, la, sizeof a);
    memcpy(b, lb, sizeof b);
  }
  for (int i = 0; i < 4; i++) c[i] = t->c[g + 8 * (i / 2)][2 * q + (unsigned)(i % 2)];
  tcmma_sim_mma(t->opcode, d, a, b, c);
  for (int i = 0; i < 4; i++) t->d[g + 8 * (i / 2)][2 * q + (unsigned)(i % 2)] = d[i];
}

/* Small integers: exact in every operand format and in the f32 sum. */
static void fill(mma_case *t, unsigned seed) {
  srand(seed);
  for (int r = 0; r < M; r++)
    for (int k = 0; k < t->k; k++) t->a_bits[r][k] = encode(t->ta, (float)(rand() % 9 - 4));
  for (int k = 0; k < t->k; k++)
    for (int n = 0; n < N; n++) t->b_bits[k][n] = encode(t->tb, (float)(rand() % 9 - 4));
  for (int r = 0; r < M; r++)
    for (int n = 0; n < N; n++) t->c[r][n] = (float)(rand() % 201 - 100);
}

static float value(elem_type t, uint32_t bits) {
  switch (t) {
  case T_F16: return tcmma_sim_half2float((tcmma_sim_half){(uint16_t)bits});
  case T_BF16: return tcmma_sim_bfloat162float((tcmma_sim_bfloat16){(uint16_t)bits});
  case T_E4M3: return tcmma_sim_e4m3_to_float((uint8_t)bits);
  default: return tcmma_sim_e5m2_to_float((uint8_t)bits);
  }
}

static void check_product(const mma_case *t) {
  for (int r = 0; r < M; r++)
    for (int n = 0; n < N; n++) {
      float want = t->c[r][n];
      for (int k = 0; k < t->k; k++)
        want += value(t->ta, t->a_bits[r][k]) * value(t->tb, t->b_bits[k][n]);
      if (t->d[r][n] != want)
        fail_msg("%s: D[%d][%d] = %g, expected %g", t->opcode, r, n, t->d[r][n], want);
    }
}

static void run_case(const char *opcode, int k, elem_type ta, elem_type tb, bool ldmatrix) {
  mma_case *t = calloc(1, sizeof *t);
  assert_non_null(t);
  t->opcode = opcode, t->k = k, t->ta = ta, t->tb = tb, t->use_ldmatrix = ldmatrix;
  fill(t, (unsigned)(k * 7 + ta * 3 + tb));
  for (int r = 0; r < M; r++)
    for (int c = 0; c < 16; c++) t->a_smem[r][c] = (uint16_t)t->a_bits[r][c];
  for (int r = 0; r < 16; r++)
    for (int c = 0; c < N; c++) t->b_smem[r][c] = (uint16_t)t->b_bits[r][c];
  tcmma_error err;
  tcmma_status st = tcmma_sim_launch(lane_mma, t, &err);
  if (st != TCMMA_OK) fail_msg("%s: %s", opcode, err.message);
  check_product(t);
  free(t);
}

static void mma_f16_bf16(void **state) {
  (void)state;
  run_case("mma.sync.aligned.m16n8k16.row.col.f32.f16.f16.f32", 16, T_F16, T_F16, false);
  run_case("mma.sync.aligned.m16n8k16.row.col.f32.bf16.bf16.f32", 16, T_BF16, T_BF16, false);
}

static void mma_fp8_all_mixes(void **state) {
  (void)state;
  for (int ta = T_E4M3; ta <= T_E5M2; ta++)
    for (int tb = T_E4M3; tb <= T_E5M2; tb++) {
      char op[96];
      snprintf(op, sizeof op, "mma.sync.aligned.m16n8k32.row.col.f32.%s.%s.f32", type_names[ta],
               type_names[tb]);
      run_case(op, 32, (elem_type)ta, (elem_type)tb, false);
    }
}

/* ldmatrix.x4 of A and .x2.trans of B give exactly the mma fragments. */
static void mma_through_ldmatrix(void **state) {
  (void)state;
  run_case("mma.sync.aligned.m16n8k16.row.col.f32.f16.f16.f32", 16, T_F16, T_F16, true);
  run_case("mma.sync.aligned.m16n8k16.row.col.f32.bf16.bf16.f32", 16, T_BF16, T_BF16, true);
}

/* Accumulation is at f32: 2^24 + 1 is not representable and rounds to even. */
static void mma_rounds_to_f32(void **state) {
  (void)state;
  mma_case *t = calloc(1, sizeof *t);
  assert_non_null(t);
  t->opcode = "mma.sync.aligned.m16n8k16.row.col.f32.f16.f16.f32", t->k = 16;
  t->ta = t->tb = T_F16;
  for (int r = 0; r < M; r++)
    for (int k = 0; k < 16; k++) t->a_bits[r][k] = encode(T_F16, k == 0 ? 1.0f : 0.0f);
  for (int k = 0; k < 16; k++)
    for (int n = 0; n < N; n++) t->b_bits[k][n] = encode(T_F16, k == 0 ? 1.0f : 0.0f);
  for (int r = 0; r < M; r++)
    for (int n = 0; n < N; n++) t->c[r][n] = 16777216.0f; /* 2^24 */
  tcmma_error err;
  assert_int_equal(tcmma_sim_launch(lane_mma, t, &err), TCMMA_OK);
  for (int r = 0; r < M; r++)
    for (int n = 0; n < N; n++) assert_true(t->d[r][n] == 16777216.0f);
  free(t);
}

static void mma_unknown_opcode(void **state) {
  (void)state;
  static const char *const bad[] = {
      "mma.sync.aligned.m16n8k16.row.col.f32.f16.bf16.f32", /* mixed 16-bit types */
      "mma.sync.aligned.m16n8k8.row.col.f32.f16.f16.f32",
      "mma.sync.aligned.m16n8k32.row.col.f32.e4m3.f16.f32",
      "mma.sync.aligned.kind::mxf8f6f4.block_scale.scale_vec::1X.m16n8k32.row.col.f32.e4m3.e4m3.f32.ue8m0",
      "mma.sync.aligned.m16n8k16.row.col.f32.f16.f16.f32 ",
      "garbage",
  };
  for (size_t i = 0; i < sizeof bad / sizeof *bad; i++) {
    mma_case *t = calloc(1, sizeof *t);
    assert_non_null(t);
    t->opcode = bad[i], t->k = 16, t->ta = t->tb = T_F16;
    tcmma_error err;
    assert_int_equal(tcmma_sim_launch(lane_mma, t, &err), TCMMA_INVALID);
    if (!strstr(err.message, bad[i])) fail_msg("message does not name '%s': %s", bad[i], err.message);
    free(t);
  }
}

/* ---- ldmatrix against the rule of docs/design.md §7 ---- */

typedef struct {
  const char *opcode;
  int count;
  bool trans;
  uint16_t mats[4][8][8] __attribute__((aligned(16))); /* matrix, row, column */
  uint32_t got[32][4];
  int misalign;
} ld_case;

static void lane_ldmatrix(void *arg) {
  ld_case *t = arg;
  unsigned l = tcmma_sim_lane();
  uint32_t regs[4] = {0};
  /* Lane l gives row l&7 of matrix l>>3 (lanes past the used matrices give
   * NULL, which must not be read). */
  const void *row = (int)(l >> 3) < t->count ? (const void *)t->mats[l >> 3][l & 7] : NULL;
  if (t->misalign && l == 3) row = (const char *)row + 2;
  tcmma_sim_ldmatrix(t->opcode, regs, row);
  memcpy(t->got[l], regs, sizeof regs);
}

static void ldmatrix_rule(void **state) {
  (void)state;
  for (int count = 1; count <= 4; count *= 2)
    for (int trans = 0; trans < 2; trans++) {
      ld_case *t = calloc(1, sizeof *t);
      assert_non_null(t);
      char op[80];
      snprintf(op, sizeof op, "ldmatrix.sync.aligned.m8n8.x%d%s.shared.b16", count,
               trans ? ".trans" : "");
      t->opcode = op, t->count = count, t->trans = trans;
      for (int j = 0; j < 4; j++)
        for (int r = 0; r < 8; r++)
          for (int c = 0; c < 8; c++) t->mats[j][r][c] = (uint16_t)(j * 1000 + r * 10 + c);
      tcmma_error err;
      if (tcmma_sim_launch(lane_ldmatrix, t, &err) != TCMMA_OK) fail_msg("%s: %s", op, err.message);
      for (unsigned l = 0; l < 32; l++)
        for (int j = 0; j < count; j++) {
          unsigned r = l >> 2, c = 2 * (l & 3);
          uint16_t lo = trans ? t->mats[j][c][r] : t->mats[j][r][c];
          uint16_t hi = trans ? t->mats[j][c + 1][r] : t->mats[j][r][c + 1];
          assert_int_equal(t->got[l][j], (uint32_t)lo | (uint32_t)hi << 16);
        }
      free(t);
    }
}

static void ldmatrix_bad(void **state) {
  (void)state;
  ld_case *t = calloc(1, sizeof *t);
  assert_non_null(t);
  tcmma_error err;
  t->opcode = "ldmatrix.sync.aligned.m8n8.x3.shared.b16", t->count = 4;
  assert_int_equal(tcmma_sim_launch(lane_ldmatrix, t, &err), TCMMA_INVALID);
  assert_non_null(strstr(err.message, "x3"));
  t->opcode = "ldmatrix.sync.aligned.m8n8.x4.shared.b16", t->misalign = 1;
  assert_int_equal(tcmma_sim_launch(lane_ldmatrix, t, &err), TCMMA_INVALID);
  assert_non_null(strstr(err.message, "lane 3"));
  free(t);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(mma_f16_bf16),        cmocka_unit_test(mma_fp8_all_mixes),
      cmocka_unit_test(mma_through_ldmatrix), cmocka_unit_test(mma_rounds_to_f32),
      cmocka_unit_test(mma_unknown_opcode),  cmocka_unit_test(ldmatrix_rule),
      cmocka_unit_test(ldmatrix_bad),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
