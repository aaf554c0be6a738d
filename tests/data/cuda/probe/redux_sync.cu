// A warp reduction by inline redux.sync (sm_80), the style of quantised-GEMM
// and LLM-training kernels that reduce an absmax per warp.
__device__ unsigned warp_max(unsigned v) {
  unsigned r;
  asm volatile("redux.sync.max.u32 %0, %1, 0xffffffff;\n" : "=r"(r) : "r"(v));
  return r;
}

__global__ void absmax(const unsigned *in, unsigned *out) {
  unsigned m = warp_max(in[blockIdx.x * blockDim.x + threadIdx.x]);
  if (threadIdx.x % 32 == 0) atomicMax(out, m);
}
