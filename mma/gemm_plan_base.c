/* What both GEMM planners share (mma/gemm_plan.h): the declines' names,
 * shared memory per device, the call taken and range-checked, its arm
 * resolved, its grid and its batch. The kernel kinds' own rules are in
 * mma/gemm_plan.c (mma.sync) and mma/gemm_plan_wgmma.c (wgmma), which call
 * down into this file only. */
#include <limits.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>
#include "abi.h"
#include "emit.h"
#include "tcmma/tcgen05.h"
#include "tcmma/wgmma.h"
#include "gemm_epilogue.h"
#include "gemm_plan.h"
#include "gemm_rules.h"
#include "tcmma/gemm.h"

#define decline tcmma__emit_gemm_decline

/* Indexed by value (a row's value column, not its position). */
static const struct { const char *name, *rule; } declines[TCMMA_GEMM_DECLINE_COUNT] = {
#define TCMMA_GEMM_DECLINE(ID, value, name, rule) [value] = {name, rule},
#include "tables/gemm_declines.def"
#undef TCMMA_GEMM_DECLINE
};

const char *tcmma_gemm_decline_name(tcmma_gemm_decline r) {
  return (unsigned)r < TCMMA_GEMM_DECLINE_COUNT ? declines[r].name : "?";
}
const char *tcmma_gemm_decline_rule(tcmma_gemm_decline r) {
  return (unsigned)r < TCMMA_GEMM_DECLINE_COUNT ? declines[r].rule : "?";
}

static const struct { const char *name, *text; } kinds[TCMMA_GEMM_KERNEL_COUNT] = {
#define TCMMA_GEMM_KERNEL(ID, value, name, text) [value] = {name, text},
#include "tables/gemm_kernels.def"
#undef TCMMA_GEMM_KERNEL
};

const char *tcmma_gemm_kernel_name(tcmma_gemm_kernel k) {
  return (unsigned)k < TCMMA_GEMM_KERNEL_COUNT ? kinds[k].name : "?";
}
const char *tcmma_gemm_kernel_text(tcmma_gemm_kernel k) {
  return (unsigned)k < TCMMA_GEMM_KERNEL_COUNT ? kinds[k].text : "?";
}

tcmma_status tcmma_gemm_kernel_parse(const char *name, tcmma_gemm_kernel *out, tcmma_error *err) {
  char list[128] = "";
  for (int k = 0; k < TCMMA_GEMM_KERNEL_COUNT; k++) {
    if (name && out && strcmp(name, kinds[k].name) == 0) return *out = (tcmma_gemm_kernel)k, TCMMA_OK;
    size_t n = strlen(list);
    snprintf(list + n, sizeof list - n, "%s%s", k ? ", " : "", kinds[k].name);
  }
  return tcmma_fail(err, TCMMA_INVALID, "gemm kernel '%s': expected one of %s",
                    name ? name : "(null)", list);
}

tcmma_gemm_opts tcmma__emit_gemm_opts_unasked(void) {
  tcmma_gemm_opts o = tcmma_gemm_opts_default();
  o.kernel = TCMMA_GEMM_KERNEL_MMA_SYNC;
  return o;
}

static const struct { int cc; size_t bytes; } shared_rows[] = {
#define TCMMA_SHARED_MEMORY(cc, bytes) {cc, bytes},
#include "tables/shared_memory.def"
#undef TCMMA_SHARED_MEMORY
};
enum { SHARED_ROWS = sizeof shared_rows / sizeof shared_rows[0] };

size_t tcmma_shared_memory_max(int cc, int floor) {
  size_t best = 0;
  for (int i = 0; i < SHARED_ROWS; i++) {
    bool next_above = i + 1 == SHARED_ROWS || shared_rows[i + 1].cc > (cc > 0 ? cc : floor);
    if (cc > 0) {
      if (shared_rows[i].cc <= cc && next_above) best = shared_rows[i].bytes;
    } else if (shared_rows[i].cc > floor || (shared_rows[i].cc <= floor && next_above)) {
      /* every device from floor on: the row in force at floor and every later one */
      if (best == 0 || shared_rows[i].bytes < best) best = shared_rows[i].bytes;
    }
  }
  return best;
}

/* Declines with reason and a printf message (also into err). */
tcmma_status tcmma__emit_gemm_decline(tcmma_gemm_plan *p, tcmma_gemm_decline reason,
                                      tcmma_error *err, const char *fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  int n = snprintf(p->message, sizeof p->message, "%s: ", tcmma_gemm_decline_name(reason));
  vsnprintf(p->message + n, sizeof p->message - (size_t)n, fmt, ap);
  va_end(ap);
  p->accepted = false;
  p->reason = reason;
  return tcmma_fail(err, TCMMA_DECLINED, "%s", p->message);
}

/* Range checks of the call itself (decline CALL). */
static bool call_problem(const tcmma_gemm_call *c, int stages_max, char *msg, size_t cap) {
  if (c->m < 1 || c->n < 1 || c->k < 1 || c->m > TCMMA_GEMM_EXTENT_MAX ||
      c->n > TCMMA_GEMM_EXTENT_MAX || c->k > TCMMA_GEMM_EXTENT_MAX)
    return snprintf(msg, cap, "m, n, k = %d, %d, %d: expected 1..%d", c->m, c->n, c->k,
                    TCMMA_GEMM_EXTENT_MAX), true;
  if (c->block_m < 1 || c->block_n < 1 || c->block_k < 1 || c->block_m > 1024 ||
      c->block_n > 1024 || c->block_k > 1024)
    return snprintf(msg, cap, "block tile %dx%dx%d: expected 1..1024 each", c->block_m,
                    c->block_n, c->block_k), true;
  if (c->warps_m < 1 || c->warps_n < 1 || c->warps_m > TCMMA_WARPS_MAX ||
      c->warps_n > TCMMA_WARPS_MAX || c->warps_m * c->warps_n > TCMMA_WARPS_MAX)
    return snprintf(msg, cap, "warp grid %dx%d: expected at least 1x1 and at most %d warps",
                    c->warps_m, c->warps_n, TCMMA_WARPS_MAX), true;
  if (c->stages < 1 || c->stages > stages_max)
    return snprintf(msg, cap, "stages %d: expected 1..%d", c->stages, stages_max), true;
  if (c->registers < 1 || c->registers > TCMMA_REGISTERS_MAX)
    return snprintf(msg, cap, "register budget %d: expected 1..%d", c->registers,
                    TCMMA_REGISTERS_MAX), true;
  if (c->name && !tcmma__emit_is_ident(c->name, TCMMA__GEMM_NAME_MAX))
    return snprintf(msg, cap, "kernel name '%s': expected a C identifier of at most %d "
                    "characters", c->name, TCMMA__GEMM_NAME_MAX), true;
  const tcmma_operand_desc *ops[3] = {&c->d, &c->a, &c->b};
  static const char *const names[3] = {"d", "a", "b"};
  for (int i = 0; i < 3; i++) {
    const tcmma_operand_desc *o = ops[i];
    if (o->space != TCMMA_SPACE_GLOBAL || o->swizzle != TCMMA_SWIZZLE_NONE || o->row0.value ||
        o->col0.value || o->row0.expr || o->col0.expr || (i == 0 && o->transposed))
      return snprintf(msg, cap, "operand %s: a GEMM's operands are whole global matrices (no "
                      "space, swizzle, origin%s)", names[i], i == 0 ? " or transpose" : ""),
             true;
  }
  return false;
}

/* Fills ld of an operand stored rows x cols when 0; false when ld < cols. */
static bool fill_ld(tcmma_operand_desc *o, long cols, const char *name, char *msg, size_t cap) {
  if (o->ld == 0) o->ld = cols;
  if (o->ld < cols || o->ld > TCMMA_GEMM_EXTENT_MAX)
    return snprintf(msg, cap, "%s's ld %ld: expected %ld..%d (its stored rows hold %ld)", name,
                    o->ld, cols, TCMMA_GEMM_EXTENT_MAX, cols), false;
  return true;
}

tcmma_status tcmma__emit_gemm_take_call(const tcmma_gemm_call *call, tcmma_gemm_plan *out,
                                        tcmma_error *err) {
  if (!call || !out) return tcmma_fail(err, TCMMA_INVALID, "gemm plan: call and out are required");
  memset(out, 0, sizeof *out);
  out->arm = TCMMA_ARM_NONE;
  /* the caller's call as this library's whole struct (an older, smaller one
   * gets the defaults for the rest) */
  tcmma_gemm_call c, defaults = tcmma_gemm_call_default();
  tcmma_status taken = tcmma__abi_take(&c, call, sizeof c, &defaults, "tcmma_gemm_call",
                                       "tcmma_gemm_call_default()", err);
  if (taken != TCMMA_OK) return taken;
  const tcmma_operand_desc *ops[3] = {&c.d, &c.a, &c.b};
  for (int i = 0; i < 3; i++)
    if ((unsigned)ops[i]->prec >= TCMMA_PREC_COUNT ||
        (unsigned)ops[i]->space > TCMMA_SPACE_THREAD ||
        (unsigned)ops[i]->swizzle >= TCMMA_SWIZZLE_COUNT)
      return tcmma_fail(err, TCMMA_INVALID, "gemm plan: operand %d's precision, space or "
                        "swizzle is out of range", i);
  out->call = c;
  return TCMMA_OK;
}

tcmma_status tcmma__emit_gemm_check_call(tcmma_gemm_plan *g, const tcmma_gemm_opts *o,
                                         int stages_max, tcmma_error *err) {
  tcmma_gemm_call *c = &g->call;
  char msg[400];
  if (call_problem(c, stages_max, msg, sizeof msg)) return decline(g, TCMMA_GEMM_DECLINE_CALL, err, "%s", msg);
  if (!fill_ld(&c->a, c->a.transposed ? c->m : c->k, "a", msg, sizeof msg) ||
      !fill_ld(&c->b, c->b.transposed ? c->k : c->n, "b", msg, sizeof msg) ||
      !fill_ld(&c->d, c->n, "d", msg, sizeof msg))
    return decline(g, TCMMA_GEMM_DECLINE_CALL, err, "%s", msg);
  tcmma_gemm_decline why;
  tcmma_status st = tcmma__emit_gemm_epilogue_rules(c, o, &why, msg, sizeof msg);
  if (st == TCMMA_DECLINED) return decline(g, why, err, "%s", msg);
  return st == TCMMA_OK ? TCMMA_OK : tcmma_fail(err, st, "%s", msg);
}

tcmma_status tcmma__emit_gemm_choose_arm(tcmma_gemm_plan *g, tcmma_error *err) {
  const tcmma_gemm_call *c = &g->call;
  tcmma_triple t = {c->d.prec, c->a.prec, c->b.prec};
  tcmma_error rerr = {0};
  if (c->arm) {
    if (tcmma_arm_parse(c->arm, &g->arm, &rerr) != TCMMA_OK)
      return decline(g, TCMMA_GEMM_DECLINE_ARM, err, "%s", rerr.message);
    /* the warp tile's call checks the arm against f32 = a x b; d's storage
     * (the epilogue's conversion) is the GEMM's to check, as tcmma_plan_call
     * checks a forced arm against its own triple */
    if (!tcmma__emit_arm_is_candidate(t, &c->numerics, g->arm))
      return decline(g, TCMMA_GEMM_DECLINE_ARM, err, "arm %s is not on the preference list of "
                     "%s = %s x %s under the numerics policy", c->arm, tcmma_prec_name(t.d),
                     tcmma_prec_name(t.a), tcmma_prec_name(t.b));
  } else if (tcmma_resolve(t, &c->numerics, TCMMA_SCOPE_FRAGMENT, c->cc, &g->arm, &rerr) !=
             TCMMA_OK) {
    return decline(g, TCMMA_GEMM_DECLINE_ARM, err, "%s", rerr.message);
  }
  return TCMMA_OK;
}

tcmma_status tcmma__emit_gemm_plan_grid(tcmma_gemm_plan *g, bool shape_args, tcmma_error *err) {
  const tcmma_gemm_call *c = &g->call;
  bool ragged = c->m % c->block_m || c->n % c->block_n || c->k % c->block_k;
  /* shape arguments: any shape unless the caller asks for whole tiles only */
  g->predicated = shape_args ? !c->unpredicated : ragged;
  if (ragged && c->unpredicated)
    return decline(g, TCMMA_GEMM_DECLINE_PREDICATION, err, "%dx%dx%d over a %dx%dx%d block "
                   "tile: predicated copies and stores are required", c->m, c->n, c->k,
                   c->block_m, c->block_n, c->block_k);
  g->grid[0] = (unsigned)((c->n + c->block_n - 1) / c->block_n);
  g->grid[1] = (unsigned)((c->m + c->block_m - 1) / c->block_m);
  g->grid[2] = 1;
  if (g->grid[1] > TCMMA_GEMM_GRID_Y_MAX || (long)g->grid[0] * g->grid[1] > INT_MAX)
    return decline(g, TCMMA_GEMM_DECLINE_CALL, err, "m %d over block_m %d, n %d over block_n %d: "
                   "%ux%u blocks, %u rows of blocks; expected at most %d rows (CUDA's grid y) "
                   "and %d blocks", c->m, c->block_m, c->n, c->block_n, g->grid[0], g->grid[1],
                   g->grid[1], TCMMA_GEMM_GRID_Y_MAX, INT_MAX);
  g->k_tiles = (c->k + c->block_k - 1) / c->block_k;
  return TCMMA_OK;
}

tcmma_status tcmma__emit_gemm_plan_batch(tcmma_gemm_plan *g, const tcmma_gemm_opts *o,
                                         tcmma_gemm_info *i, tcmma_error *err) {
  char msg[400];
  if (!tcmma__emit_gemm_batch(g, o, i, msg, sizeof msg))
    return decline(g, TCMMA_GEMM_DECLINE_CALL, err, "%s", msg);
  return TCMMA_OK;
}

char tcmma__emit_gemm_arch_suffix(const tcmma_gemm_plan *g, const tcmma_gemm_info *i) {
  if (!g->call.cc) return 0; /* any device: no arch-specific or family target */
  if (i->kernel == TCMMA_GEMM_KERNEL_WGMMA)
    return tcmma_wgmma_get((tcmma_wgmma)i->wgmma)->suffix == TCMMA_PTX_SUFFIX_A ? 'a' : 0;
  if (i->kernel == TCMMA_GEMM_KERNEL_TCGEN05) {
    /* the family target where the row and every other tcgen05 instruction
     * of the kernel (alloc, commit, ld, fences: the TCGEN05 feature) allow it */
    tcmma_ptx_suffix row = tcmma_tcgen05_get((tcmma_tcgen05)i->tcgen05)->suffix;
    return row == TCMMA_PTX_SUFFIX_A_OR_F && (int)TCMMA_PTX_SUFFIX_OF(TCGEN05) == (int)TCMMA_PTX_SUFFIX_A_OR_F
               ? 'f' : 'a';
  }
  const tcmma_arm_info *arm = tcmma_arm_get(g->arm);
  return arm && arm->family ? 'f' : 0; /* 12.x's block-scaled mma at sm_120f */
}
