/* Kernel attributes (tables/kernel_attrs.def, include/tcmma/kernel_attrs.h):
 * the rows, the one signature renderer in both dialects (the host text
 * runs on the simulator), every floor proven with NVRTC (the attribute
 * compiles to a CUBIN at its floor, with its PTX directive, and NVRTC
 * rejects it at the arch below where it has one), the rules between rows
 * proven the same way, the options picker's floors from the same rows, and
 * the messages bad input gets. The NVRTC cases skip without NVRTC. */
#include <dlfcn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "util.h"
#include "tcmma/tcmma.h"
#include "tcmma/sim.h"

#define ROW(ID) tcmma_kernel_attr_get(TCMMA_KERNEL_ATTR_##ID)

/* b's text as an owned string; b is freed. */
static char *buf_take(tcmma_buf *b) {
  assert_false(b->failed);
  char *s = strdup(tcmma_buf_str(b));
  tcmma_buf_free(b);
  assert_non_null(s);
  return s;
}

/* ---- the table ---- */

static void rows_are_whole(void **state) {
  (void)state;
  for (int a = 0; a < TCMMA_KERNEL_ATTR_COUNT; a++) {
    const tcmma_kernel_attr_info *r = tcmma_kernel_attr_get((tcmma_kernel_attr)a);
    assert_non_null(r);
    assert_true(r->cuda[0] && r->host[0] && r->id[0]);
    assert_true(r->floor >= 0 && r->lo <= r->hi && r->step >= 0);
    assert_true(strncmp(r->host, "TCMMA_SIM_", 10) == 0); /* include/tcmma/sim.h's */
  }
  assert_null(tcmma_kernel_attr_get(TCMMA_KERNEL_ATTR_COUNT));
  assert_null(tcmma_kernel_attr_get((tcmma_kernel_attr)-1));
  /* setmaxnreg is its tables/ptx_features.def row: the opcode it renders
   * matches that row, and the floor and suffix are the row's */
  const tcmma_kernel_attr_info *s = ROW(SETMAXNREG);
  char op[64];
  snprintf(op, sizeof op, s->cuda, "inc");
  const tcmma_ptx_feature *f = tcmma_ptx_feature_for(op);
  assert_non_null(f);
  assert_string_equal(f->id, "SETMAXNREG");
  assert_int_equal(f->min_sm, s->floor);
  assert_int_equal(f->suffix, s->suffix);
}

/* The markers that name a kernel attribute carry its floor, and their text
 * is in its CUDA spelling. */
static void markers_are_the_rows(void **state) {
  (void)state;
  static const struct {
    tcmma_marker m;
    tcmma_kernel_attr a;
    int args;
  } pairs[] = {{TCMMA_MARKER_CLUSTER_DIMS, TCMMA_KERNEL_ATTR_CLUSTER_DIMS, 0},
               {TCMMA_MARKER_CLUSTER_BOUNDS, TCMMA_KERNEL_ATTR_CLUSTER_BOUNDS, 3},
               {TCMMA_MARKER_GRID_CONSTANT, TCMMA_KERNEL_ATTR_GRID_CONSTANT, 0}};
  for (size_t i = 0; i < sizeof pairs / sizeof *pairs; i++) {
    const tcmma_kernel_attr_info *r = tcmma_kernel_attr_get(pairs[i].a);
    assert_int_equal(tcmma_marker_floor(pairs[i].m), r->floor);
    assert_non_null(strstr(r->cuda, tcmma_marker_text(pairs[i].m)));
    assert_false(tcmma_marker_is_tag(pairs[i].m));
    assert_int_equal(tcmma_marker_min_args(pairs[i].m), pairs[i].args);
  }
}

/* ---- rendering ---- */

/* The signature of attrs in dialect dl (asserted to render). */
static char *signature(tcmma_dialect dl, const tcmma_kernel_attrs *attrs, const char *params) {
  tcmma_buf b = {0};
  tcmma_error err;
  tcmma_status st = tcmma_render_kernel_signature(dl, attrs, "k", params, &b, &err);
  if (st != TCMMA_OK) fail_msg("signature: %s", err.message);
  return buf_take(&b);
}

static void signature_text(void **state) {
  (void)state;
  char *s = signature(TCMMA_DIALECT_CUDA, NULL, "float *d");
  assert_string_equal(s, "extern \"C\" __global__ void k(float *d)");
  free(s);
  tcmma_kernel_attrs a = TCMMA_KERNEL_ATTRS_INIT(.max_threads = 384, .min_blocks = 1,
                                                 .cluster = {2, 1, 1});
  s = signature(TCMMA_DIALECT_CUDA, &a, "float *d");
  assert_string_equal(s, "extern \"C\" __global__ void __launch_bounds__(384, 1) "
                         "__cluster_dims__(2, 1, 1)\nk(float *d)");
  free(s);
  s = signature(TCMMA_DIALECT_HOST, &a, "float *d");
  assert_string_equal(s, "void TCMMA_SIM_LAUNCH_BOUNDS(384, 1) TCMMA_SIM_CLUSTER_DIMS(2, 1, 1)"
                         "\nk(float *d)");
  free(s);
  a = (tcmma_kernel_attrs)TCMMA_KERNEL_ATTRS_INIT(.max_threads = 256, .cluster_blocks = 4);
  s = signature(TCMMA_DIALECT_HOST, &a, "");
  assert_string_equal(s, "void TCMMA_SIM_LAUNCH_BOUNDS(256, 0, 4)\nk()");
  free(s);
  a = (tcmma_kernel_attrs)TCMMA_KERNEL_ATTRS_INIT(.max_regs = 168);
  s = signature(TCMMA_DIALECT_CUDA, &a, "");
  assert_string_equal(s, "extern \"C\" __global__ void __maxnreg__(168)\nk()");
  free(s);
  a = (tcmma_kernel_attrs)TCMMA_KERNEL_ATTRS_INIT(.max_threads = 128);
  s = signature(TCMMA_DIALECT_CUDA, &a, "");
  assert_string_equal(s, "extern \"C\" __global__ void __launch_bounds__(128)\nk()");
  free(s);
  /* a caller built against an older, smaller struct: the rest is none */
  a = (tcmma_kernel_attrs)TCMMA_KERNEL_ATTRS_INIT(.max_threads = 64, .min_blocks = 2);
  a.size = offsetof(tcmma_kernel_attrs, min_blocks);
  s = signature(TCMMA_DIALECT_CUDA, &a, "");
  assert_string_equal(s, "extern \"C\" __global__ void __launch_bounds__(64)\nk()");
  free(s);
}

static char *setmaxnreg(tcmma_dialect dl, tcmma_setmaxnreg_dir dir, int count) {
  tcmma_buf b = {0};
  tcmma_error err;
  if (tcmma_render_setmaxnreg(dl, dir, count, 1, &b, &err) != TCMMA_OK)
    fail_msg("setmaxnreg: %s", err.message);
  return buf_take(&b);
}

static void setmaxnreg_text(void **state) {
  (void)state;
  char *s = setmaxnreg(TCMMA_DIALECT_CUDA, TCMMA_SETMAXNREG_INC, 240);
  assert_string_equal(s, "  asm volatile(\"setmaxnreg.inc.sync.aligned.u32 240;\\n\" ::);\n");
  free(s);
  s = setmaxnreg(TCMMA_DIALECT_HOST, TCMMA_SETMAXNREG_DEC, 24);
  assert_string_equal(s, "  TCMMA_SIM_SETMAXNREG(\"setmaxnreg.dec.sync.aligned.u32\", 24);\n");
  free(s);
  s = setmaxnreg(TCMMA_DIALECT_CUDA, TCMMA_SETMAXNREG_DEC, 256);
  assert_non_null(strstr(s, "setmaxnreg.dec.sync.aligned.u32 256;"));
  free(s);
}

/* A kernel with every attribute and both setmaxnregs, body d[lane] = lane + 1. */
static char *whole_kernel(tcmma_dialect dl) {
  tcmma_kernel_attrs a = TCMMA_KERNEL_ATTRS_INIT(.max_threads = 384, .min_blocks = 1,
                                                 .cluster = {2, 1, 1}, .setmaxnreg_dec = 40,
                                                 .setmaxnreg_inc = 232);
  tcmma_buf b = {0};
  tcmma_error err;
  bool host = dl == TCMMA_DIALECT_HOST;
  if (host) tcmma_buf_printf(&b, "#include \"tcmma/sim.h\"\n");
  tcmma_buf_printf(&b, "struct P { int v[4]; };\n");
  char params[128];
  snprintf(params, sizeof params, "float *d, %s struct P p",
           host ? ROW(GRID_CONSTANT)->host : ROW(GRID_CONSTANT)->cuda);
  assert_int_equal(tcmma_render_kernel_signature(dl, &a, "k", params, &b, &err), TCMMA_OK);
  tcmma_buf_printf(&b, "\n{\n  int t = (int)%s;\n  if (t / 128 == 0) {\n",
                   host ? "tcmma_sim_lane()" : "threadIdx.x");
  assert_int_equal(tcmma_render_setmaxnreg(dl, TCMMA_SETMAXNREG_DEC, 40, 2, &b, &err), TCMMA_OK);
  tcmma_buf_printf(&b, "  } else {\n");
  assert_int_equal(tcmma_render_setmaxnreg(dl, TCMMA_SETMAXNREG_INC, 232, 2, &b, &err), TCMMA_OK);
  tcmma_buf_printf(&b, "  }\n  d[t] = (float)(t + p.v[1]);\n}\n");
  if (host)
    tcmma_buf_printf(&b, "void k_entry(void *args) {\n  void **q = (void **)args;\n"
                         "  struct P p = {{0, 1, 0, 0}};\n  k((float *)q[0], p);\n}\n");
  return buf_take(&b);
}

/* The host text compiles and runs on the simulator: the attributes mean
 * nothing there, the body runs. */
static void host_dialect_runs(void **state) {
  (void)state;
  char *text = whole_kernel(TCMMA_DIALECT_HOST);
  void *h = host_module_open(text);
  if (!h) fail_msg("the host kernel does not compile:\n%s", text);
  void (*entry)(void *) = (void (*)(void *))dlsym(h, "k_entry");
  assert_non_null(entry);
  float d[32] = {0};
  void *args[1] = {d};
  tcmma_error err;
  assert_int_equal(tcmma_sim_launch(entry, args, &err), TCMMA_OK);
  for (int t = 0; t < 32; t++) assert_true(d[t] == (float)(t + 1));
  dlclose(h);
  free(text);
}

/* The signature of attrs for name with no parameters, without its ')':
 * how a kernel of that name and those attributes opens. */
static char *opening(tcmma_dialect dl, const tcmma_kernel_attrs *attrs, const char *name) {
  tcmma_buf b = {0};
  tcmma_error err;
  assert_int_equal(tcmma_render_kernel_signature(dl, attrs, name, "", &b, &err), TCMMA_OK);
  char *s = buf_take(&b);
  s[strlen(s) - 1] = '\0';
  return s;
}

/* The one-warp kernel, the GEMM and the TMA kernel open through the
 * renderer, in both dialects. */
static void kernels_open_through_it(void **state) {
  (void)state;
  static const char *const dialects[2] = {"cuda", "host"};
  for (int d = 0; d < 2; d++) {
    tcmma_dialect dl = (tcmma_dialect)d;
    tcmma_plan p = test_plan("f32", "f16", "f16", 16, 8, 16, TCMMA_SCOPE_FRAGMENT, NULL);
    tcmma_buf b = {0};
    tcmma_error err;
    assert_int_equal(tcmma_render_kernel(RCTX(&p, dl, NULL, &b), NULL, &err), TCMMA_OK);
    char *want = opening(dl, NULL, "tcmma_kernel"), *text = buf_take(&b);
    if (!strstr(text, want)) fail_msg("the one-warp kernel does not open with '%s'", want);
    free(want);
    free(text);
    const char *gemm[] = {"gemm", "--m", "256", "--n", "256", "--k", "256", "--d", "f32", "--a",
                          "bf16", "--b", "bf16", "--cc", "80", "--dialect", dialects[d],
                          "--kernel", NULL};
    cli_result r = run_cli(gemm, NULL);
    assert_int_equal(r.exit_code, 0);
    gemm[17] = "--json";
    cli_result j = run_cli(gemm, NULL);
    tcmma_kernel_attrs a = TCMMA_KERNEL_ATTRS_INIT(.max_threads = (int)json_int_of(j.out, "threads"),
                                                   .min_blocks = 1);
    want = opening(dl, &a, "tcmma_gemm");
    if (!strstr(r.out, want)) fail_msg("the GEMM does not open with '%s'", want);
    free(want);
    cli_result_free(&r);
    cli_result_free(&j);
    tcmma_tensor_map m = tcmma_tensor_map_2d(TCMMA_PREC_BF16, 0, 64, 64, 128, 16, 16,
                                             TCMMA_SWIZZLE_NONE);
    assert_int_equal(tcmma_render_tma_kernel(dl, &m, NULL, &b, &err), TCMMA_OK);
    text = buf_take(&b);
    want = opening(dl, NULL, "tcmma_tma_kernel");
    char *at = strstr(text, want);
    if (!at) fail_msg("the TMA kernel does not open with '%s'", want);
    const tcmma_kernel_attr_info *g = ROW(GRID_CONSTANT);
    const char *q = d ? g->host : g->cuda; /* its map parameter's qualifier: the row's */
    assert_int_equal(strncmp(at + strlen(want), q, strlen(q)), 0);
    free(want);
    free(text);
  }
}

/* ---- floors, by NVRTC ---- */

/* Whether ptxas -arch arch on ptx says words (an error or an info line). */
static bool ptxas_says(const char *ptx, const char *arch, const char *words) {
  if (!ptxas_path()) skip();
  ptxas_job job = {ptx, strlen(ptx), arch, 0, NULL};
  ptxas_run(&job, 1);
  bool says = job.log && strstr(job.log, words);
  ptxas_jobs_free(&job, 1);
  return says;
}

/* Compiles src to a CUBIN at sm_<arch><suffix>; the status, the PTX (owned,
 * may be NULL) into *ptx and the log into log. */
static tcmma_status compile_at(const char *src, int arch, char suffix, char **ptx, char *log,
                               size_t cap) {
  tcmma_compile_opts o = tcmma_compile_opts_default();
  o.arch = arch, o.arch_suffix = suffix, o.sass = true;
  tcmma_program p;
  tcmma_error err;
  tcmma_status st = tcmma_compile(src, strlen(src), &o, &p, &err);
  if (ptx) *ptx = st == TCMMA_OK && p.ptx ? strdup(p.ptx) : NULL;
  if (log) snprintf(log, cap, "%s%s", st == TCMMA_OK ? "" : err.message, p.log ? p.log : "");
  tcmma_program_free(&p);
  return st;
}

static int lowest_arch(void) {
  tcmma_arch_support s;
  tcmma_error err;
  if (tcmma_nvrtc_support(&s, &err) != TCMMA_OK) return 0;
  return tcmma_arch_support_lowest(&s);
}

/* The highest arch support lists below floor; 0 when none. */
static int arch_below(int floor) {
  tcmma_arch_support s;
  tcmma_error err;
  int below = 0;
  if (tcmma_nvrtc_support(&s, &err) != TCMMA_OK) return 0;
  for (size_t i = 0; i < s.count; i++)
    if (s.archs[i] < floor) below = s.archs[i];
  return below;
}

/* A one-line kernel with attrs (and a __grid_constant__ parameter when grid). */
static char *probe_kernel(const tcmma_kernel_attrs *a, bool grid) {
  tcmma_buf b = {0};
  tcmma_error err;
  char params[96] = "float *d";
  if (grid) snprintf(params, sizeof params, "float *d, %s struct P p", ROW(GRID_CONSTANT)->cuda);
  tcmma_buf_printf(&b, "struct P { int v[4]; };\n");
  assert_int_equal(tcmma_render_kernel_signature(TCMMA_DIALECT_CUDA, a, "k", params, &b, &err),
                   TCMMA_OK);
  tcmma_buf_printf(&b, " { d[threadIdx.x] = %s; }\n", grid ? "p.v[1]" : "1.0f");
  return buf_take(&b);
}

/* The attribute compiles at its floor (NVRTC's lowest when that is below),
 * its PTX carries its directive, and NVRTC rejects it at the arch below. */
static void proven(const tcmma_kernel_attr_info *r, const tcmma_kernel_attrs *a, bool grid) {
  char *src = probe_kernel(a, grid), log[4096], *ptx;
  int at = r->floor > lowest_arch() ? r->floor : lowest_arch();
  tcmma_status st = compile_at(src, at, 0, &ptx, log, sizeof log);
  if (st != TCMMA_OK) fail_msg("%s at sm_%d: %s\n%s", r->id, at, log, src);
  if (r->directive[0] && !strstr(ptx, r->directive))
    fail_msg("%s: no %s in the PTX:\n%s", r->id, r->directive, ptx);
  free(ptx);
  int below = arch_below(r->floor);
  if (below) {
    if (compile_at(src, below, 0, NULL, log, sizeof log) == TCMMA_OK)
      fail_msg("%s compiles at sm_%d, below its floor %d", r->id, below, r->floor);
    printf("  %-15s sm_%d ok, sm_%d: %.90s\n", r->id, at, below, log);
  } else {
    printf("  %-15s sm_%d ok (NVRTC has no arch below)\n", r->id, at);
  }
  free(src);
}

static void floors_by_nvrtc(void **state) {
  (void)state;
  if (!lowest_arch()) skip(); /* no NVRTC here */
  tcmma_kernel_attrs a = TCMMA_KERNEL_ATTRS_INIT(.max_threads = 256, .min_blocks = 2);
  proven(ROW(LAUNCH_BOUNDS), &a, false);
  a = (tcmma_kernel_attrs)TCMMA_KERNEL_ATTRS_INIT(.max_threads = 256, .min_blocks = 1,
                                                  .cluster_blocks = 4);
  proven(ROW(CLUSTER_BOUNDS), &a, false);
  a = (tcmma_kernel_attrs)TCMMA_KERNEL_ATTRS_INIT(.max_regs = 64);
  proven(ROW(MAXNREG), &a, false);
  a = (tcmma_kernel_attrs)TCMMA_KERNEL_ATTRS_INIT(.cluster = {2, 2, 1});
  proven(ROW(CLUSTER_DIMS), &a, false);
  proven(ROW(GRID_CONSTANT), NULL, true);
}

/* setmaxnreg: ptxas takes it on the row's a targets, not on plain sm_90;
 * it is honoured (no C7508 info) only with the register count at entry. */
static void setmaxnreg_by_ptxas(void **state) {
  (void)state;
  if (!lowest_arch()) skip();
  char *src = whole_kernel(TCMMA_DIALECT_CUDA), log[4096], *ptx = NULL;
  const tcmma_kernel_attr_info *r = ROW(SETMAXNREG);
  char suffix = r->suffix == TCMMA_PTX_SUFFIX_ANY ? 0 : 'a';
  tcmma_status st = compile_at(src, r->floor, suffix, &ptx, log, sizeof log);
  if (st != TCMMA_OK) fail_msg("setmaxnreg at sm_%da: %s\n%s", r->floor, log, src);
  assert_non_null(strstr(ptx, "setmaxnreg.dec.sync.aligned.u32 40"));
  assert_non_null(strstr(ptx, ".reqnctapercluster 2, 1, 1"));
  if (ptxas_says(ptx, "sm_90a", "C7508")) fail_msg("setmaxnreg ignored:\n%s", ptx);
  /* the PTX reader: the module needs sm_90a for setmaxnreg */
  tcmma_ptx_info info;
  tcmma_error err;
  assert_int_equal(tcmma_ptx_parse(ptx, strlen(ptx), &info, &err), TCMMA_OK);
  assert_int_equal(info.required_sm, r->floor);
  /* below the family targets (sm_100 on) an A_OR_F row holds the a target only */
  assert_int_equal(info.required_suffix, r->suffix == TCMMA_PTX_SUFFIX_A_OR_F &&
                   r->floor < TCMMA_PTX_FAMILY_MIN_SM ? TCMMA_PTX_SUFFIX_A : r->suffix);
  assert_non_null(strstr(info.required_by, "setmaxnreg"));
  tcmma_ptx_info_free(&info);
  free(ptx);
  assert_int_not_equal(compile_at(src, r->floor, 0, NULL, log, sizeof log), TCMMA_OK);
  assert_non_null(strstr(log, "setmaxnreg"));
  free(src);
}

/* The rules between rows are NVRTC's and ptxas's: __maxnreg__ with
 * __launch_bounds__ is an error; setmaxnreg with launch bounds but no
 * min-blocks is ignored (C7508); the check declines both. */
static void rules_by_nvrtc(void **state) {
  (void)state;
  if (!lowest_arch()) skip();
  char src[512], log[4096];
  snprintf(src, sizeof src, "extern \"C\" __global__ void %s(128) %s(64) k(float *d) { d[0] = 1; }\n",
           ROW(LAUNCH_BOUNDS)->cuda, ROW(MAXNREG)->cuda);
  assert_int_not_equal(compile_at(src, lowest_arch(), 0, NULL, log, sizeof log), TCMMA_OK);
  tcmma_kernel_attrs a = TCMMA_KERNEL_ATTRS_INIT(.max_threads = 128, .max_regs = 64);
  tcmma_error err;
  assert_int_equal(tcmma_kernel_attrs_check(&a, &err), TCMMA_INVALID);
  tcmma_buf b = {0};
  tcmma_kernel_attrs lb = TCMMA_KERNEL_ATTRS_INIT(.max_threads = 384);
  assert_int_equal(tcmma_render_kernel_signature(TCMMA_DIALECT_CUDA, &lb, "k", "float *d", &b, &err),
                   TCMMA_OK);
  tcmma_buf_printf(&b, " {\n");
  assert_int_equal(tcmma_render_setmaxnreg(TCMMA_DIALECT_CUDA, TCMMA_SETMAXNREG_INC, 240, 1, &b, &err),
                   TCMMA_OK);
  tcmma_buf_printf(&b, "  d[0] = 1;\n}\n");
  char *text = buf_take(&b), *ptx = NULL;
  assert_int_equal(compile_at(text, 90, 'a', &ptx, log, sizeof log), TCMMA_OK);
  if (!ptxas_says(ptx, "sm_90a", "C7508")) fail_msg("no C7508 without min blocks:\n%s", ptx);
  free(ptx);
  free(text);
  /* cluster_blocks with cluster dims: ptxas's conflict */
  snprintf(src, sizeof src, "extern \"C\" __global__ void %s(128, 1, 2) %s(2, 1, 1) k(float *d) "
           "{ d[0] = 1; }\n", ROW(CLUSTER_BOUNDS)->cuda, ROW(CLUSTER_DIMS)->cuda);
  assert_int_not_equal(compile_at(src, 90, 0, NULL, log, sizeof log), TCMMA_OK);
  assert_non_null(strstr(log, ROW(CLUSTER_BOUNDS)->directive));
  a = (tcmma_kernel_attrs)TCMMA_KERNEL_ATTRS_INIT(.max_threads = 128, .min_blocks = 1,
                                                  .cluster_blocks = 2, .cluster = {2, 1, 1});
  assert_int_equal(tcmma_kernel_attrs_check(&a, &err), TCMMA_INVALID);
  lb.setmaxnreg_inc = 240;
  assert_int_equal(tcmma_kernel_attrs_check(&lb, &err), TCMMA_INVALID);
  assert_non_null(strstr(err.message, "min_blocks"));
}

/* ---- the options picker ---- */

static bool accepts_all(int arch, char suffix, void *ctx) {
  (void)arch, (void)suffix, (void)ctx;
  return true;
}

/* The markers' floor of attrs' probe kernel equals tcmma_kernel_attrs_floor. */
static void picked(const tcmma_kernel_attrs *a, int want, tcmma_ptx_suffix want_suffix) {
  char *src = probe_kernel(a, false);
  tcmma_buf b = {0};
  tcmma_buf_printf(&b, "%s", src);
  if (a->setmaxnreg_inc) {
    tcmma_error err;
    assert_int_equal(tcmma_render_setmaxnreg(TCMMA_DIALECT_CUDA, TCMMA_SETMAXNREG_INC,
                                             a->setmaxnreg_inc, 0, &b, &err), TCMMA_OK);
  }
  char *text = buf_take(&b);
  tcmma_marker_hit hits[16];
  int floor = 0;
  size_t n = tcmma_source_markers(text, strlen(text), hits, 16, &floor);
  tcmma_ptx_suffix suffix;
  assert_int_equal(tcmma_kernel_attrs_floor(a, &suffix), want);
  assert_int_equal(suffix, want_suffix);
  if (floor != want) fail_msg("markers give %d, the attributes %d:\n%s", floor, want, text);
  (void)n;
  /* the option picked: compute_<floor>, with its a target when the row asks */
  tcmma_arch_support s = {{75, 80, 86, 89, 90, 100, 120}, 7, accepts_all, NULL};
  tcmma_arch_options o;
  tcmma_error err;
  assert_int_equal(tcmma_arch_decide(text, strlen(text), 0, TCMMA_TARGET_FLOOR, &s, &o, &err),
                   TCMMA_OK);
  char option[64] = "";
  if (want >= s.archs[0])
    snprintf(option, sizeof option, "--gpu-architecture=compute_%d%s", want,
             want_suffix == TCMMA_PTX_SUFFIX_ANY ? "" : "a");
  if (strcmp(o.option, option)) fail_msg("picked '%s', expected '%s':\n%s", o.option, option, text);
  free(src);
  free(text);
}

static void options_pick_the_floors(void **state) {
  (void)state;
  const tcmma_ptx_suffix any = TCMMA_PTX_SUFFIX_ANY;
  picked(&(tcmma_kernel_attrs)TCMMA_KERNEL_ATTRS_INIT(.max_threads = 128, .min_blocks = 1),
         ROW(LAUNCH_BOUNDS)->floor, any);
  picked(&(tcmma_kernel_attrs)TCMMA_KERNEL_ATTRS_INIT(.max_threads = 128, .min_blocks = 1,
                                                      .cluster_blocks = 2),
         ROW(CLUSTER_BOUNDS)->floor, any);
  picked(&(tcmma_kernel_attrs)TCMMA_KERNEL_ATTRS_INIT(.max_regs = 96), ROW(MAXNREG)->floor, any);
  picked(&(tcmma_kernel_attrs)TCMMA_KERNEL_ATTRS_INIT(.cluster = {1, 2, 1}),
         ROW(CLUSTER_DIMS)->floor, any);
  picked(&(tcmma_kernel_attrs)TCMMA_KERNEL_ATTRS_INIT(.max_regs = 168, .setmaxnreg_inc = 240),
         ROW(SETMAXNREG)->floor, ROW(SETMAXNREG)->suffix);
  /* a comment or a string is not the attribute; a two-argument call is no cluster bound */
  const char *quiet = "// __cluster_dims__(2, 1, 1) and __launch_bounds__(1, 2, 3)\n"
                      "const char *s = \"__cluster_dims__\";\n"
                      "extern \"C\" __global__ void __launch_bounds__(f(1, 2), 1) k() {}\n";
  int floor = -1;
  tcmma_source_markers(quiet, strlen(quiet), NULL, 0, &floor);
  assert_int_equal(floor, 0);
  /* an unclosed list is no call; many of them cost a bounded look ahead each */
  const char *open = "__launch_bounds__(128, 1, 2";
  tcmma_source_markers(open, strlen(open), NULL, 0, &floor);
  assert_int_equal(floor, 0);
  tcmma_buf many = {0};
  for (int i = 0; i < 20000; i++) tcmma_buf_printf(&many, "__launch_bounds__(1, 2, ");
  tcmma_source_markers(tcmma_buf_str(&many), many.len, NULL, 0, &floor);
  assert_int_equal(floor, 0);
  tcmma_buf_free(&many);
  const char *closed = "__launch_bounds__(1, 2, /* ; { */ \"; {\" [3])";
  tcmma_source_markers(closed, strlen(closed), NULL, 0, &floor);
  assert_int_equal(floor, ROW(CLUSTER_BOUNDS)->floor);
  /* the CLI says so */
  char *src = probe_kernel(&(tcmma_kernel_attrs)TCMMA_KERNEL_ATTRS_INIT(.cluster = {2, 1, 1}),
                           false);
  cli_result r = run_cli((const char *const[]){"options", "-", "--no-probe", NULL}, src);
  assert_int_equal(r.exit_code, 0);
  assert_non_null(strstr(r.out, "compute_90"));
  assert_non_null(strstr(r.out, "__cluster_dims__"));
  cli_result_free(&r);
  free(src);
}

/* ---- bad input ---- */

static void declined(const tcmma_kernel_attrs *a, const char *words) {
  tcmma_error err;
  tcmma_buf b = {0};
  assert_int_equal(tcmma_kernel_attrs_check(a, &err), TCMMA_INVALID);
  if (!strstr(err.message, words)) fail_msg("'%s' lacks '%s'", err.message, words);
  assert_int_equal(tcmma_render_kernel_signature(TCMMA_DIALECT_CUDA, a, "k", "", &b, &err),
                   TCMMA_INVALID);
  assert_int_equal(b.len, 0);
  tcmma_buf_free(&b);
}

static void bad_input_is_named(void **state) {
  (void)state;
  declined(&(tcmma_kernel_attrs)TCMMA_KERNEL_ATTRS_INIT(.max_threads = 2048), "max_threads 2048");
  declined(&(tcmma_kernel_attrs)TCMMA_KERNEL_ATTRS_INIT(.max_threads = -1), "1 to 1024");
  declined(&(tcmma_kernel_attrs)TCMMA_KERNEL_ATTRS_INIT(.min_blocks = 2), "without max_threads");
  declined(&(tcmma_kernel_attrs)TCMMA_KERNEL_ATTRS_INIT(.max_threads = 64, .min_blocks = -2),
           "min_blocks -2");
  declined(&(tcmma_kernel_attrs)TCMMA_KERNEL_ATTRS_INIT(.max_threads = 64, .cluster_blocks = 9),
           "cluster_blocks 9");
  declined(&(tcmma_kernel_attrs)TCMMA_KERNEL_ATTRS_INIT(.max_threads = 64, .cluster_blocks = 2,
                                                        .cluster = {2, 1, 1}),
           ".maxclusterrank and .reqnctapercluster");
  declined(&(tcmma_kernel_attrs)TCMMA_KERNEL_ATTRS_INIT(.max_regs = 16), "max_regs 16");
  declined(&(tcmma_kernel_attrs)TCMMA_KERNEL_ATTRS_INIT(.max_regs = 256), "24 to 255");
  declined(&(tcmma_kernel_attrs)TCMMA_KERNEL_ATTRS_INIT(.max_threads = 64, .max_regs = 64),
           "__maxnreg__ and __launch_bounds__");
  declined(&(tcmma_kernel_attrs)TCMMA_KERNEL_ATTRS_INIT(.cluster = {2, 0, 1}), "cluster 2x0x1");
  declined(&(tcmma_kernel_attrs)TCMMA_KERNEL_ATTRS_INIT(.cluster = {4, 4, 1}), "cluster 4x4x1");
  declined(&(tcmma_kernel_attrs)TCMMA_KERNEL_ATTRS_INIT(.max_regs = 64, .setmaxnreg_dec = 20),
           "setmaxnreg_dec 20: expected 0 (none) or a multiple of 8 in 24..256");
  declined(&(tcmma_kernel_attrs)TCMMA_KERNEL_ATTRS_INIT(.max_regs = 64, .setmaxnreg_inc = 264),
           "setmaxnreg_inc 264");
  declined(&(tcmma_kernel_attrs)TCMMA_KERNEL_ATTRS_INIT(.setmaxnreg_inc = 240),
           "register count at entry");
  tcmma_kernel_attrs zero = {0};
  declined(&zero, "tcmma_kernel_attrs_default()");
  tcmma_error err;
  tcmma_buf b = {0};
  tcmma_kernel_attrs ok = tcmma_kernel_attrs_default();
  assert_int_equal(tcmma_render_kernel_signature(TCMMA_DIALECT_CUDA, &ok, "1k", "", &b, &err),
                   TCMMA_INVALID);
  assert_non_null(strstr(err.message, "'1k'"));
  assert_int_equal(tcmma_render_kernel_signature((tcmma_dialect)7, &ok, "k", "", &b, &err),
                   TCMMA_INVALID);
  assert_non_null(strstr(err.message, "dialect 7"));
  assert_int_equal(tcmma_render_kernel_signature(TCMMA_DIALECT_CUDA, &ok, "k", NULL, &b, &err),
                   TCMMA_INVALID);
  static const int counts[] = {0, 20, 23, 41, 264};
  for (size_t i = 0; i < sizeof counts / sizeof *counts; i++) {
    assert_int_equal(tcmma_render_setmaxnreg(TCMMA_DIALECT_CUDA, TCMMA_SETMAXNREG_INC, counts[i], 0,
                                             &b, &err), TCMMA_INVALID);
    char want[32];
    snprintf(want, sizeof want, "count %d", counts[i]);
    assert_non_null(strstr(err.message, want));
  }
  assert_int_equal(tcmma_render_setmaxnreg(TCMMA_DIALECT_CUDA, (tcmma_setmaxnreg_dir)2, 24, 0, &b,
                                           &err), TCMMA_INVALID);
  assert_non_null(strstr(err.message, "direction 2"));
  assert_int_equal(b.len, 0);
  tcmma_buf_free(&b);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(rows_are_whole),
      cmocka_unit_test(markers_are_the_rows),
      cmocka_unit_test(signature_text),
      cmocka_unit_test(setmaxnreg_text),
      cmocka_unit_test(host_dialect_runs),
      cmocka_unit_test(kernels_open_through_it),
      cmocka_unit_test(floors_by_nvrtc),
      cmocka_unit_test(setmaxnreg_by_ptxas),
      cmocka_unit_test(rules_by_nvrtc),
      cmocka_unit_test(options_pick_the_floors),
      cmocka_unit_test(bad_input_is_named),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
