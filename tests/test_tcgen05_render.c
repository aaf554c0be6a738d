/* The tcgen05 pieces (tcmma_tcgen05_render, tcmma_render_tcgen05_helpers,
 * tcmma_render_tcgen05_ldst, docs/tcgen05.md) in a one-block kernel
 * (tests/util_tcgen05_kernel.c) through tcmma's own NVRTC API: a CUBIN for the
 * target the (tcgen05-*) marker asks for (compute_100f, kind::i8
 * compute_100a) with no warnings, and a PTX census of one tcgen05.mma per k
 * step, one alloc, relinquish, commit and dealloc; at explicit targets, a
 * CUBIN at sm_100a and sm_103a (the family rows sm_103f) and none at sm_90a
 * or sm_120f. Then the text, the host
 * dialect and the declines. Skipped (never passed) without NVRTC. */
#include "util.h"
#include <stddef.h>
#include <stdio.h>
#include <string.h>
#include "tcmma/tcmma.h"

typedef struct {
  const char *arm, *a, *b;
  int m, n, k;
  bool b_n_major, a_tmem;
  tcmma_swizzle sw;
  const char *target; /* the option the marker picks */
} render_case;

static const render_case cases[] = {
    {"tcgen05-bf16", "bf16", "bf16", 128, 128, 64, false, false, TCMMA_SWIZZLE_B128, "compute_100f"},
    {"tcgen05-f16", "f16", "f16", 64, 64, 32, true, false, TCMMA_SWIZZLE_B128, "compute_100f"},
    {"tcgen05-f16-acc16", "f16", "f16", 128, 32, 16, false, false, TCMMA_SWIZZLE_B64, "compute_100f"},
    {"tcgen05-tf32", "f32", "f32", 128, 256, 16, false, false, TCMMA_SWIZZLE_B128, "compute_100f"},
    {"tcgen05-f8f6f4", "e4m3", "e5m2", 64, 16, 32, false, false, TCMMA_SWIZZLE_B32, "compute_100f"},
    {"tcgen05-i8", "s8", "u8", 128, 48, 64, false, false, TCMMA_SWIZZLE_B128, "compute_100a"},
    {"tcgen05-mxf8f6f4", "mxe4m3", "mxe5m2", 128, 64, 32, false, false, TCMMA_SWIZZLE_B128,
     "compute_100f"},
    {"tcgen05-bf16", "bf16", "bf16", 128, 64, 32, false, true, TCMMA_SWIZZLE_B128, "compute_100f"},
    {"tcgen05-i8", "s8", "s8", 64, 8, 32, false, true, TCMMA_SWIZZLE_B64, "compute_100a"},
    {"tcgen05-mxf8f6f4", "mxe5m2", "mxe5m2", 128, 16, 32, false, true, TCMMA_SWIZZLE_B32,
     "compute_100f"},
    /* packed fp4, several k steps (the scales' ids and addresses advance) */
    {"tcgen05-mxf4", "mxf4", "mxf4", 128, 64, 128, false, false, TCMMA_SWIZZLE_B128,
     "compute_100f"},
    {"tcgen05-nvf4", "nvf4", "nvf4", 128, 144, 256, false, false, TCMMA_SWIZZLE_B128,
     "compute_100f"},
    {"tcgen05-mxf8f6f4", "mxe4m3", "mxe4m3", 128, 32, 128, false, false, TCMMA_SWIZZLE_B128,
     "compute_100f"},
};

static tcmma_operand_desc operand(const char *prec, bool transposed, tcmma_swizzle sw) {
  tcmma_operand_desc d;
  memset(&d, 0, sizeof d);
  assert_int_equal(tcmma_prec_parse(prec, &d.prec, NULL), TCMMA_OK);
  d.transposed = transposed, d.space = TCMMA_SPACE_SHARED, d.swizzle = sw;
  return d;
}

static tcmma_tcgen05_call call_of(const render_case *c) {
  tcmma_tcgen05_call call = TCMMA_TCGEN05_CALL_INIT(.m = c->m, .n = c->n, .k = c->k,
                                                   .a_tmem = c->a_tmem);
  assert_int_equal(tcmma_tcgen05_parse(c->arm, &call.arm, NULL), TCMMA_OK);
  call.a = operand(c->a, false, c->sw);
  call.b = operand(c->b, !c->b_n_major, c->sw);
  return call;
}

static bool have_nvrtc(void) {
  tcmma_error err = {0};
  return tcmma_nvrtc_load(NULL, &err) == TCMMA_OK;
}

/* The same kernel at explicit targets: a CUBIN at sm_100a and sm_103a (the
 * family rows also at sm_103f; kind::i8 not), none at sm_90a or sm_120f. */
static void at_explicit_targets(const render_case *c, const tcmma_buf *src) {
  bool i8 = strcmp(c->arm, "tcgen05-i8") == 0;
  const struct {
    int arch;
    char suffix;
    bool ok;
  } targets[] = {{100, 'a', true}, {103, 'a', !i8}, {103, 'f', !i8}, {90, 'a', false},
                 {120, 'f', false}};
  for (size_t t = 0; t < sizeof targets / sizeof targets[0]; t++) {
    tcmma_compile_opts o = TCMMA_COMPILE_OPTS_INIT(.sass = true, .arch = targets[t].arch,
                                                   .arch_suffix = targets[t].suffix);
    tcmma_program prog;
    tcmma_error err = {0};
    tcmma_status st = tcmma_compile(src->data, src->len, &o, &prog, &err);
    if ((st == TCMMA_OK) != targets[t].ok)
      fail_msg("%s at sm_%d%c: %s, expected %s\n%s", c->arm, targets[t].arch, targets[t].suffix,
               tcmma_status_name(st), targets[t].ok ? "a CUBIN" : "a refusal", err.message);
    if (st == TCMMA_OK && strstr(prog.log, "warning"))
      fail_msg("%s at sm_%d%c: warnings:\n%s", c->arm, targets[t].arch, targets[t].suffix, prog.log);
    tcmma_program_free(&prog);
  }
}

static void compiles_for_sm_100(void **state) {
  const render_case *c = *state;
  if (!have_nvrtc()) skip();
  tcmma_tcgen05_call call = call_of(c);
  tcmma_buf src = {0};
  tcgen05_kernel(&call, &src);
  tcmma_compile_opts o = TCMMA_COMPILE_OPTS_INIT(.sass = true, .target = TCMMA_TARGET_FLOOR);
  tcmma_program prog;
  tcmma_error err = {0};
  if (tcmma_compile(src.data, src.len, &o, &prog, &err) != TCMMA_OK)
    fail_msg("%s: compile: %s\n%s\n%s", c->arm, err.message, prog.log ? prog.log : "", src.data);
  assert_non_null(prog.cubin);
  if (strstr(prog.log, "warning")) fail_msg("%s: warnings:\n%s\n%s", c->arm, prog.log, src.data);
  bool target = false;
  /* compute_100f, or the SASS target sm_100f */
  for (size_t j = 0; j < prog.n_options; j++)
    target = target || strstr(prog.options[j], c->target + strlen("compute_"));
  if (!target)
    for (size_t j = 0; j < prog.n_options; j++) print_message("option: %s\n", prog.options[j]);
  if (!target) fail_msg("%s: not compiled for %s", c->arm, c->target);
  tcmma_ptx_info pi;
  assert_int_equal(tcmma_ptx_parse(prog.ptx, prog.ptx_len, &pi, &err), TCMMA_OK);
  int steps = c->k / tcmma_tcgen05_get(call.arm)->k;
  assert_int_equal(tcmma_ptx_count(&pi, "tcgen05.mma"), (size_t)steps);
  assert_int_equal(tcmma_ptx_count(&pi, "tcgen05.alloc"), 1);
  assert_int_equal(tcmma_ptx_count(&pi, "tcgen05.relinquish_alloc_permit"), 1);
  assert_int_equal(tcmma_ptx_count(&pi, "tcgen05.dealloc"), 1);
  assert_int_equal(tcmma_ptx_count(&pi, "tcgen05.commit"), 1);
  assert_true(tcmma_ptx_count(&pi, "tcgen05.ld") >= 1);
  assert_true(tcmma_ptx_count(&pi, "tcgen05.wait::ld") >= 1);
  /* block-scaled: the scales copied by tcgen05.cp.32x128b.warpx4 (a loop) */
  if (tcmma_tcgen05_get(call.arm)->block)
    assert_true(tcmma_ptx_count(&pi, "tcgen05.cp.cta_group::1.32x128b.warpx4") >= 1);
  else assert_int_equal(tcmma_ptx_count(&pi, "tcgen05.cp"), 0);
  assert_int_equal(tcmma_ptx_check_target(&pi, &err), TCMMA_OK);
  tcmma_ptx_info_free(&pi);
  tcmma_program_free(&prog);
  at_explicit_targets(c, &src);
  tcmma_buf_free(&src);
}

/* The text: the marker, the instruction descriptor and the operand
 * descriptors the plans give, the step advances, one thread's product. */
static void text_carries_marker_and_descriptors(void **state) {
  (void)state;
  tcmma_tcgen05_call call = call_of(&cases[0]);
  call.name = "tile_bf16";
  tcmma_buf src = {0};
  assert_int_equal(tcmma_tcgen05_render(&call, &src, NULL), TCMMA_OK);
  /* idesc: bf16 x bf16 -> f32, m 128, n 128 (Table 42); A K-major and B
   * K-major, 128-byte swizzle: SBO 1024, LBO 16, version 1, swizzle code 2;
   * a k step of 16 bf16 (32 bytes) adds 32 >> 4 to the start field */
  const char *want[] = {"(tcgen05-bf16)", "void tile_bf16(unsigned tcmma_d, const __nv_bfloat16 *tcmma_a",
                        "0x08200490u", "0x4000404000010000ull", "(unsigned long long)(tcmma_s * 2)",
                        "tcgen05.mma.cta_group::1.kind::f16 [%0], %1, %2, %3, p;",
                        "#include <cuda_bf16.h>", "ONE thread"};
  for (size_t i = 0; i < sizeof want / sizeof want[0]; i++)
    if (!strstr(src.data, want[i])) fail_msg("no '%s' in\n%s", want[i], src.data);
  tcmma_buf_free(&src);
  /* block-scaled, A in Tensor Memory: the scale addresses' bytes ORed into
   * the scale ids (A's at 29, B's at 4) */
  call = call_of(&cases[9]);
  assert_int_equal(tcmma_tcgen05_render(&call, &src, NULL), TCMMA_OK);
  const char *scaled[] = {"unsigned tcmma_a_tmem", "unsigned tcmma_sfa, unsigned tcmma_sfb",
                          "(tcmma_sfa >> 30) + (unsigned)tcmma_s * 1u",
                          "tcmma_ba % 4u << 29 | tcmma_bb % 4u << 4",
                          "(tcmma_sfa & 0x3FFFFFFFu) + tcmma_ba / 4u * 4u",
                          "\"r\"(tcmma_sfa_s), \"r\"(tcmma_sfb_s)",
                          "[%0], [%1], %2, %3, [%4], [%5], p;", "tcmma_a_tmem + tcmma_s * 8u",
                          "A (Tensor Memory, K-major)"};
  for (size_t i = 0; i < sizeof scaled / sizeof scaled[0]; i++)
    if (!strstr(src.data, scaled[i])) fail_msg("no '%s' in\n%s", scaled[i], src.data);
  tcmma_buf_free(&src);
}

static void helpers_and_loads(void **state) {
  (void)state;
  tcmma_buf cuda = {0}, host = {0};
  tcmma_error err;
  assert_int_equal(tcmma_render_tcgen05_helpers(TCMMA_DIALECT_CUDA, &cuda, NULL), TCMMA_OK);
  assert_int_equal(tcmma_render_tcgen05_ldst(TCMMA_DIALECT_CUDA, TCMMA_TCGEN05_LDST_32X32B, 4, false,
                                             &cuda, NULL), TCMMA_OK);
  assert_int_equal(tcmma_render_tcgen05_ldst(TCMMA_DIALECT_CUDA, TCMMA_TCGEN05_LDST_16X256B, 1, true,
                                             &cuda, NULL), TCMMA_OK);
  const char *want[] = {"#ifndef TCMMA_TCGEN05_HELPERS",
                        "tcgen05.alloc.cta_group::1.sync.aligned.shared::cta.b32 [%0], %1;",
                        "tcgen05.commit.cta_group::1.mbarrier::arrive::one.shared::cluster.b64 [%0];",
                        "void tcmma_tcgen05_ld_32x32b_x4(unsigned tcmma_taddr, unsigned (&tcmma_r)[4])",
                        "tcgen05.ld.sync.aligned.32x32b.x4.b32 {%0, %1, %2, %3}, [%4];",
                        "tcgen05.wait::ld.sync.aligned;", "#ifndef TCMMA_TCGEN05_ST_16X256B_X1",
                        "tcgen05.st.sync.aligned.16x256b.x1.b32 [%0], {%1, %2, %3, %4};"};
  for (size_t i = 0; i < sizeof want / sizeof want[0]; i++)
    if (!strstr(cuda.data, want[i])) fail_msg("no '%s' in\n%s", want[i], cuda.data);
  assert_int_equal(tcmma_render_tcgen05_helpers(TCMMA_DIALECT_HOST, &host, NULL), TCMMA_OK);
  assert_int_equal(tcmma_render_tcgen05_ldst(TCMMA_DIALECT_HOST, TCMMA_TCGEN05_LDST_32X32B, 2, false,
                                             &host, NULL), TCMMA_OK);
  const char *host_want[] = {
      ("tcmma_sim_tcgen05_alloc(\"tcgen05.alloc.cta_group::1.sync.aligned.shared::cta.b32\", "
       "tcmma_sim_cvta_shared(dst), ncols);"),
      "tcmma_sim_tcgen05_relinquish(\"tcgen05.relinquish_alloc_permit.cta_group::1.sync.aligned\");",
      "tcmma_sim_tcgen05_dealloc(\"tcgen05.dealloc.cta_group::1.sync.aligned.b32\", taddr, ncols);",
      "tcmma_sim_tcgen05_fence(\"tcgen05.fence::before_thread_sync\");",
      "tcmma_sim_tcgen05_ld(\"tcgen05.ld.sync.aligned.32x32b.x2.b32\", tcmma_r, tcmma_taddr);",
      "tcmma_sim_tcgen05_wait(\"tcgen05.wait::ld.sync.aligned\");",
      "unsigned tcmma_r[2]"};
  for (size_t i = 0; i < sizeof host_want / sizeof host_want[0]; i++)
    if (!strstr(host.data, host_want[i])) fail_msg("no '%s' in\n%s", host_want[i], host.data);
  assert_null(strstr(host.data, "asm"));
  assert_int_equal(tcmma_render_tcgen05_ldst(TCMMA_DIALECT_CUDA, TCMMA_TCGEN05_LDST_16X256B, 64, false,
                                             &cuda, &err), TCMMA_INVALID);
  assert_int_equal(tcmma_render_tcgen05_ldst(TCMMA_DIALECT_CUDA, TCMMA_TCGEN05_LDST_32X32B, 3, false,
                                             &cuda, &err), TCMMA_INVALID);
  assert_int_equal(tcmma_render_tcgen05_ldst((tcmma_dialect)5, TCMMA_TCGEN05_LDST_32X32B, 1, false,
                                             &cuda, &err), TCMMA_INVALID);
  assert_int_equal(tcmma_render_tcgen05_helpers((tcmma_dialect)5, &cuda, &err), TCMMA_INVALID);
  assert_int_equal(tcmma_render_tcgen05_helpers(TCMMA_DIALECT_CUDA, NULL, &err), TCMMA_INVALID);
  tcmma_buf_free(&cuda), tcmma_buf_free(&host);
}

static void declines_and_bad_calls(void **state) {
  (void)state;
  tcmma_buf src = {0};
  tcmma_error err;
  tcmma_tcgen05_call call = call_of(&cases[0]);
  call.k = 24;
  assert_int_equal(tcmma_tcgen05_render(&call, &src, &err), TCMMA_DECLINED);
  assert_non_null(strstr(err.message, "k 24"));
  call = call_of(&cases[6]);
  call.k = 48; /* block-scaled: whole k steps too */
  assert_int_equal(tcmma_tcgen05_render(&call, &src, &err), TCMMA_DECLINED);
  assert_non_null(strstr(err.message, "multiple of 32"));
  call = call_of(&cases[4]);
  call.k = 64; /* 64 e4m3 along a 32-byte row */
  assert_int_equal(tcmma_tcgen05_render(&call, &src, &err), TCMMA_DECLINED);
  assert_non_null(strstr(err.message, "does not fit one row"));
  call = call_of(&cases[4]);
  call.b.col0.value = 16; /* 16 + 32 e4m3 past the 32-byte row: the rule wgmma shares */
  assert_int_equal(tcmma_tcgen05_render(&call, &src, &err), TCMMA_DECLINED);
  assert_non_null(strstr(err.message, "k 32 from column 16 does not fit one row"));
  call = call_of(&cases[0]);
  call.m = 96;
  assert_int_equal(tcmma_tcgen05_render(&call, &src, &err), TCMMA_DECLINED);
  call = call_of(&cases[7]);
  call.a.transposed = true; /* an A in Tensor Memory is K-major */
  assert_int_equal(tcmma_tcgen05_render(&call, &src, &err), TCMMA_DECLINED);
  assert_non_null(strstr(err.message, "K-major"));
  call = call_of(&cases[4]);
  call.b.prec = TCMMA_PREC_E2M1; /* read in a padded form */
  assert_int_equal(tcmma_tcgen05_render(&call, &src, &err), TCMMA_DECLINED);
  assert_non_null(strstr(err.message, "padded form"));
  call = call_of(&cases[0]);
  call.a.prec = TCMMA_PREC_F16;
  assert_int_equal(tcmma_tcgen05_render(&call, &src, &err), TCMMA_DECLINED);
  call = call_of(&cases[0]);
  call.name = "1bad";
  assert_int_equal(tcmma_tcgen05_render(&call, &src, &err), TCMMA_INVALID);
  call.name = NULL, call.size = 8;
  assert_int_equal(tcmma_tcgen05_render(&call, &src, &err), TCMMA_INVALID);
  assert_int_equal(tcmma_tcgen05_render(NULL, &src, &err), TCMMA_INVALID);
  call = call_of(&cases[0]);
  assert_int_equal(tcmma_tcgen05_render(&call, NULL, &err), TCMMA_INVALID);
  call.arm = TCMMA_TCGEN05_COUNT;
  assert_int_equal(tcmma_tcgen05_render(&call, &src, &err), TCMMA_INVALID);
  call = call_of(&cases[0]);
  call.dialect = (tcmma_dialect)2;
  assert_int_equal(tcmma_tcgen05_render(&call, &src, &err), TCMMA_INVALID);
  assert_non_null(strstr(err.message, "dialect 2"));
  assert_int_equal(src.len, 0); /* nothing written by a failed render */
  tcmma_buf_free(&src);
}

/* The host dialect spells the same opcode as the simulator's call. */
static void host_dialect(void **state) {
  (void)state;
  const int picks[] = {0, 7, 6, 9};
  const char *fn[] = {"tcmma_sim_tcgen05_mma(", "tcmma_sim_tcgen05_mma_tmem_a(",
                      "tcmma_sim_tcgen05_mma_scaled(", "tcmma_sim_tcgen05_mma_scaled_tmem_a("};
  for (int p = 0; p < 4; p++) {
    tcmma_tcgen05_call call = call_of(&cases[picks[p]]);
    call.dialect = TCMMA_DIALECT_HOST;
    tcmma_buf host = {0};
    assert_int_equal(tcmma_tcgen05_render(&call, &host, NULL), TCMMA_OK);
    char want[160];
    snprintf(want, sizeof want, "%s\"%s\", tcmma_d, ", fn[p], tcmma_tcgen05_get(call.arm)->instr);
    if (!strstr(host.data, want)) fail_msg("no '%s' in\n%s", want, host.data);
    assert_non_null(strstr(host.data, "#include \"tcmma/sim.h\""));
    assert_non_null(strstr(host.data, "_Bool tcmma_accumulate"));
    assert_null(strstr(host.data, "asm"));
    tcmma_buf_free(&host);
  }
}

/* An M-major A of m 128 bf16 stored as 2 panels of 64 k rows of one
 * 128-byte span (the PTX ISA's LBO for MN-major swizzled layouts: from one
 * span-wide group of m to the next; mma/sim/umma_desc.c decodes it so): LBO
 * 64 x 128 = 8192 bytes, SBO 8 rows (1024), a k16 step 16 rows (2048), the
 * instruction descriptor's transpose-A bit (15) set; the call reads its
 * panels from a_panel_rows (a call whose size stops before them: one span,
 * declined), the call's k past a panel declines. */
static void m_major_a_in_panels(void **state) {
  (void)state;
  tcmma_tcgen05 bf16;
  assert_int_equal(tcmma_tcgen05_parse("tcgen05-bf16", &bf16, NULL), TCMMA_OK);
  tcmma_operand_desc a = operand("bf16", true, TCMMA_SWIZZLE_B128);
  a.ld = 64;
  tcmma_tcgen05_operand o;
  tcmma_error err = {0};
  if (tcmma_tcgen05_operand_plan_panels(bf16, TCMMA_OPERAND_A, 128, 256, &a, 64, &o, &err) !=
      TCMMA_OK)
    fail_msg("%s", err.message);
  long start, lbo, sbo;
  int base;
  tcmma_swizzle sw;
  assert_int_equal(tcmma_tcgen05_desc_decode(o.desc, &start, &lbo, &sbo, &base, &sw, NULL),
                   TCMMA_OK);
  assert_true(start == 0 && lbo == 64 * 128 && sbo == 8 * 128 && base == 0);
  assert_true(sw == TCMMA_SWIZZLE_B128 && o.trans && o.k_step_bytes == 16 * 128);
  assert_true(o.desc == 0x4000404002000000ull);
  /* one span only without panels; panels off the 8-row atom */
  assert_int_equal(tcmma_tcgen05_operand_plan(bf16, TCMMA_OPERAND_A, 128, 256, &a, &o, &err),
                   TCMMA_DECLINED);
  assert_true(o.reason == TCMMA_DECLINE_LAYOUT && strstr(o.message, "128 elements"));
  assert_int_equal(tcmma_tcgen05_operand_plan_panels(bf16, TCMMA_OPERAND_A, 128, 256, &a, 12, &o,
                                                     &err), TCMMA_DECLINED);
  assert_true(o.reason == TCMMA_DECLINE_LAYOUT && strstr(o.message, "panels of 12 rows"));
  tcmma_tcgen05_call c = TCMMA_TCGEN05_CALL_INIT(.arm = bf16, .m = 128, .n = 256, .k = 64, .a = a,
                                                 .b = operand("bf16", true, TCMMA_SWIZZLE_B128),
                                                 .a_panel_rows = 64);
  uint32_t kmajor;
  assert_int_equal(tcmma_tcgen05_idesc(bf16, 128, 256, TCMMA_PREC_BF16, TCMMA_PREC_BF16, false,
                                       false, &kmajor, NULL), TCMMA_OK);
  char id[32];
  snprintf(id, sizeof id, "0x%08xu", (unsigned)(kmajor | 1u << 15));
  tcmma_buf t = {0};
  if (tcmma_tcgen05_render(&c, &t, &err) != TCMMA_OK) fail_msg("%s", err.message);
  const char *want[] = {"A (M-major, 128-byte swizzle, panels of 64 rows)", id,
                        "0x4000404002000000ull", "(unsigned long long)(tcmma_s * 128)"};
  for (size_t i = 0; i < sizeof want / sizeof want[0]; i++)
    if (!strstr(tcmma_buf_str(&t), want[i])) fail_msg("no '%s' in\n%s", want[i], tcmma_buf_str(&t));
  tcmma_buf_free(&t);
  c.size = offsetof(tcmma_tcgen05_call, a_panel_rows);
  assert_int_equal(tcmma_tcgen05_render(&c, &t, &err), TCMMA_DECLINED);
  assert_non_null(strstr(err.message, "128 elements"));
  tcmma_buf_free(&t);
  c.size = sizeof c, c.k = 80;
  assert_int_equal(tcmma_tcgen05_render(&c, &t, &err), TCMMA_DECLINED);
  assert_non_null(strstr(err.message, "k 80 from row 0"));
  tcmma_buf_free(&t);
}

int main(void) {
  enum { N = sizeof cases / sizeof cases[0] };
  struct CMUnitTest tests[N + 5];
  static char names[N][80];
  for (size_t i = 0; i < N; i++) {
    snprintf(names[i], sizeof names[i], "%s/m%d/n%d/k%d/%s%s%s", cases[i].arm, cases[i].m,
             cases[i].n, cases[i].k, tcmma_swizzle_name(cases[i].sw),
             cases[i].b_n_major ? "/b=n-major" : "", cases[i].a_tmem ? "/a=tmem" : "");
    tests[i] = (struct CMUnitTest){names[i], compiles_for_sm_100, NULL, NULL, (void *)&cases[i]};
  }
  tests[N] = (struct CMUnitTest)cmocka_unit_test(text_carries_marker_and_descriptors);
  tests[N + 1] = (struct CMUnitTest)cmocka_unit_test(helpers_and_loads);
  tests[N + 2] = (struct CMUnitTest)cmocka_unit_test(declines_and_bad_calls);
  tests[N + 3] = (struct CMUnitTest)cmocka_unit_test(host_dialect);
  tests[N + 4] = (struct CMUnitTest)cmocka_unit_test(m_major_a_in_panels);
  return cmocka_run_group_tests(tests, NULL, NULL);
}
