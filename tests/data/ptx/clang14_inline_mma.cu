#define __global__ __attribute__((global))
extern "C" __global__ void k(const unsigned *a, const unsigned *b, float *d) {
  float c0 = 0, c1 = 0, c2 = 0, c3 = 0;
  unsigned a0 = a[0], a1 = a[1], a2 = a[2], a3 = a[3], b0 = b[0], b1 = b[1];
  asm volatile("mma.sync.aligned.m16n8k16.row.col.f32.bf16.bf16.f32 {%0,%1,%2,%3}, {%4,%5,%6,%7}, {%8,%9}, {%0,%1,%2,%3};"
    : "+f"(c0), "+f"(c1), "+f"(c2), "+f"(c3) : "r"(a0), "r"(a1), "r"(a2), "r"(a3), "r"(b0), "r"(b1));
  d[__nvvm_read_ptx_sreg_tid_x()] = c0 + c1 + c2 + c3;
}
