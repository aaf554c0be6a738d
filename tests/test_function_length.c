/* Functions a reader can follow: no library or tools function over 80 lines
 * (tests/function-length.sh), and the check itself fails on one of 81. */
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>
#include "util.h"

static void library_functions_fit(void **state) {
  (void)state;
  assert_int_equal(run_script("tests/function-length.sh"), 0);
}

/* Writes a C file of one function whose definition spans lines lines (its
 * signature, lines - 2 statements, its closing brace) and runs the check on it. */
static int check_function_of(int lines) {
  char path[] = "/tmp/tcmma-fnlen-XXXXXX";
  int fd = mkstemp(path);
  if (fd < 0) return -1;
  FILE *f = fdopen(fd, "w");
  fprintf(f, "static int f(int x) {\n");
  for (int i = 0; i < lines - 2; i++) fprintf(f, "  x += %d;\n", i);
  fprintf(f, "}\n");
  fclose(f);
  char cmd[4400];
  snprintf(cmd, sizeof cmd, "sh '%s' '%s' >/dev/null 2>&1", src_path("tests/function-length.sh"),
           path);
  int rc = system(cmd);
  unlink(path);
  return rc;
}

static void the_check_fails_past_80_lines(void **state) {
  (void)state;
  assert_int_equal(check_function_of(80), 0);
  assert_int_not_equal(check_function_of(81), 0);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(library_functions_fit),
      cmocka_unit_test(the_check_fails_past_80_lines),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
