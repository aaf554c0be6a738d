/* tcmma_render_includes: an inline-PTX kernel declares the few vendor words
 * it uses (tables/cuda_words.def) instead of including cuda_fp16.h,
 * cuda_bf16.h and cuda_fp8.h; wmma kernels, the host dialect and a caller
 * who asks get the headers. The declarations step aside after the vendor
 * header, and both ways compile. */
#include "util.h"
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "tcmma/tcmma.h"

static char *kernel(const tcmma_plan *plan, tcmma_dialect dialect) {
  tcmma_buf b = {0};
  tcmma_error err;
  if (tcmma_render_kernel(RCTX(plan, dialect, NULL, &b), NULL, &err) != TCMMA_OK)
    fail_msg("render_kernel: %s", err.message);
  return b.data;
}

static char *includes(const tcmma_plan *plan, tcmma_dialect dialect, bool vendor) {
  tcmma_buf b = {0};
  tcmma_error err;
  if (tcmma_render_includes(RCTX(plan, dialect, NULL, &b), vendor, &err) != TCMMA_OK)
    fail_msg("render_includes: %s", err.message);
  return b.data ? b.data : strdup("");
}

/* Inline-PTX kernels: no #include, the words of their precisions only. */
static void inline_ptx_declares_words(void **state) {
  (void)state;
  static const struct {
    const char *d, *a, *b, *has, *lacks, *arm;
  } rows[] = {
      {"f32", "bf16", "bf16,t", "struct __align__(2) __nv_bfloat16", "__half", NULL},
      {"bf16", "bf16", "bf16,t", "__floats2bfloat162_rn", "__half", NULL},
      {"f16", "f16", "f16,t", "struct __align__(4) __half2", "bfloat16", NULL},
      {"f32", "e4m3", "e5m2,t", "struct __align__(1) __nv_fp8_e5m2", "bfloat16", NULL},
      /* f16 accumulators: __half2 registers, halves x and y (d one element
       * at a time: ld 9 pairs no columns) */
      {"f16,ld=9", "f16", "f16,t", "__half2 { __half x, y; }", "bfloat16", "mma-f16-acc16"},
      {"f16", "e4m3", "e5m2,t", "__half2 { __half x, y; }", "bfloat16", "mma-fp8-acc16"},
  };
  for (size_t i = 0; i < sizeof rows / sizeof rows[0]; i++) {
    tcmma_plan plan = test_plan(rows[i].d, rows[i].a, rows[i].b, 16, 8, 32,
                                TCMMA_SCOPE_STATEMENT, rows[i].arm);
    assert_int_equal(tcmma_arm_get(plan.arm)->form, TCMMA_FORM_PTX);
    char *text = kernel(&plan, TCMMA_DIALECT_CUDA);
    if (strstr(text, "#include")) fail_msg("row %zu includes a header:\n%s", i, text);
    if (!strstr(text, rows[i].has)) fail_msg("row %zu lacks %s:\n%s", i, rows[i].has, text);
    if (strstr(text, rows[i].lacks)) fail_msg("row %zu has %s:\n%s", i, rows[i].lacks, text);
    free(text);
    /* asked for the vendor headers: those, and no declarations */
    char *vendor = includes(&plan, TCMMA_DIALECT_CUDA, true);
    assert_non_null(strstr(vendor, "#include <cuda_"));
    assert_null(strstr(vendor, "struct"));
    free(vendor);
  }
}

/* wmma kernels and the host dialect include their headers. */
static void headers_where_needed(void **state) {
  (void)state;
  tcmma_plan wmma = test_plan("f32", "f16", "f16", 16, 16, 16, TCMMA_SCOPE_STATEMENT,
                              "wmma-f16f32");
  char *w = includes(&wmma, TCMMA_DIALECT_CUDA, false);
  assert_string_equal(w, "#include <cuda_fp16.h>\n#include <mma.h>\n");
  free(w);
  tcmma_plan ptx = test_plan("f32", "bf16", "bf16,t", 16, 8, 16, TCMMA_SCOPE_STATEMENT, NULL);
  char *h = includes(&ptx, TCMMA_DIALECT_HOST, false);
  assert_string_equal(h, "#include \"tcmma/sim.h\"\n");
  free(h);
  /* f32 operands only (tf32 wmma): NVRTC's own words, nothing declared */
  tcmma_plan tf32 = test_plan("f32", "f32", "f32", 16, 16, 8, TCMMA_SCOPE_STATEMENT, "wmma-tf32");
  char *t = includes(&tf32, TCMMA_DIALECT_CUDA, false);
  assert_string_equal(t, "#include <mma.h>\n");
  free(t);
}

static void bad_input(void **state) {
  (void)state;
  tcmma_plan plan = test_plan("f32", "bf16", "bf16,t", 16, 8, 16, TCMMA_SCOPE_STATEMENT, NULL);
  tcmma_buf b = {0};
  tcmma_error err;
  assert_int_equal(tcmma_render_includes(RCTX(&plan, (tcmma_dialect)7, NULL, &b), false, &err),
                   TCMMA_INVALID);
  assert_non_null(strstr(err.message, "dialect 7"));
  assert_int_equal(tcmma_render_includes(RCTX(&plan, TCMMA_DIALECT_CUDA, NULL, NULL), false, &err),
                   TCMMA_INVALID);
  tcmma_plan declined = plan;
  declined.accepted = false;
  assert_int_equal(tcmma_render_includes(RCTX(&declined, TCMMA_DIALECT_CUDA, NULL, &b), false,
                                         &err),
                   TCMMA_INVALID);
  assert_int_equal(tcmma_render_includes(RCTX(NULL, TCMMA_DIALECT_CUDA, NULL, &b), false, &err),
                   TCMMA_INVALID);
  tcmma_buf_free(&b);
}

/* The kernel compiles without the headers, and with them included first
 * (the declarations then step aside), with no warning either way. */
static void compiles_with_and_without_vendor_headers(void **state) {
  (void)state;
  setenv("TCMMA_CACHE", "0", 1);
  static const struct {
    const char *d, *a, *b, *header, *arm;
  } rows[] = {
      {"bf16", "bf16", "bf16,t", "cuda_bf16.h", NULL},
      {"f16", "f16", "f16,t", "cuda_fp16.h", NULL},
      {"f16", "e4m3", "e5m2,t", "cuda_fp8.h", NULL},
      {"f16,ld=9", "f16", "f16,t", "cuda_fp16.h", "mma-f16-acc16"},
      {"f16,ld=9", "e4m3", "e5m2,t", "cuda_fp8.h", "mma-fp8-acc16"},
  };
  for (size_t r = 0; r < sizeof rows / sizeof rows[0]; r++) {
    tcmma_plan plan = test_plan(rows[r].d, rows[r].a, rows[r].b, 16, 8, 32,
                                TCMMA_SCOPE_STATEMENT, rows[r].arm);
    char *text = kernel(&plan, TCMMA_DIALECT_CUDA);
    /* the premise of the f16 accumulator rows: d's elements one by one */
    if (rows[r].arm && !strstr(text, "].x = ")) fail_msg("row %zu: no .x:\n%s", r, text);
    tcmma_buf both = {0};
    tcmma_buf_printf(&both, "#include <%s>\n%s", rows[r].header, text);
    const char *sources[2] = {text, tcmma_buf_str(&both)};
    for (int i = 0; i < 2; i++) {
      tcmma_compile_opts o = TCMMA_COMPILE_OPTS_INIT(.sass = true, .minimal = true);
      tcmma_program p;
      tcmma_error err;
      tcmma_status st = tcmma_compile(sources[i], strlen(sources[i]), &o, &p, &err);
      if (st != TCMMA_OK)
        fail_msg("row %zu, source %d: %s\n%s", r, i, err.message, p.log ? p.log : "");
      assert_string_equal(p.log, "");
      assert_non_null(strstr(p.ptx, "mma.sync.aligned.m16n8k"));
      tcmma_program_free(&p);
    }
    tcmma_buf_free(&both);
    free(text);
  }
  unsetenv("TCMMA_CACHE");
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(inline_ptx_declares_words),
      cmocka_unit_test(headers_where_needed),
      cmocka_unit_test(bad_input),
      cmocka_unit_test(compiles_with_and_without_vendor_headers),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
