/* tcmma bench: dispatches to the benches of tools/bench.def. Benchmarks
 * measure and print; they never decide pass or fail on a time. */
#include <stdio.h>
#include "bench.h"

static const cli_subcommand benches[] = {
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
  return cli_dispatch("tcmma bench", "bench", benches, N_BENCHES, usage, argc, argv);
}
