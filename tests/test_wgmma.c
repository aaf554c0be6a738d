/* The wgmma arms (tables/wgmma.def) against the PTX ISA, written out here
 * independently of the table: rows, instruction n, opcodes, the accumulator
 * layout, the matrix descriptor's bits (hand-derived values) and the
 * operand plan's declines (docs/wgmma.md). */
#include <stddef.h>
#include <stdio.h>
#include <string.h>
#include "util.h"
#include "tcmma/tcmma.h"

enum nlist { EVERY8, INT8 };

static const struct {
  const char *marker;
  int k;
  const char *acc;
  bool trans;
  enum nlist ns;
  const char *example; /* its opcode at n 64 for the first precision it names */
  const char *a;
} isa[] = {
    {"wgmma-f16", 16, "f32", true, EVERY8, "wgmma.mma_async.sync.aligned.m64n64k16.f32.f16.f16", "f16"},
    {"wgmma-f16-acc16", 16, "f16", true, EVERY8, "wgmma.mma_async.sync.aligned.m64n64k16.f16.f16.f16", "f16"},
    {"wgmma-bf16", 16, "f32", true, EVERY8, "wgmma.mma_async.sync.aligned.m64n64k16.f32.bf16.bf16", "bf16"},
    {"wgmma-tf32", 8, "f32", false, EVERY8, "wgmma.mma_async.sync.aligned.m64n64k8.f32.tf32.tf32", "f32"},
    {"wgmma-fp8", 32, "f32", false, EVERY8, "wgmma.mma_async.sync.aligned.m64n64k32.f32.e4m3.e4m3", "e4m3"},
    {"wgmma-fp8-acc16", 32, "f16", false, EVERY8, "wgmma.mma_async.sync.aligned.m64n64k32.f16.e5m2.e5m2", "e5m2"},
    {"wgmma-s8", 32, "s32", false, INT8, "wgmma.mma_async.sync.aligned.m64n64k32.s32.u8.u8", "u8"},
    {"wgmma-s8-sat", 32, "s32", false, INT8, "wgmma.mma_async.sync.aligned.m64n64k32.s32.s8.s8.satfinite", "s8"},
};
#define NISA (int)(sizeof isa / sizeof isa[0])

static tcmma_wgmma parse(const char *marker) {
  tcmma_wgmma w = TCMMA_WGMMA_NONE;
  tcmma_error err;
  if (tcmma_wgmma_parse(marker, &w, &err) != TCMMA_OK) fail_msg("%s", err.message);
  return w;
}

/* The ISA's n: every multiple of 8 to 256; integer types 8, 16, 24, then
 * every multiple of 16. */
static bool isa_n(enum nlist ns, int n) {
  if (n < 8 || n > 256 || n % 8) return false;
  return ns == EVERY8 || n <= 24 || n % 16 == 0;
}

static void every_row_and_only_those(void **state) {
  (void)state;
  assert_int_equal(TCMMA_WGMMA_COUNT, NISA);
  for (int r = 0; r < NISA; r++) {
    tcmma_wgmma w = parse(isa[r].marker);
    const tcmma_wgmma_info *i = tcmma_wgmma_get(w);
    assert_non_null(i);
    assert_string_equal(tcmma_wgmma_marker(w), isa[r].marker);
    assert_int_equal(i->m, 64);
    assert_int_equal(i->k, isa[r].k);
    assert_string_equal(tcmma_prec_name(i->acc), isa[r].acc);
    assert_int_equal(i->trans, isa[r].trans);
    assert_int_equal(i->floor, 90);
    assert_int_equal(i->suffix, TCMMA_PTX_SUFFIX_A);
    /* a register A: four 32-bit registers of 32/bits elements */
    assert_int_equal(tcmma_wgmma_a_elems_per_reg(w), 32 / tcmma_prec_bits(test_prec(isa[r].a)));
    for (int n = -8; n <= 272; n++)
      if (tcmma_wgmma_n_ok(w, n) != isa_n(isa[r].ns, n))
        fail_msg("%s: n %d %s", isa[r].marker, n, isa_n(isa[r].ns, n) ? "missing" : "extra");
    /* only the 9.0 devices: not 8.9, not 10.0 or 12.0 */
    assert_true(tcmma_wgmma_runs_on(w, 90) && tcmma_wgmma_runs_on(w, 0));
    assert_false(tcmma_wgmma_runs_on(w, 89) || tcmma_wgmma_runs_on(w, 100) ||
                 tcmma_wgmma_runs_on(w, 120) || tcmma_wgmma_runs_on(w, 5));
  }
  tcmma_wgmma w = TCMMA_WGMMA_F16;
  tcmma_error err;
  assert_int_equal(tcmma_wgmma_parse("wgmma-f64", &w, &err), TCMMA_INVALID);
  assert_int_equal(w, TCMMA_WGMMA_NONE);
  assert_non_null(strstr(err.message, "wgmma-f64"));
  assert_non_null(strstr(err.message, "wgmma-bf16"));
  assert_int_equal(tcmma_wgmma_parse(NULL, NULL, NULL), TCMMA_INVALID);
  assert_null(tcmma_wgmma_get(TCMMA_WGMMA_COUNT));
  assert_null(tcmma_wgmma_get(TCMMA_WGMMA_NONE));
  assert_string_equal(tcmma_wgmma_marker(TCMMA_WGMMA_COUNT), "none");
  assert_false(tcmma_wgmma_n_ok(TCMMA_WGMMA_COUNT, 64));
}

static void precisions_each_row_takes(void **state) {
  (void)state;
  tcmma_wgmma fp8 = parse("wgmma-fp8"), s8 = parse("wgmma-s8"), bf16 = parse("wgmma-bf16");
  assert_true(tcmma_wgmma_takes(fp8, test_prec("e4m3"), test_prec("e5m2")));
  assert_true(tcmma_wgmma_takes(fp8, test_prec("e5m2"), test_prec("e4m3")));
  assert_false(tcmma_wgmma_takes(fp8, test_prec("e4m3"), test_prec("f16")));
  assert_true(tcmma_wgmma_takes(s8, test_prec("s8"), test_prec("u8")));
  assert_false(tcmma_wgmma_takes(s8, test_prec("s32"), test_prec("s8")));
  assert_true(tcmma_wgmma_takes(bf16, test_prec("bf16"), test_prec("bf16")));
  assert_false(tcmma_wgmma_takes(bf16, test_prec("f16"), test_prec("bf16")));
  assert_false(tcmma_wgmma_takes(bf16, (tcmma_prec)99, test_prec("bf16")));
  assert_false(tcmma_wgmma_takes(TCMMA_WGMMA_NONE, test_prec("bf16"), test_prec("bf16")));
  assert_false(tcmma_wgmma_takes(parse("wgmma-tf32"), test_prec("mxe4m3"), test_prec("f32")));
}

static void opcodes_spell_the_ptx(void **state) {
  (void)state;
  char buf[128];
  tcmma_error err;
  for (int r = 0; r < NISA; r++) {
    tcmma_prec p = test_prec(isa[r].a);
    assert_int_equal(tcmma_wgmma_instruction(parse(isa[r].marker), 64, p, p, buf, sizeof buf, &err),
                     TCMMA_OK);
    assert_string_equal(buf, isa[r].example);
  }
  tcmma_wgmma fp8 = parse("wgmma-fp8"), s8 = parse("wgmma-s8");
  assert_int_equal(tcmma_wgmma_instruction(fp8, 256, test_prec("e4m3"), test_prec("e5m2"), buf, sizeof buf,
                                           &err), TCMMA_OK);
  assert_string_equal(buf, "wgmma.mma_async.sync.aligned.m64n256k32.f32.e4m3.e5m2");
  assert_int_equal(tcmma_wgmma_instruction(s8, 40, test_prec("s8"), test_prec("s8"), buf, sizeof buf, &err),
                   TCMMA_INVALID);
  assert_non_null(strstr(err.message, "n 40"));
  assert_int_equal(tcmma_wgmma_instruction(s8, 48, test_prec("f16"), test_prec("s8"), buf, sizeof buf, &err),
                   TCMMA_INVALID);
  assert_non_null(strstr(err.message, "f16"));
  assert_int_equal(tcmma_wgmma_instruction(s8, 48, test_prec("s8"), test_prec("s8"), buf, 20, &err),
                   TCMMA_OVERFLOW);
  assert_int_equal(tcmma_wgmma_instruction(s8, 48, test_prec("s8"), test_prec("s8"), NULL, 0, &err),
                   TCMMA_INVALID);
  assert_int_equal(tcmma_wgmma_instruction((tcmma_wgmma)77, 48, test_prec("s8"), test_prec("s8"), buf,
                                           sizeof buf, &err), TCMMA_INVALID);
  assert_non_null(strstr(err.message, "77"));
}

/* Every accumulator element of the warpgroup lands on a distinct cell of
 * the 64 x n tile, so together they cover it once. */
static void accumulator_covers_the_tile_once(void **state) {
  (void)state;
  static unsigned char seen[64][256];
  const char *rows[] = {"wgmma-bf16", "wgmma-f16-acc16", "wgmma-s8"};
  const int ns[] = {8, 24, 128, 256};
  for (int r = 0; r < 3; r++)
    for (int j = 0; j < 4; j++) {
      tcmma_wgmma w = parse(rows[r]);
      int n = ns[j], regs = tcmma_wgmma_acc_regs(w, n), per = tcmma_wgmma_acc_elems_per_reg(w);
      assert_int_equal(regs * per, n / 2);
      memset(seen, 0, sizeof seen);
      for (int t = 0; t < TCMMA_WARPGROUP_SIZE; t++)
        for (int g = 0; g < regs; g++)
          for (int e = 0; e < per; e++) {
            int row = -1, col = -1;
            assert_int_equal(tcmma_wgmma_acc_layout(w, n, t, g, e, &row, &col, NULL), TCMMA_OK);
            assert_true(row >= 0 && row < 64 && col >= 0 && col < n);
            assert_int_equal(seen[row][col]++, 0);
          }
    }
}

/* One hand-derived cell: arm, thread, register, element -> row, column;
 * a = true: the register A fragment, else the accumulator at n 128. */
typedef struct {
  const char *arm;
  int thread, reg, elem, row, col;
} cell;

static void check_cells(const cell *cases, size_t n, bool a) {
  for (size_t c = 0; c < n; c++) {
    int row = -1, col = -1;
    tcmma_wgmma w = parse(cases[c].arm);
    tcmma_status s = a ? tcmma_wgmma_a_layout(w, cases[c].thread, cases[c].reg, cases[c].elem, &row,
                                              &col, NULL)
                       : tcmma_wgmma_acc_layout(w, 128, cases[c].thread, cases[c].reg,
                                                cases[c].elem, &row, &col, NULL);
    assert_int_equal(s, TCMMA_OK);
    if (row != cases[c].row || col != cases[c].col)
      fail_msg("%s %s thread %d reg %d elem %d: (%d, %d), expected (%d, %d)", cases[c].arm,
               a ? "A" : "acc", cases[c].thread, cases[c].reg, cases[c].elem, row, col,
               cases[c].row, cases[c].col);
  }
}

/* Hand-derived cells (PTX ISA, "Matrix Fragments for wgmma.m64nNk16",
 * accumulator D): warp w owns rows 16w..16w+15; lane l's pair sits at row
 * 16w + l/4 (+8 for the second pair) and columns 8j + 2(l%4) (+1). */
static void accumulator_cells_by_hand(void **state) {
  (void)state;
  static const cell cases[] = {
      {"wgmma-bf16", 0, 0, 0, 0, 0},     {"wgmma-bf16", 0, 1, 0, 0, 1},
      {"wgmma-bf16", 0, 2, 0, 8, 0},     {"wgmma-bf16", 5, 3, 0, 9, 3},
      {"wgmma-bf16", 37, 4, 0, 17, 10},  {"wgmma-bf16", 127, 63, 0, 63, 127},
      {"wgmma-f16-acc16", 0, 1, 1, 8, 1}, {"wgmma-f16-acc16", 66, 2, 0, 32, 12},
      {"wgmma-s8", 99, 6, 0, 56, 14},
  };
  check_cells(cases, sizeof cases / sizeof cases[0], false);
  tcmma_error err;
  tcmma_wgmma bf16 = parse("wgmma-bf16");
  assert_int_equal(tcmma_wgmma_acc_layout(bf16, 128, 128, 0, 0, NULL, NULL, &err), TCMMA_INVALID);
  assert_non_null(strstr(err.message, "thread 128"));
  assert_int_equal(tcmma_wgmma_acc_layout(bf16, 128, 0, 64, 0, NULL, NULL, &err), TCMMA_INVALID);
  assert_int_equal(tcmma_wgmma_acc_layout(bf16, 128, 0, 0, 1, NULL, NULL, &err), TCMMA_INVALID);
  assert_int_equal(tcmma_wgmma_acc_layout(bf16, 12, 0, 0, 0, NULL, NULL, &err), TCMMA_INVALID);
  assert_non_null(strstr(err.message, "n 12"));
  assert_int_equal(tcmma_wgmma_acc_layout(TCMMA_WGMMA_NONE, 8, 0, 0, 0, NULL, NULL, &err),
                   TCMMA_INVALID);
  assert_int_equal(tcmma_wgmma_acc_regs(parse("wgmma-s8"), 40), 0);
  assert_int_equal(tcmma_wgmma_acc_regs(parse("wgmma-fp8-acc16"), 256), 64);
}

/* A register A covers the 64 x k step once; cells by hand (PTX ISA,
 * wgmma register fragments of A: warp w's rows 16w.., lane l's group l/4
 * and column pair, quad or single 2(l%4), 4(l%4) or l%4, +8 rows for the
 * odd registers, +k/2 columns for the upper two). */
static void register_a_fragment(void **state) {
  (void)state;
  static unsigned char seen[64][32];
  for (int r = 0; r < NISA; r++) {
    tcmma_wgmma w = parse(isa[r].marker);
    int per = tcmma_wgmma_a_elems_per_reg(w);
    memset(seen, 0, sizeof seen);
    for (int t = 0; t < TCMMA_WARPGROUP_SIZE; t++)
      for (int g = 0; g < TCMMA_WGMMA_A_REGS; g++)
        for (int e = 0; e < per; e++) {
          int row = -1, col = -1;
          assert_int_equal(tcmma_wgmma_a_layout(w, t, g, e, &row, &col, NULL), TCMMA_OK);
          assert_true(row >= 0 && row < 64 && col >= 0 && col < isa[r].k);
          assert_int_equal(seen[row][col]++, 0);
        }
  }
  static const cell cases[] = {
      {"wgmma-bf16", 0, 0, 1, 0, 1},   {"wgmma-bf16", 37, 3, 0, 25, 10},
      {"wgmma-bf16", 37, 1, 1, 25, 3}, {"wgmma-tf32", 6, 2, 0, 1, 6},
      {"wgmma-fp8", 70, 1, 3, 41, 11}, {"wgmma-s8", 127, 3, 0, 63, 28},
  };
  check_cells(cases, sizeof cases / sizeof cases[0], true);
  tcmma_error err;
  assert_int_equal(tcmma_wgmma_a_layout(parse("wgmma-bf16"), 0, 4, 0, NULL, NULL, &err),
                   TCMMA_INVALID);
  assert_non_null(strstr(err.message, "register 4"));
  assert_int_equal(tcmma_wgmma_a_layout(parse("wgmma-tf32"), 0, 0, 1, NULL, NULL, &err),
                   TCMMA_INVALID);
  assert_int_equal(tcmma_wgmma_a_layout(parse("wgmma-s8"), -1, 0, 0, NULL, NULL, &err),
                   TCMMA_INVALID);
  assert_int_equal(tcmma_wgmma_a_layout(TCMMA_WGMMA_NONE, 0, 0, 0, NULL, NULL, &err), TCMMA_INVALID);
  assert_int_equal(tcmma_wgmma_a_elems_per_reg(TCMMA_WGMMA_NONE), 0);
}

/* Descriptor bits by hand (PTX ISA "Matrix Descriptor Format"): start,
 * LBO, SBO >> 4 at bits 0, 16, 32; base offset at 49; swizzle at 62
 * (0 none, 1 128 B, 2 64 B, 3 32 B). */
static void descriptor_bits_by_hand(void **state) {
  (void)state;
  const struct {
    long start, lbo, sbo;
    int base;
    tcmma_swizzle sw;
    uint64_t want;
  } cases[] = {
      {1024, 16, 1024, 0, TCMMA_SWIZZLE_B128, 0x4000004000010040ull},
      {0, 16, 512, 0, TCMMA_SWIZZLE_B64, 0x8000002000010000ull},
      {0, 16, 256, 0, TCMMA_SWIZZLE_B32, 0xC000001000010000ull},
      {0x3FFF0, 128, 256, 0, TCMMA_SWIZZLE_NONE, 0x0000001000083FFFull},
      {16, 0, 0, 7, TCMMA_SWIZZLE_NONE, 0x000E000000000001ull},
  };
  for (size_t c = 0; c < sizeof cases / sizeof cases[0]; c++) {
    uint64_t got = 0;
    assert_int_equal(tcmma_wgmma_desc_encode(cases[c].start, cases[c].lbo, cases[c].sbo,
                                             cases[c].base, cases[c].sw, &got, NULL), TCMMA_OK);
    if (got != cases[c].want)
      fail_msg("case %zu: %#llx, expected %#llx", c, (unsigned long long)got,
               (unsigned long long)cases[c].want);
    long start, lbo, sbo;
    int base;
    tcmma_swizzle sw;
    tcmma_wgmma_desc_decode(got, &start, &lbo, &sbo, &base, &sw);
    assert_int_equal(start, cases[c].start);
    assert_int_equal(lbo, cases[c].lbo);
    assert_int_equal(sbo, cases[c].sbo);
    assert_int_equal(base, cases[c].base);
    assert_int_equal(sw, cases[c].sw);
  }
  tcmma_wgmma_desc_decode(0, NULL, NULL, NULL, NULL, NULL);
  uint64_t d;
  tcmma_error err;
  assert_int_equal(tcmma_wgmma_desc_encode(8, 16, 16, 0, TCMMA_SWIZZLE_NONE, &d, &err), TCMMA_INVALID);
  assert_non_null(strstr(err.message, "start address 8"));
  assert_int_equal(tcmma_wgmma_desc_encode(0, 1L << 18, 16, 0, TCMMA_SWIZZLE_NONE, &d, &err),
                   TCMMA_INVALID);
  assert_non_null(strstr(err.message, "leading byte offset"));
  assert_int_equal(tcmma_wgmma_desc_encode(0, 16, -16, 0, TCMMA_SWIZZLE_NONE, &d, &err), TCMMA_INVALID);
  assert_non_null(strstr(err.message, "stride byte offset -16"));
  assert_int_equal(tcmma_wgmma_desc_encode(0, 16, 16, 8, TCMMA_SWIZZLE_NONE, &d, &err), TCMMA_INVALID);
  assert_non_null(strstr(err.message, "base offset 8"));
  assert_int_equal(tcmma_wgmma_desc_encode(0, 16, 16, 0, (tcmma_swizzle)9, &d, &err), TCMMA_INVALID);
  assert_int_equal(tcmma_wgmma_desc_encode(0, 16, 16, 0, TCMMA_SWIZZLE_NONE, NULL, &err),
                   TCMMA_INVALID);
}

/* A shared operand of precision p, 128-byte swizzled, ld elements a row. */
static tcmma_operand_desc shared(const char *p, bool transposed, long ld) {
  tcmma_operand_desc d;
  memset(&d, 0, sizeof d);
  d.prec = test_prec(p), d.transposed = transposed, d.ld = ld;
  d.space = TCMMA_SPACE_SHARED, d.swizzle = TCMMA_SWIZZLE_B128;
  return d;
}

static tcmma_wgmma_operand planned(const char *arm, tcmma_operand op, int n, tcmma_operand_desc d) {
  tcmma_wgmma_operand o;
  tcmma_error err = {0};
  if (tcmma_wgmma_operand_plan(parse(arm), op, n, &d, &o, &err) != TCMMA_OK)
    fail_msg("%s %s n %d: %s", arm, tcmma_operand_name(op), n, err.message);
  assert_int_equal(o.reason, TCMMA_DECLINE_NONE);
  return o;
}

/* K-major 128-byte swizzled rows of one span (64 bf16): 8-row groups 1024
 * bytes apart (SBO), LBO unused (1), k steps 32 bytes along the row;
 * N-major B (bf16 may): 8 k rows per group, k16 steps two groups. */
static void descriptors_from_layouts(void **state) {
  (void)state;
  tcmma_wgmma_operand a = planned("wgmma-bf16", TCMMA_OPERAND_A, 64, shared("bf16", false, 64));
  assert_true(a.desc == 0x4000004000010000ull && !a.trans && a.k_step_bytes == 32);
  tcmma_wgmma_operand b = planned("wgmma-bf16", TCMMA_OPERAND_B, 256, shared("bf16", true, 64));
  assert_true(b.desc == 0x4000004000010000ull && !b.trans && b.k_step_bytes == 32);
  b = planned("wgmma-f16", TCMMA_OPERAND_B, 64, shared("f16", false, 64));
  assert_true(b.desc == 0x4000004000400000ull && b.trans && b.k_step_bytes == 2048);
  /* tf32 k8: 8 x 4 bytes a step; fp8 k32: 32 bytes; 64-byte swizzle: SBO 512 */
  tcmma_wgmma_operand t = planned("wgmma-tf32", TCMMA_OPERAND_B, 64, shared("f32", true, 32));
  assert_true(t.k_step_bytes == 32 && t.desc == 0x4000004000010000ull);
  tcmma_operand_desc f = shared("e4m3", false, 64);
  f.swizzle = TCMMA_SWIZZLE_B64;
  tcmma_wgmma_operand e = planned("wgmma-fp8", TCMMA_OPERAND_A, 64, f);
  assert_true(e.k_step_bytes == 32 && e.desc == 0x8000002000010000ull);
  /* an origin on the atom: 8 rows and 16 bytes in */
  tcmma_operand_desc o = shared("bf16", false, 64);
  o.row0.value = 64, o.col0.value = 16;
  assert_int_equal(planned("wgmma-bf16", TCMMA_OPERAND_A, 64, o).origin_bytes, 64 * 128 + 32);
  /* an A from registers: no descriptor */
  tcmma_operand_desc r = shared("bf16", false, 0);
  r.space = TCMMA_SPACE_THREAD;
  tcmma_wgmma_operand ra = planned("wgmma-bf16", TCMMA_OPERAND_A, 64, r);
  assert_true(ra.desc == 0 && !ra.trans && ra.k_step_bytes == 0);
  /* dense (ld 0) swizzled rows are one span */
  assert_int_equal(planned("wgmma-s8", TCMMA_OPERAND_B, 48, shared("u8", true, 0)).desc,
                   0x4000004000010000ull);
}

static void expect_decline(const char *arm, tcmma_operand op, int n, tcmma_operand_desc d,
                           tcmma_decline why, const char *says) {
  tcmma_wgmma_operand o;
  tcmma_error err = {0};
  assert_int_equal(tcmma_wgmma_operand_plan(parse(arm), op, n, &d, &o, &err), TCMMA_DECLINED);
  if (o.reason != why || !strstr(o.message, says) || strcmp(err.message, o.message))
    fail_msg("%s: declined %s '%s', expected %s naming '%s'", arm, tcmma_decline_name(o.reason),
             o.message, tcmma_decline_name(why), says);
}

static void what_a_descriptor_cannot_express(void **state) {
  (void)state;
  /* transposed tf32, fp8 and int8 operands: K-major only */
  expect_decline("wgmma-tf32", TCMMA_OPERAND_B, 64, shared("f32", false, 32), TCMMA_DECLINE_LAYOUT,
                 "K-major only");
  expect_decline("wgmma-fp8", TCMMA_OPERAND_A, 64, shared("e4m3", true, 128), TCMMA_DECLINE_LAYOUT,
                 "M-major");
  expect_decline("wgmma-s8", TCMMA_OPERAND_B, 64, shared("s8", false, 128), TCMMA_DECLINE_LAYOUT,
                 "N-major");
  /* rows not 16 bytes apart; rows of 144 bytes under a 128-byte atom */
  expect_decline("wgmma-bf16", TCMMA_OPERAND_A, 64, shared("bf16", false, 60), TCMMA_DECLINE_STRIDE,
                 "120 bytes");
  expect_decline("wgmma-bf16", TCMMA_OPERAND_A, 64, shared("bf16", false, 72), TCMMA_DECLINE_LAYOUT,
                 "exactly one span");
  tcmma_operand_desc plain = shared("bf16", false, 64);
  plain.swizzle = TCMMA_SWIZZLE_NONE;
  expect_decline("wgmma-bf16", TCMMA_OPERAND_A, 64, plain, TCMMA_DECLINE_LAYOUT, "core matrices");
  /* N-major B wider than one span */
  expect_decline("wgmma-f16", TCMMA_OPERAND_B, 128, shared("f16", false, 64), TCMMA_DECLINE_LAYOUT,
                 "128 elements");
  tcmma_operand_desc rt = shared("bf16", true, 64);
  rt.space = TCMMA_SPACE_THREAD;
  expect_decline("wgmma-bf16", TCMMA_OPERAND_A, 64, rt, TCMMA_DECLINE_LAYOUT, "K-major");
  rt.transposed = true;
  expect_decline("wgmma-bf16", TCMMA_OPERAND_B, 64, rt, TCMMA_DECLINE_SPACE, "thread");
  tcmma_operand_desc g = shared("bf16", false, 64);
  g.space = TCMMA_SPACE_GLOBAL;
  expect_decline("wgmma-bf16", TCMMA_OPERAND_B, 64, g, TCMMA_DECLINE_SPACE, "global");
  expect_decline("wgmma-s8", TCMMA_OPERAND_B, 40, shared("s8", true, 128), TCMMA_DECLINE_EXTENTS,
                 "n 40");
  expect_decline("wgmma-bf16", TCMMA_OPERAND_A, 64, shared("f16", false, 64), TCMMA_DECLINE_NO_ARM,
                 "f16");
  tcmma_operand_desc off = shared("bf16", false, 64);
  off.row0.value = 4;
  expect_decline("wgmma-bf16", TCMMA_OPERAND_A, 64, off, TCMMA_DECLINE_SUBTILE, "row 4");
  off.row0.value = 8, off.row0.expr = "w * 4", off.row0.multiple = 4;
  expect_decline("wgmma-bf16", TCMMA_OPERAND_A, 64, off, TCMMA_DECLINE_SUBTILE, "multiple of 8");
  off = shared("bf16", false, 64);
  off.col0.value = 4;
  expect_decline("wgmma-bf16", TCMMA_OPERAND_A, 64, off, TCMMA_DECLINE_SUBTILE, "column 4");
  /* one instruction's k from column 56 (112 bytes) passes the 128-byte row */
  off.col0.value = 56;
  expect_decline("wgmma-bf16", TCMMA_OPERAND_A, 64, off, TCMMA_DECLINE_LAYOUT,
                 "k 16 from column 56 does not fit one row");
  off.col0.value = 48; /* 48 + 16 ends the row */
  assert_int_equal(planned("wgmma-bf16", TCMMA_OPERAND_A, 64, off).origin_bytes, 96);
  /* malformed: not a plan, an error */
  tcmma_wgmma_operand o;
  tcmma_operand_desc d = shared("bf16", false, 64);
  tcmma_error err;
  tcmma_wgmma bf16 = parse("wgmma-bf16");
  assert_int_equal(tcmma_wgmma_operand_plan(bf16, TCMMA_OPERAND_C, 64, &d, &o, &err), TCMMA_INVALID);
  assert_int_equal(tcmma_wgmma_operand_plan(bf16, TCMMA_OPERAND_A, 64, NULL, &o, &err), TCMMA_INVALID);
  assert_int_equal(tcmma_wgmma_operand_plan(bf16, TCMMA_OPERAND_A, 64, &d, NULL, &err), TCMMA_INVALID);
  assert_int_equal(tcmma_wgmma_operand_plan(TCMMA_WGMMA_COUNT, TCMMA_OPERAND_A, 64, &d, &o, &err),
                   TCMMA_INVALID);
  d.swizzle = (tcmma_swizzle)7;
  assert_int_equal(tcmma_wgmma_operand_plan(bf16, TCMMA_OPERAND_A, 64, &d, &o, &err), TCMMA_INVALID);
  d = shared("bf16", false, -1);
  assert_int_equal(tcmma_wgmma_operand_plan(bf16, TCMMA_OPERAND_A, 64, &d, &o, &err), TCMMA_INVALID);
}

/* Operand op planned with panels of `rows` rows: TCMMA_OK expected. */
static tcmma_wgmma_operand paneled(const char *arm, tcmma_operand op, int n, tcmma_operand_desc d,
                                   long rows) {
  tcmma_wgmma_operand o;
  tcmma_error err = {0};
  if (tcmma_wgmma_operand_plan_panels(parse(arm), op, n, &d, rows, &o, &err) != TCMMA_OK)
    fail_msg("%s %s n %d, panels of %ld rows: %s", arm, tcmma_operand_name(op), n, rows,
             err.message);
  return o;
}

static void expect_panel_decline(tcmma_operand op, int n, tcmma_operand_desc d, long rows,
                                 tcmma_decline why, const char *says) {
  tcmma_wgmma_operand o;
  tcmma_error err = {0};
  assert_int_equal(tcmma_wgmma_operand_plan_panels(parse("wgmma-bf16"), op, n, &d, rows, &o, &err),
                   TCMMA_DECLINED);
  if (o.reason != why || !strstr(o.message, says) || strcmp(err.message, o.message))
    fail_msg("panels of %ld rows: declined %s '%s', expected %s naming '%s'", rows,
             tcmma_decline_name(o.reason), o.message, tcmma_decline_name(why), says);
}

/* An N-major B of n 256 bf16 stored as 4 panels of 64 k rows of one
 * 128-byte span (the PTX ISA's LBO for MN-major swizzled layouts: from one
 * span-wide group of n to the next): LBO 64 x 128 = 8192 bytes, SBO 8 rows
 * (1024), a k16 step 16 rows (2048), imm-trans 1; an origin in panel 2, 16
 * rows down; an M-major A of m 64 f16 under a 64-byte swizzle, two spans of
 * 32 rows: LBO 32 x 64. What it cannot express declines naming the value. */
static void panel_major_operands(void **state) {
  (void)state;
  tcmma_wgmma_operand b = paneled("wgmma-bf16", TCMMA_OPERAND_B, 256, shared("bf16", false, 64), 64);
  long start, lbo, sbo;
  int base;
  tcmma_swizzle sw;
  tcmma_wgmma_desc_decode(b.desc, &start, &lbo, &sbo, &base, &sw);
  assert_true(start == 0 && lbo == 8192 && sbo == 1024 && base == 0 && sw == TCMMA_SWIZZLE_B128);
  assert_true(b.desc == 0x4000004002000000ull && b.trans && b.k_step_bytes == 2048);
  tcmma_operand_desc o = shared("bf16", false, 64);
  o.col0.value = 128, o.row0.value = 16;
  assert_int_equal(paneled("wgmma-bf16", TCMMA_OPERAND_B, 128, o, 64).origin_bytes,
                   2 * 64 * 128 + 16 * 128);
  tcmma_operand_desc a = shared("f16", true, 32);
  a.swizzle = TCMMA_SWIZZLE_B64;
  tcmma_wgmma_operand am = paneled("wgmma-f16", TCMMA_OPERAND_A, 64, a, 32);
  tcmma_wgmma_desc_decode(am.desc, &start, &lbo, &sbo, &base, &sw);
  assert_true(lbo == 32 * 64 && sbo == 8 * 64 && am.trans && sw == TCMMA_SWIZZLE_B64);
  /* without panels: one span only (the plain plan's decline) */
  expect_panel_decline(TCMMA_OPERAND_B, 256, shared("bf16", false, 64), 0, TCMMA_DECLINE_LAYOUT,
                       "256 elements");
  /* panels off the 8-row atom, a K-major operand's, negative */
  expect_panel_decline(TCMMA_OPERAND_B, 256, shared("bf16", false, 64), 12, TCMMA_DECLINE_LAYOUT,
                       "panels of 12 rows");
  expect_panel_decline(TCMMA_OPERAND_B, 256, shared("bf16", true, 64), 64, TCMMA_DECLINE_LAYOUT,
                       "K-major");
  expect_panel_decline(TCMMA_OPERAND_B, 256, shared("bf16", false, 64), -8, TCMMA_DECLINE_LAYOUT,
                       "panels of -8 rows");
  /* an origin mid-panel, or moving by a step that is no whole panel (its
   * panel not a constant distance away) */
  o = shared("bf16", false, 64);
  o.col0.value = 32;
  expect_panel_decline(TCMMA_OPERAND_B, 128, o, 64, TCMMA_DECLINE_SUBTILE, "column 32");
  o.col0.value = 64, o.col0.expr = "w * 32", o.col0.multiple = 32;
  expect_panel_decline(TCMMA_OPERAND_B, 128, o, 64, TCMMA_DECLINE_SUBTILE, "step 32");
  /* an instruction's k past a panel of 8 rows; from row 56 of 64 */
  expect_panel_decline(TCMMA_OPERAND_B, 128, shared("bf16", false, 64), 8, TCMMA_DECLINE_LAYOUT,
                       "k 16 from row 0");
  o = shared("bf16", false, 64);
  o.row0.value = 56;
  expect_panel_decline(TCMMA_OPERAND_B, 128, o, 64, TCMMA_DECLINE_LAYOUT, "k 16 from row 56");
}

/* The tile product reads panels from the call (b_panel_rows): one
 * descriptor for n 256, LBO in its bits, imm-trans-b 1; a call whose size
 * stops before the panels reads none (declined: wider than a span); the
 * call's k past a panel declines (an M-major A, whose k is rows: fits). */
static void tile_product_reads_panels(void **state) {
  (void)state;
  tcmma_wgmma_call c = TCMMA_WGMMA_CALL_INIT(.arm = parse("wgmma-bf16"), .n = 256, .k = 64,
                                             .a = shared("bf16", false, 64),
                                             .b = shared("bf16", false, 64), .b_panel_rows = 64);
  tcmma_buf t = {0};
  tcmma_error err = {0};
  if (tcmma_wgmma_render(&c, &t, &err) != TCMMA_OK) fail_msg("%s", err.message);
  const char *want[] = {"N-major, 128-byte swizzle, panels of 64 rows", "0x4000004002000000",
                        "m64n256k16", ", 1, 1, 0, 1;"};
  for (size_t i = 0; i < sizeof want / sizeof want[0]; i++)
    if (!strstr(tcmma_buf_str(&t), want[i])) fail_msg("no '%s' in\n%s", want[i], tcmma_buf_str(&t));
  tcmma_buf_free(&t);
  c.size = offsetof(tcmma_wgmma_call, a_panel_rows);
  assert_int_equal(tcmma_wgmma_render(&c, &t, &err), TCMMA_DECLINED);
  assert_non_null(strstr(err.message, "256 elements along n"));
  tcmma_buf_free(&t);
  c.size = sizeof c, c.k = 80, c.a = shared("bf16", true, 64); /* a's k rows: any */
  assert_int_equal(tcmma_wgmma_render(&c, &t, &err), TCMMA_DECLINED);
  assert_non_null(strstr(err.message, "k 80 from row 0"));
  tcmma_buf_free(&t);
}

static bool sm90a(int arch, char suffix, void *ctx) {
  (void)ctx;
  return suffix != 'f' && (suffix == 0 || arch == 90 || arch >= 100);
}
static bool no_a(int arch, char suffix, void *ctx) {
  (void)arch, (void)ctx;
  return suffix == 0;
}

/* A source carrying a wgmma marker compiles for compute_90a and nothing else. */
static void marker_asks_for_sm_90a(void **state) {
  (void)state;
  const char *src = "/* tile product (wgmma-bf16) */";
  tcmma_arch_support s = {{75, 80, 86, 89, 90, 100, 120}, 7, sm90a, NULL};
  tcmma_arch_options o;
  tcmma_error err = {0};
  assert_int_equal(tcmma_arch_decide(src, strlen(src), 0, TCMMA_TARGET_FLOOR, &s, &o, &err), TCMMA_OK);
  assert_string_equal(o.option, "--gpu-architecture=compute_90a");
  assert_int_equal(tcmma_arch_decide(src, strlen(src), 90, TCMMA_TARGET_NATIVE, &s, &o, &err),
                   TCMMA_OK);
  assert_string_equal(o.option, "--gpu-architecture=compute_90a");
  assert_int_not_equal(tcmma_arch_decide(src, strlen(src), 100, TCMMA_TARGET_NATIVE, &s, &o, &err),
                       TCMMA_OK);
  assert_int_not_equal(tcmma_arch_decide(src, strlen(src), 89, TCMMA_TARGET_NATIVE, &s, &o, &err),
                       TCMMA_OK);
  tcmma_arch_support plain = {{75, 80, 86, 89, 90, 100, 120}, 7, no_a, NULL};
  assert_int_equal(tcmma_arch_decide(src, strlen(src), 0, TCMMA_TARGET_FLOOR, &plain, &o, &err),
                   TCMMA_UNAVAILABLE);
  tcmma_marker_hit hits[4];
  int floor = 0;
  assert_int_equal(tcmma_source_markers(src, strlen(src), hits, 4, &floor), 1);
  assert_int_equal(floor, 90);
  assert_string_equal(hits[0].text, "(wgmma-bf16)");
  assert_int_equal(hits[0].suffix, TCMMA_PTX_SUFFIX_A);
}

/* tcmma layout shows the accumulator of the warpgroup, from the table. */
static void layout_command_shows_the_accumulator(void **state) {
  (void)state;
  cli_result r = run_cli((const char *const[]){"layout", "wgmma-bf16", "c", "--n", "16", NULL}, NULL);
  assert_int_equal(r.exit_code, 0);
  /* header plus 128 threads x 8 registers */
  size_t lines = 0;
  for (const char *p = r.out; *p; p++) lines += *p == '\n';
  assert_int_equal(lines, 1 + 128 * 8);
  assert_non_null(strstr(r.out, "THREAD"));
  cli_result_free(&r);
  r = run_cli((const char *const[]){"layout", "wgmma-f16-acc16", "c", "--n", "8", "--json", NULL},
              NULL);
  assert_int_equal(r.exit_code, 0);
  /* thread 127's last element: row 63, column 7 */
  const char *last = strstr(r.out, "\"thread\": 127");
  assert_non_null(last);
  while (strstr(last + 1, "\"thread\": 127")) last = strstr(last + 1, "\"thread\": 127");
  assert_int_equal(json_int_of(last, "row"), 63);
  assert_int_equal(json_int_of(last, "col"), 7);
  cli_result_free(&r);
  r = run_cli((const char *const[]){"layout", "wgmma-fp8", "a", NULL}, NULL);
  assert_int_equal(r.exit_code, 0);
  lines = 0;
  for (const char *p = r.out; *p; p++) lines += *p == '\n';
  assert_int_equal(lines, 1 + 128 * 4 * 4); /* 4 registers of 4 bytes */
  cli_result_free(&r);
  const char *const bad[][6] = {{"layout", "wgmma-s8", "c", "--n", "40", NULL},
                                {"layout", "wgmma-s8", "b", NULL},
                                {"layout", "mma-f16", "c", "--n", "16", NULL},
                                {"layout", "wgmma-bf16", "c", "--n", "x", NULL}};
  const char *says[] = {"--n 40", "expected a (from registers) or c", "fixed tile", "--n"};
  for (int i = 0; i < 4; i++) {
    r = run_cli(bad[i], NULL);
    assert_int_equal(r.exit_code, 2);
    if (!strstr(r.err, says[i])) fail_msg("case %d: '%s' lacks '%s'", i, r.err, says[i]);
    cli_result_free(&r);
  }
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(every_row_and_only_those),
      cmocka_unit_test(precisions_each_row_takes),
      cmocka_unit_test(opcodes_spell_the_ptx),
      cmocka_unit_test(accumulator_covers_the_tile_once),
      cmocka_unit_test(accumulator_cells_by_hand),
      cmocka_unit_test(register_a_fragment),
      cmocka_unit_test(descriptor_bits_by_hand),
      cmocka_unit_test(descriptors_from_layouts),
      cmocka_unit_test(what_a_descriptor_cannot_express),
      cmocka_unit_test(panel_major_operands),
      cmocka_unit_test(tile_product_reads_panels),
      cmocka_unit_test(marker_asks_for_sm_90a),
      cmocka_unit_test(layout_command_shows_the_accumulator),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
