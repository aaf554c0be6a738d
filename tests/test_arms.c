/* Arm facts against the arm table of docs/design.md §3, written out here independently of
 * tables/arms.def. */
#include <stdio.h>
#include <string.h>
#include "util.h"
#include "tcmma/tcmma.h"
#include "tools/cli_parse.h"

enum rule { NEVER, BOTH, A_ROW_B_T };

static const struct {
  const char *marker, *form;
  int m, n, k, floor;
  bool family;
  const char *acc;
  enum rule ldm;
  bool converted_dest, tf32;
  int scale_block;
} design[] = {
    {"mma-f16", "ptx", 16, 8, 16, 80, false, "f32", BOTH, false, false, 0},
    {"mma-f16-k8", "ptx", 16, 8, 8, 75, false, "f32", BOTH, false, false, 0},
    {"mma-f16-acc16", "ptx", 16, 8, 16, 80, false, "f16", BOTH, false, false, 0},
    {"mma-bf16", "ptx", 16, 8, 16, 80, false, "f32", BOTH, false, false, 0},
    {"mma-tf32", "ptx", 16, 8, 8, 80, false, "f32", A_ROW_B_T, false, true, 0},
    {"mma-fp8", "ptx", 16, 8, 32, 89, false, "f32", A_ROW_B_T, false, false, 0},
    {"mma-fp8-acc16", "ptx", 16, 8, 32, 89, false, "f16", A_ROW_B_T, false, false, 0},
    {"mma-mxfp8", "ptx", 16, 8, 32, 120, true, "f32", A_ROW_B_T, false, false, 32},
    {"mma-s8", "ptx", 16, 8, 32, 80, false, "s32", A_ROW_B_T, false, false, 0},
    {"mma-s8-sat", "ptx", 16, 8, 32, 80, false, "s32", A_ROW_B_T, false, false, 0},
    {"mma-f64", "ptx", 8, 8, 4, 80, false, "f64", NEVER, false, false, 0},
    {"wmma-f16", "wmma", 16, 16, 16, 70, false, "f16", NEVER, false, false, 0},
    {"wmma-f16f32", "wmma", 16, 16, 16, 70, false, "f32", NEVER, false, false, 0},
    {"wmma-f16-wide", "wmma", 16, 16, 16, 70, false, "f32", NEVER, true, false, 0},
    {"wmma-bf16", "wmma", 16, 16, 16, 80, false, "f32", NEVER, false, false, 0},
    {"wmma-tf32", "wmma", 16, 16, 8, 80, false, "f32", NEVER, false, true, 0},
    {"mma-f8f6f4", "ptx", 16, 8, 32, 120, true, "f32", A_ROW_B_T, false, false, 0},
    {"mma-mxf4", "ptx", 16, 8, 64, 120, true, "f32", NEVER, false, false, 32},
    {"mma-nvf4", "ptx", 16, 8, 64, 120, true, "f32", NEVER, false, false, 16},
};
#define NEXPECTED (int)(sizeof design / sizeof design[0])

static const int ccs[] = {0, 70, 75, 80, 86, 89, 90, 100, 120, 121, 130};

static tcmma_arm arm_of(const char *marker) {
  tcmma_arm a = TCMMA_ARM_NONE;
  tcmma_error err;
  if (tcmma_arm_parse(marker, &a, &err) != TCMMA_OK) fail_msg("%s", err.message);
  return a;
}

/* Does the design's arm row i run on a device of cc? Family arms (12.x) run
 * only on cc 120 and 121 among the values tested. */
static bool design_runs(int i, int cc) {
  if (cc == 0) return true;
  if (design[i].family) return cc == 120 || cc == 121;
  return cc >= design[i].floor;
}

static void every_design_arm_and_only_those(void **state) {
  (void)state;
  assert_int_equal(TCMMA_ARM_COUNT, NEXPECTED);
  for (int i = 0; i < NEXPECTED; i++) {
    const tcmma_arm_info *a = tcmma_arm_get(arm_of(design[i].marker));
    assert_non_null(a);
    assert_string_equal(a->marker, design[i].marker);
    assert_string_equal(tcmma_arm_marker(a->id), design[i].marker);
    assert_string_equal(tcmma_form_name(a->form), design[i].form);
    assert_int_equal(a->m, design[i].m);
    assert_int_equal(a->n, design[i].n);
    assert_int_equal(a->k, design[i].k);
    assert_int_equal(a->floor, design[i].floor);
    assert_int_equal(a->family, design[i].family);
    assert_string_equal(tcmma_prec_name(a->acc), design[i].acc);
    assert_false(tcmma_arm_reloads(a->id)); /* every body loads each fragment once per k */
    assert_int_equal(a->tf32, design[i].tf32);
    assert_int_equal(a->scale_block, design[i].scale_block);
    assert_string_equal(a->header, a->form == TCMMA_FORM_WMMA ? "mma.h" : "");
    assert_int_equal(a->converted_dest, design[i].converted_dest);
  }
}

static void ldmatrix_operands_follow_the_rule(void **state) {
  (void)state;
  for (int i = 0; i < NEXPECTED; i++) {
    tcmma_arm arm = arm_of(design[i].marker);
    for (int bits = 0; bits < 16; bits++) {
      bool ae = bits & 1, at = bits & 2, be = bits & 4, bt = bits & 8;
      bool want_a = false, want_b = false;
      if (design[i].ldm == BOTH) want_a = ae, want_b = be;
      if (design[i].ldm == A_ROW_B_T) want_a = ae && !at, want_b = be && bt;
      bool got_a = !want_a, got_b = !want_b;
      tcmma_arm_ldmatrix_operands(arm, ae, at, be, bt, &got_a, &got_b);
      assert_int_equal(got_a, want_a);
      assert_int_equal(got_b, want_b);
    }
  }
  bool a = true, b = true;
  tcmma_arm_ldmatrix_operands(TCMMA_ARM_NONE, true, false, true, true, &a, &b);
  assert_false(a);
  assert_false(b);
  tcmma_arm_ldmatrix_operands(arm_of("mma-f16"), true, false, true, true, NULL, NULL);
  assert_string_equal(tcmma_ldmatrix_rule_text(TCMMA_LDMATRIX_NEVER), "never");
  assert_string_equal(tcmma_ldmatrix_rule_text((tcmma_ldmatrix_rule)9), "?");
}

static void instructions_spell_the_ptx(void **state) {
  (void)state;
  const struct {
    const char *arm, *a, *b, *want;
  } cases[] = {
      {"mma-f16", "f16", "f16", "mma.sync.aligned.m16n8k16.row.col.f32.f16.f16.f32"},
      {"mma-bf16", "bf16", "bf16", "mma.sync.aligned.m16n8k16.row.col.f32.bf16.bf16.f32"},
      {"mma-f16-k8", "f16", "f16", "mma.sync.aligned.m16n8k8.row.col.f32.f16.f16.f32"},
      {"mma-tf32", "f32", "f32", "mma.sync.aligned.m16n8k8.row.col.f32.tf32.tf32.f32"},
      {"mma-f16-acc16", "f16", "f16", "mma.sync.aligned.m16n8k16.row.col.f16.f16.f16.f16"},
      {"mma-s8", "s8", "u8", "mma.sync.aligned.m16n8k32.row.col.s32.s8.u8.s32"},
      {"mma-s8-sat", "u8", "u8", "mma.sync.aligned.m16n8k32.row.col.satfinite.s32.u8.u8.s32"},
      {"mma-f64", "f64", "f64", "mma.sync.aligned.m8n8k4.row.col.f64.f64.f64.f64"},
      {"mma-fp8-acc16", "e5m2", "e4m3", "mma.sync.aligned.m16n8k32.row.col.f16.e5m2.e4m3.f16"},
      {"mma-fp8", "e4m3", "e4m3", "mma.sync.aligned.m16n8k32.row.col.f32.e4m3.e4m3.f32"},
      {"mma-fp8", "e4m3", "e5m2", "mma.sync.aligned.m16n8k32.row.col.f32.e4m3.e5m2.f32"},
      {"mma-fp8", "e5m2", "e4m3", "mma.sync.aligned.m16n8k32.row.col.f32.e5m2.e4m3.f32"},
      {"mma-fp8", "e5m2", "e5m2", "mma.sync.aligned.m16n8k32.row.col.f32.e5m2.e5m2.f32"},
      {"mma-mxfp8", "mxe4m3", "mxe4m3",
       "mma.sync.aligned.kind::mxf8f6f4.block_scale.scale_vec::1X.m16n8k32.row.col.f32.e4m3."
       "e4m3.f32.ue8m0"},
      {"mma-mxfp8", "mxe5m2", "mxe4m3",
       "mma.sync.aligned.kind::mxf8f6f4.block_scale.scale_vec::1X.m16n8k32.row.col.f32.e5m2."
       "e4m3.f32.ue8m0"},
      {"mma-mxfp8", "mxf4", "mxe3m2",
       "mma.sync.aligned.kind::mxf8f6f4.block_scale.scale_vec::1X.m16n8k32.row.col.f32.e2m1."
       "e3m2.f32.ue8m0"},
      {"mma-mxf4", "mxf4", "mxf4",
       "mma.sync.aligned.kind::mxf4nvf4.block_scale.scale_vec::2X.m16n8k64.row.col.f32.e2m1."
       "e2m1.f32.ue8m0"},
      {"mma-nvf4", "nvf4", "nvf4",
       "mma.sync.aligned.kind::mxf4nvf4.block_scale.scale_vec::4X.m16n8k64.row.col.f32.e2m1."
       "e2m1.f32.ue4m3"},
      {"mma-f8f6f4", "e2m1", "e2m1",
       "mma.sync.aligned.kind::f8f6f4.m16n8k32.row.col.f32.e2m1.e2m1.f32"},
      {"mma-f8f6f4", "e4m3", "e2m3",
       "mma.sync.aligned.kind::f8f6f4.m16n8k32.row.col.f32.e4m3.e2m3.f32"},
  };
  for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
    tcmma_prec a, b;
    char buf[256];
    tcmma_error err;
    assert_int_equal(tcmma_prec_parse(cases[i].a, &a, NULL), TCMMA_OK);
    assert_int_equal(tcmma_prec_parse(cases[i].b, &b, NULL), TCMMA_OK);
    assert_int_equal(tcmma_arm_instruction(arm_of(cases[i].arm), a, b, buf, sizeof buf, &err),
                     TCMMA_OK);
    assert_string_equal(buf, cases[i].want);
    /* one byte short of the text and its NUL overflows, exactly enough fits */
    size_t need = strlen(cases[i].want) + 1;
    assert_int_equal(tcmma_arm_instruction(arm_of(cases[i].arm), a, b, buf, need - 1, &err),
                     TCMMA_OVERFLOW);
    assert_int_equal(tcmma_arm_instruction(arm_of(cases[i].arm), a, b, buf, need, &err),
                     TCMMA_OK);
  }
}

static void instruction_bad_input(void **state) {
  (void)state;
  char buf[128];
  tcmma_error err;
  assert_int_equal(tcmma_arm_instruction(arm_of("wmma-f16"), TCMMA_PREC_F16, TCMMA_PREC_F16, buf,
                                         sizeof buf, &err),
                   TCMMA_INVALID);
  assert_non_null(strstr(err.message, "wmma-f16"));
  assert_int_equal(tcmma_arm_instruction(TCMMA_ARM_NONE, TCMMA_PREC_F16, TCMMA_PREC_F16, buf,
                                         sizeof buf, &err),
                   TCMMA_INVALID);
  assert_int_equal(tcmma_arm_instruction(TCMMA_ARM_COUNT, TCMMA_PREC_F16, TCMMA_PREC_F16, buf,
                                         sizeof buf, &err),
                   TCMMA_INVALID);
  assert_int_equal(tcmma_arm_instruction(arm_of("mma-f16"), (tcmma_prec)-1, TCMMA_PREC_F16, buf,
                                         sizeof buf, &err),
                   TCMMA_INVALID);
  assert_int_equal(tcmma_arm_instruction(arm_of("mma-f16"), TCMMA_PREC_F16, TCMMA_PREC_COUNT,
                                         buf, sizeof buf, &err),
                   TCMMA_INVALID);
  assert_int_equal(tcmma_arm_instruction(arm_of("mma-f16"), TCMMA_PREC_F16, TCMMA_PREC_F16, NULL,
                                         sizeof buf, &err),
                   TCMMA_INVALID);
  assert_int_equal(tcmma_arm_instruction(arm_of("mma-f16"), TCMMA_PREC_F16, TCMMA_PREC_F16, NULL,
                                         0, &err),
                   TCMMA_INVALID);
}

static void arm_names_and_bad_markers(void **state) {
  (void)state;
  const char *bad[] = {"MMA-F16", "mma", "", "wmma-f16 ", "mma_f16", "none"};
  for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
    tcmma_arm a = arm_of("mma-f16");
    tcmma_error err;
    assert_int_equal(tcmma_arm_parse(bad[i], &a, &err), TCMMA_INVALID);
    assert_int_equal(a, TCMMA_ARM_NONE);
    char quoted[64];
    snprintf(quoted, sizeof quoted, "'%s'", bad[i]);
    assert_non_null(strstr(err.message, quoted));
    for (int j = 0; j < NEXPECTED; j++) assert_non_null(strstr(err.message, design[j].marker));
  }
  assert_int_equal(tcmma_arm_parse(NULL, NULL, NULL), TCMMA_INVALID);
  assert_null(tcmma_arm_get(TCMMA_ARM_NONE));
  assert_null(tcmma_arm_get(TCMMA_ARM_COUNT));
  assert_string_equal(tcmma_arm_marker(TCMMA_ARM_NONE), "none");
  assert_string_equal(tcmma_arm_marker((tcmma_arm)99), "none");
  assert_string_equal(tcmma_form_name((tcmma_form)7), "?");
}

static void runs_on_floors_and_family(void **state) {
  (void)state;
  for (int i = 0; i < NEXPECTED; i++)
    for (size_t c = 0; c < sizeof ccs / sizeof ccs[0]; c++)
      if (tcmma_arm_runs_on(arm_of(design[i].marker), ccs[c]) != design_runs(i, ccs[c]))
        fail_msg("%s on cc %d: expected %d", design[i].marker, ccs[c], design_runs(i, ccs[c]));
  assert_false(tcmma_arm_runs_on(TCMMA_ARM_NONE, 80));
  assert_false(tcmma_arm_runs_on(arm_of("wmma-f16"), -1));
  assert_false(tcmma_arm_runs_on(arm_of("wmma-f16"), 99999));
}

static void descriptor_lists_the_runnable_arms(void **state) {
  (void)state;
  for (size_t c = 0; c < sizeof ccs / sizeof ccs[0]; c++) {
    tcmma_arm got[TCMMA_ARM_COUNT + 1];
    size_t count = 12345;
    tcmma_error err;
    assert_int_equal(tcmma_descriptor(ccs[c], got, TCMMA_ARM_COUNT + 1, &count, &err), TCMMA_OK);
    size_t want = 0;
    for (int i = 0; i < NEXPECTED; i++)
      if (design_runs(i, ccs[c])) {
        assert_true(want < count);
        assert_string_equal(tcmma_arm_marker(got[want]), design[i].marker);
        want++;
      }
    assert_int_equal(count, want);
    /* a short buffer still reports the full count and never overruns */
    tcmma_arm one[1] = {TCMMA_ARM_NONE};
    size_t count2 = 0;
    assert_int_equal(tcmma_descriptor(ccs[c], one, 1, &count2, NULL), TCMMA_OK);
    assert_int_equal(count2, want);
    assert_int_equal(tcmma_descriptor(ccs[c], NULL, 0, &count2, NULL), TCMMA_OK);
    assert_int_equal(count2, want);
  }
  size_t count;
  assert_int_equal(tcmma_descriptor(60, NULL, 0, &count, NULL), TCMMA_OK);
  assert_int_equal(count, 0);
}

static void bad_compute_capabilities(void **state) {
  (void)state;
  const int bad[] = {-1, 1, 9, 1000, 99999, -80};
  for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
    tcmma_error err;
    size_t count = 7;
    tcmma_arm out[TCMMA_ARM_COUNT];
    assert_int_equal(tcmma_cc_check(bad[i], &err), TCMMA_INVALID);
    char num[32];
    snprintf(num, sizeof num, "%d", bad[i]);
    assert_non_null(strstr(err.message, num));
    assert_int_equal(tcmma_descriptor(bad[i], out, TCMMA_ARM_COUNT, &count, &err), TCMMA_INVALID);
    assert_int_equal(count, 7);
  }
  tcmma_error err;
  tcmma_arm out[2];
  assert_int_equal(tcmma_descriptor(80, out, 2, NULL, &err), TCMMA_INVALID);
  size_t count;
  assert_int_equal(tcmma_descriptor(80, NULL, 2, &count, &err), TCMMA_INVALID);
  assert_int_equal(tcmma_cc_check(0, NULL), TCMMA_OK);
  assert_int_equal(tcmma_cc_check(75, NULL), TCMMA_OK);
}

static void parse_compute_capabilities(void **state) {
  (void)state;
  const struct {
    const char *text;
    int want; /* -1: invalid */
  } cases[] = {{"80", 80}, {"0", 0}, {"121", 121}, {"10", 10}, {"999", 999}, {"abc", -1},
               {"", -1}, {"-1", -1}, {"99999", -1}, {"8x", -1}, {" 80", -1}, {"80 ", -1},
               {"+80", -1}, {"8.0", -1}, {"5", -1}, {"1000", -1}, {"99999999999999999999", -1}};
  for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
    int cc = -7;
    tcmma_error err;
    tcmma_status s = cli_parse_cc(cases[i].text, &cc, &err);
    if (cases[i].want < 0) {
      assert_int_equal(s, TCMMA_INVALID);
      assert_int_equal(cc, -7);
      assert_non_null(strstr(err.message, "compute capability"));
    } else {
      assert_int_equal(s, TCMMA_OK);
      assert_int_equal(cc, cases[i].want);
    }
  }
  tcmma_error err;
  assert_int_equal(cli_parse_cc(NULL, NULL, &err), TCMMA_INVALID);
  assert_non_null(strstr(err.message, "(null)"));
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(every_design_arm_and_only_those),
      cmocka_unit_test(ldmatrix_operands_follow_the_rule),
      cmocka_unit_test(instructions_spell_the_ptx),
      cmocka_unit_test(instruction_bad_input),
      cmocka_unit_test(arm_names_and_bad_markers),
      cmocka_unit_test(runs_on_floors_and_family),
      cmocka_unit_test(descriptor_lists_the_runnable_arms),
      cmocka_unit_test(bad_compute_capabilities),
      cmocka_unit_test(parse_compute_capabilities),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
