/* Architecture options: marker rules, floor raise, native clamp, family
 * targets, the target setting and scopes. Expected floors are docs/design.md §8's
 * numbers written here, not read from the tables under test. Decisions run
 * against made-up NVRTC arch lists so they do not depend on the toolkit. */
#include "util.h"
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "tcmma/tcmma.h"

static tcmma_arch_options decide_ok(const char *src, int cc, tcmma_target t,
                                    const tcmma_arch_support *s) {
  tcmma_arch_options o;
  tcmma_error err = {0};
  tcmma_status st = tcmma_arch_decide(src, strlen(src), cc, t, s, &o, &err);
  if (st != TCMMA_OK) fail_msg("'%s' cc %d: %s", src, cc, err.message);
  return o;
}

static tcmma_status decide_err(const char *src, int cc, tcmma_target t,
                               const tcmma_arch_support *s, tcmma_error *err) {
  tcmma_arch_options o;
  return tcmma_arch_decide(src, strlen(src), cc, t, s, &o, err);
}

/* NVRTC 13.0's numeric list (docs/design.md §8), in a made-up order to show the
 * decision does not rely on NVRTC sorting it. */
static bool with_af(int arch, char suffix, void *ctx) {
  (void)ctx;
  return arch >= 100 && (suffix == 'a' || suffix == 'f');
}
static bool with_a_only(int arch, char suffix, void *ctx) {
  (void)ctx;
  return arch >= 100 && suffix == 'a';
}
static bool with_none(int arch, char suffix, void *ctx) {
  (void)arch, (void)suffix, (void)ctx;
  return false;
}
static tcmma_arch_support cuda13(bool (*accepts)(int, char, void *)) {
  tcmma_arch_support s = {{80, 75, 86, 87, 88, 89, 90, 100, 103, 110, 120, 121}, 12, accepts, NULL};
  return s;
}

static void test_each_marker_floor(void **state) {
  (void)state;
  static const struct { const char *src; int floor; } cases[] = {
      {"/* (mma-f16) */", 80},        {"/* (mma-bf16) */", 80},
      {"/* (mma-fp8) */", 89},        {"/* (mma-mxfp8) */", 120},
      {"/* (wmma-f16) */", 70},       {"/* (wmma-f16f32) */", 70},
      {"/* (wmma-f16-wide) */", 70},  {"/* (wmma-bf16) */", 80},
      {"/* (wmma-tf32) */", 80},      {"using namespace nvcuda::wmma;", 70},
      {"asm(\"cp.async.cg.shared.global [%0], [%1], 16;\");", 80},
      {"__half h = a * b;", 53},      {"__nv_bfloat16 x = y + z;", 75},
  };
  for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
    tcmma_marker_hit hits[4];
    int floor = -1;
    size_t n = tcmma_source_markers(cases[i].src, strlen(cases[i].src), hits, 4, &floor);
    if (n != 1 || floor != cases[i].floor)
      fail_msg("'%s': %zu markers, floor %d; expected 1 marker at %d", cases[i].src, n, floor,
               cases[i].floor);
    assert_int_equal(hits[0].floor, cases[i].floor);
    assert_non_null(strstr(cases[i].src, hits[0].text));
  }
  /* Every arm of the table is a marker at its own floor, found alone. */
  for (int i = 0; i < TCMMA_ARM_COUNT; i++) {
    const tcmma_arm_info *a = tcmma_arm_get((tcmma_arm)i);
    char src[64];
    snprintf(src, sizeof src, "// rendering (%s)\n", a->marker);
    tcmma_marker_hit hits[4];
    int floor = -1;
    assert_int_equal(tcmma_source_markers(src, strlen(src), hits, 4, &floor), 1);
    assert_int_equal(floor, a->floor);
    assert_int_equal(hits[0].family, a->family);
  }
  /* Every other marker likewise, by its row of tables/markers.def, written
   * as the row says: a tag in a comment, a name in code (called with the
   * arguments it needs). */
  for (int i = 0; i < TCMMA_MARKER_COUNT; i++) {
    const char *text = tcmma_marker_text((tcmma_marker)i);
    char src[64];
    snprintf(src, sizeof src, tcmma_marker_is_tag((tcmma_marker)i) ? "/* (%s) */" : "%s x;", text);
    int args = tcmma_marker_min_args((tcmma_marker)i);
    if (args) {
      size_t n = (size_t)snprintf(src, sizeof src, "%s(1", text);
      for (int k = 1; k < args; k++) n += (size_t)snprintf(src + n, sizeof src - n, ", 1");
      snprintf(src + n, sizeof src - n, ") x;");
    }
    tcmma_marker_hit hits[4];
    int floor = -1;
    assert_int_equal(tcmma_source_markers(src, strlen(src), hits, 4, &floor), 1);
    assert_int_equal(floor, tcmma_marker_floor((tcmma_marker)i));
    assert_string_equal(hits[0].text, text);
  }
  assert_int_equal(tcmma_marker_floor(TCMMA_MARKER_CP_ASYNC), 80);
  assert_string_equal(tcmma_marker_text(TCMMA_MARKER_COUNT), "");
  assert_int_equal(tcmma_marker_floor((tcmma_marker)-1), 0);
}

static void test_markers_exact(void **state) {
  (void)state;
  static const char *const misses[] = {
      "(mma-bf16x)", "(mma-bf16", "mma-bf16)", "(xmma-f16)", "(wmma-f16-wider)",
      "__half2 h;", "my__half x;", "__half_raw r;", "nvcuda::wmmax", "xnvcuda::wmma::f",
      "cp.async;", "__nv_bfloat162 v;", "(MMA-BF16)", "",
  };
  for (size_t i = 0; i < sizeof misses / sizeof misses[0]; i++) {
    int floor = -1;
    size_t n = tcmma_source_markers(misses[i], strlen(misses[i]), NULL, 0, &floor);
    if (n != 0 || floor != 0) fail_msg("'%s' matched %zu markers (floor %d)", misses[i], n, floor);
  }
  /* Markers at the very start and end of the text, and a length that stops
   * before a marker, which must then not be seen. */
  int floor = 0;
  assert_int_equal(tcmma_source_markers("__half", 6, NULL, 0, &floor), 1);
  assert_int_equal(floor, 53);
  assert_int_equal(tcmma_source_markers("(mma-fp8)", 8, NULL, 0, &floor), 0);
  assert_int_equal(tcmma_source_markers(NULL, 10, NULL, 0, &floor), 0);
}

static void test_highest_floor_wins(void **state) {
  (void)state;
  const char *src = "__half a; // (wmma-f16)\n// (mma-fp8) cp.async.ca\n";
  tcmma_marker_hit hits[8];
  int floor = 0;
  /* __half, (wmma-f16), (mma-fp8): words in a comment are no marker */
  assert_int_equal(tcmma_source_markers(src, strlen(src), hits, 8, &floor), 3);
  assert_int_equal(floor, 89);
  assert_int_equal(hits[2].line, 2);
  /* cap smaller than what is found: the count and floor are still whole. */
  assert_int_equal(tcmma_source_markers(src, strlen(src), hits, 1, &floor), 3);
  assert_int_equal(floor, 89);
}

static void test_floor_raise(void **state) {
  (void)state;
  tcmma_arch_support s = cuda13(with_af);
  tcmma_arch_options o = decide_ok("__half x;", 0, TCMMA_TARGET_FLOOR, &s);
  assert_string_equal(o.option, "--gpu-architecture=compute_75");
  assert_int_equal(o.floor, 53);
  assert_non_null(strstr(o.note, "raised"));
  o = decide_ok("nvcuda::wmma::fragment", 0, TCMMA_TARGET_FLOOR, &s);
  assert_string_equal(o.option, "--gpu-architecture=compute_75");
  o = decide_ok("// (mma-fp8)", 0, TCMMA_TARGET_FLOOR, &s);
  assert_string_equal(o.option, "--gpu-architecture=compute_89");
  assert_string_equal(o.note, "");
  o = decide_ok("int x;", 0, TCMMA_TARGET_FLOOR, &s);
  assert_string_equal(o.option, "");
  assert_int_equal(o.floor, 0);
  assert_int_equal(o.n_markers, 0);
  /* An NVRTC whose lowest arch is 80 raises the wmma floor to 80; one without
   * 89 raises fp8 to the next arch it has. */
  tcmma_arch_support newer = {{80, 90, 100}, 3, NULL, NULL};
  o = decide_ok("nvcuda::wmma", 0, TCMMA_TARGET_FLOOR, &newer);
  assert_string_equal(o.option, "--gpu-architecture=compute_80");
  o = decide_ok("(mma-fp8)", 0, TCMMA_TARGET_FLOOR, &newer);
  assert_string_equal(o.option, "--gpu-architecture=compute_90");
  tcmma_arch_support old = {{75, 80}, 2, NULL, NULL};
  tcmma_error err;
  assert_int_equal(decide_err("(mma-fp8)", 0, TCMMA_TARGET_FLOOR, &old, &err), TCMMA_UNAVAILABLE);
  assert_non_null(strstr(err.message, "89"));
  tcmma_arch_support empty = {{0}, 0, NULL, NULL};
  assert_int_equal(decide_err("x", 0, TCMMA_TARGET_FLOOR, &empty, &err), TCMMA_UNAVAILABLE);
}

static void test_native_clamp(void **state) {
  (void)state;
  tcmma_arch_support s = cuda13(with_af);
  tcmma_arch_options o = decide_ok("// (mma-bf16)", 86, TCMMA_TARGET_NATIVE, &s);
  assert_string_equal(o.option, "--gpu-architecture=compute_86");
  assert_string_equal(o.note, "");
  o = decide_ok("// (mma-bf16)", 85, TCMMA_TARGET_NATIVE, &s);
  assert_string_equal(o.option, "--gpu-architecture=compute_80");
  assert_non_null(strstr(o.note, "clamped"));
  o = decide_ok("int x;", 130, TCMMA_TARGET_NATIVE, &s);
  assert_string_equal(o.option, "--gpu-architecture=compute_121");
  assert_non_null(strstr(o.note, "130"));
  o = decide_ok("int x;", 75, TCMMA_TARGET_NATIVE, &s);
  assert_string_equal(o.option, "--gpu-architecture=compute_75");
  tcmma_error err;
  assert_int_equal(decide_err("int x;", 70, TCMMA_TARGET_NATIVE, &s, &err), TCMMA_FLOOR);
  assert_non_null(strstr(err.message, "70"));
  assert_non_null(strstr(err.message, "75"));
  assert_int_equal(decide_err("int x;", 70, TCMMA_TARGET_FLOOR, &s, &err), TCMMA_FLOOR);
  assert_int_equal(decide_err("int x;", 0, TCMMA_TARGET_NATIVE, &s, &err), TCMMA_INVALID);
  assert_int_equal(decide_err("int x;", 80, TCMMA_TARGET_CURRENT, &s, &err), TCMMA_INVALID);
  assert_int_equal(decide_err("int x;", -5, TCMMA_TARGET_FLOOR, &s, &err), TCMMA_INVALID);
}

static void test_floor_above_device(void **state) {
  (void)state;
  tcmma_arch_support s = cuda13(with_af);
  tcmma_error err;
  assert_int_equal(decide_err("// (mma-fp8)", 86, TCMMA_TARGET_FLOOR, &s, &err), TCMMA_FLOOR);
  assert_non_null(strstr(err.message, "89"));
  assert_non_null(strstr(err.message, "86"));
  assert_non_null(strstr(err.message, "(mma-fp8)"));
  assert_int_equal(decide_err("// (mma-bf16)", 75, TCMMA_TARGET_NATIVE, &s, &err), TCMMA_FLOOR);
  /* At the device's own cc the floor is fine. */
  tcmma_arch_options o = decide_ok("// (mma-fp8)", 89, TCMMA_TARGET_FLOOR, &s);
  assert_string_equal(o.option, "--gpu-architecture=compute_89");
}

static void test_family_targets(void **state) {
  (void)state;
  const char *src = "/* (mma-mxfp8) */";
  tcmma_arch_support af = cuda13(with_af), a_only = cuda13(with_a_only), none = cuda13(with_none);
  tcmma_arch_options o = decide_ok(src, 0, TCMMA_TARGET_FLOOR, &af);
  assert_string_equal(o.option, "--gpu-architecture=compute_120f");
  assert_int_equal(o.suffix, 'f');
  o = decide_ok(src, 121, TCMMA_TARGET_FLOOR, &af);
  assert_string_equal(o.option, "--gpu-architecture=compute_120f");
  o = decide_ok(src, 121, TCMMA_TARGET_NATIVE, &af);
  assert_string_equal(o.option, "--gpu-architecture=compute_121a");
  o = decide_ok(src, 120, TCMMA_TARGET_NATIVE, &af);
  assert_string_equal(o.option, "--gpu-architecture=compute_120a");
  /* No f targets: the arch-specific target of the device (or the floor). */
  o = decide_ok(src, 0, TCMMA_TARGET_FLOOR, &a_only);
  assert_string_equal(o.option, "--gpu-architecture=compute_120a");
  assert_non_null(strstr(o.note, "no family"));
  o = decide_ok(src, 121, TCMMA_TARGET_FLOOR, &a_only);
  assert_string_equal(o.option, "--gpu-architecture=compute_121a");
  tcmma_error err;
  assert_int_equal(decide_err(src, 0, TCMMA_TARGET_FLOOR, &none, &err), TCMMA_UNAVAILABLE);
  assert_int_equal(decide_err(src, 121, TCMMA_TARGET_NATIVE, &none, &err), TCMMA_UNAVAILABLE);
  /* Off the 12.x family: a clear error either way. */
  assert_int_equal(decide_err(src, 130, TCMMA_TARGET_NATIVE, &af, &err), TCMMA_INVALID);
  assert_non_null(strstr(err.message, "12.x"));
  assert_non_null(strstr(err.message, "130"));
  assert_int_equal(decide_err(src, 130, TCMMA_TARGET_FLOOR, &af, &err), TCMMA_INVALID);
  assert_int_equal(decide_err(src, 100, TCMMA_TARGET_NATIVE, &af, &err), TCMMA_FLOOR);
  assert_int_equal(decide_err(src, 90, TCMMA_TARGET_FLOOR, &af, &err), TCMMA_FLOOR);
  assert_int_equal(decide_err(src, 0, TCMMA_TARGET_NATIVE, &af, &err), TCMMA_INVALID);
}

static void test_target_parse(void **state) {
  (void)state;
  tcmma_target t = TCMMA_TARGET_CURRENT;
  tcmma_error err;
  assert_int_equal(tcmma_target_parse("floor", &t, &err), TCMMA_OK);
  assert_int_equal(t, TCMMA_TARGET_FLOOR);
  assert_int_equal(tcmma_target_parse("native", &t, &err), TCMMA_OK);
  assert_int_equal(t, TCMMA_TARGET_NATIVE);
  static const char *const bad[] = {"Floor", "", "native ", "nat", "current"};
  for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
    assert_int_equal(tcmma_target_parse(bad[i], &t, &err), TCMMA_INVALID);
    assert_non_null(strstr(err.message, "floor"));
    assert_non_null(strstr(err.message, "native"));
  }
  assert_int_equal(tcmma_target_parse(NULL, &t, &err), TCMMA_INVALID);
}

static void test_setting_from_env(void **state) {
  (void)state;
  tcmma_target t;
  tcmma_error err;
  assert_int_equal(tcmma_target_set(TCMMA_TARGET_CURRENT, &err), TCMMA_OK);
  unsetenv("TCMMA_PTX_TARGET");
  assert_int_equal(tcmma_target_current(&t, &err), TCMMA_OK);
  assert_int_equal(t, TCMMA_TARGET_FLOOR);
  setenv("TCMMA_PTX_TARGET", "native", 1);
  assert_int_equal(tcmma_target_current(&t, &err), TCMMA_OK);
  assert_int_equal(t, TCMMA_TARGET_NATIVE);
  setenv("TCMMA_PTX_TARGET", "sm_80", 1);
  assert_int_equal(tcmma_target_current(&t, &err), TCMMA_INVALID);
  assert_non_null(strstr(err.message, "sm_80"));
  assert_non_null(strstr(err.message, "floor"));
  assert_non_null(strstr(err.message, "native"));
  /* The programmatic setting overrides the variable; CURRENT hands back. */
  assert_int_equal(tcmma_target_set(TCMMA_TARGET_FLOOR, &err), TCMMA_OK);
  assert_int_equal(tcmma_target_current(&t, &err), TCMMA_OK);
  assert_int_equal(t, TCMMA_TARGET_FLOOR);
  assert_int_equal(tcmma_target_set(TCMMA_TARGET_CURRENT, &err), TCMMA_OK);
  assert_int_equal(tcmma_target_current(&t, &err), TCMMA_INVALID);
  assert_int_equal(tcmma_target_set((tcmma_target)7, &err), TCMMA_INVALID);
  unsetenv("TCMMA_PTX_TARGET");
}

static tcmma_target current(void) {
  tcmma_target t = TCMMA_TARGET_CURRENT;
  assert_int_equal(tcmma_target_current(&t, NULL), TCMMA_OK);
  return t;
}

static void test_scopes_nest(void **state) {
  (void)state;
  unsetenv("TCMMA_PTX_TARGET");
  tcmma_target_set(TCMMA_TARGET_CURRENT, NULL);
  tcmma_target_scope *outer = NULL, *inner = NULL, *third = NULL;
  assert_int_equal(tcmma_target_scope_begin(TCMMA_TARGET_NATIVE, &outer, NULL), TCMMA_OK);
  assert_int_equal(current(), TCMMA_TARGET_NATIVE);
  assert_int_equal(tcmma_target_scope_begin(TCMMA_TARGET_FLOOR, &inner, NULL), TCMMA_OK);
  assert_int_equal(current(), TCMMA_TARGET_FLOOR);
  /* A scope wins over the programmatic setting while it is open. */
  tcmma_target_set(TCMMA_TARGET_NATIVE, NULL);
  assert_int_equal(current(), TCMMA_TARGET_FLOOR);
  tcmma_target_set(TCMMA_TARGET_CURRENT, NULL);
  tcmma_records r;
  tcmma_target_scope_end(inner, &r);
  assert_int_equal(r.count, 0);
  assert_int_equal(current(), TCMMA_TARGET_NATIVE);
  /* Ending out of order: the innermost remaining scope rules. */
  assert_int_equal(tcmma_target_scope_begin(TCMMA_TARGET_FLOOR, &third, NULL), TCMMA_OK);
  tcmma_target_scope_end(outer, NULL);
  assert_int_equal(current(), TCMMA_TARGET_FLOOR);
  tcmma_target_scope_end(third, NULL);
  setenv("TCMMA_PTX_TARGET", "native", 1);
  assert_int_equal(current(), TCMMA_TARGET_NATIVE);
  unsetenv("TCMMA_PTX_TARGET");
  assert_int_equal(current(), TCMMA_TARGET_FLOOR);
  tcmma_error err;
  assert_int_equal(tcmma_target_scope_begin(TCMMA_TARGET_CURRENT, &third, &err), TCMMA_INVALID);
  assert_null(third);
  tcmma_target_scope_end(NULL, &r);
  assert_int_equal(r.count, 0);
}

static tcmma_status seen_target(void *arg) {
  return tcmma_target_current(arg, NULL);
}

static void test_with_target(void **state) {
  (void)state;
  tcmma_target inside = TCMMA_TARGET_CURRENT;
  tcmma_records r;
  assert_int_equal(tcmma_with_target(TCMMA_TARGET_NATIVE, seen_target, &inside, &r, NULL),
                   TCMMA_OK);
  assert_int_equal(inside, TCMMA_TARGET_NATIVE);
  assert_int_equal(r.count, 0);
  assert_int_equal(current(), TCMMA_TARGET_FLOOR);
  tcmma_error err;
  assert_int_equal(tcmma_with_target(TCMMA_TARGET_NATIVE, NULL, NULL, &r, &err), TCMMA_INVALID);
  tcmma_records_free(&r);
  tcmma_records_free(NULL);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_each_marker_floor), cmocka_unit_test(test_markers_exact),
      cmocka_unit_test(test_highest_floor_wins), cmocka_unit_test(test_floor_raise),
      cmocka_unit_test(test_native_clamp),       cmocka_unit_test(test_floor_above_device),
      cmocka_unit_test(test_family_targets),     cmocka_unit_test(test_target_parse),
      cmocka_unit_test(test_setting_from_env),   cmocka_unit_test(test_scopes_nest),
      cmocka_unit_test(test_with_target),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
