/* The public renderers: the pieces (fragment declarations, loads, mma,
 * accumulator init and store), and the statement and fragment scope as
 * compositions of them; the kernel prologue and its shared bytes. Every
 * block takes its local prefix from the caller's naming context. */
#include <ctype.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "emit.h"

tcmma_render_ctx tcmma_render_ctx_make(const tcmma_plan *plan, tcmma_dialect dialect,
                                       tcmma_names *names, tcmma_buf *out) {
  return (tcmma_render_ctx)TCMMA_RENDER_CTX_INIT(plan, dialect, names, out);
}

/* The pieces of the plan's arm form: the one place the composition picks
 * between render_ptx.c and render_wmma.c, above both. */
static const tcmma__emit_pieces *pieces_of(const tcmma_plan *p) {
  const tcmma_arm_info *info = tcmma_arm_get(p->arm);
  return info && info->form == TCMMA_FORM_WMMA ? &tcmma__emit_wmma_pieces : &tcmma__emit_ptx_pieces;
}

/* Wraps a body rendered with prefix into a block in ctx->out: `{`, the
 * lane locals it reads, the body, `}`. */
static tcmma_status finish(tcmma_buf *body, tcmma_status st, const tcmma_render_ctx *ctx,
                           const tcmma__emit_body *x, tcmma_error *err) {
  tcmma_buf *out = ctx->out;
  if (st == TCMMA_OK && body->failed) st = tcmma_fail(err, TCMMA_NO_MEMORY, "out of memory");
  if (st == TCMMA_OK) {
    tcmma_buf_printf(out, "{\n");
    tcmma__emit_lane_locals(x, tcmma_buf_str(body), out);
    tcmma_buf_printf(out, "}\n");
    if (out->failed) st = tcmma_fail(err, TCMMA_NO_MEMORY, "out of memory");
  }
  tcmma_buf_free(body);
  return st;
}

static tcmma_status check_frag(const char *frag, tcmma_error *err) {
  if (!tcmma__emit_is_ident(frag, TCMMA_FRAG_NAME_MAX))
    return tcmma_fail(err, TCMMA_INVALID, "fragment name '%.60s': expected a C identifier of at "
                      "most %d characters", frag ? frag : "(null)", TCMMA_FRAG_NAME_MAX);
  return TCMMA_OK;
}

/* The block's prefix and title, once its checks (tcmma__emit_check) pass. */
static tcmma_status open_block(const tcmma_render_ctx *ctx, const char *what, char *prefix,
                               size_t cap, tcmma_error *err) {
  tcmma_status st = tcmma__emit_next_prefix(ctx->names, prefix, cap, err);
  if (st == TCMMA_OK) tcmma__emit_title(ctx->out, ctx->plan, what);
  return st;
}

static tcmma__emit_body body_of(const tcmma_render_ctx *ctx, const char *prefix, int depth) {
  return (tcmma__emit_body){ctx->plan, tcmma_arm_get(ctx->plan->arm), ctx->dialect, prefix,
                            depth};
}

/* One k loop of the composition: per k step, declare the step's fragments,
 * load them and multiply them into acc. */
static tcmma_status update_body(const tcmma__emit_body *x, const char *acc, const char *a,
                                const char *b, tcmma_buf *out, tcmma_error *err) {
  const tcmma__emit_pieces *pc = pieces_of(x->p);
  const char *P = x->prefix;
  char ki[64], af[64], bf[64];
  snprintf(ki, sizeof ki, "%ski", P);
  snprintf(af, sizeof af, "%saf", P);
  snprintf(bf, sizeof bf, "%sbf", P);
  tcmma__emit_open_loop(x, "ki", x->p->kt, x->depth, out);
  tcmma__emit_body in = *x;
  in.depth++;
  pc->decl(&in, TCMMA_OPERAND_A, af, 0, out);
  pc->decl(&in, TCMMA_OPERAND_B, bf, 0, out);
  tcmma_status st = pc->load(&in, TCMMA_OPERAND_A, af, a, ki, out, err);
  if (st == TCMMA_OK) st = pc->load(&in, TCMMA_OPERAND_B, bf, b, ki, out, err);
  if (st == TCMMA_OK) st = pc->mma(&in, acc, af, bf, out, err);
  tcmma__emit_close_brace(x->depth, out);
  return st;
}

tcmma_status tcmma_render_statement(const tcmma_render_ctx *ctx, const char *d, const char *a,
                                    const char *b, tcmma_error *err) {
  const char *exprs[3] = {d, a, b};
  char prefix[64], acc[96];
  tcmma_status st = tcmma__emit_check(ctx, exprs, 3, err);
  if (st == TCMMA_OK && tcmma__emit_needs_stage(ctx->plan))
    return tcmma_fail(err, TCMMA_INVALID,
                      "%s converts its destination: render it as a fragment scope",
                      tcmma_arm_marker(ctx->plan->arm));
  if (st == TCMMA_OK) st = open_block(ctx, NULL, prefix, sizeof prefix, err);
  if (st != TCMMA_OK) return st;
  snprintf(acc, sizeof acc, "%sacc", prefix);
  tcmma__emit_body x = body_of(ctx, prefix, 1);
  const tcmma__emit_pieces *pc = pieces_of(ctx->plan);
  tcmma_buf body = {0};
  pc->decl(&x, TCMMA_OPERAND_C, acc, 0, &body);
  st = pc->init(&x, acc, d, &body, err);
  if (st == TCMMA_OK) st = update_body(&x, acc, a, b, &body, err);
  if (st == TCMMA_OK) st = pc->store(&x, acc, d, &body, err);
  return finish(&body, st, ctx, &x, err);
}

/* Fragment scope part 0 (open), 1 (update) or 2 (close). */
static tcmma_status fragment_part(const tcmma_render_ctx *ctx, const char *frag, const char *x_,
                                  const char *y, int part, tcmma_error *err) {
  static const char *const what[3] = {"open", "update", "close"};
  const char *exprs[2] = {x_, y};
  char prefix[64], title[160];
  tcmma_status st = check_frag(frag, err);
  if (st != TCMMA_OK) return st;
  snprintf(title, sizeof title, "fragment %s: %s", frag, what[part]);
  st = tcmma__emit_check(ctx, exprs, part == 1 ? 2 : 1, err);
  if (st == TCMMA_OK) st = open_block(ctx, title, prefix, sizeof prefix, err);
  if (st != TCMMA_OK) return st;
  tcmma__emit_body x = body_of(ctx, prefix, 1);
  const tcmma__emit_pieces *pc = pieces_of(ctx->plan);
  if (part == 0) {
    tcmma__emit_body top = body_of(ctx, prefix, 0);
    pc->decl(&top, TCMMA_OPERAND_C, frag, 0, ctx->out);
  }
  tcmma_buf body = {0};
  if (part == 0) st = pc->init(&x, frag, x_, &body, err);
  else if (part == 1) st = update_body(&x, frag, x_, y, &body, err);
  else st = pc->store(&x, frag, x_, &body, err);
  return finish(&body, st, ctx, &x, err);
}

tcmma_status tcmma_render_fragment_open(const tcmma_render_ctx *ctx, const char *frag,
                                        const char *d, tcmma_error *err) {
  return fragment_part(ctx, frag, d, NULL, 0, err);
}

tcmma_status tcmma_render_fragment_update(const tcmma_render_ctx *ctx, const char *frag,
                                          const char *a, const char *b, tcmma_error *err) {
  return fragment_part(ctx, frag, a, b, 1, err);
}

tcmma_status tcmma_render_fragment_close(const tcmma_render_ctx *ctx, const char *frag,
                                         const char *d, tcmma_error *err) {
  return fragment_part(ctx, frag, d, NULL, 2, err);
}

/* ---- the pieces, one block each ---- */

tcmma_status tcmma_render_frag_decl(const tcmma_render_ctx *ctx, tcmma_operand op,
                                    const char *name, int buffers, tcmma_error *err) {
  tcmma_status st = tcmma__emit_check(ctx, NULL, 0, err);
  if (st == TCMMA_OK) st = check_frag(name, err);
  if (st != TCMMA_OK) return st;
  if ((unsigned)op > TCMMA_OPERAND_C)
    return tcmma_fail(err, TCMMA_INVALID, "operand %d: expected a, b or c", (int)op);
  if (buffers < 0 || buffers > TCMMA_FRAG_BUFFERS_MAX || (op == TCMMA_OPERAND_C && buffers))
    return tcmma_fail(err, TCMMA_INVALID, "%d buffers of %s fragments: expected 0 to %d (0 for "
                      "the accumulator)", buffers, tcmma_operand_name(op), TCMMA_FRAG_BUFFERS_MAX);
  static const char *const what[3] = {"a fragments", "b fragments", "accumulator"};
  tcmma__emit_title(ctx->out, ctx->plan, what[op]);
  tcmma__emit_body x = body_of(ctx, "", 0);
  pieces_of(ctx->plan)->decl(&x, op, name, buffers, ctx->out);
  return ctx->out->failed ? tcmma_fail(err, TCMMA_NO_MEMORY, "out of memory") : TCMMA_OK;
}

/* A constant k step (a C integer literal) must name one of the plan's kt
 * steps; any other expression is the caller's to keep in range. */
static tcmma_status check_kstep(const tcmma_plan *p, const char *kstep, tcmma_error *err) {
  long v;
  int lit = tcmma__emit_literal(kstep, &v);
  if (lit && (lit < 0 || v < 0 || v >= p->kt))
    return tcmma_fail(err, TCMMA_INVALID, "k step '%s' is %s: expected 0 to %d (the plan's %d "
                      "k steps)", kstep, lit < 0 ? "out of long's range" : "outside",
                      p->kt - 1, p->kt);
  return TCMMA_OK;
}

tcmma_status tcmma_render_frag_load(const tcmma_render_ctx *ctx, tcmma_operand op,
                                    const char *frag, const char *base, const char *kstep,
                                    tcmma_error *err) {
  const char *exprs[3] = {frag, base, kstep};
  char prefix[64], what[TCMMA_EXPR_MAX + 64];
  if (op != TCMMA_OPERAND_A && op != TCMMA_OPERAND_B)
    return tcmma_fail(err, TCMMA_INVALID, "operand %d: loads take a or b", (int)op);
  /* the k step in the title comment, unless it could end the comment */
  bool quotable = kstep && strlen(kstep) <= TCMMA_EXPR_MAX && !strstr(kstep, "*/") &&
                  !strchr(kstep, '\n');
  snprintf(what, sizeof what, "load %s, k step %s", tcmma_operand_name(op),
           quotable ? kstep : "(expression)");
  tcmma_status st = tcmma__emit_check(ctx, exprs, 3, err);
  if (st == TCMMA_OK) st = check_kstep(ctx->plan, kstep, err);
  if (st == TCMMA_OK) st = open_block(ctx, what, prefix, sizeof prefix, err);
  if (st != TCMMA_OK) return st;
  tcmma__emit_body x = body_of(ctx, prefix, 1);
  tcmma_buf body = {0};
  st = pieces_of(ctx->plan)->load(&x, op, frag, base, kstep, &body, err);
  return finish(&body, st, ctx, &x, err);
}

tcmma_status tcmma__emit_render_scales(const tcmma_render_ctx *ctx, tcmma_operand op,
                                       const char *frag, const char *kstep, bool aligned,
                                       tcmma_error *err) {
  const char *exprs[2] = {frag, kstep};
  char prefix[64], what[TCMMA_EXPR_MAX + 64];
  snprintf(what, sizeof what, "scales of %s, k step %.*s", tcmma_operand_name(op),
           TCMMA_EXPR_MAX, kstep ? kstep : "");
  tcmma_status st = tcmma__emit_check(ctx, exprs, 2, err);
  if (st == TCMMA_OK) st = check_kstep(ctx->plan, kstep, err);
  if (st == TCMMA_OK) st = open_block(ctx, what, prefix, sizeof prefix, err);
  if (st != TCMMA_OK) return st;
  tcmma__emit_body x = body_of(ctx, prefix, 1);
  tcmma_buf body = {0};
  st = tcmma__emit_ptx_load_scales(&x, op, frag, kstep, aligned, &body, err);
  return finish(&body, st, ctx, &x, err);
}

tcmma_status tcmma_render_frag_mma(const tcmma_render_ctx *ctx, const char *acc, const char *a,
                                   const char *b, tcmma_error *err) {
  const char *exprs[3] = {acc, a, b};
  char prefix[64];
  tcmma_status st = tcmma__emit_check(ctx, exprs, 3, err);
  if (st == TCMMA_OK) st = open_block(ctx, "mma", prefix, sizeof prefix, err);
  if (st != TCMMA_OK) return st;
  tcmma__emit_body x = body_of(ctx, prefix, 1);
  tcmma_buf body = {0};
  st = pieces_of(ctx->plan)->mma(&x, acc, a, b, &body, err);
  return finish(&body, st, ctx, &x, err);
}

/* init (store false) or store (true) of acc against d. */
static tcmma_status acc_part(const tcmma_render_ctx *ctx, const char *acc, const char *d,
                             bool store, tcmma_error *err) {
  const char *exprs[2] = {acc, d};
  char prefix[64], what[64];
  tcmma_status st = tcmma__emit_check(ctx, exprs, 2, err);
  if (st != TCMMA_OK) return st;
  snprintf(what, sizeof what, "%s (%s)", store ? "store" : "init",
           tcmma_init_name(ctx->plan->call.init));
  st = open_block(ctx, what, prefix, sizeof prefix, err);
  if (st != TCMMA_OK) return st;
  tcmma__emit_body x = body_of(ctx, prefix, 1);
  const tcmma__emit_pieces *pc = pieces_of(ctx->plan);
  tcmma_buf body = {0};
  st = store ? pc->store(&x, acc, d, &body, err) : pc->init(&x, acc, d, &body, err);
  return finish(&body, st, ctx, &x, err);
}

tcmma_status tcmma_render_acc_init(const tcmma_render_ctx *ctx, const char *acc, const char *d,
                                   tcmma_error *err) {
  return acc_part(ctx, acc, d, false, err);
}

tcmma_status tcmma_render_acc_store(const tcmma_render_ctx *ctx, const char *acc, const char *d,
                                    tcmma_error *err) {
  return acc_part(ctx, acc, d, true, err);
}

tcmma_status tcmma_kernel_prologue(const tcmma_render_ctx *ctx, const tcmma_plan *plans,
                                   size_t count, tcmma_error *err) {
  tcmma_status st = tcmma__emit_ctx_check(ctx, err);
  if (st != TCMMA_OK) return st;
  if (count && !plans) return tcmma_fail(err, TCMMA_INVALID, "plans must not be NULL");
  for (size_t i = 0; i < count; i++) {
    tcmma_error why;
    if (tcmma__emit_plan_check(&plans[i], "a kernel's plans are accepted ones", &why) != TCMMA_OK)
      return tcmma_fail(err, TCMMA_INVALID, "plans[%zu]: %s", i, why.message);
  }
  tcmma_dialect dialect = ctx->dialect;
  tcmma_buf *out = ctx->out;
  tcmma_prec prec = TCMMA_PREC_F32;
  long elems = tcmma__emit_stage_need(plans, count, &prec);
  if (elems)
    tcmma_buf_printf(out, "  %s %s __tcmma_stage[%ld]; /* per-warp converted-d stage */\n",
                     tcmma__table_spell(dialect, TCMMA__SPELL_SHARED),
                     tcmma__table_spell_type(dialect, prec), elems);
  return out->failed ? tcmma_fail(err, TCMMA_NO_MEMORY, "out of memory") : TCMMA_OK;
}

size_t tcmma_kernel_shared_bytes(const tcmma_plan *plans, size_t count) {
  for (size_t i = 0; plans && i < count; i++)
    if (tcmma__emit_plan_check(&plans[i], "", NULL) != TCMMA_OK) return 0;
  return tcmma__emit_stage_bytes(plans, count);
}
