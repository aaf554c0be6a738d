/* Rendering an accepted plan as CUDA C text (or the host-simulator dialect,
 * include/tcmma/sim.h), per statement or as a persistent fragment scope. */
#ifndef TCMMA_RENDER_H
#define TCMMA_RENDER_H

#include "tcmma/buf.h"
#include "tcmma/plan.h"

#ifdef __cplusplus
extern "C" {
#endif
#pragma GCC visibility push(default) /* public: the library builds with -fvisibility=hidden */

typedef enum { TCMMA_DIALECT_CUDA = 0, TCMMA_DIALECT_HOST = 1 } tcmma_dialect;

/* The alignment, in bytes, every d, a and b pointer expression given to the
 * renderers must have (wmma arms: TCMMA_WMMA_ALIGN); the vector accesses
 * rely on it. */
#define TCMMA_POINTER_ALIGN 16

/* wmma loads and stores need a 32-byte-aligned pointer, and a row pitch
 * (ldm) that is a multiple of 16 bytes (PTX ISA, wmma.load/wmma.store). */
#define TCMMA_WMMA_ALIGN 32
#define TCMMA_WMMA_LDM_BYTES 16

/* The naming context of a rendering: block n's locals are named
 * <prefix><n>_... (prefix NULL: "__tcmma_"), and every block a renderer
 * writes takes the next n. The caller owns it: blocks rendered with one
 * context (into one buffer or several, spliced together in any order) never
 * share a local name; blocks of two contexts need different prefixes. */
typedef struct {
  const char *prefix; /* a C identifier of at most TCMMA_PREFIX_MAX characters, or NULL */
  int next;           /* the next block's number (start at 0) */
} tcmma_names;

/* The longest prefix a naming context may carry. */
#define TCMMA_PREFIX_MAX 32

/* What every renderer below renders into: the plan, the dialect, the naming
 * context and the output buffer, made once by tcmma_render_ctx_make (or
 * TCMMA_RENDER_CTX_INIT) and passed to each call. Borrowed: the plan, names
 * and buffer must outlive the calls. Grows only at the end (size first). */
typedef struct {
  size_t size;            /* sizeof(tcmma_render_ctx), as the make function sets it */
  const tcmma_plan *plan; /* an accepted plan (tcmma_render_stage, tcmma_render_gemm and
                             tcmma_kernel_prologue: unused, may be NULL) */
  tcmma_dialect dialect;
  tcmma_names *names;     /* the blocks' naming context (tcmma_render_frag_decl, _includes,
                             _kernel, _gemm and tcmma_kernel_prologue: unused, may be NULL) */
  tcmma_buf *out;         /* the buffer every renderer appends to */
} tcmma_render_ctx;

/* The context's initializer and its function form: size set, the rest as
 * given. Nothing is checked until a renderer takes it. */
#define TCMMA_RENDER_CTX_INIT(plan, dialect, names, out) \
  {sizeof(tcmma_render_ctx), (plan), (dialect), (names), (out)}
tcmma_render_ctx tcmma_render_ctx_make(const tcmma_plan *plan, tcmma_dialect dialect,
                                       tcmma_names *names, tcmma_buf *out);

/* Every renderer below takes a context (ctx) whose plan is accepted, whose
 * dialect is valid and whose names (where it numbers blocks) and out are
 * not NULL; C expressions; and an error. Expressions are non-empty and at
 * most TCMMA_EXPR_MAX characters. TCMMA_INVALID: a NULL ctx or one whose
 * size is below sizeof(tcmma_render_ctx), a NULL or declined plan, a plan
 * changed after planning (every plan reader plans the plan's own call
 * again and refuses a plan that differs from what that gives, naming the
 * field: "the plan was changed after planning: mt is 4, planning gives
 * 2"), a bad dialect, names or expression; TCMMA_NO_MEMORY: out failed to
 * grow.
 * Pointer expressions point at the parent tile's base (the operand
 * descriptor places the sub-tile in it). */

/* One self-contained statement: a brace block that starts the accumulator
 * as the plan's init says, accumulates a*b into it and stores d. */
tcmma_status tcmma_render_statement(const tcmma_render_ctx *ctx, const char *d, const char *a,
                                    const char *b, tcmma_error *err);

/* The longest fragment name the fragment-scope renderers take. */
#define TCMMA_FRAG_NAME_MAX 48

/* Fragment scope: open declares the accumulator named frag (a C identifier
 * of at most TCMMA_FRAG_NAME_MAX characters) and starts it (the plan's
 * init); update accumulates a*b into it (any number, inside the caller's
 * reduction loop); close stores it to d. All three take the same plan. */
tcmma_status tcmma_render_fragment_open(const tcmma_render_ctx *ctx, const char *frag,
                                        const char *d, tcmma_error *err);
tcmma_status tcmma_render_fragment_update(const tcmma_render_ctx *ctx, const char *frag,
                                          const char *a, const char *b, tcmma_error *err);
tcmma_status tcmma_render_fragment_close(const tcmma_render_ctx *ctx, const char *frag,
                                         const char *d, tcmma_error *err);

/* ---- pieces: caller-owned fragments (docs/emit.md, Pieces) ----
 * The statement and fragment scope are compositions of these; a generator
 * composes them itself to double-buffer fragments across k steps and put
 * its own code between them. Fragments are plain arrays the caller
 * declares once (tcmma_render_frag_decl) and indexes as it likes: a
 * fragment expression denotes one k step's tiles of an operand (a: mt
 * tiles, b: nt tiles), e.g. "af[(ks + 1) & 1]" of an array declared with
 * 2 buffers. Each of load, mma, init and store is one brace block. */

/* The most buffers (a leading dimension) one fragment array may have. */
#define TCMMA_FRAG_BUFFERS_MAX 4

/* Declares fragment array `name` (a C identifier of at most
 * TCMMA_FRAG_NAME_MAX characters) of operand op: a, b: one k step's tiles,
 * with a leading [buffers] dimension when buffers > 0 (`unsigned
 * name[buffers][mt][4];` inline, wmma fragments otherwise); c: the
 * accumulator (buffers must be 0). Takes no block number. */
tcmma_status tcmma_render_frag_decl(const tcmma_render_ctx *ctx, tcmma_operand op,
                                    const char *name, int buffers, tcmma_error *err);

/* Loads frag (op a or b) with the tiles of k step kstep (a C int expression,
 * 0 <= kstep < kt: k offset kstep * tile_k) of the plan's sub-tile of the
 * parent at base, through ldmatrix or gathers as the plan says. Under a
 * caller's `#pragma unroll` loop kstep may name its variable. TCMMA_INVALID
 * for a constant kstep (an integer literal) outside 0..kt-1; any other
 * expression cannot be checked here and must stay in range at run time. */
tcmma_status tcmma_render_frag_load(const tcmma_render_ctx *ctx, tcmma_operand op,
                                    const char *frag, const char *base, const char *kstep,
                                    tcmma_error *err);

/* acc += a x b over the mt x nt tiles of one k step (a, b: fragment
 * expressions loaded by tcmma_render_frag_load). */
tcmma_status tcmma_render_frag_mma(const tcmma_render_ctx *ctx, const char *acc, const char *a,
                                   const char *b, tcmma_error *err);

/* Starts accumulator acc as the plan's init says: d's value (LOAD; d the
 * parent's base) or zero (ZERO, SCALE: d unused but still checked). */
tcmma_status tcmma_render_acc_init(const tcmma_render_ctx *ctx, const char *acc, const char *d,
                                   tcmma_error *err);

/* Stores acc to d at d's storage precision: d = acc, or for SCALE
 * d = alpha * acc + beta * d (f32 arithmetic, one conversion). */
tcmma_status tcmma_render_acc_store(const tcmma_render_ctx *ctx, const char *acc, const char *d,
                                    tcmma_error *err);

/* Kernel-scope declarations the accepted plans of one kernel share, into
 * ctx->out in ctx->dialect (ctx->plan and names unused), and their
 * shared-memory bytes, from one predicate so the two cannot drift. The
 * prologue refuses (TCMMA_INVALID, naming plans[i]) a declined or changed
 * plan, as the renderers do; shared_bytes then counts 0. */
tcmma_status tcmma_kernel_prologue(const tcmma_render_ctx *ctx, const tcmma_plan *plans,
                                   size_t count, tcmma_error *err);
size_t tcmma_kernel_shared_bytes(const tcmma_plan *plans, size_t count);

/* What a source around the plan's blocks needs before them, appended to out:
 * in the HOST dialect the simulator's header; in CUDA the vendor headers
 * the blocks use (cuda_fp16.h, cuda_bf16.h, cuda_fp8.h, and the arm's:
 * mma.h for wmma arms) when vendor_headers is true, the arm has a header or
 * accumulates in f16 (its __half2 halves are read as .x/.y), else, for
 * inline-PTX arms, declarations of just the vendor words the
 * blocks use (tables/cuda_words.def: storage types that hold the bits,
 * conversions as the headers' own PTX), each guarded so that it is left out
 * after the vendor header or a second time: NVRTC compiles a small kernel
 * without the headers in a fraction of the time. TCMMA_INVALID: a declined
 * plan, a bad dialect, no out; TCMMA_NO_MEMORY. */
tcmma_status tcmma_render_includes(const tcmma_render_ctx *ctx, bool vendor_headers,
                                   tcmma_error *err);

/* The most update steps (`outer`) tcmma_render_kernel takes. Its a and b
 * buffers hold one tile per step; a test kernel needs a few, and the bound
 * keeps every buffer index well inside an int. */
#define TCMMA_KERNEL_OUTER_MAX 4096

/* How tcmma_render_kernel composes the emission. Start one with
 * tcmma_kernel_opts_default() or TCMMA_KERNEL_OPTS_INIT: a size of 0 is
 * TCMMA_INVALID. */
typedef struct {
  size_t size; /* sizeof(tcmma_kernel_opts) where the caller was built: the library
                  reads the fields it covers, defaults the rest (docs/design.md §15) */
  int outer;   /* update steps, 1..TCMMA_KERNEL_OUTER_MAX (0: 1) */
  bool pieces; /* each update from the pieces: fragments double-buffered
                  across k steps (load step s+1 while step s multiplies) */
  bool indexed_bases; /* add block and warp index terms to every operand's
                  base pointer (`+ blockIdx.x * 128 + (threadIdx.x / 64) * 64`,
                  0 in a one-warp launch of one block), as a generator's tile
                  bases do: the compiler then cannot see their alignment
                  from the kernel's parameters */
} tcmma_kernel_opts;

/* An initializer (C): the size, then the fields in order or designated:
 * tcmma_kernel_opts o = TCMMA_KERNEL_OPTS_INIT(.outer = 2, .pieces = true); */
#define TCMMA_KERNEL_OPTS_INIT(...) {.size = sizeof(tcmma_kernel_opts), __VA_ARGS__}

/* The defaults (one update, no pieces) with the size set; inline, so that
 * the size is the caller's own sizeof. */
static inline tcmma_kernel_opts tcmma_kernel_opts_default(void) {
  tcmma_kernel_opts o = {0};
  o.size = sizeof o;
  return o;
}

/* A complete one-warp kernel `tcmma_kernel(d, a, b)` (extern "C" __global__
 * in CUDA; a block-scaled plan adds sa, sb: tcmma_kernel_scale_elems) that stages shared operands from global memory in their layout,
 * runs the plan (fragment scope or pieces: start the accumulator, `outer`
 * updates over an outer reduction of outer*k, store; statement scope:
 * `outer` statements) and writes d back. Its global buffers are laid out as
 * tcmma_kernel_operand_index says; origin expressions must be 0 in a
 * one-warp launch of one block (their values place the tile). The HOST
 * dialect adds `void tcmma_kernel_entry(void *args)`, args a `void *[3]` of
 * d, a, b. opts NULL: one statement or update. TCMMA_INVALID for a declined
 * plan or outer outside 1..TCMMA_KERNEL_OUTER_MAX; TCMMA_OVERFLOW when the
 * staged operands exceed TCMMA_STATIC_SHARED_MAX bytes or a buffer's bytes
 * exceed an int. Its blocks number themselves from 0 (one translation unit).
 */
tcmma_status tcmma_render_kernel(const tcmma_render_ctx *ctx, const tcmma_kernel_opts *opts,
                                 tcmma_error *err);

/* Static shared memory one CUDA kernel may declare (48 KiB). */
#define TCMMA_STATIC_SHARED_MAX 49152

/* The kernel's global buffers, whatever the operand's space: a and b hold
 * `outer` parent tiles one after another (d one); each is stored as the
 * plan describes it (row0 + stored rows x ld elements, plain rows, the
 * sub-tile at the origin's values). Tile r of a
 * holds columns r*k .. r*k+k-1 of the outer reduction's a (b: rows).
 * tcmma_kernel_operand_elems: elements in op's buffer (op c is d);
 * tcmma_kernel_operand_index: the element index of role element (i, j) of
 * tile step (a: i<m, j<k; b: i<k, j<n; d: i<m, j<n). -1 for bad input,
 * a declined plan or one the renderers would refuse as changed. */
long tcmma_kernel_operand_elems(const tcmma_plan *plan, int outer, tcmma_operand op);
long tcmma_kernel_operand_index(const tcmma_plan *plan, tcmma_operand op, int step, long i,
                                long j);

/* A block-scaled plan's scale buffers, the kernel's parameters sa and sb
 * (`const unsigned char *`, after b; the HOST entry's args then hold five):
 * `outer` scale parents of op (a or b) one after another, each as the plan
 * describes it (tcmma_operand_scale_shape: rows x scale_ld bytes).
 * tcmma_kernel_scale_elems: bytes of op's scale buffer (0 for a plan
 * without scales); tcmma_kernel_scale_index: the byte index of the scale of
 * row i of a (column i of b) and k block kb (0 <= kb < k / scale_block) of
 * tile step. -1 for bad input, a changed plan (as above) or, for a plan
 * without scales, every index. */
long tcmma_kernel_scale_elems(const tcmma_plan *plan, int outer, tcmma_operand op);
long tcmma_kernel_scale_index(const tcmma_plan *plan, tcmma_operand op, int step, long i,
                              long kb);

/* The most rows and the longest leading dimension tcmma_render_stage takes
 * (elements): far beyond any shared-memory tile. The tile's span,
 * rows x ld x elem_bytes, must also fit an int (the text's offsets). */
#define TCMMA_STAGE_EXTENT_MAX (1L << 24)

/* One tile copy of tcmma_render_stage: a rows x cols tile of elem_bytes
 * elements from global memory (src, plain, leading dimension src_ld) into
 * shared memory (dst, leading dimension dst_ld, laid out by swizzle) with
 * the 32 lanes of a warp. Grows only at the end (size first). */
typedef struct {
  size_t size;           /* sizeof(tcmma_stage_opts), as the default function sets it */
  bool async;            /* cp.async where a chunk size divides the tile */
  const char *dst, *src; /* pointer expressions, 16-byte aligned */
  long rows, cols;       /* elements */
  long dst_ld, src_ld;   /* elements per row of each side, at least cols */
  int elem_bytes;        /* 1, 2, 4 or 8 */
  tcmma_swizzle swizzle; /* dst's atom (TCMMA_SWIZZLE_NONE: plain rows) */
  const char *lane;      /* lane expression; NULL: threadIdx.x % 32 */
} tcmma_stage_opts;

/* A copy with size set, async false, swizzle none, the rest zero or NULL:
 * the caller fills in the expressions and sizes. */
tcmma_stage_opts tcmma_stage_opts_default(void);

/* Appends the copy *opts describes to ctx->out as one block of ctx->names
 * (ctx->plan unused). async: cp.async, 16-byte .cg where every chunk is
 * 16-byte aligned, else 8- or 4-byte .ca, then commit and wait (the block
 * title carries the cp.async. marker, tables/markers.def, so the arch
 * options see its floor); a tile no cp.async size divides, or !async:
 * ordinary copies. Ends with __syncwarp. TCMMA_INVALID for a bad ctx, NULL
 * opts or one whose size is below sizeof(tcmma_stage_opts), empty
 * expressions, bad names, non-positive sizes, rows or ld above
 * TCMMA_STAGE_EXTENT_MAX, ld below cols or a swizzled row that is not whole
 * spans (tcmma_swizzle_ld_ok); TCMMA_OVERFLOW when rows x ld x elem_bytes
 * (either ld) exceeds INT_MAX (the text computes offsets in int). Nothing
 * is appended on an error. */
tcmma_status tcmma_render_stage(const tcmma_render_ctx *ctx, const tcmma_stage_opts *opts,
                                tcmma_error *err);

#pragma GCC visibility pop
#ifdef __cplusplus
}
#endif

#endif
