/* The simulator's conversions against hand-derived values, against the
 * formats' defining formulas over every f16, bf16 and fp8 bit pattern, and
 * against round-to-nearest-even at every midpoint between neighbours. */
#include "util.h"
#include <float.h>
#include <math.h>
#include <string.h>
#include "tcmma/sim.h"

static float from_bits(uint32_t u) {
  float f;
  memcpy(&f, &u, 4);
  return f;
}

static uint32_t bits_of(float f) {
  uint32_t u;
  memcpy(&u, &f, 4);
  return u;
}

static uint16_t f16(float f) { return tcmma_sim_float2half_rn(f).bits; }
static uint16_t bf16(float f) { return tcmma_sim_float2bfloat16_rn(f).bits; }

static void f16_hand_values(void **state) {
  (void)state;
  assert_int_equal(f16(1.0f), 0x3c00);
  assert_int_equal(f16(-2.0f), 0xc000);
  assert_int_equal(f16(-0.0f), 0x8000);
  assert_int_equal(f16(65504.0f), 0x7bff);           /* largest finite */
  assert_int_equal(f16(65519.0f), 0x7bff);           /* below the midpoint to 2^16 */
  assert_int_equal(f16(65520.0f), 0x7c00);           /* the midpoint: ties to even = Inf */
  assert_int_equal(f16(INFINITY), 0x7c00);
  assert_int_equal(f16(-INFINITY), 0xfc00);
  assert_int_equal(f16(NAN), 0x7fff);
  assert_int_equal(f16(ldexpf(1, -24)), 0x0001);     /* smallest subnormal */
  assert_int_equal(f16(ldexpf(1, -25)), 0x0000);     /* half of it: ties to even (0) */
  assert_int_equal(f16(ldexpf(3, -25)), 0x0002);     /* 1.5 ulps: ties to even (2) */
  assert_int_equal(f16(ldexpf(1, -14)), 0x0400);     /* smallest normal */
  assert_int_equal(f16(1.0f + ldexpf(1, -11)), 0x3c00);     /* tie, even stays */
  assert_int_equal(f16(1.0f + ldexpf(3, -11)), 0x3c02);     /* tie, odd rounds up */
  assert_int_equal(f16(1.0f + ldexpf(1, -11) + ldexpf(1, -20)), 0x3c01);
  assert_true(tcmma_sim_half2float((tcmma_sim_half){0x3555}) == 0x155p-12f + 0.25f);
  assert_true(tcmma_sim_half2float((tcmma_sim_half){0x0001}) == ldexpf(1, -24));
  assert_true(isinf(tcmma_sim_half2float((tcmma_sim_half){0xfc00})));
  assert_true(isnan(tcmma_sim_half2float((tcmma_sim_half){0x7c01})));
}

static void bf16_hand_values(void **state) {
  (void)state;
  assert_int_equal(bf16(1.0f), 0x3f80);
  assert_int_equal(bf16(-1.0f), 0xbf80);
  assert_int_equal(bf16(1.0f + ldexpf(1, -8)), 0x3f80);     /* tie, even stays */
  assert_int_equal(bf16(1.0f + ldexpf(3, -8)), 0x3f82);     /* tie, odd rounds up */
  assert_int_equal(bf16(FLT_MAX), 0x7f80);                   /* rounds past the top: Inf */
  assert_int_equal(bf16(from_bits(0x7f7f0000)), 0x7f7f);     /* largest finite bf16 */
  assert_int_equal(bf16(ldexpf(1, -133)), 0x0001);           /* smallest subnormal */
  assert_int_equal(bf16(ldexpf(1, -134)), 0x0000);           /* half of it: ties to even */
  assert_int_equal(bf16(from_bits(0x00000001)), 0x0000);     /* float's tiniest */
  assert_int_equal(bf16(INFINITY), 0x7f80);
  assert_int_equal(bf16(NAN), 0x7fff);
  assert_int_equal(bf16(from_bits(0x7f800001)), 0x7fff);     /* NaN with a low payload */
  assert_true(tcmma_sim_bfloat162float((tcmma_sim_bfloat16){0x4049}) == 3.140625f);
}

/* Pairs (CUDA's float2, __half2, __nv_bfloat162): x is the first argument
 * and the lower address, each half rounded to nearest even on its own; the
 * types are as large and as aligned as two elements. */
static void pair_hand_values(void **state) {
  (void)state;
  assert_int_equal(sizeof(tcmma_sim_float2), 8), assert_int_equal(_Alignof(tcmma_sim_float2), 8);
  assert_int_equal(sizeof(tcmma_sim_half2), 4), assert_int_equal(_Alignof(tcmma_sim_half2), 4);
  assert_int_equal(sizeof(tcmma_sim_bfloat162), 4);
  assert_int_equal(_Alignof(tcmma_sim_bfloat162), 4);
  tcmma_sim_float2 f = tcmma_sim_make_float2(1.5f, -3.0f);
  float mem[2];
  memcpy(mem, &f, sizeof mem);
  assert_true(mem[0] == 1.5f && mem[1] == -3.0f);
  /* 1 + 2^-11 is the midpoint of 1 and 1 + 2^-10: ties to the even 1.0 */
  tcmma_sim_half2 h = tcmma_sim_floats2half2_rn(1.0f + 0x1p-11f, -2.0f);
  uint16_t hm[2];
  memcpy(hm, &h, sizeof hm);
  assert_int_equal(hm[0], 0x3c00), assert_int_equal(hm[1], 0xc000);
  f = tcmma_sim_half22float2((tcmma_sim_half2){{0x3555}, {0x0001}});
  assert_true(f.x == 0x155p-12f + 0.25f && f.y == ldexpf(1, -24));
  /* 1 + 2^-8 is the bf16 midpoint of 1 and 1 + 2^-7: ties to 1.0 */
  tcmma_sim_bfloat162 b = tcmma_sim_floats2bfloat162_rn(-2.0f, 1.0f + 0x1p-8f);
  memcpy(hm, &b, sizeof hm);
  assert_int_equal(hm[0], 0xc000), assert_int_equal(hm[1], 0x3f80);
  f = tcmma_sim_bfloat1622float2((tcmma_sim_bfloat162){{0x4049}, {0xbf80}});
  assert_true(f.x == 3.140625f && f.y == -1.0f);
}

static void tf32_hand_values(void **state) {
  (void)state;
  /* 13 dropped bits; exactly half (0x1000) rounds away from zero. */
  assert_int_equal(bits_of(tcmma_sim_float_to_tf32(from_bits(0x3f801000))), 0x3f802000);
  assert_int_equal(bits_of(tcmma_sim_float_to_tf32(from_bits(0xbf801000))), 0xbf802000);
  assert_int_equal(bits_of(tcmma_sim_float_to_tf32(from_bits(0x3f800fff))), 0x3f800000);
  assert_int_equal(bits_of(tcmma_sim_float_to_tf32(from_bits(0x3f803000))), 0x3f804000);
  assert_int_equal(bits_of(tcmma_sim_float_to_tf32(from_bits(0x3f802fff))), 0x3f802000);
  assert_int_equal(bits_of(tcmma_sim_float_to_tf32(1.0f)), 0x3f800000);
  assert_int_equal(bits_of(tcmma_sim_float_to_tf32(from_bits(0x3fffffff))), 0x40000000);
  assert_true(isinf(tcmma_sim_float_to_tf32(FLT_MAX)));
  assert_true(isinf(tcmma_sim_float_to_tf32(-INFINITY)));
  assert_true(isnan(tcmma_sim_float_to_tf32(from_bits(0x7f800001))));
}

static void fp8_hand_values(void **state) {
  (void)state;
  /* e4m3: bias 7, no Inf, S.1111.111 NaN, max 448 = 1.75 * 2^8. */
  assert_int_equal(tcmma_sim_float_to_e4m3(1.0f), 0x38);
  assert_int_equal(tcmma_sim_float_to_e4m3(-1.0f), 0xb8);
  assert_int_equal(tcmma_sim_float_to_e4m3(448.0f), 0x7e);
  assert_int_equal(tcmma_sim_float_to_e4m3(464.0f), 0x7e);   /* midpoint to 480: even */
  assert_int_equal(tcmma_sim_float_to_e4m3(500.0f), 0x7e);   /* satfinite */
  assert_int_equal(tcmma_sim_float_to_e4m3(1e30f), 0x7e);
  assert_int_equal(tcmma_sim_float_to_e4m3(INFINITY), 0x7e);
  assert_int_equal(tcmma_sim_float_to_e4m3(-INFINITY), 0xfe);
  assert_int_equal(tcmma_sim_float_to_e4m3(NAN), 0x7f);
  assert_int_equal(tcmma_sim_float_to_e4m3(ldexpf(1, -9)), 0x01);   /* smallest subnormal */
  assert_int_equal(tcmma_sim_float_to_e4m3(ldexpf(1, -10)), 0x00);  /* tie to even */
  assert_int_equal(tcmma_sim_float_to_e4m3(ldexpf(3, -10)), 0x02);
  assert_int_equal(tcmma_sim_float_to_e4m3(1.0625f), 0x38);  /* 1 + half ulp: even */
  assert_int_equal(tcmma_sim_float_to_e4m3(1.1875f), 0x3a);  /* 1 + 1.5 ulp: even (1.25) */
  assert_int_equal(tcmma_sim_float_to_e4m3(16.0f), 0x58);
  assert_int_equal(tcmma_sim_float_to_e4m3(17.0f), 0x58);    /* tie between 16 and 18 */
  assert_true(tcmma_sim_e4m3_to_float(0x7e) == 448.0f);
  assert_true(isnan(tcmma_sim_e4m3_to_float(0x7f)));
  assert_true(isnan(tcmma_sim_e4m3_to_float(0xff)));
  assert_true(tcmma_sim_e4m3_to_float(0x78) == 256.0f);      /* top binade is finite */
  /* e5m2: bias 15, IEEE-like, max 57344 = 1.75 * 2^15. */
  assert_int_equal(tcmma_sim_float_to_e5m2(1.0f), 0x3c);
  assert_int_equal(tcmma_sim_float_to_e5m2(57344.0f), 0x7b);
  assert_int_equal(tcmma_sim_float_to_e5m2(61440.0f), 0x7b);  /* satfinite, not Inf */
  assert_int_equal(tcmma_sim_float_to_e5m2(INFINITY), 0x7b);
  assert_int_equal(tcmma_sim_float_to_e5m2(-INFINITY), 0xfb);
  assert_int_equal(tcmma_sim_float_to_e5m2(NAN), 0x7f);
  assert_int_equal(tcmma_sim_float_to_e5m2(ldexpf(1, -16)), 0x01);
  assert_int_equal(tcmma_sim_float_to_e5m2(1.125f), 0x3c);   /* tie: even */
  assert_int_equal(tcmma_sim_float_to_e5m2(1.375f), 0x3e);   /* tie: up to even */
  assert_true(isinf(tcmma_sim_e5m2_to_float(0x7c)));
  assert_true(isnan(tcmma_sim_e5m2_to_float(0x7d)));
}

/* The value of bits in a format with e exponent bits, m mantissa bits and
 * bias, finite patterns only: written from the IEEE definition. */
static double formula(uint32_t bits, int e, int m, int bias) {
  uint32_t s = bits >> (e + m), ex = (bits >> m) & ((1u << e) - 1), man = bits & ((1u << m) - 1);
  double v = ex == 0 ? man * pow(2, 1 - bias - m) : (1 + man * pow(2, -m)) * pow(2, (int)ex - bias);
  return s ? -v : v;
}

static void f16_all_patterns(void **state) {
  (void)state;
  for (uint32_t p = 0; p < 65536; p++) {
    float v = tcmma_sim_half2float((tcmma_sim_half){(uint16_t)p});
    bool special = ((p >> 10) & 0x1f) == 0x1f;
    if (special && (p & 0x3ff)) {
      assert_true(isnan(v));
      assert_int_equal(f16(v), 0x7fff);
      continue;
    }
    if (special) {
      assert_true(isinf(v) && (signbit(v) != 0) == (p >> 15));
    } else {
      assert_true(v == formula(p, 5, 10, 15));
      assert_true((signbit(v) != 0) == (p >> 15));
    }
    assert_int_equal(f16(v), p);
  }
}

static void bf16_all_patterns(void **state) {
  (void)state;
  for (uint32_t p = 0; p < 65536; p++) {
    float v = tcmma_sim_bfloat162float((tcmma_sim_bfloat16){(uint16_t)p});
    float want = from_bits(p << 16); /* bf16 is the top half of a float */
    if (isnan(want)) {
      assert_true(isnan(v));
      assert_int_equal(bf16(v), 0x7fff);
      continue;
    }
    assert_int_equal(bits_of(v), p << 16);
    assert_int_equal(bf16(v), p);
  }
}

static void fp8_all_patterns(void **state) {
  (void)state;
  for (uint32_t p = 0; p < 256; p++) {
    float v4 = tcmma_sim_e4m3_to_float((uint8_t)p), v5 = tcmma_sim_e5m2_to_float((uint8_t)p);
    if ((p & 0x7f) == 0x7f) {
      assert_true(isnan(v4));
      assert_int_equal(tcmma_sim_float_to_e4m3(v4), 0x7f);
    } else {
      assert_true(v4 == formula(p, 4, 3, 7));
      assert_int_equal(tcmma_sim_float_to_e4m3(v4), p);
    }
    uint32_t ex5 = (p >> 2) & 0x1f;
    if (ex5 == 0x1f && (p & 3)) {
      assert_true(isnan(v5));
      assert_int_equal(tcmma_sim_float_to_e5m2(v5), 0x7f);
    } else if (ex5 == 0x1f) {
      assert_true(isinf(v5));
      assert_int_equal(tcmma_sim_float_to_e5m2(v5), p == 0x7c ? 0x7b : 0xfb); /* satfinite */
    } else {
      assert_true(v5 == formula(p, 5, 2, 15));
      assert_int_equal(tcmma_sim_float_to_e5m2(v5), p);
    }
  }
}

/* Round to nearest even, checked at every midpoint between two neighbouring
 * positive finite values: the midpoint goes to the even pattern, a float
 * just below it down, just above it up. decode/encode are a format's pair. */
typedef float (*decode_fn)(uint32_t);
typedef uint32_t (*encode_fn)(float);

static float dec_f16(uint32_t p) { return tcmma_sim_half2float((tcmma_sim_half){(uint16_t)p}); }
static uint32_t enc_f16(float f) { return f16(f); }
static float dec_bf16(uint32_t p) {
  return tcmma_sim_bfloat162float((tcmma_sim_bfloat16){(uint16_t)p});
}
static uint32_t enc_bf16(float f) { return bf16(f); }
static float dec_e4m3(uint32_t p) { return tcmma_sim_e4m3_to_float((uint8_t)p); }
static uint32_t enc_e4m3(float f) { return tcmma_sim_float_to_e4m3(f); }
static float dec_e5m2(uint32_t p) { return tcmma_sim_e5m2_to_float((uint8_t)p); }
static uint32_t enc_e5m2(float f) { return tcmma_sim_float_to_e5m2(f); }

static void check_midpoints(decode_fn dec, encode_fn enc, uint32_t largest_finite) {
  for (uint32_t p = 0; p < largest_finite; p++) {
    double lo = dec(p), hi = dec(p + 1);
    float mid = (float)((lo + hi) / 2); /* exact: one more bit than the format */
    assert_true((double)mid == (lo + hi) / 2);
    uint32_t even = (p % 2 == 0) ? p : p + 1;
    assert_int_equal(enc(mid), even);
    assert_int_equal(enc(nextafterf(mid, 0)), p);
    assert_int_equal(enc(nextafterf(mid, INFINITY)), p + 1);
  }
}

static void round_to_nearest_even(void **state) {
  (void)state;
  check_midpoints(dec_f16, enc_f16, 0x7bff);
  check_midpoints(dec_bf16, enc_bf16, 0x7f7f);
  check_midpoints(dec_e4m3, enc_e4m3, 0x7e);
  check_midpoints(dec_e5m2, enc_e5m2, 0x7b);
  /* Negative values mirror positive ones. */
  for (float x = 0.01f; x < 400; x *= 1.37f) {
    assert_int_equal(f16(-x), f16(x) | 0x8000);
    assert_int_equal(bf16(-x), bf16(x) | 0x8000);
    assert_int_equal(tcmma_sim_float_to_e4m3(-x), tcmma_sim_float_to_e4m3(x) | 0x80);
    assert_int_equal(tcmma_sim_float_to_e5m2(-x), tcmma_sim_float_to_e5m2(x) | 0x80);
  }
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(f16_hand_values),   cmocka_unit_test(bf16_hand_values),
      cmocka_unit_test(tf32_hand_values),  cmocka_unit_test(fp8_hand_values),
      cmocka_unit_test(pair_hand_values),
      cmocka_unit_test(f16_all_patterns),  cmocka_unit_test(bf16_all_patterns),
      cmocka_unit_test(fp8_all_patterns),  cmocka_unit_test(round_to_nearest_even),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
