/* Planning the Hopper GEMM (include/tcmma/gemm.h, docs/emit.md "The Hopper
 * GEMM"): a warp-specialised kernel of one producer warpgroup, whose one
 * thread loads each k tile's A and B boxes with TMA into a ring of stages
 * behind full/empty mbarriers, and consumer warpgroups that each multiply an
 * m64 x n strip of the block tile with wgmma.mma_async straight from the
 * swizzled stages and apply the epilogue from their accumulator registers.
 * What it serves (K-major operands of an f16, bf16 or fp8 arm with f32
 * accumulators, 16-bit ones also M-major A and N-major B, 16-byte rows, one
 * matrix, no split-K, on cc 9.0) is
 * tcmma__emit_gemm_wgmma_serves; the tile, the stages' swizzle, shared
 * memory and the registers setmaxnreg gives each side are planned here. */
#include <stdio.h>
#include <string.h>
#include "emit.h"
#include "gemm_plan.h"
#include "gemm_rules.h"
#include "tcmma/gemm.h"
#include "tcmma/wgmma.h"

#define decline tcmma__emit_gemm_decline

enum { WARPS_PER_GROUP = TCMMA_WARPGROUP_SIZE / TCMMA_WARP_SIZE };

int tcmma__emit_gemm_wgmma_warp_rows(void) {
  /* every row of tables/wgmma.def is m64: a warp holds 16 of its rows */
  return tcmma_wgmma_get((tcmma_wgmma)0)->m / WARPS_PER_GROUP;
}

/* The wgmma row that multiplies as mma.sync arm `arm` does (its a_frag)
 * with an f32 accumulator; NONE when no row does. */
static tcmma_wgmma row_of_arm(tcmma_arm arm) {
  for (int w = 0; w < TCMMA_WGMMA_COUNT; w++) {
    const tcmma_wgmma_info *i = tcmma_wgmma_get((tcmma_wgmma)w);
    if (i->a_frag == arm && i->acc == TCMMA_PREC_F32) return (tcmma_wgmma)w;
  }
  return TCMMA_WGMMA_NONE;
}

/* The wgmma row of call c: its forced wgmma arm, or the row of the
 * mma.sync arm its triple resolves to; *arm that mma.sync arm (the plan's
 * arm: the numerics are the same). false with msg and *why otherwise. */
static bool row_of_call(const tcmma_gemm_call *c, tcmma_wgmma *w, tcmma_arm *arm,
                        tcmma_gemm_decline *why, char *msg, size_t cap) {
  *why = TCMMA_GEMM_DECLINE_KERNEL;
  if ((unsigned)c->a.prec >= TCMMA_PREC_COUNT || (unsigned)c->b.prec >= TCMMA_PREC_COUNT ||
      (unsigned)c->d.prec >= TCMMA_PREC_COUNT)
    return snprintf(msg, cap, "a precision is out of range"), false;
  if (tcmma_prec_bytes(c->a.prec) > 2 || tcmma_prec_bytes(c->b.prec) > 2 ||
      tcmma_prec_is_scaled(c->a.prec) || tcmma_prec_is_scaled(c->b.prec))
    return snprintf(msg, cap, "%s x %s operands: the wgmma kernel takes unscaled 1- and 2-byte "
                    "ones (f16, bf16, fp8)", tcmma_prec_name(c->a.prec),
                    tcmma_prec_name(c->b.prec)), false;
  if (c->arm && tcmma_wgmma_parse(c->arm, w, NULL) == TCMMA_OK) {
    const tcmma_wgmma_info *i = tcmma_wgmma_get(*w);
    *arm = i->a_frag;
    if (i->acc != TCMMA_PREC_F32 || !tcmma_wgmma_takes(*w, c->a.prec, c->b.prec))
      return snprintf(msg, cap, "arm %s: the wgmma kernel needs an arm with an f32 accumulator "
                      "that multiplies %s by %s", c->arm, tcmma_prec_name(c->a.prec),
                      tcmma_prec_name(c->b.prec)), false;
    return true;
  }
  if (c->arm)
    return snprintf(msg, cap, "arm %s is no wgmma arm (tables/wgmma.def)", c->arm), false;
  tcmma_triple t = {c->d.prec, c->a.prec, c->b.prec};
  tcmma_error rerr = {0};
  if (tcmma_resolve(t, &c->numerics, TCMMA_SCOPE_FRAGMENT, c->cc, arm, &rerr) != TCMMA_OK)
    return *why = TCMMA_GEMM_DECLINE_ARM, snprintf(msg, cap, "%s", rerr.message), false;
  if ((*w = row_of_arm(*arm)) == TCMMA_WGMMA_NONE)
    return snprintf(msg, cap, "arm %s (%s = %s x %s) has no wgmma row with an f32 accumulator",
                    tcmma_arm_marker(*arm), tcmma_prec_name(t.d), tcmma_prec_name(t.a),
                    tcmma_prec_name(t.b)), false;
  return true;
}

/* An N-major B's stage is panels of one 128-byte swizzle span along n,
 * block_k rows each, a TMA box each; a consumer's descriptor reads its n
 * from a panel's first column, panels LBO apart: its n (block_n over
 * warps_n, the defaults where zero) whole panels. */
static bool n_major_fits(const tcmma_gemm_call *c, char *msg, size_t cap) {
  int bn = c->block_n ? c->block_n : TCMMA_GEMM_WGMMA_BLOCK_N, wn = c->warps_n ? c->warps_n : 1;
  int panel = tcmma_swizzle_get(TCMMA_SWIZZLE_B128)->bytes / tcmma_prec_bytes(c->b.prec);
  if (bn % wn == 0 && bn / wn % panel == 0) return true;
  return snprintf(msg, cap, "block_n %d over %d warps, b N-major: a consumer's n (%d) must be "
                  "whole panels of %d elements (one %d-byte swizzle span along n)", bn, wn,
                  bn % wn ? 0 : bn / wn, panel, tcmma_swizzle_get(TCMMA_SWIZZLE_B128)->bytes),
         false;
}

bool tcmma__emit_gemm_wgmma_serves(const tcmma_gemm_call *c, const tcmma_gemm_opts *o,
                                   tcmma_gemm_decline *why, char *msg, size_t cap) {
  tcmma_wgmma w;
  tcmma_arm arm;
  if (!row_of_call(c, &w, &arm, why, msg, cap)) return false;
  if (c->cc == 0 || !tcmma_wgmma_runs_on(w, c->cc))
    return *why = TCMMA_GEMM_DECLINE_ARCH,
           snprintf(msg, cap, "cc %d: the wgmma kernel runs on cc %d only (%s needs sm_%da; "
                    "wgmma is not forward-compatible)", c->cc, tcmma_wgmma_get(w)->floor,
                    tcmma_wgmma_marker(w), tcmma_wgmma_get(w)->floor), false;
  *why = TCMMA_GEMM_DECLINE_KERNEL;
  /* A and B K-major, or M- and N-major where the row has imm-trans (16-bit:
   * a stored k x m, b k x n) */
  bool trans = tcmma_wgmma_get(w)->trans;
  if ((c->a.transposed || !c->b.transposed) && !trans)
    return snprintf(msg, cap, "a%s, b%s: the wgmma kernel reads %s operands K-major only (a m x "
                    "k, b stored transposed, n x k): M- and N-major only where the row has "
                    "imm-trans (f16, bf16)", c->a.transposed ? ",t" : "",
                    c->b.transposed ? ",t" : "", tcmma_prec_name(c->a.prec)), false;
  if (!c->b.transposed && !n_major_fits(c, msg, cap)) return false;
  return tcmma__emit_gemm_tma_serves(c, o, 1, "wgmma", msg, cap);
}

/* The wgmma kernel's defaults for the call's zero fields. */
static void fill_defaults(tcmma_gemm_call *c) {
  if (!c->block_m) c->block_m = TCMMA_GEMM_WGMMA_BLOCK_M;
  if (!c->block_n) c->block_n = TCMMA_GEMM_WGMMA_BLOCK_N;
  if (!c->block_k)
    c->block_k = tcmma_swizzle_get(TCMMA_SWIZZLE_B128)->bytes / tcmma_prec_bytes(c->a.prec);
  if (!c->warps_m) c->warps_m = c->block_m / tcmma__emit_gemm_wgmma_warp_rows();
  if (!c->warps_n) c->warps_n = 1;
  if (!c->stages) c->stages = TCMMA_GEMM_WGMMA_STAGES;
  if (!c->registers) c->registers = TCMMA_GEMM_REGISTERS;
}

tcmma_wgmma_call tcmma__emit_gemm_wgmma_tile(const tcmma_gemm_plan *g, const tcmma_gemm_info *i,
                                             tcmma_dialect dl, const char *name) {
  const tcmma_gemm_call *c = &g->call;
  tcmma_coord zero = {0, NULL, 0};
  tcmma_wgmma_call t = TCMMA_WGMMA_CALL_INIT(.arm = i->wgmma, .n = i->wgmma_n, .k = c->block_k,
                                             .name = name, .wait = 1, .dialect = dl);
  /* an M-major A: each consumer's m64 is one panel of k rows of one span */
  long a_ld = c->a.transposed ? tcmma__emit_gemm_tma_panel(g) : c->block_k;
  t.a = (tcmma_operand_desc){c->a.prec, c->a.transposed, a_ld, TCMMA_SPACE_SHARED, g->a_swizzle,
                             zero, zero};
  /* an N-major B: the consumer's n over panels of k rows of one span, one
   * descriptor (LBO the panel's bytes) */
  long b_ld = c->b.transposed ? c->block_k : tcmma__emit_gemm_tma_panel_b(g);
  t.b = (tcmma_operand_desc){c->b.prec, c->b.transposed, b_ld, TCMMA_SPACE_SHARED, g->b_swizzle,
                             zero, zero};
  if (!c->b.transposed) t.b_panel_rows = c->block_k;
  return t;
}

/* The block tile over consumer warpgroups of 16-row warps, each an m64 x n
 * strip with n an instruction n; k tiles of one swizzle span; the tile
 * product's operand plans (decline TILE). */
static tcmma_status shape_tile(tcmma_gemm_plan *g, tcmma_gemm_info *i, tcmma_error *err) {
  const tcmma_gemm_call *c = &g->call;
  const tcmma_wgmma_info *w = tcmma_wgmma_get(i->wgmma);
  int rows = tcmma__emit_gemm_wgmma_warp_rows(), eb = tcmma_prec_bytes(c->a.prec);
  if (c->block_m % w->m || (long)c->warps_m * rows != c->block_m)
    return decline(g, TCMMA_GEMM_DECLINE_TILE, err, "block_m %d over %d warps: the wgmma "
                   "kernel's warps hold %d rows each of a warpgroup's m%d (block_m a multiple "
                   "of %d, warps_m = block_m / %d)", c->block_m, c->warps_m, rows, w->m, w->m,
                   rows);
  int n = c->block_n % c->warps_n ? 0 : c->block_n / c->warps_n;
  if (!tcmma_wgmma_n_ok(i->wgmma, n))
    return decline(g, TCMMA_GEMM_DECLINE_TILE, err, "block_n %d over %d warps: each consumer "
                   "warpgroup's n (%d) must be an instruction n of %s (8 to %d, tables/wgmma.def)",
                   c->block_n, c->warps_n, n, w->marker, TCMMA_WGMMA_N_MAX);
  long row_bytes = (long)c->block_k * eb;
  tcmma_swizzle k_rows = tcmma__emit_gemm_tma_span_swizzle(row_bytes);
  /* an M-major A's stored rows are an m64's elements, an N-major B's a
   * panel's: one 128-byte span */
  g->a_swizzle = c->a.transposed ? tcmma__emit_gemm_tma_span_swizzle((long)w->m * eb) : k_rows;
  g->b_swizzle = c->b.transposed ? k_rows : TCMMA_SWIZZLE_B128;
  if (!g->a_swizzle || !g->b_swizzle || c->block_k % w->k)
    return decline(g, TCMMA_GEMM_DECLINE_TILE, err, "block_k %d: a stage row of %ld bytes must "
                   "be one swizzle span (32, 64 or 128 bytes) and block_k a multiple of %s's k "
                   "%d", c->block_k, row_bytes, w->marker, w->k);
  i->consumer_warpgroups = c->warps_m / WARPS_PER_GROUP * c->warps_n;
  i->wgmma_n = n;
  g->threads = TCMMA_WARPGROUP_SIZE * (1 + i->consumer_warpgroups);
  if (g->threads > TCMMA_WARPS_MAX * TCMMA_WARP_SIZE)
    return decline(g, TCMMA_GEMM_DECLINE_TILE, err, "%d consumer warpgroups and the producer's: "
                   "%d threads, above a block's %d", i->consumer_warpgroups, g->threads,
                   TCMMA_WARPS_MAX * TCMMA_WARP_SIZE);
  g->warp_m = rows, g->warp_n = n;
  g->a_rows = c->a.transposed ? c->block_k : c->block_m;
  g->a_cols = c->a.transposed ? c->block_m : c->block_k;
  g->b_rows = c->b.transposed ? c->block_n : c->block_k;
  g->b_cols = c->b.transposed ? c->block_k : c->block_n;
  tcmma_wgmma_call t = tcmma__emit_gemm_wgmma_tile(g, i, TCMMA_DIALECT_CUDA, NULL);
  tcmma_wgmma_operand a, b;
  tcmma_error werr = {0};
  if (tcmma_wgmma_operand_plan_panels(t.arm, TCMMA_OPERAND_A, n, &t.a, t.a_panel_rows, &a,
                                      &werr) != TCMMA_OK ||
      tcmma_wgmma_operand_plan_panels(t.arm, TCMMA_OPERAND_B, n, &t.b, t.b_panel_rows, &b,
                                      &werr) != TCMMA_OK)
    return decline(g, TCMMA_GEMM_DECLINE_TILE, err, "the stages as the tile product reads them: "
                   "%s", werr.message);
  g->mma_per_k_tile = c->block_k / w->k;
  return TCMMA_OK;
}

/* The registers: under __launch_bounds__(threads, 1) each thread starts
 * with the block's file over its threads (multiples of 8, at most 255);
 * with two consumer warpgroups or more the producer lowers its count to
 * TCMMA_GEMM_WGMMA_PRODUCER_REGISTERS and the consumers raise theirs to
 * what that leaves (setmaxnreg). A consumer needs its accumulators and
 * TCMMA_GEMM_WGMMA_REGISTER_OVERHEAD (decline REGISTERS). */
static tcmma_status budget_registers(tcmma_gemm_plan *g, tcmma_gemm_info *i, tcmma_error *err) {
  int threads = g->threads, C = i->consumer_warpgroups;
  int entry = TCMMA_REGISTERS_PER_BLOCK / threads / 8 * 8;
  if (entry > TCMMA_REGISTERS_MAX) entry = TCMMA_REGISTERS_MAX;
  int consumer = entry;
  if (C >= 2) {
    int rest = (TCMMA_REGISTERS_PER_BLOCK - TCMMA_WARPGROUP_SIZE *
                                                TCMMA_GEMM_WGMMA_PRODUCER_REGISTERS) /
               (TCMMA_WARPGROUP_SIZE * C) / 8 * 8;
    if (rest > TCMMA_REGISTERS_MAX / 8 * 8) rest = TCMMA_REGISTERS_MAX / 8 * 8;
    if (rest > entry)
      consumer = rest, i->producer_registers = TCMMA_GEMM_WGMMA_PRODUCER_REGISTERS,
      i->consumer_registers = rest;
  }
  int acc = tcmma_wgmma_acc_regs(i->wgmma, i->wgmma_n);
  long want = (long)acc + TCMMA_GEMM_WGMMA_REGISTER_OVERHEAD;
  g->registers = i->consumer_registers ? entry : (int)want;
  if (want > consumer || want > g->call.registers)
    return decline(g, TCMMA_GEMM_DECLINE_REGISTERS, err, "a consumer thread's m%d x n%d "
                   "accumulators take %d registers, %ld with the kernel's others: over the %d "
                   "it may have (%d threads%s) or the budget of %d (call.registers)",
                   tcmma_wgmma_get(i->wgmma)->m, i->wgmma_n, acc, want, consumer, threads,
                   i->consumer_registers ? ", after the producer's setmaxnreg" : "",
                   g->call.registers);
  return TCMMA_OK;
}

tcmma_status tcmma__emit_gemm_plan_wgmma(tcmma_gemm_plan *g, const tcmma_gemm_opts *o,
                                         tcmma_gemm_info *i, tcmma_error *err) {
  tcmma_gemm_call *c = &g->call;
  i->kernel = TCMMA_GEMM_KERNEL_WGMMA;
  char msg[400];
  tcmma_gemm_decline why;
  if (!tcmma__emit_gemm_wgmma_serves(c, o, &why, msg, sizeof msg))
    return decline(g, why, err, "%s", msg);
  tcmma_arm arm;
  tcmma_wgmma w;
  row_of_call(c, &w, &arm, &why, msg, sizeof msg);
  i->wgmma = w, g->arm = arm;
  fill_defaults(c);
  tcmma_status st = tcmma__emit_gemm_tma_check_call(g, o, TCMMA_GEMM_WGMMA_STAGES_MAX, "wgmma",
                                                    TCMMA__GEMM_TILE_SUFFIX, err);
  if (st != TCMMA_OK) return st;
  if ((st = shape_tile(g, i, err)) != TCMMA_OK) return st;
  /* a full and an empty mbarrier per stage */
  if ((st = tcmma__emit_gemm_tma_layout(g, o, i, 2 * c->stages, err)) != TCMMA_OK) return st;
  if ((st = budget_registers(g, i, err)) != TCMMA_OK) return st;
  tcmma__emit_gemm_tma_accept(g, i);
  return TCMMA_OK;
}
