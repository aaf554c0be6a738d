/* Whole programs through the toolkit's nvcc (tcmma_compile_opts.nvcc,
 * tcmma compile --nvcc, and options --probe on a source NVRTC cannot take):
 * the same cache and .target check as NVRTC, a clear error when nvcc is
 * absent. Skipped without NVRTC or nvcc; runs on a fresh cache. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "util.h"
#include "tcmma/tcmma.h"

static char dir[256];

static int fresh(void **state) {
  (void)state;
  test_cache_fresh(dir, sizeof dir, "nvcc");
  return 0;
}

static int gone(void **state) {
  (void)state;
  return test_cache_remove(dir);
}

static const char host[] = "#include <cstdio>\n"
                           "__global__ void k(int *p) { p[0] = p[1] + 3; }\n"
                           "int main() { std::printf(\"hi\\n\"); return 0; }\n";

static bool have_tools(void) {
  tcmma_nvrtc_info info;
  char nvcc[512];
  snprintf(nvcc, sizeof nvcc, "%s/bin/nvcc", cuda_home());
  return tcmma_nvrtc_facts(&info, NULL) == TCMMA_OK && access(nvcc, X_OK) == 0;
}

static void a_whole_program_compiles_through_the_cache(void **state) {
  (void)state;
  if (!have_tools()) skip();
  tcmma_compile_opts o = tcmma_compile_opts_default();
  tcmma_program p;
  tcmma_error err;
  /* NVRTC refuses it, naming the way out */
  assert_int_equal(tcmma_compile(host, strlen(host), &o, &p, &err), TCMMA_COMPILE);
  assert_non_null(strstr(err.message, "tcmma compile --nvcc"));
  tcmma_program_free(&p);
  o.nvcc = "", o.sass = true, o.arch = 80;
  o.name = "host.cu";
  tcmma_status st = tcmma_compile(host, strlen(host), &o, &p, &err);
  if (st != TCMMA_OK) fail_msg("nvcc: %s", err.message);
  assert_non_null(p.ptx);
  assert_non_null(strstr(p.ptx, ".target sm_80"));
  assert_non_null(p.cubin);
  assert_true(p.ptxas_info);
  assert_true(p.registers > 0);
  assert_false(p.cache_hit);
  assert_null(strstr(p.log, "bytes stack frame")); /* ptxas -v's lines leave the log */
  tcmma_program_free(&p);
  assert_int_equal(tcmma_compile(host, strlen(host), &o, &p, &err), TCMMA_OK);
  assert_true(p.cache_hit);
  tcmma_program_free(&p);
  /* an instruction above the target: nvcc's ptxas says so */
  const char *redux = "__global__ void k(unsigned *o, unsigned v) {\n  unsigned r;\n"
                      "  asm(\"redux.sync.max.u32 %0, %1, 0xffffffff;\" : \"=r\"(r) : \"r\"(v));\n"
                      "  *o = r;\n}\n";
  o.arch = 75;
  assert_int_equal(tcmma_compile(redux, strlen(redux), &o, &p, &err), TCMMA_COMPILE);
  assert_non_null(strstr(err.message, "nvcc rejected the source"));
  assert_non_null(strstr(err.message, "redux"));
  tcmma_program_free(&p);
}

static void absent_nvcc_is_a_clear_error(void **state) {
  (void)state;
  tcmma_nvrtc_info info;
  if (tcmma_nvrtc_facts(&info, NULL) != TCMMA_OK) skip();
  setenv("TCMMA_NVCC", "/nonexistent/nvcc", 1);
  tcmma_compile_opts o = tcmma_compile_opts_default();
  o.nvcc = "";
  tcmma_program p;
  tcmma_error err;
  assert_int_equal(tcmma_compile(host, strlen(host), &o, &p, &err), TCMMA_UNAVAILABLE);
  assert_non_null(strstr(err.message, "nvcc not found (looked for /nonexistent/nvcc)"));
  cli_result r = run_cli((const char *const[]){"compile", "--nvcc", "-", NULL}, host);
  assert_int_equal(r.exit_code, 1);
  assert_non_null(strstr(r.err, "nvcc not found"));
  cli_result_free(&r);
  unsetenv("TCMMA_NVCC");
}

/* NVRTC takes no rung of a whole program: the probe climbs with nvcc. */
static void the_probe_falls_back_to_nvcc(void **state) {
  (void)state;
  if (!have_tools()) skip();
  const char *file = src_path("tests/data/cuda/probe/host_redux.cu");
  cli_result r = run_cli((const char *const[]){"options", file, "--probe", "--json", NULL}, NULL);
  assert_int_equal(r.exit_code, 0);
  assert_non_null(strstr(r.out, "\"compiler\": \"nvcc\""));
  assert_non_null(strstr(r.out, "\"proven_option\": \"--gpu-architecture=compute_80\""));
  assert_non_null(strstr(r.out, "\"below\": \"--gpu-architecture=compute_75\""));
  assert_non_null(strstr(r.out, "redux"));
  cli_result_free(&r);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(a_whole_program_compiles_through_the_cache),
      cmocka_unit_test(absent_nvcc_is_a_clear_error),
      cmocka_unit_test(the_probe_falls_back_to_nvcc),
  };
  return cmocka_run_group_tests(tests, fresh, gone);
}
