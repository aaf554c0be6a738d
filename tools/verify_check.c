/* The plan check every executor starts with (tools/verify.h). */
#include <stdarg.h>
#include <stdio.h>
#include <string.h>
#include "tools/verify.h"

static bool check_fail(tcmma_case_result *r, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

static bool check_fail(tcmma_case_result *r, const char *fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  r->outcome = TCMMA_CASE_FAILED;
  vsnprintf(r->reason, sizeof r->reason, fmt, ap);
  va_end(ap);
  return false;
}

bool tcmma_case_check_plan(const tcmma_case *c, tcmma_plan *plan, tcmma_case_result *r) {
  tcmma_error err;
  tcmma_error_clear(&err);
  memset(plan, 0, sizeof *plan);
  tcmma_status st = tcmma_plan_call(&c->call, plan, &err);
  if (c->expect != TCMMA_DECLINE_NONE) {
    if (st == TCMMA_OK && plan->accepted)
      return check_fail(r, "expected decline %s, but the plan accepted it on %s",
                  tcmma_decline_name(c->expect), tcmma_arm_marker(plan->arm));
    if (st != TCMMA_DECLINED)
      return check_fail(r, "expected decline %s, got status %s: %s", tcmma_decline_name(c->expect),
                  tcmma_status_name(st), err.message);
    if (plan->accepted || plan->reason != c->expect)
      return check_fail(r, "expected decline %s, got %s: %s", tcmma_decline_name(c->expect),
                  tcmma_decline_name(plan->reason), plan->message);
    if (!plan->message[0]) return check_fail(r, "declined %s without a message",
                                       tcmma_decline_name(c->expect));
    r->outcome = TCMMA_CASE_PASSED;
    snprintf(r->reason, sizeof r->reason, "declined %s as expected",
             tcmma_decline_name(c->expect));
    return false;
  }
  if (st != TCMMA_OK || !plan->accepted)
    return check_fail(r, "expected %s, but the plan declined (%s, status %s): %s",
                tcmma_arm_marker(c->expect_arm), tcmma_decline_name(plan->reason),
                tcmma_status_name(st), plan->message[0] ? plan->message : err.message);
  if (plan->arm != c->expect_arm)
    return check_fail(r, "expected arm %s, the plan chose %s", tcmma_arm_marker(c->expect_arm),
                tcmma_arm_marker(plan->arm));
  const tcmma_arm_info *info = tcmma_arm_get(plan->arm);
  if (plan->mt * info->m != c->call.m || plan->nt * info->n != c->call.n ||
      plan->kt * info->k != c->call.k)
    return check_fail(r, "tiling %dx%dx%d of %dx%dx%d tiles does not cover %dx%dx%d", plan->mt,
                plan->nt, plan->kt, info->m, info->n, info->k, c->call.m, c->call.n, c->call.k);
  bool a, b;
  tcmma_case_expect_ldmatrix(c, &a, &b);
  if (plan->a_ldmatrix != a || plan->b_ldmatrix != b)
    return check_fail(r, "ldmatrix a=%d b=%d, expected a=%d b=%d", plan->a_ldmatrix,
                plan->b_ldmatrix, a, b);
  return true;
}
