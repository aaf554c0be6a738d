// An optional file-scope specialisation under a __CUDA_ARCH__ guard: the
// primary template serves every target, sm_80 only gets a faster path.
#include <cuda_fp16.h>

template <typename T> struct Convert {
  __device__ static float to_float(T v) { return static_cast<float>(v); }
};

#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 800
template <> struct Convert<__half> {
  __device__ static float to_float(__half v) { return __half2float(v); }
};
#endif

__global__ void widen(const __half *in, float *out) {
  out[threadIdx.x] = Convert<__half>::to_float(in[threadIdx.x]);
}
