/* CLI helpers for commands that take a CUDA source file. */
#ifndef TCMMA_CLI_SOURCE_H
#define TCMMA_CLI_SOURCE_H

#include <stddef.h>
#include "cli.h"
#include "tcmma/arch.h"

/* Reads path ("-": stdin) whole, NUL-terminated; NULL after a message. */
char *cli_read_source(const char *cmd, const char *path, size_t *len);

/* Parses a --target value; false after a usage message naming both values. */
bool cli_target_option(const char *cmd, const char *text, tcmma_target *out);

#endif
