/* `tcmma verify --executor sim` over the whole arm matrix, bit-exact. A
 * binary of its own (not a case of tests/test_verify.c) so that the test
 * runner runs it alongside the compile executor's matrix run: the two are
 * the longest runs of `make check`, and the simulator runs its cases on one
 * core. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "util.h"
#include "tools/verify/verify.h"
#include "tools/verify/wgmma.h"

/* A skipped case (no C compiler) fails this test like a failed one. */
static void sim_executor_matrix(void **state) {
  (void)state;
  const char *args[] = {"verify", "--executor", "sim", "--json", NULL};
  cli_result r = run_cli(args, NULL);
  if (!r.out) fail_msg("no output from tcmma verify");
  const verify_case *cs;
  const verify_wgmma_case *wg;
  long all = (long)verify_matrix(&cs) + (long)verify_wgmma_matrix(&wg); /* wgmma cases run too */
  long cases = json_int_of(r.out, "cases"), passed = json_int_of(r.out, "passed"),
       failed = json_int_of(r.out, "failed"), skipped = json_int_of(r.out, "skipped");
  if (cases < 0 || passed < 0 || failed < 0 || skipped < 0)
    fail_msg("summary keys missing: %s", r.out);
  assert_int_equal(passed + failed + skipped, cases);
  /* 1: a case failed; 4: none failed but some were skipped; 0: all passed */
  assert_int_equal(r.exit_code, failed ? 1 : skipped ? 4 : 0);
  assert_int_equal(cases, all);
  if (passed != cases) {
    /* the failures list, so that a failing run says which cases */
    const char *f = strstr(r.out, "\"failures\"");
    if (f) print_message("%.*s\n", 6000, f);
  }
  assert_int_equal(failed, 0);
  assert_int_equal(passed, cases);
  cli_result_free(&r);
}

int main(void) {
  /* every module really compiles: no answer from an earlier run's cache */
  setenv("TCMMA_CACHE", "0", 1);
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(sim_executor_matrix),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
