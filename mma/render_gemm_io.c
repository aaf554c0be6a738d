/* The block-wide parts of a GEMM kernel (docs/emit.md, GEMM): the loader
 * that copies one k tile of A and B into a stage with copies of each
 * operand's alignment class (16-byte cp.async.cg, 8- or 4-byte
 * cp.async.ca, plain loads below 4 bytes or below cc 80) from one 64-bit
 * pointer per operand advanced per k tile, interior tiles unpredicated and
 * tiles at a ragged edge zero-filled past it; the stage ring's commit and
 * wait; and the epilogue that reads the f32 block tile back from shared
 * memory, applies alpha and beta, converts to d's storage and stores 16
 * bytes at a time (element by element at a ragged edge or below d's class
 * of 16). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "tcmma/arch.h"
#include "emit.h"
#include "gemm_epilogue.h"
#include "gemm_rules.h"

#define G TCMMA__GEMM_P

/* Operand op's facts as the loader reads them. */
typedef struct {
  bool is_a, t, plain, edge;
  const tcmma_operand_desc *o;
  const char *v, *ptr;      /* "a" or "b": locals' letter and the kernel's pointer */
  int eb, unit, per;        /* element bytes, bytes per copy, elements per copy */
  int pack;                 /* elements a stored byte along its columns (packed fp4: 2) */
  long srows, scols, cpr, iters; /* stage tile, copies per stage row, per thread */
  tcmma_swizzle sw;
  bool k_rows;              /* the stored rows run along k (a,t; b) */
} operand;

static operand operand_of(const tcmma__emit_gemm_form *f, tcmma_operand op) {
  const tcmma_gemm_plan *g = f->g;
  operand x;
  x.is_a = op == TCMMA_OPERAND_A;
  x.o = x.is_a ? &g->call.a : &g->call.b;
  x.t = x.o->transposed;
  x.k_rows = x.is_a ? x.t : !x.t;
  x.plain = x.is_a ? f->i.a_plain : f->i.b_plain;
  x.edge = x.is_a ? f->i.a_edge : f->i.b_edge;
  x.v = x.is_a ? "a" : "b", x.ptr = x.v;
  x.eb = tcmma_prec_bytes(x.o->prec);
  /* packed operands are k-major (tcmma__emit_gemm_scale_rules): k along columns */
  x.pack = x.k_rows ? 1 : tcmma__emit_gemm_pack(g);
  x.unit = x.is_a ? f->i.a_copy_bytes : f->i.b_copy_bytes;
  x.per = x.unit / x.eb;
  x.srows = x.is_a ? g->a_rows : g->b_rows, x.scols = x.is_a ? g->a_cols : g->b_cols;
  x.sw = x.is_a ? g->a_swizzle : g->b_swizzle;
  x.cpr = x.scols / x.per;
  x.iters = tcmma__emit_gemm_copies_per_thread(g, op) * TCMMA__GEMM_COPY_BYTES / x.unit;
  return x;
}

const char *tcmma__emit_gemm_dim(const tcmma__emit_gemm_form *f, tcmma__gemm_dim d, char *buf,
                                 size_t cap) {
  static const char *const names[] = {"m", "n", "k", "lda", "ldb", "ldc", "ldd"};
  const tcmma_gemm_call *c = &f->g->call;
  long v[] = {c->m, c->n, c->k, c->a.ld, c->b.ld, c->d.ld, c->d.ld};
  if (f->i.shape_args) snprintf(buf, cap, "%s", names[d]);
  else snprintf(buf, cap, "%ld", v[d]);
  return buf;
}

/* Dimension d in stored units of x's columns: over x->pack for a packed
 * operand (a constant, or the argument divided). */
static void stored_dim(const tcmma__emit_gemm_form *f, const operand *x, tcmma__gemm_dim d,
                       char *buf, size_t cap) {
  tcmma__emit_gemm_dim(f, d, buf, cap);
  if (x->pack == 1) return;
  char v[24];
  snprintf(v, sizeof v, "%s", buf);
  if (f->i.shape_args) snprintf(buf, cap, "(%.8s / %d)", v, x->pack);
  else snprintf(buf, cap, "%ld", strtol(v, NULL, 10) / x->pack);
}

/* The stored extents of op's whole matrix as text (rows, cols) and its ld
 * (packed operands' columns and ld in bytes). */
static void extents(const tcmma__emit_gemm_form *f, const operand *x, char *rows, char *cols,
                    char *ld, size_t cap) {
  char mn[24], k[24];
  tcmma__emit_gemm_dim(f, x->is_a ? TCMMA__GEMM_DIM_M : TCMMA__GEMM_DIM_N, mn, sizeof mn);
  stored_dim(f, x, TCMMA__GEMM_DIM_K, k, sizeof k);
  snprintf(rows, cap, "%s", x->k_rows ? k : mn);
  snprintf(cols, cap, "%s", x->k_rows ? mn : k);
  stored_dim(f, x, x->is_a ? TCMMA__GEMM_DIM_LDA : TCMMA__GEMM_DIM_LDB, ld, cap);
}

/* The storage type of n bytes for a plain copy. */
static const char *word_type(tcmma_dialect dl, int n) {
  return n == 16 ? tcmma__table_spell(dl, TCMMA__SPELL_VEC16)
         : n == 8 ? "unsigned long long"
         : n == 4 ? "unsigned"
         : n == 2 ? "unsigned short"
                  : "unsigned char";
}

/* One copy of x->unit bytes from src to dst + imm bytes in dialect:
 * cp.async (cg at 16 bytes, ca below; n the bytes to read, NULL: all; imm
 * the shared address's immediate) or a plain load (n: element by element,
 * zero past n). */
static void copy_unit(tcmma_dialect dl, const operand *x, int depth, const char *dst_base,
                      long imm, const char *src, const char *n, tcmma_buf *out) {
  char dst_buf[TCMMA__ADDR_TEXT + 96];
  const char *dst = dst_base;
  if (imm && (x->plain || dl == TCMMA_DIALECT_HOST))
    snprintf(dst_buf, sizeof dst_buf, "(%s + %ld)", dst_base, imm), dst = dst_buf;
  if (x->plain) {
    const char *w = word_type(dl, x->unit), *e = word_type(dl, x->eb);
    if (!n)
      tcmma__emit_line(out, depth, "*(%s *)%s = *(const %s *)%s;", w, dst, w, src);
    else if (x->per == 1)
      tcmma__emit_line(out, depth, "*(%s *)%s = %s ? *(const %s *)%s : (%s)0;", w, dst, n, w,
                       src, w);
    else
      tcmma__emit_line(out, depth, "for (int %sj = 0; %sj < %d; ++%sj) ((%s *)%s)[%sj] = %sj * "
                       "%d < (int)%s ? ((const %s *)%s)[%sj] : (%s)0;", TCMMA__GEMM_P,
                       TCMMA__GEMM_P, x->per, TCMMA__GEMM_P, e, dst, TCMMA__GEMM_P, TCMMA__GEMM_P,
                       x->eb, n, e, src, TCMMA__GEMM_P, e);
    return;
  }
  const char *op = tcmma__emit_collective_opcode(x->unit == TCMMA__GEMM_COPY_BYTES
                                                     ? TCMMA__COLL_CP_CG
                                                     : TCMMA__COLL_CP_CA);
  if (dl == TCMMA_DIALECT_HOST) {
    if (n)
      tcmma__emit_line(out, depth, "tcmma_sim_cp_async_zfill(\"%s\", %s, %s, %d, %s);", op, dst,
                       src, x->unit, n);
    else
      tcmma__emit_line(out, depth, "tcmma_sim_cp_async(\"%s\", %s, %s, %d);", op, dst, src,
                       x->unit);
    return;
  }
  char at[32] = "";
  if (imm) snprintf(at, sizeof at, "+%ld", imm);
  tcmma__emit_line(out, depth, "asm volatile(\"%s [%%0%s], [%%1], %d%s;\\n\"", op, at, x->unit,
                   n ? ", %2" : "");
  tcmma__emit_line(out, depth + 2,
                   ":: \"r\"((unsigned)__cvta_generic_to_shared(%s)), \"l\"(%s)%s%s%s);", dst, src,
                   n ? ", \"r\"(" : "", n ? n : "", n ? ")" : "");
}

/* The thread's row r and column c of copy i in the stage tile: constant
 * steps from its first copy (r0, c0) when the threads cover whole rows or
 * a row covers whole thread groups, so that every address but the first
 * is the pointer plus a constant (times ld). */
static void copy_position(const tcmma_gemm_plan *g, const operand *x, int depth,
                          tcmma_buf *out) {
  const char *P = TCMMA__GEMM_P, *v = x->v;
  long T = g->threads;
  if (T % x->cpr == 0)
    tcmma__emit_line(out, depth, "const int %sr = %s%sr0 + %s%si * %ld, %sc = %s%sc0;", P, P, v,
                     P, v, T / x->cpr, P, P, v);
  else if (x->cpr % T == 0)
    tcmma__emit_line(out, depth, "const int %sr = %s%si / %ld, %sc = %s%sc0 + %s%si %% %ld * %ld;",
                     P, P, v, x->cpr / T, P, P, v, P, v, x->cpr / T, T * x->per);
  else {
    tcmma__emit_line(out, depth, "const int %sx = %stid + %s%si * %ld;", P, P, P, v, T);
    tcmma__emit_line(out, depth, "const int %sr = %sx / %ld, %sc = %sx %% %ld * %d;", P, P,
                     x->cpr, P, P, x->cpr, x->per);
  }
}

/* The copies of one k tile of operand x into the stage at byte pointer
 * stage, from the thread's pointer; guarded: zero-filled past the edges
 * (the tile's first stored row and column row0, col0). */
static void copy_loop(const tcmma__emit_gemm_form *f, tcmma_dialect dl, const operand *x,
                      const char *stage, long imm, bool guarded, const char *row0, const char *col0,
                      int depth, tcmma_buf *out) {
  const char *P = TCMMA__GEMM_P, *v = x->v;
  char rows[24], cols[24], ld[24], soff[TCMMA__ADDR_TEXT], r[32], c[32];
  extents(f, x, rows, cols, ld, sizeof rows);
  (void)ld;
  tcmma__emit_line(out, depth, "%s", tcmma__table_spell(dl, TCMMA__SPELL_UNROLL));
  tcmma__emit_line(out, depth, "for (int %s%si = 0; %s%si < %ld; ++%s%si) {", P, v, P, v,
                   x->iters, P, v);
  copy_position(f->g, x, depth + 1, out);
  snprintf(r, sizeof r, "%sr", P);
  snprintf(c, sizeof c, "%sc", P);
  tcmma__emit_offset_expr(soff, sizeof soff, x->sw, x->scols, x->eb, r, c);
  char dst[TCMMA__ADDR_TEXT + 64], src[200];
  snprintf(dst, sizeof dst, "(%s + %s)", stage, soff);
  snprintf(src, sizeof src, "(%sp%s + (size_t)(%sr - %s%sr0) * %sld%s + (%sc - %s%sc0) * %d)", P,
           v, P, P, v, P, v, P, P, v, x->eb);
  if (!guarded) {
    copy_unit(dl, x, depth + 1, dst, imm, src, NULL, out);
  } else {
    /* bytes inside the matrix: whole rows past its edge read nothing */
    tcmma__emit_line(out, depth + 1, "int %sn = %s + %sr < %s ? (%s - %s - %sc) * %d : 0;", P,
                     row0, P, rows, cols, col0, P, x->eb);
    tcmma__emit_line(out, depth + 1, "%sn = %sn < 0 ? 0 : %sn > %d ? %d : %sn;", P, P, P, x->unit,
                     x->unit, P);
    /* a plain load reads only under its guard; cp.async gets a pointer
     * inside the matrix even when it reads nothing */
    char safe[260];
    snprintf(safe, sizeof safe, "(%sn ? %s : (const unsigned char *)%s)", P, src, x->ptr);
    copy_unit(dl, x, depth + 1, dst, imm, x->plain ? src : safe,
              x->plain ? TCMMA__GEMM_P "n" : "(unsigned)" TCMMA__GEMM_P "n", out);
  }
  tcmma__emit_line(out, depth, "}");
}

/* Copies operand x's k tile k0 (an int expression: the tile's first k) into
 * the stage at byte pointer stage, then steps the pointer one k tile. */
static void load_operand(const tcmma__emit_gemm_form *f, tcmma_dialect dl, const operand *x,
                         const char *stage, long imm, const char *k0, int depth,
                         tcmma_buf *out) {
  const tcmma_gemm_plan *g = f->g;
  const char *P = TCMMA__GEMM_P, *v = x->v;
  const char *mn0 = x->is_a ? TCMMA__GEMM_M0 : TCMMA__GEMM_N0;
  const char *row0 = x->k_rows ? k0 : mn0, *col0 = x->k_rows ? mn0 : k0;
  tcmma__emit_line(out, depth, "/* %s: %ldx%ld %s tile, %s, %ld %d-byte %s per thread */", v,
                   x->srows, x->scols, tcmma_prec_name(x->o->prec), x->sw ? "swizzled" : "plain",
                   x->iters, x->unit, x->plain ? "loads" : "cp.async");
  if (!x->edge) {
    copy_loop(f, dl, x, stage, imm, false, row0, col0, depth, out);
  } else {
    /* interior tiles copy unpredicated; only a tile at a ragged edge checks
     * (in a fixed shape only the extents that are ragged) */
    const tcmma_gemm_call *c = &g->call;
    char rows[24], cols[24], ld[24], cond[200] = "";
    extents(f, x, rows, cols, ld, sizeof rows);
    bool mn = f->i.shape_args || (x->is_a ? c->m % c->block_m : c->n % c->block_n),
         kk = f->i.shape_args || c->k % c->block_k;
    bool rk = x->k_rows ? kk : mn, ck = x->k_rows ? mn : kk;
    int at = 0;
    if (rk) at += snprintf(cond, sizeof cond, "%s + %ld <= %s", row0, x->srows, rows);
    if (ck)
      snprintf(cond + at, sizeof cond - (size_t)at, "%s%s + %ld <= %s", rk ? " && " : "", col0,
               x->scols, cols);
    tcmma__emit_line(out, depth, "if (%s) {", cond);
    copy_loop(f, dl, x, stage, imm, false, row0, col0, depth + 1, out);
    tcmma__emit_line(out, depth, "} else {");
    copy_loop(f, dl, x, stage, imm, true, row0, col0, depth + 1, out);
    tcmma__emit_line(out, depth, "}");
  }
  tcmma__emit_line(out, depth, "%sp%s += %ss%s;", P, v, P, v);
}

void tcmma__emit_gemm_loader_decls(const tcmma__emit_gemm_form *f, tcmma_dialect dl, int depth,
                                   tcmma_buf *out) {
  const tcmma_gemm_plan *g = f->g;
  const char *P = TCMMA__GEMM_P;
  for (int k = 0; k < 2; k++) {
    operand x = operand_of(f, k ? TCMMA_OPERAND_B : TCMMA_OPERAND_A);
    const char *v = x.v, *mn0 = x.is_a ? TCMMA__GEMM_M0 : TCMMA__GEMM_N0;
    char rows[24], cols[24], ld[24];
    extents(f, &x, rows, cols, ld, sizeof rows);
    tcmma__emit_line(out, depth, "/* %s's loader: the thread's first copy, its 64-bit source "
                     "pointer and the step of one k tile */", v);
    tcmma__emit_line(out, depth, "const int %s%sr0 = %stid / %ld, %s%sc0 = %stid %% %ld * %d;", P,
                     v, P, x.cpr, P, v, P, x.cpr, x.per);
    tcmma__emit_line(out, depth, "const size_t %sld%s = (size_t)%s * %d;", P, v, ld, x.eb);
    /* from k 0, or this K slice's first k */
    char k0[48] = "0";
    if (f->i.split_k > 1) snprintf(k0, sizeof k0, "%skt0 * %d", P, g->call.block_k / x.pack);
    tcmma__emit_line(out, depth, "const unsigned char *%sp%s = (const unsigned char *)%s + "
                     "(size_t)(%s + %s%sr0) * %sld%s + (size_t)(%s + %s%sc0) * %d;", P, v, x.ptr,
                     x.k_rows ? k0 : mn0, P, v, P, v, x.k_rows ? mn0 : k0, P, v, x.eb);
    if (x.k_rows)
      tcmma__emit_line(out, depth, "const size_t %ss%s = %d * %sld%s;", P, v, g->call.block_k, P,
                       v);
    else
      tcmma__emit_line(out, depth, "const size_t %ss%s = %d;", P, v,
                       g->call.block_k / x.pack * x.eb);
  }
  (void)dl;
}

bool tcmma__emit_gemm_async(const tcmma__emit_gemm_form *f) {
  return !f->i.a_plain || !f->i.b_plain;
}

void tcmma__emit_gemm_load_stage(const tcmma__emit_gemm_form *f, tcmma_dialect dl,
                                 const char *stage, const char *ktile, int depth, tcmma_buf *out) {
  const tcmma_gemm_plan *g = f->g;
  char k0[96], a_stage[160], b_stage[200];
  /* the tile's first k in stored units (packed operands: both, k-major) */
  snprintf(k0, sizeof k0, "(%s) * %d", ktile, g->call.block_k / tcmma__emit_gemm_pack(g));
  long b_off = tcmma__emit_gemm_stage_copies(g, TCMMA_OPERAND_A) * TCMMA__GEMM_COPY_BYTES;
  /* a constant stage (the unrolled ring) is the copies' immediate, from
   * one shared address per copy for every stage and both operands: written
   * in C, NVVM hoists each stage's sum out of the loop into a register */
  char *end;
  long lit = strtol(stage, &end, 10);
  bool constant = *stage && !*end;
  long a_imm = constant ? lit * (long)g->stage_bytes : 0, b_imm = constant ? a_imm + b_off : 0;
  if (constant) {
    snprintf(a_stage, sizeof a_stage, "%ssmem", TCMMA__GEMM_P);
    snprintf(b_stage, sizeof b_stage, "%ssmem", TCMMA__GEMM_P);
  } else {
    snprintf(a_stage, sizeof a_stage, "%ssmem + (%s) * %zu", TCMMA__GEMM_P, stage, g->stage_bytes);
    snprintf(b_stage, sizeof b_stage, "%s + %ld", a_stage, b_off);
  }
  char marker[48];
  snprintf(marker, sizeof marker, " (%s)", tcmma_marker_text(TCMMA_MARKER_CP_ASYNC));
  tcmma__emit_line(out, depth, "{ /* stage k tile %s%s */", ktile,
                   tcmma__emit_gemm_async(f) ? marker : ", plain loads");
  operand a = operand_of(f, TCMMA_OPERAND_A), b = operand_of(f, TCMMA_OPERAND_B);
  load_operand(f, dl, &a, a_stage, a_imm, k0, depth + 1, out);
  load_operand(f, dl, &b, b_stage, b_imm, k0, depth + 1, out);
  char m[24], n[24];
  tcmma__emit_gemm_dim(f, TCMMA__GEMM_DIM_M, m, sizeof m);
  tcmma__emit_gemm_dim(f, TCMMA__GEMM_DIM_N, n, sizeof n);
  tcmma__emit_gemm_load_scales(f, dl, stage, ktile, m, n, depth + 1, out);
  tcmma__emit_line(out, depth, "}");
}

void tcmma__emit_gemm_commit(tcmma_dialect dl, int depth, tcmma_buf *out) {
  if (dl == TCMMA_DIALECT_HOST)
    tcmma__emit_line(out, depth, "tcmma_sim_cp_async_commit();");
  else
    tcmma__emit_line(out, depth, "asm volatile(\"%s;\\n\" ::);",
                     tcmma__emit_collective_opcode(TCMMA__COLL_CP_COMMIT));
}

void tcmma__emit_gemm_wait(tcmma_dialect dl, int n, int depth, tcmma_buf *out) {
  if (dl == TCMMA_DIALECT_HOST)
    tcmma__emit_line(out, depth, "tcmma_sim_cp_async_wait_group(%d);", n);
  else
    tcmma__emit_line(out, depth, "asm volatile(\"%s %d;\\n\" ::: \"memory\");",
                     tcmma__emit_collective_opcode(TCMMA__COLL_CP_WAIT_GROUP), n);
}

/* Whether the epilogue stores 16 bytes at a time: d's class is 16 and
 * d's stored rows (cvt's precision when the list ends with one) are whole
 * 16-byte units in every shape the kernel serves. */
static bool epilogue_vector(const tcmma__emit_gemm_form *f, int eo) {
  const tcmma_gemm_call *c = &f->g->call;
  int ed = tcmma_prec_bytes(c->d.prec);
  if (f->i.d_align != TCMMA__GEMM_COPY_BYTES || c->block_n % (TCMMA__GEMM_COPY_BYTES / eo))
    return false;
  /* a wider store keeps the class; a narrower one only where the fixed ld allows */
  return eo >= ed || (!f->i.shape_args && (c->d.ld * eo) % TCMMA__GEMM_COPY_BYTES == 0);
}

/* The 16-byte path of one element group at d1 (its else arm opened when
 * the right edge is ragged). */
static void epilogue_vector_store(const tcmma__emit_gemm_form *f, tcmma_dialect dl, int vec,
                                  bool ragged_n, const char *N, const char *oc, int d1,
                                  tcmma_buf *out) {
  const char *P = TCMMA__GEMM_P, *u4 = tcmma__table_spell(dl, TCMMA__SPELL_VEC16);
  int d2 = d1;
  tcmma__emit_gemm_epilogue_vectors(f, dl, vec, d1, out);
  if (ragged_n) {
    tcmma__emit_line(out, d1, "if (%sgc + %d <= %s) {", P, vec, N);
    d2 = d1 + 1;
  }
  tcmma__emit_gemm_epilogue_load_c(f->g, dl, vec, oc, d2, out);
  tcmma__emit_line(out, d2, "%s", tcmma__table_spell(dl, TCMMA__SPELL_UNROLL));
  tcmma__emit_line(out, d2, "for (int %sj = 0; %sj < %d; ++%sj) {", P, P, vec, P);
  tcmma__emit_gemm_epilogue_element(f, dl, d2 + 1, G "s[" G "j]", G "cv[" G "j]", G "v[" G "j]",
                                    out);
  tcmma__emit_line(out, d2, "}");
  tcmma__emit_line(out, d2, "*(%s *)(d + %so) = *(const %s *)%sv;", u4, P, u4, P);
}

/* The element-by-element path at d2 + 1 (bounded by n when ragged). */
static void epilogue_scalar_store(const tcmma__emit_gemm_form *f, tcmma_dialect dl, int vec,
                                  bool ragged_n, const char *N, const char *oc, int d2,
                                  tcmma_buf *out) {
  const char *P = TCMMA__GEMM_P;
  char bound[96] = "", cval[64];
  if (ragged_n) snprintf(bound, sizeof bound, " && %sgc + %sj < %s", P, P, N);
  snprintf(cval, sizeof cval, "c[%s + %sj]", oc, P);
  tcmma__emit_line(out, d2 + 1, "for (int %sj = 0; %sj < %d%s; ++%sj) {", P, P, vec, bound, P);
  tcmma__emit_gemm_epilogue_element(f, dl, d2 + 2, G "s[" G "j]", cval, "d[" G "o + " G "j]", out);
  tcmma__emit_line(out, d2 + 1, "}");
}

/* The epilogue loop: each element x = alpha * acc (+ beta * c), then the
 * list's ops (mma/render_gemm_epilogue.c), converted to d's storage. 16
 * bytes at a time where epilogue_vector and the row's 16 bytes are in the
 * matrix, element by element otherwise. */
void tcmma__emit_gemm_epilogue(const tcmma__emit_gemm_form *f, tcmma_dialect dl, int depth,
                               tcmma_buf *out) {
  const tcmma_gemm_plan *g = f->g;
  const tcmma_gemm_call *c = &g->call;
  const char *P = TCMMA__GEMM_P;
  tcmma__gemm_epi e = tcmma__emit_gemm_epi_of(&f->o);
  int eo = tcmma_prec_bytes(tcmma__emit_gemm_out_prec(c, &e));
  bool args = f->i.shape_args, vector = epilogue_vector(f, eo);
  int vec = TCMMA__GEMM_COPY_BYTES / (vector ? eo : tcmma_prec_bytes(c->d.prec));
  char M[24], N[24], LDC[24], LDD[24];
  tcmma__emit_gemm_dim(f, TCMMA__GEMM_DIM_M, M, sizeof M);
  tcmma__emit_gemm_dim(f, TCMMA__GEMM_DIM_N, N, sizeof N);
  tcmma__emit_gemm_dim(f, TCMMA__GEMM_DIM_LDC, LDC, sizeof LDC);
  tcmma__emit_gemm_dim(f, TCMMA__GEMM_DIM_LDD, LDD, sizeof LDD);
  long per_row = c->block_n / vec, total = (long)c->block_m * per_row;
  bool ragged_n = args ? g->predicated : c->n % c->block_n != 0,
       ragged_m = args ? g->predicated : c->m % c->block_m != 0;
  tcmma__emit_line(out, depth,
                   "/* epilogue: d = alpha * acc + beta * c%s, %d elements (%d bytes) per "
                   "%s */",
                   e.count ? ", then the list's ops" : "", vec, TCMMA__GEMM_COPY_BYTES,
                   vector ? "store" : "thread, one by one (d's rows are not whole 16-byte units)");
  tcmma__emit_gemm_epilogue_begin(f, depth, out);
  tcmma__emit_line(out, depth, "%s", tcmma__table_spell(dl, TCMMA__SPELL_KEEP_LOOP));
  tcmma__emit_line(out, depth, "for (int %se = %stid; %se < %ld; %se += %d) {", P, P, P, total, P,
                   g->threads);
  int d1 = depth + 1;
  tcmma__emit_line(out, d1, "const int %sr = %se / %ld, %sc = %se %% %ld * %d;", P, P, per_row, P,
                   P, per_row, vec);
  tcmma__emit_line(out, d1, "const int %sgr = %s + %sr, %sgc = %s + %sc;", P, TCMMA__GEMM_M0, P, P,
                   TCMMA__GEMM_N0, P);
  if (ragged_m) tcmma__emit_line(out, d1, "if (%sgr >= %s) continue;", P, M);
  tcmma__emit_line(out, d1, "const float *%ss = (const float *)%ssmem + %sr * %ld + %sc;", P, P, P,
                   g->epilogue_ld, P);
  tcmma__emit_line(out, d1, "const size_t %so = (size_t)%sgr * %s + %sgc;", P, P, LDD, P);
  if (args)
    tcmma__emit_line(out, d1, "const size_t %soc = (size_t)%sgr * %s + %sgc;", P, P, LDC, P);
  char oc[32];
  snprintf(oc, sizeof oc, "%so%s", P, args ? "c" : "");
  if (vector) epilogue_vector_store(f, dl, vec, ragged_n, N, oc, d1, out);
  if (!vector || ragged_n) {
    if (vector) tcmma__emit_line(out, d1, "} else {");
    epilogue_scalar_store(f, dl, vec, ragged_n, N, oc, vector ? d1 : depth, out);
    if (vector) tcmma__emit_line(out, d1, "}");
  }
  tcmma__emit_line(out, depth, "}");
  tcmma__emit_gemm_epilogue_end(f, dl, depth, out);
}
