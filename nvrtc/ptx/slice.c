/* One kernel's part of a PTX module (tcmma_compile_batch): the module is read
 * as top-level items — a statement up to its ';', a line directive (.version,
 * .target, .address_size, .file) up to its line end, or a definition up to
 * the '}' closing its body, each with the blanks and comments before it —
 * and the definitions of other functions are left out: what stays is the
 * header, every declaration, the kernel's .entry and the .func definitions
 * it reaches by name. NVRTC writes each function the same whether it
 * compiles it alone or among others (tests/test_compile_batch.c), so the
 * part reads as the kernel compiled alone. */
#include <stdlib.h>
#include <string.h>
#include "nvrtc/internal.h"

typedef enum { ITEM_OTHER, ITEM_ENTRY, ITEM_FUNC } item_kind;

typedef struct {
  size_t start, end;         /* [start, end), leading blanks and comments included */
  item_kind kind;
  size_t name_at, name_len;  /* the defined function's name */
  bool keep;
} item;

static bool word_char(char c) {
  return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
         c == '_' || c == '$' || c == '%';
}

static bool is_word(const char *w, size_t n, const char *name) {
  return strlen(name) == n && memcmp(w, name, n) == 0;
}

/* Directives that end at their line's end at the top level. */
static bool line_directive(const char *w, size_t n) {
  return is_word(w, n, "version") || is_word(w, n, "target") || is_word(w, n, "address_size") ||
         is_word(w, n, "file");
}

/* Where the comment or string at p ends (p itself when none starts there). */
static size_t skip_quoted(const char *t, size_t len, size_t p) {
  if (t[p] == '/' && p + 1 < len && t[p + 1] == '/') {
    const char *nl = memchr(t + p, '\n', len - p);
    return nl ? (size_t)(nl - t) : len;
  }
  if (t[p] == '/' && p + 1 < len && t[p + 1] == '*') {
    for (size_t i = p + 2; i + 1 < len; i++)
      if (t[i] == '*' && t[i + 1] == '/') return i + 2;
    return len;
  }
  if (t[p] == '"') {
    for (size_t i = p + 1; i < len; i++) {
      if (t[i] == '\\') i++;
      else if (t[i] == '"') return i + 1;
    }
    return len;
  }
  return p;
}

/* The module's top-level items, in order; NULL on no memory. */
static item *items_of(const char *t, size_t len, size_t *count) {
  size_t cap = 64, n = 0;
  item *items = malloc(cap * sizeof *items);
  if (!items) return NULL;
  item cur = {0};
  int depth = 0, parens = 0;
  bool started = false, line_item = false, want_name = false, body = false;
  for (size_t p = 0; p < len;) {
    size_t q = skip_quoted(t, len, p);
    if (q != p) {
      p = q;
      continue;
    }
    char c = t[p];
    bool ends = false;
    if (c == '\n' && depth == 0 && line_item) ends = true;
    else if (c == '{') depth++, body = body || depth == 1;
    else if (c == '}' && depth > 0) ends = --depth == 0;
    else if (c == ';' && depth == 0) ends = true;
    else if (depth == 0 && c == '(') parens++;
    else if (depth == 0 && c == ')' && parens > 0) parens--;
    else if (depth == 0 && !body && (c == '.' || word_char(c))) {
      size_t w = p + (c == '.'), e = w;
      while (e < len && word_char(t[e])) e++;
      if (c == '.' && !started && line_directive(t + w, e - w)) line_item = true;
      if (c == '.' && (is_word(t + w, e - w, "entry") || is_word(t + w, e - w, "func"))) {
        cur.kind = is_word(t + w, e - w, "entry") ? ITEM_ENTRY : ITEM_FUNC;
        want_name = true;
      } else if (c != '.' && want_name && parens == 0) {
        cur.name_at = w, cur.name_len = e - w, want_name = false;
      }
      started = true;
      p = e > p ? e : p + 1;
      continue;
    }
    if (c != ' ' && c != '\t' && c != '\n' && c != '\r') started = true;
    p++;
    if (!ends) continue;
    if (!body) cur.kind = ITEM_OTHER; /* a declaration: .extern .func f(...); */
    cur.end = p;
    if (n == cap) {
      item *grown = realloc(items, 2 * cap * sizeof *grown);
      if (!grown) return free(items), NULL;
      items = grown, cap *= 2;
    }
    items[n++] = cur;
    cur = (item){.start = p};
    started = line_item = want_name = body = false;
    parens = 0;
  }
  if (cur.start < len) {
    if (n == cap) {
      item *grown = realloc(items, (cap + 1) * sizeof *grown);
      if (!grown) return free(items), NULL;
      items = grown;
    }
    cur.end = len, cur.kind = ITEM_OTHER;
    items[n++] = cur;
  }
  *count = n;
  return items;
}

/* Whether name[0..n) occurs as a whole word in t[start, end). */
static bool mentions(const char *t, size_t start, size_t end, const char *name, size_t n) {
  for (size_t p = start; n && p + n <= end; p++) {
    const char *hit = memchr(t + p, name[0], end - p - n + 1);
    if (!hit) return false;
    p = (size_t)(hit - t);
    if (memcmp(hit, name, n) == 0 && (p == start || !word_char(t[p - 1])) &&
        (p + n == end || !word_char(t[p + n])))
      return true;
  }
  return false;
}

static long line_at(const char *t, size_t pos) {
  long line = 1;
  for (const char *p = t; (p = memchr(p, '\n', pos - (size_t)(p - t))); p++) line++;
  return line;
}

int tcmma__ptx_slice(const char *ptx, size_t len, const char *kernel, char **out,
                     size_t *out_len, long *first, long *last) {
  size_t n = 0, klen = strlen(kernel);
  item *items = items_of(ptx, len, &n);
  if (!items) return -1;
  bool found = false;
  for (size_t i = 0; i < n; i++) {
    items[i].keep = items[i].kind == ITEM_OTHER;
    if (items[i].kind == ITEM_ENTRY && items[i].name_len == klen &&
        memcmp(ptx + items[i].name_at, kernel, klen) == 0 && !found) {
      items[i].keep = found = true;
      *first = line_at(ptx, items[i].start);
      *last = line_at(ptx, items[i].end);
    }
  }
  /* the .func definitions the kept functions call, to a fixed point */
  for (bool grew = found; grew;) {
    grew = false;
    for (size_t f = 0; f < n; f++) {
      if (items[f].kind != ITEM_FUNC || items[f].keep) continue;
      for (size_t i = 0; i < n && !items[f].keep; i++)
        if (items[i].keep && items[i].kind != ITEM_OTHER &&
            mentions(ptx, items[i].start, items[i].end, ptx + items[f].name_at,
                     items[f].name_len))
          items[f].keep = grew = true;
    }
  }
  if (!found) return free(items), 0;
  size_t total = 0;
  for (size_t i = 0; i < n; i++) total += items[i].keep ? items[i].end - items[i].start : 0;
  char *text = malloc(total + 1);
  if (!text) return free(items), -1;
  size_t at = 0;
  for (size_t i = 0; i < n; i++)
    if (items[i].keep) {
      memcpy(text + at, ptx + items[i].start, items[i].end - items[i].start);
      at += items[i].end - items[i].start;
    }
  text[at] = '\0';
  free(items);
  *out = text, *out_len = at;
  return 1;
}

bool tcmma__ptx_defines_func(const char *ptx, size_t len, const char *name, size_t name_len) {
  size_t n = 0;
  item *items = items_of(ptx, len, &n);
  bool defined = false;
  for (size_t i = 0; items && i < n && !defined; i++)
    defined = items[i].kind == ITEM_FUNC && items[i].name_len == name_len &&
              memcmp(ptx + items[i].name_at, name, name_len) == 0;
  free(items);
  return defined;
}
