/* The memory cache (nvrtc/cache.c): a ring of 256 entries that a lookup
 * reads only as far as it is filled (a fresh process touches none of the
 * rest). Filled in order, the oldest entry is replaced first, a key stored
 * twice takes one slot, and clearing empties it. Memory only
 * (TCMMA_CACHE=0): no disk, no NVRTC. */
#include "util.h"
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "tcmma/tcmma.h"
#include "nvrtc/internal.h"

#define RING 256

static void key_of(int i, unsigned char key[32]) {
  memset(key, 0, 32);
  snprintf((char *)key, 32, "memory-ring %d", i);
}

static void store(int i) {
  unsigned char key[32];
  char ptx[64];
  key_of(i, key);
  int n = snprintf(ptx, sizeof ptx, "// program %d\n", i);
  tcmma_program p = {.ptx = ptx, .ptx_len = (size_t)n, .log = ""};
  tcmma__cache_store(key, &p, TCMMA_OK, NULL);
}

/* Whether entry i is cached, and then that it holds program i. */
static bool cached(int i) {
  unsigned char key[32];
  key_of(i, key);
  tcmma_program p = {0};
  tcmma_status status;
  char message[64];
  bool hit = tcmma__cache_lookup(key, &p, &status, message, sizeof message);
  if (hit) {
    char want[64];
    snprintf(want, sizeof want, "// program %d\n", i);
    assert_int_equal(status, TCMMA_OK);
    assert_non_null(p.ptx);
    assert_string_equal(p.ptx, want);
  }
  tcmma_program_free(&p);
  return hit;
}

static void ring_fills_then_replaces_the_oldest(void **state) {
  (void)state;
  setenv("TCMMA_CACHE", "0", 1);
  tcmma_cache_clear_memory();
  for (int i = 0; i < 3; i++) store(i);
  for (int i = 0; i < 3; i++) assert_true(cached(i));
  assert_false(cached(3));
  for (int i = 3; i < RING + 44; i++) store(i);
  for (int i = 0; i < 44; i++) assert_false(cached(i)); /* the oldest went first */
  for (int i = 44; i < RING + 44; i++) assert_true(cached(i));
  store(RING + 43); /* already there: takes no slot */
  assert_true(cached(44));
  store(RING + 44); /* one new entry replaces one, the oldest */
  assert_false(cached(44));
  assert_true(cached(45));
  assert_true(cached(RING + 44));
  tcmma_cache_clear_memory();
  for (int i = 44; i <= RING + 44; i++) assert_false(cached(i));
  store(7); /* filling again after a clear starts at the first slot */
  assert_true(cached(7));
  tcmma_cache_clear_memory();
  unsetenv("TCMMA_CACHE");
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(ring_fills_then_replaces_the_oldest),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
