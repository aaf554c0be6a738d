/* A tcgen05 operand's sm_100 shared-memory descriptor from its v2 layout
 * (tcmma_operand_desc), or the reason the descriptor cannot read it
 * (docs/tcgen05.md): the offsets are mma/desc_plan.c's (the canonical
 * layouts are wgmma's), the bits tcmma_tcgen05_desc_encode's. */
#include "tcmma/tcgen05.h"
#include "tcgen05_plan.h"

#include <string.h>

static tcmma_status check_args(tcmma_tcgen05 w, tcmma_operand op, const tcmma_operand_desc *d,
                               tcmma_tcgen05_operand *out, tcmma_error *err) {
  if (!out || !d) return tcmma_fail(err, TCMMA_INVALID, "tcgen05 operand plan: NULL argument");
  memset(out, 0, sizeof *out);
  out->reason = TCMMA_DECLINE_NONE;
  if (!tcmma_tcgen05_get(w))
    return tcmma_fail(err, TCMMA_INVALID, "tcgen05 arm %d is out of range", (int)w);
  if (op != TCMMA_OPERAND_A && op != TCMMA_OPERAND_B)
    return tcmma_fail(err, TCMMA_INVALID, "tcgen05 operand %d: expected a or b (the accumulator "
                      "lives in Tensor Memory)", (int)op);
  if ((unsigned)d->prec >= TCMMA_PREC_COUNT || !tcmma_swizzle_get(d->swizzle) || d->ld < 0)
    return tcmma_fail(err, TCMMA_INVALID, "tcgen05 operand %s: precision %d, swizzle %d or ld %ld "
                      "out of range", tcmma_operand_name(op), (int)d->prec, (int)d->swizzle, d->ld);
  return TCMMA_OK;
}

tcmma_status tcmma__tcgen05_twin(tcmma_tcgen05 w, int m, const tcmma_operand_desc *d, long k,
                                 tcmma_operand_desc *twin, tcmma__desc_arm *arm, long *twin_k,
                                 tcmma__desc_plan *out, tcmma_error *err) {
  const tcmma_tcgen05_info *i = tcmma_tcgen05_get(w);
  int pack = tcmma_tcgen05_pack(w, d->prec);
  *twin = *d, *twin_k = k;
  *arm = (tcmma__desc_arm){i->marker, m, i->k, i->trans};
  if (pack != 2) return TCMMA_OK;
  long step = d->col0.multiple ? d->col0.multiple : 1;
  if (d->ld % 2 || d->col0.value % 2 || (d->col0.expr && step % 2) || k % 2)
    return tcmma__desc_decline(out, TCMMA_DECLINE_SUBTILE, err,
                               "%s: packed %s (two a byte along k): ld %ld, origin column %ld "
                               "(step %ld) and k %ld must be even (whole bytes)", i->marker,
                               tcmma_prec_name(d->prec), d->ld, d->col0.value, step, k);
  twin->ld = d->ld / 2, twin->col0.value = d->col0.value / 2;
  if (d->col0.expr) twin->col0.multiple = step / 2;
  *twin_k = k / 2, arm->k = i->k / 2;
  return TCMMA_OK;
}

/* The row's own declines, then the shared plan (packed fp4 as its bytes). */
static tcmma_status plan(const tcmma_tcgen05_info *i, tcmma_operand op, int m, int n,
                         const tcmma_operand_desc *d, long panel_rows, tcmma__desc_plan *p,
                         tcmma_error *err) {
  if (!tcmma_tcgen05_shape_ok(i->id, m, n))
    return tcmma__desc_decline(p, TCMMA_DECLINE_EXTENTS, err, "%s: %d x %d is not an "
                               "instruction shape (tables/tcgen05.def)", i->marker, m, n);
  if (!(i->ops >> d->prec & 1u))
    return tcmma__desc_decline(p, TCMMA_DECLINE_NO_ARM, err, "%s does not read %s operands",
                               i->marker, tcmma_prec_name(d->prec));
  if (!tcmma_tcgen05_pack(i->id, d->prec))
    return tcmma__desc_decline(p, TCMMA_DECLINE_LAYOUT, err,
                               "%s: a descriptor reads %s elements in a padded form (PTX ISA "
                               "packing formats: sixteen fp4 in 8 of 16 bytes, sixteen fp6 in 12) "
                               "that no tcmma layout expresses; packed fp4 is read by "
                               "tcgen05-mxf4 and tcgen05-nvf4", i->marker,
                               tcmma_prec_name(d->prec));
  tcmma_operand_desc twin;
  tcmma__desc_arm arm;
  long k;
  tcmma_status st = tcmma__tcgen05_twin(i->id, m, d, i->k, &twin, &arm, &k, p, err);
  arm.panel_rows = panel_rows;
  return st != TCMMA_OK ? st : tcmma__desc_plan_shared(&arm, op, n, &twin, p, err);
}

tcmma_status tcmma_tcgen05_operand_plan(tcmma_tcgen05 w, tcmma_operand op, int m, int n,
                                        const tcmma_operand_desc *d, tcmma_tcgen05_operand *out,
                                        tcmma_error *err) {
  return tcmma_tcgen05_operand_plan_panels(w, op, m, n, d, 0, out, err);
}

tcmma_status tcmma_tcgen05_operand_plan_panels(tcmma_tcgen05 w, tcmma_operand op, int m, int n,
                                               const tcmma_operand_desc *d, long panel_rows,
                                               tcmma_tcgen05_operand *out, tcmma_error *err) {
  tcmma_status st = check_args(w, op, d, out, err);
  if (st != TCMMA_OK) return st;
  tcmma__desc_plan p = {.reason = TCMMA_DECLINE_NONE};
  st = plan(tcmma_tcgen05_get(w), op, m, n, d, panel_rows, &p, err);
  out->reason = p.reason;
  memcpy(out->message, p.message, sizeof out->message);
  if (st != TCMMA_OK) return st;
  out->trans = p.trans;
  out->origin_bytes = p.origin_bytes;
  out->k_step_bytes = p.k_step_bytes;
  return tcmma_tcgen05_desc_encode(0, p.lbo, p.sbo, 0, d->swizzle, &out->desc, err);
}
