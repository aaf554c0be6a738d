/* Whole-file input for CLI commands, from a path or standard input. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "cli.h"
#include "cli_input.h"

char *cli_read_input(const char *cmd, const char *path, size_t *len) {
  bool is_stdin = strcmp(path, "-") == 0;
  FILE *f = is_stdin ? stdin : fopen(path, "rb");
  if (!f) {
    cli_fail(cmd, "cannot read %s: %s", path, strerror(errno));
    return NULL;
  }
  size_t cap = 1 << 16, n = 0;
  char *buf = malloc(cap);
  bool too_big = false;
  while (buf) {
    size_t got = fread(buf + n, 1, cap - n - 1, f);
    n += got;
    if (got == 0) break;
    if (n > CLI_INPUT_MAX) { /* an endless stream (a device, a pipe) ends here */
      too_big = true;
      break;
    }
    if (cap - n < 2) {
      char *grown = realloc(buf, cap * 2);
      if (!grown) free(buf);
      buf = grown;
      cap *= 2;
    }
  }
  bool failed = ferror(f), no_memory = !buf;
  int saved = errno;
  if (!is_stdin) fclose(f);
  if (no_memory || failed || too_big) {
    free(buf);
    const char *what = is_stdin ? "standard input" : path;
    if (too_big)
      cli_fail(cmd, "cannot read %s: larger than %d MiB", what, CLI_INPUT_MAX >> 20);
    else
      cli_fail(cmd, "cannot read %s: %s", what, no_memory ? "out of memory" : strerror(saved));
    return NULL;
  }
  buf[n] = '\0';
  *len = n;
  return buf;
}
