/* Hostile inputs to the cache key and the scans (issue #21, Reliability
 * III): files whose stat lies about their size, options and macros the key
 * cannot cover, FIFOs where a file is expected, inputs that made a scan
 * quadratic, include chains deep enough to overflow a small thread stack,
 * and option lists longer than a fixed array. Each runs where a failure
 * would otherwise hang or crash the test binary: in a child, with an alarm
 * (a bound on a hang, not a timing threshold). */
#include "util.h"
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <unistd.h>
#include "nvrtc/internal.h"
#include "tcmma/buf.h"
#include "tcmma/driver.h"

#define HANG_BOUND 120 /* seconds: a child still running then is hung */

static char root[64];

static int make_root(void **state) {
  (void)state;
  snprintf(root, sizeof root, "/tmp/tcmma-hostile-XXXXXX");
  return mkdtemp(root) ? 0 : -1;
}

static int remove_root(void **state) {
  (void)state;
  char cmd[128];
  snprintf(cmd, sizeof cmd, "rm -rf '%s'", root);
  return system(cmd) == 0 ? 0 : -1;
}

static const char *at(const char *rel) {
  static char path[8][512];
  static int next;
  char *p = path[next++ % 8];
  snprintf(p, sizeof path[0], "%s/%s", root, rel);
  return p;
}

/* root/rel, whose directories are made as needed, holding text. */
static void put(const char *rel, const char *text) {
  char path[512];
  snprintf(path, sizeof path, "%s/%s", root, rel);
  for (char *p = path + strlen(root) + 1; (p = strchr(p, '/')); p++) {
    *p = '\0';
    mkdir(path, 0755);
    *p = '/';
  }
  FILE *f = fopen(path, "w");
  assert_non_null(f);
  fputs(text, f);
  fclose(f);
}

/* The include part of the key of source compiled as name with options (a
 * NULL-terminated list): its hex digest, or "uncertain: NOTE", or "fatal:
 * NOTE". */
static const char *key_of(const char *source, size_t len, const char *name,
                          const char *const *options) {
  static char out[8][700];
  static int next;
  char *o = out[next++ % 8];
  size_t n = 0;
  while (options && options[n]) n++;
  tcmma__sha256_state s;
  tcmma__sha256_init(&s);
  char note[512];
  int got = tcmma__cache_include_scan(source, len, name, options, n, &s, note, sizeof note);
  if (got != 1) {
    snprintf(o, sizeof out[0], "%s: %s", got < 0 ? "fatal" : "uncertain", note);
    return o;
  }
  unsigned char d[32];
  tcmma__sha256_final(&s, d);
  tcmma__sha256_hex(d, o);
  return o;
}

static const char *key_text(const char *source, const char *name, const char *const *options) {
  return key_of(source, strlen(source), name, options);
}

static void assert_certain(const char *key) {
  if (strncmp(key, "uncertain", 9) == 0 || strncmp(key, "fatal", 5) == 0) fail_msg("%s", key);
}

static void assert_uncertain(const char *key, const char *needle) {
  if (strncmp(key, "uncertain: ", 11) != 0 || !strstr(key, needle))
    fail_msg("expected uncertain naming '%s', got %s", needle, key);
}

/* ---- the environment's libraries: before anything loads NVRTC ---- */

static int nvrtc_fifo_child(void) {
  alarm(HANG_BOUND);
  setenv("TCMMA_NVRTC", at("lib/nvrtc.fifo"), 1);
  tcmma_error e;
  tcmma_status st = tcmma_nvrtc_load(NULL, &e);
  if (st != TCMMA_UNAVAILABLE) return 1;
  if (!strstr(e.message, at("lib/nvrtc.fifo")) || !strstr(e.message, "FIFO")) return 2;
  return 0;
}

static int libcuda_fifo_child(void) {
  alarm(HANG_BOUND);
  setenv("TCMMA_LIBCUDA", at("lib/cuda.fifo"), 1);
  tcmma_error e;
  tcmma_status st = tcmma_driver_load(&e);
  if (st != TCMMA_UNAVAILABLE) return 1;
  if (!strstr(e.message, at("lib/cuda.fifo")) || !strstr(e.message, "FIFO")) return 2;
  return 0;
}

/* TCMMA_NVRTC / TCMMA_LIBCUDA naming a FIFO: dlopen would block on it. */
static void library_fifo_is_unavailable(void **state) {
  (void)state;
  put("lib/keep", "");
  assert_int_equal(mkfifo(at("lib/nvrtc.fifo"), 0600), 0);
  assert_int_equal(mkfifo(at("lib/cuda.fifo"), 0600), 0);
  assert_int_equal(test_in_child(nvrtc_fifo_child), 0);
  assert_int_equal(test_in_child(libcuda_fifo_child), 0);
}

/* ---- stale keys ---- */

/* A procfs file reports size 0 whatever it holds: its bytes are read to
 * the end and keyed, so a change to them changes the key. */
static void size_zero_file_is_keyed_by_content(void **state) {
  (void)state;
  struct stat st;
  assert_int_equal(stat("/proc/self/comm", &st), 0);
  assert_int_equal(st.st_size, 0); /* the premise: st_size says nothing */
  const char *src = "#include \"/proc/self/comm\"\n";
  char first[80], old_name[32] = "";
  prctl(PR_GET_NAME, old_name);
  prctl(PR_SET_NAME, "tcmma-aaaa");
  snprintf(first, sizeof first, "%s", key_text(src, at("k.cu"), NULL));
  assert_certain(first);
  assert_string_equal(key_text(src, at("k.cu"), NULL), first);
  prctl(PR_SET_NAME, "tcmma-bbbb");
  const char *second = key_text(src, at("k.cu"), NULL);
  prctl(PR_SET_NAME, old_name);
  assert_certain(second);
  assert_string_not_equal(second, first);
}

/* Options naming a file NVRTC or ptxas reads (or writes) bypass the cache,
 * saying which option. */
static void file_options_bypass_the_cache(void **state) {
  (void)state;
  put("o/h.h", "#define V 1\n");
  const char *src = "#include \"h.h\"\n", *name = at("o/k.cu");
  static const char *const cases[][3] = {
      {"--options-file=opts.txt", NULL, "--options-file"},
      {"-optf", "opts.txt", "-optf"},
      {"--ptxas-options=--options-file=p.txt", NULL, "--options-file"},
      {"--ptxas-options=-v,-optf=p.txt", NULL, "-optf"},
      {"-Xptxas", "--options-file p.txt", "--options-file"},
      {"--pre-include=h.h", NULL, "--pre-include"},
      {"-include", "h.h", "-include"},
      {"--use-pch=x.pch", NULL, "--use-pch"},
      {"-pch", NULL, "-pch"},
      {"--time=t.csv", NULL, "--time"},
      {"-time", "t.csv", "-time"},
      {"--fdevice-time-trace=t.json", NULL, "--fdevice-time-trace"},
  };
  for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
    const char *opts[] = {cases[i][0], cases[i][1], NULL};
    const char *k = key_text(src, name, opts);
    if (strncmp(k, "uncertain", 9) != 0 || !strstr(k, cases[i][2]))
      fail_msg("case %zu (%s): %s (expected uncertain, naming %s)", i, cases[i][0], k,
               cases[i][2]);
  }
  /* options that name no file keep the cache */
  const char *fine[] = {"--ptxas-options=-v", "-DTIME=1", "--fmad=false", NULL};
  assert_certain(key_text(src, name, fine));
}

/* __TIME__, __DATE__, __TIMESTAMP__ used in code, in the source or a
 * header: not cached. In comments and strings they are not uses. */
static void clock_macros_bypass_the_cache(void **state) {
  (void)state;
  put("t/now.h", "static const char built[] = __DATE__;\n");
  put("t/quiet.h", "/* __DATE__ */ // __TIME__\nstatic const char s[] = \"__TIMESTAMP__\";\n");
  const char *name = at("t/k.cu");
  assert_uncertain(key_text("const char *t = __TIME__;\n", name, NULL), "__TIME__");
  assert_uncertain(key_text("#define WHEN __TIMESTAMP__\n", name, NULL), "__TIMESTAMP__");
  assert_uncertain(key_text("#include \"now.h\"\n", name, NULL), "__DATE__");
  assert_uncertain(key_text("#include \"now.h\"\n", name, NULL), "now.h:1");
  assert_certain(key_text("#include \"quiet.h\"\n", name, NULL));
  assert_certain(key_text("int __TIME__x, y__DATE__;\nconst char *r = R\"(__TIME__)\";\n",
                          name, NULL));
}

/* Through tcmma_compile: a program reading the clock is compiled each time,
 * its cache_note naming the macro. */
static void clock_program_compiled_each_time(void **state) {
  (void)state;
  char cache[256];
  test_cache_fresh(cache, sizeof cache, "hostile-clock");
  const char *src = "extern \"C\" __global__ void k(char *p) { p[0] = __TIME__[7]; }\n";
  for (int i = 0; i < 2; i++) {
    tcmma_program p;
    tcmma_error e;
    tcmma_compile_opts o = TCMMA_COMPILE_OPTS_INIT(.name = at("clock.cu"));
    if (tcmma_compile(src, strlen(src), &o, &p, &e) != TCMMA_OK) fail_msg("%s", e.message);
    assert_false(p.cache_hit);
    assert_non_null(p.cache_note);
    assert_non_null(strstr(p.cache_note, "__TIME__"));
    tcmma_program_free(&p);
  }
  test_cache_remove(cache);
}

/* ---- FIFOs ---- */

static int fifo_include_child(void) {
  alarm(HANG_BOUND);
  tcmma_program p;
  tcmma_error e;
  const char *src = "#include \"fifo.h\"\nextern \"C\" __global__ void k(int *p) { *p = 1; }\n";
  tcmma_compile_opts o = TCMMA_COMPILE_OPTS_INIT(.name = at("f/k.cu"));
  tcmma_status st = tcmma_compile(src, strlen(src), &o, &p, &e);
  if (st == TCMMA_OK) tcmma_program_free(&p);
  if (st != TCMMA_IO) return 1;
  if (!strstr(e.message, at("f/fifo.h")) || !strstr(e.message, "not a regular file")) return 2;
  return 0;
}

/* An #include of a FIFO fails the compile, naming it, instead of handing
 * NVRTC a file it would block on forever. */
static void fifo_include_fails_the_compile(void **state) {
  (void)state;
  put("f/keep", "");
  assert_int_equal(mkfifo(at("f/fifo.h"), 0600), 0);
  assert_int_equal(test_in_child(fifo_include_child), 0);
  assert_string_equal(strncmp(key_text("#include \"fifo.h\"\n", at("f/k.cu"), NULL), "fatal", 5)
                          ? "not fatal" : "fatal", "fatal");
}

/* ---- linear scans (correctness only: no timing threshold) ---- */

/* Lines that each open a comment that never closes: every line start used
 * to search the rest of the text for its end (240 KB: ~20 s). */
static void open_comment_lines_scan_linearly(void **state) {
  (void)state;
  put("q/h.h", "#define V 1\n");
  const size_t lines = 80 * 1000;
  const char tail[] = "#include \"h.h\"\n";
  char *src = malloc(3 * lines + sizeof tail);
  assert_non_null(src);
  for (size_t i = 0; i < lines; i++) memcpy(src + 3 * i, "/*\n", 3);
  memcpy(src + 3 * lines, tail, sizeof tail);
  size_t len = 3 * lines + sizeof tail - 1;
  char first[80];
  snprintf(first, sizeof first, "%s", key_of(src, len, at("q/k.cu"), NULL));
  assert_certain(first); /* the #include is found at its line start */
  put("q/h.h", "#define V 2\n");
  assert_string_not_equal(key_of(src, len, at("q/k.cu"), NULL), first);
  free(src);
  /* comment ends that each chain through every later comment */
  tcmma_buf b = {0};
  for (size_t i = 0; i < lines; i++) tcmma_buf_printf(&b, "*/ /*\n");
  tcmma_buf_printf(&b, "*/\n%s", tail);
  assert_false(b.failed);
  snprintf(first, sizeof first, "%s", key_of(b.data, b.len, at("q/k.cu"), NULL));
  assert_certain(first);
  put("q/h.h", "#define V 3\n");
  assert_string_not_equal(key_of(b.data, b.len, at("q/k.cu"), NULL), first);
  tcmma_buf_free(&b);
}

/* A source of many distinct asm opcodes: each hit used to be compared with
 * every earlier one (3 MB: ~38 s). */
static void distinct_opcodes_scan_linearly(void **state) {
  (void)state;
  const size_t count = 40 * 1000;
  tcmma_buf b = {0};
  for (size_t i = 0; i < count; i++)
    tcmma_buf_printf(&b, "asm(\"mma.sync.aligned.m16n8k16.row.col.f32.bf16.bf16.f32.x%zu "
                         "{%%0}, {%%1}, {%%2}, {%%3};\" : \"=f\"(d) : \"r\"(a));\n", i);
  assert_false(b.failed);
  tcmma__arch_scan s;
  assert_int_equal(tcmma__arch_scan_source(b.data, b.len, &s), TCMMA_OK);
  assert_int_equal(s.count, count); /* each opcode once, in source order */
  for (size_t i = 0; i < s.count; i++) {
    char want[64];
    snprintf(want, sizeof want, ".x%zu", i);
    if ((size_t)s.hits[i].line != i + 1 || !strstr(s.hits[i].text, want))
      fail_msg("hit %zu: line %d, %s", i, s.hits[i].line, s.hits[i].text);
  }
  tcmma__arch_scan_free(&s);
  /* the same opcode again is one hit, at its first line */
  tcmma_buf_free(&b);
  for (int i = 0; i < 1000; i++)
    tcmma_buf_printf(&b, "asm(\"mma.sync.aligned.m16n8k16.row.col.f32.bf16.bf16.f32 x;\");\n");
  assert_int_equal(tcmma__arch_scan_source(b.data, b.len, &s), TCMMA_OK);
  assert_int_equal(s.count, 1);
  assert_int_equal(s.hits[0].line, 1);
  tcmma__arch_scan_free(&s);
  tcmma_buf_free(&b);
}

/* ---- deep include chains on a small stack ---- */

#define CHAIN 200

static const char *chain_key;

static void *chain_thread(void *arg) {
  (void)arg;
  chain_key = key_text("#include \"c0.h\"\n", at("c/k.cu"), NULL);
  return NULL;
}

static int chain_child(void) {
  pthread_attr_t attr;
  pthread_t t;
  pthread_attr_init(&attr);
  pthread_attr_setstacksize(&attr, 256 * 1024);
  if (pthread_create(&t, &attr, chain_thread, NULL) != 0) return 3;
  pthread_join(t, NULL);
  char first[80];
  snprintf(first, sizeof first, "%s", chain_key);
  if (strncmp(first, "uncertain", 9) == 0 || strncmp(first, "fatal", 5) == 0) return 1;
  put("c/c199.h", "#define DEEPEST 2\n"); /* the deepest file is in the key */
  if (pthread_create(&t, &attr, chain_thread, NULL) != 0) return 3;
  pthread_join(t, NULL);
  return strcmp(first, chain_key) == 0 ? 2 : 0;
}

/* A 200-deep include chain keyed in a thread with a 256 KiB stack (the
 * scan's own stack of open files is on the heap). */
static void deep_chain_on_small_stack(void **state) {
  (void)state;
  setenv("TCMMA_CACHE", "0", 1);
  for (int i = 0; i < CHAIN; i++) {
    char rel[32], text[64];
    snprintf(rel, sizeof rel, "c/c%d.h", i);
    if (i + 1 < CHAIN) snprintf(text, sizeof text, "#include \"c%d.h\"\n", i + 1);
    else snprintf(text, sizeof text, "#define DEEPEST 1\n");
    put(rel, text);
  }
  assert_int_equal(test_in_child(chain_child), 0);
  unsetenv("TCMMA_CACHE");
}

/* ---- the option lists ---- */

/* 70 -I directories (more than the 64 that used to reach NVRTC): the header
 * only the last one holds is found. */
static void every_include_dir_reaches_nvrtc(void **state) {
  (void)state;
  const char *dirs[70];
  char paths[70][128];
  for (int i = 0; i < 70; i++) {
    char rel[32];
    snprintf(rel, sizeof rel, "i/d%d/keep", i);
    put(rel, "");
    snprintf(paths[i], sizeof paths[i], "%s/i/d%d", root, i);
    dirs[i] = paths[i];
  }
  put("i/d69/only.h", "#define V 4321\n");
  const char *src = "#include <only.h>\nextern \"C\" __global__ void k(int *p) { *p = V; }\n";
  tcmma_compile_opts o = TCMMA_COMPILE_OPTS_INIT(.name = at("i/k.cu"), .include_dirs = dirs,
                                                 .n_include_dirs = 70);
  tcmma_program p;
  tcmma_error e;
  if (tcmma_compile(src, strlen(src), &o, &p, &e) != TCMMA_OK) fail_msg("%s", e.message);
  assert_non_null(strstr(p.ptx, "4321"));
  size_t n = 0;
  for (size_t i = 0; i < p.n_options; i++) n += strncmp(p.options[i], "-I", 2) == 0;
  assert_true(n >= 70);
  tcmma_program_free(&p);
}

static int null_lists_child(void) {
  const char *src = "extern \"C\" __global__ void k() {}\n";
  tcmma_compile_opts cases[3] = {TCMMA_COMPILE_OPTS_INIT(.n_include_dirs = 2),
                                 TCMMA_COMPILE_OPTS_INIT(.n_defines = 1),
                                 TCMMA_COMPILE_OPTS_INIT(.n_extra = 3)};
  const char *names[3] = {"include_dirs", "defines", "extra"};
  for (int i = 0; i < 3; i++) {
    tcmma_program p;
    tcmma_error e;
    tcmma_status st = tcmma_compile(src, strlen(src), &cases[i], &p, &e);
    if (st == TCMMA_OK) tcmma_program_free(&p);
    if (st != TCMMA_INVALID || !strstr(e.message, names[i])) return 1 + i;
  }
  return 0;
}

/* A NULL list with a nonzero count is TCMMA_INVALID naming it (it crashed). */
static void null_lists_are_invalid(void **state) {
  (void)state;
  assert_int_equal(test_in_child(null_lists_child), 0);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      /* first: the children must load the libraries themselves */
      cmocka_unit_test_setup_teardown(library_fifo_is_unavailable, make_root, remove_root),
      cmocka_unit_test_setup_teardown(size_zero_file_is_keyed_by_content, make_root, remove_root),
      cmocka_unit_test_setup_teardown(file_options_bypass_the_cache, make_root, remove_root),
      cmocka_unit_test_setup_teardown(clock_macros_bypass_the_cache, make_root, remove_root),
      cmocka_unit_test_setup_teardown(open_comment_lines_scan_linearly, make_root, remove_root),
      cmocka_unit_test_setup_teardown(distinct_opcodes_scan_linearly, make_root, remove_root),
      cmocka_unit_test_setup_teardown(deep_chain_on_small_stack, make_root, remove_root),
      cmocka_unit_test_setup_teardown(fifo_include_fails_the_compile, make_root, remove_root),
      cmocka_unit_test_setup_teardown(clock_program_compiled_each_time, make_root, remove_root),
      cmocka_unit_test_setup_teardown(every_include_dir_reaches_nvrtc, make_root, remove_root),
      cmocka_unit_test_setup_teardown(null_lists_are_invalid, make_root, remove_root),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
