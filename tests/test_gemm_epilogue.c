/* The GEMM's epilogue list (include/tcmma/gemm.h, tcmma_epilogue_op;
 * docs/emit.md, GEMM epilogues): names and argument forms, the rules a list
 * must keep (declines and INVALID naming the op and the value), what the
 * rendered kernel takes, and tcmma gemm --epilogue with its errors and JSON.
 * The ops' values are checked by the GEMM matrix (tests/test_gemm.c runs
 * its epilogue cases on the simulator and compiles them with NVRTC). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <dlfcn.h>
#include "tcmma/tcmma.h"
#include "tools/verify/gemm_epilogue.h"
#include "tools/verify/sim.h"
#include "util.h"

typedef void (*any_fn)(void);
extern const any_fn verify_sim_keep[]; /* links the simulator the modules call */

static tcmma_gemm_call small_call(void) {
  tcmma_gemm_call c = tcmma_gemm_call_default();
  c.m = c.n = c.k = 64, c.block_m = c.block_n = 64, c.cc = 80;
  return c;
}

/* Plans c with ops[0..n) in opts o (NULL: the defaults), and renders plan
 * p with them: the list travels in tcmma_gemm_opts. */
static tcmma_status plan_ops(const tcmma_gemm_call *c, const tcmma_gemm_opts *o,
                             const tcmma_epilogue_op *ops, int n, tcmma_gemm_plan *p,
                             tcmma_error *err) {
  tcmma_gemm_opts w = o ? *o : tcmma_gemm_opts_default();
  w.epilogue = ops, w.epilogue_count = n;
  return tcmma_gemm_plan_opts(c, &w, p, NULL, err);
}

static tcmma_status render_ops(tcmma_dialect dl, tcmma_buf *out, const tcmma_gemm_plan *p,
                               const tcmma_gemm_opts *o, const tcmma_epilogue_op *ops, int n,
                               tcmma_error *err) {
  tcmma_gemm_opts w = o ? *o : tcmma_gemm_opts_default();
  w.epilogue = ops, w.epilogue_count = n;
  return tcmma_render_gemm_opts(RCTX(NULL, dl, NULL, out), p, &w, err);
}

static tcmma_epilogue_op op(tcmma_epilogue_kind k) {
  tcmma_epilogue_op o = tcmma_epilogue_op_default();
  o.kind = k;
  return o;
}

/* Every name parses back to its kind; an unknown one lists them all. */
static void names_round_trip(void **s) {
  (void)s;
  for (int k = 0; k < TCMMA_EPILOGUE_COUNT; k++) {
    tcmma_epilogue_kind got;
    assert_int_equal(tcmma_epilogue_parse(tcmma_epilogue_name((tcmma_epilogue_kind)k), &got, NULL),
                     TCMMA_OK);
    assert_int_equal(got, k);
    assert_string_not_equal(tcmma_epilogue_args((tcmma_epilogue_kind)k), "?");
  }
  tcmma_epilogue_kind got;
  tcmma_error err = {0};
  assert_int_equal(tcmma_epilogue_parse("gelu", &got, &err), TCMMA_INVALID);
  assert_non_null(strstr(err.message, "'gelu'"));
  assert_non_null(strstr(err.message, "gelu-tanh, gelu-erf"));
  assert_string_equal(tcmma_epilogue_name(TCMMA_EPILOGUE_COUNT), "?");
  assert_string_equal(tcmma_epilogue_axis_name(TCMMA_EPILOGUE_AXIS_ROW), "row");
  assert_string_equal(tcmma_epilogue_args(TCMMA_EPILOGUE_SCALE), "tensor|row|col");
}

/* Plans c with ops[0..n): the status, and the message has `want`. */
static void expect(const tcmma_epilogue_op *ops, int n, tcmma_status st, tcmma_gemm_decline why,
                   const char *want) {
  tcmma_gemm_call c = small_call();
  tcmma_gemm_plan p;
  tcmma_error err = {0};
  tcmma_status got = plan_ops(&c, NULL, ops, n, &p, &err);
  if (got != st || (st == TCMMA_DECLINED && p.reason != why) || !strstr(err.message, want))
    fail_msg("status %d (want %d), reason %s: '%s' lacks '%s'", got, st,
             tcmma_gemm_decline_name(p.reason), err.message, want);
}

/* Each rule of a list, broken once, names the op and its value. */
static void rules_decline_naming_the_value(void **s) {
  (void)s;
  tcmma_epilogue_op o[3] = {op(TCMMA_EPILOGUE_CVT), op(TCMMA_EPILOGUE_RELU)};
  o[0].prec = TCMMA_PREC_BF16;
  expect(o, 2, TCMMA_DECLINED, TCMMA_GEMM_DECLINE_CALL, "expected the last op");
  o[0].prec = TCMMA_PREC_S8;
  expect(o, 1, TCMMA_DECLINED, TCMMA_GEMM_DECLINE_CALL, "s8 at place 0");
  o[0] = op(TCMMA_EPILOGUE_CLAMP), o[0].lo = 1, o[0].hi = 0;
  expect(o, 1, TCMMA_DECLINED, TCMMA_GEMM_DECLINE_CALL, "lo 1, hi 0");
  o[0] = op(TCMMA_EPILOGUE_BIAS), o[0].axis = TCMMA_EPILOGUE_AXIS_TENSOR;
  expect(o, 1, TCMMA_DECLINED, TCMMA_GEMM_DECLINE_CALL, "axis tensor");
  static const char *const bodies[] = {NULL, " \n\t", "return x; } void f() {", "{ return x;"};
  static const char *const why[] = {"NULL", "blank", "unbalanced", "unbalanced"};
  for (int i = 0; i < 4; i++) {
    o[0] = op(TCMMA_EPILOGUE_HOOK), o[0].body = bodies[i];
    expect(o, 1, TCMMA_DECLINED, TCMMA_GEMM_DECLINE_CALL, why[i]);
  }
  char *big = malloc(TCMMA_EPILOGUE_BODY_MAX + 2);
  memset(big, ' ', TCMMA_EPILOGUE_BODY_MAX + 1), big[TCMMA_EPILOGUE_BODY_MAX + 1] = '\0';
  o[0].body = big;
  expect(o, 1, TCMMA_DECLINED, TCMMA_GEMM_DECLINE_CALL, "longer");
  free(big);
  expect(o, TCMMA_EPILOGUE_OPS_MAX + 1, TCMMA_DECLINED, TCMMA_GEMM_DECLINE_CALL, "17 ops");
  expect(NULL, 2, TCMMA_INVALID, TCMMA_GEMM_DECLINE_NONE, "NULL");
  o[0] = op(TCMMA_EPILOGUE_RELU), o[0].kind = (tcmma_epilogue_kind)99;
  expect(o, 1, TCMMA_INVALID, TCMMA_GEMM_DECLINE_NONE, "kind 99");
  o[0] = op(TCMMA_EPILOGUE_RELU), o[1] = op(TCMMA_EPILOGUE_RELU), o[1].size = 8;
  expect(o, 2, TCMMA_INVALID, TCMMA_GEMM_DECLINE_NONE, "op 1: size 8");
  o[0].size = 0;
  expect(o, 1, TCMMA_INVALID, TCMMA_GEMM_DECLINE_NONE, "size 0");
}

/* The kernel takes one argument per op that has one, in list order, and
 * renders the hook as a function; a plan rendered with another list than
 * it was made with is refused when the list does not plan. */
static void kernel_arguments_in_list_order(void **s) {
  (void)s;
  tcmma_epilogue_op o[6] = {op(TCMMA_EPILOGUE_SCALE), op(TCMMA_EPILOGUE_RESIDUAL),
                            op(TCMMA_EPILOGUE_HOOK),  op(TCMMA_EPILOGUE_BIAS),
                            op(TCMMA_EPILOGUE_AMAX),  op(TCMMA_EPILOGUE_CVT)};
  o[2].body = "return x + (float)col;";
  o[5].prec = TCMMA_PREC_E4M3;
  tcmma_gemm_call c = small_call();
  c.name = "k";
  tcmma_gemm_plan p;
  tcmma_error err = {0};
  assert_int_equal(plan_ops(&c, NULL, o, 6, &p, &err), TCMMA_OK);
  for (int dl = 0; dl < 2; dl++) {
    tcmma_buf out = {0};
    assert_int_equal(render_ops((tcmma_dialect)dl, &out, &p, NULL, o, 6, &err), TCMMA_OK);
    const char *t = tcmma_buf_str(&out);
    const char *sig = strstr(t, "float alpha, float beta, const float *scale0, const ");
    assert_non_null(sig);
    assert_non_null(strstr(sig, "*residual1, const float *bias3, float *amax4)"));
    assert_non_null(
        strstr(t, "float k_hook2(float x, int row, int col)\n{\n  return x + (float)col;"));
    assert_non_null(strstr(t, dl ? "tcmma_sim_fp8_e4m3 *d" : "__nv_fp8_e4m3 *d"));
    if (dl) assert_non_null(strstr(t, "(float *)p[9]);"));
    tcmma_buf_free(&out);
  }
  o[5].prec = TCMMA_PREC_S32; /* the list no longer plans */
  tcmma_buf out = {0};
  assert_int_equal(render_ops(TCMMA_DIALECT_CUDA, &out, &p, NULL, o, 6, &err), TCMMA_INVALID);
  tcmma_buf_free(&out);
  /* no list: the kernel is the plain one, byte for byte */
  tcmma_buf a = {0}, b = {0};
  assert_int_equal(tcmma_gemm_plan_call(&c, &p, &err), TCMMA_OK);
  assert_int_equal(tcmma_render_gemm(RCTX(NULL, TCMMA_DIALECT_CUDA, NULL, &a), &p, &err), TCMMA_OK);
  assert_int_equal(render_ops(TCMMA_DIALECT_CUDA, &b, &p, NULL, NULL, 0, &err), TCMMA_OK);
  assert_string_equal(tcmma_buf_str(&a), tcmma_buf_str(&b));
  assert_null(strstr(tcmma_buf_str(&a), "math.h"));
  tcmma_buf_free(&a), tcmma_buf_free(&b);
}

/* A kernel with every op compiles under NVRTC with an empty log (no
 * warning); its PTX has the atomic of amax and the fp8 stores' conversion. */
static void every_op_compiles_without_warnings(void **s) {
  (void)s;
  tcmma_error err = {0};
  if (tcmma_nvrtc_load(NULL, &err) != TCMMA_OK) {
    printf("no NVRTC here: %s\n", err.message);
    skip();
  }
  tcmma_epilogue_op o[TCMMA_EPILOGUE_COUNT];
  int n = 0;
  for (int k = 0; k < TCMMA_EPILOGUE_COUNT; k++) {
    if (k == TCMMA_EPILOGUE_CVT) continue; /* last */
    o[n] = op((tcmma_epilogue_kind)k);
    if (k == TCMMA_EPILOGUE_HOOK) o[n].body = "return x * (float)(row + col);";
    if (k == TCMMA_EPILOGUE_CLAMP) o[n].lo = -4, o[n].hi = 4;
    n++;
  }
  o[n] = op(TCMMA_EPILOGUE_CVT), o[n].prec = TCMMA_PREC_E5M2, n++;
  tcmma_gemm_call c = small_call();
  c.m = 65, c.k = 128; /* ragged: the element-wise store too */
  /* alone, then in a shape-argument kernel of a strided batch split over K */
  tcmma_gemm_opts w = tcmma_gemm_opts_default();
  for (int with = 0; with < 2; with++) {
    if (with) w.shape_args = true, w.batch = 2, w.split_k = 2;
    tcmma_gemm_plan p;
    assert_int_equal(plan_ops(&c, &w, o, n, &p, &err), TCMMA_OK);
    tcmma_buf src = {0};
    assert_int_equal(render_ops(TCMMA_DIALECT_CUDA, &src, &p, &w, o, n, &err), TCMMA_OK);
    tcmma_compile_opts opts = TCMMA_COMPILE_OPTS_INIT(.name = "epilogue.cu");
    tcmma_program prog;
    tcmma_status st = tcmma_compile(tcmma_buf_str(&src), src.len, &opts, &prog, &err);
    if (st != TCMMA_OK) fail_msg("%s\n%s", err.message, tcmma_buf_str(&src));
    if (prog.log[0]) fail_msg("NVRTC said: %s", prog.log);
    assert_non_null(strstr(prog.ptx, "atom.global.max.u32"));
    tcmma_program_free(&prog);
    tcmma_buf_free(&src);
  }
}

/* How many times needle occurs in hay. */
static int occurrences(const char *hay, const char *needle) {
  int n = 0;
  for (const char *at = strstr(hay, needle); at; at = strstr(at + 1, needle)) n++;
  return n;
}

/* The list with the other options (the values are the GEMM matrix's, on
 * the simulator): split-K runs the ops once, after the reduction, in the
 * slice that arrives last; a strided batch moves each residual as it moves
 * c and shares the bias vector; a shape-argument kernel reads the residual
 * at c's own offset; a pointer-array batch declines a residual. */
static void the_list_with_the_other_options(void **s) {
  (void)s;
  tcmma_epilogue_op o[4] = {op(TCMMA_EPILOGUE_BIAS), op(TCMMA_EPILOGUE_RESIDUAL),
                            op(TCMMA_EPILOGUE_AMAX), op(TCMMA_EPILOGUE_CVT)};
  o[3].prec = TCMMA_PREC_BF16;
  tcmma_gemm_call c = small_call();
  c.k = 256;
  tcmma_gemm_opts w = tcmma_gemm_opts_default();
  w.split_k = 2, w.batch = 3;
  tcmma_gemm_plan p;
  tcmma_error err = {0};
  assert_int_equal(plan_ops(&c, &w, o, 4, &p, &err), TCMMA_OK);
  tcmma_buf out = {0};
  assert_int_equal(render_ops(TCMMA_DIALECT_CUDA, &out, &p, &w, o, 4, &err), TCMMA_OK);
  const char *t = tcmma_buf_str(&out);
  const char *ret = strstr(t, "if (!*__tcmma_g_last) return;"), *bias = strstr(t, "bias0["),
             *amax = strstr(t, "atomicMax(");
  if (!ret || !bias || !amax || !(ret < bias && bias < amax))
    fail_msg("the ops are not after split-K's reduction:\n%s", t);
  assert_int_equal(occurrences(t, "atomicMax("), 1);
  assert_int_equal(occurrences(t, "/* epilogue: "), 1);
  assert_non_null(strstr(t, "residual1 += (size_t)__tcmma_g_bz * 4096;"));
  assert_null(strstr(t, "bias0 +="));
  assert_non_null(strstr(t, "void *workspace, const float *bias0, const float *residual1, "
                               "float *amax2)"));
  tcmma_buf_free(&out);
  w = tcmma_gemm_opts_default();
  w.shape_args = true, w.batch = 2;
  assert_int_equal(plan_ops(&c, &w, o, 4, &p, &err), TCMMA_OK);
  assert_int_equal(render_ops(TCMMA_DIALECT_CUDA, &out, &p, &w, o, 4, &err), TCMMA_OK);
  t = tcmma_buf_str(&out);
  assert_non_null(strstr(t, "residual1[(__tcmma_g_oc + __tcmma_g_j)]"));
  assert_non_null(strstr(t, "residual1 += (size_t)__tcmma_g_bz * stride_c;"));
  tcmma_buf_free(&out);
  w.shape_args = false, w.pointer_array = true;
  assert_int_equal(plan_ops(&c, &w, o, 4, &p, &err), TCMMA_DECLINED);
  assert_int_equal(p.reason, TCMMA_GEMM_DECLINE_CALL);
  assert_non_null(strstr(err.message, "epilogue op 1 (residual): with pointer_array"));
  assert_int_equal(plan_ops(&c, &w, o + 2, 2, &p, &err), TCMMA_OK); /* amax, cvt: fine */
}

/* Another runner than the simulator's: the kernel's libm is then not the
 * reference's, as on a GPU. */
static bool other_libm_runner(void *ctx, const tcmma_gemm_plan *plan, const tcmma_gemm_opts *o,
                              void *const bufs[4], const verify_gemm_extras *x, float alpha,
                              float beta, char *why, size_t cap) {
  return verify_gemm_sim_runner(ctx, plan, o, bufs, x, alpha, beta, why, cap);
}

/* The matrix's cases whose ops call libm pass with the integer pass's bound
 * for another libm (the gpu executor's), and a kernel that scales by 2
 * where the reference does not fails that bound. */
static void libm_cases_within_the_other_libm_bound(void **s) {
  (void)s;
  assert_non_null(verify_sim_keep);
  const verify_gemm_case *cs;
  size_t n = verify_gemm_matrix(&cs), ran = 0;
  for (size_t i = 0; i < n; i++) {
    tcmma_gemm_plan p;
    verify_case_result r = {0};
    if (!verify_gemm_epilogue_libm(&cs[i]) || !verify_gemm_case_plan(&cs[i], &p, &r)) continue;
    for (int wrong = 0; wrong < 2; wrong++) {
      verify_gemm_case c = cs[i];
      if (wrong) { /* a first op the reference is not told of */
        memmove(&c.epilogue[1], &c.epilogue[0], sizeof c.epilogue[0] * (size_t)c.epilogue_count++);
        c.epilogue[0] = tcmma_epilogue_op_default();
        c.epilogue[0].kind = TCMMA_EPILOGUE_HOOK, c.epilogue[0].body = "return 2 * x;";
      }
      tcmma_error err = {0};
      assert_int_equal(plan_ops(&c.call, &c.opts, c.epilogue, c.epilogue_count, &p, &err),
                       TCMMA_OK);
      tcmma_buf text = {0};
      assert_int_equal(render_ops(TCMMA_DIALECT_HOST, &text, &p, &c.opts, c.epilogue,
                                  c.epilogue_count, &err),
                       TCMMA_OK);
      void *h = host_module_open(tcmma_buf_str(&text));
      void *sym = h ? dlsym(h, "tcmma_kernel_entry") : NULL;
      assert_non_null(sym);
      sim_entry entry;
      memcpy(&entry, &sym, sizeof sym);
      if (wrong) /* the reference without it */
        memmove(&c.epilogue[0], &c.epilogue[1], sizeof c.epilogue[0] * (size_t)--c.epilogue_count);
      bool ok = verify_gemm_case_run(&c, &p, other_libm_runner, &entry, &r);
      if (ok == (bool)wrong) fail_msg("%s (wrong %d): %s", c.name, wrong, r.reason);
      dlclose(h);
      tcmma_buf_free(&text);
    }
    ran++;
  }
  assert_true(ran >= 2);
}

static cli_result gemm(const char *list, const char *extra) {
  const char *args[16] = {"gemm", "--m", "64",   "--n", "64",   "--k",        "64", "--d",
                          "f32",  "--a", "bf16", "--b", "bf16", "--epilogue", list};
  int n = 15;
  if (extra) args[n++] = extra;
  args[n] = NULL;
  return run_cli(args, NULL);
}

/* Bad names and arguments: exit 2 naming the item and the expected forms. */
static void cli_errors_name_the_value(void **s) {
  (void)s;
  static const struct {
    const char *list, *want;
  } bad[] = {
      {"bias:diag", "'bias:diag': expected bias:row|col"},
      {"bias", "expected bias:row|col"},
      {"relu:1", "relu takes no argument"},
      {"swish", "'swish': expected one of bias, relu"},
      {"clamp:1", "expected clamp:lo:hi"},
      {"clamp:0:x", "'x': expected a finite decimal number"},
      {"cvt:e9m9", "e9m9"},
      {"hook", "expected --epilogue-hook BODY"},
      {",", "expected at least one op"},
  };
  for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
    cli_result r = gemm(bad[i].list, NULL);
    if (r.exit_code != 2 || !strstr(r.err, bad[i].want))
      fail_msg("--epilogue %s: exit %d, '%s' lacks '%s'", bad[i].list, r.exit_code, r.err,
               bad[i].want);
    cli_result_free(&r);
  }
  cli_result r = gemm("cvt:bf16,relu", NULL); /* parses, declines */
  assert_int_equal(r.exit_code, 3);
  assert_non_null(strstr(r.err, "epilogue op 0 (cvt)"));
  cli_result_free(&r);
}

/* The list in JSON, the hook's body from the command line. */
static void cli_json_lists_the_ops(void **s) {
  (void)s;
  const char *args[] = {"gemm",
                        "--m",
                        "64",
                        "--n",
                        "64",
                        "--k",
                        "64",
                        "--tile",
                        "64x64x32",
                        "--d",
                        "f32",
                        "--a",
                        "bf16",
                        "--b",
                        "bf16",
                        "--epilogue",
                        "bias:row,clamp:-1:2.5,hook,cvt:e5m2",
                        "--epilogue-hook",
                        "return x;",
                        "--json",
                        NULL};
  cli_result r = run_cli(args, NULL);
  assert_int_equal(r.exit_code, 0);
  /* the JSON without its layout's whitespace (the body's space goes too) */
  char *flat = strdup(r.out);
  size_t n = 0;
  for (const char *c = r.out; *c; c++)
    if (*c != ' ' && *c != '\n') flat[n++] = *c;
  flat[n] = '\0';
  if (!strstr(flat,
              "\"epilogue\":[{\"op\":\"bias\",\"axis\":\"row\"},{\"op\":\"clamp\","
              "\"lo\":-1,\"hi\":2.5},{\"op\":\"hook\",\"body\":\"returnx;\"},"
              "{\"op\":\"cvt\",\"prec\":\"e5m2\"}]"))
    fail_msg("no epilogue list in %s", r.out);
  free(flat);
  assert_non_null(strstr(r.out, "__nv_fp8_e5m2 *d"));
  cli_result_free(&r);
  /* the body from a file, lines and all; both sources at once are refused */
  char path[] = "/tmp/tcmma-hook-XXXXXX";
  int fd = mkstemp(path);
  assert_true(fd >= 0);
  const char body[] = "float y = x * 2.0f;\nreturn y;\n";
  assert_int_equal(write(fd, body, sizeof body - 1), (long)(sizeof body - 1));
  close(fd);
  const char *file[] = {
      "gemm", "--m",      "64",       "--n",        "64",   "--k",
      "64",   "--tile",   "64x64x32", "--d",        "f32",  "--a",
      "bf16", "--b",      "bf16",     "--epilogue", "hook", "--epilogue-hook-file",
      path,   "--kernel", NULL};
  r = run_cli(file, NULL);
  assert_int_equal(r.exit_code, 0);
  assert_non_null(
      strstr(r.out, "(float x, int row, int col)\n{\n  float y = x * 2.0f;\n  return y;\n}"));
  cli_result_free(&r);
  const char *both[] = {"gemm",      "--m",
                        "64",        "--n",
                        "64",        "--k",
                        "64",        "--d",
                        "f32",       "--a",
                        "bf16",      "--b",
                        "bf16",      "--epilogue",
                        "hook",      "--epilogue-hook",
                        "return x;", "--epilogue-hook-file",
                        path,        NULL};
  r = run_cli(both, NULL);
  assert_int_equal(r.exit_code, 2);
  assert_non_null(strstr(r.err, "exclude each other"));
  cli_result_free(&r);
  unlink(path);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(names_round_trip),
      cmocka_unit_test(rules_decline_naming_the_value),
      cmocka_unit_test(kernel_arguments_in_list_order),
      cmocka_unit_test(every_op_compiles_without_warnings),
      cmocka_unit_test(the_list_with_the_other_options),
      cmocka_unit_test(libm_cases_within_the_other_libm_bound),
      cmocka_unit_test(cli_errors_name_the_value),
      cmocka_unit_test(cli_json_lists_the_ops),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
