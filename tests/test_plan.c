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
  expect_decline(call3("f32", "f64", "f64", 16, 16, 8), TCMMA_DECLINE_NO_ARM, "f64");
  tcmma_call c = call3("f32", "f16", "f16", 16, 8, 16);
  c.arm = "mma-bf16"; /* not an arm of f32 = f16 x f16 */
  expect_decline(c, TCMMA_DECLINE_NO_ARM, "mma-bf16");
  tcmma_call mx = call3("f16", "mxe4m3", "mxe5m2", 16, 8, 32);
  mx.a.scale = "sa", mx.b.scale = "sb"; /* block scales accumulate into f32 only */
  expect_decline(mx, TCMMA_DECLINE_NO_ARM, "mxe5m2");
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
  /* swizzled rows are whole spans of the atom: 128, 64 or 32 bytes */
  expect_decline(call3("f32", "f16,shared,swizzled,ld=32", "f16", 16, 8, 16),
                 TCMMA_DECLINE_STRIDE, "128");
  expect_decline(call3("f32", "f16,shared,swizzle=64,ld=48", "f16", 16, 8, 16),
                 TCMMA_DECLINE_STRIDE, "64");
  expect_accept(call3("f32", "f16,shared,swizzle=64,ld=32", "f16", 16, 8, 16), "mma-f16");
  expect_accept(call3("f32", "f16,shared,swizzle=32,ld=48", "f16", 16, 8, 16), "mma-f16");
  /* wmma (PTX ISA): ldm*eb a multiple of 16 bytes: 24 halves = 48 bytes is
   * fine, 20 halves = 40 bytes is not */
  tcmma_call c = call3("f32", "f16,ld=24", "f16", 16, 16, 16);
  c.numerics.prefer = TCMMA_PREFER_WMMA;
  expect_accept(c, "wmma-f16f32");
  c = call3("f32", "f16,ld=20", "f16", 16, 16, 16);
  c.numerics.prefer = TCMMA_PREFER_WMMA;
  expect_decline(c, TCMMA_DECLINE_STRIDE, "ld = 20");
  c = call3("f32", "f16", "f16", 16, 16, 16);
  c.a.ld = 24, c.a.transposed = true, c.arm = "wmma-f16f32";
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
   * statement list (mma-f16, mma-f16-k8) is final, so floor, naming the
   * scope that runs */
  c.arm = NULL;
  c.scope = TCMMA_SCOPE_STATEMENT;
  c.cc = 70;
  expect_decline(c, TCMMA_DECLINE_FLOOR, "fragment scope would run it on wmma-f16-wide");
  /* naming an arm never lifts a numerics rule */
  c.arm = "wmma-f16";
  c.cc = 0;
  expect_decline(c, TCMMA_DECLINE_NO_ARM, "numerics policy");
  c.scope = TCMMA_SCOPE_FRAGMENT;
  /* resolution picks it on a device below the inline arms' floors; on a
   * Turing device the m16n8k8 arm comes first */
  c.arm = NULL;
  c.cc = 70;
  expect_accept(c, "wmma-f16-wide");
  c.cc = 75;
  expect_accept(c, "mma-f16-k8");
}

static void test_overflow(void **s) {
  (void)s;
  expect_decline(call3("f32", "f16,ld=1073741824", "f16", 16, 8, 16), TCMMA_DECLINE_OVERFLOW,
                 "1073741824");
  /* a shared operand's ld whose bytes overflow a long (found by fuzz_plan:
   * the ldmatrix rule multiplied it before the stride rules ran) */
  tcmma_call huge = call3("f32", "f16", "f16", 16, 8, 16);
  huge.a.space = TCMMA_SPACE_SHARED;
  huge.a.ld = LONG_MAX;
  expect_decline(huge, TCMMA_DECLINE_OVERFLOW, "9223372036854775807");
  /* 2^26 tiles of 16 rows of 8 f32: 2^35 bytes of d */
  expect_decline(call3("f32", "f16", "f16", 16 << 26, 8, 16), TCMMA_DECLINE_OVERFLOW, NULL);
  /* every operand fits (23168^2 f16 is 1 GiB) but one statement would hold
   * 1448 x 2896 x 1448 = 6072054784 products: the register and unroll
   * budgets decline it long before the census could count past an int */
  tcmma_plan p;
  tcmma_call c = call3("f32", "f16", "f16", 23168, 23168, 23168);
  assert_int_equal(tcmma_plan_call(&c, &p, NULL), TCMMA_DECLINED);
  assert_int_equal(p.reason, TCMMA_DECLINE_REGISTERS);
  c.registers = TCMMA_REGISTERS_MAX;
  c.m = 16, c.n = 8; /* one accumulator tile: the k extent alone is too long */
  assert_int_equal(tcmma_plan_call(&c, &p, NULL), TCMMA_DECLINED);
  assert_int_equal(p.reason, TCMMA_DECLINE_UNROLL);
  assert_non_null(strstr(p.message, "1448"));
  /* the largest statement a plan accepts: its census is exact */
  c.k = 16 * TCMMA_PRODUCTS_MAX;
  p = expect_accept(c, "mma-f16");
  tcmma_census cen;
  assert_int_equal(tcmma_plan_census(&p, &cen, NULL), TCMMA_OK);
  assert_int_equal(cen.mma_per_statement, TCMMA_PRODUCTS_MAX);
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
    tcmma_names nm = {NULL, 0};
    assert_int_equal(tcmma_render_statement(RCTX(&p, (tcmma_dialect)dl, &nm, &out), "d", "a", "b",
                                            &err),
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
  assert_int_equal(o.swizzle, TCMMA_SWIZZLE_B128);
  assert_int_equal(cli_parse_operand_spec("bf16,shared,swizzle=32,at=16:24", &o, &err), TCMMA_OK);
  assert_int_equal(o.swizzle, TCMMA_SWIZZLE_B32);
  assert_int_equal(o.row0.value, 16), assert_int_equal(o.col0.value, 24);
  assert_null(o.row0.expr), assert_null(o.col0.expr);
  assert_int_equal(cli_parse_operand_spec("e4m3", &o, &err), TCMMA_OK);
  assert_int_equal(o.swizzle, TCMMA_SWIZZLE_NONE);
  assert_int_equal(o.row0.value, 0);
  assert_false(o.transposed);
  assert_int_equal(o.ld, 0);
  assert_int_equal(o.space, TCMMA_SPACE_GLOBAL);
  const char *bad[] = {"", "f17", "f16,x", "f16,ld=", "f16,ld=0", "f16,ld=-3", "f16,ld=4x",
                       ",f16", "f16,,t", "f16,",
                       /* a kind of piece twice: never a silent last-one-wins */
                       "f16,t,t", "f16,shared,global", "f16,plain,swizzled", "f16,ld=8,ld=16",
                       "f16,swizzled,swizzle=64", "f16,at=1:1,at=2:2",
                       /* swizzle atoms and origins */
                       "f16,swizzle=48", "f16,swizzle=", "f16,swizzle=none", "f16,at=1",
                       "f16,at=-1:0", "f16,at=1:2:3", "f16,at=:4", "f16,at=1:x",
                       "f16,at=2147483648:0", "f16,at=0:02", NULL};
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
  c.numerics.prefer = TCMMA_PREFER_WMMA;
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
  /* shared but plain, rows of 32 bytes: row r sits in bank group 2r mod 8,
   * rows r and r+4 collide: gathered */
  p = expect_accept(call3("f32", "f16,shared", "f16,shared,ld=16", 16, 8, 16), "mma-f16");
  assert_false(p.a_ldmatrix), assert_false(p.b_ldmatrix);
  tcmma_census cen;
  assert_int_equal(tcmma_plan_census(&p, &cen, NULL), TCMMA_OK);
  assert_false(cen.a_ldmatrix);
  /* plain rows of an odd number of 16-byte units (24 halves: 48 bytes) put
   * eight rows in eight groups: ldmatrix without a swizzle */
  p = expect_accept(call3("f32", "f16,shared,ld=24", "f16,shared,ld=24", 16, 8, 16), "mma-f16");
  assert_true(p.a_ldmatrix), assert_true(p.b_ldmatrix);
  /* swizzle 64 with rows of 128 bytes: rows r and r^1 share a mask, gathered;
   * with rows of 64 bytes (the atom's own), ldmatrix */
  p = expect_accept(call3("f32", "f16,shared,swizzle=64,ld=64", "f16,t,shared,swizzle=64,ld=32",
                          16, 8, 16), "mma-f16");
  assert_false(p.a_ldmatrix), assert_true(p.b_ldmatrix);
  /* a column origin off a 16-byte unit keeps a plain tile's rows apart but
   * not aligned for ldmatrix: gathered */
  p = expect_accept(call3("f32", "f16,shared,ld=40,at=0:2", "f16", 16, 8, 16), "mma-f16");
  assert_false(p.a_ldmatrix);
  p = expect_accept(call3("f32", "f16,shared,ld=40,at=0:8", "f16", 16, 8, 16), "mma-f16");
  assert_true(p.a_ldmatrix);
}

/* Sub-tile origins (docs/design.md §5): swizzled tiles need rows at
 * multiples of 8 and columns at whole 16-byte units; 32-bit register loads
 * need 4-byte columns; wmma needs the sub-tile 32 bytes from the base. */
static void test_subtile(void **s) {
  (void)s;
  /* the case of the 2x4 warps: B stored n x k (k-major) in a 128 x 32 bf16
   * stage of 64-byte rows, the warp at n = 96, and the k split at 16 */
  tcmma_call c = call3("f32", "bf16,shared,swizzle=128,ld=64,at=64:0",
                       "bf16,t,shared,swizzle=64,ld=32,at=96:16", 64, 32, 16);
  tcmma_plan p = expect_accept(c, "mma-bf16");
  assert_true(p.a_ldmatrix), assert_true(p.b_ldmatrix);
  /* expressions with declared multiples */
  c.b.row0 = (tcmma_coord){0, "(threadIdx.x / 32) * 32", 32};
  c.a.col0 = (tcmma_coord){16, "blockIdx.x * 32", 32};
  expect_accept(c, "mma-bf16");
  c.b.row0.multiple = 4;
  expect_decline(c, TCMMA_DECLINE_SUBTILE, "a multiple of 4");
  c.b.row0.multiple = 0; /* 0 means 1 */
  expect_decline(c, TCMMA_DECLINE_SUBTILE, "(the row period of swizzle 64)");
  c = call3("f32", "bf16,shared,swizzle=128,ld=64,at=4:0", "bf16,t", 16, 8, 16);
  expect_decline(c, TCMMA_DECLINE_SUBTILE, "row origin 4 is not a multiple of 8");
  c = call3("f32", "bf16,shared,swizzle=128,ld=64,at=0:4", "bf16,t", 16, 8, 16);
  expect_decline(c, TCMMA_DECLINE_SUBTILE, "column origin 4 is not a multiple of 8 elements");
  c = call3("f32", "bf16,shared,swizzle=128,ld=64,at=0:8", "bf16,t", 16, 8, 16);
  expect_accept(c, "mma-bf16");
  /* a plain a whose registers load 32 bits: columns on 4 bytes (2 halves) */
  expect_decline(call3("f32", "f16,ld=40,at=0:1", "f16", 16, 8, 16), TCMMA_DECLINE_SUBTILE,
                 "not a multiple of 4");
  expect_accept(call3("f32", "f16,ld=40,at=3:2", "f16", 16, 8, 16), "mma-f16");
  /* ... a transposed one is gathered per element: any origin */
  expect_accept(call3("f32", "f16,t,ld=40,at=3:1", "f16", 16, 8, 16), "mma-f16");
  /* wmma: row 1 of 48-byte rows is 48 bytes in, not 32-byte aligned;
   * row 2 is 96 bytes in */
  c = call3("f32", "f16,ld=24,at=1:0", "f16", 16, 16, 16);
  c.numerics.prefer = TCMMA_PREFER_WMMA;
  expect_decline(c, TCMMA_DECLINE_SUBTILE, "48 bytes");
  c.a.row0.value = 2;
  expect_accept(c, "wmma-f16f32");
  c.a.col0.value = 8; /* 16 bytes more */
  expect_decline(c, TCMMA_DECLINE_SUBTILE, "112 bytes");
  /* the sub-tile must fit its parent's rows; an expression needs the ld */
  expect_decline(call3("f32", "f16,ld=24,at=0:10", "f16", 16, 8, 16), TCMMA_DECLINE_STRIDE,
                 "past the column origin");
  c = call3("f32", "f16", "f16", 16, 8, 16);
  c.a.col0 = (tcmma_coord){0, "x", 16};
  expect_decline(c, TCMMA_DECLINE_SUBTILE, "needs the parent's ld");
  /* malformed origins are errors */
  tcmma_error err = {0};
  c.a.col0 = (tcmma_coord){-2, NULL, 0};
  assert_int_equal(tcmma_plan_call(&c, &p, &err), TCMMA_INVALID);
  assert_non_null(strstr(err.message, "-2"));
  c.a.col0 = (tcmma_coord){0, "", 1};
  assert_int_equal(tcmma_plan_call(&c, &p, &err), TCMMA_INVALID);
}

/* Budgets: registers per lane (m16n8k16 bf16: 4 accumulator registers per
 * tile, 4 per A tile, 2 per B tile) and the unrolled products. */
static void test_budget(void **s) {
  (void)s;
  /* 64 x 64: 4 x 8 tiles, 128 + 16 + 16 = 160 registers */
  tcmma_plan p = expect_accept(call3("f32", "bf16", "bf16,t", 64, 64, 16), "mma-bf16");
  tcmma_census cen;
  assert_int_equal(tcmma_plan_census(&p, &cen, NULL), TCMMA_OK);
  assert_int_equal(cen.registers, 160);
  tcmma_call c = call3("f32", "bf16", "bf16,t", 64, 64, 16);
  c.registers = 159;
  expect_decline(c, TCMMA_DECLINE_REGISTERS, "160 registers");
  /* 128 x 64 by default: 256 + 32 + 16 */
  expect_decline(call3("f32", "bf16", "bf16,t", 128, 64, 16), TCMMA_DECLINE_REGISTERS, "304");
  /* the 8192^3 in one call */
  expect_decline(call3("f32", "bf16", "bf16,t", 8192, 8192, 8192), TCMMA_DECLINE_REGISTERS,
                 NULL);
  /* a long k: 1 x 1 x 1024 tiles is the bound, 1025 is past it */
  expect_accept(call3("f32", "bf16", "bf16,t", 16, 8, 16 * 1024), "mma-bf16");
  expect_decline(call3("f32", "bf16", "bf16,t", 16, 8, 16 * 1025), TCMMA_DECLINE_UNROLL, "1025");
  /* wmma m16n16k16 f32: 8 accumulator registers per tile, 4 per A and B */
  c = call3("f32", "f16", "f16", 32, 32, 16);
  c.numerics.prefer = TCMMA_PREFER_WMMA;
  p = expect_accept(c, "wmma-f16f32");
  assert_int_equal(tcmma_plan_census(&p, &cen, NULL), TCMMA_OK);
  assert_int_equal(cen.registers, 4 * 8 + 2 * 4 + 2 * 4);
  tcmma_error err = {0};
  c.registers = 256;
  assert_int_equal(tcmma_plan_call(&c, &p, &err), TCMMA_INVALID);
  assert_non_null(strstr(err.message, "256"));
  assert_int_equal(tcmma_tile_registers(TCMMA_ARM_MMA_FP8, TCMMA_OPERAND_A, TCMMA_PREC_E4M3), 4);
  /* a block-scaled tile holds its scale register too */
  assert_int_equal(tcmma_tile_registers(TCMMA_ARM_MMA_MXFP8, TCMMA_OPERAND_A, TCMMA_PREC_MXE4M3), 5);
  assert_int_equal(tcmma_tile_registers(TCMMA_ARM_MMA_MXFP8, TCMMA_OPERAND_B, TCMMA_PREC_MXE5M2), 3);
  assert_int_equal(tcmma_tile_registers(TCMMA_ARM_MMA_MXFP8, TCMMA_OPERAND_C, TCMMA_PREC_F32), 4);
  assert_int_equal(tcmma_tile_registers(TCMMA_ARM_NONE, TCMMA_OPERAND_A, TCMMA_PREC_E4M3), 0);
}

static void test_init(void **s) {
  (void)s;
  tcmma_plan p;
  tcmma_error err = {0};
  tcmma_call c = call3("f32", "f16", "f16", 16, 8, 16);
  c.init = TCMMA_INIT_SCALE;
  assert_int_equal(tcmma_plan_call(&c, &p, &err), TCMMA_INVALID);
  assert_non_null(strstr(err.message, "alpha"));
  c.alpha = "2.0f", c.beta = "-1.0f";
  expect_accept(c, "mma-f16");
  c.init = (tcmma_init)7;
  assert_int_equal(tcmma_plan_call(&c, &p, &err), TCMMA_INVALID);
  tcmma_init i;
  assert_int_equal(tcmma_init_parse("zero", &i, NULL), TCMMA_OK);
  assert_int_equal(i, TCMMA_INIT_ZERO);
  assert_int_equal(tcmma_init_parse("scaled", &i, &err), TCMMA_INVALID);
  assert_non_null(strstr(err.message, "'scaled'"));
  assert_string_equal(tcmma_init_name(TCMMA_INIT_SCALE), "scale");
  assert_string_equal(tcmma_init_name((tcmma_init)9), "?");
}

static void test_names(void **s) {
  (void)s;
  assert_string_equal(tcmma_decline_name(TCMMA_DECLINE_CONVERTED_DEST), "converted-dest");
  assert_string_equal(tcmma_decline_name((tcmma_decline)99), "?");
  assert_string_equal(tcmma_space_name(TCMMA_SPACE_SHARED), "shared");
  assert_string_equal(tcmma_swizzle_name(TCMMA_SWIZZLE_B64), "64");
  assert_string_equal(tcmma_swizzle_name((tcmma_swizzle)9), "?");
  assert_string_equal(tcmma_decline_name(TCMMA_DECLINE_SUBTILE), "subtile");
  assert_string_equal(tcmma_decline_name(TCMMA_DECLINE_REGISTERS), "registers");
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
      cmocka_unit_test(test_ldmatrix_selection), cmocka_unit_test(test_subtile),
      cmocka_unit_test(test_budget),       cmocka_unit_test(test_init),
      cmocka_unit_test(test_names),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
