/* Reading a command's input file ("-" for standard input). */
#ifndef TCMMA_CLI_INPUT_H
#define TCMMA_CLI_INPUT_H

#include <stddef.h>

/* The largest input a command reads (1 GiB): past it, an error. */
#define CLI_INPUT_MAX (1 << 30)

/* Reads all of path ("-": stdin) into a NUL-terminated buffer the caller
 * frees; *len gets the byte count. NULL after printing "tcmma CMD: cannot
 * read 'PATH': reason" on stderr (unreadable, out of memory, over
 * CLI_INPUT_MAX), or "'PATH': not text: a NUL byte at offset N" as soon as
 * a NUL byte arrives (every command's input is text). */
char *cli_read_input(const char *cmd, const char *path, size_t *len);

#endif
