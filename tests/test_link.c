/* A static program that calls only tcmma_arch_decide or tcmma_resolve links
 * none of NVRTC, the driver API or the cache (tests/link-test.sh). */
#include <stdio.h>
#include <stdlib.h>
#include "util.h"

static void pure_stages_link_alone(void **state) {
  (void)state;
  char cmd[4200];
  snprintf(cmd, sizeof cmd, "sh '%s' 2>&1", src_path("tests/link-test.sh"));
  FILE *p = popen(cmd, "r");
  assert_non_null(p);
  char line[4096];
  while (fgets(line, sizeof line, p)) fputs(line, stdout);
  assert_int_equal(pclose(p), 0);
}

int main(void) {
  const struct CMUnitTest tests[] = {cmocka_unit_test(pure_stages_link_alone)};
  return cmocka_run_group_tests(tests, NULL, NULL);
}
