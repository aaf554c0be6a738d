/* The tcmma CLI: dispatches to the commands of tools/commands.def. */
#include <stdio.h>
#include <string.h>
#include "cli.h"
#include "tcmma/tcmma.h"

#define TCMMA_COMMAND(name, fn, summary) int fn(int argc, char **argv);
#include "commands.def"
#undef TCMMA_COMMAND

static const struct {
  const char *name;
  cli_command_fn fn;
  const char *summary;
} commands[] = {
#define TCMMA_COMMAND(name, fn, summary) {name, fn, summary},
#include "commands.def"
#undef TCMMA_COMMAND
};

static void usage(FILE *out) {
  fprintf(out, "usage: tcmma COMMAND [OPTIONS]   (tcmma COMMAND --help for its options)\n\n"
               "tcmma %s: tensor-core tile-MMA emission for CUDA code generators.\n\n"
               "commands:\n", TCMMA_VERSION);
  for (size_t i = 0; i < sizeof commands / sizeof commands[0]; i++)
    fprintf(out, "  %-12s %s\n", commands[i].name, commands[i].summary);
}

int main(int argc, char **argv) {
  if (argc < 2) {
    usage(stderr);
    return CLI_USAGE;
  }
  if (cli_is_help(argv[1])) {
    usage(stdout);
    return CLI_OK;
  }
  if (strcmp(argv[1], "--version") == 0) {
    printf("tcmma %s\n", TCMMA_VERSION);
    return CLI_OK;
  }
  for (size_t i = 0; i < sizeof commands / sizeof commands[0]; i++)
    if (strcmp(argv[1], commands[i].name) == 0) return commands[i].fn(argc - 1, argv + 1);
  fprintf(stderr, "tcmma: unknown command '%s': expected one of", argv[1]);
  for (size_t i = 0; i < sizeof commands / sizeof commands[0]; i++)
    fprintf(stderr, " %s", commands[i].name);
  fprintf(stderr, "\n");
  return CLI_USAGE;
}
