/* libtcmma.so, libtcmma_sim.a and the CLI export exactly the functions the
 * public headers declare (tests/abi-test.sh, which first checks that it
 * fails on a library exporting one undeclared symbol). */
#include "util.h"

static void exports_are_the_public_headers(void **state) {
  (void)state;
  assert_int_equal(run_script("tests/abi-test.sh"), 0);
}

int main(void) {
  const struct CMUnitTest tests[] = {cmocka_unit_test(exports_are_the_public_headers)};
  return cmocka_run_group_tests(tests, NULL, NULL);
}
