/* The ring pieces and the dialect-neutral glue (include/tcmma/ring.h): a
 * hand-written multi-warp, multi-stage GEMM composed only from the public
 * pieces and the glue runs on the block simulator against the reference
 * (ragged M, N and K) and compiles under NVRTC at sm_80 with no warning;
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

/* How the hand-written kernel is broken (NONE: not). */
typedef enum { BREAK_NONE, BREAK_WAIT, BREAK_BARRIER } breakage;

#define OK(call)                                                      \
  do {                                                                \
    tcmma_error e_ = {0};                                             \
    tcmma_error *err = &e_;                                           \
    if ((call) != TCMMA_OK) fail_msg("%s: %s", #call, e_.message);    \
  } while (0)

/* One k tile's products from stage `stage`, with the warp plan's pieces. */
static void compute(const tcmma_render_ctx *w, const tcmma_gemm_plan *p, const char *stage) {
  tcmma_render_ctx r = *w;
  tcmma_buf_printf(r.out, "{\n");
  OK(tcmma_render_gemm_ring_tiles(&r, p, NULL, stage, "as", "bs", err));
  for (int ks = 0; ks < w->plan->kt; ks++) {
    char k[16];
    snprintf(k, sizeof k, "%d", ks);
    OK(tcmma_render_frag_load(&r, TCMMA_OPERAND_A, "af", "as", k, err));
    OK(tcmma_render_frag_load(&r, TCMMA_OPERAND_B, "bf", "bs", k, err));
    OK(tcmma_render_frag_mma(&r, "acc", "af", "bf", err));
  }
  tcmma_buf_printf(r.out, "}\n");
}

/* The main loop: wait for k tile kt, barrier, refill the ring, multiply. */
static void main_loop(const tcmma_render_ctx *w, const tcmma_gemm_plan *p, breakage brk) {
  tcmma_buf *out = w->out;
  int S = p->call.stages, KT = p->k_tiles;
  for (int s = 0; s < S - 1; s++) { /* the prologue: S - 1 k tiles in flight */
    char n[16];
    snprintf(n, sizeof n, "%d", s);
    if (s < KT) OK(tcmma_render_gemm_ring_load(w, p, NULL, n, n, err));
    OK(tcmma_render_gemm_ring_commit(w, p, NULL, err));
  }
  tcmma_buf_printf(out, "for (int kt = 0; kt < %d; ++kt) {\n", KT);
  OK(tcmma_render_gemm_ring_wait(w, p, NULL, brk == BREAK_WAIT ? S - 1 : S - 2, err));
  if (brk != BREAK_BARRIER) tcmma_buf_printf(out, "TCMMA_SYNC();\n");
  char stage[32], tile[32], read[32];
  snprintf(stage, sizeof stage, "(kt + %d) %% %d", S - 1, S);
  snprintf(tile, sizeof tile, "kt + %d", S - 1);
  snprintf(read, sizeof read, "kt %% %d", S);
  tcmma_buf_printf(out, "if (kt + %d < %d)\n", S - 1, KT);
  OK(tcmma_render_gemm_ring_load(w, p, NULL, stage, tile, err));
  OK(tcmma_render_gemm_ring_commit(w, p, NULL, err));
  compute(w, p, read);
  tcmma_buf_printf(out, "}\n");
}

/* The hand-written kernel `tcmma_kernel(d, a, b, c, alpha, beta)` of p in
 * dialect dl: only the ring pieces, the warp call's fragment pieces and
 * the glue; the HOST text adds the simulator's entry. */
static void hand_kernel(const tcmma_gemm_plan *p, tcmma_dialect dl, breakage brk, tcmma_buf *out) {
  char exprs[TCMMA_GEMM_WARP_EXPRS_BYTES];
  tcmma_call wc;
  tcmma_plan wp;
  OK(tcmma_gemm_warp_call(p, NULL, exprs, sizeof exprs, &wc, err));
  OK(tcmma_plan_call(&wc, &wp, err));
  tcmma_names names = {NULL, 0};
  tcmma_render_ctx w = tcmma_render_ctx_make(&wp, dl, &names, out);
  OK(tcmma_render_includes(&w, true, err));
  OK(tcmma_render_glue(&w, err));
  tcmma_buf_printf(out, "\nTCMMA_KERNEL tcmma_kernel(float *d, const void *a, const void *b, "
                        "const float *c, float alpha, float beta)\n{\nTCMMA_DYN_SHARED(smem);\n");
  OK(tcmma_render_gemm_ring_decls(&w, p, NULL, "smem", "a", "b", NULL, NULL, err));
  OK(tcmma_render_frag_decl(&w, TCMMA_OPERAND_C, "acc", 0, err));
  OK(tcmma_render_frag_decl(&w, TCMMA_OPERAND_A, "af", 0, err));
  OK(tcmma_render_frag_decl(&w, TCMMA_OPERAND_B, "bf", 0, err));
  OK(tcmma_render_acc_init(&w, "acc", "(float *)smem", err));
  main_loop(&w, p, brk);
  OK(tcmma_render_gemm_ring_store(&w, p, NULL, "acc", "d", "c", "alpha", "beta", err));
  tcmma_buf_printf(out, "}\n");
  if (dl == TCMMA_DIALECT_HOST)
    tcmma_buf_printf(out, "\nvoid tcmma_kernel_entry(void *args);\nvoid tcmma_kernel_entry(void "
                          "*args)\n{\n  void **p = (void **)args;\n  tcmma_kernel((float *)p[0], "
                          "p[1], p[2], (const float *)p[3], *(const float *)p[4], "
                          "*(const float *)p[5]);\n}\n");
}

typedef struct {
  int m, n, k, bm, bn, bk, wm, wn, stages;
  bool at, bt;
} ring_shape;

/* Ragged in M, N and K; 2x2 warps over 3 stages; 1x2 warps over 4 (a
 * power of two: the stage masks), A stored transposed. */
static const ring_shape shapes[] = {
    {100, 72, 200, 64, 64, 32, 2, 2, 3, false, false},
    {70, 130, 90, 32, 64, 32, 1, 2, 4, true, false},
    {48, 40, 64, 32, 32, 32, 2, 1, 2, false, true},
};

static tcmma_gemm_call call_of(const ring_shape *s) {
  tcmma_gemm_call c = tcmma_gemm_call_default();
  c.m = s->m, c.n = s->n, c.k = s->k;
  c.block_m = s->bm, c.block_n = s->bn, c.block_k = s->bk;
  c.warps_m = s->wm, c.warps_n = s->wn, c.stages = s->stages;
  c.a.transposed = s->at, c.b.transposed = s->bt;
  c.name = "tcmma_kernel";
  return c;
}

/* Runs the hand-written kernel of shape s (broken as brk) on the
 * simulator; r says how it went. */
static bool run_hand(const ring_shape *s, breakage brk, verify_case_result *r) {
  tcmma_gemm_call c = call_of(s);
  tcmma_gemm_plan p;
  OK(tcmma_gemm_plan_call(&c, &p, err));
  tcmma_buf text = {0};
  hand_kernel(&p, TCMMA_DIALECT_HOST, brk, &text);
  void *h = host_module_open(tcmma_buf_str(&text));
  void *sym = h ? dlsym(h, "tcmma_kernel_entry") : NULL;
  if (!sym) fail_msg("host text does not compile:\n%s", tcmma_buf_str(&text));
  sim_entry entry;
  memcpy(&entry, &sym, sizeof sym);
  verify_gemm_case cs = {.call = c, .opts = tcmma_gemm_opts_default(), .alpha = 1.5, .beta = -0.5};
  snprintf(cs.name, sizeof cs.name, "ring/%dx%dx%d/w%dx%d/s%d/break%d", s->m, s->n, s->k, s->wm,
           s->wn, s->stages, (int)brk);
  bool ok = verify_gemm_case_run(&cs, &p, verify_gemm_sim_runner, &entry, r);
  dlclose(h);
  tcmma_buf_free(&text);
  return ok;
}

static void hand_kernel_matches_the_reference(void **st) {
  (void)st;
  assert_non_null(verify_sim_keep);
  for (size_t i = 0; i < sizeof shapes / sizeof *shapes; i++) {
    verify_case_result r = {0};
    if (!run_hand(&shapes[i], BREAK_NONE, &r)) fail_msg("shape %zu: %s", i, r.reason);
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
  assert_false(run_hand(&shapes[0], BREAK_WAIT, &r));
  if (!strstr(r.reason, "cp.async into them")) fail_msg("weak wait: %s", r.reason);
  memset(&r, 0, sizeof r);
  assert_false(run_hand(&shapes[0], BREAK_BARRIER, &r));
  if (!strstr(r.reason, "__syncthreads since") && !strstr(r.reason, "cp.async into them") &&
      !strstr(r.reason, "overwritten while in use"))
    fail_msg("no barrier: %s", r.reason);
}

/* The same text under NVRTC at sm_80: a CUBIN, no warning. */
static void hand_kernel_compiles(void **st) {
  (void)st;
  tcmma_error why = {0};
  if (tcmma_nvrtc_load(NULL, &why) != TCMMA_OK) {
    printf("no NVRTC here: %s\n", why.message);
    skip();
  }
  for (size_t i = 0; i < sizeof shapes / sizeof *shapes; i++) {
    tcmma_gemm_call c = call_of(&shapes[i]);
    c.cc = 80;
    tcmma_gemm_plan p;
    OK(tcmma_gemm_plan_call(&c, &p, err));
    tcmma_buf text = {0};
    hand_kernel(&p, TCMMA_DIALECT_CUDA, BREAK_NONE, &text);
    tcmma_compile_opts o = TCMMA_COMPILE_OPTS_INIT(.sass = true, .arch = 80);
    tcmma_program prog;
    if (tcmma_compile(text.data, text.len, &o, &prog, &why) != TCMMA_OK)
      fail_msg("compile: %s\n%s\n%s", why.message, prog.log ? prog.log : "", text.data);
    assert_non_null(prog.cubin);
    assert_string_equal(prog.target_arch, "sm_80");
    if (strstr(prog.log, "warning")) fail_msg("warnings:\n%s", prog.log);
    assert_int_equal(prog.spill_store_bytes, 0);
    tcmma_program_free(&prog);
    tcmma_buf_free(&text);
  }
}

/* Each bad input is TCMMA_INVALID naming the value; nothing is appended. */
static void bad_input_is_refused(void **st) {
  (void)st;
  tcmma_gemm_call c = call_of(&shapes[0]);
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
      cmocka_unit_test(hand_kernel_matches_the_reference),
      cmocka_unit_test(broken_rings_are_caught),
      cmocka_unit_test(hand_kernel_compiles),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
