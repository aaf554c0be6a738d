/* Reading a source file (or stdin) for the options and compile commands. */
#include <stdlib.h>
#include <string.h>
#include "cli_source.h"

char *cli_read_source(const char *cmd, const char *path, size_t *len) {
  FILE *f = strcmp(path, "-") == 0 ? stdin : fopen(path, "rb");
  if (!f) {
    cli_fail(cmd, "cannot open '%s'", path);
    return NULL;
  }
  size_t cap = 4096, n = 0;
  char *buf = malloc(cap);
  for (size_t got; buf && (got = fread(buf + n, 1, cap - n - 1, f)) > 0;) {
    n += got;
    if (cap - n < 2) {
      char *grown = cap > ((size_t)1 << 30) ? NULL : realloc(buf, cap *= 2);
      if (!grown) free(buf);
      buf = grown;
    }
  }
  bool bad = ferror(f);
  if (f != stdin) fclose(f);
  if (!buf || bad) {
    free(buf);
    cli_fail(cmd, "cannot read '%s'%s", path, bad ? "" : ": too large");
    return NULL;
  }
  buf[n] = '\0';
  *len = n;
  return buf;
}

bool cli_target_option(const char *cmd, const char *text, tcmma_target *out) {
  tcmma_error err;
  if (tcmma_target_parse(text, out, &err) == TCMMA_OK) return true;
  cli_usage(cmd, "--target: %s", err.message);
  return false;
}
