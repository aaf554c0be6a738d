/* The disk cache's upkeep (nvrtc/cache_upkeep.c): a failed store (a full
 * disk, injected here) evicts and is tried once more, one that still fails
 * is reported by tcmma_cache_info and `tcmma cache`; the directory is walked
 * only when the running estimate crosses the bound (or every 256 stores),
 * and the bound still holds; a relative XDG_CACHE_HOME is ignored. No NVRTC:
 * the entries are blobs (tcmma__cache_blob_put). */
#include "util.h"
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "nvrtc/internal.h"

static char cache[256];

static int fresh(void **state) {
  (void)state;
  test_cache_fresh(cache, sizeof cache, "upkeep");
  unsetenv("TCMMA_CACHE_MAX_BYTES");
  return 0;
}

static int gone(void **state) {
  (void)state;
  tcmma__cache_inject_store_failures(0, 0);
  unsetenv("TCMMA_CACHE_MAX_BYTES");
  return test_cache_remove(cache) == 0 ? 0 : -1;
}

static void key_of(int i, unsigned char key[32]) {
  memset(key, 0, 32);
  key[0] = (unsigned char)i, key[1] = (unsigned char)(i >> 8), key[31] = 0x5a;
}

static void put(int i, size_t bytes) {
  unsigned char key[32];
  char *data = malloc(bytes);
  assert_non_null(data);
  memset(data, 'a' + i % 26, bytes);
  key_of(i, key);
  tcmma__cache_blob_put(key, TCMMA__CACHE_ENTRY_SUFFIX, data, bytes);
  free(data);
}

static bool has(int i) {
  unsigned char key[32];
  void *data = NULL;
  size_t len = 0;
  key_of(i, key);
  bool hit = tcmma__cache_blob_get(key, TCMMA__CACHE_ENTRY_SUFFIX, &data, &len);
  free(data);
  return hit;
}

static tcmma_cache_info info(void) {
  tcmma_cache_info c;
  assert_int_equal(tcmma_cache_info_get(&c, NULL), TCMMA_OK);
  assert_true(c.enabled);
  return c;
}

/* One failed write: the older entries go, the retry stores the new one, and
 * nothing is reported (the store worked). */
static void failed_store_evicts_and_retries(void **state) {
  (void)state;
  for (int i = 0; i < 8; i++) put(i, 1000);
  assert_int_equal(info().entries, 8);
  tcmma__cache_inject_store_failures(1, ENOSPC);
  put(100, 1000);
  assert_true(has(100));
  tcmma_cache_info c = info();
  assert_true(c.entries < 8); /* room was made */
  assert_false(has(0));       /* the least recently used went first */
  assert_int_equal(c.store_failures, 0);
  assert_string_equal(c.last_error, "");
}

/* A store that fails again after evicting is counted and named, for any
 * process (`tcmma cache` reads it), until a store works again. */
static void failing_store_is_reported(void **state) {
  (void)state;
  put(1, 1000);
  tcmma__cache_inject_store_failures(2, ENOSPC);
  put(2, 1000);
  assert_false(has(2));
  tcmma_cache_info c = info();
  assert_int_equal(c.store_failures, 1);
  assert_non_null(strstr(c.last_error, strerror(ENOSPC)));
  const char *text[] = {"cache", NULL}, *json[] = {"cache", "--json", NULL};
  cli_result r = run_cli(text, NULL);
  assert_int_equal(r.exit_code, 0);
  assert_non_null(strstr(r.out, "1 stores failed"));
  assert_non_null(strstr(r.out, strerror(ENOSPC)));
  cli_result_free(&r);
  r = run_cli(json, NULL);
  assert_int_equal(json_int_of(r.out, "store_failures"), 1);
  cli_result_free(&r);
  tcmma_cache_clear_memory();
  /* the failed store degraded this process to memory: a fresh one stores */
  tcmma_cache_info cleared;
  assert_int_equal(tcmma_cache_clear(&cleared, NULL), TCMMA_OK);
  c = info();
  assert_int_equal(c.store_failures, 0);
  assert_string_equal(c.last_error, "");
}

/* Stores under the bound walk the directory once (no estimate yet), not
 * once each; past a small bound the walk evicts and the bound holds. */
static void upkeep_walks_when_the_estimate_crosses(void **state) {
  (void)state;
  size_t before = tcmma__cache_upkeep_walks();
  for (int i = 0; i < 100; i++) put(i, 500);
  size_t walked = tcmma__cache_upkeep_walks() - before;
  if (walked > 1) fail_msg("100 stores walked the cache %zu times", walked);
  assert_int_equal(info().entries, 100);
  setenv("TCMMA_CACHE_MAX_BYTES", "20000", 1);
  for (int i = 200; i < 300; i++) put(i, 500);
  tcmma_cache_info c = info();
  assert_true(c.bytes <= 20000);
  assert_true(c.entries > 0);
  assert_true(has(299)); /* the newest stays */
}

/* The XDG spec: a relative XDG_CACHE_HOME is invalid and ignored. */
static void relative_xdg_is_ignored(void **state) {
  (void)state;
  char saved[256], home[512];
  snprintf(saved, sizeof saved, "%s", getenv("TCMMA_CACHE_DIR"));
  snprintf(home, sizeof home, "%s", getenv("HOME") ? getenv("HOME") : "/");
  unsetenv("TCMMA_CACHE_DIR");
  setenv("HOME", "/nonexistent-home", 1);
  setenv("XDG_CACHE_HOME", "relative/cache", 1);
  char path[512];
  assert_int_equal(tcmma__cache_path(path, sizeof path), 1);
  assert_string_equal(path, "/nonexistent-home/.cache/tcmma");
  setenv("XDG_CACHE_HOME", "/abs/cache", 1);
  assert_int_equal(tcmma__cache_path(path, sizeof path), 1);
  assert_string_equal(path, "/abs/cache/tcmma");
  unsetenv("XDG_CACHE_HOME");
  setenv("HOME", home, 1);
  setenv("TCMMA_CACHE_DIR", saved, 1);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test_setup_teardown(failed_store_evicts_and_retries, fresh, gone),
      cmocka_unit_test_setup_teardown(failing_store_is_reported, fresh, gone),
      cmocka_unit_test_setup_teardown(upkeep_walks_when_the_estimate_crosses, fresh, gone),
      cmocka_unit_test_setup_teardown(relative_xdg_is_ignored, fresh, gone),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
