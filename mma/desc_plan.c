/* A shared operand's matrix-descriptor offsets from its v2 layout
 * (tcmma_operand_desc), or the reason a descriptor cannot read it
 * (docs/wgmma.md, docs/tcgen05.md). A descriptor reads 16-byte core-matrix
 * rows in 8-row groups; with a swizzle the hardware XORs address bits,
 * which equals the project's row formula (tables/swizzles.def) only when a
 * stored row is exactly one swizzle span and the parent starts on an 8-row
 * atom. An M/N-major operand wider than one span reads its further spans
 * LBO apart (PTX ISA, "Leading Dimension Byte Offset": for MN-major
 * swizzled layouts, from the first span-wide group of rows along m or n to
 * the next): stored panel-major, panels of one span and panel_rows rows a
 * constant panel_rows * span bytes apart. */
#include "desc_plan.h"

#include <stdarg.h>
#include <stdio.h>
#include <string.h>

tcmma_status tcmma__desc_decline(tcmma__desc_plan *out, tcmma_decline why, tcmma_error *err,
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
  long panel_rows;    /* an M/N-major operand's rows per panel (0: one span) */
} shape;

/* The checks every major-ness shares: space, swizzle atom, row stride. */
static tcmma_status check_rows(const tcmma__desc_arm *i, const tcmma_operand_desc *d,
                               const shape *s, tcmma__desc_plan *out, tcmma_error *err) {
  if (d->space != TCMMA_SPACE_SHARED)
    return tcmma__desc_decline(out, TCMMA_DECLINE_SPACE, err,
                   "%s: operand %s lives in %s memory: a matrix descriptor reads shared memory",
                   i->marker, s->name, tcmma_space_name(d->space));
  if (s->row_bytes % 16)
    return tcmma__desc_decline(out, TCMMA_DECLINE_STRIDE, err,
                   "%s: operand %s's rows are %ld bytes apart (ld %ld): a matrix descriptor "
                   "needs a multiple of 16", i->marker, s->name, s->row_bytes, d->ld);
  if (!s->span)
    return tcmma__desc_decline(out, TCMMA_DECLINE_LAYOUT, err,
                   "%s: operand %s is not swizzled: a descriptor without swizzle reads core "
                   "matrices of 8 contiguous 16-byte rows, which rows %ld bytes apart are not "
                   "(store it swizzled)", i->marker, s->name, s->row_bytes);
  if (s->row_bytes != s->span)
    return tcmma__desc_decline(out, TCMMA_DECLINE_LAYOUT, err,
                   "%s: operand %s's rows are %ld bytes (ld %ld): the %ld-byte swizzle atom the "
                   "descriptor reads needs rows of exactly one span", i->marker, s->name,
                   s->row_bytes, d->ld, s->span);
  if (!s->k_major && s->mn * s->eb > s->span && !s->panel_rows)
    return tcmma__desc_decline(out, TCMMA_DECLINE_LAYOUT, err,
                   "%s: operand %s is stored %s-major with %ld elements along %s: a row of one "
                   "%ld-byte span holds %ld", i->marker, s->name, s->name[0] == 'a' ? "M" : "N",
                   s->mn, s->name[0] == 'a' ? "m" : "n", s->span, s->span / s->eb);
  return TCMMA_OK;
}

/* Panels: an M/N-major operand's, each on the swizzle's 8-row atom (its
 * XOR pattern restarts there, as the stored rows' does). */
static tcmma_status check_panels(const tcmma__desc_arm *i, const shape *s,
                                 tcmma__desc_plan *out, tcmma_error *err) {
  if (!s->panel_rows) return TCMMA_OK;
  if (s->k_major || s->panel_rows < 0)
    return tcmma__desc_decline(out, TCMMA_DECLINE_LAYOUT, err,
                   "%s: operand %s with panels of %ld rows: panels are the spans of a stored "
                   "M/N-major operand (expected 0 for a K-major one, positive otherwise)",
                   i->marker, s->name, s->panel_rows);
  if (s->panel_rows % TCMMA_SWIZZLE_ROWS)
    return tcmma__desc_decline(out, TCMMA_DECLINE_LAYOUT, err,
                   "%s: operand %s's panels of %ld rows (%ld bytes apart): a panel starts on the "
                   "swizzle's %d-row atom (expected a multiple of %d rows)", i->marker, s->name,
                   s->panel_rows, s->panel_rows * s->row_bytes, TCMMA_SWIZZLE_ROWS,
                   TCMMA_SWIZZLE_ROWS);
  return TCMMA_OK;
}

/* A K-major operand's k elements from its origin column lie along one stored
 * row: a k step moves the start address along it, and past the row's end
 * the atom the descriptor reads is the next row's. */
static tcmma_status check_k(const char *marker, const tcmma_operand_desc *d, const shape *s,
                            long k, tcmma__desc_plan *out, tcmma_error *err) {
  long row = s->row_bytes / s->eb;
  if (!s->k_major && s->panel_rows && d->row0.value + k > s->panel_rows)
    return tcmma__desc_decline(out, TCMMA_DECLINE_LAYOUT, err,
                   "%s: operand %s's panels are %ld rows: k %ld from row %ld does not fit one "
                   "(expected row plus k at most %ld; a descriptor's k steps walk down the "
                   "panel)", marker, s->name, s->panel_rows, k, d->row0.value, s->panel_rows);
  if (!s->k_major || d->col0.value + k <= row) return TCMMA_OK;
  return tcmma__desc_decline(out, TCMMA_DECLINE_LAYOUT, err,
                 "%s: operand %s is K-major with rows of %ld bytes (%ld elements): k %ld from "
                 "column %ld does not fit one row (expected column plus k at most %ld; a "
                 "descriptor's k steps walk along the row)", marker, s->name, s->row_bytes, row,
                 k, d->col0.value, row);
}

/* The sub-tile's origin: stored rows on the 8-row atom, columns on 16
 * bytes; a panel-major operand's on a panel's first column (from any
 * other, the spans the descriptor reads LBO apart would straddle two
 * panels), at a constant panel. */
static tcmma_status check_origin(const tcmma__desc_arm *i, const tcmma_operand_desc *d,
                                 const shape *s, tcmma__desc_plan *out, tcmma_error *err) {
  long col_period = 16 / s->eb, panel = s->span / s->eb;
  if (!on_period(&d->row0, 8) || !on_period(&d->col0, col_period))
    return tcmma__desc_decline(out, TCMMA_DECLINE_SUBTILE, err,
                   "%s: operand %s's origin (row %ld, column %ld): a descriptor starts on a "
                   "multiple of 8 stored rows and of %ld columns (16 bytes)", i->marker, s->name,
                   d->row0.value, d->col0.value, col_period);
  if (!s->panel_rows) {
    long row = s->row_bytes / s->eb;
    if (!s->k_major && d->col0.value + s->mn > row) /* its m or n along one stored row */
      return tcmma__desc_decline(out, TCMMA_DECLINE_LAYOUT, err,
                     "%s: operand %s is stored %s-major with rows of %ld elements: %ld along %s "
                     "from column %ld pass the row (expected column plus %ld at most %ld)",
                     i->marker, s->name, s->name[0] == 'a' ? "M" : "N", row, s->mn,
                     s->name[0] == 'a' ? "m" : "n", d->col0.value, s->mn, row);
    out->origin_bytes = d->row0.value * s->row_bytes + d->col0.value * s->eb;
    return TCMMA_OK;
  }
  if (!on_period(&d->col0, panel))
    return tcmma__desc_decline(out, TCMMA_DECLINE_SUBTILE, err,
                   "%s: operand %s's origin column %ld (step %ld): a panel-major operand starts "
                   "on a panel's first column, a multiple of %ld (a panel distance the "
                   "descriptor's LBO holds constant)", i->marker, s->name, d->col0.value,
                   d->col0.expr ? (d->col0.multiple ? d->col0.multiple : 1) : 0, panel);
  out->origin_bytes = d->col0.value / panel * s->panel_rows * s->row_bytes +
                      d->row0.value * s->row_bytes;
  return TCMMA_OK;
}

/* Operand op's shape; a stored row of ld elements, dense: one span
 * swizzled (k elements plain). */
static shape shape_of(const tcmma__desc_arm *i, tcmma_operand op, int n,
                      const tcmma_operand_desc *d) {
  shape s = {op == TCMMA_OPERAND_A ? "a" : "b", d->transposed == (op == TCMMA_OPERAND_B),
             op == TCMMA_OPERAND_A ? i->m : n, tcmma_prec_bits(d->prec) / 8,
             tcmma_swizzle_get(d->swizzle)->bytes, 0, i->panel_rows};
  s.row_bytes = (d->ld ? d->ld : (s.span ? s.span / s.eb : i->k)) * s.eb;
  return s;
}

tcmma_status tcmma__desc_k_fits(const tcmma__desc_arm *i, tcmma_operand op,
                                const tcmma_operand_desc *d, long k, tcmma_error *err) {
  if (d->space != TCMMA_SPACE_SHARED) return TCMMA_OK; /* no descriptor */
  tcmma__desc_plan scratch;
  shape s = shape_of(i, op, 0, d);
  return check_k(i->marker, d, &s, k, &scratch, err);
}

tcmma_status tcmma__desc_plan_shared(const tcmma__desc_arm *i, tcmma_operand op, int n,
                                     const tcmma_operand_desc *d, tcmma__desc_plan *out,
                                     tcmma_error *err) {
  shape s = shape_of(i, op, n, d);
  if (!s.k_major && !i->trans)
    return tcmma__desc_decline(out, TCMMA_DECLINE_LAYOUT, err,
                   "%s: operand %s is stored %s-major: %s reads it K-major only (a stored %s)",
                   i->marker, s.name, op == TCMMA_OPERAND_A ? "M" : "N", i->marker,
                   op == TCMMA_OPERAND_A ? "row-major m x k" : "transposed n x k");
  tcmma_status st = check_rows(i, d, &s, out, err);
  if (st == TCMMA_OK) st = check_panels(i, &s, out, err);
  if (st == TCMMA_OK) st = check_origin(i, d, &s, out, err);
  if (st == TCMMA_OK) st = check_k(i->marker, d, &s, i->k, out, err); /* one instruction's */
  if (st != TCMMA_OK) return st;
  /* K-major: 8-row groups SBO apart, LBO unused (1); M/N-major: 8 k rows per
   * group, SBO apart, LBO to the next span along m or n: the next panel (one
   * span: none, 8 rows written) */
  out->sbo = 8 * s.row_bytes;
  out->lbo = s.k_major ? 16 : (s.panel_rows ? s.panel_rows : 8) * s.row_bytes;
  out->trans = !s.k_major;
  out->k_step_bytes = s.k_major ? i->k * s.eb : i->k * s.row_bytes;
  out->reason = TCMMA_DECLINE_NONE;
  return TCMMA_OK;
}

void tcmma__desc_where(bool trans, bool is_a, tcmma_swizzle swizzle, long panel_rows, char *buf,
                       size_t cap) {
  int at = snprintf(buf, cap, "%s, %s-byte swizzle", trans ? (is_a ? "M-major" : "N-major")
                    : "K-major", tcmma_swizzle_name(swizzle));
  if (panel_rows && at > 0 && (size_t)at < cap)
    snprintf(buf + at, cap - (size_t)at, ", panels of %ld rows", panel_rows);
}
