/* Markers the file carries where the first scanner did not look (issue 24):
 * asm in #define bodies ("seen in a macro"), asm instructions that are no
 * PTX instruction (listed as unknown, never dropped; a PTX instruction no
 * feature row matches needs nothing), a file-scope __CUDA_ARCH__
 * guard around an optional specialisation (raises nothing), and floors
 * never printed empty. The scans are pure; the CLI's marker answers
 * (--no-probe) need NVRTC's targets only. */
#include <stdio.h>
#include <string.h>
#include "util.h"
#include "tcmma/tcmma.h"

static tcmma_marker_hit hits[TCMMA_ARCH_MAX_MARKERS];

static size_t scan(const char *src, int *floor) {
  return tcmma_source_markers(src, strlen(src), hits, TCMMA_ARCH_MAX_MARKERS, floor);
}

static void asm_in_define_bodies_counts(void **state) {
  (void)state;
  int floor = -1;
  const char *src = "// ptx.h\n"
                    "#define CP_ASYNC_CG(dst, src) \\\n"
                    "  asm volatile(\"cp.async.cg.shared.global [%0], [%1], 16;\\n\" \\\n"
                    "               :: \"r\"(dst), \"l\"(src))\n"
                    "#define FENCE() asm volatile(\"wgmma.fence.sync.aligned;\" ::: \"memory\")\n";
  size_t n = scan(src, &floor);
  assert_int_equal(n, 2);
  assert_int_equal(hits[0].kind, TCMMA_HIT_MACRO);
  assert_string_equal(hits[0].text, "cp.async.cg.shared.global");
  assert_int_equal(hits[0].line, 3); /* the literal's line, after a continuation */
  assert_int_equal(hits[0].floor, 80);
  assert_int_equal(hits[1].kind, TCMMA_HIT_MACRO);
  assert_int_equal(hits[1].suffix, TCMMA_PTX_SUFFIX_A);
  assert_int_equal(floor, 90);
  /* an object-like macro's words are code too; a string in a #define is not */
  n = scan("#define FRAG_T __nv_bfloat16\n#define NAME \"nvcuda::wmma\"\n", &floor);
  assert_int_equal(n, 1);
  assert_string_equal(hits[0].text, "__nv_bfloat16");
  /* # and ## in a body are operators, not directives */
  n = scan("#define STR(x) #x\n#define CAT(a, b) a ## b\n#if 0\n#endif\n", &floor);
  assert_int_equal(n, 0);
  cli_result r = run_cli((const char *const[]){"options", "-", "--no-probe", NULL}, src);
  assert_int_equal(r.exit_code, 0);
  assert_non_null(strstr(r.out, "cp.async.cg.shared.global sm_80 (seen in a macro)"));
  assert_null(strstr(r.out, "no marker"));
  cli_result_free(&r);
}

static void unknown_instructions_are_listed(void **state) {
  (void)state;
  int floor = -1;
  const char *src = "__device__ unsigned m(unsigned v) {\n  unsigned r;\n"
                    "  asm(\"vendor_op.sync.u32 %0, %1;\" : \"=r\"(r) : \"r\"(v));\n"
                    "  asm(\"cp.async.wait_all;\");\n  return r;\n}\n";
  size_t n = scan(src, &floor);
  assert_int_equal(n, 2);
  assert_int_equal(hits[0].kind, TCMMA_HIT_UNKNOWN);
  assert_string_equal(hits[0].text, "vendor_op.sync.u32"); /* no PTX opcode: never a row */
  assert_int_equal(hits[0].floor, 0);
  assert_int_equal(hits[1].kind, TCMMA_HIT_PTX);
  assert_int_equal(floor, 80); /* an unknown raises nothing: the known one decides */
  cli_result r = run_cli((const char *const[]){"options", "-", "--json", "--no-probe", NULL}, src);
  assert_int_equal(r.exit_code, 0);
  assert_non_null(strstr(r.out, "\"kind\": \"unknown\""));
  cli_result_free(&r);
  r = run_cli((const char *const[]){"options", "-", "--no-probe", NULL}, src);
  assert_non_null(strstr(r.out, "unknown: line 3     vendor_op.sync.u32"));
  cli_result_free(&r);
}

/* An unknown instruction in a #define body says so, as a known one does:
 * kind TCMMA_HIT_MACRO_UNKNOWN, "(seen in a macro)" on its line; the same
 * opcode in code is a hit of its own, TCMMA_HIT_UNKNOWN. */
static void unknown_instructions_in_macros_say_so(void **state) {
  (void)state;
  int floor = -1;
  const char *src = "#define VOTE(r, v) \\\n"
                    "  asm volatile(\"vendor_op.sync.u32 %0, %1;\" : \"=r\"(r) : \"r\"(v))\n"
                    "__device__ unsigned m(unsigned v) {\n  unsigned r;\n"
                    "  asm(\"vendor_op.sync.u32 %0, %1;\" : \"=r\"(r) : \"r\"(v));\n"
                    "  return r;\n}\n";
  size_t n = scan(src, &floor);
  assert_int_equal(n, 2);
  assert_int_equal(hits[0].kind, TCMMA_HIT_MACRO_UNKNOWN);
  assert_string_equal(hits[0].text, "vendor_op.sync.u32");
  assert_int_equal(hits[0].line, 2); /* the literal's line, after a continuation */
  assert_int_equal(hits[0].floor, 0);
  assert_int_equal(hits[1].kind, TCMMA_HIT_UNKNOWN);
  assert_int_equal(hits[1].line, 5);
  assert_int_equal(floor, 0); /* unknowns raise nothing, in a macro or not */
  cli_result r = run_cli((const char *const[]){"options", "-", "--no-probe", NULL}, src);
  assert_int_equal(r.exit_code, 0);
  const char *first = strstr(r.out, "unknown: line 2     vendor_op.sync.u32");
  const char *second = strstr(r.out, "unknown: line 5     vendor_op.sync.u32");
  if (!first || !second) fail_msg("unknowns not listed: %s", r.out);
  const char *end = strchr(first, '\n');
  if (!end || end - first < 18 || strncmp(end - 17, "(seen in a macro)", 17) != 0)
    fail_msg("the macro's unknown does not say so: %s", r.out);
  end = strchr(second, '\n');
  const char *said = strstr(second, "seen in a macro");
  if (!end || (said && said < end)) fail_msg("the code's unknown says macro: %s", r.out);
  cli_result_free(&r);
  r = run_cli((const char *const[]){"options", "-", "--json", "--no-probe", NULL}, src);
  assert_int_equal(r.exit_code, 0);
  assert_non_null(strstr(r.out, "\"kind\": \"macro-unknown\""));
  assert_non_null(strstr(r.out, "\"kind\": \"unknown\""));
  cli_result_free(&r);
}

/* A vector operand's braces ({l, h}) are no scope: the names in them are
 * no opcodes (tcmma's own bf16 helpers listed "l" as unknown). */
static void vector_operands_are_not_opcodes(void **state) {
  (void)state;
  int floor = -1;
  const char *src = "asm(\"{.reg .b16 l, h; mov.b32 {l, h}, %2; mov.b32 %0, {0, l};\"\n"
                    "    \" mov.b32 %1, {0, h};}\" : \"=f\"(x), \"=f\"(y) : \"r\"(v));\n"
                    "asm(\"{ .reg .pred p; setp.ne.b32 p, %0, 0; @p cp.async.wait_all; }\" :: \"r\"(z));\n";
  size_t n = scan(src, &floor);
  for (size_t i = 0; i < n; i++)
    if (strcmp(hits[i].text, "cp.async.wait_all"))
      fail_msg("hit %zu is '%s': not an opcode of the source that needs anything", i,
               hits[i].text);
  assert_int_equal(n, 1); /* mov.b32, setp.ne.b32: PTX instructions that need nothing */
  assert_int_equal(hits[0].kind, TCMMA_HIT_PTX); /* after a scope's '{', and a predicate */
  assert_int_equal(floor, 80);
}

/* The PTX ISA's own instructions (tables/ptx_instructions.def) need no
 * particular target where no feature row matches them: no hit, in code or
 * in a macro, and no "unknown" line (make run's bf16 helper printed
 * "unknown: line 15 mov.b32"); a feature row still decides its opcodes
 * (mov.b128), and a name that is no PTX instruction stays unknown. */
static void ptx_instructions_need_nothing(void **state) {
  (void)state;
  int floor = -1;
  const char *src = "#define LD(r, a) asm(\"ld.shared.u32 %0, [%1];\" : \"=r\"(r) : \"r\"(a))\n"
                    "asm(\"{ .reg .pred p; setp.lt.s32 p, %1, 0; @p bra.uni L1;\"\n"
                    "    \" add.f32 %0, %0, 1.0; mov.b32 %1, %0; L1: @p ret; }\"\n"
                    "    : \"+f\"(x) : \"r\"(y));\n";
  assert_int_equal(scan(src, &floor), 0);
  assert_int_equal(floor, 0);
  size_t n = scan("asm(\"mov.b128 %0, {%1, %2};\" : \"=q\"(q) : \"l\"(a), \"l\"(b));\n"
                  "asm(\"movv.b32 %0, %1;\" : \"=r\"(x) : \"r\"(y));\n"
                  "#define M asm(\"bra.sync L;\")\n", &floor);
  assert_int_equal(n, 2);
  assert_string_equal(hits[0].text, "mov.b128");
  assert_int_equal(hits[0].kind, TCMMA_HIT_PTX);
  assert_int_equal(hits[0].floor, tcmma_ptx_feature_get(TCMMA_PTX_F_MOV_B128)->min_sm);
  assert_string_equal(hits[1].text, "movv.b32");
  assert_int_equal(hits[1].kind, TCMMA_HIT_UNKNOWN);
  cli_result r = run_cli((const char *const[]){"options", "-", "--no-probe", NULL}, src);
  assert_int_equal(r.exit_code, 0);
  if (strstr(r.out, "unknown:")) fail_msg("a PTX instruction listed as unknown: %s", r.out);
  cli_result_free(&r);
}

/* Each distinct unknown opcode is a hit of its own (the scan keeps all). */
static void unknowns_are_each_listed(void **state) {
  (void)state;
  char src[8192];
  size_t at = 0;
  for (int i = 0; i < 80; i++)
    at += (size_t)snprintf(src + at, sizeof src - at, "asm(\"op%d.b32 %%0;\" : \"=r\"(x));\n", i);
  snprintf(src + at, sizeof src - at, "asm(\"wgmma.fence.sync.aligned;\");\n");
  int floor = 0;
  assert_int_equal(tcmma_source_markers(src, strlen(src), NULL, 0, &floor), 81);
  assert_int_equal(floor, 90);
}

static bool accepts_a(int arch, char suffix, void *ctx) {
  (void)ctx;
  return suffix == 'a' && arch == 90;
}

/* Many unknown opcodes, in code or in macros, never push the deciding
 * marker out of the 64 the decision keeps. */
static void unknowns_give_way_in_the_decision(void **state) {
  (void)state;
  static const tcmma_hit_kind kinds[] = {TCMMA_HIT_UNKNOWN, TCMMA_HIT_MACRO_UNKNOWN};
  for (size_t f = 0; f < 2; f++) {
    char src[8192];
    size_t at = 0;
    for (int i = 0; i < 80; i++)
      at += (size_t)(f ? snprintf(src + at, sizeof src - at,
                                  "#define M%d asm(\"op%d.b32 %%0;\" : \"=r\"(x))\n", i, i)
                       : snprintf(src + at, sizeof src - at,
                                  "asm(\"op%d.b32 %%0;\" : \"=r\"(x));\n", i));
    snprintf(src + at, sizeof src - at, "asm(\"wgmma.fence.sync.aligned;\");\n");
    tcmma_arch_support s = {{75, 80, 90}, 3, accepts_a, NULL};
    tcmma_arch_options o;
    tcmma_error err;
    assert_int_equal(tcmma_arch_decide(src, strlen(src), 0, TCMMA_TARGET_FLOOR, &s, &o, &err),
                     TCMMA_OK);
    assert_int_equal(o.n_markers, TCMMA_ARCH_MAX_MARKERS);
    assert_string_equal(o.markers[o.n_markers - 1].text, "wgmma.fence.sync.aligned");
    assert_int_equal(o.markers[0].kind, kinds[f]); /* in source order */
    assert_string_equal(o.option, "--gpu-architecture=compute_90a");
  }
}

static int floor_of(const char *src) {
  int floor = -1;
  tcmma_source_markers(src, strlen(src), NULL, 0, &floor);
  return floor;
}

static void optional_specialisations_raise_nothing(void **state) {
  (void)state;
  /* explicit and partial specialisations at file scope: the primary stands */
  assert_int_equal(floor_of("template <typename T> struct C { };\n"
                            "#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 800\n"
                            "template <> struct C<float> { };\n#endif\n"),
                   0);
  assert_int_equal(floor_of("template <typename T> struct C { };\n#if __CUDA_ARCH__ >= 900\n"
                            "template <typename T> struct C<T *> { };\n#endif\n"),
                   0);
  /* a plain template (no specialisation) under the guard still raises */
  assert_int_equal(floor_of("#if __CUDA_ARCH__ >= 900\n"
                            "template <typename T> __device__ T f(T x) { return x; }\n#endif\n"),
                   90);
  /* inside a function, a specialisation's words change nothing: the code is lost */
  assert_int_equal(floor_of("__global__ void k() {\n#if __CUDA_ARCH__ >= 800\n"
                            "  template_call<>();\n  work();\n#endif\n}\n"),
                   80);
  /* braces in strings, comments and characters do not move the scope */
  assert_int_equal(floor_of("const char *s = \"{\"; // {\nchar c = '{';\n"
                            "#if __CUDA_ARCH__ >= 800\ntemplate <> struct C<int> {};\n#endif\n"),
                   0);
}

/* Whatever the guard's number, the floor line names a target or says none. */
static void never_an_empty_floor(void **state) {
  (void)state;
  static const char *const guards[] = {"__CUDA_ARCH__ >= 90",  "__CUDA_ARCH__ >= 900",
                                       "__CUDA_ARCH__ >= 901", "__CUDA_ARCH__ > 899",
                                       "__CUDA_ARCH__ >= 1000", "__CUDA_ARCH__ >= 0",
                                       "__CUDA_ARCH__ < 800",  "__CUDA_ARCH__ >= 1200"};
  for (size_t i = 0; i < sizeof guards / sizeof guards[0]; i++) {
    char src[256];
    snprintf(src, sizeof src, "__global__ void k(int *p) {\n#if %s\n  p[0] = 1;\n#endif\n}\n",
             guards[i]);
    cli_result r = run_cli((const char *const[]){"options", "-", "--no-probe", NULL}, src);
    assert_int_equal(r.exit_code, 0);
    const char *floor = strstr(r.out, "floor:   ");
    if (!floor || floor[9] == ',' || floor[9] == ' ' ||
        !(strncmp(floor + 9, "sm_", 3) == 0 || strncmp(floor + 9, "none", 4) == 0))
      fail_msg("%s: %s", guards[i], r.out);
    cli_result_free(&r);
  }
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(asm_in_define_bodies_counts),
      cmocka_unit_test(unknown_instructions_are_listed),
      cmocka_unit_test(unknown_instructions_in_macros_say_so),
      cmocka_unit_test(vector_operands_are_not_opcodes),
      cmocka_unit_test(unknowns_are_each_listed),
      cmocka_unit_test(ptx_instructions_need_nothing),
      cmocka_unit_test(unknowns_give_way_in_the_decision),
      cmocka_unit_test(optional_specialisations_raise_nothing),
      cmocka_unit_test(never_an_empty_floor),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
