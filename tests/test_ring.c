/* The ring pieces and the dialect-neutral glue (include/tcmma/ring.h): the
 * generator of docs/emit.md (Ring pieces), a hand-written multi-warp,
 * multi-stage GEMM composed only from the public pieces and the glue, is
 * built from the document; its host text runs on the block simulator
 * against the reference (ragged M, N and K) and its CUDA text compiles
 * under NVRTC at sm_80 with no warning;
 * its broken variants (a wait that lets a stage be read before it landed,
 * a missing barrier) are races the simulator names; bad input is refused
 * naming the value, appending nothing. */
#include "util.h"
#include <dlfcn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "tcmma/tcmma.h"
#include "tcmma/sim.h"
#include "tools/verify/gemm.h"
#include "tools/verify/sim.h"

/* The simulator's whole table of functions, kept in the link so that the
 * host modules find every one (tools/verify/sim_module.c). */
typedef void (*any_fn)(void);
extern const any_fn verify_sim_keep[];

/* A call that must succeed, its message on failure (err in its scope). */
#define OK(call)                                                   \
  do {                                                             \
    tcmma_error e_ = {0};                                          \
    tcmma_error *err = &e_;                                        \
    if ((call) != TCMMA_OK) fail_msg("%s: %s", #call, e_.message); \
  } while (0)

/* The generator of docs/emit.md (Ring pieces), built once. */
static char *example, example_dir[64];

static int build_example(void **st) {
  (void)st;
  example = doc_example_build("docs/emit.md", "## Ring pieces", example_dir, sizeof example_dir);
  return 0; /* each test fails on its own when it is missing */
}

static int remove_example(void **st) {
  (void)st;
  if (example) doc_example_remove(example_dir);
  free(example);
  return 0;
}

/* A shape the generator takes: M N K, block, warps, stages, A stored
 * transposed (its arguments, in order). */
typedef struct {
  int m, n, k, bm, bn, wm, wn, stages, at;
} ring_shape;

/* Ragged in M, N and K; 2x2 warps over 3 stages; 1x2 warps over 4 (a
 * power of two: the stage masks) with A transposed; 2x1 over 2 stages. */
static const ring_shape shapes[] = {
    {100, 72, 200, 64, 64, 2, 2, 3, 0},
    {70, 130, 90, 32, 64, 1, 2, 4, 1},
    {48, 40, 64, 32, 32, 2, 1, 2, 0},
};

/* The call the generator plans for s. */
static tcmma_gemm_call call_of(const ring_shape *s) {
  tcmma_gemm_call c = tcmma_gemm_call_default();
  c.m = s->m, c.n = s->n, c.k = s->k, c.block_m = s->bm, c.block_n = s->bn, c.block_k = 32;
  c.warps_m = s->wm, c.warps_n = s->wn, c.stages = s->stages, c.a.transposed = s->at;
  c.cc = 80;
  return c;
}

/* What the generator prints for s in dialect ("cuda" or "host"); owned. */
static char *generated(const char *dialect, const ring_shape *s) {
  if (!example) fail_msg("the docs/emit.md ring example does not build");
  char cmd[1024];
  snprintf(cmd, sizeof cmd, "%s %s %d %d %d %d %d %d %d %d %d", example, dialect, s->m, s->n,
           s->k, s->bm, s->bn, s->wm, s->wn, s->stages, s->at);
  FILE *f = popen(cmd, "r");
  assert_non_null(f);
  tcmma_buf out = {0};
  char chunk[4096];
  size_t n;
  while ((n = fread(chunk, 1, sizeof chunk, f)) > 0) tcmma_buf_append(&out, chunk, n);
  if (pclose(f) != 0) fail_msg("%s failed", cmd);
  return out.data;
}

/* text with the first `from` after `after` replaced by `to`; owned. */
static char *replaced(const char *text, const char *after, const char *from, const char *to) {
  const char *a = strstr(text, after), *f = a ? strstr(a, from) : NULL;
  if (!f) fail_msg("no '%s' after '%s'", from, after);
  size_t n = strlen(text) - strlen(from) + strlen(to) + 1;
  char *out = malloc(n);
  assert_non_null(out);
  snprintf(out, n, "%.*s%s%s", (int)(f - text), text, to, f + strlen(from));
  return out;
}

/* How the generated kernel is broken (NONE: not). */
typedef enum { BREAK_NONE, BREAK_WAIT, BREAK_BARRIER } breakage;

/* Runs the generated kernel of shape s (broken as brk) on the simulator
 * against the reference; r says how it went. */
static bool run_generated(const ring_shape *s, breakage brk, verify_case_result *r) {
  char *text = generated("host", s), *run = text;
  const char *loop = "for (int kt = 0;";
  char weak[64], wait[64];
  snprintf(wait, sizeof wait, "tcmma_sim_cp_async_wait_group(%d);", s->stages - 2);
  snprintf(weak, sizeof weak, "tcmma_sim_cp_async_wait_group(%d);", s->stages - 1);
  if (brk == BREAK_WAIT) run = replaced(text, loop, wait, weak);
  if (brk == BREAK_BARRIER) run = replaced(text, loop, "TCMMA_SYNC();\n", "");
  void *h = host_module_open(run);
  void *sym = h ? dlsym(h, "tcmma_kernel_entry") : NULL;
  if (!sym) fail_msg("host text does not compile:\n%s", run);
  sim_entry entry;
  memcpy(&entry, &sym, sizeof sym);
  tcmma_gemm_call c = call_of(s);
  tcmma_gemm_plan p;
  OK(tcmma_gemm_plan_call(&c, &p, err)); /* the generator's plan, for the launch */
  verify_gemm_case cs = {.call = c, .opts = tcmma_gemm_opts_default(), .alpha = 1.5, .beta = -0.5};
  snprintf(cs.name, sizeof cs.name, "ring/%dx%dx%d/w%dx%d/s%d/break%d", s->m, s->n, s->k, s->wm,
           s->wn, s->stages, (int)brk);
  bool ok = verify_gemm_case_run(&cs, &p, verify_gemm_sim_runner, &entry, r);
  dlclose(h);
  if (run != text) free(run);
  free(text);
  return ok;
}

static void generated_kernel_matches_the_reference(void **st) {
  (void)st;
  assert_non_null(verify_sim_keep);
  for (size_t i = 0; i < sizeof shapes / sizeof *shapes; i++) {
    verify_case_result r = {0};
    if (!run_generated(&shapes[i], BREAK_NONE, &r)) fail_msg("shape %zu: %s", i, r.reason);
    printf("passed shape %zu: %s\n", i, r.reason);
  }
}

/* A wait one group too weak reads a stage before its copies landed; no
 * barrier after the wait reads other threads' copies unsynchronized (or
 * refills a stage another warp still reads): each a race the simulator
 * names, never a silent wrong answer. */
static void broken_rings_are_caught(void **st) {
  (void)st;
  verify_case_result r = {0};
  assert_false(run_generated(&shapes[0], BREAK_WAIT, &r));
  if (!strstr(r.reason, "cp.async into them")) fail_msg("weak wait: %s", r.reason);
  memset(&r, 0, sizeof r);
  assert_false(run_generated(&shapes[0], BREAK_BARRIER, &r));
  if (!strstr(r.reason, "__syncthreads since") && !strstr(r.reason, "cp.async into them") &&
      !strstr(r.reason, "overwritten while in use"))
    fail_msg("no barrier: %s", r.reason);
}

/* The same generator's CUDA text under NVRTC at sm_80: a CUBIN, no
 * warning, no spill. */
static void generated_kernel_compiles(void **st) {
  (void)st;
  tcmma_error why = {0};
  if (tcmma_nvrtc_load(NULL, &why) != TCMMA_OK) {
    printf("no NVRTC here: %s\n", why.message);
    skip();
  }
  for (size_t i = 0; i < sizeof shapes / sizeof *shapes; i++) {
    char *text = generated("cuda", &shapes[i]);
    tcmma_compile_opts o = TCMMA_COMPILE_OPTS_INIT(.sass = true, .arch = 80);
    tcmma_program prog;
    if (tcmma_compile(text, strlen(text), &o, &prog, &why) != TCMMA_OK)
      fail_msg("compile: %s\n%s\n%s", why.message, prog.log ? prog.log : "", text);
    assert_non_null(prog.cubin);
    assert_string_equal(prog.target_arch, "sm_80");
    if (strstr(prog.log, "warning")) fail_msg("warnings:\n%s", prog.log);
    assert_int_equal(prog.spill_store_bytes, 0);
    tcmma_program_free(&prog);
    free(text);
  }
}

/* Each bad input is TCMMA_INVALID naming the value; nothing is appended. */
static void bad_input_is_refused(void **st) {
  (void)st;
  tcmma_gemm_call c = call_of(&shapes[0]);
  c.cc = 0;
  tcmma_gemm_plan p, changed;
  OK(tcmma_gemm_plan_call(&c, &p, err));
  changed = p, changed.threads += 32;
  tcmma_gemm_opts args = tcmma_gemm_opts_default();
  args.shape_args = true;
  tcmma_gemm_plan pa, p8;
  OK(tcmma_gemm_plan_opts(&c, &args, &pa, NULL, err));
  tcmma_gemm_opts a8 = tcmma_gemm_opts_default();
  a8.a_align = 8; /* 8-byte copies of A: other per-thread copy counts */
  OK(tcmma_gemm_plan_opts(&c, &a8, &p8, NULL, err));
  tcmma_buf out = {0};
  tcmma_names names = {NULL, 0};
  const tcmma_render_ctx *x = RCTX(NULL, TCMMA_DIALECT_CUDA, &names, &out);
  tcmma_error e = {0};
#define BAD(call, want)                                                          \
  do {                                                                         \
    memset(&e, 0, sizeof e);                                                   \
    assert_int_equal((call), TCMMA_INVALID);                                   \
    if (!strstr(e.message, want)) fail_msg("%s: '%s' lacks '%s'", #call, e.message, want); \
    assert_int_equal(out.len, 0);                                              \
  } while (0)
  BAD(tcmma_render_gemm_ring_load(x, &p, NULL, "3", "0", &e), "stage '3' is outside: expected 0 to 2");
  BAD(tcmma_render_gemm_ring_load(x, &p, NULL, "-1", "0", &e), "stage '-1'");
  BAD(tcmma_render_gemm_ring_load(x, &p, NULL, "0", "7", &e), "ktile '7' is outside: expected 0 to 6");
  BAD(tcmma_render_gemm_ring_load(x, &p, NULL, "0", "  ", &e), "ktile expression '  '");
  BAD(tcmma_render_gemm_ring_load(x, &p, NULL, NULL, "0", &e), "stage expression '(null)'");
  BAD(tcmma_render_gemm_ring_load(x, &changed, NULL, "0", "0", &e), "threads");
  BAD(tcmma_render_gemm_ring_load(x, &pa, &args, "0", "0", &e), "shape_args true");
  BAD(tcmma_render_gemm_ring_load(x, &p8, NULL, "0", "0", &e), "other tcmma_gemm_opts");
  BAD(tcmma_render_gemm_ring_load(NULL, &p, NULL, "0", "0", &e), "");
  BAD(tcmma_render_gemm_ring_wait(x, &p, NULL, 3, &e), "wait_group 3: expected 0 to 2");
  BAD(tcmma_render_gemm_ring_wait(x, &p, NULL, -1, &e), "wait_group -1");
  BAD(tcmma_render_gemm_ring_commit(x, &changed, NULL, &e), "threads");
  BAD(tcmma_render_gemm_ring_decls(x, &p, NULL, "", "a", "b", NULL, NULL, &e), "smem expression ''");
  BAD(tcmma_render_gemm_ring_decls(x, &p, NULL, "s", "a", "b", NULL, " ", &e), "n0 expression ' '");
  BAD(tcmma_render_gemm_ring_tiles(x, &p, NULL, "0", "as", "2bs", &e), "tile name '2bs'");
  BAD(tcmma_render_gemm_ring_tiles(x, &p, NULL, "5", "as", "bs", &e), "stage '5'");
  BAD(tcmma_render_gemm_ring_store(x, &p, NULL, "acc", "d", "c", NULL, "beta", &e),
      "alpha expression '(null)'");
  char exprs[TCMMA_GEMM_WARP_EXPRS_BYTES];
  tcmma_call wc;
  BAD(tcmma_gemm_warp_call(&p, NULL, exprs, sizeof exprs - 1, &wc, &e), "cap 191");
  BAD(tcmma_gemm_warp_call(&changed, NULL, exprs, sizeof exprs, &wc, &e), "threads");
  /* the store's accumulator block needs names */
  BAD(tcmma_render_gemm_ring_store(RCTX(NULL, TCMMA_DIALECT_CUDA, NULL, &out), &p, NULL, "acc",
                                   "d", "c", "alpha", "beta", &e), "names");
#undef BAD
  assert_int_equal(names.next, 0);
}

/* Below cc 80 the loader copies with plain loads: the ring's commit and
 * wait render nothing, its loads no cp.async. */
static void plain_loader_has_no_groups(void **st) {
  (void)st;
  tcmma_gemm_call c = call_of(&shapes[0]);
  c.cc = 75, c.a.prec = c.b.prec = TCMMA_PREC_F16;
  tcmma_gemm_plan p;
  OK(tcmma_gemm_plan_call(&c, &p, err));
  tcmma_buf out = {0};
  const tcmma_render_ctx *x = RCTX(NULL, TCMMA_DIALECT_CUDA, NULL, &out);
  OK(tcmma_render_gemm_ring_commit(x, &p, NULL, err));
  OK(tcmma_render_gemm_ring_wait(x, &p, NULL, 1, err));
  assert_int_equal(out.len, 0);
  OK(tcmma_render_gemm_ring_load(x, &p, NULL, "kt % 3", "kt", err));
  assert_non_null(strstr(tcmma_buf_str(&out), "plain loads"));
  assert_null(strstr(tcmma_buf_str(&out), "cp.async"));
  tcmma_buf_free(&out);
  c.cc = 80; /* the same call at cc 80 copies with cp.async */
  OK(tcmma_gemm_plan_call(&c, &p, err));
  OK(tcmma_render_gemm_ring_commit(x, &p, NULL, err));
  assert_non_null(strstr(tcmma_buf_str(&out), "cp.async.commit_group"));
  tcmma_buf_free(&out);
}

/* The glue: every row defined in both dialects, guarded, and the host
 * text with the glue compiles twice over (a second rendering is
 * harmless). */
static void glue_in_both_dialects(void **st) {
  (void)st;
  static const char *const macros[] = {
      "TCMMA_KERNEL", "TCMMA_DYN_SHARED(name)", "TCMMA_SYNC()", "TCMMA_SYNCWARP()", "TCMMA_TID()",
      "TCMMA_BID(axis)", "TCMMA_CP_ASYNC_COMMIT()", "TCMMA_CP_ASYNC_WAIT(n)",
      "TCMMA_CP_ASYNC_ZFILL(dst, src, bytes, src_bytes)"};
  for (int d = 0; d < 2; d++) {
    tcmma_buf out = {0};
    OK(tcmma_render_glue(RCTX(NULL, (tcmma_dialect)d, NULL, &out), err));
    for (size_t i = 0; i < sizeof macros / sizeof *macros; i++) {
      char def[96];
      snprintf(def, sizeof def, "#define %s ", macros[i]);
      if (!strstr(tcmma_buf_str(&out), def)) fail_msg("dialect %d lacks %s:\n%s", d, def, out.data);
    }
    const char *want = d ? "tcmma_sim_cp_async_wait_group(n)" : "cp.async.wait_group %0;";
    assert_non_null(strstr(tcmma_buf_str(&out), want));
    tcmma_buf_free(&out);
  }
  tcmma_buf host = {0}, out1 = {0};
  tcmma_buf_printf(&host, "#include \"tcmma/sim.h\"\n");
  OK(tcmma_render_glue(RCTX(NULL, TCMMA_DIALECT_HOST, NULL, &host), err));
  OK(tcmma_render_glue(RCTX(NULL, TCMMA_DIALECT_HOST, NULL, &host), err));
  tcmma_buf_printf(&host, "int glue_probe(void);\nint glue_probe(void) { TCMMA_SYNC(); "
                          "TCMMA_CP_ASYNC_COMMIT(); TCMMA_CP_ASYNC_WAIT(0); return TCMMA_TID() + "
                          "TCMMA_BID(1); }\n");
  void *h = host_module_open(tcmma_buf_str(&host));
  if (!h) fail_msg("glue does not compile:\n%s", host.data);
  int (*probe)(void);
  void *sym = dlsym(h, "glue_probe");
  assert_non_null(sym);
  memcpy(&probe, &sym, sizeof sym);
  assert_int_equal(probe(), 0); /* outside a launch: thread and block 0 */
  dlclose(h);
  tcmma_buf_free(&host);
  memset(&host, 0, sizeof host);
  host.failed = true; /* a failed buffer is refused, as every renderer does */
  tcmma_error e = {0};
  assert_int_equal(tcmma_render_glue(RCTX(NULL, TCMMA_DIALECT_CUDA, NULL, &host), &e),
                   TCMMA_NO_MEMORY);
  assert_int_equal(tcmma_render_glue(RCTX(NULL, (tcmma_dialect)7, NULL, &out1), &e), TCMMA_INVALID);
  assert_non_null(strstr(e.message, "7"));
  assert_int_equal(out1.len, 0);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(bad_input_is_refused),
      cmocka_unit_test(glue_in_both_dialects),
      cmocka_unit_test(plain_loader_has_no_groups),
      cmocka_unit_test(generated_kernel_matches_the_reference),
      cmocka_unit_test(broken_rings_are_caught),
      cmocka_unit_test(generated_kernel_compiles),
  };
  return cmocka_run_group_tests(tests, build_example, remove_example);
}
