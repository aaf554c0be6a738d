/* `make install DESTDIR=... PREFIX=/usr` yields a tree against which C, C++
 * and simulator programs build and run (tests/install-test.sh does the work). */
#include "util.h"

static void installed_tree_builds_a_program(void **state) {
  (void)state;
  assert_int_equal(run_script("tests/install-test.sh"), 0);
}

int main(void) {
  const struct CMUnitTest tests[] = {cmocka_unit_test(installed_tree_builds_a_program)};
  return cmocka_run_group_tests(tests, NULL, NULL);
}
