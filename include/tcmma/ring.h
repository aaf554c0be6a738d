/* Pieces for hand-written GEMM-like kernels (docs/emit.md, Ring pieces):
 * the GEMM's multi-warp, multi-stage loader ring, its stage tiles and its
 * bounds-checked store, rendered from an accepted GEMM plan so that a
 * generator composes its own main loop; and the dialect-neutral glue
 * (TCMMA_SYNC(), TCMMA_TID(), cp.async commit/wait/zfill, ...) that the
 * same hand-written text compiles with under NVRTC and on the simulator. */
#ifndef TCMMA_RING_H
#define TCMMA_RING_H

#include "tcmma/gemm.h"

#ifdef __cplusplus
extern "C" {
#endif
#pragma GCC visibility push(default) /* public: the library builds with -fvisibility=hidden */

/* The bytes tcmma_gemm_warp_call writes its origin expressions into. */
#define TCMMA_GEMM_WARP_EXPRS_BYTES 192

/* The tile-MMA call of one warp of an accepted plan (planned with opts,
 * NULL: the defaults), for the fragment pieces of include/tcmma/render.h
 * (plan it with tcmma_plan_call): the warp tile over one k tile, a and b
 * read from a stage (tcmma_render_gemm_ring_tiles) at this warp's place
 * in the warp grid (warp threadIdx.x / 32, row-major), d the f32 block
 * tile of tcmma_render_gemm_ring_store, init zero. Its origin expressions
 * are written into exprs (cap at least TCMMA_GEMM_WARP_EXPRS_BYTES), which
 * must outlive *out. TCMMA_INVALID: NULL pointers, a small cap, or a plan
 * the ring pieces refuse (below). */
tcmma_status tcmma_gemm_warp_call(const tcmma_gemm_plan *plan, const tcmma_gemm_opts *opts,
                                  char *exprs, size_t cap, tcmma_call *out, tcmma_error *err);

/* The ring pieces below render into ctx->out in ctx->dialect (ctx->plan
 * unused; ctx->names only where a piece says) from a plan accepted by
 * tcmma_gemm_plan_opts with the same opts (NULL: the defaults) of one
 * fixed-shape GEMM: TCMMA_INVALID for a bad ctx, a declined or changed
 * plan (the message names the field), opts with shape_args, a batch or
 * split_k (the whole kernel's: tcmma_render_gemm_opts), or a bad
 * expression (empty, blank, longer than TCMMA_EXPR_MAX), naming it;
 * TCMMA_NO_MEMORY when out failed. Nothing is appended on an error. The
 * pieces' locals are `__tcmma_g_`-prefixed: one ring per kernel scope. */

/* The loader's per-thread state, once, in the kernel's scope before any
 * other ring piece: smem (the dynamic shared memory, plan->shared_bytes
 * bytes, 128-byte aligned), a and b (the operands' global pointers, as
 * stored: call.a, call.b), m0 and n0 (int expressions: the block tile's
 * first row and column; NULL: blockIdx.y * block_m and blockIdx.x *
 * block_n, the plan's grid). */
tcmma_status tcmma_render_gemm_ring_decls(const tcmma_render_ctx *ctx, const tcmma_gemm_plan *plan,
                                          const tcmma_gemm_opts *opts, const char *smem,
                                          const char *a, const char *b, const char *m0,
                                          const char *n0, tcmma_error *err);

/* One stage's copies: k tile ktile (an int expression, 0..k_tiles-1) of A
 * and B into stage `stage` (an int expression, 0..stages-1) by every
 * thread of the block, with the plan's copies (cp.async of each operand's
 * class, plain loads below cc 80), interior tiles unpredicated and tiles
 * at a ragged edge zero-filled past it. Each call steps the thread's
 * source pointers one k tile: load the k tiles in order, each once (under
 * an `if` that skips the tiles past the last). A literal stage or ktile
 * outside its range is TCMMA_INVALID naming it; other expressions must
 * stay in range at run time. */
tcmma_status tcmma_render_gemm_ring_load(const tcmma_render_ctx *ctx, const tcmma_gemm_plan *plan,
                                         const tcmma_gemm_opts *opts, const char *stage,
                                         const char *ktile, tcmma_error *err);

/* cp.async.commit_group, and cp.async.wait_group n (0 <= n < stages: the
 * groups committed after the one waited for). Nothing for a plan whose
 * loader has no cp.async (every copy a plain load: tcmma_gemm_info's
 * a_plain and b_plain). wait covers the thread's own copies: a barrier
 * (TCMMA_SYNC()) must follow before a warp reads a stage. */
tcmma_status tcmma_render_gemm_ring_commit(const tcmma_render_ctx *ctx,
                                           const tcmma_gemm_plan *plan,
                                           const tcmma_gemm_opts *opts, tcmma_error *err);
tcmma_status tcmma_render_gemm_ring_wait(const tcmma_render_ctx *ctx, const tcmma_gemm_plan *plan,
                                         const tcmma_gemm_opts *opts, int n, tcmma_error *err);

/* Declares `const A *const as` and `const B *const bs` (C identifiers of
 * at most TCMMA_FRAG_NAME_MAX characters) at stage `stage`'s A and B
 * tiles: the bases the warp call's fragment loads take. */
tcmma_status tcmma_render_gemm_ring_tiles(const tcmma_render_ctx *ctx, const tcmma_gemm_plan *plan,
                                          const tcmma_gemm_opts *opts, const char *stage,
                                          const char *as, const char *bs, tcmma_error *err);

/* The bounds-checked store of every warp's accumulator acc (declared and
 * accumulated with the warp call's pieces): the ring drained and a barrier
 * (the stages end), each warp's tile into the f32 block tile in smem
 * (tcmma_render_acc_store, one block of ctx->names), a barrier, then D =
 * alpha * acc + beta * C into global d (rows and columns past M and N
 * left alone; ld as planned), C read only when beta != 0. d, c: pointer
 * expressions of d's storage type (c may be d), alpha, beta: float
 * expressions. */
tcmma_status tcmma_render_gemm_ring_store(const tcmma_render_ctx *ctx, const tcmma_gemm_plan *plan,
                                          const tcmma_gemm_opts *opts, const char *acc,
                                          const char *d, const char *c, const char *alpha,
                                          const char *beta, tcmma_error *err);

/* The dialect-neutral glue (tables/glue.def): macros that a hand-written
 * kernel's text uses in place of CUDA's words, defined in ctx->dialect so
 * that one text compiles under NVRTC and on the simulator (render it after
 * tcmma_render_includes; guarded, so a second rendering is harmless):
 * TCMMA_KERNEL (`extern "C" __global__ void`), TCMMA_DYN_SHARED(name)
 * (the dynamic shared memory as `unsigned char` name), TCMMA_SYNC(),
 * TCMMA_SYNCWARP(), TCMMA_TID() (threadIdx.x as int), TCMMA_BID(axis)
 * (blockIdx along 0, 1, 2 as int), TCMMA_CP_ASYNC_COMMIT(),
 * TCMMA_CP_ASYNC_WAIT(n) (n an integer constant) and
 * TCMMA_CP_ASYNC_ZFILL(dst, src, bytes, src_bytes) (cp.async.ca of bytes
 * 4, 8 or 16, a constant; the first src_bytes read, the rest zeroed).
 * ctx->plan and names unused. TCMMA_INVALID: a bad ctx; TCMMA_NO_MEMORY. */
tcmma_status tcmma_render_glue(const tcmma_render_ctx *ctx, tcmma_error *err);

#pragma GCC visibility pop
#ifdef __cplusplus
}
#endif

#endif
