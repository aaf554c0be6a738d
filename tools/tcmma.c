/* The tcmma CLI: dispatches to the commands of tools/commands.def. */
#include <stdio.h>
#include <string.h>
#include "cli.h"
#include "tcmma/tcmma.h"

#define TCMMA_COMMAND(name, fn, summary) int fn(int argc, char **argv);
#include "commands.def"
#undef TCMMA_COMMAND

static const cli_subcommand commands[] = {
#define TCMMA_COMMAND(name, fn, summary) {name, fn, summary},
#include "commands.def"
#undef TCMMA_COMMAND
};

#define N_COMMANDS (sizeof commands / sizeof commands[0])

static void usage(FILE *out) {
  fprintf(out, "usage: tcmma COMMAND [OPTIONS]   (tcmma COMMAND --help for its options)\n\n"
               "tcmma %s: tensor-core tile-MMA emission for CUDA code generators.\n\n"
               "commands:\n", TCMMA_VERSION);
  for (size_t i = 0; i < N_COMMANDS; i++)
    fprintf(out, "  %-12s %s\n", commands[i].name, commands[i].summary);
}

int main(int argc, char **argv) {
  if (argc >= 2 && strcmp(argv[1], "--version") == 0) {
    printf("tcmma %s\n", TCMMA_VERSION);
    return CLI_OK;
  }
  int rc = cli_dispatch("tcmma", "command", commands, N_COMMANDS, usage, argc, argv);
  /* a JSON reader gets an object on failure too, not an empty stdout */
  if (rc != CLI_OK && argc >= 2 && cli_wants_json(argc - 1, argv + 1))
    cli_json_failure(argv[1], rc);
  return rc;
}
