/* The emitter's kernels through tcmma's own NVRTC API: a CUBIN at the arm's
 * floor target with no warnings, rejection by ptxas at the supported arch
 * just below an inline arm's floor, and a PTX census of exactly mt*nt*kt
 * mma per statement and ldmatrix exactly when the census says. Tiles are
 * the PTX ISA shapes, written here. Skipped (never passed) without NVRTC. */
#include "util.h"
#include <stdio.h>
#include <string.h>
#include "tcmma/tcmma.h"
#include "tools/cli_parse.h"
#include "tcmma/compile.h"
#include "tcmma/ptx.h"

typedef struct {
  const char *arm, *d, *a, *b;
  int m, n, k;
  int tm, tn, tk; /* PTX ISA shape of the arm */
  tcmma_scope scope;
  int outer;
  const char *mma_prefix; /* the PTX opcode the census counts */
} emit_case;

static const emit_case cases[] = {
    {"mma-f16", "f32", "f16", "f16", 32, 16, 32, 16, 8, 16, TCMMA_SCOPE_STATEMENT, 1,
     "mma.sync.aligned.m16n8k16.row.col.f32.f16.f16.f32"},
    {"mma-f16", "f16", "f16,t,shared,swizzled,ld=64", "f16,shared,swizzled,ld=64", 32, 16, 32,
     16, 8, 16, TCMMA_SCOPE_FRAGMENT, 1, "mma.sync.aligned.m16n8k16.row.col.f32.f16.f16.f32"},
    {"mma-bf16", "bf16,shared", "bf16,shared,swizzled,ld=64", "bf16,t,shared,swizzled,ld=64",
     16, 16, 32, 16, 8, 16, TCMMA_SCOPE_STATEMENT, 1,
     "mma.sync.aligned.m16n8k16.row.col.f32.bf16.bf16.f32"},
    {"mma-bf16", "f32,t", "bf16,t", "bf16", 16, 8, 16, 16, 8, 16, TCMMA_SCOPE_FRAGMENT, 3,
     "mma.sync.aligned.m16n8k16.row.col.f32.bf16.bf16.f32"},
    {"mma-fp8", "f32", "e4m3,shared,swizzled,ld=128", "e5m2,t,shared,swizzled,ld=128", 32, 16,
     64, 16, 8, 32, TCMMA_SCOPE_STATEMENT, 1, "mma.sync.aligned.m16n8k32.row.col.f32.e4m3.e5m2.f32"},
    {"mma-fp8", "bf16", "e5m2,t,shared,swizzled,ld=128", "e4m3", 16, 8, 32, 16, 8, 32,
     TCMMA_SCOPE_FRAGMENT, 1, "mma.sync.aligned.m16n8k32.row.col.f32.e5m2.e4m3.f32"},
    {"wmma-f16", "f16", "f16", "f16,t", 32, 16, 32, 16, 16, 16, TCMMA_SCOPE_STATEMENT, 1,
     "wmma.mma"},
    {"wmma-f16f32", "f32,t", "f16,t,shared", "f16", 16, 32, 16, 16, 16, 16,
     TCMMA_SCOPE_FRAGMENT, 1, "wmma.mma"},
    {"wmma-f16-wide", "f16,shared", "f16", "f16,t", 32, 16, 16, 16, 16, 16,
     TCMMA_SCOPE_FRAGMENT, 1, "wmma.mma"},
    {"wmma-bf16", "f32", "bf16", "bf16,t,shared", 16, 16, 32, 16, 16, 16,
     TCMMA_SCOPE_STATEMENT, 1, "wmma.mma"},
    {"wmma-tf32", "f32,shared", "f32,t", "f32", 16, 32, 16, 16, 16, 8, TCMMA_SCOPE_FRAGMENT, 2,
     "wmma.mma"},
};

static tcmma_plan plan_of(const emit_case *c) {
  tcmma_call call = tcmma_call_default();
  assert_int_equal(cli_parse_operand_spec(c->d, &call.d, NULL), TCMMA_OK);
  assert_int_equal(cli_parse_operand_spec(c->a, &call.a, NULL), TCMMA_OK);
  assert_int_equal(cli_parse_operand_spec(c->b, &call.b, NULL), TCMMA_OK);
  call.m = c->m, call.n = c->n, call.k = c->k, call.scope = c->scope, call.arm = c->arm;
  call.numerics.tf32 = true;
  if (strcmp(c->arm, "wmma-f16") == 0) call.numerics.fp16 = TCMMA_FP16_NARROW;
  tcmma_plan p;
  tcmma_error err = {0};
  if (tcmma_plan_call(&call, &p, &err) != TCMMA_OK) fail_msg("%s: %s", c->arm, err.message);
  return p;
}

static bool have_nvrtc(void) {
  tcmma_error err = {0};
  return tcmma_nvrtc_load(NULL, &err) == TCMMA_OK;
}

static void check_case(void **state) {
  const emit_case *c = *state;
  if (!have_nvrtc()) skip();
  tcmma_plan p = plan_of(c);
  tcmma_buf src = {0};
  tcmma_error err = {0};
  tcmma_kernel_opts ko = TCMMA_KERNEL_OPTS_INIT(c->outer, false);
  if (tcmma_render_kernel(RCTX(&p, TCMMA_DIALECT_CUDA, NULL, &src), &ko, &err) != TCMMA_OK)
    fail_msg("%s: render: %s", c->arm, err.message);
  const tcmma_arm_info *info = tcmma_arm_get(p.arm);
  tcmma_compile_opts o = TCMMA_COMPILE_OPTS_INIT(.sass = true, .target = TCMMA_TARGET_FLOOR);
  tcmma_program prog;
  if (tcmma_compile(src.data, src.len, &o, &prog, &err) != TCMMA_OK)
    fail_msg("%s: compile: %s\n%s\n%s", c->arm, err.message, prog.log ? prog.log : "", src.data);
  assert_non_null(prog.cubin);
  if (strstr(prog.log, "warning")) fail_msg("%s: warnings:\n%s", c->arm, prog.log);
  /* sm_<floor>, raised to NVRTC 13's lowest arch (75) for the floor-70 arms */
  char want[16];
  snprintf(want, sizeof want, "sm_%d", info->floor < 75 ? 75 : info->floor);
  assert_string_equal(prog.target_arch, want);

  tcmma_ptx_info pi;
  assert_int_equal(tcmma_ptx_parse(prog.ptx, prog.ptx_len, &pi, &err), TCMMA_OK);
  size_t statements = c->scope == TCMMA_SCOPE_STATEMENT || c->outer == 1 ? 1 : 0;
  size_t tiles = (size_t)(c->m / c->tm) * (size_t)(c->n / c->tn) * (size_t)(c->k / c->tk);
  size_t mmas = tcmma_ptx_count(&pi, c->mma_prefix);
  if (statements) assert_int_equal(mmas, tiles);
  else if (mmas == 0 || mmas % tiles) fail_msg("%s: %zu mma, not a multiple of %zu", c->arm, mmas, tiles);
  tcmma_census cen;
  assert_int_equal(tcmma_plan_census(&p, &cen, NULL), TCMMA_OK);
  size_t kt = (size_t)(c->k / c->tk), x4 = tcmma_ptx_count(&pi, "ldmatrix.sync.aligned.m8n8.x4");
  size_t x2 = tcmma_ptx_count(&pi, "ldmatrix.sync.aligned.m8n8.x2");
  if (statements) {
    /* ldmatrix moves four 8x8 matrices: an A tile (4 registers) per .x4, a
     * pair of B tiles (2 registers each) per .x4, an odd B tile per .x2 */
    size_t mt = (size_t)(c->m / c->tm), nt = (size_t)(c->n / c->tn);
    assert_int_equal(x4, ((cen.a_ldmatrix ? mt : 0) + (cen.b_ldmatrix ? nt / 2 : 0)) * kt);
    assert_int_equal(x2, (cen.b_ldmatrix ? nt % 2 : 0) * kt);
  }
  assert_int_equal(x4 + x2 > 0, cen.a_ldmatrix || cen.b_ldmatrix);
  assert_int_equal(tcmma_ptx_check_target(&pi, &err), TCMMA_OK);
  tcmma_ptx_info_free(&pi);
  tcmma_program_free(&prog);

  if (info->form == TCMMA_FORM_PTX) {
    /* the supported arch just below the floor must refuse the mma.sync */
    tcmma_arch_support sup;
    assert_int_equal(tcmma_nvrtc_support(&sup, &err), TCMMA_OK);
    int below = 0;
    for (size_t i = 0; i < sup.count; i++)
      if (sup.archs[i] < info->floor && sup.archs[i] > below) below = sup.archs[i];
    assert_true(below > 0);
    o.arch = below;
    assert_int_equal(tcmma_compile(src.data, src.len, &o, &prog, &err), TCMMA_COMPILE);
    if (!strstr(prog.log, "requires .target sm_"))
      fail_msg("%s at sm_%d: rejected for another reason:\n%s", c->arm, below, prog.log);
    tcmma_program_free(&prog);
  }
  tcmma_buf_free(&src);
}

int main(void) {
  struct CMUnitTest tests[sizeof cases / sizeof cases[0]];
  static char names[sizeof cases / sizeof cases[0]][96];
  for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
    snprintf(names[i], sizeof names[i], "%s/%s/%dx%dx%d/a=%s/b=%s", cases[i].arm,
             tcmma_scope_name(cases[i].scope), cases[i].m, cases[i].n, cases[i].k, cases[i].a,
             cases[i].b);
    tests[i] = (struct CMUnitTest){names[i], check_case, NULL, NULL, (void *)&cases[i]};
  }
  return cmocka_run_group_tests(tests, NULL, NULL);
}
