/* Concurrent compiles (run under ThreadSanitizer by `make check TSAN=1`):
 * threads compile from a small pool of sources, so hits and misses mix in
 * memory and on disk, inside target scopes they nest two deep (floor or
 * native, ended in either order), while another thread empties the memory
 * cache now and then. Every compile must succeed, and every program
 * compiled for a (source, options) pair, hit or miss, must be the same
 * PTX. */
#include "util.h"
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "tcmma/tcmma.h"

#define THREADS 6
#define ROUNDS 6
#define SOURCES 5

typedef struct {
  char *what; /* the source and its options */
  char *ptx;
} seen;

static pthread_mutex_t seen_lock = PTHREAD_MUTEX_INITIALIZER;
static seen programs[256];
static size_t n_programs;
static long hits, misses, differ;
static atomic_int stop_clearing;

static char texts[SOURCES][200];

/* Written before the threads start. Filled lazily, a second writer's
 * snprintf first sets text[0] to NUL (glibc), so another thread could read
 * the text as "" and compile an empty program under this index: the 13
 * "differing" programs CI saw once. */
static void make_sources(void) {
  for (int i = 0; i < SOURCES; i++)
    snprintf(texts[i], sizeof texts[i],
             "#include <cuda_fp16.h>\n"
             "extern \"C\" __global__ void k%d(__half *p) { p[threadIdx.x] = __float2half(%d.0f); }\n",
             i, i);
}

static const char *source(int i) { return texts[i]; }

/* Records p's PTX under its source and options; a different PTX for the
 * same pair counts in differ. */
static void check(int src, const tcmma_program *p) {
  char what[1024];
  size_t used = (size_t)snprintf(what, sizeof what, "%d", src);
  for (size_t i = 0; i < p->n_options && used < sizeof what; i++)
    used += (size_t)snprintf(what + used, sizeof what - used, " %s", p->options[i]);
  pthread_mutex_lock(&seen_lock);
  if (p->cache_hit) hits++;
  else misses++;
  size_t i = 0;
  while (i < n_programs && strcmp(programs[i].what, what) != 0) i++;
  if (i == n_programs && n_programs < 256) {
    programs[n_programs].what = strdup(what);
    programs[n_programs++].ptx = strdup(p->ptx);
  } else if (i < n_programs && strcmp(programs[i].ptx, p->ptx) != 0) {
    if (!differ++) { /* say where, once: a failure here is rare and must be readable */
      const char *a = programs[i].ptx, *b = p->ptx;
      size_t at = 0, line = 1;
      for (; a[at] && a[at] == b[at]; at++) line += a[at] == '\n';
      print_message("differ (%s, %s): line %zu: first '%.80s' then '%.80s'\n", what,
                    p->cache_hit ? "hit" : "compiled", line, a + at, b + at);
    }
  }
  pthread_mutex_unlock(&seen_lock);
}

static long compile_some(unsigned *seed, int count) {
  long failures = 0;
  for (int j = 0; j < count; j++) {
    int src = (int)(rand_r(seed) % SOURCES);
    tcmma_compile_opts o = TCMMA_COMPILE_OPTS_INIT(.name = "t.cu", .cc = 86);
    tcmma_program p;
    tcmma_error err;
    const char *text = source(src);
    if (tcmma_compile(text, strlen(text), &o, &p, &err) != TCMMA_OK) {
      print_message("compile: %s\n", err.message);
      failures++;
    } else {
      check(src, &p);
    }
    tcmma_program_free(&p);
  }
  return failures;
}

static void *worker(void *arg) {
  unsigned seed = (unsigned)(size_t)arg;
  long failures = 0;
  for (int r = 0; r < ROUNDS; r++) {
    tcmma_target_scope *outer, *inner;
    tcmma_target t1 = rand_r(&seed) % 2 ? TCMMA_TARGET_FLOOR : TCMMA_TARGET_NATIVE;
    tcmma_target t2 = rand_r(&seed) % 2 ? TCMMA_TARGET_FLOOR : TCMMA_TARGET_NATIVE;
    if (tcmma_target_scope_begin(t1, &outer, NULL) != TCMMA_OK) return (void *)1L;
    failures += compile_some(&seed, 2);
    if (tcmma_target_scope_begin(t2, &inner, NULL) != TCMMA_OK) return (void *)1L;
    failures += compile_some(&seed, 2);
    tcmma_records a, b;
    if (rand_r(&seed) % 2) { /* either order */
      tcmma_target_scope_end(inner, &a), tcmma_target_scope_end(outer, &b);
    } else {
      tcmma_target_scope_end(outer, &b), tcmma_target_scope_end(inner, &a);
    }
    for (size_t i = 0; i < a.count; i++) failures += !a.items[i].ptx || !a.items[i].target_arch[0];
    tcmma_records_free(&a), tcmma_records_free(&b);
  }
  return (void *)failures;
}

static void *clearer(void *arg) {
  (void)arg;
  while (!stop_clearing) {
    tcmma_cache_clear_memory(); /* the next compiles read the disk */
    usleep(20000);
  }
  return NULL;
}

static void threads_compile_in_nested_scopes(void **state) {
  (void)state;
  char dir[] = "/tmp/tcmma-threads-XXXXXX";
  assert_non_null(mkdtemp(dir));
  setenv("TCMMA_CACHE_DIR", dir, 1);
  unsetenv("TCMMA_CACHE");
  unsetenv("TCMMA_PTX_TARGET");
  make_sources();
  tcmma_nvrtc_info info; /* load NVRTC once before the threads race for it */
  assert_int_equal(tcmma_nvrtc_load(&info, NULL), TCMMA_OK);
  pthread_t th[THREADS], clear;
  assert_int_equal(pthread_create(&clear, NULL, clearer, NULL), 0);
  for (size_t i = 0; i < THREADS; i++)
    assert_int_equal(pthread_create(&th[i], NULL, worker, (void *)(i + 1)), 0);
  long failures = 0;
  for (size_t i = 0; i < THREADS; i++) {
    void *f;
    pthread_join(th[i], &f);
    failures += (long)f;
  }
  stop_clearing = 1;
  pthread_join(clear, NULL);
  print_message("threads: %d x %d rounds, %ld compiled, %ld hits, %zu distinct programs, "
                "%ld differing\n", THREADS, ROUNDS, misses, hits, n_programs, differ);
  assert_int_equal(failures, 0);
  assert_int_equal(differ, 0);
  assert_true(hits > 0 && misses > 0);
  for (size_t i = 0; i < n_programs; i++) free(programs[i].what), free(programs[i].ptx);
  char cmd[64];
  snprintf(cmd, sizeof cmd, "rm -rf '%s'", dir);
  assert_int_equal(system(cmd), 0);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(threads_compile_in_nested_scopes),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
