/* PTX reader throughput: builds a module of at least MB megabytes by
 * repeating FILE's body (everything after its .address_size line) under its
 * header, parses it REPEAT times and prints the best time and MB/s.
 * usage: bench_ptx FILE [MB=64] [REPEAT=5] */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include "cli.h"
#include "cli_input.h"
#include "tcmma/tcmma.h"

static double now(void) {
  struct timespec t;
  clock_gettime(CLOCK_MONOTONIC, &t);
  return (double)t.tv_sec + (double)t.tv_nsec * 1e-9;
}

int main(int argc, char **argv) {
  if (argc < 2) {
    fprintf(stderr, "usage: bench_ptx FILE [MB=64] [REPEAT=5]\n");
    return 2;
  }
  long mb = 64, repeat = 5;
  if ((argc > 2 && !cli_int("bench_ptx", "MB", argv[2], 1, 4096, &mb)) ||
      (argc > 3 && !cli_int("bench_ptx", "REPEAT", argv[3], 1, 1000, &repeat)))
    return 2;
  size_t n;
  char *src = cli_read_input("bench_ptx", argv[1], &n);
  if (!src) return 1;
  char *body = strstr(src, ".address_size");
  body = body ? strchr(body, '\n') : NULL;
  if (!body) return fprintf(stderr, "%s: no .address_size line\n", argv[1]), 1;
  body++;
  size_t head = (size_t)(body - src), blen = strlen(body), want = (size_t)mb << 20;
  size_t copies = want / (blen ? blen : 1) + 1, len = head + copies * blen;
  char *text = malloc(len + 1);
  if (!text) return fprintf(stderr, "out of memory\n"), 1;
  memcpy(text, src, head);
  for (size_t i = 0; i < copies; i++) memcpy(text + head + i * blen, body, blen);
  text[len] = '\0';
  double best = 1e30;
  size_t instructions = 0, distinct = 0;
  for (long r = 0; r < repeat; r++) {
    tcmma_ptx_info info;
    tcmma_error err;
    double t0 = now();
    tcmma_status s = tcmma_ptx_parse(text, len, &info, &err);
    double dt = now() - t0;
    if (s != TCMMA_OK) return fprintf(stderr, "parse failed: %s\n", err.message), 1;
    instructions = info.instruction_count, distinct = info.census_count;
    tcmma_ptx_info_free(&info);
    if (dt < best) best = dt;
  }
  printf("%zu bytes (%zu copies of %s), %zu instructions, %zu distinct opcodes\n", len, copies,
         argv[1], instructions, distinct);
  printf("best of %ld: %.3f s, %.1f MB/s, %.1f M instructions/s\n", repeat, best,
         (double)len / best / 1e6, (double)instructions / best / 1e6);
  free(text), free(src);
  return 0;
}
