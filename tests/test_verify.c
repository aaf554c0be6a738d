/* `tcmma verify`: the CLI contract (JSON keys, exit codes, usage errors, a
 * skipped case never counted as passed) and the whole arm matrix run
 * through the compile executor (NVRTC + ptxas + the PTX census); the host
 * warp simulator's matrix run is tests/test_verify_sim.c, a binary of its own
 * so that the two long runs go side by side under tests/run-tests.sh. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "util.h"
#include "tools/verify/verify.h"
#include "tools/verify/wgmma.h"

static size_t count_matching(bool subset, tcmma_arm arm, bool by_arm) {
  const verify_case *cs;
  size_t n = verify_matrix(&cs), k = 0;
  for (size_t i = 0; i < n; i++)
    k += (!subset || verify_case_in_subset(&cs[i])) && (!by_arm || cs[i].expect_arm == arm);
  /* the wgmma cases run too when no arm is named (the subset: each row's first) */
  const verify_wgmma_case *wg;
  size_t n_wg = verify_wgmma_matrix(&wg);
  for (size_t i = 0; i < n_wg && !by_arm; i++)
    k += !subset || i == 0 || wg[i - 1].arm != wg[i].arm;
  return k;
}

/* Runs verify with args and checks the summary's arithmetic; returns the
 * result for more checks. */
static cli_result run_verify(const char *const *args) {
  cli_result r = run_cli(args, NULL);
  if (!r.out) fail_msg("no output from tcmma verify");
  long cases = json_int_of(r.out, "cases"), passed = json_int_of(r.out, "passed"),
       failed = json_int_of(r.out, "failed"), skipped = json_int_of(r.out, "skipped");
  if (cases < 0 || passed < 0 || failed < 0 || skipped < 0)
    fail_msg("summary keys missing: %s", r.out);
  assert_int_equal(passed + failed + skipped, cases);
  /* 1: a case failed; 4: none failed but some were skipped; 0: all passed */
  assert_int_equal(r.exit_code, failed ? 1 : skipped ? 4 : 0);
  return r;
}

/* The failures list, printed so that a failing run says which cases. */
static void show_failures(const cli_result *r) {
  const char *f = strstr(r->out, "\"failures\"");
  if (f) print_message("%.*s\n", 6000, f);
}

static void compile_executor(bool subset) {
  const char *full[] = {"verify", "--executor", "compile", "--json", NULL};
  const char *part[] = {"verify", "--executor", "compile", "--subset", "--json", NULL};
  cli_result r = run_verify(subset ? part : full);
  long cases = json_int_of(r.out, "cases");
  assert_int_equal(cases, (long)count_matching(subset, TCMMA_ARM_NONE, false));
  if (json_int_of(r.out, "failed") != 0 || json_int_of(r.out, "skipped") != 0) show_failures(&r);
  /* NVRTC is part of the build machine: nothing may be skipped */
  assert_int_equal(json_int_of(r.out, "failed"), 0);
  assert_int_equal(json_int_of(r.out, "skipped"), 0);
  assert_int_equal(json_int_of(r.out, "passed"), cases);
  assert_non_null(strstr(r.out, "\"executor\": \"compile\""));
  cli_result_free(&r);
}

static void compile_executor_matrix(void **state) {
  (void)state;
  const char *sub = getenv("TCMMA_VERIFY_SUBSET");
  compile_executor(sub && strcmp(sub, "1") == 0);
}

/* No GPU driver on the build machines: every accepted case is skipped with
 * the reason, none passes; declined cases still check their decline. */
static void gpu_executor_without_driver(void **state) {
  (void)state;
  const char *args[] = {"verify", "--executor", "gpu", "--arm", "mma-bf16", "--json", NULL};
  cli_result r = run_verify(args);
  long cases = json_int_of(r.out, "cases");
  assert_int_equal(cases, (long)count_matching(false, TCMMA_ARM_MMA_BF16, true));
  if (json_int_of(r.out, "skipped") == 0) {
    /* a machine with a GPU: the cases must pass */
    assert_int_equal(json_int_of(r.out, "failed"), 0);
  } else {
    const verify_case *cs;
    size_t n = verify_matrix(&cs), declined = 0;
    for (size_t i = 0; i < n; i++)
      declined += cs[i].expect_arm == TCMMA_ARM_MMA_BF16 && cs[i].expect != TCMMA_DECLINE_NONE;
    assert_int_equal(json_int_of(r.out, "passed"), (long)declined);
    assert_int_equal(json_int_of(r.out, "skipped"), cases - (long)declined);
    assert_non_null(strstr(r.out, "\"skips\""));
  }
  cli_result_free(&r);
}

/* --arm selects exactly the cases expecting that arm; --list runs nothing. */
static void arm_filter_and_list(void **state) {
  (void)state;
  const char *args[] = {"verify", "--arm", "wmma-tf32", "--list", NULL};
  cli_result r = run_cli(args, NULL);
  assert_int_equal(r.exit_code, 0);
  size_t lines = 0;
  for (const char *p = r.out; p && *p; p++) lines += *p == '\n';
  assert_int_equal(lines, count_matching(false, TCMMA_ARM_WMMA_TF32, true));
  assert_null(strstr(r.out, "mma-bf16/"));
  cli_result_free(&r);
}

static void usage_errors(void **state) {
  (void)state;
  const char *bad_exec[] = {"verify", "--executor", "fpga", NULL};
  cli_result r = run_cli(bad_exec, NULL);
  assert_int_equal(r.exit_code, 2);
  assert_non_null(strstr(r.err, "'fpga'"));
  assert_non_null(strstr(r.err, "sim, compile or gpu"));
  cli_result_free(&r);
  const char *bad_arm[] = {"verify", "--arm", "mma-f99", NULL};
  r = run_cli(bad_arm, NULL);
  assert_int_equal(r.exit_code, 2);
  assert_non_null(strstr(r.err, "mma-f99"));
  assert_non_null(strstr(r.err, "wmma-tf32"));
  cli_result_free(&r);
  const char *bad_opt[] = {"verify", "--fast", NULL};
  r = run_cli(bad_opt, NULL);
  assert_int_equal(r.exit_code, 2);
  assert_non_null(strstr(r.err, "--fast"));
  cli_result_free(&r);
  const char *missing[] = {"verify", "--executor", NULL};
  r = run_cli(missing, NULL);
  assert_int_equal(r.exit_code, 2);
  cli_result_free(&r);
  /* a selection of no case checks nothing: a usage error, not a pass */
  static const char *const empty[][8] = {
      {"verify", "--case", "zzz", NULL},
      {"verify", "--arm", "mma-mxfp8", "--case", "s32=", "--executor", "compile", NULL},
      {"verify", "--arm", "wmma-tf32", "--case", "mma-bf16/", "--json", NULL},
      {"verify", "--case", "zzz", "--list", NULL},
  };
  for (size_t i = 0; i < sizeof empty / sizeof empty[0]; i++) {
    r = run_cli(empty[i], NULL);
    assert_int_equal(r.exit_code, 2);
    assert_non_null(strstr(r.err, "no case"));
    /* --json: the error object; text: nothing on stdout */
    if (i == 2) assert_non_null(strstr(r.out, "\"error\": {"));
    else assert_string_equal(r.out, "");
    cli_result_free(&r);
  }
  r = run_cli(empty[0], NULL);
  assert_non_null(strstr(r.err, "'zzz'"));
  cli_result_free(&r);
  r = run_cli(empty[1], NULL);
  assert_non_null(strstr(r.err, "mma-mxfp8"));
  cli_result_free(&r);
  const char *help[] = {"verify", "--help", NULL};
  r = run_cli(help, NULL);
  assert_int_equal(r.exit_code, 0);
  assert_non_null(strstr(r.out, "--executor sim|compile|gpu"));
  assert_non_null(strstr(r.out, "4 when none failed but some were skipped"));
  cli_result_free(&r);
}

/* The text output: a per-arm table and a closing summary line. */
static void text_output(void **state) {
  (void)state;
  const char *args[] = {"verify", "--executor", "compile", "--case", "decline-", NULL};
  cli_result r = run_cli(args, NULL);
  assert_int_equal(r.exit_code, 0);
  assert_non_null(strstr(r.out, "ARM"));
  assert_non_null(strstr(r.out, "SKIPPED"));
  assert_non_null(strstr(r.out, "verify --executor compile: "));
  assert_non_null(strstr(r.out, " 0 failed, 0 skipped"));
  cli_result_free(&r);
}

int main(void) {
  /* every compile really compiles: no answer from an earlier run's cache */
  setenv("TCMMA_CACHE", "0", 1);
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(usage_errors),
      cmocka_unit_test(arm_filter_and_list),
      cmocka_unit_test(text_output),
      cmocka_unit_test(gpu_executor_without_driver),
      cmocka_unit_test(compile_executor_matrix),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
