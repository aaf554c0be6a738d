/* The wgmma cases' data, reference, comparison and kernel (tools/verify/
 * wgmma.h). The operands are stored as the project's swizzle places them
 * (tcmma_swizzle_offset), the accumulators placed and read through
 * tcmma_wgmma_acc_layout and a register A through tcmma_wgmma_a_layout:
 * the simulator decodes descriptors, swizzles by address bits and lays out
 * fragments on its own (mma/sim/wgmma.c), and a device by its hardware, so
 * a case passes only where those agree with tcmma's facts. Values are
 * integers small enough that every sum is exact (integer rows: the whole
 * range, with s32 overflow), so D must match bit for bit. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "tcmma/sim.h"
#include "tools/verify/wgmma.h"

#define THREADS VERIFY_WGMMA_THREADS

static int next(unsigned *rng, int lo, int hi) {
  *rng = *rng * 1103515245u + 12345u;
  return lo + (int)((*rng >> 8) % (unsigned)(hi - lo + 1));
}

/* The storage bits of v in p (exact for the values drawn). */
static uint32_t encode(tcmma_prec p, double v) {
  float f = (float)v;
  uint32_t u;
  switch (p) {
  case TCMMA_PREC_F16: return tcmma_sim_float2half_rn(f).bits;
  case TCMMA_PREC_BF16: return tcmma_sim_float2bfloat16_rn(f).bits;
  case TCMMA_PREC_E4M3: return tcmma_sim_float_to_e4m3(f);
  case TCMMA_PREC_E5M2: return tcmma_sim_float_to_e5m2(f);
  case TCMMA_PREC_S8: case TCMMA_PREC_U8: return (uint32_t)(int)v & 0xffu;
  default: memcpy(&u, &f, sizeof u); return u;
  }
}

static double value_in(tcmma_prec p, unsigned *rng) {
  if (p == TCMMA_PREC_S8) return next(rng, -128, 127);
  if (p == TCMMA_PREC_U8) return next(rng, 0, 255);
  return next(rng, -3, 3);
}

static void put_bytes(unsigned char *dst, uint32_t bits, int eb) {
  for (int b = 0; b < eb; b++) dst[b] = (unsigned char)(bits >> (8 * b));
}

/* Element (i along m or n, j along k) of an operand stored K-major (row i)
 * or M/N-major (row j). */
static long stored_at(const verify_wgmma_case *c, bool mn_major, int i, int j, int eb) {
  long r = mn_major ? j : i, col = (long)(mn_major ? i : j) * eb;
  return tcmma_swizzle_offset(c->sw, r, col, c->ld * eb);
}

static double acc_value(bool ints, unsigned *rng) {
  if (!ints) return next(rng, -8, 8);
  if (next(rng, 0, 3)) return next(rng, -1000000, 1000000);
  return next(rng, 0, 1) ? 2147483647.0 - next(rng, 0, 99999) : -2147483648.0 + next(rng, 0, 99999);
}

static void fill_operands(verify_wgmma_data *x, unsigned *rng) {
  const verify_wgmma_case *c = &x->c;
  for (int i = 0; i < 64; i++)
    for (int j = 0; j < c->k; j++) {
      double v = value_in(c->a, rng);
      x->A[i * c->k + j] = v;
      if (!c->a_regs)
        put_bytes(x->ga + stored_at(c, c->a_m_major, i, j, x->eb_a), encode(c->a, v), x->eb_a);
    }
  for (int i = 0; i < c->n; i++)
    for (int j = 0; j < c->k; j++) {
      double v = value_in(c->b, rng);
      x->B[j * c->n + i] = v;
      put_bytes(x->gb + stored_at(c, c->b_n_major, i, j, x->eb_b), encode(c->b, v), x->eb_b);
    }
}

/* The threads' accumulators and register A from the logical matrices. */
static void scatter(verify_wgmma_data *x) {
  const verify_wgmma_case *c = &x->c;
  bool ints = x->info->acc == TCMMA_PREC_S32;
  int per = tcmma_wgmma_acc_elems_per_reg(c->arm);
  for (int t = 0; t < THREADS; t++)
    for (int r = 0; r < x->regs; r++)
      for (int e = 0; e < per; e++) {
        int row = 0, col = 0;
        tcmma_wgmma_acc_layout(c->arm, c->n, t, r, e, &row, &col, NULL);
        double v = x->C[row * c->n + col];
        uint32_t bits = per == 2 ? encode(TCMMA_PREC_F16, v) << (16 * e)
                        : ints   ? (uint32_t)(int32_t)v
                                 : encode(TCMMA_PREC_F32, v);
        x->c0[t * x->regs + r] |= bits;
      }
  if (!c->a_regs) return;
  int pa = tcmma_wgmma_a_elems_per_reg(c->arm), bits = 32 / pa;
  for (int t = 0; t < THREADS; t++)
    for (int s = 0; s < x->steps; s++)
      for (int r = 0; r < TCMMA_WGMMA_A_REGS; r++)
        for (int e = 0; e < pa; e++) {
          int row = 0, col = 0;
          tcmma_wgmma_a_layout(c->arm, t, r, e, &row, &col, NULL);
          uint32_t v = encode(c->a, x->A[row * c->k + s * x->info->k + col]);
          if (bits < 32) v &= (1u << bits) - 1;
          x->ra[(t * x->steps + s) * 4 + r] |= v << (bits * e);
        }
}

bool verify_wgmma_data_init(verify_wgmma_data *x, const verify_wgmma_case *c, unsigned seed) {
  memset(x, 0, sizeof *x);
  x->c = *c;
  x->info = tcmma_wgmma_get(c->arm);
  if (!x->info) return false;
  x->regs = tcmma_wgmma_acc_regs(c->arm, c->n);
  x->steps = c->k / x->info->k;
  x->eb_a = tcmma_prec_bits(c->a) / 8, x->eb_b = tcmma_prec_bits(c->b) / 8;
  x->a_bytes = c->a_regs ? 0 : (c->a_m_major ? c->k : 64) * c->ld * x->eb_a;
  x->b_bytes = (c->b_n_major ? c->k : c->n) * c->ld * x->eb_b;
  x->b_at = (x->a_bytes + 1023) / 1024 * 1024; /* B's parent on a 1024-byte boundary */
  x->A = calloc(64 * (size_t)c->k, sizeof *x->A);
  x->B = calloc((size_t)c->k * (size_t)c->n, sizeof *x->B);
  x->C = calloc(64 * (size_t)c->n, sizeof *x->C);
  x->ga = calloc((size_t)x->a_bytes + 1, 1), x->gb = calloc((size_t)x->b_bytes, 1);
  x->c0 = calloc((size_t)THREADS * (size_t)x->regs, 4);
  x->d = calloc((size_t)THREADS * (size_t)x->regs + 1, 4);
  x->ra = calloc((size_t)THREADS * (size_t)x->steps * 4 + 1, 4);
  if (!x->A || !x->B || !x->C || !x->ga || !x->gb || !x->c0 || !x->d || !x->ra) {
    verify_wgmma_data_free(x);
    return false;
  }
  unsigned rng = seed;
  fill_operands(x, &rng);
  for (int i = 0; i < 64 * c->n; i++) x->C[i] = acc_value(x->info->acc == TCMMA_PREC_S32, &rng);
  scatter(x);
  x->d[THREADS * x->regs] = TCMMA_SIM_WGMMA_POISON; /* the canary */
  return true;
}

void verify_wgmma_data_free(verify_wgmma_data *x) {
  free(x->A), free(x->B), free(x->C), free(x->ga), free(x->gb), free(x->c0), free(x->d), free(x->ra);
  memset(x, 0, sizeof *x);
}

uint32_t verify_wgmma_reference(const verify_wgmma_data *x, int row, int col) {
  const verify_wgmma_case *c = &x->c;
  double acc = x->C[row * c->n + col];
  for (int s = 0; s < x->steps; s++) {
    double sum = acc;
    for (int j = s * x->info->k; j < (s + 1) * x->info->k; j++)
      sum += x->A[row * c->k + j] * x->B[j * c->n + col];
    if (x->info->acc == TCMMA_PREC_F16)
      acc = tcmma_sim_half2float(tcmma_sim_float2half_rn((float)sum));
    else if (x->info->acc == TCMMA_PREC_F32) acc = (float)sum;
    else if (strstr(x->info->instr, ".satfinite")) acc = fmax(-2147483648.0, fmin(2147483647.0, sum));
    else acc = (double)(int32_t)(uint32_t)(int64_t)sum;
  }
  return x->info->acc == TCMMA_PREC_S32   ? (uint32_t)(int32_t)acc
         : x->info->acc == TCMMA_PREC_F16 ? encode(TCMMA_PREC_F16, acc)
                                          : encode(TCMMA_PREC_F32, acc);
}

bool verify_wgmma_compare(const verify_wgmma_data *x, char *why, size_t cap) {
  const verify_wgmma_case *c = &x->c;
  int per = tcmma_wgmma_acc_elems_per_reg(c->arm), bad = 0;
  char first[160] = "";
  for (int t = 0; t < THREADS; t++)
    for (int r = 0; r < x->regs; r++)
      for (int e = 0; e < per; e++) {
        int row = 0, col = 0;
        tcmma_wgmma_acc_layout(c->arm, c->n, t, r, e, &row, &col, NULL);
        uint32_t got = x->d[t * x->regs + r], want = verify_wgmma_reference(x, row, col);
        if (per == 2) got = got >> (16 * e) & 0xffffu;
        if (got != want && !bad++)
          snprintf(first, sizeof first, "D[%d][%d] (thread %d, register %d) = 0x%08x, expected "
                   "0x%08x", row, col, t, r, got, want);
      }
  if (bad) return snprintf(why, cap, "%d accumulator elements differ; first %s", bad, first), false;
  if (x->d[THREADS * x->regs] != TCMMA_SIM_WGMMA_POISON)
    return snprintf(why, cap, "the kernel wrote past its accumulators"), false;
  return true;
}
