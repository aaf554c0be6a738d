/* Fragment layouts against the PTX ISA's per-element formulas (docs/design.md §7),
 * written here element by element: g = lane>>2, q = lane&3; element i of a
 * fragment lives in register i / (elements per register), at index
 * i % (elements per register) inside it. */
#include <stdio.h>
#include <string.h>
#include "util.h"
#include "tcmma/tcmma.h"

/* m16n8k16 (f16, bf16). A: a0..a7; B: b0..b3; C/D: c0..c3. */
static void k16_a(int lane, int i, int *row, int *col) {
  int g = lane >> 2, q = lane & 3;
  *row = (i == 0 || i == 1 || i == 4 || i == 5) ? g : g + 8;
  *col = 2 * q + (i & 1) + 8 * (i >= 4);
}
static void k16_b(int lane, int i, int *row, int *col) {
  int g = lane >> 2, q = lane & 3;
  *row = 2 * q + (i & 1) + 8 * (i >= 2); /* k */
  *col = g;                              /* n */
}
static void mn_c(int lane, int i, int *row, int *col) {
  int g = lane >> 2, q = lane & 3;
  *row = g + 8 * (i >= 2);
  *col = 2 * q + (i & 1);
}
/* m16n8k32 fp8. A: a0..a15; B: b0..b7; C/D as m16n8k16. */
static void k32_a(int lane, int i, int *row, int *col) {
  int g = lane >> 2, q = lane & 3;
  *row = (i <= 3 || (i >= 8 && i <= 11)) ? g : g + 8;
  *col = 4 * q + (i & 3) + 16 * (i >= 8);
}
static void k32_b(int lane, int i, int *row, int *col) {
  int g = lane >> 2, q = lane & 3;
  *row = 4 * q + (i & 3) + 16 * (i >= 4);
  *col = g;
}

/* m16n8k8 f16: A a0,a1 row g, a2,a3 row g+8, col 2q + (i & 1); B b0,b1 at
 * k = 2q + i. tf32: A a0,a2 row g, a1,a3 g+8, col q (a0,a1) or q+4; B b0 at
 * k = q, b1 at q+4. C/D as m16n8k16. */
static void k8_a(int lane, int i, int *row, int *col) {
  int g = lane >> 2, q = lane & 3;
  *row = i < 2 ? g : g + 8;
  *col = 2 * q + (i & 1);
}
static void k8_b(int lane, int i, int *row, int *col) {
  *row = 2 * (lane & 3) + i;
  *col = lane >> 2;
}
static void tf32_a(int lane, int i, int *row, int *col) {
  int g = lane >> 2, q = lane & 3;
  *row = (i == 0 || i == 2) ? g : g + 8;
  *col = i < 2 ? q : q + 4;
}
static void tf32_b(int lane, int i, int *row, int *col) {
  *row = (lane & 3) + (i ? 4 : 0);
  *col = lane >> 2;
}

/* m8n8k4 f64: A a0 (row laneid >> 2, col laneid % 4); B b0 (row laneid % 4,
 * col laneid >> 2); C c0, c1 at row groupID, col 2q + i. */
static void f64_a(int lane, int i, int *row, int *col) {
  (void)i;
  *row = lane >> 2, *col = lane % 4;
}
static void f64_b(int lane, int i, int *row, int *col) {
  (void)i;
  *row = lane % 4, *col = lane >> 2;
}
static void f64_c(int lane, int i, int *row, int *col) {
  *row = lane >> 2, *col = 2 * (lane & 3) + i;
}

typedef void (*formula)(int lane, int i, int *row, int *col);

static const struct {
  const char *arm;
  const char *op;
  int elems;    /* elements per lane */
  int per_reg;  /* elements per 32-bit register */
  int rows, cols; /* the operand tile: A m x k, B k x n, C m x n */
  formula f;
} cases[] = {
    {"mma-f16", "a", 8, 2, 16, 16, k16_a},   {"mma-f16", "b", 4, 2, 16, 8, k16_b},
    {"mma-f16", "c", 4, 1, 16, 8, mn_c},     {"mma-bf16", "a", 8, 2, 16, 16, k16_a},
    {"mma-bf16", "b", 4, 2, 16, 8, k16_b},   {"mma-bf16", "c", 4, 1, 16, 8, mn_c},
    {"mma-fp8", "a", 16, 4, 16, 32, k32_a},  {"mma-fp8", "b", 8, 4, 32, 8, k32_b},
    {"mma-fp8", "c", 4, 1, 16, 8, mn_c},     {"mma-mxfp8", "a", 16, 4, 16, 32, k32_a},
    {"mma-mxfp8", "b", 8, 4, 32, 8, k32_b},  {"mma-mxfp8", "c", 4, 1, 16, 8, mn_c},
    {"mma-f16-k8", "a", 4, 2, 16, 8, k8_a},  {"mma-f16-k8", "b", 2, 2, 8, 8, k8_b},
    {"mma-f16-k8", "c", 4, 1, 16, 8, mn_c},  {"mma-tf32", "a", 4, 1, 16, 8, tf32_a},
    {"mma-tf32", "b", 2, 1, 8, 8, tf32_b},   {"mma-tf32", "c", 4, 1, 16, 8, mn_c},
    /* f16 accumulators: c0, c1 in one .f16x2 register, c2, c3 in the next */
    {"mma-f16-acc16", "a", 8, 2, 16, 16, k16_a}, {"mma-f16-acc16", "c", 4, 2, 16, 8, mn_c},
    {"mma-fp8-acc16", "b", 8, 4, 32, 8, k32_b},  {"mma-fp8-acc16", "c", 4, 2, 16, 8, mn_c},
    /* m16n8k32 .s8/.u8 as fp8; s32 accumulators as f32 */
    {"mma-s8", "a", 16, 4, 16, 32, k32_a},   {"mma-s8", "b", 8, 4, 32, 8, k32_b},
    {"mma-s8", "c", 4, 1, 16, 8, mn_c},      {"mma-s8-sat", "a", 16, 4, 16, 32, k32_a},
    {"mma-f64", "a", 1, 1, 8, 4, f64_a},     {"mma-f64", "b", 1, 1, 4, 8, f64_b},
    {"mma-f64", "c", 2, 1, 8, 8, f64_c},
};
#define NCASES (sizeof cases / sizeof cases[0])

static tcmma_arm arm_of(const char *m) {
  tcmma_arm a;
  if (tcmma_arm_parse(m, &a, NULL) != TCMMA_OK) fail_msg("arm %s", m);
  return a;
}
static tcmma_operand op_of(const char *s) {
  tcmma_operand o;
  if (tcmma_operand_parse(s, &o, NULL) != TCMMA_OK) fail_msg("operand %s", s);
  return o;
}

static void every_element_matches_the_isa(void **state) {
  (void)state;
  for (size_t c = 0; c < NCASES; c++) {
    tcmma_arm arm = arm_of(cases[c].arm);
    tcmma_operand op = op_of(cases[c].op);
    assert_int_equal(tcmma_fragment_elems_per_reg(arm, op), cases[c].per_reg);
    assert_int_equal(tcmma_fragment_regs(arm, op), cases[c].elems / cases[c].per_reg);
    for (int lane = 0; lane < 32; lane++)
      for (int i = 0; i < cases[c].elems; i++) {
        int want_r, want_c, row = -1, col = -1;
        cases[c].f(lane, i, &want_r, &want_c);
        tcmma_error err;
        if (tcmma_fragment_layout(arm, op, lane, i / cases[c].per_reg, i % cases[c].per_reg, &row,
                                  &col, &err) != TCMMA_OK)
          fail_msg("%s %s lane %d element %d: %s", cases[c].arm, cases[c].op, lane, i, err.message);
        if (row != want_r || col != want_c)
          fail_msg("%s %s lane %d element %d: (%d,%d), PTX ISA says (%d,%d)", cases[c].arm,
                   cases[c].op, lane, i, row, col, want_r, want_c);
      }
  }
}

/* The 32 lanes together hold every element of the operand tile exactly once. */
static void each_tile_element_held_once(void **state) {
  (void)state;
  for (size_t c = 0; c < NCASES; c++) {
    tcmma_arm arm = arm_of(cases[c].arm);
    tcmma_operand op = op_of(cases[c].op);
    int regs = tcmma_fragment_regs(arm, op), per = tcmma_fragment_elems_per_reg(arm, op);
    int hits[32][32] = {{0}};
    assert_int_equal(32 * regs * per, cases[c].rows * cases[c].cols);
    for (int lane = 0; lane < 32; lane++)
      for (int r = 0; r < regs; r++)
        for (int e = 0; e < per; e++) {
          int row, col;
          assert_int_equal(tcmma_fragment_layout(arm, op, lane, r, e, &row, &col, NULL), TCMMA_OK);
          assert_in_range(row, 0, cases[c].rows - 1);
          assert_in_range(col, 0, cases[c].cols - 1);
          hits[row][col]++;
        }
    for (int row = 0; row < cases[c].rows; row++)
      for (int col = 0; col < cases[c].cols; col++)
        if (hits[row][col] != 1)
          fail_msg("%s %s: (%d,%d) held %d times", cases[c].arm, cases[c].op, row, col,
                   hits[row][col]);
  }
}

static void wmma_layouts_are_opaque(void **state) {
  (void)state;
  const char *wmma[] = {"wmma-f16", "wmma-f16f32", "wmma-f16-wide", "wmma-bf16", "wmma-tf32"};
  for (size_t i = 0; i < sizeof wmma / sizeof wmma[0]; i++) {
    tcmma_error err;
    int row = -5, col = -5;
    assert_int_equal(tcmma_fragment_layout(arm_of(wmma[i]), TCMMA_OPERAND_A, 0, 0, 0, &row, &col,
                                           &err),
                     TCMMA_INVALID);
    assert_non_null(strstr(err.message, wmma[i]));
    assert_non_null(strstr(err.message, "opaque"));
    assert_int_equal(row, -5);
    assert_int_equal(tcmma_fragment_regs(arm_of(wmma[i]), TCMMA_OPERAND_C), 0);
    assert_int_equal(tcmma_fragment_elems_per_reg(arm_of(wmma[i]), TCMMA_OPERAND_B), 0);
  }
}

static void bad_indices(void **state) {
  (void)state;
  tcmma_arm f16 = arm_of("mma-f16"), fp8 = arm_of("mma-fp8");
  const struct {
    tcmma_arm arm;
    tcmma_operand op;
    int lane, reg, elem;
  } bad[] = {
      {f16, TCMMA_OPERAND_A, -1, 0, 0}, {f16, TCMMA_OPERAND_A, 32, 0, 0},
      {f16, TCMMA_OPERAND_A, 0, 4, 0},  {f16, TCMMA_OPERAND_A, 0, -1, 0},
      {f16, TCMMA_OPERAND_A, 0, 0, 2},  {f16, TCMMA_OPERAND_B, 0, 2, 0},
      {f16, TCMMA_OPERAND_C, 0, 0, 1},  {fp8, TCMMA_OPERAND_A, 0, 0, 4},
      {fp8, TCMMA_OPERAND_B, 0, 0, -1}, {f16, (tcmma_operand)3, 0, 0, 0},
      {f16, (tcmma_operand)-1, 0, 0, 0}, {TCMMA_ARM_NONE, TCMMA_OPERAND_A, 0, 0, 0},
      {TCMMA_ARM_COUNT, TCMMA_OPERAND_A, 0, 0, 0},
  };
  for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
    tcmma_error err;
    tcmma_error_clear(&err);
    assert_int_equal(tcmma_fragment_layout(bad[i].arm, bad[i].op, bad[i].lane, bad[i].reg,
                                           bad[i].elem, NULL, NULL, &err),
                     TCMMA_INVALID);
    assert_true(err.message[0] != '\0');
  }
  assert_int_equal(tcmma_fragment_regs(TCMMA_ARM_NONE, TCMMA_OPERAND_A), 0);
  assert_int_equal(tcmma_fragment_regs(f16, (tcmma_operand)7), 0);
  /* NULL outputs are allowed */
  assert_int_equal(tcmma_fragment_layout(f16, TCMMA_OPERAND_A, 5, 1, 1, NULL, NULL, NULL), TCMMA_OK);
}

static void operand_names(void **state) {
  (void)state;
  tcmma_operand o = TCMMA_OPERAND_C;
  tcmma_error err;
  assert_int_equal(tcmma_operand_parse("a", &o, &err), TCMMA_OK);
  assert_int_equal(o, TCMMA_OPERAND_A);
  assert_string_equal(tcmma_operand_name(TCMMA_OPERAND_B), "b");
  assert_string_equal(tcmma_operand_name((tcmma_operand)9), "?");
  const char *bad[] = {"A", "d", "", "ab", NULL};
  for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
    assert_int_equal(tcmma_operand_parse(bad[i], &o, &err), TCMMA_INVALID);
    assert_non_null(strstr(err.message, "expected a, b or c"));
  }
  assert_int_equal(o, TCMMA_OPERAND_A);
  assert_int_equal(tcmma_operand_parse("c", NULL, NULL), TCMMA_OK);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(every_element_matches_the_isa),
      cmocka_unit_test(each_tile_element_held_once),
      cmocka_unit_test(wmma_layouts_are_opaque),
      cmocka_unit_test(bad_indices),
      cmocka_unit_test(operand_names),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
