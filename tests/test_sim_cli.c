/* `tcmma verify --executor sim` where it cannot run or compile: no C
 * compiler skips every accepted case (never passes it); a compile error is
 * charged to the cases whose text it names, and only to them. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>
#include "util.h"

static void no_compiler_skips(void **state) {
  (void)state;
  setenv("CC", "/nonexistent/cc", 1);
  const char *args[] = {"verify", "--executor", "sim", "--arm", "wmma-bf16", "--json", NULL};
  cli_result r = run_cli(args, NULL);
  unsetenv("CC");
  assert_int_equal(r.exit_code, 4); /* skipped: never the exit status of a pass */
  long cases = json_int_of(r.out, "cases"), skipped = json_int_of(r.out, "skipped");
  assert_true(cases > 0);
  assert_true(skipped > 0);
  assert_int_equal(json_int_of(r.out, "failed"), 0);
  /* only declined cases (no compile needed) may pass */
  assert_int_equal(json_int_of(r.out, "passed") + skipped, cases);
  assert_non_null(strstr(r.out, "no C compiler"));
  cli_result_free(&r);
}

/* Breaking the lane's g local (the PTX ISA's groupID, which only inline-PTX
 * gathers read) breaks every inline-PTX kernel's text but no wmma kernel's. */
static void compile_errors_charged_per_case(void **state) {
  (void)state;
  setenv("TCMMA_SIM_CFLAGS", "-D__tcmma_0_g=1", 1);
  const char *ptx[] = {"verify", "--executor", "sim", "--arm", "mma-bf16", "--case", "16x8x16",
                       "--json", NULL};
  cli_result r = run_cli(ptx, NULL);
  assert_int_equal(r.exit_code, 1);
  long failed = json_int_of(r.out, "failed");
  assert_true(failed > 0);
  assert_int_equal(json_int_of(r.out, "passed") + failed, json_int_of(r.out, "cases"));
  assert_non_null(strstr(r.out, "host-dialect text does not compile"));
  cli_result_free(&r);

  const char *wmma[] = {"verify", "--executor", "sim", "--arm", "wmma-tf32", "--json", NULL};
  r = run_cli(wmma, NULL);
  unsetenv("TCMMA_SIM_CFLAGS");
  assert_int_equal(r.exit_code, 0);
  assert_int_equal(json_int_of(r.out, "failed"), 0);
  assert_int_equal(json_int_of(r.out, "passed"), json_int_of(r.out, "cases"));
  cli_result_free(&r);
}

/* The module is compiled without a shell: a TMPDIR holding quotes and
 * command substitutions is a directory name, nothing more. */
static void tmpdir_is_no_shell_text(void **state) {
  (void)state;
  char base[] = "/tmp/tcmma-tmpdir-XXXXXX";
  assert_non_null(mkdtemp(base));
  char tmp[512], pwned[128], cmd[1200];
  snprintf(pwned, sizeof pwned, "%s/PWNED", base);
  snprintf(tmp, sizeof tmp, "%s/q'$(touch %s)'`touch %s`\"$(touch %s)\"", base, pwned, pwned,
           pwned);
  pid_t pid = fork();
  if (pid == 0) {
    execlp("mkdir", "mkdir", "-p", "--", tmp, (char *)NULL);
    _exit(127);
  }
  int status;
  assert_int_equal(waitpid(pid, &status, 0), pid);
  assert_true(WIFEXITED(status) && WEXITSTATUS(status) == 0);
  setenv("TMPDIR", tmp, 1);
  const char *args[] = {"verify", "--executor", "sim", "--arm", "wmma-tf32", "--case",
                        "statement", "--json", NULL};
  cli_result r = run_cli(args, NULL);
  unsetenv("TMPDIR");
  if (r.exit_code != 0) print_message("%s\n%s\n", r.out, r.err);
  assert_int_equal(r.exit_code, 0);
  assert_true(json_int_of(r.out, "cases") > 0);
  assert_int_equal(json_int_of(r.out, "passed"), json_int_of(r.out, "cases"));
  assert_int_not_equal(access(pwned, F_OK), 0); /* no command ran */
  cli_result_free(&r);
  snprintf(cmd, sizeof cmd, "rm -rf -- '%s'", base); /* base is mkdtemp's: no quote in it */
  assert_int_equal(system(cmd), 0);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(no_compiler_skips),
      cmocka_unit_test(compile_errors_charged_per_case),
      cmocka_unit_test(tmpdir_is_no_shell_text),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
