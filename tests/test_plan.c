/* Planning: every decline reason with a message naming the value, the
 * accept paths, ldmatrix selection and census values derived here from the
 * PTX ISA shapes and fragment layouts (written in this file). */
#include "util.h"
#include <limits.h>
#include <stdio.h>
#include <string.h>
#include "tcmma/tcmma.h"
#include "tools/cli_parse.h"

static tcmma_call call3(const char *d, const char *a, const char *b, int m, int n, int k) {
  tcmma_call c = tcmma_call_default();
  assert_int_equal(cli_parse_operand_spec(d, &c.d, NULL), TCMMA_OK);
  assert_int_equal(cli_parse_operand_spec(a, &c.a, NULL), TCMMA_OK);
  assert_int_equal(cli_parse_operand_spec(b, &c.b, NULL), TCMMA_OK);
  c.m = m, c.n = n, c.k = k;
  return c;
}

static void expect_decline(tcmma_call c, tcmma_decline reason, const char *needle) {
  tcmma_plan p;
  tcmma_error err = {0};
  assert_int_equal(tcmma_plan_call(&c, &p, &err), TCMMA_DECLINED);
  assert_false(p.accepted);
  if (p.reason != reason)
    fail_msg("expected decline %s, got %s: %s", tcmma_decline_name(reason),
             tcmma_decline_name(p.reason), p.message);
  assert_non_null(strstr(p.message, tcmma_decline_name(reason)));
  if (needle && !strstr(p.message, needle))
    fail_msg("message '%s' does not name '%s'", p.message, needle);
  assert_string_equal(err.message, p.message);
  tcmma_census cen;
  assert_int_equal(tcmma_plan_census(&p, &cen, NULL), TCMMA_INVALID);
}

static tcmma_plan expect_accept(tcmma_call c, const char *marker) {
  tcmma_plan p;
  tcmma_error err = {0};
  tcmma_status st = tcmma_plan_call(&c, &p, &err);
  if (st != TCMMA_OK) fail_msg("declined: %s", err.message);
  assert_true(p.accepted);
  assert_int_equal(p.reason, TCMMA_DECLINE_NONE);
  assert_string_equal(tcmma_arm_marker(p.arm), marker);
  return p;
}

static void test_no_arm(void **s) {
  (void)s;
  expect_decline(call3("f32", "f32", "f32", 16, 16, 8), TCMMA_DECLINE_NO_ARM, "tf32");
  expect_decline(call3("f64", "f64", "f64", 16, 16, 8), TCMMA_DECLINE_NO_ARM, "f64");
  tcmma_call c = call3("f32", "f16", "f16", 16, 8, 16);
  c.arm = "mma-bf16"; /* not an arm of f32 = f16 x f16 */
  expect_decline(c, TCMMA_DECLINE_NO_ARM, "mma-bf16");
  expect_decline(call3("f32", "mxfp8", "mxfp8", 16, 8, 32), TCMMA_DECLINE_NO_ARM, "mma-mxfp8");
}

static void test_floor(void **s) {
  (void)s;
  tcmma_call c = call3("bf16", "bf16", "bf16", 16, 8, 16);
  c.cc = 75;
  expect_decline(c, TCMMA_DECLINE_FLOOR, "75");
  c = call3("f32", "e4m3", "e4m3", 16, 8, 32);
  c.cc = 86;
  expect_decline(c, TCMMA_DECLINE_FLOOR, "89");
  c = call3("f32", "f16", "f16", 16, 16, 16);
  c.arm = "wmma-f16f32";
  c.cc = 61;
  expect_decline(c, TCMMA_DECLINE_FLOOR, "70");
}

static void test_extents(void **s) {
  (void)s;
  /* m16n8k16 (PTX ISA): 24 is no multiple of 16 */
  expect_decline(call3("f32", "f16", "f16", 24, 8, 16), TCMMA_DECLINE_EXTENTS, "m = 24");
  expect_decline(call3("f32", "f16", "f16", 16, 12, 16), TCMMA_DECLINE_EXTENTS, "n = 12");
  expect_decline(call3("f32", "f16", "f16", 16, 8, 0), TCMMA_DECLINE_EXTENTS, "k = 0");
  expect_decline(call3("f32", "f16", "f16", -16, 8, 16), TCMMA_DECLINE_EXTENTS, "m = -16");
  /* m16n8k32 fp8: k 16 is too short */
  expect_decline(call3("f32", "e4m3", "e4m3", 16, 8, 16), TCMMA_DECLINE_EXTENTS, "k = 16");
  /* wmma m16n16k16: n 8 fits the inline arm, not wmma */
  tcmma_call c = call3("f32", "f16", "f16", 16, 8, 16);
  c.numerics.prefer = TCMMA_PREFER_WMMA;
  expect_decline(c, TCMMA_DECLINE_EXTENTS, "n = 8");
}

static void test_stride(void **s) {
  (void)s;
  /* ld below the stored row */
  expect_decline(call3("f32", "f16,ld=8", "f16", 16, 8, 16), TCMMA_DECLINE_STRIDE, "ld = 8");
  /* inline: a row-major f16 register pair is one 32-bit load: 17*2 bytes breaks it */
  expect_decline(call3("f32", "f16,ld=17", "f16", 16, 8, 16), TCMMA_DECLINE_STRIDE, "ld = 17");
  /* ... but a transposed a is gathered per element: any ld works */
  expect_accept(call3("f32", "f16,t,ld=17", "f16", 16, 8, 16), "mma-f16");
  /* swizzled rows are whole 128-byte lines */
  expect_decline(call3("f32", "f16,shared,swizzled,ld=32", "f16", 16, 8, 16),
                 TCMMA_DECLINE_STRIDE, "128");
  /* wmma: ld*eb a multiple of 32 bytes: 24 halves = 48 bytes */
  tcmma_call c = call3("f32", "f16,ld=24", "f16", 16, 16, 16);
  c.numerics.prefer = TCMMA_PREFER_WMMA;
  expect_decline(c, TCMMA_DECLINE_STRIDE, "ld = 24");
  c = call3("f32", "f16,ld=32", "f16", 16, 16, 16);
  c.numerics.prefer = TCMMA_PREFER_WMMA;
  expect_accept(c, "wmma-f16f32");
}

static void test_space_layout(void **s) {
  (void)s;
  expect_decline(call3("f32", "f16,thread", "f16", 16, 8, 16), TCMMA_DECLINE_SPACE, "a");
  expect_decline(call3("f32,thread", "f16", "f16", 16, 8, 16), TCMMA_DECLINE_SPACE, "d");
  expect_decline(call3("f32", "f16,swizzled,ld=64", "f16", 16, 8, 16), TCMMA_DECLINE_LAYOUT,
                 "global");
  tcmma_call c = call3("f32", "f16,shared,swizzled,ld=64", "f16", 16, 16, 16);
  c.numerics.prefer = TCMMA_PREFER_WMMA;
  expect_decline(c, TCMMA_DECLINE_LAYOUT, "wmma-f16f32");
}

static void test_converted_dest(void **s) {
  (void)s;
  tcmma_call c = call3("f16", "f16", "f16", 16, 16, 16);
  c.arm = "wmma-f16-wide";
  expect_decline(c, TCMMA_DECLINE_CONVERTED_DEST, "statement");
  c.scope = TCMMA_SCOPE_FRAGMENT;
  tcmma_plan p = expect_accept(c, "wmma-f16-wide");
  tcmma_census cen;
  assert_int_equal(tcmma_plan_census(&p, &cen, NULL), TCMMA_OK);
  /* one 16x16 f32 accumulator tile staged per warp */
  assert_int_equal(cen.shared_bytes, 16 * 16 * 4);
  /* statement scope on a device where only the converting arm runs: the
   * statement list (mma-f16) is final, so floor, naming the scope that runs */
  c.arm = NULL;
  c.scope = TCMMA_SCOPE_STATEMENT;
  c.cc = 75;
  expect_decline(c, TCMMA_DECLINE_FLOOR, "fragment scope would run it on wmma-f16-wide");
  /* naming an arm never lifts a numerics rule */
  c.arm = "wmma-f16";
  c.cc = 0;
  expect_decline(c, TCMMA_DECLINE_NO_ARM, "numerics policy");
  c.scope = TCMMA_SCOPE_FRAGMENT;
  /* resolution picks it on a device below the inline arm's floor */
  c.arm = NULL;
  c.cc = 75;
  expect_accept(c, "wmma-f16-wide");
}

static void test_overflow(void **s) {
  (void)s;
  expect_decline(call3("f32", "f16,ld=1073741824", "f16", 16, 8, 16), TCMMA_DECLINE_OVERFLOW,
                 "1073741824");
  /* 2^26 tiles of 16 rows of 8 f32: 2^35 bytes of d */
  expect_decline(call3("f32", "f16", "f16", 16 << 26, 8, 16), TCMMA_DECLINE_OVERFLOW, NULL);
  /* every operand fits (23168^2 f16 is 1 GiB) but one statement would hold
   * 1448 x 2896 x 1448 = 6072054784 products, more than the census counts */
  expect_decline(call3("f32", "f16", "f16", 23168, 23168, 23168), TCMMA_DECLINE_OVERFLOW,
                 "6072054784");
  /* 2^11 x 2^10 x 2^10 tiles of mma-f16 (every operand at most 1 GiB): 2^31
   * products, one too many; half as many n tiles fit */
  expect_decline(call3("f32", "f16", "f16", 16 << 11, 8 << 10, 16 << 10), TCMMA_DECLINE_OVERFLOW,
                 "2147483648");
  tcmma_plan p = expect_accept(call3("f32", "f16", "f16", 16 << 11, 8 << 9, 16 << 10), "mma-f16");
  tcmma_census cen;
  assert_int_equal(tcmma_plan_census(&p, &cen, NULL), TCMMA_OK);
  assert_int_equal(cen.mma_per_statement, 1 << 30);
}

static void test_invalid(void **s) {
  (void)s;
  tcmma_plan p;
  tcmma_error err = {0};
  assert_int_equal(tcmma_plan_call(NULL, &p, &err), TCMMA_INVALID);
  tcmma_call c = call3("f32", "f16", "f16", 16, 8, 16);
  c.a.prec = (tcmma_prec)99;
  assert_int_equal(tcmma_plan_call(&c, &p, &err), TCMMA_INVALID);
  assert_non_null(strstr(err.message, "99"));
  c = call3("f32", "f16", "f16", 16, 8, 16);
  c.b.ld = -4;
  assert_int_equal(tcmma_plan_call(&c, &p, &err), TCMMA_INVALID);
  c = call3("f32", "f16", "f16", 16, 8, 16);
  c.warps = 33;
  assert_int_equal(tcmma_plan_call(&c, &p, &err), TCMMA_INVALID);
  assert_non_null(strstr(err.message, "33"));
  c = call3("f32", "f16", "f16", 16, 8, 16);
  c.arm = "mma-nope";
  assert_int_equal(tcmma_plan_call(&c, &p, &err), TCMMA_INVALID);
  assert_non_null(strstr(err.message, "mma-nope"));
  /* lane and warp expressions beyond TCMMA_EXPR_MAX: an error, never a
   * silently truncated expression in the emitted text */
  char longexpr[TCMMA_EXPR_MAX + 2];
  memset(longexpr, 'x', sizeof longexpr - 1);
  longexpr[sizeof longexpr - 1] = '\0';
  c = call3("f32", "f16", "f16", 16, 8, 16);
  c.lane = longexpr;
  assert_int_equal(tcmma_plan_call(&c, &p, &err), TCMMA_INVALID);
  assert_non_null(strstr(err.message, "lane expression"));
  c.lane = NULL;
  c.warp = longexpr;
  assert_int_equal(tcmma_plan_call(&c, &p, &err), TCMMA_INVALID);
  longexpr[TCMMA_EXPR_MAX] = '\0'; /* exactly the limit: accepted, rendered whole */
  c.warp = NULL;
  c.lane = longexpr;
  assert_int_equal(tcmma_plan_call(&c, &p, &err), TCMMA_OK);
  for (int dl = 0; dl < 2; dl++) {
    tcmma_buf out = {0};
    assert_int_equal(tcmma_render_statement(&p, (tcmma_dialect)dl, "d", "a", "b", &out, &err),
                     TCMMA_OK);
    assert_non_null(strstr(tcmma_buf_str(&out), longexpr));
    tcmma_buf_free(&out);
  }
  assert_int_equal(tcmma_plan_census(NULL, NULL, &err), TCMMA_INVALID);
}

static void test_spec(void **s) {
  (void)s;
  tcmma_operand_desc o;
  tcmma_error err = {0};
  assert_int_equal(cli_parse_operand_spec("bf16,t,ld=72,shared,swizzled", &o, &err), TCMMA_OK);
  assert_int_equal(o.prec, TCMMA_PREC_BF16);
  assert_true(o.transposed);
  assert_int_equal(o.ld, 72);
  assert_int_equal(o.space, TCMMA_SPACE_SHARED);
  assert_int_equal(o.layout, TCMMA_LAYOUT_SWIZZLED_B128);
  assert_int_equal(cli_parse_operand_spec("e4m3", &o, &err), TCMMA_OK);
  assert_false(o.transposed);
  assert_int_equal(o.ld, 0);
  assert_int_equal(o.space, TCMMA_SPACE_GLOBAL);
  const char *bad[] = {"", "f17", "f16,x", "f16,ld=", "f16,ld=0", "f16,ld=-3", "f16,ld=4x",
                       ",f16", "f16,,t", "f16,",
                       /* a kind of piece twice: never a silent last-one-wins */
                       "f16,t,t", "f16,shared,global", "f16,plain,swizzled", "f16,ld=8,ld=16",
                       NULL};
  for (int i = 0; bad[i]; i++) {
    err.message[0] = '\0';
    if (cli_parse_operand_spec(bad[i], &o, &err) != TCMMA_INVALID)
      fail_msg("spec '%s' was accepted", bad[i]);
    assert_true(strlen(err.message) > 0);
  }
  assert_int_equal(cli_parse_operand_spec(NULL, &o, &err), TCMMA_INVALID);
}

/* PTX ISA m16n8k16: A register i holds two halves at columns 2q, 2q+1 of one
 * row (contiguous in a row-major a); B register i holds k rows 2q, 2q+1 of one
 * column n (contiguous only when b is stored transposed, n-major). */
static void test_census(void **s) {
  (void)s;
  tcmma_call c = call3("f32", "bf16", "bf16,t", 64, 32, 48);
  tcmma_plan p = expect_accept(c, "mma-bf16");
  tcmma_census cen;
  assert_int_equal(tcmma_plan_census(&p, &cen, NULL), TCMMA_OK);
  assert_int_equal(cen.tile_m, 16), assert_int_equal(cen.tile_n, 8);
  assert_int_equal(cen.tile_k, 16);
  assert_int_equal(cen.mt, 64 / 16), assert_int_equal(cen.nt, 32 / 8);
  assert_int_equal(cen.kt, 48 / 16);
  assert_int_equal(cen.mma_per_statement, 4 * 4 * 3);
  assert_int_equal(cen.a_loads_per_k, 4); /* each A fragment once per k step */
  assert_int_equal(cen.b_loads_per_k, 4);
  assert_false(cen.reloads);
  assert_false(cen.a_ldmatrix), assert_false(cen.b_ldmatrix);
  assert_true(cen.a_vector), assert_true(cen.b_vector);
  assert_int_equal(cen.shared_bytes, 0);
  p = expect_accept(call3("f32", "bf16,t", "bf16", 16, 8, 16), "mma-bf16");
  assert_int_equal(tcmma_plan_census(&p, &cen, NULL), TCMMA_OK);
  assert_false(cen.a_vector), assert_false(cen.b_vector);
  /* wmma m16n16k8 tf32 */
  c = call3("f32", "f32", "f32", 32, 48, 24);
  c.numerics.tf32 = true;
  p = expect_accept(c, "wmma-tf32");
  assert_int_equal(tcmma_plan_census(&p, &cen, NULL), TCMMA_OK);
  assert_int_equal(cen.mt * cen.nt * cen.kt, 2 * 3 * 3);
  assert_int_equal(cen.mma_per_statement, 18);
  assert_false(cen.a_vector), assert_false(cen.a_ldmatrix);
  /* the dense ld is filled in: stored row lengths */
  assert_int_equal(p.call.a.ld, 24), assert_int_equal(p.call.b.ld, 48);
  assert_int_equal(p.call.d.ld, 48);
}

/* PTX ISA m16n8 C/D fragment: c0, c1 at row g, columns 2q, 2q+1; c2, c3 at
 * row g+8, the same columns (g = lane>>2, q = lane&3). A pair is adjacent in
 * memory only when d is stored row-major, and one access of two elements
 * needs its byte offset ((16*mi + g + 8h)*ld + 8*ni + 2q)*eb to be a multiple
 * of 2*eb for every lane and tile (the base is 16-byte aligned). */
static bool expect_d_vector(long ld, int eb, bool transposed, int mt, int nt) {
  if (transposed) return false;
  for (int lane = 0; lane < 32; lane++)
    for (int mi = 0; mi < mt; mi++)
      for (int ni = 0; ni < nt; ni++)
        for (int h = 0; h < 2; h++) {
          long off = ((16L * mi + (lane >> 2) + 8 * h) * ld + 8 * ni + 2 * (lane & 3)) * eb;
          if (off % (2 * eb)) return false;
        }
  return true;
}

static void test_census_d_vector(void **s) {
  (void)s;
  const struct {
    const char *d, *ab, *marker;
    int eb, k; /* d's element bytes; one k tile of the arm */
  } precs[] = {{"f32", "f16", "mma-f16", 4, 16},
               {"f16", "f16", "mma-f16", 2, 16},
               {"bf16", "bf16", "mma-bf16", 2, 16},
               {"f32", "e4m3", "mma-fp8", 4, 32}};
  const int m = 32, n = 16; /* 2 x 2 tiles */
  int vec = 0, scalar = 0;
  for (size_t i = 0; i < sizeof precs / sizeof precs[0]; i++)
    for (int t = 0; t < 2; t++)
      for (int pad = 0; pad < 4; pad++) {
        long ld = (t ? m : n) + pad;
        char d[64], b[32];
        snprintf(d, sizeof d, "%s%s,ld=%ld", precs[i].d, t ? ",t" : "", ld);
        snprintf(b, sizeof b, "%s,t", precs[i].ab);
        tcmma_plan p = expect_accept(call3(d, precs[i].ab, b, m, n, precs[i].k), precs[i].marker);
        tcmma_census cen;
        assert_int_equal(tcmma_plan_census(&p, &cen, NULL), TCMMA_OK);
        bool want = expect_d_vector(ld, precs[i].eb, t, m / 16, n / 8);
        if (cen.d_vector != want) fail_msg("d %s: d_vector %d, expected %d", d, cen.d_vector, want);
        want ? vec++ : scalar++;
      }
  assert_true(vec > 0 && scalar > 0); /* both sides of the rule were seen */
  /* wmma arms store d through store_matrix_sync: no inline pairs */
  tcmma_call c = call3("f32", "f16", "f16", 16, 16, 16);
  c.numerics.prefer = TCMMA_PREFER_WMMA;
  tcmma_plan p = expect_accept(c, "wmma-f16f32");
  tcmma_census cen;
  assert_int_equal(tcmma_plan_census(&p, &cen, NULL), TCMMA_OK);
  assert_false(cen.d_vector);
}

/* ldmatrix: swizzled shared operands only; fp8 only row-major A and
 * transposed B (bytes of a register are contiguous only there). */
static void test_ldmatrix_selection(void **s) {
  (void)s;
  const char *swz = "shared,swizzled,ld=128";
  char a[64], at[64], b[64], bt[64];
  snprintf(a, sizeof a, "e4m3,%s", swz), snprintf(at, sizeof at, "e4m3,t,%s", swz);
  snprintf(b, sizeof b, "e5m2,%s", swz), snprintf(bt, sizeof bt, "e5m2,t,%s", swz);
  tcmma_plan p = expect_accept(call3("f32", a, bt, 16, 8, 32), "mma-fp8");
  assert_true(p.a_ldmatrix), assert_true(p.b_ldmatrix);
  p = expect_accept(call3("f32", at, b, 16, 8, 32), "mma-fp8");
  assert_false(p.a_ldmatrix), assert_false(p.b_ldmatrix);
  p = expect_accept(call3("f32", "f16,t,shared,swizzled,ld=64", "f16,shared,swizzled,ld=64",
                          16, 8, 16), "mma-f16");
  assert_true(p.a_ldmatrix), assert_true(p.b_ldmatrix);
  /* shared but plain: gathered */
  p = expect_accept(call3("f32", "f16,shared", "f16,shared", 16, 8, 16), "mma-f16");
  assert_false(p.a_ldmatrix), assert_false(p.b_ldmatrix);
  tcmma_census cen;
  assert_int_equal(tcmma_plan_census(&p, &cen, NULL), TCMMA_OK);
  assert_false(cen.a_ldmatrix);
}

static void test_names(void **s) {
  (void)s;
  assert_string_equal(tcmma_decline_name(TCMMA_DECLINE_CONVERTED_DEST), "converted-dest");
  assert_string_equal(tcmma_decline_name((tcmma_decline)99), "?");
  assert_string_equal(tcmma_space_name(TCMMA_SPACE_SHARED), "shared");
  assert_string_equal(tcmma_layout_name(TCMMA_LAYOUT_SWIZZLED_B128), "swizzled");
  assert_true(strlen(tcmma_decline_rule(TCMMA_DECLINE_STRIDE)) > 10);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_no_arm),       cmocka_unit_test(test_floor),
      cmocka_unit_test(test_extents),      cmocka_unit_test(test_stride),
      cmocka_unit_test(test_space_layout), cmocka_unit_test(test_converted_dest),
      cmocka_unit_test(test_overflow),     cmocka_unit_test(test_invalid),
      cmocka_unit_test(test_spec),         cmocka_unit_test(test_census),
      cmocka_unit_test(test_census_d_vector),
      cmocka_unit_test(test_ldmatrix_selection), cmocka_unit_test(test_names),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
