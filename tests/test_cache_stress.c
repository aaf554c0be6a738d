/* A cache hit must never differ from a fresh compile: trials of "change the
 * include tree, compile through the cache, compile fresh, compare". Each
 * trial changes one thing of a three-level include tree reached through the
 * source's directory and two -I directories (a header's value, rewritten at
 * the same size within the same second; a header shadowing another in an
 * earlier directory, added or removed; a file __has_include asks about; a
 * touch that changes nothing), clears the memory cache half the time so the
 * disk is read, and compiles twice through the cache (the second mostly a
 * hit). TCMMA_STRESS_TRIALS sets the count (default 30); the closing line
 * reports trials, hits and wrong results, which must be 0. */
#include "util.h"
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include "tcmma/tcmma.h"
#include "nvrtc/internal.h"

static char root[64];

static void put(const char *rel, const char *text) {
  char path[256];
  snprintf(path, sizeof path, "%s/%s", root, rel);
  FILE *f = fopen(path, "w");
  assert_non_null(f);
  fputs(text, f);
  fclose(f);
}

static void drop(const char *rel) {
  char path[256];
  snprintf(path, sizeof path, "%s/%s", root, rel);
  unlink(path);
}

static void leaf(const char *dir, int a) {
  char rel[64], text[64];
  snprintf(rel, sizeof rel, "%s/leaf.h", dir);
  snprintf(text, sizeof text, "#define A %3d\n", a); /* the same size, whatever a */
  put(rel, text);
}

static void mid(const char *dir, int b) {
  char rel[64], text[96];
  snprintf(rel, sizeof rel, "%s/mid.h", dir);
  snprintf(text, sizeof text, "#include \"leaf.h\"\n#define B %3d\n", b);
  put(rel, text);
}

/* One compile through the cache and one fresh one (NVRTC directly, with the
 * very options the cached one used); whether they agree. */
static bool agree(const char *source, const char *name, const char *const *extra, bool *hit) {
  tcmma_compile_opts o = TCMMA_COMPILE_OPTS_INIT(.name = name, .extra = extra, .n_extra = 2);
  tcmma_program p, q = {0};
  tcmma_error err;
  if (tcmma_compile(source, strlen(source), &o, &p, &err) != TCMMA_OK)
    fail_msg("compile: %s\n%s", err.message, p.log ? p.log : "");
  *hit = p.cache_hit;
  if (p.cache_note) fail_msg("not cached: %s", p.cache_note);
  if (tcmma__nvrtc_compile_raw(source, strlen(source), name, (const char *const *)p.options,
                               p.n_options, false, &q, NULL, &err) != TCMMA_OK)
    fail_msg("fresh compile: %s", err.message);
  bool same = p.ptx_len == q.ptx_len && memcmp(p.ptx, q.ptx, p.ptx_len) == 0;
  if (!same) print_message("cached and fresh PTX differ:\n%s\n---\n%s\n", p.ptx, q.ptx);
  tcmma_program_free(&p), tcmma_program_free(&q);
  return same;
}

static void hits_equal_fresh_compiles(void **state) {
  (void)state;
  snprintf(root, sizeof root, "/tmp/tcmma-stress-XXXXXX");
  assert_non_null(mkdtemp(root));
  char cache[128], name[128], inc1[128], inc2[128];
  snprintf(cache, sizeof cache, "%s/cache", root);
  snprintf(name, sizeof name, "%s/src/k.cu", root);
  snprintf(inc1, sizeof inc1, "-I%s/inc1", root);
  snprintf(inc2, sizeof inc2, "-I%s/inc2", root);
  const char *extra[] = {inc1, inc2};
  setenv("TCMMA_CACHE_DIR", cache, 1);
  unsetenv("TCMMA_CACHE");
  static const char *const dirs[] = {"src", "inc1", "inc2"};
  for (int i = 0; i < 3; i++) {
    char d[128];
    snprintf(d, sizeof d, "%s/%s", root, dirs[i]);
    assert_int_equal(mkdir(d, 0700), 0);
  }
  put("src/top.h", "#include <mid.h>\n#if __has_include(\"opt.h\")\n#define C 1\n#else\n"
                   "#define C 0\n#endif\n");
  mid("inc2", 0);
  leaf("inc2", 0);
  const char *source = "#include \"top.h\"\n"
                       "extern \"C\" __global__ void k(int *p) { p[0] = A; p[1] = B; p[2] = C; }\n";
  const char *env = getenv("TCMMA_STRESS_TRIALS");
  long trials = env && *env ? strtol(env, NULL, 10) : 30;
  srand(12345);
  long wrong = 0, hits = 0, compiles = 0;
  bool shadow_mid = false, shadow_leaf = false, opt = false;
  for (long t = 0; t < trials; t++) {
    int v = rand() % 1000;
    switch (rand() % 6) {
    case 0: leaf("inc2", v); break;                      /* the value, same size */
    case 1: mid(shadow_mid ? "inc1" : "inc2", v); break; /* the one in use */
    case 2:                                              /* shadow mid.h, or stop */
      if ((shadow_mid = !shadow_mid)) mid("inc1", v);
      else drop("inc1/mid.h");
      break;
    case 3: /* a leaf.h next to the shadowing mid.h wins over inc2's */
      if ((shadow_leaf = !shadow_leaf)) leaf("inc1", v);
      else drop("inc1/leaf.h");
      break;
    case 4:
      if ((opt = !opt)) put("src/opt.h", "\n");
      else drop("src/opt.h");
      break;
    default: { /* touch: no change at all */
      char path[256];
      snprintf(path, sizeof path, "%s/inc2/leaf.h", root);
      assert_int_equal(utimensat(AT_FDCWD, path, NULL, 0), 0);
    }
    }
    if (rand() % 2) tcmma_cache_clear_memory(); /* the disk answers */
    for (int again = 0; again < 2; again++) {
      bool hit;
      wrong += !agree(source, name, extra, &hit);
      hits += hit;
      compiles++;
    }
  }
  print_message("cache stress: %ld trials, %ld cached compiles, %ld hits, %ld wrong results\n",
                trials, compiles, hits, wrong);
  assert_int_equal(wrong, 0);
  assert_true(hits > 0); /* the cache was exercised, not bypassed */
  char cmd[128];
  snprintf(cmd, sizeof cmd, "rm -rf '%s'", root);
  assert_int_equal(system(cmd), 0);
  unsetenv("TCMMA_CACHE_DIR");
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(hits_equal_fresh_compiles),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
