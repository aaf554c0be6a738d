/* A block-scaled GEMM's scale loader (docs/emit.md, Block-scaled GEMMs):
 * with each k tile's a and b tiles, the scales of its block_m rows of A and
 * block_n columns of B (block_k / scale_block bytes each) from the kernel's
 * sfa and sfb, row-major by k block with rows of scale_ld bytes, into the
 * stage after the b tile; cp.async.ca of the scale copy (4 bytes), plain
 * loads below it; zero past m (n) and past the row's ceil(k / scale_block)
 * scales, so that the rows' padding is never read. */
#include <stdio.h>
#include "emit.h"
#include "gemm_rules.h"

#define P TCMMA__GEMM_P

/* One copy of u bytes from src to dst, n of them read (the rest zero). */
static void copy(tcmma_dialect dl, int u, const char *dst, const char *src, int depth,
                 tcmma_buf *out) {
  if (u < TCMMA__GEMM_ASYNC_MIN) {
    tcmma__emit_line(out, depth, "for (int %sj = 0; %sj < %d; ++%sj) (%s)[%sj] = %sj < %sn ? "
                     "(%s)[%sj] : (unsigned char)0;", P, P, u, P, dst, P, P, P, src, P);
    return;
  }
  const char *op = tcmma__emit_collective_opcode(TCMMA__COLL_CP_CA);
  if (dl == TCMMA_DIALECT_HOST) {
    tcmma__emit_line(out, depth, "tcmma_sim_cp_async_zfill(\"%s\", %s, %s, %d, (unsigned)%sn);",
                     op, dst, src, u, P);
    return;
  }
  tcmma__emit_line(out, depth, "asm volatile(\"%s [%%0], [%%1], %d, %%2;\\n\"", op, u);
  tcmma__emit_line(out, depth + 2, ":: \"r\"((unsigned)__cvta_generic_to_shared(%s)), \"l\"(%s), "
                   "\"r\"(%sn));", dst, src, P);
}

/* The scales of one operand's k tile: row r of the block (a's m0 + r, b's
 * n0 + r), bytes c.. of its k blocks, into the stage at byte offset off. */
static void load_tile(const tcmma__emit_gemm_form *f, tcmma_dialect dl, tcmma_operand op,
                      const char *stage, const char *ktile, const char *mn, const char *kb,
                      const char *sld, int depth, tcmma_buf *out) {
  const tcmma_gemm_plan *g = f->g;
  bool a = op == TCMMA_OPERAND_A;
  long cols = tcmma__emit_gemm_scale_cols(g), rows = a ? g->call.block_m : g->call.block_n;
  int u = tcmma__emit_gemm_scale_unit(g);
  long total = tcmma__emit_gemm_scale_copies(g, op), per_row = cols / u;
  size_t off = (size_t)(tcmma__emit_gemm_stage_copies(g, TCMMA_OPERAND_A) +
                        tcmma__emit_gemm_stage_copies(g, TCMMA_OPERAND_B)) *
                   TCMMA__GEMM_COPY_BYTES +
               (a ? 0 : tcmma__emit_gemm_scale_tile_bytes(g, TCMMA_OPERAND_A));
  const char *v = a ? "a" : "b", *mn0 = a ? TCMMA__GEMM_M0 : TCMMA__GEMM_N0;
  tcmma__emit_line(out, depth, "/* %s's scales: %ldx%ld %s, %ld %d-byte %s (zero past %s and "
                   "k) */", v, rows, cols, tcmma_prec_scale_type(a ? g->call.a.prec
                                                                   : g->call.b.prec),
                   total, u, u < TCMMA__GEMM_ASYNC_MIN ? "loads" : "cp.async", a ? "m" : "n");
  tcmma__emit_line(out, depth, "%s", tcmma__table_spell(dl, TCMMA__SPELL_UNROLL));
  tcmma__emit_line(out, depth, "for (int %ssi = %stid; %ssi < %ld; %ssi += %d) {", P, P, P, total,
                   P, g->threads);
  int d1 = depth + 1;
  tcmma__emit_line(out, d1, "const int %ssr = %ssi / %ld, %ssc = %ssi %% %ld * %d;", P, P,
                   per_row, P, P, per_row, u);
  tcmma__emit_line(out, d1, "const int %ssk = (%s) * %ld + %ssc;", P, ktile, cols, P);
  tcmma__emit_line(out, d1, "int %sn = %s + %ssr < %s ? %s - %ssk : 0;", P, mn0, P, mn, kb, P);
  tcmma__emit_line(out, d1, "%sn = %sn < 0 ? 0 : %sn > %d ? %d : %sn;", P, P, P, u, u, P);
  char dst[200], src[200];
  snprintf(dst, sizeof dst, "%ssmem + (%s) * %zu + %zu + %ssr * %ld + %ssc", P, stage,
           g->stage_bytes, off, P, cols, P);
  snprintf(src, sizeof src, "(%sn ? sf%s + (size_t)(%s + %ssr) * %s + %ssk : sf%s)", P, v, mn0,
           P, sld, P, v);
  copy(dl, u, dst, src, d1, out);
  tcmma__emit_line(out, depth, "}");
}

void tcmma__emit_gemm_scale_ld_text(const tcmma__emit_gemm_form *f, char *buf, size_t cap) {
  int block = f->i.scale_block, align = TCMMA_GEMM_SCALE_ROW_ALIGN;
  if (f->i.shape_args)
    snprintf(buf, cap, "((size_t)((k + %d) / %d + %d) / %d * %d)", block - 1, block, align - 1,
             align, align);
  else
    snprintf(buf, cap, "%ld", f->i.scale_ld);
}

void tcmma__emit_gemm_load_scales(const tcmma__emit_gemm_form *f, tcmma_dialect dl,
                                  const char *stage, const char *ktile, const char *m,
                                  const char *n, int depth, tcmma_buf *out) {
  const tcmma_gemm_plan *g = f->g;
  int block = f->i.scale_block;
  if (!block) return;
  /* the scales a row holds and its bytes (TCMMA_GEMM_SCALE_ROW_ALIGN) */
  char kb[64], sld[96];
  if (f->i.shape_args) snprintf(kb, sizeof kb, "(k + %d) / %d", block - 1, block);
  else snprintf(kb, sizeof kb, "%d", (g->call.k + block - 1) / block);
  tcmma__emit_gemm_scale_ld_text(f, sld, sizeof sld);
  load_tile(f, dl, TCMMA_OPERAND_A, stage, ktile, m, kb, sld, depth, out);
  load_tile(f, dl, TCMMA_OPERAND_B, stage, ktile, n, kb, sld, depth, out);
}
