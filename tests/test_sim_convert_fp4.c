/* The simulator's fp4 (e2m1), fp6 (e2m3, e3m2) and ue4m3 codecs: hand
 * values from the OCP MX v1.0 tables and the PTX ISA, every bit pattern
 * against the formats' defining formula, and round-to-nearest-even at every
 * midpoint between neighbours. None of these formats has Inf; only ue4m3
 * has a NaN (0x7f); conversions saturate. */
#include "util.h"
#include <float.h>
#include <math.h>
#include "tcmma/sim.h"

typedef struct {
  const char *name;
  int exp, man, bias;
  bool is_unsigned;
  uint8_t (*enc)(float);
  float (*dec)(uint8_t);
  uint8_t max_bits; /* largest finite pattern */
  double max;       /* its value */
} fmt;

static const fmt fmts[] = {
    {"e2m1", 2, 1, 1, false, tcmma_sim_float_to_e2m1, tcmma_sim_e2m1_to_float, 0x07, 6.0},
    {"e2m3", 2, 3, 1, false, tcmma_sim_float_to_e2m3, tcmma_sim_e2m3_to_float, 0x1f, 7.5},
    {"e3m2", 3, 2, 3, false, tcmma_sim_float_to_e3m2, tcmma_sim_e3m2_to_float, 0x1f, 28.0},
    {"ue4m3", 4, 3, 7, true, tcmma_sim_float_to_ue4m3, tcmma_sim_ue4m3_to_float, 0x7e, 448.0},
};
#define NFMTS (int)(sizeof fmts / sizeof fmts[0])

static int width(const fmt *f) { return f->exp + f->man + (f->is_unsigned ? 0 : 1); }

/* The value a pattern stands for, from the OCP definition: a subnormal when
 * the exponent field is 0, else an implicit leading one. */
static double defined_value(const fmt *f, unsigned p) {
  unsigned man = p & ((1u << f->man) - 1), ex = (p >> f->man) & ((1u << f->exp) - 1);
  double mag = ex ? ldexp(1.0 + ldexp(man, -f->man), (int)ex - f->bias)
                  : ldexp(man, 1 - f->bias - f->man);
  return !f->is_unsigned && (p >> (f->exp + f->man)) ? -mag : mag;
}

static void e2m1_table(void **state) {
  (void)state;
  /* OCP MX v1.0: the eight magnitudes of FP4 E2M1 */
  static const float mags[8] = {0, 0.5f, 1, 1.5f, 2, 3, 4, 6};
  for (unsigned p = 0; p < 16; p++) {
    float v = tcmma_sim_e2m1_to_float((uint8_t)p);
    assert_true(fabsf(v) == mags[p & 7]);
    assert_int_equal(signbit(v) != 0, p >> 3);
  }
  assert_true(tcmma_sim_e2m1_to_float(0xf2) == 1.0f); /* the high 4 bits are ignored */
}

static void hand_values(void **state) {
  (void)state;
  assert_int_equal(tcmma_sim_float_to_e2m1(1.0f), 0x2);
  assert_int_equal(tcmma_sim_float_to_e2m1(-6.0f), 0xf);
  assert_int_equal(tcmma_sim_float_to_e2m1(5.0f), 0x6);   /* tie 4|6: even (4) */
  assert_int_equal(tcmma_sim_float_to_e2m1(2.5f), 0x4);   /* tie 2|3: even (2) */
  assert_int_equal(tcmma_sim_float_to_e2m1(3.5f), 0x6);   /* tie 3|4: even (4) */
  assert_int_equal(tcmma_sim_float_to_e2m1(0.25f), 0x0);  /* tie 0|0.5: even (0) */
  assert_int_equal(tcmma_sim_float_to_e2m1(0.75f), 0x2);  /* tie 0.5|1: even (1) */
  assert_int_equal(tcmma_sim_float_to_e2m1(7.0f), 0x7);   /* saturates */
  assert_int_equal(tcmma_sim_float_to_e2m1(1e30f), 0x7);
  assert_int_equal(tcmma_sim_float_to_e2m1(INFINITY), 0x7);
  assert_int_equal(tcmma_sim_float_to_e2m1(-INFINITY), 0xf);
  assert_int_equal(tcmma_sim_float_to_e2m1(NAN), 0x7);    /* no NaN: +max, as CUDA */
  assert_int_equal(tcmma_sim_float_to_e2m1(-0.0f), 0x8);
  assert_int_equal(tcmma_sim_float_to_e2m3(1.0f), 0x08);
  assert_int_equal(tcmma_sim_float_to_e2m3(7.5f), 0x1f);
  assert_int_equal(tcmma_sim_float_to_e2m3(7.75f), 0x1f); /* tie rounds to 8: saturates */
  assert_int_equal(tcmma_sim_float_to_e2m3(-7.5f), 0x3f);
  assert_int_equal(tcmma_sim_float_to_e2m3(0.125f), 0x01); /* smallest subnormal */
  assert_int_equal(tcmma_sim_float_to_e2m3(0.0625f), 0x00); /* tie: even (0) */
  assert_int_equal(tcmma_sim_float_to_e2m3(0.1875f), 0x02);
  assert_int_equal(tcmma_sim_float_to_e2m3(1.0625f), 0x08); /* tie 1|1.125: even */
  assert_int_equal(tcmma_sim_float_to_e2m3(NAN), 0x1f);
  assert_int_equal(tcmma_sim_float_to_e3m2(1.0f), 0x0c);
  assert_int_equal(tcmma_sim_float_to_e3m2(28.0f), 0x1f);
  assert_int_equal(tcmma_sim_float_to_e3m2(26.0f), 0x1e);  /* tie 24|28: even (24) */
  assert_int_equal(tcmma_sim_float_to_e3m2(30.0f), 0x1f);  /* tie rounds to 32: saturates */
  assert_int_equal(tcmma_sim_float_to_e3m2(-INFINITY), 0x3f);
  assert_int_equal(tcmma_sim_float_to_e3m2(0.0625f), 0x01); /* smallest subnormal */
  assert_int_equal(tcmma_sim_float_to_e3m2(0.25f), 0x04);   /* smallest normal */
  assert_int_equal(tcmma_sim_float_to_ue4m3(1.0f), 0x38);
  assert_int_equal(tcmma_sim_float_to_ue4m3(448.0f), 0x7e);
  assert_int_equal(tcmma_sim_float_to_ue4m3(500.0f), 0x7e);
  assert_int_equal(tcmma_sim_float_to_ue4m3(INFINITY), 0x7e);
  assert_int_equal(tcmma_sim_float_to_ue4m3(NAN), 0x7f);
  assert_int_equal(tcmma_sim_float_to_ue4m3(-1.0f), 0x00); /* no sign: 0 is nearest */
  assert_int_equal(tcmma_sim_float_to_ue4m3(ldexpf(1, -9)), 0x01);
  assert_true(isnan(tcmma_sim_ue4m3_to_float(0x7f)));
  assert_true(tcmma_sim_ue4m3_to_float(0xb8) == 1.0f); /* the top bit is ignored */
  assert_true(tcmma_sim_e3m2_to_float(0x01) == 0.0625f);
  assert_true(tcmma_sim_e2m3_to_float(0x3f) == -7.5f);
}

/* Every pattern decodes to its defined value and encodes back to itself;
 * a format without NaN has every pattern finite. */
static void every_pattern_round_trips(void **state) {
  (void)state;
  for (int i = 0; i < NFMTS; i++) {
    const fmt *f = &fmts[i];
    for (unsigned p = 0; p < (1u << width(f)); p++) {
      float v = f->dec((uint8_t)p);
      if (f->is_unsigned && p == 0x7f) {
        assert_true(isnan(v));
        assert_int_equal(f->enc(v), 0x7f);
        continue;
      }
      if (!((double)v == defined_value(f, p))) fail_msg("%s 0x%02x: %g", f->name, p, v);
      assert_int_equal(f->enc(v), p);
    }
    assert_true(f->dec(f->max_bits) == f->max);
    assert_int_equal(f->enc(FLT_MAX), f->max_bits);
  }
}

/* Between every two neighbouring non-negative values: the midpoint goes to
 * the even pattern, the floats either side of it to the nearer neighbour;
 * past the largest finite, to it. Signed formats mirror at the sign bit. */
static void round_to_nearest_even(void **state) {
  (void)state;
  for (int i = 0; i < NFMTS; i++) {
    const fmt *f = &fmts[i];
    for (unsigned p = 0; p < f->max_bits; p++) {
      double lo = f->dec((uint8_t)p), hi = f->dec((uint8_t)(p + 1));
      float mid = (float)((lo + hi) / 2);
      assert_true((double)mid == (lo + hi) / 2);
      assert_int_equal(f->enc(mid), p % 2 ? p + 1 : p);
      assert_int_equal(f->enc(nextafterf(mid, 0)), p);
      assert_int_equal(f->enc(nextafterf(mid, INFINITY)), p + 1);
    }
    assert_int_equal(f->enc((float)(f->max * 1.5)), f->max_bits);
    unsigned sign = f->is_unsigned ? 0 : 1u << (width(f) - 1);
    for (float x = 0.01f; x < 400 && sign; x *= 1.37f)
      assert_int_equal(f->enc(-x), f->enc(x) | sign);
  }
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(e2m1_table),
      cmocka_unit_test(hand_values),
      cmocka_unit_test(every_pattern_round_trips),
      cmocka_unit_test(round_to_nearest_even),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
