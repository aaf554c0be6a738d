/* The check tcmma_render_gemm makes of a GEMM plan on entry, as every
 * tile renderer does of its plan (mma/plan_check.c): the plan must be
 * exactly what tcmma_gemm_plan_call gives for the plan's own call, so a plan
 * its caller changed is refused naming the field instead of rendering a
 * kernel from figures no rule made. */
#include <stdio.h>
#include <string.h>
#include "abi.h"
#include "emit.h"
#include "gemm_epilogue.h"

#define F(member, kind) TCMMA__FIELD(tcmma_gemm_plan, member, #member, kind)

/* The bools of a GEMM plan and its call, checked before anything reads them. */
static const tcmma__emit_field gemm_bools[] = {
    F(accepted, BOOL),          F(predicated, BOOL),          F(call.d.transposed, BOOL),
    F(call.a.transposed, BOOL), F(call.b.transposed, BOOL),   F(call.unpredicated, BOOL),
    F(call.numerics.tf32, BOOL), F(call.numerics.saturate, BOOL)};

/* What planning fills in the call (defaults, dense ld) and derives from
 * it; the rest of the call is the call itself, which planning checks
 * again (the message is not read). */
static const tcmma__emit_field gemm_derived[] = {
    F(reason, INT), F(arm, ARM), F(call.block_m, INT), F(call.block_n, INT),
    F(call.block_k, INT), F(call.warps_m, INT), F(call.warps_n, INT), F(call.stages, INT),
    F(call.registers, INT), F(call.d.ld, INT), F(call.a.ld, INT), F(call.b.ld, INT),
    F(warp_m, INT), F(warp_n, INT),
    F(census.a_ldmatrix, BOOL), F(census.b_ldmatrix, BOOL), F(census.tile_m, INT),
    F(census.tile_n, INT), F(census.tile_k, INT), F(census.reloads, BOOL),
    F(census.a_loads_per_k, INT), F(census.b_loads_per_k, INT),
    F(census.mma_per_statement, INT), F(census.mt, INT), F(census.nt, INT), F(census.kt, INT),
    F(census.a_vector, BOOL), F(census.b_vector, BOOL), F(census.d_vector, BOOL),
    F(census.shared_bytes, UINT), F(census.a_ldmatrix_x4, INT), F(census.a_ldmatrix_x2, INT),
    F(census.b_ldmatrix_x4, INT), F(census.b_ldmatrix_x2, INT), F(census.registers, INT),
    F(census.a_ldmatrix_x1, INT), F(census.b_ldmatrix_x1, INT),
    F(a_rows, INT), F(a_cols, INT), F(b_rows, INT), F(b_cols, INT), F(a_swizzle, INT),
    F(b_swizzle, INT), F(epilogue_ld, INT), F(predicated, BOOL), F(threads, INT),
    F(grid[0], UINT), F(grid[1], UINT), F(grid[2], UINT), F(k_tiles, INT),
    F(stage_bytes, UINT), F(epilogue_bytes, UINT), F(shared_bytes, UINT), F(shared_max, UINT),
    F(registers, INT), F(mma_per_k_tile, INT), F(ldmatrix_per_k_tile, INT),
    F(cp_async_per_k_tile, INT)};

#undef F
#define COUNT(a) (sizeof(a) / sizeof(a)[0])

tcmma_status tcmma__emit_gemm_check(const tcmma_gemm_plan *plan, const tcmma_gemm_opts *opts,
                                    tcmma_gemm_info *info, tcmma_error *err) {
  if (!plan) return tcmma_fail(err, TCMMA_INVALID, "render gemm: an accepted plan is required");
  tcmma_status st = tcmma__emit_bools_ok(plan, gemm_bools, COUNT(gemm_bools), err);
  if (st != TCMMA_OK) return st;
  if (!plan->accepted)
    return tcmma_fail(err, TCMMA_INVALID, "render gemm: an accepted plan is required: %.*s",
                      (int)sizeof plan->message, plan->message);
  if (plan->call.size != sizeof(tcmma_gemm_call))
    return tcmma_fail(err, TCMMA_INVALID, "%s: call.size is %zu, planning gives %zu",
                      TCMMA__CHANGED, plan->call.size, sizeof(tcmma_gemm_call));
  tcmma_gemm_plan fresh;
  tcmma_error why = {0};
  st = tcmma__emit_gemm_plan(&plan->call, opts, &fresh, info, &why);
  if (st == TCMMA_DECLINED)
    return tcmma_fail(err, TCMMA_INVALID, "%s: accepted is true, planning gives false (%s)",
                      TCMMA__CHANGED, fresh.message);
  if (st != TCMMA_OK)
    return tcmma_fail(err, TCMMA_INVALID, "%s: its call does not plan (%s)", TCMMA__CHANGED,
                      why.message);
  return tcmma__emit_fields_differ(plan, &fresh, gemm_derived, COUNT(gemm_derived), err);
}

tcmma_status tcmma__emit_gemm_form_take(const tcmma_gemm_plan *plan, const tcmma_gemm_opts *opts,
                                        tcmma__emit_gemm_form *f, tcmma_error *err) {
  memset(f, 0, sizeof *f);
  f->o = tcmma__emit_gemm_opts_unasked();
  tcmma_status st;
  if (opts && (st = tcmma__abi_take(&f->o, opts, sizeof f->o, &f->o, "tcmma_gemm_opts",
                                    "tcmma_gemm_opts_default()", err)) != TCMMA_OK)
    return st;
  if ((st = tcmma__emit_gemm_check(plan, &f->o, &f->i, err)) != TCMMA_OK) {
    /* a plan is checked against the options it is rendered with: name them
     * as the other cause */
    if (err && strncmp(err->message, TCMMA__CHANGED, strlen(TCMMA__CHANGED)) == 0) {
      size_t n = strlen(err->message);
      snprintf(err->message + n, sizeof err->message - n, " (or it was planned with other "
               "tcmma_gemm_opts than the ones it is rendered with)");
    }
    return st;
  }
  f->g = plan;
  return TCMMA_OK;
}
