/* The warpgroup tile product (tcmma_wgmma_render, docs/wgmma.md) through
 * tcmma's own NVRTC API: a CUBIN for sm_90a (the options picker reads the
 * (wgmma-*) marker) with no warnings, and a PTX census of exactly one
 * wgmma.mma_async per k step between one wgmma.fence and one commit/wait,
 * with fence.proxy.async for the ordinary shared stores. Skipped (never
 * passed) without NVRTC. */
#include "util.h"
#include <stddef.h>
#include <stdio.h>
#include <string.h>
#include "tcmma/tcmma.h"

typedef struct {
  const char *arm, *a, *b;
  int n, k;
  bool b_n_major;
  tcmma_swizzle sw;
  long ld; /* both operands' rows, in elements */
  bool a_regs; /* A from registers */
} render_case;

static const render_case cases[] = {
    {"wgmma-bf16", "bf16", "bf16", 128, 64, false, TCMMA_SWIZZLE_B128, 64},
    {"wgmma-f16", "f16", "f16", 64, 32, true, TCMMA_SWIZZLE_B128, 64},
    {"wgmma-f16-acc16", "f16", "f16", 64, 32, false, TCMMA_SWIZZLE_B64, 32},
    {"wgmma-tf32", "f32", "f32", 32, 16, false, TCMMA_SWIZZLE_B128, 32},
    {"wgmma-fp8", "e4m3", "e5m2", 256, 64, false, TCMMA_SWIZZLE_B128, 128},
    {"wgmma-fp8-acc16", "e5m2", "e5m2", 16, 32, false, TCMMA_SWIZZLE_B32, 32},
    {"wgmma-s8", "s8", "u8", 48, 64, false, TCMMA_SWIZZLE_B128, 128},
    {"wgmma-s8-sat", "u8", "u8", 24, 32, false, TCMMA_SWIZZLE_B128, 128},
    {"wgmma-bf16", "bf16", "bf16", 64, 32, false, TCMMA_SWIZZLE_B128, 64, true},
    {"wgmma-f16", "f16", "f16", 64, 32, true, TCMMA_SWIZZLE_B128, 64, true},
    {"wgmma-tf32", "f32", "f32", 16, 16, false, TCMMA_SWIZZLE_B128, 32, true},
    {"wgmma-s8", "s8", "s8", 32, 64, false, TCMMA_SWIZZLE_B128, 128, true},
};

static tcmma_operand_desc operand(const char *prec, bool transposed, const render_case *c) {
  tcmma_operand_desc d;
  memset(&d, 0, sizeof d);
  assert_int_equal(tcmma_prec_parse(prec, &d.prec, NULL), TCMMA_OK);
  d.transposed = transposed, d.ld = c->ld, d.space = TCMMA_SPACE_SHARED, d.swizzle = c->sw;
  return d;
}

static tcmma_wgmma_call call_of(const render_case *c) {
  tcmma_wgmma_call call = TCMMA_WGMMA_CALL_INIT(.n = c->n, .k = c->k);
  assert_int_equal(tcmma_wgmma_parse(c->arm, &call.arm, NULL), TCMMA_OK);
  call.a = operand(c->a, false, c);
  if (c->a_regs) call.a.space = TCMMA_SPACE_THREAD;
  call.b = operand(c->b, !c->b_n_major, c);
  return call;
}

/* A kernel around the rendering: one warpgroup stores A and B with
 * ordinary stores, publishes them, multiplies and writes its accumulators. */
static void kernel(tcmma_buf *src, const render_case *c, const tcmma_wgmma_call *call) {
  const char *ta = tcmma_prec_cuda_type(call->a.prec), *tb = tcmma_prec_cuda_type(call->b.prec);
  const tcmma_wgmma_info *i = tcmma_wgmma_get(call->arm);
  const char *acc = i->acc == TCMMA_PREC_F32 ? "float" : i->acc == TCMMA_PREC_S32 ? "int" : "unsigned";
  long a_elems = 64 * c->ld, b_elems = (c->b_n_major ? c->k : c->n) * c->ld;
  int regs = tcmma_wgmma_acc_regs(call->arm, c->n), steps = c->k / i->k;
  if (c->a_regs) {
    /* each thread's fragments straight from global memory: the compile, not the values, is
     * under test */
    tcmma_buf_printf(src,
                     "\nextern \"C\" __global__ void tcmma_test(const unsigned *ga, const %s *gb, %s *gd) {\n"
                     "  __shared__ __align__(1024) %s sb[%ld];\n"
                     "  for (int i = threadIdx.x; i < %ld; i += 128) sb[i] = gb[i];\n"
                     "  tcmma_wgmma_tile_publish();\n"
                     "  unsigned ra[%d][4];\n"
                     "  for (int s = 0; s < %d; s++)\n"
                     "    for (int j = 0; j < 4; j++) ra[s][j] = ga[(threadIdx.x * %d + s) * 4 + j];\n"
                     "  %s acc[%d];\n"
                     "  for (int i = 0; i < %d; i++) acc[i] = 0;\n"
                     "  tcmma_wgmma_tile(acc, ra, sb, false);\n"
                     "  for (int i = 0; i < %d; i++) gd[threadIdx.x * %d + i] = acc[i];\n}\n",
                     tb, acc, tb, b_elems, b_elems, steps, steps, steps, acc, regs, regs, regs, regs);
    return;
  }
  tcmma_buf_printf(src,
                   "\nextern \"C\" __global__ void tcmma_test(const %s *ga, const %s *gb, %s *gd) {\n"
                   "  __shared__ __align__(1024) %s sa[%ld];\n"
                   "  __shared__ __align__(1024) %s sb[%ld];\n"
                   "  for (int i = threadIdx.x; i < %ld; i += 128) sa[i] = ga[i];\n"
                   "  for (int i = threadIdx.x; i < %ld; i += 128) sb[i] = gb[i];\n"
                   "  tcmma_wgmma_tile_publish();\n"
                   "  %s acc[%d];\n"
                   "  for (int i = 0; i < %d; i++) acc[i] = 0;\n"
                   "  tcmma_wgmma_tile(acc, sa, sb, false);\n"
                   "  for (int i = 0; i < %d; i++) gd[threadIdx.x * %d + i] = acc[i];\n}\n",
                   ta, tb, acc, ta, a_elems, tb, b_elems, a_elems, b_elems, acc, regs, regs, regs,
                   regs);
}

static bool have_nvrtc(void) {
  tcmma_error err = {0};
  return tcmma_nvrtc_load(NULL, &err) == TCMMA_OK;
}

static void compiles_at_sm_90a(void **state) {
  const render_case *c = *state;
  if (!have_nvrtc()) skip();
  tcmma_wgmma_call call = call_of(c);
  tcmma_buf src = {0};
  tcmma_error err = {0};
  if (tcmma_wgmma_render(&call, &src, &err) != TCMMA_OK) fail_msg("%s: %s", c->arm, err.message);
  kernel(&src, c, &call);
  tcmma_compile_opts o = TCMMA_COMPILE_OPTS_INIT(.sass = true, .target = TCMMA_TARGET_FLOOR);
  tcmma_program prog;
  if (tcmma_compile(src.data, src.len, &o, &prog, &err) != TCMMA_OK)
    fail_msg("%s: compile: %s\n%s\n%s", c->arm, err.message, prog.log ? prog.log : "", src.data);
  assert_non_null(prog.cubin);
  if (strstr(prog.log, "warning")) fail_msg("%s: warnings:\n%s\n%s", c->arm, prog.log, src.data);
  bool arch_a = false;
  for (size_t j = 0; j < prog.n_options; j++)
    arch_a = arch_a || strstr(prog.options[j], "sm_90a") || strstr(prog.options[j], "compute_90a");
  if (!arch_a) fail_msg("%s: not compiled for sm_90a", c->arm);
  tcmma_ptx_info pi;
  assert_int_equal(tcmma_ptx_parse(prog.ptx, prog.ptx_len, &pi, &err), TCMMA_OK);
  int steps = c->k / tcmma_wgmma_get(call.arm)->k;
  assert_int_equal(tcmma_ptx_count(&pi, "wgmma.mma_async"), (size_t)steps);
  assert_int_equal(tcmma_ptx_count(&pi, "wgmma.fence"), 1);
  assert_int_equal(tcmma_ptx_count(&pi, "wgmma.commit_group"), 1);
  assert_int_equal(tcmma_ptx_count(&pi, "wgmma.wait_group"), 1);
  assert_int_equal(tcmma_ptx_count(&pi, "fence.proxy.async"), 1);
  assert_int_equal(tcmma_ptx_check_target(&pi, &err), TCMMA_OK);
  tcmma_ptx_info_free(&pi);
  tcmma_program_free(&prog);
  tcmma_buf_free(&src);
}

/* The text: the marker comment, tcmma_-prefixed locals, the descriptors the
 * operand plans give, the trans immediates of an N-major B. */
static void text_carries_marker_and_plans(void **state) {
  (void)state;
  tcmma_wgmma_call call = call_of(&cases[1]);
  call.name = "tile_f16";
  call.wait = 1;
  tcmma_buf src = {0};
  assert_int_equal(tcmma_wgmma_render(&call, &src, NULL), TCMMA_OK);
  const char *want[] = {"(wgmma-f16)", "tile_f16_publish()", "void tile_f16(float (&tcmma_acc)[32]",
                        "fence.proxy.async.shared::cta", "0x4000004000010000ull",
                        "0x4000004000400000ull", "p, 1, 1, 0, 1;",
                        "wgmma.wait_group.sync.aligned 1;",
                        "tcmma_db0 + tcmma_s * 128ull; /* 2048 bytes a step */",
                        "#include <cuda_fp16.h>"};
  for (size_t i = 0; i < sizeof want / sizeof want[0]; i++)
    if (!strstr(src.data, want[i])) fail_msg("no '%s' in\n%s", want[i], src.data);
  tcmma_buf_free(&src);
}

/* A from registers: the fragments as "r" operands, no A descriptor, only
 * imm-trans-b. */
static void text_of_register_a(void **state) {
  (void)state;
  tcmma_wgmma_call call = call_of(&cases[9]);
  tcmma_buf src = {0};
  assert_int_equal(tcmma_wgmma_render(&call, &src, NULL), TCMMA_OK);
  const char *want[] = {"const unsigned (&tcmma_a)[2][4]", "{%32, %33, %34, %35}, %36, p, 1, 1, 1;",
                        "\"r\"(tcmma_a[tcmma_s][3])", "A (registers, K-major)"};
  for (size_t i = 0; i < sizeof want / sizeof want[0]; i++)
    if (!strstr(src.data, want[i])) fail_msg("no '%s' in\n%s", want[i], src.data);
  assert_null(strstr(src.data, "tcmma_da"));
  tcmma_buf_free(&src);
}

static void declines_and_bad_calls(void **state) {
  (void)state;
  tcmma_buf src = {0};
  tcmma_error err;
  tcmma_wgmma_call call = call_of(&cases[0]);
  call.k = 24;
  assert_int_equal(tcmma_wgmma_render(&call, &src, &err), TCMMA_DECLINED);
  assert_non_null(strstr(err.message, "k 24"));
  call = call_of(&cases[4]);
  call.b.transposed = false; /* fp8 B N-major */
  assert_int_equal(tcmma_wgmma_render(&call, &src, &err), TCMMA_DECLINED);
  assert_non_null(strstr(err.message, "K-major only"));
  call = call_of(&cases[0]);
  call.a.prec = TCMMA_PREC_F16;
  assert_int_equal(tcmma_wgmma_render(&call, &src, &err), TCMMA_DECLINED);
  call = call_of(&cases[0]);
  call.name = "1bad";
  assert_int_equal(tcmma_wgmma_render(&call, &src, &err), TCMMA_INVALID);
  call.name = NULL, call.wait = 8;
  assert_int_equal(tcmma_wgmma_render(&call, &src, &err), TCMMA_INVALID);
  call.wait = 0, call.size = 8;
  assert_int_equal(tcmma_wgmma_render(&call, &src, &err), TCMMA_INVALID);
  assert_int_equal(tcmma_wgmma_render(NULL, &src, &err), TCMMA_INVALID);
  call = call_of(&cases[0]);
  assert_int_equal(tcmma_wgmma_render(&call, NULL, &err), TCMMA_INVALID);
  call.arm = TCMMA_WGMMA_COUNT;
  assert_int_equal(tcmma_wgmma_render(&call, &src, &err), TCMMA_INVALID);
  call = call_of(&cases[0]);
  call.dialect = (tcmma_dialect)2;
  assert_int_equal(tcmma_wgmma_render(&call, &src, &err), TCMMA_INVALID);
  assert_non_null(strstr(err.message, "dialect 2"));
  assert_int_equal(src.len, 0); /* nothing written by a failed render */
  tcmma_buf_free(&src);
}

/* A K-major operand's k from its origin column must fit one stored row
 * (the descriptor's k steps walk along it; past the row they read the next
 * row's bytes): declined naming k, the column and the row, for A and B,
 * dense and explicit ld; an N-major B's k runs down its rows instead. */
static void k_past_the_row_declines(void **state) {
  (void)state;
  tcmma_buf src = {0};
  tcmma_error err;
  tcmma_wgmma_call call = call_of(&cases[0]); /* bf16, rows of 64 */
  call.k = 128;
  assert_int_equal(tcmma_wgmma_render(&call, &src, &err), TCMMA_DECLINED);
  assert_non_null(strstr(err.message, "operand a is K-major with rows of 128 bytes"));
  assert_non_null(strstr(err.message, "k 128 from column 0"));
  assert_non_null(strstr(err.message, "at most 64"));
  call.a.ld = call.b.ld = 0; /* dense swizzled rows: one span */
  assert_int_equal(tcmma_wgmma_render(&call, &src, &err), TCMMA_DECLINED);
  assert_non_null(strstr(err.message, "k 128 from column 0"));
  call = call_of(&cases[0]);
  call.a.col0.value = 32; /* 32 + 64 past 64 */
  assert_int_equal(tcmma_wgmma_render(&call, &src, &err), TCMMA_DECLINED);
  assert_non_null(strstr(err.message, "k 64 from column 32"));
  call.k = 32; /* 32 + 32 fits */
  assert_int_equal(tcmma_wgmma_render(&call, &src, &err), TCMMA_OK);
  call = call_of(&cases[8]); /* A from registers: B's rows */
  call.k = 128;
  assert_int_equal(tcmma_wgmma_render(&call, &src, &err), TCMMA_DECLINED);
  assert_non_null(strstr(err.message, "operand b is K-major"));
  call = call_of(&cases[5]); /* e5m2 under the 32-byte swizzle */
  call.k = 64;
  assert_int_equal(tcmma_wgmma_render(&call, &src, &err), TCMMA_DECLINED);
  assert_non_null(strstr(err.message, "rows of 32 bytes"));
  call = call_of(&cases[9]); /* register A, N-major B: k 128 rows */
  call.k = 128;
  assert_int_equal(tcmma_wgmma_render(&call, &src, &err), TCMMA_OK);
  call = call_of(&cases[9]); /* its n along one stored row of 64: from column 8, 8 + 64 past it */
  call.b.col0.value = 8;
  assert_int_equal(tcmma_wgmma_render(&call, &src, &err), TCMMA_DECLINED);
  assert_non_null(strstr(err.message, "operand b is stored N-major with rows of 64 elements"));
  assert_non_null(strstr(err.message, "64 along n from column 8 pass the row"));
  call.n = 32, call.b.col0.value = 32; /* 32 + 32 fits */
  assert_int_equal(tcmma_wgmma_render(&call, &src, &err), TCMMA_OK);
  tcmma_buf_free(&src);
}

/* The dialect field: a caller built before it (its size stops short of it,
 * whatever the bytes there) gets CUDA; the host dialect spells the same
 * opcodes as the simulator's calls, without asm. */
static void dialects(void **state) {
  (void)state;
  tcmma_wgmma_call call = call_of(&cases[1]);
  call.dialect = TCMMA_DIALECT_HOST;
  call.size = offsetof(tcmma_wgmma_call, dialect);
  tcmma_buf cuda = {0}, host = {0};
  assert_int_equal(tcmma_wgmma_render(&call, &cuda, NULL), TCMMA_OK);
  assert_non_null(strstr(cuda.data, "asm volatile(\"wgmma.fence.sync.aligned;"));
  call.size = sizeof call;
  assert_int_equal(tcmma_wgmma_render(&call, &host, NULL), TCMMA_OK);
  const char *want[] = {"tcmma_sim_wgmma_fence(\"wgmma.fence.sync.aligned\")",
                        "tcmma_sim_wgmma_mma(\"wgmma.mma_async.sync.aligned.m64n64k16.f32.f16.f16\"",
                        "tcmma_sim_wgmma_commit(\"wgmma.commit_group.sync.aligned\")",
                        "tcmma_sim_wgmma_wait(\"wgmma.wait_group.sync.aligned 0\")",
                        "tcmma_sim_fence(\"fence.proxy.async.shared::cta\")",
                        "tcmma_sim_wgmma_hold(tcmma_acc, 32)", "tcmma_sim_cvta_shared(tcmma_b)",
                        "(wgmma-f16)"};
  for (size_t i = 0; i < sizeof want / sizeof want[0]; i++)
    if (!strstr(host.data, want[i])) fail_msg("no '%s' in\n%s", want[i], host.data);
  assert_null(strstr(host.data, "asm"));
  tcmma_buf_free(&cuda), tcmma_buf_free(&host);
}

int main(void) {
  enum { N = sizeof cases / sizeof cases[0] };
  struct CMUnitTest tests[N + 5];
  static char names[N][64];
  for (size_t i = 0; i < N; i++) {
    snprintf(names[i], sizeof names[i], "%s/n%d/k%d/%s%s%s", cases[i].arm, cases[i].n, cases[i].k,
             tcmma_swizzle_name(cases[i].sw), cases[i].b_n_major ? "/b=n-major" : "",
             cases[i].a_regs ? "/a=registers" : "");
    tests[i] = (struct CMUnitTest){names[i], compiles_at_sm_90a, NULL, NULL, (void *)&cases[i]};
  }
  tests[N] = (struct CMUnitTest)cmocka_unit_test(text_carries_marker_and_plans);
  tests[N + 1] = (struct CMUnitTest)cmocka_unit_test(declines_and_bad_calls);
  tests[N + 2] = (struct CMUnitTest)cmocka_unit_test(text_of_register_a);
  tests[N + 3] = (struct CMUnitTest)cmocka_unit_test(dialects);
  tests[N + 4] = (struct CMUnitTest)cmocka_unit_test(k_past_the_row_declines);
  return cmocka_run_group_tests(tests, NULL, NULL);
}
