// A whole program NVRTC cannot take: host headers, main and a launch. Its
// kernel's warp reduction (redux.sync) needs sm_80, which only compiling
// shows (tcmma options --probe runs nvcc on it).
#include <cstdio>

__global__ void warp_max(const unsigned *in, unsigned *out) {
  unsigned r, v = in[threadIdx.x];
  asm volatile("redux.sync.max.u32 %0, %1, 0xffffffff;\n" : "=r"(r) : "r"(v));
  if (threadIdx.x == 0) *out = r;
}

int main() {
  unsigned *d = nullptr;
  cudaMalloc(&d, 64 * sizeof(unsigned));
  warp_max<<<1, 32>>>(d, d + 32);
  cudaDeviceSynchronize();
  std::printf("done\n");
  return 0;
}
