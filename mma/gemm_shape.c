/* The GEMM's shape rules beyond the v1 call (issue #22; docs/emit.md,
 * GEMM): the alignment class of each operand, the loader each class gets
 * (16-byte cp.async.cg, 8- or 4-byte cp.async.ca, plain loads below 4
 * bytes or below cp.async's floor), which tiles need the predicated path,
 * and the shapes a plan serves. */
#include <stdio.h>
#include "emit.h"
#include "gemm_rules.h"
#include "tcmma/arch.h"

int tcmma__emit_gemm_loader_floor(void) { return tcmma_marker_floor(TCMMA_MARKER_CP_ASYNC); }

/* The widest power of two up to TCMMA_GEMM_ALIGN_MAX dividing row_bytes. */
static int widest_class(long row_bytes) {
  int c = TCMMA_GEMM_ALIGN_MAX;
  while (c > 1 && row_bytes % c) c /= 2;
  return c;
}

/* Operand `name`'s class: asked (0: derived from its rows of ld x eb
 * bytes); false with msg when the ask is no class or the rows break it. */
static bool take_class(int *align, long ld, int eb, const char *name, char *msg, size_t cap) {
  int a = *align;
  if (a == 0) return *align = widest_class(ld * eb), true;
  if (a < eb || a > TCMMA_GEMM_ALIGN_MAX || (a & (a - 1)))
    return snprintf(msg, cap, "%s_align %d: expected a power of two from %d (the element) to %d "
                    "bytes, or 0", name, a, eb, TCMMA_GEMM_ALIGN_MAX), false;
  if ((ld * eb) % a)
    return snprintf(msg, cap, "%s's rows of ld %ld x %d bytes are not whole %d-byte units (its "
                    "class %s_align): ld must be a multiple of %d", name, ld, eb, a, name,
                    a / eb), false;
  return true;
}

bool tcmma__emit_gemm_classes(const tcmma_gemm_plan *g, const tcmma_gemm_opts *o,
                              tcmma_gemm_info *i, char *msg, size_t cap) {
  const tcmma_gemm_call *c = &g->call;
  i->a_align = o->a_align, i->b_align = o->b_align, i->d_align = o->d_align;
  if (!take_class(&i->a_align, c->a.ld, tcmma_prec_bytes(c->a.prec), "a", msg, cap) ||
      !take_class(&i->b_align, c->b.ld, tcmma_prec_bytes(c->b.prec), "b", msg, cap) ||
      !take_class(&i->d_align, c->d.ld, tcmma_prec_bytes(c->d.prec), "d", msg, cap))
    return false;
  /* cp.async copies 4, 8 or 16 bytes from cc 80 on; a plan for any device
   * (cc 0) is for those from the loader's floor */
  bool async = c->cc == 0 || c->cc >= tcmma__emit_gemm_loader_floor();
  i->a_copy_bytes = i->a_align, i->b_copy_bytes = i->b_align;
  i->a_plain = !async || i->a_align < TCMMA__GEMM_ASYNC_MIN;
  i->b_plain = !async || i->b_align < TCMMA__GEMM_ASYNC_MIN;
  return true;
}

/* Whether operand op's tiles can meet a ragged edge: its m (a) or n (b)
 * extent or K, ragged in the call's shape or unknown (shape arguments). */
static bool edge(const tcmma_gemm_plan *g, const tcmma_gemm_info *i, tcmma_operand op) {
  const tcmma_gemm_call *c = &g->call;
  if (!g->predicated) return false;
  if (i->shape_args) return true;
  bool mn = op == TCMMA_OPERAND_A ? c->m % c->block_m != 0 : c->n % c->block_n != 0;
  return mn || c->k % c->block_k != 0;
}

void tcmma__emit_gemm_serves(const tcmma_gemm_plan *g, tcmma_gemm_info *i) {
  const tcmma_gemm_call *c = &g->call;
  i->a_edge = edge(g, i, TCMMA_OPERAND_A);
  i->b_edge = edge(g, i, TCMMA_OPERAND_B);
  /* 0: the call's own shape only (constants in the text) */
  bool whole = c->unpredicated;
  i->m_multiple = !i->shape_args ? 0 : whole ? c->block_m : 1;
  i->n_multiple = !i->shape_args ? 0 : whole ? c->block_n : 1;
  i->k_multiple = !i->shape_args ? 0 : whole ? c->block_k : 1;
}
