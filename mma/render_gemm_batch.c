/* A GEMM kernel's batch and K slices (docs/emit.md, GEMM; issue #22): the
 * arguments beyond d, a, b, c, alpha, beta; each block's matrix of the
 * batch (blockIdx.z / split_k: pointer arrays or strides) and its K slice
 * (blockIdx.z % split_k); and split-K's reduction, which forms each
 * element's final sum in the shared f32 tile before the epilogue reads it. */
#include <stdio.h>
#include "emit.h"
#include "gemm_epilogue.h"
#include "gemm_rules.h"

#define P TCMMA__GEMM_P

bool tcmma__emit_gemm_batched(const tcmma__emit_gemm_form *f) {
  return f->i.batch > 1 || f->o.pointer_array;
}

int tcmma__emit_gemm_params(const tcmma__emit_gemm_form *f,
                            tcmma__emit_gemm_param out[TCMMA__GEMM_PARAMS_MAX]) {
  static const char *const dims[7] = {"m", "n", "k", "lda", "ldb", "ldc", "ldd"};
  static const char *const strides[4] = {"stride_a", "stride_b", "stride_c", "stride_d"};
  int n = 0;
  if (f->i.scale_block) { /* the block scales of a and b (mma/gemm_scale.c) */
    out[n++] = (tcmma__emit_gemm_param){"const unsigned char *", "sfa"};
    out[n++] = (tcmma__emit_gemm_param){"const unsigned char *", "sfb"};
  }
  if (f->i.shape_args)
    for (int i = 0; i < 7; i++) out[n++] = (tcmma__emit_gemm_param){"int", dims[i]};
  if (f->i.shape_args && tcmma__emit_gemm_batched(f) && !f->o.pointer_array)
    for (int i = 0; i < 4; i++) out[n++] = (tcmma__emit_gemm_param){"long long", strides[i]};
  if (f->i.split_k > 1) out[n++] = (tcmma__emit_gemm_param){"void *", "workspace"};
  return n;
}

/* Operand v's stride as text, in the steps of its pointer (elements; a
 * packed operand's bytes: elements over pack): the argument, or its
 * constant (0 in opts: one dense stored matrix). */
static void stride_text(const tcmma__emit_gemm_form *f, char v, char *buf, size_t cap) {
  const tcmma_gemm_call *c = &f->g->call;
  int pack = v == 'd' ? 1 : f->i.pack;
  if (f->i.shape_args) {
    if (pack > 1) snprintf(buf, cap, "(stride_%c / %d)", v, pack);
    else snprintf(buf, cap, "stride_%c", v);
    return;
  }
  long long s = v == 'a' ? f->o.stride_a : v == 'b' ? f->o.stride_b : f->o.stride_d;
  long rows = v == 'a' ? (c->a.transposed ? c->k : c->m)
              : v == 'b' ? (c->b.transposed ? c->n : c->k) : c->m;
  long ld = v == 'a' ? c->a.ld : v == 'b' ? c->b.ld : c->d.ld;
  snprintf(buf, cap, "%lld", (s ? s : (long long)rows * ld) / pack);
}

/* A block-scaled batch's scale tensors: matrix bz's follow one another,
 * m (n) rows of scale_ld bytes each. */
static void scale_base(const tcmma__emit_gemm_form *f, int depth, tcmma_buf *out) {
  if (!f->i.scale_block) return;
  char sld[96], m[24] = "m", n[24] = "n";
  tcmma__emit_gemm_scale_ld_text(f, sld, sizeof sld);
  if (!f->i.shape_args)
    snprintf(m, sizeof m, "%d", f->g->call.m), snprintf(n, sizeof n, "%d", f->g->call.n);
  tcmma__emit_line(out, depth, "sfa += (size_t)%sbz * %s * %s;", P, m, sld);
  tcmma__emit_line(out, depth, "sfb += (size_t)%sbz * %s * %s;", P, n, sld);
}

void tcmma__emit_gemm_batch_base(const tcmma__emit_gemm_form *f, tcmma_dialect dl, int depth,
                                 tcmma_buf *out) {
  int S = f->i.split_k;
  bool batched = tcmma__emit_gemm_batched(f);
  if (!batched && S == 1) return;
  const char *bz = tcmma__table_spell(dl, TCMMA__SPELL_BLOCK_IDX_Z);
  tcmma__emit_line(out, depth, "/* grid z: matrix %s of the batch%s */", P "bz",
                   S > 1 ? ", K slice " P "slice of it" : "");
  if (S == 1)
    tcmma__emit_line(out, depth, "const int %sbz = (int)%s;", P, bz);
  else
    tcmma__emit_line(out, depth, "const int %sbz = (int)%s / %d, %sslice = (int)%s %% %d;", P, bz,
                     S, P, bz, S);
  if (!batched) return;
  const tcmma_gemm_call *c = &f->g->call;
  tcmma__gemm_epi e = tcmma__emit_gemm_epi_of(&f->o);
  const char *td = tcmma__table_spell_type(dl, tcmma__emit_gemm_out_prec(c, &e)),
             *tc = tcmma__table_spell_type(dl, c->d.prec),
             *ta = tcmma__table_spell_type(dl, c->a.prec),
             *tb = tcmma__table_spell_type(dl, c->b.prec);
  if (f->o.pointer_array) {
    tcmma__emit_line(out, depth, "%s *const d = d_batch[%sbz];", td, P);
    tcmma__emit_line(out, depth, "const %s *const a = a_batch[%sbz];", ta, P);
    tcmma__emit_line(out, depth, "const %s *const b = b_batch[%sbz];", tb, P);
    tcmma__emit_line(out, depth, "const %s *const c = c_batch[%sbz];", tc, P);
    return;
  }
  char sa[32], sb[32], sd[32];
  stride_text(f, 'a', sa, sizeof sa), stride_text(f, 'b', sb, sizeof sb);
  stride_text(f, 'd', sd, sizeof sd);
  tcmma__emit_line(out, depth, "a += (size_t)%sbz * %s;", P, sa);
  tcmma__emit_line(out, depth, "b += (size_t)%sbz * %s;", P, sb);
  const char *sc = f->i.shape_args ? "stride_c" : sd;
  tcmma__emit_line(out, depth, "c += (size_t)%sbz * %s;", P, sc);
  tcmma__emit_line(out, depth, "d += (size_t)%sbz * %s;", P, sd);
  scale_base(f, depth, out);
  tcmma__emit_gemm_epilogue_residual_base(f, sc, depth, out);
}

void tcmma__emit_gemm_split_reduce(const tcmma__emit_gemm_form *f, tcmma_dialect dl, int depth,
                                   tcmma_buf *out) {
  const tcmma_gemm_plan *g = f->g;
  int S = f->i.split_k, BM = g->call.block_m, BN = g->call.block_n;
  if (S == 1) return;
  const char *sync = tcmma__table_spell(dl, TCMMA__SPELL_SYNCTHREADS),
             *fence = tcmma__table_spell(dl, TCMMA__SPELL_THREADFENCE),
             *gx = tcmma__table_spell(dl, TCMMA__SPELL_GRID_DIM_X),
             *gy = tcmma__table_spell(dl, TCMMA__SPELL_GRID_DIM_Y),
             *bx = tcmma__table_spell(dl, TCMMA__SPELL_BLOCK_IDX),
             *by = tcmma__table_spell(dl, TCMMA__SPELL_BLOCK_IDX_Y);
  long tile = (long)BM * BN;
  int d1 = depth + 1;
  tcmma__emit_line(out, depth, "/* split-K over %d slices: each stores its partial tile in the "
                   "workspace; the slice that arrives last sums all %d in slice order (the same "
                   "sum whichever arrives last) into the shared tile the epilogue reads */", S, S);
  tcmma__emit_line(out, depth, "{");
  tcmma__emit_line(out, d1, "volatile unsigned *const %slast = (volatile unsigned *)(%ssmem + %zu);",
                   P, P, g->shared_bytes - TCMMA__GEMM_FLAG_BYTES);
  tcmma__emit_line(out, d1, "const size_t %stile = ((size_t)%sbz * %s + %s) * %s + %s;", P, P, gy,
                   by, gx, bx);
  tcmma__emit_line(out, d1, "float *const %sws = (float *)workspace + %stile * %ld;", P, P,
                   tile * S);
  tcmma__emit_line(out, d1, "unsigned *const %scount = (unsigned *)((unsigned char *)workspace + "
                   "(size_t)%s * %s * %s * %ld) + %stile;", P, gx, gy,
                   tcmma__table_spell(dl, TCMMA__SPELL_GRID_DIM_Z), tile * 4, P);
  tcmma__emit_line(out, d1, "float *const %st = (float *)%ssmem;", P, P);
  tcmma__emit_line(out, d1, "for (int %se = %stid; %se < %ld; %se += %d)", P, P, P, tile, P,
                   g->threads);
  tcmma__emit_line(out, d1 + 1, "%sws[(size_t)%sslice * %ld + %se] = %st[%se / %d * %ld + %se %% %d];",
                   P, P, tile, P, P, P, BN, g->epilogue_ld, P, BN);
  tcmma__emit_line(out, d1, "%s; /* the partial tile is visible before it is counted */", fence);
  tcmma__emit_line(out, d1, "%s;", sync);
  tcmma__emit_line(out, d1, "if (%stid == 0) {", P);
  tcmma__emit_line(out, d1 + 1, "*%slast = %s(%scount, 1u) == %du;", P,
                   tcmma__table_spell(dl, TCMMA__SPELL_ATOMIC_ADD), P, S - 1);
  tcmma__emit_line(out, d1 + 1, "if (*%slast) *%scount = 0u; /* ready for the next launch */", P,
                   P);
  tcmma__emit_line(out, d1, "}");
  tcmma__emit_line(out, d1, "%s;", sync);
  tcmma__emit_line(out, d1, "if (!*%slast) return;", P);
  tcmma__emit_line(out, d1, "%s;", fence);
  tcmma__emit_line(out, d1, "for (int %se = %stid; %se < %ld; %se += %d) {", P, P, P, tile, P,
                   g->threads);
  tcmma__emit_line(out, d1 + 1, "float %sx = 0.0f;", P);
  tcmma__emit_line(out, d1 + 1, "for (int %ss = 0; %ss < %d; ++%ss) %sx += %s(%sws + (size_t)%ss * "
                   "%ld + %se);", P, P, S, P, P, tcmma__table_spell(dl, TCMMA__SPELL_LDCG), P, P,
                   tile, P);
  tcmma__emit_line(out, d1 + 1, "%st[%se / %d * %ld + %se %% %d] = %sx;", P, P, BN, g->epilogue_ld,
                   P, BN, P);
  tcmma__emit_line(out, d1, "}");
  tcmma__emit_line(out, d1, "%s;", sync);
  tcmma__emit_line(out, depth, "}");
}
