// A kernel built on a header-only library's atoms (cute_like_atoms.hpp): the
// file itself names no instruction, so its floor is in the header.
#include "cute_like_atoms.hpp"

__global__ void staged_copy(const float4 *src, float *dst) {
  __shared__ float4 tile[32];
  demo::SM80_CP_ASYNC_CACHEALWAYS::copy(src + threadIdx.x, tile + threadIdx.x);
  asm volatile("cp.async.wait_all;\n" ::: "memory");
  __syncthreads();
  dst[threadIdx.x] = tile[threadIdx.x].x;
}
