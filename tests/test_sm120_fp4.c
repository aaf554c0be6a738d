/* The 12.x fp6/fp4 arms end to end (docs/design.md §5): the simulator's
 * kind::f8f6f4, kind::mxf8f6f4 and kind::mxf4nvf4 forms against a plain C
 * product on exact inputs, from lane registers packed here by the PTX ISA's
 * fragments (written out in this file: 8-bit containers at m16n8k32, e2m1
 * in bits 5..2, e2m3 and e3m2 in 5..0; eight 4-bit e2m1 a register at
 * m16n8k64; the scale_vec::VX blocks in bytes 0..V-1 of the lanes the
 * selectors pick); the rendered text's packing; the family targets by
 * ptxas; the matrix cases on the simulator. From the ISA and ptxas alone:
 * none of it has run on a 12.x device. */
#include "util.h"
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "tcmma/tcmma.h"
#include "tcmma/compile.h"
#include "tcmma/sim.h"
#include "tools/verify/matrix.h"
#include "tools/verify/verify.h"

enum { M = 16, N = 8, KMAX = 64 };

typedef enum { T_E4M3, T_E5M2, T_E2M3, T_E3M2, T_E2M1, NTYPES } elem_type;
static const char *const names[NTYPES] = {"e4m3", "e5m2", "e2m3", "e3m2", "e2m1"};

/* The code of v (exact) and the register byte of it at m16n8k32. */
static uint32_t code(elem_type t, double v) {
  float f = (float)v;
  switch (t) {
  case T_E4M3: return tcmma_sim_float_to_e4m3(f);
  case T_E5M2: return tcmma_sim_float_to_e5m2(f);
  case T_E2M3: return tcmma_sim_float_to_e2m3(f);
  case T_E3M2: return tcmma_sim_float_to_e3m2(f);
  default: return tcmma_sim_float_to_e2m1(f);
  }
}
static uint32_t container(elem_type t, double v) { return code(t, v) << (t == T_E2M1 ? 2 : 0); }

typedef struct {
  const char *opcode;
  int k, vec;         /* vec: scales a row (0: none) */
  bool ue4m3, nibble; /* the scales' type; e2m1 at 4 bits (m16n8k64) */
  bool low_nibble;    /* a packing error: e2m1 left in bits 3..0 of its byte */
  unsigned byte_id;   /* the selectors' byte-id (thread-id 0) */
  elem_type ta, tb;
  double a[M][KMAX], b[KMAX][N], c[M][N], d[M][N];
  double sa[M][4], sb[N][4]; /* each row's (column's) scale of k block j */
} fp4_case;

/* ---- the PTX ISA's fragments: element i of lane (g, q) ---- */

static void a_at(int k, int lane, int i, int *row, int *col) {
  int g = lane >> 2, q = lane & 3;
  if (k == 64) { /* a0..a7, a16..a23 row g; col q*8 + (i & 7), +32 for i >= 16 */
    *row = ((i >> 3) & 1) ? g + 8 : g;
    *col = q * 8 + (i & 7) + (i >= 16 ? 32 : 0);
  } else { /* a0..a3, a8..a11 row g; col q*4 + (i & 3), +16 for i >= 8 */
    *row = (i <= 3 || (i >= 8 && i <= 11)) ? g : g + 8;
    *col = q * 4 + (i & 3) + 16 * (i >= 8);
  }
}
static int b_at(int k, int lane, int i) {
  int q = lane & 3;
  return k == 64 ? q * 8 + (i & 7) + (i >= 8 ? 32 : 0) : q * 4 + (i & 3) + 16 * (i >= 4);
}

static void pack(uint32_t *w, const fp4_case *t, elem_type e, int i, double v) {
  int bits = t->nibble ? 4 : 8;
  uint32_t x = t->nibble || t->low_nibble ? code(e, v) : container(e, v);
  w[i * bits / 32] |= x << (bits * i % 32);
}

/* A scale's code: ue8m0 (a power of two, 2^(e - 127)) or ue4m3. */
static uint32_t scale_code(const fp4_case *t, double v) {
  return t->ue4m3 ? tcmma_sim_float_to_ue4m3((float)v) : (uint32_t)(ilogb(v) + 127);
}

/* The scale data of a lane: the V scales of row g + 8 * (q & 1) of A (of
 * column g of B) at bytes byte-id .. byte-id+V-1; the lanes thread-id 0
 * leaves out (pair 1 of A, q != 0 of B) hold NaN codes, never read. */
static uint32_t lane_scales(const fp4_case *t, int lane, bool b) {
  int g = lane >> 2, q = lane & 3;
  uint32_t nan = t->ue4m3 ? 0x7fu : 0xffu, v = 0;
  for (int byte = 0; byte < 4; byte++) {
    int j = byte - (int)t->byte_id;
    bool chosen = (b ? q == 0 : q < 2) && j >= 0 && j < t->vec;
    uint32_t x = !chosen ? nan : scale_code(t, b ? t->sb[g][j] : t->sa[g + 8 * (q & 1)][j]);
    v |= x << (8 * byte);
  }
  return v;
}

static void lane_fn(void *arg) {
  fp4_case *t = arg;
  int lane = (int)tcmma_sim_lane();
  uint32_t a[4] = {0}, b[2] = {0};
  float c[4], d[4];
  for (int i = 0; i < M * t->k / 32; i++) {
    int r, col;
    a_at(t->k, lane, i, &r, &col);
    pack(a, t, t->ta, i, t->a[r][col]);
  }
  for (int i = 0; i < t->k * N / 32; i++) pack(b, t, t->tb, i, t->b[b_at(t->k, lane, i)][lane >> 2]);
  /* c0, c1 row g; c2, c3 row g + 8; col q*2 + (i & 1) */
  for (int i = 0; i < 4; i++) c[i] = (float)t->c[(lane >> 2) + 8 * (i >= 2)][(lane & 3) * 2 + (i & 1)];
  if (t->vec)
    tcmma_sim_mma_scaled(t->opcode, d, a, b, c, lane_scales(t, lane, false), t->byte_id, 0,
                         lane_scales(t, lane, true), t->byte_id, 0);
  else tcmma_sim_mma(t->opcode, d, a, b, c);
  for (int i = 0; i < 4; i++) t->d[(lane >> 2) + 8 * (i >= 2)][(lane & 3) * 2 + (i & 1)] = d[i];
}

/* Values every type holds exactly (e2m1: 0, ±0.5 .. ±6), scales powers of
 * two: every product and sum is exact. */
static void fill(fp4_case *t, unsigned seed) {
  static const double v[] = {0, 0.5, 1, 1.5, 2, 3, 4, 6, -0.5, -1, -1.5, -2, -3, -4, -6};
  srand(seed);
  for (int r = 0; r < M; r++)
    for (int k = 0; k < t->k; k++) t->a[r][k] = v[rand() % 15];
  for (int k = 0; k < t->k; k++)
    for (int n = 0; n < N; n++) t->b[k][n] = v[rand() % 15];
  for (int r = 0; r < M; r++)
    for (int n = 0; n < N; n++) t->c[r][n] = rand() % 201 - 100;
  for (int j = 0; j < 4; j++) {
    for (int r = 0; r < M; r++) t->sa[r][j] = ldexp(1.0, rand() % 5 - 2);
    for (int n = 0; n < N; n++) t->sb[n][j] = ldexp(1.0, rand() % 5 - 2);
  }
}

static void check(const fp4_case *t) {
  for (int r = 0; r < M; r++)
    for (int n = 0; n < N; n++) {
      double want = t->c[r][n];
      for (int k = 0; k < t->k; k++) {
        int j = t->vec ? k / (t->k / t->vec) : 0;
        want += t->a[r][k] * t->b[k][n] * (t->vec ? t->sa[r][j] * t->sb[n][j] : 1);
      }
      if (t->d[r][n] != want)
        fail_msg("%s: D[%d][%d] = %g, expected %g", t->opcode, r, n, t->d[r][n], want);
    }
}

static tcmma_status launch(fp4_case *t, tcmma_error *err) {
  return tcmma_sim_launch(lane_fn, t, err);
}

static fp4_case *new_case(const char *opcode, int k, int vec, elem_type ta, elem_type tb) {
  fp4_case *t = calloc(1, sizeof *t);
  assert_non_null(t);
  t->opcode = opcode, t->k = k, t->vec = vec, t->ta = ta, t->tb = tb, t->nibble = k == 64;
  fill(t, (unsigned)(k + vec * 5 + ta * 7 + tb * 11));
  return t;
}

static void run(fp4_case *t) {
  tcmma_error err;
  if (launch(t, &err) != TCMMA_OK) fail_msg("%s: %s", t->opcode, err.message);
  check(t);
}

/* kind::f8f6f4 and kind::mxf8f6f4 at m16n8k32: every type pair, fp8 included. */
static void f8f6f4_every_pair(void **state) {
  (void)state;
  for (int scaled = 0; scaled < 2; scaled++)
    for (int ta = 0; ta < NTYPES; ta++)
      for (int tb = 0; tb < NTYPES; tb++) {
        char op[192];
        snprintf(op, sizeof op, "mma.sync.aligned.%sm16n8k32.row.col.f32.%s.%s.f32%s",
                 scaled ? "kind::mxf8f6f4.block_scale.scale_vec::1X." : "kind::f8f6f4.",
                 names[ta], names[tb], scaled ? ".ue8m0" : "");
        fp4_case *t = new_case(op, 32, scaled, (elem_type)ta, (elem_type)tb);
        t->byte_id = (unsigned)(ta + tb) % 4;
        run(t);
        free(t);
      }
}

/* An e2m1 left in its byte's low nibble is refused, naming the byte. */
static void f8f6f4_container_bits(void **state) {
  (void)state;
  fp4_case *t = new_case("mma.sync.aligned.kind::f8f6f4.m16n8k32.row.col.f32.e2m1.e4m3.f32", 32,
                         0, T_E2M1, T_E4M3);
  t->low_nibble = true;
  t->a[0][0] = 3; /* 0b0101: bit 0 outside bits 5..2 */
  tcmma_error err;
  assert_int_equal(launch(t, &err), TCMMA_INVALID);
  assert_non_null(strstr(err.message, "lane 0's a register 0 byte 0 is 0x05"));
  free(t);
}

/* kind::mxf4nvf4 at m16n8k64: 2X ue8m0, 4X ue8m0 and 4X ue4m3 scales, each
 * k block (32 or 16 wide) its own scale. */
static void mxf4nvf4_scale_vectors(void **state) {
  (void)state;
  static const struct {
    int vec;
    bool ue4m3;
  } forms[] = {{2, false}, {4, false}, {4, true}};
  for (size_t i = 0; i < sizeof forms / sizeof forms[0]; i++) {
    char op[192];
    snprintf(op, sizeof op, "mma.sync.aligned.kind::mxf4nvf4.block_scale.scale_vec::%dX.m16n8k64."
             "row.col.f32.e2m1.e2m1.f32.%s", forms[i].vec, forms[i].ue4m3 ? "ue4m3" : "ue8m0");
    fp4_case *t = new_case(op, 64, forms[i].vec, T_E2M1, T_E2M1);
    t->ue4m3 = forms[i].ue4m3;
    run(t);
    /* the blocks differ: one scale for the whole row would not do */
    bool differ = false;
    for (int r = 0; r < M; r++) differ = differ || t->sa[r][0] != t->sa[r][1];
    assert_true(differ);
    free(t);
  }
}

/* What the model does not know it refuses: 2X with ue4m3, byte-id 2 of 2X
 * (this model knows byte-id 0 only), k32 for mxf4nvf4. */
static void mxf4nvf4_refusals(void **state) {
  (void)state;
  static const char *const bad[] = {
      "mma.sync.aligned.kind::mxf4nvf4.block_scale.scale_vec::2X.m16n8k64.row.col.f32.e2m1.e2m1."
      "f32.ue4m3",
      "mma.sync.aligned.kind::mxf4nvf4.block_scale.scale_vec::4X.m16n8k32.row.col.f32.e2m1.e2m1."
      "f32.ue8m0",
      "mma.sync.aligned.kind::mxf4nvf4.block_scale.scale_vec::2X.m16n8k64.row.col.f32.e4m3.e2m1."
      "f32.ue8m0",
  };
  tcmma_error err;
  for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
    fp4_case *t = new_case(bad[i], 64, 2, T_E2M1, T_E2M1);
    assert_int_equal(launch(t, &err), TCMMA_INVALID);
    assert_non_null(strstr(err.message, "unknown block-scaled mma opcode"));
    free(t);
  }
  fp4_case *t = new_case("mma.sync.aligned.kind::mxf4nvf4.block_scale.scale_vec::2X.m16n8k64.row."
                         "col.f32.e2m1.e2m1.f32.ue8m0", 64, 2, T_E2M1, T_E2M1);
  t->byte_id = 2;
  assert_int_equal(launch(t, &err), TCMMA_INVALID);
  assert_non_null(strstr(err.message, "byte-id 0..0"));
  free(t);
}

/* The scales' type each precision carries (tables/prec.def). */
static void scale_types(void **state) {
  (void)state;
  assert_string_equal(tcmma_prec_scale_type(TCMMA_PREC_NVF4), "ue4m3");
  assert_string_equal(tcmma_prec_scale_type(TCMMA_PREC_MXF4), "ue8m0");
  assert_string_equal(tcmma_prec_scale_type(TCMMA_PREC_MXE3M2), "ue8m0");
  assert_string_equal(tcmma_prec_scale_type(TCMMA_PREC_E2M1), "");
  assert_string_equal(tcmma_prec_scale_type(TCMMA_PREC_COUNT), "");
}

/* ---- the renderer ---- */

static tcmma_call fp4_call(const char *a, const char *b, int k) {
  tcmma_call c = tcmma_call_default();
  assert_int_equal(tcmma_prec_parse(a, &c.a.prec, NULL), TCMMA_OK);
  assert_int_equal(tcmma_prec_parse(b, &c.b.prec, NULL), TCMMA_OK);
  c.d.prec = TCMMA_PREC_F32;
  c.b.transposed = true;
  if (tcmma_prec_is_scaled(c.a.prec)) c.a.scale = "sa", c.b.scale = "sb";
  c.m = 16, c.n = 8, c.k = k, c.cc = 120;
  return c;
}

static char *render(tcmma_call c, const char *marker, tcmma_dialect dl) {
  tcmma_plan p;
  tcmma_error err = {0};
  if (tcmma_plan_call(&c, &p, &err) != TCMMA_OK) fail_msg("%s", err.message);
  assert_string_equal(tcmma_arm_marker(p.arm), marker);
  tcmma_buf out = {0};
  tcmma_names nm = {0};
  assert_int_equal(tcmma_render_statement(RCTX(&p, dl, &nm, &out), "d", "a", "b", &err), TCMMA_OK);
  char *s = strdup(tcmma_buf_str(&out));
  tcmma_buf_free(&out);
  return s;
}

static void has(const char *t, const char *want, bool yes) {
  if ((strstr(t, want) != NULL) != yes) fail_msg("'%s' %s in:\n%s", want, yes ? "missing" : "present", t);
}

/* e2m1 registers shift into bits 5..2, fp6 stay; m16n8k64 packs eight
 * nibbles a register and two (four) scale bytes a register. */
static void rendered_packing(void **state) {
  (void)state;
  char *t = render(fp4_call("e2m1", "e3m2", 64), "mma-f8f6f4", TCMMA_DIALECT_CUDA);
  has(t, "mma.sync.aligned.kind::f8f6f4.m16n8k32.row.col.f32.e2m1.e3m2.f32", true);
  has(t, "__tcmma_0_af[__tcmma_0_mi][3] <<= 2;", true);
  has(t, "__tcmma_0_bf[__tcmma_0_ni][0] <<= 2;", false);
  free(t);
  t = render(fp4_call("mxf4", "mxf4", 128), "mma-mxf4", TCMMA_DIALECT_CUDA);
  has(t, "kind::mxf4nvf4.block_scale.scale_vec::2X.m16n8k64.row.col.f32.e2m1.e2m1.f32.ue8m0", true);
  has(t, "{%0, %1, %2, %3}, %10, {0, 0}, %11, {0, 0};", true);
  has(t, "8 * __tcmma_0_q + 7)) << 28;", true);
  has(t, "* 4 + 2 * __tcmma_0_ki + 1] << 8;", true);
  has(t, "<<= 2", false);
  free(t);
  t = render(fp4_call("nvf4", "nvf4", 64), "mma-nvf4", TCMMA_DIALECT_HOST);
  has(t, "kind::mxf4nvf4.block_scale.scale_vec::4X.m16n8k64.row.col.f32.e2m1.e2m1.f32.ue4m3", true);
  has(t, "* 4 + 4 * __tcmma_0_ki + 3] << 24;", true);
  free(t);
}

/* The kernels assemble on the 12.x a and f targets only (ptxas through
 * NVRTC); the floor target is the family's. */
static void family_targets_by_ptxas(void **state) {
  (void)state;
  tcmma_error err = {0};
  if (tcmma_nvrtc_load(NULL, &err) != TCMMA_OK) skip();
  static const struct {
    const char *a, *b, *marker;
    int k;
  } arms[] = {{"e2m1", "e2m3", "mma-f8f6f4", 64},
              {"mxf4", "mxe3m2", "mma-mxfp8", 64},
              {"mxf4", "mxf4", "mma-mxf4", 128},
              {"nvf4", "nvf4", "mma-nvf4", 64}};
  static const struct {
    int arch;
    char suffix;
    bool ok;
  } targets[] = {{120, 'f', true}, {121, 'a', true}, {100, 'a', false}, {90, 0, false}};
  for (size_t i = 0; i < sizeof arms / sizeof arms[0]; i++) {
    tcmma_call c = fp4_call(arms[i].a, arms[i].b, arms[i].k);
    tcmma_plan p;
    assert_int_equal(tcmma_plan_call(&c, &p, NULL), TCMMA_OK);
    assert_string_equal(tcmma_arm_marker(p.arm), arms[i].marker);
    tcmma_buf src = {0};
    assert_int_equal(tcmma_render_kernel(RCTX(&p, TCMMA_DIALECT_CUDA, NULL, &src), NULL, &err),
                     TCMMA_OK);
    for (size_t j = 0; j < sizeof targets / sizeof targets[0]; j++) {
      tcmma_compile_opts o = TCMMA_COMPILE_OPTS_INIT(.sass = true, .arch = targets[j].arch,
                                                     .arch_suffix = targets[j].suffix);
      tcmma_program prog;
      tcmma_status st = tcmma_compile(src.data, src.len, &o, &prog, &err);
      if (targets[j].ok && (st != TCMMA_OK || !prog.cubin || strstr(prog.log, "warning")))
        fail_msg("%s sm_%d%c: %s\n%s", arms[i].marker, targets[j].arch, targets[j].suffix,
                 err.message, prog.log ? prog.log : "");
      if (!targets[j].ok && (st != TCMMA_COMPILE || !prog.log || !strstr(prog.log, "not supported")))
        fail_msg("%s sm_%d: expected ptxas to refuse it, got %s", arms[i].marker,
                 targets[j].arch, tcmma_status_name(st));
      tcmma_program_free(&prog);
    }
    tcmma_compile_opts floor = TCMMA_COMPILE_OPTS_INIT(.sass = true, .target = TCMMA_TARGET_FLOOR);
    tcmma_program prog;
    assert_int_equal(tcmma_compile(src.data, src.len, &floor, &prog, &err), TCMMA_OK);
    assert_string_equal(prog.target_arch, "sm_120f");
    tcmma_program_free(&prog);
    tcmma_buf_free(&src);
  }
}

/* The matrix's cases of the new arms run on the simulator against the
 * reference that applies the scales (tools/verify/data.c). */
static void matrix_cases_on_the_simulator(void **state) {
  (void)state;
  const tcmma_arm arms[] = {TCMMA_ARM_MMA_F8F6F4, TCMMA_ARM_MMA_MXF4, TCMMA_ARM_MMA_NVF4};
  const verify_case *cs;
  size_t n = verify_matrix(&cs);
  for (size_t a = 0; a < sizeof arms / sizeof arms[0]; a++) {
    size_t ran = 0;
    for (size_t i = 0; i < n && ran < 3; i++) {
      if (cs[i].expect != TCMMA_DECLINE_NONE || cs[i].expect_arm != arms[a]) continue;
      verify_case_result r;
      verify_exec_sim(&cs[i], &r);
      if (r.outcome != VERIFY_CASE_PASSED) fail_msg("%s: %s", cs[i].name, r.reason);
      ran++;
    }
    assert_int_equal(ran, 3);
  }
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(f8f6f4_every_pair),
      cmocka_unit_test(f8f6f4_container_bits),
      cmocka_unit_test(mxf4nvf4_scale_vectors),
      cmocka_unit_test(mxf4nvf4_refusals),
      cmocka_unit_test(scale_types),
      cmocka_unit_test(rendered_packing),
      cmocka_unit_test(family_targets_by_ptxas),
      cmocka_unit_test(matrix_cases_on_the_simulator),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
