/* tcmma gemm --tune (tools/cmd_gemm_tune.c): without a device the compiled
 * candidates come ranked by the static model on their SASS main loop
 * (nvdisasm, which make deps installs); with the fake driver
 * (tests/fake_cuda.c: every event pair reads 1 ms) they are timed and
 * ranked by time; the usage rules and a problem nothing fits. No figure
 * here is a threshold: the ranking's order is checked, not its values. */
#include "util.h"
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* The numbers after every "key": in json, in order, into v (at most cap). */
static size_t numbers_of(const char *json, const char *key, double *v, size_t cap) {
  char pat[64];
  snprintf(pat, sizeof pat, "\"%s\": ", key);
  size_t n = 0;
  for (const char *p = strstr(json, pat); p && n < cap; p = strstr(p + 1, pat))
    v[n++] = strtod(p + strlen(pat), NULL);
  return n;
}

static const char *const problem[] = {"gemm", "--m", "512", "--n", "512", "--k", "512", "--d",
                                      "bf16", "--a", "bf16", "--b", "bf16,t", "--tune",
                                      "--tune-max", "3", "--json", NULL};

static void static_model_without_a_device(void **s) {
  (void)s;
  fake_cuda_use("/nonexistent/libcuda.so.1"); /* no device, even on a GPU machine */
  cli_result r = run_cli(problem, NULL);
  fake_cuda_use(NULL);
  if (r.exit_code != 0) fail_msg("exit %d: %s", r.exit_code, r.err);
  assert_non_null(strstr(r.out, "\"ranked_by\": \"static model\""));
  assert_int_equal(json_int_of(r.out, "compiled"), 3);
  assert_true(json_int_of(r.out, "accepted") >= 3);
  double cycles[8], regs[8], rank[8];
  assert_int_equal(numbers_of(r.out, "model_cycles", cycles, 8), 3);
  assert_int_equal(numbers_of(r.out, "ptxas", regs, 8), 3);
  assert_int_equal(numbers_of(r.out, "rank", rank, 8), 3);
  for (int i = 0; i < 3; i++) {
    assert_true(rank[i] == i + 1);
    assert_true(regs[i] > 0); /* compiled: ptxas's figure */
    assert_true(cycles[i] > 0);
    if (i) assert_true(cycles[i - 1] <= cycles[i]); /* ranked */
  }
  /* every loop read from the SASS (nvdisasm is installed by make deps) */
  assert_null(strstr(r.out, "\"from_sass\": false"));
  cli_result_free(&r);
}

static void measured_time_with_the_fake_driver(void **s) {
  (void)s;
  const char *lib = fake_cuda_build();
  assert_non_null(lib);
  fake_cuda_use(lib);
  setenv("FAKE_CUDA_KERNEL", "noop", 1);
  cli_result r = run_cli(problem, NULL);
  fake_cuda_use(NULL);
  fake_cuda_remove();
  if (r.exit_code != 0) fail_msg("exit %d: %s", r.exit_code, r.err);
  assert_non_null(strstr(r.out, "\"ranked_by\": \"measured time\""));
  assert_int_equal(json_int_of(r.out, "cc"), 80); /* the fake's device 0 */
  double ms[8];
  assert_int_equal(numbers_of(r.out, "ms", ms, 8), 3);
  /* the fake's event pair reads 1 ms around the 10 timed launches */
  for (int i = 0; i < 3; i++) assert_true(fabs(ms[i] - 0.1) < 1e-9);
  cli_result_free(&r);
}

static void usage_and_declines(void **s) {
  (void)s;
  const char *base = "gemm --m 256 --n 256 --k 256 --d bf16 --a bf16 --b bf16,t";
  const struct {
    const char *extra;
    int code;
  } cases[] = {{"--tune --tile 128x128x32", 2}, {"--tune --stages 3", 2},
               {"--tune --kernel", 2},         {"--tune-max 4", 2},
               {"--tune --tune-max 0", 2},     {"--tune --registers 16", 3}};
  for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
    char line[512];
    snprintf(line, sizeof line, "%s %s", base, cases[i].extra);
    const char *argv[32];
    int n = 0;
    for (char *t = strtok(line, " "); t && n < 31; t = strtok(NULL, " ")) argv[n++] = t;
    argv[n] = NULL;
    cli_result r = run_cli(argv, NULL);
    if (r.exit_code != cases[i].code)
      fail_msg("%s: exit %d, expected %d: %s", cases[i].extra, r.exit_code, cases[i].code, r.err);
    assert_true(strlen(r.err) > 0);
    cli_result_free(&r);
  }
  /* a decline under --json is the error object, with the first reason */
  const char *none[] = {"gemm", "--m", "256", "--n", "256", "--k", "256", "--d", "f32", "--a",
                        "f16", "--b", "f16", "--registers", "16", "--tune", "--json", NULL};
  cli_result r = run_cli(none, NULL);
  assert_int_equal(r.exit_code, 3);
  assert_non_null(strstr(r.out, "\"error\""));
  assert_non_null(strstr(r.out, "declined: no configuration"));
  assert_non_null(strstr(r.out, "(the first: "));
  cli_result_free(&r);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(static_model_without_a_device),
      cmocka_unit_test(measured_time_with_the_fake_driver),
      cmocka_unit_test(usage_and_declines),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
