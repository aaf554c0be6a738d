/* Planning a call from operand SPECs, for the tests (tests/util.h). */
#include "util.h"
#include <string.h>
#include "tools/cli_parse.h"

tcmma_plan test_plan(const char *d, const char *a, const char *b, int m, int n, int k,
                     tcmma_scope scope, const char *arm) {
  tcmma_call c = tcmma_call_default();
  assert_int_equal(cli_parse_operand_spec(d, &c.d, NULL), TCMMA_OK);
  assert_int_equal(cli_parse_operand_spec(a, &c.a, NULL), TCMMA_OK);
  assert_int_equal(cli_parse_operand_spec(b, &c.b, NULL), TCMMA_OK);
  c.m = m, c.n = n, c.k = k, c.scope = scope, c.arm = arm;
  if (arm && strcmp(arm, "wmma-tf32") == 0) c.numerics.tf32 = true;
  tcmma_arm id;
  /* an arm accumulating in f16 is on the narrow policy's list only */
  if (arm && tcmma_arm_parse(arm, &id, NULL) == TCMMA_OK &&
      tcmma_arm_get(id)->acc == TCMMA_PREC_F16)
    c.numerics.fp16 = TCMMA_FP16_NARROW;
  tcmma_plan p;
  tcmma_error err = {0};
  if (tcmma_plan_call(&c, &p, &err) != TCMMA_OK) fail_msg("plan: %s", err.message);
  return p;
}
