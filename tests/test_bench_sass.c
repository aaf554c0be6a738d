/* The SASS reader and main-loop finder of `tcmma bench gemm --static`
 * (tools/bench_sass.c): on the committed disassembly of the shipped
 * 128x128x32 bf16 kernel at sm_80 as emitted before the lean main loop
 * (tests/data/gemm_bf16_sm80.sass, written by `tcmma bench gemm --static
 * --arch 80 --dtype bf16 --config 1 --dump` at ed72a88, CUDA 13.0, and read
 * by hand: its k-tile loop is the BRA at 0x1c30 back to .L_x_1 at 0x1110,
 * 179 instructions), on small texts made to break it, and on a real run of the
 * bench through nvdisasm (make deps installs the nvidia-cuda-nvdisasm
 * wheel). Nothing here is a time or a ratio threshold: the ratio is
 * measured, the counts the plan fixes are checked. */
#include "util.h"
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "tools/bench_sass.h"

static void classes_come_from_the_table(void **s) {
  (void)s;
  assert_int_equal(bench_sass_classify("HMMA.16816.F32.BF16"), BENCH_SASS_MMA);
  assert_int_equal(bench_sass_classify("LDSM.16.M88.4"), BENCH_SASS_LDSM);
  assert_int_equal(bench_sass_classify("LDGSTS.E.BYPASS.128"), BENCH_SASS_LDGSTS);
  assert_int_equal(bench_sass_classify("BAR.SYNC.DEFER_BLOCKING"), BENCH_SASS_SYNC);
  assert_int_equal(bench_sass_classify("DEPBAR.LE"), BENCH_SASS_SYNC);
  assert_int_equal(bench_sass_classify("IADD3.X"), BENCH_SASS_INT);
  assert_int_equal(bench_sass_classify("BRA"), BENCH_SASS_BRANCH);
  /* a prefix of a listed opcode is not that opcode */
  assert_int_equal(bench_sass_classify("IMADX"), BENCH_SASS_OTHER);
  assert_int_equal(bench_sass_classify("LDS.128"), BENCH_SASS_OTHER);
  assert_string_equal(bench_sass_class_name(BENCH_SASS_LDGSTS), "ldgsts");
}

/* The committed kernel: its loop and its mix, as read by hand. */
static void committed_kernel_loop(void **s) {
  (void)s;
  char *text = read_file(src_path("tests/data/gemm_bf16_sm80.sass"), NULL);
  assert_non_null(text);
  bench_sass k;
  char why[256] = "";
  assert_true(bench_sass_parse(text, "tcmma_gemm", &k, why, sizeof why));
  assert_int_equal(k.n, 0x2bf0 / 16 + 1); /* through the padding NOPs */
  size_t first, last;
  assert_true(bench_sass_main_loop(&k, &first, &last));
  assert_int_equal(k.v[first].addr, 0x1110);
  assert_int_equal(k.v[last].addr, 0x1c30);
  assert_string_equal(k.v[last].op, "BRA");
  long c[BENCH_SASS_NCLASS];
  bench_sass_count(&k, first, last, c);
  assert_int_equal(c[BENCH_SASS_MMA], 64);
  assert_int_equal(c[BENCH_SASS_LDSM], 16);
  assert_int_equal(c[BENCH_SASS_LDGSTS], 8);
  assert_int_equal(c[BENCH_SASS_SYNC], 3);
  assert_int_equal(c[BENCH_SASS_BRANCH], 2);
  assert_int_equal(c[BENCH_SASS_OTHER], 3); /* the three @!PT LDS RZ, [RZ] */
  assert_int_equal(c[BENCH_SASS_INT], 179 - 64 - 16 - 8 - 3 - 2 - 3);
  /* one BAR (DEPBAR is not one): one k tile per trip */
  assert_int_equal(bench_sass_count_op(&k, first, last, "BAR"), 1);
  assert_int_equal(bench_sass_count_op(&k, first, last, "DEPBAR"), 1);
  /* the refill the last k tiles skip: @P2 BRA at 0x1230 over 0x1240..0x14b0 */
  size_t bf, bl;
  assert_true(bench_sass_skipped_block(&k, first, last, BENCH_SASS_LDGSTS, &bf, &bl));
  assert_int_equal(k.v[bf].addr, 0x1240);
  assert_int_equal(k.v[bl].addr, 0x14b0);
  assert_false(bench_sass_skipped_block(&k, first, last, BENCH_SASS_MMA, &bf, &bl));
  bench_sass_free(&k);
  /* NULL picks the first function; a missing one is named */
  assert_true(bench_sass_parse(text, NULL, &k, why, sizeof why));
  bench_sass_free(&k);
  assert_false(bench_sass_parse(text, "other_kernel", &k, why, sizeof why));
  assert_non_null(strstr(why, ".text.other_kernel"));
  free(text);
}

/* Two functions; the second has a loop nest: the innermost loop holding an
 * mma and a BAR is the main loop, a loop with an mma but no barrier is not,
 * and the first function's labels are not the second's. */
static const char two_functions[] =
    "//--------------------- .text.first --------------------------\n"
    "\t.section\t.text.first,\"ax\",@progbits\n"
    "\t.sectioninfo\t@\"SHI_REGISTERS=8\"\n"
    "first:\n"
    ".L_x_0:\n"
    "        /*0000*/                   HMMA.16816.F32 R0, R4, R8, R0 ;\n"
    "        /*0010*/                   BRA `(.L_x_0) ;\n"
    "//--------------------- .text.second --------------------------\n"
    "\t.section\t.text.second,\"ax\",@progbits\n"
    "second:\n"
    ".L_x_1:\n"
    "        /*0000*/                   IADD3 R1, R1, 0x1, RZ ;\n"
    ".L_x_2:\n"
    "        /*0010*/                   BAR.SYNC.DEFER_BLOCKING 0x0 ;\n"
    "        /*0020*/                   HMMA.16816.F32 R0, R4, R8, R0 ;\n"
    "        /*0030*/               @P0 BRA `(.L_x_2) ;\n"
    ".L_x_3:\n"
    "        /*0040*/                   HMMA.16816.F32 R0, R4, R8, R0 ;\n"
    "        /*0050*/               @P1 BRA `(.L_x_3) ;\n"
    "        /*0060*/              @!P2 BRA `(.L_x_1) ;\n"
    "        /*0070*/                   EXIT ;\n";

static void innermost_loop_with_a_barrier(void **s) {
  (void)s;
  bench_sass k;
  char why[256] = "";
  assert_true(bench_sass_parse(two_functions, "second", &k, why, sizeof why));
  assert_int_equal(k.n, 8);
  assert_int_equal(k.v[3].target, 1);
  assert_int_equal(k.v[6].target, 0);
  size_t first, last;
  assert_true(bench_sass_main_loop(&k, &first, &last));
  assert_int_equal(first, 1);
  assert_int_equal(last, 3);
  bench_sass_free(&k);
  /* the first function's loop has no barrier: no main loop */
  assert_true(bench_sass_parse(two_functions, "first", &k, why, sizeof why));
  assert_int_equal(k.n, 2);
  assert_false(bench_sass_main_loop(&k, &first, &last));
  bench_sass_free(&k);
}

static void bad_texts_are_refused(void **s) {
  (void)s;
  bench_sass k;
  char why[256] = "";
  /* a label of another function is not this one's */
  const char *foreign = strstr(two_functions, "//--------------------- .text.second");
  char *text = malloc(strlen(two_functions) + 64);
  assert_non_null(text);
  sprintf(text, "%.*s", (int)(foreign - two_functions), two_functions);
  strcat(text, "\t.section\t.text.third,\"ax\",@progbits\n"
               "        /*0000*/                   BRA `(.L_x_0) ;\n");
  assert_false(bench_sass_parse(text, "third", &k, why, sizeof why));
  assert_non_null(strstr(why, ".L_x_0"));
  assert_null(k.v);
  free(text);
  assert_false(bench_sass_parse("", NULL, &k, why, sizeof why));
  assert_false(bench_sass_parse("\t.section\t.text.empty,\"ax\",@progbits\n", NULL, &k, why,
                                sizeof why));
  assert_non_null(strstr(why, "no instruction"));
}

/* The double after "key": in a JSON text (the bench writes counts as
 * doubles); -1 when absent. */
static double json_number_after(const char *json, const char *section, const char *key) {
  const char *p = strstr(json, section);
  char pat[64];
  snprintf(pat, sizeof pat, "\"%s\": ", key);
  p = p ? strstr(p, pat) : NULL;
  return p ? strtod(p + strlen(pat), NULL) : -1;
}

/* A real run: the loop holds exactly the plan's mma, ldmatrix and cp.async
 * per k tile (the finder found the k-tile loop), and ptxas's registers are
 * reported beside the plan's. */
static void real_run_counts_the_plan(void **s) {
  (void)s;
  const char *argv[] = {"bench", "gemm", "--static", "--arch", "80", "--dtype", "bf16",
                        "--config", "1", "--json", NULL};
  cli_result r = run_cli(argv, NULL);
  if (r.exit_code == 4)
    fail_msg("no nvdisasm: make deps installs the nvidia-cuda-nvdisasm wheel (%s)", r.err);
  assert_int_equal(r.exit_code, 0);
  assert_non_null(strstr(r.out, "\"measured\": true"));
  const char *per = "\"per_k_tile\"", *ideal = "\"ideal\"";
  assert_true(json_number_after(r.out, per, "mma") == 64);
  for (int i = 0; i < 3; i++) {
    const char *key = (const char *[]){"mma", "ldsm", "ldgsts"}[i];
    assert_true(json_number_after(r.out, per, key) > 0);
    assert_true(json_number_after(r.out, per, key) == json_number_after(r.out, ideal, key));
  }
  assert_true(json_number_after(r.out, per, "total") >= json_number_after(r.out, ideal, "total"));
  assert_true(json_int_of(r.out, "ptxas") > 0);
  assert_true(json_int_of(r.out, "plan") > 0);
  cli_result_free(&r);
}

static void usage_errors(void **s) {
  (void)s;
  const char *bad[][6] = {{"bench", "gemm", "--static", "--arch", "75", NULL},
                          {"bench", "gemm", "--static", "--config", "99", NULL},
                          {"bench", "gemm", "--static", "--dtype", "f64", NULL},
                          {"bench", "gemm", "--static", "--size", "300", NULL},
                          {"bench", "gemm", "--static", "--dump", "/tmp/x", NULL}};
  for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
    cli_result r = run_cli(bad[i], NULL);
    if (r.exit_code == 4) fail_msg("no nvdisasm: make deps installs it");
    assert_int_equal(r.exit_code, 2);
    assert_true(strlen(r.err) > 0);
    cli_result_free(&r);
  }
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(classes_come_from_the_table),
      cmocka_unit_test(committed_kernel_loop),
      cmocka_unit_test(innermost_loop_with_a_barrier),
      cmocka_unit_test(bad_texts_are_refused),
      cmocka_unit_test(real_run_counts_the_plan),
      cmocka_unit_test(usage_errors),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
