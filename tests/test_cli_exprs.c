/* tcmma emit's expression options take C expressions: one that is empty or
 * only blanks is a usage error naming it, not a silent default. */
#include "util.h"
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static void blank_lane_is_a_usage_error(void **state) {
  (void)state;
  static const char *const blank[] = {"", " ", "\t "};
  for (size_t i = 0; i < sizeof blank / sizeof blank[0]; i++) {
    const char *argv[] = {"emit", "--m", "16", "--n", "8", "--k", "16", "--d", "f32", "--a",
                          "f16", "--b", "f16", "--lane", blank[i], NULL};
    cli_result r = run_cli(argv, NULL);
    if (r.exit_code != 2 || !strstr(r.err, "--lane") || !strstr(r.err, "C expression"))
      fail_msg("--lane '%s': exit %d, stderr: %s", blank[i], r.exit_code, r.err);
    cli_result_free(&r);
  }
  /* a real expression is taken as given */
  const char *argv[] = {"emit", "--m", "16", "--n", "8", "--k", "16", "--d", "f32", "--a", "f16",
                        "--b", "f16", "--lane", "threadIdx.x & 31", NULL};
  cli_result r = run_cli(argv, NULL);
  assert_int_equal(r.exit_code, 0);
  assert_non_null(strstr(r.out, "(threadIdx.x & 31)"));
  cli_result_free(&r);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(blank_lane_is_a_usage_error),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
