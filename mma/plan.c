/* Planning: accept a call (arm, tiling, ldmatrix operands) or decline it with
 * a reason and a message naming the value and the rule. No addresses. */
#include <limits.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>
#include "tables/names.h"
#include "abi.h"
#include "emit.h"

static tcmma_status decline(tcmma_plan *p, tcmma_decline reason, tcmma_error *err,
                            const char *fmt, ...) __attribute__((format(printf, 4, 5)));
static tcmma_status decline(tcmma_plan *p, tcmma_decline reason, tcmma_error *err,
                            const char *fmt, ...) {
  char what[400];
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(what, sizeof what, fmt, ap);
  va_end(ap);
  p->accepted = false;
  p->reason = reason;
  snprintf(p->message, sizeof p->message, "%s: %s (%s)", tcmma_decline_name(reason), what,
           tcmma_decline_rule(reason));
  return tcmma_fail(err, TCMMA_DECLINED, "%s", p->message);
}

static const tcmma_operand op_of[3] = {TCMMA_OPERAND_C, TCMMA_OPERAND_A, TCMMA_OPERAND_B};
static const char *const op_name[3] = {"d", "a", "b"};

/* The enums' names for the messages' "expected ..." (tables/names.h). */
static const char *space_at(int i) { return tcmma_space_name((tcmma_space)i); }
static const char *swizzle_at(int i) { return tcmma_swizzle_name((tcmma_swizzle)i); }
static const char *init_at(int i) { return tcmma_init_name((tcmma_init)i); }
static const char *scope_at(int i) { return tcmma_scope_name((tcmma_scope)i); }

static tcmma_status check_call(const tcmma_call *c, tcmma_error *err) {
  char names[96];
  for (int i = 0; i < 3; i++) {
    const tcmma_operand_desc *o = tcmma__emit_desc(c, op_of[i]);
    if ((unsigned)o->prec >= TCMMA_PREC_COUNT)
      return tcmma_fail(err, TCMMA_INVALID, "%s: precision %d is out of range", op_name[i],
                        (int)o->prec);
    if ((unsigned)o->space > TCMMA_SPACE_THREAD)
      return tcmma_fail(err, TCMMA_INVALID, "%s: space %d: expected %s", op_name[i],
                        (int)o->space, tcmma__table_names(names, sizeof names, space_at,
                                                          TCMMA_SPACE_GLOBAL, TCMMA_SPACE_THREAD));
    if ((unsigned)o->swizzle >= TCMMA_SWIZZLE_COUNT)
      return tcmma_fail(err, TCMMA_INVALID, "%s: swizzle %d: expected %s", op_name[i],
                        (int)o->swizzle, tcmma__table_names(names, sizeof names, swizzle_at, 0,
                                                            TCMMA_SWIZZLE_COUNT - 1));
    if (o->ld < 0)
      return tcmma_fail(err, TCMMA_INVALID, "%s: ld %ld: expected 0 (dense) or a positive count",
                        op_name[i], o->ld);
    const tcmma_coord *at[2] = {&o->row0, &o->col0};
    for (int j = 0; j < 2; j++) {
      if (at[j]->value < 0 || at[j]->value > INT_MAX || at[j]->multiple < 0)
        return tcmma_fail(err, TCMMA_INVALID,
                          "%s: %s origin %ld (multiple %ld): expected a value from 0 to %d and "
                          "a multiple of at least 0", op_name[i], j ? "column" : "row",
                          at[j]->value, at[j]->multiple, INT_MAX);
      if (at[j]->expr && !tcmma__emit_expr_ok(at[j]->expr))
        return tcmma_fail(err, TCMMA_INVALID,
                          "%s: %s origin expression '%.40s' of %zu characters: expected 1 to %d "
                          "characters, not all blank", op_name[i], j ? "column" : "row",
                          at[j]->expr, strlen(at[j]->expr), TCMMA_EXPR_MAX);
    }
    /* block scales: given exactly for block-scaled precisions (never for d) */
    bool scaled = tcmma_prec_is_scaled(o->prec) && op_of[i] != TCMMA_OPERAND_C;
    if (scaled && (!o->scale || !tcmma__emit_expr_ok(o->scale)))
      return tcmma_fail(err, TCMMA_INVALID, "%s: %s is block-scaled: expected its scales' "
                        "pointer expression (scale, 1 to %d characters)", op_name[i],
                        tcmma_prec_name(o->prec), TCMMA_EXPR_MAX);
    if (!scaled && (o->scale || o->scale_ld))
      return tcmma_fail(err, TCMMA_INVALID, "%s: scales given for %s storage, which has none "
                        "(only a and b of a block-scaled precision take them)", op_name[i],
                        tcmma_prec_name(o->prec));
    if (o->scale_ld < 0)
      return tcmma_fail(err, TCMMA_INVALID, "%s: scale_ld %ld: expected 0 (dense) or a positive "
                        "count", op_name[i], o->scale_ld);
  }
  const char *exprs[4] = {c->lane, c->warp, c->alpha, c->beta};
  static const char *const expr_name[4] = {"lane", "warp", "alpha", "beta"};
  for (int i = 0; i < 4; i++)
    if (exprs[i] && !tcmma__emit_expr_ok(exprs[i]))
      return tcmma_fail(err, TCMMA_INVALID, "%s expression '%.40s' of %zu characters: expected "
                        "1 to %d characters, not all blank (or none for the default)",
                        expr_name[i], exprs[i], strlen(exprs[i]), TCMMA_EXPR_MAX);
  if ((unsigned)c->init > TCMMA_INIT_SCALE)
    return tcmma_fail(err, TCMMA_INVALID, "init %d: expected %s", (int)c->init,
                      tcmma__table_names(names, sizeof names, init_at, TCMMA_INIT_LOAD,
                                         TCMMA_INIT_SCALE));
  /* resolution checks the scope, a forced arm would not */
  if ((unsigned)c->scope > TCMMA_SCOPE_FRAGMENT)
    return tcmma_fail(err, TCMMA_INVALID, "scope %d: expected %s", (int)c->scope,
                      tcmma__table_names(names, sizeof names, scope_at, TCMMA_SCOPE_STATEMENT,
                                         TCMMA_SCOPE_FRAGMENT));
  if (c->init == TCMMA_INIT_SCALE && (!c->alpha || !c->beta))
    return tcmma_fail(err, TCMMA_INVALID, "init scale needs alpha and beta expressions");
  if (c->registers < 0 || c->registers > TCMMA_REGISTERS_MAX)
    return tcmma_fail(err, TCMMA_INVALID, "registers %d: expected 0 (default %d) to %d",
                      c->registers, TCMMA_REGISTERS_DEFAULT, TCMMA_REGISTERS_MAX);
  if (c->warps < 0 || c->warps > TCMMA_WARPS_MAX)
    return tcmma_fail(err, TCMMA_INVALID, "warps %d: expected 0 (one) to %d", c->warps,
                      TCMMA_WARPS_MAX);
  if ((unsigned)c->numerics.fp16 > TCMMA_FP16_NARROW ||
      (unsigned)c->numerics.prefer > TCMMA_PREFER_WMMA)
    return tcmma_fail(err, TCMMA_INVALID, "numerics policy out of range");
  return TCMMA_OK;
}

/* Whether arm is on the call's preference list in either scope under the
 * call's own policy: forcing picks among the arms the policy allows (it never
 * lifts a numerics rule such as tf32 off or fp16 narrow) and leaves scope
 * rules (a converted destination) to the plan's own checks. */
bool tcmma__emit_arm_is_candidate(tcmma_triple t, const tcmma_numerics *policy, tcmma_arm arm) {
  for (int s = 0; s < 2; s++) {
    tcmma_arm list[TCMMA_RESOLVE_LIST_MAX];
    size_t n = tcmma_resolve_list(t, policy, (tcmma_scope)s, list, TCMMA_RESOLVE_LIST_MAX);
    for (size_t i = 0; i < n && i < TCMMA_RESOLVE_LIST_MAX; i++)
      if (list[i] == arm) return true;
  }
  return false;
}

static tcmma_status choose_arm(const tcmma_call *c, tcmma_plan *p, tcmma_error *err) {
  tcmma_triple t = {c->d.prec, c->a.prec, c->b.prec};
  const char *d = tcmma_prec_name(t.d), *a = tcmma_prec_name(t.a), *b = tcmma_prec_name(t.b);
  if (c->arm) {
    tcmma_status st = tcmma_arm_parse(c->arm, &p->arm, err);
    if (st != TCMMA_OK) return st;
    if (!tcmma__emit_arm_is_candidate(t, &c->numerics, p->arm))
      return decline(p, TCMMA_DECLINE_NO_ARM, err,
                     "arm %s is not on the preference list of %s = %s x %s under the numerics policy",
                     c->arm, d, a, b);
    if (!tcmma_arm_runs_on(p->arm, c->cc))
      return decline(p, TCMMA_DECLINE_FLOOR, err, "arm %s needs cc %d; the device is cc %d",
                     c->arm, tcmma_arm_get(p->arm)->floor, c->cc);
    return TCMMA_OK;
  }
  tcmma_error why;
  tcmma_status st = tcmma_resolve(t, &c->numerics, c->scope, c->cc, &p->arm, &why);
  if (st == TCMMA_NO_ARM) return decline(p, TCMMA_DECLINE_NO_ARM, err, "%s", why.message);
  if (st == TCMMA_FLOOR && c->scope == TCMMA_SCOPE_STATEMENT) {
    /* the statement list is final (docs/design.md §4), but when fragment scope would
     * run on this device, say so: that is what the caller can change */
    tcmma_arm frag;
    if (tcmma_resolve(t, &c->numerics, TCMMA_SCOPE_FRAGMENT, c->cc, &frag, NULL) == TCMMA_OK)
      return decline(p, TCMMA_DECLINE_FLOOR, err, "%s; fragment scope would run it on %s",
                     why.message, tcmma_arm_marker(frag));
  }
  if (st == TCMMA_FLOOR) return decline(p, TCMMA_DECLINE_FLOOR, err, "%s", why.message);
  if (st != TCMMA_OK) return tcmma_fail(err, st, "%s", why.message);
  return TCMMA_OK;
}

static tcmma_status check_extents(const tcmma_call *c, const tcmma_arm_info *info,
                                  tcmma_plan *p, tcmma_error *err) {
  const int got[3] = {c->m, c->n, c->k}, tile[3] = {info->m, info->n, info->k};
  const char *axis[3] = {"m", "n", "k"};
  for (int i = 0; i < 3; i++)
    if (got[i] <= 0 || got[i] % tile[i] != 0)
      return decline(p, TCMMA_DECLINE_EXTENTS, err,
                     "%s = %d is not a positive multiple of %s's tile %s = %d", axis[i], got[i],
                     info->marker, axis[i], tile[i]);
  return TCMMA_OK;
}

static tcmma_status check_operands(const tcmma_call *c, const tcmma_arm_info *info,
                                   tcmma_plan *p, tcmma_error *err) {
  for (int i = 0; i < 3; i++) {
    const tcmma_operand_desc *o = tcmma__emit_desc(c, op_of[i]);
    if (o->space == TCMMA_SPACE_THREAD)
      return decline(p, TCMMA_DECLINE_SPACE, err, "%s is in thread space", op_name[i]);
    if (o->col0.expr && !o->ld)
      return decline(p, TCMMA_DECLINE_SUBTILE, err, "%s: a column origin expression needs the "
                     "parent's ld (ld 0 means dense: the sub-tile's own rows)", op_name[i]);
  }
  for (int i = 0; i < 3; i++) {
    const tcmma_operand_desc *o = tcmma__emit_desc(c, op_of[i]);
    if (o->swizzle == TCMMA_SWIZZLE_NONE) continue;
    if (info->form == TCMMA_FORM_WMMA)
      return decline(p, TCMMA_DECLINE_LAYOUT, err,
                     "%s is swizzled (%s); %s loads plain layouts only (wmma has no swizzled "
                     "load)", op_name[i], tcmma_swizzle_name(o->swizzle), info->marker);
    if (o->space != TCMMA_SPACE_SHARED)
      return decline(p, TCMMA_DECLINE_LAYOUT, err,
                     "%s is swizzled (%s) in %s memory; swizzled tiles live in shared memory",
                     op_name[i], tcmma_swizzle_name(o->swizzle), tcmma_space_name(o->space));
  }
  if (info->converted_dest && c->scope == TCMMA_SCOPE_STATEMENT)
    return decline(p, TCMMA_DECLINE_CONVERTED_DEST, err,
                   "%s converts d (%s) from its %s accumulator in statement scope",
                   info->marker, tcmma_prec_name(c->d.prec), tcmma_prec_name(info->acc));
  return TCMMA_OK;
}

static tcmma_status check_strides(tcmma_plan *p, tcmma_error *err) {
  /* emitted offsets are C int arithmetic: every byte offset must fit */
  for (int i = 0; i < 3; i++) {
    long rows = p->stored[op_of[i]].rows, cols = p->stored[op_of[i]].cols;
    long ld = p->stored[op_of[i]].ld;
    const tcmma_operand_desc *o = tcmma__emit_desc(&p->call, op_of[i]);
    if (ld < o->col0.value + cols)
      return decline(p, TCMMA_DECLINE_STRIDE, err,
                     "%s: ld = %ld is below its stored row length %ld%s", op_name[i], ld,
                     o->col0.value + cols, o->col0.value ? " past the column origin" : "");
    rows += o->row0.value; /* the parent's rows up to the sub-tile's end */
    long eb = tcmma_prec_bytes(o->prec);
    if (ld > INT_MAX / eb || rows > INT_MAX / (ld * eb))
      return decline(p, TCMMA_DECLINE_OVERFLOW, err,
                     "%s: %ld rows x ld %ld x %ld bytes exceeds the int offset range (%d)",
                     op_name[i], rows, ld, eb, INT_MAX);
  }
  for (int i = 0; i < 3; i++) {
    long ld = p->stored[op_of[i]].ld;
    long eb = tcmma_prec_bytes(tcmma__emit_desc(&p->call, op_of[i])->prec);
    tcmma__emit_align al;
    tcmma__emit_operand_align(p, op_of[i], &al);
    if ((ld * eb) % al.rows != 0)
      return decline(p, TCMMA_DECLINE_STRIDE, err,
                     "%s: ld = %ld (%ld bytes) is not a multiple of %ld bytes: %s", op_name[i],
                     ld, ld * eb, al.rows, al.rows_why);
  }
  return TCMMA_OK;
}

/* The block scales of a and b (docs/design.md §5): whole blocks from the
 * k origin (a block's scale is one byte), rows long enough, offsets within
 * int. Fills a dense scale_ld. */
static tcmma_status check_scales(tcmma_plan *p, const tcmma_arm_info *info, tcmma_error *err) {
  for (int i = 1; i < 3 && info->scale_block; i++) {
    tcmma_operand_desc *o = (tcmma_operand_desc *)tcmma__emit_desc(&p->call, op_of[i]);
    long rows, cols, ld, block = info->scale_block;
    const tcmma_coord *kc;
    tcmma_operand_scale_shape(&p->call, op_of[i], info->scale_block, &rows, &cols, &ld, NULL, &kc);
    long mult = kc->multiple > 0 ? kc->multiple : 1;
    if (kc->value % block || (kc->expr && mult % block))
      return decline(p, TCMMA_DECLINE_SUBTILE, err,
                     "%s: the k origin (%ld%s%s) is not a multiple of %ld: each block scale "
                     "covers %ld consecutive k", op_name[i], kc->value, kc->expr ? " + " : "",
                     kc->expr ? kc->expr : "", block, block);
    if (ld < cols)
      return decline(p, TCMMA_DECLINE_STRIDE, err, "%s: scale_ld = %ld is below the %ld scales a "
                     "row needs up to the sub-tile's end", op_name[i], ld, cols);
    if (rows > INT_MAX / ld)
      return decline(p, TCMMA_DECLINE_OVERFLOW, err, "%s: %ld rows x scale_ld %ld scales "
                     "exceed the int offset range (%d)", op_name[i], rows, ld, INT_MAX);
    o->scale_ld = ld;
  }
  return TCMMA_OK;
}

tcmma_status tcmma_plan_call(const tcmma_call *call, tcmma_plan *out, tcmma_error *err) {
  if (!call || !out)
    return tcmma_fail(err, TCMMA_INVALID, "tcmma_plan_call: call and out must not be NULL");
  memset(out, 0, sizeof *out);
  out->arm = TCMMA_ARM_NONE;
  /* the caller's call as this library's whole struct (an older, smaller one
   * gets the defaults for the rest); from here on `call` is that copy */
  tcmma_call taken, defaults = tcmma_call_default();
  tcmma_status st = tcmma__abi_take(&taken, call, sizeof taken, &defaults, "tcmma_call",
                                    "tcmma_call_default()", err);
  if (st != TCMMA_OK) return st;
  call = &taken;
  out->call = taken;
  st = check_call(call, err);
  if (st == TCMMA_OK) st = choose_arm(call, out, err);
  if (st != TCMMA_OK) return st;
  const tcmma_arm_info *info = tcmma_arm_get(out->arm);
  if ((st = check_extents(call, info, out, err)) != TCMMA_OK) return st;
  if ((st = check_operands(call, info, out, err)) != TCMMA_OK) return st;
  /* fill the dense leading dimensions (and ldmatrix operands: the stride rule
   * depends on them) before the stride rules */
  for (int i = 0; i < 3; i++) {
    tcmma_operand_desc *o = (tcmma_operand_desc *)tcmma__emit_desc(&out->call, op_of[i]);
    tcmma_stored_shape *sh = &out->stored[op_of[i]];
    tcmma_operand_stored_shape(&out->call, op_of[i], &sh->rows, &sh->cols, &sh->ld);
    o->ld = sh->ld;
  }
  tcmma_arm_ldmatrix_operands(out->arm, tcmma__emit_ldmatrix_eligible(&out->call.a),
                              call->a.transposed, tcmma__emit_ldmatrix_eligible(&out->call.b),
                              call->b.transposed, &out->a_ldmatrix, &out->b_ldmatrix);
  if ((st = check_strides(out, err)) != TCMMA_OK) return st;
  if ((st = check_scales(out, info, err)) != TCMMA_OK) return st;
  char what[400];
  for (int i = 0; i < 3; i++)
    if (tcmma__emit_origin_problem(out, op_of[i], op_name[i], what, sizeof what))
      return decline(out, TCMMA_DECLINE_SUBTILE, err, "%s", what);
  out->mt = call->m / info->m;
  out->nt = call->n / info->n;
  out->kt = call->k / info->k;
  tcmma_decline why;
  if (tcmma__emit_budget_problem(out, &why, what, sizeof what)) {
    out->mt = out->nt = out->kt = 0;
    return decline(out, why, err, "%s", what);
  }
  out->accepted = true;
  out->reason = TCMMA_DECLINE_NONE;
  snprintf(out->message, sizeof out->message, "accepted: %s, %d x %d x %d tiles", info->marker,
           out->mt, out->nt, out->kt);
  return TCMMA_OK;
}
