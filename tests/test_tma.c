/* TMA and mbarrier pieces (include/tcmma/tma.h): the CUDA text compiles
 * with NVRTC at sm_90 without warnings, its floor comes from the inline
 * asm alone (compute_90) and ptxas refuses it at sm_89; the host dialect
 * runs on the simulator (mma/sim/tma.c), landing each box's bytes where
 * tcmma_tensor_map_shared_offset says with zeros outside the tensor, and
 * the broken variants (wrong expect_tx byte count, the wrong parity, a
 * read before the wait, no init) are reported, never hung. */
#include <dlfcn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "util.h"
#include "tcmma/tcmma.h"
#include "tcmma/sim.h"

static tcmma_tensor_map map_2d(tcmma_prec p, const void *base, unsigned rows, unsigned cols,
                               unsigned box_rows, unsigned box_cols, tcmma_swizzle sw) {
  int eb = tcmma_prec_bytes(p);
  return tcmma_tensor_map_2d(p, (unsigned long long)(uintptr_t)base, rows, cols,
                             (unsigned long long)cols * eb, box_rows, box_cols, sw);
}

static char *kernel(tcmma_dialect dl, const tcmma_tensor_map *m) {
  tcmma_buf out = {0};
  tcmma_error err = {0};
  if (tcmma_render_tma_kernel(dl, m, NULL, &out, &err) != TCMMA_OK) fail_msg("%s", err.message);
  return out.data;
}

static tcmma_status compile(const char *text, int arch, tcmma_program *prog, tcmma_error *err) {
  tcmma_compile_opts o = TCMMA_COMPILE_OPTS_INIT(.sass = true, .arch = arch);
  return tcmma_compile(text, strlen(text), &o, prog, err);
}

static void compiles_at_sm90_only(void **state) {
  (void)state;
  tcmma_error err = {0};
  if (tcmma_nvrtc_load(NULL, &err) != TCMMA_OK) skip();
  static unsigned char g[64];
  for (int rank = 1; rank <= TCMMA_TMAP_RANK_MAX; rank++) {
    tcmma_tensor_map m = tcmma_tensor_map_default();
    m.prec = TCMMA_PREC_F16, m.rank = rank, m.address = (uintptr_t)g;
    for (int i = 0; i < rank; i++) m.dims[i] = 16, m.box[i] = i ? 2 : 16;
    for (int i = 0; i + 1 < rank; i++) m.strides[i] = 32ULL << (4 * i);
    char *text = kernel(TCMMA_DIALECT_CUDA, &m);
    tcmma_arch_options ao;
    assert_int_equal(tcmma_gpu_arch_options(text, strlen(text), 0, TCMMA_TARGET_FLOOR, &ao, &err), TCMMA_OK);
    assert_string_equal(ao.option, "--gpu-architecture=compute_90");
    tcmma_program prog;
    if (compile(text, 0, &prog, &err) != TCMMA_OK) fail_msg("%s\n%s", err.message, text);
    assert_string_equal(prog.target_arch, "sm_90");
    if (prog.log && strstr(prog.log, "warning")) fail_msg("warnings:\n%s", prog.log);
    char want[160];
    snprintf(want, sizeof want, "cp.async.bulk.tensor.%dd.shared::cluster.global.tile."
             "mbarrier::complete_tx::bytes", rank);
    const char *ops[] = {want, "mbarrier.init.shared::cta.b64", "mbarrier.try_wait.parity",
                         "mbarrier.arrive.expect_tx", "fence.mbarrier_init.release.cluster"};
    for (size_t i = 0; i < sizeof ops / sizeof ops[0]; i++)
      if (!strstr(prog.ptx, ops[i])) fail_msg("rank %d: the PTX has no %s", rank, ops[i]);
    tcmma_program_free(&prog);
    /* the floor: ptxas refuses the instructions at sm_89 */
    assert_int_equal(compile(text, 89, &prog, &err), TCMMA_COMPILE);
    if (!strstr(err.message, "sm_90") && !(prog.log && strstr(prog.log, "sm_90")))
      fail_msg("rank %d at sm_89: %s\n%s", rank, err.message, prog.log ? prog.log : "");
    tcmma_program_free(&prog);
    free(text);
  }
}

typedef void (*entry_fn)(void *);

/* Renders the host kernel for m (text edited by from -> to when from is
 * not NULL), runs it as one block of 64 threads at coords into out, and
 * returns the status (err: the simulator's message). */
static tcmma_status run_host(const tcmma_tensor_map *m, const int coords[5], unsigned char *out,
                             const char *from, const char *to, tcmma_error *err) {
  char *text = kernel(TCMMA_DIALECT_HOST, m);
  if (from) text = text_edited(text, from, to);
  void *h = host_module_open(text);
  if (!h) fail_msg("the host kernel does not compile:\n%s", text);
  entry_fn entry;
  void *sym = dlsym(h, "tcmma_tma_kernel_entry");
  assert_non_null(sym);
  memcpy(&entry, &sym, sizeof sym);
  int c[5] = {coords[0], coords[1], coords[2], coords[3], coords[4]};
  void *args[7] = {(void *)m, out, &c[0], &c[1], &c[2], &c[3], &c[4]};
  tcmma_sim_config cfg = TCMMA_SIM_CONFIG_INIT({1, 1, 1}, {64, 1, 1}, 0, NULL, 0);
  tcmma_status s = tcmma_sim_launch_grid(entry, args, &cfg, err);
  dlclose(h);
  free(text);
  return s;
}

/* The bytes a box at coords must land, from the map's own global memory:
 * element idx at tcmma_tensor_map_shared_offset, zero outside the dims. */
static void expected_2d(const tcmma_tensor_map *m, const int *c, unsigned char *want) {
  int eb = tcmma_prec_bytes(m->prec);
  const unsigned char *g = (const unsigned char *)(uintptr_t)m->address;
  unsigned rows = tcmma_tensor_map_box_elems(m, 1);
  for (unsigned r = 0; r < rows; r++)
    for (unsigned x = 0; x < m->box[0]; x++) {
      unsigned idx[2] = {x, r};
      long long off = tcmma_tensor_map_shared_offset(m, idx);
      long long gx = c[0] + (long long)x, gy = c[1] + (long long)r * m->element_strides[1];
      bool in = gx >= 0 && gy >= 0 && gx < (long long)m->dims[0] && gy < (long long)m->dims[1];
      for (int b = 0; b < eb; b++)
        want[off + b] = in ? g[gy * (long long)m->strides[0] + gx * eb + b] : 0;
    }
}

static void lands_the_box(void **state) {
  (void)state;
  enum { ROWS = 40, COLS = 96 };
  static unsigned char g[ROWS * COLS * 2];
  for (size_t i = 0; i < sizeof g; i++) g[i] = (unsigned char)(i * 7 + 3);
  const struct { tcmma_swizzle sw; unsigned box_cols; int c0, c1; unsigned estride; } cases[] = {
      {TCMMA_SWIZZLE_B128, 64, 0, 0, 1},   {TCMMA_SWIZZLE_B128, 64, 64, 32, 1}, /* past both edges */
      {TCMMA_SWIZZLE_B64, 32, -8, -3, 1},  {TCMMA_SWIZZLE_B32, 16, 8, 5, 2},
      {TCMMA_SWIZZLE_NONE, 24, 72, 30, 3},
  };
  for (size_t k = 0; k < sizeof cases / sizeof cases[0]; k++) {
    tcmma_tensor_map m = map_2d(TCMMA_PREC_BF16, g, ROWS, COLS, 16, cases[k].box_cols, cases[k].sw);
    m.element_strides[1] = cases[k].estride;
    long long bytes = tcmma_tensor_map_box_bytes(&m);
    unsigned char *out = aligned_alloc(16, (size_t)bytes), *want = calloc(1, (size_t)bytes);
    memset(out, 0xee, (size_t)bytes);
    int c[5] = {cases[k].c0, cases[k].c1, 0, 0, 0};
    tcmma_error err = {0};
    if (run_host(&m, c, out, NULL, NULL, &err) != TCMMA_OK) fail_msg("case %zu: %s", k, err.message);
    expected_2d(&m, c, want);
    for (long long i = 0; i < bytes; i++)
      if (out[i] != want[i])
        fail_msg("case %zu (swizzle %s): byte %lld is 0x%02x, expected 0x%02x", k,
                 tcmma_swizzle_name(m.swizzle), i, out[i], want[i]);
    free(out), free(want);
  }
}

static void expect_failure(const char *from, const char *to, const char *needle) {
  static unsigned char g[32 * 64 * 2];
  tcmma_tensor_map m = map_2d(TCMMA_PREC_BF16, g, 32, 64, 32, 64, TCMMA_SWIZZLE_B128);
  unsigned char *out = aligned_alloc(16, 4096);
  int c[5] = {0};
  tcmma_error err = {0};
  tcmma_status s = run_host(&m, c, out, from, to, &err);
  if (s != TCMMA_INVALID || !strstr(err.message, needle))
    fail_msg("'%s' -> '%s': %s '%s', expected '%s'", from, to, tcmma_status_name(s), err.message,
             needle);
  free(out);
}

static void broken_variants_reported(void **state) {
  (void)state;
  /* the box is 32 x 64 bf16: 4096 bytes */
  expect_failure("tcmma_mbar_arrive_expect_tx(&tcmma_bar, 4096)",
                 "tcmma_mbar_arrive_expect_tx(&tcmma_bar, 2048)", "2048 more than its phase expected");
  expect_failure("tcmma_mbar_arrive_expect_tx(&tcmma_bar, 4096)",
                 "tcmma_mbar_arrive_expect_tx(&tcmma_bar, 8192)", "4096 transaction bytes still expected");
  expect_failure("tcmma_mbar_arrive_expect_tx(&tcmma_bar, 4096)",
                 "tcmma_mbar_arrive_expect_tx(&tcmma_bar, 8192)", "deadlock");
  expect_failure("tcmma_mbar_wait(&tcmma_bar, 0);", "tcmma_mbar_wait(&tcmma_bar, 1);",
                 "before the cp.async.bulk.tensor copy");
  expect_failure("tcmma_mbar_wait(&tcmma_bar, 0);", "", "before the cp.async.bulk.tensor copy");
  expect_failure("tcmma_mbar_init(&tcmma_bar, 1);", "", "used before mbarrier.init");
  /* two arrivals expected, one made: the phase never completes */
  expect_failure("tcmma_mbar_init(&tcmma_bar, 1);", "tcmma_mbar_init(&tcmma_bar, 2);",
                 "1 of 2 arrivals still to come");
  /* the copy lands nowhere readable: a misaligned destination */
  expect_failure("tcmma_tma_load_2d(tcmma_tile,", "tcmma_tma_load_2d(tcmma_tile + 128,",
                 "its destination is misaligned");
}

static void bad_input(void **state) {
  (void)state;
  tcmma_buf out = {0};
  tcmma_error err;
  static unsigned char g[64];
  tcmma_tensor_map m = map_2d(TCMMA_PREC_F32, g, 4, 16, 4, 16, TCMMA_SWIZZLE_B64);
  assert_int_equal(tcmma_render_tma_kernel(TCMMA_DIALECT_CUDA, NULL, NULL, &out, &err), TCMMA_INVALID);
  assert_non_null(strstr(err.message, "the map is NULL"));
  assert_int_equal(tcmma_render_tma_kernel((tcmma_dialect)7, &m, NULL, &out, &err), TCMMA_INVALID);
  assert_int_equal(tcmma_render_tma_kernel(TCMMA_DIALECT_CUDA, &m, "2bad", &out, &err), TCMMA_INVALID);
  assert_non_null(strstr(err.message, "'2bad' is not a C identifier"));
  assert_int_equal(tcmma_render_tma_kernel(TCMMA_DIALECT_CUDA, &m, NULL, NULL, &err), TCMMA_INVALID);
  m.box[0] = 32; /* 128 bytes past the 64-byte span */
  assert_int_equal(tcmma_render_tma_kernel(TCMMA_DIALECT_CUDA, &m, NULL, &out, &err), TCMMA_INVALID);
  assert_non_null(strstr(err.message, "swizzle-span"));
  m = map_2d(TCMMA_PREC_F32, g, 256, 256, 256, 32, TCMMA_SWIZZLE_B128); /* 32 KiB: fits */
  assert_int_equal(tcmma_render_tma_kernel(TCMMA_DIALECT_CUDA, &m, "k", &out, &err), TCMMA_OK);
  m.box[1] = 256, m.box[0] = 32, m.rank = 3, m.dims[2] = 2, m.box[2] = 2, m.strides[1] = 1 << 20;
  assert_int_equal(tcmma_render_tma_kernel(TCMMA_DIALECT_CUDA, &m, "k", &out, &err), TCMMA_INVALID);
  assert_non_null(strstr(err.message, "a box of 65536 bytes"));
  assert_int_equal(tcmma_render_tma_helpers((tcmma_dialect)-1, &out, &err), TCMMA_INVALID);
  /* helpers twice in one text: guarded */
  tcmma_buf two = {0};
  assert_int_equal(tcmma_render_tma_helpers(TCMMA_DIALECT_CUDA, &two, &err), TCMMA_OK);
  assert_int_equal(tcmma_render_tma_helpers(TCMMA_DIALECT_CUDA, &two, &err), TCMMA_OK);
  assert_non_null(strstr(two.data, "#ifndef TCMMA_TMA_HELPERS"));
  tcmma_buf_free(&two);
  tcmma_buf_free(&out);
}

/* On a GPU of cc 9.0 or later (skipped elsewhere: none was lent when this
 * was written, so it has not run yet): the driver encodes the map, the
 * CUDA kernel lands the box, and the bytes are the model's (the swizzle,
 * the zero fill past the edges), as lands_the_box checks the simulator. */
static void real_gpu_lands_what_the_model_says(void **state) {
  (void)state;
  tcmma_error err = {0};
  int cc = 0;
  if (tcmma_device_lowest_cc(&cc, &err) != TCMMA_OK || cc < 90 ||
      tcmma_nvrtc_load(NULL, &err) != TCMMA_OK) {
    print_message("no GPU of cc 9.0 here (%s): skipped\n", err.message[0] ? err.message : "cc below 90");
    skip();
  }
  enum { ROWS = 40, COLS = 96 };
  static unsigned char g[ROWS * COLS * 2];
  for (size_t i = 0; i < sizeof g; i++) g[i] = (unsigned char)(i * 7 + 3);
  tcmma_tensor_map host = map_2d(TCMMA_PREC_BF16, g, ROWS, COLS, 16, 64, TCMMA_SWIZZLE_B128);
  long long bytes = tcmma_tensor_map_box_bytes(&host);
  char *text = kernel(TCMMA_DIALECT_CUDA, &host);
  tcmma_compile_opts o = TCMMA_COMPILE_OPTS_INIT(.sass = true, .cc = cc);
  tcmma_program prog;
  if (tcmma_compile(text, strlen(text), &o, &prog, &err) != TCMMA_OK) fail_msg("%s", err.message);
  tcmma_module *mod;
  tcmma_kernel k;
  tcmma_devmem dg, dout;
  assert_int_equal(tcmma_module_load(0, prog.cubin, prog.cubin_len, &mod, &err), TCMMA_OK);
  assert_int_equal(tcmma_module_kernel(mod, "tcmma_tma_kernel", &k, &err), TCMMA_OK);
  assert_int_equal(tcmma_mem_alloc(0, sizeof g, &dg, &err), TCMMA_OK);
  assert_int_equal(tcmma_mem_alloc(0, (size_t)bytes, &dout, &err), TCMMA_OK);
  assert_int_equal(tcmma_mem_to_device(&dg, 0, g, sizeof g, &err), TCMMA_OK);
  tcmma_tensor_map dev = host;
  dev.address = dg.ptr;
  struct { _Alignas(128) unsigned char b[TCMMA_CU_TENSOR_MAP_BYTES]; } cu;
  if (tcmma_tensor_map_encode(&dev, &cu, &err) != TCMMA_OK) fail_msg("%s", err.message);
  int c[5] = {64, 32, 0, 0, 0}; /* past both edges: zeros land there */
  unsigned long long out_ptr = dout.ptr;
  void *params[7] = {&cu, &out_ptr, &c[0], &c[1], &c[2], &c[3], &c[4]};
  unsigned grid[3] = {1, 1, 1}, block[3] = {64, 1, 1};
  if (tcmma_launch(&k, grid, block, 0, params, &err) != TCMMA_OK) fail_msg("%s", err.message);
  unsigned char *out = malloc((size_t)bytes), *want = calloc(1, (size_t)bytes);
  assert_int_equal(tcmma_mem_to_host(out, &dout, 0, (size_t)bytes, &err), TCMMA_OK);
  expected_2d(&host, c, want);
  for (long long i = 0; i < bytes; i++)
    if (out[i] != want[i]) fail_msg("byte %lld is 0x%02x on the GPU, the model says 0x%02x", i, out[i], want[i]);
  free(out), free(want), free(text);
  tcmma_mem_free(&dg), tcmma_mem_free(&dout);
  tcmma_module_unload(mod);
  tcmma_program_free(&prog);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(compiles_at_sm90_only),
      cmocka_unit_test(lands_the_box),
      cmocka_unit_test(broken_variants_reported),
      cmocka_unit_test(bad_input),
      cmocka_unit_test(real_gpu_lands_what_the_model_says),
  };
  return cmocka_run_group_tests_name("tma", tests, NULL, NULL);
}
