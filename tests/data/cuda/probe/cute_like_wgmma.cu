// A kernel whose only arch-specific step is a header atom (cute_like_atoms.hpp):
// below sm_90a the atom is a trap, and the kernel compiles anyway.
#include "cute_like_atoms.hpp"

__global__ void fenced_store(float *out) {
  demo::SM90_WGMMA_FENCE::fence();
  out[threadIdx.x] = 1.0f;
}
