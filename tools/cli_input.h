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

/* The same for a command that reads its input in place: a regular file of
 * 1 MiB or more is mapped (not NUL-terminated: *len bytes; *mapped is its
 * length), anything else read as cli_read_input reads it (*mapped 0). NULL
 * after the same messages. Release with cli_unmap_input. */
const char *cli_map_input(const char *cmd, const char *path, size_t *len, size_t *mapped);
void cli_unmap_input(const char *data, size_t mapped);

#endif
