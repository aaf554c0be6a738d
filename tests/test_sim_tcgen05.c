/* The simulator's tcgen05 model (mma/sim/tcgen05*.c, tmem.c, umma_desc.c;
 * docs/sim.md "tcgen05"), driven by a kernel written by hand in the host
 * dialect (tests/util_tcgen05.c). Bit for bit against a C reference written
 * here from the PTX ISA, on integer-exact inputs: every kind (f16 with f16
 * and bf16, tf32, f8f6f4 with fp8/fp6/fp4 pairs, i8 with wrap and
 * saturation, mxf8f6f4, mxf4, mxf4nvf4 with ue8m0 and ue4m3 scales), M 64
 * (both halves of the data path) and 128, N from 8 to 256, A from shared
 * memory and from Tensor Memory, K-major and MN-major operands where the
 * kind allows, every swizzle mode, negation, enable-input-d, scale factor
 * IDs. The shared memory tiles are placed by evaluating the ISA's CuTe
 * canonical layouts here, the instruction and shared memory descriptors are
 * encoded here from the ISA's tables. Then each misuse the model reports. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "util.h"
#include "util_tcgen05.h"
#include "tcmma/buf.h"

typedef enum { F16, BF16, TF32, E4M3, E5M2, E2M3, E3M2, E2M1, U8, S8 } ty;
static const int bits_of[] = {16, 16, 32, 8, 8, 6, 6, 4, 8, 8};
static const char *const ty_names[] = {"f16", "bf16", "tf32", "e4m3", "e5m2",
                                       "e2m3", "e3m2", "e2m1", "u8", "s8"};
typedef enum { KF16, KTF32, KF8F6F4, KI8, KMXF8F6F4, KMXF4, KMXF4NVF4 } kd;
static const char *const kind_names[] = {"f16", "tf32", "f8f6f4", "i8", "mxf8f6f4", "mxf4",
                                         "mxf4nvf4"};

typedef struct {
  kd kind;
  ty a, b;
  int dt;    /* 0 f16, 1 f32, 2 s32 */
  int vec;   /* block-scaled: scales per K */
  bool ue4m3;
  int m, n, variant;
  bool a_tmem, mn_a, mn_b, neg_a, neg_b, sat;
  int sw_a, sw_b; /* swizzle codes of the descriptor */
  int sfa_id, sfb_id, enable_d;
  unsigned d_lane;
  char name[96];
} tcase;

static int k_of(kd k) { return k == KF16 ? 16 : k == KTF32 ? 8 : k >= KMXF4 ? 64 : 32; }
static bool scaled(kd k) { return k >= KMXF8F6F4; }
static bool can_mn(const tcase *c, ty t) {
  return !(c->kind >= KMXF4) && (t == F16 || t == BF16 || t == TF32 || t == E4M3 || t == E5M2 ||
                                 t == U8 || t == S8);
}

/* ---- codes and values ---- */

static uint32_t code_of(ty t, double v) {
  switch (t) {
  case F16: return tcmma_sim_float2half_rn((float)v).bits;
  case BF16: return tcmma_sim_float2bfloat16_rn((float)v).bits;
  case TF32: { float f = (float)v; uint32_t w; memcpy(&w, &f, 4); return w; }
  case E4M3: return tcmma_sim_float_to_e4m3((float)v);
  case E5M2: return tcmma_sim_float_to_e5m2((float)v);
  case E2M3: return tcmma_sim_float_to_e2m3((float)v);
  case E3M2: return tcmma_sim_float_to_e3m2((float)v);
  case E2M1: return tcmma_sim_float_to_e2m1((float)v);
  default: return (uint32_t)(int)v & 0xffu;
  }
}

/* An integer-exact value every format holds. */
static double pick(ty t, unsigned *seed) {
  static const double vals[] = {-3, -2, -1.5, -1, -0.5, 0, 0.5, 1, 1.5, 2, 3};
  *seed = *seed * 1103515245u + 12345u;
  unsigned r = *seed >> 8;
  if (t == U8) return r % 256;
  if (t == S8) return (int)(r % 256) - 128;
  return vals[r % 11];
}

/* ---- shared memory: the ISA's canonical layouts, evaluated ---- */

typedef struct { int n, shape[3]; long stride[3]; } mode;

static long eval(const mode *m, long x) {
  long off = 0;
  for (int i = 0; i < m->n; i++) off += (x % m->shape[i]) * m->stride[i], x /= m->shape[i];
  return off;
}

static int span_of(int code) { return code == 6 ? 32 : code == 4 ? 64 : code ? 128 : 0; }
static int per_chunk(const tcase *c, ty t) {
  return c->kind >= KMXF4 ? 32 : bits_of[t] < 8 ? 16 : 128 / bits_of[t];
}

/* The operand's layout (rows along M or N, K): its two modes in elements, T
 * elements a 16-byte chunk, and the LBO and SBO (bytes) this test picks. */
typedef struct { mode row, col; int t; long lbo, sbo; } placed;

static placed place(const tcase *c, ty t, int rows, bool mn, int code) {
  placed p = {.t = per_chunk(c, t)};
  long T = p.t, S = span_of(code), big = 1 << 20, u = T / 16; /* elements a byte x 16 */
  int k = k_of(c->kind);
  (void)u;
  if (!mn && !S) {
    p.lbo = 128, p.sbo = 256;
    p.row = (mode){2, {8, (int)big}, {T, p.sbo / 16 * T}};
    p.col = (mode){2, {(int)T, (int)big}, {1, p.lbo / 16 * T}};
  } else if (!mn) {
    p.lbo = 16, p.sbo = 8 * S;
    p.row = (mode){2, {8, (int)big}, {S / 16 * T, p.sbo / 16 * T}};
    p.col = (mode){2, {(int)T, (int)big}, {1, T}};
  } else if (!S) {
    long groups = (rows + T - 1) / T;
    p.sbo = 128, p.lbo = groups * 128;
    p.row = (mode){3, {(int)T, 1, (int)big}, {1, T, p.sbo / 16 * T}};
    p.col = (mode){2, {8, (int)big}, {T, p.lbo / 16 * T}};
  } else {
    long atom = T * S / 16, groups = (rows + atom - 1) / atom;
    p.lbo = 8 * S, p.sbo = groups * 8 * S;
    p.row = (mode){3, {(int)T, (int)(S / 16), (int)big}, {1, T, p.lbo / 16 * T}};
    p.col = (mode){2, {8, (int)big}, {S / 16 * T, p.sbo / 16 * T}};
  }
  (void)k;
  return p;
}

static long swizzle(long a, int code) {
  if (code == 1) return a ^ ((a >> 2) & (3L << 5)); /* Swizzle<2,5,2> */
  int b = code == 2 ? 3 : code == 4 ? 2 : code == 6 ? 1 : 0; /* Swizzle<b,4,3> */
  return a ^ ((a >> 3) & (((1L << b) - 1) << 4));
}

/* Writes element (i, j) of the operand at start; returns the descriptor. */
static uint64_t put_smem(const tcase *c, unsigned char *smem, long start, ty t, int rows,
                         bool mn, int code, const uint32_t *codes) {
  placed p = place(c, t, rows, mn, code);
  int k = k_of(c->kind), eb = c->kind >= KMXF4 ? 4 : bits_of[t];
  for (int i = 0; i < rows; i++)
    for (int j = 0; j < k; j++) {
      long e = eval(&p.row, i) + eval(&p.col, j);
      long chunk = swizzle(start + e / p.t * 16, code);
      long bit = chunk * 8 + (e % p.t) * eb;
      for (int b = 0; b < eb; b++)
        if (codes[i * k + j] >> b & 1) smem[(bit + b) / 8] |= (unsigned char)(1u << ((bit + b) % 8));
    }
  return (uint64_t)(start >> 4) | (uint64_t)(p.lbo >> 4) << 16 | (uint64_t)(p.sbo >> 4) << 32 |
         1ull << 46 | (uint64_t)code << 61;
}

/* ---- descriptors ---- */

static unsigned type_code(kd k, ty t) {
  static const unsigned f8[] = {[E4M3] = 0, [E5M2] = 1, [E2M3] = 3, [E3M2] = 4, [E2M1] = 5};
  if (k == KF16) return t == BF16;
  if (k == KTF32) return 2;
  if (k == KI8) return t == S8;
  if (k >= KMXF4) return 1;
  return f8[t];
}

static unsigned idesc_of(const tcase *c) {
  unsigned d = type_code(c->kind, c->a) << 7 | type_code(c->kind, c->b) << 10 |
               (unsigned)c->neg_a << 13 | (unsigned)c->neg_b << 14 | (unsigned)c->mn_a << 15 |
               (unsigned)c->mn_b << 16 | (unsigned)(c->n >> 3) << 17;
  if (!scaled(c->kind))
    return d | (unsigned)c->sat << 3 | (unsigned)c->dt << 4 | (unsigned)(c->m >> 4) << 24;
  return d | (unsigned)c->sfb_id << 4 | (unsigned)!c->ue4m3 << 23 | (unsigned)(c->m >> 7) << 27 |
         (unsigned)c->sfa_id << 29;
}

static const char *opcode_of(const tcase *c, char *buf, size_t cap) {
  snprintf(buf, cap, "tcgen05.mma.cta_group::1.kind::%s%s", kind_names[c->kind],
           !scaled(c->kind) ? "" : c->vec == 1 ? ".block_scale.scale_vec::1X"
                                 : c->vec == 2 ? ".block_scale.scale_vec::2X"
                                               : ".block_scale.scale_vec::4X");
  return buf;
}

/* ---- a case's data, its run and its reference ---- */

static unsigned lane_of(const tcase *c, int m) {
  return c->m == 128 ? (unsigned)m : c->d_lane + 32u * (unsigned)(m / 16) + (unsigned)(m % 16);
}

typedef struct {
  double a[128 * 64], b[256 * 64], sa[128][4], sb[256][4];
  uint32_t ac[128 * 64], bc[256 * 64];
} values;

/* A's codes into Tensor Memory words (8-bit containers for the f8f6f4 kinds'
 * fp6/fp4, e2m1 in bits 5..2; mxf4's fp4 packed two a byte). */
static void put_tmem_a(const tcase *c, tc_run *r, const values *v) {
  int k = k_of(c->kind), eb = c->kind >= KMXF4 ? 4 : bits_of[c->a] < 8 ? 8 : bits_of[c->a];
  for (int m = 0; m < c->m; m++)
    for (int j = 0; j < k; j++) {
      uint32_t code = v->ac[m * k + j] << (c->a == E2M1 && eb == 8 ? 2 : 0);
      r->a_words[lane_of(c, m)][j * eb / 32] |= code << (j * eb % 32);
    }
}

static uint32_t scale_code(const tcase *c, unsigned *seed, double *val) {
  *seed = *seed * 1103515245u + 12345u;
  unsigned r = *seed >> 8;
  if (c->ue4m3) {
    static const double v[] = {0.5, 1, 1.5, 2, 3};
    *val = v[r % 5];
    return tcmma_sim_float_to_ue4m3((float)*val);
  }
  int e = 125 + (int)(r % 5);
  *val = ldexp(1.0, e - 127);
  return (uint32_t)e;
}

/* The scales: each row's (A) and column's (B) vec codes, byte id + b of the
 * word at lane x % 32 (+ 32 q, every quarter), column x / 32; and as
 * tcgen05.cp's sources (rows of 16 bytes, lane r's bytes). */
static void put_scales(const tcase *c, tc_run *r, values *v, unsigned *seed) {
  for (int side = 0; side < 2; side++) {
    int count = side ? c->n : c->m, id = side ? c->sfb_id : c->sfa_id;
    for (int x = 0; x < count; x++)
      for (int b = 0; b < c->vec; b++) {
        double val;
        uint32_t code = scale_code(c, seed, &val);
        (side ? v->sb : v->sa)[x][b] = val;
        unsigned byte = (unsigned)(id + b), col = (unsigned)x / 32;
        for (unsigned q = 0; q < 4; q++) {
          uint32_t *w = side ? &r->sfb[x % 32 + 32 * q][col] : &r->sfa[x % 32 + 32 * q][col];
          *w |= code << (8 * byte);
        }
        long src = TC_SF_AT + (side ? 512 + 512 * (col / 4) : 0);
        r->smem[src + (x % 32) * 16 + (col % 4) * 4 + byte] = (unsigned char)code;
      }
  }
  uint64_t d = (uint64_t)(128 >> 4) << 32 | 1ull << 46 | 1u << 16;
  r->sfa_desc = d | (TC_SF_AT >> 4);
  r->sfb_desc = d | ((TC_SF_AT + 512) >> 4);
}

static void fill(const tcase *c, tc_run *r, values *v, unsigned seed) {
  memset(r, 0, sizeof *r);
  int k = k_of(c->kind);
  for (int i = 0; i < c->m * k; i++) v->a[i] = pick(c->a, &seed), v->ac[i] = code_of(c->a, v->a[i]);
  for (int i = 0; i < c->n * k; i++) v->b[i] = pick(c->b, &seed), v->bc[i] = code_of(c->b, v->b[i]);
  for (int l = 0; l < 128; l++)
    for (int n = 0; n < 256; n++) {
      double d = pick(F16, &seed);
      r->d0[l][n] = c->dt == 0 ? code_of(F16, d) : code_of(TF32, d);
      if (c->dt == 2) r->d0[l][n] = (uint32_t)(2147483600 - (int)(seed % 90)) ^ (n & 1 ? 0xffffffffu : 0);
    }
  for (int x = 0; x < 256; x++)
    for (int b = 0; b < 4; b++) v->sa[x % 128][b] = v->sb[x][b] = 1;
  if (scaled(c->kind)) put_scales(c, r, v, &seed);
  if (c->a_tmem) put_tmem_a(c, r, v);
  else r->adesc = put_smem(c, r->smem, TC_A_AT, c->a, c->m, c->mn_a, c->sw_a, v->ac);
  r->bdesc = put_smem(c, r->smem, TC_B_AT, c->b, c->n, c->mn_b, c->sw_b, v->bc);
  r->scaled = scaled(c->kind), r->a_tmem = c->a_tmem, r->idesc = idesc_of(c);
  r->enable_d = c->enable_d, r->d_lane = c->d_lane;
}

static double d_value(int dt, uint32_t w) {
  if (dt == 0) return tcmma_sim_half2float((tcmma_sim_half){(uint16_t)w});
  if (dt == 2) return (int32_t)w;
  float f;
  memcpy(&f, &w, 4);
  return f;
}

/* D(m, n) as the ISA defines it, encoded as Tensor Memory holds it. */
static uint32_t reference(const tcase *c, const tc_run *r, const values *v, int m, int n) {
  int k = k_of(c->kind), block = scaled(c->kind) ? k / c->vec : k;
  double acc = c->enable_d ? d_value(c->dt, r->d0[lane_of(c, m)][n]) : 0;
  for (int j = 0; j < k; j++) {
    double a = v->a[m * k + j] * v->sa[m][j / block], b = v->b[n * k + j] * v->sb[n][j / block];
    acc += (c->neg_a ? -a : a) * (c->neg_b ? -b : b);
  }
  if (c->dt == 0) return code_of(F16, acc);
  if (c->dt == 1) return code_of(TF32, acc);
  if (c->sat) acc = fmax(-2147483648.0, fmin(2147483647.0, acc));
  return (uint32_t)(int64_t)acc;
}

static tc_run *the_run; /* large: one, reused */
static values *the_values;

static void check_case(const tcase *c, unsigned seed) {
  tc_run *r = the_run;
  char op[96];
  fill(c, r, the_values, seed);
  r->opcode = opcode_of(c, op, sizeof op);
  tcmma_error err = {0};
  if (tc_launch(r, &err) != TCMMA_OK) fail_msg("%s: %s", c->name, err.message);
  for (int m = 0; m < c->m; m++)
    for (int n = 0; n < 256; n++) {
      unsigned lane = lane_of(c, m);
      uint32_t want = n < c->n ? reference(c, r, the_values, m, n) : r->d0[lane][n];
      if (r->out[lane][n] != want)
        fail_msg("%s: D(%d, %d) at lane %u is 0x%08x, expected 0x%08x", c->name, m, n, lane,
                 r->out[lane][n], want);
    }
}

/* ---- the matrix ---- */

typedef struct { kd kind; ty a, b; int dt, vec; bool ue4m3, sat; } row;

static const row rows[] = {
    {KF16, F16, F16, 1, 0, 0, 0},       {KF16, BF16, BF16, 1, 0, 0, 0},
    {KF16, F16, F16, 0, 0, 0, 0},       {KTF32, TF32, TF32, 1, 0, 0, 0},
    {KF8F6F4, E4M3, E5M2, 1, 0, 0, 0},  {KF8F6F4, E2M3, E3M2, 0, 0, 0, 0},
    {KF8F6F4, E2M1, E4M3, 1, 0, 0, 0},  {KF8F6F4, E5M2, E2M1, 1, 0, 0, 0},
    {KI8, S8, U8, 2, 0, 0, 0},          {KI8, U8, S8, 2, 0, 0, 1},
    {KI8, S8, S8, 2, 0, 0, 0},          {KMXF8F6F4, E4M3, E2M1, 1, 1, 0, 0},
    {KMXF8F6F4, E3M2, E2M3, 1, 1, 0, 0}, {KMXF8F6F4, E5M2, E4M3, 1, 1, 0, 0},
    {KMXF4, E2M1, E2M1, 1, 2, 0, 0},    {KMXF4NVF4, E2M1, E2M1, 1, 2, 0, 0},
    {KMXF4NVF4, E2M1, E2M1, 1, 4, 0, 0}, {KMXF4NVF4, E2M1, E2M1, 1, 4, 1, 0},
};
enum { ROWS = sizeof rows / sizeof rows[0], VARIANTS = 4 };

/* Variant v of row w: M, N, where A lives, majors, swizzles, negation,
 * enable-input-d and scale IDs, spread so that every row meets each. */
static tcase make_case(int w, int v) {
  const row *r = &rows[w];
  static const int sw_a[VARIANTS] = {2, 6, 4, 0}, sw_b[VARIANTS] = {0, 4, 2, 6};
  static const int ns[VARIANTS] = {256, 8, 24, 48};
  tcase c = {r->kind, r->a, r->b, r->dt, r->vec, r->ue4m3};
  c.variant = v, c.sat = r->sat, c.n = ns[v];
  c.m = scaled(c.kind) || v % 2 == 0 ? 128 : 64;
  c.d_lane = c.m == 64 && v == 3 ? 16 : 0;
  c.a_tmem = (v == 1 && w % 2 == 0) || (v == 3 && w % 2) || (v == 0 && scaled(c.kind) && w % 2);
  c.mn_a = !c.a_tmem && v >= 2 && can_mn(&c, c.a);
  c.mn_b = v % 2 == 1 && can_mn(&c, c.b);
  c.sw_a = sw_a[v], c.sw_b = sw_b[v];
  if (c.a == TF32 && (c.mn_a || v == 3)) c.sw_a = 1; /* MN-major tf32: 128B with 32B atoms */
  if (c.b == TF32 && c.mn_b) c.sw_b = 1;
  c.neg_a = v == 2 && c.kind != KI8, c.neg_b = v == 3 && c.kind != KI8;
  c.enable_d = v != 1;
  int step = c.vec == 1 ? 1 : c.vec == 2 ? 2 : 4;
  c.sfa_id = scaled(c.kind) ? (v * step) % 4 : 0, c.sfb_id = scaled(c.kind) ? ((v + 1) * step) % 4 : 0;
  snprintf(c.name, sizeof c.name, "kind::%s %s x %s -> %s%s m%d n%d A %s%s%s sw %d/%d", kind_names[c.kind],
           ty_names[c.a], ty_names[c.b], c.dt == 0 ? "f16" : c.dt == 1 ? "f32" : "s32",
           c.vec == 0 ? "" : c.ue4m3 ? " (ue4m3 4X)" : c.vec == 4 ? " (ue8m0 4X)" : c.vec == 2 ? " (2X)" : " (1X)",
           c.m, c.n, c.a_tmem ? "tmem" : "smem", c.mn_a ? " A mn" : "", c.mn_b ? " B mn" : "",
           c.sw_a, c.sw_b);
  return c;
}

static void bit_exact_every_kind(void **state) {
  (void)state;
  unsigned a_sw = 0, b_sw = 0, kinds = 0, tmem_rows = 0;
  bool m64 = false, m64_upper = false, tmem = false, mn_a = false, mn_b = false;
  for (int w = 0; w < ROWS; w++)
    for (int v = 0; v < VARIANTS; v++) {
      tcase c = make_case(w, v);
      check_case(&c, 1000u + 17u * (unsigned)(w * VARIANTS + v));
      if (!c.a_tmem) a_sw |= 1u << c.sw_a;
      b_sw |= 1u << c.sw_b, kinds |= 1u << c.kind;
      m64 |= c.m == 64, m64_upper |= c.d_lane == 16, tmem |= c.a_tmem;
      tmem_rows += c.a_tmem && v != 0;
      mn_a |= c.mn_a, mn_b |= c.mn_b;
    }
  /* what the matrix covers */
  assert_int_equal(kinds, (1u << (KMXF4NVF4 + 1)) - 1);
  assert_int_equal(a_sw, 1u << 0 | 1u << 1 | 1u << 2 | 1u << 4 | 1u << 6);
  assert_int_equal(b_sw, 1u << 0 | 1u << 1 | 1u << 2 | 1u << 4 | 1u << 6);
  assert_true(m64 && m64_upper && tmem && mn_a && mn_b);
  assert_int_equal(tmem_rows, ROWS); /* every row once with A in Tensor Memory */
}

/* The scales copied by tcgen05.cp.32x128b.warpx4 instead of tcgen05.st. */
static void scales_through_cp(void **state) {
  (void)state;
  for (int w = 0; w < ROWS; w++) {
    if (!scaled(rows[w].kind)) continue;
    tcase c = make_case(w, 0);
    tc_run *r = the_run;
    char op[96];
    fill(&c, r, the_values, 99);
    r->cp_scales = true;
    r->opcode = opcode_of(&c, op, sizeof op);
    tcmma_error err = {0};
    if (tc_launch(r, &err) != TCMMA_OK) fail_msg("%s: %s", c.name, err.message);
    for (int m = 0; m < c.m; m++)
      for (int n = 0; n < c.n; n++)
        if (r->out[m][n] != reference(&c, r, the_values, m, n))
          fail_msg("%s (scales by tcgen05.cp): D(%d, %d) is 0x%08x, expected 0x%08x", c.name, m, n,
                   r->out[m][n], reference(&c, r, the_values, m, n));
  }
}

/* ---- misuse ---- */

/* Runs row w's variant v broken by brk (and edit, applied to the data);
 * the run must fail with want in its message. */
static void expect(int w, int v, tc_break brk, void (*edit)(tc_run *), const char *want) {
  tcase c = make_case(w, v);
  tc_run *r = the_run;
  char op[96];
  fill(&c, r, the_values, 5);
  r->opcode = opcode_of(&c, op, sizeof op);
  r->brk = brk;
  if (edit) edit(r);
  tcmma_error err = {0};
  tcmma_status st = tc_launch(r, &err);
  if (st != TCMMA_INVALID) fail_msg("break %d: the run did not fail (status %d)", brk, st);
  if (!strstr(err.message, want)) fail_msg("break %d: expected '%s' in: %s", brk, want, err.message);
}

/* tcgen05.st then wait::st, then an mma issued by a thread of the storing
 * warp: ordered without a barrier (PTX ISA, "non-pipelined instructions,
 * same thread"); the other warps' stores still need theirs. Every kind. */
static void own_warp_stores_need_no_barrier(void **state) {
  (void)state;
  for (int w = 0; w < ROWS; w++) {
    tcase c = make_case(w, 1);
    tc_run *r = the_run;
    char op[96];
    fill(&c, r, the_values, 11);
    r->opcode = opcode_of(&c, op, sizeof op);
    r->brk = TC_OWN_WARP_ST;
    r->enable_d = c.enable_d = 1;
    tcmma_error err = {0};
    if (tc_launch(r, &err) != TCMMA_OK) fail_msg("%s: %s", c.name, err.message);
    for (int m = 0; m < c.m; m++)
      for (int n = 0; n < c.n; n++)
        assert_int_equal(r->out[lane_of(&c, m)][n], reference(&c, r, the_values, m, n));
  }
}

/* A register read before tcgen05.wait::ld holds the poison; after it, D. */
static void ld_results_land_at_the_wait(void **state) {
  (void)state;
  tcase c = make_case(0, 0);
  tc_run *r = the_run;
  char op[96];
  fill(&c, r, the_values, 7);
  r->opcode = opcode_of(&c, op, sizeof op);
  r->brk = TC_NO_WAIT_LD;
  tcmma_error err = {0};
  if (tc_launch(r, &err) != TCMMA_OK) fail_msg("%s", err.message);
  for (int i = 0; i < 4; i++) assert_int_equal(r->early[i], TCMMA_SIM_TCGEN05_POISON);
  assert_int_equal(r->out[0][0], reference(&c, r, the_values, 0, 0));
}

/* .unpack::16b stores register r's low half in column 2r and its high half
 * in 2r + 1 (each in the word's low 16 bits); .pack::16b reads them back. */
static uint32_t pack_words[32][8], pack_back[32][4];

static void pack_kernel(void *arg) {
  (void)arg;
  unsigned lane = tcmma_sim_thread_idx(0);
  unsigned char *s = tcmma_sim_dynamic_shared();
  uint32_t in[4], words[8], back[4];
  for (unsigned i = 0; i < 4; i++) in[i] = 0x1000u * lane + 0x00020001u * i + 0xabc00000u;
  tcmma_sim_tcgen05_alloc("tcgen05.alloc.cta_group::1.sync.aligned.shared::cta.b32",
                          tcmma_sim_cvta_shared(s), 32);
  uint32_t base = *(uint32_t *)(void *)s;
  tcmma_sim_tcgen05_st("tcgen05.st.sync.aligned.32x32b.x4.unpack::16b.b32", base, in);
  tcmma_sim_tcgen05_wait("tcgen05.wait::st.sync.aligned");
  tcmma_sim_tcgen05_ld("tcgen05.ld.sync.aligned.32x32b.x8.b32", words, base);
  tcmma_sim_tcgen05_ld("tcgen05.ld.sync.aligned.32x32b.x4.pack::16b.b32", back, base);
  tcmma_sim_tcgen05_wait("tcgen05.wait::ld.sync.aligned");
  memcpy(pack_words[lane], words, sizeof words);
  memcpy(pack_back[lane], back, sizeof back);
  tcmma_sim_tcgen05_dealloc("tcgen05.dealloc.cta_group::1.sync.aligned.b32", base, 32);
}

static void pack_and_unpack(void **state) {
  (void)state;
  tcmma_sim_config cfg = TCMMA_SIM_CONFIG_INIT({1, 1, 1}, {32, 1, 1}, 64);
  tcmma_error err = {0};
  if (tcmma_sim_launch_grid(pack_kernel, NULL, &cfg, &err) != TCMMA_OK) fail_msg("%s", err.message);
  for (unsigned l = 0; l < 32; l++)
    for (unsigned i = 0; i < 4; i++) {
      uint32_t in = 0x1000u * l + 0x00020001u * i + 0xabc00000u;
      assert_int_equal(pack_words[l][2 * i], in & 0xffffu);
      assert_int_equal(pack_words[l][2 * i + 1], in >> 16);
      assert_int_equal(pack_back[l][i], in);
    }
}

/* The 16-lane shapes: a warp fills 64 columns with (lane << 16 | column) by
 * 32x32b, reads them back through 16x64b, 16x128b and 16x256b (.x1, .x2, at
 * lanes 0 and 16), then stores through 16x256b and reads by 32x32b. Where
 * thread t's register i sits, g = t / 4 (the ISA's fragment figures, as
 * CUTLASS's SM100_TMEM_LOAD_16dp* traits lay them out): 16x64b lane g +
 * 8 (t % 2), column (t / 2) % 2 + 2 i; 16x128b lane g + 8 (i % 2), column
 * t % 4 + 4 (i / 2); 16x256b lane g + 8 ((i / 2) % 2), column 2 (t % 4) +
 * i % 2 + 8 (i / 4). */
static const char *const shapes16[3] = {"16x64b", "16x128b", "16x256b"};
static uint32_t got16[3][2][2][32][8], back16[32][16];

static void where16(int shape, unsigned t, unsigned i, unsigned *lane, unsigned *col) {
  unsigned g = t / 4;
  if (shape == 0) *lane = g + 8 * (t % 2), *col = (t / 2) % 2 + 2 * i;
  else if (shape == 1) *lane = g + 8 * (i % 2), *col = t % 4 + 4 * (i / 2);
  else *lane = g + 8 * ((i / 2) % 2), *col = 2 * (t % 4) + i % 2 + 8 * (i / 4);
}

static void kernel16(void *arg) {
  (void)arg;
  unsigned t = tcmma_sim_thread_idx(0);
  unsigned char *s = tcmma_sim_dynamic_shared();
  uint32_t words[64], regs[8];
  tcmma_sim_tcgen05_alloc("tcgen05.alloc.cta_group::1.sync.aligned.shared::cta.b32",
                          tcmma_sim_cvta_shared(s), 64);
  uint32_t base = *(uint32_t *)(void *)s;
  for (unsigned c = 0; c < 64; c++) words[c] = t << 16 | c;
  tcmma_sim_tcgen05_st("tcgen05.st.sync.aligned.32x32b.x64.b32", base, words);
  tcmma_sim_tcgen05_wait("tcgen05.wait::st.sync.aligned");
  for (int sh = 0; sh < 3; sh++)
    for (int x = 0; x < 2; x++)
      for (int half = 0; half < 2; half++) {
        char op[80];
        snprintf(op, sizeof op, "tcgen05.ld.sync.aligned.%s.x%d.b32", shapes16[sh], 1 << x);
        tcmma_sim_tcgen05_ld(op, regs, base + ((unsigned)half << 20));
        tcmma_sim_tcgen05_wait("tcgen05.wait::ld.sync.aligned");
        memcpy(got16[sh][x][half][t], regs, sizeof regs);
      }
  for (unsigned i = 0; i < 4; i++) regs[i] = 0xbeef0000u | t << 4 | i;
  tcmma_sim_tcgen05_st("tcgen05.st.sync.aligned.16x256b.x1.b32", base, regs);
  tcmma_sim_tcgen05_wait("tcgen05.wait::st.sync.aligned");
  tcmma_sim_tcgen05_ld("tcgen05.ld.sync.aligned.32x32b.x16.b32", words, base);
  tcmma_sim_tcgen05_wait("tcgen05.wait::ld.sync.aligned");
  memcpy(back16[t], words, sizeof back16[t]);
  tcmma_sim_tcgen05_dealloc("tcgen05.dealloc.cta_group::1.sync.aligned.b32", base, 64);
}

static void sixteen_lane_shapes(void **state) {
  (void)state;
  tcmma_sim_config cfg = TCMMA_SIM_CONFIG_INIT({1, 1, 1}, {32, 1, 1}, 64);
  tcmma_error err = {0};
  if (tcmma_sim_launch_grid(kernel16, NULL, &cfg, &err) != TCMMA_OK) fail_msg("%s", err.message);
  static const unsigned per[3] = {1, 2, 4};
  for (int sh = 0; sh < 3; sh++)
    for (int x = 0; x < 2; x++)
      for (unsigned half = 0; half < 2; half++)
        for (unsigned t = 0; t < 32; t++)
          for (unsigned i = 0; i < per[sh] << x; i++) {
            unsigned lane, col;
            where16(sh, t, i, &lane, &col);
            uint32_t want = (lane + 16 * half) << 16 | col;
            if (got16[sh][x][half][t][i] != want)
              fail_msg("%s.x%d at lane %u: thread %u register %u is 0x%08x, expected 0x%08x",
                       shapes16[sh], 1 << x, 16 * half, t, i, got16[sh][x][half][t][i], want);
          }
  for (unsigned t = 0; t < 32; t++)
    for (unsigned i = 0; i < 4; i++) {
      unsigned lane, col;
      where16(2, t, i, &lane, &col);
      assert_int_equal(back16[lane][col], 0xbeef0000u | t << 4 | i);
    }
}

static void by_cp(tc_run *r) { r->cp_scales = true; }
static void undup_scale(tc_run *r) { r->sfa[64 + 5][0] ^= 0xffu << (8 * ((r->idesc >> 29) & 3)); }
static void bad_version(tc_run *r) { r->bdesc &= ~(1ull << 46); }
static void bad_m(tc_run *r) { r->idesc = (r->idesc & ~(31u << 24)) | (12u << 24); }
static void reserved_bit(tc_run *r) { r->idesc |= 1u << 23; }
static void bad_swizzle(tc_run *r) { r->bdesc |= 3ull << 61; }
static void bad_opcode(tc_run *r) { r->opcode = "tcgen05.mma.cta_group::1.kind::f64"; }
static void base_offset(tc_run *r) { r->bdesc |= 1ull << 49; }


/* A broken kernel or operand: row w's variant v broken by brk and edit
 * (applied to the data), and what the failure must say. */
typedef struct {
  int w, v;
  tc_break brk;
  void (*edit)(tc_run *);
  const char *want;
} misuse;

static void expect_all(const misuse *m, size_t n) {
  for (size_t i = 0; i < n; i++) expect(m[i].w, m[i].v, m[i].brk, m[i].edit, m[i].want);
}

static void allocation_misuse_is_reported(void **state) {
  (void)state;
  static const misuse m[] = {
      {0, 0, TC_NO_DEALLOC, NULL, "columns of Tensor Memory still allocated"},
      {0, 0, TC_DOUBLE_DEALLOC, NULL, "no allocation starts there (freed twice"},
      {0, 0, TC_DEALLOC_SIZE, NULL, "that allocation holds 512 columns"},
      {0, 0, TC_ALLOC_AFTER_RELINQUISH, NULL, "after the block's tcgen05.relinquish_alloc_permit"},
      {0, 0, TC_MMA_OUTSIDE, NULL, "tcgen05.mma (D) by thread 0: Tensor Memory lanes 0..127, "
                                   "columns 480..735 are outside every allocation"},
      {0, 0, TC_LD_OUTSIDE, NULL, "columns 256..383 are outside every allocation"},
      {0, 0, TC_LD_WRONG_QUARTER, NULL, "may only access lanes"},
      {0, 0, TC_LD_NONUNIFORM, NULL, "must be the same in the warp"},
      {0, 1, TC_ST_OUTSIDE, NULL, "columns 256..259 are outside every allocation"},
      {14, 0, TC_CP_OUTSIDE, by_cp, "tcgen05.cp by thread 0: Tensor Memory lanes 0..127, "
                                    "columns 264..267 are outside every allocation"},
  };
  expect_all(m, sizeof m / sizeof m[0]);
}

static void completion_misuse_is_reported(void **state) {
  (void)state;
  static const misuse m[] = {
      {0, 0, TC_LD_BEFORE_WAIT, NULL, "this thread has not observed it"},
      {0, 0, TC_OBSERVER_ONLY, NULL, "this thread has not observed it"},
      {0, 0, TC_LD_UNCOMMITTED, NULL, "no tcgen05.commit covers it yet"},
      {0, 0, TC_NO_COMMIT, NULL, "mbarrier"},
      {0, 0, TC_ST_NO_WAIT, NULL, "has not executed tcgen05.wait::st"},
      {0, 0, TC_NEVER_WAIT_LD, NULL, "tcgen05.ld results never waited for"},
      {0, 0, TC_ST_NO_SYNC, NULL, "written by warp 1's tcgen05.st: no __syncthreads() since"},
      {0, 0, TC_NO_FENCE_AFTER, NULL, "no tcgen05.fence::after_thread_sync since the commit"},
      {0, 0, TC_NO_FENCE_BEFORE, NULL,
       "no tcgen05.fence::before_thread_sync after its tcgen05.wait::st"},
      {0, 0, TC_NO_FENCE_AFTER_ST, NULL,
       "written by warp 1's tcgen05.st: this thread executed no tcgen05.fence::after_thread_sync"},
  };
  expect_all(m, sizeof m / sizeof m[0]);
}

static void bad_operands_are_reported(void **state) {
  (void)state;
  static const misuse m[] = {
      {14, 0, TC_SCALE_NOT_DUP, undup_scale, "must be duplicated in all four 32-lane quarters"},
      {0, 0, TC_OK, bad_version, "bits 46-48 must hold 0b001"},
      {0, 0, TC_OK, bad_m, "M (bits 24-28, M >> 4) must be 64 or 128"},
      {0, 0, TC_OK, reserved_bit, "reserved bits 6, 23 or 29 are set"},
      {0, 0, TC_OK, bad_swizzle, "swizzle mode 3, 5 and 7 are invalid"},
      {0, 0, TC_OK, bad_opcode, "unknown opcode 'tcgen05.mma.cta_group::1.kind::f64'"},
      {0, 0, TC_OK, base_offset, "base offset other than 0"},
      {0, 1, TC_A_LANE, NULL, "A at lane 16, D at lane 0 (A and D share"},
  };
  expect_all(m, sizeof m / sizeof m[0]);
}

/* ---- the opcodes are ptxas's ---- */

/* Every opcode form the model takes (and these tests pass), one instruction a
 * line after the header: ptxas 13 accepts them all at sm_100a, rejects each
 * at sm_90a and sm_120a, and at sm_100f rejects exactly kind::i8 and the
 * scale_vec::NX forms (PTX ISA: those are sm_100a only). */
static const char *const forms[] = {
    "tcgen05.alloc.cta_group::1.sync.aligned.shared::cta.b32 [slot], 32;",
    "tcgen05.alloc.cta_group::1.sync.aligned.b32 [slot], 32;",
    "tcgen05.dealloc.cta_group::1.sync.aligned.b32 r1, 32;",
    "tcgen05.relinquish_alloc_permit.cta_group::1.sync.aligned;",
    "tcgen05.mma.cta_group::1.kind::f16 [r1], rd1, rd2, r2, p;",
    "tcgen05.mma.cta_group::1.kind::tf32 [r1], [r3], rd2, r2, p;",
    "tcgen05.mma.cta_group::1.kind::f8f6f4 [r1], rd1, rd2, r2, p;",
    "tcgen05.mma.cta_group::1.kind::i8 [r1], [r3], rd2, r2, p;",
    "tcgen05.mma.cta_group::1.kind::mxf8f6f4.block_scale.scale_vec::1X [r1], rd1, rd2, r2, [r4], [r5], p;",
    "tcgen05.mma.cta_group::1.kind::mxf8f6f4.block_scale [r1], [r3], rd2, r2, [r4], [r5], p;",
    "tcgen05.mma.cta_group::1.kind::mxf4.block_scale.scale_vec::2X [r1], rd1, rd2, r2, [r4], [r5], p;",
    "tcgen05.mma.cta_group::1.kind::mxf4.block_scale.block32 [r1], [r3], rd2, r2, [r4], [r5], p;",
    "tcgen05.mma.cta_group::1.kind::mxf4nvf4.block_scale.scale_vec::2X [r1], rd1, rd2, r2, [r4], [r5], p;",
    "tcgen05.mma.cta_group::1.kind::mxf4nvf4.block_scale.scale_vec::4X [r1], [r3], rd2, r2, [r4], [r5], p;",
    "tcgen05.mma.cta_group::1.kind::mxf4nvf4.block_scale.block16 [r1], rd1, rd2, r2, [r4], [r5], p;",
    "tcgen05.commit.cta_group::1.mbarrier::arrive::one.shared::cluster.b64 [bar];",
    "tcgen05.commit.cta_group::1.mbarrier::arrive::one.b64 [bar];",
    "tcgen05.ld.sync.aligned.32x32b.x2.b32 {r10, r11}, [r1];",
    "tcgen05.ld.sync.aligned.32x32b.x2.pack::16b.b32 {r10, r11}, [r1];",
    "tcgen05.ld.sync.aligned.16x64b.x2.b32 {r10, r11}, [r1];",
    "tcgen05.ld.sync.aligned.16x128b.x1.b32 {r10, r11}, [r1];",
    "tcgen05.ld.sync.aligned.16x256b.x1.b32 {r10, r11, r12, r13}, [r1];",
    "tcgen05.st.sync.aligned.32x32b.x2.unpack::16b.b32 [r1], {r10, r11};",
    "tcgen05.st.sync.aligned.16x256b.x1.b32 [r1], {r10, r11, r12, r13};",
    "tcgen05.wait::ld.sync.aligned;",
    "tcgen05.wait::st.sync.aligned;",
    "tcgen05.cp.cta_group::1.128x256b [r1], rd1;",
    "tcgen05.cp.cta_group::1.128x128b [r1], rd1;",
    "tcgen05.cp.cta_group::1.32x128b.warpx4 [r1], rd1;",
    "tcgen05.fence::before_thread_sync;",
    "tcgen05.fence::after_thread_sync;",
};
enum { FORMS = sizeof forms / sizeof forms[0], HEAD_LINES = 9 };

static void opcodes_are_ptxas_facts(void **state) {
  (void)state;
  if (!ptxas_path()) fail_msg("ptxas not found (the toolkit is part of the build)");
  static const char *const archs[3] = {"sm_100a", "sm_90a", "sm_120a"};
  static const char *const fam = "sm_100f";
  char *text[4];
  ptxas_job jobs[4];
  for (int a = 0; a < 4; a++) {
    tcmma_buf b = {0};
    tcmma_buf_printf(&b, ".version 8.8\n.target %s\n.address_size 64\n.visible .entry k() {\n"
                         ".reg .b32 r<20>;\n.reg .b64 rd<4>;\n.reg .pred p;\n"
                         ".shared .align 8 .b64 bar;\n.shared .align 4 .b32 slot;\n",
                     a < 3 ? archs[a] : fam);
    for (int f = 0; f < FORMS; f++) tcmma_buf_printf(&b, "%s\n", forms[f]);
    tcmma_buf_printf(&b, "ret;\n}\n");
    text[a] = b.data;
    jobs[a] = (ptxas_job){text[a], b.len, a < 3 ? archs[a] : fam, 0, NULL};
  }
  ptxas_run(jobs, 4);
  if (jobs[0].rc != 0) fail_msg("ptxas refuses the forms at sm_100a:\n%s", jobs[0].log);
  for (int a = 1; a < 4; a++)
    for (int f = 0; f < FORMS; f++) {
      bool refused = ptxas_error_at(jobs[a].log, HEAD_LINES + 1 + f);
      bool want = a < 3 || strstr(forms[f], "kind::i8") || strstr(forms[f], ".scale_vec::");
      if (refused != want)
        fail_msg("%s: ptxas %s '%s'", jobs[a].arch, refused ? "refuses" : "accepts", forms[f]);
    }
  for (int a = 0; a < 4; a++) free(text[a]);
  ptxas_jobs_free(jobs, 4);
}

static int setup_all(void **state) {
  (void)state;
  the_run = calloc(1, sizeof *the_run);
  the_values = calloc(1, sizeof *the_values);
  return the_run && the_values ? 0 : -1;
}

static int teardown_all(void **state) {
  (void)state;
  free(the_run);
  free(the_values);
  return 0;
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(opcodes_are_ptxas_facts),
      cmocka_unit_test(bit_exact_every_kind),
      cmocka_unit_test(scales_through_cp),
      cmocka_unit_test(ld_results_land_at_the_wait),
      cmocka_unit_test(own_warp_stores_need_no_barrier),
      cmocka_unit_test(pack_and_unpack),
      cmocka_unit_test(sixteen_lane_shapes),
      cmocka_unit_test(allocation_misuse_is_reported),
      cmocka_unit_test(completion_misuse_is_reported),
      cmocka_unit_test(bad_operands_are_reported),
  };
  return cmocka_run_group_tests(tests, setup_all, teardown_all);
}
