/* The Hopper GEMM (include/tcmma/gemm.h, docs/emit.md "The Hopper GEMM"):
 * which kernel kind a plan takes (auto on cc 9.0, asked, and the callers
 * that asked for none), what the wgmma kernel declines and why, its plan's
 * figures computed here from the tile, the block-scaled precisions it
 * leaves to mma.sync, its tensor maps, its text, an
 * NVRTC/ptxas compile at sm_90a (no warning, no spill, every epilogue op)
 * and tcmma gemm --kind. The GEMM matrix runs its cases on the simulator
 * and through the compile executor (tests/test_gemm.c, test_verify_sim). */
#include "util.h"
#include <stddef.h>
#include <stdio.h>
#include <string.h>
#include "tcmma/tcmma.h"
#include "tcmma/compile.h"

/* The K-major bf16 call at cc 90 (tests/util.h). */
static tcmma_gemm_call kmajor(int m, int n, int k) { return test_gemm_kmajor(m, n, k, 90); }

/* The default tile: 128x256 over two consumer warpgroups of m64 x n256, k
 * tiles of 64 bf16 (one 128-byte span), 4 stages, setmaxnreg 40/232. */
static void auto_takes_wgmma_on_cc_90(void **s) {
  (void)s;
  tcmma_gemm_call c = kmajor(1024, 1024, 512);
  tcmma_gemm_opts o = tcmma_gemm_opts_default();
  tcmma_gemm_plan p;
  tcmma_gemm_info i = {.size = sizeof i};
  assert_int_equal(tcmma_gemm_plan_opts(&c, &o, &p, &i, NULL), TCMMA_OK);
  assert_int_equal(i.kernel, TCMMA_GEMM_KERNEL_WGMMA);
  assert_int_equal(i.wgmma, TCMMA_WGMMA_BF16);
  assert_int_equal(p.call.block_m, 128), assert_int_equal(p.call.block_n, 256);
  assert_int_equal(p.call.block_k, 64), assert_int_equal(p.call.stages, 4);
  assert_int_equal(p.call.warps_m, 8), assert_int_equal(p.call.warps_n, 1);
  assert_int_equal(i.consumer_warpgroups, 2), assert_int_equal(i.wgmma_n, 256);
  assert_int_equal(p.threads, 3 * 128);
  /* 65536 registers: 170 a thread at launch (168, multiples of 8); the
   * producer's 128 threads keep 40, which leaves (65536 - 5120) / 256 = 236
   * (232) for each consumer thread */
  assert_int_equal(p.registers, 168);
  assert_int_equal(i.producer_registers, 40), assert_int_equal(i.consumer_registers, 232);
  /* a stage: 128 + 256 rows of 128 bytes; 8 mbarriers; 1024 to align */
  assert_int_equal(p.stage_bytes, (128 + 256) * 128);
  assert_int_equal(p.shared_bytes, 4 * (128 + 256) * 128 + 8 * 8 + 1024);
  assert_int_equal(p.a_swizzle, TCMMA_SWIZZLE_B128), assert_int_equal(p.b_swizzle, TCMMA_SWIZZLE_B128);
  assert_int_equal(p.mma_per_k_tile, 64 / 16);
  assert_int_equal(p.ldmatrix_per_k_tile, 0), assert_int_equal(p.cp_async_per_k_tile, 0);
  assert_int_equal(p.k_tiles, 512 / 64);
  assert_int_equal(p.grid[0], 1024 / 256), assert_int_equal(p.grid[1], 1024 / 128);
  /* fp8: k tiles of 128 (one span of 1-byte elements) */
  c.a.prec = c.b.prec = TCMMA_PREC_E4M3;
  assert_int_equal(tcmma_gemm_plan_opts(&c, &o, &p, &i, NULL), TCMMA_OK);
  assert_int_equal(i.wgmma, TCMMA_WGMMA_FP8), assert_int_equal(p.call.block_k, 128);
  /* one consumer warpgroup: no setmaxnreg, the launch bound's 255 */
  c = kmajor(256, 256, 256);
  c.block_m = 64, c.block_n = 128;
  assert_int_equal(tcmma_gemm_plan_opts(&c, &o, &p, &i, NULL), TCMMA_OK);
  assert_int_equal(i.consumer_warpgroups, 1), assert_int_equal(p.call.warps_m, 4);
  assert_int_equal(i.consumer_registers, 0), assert_int_equal(p.registers, 64 + 48);
}

/* Auto keeps the mma.sync kernel where the wgmma kernel does not serve the
 * call, or the call's warp grid is an mma.sync one; the callers that asked
 * for no kind (tcmma_gemm_plan_call, opts from before the field) get
 * mma.sync whatever the call. */
static void auto_keeps_mma_sync_elsewhere(void **s) {
  (void)s;
  tcmma_gemm_opts o = tcmma_gemm_opts_default();
  tcmma_gemm_call c = kmajor(512, 512, 512);
  assert_int_equal(test_gemm_kind(&c, &o), TCMMA_GEMM_KERNEL_WGMMA);
  c.cc = 89;
  assert_int_equal(test_gemm_kind(&c, &o), TCMMA_GEMM_KERNEL_MMA_SYNC);
  c.cc = 0; /* any device: wgmma runs on 9.0 only */
  assert_int_equal(test_gemm_kind(&c, &o), TCMMA_GEMM_KERNEL_MMA_SYNC);
  c = kmajor(512, 512, 512), c.b.transposed = false; /* B k x n: N-major, 16-bit */
  assert_int_equal(test_gemm_kind(&c, &o), TCMMA_GEMM_KERNEL_WGMMA);
  c.a.prec = c.b.prec = TCMMA_PREC_E4M3; /* fp8 rows read K-major only */
  assert_int_equal(test_gemm_kind(&c, &o), TCMMA_GEMM_KERNEL_MMA_SYNC);
  c = kmajor(512, 512, 512), c.b.transposed = false, c.block_n = 96; /* n 96: no whole panels */
  assert_int_equal(test_gemm_kind(&c, &o), TCMMA_GEMM_KERNEL_MMA_SYNC);
  c = kmajor(512, 512, 512), c.a.transposed = true; /* A k x m: M-major, 16-bit */
  assert_int_equal(test_gemm_kind(&c, &o), TCMMA_GEMM_KERNEL_WGMMA);
  c.b.transposed = false; /* and B N-major */
  assert_int_equal(test_gemm_kind(&c, &o), TCMMA_GEMM_KERNEL_WGMMA);
  c.a.prec = c.b.prec = TCMMA_PREC_E4M3; /* fp8 rows read K-major only */
  assert_int_equal(test_gemm_kind(&c, &o), TCMMA_GEMM_KERNEL_MMA_SYNC);
  c = kmajor(512, 512, 65); /* rows of 130 bytes: no tensor map */
  assert_int_equal(test_gemm_kind(&c, &o), TCMMA_GEMM_KERNEL_MMA_SYNC);
  c = kmajor(512, 512, 512), c.warps_m = 2, c.warps_n = 2; /* an mma.sync warp grid */
  assert_int_equal(test_gemm_kind(&c, &o), TCMMA_GEMM_KERNEL_MMA_SYNC);
  c = kmajor(512, 512, 512);
  o.batch = 2; /* a strided batch: the maps' third dimension */
  assert_int_equal(test_gemm_kind(&c, &o), TCMMA_GEMM_KERNEL_WGMMA);
  o.pointer_array = true;
  assert_int_equal(test_gemm_kind(&c, &o), TCMMA_GEMM_KERNEL_MMA_SYNC);
  o = tcmma_gemm_opts_default(), o.batch = 2, o.shape_args = true;
  assert_int_equal(test_gemm_kind(&c, &o), TCMMA_GEMM_KERNEL_MMA_SYNC);
  o = tcmma_gemm_opts_default(), o.split_k = 2;
  assert_int_equal(test_gemm_kind(&c, &o), TCMMA_GEMM_KERNEL_MMA_SYNC);
  /* no kind asked */
  tcmma_gemm_plan p;
  assert_int_equal(tcmma_gemm_plan_call(&c, &p, NULL), TCMMA_OK);
  assert_int_equal(p.threads, TCMMA_GEMM_WARPS_M * TCMMA_GEMM_WARPS_N * 32);
  o = tcmma_gemm_opts_default();
  o.kernel = TCMMA_GEMM_KERNEL_WGMMA;             /* past an old caller's size: not read */
  o.size = offsetof(tcmma_gemm_opts, kernel);
  assert_int_equal(test_gemm_kind(&c, &o), TCMMA_GEMM_KERNEL_MMA_SYNC);
  o = tcmma_gemm_opts_default(), o.kernel = TCMMA_GEMM_KERNEL_MMA_SYNC;
  assert_int_equal(test_gemm_kind(&c, &o), TCMMA_GEMM_KERNEL_MMA_SYNC);
  /* a forced wgmma arm takes the wgmma kernel */
  o = tcmma_gemm_opts_default(), c.arm = "wgmma-bf16";
  assert_int_equal(test_gemm_kind(&c, &o), TCMMA_GEMM_KERNEL_WGMMA);
}

/* The wgmma kernel asked for declines what it cannot serve, naming it. */
static void wgmma_declines(void **s) {
  (void)s;
  struct {
    const char *what, *says;
    tcmma_gemm_decline why;
  } want[] = {{"N-major fp8 b", "K-major only", TCMMA_GEMM_DECLINE_KERNEL},
              {"M-major fp8 a", "imm-trans", TCMMA_GEMM_DECLINE_KERNEL},
              {"cc 8.0", "runs on cc 90 only", TCMMA_GEMM_DECLINE_ARCH},
              {"f32 storage", "1- and 2-byte", TCMMA_GEMM_DECLINE_KERNEL},
              {"a batch with shape arguments", "fixed-shape kernel only", TCMMA_GEMM_DECLINE_KERNEL},
              {"8-byte class", "16-byte", TCMMA_GEMM_DECLINE_KERNEL},
              {"an mma.sync arm", "no wgmma arm", TCMMA_GEMM_DECLINE_KERNEL},
              {"a long name", "tile product", TCMMA_GEMM_DECLINE_CALL},
              {"k tile of 48", "swizzle span", TCMMA_GEMM_DECLINE_TILE},
              {"warps 4x2 of 128 rows", "16 rows", TCMMA_GEMM_DECLINE_TILE},
              {"n 264", "instruction n", TCMMA_GEMM_DECLINE_TILE},
              {"8 stages of 128x256", "exceed", TCMMA_GEMM_DECLINE_SHARED},
              {"N-major b, n 96 a consumer", "whole panels of 64", TCMMA_GEMM_DECLINE_KERNEL}};
  for (size_t w = 0; w < sizeof want / sizeof want[0]; w++) {
    tcmma_gemm_call c = kmajor(512, 512, 512);
    tcmma_gemm_opts o = tcmma_gemm_opts_default();
    o.kernel = TCMMA_GEMM_KERNEL_WGMMA;
    switch (w) {
      case 0: c.b.transposed = false, c.a.prec = c.b.prec = TCMMA_PREC_E4M3; break;
      case 1: c.a.transposed = true, c.a.prec = c.b.prec = TCMMA_PREC_E4M3; break;
      case 2: c.cc = 80; break;
      case 3: c.a.prec = c.b.prec = TCMMA_PREC_F32, c.numerics.tf32 = true; break;
      case 4: o.batch = 2, o.shape_args = true; break;
      case 5: o.a_align = 8; break;
      case 6: c.arm = "mma-bf16"; break;
      case 7: c.name = "a_kernel_name_of_sixty_characters_xxxxxxxxxxxxxxxxxxxxxxxxxx"; break;
      case 8: c.block_k = 48; break;
      case 9: c.warps_m = 4, c.warps_n = 2; break;
      case 10: c.block_n = 264; break;
      case 11: c.stages = 8; break;
      default: c.b.transposed = false, c.block_n = 192, c.warps_n = 2; break;
    }
    tcmma_gemm_plan p;
    tcmma_gemm_info i = {.size = sizeof i};
    tcmma_error err = {0};
    assert_int_equal(tcmma_gemm_plan_opts(&c, &o, &p, &i, &err), TCMMA_DECLINED);
    if (p.reason != want[w].why || !strstr(p.message, want[w].says))
      fail_msg("%s: declined %s: %s", want[w].what, tcmma_gemm_decline_name(p.reason), p.message);
    assert_int_equal(i.kernel, TCMMA_GEMM_KERNEL_WGMMA);
  }
  tcmma_gemm_call c = kmajor(512, 512, 512);
  tcmma_gemm_opts o = tcmma_gemm_opts_default();
  o.kernel = (tcmma_gemm_kernel)7;
  tcmma_gemm_plan p;
  tcmma_error err = {0};
  assert_int_equal(tcmma_gemm_plan_opts(&c, &o, &p, NULL, &err), TCMMA_INVALID);
  assert_non_null(strstr(err.message, "kernel 7"));
  tcmma_gemm_kernel k;
  assert_int_equal(tcmma_gemm_kernel_parse("wgmma", &k, NULL), TCMMA_OK);
  assert_int_equal(k, TCMMA_GEMM_KERNEL_WGMMA);
  assert_int_equal(tcmma_gemm_kernel_parse("hopper", &k, &err), TCMMA_INVALID);
  assert_non_null(strstr(err.message, "auto, mma-sync, wgmma"));
  assert_string_equal(tcmma_gemm_kernel_name(TCMMA_GEMM_KERNEL_COUNT), "?");
}

/* Block-scaled precisions (mxfp8, mxf4, nvf4: the mma.sync kernel's at cc
 * 12.x) never take the wgmma kernel: auto keeps mma.sync on cc 120 and on
 * cc 90, and wgmma asked for declines `kernel` naming the scaled operands;
 * a wgmma plan reports no packing and no scales (1, 0, 0, 0). */
static void block_scaled_stay_mma_sync(void **s) {
  (void)s;
  static const tcmma_prec scaled[3] = {TCMMA_PREC_NVF4, TCMMA_PREC_MXF4, TCMMA_PREC_MXE4M3};
  for (int q = 0; q < 3; q++) {
    tcmma_gemm_call c = kmajor(256, 256, 512);
    c.a.prec = c.b.prec = scaled[q];
    c.block_m = c.block_n = 64, c.block_k = 128, c.warps_m = c.warps_n = 2, c.stages = 3;
    c.cc = 120;
    tcmma_gemm_opts o = tcmma_gemm_opts_default();
    tcmma_gemm_plan p;
    tcmma_gemm_info i = {.size = sizeof i};
    tcmma_error err = {0};
    if (tcmma_gemm_plan_opts(&c, &o, &p, &i, &err) != TCMMA_OK)
      fail_msg("%s at cc 120: %s", tcmma_prec_name(scaled[q]), err.message);
    assert_int_equal(i.kernel, TCMMA_GEMM_KERNEL_MMA_SYNC);
    assert_true(tcmma_arm_get(p.arm)->scale_block > 0);
    assert_int_equal(i.scale_block, tcmma_arm_get(p.arm)->scale_block);
    assert_int_equal(i.wgmma, TCMMA_WGMMA_NONE), assert_int_equal(i.consumer_warpgroups, 0);
    /* the wgmma warp grid and tile defaults left to the plan: still mma.sync */
    c.block_m = c.block_n = c.block_k = c.warps_m = c.warps_n = c.stages = 0;
    assert_int_equal(test_gemm_kind(&c, &o), TCMMA_GEMM_KERNEL_MMA_SYNC);
    c.cc = 90;
    assert_int_equal(test_gemm_kind(&c, &o), TCMMA_GEMM_KERNEL_MMA_SYNC);
    for (int cc = 90; cc <= 120; cc += 30) {
      c.cc = cc, o.kernel = TCMMA_GEMM_KERNEL_WGMMA;
      assert_int_equal(tcmma_gemm_plan_opts(&c, &o, &p, &i, &err), TCMMA_DECLINED);
      if (p.reason != TCMMA_GEMM_DECLINE_KERNEL || !strstr(p.message, "unscaled"))
        fail_msg("%s at cc %d: declined %s: %s", tcmma_prec_name(scaled[q]), cc,
                 tcmma_gemm_decline_name(p.reason), p.message);
    }
  }
  tcmma_gemm_call c = kmajor(512, 512, 512);
  tcmma_gemm_opts o = tcmma_gemm_opts_default();
  tcmma_gemm_plan p;
  tcmma_gemm_info i;
  memset(&i, 0x5a, sizeof i), i.size = sizeof i;
  assert_int_equal(tcmma_gemm_plan_opts(&c, &o, &p, &i, NULL), TCMMA_OK);
  assert_int_equal(i.kernel, TCMMA_GEMM_KERNEL_WGMMA);
  assert_int_equal(i.pack, 1), assert_int_equal(i.scale_block, 0);
  assert_int_equal(i.scale_ld, 0), assert_int_equal(i.scale_copy_bytes, 0);
  tcmma_buf text = {0};
  tcmma_render_ctx rc = tcmma_render_ctx_make(NULL, TCMMA_DIALECT_CUDA, NULL, &text);
  assert_int_equal(tcmma_render_gemm_opts(&rc, &p, &o, NULL), TCMMA_OK);
  assert_null(strstr(tcmma_buf_str(&text), "sfa"));
  tcmma_buf_free(&text);
}

/* The tensor maps: A m rows of k, B n rows of k, boxes of one k tile of the
 * block's rows, swizzled as the stages; only for a wgmma plan and a shape
 * it serves. */
static void tensor_maps(void **s) {
  (void)s;
  tcmma_gemm_call c = kmajor(300, 200, 192);
  c.a.ld = 200, c.b.ld = 208;
  tcmma_gemm_opts o = tcmma_gemm_opts_default();
  tcmma_gemm_plan p;
  assert_int_equal(tcmma_gemm_plan_opts(&c, &o, &p, NULL, NULL), TCMMA_OK);
  tcmma_tensor_map m[2];
  tcmma_error err = {0};
  assert_int_equal(tcmma_gemm_tensor_maps(&p, &o, 0x1000, 0x20000, NULL, m, &err), TCMMA_OK);
  assert_int_equal(m[0].rank, 2), assert_int_equal(m[0].prec, TCMMA_PREC_BF16);
  assert_true(m[0].address == 0x1000 && m[1].address == 0x20000);
  assert_true(m[0].dims[0] == 192 && m[0].dims[1] == 300 && m[0].strides[0] == 200 * 2);
  assert_true(m[1].dims[0] == 192 && m[1].dims[1] == 200 && m[1].strides[0] == 208 * 2);
  assert_true(m[0].box[0] == 64 && m[0].box[1] == 128 && m[1].box[0] == 64 && m[1].box[1] == 256);
  assert_int_equal(m[0].swizzle, TCMMA_SWIZZLE_B128), assert_int_equal(m[1].swizzle, TCMMA_SWIZZLE_B128);
  assert_int_equal(tcmma_tensor_map_box_bytes(&m[0]) + tcmma_tensor_map_box_bytes(&m[1]),
                   (long long)p.stage_bytes);
  int other[5] = {300, 200, 256, 200, 208}; /* a fixed-shape kernel: its own shape only */
  assert_int_equal(tcmma_gemm_tensor_maps(&p, &o, 0, 0, other, m, &err), TCMMA_INVALID);
  assert_non_null(strstr(err.message, "k 256"));
  /* opts other than the plan's: the mma.sync kernel's plan takes none */
  assert_int_equal(tcmma_gemm_tensor_maps(&p, NULL, 0, 0, NULL, m, &err), TCMMA_INVALID);
  assert_int_equal(tcmma_gemm_tensor_maps(NULL, &o, 0, 0, NULL, m, &err), TCMMA_INVALID);
  assert_int_equal(tcmma_gemm_tensor_maps(&p, &o, 0, 0, NULL, NULL, &err), TCMMA_INVALID);
  /* a base the encoder refuses (its rule named) */
  assert_int_equal(tcmma_gemm_tensor_maps(&p, &o, 0x1008, 0, NULL, m, &err), TCMMA_INVALID);
  assert_non_null(strstr(err.message, "address-alignment"));
  /* shape arguments: any shape served, ld's of whole 16 bytes */
  o.shape_args = true;
  assert_int_equal(tcmma_gemm_plan_opts(&c, &o, &p, NULL, NULL), TCMMA_OK);
  int shape[5] = {1000, 40, 72, 72, 80};
  if (tcmma_gemm_tensor_maps(&p, &o, 0, 0, shape, m, &err) != TCMMA_OK) fail_msg("%s", err.message);
  assert_true(m[0].dims[1] == 1000 && m[1].dims[1] == 40 && m[1].strides[0] == 160);
  shape[3] = 68; /* 136-byte rows */
  assert_int_equal(tcmma_gemm_tensor_maps(&p, &o, 0, 0, shape, m, &err), TCMMA_INVALID);
  assert_non_null(strstr(err.message, "lda 68"));
  /* a strided batch: a third dimension, the stride in bytes, one matrix a box */
  c = kmajor(256, 256, 256);
  o = tcmma_gemm_opts_default(), o.batch = 5, o.stride_b = 256 * 256 + 64;
  assert_int_equal(tcmma_gemm_plan_opts(&c, &o, &p, NULL, NULL), TCMMA_OK);
  assert_int_equal(tcmma_gemm_tensor_maps(&p, &o, 0, 0, NULL, m, &err), TCMMA_OK);
  assert_true(m[0].rank == 3 && m[0].dims[2] == 5 && m[0].strides[1] == 256 * 256 * 2 &&
              m[0].box[2] == 1);
  assert_true(m[1].rank == 3 && m[1].strides[1] == (256 * 256 + 64) * 2);
  /* an M-major A: k rows of m, a box one panel of 64 columns and one k tile */
  c = kmajor(256, 256, 256), c.a.transposed = true, c.a.ld = 264;
  o = tcmma_gemm_opts_default();
  tcmma_gemm_info info = {.size = sizeof info};
  assert_int_equal(tcmma_gemm_plan_opts(&c, &o, &p, &info, NULL), TCMMA_OK);
  assert_int_equal(tcmma_gemm_tensor_maps(&p, &o, 0, 0, NULL, m, &err), TCMMA_OK);
  assert_true(m[0].dims[0] == 256 && m[0].dims[1] == 256 && m[0].strides[0] == 264 * 2);
  assert_true(m[0].box[0] == 64 && m[0].box[1] == 64 && m[0].swizzle == TCMMA_SWIZZLE_B128);
  assert_int_equal(info.a_copy_bytes, 64 * 64 * 2); /* block_m / 64 boxes a stage */
  tcmma_gemm_plan mma;
  c = kmajor(256, 256, 256);
  assert_int_equal(tcmma_gemm_plan_call(&c, &mma, NULL), TCMMA_OK);
  assert_int_equal(tcmma_gemm_tensor_maps(&mma, NULL, 0, 0, NULL, m, &err), TCMMA_INVALID);
  assert_non_null(strstr(err.message, "mma-sync"));
}

/* An N-major B (bf16 stored k x n): the default tile's stage holds 256 / 64
 * = 4 panels of 64 k rows of one 128-byte span (a TMA box each: k rows of
 * n, a box one k tile of 64 columns), the same bytes as K-major. */
static void n_major_b_plan(void **s) {
  (void)s;
  tcmma_gemm_call c = kmajor(1024, 1024, 512);
  c.b.transposed = false, c.b.ld = 1032;
  tcmma_gemm_opts o = tcmma_gemm_opts_default();
  tcmma_gemm_plan p;
  tcmma_gemm_info i = {.size = sizeof i};
  assert_int_equal(tcmma_gemm_plan_opts(&c, &o, &p, &i, NULL), TCMMA_OK);
  assert_int_equal(i.kernel, TCMMA_GEMM_KERNEL_WGMMA), assert_int_equal(i.wgmma_n, 256);
  assert_int_equal(p.b_swizzle, TCMMA_SWIZZLE_B128), assert_int_equal(p.a_swizzle, TCMMA_SWIZZLE_B128);
  assert_int_equal(p.stage_bytes, (128 + 256) * 128);
  assert_int_equal(i.b_copy_bytes, 64 * 64 * 2), assert_int_equal(i.a_copy_bytes, 128 * 64 * 2);
  assert_int_equal(p.mma_per_k_tile, 4);
  assert_int_equal(i.consumer_registers, 232), assert_int_equal(i.producer_registers, 40);
  tcmma_tensor_map m[2];
  tcmma_error err = {0};
  assert_int_equal(tcmma_gemm_tensor_maps(&p, &o, 0, 0, NULL, m, &err), TCMMA_OK);
  assert_true(m[1].dims[0] == 1024 && m[1].dims[1] == 512 && m[1].strides[0] == 1032 * 2);
  assert_true(m[1].box[0] == 64 && m[1].box[1] == 64 && m[1].swizzle == TCMMA_SWIZZLE_B128);
  /* k tiles of 32 (a 64-byte swizzle for a): b's panels stay 128 bytes wide */
  c.block_k = 32;
  assert_int_equal(tcmma_gemm_plan_opts(&c, &o, &p, &i, NULL), TCMMA_OK);
  assert_int_equal(p.a_swizzle, TCMMA_SWIZZLE_B64), assert_int_equal(p.b_swizzle, TCMMA_SWIZZLE_B128);
  assert_int_equal(i.b_copy_bytes, 64 * 32 * 2);
}

/* Its text: a TMA load per panel at columns n0 + 64p, the stage's panels
 * after a's 16384 bytes 8192 apart; the consumer's one descriptor of b
 * with LBO 8192 (64 rows of 128 bytes: bits 16-29 hold 0x200), SBO 1024,
 * imm-trans-b 1 (a K-major: 0). */
static void n_major_b_text(void **s) {
  (void)s;
  tcmma_gemm_call c = kmajor(512, 512, 512);
  c.b.transposed = false;
  tcmma_gemm_opts o = tcmma_gemm_opts_default();
  tcmma_gemm_plan p;
  assert_int_equal(tcmma_gemm_plan_opts(&c, &o, &p, NULL, NULL), TCMMA_OK);
  tcmma_buf t = {0};
  tcmma_error err = {0};
  if (tcmma_render_gemm_opts(RCTX(NULL, TCMMA_DIALECT_CUDA, NULL, &t), &p, &o, &err) != TCMMA_OK)
    fail_msg("render: %s", err.message);
  const char *want[] = {
      "d f32, a bf16, b bf16; block 128x256x64",
      "tcmma_tma_load_2d(__tcmma_g_a_st + 16384, &tmap_b, &__tcmma_g_full[__tcmma_g_s], "
      "__tcmma_g_n0 + 0, __tcmma_g_kt * 64);",
      "tcmma_tma_load_2d(__tcmma_g_a_st + 40960, &tmap_b, &__tcmma_g_full[__tcmma_g_s], "
      "__tcmma_g_n0 + 192, __tcmma_g_kt * 64);",
      "B (N-major, 128-byte swizzle, panels of 64 rows)",
      "tcmma_db0 = 0x4000004002000000ull", "m64n256k16.f32.bf16.bf16", "p, 1, 1, 0, 1;"};
  for (size_t k = 0; k < sizeof want / sizeof want[0]; k++)
    if (!strstr(tcmma_buf_str(&t), want[k])) fail_msg("no '%s' in\n%s", want[k], tcmma_buf_str(&t));
  assert_null(strstr(tcmma_buf_str(&t), "__tcmma_g_n0 + 256"));
  assert_null(strstr(tcmma_buf_str(&t), "b bf16,t"));
  tcmma_buf_free(&t);
}

/* The text: the maps as grid constants last, the launch bound, setmaxnreg
 * where planned, TMA and mbarriers, the TMA thread elected by elect.sync
 * (never tid == 0), no cp.async ring; the plan rendered with
 * other options than its own is refused. */
static void text(void **s) {
  (void)s;
  tcmma_gemm_call c = kmajor(512, 512, 512);
  tcmma_gemm_opts o = tcmma_gemm_opts_default();
  tcmma_gemm_plan p;
  assert_int_equal(tcmma_gemm_plan_opts(&c, &o, &p, NULL, NULL), TCMMA_OK);
  tcmma_buf t = {0};
  test_gemm_render(&p, &o, TCMMA_DIALECT_CUDA, &t);
  const char *want[] = {"__launch_bounds__(384, 1)", "float alpha, float beta,\n    const "
                        "__grid_constant__ CUtensorMap tmap_a, const __grid_constant__ "
                        "CUtensorMap tmap_b)", "setmaxnreg.dec.sync.aligned.u32 40;",
                        "setmaxnreg.inc.sync.aligned.u32 232;", "cp.async.bulk.tensor.2d",
                        "tcmma_mbar_arrive_expect_tx(&__tcmma_g_full[__tcmma_g_s], 49152u);",
                        "wgmma.mma_async.sync.aligned.m64n256k16.f32.bf16.bf16",
                        "(wgmma-bf16)", "tcmma_gemm_drain(__tcmma_g_acc);",
                        /* the TMA thread: warp 0's branch, then the lane it elects */
                        "if (__tcmma_g_tid < 32 && tcmma_elect_one()) {",
                        "elect.sync _|p, 0xffffffff;"};
  for (size_t i = 0; i < sizeof want / sizeof want[0]; i++)
    if (!strstr(tcmma_buf_str(&t), want[i])) fail_msg("no '%s' in\n%s", want[i], tcmma_buf_str(&t));
  assert_null(strstr(tcmma_buf_str(&t), "cp.async.wait_group"));
  assert_null(strstr(tcmma_buf_str(&t), "ldmatrix"));
  assert_null(strstr(tcmma_buf_str(&t), "if (__tcmma_g_tid == 0) {\n      int"));
  tcmma_buf_free(&t);
  tcmma_error err = {0};
  assert_int_equal(tcmma_render_gemm_opts(RCTX(NULL, TCMMA_DIALECT_CUDA, NULL, &t), &p, NULL, &err),
                   TCMMA_INVALID);
  assert_non_null(strstr(err.message, "other tcmma_gemm_opts"));
  tcmma_buf_free(&t);
  /* one consumer: no setmaxnreg */
  c.block_m = 64;
  assert_int_equal(tcmma_gemm_plan_opts(&c, &o, &p, NULL, NULL), TCMMA_OK);
  test_gemm_render(&p, &o, TCMMA_DIALECT_CUDA, &t);
  assert_null(strstr(tcmma_buf_str(&t), "setmaxnreg"));
  tcmma_buf_free(&t);
}

/* NVRTC compiles the kernel at sm_90a with an empty log: the default tile
 * with every epilogue op (ragged edges, shape arguments) and with an
 * N-major b, and ptxas gives it the plan's registers and no spill. */
static void compiles_at_sm_90a(void **s) {
  (void)s;
  tcmma_error err = {0};
  if (tcmma_nvrtc_load(NULL, &err) != TCMMA_OK) {
    printf("no NVRTC here: %s\n", err.message);
    skip();
  }
  tcmma_epilogue_op ops[TCMMA_EPILOGUE_COUNT];
  int n = 0;
  for (int k = 0; k < TCMMA_EPILOGUE_COUNT; k++) {
    if (k == TCMMA_EPILOGUE_CVT) continue; /* last */
    ops[n] = tcmma_epilogue_op_default(), ops[n].kind = (tcmma_epilogue_kind)k;
    if (k == TCMMA_EPILOGUE_HOOK) ops[n].body = "return x * (float)(row + col);";
    if (k == TCMMA_EPILOGUE_CLAMP) ops[n].lo = -4, ops[n].hi = 4;
    n++;
  }
  ops[n] = tcmma_epilogue_op_default(), ops[n].kind = TCMMA_EPILOGUE_CVT;
  ops[n++].prec = TCMMA_PREC_BF16;
  for (int with = 0; with < 3; with++) {
    tcmma_gemm_call c = kmajor(8192, 8192, 8192);
    tcmma_gemm_opts o = tcmma_gemm_opts_default();
    if (with == 1) c.m = 1000, c.n = 1000, o.shape_args = true, o.epilogue = ops, o.epilogue_count = n;
    if (with == 2) c.b.transposed = false; /* an N-major b */
    tcmma_gemm_plan p;
    assert_int_equal(tcmma_gemm_plan_opts(&c, &o, &p, NULL, NULL), TCMMA_OK);
    tcmma_buf src = {0};
    test_gemm_render(&p, &o, TCMMA_DIALECT_CUDA, &src);
    tcmma_compile_opts co = TCMMA_COMPILE_OPTS_INIT(.name = "hopper.cu", .arch = 90,
                                                    .arch_suffix = 'a', .sass = true);
    tcmma_program prog;
    tcmma_status st = tcmma_compile(tcmma_buf_str(&src), src.len, &co, &prog, &err);
    if (st != TCMMA_OK) fail_msg("%s\n%s", err.message, tcmma_buf_str(&src));
    if (!prog.ptxas_info) fail_msg("no ptxas figures");
    /* no warning: the log holds ptxas's -v figures only */
    if (strstr(prog.log, "warning") || strstr(prog.log, "Warning")) fail_msg("log: %s", prog.log);
    assert_int_equal(prog.spill_store_bytes + prog.spill_load_bytes + prog.stack_bytes, 0);
    assert_int_equal(prog.registers, p.registers);
    tcmma_program_free(&prog);
    tcmma_buf_free(&src);
  }
}

/* tcmma gemm: auto takes wgmma on --cc 90, --kind asks, a decline is exit 3
 * with its reason, an unknown kind exit 2. */
static void cli(void **s) {
  (void)s;
  const char *plan[] = {"gemm", "--m", "8192", "--n", "8192", "--k", "8192", "--d", "bf16", "--a",
                        "bf16", "--b", "bf16,t", "--cc", "90", "--json", NULL, NULL, NULL};
  cli_result r = run_cli(plan, NULL);
  assert_int_equal(r.exit_code, 0);
  assert_non_null(strstr(r.out, "\"kernel\": \"wgmma\""));
  assert_int_equal(json_int_of(r.out, "consumer_warpgroups"), 2);
  assert_int_equal(json_int_of(r.out, "consumer_registers"), 232);
  cli_result_free(&r);
  plan[15] = "--kind", plan[16] = "mma-sync", plan[17] = "--json";
  r = run_cli(plan, NULL);
  assert_int_equal(r.exit_code, 0);
  assert_non_null(strstr(r.out, "\"kernel\": \"mma-sync\""));
  cli_result_free(&r);
  plan[12] = "bf16", plan[15] = "--json", plan[16] = NULL; /* b k x n: auto takes wgmma */
  r = run_cli(plan, NULL);
  assert_int_equal(r.exit_code, 0);
  assert_non_null(strstr(r.out, "\"kernel\": \"wgmma\""));
  cli_result_free(&r);
  plan[10] = "e4m3", plan[12] = "e4m3", plan[15] = "--kind", plan[16] = "wgmma";
  r = run_cli(plan, NULL);
  assert_int_equal(r.exit_code, 3);
  assert_non_null(strstr(r.err, "kernel: a, b: the wgmma kernel reads e4m3 operands K-major only"));
  cli_result_free(&r);
  plan[10] = "bf16";
  plan[16] = "hopper";
  r = run_cli(plan, NULL);
  assert_int_equal(r.exit_code, 2);
  assert_non_null(strstr(r.err, "--kind"));
  cli_result_free(&r);
  plan[12] = "bf16,t", plan[15] = "--kernel", plan[16] = NULL;
  r = run_cli(plan, NULL);
  assert_int_equal(r.exit_code, 0);
  assert_non_null(strstr(r.out, "const __grid_constant__ CUtensorMap tmap_b)"));
  cli_result_free(&r);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(auto_takes_wgmma_on_cc_90),
      cmocka_unit_test(auto_keeps_mma_sync_elsewhere),
      cmocka_unit_test(wgmma_declines),
      cmocka_unit_test(block_scaled_stay_mma_sync),
      cmocka_unit_test(tensor_maps),
      cmocka_unit_test(n_major_b_plan),
      cmocka_unit_test(text),
      cmocka_unit_test(n_major_b_text),
      cmocka_unit_test(compiles_at_sm_90a),
      cmocka_unit_test(cli),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
