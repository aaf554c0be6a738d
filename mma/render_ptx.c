/* Inline-PTX pieces: fragment declarations, per-lane gathers (or ldmatrix)
 * of the fragments at the PTX ISA layouts from a sub-tile of a parent,
 * mma.sync through asm (or the simulator's call), and the d boundary at d's
 * storage precision. Every index a lane computes comes from
 * tcmma_fragment_layout, read as affine functions of g and q
 * (render_ptx_offset.c). */
#include <stdio.h>
#include <string.h>
#include "emit.h"
#include "tables/containers.h"
#include "tables/scale_selectors.h"

typedef tcmma__emit_body ctx;

/* One register of a or b gathered per lane: one load of the register
 * (32-bit, or an f64) when its elements are contiguous (the plan checked
 * the alignment), else one load per element packed low element first at
 * the register's element width (32 / elements: 4 bits for m16n8k64's fp4,
 * each stored in a byte's low bits). */
static tcmma_status gather(const ctx *x, tcmma_operand op, const char *kstep, const char *ptr,
                           const char *dst, int reg, tcmma_buf *out, tcmma_error *err) {
  int per = tcmma_fragment_elems_per_reg(x->p->arm, op), depth = x->depth + 1;
  int eb = tcmma_prec_bytes(tcmma__emit_desc(&x->p->call, op)->prec);
  char off[TCMMA__ADDR_TEXT];
  tcmma__emit_indent(out, depth);
  if (tcmma__emit_vector_loaded(x->p, op)) { /* one load of the register's type */
    tcmma__emit_reg_words w;
    tcmma__emit_reg_words_of(x->p, op, x->dl, &w);
    tcmma_status st = tcmma__emit_ptx_elem_offset(x, op, kstep, reg, 0, off, sizeof off, err);
    if (st != TCMMA_OK) return st;
    tcmma_buf_printf(out, "%s[%d] = *(const %s *)(%s + %s);\n", dst, reg, w.type, ptr, off);
    return TCMMA_OK;
  }
  tcmma_buf_printf(out, "%s[%d] =", dst, reg);
  for (int e = 0; e < per; e++) {
    tcmma_status st = tcmma__emit_ptx_elem_offset(x, op, kstep, reg, e, off, sizeof off, err);
    if (st != TCMMA_OK) return st;
    if (e)
      tcmma_buf_printf(out, "\n"), tcmma__emit_indent(out, depth + 2), tcmma_buf_printf(out, "|");
    tcmma_buf_printf(out, " (unsigned)*(const %s *)(%s + %s)", tcmma__emit_bits_type(eb), ptr, off);
    if (e) tcmma_buf_printf(out, " << %d", 32 / per * e);
  }
  tcmma_buf_printf(out, ";\n");
  return TCMMA_OK;
}

/* ldmatrix: register j of the fragment is 8x8 b16 matrix j; lane l gives the
 * address of row l&7 of matrix (l>>3) mod regs. Origins and .trans come from
 * the fragment layout and are checked against what ldmatrix delivers. */
typedef struct {
  int regs;         /* registers (8x8 matrices) of one tile's fragment */
  bool trans;
  int r0[4], c0[4]; /* stored origin of each matrix, in elements */
  int dr, dc;       /* stored step from one tile to the next of the operand's free axis */
} ldm_plan;

static tcmma_status ldmatrix_plan(const ctx *x, tcmma_operand op, ldm_plan *lp,
                                  tcmma_error *err) {
  const tcmma_operand_desc *o = tcmma__emit_desc(&x->p->call, op);
  int eb = tcmma_prec_bytes(o->prec), per = tcmma_fragment_elems_per_reg(x->p->arm, op);
  lp->regs = tcmma_fragment_regs(x->p->arm, op);
  lp->trans = !tcmma__emit_regs_contiguous(x->p->arm, op, o->transposed);
  /* the free axis (m of a, n of b) runs along stored rows unless transposed */
  int step = op == TCMMA_OPERAND_A ? x->info->m : x->info->n;
  bool rows = (op == TCMMA_OPERAND_A) != o->transposed;
  lp->dr = rows ? step : 0, lp->dc = rows ? 0 : step;
  if (lp->regs > 4 || (lp->trans && eb != 2))
    return tcmma_fail(err, TCMMA_INVALID, "%s: ldmatrix cannot load operand %s",
                      x->info->marker, tcmma_operand_name(op));
  for (int j = 0; j < lp->regs; j++) {
    tcmma__emit_affine ar, ac;
    tcmma_status st =
        tcmma__emit_ptx_stored_affine(x->p->arm, op, o->transposed, j, 0, &ar, &ac, err);
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

/* ldmatrix's four matrices: lane l addresses row l&7 of matrix j = l>>3,
 * register j % regs of tile j / regs (one tile of a; two of b). */
static void ldmatrix_locals(const ctx *x, tcmma_operand op, const ldm_plan *lp,
                            tcmma_buf *out) {
  const char *n = tcmma_operand_name(op), *P = x->prefix;
  tcmma__emit_indent(out, x->depth);
  tcmma_buf_printf(out, "const int %s%sj = %slane >> 3;\n", P, n, P);
  /* row (l & 7) of matrix j, whose origin the fragment layout fixed */
  for (int rc = 0; rc < 2; rc++) {
    int at[4];
    for (int j = 0; j < 4; j++) {
      int t = j / lp->regs;
      at[j] = rc ? lp->c0[j % lp->regs] + t * lp->dc : lp->r0[j % lp->regs] + t * lp->dr;
    }
    tcmma__emit_indent(out, x->depth);
    tcmma_buf_printf(out, "const int %s%sl%c = ", P, n, rc ? 'c' : 'r');
    if (!rc) tcmma_buf_printf(out, "(%slane & 7) + ", P);
    /* origins affine in j's two bits (every layout's so far): arithmetic,
     * which ptxas keeps branch-free (sm_120's made the ?: chain branches,
     * once a k step); else the chain */
    int d1 = at[1] - at[0], d2 = at[2] - at[0];
    if (at[3] == at[0] + d1 + d2) {
      const char *sep = "";
      tcmma_buf_printf(out, "(");
      if (at[0] || (!d1 && !d2)) tcmma_buf_printf(out, "%d", at[0]), sep = " + ";
      if (d1) tcmma_buf_printf(out, "%s(%s%sj & 1) * %d", sep, P, n, d1), sep = " + ";
      if (d2) tcmma_buf_printf(out, "%s(%s%sj >> 1) * %d", sep, P, n, d2);
      tcmma_buf_printf(out, ");\n");
      continue;
    }
    tcmma_buf_printf(out, "(");
    for (int j = 0; j < 4; j++) {
      if (j < 3) tcmma_buf_printf(out, "%s%sj == %d ? %d : ", P, n, j, at[j]);
      else tcmma_buf_printf(out, "%d);\n", at[j]);
    }
  }
}

/* One ldmatrix of `count` matrices (4 or 2) into the registers dst[0..count)
 * at the tile the loop variable names (a pair of b's tiles for 4). */
static void ldmatrix_load(const ctx *x, tcmma_operand op, const ldm_plan *lp, int count,
                          const char *kstep, const char *ptr, const char *dst, int depth,
                          tcmma_buf *out) {
  const tcmma_operand_desc *o = tcmma__emit_desc(&x->p->call, op);
  const char *n = tcmma_operand_name(op), *P = x->prefix;
  char rv[TCMMA__EXPR_TEXT], cv[TCMMA__EXPR_TEXT];
  int rt, ct;
  tcmma__emit_tile_axes(x, op, kstep, rv, &rt, cv, &ct);
  char extra_r[64], extra_c[64], r[TCMMA__ADDR_TEXT], c[TCMMA__ADDR_TEXT], off[TCMMA__ADDR_TEXT],
      opcode[96];
  snprintf(extra_r, sizeof extra_r, "%s%slr", P, n);
  snprintf(extra_c, sizeof extra_c, "%s%slc", P, n);
  /* the tile's stored row (rt * rv) leaves the swizzle mask alone when it
   * is whole periods of the atom (8 rows): then it is a constant added to
   * the lane's offset, which after unrolling is an immediate of the
   * ldmatrix, and the lane's offset is one per k step and column tile */
  bool split = rt % 8 == 0 || o->swizzle == TCMMA_SWIZZLE_NONE;
  tcmma__emit_ptx_coord(r, sizeof r, P, rv, split ? 0 : rt, (tcmma__emit_affine){0, 0, 0},
                        extra_r);
  tcmma__emit_ptx_coord(c, sizeof c, P, cv, ct, (tcmma__emit_affine){0, 0, 0}, extra_c);
  char lane[TCMMA__ADDR_TEXT - 128];
  tcmma__emit_operand_offset(lane, sizeof lane, x->dl, o, r, c);
  if (split)
    snprintf(off, sizeof off, "%d * %.60s * %ld + %s", rt, rv,
             o->ld * tcmma_prec_bytes(o->prec), lane);
  else
    snprintf(off, sizeof off, "%s", lane);
  snprintf(opcode, sizeof opcode, tcmma__emit_collective_opcode(TCMMA__COLL_LDMATRIX), count,
           lp->trans ? ".trans" : "");
  tcmma__emit_indent(out, depth);
  if (x->dl == TCMMA_DIALECT_HOST) {
    tcmma_buf_printf(out, "tcmma_sim_ldmatrix(\"%s\", %s, %s + %s);\n", opcode, dst, ptr, off);
    return;
  }
  tcmma_buf_printf(out, "asm volatile(\"%s {", opcode);
  for (int j = 0; j < count; j++) tcmma_buf_printf(out, "%s%%%d", j ? ", " : "", j);
  tcmma_buf_printf(out, "}, [%%%d];\\n\"\n", count);
  tcmma__emit_indent(out, depth + 2);
  tcmma_buf_printf(out, ":");
  for (int j = 0; j < count; j++)
    tcmma_buf_printf(out, "%s \"=r\"(%s[%d])", j ? "," : "", dst, j);
  tcmma_buf_printf(out, "\n");
  tcmma__emit_indent(out, depth + 2);
  tcmma_buf_printf(out, ": \"r\"((unsigned)__cvta_generic_to_shared(%s + %s)));\n", ptr, off);
}

static void open_loop(const ctx *x, const char *var, int count, int depth, tcmma_buf *out) {
  tcmma__emit_open_loop(x, var, count, depth, out);
}

static void close_brace(int depth, tcmma_buf *out) { tcmma__emit_close_brace(depth, out); }

/* ---- the pieces ---- */

/* Registers of one tile's a or b fragment array: the fragment's, then for a
 * block-scaled arm the lane's scale register (frag[regs], read by the mma
 * as scale-a-data or scale-b-data). */
static int frag_words(const ctx *x, tcmma_operand op) {
  return tcmma_fragment_regs(x->p->arm, op) + (x->info->scale_block ? 1 : 0);
}

static void decl(const ctx *x, tcmma_operand op, const char *name, int buffers,
                 tcmma_buf *out) {
  const tcmma_plan *p = x->p;
  char dims[32] = "";
  if (buffers > 0) snprintf(dims, sizeof dims, "[%d]", buffers);
  tcmma__emit_reg_words r;
  tcmma__emit_reg_words_of(p, op, x->dl, &r);
  if (op == TCMMA_OPERAND_C)
    tcmma__emit_line(out, x->depth, "%s %s[%d][%d][%d];", r.type, name, p->mt, p->nt,
                     x->info->c_regs);
  else
    tcmma__emit_line(out, x->depth, "%s %s%s[%d][%d];", r.type, name, dims,
                     tcmma__emit_loads_per_k(p, op), frag_words(x, op));
}

/* The `count` matrices of one ldmatrix into the fragments of the tiles from
 * the one the local `var` names: straight into that tile's registers when
 * they are exactly its fragment, else through a temporary the tiles copy
 * from (matrix j: register j % regs of tile var + j / regs). */
static void ldmatrix_group(const ctx *x, tcmma_operand op, const ldm_plan *lp, int count,
                           const char *f, const char *kstep, const char *ptr, int depth,
                           tcmma_buf *out) {
  const char *P = x->prefix, *var = op == TCMMA_OPERAND_A ? "mi" : "ni";
  char dst[TCMMA__EXPR_TEXT + 64], tmp[64];
  snprintf(dst, sizeof dst, "%s[%s%s]", f, P, var);
  if (count == lp->regs) {
    ldmatrix_load(x, op, lp, count, kstep, ptr, dst, depth, out);
    return;
  }
  snprintf(tmp, sizeof tmp, "%s%st", P, tcmma_operand_name(op));
  tcmma__emit_line(out, depth, "unsigned %s[%d];", tmp, count);
  ldmatrix_load(x, op, lp, count, kstep, ptr, tmp, depth, out);
  for (int j = 0; j < count; j++)
    tcmma__emit_line(out, depth, "%s[%s%s + %d][%d] = %s[%d];", f, P, var, j / lp->regs,
                     j % lp->regs, tmp, j);
}

/* op's tiles through ldmatrix (tcmma__emit_ldmatrix_counts), one 8x8 matrix per
 * register: a loop of .x4 over groups of 4 / regs tiles, then the rest's
 * matrices in one .x2 and one .x1. */
static void ldmatrix_tiles(const ctx *x, tcmma_operand op, const ldm_plan *lp, const char *f,
                           const char *kstep, const char *ptr, tcmma_buf *out) {
  const char *P = x->prefix, *var = op == TCMMA_OPERAND_A ? "mi" : "ni";
  const char *group = op == TCMMA_OPERAND_A ? "mj" : "nj";
  int x4, x2, x1, depth = x->depth, per = 4 / lp->regs;
  tcmma__emit_ldmatrix_counts(x->p, op, &x4, &x2, &x1);
  if (x4 && per == 1) {
    open_loop(x, var, x4, depth, out);
    ldmatrix_group(x, op, lp, 4, f, kstep, ptr, depth + 1, out);
    close_brace(depth, out);
  } else if (x4) {
    open_loop(x, group, x4, depth, out);
    tcmma__emit_line(out, depth + 1, "const int %s%s = %d * %s%s;", P, var, per, P, group);
    ldmatrix_group(x, op, lp, 4, f, kstep, ptr, depth + 1, out);
    close_brace(depth, out);
  }
  /* the rest: tile x4 * per on, .x2 (two matrices) before .x1 (one) */
  int tile = x4 * per;
  for (int count = 2; count >= 1; count--) {
    if (!(count == 2 ? x2 : x1)) continue;
    tcmma__emit_line(out, depth, "{");
    tcmma__emit_line(out, depth + 1, "const int %s%s = %d;", P, var, tile);
    ldmatrix_group(x, op, lp, count, f, kstep, ptr, depth + 1, out);
    tcmma__emit_line(out, depth, "}");
    tile += count / lp->regs;
  }
}

/* A tf32 arm's registers hold f32 bits as loaded: each is rounded with
 * cvt.rna.tf32.f32 (tables/collectives.def) before any mma reads it. */
static void round_tf32(const ctx *x, tcmma_operand op, const char *dst, tcmma_buf *out) {
  const char *cvt = tcmma__emit_collective_opcode(TCMMA__COLL_CVT_TF32);
  const char *var = op == TCMMA_OPERAND_A ? "mi" : "ni";
  open_loop(x, var, tcmma__emit_loads_per_k(x->p, op), x->depth, out);
  for (int r = 0; r < tcmma_fragment_regs(x->p->arm, op); r++)
    if (x->dl == TCMMA_DIALECT_HOST)
      tcmma__emit_line(out, x->depth + 1, "tcmma_sim_cvt(\"%s\", &%s[%d]);", cvt, dst, r);
    else
      tcmma__emit_line(out, x->depth + 1, "asm(\"%s %%0, %%0;\" : \"+r\"(%s[%d]));", cvt, dst, r);
  close_brace(x->depth, out);
}

/* An f8f6f4 arm's fp4 element sits higher in its byte than storage holds it
 * (tables/containers.def): each loaded register shifts left by the row's
 * lsb (the bytes' top bits are zero, so no bit reaches the next element). */
static void shift_containers(const ctx *x, tcmma_operand op, const char *dst, int lsb,
                             tcmma_buf *out) {
  const char *var = op == TCMMA_OPERAND_A ? "mi" : "ni";
  open_loop(x, var, tcmma__emit_loads_per_k(x->p, op), x->depth, out);
  for (int r = 0; r < tcmma_fragment_regs(x->p->arm, op); r++)
    tcmma__emit_line(out, x->depth + 1, "%s[%d] <<= %d;", dst, r, lsb);
  close_brace(x->depth, out);
}

/* The selectors of a block-scaled arm's mma: the row of
 * tables/scale_selectors.def for its scales a tile (k / scale_block). Every
 * lane loads the scales of row g + 8 * (q & 1) of its a tile and of column
 * g of its b tile, the lanes the selectors pick among them (the row's
 * comment); NULL (no row) fails the rendering. */
static const tcmma__table_scale_selector *selectors(const ctx *x) {
  return tcmma__table_scale_selector_of(x->info->k / x->info->scale_block);
}

/* The scale registers of op's tiles at k step kstep: the byte of the
 * lane's row of a (column of b) and k block, from the scale parent the
 * call's scale expression points at, indexed by the role coordinates in
 * the operand's parent (tcmma_operand_scale_shape). A tile of several
 * blocks loads its bytes one by one, or as one 16- or 32-bit word where
 * the caller vouches that the parent is aligned to the tile's scales
 * (`aligned`) and its rows and k origin keep them so. */
static void load_scales(const ctx *x, tcmma_operand op, const char *f, const char *kstep,
                        bool aligned, tcmma_buf *out) {
  const tcmma_operand_desc *o = tcmma__emit_desc(&x->p->call, op);
  const char *P = x->prefix, *n = tcmma_operand_name(op);
  bool a = op == TCMMA_OPERAND_A;
  const char *var = a ? "mi" : "ni";
  int block = x->info->scale_block;
  long ld;
  const tcmma_coord *fc, *kc;
  tcmma_operand_scale_shape(&x->p->call, op, block, NULL, NULL, &ld, &fc, &kc);
  char e[TCMMA__EXPR_TEXT], k[TCMMA__EXPR_TEXT], kexpr[TCMMA__EXPR_TEXT], lane[64],
      fo[TCMMA__EXPR_TEXT + 32], row[TCMMA__EXPR_TEXT + 128], kb[2 * TCMMA__EXPR_TEXT] = "";
  tcmma__emit_expr(x->dl, o->scale, e, sizeof e);
  tcmma__emit_postfix(kstep ? kstep : "0", k, sizeof k);
  tcmma__emit_coord_expr(x->dl, fc, fo, sizeof fo);
  /* the lane's row of a (column of b) in the scale parent */
  if (a) snprintf(lane, sizeof lane, "%sg + 8 * (%sq & 1)", P, P);
  else snprintf(lane, sizeof lane, "%sg", P);
  snprintf(row, sizeof row, "%s%s%d * %s%s + %s", fo, *fo ? " + " : "",
           a ? x->info->m : x->info->n, P, var, lane);
  /* its k block: the k origin is whole blocks (the plan checked), so its
   * expression divides exactly */
  if (kc->expr) {
    tcmma__emit_expr(x->dl, kc->expr, kexpr, sizeof kexpr);
    snprintf(kb, sizeof kb, "(%s) / %d + ", kexpr, block);
  }
  if (kc->value) snprintf(kb + strlen(kb), sizeof kb - strlen(kb), "%ld + ", kc->value / block);
  /* a tile of several blocks (scale_vec::2X, 4X): its blocks' bytes in the
   * register's bytes 0, 1, ... (selector byte-id 0) */
  int blocks = x->info->k / block;
  if (blocks > 1) snprintf(kb + strlen(kb), sizeof kb - strlen(kb), "%d * %s", blocks, k);
  else snprintf(kb + strlen(kb), sizeof kb - strlen(kb), "%s", k);
  tcmma__emit_line(out, x->depth, "const unsigned char *%s%ss = (const unsigned char *)(%s);", P, n,
                   e);
  open_loop(x, var, tcmma__emit_loads_per_k(x->p, op), x->depth, out);
  int reg = tcmma_fragment_regs(x->p->arm, op), byte = selectors(x)->byte_id;
  bool word = aligned && blocks > 1 && byte == 0 && ld % blocks == 0 && !kc->expr &&
              kc->value % ((long)block * blocks) == 0;
  if (blocks == 1 && byte == 0) /* one byte, zero-extended */
    tcmma__emit_line(out, x->depth + 1, "%s[%s%s][%d] = %s%ss[(%s) * %ld + %s];", f, P, var, reg,
                     P, n, row, ld, kb);
  else if (word) /* the tile's blocks in one aligned load, block j in byte j */
    tcmma__emit_line(out, x->depth + 1, "%s[%s%s][%d] = *(const %s *)(%s%ss + (%s) * %ld + %s);",
                     f, P, var, reg, blocks == 2 ? "unsigned short" : "unsigned", P, n, row, ld,
                     kb);
  else
    for (int j = 0; j < blocks; j++) /* byte byte-id + j: block j of the tile */
      tcmma__emit_line(out, x->depth + 1,
                       "%s[%s%s][%d] %s (unsigned)%s%ss[(%s) * %ld + %s + %d] << %d;", f, P, var,
                       reg, j ? "|=" : "=", P, n, row, ld, kb, j, 8 * (byte + j));
  close_brace(x->depth, out);
}

tcmma_status tcmma__emit_ptx_load_scales(const tcmma__emit_body *x, tcmma_operand op,
                                         const char *frag, const char *kstep, bool aligned,
                                         tcmma_buf *out, tcmma_error *err) {
  if (!x->info->scale_block || !selectors(x))
    return tcmma_fail(err, TCMMA_INVALID, "%s: %d scales a tile: expected a block-scaled arm "
                      "and 1, 2 or 4 (a row of tables/scale_selectors.def)", x->info->marker,
                      x->info->scale_block ? x->info->k / x->info->scale_block : 0);
  char f[TCMMA__EXPR_TEXT];
  tcmma__emit_postfix(frag, f, sizeof f);
  load_scales(x, op, f, kstep, aligned, out);
  return TCMMA_OK;
}

static tcmma_status load(const ctx *x, tcmma_operand op, const char *frag, const char *base,
                         const char *kstep, tcmma_buf *out, tcmma_error *err) {
  const char *P = x->prefix, *n = tcmma_operand_name(op);
  const char *var = op == TCMMA_OPERAND_A ? "mi" : "ni";
  bool ldm = op == TCMMA_OPERAND_A ? x->p->a_ldmatrix : x->p->b_ldmatrix;
  ldm_plan lp = {0};
  tcmma_status st = ldm ? ldmatrix_plan(x, op, &lp, err) : TCMMA_OK;
  if (st != TCMMA_OK) return st;
  char ptr[64], dst[TCMMA__EXPR_TEXT + 64];
  snprintf(ptr, sizeof ptr, "%s%sp", P, n);
  char f[TCMMA__EXPR_TEXT];
  tcmma__emit_postfix(frag, f, sizeof f);
  tcmma__emit_line(out, x->depth, "const unsigned char *%s = (const unsigned char *)(%s);", ptr,
                   base);
  snprintf(dst, sizeof dst, "%s[%s%s]", f, P, var);
  if (ldm) {
    ldmatrix_locals(x, op, &lp, out);
    ldmatrix_tiles(x, op, &lp, f, kstep, ptr, out);
  } else {
    open_loop(x, var, tcmma__emit_loads_per_k(x->p, op), x->depth, out);
    for (int r = 0; r < tcmma_fragment_regs(x->p->arm, op); r++)
      if ((st = gather(x, op, kstep, ptr, dst, r, out, err)) != TCMMA_OK) return st;
    close_brace(x->depth, out);
  }
  if (x->info->tf32) round_tf32(x, op, dst, out);
  int lsb = tcmma__table_container_lsb(x->p->arm, tcmma__emit_desc(&x->p->call, op)->prec);
  if (lsb) shift_containers(x, op, dst, lsb, out);
  if (x->info->scale_block && !selectors(x))
    return tcmma_fail(err, TCMMA_INVALID, "%s: %d scales a tile: expected 1, 2 or 4 (a row of "
                      "tables/scale_selectors.def)", x->info->marker,
                      x->info->k / x->info->scale_block);
  if (x->info->scale_block) load_scales(x, op, f, kstep, false, out);
  return TCMMA_OK;
}

/* One asm operand: "+f"(c[0]), "r"(a[1]), "+r"(*(unsigned *)&c[0]) for a
 * register that packs two elements. */
static void asm_operand(tcmma_buf *out, const char *sep, const char *mod,
                        const tcmma__emit_reg_words *r, const char *array, int i) {
  if (r->pun)
    tcmma_buf_printf(out, "%s\"%s%s\"(*(unsigned *)&%s[%d])", sep, mod, r->constraint, array, i);
  else tcmma_buf_printf(out, "%s\"%s%s\"(%s[%d])", sep, mod, r->constraint, array, i);
}

static tcmma_status mma(const ctx *x, const char *acc, const char *af, const char *bf,
                        tcmma_buf *out, tcmma_error *err) {
  char opcode[160], a[TCMMA__EXPR_TEXT + 64], b[TCMMA__EXPR_TEXT + 64],
      c[TCMMA__EXPR_TEXT + 64];
  tcmma_status st = tcmma_arm_instruction(x->p->arm, x->p->call.a.prec, x->p->call.b.prec,
                                          opcode, sizeof opcode, err);
  if (st != TCMMA_OK) return st;
  const char *P = x->prefix;
  int depth = x->depth + 2;
  char fa[TCMMA__EXPR_TEXT], fb[TCMMA__EXPR_TEXT], fc[TCMMA__EXPR_TEXT];
  tcmma__emit_postfix(af, fa, sizeof fa);
  tcmma__emit_postfix(bf, fb, sizeof fb);
  tcmma__emit_postfix(acc, fc, sizeof fc);
  snprintf(a, sizeof a, "%s[%smi]", fa, P);
  snprintf(b, sizeof b, "%s[%sni]", fb, P);
  snprintf(c, sizeof c, "%s[%smi][%sni]", fc, P, P);
  tcmma__emit_open_tiles(x, out);
  tcmma__emit_indent(out, depth);
  int sa = x->info->a_regs, sb = x->info->b_regs; /* the scale registers' index */
  bool scaled = x->info->scale_block != 0;
  const tcmma__table_scale_selector *sel = scaled ? selectors(x) : NULL;
  if (x->dl == TCMMA_DIALECT_HOST && sel) {
    tcmma_buf_printf(out, "tcmma_sim_mma_scaled(\"%s\", %s, %s, %s, %s,\n", opcode, c, a, b, c);
    tcmma__emit_indent(out, depth + 2);
    tcmma_buf_printf(out, "%s[%d], %d, %d, %s[%d], %d, %d);\n", a, sa, sel->byte_id,
                     sel->thread_id_a, b, sb, sel->byte_id, sel->thread_id_b);
  } else if (x->dl == TCMMA_DIALECT_HOST) {
    tcmma_buf_printf(out, "tcmma_sim_mma(\"%s\", %s, %s, %s, %s);\n", opcode, c, a, b, c);
  } else {
    int nc = x->info->c_regs, na = x->info->a_regs, nb = x->info->b_regs, k = 0;
    tcmma_buf_printf(out, "asm volatile(\"%s\"\n", opcode);
    const int counts[3] = {nc, na, nb};
    tcmma__emit_indent(out, depth + 2);
    tcmma_buf_printf(out, "\" ");
    for (int g = 0; g < 3; g++) {
      tcmma_buf_printf(out, "{");
      for (int i = 0; i < counts[g]; i++) tcmma_buf_printf(out, "%s%%%d", i ? ", " : "", k++);
      tcmma_buf_printf(out, "}, ");
    }
    tcmma_buf_printf(out, "{");
    for (int i = 0; i < nc; i++) tcmma_buf_printf(out, "%s%%%d", i ? ", " : "", i);
    tcmma_buf_printf(out, "}");
    if (sel)
      tcmma_buf_printf(out, ", %%%d, {%d, %d}, %%%d, {%d, %d}", k, sel->byte_id,
                       sel->thread_id_a, k + 1, sel->byte_id, sel->thread_id_b);
    tcmma_buf_printf(out, ";\\n\"\n");
    tcmma__emit_indent(out, depth + 2);
    tcmma__emit_reg_words rc, ra, rb;
    tcmma__emit_reg_words_of(x->p, TCMMA_OPERAND_C, x->dl, &rc);
    tcmma__emit_reg_words_of(x->p, TCMMA_OPERAND_A, x->dl, &ra);
    tcmma__emit_reg_words_of(x->p, TCMMA_OPERAND_B, x->dl, &rb);
    tcmma_buf_printf(out, ":");
    for (int i = 0; i < nc; i++) asm_operand(out, i ? ", " : " ", "+", &rc, c, i);
    tcmma_buf_printf(out, "\n");
    tcmma__emit_indent(out, depth + 2);
    tcmma_buf_printf(out, ":");
    for (int i = 0; i < na; i++) asm_operand(out, i ? ", " : " ", "", &ra, a, i);
    for (int i = 0; i < nb; i++) asm_operand(out, ", ", "", &rb, b, i);
    if (scaled) asm_operand(out, ", ", "", &ra, a, sa), asm_operand(out, ", ", "", &rb, b, sb);
    tcmma_buf_printf(out, ");\n");
  }
  tcmma__emit_close_tiles(x, out);
  return TCMMA_OK;
}

const tcmma__emit_pieces tcmma__emit_ptx_pieces = {decl, load, mma, tcmma__emit_ptx_acc_init,
                                                   tcmma__emit_ptx_acc_store};
