/* The sim executor's module is kept in the disk cache by content
 * (tools/verify/sim_cache.c): a second run of the same cases compiles
 * nothing, a change of flags compiles again, and with the disk cache off
 * nothing is kept. The C compiler is a wrapper that counts its runs. */
#include "util.h"
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

static char dir[256], counter[300], log_path[300], cache[300];

static int setup(void **state) {
  (void)state;
  snprintf(dir, sizeof dir, "/tmp/tcmma-test-simcache-%d", (int)getpid());
  snprintf(counter, sizeof counter, "%s/cc-counted", dir);
  snprintf(log_path, sizeof log_path, "%s/runs", dir);
  snprintf(cache, sizeof cache, "%s/cache", dir);
  if (mkdir(dir, 0700) != 0) return -1;
  FILE *f = fopen(counter, "w");
  if (!f) return -1;
  fprintf(f, "#!/bin/sh\necho run >> '%s'\nexec cc \"$@\"\n", log_path);
  fclose(f);
  chmod(counter, 0700);
  setenv("CC", counter, 1);
  setenv("TCMMA_CACHE_DIR", cache, 1);
  unsetenv("TCMMA_CACHE");
  unsetenv("TCMMA_SIM_CFLAGS");
  return 0;
}

static int teardown(void **state) {
  (void)state;
  char cmd[400];
  snprintf(cmd, sizeof cmd, "rm -rf '%s'", dir);
  unsetenv("CC"), unsetenv("TCMMA_CACHE"), unsetenv("TCMMA_SIM_CFLAGS");
  return system(cmd) == 0 ? 0 : -1;
}

static int runs(void) {
  size_t len = 0;
  char *text = read_file(log_path, &len);
  int n = 0;
  for (size_t i = 0; text && i < len; i++) n += text[i] == '\n';
  free(text);
  return n;
}

/* tcmma verify over one arm's subset; its exit status. */
static int verify(void) {
  cli_result r = run_cli((const char *const[]){"verify", "--executor", "sim", "--arm", "mma-bf16",
                                               "--subset", NULL},
                         NULL);
  int rc = r.exit_code;
  if (rc != 0) print_message("verify: %s%s", r.out, r.err);
  cli_result_free(&r);
  return rc;
}

static void module_reused_by_content(void **state) {
  (void)state;
  assert_int_equal(verify(), 0);
  assert_int_equal(runs(), 1);
  assert_int_equal(verify(), 0); /* the same module: loaded, not compiled */
  assert_int_equal(runs(), 1);
  setenv("TCMMA_SIM_CFLAGS", "-DTCMMA_TEST_FLAG=1", 1); /* other flags: another module */
  assert_int_equal(verify(), 0);
  assert_int_equal(runs(), 2);
  unsetenv("TCMMA_SIM_CFLAGS");
  assert_int_equal(verify(), 0);
  assert_int_equal(runs(), 2);
  setenv("TCMMA_CACHE", "0", 1); /* memory only: compiled every run */
  assert_int_equal(verify(), 0);
  assert_int_equal(verify(), 0);
  assert_int_equal(runs(), 4);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test_setup_teardown(module_reused_by_content, setup, teardown),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
