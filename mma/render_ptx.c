/* Inline-PTX bodies: per-lane gathers (or ldmatrix) of the fragments at the
 * PTX ISA layouts, mma.sync through asm (or the simulator's call), and the
 * d boundary at d's storage precision. Every index a lane computes comes
 * from tcmma_fragment_layout, read here as affine functions of g and q. */
#include <stdio.h>
#include <string.h>
#include "emit.h"

typedef struct { int c0, cg, cq; } affine;

/* Stored coordinates of element elem of register reg as c0 + cg*g + cq*q. */
static tcmma_status stored_affine(tcmma_arm arm, tcmma_operand op, bool transposed, int reg,
                                  int elem, affine *sr, affine *sc, tcmma_error *err) {
  int r[TCMMA_WARP_SIZE], c[TCMMA_WARP_SIZE];
  for (int l = 0; l < TCMMA_WARP_SIZE; l++) {
    int rr, cc;
    tcmma_status st = tcmma_fragment_layout(arm, op, l, reg, elem, &rr, &cc, err);
    if (st != TCMMA_OK) return st;
    r[l] = transposed ? cc : rr;
    c[l] = transposed ? rr : cc;
  }
  *sr = (affine){r[0], r[4] - r[0], r[1] - r[0]};
  *sc = (affine){c[0], c[4] - c[0], c[1] - c[0]};
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

/* "P_mi * 16 + P_g + 8": a tile index times the tile plus the lane's part. */
static void coord(char *buf, size_t cap, const char *prefix, const char *var, int tile,
                  affine a, const char *extra) {
  char v[64], g[64], q[64];
  snprintf(v, sizeof v, "%s%s", prefix, var);
  snprintf(g, sizeof g, "%sg", prefix);
  snprintf(q, sizeof q, "%sq", prefix);
  buf[0] = '\0';
  add_term(buf, cap, tile, v);
  if (extra) add_term(buf, cap, 1, extra);
  add_term(buf, cap, a.cg, g);
  add_term(buf, cap, a.cq, q);
  add_term(buf, cap, a.c0, NULL);
  if (!buf[0]) snprintf(buf, cap, "0");
}

typedef tcmma__body ctx;

/* Byte offset expression of element (reg, elem) of op's fragment. */
static tcmma_status elem_offset(const ctx *x, tcmma_operand op, int reg, int elem, char *buf,
                                size_t cap, tcmma_error *err) {
  const tcmma_operand_desc *o = tcmma__desc(&x->p->call, op);
  affine ar, ac;
  tcmma_status st = stored_affine(x->p->arm, op, o->transposed, reg, elem, &ar, &ac, err);
  if (st != TCMMA_OK) return st;
  const char *rv, *cv;
  int rt, ct;
  tcmma__tile_axes(x, op, &rv, &rt, &cv, &ct);
  char r[160], c[160];
  coord(r, sizeof r, x->prefix, rv, rt, ar, NULL);
  coord(c, sizeof c, x->prefix, cv, ct, ac, NULL);
  tcmma__operand_offset(buf, cap, o, r, c);
  return TCMMA_OK;
}

/* One register of a or b gathered per lane: one 32-bit load when its
 * elements are contiguous (the plan checked the alignment), else one load
 * per element packed low element first. */
static tcmma_status gather(const ctx *x, tcmma_operand op, const char *ptr, const char *dst,
                           int reg, int depth, tcmma_buf *out, tcmma_error *err) {
  int per = tcmma_fragment_elems_per_reg(x->p->arm, op);
  int eb = tcmma_prec_bytes(tcmma__desc(&x->p->call, op)->prec);
  char off[512];
  tcmma__indent(out, depth);
  if (tcmma__vector_loaded(x->p, op)) {
    tcmma_status st = elem_offset(x, op, reg, 0, off, sizeof off, err);
    if (st != TCMMA_OK) return st;
    tcmma_buf_printf(out, "%s[%d] = *(const unsigned *)(%s + %s);\n", dst, reg, ptr, off);
    return TCMMA_OK;
  }
  tcmma_buf_printf(out, "%s[%d] =", dst, reg);
  for (int e = 0; e < per; e++) {
    tcmma_status st = elem_offset(x, op, reg, e, off, sizeof off, err);
    if (st != TCMMA_OK) return st;
    if (e) tcmma_buf_printf(out, "\n"), tcmma__indent(out, depth + 2), tcmma_buf_printf(out, "|");
    tcmma_buf_printf(out, " (unsigned)*(const %s *)(%s + %s)", tcmma__bits_type(eb), ptr, off);
    if (e) tcmma_buf_printf(out, " << %d", 8 * eb * e);
  }
  tcmma_buf_printf(out, ";\n");
  return TCMMA_OK;
}

/* ldmatrix: register j of the fragment is 8x8 b16 matrix j; lane l gives the
 * address of row l&7 of matrix (l>>3) mod regs. Origins and .trans come from
 * the fragment layout and are checked against what ldmatrix delivers. */
typedef struct {
  int regs;
  bool trans;
  int r0[4], c0[4]; /* stored origin of each matrix, in elements */
} ldm_plan;

static tcmma_status ldmatrix_plan(const ctx *x, tcmma_operand op, ldm_plan *lp,
                                  tcmma_error *err) {
  const tcmma_operand_desc *o = tcmma__desc(&x->p->call, op);
  int eb = tcmma_prec_bytes(o->prec), per = tcmma_fragment_elems_per_reg(x->p->arm, op);
  lp->regs = tcmma_fragment_regs(x->p->arm, op);
  lp->trans = !tcmma__regs_contiguous(x->p->arm, op, o->transposed);
  if (lp->regs > 4 || (lp->trans && eb != 2))
    return tcmma_fail(err, TCMMA_INVALID, "%s: ldmatrix cannot load operand %s",
                      x->info->marker, tcmma_operand_name(op));
  for (int j = 0; j < lp->regs; j++) {
    affine ar, ac;
    tcmma_status st = stored_affine(x->p->arm, op, o->transposed, j, 0, &ar, &ac, err);
    if (st != TCMMA_OK) return st;
    lp->r0[j] = ar.c0, lp->c0[j] = ac.c0;
    for (int l = 0; l < TCMMA_WARP_SIZE; l++)
      for (int e = 0; e < per; e++) {
        int rr, cc;
        tcmma_fragment_layout(x->p->arm, op, l, j, e, &rr, &cc, NULL);
        int sr = o->transposed ? cc : rr, sc = o->transposed ? rr : cc;
        bool ok = lp->trans
                      ? sr == lp->r0[j] + 2 * (l & 3) + e && sc == lp->c0[j] + (l >> 2)
                      : sr == lp->r0[j] + (l >> 2) &&
                            sc * eb == lp->c0[j] * eb + 4 * (l & 3) + e * eb;
        if (!ok)
          return tcmma_fail(err, TCMMA_INVALID,
                            "%s: ldmatrix does not deliver operand %s's fragment layout",
                            x->info->marker, tcmma_operand_name(op));
      }
  }
  return TCMMA_OK;
}

static void ldmatrix_locals(const ctx *x, tcmma_operand op, const ldm_plan *lp, int depth,
                            tcmma_buf *out) {
  const char *n = tcmma_operand_name(op), *P = x->prefix;
  tcmma__indent(out, depth);
  tcmma_buf_printf(out, "const int %s%sj = (%slane >> 3) %% %d;\n", P, n, P, lp->regs);
  /* row (l & 7) of matrix j, whose origin the fragment layout fixed */
  for (int rc = 0; rc < 2; rc++) {
    tcmma__indent(out, depth);
    tcmma_buf_printf(out, "const int %s%sl%c = ", P, n, rc ? 'c' : 'r');
    if (!rc) tcmma_buf_printf(out, "(%slane & 7) + ", P);
    tcmma_buf_printf(out, "(");
    for (int j = 0; j < lp->regs - 1; j++)
      tcmma_buf_printf(out, "%s%sj == %d ? %d : ", P, n, j, rc ? lp->c0[j] : lp->r0[j]);
    tcmma_buf_printf(out, "%d);\n", rc ? lp->c0[lp->regs - 1] : lp->r0[lp->regs - 1]);
  }
}

static tcmma_status ldmatrix_load(const ctx *x, tcmma_operand op, const ldm_plan *lp,
                                  const char *ptr, const char *dst, int depth, tcmma_buf *out) {
  const tcmma_operand_desc *o = tcmma__desc(&x->p->call, op);
  const char *n = tcmma_operand_name(op), *P = x->prefix;
  const char *rv, *cv;
  int rt, ct;
  tcmma__tile_axes(x, op, &rv, &rt, &cv, &ct);
  char extra_r[64], extra_c[64], r[160], c[160], off[512], opcode[96];
  snprintf(extra_r, sizeof extra_r, "%s%slr", P, n);
  snprintf(extra_c, sizeof extra_c, "%s%slc", P, n);
  coord(r, sizeof r, P, rv, rt, (affine){0, 0, 0}, extra_r);
  coord(c, sizeof c, P, cv, ct, (affine){0, 0, 0}, extra_c);
  tcmma__operand_offset(off, sizeof off, o, r, c);
  snprintf(opcode, sizeof opcode, tcmma__collective_opcode(TCMMA__COLL_LDMATRIX), lp->regs,
           lp->trans ? ".trans" : "");
  tcmma__indent(out, depth);
  if (x->dl == TCMMA_DIALECT_HOST) {
    tcmma_buf_printf(out, "tcmma_sim_ldmatrix(\"%s\", %s, %s + %s);\n", opcode, dst, ptr, off);
    return TCMMA_OK;
  }
  tcmma_buf_printf(out, "asm volatile(\"%s {", opcode);
  for (int j = 0; j < lp->regs; j++) tcmma_buf_printf(out, "%s%%%d", j ? ", " : "", j);
  tcmma_buf_printf(out, "}, [%%%d];\\n\"\n", lp->regs);
  tcmma__indent(out, depth + 2);
  tcmma_buf_printf(out, ":");
  for (int j = 0; j < lp->regs; j++)
    tcmma_buf_printf(out, "%s \"=r\"(%s[%d])", j ? "," : "", dst, j);
  tcmma_buf_printf(out, "\n");
  tcmma__indent(out, depth + 2);
  tcmma_buf_printf(out, ": \"r\"((unsigned)__cvta_generic_to_shared(%s + %s)));\n", ptr, off);
  return TCMMA_OK;
}

static void open_loop(const ctx *x, const char *var, int count, int depth, tcmma_buf *out) {
  tcmma__open_loop(x->dl, x->prefix, var, count, depth, out);
}

static void close_brace(int depth, tcmma_buf *out) { tcmma__close_brace(depth, out); }

static tcmma_status mma_call(const ctx *x, const char *acc, int depth, tcmma_buf *out,
                             tcmma_error *err) {
  char opcode[160], a[96], b[96], c[160];
  tcmma_status st = tcmma_arm_instruction(x->p->arm, x->p->call.a.prec, x->p->call.b.prec,
                                          opcode, sizeof opcode, err);
  if (st != TCMMA_OK) return st;
  const char *P = x->prefix;
  snprintf(a, sizeof a, "%saf[%smi]", P, P);
  snprintf(b, sizeof b, "%sbf[%sni]", P, P);
  snprintf(c, sizeof c, "%s[%smi][%sni]", acc, P, P);
  tcmma__indent(out, depth);
  if (x->dl == TCMMA_DIALECT_HOST) {
    tcmma_buf_printf(out, "tcmma_sim_mma(\"%s\", %s, %s, %s, %s);\n", opcode, c, a, b, c);
    return TCMMA_OK;
  }
  int nc = x->info->c_regs, na = x->info->a_regs, nb = x->info->b_regs, k = 0;
  tcmma_buf_printf(out, "asm volatile(\"%s\"\n", opcode);
  const int counts[3] = {nc, na, nb};
  tcmma__indent(out, depth + 2);
  tcmma_buf_printf(out, "\" ");
  for (int g = 0; g < 3; g++) {
    tcmma_buf_printf(out, "{");
    for (int i = 0; i < counts[g]; i++) tcmma_buf_printf(out, "%s%%%d", i ? ", " : "", k++);
    tcmma_buf_printf(out, "}, ");
  }
  tcmma_buf_printf(out, "{");
  for (int i = 0; i < nc; i++) tcmma_buf_printf(out, "%s%%%d", i ? ", " : "", i);
  tcmma_buf_printf(out, "};\\n\"\n");
  tcmma__indent(out, depth + 2);
  tcmma_buf_printf(out, ":");
  for (int i = 0; i < nc; i++) tcmma_buf_printf(out, "%s \"+f\"(%s[%d])", i ? "," : "", c, i);
  tcmma_buf_printf(out, "\n");
  tcmma__indent(out, depth + 2);
  tcmma_buf_printf(out, ":");
  for (int i = 0; i < na; i++) tcmma_buf_printf(out, "%s \"r\"(%s[%d])", i ? "," : "", a, i);
  for (int i = 0; i < nb; i++) tcmma_buf_printf(out, ", \"r\"(%s[%d])", b, i);
  tcmma_buf_printf(out, ");\n");
  return TCMMA_OK;
}

static tcmma_status load_operand(const ctx *x, tcmma_operand op, bool ldm, const ldm_plan *lp,
                                 int depth, tcmma_buf *out, tcmma_error *err) {
  const char *P = x->prefix, *n = tcmma_operand_name(op);
  const char *var = op == TCMMA_OPERAND_A ? "mi" : "ni";
  char ptr[64], dst[96];
  snprintf(ptr, sizeof ptr, "%s%sp", P, n);
  snprintf(dst, sizeof dst, "%s%sf[%s%s]", P, n, P, var);
  open_loop(x, var, tcmma__loads_per_k(x->p, op), depth, out);
  if (ldm) {
    tcmma_status st = ldmatrix_load(x, op, lp, ptr, dst, depth + 1, out);
    if (st != TCMMA_OK) return st;
  } else {
    for (int r = 0; r < tcmma_fragment_regs(x->p->arm, op); r++) {
      tcmma_status st = gather(x, op, ptr, dst, r, depth + 1, out, err);
      if (st != TCMMA_OK) return st;
    }
  }
  close_brace(depth, out);
  return TCMMA_OK;
}

tcmma_status tcmma__ptx_update(const tcmma_plan *p, tcmma_dialect dl, const char *acc,
                               const char *a, const char *b, int depth, const char *prefix,
                               tcmma_buf *out, tcmma_error *err) {
  ctx x = {p, tcmma_arm_get(p->arm), dl, prefix};
  const char *P = prefix;
  ldm_plan la = {0}, lb = {0};
  tcmma_status st = TCMMA_OK;
  if (p->a_ldmatrix) st = ldmatrix_plan(&x, TCMMA_OPERAND_A, &la, err);
  if (st == TCMMA_OK && p->b_ldmatrix) st = ldmatrix_plan(&x, TCMMA_OPERAND_B, &lb, err);
  if (st != TCMMA_OK) return st;
  tcmma__indent(out, depth);
  tcmma_buf_printf(out, "const unsigned char *%sap = (const unsigned char *)(%s);\n", P, a);
  tcmma__indent(out, depth);
  tcmma_buf_printf(out, "const unsigned char *%sbp = (const unsigned char *)(%s);\n", P, b);
  if (p->a_ldmatrix) ldmatrix_locals(&x, TCMMA_OPERAND_A, &la, depth, out);
  if (p->b_ldmatrix) ldmatrix_locals(&x, TCMMA_OPERAND_B, &lb, depth, out);
  open_loop(&x, "ki", p->kt, depth, out);
  tcmma__indent(out, depth + 1);
  tcmma_buf_printf(out, "unsigned %saf[%d][%d], %sbf[%d][%d];\n", P,
                   tcmma__loads_per_k(p, TCMMA_OPERAND_A), x.info->a_regs, P,
                   tcmma__loads_per_k(p, TCMMA_OPERAND_B), x.info->b_regs);
  if ((st = load_operand(&x, TCMMA_OPERAND_A, p->a_ldmatrix, &la, depth + 1, out, err)) ||
      (st = load_operand(&x, TCMMA_OPERAND_B, p->b_ldmatrix, &lb, depth + 1, out, err)))
    return st;
  open_loop(&x, "mi", p->mt, depth + 1, out);
  open_loop(&x, "ni", p->nt, depth + 2, out);
  if ((st = mma_call(&x, acc, depth + 3, out, err)) != TCMMA_OK) return st;
  close_brace(depth + 2, out);
  close_brace(depth + 1, out);
  close_brace(depth, out);
  return TCMMA_OK;
}

/* The d boundary: load widens d's storage to the f32 accumulator, store
 * narrows it back (tables/prec.def's intrinsics, in the dialect). Where
 * tcmma__d_vector holds, each register pair moves as one access of d's pair
 * type (x: the even register), else each register alone. */
tcmma_status tcmma__ptx_boundary(const tcmma_plan *p, tcmma_dialect dl, const char *acc,
                                 const char *d, bool store, int depth, const char *prefix,
                                 tcmma_buf *out, tcmma_error *err) {
  ctx x = {p, tcmma_arm_get(p->arm), dl, prefix};
  const char *P = prefix;
  tcmma_prec dp = p->call.d.prec;
  bool vec = tcmma__d_vector(p);
  const tcmma__prec_words *w = tcmma__prec_words_of(dp);
  const char *type = tcmma__spell(dl, vec ? w->pair : w->type);
  const char *conv = tcmma__spell(dl, vec ? (store ? w->pair_from : w->pair_to)
                                          : (store ? w->from_f32 : w->to_f32));
  const char *f2 = tcmma__spell(dl, tcmma__prec_words_of(TCMMA_PREC_F32)->pair);
  tcmma__indent(out, depth);
  /* dl loads, ds stores: a statement declares both in one block */
  const char *dn = store ? "ds" : "dl";
  tcmma_buf_printf(out, "%sunsigned char *%s%s = (%sunsigned char *)(%s);\n",
                   store ? "" : "const ", P, dn, store ? "" : "const ", d);
  open_loop(&x, "mi", p->mt, depth, out);
  open_loop(&x, "ni", p->nt, depth + 1, out);
  for (int r = 0; r < x.info->c_regs; r += vec ? 2 : 1) {
    char off[512], reg[160];
    tcmma_status st = elem_offset(&x, TCMMA_OPERAND_C, r, 0, off, sizeof off, err);
    if (st != TCMMA_OK) return st;
    snprintf(reg, sizeof reg, "%s[%smi][%sni]", acc, P, P);
    tcmma__indent(out, depth + 2);
    if (store && vec)
      tcmma_buf_printf(out, "*(%s *)(%s%s + %s) = %s(%s[%d], %s[%d]);\n", type, P, dn, off, conv,
                       reg, r, reg, r + 1);
    else if (store)
      tcmma_buf_printf(out, "*(%s *)(%s%s + %s) = %s(%s[%d]);\n", type, P, dn, off, conv, reg, r);
    else if (vec) {
      tcmma_buf_printf(out, "const %s %sdv%d = %s(*(const %s *)(%s%s + %s));\n", f2, P, r / 2,
                       conv, type, P, dn, off);
      for (int e = 0; e < 2; e++) {
        tcmma__indent(out, depth + 2);
        tcmma_buf_printf(out, "%s[%d] = %sdv%d.%c;\n", reg, r + e, P, r / 2, "xy"[e]);
      }
    } else
      tcmma_buf_printf(out, "%s[%d] = %s(*(const %s *)(%s%s + %s));\n", reg, r, conv, type, P,
                       dn, off);
  }
  close_brace(depth + 1, out);
  close_brace(depth, out);
  return TCMMA_OK;
}
