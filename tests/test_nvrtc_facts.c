/* A disk-cache hit without loading NVRTC (nvrtc/nvrtc_facts.c): a fresh
 * process takes NVRTC's facts from the facts file of the very library the
 * loader would take, and builds the same key. Each step runs in a fresh
 * child process (the facts are found once per process) and reports through
 * its exit status; whether libnvrtc was loaded is read from
 * /proc/self/maps. */
#include "util.h"
#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>
#include "tcmma/tcmma.h"

static const char src[] =
    "extern \"C\" __global__ void k(float *d) { d[threadIdx.x] *= 2.0f; }\n";

static char cache_dir[256];

static int fresh_cache(void **state) {
  (void)state;
  test_cache_fresh(cache_dir, sizeof cache_dir, "facts");
  unsetenv("TCMMA_NVRTC");
  return 0;
}

static int remove_cache(void **state) {
  (void)state;
  unsetenv("TCMMA_NVRTC");
  unsetenv("TCMMA_CACHE");
  return test_cache_remove(cache_dir);
}

static bool nvrtc_mapped(void) {
  char *maps = read_file("/proc/self/maps", NULL);
  bool mapped = maps && strstr(maps, "libnvrtc.so") != NULL;
  free(maps);
  return mapped;
}

/* What a child saw: bit 0 a cache hit, bit 1 NVRTC loaded; 64 + status on
 * a failed compile. */
enum { HIT = 1, LOADED = 2 };

static int child_compile(void) {
  tcmma_program p;
  tcmma_error err;
  tcmma_status st = tcmma_compile(src, strlen(src), NULL, &p, &err);
  if (st != TCMMA_OK) return 64 + (int)st;
  int seen = (p.cache_hit ? HIT : 0) | (nvrtc_mapped() ? LOADED : 0);
  tcmma_program_free(&p);
  return seen;
}

/* The facts file of cache_dir into path; how many there are. */
static int facts_files(char *path, size_t cap) {
  DIR *d = opendir(cache_dir);
  int n = 0;
  for (struct dirent *e; d && (e = readdir(d));) {
    size_t len = strlen(e->d_name);
    if (len > 6 && strcmp(e->d_name + len - 6, ".facts") == 0) {
      snprintf(path, cap, "%s/%s", cache_dir, e->d_name);
      n++;
    }
  }
  if (d) closedir(d);
  return n;
}

/* Cold: NVRTC loads and the facts file is written; warm in a fresh
 * process: a hit with NVRTC never loaded. */
static void disk_hit_without_nvrtc(void **state) {
  (void)state;
  assert_int_equal(test_in_child(child_compile), LOADED);
  char path[600];
  assert_int_equal(facts_files(path, sizeof path), 1);
  assert_int_equal(test_in_child(child_compile), HIT);
}

/* The facts from the file are the loaded NVRTC's own. */
static int child_facts_agree(void) {
  tcmma_nvrtc_info facts, loaded;
  tcmma_arch_support a, b;
  if (tcmma_nvrtc_facts(&facts, NULL) != TCMMA_OK || tcmma_nvrtc_support(&a, NULL) != TCMMA_OK)
    return 10;
  if (nvrtc_mapped()) return 11; /* the facts came from disk */
  if (tcmma_nvrtc_load(&loaded, NULL) != TCMMA_OK) return 12;
  bool same = facts.major == loaded.major && facts.minor == loaded.minor &&
              strcmp(facts.library, loaded.library) == 0 &&
              strcmp(facts.include_dir, loaded.include_dir) == 0 &&
              strcmp(facts.cccl_include_dir, loaded.cccl_include_dir) == 0;
  if (!same) return 13;
  if (tcmma_nvrtc_support(&b, NULL) != TCMMA_OK || a.count != b.count ||
      memcmp(a.archs, b.archs, a.count * sizeof a.archs[0]) != 0)
    return 14;
  /* an a/f target answered from the file agrees with NVRTC's own probe */
  return a.accepts(90, 'a', a.ctx) == b.accepts(90, 'a', b.ctx) ? 0 : 15;
}

static int child_probe_90a(void) {
  tcmma_arch_support a;
  if (tcmma_nvrtc_support(&a, NULL) != TCMMA_OK) return 10;
  a.accepts(90, 'a', a.ctx); /* joins the facts file */
  return 0;
}

static void facts_are_nvrtcs(void **state) {
  (void)state;
  assert_int_equal(test_in_child(child_compile), LOADED);
  assert_int_equal(test_in_child(child_probe_90a), 0);
  assert_int_equal(test_in_child(child_facts_agree), 0);
}

/* A facts file that does not verify (changed bytes) is not used: NVRTC
 * loads, the hit still comes, and the file is written again. */
static void damaged_facts_not_used(void **state) {
  (void)state;
  assert_int_equal(test_in_child(child_compile), LOADED);
  char path[600];
  assert_int_equal(facts_files(path, sizeof path), 1);
  size_t len = 0;
  char *data = read_file(path, &len);
  assert_non_null(data);
  char *v = memmem(data, len, "version ", 8); /* the payload, after the binary header */
  assert_non_null(v);
  v[8] = v[8] == '9' ? '8' : '9'; /* another NVRTC major, same length */
  FILE *f = fopen(path, "wb");
  assert_non_null(f);
  assert_int_equal(fwrite(data, 1, len, f), len);
  fclose(f);
  free(data);
  assert_int_equal(test_in_child(child_compile), HIT | LOADED);
  assert_int_equal(test_in_child(child_compile), HIT); /* rewritten */
}

/* The facts are the library's at its path: another path to the same
 * library (TCMMA_NVRTC through a symlink) has none until it loads; with
 * the disk cache off, no facts file is read or written. */
static void facts_per_library_and_setting(void **state) {
  (void)state;
  assert_int_equal(test_in_child(child_compile), LOADED);
  /* the library the loader takes first (never loaded here: the children
   * fork from this process) */
  char lib[400], link[400];
  snprintf(lib, sizeof lib, "%s/lib64/libnvrtc.so", cuda_home());
  snprintf(link, sizeof link, "%s/libnvrtc-link.so", cache_dir);
  assert_int_equal(symlink(lib, link), 0);
  setenv("TCMMA_NVRTC", link, 1);
  assert_int_equal(test_in_child(child_compile), HIT | LOADED);
  assert_int_equal(test_in_child(child_compile), HIT);
  char path[600];
  assert_int_equal(facts_files(path, sizeof path), 2);
  unsetenv("TCMMA_NVRTC");
  setenv("TCMMA_CACHE", "0", 1);
  assert_int_equal(test_in_child(child_compile), LOADED);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test_setup_teardown(disk_hit_without_nvrtc, fresh_cache, remove_cache),
      cmocka_unit_test_setup_teardown(facts_are_nvrtcs, fresh_cache, remove_cache),
      cmocka_unit_test_setup_teardown(damaged_facts_not_used, fresh_cache, remove_cache),
      cmocka_unit_test_setup_teardown(facts_per_library_and_setting, fresh_cache, remove_cache),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
