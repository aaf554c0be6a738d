/* Planning the Blackwell GEMM (include/tcmma/gemm.h, docs/emit.md "The
 * Blackwell GEMM"): a warp-specialised kernel of one TMA producer thread
 * (warp 4), one thread issuing tcgen05.mma (warp 5) into an m128 x block_n
 * f32 accumulator in Tensor Memory, and an epilogue warpgroup (warps 0-3,
 * each its own 32-lane quarter of Tensor Memory) that reads it with
 * tcgen05.ld once the last product's commit lands. What it serves (an f16,
 * bf16 or fp8 triple whose tcgen05 row has an f32 accumulator, A K-major
 * or, 16-bit, M-major, B K-major or, unscaled, N-major, the TMA kernels'
 * rows and batches, cc 10.x) is
 * tcmma__emit_gemm_tcgen05_serves; the tile, the operand descriptors'
 * plans, Tensor Memory, shared memory and the registers are planned here. */
#include <stdio.h>
#include <string.h>
#include "emit.h"
#include "gemm_plan.h"
#include "gemm_rules.h"
#include "tcmma/gemm.h"
#include "tcmma/tcgen05.h"

#define decline tcmma__emit_gemm_decline

enum { LOAD_COLUMNS = TCMMA__GEMM_TMEM_LOAD_COLUMNS };

/* The tcgen05 row with an f32 accumulator and no block scales that
 * multiplies a by b as tcmma stores them; NONE when no row does. */
static tcmma_tcgen05 row_of_precs(tcmma_prec a, tcmma_prec b) {
  for (int w = 0; w < TCMMA_TCGEN05_COUNT; w++) {
    const tcmma_tcgen05_info *i = tcmma_tcgen05_get((tcmma_tcgen05)w);
    if (i->acc == TCMMA_PREC_F32 && !i->block && tcmma_tcgen05_takes((tcmma_tcgen05)w, a, b) &&
        tcmma_tcgen05_reads_storage((tcmma_tcgen05)w, a) &&
        tcmma_tcgen05_reads_storage((tcmma_tcgen05)w, b))
      return (tcmma_tcgen05)w;
  }
  return TCMMA_TCGEN05_NONE;
}

/* The block-scaled tcgen05 row that multiplies a by b as the GEMM stores
 * them (kind::mxf8f6f4's fp8 one a byte; kind::mxf4's and mxf4nvf4's
 * packed fp4); NONE when no row does. */
static tcmma_tcgen05 scaled_row_of_precs(tcmma_prec a, tcmma_prec b) {
  for (int w = 0; w < TCMMA_TCGEN05_COUNT; w++) {
    const tcmma_tcgen05_info *i = tcmma_tcgen05_get((tcmma_tcgen05)w);
    int pa = tcmma_tcgen05_pack((tcmma_tcgen05)w, a), pb = tcmma_tcgen05_pack((tcmma_tcgen05)w, b);
    if (i->block && tcmma_tcgen05_takes((tcmma_tcgen05)w, a, b) && pa && pa == pb)
      return (tcmma_tcgen05)w;
  }
  return TCMMA_TCGEN05_NONE;
}

/* Elements a stored byte of call c holds for row w: 2 for packed fp4. */
static int pack_of(const tcmma_gemm_call *c, tcmma_tcgen05 w) {
  int p = tcmma_tcgen05_pack(w, c->a.prec);
  return p > 1 ? p : 1;
}

/* A block-scaled call's row and the plan's arm: the cc 12.x block-scaled
 * mma.sync arm of the same triple, whose scale block and storage the
 * kernel's sfa, sfb and operands follow (one contract for both kernels). */
static bool scaled_row_of_call(const tcmma_gemm_call *c, tcmma_tcgen05 *w, tcmma_arm *arm,
                               tcmma_gemm_decline *why, char *msg, size_t cap) {
  *w = scaled_row_of_precs(c->a.prec, c->b.prec);
  if (*w == TCMMA_TCGEN05_NONE || (c->arm && strcmp(c->arm, tcmma_tcgen05_marker(*w))))
    return snprintf(msg, cap, "%s x %s%s%s: the tcgen05 kernel's block-scaled operands are "
                    "mxe4m3 and mxe5m2 (tcgen05-mxf8f6f4), mxf4 (tcgen05-mxf4) and nvf4 "
                    "(tcgen05-nvf4), each with itself (fp6 and fp4 of kind::mxf8f6f4 are read "
                    "padded)", tcmma_prec_name(c->a.prec), tcmma_prec_name(c->b.prec),
                    c->arm ? ", arm " : "", c->arm ? c->arm : ""), false;
  tcmma_triple t = {c->d.prec, c->a.prec, c->b.prec};
  tcmma_error rerr = {0};
  if (tcmma_resolve(t, &c->numerics, TCMMA_SCOPE_FRAGMENT, 0, arm, &rerr) != TCMMA_OK)
    return *why = TCMMA_GEMM_DECLINE_ARM, snprintf(msg, cap, "%s", rerr.message), false;
  return true;
}

/* The tcgen05 row of call c: its forced tcgen05 arm, or the row of its
 * operands; *arm the mma.sync arm c's triple resolves to at its cc (the
 * plan's arm: the numerics policy's; block-scaled: scaled_row_of_call).
 * false with msg and *why otherwise. */
static bool row_of_call(const tcmma_gemm_call *c, tcmma_tcgen05 *w, tcmma_arm *arm,
                        tcmma_gemm_decline *why, char *msg, size_t cap) {
  *why = TCMMA_GEMM_DECLINE_KERNEL;
  if (tcmma_prec_is_scaled(c->a.prec) && tcmma_prec_is_scaled(c->b.prec))
    return scaled_row_of_call(c, w, arm, why, msg, cap);
  if (tcmma_prec_bytes(c->a.prec) > 2 || tcmma_prec_bytes(c->b.prec) > 2 ||
      tcmma_prec_is_scaled(c->a.prec) || tcmma_prec_is_scaled(c->b.prec) ||
      tcmma_prec_is_integer(c->a.prec) || tcmma_prec_is_integer(c->b.prec))
    return snprintf(msg, cap, "%s x %s operands: the tcgen05 kernel takes 1- and 2-byte reals "
                    "(f16, bf16, fp8, mxe4m3 and mxe5m2 with their scales; tf32's 4-byte "
                    "stages and i8's s32 accumulator are not written)",
                    tcmma_prec_name(c->a.prec), tcmma_prec_name(c->b.prec)), false;
  if (c->arm && tcmma_tcgen05_parse(c->arm, w, NULL) == TCMMA_OK) {
    const tcmma_tcgen05_info *i = tcmma_tcgen05_get(*w);
    if (i->acc != TCMMA_PREC_F32 || i->block || !tcmma_tcgen05_takes(*w, c->a.prec, c->b.prec))
      return snprintf(msg, cap, "arm %s: the tcgen05 kernel needs an unscaled arm with an f32 "
                      "accumulator that multiplies %s by %s", c->arm,
                      tcmma_prec_name(c->a.prec), tcmma_prec_name(c->b.prec)), false;
  } else if (c->arm) {
    return snprintf(msg, cap, "arm %s is no tcgen05 arm (tables/tcgen05.def)", c->arm), false;
  } else if ((*w = row_of_precs(c->a.prec, c->b.prec)) == TCMMA_TCGEN05_NONE) {
    return snprintf(msg, cap, "%s x %s: no tcgen05 row with an f32 accumulator multiplies them",
                    tcmma_prec_name(c->a.prec), tcmma_prec_name(c->b.prec)), false;
  }
  tcmma_triple t = {c->d.prec, c->a.prec, c->b.prec};
  tcmma_error rerr = {0};
  if (tcmma_resolve(t, &c->numerics, TCMMA_SCOPE_FRAGMENT, c->cc, arm, &rerr) != TCMMA_OK)
    return *why = TCMMA_GEMM_DECLINE_ARM, snprintf(msg, cap, "%s", rerr.message), false;
  return true;
}

bool tcmma__emit_gemm_tcgen05_serves(const tcmma_gemm_call *c, const tcmma_gemm_opts *o,
                                     tcmma_gemm_decline *why, char *msg, size_t cap) {
  tcmma_tcgen05 w;
  tcmma_arm arm;
  if (!row_of_call(c, &w, &arm, why, msg, cap)) return false;
  if (c->cc == 0 || !tcmma_tcgen05_runs_on(w, c->cc))
    return *why = TCMMA_GEMM_DECLINE_ARCH,
           snprintf(msg, cap, "cc %d: the tcgen05 kernel runs on cc 10.x only (%s: from cc %d, "
                    "an arch-specific or family target of 10.x)", c->cc, tcmma_tcgen05_marker(w),
                    tcmma_tcgen05_get(w)->floor), false;
  *why = TCMMA_GEMM_DECLINE_KERNEL;
  /* A K-major (m x k), or M-major (k x m) for 16-bit elements: panels of
   * one span along m, the m128 product's one descriptor with the panel as
   * its LBO (an fp8 A's 128 rows are one span: not written). B K-major
   * (stored transposed, n x k), or N-major (k x n) where the row reads it
   * so: panels of one span along n, one product each */
  bool mn = tcmma_tcgen05_get(w)->trans && !tcmma_tcgen05_get(w)->block;
  if ((c->a.transposed && (!mn || tcmma_prec_bytes(c->a.prec) != 2)) ||
      (!c->b.transposed && !mn))
    return snprintf(msg, cap, "a%s, b%s (%s x %s): the tcgen05 kernel reads a K-major (m x k) "
                    "or, f16 and bf16, M-major (k x m), and b K-major (stored transposed, n x k) "
                    "or, unscaled, N-major (k x n)", c->a.transposed ? ",t" : "",
                    c->b.transposed ? ",t" : "", tcmma_prec_name(c->a.prec),
                    tcmma_prec_name(c->b.prec)), false;
  return tcmma__emit_gemm_tma_serves(c, o, pack_of(c, w), "tcgen05", msg, cap);
}

/* The tcgen05 kernel's defaults for the call's zero fields: the warp grid
 * is the epilogue warpgroup's four warps of 32 rows. */
static void fill_defaults(tcmma_gemm_call *c, int pack) {
  if (!c->block_m) c->block_m = TCMMA_GEMM_TCGEN05_BLOCK_M;
  if (!c->block_n) c->block_n = TCMMA_GEMM_TCGEN05_BLOCK_N;
  if (!c->block_k) /* a k tile: rows of one 128-byte span */
    c->block_k = tcmma_swizzle_get(TCMMA_SWIZZLE_B128)->bytes / tcmma_prec_bytes(c->a.prec) * pack;
  if (!c->warps_m) c->warps_m = TCMMA_WARPGROUP_SIZE / TCMMA_WARP_SIZE;
  if (!c->warps_n) c->warps_n = 1;
  if (!c->stages) c->stages = TCMMA_GEMM_TCGEN05_STAGES;
  if (!c->registers) c->registers = TCMMA_GEMM_REGISTERS;
}

tcmma_tcgen05_call tcmma__emit_gemm_tcgen05_tile(const tcmma_gemm_plan *g,
                                                 const tcmma_gemm_info *i, tcmma_dialect dl,
                                                 const char *name) {
  const tcmma_gemm_call *c = &g->call;
  tcmma_coord zero = {0, NULL, 0};
  tcmma_tcgen05_call t = TCMMA_TCGEN05_CALL_INIT(.arm = (tcmma_tcgen05)i->tcgen05,
                                                 .m = c->block_m, .n = c->block_n,
                                                 .k = c->block_k, .name = name, .dialect = dl);
  t.a = (tcmma_operand_desc){c->a.prec, false, c->block_k, TCMMA_SPACE_SHARED, g->a_swizzle,
                             zero, zero};
  if (c->a.transposed) { /* M-major: the m128 over panels of one span along m, LBO a panel */
    t.a.transposed = true, t.a.ld = tcmma__emit_gemm_tma_panel(g);
    t.a_panel_rows = c->block_k;
  }
  t.b = (tcmma_operand_desc){c->b.prec, true, c->block_k, TCMMA_SPACE_SHARED, g->b_swizzle,
                             zero, zero};
  if (!c->b.transposed) { /* N-major: one product per panel of one span along n */
    t.n = tcmma__emit_gemm_tma_panel_b(g);
    t.b.transposed = false, t.b.ld = t.n;
  }
  return t;
}

/* An N-major B's stage: panels of the widest swizzle span along n, each
 * block_k rows of one span (a TMA box and a tile product of n = the
 * panel's elements): block_n whole panels of an instruction n (decline
 * TILE). Sets b's swizzle. */
static tcmma_status n_major_panels(tcmma_gemm_plan *g, const tcmma_tcgen05_info *r,
                                   tcmma_error *err) {
  const tcmma_gemm_call *c = &g->call;
  if (c->b.transposed) return TCMMA_OK;
  g->b_swizzle = TCMMA_SWIZZLE_B128;
  int panel = tcmma__emit_gemm_tma_panel_b(g);
  if (c->block_n % panel || !tcmma_tcgen05_shape_ok(r->id, c->block_m, panel))
    return decline(g, TCMMA_GEMM_DECLINE_TILE, err, "block_n %d: an N-major b's stage is panels "
                   "of %d elements (one %d-byte swizzle span), one product of n %d each: "
                   "block_n must be whole panels", c->block_n, panel,
                   tcmma_swizzle_get(g->b_swizzle)->bytes, panel);
  return TCMMA_OK;
}

/* The block tile: one instruction m (128: lane r of Tensor Memory is row r)
 * over the epilogue warpgroup's four warps of 32 rows, block_n an
 * instruction n of the row in whole tcgen05.ld loads, k tiles of one
 * swizzle span; the tile product's operand plans (decline TILE). */
static tcmma_status shape_tile(tcmma_gemm_plan *g, tcmma_gemm_info *i, tcmma_error *err) {
  const tcmma_gemm_call *c = &g->call;
  tcmma_tcgen05 w = (tcmma_tcgen05)i->tcgen05;
  const tcmma_tcgen05_info *r = tcmma_tcgen05_get(w);
  int quarters = TCMMA_WARPGROUP_SIZE / TCMMA_WARP_SIZE, lanes = TCMMA_TMEM_LANES;
  if (c->block_m != lanes || c->warps_m != quarters || c->warps_n != 1)
    return decline(g, TCMMA_GEMM_DECLINE_TILE, err, "block_m %d over %dx%d warps: the tcgen05 "
                   "kernel's tile is one m%d product (a row per Tensor Memory lane) read by %dx1 "
                   "warps of %d rows", c->block_m, c->warps_m, c->warps_n, lanes, quarters,
                   lanes / quarters);
  if (!tcmma_tcgen05_shape_ok(w, c->block_m, c->block_n) || c->block_n % LOAD_COLUMNS)
    return decline(g, TCMMA_GEMM_DECLINE_TILE, err, "block_n %d: an instruction n of %s at m%d "
                   "(tables/tcgen05.def) in whole loads of %d columns", c->block_n, r->marker,
                   c->block_m, LOAD_COLUMNS);
  int pk = pack_of(c, w);
  long row_bytes = (long)c->block_k * tcmma_prec_bytes(c->a.prec) / pk;
  g->a_swizzle = g->b_swizzle = tcmma__emit_gemm_tma_span_swizzle(row_bytes);
  if (!g->a_swizzle || c->block_k % r->k ||
      (long)c->block_k * tcmma_prec_bytes(c->b.prec) / pk != row_bytes)
    return decline(g, TCMMA_GEMM_DECLINE_TILE, err, "block_k %d: a stage row of %ld bytes must "
                   "be one swizzle span (32, 64 or 128 bytes) and block_k a multiple of %s's k "
                   "%d", c->block_k, row_bytes, r->marker, r->k);
  tcmma_status st = n_major_panels(g, r, err);
  if (st != TCMMA_OK) return st;
  if (c->a.transposed) g->a_swizzle = TCMMA_SWIZZLE_B128; /* panels of one span along m */
  g->threads = TCMMA__GEMM_TCGEN05_WARPS * TCMMA_WARP_SIZE; /* epilogue, producer, MMA */
  g->warp_m = lanes / quarters, g->warp_n = c->block_n;
  /* the stage in stored units (packed fp4: bytes along k) */
  g->a_rows = c->a.transposed ? c->block_k : c->block_m;
  g->a_cols = c->a.transposed ? c->block_m : c->block_k / pk;
  g->b_rows = c->b.transposed ? c->block_n : c->block_k;
  g->b_cols = c->b.transposed ? c->block_k / pk : c->block_n;
  tcmma_tcgen05_call t = tcmma__emit_gemm_tcgen05_tile(g, i, TCMMA_DIALECT_CUDA, NULL);
  tcmma_tcgen05_operand a, b;
  tcmma_error werr = {0};
  if (tcmma_tcgen05_operand_plan_panels(w, TCMMA_OPERAND_A, t.m, t.n, &t.a, t.a_panel_rows, &a,
                                        &werr) != TCMMA_OK ||
      tcmma_tcgen05_operand_plan(w, TCMMA_OPERAND_B, t.m, t.n, &t.b, &b, &werr) != TCMMA_OK)
    return decline(g, TCMMA_GEMM_DECLINE_TILE, err, "the stages as the tile product reads them: "
                   "%s", werr.message);
  g->mma_per_k_tile = c->block_k / r->k * (c->block_n / t.n);
  /* the f32 accumulator: block_n columns, an allocation a power of two from 32 */
  int cols = TCMMA_TMEM_ALLOC_MIN;
  while (cols < c->block_n) cols *= 2;
  i->tmem_columns = cols;
  return TCMMA_OK;
}

int tcmma__emit_gemm_tcgen05_scale_atoms(const tcmma_gemm_plan *g, const tcmma_gemm_info *i,
                                         tcmma_operand op) {
  const tcmma_gemm_call *c = &g->call;
  return tcmma_tcgen05_scale_atoms((tcmma_tcgen05)i->tcgen05,
                                   op == TCMMA_OPERAND_A ? c->block_m : c->block_n, c->block_k);
}

size_t tcmma__emit_gemm_tcgen05_scale_bytes(const tcmma_gemm_plan *g, const tcmma_gemm_info *i) {
  size_t bytes = (size_t)(tcmma__emit_gemm_tcgen05_scale_atoms(g, i, TCMMA_OPERAND_A) +
                          tcmma__emit_gemm_tcgen05_scale_atoms(g, i, TCMMA_OPERAND_B)) *
                 TCMMA_TCGEN05_SCALE_ATOM_BYTES;
  size_t align = tcmma__emit_gemm_tma_align(g);
  return (bytes + align - 1) / align * align;
}

/* A block-scaled plan's scales: each stage's atoms after its tiles, and
 * each stage's scale columns in Tensor Memory after the accumulator's
 * (4 per atom: a stage's columns are rewritten only once its products
 * completed, the empty mbarrier's order); decline SHARED or TILE. */
static tcmma_status plan_scales(tcmma_gemm_plan *g, tcmma_gemm_info *i, tcmma_error *err) {
  const tcmma_gemm_call *c = &g->call;
  size_t extra = tcmma__emit_gemm_tcgen05_scale_bytes(g, i);
  if (!extra) return TCMMA_OK;
  g->stage_bytes += extra;
  g->shared_bytes += extra * (size_t)c->stages;
  if (g->shared_bytes > g->shared_max)
    return decline(g, TCMMA_GEMM_DECLINE_SHARED, err, "%zu bytes (%d stages of %zu with their "
                   "%zu bytes of scale atoms) exceed the %zu a block may use on cc %d",
                   g->shared_bytes, c->stages, g->stage_bytes, extra, g->shared_max, c->cc);
  int atoms = tcmma__emit_gemm_tcgen05_scale_atoms(g, i, TCMMA_OPERAND_A) +
              tcmma__emit_gemm_tcgen05_scale_atoms(g, i, TCMMA_OPERAND_B);
  int need = c->block_n + c->stages * atoms * TCMMA_TCGEN05_SCALE_ATOM_ROWS /
                              TCMMA_TCGEN05_SCALE_LANES;
  if (need > TCMMA_TMEM_COLUMNS)
    return decline(g, TCMMA_GEMM_DECLINE_TILE, err, "block_n %d and %d stages of %d scale atoms "
                   "(4 columns each) take %d Tensor Memory columns: over %d", c->block_n,
                   c->stages, atoms, need, TCMMA_TMEM_COLUMNS);
  while (i->tmem_columns < need) i->tmem_columns *= 2;
  return TCMMA_OK;
}

/* The registers: the epilogue's thread holds one tcgen05.ld's registers and
 * the epilogue's indices; TCMMA_GEMM_TCGEN05_REGISTERS bounds what ptxas
 * takes (decline REGISTERS against the call's budget). */
static tcmma_status budget_registers(tcmma_gemm_plan *g, tcmma_error *err) {
  g->registers = TCMMA_GEMM_TCGEN05_REGISTERS;
  if (g->registers > g->call.registers)
    return decline(g, TCMMA_GEMM_DECLINE_REGISTERS, err, "the tcgen05 kernel's threads take up to "
                   "%d registers (one tcgen05.ld of %d columns, the epilogue's indices): over the "
                   "budget of %d (call.registers)", g->registers, LOAD_COLUMNS,
                   g->call.registers);
  return TCMMA_OK;
}

tcmma_status tcmma__emit_gemm_plan_tcgen05(tcmma_gemm_plan *g, const tcmma_gemm_opts *o,
                                           tcmma_gemm_info *i, tcmma_error *err) {
  tcmma_gemm_call *c = &g->call;
  i->kernel = TCMMA_GEMM_KERNEL_TCGEN05;
  char msg[400];
  tcmma_gemm_decline why;
  if (!tcmma__emit_gemm_tcgen05_serves(c, o, &why, msg, sizeof msg))
    return decline(g, why, err, "%s", msg);
  tcmma_tcgen05 w;
  tcmma_arm arm;
  row_of_call(c, &w, &arm, &why, msg, sizeof msg);
  i->tcgen05 = w, g->arm = arm;
  fill_defaults(c, pack_of(c, w));
  tcmma_status st = tcmma__emit_gemm_tma_check_call(g, o, TCMMA_GEMM_TCGEN05_STAGES_MAX,
                                                    "tcgen05", TCMMA__GEMM_UMMA_SUFFIX, err);
  if (st != TCMMA_OK) return st;
  /* the block-scaled contract the 12.x kernels hold (whole bytes of packed fp4) */
  if (!tcmma__emit_gemm_scale_rules(g, o, &why, msg, sizeof msg))
    return decline(g, why, err, "%s", msg);
  if ((st = shape_tile(g, i, err)) != TCMMA_OK) return st;
  /* a full and an empty mbarrier per stage, the accumulator's, the Tensor
   * Memory address's cell */
  if ((st = tcmma__emit_gemm_tma_layout(g, o, i, 2 * c->stages + 2, err)) != TCMMA_OK) return st;
  if ((st = plan_scales(g, i, err)) != TCMMA_OK) return st;
  if ((st = budget_registers(g, err)) != TCMMA_OK) return st;
  tcmma__emit_gemm_tma_accept(g, i);
  if (i->scale_block) i->scale_copy_bytes = 1; /* the producer warp's byte loads */
  return TCMMA_OK;
}
