/* libtcmma.so, libtcmma_sim.a and the CLI export exactly the functions the
 * public headers declare, and every public enum value and struct layout
 * matches the committed baseline (tests/abi-test.sh, which first checks that
 * it fails on a library exporting one undeclared symbol, on a shifted enum
 * value and on a moved field). */
#include "util.h"
#include <stdio.h>
#include <string.h>
#include "tcmma/tcmma.h"
#include "tcmma/sim.h"

/* A warp that does nothing: a launch to check configs with. */
static void idle_warp(void *arg) { (void)arg; }

static void exports_are_the_public_headers(void **state) {
  (void)state;
  assert_int_equal(run_script("tests/abi-test.sh"), 0);
}

/* The arrays the library indexes by enum value are initialised by
 * designated index from each row's value column (mma/abi_values.c proves
 * the values are 0..COUNT-1): the row found at a value is the row of that
 * value, whatever the row order of the table. */
static void rows_sit_at_their_values(void **state) {
  (void)state;
  for (int a = 0; a < TCMMA_ARM_COUNT; a++) {
    const tcmma_arm_info *row = tcmma_arm_get((tcmma_arm)a);
    assert_non_null(row);
    assert_int_equal(row->id, a);
    tcmma_arm parsed = TCMMA_ARM_NONE;
    assert_int_equal(tcmma_arm_parse(row->marker, &parsed, NULL), TCMMA_OK);
    assert_int_equal(parsed, a);
  }
  for (int s = 0; s < TCMMA_SWIZZLE_COUNT; s++) {
    const tcmma_swizzle_info *row = tcmma_swizzle_get((tcmma_swizzle)s);
    assert_non_null(row);
    assert_int_equal(row->id, s);
  }
  for (int p = 0; p < TCMMA_PREC_COUNT; p++) {
    tcmma_prec parsed = TCMMA_PREC_COUNT;
    assert_int_equal(tcmma_prec_parse(tcmma_prec_name((tcmma_prec)p), &parsed, NULL), TCMMA_OK);
    assert_int_equal(parsed, p);
  }
  assert_non_null(tcmma_ptx_feature_get(TCMMA_PTX_FEATURE_COUNT - 1));
  assert_string_equal(tcmma_ptx_feature_get(TCMMA_PTX_F_CP_ASYNC)->id, "CP_ASYNC");
  assert_string_equal(tcmma_status_name(TCMMA_PARSE), "parse");
  assert_string_equal(tcmma_decline_name(TCMMA_DECLINE_SUBTILE), "subtile");
  assert_string_equal(tcmma_gemm_decline_name(TCMMA_GEMM_DECLINE_SHARED), "shared");
  assert_string_equal(tcmma_marker_text(TCMMA_MARKER_CP_ASYNC), "cp.async.");
}

/* A size-carrying struct: size 0 (never initialised) and a size above the
 * library's are TCMMA_INVALID naming the struct and both sizes. */
static void expect_size_refused(tcmma_status st, const tcmma_error *err, const char *name,
                                size_t size, size_t full) {
  assert_int_equal(st, TCMMA_INVALID);
  char want[160];
  snprintf(want, sizeof want, "%s.size is %zu", name, size);
  if (!strstr(err->message, want)) fail_msg("'%s' lacks '%s'", err->message, want);
  snprintf(want, sizeof want, "%zu bytes", full);
  if (!strstr(err->message, want)) fail_msg("'%s' lacks '%s'", err->message, want);
}

static void sizes_are_checked(void **state) {
  (void)state;
  tcmma_error err;
  tcmma_call call = tcmma_call_default();
  call.m = 16, call.n = 8, call.k = 16;
  tcmma_plan plan;
  assert_int_equal(call.size, sizeof call);
  assert_int_equal(tcmma_plan_call(&call, &plan, &err), TCMMA_OK);
  assert_int_equal(plan.call.size, sizeof call);
  for (int big = 0; big < 2; big++) {
    size_t size = big ? sizeof call + 8 : 0;
    call.size = size;
    expect_size_refused(tcmma_plan_call(&call, &plan, &err), &err, "tcmma_call", size,
                        sizeof call);
    tcmma_gemm_call g = tcmma_gemm_call_default();
    tcmma_gemm_plan gp;
    g.size = size;
    expect_size_refused(tcmma_gemm_plan_call(&g, &gp, &err), &err, "tcmma_gemm_call", size,
                        sizeof g);
    g = tcmma_gemm_call_default();
    tcmma_gemm_opts go = tcmma_gemm_opts_default();
    go.size = size;
    expect_size_refused(tcmma_gemm_plan_opts(&g, &go, &gp, NULL, &err), &err, "tcmma_gemm_opts",
                        size, sizeof go);
    tcmma_kernel_opts ko = TCMMA_KERNEL_OPTS_INIT(.outer = 1);
    tcmma_buf out = {0};
    ko.size = size;
    call = tcmma_call_default();
    call.m = 16, call.n = 8, call.k = 16;
    assert_int_equal(tcmma_plan_call(&call, &plan, &err), TCMMA_OK);
    tcmma_status kst = tcmma_render_kernel(RCTX(&plan, TCMMA_DIALECT_CUDA, NULL, &out), &ko, &err);
    expect_size_refused(kst, &err, "tcmma_kernel_opts", size, sizeof ko);
    tcmma_buf_free(&out);
    tcmma_compile_opts co = tcmma_compile_opts_default();
    tcmma_program prog;
    co.size = size;
    expect_size_refused(tcmma_compile("", 0, &co, &prog, &err), &err, "tcmma_compile_opts", size,
                        sizeof co);
    tcmma_sim_config cfg = tcmma_sim_config_default();
    cfg.size = size;
    expect_size_refused(tcmma_sim_launch_grid(idle_warp, NULL, &cfg, &err),
                        &err, "tcmma_sim_config", size, sizeof cfg);
  }
}

/* A caller built against older headers passes a smaller size: the library
 * reads only what it covers and takes the defaults for the rest, whatever
 * the caller's memory holds past it. */
static void older_smaller_structs_get_defaults(void **state) {
  (void)state;
  tcmma_error err;
  tcmma_call call = tcmma_call_default();
  call.m = 16, call.n = 8, call.k = 16;
  call.registers = 100000; /* out of range: planned, this call is invalid or declined */
  tcmma_plan plan;
  assert_int_not_equal(tcmma_plan_call(&call, &plan, &err), TCMMA_OK);
  call.size = offsetof(tcmma_call, registers); /* a caller that knew no registers field */
  assert_int_equal(tcmma_plan_call(&call, &plan, &err), TCMMA_OK);
  assert_int_equal(plan.call.registers, 0);
  assert_int_equal(plan.call.size, sizeof call);

  /* the GEMM's options and info: split_k past an older caller's size is not
   * read, and its smaller info is written only as far as it reaches */
  tcmma_gemm_call g = tcmma_gemm_call_default();
  tcmma_gemm_opts go = tcmma_gemm_opts_default();
  go.split_k = 100000; /* out of range: read, the plan declines */
  tcmma_gemm_plan gp;
  tcmma_gemm_info gi[2];
  assert_int_equal(tcmma_gemm_plan_opts(&g, &go, &gp, NULL, &err), TCMMA_DECLINED);
  go.size = offsetof(tcmma_gemm_opts, batch);
  memset(gi, 0x5a, sizeof gi);
  gi[0].size = offsetof(tcmma_gemm_info, batch);
  assert_int_equal(tcmma_gemm_plan_opts(&g, &go, &gp, &gi[0], &err), TCMMA_OK);
  assert_int_equal(gi[0].a_align, 16);
  const unsigned char *past = (const unsigned char *)&gi[0] + offsetof(tcmma_gemm_info, batch);
  for (size_t i = 0; i < sizeof gi - offsetof(tcmma_gemm_info, batch); i++)
    assert_int_equal(past[i], 0x5a);

  /* an epilogue list past an older caller's opts (session 2's struct ended
   * at split_k) is not read: whatever lies there, the plain kernel */
  struct {
    tcmma_gemm_opts o;
  } junk;
  memset(&junk, 0x5a, sizeof junk);
  tcmma_gemm_opts now = tcmma_gemm_opts_default();
  memcpy(&junk.o, &now, offsetof(tcmma_gemm_opts, epilogue));
  junk.o.size = offsetof(tcmma_gemm_opts, epilogue);
  assert_null(now.epilogue);
  assert_int_equal(now.epilogue_count, 0);
  tcmma_buf want = {0}, got = {0};
  assert_int_equal(tcmma_gemm_plan_opts(&g, &junk.o, &gp, NULL, &err), TCMMA_OK);
  assert_int_equal(tcmma_render_gemm_opts(RCTX(NULL, TCMMA_DIALECT_CUDA, NULL, &got), &gp,
                                          &junk.o, &err), TCMMA_OK);
  assert_int_equal(tcmma_render_gemm(RCTX(NULL, TCMMA_DIALECT_CUDA, NULL, &want), &gp, &err),
                   TCMMA_OK);
  assert_string_equal(tcmma_buf_str(&want), tcmma_buf_str(&got));
  junk.o.size = sizeof junk.o; /* read now: a count of 0x5a5a5a5a is out of range */
  assert_int_not_equal(tcmma_gemm_plan_opts(&g, &junk.o, &gp, NULL, &err), TCMMA_OK);
  tcmma_buf_free(&want), tcmma_buf_free(&got);

  /* the kernel: indexed_bases past the caller's size is not read */
  tcmma_buf plain = {0}, old = {0}, indexed = {0};
  tcmma_kernel_opts ko = tcmma_kernel_opts_default();
  assert_int_equal(tcmma_render_kernel(RCTX(&plan, TCMMA_DIALECT_CUDA, NULL, &plain), &ko, &err),
                   TCMMA_OK);
  ko.indexed_bases = true;
  assert_int_equal(tcmma_render_kernel(RCTX(&plan, TCMMA_DIALECT_CUDA, NULL, &indexed), &ko, &err),
                   TCMMA_OK);
  assert_string_not_equal(tcmma_buf_str(&plain), tcmma_buf_str(&indexed));
  ko.size = offsetof(tcmma_kernel_opts, indexed_bases);
  assert_int_equal(tcmma_render_kernel(RCTX(&plan, TCMMA_DIALECT_CUDA, NULL, &old), &ko, &err),
                   TCMMA_OK);
  assert_string_equal(tcmma_buf_str(&plain), tcmma_buf_str(&old));
  tcmma_buf_free(&plain), tcmma_buf_free(&old), tcmma_buf_free(&indexed);

  /* the simulator: a config that stops before n_blocks gets no block list */
  tcmma_sim_config cfg = tcmma_sim_config_default();
  cfg.n_blocks = 7; /* without blocks: invalid, if read */
  assert_int_equal(tcmma_sim_launch_grid(idle_warp, NULL, &cfg, &err),
                   TCMMA_INVALID);
  cfg.size = offsetof(tcmma_sim_config, blocks);
  assert_int_equal(tcmma_sim_launch_grid(idle_warp, NULL, &cfg, &err),
                   TCMMA_OK);
}

int main(void) {
  const struct CMUnitTest tests[] = {cmocka_unit_test(exports_are_the_public_headers),
                                     cmocka_unit_test(rows_sit_at_their_values),
                                     cmocka_unit_test(sizes_are_checked),
                                     cmocka_unit_test(older_smaller_structs_get_defaults)};
  return cmocka_run_group_tests(tests, NULL, NULL);
}
