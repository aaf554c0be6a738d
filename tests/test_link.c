/* A static program that calls only tcmma_arch_decide or tcmma_resolve links
 * none of NVRTC, the driver API or the cache (tests/link-test.sh). */
#include "util.h"

static void pure_stages_link_alone(void **state) {
  (void)state;
  assert_int_equal(run_script("tests/link-test.sh"), 0);
}

int main(void) {
  const struct CMUnitTest tests[] = {cmocka_unit_test(pure_stages_link_alone)};
  return cmocka_run_group_tests(tests, NULL, NULL);
}
