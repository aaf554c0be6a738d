// A header-only library's MMA atom in the style of CuTe (cute/arch/mma_sm90.hpp):
// the instruction sits behind the library's own feature macro, and below the
// architecture the atom compiles to a trap (CUTE_INVALID_CONTROL_PATH).
#pragma once

#if defined(__CUDA_ARCH_FEAT_SM90_ALL)
#define DEMO_SM90_ENABLED
#endif

#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 800
#define DEMO_SM80_ENABLED
#endif

namespace demo {

struct SM90_WGMMA_FENCE {
  __device__ static void fence() {
#if defined(DEMO_SM90_ENABLED)
    asm volatile("wgmma.fence.sync.aligned;\n" ::: "memory");
#else
    __trap();
#endif
  }
};

struct SM80_CP_ASYNC_CACHEALWAYS {
  __device__ static void copy(const void *gmem, void *smem) {
#if defined(DEMO_SM80_ENABLED)
    unsigned s = static_cast<unsigned>(__cvta_generic_to_shared(smem));
    asm volatile("cp.async.ca.shared.global [%0], [%1], 16;\n" :: "r"(s), "l"(gmem));
#else
    __trap();
#endif
  }
};

}  // namespace demo
