/* The TMA GEMMs' tensor maps (docs/emit.md, The Hopper GEMM): what a
 * launcher of a wgmma or tcgen05 GEMM kernel (tcmma_gemm_info.kernel WGMMA,
 * TCGEN05) passes as
 * its last two arguments. A header of its own beside include/tcmma/gemm.h,
 * which the tensor-map value does not belong to. */
#ifndef TCMMA_GEMM_TMA_H
#define TCMMA_GEMM_TMA_H

#include "tcmma/gemm.h"
#include "tcmma/tensor_map.h"

#ifdef __cplusplus
extern "C" {
#endif
#pragma GCC visibility push(default) /* public: the library builds with -fvisibility=hidden */

/* The tensor maps a WGMMA or TCGEN05 plan's kernel takes as its last two
 * arguments (docs/emit.md, The Hopper GEMM, The Blackwell GEMM): maps[0] A's, maps[1] B's, 2-D maps of
 * each operand as stored from address a or b (a device address for a
 * device, a host one for the simulator), boxes of one k tile of the block
 * tile, swizzled as the plan's stages (a_swizzle, b_swizzle),
 * zeros past the edges. shape: the launch's m, n, k, lda, ldb (elements)
 * for a shape-argument kernel (NULL: the call's own; a fixed-shape kernel
 * takes only those). For a device, encode each with tcmma_tensor_map_encode
 * and pass the 128 bytes; the simulator's entry takes the values.
 * TCMMA_INVALID for a NULL plan or maps, a plan not accepted as WGMMA or
 * TCGEN05 with opts, a shape the plan does not serve, or a map failing
 * tcmma_tensor_map_check (its rule named). */
tcmma_status tcmma_gemm_tensor_maps(const tcmma_gemm_plan *plan, const tcmma_gemm_opts *opts,
                                    unsigned long long a, unsigned long long b, const int *shape,
                                    tcmma_tensor_map maps[2], tcmma_error *err);

#pragma GCC visibility pop
#ifdef __cplusplus
}
#endif

#endif
