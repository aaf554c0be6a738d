/* The README is the front door: its arm table must stay the output of
 * `tcmma arms`, and its C example must build against the library and do
 * what the README says it prints. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
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

/* The first C block of "Emitting and compiling a tile-MMA", compiled with the
 * flags the library was built with and run: it plans, renders, compiles. */
static void readme_example_builds_and_runs(void **state) {
  (void)state;
  char *readme = read_file(src_path("README.md"), NULL);
  assert_non_null(readme);
  const char *sec = strstr(readme, "## Emitting and compiling a tile-MMA");
  assert_non_null(sec);
  char dir[64], path[256], cmd[1024];
  char *exe = doc_example_build("README.md", "## Emitting and compiling a tile-MMA", dir,
                                sizeof dir);
  if (!exe) fail_msg("the README example does not build");
  snprintf(cmd, sizeof cmd, "%s > %s/out.txt 2>&1", exe, dir);
  int rc = system(cmd);
  snprintf(path, sizeof path, "%s/out.txt", dir);
  char *out = read_file(path, NULL);
  if (rc != 0) fail_msg("README example failed (%d): %s\n%s", rc, cmd, out ? out : "");
  assert_non_null(out);
  if (!strstr(out, "mma-f16: compiled, ") || !strstr(out, "cubin at sm_80"))
    fail_msg("README example printed: %s", out);
  /* the README quotes this output */
  assert_non_null(strstr(sec, "`mma-f16: compiled, ...-byte cubin at sm_80`"));
  free(out);
  free(readme);
  free(exe);
  doc_example_remove(dir);
}

int main(void) {
  const struct CMUnitTest tests[] = {cmocka_unit_test(readme_carries_the_current_arm_table),
                                     cmocka_unit_test(readme_example_builds_and_runs)};
  return cmocka_run_group_tests(tests, NULL, NULL);
}
