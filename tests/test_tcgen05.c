/* The tcgen05 arms (tables/tcgen05.def, tables/tcgen05_desc.def) against
 * the PTX ISA, written out here independently of the tables: rows, shapes,
 * targets, the instruction descriptor and the sm_100 shared-memory
 * descriptor against values packed by hand from the ISA's tables, the
 * accumulator's Tensor Memory cells, Tensor Memory allocation sizes, the
 * ld/st shapes and the operand plan's declines (docs/tcgen05.md). */
#include <stdio.h>
#include <string.h>
#include "util.h"
#include "tcmma/tcmma.h"

enum nlist { EVERY8, INT8 };

static const struct {
  const char *marker, *opcode, *acc, *scale;
  int k, block;
  bool m64; /* m 64 as well as 128 */
  enum nlist ns;
  bool family; /* sm_100f as well as sm_100a */
} isa[] = {
    {"tcgen05-f16", "tcgen05.mma.cta_group::1.kind::f16", "f32", "", 16, 0, true, EVERY8, true},
    {"tcgen05-f16-acc16", "tcgen05.mma.cta_group::1.kind::f16", "f16", "", 16, 0, true, EVERY8, true},
    {"tcgen05-bf16", "tcgen05.mma.cta_group::1.kind::f16", "f32", "", 16, 0, true, EVERY8, true},
    {"tcgen05-tf32", "tcgen05.mma.cta_group::1.kind::tf32", "f32", "", 8, 0, true, EVERY8, true},
    {"tcgen05-f8f6f4", "tcgen05.mma.cta_group::1.kind::f8f6f4", "f32", "", 32, 0, true, EVERY8, true},
    {"tcgen05-i8", "tcgen05.mma.cta_group::1.kind::i8", "s32", "", 32, 0, true, INT8, false},
    {"tcgen05-mxf8f6f4", "tcgen05.mma.cta_group::1.kind::mxf8f6f4.block_scale.block32", "f32",
     "ue8m0", 32, 32, false, EVERY8, true},
    {"tcgen05-mxf4", "tcgen05.mma.cta_group::1.kind::mxf4.block_scale.block32", "f32", "ue8m0",
     64, 32, false, EVERY8, true},
    {"tcgen05-nvf4", "tcgen05.mma.cta_group::1.kind::mxf4nvf4.block_scale.block16", "f32", "ue4m3",
     64, 16, false, EVERY8, true},
};
#define NISA (int)(sizeof isa / sizeof isa[0])

static tcmma_tcgen05 parse(const char *marker) {
  tcmma_tcgen05 w = TCMMA_TCGEN05_NONE;
  tcmma_error err;
  if (tcmma_tcgen05_parse(marker, &w, &err) != TCMMA_OK) fail_msg("%s", err.message);
  return w;
}

/* The n of the ISA (i8: CUTLASS's SM100_MMA_S8 rule: 8, 16, then every
 * multiple of 16). */
static bool isa_n(enum nlist ns, int n) {
  if (n < 8 || n > 256 || n % 8) return false;
  return ns == EVERY8 || n <= 16 || n % 16 == 0;
}

static void every_row_and_only_those(void **state) {
  (void)state;
  assert_int_equal(TCMMA_TCGEN05_COUNT, NISA);
  for (int r = 0; r < NISA; r++) {
    tcmma_tcgen05 w = parse(isa[r].marker);
    const tcmma_tcgen05_info *i = tcmma_tcgen05_get(w);
    assert_non_null(i);
    assert_string_equal(i->instr, isa[r].opcode);
    assert_string_equal(tcmma_prec_name(i->acc), isa[r].acc);
    assert_string_equal(i->scale, isa[r].scale);
    assert_int_equal(i->k, isa[r].k);
    assert_int_equal(i->block, isa[r].block);
    assert_int_equal(i->floor, 100);
    assert_int_equal(i->suffix, isa[r].family ? TCMMA_PTX_SUFFIX_A_OR_F : TCMMA_PTX_SUFFIX_A);
    for (int m = 0; m <= 256; m += 16)
      for (int n = -8; n <= 272; n++) {
        bool want = (m == 128 || (m == 64 && isa[r].m64)) && isa_n(isa[r].ns, n);
        if (tcmma_tcgen05_shape_ok(w, m, n) != want)
          fail_msg("%s: %d x %d %s", isa[r].marker, m, n, want ? "missing" : "extra");
      }
    /* 10.0 and (the family) 10.3; never 9.0, 11.0 or 12.0 */
    assert_true(tcmma_tcgen05_runs_on(w, 100) && tcmma_tcgen05_runs_on(w, 0));
    assert_int_equal(tcmma_tcgen05_runs_on(w, 103), isa[r].family);
    assert_false(tcmma_tcgen05_runs_on(w, 90) || tcmma_tcgen05_runs_on(w, 120) ||
                 tcmma_tcgen05_runs_on(w, 110) || tcmma_tcgen05_runs_on(w, 7));
  }
  tcmma_tcgen05 w = TCMMA_TCGEN05_F16;
  tcmma_error err;
  assert_int_equal(tcmma_tcgen05_parse("tcgen05-f64", &w, &err), TCMMA_INVALID);
  assert_int_equal(w, TCMMA_TCGEN05_NONE);
  assert_non_null(strstr(err.message, "tcgen05-nvf4"));
  assert_null(tcmma_tcgen05_get(TCMMA_TCGEN05_COUNT));
  assert_string_equal(tcmma_tcgen05_marker((tcmma_tcgen05)-3), "none");
}

static void precisions_each_row_takes(void **state) {
  (void)state;
  const struct {
    const char *marker, *a, *b;
    bool takes;
  } cases[] = {
      {"tcgen05-f16", "f16", "f16", true},        {"tcgen05-f16", "bf16", "bf16", false},
      {"tcgen05-bf16", "bf16", "bf16", true},     {"tcgen05-bf16", "f16", "bf16", false},
      {"tcgen05-tf32", "f32", "f32", true},       {"tcgen05-f8f6f4", "e4m3", "e2m1", true},
      {"tcgen05-f8f6f4", "e3m2", "e5m2", true},   {"tcgen05-f8f6f4", "mxe4m3", "e4m3", false},
      {"tcgen05-i8", "s8", "u8", true},           {"tcgen05-i8", "s8", "e4m3", false},
      {"tcgen05-mxf8f6f4", "mxe4m3", "mxf4", true}, {"tcgen05-mxf8f6f4", "e4m3", "e4m3", false},
      {"tcgen05-mxf4", "mxf4", "mxf4", true},     {"tcgen05-mxf4", "nvf4", "nvf4", false},
      {"tcgen05-nvf4", "nvf4", "nvf4", true},     {"tcgen05-nvf4", "mxf4", "nvf4", false},
  };
  for (size_t c = 0; c < sizeof cases / sizeof cases[0]; c++)
    if (tcmma_tcgen05_takes(parse(cases[c].marker), test_prec(cases[c].a), test_prec(cases[c].b)) !=
        cases[c].takes)
      fail_msg("%s %s x %s: expected %s", cases[c].marker, cases[c].a, cases[c].b,
               cases[c].takes ? "taken" : "refused");
  assert_false(tcmma_tcgen05_takes(TCMMA_TCGEN05_F16, (tcmma_prec)99, TCMMA_PREC_F16));
  /* fp6 and fp4 are not read as tcmma stores them; fp8 and wider are */
  assert_false(tcmma_tcgen05_reads_storage(TCMMA_TCGEN05_F8F6F4, TCMMA_PREC_E2M1));
  assert_false(tcmma_tcgen05_reads_storage(TCMMA_TCGEN05_MXF8F6F4, TCMMA_PREC_MXE3M2));
  assert_true(tcmma_tcgen05_reads_storage(TCMMA_TCGEN05_MXF8F6F4, TCMMA_PREC_MXE5M2));
  assert_true(tcmma_tcgen05_reads_storage(TCMMA_TCGEN05_TF32, TCMMA_PREC_F32));
  assert_false(tcmma_tcgen05_reads_storage(TCMMA_TCGEN05_TF32, TCMMA_PREC_F16));
}

/* Instruction descriptors packed by hand from the ISA's Tables 42-44. */
static const struct {
  const char *marker;
  int m, n;
  const char *a, *b;
  bool ta, tb;
  uint32_t bits;
} idescs[] = {
    /* dtype F32 1<<4, atype BF16 1<<7, btype 1<<10, N 256>>3 <<17, M 128>>4 <<24 */
    {"tcgen05-bf16", 128, 256, "bf16", "bf16", false, false, 0x08400490u},
    /* dtype F16 0, transpose A 1<<15 and B 1<<16, N 1<<17, M 4<<24 */
    {"tcgen05-f16-acc16", 64, 8, "f16", "f16", true, true, 0x04038000u},
    /* TF32 2<<7 and 2<<10, N 8<<17 */
    {"tcgen05-tf32", 128, 64, "f32", "f32", false, false, 0x08100910u},
    /* E5M2 1<<7, E2M1 5<<10, N 16<<17, M 4<<24 */
    {"tcgen05-f8f6f4", 64, 128, "e5m2", "e2m1", false, false, 0x04201490u},
    /* dtype S32 2<<4, signed A 1<<7, unsigned B 0, N 2<<17 */
    {"tcgen05-i8", 128, 16, "s8", "u8", false, false, 0x080400a0u},
    /* block-scaled: E2M3 B 3<<10, N 32<<17, scale UE8M0 1<<23, M 128>>7 <<27 */
    {"tcgen05-mxf8f6f4", 128, 256, "mxe4m3", "mxe2m3", false, false, 0x08c00c00u},
    /* E2M1 1<<7 and 1<<10, N 1<<17, UE8M0 1<<23 */
    {"tcgen05-mxf4", 128, 8, "mxf4", "mxf4", false, false, 0x08820480u},
    /* UE4M3: scale type 0 */
    {"tcgen05-nvf4", 128, 64, "nvf4", "nvf4", false, false, 0x08100480u},
    /* fp8 may be N-major: transpose B 1<<16 */
    {"tcgen05-mxf8f6f4", 128, 16, "mxe5m2", "mxe4m3", false, true, 0x08850080u},
};

static void instruction_descriptors_by_hand(void **state) {
  (void)state;
  for (size_t c = 0; c < sizeof idescs / sizeof idescs[0]; c++) {
    tcmma_tcgen05 w = parse(idescs[c].marker);
    uint32_t bits = 0;
    tcmma_error err;
    if (tcmma_tcgen05_idesc(w, idescs[c].m, idescs[c].n, test_prec(idescs[c].a), test_prec(idescs[c].b),
                            idescs[c].ta, idescs[c].tb, &bits, &err) != TCMMA_OK)
      fail_msg("%s: %s", idescs[c].marker, err.message);
    if (bits != idescs[c].bits)
      fail_msg("%s %dx%d: 0x%08x, the ISA's tables give 0x%08x", idescs[c].marker, idescs[c].m,
               idescs[c].n, bits, idescs[c].bits);
    int m = 0, n = 0;
    tcmma_prec a, b;
    bool ta = !idescs[c].ta, tb = !idescs[c].tb;
    if (tcmma_tcgen05_idesc_decode(w, idescs[c].bits, &m, &n, &a, &b, &ta, &tb, &err) != TCMMA_OK)
      fail_msg("%s decode: %s", idescs[c].marker, err.message);
    assert_int_equal(m, idescs[c].m);
    assert_int_equal(n, idescs[c].n);
    assert_string_equal(tcmma_prec_name(a), idescs[c].a);
    assert_string_equal(tcmma_prec_name(b), idescs[c].b);
    assert_int_equal(ta, idescs[c].ta);
    assert_int_equal(tb, idescs[c].tb);
  }
}

static void instruction_descriptor_fields(void **state) {
  (void)state;
  /* the rows of the fields: bf16's N at 17, its M at 24; a block-scaled M at 27 */
  assert_int_equal(tcmma_tcgen05_idesc_get(TCMMA_TCGEN05_BF16, TCMMA_TCGEN05_IDESC_N, 0x08400490u), 32);
  assert_int_equal(tcmma_tcgen05_idesc_get(TCMMA_TCGEN05_BF16, TCMMA_TCGEN05_IDESC_M, 0x08400490u), 8);
  assert_int_equal(tcmma_tcgen05_idesc_get(TCMMA_TCGEN05_MXF4, TCMMA_TCGEN05_IDESC_M, 0x08820480u), 1);
  assert_int_equal(tcmma_tcgen05_idesc_get(TCMMA_TCGEN05_MXF4, TCMMA_TCGEN05_IDESC_SCALE_TYPE,
                                           0x08820480u), 1);
  assert_int_equal(tcmma_tcgen05_idesc_get(TCMMA_TCGEN05_BF16, TCMMA_TCGEN05_IDESC_SCALE_TYPE, ~0u), -1);
  assert_int_equal(tcmma_tcgen05_idesc_get(TCMMA_TCGEN05_NVF4, TCMMA_TCGEN05_IDESC_DTYPE, ~0u), -1);
  assert_int_equal(tcmma_tcgen05_idesc_get(TCMMA_TCGEN05_BF16, TCMMA_TCGEN05_IDESC_MAX_SHIFT, ~0u), 3);
  assert_int_equal(tcmma_tcgen05_idesc_bit(TCMMA_TCGEN05_NVF4, TCMMA_TCGEN05_IDESC_A_SCALE_ID), 29);
  assert_int_equal(tcmma_tcgen05_idesc_bit(TCMMA_TCGEN05_NVF4, TCMMA_TCGEN05_IDESC_B_SCALE_ID), 4);
  assert_int_equal(tcmma_tcgen05_idesc_bit(TCMMA_TCGEN05_NVF4, TCMMA_TCGEN05_IDESC_K_SIZE), 31);
  assert_int_equal(tcmma_tcgen05_idesc_bit(TCMMA_TCGEN05_I8, TCMMA_TCGEN05_IDESC_SATURATE), 3);
  assert_int_equal(tcmma_tcgen05_idesc_bit(TCMMA_TCGEN05_I8, TCMMA_TCGEN05_IDESC_A_SCALE_ID), -1);
  assert_int_equal(tcmma_tcgen05_idesc_get((tcmma_tcgen05)99, TCMMA_TCGEN05_IDESC_N, 0), -1);
  assert_int_equal(tcmma_tcgen05_idesc_get(TCMMA_TCGEN05_BF16, (tcmma_tcgen05_idesc_field)99, 0), -1);
  assert_string_equal(tcmma_tcgen05_idesc_field_name(TCMMA_TCGEN05_IDESC_N), "N");
  assert_string_equal(tcmma_tcgen05_idesc_field_name((tcmma_tcgen05_idesc_field)-1), "?");
  /* the scale ids are accepted by decode (a kernel ORs them in) */
  assert_int_equal(tcmma_tcgen05_idesc_decode(TCMMA_TCGEN05_NVF4, 0x08100480u | 3u << 29 | 2u << 4,
                                              NULL, NULL, NULL, NULL, NULL, NULL, NULL), TCMMA_OK);
}

static void instruction_descriptors_refused(void **state) {
  (void)state;
  const struct {
    const char *marker;
    uint32_t bits;
    const char *says;
  } bad[] = {
      {"tcgen05-bf16", 0x08400490u | 1u << 2, "sparsity"},
      {"tcgen05-bf16", 0x08400490u | 1u << 13, "negate A"},
      {"tcgen05-bf16", 0x08400490u | 1u << 23, "reserved bit"},
      {"tcgen05-bf16", 0x08400490u | 1u << 30, "max shift"},
      {"tcgen05-bf16", 0x08400490u & ~0x10u, "dtype 0, expected 1"},
      {"tcgen05-f8f6f4", 0x04201490u | 7u << 7, "atype code 7"},
      {"tcgen05-mxf4", 0x08820480u | 1u << 24, "reserved bit"},
      {"tcgen05-mxf4", 0x08820480u & ~(1u << 23), "scale type 0, expected 1"},
      {"tcgen05-mxf4", 0x08820480u | 1u << 31, "K dimension"},
      {"tcgen05-bf16", 0x08000490u, "not an instruction shape"},
      {"tcgen05-i8", 0x080600a0u, "not an instruction shape"},
  };
  for (size_t c = 0; c < sizeof bad / sizeof bad[0]; c++) {
    tcmma_error err = {0};
    if (tcmma_tcgen05_idesc_decode(parse(bad[c].marker), bad[c].bits, NULL, NULL, NULL, NULL,
                                   NULL, NULL, &err) != TCMMA_INVALID ||
        !strstr(err.message, bad[c].says))
      fail_msg("case %zu (%s 0x%08x): '%s' lacks '%s'", c, bad[c].marker, bad[c].bits,
               err.message, bad[c].says);
  }
  uint32_t bits;
  tcmma_error err;
  assert_int_equal(tcmma_tcgen05_idesc(TCMMA_TCGEN05_MXF4, 64, 64, TCMMA_PREC_MXF4, TCMMA_PREC_MXF4,
                                       false, false, &bits, &err), TCMMA_INVALID);
  assert_non_null(strstr(err.message, "64 x 64"));
  assert_int_equal(tcmma_tcgen05_idesc(TCMMA_TCGEN05_I8, 128, 24, TCMMA_PREC_S8, TCMMA_PREC_S8,
                                       false, false, &bits, &err), TCMMA_INVALID);
  assert_int_equal(tcmma_tcgen05_idesc(TCMMA_TCGEN05_F8F6F4, 128, 64, TCMMA_PREC_E2M1,
                                       TCMMA_PREC_E4M3, true, false, &bits, &err), TCMMA_INVALID);
  assert_non_null(strstr(err.message, "e2m1 operand is K-major only"));
  assert_int_equal(tcmma_tcgen05_idesc(TCMMA_TCGEN05_F16, 128, 64, TCMMA_PREC_F16, TCMMA_PREC_BF16,
                                       false, false, &bits, &err), TCMMA_INVALID);
  assert_int_equal(tcmma_tcgen05_idesc(TCMMA_TCGEN05_F16, 128, 64, TCMMA_PREC_F16, TCMMA_PREC_F16,
                                       false, false, NULL, &err), TCMMA_INVALID);
  assert_int_equal(tcmma_tcgen05_idesc((tcmma_tcgen05)40, 128, 64, TCMMA_PREC_F16, TCMMA_PREC_F16,
                                       false, false, &bits, &err), TCMMA_INVALID);
}

/* sm_100 shared-memory descriptors packed by hand from the ISA: start, LBO,
 * SBO >> 4 at 0, 16, 32; version 1 at 46; base offset at 49; swizzle at 61
 * (0 none, 2 128-byte, 4 64-byte, 6 32-byte). */
static void shared_memory_descriptors_by_hand(void **state) {
  (void)state;
  const struct {
    long start, lbo, sbo;
    int base;
    tcmma_swizzle sw;
    uint64_t bits;
  } cases[] = {
      {1024, 16, 1024, 0, TCMMA_SWIZZLE_B128, 0x4000404000010040ull},
      {0, 128, 256, 0, TCMMA_SWIZZLE_NONE, 0x0000401000080000ull},
      {16, 16, 512, 3, TCMMA_SWIZZLE_B64, 0x8006402000010001ull},
      {262128, 0, 256, 0, TCMMA_SWIZZLE_B32, 0xc000401000003fffull},
  };
  for (size_t c = 0; c < sizeof cases / sizeof cases[0]; c++) {
    uint64_t bits = 0;
    tcmma_error err;
    assert_int_equal(tcmma_tcgen05_desc_encode(cases[c].start, cases[c].lbo, cases[c].sbo,
                                               cases[c].base, cases[c].sw, &bits, &err), TCMMA_OK);
    if (bits != cases[c].bits)
      fail_msg("case %zu: 0x%016llx, by hand 0x%016llx", c, (unsigned long long)bits,
               (unsigned long long)cases[c].bits);
    long start = -1, lbo = -1, sbo = -1;
    int base = -1;
    tcmma_swizzle sw = (tcmma_swizzle)-1;
    assert_int_equal(tcmma_tcgen05_desc_decode(bits, &start, &lbo, &sbo, &base, &sw, &err), TCMMA_OK);
    assert_int_equal(start, cases[c].start);
    assert_int_equal(lbo, cases[c].lbo);
    assert_int_equal(sbo, cases[c].sbo);
    assert_int_equal(base, cases[c].base);
    assert_int_equal(sw, cases[c].sw);
  }
  assert_int_equal(tcmma_tcgen05_desc_get(TCMMA_TCGEN05_SDESC_VERSION, 0x4000404000010040ull), 1);
  assert_int_equal(tcmma_tcgen05_desc_get(TCMMA_TCGEN05_SDESC_SWIZZLE, 0x4000404000010040ull), 2);
  assert_int_equal(tcmma_tcgen05_desc_get((tcmma_tcgen05_sdesc_field)9, 0), -1);
  /* Hopper's descriptor of the same operand differs (no version; 128-byte is 1 at 62) */
  uint64_t hopper = 0;
  assert_int_equal(tcmma_wgmma_desc_encode(1024, 16, 1024, 0, TCMMA_SWIZZLE_B128, &hopper, NULL),
                   TCMMA_OK);
  assert_true(hopper != 0x4000404000010040ull);
  const struct {
    uint64_t bits;
    const char *says;
  } bad[] = {
      {0x4000004000010040ull, "version 0"},
      {0x4010404000010040ull, "absolute"},
      {0x4001404000010040ull, "reserved bit 48"},
      {0x2000404000010040ull, "code 1 (128-byte with 32-byte atoms)"},
      {0x6000404000010040ull, "code 3 (not a code of the ISA)"},
  };
  for (size_t c = 0; c < sizeof bad / sizeof bad[0]; c++) {
    tcmma_error err = {0};
    if (tcmma_tcgen05_desc_decode(bad[c].bits, NULL, NULL, NULL, NULL, NULL, &err) != TCMMA_INVALID ||
        !strstr(err.message, bad[c].says))
      fail_msg("bad %zu: '%s' lacks '%s'", c, err.message, bad[c].says);
  }
  uint64_t bits;
  tcmma_error err;
  assert_int_equal(tcmma_tcgen05_desc_encode(8, 16, 16, 0, TCMMA_SWIZZLE_NONE, &bits, &err),
                   TCMMA_INVALID);
  assert_non_null(strstr(err.message, "start address 8"));
  assert_int_equal(tcmma_tcgen05_desc_encode(0, 1L << 18, 16, 0, TCMMA_SWIZZLE_NONE, &bits, &err),
                   TCMMA_INVALID);
  assert_non_null(strstr(err.message, "leading byte offset"));
  assert_int_equal(tcmma_tcgen05_desc_encode(0, 16, 16, 8, TCMMA_SWIZZLE_NONE, &bits, &err),
                   TCMMA_INVALID);
  assert_int_equal(tcmma_tcgen05_desc_encode(0, 16, 16, 0, (tcmma_swizzle)77, &bits, &err),
                   TCMMA_INVALID);
  assert_int_equal(tcmma_tcgen05_desc_encode(0, 16, 16, 0, TCMMA_SWIZZLE_NONE, NULL, &err),
                   TCMMA_INVALID);
}

static void tensor_memory_sizes_and_shapes(void **state) {
  (void)state;
  assert_int_equal(TCMMA_TMEM_LANES, 128);
  assert_int_equal(TCMMA_TMEM_COLUMNS, 512);
  for (int c = -64; c <= 1024; c++)
    assert_int_equal(tcmma_tcgen05_alloc_ok(c), c == 32 || c == 64 || c == 128 || c == 256 || c == 512);
  const struct {
    tcmma_tcgen05_ldst shape;
    const char *name;
    int num, regs;
  } cases[] = {
      {TCMMA_TCGEN05_LDST_32X32B, "32x32b", 1, 1},     {TCMMA_TCGEN05_LDST_32X32B, "32x32b", 128, 128},
      {TCMMA_TCGEN05_LDST_16X64B, "16x64b", 4, 4},     {TCMMA_TCGEN05_LDST_16X128B, "16x128b", 64, 128},
      {TCMMA_TCGEN05_LDST_16X128B, "16x128b", 128, 0}, {TCMMA_TCGEN05_LDST_16X256B, "16x256b", 32, 128},
      {TCMMA_TCGEN05_LDST_16X256B, "16x256b", 64, 0},  {TCMMA_TCGEN05_LDST_32X32B, "32x32b", 3, 0},
      {TCMMA_TCGEN05_LDST_32X32B, "32x32b", 0, 0},     {TCMMA_TCGEN05_LDST_32X32B, "32x32b", 256, 0},
  };
  for (size_t c = 0; c < sizeof cases / sizeof cases[0]; c++) {
    assert_string_equal(tcmma_tcgen05_ldst_name(cases[c].shape), cases[c].name);
    if (tcmma_tcgen05_ldst_regs(cases[c].shape, cases[c].num) != cases[c].regs)
      fail_msg("%s.x%d: %d registers, expected %d", cases[c].name, cases[c].num,
               tcmma_tcgen05_ldst_regs(cases[c].shape, cases[c].num), cases[c].regs);
  }
  assert_string_equal(tcmma_tcgen05_ldst_name((tcmma_tcgen05_ldst)9), "?");
}

/* The accumulator's cells: m 128, row r at lane r; m 64, rows 16q..16q+15
 * at lanes 32q..32q+15 (the ISA's M = 64 data path); column c at column c. */
static void accumulator_cells(void **state) {
  (void)state;
  const struct {
    int m, row, col, lane, column;
  } cases[] = {{128, 77, 5, 77, 5}, {128, 0, 255, 0, 255}, {64, 17, 3, 33, 3},
               {64, 63, 0, 111, 0}, {64, 15, 7, 15, 7},    {64, 32, 1, 64, 1}};
  for (size_t c = 0; c < sizeof cases / sizeof cases[0]; c++) {
    int lane = -1, column = -1;
    assert_int_equal(tcmma_tcgen05_acc_cell(TCMMA_TCGEN05_BF16, cases[c].m, 256, cases[c].row,
                                            cases[c].col, &lane, &column, NULL), TCMMA_OK);
    assert_int_equal(lane, cases[c].lane);
    assert_int_equal(column, cases[c].column);
  }
  /* every element has one cell, and the cell says it back */
  const int ms[] = {64, 128};
  for (int mi = 0; mi < 2; mi++) {
    static int seen[128][64];
    memset(seen, 0, sizeof seen);
    int m = ms[mi], n = 64;
    for (int r = 0; r < m; r++)
      for (int c = 0; c < n; c++) {
        int lane, column, rr, cc;
        assert_int_equal(tcmma_tcgen05_acc_cell(TCMMA_TCGEN05_I8, m, n, r, c, &lane, &column, NULL),
                         TCMMA_OK);
        assert_true(lane >= 0 && lane < 128 && column >= 0 && column < n);
        assert_int_equal(seen[lane][column]++, 0);
        assert_int_equal(tcmma_tcgen05_acc_layout(TCMMA_TCGEN05_I8, m, n, lane, column, &rr, &cc,
                                                  NULL), TCMMA_OK);
        assert_int_equal(rr, r);
        assert_int_equal(cc, c);
      }
  }
  int row = 0, col = 0;
  assert_int_equal(tcmma_tcgen05_acc_layout(TCMMA_TCGEN05_BF16, 64, 8, 20, 0, &row, &col, NULL),
                   TCMMA_OK);
  assert_int_equal(row, -1); /* lanes 16..31 of a quarter hold nothing at m 64 */
  tcmma_error err;
  assert_int_equal(tcmma_tcgen05_acc_cell(TCMMA_TCGEN05_BF16, 128, 8, 128, 0, &row, &col, &err),
                   TCMMA_INVALID);
  assert_int_equal(tcmma_tcgen05_acc_cell(TCMMA_TCGEN05_MXF4, 64, 8, 0, 0, &row, &col, &err),
                   TCMMA_INVALID);
  assert_int_equal(tcmma_tcgen05_acc_layout(TCMMA_TCGEN05_BF16, 128, 8, 0, 8, &row, &col, &err),
                   TCMMA_INVALID);
  assert_int_equal(tcmma_tcgen05_acc_cell(TCMMA_TCGEN05_F16_ACC16, 128, 8, 0, 0, &row, &col, &err),
                   TCMMA_DECLINED);
  assert_non_null(strstr(err.message, "f16 accumulator"));
}

static tcmma_operand_desc shared(const char *p, bool transposed, tcmma_swizzle sw) {
  return (tcmma_operand_desc){.prec = test_prec(p), .transposed = transposed,
                              .space = TCMMA_SPACE_SHARED, .swizzle = sw};
}

static void descriptors_from_layouts(void **state) {
  (void)state;
  tcmma_tcgen05_operand o;
  tcmma_error err;
  /* bf16 A 128 x k, K-major, 128-byte swizzle: rows of 64 elements, SBO 1024 */
  assert_int_equal(tcmma_tcgen05_operand_plan(TCMMA_TCGEN05_BF16, TCMMA_OPERAND_A, 128, 64,
                                              &(tcmma_operand_desc){.prec = TCMMA_PREC_BF16,
                                                                    .space = TCMMA_SPACE_SHARED,
                                                                    .swizzle = TCMMA_SWIZZLE_B128},
                                              &o, &err), TCMMA_OK);
  assert_int_equal(o.desc, 0x4000404000010000ull);
  assert_false(o.trans);
  assert_int_equal(o.k_step_bytes, 32);
  /* B stored k x n (not transposed) is N-major: 64 bf16 along n fit one span */
  tcmma_operand_desc b = shared("bf16", false, TCMMA_SWIZZLE_B128);
  assert_int_equal(tcmma_tcgen05_operand_plan(TCMMA_TCGEN05_BF16, TCMMA_OPERAND_B, 128, 64, &b,
                                              &o, &err), TCMMA_OK);
  assert_true(o.trans);
  assert_int_equal(o.k_step_bytes, 16 * 128);
  /* fp8 may be N-major in tcgen05 (not in wgmma) */
  b = shared("e4m3", false, TCMMA_SWIZZLE_B64);
  assert_int_equal(tcmma_tcgen05_operand_plan(TCMMA_TCGEN05_F8F6F4, TCMMA_OPERAND_B, 64, 64, &b,
                                              &o, &err), TCMMA_OK);
  assert_true(o.trans);
  assert_int_equal(o.desc >> 61, 4u);
  /* packed fp4 (two a byte along k): the byte layout's descriptor, a k step
   * of 64 elements 32 bytes; a 64-element origin column is byte 32 */
  tcmma_operand_desc f4 = {.prec = TCMMA_PREC_MXF4, .space = TCMMA_SPACE_SHARED,
                           .swizzle = TCMMA_SWIZZLE_B128, .col0 = {.value = 64}};
  assert_int_equal(tcmma_tcgen05_operand_plan(TCMMA_TCGEN05_MXF4, TCMMA_OPERAND_A, 128, 64, &f4,
                                              &o, &err), TCMMA_OK);
  assert_int_equal(o.desc, 0x4000404000010000ull); /* SBO 1024, LBO 16, 128-byte swizzle */
  assert_int_equal(o.k_step_bytes, 32);
  assert_int_equal(o.origin_bytes, 32);
  assert_false(o.trans);
  const struct {
    const char *arm;
    tcmma_operand op;
    int m, n;
    tcmma_operand_desc d;
    tcmma_decline why;
    const char *says;
  } bad[] = {
      {"tcgen05-f8f6f4", TCMMA_OPERAND_A, 128, 64, shared("e2m1", true, TCMMA_SWIZZLE_B128),
       TCMMA_DECLINE_LAYOUT, "reads e2m1 elements in a padded form"},
      {"tcgen05-mxf8f6f4", TCMMA_OPERAND_A, 128, 64, shared("mxf4", true, TCMMA_SWIZZLE_B128),
       TCMMA_DECLINE_LAYOUT, "padded form"},
      {"tcgen05-mxf4", TCMMA_OPERAND_B, 128, 64, shared("mxf4", false, TCMMA_SWIZZLE_B128),
       TCMMA_DECLINE_LAYOUT, "K-major only"},
      {"tcgen05-nvf4", TCMMA_OPERAND_A, 128, 64,
       {.prec = TCMMA_PREC_NVF4, .space = TCMMA_SPACE_SHARED, .swizzle = TCMMA_SWIZZLE_B128,
        .ld = 255},
       TCMMA_DECLINE_SUBTILE, "ld 255"},
      {"tcgen05-nvf4", TCMMA_OPERAND_A, 128, 64,
       {.prec = TCMMA_PREC_NVF4, .space = TCMMA_SPACE_SHARED, .swizzle = TCMMA_SWIZZLE_B128,
        .col0 = {.value = 16}},
       TCMMA_DECLINE_SUBTILE, "origin"},
      {"tcgen05-bf16", TCMMA_OPERAND_A, 96, 64, shared("bf16", false, TCMMA_SWIZZLE_B128),
       TCMMA_DECLINE_EXTENTS, "96 x 64"},
      {"tcgen05-bf16", TCMMA_OPERAND_A, 128, 64, shared("f16", false, TCMMA_SWIZZLE_B128),
       TCMMA_DECLINE_NO_ARM, "f16"},
      {"tcgen05-bf16", TCMMA_OPERAND_A, 128, 64, shared("bf16", false, TCMMA_SWIZZLE_NONE),
       TCMMA_DECLINE_LAYOUT, "not swizzled"},
      {"tcgen05-bf16", TCMMA_OPERAND_A, 128, 64,
       {.prec = TCMMA_PREC_BF16, .space = TCMMA_SPACE_GLOBAL, .swizzle = TCMMA_SWIZZLE_B128},
       TCMMA_DECLINE_SPACE, "global"},
      {"tcgen05-bf16", TCMMA_OPERAND_A, 128, 64,
       {.prec = TCMMA_PREC_BF16, .space = TCMMA_SPACE_SHARED, .swizzle = TCMMA_SWIZZLE_B128,
        .row0 = {.value = 4}},
       TCMMA_DECLINE_SUBTILE, "origin"},
  };
  for (size_t c = 0; c < sizeof bad / sizeof bad[0]; c++) {
    memset(&err, 0, sizeof err);
    if (tcmma_tcgen05_operand_plan(parse(bad[c].arm), bad[c].op, bad[c].m, bad[c].n, &bad[c].d, &o,
                                   &err) != TCMMA_DECLINED ||
        o.reason != bad[c].why || !strstr(o.message, bad[c].says))
      fail_msg("case %zu (%s): reason %d, '%s' lacks '%s'", c, bad[c].arm, (int)o.reason,
               o.message, bad[c].says);
  }
  assert_int_equal(tcmma_tcgen05_operand_plan(TCMMA_TCGEN05_BF16, TCMMA_OPERAND_C, 128, 64, &b, &o,
                                              &err), TCMMA_INVALID);
  assert_int_equal(tcmma_tcgen05_operand_plan(TCMMA_TCGEN05_BF16, TCMMA_OPERAND_A, 128, 64, NULL,
                                              &o, &err), TCMMA_INVALID);
}

static bool any_target(int arch, char suffix, void *ctx) {
  (void)ctx;
  return suffix == 0 || arch >= 90;
}

/* A (tcgen05-...) marker raises a source to the family target, i8 to the
 * arch-specific one; no 9.0 or 12.0 device runs it. */
static void marker_asks_for_sm_100(void **state) {
  (void)state;
  tcmma_arch_support s = {{75, 80, 86, 89, 90, 100, 103, 120}, 8, any_target, NULL};
  const struct {
    const char *src, *option;
  } cases[] = {{"/* tile product (tcgen05-bf16) */", "--gpu-architecture=compute_100f"},
               {"/* (tcgen05-nvf4) */", "--gpu-architecture=compute_100f"},
               {"/* (tcgen05-i8) */", "--gpu-architecture=compute_100a"}};
  for (size_t c = 0; c < sizeof cases / sizeof cases[0]; c++) {
    tcmma_arch_options o;
    tcmma_error err = {0};
    const char *src = cases[c].src;
    assert_int_equal(tcmma_arch_decide(src, strlen(src), 0, TCMMA_TARGET_FLOOR, &s, &o, &err),
                     TCMMA_OK);
    assert_string_equal(o.option, cases[c].option);
    assert_int_not_equal(tcmma_arch_decide(src, strlen(src), 90, TCMMA_TARGET_NATIVE, &s, &o, &err),
                         TCMMA_OK);
    assert_int_not_equal(tcmma_arch_decide(src, strlen(src), 120, TCMMA_TARGET_NATIVE, &s, &o, &err),
                         TCMMA_OK);
  }
  tcmma_marker_hit hits[4];
  int floor = 0;
  const char *src = "(tcgen05-mxf8f6f4)";
  assert_int_equal(tcmma_source_markers(src, strlen(src), hits, 4, &floor), 1);
  assert_int_equal(floor, 100);
  assert_int_equal(hits[0].suffix, TCMMA_PTX_SUFFIX_A_OR_F);
}

/* tcmma layout shows the accumulator's Tensor Memory cells, from the table. */
static void layout_command_shows_tensor_memory(void **state) {
  (void)state;
  cli_result r = run_cli((const char *const[]){"layout", "tcgen05-bf16", "c", "--m", "64", "--n",
                                               "16", NULL}, NULL);
  assert_int_equal(r.exit_code, 0);
  size_t lines = 0;
  for (const char *p = r.out; *p; p++) lines += *p == '\n';
  assert_int_equal(lines, 1 + 64 * 16);
  cli_result_free(&r);
  r = run_cli((const char *const[]){"layout", "tcgen05-tf32", "c", "--n", "8", "--json", NULL}, NULL);
  assert_int_equal(r.exit_code, 0);
  /* the last cell: lane 127, column 7, row 127 */
  const char *last = strstr(r.out, "\"lane\": 127");
  assert_non_null(last);
  while (strstr(last + 1, "\"lane\": 127")) last = strstr(last + 1, "\"lane\": 127");
  assert_int_equal(json_int_of(last, "row"), 127);
  assert_int_equal(json_int_of(last, "col"), 7);
  cli_result_free(&r);
  const char *const bad[][8] = {{"layout", "tcgen05-mxf4", "c", "--m", "64", NULL},
                                {"layout", "tcgen05-bf16", "a", NULL},
                                {"layout", "wgmma-bf16", "c", "--m", "64", NULL},
                                {"layout", "tcgen05-f16-acc16", "c", NULL}};
  const char *says[] = {"--m 64 --n 64", "expected c", "--m is a tcgen05", "f16 accumulator"};
  for (int i = 0; i < 4; i++) {
    r = run_cli(bad[i], NULL);
    assert_int_not_equal(r.exit_code, 0);
    if (!strstr(r.err, says[i])) fail_msg("case %d: '%s' lacks '%s'", i, r.err, says[i]);
    cli_result_free(&r);
  }
}

/* The block scales' places, restated from the PTX ISA's scale layout (row x
 * at lane x % 32 of every quarter, column x / 32, byte id + block) and the
 * allocation docs/tcgen05.md "Block scales" states (4 blocks a cell, then 4
 * columns per 128 rows further; 512-byte atoms, row l at 16 l); the packing
 * and the scale ids per scale_vec. */
static void block_scale_places(void **state) {
  (void)state;
  unsigned col, byte;
  long src;
  tcmma_error err;
  const struct {
    tcmma_tcgen05 w;
    int rows, x, kb;
    unsigned col, byte;
    long src;
  } cells[] = {
      {TCMMA_TCGEN05_MXF4, 128, 0, 0, 0, 0, 0},
      {TCMMA_TCGEN05_MXF4, 128, 33, 1, 1, 1, 16 * 1 + 4 * 1 + 1},
      {TCMMA_TCGEN05_MXF4, 128, 127, 3, 3, 3, 16 * 31 + 4 * 3 + 3},
      {TCMMA_TCGEN05_MXF4, 128, 5, 4, 4, 0, 512 + 16 * 5},           /* the next cell */
      {TCMMA_TCGEN05_NVF4, 256, 130, 0, 4, 0, 512 + 16 * 2},         /* rows 128.. */
      {TCMMA_TCGEN05_NVF4, 256, 255, 6, 8 + 7, 2, 3 * 512 + 16 * 31 + 4 * 3 + 2},
      {TCMMA_TCGEN05_MXF8F6F4, 64, 40, 9, 2 * 4 + 1, 1, 2 * 512 + 16 * 8 + 4 + 1},
  };
  for (size_t c = 0; c < sizeof cells / sizeof cells[0]; c++) {
    assert_int_equal(tcmma_tcgen05_scale_cell(cells[c].w, cells[c].rows, cells[c].x, cells[c].kb,
                                              &col, &byte, &src, &err), TCMMA_OK);
    if (col != cells[c].col || byte != cells[c].byte || src != cells[c].src)
      fail_msg("cell %zu: column %u byte %u src %ld, expected %u %u %ld", c, col, byte, src,
               cells[c].col, cells[c].byte, cells[c].src);
  }
  assert_int_equal(tcmma_tcgen05_scale_cell(TCMMA_TCGEN05_BF16, 128, 0, 0, &col, &byte, &src, &err),
                   TCMMA_INVALID);
  assert_int_equal(tcmma_tcgen05_scale_cell(TCMMA_TCGEN05_MXF4, 128, 128, 0, &col, &byte, &src,
                                            &err), TCMMA_INVALID);
  assert_non_null(strstr(err.message, "row 128 of 128"));
  assert_int_equal(tcmma_tcgen05_scale_cell(TCMMA_TCGEN05_MXF4, 257, 0, 0, &col, &byte, &src, &err),
                   TCMMA_INVALID);
  assert_int_equal(tcmma_tcgen05_scale_cell(TCMMA_TCGEN05_MXF4, 128, 0, 0, NULL, &byte, &src, &err),
                   TCMMA_INVALID);
  /* atoms: ceil(blocks / 4) x ceil(rows / 128) */
  assert_int_equal(tcmma_tcgen05_scale_atoms(TCMMA_TCGEN05_MXF4, 128, 256), 2);
  assert_int_equal(tcmma_tcgen05_scale_atoms(TCMMA_TCGEN05_NVF4, 256, 256), 8);
  assert_int_equal(tcmma_tcgen05_scale_atoms(TCMMA_TCGEN05_MXF8F6F4, 8, 32), 1);
  assert_int_equal(tcmma_tcgen05_scale_atoms(TCMMA_TCGEN05_MXF8F6F4, 8, 48), 0);
  assert_int_equal(tcmma_tcgen05_scale_atoms(TCMMA_TCGEN05_BF16, 128, 64), 0);
  /* scale ids: scale_vec 1X any byte, 2X 0 or 2, 4X 0 */
  assert_int_equal(tcmma_tcgen05_scale_ids(TCMMA_TCGEN05_MXF8F6F4), 0xF);
  assert_int_equal(tcmma_tcgen05_scale_ids(TCMMA_TCGEN05_MXF4), 0x5);
  assert_int_equal(tcmma_tcgen05_scale_ids(TCMMA_TCGEN05_NVF4), 0x1);
  assert_int_equal(tcmma_tcgen05_scale_ids(TCMMA_TCGEN05_F16), 0);
  /* packing: packed fp4 for the mxf4 kinds, padded fp4/fp6 elsewhere */
  assert_int_equal(tcmma_tcgen05_pack(TCMMA_TCGEN05_MXF4, TCMMA_PREC_MXF4), 2);
  assert_int_equal(tcmma_tcgen05_pack(TCMMA_TCGEN05_NVF4, TCMMA_PREC_NVF4), 2);
  assert_int_equal(tcmma_tcgen05_pack(TCMMA_TCGEN05_MXF8F6F4, TCMMA_PREC_MXF4), 0);
  assert_int_equal(tcmma_tcgen05_pack(TCMMA_TCGEN05_F8F6F4, TCMMA_PREC_E3M2), 0);
  assert_int_equal(tcmma_tcgen05_pack(TCMMA_TCGEN05_MXF8F6F4, TCMMA_PREC_MXE4M3), 1);
  assert_int_equal(tcmma_tcgen05_pack(TCMMA_TCGEN05_MXF4, TCMMA_PREC_NVF4), 0);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(every_row_and_only_those),
      cmocka_unit_test(precisions_each_row_takes),
      cmocka_unit_test(instruction_descriptors_by_hand),
      cmocka_unit_test(instruction_descriptor_fields),
      cmocka_unit_test(instruction_descriptors_refused),
      cmocka_unit_test(shared_memory_descriptors_by_hand),
      cmocka_unit_test(tensor_memory_sizes_and_shapes),
      cmocka_unit_test(accumulator_cells),
      cmocka_unit_test(descriptors_from_layouts),
      cmocka_unit_test(block_scale_places),
      cmocka_unit_test(marker_asks_for_sm_100),
      cmocka_unit_test(layout_command_shows_tensor_memory),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
