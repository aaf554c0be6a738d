/* A static program that calls only a pure stage links none of the stages
 * after it (tests/link-test.sh): tcmma_arch_decide none of NVRTC, the
 * driver API or the cache; tcmma_resolve and plan + render no nvrtc/ object;
 * the simulator no nvrtc/ object and no mma/ emission object. */
#include "util.h"

static void pure_stages_link_alone(void **state) {
  (void)state;
  assert_int_equal(run_script("tests/link-test.sh"), 0);
}

int main(void) {
  const struct CMUnitTest tests[] = {cmocka_unit_test(pure_stages_link_alone)};
  return cmocka_run_group_tests(tests, NULL, NULL);
}
