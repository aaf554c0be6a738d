/* tcmma_compile_batch: many kernels in one NVRTC program, one result per
 * kernel. Each kernel's part of the module must read as that kernel
 * compiled alone (its own .entry, the .funcs it calls, its census), a
 * ptxas rejection is charged to the kernel whose PTX ptxas names, the
 * batch is one cache entry, and bad kernel lists are refused. */
#include "util.h"
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "tcmma/tcmma.h"

/* k_mma: four f16 mma.sync through a noinline helper; k_add: none; k_bf16:
 * one bf16 mma.sync, which ptxas refuses below sm_80. The instructions sit
 * in macros so that the markers do not raise the arch (test_compile.c). */
static const char batch_src[] =
    "#define MMA_F16 \"mma.sync.aligned.m16n8k8.row.col.f32.f16.f16.f32 \"\n"
    "__device__ __noinline__ float helper(unsigned a, unsigned b) {\n"
    "  float c0 = 0, c1 = 0, c2 = 0, c3 = 0;\n"
    "  for (int i = 0; i < 4; i++)\n"
    "    asm volatile(MMA_F16 \"{%0,%1,%2,%3}, {%4,%5}, {%6}, {%0,%1,%2,%3};\"\n"
    "      : \"+f\"(c0), \"+f\"(c1), \"+f\"(c2), \"+f\"(c3) : \"r\"(a), \"r\"(b), \"r\"(b));\n"
    "  return c0 + c1 + c2 + c3;\n"
    "}\n"
    "extern \"C\" __global__ void k_mma(const unsigned *a, const unsigned *b, float *d) {\n"
    "  d[threadIdx.x] = helper(a[0], b[0]);\n"
    "}\n"
    "extern \"C\" __global__ void k_add(const float *a, float *d) {\n"
    "  d[threadIdx.x] = a[threadIdx.x] + 1.0f;\n"
    "}\n";

static const char bf16_kernel[] =
    "#define MMA_BF16 \"mma.sync.aligned.m16n8k16.row.col.f32.bf16.bf16.f32 \"\n"
    "extern \"C\" __global__ void k_bf16(const unsigned *a, const unsigned *b, float *d) {\n"
    "  float c0 = 0, c1 = 0, c2 = 0, c3 = 0;\n"
    "  asm volatile(MMA_BF16 \"{%0,%1,%2,%3}, {%4,%5,%6,%7}, {%8,%9}, {%0,%1,%2,%3};\"\n"
    "    : \"+f\"(c0), \"+f\"(c1), \"+f\"(c2), \"+f\"(c3)\n"
    "    : \"r\"(a[0]), \"r\"(a[1]), \"r\"(a[2]), \"r\"(a[3]), \"r\"(b[0]), \"r\"(b[1]));\n"
    "  d[threadIdx.x] = c0 + c1 + c2 + c3;\n"
    "}\n";

static char cache_dir[256];

static int fresh_cache(void **state) {
  (void)state;
  test_cache_fresh(cache_dir, sizeof cache_dir, "batch");
  return 0;
}

static int remove_cache(void **state) {
  (void)state;
  return test_cache_remove(cache_dir);
}

static size_t count_of(const tcmma_ptx_info *info, const char *prefix) {
  size_t n = 0;
  for (size_t i = 0; i < info->census_count; i++)
    if (strncmp(info->census[i].opcode, prefix, strlen(prefix)) == 0) n += info->census[i].count;
  return n;
}

static void parse(const tcmma_program *p, tcmma_ptx_info *info) {
  tcmma_error err;
  if (tcmma_ptx_parse(p->ptx, p->ptx_len, info, &err) != TCMMA_OK)
    fail_msg("the kernel's PTX does not read: %s\n%s", err.message, p->ptx);
}

/* The census of p and q agree opcode by opcode. */
static void same_census(const tcmma_ptx_info *p, const tcmma_ptx_info *q) {
  assert_int_equal(p->census_count, q->census_count);
  for (size_t i = 0; i < p->census_count; i++) {
    assert_string_equal(p->census[i].opcode, q->census[i].opcode);
    assert_int_equal(p->census[i].count, q->census[i].count);
  }
}

/* Each kernel's part holds its own entry and what it calls, and reads as
 * the kernel compiled alone. */
static void split_per_kernel(void **state) {
  (void)state;
  const char *names[] = {"k_mma", "k_add"};
  tcmma_compile_opts o = TCMMA_COMPILE_OPTS_INIT(.arch = 80, .sass = true);
  tcmma_program out[2];
  tcmma_error err;
  tcmma_status st = tcmma_compile_batch(batch_src, strlen(batch_src), names, 2, &o, out, &err);
  if (st != TCMMA_OK) fail_msg("batch: %s", err.message);
  for (int i = 0; i < 2; i++) {
    tcmma_ptx_info info;
    parse(&out[i], &info);
    assert_int_equal(info.entry_count, 1);
    assert_string_equal(info.entries[0], names[i]);
    assert_string_equal(info.target, "sm_80");
    assert_non_null(out[i].cubin);
    assert_false(out[i].cache_hit);
    /* only k_mma reaches the helper and its four mma.sync */
    assert_int_equal(count_of(&info, "mma.sync"), i == 0 ? 4 : 0);
    assert_int_equal(strstr(out[i].ptx, ".func") != NULL, i == 0);
    /* the same kernel alone: the same census */
    char alone[sizeof batch_src + 64];
    const char *own = i == 0 ? strstr(batch_src, "extern \"C\" __global__ void k_add")
                             : strstr(batch_src, "extern \"C\" __global__ void k_mma");
    const char *next = strstr(own + 1, "extern \"C\"");
    snprintf(alone, sizeof alone, "%.*s%s", (int)(own - batch_src), batch_src, next ? next : "");
    tcmma_program p;
    if (tcmma_compile(alone, strlen(alone), &o, &p, &err) != TCMMA_OK)
      fail_msg("alone: %s", err.message);
    tcmma_ptx_info solo;
    parse(&p, &solo);
    assert_int_equal(solo.entry_count, 1);
    assert_string_equal(solo.entries[0], names[i]);
    same_census(&info, &solo);
    tcmma_ptx_info_free(&solo), tcmma_ptx_info_free(&info);
    tcmma_program_free(&p);
  }
  tcmma_program_free(&out[0]), tcmma_program_free(&out[1]);
  /* the batch is one cache entry: all hits, the same parts */
  tcmma_cache_clear_memory();
  tcmma_program again[2];
  assert_int_equal(tcmma_compile_batch(batch_src, strlen(batch_src), names, 2, &o, again, &err),
                   TCMMA_OK);
  assert_true(again[0].cache_hit && again[1].cache_hit);
  assert_non_null(strstr(again[0].ptx, ".entry k_mma"));
  assert_null(strstr(again[0].ptx, ".entry k_add"));
  tcmma_program_free(&again[0]), tcmma_program_free(&again[1]);
}

/* Below sm_80 ptxas refuses k_bf16: the batch fails, k_bf16's log names
 * the floor, k_add's holds no ptxas error of k_bf16's; the rejection is
 * cached and comes back the same. */
static void rejection_charged_to_its_kernel(void **state) {
  (void)state;
  char src[sizeof batch_src + sizeof bf16_kernel];
  snprintf(src, sizeof src, "%s%s", batch_src, bf16_kernel);
  const char *names[] = {"k_add", "k_bf16"};
  tcmma_compile_opts o = TCMMA_COMPILE_OPTS_INIT(.arch = 75, .sass = true);
  for (int round = 0; round < 2; round++) {
    tcmma_program out[2];
    tcmma_error err;
    assert_int_equal(tcmma_compile_batch(src, strlen(src), names, 2, &o, out, &err),
                     TCMMA_COMPILE);
    assert_int_equal(out[0].cache_hit, round == 1);
    assert_non_null(strstr(out[1].log, "requires .target sm_80"));
    assert_null(strstr(out[0].log, "requires .target sm_80"));
    assert_non_null(out[1].ptx); /* the PTX ptxas refused, for the log's line numbers */
    assert_non_null(strstr(out[1].ptx, ".entry k_bf16"));
    assert_null(strstr(out[1].ptx, ".entry k_add"));
    tcmma_program_free(&out[0]), tcmma_program_free(&out[1]);
    tcmma_cache_clear_memory();
  }
}

/* The text of line n (from 1) of text, into line[cap]; false past the end. */
static bool line_of(const char *text, long n, char *line, size_t cap) {
  for (long at = 1; text && at < n; at++)
    if ((text = strchr(text, '\n'))) text++;
  if (!text || !*text) return false;
  snprintf(line, cap, "%.*s", (int)strcspn(text, "\n"), text);
  return true;
}

/* Every "ptx input, line N" of p's log points at a line of p's own PTX that
 * holds what: the log reads against the kernel's part as it would against
 * the kernel compiled alone. Returns how many lines it checked. */
static int lines_point_into_own_ptx(const tcmma_program *p, const char *what) {
  int checked = 0;
  for (const char *at = p->log; (at = strstr(at, "ptx input, line ")); at++) {
    char line[512];
    long n = strtol(at + strlen("ptx input, line "), NULL, 10);
    if (!line_of(p->ptx, n, line, sizeof line) || !strstr(line, what))
      fail_msg("log line %ld does not point at '%s' in the kernel's PTX:\n%s", n, what, p->ptx);
    checked++;
  }
  return checked;
}

/* ptxas's line numbers count lines of the whole module; each kernel's log
 * counts them in its own part. */
static void log_lines_point_into_the_part(void **state) {
  (void)state;
  char src[sizeof batch_src + sizeof bf16_kernel];
  snprintf(src, sizeof src, "%s%s", batch_src, bf16_kernel);
  const char *names[] = {"k_mma", "k_bf16"};
  tcmma_compile_opts o = TCMMA_COMPILE_OPTS_INIT(.arch = 75, .sass = true);
  tcmma_program out[2];
  tcmma_error err;
  assert_int_equal(tcmma_compile_batch(src, strlen(src), names, 2, &o, out, &err), TCMMA_COMPILE);
  assert_true(lines_point_into_own_ptx(&out[1], "bf16") > 0);
  tcmma_program_free(&out[0]), tcmma_program_free(&out[1]);
}

/* An error in a .func only k_bf16 calls is k_bf16's: k_add's log, which
 * compiled alone is clean, holds none of it. */
static const char helper_bf16_src[] =
    "#define MMA_BF16 \"mma.sync.aligned.m16n8k16.row.col.f32.bf16.bf16.f32 \"\n"
    "__device__ __noinline__ float bad(const unsigned *a, const unsigned *b) {\n"
    "  float c0 = 0, c1 = 0, c2 = 0, c3 = 0;\n"
    "  asm volatile(MMA_BF16 \"{%0,%1,%2,%3}, {%4,%5,%6,%7}, {%8,%9}, {%0,%1,%2,%3};\"\n"
    "    : \"+f\"(c0), \"+f\"(c1), \"+f\"(c2), \"+f\"(c3)\n"
    "    : \"r\"(a[0]), \"r\"(a[1]), \"r\"(a[2]), \"r\"(a[3]), \"r\"(b[0]), \"r\"(b[1]));\n"
    "  return c0 + c1 + c2 + c3;\n"
    "}\n"
    "extern \"C\" __global__ void k_add(const float *a, float *d) {\n"
    "  d[threadIdx.x] = a[threadIdx.x] + 1.0f;\n"
    "}\n"
    "extern \"C\" __global__ void k_bf16(const unsigned *a, const unsigned *b, float *d) {\n"
    "  d[threadIdx.x] = bad(a, b);\n"
    "}\n";

static void func_error_charged_to_its_caller(void **state) {
  (void)state;
  const char *names[] = {"k_add", "k_bf16"};
  tcmma_compile_opts o = TCMMA_COMPILE_OPTS_INIT(.arch = 75, .sass = true);
  tcmma_program out[2];
  tcmma_error err;
  assert_int_equal(tcmma_compile_batch(helper_bf16_src, strlen(helper_bf16_src), names, 2, &o,
                                       out, &err), TCMMA_COMPILE);
  assert_non_null(strstr(out[1].log, "requires .target sm_80"));
  assert_true(lines_point_into_own_ptx(&out[1], "bf16") > 0);
  if (strstr(out[0].log, "ptx input"))
    fail_msg("k_add's log holds k_bf16's helper's errors:\n%s", out[0].log);
  tcmma_program_free(&out[0]), tcmma_program_free(&out[1]);
}

/* A ptxas error that names an entry without a PTX line is that kernel's. */
static void named_entry_error_charged_to_it(void **state) {
  (void)state;
  static const char src[] =
      "extern \"C\" __global__ void k_add(const float *a, float *d) {\n"
      "  d[threadIdx.x] = a[threadIdx.x] + 1.0f;\n"
      "}\n"
      "extern \"C\" __global__ void k_big(float *d) {\n"
      "  __shared__ float s[30000];\n"
      "  s[threadIdx.x] = 1; __syncthreads(); d[threadIdx.x] = s[threadIdx.x ^ 1];\n"
      "}\n";
  const char *names[] = {"k_add", "k_big"};
  tcmma_compile_opts o = TCMMA_COMPILE_OPTS_INIT(.arch = 80, .sass = true);
  tcmma_program out[2];
  tcmma_error err;
  assert_int_equal(tcmma_compile_batch(src, strlen(src), names, 2, &o, out, &err), TCMMA_COMPILE);
  assert_non_null(strstr(out[1].log, "'k_big' uses too much shared data"));
  if (strstr(out[0].log, "k_big"))
    fail_msg("k_add's log names k_big's error:\n%s", out[0].log);
  tcmma_program_free(&out[0]), tcmma_program_free(&out[1]);
}

static void bad_kernel_lists(void **state) {
  (void)state;
  tcmma_program out[3];
  tcmma_error err;
  const char *twice[] = {"k_mma", "k_mma"};
  const char *empty[] = {"k_mma", ""};
  const char *null[] = {NULL};
  const char *absent[] = {"k_mma", "k_nowhere"};
  size_t len = strlen(batch_src);
  tcmma_compile_opts o = TCMMA_COMPILE_OPTS_INIT(.arch = 80);
  assert_int_equal(tcmma_compile_batch(batch_src, len, twice, 2, &o, out, &err), TCMMA_INVALID);
  assert_non_null(strstr(err.message, "'k_mma' named twice"));
  assert_int_equal(tcmma_compile_batch(batch_src, len, empty, 2, &o, out, &err), TCMMA_INVALID);
  assert_non_null(strstr(err.message, "kernel 1 has no name"));
  assert_int_equal(tcmma_compile_batch(batch_src, len, null, 1, &o, out, &err), TCMMA_INVALID);
  assert_int_equal(tcmma_compile_batch(batch_src, len, twice, 0, &o, out, &err), TCMMA_INVALID);
  assert_int_equal(tcmma_compile_batch(batch_src, len, absent, 2, &o, out, &err), TCMMA_INVALID);
  assert_non_null(strstr(err.message, "no .entry k_nowhere"));
  assert_null(out[0].ptx); /* nothing half-filled */
  assert_int_equal(tcmma_compile_batch(batch_src, len, twice, 2, &o, NULL, &err), TCMMA_INVALID);
}

/* Three kernels whose ptxas figures differ: k_regs spills under the
 * register cap, k_smem declares 4 KiB of shared memory, k_stack calls a
 * .func of its own with a local array. */
static const char *const figure_kernels[3] = {
    "extern \"C\" __global__ void k_regs(const float *a, float *d) {\n"
    "  float v[48];\n"
    "#pragma unroll\n"
    "  for (int i = 0; i < 48; i++) v[i] = a[threadIdx.x + 32 * i];\n"
    "  float s = 0;\n"
    "#pragma unroll\n"
    "  for (int i = 0; i < 48; i++) s += v[i] * v[47 - i];\n"
    "#pragma unroll\n"
    "  for (int i = 0; i < 48; i++) d[threadIdx.x + 32 * i] = v[i] * s;\n"
    "}\n",
    "extern \"C\" __global__ void k_smem(const float *a, float *d) {\n"
    "  __shared__ float tile[1024];\n"
    "  for (int i = threadIdx.x; i < 1024; i += blockDim.x) tile[i] = a[i];\n"
    "  __syncthreads();\n"
    "  d[threadIdx.x] = tile[1023 - threadIdx.x];\n"
    "}\n",
    "__device__ __noinline__ float pick(const float *a, int i) {\n"
    "  float local[64];\n"
    "  for (int j = 0; j < 64; j++) local[j] = a[j];\n"
    "  return local[i & 63];\n"
    "}\n"
    "extern \"C\" __global__ void k_stack(const float *a, float *d) {\n"
    "  d[threadIdx.x] = pick(a, (int)threadIdx.x);\n"
    "}\n",
};

static void same_figures(const tcmma_program *p, const tcmma_program *q) {
  assert_true(p->ptxas_info && q->ptxas_info);
  assert_int_equal(p->registers, q->registers);
  assert_int_equal(p->spill_store_bytes, q->spill_store_bytes);
  assert_int_equal(p->spill_load_bytes, q->spill_load_bytes);
  assert_int_equal(p->stack_bytes, q->stack_bytes);
  assert_int_equal(p->shared_bytes, q->shared_bytes);
}

/* A batched CUBIN compile gives each kernel its own ptxas figures, those of
 * the kernel compiled alone (not the program's: the most registers, every
 * spill), from a fresh compile and from a disk hit; no log keeps ptxas's
 * lines. */
static void figures_per_kernel(void **state) {
  (void)state;
  const char *names[] = {"k_regs", "k_smem", "k_stack"};
  const char *const cap[] = {"--maxrregcount=40"};
  tcmma_compile_opts o = TCMMA_COMPILE_OPTS_INIT(.arch = 80, .sass = true, .extra = cap,
                                                 .n_extra = 1);
  char src[4096];
  snprintf(src, sizeof src, "%s%s%s", figure_kernels[0], figure_kernels[1], figure_kernels[2]);
  tcmma_program alone[3];
  tcmma_error err;
  for (int i = 0; i < 3; i++)
    if (tcmma_compile(figure_kernels[i], strlen(figure_kernels[i]), &o, &alone[i], &err) !=
        TCMMA_OK)
      fail_msg("%s alone: %s", names[i], err.message);
  /* the premise: the kernels' figures differ from the whole program's */
  assert_true(alone[0].spill_store_bytes > 0 && alone[1].spill_store_bytes == 0);
  assert_true(alone[1].shared_bytes == 4096 && alone[0].shared_bytes == 0);
  assert_true(alone[1].registers < alone[0].registers);
  assert_true(alone[2].stack_bytes > 0 && alone[1].stack_bytes == 0);
  for (int round = 0; round < 2; round++) {
    tcmma_program out[3];
    if (tcmma_compile_batch(src, strlen(src), names, 3, &o, out, &err) != TCMMA_OK)
      fail_msg("batch: %s", err.message);
    for (int i = 0; i < 3; i++) {
      assert_int_equal(out[i].cache_hit, round == 1);
      same_figures(&out[i], &alone[i]);
      assert_null(strstr(out[i].log, "ptxas"));
      tcmma_program_free(&out[i]);
    }
    tcmma_cache_clear_memory(); /* round 1: a disk hit */
  }
  for (int i = 0; i < 3; i++) tcmma_program_free(&alone[i]);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test_setup_teardown(split_per_kernel, fresh_cache, remove_cache),
      cmocka_unit_test_setup_teardown(figures_per_kernel, fresh_cache, remove_cache),
      cmocka_unit_test_setup_teardown(rejection_charged_to_its_kernel, fresh_cache, remove_cache),
      cmocka_unit_test_setup_teardown(bad_kernel_lists, fresh_cache, remove_cache),
      cmocka_unit_test_setup_teardown(log_lines_point_into_the_part, fresh_cache, remove_cache),
      cmocka_unit_test_setup_teardown(func_error_charged_to_its_caller, fresh_cache, remove_cache),
      cmocka_unit_test_setup_teardown(named_entry_error_charged_to_it, fresh_cache, remove_cache),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
