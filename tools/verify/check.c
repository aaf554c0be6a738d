/* The plan check every executor starts with, and the one way every executor
 * sets a case's outcome (tools/verify/verify.h). */
#include <stdarg.h>
#include <stdio.h>
#include <string.h>
#include "tools/verify/verify.h"

bool verify_case_set(verify_case_result *r, verify_case_outcome outcome, const char *fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  r->outcome = outcome;
  vsnprintf(r->reason, sizeof r->reason, fmt, ap);
  va_end(ap);
  return outcome == VERIFY_CASE_PASSED;
}

tcmma_kernel_opts verify_case_kernel_opts(const verify_case *c) {
  tcmma_kernel_opts o = TCMMA_KERNEL_OPTS_INIT(c->outer, c->pieces, c->indexed);
  return o;
}

bool verify_case_check_plan(const verify_case *c, tcmma_plan *plan, verify_case_result *r) {
  tcmma_error err;
  tcmma_error_clear(&err);
  memset(plan, 0, sizeof *plan);
  tcmma_status st = tcmma_plan_call(&c->call, plan, &err);
  verify_case_outcome failed = VERIFY_CASE_FAILED;
  if (c->expect != TCMMA_DECLINE_NONE) {
    const char *want = tcmma_decline_name(c->expect);
    if (st == TCMMA_OK && plan->accepted)
      return verify_case_set(r, failed, "expected decline %s, but the plan accepted it on %s", want,
                             tcmma_arm_marker(plan->arm));
    if (st != TCMMA_DECLINED)
      return verify_case_set(r, failed, "expected decline %s, got status %s: %s", want,
                             tcmma_status_name(st), err.message);
    if (plan->accepted || plan->reason != c->expect)
      return verify_case_set(r, failed, "expected decline %s, got %s: %s", want,
                             tcmma_decline_name(plan->reason), plan->message);
    if (!plan->message[0]) return verify_case_set(r, failed, "declined %s without a message", want);
    verify_case_set(r, VERIFY_CASE_PASSED, "declined %s as expected", want);
    return false;
  }
  if (st != TCMMA_OK || !plan->accepted)
    return verify_case_set(r, failed, "expected %s, but the plan declined (%s, status %s): %s",
                           tcmma_arm_marker(c->expect_arm), tcmma_decline_name(plan->reason),
                           tcmma_status_name(st), plan->message[0] ? plan->message : err.message);
  if (plan->arm != c->expect_arm)
    return verify_case_set(r, failed, "expected arm %s, the plan chose %s",
                           tcmma_arm_marker(c->expect_arm), tcmma_arm_marker(plan->arm));
  const tcmma_arm_info *info = tcmma_arm_get(plan->arm);
  if (plan->mt * info->m != c->call.m || plan->nt * info->n != c->call.n ||
      plan->kt * info->k != c->call.k)
    return verify_case_set(r, failed, "tiling %dx%dx%d of %dx%dx%d tiles does not cover %dx%dx%d",
                           plan->mt, plan->nt, plan->kt, info->m, info->n, info->k, c->call.m,
                           c->call.n, c->call.k);
  bool a, b;
  verify_case_expect_ldmatrix(c, &a, &b);
  if (plan->a_ldmatrix != a || plan->b_ldmatrix != b)
    return verify_case_set(r, failed, "ldmatrix a=%d b=%d, expected a=%d b=%d", plan->a_ldmatrix,
                           plan->b_ldmatrix, a, b);
  return true;
}
