/* Internal to mma/: the rules planning, rendering and the census share, so
 * that what the plan promises, what the renderer writes and what the census
 * reports come from the same functions. Not installed. */
#ifndef TCMMA_MMA_EMIT_H
#define TCMMA_MMA_EMIT_H

#include <stddef.h>
#include "tables/dialect.h"
#include "tcmma/kernel_attrs.h"
#include "tcmma/render.h"

/* The descriptor of operand op (TCMMA_OPERAND_C is d). */
const tcmma_operand_desc *tcmma__emit_desc(const tcmma_call *call, tcmma_operand op);

/* Whether the plan may load operand o (a or b) through ldmatrix as far as
 * its storage goes: shared memory, 16-byte rows, a 16-byte-aligned column
 * origin, and the eight rows of each 8x8 matrix in distinct bank groups
 * (tcmma_swizzle_conflict_free). The arm's own rule decides the rest
 * (tcmma_arm_ldmatrix_operands). */
bool tcmma__emit_ldmatrix_eligible(const tcmma_operand_desc *o);

/* Whether every register of op's fragment holds elements that lie next to
 * each other along a stored row (so one 32-bit load fills it), for an inline
 * arm and an operand stored transposed or not. From tcmma_fragment_layout. */
bool tcmma__emit_regs_contiguous(tcmma_arm arm, tcmma_operand op, bool transposed);

/* Whether the renderer gathers op (a or b) of an accepted inline plan with one
 * 32-bit load per register (contiguous, not through ldmatrix). */
bool tcmma__emit_vector_loaded(const tcmma_plan *plan, tcmma_operand op);

/* Whether the d boundary (load and store) of an accepted inline plan moves
 * each pair of accumulator elements (2j, 2j+1: two registers, or the halves
 * of one) as one two-element access of d's pair type: the pair lies next to
 * each other along a stored row, and its byte offset is a multiple of the
 * pair's size for every lane, tile and origin. */
bool tcmma__emit_d_vector(const tcmma_plan *plan);

/* The alignment rules of an operand, with their words for messages: the
 * byte multiple its rows must be (ld*eb: 16 for wmma's ldm, a swizzle's
 * span, 4 where a register loads as one 32-bit word) and the one its
 * sub-tile origin must keep from the parent's base (row0*ld*eb + col0*eb:
 * 32 for wmma's pointers, 4 for 32-bit register loads); 1: no rule. */
typedef struct {
  long rows;
  const char *rows_why;
  long origin;
  const char *origin_why;
} tcmma__emit_align;
void tcmma__emit_operand_align(const tcmma_plan *plan, tcmma_operand op, tcmma__emit_align *out);

/* Registers per lane the plan's accumulator and one k step of its A and B
 * fragments hold (tcmma_tile_registers over the plan's tiles). */
long tcmma__emit_plan_registers(const tcmma_plan *plan);

/* The plan's rules for sub-tile origins and budgets (mma/plan_subtile.c):
 * true when operand op (named name in messages) breaks the origin rule of
 * docs/design.md §5, or the plan's tiles break the register budget or the
 * unroll bound (*reason set), with the message in msg. */
bool tcmma__emit_origin_problem(const tcmma_plan *p, tcmma_operand op, const char *name, char *msg,
                                size_t cap);
bool tcmma__emit_budget_problem(const tcmma_plan *p, tcmma_decline *reason, char *msg, size_t cap);

/* Whether a plan stages its converted destination through the kernel's
 * per-warp shared tile, and that tile's element count (f32). The one
 * predicate behind the prologue text and its byte count. */
bool tcmma__emit_needs_stage(const tcmma_plan *plan);
long tcmma__emit_stage_elems(const tcmma_plan *plan);
/* The largest stage tile any of plans needs (elements), at *prec, the
 * accumulator precision of the plan that needs it; 0 when none does. */
long tcmma__emit_stage_need(const tcmma_plan *plans, size_t count, tcmma_prec *prec);

/* The words of an inline arm's fragment registers of operand op in dialect
 * dl: the C type of one register (a, b: "unsigned" 32-bit words, or
 * "double" for 64-bit elements; c: the accumulator's element type, or its
 * pair type where a register packs two elements, e.g. __half2), the
 * inline-asm constraint, whether the asm operand puns it as an unsigned
 * word (*(unsigned *)&x), and its elements per register. */
typedef struct {
  const char *type, *constraint;
  bool pun;
  int per;
} tcmma__emit_reg_words;
void tcmma__emit_reg_words_of(const tcmma_plan *plan, tcmma_operand op, tcmma_dialect dl,
                              tcmma__emit_reg_words *out);

/* Fragment loads per k step of a and b, as the renderer's loops issue them. */
int tcmma__emit_loads_per_k(const tcmma_plan *plan, tcmma_operand op);

/* The ldmatrix instructions per k step that load op (a or b) of an accepted
 * inline plan, one 8x8 matrix per fragment register: .x4 (4 / regs tiles:
 * one tile of 4 registers, two of 2, four of 1), then the remaining
 * matrices in one .x2 and one .x1; all 0 when op does not load through
 * ldmatrix. The renderer's loops and the census read this one rule. */
void tcmma__emit_ldmatrix_counts(const tcmma_plan *plan, tcmma_operand op, int *x4, int *x2,
                                 int *x1);

/* Whether a forced arm is on triple's preference list (either scope) under
 * policy (mma/plan.c): the check tcmma_plan_call and the GEMM plan share. */
bool tcmma__emit_arm_is_candidate(tcmma_triple t, const tcmma_numerics *policy, tcmma_arm arm);

/* ---- checking plans (mma/plan_check.c) ---- */

/* One scalar field of a plan struct, for comparing a caller's plan with a
 * fresh one: its name in messages, where it lies, its bytes and how its
 * value prints (an arm prints its marker too). */
typedef enum {
  TCMMA__FIELD_INT, TCMMA__FIELD_UINT, TCMMA__FIELD_BOOL, TCMMA__FIELD_ARM
} tcmma__emit_kind;
typedef struct {
  const char *name;
  size_t offset, size;
  tcmma__emit_kind kind;
} tcmma__emit_field;
#define TCMMA__FIELD(type, member, name, kind) \
  {(name), offsetof(type, member), sizeof(((type *)0)->member), TCMMA__FIELD_##kind}

/* How every message about a changed plan starts. */
#define TCMMA__CHANGED "the plan was changed after planning"

/* TCMMA_INVALID "<changed>: <name> is X, planning gives Y" for the first of
 * fields whose bytes differ between got and want (two structs of one
 * type); bools_ok: for the first bool field of got whose byte is neither 0
 * nor 1. Both read bytes only, never a typed bool or enum. */
tcmma_status tcmma__emit_fields_differ(const void *got, const void *want,
                                       const tcmma__emit_field *fields, size_t count,
                                       tcmma_error *err);
tcmma_status tcmma__emit_bools_ok(const void *got, const tcmma__emit_field *fields, size_t count,
                                  tcmma_error *err);

/* The check every reader of a tile plan makes first (renderers, census,
 * prologue, kernel layout): not NULL, accepted (else "the plan was declined
 * (reason): <use>"), and exactly what tcmma_plan_call gives for the plan's
 * own call: its bools 0 or 1, its call whole (size), planning that call
 * accepts it, and every field planning derives equal (arm, tiles, ldmatrix
 * operands, the filled ld and scale_ld, the stored shapes). TCMMA_INVALID
 * naming the field, its value and planning's. Pointers in the call are the
 * caller's (borrowed): what they point at is checked again, not whether
 * they still point at live text. */
tcmma_status tcmma__emit_plan_check(const tcmma_plan *plan, const char *use, tcmma_error *err);

/* The kernel prologue's shared bytes for plans (the stage tile), unchecked:
 * tcmma_kernel_shared_bytes and the census of a checked plan. */
size_t tcmma__emit_stage_bytes(const tcmma_plan *plans, size_t count);

/* ---- text helpers ---- */

/* Opcodes of tables/collectives.def. */
typedef enum {
#define TCMMA_COLLECTIVE(ID, opcode) TCMMA__COLL_##ID,
#include "tables/collectives.def"
#undef TCMMA_COLLECTIVE
  TCMMA__COLL_COUNT
} tcmma__emit_collective;
const char *tcmma__emit_collective_opcode(tcmma__emit_collective c);

/* One helper function of one PTX instruction: `DEVICE_FN void name(params)
 * {` then, in CUDA, asm_fmt (the asm statement, %s the opcode) and in the
 * host dialect host_fmt (the simulator's call, %s the opcode), then `}`.
 * The TMA/mbarrier and tcgen05 helpers are made of it. */
void tcmma__emit_asm_helper(tcmma_dialect dl, tcmma_buf *out, const char *name, const char *params,
                            const char *opcode, const char *asm_fmt, const char *host_fmt);

/* The comments rendered blocks open with: tile-MMA blocks and staged tiles. */
#define TCMMA__MMA_TITLE "/* tile-mma "
#define TCMMA__STAGE_TITLE "/* tile-stage "

/* Longest expanded expression (a caller's expression in the host dialect)
 * and longest address expression the renderers build in fixed buffers. */
#define TCMMA__EXPR_TEXT 512
#define TCMMA__ADDR_TEXT 4096

/* Checks names (non-NULL, a prefix that is NULL or a C identifier of at
 * most TCMMA_PREFIX_MAX characters, a non-negative counter below INT_MAX),
 * then writes the next block's local prefix ("__tcmma_3_") into buf and
 * advances the counter. */
tcmma_status tcmma__emit_next_prefix(tcmma_names *names, char *buf, size_t cap, tcmma_error *err);

/* Whether s is a C identifier of at most max characters. */
bool tcmma__emit_is_ident(const char *s, size_t max);

/* A kernel's signature through its opening parenthesis, in dialect:
 * `extern "C" __global__ void`, attrs' attributes (tables/kernel_attrs.def;
 * NULL or none: one blank, else a line break before the name), `name(`.
 * attrs is assumed checked (tcmma_kernel_attrs_check). Every renderer's
 * kernel opens through this. */
void tcmma__emit_kernel_signature(tcmma_dialect dl, const tcmma_kernel_attrs *attrs,
                                  const char *name, tcmma_buf *out);

/* A by-value kernel parameter's qualifier ("const __grid_constant__"). */
const char *tcmma__emit_grid_constant(tcmma_dialect dl);

/* The unsigned type of a 1-, 2-, 4- or 8-byte word (other sizes: unsigned),
 * through which the text copies storage bits. */
const char *tcmma__emit_bits_type(int bytes);

/* The comment every rendered block opens with. */
void tcmma__emit_title(tcmma_buf *out, const tcmma_plan *plan, const char *what);

/* Writes indentation of depth levels (two spaces each). */
void tcmma__emit_indent(tcmma_buf *out, int depth);

/* One indented line of printf text (at most TCMMA__ADDR_TEXT + 512
 * characters). */
void tcmma__emit_line(tcmma_buf *out, int depth, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));

/* A piece renderer's context (below). */
typedef struct tcmma__emit_body tcmma__emit_body;

/* `#pragma unroll` + `for (int <prefix><var> = 0; ... < count; ...) {` at
 * depth in x's dialect, prefix x's, so register arrays indexed by the
 * variable stay constant-indexed; and the matching closing brace. */
void tcmma__emit_open_loop(const tcmma__emit_body *x, const char *var, int count, int depth,
                           tcmma_buf *out);
void tcmma__emit_close_brace(int depth, tcmma_buf *out);

/* Appends text s to dst `depth` levels deeper; preprocessor lines other
 * than pragmas (which belong to the loop below them) stay in column 0. */
void tcmma__emit_append_indented(tcmma_buf *dst, const char *s, int depth);

/* The #include lines of a CUDA kernel: the headers of precs (tables/prec.def,
 * in table order, each once), then arm's. */
void tcmma__emit_cuda_includes(const tcmma_prec *precs, int n, tcmma_arm arm, tcmma_buf *out);

/* What a kernel over operands of precs (d, a, b) on arm includes in
 * dialect: the simulator's header (HOST), the vendor headers (wmma arms,
 * or when vendor_headers is set), else only the vendor words the inline
 * blocks use (tables/cuda_words.def; mma/render_words.c). */
void tcmma__emit_includes(const tcmma_prec precs[3], tcmma_arm arm, tcmma_dialect dialect,
                          bool vendor_headers, tcmma_buf *out);

/* The CUDA declaration of word id (a row of tables/cuda_words.def) under its
 * guards; nothing for a word without a row. */
void tcmma__emit_cuda_word(tcmma__table_spelling id, tcmma_buf *out);

/* Copies a caller's expression into buf with threadIdx.x and blockIdx.x
 * spelled in dialect. */
void tcmma__emit_expr(tcmma_dialect dialect, const char *text, char *buf, size_t cap);

/* Copies expr into buf in dialect; when expr is NULL or empty, the one-block
 * default `threadIdx.x <op> TCMMA_WARP_SIZE` (op '%': the lane, '/': the
 * warp). */
void tcmma__emit_warp_expr(tcmma_dialect dialect, const char *expr, char op, char *buf, size_t cap);

/* Copies the lane expression in dialect into buf. */
void tcmma__emit_lane_expr(const tcmma_plan *plan, tcmma_dialect dialect, char *buf, size_t cap);

/* Checks a render context (not NULL, its size, out not NULL and not failed,
 * the dialect); tcmma__emit_check adds an accepted plan and non-empty
 * expressions of at most TCMMA_EXPR_MAX characters. */
tcmma_status tcmma__emit_ctx_check(const tcmma_render_ctx *ctx, tcmma_error *err);
tcmma_status tcmma__emit_check(const tcmma_render_ctx *ctx, const char *const *exprs, int count,
                               tcmma_error *err);

/* What a piece renderer needs: the plan, its arm, the dialect, the local
 * prefix of the block it writes into and the indentation depth. Pieces
 * write statements (no braces of their own) whose locals carry the prefix
 * and a role (ap, bp, dl, ds, ...), so that the pieces of one composition
 * share one block; the lane, g and q locals are the block's
 * (tcmma__emit_lane_locals). */
struct tcmma__emit_body {
  const tcmma_plan *p;
  const tcmma_arm_info *info;
  tcmma_dialect dl;
  const char *prefix;
  int depth;
};

/* The loops over the mt x nt accumulator tiles (prefix + "mi", "ni") at
 * x's depth, under `#pragma unroll`; the body goes at depth + 2. */
void tcmma__emit_open_tiles(const tcmma__emit_body *x, tcmma_buf *out);
void tcmma__emit_close_tiles(const tcmma__emit_body *x, tcmma_buf *out);

/* The tile coordinates of operand op along its stored rows (*rv, times the
 * tile extent *rt) and columns (*cv, *ct): the role's axes (prefix + "mi",
 * prefix + "ni", or the k step expression kstep for k), swapped for
 * transposed storage. rv and cv hold TCMMA__EXPR_TEXT characters. */
void tcmma__emit_tile_axes(const tcmma__emit_body *x, tcmma_operand op, const char *kstep, char *rv,
                           int *rt, char *cv, int *ct);

/* The pieces of one arm form (render_ptx.c, render_wmma.c). decl declares
 * op's fragment array `name` (a, b: [buffers] when buffers > 0, then the
 * tiles; c: the accumulator); load fills frag (an array of op's tiles) from
 * the parent at base for k step kstep; mma accumulates a x b into acc;
 * init starts acc (d's value for TCMMA_INIT_LOAD, else zero); store writes
 * acc to d (alpha*acc + beta*d for TCMMA_INIT_SCALE). */
typedef struct {
  void (*decl)(const tcmma__emit_body *x, tcmma_operand op, const char *name, int buffers,
               tcmma_buf *out);
  tcmma_status (*load)(const tcmma__emit_body *x, tcmma_operand op, const char *frag,
                       const char *base, const char *kstep, tcmma_buf *out, tcmma_error *err);
  tcmma_status (*mma)(const tcmma__emit_body *x, const char *acc, const char *a, const char *b,
                      tcmma_buf *out, tcmma_error *err);
  tcmma_status (*init)(const tcmma__emit_body *x, const char *acc, const char *d, tcmma_buf *out,
                       tcmma_error *err);
  tcmma_status (*store)(const tcmma__emit_body *x, const char *acc, const char *d, tcmma_buf *out,
                        tcmma_error *err);
} tcmma__emit_pieces;

extern const tcmma__emit_pieces tcmma__emit_ptx_pieces, tcmma__emit_wmma_pieces;

/* Inline-PTX pieces of mma/render_ptx_d.c: the accumulator's start and
 * store (tcmma__emit_pieces init and store). */
tcmma_status tcmma__emit_ptx_acc_init(const tcmma__emit_body *x, const char *acc, const char *d,
                                      tcmma_buf *out, tcmma_error *err);
tcmma_status tcmma__emit_ptx_acc_store(const tcmma__emit_body *x, const char *acc, const char *d,
                                       tcmma_buf *out, tcmma_error *err);

/* A stored coordinate of a fragment element as c0 + cg*g + cq*q of the
 * lane's g and q (mma/render_ptx_offset.c). stored_affine: the row and
 * column of element elem of register reg of op (TCMMA_INVALID when the
 * arm's layout is not affine); coord: "16 * P_mi + P_g + 8", a tile
 * coordinate var times tile, plus extra, plus a's lane part. */
typedef struct {
  int c0, cg, cq;
} tcmma__emit_affine;
tcmma_status tcmma__emit_ptx_stored_affine(tcmma_arm arm, tcmma_operand op, bool transposed,
                                           int reg, int elem, tcmma__emit_affine *sr,
                                           tcmma__emit_affine *sc, tcmma_error *err);
void tcmma__emit_ptx_coord(char *buf, size_t cap, const char *prefix, const char *var, int tile,
                           tcmma__emit_affine a, const char *extra);

/* Byte offset expression, from the parent's base, of element elem of
 * register reg of op's fragment at k step kstep (NULL for d), through
 * tcmma_fragment_layout as affine expressions of the lane's g and q. */
tcmma_status tcmma__emit_ptx_elem_offset(const tcmma__emit_body *x, tcmma_operand op,
                                         const char *kstep, int reg, int elem, char *buf,
                                         size_t cap, tcmma_error *err);

/* A caller's array expression ready to subscript: itself when it is an
 * identifier followed by subscripts ("af", "af[(ks + 1) & 1]"), else
 * parenthesized. */
void tcmma__emit_postfix(const char *e, char *buf, size_t cap);

/* The XOR mask expression of stored row r (counted from a multiple of
 * TCMMA_SWIZZLE_ROWS) in swizzle sw, e.g. "(((r) & 7) << 4)"; "" for none. */
void tcmma__emit_swizzle_mask_expr(tcmma_swizzle sw, const char *r, char *buf, size_t cap);

/* The byte offset expression of stored element (sr, sc) of a tile with
 * leading dimension ld elements of eb bytes in swizzle sw (no origin). */
void tcmma__emit_offset_expr(char *buf, size_t cap, tcmma_swizzle sw, long ld, int eb,
                             const char *sr, const char *sc);

/* The byte offset, from the parent's base, of stored element (sr, sc) of
 * operand o's sub-tile (ld filled): its origin (spelled in dl) plus (sr, sc),
 * through its swizzle with the mask of sr (the plan keeps row0 a multiple
 * of the swizzle's rows, so the origin's rows leave the mask alone). */
void tcmma__emit_operand_offset(char *buf, size_t cap, tcmma_dialect dl,
                                const tcmma_operand_desc *o, const char *sr, const char *sc);

/* An origin coordinate as C text in dialect dl: "(expr) + value", "value"
 * or "" for zero. */
void tcmma__emit_coord_expr(tcmma_dialect dl, const tcmma_coord *c, char *buf, size_t cap);

/* Declares the lane, g and q locals (x's prefix, at x's depth) the text
 * body uses (by name), then appends body: so no block declares a local it
 * never reads. */
void tcmma__emit_lane_locals(const tcmma__emit_body *x, const char *body, tcmma_buf *out);

/* The scale registers (frag[tile][regs]) of a block-scaled plan's operand
 * op at k step kstep, alone: what the load piece adds after the fragments
 * (mma/render_ptx.c); TCMMA_INVALID for a plan without scales. aligned:
 * the caller vouches that the scale parent's base is aligned to a tile's
 * scales (2 or 4 bytes), so that a tile of several k blocks loads them as
 * one word (the GEMM's stages; a piece's caller promises nothing of it).
 * tcmma__emit_render_scales: the same as a block of its own in ctx->out
 * (mma/render.c), for a composition that loads the fragments another way
 * (the GEMM's packed stages). */
tcmma_status tcmma__emit_ptx_load_scales(const tcmma__emit_body *x, tcmma_operand op,
                                         const char *frag, const char *kstep, bool aligned,
                                         tcmma_buf *out, tcmma_error *err);
tcmma_status tcmma__emit_render_scales(const tcmma_render_ctx *ctx, tcmma_operand op,
                                       const char *frag, const char *kstep, bool aligned,
                                       tcmma_error *err);

/* ---- GEMM (mma/gemm_plan.c, mma/render_gemm*.c) ---- */

#include "tcmma/gemm.h"

/* The origin expressions of a GEMM's warp tile (this warp's row and column
 * of the warp grid, times its tile), owned by the caller of the warp call. */
typedef struct {
  char row[96], col[96];
} tcmma__emit_gemm_exprs;

/* The tile-MMA call of one warp of g (its arm, stages and warp tile set):
 * a, b read from the shared stages at the warp's origin, d the epilogue's
 * f32 shared tile, init zero, fragment scope. Its origin expressions point
 * into *x, which must outlive the call. */
tcmma_status tcmma__emit_gemm_warp_call(const tcmma_gemm_plan *g, tcmma__emit_gemm_exprs *x,
                                        tcmma_call *out);

/* The check tcmma_render_gemm makes of plan first (mma/gemm_check.c), as
 * tcmma__emit_plan_check of a tile plan: not NULL, accepted, and exactly
 * what tcmma_gemm_plan_opts gives for its own call and opts (this
 * library's whole struct; bools, size, every filled and derived field),
 * the info of that planning into *info. TCMMA_INVALID naming the field. */
tcmma_status tcmma__emit_gemm_check(const tcmma_gemm_plan *plan, const tcmma_gemm_opts *opts,
                                    tcmma_gemm_info *info, tcmma_error *err);

/* A GEMM plan with the options it was planned with and what they gave
 * (tcmma_gemm_plan_opts): what the kernel's pieces render from. */
typedef struct {
  const tcmma_gemm_plan *g;
  tcmma_gemm_opts o; /* this library's whole struct */
  tcmma_gemm_info i; /* this library's whole struct */
} tcmma__emit_gemm_form;

/* The form of plan rendered with opts (NULL: the defaults; a caller's
 * struct of any size): opts taken, then tcmma__emit_gemm_check, whose
 * "changed" message also names other opts as the possible cause. */
tcmma_status tcmma__emit_gemm_form_take(const tcmma_gemm_plan *plan, const tcmma_gemm_opts *opts,
                                        tcmma__emit_gemm_form *f, tcmma_error *err);

/* The text of one of g's extents or ld's: its constant, or in a
 * shape-argument kernel the argument's name; into buf. */
typedef enum {
  TCMMA__GEMM_DIM_M, TCMMA__GEMM_DIM_N, TCMMA__GEMM_DIM_K, TCMMA__GEMM_DIM_LDA,
  TCMMA__GEMM_DIM_LDB, TCMMA__GEMM_DIM_LDC, TCMMA__GEMM_DIM_LDD
} tcmma__gemm_dim;
const char *tcmma__emit_gemm_dim(const tcmma__emit_gemm_form *f, tcmma__gemm_dim d, char *buf,
                                 size_t cap);

/* Plans call with opts into *out, and the whole info into *info (both this
 * library's structs): tcmma_gemm_plan_opts less the caller's sizes. */
tcmma_status tcmma__emit_gemm_plan(const tcmma_gemm_call *call, const tcmma_gemm_opts *opts,
                                   tcmma_gemm_plan *out, tcmma_gemm_info *info, tcmma_error *err);

/* The options of a caller that asked for no kernel kind (mma/gemm_plan_base.c):
 * NULL opts (tcmma_gemm_plan_call, tcmma_render_gemm) or opts from before
 * the kernel field (a smaller size), whose kernel takes no tensor maps:
 * the defaults with kernel MMA_SYNC. The start of every opts taken. */
tcmma_gemm_opts tcmma__emit_gemm_opts_unasked(void);

/* The GEMM kernel's own locals: its prefix (never a block's "<prefix><n>_")
 * and the block tile's first row and column. */
#define TCMMA__GEMM_P "__tcmma_g_"
#define TCMMA__GEMM_M0 TCMMA__GEMM_P "m0"
#define TCMMA__GEMM_N0 TCMMA__GEMM_P "n0"

/* The kernel's block-wide pieces (mma/render_gemm_io.c), at depth:
 * load_stage copies k tile `ktile` (an int expression) of A and B into
 * stage `stage` with copies of each operand's class (cp.async, or plain
 * loads; interior tiles unpredicated, tiles at a ragged edge zero-filled
 * past it), then advances the source pointers; commit and wait(n) are cp.async.commit_group and
 * cp.async.wait_group n; epilogue reads the f32 block tile from shared
 * memory and stores d = alpha * acc + beta * c. */
void tcmma__emit_gemm_load_stage(const tcmma__emit_gemm_form *f, tcmma_dialect dl,
                                 const char *stage, const char *ktile, int depth, tcmma_buf *out);
/* The loader's per-thread state, declared once before the first stage:
 * each operand's 64-bit source pointer (advanced one k tile per stage
 * loaded) and the thread's first copy in the stage tile. */
void tcmma__emit_gemm_loader_decls(const tcmma__emit_gemm_form *f, tcmma_dialect dl, int depth,
                                   tcmma_buf *out);
/* A block-scaled kernel's scales of k tile ktile (an int expression) into
 * stage `stage`, after its b tile (mma/render_gemm_scales.c), m and n the
 * extents' text (tcmma__emit_gemm_dim); nothing for an unscaled plan. */
void tcmma__emit_gemm_load_scales(const tcmma__emit_gemm_form *f, tcmma_dialect dl,
                                  const char *stage, const char *ktile, const char *m,
                                  const char *n, int depth, tcmma_buf *out);
/* The scale tensors' row bytes as text: the plan's scale_ld, or its
 * formula over the k argument of a shape-argument kernel. */
void tcmma__emit_gemm_scale_ld_text(const tcmma__emit_gemm_form *f, char *buf, size_t cap);
/* The kernel's batch and K slices (mma/render_gemm_batch.c): whether it is
 * batched (a batch or pointer arrays); its arguments after beta, in order
 * (the count; types and names); at depth, each block's matrix of the batch
 * and K slice (`__tcmma_g_bz`, `__tcmma_g_slice`) with d, a, b, c moved to
 * that matrix; and split-K's reduction into the shared f32 tile (nothing
 * for one slice). */
typedef struct {
  const char *type, *name;
} tcmma__emit_gemm_param;
/* The most of them: sfa and sfb, the 7 shape arguments, 4 strides, the
 * workspace. */
enum { TCMMA__GEMM_PARAMS_MAX = 2 + 7 + 4 + 1 };
bool tcmma__emit_gemm_batched(const tcmma__emit_gemm_form *f);
int tcmma__emit_gemm_params(const tcmma__emit_gemm_form *f,
                            tcmma__emit_gemm_param out[TCMMA__GEMM_PARAMS_MAX]);
void tcmma__emit_gemm_batch_base(const tcmma__emit_gemm_form *f, tcmma_dialect dl, int depth,
                                 tcmma_buf *out);
void tcmma__emit_gemm_split_reduce(const tcmma__emit_gemm_form *f, tcmma_dialect dl, int depth,
                                   tcmma_buf *out);

/* The text every GEMM kernel begins and ends with (mma/render_gemm_head.c),
 * whichever kind: prelude, the headers of the operands' types and the
 * epilogue's hooks; signature, `extern "C" __global__ void` with attrs,
 * NAME(d, a, b, c, alpha, beta, the options' arguments, the epilogue's,
 * and with maps the two tensor maps TCMMA__GEMM_MAP_A/B as `const
 * __grid_constant__ CUtensorMap`) through the opening brace; entry, the
 * host dialect's NAME_entry(void *args). */
#define TCMMA__GEMM_MAP_A "tmap_a"
#define TCMMA__GEMM_MAP_B "tmap_b"
void tcmma__emit_gemm_prelude(const tcmma__emit_gemm_form *f, tcmma_dialect dl, tcmma_buf *out);
/* The title comment's product of the TMA kernels: "D[MxN] = alpha * A[MxK]
 * B[KxN] + beta * C", or "..., any shape" for shape arguments. */
void tcmma__emit_gemm_shape_text(const tcmma__emit_gemm_form *f, char *buf, size_t cap);
/* The TMA kernels' head (wgmma, tcgen05): the signature with the tensor maps
 * and the launch bound of the plan's threads (one block an SM), the dynamic
 * shared window P "smem", P "tid", the block's origin and its matrix of a
 * batch. */
/* The TMA kernels' k loop head (the producer's and the consumers'): the
 * stage P "s" and its phase P "ph" from 0, the trip count kt_count (a C
 * expression) as the constant P "kts" before the kept (not unrolled) loop
 * over P "kt", and the stage's bytes P "a_st" (qual: "" or "const "). */
void tcmma__emit_gemm_tma_loop_head(tcmma_dialect dl, const char *kt_count, const char *qual,
                                    size_t stage_bytes, int depth, tcmma_buf *out);
void tcmma__emit_gemm_tma_head(const tcmma__emit_gemm_form *f, tcmma_dialect dl, const char *name,
                               tcmma_buf *out);
void tcmma__emit_gemm_signature(const tcmma__emit_gemm_form *f, tcmma_dialect dl, const char *name,
                                const tcmma_kernel_attrs *attrs, bool maps, tcmma_buf *out);
void tcmma__emit_gemm_entry(const tcmma__emit_gemm_form *f, tcmma_dialect dl, const char *name,
                            bool maps, tcmma_buf *out);
/* The block tile's first row and column, TCMMA__GEMM_M0 and _N0, in the
 * grouped order (TCMMA_GEMM_GROUP_ROWS block rows, column by column). */
void tcmma__emit_gemm_block_origin(const tcmma__emit_gemm_form *f, tcmma_dialect dl,
                                   tcmma_buf *out);

/* One pair of adjacent accumulator columns through the epilogue list to d
 * at depth (mma/render_gemm_pairs.c), inside loops that may `continue`:
 * row and col the pair's global row and first column (expressions), acc
 * the f32 value of the pair's element P "j" (an expression of it). */
typedef struct {
  const tcmma__emit_gemm_form *f;
  tcmma_dialect dl;
  const char *row, *col, *acc;
} tcmma__emit_gemm_pair;
void tcmma__emit_gemm_pair_store(const tcmma__emit_gemm_pair *p, int depth, tcmma_buf *out);

/* The Blackwell GEMM's whole text from a TCGEN05 form
 * (mma/render_gemm_tcgen05.c), in dl. */
tcmma_status tcmma__emit_render_gemm_tcgen05(const tcmma__emit_gemm_form *f, tcmma_dialect dl,
                                             tcmma_buf *out, tcmma_error *err);

/* The Hopper GEMM's whole text from a WGMMA form (mma/render_gemm_wgmma.c),
 * appended to out in dl. */
tcmma_status tcmma__emit_render_gemm_wgmma(const tcmma__emit_gemm_form *f, tcmma_dialect dl,
                                           tcmma_buf *out, tcmma_error *err);

/* Whether any of the loader's copies is a cp.async (commit and wait
 * groups are emitted only then: below cc 80 they do not exist). */
bool tcmma__emit_gemm_async(const tcmma__emit_gemm_form *f);
void tcmma__emit_gemm_commit(tcmma_dialect dl, int depth, tcmma_buf *out);
void tcmma__emit_gemm_wait(tcmma_dialect dl, int n, int depth, tcmma_buf *out);
void tcmma__emit_gemm_epilogue(const tcmma__emit_gemm_form *f, tcmma_dialect dl, int depth,
                               tcmma_buf *out);

/* Whether a caller's C expression is usable text: 1 to TCMMA_EXPR_MAX
 * characters, not all blank (a blank one would render "(int)(   )"). NULL
 * is not an expression: callers that take NULL as "the default" test it
 * first. */
bool tcmma__emit_expr_ok(const char *expr);

/* Whether expr is a C integer literal (optionally signed, blank around it,
 * as strtol reads it with base 0): 1 with *value set, -1 when it is one
 * outside long's range, 0 when it is any other expression. */
int tcmma__emit_literal(const char *expr, long *value);

/* Appends text to out with each identifier from[i] (a whole token, outside
 * comments, string and character literals and member names) written as
 * to[i]: a kernel's composed text (whose parameters are d, a, b, c, alpha,
 * beta) made to read a caller's locals instead. */
void tcmma__emit_rename(const char *text, const char *const *from, const char *const *to, int n,
                        tcmma_buf *out);

#endif
