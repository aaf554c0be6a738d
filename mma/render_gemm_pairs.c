/* One pair of adjacent accumulator columns through the GEMM's epilogue to
 * d, for the kernels whose epilogue runs from registers (the wgmma
 * kernel's accumulators, the tcgen05 kernel's tcgen05.ld registers;
 * docs/emit.md, The Hopper GEMM, The Blackwell GEMM): each element through
 * the epilogue statements of mma/render_gemm_epilogue.c, the pair stored at
 * once where d's class holds it, element by element otherwise and past a
 * ragged right edge, rows past a ragged bottom edge skipped. */
#include <stdio.h>
#include "emit.h"
#include "gemm_epilogue.h"
#include "gemm_rules.h"

#define P TCMMA__GEMM_P

/* The word type a pair of d's stored elements fills in one store, or NULL
 * where the pair is stored element by element: d's class must hold the
 * pair (a pair starts at an even column: its offset is then a multiple of
 * the pair's bytes) and no cvt changes d's width. */
static const char *pair_word(const tcmma__emit_gemm_pair *k) {
  const tcmma_gemm_call *c = &k->f->g->call;
  tcmma__gemm_epi e = tcmma__emit_gemm_epi_of(&k->f->o);
  int eo = tcmma_prec_bytes(tcmma__emit_gemm_out_prec(c, &e));
  if (eo != tcmma_prec_bytes(c->d.prec) || k->f->i.d_align < 2 * eo) return NULL;
  return eo == 1 ? "unsigned short" : eo == 2 ? "unsigned" : eo == 4 ? "unsigned long long" : NULL;
}

/* The pair's two elements at depth: into v and one store of word (the pair
 * inside the matrix), or element by element into d (word NULL; bound: the
 * ragged right edge's guard, "" none). */
static void pair_elements(const tcmma__emit_gemm_pair *k, const char *word, const char *bound,
                          int depth, tcmma_buf *out) {
  char cval[64];
  snprintf(cval, sizeof cval, "c[%so%s + %sj]", P, k->f->i.shape_args ? "c" : "", P);
  if (word)
    tcmma__emit_line(out, depth, "%s %s %sv[2];", tcmma__table_spell(k->dl, TCMMA__SPELL_ALIGN16),
                     tcmma__table_spell_type(k->dl, k->f->g->call.d.prec), P);
  tcmma__emit_line(out, depth, "%s", tcmma__table_spell(k->dl, TCMMA__SPELL_UNROLL));
  tcmma__emit_line(out, depth, "for (int %sj = 0; %sj < 2; ++%sj) {", P, P, P);
  if (bound[0]) tcmma__emit_line(out, depth + 1, "if (%sgc + %sj >= %s) break;", P, P, bound);
  tcmma__emit_gemm_epilogue_element(k->f, k->dl, depth + 1, k->acc, cval,
                                    word ? P "v[" P "j]" : "d[" P "o + " P "j]", out);
  tcmma__emit_line(out, depth, "}");
  if (word)
    tcmma__emit_line(out, depth, "*(%s *)(d + %so) = *(const %s *)%sv; /* the pair at once */", word,
                     P, word, P);
}

void tcmma__emit_gemm_pair_store(const tcmma__emit_gemm_pair *k, int depth, tcmma_buf *out) {
  const tcmma__emit_gemm_form *f = k->f;
  bool args = f->i.shape_args;
  const tcmma_gemm_call *c = &f->g->call;
  bool ragged_m = args ? f->g->predicated : c->m % c->block_m != 0,
       ragged_n = args ? f->g->predicated : c->n % c->block_n != 0;
  char M[24], N[24], LDC[24], LDD[24];
  tcmma__emit_gemm_dim(f, TCMMA__GEMM_DIM_M, M, sizeof M);
  tcmma__emit_gemm_dim(f, TCMMA__GEMM_DIM_N, N, sizeof N);
  tcmma__emit_gemm_dim(f, TCMMA__GEMM_DIM_LDC, LDC, sizeof LDC);
  tcmma__emit_gemm_dim(f, TCMMA__GEMM_DIM_LDD, LDD, sizeof LDD);
  tcmma__emit_line(out, depth, "const int %sgr = %s, %sgc = %s;", P, k->row, P, k->col);
  if (ragged_m) tcmma__emit_line(out, depth, "if (%sgr >= %s) continue;", P, M);
  tcmma__emit_line(out, depth, "const size_t %so = (size_t)%sgr * %s + %sgc;", P, P, LDD, P);
  if (args) tcmma__emit_line(out, depth, "const size_t %soc = (size_t)%sgr * %s + %sgc;", P, P, LDC, P);
  const char *word = pair_word(k);
  if (!word) {
    pair_elements(k, NULL, ragged_n ? N : "", depth, out);
    return;
  }
  if (!ragged_n) {
    pair_elements(k, word, "", depth, out);
    return;
  }
  tcmma__emit_line(out, depth, "if (%sgc + 1 < %s) {", P, N);
  pair_elements(k, word, "", depth + 1, out);
  tcmma__emit_line(out, depth, "} else {");
  pair_elements(k, NULL, N, depth + 1, out);
  tcmma__emit_line(out, depth, "}");
}
