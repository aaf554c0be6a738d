/* The stages and tensor maps of the GEMM's TMA kernels (mma/gemm_plan.h;
 * docs/emit.md, The Hopper GEMM, The Blackwell GEMM): the wgmma and the
 * tcgen05 planners shape their stages alike (one k tile of A's and B's
 * rows, each row one swizzle span, the stages from the swizzle's repeat)
 * and load them through the same 2-D (or batched 3-D) tensor maps, so both
 * call down into this file. */
#include <stdio.h>
#include <string.h>
#include "emit.h"
#include "gemm_plan.h"
#include "gemm_rules.h"
#include "tcmma/gemm.h"

#define decline tcmma__emit_gemm_decline

void tcmma__emit_gemm_tma_maps(const tcmma_gemm_plan *g, const tcmma_gemm_opts *o,
                               const tcmma_gemm_info *i, unsigned long long a,
                               unsigned long long b, const int shape[5], tcmma_tensor_map maps[2]) {
  const tcmma_gemm_call *c = &g->call;
  int ea = tcmma_prec_bytes(c->a.prec), eb = tcmma_prec_bytes(c->b.prec);
  /* packed fp4 (K-major only): its bytes, k and the lds over pack (tables/tensor_map.def) */
  int pk = tcmma__emit_gemm_pack(g);
  unsigned long long kk = (unsigned long long)shape[2] / (unsigned)pk;
  unsigned bk = (unsigned)(c->block_k / pk);
  /* a: m rows of k; b (transposed): n rows of k; one k tile of the block's rows a box */
  if (c->a.transposed) /* k rows of m, a box a panel: one k tile of 64 columns */
    maps[0] = tcmma_tensor_map_2d(c->a.prec, a, (unsigned long long)shape[2],
                                  (unsigned long long)shape[0], (unsigned long long)shape[3] * ea,
                                  (unsigned)c->block_k, (unsigned)tcmma__emit_gemm_tma_panel(g),
                                  g->a_swizzle);
  else
    maps[0] = tcmma_tensor_map_2d(c->a.prec, a, (unsigned long long)shape[0], kk,
                                  (unsigned long long)shape[3] * ea / pk, (unsigned)c->block_m,
                                  bk, g->a_swizzle);
  if (c->b.transposed)
    maps[1] = tcmma_tensor_map_2d(c->b.prec, b, (unsigned long long)shape[1], kk,
                                  (unsigned long long)shape[4] * eb / pk, (unsigned)c->block_n,
                                  bk, g->b_swizzle);
  else /* N-major: k rows of n, a box a panel of one span along n and one k tile */
    maps[1] = tcmma_tensor_map_2d(c->b.prec, b, (unsigned long long)shape[2],
                                  (unsigned long long)shape[1], (unsigned long long)shape[4] * eb,
                                  (unsigned)c->block_k, (unsigned)tcmma__emit_gemm_tma_panel_b(g),
                                  g->b_swizzle);
  /* each box's lines fetched into L2 256 bytes at a time (the GEMM reads
   * every byte of a row of its tile) */
  maps[0].l2_promotion = maps[1].l2_promotion = TCMMA_TMAP_L2_B256;
  if (i->batch <= 1) return;
  /* a strided batch: the matrices along a third dimension, one a box */
  long long sa = o->stride_a ? o->stride_a
                             : (long long)(c->a.transposed ? shape[2] : shape[0]) * shape[3],
            sb = o->stride_b ? o->stride_b
                             : (long long)(c->b.transposed ? shape[1] : shape[2]) * shape[4];
  unsigned long long strides[2] = {(unsigned long long)sa * ea / pk,
                                   (unsigned long long)sb * eb / pk};
  for (int k = 0; k < 2; k++) {
    maps[k].rank = 3;
    maps[k].dims[2] = (unsigned long long)i->batch;
    maps[k].strides[1] = strides[k];
    maps[k].box[2] = 1;
  }
}

size_t tcmma__emit_gemm_tma_operand_bytes(const tcmma_gemm_plan *g, tcmma_operand op) {
  bool is_a = op == TCMMA_OPERAND_A;
  return (size_t)(is_a ? g->a_rows * g->a_cols : g->b_rows * g->b_cols) *
         (size_t)tcmma_prec_bytes(is_a ? g->call.a.prec : g->call.b.prec);
}

size_t tcmma__emit_gemm_tma_align(const tcmma_gemm_plan *g) {
  /* the swizzles' repeat: 8 rows of one span (1024 bytes at 128) */
  int a = tcmma_swizzle_get(g->a_swizzle)->bytes, b = tcmma_swizzle_get(g->b_swizzle)->bytes;
  return (size_t)(a > b ? a : b) * 8;
}

int tcmma__emit_gemm_tma_panel(const tcmma_gemm_plan *g) {
  return tcmma_swizzle_get(g->a_swizzle)->bytes / tcmma_prec_bytes(g->call.a.prec);
}

int tcmma__emit_gemm_tma_panel_b(const tcmma_gemm_plan *g) {
  return tcmma_swizzle_get(g->b_swizzle)->bytes / tcmma_prec_bytes(g->call.b.prec);
}

tcmma_status tcmma__emit_gemm_tma_check_maps(tcmma_gemm_plan *g, const tcmma_gemm_opts *o,
                                             const tcmma_gemm_info *i, tcmma_error *err) {
  const tcmma_gemm_call *c = &g->call;
  int shape[5] = {c->m, c->n, c->k, (int)c->a.ld, (int)c->b.ld};
  tcmma_tensor_map maps[2];
  tcmma__emit_gemm_tma_maps(g, o, i, 0, 0, shape, maps);
  tcmma_error merr = {0};
  for (int k = 0; k < 2; k++)
    if (tcmma_tensor_map_check(&maps[k], NULL, &merr) != TCMMA_OK)
      return decline(g, TCMMA_GEMM_DECLINE_TILE, err, "%s's tensor map: %s", k ? "b" : "a",
                     merr.message);
  return TCMMA_OK;
}

tcmma_status tcmma__emit_gemm_tma_shared(tcmma_gemm_plan *g, int cells, tcmma_error *err) {
  const tcmma_gemm_call *c = &g->call;
  g->stage_bytes = tcmma__emit_gemm_tma_operand_bytes(g, TCMMA_OPERAND_A) +
                   tcmma__emit_gemm_tma_operand_bytes(g, TCMMA_OPERAND_B);
  size_t bars = (size_t)cells * TCMMA__GEMM_MBAR_BYTES;
  size_t align = tcmma__emit_gemm_tma_align(g);
  g->shared_bytes = g->stage_bytes * (size_t)c->stages + bars + align;
  g->shared_max = tcmma_shared_memory_max(c->cc, 0);
  if (g->shared_bytes > g->shared_max)
    return decline(g, TCMMA_GEMM_DECLINE_SHARED, err, "%zu bytes (%d stages of %zu, %zu of "
                   "mbarriers, %zu to align the stages) exceed the %zu a block may use on cc %d",
                   g->shared_bytes, c->stages, g->stage_bytes, bars, align, g->shared_max, c->cc);
  return TCMMA_OK;
}

/* Operand `name`'s rows (ld, 0: dense rows of `dense` elements) and asked
 * class must be 16 bytes: a tensor map's row stride and base. */
static bool tma_rows(long ld, long dense, int eb, int pack, int asked, const char *name,
                     const char *kind, char *msg, size_t cap) {
  long row = (ld ? ld : dense) * eb / pack;
  if (row % TCMMA__GEMM_COPY_BYTES == 0 && (asked == 0 || asked == TCMMA__GEMM_COPY_BYTES))
    return true;
  return snprintf(msg, cap, "%s's rows of %ld bytes (class %d asked): the %s kernel loads "
                  "through tensor maps, whose rows and base are whole %d-byte units "
                  "(tables/tensor_map.def, global-stride)", name, row, asked, kind,
                  TCMMA__GEMM_COPY_BYTES), false;
}

bool tcmma__emit_gemm_tma_serves(const tcmma_gemm_call *c, const tcmma_gemm_opts *o, int pack,
                                 const char *kind, char *msg, size_t cap) {
  if (!tma_rows(c->a.ld, c->a.transposed ? c->m : c->k, tcmma_prec_bytes(c->a.prec), pack,
                o->a_align, "a", kind, msg, cap) ||
      !tma_rows(c->b.ld, c->b.transposed ? c->k : c->n, tcmma_prec_bytes(c->b.prec), pack,
                o->b_align, "b", kind, msg, cap))
    return false;
  if (o->split_k > 1 || o->pointer_array || (o->batch > 1 && o->shape_args))
    return snprintf(msg, cap, "batch %d%s%s, split_k %d: the %s kernel takes no K slices, and "
                    "a batch as strides of a fixed-shape kernel only (its tensor maps' third "
                    "dimension)", o->batch, o->pointer_array ? " of pointer arrays" : "",
                    o->shape_args ? " with shape arguments" : "", o->split_k, kind), false;
  return true;
}

tcmma_swizzle tcmma__emit_gemm_tma_span_swizzle(long row_bytes) {
  for (int s = 1; s < TCMMA_SWIZZLE_COUNT; s++)
    if (tcmma_swizzle_get((tcmma_swizzle)s)->bytes == row_bytes) return (tcmma_swizzle)s;
  return TCMMA_SWIZZLE_NONE;
}

tcmma_status tcmma__emit_gemm_tma_layout(tcmma_gemm_plan *g, const tcmma_gemm_opts *o,
                                         tcmma_gemm_info *i, int cells, tcmma_error *err) {
  char msg[400];
  if (!tcmma__emit_gemm_classes(g, o, i, msg, sizeof msg))
    return decline(g, TCMMA_GEMM_DECLINE_ALIGNMENT, err, "%s", msg);
  tcmma_status st = tcmma__emit_gemm_plan_grid(g, o->shape_args, err);
  if (st == TCMMA_OK) st = tcmma__emit_gemm_plan_batch(g, o, i, err);
  if (st == TCMMA_OK) st = tcmma__emit_gemm_tma_check_maps(g, o, i, err);
  if (st == TCMMA_OK) st = tcmma__emit_gemm_tma_shared(g, cells, err);
  return st;
}

void tcmma__emit_gemm_tma_accept(tcmma_gemm_plan *g, tcmma_gemm_info *i) {
  tcmma__emit_gemm_serves(g, i);
  tcmma__emit_gemm_scale_info(g, i); /* unscaled, unpacked: 1, 0, 0, 0 */
  i->a_edge = i->b_edge = false;
  i->a_plain = i->b_plain = false;
  /* an M-major A's box (an N-major B's) is one panel */
  i->a_copy_bytes = g->call.a.transposed
                        ? tcmma__emit_gemm_tma_panel(g) * g->call.block_k *
                              tcmma_prec_bytes(g->call.a.prec)
                        : (int)tcmma__emit_gemm_tma_operand_bytes(g, TCMMA_OPERAND_A);
  i->b_copy_bytes = !g->call.b.transposed
                        ? tcmma__emit_gemm_tma_panel_b(g) * g->call.block_k *
                              tcmma_prec_bytes(g->call.b.prec)
                        : (int)tcmma__emit_gemm_tma_operand_bytes(g, TCMMA_OPERAND_B);
  i->arch_suffix = tcmma__emit_gemm_arch_suffix(g, i);
  g->accepted = true;
  g->reason = TCMMA_GEMM_DECLINE_NONE;
  snprintf(g->message, sizeof g->message, "accepted");
}

tcmma_status tcmma__emit_gemm_tma_check_call(tcmma_gemm_plan *g, const tcmma_gemm_opts *o,
                                             int stages_max, const char *kind,
                                             const char *suffix, tcmma_error *err) {
  const tcmma_gemm_call *c = &g->call;
  tcmma_status st = tcmma__emit_gemm_check_call(g, o, stages_max, err);
  if (st != TCMMA_OK) return st;
  if (c->name && strlen(c->name) > TCMMA__GEMM_NAME_MAX - strlen(suffix))
    return decline(g, TCMMA_GEMM_DECLINE_CALL, err, "kernel name '%s': the %s kernel names its "
                   "tile product NAME%s, at most %d characters", c->name, kind, suffix,
                   TCMMA__GEMM_NAME_MAX);
  return TCMMA_OK;
}
