/* Warpgroup tensor-core arms (tables/wgmma.def, docs/wgmma.md): the facts of
 * wgmma.mma_async, its accumulator layout and its shared-memory matrix
 * descriptors. */
#ifndef TCMMA_WGMMA_H
#define TCMMA_WGMMA_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#ifndef __cplusplus
#endif
#include "tcmma/prec.h"
#include "tcmma/ptx.h"
#include "tcmma/swizzle.h"
#include "tcmma/plan.h"
#include "tcmma/buf.h"
#include "tcmma/render.h"

#ifdef __cplusplus
extern "C" {
#endif
#pragma GCC visibility push(default) /* public: the library builds with -fvisibility=hidden */

/* An operand precision in a row's ops column. */
#define TCMMA_WGMMA_OP(P) (1u << TCMMA_PREC_##P)

typedef enum {
  TCMMA_WGMMA_NONE = -1,
#define TCMMA_WGMMA(ID, value, ...) TCMMA_##ID = (value),
#include "tables/wgmma.def"
#undef TCMMA_WGMMA
  /* the number of rows (the values: 0..COUNT-1 in any row order, mma/abi_values.c) */
  TCMMA_WGMMA_COUNT = 0
#define TCMMA_WGMMA(...) +1
#include "tables/wgmma.def"
#undef TCMMA_WGMMA
} tcmma_wgmma;

/* Threads of a warpgroup: four consecutive warps, the first warp's index a
 * multiple of four, run each wgmma.mma_async together. */
#define TCMMA_WARPGROUP_SIZE 128
/* The largest n of any row (n_mask's top bit). */
#define TCMMA_WGMMA_N_MAX 256
/* 32-bit registers per thread of an A fragment read from registers (every
 * row: 64 x k elements over 128 threads). */
#define TCMMA_WGMMA_A_REGS 4

typedef struct {
  tcmma_wgmma id;
  const char *marker;     /* "wgmma-bf16": the rendering comment's (marker) */
  int m, k;               /* instruction m and k; n per instruction */
  tcmma_prec acc;         /* accumulator precision */
  unsigned ops;           /* TCMMA_WGMMA_OP bits: A's and B's precisions */
  int floor;              /* minimum compute capability (90) */
  tcmma_ptx_suffix suffix; /* targets: TCMMA_PTX_SUFFIX_A (sm_90a only) */
  uint32_t n_mask;        /* bit i: n = 8 * (i + 1) is an instruction n */
  bool trans;             /* operands from shared memory may be M/N-major */
  const char *instr;      /* opcode template (%n, %a, %b) */
  tcmma_arm a_frag;       /* the arms.def row whose A fragment each warp's share of a
                             register A follows (tcmma_wgmma_a_layout) */
} tcmma_wgmma_info;

/* The row of w; NULL when out of range. */
const tcmma_wgmma_info *tcmma_wgmma_get(tcmma_wgmma w);

/* The marker of w ("wgmma-bf16"); "none" when out of range. */
const char *tcmma_wgmma_marker(tcmma_wgmma w);

/* Parses a marker into *out; TCMMA_INVALID naming it and the valid ones
 * (*out = TCMMA_WGMMA_NONE). */
tcmma_status tcmma_wgmma_parse(const char *marker, tcmma_wgmma *out, tcmma_error *err);

/* Whether n is one of w's instruction n (false for an out-of-range w). */
bool tcmma_wgmma_n_ok(tcmma_wgmma w, int n);

/* Whether w multiplies A of precision a by B of precision b. */
bool tcmma_wgmma_takes(tcmma_wgmma w, tcmma_prec a, tcmma_prec b);

/* Whether a device of compute capability cc runs w: only the floor's own
 * arch (9.0; wgmma is not forward-compatible). cc 0: any device, true. */
bool tcmma_wgmma_runs_on(tcmma_wgmma w, int cc);

/* Writes w's opcode at instruction n for operand precisions a and b into
 * buf. TCMMA_INVALID naming the bad w, n or precision (one w does not take);
 * TCMMA_OVERFLOW when buf is too small. */
tcmma_status tcmma_wgmma_instruction(tcmma_wgmma w, int n, tcmma_prec a, tcmma_prec b, char *buf,
                                     size_t cap, tcmma_error *err);

/* 32-bit accumulator registers per thread at instruction n (n/2 for f32 and
 * s32, n/4 for f16 pairs); 0 for a bad w or n. Elements per register: 2 for
 * an f16 accumulator, else 1. */
int tcmma_wgmma_acc_regs(tcmma_wgmma w, int n);
int tcmma_wgmma_acc_elems_per_reg(tcmma_wgmma w);

/* Where element elem of accumulator register reg of warpgroup thread thread
 * (0..127) sits in the 64 x n tile: row (m) and col (n). TCMMA_INVALID
 * naming an index out of range. */
tcmma_status tcmma_wgmma_acc_layout(tcmma_wgmma w, int n, int thread, int reg, int elem, int *row,
                                    int *col, tcmma_error *err);

/* Where element elem of register reg (0..TCMMA_WGMMA_A_REGS-1) of a register
 * A fragment of one k step sits for warpgroup thread thread: row (m, 0..63)
 * and col (k). Elements per register: tcmma_wgmma_a_elems_per_reg (2 for
 * 16-bit, 1 for tf32, 4 for 8-bit; 0 for a bad w). TCMMA_INVALID naming an
 * index out of range. */
int tcmma_wgmma_a_elems_per_reg(tcmma_wgmma w);
tcmma_status tcmma_wgmma_a_layout(tcmma_wgmma w, int thread, int reg, int elem, int *row, int *col,
                                  tcmma_error *err);

/* The 64-bit shared-memory matrix descriptor (PTX ISA "matrix descriptor"):
 * start address, leading and stride byte offsets (bytes; each a multiple of
 * 16 below 2^18), base offset (0..7) and swizzle. TCMMA_INVALID naming a
 * field out of range. */
tcmma_status tcmma_wgmma_desc_encode(long start, long lbo, long sbo, int base_offset,
                                     tcmma_swizzle swizzle, uint64_t *out, tcmma_error *err);

/* The fields of descriptor bits (the inverse of tcmma_wgmma_desc_encode for
 * every value it writes); any pointer may be NULL. */
void tcmma_wgmma_desc_decode(uint64_t bits, long *start, long *lbo, long *sbo, int *base_offset,
                             tcmma_swizzle *swizzle);

/* One operand of a wgmma tile product as a descriptor reads it (planned by
 * tcmma_wgmma_operand_plan). */
typedef struct {
  tcmma_decline reason;   /* TCMMA_DECLINE_NONE: the descriptor expresses it */
  char message[256];      /* names the value and the rule when declined */
  uint64_t desc;          /* the descriptor with start address 0: a kernel adds
                             (address & 0x3FFFF) >> 4 of the sub-tile's first byte */
  bool trans;             /* the instruction's imm-trans value (M/N-major) */
  long origin_bytes;      /* the sub-tile's first byte from the parent's base */
  long k_step_bytes;      /* the start address's advance per instruction k */
} tcmma_wgmma_operand;

/* Plans operand op (TCMMA_OPERAND_A: 64 x k rows of A; TCMMA_OPERAND_B:
 * k x n) of w at instruction n from its v2 layout desc. An A in
 * TCMMA_SPACE_THREAD is read from registers (tcmma_wgmma_a_layout; K-major
 * only, so not transposed): no descriptor (desc 0). Declines
 * (out->reason, out->message, TCMMA_DECLINED, message copied to err): an
 * operand not in shared memory (space), a precision w does not take or a
 * bad n (extents), an M/N-major operand of a K-major-only row or a layout
 * whose swizzle atom or core matrices the descriptor cannot express
 * (layout), rows not a multiple of 16 bytes apart (stride). TCMMA_INVALID
 * for NULL or out-of-range arguments. */
tcmma_status tcmma_wgmma_operand_plan(tcmma_wgmma w, tcmma_operand op, int n,
                                      const tcmma_operand_desc *desc, tcmma_wgmma_operand *out,
                                      tcmma_error *err);

/* tcmma_wgmma_operand_plan for an M/N-major operand stored panel-major:
 * its m or n in panels of one swizzle span along it (desc's rows: ld one
 * span), each panel_rows stored k rows, panel p panel_rows * p rows after
 * the first; the descriptor's LBO is that distance (docs/wgmma.md). 0: one
 * span only (tcmma_wgmma_operand_plan). Declines as it does, and (layout)
 * panel rows for a K-major operand or off the 8-row swizzle atom, k rows
 * past a panel; (subtile) an origin column off a panel's first. */
tcmma_status tcmma_wgmma_operand_plan_panels(tcmma_wgmma w, tcmma_operand op, int n,
                                             const tcmma_operand_desc *desc, long panel_rows,
                                             tcmma_wgmma_operand *out, tcmma_error *err);

/* One warpgroup tile product to render: acc[64 x n] (+)= A[64 x k] B[k x n],
 * A and B in shared memory as their v2 layouts say, k a multiple of the
 * arm's k (docs/wgmma.md). Start one with TCMMA_WGMMA_CALL_INIT. */
typedef struct {
  size_t size;            /* sizeof(tcmma_wgmma_call) where the caller was built */
  tcmma_wgmma arm;
  int n, k;               /* n: one of the arm's instruction n */
  tcmma_operand_desc a, b; /* shared operands, or an A in TCMMA_SPACE_THREAD: registers
                             (tcmma_wgmma_operand_plan) */
  const char *name;       /* the function's name (a C identifier, at most 64
                             characters, borrowed); NULL: "tcmma_wgmma_tile" */
  int wait;               /* wgmma.wait_group N after the commit: 0 (the products
                             are done on return) to 7 (that many groups left in
                             flight; the caller waits before reading acc) */
  /* TCMMA_DIALECT_CUDA (0, and for a caller built before this field, whose
   * size stops short of it) or TCMMA_DIALECT_HOST: the simulator's calls
   * (include/tcmma/sim.h). Placed past the old struct's tail padding
   * (tail_pad), so an old caller's size never covers it. */
  int tail_pad; /* unused, never read: an old caller's size covers it with whatever it held */
  tcmma_dialect dialect;
  /* an M/N-major A's or B's panels (tcmma_wgmma_operand_plan_panels): stored
   * rows per panel; 0 (and for a caller whose size stops short): one span */
  long a_panel_rows, b_panel_rows;
} tcmma_wgmma_call;

#define TCMMA_WGMMA_CALL_INIT(...) {.size = sizeof(tcmma_wgmma_call), __VA_ARGS__}

/* Renders call as two device functions into out (appended), in call->dialect
 * (CUDA inline asm, or the host dialect's tcmma_sim_wgmma_* calls with the
 * same opcodes, the accumulators and a register A as C arrays): NAME_publish()
 * (fence.proxy.async after the block's ordinary shared stores, then a block
 * barrier) and NAME(acc, a, b, accumulate), run by every thread of one
 * warpgroup (a register A: `const unsigned (&a)[k steps][4]`, each step's
 * fragment as tcmma_wgmma_a_layout places it): wgmma.fence, one wgmma.mma_async per k step through matrix
 * descriptors, commit_group, wait_group. TCMMA_DECLINED (message in err) when
 * an operand plan declines or k is not a multiple of the arm's k;
 * TCMMA_INVALID for a NULL, malformed or too small call or a bad dialect. */
tcmma_status tcmma_wgmma_render(const tcmma_wgmma_call *call, tcmma_buf *out, tcmma_error *err);

#pragma GCC visibility pop
#ifdef __cplusplus
}
#endif

#endif
