/* The public renderers: statement, fragment scope (open/update/close), the
 * kernel prologue. Each block gets the local prefix __tcmma_<n>_, n counting
 * the blocks already in the output buffer. */
#include <ctype.h>
#include <stdio.h>
#include <string.h>
#include "emit.h"

typedef tcmma_status (*boundary_fn)(const tcmma_plan *, tcmma_dialect, const char *,
                                    const char *, bool, int, const char *, tcmma_buf *,
                                    tcmma_error *);
typedef tcmma_status (*update_fn)(const tcmma_plan *, tcmma_dialect, const char *,
                                  const char *, const char *, int, const char *, tcmma_buf *,
                                  tcmma_error *);

static bool is_ptx(const tcmma_plan *p) {
  return tcmma_arm_get(p->arm)->form == TCMMA_FORM_PTX;
}
static boundary_fn boundary_of(const tcmma_plan *p) {
  return is_ptx(p) ? tcmma__ptx_boundary : tcmma__wmma_boundary;
}
static update_fn update_fn_of(const tcmma_plan *p) {
  return is_ptx(p) ? tcmma__ptx_update : tcmma__wmma_update;
}

static tcmma_status finish(tcmma_buf *body, tcmma_status st, const tcmma_plan *p,
                           tcmma_dialect dl, const char *prefix, tcmma_buf *out,
                           tcmma_error *err) {
  if (st == TCMMA_OK && body->failed) st = tcmma_fail(err, TCMMA_NO_MEMORY, "out of memory");
  if (st == TCMMA_OK) {
    tcmma_buf_printf(out, "{\n");
    tcmma__lane_locals(p, dl, prefix, tcmma_buf_str(body), 1, out);
    tcmma_buf_printf(out, "}\n");
    if (out->failed) st = tcmma_fail(err, TCMMA_NO_MEMORY, "out of memory");
  }
  tcmma_buf_free(body);
  return st;
}

tcmma_status tcmma_render_statement(const tcmma_plan *plan, tcmma_dialect dialect,
                                    const char *d, const char *a, const char *b,
                                    tcmma_buf *out, tcmma_error *err) {
  const char *names[3] = {d, a, b};
  tcmma_status st = tcmma__check(plan, dialect, names, 3, out, err);
  if (st != TCMMA_OK) return st;
  if (tcmma__needs_stage(plan))
    return tcmma_fail(err, TCMMA_INVALID,
                      "%s converts its destination: render it as a fragment scope",
                      tcmma_arm_marker(plan->arm));
  char prefix[32], acc[48];
  snprintf(prefix, sizeof prefix, "__tcmma_%d_", tcmma__block_id(out, TCMMA__MMA_TITLE));
  snprintf(acc, sizeof acc, "%sacc", prefix);
  tcmma__title(out, plan, NULL);
  tcmma_buf body = {0};
  tcmma__acc_decl(plan, dialect, acc, 1, &body);
  st = boundary_of(plan)(plan, dialect, acc, d, false, 1, prefix, &body, err);
  if (st == TCMMA_OK) st = update_fn_of(plan)(plan, dialect, acc, a, b, 1, prefix, &body, err);
  if (st == TCMMA_OK) st = boundary_of(plan)(plan, dialect, acc, d, true, 1, prefix, &body, err);
  return finish(&body, st, plan, dialect, prefix, out, err);
}

static tcmma_status check_frag(const char *frag, tcmma_error *err) {
  bool ok = frag && (isalpha((unsigned char)*frag) || *frag == '_');
  for (const char *s = frag; ok && *s; s++) ok = isalnum((unsigned char)*s) || *s == '_';
  if (!ok)
    return tcmma_fail(err, TCMMA_INVALID, "fragment name '%s' is not a C identifier",
                      frag ? frag : "(null)");
  /* the renderers build indexed names from it in fixed buffers */
  if (strlen(frag) > TCMMA_FRAG_NAME_MAX)
    return tcmma_fail(err, TCMMA_INVALID, "fragment name of %zu characters: expected at most %d",
                      strlen(frag), TCMMA_FRAG_NAME_MAX);
  return TCMMA_OK;
}

static tcmma_status fragment_part(const tcmma_plan *plan, tcmma_dialect dialect,
                                  const char *frag, const char *x, const char *y, int part,
                                  tcmma_buf *out, tcmma_error *err) {
  const char *names[2] = {x, y};
  tcmma_status st = tcmma__check(plan, dialect, names, part == 1 ? 2 : 1, out, err);
  if (st == TCMMA_OK) st = check_frag(frag, err);
  if (st != TCMMA_OK) return st;
  static const char *const what[3] = {"open", "update", "close"};
  char prefix[32], title[160];
  snprintf(prefix, sizeof prefix, "__tcmma_%d_", tcmma__block_id(out, TCMMA__MMA_TITLE));
  snprintf(title, sizeof title, "fragment %s: %s", frag, what[part]);
  tcmma__title(out, plan, title);
  if (part == 0) tcmma__acc_decl(plan, dialect, frag, 0, out);
  tcmma_buf body = {0};
  if (part == 1) st = update_fn_of(plan)(plan, dialect, frag, x, y, 1, prefix, &body, err);
  else st = boundary_of(plan)(plan, dialect, frag, x, part == 2, 1, prefix, &body, err);
  return finish(&body, st, plan, dialect, prefix, out, err);
}

tcmma_status tcmma_render_fragment_open(const tcmma_plan *plan, tcmma_dialect dialect,
                                        const char *frag, const char *d, tcmma_buf *out,
                                        tcmma_error *err) {
  return fragment_part(plan, dialect, frag, d, NULL, 0, out, err);
}

tcmma_status tcmma_render_fragment_update(const tcmma_plan *plan, tcmma_dialect dialect,
                                          const char *frag, const char *a, const char *b,
                                          tcmma_buf *out, tcmma_error *err) {
  return fragment_part(plan, dialect, frag, a, b, 1, out, err);
}

tcmma_status tcmma_render_fragment_close(const tcmma_plan *plan, tcmma_dialect dialect,
                                         const char *frag, const char *d, tcmma_buf *out,
                                         tcmma_error *err) {
  return fragment_part(plan, dialect, frag, d, NULL, 2, out, err);
}

tcmma_status tcmma_kernel_prologue(const tcmma_plan *plans, size_t count,
                                   tcmma_dialect dialect, tcmma_buf *out, tcmma_error *err) {
  if (!out || (count && !plans))
    return tcmma_fail(err, TCMMA_INVALID, "plans and out must not be NULL");
  tcmma_prec prec = TCMMA_PREC_F32;
  long elems = tcmma__stage_need(plans, count, &prec);
  if (elems)
    tcmma_buf_printf(out, "  %s %s __tcmma_stage[%ld]; /* per-warp converted-d stage */\n",
                     tcmma__spell(dialect, TCMMA__SPELL_SHARED),
                     tcmma__spell_type(dialect, prec), elems);
  return out->failed ? tcmma_fail(err, TCMMA_NO_MEMORY, "out of memory") : TCMMA_OK;
}
