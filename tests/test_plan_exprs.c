/* A caller's C expressions (lane, warp, alpha, beta, origins, scales) are
 * text the renderers splice: empty or all-blank ones are refused by the plan
 * with a message naming the field, never rendered as "(int)(   )". */
#include <stdio.h>
#include <string.h>
#include "util.h"
#include "tcmma/tcmma.h"
#include "tools/cli_parse.h"

static tcmma_call base_call(void) {
  tcmma_call c = tcmma_call_default();
  tcmma_error err;
  assert_int_equal(cli_parse_operand_spec("f32", &c.d, &err), TCMMA_OK);
  assert_int_equal(cli_parse_operand_spec("bf16", &c.a, &err), TCMMA_OK);
  assert_int_equal(cli_parse_operand_spec("bf16", &c.b, &err), TCMMA_OK);
  c.m = 16, c.n = 8, c.k = 16;
  return c;
}

static void refused(const tcmma_call *c, const char *field) {
  tcmma_plan p;
  tcmma_error err;
  assert_int_equal(tcmma_plan_call(c, &p, &err), TCMMA_INVALID);
  if (!strstr(err.message, field)) fail_msg("'%s' not named: %s", field, err.message);
}

static void blank_expressions_are_refused(void **state) {
  (void)state;
  tcmma_call ok = base_call();
  tcmma_plan p;
  tcmma_error err;
  assert_int_equal(tcmma_plan_call(&ok, &p, &err), TCMMA_OK);
  static const char *const blanks[] = {"", " ", "   ", "\t\n"};
  for (size_t i = 0; i < sizeof blanks / sizeof blanks[0]; i++) {
    tcmma_call c = base_call();
    c.lane = blanks[i];
    refused(&c, "lane");
    c = base_call(), c.warps = 2, c.warp = blanks[i];
    refused(&c, "warp");
    c = base_call(), c.init = TCMMA_INIT_SCALE, c.alpha = blanks[i], c.beta = "1.0f";
    refused(&c, "alpha");
    c = base_call(), c.init = TCMMA_INIT_SCALE, c.alpha = "2.0f", c.beta = blanks[i];
    refused(&c, "beta");
    c = base_call(), c.a.row0.expr = blanks[i];
    refused(&c, "row origin");
    c = base_call(), c.b.col0.expr = blanks[i];
    refused(&c, "column origin");
  }
  /* a real expression with blanks around it is fine */
  tcmma_call c = base_call();
  c.lane = "  threadIdx.x % 32 ";
  assert_int_equal(tcmma_plan_call(&c, &p, &err), TCMMA_OK);
}

int main(void) {
  const struct CMUnitTest tests[] = {cmocka_unit_test(blank_expressions_are_refused)};
  return cmocka_run_group_tests(tests, NULL, NULL);
}
