/* The native target without a given cc: the lowest cc among the attached
 * devices, asked from the driver API (the fake libcuda, tests/fake_cuda.c),
 * through the library, the compile path and the CLI; and a clear status when
 * there is no driver or no device. The fake's devices are set here
 * (FAKE_CUDA_CCS), so the expected arch is the lowest of those numbers. */
#include "util.h"
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "tcmma/tcmma.h"

static const char *fake_lib;
static const char bf16_src[] = "// (mma-bf16)\n__global__ void k(float *x) { x[0] = 1.0f; }\n";

static int setup(void **state) {
  (void)state;
  unsetenv("TCMMA_PTX_TARGET");
  setenv("TCMMA_CACHE", "0", 1);
  tcmma_target_set(TCMMA_TARGET_CURRENT, NULL);
  return (fake_lib = fake_cuda_build()) ? 0 : -1;
}

static int teardown(void **state) {
  (void)state;
  fake_cuda_remove();
  unsetenv("TCMMA_CACHE");
  return 0;
}

/* The fake with devices of these ccs ("80,90"; NULL: its default). */
static void devices(const char *ccs) {
  fake_cuda_use(fake_lib);
  if (ccs) setenv("FAKE_CUDA_CCS", ccs, 1);
}

static tcmma_arch_options native_ok(const char *src, int cc, tcmma_target t) {
  tcmma_arch_options o;
  tcmma_error err = {0};
  if (tcmma_gpu_arch_options(src, strlen(src), cc, t, &o, &err) != TCMMA_OK)
    fail_msg("'%s' cc %d: %s", src, cc, err.message);
  return o;
}

static void test_lowest_device(void **state) {
  (void)state;
  devices(NULL); /* the fake's default: cc 8.0 and 9.0 */
  tcmma_arch_options o = native_ok(bf16_src, 0, TCMMA_TARGET_NATIVE);
  assert_string_equal(o.option, "--gpu-architecture=compute_80");
  assert_int_equal(o.cc, 80);
  assert_true(o.cc_from_driver);
  devices("90,86,120"); /* the lowest, not the first */
  o = native_ok("int x;", 0, TCMMA_TARGET_NATIVE);
  assert_string_equal(o.option, "--gpu-architecture=compute_86");
  assert_int_equal(o.cc, 86);
  /* A given cc wins over the devices. */
  o = native_ok("int x;", 90, TCMMA_TARGET_NATIVE);
  assert_string_equal(o.option, "--gpu-architecture=compute_90");
  assert_false(o.cc_from_driver);
  /* The floor target does not ask for a device. */
  o = native_ok(bf16_src, 0, TCMMA_TARGET_FLOOR);
  assert_int_equal(o.cc, 0);
  assert_false(o.cc_from_driver);
}

static void test_setting_and_floor_above(void **state) {
  (void)state;
  devices(NULL);
  setenv("TCMMA_PTX_TARGET", "native", 1);
  tcmma_arch_options o = native_ok(bf16_src, 0, TCMMA_TARGET_CURRENT);
  assert_string_equal(o.option, "--gpu-architecture=compute_80");
  /* fp8 needs 8.9: above the lowest device (8.0) is an error naming both. */
  const char *fp8 = "// (mma-fp8)\n";
  tcmma_error err;
  assert_int_equal(tcmma_gpu_arch_options(fp8, strlen(fp8), 0, TCMMA_TARGET_CURRENT, &o, &err),
                   TCMMA_FLOOR);
  assert_non_null(strstr(err.message, "89"));
  assert_non_null(strstr(err.message, "80"));
  unsetenv("TCMMA_PTX_TARGET");
}

static void expect_unavailable(const char *needle) {
  tcmma_arch_options o;
  tcmma_error err;
  assert_int_equal(tcmma_gpu_arch_options(bf16_src, strlen(bf16_src), 0, TCMMA_TARGET_NATIVE, &o,
                                          &err),
                   TCMMA_UNAVAILABLE);
  if (!strstr(err.message, needle) || !strstr(err.message, "--cc N"))
    fail_msg("'%s' lacks '%s' or '--cc N'", err.message, needle);
  /* With a cc the driver is not needed. */
  assert_int_equal(tcmma_gpu_arch_options(bf16_src, strlen(bf16_src), 86, TCMMA_TARGET_NATIVE,
                                          &o, &err),
                   TCMMA_OK);
  assert_string_equal(o.option, "--gpu-architecture=compute_86");
}

static void test_no_driver_no_device(void **state) {
  (void)state;
  fake_cuda_use("/nonexistent/libcuda.so.1");
  expect_unavailable("no CUDA driver (/nonexistent/libcuda.so.1");
  devices(""); /* a driver with no device */
  expect_unavailable("no CUDA device");
  devices(NULL);
  setenv("FAKE_CUDA_INIT", "100", 1); /* CUDA_ERROR_NO_DEVICE from cuInit */
  expect_unavailable("no CUDA device");
}

static void test_compile_native(void **state) {
  (void)state;
  devices("90,80");
  tcmma_compile_opts opts = TCMMA_COMPILE_OPTS_INIT(.name = "native.cu",
                                                    .target = TCMMA_TARGET_NATIVE);
  tcmma_program p;
  tcmma_error err;
  assert_int_equal(tcmma_compile(bf16_src, strlen(bf16_src), &opts, &p, &err), TCMMA_OK);
  assert_string_equal(p.options[0], "--gpu-architecture=compute_80");
  assert_string_equal(p.target_arch, "sm_80");
  tcmma_program_free(&p);
  fake_cuda_use("/nonexistent/libcuda.so.1");
  assert_int_equal(tcmma_compile(bf16_src, strlen(bf16_src), &opts, &p, &err), TCMMA_UNAVAILABLE);
  assert_non_null(strstr(err.message, "--cc N"));
  tcmma_program_free(&p);
}

static cli_result cli(const char *const *argv) {
  return run_cli(argv, bf16_src);
}

static void test_cli(void **state) {
  (void)state;
  devices(NULL);
  const char *opt[] = {"options", "-", "--target", "native", NULL};
  cli_result r = cli(opt);
  assert_int_equal(r.exit_code, 0);
  assert_non_null(strstr(r.out, "compute_80"));
  assert_non_null(strstr(r.out, "cc 80 (the lowest attached device)"));
  cli_result_free(&r);
  setenv("TCMMA_PTX_TARGET", "native", 1);
  const char *json[] = {"options", "-", "--json", NULL};
  r = cli(json);
  assert_int_equal(r.exit_code, 0);
  assert_non_null(strstr(r.out, "\"--gpu-architecture=compute_80\""));
  assert_non_null(strstr(r.out, "\"cc\": 80"));
  assert_non_null(strstr(r.out, "\"cc_from_driver\": true"));
  cli_result_free(&r);
  const char *comp[] = {"compile", "-", "-o", "-", NULL};
  r = cli(comp);
  assert_int_equal(r.exit_code, 0);
  assert_non_null(strstr(r.out, ".target sm_80"));
  assert_non_null(strstr(r.err, "compute_80"));
  cli_result_free(&r);
  /* No driver: exit 1 and a message that names the cause and --cc. */
  setenv("TCMMA_LIBCUDA", "/nonexistent/libcuda.so.1", 1);
  const char *const *cmds[] = {opt, json, comp};
  for (size_t i = 0; i < 3; i++) {
    r = cli(cmds[i]);
    assert_int_equal(r.exit_code, 1);
    assert_non_null(strstr(r.err, "no CUDA driver"));
    assert_non_null(strstr(r.err, "--cc N"));
    /* text: nothing on stdout; --json: the error object */
    if (cmds[i] == json) assert_non_null(strstr(r.out, "\"error\": {"));
    else assert_string_equal(r.out, "");
    cli_result_free(&r);
  }
  /* A bad setting names itself and both valid values; --target overrides it. */
  setenv("TCMMA_PTX_TARGET", "sm_80", 1);
  r = cli(json);
  assert_int_equal(r.exit_code, 1);
  assert_non_null(strstr(r.err, "TCMMA_PTX_TARGET='sm_80': expected floor or native"));
  cli_result_free(&r);
  r = cli((const char *const[]){"options", "-", "--target", "floor", NULL});
  assert_int_equal(r.exit_code, 0);
  cli_result_free(&r);
  const char *given[] = {"options", "-", "--target", "native", "--cc", "86", NULL};
  r = cli(given);
  assert_int_equal(r.exit_code, 0);
  assert_non_null(strstr(r.out, "compute_86"));
  assert_null(strstr(r.out, "lowest attached"));
  cli_result_free(&r);
  unsetenv("TCMMA_PTX_TARGET");
  unsetenv("TCMMA_LIBCUDA");
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_lowest_device),       cmocka_unit_test(test_setting_and_floor_above),
      cmocka_unit_test(test_no_driver_no_device), cmocka_unit_test(test_compile_native),
      cmocka_unit_test(test_cli),
  };
  return cmocka_run_group_tests_name("native", tests, setup, teardown);
}
