/* The simulator's memory model (issue #21): every ldmatrix row, cp.async
 * source and destination and wmma load/store span is checked against the
 * dynamic shared memory's exact extent however far outside it lands (not
 * only a guard after it), against the registered global buffers when the
 * launch names some, and a launch the simulator cannot hold is refused
 * before anything runs; NULL register and fragment pointers fail the run.
 * Each failure is TCMMA_INVALID with a message naming the instruction, the
 * lane, the address and the extent; nothing lands outside the allocations
 * (run under SAN=1: ASan would report it). */
#include "util.h"
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "tcmma/gemm.h"
#include "tcmma/sim.h"

static const char cg[] = "cp.async.cg.shared.global";
static const char ldm_x4[] = "ldmatrix.sync.aligned.m8n8.x4.shared.b16";
static const char mma_f16[] = "mma.sync.aligned.m16n8k16.row.col.f32.f16.f16.f32";
static const char mma_scaled[] = "mma.sync.aligned.kind::mxf8f6f4.block_scale.scale_vec::1X."
                                 "m16n8k32.row.col.f32.e4m3.e4m3.f32.ue8m0";

/* What the kernel does this run, and where its global data live. */
static struct {
  int mode;
  ptrdiff_t offset; /* from the dynamic shared base */
  _Alignas(128) unsigned char src[8192];
  _Alignas(128) unsigned char out[8192];
} k;

enum {
  CP_DST,      /* cp.async into sh + offset (lane 3 only) */
  CP_SRC,      /* cp.async from sh + offset into sh (lane 3 only) */
  LDMATRIX,    /* ldmatrix rows at sh + offset + 16 * lane */
  WMMA_STORE,  /* wmma store at sh + offset */
  WMMA_LOAD,   /* wmma load from sh + offset */
  STAGE_ALL,   /* every thread copies 16 bytes to sh + 16 * thread, then ldmatrix */
  GLOBAL_SRC,  /* cp.async from k.src + offset into sh */
  GLOBAL_WMMA, /* wmma store to k.out + offset */
};

static void kernel(void *arg) {
  (void)arg;
  unsigned char *sh = tcmma_sim_dynamic_shared();
  unsigned t = tcmma_sim_thread_idx(0), l = t % 32;
  uint32_t r[4];
  tcmma_sim_fragment f;
  switch (k.mode) {
  case CP_DST:
  case CP_SRC:
    if (l == 3)
      tcmma_sim_cp_async(cg, k.mode == CP_DST ? sh + k.offset : sh,
                         k.mode == CP_DST ? k.src : sh + k.offset, 16);
    tcmma_sim_cp_async_wait_all();
    break;
  case LDMATRIX:
    tcmma_sim_ldmatrix(ldm_x4, r, sh + k.offset + 16 * l);
    break;
  case WMMA_STORE:
  case GLOBAL_WMMA:
    tcmma_sim_wmma_fill(&f, "c.m16n16k16.f32", 1.0f);
    tcmma_sim_wmma_store(k.mode == WMMA_STORE ? sh + k.offset : k.out + k.offset, &f, 16, 0);
    break;
  case WMMA_LOAD:
    tcmma_sim_wmma_load(&f, "a.m16n16k16.f16.row", sh + k.offset, 16, 0);
    break;
  case STAGE_ALL:
    tcmma_sim_cp_async(cg, sh + 16 * t, k.src + 16 * (t % 512), 16);
    tcmma_sim_cp_async_wait_all();
    tcmma_sim_syncthreads();
    tcmma_sim_ldmatrix(ldm_x4, r, sh + 16 * t);
    break;
  case GLOBAL_SRC:
    tcmma_sim_cp_async(cg, sh + 16 * l, k.src + k.offset + 16 * l, 16);
    tcmma_sim_cp_async_wait_all();
    break;
  }
}

static tcmma_status run(int mode, ptrdiff_t offset, const tcmma_sim_config *cfg,
                        tcmma_error *err) {
  k.mode = mode, k.offset = offset;
  tcmma_error_clear(err);
  return tcmma_sim_launch_grid(kernel, NULL, cfg, err);
}

/* The launch fails naming each of words (NULL-ended). */
static void fails_naming(int mode, ptrdiff_t offset, const tcmma_sim_config *cfg,
                         const char *const *words) {
  tcmma_error err;
  tcmma_status st = run(mode, offset, cfg, &err);
  if (st != TCMMA_INVALID) print_message("mode %d offset %td: %s\n", mode, offset, err.message);
  assert_int_equal(st, TCMMA_INVALID);
  for (; *words; words++) {
    if (!strstr(err.message, *words)) print_message("'%s' lacks '%s'\n", err.message, *words);
    assert_non_null(strstr(err.message, *words));
  }
}

/* Far past the old 4 KiB guard, and before the start: each instruction is
 * refused; inside the extent it runs. */
static void far_out_shared_accesses(void **state) {
  (void)state;
  tcmma_sim_config cfg = TCMMA_SIM_CONFIG_INIT({1, 1, 1}, {32, 1, 1}, 1024, NULL, 0);
  static const ptrdiff_t far[] = {64 << 10, 1 << 20, 8 << 20, -4096, -16};
  for (size_t i = 0; i < sizeof far / sizeof far[0]; i++) {
    fails_naming(CP_DST, far[i], &cfg,
                 (const char *[]){"cp.async", "lane 3", "1024 bytes of dynamic shared", NULL});
    fails_naming(CP_SRC, far[i], &cfg,
                 (const char *[]){cg, "lane 3", "1024 bytes of dynamic shared", NULL});
    fails_naming(LDMATRIX, far[i], &cfg,
                 (const char *[]){ldm_x4, "lane 0", "1024 bytes of dynamic shared", NULL});
    ptrdiff_t w = far[i] < 0 ? -4096 : far[i]; /* 32-byte aligned */
    fails_naming(WMMA_STORE, w, &cfg,
                 (const char *[]){"wmma store", "1024 bytes of dynamic shared", NULL});
    fails_naming(WMMA_LOAD, w, &cfg,
                 (const char *[]){"wmma load", "1024 bytes of dynamic shared", NULL});
  }
  /* ldmatrix past the end by one row: lane 31's row (x4 reads all 32) */
  fails_naming(LDMATRIX, 1024 - 31 * 16, &cfg, (const char *[]){"lane 31", "1024 bytes", NULL});
  tcmma_error err;
  assert_int_equal(run(LDMATRIX, 1024 - 32 * 16, &cfg, &err), TCMMA_OK);
  assert_int_equal(run(CP_DST, 1024 - 16, &cfg, &err), TCMMA_OK);
  /* 16x16 f32 stored from the start: 1024 bytes, one row short of them */
  assert_int_equal(run(WMMA_STORE, 0, &cfg, &err), TCMMA_OK);
  cfg.dynamic_shared = 1024 - 16;
  fails_naming(WMMA_STORE, 0, &cfg, (const char *[]){"wmma store", "1008 bytes", NULL});
}

/* A kernel planned for 256 threads x 16 bytes launched with less shared
 * memory, or none (a NULL base: its offsets are still shared addresses). */
static void too_little_shared_memory(void **state) {
  (void)state;
  tcmma_sim_config cfg = TCMMA_SIM_CONFIG_INIT({1, 1, 1}, {256, 1, 1}, 4096, NULL, 0);
  tcmma_error err;
  assert_int_equal(run(STAGE_ALL, 0, &cfg, &err), TCMMA_OK);
  cfg.dynamic_shared = 1024;
  fails_naming(STAGE_ALL, 0, &cfg, (const char *[]){"cp.async", "1024 bytes", NULL});
  cfg.dynamic_shared = 0;
  fails_naming(STAGE_ALL, 0, &cfg,
               (const char *[]){"cp.async", "0 bytes", "asked for none", NULL});
  cfg = (tcmma_sim_config)TCMMA_SIM_CONFIG_INIT({1, 1, 1}, {32, 1, 1}, 0, NULL, 0);
  fails_naming(LDMATRIX, 0, &cfg, (const char *[]){ldm_x4, "asked for none", NULL});
  fails_naming(WMMA_STORE, 4096, &cfg, (const char *[]){"wmma store", "asked for none", NULL});
  fails_naming(WMMA_LOAD, 4096, &cfg, (const char *[]){"wmma load", "asked for none", NULL});
}

static void nothing(void *arg) { (void)arg; }

/* Launches the simulator cannot hold are refused before a thread starts. */
static void refused_launches(void **state) {
  (void)state;
  tcmma_error err;
  tcmma_sim_config cfg = TCMMA_SIM_CONFIG_INIT({1, 1, 1}, {1025, 1, 1}, 0, NULL, 0);
  assert_int_equal(tcmma_sim_launch_grid(nothing, NULL, &cfg, &err), TCMMA_INVALID);
  assert_non_null(strstr(err.message, "at most 1024"));
  cfg = (tcmma_sim_config)TCMMA_SIM_CONFIG_INIT({1, 1, 1}, {32, 33, 1}, 0, NULL, 0);
  assert_int_equal(tcmma_sim_launch_grid(nothing, NULL, &cfg, &err), TCMMA_INVALID);
  cfg = (tcmma_sim_config)TCMMA_SIM_CONFIG_INIT({1, 1, 1}, {0, 1, 1}, 0, NULL, 0);
  assert_int_equal(tcmma_sim_launch_grid(nothing, NULL, &cfg, &err), TCMMA_INVALID);
  size_t limit = tcmma_shared_memory_max(90, 0);
  cfg = (tcmma_sim_config)TCMMA_SIM_CONFIG_INIT({1, 1, 1}, {32, 1, 1}, limit + 1, NULL, 0);
  assert_int_equal(tcmma_sim_launch_grid(nothing, NULL, &cfg, &err), TCMMA_INVALID);
  assert_non_null(strstr(err.message, "dynamic_shared 232449 bytes: at most 232448"));
  cfg.dynamic_shared = limit;
  assert_int_equal(tcmma_sim_launch_grid(nothing, NULL, &cfg, &err), TCMMA_OK);
  /* a registry without its arrays, or with a range that wraps */
  cfg = (tcmma_sim_config)TCMMA_SIM_CONFIG_INIT({1, 1, 1}, {32, 1, 1}, 0, NULL, 0);
  cfg.n_buffers = 1;
  assert_int_equal(tcmma_sim_launch_grid(nothing, NULL, &cfg, &err), TCMMA_INVALID);
  assert_non_null(strstr(err.message, "n_buffers 1"));
  const void *bases[1] = {k.src};
  size_t bytes[1] = {SIZE_MAX};
  cfg.buffers = bases, cfg.buffer_bytes = bytes;
  assert_int_equal(tcmma_sim_launch_grid(nothing, NULL, &cfg, &err), TCMMA_INVALID);
  assert_non_null(strstr(err.message, "registered buffer 0"));
}

/* With buffers registered, global addresses outside them are refused too. */
static void registered_buffers(void **state) {
  (void)state;
  const void *bases[2] = {k.src, k.out};
  size_t bytes[2] = {1024, 1024};
  tcmma_sim_config cfg = TCMMA_SIM_CONFIG_INIT({1, 1, 1}, {32, 1, 1}, 1024, NULL, 0);
  tcmma_error err;
  /* unregistered: not checked (the default) */
  assert_int_equal(run(GLOBAL_SRC, 4096, &cfg, &err), TCMMA_OK);
  cfg.buffers = bases, cfg.buffer_bytes = bytes, cfg.n_buffers = 2;
  assert_int_equal(run(GLOBAL_SRC, 0, &cfg, &err), TCMMA_OK);
  assert_int_equal(run(GLOBAL_SRC, 512, &cfg, &err), TCMMA_OK);
  fails_naming(GLOBAL_SRC, 528, &cfg,
               (const char *[]){cg, "lane 31", "2 buffers the launch registered", NULL});
  fails_naming(GLOBAL_SRC, -16, &cfg, (const char *[]){cg, "lane 0", "registered", NULL});
  assert_int_equal(run(GLOBAL_WMMA, 0, &cfg, &err), TCMMA_OK);
  fails_naming(GLOBAL_WMMA, 32, &cfg, (const char *[]){"wmma store", "registered", NULL});
}

/* ---- NULL register and fragment pointers ---- */

static int null_mode;
static unsigned null_lane;

static void null_kernel(void *arg) {
  (void)arg;
  unsigned l = tcmma_sim_lane();
  bool bad = l == null_lane;
  uint32_t a[4] = {0}, b[2] = {0}, r[4];
  float c[4] = {0}, d[4];
  static _Alignas(128) unsigned char rows[512];
  static _Alignas(32) unsigned char mem[16 * 16 * 4];
  tcmma_sim_fragment fa, fb, fc;
  tcmma_sim_wmma_fill(&fa, "a.m16n16k16.f16.row", 1.0f);
  tcmma_sim_wmma_fill(&fb, "b.m16n16k16.f16.col", 1.0f);
  tcmma_sim_wmma_fill(&fc, "c.m16n16k16.f32", 0.0f);
  switch (null_mode) {
  case 0: tcmma_sim_mma(mma_f16, bad ? NULL : d, a, b, c); break;
  case 1: tcmma_sim_mma(mma_f16, d, bad ? NULL : a, b, c); break;
  case 2: tcmma_sim_mma(mma_f16, d, a, bad ? NULL : b, c); break;
  case 3: tcmma_sim_mma(mma_f16, d, a, b, bad ? NULL : c); break;
  case 4: tcmma_sim_mma_scaled(mma_scaled, d, bad ? NULL : a, b, c, 0x7f, 0, 0, 0x7f, 0, 0); break;
  case 5: tcmma_sim_ldmatrix(ldm_x4, bad ? NULL : r, rows + 16 * l); break;
  case 6: tcmma_sim_cvt("cvt.rna.tf32.f32", bad ? NULL : a); break;
  case 7: tcmma_sim_wmma_fill(bad ? NULL : &fa, "a.m16n16k16.f16.row", 1.0f); break;
  case 8: tcmma_sim_wmma_load(bad ? NULL : &fa, "a.m16n16k16.f16.row", mem, 16, 0); break;
  case 9: tcmma_sim_wmma_mma(&fc, &fa, bad ? NULL : &fb, &fc); break;
  case 10: tcmma_sim_wmma_mma(bad ? NULL : &fc, &fa, &fb, &fc); break;
  case 11: tcmma_sim_wmma_store(mem, bad ? NULL : &fc, 16, 0); break;
  }
  (void)d, (void)r;
}

static void null_registers(void **state) {
  (void)state;
  static const char *const what[] = {mma_f16, mma_f16, mma_f16, mma_f16, mma_scaled, ldm_x4,
                                     "cvt.rna.tf32.f32", "wmma fill", "wmma load", "wmma mma",
                                     "wmma mma", "wmma store"};
  tcmma_error err;
  null_lane = 99; /* none: every collective runs */
  for (null_mode = 0; null_mode < 12; null_mode++)
    assert_int_equal(tcmma_sim_launch(null_kernel, NULL, &err), TCMMA_OK);
  for (null_mode = 0; null_mode < 12; null_mode++)
    for (null_lane = 0; null_lane < 32; null_lane += 13) {
      tcmma_error_clear(&err);
      assert_int_equal(tcmma_sim_launch(null_kernel, NULL, &err), TCMMA_INVALID);
      char lane[16];
      snprintf(lane, sizeof lane, "lane %u", null_lane);
      if (!strstr(err.message, what[null_mode]) || !strstr(err.message, lane) ||
          !strstr(err.message, "NULL"))
        print_message("mode %d: %s\n", null_mode, err.message);
      assert_non_null(strstr(err.message, what[null_mode]));
      assert_non_null(strstr(err.message, lane));
      assert_non_null(strstr(err.message, "NULL"));
    }
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(far_out_shared_accesses),
      cmocka_unit_test(too_little_shared_memory),
      cmocka_unit_test(refused_launches),
      cmocka_unit_test(registered_buffers),
      cmocka_unit_test(null_registers),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
