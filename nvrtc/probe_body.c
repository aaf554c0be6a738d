/* Which kernels of a PTX module may have been compiled away: an .entry
 * whose body holds no instruction but ret and exit, or that traps (trap,
 * brkpt: a header-only library's atom below its arch, `#else __trap();`).
 * Whether it was is the ladder's question: a higher target that keeps work
 * in it and no trap (nvrtc/probe.c). Pure: text in, names out (docs/nvrtc.md,
 * "Probes"). */
#include <stdlib.h>
#include <string.h>
#include "tcmma/buf.h"
#include "nvrtc/internal.h"

static bool name_char(char c) {
  return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '_' ||
         c == '$' || c == '.';
}

enum { IDLE = 0, WORK = 1, TRAPS = 2 };

/* What the statement s[0..n) (no ';') is: TRAPS for trap and brkpt, IDLE
 * for ret, exit and what is no instruction (labels, braces, predicates,
 * directives such as .reg and .pragma), else WORK. */
static int statement_kind(const char *s, size_t n) {
  size_t i = 0;
  for (;;) {
    while (i < n && strchr(" \t\r\n{}", s[i])) i++;
    size_t w = i;
    while (i < n && (name_char(s[i]) || s[i] == '%')) i++;
    if (i < n && s[i] == ':' && i > w) { /* a label */
      i++;
      continue;
    }
    i = w;
    break;
  }
  if (i < n && s[i] == '@') /* a guard predicate */
    while (i < n && !strchr(" \t", s[i])) i++;
  while (i < n && strchr(" \t\r\n", s[i])) i++;
  if (i >= n || s[i] == '.') return IDLE;
  size_t w = i;
  while (i < n && name_char(s[i]) && s[i] != '.') i++;
  static const char *const idle[] = {"ret", "exit", "trap", "brkpt"};
  for (size_t k = 0; k < sizeof idle / sizeof idle[0]; k++)
    if (strlen(idle[k]) == i - w && memcmp(s + w, idle[k], i - w) == 0) return k < 2 ? IDLE : TRAPS;
  return i > w ? WORK : IDLE;
}

/* What the body at ptx[open] ('{') up to its matching '}' holds: WORK and
 * TRAPS or'ed; *end gets the index after it. Comments are skipped. */
static int body_kind(const char *ptx, size_t len, size_t open, size_t *end) {
  int depth = 0, kind = IDLE;
  size_t stmt = open + 1, i = open;
  for (; i < len; i++) {
    char c = ptx[i];
    if (c == '/' && i + 1 < len && ptx[i + 1] == '/') {
      kind |= statement_kind(ptx + stmt, i - stmt);
      while (i < len && ptx[i] != '\n') i++;
      stmt = i;
      continue;
    }
    if (c == '{') depth++;
    if (c == '}') depth--;
    if (c == ';' || c == '}' || c == '{') {
      if (i > stmt) kind |= statement_kind(ptx + stmt, i - stmt);
      stmt = i + 1;
    }
    if (depth == 0) break;
  }
  *end = i < len ? i + 1 : len;
  return kind;
}

int tcmma__arch_kernels(const char *ptx, size_t len, tcmma_buf *suspect, tcmma_buf *clean) {
  size_t i = 0;
  int n = 0;
  static const char entry[] = ".entry";
  while (i + sizeof entry < len) {
    const char *hit = memmem(ptx + i, len - i, entry, sizeof entry - 1);
    if (!hit) break;
    i = (size_t)(hit - ptx) + sizeof entry - 1;
    if ((hit > ptx && !strchr(" \t\n", hit[-1])) || !strchr(" \t", ptx[i])) continue;
    while (i < len && strchr(" \t", ptx[i])) i++;
    size_t name = i;
    while (i < len && name_char(ptx[i])) i++;
    size_t name_len = i - name;
    size_t open = i;
    while (open < len && ptx[open] != '{' && ptx[open] != ';') open++;
    if (!name_len || open >= len || ptx[open] != '{') continue; /* a declaration */
    size_t end;
    tcmma_buf *to = body_kind(ptx, len, open, &end) == WORK ? clean : suspect;
    if (to) tcmma_buf_printf(to, "%s%.*s", to->len ? " " : "", (int)name_len, ptx + name);
    n++;
    i = end;
  }
  return n;
}

bool tcmma__arch_name_in(const char *list, const char *name, size_t n) {
  for (const char *p = list; p && *p;) {
    const char *sp = strchr(p, ' ');
    size_t k = sp ? (size_t)(sp - p) : strlen(p);
    if (k == n && memcmp(p, name, n) == 0) return true;
    p += k + (sp != NULL);
  }
  return false;
}
