/* The block-scaled arm mma-mxfp8 end to end (docs/design.md §5, §7): the
 * call's scale operands and their rules, the rendered scale registers and
 * selectors, the kernel's scale buffers, the family target (ptxas accepts
 * the kernel on sm_120a and sm_121a and refuses it on sm_100a and sm_90),
 * and the simulator run of a kernel whose scales must matter. Expected
 * values are written here from the PTX ISA, not read from the tables. */
#include "util.h"
#include <stdio.h>
#include <string.h>
#include "tcmma/tcmma.h"
#include "tcmma/compile.h"
#include "tools/verify/matrix.h"
#include "tools/verify/verify.h"

/* f32 = a x b (m16n8k32 tiles), a row-major, b stored n x k, scales sa, sb. */
static tcmma_call mx_call(const char *a, const char *b, int m, int n, int k) {
  tcmma_call c = tcmma_call_default();
  assert_int_equal(tcmma_prec_parse(a, &c.a.prec, NULL), TCMMA_OK);
  assert_int_equal(tcmma_prec_parse(b, &c.b.prec, NULL), TCMMA_OK);
  c.d.prec = TCMMA_PREC_F32;
  c.b.transposed = true;
  c.a.scale = "sa", c.b.scale = "sb";
  c.m = m, c.n = n, c.k = k, c.cc = 120;
  return c;
}

static void invalid(tcmma_call c, const char *needle) {
  tcmma_plan p;
  tcmma_error err = {0};
  assert_int_equal(tcmma_plan_call(&c, &p, &err), TCMMA_INVALID);
  if (!strstr(err.message, needle)) fail_msg("'%s' does not name '%s'", err.message, needle);
}

static void declined(tcmma_call c, tcmma_decline why, const char *needle) {
  tcmma_plan p;
  tcmma_error err = {0};
  assert_int_equal(tcmma_plan_call(&c, &p, &err), TCMMA_DECLINED);
  if (p.reason != why || !strstr(p.message, needle))
    fail_msg("expected %s naming '%s', got %s: %s", tcmma_decline_name(why), needle,
             tcmma_decline_name(p.reason), p.message);
}

/* Scales exactly where the precision is block-scaled; whole blocks of 32 k
 * from the k origin; scale_ld at least the blocks a row needs. */
static void scale_operands_and_their_rules(void **state) {
  (void)state;
  tcmma_call c = mx_call("mxe4m3", "mxe4m3", 16, 8, 64);
  c.a.scale = NULL;
  invalid(c, "scale");
  c = mx_call("mxe4m3", "mxe4m3", 16, 8, 64);
  c.b.scale = "";
  invalid(c, "b: mxe4m3 is block-scaled");
  c = mx_call("mxe4m3", "mxe4m3", 16, 8, 64);
  c.d.scale = "sd";
  invalid(c, "d: scales given for f32");
  c = mx_call("mxe4m3", "mxe4m3", 16, 8, 64);
  c.a.scale_ld = -1;
  invalid(c, "scale_ld -1");
  tcmma_call e = tcmma_call_default();
  e.m = 16, e.n = 8, e.k = 16, e.a.scale = "sa";
  invalid(e, "a: scales given for f16");

  /* a dense scale parent: the k origin's value plus k, over 32 */
  c = mx_call("mxe4m3", "mxe5m2", 32, 16, 64);
  c.a.col0.value = 32, c.a.ld = 128;
  tcmma_plan p;
  tcmma_error err = {0};
  if (tcmma_plan_call(&c, &p, &err) != TCMMA_OK) fail_msg("%s", err.message);
  assert_string_equal(tcmma_arm_marker(p.arm), "mma-mxfp8");
  assert_int_equal(p.call.a.scale_ld, 3);
  assert_int_equal(p.call.b.scale_ld, 2);
  long rows, cols, ld;
  tcmma_operand_scale_shape(&p.call, TCMMA_OPERAND_B, 32, &rows, &cols, &ld, NULL, NULL);
  assert_int_equal(rows, 16), assert_int_equal(cols, 2), assert_int_equal(ld, 2);

  c.a.col0.value = 16; /* half a block in */
  declined(c, TCMMA_DECLINE_SUBTILE, "not a multiple of 32");
  c.a.col0 = (tcmma_coord){0, "blockIdx.x * 16", 16};
  declined(c, TCMMA_DECLINE_SUBTILE, "not a multiple of 32");
  c = mx_call("mxe4m3", "mxe4m3", 16, 8, 64);
  c.b.scale_ld = 1; /* k = 64 needs two scales per column */
  declined(c, TCMMA_DECLINE_STRIDE, "scale_ld = 1");
  c = mx_call("mxe4m3", "mxe4m3", 16, 8, 64);
  c.a.scale_ld = 1L << 28; /* 16 rows of 2^28 scales: beyond int offsets */
  declined(c, TCMMA_DECLINE_OVERFLOW, "scale_ld 268435456");
  c = mx_call("mxe4m3", "mxe4m3", 16, 8, 64);
  c.cc = 100;
  declined(c, TCMMA_DECLINE_FLOOR, "mma-mxfp8");
}

/* The text: the opcode of the element types, each tile's scale byte from
 * the lane's row of a (g + 8 * (q & 1)) and column of b (g), and the
 * selectors {0, 0} that pick them (PTX ISA, "Block Scaling for mma.sync"). */
static void scale_registers_and_selectors_in_the_text(void **state) {
  (void)state;
  tcmma_call c = mx_call("mxe5m2", "mxe4m3", 16, 8, 64);
  c.a.scale = "scales_a + 7";
  c.b.scale_ld = 5;
  tcmma_plan p;
  tcmma_error err = {0};
  assert_int_equal(tcmma_plan_call(&c, &p, &err), TCMMA_OK);
  tcmma_buf out = {0};
  tcmma_names names = {0};
  assert_int_equal(tcmma_render_statement(RCTX(&p, TCMMA_DIALECT_CUDA, &names, &out), "d", "a", "b",
                                          &err), TCMMA_OK);
  const char *t = tcmma_buf_str(&out);
  static const char *const want[] = {
      "mma.sync.aligned.kind::mxf8f6f4.block_scale.scale_vec::1X.m16n8k32.row.col.f32.e5m2."
      "e4m3.f32.ue8m0",
      "{%0, %1, %2, %3}, %10, {0, 0}, %11, {0, 0};",
      "(const unsigned char *)(scales_a + 7)",
      "unsigned __tcmma_0_af[1][5];",
      "unsigned __tcmma_0_bf[1][3];",
      "__tcmma_0_af[__tcmma_0_mi][4] = __tcmma_0_as[(16 * __tcmma_0_mi + __tcmma_0_g + 8 * "
      "(__tcmma_0_q & 1)) * 2 + __tcmma_0_ki];",
      "__tcmma_0_bf[__tcmma_0_ni][2] = __tcmma_0_bs[(8 * __tcmma_0_ni + __tcmma_0_g) * 5 + "
      "__tcmma_0_ki];",
      "\"r\"(__tcmma_0_af[__tcmma_0_mi][4]), \"r\"(__tcmma_0_bf[__tcmma_0_ni][2])",
  };
  for (size_t i = 0; i < sizeof want / sizeof want[0]; i++)
    if (!strstr(t, want[i])) fail_msg("missing '%s' in:\n%s", want[i], t);
  out.len = 0;
  assert_int_equal(tcmma_render_statement(RCTX(&p, TCMMA_DIALECT_HOST, &names, &out), "d", "a", "b",
                                          &err), TCMMA_OK);
  if (!strstr(tcmma_buf_str(&out), "tcmma_sim_mma_scaled(") ||
      !strstr(tcmma_buf_str(&out), "__tcmma_1_af[__tcmma_1_mi][4], 0, 0, __tcmma_1_bf[__tcmma_1_ni][2], 0, 0);"))
    fail_msg("host text:\n%s", tcmma_buf_str(&out));
  tcmma_buf_free(&out);
}

/* The kernel's scale buffers: `outer` dense scale parents, bytes indexed by
 * row (column) and k block; none for a plan without scales. */
static void kernel_scale_buffers(void **state) {
  (void)state;
  tcmma_call c = mx_call("mxe4m3", "mxe4m3", 32, 16, 64);
  c.b.row0.value = 8; /* b stored n x k: 8 more columns of b before the tile */
  tcmma_plan p;
  assert_int_equal(tcmma_plan_call(&c, &p, NULL), TCMMA_OK);
  assert_int_equal(tcmma_kernel_scale_elems(&p, 3, TCMMA_OPERAND_A), 3 * 32 * 2);
  assert_int_equal(tcmma_kernel_scale_elems(&p, 1, TCMMA_OPERAND_B), 24 * 2);
  assert_int_equal(tcmma_kernel_scale_index(&p, TCMMA_OPERAND_A, 2, 5, 1), 2 * 64 + 5 * 2 + 1);
  assert_int_equal(tcmma_kernel_scale_index(&p, TCMMA_OPERAND_B, 0, 3, 0), (8 + 3) * 2);
  assert_int_equal(tcmma_kernel_scale_index(&p, TCMMA_OPERAND_B, 0, 16, 0), -1);
  assert_int_equal(tcmma_kernel_scale_index(&p, TCMMA_OPERAND_A, 0, 0, 2), -1);
  assert_int_equal(tcmma_kernel_scale_index(&p, TCMMA_OPERAND_C, 0, 0, 0), -1);
  tcmma_buf k = {0};
  assert_int_equal(tcmma_render_kernel(RCTX(&p, TCMMA_DIALECT_HOST, NULL, &k), NULL, NULL),
                   TCMMA_OK);
  assert_non_null(strstr(tcmma_buf_str(&k), "const unsigned char *sa, const unsigned char *sb)"));
  assert_non_null(strstr(tcmma_buf_str(&k), "(const unsigned char *)p[3], (const unsigned char *)p[4]"));
  assert_non_null(strstr(tcmma_buf_str(&k), "sa + __tcmma_k_r * 64"));
  tcmma_buf_free(&k);
  tcmma_call f = tcmma_call_default();
  f.m = 16, f.n = 8, f.k = 16;
  assert_int_equal(tcmma_plan_call(&f, &p, NULL), TCMMA_OK);
  assert_int_equal(tcmma_kernel_scale_elems(&p, 1, TCMMA_OPERAND_A), 0);
  assert_int_equal(tcmma_kernel_scale_index(&p, TCMMA_OPERAND_A, 0, 0, 0), -1);
}

/* ptxas (through NVRTC) takes the kernel on the 12.x arch-specific targets
 * and refuses it on sm_100a and sm_90: kind::mxf8f6f4 is 12.x only. */
static void family_targets_by_ptxas(void **state) {
  (void)state;
  tcmma_error err = {0};
  if (tcmma_nvrtc_load(NULL, &err) != TCMMA_OK) skip();
  tcmma_call c = mx_call("mxe4m3", "mxe5m2", 32, 16, 64);
  tcmma_plan p;
  assert_int_equal(tcmma_plan_call(&c, &p, NULL), TCMMA_OK);
  tcmma_buf src = {0};
  assert_int_equal(tcmma_render_kernel(RCTX(&p, TCMMA_DIALECT_CUDA, NULL, &src), NULL, &err),
                   TCMMA_OK);
  static const struct {
    int arch;
    char suffix;
    bool ok;
  } t[] = {{120, 'a', true}, {121, 'a', true}, {120, 'f', true}, {100, 'a', false},
           {90, 0, false}};
  for (size_t i = 0; i < sizeof t / sizeof t[0]; i++) {
    tcmma_compile_opts o = TCMMA_COMPILE_OPTS_INIT(.sass = true, .arch = t[i].arch,
                                                   .arch_suffix = t[i].suffix);
    tcmma_program prog;
    tcmma_status st = tcmma_compile(src.data, src.len, &o, &prog, &err);
    if (t[i].ok && (st != TCMMA_OK || !prog.cubin))
      fail_msg("sm_%d%c: %s\n%s", t[i].arch, t[i].suffix, err.message, prog.log ? prog.log : "");
    if (!t[i].ok && (st != TCMMA_COMPILE || !prog.log || !strstr(prog.log, "not supported")))
      fail_msg("sm_%d%c: expected ptxas to refuse block scaling, got %s: %s", t[i].arch,
               t[i].suffix ? t[i].suffix : ' ', tcmma_status_name(st), prog.log ? prog.log : "");
    if (t[i].ok && strstr(prog.log, "warning")) fail_msg("warnings:\n%s", prog.log);
    tcmma_program_free(&prog);
  }
  /* the floor target from the markers: the family target */
  tcmma_compile_opts floor = TCMMA_COMPILE_OPTS_INIT(.sass = true, .target = TCMMA_TARGET_FLOOR);
  tcmma_program prog;
  assert_int_equal(tcmma_compile(src.data, src.len, &floor, &prog, &err), TCMMA_OK);
  assert_string_equal(prog.target_arch, "sm_120f");
  assert_non_null(strstr(prog.ptx, ".target sm_120f"));
  tcmma_program_free(&prog);
  tcmma_buf_free(&src);
}

/* The matrix's mma-mxfp8 cases run on the simulator: each compares d with
 * a reference that applies the scales (tools/verify/data.c). */
static void matrix_cases_on_the_simulator(void **state) {
  (void)state;
  const verify_case *cs;
  size_t n = verify_matrix(&cs), ran = 0;
  for (size_t i = 0; i < n && ran < 4; i++) {
    if (cs[i].expect != TCMMA_DECLINE_NONE || cs[i].expect_arm != TCMMA_ARM_MMA_MXFP8) continue;
    verify_case_result r;
    verify_exec_sim(&cs[i], &r);
    if (r.outcome != VERIFY_CASE_PASSED) fail_msg("%s: %s", cs[i].name, r.reason);
    ran++;
  }
  assert_int_equal(ran, 4);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(scale_operands_and_their_rules),
      cmocka_unit_test(scale_registers_and_selectors_in_the_text),
      cmocka_unit_test(kernel_scale_buffers),
      cmocka_unit_test(family_targets_by_ptxas),
      cmocka_unit_test(matrix_cases_on_the_simulator),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
