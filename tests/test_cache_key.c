/* The cache key covers every file a compile reads through #include
 * (nvrtc/includes.c, docs/design.md §9): the include scan alone (fast, no
 * NVRTC), then through the CLI: a header edited after a compile gives the new
 * program (a stale hit once printed the first program again). */
#include "util.h"
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include "nvrtc/internal.h"

static char root[64];

static int make_root(void **state) {
  (void)state;
  snprintf(root, sizeof root, "/tmp/tcmma-key-XXXXXX");
  return mkdtemp(root) ? 0 : -1;
}

static int remove_root(void **state) {
  (void)state;
  char cmd[128];
  snprintf(cmd, sizeof cmd, "rm -rf '%s'", root);
  return system(cmd) == 0 ? 0 : -1;
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

static const char *at(const char *rel) {
  static char path[8][512];
  static int next;
  char *p = path[next++ % 8];
  snprintf(p, sizeof path[0], "%s/%s", root, rel);
  return p;
}

/* The include part of the key of source compiled as name with options: its
 * hex digest, or "uncertain: NOTE". */
static const char *key_of(const char *source, const char *name, const char *const *options) {
  static char out[8][600];
  static int next;
  char *o = out[next++ % 8];
  size_t n = 0;
  while (options && options[n]) n++;
  tcmma__sha256_state s;
  tcmma__sha256_init(&s);
  char note[512];
  if (!tcmma__cache_include_deps(source, strlen(source), name, options, n, &s, note, sizeof note)) {
    snprintf(o, sizeof out[0], "uncertain: %s", note);
    return o;
  }
  unsigned char d[32];
  tcmma__sha256_final(&s, d);
  tcmma__sha256_hex(d, o);
  return o;
}

static void assert_certain(const char *key) {
  if (strncmp(key, "uncertain", 9) == 0) fail_msg("%s", key);
}

static void content_changes_the_key(void **state) {
  (void)state;
  put("a/h.h", "#define V 1\n");
  const char *src = "#include \"h.h\"\nint v = V;\n";
  const char *name = at("a/k.cu");
  char first[80], second[80];
  snprintf(first, sizeof first, "%s", key_of(src, name, NULL));
  assert_certain(first);
  assert_string_equal(key_of(src, name, NULL), first); /* stable */
  put("a/h.h", "#define V 2\n");                        /* same size, same second */
  snprintf(second, sizeof second, "%s", key_of(src, name, NULL));
  assert_string_not_equal(second, first);
  put("a/h.h", "#define V 1\n"); /* the same bytes again: the same key (content, not time) */
  assert_string_equal(key_of(src, name, NULL), first);
}

/* A header read after it settled is remembered by its stat; a change then
 * shows in its ctime, so a same-size rewrite is still seen. (The 3-second
 * wait lets the header settle: docs/design.md §9.) */
static void settled_header_rewritten(void **state) {
  (void)state;
  put("t/h.h", "#define V 1\n");
  sleep(3);
  const char *src = "#include \"h.h\"\n";
  const char *name = at("t/k.cu");
  char first[80];
  snprintf(first, sizeof first, "%s", key_of(src, name, NULL));
  assert_string_equal(key_of(src, name, NULL), first); /* now from the memo */
  put("t/h.h", "#define V 2\n");
  assert_string_not_equal(key_of(src, name, NULL), first);
}

static void nested_and_cycles(void **state) {
  (void)state;
  put("n/x.h", "#include \"y.h\"\n");
  put("n/y.h", "#pragma once\n#include \"x.h\"\n#define Y 1\n");
  const char *src = "#include \"x.h\"\n";
  const char *name = at("n/k.cu");
  char first[80];
  snprintf(first, sizeof first, "%s", key_of(src, name, NULL));
  assert_certain(first);
  put("n/y.h", "#pragma once\n#include \"x.h\"\n#define Y 2\n");
  assert_string_not_equal(key_of(src, name, NULL), first);
}

/* The search order: the includer's directory, then -I in order; a file
 * that appears in an earlier directory takes over. */
static void search_order(void **state) {
  (void)state;
  put("s/src/k.cu", "");
  put("s/two/h.h", "#define V 2\n");
  mkdir(at("s/one"), 0755);
  char inc1[300], inc2[300];
  snprintf(inc1, sizeof inc1, "-I%s", at("s/one"));
  snprintf(inc2, sizeof inc2, "--include-path=%s", at("s/two"));
  const char *opts[] = {inc1, inc2, NULL};
  const char *quoted = "#include \"h.h\"\n", *angle = "#include <h.h>\n";
  const char *name = at("s/src/k.cu");
  char q[80], a[80];
  snprintf(q, sizeof q, "%s", key_of(quoted, name, opts));
  snprintf(a, sizeof a, "%s", key_of(angle, name, opts));
  assert_certain(q), assert_certain(a);
  put("s/one/h.h", "#define V 1\n"); /* earlier in the search */
  assert_string_not_equal(key_of(quoted, name, opts), q);
  assert_string_not_equal(key_of(angle, name, opts), a);
  snprintf(q, sizeof q, "%s", key_of(quoted, name, opts));
  snprintf(a, sizeof a, "%s", key_of(angle, name, opts));
  put("s/src/h.h", "#define V 0\n"); /* the source's own directory: quoted only */
  assert_string_not_equal(key_of(quoted, name, opts), q);
  assert_string_equal(key_of(angle, name, opts), a);
  /* "-I" and its directory as two options */
  const char *split[] = {"-I", at("s/one"), NULL};
  assert_certain(key_of(angle, name, split));
  assert_string_not_equal(key_of(angle, name, split), key_of(angle, name, NULL));
}

/* A relative program name places the source in a directory under the
 * current one; a bare name, in the current directory. */
static void relative_names(void **state) {
  (void)state;
  put("r/h.h", "#define V 1\n");
  put("r/sub/h.h", "#define V 2\n");
  char cwd[512];
  assert_non_null(getcwd(cwd, sizeof cwd));
  assert_int_equal(chdir(at("r")), 0);
  const char *src = "#include \"h.h\"\n";
  char here[80], sub[80];
  snprintf(here, sizeof here, "%s", key_of(src, "k.cu", NULL));
  snprintf(sub, sizeof sub, "%s", key_of(src, "sub/k.cu", NULL));
  assert_int_equal(chdir(at("r/sub")), 0);
  assert_string_equal(key_of(src, "k.cu", NULL), sub); /* the same file, the same key */
  assert_int_equal(chdir(cwd), 0);
  assert_certain(here);
  assert_string_not_equal(here, sub);
}

/* Directives the preprocessor sees though a line scan might not: after
 * comments, split by a line splice, spelled %:. Each one's file is in the
 * key. */
static void hidden_spellings(void **state) {
  (void)state;
  static const char *const sources[] = {
      "/* c */ #include \"w.h\"\n",
      "int x; /* a\n b */ #include \"w.h\"\n",
      "# /* c */ include /* d */ \"w.h\"\n",
      "#inc\\\nlude \"w.h\"\n",
      "%:include \"w.h\"\n",
      "  #  include_next \"w.h\"\n",
      "#if __has_include(\"w.h\")\n#endif\n",
      "#import \"w.h\"\n",
  };
  for (size_t i = 0; i < sizeof sources / sizeof sources[0]; i++) {
    char dir[32], rel[64];
    snprintf(dir, sizeof dir, "h%zu", i);
    snprintf(rel, sizeof rel, "%s/w.h", dir);
    put(rel, "#define W 1\n");
    snprintf(rel, sizeof rel, "%s/k.cu", dir);
    const char *name = at(rel);
    char first[80];
    snprintf(first, sizeof first, "%s", key_of(sources[i], name, NULL));
    assert_certain(first);
    snprintf(rel, sizeof rel, "%s/w.h", dir);
    if (strstr(sources[i], "__has_include")) unlink(at(rel)); /* existence is what counts */
    else put(rel, "#define W 2\n");
    if (strcmp(key_of(sources[i], name, NULL), first) == 0)
      fail_msg("source %zu: the key did not change with its include", i);
  }
}

static void uncertain_cases(void **state) {
  (void)state;
  put("u/h.h", "#define V 1\n");
  put("u/tri.h", "#define Q \"?\?=\"\n");
  assert_int_equal(mkfifo(at("u/fifo.h"), 0600), 0); /* never opened blocking */
  mkdir(at("u/dir.h"), 0755);
  const char *name = at("u/k.cu");
  static const struct { const char *src, *opt, *needle; } cases[] = {
      {"#define H \"h.h\"\n#include H\n", NULL, "cannot resolve"},
      {"#if __has_include(H)\n#endif\n", NULL, "__has_include"},
      {"#include \"fifo.h\"\n", NULL, "not a regular file"},
      {"#include \"dir.h\"\n", NULL, "not a regular file"},
      {"#include \"h.h\"\n", "--pre-include=h.h", "--pre-include"},
      {"#include \"h.h\"\n", "-no-source-include", "-no-source-include"},
      {"#include \"tri.h\"\n", "--std=c++14", "trigraph"},
  };
  for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
    const char *opts[] = {cases[i].opt, NULL};
    const char *k = key_of(cases[i].src, name, opts);
    if (strncmp(k, "uncertain", 9) != 0 || !strstr(k, cases[i].needle))
      fail_msg("case %zu: %s (expected uncertain, naming %s)", i, k, cases[i].needle);
  }
  /* trigraphs are no concern under C++17, the default */
  assert_certain(key_of("#include \"tri.h\"\n", name, NULL));
}

/* ---- through NVRTC and the CLI: an edited header compiles the new program, a hit
 * serves it, a macro include is compiled and never cached ---- */

static cli_result compile_in(const char *dir, const char *file) {
  const char *argv[] = {"compile", file, "-o", "-", NULL};
  return run_cli_in(dir, argv, NULL);
}

static void edited_header_recompiles_through_the_cli(void **state) {
  (void)state;
  char cache[128];
  snprintf(cache, sizeof cache, "%s/cache", root);
  setenv("TCMMA_CACHE_DIR", cache, 1);
  unsetenv("TCMMA_CACHE");
  mkdir(at("repro"), 0755);
  const char *dir = at("repro");
  put("repro/h.h", "#define V 1\n");
  put("repro/k.cu", "#include \"h.h\"\nextern \"C\" __global__ void k(int*p){*p=V;}\n");
  cli_result r = compile_in(dir, "k.cu");
  assert_int_equal(r.exit_code, 0);
  assert_non_null(strstr(r.out, "%r1, 1;"));
  assert_non_null(strstr(r.err, "compiled"));
  cli_result_free(&r);
  put("repro/h.h", "#define V 2\n");
  r = compile_in(dir, "k.cu");
  assert_int_equal(r.exit_code, 0);
  if (!strstr(r.out, "%r1, 2;")) fail_msg("the old program again: %s%s", r.out, r.err);
  assert_non_null(strstr(r.err, "compiled"));
  cli_result_free(&r);
  r = compile_in(dir, "k.cu"); /* unchanged now: a hit, of the new program */
  assert_int_equal(r.exit_code, 0);
  assert_non_null(strstr(r.out, "%r1, 2;"));
  assert_non_null(strstr(r.err, "cache hit"));
  cli_result_free(&r);
  /* from elsewhere, the file's includes are still found next to it */
  r = compile_in("/", at("repro/k.cu"));
  if (r.exit_code != 0) fail_msg("%s", r.err);
  assert_non_null(strstr(r.out, "%r1, 2;"));
  cli_result_free(&r);
  /* an include tcmma cannot follow: compiled, never cached, said so */
  put("repro/m.cu", "#define H \"h.h\"\n#include H\nextern \"C\" __global__ void k(int*p){*p=V;}\n");
  for (int i = 0; i < 2; i++) {
    r = compile_in(dir, "m.cu");
    assert_int_equal(r.exit_code, 0);
    assert_non_null(strstr(r.out, "%r1, 2;"));
    assert_non_null(strstr(r.err, "compiled"));
    assert_non_null(strstr(r.err, "note: not cached"));
    cli_result_free(&r);
  }
  const char *json[] = {"compile", "m.cu", "-o", "/dev/null", "--json", NULL};
  r = run_cli_in(dir, json, NULL);
  assert_non_null(strstr(r.out, "\"cache_note\": \"not cached: "));
  cli_result_free(&r);
  unsetenv("TCMMA_CACHE_DIR");
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test_setup_teardown(content_changes_the_key, make_root, remove_root),
      cmocka_unit_test_setup_teardown(nested_and_cycles, make_root, remove_root),
      cmocka_unit_test_setup_teardown(settled_header_rewritten, make_root, remove_root),
      cmocka_unit_test_setup_teardown(search_order, make_root, remove_root),
      cmocka_unit_test_setup_teardown(relative_names, make_root, remove_root),
      cmocka_unit_test_setup_teardown(hidden_spellings, make_root, remove_root),
      cmocka_unit_test_setup_teardown(uncertain_cases, make_root, remove_root),
      cmocka_unit_test_setup_teardown(edited_header_recompiles_through_the_cli, make_root, remove_root),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
