/* Resolution against the table of docs/design.md §4, written out here as code
 * independently of tables/resolve.def: every triple of every precision, every
 * policy, both scopes, and the cc values a reader cares about. */
#include <stdio.h>
#include <string.h>
#include "util.h"
#include "tcmma/tcmma.h"

enum { F64, F32, F16, BF16, E4M3, E5M2, MXE4M3, MXE5M2, S8, U8, S32, E2M1, E2M3, E3M2, UE4M3,
       MXF4, NVF4, MXE2M3, MXE3M2, NPREC };
static const char *const prec_names[NPREC] = {
    "f64", "f32", "f16",   "bf16", "e4m3", "e5m2", "mxe4m3", "mxe5m2", "s8",     "u8",
    "s32", "e2m1", "e2m3", "e3m2", "ue4m3", "mxf4", "nvf4",  "mxe2m3", "mxe3m2"};

/* The arms with their floors (docs/design.md §3); mma-mxfp8 runs on 12.x only. */
static const struct {
  const char *marker;
  int floor;
  bool family12;
} arms[] = {{"mma-f16", 80, false},       {"mma-f16-k8", 75, false},    {"mma-f16-acc16", 80, false},
            {"mma-bf16", 80, false},      {"mma-tf32", 80, false},      {"mma-fp8", 89, false},
            {"mma-fp8-acc16", 89, false}, {"mma-mxfp8", 120, true},     {"wmma-f16", 70, false},
            {"wmma-f16f32", 70, false},   {"wmma-f16-wide", 70, false}, {"wmma-bf16", 80, false},
            {"wmma-tf32", 80, false},     {"mma-s8", 80, false},        {"mma-s8-sat", 80, false},
            {"mma-f64", 80, false},       {"mma-f8f6f4", 120, true},    {"mma-mxf4", 120, true},
            {"mma-nvf4", 120, true}};
enum { MMA_F16, MMA_F16_K8, MMA_F16_ACC16, MMA_BF16, MMA_TF32, MMA_FP8, MMA_FP8_ACC16,
       MMA_MXFP8, WMMA_F16, WMMA_F16F32, WMMA_F16_WIDE, WMMA_BF16, WMMA_TF32, MMA_S8, MMA_S8_SAT,
       MMA_F64, MMA_F8F6F4, MMA_MXF4, MMA_NVF4, NONE = -1 };
enum { LIST_MAX = 3 };

static const int ccs[] = {0, 70, 75, 80, 86, 89, 90, 100, 120, 121};

typedef struct {
  bool narrow, tf32, wmma, saturate;
} policy;

static int set_list(int list[LIST_MAX], int a, int b, int c) {
  list[0] = a, list[1] = b, list[2] = c;
  return (a != NONE) + (b != NONE) + (c != NONE);
}

/* The design table: the preference list of (d, a, b) under pol in scope
 * (fragment when frag). Returns its length (0: "anything else"). */
static int design_list(int d, int a, int b, policy pol, bool frag, int list[LIST_MAX]) {
  set_list(list, NONE, NONE, NONE);
  bool fp8 = (a == E4M3 || a == E5M2) && (b == E4M3 || b == E5M2);
  /* kind::f8f6f4 and kind::mxf8f6f4 take fp8, fp6 and fp4 in any mix; the
   * plain fp8 pairs keep mma-fp8 (any device from 8.9) */
  bool f864 = (a == E4M3 || a == E5M2 || a == E2M1 || a == E2M3 || a == E3M2) &&
              (b == E4M3 || b == E5M2 || b == E2M1 || b == E2M3 || b == E3M2);
  bool mx = (a == MXE4M3 || a == MXE5M2 || a == MXF4 || a == MXE2M3 || a == MXE3M2) &&
            (b == MXE4M3 || b == MXE5M2 || b == MXF4 || b == MXE2M3 || b == MXE3M2);
  if (d == F16 && a == F16 && b == F16) {
    if (pol.narrow && pol.wmma) return set_list(list, WMMA_F16, NONE, NONE);
    if (pol.narrow) return set_list(list, MMA_F16_ACC16, WMMA_F16, NONE);
    return set_list(list, MMA_F16, MMA_F16_K8, frag ? WMMA_F16_WIDE : NONE);
  }
  if (d == F32 && a == F16 && b == F16) {
    if (pol.wmma) return set_list(list, WMMA_F16F32, NONE, NONE);
    return set_list(list, MMA_F16, MMA_F16_K8, WMMA_F16F32);
  }
  if (d == BF16 && a == BF16 && b == BF16) return set_list(list, MMA_BF16, NONE, NONE);
  if (d == F32 && a == BF16 && b == BF16) {
    if (pol.wmma) return set_list(list, WMMA_BF16, NONE, NONE);
    return set_list(list, MMA_BF16, WMMA_BF16, NONE);
  }
  if (d == F32 && a == F32 && b == F32) {
    if (!pol.tf32) return 0;
    if (pol.wmma) return set_list(list, WMMA_TF32, NONE, NONE);
    return set_list(list, MMA_TF32, WMMA_TF32, NONE);
  }
  if (d == F16 && fp8 && pol.narrow) return set_list(list, MMA_FP8_ACC16, NONE, NONE);
  if ((d == F32 || d == F16 || d == BF16) && fp8) return set_list(list, MMA_FP8, NONE, NONE);
  /* MXFP4 pairs prefer the packed m16n8k64 arm; NVFP4 has only it */
  if (d == F32 && a == MXF4 && b == MXF4) return set_list(list, MMA_MXF4, MMA_MXFP8, NONE);
  if (d == F32 && a == NVF4 && b == NVF4) return set_list(list, MMA_NVF4, NONE, NONE);
  if (d == F32 && mx) return set_list(list, MMA_MXFP8, NONE, NONE);
  if (d == F32 && f864) return set_list(list, MMA_F8F6F4, NONE, NONE);
  if (d == F64 && a == F64 && b == F64) return set_list(list, MMA_F64, NONE, NONE);
  if (d == S32 && (a == S8 || a == U8) && (b == S8 || b == U8))
    return set_list(list, pol.saturate ? MMA_S8_SAT : MMA_S8, NONE, NONE);
  return 0;
}

static bool design_runs(int arm, int cc) {
  if (cc == 0) return true;
  if (arms[arm].family12) return cc / 10 == 12;
  return cc >= arms[arm].floor;
}

static tcmma_prec prec(int i) {
  tcmma_prec p;
  if (tcmma_prec_parse(prec_names[i], &p, NULL) != TCMMA_OK) fail_msg("precision %d", i);
  return p;
}

static void every_triple_policy_scope_and_cc(void **state) {
  (void)state;
  int resolved = 0, floors = 0, none = 0;
  for (int d = 0; d < NPREC; d++)
    for (int a = 0; a < NPREC; a++)
      for (int b = 0; b < NPREC; b++)
        for (int p = 0; p < 16; p++) {
          policy pol = {p & 1, (p & 2) != 0, (p & 4) != 0, (p & 8) != 0};
          tcmma_numerics num = tcmma_numerics_default();
          num.fp16 = pol.narrow ? TCMMA_FP16_NARROW : TCMMA_FP16_WIDE;
          num.tf32 = pol.tf32;
          num.prefer = pol.wmma ? TCMMA_PREFER_WMMA : TCMMA_PREFER_PTX;
          num.saturate = pol.saturate;
          tcmma_triple t = {prec(d), prec(a), prec(b)};
          for (int frag = 0; frag < 2; frag++)
            for (size_t c = 0; c < sizeof ccs / sizeof ccs[0]; c++) {
              int list[LIST_MAX], n = design_list(d, a, b, pol, frag, list), want = NONE;
              for (int i = 0; i < n && want == NONE; i++)
                if (design_runs(list[i], ccs[c])) want = list[i];
              tcmma_status want_s = n == 0 ? TCMMA_NO_ARM : want == NONE ? TCMMA_FLOOR : TCMMA_OK;
              tcmma_arm got = (tcmma_arm)42;
              tcmma_error err;
              tcmma_error_clear(&err);
              tcmma_status s = tcmma_resolve(
                  t, &num, frag ? TCMMA_SCOPE_FRAGMENT : TCMMA_SCOPE_STATEMENT, ccs[c], &got, &err);
              const char *want_m = want == NONE ? "none" : arms[want].marker;
              if (s != want_s || strcmp(tcmma_arm_marker(got), want_m) != 0)
                fail_msg("%s = %s x %s, fp16 %s tf32 %d prefer %s, %s scope, cc %d: got %s (%s), "
                         "expected %s (%s); %s",
                         prec_names[d], prec_names[a], prec_names[b], pol.narrow ? "narrow" : "wide",
                         pol.tf32, pol.wmma ? "wmma" : "ptx", frag ? "fragment" : "statement",
                         ccs[c], tcmma_arm_marker(got), tcmma_status_name(s), want_m,
                         tcmma_status_name(want_s), err.message);
              if (s == TCMMA_OK) {
                resolved++;
                continue;
              }
              assert_int_equal(got, TCMMA_ARM_NONE);
              assert_int_equal(err.status, s);
              /* the reason names the triple, and for a floor the cc and the arms */
              char triple[64];
              snprintf(triple, sizeof triple, "%s = %s x %s", prec_names[d], prec_names[a],
                       prec_names[b]);
              assert_non_null(strstr(err.message, triple));
              if (s == TCMMA_FLOOR) {
                floors++;
                char ccs_text[16];
                snprintf(ccs_text, sizeof ccs_text, "cc %d", ccs[c]);
                assert_non_null(strstr(err.message, ccs_text));
                for (int i = 0; i < n; i++) assert_non_null(strstr(err.message, arms[list[i]].marker));
              } else {
                none++;
              }
            }
        }
  /* the loops above reached every kind of outcome */
  assert_true(resolved > 0 && floors > 0 && none > 0);
}

/* A few rows spelled out, so a reader sees the table in the test. */
static void named_rows(void **state) {
  (void)state;
  const struct {
    int d, a, b;
    policy pol;
    bool frag;
    int cc;
    const char *want;
  } rows[] = {
      {F16, F16, F16, {false, false, false}, false, 0, "mma-f16"},
      {F16, F16, F16, {false, false, false}, true, 70, "wmma-f16-wide"},
      {F16, F16, F16, {false, false, false}, false, 70, NULL},
      {F16, F16, F16, {false, false, false}, false, 75, "mma-f16-k8"},
      {F16, F16, F16, {true, false, false}, false, 80, "mma-f16-acc16"},
      {F16, F16, F16, {true, false, false}, true, 75, "wmma-f16"},
      {F16, F16, F16, {true, false, true}, false, 90, "wmma-f16"},
      {F16, E4M3, E5M2, {true, false, false}, false, 89, "mma-fp8-acc16"},
      {F16, E4M3, E5M2, {false, false, false}, false, 89, "mma-fp8"},
      {BF16, E4M3, E5M2, {true, false, false}, false, 89, "mma-fp8"},
      {S32, S8, U8, {false, false, false}, false, 80, "mma-s8"},
      {S32, U8, U8, {false, false, false, true}, true, 90, "mma-s8-sat"},
      {S32, S8, S8, {false, false, false}, false, 75, NULL},
      {F32, S8, S8, {false, false, false}, false, 80, NULL},
      {F32, F16, F16, {false, false, false}, false, 75, "mma-f16-k8"},
      {F32, F16, F16, {false, false, false}, true, 70, "wmma-f16f32"},
      {F32, F32, F32, {false, true, false}, false, 0, "mma-tf32"},
      {F32, F32, F32, {false, true, true}, true, 90, "wmma-tf32"},
      {F32, F16, F16, {false, false, false}, true, 86, "mma-f16"},
      {F32, F16, F16, {false, false, true}, false, 90, "wmma-f16f32"},
      {BF16, BF16, BF16, {false, false, true}, true, 75, NULL},
      {F32, BF16, BF16, {false, false, false}, false, 80, "mma-bf16"},
      {F32, F32, F32, {false, false, false}, false, 90, NULL},
      {F32, F32, F32, {false, true, false}, true, 80, "mma-tf32"},
      {BF16, E5M2, E4M3, {false, false, false}, false, 89, "mma-fp8"},
      {F32, E4M3, E4M3, {false, false, false}, false, 86, NULL},
      {F32, MXE4M3, MXE4M3, {false, false, false}, false, 0, "mma-mxfp8"},
      {F32, MXE5M2, MXE4M3, {false, false, false}, true, 121, "mma-mxfp8"},
      {F32, MXE4M3, MXE5M2, {false, false, false}, false, 100, NULL},
      {F32, MXE4M3, E4M3, {false, false, false}, false, 120, NULL},
      {F64, F64, F64, {false, false, false}, false, 90, "mma-f64"},
      {F64, F64, F64, {true, true, true}, true, 75, NULL},
      {F16, MXE5M2, MXE5M2, {false, false, false}, false, 120, NULL},
      {F32, E2M1, E2M1, {false, false, false}, false, 120, "mma-f8f6f4"},
      {F32, E4M3, E3M2, {false, false, false}, true, 121, "mma-f8f6f4"},
      {F32, E2M3, E2M1, {false, false, false}, false, 100, NULL},
      {F16, E2M1, E2M1, {false, false, false}, false, 120, NULL},
      {F32, MXF4, MXE2M3, {false, false, false}, false, 120, "mma-mxfp8"},
      {F32, NVF4, NVF4, {false, false, false}, false, 120, "mma-nvf4"},
      {F32, MXF4, MXF4, {false, false, false}, true, 121, "mma-mxf4"},
      {F32, NVF4, MXF4, {false, false, false}, false, 120, NULL},
  };
  for (size_t i = 0; i < sizeof rows / sizeof rows[0]; i++) {
    tcmma_numerics num = {rows[i].pol.narrow ? TCMMA_FP16_NARROW : TCMMA_FP16_WIDE,
                          rows[i].pol.tf32, rows[i].pol.wmma ? TCMMA_PREFER_WMMA : TCMMA_PREFER_PTX,
                          rows[i].pol.saturate};
    tcmma_arm got;
    tcmma_status s = tcmma_resolve((tcmma_triple){prec(rows[i].d), prec(rows[i].a), prec(rows[i].b)},
                                   &num, rows[i].frag ? TCMMA_SCOPE_FRAGMENT : TCMMA_SCOPE_STATEMENT,
                                   rows[i].cc, &got, NULL);
    if (rows[i].want) {
      assert_int_equal(s, TCMMA_OK);
      assert_string_equal(tcmma_arm_marker(got), rows[i].want);
    } else {
      assert_int_not_equal(s, TCMMA_OK);
      assert_int_equal(got, TCMMA_ARM_NONE);
    }
  }
}

static void tf32_refusal_says_what_to_change(void **state) {
  (void)state;
  tcmma_error err;
  tcmma_arm got;
  tcmma_triple t = {prec(F32), prec(F32), prec(F32)};
  assert_int_equal(tcmma_resolve(t, NULL, TCMMA_SCOPE_STATEMENT, 80, &got, &err), TCMMA_NO_ARM);
  assert_non_null(strstr(err.message, "tf32"));
}

static void default_policy_and_null_policy_agree(void **state) {
  (void)state;
  tcmma_numerics def = tcmma_numerics_default();
  assert_int_equal(def.fp16, TCMMA_FP16_WIDE);
  assert_false(def.tf32);
  assert_int_equal(def.prefer, TCMMA_PREFER_PTX);
  assert_false(def.saturate);
  tcmma_triple t = {prec(F16), prec(F16), prec(F16)};
  tcmma_arm x, y;
  assert_int_equal(tcmma_resolve(t, NULL, TCMMA_SCOPE_FRAGMENT, 70, &x, NULL), TCMMA_OK);
  assert_int_equal(tcmma_resolve(t, &def, TCMMA_SCOPE_FRAGMENT, 70, &y, NULL), TCMMA_OK);
  assert_int_equal(x, y);
  assert_string_equal(tcmma_arm_marker(x), "wmma-f16-wide");
  assert_int_equal(tcmma_resolve(t, NULL, TCMMA_SCOPE_FRAGMENT, 70, NULL, NULL), TCMMA_OK);
}

static void bad_input(void **state) {
  (void)state;
  tcmma_triple ok = {prec(F32), prec(F16), prec(F16)};
  tcmma_triple bad_t[] = {{(tcmma_prec)-1, prec(F16), prec(F16)},
                          {prec(F32), TCMMA_PREC_COUNT, prec(F16)},
                          {prec(F32), prec(F16), (tcmma_prec)99}};
  tcmma_error err;
  tcmma_arm got;
  for (size_t i = 0; i < 3; i++) {
    got = (tcmma_arm)3;
    assert_int_equal(tcmma_resolve(bad_t[i], NULL, TCMMA_SCOPE_STATEMENT, 80, &got, &err),
                     TCMMA_INVALID);
    assert_int_equal(got, TCMMA_ARM_NONE);
    assert_non_null(strstr(err.message, "precision"));
  }
  assert_int_equal(tcmma_resolve(ok, NULL, (tcmma_scope)2, 80, &got, &err), TCMMA_INVALID);
  assert_non_null(strstr(err.message, "scope"));
  assert_int_equal(tcmma_resolve(ok, NULL, (tcmma_scope)-1, 80, &got, &err), TCMMA_INVALID);
  const int bad_cc[] = {-1, 5, 1000, 99999};
  for (size_t i = 0; i < sizeof bad_cc / sizeof bad_cc[0]; i++) {
    assert_int_equal(tcmma_resolve(ok, NULL, TCMMA_SCOPE_STATEMENT, bad_cc[i], &got, &err),
                     TCMMA_INVALID);
    assert_non_null(strstr(err.message, "compute capability"));
  }
  tcmma_numerics pol = tcmma_numerics_default();
  pol.fp16 = (tcmma_fp16_mode)5;
  assert_int_equal(tcmma_resolve(ok, &pol, TCMMA_SCOPE_STATEMENT, 80, &got, &err), TCMMA_INVALID);
  assert_non_null(strstr(err.message, "fp16"));
  pol = tcmma_numerics_default();
  pol.prefer = (tcmma_prefer)-3;
  assert_int_equal(tcmma_resolve(ok, &pol, TCMMA_SCOPE_STATEMENT, 80, &got, NULL), TCMMA_INVALID);
}

static void policy_and_scope_names(void **state) {
  (void)state;
  tcmma_fp16_mode m = TCMMA_FP16_WIDE;
  tcmma_prefer p = TCMMA_PREFER_PTX;
  tcmma_scope s = TCMMA_SCOPE_STATEMENT;
  tcmma_error err;
  assert_int_equal(tcmma_fp16_mode_parse("narrow", &m, &err), TCMMA_OK);
  assert_int_equal(m, TCMMA_FP16_NARROW);
  assert_int_equal(tcmma_fp16_mode_parse("wide", &m, &err), TCMMA_OK);
  assert_int_equal(m, TCMMA_FP16_WIDE);
  assert_int_equal(tcmma_prefer_parse("wmma", &p, &err), TCMMA_OK);
  assert_int_equal(p, TCMMA_PREFER_WMMA);
  assert_int_equal(tcmma_scope_parse("fragment", &s, &err), TCMMA_OK);
  assert_int_equal(s, TCMMA_SCOPE_FRAGMENT);
  assert_string_equal(tcmma_scope_name(TCMMA_SCOPE_STATEMENT), "statement");
  assert_string_equal(tcmma_scope_name((tcmma_scope)9), "?");
  const char *bad[] = {"", "Wide", "narrow ", "half", NULL};
  for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
    assert_int_equal(tcmma_fp16_mode_parse(bad[i], &m, &err), TCMMA_INVALID);
    assert_non_null(strstr(err.message, "wide or narrow"));
    assert_int_equal(tcmma_prefer_parse(bad[i], &p, &err), TCMMA_INVALID);
    assert_non_null(strstr(err.message, "ptx or wmma"));
    assert_int_equal(tcmma_scope_parse(bad[i], &s, &err), TCMMA_INVALID);
    assert_non_null(strstr(err.message, "statement or fragment"));
  }
  assert_int_equal(m, TCMMA_FP16_WIDE); /* failures leave the output alone */
  assert_int_equal(tcmma_fp16_mode_parse("wide", NULL, NULL), TCMMA_OK);
  assert_int_equal(tcmma_prefer_parse("ptx", NULL, NULL), TCMMA_OK);
  assert_int_equal(tcmma_scope_parse("statement", NULL, NULL), TCMMA_OK);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(every_triple_policy_scope_and_cc),
      cmocka_unit_test(named_rows),
      cmocka_unit_test(tf32_refusal_says_what_to_change),
      cmocka_unit_test(default_policy_and_null_policy_agree),
      cmocka_unit_test(bad_input),
      cmocka_unit_test(policy_and_scope_names),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
