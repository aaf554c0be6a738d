/* The inline arms' d boundary: the accumulator starts from d (or zero) and
 * is stored back at d's storage precision, a scaled store combining it with
 * d's old value. An accumulator register holds one element (f32, s32, f64)
 * or a pair (f16: the register is d's pair type); elements 2j and 2j+1 are
 * columns 2q and 2q+1 of one row (PTX ISA C/D fragments). */
#include <stdio.h>
#include <string.h>
#include "emit.h"

typedef tcmma__emit_body ctx;

/* How the boundary moves d: the words of d and of the accumulator, and
 * where tcmma__emit_d_vector holds, pairs as one access. */
typedef struct {
  const ctx *x;
  bool vec, load;
  const char *dn;      /* the local: dl (loads) or ds (stores) */
  const char *cst;     /* "const " for loads */
  tcmma__emit_reg_words reg;
  const char *type;    /* d's element or, vec, pair type */
  const char *to, *from; /* d's storage <-> the accumulator's value (f32 for
                          an f32 accumulator; nothing when d is stored at
                          the accumulator's precision) */
  const char *acc_pair; /* the accumulator's pair type (float2, int2, ...) */
  const char *scale_type; /* what alpha and beta are: the accumulator's
                           value type (float for f16 and f32) */
  bool integer;        /* s32: alpha * acc + beta * d wraps in 32 bits */
} d_words;

/* Element i of the accumulator tile expression reg: reg[i], or a pair
 * register's half (reg[i / 2].x / .y). */
static void acc_elem(const d_words *w, const char *reg, int i, char *buf, size_t cap) {
  if (w->reg.per == 1) snprintf(buf, cap, "%s[%d]", reg, i);
  else snprintf(buf, cap, "%s[%d].%c", reg, i / 2, "xy"[i % 2]);
}

/* alpha * a + beta * b in the scale's arithmetic: two's complement wrap
 * for an s32 accumulator (through unsigned: C's signed overflow is
 * undefined). */
static void scaled(const d_words *w, const char *a, const char *b, char *buf, size_t cap) {
  const char *P = w->x->prefix;
  if (w->integer)
    snprintf(buf, cap, "(int)((unsigned)%salpha * (unsigned)%s + (unsigned)%sbeta * (unsigned)%s)",
             P, a, P, b);
  else snprintf(buf, cap, "%salpha * %s + %sbeta * %s", P, a, P, b);
}

/* One pair of elements (2j, 2j+1) through one access `at` of d's pair type. */
static void move_pair(const d_words *w, int mode, const char *reg, int j, const char *at,
                      int depth, tcmma_buf *out) {
  const char *P = w->x->prefix;
  char e0[TCMMA__EXPR_TEXT + 96], e1[TCMMA__EXPR_TEXT + 96], s0[TCMMA__ADDR_TEXT],
      s1[TCMMA__ADDR_TEXT], v0[64], v1[64];
  acc_elem(w, reg, 2 * j, e0, sizeof e0);
  acc_elem(w, reg, 2 * j + 1, e1, sizeof e1);
  snprintf(v0, sizeof v0, "%sdv%d.x", P, j);
  snprintf(v1, sizeof v1, "%sdv%d.y", P, j);
  if (w->reg.per == 2 && mode != 2) { /* the register is d's pair itself */
    if (mode == 0)
      tcmma__emit_line(out, depth, "%s[%d] = %s;", reg, j, at);
    else
      tcmma__emit_line(out, depth, "%s = %s[%d];", at, reg, j);
  } else if (mode == 0) { /* load */
    tcmma__emit_line(out, depth, "const %s %sdv%d = %s(%s);", w->acc_pair, P, j, w->to, at);
    tcmma__emit_line(out, depth, "%s = %s;", e0, v0);
    tcmma__emit_line(out, depth, "%s = %s;", e1, v1);
  } else if (mode == 1) { /* store */
    tcmma__emit_line(out, depth, "%s = %s(%s, %s);", at, w->from, e0, e1);
  } else if (w->reg.per == 2) { /* scale, a pair register: both sides widened */
    tcmma__emit_line(out, depth, "const %s %sav%d = %s(%s[%d]);", w->acc_pair, P, j, w->to, reg, j);
    tcmma__emit_line(out, depth, "const %s %sdv%d = %s(%s);", w->acc_pair, P, j, w->to, at);
    char a0[64], a1[64];
    snprintf(a0, sizeof a0, "%sav%d.x", P, j);
    snprintf(a1, sizeof a1, "%sav%d.y", P, j);
    scaled(w, a0, v0, s0, sizeof s0);
    scaled(w, a1, v1, s1, sizeof s1);
    tcmma__emit_line(out, depth, "%s = %s(%s,", at, w->from, s0);
    tcmma__emit_line(out, depth + 2, "%s);", s1);
  } else { /* scale */
    tcmma__emit_line(out, depth, "const %s %sdv%d = %s(%s);", w->acc_pair, P, j, w->to, at);
    scaled(w, e0, v0, s0, sizeof s0);
    scaled(w, e1, v1, s1, sizeof s1);
    tcmma__emit_line(out, depth, "%s = %s(%s,", at, w->from, s0);
    tcmma__emit_line(out, depth + 2, "%s);", s1);
  }
}

/* One element i through `at`, an lvalue of d's element type. */
static void move_elem(const d_words *w, int mode, const char *reg, int i, const char *at,
                      int depth, tcmma_buf *out) {
  char e[TCMMA__EXPR_TEXT + 96], wide[TCMMA__ADDR_TEXT + 160], s[2 * TCMMA__ADDR_TEXT + 512];
  acc_elem(w, reg, i, e, sizeof e);
  if (mode == 0) {
    tcmma__emit_line(out, depth, "%s = %s(%s);", e, w->reg.per == 2 ? "" : w->to, at);
  } else if (mode == 1) {
    tcmma__emit_line(out, depth, "%s = %s(%s);", at, w->reg.per == 2 ? "" : w->from, e);
  } else {
    /* a pair register's elements widen like d's */
    char ae[TCMMA__EXPR_TEXT + 160];
    snprintf(ae, sizeof ae, w->reg.per == 2 ? "%s(%s)" : "%s%s", w->reg.per == 2 ? w->to : "", e);
    snprintf(wide, sizeof wide, "%s(%s)", w->to, at);
    scaled(w, ae, wide, s, sizeof s);
    tcmma__emit_line(out, depth, "%s = %s(%s);", at, w->from, s);
  }
}

/* The d boundary, mode 0 load, 1 store, 2 scaled store. Where
 * tcmma__emit_d_vector holds, each pair moves as one access through a pointer of
 * d's pair type, so the alignment the plan proved reaches the compiler
 * whatever the base expression; else each element alone through a byte
 * pointer. */
static tcmma_status boundary(const ctx *x, const char *acc, const char *d, int mode,
                             tcmma_buf *out, tcmma_error *err) {
  const tcmma_plan *p = x->p;
  const char *P = x->prefix;
  int depth = x->depth;
  tcmma_prec dp = p->call.d.prec, ap = x->info->acc;
  if (dp != ap && ap != TCMMA_PREC_F32)
    return tcmma_fail(err, TCMMA_INVALID, "%s: d stored as %s, its %s accumulator as %s",
                      x->info->marker, tcmma_prec_name(dp), tcmma_prec_name(ap),
                      tcmma_prec_name(ap));
  d_words w = {.x = x, .vec = tcmma__emit_d_vector(p), .load = mode == 0};
  tcmma__emit_reg_words_of(p, TCMMA_OPERAND_C, x->dl, &w.reg);
  const tcmma__table_prec_words *dw = tcmma__table_prec_words_of(dp),
                                *aw = tcmma__table_prec_words_of(ap);
  w.type = tcmma__table_spell(x->dl, w.vec ? dw->pair : dw->type);
  /* d widens to (narrows from) the accumulator's value by d's words, pairs
   * as pairs; a pair register (f16) holds d's pair itself and widens to
   * float2 only for a scaled store */
  w.to = tcmma__table_spell(x->dl, w.vec ? dw->pair_to : dw->to_f32);
  w.from = tcmma__table_spell(x->dl, w.vec ? dw->pair_from : dw->from_f32);
  w.acc_pair = tcmma__table_spell(
      x->dl, w.reg.per == 2 ? tcmma__table_prec_words_of(TCMMA_PREC_F32)->pair : aw->pair);
  w.scale_type = tcmma__table_spell(x->dl, w.reg.per == 2 ? TCMMA__SPELL_FLOAT : aw->type);
  w.integer = tcmma_prec_is_integer(ap);
  w.cst = w.load ? "const " : "";
  w.dn = w.load ? "dl" : "ds"; /* a statement declares both in one block */
  long vb = 2L * tcmma_prec_bytes(dp);
  if (w.vec)
    tcmma__emit_line(out, depth, "%s%s *%s%s = (%s%s *)(%s);", w.cst, w.type, P, w.dn, w.cst,
                     w.type, d);
  else
    tcmma__emit_line(out, depth, "%sunsigned char *%s%s = (%sunsigned char *)(%s);", w.cst, P, w.dn,
                     w.cst, d);
  if (mode == 2) {
    char al[TCMMA__EXPR_TEXT], be[TCMMA__EXPR_TEXT];
    tcmma__emit_expr(x->dl, p->call.alpha, al, sizeof al);
    tcmma__emit_expr(x->dl, p->call.beta, be, sizeof be);
    tcmma__emit_line(out, depth, "const %s %salpha = (%s)(%s), %sbeta = (%s)(%s);", w.scale_type, P,
                     w.scale_type, al, P, w.scale_type, be);
  }
  char fc[TCMMA__EXPR_TEXT], reg[TCMMA__EXPR_TEXT + 64];
  tcmma__emit_postfix(acc, fc, sizeof fc);
  snprintf(reg, sizeof reg, "%s[%smi][%sni]", fc, P, P);
  tcmma__emit_open_tiles(x, out);
  int elems = x->info->c_regs * w.reg.per;
  for (int i = 0; i < elems; i += w.vec ? 2 : 1) {
    char off[TCMMA__ADDR_TEXT], at[TCMMA__ADDR_TEXT + 64];
    tcmma_status st = tcmma__emit_ptx_elem_offset(x, TCMMA_OPERAND_C, NULL, i / w.reg.per,
                                                  i % w.reg.per, off, sizeof off, err);
    if (st != TCMMA_OK) return st;
    if (w.vec) {
      snprintf(at, sizeof at, "%s%s[(%s) / %ld]", P, w.dn, off, vb);
      move_pair(&w, mode, reg, i / 2, at, depth + 2, out);
    } else {
      snprintf(at, sizeof at, "*(%s%s *)(%s%s + %s)", w.cst, w.type, P, w.dn, off);
      move_elem(&w, mode, reg, i, at, depth + 2, out);
    }
  }
  tcmma__emit_close_tiles(x, out);
  return TCMMA_OK;
}

/* A zero start: every register 0 at the accumulator's type (a pair
 * register from two zeros). */
static tcmma_status zero(const ctx *x, const char *acc, tcmma_buf *out) {
  tcmma__emit_reg_words r;
  tcmma__emit_reg_words_of(x->p, TCMMA_OPERAND_C, x->dl, &r);
  tcmma_prec ap = x->info->acc;
  char value[96];
  if (r.per == 2)
    snprintf(value, sizeof value, "%s(0.0f, 0.0f)",
             tcmma__table_spell(x->dl, tcmma__table_prec_words_of(ap)->pair_from));
  else snprintf(value, sizeof value, "%s", ap == TCMMA_PREC_F32 ? "0.0f" : ap == TCMMA_PREC_F64
                                                                      ? "0.0" : "0");
  tcmma__emit_open_tiles(x, out);
  char fc[TCMMA__EXPR_TEXT];
  tcmma__emit_postfix(acc, fc, sizeof fc);
  for (int i = 0; i < x->info->c_regs; i++)
    tcmma__emit_line(out, x->depth + 2, "%s[%smi][%sni][%d] = %s;", fc, x->prefix, x->prefix, i,
                     value);
  tcmma__emit_close_tiles(x, out);
  return TCMMA_OK;
}

tcmma_status tcmma__emit_ptx_acc_init(const tcmma__emit_body *x, const char *acc, const char *d,
                                      tcmma_buf *out, tcmma_error *err) {
  if (x->p->call.init == TCMMA_INIT_LOAD) return boundary(x, acc, d, 0, out, err);
  return zero(x, acc, out);
}

tcmma_status tcmma__emit_ptx_acc_store(const tcmma__emit_body *x, const char *acc, const char *d,
                                       tcmma_buf *out, tcmma_error *err) {
  return boundary(x, acc, d, x->p->call.init == TCMMA_INIT_SCALE ? 2 : 1, out, err);
}
