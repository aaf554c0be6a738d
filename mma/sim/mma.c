/* mma.sync reference model: gathers the warp's A, B and C from the lanes'
 * registers per the PTX ISA fragment layouts (docs/design.md §7), computes
 * D = A*B + C with exact products summed in double and one rounding to f32,
 * and scatters D back. Integer-valued inputs in range are bit-exact on any
 * summation order, which is what the matrix checks compare. */
#include <stdio.h>
#include <string.h>
#include "mma/sim/internal.h"

typedef struct {
  float *d;
  const uint32_t *a, *b;
  const float *c;
} mma_args;

typedef struct {
  int k;                       /* 16 or 32 */
  const sim_format *ta, *tb;   /* operand element formats */
} mma_shape;

static const sim_format *elem_format(const char *t, int k) {
  if (k == 16 && strcmp(t, "f16") == 0) return &tcmma__sim_fmt_f16;
  if (k == 16 && strcmp(t, "bf16") == 0) return &tcmma__sim_fmt_bf16;
  if (k == 32 && strcmp(t, "e4m3") == 0) return &tcmma__sim_fmt_e4m3;
  if (k == 32 && strcmp(t, "e5m2") == 0) return &tcmma__sim_fmt_e5m2;
  return NULL;
}

/* Accepts exactly mma.sync.aligned.m16n8k16.row.col.f32.{f16,bf16}x2.f32
 * (same type for a and b) and mma.sync.aligned.m16n8k32.row.col.f32.
 * {e4m3,e5m2}.{e4m3,e5m2}.f32. */
static bool parse_opcode(const char *op, mma_shape *out) {
  char at[8], bt[8], tail[2];
  int k;
  if (!op || sscanf(op, "mma.sync.aligned.m16n8k%d.row.col.f32.%7[a-z0-9].%7[a-z0-9].f32%1s", &k,
                    at, bt, tail) != 3)
    return false;
  char canon[96];
  snprintf(canon, sizeof canon, "mma.sync.aligned.m16n8k%d.row.col.f32.%s.%s.f32", k, at, bt);
  if (strcmp(canon, op) != 0) return false;
  out->k = k;
  out->ta = elem_format(at, k);
  out->tb = elem_format(bt, k);
  if (!out->ta || !out->tb) return false;
  if (k == 16 && out->ta != out->tb) return false;
  return true;
}

/* Element i of a lane's fragment registers: 16-bit halves or bytes, lowest
 * first. */
static uint32_t element(const uint32_t *regs, int i, int k) {
  if (k == 16) return (regs[i / 2] >> (16 * (i % 2))) & 0xffffu;
  return (regs[i / 4] >> (8 * (i % 4))) & 0xffu;
}

static void exec_mma(const char *opcode, void *const lane_args[SIM_LANES]) {
  mma_shape s;
  if (!parse_opcode(opcode, &s)) {
    tcmma__sim_fail("unknown mma opcode '%s': expected mma.sync.aligned.m16n8k16.row.col.f32."
                    "{f16.f16,bf16.bf16}.f32 or mma.sync.aligned.m16n8k32.row.col.f32."
                    "{e4m3,e5m2}.{e4m3,e5m2}.f32",
                    opcode);
    return;
  }
  double A[16][32], B[32][8], C[16][8];
  int per = s.k == 16 ? 8 : 16; /* A elements per lane; B has half as many */
  for (int lane = 0; lane < SIM_LANES; lane++) {
    const mma_args *x = lane_args[lane];
    int g = lane >> 2, q = lane & 3;
    for (int i = 0; i < per; i++) {
      int row, col;
      if (s.k == 16) {
        row = (i == 0 || i == 1 || i == 4 || i == 5) ? g : g + 8;
        col = 2 * q + (i & 1) + 8 * (i >= 4);
      } else {
        row = (i < 4 || (i >= 8 && i < 12)) ? g : g + 8;
        col = 4 * q + (i & 3) + 16 * (i >= 8);
      }
      A[row][col] = tcmma__sim_decode(s.ta, element(x->a, i, s.k));
    }
    for (int i = 0; i < per / 2; i++) {
      int kk = s.k == 16 ? 2 * q + (i & 1) + 8 * (i >= 2) : 4 * q + (i & 3) + 16 * (i >= 4);
      B[kk][g] = tcmma__sim_decode(s.tb, element(x->b, i, s.k));
    }
    for (int i = 0; i < 4; i++) C[g + 8 * (i >= 2)][2 * q + (i & 1)] = x->c[i];
  }
  float D[16][8];
  for (int r = 0; r < 16; r++)
    for (int c = 0; c < 8; c++) {
      double sum = C[r][c];
      for (int kk = 0; kk < s.k; kk++) sum += A[r][kk] * B[kk][c];
      D[r][c] = (float)sum;
    }
  for (int lane = 0; lane < SIM_LANES; lane++) {
    const mma_args *x = lane_args[lane];
    int g = lane >> 2, q = lane & 3;
    for (int i = 0; i < 4; i++) x->d[i] = D[g + 8 * (i >= 2)][2 * q + (i & 1)];
  }
}

void tcmma_sim_mma(const char *opcode, float *d, const uint32_t *a, const uint32_t *b,
                   const float *c) {
  mma_args args = {d, a, b, c};
  tcmma__sim_collective(opcode, exec_mma, &args);
}
