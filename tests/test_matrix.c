/* The arm matrix itself (tools/verify/matrix.c): size, coverage of arms and
 * decline reasons, unique names, and that every case is well formed for its
 * expectation (tiles from the arm table, layout rules from docs/design.md §5). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "util.h"
#include "tools/verify/gemm.h"
#include "tools/verify/verify.h"

static size_t count_accepted(const verify_case *cs, size_t n) {
  size_t k = 0;
  for (size_t i = 0; i < n; i++) k += cs[i].expect == TCMMA_DECLINE_NONE;
  return k;
}

static void at_least_200_accepted(void **state) {
  (void)state;
  const verify_case *cs;
  size_t n = verify_matrix(&cs);
  assert_true(n < VERIFY_MATRIX_MAX); /* nothing was dropped */
  size_t acc = count_accepted(cs, n);
  if (acc < 200) fail_msg("only %zu accepted cases", acc);
  assert_true(n > acc);
}

static void every_arm(void **state) {
  (void)state;
  const verify_case *cs;
  size_t n = verify_matrix(&cs);
  for (int a = 0; a < TCMMA_ARM_COUNT; a++) {
    size_t k = 0;
    for (size_t i = 0; i < n; i++)
      k += cs[i].expect == TCMMA_DECLINE_NONE && cs[i].expect_arm == (tcmma_arm)a;
    if (k < 10) fail_msg("arm %s has %zu accepted cases", tcmma_arm_marker((tcmma_arm)a), k);
  }
}

/* Every arm in every scope it can render (a statement never has a converted
 * destination), with outer reductions 1 and 3, each extent and orientation. */
static void every_arm_in_every_scope(void **state) {
  (void)state;
  const verify_case *cs;
  size_t n = verify_matrix(&cs);
  for (int a = 0; a < TCMMA_ARM_COUNT; a++) {
    if (a == TCMMA_ARM_MMA_MXFP8) continue;
    const tcmma_arm_info *info = tcmma_arm_get((tcmma_arm)a);
    bool seen_stmt = false, seen_r1 = false, seen_r3 = false, seen_multi = false;
    int orient = 0;
    for (size_t i = 0; i < n; i++) {
      const verify_case *c = &cs[i];
      if (c->expect != TCMMA_DECLINE_NONE || c->expect_arm != (tcmma_arm)a) continue;
      if (c->call.scope == TCMMA_SCOPE_STATEMENT) seen_stmt = true;
      else if (c->outer == 1) seen_r1 = true;
      else if (c->outer == 3) seen_r3 = true;
      if (c->call.m > info->m && c->call.n > info->n && c->call.k > info->k) seen_multi = true;
      orient |= 1 << (c->call.a.transposed * 2 + c->call.b.transposed);
    }
    assert_true(seen_stmt != info->converted_dest);
    assert_true(seen_r1 && seen_r3 && seen_multi);
    assert_int_equal(orient, 15);
  }
}

static void every_decline_reason(void **state) {
  (void)state;
  const verify_case *cs;
  size_t n = verify_matrix(&cs);
  for (int d = 1; d < TCMMA_DECLINE_COUNT; d++) {
    size_t k = 0;
    for (size_t i = 0; i < n; i++) k += cs[i].expect == (tcmma_decline)d;
    if (k == 0) fail_msg("no case declines with %s", tcmma_decline_name((tcmma_decline)d));
  }
}

static int by_name(const void *x, const void *y) {
  return strcmp(*(const char *const *)x, *(const char *const *)y);
}

static void names_unique_and_readable(void **state) {
  (void)state;
  const verify_case *cs;
  const verify_gemm_case *gs;
  size_t n = verify_matrix(&cs), ng = verify_gemm_matrix(&gs);
  const char **names = malloc((n + ng) * sizeof *names);
  assert_non_null(names);
  /* the GEMM matrix's names too: a selection, a shard and a report key by
   * name (two GEMM cases once differed only in their cc) */
  for (size_t i = 0; i < ng; i++) names[n + i] = gs[i].name;
  for (size_t i = 0; i < n; i++) {
    names[i] = cs[i].name;
    assert_true(strlen(cs[i].name) > 10 && strlen(cs[i].name) < sizeof cs[i].name - 1);
    for (const char *p = cs[i].name; *p; p++) assert_true(*p > ' ' && *p < 127 && *p != '"');
    /* an accepted case's name starts with its arm, a declined one's with the reason */
    char head[64];
    if (cs[i].expect == TCMMA_DECLINE_NONE)
      snprintf(head, sizeof head, "%s/", tcmma_arm_marker(cs[i].expect_arm));
    else snprintf(head, sizeof head, "decline-%s/", tcmma_decline_name(cs[i].expect));
    assert_true(strncmp(cs[i].name, head, strlen(head)) == 0);
  }
  qsort(names, n + ng, sizeof *names, by_name);
  for (size_t i = 1; i < n + ng; i++)
    if (strcmp(names[i - 1], names[i]) == 0) fail_msg("duplicate case name %s", names[i]);
  free(names);
}

/* Every inline arm runs d both ways the d boundary can take: its register
 * pairs (c0,c1 at row g, columns 2q, 2q+1 in the PTX ISA) as one aligned
 * access (row-major d, even ld) and element by element (odd ld: every other
 * row's pair is misaligned; transposed d: a pair spans two stored rows). */
static void inline_d_paths_covered(void **state) {
  (void)state;
  const verify_case *cs;
  size_t n = verify_matrix(&cs);
  for (int a = 0; a < TCMMA_ARM_COUNT; a++) {
    const tcmma_arm_info *info = tcmma_arm_get((tcmma_arm)a);
    if (a == TCMMA_ARM_MMA_MXFP8 || info->form != TCMMA_FORM_PTX) continue;
    bool pairs = false, odd = false, transposed = false;
    for (size_t i = 0; i < n; i++) {
      const tcmma_call *c = &cs[i].call;
      if (cs[i].expect != TCMMA_DECLINE_NONE || cs[i].expect_arm != (tcmma_arm)a) continue;
      long ld = c->d.ld ? c->d.ld : c->d.transposed ? c->m : c->n;
      if (c->d.transposed) transposed = true;
      else if (ld % 2) odd = true;
      else pairs = true;
    }
    if (!pairs || !odd || !transposed)
      fail_msg("%s: d paired %d, odd ld %d, transposed %d", info->marker, pairs, odd,
               transposed);
  }
}

/* The length of a stored row of operand op. */
static long row_length(const verify_case *c, char op) {
  if (op == 'a') return c->call.a.transposed ? c->call.m : c->call.k;
  if (op == 'b') return c->call.b.transposed ? c->call.k : c->call.n;
  return c->call.d.transposed ? c->call.m : c->call.n;
}

/* Accepted cases obey the rules they are expected to pass: extents are
 * multiples of the arm's tile, the device meets the arm's floor, swizzled
 * operands are shared with rows whole spans of their atom, wmma operands
 * have rows a multiple of 16 bytes (ldm) and nothing swizzled, no thread
 * space. */
static void accepted_cases_are_well_formed(void **state) {
  (void)state;
  const verify_case *cs;
  size_t n = verify_matrix(&cs);
  for (size_t i = 0; i < n; i++) {
    const verify_case *c = &cs[i];
    if (c->expect != TCMMA_DECLINE_NONE) continue;
    const tcmma_arm_info *info = tcmma_arm_get(c->expect_arm);
    assert_non_null(info);
    assert_true(c->call.m > 0 && c->call.m % info->m == 0);
    assert_true(c->call.n > 0 && c->call.n % info->n == 0);
    assert_true(c->call.k > 0 && c->call.k % info->k == 0);
    assert_true(c->call.cc == 0 || c->call.cc >= info->floor);
    assert_true(c->outer >= 1);
    assert_true(c->call.scope == TCMMA_SCOPE_FRAGMENT || c->outer == 1);
    assert_true(!info->converted_dest || c->call.scope == TCMMA_SCOPE_FRAGMENT);
    const tcmma_operand_desc *ops[3] = {&c->call.a, &c->call.b, &c->call.d};
    const char names[3] = {'a', 'b', 'd'};
    for (int j = 0; j < 3; j++) {
      const tcmma_operand_desc *o = ops[j];
      long eb = tcmma_prec_bytes(o->prec), ld = o->ld ? o->ld : row_length(c, names[j]);
      assert_true(o->space != TCMMA_SPACE_THREAD);
      /* a and b in global memory are dense; d's padded rows are its own axis */
      if (o->ld && o->space == TCMMA_SPACE_GLOBAL && names[j] != 'd')
        fail_msg("%s: a global operand is dense (ld 0)", c->name);
      assert_true(ld >= row_length(c, names[j]));
      if (o->swizzle != TCMMA_SWIZZLE_NONE) {
        /* spans of 32, 64, 128 bytes (docs/design.md §5) */
        static const long span[] = {0, 32, 64, 128};
        assert_int_equal(o->space, TCMMA_SPACE_SHARED);
        assert_int_equal(ld * eb % span[o->swizzle], 0);
        assert_int_equal(info->form, TCMMA_FORM_PTX);
      }
      if (info->form == TCMMA_FORM_WMMA && !(names[j] == 'd' && info->converted_dest))
        assert_int_equal(ld * eb % 16, 0);
    }
  }
}

/* The planner agrees with every expectation: decline reasons, arms, tiling,
 * ldmatrix operands (verify_case_check_plan, shared by the executors). */
static void every_plan_agrees(void **state) {
  (void)state;
  const verify_case *cs;
  size_t n = verify_matrix(&cs), bad = 0;
  for (size_t i = 0; i < n; i++) {
    tcmma_plan plan;
    verify_case_result r;
    memset(&r, 0, sizeof r);
    bool go_on = verify_case_check_plan(&cs[i], &plan, &r);
    if (go_on != (cs[i].expect == TCMMA_DECLINE_NONE) ||
        (!go_on && r.outcome != VERIFY_CASE_PASSED)) {
      print_message("%s: %s\n", cs[i].name, r.reason);
      bad++;
    }
  }
  assert_int_equal(bad, 0);
}

/* The check can fail: every case with a wrong expectation (another arm,
 * another decline reason, accepted instead of declined) is a failure. */
static void wrong_expectations_fail(void **state) {
  (void)state;
  const verify_case *cs;
  size_t n = verify_matrix(&cs);
  for (size_t i = 0; i < n; i++) {
    verify_case c = cs[i];
    if (c.expect == TCMMA_DECLINE_NONE)
      c.expect_arm = (tcmma_arm)((c.expect_arm + 1) % TCMMA_ARM_COUNT);
    else c.expect = (tcmma_decline)(c.expect % (TCMMA_DECLINE_COUNT - 1) + 1);
    tcmma_plan plan;
    verify_case_result r;
    memset(&r, 0, sizeof r);
    assert_false(verify_case_check_plan(&c, &plan, &r));
    assert_int_equal(r.outcome, VERIFY_CASE_FAILED);
    assert_true(r.reason[0] != '\0');
    if (cs[i].expect != TCMMA_DECLINE_NONE) {
      c = cs[i];
      c.expect = TCMMA_DECLINE_NONE; /* a decline where acceptance is expected */
      memset(&r, 0, sizeof r);
      assert_false(verify_case_check_plan(&c, &plan, &r));
      assert_int_equal(r.outcome, VERIFY_CASE_FAILED);
    }
  }
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(at_least_200_accepted),
      cmocka_unit_test(every_arm),
      cmocka_unit_test(every_arm_in_every_scope),
      cmocka_unit_test(every_decline_reason),
      cmocka_unit_test(names_unique_and_readable),
      cmocka_unit_test(accepted_cases_are_well_formed),
      cmocka_unit_test(inline_d_paths_covered),
      cmocka_unit_test(every_plan_agrees),
      cmocka_unit_test(wrong_expectations_fail),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
