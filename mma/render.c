/* The public renderers: the pieces (fragment declarations, loads, mma,
 * accumulator init and store), and the statement and fragment scope as
 * compositions of them; the kernel prologue. Every block takes its local
 * prefix from the caller's naming context. */
#include <stdio.h>
#include <string.h>
#include "emit.h"

/* Wraps a body rendered with prefix into a block: `{`, the lane locals it
 * reads, the body, `}`. */
static tcmma_status finish(tcmma_buf *body, tcmma_status st, const tcmma_plan *p,
                           tcmma_dialect dl, const char *prefix, tcmma_buf *out,
                           tcmma_error *err) {
  if (st == TCMMA_OK && body->failed) st = tcmma_fail(err, TCMMA_NO_MEMORY, "out of memory");
  if (st == TCMMA_OK) {
    tcmma_buf_printf(out, "{\n");
    tcmma__emit_lane_locals(p, dl, prefix, tcmma_buf_str(body), 1, out);
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

/* The checks every block shares, then the block's prefix and title. */
static tcmma_status open_block(const tcmma_plan *plan, tcmma_dialect dl, tcmma_names *names,
                               const char *const *exprs, int count, const char *what,
                               char *prefix, size_t cap, tcmma_buf *out, tcmma_error *err) {
  tcmma_status st = tcmma__emit_check(plan, dl, exprs, count, out, err);
  if (st == TCMMA_OK) st = tcmma__emit_next_prefix(names, prefix, cap, err);
  if (st == TCMMA_OK) tcmma__emit_title(out, plan, what);
  return st;
}

static tcmma__emit_body body_of(const tcmma_plan *p, tcmma_dialect dl, const char *prefix,
                                int depth) {
  return (tcmma__emit_body){p, tcmma_arm_get(p->arm), dl, prefix, depth};
}

/* One k loop of the composition: per k step, declare the step's fragments,
 * load them and multiply them into acc. */
static tcmma_status update_body(const tcmma__emit_body *x, const char *acc, const char *a,
                                const char *b, tcmma_buf *out, tcmma_error *err) {
  const tcmma__emit_pieces *pc = tcmma__emit_pieces_of(x->p);
  const char *P = x->prefix;
  char ki[64], af[64], bf[64];
  snprintf(ki, sizeof ki, "%ski", P);
  snprintf(af, sizeof af, "%saf", P);
  snprintf(bf, sizeof bf, "%sbf", P);
  tcmma__emit_open_loop(x->dl, P, "ki", x->p->kt, x->depth, out);
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

tcmma_status tcmma_render_statement(const tcmma_plan *plan, tcmma_dialect dialect,
                                    tcmma_names *names, const char *d, const char *a,
                                    const char *b, tcmma_buf *out, tcmma_error *err) {
  const char *exprs[3] = {d, a, b};
  char prefix[64], acc[96];
  tcmma_status st = tcmma__emit_check(plan, dialect, exprs, 3, out, err);
  if (st == TCMMA_OK && tcmma__emit_needs_stage(plan))
    return tcmma_fail(err, TCMMA_INVALID,
                      "%s converts its destination: render it as a fragment scope",
                      tcmma_arm_marker(plan->arm));
  if (st == TCMMA_OK) st = open_block(plan, dialect, names, exprs, 3, NULL, prefix,
                                      sizeof prefix, out, err);
  if (st != TCMMA_OK) return st;
  snprintf(acc, sizeof acc, "%sacc", prefix);
  tcmma__emit_body x = body_of(plan, dialect, prefix, 1);
  const tcmma__emit_pieces *pc = tcmma__emit_pieces_of(plan);
  tcmma_buf body = {0};
  pc->decl(&x, TCMMA_OPERAND_C, acc, 0, &body);
  st = pc->init(&x, acc, d, &body, err);
  if (st == TCMMA_OK) st = update_body(&x, acc, a, b, &body, err);
  if (st == TCMMA_OK) st = pc->store(&x, acc, d, &body, err);
  return finish(&body, st, plan, dialect, prefix, out, err);
}

/* Fragment scope part 0 (open), 1 (update) or 2 (close). */
static tcmma_status fragment_part(const tcmma_plan *plan, tcmma_dialect dialect,
                                  tcmma_names *names, const char *frag, const char *x_,
                                  const char *y, int part, tcmma_buf *out, tcmma_error *err) {
  static const char *const what[3] = {"open", "update", "close"};
  const char *exprs[2] = {x_, y};
  char prefix[64], title[160];
  tcmma_status st = check_frag(frag, err);
  if (st != TCMMA_OK) return st;
  snprintf(title, sizeof title, "fragment %s: %s", frag, what[part]);
  st = open_block(plan, dialect, names, exprs, part == 1 ? 2 : 1, title, prefix, sizeof prefix,
                  out, err);
  if (st != TCMMA_OK) return st;
  tcmma__emit_body x = body_of(plan, dialect, prefix, 1);
  const tcmma__emit_pieces *pc = tcmma__emit_pieces_of(plan);
  if (part == 0) {
    tcmma__emit_body top = body_of(plan, dialect, prefix, 0);
    pc->decl(&top, TCMMA_OPERAND_C, frag, 0, out);
  }
  tcmma_buf body = {0};
  if (part == 0) st = pc->init(&x, frag, x_, &body, err);
  else if (part == 1) st = update_body(&x, frag, x_, y, &body, err);
  else st = pc->store(&x, frag, x_, &body, err);
  return finish(&body, st, plan, dialect, prefix, out, err);
}

tcmma_status tcmma_render_fragment_open(const tcmma_plan *plan, tcmma_dialect dialect,
                                        tcmma_names *names, const char *frag, const char *d,
                                        tcmma_buf *out, tcmma_error *err) {
  return fragment_part(plan, dialect, names, frag, d, NULL, 0, out, err);
}

tcmma_status tcmma_render_fragment_update(const tcmma_plan *plan, tcmma_dialect dialect,
                                          tcmma_names *names, const char *frag, const char *a,
                                          const char *b, tcmma_buf *out, tcmma_error *err) {
  return fragment_part(plan, dialect, names, frag, a, b, 1, out, err);
}

tcmma_status tcmma_render_fragment_close(const tcmma_plan *plan, tcmma_dialect dialect,
                                         tcmma_names *names, const char *frag, const char *d,
                                         tcmma_buf *out, tcmma_error *err) {
  return fragment_part(plan, dialect, names, frag, d, NULL, 2, out, err);
}

/* ---- the pieces, one block each ---- */

tcmma_status tcmma_render_frag_decl(const tcmma_plan *plan, tcmma_dialect dialect,
                                    tcmma_operand op, const char *name, int buffers,
                                    tcmma_buf *out, tcmma_error *err) {
  tcmma_status st = tcmma__emit_check(plan, dialect, NULL, 0, out, err);
  if (st == TCMMA_OK) st = check_frag(name, err);
  if (st != TCMMA_OK) return st;
  if ((unsigned)op > TCMMA_OPERAND_C)
    return tcmma_fail(err, TCMMA_INVALID, "operand %d: expected a, b or c", (int)op);
  if (buffers < 0 || buffers > TCMMA_FRAG_BUFFERS_MAX || (op == TCMMA_OPERAND_C && buffers))
    return tcmma_fail(err, TCMMA_INVALID, "%d buffers of %s fragments: expected 0 to %d (0 for "
                      "the accumulator)", buffers, tcmma_operand_name(op), TCMMA_FRAG_BUFFERS_MAX);
  static const char *const what[3] = {"a fragments", "b fragments", "accumulator"};
  tcmma__emit_title(out, plan, what[op]);
  tcmma__emit_body x = body_of(plan, dialect, "", 0);
  tcmma__emit_pieces_of(plan)->decl(&x, op, name, buffers, out);
  return out->failed ? tcmma_fail(err, TCMMA_NO_MEMORY, "out of memory") : TCMMA_OK;
}

tcmma_status tcmma_render_frag_load(const tcmma_plan *plan, tcmma_dialect dialect,
                                    tcmma_names *names, tcmma_operand op, const char *frag,
                                    const char *base, const char *kstep, tcmma_buf *out,
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
  tcmma_status st = open_block(plan, dialect, names, exprs, 3, what, prefix, sizeof prefix,
                               out, err);
  if (st != TCMMA_OK) return st;
  tcmma__emit_body x = body_of(plan, dialect, prefix, 1);
  tcmma_buf body = {0};
  st = tcmma__emit_pieces_of(plan)->load(&x, op, frag, base, kstep, &body, err);
  return finish(&body, st, plan, dialect, prefix, out, err);
}

tcmma_status tcmma_render_frag_mma(const tcmma_plan *plan, tcmma_dialect dialect,
                                   tcmma_names *names, const char *acc, const char *a,
                                   const char *b, tcmma_buf *out, tcmma_error *err) {
  const char *exprs[3] = {acc, a, b};
  char prefix[64];
  tcmma_status st = open_block(plan, dialect, names, exprs, 3, "mma", prefix, sizeof prefix,
                               out, err);
  if (st != TCMMA_OK) return st;
  tcmma__emit_body x = body_of(plan, dialect, prefix, 1);
  tcmma_buf body = {0};
  st = tcmma__emit_pieces_of(plan)->mma(&x, acc, a, b, &body, err);
  return finish(&body, st, plan, dialect, prefix, out, err);
}

/* init (store false) or store (true) of acc against d. */
static tcmma_status acc_part(const tcmma_plan *plan, tcmma_dialect dialect, tcmma_names *names,
                             const char *acc, const char *d, bool store, tcmma_buf *out,
                             tcmma_error *err) {
  const char *exprs[2] = {acc, d};
  char prefix[64], what[64];
  snprintf(what, sizeof what, "%s (%s)", store ? "store" : "init",
           plan ? tcmma_init_name(plan->call.init) : "?");
  tcmma_status st = open_block(plan, dialect, names, exprs, 2, what, prefix, sizeof prefix,
                               out, err);
  if (st != TCMMA_OK) return st;
  tcmma__emit_body x = body_of(plan, dialect, prefix, 1);
  const tcmma__emit_pieces *pc = tcmma__emit_pieces_of(plan);
  tcmma_buf body = {0};
  st = store ? pc->store(&x, acc, d, &body, err) : pc->init(&x, acc, d, &body, err);
  return finish(&body, st, plan, dialect, prefix, out, err);
}

tcmma_status tcmma_render_acc_init(const tcmma_plan *plan, tcmma_dialect dialect,
                                   tcmma_names *names, const char *acc, const char *d,
                                   tcmma_buf *out, tcmma_error *err) {
  return acc_part(plan, dialect, names, acc, d, false, out, err);
}

tcmma_status tcmma_render_acc_store(const tcmma_plan *plan, tcmma_dialect dialect,
                                    tcmma_names *names, const char *acc, const char *d,
                                    tcmma_buf *out, tcmma_error *err) {
  return acc_part(plan, dialect, names, acc, d, true, out, err);
}

tcmma_status tcmma_kernel_prologue(const tcmma_plan *plans, size_t count,
                                   tcmma_dialect dialect, tcmma_buf *out, tcmma_error *err) {
  if (!out || (count && !plans))
    return tcmma_fail(err, TCMMA_INVALID, "plans and out must not be NULL");
  tcmma_prec prec = TCMMA_PREC_F32;
  long elems = tcmma__emit_stage_need(plans, count, &prec);
  if (elems)
    tcmma_buf_printf(out, "  %s %s __tcmma_stage[%ld]; /* per-warp converted-d stage */\n",
                     tcmma__table_spell(dialect, TCMMA__SPELL_SHARED),
                     tcmma__table_spell_type(dialect, prec), elems);
  return out->failed ? tcmma_fail(err, TCMMA_NO_MEMORY, "out of memory") : TCMMA_OK;
}
