/* tables/arm_emulation.def proven from the SASS, both ways: a one-tile
 * kernel of every inline-PTX arm, compiled by NVRTC and ptxas for a device
 * and read with nvdisasm, issues tcmma_arm_sass_products tensor-core
 * instructions: more than one where a row says ptxas emulates the arm
 * (inside the row's range), exactly one just outside it and for every arm
 * no row names. Then the GEMM plans for the extra registers emulation
 * takes, and says so when it declines. */
#include "util.h"
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "tcmma/tcmma.h"
#include "tools/bench_sass.h"

/* A storage triple of each inline-PTX arm, and what else its emit needs
 * (the tile is the arm's row; a new arm without one fails
 * every_arm_has_a_kernel). */
typedef struct {
  const char *arm, *d, *a, *b, *extra[2];
} arm_kernel;

static const arm_kernel kernels[] = {
    {"mma-f16", "f32", "f16", "f16", {NULL}},
    {"mma-f16-k8", "f32", "f16", "f16", {NULL}},
    {"mma-f16-acc16", "f16", "f16", "f16", {"--fp16", "narrow"}},
    {"mma-bf16", "f32", "bf16", "bf16", {NULL}},
    {"mma-tf32", "f32", "f32", "f32,t", {"--tf32"}},
    {"mma-fp8", "f32", "e4m3", "e4m3,t", {NULL}},
    {"mma-fp8-acc16", "f16", "e4m3", "e4m3,t", {"--fp16", "narrow"}},
    {"mma-mxfp8", "f32", "mxe4m3", "mxe4m3,t", {NULL}},
    {"mma-s8", "s32", "s8", "s8,t", {NULL}},
    {"mma-s8-sat", "s32", "s8", "s8,t", {"--saturate"}},
    {"mma-f64", "f64", "f64", "f64", {NULL}},
    {"mma-f8f6f4", "f32", "e2m1", "e3m2,t", {NULL}},
    {"mma-mxf4", "f32", "mxf4", "mxf4,t", {NULL}},
    {"mma-nvf4", "f32", "nvf4", "nvf4,t", {NULL}},
};

/* The devices an arm a row names is compiled for: both ends of the row's
 * range, inside it, and the devices on each side; an arm no row names, on
 * the devices the rows name. */
static const int devices[] = {89, 90, 100, 103, 110, 120}, unnamed[] = {90, 110};

static bool named(tcmma_arm arm) {
#define TCMMA_ARM_EMULATION(ARM, lo, hi, products, sass) \
  if (arm == TCMMA_ARM_##ARM) return true;
#include "tables/arm_emulation.def"
#undef TCMMA_ARM_EMULATION
  return false;
}

static const arm_kernel *kernel_of(const char *marker) {
  for (size_t i = 0; i < sizeof kernels / sizeof kernels[0]; i++)
    if (strcmp(kernels[i].arm, marker) == 0) return &kernels[i];
  return NULL;
}

static void every_arm_has_a_kernel(void **s) {
  (void)s;
  for (int a = 0; a < TCMMA_ARM_COUNT; a++) {
    const tcmma_arm_info *info = tcmma_arm_get((tcmma_arm)a);
    if (info->form == TCMMA_FORM_PTX && !kernel_of(info->marker))
      fail_msg("%s has no kernel in tests/test_arm_emulation.c", info->marker);
  }
  /* cc 0 and a device the arm does not run on: no SASS to count */
  assert_int_equal(tcmma_arm_sass_products(TCMMA_ARM_MMA_FP8, 0), 0);
  assert_int_equal(tcmma_arm_sass_products(TCMMA_ARM_MMA_FP8, 80), 0);
  assert_int_equal(tcmma_arm_sass_products(TCMMA_ARM_MMA_MXFP8, 90), 0);
  assert_int_equal(tcmma_arm_sass_products(TCMMA_ARM_NONE, 90), 0);
  assert_int_equal(tcmma_arm_sass_products(TCMMA_ARM_MMA_FP8, 5), 0); /* not a cc */
}

static bool write_whole(const char *path, const char *text, size_t len) {
  FILE *f = fopen(path, "wb");
  if (!f) return false;
  bool ok = fwrite(text, 1, len, f) == len;
  return fclose(f) == 0 && ok;
}

/* The tensor-core instructions in the SASS of k's one-tile kernel at cc;
 * -1 when a step fails (message in why). */
static long sass_products(const arm_kernel *k, int cc, const char *nvdisasm, char *why,
                          size_t cap) {
  char dir[] = "/tmp/tcmma-emulation-XXXXXX", cu[64], cubin[64], ccs[8], arch[16];
  if (!mkdtemp(dir)) return snprintf(why, cap, "mkdtemp failed"), -1;
  snprintf(cu, sizeof cu, "%s/k.cu", dir), snprintf(cubin, sizeof cubin, "%s/k.cubin", dir);
  tcmma_arm arm = TCMMA_ARM_NONE;
  tcmma_arm_parse(k->arm, &arm, NULL);
  const tcmma_arm_info *info = tcmma_arm_get(arm);
  if (!info) return snprintf(why, cap, "no arm %s", k->arm), rmdir(dir), -1;
  /* a family arm needs its arch-specific target */
  snprintf(ccs, sizeof ccs, "%d", cc);
  snprintf(arch, sizeof arch, "sm_%d%s", cc, info->family ? "a" : "");
  char ms[16], ns[16], ks[16]; /* one tile of the arm, from its row */
  snprintf(ms, sizeof ms, "%d", info->m), snprintf(ns, sizeof ns, "%d", info->n);
  snprintf(ks, sizeof ks, "%d", info->k);
  const char *emit[] = {"emit", "--m", ms, "--n", ns, "--k", ks, "--d", k->d, "--a", k->a,
                        "--b", k->b, "--arm", k->arm, "--cc", ccs, "--kernel",
                        k->extra[0], k->extra[1], NULL};
  cli_result r = run_cli(emit, NULL);
  long n = -1;
  if (r.exit_code != 0) {
    snprintf(why, cap, "emit: %.300s", r.err);
  } else if (!write_whole(cu, r.out, strlen(r.out))) {
    snprintf(why, cap, "cannot write %s", cu);
  } else {
    const char *compile[] = {"compile", cu, "--arch", arch, "--sass", "-o", cubin, NULL};
    cli_result c = run_cli(compile, NULL);
    size_t len = 0;
    unsigned char *bin = c.exit_code == 0 ? (unsigned char *)read_file(cubin, &len) : NULL;
    char *text = bin ? bench_sass_disassemble(nvdisasm, bin, len, why, cap) : NULL;
    bench_sass sass;
    if (c.exit_code != 0) snprintf(why, cap, "compile: %.300s", c.err);
    else if (!bin) snprintf(why, cap, "no CUBIN at %s", cubin);
    if (text && bench_sass_parse(text, NULL, &sass, why, cap)) {
      long counts[BENCH_SASS_NCLASS];
      bench_sass_count(&sass, 0, sass.n - 1, counts);
      n = counts[BENCH_SASS_MMA];
      bench_sass_free(&sass);
    }
    free(text), free(bin);
    cli_result_free(&c);
  }
  cli_result_free(&r);
  remove(cu), remove(cubin), rmdir(dir);
  return n;
}

static void rows_hold_in_the_sass(void **s) {
  (void)s;
  char nvdisasm[1024], why[512] = "";
  if (!bench_sass_find_nvdisasm(nvdisasm, sizeof nvdisasm))
    fail_msg("no nvdisasm: make deps installs the nvidia-cuda-nvdisasm wheel");
  int emulated = 0, native = 0;
  for (size_t i = 0; i < sizeof kernels / sizeof kernels[0]; i++) {
    tcmma_arm arm;
    assert_int_equal(tcmma_arm_parse(kernels[i].arm, &arm, NULL), TCMMA_OK);
    const int *ccs = named(arm) ? devices : unnamed;
    size_t n = named(arm) ? sizeof devices / sizeof devices[0] : sizeof unnamed / sizeof unnamed[0];
    for (size_t d = 0; d < n; d++) {
      int want = tcmma_arm_sass_products(arm, ccs[d]);
      if (want == 0) continue; /* the arm does not run there */
      long got = sass_products(&kernels[i], ccs[d], nvdisasm, why, sizeof why);
      if (got < 0) fail_msg("%s at sm_%d: %s", kernels[i].arm, ccs[d], why);
      printf("%s sm_%d: %ld tensor-core instructions, the table says %d\n", kernels[i].arm,
             ccs[d], got, want);
      if (got != want)
        fail_msg("%s at sm_%d: %ld tensor-core instructions for one mma.sync, "
                 "tables/arm_emulation.def says %d", kernels[i].arm, ccs[d], got, want);
      want > 1 ? emulated++ : native++;
    }
  }
  assert_true(emulated > 0 && native > 0);
}

/* The GEMM of one fp8 tile configuration at cc: its registers expected
 * (0 when declined, message in msg). */
static int gemm_registers(int cc, const char *tile, const char *warps, char *msg, size_t cap) {
  tcmma_gemm_call c = tcmma_gemm_call_default();
  c.m = c.n = c.k = 1024, c.cc = cc;
  c.d.prec = TCMMA_PREC_F32, c.a.prec = c.b.prec = TCMMA_PREC_E4M3, c.b.transposed = true;
  if (sscanf(tile, "%dx%dx%d", &c.block_m, &c.block_n, &c.block_k) != 3) return -1;
  if (sscanf(warps, "%dx%d", &c.warps_m, &c.warps_n) != 2) return -1;
  tcmma_gemm_plan p;
  tcmma_error err = {0};
  tcmma_status st = tcmma_gemm_plan_call(&c, &p, &err);
  snprintf(msg, cap, "%s", st == TCMMA_OK ? "" : p.message);
  return st == TCMMA_OK ? p.registers : 0;
}

static void gemm_plans_for_emulation(void **s) {
  (void)s;
  char msg[TCMMA_ERROR_MAX];
  /* a small warp tile: accepted on both, the emulated estimate higher */
  int native = gemm_registers(89, "64x64x64", "2x2", msg, sizeof msg),
      emulated = gemm_registers(90, "64x64x64", "2x2", msg, sizeof msg);
  assert_true(native > 0);
  assert_int_equal(emulated, native + TCMMA_GEMM_REGISTERS_EMULATED);
  assert_int_equal(gemm_registers(120, "64x64x64", "2x2", msg, sizeof msg), native);
  /* a 32x64 warp tile spills at sm_100 (ptxas -v: 255 registers, 4 bytes
   * of spill stores): declined there, saying why */
  assert_true(gemm_registers(89, "64x64x64", "2x1", msg, sizeof msg) > 0);
  assert_int_equal(gemm_registers(100, "64x64x64", "2x1", msg, sizeof msg), 0);
  assert_non_null(strstr(msg, "an mma.sync ptxas emulates on this cc"));
  /* 512 threads leave a thread 128 registers: ptxas spills the emulation
   * (12 bytes at sm_100), not the native kernel */
  assert_true(gemm_registers(89, "128x128x64", "4x4", msg, sizeof msg) > 128);
  assert_int_equal(gemm_registers(90, "128x128x64", "4x4", msg, sizeof msg), 0);
  assert_non_null(strstr(msg, "over the 128 a thread of a 512-thread block may have"));
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(every_arm_has_a_kernel),
      cmocka_unit_test(rows_hold_in_the_sass),
      cmocka_unit_test(gemm_plans_for_emulation),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
