/* tools/verify/batch.c: kernels of one arch share one NVRTC program even
 * when an inline-PTX kernel (which declares the vendor words it uses,
 * guarded by the vendor headers' include guards) comes before a wmma kernel
 * (which includes those headers): the batch puts the headers first. Before
 * it did, such a batch failed to compile and every job was compiled again
 * alone: right outcomes, none batched, twice the time. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "util.h"
#include "tools/verify/batch.h"

static char cache_dir[256];

static int fresh_cache(void **state) {
  (void)state;
  test_cache_fresh(cache_dir, sizeof cache_dir, "vbatch");
  return 0;
}

static int remove_cache(void **state) {
  (void)state;
  return test_cache_remove(cache_dir);
}

/* A one-warp kernel of plan, tcmma_render_kernel's; owned. */
static tcmma_buf kernel_of(const tcmma_plan *p) {
  tcmma_buf src = {0};
  tcmma_error err = {0};
  if (tcmma_render_kernel(RCTX(p, TCMMA_DIALECT_CUDA, NULL, &src), NULL, &err) != TCMMA_OK)
    fail_msg("render: %s", err.message);
  return src;
}

static void mixed_kernels_share_a_program(void **state) {
  (void)state;
  tcmma_plan ptx = test_plan("f32", "bf16", "bf16,t", 16, 8, 16, TCMMA_SCOPE_STATEMENT, "mma-bf16");
  tcmma_plan wmma = test_plan("f32", "bf16", "bf16", 16, 16, 16, TCMMA_SCOPE_STATEMENT, "wmma-bf16");
  tcmma_buf src[2] = {kernel_of(&ptx), kernel_of(&wmma)};
  /* the premise: the first declares __nv_bfloat16, the second includes its header */
  assert_non_null(strstr(src[0].data, "!defined(__CUDA_BF16_H__)"));
  assert_null(strstr(src[0].data, "#include"));
  assert_non_null(strstr(src[1].data, "#include <cuda_bf16.h>"));
  verify_job jobs[2];
  memset(jobs, 0, sizeof jobs);
  for (int i = 0; i < 2; i++) {
    jobs[i].source = src[i].data, jobs[i].len = src[i].len;
    jobs[i].opts = (tcmma_compile_opts)TCMMA_COMPILE_OPTS_INIT(.minimal = false);
  }
  verify_compile_jobs_on(jobs, 2, 1); /* one thread: both jobs in one unit */
  for (int i = 0; i < 2; i++) {
    if (jobs[i].status != TCMMA_OK) fail_msg("job %d: %s", i, jobs[i].err.message);
    assert_true(jobs[i].batched);
    assert_non_null(jobs[i].prog.ptx);
    assert_non_null(strstr(jobs[i].prog.ptx, ".entry tcmma_kernel_"));
    assert_string_equal(jobs[i].prog.target_arch, "sm_80"); /* the PTX's .target */
  }
  assert_non_null(strstr(jobs[0].prog.ptx, "mma.sync.aligned.m16n8k16"));
  assert_non_null(strstr(jobs[1].prog.ptx, "wmma.mma.sync"));
  for (int i = 0; i < 2; i++) tcmma_program_free(&jobs[i].prog), tcmma_buf_free(&src[i]);
}

/* Two kernels ptxas refuses at sm_75 for different reasons (bf16 needs
 * sm_80, fp8 sm_89) in one batch: each job's error is its own ptxas line,
 * not the batch's first. */
static void each_blamed_job_names_its_own_error(void **state) {
  (void)state;
  tcmma_plan bf16 = test_plan("f32", "bf16", "bf16,t", 16, 8, 16, TCMMA_SCOPE_STATEMENT, NULL);
  tcmma_plan fp8 = test_plan("f32", "e4m3", "e4m3,t", 16, 8, 32, TCMMA_SCOPE_STATEMENT, NULL);
  tcmma_buf src[2] = {kernel_of(&bf16), kernel_of(&fp8)};
  const char *needs[2] = {"sm_80", "sm_89"};
  verify_job jobs[2];
  memset(jobs, 0, sizeof jobs);
  for (int i = 0; i < 2; i++) {
    jobs[i].source = src[i].data, jobs[i].len = src[i].len;
    jobs[i].opts = (tcmma_compile_opts)TCMMA_COMPILE_OPTS_INIT(.arch = 75, .sass = true,
                                                               .minimal = true);
  }
  verify_compile_jobs_on(jobs, 2, 1);
  for (int i = 0; i < 2; i++) {
    assert_int_equal(jobs[i].status, TCMMA_COMPILE);
    assert_true(jobs[i].batched);
    if (!strstr(jobs[i].err.message, "ptx input, line") ||
        !strstr(jobs[i].err.message, needs[i]) || strstr(jobs[i].err.message, needs[1 - i]))
      fail_msg("job %d: expected its own ptxas error naming %s, got: %s", i, needs[i],
               jobs[i].err.message);
    tcmma_program_free(&jobs[i].prog), tcmma_buf_free(&src[i]);
  }
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(mixed_kernels_share_a_program),
      cmocka_unit_test(each_blamed_job_names_its_own_error),
  };
  return cmocka_run_group_tests(tests, fresh_cache, remove_cache);
}
