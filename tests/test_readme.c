/* The README's arm table is the output of `tcmma arms`, pasted: it must stay
 * the tool's current output. */
#include <stdlib.h>
#include <string.h>
#include "util.h"

static void readme_carries_the_current_arm_table(void **state) {
  (void)state;
  const char *argv[] = {"arms", NULL};
  cli_result r = run_cli(argv, NULL);
  assert_int_equal(r.exit_code, 0);
  assert_non_null(r.out);
  assert_true(strlen(r.out) > 0);
  char *readme = read_file(src_path("README.md"), NULL);
  assert_non_null(readme);
  if (!strstr(readme, r.out))
    fail_msg("README.md lacks the current `tcmma arms` output; paste it:\n%s", r.out);
  free(readme);
  cli_result_free(&r);
}

int main(void) {
  const struct CMUnitTest tests[] = {cmocka_unit_test(readme_carries_the_current_arm_table)};
  return cmocka_run_group_tests(tests, NULL, NULL);
}
