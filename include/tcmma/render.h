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

typedef enum { TCMMA_DIALECT_CUDA, TCMMA_DIALECT_HOST } tcmma_dialect;

/* The alignment, in bytes, every d, a and b pointer expression given to the
 * renderers must have (wmma arms: TCMMA_WMMA_ALIGN); the vector accesses
 * rely on it. */
#define TCMMA_POINTER_ALIGN 16

/* wmma loads and stores need pointers, and so every row start, aligned to
 * 32 bytes (PTX ISA). */
#define TCMMA_WMMA_ALIGN 32

/* One self-contained statement: a brace block that loads d, accumulates
 * a*b into it and stores d. d, a, b are C pointer expressions to the tile
 * bases (already offset). Appends to out. TCMMA_INVALID for a declined plan
 * or a NULL/empty expression; TCMMA_NO_MEMORY when out failed to grow. */
tcmma_status tcmma_render_statement(const tcmma_plan *plan, tcmma_dialect dialect,
                                    const char *d, const char *a, const char *b,
                                    tcmma_buf *out, tcmma_error *err);

/* The longest fragment name the fragment-scope renderers take. */
#define TCMMA_FRAG_NAME_MAX 48

/* Fragment scope: open declares the register/accumulator fragment named
 * frag (a C identifier of at most TCMMA_FRAG_NAME_MAX characters; otherwise
 * TCMMA_INVALID) and loads d into it; update accumulates a*b into it
 * (any number, inside the caller's reduction loop); close stores it to d.
 * All three take the same fragment-scope plan. */
tcmma_status tcmma_render_fragment_open(const tcmma_plan *plan, tcmma_dialect dialect,
                                        const char *frag, const char *d, tcmma_buf *out,
                                        tcmma_error *err);
tcmma_status tcmma_render_fragment_update(const tcmma_plan *plan, tcmma_dialect dialect,
                                          const char *frag, const char *a, const char *b,
                                          tcmma_buf *out, tcmma_error *err);
tcmma_status tcmma_render_fragment_close(const tcmma_plan *plan, tcmma_dialect dialect,
                                         const char *frag, const char *d, tcmma_buf *out,
                                         tcmma_error *err);

/* Kernel-scope declarations the accepted plans of one kernel share, and
 * their shared-memory bytes, from one predicate so the two cannot drift. */
tcmma_status tcmma_kernel_prologue(const tcmma_plan *plans, size_t count,
                                   tcmma_dialect dialect, tcmma_buf *out, tcmma_error *err);
size_t tcmma_kernel_shared_bytes(const tcmma_plan *plans, size_t count);

/* The most update steps (`outer`) tcmma_render_kernel takes. Its a and b
 * buffers hold one tile per step; a test kernel needs a few, and the bound
 * keeps every buffer index well inside an int. */
#define TCMMA_KERNEL_OUTER_MAX 4096

/* A complete one-warp kernel `tcmma_kernel(d, a, b)` (extern "C" __global__
 * in CUDA) that stages shared operands from global memory in their layout,
 * runs the plan (fragment scope: open, `outer` updates over an outer
 * reduction of outer*k, close; statement scope: `outer` statements) and
 * writes d back. Its global buffers are laid out as
 * tcmma_kernel_operand_index says. The HOST dialect adds
 * `void tcmma_kernel_entry(void *args)`, args a `void *[3]` of d, a, b.
 * TCMMA_INVALID for a declined plan or outer outside 1..TCMMA_KERNEL_OUTER_MAX;
 * TCMMA_OVERFLOW when the staged operands exceed TCMMA_STATIC_SHARED_MAX
 * bytes or a buffer's bytes exceed an int. */
tcmma_status tcmma_render_kernel(const tcmma_plan *plan, tcmma_dialect dialect, int outer,
                                 tcmma_buf *out, tcmma_error *err);

/* Static shared memory one CUDA kernel may declare (48 KiB). */
#define TCMMA_STATIC_SHARED_MAX 49152

/* The kernel's global buffers, whatever the operand's space: a and b hold
 * `outer` tiles one after another (d one tile); each tile is stored as the
 * plan describes it (stored rows x ld elements, plain layout). Tile r of a
 * holds columns r*k .. r*k+k-1 of the outer reduction's a (b: rows).
 * tcmma_kernel_operand_elems: elements in op's buffer (op c is d);
 * tcmma_kernel_operand_index: the element index of role element (i, j) of
 * tile step (a: i<m, j<k; b: i<k, j<n; d: i<m, j<n). -1 for bad input. */
long tcmma_kernel_operand_elems(const tcmma_plan *plan, int outer, tcmma_operand op);
long tcmma_kernel_operand_index(const tcmma_plan *plan, tcmma_operand op, int step, long i,
                                long j);

/* The most rows and the longest leading dimension tcmma_render_stage takes
 * (elements): far beyond any shared-memory tile. The tile's span,
 * rows x ld x elem_bytes, must also fit an int (the text's offsets). */
#define TCMMA_STAGE_EXTENT_MAX (1L << 24)

/* Copies a rows x cols tile of elem_bytes elements from global memory (src,
 * plain, leading dimension src_ld) into shared memory (dst, leading
 * dimension dst_ld, in layout) with the 32 lanes of a warp (lane: lane
 * expression, NULL: threadIdx.x % 32). async: cp.async, 16-byte .cg where
 * every chunk is 16-byte aligned, else 8- or 4-byte .ca, then commit and
 * wait (the block title carries the cp.async. marker, tables/markers.def,
 * so the arch options see its floor); a tile no cp.async size divides, or
 * !async: ordinary copies. Ends with __syncwarp.
 * src and dst must be 16-byte aligned. TCMMA_INVALID for empty expressions,
 * non-positive sizes, rows or ld above TCMMA_STAGE_EXTENT_MAX, ld below cols
 * or a swizzled ld off whole TCMMA_SWIZZLE_LINE lines; TCMMA_OVERFLOW when
 * rows x ld x elem_bytes (either ld) exceeds INT_MAX. Nothing is appended
 * on an error. */
tcmma_status tcmma_render_stage(tcmma_dialect dialect, bool async, const char *dst,
                                const char *src, long rows, long cols, long dst_ld,
                                long src_ld, int elem_bytes, tcmma_layout layout,
                                const char *lane, tcmma_buf *out, tcmma_error *err);

/* Byte offset of element (r, c) in a swizzled_b128 tile with leading
 * dimension ld elements of elem_bytes each:
 * r*ld*eb + (((c*eb)/16) ^ (r%8))*16 + (c*eb)%16. -1 when r or c is
 * negative, ld or elem_bytes not positive, or the offset exceeds a long. */
long tcmma_swizzle_offset(long r, long c, long ld, int elem_bytes);

/* Appends the same byte offset as a C expression of the row and column
 * expressions r and c (non-negative ints). TCMMA_INVALID for empty
 * expressions or when ld*elem_bytes is not a positive multiple of
 * TCMMA_SWIZZLE_LINE up to INT_MAX. */
tcmma_status tcmma_render_swizzle_offset(const char *r, const char *c, long ld, int elem_bytes,
                                         tcmma_buf *out, tcmma_error *err);

#pragma GCC visibility pop
#ifdef __cplusplus
}
#endif

#endif
