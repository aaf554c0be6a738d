// A kernel whose whole body sits behind __CUDA_ARCH__ >= 900 with no #else:
// below sm_90 it compiles to an empty kernel (a bare ret).
__global__ void cluster_sum(const int *in, int *out) {
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 900
  out[blockIdx.x] = in[threadIdx.x] + static_cast<int>(threadIdx.x);
#endif
}
