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
  while (buf) {
    size_t got = fread(buf + n, 1, cap - n - 1, f);
    n += got;
    if (got == 0) break;
    if (cap - n < 2) {
      char *grown = cap > ((size_t)-1) / 4 ? NULL : realloc(buf, cap * 2);
      if (!grown) free(buf);
      buf = grown;
      cap *= 2;
    }
  }
  bool failed = ferror(f);
  int saved = errno;
  if (!is_stdin) fclose(f);
  if (!buf || failed) {
    free(buf);
    cli_fail(cmd, "cannot read %s: %s", is_stdin ? "standard input" : path,
             buf ? strerror(saved) : "out of memory");
    return NULL;
  }
  buf[n] = '\0';
  *len = n;
  return buf;
}
