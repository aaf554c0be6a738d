/* Whether a rung's compile fails for a reason no target changes, so that
 * the probe's walk may stop at the ladder's first rung (docs/nvrtc.md,
 * "Probes"). One such reason is proven, not guessed: the compile stops at
 * an #include of the source itself whose file is not found, and that
 * #include sits outside every #if/#ifdef/#ifndef group. The preprocessor
 * reaches it whatever __CUDA_ARCH__ is, and the include search does not
 * depend on the target, so every rung fails there alike. Any other error (a
 * name a header declares only from some arch on, an #error, an #include
 * inside an #if) proves nothing. Pure: text in, verdict out. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "nvrtc/internal.h"

/* The file name part of path. */
static const char *base_name(const char *path, size_t n, size_t *len) {
  size_t k = n;
  while (k > 0 && path[k - 1] != '/') k--;
  *len = n - k;
  return path + k;
}

/* A compiler's "file not found" error in message: NVRTC's (and cudafe's)
 * `PATH(LINE): catastrophic error: cannot open source file "NAME"`, or the
 * host preprocessor's `PATH:LINE:COL: fatal error: NAME: No such file or
 * directory`. Fills the path (*path, *path_len), line, name and where the
 * error's text starts after the path (*rest) and ends (*end). */
typedef struct {
  const char *path, *rest, *end, *name;
  size_t path_len, name_len;
  long line;
} missing;

/* The start of the "PATH" that ends at end: after the message's last ": "
 * before it, or its start. */
static const char *path_start(const char *message, const char *end) {
  const char *p = end;
  while (p > message && !(p[-1] == ' ' && p - 1 > message && p[-2] == ':')) p--;
  return p;
}

static bool edg_form(const char *message, missing *m) {
  static const char tail[] = "): catastrophic error: cannot open source file \"";
  const char *t = strstr(message, tail);
  if (!t) return false;
  const char *open = t;
  while (open > message && open[-1] >= '0' && open[-1] <= '9') open--;
  if (open == t || open == message || open[-1] != '(') return false;
  m->line = strtol(open, NULL, 10);
  m->path = path_start(message, open - 1), m->path_len = (size_t)(open - 1 - m->path);
  m->name = t + sizeof tail - 1;
  const char *q = strchr(m->name, '"');
  if (!q) return false;
  m->name_len = (size_t)(q - m->name);
  m->rest = open - 1, m->end = q + 1;
  return true;
}

static bool gcc_form(const char *message, missing *m) {
  static const char fatal[] = ": fatal error: ", none[] = ": No such file or directory";
  const char *f = strstr(message, fatal);
  if (!f) return false;
  m->name = f + sizeof fatal - 1;
  const char *q = strstr(m->name, none);
  if (!q) return false;
  m->name_len = (size_t)(q - m->name);
  /* PATH:LINE:COL before the ": fatal error" */
  const char *col = f;
  while (col > message && col[-1] >= '0' && col[-1] <= '9') col--;
  if (col == f || col == message || col[-1] != ':') return false;
  const char *line = col - 1;
  while (line > message && line[-1] >= '0' && line[-1] <= '9') line--;
  if (line == col - 1 || line == message || line[-1] != ':') return false;
  m->line = strtol(line, NULL, 10);
  m->path = path_start(message, line - 1), m->path_len = (size_t)(line - 1 - m->path);
  m->rest = line - 1, m->end = q + sizeof none - 1;
  return true;
}

/* Skips a string or character literal at s[i] (its quote), counting the
 * lines an escaped line end continues it over into *at; the index after. */
static size_t skip_literal(const char *s, size_t len, size_t i, long *at) {
  char q = s[i++];
  while (i < len && s[i] != q && s[i] != '\n') {
    bool escape = s[i] == '\\' && i + 1 < len;
    *at += escape && s[i + 1] == '\n';
    i += escape ? 2 : 1;
  }
  return i < len && s[i] == q ? i + 1 : i;
}

/* The directive at s[i] ('#'): whether it is "include" naming name (n
 * bytes) as "name" or <name>; *word gets 1 for if/ifdef/ifndef, -1 for
 * endif, 0 otherwise. */
static bool directive(const char *s, size_t len, size_t i, const char *name, size_t n, int *word) {
  i++;
  while (i < len && (s[i] == ' ' || s[i] == '\t')) i++;
  size_t w = i;
  while (i < len && s[i] >= 'a' && s[i] <= 'z') i++;
  size_t k = i - w;
  *word = (k == 2 && !strncmp(s + w, "if", 2)) || (k == 5 && !strncmp(s + w, "ifdef", 5)) ||
                  (k == 6 && !strncmp(s + w, "ifndef", 6))
              ? 1
          : k == 5 && !strncmp(s + w, "endif", 5) ? -1
                                                  : 0;
  if (k != 7 || strncmp(s + w, "include", 7)) return false;
  while (i < len && (s[i] == ' ' || s[i] == '\t')) i++;
  if (i >= len || (s[i] != '"' && s[i] != '<')) return false;
  char close = s[i] == '"' ? '"' : '>';
  return i + 1 + n < len && !strncmp(s + i + 1, name, n) && s[i + 1 + n] == close;
}

/* Whether line `line` of source is an #include of name outside every
 * conditional group. Comments and literals are skipped; a directive is a
 * '#' first on its line. A group count that goes below zero proves nothing
 * (raw strings are not read). */
static bool unconditional_include(const char *s, size_t len, long line, const char *name,
                                  size_t n) {
  long at = 1;
  int depth = 0;
  bool first = true; /* nothing but blanks so far on this line */
  for (size_t i = 0; i < len;) {
    char c = s[i];
    if (c == '\n') {
      at++, first = true, i++;
    } else if (c == '/' && i + 1 < len && s[i + 1] == '*') {
      for (i += 2; i + 1 < len && !(s[i] == '*' && s[i + 1] == '/'); i++) at += s[i] == '\n';
      i += 2;
    } else if (c == '/' && i + 1 < len && s[i + 1] == '/') {
      while (i < len && s[i] != '\n') i++;
    } else if (c == '"' || c == '\'') {
      i = skip_literal(s, len, i, &at), first = false;
    } else if (c == '#' && first) {
      int word;
      bool include = directive(s, len, i, name, n, &word);
      if (at == line) return include && depth == 0;
      if ((depth += word) < 0) return false;
      while (i < len && s[i] != '\n') { /* the directive's line, continuations too */
        if (s[i] == '\\' && i + 1 < len && s[i + 1] == '\n') at++, i++;
        i++;
      }
    } else {
      first = first && (c == ' ' || c == '\t' || c == '\r' || c == '\f' || c == '\v'), i++;
    }
    if (at > line) return false;
  }
  return false;
}

bool tcmma__arch_failure_fixed(const char *source, size_t len, const char *name,
                               const char *message, char *first_line, size_t cap) {
  missing m;
  if (!message || !(edg_form(message, &m) || gcc_form(message, &m)) || m.line <= 0) return false;
  size_t own_len, err_len;
  const char *own = base_name(name, strlen(name), &own_len);
  const char *err = base_name(m.path, m.path_len, &err_len);
  char header[256];
  if (own_len != err_len || strncmp(own, err, own_len) || m.name_len >= sizeof header) return false;
  snprintf(header, sizeof header, "%.*s", (int)m.name_len, m.name);
  if (!unconditional_include(source, len, m.line, header, m.name_len)) return false;
  /* the error as the compiler wrote it, the source's own name for its path
   * (nvcc compiles a copy in a directory of its own) */
  if (first_line && cap)
    snprintf(first_line, cap, "%s%.*s", name, (int)(m.end - m.rest), m.rest);
  return true;
}
