/* NVRTC compiles with the installed toolkit, the cache (memory and disk,
 * across processes, damaged entries, an unwritable directory, concurrent
 * writers) and the records of target scopes. */
#include "util.h"
#include <dirent.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>
#include "tcmma/tcmma.h"
#include "nvrtc/sha256.h"

/* Kernels whose instruction sits in a macro, which the marker scanner does
 * not expand (in the asm() itself it is a marker: tests/test_source.c), so
 * the arch comes only from what the test asks. mma_src: m16n8k8 f16
 * mma.sync, which sm_75 holds (NVRTC's default arch); bf16_src: m16n8k16
 * bf16, which needs sm_80 (PTX ISA), for ptxas to refuse below it. @ is
 * replaced to make distinct sources. */
static const char mma_src[] =
    "#define MMA_F16 \"mma.sync.aligned.m16n8k8.row.col.f32.f16.f16.f32 \"\n"
    "extern \"C\" __global__ void k@(const unsigned *a, const unsigned *b, float *d) {\n"
    "  float c0 = 0, c1 = 0, c2 = 0, c3 = 0;\n"
    "  asm volatile(MMA_F16 \"{%0,%1,%2,%3}, {%4,%5}, {%6}, {%0,%1,%2,%3};\"\n"
    "    : \"+f\"(c0), \"+f\"(c1), \"+f\"(c2), \"+f\"(c3) : \"r\"(a[0]), \"r\"(a[1]), \"r\"(b[0]));\n"
    "  d[threadIdx.x] = c0 + c1 + c2 + c3;\n"
    "}\n";
static const char bf16_src[] =
    "#define MMA_BF16 \"mma.sync.aligned.m16n8k16.row.col.f32.bf16.bf16.f32 \"\n"
    "extern \"C\" __global__ void k@(const unsigned *a, const unsigned *b, float *d) {\n"
    "  float c0 = 0, c1 = 0, c2 = 0, c3 = 0;\n"
    "  asm volatile(MMA_BF16 "
    "\"{%0,%1,%2,%3}, {%4,%5,%6,%7}, {%8,%9}, {%0,%1,%2,%3};\"\n"
    "    : \"+f\"(c0), \"+f\"(c1), \"+f\"(c2), \"+f\"(c3)\n"
    "    : \"r\"(a[0]), \"r\"(a[1]), \"r\"(a[2]), \"r\"(a[3]), \"r\"(b[0]), \"r\"(b[1]));\n"
    "  d[threadIdx.x] = c0 + c1 + c2 + c3;\n"
    "}\n";

static char cache_dir[256];

static char *tagged(const char *src, const char *tag) {
  static _Thread_local char buf[sizeof bf16_src + 64];
  const char *at = strchr(src, '@');
  snprintf(buf, sizeof buf, "%.*s%s%s", (int)(at - src), src, tag, at + 1);
  return buf;
}

static char *source(const char *tag) { return tagged(mma_src, tag); }
static char *bf16_source(const char *tag) { return tagged(bf16_src, tag); }

/* A fresh cache directory for each test; memory cache emptied too. */
static int fresh_cache(void **state) {
  (void)state;
  test_cache_fresh(cache_dir, sizeof cache_dir, "cache");
  return 0;
}

static int remove_cache(void **state) {
  (void)state;
  return test_cache_remove(cache_dir);
}

static bool has_option(const tcmma_program *p, const char *want) {
  for (size_t i = 0; i < p->n_options; i++)
    if (strcmp(p->options[i], want) == 0) return true;
  return false;
}

static tcmma_compile_opts native(int cc, bool sass) {
  tcmma_compile_opts o = TCMMA_COMPILE_OPTS_INIT(.name = "t.cu", .target = TCMMA_TARGET_NATIVE,
                                                 .cc = cc, .sass = sass);
  return o;
}

static void test_sm80_compiles(void **state) {
  (void)state;
  const char *src = bf16_source("80");
  tcmma_compile_opts o = native(80, true);
  tcmma_program p;
  tcmma_error err;
  if (tcmma_compile(src, strlen(src), &o, &p, &err) != TCMMA_OK) fail_msg("%s", err.message);
  assert_non_null(p.ptx);
  assert_int_equal(strlen(p.ptx), p.ptx_len);
  assert_non_null(strstr(p.ptx, "mma.sync.aligned.m16n8k16.row.col.f32.bf16.bf16.f32"));
  assert_non_null(strstr(p.ptx, ".target sm_80"));
  assert_string_equal(p.target_arch, "sm_80");
  assert_non_null(p.cubin);
  assert_true(p.cubin_len > 4);
  assert_memory_equal(p.cubin, "\177ELF", 4);
  assert_true(has_option(&p, "--gpu-architecture=sm_80"));
  tcmma_nvrtc_info info;
  assert_int_equal(tcmma_nvrtc_load(&info, NULL), TCMMA_OK);
  char inc[600];
  snprintf(inc, sizeof inc, "-I%s", info.include_dir);
  assert_true(has_option(&p, inc));
  assert_int_equal(p.nvrtc_major, info.major);
  assert_false(p.cache_hit);
  tcmma_program_free(&p);
  /* compute_80: PTX only, no CUBIN. */
  o.sass = false;
  assert_int_equal(tcmma_compile(src, strlen(src), &o, &p, NULL), TCMMA_OK);
  assert_null(p.cubin);
  assert_true(has_option(&p, "--gpu-architecture=compute_80"));
  tcmma_program_free(&p);
}

static void test_sm75_rejected_by_ptxas(void **state) {
  (void)state;
  const char *src = bf16_source("75");
  tcmma_compile_opts o = native(75, true);
  tcmma_program p;
  tcmma_error err;
  assert_int_equal(tcmma_compile(src, strlen(src), &o, &p, &err), TCMMA_COMPILE);
  assert_non_null(strstr(err.message, "NVRTC"));
  assert_non_null(p.log);
  assert_non_null(strstr(p.log, "ptxas"));
  assert_non_null(strstr(p.log, "requires .target sm_80"));
  assert_true(has_option(&p, "--gpu-architecture=sm_75"));
  assert_true(p.nvrtc_major >= 12);
  /* the PTX ptxas refused stays: the log's "ptx input, line N" point into it */
  assert_non_null(p.ptx);
  assert_non_null(strstr(p.ptx, "mma.sync.aligned.m16n8k16.row.col.f32.bf16.bf16.f32"));
  assert_false(p.cache_hit);
  char first_log[4096];
  snprintf(first_log, sizeof first_log, "%s", p.log);
  tcmma_program_free(&p);
  /* The rejection is the source's: cached, the same outcome from memory and
   * from disk, without a compile. */
  for (int round = 0; round < 2; round++) {
    if (round == 1) tcmma_cache_clear_memory();
    tcmma_error again;
    assert_int_equal(tcmma_compile(src, strlen(src), &o, &p, &again), TCMMA_COMPILE);
    assert_true(p.cache_hit);
    assert_string_equal(again.message, err.message);
    assert_string_equal(p.log, first_log);
    assert_non_null(p.ptx);
    tcmma_program_free(&p);
  }
  /* NVRTC's own front end errors come back the same way. */
  const char *broken = "__global__ void k() { undeclared_thing(); }\n";
  assert_int_equal(tcmma_compile(broken, strlen(broken), NULL, &p, &err), TCMMA_COMPILE);
  assert_non_null(strstr(p.log, "undeclared_thing"));
  tcmma_program_free(&p);
}

/* ptxas -v (added to every CUBIN compile for the figures) leaves some
 * errors out of NVRTC's log: the error must still name them. */
static void test_sass_error_named_with_figures(void **state) {
  (void)state;
  static const char src[] =
      "extern \"C\" __global__ void k_big(float *d) {\n"
      "  __shared__ float s[30000];\n"
      "  s[threadIdx.x] = 1; __syncthreads(); d[threadIdx.x] = s[threadIdx.x ^ 1];\n"
      "}\n";
  tcmma_compile_opts o = TCMMA_COMPILE_OPTS_INIT(.arch = 80, .sass = true);
  tcmma_program p;
  tcmma_error err;
  assert_int_equal(tcmma_compile(src, strlen(src), &o, &p, &err), TCMMA_COMPILE);
  if (!strstr(err.message, "'k_big' uses too much shared data"))
    fail_msg("the error names nothing: '%s'; log '%s'", err.message, p.log);
  assert_non_null(strstr(p.log, "'k_big' uses too much shared data"));
  assert_true(p.ptxas_info);
  assert_int_equal(p.shared_bytes, 120000);
  tcmma_program_free(&p);
}

static size_t arch_options(const tcmma_program *p) {
  size_t n = 0;
  for (size_t i = 0; i < p->n_options; i++) n += strncmp(p->options[i], "--gpu-architecture", 18) == 0;
  return n;
}

/* An explicit arch replaces the marker-derived one (one --gpu-architecture,
 * no NVRTC warning), reaches ptxas below a floor, and is checked against what
 * NVRTC compiles for. (mma-bf16) asks for 80 (tables/arms.def). */
static void test_explicit_arch(void **state) {
  (void)state;
  char src[sizeof bf16_src + 96];
  snprintf(src, sizeof src, "// (mma-bf16)\n%s", bf16_source("x"));
  tcmma_compile_opts o = TCMMA_COMPILE_OPTS_INIT(.name = "t.cu", .target = TCMMA_TARGET_FLOOR,
                                                 .sass = true, .arch = 90);
  tcmma_program p;
  tcmma_error err;
  if (tcmma_compile(src, strlen(src), &o, &p, &err) != TCMMA_OK) fail_msg("%s", err.message);
  assert_string_equal(p.target_arch, "sm_90");
  assert_true(has_option(&p, "--gpu-architecture=sm_90"));
  assert_int_equal(arch_options(&p), 1);
  assert_null(strstr(p.log, "warning"));
  tcmma_program_free(&p);
  /* PTX only: compute_90 */
  o.sass = false;
  assert_int_equal(tcmma_compile(src, strlen(src), &o, &p, &err), TCMMA_OK);
  assert_string_equal(p.target_arch, "sm_90");
  assert_true(has_option(&p, "--gpu-architecture=compute_90"));
  assert_int_equal(arch_options(&p), 1);
  tcmma_program_free(&p);
  /* below the marker's floor: no floor error, ptxas itself refuses */
  tcmma_compile_opts low = TCMMA_COMPILE_OPTS_INIT(.name = "t.cu", .target = TCMMA_TARGET_NATIVE,
                                                   .cc = 90, .sass = true, .arch = 75);
  assert_int_equal(tcmma_compile(src, strlen(src), &low, &p, &err), TCMMA_COMPILE);
  assert_non_null(strstr(p.log, "requires .target sm_80"));
  assert_null(strstr(p.log, "followed by"));
  assert_true(has_option(&p, "--gpu-architecture=sm_75"));
  assert_int_equal(arch_options(&p), 1);
  tcmma_program_free(&p);
  /* an arch suffix NVRTC accepts: sm_90a */
  o.sass = true, o.arch_suffix = 'a';
  if (tcmma_compile(src, strlen(src), &o, &p, &err) != TCMMA_OK) fail_msg("%s", err.message);
  assert_true(has_option(&p, "--gpu-architecture=sm_90a"));
  tcmma_program_free(&p);
  /* archs NVRTC does not compile for, and a bad suffix */
  const int bad[] = {81, -80, 1000};
  for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
    o.arch = bad[i], o.arch_suffix = 0;
    assert_int_equal(tcmma_compile(src, strlen(src), &o, &p, &err), TCMMA_INVALID);
    char want[32];
    snprintf(want, sizeof want, "arch %d", bad[i]);
    assert_non_null(strstr(err.message, want));
    assert_non_null(strstr(err.message, "it does for"));
    assert_non_null(strstr(err.message, " 90"));
  }
  o.arch = 90, o.arch_suffix = 'x';
  assert_int_equal(tcmma_compile(src, strlen(src), &o, &p, &err), TCMMA_INVALID);
  assert_non_null(strstr(err.message, "suffix 'x'"));
}

static void test_pins_and_headers(void **state) {
  (void)state;
  /* The toolkit headers are reachable (NVRTC 13 has no built-in mma.h). */
  const char *src = "#include <mma.h>\n#include <cuda_bf16.h>\n"
                    "__global__ void k(float *x) { x[0] = x[1] * x[2] + x[3]; }\n";
  tcmma_compile_opts o = TCMMA_COMPILE_OPTS_INIT(.fmad_false = true, .debug = true);
  tcmma_program p;
  tcmma_error err;
  if (tcmma_compile(src, strlen(src), &o, &p, &err) != TCMMA_OK) fail_msg("%s", err.message);
  assert_true(has_option(&p, "--fmad=false"));
  assert_true(has_option(&p, "-G"));
  assert_non_null(strstr(p.ptx, ", debug"));
  assert_null(strchr(p.target_arch, ',')); /* the arch alone, without debug */
  assert_int_equal(strncmp(p.target_arch, "sm_", 3), 0);
  /* The markers (nvcuda::wmma via mma.h is not in the text; __nv_bfloat16
   * is not either) leave the floor target without an arch option. */
  for (size_t i = 0; i < p.n_options; i++)
    assert_null(strstr(p.options[i], "--gpu-architecture"));
  tcmma_program_free(&p);
  assert_int_equal(tcmma_compile("a\0b", 3, NULL, &p, &err), TCMMA_INVALID);
  assert_int_equal(tcmma_compile(NULL, 0, NULL, &p, &err), TCMMA_INVALID);
}

static void test_gpu_arch_options_real(void **state) {
  (void)state;
  tcmma_arch_support s;
  assert_int_equal(tcmma_nvrtc_support(&s, NULL), TCMMA_OK);
  int lowest = s.archs[0];
  for (size_t i = 0; i < s.count; i++) lowest = s.archs[i] < lowest ? s.archs[i] : lowest;
  tcmma_nvrtc_info info;
  assert_int_equal(tcmma_nvrtc_load(&info, NULL), TCMMA_OK);
  if (info.major == 13) assert_int_equal(lowest, 75); /* docs/design.md §13 */
  tcmma_arch_options o;
  const char *src = "__half h;";
  assert_int_equal(tcmma_gpu_arch_options(src, strlen(src), 0, TCMMA_TARGET_FLOOR, &o, NULL),
                   TCMMA_OK);
  char want[64];
  snprintf(want, sizeof want, "--gpu-architecture=compute_%d", lowest > 53 ? lowest : 53);
  assert_string_equal(o.option, want);
  /* NVRTC 13 takes the family target compute_120f (docs/design.md §8). */
  src = "// (mma-mxfp8)";
  assert_int_equal(tcmma_gpu_arch_options(src, strlen(src), 0, TCMMA_TARGET_FLOOR, &o, NULL),
                   TCMMA_OK);
  if (info.major == 13) assert_string_equal(o.option, "--gpu-architecture=compute_120f");
  /* Detection by trying: NVRTC 13 has 120f and 121a, but no 80f nor 75a. */
  if (info.major == 13) {
    assert_true(s.accepts(120, 'f', s.ctx));
    assert_true(s.accepts(121, 'a', s.ctx));
    assert_false(s.accepts(80, 'f', s.ctx));
    assert_false(s.accepts(75, 'a', s.ctx));
  }
  setenv("TCMMA_PTX_TARGET", "native", 1);
  assert_int_equal(tcmma_gpu_arch_options(src, strlen(src), 121, TCMMA_TARGET_CURRENT, &o, NULL),
                   TCMMA_OK);
  assert_string_equal(o.option, "--gpu-architecture=compute_121a");
  unsetenv("TCMMA_PTX_TARGET");
}

typedef struct {
  const char *tag;
  int cc;
} job;

static tcmma_status compile_job(void *arg) {
  const job *j = arg;
  for (; j->tag; j++) {
    const char *src = source(j->tag);
    tcmma_compile_opts o = TCMMA_COMPILE_OPTS_INIT(.name = j->tag, .cc = j->cc);
    tcmma_program p;
    tcmma_status st = tcmma_compile(src, strlen(src), &o, &p, NULL);
    tcmma_program_free(&p);
    if (st != TCMMA_OK) return st;
  }
  return TCMMA_OK;
}

typedef struct {
  const job *before, *after;
  tcmma_records inner;
} nested_job;

static tcmma_status nested(void *arg) {
  nested_job *n = arg;
  tcmma_status st = compile_job((void *)n->before);
  if (st != TCMMA_OK) return st;
  st = tcmma_with_target(TCMMA_TARGET_NATIVE, compile_job, (void *)n->after, &n->inner, NULL);
  return st;
}

static void test_scope_records(void **state) {
  (void)state;
  /* "a" is compiled before any scope: inside, it is a cache hit and records
   * nothing. "b" and "c" are compiled in the outer (floor) scope, "d" in the
   * inner (native, cc 86) one, which the outer one sees as well. */
  assert_int_equal(compile_job((job[]){{"a", 86}, {NULL, 0}}), TCMMA_OK);
  nested_job n = {(job[]){{"b", 86}, {"a", 86}, {"c", 86}, {NULL, 0}},
                  (job[]){{"d", 86}, {"b", 86}, {NULL, 0}}, {0}};
  tcmma_records outer;
  assert_int_equal(tcmma_with_target(TCMMA_TARGET_FLOOR, nested, &n, &outer, NULL), TCMMA_OK);
  assert_int_equal(outer.count, 4);
  assert_string_equal(outer.items[0].name, "b");
  assert_string_equal(outer.items[1].name, "c");
  assert_string_equal(outer.items[2].name, "d");
  /* "b" again at native is a different program (other options). */
  assert_string_equal(outer.items[3].name, "b");
  assert_null(strstr(outer.items[0].options, "--gpu-architecture"));
  assert_non_null(strstr(outer.items[2].options, "--gpu-architecture=compute_86"));
  assert_non_null(strstr(outer.items[2].ptx, ".target sm_86"));
  assert_string_equal(outer.items[2].target_arch, "sm_86");
  /* Floor with no marker: NVRTC's default arch, whatever the PTX says. */
  char want[32];
  const char *t = strstr(outer.items[0].ptx, ".target ");
  assert_non_null(t);
  snprintf(want, sizeof want, "%.*s", (int)strcspn(t + 8, ",\n \t"), t + 8);
  assert_string_equal(outer.items[0].target_arch, want);
  assert_int_equal(n.inner.count, 2);
  assert_string_equal(n.inner.items[0].name, "d");
  assert_string_equal(n.inner.items[1].name, "b");
  assert_string_equal(n.inner.items[0].options, outer.items[2].options);
  tcmma_records_free(&outer);
  tcmma_records_free(&n.inner);
  /* Everything again: all cache hits, nothing recorded. */
  n.inner = (tcmma_records){0};
  assert_int_equal(tcmma_with_target(TCMMA_TARGET_FLOOR, nested, &n, &outer, NULL), TCMMA_OK);
  assert_int_equal(outer.count, 0);
  assert_int_equal(n.inner.count, 0);
  tcmma_records_free(&n.inner);
}

/* The files of cache_dir but its secret and the upkeep's state file: how
 * many, and the last one's path. */
static void entry_file(char *path, size_t cap, int *count) {
  DIR *d = opendir(cache_dir);
  *count = 0;
  path[0] = '\0';
  if (!d) return;
  for (struct dirent *e; (e = readdir(d));) {
    if (e->d_name[0] == '.' || strcmp(e->d_name, "secret") == 0 ||
        strcmp(e->d_name, "upkeep") == 0)
      continue;
    (*count)++;
    snprintf(path, cap, "%s/%s", cache_dir, e->d_name);
  }
  closedir(d);
}

static tcmma_program compile_floor(const char *tag, tcmma_status want) {
  const char *src = source(tag);
  tcmma_compile_opts o = TCMMA_COMPILE_OPTS_INIT(.name = "t.cu");
  tcmma_program p;
  tcmma_error err = {0};
  tcmma_status st = tcmma_compile(src, strlen(src), &o, &p, &err);
  if (st != want) fail_msg("compile %s: %s (%s)", tag, tcmma_status_name(st), err.message);
  return p;
}

static void test_disk_cache_entry(void **state) {
  (void)state;
  tcmma_program first = compile_floor("disk", TCMMA_OK);
  assert_false(first.cache_hit);
  char path[512];
  int count;
  entry_file(path, sizeof path, &count);
  assert_int_equal(count, 1);
  /* The entry is named by the key: 64 hex digits. */
  const char *base = strrchr(path, '/') + 1;
  assert_int_equal(strspn(base, "0123456789abcdef"), 64);
  /* Served from disk once memory is empty. */
  tcmma_cache_clear_memory();
  tcmma_program again = compile_floor("disk", TCMMA_OK);
  assert_true(again.cache_hit);
  assert_string_equal(again.ptx, first.ptx);
  assert_string_equal(again.target_arch, first.target_arch);
  tcmma_program_free(&again);
  /* A flipped byte in the PTX: a miss, and the right program compiled. */
  size_t len;
  char *bytes = read_file(path, &len);
  assert_non_null(bytes);
  bytes[len - 10] ^= 0x20;
  FILE *f = fopen(path, "wb");
  fwrite(bytes, 1, len, f);
  fclose(f);
  tcmma_cache_clear_memory();
  again = compile_floor("disk", TCMMA_OK);
  assert_false(again.cache_hit);
  assert_string_equal(again.ptx, first.ptx);
  tcmma_program_free(&again);
  /* The recompile rewrote the entry whole; now truncate it. */
  free(bytes);
  bytes = read_file(path, &len);
  assert_int_equal(truncate(path, (off_t)(len / 2)), 0);
  tcmma_cache_clear_memory();
  again = compile_floor("disk", TCMMA_OK);
  assert_false(again.cache_hit);
  tcmma_program_free(&again);
  /* Garbage of the right name, and a directory where the file should be. */
  f = fopen(path, "wb");
  fputs("not a cache entry", f);
  fclose(f);
  tcmma_cache_clear_memory();
  again = compile_floor("disk", TCMMA_OK);
  assert_false(again.cache_hit);
  assert_string_equal(again.ptx, first.ptx);
  tcmma_program_free(&again);
  free(bytes);
  tcmma_program_free(&first);
}

static void test_cache_off(void **state) {
  (void)state;
  setenv("TCMMA_CACHE", "0", 1);
  char dir[512];
  assert_false(tcmma_cache_dir(dir, sizeof dir));
  tcmma_program p = compile_floor("off", TCMMA_OK);
  tcmma_program_free(&p);
  int count;
  entry_file(dir, sizeof dir, &count);
  assert_int_equal(count, 0);
  p = compile_floor("off", TCMMA_OK); /* memory still serves it */
  assert_true(p.cache_hit);
  tcmma_program_free(&p);
  unsetenv("TCMMA_CACHE");
  unsetenv("TCMMA_CACHE_DIR");
  setenv("XDG_CACHE_HOME", "/tmp/xdg-somewhere", 1);
  assert_true(tcmma_cache_dir(dir, sizeof dir));
  assert_string_equal(dir, "/tmp/xdg-somewhere/tcmma");
  unsetenv("XDG_CACHE_HOME");
  char *home = getenv("HOME") ? strdup(getenv("HOME")) : NULL;
  setenv("HOME", "/home/someone", 1);
  assert_true(tcmma_cache_dir(dir, sizeof dir));
  assert_string_equal(dir, "/home/someone/.cache/tcmma");
  if (home) setenv("HOME", home, 1);
  else unsetenv("HOME");
  free(home);
}

/* TCMMA_CACHE takes 0 or 1 (unset or empty: 1); anything else is an error
 * naming it, from the library and the CLI, not a silent choice. */
static void test_cache_setting_values(void **state) {
  (void)state;
  static const char *const bad[] = {"off", "no", "2", " 0"};
  for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
    setenv("TCMMA_CACHE", bad[i], 1);
    tcmma_program p;
    tcmma_error err;
    const char *src = source("setting");
    tcmma_compile_opts o = TCMMA_COMPILE_OPTS_INIT(.name = "t.cu");
    assert_int_equal(tcmma_compile(src, strlen(src), &o, &p, &err), TCMMA_INVALID);
    char want[64];
    snprintf(want, sizeof want, "TCMMA_CACHE='%s'", bad[i]);
    assert_non_null(strstr(err.message, want));
    assert_non_null(strstr(err.message, "expected 0"));
    assert_non_null(strstr(err.message, " or 1"));
    tcmma_program_free(&p);
  }
  const char *argv[] = {"compile", "-", "-o", "-", NULL};
  cli_result r = run_cli(argv, source("setting-cli"));
  assert_int_equal(r.exit_code, 1);
  assert_non_null(strstr(r.err, "TCMMA_CACHE=' 0'"));
  cli_result_free(&r);
  char dir[512];
  int count;
  static const char *const on[] = {"1", ""};
  for (size_t i = 0; i < 2; i++) {
    setenv("TCMMA_CACHE", on[i], 1);
    assert_true(tcmma_cache_dir(dir, sizeof dir));
    char tag[16];
    snprintf(tag, sizeof tag, "on%zu", i);
    tcmma_program p = compile_floor(tag, TCMMA_OK);
    tcmma_program_free(&p);
    entry_file(dir, sizeof dir, &count);
    assert_int_equal(count, (int)i + 1); /* the disk cache is on */
  }
  unsetenv("TCMMA_CACHE");
}

/* XDG_CACHE_HOME (without TCMMA_CACHE_DIR) is where the disk cache goes; an
 * unwritable one is named in the CLI's one warning, and the compile works. */
static void test_xdg_cache_home_cli(void **state) {
  (void)state;
  char xdg[300], file[300], entry_dir[400];
  snprintf(xdg, sizeof xdg, "%s-xdg", cache_dir);
  snprintf(entry_dir, sizeof entry_dir, "%s/tcmma", xdg);
  snprintf(file, sizeof file, "%s-xdg-file", cache_dir);
  unsetenv("TCMMA_CACHE_DIR");
  const char *argv[] = {"compile", "-", "-o", "/dev/null", NULL};
  setenv("XDG_CACHE_HOME", xdg, 1);
  cli_result r = run_cli(argv, source("xdg"));
  assert_int_equal(r.exit_code, 0);
  assert_null(strstr(r.err, "warning"));
  cli_result_free(&r);
  struct stat st;
  assert_int_equal(stat(entry_dir, &st), 0); /* written under $XDG_CACHE_HOME/tcmma */
  char cmd[400];
  snprintf(cmd, sizeof cmd, "rm -rf '%s'", xdg);
  assert_int_equal(system(cmd), 0);
  FILE *f = fopen(file, "w"); /* a directory below a file cannot be made */
  assert_non_null(f);
  fclose(f);
  setenv("XDG_CACHE_HOME", file, 1);
  r = run_cli(argv, source("xdg"));
  assert_int_equal(r.exit_code, 0);
  char want[400];
  snprintf(want, sizeof want, "warning: cache directory %s/tcmma is not usable", file);
  assert_non_null(strstr(r.err, want));
  cli_result_free(&r);
  unlink(file);
  unsetenv("XDG_CACHE_HOME");
  setenv("TCMMA_CACHE_DIR", cache_dir, 1);
}

/* CUDA_HOME is where NVRTC is looked for first (after TCMMA_NVRTC, which is
 * the only place when set); one that lacks it falls through to the build's
 * toolkit, as docs/nvrtc.md says. Seen in `compile --json`'s nvrtc_library. */
static void test_cuda_home(void **state) {
  (void)state;
  char home[300], lib64[320], lib[360], real[1200];
  snprintf(home, sizeof home, "%s-home", cache_dir);
  snprintf(lib64, sizeof lib64, "%s/lib64", home);
  snprintf(lib, sizeof lib, "%s/libnvrtc.so", lib64);
  snprintf(real, sizeof real, "%s/lib64/libnvrtc.so", cuda_home());
  assert_int_equal(mkdir(home, 0755), 0);
  assert_int_equal(mkdir(lib64, 0755), 0);
  assert_int_equal(symlink(real, lib), 0);
  char *saved = getenv("CUDA_HOME") ? strdup(getenv("CUDA_HOME")) : NULL;
  unsetenv("TCMMA_NVRTC");
  const char *argv[] = {"compile", "-", "-o", "/dev/null", "--json", NULL};
  struct {
    const char *cuda_home, *nvrtc, *want;
  } cases[] = {{home, NULL, lib}, {"/nonexistent-cuda", NULL, NULL}, {"/nonexistent-cuda", lib, lib}};
  for (size_t i = 0; i < 3; i++) {
    setenv("CUDA_HOME", cases[i].cuda_home, 1);
    if (cases[i].nvrtc) setenv("TCMMA_NVRTC", cases[i].nvrtc, 1);
    cli_result r = run_cli(argv, source("home"));
    unsetenv("TCMMA_NVRTC");
    assert_int_equal(r.exit_code, 0);
    char want[512];
    snprintf(want, sizeof want, "\"nvrtc_library\": \"%s\"", cases[i].want ? cases[i].want : "");
    if (cases[i].want) assert_non_null(strstr(r.out, want));
    else assert_null(strstr(r.out, "/nonexistent-cuda"));
    assert_non_null(strstr(r.out, "\"nvrtc_library\": \"/"));
    cli_result_free(&r);
  }
  if (saved) setenv("CUDA_HOME", saved, 1);
  else unsetenv("CUDA_HOME");
  free(saved);
  unlink(lib), rmdir(lib64), rmdir(home);
}

/* A library that is not NVRTC: the message names it and dlopen's or dlsym's
 * reason, and a CUDA_HOME candidate that lacks NVRTC's functions falls
 * through to the next one (docs/nvrtc.md). */
static void test_nvrtc_bad_libraries_cli(void **state) {
  (void)state;
  const char *not_nvrtc = fake_cuda_build(); /* a shared library without nvrtc* */
  assert_non_null(not_nvrtc);
  char text_file[300];
  snprintf(text_file, sizeof text_file, "%s", src_path("README.md"));
  char *saved = getenv("CUDA_HOME") ? strdup(getenv("CUDA_HOME")) : NULL;
  const char *argv[] = {"compile", "-", "-o", "/dev/null", "--json", NULL};
  setenv("TCMMA_NVRTC", text_file, 1);
  cli_result r = run_cli(argv, source("badlib"));
  assert_int_equal(r.exit_code, 1);
  assert_non_null(strstr(r.err, text_file));
  assert_non_null(strstr(r.err, "invalid ELF header")); /* dlerror()'s reason */
  cli_result_free(&r);
  setenv("TCMMA_NVRTC", not_nvrtc, 1);
  r = run_cli(argv, source("badlib"));
  assert_int_equal(r.exit_code, 1);
  char want[600];
  snprintf(want, sizeof want, "%s (lacks nvrtcGetErrorString)", not_nvrtc);
  if (!strstr(r.err, want)) fail_msg("'%s' not in: %s", want, r.err);
  cli_result_free(&r);
  unsetenv("TCMMA_NVRTC");
  /* CUDA_HOME/lib64/libnvrtc.so is that library: the next candidate loads */
  char home[300], lib64[320], lib[360];
  snprintf(home, sizeof home, "%s-badhome", cache_dir);
  snprintf(lib64, sizeof lib64, "%s/lib64", home);
  snprintf(lib, sizeof lib, "%s/libnvrtc.so", lib64);
  assert_int_equal(mkdir(home, 0755), 0);
  assert_int_equal(mkdir(lib64, 0755), 0);
  assert_int_equal(symlink(not_nvrtc, lib), 0);
  setenv("CUDA_HOME", home, 1);
  r = run_cli(argv, source("badlib"));
  if (saved) setenv("CUDA_HOME", saved, 1);
  else unsetenv("CUDA_HOME");
  free(saved);
  if (r.exit_code != 0) fail_msg("exit %d: %s", r.exit_code, r.err);
  assert_null(strstr(r.out, home)); /* not loaded from the bad home */
  assert_non_null(strstr(r.out, "\"nvrtc_library\": \"/"));
  cli_result_free(&r);
  unlink(lib), rmdir(lib64), rmdir(home);
  fake_cuda_remove();
}

static void test_unwritable_dir(void **state) {
  (void)state;
  /* A path under a regular file cannot be created, even by root. */
  char file[300];
  snprintf(file, sizeof file, "%s-file", cache_dir);
  FILE *f = fopen(file, "w");
  assert_non_null(f);
  fclose(f);
  char dir[400];
  snprintf(dir, sizeof dir, "%s/sub", file);
  setenv("TCMMA_CACHE_DIR", dir, 1);
  assert_null(tcmma_cache_warning());
  tcmma_program p = compile_floor("ro1", TCMMA_OK);
  assert_false(p.cache_hit);
  tcmma_program_free(&p);
  const char *w = tcmma_cache_warning();
  assert_non_null(w);
  assert_non_null(strstr(w, dir));
  assert_non_null(strstr(w, "memory only"));
  char buf[512];
  assert_false(tcmma_cache_dir(buf, sizeof buf)); /* degraded */
  p = compile_floor("ro2", TCMMA_OK);
  tcmma_program_free(&p);
  assert_ptr_equal(tcmma_cache_warning(), w); /* one warning, not two */
  p = compile_floor("ro1", TCMMA_OK);
  assert_true(p.cache_hit);
  tcmma_program_free(&p);
  unlink(file);
}

static void test_two_writers_one_key(void **state) {
  (void)state;
  pid_t kids[2];
  for (int i = 0; i < 2; i++) {
    kids[i] = fork();
    if (kids[i] == 0) {
      tcmma_cache_clear_memory();
      const char *src = source("race");
      tcmma_compile_opts o = TCMMA_COMPILE_OPTS_INIT(.name = "t.cu");
      tcmma_program p;
      if (tcmma_compile(src, strlen(src), &o, &p, NULL) != TCMMA_OK) _exit(1);
      _exit(p.cache_hit ? 2 : 0);
    }
  }
  int hits = 0;
  for (int i = 0; i < 2; i++) {
    int status = 0;
    assert_int_equal(waitpid(kids[i], &status, 0), kids[i]);
    assert_true(WIFEXITED(status));
    assert_int_not_equal(WEXITSTATUS(status), 1); /* both compiled or hit */
    hits += WEXITSTATUS(status) == 2;            /* a later child may hit */
  }
  assert_true(hits <= 1);
  char path[512];
  int count;
  entry_file(path, sizeof path, &count);
  assert_int_equal(count, 1); /* one entry, no temporary files left */
  assert_null(strstr(path, ".tmp"));
  tcmma_program p = compile_floor("race", TCMMA_OK);
  assert_true(p.cache_hit);
  tcmma_program_free(&p);
}

/* Beside the cache directory: src (a file holding source(tag)) and out. */
static void cli_files(const char *tag, char src[300], char out[300]) {
  snprintf(src, 300, "%s-src.cu", cache_dir);
  snprintf(out, 300, "%s-out.ptx", cache_dir);
  FILE *f = fopen(src, "w");
  assert_non_null(f);
  fputs(source(tag), f);
  fclose(f);
}

static void test_hit_across_processes_cli(void **state) {
  (void)state;
  char src_path_buf[300], out[300];
  cli_files("cli", src_path_buf, out);
  const char *argv[] = {"compile", src_path_buf, "-o", out, "--json", NULL};
  cli_result r1 = run_cli(argv, NULL);
  assert_int_equal(r1.exit_code, 0);
  assert_non_null(strstr(r1.out, "\"cache_hit\": false"));
  cli_result r2 = run_cli(argv, NULL);
  assert_int_equal(r2.exit_code, 0);
  assert_non_null(strstr(r2.out, "\"cache_hit\": true"));
  char *ptx = read_file(out, NULL);
  assert_non_null(ptx);
  assert_non_null(strstr(ptx, "mma.sync.aligned.m16n8k8"));
  free(ptx);
  cli_result_free(&r1), cli_result_free(&r2);
  unlink(src_path_buf), unlink(out);
}

/* -o onto a file that already holds the output leaves its bytes alone and
 * sets its mtime (what a build tool reads); any other content is rewritten,
 * a same-sized one included. */
static void test_output_rewritten_only_when_different(void **state) {
  (void)state;
  char src[300], out[300];
  cli_files("output", src, out);
  const char *argv[] = {"compile", src, "-o", out, NULL};
  cli_result r = run_cli(argv, NULL);
  assert_int_equal(r.exit_code, 0);
  cli_result_free(&r);
  size_t len = 0;
  char *want = read_file(out, &len);
  assert_non_null(want);
  struct stat before, after;
  struct timespec old[2] = {{.tv_sec = 1000000000}, {.tv_sec = 1000000000}};
  assert_int_equal(utimensat(AT_FDCWD, out, old, 0), 0);
  assert_int_equal(stat(out, &before), 0);
  r = run_cli(argv, NULL);
  assert_int_equal(r.exit_code, 0);
  cli_result_free(&r);
  assert_int_equal(stat(out, &after), 0);
  assert_int_equal(after.st_ino, before.st_ino);
  assert_true(after.st_mtime > before.st_mtime);
  char *got = read_file(out, NULL);
  assert_string_equal(got, want);
  free(got);
  for (int way = 0; way < 2; way++) { /* the same size, then a shorter file */
    FILE *f = fopen(out, "w");
    for (size_t i = 0; way == 0 && i < len; i++) fputc('x', f);
    if (way == 1) fputs("stale", f);
    fclose(f);
    r = run_cli(argv, NULL);
    assert_int_equal(r.exit_code, 0);
    cli_result_free(&r);
    got = read_file(out, NULL);
    assert_string_equal(got, want);
    free(got);
  }
  free(want);
  unlink(src), unlink(out);
}

static void test_nvrtc_missing_cli(void **state) {
  (void)state;
  setenv("TCMMA_NVRTC", "/nonexistent/libnvrtc.so", 1);
  const char *argv[] = {"compile", "-", NULL};
  cli_result r = run_cli(argv, "__global__ void k() {}\n");
  assert_int_equal(r.exit_code, 1);
  assert_non_null(strstr(r.err, "cannot load NVRTC"));
  assert_non_null(strstr(r.err, "/nonexistent/libnvrtc.so"));
  cli_result_free(&r);
  const char *argv2[] = {"options", "-", NULL};
  r = run_cli(argv2, "// (mma-bf16)\n");
  assert_int_equal(r.exit_code, 1);
  assert_non_null(strstr(r.err, "cannot load NVRTC"));
  cli_result_free(&r);
  unsetenv("TCMMA_NVRTC");
}

static void *thread_compiles(void *arg) {
  const char *const *tags = arg;
  long failures = 0;
  for (int i = 0; tags[i]; i++) {
    const char *src = source(tags[i]); /* thread-local buffer */
    char *mine = strdup(src);
    tcmma_compile_opts o = TCMMA_COMPILE_OPTS_INIT(.name = tags[i], .cc = 80);
    tcmma_program p;
    failures += tcmma_compile(mine, strlen(mine), &o, &p, NULL) != TCMMA_OK;
    tcmma_program_free(&p);
    free(mine);
  }
  return (void *)failures;
}

static void test_threads_share_scope(void **state) {
  (void)state;
  static const char *const tags[4][3] = {
      {"t0a", "t0b", NULL}, {"t1a", "t1b", NULL}, {"t2a", "t2b", NULL}, {"t3a", "t3b", NULL}};
  tcmma_target_scope *scope;
  assert_int_equal(tcmma_target_scope_begin(TCMMA_TARGET_NATIVE, &scope, NULL), TCMMA_OK);
  pthread_t th[4];
  for (int i = 0; i < 4; i++)
    assert_int_equal(pthread_create(&th[i], NULL, thread_compiles, (void *)tags[i]), 0);
  for (int i = 0; i < 4; i++) {
    void *failures;
    pthread_join(th[i], &failures);
    assert_int_equal((long)failures, 0);
  }
  tcmma_records r;
  tcmma_target_scope_end(scope, &r);
  assert_int_equal(r.count, 8);
  for (int i = 0; i < 4; i++)
    for (int j = 0; j < 2; j++) {
      int seen = 0;
      for (size_t k = 0; k < r.count; k++) seen += strcmp(r.items[k].name, tags[i][j]) == 0;
      assert_int_equal(seen, 1);
    }
  for (size_t k = 0; k < r.count; k++) {
    assert_non_null(strstr(r.items[k].options, "compute_80")); /* the scope's native target */
    assert_string_equal(r.items[k].target_arch, "sm_80");
  }
  tcmma_records_free(&r);
}

static void test_compile_cli_report(void **state) {
  (void)state;
  setenv("TCMMA_CACHE", "0", 1);
  char out[300];
  snprintf(out, sizeof out, "%s-bf16.cubin", cache_dir);
  const char *argv[] = {"compile", "tests/data/mma_bf16.cu", "--sass", "-o", out, NULL};
  cli_result r = run_cli(argv, NULL);
  assert_int_equal(r.exit_code, 0);
  assert_non_null(strstr(r.out, "target:   sm_80"));
  assert_non_null(strstr(r.out, "1  mma.sync.aligned.m16n8k16.row.col.f32.bf16.bf16.f32"));
  assert_non_null(strstr(r.out, out));
  size_t len = 0;
  char *cubin = read_file(out, &len);
  assert_non_null(cubin);
  assert_true(len > 4 && memcmp(cubin, "\177ELF", 4) == 0);
  free(cubin);
  cli_result_free(&r);
  unlink(out);
  /* The same instruction without its marker, at the floor: sm_75, which
   * ptxas rejects; the CLI shows the options and the whole log. */
  const char *argv2[] = {"compile", "-", "--sass", "-o", out, NULL};
  r = run_cli(argv2, bf16_source("cli2"));
  assert_int_equal(r.exit_code, 1);
  assert_non_null(strstr(r.err, "--gpu-architecture=sm_75"));
  assert_non_null(strstr(r.err, "requires .target sm_80"));
  assert_non_null(strstr(r.err, "ptxas fatal"));
  cli_result_free(&r);
  unsetenv("TCMMA_CACHE");
}

/* Real-world files: -I, -D, the dialect, the toolkit's include/cccl (CUDA 13
 * keeps <cuda/pipeline> there), in one list (tcmma_compile_include_dirs). */
static void test_includes_defines_dialect(void **state) {
  (void)state;
  char dir[300], hdr[340];
  snprintf(dir, sizeof dir, "%s-inc", cache_dir);
  assert_int_equal(mkdir(dir, 0700), 0);
  snprintf(hdr, sizeof hdr, "%s/scale.h", dir);
  FILE *f = fopen(hdr, "w");
  assert_non_null(f);
  fputs("#define SCALE 2.0f\n", f);
  fclose(f);
  const char *src =
      "#include <cuda/pipeline>\n#include \"scale.h\"\n"
      "__global__ void k(float *out, const float *in) {\n"
      "  __shared__ float s[128];\n"
      "  auto pipe = cuda::make_pipeline();\n"
      "  pipe.producer_acquire();\n"
      "  cuda::memcpy_async(&s[threadIdx.x], &in[threadIdx.x], sizeof(float), pipe);\n"
      "  pipe.producer_commit();\n"
      "  cuda::pipeline_consumer_wait_prior<0>(pipe);\n"
      "#if WIDE > 3\n  out[threadIdx.x] = s[threadIdx.x] * SCALE;\n#endif\n}\n";
  const char *dirs[] = {dir}, *defines[] = {"WIDE=4", "EMPTY"};
  tcmma_compile_opts o = TCMMA_COMPILE_OPTS_INIT(.include_dirs = dirs, .n_include_dirs = 1,
                                                 .defines = defines, .n_defines = 2,
                                                 .std = "c++17");
  tcmma_program p;
  tcmma_error err;
  if (tcmma_compile(src, strlen(src), &o, &p, &err) != TCMMA_OK) fail_msg("%s", err.message);
  char want[400];
  snprintf(want, sizeof want, "-I%s", dir);
  assert_true(has_option(&p, want));
  assert_true(has_option(&p, "-DWIDE=4"));
  assert_true(has_option(&p, "-DEMPTY"));
  assert_true(has_option(&p, "--std=c++17"));
  const char *list[8];
  size_t n = tcmma_compile_include_dirs(&o, list, 8);
  assert_int_equal(n, 3); /* the -I dir, then the toolkit's include/ and include/cccl */
  assert_string_equal(list[0], dir);
  assert_non_null(strstr(list[2], "/cccl"));
  for (size_t i = 0; i < n; i++) {
    snprintf(want, sizeof want, "-I%s", list[i]);
    assert_true(has_option(&p, want));
  }
  tcmma_program_free(&p);
  /* without the define the product compiles away; without -I, scale.h is missing */
  o.n_defines = 0, o.n_include_dirs = 0;
  assert_int_equal(tcmma_compile(src, strlen(src), &o, &p, &err), TCMMA_COMPILE);
  assert_non_null(strstr(p.log, "scale.h"));
  tcmma_program_free(&p);
  /* bad values are named */
  static const char *const bad_defines[] = {"9x", "", "A-B=1"};
  for (size_t i = 0; i < 3; i++) {
    tcmma_compile_opts b = TCMMA_COMPILE_OPTS_INIT(.defines = &bad_defines[i], .n_defines = 1);
    assert_int_equal(tcmma_compile(src, strlen(src), &b, &p, &err), TCMMA_INVALID);
    assert_non_null(strstr(err.message, "define"));
  }
  tcmma_compile_opts b = TCMMA_COMPILE_OPTS_INIT(.std = "c++99");
  assert_int_equal(tcmma_compile(src, strlen(src), &b, &p, &err), TCMMA_INVALID);
  assert_non_null(strstr(err.message, "c++99"));
  const char *arch_extra[] = {"--gpu-architecture=compute_80"};
  tcmma_compile_opts c = TCMMA_COMPILE_OPTS_INIT(.extra = arch_extra, .n_extra = 1);
  assert_int_equal(tcmma_compile(src, strlen(src), &c, &p, &err), TCMMA_INVALID);
  assert_non_null(strstr(err.message, "names an arch"));
  unlink(hdr), rmdir(dir);
}

/* NVRTC writes PTX for any .target; the compile refuses one that cannot hold
 * the PTX (an instruction the markers did not show, or an arch below it),
 * with the program kept for a look, from the cache as well. */
static void test_ptx_above_its_target(void **state) {
  (void)state;
  const char *src = bf16_source("above");
  tcmma_compile_opts o = TCMMA_COMPILE_OPTS_INIT(.name = "t.cu");
  tcmma_program p;
  tcmma_error err;
  for (int round = 0; round < 2; round++) {
    assert_int_equal(tcmma_compile(src, strlen(src), &o, &p, &err), TCMMA_FLOOR);
    assert_int_equal(p.cache_hit, round == 1);
    assert_non_null(p.ptx);
    assert_string_equal(p.target_arch, "sm_75");
    assert_non_null(strstr(err.message, "mma.sync.aligned.m16n8k16.row.col.f32.bf16.bf16.f32"));
    assert_non_null(strstr(err.message, "sm_80"));
    tcmma_program_free(&p);
  }
  /* wgmma asks for sm_90a; compute_90 cannot hold it */
  const char *wg = "__global__ void k() { asm volatile(\"wgmma.fence.sync.aligned;\"); }\n";
  assert_int_equal(tcmma_compile(wg, strlen(wg), NULL, &p, &err), TCMMA_OK);
  assert_string_equal(p.target_arch, "sm_90a");
  tcmma_program_free(&p);
  tcmma_compile_opts ninety = TCMMA_COMPILE_OPTS_INIT(.arch = 90);
  assert_int_equal(tcmma_compile(wg, strlen(wg), &ninety, &p, &err), TCMMA_FLOOR);
  assert_non_null(strstr(err.message, "sm_90a"));
  tcmma_program_free(&p);
  /* a kernel whose body sits under #if __CUDA_ARCH__ >= 800 compiles there */
  char guarded[sizeof bf16_src + 96];
  snprintf(guarded, sizeof guarded, "#if __CUDA_ARCH__ >= 800\n%s#endif\n", bf16_source("g"));
  assert_int_equal(tcmma_compile(guarded, strlen(guarded), NULL, &p, &err), TCMMA_OK);
  assert_true(has_option(&p, "--gpu-architecture=compute_80"));
  assert_non_null(strstr(p.ptx, "mma.sync.aligned.m16n8k16"));
  tcmma_program_free(&p);
}

/* The CLI: --arch, -I/-D/--std, pass-through, the log once, exit 1 above
 * the .target. */
static void test_compile_cli_real_world(void **state) {
  (void)state;
  setenv("TCMMA_CACHE", "0", 1);
  char out[300];
  snprintf(out, sizeof out, "%s-out.cubin", cache_dir);
  const char *wg = "__global__ void k() { asm volatile(\"wgmma.fence.sync.aligned;\"); }\n";
  cli_result r = run_cli((const char *const[]){"compile", "-", "--arch", "sm_90a", "-o", out, NULL}, wg);
  assert_int_equal(r.exit_code, 0);
  assert_non_null(strstr(r.out, "--gpu-architecture=sm_90a"));
  assert_non_null(strstr(r.out, "target:   sm_90a"));
  cli_result_free(&r);
  r = run_cli((const char *const[]){"compile", "-", "--arch", "compute_90", "-o", out, NULL}, wg);
  assert_int_equal(r.exit_code, 1);
  assert_non_null(strstr(r.err, "cannot hold 'wgmma.fence.sync.aligned': it needs sm_90a"));
  cli_result_free(&r);
  r = run_cli((const char *const[]){"compile", "-", "--arch", "compute_81", NULL}, wg);
  assert_int_equal(r.exit_code, 1);
  assert_non_null(strstr(r.err, "arch 81"));
  cli_result_free(&r);
  r = run_cli((const char *const[]){"compile", "-", "--arch", "sm_90f", NULL}, wg);
  assert_int_equal(r.exit_code, 2);
  cli_result_free(&r);
  /* -D, --std=, pass-through after -- */
  const char *def = "__global__ void k(int *x) {\n#ifdef ON\n  x[0] = VAL;\n#endif\n}\n";
  r = run_cli((const char *const[]){"compile", "-", "-DON", "-D", "VAL=7", "--std=c++14", "-o", out,
                                    "--", "-lineinfo", NULL},
              def);
  assert_int_equal(r.exit_code, 0);
  assert_non_null(strstr(r.out, "-DON -DVAL=7 --std=c++14 -lineinfo"));
  cli_result_free(&r);
  /* NVRTC's log once: a warning on success, the error on failure */
  const char *warn = "__global__ void k() { int unused_thing; }\n";
  r = run_cli((const char *const[]){"compile", "-", "-o", out, NULL}, warn);
  assert_int_equal(r.exit_code, 0);
  const char *w = strstr(r.err, "was declared but never referenced");
  assert_non_null(w);
  assert_null(strstr(w + 1, "was declared but never referenced"));
  cli_result_free(&r);
  const char *broken = "__global__ void k() { undeclared_thing(); }\n";
  r = run_cli((const char *const[]){"compile", "-", "-o", out, NULL}, broken);
  assert_int_equal(r.exit_code, 1);
  w = strstr(r.err, "is undefined");
  assert_non_null(w);
  assert_null(strstr(w + 1, "is undefined"));
  cli_result_free(&r);
  unlink(out);
  unsetenv("TCMMA_CACHE");
}

static void test_sha256_vectors(void **state) {
  (void)state;
  /* FIPS 180-2 appendix B.1 and B.2. */
  static const struct { const char *in, *hex; } v[] = {
      {"abc", "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad"},
      {"abcdbcdecdefdefgefghfghighijhijkijkljklmklmnlmnomnopnopq",
       "248d6a61d20638b8e5c026930c3e6039a33ce45964ff2167f6ecedd419db06c1"},
  };
  for (size_t i = 0; i < 2; i++) {
    tcmma__sha256_state s;
    unsigned char d[32];
    char hex[65];
    tcmma__sha256_init(&s);
    tcmma__sha256_update(&s, v[i].in, strlen(v[i].in));
    tcmma__sha256_final(&s, d);
    tcmma__sha256_hex(d, hex);
    assert_string_equal(hex, v[i].hex);
  }
  /* The portable and the CPU's implementation agree on every length (and on
   * an input fed in pieces); the vectors above ran on the default one. */
  static unsigned char data[1200];
  for (size_t i = 0; i < sizeof data; i++) data[i] = (unsigned char)(i * 131 + (i >> 3));
  for (size_t len = 0; len <= sizeof data; len += 7) {
    unsigned char one[32], two[32];
    for (int portable = 0; portable < 2; portable++) {
      tcmma__sha256_portable(portable);
      tcmma__sha256_state s;
      tcmma__sha256_init(&s);
      size_t half = len / 3;
      tcmma__sha256_update(&s, data, half);
      tcmma__sha256_update(&s, data + half, len - half);
      tcmma__sha256_final(&s, portable ? two : one);
    }
    assert_memory_equal(one, two, 32);
  }
  tcmma__sha256_portable(false);
  /* HMAC-SHA256, RFC 4231 test cases 1 and 2 */
  static const struct { const char *key, *data, *hex; } h[] = {
      {"\x0b\x0b\x0b\x0b\x0b\x0b\x0b\x0b\x0b\x0b\x0b\x0b\x0b\x0b\x0b\x0b\x0b\x0b\x0b\x0b",
       "Hi There", "b0344c61d8db38535ca8afceaf0bf12b881dc200c9833da726e9376c2e32cff7"},
      {"Jefe", "what do ya want for nothing?",
       "5bdcc146bf60754e6a042426089575c75a003f089d2739839dec58b964ec3843"},
  };
  for (size_t i = 0; i < 2; i++) {
    tcmma__sha256_hmac_state m;
    unsigned char d[32];
    char hex[65];
    tcmma__sha256_hmac_init(&m, (const unsigned char *)h[i].key, strlen(h[i].key));
    tcmma__sha256_hmac_update(&m, h[i].data, strlen(h[i].data));
    tcmma__sha256_hmac_final(&m, d);
    tcmma__sha256_hex(d, hex);
    assert_string_equal(hex, h[i].hex);
  }
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_sha256_vectors),
      cmocka_unit_test_setup_teardown(test_sm80_compiles, fresh_cache, remove_cache),
      cmocka_unit_test_setup_teardown(test_sm75_rejected_by_ptxas, fresh_cache, remove_cache),
      cmocka_unit_test_setup_teardown(test_sass_error_named_with_figures, fresh_cache,
                                      remove_cache),
      cmocka_unit_test_setup_teardown(test_pins_and_headers, fresh_cache, remove_cache),
      cmocka_unit_test_setup_teardown(test_explicit_arch, fresh_cache, remove_cache),
      cmocka_unit_test_setup_teardown(test_gpu_arch_options_real, fresh_cache, remove_cache),
      cmocka_unit_test_setup_teardown(test_scope_records, fresh_cache, remove_cache),
      cmocka_unit_test_setup_teardown(test_disk_cache_entry, fresh_cache, remove_cache),
      cmocka_unit_test_setup_teardown(test_two_writers_one_key, fresh_cache, remove_cache),
      cmocka_unit_test_setup_teardown(test_hit_across_processes_cli, fresh_cache, remove_cache),
      cmocka_unit_test_setup_teardown(test_output_rewritten_only_when_different, fresh_cache,
                                      remove_cache),
      cmocka_unit_test_setup_teardown(test_nvrtc_missing_cli, fresh_cache, remove_cache),
      cmocka_unit_test_setup_teardown(test_threads_share_scope, fresh_cache, remove_cache),
      cmocka_unit_test_setup_teardown(test_compile_cli_report, fresh_cache, remove_cache),
      cmocka_unit_test_setup_teardown(test_includes_defines_dialect, fresh_cache, remove_cache),
      cmocka_unit_test_setup_teardown(test_ptx_above_its_target, fresh_cache, remove_cache),
      cmocka_unit_test_setup_teardown(test_compile_cli_real_world, fresh_cache, remove_cache),
      cmocka_unit_test_setup_teardown(test_cache_off, fresh_cache, remove_cache),
      cmocka_unit_test_setup_teardown(test_cache_setting_values, fresh_cache, remove_cache),
      cmocka_unit_test_setup_teardown(test_cuda_home, fresh_cache, remove_cache),
      cmocka_unit_test_setup_teardown(test_nvrtc_bad_libraries_cli, fresh_cache, remove_cache),
      cmocka_unit_test_setup_teardown(test_xdg_cache_home_cli, fresh_cache, remove_cache),
      /* Last: it leaves this process's cache degraded by design. */
      cmocka_unit_test_setup_teardown(test_unwritable_dir, fresh_cache, remove_cache),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
