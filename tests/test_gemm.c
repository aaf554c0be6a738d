/* GEMM kernels (include/tcmma/gemm.h): the plan's figures and declines,
 * the rendered text, and every case of the GEMM matrix run on the block
 * simulator (integers bit for bit, reals within the bound), plus the
 * simulator catching a broken pipeline (a barrier or a wait removed). */
#include "util.h"
#include <dlfcn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "tcmma/tcmma.h"
#include "tcmma/sim.h"
#include "tools/verify/gemm.h"
#include "tools/verify/sim.h"

typedef void (*any_fn)(void);
extern const any_fn verify_sim_keep[];

static void default_plan_figures(void **s) {
  (void)s;
  tcmma_gemm_call c = tcmma_gemm_call_default();
  c.m = 4096, c.n = 4096, c.k = 4096, c.cc = 90;
  tcmma_gemm_plan p;
  tcmma_error err = {0};
  assert_int_equal(tcmma_gemm_plan_call(&c, &p, &err), TCMMA_OK);
  assert_true(p.accepted);
  assert_string_equal(tcmma_arm_marker(p.arm), "mma-bf16");
  assert_int_equal(p.threads, 128);
  assert_int_equal(p.grid[0], 32);
  assert_int_equal(p.grid[1], 32);
  assert_int_equal(p.k_tiles, 128);
  assert_false(p.predicated);
  /* a stage: 128x32 + 32x128 bf16; the epilogue: 128 rows of 136 floats */
  assert_int_equal(p.stage_bytes, 16384);
  assert_int_equal(p.epilogue_bytes, 128 * 136 * 4);
  assert_int_equal(p.shared_bytes, 128 * 136 * 4);
  assert_int_equal(p.shared_max, 232448);
  /* a 64x64 warp tile: 128 accumulator registers, 32 per k step of fragments */
  assert_int_equal(p.census.registers, 160);
  /* plus 2 k steps and 8 copies per thread per k tile; B k x n in the
   * ring's unrolled steady state */
  assert_int_equal(p.registers, 160 + TCMMA_GEMM_REGISTER_OVERHEAD +
                                    2 * TCMMA_GEMM_REGISTERS_PER_K_STEP +
                                    8 * TCMMA_GEMM_REGISTERS_PER_COPY +
                                    TCMMA_GEMM_REGISTERS_K_ROWS_UNROLLED);
  assert_true(p.registers <= TCMMA_GEMM_REGISTERS);
  assert_int_equal(p.mma_per_k_tile, 4 * 8 * 2);
  assert_int_equal(p.ldmatrix_per_k_tile, (4 + 4) * 2);
  assert_int_equal(p.cp_async_per_k_tile, 1024 / 128);
  assert_int_equal(p.a_swizzle, TCMMA_SWIZZLE_B64);  /* 64-byte rows */
  assert_int_equal(p.b_swizzle, TCMMA_SWIZZLE_B128); /* 256-byte rows */
  /* 8 k steps of a 64x64 warp tile do not fit 255 registers (ptxas spills) */
  c.block_k = 128;
  assert_int_equal(tcmma_gemm_plan_call(&c, &p, &err), TCMMA_DECLINED);
  assert_int_equal(p.reason, TCMMA_GEMM_DECLINE_REGISTERS);
}

/* The defaults that depend on the arm (include/tcmma/gemm.h): a call that
 * leaves the tile and warp grid to the plan is accepted for every 1-byte
 * and packed precision, with block_k two of the arm's k steps and the byte
 * operands' 4x2 grid; bf16 keeps 128x128x32 over 2x2; a small block tile
 * and fields the caller gave stay as given. */
static void arm_defaults(void **s) {
  (void)s;
  static const struct { tcmma_prec a; int cc, block_k, warps_m; const char *arm; } rows[] = {
      {TCMMA_PREC_BF16, 90, 32, 2, "mma-bf16"},   {TCMMA_PREC_E4M3, 89, 64, 4, "mma-fp8"},
      {TCMMA_PREC_MXE4M3, 120, 64, 4, "mma-mxfp8"}, {TCMMA_PREC_MXF4, 120, 128, 4, "mma-mxf4"},
      {TCMMA_PREC_NVF4, 120, 128, 4, "mma-nvf4"},
  };
  for (size_t i = 0; i < sizeof rows / sizeof rows[0]; i++) {
    tcmma_gemm_call c = tcmma_gemm_call_default();
    c.m = c.n = c.k = 4096, c.cc = rows[i].cc;
    c.d.prec = TCMMA_PREC_F32, c.a.prec = c.b.prec = rows[i].a, c.b.transposed = true;
    tcmma_gemm_plan p;
    tcmma_error err = {0};
    assert_int_equal(tcmma_gemm_plan_opts(&c, NULL, &p, NULL, &err), TCMMA_OK);
    assert_string_equal(tcmma_arm_marker(p.arm), rows[i].arm);
    assert_int_equal(p.call.block_k, rows[i].block_k);
    assert_int_equal(p.call.block_k, 2 * tcmma_arm_get(p.arm)->k > 32
                                         ? 2 * tcmma_arm_get(p.arm)->k : 32);
    assert_int_equal(p.call.warps_m, rows[i].warps_m);
    assert_int_equal(p.call.warps_n, 2);
    /* given fields are kept: a 64x64 block keeps 2x2, a given block_k stays */
    c.block_m = c.block_n = 64;
    assert_int_equal(tcmma_gemm_plan_opts(&c, NULL, &p, NULL, &err), TCMMA_OK);
    assert_int_equal(p.call.warps_m, 2);
    c.block_m = c.block_n = 0, c.warps_m = 2, c.warps_n = 2, c.block_k = 2 * rows[i].block_k;
    tcmma_gemm_plan_opts(&c, NULL, &p, NULL, &err);
    assert_int_equal(p.call.warps_m, 2);
    assert_int_equal(p.call.block_k, 2 * rows[i].block_k);
  }
}

/* Issue #22: a device below the loader's floor (cp.async, tables/markers.def)
 * declines `arch` naming both ccs, whatever the arm's own floor; an omitted
 * cc plans for devices that run both. A budget decline cites the GEMM's
 * default budget, not the one-warp emitter's. */
static void arch_and_budget_declines(void **s) {
  (void)s;
  tcmma_gemm_call c = tcmma_gemm_call_default();
  c.m = c.n = c.k = 64, c.block_m = c.block_n = 64;
  c.a.prec = c.b.prec = TCMMA_PREC_F16, c.b.transposed = true;
  c.cc = 75; /* Turing: the plain-load loader, no cp.async */
  tcmma_gemm_plan p;
  tcmma_gemm_info info = {.size = sizeof info};
  tcmma_error err = {0};
  assert_int_equal(tcmma_gemm_plan_opts(&c, NULL, &p, &info, &err), TCMMA_OK);
  assert_true(info.a_plain && info.b_plain);
  assert_int_equal(p.cp_async_per_k_tile, 0);
  tcmma_buf text = {0};
  assert_int_equal(tcmma_render_gemm(RCTX(NULL, TCMMA_DIALECT_CUDA, NULL, &text), &p, &err),
                   TCMMA_OK);
  assert_null(strstr(tcmma_buf_str(&text), "cp.async"));
  assert_non_null(strstr(tcmma_buf_str(&text), "(mma-f16-k8)"));
  tcmma_buf_free(&text);
  c.cc = 70, c.arm = "mma-f16-k8"; /* below the arm and ldmatrix */
  assert_int_equal(tcmma_gemm_plan_call(&c, &p, &err), TCMMA_DECLINED);
  assert_int_equal(p.reason, TCMMA_GEMM_DECLINE_ARCH);
  char want[64];
  snprintf(want, sizeof want, "needs cc %d", TCMMA_PTX_MIN_SM(LDMATRIX));
  assert_non_null(strstr(p.message, "cc 70")), assert_non_null(strstr(p.message, want));
  assert_string_equal(tcmma_gemm_decline_name(TCMMA_GEMM_DECLINE_ARCH), "arch");
  c.cc = 0, c.arm = "mma-f16-k8"; /* Turing's arm on any device: those that copy */
  assert_int_equal(tcmma_gemm_plan_call(&c, &p, &err), TCMMA_OK);
  assert_int_equal(p.shared_max,
                   tcmma_shared_memory_max(0, tcmma_marker_floor(TCMMA_MARKER_CP_ASYNC)));
  c = tcmma_gemm_call_default();
  c.registers = 128;
  assert_int_equal(tcmma_gemm_plan_call(&c, &p, &err), TCMMA_DECLINED);
  assert_int_equal(p.reason, TCMMA_GEMM_DECLINE_REGISTERS);
  snprintf(want, sizeof want, "default %d)", TCMMA_GEMM_REGISTERS);
  assert_non_null(strstr(p.message, want));
  c = tcmma_gemm_call_default();
  c.m = 256, c.block_m = 256; /* a 128x64 warp tile: its accumulator alone is too big */
  assert_int_equal(tcmma_gemm_plan_call(&c, &p, &err), TCMMA_DECLINED);
  assert_int_equal(p.reason, TCMMA_GEMM_DECLINE_WARP_TILE);
  assert_non_null(strstr(p.message, want));
  snprintf(want, sizeof want, "default %d", TCMMA_REGISTERS_DEFAULT);
  assert_null(strstr(p.message, want));
}

static void shared_memory_table(void **s) {
  (void)s;
  assert_int_equal(tcmma_shared_memory_max(80, 0), 166912);
  assert_int_equal(tcmma_shared_memory_max(86, 0), 101376);
  assert_int_equal(tcmma_shared_memory_max(90, 0), 232448);
  assert_int_equal(tcmma_shared_memory_max(100, 0), 232448);
  assert_int_equal(tcmma_shared_memory_max(120, 0), 101376);
  assert_int_equal(tcmma_shared_memory_max(60, 0), 0);
  /* any device from 80 on: the least of 80, 86, 87, 89, 90, 120 */
  assert_int_equal(tcmma_shared_memory_max(0, 80), 101376);
  assert_int_equal(tcmma_shared_memory_max(0, 90), 101376);
}

static void bad_input(void **s) {
  (void)s;
  tcmma_gemm_plan p;
  tcmma_error err = {0};
  assert_int_equal(tcmma_gemm_plan_call(NULL, &p, &err), TCMMA_INVALID);
  tcmma_gemm_call c = tcmma_gemm_call_default();
  c.a.prec = (tcmma_prec)99;
  assert_int_equal(tcmma_gemm_plan_call(&c, &p, &err), TCMMA_INVALID);
  c = tcmma_gemm_call_default();
  c.name = "not an identifier";
  assert_int_equal(tcmma_gemm_plan_call(&c, &p, &err), TCMMA_DECLINED);
  assert_int_equal(p.reason, TCMMA_GEMM_DECLINE_CALL);
  assert_non_null(strstr(err.message, "not an identifier"));
  tcmma_buf out = {0};
  assert_int_equal(tcmma_render_gemm(RCTX(NULL, TCMMA_DIALECT_CUDA, NULL, &out), &p, &err),
                   TCMMA_INVALID);
  tcmma_buf_free(&out);
  /* a warp grid whose product overflows an int is out of range, not a tile */
  c = tcmma_gemm_call_default();
  c.warps_m = c.warps_n = 65536;
  assert_int_equal(tcmma_gemm_plan_call(&c, &p, &err), TCMMA_DECLINED);
  assert_int_equal(p.reason, TCMMA_GEMM_DECLINE_CALL);
  assert_non_null(strstr(p.message, "warp grid 65536x65536"));
}

/* A forced arm must serve the caller's whole triple, d's storage included:
 * the epilogue converts the f32 accumulator to d with the words of d's
 * precision, which fp8 and integer storage do not have. */
static void forced_arm_serves_the_triple(void **s) {
  (void)s;
  static const struct { tcmma_prec d, ab; bool bt; const char *arm; int cc; } rows[] = {
      {TCMMA_PREC_E4M3, TCMMA_PREC_E4M3, true, "mma-fp8", 89},
      {TCMMA_PREC_E5M2, TCMMA_PREC_E4M3, true, "mma-fp8", 89},
      {TCMMA_PREC_S32, TCMMA_PREC_F16, false, "mma-f16", 80},
      {TCMMA_PREC_F64, TCMMA_PREC_F16, false, "mma-f16", 80},
  };
  for (size_t i = 0; i < sizeof rows / sizeof rows[0]; i++) {
    tcmma_gemm_call c = tcmma_gemm_call_default();
    c.m = c.n = c.k = 64, c.block_m = c.block_n = 64, c.block_k = 64;
    c.d.prec = rows[i].d, c.a.prec = c.b.prec = rows[i].ab, c.b.transposed = rows[i].bt;
    c.arm = rows[i].arm, c.cc = rows[i].cc;
    tcmma_gemm_plan p;
    tcmma_error err = {0};
    assert_int_equal(tcmma_gemm_plan_call(&c, &p, &err), TCMMA_DECLINED);
    assert_int_equal(p.reason, TCMMA_GEMM_DECLINE_ARM);
    char want[96];
    snprintf(want, sizeof want, "arm %s is not on the preference list of %s = %s x %s",
             rows[i].arm, tcmma_prec_name(rows[i].d), tcmma_prec_name(rows[i].ab),
             tcmma_prec_name(rows[i].ab));
    if (!strstr(p.message, want)) fail_msg("expected '%s' in: %s", want, p.message);
  }
  /* the arm that serves the triple is still taken when forced */
  tcmma_gemm_call c = tcmma_gemm_call_default();
  c.d.prec = TCMMA_PREC_BF16, c.arm = "mma-bf16", c.cc = 80;
  tcmma_gemm_plan p;
  assert_int_equal(tcmma_gemm_plan_call(&c, &p, NULL), TCMMA_OK);
  assert_string_equal(tcmma_arm_marker(p.arm), "mma-bf16");
}

/* The grid a plan reports must launch: CUDA allows 65535 blocks in grid y
 * (the rows of blocks), and the kernel numbers its blocks with an int. */
static void grid_within_launch_limits(void **s) {
  (void)s;
  tcmma_gemm_call c = tcmma_gemm_call_default();
  c.m = TCMMA_GEMM_EXTENT_MAX, c.n = 64, c.k = 32, c.cc = 80;
  c.block_m = 16, c.block_n = 64, c.block_k = 32, c.warps_m = c.warps_n = 1;
  tcmma_gemm_plan p;
  tcmma_error err = {0};
  assert_int_equal(tcmma_gemm_plan_call(&c, &p, &err), TCMMA_DECLINED);
  assert_int_equal(p.reason, TCMMA_GEMM_DECLINE_CALL);
  if (!strstr(p.message, "65536 rows of blocks") || !strstr(p.message, "65535"))
    fail_msg("expected the rows of blocks and the limit in: %s", p.message);
  c.m = TCMMA_GEMM_GRID_Y_MAX * 16; /* the most rows of blocks */
  assert_int_equal(tcmma_gemm_plan_call(&c, &p, &err), TCMMA_OK);
  assert_int_equal(p.grid[1], TCMMA_GEMM_GRID_Y_MAX);
  /* 131072 x 65535 blocks: their index would wrap an int */
  c.n = TCMMA_GEMM_EXTENT_MAX, c.block_n = 8;
  assert_int_equal(tcmma_gemm_plan_call(&c, &p, &err), TCMMA_DECLINED);
  assert_int_equal(p.reason, TCMMA_GEMM_DECLINE_CALL);
  if (!strstr(p.message, "131072x65535 blocks"))
    fail_msg("expected the grid in: %s", p.message);
}

/* Every decline case declines with its reason; every accepted case renders
 * CUDA text that carries its markers and the ring's waits. */
static void matrix_plans_and_text(void **s) {
  (void)s;
  const verify_gemm_case *cs;
  size_t n = verify_gemm_matrix(&cs);
  bool seen[TCMMA_GEMM_DECLINE_COUNT] = {false};
  for (size_t i = 0; i < n; i++) {
    tcmma_gemm_plan p;
    verify_case_result r = {0};
    if (!verify_gemm_case_plan(&cs[i], &p, &r)) {
      if (r.outcome != VERIFY_CASE_PASSED) fail_msg("%s: %s", cs[i].name, r.reason);
      seen[p.reason] = true;
      continue;
    }
    tcmma_buf out = {0};
    tcmma_error err = {0};
    tcmma_gemm_info info = {.size = sizeof info};
    tcmma_gemm_opts o = verify_gemm_case_opts(&cs[i]);
    assert_int_equal(tcmma_gemm_plan_opts(&cs[i].call, &o, &p, &info, &err), TCMMA_OK);
    assert_int_equal(tcmma_render_gemm_opts(RCTX(NULL, TCMMA_DIALECT_CUDA, NULL, &out), &p, &o,
                                            &err),
                     TCMMA_OK);
    const char *t = tcmma_buf_str(&out);
    char want[64];
    if (info.kernel != TCMMA_GEMM_KERNEL_MMA_SYNC) { /* their own text: tests/test_gemm_wgmma.c,
                                                        test_gemm_tcgen05.c */
      tcmma_buf_free(&out);
      continue;
    }
    snprintf(want, sizeof want, "(%s)", tcmma_arm_marker(p.arm));
    if (!strstr(t, want)) fail_msg("%s: no arm marker %s", cs[i].name, want);
    /* cp.async, its marker and the ring's waits exactly where a copy is one */
    bool async = !info.a_plain || !info.b_plain;
    if (async != (strstr(t, "(cp.async.)") != NULL))
      fail_msg("%s: cp.async copies %d but the marker disagrees", cs[i].name, async);
    snprintf(want, sizeof want, "cp.async.wait_group %d;", p.call.stages > 1 ? p.call.stages - 2 : 0);
    if (async != (strstr(t, want) != NULL)) fail_msg("%s: '%s' where copies are %s", cs[i].name,
                                                     want, async ? "cp.async" : "plain");
    /* the zero-filling form only on the edge path of a cp.async operand */
    bool zfill = (info.a_edge && !info.a_plain) || (info.b_edge && !info.b_plain) ||
                 info.scale_copy_bytes >= 4; /* block scales: every copy zero-fills */
    if (zfill != (strstr(t, ", %2;") != NULL))
      fail_msg("%s: predicated %d but the copies disagree", cs[i].name, p.predicated);
    if (info.shape_args != (strstr(t, "int m, int n") && strstr(t, "int lda,") != NULL))
      fail_msg("%s: shape arguments %d but the signature disagrees", cs[i].name, info.shape_args);
    tcmma_buf_free(&out);
  }
  for (int d = 1; d < TCMMA_GEMM_DECLINE_COUNT; d++)
    if (!seen[d]) fail_msg("no case declines with %s", tcmma_gemm_decline_name((tcmma_gemm_decline)d));
}

/* The entry of host text compiled into a shared object (*handle). */
static void *open_entry(const char *text, void **handle) {
  *handle = host_module_open(text);
  return *handle ? dlsym(*handle, "tcmma_kernel_entry") : NULL;
}

static void render_host(const tcmma_gemm_plan *p, const tcmma_gemm_opts *o, tcmma_buf *out) {
  tcmma_error err = {0};
  if (tcmma_render_gemm_opts(RCTX(NULL, TCMMA_DIALECT_HOST, NULL, out), p, o,
                             &err) != TCMMA_OK) fail_msg("%s", err.message);
}

static void matrix_runs_on_the_simulator(void **s) {
  (void)s;
  assert_non_null(verify_sim_keep);
  const verify_gemm_case *cs;
  size_t n = verify_gemm_matrix(&cs), ran = 0;
  for (size_t i = 0; i < n; i++) {
    tcmma_gemm_plan p;
    verify_case_result r = {0};
    if (!verify_gemm_case_plan(&cs[i], &p, &r)) continue;
    tcmma_buf text = {0};
    tcmma_gemm_opts o = verify_gemm_case_opts(&cs[i]);
    render_host(&p, &o, &text);
    void *h;
    void *sym = open_entry(tcmma_buf_str(&text), &h);
    if (!sym) fail_msg("%s: host text does not compile:\n%s", cs[i].name, tcmma_buf_str(&text));
    sim_entry entry;
    memcpy(&entry, &sym, sizeof sym);
    if (!verify_gemm_case_run(&cs[i], &p, verify_gemm_sim_runner, &entry, &r))
      fail_msg("%s: %s", cs[i].name, r.reason);
    printf("passed %s\n", cs[i].name);
    dlclose(h);
    tcmma_buf_free(&text);
    ran++;
  }
  assert_true(ran >= 8);
}

/* The runner of tests that keep what the kernel wrote: the simulator's,
 * then d's bytes copied out. */
typedef struct {
  sim_entry entry;
  unsigned char *d;
  size_t bytes;
} keeping_runner;

static bool keep_run(void *ctx, const tcmma_gemm_plan *p, const tcmma_gemm_opts *o,
                     void *const bufs[4], const verify_gemm_extras *x, float alpha, float beta,
                     char *why, size_t cap) {
  keeping_runner *k = ctx;
  if (!verify_gemm_sim_runner(&k->entry, p, o, bufs, x, alpha, beta, why, cap)) return false;
  memcpy(k->d, bufs[0], k->bytes);
  return true;
}

/* The host module of plan p with opts o, its entry into *entry. */
static void *host_kernel(const tcmma_gemm_plan *p, const tcmma_gemm_opts *o, sim_entry *entry) {
  tcmma_buf text = {0};
  render_host(p, o, &text);
  void *h;
  void *sym = open_entry(tcmma_buf_str(&text), &h);
  if (!sym) fail_msg("host text does not compile:\n%s", tcmma_buf_str(&text));
  memcpy(entry, &sym, sizeof sym);
  tcmma_buf_free(&text);
  return h;
}

/* A dense bf16 GEMM whose rows are not whole 16-byte units (K = 65): its
 * fixed-shape kernel and its shape-argument kernel both match the
 * reference and write the very same bits (issue #22). */
static void fixed_and_shape_args_agree(void **s) {
  (void)s;
  verify_gemm_case cs[2];
  memset(cs, 0, sizeof cs);
  tcmma_gemm_plan p[2];
  unsigned char *d[2];
  size_t bytes = (size_t)127 * 129 * 4;
  for (int i = 0; i < 2; i++) {
    snprintf(cs[i].name, sizeof cs[i].name, "gemm/agree/127x129x65"); /* one seed: one data */
    cs[i].call = tcmma_gemm_call_default();
    cs[i].call.m = 127, cs[i].call.n = 129, cs[i].call.k = 65;
    cs[i].call.block_m = cs[i].call.block_n = 64, cs[i].call.name = "tcmma_kernel";
    cs[i].opts = tcmma_gemm_opts_default();
    cs[i].opts.shape_args = i == 1;
    cs[i].alpha = 1.5, cs[i].beta = -0.5;
    tcmma_error err = {0};
    assert_int_equal(tcmma_gemm_plan_opts(&cs[i].call, &cs[i].opts, &p[i], NULL, &err), TCMMA_OK);
    keeping_runner k = {.d = d[i] = malloc(bytes), .bytes = bytes};
    assert_non_null(k.d);
    void *h = host_kernel(&p[i], &cs[i].opts, &k.entry);
    verify_case_result r = {0};
    if (!verify_gemm_case_run(&cs[i], &p[i], keep_run, &k, &r)) fail_msg("%s: %s", cs[i].name, r.reason);
    dlclose(h);
  }
  assert_memory_equal(d[0], d[1], bytes);
  free(d[0]), free(d[1]);
}

/* One shape-argument kernel, rendered once, serves every shape its plan
 * declares (any m, n, k; dense ld's of its classes): each matches the
 * reference. */
static void shape_args_kernel_serves_every_shape(void **s) {
  (void)s;
  tcmma_gemm_call c = tcmma_gemm_call_default();
  c.block_m = c.block_n = 64, c.name = "tcmma_kernel";
  tcmma_gemm_opts o = tcmma_gemm_opts_default();
  o.shape_args = true, o.a_align = o.b_align = 2, o.d_align = 4;
  tcmma_gemm_plan p;
  tcmma_gemm_info info = {.size = sizeof info};
  tcmma_error err = {0};
  assert_int_equal(tcmma_gemm_plan_opts(&c, &o, &p, &info, &err), TCMMA_OK);
  assert_int_equal(info.m_multiple, 1), assert_int_equal(info.k_multiple, 1);
  assert_true(info.a_plain && info.b_plain && info.a_edge && info.b_edge);
  sim_entry entry;
  void *h = host_kernel(&p, &o, &entry);
  static const int shapes[][3] = {{127, 129, 65}, {1, 1, 1}, {64, 64, 32}, {200, 72, 97}};
  for (size_t i = 0; i < sizeof shapes / sizeof shapes[0]; i++) {
    verify_gemm_case cs;
    memset(&cs, 0, sizeof cs);
    cs.call = c, cs.opts = o, cs.alpha = 1, cs.beta = 1;
    cs.call.m = shapes[i][0], cs.call.n = shapes[i][1], cs.call.k = shapes[i][2];
    snprintf(cs.name, sizeof cs.name, "gemm/serves/%dx%dx%d", cs.call.m, cs.call.n, cs.call.k);
    tcmma_gemm_plan q; /* this shape's grid; the kernel is p's */
    assert_int_equal(tcmma_gemm_plan_opts(&cs.call, &o, &q, NULL, &err), TCMMA_OK);
    verify_case_result r = {0};
    if (!verify_gemm_case_run(&cs, &q, verify_gemm_sim_runner, &entry, &r))
      fail_msg("%s: %s", cs.name, r.reason);
  }
  dlclose(h);
  /* rendered without the options it was planned with: refused, naming them */
  tcmma_buf none = {0};
  assert_int_equal(tcmma_render_gemm(RCTX(NULL, TCMMA_DIALECT_CUDA, NULL, &none), &p, &err),
                   TCMMA_INVALID);
  assert_non_null(strstr(err.message, "other tcmma_gemm_opts"));
  tcmma_buf_free(&none);
  /* a class the rows break declines, naming it */
  c.k = 65, o.a_align = 16;
  assert_int_equal(tcmma_gemm_plan_opts(&c, &o, &p, &info, &err), TCMMA_DECLINED);
  assert_int_equal(p.reason, TCMMA_GEMM_DECLINE_ALIGNMENT);
  assert_non_null(strstr(p.message, "a_align"));
  o.a_align = 3;
  assert_int_equal(tcmma_gemm_plan_opts(&c, &o, &p, &info, &err), TCMMA_DECLINED);
  assert_non_null(strstr(p.message, "a_align 3: expected a power of two"));
  /* the options carry their size */
  o.size = 0;
  assert_int_equal(tcmma_gemm_plan_opts(&c, &o, &p, &info, &err), TCMMA_INVALID);
  assert_non_null(strstr(err.message, "tcmma_gemm_opts.size is 0"));
}

static char *replaced(const char *text, const char *after, const char *from, const char *to);

/* Split-K: the workspace the plan reports (partial tiles, then one counter
 * per output tile), and a reduction that drops a slice is caught by the
 * reference: the slices' sum is what makes the answer. */
static void split_k_workspace_and_reduction(void **s) {
  (void)s;
  verify_gemm_case cs;
  memset(&cs, 0, sizeof cs);
  snprintf(cs.name, sizeof cs.name, "gemm/split-k/64x64x256");
  cs.call = tcmma_gemm_call_default();
  cs.call.m = cs.call.n = 64, cs.call.k = 256, cs.call.block_m = cs.call.block_n = 64;
  cs.call.name = "tcmma_kernel";
  cs.opts = tcmma_gemm_opts_default();
  cs.opts.split_k = 3, cs.opts.batch = 2;
  cs.alpha = 1, cs.beta = 0;
  tcmma_gemm_plan p;
  tcmma_gemm_info info = {.size = sizeof info};
  tcmma_error err = {0};
  assert_int_equal(tcmma_gemm_plan_opts(&cs.call, &cs.opts, &p, &info, &err), TCMMA_OK);
  assert_int_equal(p.grid[2], 6);
  assert_int_equal(info.k_tiles_per_split, 3); /* 8 k tiles: 3, 3, 2 */
  assert_int_equal(info.workspace_counters, 2 * 3 * 64 * 64 * sizeof(float));
  assert_int_equal(info.workspace_bytes, info.workspace_counters + 2 * sizeof(unsigned));
  tcmma_buf text = {0};
  render_host(&p, &cs.opts, &text);
  for (int broken = 0; broken < 2; broken++) {
    char *t = broken ? replaced(tcmma_buf_str(&text), "split-K over", "__tcmma_g_s < 3;",
                                "__tcmma_g_s < 2;")
                     : strdup(tcmma_buf_str(&text));
    assert_non_null(t);
    void *h;
    void *sym = open_entry(t, &h);
    if (!sym) fail_msg("host text does not compile:\n%s", t);
    sim_entry entry;
    memcpy(&entry, &sym, sizeof sym);
    verify_case_result r = {0};
    bool ok = verify_gemm_case_run(&cs, &p, verify_gemm_sim_runner, &entry, &r);
    if (ok == broken) fail_msg("%s reduction: %s", broken ? "a broken" : "the", r.reason);
    dlclose(h);
    free(t);
  }
  tcmma_buf_free(&text);
  cs.opts.split_k = 9; /* more slices than k tiles */
  assert_int_equal(tcmma_gemm_plan_opts(&cs.call, &cs.opts, &p, &info, &err), TCMMA_DECLINED);
  assert_non_null(strstr(p.message, "split_k 9"));
}

/* Skips the test where NVRTC does not load, saying why. */
static void skip_without_nvrtc(void) {
  tcmma_error err = {0};
  if (tcmma_nvrtc_load(NULL, &err) != TCMMA_OK) {
    printf("no NVRTC here: %s\n", err.message);
    skip();
  }
}

/* Every case through the compile executor: a CUBIN at its floor with no
 * spills, registers within the plan's figure and the plan's census per k
 * tile (verify_gemm_compile_check), compiled in batches (prepared: kernels of
 * one arch in one program) with the outcome and figures of each compiled
 * alone; and the check fails a program that spills, needs more registers,
 * or holds another plan's census. */
static void matrix_compiles_as_planned(void **s) {
  (void)s;
  tcmma_error err = {0};
  skip_without_nvrtc();
  const verify_gemm_case *cs;
  size_t n = verify_gemm_matrix(&cs);
  const verify_gemm_case **list = calloc(n, sizeof *list);
  verify_case_result *batched = calloc(n, sizeof *batched);
  assert_non_null(list), assert_non_null(batched);
  for (size_t i = 0; i < n; i++) list[i] = &cs[i];
  verify_gemm_compile_prepare(list, n);
  for (size_t i = 0; i < n; i++) verify_gemm_exec(VERIFY_EXEC_COMPILE, &cs[i], &batched[i]);
  verify_gemm_compile_finish(); /* from here on each case compiles alone */
  tcmma_program kept = {0};
  tcmma_gemm_plan kept_plan;
  for (size_t i = 0; i < n; i++) {
    verify_case_result r = {0};
    verify_gemm_exec(VERIFY_EXEC_COMPILE, &cs[i], &r);
    if (r.outcome != VERIFY_CASE_PASSED) fail_msg("%s: %s", cs[i].name, r.reason);
    printf("compile %s: %s\n", cs[i].name, r.reason);
    /* the reason states ptxas's registers: the batch's are the kernel's own */
    if (batched[i].outcome != r.outcome || strcmp(batched[i].reason, r.reason) != 0)
      fail_msg("%s: batched '%s', alone '%s'", cs[i].name, batched[i].reason, r.reason);
    tcmma_gemm_plan p;
    if (kept.ptx || !verify_gemm_case_plan(&cs[i], &p, &r)) continue;
    tcmma_buf text = {0};
    assert_int_equal(tcmma_render_gemm(RCTX(NULL, TCMMA_DIALECT_CUDA, NULL, &text), &p, &err),
                     TCMMA_OK);
    tcmma_compile_opts opts = TCMMA_COMPILE_OPTS_INIT(.sass = true);
    assert_int_equal(tcmma_compile(text.data, text.len, &opts, &kept, &err), TCMMA_OK);
    kept_plan = p;
    tcmma_buf_free(&text);
  }
  char why[400];
  assert_true(verify_gemm_compile_check(&kept_plan, &kept, why, sizeof why));
  tcmma_program bad = kept;
  bad.spill_store_bytes = 4;
  assert_false(verify_gemm_compile_check(&kept_plan, &bad, why, sizeof why));
  assert_non_null(strstr(why, "spilled"));
  bad = kept;
  bad.registers = kept_plan.registers + 1;
  assert_false(verify_gemm_compile_check(&kept_plan, &bad, why, sizeof why));
  bad = kept;
  bad.shared_bytes = 128; /* static shared memory the plan does not count */
  assert_false(verify_gemm_compile_check(&kept_plan, &bad, why, sizeof why));
  assert_non_null(strstr(why, "static shared"));
  tcmma_gemm_plan other = kept_plan;
  other.ldmatrix_per_k_tile++;
  assert_false(verify_gemm_compile_check(&other, &kept, why, sizeof why));
  assert_non_null(strstr(why, "ldmatrix"));
  tcmma_program_free(&kept);
  free(list), free(batched);
}

/* Two GEMM variants, named apart, joined into one source and compiled as
 * one batch: each kernel's ptxas figures and census are those of the
 * variant compiled alone (a 128x128 tile takes about twice the registers
 * of a 64x64 one, so a program-wide figure would fail the smaller). */
static void variants_compile_in_one_batch(void **s) {
  (void)s;
  tcmma_error err = {0};
  skip_without_nvrtc();
  const char *names[2] = {"gemm_big", "gemm_small"};
  tcmma_gemm_plan plans[2];
  tcmma_buf joined = {0}, alone[2] = {{0}, {0}};
  for (int i = 0; i < 2; i++) {
    tcmma_gemm_call c = tcmma_gemm_call_default();
    c.m = c.n = c.k = 256;
    c.d.prec = TCMMA_PREC_F32, c.a.prec = c.b.prec = TCMMA_PREC_BF16, c.b.transposed = true;
    if (i == 1) c.block_m = c.block_n = 64;
    c.name = names[i];
    assert_int_equal(tcmma_gemm_plan_call(&c, &plans[i], &err), TCMMA_OK);
    assert_int_equal(tcmma_render_gemm(RCTX(NULL, TCMMA_DIALECT_CUDA, NULL, &alone[i]), &plans[i],
                                       &err), TCMMA_OK);
    tcmma_buf_append(&joined, alone[i].data, alone[i].len);
  }
  tcmma_compile_opts o = TCMMA_COMPILE_OPTS_INIT(.sass = true);
  tcmma_program out[2], solo[2];
  assert_int_equal(tcmma_compile_batch(joined.data, joined.len, names, 2, &o, out, &err), TCMMA_OK);
  for (int i = 0; i < 2; i++) {
    assert_int_equal(tcmma_compile(alone[i].data, alone[i].len, &o, &solo[i], &err), TCMMA_OK);
    assert_true(out[i].ptxas_info && solo[i].ptxas_info);
    assert_int_equal(out[i].registers, solo[i].registers);
    assert_int_equal(out[i].spill_store_bytes, solo[i].spill_store_bytes);
    assert_int_equal(out[i].stack_bytes, solo[i].stack_bytes);
    char why[400];
    if (!verify_gemm_compile_check(&plans[i], &out[i], why, sizeof why))
      fail_msg("%s in the batch: %s", names[i], why);
  }
  assert_true(solo[0].registers > solo[1].registers); /* the premise */
  for (int i = 0; i < 2; i++)
    tcmma_program_free(&out[i]), tcmma_program_free(&solo[i]), tcmma_buf_free(&alone[i]);
  tcmma_buf_free(&joined);
}

/* Replaces the first occurrence of from after `after` in text by to. */
static char *replaced(const char *text, const char *after, const char *from, const char *to) {
  const char *a = strstr(text, after);
  const char *f = a ? strstr(a, from) : NULL;
  if (!f) return NULL;
  size_t n = strlen(text) - strlen(from) + strlen(to) + 1;
  char *out = malloc(n);
  snprintf(out, n, "%.*s%s%s", (int)(f - text), text, to, f + strlen(from));
  return out;
}

/* A broken pipeline is a simulator error naming the race, not a wrong
 * answer or a hang: a loop's barrier removed (a stage refilled while
 * other warps read it), its wait weakened (a stage read before it landed);
 * in the ring's unrolled steady state (k tiles 0..5, two trips) and in the
 * loop after it that runs the last k tiles (6 and 7). */
static void broken_pipelines_are_caught(void **s) {
  (void)s;
  tcmma_gemm_call c = tcmma_gemm_call_default();
  c.m = 64, c.n = 64, c.k = 256, c.block_m = 64, c.block_n = 64, c.block_k = 32, c.stages = 3;
  c.name = "tcmma_kernel";
  tcmma_gemm_plan p;
  tcmma_error err = {0};
  assert_int_equal(tcmma_gemm_plan_call(&c, &p, &err), TCMMA_OK);
  tcmma_buf text = {0};
  render_host(&p, NULL, &text);
  const char *loops[] = {"for (; __tcmma_g_kt + 4 < 8;", "for (; __tcmma_g_kt < 8;"};
  struct { const char *from, *to, *want; } breaks[] = {
      {"tcmma_sim_syncthreads();", ";", "__syncthreads since"},
      {"tcmma_sim_cp_async_wait_group(1);", "tcmma_sim_cp_async_wait_group(2);", "cp.async into them"},
  };
  for (size_t b = 0; b < 4; b++) {
    char *broken = replaced(tcmma_buf_str(&text), loops[b / 2], breaks[b % 2].from,
                            breaks[b % 2].to);
    if (!broken) fail_msg("no '%s' after '%s' in:\n%s", breaks[b % 2].from, loops[b / 2],
                          tcmma_buf_str(&text));
    void *h;
    void *sym = open_entry(broken, &h);
    if (!sym) fail_msg("broken text does not compile:\n%s", broken);
    sim_entry entry;
    memcpy(&entry, &sym, sizeof sym);
    verify_gemm_case cs = {.call = c, .opts = tcmma_gemm_opts_default(), .alpha = 1, .beta = 0};
    snprintf(cs.name, sizeof cs.name, "broken/%zu", b);
    verify_case_result r = {0};
    assert_false(verify_gemm_case_run(&cs, &p, verify_gemm_sim_runner, &entry, &r));
    /* without the barrier, which race shows first depends on how the
     * threads run: a read of another warp's (or its own unsynced) landed
     * bytes, a read before another thread's copy landed, or a refill of a
     * stage still being read; each is a race the barrier prevents */
    bool named = strstr(r.reason, breaks[b % 2].want) ||
                 (b % 2 == 0 && (strstr(r.reason, "cp.async into them") ||
                                 strstr(r.reason, "overwritten while in use")));
    if (!named) fail_msg("break %zu: expected '%s' in: %s", b, breaks[b % 2].want, r.reason);
    dlclose(h);
    free(broken);
  }
  tcmma_buf_free(&text);
}

/* The gpu executor against the fake driver (tests/fake_cuda.c), whose
 * "tcmma_kernel" does nothing: the case runs through compile, module load,
 * the shared-memory attribute, launch and copies, and fails on d; an arm
 * above the device's cc is skipped, never passed. */
static void gpu_executor_on_the_fake_driver(void **s) {
  (void)s;
  tcmma_error err = {0};
  const char *lib = fake_cuda_build();
  if (!lib || tcmma_nvrtc_load(NULL, &err) != TCMMA_OK) skip();
  fake_cuda_use(lib);
  setenv("FAKE_CUDA_KERNEL", "noop", 1);
  setenv("FAKE_CUDA_CCS", "80", 1);
  const verify_gemm_case *cs;
  size_t n = verify_gemm_matrix(&cs);
  bool failed = false, skipped = false;
  for (size_t i = 0; i < n; i++) {
    bool fp8 = strstr(cs[i].name, "mma-fp8") != NULL;
    if (cs[i].expect || (fp8 ? skipped : failed)) continue;
    verify_case_result r = {0};
    verify_gemm_exec(VERIFY_EXEC_GPU, &cs[i], &r);
    if (fp8) {
      assert_int_equal(r.outcome, VERIFY_CASE_SKIPPED);
      assert_non_null(strstr(r.reason, "does not run mma-fp8"));
      skipped = true;
    } else {
      assert_int_equal(r.outcome, VERIFY_CASE_FAILED);
      if (!strstr(r.reason, "integer pass: d[")) fail_msg("%s: %s", cs[i].name, r.reason);
      failed = true;
    }
  }
  assert_true(failed && skipped);
  unsetenv("FAKE_CUDA_KERNEL");
  unsetenv("FAKE_CUDA_CCS");
  fake_cuda_use(NULL);
  fake_cuda_remove();
}

/* tcmma gemm: the plan as text and JSON, the kernel, a decline (exit 3),
 * a usage error (exit 2). */
static void cli(void **s) {
  (void)s;
  /* the mma.sync kernel asked for on cc 9.0 (auto takes the wgmma kernel
   * there: tests/test_gemm_wgmma.c) */
  const char *plan[] = {"gemm", "--m", "4096", "--n", "4096", "--k", "4096", "--d", "f32", "--a",
                        "bf16", "--b", "bf16,t", "--cc", "90", "--json", "--kind", "mma-sync",
                        NULL};
  cli_result r = run_cli(plan, NULL);
  assert_int_equal(r.exit_code, 0);
  assert_int_equal(json_int_of(r.out, "threads"), 128);
  assert_int_equal(json_int_of(r.out, "shared_bytes"), 128 * 136 * 4);
  assert_int_equal(json_int_of(r.out, "registers"), 244);
  assert_non_null(strstr(r.out, "cp.async.wait_group 1;"));
  cli_result_free(&r);
  plan[15] = "--kernel";
  r = run_cli(plan, NULL);
  assert_int_equal(r.exit_code, 0);
  assert_non_null(strstr(r.out, "extern \"C\" __global__ void __launch_bounds__(128, 1)\ntcmma_gemm("));
  cli_result_free(&r);
  const char *odd[] = {"gemm", "--m", "127", "--n", "129", "--k", "65", "--d", "f32", "--a", "f16",
                       "--b", "f16", "--align", "16,0,0", NULL};
  r = run_cli(odd, NULL);
  assert_int_equal(r.exit_code, 3);
  assert_non_null(strstr(r.err, "alignment: a's rows of ld 65"));
  cli_result_free(&r);
  const char *split[] = {"gemm", "--m", "64", "--n", "64", "--k", "1024", "--d", "f32", "--a",
                         "bf16", "--b", "bf16", "--tile", "64x64x32", "--batch", "2",
                         "--split-k", "4", "--json", NULL};
  r = run_cli(split, NULL);
  assert_int_equal(r.exit_code, 0);
  assert_int_equal(json_int_of(r.out, "workspace_bytes"), 2 * 4 * 64 * 64 * 4 + 2 * 4);
  assert_int_equal(json_int_of(r.out, "split_k"), 4);
  assert_non_null(strstr(r.out, "atomicAdd"));
  cli_result_free(&r);
  odd[13] = "--tile", odd[14] = "64x64x32"; /* the widest classes the rows allow */
  r = run_cli(odd, NULL);
  assert_int_equal(r.exit_code, 0);
  assert_non_null(strstr(r.out, "alignment classes a 2, b 2, d 4 bytes"));
  cli_result_free(&r);
  const char *bad[] = {"gemm", "--m", "64", "--n", "64", "--k", "64", "--d", "f32", "--a", "f16",
                       "--b", "f16", "--tile", "64x64", NULL};
  r = run_cli(bad, NULL);
  assert_int_equal(r.exit_code, 2);
  assert_non_null(strstr(r.err, "--tile '64x64'"));
  cli_result_free(&r);
  /* the kernel takes alpha and beta as floats: a value no float holds is a
   * usage error, not a launch value shown as if it were passed */
  bad[13] = "--alpha", bad[14] = "1e39";
  r = run_cli(bad, NULL);
  assert_int_equal(r.exit_code, 2);
  assert_non_null(strstr(r.err, "--alpha '1e39'"));
  cli_result_free(&r);
  bad[13] = "--beta", bad[14] = "-3.5e38";
  r = run_cli(bad, NULL);
  assert_int_equal(r.exit_code, 2);
  assert_non_null(strstr(r.err, "--beta '-3.5e38'"));
  cli_result_free(&r);
}

/* The plan's cp.async per thread per k tile is what the kernel's loader
 * issues: the a and b loops' trip counts of one stage load add up to it
 * (planner and renderer count copies with one function). */
static void loader_copies_what_the_plan_counts(void **s) {
  (void)s;
  static const struct { int bm, bn, bk, wm, wn; tcmma_prec ab; bool at, bt; } rows[] = {
      {128, 128, 32, 2, 2, TCMMA_PREC_BF16, false, false},
      {64, 128, 64, 1, 4, TCMMA_PREC_F16, true, false},
      {128, 64, 64, 4, 2, TCMMA_PREC_E4M3, false, true},
  };
  for (size_t i = 0; i < sizeof rows / sizeof rows[0]; i++) {
    tcmma_gemm_call c = tcmma_gemm_call_default();
    c.m = c.n = c.k = 256, c.cc = 89, c.d.prec = TCMMA_PREC_F32;
    c.block_m = rows[i].bm, c.block_n = rows[i].bn, c.block_k = rows[i].bk;
    c.warps_m = rows[i].wm, c.warps_n = rows[i].wn;
    c.a.prec = c.b.prec = rows[i].ab, c.a.transposed = rows[i].at, c.b.transposed = rows[i].bt;
    tcmma_gemm_plan p;
    tcmma_error err = {0};
    assert_int_equal(tcmma_gemm_plan_call(&c, &p, &err), TCMMA_OK);
    tcmma_buf out = {0};
    assert_int_equal(tcmma_render_gemm(RCTX(NULL, TCMMA_DIALECT_CUDA, NULL, &out), &p, &err),
                     TCMMA_OK);
    const char *a = strstr(tcmma_buf_str(&out), "__tcmma_g_ai < ");
    const char *b = strstr(tcmma_buf_str(&out), "__tcmma_g_bi < ");
    long na = 0, nb = 0;
    assert_true(a && b && sscanf(a, "__tcmma_g_ai < %ld", &na) == 1 &&
                sscanf(b, "__tcmma_g_bi < %ld", &nb) == 1);
    if (na + nb != p.cp_async_per_k_tile)
      fail_msg("row %zu: loader loops of %ld and %ld copies; the plan counts %d", i, na, nb,
               p.cp_async_per_k_tile);
    tcmma_buf_free(&out);
  }
}

/* A block-scaled call at cc 120 (b stored n x k): 200 x 72 x k over a
 * 64x64x128 tile on 2x2 warps. */
static tcmma_gemm_call scaled_call(tcmma_prec p, int k) {
  tcmma_gemm_call c = tcmma_gemm_call_default();
  c.m = 200, c.n = 72, c.k = k, c.cc = 120;
  c.d.prec = TCMMA_PREC_F32, c.a.prec = c.b.prec = p, c.b.transposed = true;
  c.block_m = c.block_n = 64, c.block_k = 128;
  return c;
}

/* The block-scaled plans (docs/emit.md, Block-scaled GEMMs): packing, the
 * scale layout's figures, the stages' bytes, packed fp4 through ldmatrix,
 * the kernel's scale arguments and each rule's decline. */
static void block_scaled_plans(void **s) {
  (void)s;
  static const struct { tcmma_prec p; int pack, block, k; long ld; const char *arm; } rows[] = {
      {TCMMA_PREC_MXF4, 2, 32, 200, 8, "mma-mxf4"},     /* ceil(200 / 32) = 7 -> 8 */
      {TCMMA_PREC_NVF4, 2, 16, 200, 16, "mma-nvf4"},    /* 13 -> 16 */
      {TCMMA_PREC_MXE4M3, 1, 32, 256, 8, "mma-mxfp8"}, /* 8 */
  };
  for (size_t i = 0; i < sizeof rows / sizeof rows[0]; i++) {
    tcmma_gemm_call c = scaled_call(rows[i].p, rows[i].k);
    tcmma_gemm_plan p;
    tcmma_gemm_info info = {.size = sizeof info};
    tcmma_error err = {0};
    assert_int_equal(tcmma_gemm_plan_opts(&c, NULL, &p, &info, &err), TCMMA_OK);
    assert_string_equal(tcmma_arm_marker(p.arm), rows[i].arm);
    assert_int_equal(info.pack, rows[i].pack);
    assert_int_equal(info.scale_block, rows[i].block);
    assert_int_equal(info.scale_ld, rows[i].ld);
    assert_int_equal(info.scale_copy_bytes, 4); /* 128 / 32 = 4 and 128 / 16 = 8 bytes a row */
    /* a stage: a and b tiles (packed: half the bytes), then 64 rows of scales each */
    size_t tiles = 2 * 64 * 128 / (size_t)rows[i].pack,
           scales = 2 * 64 * 128 / (size_t)rows[i].block;
    assert_int_equal(p.stage_bytes, tiles + scales);
    assert_true(p.ldmatrix_per_k_tile > 0); /* fp4 too, through its byte twin */
    tcmma_buf out = {0};
    assert_int_equal(tcmma_render_gemm(RCTX(NULL, TCMMA_DIALECT_CUDA, NULL, &out), &p, &err),
                     TCMMA_OK);
    const char *t = tcmma_buf_str(&out);
    assert_non_null(strstr(t, "float alpha, float beta,\n    const unsigned char *sfa, "
                              "const unsigned char *sfb)"));
    assert_non_null(strstr(t, "cp.async.ca.shared.global [%0], [%1], 4, %2;"));
    assert_non_null(strstr(t, "ldmatrix.sync.aligned.m8n8.x4"));
    tcmma_buf_free(&out);
  }
  /* the rules: k-major packed fp4, whole bytes, no pointer arrays, a 12.x device */
  static const struct { bool at, bt; int k, batch, cc; long long stride_a;
                        tcmma_gemm_decline why; } bad[] = {
      {true, true, 256, 0, 120, 0, TCMMA_GEMM_DECLINE_ARM},
      {false, false, 256, 0, 120, 0, TCMMA_GEMM_DECLINE_ARM},
      {false, true, 255, 0, 120, 0, TCMMA_GEMM_DECLINE_ALIGNMENT},
      {false, true, 256, 2, 120, 200 * 256 + 1, TCMMA_GEMM_DECLINE_ALIGNMENT}, /* half a byte */
      {false, true, 256, 2, 120, 0, TCMMA_GEMM_DECLINE_CALL}, /* pointer arrays */
      {false, true, 256, 0, 100, 0, TCMMA_GEMM_DECLINE_ARM}, /* no arm off 12.x */
  };
  for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
    tcmma_gemm_call c = scaled_call(TCMMA_PREC_MXF4, bad[i].k);
    c.a.transposed = bad[i].at, c.b.transposed = bad[i].bt, c.cc = bad[i].cc;
    tcmma_gemm_opts o = tcmma_gemm_opts_default();
    o.batch = bad[i].batch, o.stride_a = bad[i].stride_a;
    o.pointer_array = bad[i].batch && !bad[i].stride_a;
    tcmma_gemm_plan p;
    assert_int_equal(tcmma_gemm_plan_opts(&c, &o, &p, NULL, NULL), TCMMA_DECLINED);
    if (p.reason != bad[i].why)
      fail_msg("row %zu: declined %s, expected %s: %s", i, tcmma_gemm_decline_name(p.reason),
               tcmma_gemm_decline_name(bad[i].why), p.message);
  }
  /* the ring pieces refuse a block-scaled plan: its stages render whole only */
  tcmma_gemm_call c = scaled_call(TCMMA_PREC_NVF4, 256);
  tcmma_gemm_plan p;
  tcmma_error err = {0};
  assert_int_equal(tcmma_gemm_plan_call(&c, &p, &err), TCMMA_OK);
  tcmma_buf out = {0};
  assert_int_equal(tcmma_render_gemm_ring_decls(RCTX(NULL, TCMMA_DIALECT_CUDA, NULL, &out), &p,
                                                NULL, "smem", "a", "b", NULL, NULL, &err),
                   TCMMA_INVALID);
  assert_non_null(strstr(err.message, "block-scaled"));
  tcmma_buf_free(&out);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(default_plan_figures),
      cmocka_unit_test(arm_defaults),
      cmocka_unit_test(shared_memory_table),
      cmocka_unit_test(arch_and_budget_declines),
      cmocka_unit_test(bad_input),
      cmocka_unit_test(forced_arm_serves_the_triple),
      cmocka_unit_test(grid_within_launch_limits),
      cmocka_unit_test(loader_copies_what_the_plan_counts),
      cmocka_unit_test(block_scaled_plans),
      cmocka_unit_test(matrix_plans_and_text),
      cmocka_unit_test(cli),
      cmocka_unit_test(gpu_executor_on_the_fake_driver),
      cmocka_unit_test(broken_pipelines_are_caught),
      cmocka_unit_test(matrix_runs_on_the_simulator),
      cmocka_unit_test(fixed_and_shape_args_agree),
      cmocka_unit_test(shape_args_kernel_serves_every_shape),
      cmocka_unit_test(split_k_workspace_and_reduction),
      cmocka_unit_test(matrix_compiles_as_planned),
      cmocka_unit_test(variants_compile_in_one_batch),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
