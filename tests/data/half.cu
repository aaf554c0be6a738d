// __half arithmetic only: floor 53, raised to NVRTC's lowest arch
#include <cuda_fp16.h>
__global__ void k(__half *x) { x[0] = x[1] * x[2]; }
