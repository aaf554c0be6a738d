/* The probe's early stop (nvrtc/probe_fixed.c, docs/nvrtc.md "Probes"): a
 * rung's failure counts as the same at every target only when it is an
 * #include of the source itself, outside every #if group, whose file is not
 * found; in NVRTC's words and in the host preprocessor's (nvcc, which
 * compiles a copy elsewhere: the error names the source's own name). Any
 * other failure, or that #include under an #if, proves nothing. Pure: no
 * compiler runs here (test_probe runs the ladder). */
#include "util.h"
#include <stdio.h>
#include <string.h>
#include "nvrtc/internal.h"

static const char nvrtc_at_2[] =
    "NVRTC 13.0: NVRTC_ERROR_COMPILATION: dir/k.cu(2): catastrophic error: cannot open source "
    "file \"helper.h\" (full log in the program). Hint: NVRTC compiles device code only";
static const char nvcc_at_2[] =
    "nvcc rejected the source: /tmp/tcmma-nvcc-Ab12Cd/k.cu:2:10: fatal error: helper.h: No such "
    "file or directory (full log in the program)";

static bool fixed(const char *src, const char *message, char *line, size_t cap) {
  return tcmma__arch_failure_fixed(src, strlen(src), "dir/k.cu", message, line, cap);
}

static void a_missing_include_at_file_scope(void **state) {
  (void)state;
  const char *src = "#include <cuda_fp16.h>\n#include \"helper.h\"\n__global__ void k() {}\n";
  char line[512];
  assert_true(fixed(src, nvrtc_at_2, line, sizeof line));
  assert_string_equal(line, "dir/k.cu(2): catastrophic error: cannot open source file \"helper.h\"");
  assert_true(fixed(src, nvcc_at_2, line, sizeof line));
  assert_string_equal(line, "dir/k.cu:2:10: fatal error: helper.h: No such file or directory");
  /* <helper.h> and blanks after the '#' alike; a group closed before it */
  assert_false(fixed("#ifdef X\n#endif\n  #  include <helper.h>\n", nvrtc_at_2, NULL, 0));
  /* (line 2 is the #endif: not the include) */
  static const char nvrtc_at_3[] =
      "dir/k.cu(3): catastrophic error: cannot open source file \"helper.h\"";
  assert_true(fixed("#ifdef X\n#endif\n  #  include <helper.h>\n", nvrtc_at_3, NULL, 0));
  /* an #if continued over lines, closed before it */
  static const char nvrtc_at_4[] =
      "dir/k.cu(4): catastrophic error: cannot open source file \"helper.h\"";
  assert_true(fixed("#if defined(A) \\\n  && defined(B)\n#endif\n#include \"helper.h\"\n",
                    nvrtc_at_4, NULL, 0));
}

/* An #include a target may skip: under any #if group (the arch, or a macro
 * that may follow from it). */
static void under_an_if_proves_nothing(void **state) {
  (void)state;
  assert_false(fixed("#if __CUDA_ARCH__ < 800\n#include \"helper.h\"\n#endif\n", nvrtc_at_2, NULL, 0));
  assert_false(fixed("#ifndef NO_HELPER\n#include \"helper.h\"\n#endif\n", nvcc_at_2, NULL, 0));
  /* an #endif in a comment or a '#if' in a string closes or opens nothing */
  static const char at_3[] = "dir/k.cu(3): catastrophic error: cannot open source file \"helper.h\"";
  assert_false(fixed("#if X\n/*\n#endif */\n#include \"helper.h\"\n#endif\n",
                     "dir/k.cu(4): catastrophic error: cannot open source file \"helper.h\"",
                     NULL, 0));
  assert_true(fixed("const char *s = \"\\\n#if 1\";\n#include \"helper.h\"\n", at_3, NULL, 0));
  /* (a string continued over a line: its '#if' opens nothing, its lines count) */
  assert_true(fixed("// #if 1\nint x;\n#include \"helper.h\"\n", at_3, NULL, 0));
  /* unbalanced: more #endif than #if proves nothing */
  assert_false(fixed("#endif\n#include \"helper.h\"\n", nvrtc_at_2, NULL, 0));
}

/* Other failures, or the error elsewhere than the source's own #include. */
static void other_failures_prove_nothing(void **state) {
  (void)state;
  const char *src = "#include <cuda_fp16.h>\n#include \"helper.h\"\n";
  assert_false(fixed(src, "dir/k.cu(2): error: identifier \"__hadd2\" is undefined", NULL, 0));
  assert_false(fixed(src, "dir/k.cu(2): error: #error directive: \"needs sm_80\"", NULL, 0));
  assert_false(fixed(src, NULL, NULL, 0));
  /* in a header, not the source */
  assert_false(fixed(src, "dir/other.h(2): catastrophic error: cannot open source file "
                          "\"helper.h\"", NULL, 0));
  /* the line is no #include of that file */
  assert_false(fixed(src, "dir/k.cu(1): catastrophic error: cannot open source file \"helper.h\"",
                     NULL, 0));
  assert_false(fixed(src, "dir/k.cu(2): catastrophic error: cannot open source file \"help.h\"",
                     NULL, 0));
  assert_false(fixed(src, "dir/k.cu(9): catastrophic error: cannot open source file \"helper.h\"",
                     NULL, 0));
  assert_false(fixed("#include HELPER\n", "dir/k.cu(1): catastrophic error: cannot open source "
                                          "file \"helper.h\"", NULL, 0));
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(a_missing_include_at_file_scope),
      cmocka_unit_test(under_an_if_proves_nothing),
      cmocka_unit_test(other_failures_prove_nothing),
  };
  return cmocka_run_group_tests_name("probe_fixed", tests, NULL, NULL);
}
