/* mma.sync and ldmatrix models, driven by hand-written host-dialect lane
 * functions that gather fragments per the PTX ISA layouts (written here, in
 * the ISA's element-by-element form) and compared with a plain C matrix
 * product on integer-valued inputs, where every product and sum is exact;
 * plus the rounding, wrapping, saturation, fused multiply-add and block-scale
 * selector rules of each form. */
#include "util.h"
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "tcmma/sim.h"

enum { MMAX = 16, NMAX = 8, KMAX = 32 };

typedef enum { T_F16, T_BF16, T_E4M3, T_E5M2, T_TF32, T_S8, T_U8, T_F32, T_S32, T_F64 } elem_type;
static const char *const type_names[] = {"f16", "bf16", "e4m3", "e5m2", "tf32",
                                         "s8",  "u8",   "f32",  "s32",  "f64"};
static const int type_bits[] = {16, 16, 8, 8, 32, 8, 8, 32, 32, 64};

/* ---- the PTX ISA's fragment layouts, element i of lane (g, q) ---- */

static void a_elem(int m, int k, elem_type t, int lane, int i, int *row, int *col) {
  int g = lane >> 2, q = lane & 3;
  if (m == 8) { /* m8n8k4 .f64: row = %laneid >> 2, col = %laneid % 4 */
    *row = g, *col = q;
  } else if (k == 8 && t == T_TF32) { /* a0,a2 row g; a1,a3 g+8; a0,a1 col q; a2,a3 q+4 */
    *row = (i == 0 || i == 2) ? g : g + 8;
    *col = i < 2 ? q : q + 4;
  } else if (k == 8) { /* a0,a1 row g; a2,a3 g+8; col q*2 + (i & 1) */
    *row = i < 2 ? g : g + 8;
    *col = q * 2 + (i & 1);
  } else if (k == 16) { /* a0,a1,a4,a5 row g; col q*2 + (i & 1), +8 for i >= 4 */
    *row = (i == 0 || i == 1 || i == 4 || i == 5) ? g : g + 8;
    *col = q * 2 + (i & 1) + 8 * (i >= 4);
  } else { /* k32, 8-bit: a0..a3, a8..a11 row g; col q*4 + (i & 3), +16 for i >= 8 */
    *row = (i <= 3 || (i >= 8 && i <= 11)) ? g : g + 8;
    *col = q * 4 + (i & 3) + 16 * (i >= 8);
  }
}

static int b_elem(int m, int k, elem_type t, int lane, int i) {
  int q = lane & 3;
  if (m == 8) return q;                           /* row = %laneid % 4 */
  if (k == 8 && t == T_TF32) return i ? q + 4 : q; /* b0 q, b1 q+4 */
  if (k == 8) return q * 2 + i;                    /* b0, b1 */
  if (k == 16) return q * 2 + (i & 1) + 8 * (i >= 2);
  return q * 4 + (i & 3) + 16 * (i >= 4);
}

static void c_elem(int m, int lane, int i, int *row, int *col) {
  int g = lane >> 2, q = lane & 3;
  *row = m == 8 ? g : (i < 2 ? g : g + 8); /* c0,c1 row g; c2,c3 g+8 */
  *col = q * 2 + (i & 1);
}

/* ---- values and registers ---- */

static uint32_t encode(elem_type t, double v) {
  float f = (float)v;
  uint32_t u;
  switch (t) {
  case T_F16: return tcmma_sim_float2half_rn(f).bits;
  case T_BF16: return tcmma_sim_float2bfloat16_rn(f).bits;
  case T_E4M3: return tcmma_sim_float_to_e4m3(f);
  case T_E5M2: return tcmma_sim_float_to_e5m2(f);
  case T_S8: return (uint8_t)(int8_t)v;
  case T_U8: return (uint8_t)v;
  case T_S32: return (uint32_t)(int32_t)v;
  default: memcpy(&u, &f, 4); return u; /* f32, tf32 */
  }
}

static double decode(elem_type t, uint32_t bits) {
  float f;
  switch (t) {
  case T_F16: return tcmma_sim_half2float((tcmma_sim_half){(uint16_t)bits});
  case T_BF16: return tcmma_sim_bfloat162float((tcmma_sim_bfloat16){(uint16_t)bits});
  case T_E4M3: return tcmma_sim_e4m3_to_float((uint8_t)bits);
  case T_E5M2: return tcmma_sim_e5m2_to_float((uint8_t)bits);
  case T_S8: return (int8_t)bits;
  case T_U8: return (uint8_t)bits;
  case T_S32: return (int32_t)bits;
  default: memcpy(&f, &bits, 4); return f;
  }
}

/* A lane's registers of one fragment: 32-bit words (low element first) or
 * one double per register for f64. */
typedef union {
  uint32_t w[16];
  double f[16];
} lane_regs;

static void put(lane_regs *r, elem_type t, int i, double v) {
  if (t == T_F64) {
    r->f[i] = v;
    return;
  }
  int w = type_bits[t], per = 32 / w;
  uint32_t mask = w == 32 ? 0xffffffffu : (1u << w) - 1;
  r->w[i / per] = (r->w[i / per] & ~(mask << (w * (i % per)))) |
                  (encode(t, v) & mask) << (w * (i % per));
}

static double get(const lane_regs *r, elem_type t, int i) {
  if (t == T_F64) return r->f[i];
  int w = type_bits[t], per = 32 / w;
  uint32_t word = r->w[i / per];
  return decode(t, w == 32 ? word : (word >> (w * (i % per))) & ((1u << w) - 1));
}

typedef struct {
  const char *opcode;
  int m, n, k;
  elem_type ta, tb, tc; /* tc: the accumulator (C and D) */
  double a[MMAX][KMAX], b[KMAX][NMAX], c[MMAX][NMAX], d[MMAX][NMAX];
  /* block scaling: the ue8m0 exponent of each row of A and column of B, and
   * the selectors; lanes the selectors leave out hold 0xff (NaN) */
  bool scaled;
  uint8_t sf_a[MMAX], sf_b[NMAX];
  unsigned byte_a, thread_a, byte_b, thread_b;
  unsigned bad_lane_byte; /* > 0: that lane passes another byte-id-a */
  bool use_ldmatrix;
  uint16_t a_smem[MMAX][16] __attribute__((aligned(16))); /* A row-major, k = 16 */
  uint16_t b_smem[16][NMAX] __attribute__((aligned(16)));  /* B stored k x n */
} mma_case;

/* The scale-a-data of a lane: SF_A of row g in the byte byte-id-a of the
 * lower lane of the pair thread-id-a selects, of row g+8 in the upper one. */
static uint32_t scale_a_of(const mma_case *t, unsigned lane) {
  unsigned g = lane >> 2, q = lane & 3;
  if (q / 2 != t->thread_a) return 0xffffffffu;
  uint32_t v = 0xffffffffu & ~(0xffu << (8 * t->byte_a));
  return v | (uint32_t)t->sf_a[g + 8 * (q & 1)] << (8 * t->byte_a);
}

static uint32_t scale_b_of(const mma_case *t, unsigned lane) {
  if ((lane & 3) != t->thread_b) return 0xffffffffu;
  uint32_t v = 0xffffffffu & ~(0xffu << (8 * t->byte_b));
  return v | (uint32_t)t->sf_b[lane >> 2] << (8 * t->byte_b);
}

static void lane_mma(void *arg) {
  mma_case *t = arg;
  unsigned lane = tcmma_sim_lane();
  lane_regs a = {{0}}, b = {{0}}, c = {{0}}, d = {{0}};
  int na = t->m * t->k / 32, nb = t->k * t->n / 32, nc = t->m * t->n / 32;
  for (int i = 0; i < na; i++) {
    int row, col;
    a_elem(t->m, t->k, t->ta, (int)lane, i, &row, &col);
    put(&a, t->ta, i, t->a[row][col]);
  }
  for (int i = 0; i < nb; i++) put(&b, t->tb, i, t->b[b_elem(t->m, t->k, t->tb, (int)lane, i)][lane >> 2]);
  for (int i = 0; i < nc; i++) {
    int row, col;
    c_elem(t->m, (int)lane, i, &row, &col);
    put(&c, t->tc, i, t->c[row][col]);
  }
  if (t->use_ldmatrix) {
    /* docs/design.md §7: A via .x4, lane l at A[l%16][(l/16)*8]; B (k x n) via
     * .x2.trans, lane l at row k = l%16. */
    uint32_t la[4], lb[2];
    tcmma_sim_ldmatrix("ldmatrix.sync.aligned.m8n8.x4.shared.b16", la,
                       &t->a_smem[lane % 16][(lane / 16) * 8]);
    tcmma_sim_ldmatrix("ldmatrix.sync.aligned.m8n8.x2.trans.shared.b16", lb,
                       &t->b_smem[lane % 16][0]);
    memcpy(a.w, la, sizeof la);
    memcpy(b.w, lb, sizeof lb);
  }
  if (t->scaled)
    tcmma_sim_mma_scaled(t->opcode, &d, &a, &b, &c, scale_a_of(t, lane),
                         t->bad_lane_byte && lane == t->bad_lane_byte ? t->byte_a ^ 1 : t->byte_a,
                         t->thread_a, scale_b_of(t, lane), t->byte_b, t->thread_b);
  else tcmma_sim_mma(t->opcode, &d, &a, &b, &c);
  for (int i = 0; i < nc; i++) {
    int row, col;
    c_elem(t->m, (int)lane, i, &row, &col);
    t->d[row][col] = get(&d, t->tc, i);
  }
}

/* Small integers: exact in every operand format and in every sum. */
static void fill(mma_case *t, unsigned seed) {
  srand(seed);
  for (int r = 0; r < t->m; r++)
    for (int k = 0; k < t->k; k++) t->a[r][k] = rand() % 9 - (t->ta == T_U8 ? 0 : 4);
  for (int k = 0; k < t->k; k++)
    for (int n = 0; n < t->n; n++) t->b[k][n] = rand() % 9 - (t->tb == T_U8 ? 0 : 4);
  for (int r = 0; r < t->m; r++)
    for (int n = 0; n < t->n; n++) t->c[r][n] = rand() % 201 - 100;
  for (int i = 0; i < MMAX; i++) t->sf_a[i] = (uint8_t)(127 + rand() % 5 - 2);
  for (int i = 0; i < NMAX; i++) t->sf_b[i] = (uint8_t)(127 + rand() % 5 - 2);
}

static void check_product(const mma_case *t) {
  for (int r = 0; r < t->m; r++)
    for (int n = 0; n < t->n; n++) {
      double want = t->c[r][n];
      for (int k = 0; k < t->k; k++) {
        double p = t->a[r][k] * t->b[k][n];
        if (t->scaled) p *= ldexp(1.0, t->sf_a[r] - 127) * ldexp(1.0, t->sf_b[n] - 127);
        want += p;
      }
      if (t->d[r][n] != want)
        fail_msg("%s: D[%d][%d] = %g, expected %g", t->opcode, r, n, t->d[r][n], want);
    }
}

static mma_case *new_case(const char *opcode, int m, int k, elem_type ta, elem_type tb,
                          elem_type tc) {
  mma_case *t = calloc(1, sizeof *t);
  assert_non_null(t);
  t->opcode = opcode, t->m = m, t->n = 8, t->k = k, t->ta = ta, t->tb = tb, t->tc = tc;
  fill(t, (unsigned)(k * 7 + ta * 3 + tb + tc * 11));
  return t;
}

static void launch_ok(mma_case *t) {
  tcmma_error err;
  if (tcmma_sim_launch(lane_mma, t, &err) != TCMMA_OK) fail_msg("%s: %s", t->opcode, err.message);
}

static void run_case(const char *opcode, int m, int k, elem_type ta, elem_type tb, elem_type tc) {
  mma_case *t = new_case(opcode, m, k, ta, tb, tc);
  launch_ok(t);
  check_product(t);
  free(t);
}

static void mma_f16_bf16(void **state) {
  (void)state;
  run_case("mma.sync.aligned.m16n8k16.row.col.f32.f16.f16.f32", 16, 16, T_F16, T_F16, T_F32);
  run_case("mma.sync.aligned.m16n8k16.row.col.f32.bf16.bf16.f32", 16, 16, T_BF16, T_BF16, T_F32);
  run_case("mma.sync.aligned.m16n8k16.row.col.f16.f16.f16.f16", 16, 16, T_F16, T_F16, T_F16);
  run_case("mma.sync.aligned.m16n8k8.row.col.f32.f16.f16.f32", 16, 8, T_F16, T_F16, T_F32);
  run_case("mma.sync.aligned.m16n8k8.row.col.f16.f16.f16.f16", 16, 8, T_F16, T_F16, T_F16);
}

static void mma_fp8_all_mixes(void **state) {
  (void)state;
  for (int acc = 0; acc < 2; acc++)
    for (int ta = T_E4M3; ta <= T_E5M2; ta++)
      for (int tb = T_E4M3; tb <= T_E5M2; tb++) {
        char op[96];
        const char *c = acc ? "f16" : "f32";
        snprintf(op, sizeof op, "mma.sync.aligned.m16n8k32.row.col.%s.%s.%s.%s", c,
                 type_names[ta], type_names[tb], c);
        run_case(op, 16, 32, (elem_type)ta, (elem_type)tb, acc ? T_F16 : T_F32);
      }
}

/* tf32: the registers hold f32 bits; the model reads their top 19 bits, so
 * text that forgets cvt.rna.tf32.f32 is caught. */
static void mma_tf32(void **state) {
  (void)state;
  const char *op = "mma.sync.aligned.m16n8k8.row.col.f32.tf32.tf32.f32";
  run_case(op, 16, 8, T_TF32, T_TF32, T_F32);
  mma_case *t = new_case(op, 16, 8, T_TF32, T_TF32, T_F32);
  double fine = 1.0 + 0x1p-20; /* not a tf32: the low 13 bits are dropped */
  for (int r = 0; r < 16; r++)
    for (int k = 0; k < 8; k++) t->a[r][k] = k == 0 ? fine : 0;
  for (int k = 0; k < 8; k++)
    for (int n = 0; n < 8; n++) t->b[k][n] = 1;
  for (int r = 0; r < 16; r++)
    for (int n = 0; n < 8; n++) t->c[r][n] = 0;
  launch_ok(t);
  assert_true(t->d[3][2] == 1.0);
  /* cvt.rna rounds the same value up: 1 + 2^-10 */
  float f = (float)(1.0 + 0x1p-11), g;
  uint32_t u;
  memcpy(&u, &f, 4);
  tcmma_sim_cvt("cvt.rna.tf32.f32", &u);
  memcpy(&g, &u, 4);
  assert_true(g == (float)(1.0 + 0x1p-10));
  free(t);
}

static void mma_int8(void **state) {
  (void)state;
  for (int sat = 0; sat < 2; sat++)
    for (int ta = T_S8; ta <= T_U8; ta++)
      for (int tb = T_S8; tb <= T_U8; tb++) {
        char op[112];
        snprintf(op, sizeof op, "mma.sync.aligned.m16n8k32.row.col.%ss32.%s.%s.s32",
                 sat ? "satfinite." : "", type_names[ta], type_names[tb]);
        run_case(op, 16, 32, (elem_type)ta, (elem_type)tb, T_S32);
      }
}

/* Past INT32_MAX the sum wraps, or with .satfinite stops at it (PTX ISA). */
static void mma_int8_overflow(void **state) {
  (void)state;
  for (int sat = 0; sat < 2; sat++) {
    const char *op = sat ? "mma.sync.aligned.m16n8k32.row.col.satfinite.s32.s8.u8.s32"
                         : "mma.sync.aligned.m16n8k32.row.col.s32.s8.u8.s32";
    mma_case *t = new_case(op, 16, 32, T_S8, T_U8, T_S32);
    for (int r = 0; r < 16; r++)
      for (int k = 0; k < 32; k++) t->a[r][k] = r % 2 ? -128 : 127;
    for (int k = 0; k < 32; k++)
      for (int n = 0; n < 8; n++) t->b[k][n] = 255;
    for (int r = 0; r < 16; r++)
      for (int n = 0; n < 8; n++) t->c[r][n] = r % 2 ? -2147483647.0 - 1 : 2147483647.0;
    launch_ok(t);
    double up = 2147483647.0 + 32 * 127 * 255, down = -2147483648.0 - 32 * 128 * 255;
    double want_up = sat ? 2147483647.0 : up - 4294967296.0;
    double want_down = sat ? -2147483648.0 : down + 4294967296.0;
    assert_true(t->d[0][0] == want_up);
    assert_true(t->d[1][5] == want_down);
    free(t);
  }
}

/* f64: fused multiply-adds in k order; the result carries what a separate
 * multiply would round away. */
static void mma_f64(void **state) {
  (void)state;
  const char *op = "mma.sync.aligned.m8n8k4.row.col.f64.f64.f64.f64";
  run_case(op, 8, 4, T_F64, T_F64, T_F64);
  mma_case *t = new_case(op, 8, 4, T_F64, T_F64, T_F64);
  double x = 1.0 + 0x1p-30;
  for (int r = 0; r < 8; r++)
    for (int k = 0; k < 4; k++) t->a[r][k] = k == 0 ? x : 0;
  for (int k = 0; k < 4; k++)
    for (int n = 0; n < 8; n++) t->b[k][n] = k == 0 ? x : 0;
  for (int r = 0; r < 8; r++)
    for (int n = 0; n < 8; n++) t->c[r][n] = -1.0;
  launch_ok(t);
  assert_true(t->d[7][7] == fma(x, x, -1.0));
  /* the product rounded apart (volatile: clang would contract x * x - 1.0) */
  volatile double xx = x * x;
  assert_true(t->d[7][7] != xx - 1.0);
  free(t);
}

/* kind::mxf8f6f4: every selector value places the scales where the PTX ISA
 * says; every other byte and lane holds NaN (0xff), which must not be read. */
static void mma_block_scaled(void **state) {
  (void)state;
  for (int ta = T_E4M3; ta <= T_E5M2; ta++)
    for (int tb = T_E4M3; tb <= T_E5M2; tb++)
      for (unsigned sel = 0; sel < 8; sel++) {
        char op[160];
        snprintf(op, sizeof op,
                 "mma.sync.aligned.kind::mxf8f6f4.block_scale.scale_vec::1X.m16n8k32.row.col."
                 "f32.%s.%s.f32.ue8m0", type_names[ta], type_names[tb]);
        mma_case *t = new_case(op, 16, 32, (elem_type)ta, (elem_type)tb, T_F32);
        t->scaled = true;
        t->byte_a = sel % 4, t->thread_a = sel % 2, t->byte_b = (sel + 1) % 4, t->thread_b = sel / 2;
        launch_ok(t);
        check_product(t);
        free(t);
      }
}

static void mma_block_scaled_bad_selectors(void **state) {
  (void)state;
  const char *op = "mma.sync.aligned.kind::mxf8f6f4.block_scale.scale_vec::1X.m16n8k32.row.col."
                   "f32.e4m3.e4m3.f32.ue8m0";
  mma_case *t = new_case(op, 16, 32, T_E4M3, T_E4M3, T_F32);
  t->scaled = true;
  tcmma_error err;
  t->thread_a = 2; /* 0 or 1 for scale_vec::1X */
  assert_int_equal(tcmma_sim_launch(lane_mma, t, &err), TCMMA_INVALID);
  assert_non_null(strstr(err.message, "thread-id 2"));
  t->thread_a = 0, t->bad_lane_byte = 5;
  assert_int_equal(tcmma_sim_launch(lane_mma, t, &err), TCMMA_INVALID);
  assert_non_null(strstr(err.message, "lane 5"));
  /* a NaN scale (0xff) gives NaN */
  t->bad_lane_byte = 0, t->sf_a[4] = 0xff;
  launch_ok(t);
  assert_true(isnan(t->d[4][0]) && !isnan(t->d[3][0]));
  free(t);
}

/* ldmatrix.x4 of A and .x2.trans of B give exactly the mma fragments. */
static void mma_through_ldmatrix(void **state) {
  (void)state;
  const char *ops[2] = {"mma.sync.aligned.m16n8k16.row.col.f32.f16.f16.f32",
                        "mma.sync.aligned.m16n8k16.row.col.f32.bf16.bf16.f32"};
  for (int i = 0; i < 2; i++) {
    elem_type et = i ? T_BF16 : T_F16;
    mma_case *t = new_case(ops[i], 16, 16, et, et, T_F32);
    t->use_ldmatrix = true;
    for (int r = 0; r < 16; r++)
      for (int c = 0; c < 16; c++) t->a_smem[r][c] = (uint16_t)encode(et, t->a[r][c]);
    for (int r = 0; r < 16; r++)
      for (int c = 0; c < 8; c++) t->b_smem[r][c] = (uint16_t)encode(et, t->b[r][c]);
    launch_ok(t);
    check_product(t);
    free(t);
  }
}

/* Accumulation rounds once to the accumulator: at f32, 2^24 + 1 rounds to
 * 2^24; at f16, 2048 + 1 rounds to 2048 (nearest even). */
static void mma_rounds_to_the_accumulator(void **state) {
  (void)state;
  const char *ops[2] = {"mma.sync.aligned.m16n8k16.row.col.f32.f16.f16.f32",
                        "mma.sync.aligned.m16n8k16.row.col.f16.f16.f16.f16"};
  const double big[2] = {16777216.0, 2048.0};
  for (int i = 0; i < 2; i++) {
    mma_case *t = new_case(ops[i], 16, 16, T_F16, T_F16, i ? T_F16 : T_F32);
    for (int r = 0; r < 16; r++)
      for (int k = 0; k < 16; k++) t->a[r][k] = k == 0;
    for (int k = 0; k < 16; k++)
      for (int n = 0; n < 8; n++) t->b[k][n] = k == 0;
    for (int r = 0; r < 16; r++)
      for (int n = 0; n < 8; n++) t->c[r][n] = big[i];
    launch_ok(t);
    for (int r = 0; r < 16; r++)
      for (int n = 0; n < 8; n++) assert_true(t->d[r][n] == big[i]);
    free(t);
  }
}

static void mma_unknown_opcode(void **state) {
  (void)state;
  static const char *const bad[] = {
      "mma.sync.aligned.m16n8k16.row.col.f32.f16.bf16.f32", /* mixed 16-bit types */
      "mma.sync.aligned.m16n8k16.row.col.f16.bf16.bf16.f16", /* no bf16 accumulator */
      "mma.sync.aligned.m16n8k32.row.col.f32.e4m3.f16.f32",
      "mma.sync.aligned.m16n8k32.row.col.f32.e4m3.e4m3.f16", /* d and c differ */
      "mma.sync.aligned.m16n8k32.row.col.s32.s8.e4m3.s32",
      "mma.sync.aligned.m16n8k32.row.col.satfinite.f32.e4m3.e4m3.f32",
      "mma.sync.aligned.m16n8k8.row.col.f16.tf32.tf32.f16",
      "mma.sync.aligned.m16n8k4.row.col.f64.f64.f64.f64",
      "mma.sync.aligned.kind::mxf8f6f4.block_scale.scale_vec::1X.m16n8k32.row.col.f32.e4m3.e4m3.f32.ue8m0",
      "mma.sync.aligned.m16n8k16.row.col.f32.f16.f16.f32 ",
      "garbage",
  };
  for (size_t i = 0; i < sizeof bad / sizeof *bad; i++) {
    mma_case *t = new_case(bad[i], 16, 16, T_F16, T_F16, T_F32);
    tcmma_error err;
    assert_int_equal(tcmma_sim_launch(lane_mma, t, &err), TCMMA_INVALID);
    if (!strstr(err.message, bad[i])) fail_msg("message does not name '%s': %s", bad[i], err.message);
    free(t);
  }
  /* the block-scaled entry takes only the block-scaled form */
  mma_case *t = new_case("mma.sync.aligned.m16n8k32.row.col.f32.e4m3.e4m3.f32", 16, 32, T_E4M3,
                         T_E4M3, T_F32);
  t->scaled = true;
  tcmma_error err;
  assert_int_equal(tcmma_sim_launch(lane_mma, t, &err), TCMMA_INVALID);
  assert_non_null(strstr(err.message, "block-scaled"));
  free(t);
}

static void lane_bad_cvt(void *arg) {
  (void)arg;
  uint32_t x = 0;
  tcmma_sim_cvt("cvt.rn.f16.f32", &x);
}

static void cvt_opcodes(void **state) {
  (void)state;
  tcmma_error err;
  assert_int_equal(tcmma_sim_launch(lane_bad_cvt, NULL, &err), TCMMA_INVALID);
  assert_non_null(strstr(err.message, "cvt.rn.f16.f32"));
  /* outside a launch an unknown opcode changes nothing */
  uint32_t x = 1234u;
  tcmma_sim_cvt("nope", &x);
  assert_int_equal(x, 1234u);
  x = 0x3f800fffu, tcmma_sim_cvt("cvt.rna.tf32.f32", &x);
  assert_int_equal(x, 0x3f800000u);
  x = 0x3f801000u, tcmma_sim_cvt("cvt.rna.tf32.f32", &x);
  assert_int_equal(x, 0x3f802000u);
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
      cmocka_unit_test(mma_f16_bf16),         cmocka_unit_test(mma_fp8_all_mixes),
      cmocka_unit_test(mma_tf32),             cmocka_unit_test(mma_int8),
      cmocka_unit_test(mma_int8_overflow),    cmocka_unit_test(mma_f64),
      cmocka_unit_test(mma_block_scaled),     cmocka_unit_test(mma_block_scaled_bad_selectors),
      cmocka_unit_test(mma_through_ldmatrix), cmocka_unit_test(mma_rounds_to_the_accumulator),
      cmocka_unit_test(mma_unknown_opcode),   cmocka_unit_test(cvt_opcodes),
      cmocka_unit_test(ldmatrix_rule),        cmocka_unit_test(ldmatrix_bad),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
