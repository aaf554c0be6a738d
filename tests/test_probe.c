/* Floors proven by compiling (tcmma_probe_floor, tcmma options --probe) and
 * the real-source corpus scored against them: tests/data/cuda/probe/ and
 * the NVRTC-compilable sources of tests/data (provenance in
 * tests/data/cuda/README.md). Each proven floor is checked on its own: the
 * rung compiles with ptxas and keeps every kernel's work, the rung below
 * fails. Needs NVRTC (skipped without it); runs on a fresh cache. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include "util.h"
#include "tcmma/tcmma.h"

static char dir[256];

static int fresh(void **state) {
  (void)state;
  test_cache_fresh(dir, sizeof dir, "probe");
  return 0;
}

static int gone(void **state) {
  (void)state;
  return test_cache_remove(dir);
}

static const struct {
  const char *file, *proven; /* the lowest target that compiles it whole */
  const char *evidence;      /* words of why the rung below fails ("" none below) */
} corpus[] = {
    {"cuda/probe/bf16_math.cu", "compute_75", ""},
    {"cuda/probe/guarded_specialisation.cu", "compute_75", ""},
    {"cuda/probe/cute_like_kernel.cu", "compute_80", "cp.async.wait_all"},
    {"cuda/probe/cute_like_wgmma.cu", "compute_90a", "compiled away"},
    {"cuda/probe/kernel_guard_sm90.cu", "compute_90", "compiled away"},
    {"cuda/probe/ptx_macros.cu", "compute_80", "cp.async"},
    {"cuda/probe/redux_sync.cu", "compute_80", "redux"},
    {"cuda/sample_kernels.cu", "compute_80", "compiled away"},
    {"mma_bf16.cu", "compute_80", ".bf16"},
    {"half.cu", "compute_75", ""},
    {"wmma_f16f32.cu", "compute_75", ""},
};
#define CORPUS (sizeof corpus / sizeof corpus[0])
/* the markers' floor equals the proven one on this many (raise it as the
 * scanner learns: a drop is a regression) */
#define MARKERS_EXACT_AT_LEAST 9

static char *load(const char *rel, size_t *len) {
  char path[256];
  snprintf(path, sizeof path, "tests/data/%s", rel);
  char *src = read_file(src_path(path), len);
  if (!src) fail_msg("cannot read %s", path);
  return src;
}

static tcmma_compile_opts opts_for(const char *rel) {
  static char name[512];
  snprintf(name, sizeof name, "%s/tests/data/%s", src_path("."), rel);
  tcmma_compile_opts o = tcmma_compile_opts_default();
  o.name = name; /* its "includes" are found next to it */
  return o;
}

/* "--gpu-architecture=compute_90a" -> 90, 'a'. */
static void rung_of(const char *option, int *arch, char *suffix) {
  const char *at = strstr(option, "compute_");
  assert_non_null(at);
  char *end;
  *arch = (int)strtol(at + 8, &end, 10);
  *suffix = *end;
}

/* Whether the source passes at option: a CUBIN that keeps every kernel's work. */
static bool passes(const char *src, size_t len, const char *rel, const char *option) {
  tcmma_compile_opts o = opts_for(rel);
  rung_of(option, &o.arch, &o.arch_suffix);
  o.sass = true;
  tcmma_program p;
  tcmma_error err;
  tcmma_status st = tcmma_compile(src, len, &o, &p, &err);
  if (st == TCMMA_OK) st = tcmma_check_compiled_away(src, len, &o, &p, NULL, 0, &err);
  tcmma_program_free(&p);
  return st == TCMMA_OK;
}

/* A marker option "" (none) is NVRTC's lowest arch, where the ladder starts. */
static bool same_rung(const char *marker, const char *proven) {
  return strcmp(marker[0] ? marker : "--gpu-architecture=compute_75", proven) == 0;
}

static void corpus_floors_are_proven(void **state) {
  (void)state;
  size_t exact = 0;
  for (size_t i = 0; i < CORPUS; i++) {
    size_t len;
    char *src = load(corpus[i].file, &len);
    tcmma_compile_opts o = opts_for(corpus[i].file);
    tcmma_probe p = tcmma_probe_init();
    tcmma_error err;
    tcmma_status st = tcmma_probe_floor(src, len, &o, &p, &err);
    if (st == TCMMA_UNAVAILABLE) skip();
    assert_int_equal(st, TCMMA_OK);
    char want[64];
    snprintf(want, sizeof want, "--gpu-architecture=%s", corpus[i].proven);
    if (strcmp(p.option, want)) fail_msg("%s: proven %s, expected %s", corpus[i].file, p.option, want);
    if (!strstr(p.evidence, corpus[i].evidence) || (!corpus[i].evidence[0] && p.below[0]))
      fail_msg("%s: evidence '%s', expected '%s'", corpus[i].file, p.evidence, corpus[i].evidence);
    /* the proof, on its own: the floor passes, the rung below does not */
    if (!passes(src, len, corpus[i].file, p.option)) fail_msg("%s: %s fails", corpus[i].file, p.option);
    if (p.below[0] && passes(src, len, corpus[i].file, p.below))
      fail_msg("%s: %s, below the proven floor, passes", corpus[i].file, p.below);
    bool same = same_rung(p.marker_option, p.option);
    exact += same;
    printf("  %-40s markers %-32s proven %s%s\n", corpus[i].file,
           p.marker_option[0] ? p.marker_option : "(none)", p.option, same ? "" : "  MISS");
    free(src);
  }
  printf("  markers exact on %zu of %zu sources\n", exact, CORPUS);
  assert_true(exact >= MARKERS_EXACT_AT_LEAST);
}

static void a_second_probe_is_all_cache(void **state) {
  (void)state;
  size_t len;
  char *src = load("cuda/probe/kernel_guard_sm90.cu", &len);
  tcmma_compile_opts o = opts_for("cuda/probe/kernel_guard_sm90.cu");
  tcmma_probe a = tcmma_probe_init(), b = tcmma_probe_init();
  tcmma_error err;
  if (tcmma_probe_floor(src, len, &o, &a, &err) == TCMMA_UNAVAILABLE) skip();
  assert_int_equal(tcmma_probe_floor(src, len, &o, &b, &err), TCMMA_OK);
  assert_true(b.rungs > 2);
  assert_int_equal(b.cache_hits, b.rungs);
  assert_string_equal(a.option, b.option);
  assert_true(b.below_empty);
  assert_int_equal(b.below_status, TCMMA_FLOOR);
  /* a probe struct never started is refused, not written */
  tcmma_probe unset = {0};
  assert_int_equal(tcmma_probe_floor(src, len, &o, &unset, &err), TCMMA_INVALID);
  free(src);
}

static const char ladder_suffixes[3] = {'\0', 'f', 'a'}; /* the ladder's order per arch */

/* One probe on a fresh cache compiles its rungs in batches, up to one rung a
 * core at once (fewer batches than rungs where two cores or more are
 * online; one a rung on one core), each through the cache: the disk then
 * holds an entry per fresh compile, and every rung of the ladder up to the
 * proven floor, compiled on its own afterwards, is answered from the disk. */
static void the_ladder_compiles_in_batches(void **state) {
  (void)state;
  char own[256];
  test_cache_fresh(own, sizeof own, "probe-batches");
  size_t len;
  char *src = load("cuda/probe/kernel_guard_sm90.cu", &len);
  tcmma_compile_opts o = opts_for("cuda/probe/kernel_guard_sm90.cu");
  tcmma_probe p = tcmma_probe_init();
  tcmma_error err;
  tcmma_status st = tcmma_probe_floor(src, len, &o, &p, &err);
  if (st == TCMMA_UNAVAILABLE) free(src), test_cache_remove(own), skip();
  assert_int_equal(st, TCMMA_OK);
  assert_string_equal(p.option, "--gpu-architecture=compute_90");
  long online = sysconf(_SC_NPROCESSORS_ONLN);
  print_message("probe: %d rungs in %d batches on %ld cores, %d from the cache\n", p.rungs,
                p.batches, online, p.cache_hits);
  assert_true(p.batches >= 1 && p.batches <= p.rungs && p.rungs > 2);
  if (online >= 2) assert_true(p.batches < p.rungs);
  else assert_int_equal(p.batches, p.rungs);
  tcmma_cache_info info;
  assert_int_equal(tcmma_cache_info_get(&info, &err), TCMMA_OK);
  assert_int_equal(info.entries, (size_t)(p.rungs - p.cache_hits));
  /* the ladder's rungs in its order (plain, f, a; arch ascending) to the floor */
  tcmma_arch_support s;
  assert_int_equal(tcmma_nvrtc_support(&s, &err), TCMMA_OK);
  tcmma_cache_clear_memory();
  int checked = 0;
  bool reached = false;
  for (size_t i = 0; i < s.count && !reached; i++)
    for (const char *sx = ladder_suffixes; sx < ladder_suffixes + 3 && !reached; sx++) {
      if (*sx && !(s.accepts && s.accepts(s.archs[i], *sx, s.ctx))) continue;
      tcmma_compile_opts one = o;
      one.arch = s.archs[i], one.arch_suffix = *sx, one.sass = true;
      tcmma_program prog;
      tcmma_compile(src, len, &one, &prog, &err);
      if (!prog.cache_hit) fail_msg("sm_%d%c: not in the cache after the probe", s.archs[i], *sx);
      tcmma_program_free(&prog);
      checked++;
      reached = s.archs[i] == 90 && *sx == 0;
    }
  assert_true(reached && checked > 2);
  free(src);
  assert_int_equal(test_cache_remove(own), 0);
  setenv("TCMMA_CACHE_DIR", dir, 1); /* the group's cache again */
  tcmma_cache_clear_memory();
}

/* A marker's floor is the lowest target where what it names compiles with
 * this NVRTC (tables/markers.def): bf16 types and arithmetic at 75, with
 * ptxas; the bf16 tensor-core forms keep 80. */
static void marker_floors_match_the_compiler(void **state) {
  (void)state;
  size_t len;
  char *src = load("cuda/probe/bf16_math.cu", &len);
  tcmma_compile_opts o = opts_for("cuda/probe/bf16_math.cu");
  o.arch = tcmma_marker_floor(TCMMA_MARKER_BF16_MATH), o.sass = true;
  tcmma_program p;
  tcmma_error err;
  tcmma_status st = tcmma_compile(src, len, &o, &p, &err);
  if (st == TCMMA_UNAVAILABLE) skip();
  if (st != TCMMA_OK) fail_msg("bf16 arithmetic at sm_%d: %s", o.arch, err.message);
  tcmma_program_free(&p);
  free(src);
  const char *frag = "#include <mma.h>\n#include <cuda_bf16.h>\nusing namespace nvcuda;\n"
                     "__global__ void k(const __nv_bfloat16 *a) {\n"
                     "  wmma::fragment<wmma::matrix_a, 16, 16, 16, __nv_bfloat16, "
                     "wmma::row_major> f;\n  wmma::load_matrix_sync(f, a, 16);\n}\n";
  tcmma_compile_opts w = tcmma_compile_opts_default();
  w.arch = 75, w.sass = true;
  assert_int_not_equal(tcmma_compile(frag, strlen(frag), &w, &p, &err), TCMMA_OK);
  tcmma_program_free(&p);
  int floor = 0;
  tcmma_source_markers(frag, strlen(frag), NULL, 0, &floor);
  w.arch = floor;
  assert_int_equal(floor, 80);
  assert_int_equal(tcmma_compile(frag, strlen(frag), &w, &p, &err), TCMMA_OK);
  tcmma_program_free(&p);
}

/* tcmma compile fails when kernels were compiled away, unless --allow-empty;
 * options --probe reports both floors. */
static void the_cli_says_so(void **state) {
  (void)state;
  const char *file = src_path("tests/data/cuda/probe/cute_like_wgmma.cu");
  char out[300];
  snprintf(out, sizeof out, "%s/wgmma.ptx", dir);
  tcmma_nvrtc_info info;
  if (tcmma_nvrtc_facts(&info, NULL) != TCMMA_OK) skip(); /* no NVRTC here */
  cli_result r = run_cli((const char *const[]){"compile", file, "-o", out, NULL}, NULL);
  assert_int_equal(r.exit_code, 1);
  assert_non_null(strstr(r.err, "kernels compiled away at sm_75"));
  assert_non_null(strstr(r.err, "compute_90a keeps their work"));
  cli_result_free(&r);
  r = run_cli((const char *const[]){"compile", file, "--allow-empty", "-o", out, NULL}, NULL);
  assert_int_equal(r.exit_code, 0);
  assert_non_null(strstr(r.err, "WARNING (--allow-empty)"));
  cli_result_free(&r);
  r = run_cli((const char *const[]){"compile", file, "--arch", "compute_90a", "-o", out, NULL}, NULL);
  assert_int_equal(r.exit_code, 0);
  assert_null(strstr(r.err, "compiled away"));
  cli_result_free(&r);
  r = run_cli((const char *const[]){"options", file, "--probe", "--json", NULL}, NULL);
  assert_int_equal(r.exit_code, 0);
  assert_non_null(strstr(r.out, "\"proven_option\": \"--gpu-architecture=compute_90a\""));
  assert_non_null(strstr(r.out, "\"below\": \"--gpu-architecture=compute_90\""));
  assert_non_null(strstr(r.out, "\"below_empty\": true"));
  cli_result_free(&r);
  r = run_cli((const char *const[]){"options", file, "--no-probe", "-I", "x", NULL}, NULL);
  assert_int_equal(r.exit_code, 2); /* -I is the probe's: not with --no-probe */
  cli_result_free(&r);
}

/* Everything of out from the "probe:" line on ("" when it has none). */
static const char *probe_part(const char *out) {
  const char *p = strstr(out, "probe:   ");
  return p ? p : out + strlen(out);
}

/* tcmma options probes by default (issue 24): the markers' answer, then the
 * proven floor; --no-probe gives the markers' answer alone, the same lines;
 * --probe is the default said aloud. */
static void options_probes_by_default(void **state) {
  (void)state;
  const char *file = src_path("tests/data/cuda/probe/cute_like_wgmma.cu");
  tcmma_nvrtc_info info;
  if (tcmma_nvrtc_facts(&info, NULL) != TCMMA_OK) skip(); /* no NVRTC here */
  cli_result d = run_cli((const char *const[]){"options", file, NULL}, NULL);
  assert_int_equal(d.exit_code, 0);
  if (!strstr(d.out, "probe:   marker floor none; proven floor --gpu-architecture=compute_90a"))
    fail_msg("no proven floor by default: %s", d.out);
  assert_non_null(strstr(d.out, "--gpu-architecture=compute_90 fails: kernels compiled away"));
  cli_result n = run_cli((const char *const[]){"options", file, "--no-probe", NULL}, NULL);
  assert_int_equal(n.exit_code, 0);
  assert_null(strstr(n.out, "probe:"));
  /* the markers' lines are the same either way: the probe only adds */
  assert_int_equal(strlen(n.out), (size_t)(probe_part(d.out) - d.out));
  assert_memory_equal(n.out, d.out, strlen(n.out));
  cli_result p = run_cli((const char *const[]){"options", file, "--probe", NULL}, NULL);
  assert_int_equal(p.exit_code, 0);
  assert_non_null(strstr(p.out, "proven floor --gpu-architecture=compute_90a"));
  cli_result_free(&d), cli_result_free(&n), cli_result_free(&p);
  /* --json: a "probe" object by default, none with --no-probe */
  cli_result j = run_cli((const char *const[]){"options", file, "--json", NULL}, NULL);
  assert_int_equal(j.exit_code, 0);
  assert_non_null(strstr(j.out, "\"proven_option\": \"--gpu-architecture=compute_90a\""));
  cli_result_free(&j);
  j = run_cli((const char *const[]){"options", file, "--json", "--no-probe", NULL}, NULL);
  assert_int_equal(j.exit_code, 0);
  assert_null(strstr(j.out, "\"probe\""));
  cli_result_free(&j);
  /* native: the device's arch, and the proven floor beside it */
  j = run_cli((const char *const[]){"options", file, "--target", "native", "--cc", "90", NULL},
              NULL);
  assert_int_equal(j.exit_code, 0);
  assert_non_null(strstr(j.out, "options: --gpu-architecture=compute_90\n"));
  assert_non_null(strstr(j.out, "proven floor --gpu-architecture=compute_90a"));
  cli_result_free(&j);
  /* -I and -D are the default's too; both switches at once are a usage error */
  char inc[4096];
  snprintf(inc, sizeof inc, "%s", file);
  *strrchr(inc, '/') = '\0'; /* its own directory (src_path's buffer is file's) */
  j = run_cli((const char *const[]){"options", file, "-I", inc, "-D", "N=1", NULL}, NULL);
  assert_int_equal(j.exit_code, 0);
  cli_result_free(&j);
  j = run_cli((const char *const[]){"options", file, "--probe", "--no-probe", NULL}, NULL);
  assert_int_equal(j.exit_code, 2);
  assert_non_null(strstr(j.err, "--probe and --no-probe"));
  cli_result_free(&j);
}

/* A probe that cannot run (host code: NVRTC refuses it, and the nvcc named
 * will not run) leaves the markers' answer, with "not proven" and why, exit
 * 0; asked for with --probe, it fails. */
static void options_not_proven_says_so(void **state) {
  (void)state;
  const char *file = src_path("tests/data/cuda/probe/host_redux.cu");
  tcmma_nvrtc_info info;
  if (tcmma_nvrtc_facts(&info, NULL) != TCMMA_OK) skip(); /* no NVRTC here */
  char nvcc[300];
  snprintf(nvcc, sizeof nvcc, "%s/nvcc", dir); /* executable, but no program */
  FILE *f = fopen(nvcc, "w");
  assert_non_null(f);
  fputs("not a program\n", f);
  fclose(f);
  assert_int_equal(chmod(nvcc, 0700), 0);
  setenv("TCMMA_NVCC", nvcc, 1);
  cli_result r = run_cli((const char *const[]){"options", file, NULL}, NULL);
  assert_int_equal(r.exit_code, 0);
  assert_non_null(strstr(r.out, "options: --gpu-architecture=compute_80\n"));
  if (!strstr(r.out, "\nprobe:   not proven: a compile with nvcc could not run: "))
    fail_msg("no 'not proven' line: %s", r.out);
  assert_null(strstr(r.out, "proven floor"));
  cli_result_free(&r);
  r = run_cli((const char *const[]){"options", file, "--json", NULL}, NULL);
  assert_int_equal(r.exit_code, 0);
  assert_non_null(strstr(r.out, "\"probe\": null"));
  assert_non_null(strstr(r.out, "\"not_proven\": \"a compile with nvcc could not run: "));
  cli_result_free(&r);
  r = run_cli((const char *const[]){"options", file, "--probe", NULL}, NULL);
  assert_int_equal(r.exit_code, 1);
  assert_non_null(strstr(r.err, "could not run"));
  cli_result_free(&r);
  unsetenv("TCMMA_NVCC");
  unlink(nvcc);
}

/* dir/name holding text; its path into path. */
static void write_source(const char *name, const char *text, char *path, size_t cap) {
  snprintf(path, cap, "%s/%s", dir, name);
  FILE *f = fopen(path, "w");
  assert_non_null(f);
  fputs(text, f);
  fclose(f);
}

/* A source whose #include outside every #if names a file not found fails
 * alike at every target: the walk stops at the first rung, "not proven"
 * with the error (the temporary copy nvcc compiles named as the source);
 * the same #include under an #if proves nothing, and the ladder climbs. */
static void options_stops_where_no_target_compiles(void **state) {
  (void)state;
  tcmma_nvrtc_info info;
  if (tcmma_nvrtc_facts(&info, NULL) != TCMMA_OK) skip(); /* no NVRTC here */
  char fixed[512], guarded[512];
  write_source("fixed.cu", "#include \"tcmma_absent_helper.h\"\n"
               "__global__ void k(float *x) { x[0] = 1; }\n", fixed, sizeof fixed);
  write_source("guarded.cu", "#if __CUDA_ARCH__ < 800\n#include \"tcmma_absent_helper.h\"\n"
               "#endif\n__global__ void k(float *x) { x[0] = 1; }\n", guarded, sizeof guarded);
  cli_result r = run_cli((const char *const[]){"options", fixed, NULL}, NULL);
  assert_int_equal(r.exit_code, 0);
  char want[700];
  snprintf(want, sizeof want, "probe:   not proven: the source does not compile at "
           "--gpu-architecture=compute_75: %s", fixed);
  if (!strstr(r.out, want) || !strstr(r.out, "tcmma_absent_helper.h") ||
      !strstr(r.out, "nor at any target"))
    fail_msg("no early stop: %s", r.out);
  assert_null(strstr(r.out, "proven floor"));
  cli_result_free(&r);
  r = run_cli((const char *const[]){"options", fixed, "--json", NULL}, NULL);
  assert_int_equal(r.exit_code, 0);
  assert_non_null(strstr(r.out, "\"fails_at\": \"--gpu-architecture=compute_75\""));
  assert_non_null(strstr(r.out, "\"unproven\": \"an #include outside every #if"));
  assert_non_null(strstr(r.out, "\"proven_option\": null"));
  cli_result_free(&r);
  r = run_cli((const char *const[]){"options", guarded, "--json", NULL}, NULL);
  assert_int_equal(r.exit_code, 0);
  if (!strstr(r.out, "\"proven_option\": \"--gpu-architecture=compute_80\"") ||
      !strstr(r.out, "\"fails_at\": null") || !strstr(r.out, "\"unproven\": null"))
    fail_msg("a guarded #include stopped the walk: %s", r.out);
  cli_result_free(&r);
}

/* The probe line's counts read as English: "1 compile", "1 batch". */
static void probe_counts_read_right(void **state) {
  (void)state;
  tcmma_nvrtc_info info;
  if (tcmma_nvrtc_facts(&info, NULL) != TCMMA_OK) skip(); /* no NVRTC here */
  char path[512];
  write_source("plain.cu", "__global__ void k(float *x) { x[0] = 1; }\n", path, sizeof path);
  cli_result r = run_cli((const char *const[]){"options", path, NULL}, NULL);
  assert_int_equal(r.exit_code, 0);
  /* it passes at the first rung: one batch, whatever the cores */
  if (!strstr(r.out, " in 1 batch, ") || strstr(r.out, "batches") || strstr(r.out, " 1 compiles"))
    fail_msg("counts: %s", r.out);
  cli_result_free(&r);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(corpus_floors_are_proven),
      cmocka_unit_test(a_second_probe_is_all_cache),
      cmocka_unit_test(the_ladder_compiles_in_batches),
      cmocka_unit_test(marker_floors_match_the_compiler),
      cmocka_unit_test(the_cli_says_so),
      cmocka_unit_test(options_probes_by_default),
      cmocka_unit_test(options_not_proven_says_so),
      cmocka_unit_test(options_stops_where_no_target_compiles),
      cmocka_unit_test(probe_counts_read_right),
  };
  return cmocka_run_group_tests(tests, fresh, gone);
}
