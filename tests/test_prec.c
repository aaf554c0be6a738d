/* Storage precisions: names, widths, C/PTX spellings, bad names. Expected
 * values are written here from the PTX ISA and CUDA's headers, not read
 * from the table (docs/design.md §3). */
#include <stdio.h>
#include <string.h>
#include "util.h"
#include "tcmma/tcmma.h"
#include "tables/dialect.h"

static const struct {
  const char *name;
  int bits;
  const char *ptx; /* the type suffix mma.sync spells */
  bool integer;
  bool scaled; /* OCP MX, NVFP4: elements with block scales apart */
} want[] = {
    {"f64", 64, "f64", false, false},    {"f32", 32, "f32", false, false},
    {"f16", 16, "f16", false, false},    {"bf16", 16, "bf16", false, false},
    {"e4m3", 8, "e4m3", false, false},   {"e5m2", 8, "e5m2", false, false},
    {"mxe4m3", 8, "e4m3", false, true},  {"mxe5m2", 8, "e5m2", false, true},
    {"s8", 8, "s8", true, false},        {"u8", 8, "u8", true, false},
    {"s32", 32, "s32", true, false},
    /* fp4/fp6 one element per byte (CUDA's __nv_fp4_e2m1 is one byte) */
    {"e2m1", 8, "e2m1", false, false},   {"e2m3", 8, "e2m3", false, false},
    {"e3m2", 8, "e3m2", false, false},   {"ue4m3", 8, "ue4m3", false, false},
    {"mxf4", 8, "e2m1", false, true},    {"nvf4", 8, "e2m1", false, true},
    {"mxe2m3", 8, "e2m3", false, true},  {"mxe3m2", 8, "e3m2", false, true},
};
#define NWANT (int)(sizeof want / sizeof want[0])

static void every_name_parses_and_prints_back(void **state) {
  (void)state;
  assert_int_equal(TCMMA_PREC_COUNT, NWANT);
  for (int i = 0; i < NWANT; i++) {
    tcmma_prec p = (tcmma_prec)-1;
    tcmma_error err;
    assert_int_equal(tcmma_prec_parse(want[i].name, &p, &err), TCMMA_OK);
    assert_string_equal(tcmma_prec_name(p), want[i].name);
    assert_int_equal(tcmma_prec_bits(p), want[i].bits);
    assert_int_equal(tcmma_prec_bytes(p), want[i].bits / 8);
    assert_string_equal(tcmma_prec_ptx_type(p), want[i].ptx);
    assert_int_equal(tcmma_prec_is_integer(p), want[i].integer);
    assert_int_equal(tcmma_prec_is_scaled(p), want[i].scaled);
  }
  assert_false(tcmma_prec_is_integer(TCMMA_PREC_COUNT));
  assert_false(tcmma_prec_is_scaled(TCMMA_PREC_COUNT));
}

static void cuda_spellings(void **state) {
  (void)state;
  tcmma_prec p;
  assert_int_equal(tcmma_prec_parse("f16", &p, NULL), TCMMA_OK);
  assert_string_equal(tcmma_prec_cuda_type(p), "__half");
  assert_string_equal(tcmma_prec_to_f32(p), "__half2float");
  assert_int_equal(tcmma_prec_parse("bf16", &p, NULL), TCMMA_OK);
  assert_string_equal(tcmma_prec_cuda_type(p), "__nv_bfloat16");
  assert_string_equal(tcmma_prec_from_f32(p), "__float2bfloat16_rn");
  assert_int_equal(tcmma_prec_parse("f32", &p, NULL), TCMMA_OK);
  assert_string_equal(tcmma_prec_cuda_type(p), "float");
  assert_string_equal(tcmma_prec_to_f32(p), "");
  assert_string_equal(tcmma_prec_pair_type(p), "float2");
  assert_string_equal(tcmma_prec_pair_to_f32(p), "");
  assert_string_equal(tcmma_prec_pair_from_f32(p), "make_float2");
  assert_int_equal(tcmma_prec_parse("f16", &p, NULL), TCMMA_OK);
  assert_string_equal(tcmma_prec_pair_type(p), "__half2");
  assert_string_equal(tcmma_prec_pair_to_f32(p), "__half22float2");
  assert_string_equal(tcmma_prec_pair_from_f32(p), "__floats2half2_rn");
  assert_int_equal(tcmma_prec_parse("bf16", &p, NULL), TCMMA_OK);
  assert_string_equal(tcmma_prec_pair_type(p), "__nv_bfloat162");
  assert_string_equal(tcmma_prec_pair_to_f32(p), "__bfloat1622float2");
  assert_string_equal(tcmma_prec_pair_from_f32(p), "__floats2bfloat162_rn");
  assert_int_equal(tcmma_prec_parse("e5m2", &p, NULL), TCMMA_OK);
  assert_string_equal(tcmma_prec_cuda_type(p), "__nv_fp8_e5m2");
  assert_string_equal(tcmma_prec_pair_type(p), ""); /* no pair: element accesses */
  assert_string_equal(tcmma_prec_header(p), "cuda_fp8.h");
  assert_string_equal(tcmma_prec_header(TCMMA_PREC_F16), "cuda_fp16.h");
  /* integers: built-in C types, int2 pairs of s32 */
  assert_int_equal(tcmma_prec_parse("s8", &p, NULL), TCMMA_OK);
  assert_string_equal(tcmma_prec_cuda_type(p), "signed char");
  assert_string_equal(tcmma_prec_header(p), "");
  assert_int_equal(tcmma_prec_parse("u8", &p, NULL), TCMMA_OK);
  assert_string_equal(tcmma_prec_cuda_type(p), "unsigned char");
  assert_int_equal(tcmma_prec_parse("s32", &p, NULL), TCMMA_OK);
  assert_string_equal(tcmma_prec_cuda_type(p), "int");
  assert_string_equal(tcmma_prec_to_f32(p), "");
  assert_string_equal(tcmma_prec_pair_type(p), "int2");
  assert_string_equal(tcmma_prec_pair_from_f32(p), "make_int2");
  assert_string_equal(tcmma_prec_header(TCMMA_PREC_BF16), "cuda_bf16.h");
  assert_string_equal(tcmma_prec_header(TCMMA_PREC_F32), ""); /* built in */
  assert_string_equal(tcmma_prec_cuda_type(TCMMA_PREC_F64), "double");
  /* fp4/fp6: CUDA's one-byte types (cuda_fp4.h, cuda_fp6.h) */
  assert_string_equal(tcmma_prec_cuda_type(TCMMA_PREC_E2M1), "__nv_fp4_e2m1");
  assert_string_equal(tcmma_prec_header(TCMMA_PREC_NVF4), "cuda_fp4.h");
  assert_string_equal(tcmma_prec_cuda_type(TCMMA_PREC_MXE2M3), "__nv_fp6_e2m3");
  assert_string_equal(tcmma_prec_cuda_type(TCMMA_PREC_E3M2), "__nv_fp6_e3m2");
  assert_string_equal(tcmma_prec_header(TCMMA_PREC_E3M2), "cuda_fp6.h");
  assert_string_equal(tcmma_prec_cuda_type(TCMMA_PREC_UE4M3), "unsigned char");
}

/* The block scales' type: ue8m0 for OCP MX (mxe4m3 ... mxf4), ue4m3 for
 * NVFP4; none for unscaled storage or out of range. */
static void scale_types(void **state) {
  (void)state;
  assert_string_equal(tcmma__table_prec_scale(TCMMA_PREC_MXE4M3), "ue8m0");
  assert_string_equal(tcmma__table_prec_scale(TCMMA_PREC_MXF4), "ue8m0");
  assert_string_equal(tcmma__table_prec_scale(TCMMA_PREC_MXE3M2), "ue8m0");
  assert_string_equal(tcmma__table_prec_scale(TCMMA_PREC_NVF4), "ue4m3");
  assert_string_equal(tcmma__table_prec_scale(TCMMA_PREC_E2M1), "");
  assert_string_equal(tcmma__table_prec_scale(TCMMA_PREC_UE4M3), "");
  assert_string_equal(tcmma__table_prec_scale(TCMMA_PREC_COUNT), "");
  for (int i = 0; i < NWANT; i++) {
    tcmma_prec p;
    assert_int_equal(tcmma_prec_parse(want[i].name, &p, NULL), TCMMA_OK);
    assert_int_equal(tcmma__table_prec_scale(p)[0] != 0, want[i].scaled);
  }
}

static void bad_names_are_invalid_and_named(void **state) {
  (void)state;
  const char *bad[] = {"F32", "fp32", "", "f16 ", "float", "e4m3x", "tf32", "f8"};
  for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
    tcmma_prec p = TCMMA_PREC_F64;
    tcmma_error err;
    tcmma_error_clear(&err);
    assert_int_equal(tcmma_prec_parse(bad[i], &p, &err), TCMMA_INVALID);
    assert_int_equal(err.status, TCMMA_INVALID);
    assert_int_equal(p, TCMMA_PREC_F64); /* untouched */
    char quoted[64];
    snprintf(quoted, sizeof quoted, "'%s'", bad[i]);
    assert_non_null(strstr(err.message, quoted));
    for (int j = 0; j < NWANT; j++) assert_non_null(strstr(err.message, want[j].name));
  }
  tcmma_error err;
  assert_int_equal(tcmma_prec_parse(NULL, NULL, &err), TCMMA_INVALID);
  assert_non_null(strstr(err.message, "(null)"));
  assert_int_equal(tcmma_prec_parse("f32", NULL, NULL), TCMMA_OK); /* validate only */
}

static void out_of_range_precisions(void **state) {
  (void)state;
  tcmma_prec bad[] = {(tcmma_prec)-1, TCMMA_PREC_COUNT, (tcmma_prec)1000};
  for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
    assert_string_equal(tcmma_prec_name(bad[i]), "?");
    assert_int_equal(tcmma_prec_bits(bad[i]), 0);
    assert_int_equal(tcmma_prec_bytes(bad[i]), 0);
    assert_string_equal(tcmma_prec_cuda_type(bad[i]), "?");
    assert_string_equal(tcmma_prec_ptx_type(bad[i]), "?");
    assert_string_equal(tcmma_prec_to_f32(bad[i]), "?");
    assert_string_equal(tcmma_prec_from_f32(bad[i]), "?");
    assert_string_equal(tcmma_prec_pair_type(bad[i]), "?");
    assert_string_equal(tcmma_prec_pair_to_f32(bad[i]), "?");
    assert_string_equal(tcmma_prec_pair_from_f32(bad[i]), "?");
    assert_string_equal(tcmma_prec_header(bad[i]), "?");
  }
}

static void list_names_and_truncation(void **state) {
  (void)state;
  char buf[128];
  tcmma_prec_list(buf, sizeof buf);
  assert_string_equal(buf, "f64 f32 f16 bf16 e4m3 e5m2 mxe4m3 mxe5m2 s8 u8 s32 e2m1 e2m3 e3m2 "
                           "ue4m3 mxf4 nvf4 mxe2m3 mxe3m2");
  char tiny[6] = "xxxxx";
  tcmma_prec_list(tiny, sizeof tiny); /* stops at a whole name, stays terminated */
  assert_true(strlen(tiny) < sizeof tiny);
  tcmma_prec_list(NULL, 10);
  tcmma_prec_list(tiny, 0);
}

static void status_names(void **state) {
  (void)state;
  assert_string_equal(tcmma_status_name(TCMMA_OK), "ok");
  assert_string_equal(tcmma_status_name(TCMMA_INVALID), "invalid");
  assert_string_equal(tcmma_status_name((tcmma_status)-1), "unknown");
  assert_string_equal(tcmma_status_meaning(TCMMA_STATUS_COUNT), "unknown status");
  tcmma_error err;
  assert_int_equal(tcmma_fail(&err, TCMMA_FLOOR, "x=%d", 7), TCMMA_FLOOR);
  assert_string_equal(err.message, "x=7");
  assert_int_equal(tcmma_fail(NULL, TCMMA_IO, "ignored"), TCMMA_IO);
  tcmma_error_clear(&err);
  assert_int_equal(err.status, TCMMA_OK);
  assert_string_equal(err.message, "");
  tcmma_error_clear(NULL);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(every_name_parses_and_prints_back),
      cmocka_unit_test(cuda_spellings),
      cmocka_unit_test(scale_types),
      cmocka_unit_test(bad_names_are_invalid_and_named),
      cmocka_unit_test(out_of_range_precisions),
      cmocka_unit_test(list_names_and_truncation),
      cmocka_unit_test(status_names),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
