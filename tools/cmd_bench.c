/* tcmma bench: dispatches to the benches of tools/bench.def. Benchmarks
 * measure and print; they never decide pass or fail on a time. */
#include <stdio.h>
#include <string.h>
#include "bench.h"

static const struct {
  const char *name;
  cli_command_fn fn;
  const char *summary;
} benches[] = {
#define TCMMA_BENCH(name, fn, summary) {name, fn, summary},
#include "bench.def"
#undef TCMMA_BENCH
};

#define N_BENCHES (sizeof benches / sizeof benches[0])

static void usage(FILE *out) {
  fprintf(out, "usage: tcmma bench BENCH [OPTIONS] [--json]   (tcmma bench BENCH --help)\n\n"
               "Measures, in one run, medians of repeats, CPU and wall time:\n");
  for (size_t i = 0; i < N_BENCHES; i++)
    fprintf(out, "  %-8s %s\n", benches[i].name, benches[i].summary);
}

int cmd_bench(int argc, char **argv) {
  if (argc < 2) {
    usage(stderr);
    return CLI_USAGE;
  }
  if (cli_is_help(argv[1])) {
    usage(stdout);
    return CLI_OK;
  }
  for (size_t i = 0; i < N_BENCHES; i++)
    if (strcmp(argv[1], benches[i].name) == 0) return benches[i].fn(argc - 1, argv + 1);
  fprintf(stderr, "tcmma bench: unknown bench '%s': expected one of", argv[1]);
  for (size_t i = 0; i < N_BENCHES; i++) fprintf(stderr, " %s", benches[i].name);
  fprintf(stderr, "\n");
  return CLI_USAGE;
}
