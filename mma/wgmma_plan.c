/* A wgmma operand's shared-memory matrix descriptor from its v2 layout
 * (tcmma_operand_desc), or the reason the descriptor cannot read it
 * (docs/wgmma.md): the offsets are mma/desc_plan.c's, shared with tcgen05;
 * the bits are Hopper's descriptor (tcmma_wgmma_desc_encode). An A in
 * registers needs no descriptor. */
#include "tcmma/wgmma.h"
#include "desc_plan.h"

#include <string.h>

static tcmma_status check_args(tcmma_wgmma w, tcmma_operand op, const tcmma_operand_desc *d,
                               tcmma_wgmma_operand *out, tcmma_error *err) {
  if (!out || !d) return tcmma_fail(err, TCMMA_INVALID, "wgmma operand plan: NULL argument");
  memset(out, 0, sizeof *out);
  out->reason = TCMMA_DECLINE_NONE;
  if (!tcmma_wgmma_get(w))
    return tcmma_fail(err, TCMMA_INVALID, "wgmma arm %d is out of range", (int)w);
  if (op != TCMMA_OPERAND_A && op != TCMMA_OPERAND_B)
    return tcmma_fail(err, TCMMA_INVALID, "wgmma operand %d: expected a or b (the accumulator "
                      "lives in registers)", (int)op);
  if ((unsigned)d->prec >= TCMMA_PREC_COUNT || !tcmma_swizzle_get(d->swizzle) || d->ld < 0)
    return tcmma_fail(err, TCMMA_INVALID, "wgmma operand %s: precision %d, swizzle %d or ld %ld "
                      "out of range", tcmma_operand_name(op), (int)d->prec, (int)d->swizzle, d->ld);
  return TCMMA_OK;
}

/* The row's own declines, then the shared plan. */
static tcmma_status plan(const tcmma_wgmma_info *i, tcmma_operand op, int n,
                         const tcmma_operand_desc *d, long panel_rows, tcmma__desc_plan *p,
                         tcmma_error *err) {
  if (!tcmma_wgmma_n_ok(i->id, n))
    return tcmma__desc_decline(p, TCMMA_DECLINE_EXTENTS, err, "%s: n %d is not an instruction n "
                               "(tables/wgmma.def)", i->marker, n);
  if (!(i->ops >> d->prec & 1u))
    return tcmma__desc_decline(p, TCMMA_DECLINE_NO_ARM, err, "%s does not read %s operands",
                               i->marker, tcmma_prec_name(d->prec));
  if (op == TCMMA_OPERAND_A && d->space == TCMMA_SPACE_THREAD) {
    if (d->transposed)
      return tcmma__desc_decline(p, TCMMA_DECLINE_LAYOUT, err,
                                 "%s: an A from registers is K-major (the fragments of tcmma "
                                 "layout %s a); this one is stored transposed", i->marker,
                                 i->marker);
    p->reason = TCMMA_DECLINE_NONE;
    return TCMMA_OK; /* registers: no descriptor */
  }
  tcmma__desc_arm arm = {i->marker, i->m, i->k, i->trans, panel_rows};
  return tcmma__desc_plan_shared(&arm, op, n, d, p, err);
}

tcmma_status tcmma_wgmma_operand_plan(tcmma_wgmma w, tcmma_operand op, int n,
                                      const tcmma_operand_desc *d, tcmma_wgmma_operand *out,
                                      tcmma_error *err) {
  return tcmma_wgmma_operand_plan_panels(w, op, n, d, 0, out, err);
}

tcmma_status tcmma_wgmma_operand_plan_panels(tcmma_wgmma w, tcmma_operand op, int n,
                                             const tcmma_operand_desc *d, long panel_rows,
                                             tcmma_wgmma_operand *out, tcmma_error *err) {
  tcmma_status st = check_args(w, op, d, out, err);
  if (st != TCMMA_OK) return st;
  tcmma__desc_plan p = {.reason = TCMMA_DECLINE_NONE};
  st = plan(tcmma_wgmma_get(w), op, n, d, panel_rows, &p, err);
  out->reason = p.reason;
  memcpy(out->message, p.message, sizeof out->message);
  if (st != TCMMA_OK || (op == TCMMA_OPERAND_A && d->space == TCMMA_SPACE_THREAD)) return st;
  out->trans = p.trans;
  out->origin_bytes = p.origin_bytes;
  out->k_step_bytes = p.k_step_bytes;
  return tcmma_wgmma_desc_encode(0, p.lbo, p.sbo, 0, d->swizzle, &out->desc, err);
}
