/* The Blackwell GEMM (include/tcmma/gemm.h, docs/emit.md "The Blackwell
 * GEMM"): which kernel kind a plan takes (auto on cc 10.x, asked, forced
 * by a tcgen05 arm), what the tcgen05 kernel declines and why, its plan's
 * figures computed here from the tile, the compile target every kind's
 * plan reports (tcmma_gemm_info.arch_suffix), its tensor maps, its text, an
 * NVRTC/ptxas compile at sm_100f with every epilogue op (and the targets
 * ptxas refuses) and tcmma gemm --kind tcgen05. The GEMM matrix runs its
 * cases on the simulator and through the compile executor
 * (tests/test_gemm.c, test_verify_sim). */
#include "util.h"
#include <stddef.h>
#include <stdio.h>
#include <string.h>
#include "tcmma/tcmma.h"
#include "tcmma/compile.h"

/* The K-major bf16 call at cc 100 (tests/util.h). */
static tcmma_gemm_call kmajor(int m, int n, int k) { return test_gemm_kmajor(m, n, k, 100); }

/* The default tile: 128x256 (one m128 x n256 tcgen05.mma per k step), k
 * tiles of 64 bf16 (one 128-byte span), 4 stages, 192 threads (an epilogue
 * warpgroup, a producer warp, an MMA warp), 256 Tensor Memory columns. */
static void auto_takes_tcgen05_on_cc_100(void **s) {
  (void)s;
  tcmma_gemm_call c = kmajor(1024, 1024, 512);
  tcmma_gemm_opts o = tcmma_gemm_opts_default();
  tcmma_gemm_plan p;
  tcmma_gemm_info i = {.size = sizeof i};
  assert_int_equal(tcmma_gemm_plan_opts(&c, &o, &p, &i, NULL), TCMMA_OK);
  assert_int_equal(i.kernel, TCMMA_GEMM_KERNEL_TCGEN05);
  assert_int_equal(i.tcgen05, TCMMA_TCGEN05_BF16);
  assert_int_equal(i.wgmma, TCMMA_WGMMA_NONE);
  assert_int_equal(p.call.block_m, 128), assert_int_equal(p.call.block_n, 256);
  assert_int_equal(p.call.block_k, 64), assert_int_equal(p.call.stages, 4);
  assert_int_equal(p.call.warps_m, 4), assert_int_equal(p.call.warps_n, 1);
  assert_int_equal(p.threads, 4 * 32 + 32 + 32);
  assert_int_equal(i.tmem_columns, 256);
  /* a stage: 128 + 256 rows of 128 bytes; 2 x 4 mbarriers, the
   * accumulator's and the Tensor Memory address's cell; 1024 to align */
  assert_int_equal(p.stage_bytes, (128 + 256) * 128);
  assert_int_equal(p.shared_bytes, 4 * (128 + 256) * 128 + (2 * 4 + 2) * 8 + 1024);
  assert_int_equal(p.a_swizzle, TCMMA_SWIZZLE_B128), assert_int_equal(p.b_swizzle, TCMMA_SWIZZLE_B128);
  assert_int_equal(p.mma_per_k_tile, 64 / 16);
  assert_int_equal(p.ldmatrix_per_k_tile, 0), assert_int_equal(p.cp_async_per_k_tile, 0);
  assert_int_equal(p.k_tiles, 512 / 64);
  assert_int_equal(p.grid[0], 1024 / 256), assert_int_equal(p.grid[1], 1024 / 128);
  assert_int_equal(p.registers, TCMMA_GEMM_TCGEN05_REGISTERS);
  assert_int_equal(i.a_copy_bytes, 128 * 128), assert_int_equal(i.b_copy_bytes, 256 * 128);
  assert_int_equal(i.pack, 1), assert_int_equal(i.scale_block, 0);
  /* fp8 (mixed): k tiles of 128, the f8f6f4 row, 4 products of k 32 */
  c.a.prec = TCMMA_PREC_E5M2, c.b.prec = TCMMA_PREC_E4M3;
  assert_int_equal(tcmma_gemm_plan_opts(&c, &o, &p, &i, NULL), TCMMA_OK);
  assert_int_equal(i.tcgen05, TCMMA_TCGEN05_F8F6F4), assert_int_equal(p.call.block_k, 128);
  assert_int_equal(p.mma_per_k_tile, 128 / 32);
  /* f16 at n 96 on cc 10.3: 128 columns (a power of two) */
  c = kmajor(300, 96, 64), c.cc = 103, c.block_n = 96;
  c.a.prec = c.b.prec = TCMMA_PREC_F16, c.d.prec = TCMMA_PREC_F16;
  assert_int_equal(tcmma_gemm_plan_opts(&c, &o, &p, &i, NULL), TCMMA_OK);
  assert_int_equal(i.tcgen05, TCMMA_TCGEN05_F16), assert_int_equal(i.tmem_columns, 128);
  c.block_n = 16; /* below the smallest allocation: 32 */
  assert_int_equal(tcmma_gemm_plan_opts(&c, &o, &p, &i, NULL), TCMMA_OK);
  assert_int_equal(i.tmem_columns, 32);
  /* an N-major b: panels of 64 bf16 (one 128-byte span along n), block_k
   * rows each, one product of n 64 per panel and k step, one box each */
  c = kmajor(512, 512, 512), c.b.transposed = false;
  assert_int_equal(tcmma_gemm_plan_opts(&c, &o, &p, &i, NULL), TCMMA_OK);
  assert_int_equal(p.b_rows, 64), assert_int_equal(p.b_cols, 256);
  assert_int_equal(p.b_swizzle, TCMMA_SWIZZLE_B128);
  assert_int_equal(p.mma_per_k_tile, 64 / 16 * (256 / 64));
  assert_int_equal(i.b_copy_bytes, 64 * 64 * 2), assert_int_equal(i.tmem_columns, 256);
  assert_int_equal(p.stage_bytes, (128 + 256) * 128);
  /* fp8: panels of 128 */
  c.a.prec = c.b.prec = TCMMA_PREC_E4M3;
  assert_int_equal(tcmma_gemm_plan_opts(&c, &o, &p, &i, NULL), TCMMA_OK);
  assert_int_equal(p.mma_per_k_tile, 128 / 32 * (256 / 128));
  assert_int_equal(i.b_copy_bytes, 128 * 128);
  /* an M-major a: two panels of 64 bf16 (one 128-byte span along m), block_k
   * rows each, one box each; the m128 product reads both through one
   * descriptor (LBO a panel), so a k tile's products are as K-major; f16
   * with k tiles of 32 (b's 64-byte swizzle beside a's 128) */
  c = kmajor(512, 512, 512), c.a.transposed = true;
  assert_int_equal(tcmma_gemm_plan_opts(&c, &o, &p, &i, NULL), TCMMA_OK);
  assert_int_equal(i.kernel, TCMMA_GEMM_KERNEL_TCGEN05);
  assert_int_equal(p.a_rows, 64), assert_int_equal(p.a_cols, 128);
  assert_int_equal(p.a_swizzle, TCMMA_SWIZZLE_B128);
  assert_int_equal(p.mma_per_k_tile, 64 / 16);
  assert_int_equal(i.a_copy_bytes, 64 * 64 * 2), assert_int_equal(i.b_copy_bytes, 256 * 128);
  assert_int_equal(p.stage_bytes, (128 + 256) * 128);
  c = kmajor(304, 200, 96), c.a.transposed = true, c.block_n = 128, c.block_k = 32;
  c.a.prec = c.b.prec = c.d.prec = TCMMA_PREC_F16;
  assert_int_equal(tcmma_gemm_plan_opts(&c, &o, &p, &i, NULL), TCMMA_OK);
  assert_int_equal(i.tcgen05, TCMMA_TCGEN05_F16);
  assert_int_equal(p.a_swizzle, TCMMA_SWIZZLE_B128), assert_int_equal(p.b_swizzle, TCMMA_SWIZZLE_B64);
  assert_int_equal(i.a_copy_bytes, 64 * 32 * 2), assert_int_equal(p.mma_per_k_tile, 32 / 16);
  assert_int_equal(p.stage_bytes, (128 + 128) * 64);
  /* with an N-major b: panels both ways */
  c = kmajor(512, 512, 512), c.a.transposed = true, c.b.transposed = false;
  assert_int_equal(tcmma_gemm_plan_opts(&c, &o, &p, &i, NULL), TCMMA_OK);
  assert_int_equal(p.a_rows, 64), assert_int_equal(p.b_rows, 64);
  assert_int_equal(p.mma_per_k_tile, 64 / 16 * (256 / 64));
}

/* Auto keeps the mma.sync kernel where the tcgen05 kernel does not serve
 * the call or the call's tile or warp grid is another kernel's; a forced
 * tcgen05 arm takes it; callers that asked for no kind get mma.sync. */
static void auto_keeps_mma_sync_elsewhere(void **s) {
  (void)s;
  tcmma_gemm_opts o = tcmma_gemm_opts_default();
  tcmma_gemm_call c = kmajor(512, 512, 512);
  assert_int_equal(test_gemm_kind(&c, &o), TCMMA_GEMM_KERNEL_TCGEN05);
  c.cc = 103;
  assert_int_equal(test_gemm_kind(&c, &o), TCMMA_GEMM_KERNEL_TCGEN05);
  c.cc = 120; /* no tcgen05 on 12.x */
  assert_int_equal(test_gemm_kind(&c, &o), TCMMA_GEMM_KERNEL_MMA_SYNC);
  c.cc = 90; /* the wgmma kernel's */
  assert_int_equal(test_gemm_kind(&c, &o), TCMMA_GEMM_KERNEL_WGMMA);
  c.cc = 0;
  assert_int_equal(test_gemm_kind(&c, &o), TCMMA_GEMM_KERNEL_MMA_SYNC);
  c = kmajor(512, 512, 512), c.b.transposed = false; /* B k x n: N-major, in panels */
  assert_int_equal(test_gemm_kind(&c, &o), TCMMA_GEMM_KERNEL_TCGEN05);
  c = kmajor(512, 512, 512), c.a.transposed = true; /* A k x m: M-major, in panels */
  assert_int_equal(test_gemm_kind(&c, &o), TCMMA_GEMM_KERNEL_TCGEN05);
  c.a.prec = c.b.prec = TCMMA_PREC_E4M3; /* fp8: K-major only here */
  assert_int_equal(test_gemm_kind(&c, &o), TCMMA_GEMM_KERNEL_MMA_SYNC);
  c = kmajor(512, 512, 65); /* rows of 130 bytes: no tensor map */
  assert_int_equal(test_gemm_kind(&c, &o), TCMMA_GEMM_KERNEL_MMA_SYNC);
  c = kmajor(512, 512, 512), c.warps_m = 2, c.warps_n = 2; /* an mma.sync warp grid */
  assert_int_equal(test_gemm_kind(&c, &o), TCMMA_GEMM_KERNEL_MMA_SYNC);
  c = kmajor(512, 512, 512), c.block_m = 64; /* not the one m128 product */
  assert_int_equal(test_gemm_kind(&c, &o), TCMMA_GEMM_KERNEL_MMA_SYNC);
  c = kmajor(512, 512, 512);
  o.batch = 2; /* a strided batch: the maps' third dimension */
  assert_int_equal(test_gemm_kind(&c, &o), TCMMA_GEMM_KERNEL_TCGEN05);
  o.pointer_array = true;
  assert_int_equal(test_gemm_kind(&c, &o), TCMMA_GEMM_KERNEL_MMA_SYNC);
  o = tcmma_gemm_opts_default(), o.split_k = 2;
  assert_int_equal(test_gemm_kind(&c, &o), TCMMA_GEMM_KERNEL_MMA_SYNC);
  o = tcmma_gemm_opts_default(), o.shape_args = true; /* shape arguments are served */
  assert_int_equal(test_gemm_kind(&c, &o), TCMMA_GEMM_KERNEL_TCGEN05);
  /* no kind asked */
  tcmma_gemm_plan p;
  assert_int_equal(tcmma_gemm_plan_call(&c, &p, NULL), TCMMA_OK);
  assert_int_equal(p.threads, TCMMA_GEMM_WARPS_M * TCMMA_GEMM_WARPS_N * 32);
  o = tcmma_gemm_opts_default();
  o.kernel = TCMMA_GEMM_KERNEL_TCGEN05; /* past an old caller's size: not read */
  o.size = offsetof(tcmma_gemm_opts, kernel);
  assert_int_equal(test_gemm_kind(&c, &o), TCMMA_GEMM_KERNEL_MMA_SYNC);
  /* a forced tcgen05 arm takes the tcgen05 kernel, on any cc (then declined) */
  o = tcmma_gemm_opts_default(), c.arm = "tcgen05-bf16";
  assert_int_equal(test_gemm_kind(&c, &o), TCMMA_GEMM_KERNEL_TCGEN05);
  c.cc = 90;
  assert_int_equal(test_gemm_kind(&c, &o), TCMMA_GEMM_KERNEL_TCGEN05);
}

/* The tcgen05 kernel asked for declines what it cannot serve, naming it. */
static void tcgen05_declines(void **s) {
  (void)s;
  struct {
    const char *what, *says;
    tcmma_gemm_decline why;
  } want[] = {{"N-major b of block_n 96", "whole panels", TCMMA_GEMM_DECLINE_TILE},
              {"M-major fp8 a", "f16 and bf16, M-major", TCMMA_GEMM_DECLINE_KERNEL},
              {"cc 9.0", "cc 10.x only", TCMMA_GEMM_DECLINE_ARCH},
              {"cc 12.0", "cc 10.x only", TCMMA_GEMM_DECLINE_ARCH},
              {"f32 storage (tf32)", "1- and 2-byte", TCMMA_GEMM_DECLINE_KERNEL},
              {"s8 (i8)", "s32 accumulator", TCMMA_GEMM_DECLINE_KERNEL},
              {"mxe2m3 (fp6, read padded)", "read padded", TCMMA_GEMM_DECLINE_KERNEL},
              {"a batch with shape arguments", "fixed-shape kernel only", TCMMA_GEMM_DECLINE_KERNEL},
              {"split-K", "no K slices", TCMMA_GEMM_DECLINE_KERNEL},
              {"8-byte class", "16-byte", TCMMA_GEMM_DECLINE_KERNEL},
              {"an mma.sync arm", "no tcgen05 arm", TCMMA_GEMM_DECLINE_KERNEL},
              {"the f16-accumulator arm", "f32 accumulator", TCMMA_GEMM_DECLINE_KERNEL},
              {"a long name", "tile product", TCMMA_GEMM_DECLINE_CALL},
              {"k tile of 48", "swizzle span", TCMMA_GEMM_DECLINE_TILE},
              {"block_m 64", "m128", TCMMA_GEMM_DECLINE_TILE},
              {"warps 8x1", "4x1", TCMMA_GEMM_DECLINE_TILE},
              {"n 120", "loads of 16 columns", TCMMA_GEMM_DECLINE_TILE},
              {"n 272", "instruction n", TCMMA_GEMM_DECLINE_TILE},
              {"5 stages of 128x256", "exceed", TCMMA_GEMM_DECLINE_SHARED},
              {"a budget of 64", "budget of 64", TCMMA_GEMM_DECLINE_REGISTERS}};
  for (size_t w = 0; w < sizeof want / sizeof want[0]; w++) {
    tcmma_gemm_call c = kmajor(512, 512, 512);
    tcmma_gemm_opts o = tcmma_gemm_opts_default();
    o.kernel = TCMMA_GEMM_KERNEL_TCGEN05;
    switch (w) {
      case 0: c.b.transposed = false, c.block_n = 96; break;
      case 1: c.a.transposed = true, c.a.prec = c.b.prec = TCMMA_PREC_E4M3; break;
      case 2: c.cc = 90; break;
      case 3: c.cc = 120; break;
      case 4: c.a.prec = c.b.prec = TCMMA_PREC_F32, c.numerics.tf32 = true; break;
      case 5: c.a.prec = c.b.prec = TCMMA_PREC_S8, c.d.prec = TCMMA_PREC_S32; break;
      case 6: c.a.prec = c.b.prec = TCMMA_PREC_MXE2M3; break;
      case 7: o.batch = 2, o.shape_args = true; break;
      case 8: o.split_k = 2; break;
      case 9: o.a_align = 8; break;
      case 10: c.arm = "mma-bf16"; break;
      case 11: c.arm = "tcgen05-f16-acc16", c.a.prec = c.b.prec = TCMMA_PREC_F16; break;
      case 12: c.name = "a_kernel_name_of_sixty_characters_xxxxxxxxxxxxxxxxxxxxxxxxxx"; break;
      case 13: c.block_k = 48; break;
      case 14: c.block_m = 64; break;
      case 15: c.warps_m = 8; break;
      case 16: c.block_n = 120; break;
      case 17: c.block_n = 272; break;
      case 18: c.stages = 5; break;
      default: c.registers = 64; break;
    }
    tcmma_gemm_plan p;
    tcmma_gemm_info i = {.size = sizeof i};
    tcmma_error err = {0};
    assert_int_equal(tcmma_gemm_plan_opts(&c, &o, &p, &i, &err), TCMMA_DECLINED);
    if (p.reason != want[w].why || !strstr(p.message, want[w].says))
      fail_msg("%s: declined %s: %s", want[w].what, tcmma_gemm_decline_name(p.reason), p.message);
    assert_int_equal(i.kernel, TCMMA_GEMM_KERNEL_TCGEN05);
  }
  tcmma_gemm_kernel k;
  tcmma_error err = {0};
  assert_int_equal(tcmma_gemm_kernel_parse("tcgen05", &k, NULL), TCMMA_OK);
  assert_int_equal(k, TCMMA_GEMM_KERNEL_TCGEN05);
  assert_int_equal(tcmma_gemm_kernel_parse("blackwell", &k, &err), TCMMA_INVALID);
  assert_non_null(strstr(err.message, "wgmma, tcgen05"));
  assert_non_null(strstr(tcmma_gemm_kernel_text(TCMMA_GEMM_KERNEL_TCGEN05), "Tensor Memory"));
}

/* Every kind's plan says the target it compiles for: the wgmma kernel's
 * row is arch-specific (a), the tcgen05 rows served and the tcgen05
 * feature take the family (f), a family mma.sync arm (12.x's block-scaled)
 * f at its cc; an mma.sync plan of another arm none, and a plan for any
 * device (cc 0) none. Each from the tables: checked against the rows here. */
static void compile_target(void **s) {
  (void)s;
  tcmma_gemm_opts o = tcmma_gemm_opts_default();
  tcmma_gemm_plan p;
  tcmma_gemm_info i = {.size = sizeof i};
  tcmma_gemm_call c = kmajor(512, 512, 512);
  assert_int_equal(tcmma_gemm_plan_opts(&c, &o, &p, &i, NULL), TCMMA_OK);
  assert_int_equal(tcmma_tcgen05_get((tcmma_tcgen05)i.tcgen05)->suffix, TCMMA_PTX_SUFFIX_A_OR_F);
  assert_int_equal(i.arch_suffix, 'f');
  c.cc = 90;
  assert_int_equal(tcmma_gemm_plan_opts(&c, &o, &p, &i, NULL), TCMMA_OK);
  assert_int_equal(i.kernel, TCMMA_GEMM_KERNEL_WGMMA);
  assert_int_equal(tcmma_wgmma_get(i.wgmma)->suffix, TCMMA_PTX_SUFFIX_A);
  assert_int_equal(i.arch_suffix, 'a');
  c.cc = 80;
  assert_int_equal(tcmma_gemm_plan_opts(&c, &o, &p, &i, NULL), TCMMA_OK);
  assert_int_equal(i.kernel, TCMMA_GEMM_KERNEL_MMA_SYNC), assert_int_equal(i.arch_suffix, 0);
  c.cc = 0;
  assert_int_equal(tcmma_gemm_plan_opts(&c, &o, &p, &i, NULL), TCMMA_OK);
  assert_int_equal(i.arch_suffix, 0);
  c = kmajor(256, 256, 512), c.cc = 120, c.a.prec = c.b.prec = TCMMA_PREC_NVF4;
  c.block_m = c.block_n = 64, c.block_k = 128, c.warps_m = c.warps_n = 2, c.stages = 3;
  assert_int_equal(tcmma_gemm_plan_opts(&c, &o, &p, &i, NULL), TCMMA_OK);
  assert_true(tcmma_arm_get(p.arm)->family);
  assert_int_equal(i.arch_suffix, 'f');
}

/* The tensor maps of a tcgen05 plan: A m rows of k, B n rows of k, boxes of
 * one k tile of the block's rows (128, block_n), swizzled as the stages;
 * their boxes are a stage. */
static void tensor_maps(void **s) {
  (void)s;
  tcmma_gemm_call c = kmajor(300, 200, 192);
  c.a.ld = 200, c.b.ld = 208, c.block_n = 96;
  tcmma_gemm_opts o = tcmma_gemm_opts_default();
  tcmma_gemm_plan p;
  assert_int_equal(tcmma_gemm_plan_opts(&c, &o, &p, NULL, NULL), TCMMA_OK);
  tcmma_tensor_map m[2];
  tcmma_error err = {0};
  assert_int_equal(tcmma_gemm_tensor_maps(&p, &o, 0x1000, 0x20000, NULL, m, &err), TCMMA_OK);
  assert_true(m[0].dims[0] == 192 && m[0].dims[1] == 300 && m[0].strides[0] == 200 * 2);
  assert_true(m[1].dims[0] == 192 && m[1].dims[1] == 200 && m[1].strides[0] == 208 * 2);
  assert_true(m[0].box[0] == 64 && m[0].box[1] == 128 && m[1].box[0] == 64 && m[1].box[1] == 96);
  assert_int_equal(tcmma_tensor_map_box_bytes(&m[0]) + tcmma_tensor_map_box_bytes(&m[1]),
                   (long long)p.stage_bytes);
  /* opts other than the plan's: the mma.sync kernel's plan takes none */
  assert_int_equal(tcmma_gemm_tensor_maps(&p, NULL, 0, 0, NULL, m, &err), TCMMA_INVALID);
  /* an N-major b: k rows of n (ldb apart), a box one panel of 64 columns and
   * one k tile; a strided batch moves by k rows of ldb */
  c = kmajor(300, 200, 192), c.b.transposed = false, c.b.ld = 264, c.block_n = 128;
  o.batch = 2;
  assert_int_equal(tcmma_gemm_plan_opts(&c, &o, &p, NULL, NULL), TCMMA_OK);
  assert_int_equal(tcmma_gemm_tensor_maps(&p, &o, 0, 0, NULL, m, &err), TCMMA_OK);
  assert_true(m[1].dims[0] == 200 && m[1].dims[1] == 192 && m[1].strides[0] == 264 * 2);
  assert_true(m[1].box[0] == 64 && m[1].box[1] == 64 && m[1].swizzle == TCMMA_SWIZZLE_B128);
  assert_true(m[1].rank == 3 && m[1].strides[1] == 192ull * 264 * 2);
  int shape[5] = {300, 200, 192, 200, 198}; /* ldb below n */
  o.batch = 0, o.shape_args = true;
  assert_int_equal(tcmma_gemm_plan_opts(&c, &o, &p, NULL, NULL), TCMMA_OK);
  assert_int_equal(tcmma_gemm_tensor_maps(&p, &o, 0, 0, shape, m, &err), TCMMA_INVALID);
  assert_non_null(strstr(err.message, "ldb 198"));
  /* an M-major a: k rows of m (lda apart), a box one panel of 64 columns
   * and one k tile, swizzled 128 */
  c = kmajor(300, 200, 192), c.a.transposed = true, c.a.ld = 304;
  o = tcmma_gemm_opts_default();
  assert_int_equal(tcmma_gemm_plan_opts(&c, &o, &p, NULL, NULL), TCMMA_OK);
  assert_int_equal(tcmma_gemm_tensor_maps(&p, &o, 0, 0, NULL, m, &err), TCMMA_OK);
  assert_true(m[0].dims[0] == 300 && m[0].dims[1] == 192 && m[0].strides[0] == 304 * 2);
  assert_true(m[0].box[0] == 64 && m[0].box[1] == 64 && m[0].swizzle == TCMMA_SWIZZLE_B128);
}

/* The text: the maps as grid constants last, the launch bound, Tensor
 * Memory allocated by warp 0 and freed after the block's barrier, the tile
 * product's tcgen05.mma through the row's instruction descriptor, the
 * commits, the epilogue's tcgen05.ld; no cp.async ring, no wgmma; the host
 * dialect the simulator's calls. */
static void text(void **s) {
  (void)s;
  tcmma_gemm_call c = kmajor(512, 512, 512);
  tcmma_gemm_opts o = tcmma_gemm_opts_default();
  tcmma_gemm_plan p;
  assert_int_equal(tcmma_gemm_plan_opts(&c, &o, &p, NULL, NULL), TCMMA_OK);
  uint32_t idesc;
  assert_int_equal(tcmma_tcgen05_idesc(TCMMA_TCGEN05_BF16, 128, 256, TCMMA_PREC_BF16,
                                       TCMMA_PREC_BF16, false, false, &idesc, NULL), TCMMA_OK);
  char id[32];
  snprintf(id, sizeof id, "0x%08xu", (unsigned)idesc);
  tcmma_buf t = {0};
  test_gemm_render(&p, &o, TCMMA_DIALECT_CUDA, &t);
  const char *want[] = {"__launch_bounds__(192, 1)", "float alpha, float beta,\n    const "
                        "__grid_constant__ CUtensorMap tmap_a, const __grid_constant__ "
                        "CUtensorMap tmap_b)", "tcmma_tmem_alloc(__tcmma_g_slot, 256u);",
                        "tcmma_tmem_dealloc(__tcmma_g_tmem, 256u);", "cp.async.bulk.tensor.2d",
                        "tcmma_mbar_arrive_expect_tx(&__tcmma_g_full[__tcmma_g_s], 49152u);",
                        "tcgen05.mma.cta_group::1.kind::f16", id, "(tcgen05-bf16)",
                        "tcmma_tcgen05_commit(__tcmma_g_done);",
                        "tcmma_tcgen05_ld_32x32b_x16(", "tcgen05.wait::ld"};
  for (size_t i = 0; i < sizeof want / sizeof want[0]; i++)
    if (!strstr(tcmma_buf_str(&t), want[i])) fail_msg("no '%s' in\n%s", want[i], tcmma_buf_str(&t));
  /* each single issuer is the lane its warp's branch elects (elect.sync), never
   * chosen by its thread index, which ptxas cannot prove is one thread */
  const char *elected[] = {"if (__tcmma_g_warp == 4) {\n    /* the producer: one elected thread "
                           "loads every k tile with TMA */\n    if (tcmma_elect_one()) {\n",
                           "if (__tcmma_g_warp == 5) {\n    /* the MMA thread, one the warp "
                           "elects: D (Tensor Memory) = A B over the k tiles */\n    if "
                           "(tcmma_elect_one()) {\n", "elect.sync _|p, 0xffffffff;"};
  for (size_t i = 0; i < sizeof elected / sizeof elected[0]; i++)
    if (!strstr(tcmma_buf_str(&t), elected[i]))
      fail_msg("no '%s' in\n%s", elected[i], tcmma_buf_str(&t));
  assert_null(strstr(tcmma_buf_str(&t), "% 32 == 0"));
  assert_null(strstr(tcmma_buf_str(&t), "cp.async.wait_group"));
  assert_null(strstr(tcmma_buf_str(&t), "wgmma"));
  assert_null(strstr(tcmma_buf_str(&t), "setmaxnreg"));
  tcmma_buf_free(&t);
  test_gemm_render(&p, &o, TCMMA_DIALECT_HOST, &t);
  assert_non_null(strstr(tcmma_buf_str(&t), "tcmma_sim_tcgen05_mma(\"tcgen05.mma.cta_group::1.kind::f16\""));
  assert_non_null(strstr(tcmma_buf_str(&t), "tcmma_sim_elect_sync(\"elect.sync\", 0xffffffffu, NULL)"));
  assert_non_null(strstr(tcmma_buf_str(&t), "void tcmma_gemm_entry(void *args)"));
  tcmma_buf_free(&t);
  tcmma_error err = {0};
  assert_int_equal(tcmma_render_gemm_opts(RCTX(NULL, TCMMA_DIALECT_CUDA, NULL, &t), &p, NULL, &err),
                   TCMMA_INVALID);
  tcmma_buf_free(&t);
  /* an M-major a: a box per panel at columns m0 and m0 + 64 (the second a
   * panel of 64 k rows x 128 bytes on), b's box after both; the product's
   * A descriptor LBO 8192 (a panel), SBO 1024, 128-byte swizzle (hand
   * encoded); the transpose-A bit (15) of the K-major descriptor */
  c.a.transposed = true;
  assert_int_equal(tcmma_gemm_plan_opts(&c, &o, &p, NULL, NULL), TCMMA_OK);
  snprintf(id, sizeof id, "0x%08xu", (unsigned)(idesc | 1u << 15));
  test_gemm_render(&p, &o, TCMMA_DIALECT_CUDA, &t);
  const char *mmajor[] = {"tcmma_tma_load_2d(__tcmma_g_a_st + 0, &tmap_a, &__tcmma_g_full["
                          "__tcmma_g_s], __tcmma_g_m0 + 0, __tcmma_g_kt * 64);",
                          "tcmma_tma_load_2d(__tcmma_g_a_st + 8192, &tmap_a, &__tcmma_g_full["
                          "__tcmma_g_s], __tcmma_g_m0 + 64, __tcmma_g_kt * 64);",
                          "tcmma_tma_load_2d(__tcmma_g_a_st + 16384, &tmap_b,",
                          "tcmma_da0 = 0x4000404002000000ull", id,
                          "A (M-major, 128-byte swizzle, panels of 64 rows)", "a bf16,t, b bf16,t"};
  for (size_t i = 0; i < sizeof mmajor / sizeof mmajor[0]; i++)
    if (!strstr(tcmma_buf_str(&t), mmajor[i])) fail_msg("no '%s' in\n%s", mmajor[i], tcmma_buf_str(&t));
  tcmma_buf_free(&t);
}

/* The compile: a CUBIN of target sm_<cc><suffix>; its log. */
static tcmma_status compile(const char *src, size_t len, int arch, char suffix,
                            tcmma_program *prog, tcmma_error *err) {
  tcmma_compile_opts co = TCMMA_COMPILE_OPTS_INIT(.name = "blackwell.cu", .arch = arch,
                                                  .arch_suffix = suffix, .sass = true);
  return tcmma_compile(src, len, &co, prog, err);
}

/* NVRTC compiles the kernel at the plan's target (sm_100f) with an empty
 * log: the default tile, then fp8 with every epilogue op (ragged edges,
 * shape arguments); ptxas takes at most the plan's registers and spills
 * nothing. The same text at sm_100a, sm_103a and sm_103f is accepted, at
 * plain sm_100, sm_90a and sm_120f refused (tcgen05 is 10.x's, and
 * arch-specific or family only). */
static void compiles_at_sm_100f(void **s) {
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
  ops[n++].prec = TCMMA_PREC_E4M3;
  for (int with = 0; with < 2; with++) {
    tcmma_gemm_call c = kmajor(8192, 8192, 8192);
    tcmma_gemm_opts o = tcmma_gemm_opts_default();
    if (with) {
      c.m = 1000, c.n = 1000, c.a.prec = c.b.prec = TCMMA_PREC_E4M3;
      o.shape_args = true, o.epilogue = ops, o.epilogue_count = n;
    }
    tcmma_gemm_plan p;
    tcmma_gemm_info i = {.size = sizeof i};
    assert_int_equal(tcmma_gemm_plan_opts(&c, &o, &p, &i, NULL), TCMMA_OK);
    assert_int_equal(i.kernel, TCMMA_GEMM_KERNEL_TCGEN05);
    tcmma_buf src = {0};
    test_gemm_render(&p, &o, TCMMA_DIALECT_CUDA, &src);
    tcmma_program prog;
    tcmma_status st = compile(tcmma_buf_str(&src), src.len, c.cc, i.arch_suffix, &prog, &err);
    if (st != TCMMA_OK) fail_msg("%s\n%s", err.message, tcmma_buf_str(&src));
    if (!prog.ptxas_info) fail_msg("no ptxas figures");
    if (strstr(prog.log, "warning") || strstr(prog.log, "Warning")) fail_msg("log: %s", prog.log);
    assert_int_equal(prog.spill_store_bytes + prog.spill_load_bytes + prog.stack_bytes, 0);
    if (prog.registers > p.registers)
      fail_msg("ptxas: %d registers, the plan's bound %d", prog.registers, p.registers);
    tcmma_program_free(&prog);
    struct {
      int arch;
      char suffix;
      bool ok;
    } at[] = {{100, 'a', true}, {103, 'a', true}, {103, 'f', true}, {100, 0, false},
              {90, 'a', false}, {120, 'f', false}};
    for (size_t t = 0; with == 0 && t < sizeof at / sizeof at[0]; t++) {
      st = compile(tcmma_buf_str(&src), src.len, at[t].arch, at[t].suffix, &prog, &err);
      if ((st == TCMMA_OK) != at[t].ok)
        fail_msg("sm_%d%c: %s where %s expected: %s", at[t].arch, at[t].suffix ? at[t].suffix : ' ',
                 st == TCMMA_OK ? "accepted" : "refused", at[t].ok ? "accepted" : "refused",
                 err.message);
      tcmma_program_free(&prog); /* a refusal's log and options too */
    }
    tcmma_buf_free(&src);
  }
}

/* Block-scaled (mxe4m3 x mxe5m2, ue8m0 per 32): AUTO takes the tcgen05
 * kernel at cc 100 with the 12.x kernels' contract (sfa, sfb after beta;
 * scale_block 32, scale_ld the k blocks rounded up to the row alignment,
 * unpacked); each stage carries its scale atoms after the tiles (A's one,
 * B's two at n 256: 1536 bytes, rounded up to 2048) and each stage's 12
 * scale columns follow the accumulator's 256 in Tensor Memory (512 in all);
 * the text stores the atoms by the producer warp, copies them with
 * tcgen05.cp and issues kind::mxf8f6f4.block_scale; NVRTC compiles it at
 * sm_100f (the PTX: a tcgen05.mma per k step, tcgen05.cp, no warnings),
 * refused at sm_90a and sm_120f. Packed fp4 (nvf4: ue4m3 per 16): two
 * elements a byte, k tiles of 256 (128-byte rows), four cells of scales a
 * k tile (A's 4 atoms, B's 8), an N-major b declined. */
static void block_scaled(void **s) {
  (void)s;
  tcmma_gemm_call c = kmajor(512, 512, 1024);
  c.a.prec = TCMMA_PREC_MXE4M3, c.b.prec = TCMMA_PREC_MXE5M2;
  tcmma_gemm_opts o = tcmma_gemm_opts_default();
  tcmma_gemm_plan p;
  tcmma_gemm_info i = {.size = sizeof i};
  tcmma_error err = {0};
  if (tcmma_gemm_plan_opts(&c, &o, &p, &i, &err) != TCMMA_OK) fail_msg("%s", err.message);
  assert_int_equal(i.kernel, TCMMA_GEMM_KERNEL_TCGEN05);
  assert_int_equal(i.tcgen05, TCMMA_TCGEN05_MXF8F6F4);
  assert_int_equal(i.scale_block, 32), assert_int_equal(i.pack, 1);
  assert_int_equal(i.scale_ld, 1024 / 32);
  assert_int_equal(p.call.block_k, 128), assert_int_equal(p.call.block_n, 256);
  assert_int_equal(p.stage_bytes, (128 + 256) * 128 + 2048);
  assert_int_equal(i.tmem_columns, 512);
  tcmma_buf src = {0};
  test_gemm_render(&p, &o, TCMMA_DIALECT_CUDA, &src);
  const char *want[] = {"const unsigned char *sfa, const unsigned char *sfb",
                        "tcgen05.cp.cta_group::1.32x128b.warpx4",
                        "kind::mxf8f6f4.block_scale.block32", "tcmma_tcgen05_cp_scales(",
                        "tcmma_fence_proxy_async();",
                        "if (tcmma_elect_one()) { /* the whole warp elects"};
  for (size_t w = 0; w < sizeof want / sizeof want[0]; w++)
    if (!strstr(tcmma_buf_str(&src), want[w])) fail_msg("no '%s' in\n%s", want[w], tcmma_buf_str(&src));
  if (tcmma_nvrtc_load(NULL, &err) == TCMMA_OK) {
    tcmma_program prog;
    tcmma_status st = compile(tcmma_buf_str(&src), src.len, 100, i.arch_suffix, &prog, &err);
    if (st != TCMMA_OK) fail_msg("%s\n%s", err.message, tcmma_buf_str(&src));
    if (strstr(prog.log, "warning")) fail_msg("log: %s", prog.log);
    tcmma_ptx_info pi;
    assert_int_equal(tcmma_ptx_parse(prog.ptx, prog.ptx_len, &pi, &err), TCMMA_OK);
    assert_int_equal(tcmma_ptx_count(&pi, "tcgen05.mma"), 128 / 32);
    assert_true(tcmma_ptx_count(&pi, "tcgen05.cp") >= 1);
    assert_int_equal(tcmma_ptx_count(&pi, "elect.sync"), 2); /* the TMA and the MMA thread's */
    assert_int_equal(tcmma_ptx_check_target(&pi, &err), TCMMA_OK);
    tcmma_ptx_info_free(&pi);
    tcmma_program_free(&prog);
    assert_int_not_equal(compile(tcmma_buf_str(&src), src.len, 90, 'a', &prog, &err), TCMMA_OK);
    tcmma_program_free(&prog); /* a refusal's log and options too */
    assert_int_not_equal(compile(tcmma_buf_str(&src), src.len, 120, 'f', &prog, &err), TCMMA_OK);
    tcmma_program_free(&prog);
  }
  tcmma_buf_free(&src);
  c.a.prec = c.b.prec = TCMMA_PREC_NVF4;
  if (tcmma_gemm_plan_opts(&c, &o, &p, &i, &err) != TCMMA_OK) fail_msg("%s", err.message);
  assert_int_equal(i.kernel, TCMMA_GEMM_KERNEL_TCGEN05);
  assert_int_equal(i.tcgen05, TCMMA_TCGEN05_NVF4);
  assert_int_equal(i.scale_block, 16), assert_int_equal(i.pack, 2);
  assert_int_equal(p.call.block_k, 256);
  assert_int_equal(p.stage_bytes, (128 + 256) * 128 + (4 + 8) * 512);
  assert_int_equal(p.mma_per_k_tile, 256 / 64);
  test_gemm_render(&p, &o, TCMMA_DIALECT_CUDA, &src);
  if (!strstr(tcmma_buf_str(&src), "kind::mxf4nvf4.block_scale.block16"))
    fail_msg("no nvf4 product in\n%s", tcmma_buf_str(&src));
  tcmma_buf_free(&src);
  /* an N-major b is not written for the block-scaled kinds */
  o.kernel = TCMMA_GEMM_KERNEL_TCGEN05;
  c.a.prec = TCMMA_PREC_MXE4M3, c.b.prec = TCMMA_PREC_MXE4M3, c.b.transposed = false;
  assert_int_equal(tcmma_gemm_plan_opts(&c, &o, &p, &i, &err), TCMMA_DECLINED);
  assert_non_null(strstr(err.message, "unscaled, N-major"));
}

/* tcmma gemm: auto takes tcgen05 on --cc 100, --kind asks, a decline is
 * exit 3 with its reason; the text names the target. */
static void cli(void **s) {
  (void)s;
  const char *plan[] = {"gemm", "--m", "8192", "--n", "8192", "--k", "8192", "--d", "bf16", "--a",
                        "bf16", "--b", "bf16,t", "--cc", "100", "--json", NULL, NULL, NULL};
  cli_result r = run_cli(plan, NULL);
  assert_int_equal(r.exit_code, 0);
  assert_non_null(strstr(r.out, "\"kernel\": \"tcgen05\""));
  assert_int_equal(json_int_of(r.out, "tmem_columns"), 256);
  assert_int_equal(json_int_of(r.out, "threads"), 192);
  cli_result_free(&r);
  plan[15] = "--kind", plan[16] = "mma-sync", plan[17] = "--json";
  r = run_cli(plan, NULL);
  assert_int_equal(r.exit_code, 0);
  assert_non_null(strstr(r.out, "\"kernel\": \"mma-sync\""));
  cli_result_free(&r);
  plan[10] = "bf16,t", plan[16] = "tcgen05", plan[17] = NULL; /* a k x m: in panels */
  r = run_cli(plan, NULL);
  assert_int_equal(r.exit_code, 0);
  assert_non_null(strstr(r.out, "block 128x256x64, a M-major, b K-major: tcgen05.mma of m128"));
  cli_result_free(&r);
  plan[10] = "e4m3,t", plan[12] = "e4m3,t"; /* fp8: K-major only */
  r = run_cli(plan, NULL);
  assert_int_equal(r.exit_code, 3);
  assert_non_null(strstr(r.err, "kernel: a,t, b,t (e4m3 x e4m3): the tcgen05 kernel reads a "
                         "K-major"));
  cli_result_free(&r);
  plan[10] = "bf16", plan[17] = "--json";
  plan[12] = "bf16,t", plan[13] = "--cc", plan[14] = "90";
  r = run_cli(plan, NULL);
  assert_int_equal(r.exit_code, 3);
  assert_non_null(strstr(r.err, "arch: cc 90"));
  cli_result_free(&r);
  plan[14] = "103", plan[17] = NULL;
  r = run_cli(plan, NULL);
  assert_int_equal(r.exit_code, 0);
  assert_non_null(strstr(r.out, "kernel tcgen05 (tcgen05-bf16)"));
  assert_non_null(strstr(r.out, "compile for sm_103f"));
  cli_result_free(&r);
  plan[15] = "--kernel", plan[16] = NULL;
  r = run_cli(plan, NULL);
  assert_int_equal(r.exit_code, 0);
  assert_non_null(strstr(r.out, "const __grid_constant__ CUtensorMap tmap_b)"));
  assert_non_null(strstr(r.out, "tcgen05.mma.cta_group::1.kind::f16"));
  cli_result_free(&r);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(auto_takes_tcgen05_on_cc_100),
      cmocka_unit_test(auto_keeps_mma_sync_elsewhere),
      cmocka_unit_test(tcgen05_declines),
      cmocka_unit_test(compile_target),
      cmocka_unit_test(tensor_maps),
      cmocka_unit_test(text),
      cmocka_unit_test(compiles_at_sm_100f),
      cmocka_unit_test(block_scaled),
      cmocka_unit_test(cli),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
