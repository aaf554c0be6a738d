/* libtcmma.so, libtcmma_sim.a and the CLI export exactly the functions the
 * public headers declare, and every public enum value and struct layout
 * matches the committed baseline (tests/abi-test.sh, which first checks that
 * it fails on a library exporting one undeclared symbol, on a shifted enum
 * value and on a moved field). */
#include "util.h"
#include "tcmma/tcmma.h"

static void exports_are_the_public_headers(void **state) {
  (void)state;
  assert_int_equal(run_script("tests/abi-test.sh"), 0);
}

/* The arrays the library indexes by enum value are initialised by
 * designated index from each row's value column (mma/abi_values.c proves
 * the values are 0..COUNT-1): the row found at a value is the row of that
 * value, whatever the row order of the table. */
static void rows_sit_at_their_values(void **state) {
  (void)state;
  for (int a = 0; a < TCMMA_ARM_COUNT; a++) {
    const tcmma_arm_info *row = tcmma_arm_get((tcmma_arm)a);
    assert_non_null(row);
    assert_int_equal(row->id, a);
    tcmma_arm parsed = TCMMA_ARM_NONE;
    assert_int_equal(tcmma_arm_parse(row->marker, &parsed, NULL), TCMMA_OK);
    assert_int_equal(parsed, a);
  }
  for (int s = 0; s < TCMMA_SWIZZLE_COUNT; s++) {
    const tcmma_swizzle_info *row = tcmma_swizzle_get((tcmma_swizzle)s);
    assert_non_null(row);
    assert_int_equal(row->id, s);
  }
  for (int p = 0; p < TCMMA_PREC_COUNT; p++) {
    tcmma_prec parsed = TCMMA_PREC_COUNT;
    assert_int_equal(tcmma_prec_parse(tcmma_prec_name((tcmma_prec)p), &parsed, NULL), TCMMA_OK);
    assert_int_equal(parsed, p);
  }
  assert_non_null(tcmma_ptx_feature_get(TCMMA_PTX_FEATURE_COUNT - 1));
  assert_string_equal(tcmma_ptx_feature_get(TCMMA_PTX_F_CP_ASYNC)->id, "CP_ASYNC");
  assert_string_equal(tcmma_status_name(TCMMA_PARSE), "parse");
  assert_string_equal(tcmma_decline_name(TCMMA_DECLINE_SUBTILE), "subtile");
  assert_string_equal(tcmma_gemm_decline_name(TCMMA_GEMM_DECLINE_SHARED), "shared");
  assert_string_equal(tcmma_marker_text(TCMMA_MARKER_CP_ASYNC), "cp.async.");
}

int main(void) {
  const struct CMUnitTest tests[] = {cmocka_unit_test(exports_are_the_public_headers),
                                     cmocka_unit_test(rows_sit_at_their_values)};
  return cmocka_run_group_tests(tests, NULL, NULL);
}
