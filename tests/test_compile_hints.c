/* NVRTC compiles device code alone: a source that includes host headers and
 * an option only nvcc knows are rejected with words that do not say why, so
 * the compile error ends with what to do (tables/nvrtc_hints.def). Run on a
 * fresh cache: the message of a rejection is what the entry stored. */
#include <stdio.h>
#include <string.h>
#include "util.h"
#include "tcmma/tcmma.h"

static char dir[256];

static int fresh(void **state) {
  (void)state;
  test_cache_fresh(dir, sizeof dir, "hints");
  return 0;
}

static int gone(void **state) {
  (void)state;
  return test_cache_remove(dir);
}

static void expect_hint(const char *source, const char *const *extra, size_t n_extra,
                        const char *words) {
  tcmma_compile_opts o = tcmma_compile_opts_default();
  o.extra = extra, o.n_extra = n_extra;
  tcmma_program p;
  tcmma_error err;
  tcmma_status st = tcmma_compile(source, strlen(source), &o, &p, &err);
  if (st == TCMMA_UNAVAILABLE) skip(); /* no NVRTC here */
  assert_int_equal(st, TCMMA_COMPILE);
  if (!strstr(err.message, "Hint: ") || !strstr(err.message, words))
    fail_msg("no hint with '%s': %s", words, err.message);
  tcmma_program_free(&p);
}

static void host_headers_and_nvcc_options_say_what_to_do(void **state) {
  (void)state;
  expect_hint("#include <stdio.h>\n__global__ void k() {}\n", NULL, 0, "no host C/C++ headers");
  const char *nvcc_only[] = {"--expt-relaxed-constexpr"};
  expect_hint("__global__ void k() {}\n", nvcc_only, 1, "nvcc's driver options");
  expect_hint("__global__ void k(int *p) { *p = 1; }\nvoid launch(int *d) { k<<<1, 1>>>(d); }\n",
              NULL, 0, "NVRTC cannot compile host code");
  expect_hint("#include <algorithm>\n__global__ void k() {}\n", NULL, 0, "tcmma compile --nvcc");
  /* an ordinary error gets no hint */
  tcmma_compile_opts o = tcmma_compile_opts_default();
  tcmma_program p;
  tcmma_error err;
  const char *bad = "__global__ void k() { undeclared = 1; }\n";
  assert_int_equal(tcmma_compile(bad, strlen(bad), &o, &p, &err), TCMMA_COMPILE);
  assert_null(strstr(err.message, "Hint: "));
  tcmma_program_free(&p);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(host_headers_and_nvcc_options_say_what_to_do),
  };
  return cmocka_run_group_tests(tests, fresh, gone);
}
