/* The Hopper GEMM's text (docs/emit.md, "The Hopper GEMM"), from a WGMMA
 * plan (mma/gemm_plan_wgmma.c): warpgroup 0 is the producer, whose one
 * thread warp 0 elects (elect.sync) waits for a stage's empty mbarrier, expects its bytes on the full one and
 * loads the k tile's A and B boxes there with TMA (the tensor maps are the
 * kernel's last two arguments); every other warpgroup is a consumer that
 * waits for the full mbarrier, runs the tile product (mma/render_wgmma.c)
 * on its m64 x n strip of the stage, and once wgmma.wait_group 1 says the
 * previous k tile's products are done gives that stage back (one arrival
 * per warp on its empty mbarrier). The epilogue runs from the accumulator
 * registers, walking them as the accumulator layout of tables/wgmma.c
 * places them (checked here for every thread and register), straight to
 * global memory. The helpers before the kernel, between the two comments
 * TCMMA__GEMM_HELPERS_BEGIN and _END (each dialect's own: inline asm, or
 * the simulator's calls), are tcmma_render_tma_helpers', the tile product
 * (tcmma_wgmma_render) and NAME_drain; the kernel itself is one text in
 * both dialects but for the words of tables/dialect.def
 * (tests/test_sim_dialect.c). */
#include <stdio.h>
#include <string.h>
#include "emit.h"
#include "gemm_epilogue.h"
#include "gemm_plan.h"
#include "gemm_rules.h"
#include "tcmma/kernel_attrs.h"
#include "tcmma/tma.h"
#include "tcmma/wgmma.h"

#define P TCMMA__GEMM_P

typedef struct {
  const tcmma__emit_gemm_form *f;
  const tcmma_gemm_plan *g;
  const tcmma_gemm_info *i;
  tcmma_dialect dl;
  const char *name;
  char tile[80];      /* the tile product's function */
  char drain[80];     /* the function that waits for the last products */
  int regs;           /* accumulator registers per consumer thread */
  int wg_rows;        /* consumer warpgroups along m */
  /* the accumulator layout as the epilogue walks it (checked by layout_of):
   * thread t's first element at row ROW_W * (warp of t) + ROW_L * (lane /
   * LANES), column COL_L * (lane % LANES); register x = 4q + 2h + j at that
   * plus h * ROW_H rows and q * COL_Q + j * COL_J columns */
  int row_w, row_l, col_l, row_h, col_q, col_j;
} wk;

enum { LANES = 4, PER_BLOCK = 4 };

/* The accumulator layout of tables/wgmma.c as the epilogue's strides;
 * TCMMA_INVALID when some thread's register is not where they put it. */
static tcmma_status layout_of(wk *k, tcmma_error *err) {
  tcmma_wgmma w = k->i->wgmma;
  int n = k->i->wgmma_n, r0, c0, r, c;
#define AT(t, x, R, C) tcmma_wgmma_acc_layout(w, n, t, x, 0, R, C, NULL)
  AT(0, 0, &r0, &c0);
  AT(TCMMA_WARP_SIZE, 0, &r, &c), k->row_w = r - r0;
  AT(LANES, 0, &r, &c), k->row_l = r - r0;
  AT(1, 0, &r, &c), k->col_l = c - c0;
  AT(0, 2, &r, &c), k->row_h = r - r0;
  AT(0, PER_BLOCK, &r, &c), k->col_q = c - c0;
  AT(0, 1, &r, &c), k->col_j = c - c0;
  for (int t = 0; t < TCMMA_WARPGROUP_SIZE; t++)
    for (int x = 0; x < k->regs; x++) {
      int lane = t % TCMMA_WARP_SIZE, q = x / PER_BLOCK, h = x % PER_BLOCK / 2, j = x % 2;
      int row = k->row_w * (t / TCMMA_WARP_SIZE) + k->row_l * (lane / LANES) + h * k->row_h,
          col = k->col_l * (lane % LANES) + q * k->col_q + j * k->col_j;
      if (AT(t, x, &r, &c) != TCMMA_OK || r != row || c != col || r0 || c0)
        return tcmma_fail(err, TCMMA_INVALID, "render gemm: %s's accumulator element %d of "
                          "thread %d is not where the epilogue walks it", tcmma_wgmma_marker(w),
                          x, t);
    }
#undef AT
  if (k->col_j != 1) /* the epilogue's words index column gc + j */
    return tcmma_fail(err, TCMMA_INVALID, "render gemm: %s's register pairs are not adjacent "
                      "columns", tcmma_wgmma_marker(w));
  return TCMMA_OK;
}

/* The title comment: what the kernel computes and how it is launched. */
static void title(const wk *k, tcmma_buf *out) {
  const tcmma_gemm_plan *g = k->g;
  const tcmma_gemm_call *c = &g->call;
  char shape[96];
  tcmma__emit_gemm_shape_text(k->f, shape, sizeof shape);
  tcmma_buf_printf(out, "/* %s: %s (%s, warp-specialised): %s; d %s, a %s%s, b %s%s; block %dx%dx%d: "
                   "%d consumer warpgroups of m%d x n%d and a TMA producer, %d stages swizzled "
                   "%s bytes (b %s) behind full/empty mbarriers; %d threads, grid %ux%u, %zu bytes of "
                   "dynamic shared memory; the tensor maps A and B last */\n",
                   k->name, tcmma_wgmma_marker(k->i->wgmma), tcmma_gemm_kernel_name(k->i->kernel),
                   shape, tcmma_prec_name(c->d.prec), tcmma_prec_name(c->a.prec),
                   c->a.transposed ? ",t" : "", tcmma_prec_name(c->b.prec),
                   c->b.transposed ? ",t" : "", c->block_m,
                   c->block_n, c->block_k,
                   k->i->consumer_warpgroups, tcmma_wgmma_get(k->i->wgmma)->m, k->i->wgmma_n,
                   c->stages, tcmma_swizzle_name(g->a_swizzle), tcmma_swizzle_name(g->b_swizzle),
                   g->threads, g->grid[0],
                   g->grid[1], g->shared_bytes);
}

/* The stages at the swizzle's repeat in the shared window, the mbarriers
 * after them; thread 0 initialises them before the block's one barrier. */
static void shared_layout(const wk *k, tcmma_buf *out) {
  const tcmma_gemm_plan *g = k->g;
  int S = g->call.stages;
  size_t align = tcmma__emit_gemm_tma_align(g);
  tcmma_dialect dl = k->dl;
  tcmma__emit_line(out, 1, "/* the stages from the first %zu-byte boundary of the shared window "
                   "(the swizzle's repeat), then a full and an empty mbarrier per stage */", align);
  tcmma__emit_line(out, 1, "unsigned char *%sst = %ssmem + ((%zuu - ((unsigned)%s(%ssmem) & "
                   "%zuu)) & %zuu);", P, P, align, tcmma__table_spell(dl, TCMMA__SPELL_CVTA_SHARED),
                   P, align - 1, align - 1);
  tcmma__emit_line(out, 1, "unsigned long long *const %sfull = (unsigned long long *)(%sst + %zu);",
                   P, P, g->stage_bytes * (size_t)S);
  tcmma__emit_line(out, 1, "unsigned long long *const %sempty = %sfull + %d;", P, P, S);
  tcmma__emit_line(out, 1, "if (%stid == 0) {", P);
  tcmma__emit_line(out, 2, "for (int %ss = 0; %ss < %d; ++%ss) {", P, P, S, P);
  tcmma__emit_line(out, 3, "tcmma_mbar_init(&%sfull[%ss], 1); /* the producer's expect_tx */", P, P);
  tcmma__emit_line(out, 3, "tcmma_mbar_init(&%sempty[%ss], %d); /* each consumer warp */", P, P,
                   k->i->consumer_warpgroups * TCMMA_WARPGROUP_SIZE / TCMMA_WARP_SIZE);
  tcmma__emit_line(out, 2, "}");
  tcmma__emit_line(out, 2, "tcmma_mbar_init_fence();");
  tcmma__emit_line(out, 1, "}");
  tcmma__emit_line(out, 1, "%s;", tcmma__table_spell(dl, TCMMA__SPELL_SYNCTHREADS));
}

/* The k tiles of the loop: a constant, or from the k argument. */
static void tile_count(const wk *k, char *KT, size_t cap) {
  if (k->i->shape_args) snprintf(KT, cap, "(k + %d) / %d", k->g->call.block_k - 1, k->g->call.block_k);
  else snprintf(KT, cap, "%d", k->g->k_tiles);
}

/* The stage index and its phase, stepped per k tile. */
static void step_stage(const wk *k, int depth, tcmma_buf *out) {
  tcmma__emit_line(out, depth, "if (++%ss == %d) %ss = 0, %sph ^= 1u;", P, k->g->call.stages, P, P);
}

/* The producer's loads of operand op's k tile: one box of block_m (block_n)
 * rows, K-major; or one box per panel of 64 columns, an M-major A or
 * N-major B (k rows of one span each), the panels one after another; B's
 * after A's tile. */
static void tma_boxes(const wk *k, tcmma_operand op, const char *bz, tcmma_buf *out) {
  const tcmma_gemm_plan *g = k->g;
  const tcmma_gemm_call *c = &g->call;
  bool is_a = op == TCMMA_OPERAND_A;
  int rank = k->i->batch > 1 ? 3 : 2, bk = c->block_k;
  const char *map = is_a ? TCMMA__GEMM_MAP_A : TCMMA__GEMM_MAP_B,
             *origin = is_a ? TCMMA__GEMM_M0 : TCMMA__GEMM_N0;
  size_t base = is_a ? 0 : tcmma__emit_gemm_tma_operand_bytes(g, TCMMA_OPERAND_A);
  if (is_a ? !c->a.transposed : c->b.transposed) {
    char at[32] = "";
    if (base) snprintf(at, sizeof at, " + %zu", base);
    tcmma__emit_line(out, 4, "tcmma_tma_load_%dd(%sa_st%s, &%s, &%sfull[%ss], %skt * %d, %s%s);",
                     rank, P, at, map, P, P, P, bk, origin, bz);
    return;
  }
  int panel = is_a ? tcmma__emit_gemm_tma_panel(g) : tcmma__emit_gemm_tma_panel_b(g);
  size_t bytes = (size_t)panel * (size_t)bk * (size_t)tcmma_prec_bytes(is_a ? c->a.prec : c->b.prec);
  for (int p = 0; p < (is_a ? c->block_m : c->block_n) / panel; p++)
    tcmma__emit_line(out, 4, "tcmma_tma_load_%dd(%sa_st + %zu, &%s, &%sfull[%ss], %s + %d, %skt * "
                     "%d%s); /* %s's columns %d.. */", rank, P, base + (size_t)p * bytes, map, P,
                     P, origin, p * panel, P, bk, bz, is_a ? "a" : "b", p * panel);
}

/* Warpgroup 0: its registers lowered; one thread warp 0 elects (the
 * condition the whole warp's, then elect.sync: ptxas knows one thread
 * issues each TMA load) fills each stage once the consumers gave it back. */
static tcmma_status producer(const wk *k, const char *KT, tcmma_buf *out, tcmma_error *err) {
  const tcmma_gemm_plan *g = k->g;
  tcmma__emit_line(out, 1, "if (%stid < %d) {", P, TCMMA_WARPGROUP_SIZE);
  tcmma__emit_line(out, 2, "/* the producer warpgroup: one thread warp 0 elects loads every k "
                   "tile with TMA */");
  if (k->i->producer_registers) {
    tcmma_status st = tcmma_render_setmaxnreg(k->dl, TCMMA_SETMAXNREG_DEC,
                                              k->i->producer_registers, 2, out, err);
    if (st != TCMMA_OK) return st;
  }
  tcmma__emit_line(out, 2, "if (%stid < %d && tcmma_elect_one()) {", P, TCMMA_WARP_SIZE);
  tcmma__emit_gemm_tma_loop_head(k->dl, KT, "", k->g->stage_bytes, 3, out);
  tcmma__emit_line(out, 4, "tcmma_mbar_wait(&%sempty[%ss], %sph ^ 1u); /* the consumers gave it "
                   "back (at once the first time round) */", P, P, P);
  tcmma__emit_line(out, 4, "tcmma_mbar_arrive_expect_tx(&%sfull[%ss], %zuu);", P, P, g->stage_bytes);
  /* a batch: the block's matrix is the maps' third coordinate */
  bool batched = k->i->batch > 1;
  const char *bz = batched ? ", " P "bz" : "";
  tma_boxes(k, TCMMA_OPERAND_A, bz, out);
  tma_boxes(k, TCMMA_OPERAND_B, bz, out);
  step_stage(k, 4, out);
  tcmma__emit_line(out, 3, "}");
  tcmma__emit_line(out, 2, "}");
  tcmma__emit_line(out, 2, "return;");
  tcmma__emit_line(out, 1, "}");
  return TCMMA_OK;
}

/* The helper NAME_drain(acc): wgmma.wait_group 0 and the accumulators
 * held in place after it (as the tile product holds them: the compiler may
 * not read them before the wait). */
static void drain(const wk *k, tcmma_buf *out) {
  char wait[64];
  snprintf(wait, sizeof wait, tcmma__emit_collective_opcode(TCMMA__COLL_WGMMA_WAIT), 0);
  bool host = k->dl == TCMMA_DIALECT_HOST;
  tcmma_buf_printf(out, "\n/* every product of the thread's warpgroup done, its accumulators "
                   "final */\n%s void %s(float %stcmma_acc%s[%d]) {\n",
                   tcmma__table_spell(k->dl, TCMMA__SPELL_DEVICE_FN), k->drain,
                   host ? "" : "(&", host ? "" : ")", k->regs);
  if (host) {
    tcmma_buf_printf(out, "  tcmma_sim_wgmma_wait(\"%s\");\n  tcmma_sim_wgmma_hold(tcmma_acc, "
                     "%d);\n}\n", wait, k->regs);
    return;
  }
  tcmma_buf_printf(out, "  asm volatile(\"%s;\\n\" ::: \"memory\");\n"
                   "%s\n"
                   "  for (int tcmma_i = 0; tcmma_i < %d; tcmma_i++)\n"
                   "    asm volatile(\"\" : \"+f\"(tcmma_acc[tcmma_i]) :: \"memory\");\n}\n",
                   wait, tcmma__table_spell(k->dl, TCMMA__SPELL_UNROLL), k->regs);
}

/* A consumer warpgroup's k loop over the stages. */
static void consumer_loop(const wk *k, const char *KT, tcmma_buf *out) {
  const tcmma_gemm_plan *g = k->g;
  const tcmma_gemm_call *c = &g->call;
  const char *ta = tcmma__table_spell_type(k->dl, c->a.prec),
             *tb = tcmma__table_spell_type(k->dl, c->b.prec);
  int S = c->stages;
  long a_strip = (long)tcmma_wgmma_get(k->i->wgmma)->m * c->block_k * tcmma_prec_bytes(c->a.prec),
       b_strip = (long)k->i->wgmma_n * c->block_k * tcmma_prec_bytes(c->b.prec);
  tcmma__emit_gemm_tma_loop_head(k->dl, KT, "const ", k->g->stage_bytes, 2, out);
  tcmma__emit_line(out, 3, "tcmma_mbar_wait(&%sfull[%ss], %sph); /* k tile kt has landed */", P, P,
                   P);
  tcmma__emit_line(out, 3, "%s(%sacc, (const %s *)(%sa_st + %swr * %ld), (const %s *)(%sa_st + "
                   "%zu + %swc * %ld), %s);", k->tile, P, ta, P, P, a_strip, tb, P,
                   tcmma__emit_gemm_tma_operand_bytes(g, TCMMA_OPERAND_A), P, b_strip, "1");
  tcmma__emit_line(out, 3, "/* wait_group 1: k tile kt - 1's products are done, its stage goes "
                   "back (one arrival per warp) */");
  tcmma__emit_line(out, 3, "if (%skt > 0 && %stid %% %d == 0) tcmma_mbar_arrive(&%sempty[%ss == 0 ? "
                   "%d : %ss - 1]);", P, P, TCMMA_WARP_SIZE, P, P, S - 1, P);
  step_stage(k, 3, out);
  tcmma__emit_line(out, 2, "}");
  tcmma__emit_line(out, 2, "%s(%sacc);", k->drain, P);
}

/* One accumulator pair's elements through the epilogue list to d
 * (mma/render_gemm_pairs.c): register q * 4 + h * 2 + j at row r0 + h *
 * ROW_H, column c0 + q * COL_Q + j. */
static void epilogue_pair(const wk *k, int depth, tcmma_buf *out) {
  char row[64], col[64], acc[96];
  snprintf(row, sizeof row, "%sr0 + %sh * %d", P, P, k->row_h);
  snprintf(col, sizeof col, "%sc0 + %sq * %d", P, P, k->col_q);
  snprintf(acc, sizeof acc, "%sacc[%sq * %d + %sh * 2 + %sj]", P, P, PER_BLOCK, P, P);
  tcmma__emit_gemm_pair p = {k->f, k->dl, row, col, acc};
  tcmma__emit_gemm_pair_store(&p, depth, out);
}

/* The epilogue from the registers: each pair of adjacent columns of the
 * thread's accumulators, row block by row block. */
static void epilogue(const wk *k, tcmma_buf *out) {
  tcmma__emit_line(out, 2, "/* epilogue from the registers: d = alpha * acc + beta * c%s, "
                   "each element at its row and column (the accumulator layout, tcmma layout %s "
                   "c --n %d) */", tcmma__emit_gemm_epi_of(&k->f->o).count ? ", then the list's ops"
                   : "", tcmma_wgmma_marker(k->i->wgmma), k->i->wgmma_n);
  tcmma__emit_line(out, 2, "const int %slane = %stid %% %d, %swarp = %stid / %d %% %d;", P, P,
                   TCMMA_WARP_SIZE, P, P, TCMMA_WARP_SIZE, TCMMA_WARPGROUP_SIZE / TCMMA_WARP_SIZE);
  char lane_rows[16] = ""; /* the lane group's row step, where not 1 */
  if (k->row_l != 1) snprintf(lane_rows, sizeof lane_rows, " * %d", k->row_l);
  tcmma__emit_line(out, 2, "const int %sr0 = " TCMMA__GEMM_M0 " + %swr * %d + %swarp * %d + %slane "
                   "/ %d%s;", P, P, tcmma_wgmma_get(k->i->wgmma)->m, P, k->row_w, P, LANES,
                   lane_rows);
  tcmma__emit_line(out, 2, "const int %sc0 = " TCMMA__GEMM_N0 " + %swc * %d + %slane %% %d * %d;",
                   P, P, k->i->wgmma_n, P, LANES, k->col_l);
  tcmma__emit_gemm_epilogue_begin(k->f, 2, out);
  tcmma__emit_line(out, 2, "%s", tcmma__table_spell(k->dl, TCMMA__SPELL_UNROLL));
  tcmma__emit_line(out, 2, "for (int %sq = 0; %sq < %d; ++%sq) {", P, P, k->regs / PER_BLOCK, P);
  tcmma__emit_line(out, 3, "%s", tcmma__table_spell(k->dl, TCMMA__SPELL_UNROLL));
  tcmma__emit_line(out, 3, "for (int %sh = 0; %sh < 2; ++%sh) {", P, P, P);
  epilogue_pair(k, 4, out);
  tcmma__emit_line(out, 3, "}");
  tcmma__emit_line(out, 2, "}");
  tcmma__emit_gemm_epilogue_end(k->f, k->dl, 2, out);
}

/* The consumer warpgroups: registers raised, accumulators zeroed, the k
 * loop, the epilogue. */
static tcmma_status consumers(const wk *k, const char *KT, tcmma_buf *out, tcmma_error *err) {
  tcmma__emit_line(out, 1, "{");
  tcmma__emit_line(out, 2, "/* a consumer warpgroup: its m64 x n%d strip %swr, %swc of the block "
                   "tile */", k->i->wgmma_n, P, P);
  if (k->i->consumer_registers) {
    tcmma_status st = tcmma_render_setmaxnreg(k->dl, TCMMA_SETMAXNREG_INC,
                                              k->i->consumer_registers, 2, out, err);
    if (st != TCMMA_OK) return st;
  }
  int wn = k->g->call.warps_n;
  if (wn == 1) /* one consumer along n: the warpgroup's row is its index */
    tcmma__emit_line(out, 2, "const int %swr = %stid / %d - 1, %swc = 0;", P, P,
                     TCMMA_WARPGROUP_SIZE, P);
  else
    tcmma__emit_line(out, 2, "const int %swg = %stid / %d - 1, %swr = %swg / %d, %swc = %swg %% %d;",
                     P, P, TCMMA_WARPGROUP_SIZE, P, P, wn, P, P, wn);
  tcmma__emit_line(out, 2, "float %sacc[%d];", P, k->regs);
  tcmma__emit_line(out, 2, "%s", tcmma__table_spell(k->dl, TCMMA__SPELL_UNROLL));
  tcmma__emit_line(out, 2, "for (int %si = 0; %si < %d; ++%si) %sacc[%si] = 0.0f;", P, P, k->regs,
                   P, P, P);
  consumer_loop(k, KT, out);
  epilogue(k, out);
  tcmma__emit_line(out, 1, "}");
  return TCMMA_OK;
}

static tcmma_status kernel_text(wk *k, tcmma_buf *out, tcmma_error *err) {
  tcmma_dialect dl = k->dl;
  title(k, out);
  tcmma__emit_gemm_prelude(k->f, dl, out);
  tcmma_buf_printf(out, "\n" TCMMA__GEMM_HELPERS_BEGIN "\n");
  tcmma_status st = tcmma_render_tma_helpers(dl, out, err);
  tcmma_wgmma_call t = tcmma__emit_gemm_wgmma_tile(k->g, k->i, dl, k->tile);
  if (st == TCMMA_OK) st = tcmma_wgmma_render(&t, out, err);
  if (st != TCMMA_OK) return st;
  drain(k, out);
  tcmma_buf_printf(out, TCMMA__GEMM_HELPERS_END "\n");
  tcmma__emit_gemm_tma_head(k->f, dl, k->name, out);
  shared_layout(k, out);
  char KT[64];
  tile_count(k, KT, sizeof KT);
  if ((st = producer(k, KT, out, err)) != TCMMA_OK) return st;
  if ((st = consumers(k, KT, out, err)) != TCMMA_OK) return st;
  tcmma_buf_printf(out, "}\n");
  if (dl == TCMMA_DIALECT_HOST) tcmma__emit_gemm_entry(k->f, dl, k->name, true, out);
  return TCMMA_OK;
}

tcmma_status tcmma__emit_render_gemm_wgmma(const tcmma__emit_gemm_form *f, tcmma_dialect dl,
                                           tcmma_buf *out, tcmma_error *err) {
  wk k;
  memset(&k, 0, sizeof k);
  k.f = f, k.g = f->g, k.i = &f->i, k.dl = dl;
  k.name = k.g->call.name ? k.g->call.name : "tcmma_gemm";
  snprintf(k.tile, sizeof k.tile, "%s" TCMMA__GEMM_TILE_SUFFIX, k.name);
  snprintf(k.drain, sizeof k.drain, "%s" TCMMA__GEMM_DRAIN_SUFFIX, k.name);
  k.regs = tcmma_wgmma_acc_regs(k.i->wgmma, k.i->wgmma_n);
  tcmma_status st = layout_of(&k, err);
  if (st == TCMMA_OK) st = kernel_text(&k, out, err);
  if (st == TCMMA_OK && out->failed) st = tcmma_fail(err, TCMMA_NO_MEMORY, "out of memory");
  return st;
}
