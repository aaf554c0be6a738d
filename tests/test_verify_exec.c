/* The executors' own checks can fail: the compile executor's census check
 * against hand-written PTX (right counts pass; one product too few, a
 * missing .trans, an extra ldmatrix fail), the storage encodings of the
 * executors' shared data (tools/verify/data.c) against bit patterns written
 * from the IEEE / OCP formats, its buffers and reference, and the GPU
 * executor's driver paths on the fake libcuda (tests/fake_cuda.c): no
 * driver, no device, cuInit failing, a device too old, a module the driver
 * rejects, a kernel it cannot find, a kernel that computes nothing or
 * writes into a — skipped or failed, never passed. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "util.h"
#include "tools/verify/verify.h"
#include "tools/verify/data.h"

/* The first accepted case of the matrix whose name contains every piece. */
static const verify_case *find_case(const char *p1, const char *p2, const char *p3) {
  const verify_case *cs;
  size_t n = verify_matrix(&cs);
  for (size_t i = 0; i < n; i++)
    if (cs[i].expect == TCMMA_DECLINE_NONE && strstr(cs[i].name, p1) &&
        (!p2 || strstr(cs[i].name, p2)) && (!p3 || strstr(cs[i].name, p3)))
      return &cs[i];
  fail_msg("no case with %s %s %s", p1, p2 ? p2 : "", p3 ? p3 : "");
  return NULL;
}

/* A PTX module holding `count` copies of each opcode line given. */
static char *ptx_with(const char *const *lines, const int *counts, int n) {
  tcmma_buf b = {0};
  tcmma_buf_printf(&b, ".version 8.7\n.target sm_80\n.address_size 64\n\n"
                       ".visible .entry tcmma_kernel(\n)\n{\n");
  for (int i = 0; i < n; i++)
    for (int k = 0; k < counts[i]; k++) tcmma_buf_printf(&b, "\t%s\n", lines[i]);
  tcmma_buf_printf(&b, "\tret;\n}\n");
  return b.data;
}

#define ST_PAIR "st.global.v2.f32 [%rd1], {%f1, %f2};"
#define ST_ELEM "st.global.f32 [%rd1], %f1;"

/* The census check over a PTX of the given lines plus d's stores: f32 d in
 * global memory, whose m16n8 C fragment is 4 registers per tile per lane,
 * stored as 2 pairs (d_vector) or 4 elements per tile (PTX ISA). With
 * d_stores >= 0 that many stores of the other form are given instead. */
static bool census_ok_d(const verify_case *c, const char *const *lines, const int *counts, int n,
                        int d_stores) {
  tcmma_plan plan;
  verify_case_result r;
  memset(&r, 0, sizeof r);
  assert_true(verify_case_check_plan(c, &plan, &r));
  tcmma_census cen;
  assert_int_equal(tcmma_plan_census(&plan, &cen, NULL), TCMMA_OK);
  const char *all[8];
  int all_counts[8];
  assert_true(n < 8);
  for (int i = 0; i < n; i++) all[i] = lines[i], all_counts[i] = counts[i];
  bool pairs = cen.d_vector != (d_stores >= 0);
  all[n] = pairs ? ST_PAIR : ST_ELEM;
  all_counts[n] = d_stores >= 0 ? d_stores : plan.mt * plan.nt * (pairs ? 2 : 4);
  char *text = ptx_with(all, all_counts, n + 1);
  tcmma_ptx_info px;
  memset(&px, 0, sizeof px);
  assert_int_equal(tcmma_ptx_parse(text, strlen(text), &px, NULL), TCMMA_OK);
  size_t stmts = 0;
  bool ok = verify_exec_compile_census(c, &plan, &cen, &px, &r, &stmts);
  if (!ok) assert_int_equal(r.outcome, VERIFY_CASE_FAILED);
  tcmma_ptx_info_free(&px);
  free(text);
  return ok;
}

static bool census_ok(const verify_case *c, const char *const *lines, const int *counts, int n) {
  return census_ok_d(c, lines, counts, n, -1);
}

#define MMA_F16 "mma.sync.aligned.m16n8k16.row.col.f32.f16.f16.f32 {%f1,%f2,%f3,%f4}, " \
                "{%r1,%r2,%r3,%r4}, {%r5,%r6}, {%f1,%f2,%f3,%f4};"
#define LDM_X4 "ldmatrix.sync.aligned.m8n8.x4.shared.b16 {%r1,%r2,%r3,%r4}, [%r9];"
#define LDM_X4T "ldmatrix.sync.aligned.m8n8.x4.trans.shared.b16 {%r1,%r2,%r3,%r4}, [%r9];"
#define LDM_X2 "ldmatrix.sync.aligned.m8n8.x2.shared.b16 {%r1,%r2}, [%r9];"
#define LDM_X2T "ldmatrix.sync.aligned.m8n8.x2.trans.shared.b16 {%r1,%r2}, [%r9];"

/* mma-f16, statement, 2x2x2 tiles, a row-major and b transposed, both
 * swizzled: 8 products, 2 k steps x (2 A .x4 + 1 .x4 for B's pair of
 * tiles: ldmatrix moves four 8x8 matrices, B's tile holds two), no
 * .trans. */
static void census_check_can_fail(void **state) {
  (void)state;
  const verify_case *c =
      find_case("mma-f16/f32=f16.f16/ptx/statement/32x16x32/a=n,swizzled", "b=t,swizzled", NULL);
  const char *lines[3] = {MMA_F16, LDM_X4, LDM_X2};
  assert_true(census_ok(c, lines, (const int[]){8, 6, 0}, 3));
  assert_false(census_ok(c, lines, (const int[]){7, 6, 0}, 3)); /* a product missing */
  assert_false(census_ok(c, lines, (const int[]){8, 5, 0}, 3)); /* a load missing */
  assert_false(census_ok(c, lines, (const int[]){8, 4, 4}, 3)); /* B tile by tile (.x2) */
  assert_false(census_ok(c, lines, (const int[]){8, 0, 0}, 3)); /* no ldmatrix at all */
  const char *trans[3] = {MMA_F16, LDM_X4T, LDM_X2};
  assert_false(census_ok(c, trans, (const int[]){8, 6, 0}, 3)); /* .trans on row-major A */
  const char *wrong[3] = {("mma.sync.aligned.m16n8k16.row.col.f32.bf16.bf16.f32 {%f1,%f2,%f3,%f4}, "
                           "{%r1,%r2,%r3,%r4}, {%r5,%r6}, {%f1,%f2,%f3,%f4};"),
                          LDM_X4, LDM_X2};
  assert_false(census_ok(c, wrong, (const int[]){8, 6, 0}, 3)); /* another instruction */
  /* d (dense f32, 2x2 tiles) moves in 8 pair stores: 16 element stores, as
   * NVRTC writes when it cannot see the pairs' alignment, fail */
  assert_false(census_ok_d(c, lines, (const int[]){8, 6, 0}, 3, 16));
}

/* b stored row-major (k x n) and swizzled: its ldmatrix needs .trans. */
static void census_trans_rule(void **state) {
  (void)state;
  const verify_case *c = find_case("mma-f16/f32=f16.f16/ptx/", "a=t,swizzled", "b=n,swizzled");
  tcmma_plan plan;
  verify_case_result r;
  assert_true(verify_case_check_plan(c, &plan, &r));
  /* A: one .x4 per tile; B: one .x4 per pair of tiles, one .x2 for an odd one */
  int x4 = (plan.mt + plan.nt / 2) * plan.kt, x2 = plan.nt % 2 * plan.kt;
  int p = plan.mt * plan.nt * plan.kt;
  const char *lines[3] = {MMA_F16, LDM_X4T, LDM_X2T};
  assert_true(census_ok(c, lines, (const int[]){p, x4, x2}, 3));
  const char *plain[3] = {MMA_F16, LDM_X4, LDM_X2T};
  assert_false(census_ok(c, plain, (const int[]){p, x4, x2}, 3));
}

/* A fragment scope with outer 3: the outer loop is kept (`#pragma unroll 1`),
 * so exactly one statement's worth passes; the unrolled count fails. */
static void census_outer_loop(void **state) {
  (void)state;
  const verify_case *c =
      find_case("mma-f16/f32=f16.f16/ptx/fragment-r3/", "a=n,global", "b=n,global");
  tcmma_plan plan;
  verify_case_result r;
  assert_true(verify_case_check_plan(c, &plan, &r));
  int p = plan.mt * plan.nt * plan.kt;
  const char *lines[1] = {MMA_F16};
  assert_true(census_ok(c, lines, (const int[]){p}, 1));
  assert_false(census_ok(c, lines, (const int[]){3 * p}, 1));
  assert_false(census_ok(c, lines, (const int[]){2 * p}, 1));
}

/* Bit patterns of the formats (sign | exponent | mantissa), by hand. */
static void storage_encodings(void **state) {
  (void)state;
  const struct {
    tcmma_prec p;
    double v, back; /* v is stored as bits, which read back as `back` */
    unsigned bits;
  } pats[] = {
      {TCMMA_PREC_F16, 1, 1, 0x3C00},   {TCMMA_PREC_F16, -2, -2, 0xC000},
      {TCMMA_PREC_F16, 3, 3, 0x4200},   {TCMMA_PREC_F16, 64, 64, 0x5400},
      {TCMMA_PREC_F16, 0, 0, 0x0000},   {TCMMA_PREC_BF16, 1, 1, 0x3F80},
      {TCMMA_PREC_BF16, -3, -3, 0xC040}, {TCMMA_PREC_BF16, 200, 200, 0x4348},
      {TCMMA_PREC_E4M3, 1, 1, 0x38},    {TCMMA_PREC_E4M3, -2, -2, 0xC0},
      {TCMMA_PREC_E4M3, 3, 3, 0x44},    {TCMMA_PREC_E4M3, 64, 64, 0x68},
      {TCMMA_PREC_E5M2, 1, 1, 0x3C},    {TCMMA_PREC_E5M2, -1, -1, 0xBC},
      {TCMMA_PREC_E5M2, 3, 3, 0x42},    {TCMMA_PREC_E5M2, 64, 64, 0x54},
      /* ties to even: 1 + 3*2^-11 lies halfway between 0x3C01 and 0x3C02 */
      {TCMMA_PREC_F16, 1 + 0x3p-11, 1 + 0x2p-10, 0x3C02},
      {TCMMA_PREC_F16, 1 + 0x1p-11, 1, 0x3C00},
      /* fp8 saturates to the largest finite: 448 (e4m3), 57344 (e5m2) */
      {TCMMA_PREC_E4M3, 1000, 448, 0x7E}, {TCMMA_PREC_E5M2, -1e6, -57344, 0xFB},
  };
  for (size_t i = 0; i < sizeof pats / sizeof pats[0]; i++) {
    unsigned char buf[8] = {0};
    verify_storage_put(pats[i].p, buf, pats[i].v);
    unsigned got = buf[0] | (tcmma_prec_bytes(pats[i].p) > 1 ? (unsigned)buf[1] << 8 : 0);
    if (got != pats[i].bits)
      fail_msg("%s %g: 0x%X, expected 0x%X", tcmma_prec_name(pats[i].p), pats[i].v, got,
               pats[i].bits);
    assert_true(verify_storage_get(pats[i].p, buf) == pats[i].back);
  }
  unsigned char f[8];
  verify_storage_put(TCMMA_PREC_F32, f, -5);
  assert_true(verify_storage_get(TCMMA_PREC_F32, f) == -5);
  verify_storage_put(TCMMA_PREC_F64, f, 1 + 0x1p-40); /* not representable in f32 */
  assert_true(verify_storage_get(TCMMA_PREC_F64, f) == 1 + 0x1p-40);
  /* f16 infinity reads as infinity, never as a matching integer */
  unsigned char inf[2] = {0x00, 0x7C};
  assert_true(isinf(verify_storage_get(TCMMA_PREC_F16, inf)));
  /* the padding poison, all bytes 0xff, is NaN in every storage format */
  const tcmma_prec all[] = {TCMMA_PREC_F64, TCMMA_PREC_F32, TCMMA_PREC_F16, TCMMA_PREC_BF16,
                            TCMMA_PREC_E4M3, TCMMA_PREC_E5M2};
  unsigned char poison[8];
  memset(poison, 0xff, sizeof poison);
  for (size_t i = 0; i < sizeof all / sizeof all[0]; i++)
    if (!isnan(verify_storage_get(all[i], poison)))
      fail_msg("%s: all-0xff bytes read as a number", tcmma_prec_name(all[i]));
}

/* The shared buffers: every role element written once, the rest poisoned,
 * canaries after each; on the integer pass the reference is exactly d0 + the
 * sum of the products, summed here from the buffers' bytes. */
static void buffers_and_reference(void **state) {
  (void)state;
  const verify_case *c = find_case("mma-bf16/f32=bf16.bf16/ptx/fragment-r3/", "a=t,shared", NULL);
  tcmma_plan plan;
  verify_case_result r;
  assert_true(verify_case_check_plan(c, &plan, &r));
  verify_case_data x;
  assert_true(verify_case_data_init(&x, c, &plan, &r));
  verify_case_data_fill(&x, VERIFY_PASS_INTEGER);
  long m = c->call.m, n = c->call.n, k = c->call.k;
  const verify_operand_buf *a = &x.buf[1];
  assert_int_equal(a->elems, tcmma_kernel_operand_elems(&plan, c->outer, TCMMA_OPERAND_A));
  long pads = 0;
  for (long e = 0; e < a->elems; e++)
    pads += isnan(verify_storage_get(TCMMA_PREC_BF16, a->mem + 2 * e));
  assert_true(pads > 0); /* a=t,shared: rows padded */
  assert_int_equal(pads, a->elems - (long)c->outer * m * k);
  for (int o = 0; o < 3; o++)
    for (size_t i = x.buf[o].bytes; i < x.buf[o].bytes + VERIFY_CANARY_BYTES; i++)
      assert_int_equal(x.buf[o].mem[i], 0x5a);
  const unsigned char *d = x.buf[0].mem, *am = x.buf[1].mem, *bm = x.buf[2].mem;
  for (long i = 0; i < m; i++)
    for (long j = 0; j < n; j++) {
      long di = tcmma_kernel_operand_index(&plan, TCMMA_OPERAND_C, 0, i, j);
      double want = verify_storage_get(TCMMA_PREC_F32, d + 4 * di);
      for (int s = 0; s < c->outer; s++)
        for (long kk = 0; kk < k; kk++) {
          long ai = tcmma_kernel_operand_index(&plan, TCMMA_OPERAND_A, s, i, kk);
          long bi = tcmma_kernel_operand_index(&plan, TCMMA_OPERAND_B, s, kk, j);
          want += verify_storage_get(TCMMA_PREC_BF16, am + 2 * ai) *
                  verify_storage_get(TCMMA_PREC_BF16, bm + 2 * bi);
        }
      double mag;
      assert_true(want == floor(want));
      assert_true(want == verify_case_data_reference(&x, i, j, &mag));
    }
  verify_case_data_free(&x);
}

/* ---- the GPU executor on the fake driver ---- */

static const char *fake_lib;

static int fake_setup(void **state) {
  (void)state;
  setenv("TCMMA_CACHE", "0", 1);
  fake_lib = fake_cuda_build();
  return fake_lib ? 0 : -1;
}

static int fake_teardown(void **state) {
  (void)state;
  fake_cuda_remove();
  unsetenv("TCMMA_LIBCUDA");
  return 0;
}

static const verify_case *declined_case(void) {
  const verify_case *cs;
  size_t n = verify_matrix(&cs);
  for (size_t i = 0; i < n; i++)
    if (cs[i].expect != TCMMA_DECLINE_NONE) return &cs[i];
  fail_msg("no declined case in the matrix");
  return NULL;
}

/* Runs c on the GPU executor with the fake driver set up by env (pairs of
 * name, value; NULL-terminated) and checks the outcome and that the reason
 * holds `needle`. *arch (when given) gets the .target of the one program
 * compiled meanwhile, "" when none was. */
static void gpu_run(const verify_case *c, const char *library, const char *const *env,
                    verify_case_outcome want, const char *needle, char *arch) {
  fake_cuda_use(library);
  for (size_t i = 0; env && env[i]; i += 2) setenv(env[i], env[i + 1], 1);
  tcmma_cache_clear_memory();
  tcmma_target_scope *scope;
  assert_int_equal(tcmma_target_scope_begin(TCMMA_TARGET_FLOOR, &scope, NULL), TCMMA_OK);
  verify_case_result r;
  memset(&r, 0, sizeof r);
  r.outcome = (verify_case_outcome)-1;
  verify_exec_gpu(c, &r);
  tcmma_records recs;
  tcmma_target_scope_end(scope, &recs);
  if (r.outcome != want || !strstr(r.reason, needle))
    fail_msg("%s: outcome %d (%s), expected %d with '%s'", c->name, (int)r.outcome, r.reason,
             (int)want, needle);
  if (arch) {
    assert_true(recs.count <= 1);
    snprintf(arch, 24, "%s", recs.count ? recs.items[0].target_arch : "");
  }
  tcmma_records_free(&recs);
}

static void gpu_without_driver_or_device(void **state) {
  (void)state;
  const verify_case *c = find_case("mma-bf16/f32=bf16.bf16/ptx/", "a=t,shared", NULL);
  char arch[24];
  gpu_run(c, "/nonexistent/libcuda.so.1", NULL, VERIFY_CASE_SKIPPED, "no CUDA driver", arch);
  assert_string_equal(arch, ""); /* nothing compiled for no device */
  gpu_run(declined_case(), "/nonexistent/libcuda.so.1", NULL, VERIFY_CASE_PASSED, "", NULL);
  gpu_run(c, fake_lib, (const char *[]){"FAKE_CUDA_CCS", "", NULL}, VERIFY_CASE_SKIPPED,
          "no CUDA device", arch);
  assert_string_equal(arch, "");
  gpu_run(c, fake_lib, (const char *[]){"FAKE_CUDA_INIT", "100", NULL}, VERIFY_CASE_SKIPPED,
          "CUDA_ERROR_NO_DEVICE", NULL);
  /* a driver that loads but fails to start is an error, not a skip */
  gpu_run(c, fake_lib, (const char *[]){"FAKE_CUDA_INIT", "3", NULL}, VERIFY_CASE_FAILED,
          "cuInit: CUDA_ERROR_NOT_INITIALIZED", NULL);
  /* a device below the arm's floor (bf16 mma: PTX ISA, sm_80) */
  gpu_run(c, fake_lib, (const char *[]){"FAKE_CUDA_CCS", "75", NULL}, VERIFY_CASE_SKIPPED, "cc 75",
          arch);
  assert_string_equal(arch, "");
  gpu_run(declined_case(), fake_lib, NULL, VERIFY_CASE_PASSED, "", NULL);
}

/* The kernel is compiled for device 0's own cc and handed to the driver:
 * a rejected module fails with the JIT log; a module without tcmma_kernel
 * (the fake finds no kernel in a real CUBIN) fails naming it. */
static void gpu_driver_failures(void **state) {
  (void)state;
  const verify_case *c = find_case("mma-bf16/f32=bf16.bf16/ptx/", "a=t,shared", NULL);
  char arch[24];
  gpu_run(c, fake_lib, (const char *[]){"FAKE_CUDA_CCS", "90,80", "FAKE_CUDA_JIT_FAIL", "1", NULL},
          VERIFY_CASE_FAILED, "JIT log: ptxas fatal   : fake JIT rejection", arch);
  assert_string_equal(arch, "sm_90");
  gpu_run(c, fake_lib, (const char *[]){"FAKE_CUDA_CCS", "80,90", "FAKE_CUDA_JIT_FAIL", "1", NULL},
          VERIFY_CASE_FAILED, "CUDA_ERROR_INVALID_PTX", arch);
  assert_string_equal(arch, "sm_80");
  gpu_run(c, fake_lib, (const char *[]){"FAKE_CUDA_CCS", "86", NULL}, VERIFY_CASE_FAILED,
          "cuModuleGetFunction('tcmma_kernel'): CUDA_ERROR_NOT_FOUND", arch);
  assert_string_equal(arch, "sm_86");
}

/* A kernel the driver runs: the buffers come back and go through the same
 * checks as the sim executor's; one that computes nothing fails the integer
 * pass, one that writes into a fails as modifying an input. */
static void gpu_runs_the_shared_checks(void **state) {
  (void)state;
  const verify_case *c = find_case("mma-bf16/f32=bf16.bf16/ptx/", "a=t,shared", NULL);
  gpu_run(c, fake_lib, (const char *[]){"FAKE_CUDA_KERNEL", "noop", NULL}, VERIFY_CASE_FAILED,
          "integer pass: d[", NULL);
  gpu_run(c, fake_lib, (const char *[]){"FAKE_CUDA_KERNEL", "scribble", NULL}, VERIFY_CASE_FAILED,
          "integer pass: the kernel modified an input (a)", NULL);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(census_check_can_fail),
      cmocka_unit_test(census_trans_rule),
      cmocka_unit_test(census_outer_loop),
      cmocka_unit_test(storage_encodings),
      cmocka_unit_test(buffers_and_reference),
      cmocka_unit_test(gpu_without_driver_or_device),
      cmocka_unit_test(gpu_driver_failures),
      cmocka_unit_test(gpu_runs_the_shared_checks),
  };
  return cmocka_run_group_tests(tests, fake_setup, fake_teardown);
}
