/* A tcgen05 operand's sm_100 shared-memory descriptor from its v2 layout
 * (tcmma_operand_desc), or the reason the descriptor cannot read it
 * (docs/tcgen05.md): the offsets are mma/desc_plan.c's (the canonical
 * layouts are wgmma's), the bits tcmma_tcgen05_desc_encode's. */
#include "tcmma/tcgen05.h"
#include "desc_plan.h"

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

/* The row's own declines, then the shared plan. */
static tcmma_status plan(const tcmma_tcgen05_info *i, tcmma_operand op, int m, int n,
                         const tcmma_operand_desc *d, tcmma__desc_plan *p, tcmma_error *err) {
  if (!tcmma_tcgen05_shape_ok(i->id, m, n))
    return tcmma__desc_decline(p, TCMMA_DECLINE_EXTENTS, err, "%s: %d x %d is not an "
                               "instruction shape (tables/tcgen05.def)", i->marker, m, n);
  if (!(i->ops >> d->prec & 1u))
    return tcmma__desc_decline(p, TCMMA_DECLINE_NO_ARM, err, "%s does not read %s operands",
                               i->marker, tcmma_prec_name(d->prec));
  if (!tcmma_tcgen05_reads_storage(i->id, d->prec))
    return tcmma__desc_decline(p, TCMMA_DECLINE_LAYOUT, err,
                               "%s: a descriptor does not read %s elements as tcmma stores them "
                               "(one per byte, the value in the low bits): tcgen05's form of "
                               "fp6 and fp4 in shared memory differs (PTX ISA packing formats)",
                               i->marker, tcmma_prec_name(d->prec));
  tcmma__desc_arm arm = {i->marker, m, i->k, i->trans};
  return tcmma__desc_plan_shared(&arm, op, n, d, p, err);
}

tcmma_status tcmma_tcgen05_operand_plan(tcmma_tcgen05 w, tcmma_operand op, int m, int n,
                                        const tcmma_operand_desc *d, tcmma_tcgen05_operand *out,
                                        tcmma_error *err) {
  tcmma_status st = check_args(w, op, d, out, err);
  if (st != TCMMA_OK) return st;
  tcmma__desc_plan p = {.reason = TCMMA_DECLINE_NONE};
  st = plan(tcmma_tcgen05_get(w), op, m, n, d, &p, err);
  out->reason = p.reason;
  memcpy(out->message, p.message, sizeof out->message);
  if (st != TCMMA_OK) return st;
  out->trans = p.trans;
  out->origin_bytes = p.origin_bytes;
  out->k_step_bytes = p.k_step_bytes;
  return tcmma_tcgen05_desc_encode(0, p.lbo, p.sbo, 0, d->swizzle, &out->desc, err);
}
