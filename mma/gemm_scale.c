/* Block-scaled GEMMs (docs/emit.md, Block-scaled GEMMs): the arms whose
 * operands carry block scales (mma-mxfp8, mma-mxf4, mma-nvf4) at cc 12.x.
 * Their scales travel as two more kernel arguments, sfa [m x scale_ld] and
 * sfb [n x scale_ld] bytes, row-major by k block, and are staged with each
 * k tile; fp4 operands of the m16n8k64 arms are stored packed, two e2m1 a
 * byte, and load through an 8-bit "byte twin" arm whose fragments hold the
 * same bytes (checked here element by element from both layouts). */
#include <stdio.h>
#include "emit.h"
#include "gemm_rules.h"
#include "tcmma/layout.h"

int tcmma__emit_gemm_scale_block(const tcmma_gemm_plan *g) {
  const tcmma_arm_info *info = tcmma_arm_get(g->arm);
  return info ? info->scale_block : 0;
}

/* A register of the arm's a fragment holds elements of 32 / per bits: below
 * a byte, the GEMM stores them so, packed (the m16n8k64 fp4 arms: 4 bits). */
int tcmma__emit_gemm_pack(const tcmma_gemm_plan *g) {
  int per = tcmma_fragment_elems_per_reg(g->arm, TCMMA_OPERAND_A);
  int bits = per > 0 ? 32 / per : 32;
  return bits < 8 ? 8 / bits : 1;
}

long tcmma__emit_gemm_scale_cols(const tcmma_gemm_plan *g) {
  int block = tcmma__emit_gemm_scale_block(g);
  return block ? g->call.block_k / block : 0;
}

size_t tcmma__emit_gemm_scale_tile_bytes(const tcmma_gemm_plan *g, tcmma_operand op) {
  long rows = op == TCMMA_OPERAND_A ? g->call.block_m : g->call.block_n;
  size_t bytes = (size_t)(rows * tcmma__emit_gemm_scale_cols(g));
  return (bytes + TCMMA__GEMM_COPY_BYTES - 1) / TCMMA__GEMM_COPY_BYTES * TCMMA__GEMM_COPY_BYTES;
}

/* The widest power of two dividing both a stage row of scales and the rows
 * of the scale tensors (TCMMA_GEMM_SCALE_ROW_ALIGN): every copy stays in
 * one row and is aligned in both memories. */
int tcmma__emit_gemm_scale_unit(const tcmma_gemm_plan *g) {
  long cols = tcmma__emit_gemm_scale_cols(g);
  int u = TCMMA_GEMM_SCALE_ROW_ALIGN;
  while (u > 1 && cols % u) u /= 2;
  return u;
}

long tcmma__emit_gemm_scale_ld(const tcmma_gemm_plan *g, long k) {
  long block = tcmma__emit_gemm_scale_block(g), align = TCMMA_GEMM_SCALE_ROW_ALIGN;
  if (!block) return 0;
  return ((k + block - 1) / block + align - 1) / align * align;
}

long tcmma__emit_gemm_scale_copies(const tcmma_gemm_plan *g, tcmma_operand op) {
  long rows = op == TCMMA_OPERAND_A ? g->call.block_m : g->call.block_n;
  return rows * tcmma__emit_gemm_scale_cols(g) / tcmma__emit_gemm_scale_unit(g);
}

long tcmma__emit_gemm_scale_copies_per_thread(const tcmma_gemm_plan *g) {
  long t = g->threads;
  return (tcmma__emit_gemm_scale_copies(g, TCMMA_OPERAND_A) + t - 1) / t +
         (tcmma__emit_gemm_scale_copies(g, TCMMA_OPERAND_B) + t - 1) / t;
}

void tcmma__emit_gemm_scale_info(const tcmma_gemm_plan *g, tcmma_gemm_info *i) {
  i->pack = tcmma__emit_gemm_pack(g);
  i->scale_block = tcmma__emit_gemm_scale_block(g);
  i->scale_ld = tcmma__emit_gemm_scale_ld(g, g->call.k);
  i->scale_copy_bytes = i->scale_block ? tcmma__emit_gemm_scale_unit(g) : 0;
}

bool tcmma__emit_gemm_scale_rules(const tcmma_gemm_plan *g, const tcmma_gemm_opts *o,
                                  tcmma_gemm_decline *why, char *msg, size_t cap) {
  const tcmma_gemm_call *c = &g->call;
  int pack = tcmma__emit_gemm_pack(g);
  if (!tcmma__emit_gemm_scale_block(g)) return true;
  *why = TCMMA_GEMM_DECLINE_CALL;
  if (o->pointer_array)
    return snprintf(msg, cap, "arm %s: a block-scaled batch of pointer arrays would need "
                    "arrays of scale tensors too: batch with strides instead (the scale "
                    "tensors one after another)", tcmma_arm_marker(g->arm)), false;
  if (pack == 1) return true;
  /* two elements a byte along k: k-major storage only, as cuBLASLt's FP4 "TN" */
  *why = TCMMA_GEMM_DECLINE_ARM;
  if (c->a.transposed || !c->b.transposed)
    return snprintf(msg, cap, "arm %s: packed fp4 operands (%d a byte along k) must be stored "
                    "k-major: a row-major (got%s transposed), b transposed (got%s)",
                    tcmma_arm_marker(g->arm), pack, c->a.transposed ? "" : " not",
                    c->b.transposed ? " transposed" : " not transposed"), false;
  *why = TCMMA_GEMM_DECLINE_ALIGNMENT;
  if (c->k % pack || c->a.ld % pack || c->b.ld % pack || o->stride_a % pack ||
      o->stride_b % pack)
    return snprintf(msg, cap, "arm %s: k %d, lda %ld, ldb %ld, stride_a %lld, stride_b %lld: "
                    "packed fp4 rows and matrices must be whole bytes (multiples of %d)",
                    tcmma_arm_marker(g->arm), c->k, c->a.ld, c->b.ld, o->stride_a, o->stride_b,
                    pack), false;
  return true;
}

/* Whether arm t's op fragments hold, byte for byte, g's arm's packed ones:
 * the same registers, each element e of the packed register the low (e
 * even) or high nibble of byte e / pack of t's register, at k 2 * k_t + e %
 * pack (A: row = m, col = k; B: row = k, col = n). */
static bool same_bytes(tcmma_arm arm, tcmma_arm t, tcmma_operand op, int pack) {
  int per = tcmma_fragment_elems_per_reg(arm, op);
  if (tcmma_fragment_regs(arm, op) != tcmma_fragment_regs(t, op) ||
      per != pack * tcmma_fragment_elems_per_reg(t, op))
    return false;
  for (int l = 0; l < TCMMA_WARP_SIZE; l++)
    for (int r = 0; r < tcmma_fragment_regs(arm, op); r++)
      for (int e = 0; e < per; e++) {
        int pr, pc, br, bc;
        if (tcmma_fragment_layout(arm, op, l, r, e, &pr, &pc, NULL) != TCMMA_OK ||
            tcmma_fragment_layout(t, op, l, r, e / pack, &br, &bc, NULL) != TCMMA_OK)
          return false;
        bool ok = op == TCMMA_OPERAND_A ? pr == br && pc == pack * bc + e % pack
                                        : pc == bc && pr == pack * br + e % pack;
        if (!ok) return false;
      }
  return true;
}

/* The first inline arm (table value order) of 8-bit unscaled operands whose
 * m and n are g's arm's, its k the arm's over pack, and whose a and b
 * fragments are the packed ones' bytes; with the first 8-bit precision it
 * takes (f32 = p x p). */
bool tcmma__emit_gemm_byte_twin(const tcmma_gemm_plan *g, tcmma_arm *arm, tcmma_prec *prec) {
  const tcmma_arm_info *me = tcmma_arm_get(g->arm);
  int pack = tcmma__emit_gemm_pack(g);
  for (int a = 0; me && a < TCMMA_ARM_COUNT; a++) {
    const tcmma_arm_info *t = tcmma_arm_get((tcmma_arm)a);
    if (!t || t->form != TCMMA_FORM_PTX || t->scale_block || t->m != me->m || t->n != me->n ||
        t->k * pack != me->k || !same_bytes(g->arm, (tcmma_arm)a, TCMMA_OPERAND_A, pack) ||
        !same_bytes(g->arm, (tcmma_arm)a, TCMMA_OPERAND_B, pack))
      continue;
    for (int p = 0; p < TCMMA_PREC_COUNT; p++) {
      tcmma_triple tr = {TCMMA_PREC_F32, (tcmma_prec)p, (tcmma_prec)p};
      if (tcmma_prec_bits((tcmma_prec)p) == 8 && !tcmma_prec_is_scaled((tcmma_prec)p) &&
          tcmma__emit_arm_is_candidate(tr, &g->call.numerics, (tcmma_arm)a)) {
        *arm = (tcmma_arm)a, *prec = (tcmma_prec)p;
        return true;
      }
    }
  }
  return false;
}
