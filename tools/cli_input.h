/* Reading a command's input file ("-" for standard input). */
#ifndef TCMMA_CLI_INPUT_H
#define TCMMA_CLI_INPUT_H

#include <stdbool.h>
#include <stddef.h>

/* The largest input a command reads (1 GiB): past it, an error. */
#define CLI_INPUT_MAX (1 << 30)

/* Reads all of path ("-": stdin) into a NUL-terminated buffer the caller
 * frees; *len gets the byte count. NULL after printing "tcmma CMD: cannot
 * read 'PATH': reason" on stderr (unreadable, out of memory, over
 * CLI_INPUT_MAX), or "'PATH': not text: a NUL byte at offset N" as soon as
 * a NUL byte arrives (every command's input is text). */
char *cli_read_input(const char *cmd, const char *path, size_t *len);

/* An input read as it arrives, for a reader that takes it a chunk at a time
 * (tcmma_ptx_parse_stream), in bounded memory. */
typedef struct {
  const char *cmd;
  char what[512];  /* the input's name in messages: 'PATH' or standard input */
  int fd;
  bool is_stdin, failed; /* failed: cli_stream_read said why */
  size_t total;
} cli_stream;

/* Opens path ("-": stdin) as cli_read_input does; false after its message. */
bool cli_stream_open(const char *cmd, const char *path, cli_stream *in);
/* A tcmma_ptx_read_fn over a cli_stream: -1 after cli_read_input's message
 * for a read error, a NUL byte or CLI_INPUT_MAX bytes. */
long cli_stream_read(void *ctx, char *buf, size_t cap);
void cli_stream_close(cli_stream *in);

#endif
