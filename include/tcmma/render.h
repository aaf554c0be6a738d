/* Rendering an accepted plan as CUDA C text (or the host-simulator dialect,
 * include/tcmma/sim.h), per statement or as a persistent fragment scope. */
#ifndef TCMMA_RENDER_H
#define TCMMA_RENDER_H

#include "tcmma/buf.h"
#include "tcmma/plan.h"

typedef enum { TCMMA_DIALECT_CUDA, TCMMA_DIALECT_HOST } tcmma_dialect;

/* One self-contained statement: a brace block that loads d, accumulates
 * a*b into it and stores d. d, a, b are C pointer expressions to the tile
 * bases (already offset). Appends to out. TCMMA_INVALID for a declined plan
 * or a NULL/empty expression; TCMMA_NO_MEMORY when out failed to grow. */
tcmma_status tcmma_render_statement(const tcmma_plan *plan, tcmma_dialect dialect,
                                    const char *d, const char *a, const char *b,
                                    tcmma_buf *out, tcmma_error *err);

/* Fragment scope: open declares the register/accumulator fragment named
 * frag (a C identifier) and loads d into it; update accumulates a*b into it
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

/* A complete one-warp kernel `tcmma_kernel(d, a, b)` (extern "C" __global__
 * in CUDA) that stages shared operands from global memory in their layout,
 * runs the plan (fragment scope: open, `outer` updates over an outer
 * reduction of outer*k, close) and writes d back. Global inputs are dense:
 * a is m x (outer*k) (transposed: (outer*k) x m), b likewise. */
tcmma_status tcmma_render_kernel(const tcmma_plan *plan, tcmma_dialect dialect, int outer,
                                 tcmma_buf *out, tcmma_error *err);

/* Byte offset of element (r, c) in a swizzled_b128 tile with leading
 * dimension ld elements of elem_bytes each:
 * r*ld*eb + (((c*eb)/16) ^ (r%8))*16 + (c*eb)%16. */
long tcmma_swizzle_offset(long r, long c, long ld, int elem_bytes);

#endif
