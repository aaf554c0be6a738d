/* Per-lane fragment layouts of the inline-PTX shapes (PTX ISA "Matrix
 * Fragments for mma.m16n8k8/k16/k32, mma.m8n8k4"; docs/design.md §7). One
 * rule covers every inline arm of tables/arms.def: with g = lane>>2,
 * q = lane&3 and e elements per register, A register r holds row
 * g + 8*(r&1), columns e*q .. e*q+e-1 offset by K/2 for r>=2; B register r
 * holds k = e*q .. + K/2*r at column g; C element i (register i/e) holds
 * row g + 8*(i>>1), column 2q + (i&1). Elements per register derive from
 * the tile and the table's register counts. */
#include "tcmma/layout.h"

#include <string.h>
#include "tables/names.h"

const char *tcmma_operand_name(tcmma_operand op) {
  return op == TCMMA_OPERAND_A   ? "a"
         : op == TCMMA_OPERAND_B ? "b"
         : op == TCMMA_OPERAND_C ? "c"
                                 : "?";
}

static const char *operand_at(int i) { return tcmma_operand_name((tcmma_operand)i); }

/* "a, b or c" */
static const char *operand_names(char *buf, size_t cap) {
  return tcmma__table_names(buf, cap, operand_at, TCMMA_OPERAND_A, TCMMA_OPERAND_C);
}

tcmma_status tcmma_operand_parse(const char *s, tcmma_operand *out, tcmma_error *err) {
  static const tcmma_operand ops[] = {TCMMA_OPERAND_A, TCMMA_OPERAND_B, TCMMA_OPERAND_C};
  for (int i = 0; s && i < 3; i++)
    if (strcmp(s, tcmma_operand_name(ops[i])) == 0) {
      if (out) *out = ops[i];
      return TCMMA_OK;
    }
  char names[32];
  return tcmma_fail(err, TCMMA_INVALID, "unknown operand '%s': expected %s", s ? s : "(null)",
                    operand_names(names, sizeof names));
}

static const tcmma_arm_info *inline_arm(tcmma_arm arm) {
  const tcmma_arm_info *a = tcmma_arm_get(arm);
  return a && a->form == TCMMA_FORM_PTX ? a : NULL;
}

int tcmma_fragment_regs(tcmma_arm arm, tcmma_operand op) {
  const tcmma_arm_info *a = inline_arm(arm);
  if (!a) return 0;
  return op == TCMMA_OPERAND_A   ? a->a_regs
         : op == TCMMA_OPERAND_B ? a->b_regs
         : op == TCMMA_OPERAND_C ? a->c_regs
                                 : 0;
}

int tcmma_fragment_elems_per_reg(tcmma_arm arm, tcmma_operand op) {
  const tcmma_arm_info *a = inline_arm(arm);
  int regs = tcmma_fragment_regs(arm, op);
  if (!a || regs == 0) return 0;
  /* the lanes of a warp together hold the whole operand tile */
  int elems = op == TCMMA_OPERAND_A   ? a->m * a->k
              : op == TCMMA_OPERAND_B ? a->k * a->n
                                      : a->m * a->n;
  return elems / (TCMMA_WARP_SIZE * regs);
}

tcmma_status tcmma_fragment_layout(tcmma_arm arm, tcmma_operand op, int lane, int reg, int elem,
                                   int *row, int *col, tcmma_error *err) {
  const tcmma_arm_info *a = tcmma_arm_get(arm);
  if (!a) return tcmma_fail(err, TCMMA_INVALID, "arm %d is out of range", (int)arm);
  if (a->form != TCMMA_FORM_PTX)
    return tcmma_fail(err, TCMMA_INVALID, "arm %s is a wmma arm: its fragment layout is opaque",
                      a->marker);
  int regs = tcmma_fragment_regs(arm, op), per = tcmma_fragment_elems_per_reg(arm, op);
  char names[32];
  if (regs == 0)
    return tcmma_fail(err, TCMMA_INVALID, "operand %d: expected %s", (int)op,
                      operand_names(names, sizeof names));
  if (lane < 0 || lane >= TCMMA_WARP_SIZE || reg < 0 || reg >= regs || elem < 0 || elem >= per)
    return tcmma_fail(err, TCMMA_INVALID,
                      "lane %d reg %d elem %d: expected lane 0..%d, reg 0..%d, elem 0..%d", lane,
                      reg, elem, TCMMA_WARP_SIZE - 1, regs - 1, per - 1);
  int g = lane >> 2, q = lane & 3, r, c;
  switch (op) {
    case TCMMA_OPERAND_A:
      r = g + 8 * (reg & 1);
      c = per * q + elem + (a->k / 2) * (reg >> 1);
      break;
    case TCMMA_OPERAND_B:
      r = per * q + elem + (a->k / 2) * reg;
      c = g;
      break;
    default: /* element i = reg * per + elem: c0, c1 in row g, c2, c3 in g + 8 */
      r = g + 8 * ((reg * per + elem) >> 1);
      c = 2 * q + ((reg * per + elem) & 1);
      break;
  }
  if (row) *row = r;
  if (col) *col = c;
  return TCMMA_OK;
}
