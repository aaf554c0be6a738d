/* `make install DESTDIR=... PREFIX=/usr` yields a tree whose tcmma.pc builds
 * a program that resolves an arm (tests/install-test.sh does the work). */
#include <stdio.h>
#include <stdlib.h>
#include "util.h"

static void installed_tree_builds_a_program(void **state) {
  (void)state;
  char cmd[4200];
  snprintf(cmd, sizeof cmd, "sh '%s' 2>&1", src_path("tests/install-test.sh"));
  FILE *p = popen(cmd, "r");
  assert_non_null(p);
  char line[4096];
  while (fgets(line, sizeof line, p)) fputs(line, stdout);
  int rc = pclose(p);
  assert_int_equal(rc, 0);
}

int main(void) {
  const struct CMUnitTest tests[] = {cmocka_unit_test(installed_tree_builds_a_program)};
  return cmocka_run_group_tests(tests, NULL, NULL);
}
