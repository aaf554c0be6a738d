/* Exact conversions of the host warp simulator: f16, bf16, fp8, fp6, fp4
 * and the ue4m3 scale (one round-to-nearest-even codec, computed in double
 * where every float and every scaled significand is exact) and tf32
 * (cvt.rna). */
#include <math.h>
#include <string.h>
#include "mma/sim/internal.h"

const sim_format tcmma__sim_fmt_f16 = {5, 10, 15, true};
const sim_format tcmma__sim_fmt_bf16 = {8, 7, 127, true};
const sim_format tcmma__sim_fmt_e4m3 = {4, 3, 7, false};
const sim_format tcmma__sim_fmt_e5m2 = {5, 2, 15, true};
/* OCP MX v1.0: e2m1 max 6, e2m3 max 7.5, e3m2 max 28, none with Inf/NaN;
 * ue4m3 (NVFP4's scale) is e4m3 without its sign: max 448, 0x7f NaN. */
const sim_format tcmma__sim_fmt_e2m1 = {2, 1, 1, false, true, false};
const sim_format tcmma__sim_fmt_e2m3 = {2, 3, 1, false, true, false};
const sim_format tcmma__sim_fmt_e3m2 = {3, 2, 3, false, true, false};
const sim_format tcmma__sim_fmt_ue4m3 = {4, 3, 7, false, false, true};

static uint32_t exp_ones(const sim_format *f) { return (1u << f->exp_bits) - 1; }
static uint32_t man_ones(const sim_format *f) { return (1u << f->man_bits) - 1; }

static uint32_t max_finite_bits(const sim_format *f) {
  /* IEEE: exponent all-ones minus one, mantissa all ones; e4m3: the top
   * binade is finite except its all-ones mantissa (NaN). */
  if (f->has_inf) return ((exp_ones(f) - 1) << f->man_bits) | man_ones(f);
  if (f->finite_only) return (exp_ones(f) << f->man_bits) | man_ones(f);
  return (exp_ones(f) << f->man_bits) | (man_ones(f) - 1);
}

double tcmma__sim_decode(const sim_format *f, uint32_t bits) {
  uint32_t sign = f->unsigned_ ? 0 : (bits >> (f->exp_bits + f->man_bits)) & 1;
  uint32_t e = (bits >> f->man_bits) & exp_ones(f);
  uint32_t m = bits & man_ones(f);
  double v;
  if (f->has_inf && e == exp_ones(f))
    v = m ? NAN : INFINITY;
  else if (!f->has_inf && !f->finite_only && e == exp_ones(f) && m == man_ones(f))
    v = NAN;
  else if (e == 0)
    v = ldexp((double)m, 1 - f->bias - f->man_bits);
  else
    v = ldexp((double)(m | (1u << f->man_bits)), (int)e - f->bias - f->man_bits);
  return sign ? -v : v;
}

uint32_t tcmma__sim_encode(const sim_format *f, double x, bool satfinite) {
  uint32_t sign_bit = 1u << (f->exp_bits + f->man_bits);
  if (isnan(x)) return f->finite_only ? max_finite_bits(f) : sign_bit - 1;
  if (f->unsigned_ && signbit(x)) return 0;
  uint32_t sign = signbit(x) ? sign_bit : 0;
  double a = fabs(x);
  double max = tcmma__sim_decode(f, max_finite_bits(f));
  if (isinf(a)) return sign | (satfinite || !f->has_inf ? max_finite_bits(f) : exp_ones(f) << f->man_bits);
  if (a == 0) return sign;
  int emin = 1 - f->bias; /* exponent of the smallest normal */
  int e;
  frexp(a, &e);
  e -= 1; /* a = 1.x * 2^e */
  if (e < emin) e = emin;
  double quantum = ldexp(1.0, e - f->man_bits);
  double q = nearbyint(a / quantum); /* default rounding mode: nearest even */
  double r = q * quantum;
  if (r > max) {
    if (satfinite || !f->has_inf) return sign | max_finite_bits(f);
    return sign | (exp_ones(f) << f->man_bits);
  }
  if (r < ldexp(1.0, emin)) return sign | (uint32_t)ldexp(r, f->bias - 1 + f->man_bits);
  frexp(r, &e);
  e -= 1;
  uint32_t m = (uint32_t)(ldexp(r, f->man_bits - e)) & man_ones(f);
  return sign | ((uint32_t)(e + f->bias) << f->man_bits) | m;
}

float tcmma_sim_half2float(tcmma_sim_half h) {
  return (float)tcmma__sim_decode(&tcmma__sim_fmt_f16, h.bits);
}

tcmma_sim_half tcmma_sim_float2half_rn(float f) {
  return (tcmma_sim_half){(uint16_t)tcmma__sim_encode(&tcmma__sim_fmt_f16, f, false)};
}

float tcmma_sim_bfloat162float(tcmma_sim_bfloat16 h) {
  return (float)tcmma__sim_decode(&tcmma__sim_fmt_bf16, h.bits);
}

tcmma_sim_bfloat16 tcmma_sim_float2bfloat16_rn(float f) {
  return (tcmma_sim_bfloat16){(uint16_t)tcmma__sim_encode(&tcmma__sim_fmt_bf16, f, false)};
}

tcmma_sim_float2 tcmma_sim_make_float2(float x, float y) { return (tcmma_sim_float2){x, y}; }
tcmma_sim_int2 tcmma_sim_make_int2(int x, int y) { return (tcmma_sim_int2){x, y}; }
tcmma_sim_double2 tcmma_sim_make_double2(double x, double y) { return (tcmma_sim_double2){x, y}; }

tcmma_sim_float2 tcmma_sim_half22float2(tcmma_sim_half2 h) {
  return (tcmma_sim_float2){tcmma_sim_half2float(h.x), tcmma_sim_half2float(h.y)};
}

tcmma_sim_half2 tcmma_sim_floats2half2_rn(float x, float y) {
  return (tcmma_sim_half2){tcmma_sim_float2half_rn(x), tcmma_sim_float2half_rn(y)};
}

tcmma_sim_float2 tcmma_sim_bfloat1622float2(tcmma_sim_bfloat162 h) {
  return (tcmma_sim_float2){tcmma_sim_bfloat162float(h.x), tcmma_sim_bfloat162float(h.y)};
}

tcmma_sim_bfloat162 tcmma_sim_floats2bfloat162_rn(float x, float y) {
  return (tcmma_sim_bfloat162){tcmma_sim_float2bfloat16_rn(x), tcmma_sim_float2bfloat16_rn(y)};
}

/* cvt.rna.tf32.f32: keep 10 mantissa bits, rounding the 13 dropped bits half
 * away from zero (adding half an ulp to the magnitude carries into the
 * exponent, and past the largest finite into Inf). */
float tcmma_sim_float_to_tf32(float f) {
  uint32_t u;
  memcpy(&u, &f, sizeof u);
  if ((u & 0x7f800000u) == 0x7f800000u) {
    if (u & 0x007fffffu) u = 0x7fffffffu; /* NaN: canonical */
  } else {
    u = (u + 0x1000u) & ~0x1fffu;
  }
  memcpy(&f, &u, sizeof f);
  return f;
}

uint8_t tcmma_sim_float_to_e4m3(float f) {
  return (uint8_t)tcmma__sim_encode(&tcmma__sim_fmt_e4m3, f, true);
}
uint8_t tcmma_sim_float_to_e5m2(float f) {
  return (uint8_t)tcmma__sim_encode(&tcmma__sim_fmt_e5m2, f, true);
}
float tcmma_sim_e4m3_to_float(uint8_t v) {
  return (float)tcmma__sim_decode(&tcmma__sim_fmt_e4m3, v);
}
float tcmma_sim_e5m2_to_float(uint8_t v) {
  return (float)tcmma__sim_decode(&tcmma__sim_fmt_e5m2, v);
}

uint8_t tcmma_sim_float_to_e2m1(float f) {
  return (uint8_t)tcmma__sim_encode(&tcmma__sim_fmt_e2m1, f, true);
}
uint8_t tcmma_sim_float_to_e2m3(float f) {
  return (uint8_t)tcmma__sim_encode(&tcmma__sim_fmt_e2m3, f, true);
}
uint8_t tcmma_sim_float_to_e3m2(float f) {
  return (uint8_t)tcmma__sim_encode(&tcmma__sim_fmt_e3m2, f, true);
}
uint8_t tcmma_sim_float_to_ue4m3(float f) {
  return (uint8_t)tcmma__sim_encode(&tcmma__sim_fmt_ue4m3, f, true);
}
float tcmma_sim_e2m1_to_float(uint8_t v) {
  return (float)tcmma__sim_decode(&tcmma__sim_fmt_e2m1, v);
}
float tcmma_sim_e2m3_to_float(uint8_t v) {
  return (float)tcmma__sim_decode(&tcmma__sim_fmt_e2m3, v);
}
float tcmma_sim_e3m2_to_float(uint8_t v) {
  return (float)tcmma__sim_decode(&tcmma__sim_fmt_e3m2, v);
}
float tcmma_sim_ue4m3_to_float(uint8_t v) {
  return (float)tcmma__sim_decode(&tcmma__sim_fmt_ue4m3, v);
}

void tcmma_sim_cvt(const char *opcode, uint32_t *x) {
  if (!opcode || strcmp(opcode, "cvt.rna.tf32.f32") != 0) {
    if (tcmma__sim_current_lane() >= 0)
      tcmma__sim_fail_lane("unknown cvt opcode '%s': expected cvt.rna.tf32.f32",
                           opcode ? opcode : "(null)");
    return;
  }
  if (!x) {
    if (tcmma__sim_current_lane() >= 0)
      tcmma__sim_fail_lane("%s: lane %d's register is NULL", opcode, tcmma__sim_current_lane());
    return;
  }
  float f;
  memcpy(&f, x, sizeof f);
  f = tcmma_sim_float_to_tf32(f);
  memcpy(x, &f, sizeof f);
}

tcmma_sim_fp8_e4m3 tcmma_sim_float2fp8_e4m3(float f) {
  return (tcmma_sim_fp8_e4m3){tcmma_sim_float_to_e4m3(f)};
}

tcmma_sim_fp8_e5m2 tcmma_sim_float2fp8_e5m2(float f) {
  return (tcmma_sim_fp8_e5m2){tcmma_sim_float_to_e5m2(f)};
}

unsigned tcmma_sim_float_as_uint(float f) {
  uint32_t u;
  memcpy(&u, &f, sizeof u);
  return u;
}

/* The warps of a simulated block are threads of the host: a real atomic. */
unsigned tcmma_sim_atomic_max(unsigned *p, unsigned v) {
  unsigned old = __atomic_load_n(p, __ATOMIC_RELAXED);
  while (old < v && !__atomic_compare_exchange_n(p, &old, v, true, __ATOMIC_RELAXED,
                                                 __ATOMIC_RELAXED)) {
  }
  return old;
}
