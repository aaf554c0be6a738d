/* Markers from any CUDA source (docs/design.md §8): the scanner reads C++ —
 * comments and strings are not code, asm() strings are PTX, wmma:: counts
 * under `using namespace nvcuda`, fragment element types and __CUDA_ARCH__
 * guards raise the floor — and real kernels nobody here wrote come out at
 * the arch their code needs. Decisions run against NVRTC 13.0's arch list
 * written here (docs/design.md §8), so they do not depend on the toolkit. */
#include "util.h"
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "tcmma/tcmma.h"

static bool with_af(int arch, char suffix, void *ctx) {
  (void)ctx;
  return (arch >= 100 && (suffix == 'a' || suffix == 'f')) || (arch == 90 && suffix == 'a');
}

static const tcmma_arch_support cuda13 = {
    {75, 80, 86, 87, 88, 89, 90, 100, 103, 110, 120, 121}, 12, with_af, NULL};

static tcmma_arch_options decide(const char *src, size_t len, int cc, tcmma_target t) {
  tcmma_arch_options o;
  tcmma_error err;
  tcmma_error_clear(&err);
  if (tcmma_arch_decide(src, len, cc, t, &cuda13, &o, &err) != TCMMA_OK)
    fail_msg("%.60s...: %s", src, err.message);
  return o;
}

static tcmma_arch_options floor_of(const char *src) {
  return decide(src, strlen(src), 0, TCMMA_TARGET_FLOOR);
}

/* The floor and, when want_text is given, that a marker with that text was
 * found at want_line. */
static void expect(const char *src, int floor, const char *option, const char *want_text,
                   int want_line) {
  tcmma_arch_options o = floor_of(src);
  if (o.floor != floor || strcmp(o.option, option))
    fail_msg("'%s': floor %d, '%s'; expected %d, '%s'", src, o.floor, o.option, floor, option);
  if (!want_text) return;
  for (size_t i = 0; i < o.n_markers; i++)
    if (strcmp(o.markers[i].text, want_text) == 0) {
      if (o.markers[i].line != want_line)
        fail_msg("'%s': %s on line %d, expected %d", src, want_text, o.markers[i].line, want_line);
      return;
    }
  fail_msg("'%s': no marker '%s'", src, want_text);
}

#define ARCH(n) "--gpu-architecture=compute_" #n

static void comments_and_strings_are_not_code(void **state) {
  (void)state;
  static const char *const none[] = {
      "// Warps compute with nvcuda::wmma::mma_sync operations\nint x;",
      "/* __half and __nv_bfloat16 */ float y;",
      "const char *s = \"nvcuda::wmma\";",
      "const char *r = R\"x(nvcuda::wmma \"quoted\" __half)x\";",
      "char c = '\"'; const char *t = \"__half\\\" nvcuda::wmma\";",
      "int n = 1'000; // digit separators are not char literals: __half",
      "puts(\"mma.sync.aligned.m16n8k16.row.col.f32.bf16.bf16.f32\");",
      "// asm(\"wgmma.fence.sync.aligned;\");",
      "#define X \"cp.async.cg.shared.global\"\n",
      "/* cp.async.cg.shared.global (cp.async) */",
  };
  for (size_t i = 0; i < sizeof none / sizeof none[0]; i++) {
    int floor = -1;
    size_t n = tcmma_source_markers(none[i], strlen(none[i]), NULL, 0, &floor);
    if (n || floor) fail_msg("'%s': %zu markers, floor %d", none[i], n, floor);
  }
  /* the same words as code are markers */
  expect("nvcuda::wmma::fragment<nvcuda::wmma::accumulator, 16, 16, 16, float> c;", 70, ARCH(75),
         "nvcuda::wmma", 1);
  expect("\n\n__nv_bfloat16 x;", 75, ARCH(75), "__nv_bfloat16", 3);
  /* tcmma's tags in comments are, as before */
  expect("/* tile-mma (mma-fp8) */\n", 89, ARCH(89), "(mma-fp8)", 1);
  expect("// stage (cp.async.)\n", 80, ARCH(80), "cp.async.", 1);
}

static void asm_strings_are_ptx(void **state) {
  (void)state;
  expect("__device__ void f(float *c, unsigned *a) {\n"
         "  asm volatile(\"mma.sync.aligned.m16n8k16.row.col.f32.bf16.bf16.f32 \"\n"
         "               \"{%0,%1,%2,%3}, {%4,%5,%6,%7}, {%8,%9}, {%0,%1,%2,%3};\"\n"
         "    : \"+f\"(c[0]), \"+f\"(c[1]), \"+f\"(c[2]), \"+f\"(c[3])\n"
         "    : \"r\"(a[0]), \"r\"(a[1]), \"r\"(a[2]), \"r\"(a[3]), \"r\"(a[4]), \"r\"(a[5]));\n}\n",
         80, ARCH(80), "mma.sync.aligned.m16n8k16.row.col.f32.bf16.bf16.f32", 2);
  /* several statements, a block, .reg lines, a guard, a label */
  expect("__asm__ __volatile__(\n"
         "  \"{\\n\\t.reg .pred p;\\n\\tsetp.ne.b32 p, %0, 0;\\n\"\n"
         "  \"L1:\\n\\t@p cp.async.cg.shared.global.L2::128B [%1], [%2], 16;\\n}\\n\"\n"
         "  :: \"r\"(x), \"r\"(s), \"l\"(g));",
         80, ARCH(80), "cp.async.cg.shared.global.L2::128B", 3);
  /* operand constraints are not the template: its one instruction is the
   * only hit (add.u32 is a PTX instruction that needs nothing: no hit at
   * all; addx.u32 is none, listed as unknown: never dropped) */
  int floor = -1;
  const char *src = "asm(\"add.u32 %0, %1, 1;\" : \"=r\"(y) : \"r\"(x) : \"memory\");";
  tcmma_marker_hit one[2];
  assert_int_equal(tcmma_source_markers(src, strlen(src), one, 2, &floor), 0);
  assert_int_equal(floor, 0);
  src = "asm(\"addx.u32 %0, %1, 1;\" : \"=r\"(y) : \"r\"(x) : \"memory\");";
  assert_int_equal(tcmma_source_markers(src, strlen(src), one, 2, &floor), 1);
  assert_string_equal(one[0].text, "addx.u32");
  assert_int_equal(one[0].kind, TCMMA_HIT_UNKNOWN);
  assert_int_equal(floor, 0);
  /* arch-specific instructions: sm_90a, sm_100a|f */
  tcmma_arch_options o = floor_of("asm volatile(\"wgmma.fence.sync.aligned;\" ::: \"memory\");");
  assert_string_equal(o.option, ARCH(90a));
  assert_true(o.markers[0].family);
  assert_int_equal(o.markers[0].suffix, TCMMA_PTX_SUFFIX_A);
  o = floor_of("asm volatile(\"tcgen05.fence::before_thread_sync;\");");
  assert_string_equal(o.option, ARCH(100f));
  o = floor_of("asm(R\"(tcgen05.mma.cta_group::1.kind::i8 [%0], %1, %2, %3, p;)\" :: \"r\"(d));");
  assert_string_equal(o.option, ARCH(100a));
  /* a raw string cut off in its delimiter at the end of the source is an
   * empty body, not a read past the end (found by fuzz_arch) */
  int cut = -1;
  const char *tail = "asm(R\"/";
  assert_int_equal(tcmma_source_markers(tail, strlen(tail), NULL, 0, &cut), 0);
  /* the native target: the device's own arch-specific target */
  o = decide("asm(\"wgmma.fence.sync.aligned;\");", 32, 90, TCMMA_TARGET_NATIVE);
  assert_string_equal(o.option, ARCH(90a));
  /* no single target holds wgmma (sm_90a) and tcgen05 (sm_100a|f...) */
  const char *both = "asm(\"wgmma.fence.sync.aligned;\");\nasm(\"tcgen05.fence::before_thread_sync;\");";
  tcmma_arch_options out;
  tcmma_error err;
  assert_int_equal(tcmma_arch_decide(both, strlen(both), 0, TCMMA_TARGET_FLOOR, &cuda13, &out, &err),
                   TCMMA_INVALID);
  assert_non_null(strstr(err.message, "wgmma.fence.sync.aligned on line 1"));
  assert_non_null(strstr(err.message, "tcgen05.fence::before_thread_sync on line 2"));
  /* a device that cannot run an instruction at all */
  assert_int_equal(tcmma_arch_decide("asm(\"wgmma.fence.sync.aligned;\");", 32, 100,
                                     TCMMA_TARGET_FLOOR, &cuda13, &out, &err),
                   TCMMA_INVALID);
  assert_non_null(strstr(err.message, "sm_90a"));
  assert_non_null(strstr(err.message, "cc 100"));
}

static void wmma_names_and_fragments(void **state) {
  (void)state;
  /* wmma:: counts only where nvcuda's names are in scope */
  int floor = -1;
  const char *src = "wmma::fragment<wmma::matrix_a, 16, 16, 16, half, wmma::row_major> a;";
  assert_int_equal(tcmma_source_markers(src, strlen(src), NULL, 0, &floor), 0);
  expect("using namespace nvcuda;\n\nwmma::fill_fragment(c, 0.0f);", 70, ARCH(75), "nvcuda::wmma", 3);
  expect("namespace wmma = nvcuda::wmma;\n", 70, ARCH(75), "nvcuda::wmma", 1);
  /* fragment element types raise the floor by tables/wmma_fragments.def */
  static const struct {
    const char *type;
    int floor;
  } types[] = {
      {"wmma::precision::tf32", 80}, {"precision::tf32", 80}, {"nvcuda::wmma::precision::tf32", 80},
      {"double", 80},                {"__nv_bfloat16", 80},   {"signed char", 72},
      {"unsigned char", 72},         {"uint8_t", 72},         {"wmma::precision::s4", 75},
      {"wmma::precision::b1", 75},   {"half", 70},            {"float", 70},
  };
  for (size_t i = 0; i < sizeof types / sizeof types[0]; i++) {
    char text[256];
    snprintf(text, sizeof text,
             "using namespace nvcuda;\nwmma::fragment<wmma::matrix_a, M, N, K, %s, wmma::row_major> a;",
             types[i].type);
    tcmma_arch_options o = floor_of(text);
    if (o.floor != types[i].floor) fail_msg("%s: floor %d, expected %d", types[i].type, o.floor, types[i].floor);
  }
  /* the accumulator's int, after `using namespace nvcuda::wmma` */
  expect("using namespace nvcuda::wmma;\nfragment<accumulator, 16, 16, 16, int> c;", 72, ARCH(75),
         "int", 2);
  /* template arguments of any shape do not confuse it */
  expect("using namespace nvcuda;\nwmma::fragment<wmma::matrix_a, (M > 8 ? 16 : 8), N, K, "
         "typename T<int, 2>::type, wmma::row_major> a;",
         70, ARCH(75), "nvcuda::wmma", 2);
  expect("using namespace nvcuda;\nwmma::fragment<wmma::matrix_b, (M > 8 ? 16 : 8), N, K, "
         "precision::tf32, wmma::col_major> b;",
         80, ARCH(80), "precision::tf32", 2);
}

static void arch_guards(void **state) {
  (void)state;
  /* an #if with no #else: at a lower arch the body compiles to nothing */
  expect("__global__ void k() {\n#if __CUDA_ARCH__ >= 800\n  work();\n#endif\n}\n", 80, ARCH(80),
         "__CUDA_ARCH__ >= 800", 2);
  expect("#if defined(__CUDA_ARCH__) && (__CUDA_ARCH__ >= 1000)\nx();\n#endif\n", 100, ARCH(100),
         "__CUDA_ARCH__ >= 1000", 1);
  expect("#if __CUDA_ARCH__ > 799 \\\n  && defined(X)\nx();\n#endif\n", 80, ARCH(80),
         "__CUDA_ARCH__ > 799", 1);
  /* with an #else the source has a path below: reported, not raised */
  tcmma_arch_options o = floor_of("#if __CUDA_ARCH__ >= 800\nfast();\n#else\nslow();\n#endif\n");
  assert_int_equal(o.floor, 0);
  assert_int_equal(o.n_markers, 1);
  assert_int_equal(o.markers[0].kind, TCMMA_HIT_GUARD);
  assert_true(o.markers[0].compiled_away); /* NVRTC's default, compute_75, drops it */
  o = floor_of("#if __CUDA_ARCH__ >= 800\nfast();\n#else\nslow();\n#endif\n// (mma-bf16)\n");
  assert_false(o.markers[0].compiled_away);
  /* a body for older archs that a higher floor drops */
  o = floor_of("// (mma-bf16)\n#if __CUDA_ARCH__ < 800\nold();\n#endif\n");
  assert_int_equal(o.floor, 80);
  assert_true(o.markers[1].compiled_away);
  assert_int_equal(o.markers[1].guard_op, '<');
  /* "< 800" guarding an #error is a floor */
  expect("#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ < 800\n#error \"needs sm_80\"\n#endif\n", 80,
         ARCH(80), "__CUDA_ARCH__ < 800", 1);
  /* nested groups; an #elif is another branch */
  o = floor_of("#ifdef A\n#if __CUDA_ARCH__ >= 900\nh();\n#elif __CUDA_ARCH__ >= 800\na();\n#endif\n#endif\n");
  assert_int_equal(o.floor, 0);
  assert_int_equal(o.n_markers, 2);
  /* unterminated groups and a stray #endif do not break the scan */
  expect("#endif\n#if __CUDA_ARCH__ >= 890\nf8();\n", 89, ARCH(89), "__CUDA_ARCH__ >= 890", 2);
}

/* Real kernels: what each needs, by the line that needs it. */
static void real_kernels(void **state) {
  (void)state;
  static const struct {
    const char *file, *option, *marker;
    int line;
  } cases[] = {
      /* wmma fragments of precision::tf32, under #if __CUDA_ARCH__ >= 800 */
      {"tf32TensorCoreGemm.cu", ARCH(80), "precision::tf32", 317},
      {"dmmaTensorCoreGemm.cu", ARCH(80), "double", 261},
      /* the bf16 fragment (the type alone is 75: it compiles there) */
      {"bf16TensorCoreGemm.cu", ARCH(80), "__nv_bfloat16", 319},
      /* uint8_t operands and an int accumulator: sm_72, NVRTC's lowest is 75 */
      {"immaTensorCoreGemm.cu", ARCH(75), "int", 255},
      {"cudaTensorCoreGemm.cu", ARCH(75), "nvcuda::wmma", 252},
      {"globalToShmemAsyncCopy.cu", ARCH(75), "__CUDA_ARCH__ >= 700", 49},
      /* wgmma in inline asm: only sm_90a holds it */
      {"less_slow.cu", ARCH(90a), "wgmma.mma_async.sync.aligned.m64n256k16.f32.f16.f16", 623},
      {"copy_sm90_tma.hpp", ARCH(90),
       "cp.async.bulk.tensor.1d.shared::cta.global.mbarrier::complete_tx::bytes.L2::cache_hint", 61},
      /* TMA with .cta_group::2: sm_100a|f, sm_103a|f, sm_110a|f */
      {"copy_sm100_tma.hpp", ARCH(100f),
       "cp.async.bulk.tensor.1d.cta_group::2.shared::cluster.global.mbarrier::complete_tx::bytes."
       "L2::cache_hint",
       66},
  };
  for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
    char rel[256];
    snprintf(rel, sizeof rel, "tests/data/cuda/%s", cases[i].file);
    size_t len;
    char *src = read_file(src_path(rel), &len);
    if (!src) fail_msg("cannot read %s", rel);
    tcmma_arch_options o = decide(src, len, 0, TCMMA_TARGET_FLOOR);
    if (strcmp(o.option, cases[i].option)) fail_msg("%s: %s, expected %s", rel, o.option, cases[i].option);
    bool found = false;
    for (size_t k = 0; k < o.n_markers; k++)
      found = found || (strcmp(o.markers[k].text, cases[i].marker) == 0 && o.markers[k].line == cases[i].line);
    if (!found) fail_msg("%s: no marker %s on line %d", rel, cases[i].marker, cases[i].line);
    /* every prefix of the file scans without harm (ASan watches) */
    for (size_t cut = 0; cut < len; cut += len / 97 + 1) {
      int floor;
      tcmma_source_markers(src, cut, NULL, 0, &floor);
    }
    free(src);
  }
}

static void cli_names_the_line(void **state) {
  (void)state;
  cli_result r = run_cli(
      (const char *const[]){"options", "tests/data/cuda/tf32TensorCoreGemm.cu", "--no-probe", NULL},
      NULL);
  assert_int_equal(r.exit_code, 0);
  assert_non_null(strstr(r.out, "set by precision::tf32 on line 317"));
  cli_result_free(&r);
  r = run_cli((const char *const[]){"options", "-", "--no-probe", NULL}, "int main() { return 0; }\n");
  assert_int_equal(r.exit_code, 0);
  assert_non_null(strstr(r.out, "floor:   none: no marker"));
  cli_result_free(&r);
  r = run_cli((const char *const[]){"options", "-", "--json", "--no-probe", NULL},
              "#if __CUDA_ARCH__ >= 800\n#else\n#endif\nasm(\"wgmma.fence.sync.aligned;\");\n");
  assert_int_equal(r.exit_code, 0);
  assert_non_null(strstr(r.out, "\"set_by\": \"wgmma.fence.sync.aligned\""));
  assert_non_null(strstr(r.out, "\"needs\": \"sm_90a\""));
  assert_non_null(strstr(r.out, "\"kind\": \"guard\""));
  cli_result_free(&r);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(comments_and_strings_are_not_code),
      cmocka_unit_test(asm_strings_are_ptx),
      cmocka_unit_test(wmma_names_and_fragments),
      cmocka_unit_test(arch_guards),
      cmocka_unit_test(real_kernels),
      cmocka_unit_test(cli_names_the_line),
  };
  return cmocka_run_group_tests_name("source", tests, NULL, NULL);
}
