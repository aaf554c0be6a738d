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
  /* packed operands' rows are ld / pack bytes (whole: tcmma__emit_gemm_scale_rules) */
  long pack = tcmma__emit_gemm_pack(g);
  if (!take_class(&i->a_align, c->a.ld / pack, tcmma_prec_bytes(c->a.prec), "a", msg, cap) ||
      !take_class(&i->b_align, c->b.ld / pack, tcmma_prec_bytes(c->b.prec), "b", msg, cap) ||
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

/* Operand stride s (elements; 0: dense) of a batch of matrices of `need`
 * elements each; false with msg when it is negative or, for d, overlaps. */
static bool stride_ok(long long s, long long need, bool written, const char *name, char *msg,
                      size_t cap) {
  if (s < 0 || (written && s && s < need))
    return snprintf(msg, cap, "stride_%s %lld: expected 0 (dense) or at least %lld (one "
                    "stored matrix%s)", name, s, need, written ? ": d's matrices may not "
                    "overlap" : ""), false;
  if (s > ((long long)1 << 40))
    return snprintf(msg, cap, "stride_%s %lld: expected 0..2^40", name, s), false;
  return true;
}

bool tcmma__emit_gemm_batch(tcmma_gemm_plan *g, const tcmma_gemm_opts *o, tcmma_gemm_info *i,
                            char *msg, size_t cap) {
  const tcmma_gemm_call *c = &g->call;
  i->batch = o->batch ? o->batch : 1, i->split_k = o->split_k ? o->split_k : 1;
  if (i->batch < 1 || i->batch > TCMMA_GEMM_GRID_Z_MAX)
    return snprintf(msg, cap, "batch %d: expected 0..%d", o->batch, TCMMA_GEMM_GRID_Z_MAX), false;
  if (i->split_k < 1 || i->split_k > TCMMA_GEMM_SPLIT_K_MAX || i->split_k > g->k_tiles)
    return snprintf(msg, cap, "split_k %d: expected 0..%d and at most the %d k tiles of k %d "
                    "over block_k %d", o->split_k, TCMMA_GEMM_SPLIT_K_MAX, g->k_tiles, c->k,
                    c->block_k), false;
  if ((long)i->batch * i->split_k > TCMMA_GEMM_GRID_Z_MAX)
    return snprintf(msg, cap, "batch %d x split_k %d: expected at most %d blocks along grid z",
                    i->batch, i->split_k, TCMMA_GEMM_GRID_Z_MAX), false;
  if (o->pointer_array && (o->stride_a || o->stride_b || o->stride_d))
    return snprintf(msg, cap, "pointer_array with strides: a pointer array has no strides"),
           false;
  long ar = c->a.transposed ? c->k : c->m, br = c->b.transposed ? c->n : c->k;
  if (!stride_ok(o->stride_a, (long long)ar * c->a.ld, false, "a", msg, cap) ||
      !stride_ok(o->stride_b, (long long)br * c->b.ld, false, "b", msg, cap) ||
      !stride_ok(o->stride_d, (long long)c->m * c->d.ld, true, "d", msg, cap))
    return false;
  /* each matrix's base keeps its operand's class (packed: strides of whole
   * bytes, tcmma__emit_gemm_scale_rules) */
  int pack = tcmma__emit_gemm_pack(g);
  const struct { long long s; int eb, align; const char *v; } st[3] = {
      {o->stride_a / pack, tcmma_prec_bytes(c->a.prec), i->a_align, "a"},
      {o->stride_b / pack, tcmma_prec_bytes(c->b.prec), i->b_align, "b"},
      {o->stride_d, tcmma_prec_bytes(c->d.prec), i->d_align, "d"}};
  for (int k = 0; k < 3; k++)
    if (st[k].s * st[k].eb % st[k].align)
      return snprintf(msg, cap, "stride_%s %lld x %d bytes: expected a multiple of %s's class "
                      "of %d bytes", st[k].v, st[k].s, st[k].eb, st[k].v, st[k].align), false;
  g->grid[2] = (unsigned)(i->batch * i->split_k);
  i->k_tiles_per_split = (g->k_tiles + i->split_k - 1) / i->split_k;
  if (i->split_k > 1) {
    size_t tiles = (size_t)g->grid[0] * g->grid[1] * (size_t)i->batch;
    i->workspace_counters = tiles * (size_t)i->split_k * (size_t)c->block_m *
                            (size_t)c->block_n * sizeof(float);
    i->workspace_bytes = i->workspace_counters + tiles * sizeof(unsigned);
  }
  return true;
}
