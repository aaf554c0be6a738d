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

tcmma_gemm_call test_gemm_kmajor(int m, int n, int k, int cc) {
  tcmma_gemm_call c = tcmma_gemm_call_default();
  c.m = m, c.n = n, c.k = k, c.cc = cc;
  c.d.prec = TCMMA_PREC_F32, c.a.prec = TCMMA_PREC_BF16, c.b.prec = TCMMA_PREC_BF16;
  c.b.transposed = true;
  return c;
}

tcmma_gemm_kernel test_gemm_kind(const tcmma_gemm_call *c, const tcmma_gemm_opts *o) {
  tcmma_gemm_plan p;
  tcmma_gemm_info i = {.size = sizeof i};
  tcmma_error err = {0};
  tcmma_status st = tcmma_gemm_plan_opts(c, o, &p, &i, &err);
  if (st != TCMMA_OK && st != TCMMA_DECLINED) fail_msg("%s", err.message);
  return i.kernel; /* the kind planned, accepted or not */
}

void test_gemm_render(const tcmma_gemm_plan *p, const tcmma_gemm_opts *o, tcmma_dialect dl,
                      tcmma_buf *out) {
  tcmma_error err = {0};
  if (tcmma_render_gemm_opts(RCTX(NULL, dl, NULL, out), p, o, &err) != TCMMA_OK)
    fail_msg("render: %s", err.message);
}
