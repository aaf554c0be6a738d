/* The Blackwell GEMM's text (docs/emit.md, "The Blackwell GEMM"), from a
 * TCGEN05 plan (mma/gemm_plan_tcgen05.c): warp 0 allocates the f32
 * accumulator's Tensor Memory columns; one thread warp 4 elects
 * (elect.sync, tcmma_elect_one: ptxas then knows one thread issues) waits for a
 * stage's empty mbarrier, expects its bytes on the full one and loads the k
 * tile's A and B boxes there with TMA (the tensor maps are the kernel's
 * last two arguments); one thread warp 5 elects waits for the full mbarrier,
 * issues the tile product (mma/render_tcgen05.c: one tcgen05.mma per k
 * step, m128 x block_n into Tensor Memory; an N-major b: one product per
 * panel of one swizzle span along n) and commits it to the stage's
 * empty mbarrier (the stage goes back once those products complete), the
 * last k tile's to the accumulator's instead (no load waits for that stage;
 * the simulator ties Tensor Memory words to the commit that closes their
 * group, docs/sim.md); the epilogue warpgroup (warps 0-3, warp w the
 * Tensor Memory lanes 32w..32w+31: the block's rows) waits
 * for that, reads its row 16 columns at a time with tcgen05.ld and runs
 * each pair of columns through the epilogue list to d
 * (mma/render_gemm_pairs.c). Then the block's barrier and warp 0 frees the
 * columns. The helpers before the kernel, between TCMMA__GEMM_HELPERS_BEGIN
 * and _END, are each dialect's own; the kernel itself is one text in both
 * dialects but for the words of tables/dialect.def
 * (tests/test_sim_dialect.c). */
#include <stdio.h>
#include <string.h>
#include "emit.h"
#include "gemm_epilogue.h"
#include "gemm_plan.h"
#include "gemm_rules.h"
#include "tcmma/kernel_attrs.h"
#include "tcmma/tcgen05.h"
#include "tcmma/tma.h"

#define P TCMMA__GEMM_P

/* The warps' roles (mma/gemm_rules.h): the epilogue warpgroup first (warp
 * w reaches Tensor Memory lanes 32 (w % 4).., PTX ISA "Access
 * restrictions"), then the TMA producer's warp and the MMA issuer's;
 * columns per tcgen05.ld. */
enum {
  PRODUCER_WARP = TCMMA__GEMM_TCGEN05_PRODUCER_WARP,
  MMA_WARP = TCMMA__GEMM_TCGEN05_MMA_WARP,
  LOAD_COLUMNS = TCMMA__GEMM_TMEM_LOAD_COLUMNS
};

typedef struct {
  const tcmma__emit_gemm_form *f;
  const tcmma_gemm_plan *g;
  const tcmma_gemm_info *i;
  tcmma_dialect dl;
  const char *name;
  char tile[80];  /* the tile product's function */
  char f32[80];   /* the f32 value of a Tensor Memory word */
  size_t a_bytes; /* A's tile in a stage; B's follows */
  int panel;      /* columns of one product: block_n, or an N-major b's panel */
  size_t panel_bytes; /* an N-major b's panel in the stage */
  int a_panel;        /* an M-major a's columns a panel (one span along m) */
  size_t a_panel_bytes; /* an M-major a's panel in the stage */
  size_t tma_bytes;   /* A's and B's tiles: what a stage's TMA loads bring */
  int atoms[2];       /* block-scaled: A's and B's scale atoms in a stage, after the tiles */
} tk;

#define SPELL(k, id) tcmma__table_spell((k)->dl, TCMMA__SPELL_##id)

/* The title comment: what the kernel computes and how it is launched. */
static void title(const tk *k, tcmma_buf *out) {
  const tcmma_gemm_plan *g = k->g;
  const tcmma_gemm_call *c = &g->call;
  char shape[96];
  tcmma__emit_gemm_shape_text(k->f, shape, sizeof shape);
  tcmma_buf_printf(out, "/* %s: %s (%s, warp-specialised): %s; d %s, a %s%s, b %s%s; block %dx%dx%d: "
                   "m%d x n%d tcgen05.mma per k step into %d Tensor Memory columns, issued by "
                   "one thread warp %d elects; one thread of warp %d loads with TMA; warps 0-3 the "
                   "epilogue (tcgen05.ld); %d stages swizzled %s bytes behind full/empty "
                   "mbarriers; %d threads, grid %ux%u, %zu bytes of dynamic shared memory; the "
                   "tensor maps A and B last */\n",
                   k->name, tcmma_tcgen05_marker((tcmma_tcgen05)k->i->tcgen05),
                   tcmma_gemm_kernel_name(k->i->kernel), shape, tcmma_prec_name(c->d.prec),
                   tcmma_prec_name(c->a.prec), c->a.transposed ? ",t" : "",
                   tcmma_prec_name(c->b.prec), c->b.transposed ? ",t" : "", c->block_m, c->block_n, c->block_k, c->block_m,
                   k->panel, k->i->tmem_columns, MMA_WARP,
                   PRODUCER_WARP, c->stages, tcmma_swizzle_name(g->a_swizzle), g->threads,
                   g->grid[0], g->grid[1], g->shared_bytes);
}

/* The helpers, each dialect's own: TMA and mbarriers, Tensor Memory, the
 * epilogue's load, the tile product, the f32 value of a word. */
static tcmma_status helpers(const tk *k, tcmma_buf *out, tcmma_error *err) {
  tcmma_buf_printf(out, "\n" TCMMA__GEMM_HELPERS_BEGIN "\n");
  tcmma_status st = tcmma_render_tma_helpers(k->dl, out, err);
  if (st == TCMMA_OK) st = tcmma_render_tcgen05_helpers(k->dl, out, err);
  if (st == TCMMA_OK)
    st = tcmma_render_tcgen05_ldst(k->dl, TCMMA_TCGEN05_LDST_32X32B, LOAD_COLUMNS, false, out,
                                   err);
  if (st == TCMMA_OK && k->i->scale_block) st = tcmma_render_tcgen05_cp(k->dl, out, err);
  tcmma_tcgen05_call t = tcmma__emit_gemm_tcgen05_tile(k->g, k->i, k->dl, k->tile);
  if (st == TCMMA_OK) st = tcmma_tcgen05_render(&t, out, err);
  if (st != TCMMA_OK) return st;
  tcmma_buf_printf(out, "\n/* the f32 an accumulator's Tensor Memory word holds */\n"
                   "%s float %s(unsigned %sw) {\n"
                   "  union { unsigned u; float f; } %sv;\n"
                   "  %sv.u = %sw;\n  return %sv.f;\n}\n",
                   SPELL(k, DEVICE_FN), k->f32, P, P, P, P, P);
  tcmma_buf_printf(out, TCMMA__GEMM_HELPERS_END "\n");
  return TCMMA_OK;
}

/* The stages at the swizzle's repeat, the mbarriers and the Tensor Memory
 * address's word after them; warp 0 allocates the accumulator's columns,
 * thread 0 initialises the mbarriers, before the block's barrier. */
static void shared_layout(const tk *k, tcmma_buf *out) {
  const tcmma_gemm_plan *g = k->g;
  int S = g->call.stages, cols = k->i->tmem_columns;
  size_t align = tcmma__emit_gemm_tma_align(g);
  tcmma__emit_line(out, 1, "/* the stages from the first %zu-byte boundary of the shared window "
                   "(the swizzle's repeat), then a full and an empty mbarrier per stage, the "
                   "accumulator's and the Tensor Memory address */", align);
  tcmma__emit_line(out, 1, "unsigned char *%sst = %ssmem + ((%zuu - ((unsigned)%s(%ssmem) & "
                   "%zuu)) & %zuu);", P, P, align, SPELL(k, CVTA_SHARED), P, align - 1, align - 1);
  tcmma__emit_line(out, 1, "unsigned long long *const %sfull = (unsigned long long *)(%sst + %zu);",
                   P, P, g->stage_bytes * (size_t)S);
  tcmma__emit_line(out, 1, "unsigned long long *const %sempty = %sfull + %d;", P, P, S);
  tcmma__emit_line(out, 1, "unsigned long long *const %sdone = %sempty + %d;", P, P, S);
  tcmma__emit_line(out, 1, "unsigned *const %sslot = (unsigned *)(%sdone + 1);", P, P);
  tcmma__emit_line(out, 1, "if (%swarp == 0) { /* the accumulator: %d columns of 128 lanes */", P,
                   cols);
  tcmma__emit_line(out, 2, "tcmma_tmem_alloc(%sslot, %du);", P, cols);
  tcmma__emit_line(out, 2, "tcmma_tmem_relinquish();");
  tcmma__emit_line(out, 1, "}");
  tcmma__emit_line(out, 1, "if (%stid == 0) {", P);
  tcmma__emit_line(out, 2, "for (int %ss = 0; %ss < %d; ++%ss) {", P, P, S, P);
  tcmma__emit_line(out, 3, "tcmma_mbar_init(&%sfull[%ss], 1); /* the producer's expect_tx */", P, P);
  tcmma__emit_line(out, 3, "tcmma_mbar_init(&%sempty[%ss], 1); /* the MMA thread's commit */", P, P);
  tcmma__emit_line(out, 2, "}");
  tcmma__emit_line(out, 2, "tcmma_mbar_init(%sdone, 1); /* the last product's commit */", P);
  tcmma__emit_line(out, 2, "tcmma_mbar_init_fence();");
  tcmma__emit_line(out, 1, "}");
  tcmma__emit_line(out, 1, "tcmma_tcgen05_fence_before();");
  tcmma__emit_line(out, 1, "%s;", SPELL(k, SYNCTHREADS));
  tcmma__emit_line(out, 1, "tcmma_tcgen05_fence_after();");
  tcmma__emit_line(out, 1, "const unsigned %stmem = *%sslot;", P, P);
}

/* The k tiles of the loop (a constant, or from the k argument); the k
 * loop's head at depth: the stage index and its phase, the loop, the
 * stage's first byte (qual: "const " for the reader). */
static void tile_count(const tk *k, char *KT, size_t cap) {
  if (k->i->shape_args)
    snprintf(KT, cap, "(k + %d) / %d", k->g->call.block_k - 1, k->g->call.block_k);
  else snprintf(KT, cap, "%d", k->g->k_tiles);
}

static void loop_head(const tk *k, const char *qual, int depth, tcmma_buf *out) {
  char KT[64];
  tile_count(k, KT, sizeof KT);
  tcmma__emit_gemm_tma_loop_head(k->dl, KT, qual, k->g->stage_bytes, depth, out);
}

/* The stage index and its phase, stepped per k tile, and the loop's end. */
static void loop_tail(const tk *k, int depth, tcmma_buf *out) {
  tcmma__emit_line(out, depth + 1, "if (++%ss == %d) %ss = 0, %sph ^= 1u;", P, k->g->call.stages,
                   P, P);
  tcmma__emit_line(out, depth, "}");
}

/* Warp 4 (the branch is the whole warp's) elects one thread: each stage
 * filled once the MMA thread's commit gave it back. */
/* A block-scaled stage's scale atoms, by the producer warp's 32 threads
 * (lane l: rows l, l + 32, ... of the block, each its k tile's blocks),
 * zero past m (n) and past the k blocks so that the rows' padding is never
 * read; then the async proxy's fence (tcgen05.cp reads them) and the
 * warp's. The atom byte of row r, block b: tcmma_tcgen05_scale_cell's src. */
static void scale_atoms(const tk *k, tcmma_buf *out) {
  const tcmma_gemm_call *c = &k->g->call;
  int per_tile = c->block_k / k->i->scale_block, atom_rows = TCMMA_TCGEN05_SCALE_ATOM_ROWS;
  int L = TCMMA_TCGEN05_SCALE_LANES, B = TCMMA_TCGEN05_SCALE_BYTES;
  char M[24], N[24], sld[96], kb[64];
  tcmma__emit_gemm_dim(k->f, TCMMA__GEMM_DIM_M, M, sizeof M);
  tcmma__emit_gemm_dim(k->f, TCMMA__GEMM_DIM_N, N, sizeof N);
  tcmma__emit_gemm_scale_ld_text(k->f, sld, sizeof sld);
  if (k->i->shape_args) snprintf(kb, sizeof kb, "(k + %d) / %d", k->i->scale_block - 1,
                                 k->i->scale_block);
  else snprintf(kb, sizeof kb, "%d", (c->k + k->i->scale_block - 1) / k->i->scale_block);
  const char *v[2] = {"a", "b"}, *mn0[2] = {TCMMA__GEMM_M0, TCMMA__GEMM_N0}, *ext[2] = {M, N};
  int rows[2] = {c->block_m, c->block_n};
  size_t at = k->tma_bytes;
  for (int o = 0; o < 2; o++) {
    int ra = (rows[o] + atom_rows - 1) / atom_rows; /* atoms side by side along the rows */
    tcmma__emit_line(out, 4, "/* %s's scales of k tile kt: %d rows x %d blocks into %d atoms */",
                     v[o], rows[o], per_tile, k->atoms[o]);
    tcmma__emit_line(out, 4, "for (int %sr = %stid %% %d; %sr < %d; %sr += %d)", P, P,
                     TCMMA_WARP_SIZE, P, rows[o], P, TCMMA_WARP_SIZE);
    tcmma__emit_line(out, 5, "for (int %sb = 0; %sb < %d; ++%sb) {", P, P, per_tile, P);
    tcmma__emit_line(out, 6, "const int %skb = %skt * %d + %sb;", P, P, per_tile, P);
    tcmma__emit_line(out, 6, "const int %sat = (%sb / %d * %d + %sr / %d) * %d + %sr %% %d * %d "
                     "+ %sr %% %d / %d * %d + %sb %% %d;", P, P, B, ra, P, atom_rows,
                     TCMMA_TCGEN05_SCALE_ATOM_BYTES, P, L, atom_rows / L * B, P, atom_rows, L, B,
                     P, B);
    tcmma__emit_line(out, 6, "%sa_st[%zu + %sat] = %s + %sr < %s && %skb < %s ? sf%s[(size_t)(%s "
                     "+ %sr) * %s + %skb] : (unsigned char)0;", P, at, P, mn0[o], P, ext[o], P,
                     kb, v[o], mn0[o], P, sld, P);
    tcmma__emit_line(out, 5, "}");
    at += (size_t)k->atoms[o] * TCMMA_TCGEN05_SCALE_ATOM_BYTES;
  }
  tcmma__emit_line(out, 4, "tcmma_fence_proxy_async(); /* for tcgen05.cp (the async proxy) */");
  tcmma__emit_line(out, 4, "%s;", SPELL(k, SYNCWARP));
}

/* Operand op's loads of k tile kt: one box of block_m (block_n) rows,
 * K-major; or one box per panel of one span, an M-major A or N-major B (k
 * rows each), the panels one after another; B's after A's tile. */
static void boxes(const tk *k, tcmma_operand op, int rank, int bk, const char *bz,
                  tcmma_buf *out) {
  const tcmma_gemm_call *c = &k->g->call;
  bool is_a = op == TCMMA_OPERAND_A;
  const char *map = is_a ? TCMMA__GEMM_MAP_A : TCMMA__GEMM_MAP_B,
             *origin = is_a ? TCMMA__GEMM_M0 : TCMMA__GEMM_N0;
  size_t base = is_a ? 0 : k->a_bytes;
  char at[32] = "";
  if (base) snprintf(at, sizeof at, " + %zu", base);
  if (is_a ? !c->a.transposed : c->b.transposed) {
    tcmma__emit_line(out, 4, "tcmma_tma_load_%dd(%sa_st%s, &%s, &%sfull[%ss], %skt * %d, %s%s);",
                     rank, P, at, map, P, P, P, bk, origin, bz);
    return;
  }
  int panel = is_a ? k->a_panel : k->panel;
  size_t bytes = is_a ? k->a_panel_bytes : k->panel_bytes;
  for (int p = 0; p < (is_a ? c->block_m : c->block_n) / panel; p++)
    tcmma__emit_line(out, 4, "tcmma_tma_load_%dd(%sa_st + %zu, &%s, &%sfull[%ss], %s + %d, %skt * "
                     "%d%s); /* %s's columns %d.. */", rank, P, base + (size_t)p * bytes, map, P,
                     P, origin, p * panel, P, bk, bz, is_a ? "a" : "b", p * panel);
}

static void producer(const tk *k, tcmma_buf *out) {
  /* the k coordinate in stored units (packed fp4: bytes) */
  int rank = k->i->batch > 1 ? 3 : 2, bk = k->g->call.block_k / (k->i->pack > 1 ? k->i->pack : 1);
  const char *bz = k->i->batch > 1 ? ", " P "bz" : "";
  bool scaled = k->i->scale_block > 0;
  tcmma__emit_line(out, 1, "if (%swarp == %d) {", P, PRODUCER_WARP);
  if (scaled) {
    tcmma__emit_line(out, 2, "/* the producer: the warp stores each k tile's scale atoms, then "
                     "one thread loads the tiles with TMA */");
    tcmma__emit_line(out, 2, "{");
  } else {
    tcmma__emit_line(out, 2, "/* the producer: one elected thread loads every k tile with TMA */");
    tcmma__emit_line(out, 2, "if (tcmma_elect_one()) {");
  }
  loop_head(k, "", 3, out);
  tcmma__emit_line(out, 4, "tcmma_mbar_wait(&%sempty[%ss], %sph ^ 1u); /* its products are done "
                   "(at once the first time round) */", P, P, P);
  if (scaled) {
    scale_atoms(k, out);
    tcmma__emit_line(out, 4, "if (tcmma_elect_one()) { /* the whole warp elects one thread */");
  }
  tcmma__emit_line(out, 4, "tcmma_mbar_arrive_expect_tx(&%sfull[%ss], %zuu);", P, P,
                   k->tma_bytes);
  boxes(k, TCMMA_OPERAND_A, rank, bk, bz, out);
  boxes(k, TCMMA_OPERAND_B, rank, bk, bz, out);
  if (scaled) tcmma__emit_line(out, 4, "}");
  loop_tail(k, 3, out);
  tcmma__emit_line(out, 2, "}");
}

/* The thread warp 5 elects: the tile product of each landed stage, committed
 * to the stage's empty mbarrier; the last k tile's to the accumulator's. */
static void issuer(const tk *k, tcmma_buf *out) {
  const tcmma_gemm_call *c = &k->g->call;
  tcmma__emit_line(out, 1, "} else if (%swarp == %d) {", P, MMA_WARP);
  tcmma__emit_line(out, 2, "/* the MMA thread, one the warp elects: D (Tensor Memory) = A B over "
                   "the k tiles */");
  tcmma__emit_line(out, 2, "if (tcmma_elect_one()) {");
  loop_head(k, "const ", 3, out);
  tcmma__emit_line(out, 4, "tcmma_mbar_wait(&%sfull[%ss], %sph); /* k tile kt has landed */", P,
                   P, P);
  tcmma__emit_line(out, 4, "tcmma_tcgen05_fence_after();");
  /* one product of the whole block_n, or one per panel of an N-major b (its
   * columns of the accumulator) */
  char sf[160] = "";
  if (k->i->scale_block) { /* the stage's scales into its Tensor Memory columns, in order */
    int cols = (k->atoms[0] + k->atoms[1]) * TCMMA_TCGEN05_SCALE_ATOM_ROWS /
               TCMMA_TCGEN05_SCALE_LANES, a_cols = k->atoms[0] * TCMMA_TCGEN05_SCALE_ATOM_ROWS /
                                                     TCMMA_TCGEN05_SCALE_LANES;
    tcmma__emit_line(out, 4, "const unsigned %ssfa = %stmem + %du + (unsigned)%ss * %du, %ssfb = "
                     "%ssfa + %du; /* this stage's scale columns */", P, P, c->block_n, P, cols, P,
                     P, a_cols);
    tcmma__emit_line(out, 4, "tcmma_tcgen05_cp_scales(%ssfa, %sa_st + %zu, %d);", P, P,
                     k->tma_bytes, k->atoms[0]);
    tcmma__emit_line(out, 4, "tcmma_tcgen05_cp_scales(%ssfb, %sa_st + %zu, %d);", P, P,
                     k->tma_bytes + (size_t)k->atoms[0] * TCMMA_TCGEN05_SCALE_ATOM_BYTES,
                     k->atoms[1]);
    snprintf(sf, sizeof sf, ", %ssfa, %ssfb", P, P);
  }
  for (int p = 0; p < c->block_n / k->panel; p++)
    tcmma__emit_line(out, 4, "%s(%stmem + %du, (const %s *)%sa_st, (const %s *)(%sa_st + %zu), "
                     "%skt > 0%s);", k->tile, P, p * k->panel,
                     tcmma__table_spell_type(k->dl, c->a.prec), P,
                     tcmma__table_spell_type(k->dl, c->b.prec), P,
                     k->a_bytes + (size_t)p * k->panel_bytes, P, sf);
  char KT[64];
  tile_count(k, KT, sizeof KT);
  tcmma__emit_line(out, 4, "if (%skt + 1 < %s) tcmma_tcgen05_commit(&%sempty[%ss]); /* the stage "
                   "goes back once these products complete */", P, KT, P, P);
  loop_tail(k, 3, out);
  tcmma__emit_line(out, 3, "tcmma_tcgen05_commit(%sdone); /* the last k tile's: the accumulator is "
                   "final once every product completes */", P);
  tcmma__emit_line(out, 2, "}");
}

/* The epilogue warpgroup: thread t's row is Tensor Memory lane t; its
 * columns 16 at a time (one tcgen05.ld and its wait), each pair through the
 * epilogue list to d. */
static void epilogue(const tk *k, tcmma_buf *out) {
  const tcmma_gemm_call *c = &k->g->call;
  bool ragged_n = k->i->shape_args ? k->g->predicated : c->n % c->block_n != 0;
  char N[24], acc[160];
  tcmma__emit_gemm_dim(k->f, TCMMA__GEMM_DIM_N, N, sizeof N);
  tcmma__emit_line(out, 1, "} else {");
  tcmma__emit_line(out, 2, "/* the epilogue: d = alpha * acc + beta * c%s, thread t's row the "
                   "accumulator's lane t (tcmma layout %s c --m %d --n %d) */",
                   tcmma__emit_gemm_epi_of(&k->f->o).count ? ", then the list's ops" : "",
                   tcmma_tcgen05_marker((tcmma_tcgen05)k->i->tcgen05), c->block_m, c->block_n);
  tcmma__emit_line(out, 2, "tcmma_mbar_wait(%sdone, 0u); /* the last product's commit */", P);
  tcmma__emit_line(out, 2, "tcmma_tcgen05_fence_after();");
  tcmma__emit_line(out, 2, "const int %sr0 = " TCMMA__GEMM_M0 " + %stid;", P, P);
  tcmma__emit_gemm_epilogue_begin(k->f, 2, out);
  tcmma__emit_line(out, 2, "%s", SPELL(k, KEEP_LOOP));
  tcmma__emit_line(out, 2, "for (int %scb = 0; %scb < %d; %scb += %d) {", P, P, c->block_n, P,
                   LOAD_COLUMNS);
  if (ragged_n) /* the same for the whole warp: its loads stay collective */
    tcmma__emit_line(out, 3, "if (" TCMMA__GEMM_N0 " + %scb >= %s) break;", P, N);
  tcmma__emit_line(out, 3, "unsigned %sr[%d];", P, LOAD_COLUMNS);
  tcmma__emit_line(out, 3, "tcmma_tcgen05_ld_32x32b_x%d(%stmem + ((unsigned)(%swarp * %d) << 16) + "
                   "(unsigned)%scb, %sr);", LOAD_COLUMNS, P, P, TCMMA_WARP_SIZE, P, P);
  tcmma__emit_line(out, 3, "const int %sc0 = " TCMMA__GEMM_N0 " + %scb;", P, P);
  tcmma__emit_line(out, 3, "%s", SPELL(k, UNROLL));
  tcmma__emit_line(out, 3, "for (int %sq = 0; %sq < %d; ++%sq) {", P, P, LOAD_COLUMNS / 2, P);
  snprintf(acc, sizeof acc, "%s(%sr[%sq * 2 + %sj])", k->f32, P, P, P);
  tcmma__emit_gemm_pair p = {k->f, k->dl, P "r0", P "c0 + " P "q * 2", acc};
  tcmma__emit_gemm_pair_store(&p, 4, out);
  tcmma__emit_line(out, 3, "}");
  tcmma__emit_line(out, 2, "}");
  tcmma__emit_gemm_epilogue_end(k->f, k->dl, 2, out);
  tcmma__emit_line(out, 1, "}");
}

static tcmma_status kernel_text(tk *k, tcmma_buf *out, tcmma_error *err) {
  tcmma_dialect dl = k->dl;
  title(k, out);
  tcmma__emit_gemm_prelude(k->f, dl, out);
  tcmma_status st = helpers(k, out, err);
  if (st != TCMMA_OK) return st;
  tcmma__emit_gemm_tma_head(k->f, dl, k->name, out);
  tcmma__emit_line(out, 1, "const int %swarp = %stid / %d;", P, P, TCMMA_WARP_SIZE);
  shared_layout(k, out);
  producer(k, out);
  issuer(k, out);
  epilogue(k, out);
  tcmma__emit_line(out, 1, "/* every Tensor Memory read done: warp 0 frees the accumulator */");
  tcmma__emit_line(out, 1, "tcmma_tcgen05_fence_before();");
  tcmma__emit_line(out, 1, "%s;", SPELL(k, SYNCTHREADS));
  tcmma__emit_line(out, 1, "if (%swarp == 0) {", P);
  tcmma__emit_line(out, 2, "tcmma_tcgen05_fence_after();");
  tcmma__emit_line(out, 2, "tcmma_tmem_dealloc(%stmem, %du);", P, k->i->tmem_columns);
  tcmma__emit_line(out, 1, "}");
  tcmma_buf_printf(out, "}\n");
  if (dl == TCMMA_DIALECT_HOST) tcmma__emit_gemm_entry(k->f, dl, k->name, true, out);
  return TCMMA_OK;
}

tcmma_status tcmma__emit_render_gemm_tcgen05(const tcmma__emit_gemm_form *f, tcmma_dialect dl,
                                             tcmma_buf *out, tcmma_error *err) {
  tk k;
  memset(&k, 0, sizeof k);
  k.f = f, k.g = f->g, k.i = &f->i, k.dl = dl;
  k.name = k.g->call.name ? k.g->call.name : "tcmma_gemm";
  snprintf(k.tile, sizeof k.tile, "%s" TCMMA__GEMM_UMMA_SUFFIX, k.name);
  snprintf(k.f32, sizeof k.f32, "%s_f32", k.name);
  k.a_bytes = tcmma__emit_gemm_tma_operand_bytes(k.g, TCMMA_OPERAND_A);
  k.panel = k.g->call.b.transposed ? k.g->call.block_n : tcmma__emit_gemm_tma_panel_b(k.g);
  k.panel_bytes = (size_t)k.panel * (size_t)k.g->call.block_k *
                  (size_t)tcmma_prec_bytes(k.g->call.b.prec);
  k.a_panel = k.g->call.a.transposed ? tcmma__emit_gemm_tma_panel(k.g) : k.g->call.block_m;
  k.a_panel_bytes = (size_t)k.a_panel * (size_t)k.g->call.block_k *
                    (size_t)tcmma_prec_bytes(k.g->call.a.prec);
  k.tma_bytes = k.a_bytes + tcmma__emit_gemm_tma_operand_bytes(k.g, TCMMA_OPERAND_B);
  k.atoms[0] = k.i->scale_block ? tcmma__emit_gemm_tcgen05_scale_atoms(k.g, k.i, TCMMA_OPERAND_A) : 0;
  k.atoms[1] = k.i->scale_block ? tcmma__emit_gemm_tcgen05_scale_atoms(k.g, k.i, TCMMA_OPERAND_B) : 0;
  tcmma_status st = kernel_text(&k, out, err);
  if (st == TCMMA_OK && out->failed) st = tcmma_fail(err, TCMMA_NO_MEMORY, "out of memory");
  return st;
}
