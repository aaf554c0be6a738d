/* The public blob cache (tcmma_cache_key_make, tcmma_cache_store,
 * tcmma_cache_fetch): bytes stored under a key come back on a hit; a key
 * made from other inputs (a part, the domain, an included file) misses;
 * TCMMA_CACHE=0 stores nothing and always misses; bad keys and inputs are
 * TCMMA_INVALID naming the value; an include that cannot be followed for
 * certain (#include MACRO) makes no key; tcmma_cache_clear removes blobs too. Leaks show under
 * `make memcheck` and SAN=1. */
#include "util.h"
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "tcmma/tcmma.h"

static char dir[128];

static int setup(void **state) {
  (void)state;
  test_cache_fresh(dir, sizeof dir, "blob");
  return 0;
}

static int teardown(void **state) {
  (void)state;
  unsetenv("TCMMA_CACHE");
  return test_cache_remove(dir);
}

static tcmma_cache_key key_of(const char *domain, const char *arg) {
  const char *parts[] = {"cc", arg};
  tcmma_cache_inputs in = TCMMA_CACHE_INPUTS_INIT;
  in.domain = domain, in.parts = parts, in.n_parts = 2;
  tcmma_cache_key k;
  tcmma_error err = {0};
  assert_int_equal(tcmma_cache_key_make(&in, &k, &err), TCMMA_OK);
  return k;
}

/* Whether key hits, and then that it holds want. */
static bool fetch_is(const tcmma_cache_key *k, const char *want) {
  void *data = NULL;
  size_t len = 0;
  bool hit = true;
  tcmma_error err = {0};
  assert_int_equal(tcmma_cache_fetch(k, &data, &len, &hit, &err), TCMMA_OK);
  if (hit) {
    assert_int_equal(len, strlen(want));
    assert_memory_equal(data, want, len);
  } else {
    assert_null(data);
    assert_int_equal(len, 0);
  }
  free(data);
  return hit;
}

static void stored_bytes_hit_other_inputs_miss(void **state) {
  (void)state;
  tcmma_cache_key k = key_of("test blob", "-O2");
  assert_false(fetch_is(&k, ""));
  assert_int_equal(tcmma_cache_store(&k, "bytes\0kept", 10, NULL), TCMMA_OK);
  void *data = NULL;
  size_t len = 0;
  bool hit = false;
  assert_int_equal(tcmma_cache_fetch(&k, &data, &len, &hit, NULL), TCMMA_OK);
  assert_true(hit);
  assert_int_equal(len, 10);
  assert_memory_equal(data, "bytes\0kept", 10);
  free(data);
  tcmma_cache_key same = key_of("test blob", "-O2");
  assert_memory_equal(same.bytes, k.bytes, sizeof k.bytes);
  tcmma_cache_key part = key_of("test blob", "-O3"), domain = key_of("other blob", "-O2");
  assert_false(fetch_is(&part, ""));
  assert_false(fetch_is(&domain, ""));
  /* the blob is an entry of the disk cache: counted and cleared with it */
  tcmma_cache_info info;
  assert_int_equal(tcmma_cache_clear(&info, NULL), TCMMA_OK);
  assert_true(info.entries >= 1);
  assert_false(fetch_is(&k, ""));
}

static void an_included_file_keys_in(void **state) {
  (void)state;
  char inc[160], path[200];
  snprintf(inc, sizeof inc, "%s-inc", dir);
  snprintf(path, sizeof path, "%s/blob.h", inc);
  char mk[200];
  snprintf(mk, sizeof mk, "mkdir -p '%s'", inc);
  assert_int_equal(system(mk), 0);
  char opt[180];
  snprintf(opt, sizeof opt, "-I%s", inc);
  const char *parts[] = {opt};
  static const char src[] = "#include \"blob.h\"\nint f(void) { return X; }\n";
  tcmma_cache_inputs in = TCMMA_CACHE_INPUTS_INIT;
  in.domain = "test blob", in.parts = parts, in.n_parts = 1;
  in.source = src, in.source_len = sizeof src - 1, in.source_name = "/dev/null/m.c";
  tcmma_cache_key none, one, two;
  tcmma_error err = {0};
  assert_int_equal(tcmma_cache_key_make(&in, &none, &err), TCMMA_OK); /* not there yet */
  FILE *f = fopen(path, "w");
  assert_non_null(f);
  fputs("#define X 1\n", f);
  fclose(f);
  assert_int_equal(tcmma_cache_key_make(&in, &one, &err), TCMMA_OK);
  f = fopen(path, "w");
  assert_non_null(f);
  fputs("#define X 2\n", f);
  fclose(f);
  assert_int_equal(tcmma_cache_key_make(&in, &two, &err), TCMMA_OK);
  assert_memory_not_equal(one.bytes, two.bytes, sizeof one.bytes);
  assert_memory_not_equal(none.bytes, one.bytes, sizeof one.bytes);
  /* an include named by a macro cannot be followed for certain: no key */
  static const char macro[] = "#define H \"blob.h\"\n#include H\n";
  in.source = macro, in.source_len = sizeof macro - 1;
  assert_int_equal(tcmma_cache_key_make(&in, &one, &err), TCMMA_IO);
  assert_non_null(strstr(err.message, "tcmma_cache_key_make: "));
  snprintf(mk, sizeof mk, "rm -rf '%s'", inc);
  assert_int_equal(system(mk), 0);
}

static void a_disabled_cache_keeps_nothing(void **state) {
  (void)state;
  tcmma_cache_key k = key_of("test blob", "off");
  setenv("TCMMA_CACHE", "0", 1);
  assert_int_equal(tcmma_cache_store(&k, "x", 1, NULL), TCMMA_OK);
  assert_false(fetch_is(&k, ""));
  unsetenv("TCMMA_CACHE");
  assert_false(fetch_is(&k, "")); /* nothing was written while it was off */
  tcmma_error err = {0};
  setenv("TCMMA_CACHE", "maybe", 1);
  assert_int_equal(tcmma_cache_store(&k, "x", 1, &err), TCMMA_INVALID);
  assert_non_null(strstr(err.message, "maybe"));
  unsetenv("TCMMA_CACHE");
}

static void bad_keys_and_inputs_are_invalid(void **state) {
  (void)state;
  tcmma_error err = {0};
  void *data = (void *)1;
  size_t len = 1;
  bool hit = true;
  assert_int_equal(tcmma_cache_fetch(NULL, &data, &len, &hit, &err), TCMMA_INVALID);
  assert_non_null(strstr(err.message, "key"));
  assert_null(data);
  assert_false(hit);
  tcmma_cache_key k = key_of("test blob", "bad");
  assert_int_equal(tcmma_cache_store(NULL, "x", 1, &err), TCMMA_INVALID);
  assert_int_equal(tcmma_cache_store(&k, NULL, 1, &err), TCMMA_INVALID);
  assert_int_equal(tcmma_cache_store(&k, "x", 0, &err), TCMMA_INVALID);
  assert_non_null(strstr(err.message, "len 0"));
  assert_int_equal(tcmma_cache_fetch(&k, NULL, &len, &hit, &err), TCMMA_INVALID);
  tcmma_cache_inputs in = TCMMA_CACHE_INPUTS_INIT;
  assert_int_equal(tcmma_cache_key_make(&in, &k, &err), TCMMA_INVALID);
  assert_non_null(strstr(err.message, "domain"));
  in.domain = "test blob", in.n_parts = 2;
  assert_int_equal(tcmma_cache_key_make(&in, &k, &err), TCMMA_INVALID);
  assert_non_null(strstr(err.message, "n_parts 2"));
  in.n_parts = 0, in.size = 8;
  assert_int_equal(tcmma_cache_key_make(&in, &k, &err), TCMMA_INVALID);
  assert_non_null(strstr(err.message, "size is 8"));
  in.size = sizeof in, in.program = "/nonexistent/cc";
  assert_int_equal(tcmma_cache_key_make(&in, &k, &err), TCMMA_IO);
  assert_non_null(strstr(err.message, "/nonexistent/cc"));
  assert_int_equal(tcmma_cache_key_make(NULL, &k, &err), TCMMA_INVALID);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test_setup_teardown(stored_bytes_hit_other_inputs_miss, setup, teardown),
      cmocka_unit_test_setup_teardown(an_included_file_keys_in, setup, teardown),
      cmocka_unit_test_setup_teardown(a_disabled_cache_keeps_nothing, setup, teardown),
      cmocka_unit_test_setup_teardown(bad_keys_and_inputs_are_invalid, setup, teardown),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
