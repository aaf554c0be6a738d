/* Per-lane fragment layouts of the inline-PTX arms (PTX ISA, docs/design.md §7). */
#ifndef TCMMA_LAYOUT_H
#define TCMMA_LAYOUT_H

#include "tcmma/arm.h"

#ifdef __cplusplus
extern "C" {
#endif
#pragma GCC visibility push(default) /* public: the library builds with -fvisibility=hidden */

typedef enum { TCMMA_OPERAND_A = 0, TCMMA_OPERAND_B = 1, TCMMA_OPERAND_C = 2 } tcmma_operand;

/* "a"|"b"|"c" <-> operand; parse fails with TCMMA_INVALID. */
const char *tcmma_operand_name(tcmma_operand op);
tcmma_status tcmma_operand_parse(const char *s, tcmma_operand *out, tcmma_error *err);

/* Registers per lane of op's fragment and elements per register (halves for
 * 16-bit types, bytes for fp8, 1 for f32). 0 for a wmma arm. */
int tcmma_fragment_regs(tcmma_arm arm, tcmma_operand op);
int tcmma_fragment_elems_per_reg(tcmma_arm arm, tcmma_operand op);

/* Where element elem of register reg of lane lane of op's fragment sits:
 * A: row=m col=k; B: row=k col=n; C: row=m col=n. TCMMA_INVALID for a wmma
 * arm (its layout is opaque) or an index out of range. */
tcmma_status tcmma_fragment_layout(tcmma_arm arm, tcmma_operand op, int lane, int reg,
                                   int elem, int *row, int *col, tcmma_error *err);

#pragma GCC visibility pop
#ifdef __cplusplus
}
#endif

#endif
