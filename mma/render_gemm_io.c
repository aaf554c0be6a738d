/* The block-wide parts of a GEMM kernel (docs/emit.md, GEMM): the loader
 * that copies one k tile of A and B into a stage with 16-byte cp.async
 * (zero-filled past the matrix edges when the plan is predicated), the
 * stage ring's commit and wait, and the epilogue that reads the f32 block
 * tile back from shared memory, applies alpha and beta, converts to d's
 * storage and stores 16 bytes at a time (element by element at a ragged
 * edge). */
#include <stdio.h>
#include <string.h>
#include "tcmma/arch.h"
#include "emit.h"
#include "gemm_epilogue.h"
#include "gemm_rules.h"

/* Where operand op's stage tile comes from in global memory: the global
 * row and column of its stored element (0, 0) as C text, and the stored
 * extents of the whole matrix. */
static void origin(const tcmma_gemm_plan *g, tcmma_operand op, const char *k0, char *row,
                   char *col, size_t cap, long *rows, long *cols) {
  const tcmma_gemm_call *c = &g->call;
  bool t = op == TCMMA_OPERAND_A ? c->a.transposed : c->b.transposed;
  const char *mn = op == TCMMA_OPERAND_A ? TCMMA__GEMM_M0 : TCMMA__GEMM_N0;
  long mn_ext = op == TCMMA_OPERAND_A ? c->m : c->n;
  /* a: m x k (stored k x m when transposed); b: k x n (stored n x k) */
  bool k_rows = op == TCMMA_OPERAND_A ? t : !t;
  snprintf(row, cap, "%s", k_rows ? k0 : mn);
  snprintf(col, cap, "%s", k_rows ? mn : k0);
  *rows = k_rows ? c->k : mn_ext;
  *cols = k_rows ? mn_ext : c->k;
}

/* The copy of one 16-byte chunk in dialect: dst a shared byte pointer, src
 * a global byte pointer, n the bytes to read (NULL: all 16). */
static void copy16(tcmma_dialect dl, int depth, const char *dst, const char *src, const char *n,
                   tcmma_buf *out) {
  const char *op = tcmma__emit_collective_opcode(TCMMA__COLL_CP_CG);
  if (dl == TCMMA_DIALECT_HOST) {
    if (n)
      tcmma__emit_line(out, depth, "tcmma_sim_cp_async_zfill(\"%s\", %s, %s, %d, %s);", op, dst,
                       src, TCMMA__GEMM_COPY_BYTES, n);
    else
      tcmma__emit_line(out, depth, "tcmma_sim_cp_async(\"%s\", %s, %s, %d);", op, dst, src,
                       TCMMA__GEMM_COPY_BYTES);
    return;
  }
  tcmma__emit_line(out, depth, "asm volatile(\"%s [%%0], [%%1], %d%s;\\n\"", op,
                   TCMMA__GEMM_COPY_BYTES, n ? ", %2" : "");
  tcmma__emit_line(out, depth + 2,
                   ":: \"r\"((unsigned)__cvta_generic_to_shared(%s)), \"l\"(%s)%s%s%s);", dst, src,
                   n ? ", \"r\"(" : "", n ? n : "", n ? ")" : "");
}

/* Copies operand op's k tile k0 (an int expression: the tile's first k)
 * into the stage at byte pointer stage. */
static void load_operand(const tcmma_gemm_plan *g, tcmma_dialect dl, tcmma_operand op,
                         const char *ptr, const char *stage, const char *k0, int depth,
                         tcmma_buf *out) {
  const tcmma_gemm_call *c = &g->call;
  bool is_a = op == TCMMA_OPERAND_A;
  const tcmma_operand_desc *o = is_a ? &c->a : &c->b;
  int eb = tcmma_prec_bytes(o->prec), per = TCMMA__GEMM_COPY_BYTES / eb;
  long srows = is_a ? g->a_rows : g->b_rows, scols = is_a ? g->a_cols : g->b_cols;
  tcmma_swizzle sw = is_a ? g->a_swizzle : g->b_swizzle;
  long chunks_per_row = scols / per, iters = tcmma__emit_gemm_copies_per_thread(g, op);
  char row0[64], col0[64], soff[TCMMA__ADDR_TEXT];
  long rows, cols;
  origin(g, op, k0, row0, col0, sizeof row0, &rows, &cols);
  const char *P = TCMMA__GEMM_P, *v = is_a ? "a" : "b";
  tcmma__emit_line(out, depth, "/* %s: %ldx%ld %s tile, %s, %ld %d-byte copies per thread */", v,
                   srows, scols, tcmma_prec_name(o->prec), sw ? "swizzled" : "plain", iters,
                   TCMMA__GEMM_COPY_BYTES);
  tcmma__emit_line(out, depth, "%s", tcmma__table_spell(dl, TCMMA__SPELL_UNROLL));
  tcmma__emit_line(out, depth, "for (int %s%si = 0; %s%si < %ld; ++%s%si) {", P, v, P, v, iters, P,
                   v);
  tcmma__emit_line(out, depth + 1, "const int %sx = %stid + %s%si * %d;", P, P, P, v, g->threads);
  tcmma__emit_line(out, depth + 1, "const int %sr = %sx / %ld, %sc = %sx %% %ld * %d;", P, P,
                   chunks_per_row, P, P, chunks_per_row, per);
  char r[48], col[48];
  snprintf(r, sizeof r, "%sr", P);
  snprintf(col, sizeof col, "%sc", P);
  tcmma__emit_offset_expr(soff, sizeof soff, sw, scols, eb, r, col);
  tcmma__emit_line(out, depth + 1, "unsigned char *%sdst = %s + %s;", P, stage, soff);
  tcmma__emit_line(out, depth + 1, "const int %sgr = %s + %sr, %sgc = %s + %sc;", P, row0, P, P,
                   col0, P);
  char src[400], dst[64];
  snprintf(dst, sizeof dst, "%sdst", P);
  snprintf(src, sizeof src, "(const unsigned char *)(%s + (size_t)%sgr * %ld + %sgc)", ptr, P,
           o->ld, P);
  if (!g->predicated) {
    copy16(dl, depth + 1, dst, src, NULL, out);
  } else {
    /* bytes inside the matrix: whole rows past its edge read nothing */
    tcmma__emit_line(out, depth + 1, "int %sn = %sgr < %ld ? (%ld - %sgc) * %d : 0;", P, P, rows,
                     cols, P, eb);
    tcmma__emit_line(out, depth + 1, "%sn = %sn < 0 ? 0 : %sn > %d ? %d : %sn;", P, P, P,
                     TCMMA__GEMM_COPY_BYTES, TCMMA__GEMM_COPY_BYTES, P);
    char guarded[480];
    snprintf(guarded, sizeof guarded, "%sn ? %s : (const unsigned char *)%s", P, src, ptr);
    copy16(dl, depth + 1, dst, guarded, "(unsigned)" TCMMA__GEMM_P "n", out);
  }
  tcmma__emit_line(out, depth, "}");
}

void tcmma__emit_gemm_load_stage(const tcmma_gemm_plan *g, tcmma_dialect dl, const char *stage,
                                 const char *ktile, int depth, tcmma_buf *out) {
  char k0[96], a_stage[160], b_stage[200];
  snprintf(k0, sizeof k0, "(%s) * %d", ktile, g->call.block_k);
  snprintf(a_stage, sizeof a_stage, "%ssmem + (%s) * %zu", TCMMA__GEMM_P, stage, g->stage_bytes);
  snprintf(b_stage, sizeof b_stage, "%s + %ld", a_stage,
           tcmma__emit_gemm_stage_copies(g, TCMMA_OPERAND_A) * TCMMA__GEMM_COPY_BYTES);
  tcmma__emit_line(out, depth, "{ /* stage k tile %s (%s) */", ktile,
                   tcmma_marker_text(TCMMA_MARKER_CP_ASYNC));
  load_operand(g, dl, TCMMA_OPERAND_A, "a", a_stage, k0, depth + 1, out);
  load_operand(g, dl, TCMMA_OPERAND_B, "b", b_stage, k0, depth + 1, out);
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

#define G TCMMA__GEMM_P

/* The epilogue loop; each element's statements are render_gemm_epilogue.c's. */
void tcmma__emit_gemm_epilogue(const tcmma_gemm_plan *g, const tcmma__gemm_epi *e,
                               tcmma_dialect dl, int depth, tcmma_buf *out) {
  const tcmma_gemm_call *c = &g->call;
  const char *P = TCMMA__GEMM_P;
  int ed = tcmma_prec_bytes(tcmma__emit_gemm_out_prec(c, e)), vec = TCMMA__GEMM_COPY_BYTES / ed;
  const char *u4 = tcmma__table_spell(dl, TCMMA__SPELL_VEC16);
  long per_row = c->block_n / vec, total = (long)c->block_m * per_row;
  bool ragged_n = c->n % c->block_n != 0, ragged_m = c->m % c->block_m != 0;
  tcmma__emit_line(out, depth,
                   "/* epilogue: d = alpha * acc + beta * c, %d elements (%d bytes) per "
                   "store */",
                   vec, TCMMA__GEMM_COPY_BYTES);
  tcmma__emit_gemm_epilogue_begin(e, depth, out);
  tcmma__emit_line(out, depth, "%s", tcmma__table_spell(dl, TCMMA__SPELL_KEEP_LOOP));
  tcmma__emit_line(out, depth, "for (int %se = %stid; %se < %ld; %se += %d) {", P, P, P, total, P,
                   g->threads);
  int d1 = depth + 1;
  tcmma__emit_line(out, d1, "const int %sr = %se / %ld, %sc = %se %% %ld * %d;", P, P, per_row, P,
                   P, per_row, vec);
  tcmma__emit_line(out, d1, "const int %sgr = %s + %sr, %sgc = %s + %sc;", P, TCMMA__GEMM_M0, P, P,
                   TCMMA__GEMM_N0, P);
  if (ragged_m) tcmma__emit_line(out, d1, "if (%sgr >= %d) continue;", P, c->m);
  tcmma__emit_line(out, d1, "const float *%ss = (const float *)%ssmem + %sr * %ld + %sc;", P, P, P,
                   g->epilogue_ld, P);
  tcmma__emit_line(out, d1, "const size_t %so = (size_t)%sgr * %ld + %sgc;", P, P, c->d.ld, P);
  tcmma__emit_gemm_epilogue_vectors(g, e, dl, vec, d1, out);
  int d2 = d1;
  if (ragged_n) {
    tcmma__emit_line(out, d1, "if (%sgc + %d <= %d) {", P, vec, c->n);
    d2 = d1 + 1;
  }
  tcmma__emit_gemm_epilogue_load_c(g, dl, vec, d2, out);
  tcmma__emit_line(out, d2, "%s", tcmma__table_spell(dl, TCMMA__SPELL_UNROLL));
  tcmma__emit_line(out, d2, "for (int %sj = 0; %sj < %d; ++%sj) {", P, P, vec, P);
  tcmma__emit_gemm_epilogue_element(g, e, dl, d2 + 1, G "s[" G "j]", G "cv[" G "j]", G "v[" G "j]",
                                    out);
  tcmma__emit_line(out, d2, "}");
  tcmma__emit_line(out, d2, "*(%s *)(d + %so) = *(const %s *)%sv;", u4, P, u4, P);
  if (ragged_n) {
    tcmma__emit_line(out, d1, "} else {");
    tcmma__emit_line(out, d2, "for (int %sj = 0; %sj < %d && %sgc + %sj < %d; ++%sj) {", P, P, vec,
                     P, P, c->n, P);
    tcmma__emit_gemm_epilogue_element(g, e, dl, d2 + 1, G "s[" G "j]", "c[" G "o + " G "j]",
                                      "d[" G "o + " G "j]", out);
    tcmma__emit_line(out, d2, "}");
    tcmma__emit_line(out, d1, "}");
  }
  tcmma__emit_line(out, depth, "}");
  tcmma__emit_gemm_epilogue_end(e, dl, depth, out);
}
