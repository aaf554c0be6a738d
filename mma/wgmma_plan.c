/* A wgmma operand's shared-memory matrix descriptor from its v2 layout
 * (tcmma_operand_desc), or the reason the descriptor cannot read it
 * (docs/wgmma.md). The descriptor reads 16-byte core-matrix rows in 8-row
 * groups; with a swizzle the hardware XORs address bits, which equals the
 * project's row formula (tables/swizzles.def) only when a stored row is
 * exactly one swizzle span and the parent starts on an 8-row atom. An A
 * in registers needs no descriptor. */
#include "tcmma/wgmma.h"

#include <stdarg.h>
#include <stdio.h>
#include <string.h>

static tcmma_status decline(tcmma_wgmma_operand *out, tcmma_decline why, tcmma_error *err,
                            const char *fmt, ...) __attribute__((format(printf, 4, 5)));

static tcmma_status decline(tcmma_wgmma_operand *out, tcmma_decline why, tcmma_error *err,
                            const char *fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(out->message, sizeof out->message, fmt, ap);
  va_end(ap);
  out->reason = why;
  return tcmma_fail(err, TCMMA_DECLINED, "%s", out->message);
}

/* Whether a coordinate's value and expression step stay on period. */
static bool on_period(const tcmma_coord *c, long period) {
  long step = c->multiple ? c->multiple : 1;
  return c->value % period == 0 && (!c->expr || step % period == 0);
}

typedef struct {
  const char *name;   /* "a" or "b" */
  bool k_major;       /* stored along k */
  long mn;            /* rows of the operand the instruction reads along m or n */
  long eb;            /* bytes per element */
  long span;          /* swizzle span in bytes (0: none) */
  long row_bytes;     /* a stored row */
} shape;

/* The checks every major-ness shares: space, swizzle atom, row stride. */
static tcmma_status check_rows(const tcmma_wgmma_info *i, const tcmma_operand_desc *d,
                               const shape *s, tcmma_wgmma_operand *out, tcmma_error *err) {
  if (d->space != TCMMA_SPACE_SHARED)
    return decline(out, TCMMA_DECLINE_SPACE, err,
                   "%s: operand %s lives in %s memory: a matrix descriptor reads shared memory",
                   i->marker, s->name, tcmma_space_name(d->space));
  if (s->row_bytes % 16)
    return decline(out, TCMMA_DECLINE_STRIDE, err,
                   "%s: operand %s's rows are %ld bytes apart (ld %ld): a matrix descriptor "
                   "needs a multiple of 16", i->marker, s->name, s->row_bytes, d->ld);
  if (!s->span)
    return decline(out, TCMMA_DECLINE_LAYOUT, err,
                   "%s: operand %s is not swizzled: a descriptor without swizzle reads core "
                   "matrices of 8 contiguous 16-byte rows, which rows %ld bytes apart are not "
                   "(store it swizzled)", i->marker, s->name, s->row_bytes);
  if (s->row_bytes != s->span)
    return decline(out, TCMMA_DECLINE_LAYOUT, err,
                   "%s: operand %s's rows are %ld bytes (ld %ld): the %ld-byte swizzle atom the "
                   "descriptor reads needs rows of exactly one span", i->marker, s->name,
                   s->row_bytes, d->ld, s->span);
  if (!s->k_major && s->mn * s->eb > s->span)
    return decline(out, TCMMA_DECLINE_LAYOUT, err,
                   "%s: operand %s is stored %s-major with %ld elements along %s: a row of one "
                   "%ld-byte span holds %ld", i->marker, s->name, s->name[0] == 'a' ? "M" : "N",
                   s->mn, s->name[0] == 'a' ? "m" : "n", s->span, s->span / s->eb);
  return TCMMA_OK;
}

/* The sub-tile's origin: stored rows on the 8-row atom, columns on 16 bytes. */
static tcmma_status check_origin(const tcmma_wgmma_info *i, const tcmma_operand_desc *d,
                                 const shape *s, tcmma_wgmma_operand *out, tcmma_error *err) {
  long col_period = 16 / s->eb;
  if (!on_period(&d->row0, 8) || !on_period(&d->col0, col_period))
    return decline(out, TCMMA_DECLINE_SUBTILE, err,
                   "%s: operand %s's origin (row %ld, column %ld): a descriptor starts on a "
                   "multiple of 8 stored rows and of %ld columns (16 bytes)", i->marker, s->name,
                   d->row0.value, d->col0.value, col_period);
  out->origin_bytes = d->row0.value * s->row_bytes + d->col0.value * s->eb;
  return TCMMA_OK;
}

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

tcmma_status tcmma_wgmma_operand_plan(tcmma_wgmma w, tcmma_operand op, int n,
                                      const tcmma_operand_desc *d, tcmma_wgmma_operand *out,
                                      tcmma_error *err) {
  tcmma_status st = check_args(w, op, d, out, err);
  if (st != TCMMA_OK) return st;
  const tcmma_wgmma_info *i = tcmma_wgmma_get(w);
  if (!tcmma_wgmma_n_ok(w, n))
    return decline(out, TCMMA_DECLINE_EXTENTS, err, "%s: n %d is not an instruction n "
                   "(tables/wgmma.def)", i->marker, n);
  if (!(i->ops >> d->prec & 1u))
    return decline(out, TCMMA_DECLINE_NO_ARM, err, "%s does not read %s operands", i->marker,
                   tcmma_prec_name(d->prec));
  if (op == TCMMA_OPERAND_A && d->space == TCMMA_SPACE_THREAD) {
    if (d->transposed)
      return decline(out, TCMMA_DECLINE_LAYOUT, err,
                     "%s: an A from registers is K-major (the fragments of tcmma layout %s a); "
                     "this one is stored transposed", i->marker, i->marker);
    return TCMMA_OK; /* registers: no descriptor */
  }
  shape s = {op == TCMMA_OPERAND_A ? "a" : "b", d->transposed == (op == TCMMA_OPERAND_B),
             op == TCMMA_OPERAND_A ? i->m : n, tcmma_prec_bits(d->prec) / 8,
             tcmma_swizzle_get(d->swizzle)->bytes, 0};
  if (!s.k_major && !i->trans)
    return decline(out, TCMMA_DECLINE_LAYOUT, err,
                   "%s: operand %s is stored %s-major: %s reads it K-major only (a stored %s)",
                   i->marker, s.name, op == TCMMA_OPERAND_A ? "M" : "N", i->marker,
                   op == TCMMA_OPERAND_A ? "row-major m x k" : "transposed n x k");
  /* dense swizzled rows are one span */
  s.row_bytes = (d->ld ? d->ld : (s.span ? s.span / s.eb : i->k)) * s.eb;
  if ((st = check_rows(i, d, &s, out, err)) != TCMMA_OK) return st;
  if ((st = check_origin(i, d, &s, out, err)) != TCMMA_OK) return st;
  /* K-major: 8-row groups SBO apart, LBO unused (1); M/N-major: 8 k rows per
   * group, SBO apart, LBO to the next span along m or n (none within one) */
  long sbo = 8 * s.row_bytes, lbo = s.k_major ? 16 : 8 * s.row_bytes;
  out->trans = !s.k_major;
  out->k_step_bytes = s.k_major ? i->k * s.eb : i->k * s.row_bytes;
  return tcmma_wgmma_desc_encode(0, lbo, sbo, 0, d->swizzle, &out->desc, err);
}
