/* The GEMM's loader ring, stage tiles and bounds-checked store as public
 * pieces (include/tcmma/ring.h; docs/emit.md, Ring pieces): each checks
 * its plan and expressions, renders the GEMM kernel's own emitters
 * (mma/render_gemm_io.c) into a scratch buffer and appends that text with
 * the kernel's parameter names (a, b, d, c, alpha, beta) renamed to the
 * pieces' locals, which hold the caller's expressions. */
#include <stdio.h>
#include <string.h>
#include "emit.h"
#include "gemm_rules.h"
#include "tcmma/ring.h"

#define P TCMMA__GEMM_P

/* The kernel's parameter names the GEMM emitters write, and the locals the
 * ring pieces hold the caller's expressions in. */
static const char *const kernel_names[] = {"a", "b", "d", "c", "alpha", "beta"};
static const char *const ring_names[] = {P "ra", P "rb", P "rd", P "rc", P "ralpha", P "rbeta"};
#define NAMES ((int)(sizeof kernel_names / sizeof *kernel_names))

_Static_assert(sizeof(tcmma__emit_gemm_exprs) <= TCMMA_GEMM_WARP_EXPRS_BYTES,
               "the warp call's origin expressions fit the caller's bytes");

/* plan's form with opts, refusing what only the whole kernel renders. */
static tcmma_status plan_form(const tcmma_gemm_plan *plan, const tcmma_gemm_opts *opts,
                              tcmma__emit_gemm_form *f, tcmma_error *err) {
  tcmma_status st = tcmma__emit_gemm_form_take(plan, opts, f, err);
  if (st != TCMMA_OK) return st;
  const tcmma_gemm_info *i = &f->i;
  if (i->shape_args || i->batch > 1 || i->split_k > 1 || f->o.pointer_array)
    return tcmma_fail(err, TCMMA_INVALID, "ring pieces: opts shape_args %s, batch %d, "
                      "pointer_array %s, split_k %d: the pieces take one fixed-shape GEMM "
                      "(shape_args and pointer_array false, batch and split_k 1; the whole "
                      "kernel takes the others: tcmma_render_gemm_opts)",
                      i->shape_args ? "true" : "false", i->batch,
                      f->o.pointer_array ? "true" : "false", i->split_k);
  if (i->scale_block)
    return tcmma_fail(err, TCMMA_INVALID, "ring pieces: arm %s is block-scaled: its scales and "
                      "packed stages render with the whole kernel only "
                      "(tcmma_render_gemm_opts)", tcmma_arm_marker(plan->arm));
  return TCMMA_OK;
}

/* A ring piece's context, plan and expressions (what[i] names exprs[i]). */
static tcmma_status ring_form(const tcmma_render_ctx *ctx, const tcmma_gemm_plan *plan,
                              const tcmma_gemm_opts *opts, const char *const *what,
                              const char *const *exprs, int n, tcmma__emit_gemm_form *f,
                              tcmma_error *err) {
  tcmma_status st = tcmma__emit_ctx_check(ctx, err);
  if (st == TCMMA_OK) st = plan_form(plan, opts, f, err);
  for (int i = 0; st == TCMMA_OK && i < n; i++)
    if (!tcmma__emit_expr_ok(exprs[i]))
      st = tcmma_fail(err, TCMMA_INVALID, "%s expression '%.60s': expected 1 to %d characters, "
                      "not all blank", what[i], exprs[i] ? exprs[i] : "(null)", TCMMA_EXPR_MAX);
  return st;
}

/* A literal expr (what) must be in 0..count-1 (of: whose count). */
static tcmma_status check_index(const char *what, const char *expr, long count, const char *of,
                                tcmma_error *err) {
  long v;
  int lit = tcmma__emit_literal(expr, &v);
  if (lit && (lit < 0 || v < 0 || v >= count))
    return tcmma_fail(err, TCMMA_INVALID, "%s '%s' is %s: expected 0 to %ld (the plan's %ld %s)",
                      what, expr, lit < 0 ? "out of long's range" : "outside", count - 1, count,
                      of);
  return TCMMA_OK;
}

/* Appends the GEMM emitters' text in tmp to dst with the kernel's names
 * renamed to the ring's locals (the caller's expressions never pass
 * through the renaming: they are declared into those locals first). */
static void append_renamed(tcmma_buf *dst, tcmma_buf *tmp) {
  if (tmp->failed) dst->failed = true;
  else tcmma__emit_rename(tcmma_buf_str(tmp), kernel_names, ring_names, NAMES, dst);
  tcmma_buf_free(tmp);
}

/* Appends s to ctx->out. */
static tcmma_status finish(const tcmma_render_ctx *ctx, tcmma_buf *s, tcmma_error *err) {
  if (!s->failed) tcmma_buf_append(ctx->out, tcmma_buf_str(s), s->len);
  bool failed = s->failed || ctx->out->failed;
  tcmma_buf_free(s);
  return failed ? tcmma_fail(err, TCMMA_NO_MEMORY, "out of memory") : TCMMA_OK;
}

tcmma_status tcmma_gemm_warp_call(const tcmma_gemm_plan *plan, const tcmma_gemm_opts *opts,
                                  char *exprs, size_t cap, tcmma_call *out, tcmma_error *err) {
  if (!exprs || !out)
    return tcmma_fail(err, TCMMA_INVALID, "gemm warp call: exprs and out must not be NULL");
  if (cap < TCMMA_GEMM_WARP_EXPRS_BYTES)
    return tcmma_fail(err, TCMMA_INVALID, "gemm warp call: cap %zu: expected at least %d "
                      "(TCMMA_GEMM_WARP_EXPRS_BYTES)", cap, TCMMA_GEMM_WARP_EXPRS_BYTES);
  tcmma__emit_gemm_form f;
  tcmma_status st = plan_form(plan, opts, &f, err);
  if (st != TCMMA_OK) return st;
  tcmma__emit_gemm_exprs x;
  tcmma_call w;
  tcmma__emit_gemm_warp_call(plan, &x, &w);
  memcpy(exprs, &x, sizeof x);
  /* the origins point into the caller's copy of the expressions */
  tcmma_coord *cs[] = {&w.a.row0, &w.a.col0, &w.b.row0, &w.b.col0, &w.d.row0, &w.d.col0};
  for (size_t i = 0; i < sizeof cs / sizeof *cs; i++)
    if (cs[i]->expr) cs[i]->expr = exprs + (cs[i]->expr - (const char *)&x);
  *out = w;
  return TCMMA_OK;
}

tcmma_status tcmma_render_gemm_ring_decls(const tcmma_render_ctx *ctx, const tcmma_gemm_plan *plan,
                                          const tcmma_gemm_opts *opts, const char *smem,
                                          const char *a, const char *b, const char *m0,
                                          const char *n0, tcmma_error *err) {
  const char *all[] = {"smem", "a", "b", "m0", "n0"}, *exprs[] = {smem, a, b, m0, n0};
  const char *what[5], *given[5]; /* m0 and n0 may be NULL: the defaults */
  int n = 0;
  for (int i = 0; i < 5; i++)
    if (i < 3 || exprs[i]) what[n] = all[i], given[n++] = exprs[i];
  tcmma__emit_gemm_form f;
  tcmma_status st = ring_form(ctx, plan, opts, what, given, n, &f, err);
  if (st != TCMMA_OK) return st;
  tcmma_dialect dl = ctx->dialect;
  const tcmma_gemm_call *c = &plan->call;
  char e[5][TCMMA__EXPR_TEXT];
  for (int i = 0; i < 5; i++) e[i][0] = '\0';
  for (int i = 0; i < 5; i++)
    if (exprs[i]) tcmma__emit_expr(dl, exprs[i], e[i], sizeof e[i]);
  if (!m0) snprintf(e[3], sizeof e[3], "(int)%s * %d", tcmma__table_spell(dl, TCMMA__SPELL_BLOCK_IDX_Y),
                    c->block_m);
  if (!n0) snprintf(e[4], sizeof e[4], "(int)%s * %d", tcmma__table_spell(dl, TCMMA__SPELL_BLOCK_IDX),
                    c->block_n);
  tcmma_buf s = {0};
  tcmma__emit_line(&s, 0, "/* gemm ring (%s): block %dx%dx%d over %dx%d warps, %d stage%s, %d "
                   "threads: the loader's per-thread state */", tcmma_arm_marker(plan->arm),
                   c->block_m, c->block_n, c->block_k, c->warps_m, c->warps_n, c->stages,
                   c->stages == 1 ? "" : "s", plan->threads);
  tcmma__emit_line(&s, 0, "unsigned char *const %ssmem = (unsigned char *)(%s);", P, e[0]);
  tcmma__emit_line(&s, 0, "const int %stid = (int)%s;", P,
                   tcmma__table_spell(dl, TCMMA__SPELL_THREAD_IDX));
  tcmma__emit_line(&s, 0, "const int %s = (%s), %s = (%s);", TCMMA__GEMM_M0, e[3], TCMMA__GEMM_N0,
                   e[4]);
  tcmma__emit_line(&s, 0, "const unsigned char *const %sra = (const unsigned char *)(%s);", P,
                   e[1]);
  tcmma__emit_line(&s, 0, "const unsigned char *const %srb = (const unsigned char *)(%s);", P,
                   e[2]);
  tcmma_buf t = {0};
  tcmma__emit_gemm_loader_decls(&f, dl, 0, &t);
  append_renamed(&s, &t);
  return finish(ctx, &s, err);
}

tcmma_status tcmma_render_gemm_ring_load(const tcmma_render_ctx *ctx, const tcmma_gemm_plan *plan,
                                         const tcmma_gemm_opts *opts, const char *stage,
                                         const char *ktile, tcmma_error *err) {
  const char *what[] = {"stage", "ktile"}, *exprs[] = {stage, ktile};
  tcmma__emit_gemm_form f;
  tcmma_status st = ring_form(ctx, plan, opts, what, exprs, 2, &f, err);
  if (st == TCMMA_OK) st = check_index("stage", stage, plan->call.stages, "stages", err);
  if (st == TCMMA_OK) st = check_index("ktile", ktile, plan->k_tiles, "k tiles", err);
  if (st != TCMMA_OK) return st;
  char se[TCMMA__EXPR_TEXT], ke[TCMMA__EXPR_TEXT];
  tcmma__emit_expr(ctx->dialect, stage, se, sizeof se);
  tcmma__emit_expr(ctx->dialect, ktile, ke, sizeof ke);
  tcmma_buf s = {0}, t = {0};
  tcmma__emit_line(&s, 0, "{");
  tcmma__emit_line(&s, 1, "const int %srstage = (%s), %srktile = (%s);", P, se, P, ke);
  tcmma__emit_gemm_load_stage(&f, ctx->dialect, P "rstage", P "rktile", 1, &t);
  append_renamed(&s, &t);
  tcmma__emit_line(&s, 0, "}");
  return finish(ctx, &s, err);
}

tcmma_status tcmma_render_gemm_ring_commit(const tcmma_render_ctx *ctx,
                                           const tcmma_gemm_plan *plan,
                                           const tcmma_gemm_opts *opts, tcmma_error *err) {
  tcmma__emit_gemm_form f;
  tcmma_status st = ring_form(ctx, plan, opts, NULL, NULL, 0, &f, err);
  if (st != TCMMA_OK) return st;
  tcmma_buf s = {0};
  if (tcmma__emit_gemm_async(&f)) tcmma__emit_gemm_commit(ctx->dialect, 0, &s);
  return finish(ctx, &s, err);
}

tcmma_status tcmma_render_gemm_ring_wait(const tcmma_render_ctx *ctx, const tcmma_gemm_plan *plan,
                                         const tcmma_gemm_opts *opts, int n, tcmma_error *err) {
  tcmma__emit_gemm_form f;
  tcmma_status st = ring_form(ctx, plan, opts, NULL, NULL, 0, &f, err);
  if (st == TCMMA_OK && (n < 0 || n >= plan->call.stages))
    st = tcmma_fail(err, TCMMA_INVALID, "wait_group %d: expected 0 to %d (younger groups than "
                    "the plan's %d stages hold)", n, plan->call.stages - 1, plan->call.stages);
  if (st != TCMMA_OK) return st;
  tcmma_buf s = {0};
  if (tcmma__emit_gemm_async(&f)) tcmma__emit_gemm_wait(ctx->dialect, n, 0, &s);
  return finish(ctx, &s, err);
}

tcmma_status tcmma_render_gemm_ring_tiles(const tcmma_render_ctx *ctx, const tcmma_gemm_plan *plan,
                                          const tcmma_gemm_opts *opts, const char *stage,
                                          const char *as, const char *bs, tcmma_error *err) {
  const char *what[] = {"stage"}, *exprs[] = {stage};
  tcmma__emit_gemm_form f;
  tcmma_status st = ring_form(ctx, plan, opts, what, exprs, 1, &f, err);
  if (st == TCMMA_OK) st = check_index("stage", stage, plan->call.stages, "stages", err);
  const char *names[] = {as, bs};
  for (int i = 0; st == TCMMA_OK && i < 2; i++)
    if (!tcmma__emit_is_ident(names[i], TCMMA_FRAG_NAME_MAX))
      st = tcmma_fail(err, TCMMA_INVALID, "tile name '%.60s': expected a C identifier of at most "
                      "%d characters", names[i] ? names[i] : "(null)", TCMMA_FRAG_NAME_MAX);
  if (st != TCMMA_OK) return st;
  tcmma_dialect dl = ctx->dialect;
  char se[TCMMA__EXPR_TEXT];
  tcmma__emit_expr(dl, stage, se, sizeof se);
  const char *ta = tcmma__table_spell_type(dl, plan->call.a.prec),
             *tb = tcmma__table_spell_type(dl, plan->call.b.prec);
  long a_bytes = tcmma__emit_gemm_stage_copies(plan, TCMMA_OPERAND_A) * TCMMA__GEMM_COPY_BYTES;
  tcmma_buf s = {0};
  tcmma__emit_line(&s, 0, "const %s *const %s = (const %s *)(%ssmem + (%s) * %zu);", ta, as, ta,
                   P, se, plan->stage_bytes);
  tcmma__emit_line(&s, 0, "const %s *const %s = (const %s *)(%ssmem + (%s) * %zu + %ld);", tb, bs,
                   tb, P, se, plan->stage_bytes, a_bytes);
  return finish(ctx, &s, err);
}

/* Every warp's accumulator acc into the f32 block tile, as one block of
 * ctx->names, indented at depth into s. */
static tcmma_status warp_store(const tcmma_render_ctx *ctx, const tcmma_gemm_plan *plan,
                               const char *acc, int depth, tcmma_buf *s, tcmma_error *err) {
  tcmma__emit_gemm_exprs x;
  tcmma_call w;
  tcmma_plan wp;
  tcmma__emit_gemm_warp_call(plan, &x, &w);
  tcmma_status st = tcmma_plan_call(&w, &wp, err); /* an accepted GEMM plan's warp call plans */
  tcmma_buf body = {0};
  tcmma_render_ctx wc = tcmma_render_ctx_make(&wp, ctx->dialect, ctx->names, &body);
  if (st == TCMMA_OK) st = tcmma_render_acc_store(&wc, acc, "(float *)" P "smem", err);
  if (st == TCMMA_OK) tcmma__emit_append_indented(s, tcmma_buf_str(&body), depth);
  tcmma_buf_free(&body);
  return st;
}

tcmma_status tcmma_render_gemm_ring_store(const tcmma_render_ctx *ctx, const tcmma_gemm_plan *plan,
                                          const tcmma_gemm_opts *opts, const char *acc,
                                          const char *d, const char *c, const char *alpha,
                                          const char *beta, tcmma_error *err) {
  const char *what[] = {"acc", "d", "c", "alpha", "beta"}, *exprs[] = {acc, d, c, alpha, beta};
  tcmma__emit_gemm_form f;
  tcmma_status st = ring_form(ctx, plan, opts, what, exprs, 5, &f, err);
  if (st != TCMMA_OK) return st;
  tcmma_dialect dl = ctx->dialect;
  char e[5][TCMMA__EXPR_TEXT];
  for (int i = 1; i < 5; i++) tcmma__emit_expr(dl, exprs[i], e[i], sizeof e[i]);
  const char *td = tcmma__table_spell_type(dl, plan->call.d.prec),
             *sync = tcmma__table_spell(dl, TCMMA__SPELL_SYNCTHREADS);
  tcmma_buf s = {0};
  tcmma__emit_line(&s, 0, "{ /* gemm ring store: every warp's accumulator through the f32 block "
                   "tile to d, rows and columns past %dx%d left alone */", plan->call.m,
                   plan->call.n);
  tcmma__emit_line(&s, 1, "%s *const %srd = (%s *)(%s);", td, P, td, e[1]);
  tcmma__emit_line(&s, 1, "const %s *const %src = (const %s *)(%s);", td, P, td, e[2]);
  tcmma__emit_line(&s, 1, "const float %sralpha = (%s), %srbeta = (%s);", P, e[3], P, e[4]);
  if (tcmma__emit_gemm_async(&f)) tcmma__emit_gemm_wait(dl, 0, 1, &s);
  tcmma__emit_line(&s, 1, "%s; /* every warp is done with the stages: the f32 tile reuses them */",
                   sync);
  st = warp_store(ctx, plan, acc, 1, &s, err);
  if (st != TCMMA_OK) {
    tcmma_buf_free(&s);
    return st;
  }
  tcmma__emit_line(&s, 1, "%s;", sync);
  tcmma_buf t = {0};
  tcmma__emit_gemm_epilogue(&f, dl, 1, &t);
  append_renamed(&s, &t);
  tcmma__emit_line(&s, 0, "}");
  return finish(ctx, &s, err);
}
