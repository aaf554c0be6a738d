// bf16 arithmetic and atomics, the style of LLM training kernels (llm.c's
// residual and AdamW updates): CUDA 13 compiles it for sm_75 (emulated).
#include <cuda_bf16.h>

__global__ void residual(__nv_bfloat16 *out, const __nv_bfloat16 *a,
                         const __nv_bfloat16 *b, __nv_bfloat162 *acc, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n) return;
  out[i] = a[i] + b[i] * __float2bfloat16(0.5f);
  atomicAdd(acc + (i % 4), __halves2bfloat162(a[i], b[i]));
}
