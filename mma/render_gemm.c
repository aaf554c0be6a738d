/* A whole GEMM kernel from an accepted plan (docs/emit.md, GEMM): one block
 * tile per CUDA block; a cp.async ring of `stages` k tiles (one commit per
 * k tile, wait_group(stages - 2) and one barrier per k tile); each warp's
 * tile from the tile-MMA pieces with its fragments double-buffered across
 * k steps; the accumulators through the f32 shared tile to the epilogue.
 * Everything about fragments, layouts and swizzles comes from the pieces
 * and the swizzle atoms: this file only composes them. */
#include <stdio.h>
#include <string.h>
#include "abi.h"
#include "emit.h"
#include "gemm_epilogue.h"
#include "gemm_rules.h"

typedef struct {
  const tcmma_gemm_plan *g;
  tcmma__emit_gemm_form f; /* the plan's options and what they gave */
  tcmma_plan warp;
  tcmma__emit_gemm_exprs x;
  bool packed;       /* packed stages: fragments load through the byte twin's plan */
  tcmma_plan twin;
  tcmma__emit_gemm_exprs tx;
  tcmma_dialect dl;
  tcmma_names names;
  const char *name;
} gemm_kernel;

#define P TCMMA__GEMM_P

/* The warp plan's blocks, named from the kernel's one context, into out. */
static tcmma_render_ctx warp_ctx(gemm_kernel *k, tcmma_buf *out) {
  return tcmma_render_ctx_make(&k->warp, k->dl, &k->names, out);
}

/* The pointers `as` and `bs` (with `pre` before their names: "n" gives
 * nas, nbs) to the a and b tiles of stage `stage`. */
static void stage_pointers(const gemm_kernel *k, const char *pre, const char *stage, int depth,
                           tcmma_buf *out) {
  const tcmma_gemm_plan *g = k->g;
  const char *ta = tcmma__table_spell_type(k->dl, g->call.a.prec),
             *tb = tcmma__table_spell_type(k->dl, g->call.b.prec);
  tcmma__emit_line(out, depth, "const %s *const %s%sas = (const %s *)(%ssmem + (%s) * %zu);", ta,
                   P, pre, ta, P, stage, g->stage_bytes);
  long b_off = g->a_rows * g->a_cols * tcmma_prec_bytes(g->call.a.prec);
  tcmma__emit_line(out, depth, "const %s *const %s%sbs = (const %s *)(%ssmem + (%s) * %zu + %ld);",
                   tb, P, pre, tb, P, stage, g->stage_bytes, b_off);
  if (!tcmma__emit_gemm_scale_block(g)) return;
  /* the block scales' tiles after b's (mma/render_gemm_scales.c) */
  long sa_off = b_off + g->b_rows * g->b_cols * tcmma_prec_bytes(g->call.b.prec);
  long sb_off = sa_off + (long)tcmma__emit_gemm_scale_tile_bytes(g, TCMMA_OPERAND_A);
  tcmma__emit_line(out, depth, "const unsigned char *%s%ssas = %ssmem + (%s) * %zu + %ld;",
                   P, pre, P, stage, g->stage_bytes, sa_off);
  tcmma__emit_line(out, depth, "const unsigned char *%s%ssbs = %ssmem + (%s) * %zu + %ld;",
                   P, pre, P, stage, g->stage_bytes, sb_off);
}

/* Operand op's fragments of k step kstep into frag from the stage at base:
 * the warp plan's load (with its scales), or for packed stages the byte
 * twin's load, then the warp plan's scales. */
static tcmma_status load_frag(gemm_kernel *k, tcmma_buf *body, tcmma_operand op,
                              const char *frag, const char *base, const char *kstep,
                              tcmma_error *err) {
  tcmma_render_ctx bc = warp_ctx(k, body);
  if (!k->packed) return tcmma_render_frag_load(&bc, op, frag, base, kstep, err);
  tcmma_render_ctx tc = tcmma_render_ctx_make(&k->twin, k->dl, &k->names, body);
  tcmma_status st = tcmma_render_frag_load(&tc, op, frag, base, kstep, err);
  /* the stages' scale tiles are 16-byte aligned, rows of whole tiles' scales */
  return st == TCMMA_OK ? tcmma__emit_render_scales(&bc, op, frag, kstep, true, err) : st;
}

/* One k tile's products from the stage `stage`: fragments of k step s + 1
 * load while step s multiplies. */
static tcmma_status compute(gemm_kernel *k, const char *stage, int depth, tcmma_buf *out,
                            tcmma_error *err) {
  const tcmma_plan *w = &k->warp;
  tcmma__emit_line(out, depth, "{");
  stage_pointers(k, "", stage, depth + 1, out);
  tcmma_buf body = {0};
  tcmma_render_ctx bc = warp_ctx(k, &body);
  tcmma_status st = load_frag(k, &body, TCMMA_OPERAND_A, P "af[0]", P "as", "0", err);
  if (st == TCMMA_OK) st = load_frag(k, &body, TCMMA_OPERAND_B, P "bf[0]", P "bs", "0", err);
  /* the k steps written out, each a block with its own constant step:
   * under `#pragma unroll` NVRTC leaves some loops rolled (large gathered
   * bodies), and the fragment buffers, indexed by the step, then live in
   * local memory while the loop runs each step's mma once (issue #21) */
  for (int i = 0; st == TCMMA_OK && i < w->kt; i++) {
    tcmma_buf_printf(&body, "{\nconst int %ss = %d;\n", P, i);
    if (i + 1 < w->kt) {
      st = load_frag(k, &body, TCMMA_OPERAND_A, P "af[(" P "s + 1) & 1]", P "as", P "s + 1",
                     err);
      if (st == TCMMA_OK)
        st = load_frag(k, &body, TCMMA_OPERAND_B, P "bf[(" P "s + 1) & 1]", P "bs", P "s + 1",
                       err);
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

/* cp.async's commit and wait, where the loader has any cp.async copy. */
static void commit(const gemm_kernel *k, int depth, tcmma_buf *out) {
  if (tcmma__emit_gemm_async(&k->f)) tcmma__emit_gemm_commit(k->dl, depth, out);
}
static void wait_groups(const gemm_kernel *k, int n, int depth, tcmma_buf *out) {
  if (tcmma__emit_gemm_async(&k->f)) tcmma__emit_gemm_wait(k->dl, n, depth, out);
}

/* The k tiles of the block's loop into KT: a constant, or counted at run
 * time (from the k argument, or of this block's K slice: from
 * __tcmma_g_kt0 on); whether counted at run time. */
static bool tile_count(const gemm_kernel *k, char *KT, size_t cap, tcmma_buf *out) {
  const tcmma_gemm_plan *g = k->g;
  const tcmma_gemm_info *i = &k->f.i;
  int BK = g->call.block_k, S = i->split_k;
  if (!i->shape_args && S == 1) return snprintf(KT, cap, "%d", g->k_tiles), false;
  snprintf(KT, cap, "%sktiles", P);
  char all[48];
  if (i->shape_args) snprintf(all, sizeof all, "(k + %d) / %d", BK - 1, BK);
  else snprintf(all, sizeof all, "%d", g->k_tiles);
  if (S == 1) {
    tcmma__emit_line(out, 1, "const int %s = %s;", KT, all);
    return true;
  }
  char per[48], total[48];
  if (i->shape_args) {
    tcmma__emit_line(out, 1, "const int %sktall = %s, %sper = (%sktall + %d) / %d;", P, all, P,
                     P, S - 1, S);
    snprintf(per, sizeof per, "%sper", P), snprintf(total, sizeof total, "%sktall", P);
  } else {
    snprintf(per, sizeof per, "%d", i->k_tiles_per_split);
    snprintf(total, sizeof total, "%d", g->k_tiles);
  }
  tcmma__emit_line(out, 1, "/* this K slice's k tiles: %s from tile %skt0 (the last slice may "
                   "have fewer, or none) */", per, P);
  tcmma__emit_line(out, 1, "const int %skt0 = %sslice * %s;", P, P, per);
  tcmma__emit_line(out, 1, "const int %s = %s - %skt0 < %s ? (%s - %skt0 > 0 ? %s - %skt0 : 0) : "
                   "%s;", KT, total, P, per, total, P, total, P, per);
  return true;
}

/* k tile `t` of the whole reduction as text: t itself, or from this K
 * slice's first tile. */
static void tile_of(const gemm_kernel *k, const char *t, char *buf, size_t cap) {
  if (k->f.i.split_k > 1) snprintf(buf, cap, "%skt0 + %s", P, t);
  else snprintf(buf, cap, "%s", t);
}

/* The one-stage loop: copy, wait, compute, and a barrier before the next
 * copy. */
static tcmma_status one_stage(gemm_kernel *k, const char *KT, tcmma_buf *out, tcmma_error *err) {
  tcmma_dialect dl = k->dl;
  const char *sync = tcmma__table_spell(dl, TCMMA__SPELL_SYNCTHREADS);
  tcmma__emit_line(out, 1, "/* one stage: copy, wait, compute, and a barrier before the next copy */");
  tcmma__emit_line(out, 1, "%s", tcmma__table_spell(dl, TCMMA__SPELL_KEEP_LOOP));
  tcmma__emit_line(out, 1, "for (int %skt = 0; %skt < %s; ++%skt) {", P, P, KT, P);
  char tile[64];
  tile_of(k, P "kt", tile, sizeof tile);
  tcmma__emit_gemm_load_stage(&k->f, dl, "0", tile, 2, out);
  commit(k, 2, out);
  wait_groups(k, 0, 2, out);
  tcmma__emit_line(out, 2, "%s;", sync);
  tcmma_status st = compute(k, "0", 2, out, err);
  if (st != TCMMA_OK) return st;
  tcmma__emit_line(out, 2, "%s;", sync);
  tcmma__emit_line(out, 1, "}");
  return TCMMA_OK;
}

/* The ring's refill at depth: k tile kt + S - 1 into stage `stage`, one
 * commit group whether or not there is such a tile (the wait counts
 * groups). */
static void refill(const gemm_kernel *k, const char *KT, const char *stage, int depth,
                   tcmma_buf *out) {
  int S = k->g->call.stages;
  char next[64], tile[96];
  snprintf(next, sizeof next, "%skt + %d", P, S - 1);
  tile_of(k, next, tile, sizeof tile);
  tcmma__emit_line(out, depth, "if (%skt + %d < %s)", P, S - 1, KT);
  tcmma__emit_gemm_load_stage(&k->f, k->dl, stage, tile, depth + 1, out);
  commit(k, depth, out);
}

/* The ring's steady state, unrolled by its S stages: trips of S k tiles
 * from a k tile that is a multiple of S, while every refill of the trip
 * is a k tile (kt + 2S - 2 < KT), so that each k tile's stage read and
 * refilled is a constant (no stage index, its wrap, nor the refill's
 * guard), ptxas folds the stages' offsets into the LDSM and LDGSTS shared
 * immediates, and the S k tiles' global addresses share registers
 * (LDGSTS folds a global immediate of about 2 KB, less than a row of the
 * matrix: each copy row needs its own 64-bit address, made once a trip
 * instead of once a k tile). It leaves kt a multiple of S: the loop after
 * it starts at stage 0 and runs the last k tiles (fewer than 2S - 1). Not
 * where ptxas emulates the arm (fp8 on sm_90): its conversions already take
 * the registers, and the unrolled trip spilled (255 registers, 180 bytes
 * for 128x128x64 e4m3 over 4x2 warps). tools/bench_gemm_static.c's ideal
 * counts a trip as this does. */
static tcmma_status unrolled_loop(gemm_kernel *k, const char *KT, bool args, tcmma_buf *out,
                                  tcmma_error *err) {
  int S = k->g->call.stages;
  if (!tcmma__emit_gemm_unrolled(k->g)) return TCMMA_OK;
  if (!args && k->g->k_tiles < 2 * S - 1) return TCMMA_OK; /* no trip: too few k tiles */
  tcmma_dialect dl = k->dl;
  const char *sync = tcmma__table_spell(dl, TCMMA__SPELL_SYNCTHREADS);
  tcmma__emit_line(out, 1, "/* the steady state, %d k tiles a trip at constant stages: every "
                   "refill of the trip is a k tile */", S);
  tcmma__emit_line(out, 1, "%s", tcmma__table_spell(dl, TCMMA__SPELL_KEEP_LOOP));
  tcmma__emit_line(out, 1, "for (; %skt + %d < %s; %skt += %d) {", P, 2 * S - 2, KT, P, S);
  for (int j = 0; j < S; j++) {
    char rs[16], ws[16], next[64], tile[96];
    snprintf(rs, sizeof rs, "%d", j);
    snprintf(ws, sizeof ws, "%d", (j + S - 1) % S);
    snprintf(next, sizeof next, "%skt + %d", P, j + S - 1);
    tile_of(k, next, tile, sizeof tile);
    tcmma__emit_line(out, 2, "/* k tile kt + %d from stage %d; k tile kt + %d into stage %d */",
                     j, j, j + S - 1, (j + S - 1) % S);
    wait_groups(k, S - 2, 2, out);
    tcmma__emit_line(out, 2, "%s;", sync);
    tcmma__emit_gemm_load_stage(&k->f, dl, ws, tile, 2, out);
    commit(k, 2, out);
    tcmma_status st = compute(k, rs, 2, out, err);
    if (st != TCMMA_OK) return st;
  }
  tcmma__emit_line(out, 1, "}");
  return TCMMA_OK;
}

/* The k loop over the stage ring (k tiles: a constant, or from the k
 * argument of a shape-argument kernel): each k tile waits for its copies and
 * crosses the barrier first, then refills the ring and multiplies. (A
 * pipelined ring, its barrier before the last k step so that the next k
 * tile's first step loads during it, measured with `tcmma bench gemm
 * --static`: 134 instead of 139 instructions per warp and k tile for the
 * 128x128x32 bf16 kernel, but 4-18 more registers, above the plan's
 * estimate for 128x256 and 256x128 tiles and B k x n, and more
 * instructions there: docs/emit.md, GEMM main loop. Loading the next k
 * tile before the barrier would read other threads' copies before they are
 * known to have landed: wait_group covers the thread's own copies only.) */
static tcmma_status main_loop(gemm_kernel *k, tcmma_buf *out, tcmma_error *err) {
  const tcmma_gemm_plan *g = k->g;
  tcmma_dialect dl = k->dl;
  int S = g->call.stages;
  char KT[64];
  bool args = tile_count(k, KT, sizeof KT, out);
  tcmma__emit_gemm_loader_decls(&k->f, dl, 1, out);
  const char *sync = tcmma__table_spell(dl, TCMMA__SPELL_SYNCTHREADS);
  if (S == 1) return one_stage(k, KT, out, err);
  tcmma__emit_line(out, 1, "/* prologue: k tiles 0..%d in flight, one commit group each */", S - 2);
  for (int s = 0; s < S - 1; s++) {
    char t[48], n[16];
    snprintf(n, sizeof n, "%d", s);
    tile_of(k, n, t, sizeof t);
    if (args) tcmma__emit_line(out, 1, "if (%d < %s)", s, KT);
    if (args || s < g->k_tiles) tcmma__emit_gemm_load_stage(&k->f, dl, n, t, args ? 2 : 1, out);
    commit(k, 1, out);
  }
  /* the stages read (k tile kt's) and refilled (k tile kt + S - 1's): a
   * power of two masks kt; the others step by one and wrap instead of kt %
   * S, a division per k tile and per use (with 4 stages the stepped pair
   * cost ptxas 27 more registers on a 128x256 tile) */
  bool pow2 = (S & (S - 1)) == 0;
  char rs[64], ws[64];
  snprintf(rs, sizeof rs, pow2 ? "%skt & %d" : "%sstage_rd", P, S - 1);
  snprintf(ws, sizeof ws, pow2 ? "(%skt + %d) & %d" : "%sstage_wr", P, S - 1, S - 1);
  if (!pow2)
    tcmma__emit_line(out, 1, "int %sstage_rd = 0, %sstage_wr = %d; /* the stage read, the stage refilled */",
                     P, P, S - 1);
  tcmma__emit_line(out, 1, "int %skt = 0;", P);
  tcmma_status st = unrolled_loop(k, KT, args, out, err);
  if (st != TCMMA_OK) return st;
  tcmma__emit_line(out, 1, "%s", tcmma__table_spell(dl, TCMMA__SPELL_KEEP_LOOP));
  tcmma__emit_line(out, 1, "for (; %skt < %s; ++%skt) {", P, KT, P);
  tcmma__emit_line(out, 2, "/* k tile kt has landed (%d younger groups may be in flight); the "
                   "barrier also ends every warp's reads of the stage refilled next */", S - 2);
  wait_groups(k, S - 2, 2, out);
  tcmma__emit_line(out, 2, "%s;", sync);
  refill(k, KT, ws, 2, out);
  st = compute(k, rs, 2, out, err);
  if (st != TCMMA_OK) return st;
  if (!pow2) {
    tcmma__emit_line(out, 2, "%sstage_wr = %sstage_rd;", P, P);
    tcmma__emit_line(out, 2, "%sstage_rd = %sstage_rd == %d ? 0 : %sstage_rd + 1;", P, P, S - 1, P);
  }
  tcmma__emit_line(out, 1, "}");
  wait_groups(k, 0, 1, out);
  tcmma__emit_line(out, 1, "%s; /* every warp is done with the stages: the epilogue reuses them */",
                   sync);
  return TCMMA_OK;
}

/* The kernel's title comment, headers and signature, through the opening
 * brace (mma/render_gemm_head.c). */
static void signature(const gemm_kernel *k, tcmma_buf *out) {
  const tcmma_gemm_plan *g = k->g;
  const tcmma_gemm_call *c = &g->call;
  const tcmma_gemm_info *i = &k->f.i;
  char shape[160];
  if (i->shape_args)
    snprintf(shape, sizeof shape, "D[m x n] = alpha * A[m x k] B[k x n] + beta * C, any shape "
             "(%s; rows aligned a %d, b %d, c and d %d bytes)", g->predicated ? "predicated edges"
             : "whole tiles only", i->a_align, i->b_align, i->d_align);
  else
    snprintf(shape, sizeof shape, "D[%dx%d] = alpha * A[%dx%d] B[%dx%d] + beta * C (%s)", c->m,
             c->n, c->m, c->k, c->k, c->n, g->predicated ? "predicated edges" : "whole tiles");
  tcmma_buf_printf(out, "/* %s: %s: %s: d %s, a %s%s, b %s%s; block %dx%dx%d, warps %dx%d, %d "
                   "stage%s; %d threads, grid %ux%u, %zu bytes of dynamic shared memory */\n",
                   k->name, tcmma_arm_marker(g->arm), shape, tcmma_prec_name(c->d.prec),
                   tcmma_prec_name(c->a.prec), c->a.transposed ? ",t" : "",
                   tcmma_prec_name(c->b.prec), c->b.transposed ? ",t" : "", c->block_m,
                   c->block_n, c->block_k, c->warps_m, c->warps_n, c->stages,
                   c->stages == 1 ? "" : "s", g->threads, g->grid[0], g->grid[1],
                   g->shared_bytes);
  tcmma__emit_gemm_prelude(&k->f, k->dl, out);
  tcmma_kernel_attrs attrs = TCMMA_KERNEL_ATTRS_INIT(.max_threads = g->threads, .min_blocks = 1);
  tcmma__emit_gemm_signature(&k->f, k->dl, k->name, &attrs, false, out);
}

static tcmma_status kernel_text(gemm_kernel *k, tcmma_buf *out, tcmma_error *err) {
  tcmma_dialect dl = k->dl;
  signature(k, out);
  tcmma_buf_printf(out, "  %s %ssmem%s;\n", tcmma__table_spell(dl, TCMMA__SPELL_DYN_SHARED), P,
                   tcmma__table_spell(dl, TCMMA__SPELL_DYN_SHARED_END));
  tcmma_buf_printf(out, "  const int %stid = (int)%s;\n", P,
                   tcmma__table_spell(dl, TCMMA__SPELL_THREAD_IDX));
  tcmma__emit_gemm_block_origin(&k->f, k->dl, out);
  tcmma__emit_gemm_batch_base(&k->f, dl, 1, out);
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
  tcmma__emit_gemm_split_reduce(&k->f, dl, 1, out);
  tcmma__emit_gemm_epilogue(&k->f, dl, 1, out);
  tcmma_buf_printf(out, "}\n");
  if (dl == TCMMA_DIALECT_HOST) tcmma__emit_gemm_entry(&k->f, dl, k->name, false, out);
  return TCMMA_OK;
}

tcmma_status tcmma_render_gemm_opts(const tcmma_render_ctx *ctx, const tcmma_gemm_plan *plan,
                                    const tcmma_gemm_opts *opts, tcmma_error *err) {
  tcmma_status st = tcmma__emit_ctx_check(ctx, err);
  if (st != TCMMA_OK) return st;
  gemm_kernel k;
  memset(&k, 0, sizeof k);
  if ((st = tcmma__emit_gemm_form_take(plan, opts, &k.f, err)) != TCMMA_OK) return st;
  if (k.f.i.kernel == TCMMA_GEMM_KERNEL_WGMMA)
    return tcmma__emit_render_gemm_wgmma(&k.f, ctx->dialect, ctx->out, err);
  if (k.f.i.kernel == TCMMA_GEMM_KERNEL_TCGEN05)
    return tcmma__emit_render_gemm_tcgen05(&k.f, ctx->dialect, ctx->out, err);
  k.g = plan, k.dl = ctx->dialect;
  k.name = plan->call.name ? plan->call.name : "tcmma_gemm";
  tcmma_call w;
  tcmma__emit_gemm_warp_call(plan, &k.x, &w);
  tcmma_plan wp;
  st = tcmma_plan_call(&w, &wp, err);
  if (st != TCMMA_OK) return st; /* an accepted GEMM plan's warp call plans */
  k.warp = wp; /* its call's origin expressions point into k.x */
  k.packed = tcmma__emit_gemm_pack(plan) > 1;
  if (k.packed) {
    if ((st = tcmma__emit_gemm_twin_call(plan, &k.tx, &w)) != TCMMA_OK ||
        (st = tcmma_plan_call(&w, &k.twin, err)) != TCMMA_OK)
      return tcmma_fail(err, TCMMA_INVALID, "render gemm: the packed stages' byte twin does "
                        "not plan");
  }
  st = kernel_text(&k, ctx->out, err);
  if (st == TCMMA_OK && ctx->out->failed) st = tcmma_fail(err, TCMMA_NO_MEMORY, "out of memory");
  return st;
}

tcmma_status tcmma_render_gemm(const tcmma_render_ctx *ctx, const tcmma_gemm_plan *plan,
                               tcmma_error *err) {
  return tcmma_render_gemm_opts(ctx, plan, NULL, err);
}
