/* The --target option shared by the options and compile commands. */
#ifndef TCMMA_CLI_TARGET_H
#define TCMMA_CLI_TARGET_H

#include "cli.h"
#include "tcmma/arch.h"

/* Parses a --target value; false after a usage message naming both values. */
bool cli_target_option(const char *cmd, const char *text, tcmma_target *out);

#endif
