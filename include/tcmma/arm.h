/* Tensor-core arms (tables/arms.def): the facts of each rendering. */
#ifndef TCMMA_ARM_H
#define TCMMA_ARM_H

#include <stdbool.h>
#include <stddef.h>
#include "tcmma/prec.h"

#ifdef __cplusplus
extern "C" {
#endif
#pragma GCC visibility push(default) /* public: the library builds with -fvisibility=hidden */

typedef enum {
  TCMMA_ARM_NONE = -1,
#define TCMMA_ARM(ID, value, ...) TCMMA_ARM_##ID = (value),
#include "tables/arms.def"
#undef TCMMA_ARM
  /* the number of rows (the values: 0..COUNT-1 in any row order, mma/abi_values.c) */
  TCMMA_ARM_COUNT = 0
#define TCMMA_ARM(...) +1
#include "tables/arms.def"
#undef TCMMA_ARM
} tcmma_arm;

typedef enum { TCMMA_FORM_PTX = 0, TCMMA_FORM_WMMA = 1 } tcmma_form;

typedef enum {
  TCMMA_LDMATRIX_NEVER = 0, /* no operand ever loads through ldmatrix */
  TCMMA_LDMATRIX_BOTH = 1,  /* A and B, either orientation (.trans as needed) */
  TCMMA_LDMATRIX_A_ROW_B_T = 2  /* A only row-major, B only stored transposed (8- and
                               32-bit elements: registers contiguous along k) */
} tcmma_ldmatrix_rule;

typedef struct {
  tcmma_arm id;
  const char *marker;     /* "mma-bf16": the rendering comment's (marker) */
  tcmma_form form;
  int m, n, k;            /* intrinsic tile */
  int floor;              /* minimum compute capability, major*10+minor */
  bool family;            /* runs only on the floor's major version */
  tcmma_prec acc;         /* accumulator precision */
  tcmma_ldmatrix_rule ldmatrix;
  bool converted_dest;    /* d storage differs from the accumulator, staged */
  bool tf32;              /* multiplies f32 storage as tf32 (rounds each loaded
                             element: cvt.rna.tf32.f32 inline, precision::tf32
                             fragments in wmma) */
  int scale_block;        /* k elements per block scale of A's rows and B's columns
                             (block-scaled arms); 0: none */
  const char *instr;      /* mma.sync template (%a/%b: operand ptx types) */
  int a_regs, b_regs, c_regs; /* registers per lane (inline arms; 64-bit for f64
                             elements, else 32-bit), block-scale registers aside */
  const char *header;     /* CUDA header the body needs ("mma.h"; "" for none) */
} tcmma_arm_info;

/* The row of arm; NULL when arm is out of range. */
const tcmma_arm_info *tcmma_arm_get(tcmma_arm arm);

/* The marker of arm ("mma-bf16"); "none" for TCMMA_ARM_NONE or out of range. */
const char *tcmma_arm_marker(tcmma_arm arm);

/* Parses a marker into *out; TCMMA_INVALID naming it and the valid ones. */
tcmma_status tcmma_arm_parse(const char *marker, tcmma_arm *out, tcmma_error *err);

/* "ptx" or "wmma". */
const char *tcmma_form_name(tcmma_form form);

/* Human text of an ldmatrix rule ("never", "A and B, either orientation", ...). */
const char *tcmma_ldmatrix_rule_text(tcmma_ldmatrix_rule rule);

/* Threads in a warp: every arm's fragments are spread over the lanes
 * 0..TCMMA_WARP_SIZE-1 of one warp, which runs each mma together. */
#define TCMMA_WARP_SIZE 32

/* Compute capabilities are major*10+minor (80 for sm_80); 0 means "any
 * device". A real one lies in [TCMMA_CC_MIN, TCMMA_CC_MAX]. */
#define TCMMA_CC_MIN 10
#define TCMMA_CC_MAX 999

/* TCMMA_OK when cc is 0 or in [TCMMA_CC_MIN, TCMMA_CC_MAX]; TCMMA_INVALID
 * naming cc and the expected range otherwise. */
tcmma_status tcmma_cc_check(int cc, tcmma_error *err);

/* Whether a device of compute capability cc runs arm: cc >= floor and, for a
 * family arm, the same major version. cc 0 means "any device": true. False
 * for an out-of-range arm or cc. */
bool tcmma_arm_runs_on(tcmma_arm arm, int cc);

/* The tensor-core instructions ptxas issues per mma.sync of arm on a device
 * of cc: 1 where the SASS has the product, more where ptxas emulates it
 * (tables/arm_emulation.def: fp8 on 9.0 to 11.0), 0 where the arm does not
 * run on cc (tcmma_arm_runs_on) or cc is 0 ("any device": no SASS yet). */
int tcmma_arm_sass_products(tcmma_arm arm, int cc);

/* Which operands arm loads through ldmatrix, given whether each operand is
 * eligible at all (shared memory, swizzled_b128 layout) and whether it is
 * stored transposed. The one rule the renderer and the census both read. */
void tcmma_arm_ldmatrix_operands(tcmma_arm arm, bool a_eligible, bool a_transposed,
                                 bool b_eligible, bool b_transposed, bool *a_ldmatrix,
                                 bool *b_ldmatrix);

/* Writes arm's mma.sync opcode for operand precisions a and b into buf
 * (%a/%b expanded). TCMMA_INVALID for a wmma arm; TCMMA_OVERFLOW when buf is
 * too small. */
tcmma_status tcmma_arm_instruction(tcmma_arm arm, tcmma_prec a, tcmma_prec b, char *buf,
                                   size_t cap, tcmma_error *err);

/* The tile-MMA descriptor of compute capability cc: the arms a device of cc
 * can run, in table order (their floors and tiles via tcmma_arm_get). Writes
 * at most cap arms into out (NULL allowed when cap is 0) and the number of
 * runnable arms into *count. cc 0: every arm. TCMMA_INVALID for a bad cc
 * (see tcmma_cc_check), a NULL count, or out NULL with cap > 0. */
tcmma_status tcmma_descriptor(int cc, tcmma_arm *out, size_t cap, size_t *count,
                              tcmma_error *err);

#pragma GCC visibility pop
#ifdef __cplusplus
}
#endif

#endif
