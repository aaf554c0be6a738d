/* Internal to mma/: the rules planning, rendering and the census share, so
 * that what the plan promises, what the renderer writes and what the census
 * reports come from the same functions. Not installed. */
#ifndef TCMMA_MMA_EMIT_H
#define TCMMA_MMA_EMIT_H

#include "tcmma/render.h"
#include "dialect.h"

/* The descriptor of operand op (TCMMA_OPERAND_C is d). */
const tcmma_operand_desc *tcmma__desc(const tcmma_call *call, tcmma_operand op);

/* Shared memory in the swizzled_b128 layout: the only operands ldmatrix can
 * reach with conflict-free row addresses. */
bool tcmma__ldmatrix_eligible(const tcmma_operand_desc *o);

/* Whether every register of op's fragment holds elements that lie next to
 * each other along a stored row (so one 32-bit load fills it), for an inline
 * arm and an operand stored transposed or not. From tcmma_fragment_layout. */
bool tcmma__regs_contiguous(tcmma_arm arm, tcmma_operand op, bool transposed);

/* Whether the renderer gathers op (a or b) of an accepted inline plan with one
 * 32-bit load per register (contiguous, not through ldmatrix). */
bool tcmma__vector_loaded(const tcmma_plan *plan, tcmma_operand op);

/* Whether the d boundary (load and store) of an accepted inline plan moves
 * each pair of d's registers (2j, 2j+1) as one two-element access of d's pair
 * type: the pair lies next to each other along a stored row, and its byte
 * offset is a multiple of the pair's size for every lane and tile. */
bool tcmma__d_vector(const tcmma_plan *plan);

/* The byte multiple ld*eb must be for operand op of the plan's arm, and the
 * rule's words (for messages); 1 when there is no rule. */
long tcmma__stride_multiple(const tcmma_plan *plan, tcmma_operand op, const char **why);

/* Whether a plan stages its converted destination through the kernel's
 * per-warp shared tile, and that tile's element count (f32). The one
 * predicate behind the prologue text and its byte count. */
bool tcmma__needs_stage(const tcmma_plan *plan);
long tcmma__stage_elems(const tcmma_plan *plan);
/* The largest stage tile any of plans needs (elements), at *prec, the
 * accumulator precision of the plan that needs it; 0 when none does. */
long tcmma__stage_need(const tcmma_plan *plans, size_t count, tcmma_prec *prec);

/* Fragment loads per k step of a and b, as the renderer's loops issue them. */
int tcmma__loads_per_k(const tcmma_plan *plan, tcmma_operand op);

/* ---- text helpers ---- */

/* Opcodes of tables/collectives.def. */
typedef enum {
#define TCMMA_COLLECTIVE(ID, opcode) TCMMA__COLL_##ID,
#include "tables/collectives.def"
#undef TCMMA_COLLECTIVE
  TCMMA__COLL_COUNT
} tcmma__collective;
const char *tcmma__collective_opcode(tcmma__collective c);

/* The comments rendered blocks open with: tile-MMA blocks and staged tiles. */
#define TCMMA__MMA_TITLE "/* tile-mma "
#define TCMMA__STAGE_TITLE "/* tile-stage "

/* A fresh block number for out: the count of title comments already in it,
 * so blocks rendered into one buffer never share local names. */
int tcmma__block_id(const tcmma_buf *out, const char *title);

/* The unsigned type of a 1-, 2- or 4-byte word (larger: unsigned), through
 * which the text copies storage bits. */
const char *tcmma__bits_type(int bytes);

/* The comment every rendered block opens with. */
void tcmma__title(tcmma_buf *out, const tcmma_plan *plan, const char *what);

/* Writes indentation of depth levels (two spaces each). */
void tcmma__indent(tcmma_buf *out, int depth);

/* `#pragma unroll` + `for (int <prefix><var> = 0; ... < count; ...) {` at
 * depth, so register arrays indexed by the variable stay constant-indexed;
 * and the matching closing brace. */
void tcmma__open_loop(tcmma_dialect dialect, const char *prefix, const char *var, int count,
                      int depth, tcmma_buf *out);
void tcmma__close_brace(int depth, tcmma_buf *out);

/* Copies a caller's expression into buf with threadIdx.x spelled in dialect. */
void tcmma__expr(tcmma_dialect dialect, const char *text, char *buf, size_t cap);

/* Copies expr into buf in dialect; when expr is NULL or empty, the one-block
 * default `threadIdx.x <op> TCMMA_WARP_SIZE` (op '%': the lane, '/': the
 * warp). */
void tcmma__warp_expr(tcmma_dialect dialect, const char *expr, char op, char *buf, size_t cap);

/* Copies the lane expression in dialect into buf. */
void tcmma__lane_expr(const tcmma_plan *plan, tcmma_dialect dialect, char *buf, size_t cap);

/* Checks the common render preconditions (accepted plan, dialect, names). */
tcmma_status tcmma__check(const tcmma_plan *plan, tcmma_dialect dialect,
                          const char *const *names, int count, tcmma_buf *out,
                          tcmma_error *err);

/* What the body renderers' helpers share: the plan, its arm, the dialect
 * and the block's local prefix. */
typedef struct {
  const tcmma_plan *p;
  const tcmma_arm_info *info;
  tcmma_dialect dl;
  const char *prefix;
} tcmma__body;

/* The tile loop variables ("mi", "ni", "ki") along op's stored rows (*rv)
 * and columns (*cv), and the arm's tile extents they step by (*rt, *ct):
 * the role's axes, swapped for transposed storage. */
void tcmma__tile_axes(const tcmma__body *x, tcmma_operand op, const char **rv, int *rt,
                      const char **cv, int *ct);

/* Body renderers (render_ptx.c, render_wmma.c). acc is the accumulator
 * array's name; prefix the block's local prefix ("__tcmma_3_"). _boundary
 * loads d into acc (store false: a block's open) or stores acc to d (store
 * true: its close); _update accumulates a*b into acc. */
tcmma_status tcmma__ptx_boundary(const tcmma_plan *p, tcmma_dialect dl, const char *acc,
                                 const char *d, bool store, int depth, const char *prefix,
                                 tcmma_buf *out, tcmma_error *err);
tcmma_status tcmma__ptx_update(const tcmma_plan *p, tcmma_dialect dl, const char *acc,
                               const char *a, const char *b, int depth, const char *prefix,
                               tcmma_buf *out, tcmma_error *err);
tcmma_status tcmma__wmma_boundary(const tcmma_plan *p, tcmma_dialect dl, const char *acc,
                                  const char *d, bool store, int depth, const char *prefix,
                                  tcmma_buf *out, tcmma_error *err);
tcmma_status tcmma__wmma_update(const tcmma_plan *p, tcmma_dialect dl, const char *acc,
                                const char *a, const char *b, int depth, const char *prefix,
                                tcmma_buf *out, tcmma_error *err);
/* The accumulator array declaration (`float acc[mt][nt][4];` or fragments). */
void tcmma__acc_decl(const tcmma_plan *p, tcmma_dialect dl, const char *acc, int depth,
                     tcmma_buf *out);

/* Whether ld elements of elem_bytes make whole swizzled_b128 lines. */
bool tcmma__swizzle_ld_ok(long ld, int elem_bytes);

/* The byte offset expression of stored element (sr, sc) of a tile with
 * leading dimension ld elements of eb bytes, plain or through the
 * swizzled_b128 map; _operand_offset: of operand o (its ld already filled). */
void tcmma__offset_expr(char *buf, size_t cap, tcmma_layout layout, long ld, int eb,
                        const char *sr, const char *sc);
void tcmma__operand_offset(char *buf, size_t cap, const tcmma_operand_desc *o, const char *sr,
                           const char *sc);

/* Declares the lane, g and q locals the text body uses (by name), then
 * appends body: so no block declares a local it never reads. */
void tcmma__lane_locals(const tcmma_plan *p, tcmma_dialect dl, const char *prefix,
                        const char *body, int depth, tcmma_buf *out);

#endif
