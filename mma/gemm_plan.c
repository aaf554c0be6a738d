/* Planning a whole GEMM (include/tcmma/gemm.h, docs/emit.md, GEMM): the
 * block tile's stages and their swizzles, the warp tile as a tile-MMA call
 * over them (so its arm, ldmatrix use, census and registers are the
 * planner's own), shared memory against the device, registers against the
 * budget, and the bounds the sizes need. */
#include <limits.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>
#include "abi.h"
#include "emit.h"
#include "gemm_epilogue.h"
#include "gemm_plan.h"
#include "gemm_rules.h"
#include "tcmma/arch.h"
#include "tcmma/gemm.h"
#include "tcmma/ptx.h"
#include "tcmma/tcgen05.h"

/* f32 elements added to each epilogue row: the accumulator stores of a
 * warp's 8 fragment rows then fall in different banks (rows of a multiple
 * of 128 bytes would all hit the same ones); 8 keeps rows 32-byte aligned
 * for the epilogue's 16-byte reads. */
enum { EPILOGUE_PAD = 8 };

#define decline tcmma__emit_gemm_decline


/* The widest swizzle atom whose rows suit a stage row of row_bytes and keep
 * ldmatrix's 8 rows in distinct bank groups; none when no atom does. */
static tcmma_swizzle pick_swizzle(long row_bytes) {
  for (int s = TCMMA_SWIZZLE_COUNT - 1; s > 0; s--)
    if (tcmma_swizzle_ld_ok((tcmma_swizzle)s, row_bytes) &&
        tcmma_swizzle_conflict_free((tcmma_swizzle)s, row_bytes))
      return (tcmma_swizzle)s;
  return TCMMA_SWIZZLE_NONE;
}

tcmma_status tcmma__emit_gemm_warp_call(const tcmma_gemm_plan *g, tcmma__emit_gemm_exprs *x,
                                        tcmma_call *out) {
  const tcmma_gemm_call *c = &g->call;
  tcmma_call w = tcmma_call_default();
  int warps = c->warps_m * c->warps_n;
  w.m = g->warp_m, w.n = g->warp_n, w.k = c->block_k;
  w.scope = TCMMA_SCOPE_FRAGMENT;
  w.cc = c->cc;
  w.numerics = c->numerics;
  w.arm = tcmma_arm_marker(g->arm);
  w.init = TCMMA_INIT_ZERO;
  w.registers = TCMMA_REGISTERS_MAX; /* the GEMM checks its own budget per thread */
  w.warps = warps;
  /* this warp's row and column of the warp grid, times its tile */
  snprintf(x->row, sizeof x->row, "threadIdx.x / %d / %d * %d", TCMMA_WARP_SIZE, c->warps_n,
           g->warp_m);
  snprintf(x->col, sizeof x->col, "threadIdx.x / %d %% %d * %d", TCMMA_WARP_SIZE, c->warps_n,
           g->warp_n);
  tcmma_coord row = {0, warps > 1 ? x->row : NULL, g->warp_m};
  tcmma_coord col = {0, warps > 1 ? x->col : NULL, g->warp_n};
  tcmma_coord zero = {0, NULL, 0};
  w.a = (tcmma_operand_desc){c->a.prec, c->a.transposed, g->a_cols, TCMMA_SPACE_SHARED,
                             g->a_swizzle, c->a.transposed ? zero : row,
                             c->a.transposed ? row : zero};
  w.b = (tcmma_operand_desc){c->b.prec, c->b.transposed, g->b_cols, TCMMA_SPACE_SHARED,
                             g->b_swizzle, c->b.transposed ? col : zero,
                             c->b.transposed ? zero : col};
  w.d = (tcmma_operand_desc){TCMMA_PREC_F32, false, g->epilogue_ld, TCMMA_SPACE_SHARED,
                             TCMMA_SWIZZLE_NONE, row, col};
  long scales = tcmma__emit_gemm_scale_cols(g);
  if (scales) { /* the stage's scale tiles, rows of block_k / scale_block (mma/gemm_scale.c) */
    w.a.scale = TCMMA__GEMM_P "sas", w.b.scale = TCMMA__GEMM_P "sbs";
    w.a.scale_ld = w.b.scale_ld = scales;
  }
  int pack = tcmma__emit_gemm_pack(g);
  if (pack > 1) { /* packed stages load through the byte twin's call: this
                     one multiplies and loads the scales, its rows as if unpacked */
    w.a.ld = g->a_cols * pack, w.b.ld = g->b_cols * pack;
    w.a.swizzle = w.b.swizzle = TCMMA_SWIZZLE_NONE;
  }
  *out = w;
  return TCMMA_OK;
}

tcmma_status tcmma__emit_gemm_twin_call(const tcmma_gemm_plan *g, tcmma__emit_gemm_exprs *x,
                                        tcmma_call *out) {
  tcmma_arm arm;
  tcmma_prec prec;
  if (!tcmma__emit_gemm_byte_twin(g, &arm, &prec))
    return TCMMA_DECLINED;
  tcmma__emit_gemm_warp_call(g, x, out);
  int pack = tcmma__emit_gemm_pack(g);
  out->arm = tcmma_arm_marker(arm);
  out->k = g->call.block_k / pack;
  out->a.prec = out->b.prec = prec;
  out->a.ld = g->a_cols, out->b.ld = g->b_cols;
  out->a.swizzle = g->a_swizzle, out->b.swizzle = g->b_swizzle;
  out->a.scale = out->b.scale = NULL;
  out->a.scale_ld = out->b.scale_ld = 0;
  return TCMMA_OK;
}

long tcmma__emit_gemm_stage_copies(const tcmma_gemm_plan *g, tcmma_operand op) {
  bool is_a = op == TCMMA_OPERAND_A;
  long rows = is_a ? g->a_rows : g->b_rows, cols = is_a ? g->a_cols : g->b_cols;
  return rows * cols * tcmma_prec_bytes(is_a ? g->call.a.prec : g->call.b.prec) /
         TCMMA__GEMM_COPY_BYTES;
}

long tcmma__emit_gemm_copies_per_thread(const tcmma_gemm_plan *g, tcmma_operand op) {
  return tcmma__emit_gemm_stage_copies(g, op) / g->threads;
}

long tcmma__emit_gemm_stage_copies_per_thread(const tcmma_gemm_plan *g) {
  return tcmma__emit_gemm_copies_per_thread(g, TCMMA_OPERAND_A) +
         tcmma__emit_gemm_copies_per_thread(g, TCMMA_OPERAND_B);
}

bool tcmma__emit_gemm_unrolled(const tcmma_gemm_plan *g) {
  return g->call.stages > 1 && tcmma_arm_sass_products(g->arm, g->call.cc) <= 1;
}

/* Whether an unrolled ring copies an operand whose stored rows run along k
 * (A transposed, B not): each copy row's 64-bit address of each of the
 * trip's k tiles (a k tile is rows of ld apart, past LDGSTS's immediate)
 * is a live value of its own. */
static bool k_rows_unrolled(const tcmma_gemm_plan *g) {
  return tcmma__emit_gemm_unrolled(g) && (g->call.a.transposed || !g->call.b.transposed);
}


/* The kernel's loader, warp tile and epilogue are written for some arms
 * only: inline-PTX arms of 1- and 2-byte operands with f32 accumulators,
 * block-scaled ones with their scale tensors, packed fp4 through an 8-bit
 * twin (decline ARM). */
static tcmma_status check_arm_form(tcmma_gemm_plan *g, const tcmma_arm_info *info,
                                   tcmma_error *err) {
  const tcmma_gemm_call *c = &g->call;
  tcmma_arm twin;
  tcmma_prec twin_prec;
  if (tcmma__emit_gemm_pack(g) > 1 && !tcmma__emit_gemm_byte_twin(g, &twin, &twin_prec))
    return decline(g, TCMMA_GEMM_DECLINE_ARM, err, "arm %s: no 8-bit arm's fragments hold its "
                   "packed fragments' bytes, to load them through", info->marker);
  /* tf32 operands are rounded from f32 storage in registers; the GEMM's
   * reference bound and staging are written for 1- and 2-byte elements */
  if (tcmma_prec_bytes(c->a.prec) > 2 || tcmma_prec_bytes(c->b.prec) > 2)
    return decline(g, TCMMA_GEMM_DECLINE_ARM, err, "arm %s: %s x %s operands: the GEMM renders "
                   "arms of 1- and 2-byte operands (f16, bf16, fp8)", info->marker,
                   tcmma_prec_name(c->a.prec), tcmma_prec_name(c->b.prec));
  if (info->form != TCMMA_FORM_PTX || info->acc != TCMMA_PREC_F32)
    return decline(g, TCMMA_GEMM_DECLINE_ARM, err, "arm %s is %s with a %s accumulator: the "
                   "GEMM renders inline-PTX arms with f32 accumulators", info->marker,
                   tcmma_form_name(info->form), tcmma_prec_name(info->acc));
  return TCMMA_OK;
}

/* The cc from which the kernel's loader runs with cp.async (cc 0: the plan
 * is for every device from there). */
static int loader_floor(void) { return tcmma__emit_gemm_loader_floor(); }

/* Below cp.async's floor the loader copies with plain loads; the warp tile
 * still needs ldmatrix and the arm, whose floors a forced arm may not meet
 * (decline ARCH). */
static tcmma_status check_arch(tcmma_gemm_plan *g, const tcmma_arm_info *info,
                               tcmma_error *err) {
  int cc = g->call.cc, ldm = TCMMA_PTX_MIN_SM(LDMATRIX);
  int floor = info->floor > ldm ? info->floor : ldm;
  if (cc && cc < floor)
    return decline(g, TCMMA_GEMM_DECLINE_ARCH, err, "cc %d: the kernel needs cc %d (arm %s "
                   "from cc %d, ldmatrix from cc %d; below cc %d its loader uses plain loads "
                   "instead of cp.async)", cc, floor, info->marker, info->floor, ldm,
                   loader_floor());
  return TCMMA_OK;
}

/* The block tile must be whole warp tiles, and each stage tile whole
 * copies shared evenly by the threads: the loader has no remainder loop
 * (decline TILE). Sets the stages' shape and swizzles. */
static tcmma_status shape_stages(tcmma_gemm_plan *g, tcmma_error *err) {
  const tcmma_gemm_call *c = &g->call;
  if (c->block_m % c->warps_m || c->block_n % c->warps_n)
    return decline(g, TCMMA_GEMM_DECLINE_TILE, err, "block tile %dx%d over %dx%d warps: each "
                   "extent must split evenly", c->block_m, c->block_n, c->warps_m, c->warps_n);
  g->warp_m = c->block_m / c->warps_m, g->warp_n = c->block_n / c->warps_n;
  g->threads = c->warps_m * c->warps_n * TCMMA_WARP_SIZE;
  int ea = tcmma_prec_bytes(c->a.prec), eb = tcmma_prec_bytes(c->b.prec);
  /* k in stored units: packed operands (k-major only) hold pack a byte */
  int bk = c->block_k / tcmma__emit_gemm_pack(g);
  g->a_rows = c->a.transposed ? c->block_k : c->block_m;
  g->a_cols = c->a.transposed ? c->block_m : bk;
  g->b_rows = c->b.transposed ? c->block_n : c->block_k;
  g->b_cols = c->b.transposed ? bk : c->block_n;
  long a_copies = tcmma__emit_gemm_stage_copies(g, TCMMA_OPERAND_A),
       b_copies = tcmma__emit_gemm_stage_copies(g, TCMMA_OPERAND_B);
  if ((g->a_cols * ea) % TCMMA__GEMM_COPY_BYTES || (g->b_cols * eb) % TCMMA__GEMM_COPY_BYTES ||
      a_copies % g->threads || b_copies % g->threads)
    return decline(g, TCMMA_GEMM_DECLINE_TILE, err, "stage tiles a %ldx%ld, b %ldx%ld: rows must "
                   "be whole %d-byte units and each tile's %ld and %ld %d-byte copies a "
                   "multiple of the %d threads", g->a_rows, g->a_cols, g->b_rows, g->b_cols,
                   TCMMA__GEMM_COPY_BYTES, a_copies, b_copies, TCMMA__GEMM_COPY_BYTES,
                   g->threads);
  g->a_swizzle = pick_swizzle(g->a_cols * ea);
  g->b_swizzle = pick_swizzle(g->b_cols * eb);
  g->epilogue_ld = c->block_n + EPILOGUE_PAD;
  return TCMMA_OK;
}

/* Packed stages load through the byte twin's plan: its ldmatrix use is the
 * census's (decline WARP_TILE when it does not plan). */
static tcmma_status plan_twin(tcmma_gemm_plan *g, tcmma_error *err) {
  tcmma__emit_gemm_exprs x;
  tcmma_call w = tcmma_call_default();
  tcmma_plan wp;
  tcmma_census cz;
  tcmma_error werr = {0};
  if (tcmma__emit_gemm_twin_call(g, &x, &w) != TCMMA_OK ||
      tcmma_plan_call(&w, &wp, &werr) != TCMMA_OK)
    return decline(g, TCMMA_GEMM_DECLINE_WARP_TILE, err, "warp tile %dx%dx%d: its packed "
                   "stages' byte twin %s does not plan: %s", w.m, w.n, w.k, w.arm ? w.arm : "",
                   wp.message[0] ? wp.message : werr.message);
  tcmma_plan_census(&wp, &cz, &werr);
  g->census.a_ldmatrix = cz.a_ldmatrix, g->census.b_ldmatrix = cz.b_ldmatrix;
  g->census.a_ldmatrix_x4 = cz.a_ldmatrix_x4, g->census.a_ldmatrix_x2 = cz.a_ldmatrix_x2;
  g->census.a_ldmatrix_x1 = cz.a_ldmatrix_x1, g->census.b_ldmatrix_x4 = cz.b_ldmatrix_x4;
  g->census.b_ldmatrix_x2 = cz.b_ldmatrix_x2, g->census.b_ldmatrix_x1 = cz.b_ldmatrix_x1;
  return TCMMA_OK;
}

/* The warp tile is a tile-MMA call over the stages, so its arm, ldmatrix
 * use, census and registers are the tile planner's own (decline WARP_TILE). */
static tcmma_status plan_warp_tile(tcmma_gemm_plan *g, tcmma_error *err) {
  tcmma__emit_gemm_exprs x;
  tcmma_call w;
  tcmma__emit_gemm_warp_call(g, &x, &w);
  tcmma_plan wp;
  tcmma_error werr = {0};
  if (tcmma_plan_call(&w, &wp, &werr) == TCMMA_OK) {
    tcmma_plan_census(&wp, &g->census, &werr);
    return tcmma__emit_gemm_pack(g) > 1 ? plan_twin(g, err) : TCMMA_OK;
  }
  /* the tile planner's message names its own one-warp default budget; the
   * warp tile was planned against all a thread may have */
  if (wp.reason == TCMMA_DECLINE_REGISTERS)
    return decline(g, TCMMA_GEMM_DECLINE_WARP_TILE, err, "warp tile %dx%dx%d: its accumulator "
                   "and one k step of fragments do not fit the %d registers a thread may have "
                   "(the GEMM's budget: call.registers, default %d)", w.m, w.n, w.k,
                   TCMMA_REGISTERS_MAX, TCMMA_GEMM_REGISTERS);
  return decline(g, TCMMA_GEMM_DECLINE_WARP_TILE, err, "warp tile %dx%dx%d: %s", w.m, w.n, w.k,
                 wp.message[0] ? wp.message : werr.message);
}

/* The block-scaled arms' rules (mma/gemm_scale.c: decline CALL, ARM or
 * ALIGNMENT), before the stages are shaped from them. */
static tcmma_status check_scales(tcmma_gemm_plan *g, const tcmma_gemm_opts *o,
                                 tcmma_error *err) {
  char msg[400];
  tcmma_gemm_decline why;
  if (!tcmma__emit_gemm_scale_rules(g, o, &why, msg, sizeof msg))
    return decline(g, why, err, "%s", msg);
  return TCMMA_OK;
}

/* Each operand's alignment class, asked or the widest its ld allows, and
 * the loader it gets (mma/gemm_shape.c; decline ALIGNMENT). */
static tcmma_status check_alignment(tcmma_gemm_plan *g, const tcmma_gemm_opts *o,
                                    tcmma_gemm_info *i, tcmma_error *err) {
  char msg[400];
  if (!tcmma__emit_gemm_classes(g, o, i, msg, sizeof msg))
    return decline(g, TCMMA_GEMM_DECLINE_ALIGNMENT, err, "%s", msg);
  return TCMMA_OK;
}


/* The stage ring and, after it, the epilogue's f32 tile share one dynamic
 * allocation, which the device (or every device from the arm's floor)
 * must give a block (decline SHARED). */
static tcmma_status plan_shared(tcmma_gemm_plan *g, const tcmma_arm_info *info,
                                const tcmma_gemm_info *gi, tcmma_error *err) {
  const tcmma_gemm_call *c = &g->call;
  /* a, b, then the block scales' tiles of a and b */
  g->stage_bytes = (size_t)(tcmma__emit_gemm_stage_copies(g, TCMMA_OPERAND_A) +
                            tcmma__emit_gemm_stage_copies(g, TCMMA_OPERAND_B)) *
                       TCMMA__GEMM_COPY_BYTES +
                   tcmma__emit_gemm_scale_tile_bytes(g, TCMMA_OPERAND_A) +
                   tcmma__emit_gemm_scale_tile_bytes(g, TCMMA_OPERAND_B);
  g->epilogue_bytes = (size_t)c->block_m * (size_t)g->epilogue_ld * 4;
  size_t ring = g->stage_bytes * (size_t)c->stages;
  g->shared_bytes = ring > g->epilogue_bytes ? ring : g->epilogue_bytes;
  /* split-K's last-slice flag after both, in the one dynamic allocation */
  size_t flag = gi->split_k > 1 ? TCMMA__GEMM_FLAG_BYTES : 0;
  g->shared_bytes += flag;
  /* any device (cc 0) that runs both the arm and the loader */
  int floor = info->floor > loader_floor() ? info->floor : loader_floor();
  g->shared_max = tcmma_shared_memory_max(c->cc, floor);
  if (g->shared_bytes > g->shared_max)
    return decline(g, TCMMA_GEMM_DECLINE_SHARED, err, "%zu bytes (%d stages of %zu, epilogue "
                   "%zu%s) exceed the %zu a block may use on %s%d", g->shared_bytes, c->stages,
                   g->stage_bytes, g->epilogue_bytes, flag ? ", split-K's flag" : "",
                   g->shared_max,
                   c->cc ? "cc " : "every device from cc ", c->cc ? c->cc : floor);
  return TCMMA_OK;
}

/* The registers per thread the kernel takes at most: the accumulator and
 * one k step of fragments (the warp tile's census), then terms fitted as an
 * upper bound on what ptxas takes (include/tcmma/gemm.h; issue #21): every
 * k step of a k tile, every 16-byte copy a thread issues per k tile (its
 * addresses and predicates), 1-byte operands, predication. A kernel over
 * the caller's budget would spill (decline REGISTERS). */
/* The copies beyond the 16-byte ones a thread issues per k tile: rows of a
 * class under 16 bytes take 16 / class copies for each 16-byte unit. */
static long narrow_copies(const tcmma_gemm_plan *g, const tcmma_gemm_info *i) {
  long a = tcmma__emit_gemm_copies_per_thread(g, TCMMA_OPERAND_A),
       b = tcmma__emit_gemm_copies_per_thread(g, TCMMA_OPERAND_B);
  return a * (TCMMA__GEMM_COPY_BYTES / i->a_copy_bytes - 1) +
         b * (TCMMA__GEMM_COPY_BYTES / i->b_copy_bytes - 1);
}

static tcmma_status budget_registers(tcmma_gemm_plan *g, const tcmma_gemm_info *i,
                                     tcmma_error *err) {
  const tcmma_census *cz = &g->census;
  long copies = tcmma__emit_gemm_stage_copies_per_thread(g), narrow = narrow_copies(g, i);
  bool bytes = tcmma_prec_bytes(g->call.a.prec) == 1 || tcmma_prec_bytes(g->call.b.prec) == 1;
  bool emulated = tcmma_arm_sass_products(g->arm, g->call.cc) > 1;
  long overhead = TCMMA_GEMM_REGISTER_OVERHEAD + (long)TCMMA_GEMM_REGISTERS_PER_K_STEP * cz->kt +
                  TCMMA_GEMM_REGISTERS_PER_COPY * copies +
                  TCMMA_GEMM_REGISTERS_PER_NARROW_COPY * narrow +
                  (k_rows_unrolled(g) ? TCMMA_GEMM_REGISTERS_K_ROWS_UNROLLED : 0) +
                  (bytes ? TCMMA_GEMM_REGISTERS_BYTE_OPERANDS : 0) +
                  (g->predicated ? TCMMA_GEMM_REGISTERS_PREDICATED : 0) +
                  (emulated ? TCMMA_GEMM_REGISTERS_EMULATED : 0);
  long regs = cz->registers + overhead;
  g->registers = (int)(regs < INT_MAX ? regs : INT_MAX);
  /* where ptxas emulates the arm it takes what the estimate says, and
   * spills when the launch bound leaves a thread less (512 threads: 128) */
  long cap = TCMMA_REGISTERS_PER_BLOCK / g->threads;
  if (emulated && regs > cap && cap < g->call.registers)
    return decline(g, TCMMA_GEMM_DECLINE_REGISTERS, err, "a %dx%d warp tile expects %ld registers "
                   "per thread where ptxas emulates %s on cc %d (tables/arm_emulation.def): over "
                   "the %ld a thread of a %d-thread block may have", g->warp_m, g->warp_n, regs,
                   tcmma_arm_marker(g->arm), g->call.cc, cap, g->threads);
  if (regs > g->call.registers)
    return decline(g, TCMMA_GEMM_DECLINE_REGISTERS, err, "a %dx%d warp tile expects %ld registers "
                   "per thread (accumulator and one k step of fragments %d, %ld for %d k steps, "
                   "%ld copies per thread%s%s%s%s): over the budget of %d (call.registers; the "
                   "GEMM's default %d)", g->warp_m, g->warp_n, regs, cz->registers, overhead,
                   cz->kt, copies + narrow, narrow ? " of classes under 16 bytes" : "",
                   bytes ? ", 1-byte operands" : "", g->predicated ? ", predication" : "",
                   emulated ? ", an mma.sync ptxas emulates on this cc" : "",
                   g->call.registers, TCMMA_GEMM_REGISTERS);
  return TCMMA_OK;
}

/* The per-k-tile figures a caller compares variants by, from the warp
 * tile's census and the loader's copies; then the plan is accepted. */
static void accept(tcmma_gemm_plan *g, tcmma_gemm_info *i) {
  g->mma_per_k_tile = g->census.mma_per_statement;
  g->ldmatrix_per_k_tile = (g->census.a_ldmatrix_x4 + g->census.a_ldmatrix_x2 +
                            g->census.b_ldmatrix_x4 + g->census.b_ldmatrix_x2) *
                           g->census.kt;
  /* the cp.async copies of each operand's class a thread issues (plain
   * loads are not counted) */
  long a = tcmma__emit_gemm_copies_per_thread(g, TCMMA_OPERAND_A) * TCMMA__GEMM_COPY_BYTES /
           i->a_copy_bytes,
       b = tcmma__emit_gemm_copies_per_thread(g, TCMMA_OPERAND_B) * TCMMA__GEMM_COPY_BYTES /
           i->b_copy_bytes;
  tcmma__emit_gemm_scale_info(g, i);
  /* and the scales' copies, cp.async from 4 bytes (every cc of their arms) */
  long s = i->scale_copy_bytes >= TCMMA__GEMM_ASYNC_MIN
               ? tcmma__emit_gemm_scale_copies_per_thread(g) : 0;
  g->cp_async_per_k_tile = (int)((i->a_plain ? 0 : a) + (i->b_plain ? 0 : b) + s);
  tcmma__emit_gemm_serves(g, i);
  i->arch_suffix = tcmma__emit_gemm_arch_suffix(g, i);
  g->accepted = true;
  g->reason = TCMMA_GEMM_DECLINE_NONE;
  snprintf(g->message, sizeof g->message, "accepted");
}

/* The mma.sync kernel's defaults for the call's zero fields. */
static void fill_defaults(tcmma_gemm_call *c) {
  if (!c->block_m) c->block_m = TCMMA_GEMM_BLOCK_M;
  if (!c->block_n) c->block_n = TCMMA_GEMM_BLOCK_N;
  if (!c->block_k) c->block_k = TCMMA_GEMM_BLOCK_K;
  if (!c->warps_m) c->warps_m = TCMMA_GEMM_WARPS_M;
  if (!c->warps_n) c->warps_n = TCMMA_GEMM_WARPS_N;
  if (!c->stages) c->stages = TCMMA_GEMM_STAGES;
  if (!c->registers) c->registers = TCMMA_GEMM_REGISTERS;
}

/* The defaults that depend on the arm, for the fields the caller left
 * zero (include/tcmma/gemm.h): block_k K_STEPS of the arm's k, and the
 * byte operands' warp grid where the 2x2 grid's warp tile would be taller
 * than BYTE_WARP_ROWS_MAX and block_m holds the byte grid's warps. */
static void fill_arm_defaults(tcmma_gemm_call *c, const tcmma_gemm_call *asked,
                              const tcmma_arm_info *arm) {
  if (!asked->block_k && TCMMA_GEMM_K_STEPS * arm->k > c->block_k)
    c->block_k = TCMMA_GEMM_K_STEPS * arm->k;
  if (!asked->warps_m && !asked->warps_n && tcmma_prec_bytes(c->a.prec) == 1 &&
      c->block_m / TCMMA_GEMM_WARPS_M > TCMMA_GEMM_BYTE_WARP_ROWS_MAX &&
      c->block_m % (TCMMA_GEMM_BYTE_WARPS_M * arm->m) == 0)
    c->warps_m = TCMMA_GEMM_BYTE_WARPS_M, c->warps_n = TCMMA_GEMM_BYTE_WARPS_N;
}

/* Whether AUTO takes the tcgen05 kernel for call c: it serves c's operands
 * and options on its cc (tcmma__emit_gemm_tcgen05_serves) and c's tile and
 * warp grid are the tcgen05 kernel's (block_m 128 over 4x1 warps, a zero
 * taking that default): an mma.sync warp grid keeps the mma.sync kernel. */
static bool tcgen05_chosen(const tcmma_gemm_call *c, const tcmma_gemm_opts *o) {
  int quarters = TCMMA_WARPGROUP_SIZE / TCMMA_WARP_SIZE;
  if ((c->block_m && c->block_m != TCMMA_GEMM_TCGEN05_BLOCK_M) ||
      (c->warps_m && c->warps_m != quarters) || (c->warps_n && c->warps_n != 1))
    return false;
  tcmma_gemm_decline why;
  char msg[256];
  return tcmma__emit_gemm_tcgen05_serves(c, o, &why, msg, sizeof msg);
}

/* The kernel kind of call c (tables/gemm_kernels.def): the one asked for;
 * for AUTO the tcgen05 kernel where c forces a tcgen05 arm or where it
 * serves c (tcgen05_chosen);
 * for AUTO the wgmma kernel where c forces a wgmma arm, or where the wgmma
 * kernel serves c's operands and options on its cc
 * (tcmma__emit_gemm_wgmma_serves) and c's warp grid is one of warpgroup
 * rows (warps_m x 16 = block_m, a zero taking the wgmma default): an
 * mma.sync warp grid keeps the mma.sync kernel. Decided on the caller's
 * call before any default is filled; the plan's own call, its defaults
 * filled, decides the same again (the renderer's check). */
static tcmma_gemm_kernel choose_kind(const tcmma_gemm_call *c, const tcmma_gemm_opts *o) {
  if (o->kernel != TCMMA_GEMM_KERNEL_AUTO) return o->kernel;
  if (c->arm && tcmma_wgmma_parse(c->arm, NULL, NULL) == TCMMA_OK) return TCMMA_GEMM_KERNEL_WGMMA;
  if (c->arm && tcmma_tcgen05_parse(c->arm, NULL, NULL) == TCMMA_OK)
    return TCMMA_GEMM_KERNEL_TCGEN05;
  if (tcgen05_chosen(c, o)) return TCMMA_GEMM_KERNEL_TCGEN05;
  int bm = c->block_m ? c->block_m : TCMMA_GEMM_WGMMA_BLOCK_M;
  if (c->warps_m && (long)c->warps_m * tcmma__emit_gemm_wgmma_warp_rows() != bm)
    return TCMMA_GEMM_KERNEL_MMA_SYNC;
  tcmma_gemm_decline why;
  char msg[256];
  return tcmma__emit_gemm_wgmma_serves(c, o, &why, msg, sizeof msg) ? TCMMA_GEMM_KERNEL_WGMMA
                                                                    : TCMMA_GEMM_KERNEL_MMA_SYNC;
}

/* The mma.sync kernel's plan of out->call (taken, its zero fields still
 * zero). */
static tcmma_status plan_mma_sync(tcmma_gemm_plan *out, const tcmma_gemm_opts *o,
                                  tcmma_gemm_info *info, tcmma_error *err) {
  info->kernel = TCMMA_GEMM_KERNEL_MMA_SYNC;
  tcmma_gemm_call asked = out->call;
  fill_defaults(&out->call);
  tcmma_status st = tcmma__emit_gemm_check_call(out, o, TCMMA_GEMM_STAGES_MAX, err);
  if (st == TCMMA_OK) st = tcmma__emit_gemm_choose_arm(out, err);
  if (st != TCMMA_OK) return st;
  const tcmma_arm_info *arm = tcmma_arm_get(out->arm);
  fill_arm_defaults(&out->call, &asked, arm);
  if ((st = check_arm_form(out, arm, err)) != TCMMA_OK) return st;
  if ((st = check_arch(out, arm, err)) != TCMMA_OK) return st;
  if ((st = check_scales(out, o, err)) != TCMMA_OK) return st;
  if ((st = shape_stages(out, err)) != TCMMA_OK) return st;
  if ((st = plan_warp_tile(out, err)) != TCMMA_OK) return st;
  if ((st = check_alignment(out, o, info, err)) != TCMMA_OK) return st;
  if ((st = tcmma__emit_gemm_plan_grid(out, o->shape_args, err)) != TCMMA_OK) return st;
  if ((st = tcmma__emit_gemm_plan_batch(out, o, info, err)) != TCMMA_OK) return st;
  if ((st = plan_shared(out, arm, info, err)) != TCMMA_OK) return st;
  if ((st = budget_registers(out, info, err)) != TCMMA_OK) return st;
  accept(out, info);
  return TCMMA_OK;
}

tcmma_status tcmma__emit_gemm_plan(const tcmma_gemm_call *call, const tcmma_gemm_opts *opts,
                                   tcmma_gemm_plan *out, tcmma_gemm_info *info,
                                   tcmma_error *err) {
  tcmma_gemm_opts o = opts ? *opts : tcmma__emit_gemm_opts_unasked();
  memset(info, 0, sizeof *info);
  info->size = sizeof *info;
  info->shape_args = o.shape_args;
  info->wgmma = TCMMA_WGMMA_NONE;
  info->tcgen05 = TCMMA_TCGEN05_NONE;
  if ((unsigned)o.kernel >= TCMMA_GEMM_KERNEL_COUNT)
    return tcmma_fail(err, TCMMA_INVALID, "tcmma_gemm_opts.kernel %d: expected 0..%d (%s)",
                      (int)o.kernel, TCMMA_GEMM_KERNEL_COUNT - 1, "tables/gemm_kernels.def");
  tcmma_status st = tcmma__emit_gemm_take_call(call, out, err);
  if (st != TCMMA_OK) return st;
  tcmma_gemm_kernel kind = choose_kind(&out->call, &o);
  if (kind == TCMMA_GEMM_KERNEL_WGMMA) return tcmma__emit_gemm_plan_wgmma(out, &o, info, err);
  if (kind == TCMMA_GEMM_KERNEL_TCGEN05) return tcmma__emit_gemm_plan_tcgen05(out, &o, info, err);
  return plan_mma_sync(out, &o, info, err);
}

tcmma_status tcmma_gemm_plan_call(const tcmma_gemm_call *call, tcmma_gemm_plan *out,
                                  tcmma_error *err) {
  tcmma_gemm_info info;
  return tcmma__emit_gemm_plan(call, NULL, out, &info, err);
}

tcmma_status tcmma_gemm_plan_opts(const tcmma_gemm_call *call, const tcmma_gemm_opts *opts,
                                  tcmma_gemm_plan *out, tcmma_gemm_info *info,
                                  tcmma_error *err) {
  tcmma_gemm_opts o = tcmma__emit_gemm_opts_unasked();
  if (opts) {
    tcmma_status t = tcmma__abi_take(&o, opts, sizeof o, &o, "tcmma_gemm_opts",
                                     "tcmma_gemm_opts_default()", err);
    if (t != TCMMA_OK) return t;
  }
  size_t want = info && info->size ? info->size : sizeof(tcmma_gemm_info);
  if (info && (want < sizeof info->size || want > sizeof(tcmma_gemm_info)))
    return tcmma_fail(err, TCMMA_INVALID, "tcmma_gemm_info.size is %zu: expected %zu..%zu (0: "
                      "this library's)", want, sizeof info->size, sizeof(tcmma_gemm_info));
  tcmma_gemm_info full;
  tcmma_status st = tcmma__emit_gemm_plan(call, &o, out, &full, err);
  if (info) memcpy(info, &full, want), info->size = want;
  return st;
}
