/* bench_compile: NVRTC compile time cold (no cache), from the disk cache and
 * from the memory cache, median of N runs each, for one source file.
 * usage: bench_compile FILE [N] [--sass]   (uses a fresh temporary cache dir) */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include "cli.h"
#include "cli_input.h"
#include "tcmma/tcmma.h"

static double now_ms(void) {
  struct timespec t;
  clock_gettime(CLOCK_MONOTONIC, &t);
  return t.tv_sec * 1e3 + t.tv_nsec / 1e6;
}

static int cmp(const void *a, const void *b) {
  double x = *(const double *)a, y = *(const double *)b;
  return (x > y) - (x < y);
}

/* One compile timed; which: 0 cold (memory cleared, disk off), 1 disk hit
 * (memory cleared), 2 memory hit. */
static double timed(const char *src, size_t len, const tcmma_compile_opts *o, int which) {
  if (which < 2) tcmma_cache_clear_memory();
  if (which == 0) setenv("TCMMA_CACHE", "0", 1);
  tcmma_program p;
  tcmma_error err;
  double t0 = now_ms();
  tcmma_status st = tcmma_compile(src, len, o, &p, &err);
  double t = now_ms() - t0;
  unsetenv("TCMMA_CACHE");
  if (st != TCMMA_OK) fprintf(stderr, "bench_compile: %s\n", err.message), exit(1);
  if (p.cache_hit != (which != 0))
    fprintf(stderr, "bench_compile: expected %s\n", which ? "a hit" : "a miss"), exit(1);
  tcmma_program_free(&p);
  return t;
}

int main(int argc, char **argv) {
  if (argc < 2) return fprintf(stderr, "usage: bench_compile FILE [N] [--sass]\n"), 2;
  long count = 5;
  if (argc > 2 && !cli_int("bench_compile", "N", argv[2], 1, 1000, &count)) return 2;
  int n = (int)count;
  tcmma_compile_opts o = {.sass = argc > 3 && strcmp(argv[3], "--sass") == 0};
  size_t len;
  char *src = cli_read_input("bench_compile", argv[1], &len);
  if (!src) return 1;
  char dir[] = "/tmp/tcmma-bench-XXXXXX";
  if (!mkdtemp(dir)) return 1;
  setenv("TCMMA_CACHE_DIR", dir, 1);
  tcmma_program warm;
  if (tcmma_compile(src, len, &o, &warm, NULL) != TCMMA_OK) return 1; /* loads NVRTC, fills disk */
  tcmma_program_free(&warm);
  static const char *const names[] = {"cold (NVRTC)", "disk cache hit", "memory cache hit"};
  for (int which = 0; which < 3; which++) {
    double *t = calloc((size_t)n, sizeof *t);
    for (int i = 0; i < n; i++) t[i] = timed(src, len, &o, which);
    qsort(t, (size_t)n, sizeof *t, cmp);
    printf("%-18s median %8.3f ms  (min %.3f, max %.3f, n=%d)\n", names[which], t[n / 2], t[0],
           t[n - 1], n);
    free(t);
  }
  free(src);
  char cmd[64];
  snprintf(cmd, sizeof cmd, "rm -rf %s", dir);
  return system(cmd) == 0 ? 0 : 1;
}
