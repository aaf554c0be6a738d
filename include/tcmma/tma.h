/* TMA copies and mbarrier phases as rendered pieces (docs/emit.md "TMA and
 * mbarrier"): the helper functions a Hopper kernel calls, each one PTX
 * instruction of tables/collectives.def, and a one-box test kernel. Every
 * instruction needs sm_90 (tables/ptx_features.def), so the options picker
 * gives the text compute_90 from its inline asm alone. */
#ifndef TCMMA_TMA_H
#define TCMMA_TMA_H

#include "tcmma/buf.h"
#include "tcmma/render.h"
#include "tcmma/status.h"
#include "tcmma/tensor_map.h"

#ifdef __cplusplus
extern "C" {
#endif
#pragma GCC visibility push(default) /* public: the library builds with -fvisibility=hidden */

/* Appends the helpers in dialect dl, once per translation unit (guarded by
 * TCMMA_TMA_HELPERS): the CUtensorMap type when <cuda.h> was not included
 * first (128 opaque bytes, 64-byte aligned; the host dialect uses
 * tcmma_tensor_map itself) and
 *   tcmma_mbar_init(unsigned long long *bar, unsigned arrivals)   mbarrier.init
 *   tcmma_mbar_init_fence()                     fence.mbarrier_init.release.cluster
 *   tcmma_mbar_arrive(bar)                      mbarrier.arrive
 *   tcmma_mbar_arrive_expect_tx(bar, bytes)     mbarrier.arrive.expect_tx
 *   tcmma_mbar_wait(bar, parity)                a mbarrier.try_wait.parity loop: returns
 *                                               once the phase of that parity completed
 *   tcmma_fence_proxy_async()                   fence.proxy.async.shared::cta (generic
 *                                               shared writes, then async-proxy reads)
 *   tcmma_elect_one()                           elect.sync over the whole warp: true in
 *                                               the one lane elected (every lane of a
 *                                               warp-uniform branch calls it)
 *   tcmma_tma_load_<N>d(dst, map, bar, c0..cN-1) for N = 1..5: one box of map at
 *                                               element coordinates c into shared dst
 *                                               (128-byte aligned), completing its bytes
 *                                               on bar (cp.async.bulk.tensor)
 * In the host dialect each calls the simulator (include/tcmma/sim.h).
 * TCMMA_INVALID for a bad dialect; TCMMA_NO_MEMORY when out failed to grow. */
tcmma_status tcmma_render_tma_helpers(tcmma_dialect dl, tcmma_buf *out, tcmma_error *err);

/* Appends a test kernel of the helpers for one box of map:
 *   NAME(const __grid_constant__ CUtensorMap map, unsigned char *out,
 *        int c0, int c1, int c2, int c3, int c4)
 * (name NULL: "tcmma_tma_kernel"; the host dialect adds NAME_entry(void *args),
 * args a void *[7] of &map, out, &c0 .. &c4). Thread 0 initialises one
 * mbarrier (1 arrival), fences the init, and after __syncthreads arrives
 * with the box's bytes expected (tcmma_tensor_map_box_bytes) and issues
 * the load at (c0, .., c<rank-1>); every thread waits on phase 0 and copies
 * the box's shared image to out 16 bytes at a time (out: box bytes, 16-byte
 * aligned). Only map's element type, rank, box, element strides, interleave
 * and swizzle shape the text; its address and dims are the runtime map's.
 * TCMMA_INVALID for a map that fails tcmma_tensor_map_check, a box above
 * 48 KiB (static shared memory), or a name that is not a C identifier. */
tcmma_status tcmma_render_tma_kernel(tcmma_dialect dl, const tcmma_tensor_map *map,
                                     const char *name, tcmma_buf *out, tcmma_error *err);

#pragma GCC visibility pop
#ifdef __cplusplus
}
#endif

#endif
