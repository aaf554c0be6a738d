/* The plan's rules for sub-tile origins and budgets (docs/design.md §5):
 * each returns whether the call breaks it and says how, for plan.c to
 * decline with. */
#include <stdio.h>
#include "emit.h"

/* Whether every value of coordinate c (value + a multiple of its expression's
 * multiple) is a multiple of m; else the offending part into what. */
static bool coord_ok(const tcmma_coord *c, long m, const char *axis, char *what, size_t cap) {
  long mult = c->multiple > 0 ? c->multiple : 1;
  if (c->value % m)
    return snprintf(what, cap, "%s origin %ld", axis, c->value), false;
  if (c->expr && mult % m)
    return snprintf(what, cap, "%s origin expression '%s' (a multiple of %ld)", axis, c->expr,
                    mult), false;
  return true;
}

bool tcmma__emit_origin_problem(const tcmma_plan *p, tcmma_operand op, const char *name, char *msg,
                                size_t cap) {
  const tcmma_operand_desc *o = tcmma__emit_desc(&p->call, op);
  long eb = tcmma_prec_bytes(o->prec), ld = p->stored[op].ld;
  char what[TCMMA_EXPR_MAX + 96];
  const tcmma_swizzle_info *sw = tcmma_swizzle_get(o->swizzle);
  if (sw && sw->bits) {
    /* the mask comes from the sub-tile's own rows, and units move whole */
    if (!coord_ok(&o->row0, TCMMA_SWIZZLE_ROWS, "row", what, sizeof what))
      return snprintf(msg, cap, "%s: %s is not a multiple of %d (the row period of swizzle %s)",
                      name, what, TCMMA_SWIZZLE_ROWS, sw->name), true;
    if (TCMMA_SWIZZLE_UNIT % eb == 0 &&
        !coord_ok(&o->col0, TCMMA_SWIZZLE_UNIT / eb, "column", what, sizeof what))
      return snprintf(msg, cap, "%s: %s is not a multiple of %ld elements (swizzle %s moves "
                      "%d-byte units whole)", name, what, TCMMA_SWIZZLE_UNIT / eb, sw->name,
                      TCMMA_SWIZZLE_UNIT), true;
  }
  tcmma__emit_align al;
  tcmma__emit_operand_align(p, op, &al);
  const char *why = al.origin_why;
  long align = al.origin, rb = ld * eb % align, cb = eb % align;
  /* row0*ld*eb + col0*eb must be a multiple of align, whatever the
   * expressions' values: the constant parts together, each expression's
   * multiple alone (modular products: no overflow) */
  long mr = o->row0.multiple > 0 ? o->row0.multiple : 1;
  long mc = o->col0.multiple > 0 ? o->col0.multiple : 1;
  long at = (o->row0.value % align * rb + o->col0.value % align * cb) % align;
  if (at)
    return snprintf(msg, cap, "%s: origin (row %ld, column %ld) is %ld bytes from the parent's "
                    "base (rows of %ld bytes), not a multiple of %ld (%s)", name,
                    o->row0.value, o->col0.value, o->row0.value * ld * eb + o->col0.value * eb,
                    ld * eb, align, why), true;
  const tcmma_coord *c = o->row0.expr && mr % align * rb % align ? &o->row0
                       : o->col0.expr && mc % align * cb % align ? &o->col0 : NULL;
  if (c)
    return snprintf(msg, cap, "%s: %s origin expression '%s' (a multiple of %ld) can move the "
                    "sub-tile off a multiple of %ld bytes (rows of %ld bytes; %s)", name,
                    c == &o->row0 ? "row" : "column", c->expr, c == &o->row0 ? mr : mc, align,
                    ld * eb, why), true;
  return false;
}

bool tcmma__emit_budget_problem(const tcmma_plan *p, tcmma_decline *reason, char *msg, size_t cap) {
  const tcmma_arm_info *info = tcmma_arm_get(p->arm);
  int limit = p->call.registers ? p->call.registers : TCMMA_REGISTERS_DEFAULT;
  long regs = tcmma__emit_plan_registers(p);
  if (regs > limit) {
    *reason = TCMMA_DECLINE_REGISTERS;
    snprintf(msg, cap, "%s's accumulator of %dx%d tiles and one k step of fragments need %ld "
             "registers per lane; the budget is %d (call.registers; default %d)", info->marker,
             p->mt, p->nt, regs, limit, TCMMA_REGISTERS_DEFAULT);
    return true;
  }
  /* mt*nt is bounded by the registers now; kt by the products */
  long products = (long)p->mt * p->nt * p->kt;
  if (products > TCMMA_PRODUCTS_MAX) {
    *reason = TCMMA_DECLINE_UNROLL;
    snprintf(msg, cap, "%dx%dx%d tiles unroll %ld products in one statement or update; at most "
             "%d (split k into the caller's loop around fragment-scope updates)", p->mt, p->nt,
             p->kt, products, TCMMA_PRODUCTS_MAX);
    return true;
  }
  return false;
}
