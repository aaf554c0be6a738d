/* What every GEMM kernel's text begins and ends with, whichever kind
 * (docs/emit.md, GEMM): the headers and the epilogue's hooks before the
 * kernel, its signature (d, a, b, c, alpha, beta, the options' arguments,
 * the epilogue's, then for the wgmma kernel its two tensor maps), and the
 * host dialect's entry for the simulator. The kinds' renderers
 * (mma/render_gemm.c, mma/render_gemm_wgmma.c) call down into this file. */
#include <stdio.h>
#include <string.h>
#include "emit.h"
#include "gemm_epilogue.h"
#include "gemm_rules.h"
#include "tcmma/kernel_attrs.h"

#define P TCMMA__GEMM_P

void tcmma__emit_gemm_prelude(const tcmma__emit_gemm_form *f, tcmma_dialect dl, tcmma_buf *out) {
  const tcmma_gemm_call *c = &f->g->call;
  tcmma_prec precs[3] = {c->d.prec, c->a.prec, c->b.prec};
  tcmma__emit_includes(precs, f->g->arm, dl, true, out);
  tcmma__emit_gemm_epilogue_prelude(f, dl, out);
}

/* The element types of d as stored, c, a and b in dialect dl. */
static void types(const tcmma__emit_gemm_form *f, tcmma_dialect dl, const char *t[4]) {
  const tcmma_gemm_call *c = &f->g->call;
  tcmma__gemm_epi e = tcmma__emit_gemm_epi_of(&f->o);
  t[0] = tcmma__table_spell_type(dl, tcmma__emit_gemm_out_prec(c, &e));
  t[1] = tcmma__table_spell_type(dl, c->d.prec);
  t[2] = tcmma__table_spell_type(dl, c->a.prec);
  t[3] = tcmma__table_spell_type(dl, c->b.prec);
}

void tcmma__emit_gemm_signature(const tcmma__emit_gemm_form *f, tcmma_dialect dl, const char *name,
                                const tcmma_kernel_attrs *attrs, bool maps, tcmma_buf *out) {
  const char *t[4];
  types(f, dl, t);
  const char *arr = f->o.pointer_array ? "const *" : "", *sfx = *arr ? "_batch" : "";
  tcmma_buf_printf(out, "\n");
  tcmma__emit_kernel_signature(dl, attrs, name, out);
  tcmma_buf_printf(out,
                   "%s *%sd%s, const %s *%sa%s, const %s *%sb%s, const %s *%sc%s, "
                   "float alpha, float beta",
                   t[0], arr, sfx, t[2], arr, sfx, t[3], arr, sfx, t[1], arr, sfx);
  tcmma__emit_gemm_param ps[TCMMA__GEMM_PARAMS_MAX];
  int n = tcmma__emit_gemm_params(f, ps);
  for (int p = 0; p < n; p++)
    tcmma_buf_printf(out, "%s%s%s%s", p % 4 == 0 ? ",\n    " : ", ", ps[p].type,
                     ps[p].type[strlen(ps[p].type) - 1] == '*' ? "" : " ", ps[p].name);
  tcmma__emit_gemm_epilogue_params(f, dl, out);
  if (maps) {
    const char *gc = tcmma__emit_grid_constant(dl),
               *tm = tcmma__table_spell(dl, TCMMA__SPELL_CU_TENSOR_MAP);
    tcmma_buf_printf(out, ",\n    %s %s " TCMMA__GEMM_MAP_A ", %s %s " TCMMA__GEMM_MAP_B, gc, tm,
                     gc, tm);
  }
  tcmma_buf_printf(out, ")\n{\n");
}

void tcmma__emit_gemm_entry(const tcmma__emit_gemm_form *f, tcmma_dialect dl, const char *name,
                            bool maps, tcmma_buf *out) {
  const char *t[4];
  types(f, dl, t);
  tcmma__emit_gemm_param ps[TCMMA__GEMM_PARAMS_MAX];
  int n = tcmma__emit_gemm_params(f, ps), ne = tcmma__emit_gemm_epilogue_param_count(f);
  const char *arr = f->o.pointer_array ? "const *" : "";
  tcmma_buf_printf(out,
                   "\n/* The simulator's entry: args is a void *[%d], a pointer to each of the "
                   "kernel's arguments in order (d, a, b, c%s, the workspace themselves%s%s). */\n"
                   "void %s_entry(void *args)\n{\n"
                   "  void **p = (void **)args;\n"
                   "  %s((%s *%s)p[0], (const %s *%s)p[1], (const %s *%s)p[2], (const %s *%s)p[3],\n"
                   "      *(const float *)p[4], *(const float *)p[5]",
                   6 + n + ne + (maps ? 2 : 0), *arr ? ": the pointer arrays" : "",
                   ne ? "; the epilogue's pointers" : "",
                   maps ? "; the two tensor maps last" : ne ? " last" : "",
                   name, name, t[0], arr, t[2], arr, t[3], arr, t[1], arr);
  for (int p = 0; p < n; p++) {
    /* a pointer (the workspace) is passed itself, as d, a, b and c are */
    bool ptr = ps[p].type[strlen(ps[p].type) - 1] == '*';
    if (ptr)
      tcmma_buf_printf(out, ",%s(void *)p[%d]", p % 3 == 0 ? "\n      " : " ", 6 + p);
    else
      tcmma_buf_printf(out, ",%s*(const %s *)p[%d]", p % 3 == 0 ? "\n      " : " ", ps[p].type,
                       6 + p);
  }
  tcmma__emit_gemm_epilogue_entry_args(f, dl, 6 + n, out);
  if (maps) {
    const char *tm = tcmma__table_spell(dl, TCMMA__SPELL_CU_TENSOR_MAP);
    tcmma_buf_printf(out, ",\n      *(const %s *)p[%d], *(const %s *)p[%d]", tm, 6 + n + ne, tm,
                     7 + n + ne);
  }
  tcmma_buf_printf(out, ");\n}\n");
}

/* block_origin's grouped order over the launch's grid (gridDim), for a
 * kernel whose shape is its arguments. */
static void grouped_args(const tcmma__emit_gemm_form *f, tcmma_dialect dl, const char *bx,
                         const char *by, tcmma_buf *out) {
  const tcmma_gemm_plan *g = f->g;
  const char *gx = tcmma__table_spell(dl, TCMMA__SPELL_GRID_DIM_X),
             *gy = tcmma__table_spell(dl, TCMMA__SPELL_GRID_DIM_Y);
  unsigned G = TCMMA_GEMM_GROUP_ROWS;
  tcmma_buf_printf(out, "  /* block rows in groups of %u, each group column by column (L2 reuse) */\n", G);
  tcmma_buf_printf(out, "  const int %sgx = (int)%s, %sgy = (int)%s;\n", P, gx, P, gy);
  tcmma_buf_printf(out, "  const int %sbid = (int)%s * %sgx + (int)%s;\n", P, by, P, bx);
  tcmma_buf_printf(out, "  const int %sfirst = %sbid / (%u * %sgx) * %u;\n", P, P, G, P, G);
  tcmma_buf_printf(out, "  const int %srows = %sgy - %sfirst < %u ? %sgy - %sfirst : %u;\n", P, P,
                   P, G, P, P, G);
  tcmma_buf_printf(out, "  const int " TCMMA__GEMM_M0 " = (%sfirst + %sbid %% (%u * %sgx) %% %srows)"
                   " * %d;\n", P, P, G, P, P, g->call.block_m);
  tcmma_buf_printf(out, "  const int " TCMMA__GEMM_N0 " = %sbid %% (%u * %sgx) / %srows * %d;\n", P,
                   G, P, P, g->call.block_n);
}

/* The block tile's first row and column. Blocks run in groups of
 * TCMMA_GEMM_GROUP_ROWS block rows, down each column of the group first, so
 * the blocks resident at once share rows of A and columns of B in L2
 * instead of sweeping all of B for every row of blocks. */
void tcmma__emit_gemm_block_origin(const tcmma__emit_gemm_form *f, tcmma_dialect dl,
                                   tcmma_buf *out) {
  const tcmma_gemm_plan *g = f->g;
  const char *bx = tcmma__table_spell(dl, TCMMA__SPELL_BLOCK_IDX),
             *by = tcmma__table_spell(dl, TCMMA__SPELL_BLOCK_IDX_Y);
  unsigned gx = g->grid[0], gy = g->grid[1], G = TCMMA_GEMM_GROUP_ROWS;
  if (f->i.shape_args) {
    grouped_args(f, dl, bx, by, out);
    return;
  }
  if (gx == 1 || gy == 1) {
    tcmma_buf_printf(out, "  const int " TCMMA__GEMM_M0 " = (int)%s * %d, " TCMMA__GEMM_N0
                     " = (int)%s * %d;\n", by, g->call.block_m, bx, g->call.block_n);
    return;
  }
  tcmma_buf_printf(out, "  /* block rows in groups of %u, each group column by column (L2 reuse) */\n", G);
  tcmma_buf_printf(out, "  const int %sbid = (int)%s * %u + (int)%s;\n", P, by, gx, bx);
  tcmma_buf_printf(out, "  const int %sfirst = %sbid / %u * %u;\n", P, P, G * gx, G);
  tcmma_buf_printf(out, "  const int %srows = %u - %sfirst < %u ? %u - %sfirst : %u;\n", P, gy, P,
                   G, gy, P, G);
  tcmma_buf_printf(out, "  const int " TCMMA__GEMM_M0 " = (%sfirst + %sbid %% %u %% %srows) * %d;\n",
                   P, P, G * gx, P, g->call.block_m);
  tcmma_buf_printf(out, "  const int " TCMMA__GEMM_N0 " = %sbid %% %u / %srows * %d;\n", P,
                   G * gx, P, g->call.block_n);
}


void tcmma__emit_gemm_shape_text(const tcmma__emit_gemm_form *f, char *buf, size_t cap) {
  const tcmma_gemm_call *c = &f->g->call;
  if (f->i.shape_args)
    snprintf(buf, cap, "D[m x n] = alpha * A[m x k] B[k x n] + beta * C, any shape");
  else
    snprintf(buf, cap, "D[%dx%d] = alpha * A[%dx%d] B[%dx%d] + beta * C", c->m, c->n, c->m, c->k,
             c->k, c->n);
}

void tcmma__emit_gemm_tma_head(const tcmma__emit_gemm_form *f, tcmma_dialect dl, const char *name,
                               tcmma_buf *out) {
  tcmma_kernel_attrs attrs = TCMMA_KERNEL_ATTRS_INIT(.max_threads = f->g->threads, .min_blocks = 1);
  tcmma__emit_gemm_signature(f, dl, name, &attrs, true, out);
  tcmma_buf_printf(out, "  %s %ssmem%s;\n", tcmma__table_spell(dl, TCMMA__SPELL_DYN_SHARED), P,
                   tcmma__table_spell(dl, TCMMA__SPELL_DYN_SHARED_END));
  tcmma_buf_printf(out, "  const int %stid = (int)%s;\n", P,
                   tcmma__table_spell(dl, TCMMA__SPELL_THREAD_IDX));
  tcmma__emit_line(out, 1, "(void)a, (void)b; /* read through the tensor maps */");
  tcmma__emit_gemm_block_origin(f, dl, out);
  tcmma__emit_gemm_batch_base(f, dl, 1, out);
}

void tcmma__emit_gemm_tma_loop_head(tcmma_dialect dl, const char *kt_count, const char *qual,
                                    size_t stage_bytes, int depth, tcmma_buf *out) {
  tcmma__emit_line(out, depth, "int %ss = 0;", P);
  tcmma__emit_line(out, depth, "unsigned %sph = 0u;", P);
  /* the trip count a constant before the loop: gcc drops (and warns of) a
   * loop annotation on a condition the sanitizers instrument */
  tcmma__emit_line(out, depth, "const int %skts = %s;", P, kt_count);
  tcmma__emit_line(out, depth, "%s", tcmma__table_spell(dl, TCMMA__SPELL_KEEP_LOOP));
  tcmma__emit_line(out, depth, "for (int %skt = 0; %skt < %skts; ++%skt) {", P, P, P, P);
  tcmma__emit_line(out, depth + 1, "%sunsigned char *%sa_st = %sst + %ss * %zu;", qual, P, P, P,
                   stage_bytes);
}
