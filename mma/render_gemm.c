/* A whole GEMM kernel from an accepted plan (docs/emit.md, GEMM): one block
 * tile per CUDA block; a cp.async ring of `stages` k tiles (one commit per
 * k tile, wait_group(stages - 2) and one barrier per k tile); each warp's
 * tile from the tile-MMA pieces with its fragments double-buffered across
 * k steps; the accumulators through the f32 shared tile to the epilogue.
 * Everything about fragments, layouts and swizzles comes from the pieces
 * and the swizzle atoms: this file only composes them. */
#include <stdio.h>
#include <string.h>
#include "emit.h"
#include "gemm_epilogue.h"

typedef struct {
  const tcmma_gemm_plan *g;
  tcmma_plan warp;
  tcmma__emit_gemm_exprs x;
  tcmma_dialect dl;
  tcmma_names names;
  const char *name;
  tcmma__gemm_epi epi; /* the epilogue list (mma/render_gemm_epilogue.c) */
} gemm_kernel;

#define P TCMMA__GEMM_P

/* The warp plan's blocks, named from the kernel's one context, into out. */
static tcmma_render_ctx warp_ctx(gemm_kernel *k, tcmma_buf *out) {
  return tcmma_render_ctx_make(&k->warp, k->dl, &k->names, out);
}

/* One k tile's products from the stage `stage`: fragments of k step s + 1
 * load while step s multiplies. */
static tcmma_status compute(gemm_kernel *k, const char *stage, int depth, tcmma_buf *out,
                            tcmma_error *err) {
  const tcmma_plan *w = &k->warp;
  const tcmma_gemm_plan *g = k->g;
  tcmma_dialect dl = k->dl;
  const char *ta = tcmma__table_spell_type(dl, g->call.a.prec),
             *tb = tcmma__table_spell_type(dl, g->call.b.prec);
  tcmma__emit_line(out, depth, "{");
  tcmma__emit_line(out, depth + 1, "const %s *const %sas = (const %s *)(%ssmem + (%s) * %zu);", ta,
                   P, ta, P, stage, g->stage_bytes);
  tcmma__emit_line(out, depth + 1,
                   "const %s *const %sbs = (const %s *)(%ssmem + (%s) * %zu + %ld);", tb, P, tb, P,
                   stage, g->stage_bytes, g->a_rows * g->a_cols * tcmma_prec_bytes(g->call.a.prec));
  tcmma_buf body = {0};
  tcmma_render_ctx bc = warp_ctx(k, &body);
  tcmma_status st = tcmma_render_frag_load(&bc, TCMMA_OPERAND_A, P "af[0]", P "as", "0", err);
  if (st == TCMMA_OK)
    st = tcmma_render_frag_load(&bc, TCMMA_OPERAND_B, P "bf[0]", P "bs", "0", err);
  /* the k steps written out, each a block with its own constant step:
   * under `#pragma unroll` NVRTC leaves some loops rolled (large gathered
   * bodies), and the fragment buffers, indexed by the step, then live in
   * local memory while the loop runs each step's mma once (issue #21) */
  for (int i = 0; st == TCMMA_OK && i < w->kt; i++) {
    tcmma_buf_printf(&body, "{\nconst int %ss = %d;\n", P, i);
    if (i + 1 < w->kt) {
      st = tcmma_render_frag_load(&bc, TCMMA_OPERAND_A, P "af[(" P "s + 1) & 1]", P "as",
                                  P "s + 1", err);
      if (st == TCMMA_OK)
        st = tcmma_render_frag_load(&bc, TCMMA_OPERAND_B, P "bf[(" P "s + 1) & 1]", P "bs",
                                    P "s + 1", err);
    }
    if (st == TCMMA_OK)
      st = tcmma_render_frag_mma(&bc, P "acc", P "af[" P "s & 1]", P "bf[" P "s & 1]", err);
    tcmma_buf_printf(&body, "}\n");
  }
  if (st == TCMMA_OK) tcmma__emit_append_indented(out, tcmma_buf_str(&body), depth + 1);
  tcmma_buf_free(&body);
  tcmma__emit_line(out, depth, "}");
  return st;
}

/* The k loop over the stage ring. */
static tcmma_status main_loop(gemm_kernel *k, tcmma_buf *out, tcmma_error *err) {
  const tcmma_gemm_plan *g = k->g;
  tcmma_dialect dl = k->dl;
  int S = g->call.stages, KT = g->k_tiles;
  const char *sync = tcmma__table_spell(dl, TCMMA__SPELL_SYNCTHREADS);
  if (S == 1) {
    tcmma__emit_line(out, 1,
                     "/* one stage: copy, wait, compute, and a barrier before the next copy */");
    tcmma__emit_line(out, 1, "%s", tcmma__table_spell(dl, TCMMA__SPELL_KEEP_LOOP));
    tcmma__emit_line(out, 1, "for (int %skt = 0; %skt < %d; ++%skt) {", P, P, KT, P);
    tcmma__emit_gemm_load_stage(g, dl, "0", P "kt", 2, out);
    tcmma__emit_gemm_commit(dl, 2, out);
    tcmma__emit_gemm_wait(dl, 0, 2, out);
    tcmma__emit_line(out, 2, "%s;", sync);
    tcmma_status st = compute(k, "0", 2, out, err);
    if (st != TCMMA_OK) return st;
    tcmma__emit_line(out, 2, "%s;", sync);
    tcmma__emit_line(out, 1, "}");
    return TCMMA_OK;
  }
  tcmma__emit_line(out, 1, "/* prologue: k tiles 0..%d in flight, one commit group each */", S - 2);
  for (int s = 0; s < S - 1; s++) {
    char t[16];
    snprintf(t, sizeof t, "%d", s);
    if (s < KT) tcmma__emit_gemm_load_stage(g, dl, t, t, 1, out);
    tcmma__emit_gemm_commit(dl, 1, out);
  }
  tcmma__emit_line(out, 1, "%s", tcmma__table_spell(dl, TCMMA__SPELL_KEEP_LOOP));
  tcmma__emit_line(out, 1, "for (int %skt = 0; %skt < %d; ++%skt) {", P, P, KT, P);
  tcmma__emit_line(out, 2,
                   "/* k tile kt has landed (%d younger groups may be in flight); the "
                   "barrier also ends every warp's reads of the stage refilled next */",
                   S - 2);
  tcmma__emit_gemm_wait(dl, S - 2, 2, out);
  tcmma__emit_line(out, 2, "%s;", sync);
  tcmma__emit_line(out, 2, "if (%skt + %d < %d)", P, S - 1, KT);
  char stage[64], tile[64];
  snprintf(stage, sizeof stage, "(%skt + %d) %% %d", P, S - 1, S);
  snprintf(tile, sizeof tile, "%skt + %d", P, S - 1);
  tcmma__emit_gemm_load_stage(g, dl, stage, tile, 3, out);
  tcmma__emit_gemm_commit(dl, 2, out);
  snprintf(stage, sizeof stage, "%skt %% %d", P, S);
  tcmma_status st = compute(k, stage, 2, out, err);
  if (st != TCMMA_OK) return st;
  tcmma__emit_line(out, 1, "}");
  tcmma__emit_gemm_wait(dl, 0, 1, out);
  tcmma__emit_line(out, 1, "%s; /* every warp is done with the stages: the epilogue reuses them */",
                   sync);
  return TCMMA_OK;
}

/* The block tile's first row and column. Blocks run in groups of
 * TCMMA_GEMM_GROUP_ROWS block rows, down each column of the group first, so
 * the blocks resident at once share rows of A and columns of B in L2
 * instead of sweeping all of B for every row of blocks. */
static void block_origin(const gemm_kernel *k, tcmma_buf *out) {
  const tcmma_gemm_plan *g = k->g;
  const char *bx = tcmma__table_spell(k->dl, TCMMA__SPELL_BLOCK_IDX),
             *by = tcmma__table_spell(k->dl, TCMMA__SPELL_BLOCK_IDX_Y);
  unsigned gx = g->grid[0], gy = g->grid[1], G = TCMMA_GEMM_GROUP_ROWS;
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

static tcmma_status kernel_text(gemm_kernel *k, tcmma_buf *out, tcmma_error *err) {
  const tcmma_gemm_plan *g = k->g;
  const tcmma_gemm_call *c = &g->call;
  tcmma_dialect dl = k->dl;
  const char *td = tcmma__table_spell_type(dl, tcmma__emit_gemm_out_prec(c, &k->epi)),
             *tc = tcmma__table_spell_type(dl, c->d.prec),
             *ta = tcmma__table_spell_type(dl, c->a.prec),
             *tb = tcmma__table_spell_type(dl, c->b.prec);
  tcmma_buf_printf(out, "/* %s: D[%dx%d] = alpha * A[%dx%d] B[%dx%d] + beta * C (%s): d %s, a %s%s, "
                   "b %s%s; block %dx%dx%d, warps %dx%d, %d stage%s, %s; %d threads, grid "
                   "%ux%u, %zu bytes of dynamic shared memory */\n",
                   k->name, c->m, c->n, c->m, c->k, c->k, c->n, tcmma_arm_marker(g->arm),
                   tcmma_prec_name(c->d.prec), tcmma_prec_name(c->a.prec),
                   c->a.transposed ? ",t" : "", tcmma_prec_name(c->b.prec),
                   c->b.transposed ? ",t" : "", c->block_m, c->block_n, c->block_k, c->warps_m,
                   c->warps_n, c->stages, c->stages == 1 ? "" : "s",
                   g->predicated ? "predicated edges" : "whole tiles", g->threads, g->grid[0],
                   g->grid[1], g->shared_bytes);
  tcmma_prec precs[3] = {c->d.prec, c->a.prec, c->b.prec};
  tcmma__emit_includes(precs, g->arm, dl, true, out);
  tcmma__emit_gemm_epilogue_prelude(g, &k->epi, dl, out);
  tcmma_buf_printf(out,
                   "\n%s %s(%d, 1)\n%s(%s *d, const %s *a, const %s *b, const %s *c, "
                   "float alpha, float beta",
                   tcmma__table_spell(dl, TCMMA__SPELL_KERNEL),
                   tcmma__table_spell(dl, TCMMA__SPELL_LAUNCH_BOUNDS), g->threads, k->name, td, ta,
                   tb, tc);
  tcmma__emit_gemm_epilogue_params(g, &k->epi, dl, out);
  tcmma_buf_printf(out, ")\n{\n");
  tcmma_buf_printf(out, "  %s %ssmem%s;\n", tcmma__table_spell(dl, TCMMA__SPELL_DYN_SHARED), P,
                   tcmma__table_spell(dl, TCMMA__SPELL_DYN_SHARED_END));
  tcmma_buf_printf(out, "  const int %stid = (int)%s;\n", P,
                   tcmma__table_spell(dl, TCMMA__SPELL_THREAD_IDX));
  block_origin(k, out);
  tcmma_buf decls = {0};
  tcmma_render_ctx dc = warp_ctx(k, &decls);
  tcmma_status st = tcmma_render_frag_decl(&dc, TCMMA_OPERAND_C, P "acc", 0, err);
  if (st == TCMMA_OK)
    st = tcmma_render_frag_decl(&dc, TCMMA_OPERAND_A, P "af", 2, err);
  if (st == TCMMA_OK)
    st = tcmma_render_frag_decl(&dc, TCMMA_OPERAND_B, P "bf", 2, err);
  if (st == TCMMA_OK)
    st = tcmma_render_acc_init(&dc, P "acc", "(float *)" P "smem", err);
  if (st == TCMMA_OK) tcmma__emit_append_indented(out, tcmma_buf_str(&decls), 1);
  tcmma_buf_free(&decls);
  if (st == TCMMA_OK) st = main_loop(k, out, err);
  if (st != TCMMA_OK) return st;
  tcmma_buf store = {0};
  tcmma_render_ctx sc = warp_ctx(k, &store);
  st = tcmma_render_acc_store(&sc, P "acc", "(float *)" P "smem", err);
  if (st == TCMMA_OK) tcmma__emit_append_indented(out, tcmma_buf_str(&store), 1);
  tcmma_buf_free(&store);
  if (st != TCMMA_OK) return st;
  tcmma__emit_line(out, 1, "%s;", tcmma__table_spell(dl, TCMMA__SPELL_SYNCTHREADS));
  tcmma__emit_gemm_epilogue(g, &k->epi, dl, 1, out);
  tcmma_buf_printf(out, "}\n");
  if (dl == TCMMA_DIALECT_HOST) {
    tcmma_buf_printf(out,
                     "\n/* The simulator's entry: args is a void *[6] of d, a, b, c, &alpha, "
                     "&beta%s. */\nvoid %s_entry(void *args)\n{\n"
                     "  void **p = (void **)args;\n"
                     "  %s((%s *)p[0], (const %s *)p[1], (const %s *)p[2], (const %s *)p[3],\n"
                     "      *(const float *)p[4], *(const float *)p[5]",
                     k->epi.count ? ", then the epilogue's arguments" : "", k->name, k->name,
                     td, ta, tb, tc);
    tcmma__emit_gemm_epilogue_entry_args(g, &k->epi, dl, 6, out);
    tcmma_buf_printf(out, ");\n}\n");
  }
  return TCMMA_OK;
}

tcmma_status tcmma_render_gemm(const tcmma_render_ctx *ctx, const tcmma_gemm_plan *plan,
                               tcmma_error *err) {
  return tcmma_render_gemm_epilogue(ctx, plan, NULL, 0, err);
}

tcmma_status tcmma_render_gemm_epilogue(const tcmma_render_ctx *ctx, const tcmma_gemm_plan *plan,
                                        const tcmma_epilogue_op *ops, int count, tcmma_error *err) {
  tcmma__gemm_epi e = {ops, count};
  tcmma_status st = tcmma__emit_ctx_check(ctx, err);
  if (st != TCMMA_OK) return st;
  if ((st = tcmma__emit_gemm_check(plan, &e, err)) != TCMMA_OK) return st;
  gemm_kernel k;
  memset(&k, 0, sizeof k);
  k.g = plan, k.dl = ctx->dialect, k.epi = e;
  k.name = plan->call.name ? plan->call.name : "tcmma_gemm";
  tcmma_call w;
  tcmma__emit_gemm_warp_call(plan, &k.x, &w);
  tcmma_plan wp;
  st = tcmma_plan_call(&w, &wp, err);
  if (st != TCMMA_OK) return st; /* an accepted GEMM plan's warp call plans */
  k.warp = wp; /* its call's origin expressions point into k.x */
  st = kernel_text(&k, ctx->out, err);
  if (st == TCMMA_OK && ctx->out->failed) st = tcmma_fail(err, TCMMA_NO_MEMORY, "out of memory");
  return st;
}
