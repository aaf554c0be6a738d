/* The reports CI systems read (tcmma verify --junit FILE, --tap), without
 * a GPU: validated by tests/report-check.sh against the JUnit schema
 * (tests/data/junit/junit.xsd, xmllint) and as TAP 13 (Perl's
 * TAP::Parser), for passes (sim), skips and failures (the gpu executor on
 * the fake libcuda, tests/fake_cuda.c), with every exit status as
 * documented; hostile names and reasons stay valid; and broken reports,
 * the controls, are rejected. */
#include "util.h"
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>
#include "tools/verify/plan.h"

static char dir[256];

static int setup(void **state) {
  (void)state;
  snprintf(dir, sizeof dir, "/tmp/tcmma-report-%d", (int)getpid());
  char cmd[300];
  snprintf(cmd, sizeof cmd, "mkdir -p %s", dir);
  return system(cmd) == 0 ? 0 : -1;
}

static int teardown(void **state) {
  (void)state;
  char cmd[300];
  snprintf(cmd, sizeof cmd, "rm -rf %s", dir);
  fake_cuda_remove();
  return system(cmd) == 0 ? 0 : -1;
}

static const char *path_of(const char *name) {
  static char buf[4][320];
  static int k;
  k = (k + 1) % 4;
  snprintf(buf[k], sizeof buf[k], "%s/%s", dir, name);
  return buf[k];
}

/* tests/report-check.sh KIND FILE's exit status. */
static int check(const char *kind, const char *file) {
  char cmd[700];
  snprintf(cmd, sizeof cmd, "sh %s %s %s", src_path("tests/report-check.sh"), kind, file);
  int st = system(cmd);
  return WIFEXITED(st) ? WEXITSTATUS(st) : -1;
}

static void write_text(const char *file, const char *text) {
  FILE *f = fopen(file, "w");
  assert_non_null(f);
  fputs(text, f);
  assert_int_equal(fclose(f), 0);
}

/* Runs verify with argv plus --junit and --tap; checks the exit status,
 * validates both reports and returns the JUnit text (owned). */
static char *run_reports(const char *const *argv, int want_exit, const char *tag) {
  const char *args[24];
  int n = 0;
  for (; argv[n]; n++) args[n] = argv[n];
  char junit[320], tap[330];
  snprintf(junit, sizeof junit, "%s", path_of(tag));
  snprintf(tap, sizeof tap, "%s.tap", junit);
  args[n++] = "--junit", args[n++] = junit, args[n++] = "--tap", args[n] = NULL;
  cli_result r = run_cli(args, NULL);
  if (r.exit_code != want_exit)
    fail_msg("%s: exit %d, want %d: %s", tag, r.exit_code, want_exit, r.err);
  write_text(tap, r.out);
  assert_int_equal(check("junit", junit), 0);
  assert_int_equal(check("tap", tap), 0);
  cli_result_free(&r);
  char *xml = read_file(junit, NULL);
  assert_non_null(xml);
  return xml;
}

static size_t occurrences(const char *s, const char *what) {
  size_t n = 0;
  for (; (s = strstr(s, what)); s++) n++;
  return n;
}

/* Passes: the sim executor on the declined cases, and on a shard of a
 * device plan (both matrices); exit 0. */
static void passes_validate(void **state) {
  (void)state;
  char *xml = run_reports((const char *[]){"verify", "--case", "decline-floor", NULL}, 0, "a.xml");
  assert_true(occurrences(xml, "<testcase ") > 5);
  assert_int_equal(occurrences(xml, "<failure"), 0);
  free(xml);
  xml = run_reports((const char *[]){"verify", "--plan", "75,80,89,90,100,120", "--device", "75",
                                     "--shard", "3/40", NULL},
                    0, "b.xml");
  assert_non_null(strstr(xml, "<property name=\"shard\" value=\"3/40\"/>"));
  free(xml);
}

/* Skips (exit 4) and failures (exit 1): the gpu executor on the fake
 * driver, a device below fp8's floor and a kernel that computes nothing. */
static void skips_and_failures_validate(void **state) {
  (void)state;
  const char *lib = fake_cuda_build();
  if (!lib) fail_msg("the fake libcuda does not build");
  setenv("TCMMA_LIBCUDA", lib, 1);
  setenv("TCMMA_CACHE", "0", 1);
  setenv("FAKE_CUDA_CCS", "80", 1);
  char *xml = run_reports((const char *[]){"verify", "--executor", "gpu", "--arm", "mma-fp8",
                                           "--shard", "1/60", NULL},
                          4, "skip.xml");
  assert_true(occurrences(xml, "<skipped message=\"the device (cc 80) does not run mma-fp8") > 0);
  assert_int_equal(occurrences(xml, "<failure"), 0);
  free(xml);
  setenv("FAKE_CUDA_KERNEL", "noop", 1);
  xml = run_reports((const char *[]){"verify", "--executor", "gpu", "--arm", "mma-bf16", "--shard",
                                     "1/70", NULL},
                    1, "fail.xml");
  assert_true(occurrences(xml, "<failure message=") > 0);
  free(xml);
  unsetenv("FAKE_CUDA_KERNEL"), unsetenv("FAKE_CUDA_CCS"), unsetenv("TCMMA_LIBCUDA");
}

/* Names and reasons with markup, quotes, '#', line breaks, control bytes
 * and bytes that are no UTF-8 are written so that both reports stay valid. */
static void hostile_text_stays_valid(void **state) {
  (void)state;
  verify_case c = {.expect = TCMMA_DECLINE_NO_ARM};
  snprintf(c.name, sizeof c.name, "a<b>&\"c'd # not a directive \\ e\x01\xff\xc3\xa9");
  verify_item it = verify_item_of_case(&c);
  const char *reason = "line one\nline <two> & \"three\" # x \\ \x02 \xe2\x82 \xf0\x9f\x98\x80";
  verify_report_case cases[3] = {{&it, VERIFY_CASE_FAILED, reason, 0.5},
                                 {&it, VERIFY_CASE_SKIPPED, reason, 0},
                                 {&it, VERIFY_CASE_PASSED, "", 1e-6}};
  verify_report_info info = {.suite = "suite <&>", .executor = "sim", .seconds = 2,
                             .timestamp = "2026-12-02T08:00:00", .hostname = "h\"ost"};
  FILE *f = fopen(path_of("hostile.xml"), "w");
  assert_non_null(f);
  assert_true(verify_report_junit(f, &info, cases, 3));
  assert_int_equal(fclose(f), 0);
  assert_int_equal(check("junit", path_of("hostile.xml")), 0);
  f = fopen(path_of("hostile.tap"), "w");
  assert_non_null(f);
  verify_report_tap_begin(f, 3);
  for (size_t i = 0; i < 3; i++) verify_report_tap_case(f, i + 1, &cases[i]);
  assert_int_equal(fclose(f), 0);
  assert_int_equal(check("tap", path_of("hostile.tap")), 0);
}

/* The controls: the validator rejects what is not a valid report. */
static void broken_reports_rejected(void **state) {
  (void)state;
  const char *head = "<?xml version=\"1.0\"?>\n<testsuites tests=\"1\" failures=\"0\" "
                     "errors=\"0\" skipped=\"0\" time=\"1\">\n";
  const char *suite = "<testsuite name=\"s\" tests=\"1\" failures=\"0\" errors=\"0\" "
                      "skipped=\"0\" time=\"1\" timestamp=\"2026-12-02T08:00:00\" "
                      "hostname=\"h\">\n";
  char good[1024], bad[6][1024];
  snprintf(good, sizeof good, "%s%s<testcase name=\"t\" classname=\"c\" time=\"0.1\"/>\n"
           "</testsuite>\n</testsuites>\n", head, suite);
  write_text(path_of("good.xml"), good);
  assert_int_equal(check("junit", path_of("good.xml")), 0); /* the controls' base is valid */
  snprintf(bad[0], sizeof bad[0], "%s%s<testcase name=\"t\" classname=\"c\" time=\"0.1\">\n"
           "</testsuite>\n</testsuites>\n", head, suite);              /* not well-formed */
  snprintf(bad[1], sizeof bad[1], "%s%s<testcase classname=\"c\" time=\"0.1\"/>\n"
           "</testsuite>\n</testsuites>\n", head, suite);              /* no name */
  snprintf(bad[2], sizeof bad[2], "%s%s<testcase name=\"t\" classname=\"c\" time=\"fast\"/>\n"
           "</testsuite>\n</testsuites>\n", head, suite);              /* a time no number */
  snprintf(bad[3], sizeof bad[3], "%s%s<testcase name=\"t\" classname=\"c\" time=\"1\"/>\n"
           "<testcase name=\"u\" classname=\"c\" time=\"1\"/>\n</testsuite>\n</testsuites>\n",
           head, suite);                                               /* 2 testcases, tests=1 */
  snprintf(bad[4], sizeof bad[4], "%s%s<testcase name=\"t\" classname=\"c\" time=\"1\">"
           "<failure message=\"m\"/></testcase>\n</testsuite>\n</testsuites>\n", head,
           suite);                                                     /* failures=0 */
  snprintf(bad[5], sizeof bad[5], "%s%s<testcase name=\"t\" classname=\"c\" time=\"1\">"
           "<bogus/></testcase>\n</testsuite>\n</testsuites>\n", head, suite); /* no such element */
  for (int i = 0; i < 6; i++) {
    write_text(path_of("bad.xml"), bad[i]);
    if (check("junit", path_of("bad.xml")) == 0) fail_msg("broken JUnit %d accepted", i);
  }
  const char *tap_bad[] = {
      "TAP version 13\n1..2\nok 1 - a\n",                       /* planned 2, ran 1 */
      "TAP version 13\n1..1\nok 1 - a\nnonsense\n",            /* a line that is no TAP */
      "TAP version 13\n1..2\nok 2 - a\nok 1 - b\n",            /* out of sequence */
      "1..1\nok 1 - a\n",                                       /* no version line */
      "TAP version 13\n1..1\nnot ok 1 - a\n  ---\n  message: \"open\n  ...\n", /* bad YAML */
      "TAP version 13\nok 1 - a\n",                             /* no plan */
  };
  write_text(path_of("good.tap"), "TAP version 13\n1..1\nok 1 - a\n");
  assert_int_equal(check("tap", path_of("good.tap")), 0);
  for (size_t i = 0; i < sizeof tap_bad / sizeof tap_bad[0]; i++) {
    write_text(path_of("bad.tap"), tap_bad[i]);
    if (check("tap", path_of("bad.tap")) == 0) fail_msg("broken TAP %zu accepted", i);
  }
}

/* A JUnit file that cannot be written fails the run (exit 1) after saying so. */
static void unwritable_junit_fails(void **state) {
  (void)state;
  cli_result r = run_cli((const char *[]){"verify", "--case", "decline-floor", "--junit",
                                          "/nonexistent-dir/j.xml", NULL}, NULL);
  assert_int_equal(r.exit_code, 1);
  assert_non_null(strstr(r.err, "/nonexistent-dir/j.xml"));
  cli_result_free(&r);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(passes_validate),
      cmocka_unit_test(skips_and_failures_validate),
      cmocka_unit_test(hostile_text_stays_valid),
      cmocka_unit_test(broken_reports_rejected),
      cmocka_unit_test(unwritable_junit_fails),
  };
  return cmocka_run_group_tests(tests, setup, teardown);
}
