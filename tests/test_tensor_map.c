/* Tensor maps (include/tcmma/tensor_map.h): every rule of
 * tables/tensor_map.def broken on its own (and its edge kept), where a box
 * lands in shared memory against the swizzle map of tcmma_swizzle_offset,
 * and the encoder through no driver and the fake libcuda
 * (tests/fake_cuda.c), whose map records the arguments it was given. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "util.h"
#include "tcmma/tcmma.h"

/* 128 x 256 bf16, rows of 512 bytes, boxes of 64 x 64 (128-byte rows) in swizzle 128 */
static tcmma_tensor_map base(void) {
  return tcmma_tensor_map_2d(TCMMA_PREC_BF16, 0x10000, 128, 256, 512, 64, 64, TCMMA_SWIZZLE_B128);
}

static void expect_ok(const tcmma_tensor_map *m) {
  tcmma_error err = {0};
  tcmma_tmap_rule r;
  if (tcmma_tensor_map_check(m, &r, &err) != TCMMA_OK) fail_msg("rejected: %s", err.message);
  assert_int_equal(r, TCMMA_TMAP_RULE_COUNT);
}

static void expect_broken(const tcmma_tensor_map *m, tcmma_tmap_rule rule, const char *needle) {
  tcmma_error err = {0};
  tcmma_tmap_rule r;
  tcmma_status s = tcmma_tensor_map_check(m, &r, &err);
  if (s != TCMMA_INVALID || r != rule || !strstr(err.message, needle) ||
      !strstr(err.message, tcmma_tensor_map_rule_name(rule)))
    fail_msg("expected rule %s with '%s', got %s rule %s: %s", tcmma_tensor_map_rule_name(rule),
             needle, tcmma_status_name(s), tcmma_tensor_map_rule_name(r), err.message);
}

static void valid_maps(void **state) {
  (void)state;
  tcmma_tensor_map m = base();
  expect_ok(&m);
  /* 5-D f32, box edges: 256 per dimension, element strides 8 */
  tcmma_tensor_map f = tcmma_tensor_map_default();
  f.prec = TCMMA_PREC_F32, f.rank = 5, f.address = 0x100000;
  unsigned long long d[5] = {64, 3, 5, 7, 2}, st = 256;
  for (int i = 0; i < 5; i++) f.dims[i] = d[i], f.box[i] = i ? 256 : 4, f.element_strides[i] = 8;
  for (int i = 0; i < 4; i++) f.strides[i] = st, st *= d[i + 1];
  expect_ok(&f);
  /* interleave 32: rank 3, 32-byte address and strides, swizzle 32 */
  tcmma_tensor_map il = tcmma_tensor_map_default();
  il.prec = TCMMA_PREC_F16, il.rank = 3, il.address = 0x20020, il.interleave = TCMMA_TMAP_INTERLEAVE_B32;
  il.swizzle = TCMMA_SWIZZLE_B32;
  il.dims[0] = 16, il.dims[1] = 9, il.dims[2] = 4, il.strides[0] = 32, il.strides[1] = 288;
  il.box[0] = 16, il.box[1] = 8, il.box[2] = 2;
  expect_ok(&il);
  /* a 1-byte element at the 16-byte inner edge, NaN fill on a float type */
  tcmma_tensor_map e = tcmma_tensor_map_2d(TCMMA_PREC_E4M3, 0x10, 8, 16, 16, 8, 16, TCMMA_SWIZZLE_NONE);
  expect_ok(&e);
  m.oob_fill = TCMMA_TMAP_OOB_NAN;
  expect_ok(&m);
}

typedef struct {
  tcmma_tmap_rule rule;
  const char *needle;
  void (*edit)(tcmma_tensor_map *m);
} breakage;

static void size_small(tcmma_tensor_map *m) { m->size = sizeof *m - 1; }
static void prec_bad(tcmma_tensor_map *m) { m->prec = TCMMA_PREC_COUNT; }
static void swizzle_bad(tcmma_tensor_map *m) { m->swizzle = (tcmma_swizzle)4; }
static void oob_bad(tcmma_tensor_map *m) { m->oob_fill = TCMMA_TMAP_OOB_COUNT; }
static void l2_bad(tcmma_tensor_map *m) { m->l2_promotion = (tcmma_tmap_l2)-1; }
static void rank_0(tcmma_tensor_map *m) { m->rank = 0; }
static void rank_6(tcmma_tensor_map *m) { m->rank = 6; }
static void interleave_rank2(tcmma_tensor_map *m) {
  m->interleave = TCMMA_TMAP_INTERLEAVE_B16, m->swizzle = TCMMA_SWIZZLE_NONE;
}
static void address_8(tcmma_tensor_map *m) { m->address += 8; }
static void rank3_interleave32(tcmma_tensor_map *m) {
  m->rank = 3, m->dims[2] = 2, m->strides[1] = m->strides[0] * m->dims[1], m->box[2] = 1;
  m->interleave = TCMMA_TMAP_INTERLEAVE_B32, m->swizzle = TCMMA_SWIZZLE_B32;
}
static void address_16_interleave32(tcmma_tensor_map *m) { rank3_interleave32(m), m->address += 16; }
static void dim_0(tcmma_tensor_map *m) { m->dims[1] = 0; }
static void dim_big(tcmma_tensor_map *m) { m->dims[1] = (1ULL << 32) + 1, m->strides[0] = 512; }
static void stride_8(tcmma_tensor_map *m) { m->strides[0] = 520; }
static void stride_huge(tcmma_tensor_map *m) { m->strides[0] = 1ULL << 40; }
static void stride_16_interleave32(tcmma_tensor_map *m) {
  rank3_interleave32(m), m->strides[0] = 528, m->strides[1] = 528 * 128;
}
static void stride_short(tcmma_tensor_map *m) { m->strides[0] = 496; }
static void stride_outer_short(tcmma_tensor_map *m) {
  m->rank = 3, m->dims[2] = 2, m->box[2] = 1, m->strides[1] = 512 * 127;
}
static void box_0(tcmma_tensor_map *m) { m->box[1] = 0; }
static void box_257(tcmma_tensor_map *m) { m->box[1] = 257; }
static void box_inner_odd(tcmma_tensor_map *m) { m->box[0] = 60, m->swizzle = TCMMA_SWIZZLE_NONE; }
static void estride_0(tcmma_tensor_map *m) { m->element_strides[1] = 0; }
static void estride_9(tcmma_tensor_map *m) { m->element_strides[0] = 9; }
static void span_over(tcmma_tensor_map *m) { m->swizzle = TCMMA_SWIZZLE_B64; }
static void interleave32_swizzle128(tcmma_tensor_map *m) {
  rank3_interleave32(m), m->swizzle = TCMMA_SWIZZLE_B128;
}
static void nan_int(tcmma_tensor_map *m) {
  m->prec = TCMMA_PREC_S8, m->box[0] = 128, m->oob_fill = TCMMA_TMAP_OOB_NAN;
}

static const breakage breakages[] = {
    {TCMMA_TMAP_RULE_SIZE, "expected at least", size_small},
    {TCMMA_TMAP_RULE_PREC, "is no storage precision", prec_bad},
    {TCMMA_TMAP_RULE_OPTIONS, "swizzle 4 is out of range", swizzle_bad},
    {TCMMA_TMAP_RULE_OPTIONS, "oob_fill 2 is out of range", oob_bad},
    {TCMMA_TMAP_RULE_OPTIONS, "l2_promotion -1 is out of range", l2_bad},
    {TCMMA_TMAP_RULE_RANK, "rank 0, expected 1 to 5", rank_0},
    {TCMMA_TMAP_RULE_RANK, "rank 6, expected 1 to 5", rank_6},
    {TCMMA_TMAP_RULE_INTERLEAVE_RANK, "interleave 16 with rank 2", interleave_rank2},
    {TCMMA_TMAP_RULE_ADDRESS, "address 0x10008 is not 16-byte aligned", address_8},
    {TCMMA_TMAP_RULE_ADDRESS, "address 0x10010 is not 32-byte aligned", address_16_interleave32},
    {TCMMA_TMAP_RULE_DIM, "dims[1] 0, expected 1 to 2^32", dim_0},
    {TCMMA_TMAP_RULE_DIM, "dims[1] 4294967297", dim_big},
    {TCMMA_TMAP_RULE_STRIDE, "strides[0] 520 bytes, expected a multiple of 16", stride_8},
    {TCMMA_TMAP_RULE_STRIDE, "strides[0] 1099511627776 bytes", stride_huge},
    {TCMMA_TMAP_RULE_STRIDE, "strides[0] 528 bytes, expected a multiple of 32", stride_16_interleave32},
    {TCMMA_TMAP_RULE_STRIDE_COVERS, "strides[0] 496 bytes, expected at least 512", stride_short},
    {TCMMA_TMAP_RULE_STRIDE_COVERS, "strides[1] 65024 bytes, expected at least 65536",
     stride_outer_short},
    {TCMMA_TMAP_RULE_BOX, "box[1] 0, expected 1 to 256", box_0},
    {TCMMA_TMAP_RULE_BOX, "box[1] 257", box_257},
    {TCMMA_TMAP_RULE_BOX_INNER, "box[0] 60 x 2 bytes = 120, expected a multiple of 16", box_inner_odd},
    {TCMMA_TMAP_RULE_ELEMENT_STRIDE, "element_strides[1] 0", estride_0},
    {TCMMA_TMAP_RULE_ELEMENT_STRIDE, "element_strides[0] 9, expected 1 to 8", estride_9},
    {TCMMA_TMAP_RULE_SWIZZLE_SPAN, "= 128, above the 64-byte span of swizzle 64", span_over},
    {TCMMA_TMAP_RULE_INTERLEAVE_SWIZZLE, "interleave 32 with swizzle 128", interleave32_swizzle128},
    {TCMMA_TMAP_RULE_OOB_FLOAT, "oob fill nan for s8", nan_int},
};

static void every_rule_breaks(void **state) {
  (void)state;
  bool seen[TCMMA_TMAP_RULE_COUNT] = {false};
  for (size_t i = 0; i < sizeof breakages / sizeof breakages[0]; i++) {
    tcmma_tensor_map m = base();
    breakages[i].edit(&m);
    expect_broken(&m, breakages[i].rule, breakages[i].needle);
    seen[breakages[i].rule] = true;
  }
  /* every rule the check holds is broken above (MAP_ALIGN: the encoder's, below) */
  for (int r = 0; r < TCMMA_TMAP_RULE_COUNT; r++)
    if (!seen[r] && r != TCMMA_TMAP_RULE_MAP_ALIGN)
      fail_msg("rule %s is never broken", tcmma_tensor_map_rule_name(r));
  expect_broken(NULL, TCMMA_TMAP_RULE_SIZE, "the map is NULL");
  /* the message carries the rule as cuda.h states it */
  tcmma_tensor_map m = base();
  span_over(&m);
  tcmma_error err;
  tcmma_tensor_map_check(&m, NULL, &err);
  assert_non_null(strstr(err.message, tcmma_tensor_map_rule_text(TCMMA_TMAP_RULE_SWIZZLE_SPAN)));
}

static void edges_kept(void **state) {
  (void)state;
  tcmma_tensor_map m = base();
  m.strides[0] = (1ULL << 40) - 16; /* the largest stride */
  expect_ok(&m);
  m = base();
  m.dims[0] = 1ULL << 32, m.dims[1] = 1, m.strides[0] = (1ULL << 33); /* the largest dim */
  expect_ok(&m);
  m = base();
  m.box[1] = 256, m.element_strides[1] = 8;
  expect_ok(&m);
  m = base();
  m.swizzle = TCMMA_SWIZZLE_NONE, m.box[0] = 256; /* no span without a swizzle */
  expect_ok(&m);
  m = base();
  m.dims[0] = 200, m.strides[0] = 400; /* exactly dimension 0's extent */
  expect_ok(&m);
  /* a product past 64 bits saturates: no stride covers it */
  m = tcmma_tensor_map_default();
  m.prec = TCMMA_PREC_U8, m.rank = 3, m.dims[0] = 16, m.dims[1] = 1ULL << 32, m.dims[2] = 1;
  m.strides[0] = (1ULL << 40) - 16, m.strides[1] = (1ULL << 40) - 16;
  m.box[0] = 16, m.box[1] = 1, m.box[2] = 1;
  expect_broken(&m, TCMMA_TMAP_RULE_STRIDE_COVERS, "strides[1]");
}

static void box_bytes_and_offsets(void **state) {
  (void)state;
  tcmma_tensor_map m = base();
  assert_int_equal(tcmma_tensor_map_box_bytes(&m), 64 * 64 * 2);
  m.element_strides[1] = 2, m.element_strides[0] = 4; /* dimension 0's is ignored */
  assert_int_equal(tcmma_tensor_map_box_bytes(&m), 64 * 32 * 2);
  m.box[1] = 63; /* ceil(63 / 2) */
  assert_int_equal(tcmma_tensor_map_box_bytes(&m), 64 * 32 * 2);
  assert_int_equal(tcmma_tensor_map_box_elems(&m, 0), 64);
  assert_int_equal(tcmma_tensor_map_box_elems(&m, 1), 32);
  assert_int_equal(tcmma_tensor_map_box_elems(&m, 2), 0);
  assert_int_equal(tcmma_tensor_map_box_elems(&m, -1), 0);
  m.box[1] = 0;
  assert_int_equal(tcmma_tensor_map_box_bytes(&m), -1);
  assert_int_equal(tcmma_tensor_map_box_bytes(NULL), -1);
  /* rows of one span: the offsets are tcmma_swizzle_offset's, for every atom */
  for (int sw = 0; sw < TCMMA_SWIZZLE_COUNT; sw++) {
    int span = sw ? tcmma_swizzle_get(sw)->bytes : 64;
    m = tcmma_tensor_map_2d(TCMMA_PREC_F16, 0x1000, 64, 1024, 2048, 16, (unsigned)span / 2, sw);
    for (unsigned r = 0; r < 16; r++)
      for (unsigned c = 0; c < (unsigned)span / 2; c++) {
        unsigned idx[2] = {c, r};
        long want = tcmma_swizzle_offset(sw, r, c * 2, span);
        if (tcmma_tensor_map_shared_offset(&m, idx) != want)
          fail_msg("swizzle %s, row %u col %u: %lld, expected %ld", tcmma_swizzle_name(sw), r, c,
                   tcmma_tensor_map_shared_offset(&m, idx), want);
      }
    unsigned past[2] = {(unsigned)span / 2, 0};
    assert_int_equal(tcmma_tensor_map_shared_offset(&m, past), -1);
  }
  assert_int_equal(tcmma_tensor_map_shared_offset(&m, NULL), -1);
}

static void names_and_parse(void **state) {
  (void)state;
  tcmma_error err;
  tcmma_tmap_interleave il;
  tcmma_tmap_l2 l2;
  tcmma_tmap_oob oob;
  assert_int_equal(tcmma_tmap_interleave_parse("32", &il, &err), TCMMA_OK);
  assert_int_equal(il, TCMMA_TMAP_INTERLEAVE_B32);
  assert_int_equal(tcmma_tmap_l2_parse("256", &l2, &err), TCMMA_OK);
  assert_int_equal(l2, TCMMA_TMAP_L2_B256);
  assert_int_equal(tcmma_tmap_oob_parse("nan", &oob, &err), TCMMA_OK);
  assert_int_equal(oob, TCMMA_TMAP_OOB_NAN);
  assert_int_equal(tcmma_tmap_l2_parse("512", &l2, &err), TCMMA_INVALID);
  assert_string_equal(err.message, "unknown L2 promotion '512': expected none, 64, 128 or 256");
  assert_int_equal(tcmma_tmap_oob_parse(NULL, &oob, &err), TCMMA_INVALID);
  assert_string_equal(tcmma_tmap_interleave_name(TCMMA_TMAP_INTERLEAVE_COUNT), "?");
  assert_string_equal(tcmma_tensor_map_rule_name(TCMMA_TMAP_RULE_COUNT), "?");
  assert_string_equal(tcmma_tensor_map_rule_name(TCMMA_TMAP_RULE_SWIZZLE_SPAN), "swizzle-span");
}

/* ---- the encoder ---- */

typedef struct {
  _Alignas(128) unsigned long long w[16];
} cu_map;

static void encode_without_driver(void **state) {
  (void)state;
  fake_cuda_use("/nonexistent/libcuda.so.1");
  tcmma_tensor_map m = base();
  cu_map out;
  tcmma_error err;
  assert_int_equal(tcmma_tensor_map_encode(&m, &out, &err), TCMMA_UNAVAILABLE);
  assert_non_null(strstr(err.message, "no CUDA driver"));
  fake_cuda_use("libm.so.6");
  assert_int_equal(tcmma_tensor_map_encode(&m, &out, &err), TCMMA_UNAVAILABLE);
  /* the map is checked first, driver or not */
  m.box[0] = 0;
  assert_int_equal(tcmma_tensor_map_encode(&m, &out, &err), TCMMA_INVALID);
  assert_non_null(strstr(err.message, "tensor map rule box-dim"));
  fake_cuda_use(NULL);
}

static void encode_fake_driver(void **state) {
  (void)state;
  const char *lib = fake_cuda_build();
  assert_non_null(lib);
  fake_cuda_use(lib);
  tcmma_tensor_map m = base();
  m.l2_promotion = TCMMA_TMAP_L2_B128, m.oob_fill = TCMMA_TMAP_OOB_NAN, m.element_strides[1] = 2;
  cu_map out;
  tcmma_error err = {0};
  if (tcmma_tensor_map_encode(&m, &out, &err) != TCMMA_OK) fail_msg("%s", err.message);
  assert_int_equal(out.w[0], 9); /* CU_TENSOR_MAP_DATA_TYPE_BFLOAT16 */
  assert_int_equal(out.w[1], 2);
  assert_int_equal(out.w[2], 0x10000);
  assert_int_equal(out.w[3], 256), assert_int_equal(out.w[4], 128);
  assert_int_equal(out.w[8], 512), assert_int_equal(out.w[9], 0);
  assert_int_equal(out.w[12], 64 | 64 << 12);
  assert_int_equal(out.w[13], 1 | 2 << 12);
  assert_int_equal(out.w[14], 0 | 3 << 8 | 2 << 16 | 1 << 24);
  unsigned long long calls = out.w[15];
  /* a broken map never reaches the driver */
  m.swizzle = TCMMA_SWIZZLE_B32;
  assert_int_equal(tcmma_tensor_map_encode(&m, &out, &err), TCMMA_INVALID);
  assert_non_null(strstr(err.message, "swizzle-span"));
  m.swizzle = TCMMA_SWIZZLE_B128;
  /* the encoded map's own alignment */
  unsigned char raw[TCMMA_CU_TENSOR_MAP_BYTES + 64];
  void *odd = (void *)(((uintptr_t)raw + 63) / 64 * 64 + 32);
  assert_int_equal(tcmma_tensor_map_encode(&m, odd, &err), TCMMA_INVALID);
  assert_non_null(strstr(err.message, "tensor map rule map-alignment"));
  assert_int_equal(tcmma_tensor_map_encode(&m, NULL, &err), TCMMA_INVALID);
  assert_int_equal(tcmma_tensor_map_encode(&m, &out, &err), TCMMA_OK);
  assert_int_equal(out.w[15], calls + 1); /* the refused ones made no call */
  /* the driver's refusal, named */
  setenv("FAKE_CUDA_TMAP_FAIL", "1", 1);
  assert_int_equal(tcmma_tensor_map_encode(&m, &out, &err), TCMMA_CUDA);
  assert_non_null(strstr(err.message, "cuTensorMapEncodeTiled: CUDA_ERROR_INVALID_VALUE"));
  fake_cuda_use(NULL);
}

static int cleanup(void **state) {
  (void)state;
  fake_cuda_remove();
  return 0;
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(valid_maps),           cmocka_unit_test(every_rule_breaks),
      cmocka_unit_test(edges_kept),           cmocka_unit_test(box_bytes_and_offsets),
      cmocka_unit_test(names_and_parse),      cmocka_unit_test(encode_without_driver),
      cmocka_unit_test(encode_fake_driver),
  };
  return cmocka_run_group_tests_name("tensor_map", tests, NULL, cleanup);
}
