/* The pieces and naming contexts (docs/emit.md, Pieces): a generator's own
 * double-buffered k loop composed from the public pieces, its blocks
 * rendered into two buffers with one naming context and spliced together,
 * runs bit-exact on the simulated warp (the verify data and reference of
 * tools/verify/data.c) and compiles with NVRTC to the products the plan
 * counts; and every bad argument is an error naming it. */
#include "util.h"
#include <dlfcn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "tcmma/tcmma.h"
#include "tools/verify/data.h"
#include "tools/verify/sim.h"

/* Links every simulator entry into this program (tools/verify/sim.c) so
 * that the modules it opens find them (the Makefile exports tcmma_sim_*). */
typedef void (*any_fn)(void);
extern const any_fn verify_sim_keep[];

static tcmma_plan plan_of(const char *d, const char *a, const char *b, int m, int n, int k) {
  return test_plan(d, a, b, m, n, k, TCMMA_SCOPE_FRAGMENT, NULL);
}

static int count(const char *text, const char *needle) {
  int n = 0;
  for (const char *p = text; (p = strstr(p, needle)); p += strlen(needle)) n++;
  return n;
}

/* The generator's kernel: its own k loop over the plan's kt steps, the
 * fragments double-buffered. Blocks before the loop and the mma go into
 * buffer x, the loads of the next step and the store into buffer y: two
 * buffers, one naming context, spliced in the loop's order. */
static void generator_kernel(const tcmma_plan *p, tcmma_dialect dl, tcmma_names *nm,
                             tcmma_buf *out) {
  tcmma_buf x[2] = {{0}}, y[2] = {{0}};
  const char *acc = "acc";
  assert_int_equal(tcmma_render_frag_decl(RCTX(p, dl, NULL, &x[0]), TCMMA_OPERAND_C, acc, 0, NULL),
                   TCMMA_OK);
  assert_int_equal(tcmma_render_frag_decl(RCTX(p, dl, NULL, &x[0]), TCMMA_OPERAND_A, "af", 2,
                                          NULL), TCMMA_OK);
  assert_int_equal(tcmma_render_frag_decl(RCTX(p, dl, NULL, &x[0]), TCMMA_OPERAND_B, "bf", 2,
                                          NULL), TCMMA_OK);
  assert_int_equal(tcmma_render_acc_init(RCTX(p, dl, nm, &x[0]), acc, "d", NULL), TCMMA_OK);
  assert_int_equal(tcmma_render_frag_load(RCTX(p, dl, nm, &x[0]), TCMMA_OPERAND_A, "af[0]", "a",
                                          "0", NULL), TCMMA_OK);
  assert_int_equal(tcmma_render_frag_load(RCTX(p, dl, nm, &x[0]), TCMMA_OPERAND_B, "bf[0]", "b",
                                          "0", NULL), TCMMA_OK);
  assert_int_equal(tcmma_render_frag_load(RCTX(p, dl, nm, &y[0]), TCMMA_OPERAND_A,
                                          "af[(ks + 1) & 1]", "a", "ks + 1", NULL), TCMMA_OK);
  assert_int_equal(tcmma_render_frag_load(RCTX(p, dl, nm, &y[0]), TCMMA_OPERAND_B,
                                          "bf[(ks + 1) & 1]", "b", "ks + 1", NULL), TCMMA_OK);
  assert_int_equal(tcmma_render_frag_mma(RCTX(p, dl, nm, &x[1]), acc, "af[ks & 1]", "bf[ks & 1]",
                                         NULL),
                   TCMMA_OK);
  assert_int_equal(tcmma_render_acc_store(RCTX(p, dl, nm, &y[1]), acc, "d", NULL), TCMMA_OK);
  const char *unroll = dl == TCMMA_DIALECT_HOST ? "#pragma GCC unroll 16" : "#pragma unroll";
  tcmma_buf_printf(out, "%s\n", tcmma_buf_str(&x[0]));
  tcmma_buf_printf(out, "%s\nfor (int ks = 0; ks < %d; ++ks) {\n", unroll, p->kt);
  tcmma_buf_printf(out, "if (ks + 1 < %d) {\n%s}\n", p->kt, tcmma_buf_str(&y[0]));
  tcmma_buf_printf(out, "%s}\n%s", tcmma_buf_str(&x[1]), tcmma_buf_str(&y[1]));
  for (int i = 0; i < 2; i++) tcmma_buf_free(&x[i]), tcmma_buf_free(&y[i]);
}

static void kernel_text(const tcmma_plan *p, tcmma_dialect dl, tcmma_buf *out) {
  tcmma_names nm = {NULL, 0};
  bool host = dl == TCMMA_DIALECT_HOST;
  tcmma_buf_printf(out, host ? "#include \"tcmma/sim.h\"\nvoid tcmma_kernel(float *d, const "
                               "tcmma_sim_bfloat16 *a, const tcmma_sim_bfloat16 *b) {\n"
                             : "#include <cuda_bf16.h>\nextern \"C\" __global__ void "
                               "tcmma_kernel(float *d, const __nv_bfloat16 *a, const "
                               "__nv_bfloat16 *b) {\n");
  generator_kernel(p, dl, &nm, out);
  tcmma_buf_printf(out, "}\n");
  if (host)
    tcmma_buf_printf(out, "void tcmma_kernel_entry(void *args) {\n  void **p = args;\n"
                          "  tcmma_kernel(p[0], p[1], p[2]);\n}\n");
  /* every block took its own number from the one context */
  assert_int_equal(nm.next, 7);
  for (int i = 0; i < 7; i++) {
    char want[32];
    snprintf(want, sizeof want, "__tcmma_%d_", i);
    if (!strstr(tcmma_buf_str(out), want)) fail_msg("block %d has no locals", i);
  }
  assert_null(strstr(tcmma_buf_str(out), "__tcmma_7_"));
}

static bool sim_runner(verify_case_data *x, const char *pass, void *ctx, verify_case_result *r) {
  void *args[3] = {x->buf[0].mem, x->buf[1].mem, x->buf[2].mem};
  tcmma_error err = {0};
  if (tcmma_sim_launch(*(sim_entry *)ctx, args, &err) == TCMMA_OK) return true;
  return verify_case_set(r, VERIFY_CASE_FAILED, "%s: simulator: %s", pass, err.message);
}

static void test_spliced_double_buffer_runs(void **s) {
  (void)s;
  assert_non_null(verify_sim_keep);
  /* a 32x16 tile over k = 64 (4 k steps), a and b read from global memory
   * in both orientations */
  const struct { const char *a, *b; } forms[] = {{"bf16", "bf16,t"}, {"bf16,t", "bf16"}};
  for (size_t f = 0; f < sizeof forms / sizeof forms[0]; f++) {
    tcmma_plan p = plan_of("f32", forms[f].a, forms[f].b, 32, 16, 64);
    tcmma_buf text = {0};
    kernel_text(&p, TCMMA_DIALECT_HOST, &text);
    void *h = host_module_open(tcmma_buf_str(&text));
    if (!h) fail_msg("spliced host kernel does not compile:\n%s", tcmma_buf_str(&text));
    sim_entry entry;
    void *sym = dlsym(h, "tcmma_kernel_entry");
    assert_non_null(sym);
    memcpy(&entry, &sym, sizeof sym);
    verify_case c;
    memset(&c, 0, sizeof c);
    snprintf(c.name, sizeof c.name, "pieces/spliced/%zu", f);
    c.call = p.call, c.outer = 1, c.expect_arm = p.arm;
    verify_case_result r;
    memset(&r, 0, sizeof r);
    if (!verify_case_data_run(&c, &p, sim_runner, &entry, &r)) fail_msg("%s", r.reason);
    dlclose(h);
    tcmma_buf_free(&text);
  }
}

static void test_spliced_double_buffer_compiles(void **s) {
  (void)s;
  tcmma_error err = {0};
  if (tcmma_nvrtc_load(NULL, &err) != TCMMA_OK) skip();
  tcmma_plan p = plan_of("f32", "bf16", "bf16,t", 32, 16, 64);
  tcmma_buf text = {0};
  kernel_text(&p, TCMMA_DIALECT_CUDA, &text);
  tcmma_compile_opts o = TCMMA_COMPILE_OPTS_INIT(.sass = true);
  tcmma_program prog;
  if (tcmma_compile(text.data, text.len, &o, &prog, &err) != TCMMA_OK)
    fail_msg("%s\n%s\n%s", err.message, prog.log ? prog.log : "", text.data);
  if (prog.log && strstr(prog.log, "warning")) fail_msg("warnings:\n%s", prog.log);
  tcmma_ptx_info pi;
  assert_int_equal(tcmma_ptx_parse(prog.ptx, prog.ptx_len, &pi, &err), TCMMA_OK);
  size_t mma = 0;
  for (size_t i = 0; i < pi.census_count; i++)
    if (strncmp(pi.census[i].opcode, "mma.sync", 8) == 0) mma += pi.census[i].count;
  /* the loop unrolls: every step's mt x nt products, once */
  assert_int_equal(mma, (size_t)p.mt * p.nt * p.kt);
  tcmma_ptx_info_free(&pi);
  tcmma_program_free(&prog);
  tcmma_buf_free(&text);
}

static void test_names(void **s) {
  (void)s;
  tcmma_plan p = plan_of("f32", "f16", "f16,t", 16, 8, 16);
  tcmma_buf out = {0};
  tcmma_error err = {0};
  assert_int_equal(tcmma_render_statement(RCTX(&p, TCMMA_DIALECT_CUDA, NULL, &out), "d", "a", "b",
                                          &err),
                   TCMMA_INVALID);
  assert_non_null(strstr(err.message, "names"));
  tcmma_names nm = {"1x", 0};
  assert_int_equal(tcmma_render_statement(RCTX(&p, TCMMA_DIALECT_CUDA, &nm, &out), "d", "a", "b",
                                          &err),
                   TCMMA_INVALID);
  assert_non_null(strstr(err.message, "'1x'"));
  nm.prefix = "a_prefix_longer_than_thirty_two_chars";
  assert_int_equal(tcmma_render_statement(RCTX(&p, TCMMA_DIALECT_CUDA, &nm, &out), "d", "a", "b",
                                          &err),
                   TCMMA_INVALID);
  nm.prefix = "gen_w3_", nm.next = -1;
  assert_int_equal(tcmma_render_statement(RCTX(&p, TCMMA_DIALECT_CUDA, &nm, &out), "d", "a", "b",
                                          &err),
                   TCMMA_INVALID);
  assert_string_equal(tcmma_buf_str(&out), "");
  /* a prefix of the caller's: every local carries it, the counter moves on */
  nm.next = 5;
  assert_int_equal(tcmma_render_statement(RCTX(&p, TCMMA_DIALECT_CUDA, &nm, &out), "d", "a", "b",
                                          &err),
                   TCMMA_OK);
  assert_int_equal(nm.next, 6);
  const char *t = tcmma_buf_str(&out);
  assert_non_null(strstr(t, "const int gen_w3_5_lane"));
  assert_null(strstr(t, "__tcmma_"));
  /* declarations take the caller's names and no number */
  assert_int_equal(tcmma_render_frag_decl(RCTX(&p, TCMMA_DIALECT_CUDA, NULL, &out), TCMMA_OPERAND_A,
                                          "af", 2, &err), TCMMA_OK);
  assert_int_equal(nm.next, 6);
  assert_non_null(strstr(tcmma_buf_str(&out), "unsigned af[2][1][4];"));
  tcmma_buf_free(&out);
}

static void test_piece_errors(void **s) {
  (void)s;
  tcmma_plan p = plan_of("f32", "f16", "f16,t", 16, 8, 16);
  tcmma_names nm = {NULL, 0};
  tcmma_buf out = {0};
  tcmma_error err = {0};
  tcmma_dialect dl = TCMMA_DIALECT_CUDA;
  assert_int_equal(tcmma_render_frag_decl(RCTX(&p, dl, NULL, &out), TCMMA_OPERAND_C, "acc", 2,
                                          &err),
                   TCMMA_INVALID);
  assert_non_null(strstr(err.message, "accumulator"));
  assert_int_equal(tcmma_render_frag_decl(RCTX(&p, dl, NULL, &out), TCMMA_OPERAND_A, "af",
                                          TCMMA_FRAG_BUFFERS_MAX + 1, &err), TCMMA_INVALID);
  assert_int_equal(tcmma_render_frag_decl(RCTX(&p, dl, NULL, &out), TCMMA_OPERAND_A, "a f", 0,
                                          &err),
                   TCMMA_INVALID);
  assert_non_null(strstr(err.message, "'a f'"));
  assert_int_equal(tcmma_render_frag_decl(RCTX(&p, dl, NULL, &out), (tcmma_operand)7, "af", 0,
                                          &err),
                   TCMMA_INVALID);
  assert_int_equal(tcmma_render_frag_load(RCTX(&p, dl, &nm, &out), TCMMA_OPERAND_C, "cf", "c", "0",
                                          &err), TCMMA_INVALID);
  assert_int_equal(tcmma_render_frag_load(RCTX(&p, dl, &nm, &out), TCMMA_OPERAND_A, "af", "a", "",
                                          &err), TCMMA_INVALID);
  assert_int_equal(tcmma_render_frag_mma(RCTX(&p, dl, &nm, &out), "acc", NULL, "bf", &err),
                   TCMMA_INVALID);
  char longexpr[TCMMA_EXPR_MAX + 2];
  memset(longexpr, 'x', sizeof longexpr - 1);
  longexpr[sizeof longexpr - 1] = '\0';
  assert_int_equal(tcmma_render_acc_store(RCTX(&p, dl, &nm, &out), "acc", longexpr, &err),
                   TCMMA_INVALID);
  assert_non_null(strstr(err.message, "at most"));
  assert_string_equal(tcmma_buf_str(&out), "");
  assert_int_equal(nm.next, 0); /* nothing rendered, no number taken */
  tcmma_call c = tcmma_call_default();
  c.m = 24, c.n = 8, c.k = 16;
  tcmma_plan bad;
  assert_int_equal(tcmma_plan_call(&c, &bad, NULL), TCMMA_DECLINED);
  assert_int_equal(tcmma_render_acc_init(RCTX(&bad, dl, &nm, &out), "acc", "d", &err),
                   TCMMA_INVALID);
  /* a caller's expressions are subscripted as written, or parenthesized */
  assert_int_equal(tcmma_render_frag_mma(RCTX(&p, dl, &nm, &out), "acc", "af[(ks + 1) & 1]", "*pb",
                                         &err), TCMMA_OK);
  const char *t = tcmma_buf_str(&out);
  assert_non_null(strstr(t, "af[(ks + 1) & 1][__tcmma_0_mi]"));
  assert_non_null(strstr(t, "(*pb)[__tcmma_0_ni]"));
  assert_int_equal(count(t, "mma.sync"), 1);
  tcmma_buf_free(&out);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_names),
      cmocka_unit_test(test_piece_errors),
      cmocka_unit_test(test_spliced_double_buffer_runs),
      cmocka_unit_test(test_spliced_double_buffer_compiles),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
