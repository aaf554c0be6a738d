/* Blackwell tensor-core arms (tables/tcgen05.def, tables/tcgen05_desc.def,
 * docs/tcgen05.md): the facts of tcgen05.mma.cta_group::1, its 32-bit
 * instruction descriptor, the sm_100 shared-memory matrix descriptor, the
 * accumulator's place in Tensor Memory, and the rendered pieces (Tensor
 * Memory allocation, the one-thread tile product, commit, fences, waits and
 * the tcgen05.ld/st epilogue loads). Every fact is the PTX ISA's; none has
 * run on a cc 10.x device. */
#ifndef TCMMA_TCGEN05_H
#define TCMMA_TCGEN05_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
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
#define TCMMA_TCGEN05_OP(P) (1u << TCMMA_PREC_##P)
/* The instruction m in a row's m_mask column. */
#define TCMMA_TCGEN05_M64 1u
#define TCMMA_TCGEN05_M128 2u

typedef enum {
  TCMMA_TCGEN05_NONE = -1,
#define TCMMA_TCGEN05(ID, value, ...) TCMMA_##ID = (value),
#include "tables/tcgen05.def"
#undef TCMMA_TCGEN05
  /* the number of rows (the values: 0..COUNT-1 in any row order, mma/abi_values.c) */
  TCMMA_TCGEN05_COUNT = 0
#define TCMMA_TCGEN05(...) +1
#include "tables/tcgen05.def"
#undef TCMMA_TCGEN05
} tcmma_tcgen05;

/* The instruction descriptor's fields (tables/tcgen05_desc.def). */
typedef enum {
#define TCMMA_TCGEN05_IDESC(ID, value, ...) TCMMA_TCGEN05_IDESC_##ID = (value),
#include "tables/tcgen05_desc.def"
  TCMMA_TCGEN05_IDESC_COUNT = 0
#define TCMMA_TCGEN05_IDESC(...) +1
#include "tables/tcgen05_desc.def"
} tcmma_tcgen05_idesc_field;

/* The shared-memory descriptor's fields (tables/tcgen05_desc.def). */
typedef enum {
#define TCMMA_TCGEN05_SDESC(ID, value, ...) TCMMA_TCGEN05_SDESC_##ID = (value),
#include "tables/tcgen05_desc.def"
  TCMMA_TCGEN05_SDESC_COUNT = 0
#define TCMMA_TCGEN05_SDESC(...) +1
#include "tables/tcgen05_desc.def"
} tcmma_tcgen05_sdesc_field;

/* Where a block-scaled product keeps its scales in Tensor Memory and in the
 * shared atoms tcgen05.cp copies them from (tables/tcgen05_desc.def SCALE
 * rows, docs/tcgen05.md "Block scales"). */
enum {
#define TCMMA_TCGEN05_SCALE(ID, value) TCMMA_TCGEN05_SCALE_##ID = (value),
#include "tables/tcgen05_desc.def"
};

/* The tcgen05.ld/st shapes (tables/tcgen05_desc.def). */
typedef enum {
#define TCMMA_TCGEN05_LDST(ID, value, ...) TCMMA_TCGEN05_##ID = (value),
#include "tables/tcgen05_desc.def"
  TCMMA_TCGEN05_LDST_COUNT = 0
#define TCMMA_TCGEN05_LDST(...) +1
#include "tables/tcgen05_desc.def"
} tcmma_tcgen05_ldst;

/* Tensor Memory per CTA: TCMMA_TMEM_LANES lanes of TCMMA_TMEM_COLUMNS 32-bit
 * columns; an allocation is a power of two of columns from
 * TCMMA_TMEM_ALLOC_MIN (tables/tcgen05_desc.def). */
enum {
#define TCMMA_TCGEN05_TMEM(ID, value) TCMMA_TMEM_##ID = (value),
#include "tables/tcgen05_desc.def"
};

typedef struct {
  tcmma_tcgen05 id;
  const char *marker;     /* "tcgen05-bf16": the rendering comment's (marker) */
  unsigned m_mask;        /* TCMMA_TCGEN05_M64 | TCMMA_TCGEN05_M128 */
  int k;                  /* instruction k */
  tcmma_prec acc;         /* accumulator precision (in Tensor Memory) */
  unsigned ops;           /* TCMMA_TCGEN05_OP bits: A's and B's precisions */
  int floor;              /* minimum compute capability (100) */
  tcmma_ptx_suffix suffix; /* targets: A (sm_100a) or A_OR_F (also sm_100f) */
  uint32_t n_mask;        /* bit i: n = 8 * (i + 1) is an instruction n */
  bool trans;             /* shared operands may be M/N-major */
  const char *scale;      /* block-scaled: "ue8m0" or "ue4m3"; "" */
  int block;              /* block-scaled: k elements per scale; 0 */
  const char *instr;      /* the opcode */
} tcmma_tcgen05_info;

/* The row of w; NULL when out of range. */
const tcmma_tcgen05_info *tcmma_tcgen05_get(tcmma_tcgen05 w);

/* The marker of w ("tcgen05-bf16"); "none" when out of range. */
const char *tcmma_tcgen05_marker(tcmma_tcgen05 w);

/* Parses a marker into *out; TCMMA_INVALID naming it and the valid ones
 * (*out = TCMMA_TCGEN05_NONE). */
tcmma_status tcmma_tcgen05_parse(const char *marker, tcmma_tcgen05 *out, tcmma_error *err);

/* Whether m (64, 128) and n are one of w's instruction shapes (false for an
 * out-of-range w). */
bool tcmma_tcgen05_shape_ok(tcmma_tcgen05 w, int m, int n);

/* Whether w multiplies A of precision a by B of precision b. */
bool tcmma_tcgen05_takes(tcmma_tcgen05 w, tcmma_prec a, tcmma_prec b);

/* Whether w reads operands of precision p (through a descriptor or from
 * Tensor Memory) as tcmma stores them (tables/prec.def): false for fp6 and
 * fp4, whose form for tcgen05 (the ISA's packing formats) is not tcmma's
 * byte with the value in its low bits, and for a p w does not take. */
bool tcmma_tcgen05_reads_storage(tcmma_tcgen05 w, tcmma_prec p);

/* Elements of precision p a stored byte holds where w's descriptors read
 * them from shared memory (tables/tcgen05_desc.def TYPE rows): 1 one a byte
 * as tcmma stores them; 2 packed fp4 (kind::mxf4, mxf4nvf4: two e2m1 a
 * byte along k, the lower k in the low nibble, K-major); 0 a padded form
 * no tcmma layout expresses (fp6, fp4 of the f8f6f4 kinds) or a p w does
 * not take. */
int tcmma_tcgen05_pack(tcmma_tcgen05 w, tcmma_prec p);

/* Whether a device of compute capability cc runs w: 10.0 and 10.3 (the
 * family, or 10.0 alone for an arch-specific row). cc 0: any, true. */
bool tcmma_tcgen05_runs_on(tcmma_tcgen05 w, int cc);

/* ---- the instruction descriptor (PTX ISA Tables 42-44) */

/* The 32-bit instruction descriptor of w at m x n with A and B of
 * precisions a and b, each K-major or (trans_*) M/N-major; no sparsity,
 * negation, saturation or shift; block-scaled rows: scale ids 0 (a kernel
 * ORs in the scale addresses' bytes) and the row's scale type. TCMMA_INVALID
 * naming the bad w, shape, precision or an M/N-major operand a K-major-only
 * row or precision cannot have; NULL out. */
tcmma_status tcmma_tcgen05_idesc(tcmma_tcgen05 w, int m, int n, tcmma_prec a, tcmma_prec b,
                                 bool trans_a, bool trans_b, uint32_t *out, tcmma_error *err);

/* Field f of bits in w's descriptor format (the raw field value, not
 * scaled by its unit); -1 where w's format has no such field or w or f is
 * out of range. */
int tcmma_tcgen05_idesc_get(tcmma_tcgen05 w, tcmma_tcgen05_idesc_field f, uint32_t bits);

/* The first bit of field f in w's descriptor format; -1 where the format
 * has no such field or w or f is out of range. */
int tcmma_tcgen05_idesc_bit(tcmma_tcgen05 w, tcmma_tcgen05_idesc_field f);

/* Field f's name ("N", "atype"); "?" out of range. */
const char *tcmma_tcgen05_idesc_field_name(tcmma_tcgen05_idesc_field f);

/* The inverse of tcmma_tcgen05_idesc: m, n, a, b, trans_a and trans_b of
 * bits (any pointer may be NULL; block-scaled scale ids are accepted and
 * not returned). TCMMA_INVALID naming the field when bits are not a
 * descriptor tcmma_tcgen05_idesc writes for w: a code outside w's set, a
 * dtype or scale type not w's, sparsity, negation, saturation, a shift, a
 * reserved bit set, or a shape w does not take. */
tcmma_status tcmma_tcgen05_idesc_decode(tcmma_tcgen05 w, uint32_t bits, int *m, int *n,
                                        tcmma_prec *a, tcmma_prec *b, bool *trans_a,
                                        bool *trans_b, tcmma_error *err);

/* ---- the shared-memory matrix descriptor (sm_100) */

/* The 64-bit descriptor: start address, leading and stride byte offsets
 * (bytes; each a multiple of 16 below 2^18), base offset (0..7), swizzle
 * (none, 32, 64 or 128 bytes), the version field 1, relative leading
 * offsets. TCMMA_INVALID naming a field out of range. */
tcmma_status tcmma_tcgen05_desc_encode(long start, long lbo, long sbo, int base_offset,
                                       tcmma_swizzle swizzle, uint64_t *out, tcmma_error *err);

/* The inverse of tcmma_tcgen05_desc_encode (any pointer may be NULL).
 * TCMMA_INVALID naming the field when the version is not 1, the leading
 * offset mode is absolute, a reserved bit is set or the swizzle code is
 * one tcmma has no swizzle for (1: 128-byte with 32-byte atoms; 3, 5, 7). */
tcmma_status tcmma_tcgen05_desc_decode(uint64_t bits, long *start, long *lbo, long *sbo,
                                       int *base_offset, tcmma_swizzle *swizzle,
                                       tcmma_error *err);

/* Field f of descriptor bits (raw, not scaled by its unit); -1 for a bad f. */
long tcmma_tcgen05_desc_get(tcmma_tcgen05_sdesc_field f, uint64_t bits);

/* ---- Tensor Memory */

/* Whether ncols is an allocation size tcgen05.alloc takes: a power of two
 * from TCMMA_TMEM_ALLOC_MIN to TCMMA_TMEM_COLUMNS. */
bool tcmma_tcgen05_alloc_ok(int ncols);

/* Where element (row, col) of w's m x n accumulator sits in Tensor Memory,
 * relative to the accumulator's address: lane and column (32-bit cells).
 * TCMMA_INVALID naming a bad w, shape or index; TCMMA_DECLINED for an f16
 * accumulator (its packing in Tensor Memory is not modelled here). */
tcmma_status tcmma_tcgen05_acc_cell(tcmma_tcgen05 w, int m, int n, int row, int col, int *lane,
                                    int *column, tcmma_error *err);

/* The inverse: which element of the accumulator Tensor Memory cell (lane
 * 0..127, column 0..n-1) holds; *row = *col = -1 for a lane the m's data
 * path leaves empty. Errors as tcmma_tcgen05_acc_cell. */
tcmma_status tcmma_tcgen05_acc_layout(tcmma_tcgen05 w, int m, int n, int lane, int column,
                                      int *row, int *col, tcmma_error *err);

/* 32-bit registers per thread of a tcgen05.ld/st of shape at .x num (num a
 * power of two, 1..128); 0 when num is bad or the registers exceed 128. */
int tcmma_tcgen05_ldst_regs(tcmma_tcgen05_ldst shape, int num);

/* The shape's PTX name ("32x32b"); "?" out of range. */
const char *tcmma_tcgen05_ldst_name(tcmma_tcgen05_ldst shape);

/* ---- block scales (block-scaled rows) */

/* The scale of row x (A's row, B's column; 0 <= x < rows) for k block kb
 * (counted from the product's first k) of a product of w whose operand has
 * rows rows (A: m, B: n): *column from the scale address (lane x % 32 of
 * every lane quarter), *byte of the 32-bit cell, and *src its byte in the
 * shared source that tcmma_tcgen05_cp_scales copies (512-byte atoms, one
 * per 4 columns). TCMMA_INVALID for a row that is not block-scaled, rows
 * not 1..256, x or kb out of range or a NULL output. */
tcmma_status tcmma_tcgen05_scale_cell(tcmma_tcgen05 w, int rows, int x, int kb,
                                      unsigned *column, unsigned *byte, long *src,
                                      tcmma_error *err);

/* The 512-byte atoms (each 4 Tensor Memory columns) an operand of rows rows
 * needs for the scales of a product of k of w: ceil(k / block / 4) x
 * ceil(rows / 128); 0 for a row that is not block-scaled or bad sizes. */
int tcmma_tcgen05_scale_atoms(tcmma_tcgen05 w, int rows, int k);

/* The scale ids (instruction descriptor bits 29-30, 4-5) w may name, bit i
 * for id i: 0xF for scale_vec::1X, 0x5 for 2X, 0x1 for 4X; 0 for a row that
 * is not block-scaled. */
unsigned tcmma_tcgen05_scale_ids(tcmma_tcgen05 w);

/* ---- operands and rendering */

/* One shared operand of a tcgen05 tile product as a descriptor reads it
 * (planned by tcmma_tcgen05_operand_plan). */
typedef struct {
  tcmma_decline reason;   /* TCMMA_DECLINE_NONE: the descriptor expresses it */
  char message[256];      /* names the value and the rule when declined */
  uint64_t desc;          /* the descriptor with start address 0: a kernel adds
                             (address & 0x3FFFF) >> 4 of the sub-tile's first byte */
  bool trans;             /* M/N-major: the instruction descriptor's transpose bit */
  long origin_bytes;      /* the sub-tile's first byte from the parent's base */
  long k_step_bytes;      /* the start address's advance per instruction k */
} tcmma_tcgen05_operand;

/* Plans operand op (TCMMA_OPERAND_A: m x k rows of A; TCMMA_OPERAND_B:
 * k x n) of w at m x n from its v2 layout desc. Declines (out->reason,
 * out->message, TCMMA_DECLINED, message copied to err): an operand not in
 * shared memory (space), a precision w does not take or a bad shape
 * (no-arm, extents), an element tcgen05 does not read as tcmma stores it
 * (tcmma_tcgen05_pack 0: fp6, fp4 of the f8f6f4 kinds) or an M/N-major operand of a
 * K-major-only row or precision, or a layout whose swizzle atom the
 * descriptor cannot express (layout), rows not a multiple of 16 bytes apart
 * (stride), an origin off the atom (subtile). TCMMA_INVALID for NULL or
 * out-of-range arguments. */
tcmma_status tcmma_tcgen05_operand_plan(tcmma_tcgen05 w, tcmma_operand op, int m, int n,
                                        const tcmma_operand_desc *desc,
                                        tcmma_tcgen05_operand *out, tcmma_error *err);

/* tcmma_tcgen05_operand_plan for an M/N-major operand stored panel-major:
 * its m or n in panels of one swizzle span along it (desc's rows: ld one
 * span), each panel_rows stored k rows, panel p panel_rows * p rows after
 * the first; the descriptor's LBO is that distance (docs/tcgen05.md). 0:
 * one span only (tcmma_tcgen05_operand_plan). Declines as it does, and
 * (layout) panel rows for a K-major operand or off the 8-row swizzle atom,
 * k rows past a panel; (subtile) an origin column off a panel's first. */
tcmma_status tcmma_tcgen05_operand_plan_panels(tcmma_tcgen05 w, tcmma_operand op, int m, int n,
                                               const tcmma_operand_desc *desc, long panel_rows,
                                               tcmma_tcgen05_operand *out, tcmma_error *err);

/* One tile product to render: D[m x n] (+)= A[m x k] B[k x n], D in Tensor
 * Memory, B in shared memory as its v2 layout says, A likewise or in Tensor
 * Memory (a_tmem: K-major, a.prec). Start one with TCMMA_TCGEN05_CALL_INIT. */
typedef struct {
  size_t size;            /* sizeof(tcmma_tcgen05_call) where the caller was built */
  tcmma_tcgen05 arm;
  int m, n, k;            /* an instruction m x n of the arm; k a multiple of its k */
  tcmma_operand_desc a, b;
  bool a_tmem;            /* A from Tensor Memory instead of shared memory */
  const char *name;       /* the function's name (a C identifier, at most 64
                             characters, borrowed); NULL: "tcmma_tcgen05_tile" */
  tcmma_dialect dialect;  /* TCMMA_DIALECT_CUDA or TCMMA_DIALECT_HOST (the simulator's
                             calls, include/tcmma/sim.h) */
  /* an M/N-major A's or B's panels (tcmma_tcgen05_operand_plan_panels):
   * stored rows per panel; 0 (and for a caller whose size stops short): one
   * span */
  long a_panel_rows, b_panel_rows;
} tcmma_tcgen05_call;

#define TCMMA_TCGEN05_CALL_INIT(...) {.size = sizeof(tcmma_tcgen05_call), __VA_ARGS__}

/* Renders call as one device function into out (appended), in
 * call->dialect: NAME(d_tmem, a | a_tmem, b, accumulate[, sfa_tmem,
 * sfb_tmem]), issued by ONE thread (the caller elects it): one tcgen05.mma
 * per k step through the operands' descriptors and the instruction
 * descriptor (tcmma_tcgen05_idesc), D = A B on the first step unless
 * accumulate. It completes asynchronously: the caller commits it to an
 * mbarrier (tcmma_tcgen05_commit, tcmma_render_tcgen05_helpers) and waits on
 * that before reading D. TCMMA_DECLINED (message in err) when an operand
 * plan declines or k is not a multiple of the arm's k; TCMMA_INVALID for a
 * NULL, malformed or too small call or a bad dialect. Block-scaled rows:
 * step s reads its scales vec (the arm's k / block) bytes further along
 * the cells from sfa_tmem's and sfb_tmem's byte (their top two bits), the
 * id the byte % 4, the address 4 ceil(rows / 128) columns further per 4
 * bytes (tcmma_tcgen05_scale_cell). */
tcmma_status tcmma_tcgen05_render(const tcmma_tcgen05_call *call, tcmma_buf *out,
                                  tcmma_error *err);

/* Appends the helpers in dialect dl, once per translation unit (guarded by
 * TCMMA_TCGEN05_HELPERS), each one PTX instruction of tables/collectives.def:
 *   tcmma_tmem_alloc(unsigned *dst, unsigned ncols)   tcgen05.alloc (a warp):
 *                           the address lands in the shared word dst
 *   tcmma_tmem_relinquish()                tcgen05.relinquish_alloc_permit (a warp)
 *   tcmma_tmem_dealloc(unsigned taddr, unsigned ncols)   tcgen05.dealloc (a warp)
 *   tcmma_tcgen05_commit(unsigned long long *bar)   tcgen05.commit: one arrival
 *                           on bar when the thread's issued mma complete
 *   tcmma_tcgen05_fence_before() / _fence_after()   tcgen05.fence::before_/
 *                           after_thread_sync, around a barrier
 *   tcmma_tcgen05_wait_ld() / _wait_st()   tcgen05.wait::ld / ::st (a warp)
 * In the host dialect each calls the simulator (include/tcmma/sim.h).
 * TCMMA_INVALID for a bad dialect or NULL out. */
tcmma_status tcmma_render_tcgen05_helpers(tcmma_dialect dl, tcmma_buf *out, tcmma_error *err);

/* Appends tcmma_tcgen05_ld_<shape>_x<num>(unsigned taddr, unsigned (&r)[R])
 * (store: tcmma_tcgen05_st_<shape>_x<num>(taddr, const unsigned (&r)[R]);
 * the host dialect takes C arrays), R = tcmma_tcgen05_ldst_regs: a warp's
 * tcgen05.ld/st at taddr, guarded so that it is defined once. A load's
 * registers are valid after tcmma_tcgen05_wait_ld. TCMMA_INVALID for a bad
 * dialect, shape or num. */
tcmma_status tcmma_render_tcgen05_ldst(tcmma_dialect dl, tcmma_tcgen05_ldst shape, int num,
                                       bool store, tcmma_buf *out, tcmma_error *err);

/* Appends, once per translation unit (a guard), the helper
 * tcmma_tcgen05_cp_scales(taddr, src, atoms) that ONE thread calls before
 * the block-scaled product reading them: atoms 512-byte shared atoms
 * (tcmma_tcgen05_scale_cell's src, 16-byte aligned) to Tensor Memory
 * columns taddr + 4 j with tcgen05.cp.cta_group::1.32x128b.warpx4.
 * TCMMA_INVALID for a bad dialect or a NULL out. */
tcmma_status tcmma_render_tcgen05_cp(tcmma_dialect dl, tcmma_buf *out, tcmma_error *err);

#pragma GCC visibility pop
#ifdef __cplusplus
}
#endif

#endif
