/* The sim executor's comparison (tools/verify/sim_run.c over the shared
 * data of tools/verify/data.c), independent of the emitter: hand-written
 * "kernels" run on the simulated warp. A correct scalar kernel passes both
 * passes; kernels that drop d, are one ulp off, write d's row padding, write
 * past d, write into b or diverge fail with a reason saying so. */
#include "util.h"
#include <math.h>
#include <stdio.h>
#include <string.h>
#include "tools/verify/verify.h"
#include "tools/verify/data.h"
#include "tools/verify/sim.h"

/* The case under test, visible to the kernels below. */
static const tcmma_plan *cur_plan;
static int cur_outer;
static enum {
  K_OK, K_NO_D0, K_ULP, K_PADDING, K_DIVERGE, K_PAST_END, K_INTO_B, K_NO_SCALES, K_INTO_SB
} cur_kind;

static double load(tcmma_prec p, const void *base, long idx) {
  return verify_storage_get(p, (const unsigned char *)base + idx * tcmma_prec_bytes(p));
}

/* The factor of a block scale byte (ue8m0: 2^(e-127)) of op's row or
 * column i at k of step r; 1 without scales (or when told to ignore them). */
static double scale(void **p, tcmma_operand op, int r, long i, long k) {
  if (!tcmma_arm_get(cur_plan->arm)->scale_block || cur_kind == K_NO_SCALES) return 1;
  const unsigned char *s = p[op == TCMMA_OPERAND_A ? 3 : 4];
  return ldexp(1.0, s[tcmma_kernel_scale_index(cur_plan, op, r, i, k / 32)] - 127);
}

/* Lane 0 computes the whole tile in double, from the kernel buffer layout
 * (tcmma_kernel_operand_index, tcmma_kernel_scale_index), and stores d at
 * its storage precision. */
static void scalar_kernel(void *args) {
  void **p = args;
  const tcmma_call *c = &cur_plan->call;
  if (cur_kind == K_DIVERGE && tcmma_sim_lane() == 3) tcmma_sim_syncwarp();
  if (tcmma_sim_lane() != 0) return;
  if (cur_kind == K_PAST_END) /* the first byte after d */
    ((unsigned char *)p[0])[tcmma_kernel_operand_elems(cur_plan, cur_outer, TCMMA_OPERAND_C) *
                            tcmma_prec_bytes(c->d.prec)] = 0;
  if (cur_kind == K_INTO_B) ((unsigned char *)p[2])[0] ^= 1;
  if (cur_kind == K_INTO_SB) ((unsigned char *)p[4])[0] ^= 1;
  for (long i = 0; i < c->m; i++)
    for (long j = 0; j < c->n; j++) {
      long di = tcmma_kernel_operand_index(cur_plan, TCMMA_OPERAND_C, 0, i, j);
      double sum = cur_kind == K_NO_D0 ? 0 : load(c->d.prec, p[0], di);
      for (int r = 0; r < cur_outer; r++)
        for (long k = 0; k < c->k; k++)
          sum += load(c->a.prec, p[1], tcmma_kernel_operand_index(cur_plan, TCMMA_OPERAND_A, r, i, k)) *
                 load(c->b.prec, p[2], tcmma_kernel_operand_index(cur_plan, TCMMA_OPERAND_B, r, k, j)) *
                 scale(p, TCMMA_OPERAND_A, r, i, k) * scale(p, TCMMA_OPERAND_B, r, j, k);
      unsigned char *at = (unsigned char *)p[0] + di * tcmma_prec_bytes(c->d.prec);
      verify_storage_put(c->d.prec, at, sum);
      if (cur_kind == K_ULP && i == 3 && j == 5) at[0] ^= 1;
      if (cur_kind == K_PADDING && i == 0 && j == 0)
        verify_storage_put(c->d.prec, at + (size_t)c->n * (size_t)tcmma_prec_bytes(c->d.prec), 0);
    }
}

static verify_case make_case(tcmma_prec d, tcmma_prec ab, long d_ld, int outer) {
  verify_case c;
  memset(&c, 0, sizeof c);
  snprintf(c.name, sizeof c.name, "hand/%s=%s.%s/ld%ld/outer%d", tcmma_prec_name(d),
           tcmma_prec_name(ab), tcmma_prec_name(ab), d_ld, outer);
  c.call = tcmma_call_default();
  c.call.m = 32, c.call.n = 16, c.call.k = 32;
  c.call.d.prec = d, c.call.a.prec = c.call.b.prec = ab;
  c.call.d.ld = d_ld;
  c.call.scope = TCMMA_SCOPE_FRAGMENT;
  c.outer = outer;
  return c;
}

static verify_case_result run(const verify_case *c, int kind) {
  tcmma_plan plan;
  tcmma_error err;
  if (tcmma_plan_call(&c->call, &plan, &err) != TCMMA_OK) fail_msg("%s: %s", c->name, err.message);
  cur_plan = &plan, cur_outer = c->outer, cur_kind = kind;
  verify_case_result r;
  memset(&r, 0, sizeof r);
  sim_run_case(c, &plan, scalar_kernel, &r);
  return r;
}

static void correct_kernel_passes(void **state) {
  (void)state;
  static const tcmma_prec combos[][2] = {
      {TCMMA_PREC_F32, TCMMA_PREC_BF16}, {TCMMA_PREC_BF16, TCMMA_PREC_BF16},
      {TCMMA_PREC_F16, TCMMA_PREC_F16},  {TCMMA_PREC_F32, TCMMA_PREC_E4M3},
      {TCMMA_PREC_BF16, TCMMA_PREC_E5M2}};
  for (size_t i = 0; i < sizeof combos / sizeof *combos; i++) {
    verify_case c = make_case(combos[i][0], combos[i][1], 0, 3);
    verify_case_result r = run(&c, K_OK);
    if (r.outcome != VERIFY_CASE_PASSED) fail_msg("%s: %s", c.name, r.reason);
  }
}

static void broken_kernels_fail(void **state) {
  (void)state;
  verify_case c = make_case(TCMMA_PREC_F32, TCMMA_PREC_BF16, 0, 1);
  verify_case_result r = run(&c, K_NO_D0);
  assert_int_equal(r.outcome, VERIFY_CASE_FAILED);
  assert_non_null(strstr(r.reason, "integer pass"));
  r = run(&c, K_ULP);
  assert_int_equal(r.outcome, VERIFY_CASE_FAILED);
  assert_non_null(strstr(r.reason, "d[3][5]"));
  assert_non_null(strstr(r.reason, "bit for bit"));
  r = run(&c, K_DIVERGE);
  assert_int_equal(r.outcome, VERIFY_CASE_FAILED);
  assert_non_null(strstr(r.reason, "divergence"));
  r = run(&c, K_PAST_END);
  assert_int_equal(r.outcome, VERIFY_CASE_FAILED);
  assert_non_null(strstr(r.reason, "past the end"));
  r = run(&c, K_INTO_B);
  assert_int_equal(r.outcome, VERIFY_CASE_FAILED);
  assert_non_null(strstr(r.reason, "modified an input (b)"));
}

/* Block scales: two more buffers; a kernel that ignores them, or writes
 * into one, fails. */
static void block_scales_count(void **state) {
  (void)state;
  verify_case c = make_case(TCMMA_PREC_F32, TCMMA_PREC_MXE4M3, 0, 2);
  c.call.b.prec = TCMMA_PREC_MXE5M2, c.call.b.transposed = true;
  c.call.a.scale = "sa", c.call.b.scale = "sb", c.call.cc = 120;
  verify_case_result r = run(&c, K_OK);
  if (r.outcome != VERIFY_CASE_PASSED) fail_msg("%s: %s", c.name, r.reason);
  r = run(&c, K_NO_SCALES);
  assert_int_equal(r.outcome, VERIFY_CASE_FAILED);
  assert_non_null(strstr(r.reason, "integer pass: d["));
  r = run(&c, K_INTO_SB);
  assert_int_equal(r.outcome, VERIFY_CASE_FAILED);
  assert_non_null(strstr(r.reason, "modified an input (sb)"));
}

static void padding_write_fails(void **state) {
  (void)state;
  verify_case c = make_case(TCMMA_PREC_F32, TCMMA_PREC_BF16, 24, 1); /* rows padded 16 -> 24 */
  verify_case_result r = run(&c, K_OK);
  if (r.outcome != VERIFY_CASE_PASSED) fail_msg("%s: %s", c.name, r.reason);
  r = run(&c, K_PADDING);
  assert_int_equal(r.outcome, VERIFY_CASE_FAILED);
  assert_non_null(strstr(r.reason, "outside"));
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(correct_kernel_passes),
      cmocka_unit_test(broken_kernels_fail),
      cmocka_unit_test(padding_write_fails),
      cmocka_unit_test(block_scales_count),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
