/* tcmma rendering (mma-mxfp8): a family arm */
__global__ void k() {}
