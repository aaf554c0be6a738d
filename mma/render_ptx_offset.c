/* Where an inline-PTX fragment's elements lie: tcmma_fragment_layout read
 * as affine functions of the lane's g and q, and the byte offsets of those
 * elements in an operand's sub-tile. Below render_ptx.c (the a and b loads)
 * and render_ptx_d.c (the d boundary), which both read it. */
#include <stdio.h>
#include <string.h>
#include "emit.h"

tcmma_status tcmma__emit_ptx_stored_affine(tcmma_arm arm, tcmma_operand op, bool transposed,
                                           int reg, int elem, tcmma__emit_affine *sr,
                                           tcmma__emit_affine *sc, tcmma_error *err) {
  int r[TCMMA_WARP_SIZE], c[TCMMA_WARP_SIZE];
  for (int l = 0; l < TCMMA_WARP_SIZE; l++) {
    int rr, cc;
    tcmma_status st = tcmma_fragment_layout(arm, op, l, reg, elem, &rr, &cc, err);
    if (st != TCMMA_OK) return st;
    r[l] = transposed ? cc : rr;
    c[l] = transposed ? rr : cc;
  }
  *sr = (tcmma__emit_affine){r[0], r[4] - r[0], r[1] - r[0]};
  *sc = (tcmma__emit_affine){c[0], c[4] - c[0], c[1] - c[0]};
  for (int l = 0; l < TCMMA_WARP_SIZE; l++)
    if (r[l] != sr->c0 + sr->cg * (l >> 2) + sr->cq * (l & 3) ||
        c[l] != sc->c0 + sc->cg * (l >> 2) + sc->cq * (l & 3))
      return tcmma_fail(err, TCMMA_INVALID, "%s fragment %s is not affine in the lane's g and q",
                        tcmma_arm_marker(arm), tcmma_operand_name(op));
  return TCMMA_OK;
}

static void add_term(char *buf, size_t cap, int coef, const char *name) {
  size_t n = strlen(buf);
  if (coef == 0) return;
  const char *sep = n ? " + " : "";
  if (!name) snprintf(buf + n, cap - n, "%s%d", sep, coef);
  else if (coef == 1) snprintf(buf + n, cap - n, "%s%s", sep, name);
  else snprintf(buf + n, cap - n, "%s%d * %s", sep, coef, name);
}

void tcmma__emit_ptx_coord(char *buf, size_t cap, const char *prefix, const char *var, int tile,
                           tcmma__emit_affine a, const char *extra) {
  char g[64], q[64];
  snprintf(g, sizeof g, "%sg", prefix);
  snprintf(q, sizeof q, "%sq", prefix);
  buf[0] = '\0';
  add_term(buf, cap, tile, var);
  if (extra) add_term(buf, cap, 1, extra);
  add_term(buf, cap, a.cg, g);
  add_term(buf, cap, a.cq, q);
  add_term(buf, cap, a.c0, NULL);
  if (!buf[0]) snprintf(buf, cap, "0");
}

tcmma_status tcmma__emit_ptx_elem_offset(const tcmma__emit_body *x, tcmma_operand op,
                                         const char *kstep, int reg, int elem, char *buf,
                                         size_t cap, tcmma_error *err) {
  const tcmma_operand_desc *o = tcmma__emit_desc(&x->p->call, op);
  tcmma__emit_affine ar, ac;
  tcmma_status st =
      tcmma__emit_ptx_stored_affine(x->p->arm, op, o->transposed, reg, elem, &ar, &ac, err);
  if (st != TCMMA_OK) return st;
  char rv[TCMMA__EXPR_TEXT], cv[TCMMA__EXPR_TEXT], r[TCMMA__ADDR_TEXT], c[TCMMA__ADDR_TEXT];
  int rt, ct;
  tcmma__emit_tile_axes(x, op, kstep, rv, &rt, cv, &ct);
  tcmma__emit_ptx_coord(r, sizeof r, x->prefix, rv, rt, ar, NULL);
  tcmma__emit_ptx_coord(c, sizeof c, x->prefix, cv, ct, ac, NULL);
  tcmma__emit_operand_offset(buf, cap, x->dl, o, r, c);
  return TCMMA_OK;
}

