// A project's ptx.h of asm macros (the style of flash-attention's and
// llm.c's copy helpers): the instructions sit in #define bodies only.
#define CP_ASYNC_CG(dst, src, bytes) \
  asm volatile("cp.async.cg.shared.global [%0], [%1], %2;\n" \
               :: "r"(dst), "l"(src), "n"(bytes))
#define CP_ASYNC_COMMIT_GROUP() asm volatile("cp.async.commit_group;\n" ::)
#define CP_ASYNC_WAIT_GROUP(n) asm volatile("cp.async.wait_group %0;\n" :: "n"(n))

__global__ void load_tile(const float4 *src, float *dst) {
  __shared__ float4 tile[64];
  unsigned s = static_cast<unsigned>(__cvta_generic_to_shared(tile + threadIdx.x));
  CP_ASYNC_CG(s, src + threadIdx.x, 16);
  CP_ASYNC_COMMIT_GROUP();
  CP_ASYNC_WAIT_GROUP(0);
  __syncthreads();
  dst[threadIdx.x] = tile[threadIdx.x].y;
}
