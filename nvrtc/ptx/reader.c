/* PTX reader. PTX is read as a stream of statements: a directive ('.' word)
 * runs to ';' or to the '{' that opens its body; a few directives end at the
 * end of their line instead (.version, .target, .loc, the performance
 * directives, ...), because PTX writes them without ';'. Anything else is
 * `[label:] [@pred] opcode operands ;`. Comments are skipped everywhere. */
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "tcmma/ptx.h"
#include "nvrtc/internal.h"

/* ---- the reader ---- */

typedef struct {
  const char *text;
  size_t len, pos;
  int depth;
  size_t last_open;       /* offset of the innermost unclosed '{' */
  tcmma_ptx_info *info;
  tcmma_error *err;
  tcmma_status status;    /* first hard failure (NO_MEMORY) */
  const char *truncated;  /* what ran into the end of input, when anything */
  size_t truncated_at;
  bool saw_version, saw_target;
  size_t line_break_at;   /* just after the last block comment that spans lines */
  /* census hash: open addressing over census indices + 1 (0: empty) */
  size_t *slots, slot_cap, op_cap;
} reader;

static int line_of(const reader *r, size_t pos) {
  int line = 1;
  for (size_t i = 0; i < pos && i < r->len; i++)
    if (r->text[i] == '\n') line++;
  return line;
}

static bool at_end(const reader *r) { return r->pos >= r->len; }
static char peek(const reader *r, size_t ahead) {
  return r->pos + ahead < r->len ? r->text[r->pos + ahead] : '\0';
}

static void truncate_at(reader *r, const char *what, size_t at) {
  if (!r->truncated) {
    r->truncated = what;
    r->truncated_at = at;
  }
  r->pos = r->len;
}

/* Skips blanks and comments. With stop_at_newline it stops at a line end and
 * returns true: before a '\n', or just after a block comment that spans lines
 * (which counts as the line break, so what follows it starts a new line). */
static bool skip_space(reader *r, bool stop_at_newline) {
  if (stop_at_newline && r->pos == r->line_break_at) return true;
  while (!at_end(r)) {
    char c = peek(r, 0);
    if (c == '\n') {
      if (stop_at_newline) return true;
      r->pos++;
    } else if (c == ' ' || c == '\t' || c == '\r' || c == '\f' || c == '\v') {
      r->pos++;
    } else if (c == '/' && peek(r, 1) == '/') {
      while (!at_end(r) && peek(r, 0) != '\n') r->pos++;
    } else if (c == '/' && peek(r, 1) == '*') {
      size_t start = r->pos;
      const char *end = NULL;
      for (size_t i = r->pos + 2; i + 1 < r->len; i++)
        if (r->text[i] == '*' && r->text[i + 1] == '/') {
          end = r->text + i;
          break;
        }
      if (!end) {
        truncate_at(r, "a /* comment", start);
        return false;
      }
      bool newline = memchr(r->text + start, '\n', (size_t)(end - (r->text + start))) != NULL;
      r->pos = (size_t)(end - r->text) + 2;
      if (newline) r->line_break_at = r->pos;
      if (newline && stop_at_newline) return true;
    } else {
      return false;
    }
  }
  return false;
}

static bool word_char(char c) {
  return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
         c == '_' || c == '$';
}

/* Reads an identifier at pos; returns its length (0 when none). */
static size_t read_ident(reader *r, const char **start) {
  *start = r->text + r->pos;
  size_t n = 0;
  while (r->pos < r->len && word_char(r->text[r->pos])) r->pos++, n++;
  return n;
}

/* Reads an opcode: identifier parts joined by '.' or "::". */
static size_t read_opcode(reader *r, const char **start) {
  *start = r->text + r->pos;
  size_t begin = r->pos;
  while (!at_end(r)) {
    char c = peek(r, 0);
    if (word_char(c) || c == '.') r->pos++;
    else if (c == ':' && peek(r, 1) == ':') r->pos += 2;
    else break;
  }
  return r->pos - begin;
}

static void skip_string(reader *r) {
  size_t start = r->pos++;
  while (!at_end(r)) {
    char c = r->text[r->pos++];
    if (c == '\\' && !at_end(r)) r->pos++;
    else if (c == '"') return;
  }
  truncate_at(r, "a string", start);
}

static char *dup_n(reader *r, const char *s, size_t n) {
  char *d = malloc(n + 1);
  if (!d) {
    r->status = TCMMA_NO_MEMORY;
    return NULL;
  }
  memcpy(d, s, n);
  d[n] = '\0';
  return d;
}

static bool push_string(reader *r, char ***list, size_t *count, const char *s, size_t n) {
  char **grown = realloc(*list, (*count + 1) * sizeof **list);
  if (!grown) return r->status = TCMMA_NO_MEMORY, false;
  *list = grown;
  char *d = dup_n(r, s, n);
  if (!d) return false;
  grown[(*count)++] = d;
  return true;
}

static uint64_t hash(const char *s, size_t n) {
  uint64_t h = 1469598103934665603ull;
  for (size_t i = 0; i < n; i++) h = (h ^ (unsigned char)s[i]) * 1099511628211ull;
  return h;
}

static bool rehash(reader *r, size_t cap) {
  size_t *slots = calloc(cap, sizeof *slots);
  if (!slots) return r->status = TCMMA_NO_MEMORY, false;
  for (size_t i = 0; i < r->info->census_count; i++) {
    const char *op = r->info->census[i].opcode;
    size_t s = (size_t)hash(op, strlen(op)) & (cap - 1);
    while (slots[s]) s = (s + 1) & (cap - 1);
    slots[s] = i + 1;
  }
  free(r->slots);
  r->slots = slots;
  r->slot_cap = cap;
  return true;
}

static void count_opcode(reader *r, const char *op, size_t n) {
  tcmma_ptx_info *info = r->info;
  if ((info->census_count + 1) * 4 > r->slot_cap * 3 &&
      !rehash(r, r->slot_cap ? r->slot_cap * 2 : 64))
    return;
  size_t s = (size_t)hash(op, n) & (r->slot_cap - 1);
  for (; r->slots[s]; s = (s + 1) & (r->slot_cap - 1)) {
    tcmma_ptx_op *e = &info->census[r->slots[s] - 1];
    if (strncmp(e->opcode, op, n) == 0 && e->opcode[n] == '\0') {
      e->count++;
      info->instruction_count++;
      return;
    }
  }
  if (info->census_count == r->op_cap) {
    size_t cap = r->op_cap ? 2 * r->op_cap : 32;
    tcmma_ptx_op *grown = realloc(info->census, cap * sizeof *grown);
    if (!grown) return (void)(r->status = TCMMA_NO_MEMORY);
    info->census = grown;
    r->op_cap = cap;
  }
  char *d = dup_n(r, op, n);
  if (!d) return;
  info->census[info->census_count] = (tcmma_ptx_op){d, 1};
  r->slots[s] = ++info->census_count;
  info->instruction_count++;
}

/* Directives PTX ends at the end of their line rather than with ';'. */
static bool line_directive(const char *w, size_t n) {
  static const char *const names[] = {
      "version", "target", "address_size", "loc", "file", "maxntid", "reqntid",
      "minnctapersm", "maxnctapersm", "maxnreg", "noreturn", "explicitcluster",
      "reqnctapercluster", "maxclusterrank", "blocksareclusters"};
  for (size_t i = 0; i < sizeof names / sizeof names[0]; i++)
    if (strlen(names[i]) == n && strncmp(names[i], w, n) == 0) return true;
  return false;
}

static bool word_is(const char *w, size_t n, const char *name) {
  return strlen(name) == n && strncmp(w, name, n) == 0;
}

static tcmma_status bad(reader *r, size_t at, const char *fmt, const char *what) {
  r->status = tcmma_fail(r->err, TCMMA_PARSE, fmt, line_of(r, at), what);
  return r->status;
}

/* .version MAJOR.MINOR */
static void read_version(reader *r, size_t at) {
  bool line_end = skip_space(r, true);
  int major = 0, minor = 0, nd1 = 0, nd2 = 0;
  while (!line_end && !at_end(r) && peek(r, 0) >= '0' && peek(r, 0) <= '9' && nd1 < 4)
    major = major * 10 + (peek(r, 0) - '0'), r->pos++, nd1++;
  if (peek(r, 0) == '.') r->pos++;
  while (!at_end(r) && peek(r, 0) >= '0' && peek(r, 0) <= '9' && nd2 < 4)
    minor = minor * 10 + (peek(r, 0) - '0'), r->pos++, nd2++;
  if (!nd1 || !nd2) {
    bad(r, at, "malformed .version at line %d: expected MAJOR.MINOR such as 8.7%s", "");
    return;
  }
  if (!r->saw_version) {
    r->info->version_major = major;
    r->info->version_minor = minor;
    r->saw_version = true;
  }
}

/* .target ARCH[, MODIFIER]... */
static void read_target(reader *r, size_t at) {
  if (r->saw_target) return (void)bad(r, at, "a second .target at line %d%s", "");
  for (int i = 0;; i++) {
    bool line_end = skip_space(r, true);
    const char *w;
    size_t n = line_end ? 0 : read_ident(r, &w);
    if (!n) {
      bad(r, at, "malformed .target at line %d: expected an arch such as sm_80%s",
          i ? " after ','" : "");
      return;
    }
    if (i == 0) {
      if (!(r->info->target = dup_n(r, w, n))) return;
      int sm = 0;
      size_t j = 3;
      if (n > 3 && strncmp(w, "sm_", 3) == 0)
        for (; j < n && w[j] >= '0' && w[j] <= '9' && sm < 100000; j++) sm = sm * 10 + (w[j] - '0');
      bool ok = j > 3 && (j == n || (j + 1 == n && (w[j] == 'a' || w[j] == 'f')));
      r->info->target_sm = ok ? sm : 0;
      r->info->target_suffix = ok && j < n ? w[j] : '\0';
    } else if (!push_string(r, &r->info->modifiers, &r->info->modifier_count, w, n)) {
      return;
    }
    if (skip_space(r, true) || peek(r, 0) != ',') break;
    r->pos++;
  }
  r->saw_target = true;
}

static void read_address_size(reader *r, size_t at) {
  bool line_end = skip_space(r, true);
  int v = 0, nd = 0;
  while (!line_end && !at_end(r) && peek(r, 0) >= '0' && peek(r, 0) <= '9' && nd < 4)
    v = v * 10 + (peek(r, 0) - '0'), r->pos++, nd++;
  if (v != 32 && v != 64) {
    bad(r, at, "malformed .address_size at line %d: expected 32 or 64%s", "");
    return;
  }
  r->info->address_size = v;
}

/* A directive statement starting at '.': runs to the end of its line (line
 * directives) or to ';' (consumed) or a '{' / '}' (left for the block
 * counter), skipping an initializer's braces after '='. Notes .entry names. */
static void read_directive(reader *r) {
  size_t at = r->pos++;
  const char *w;
  size_t n = read_ident(r, &w);
  bool line = line_directive(w, n);
  if (word_is(w, n, "version")) read_version(r, at);
  else if (word_is(w, n, "target")) read_target(r, at);
  else if (word_is(w, n, "address_size")) read_address_size(r, at);
  bool initializer = false, want_entry = word_is(w, n, "entry");
  while (r->status == TCMMA_OK && !at_end(r)) {
    if (skip_space(r, line)) return; /* a line directive ends with its line */
    if (at_end(r)) break;
    char c = peek(r, 0);
    if (want_entry && word_char(c)) {
      size_t n2 = read_ident(r, &w);
      push_string(r, &r->info->entries, &r->info->entry_count, w, n2);
      want_entry = false;
    } else if (c == ';') {
      r->pos++;
      return;
    } else if (c == '{' && initializer) {
      int d = 0;
      size_t open = r->pos;
      do {
        char k = peek(r, 0);
        if (k == '{') d++;
        else if (k == '}') d--;
        else if (k == '"') {
          skip_string(r);
          continue;
        }
        r->pos++;
        skip_space(r, false);
      } while (d > 0 && !at_end(r));
      if (d > 0) truncate_at(r, "an initializer's '{'", open);
    } else if (c == '{' || c == '}') {
      return;
    } else if (c == '"') {
      skip_string(r);
    } else if (c == '.') {
      r->pos++;
      n = read_ident(r, &w);
      if (word_is(w, n, "entry")) want_entry = true;
    } else {
      if (c == '=') initializer = true;
      r->pos++;
    }
  }
  if (!line && at_end(r) && r->status == TCMMA_OK)
    truncate_at(r, "a directive without its ';' or '{'", at);
}

/* Skips an instruction's operands up to and including its ';'. */
static void skip_operands(reader *r, size_t at) {
  while (!at_end(r)) {
    skip_space(r, false);
    if (at_end(r)) break;
    char c = peek(r, 0);
    if (c == ';') {
      r->pos++;
      return;
    }
    if (c == '"') skip_string(r);
    else r->pos++;
  }
  truncate_at(r, "an instruction without its ';'", at);
}

static void read_statements(reader *r) {
  while (r->status == TCMMA_OK) {
    skip_space(r, false);
    if (at_end(r)) return;
    char c = peek(r, 0);
    if (c == '{') {
      if (r->depth == 0 || r->pos > r->last_open) r->last_open = r->pos;
      r->depth++;
      r->pos++;
    } else if (c == '}') {
      if (r->depth == 0) {
        bad(r, r->pos, "unbalanced '}' at line %d: no block is open%s", "");
        return;
      }
      r->depth--;
      r->pos++;
    } else if (c == ';') {
      r->pos++;
    } else if (c == '.') {
      read_directive(r);
    } else if (c == '@') { /* guard predicate: @%p1 or @!%p1, then the opcode */
      r->pos++;
      if (peek(r, 0) == '!') r->pos++;
      if (peek(r, 0) == '%') r->pos++;
      const char *w;
      read_ident(r, &w);
    } else if ((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c == '_' || c == '$') {
      size_t at = r->pos;
      const char *op;
      size_t n = read_opcode(r, &op);
      size_t after = r->pos;
      skip_space(r, false);
      if (peek(r, 0) == ':') { /* a label */
        r->pos++;
        continue;
      }
      r->pos = after;
      if (c != '$' && c != '_') count_opcode(r, op, n);
      skip_operands(r, at);
    } else { /* not a statement start: skip the rest of the line */
      while (!at_end(r) && peek(r, 0) != '\n' && peek(r, 0) != ';') r->pos++;
    }
  }
}

static int cmp_op(const void *a, const void *b) {
  return strcmp(((const tcmma_ptx_op *)a)->opcode, ((const tcmma_ptx_op *)b)->opcode);
}

/* Text that holds NUL or control bytes is not PTX. */
static tcmma_status check_text(const char *text, size_t len, tcmma_error *err) {
  bool blank = true;
  for (size_t i = 0; i < len; i++) {
    unsigned char c = (unsigned char)text[i];
    if (c < 0x20 && c != '\n' && c != '\t' && c != '\r' && c != '\f' && c != '\v')
      return tcmma_fail(err, TCMMA_PARSE,
                        "not PTX text: control byte 0x%02x at offset %zu (binary input?)", c, i);
    if (c == 0x7f)
      return tcmma_fail(err, TCMMA_PARSE,
                        "not PTX text: control byte 0x7f at offset %zu (binary input?)", i);
    if (c > ' ') blank = false;
  }
  if (blank)
    return tcmma_fail(err, TCMMA_PARSE,
                      "empty input: expected PTX text with .version and .target directives");
  return TCMMA_OK;
}

tcmma_status tcmma_ptx_parse(const char *text, size_t len, tcmma_ptx_info *info,
                             tcmma_error *err) {
  if (!info) return tcmma_fail(err, TCMMA_INVALID, "tcmma_ptx_parse: info is NULL");
  memset(info, 0, sizeof *info);
  if (!text && len) return tcmma_fail(err, TCMMA_INVALID, "tcmma_ptx_parse: text is NULL");
  tcmma_status s = check_text(text ? text : "", text ? len : 0, err);
  if (s != TCMMA_OK) return s;
  reader r = {.text = text, .len = len, .info = info, .err = err, .line_break_at = SIZE_MAX};
  read_statements(&r);
  free(r.slots);
  if (r.status == TCMMA_NO_MEMORY)
    return tcmma_fail(err, TCMMA_NO_MEMORY, "out of memory reading %zu bytes of PTX", len);
  if (r.status != TCMMA_OK) return r.status;
  if (!r.saw_version || !r.saw_target)
    return tcmma_fail(err, TCMMA_PARSE, "not a PTX module: no %s directive%s",
                      !r.saw_target && !r.saw_version ? ".version or .target"
                      : !r.saw_target                 ? ".target"
                                                      : ".version",
                      !r.saw_target && !r.saw_version ? "s (is this PTX text?)" : "");
  if (r.truncated)
    return tcmma_fail(err, TCMMA_PARSE,
                      "truncated PTX: %s at line %d runs to the end of input", r.truncated,
                      line_of(&r, r.truncated_at));
  if (r.depth > 0)
    return tcmma_fail(err, TCMMA_PARSE,
                      "truncated PTX: %d block(s) still open at the end of input "
                      "(the innermost opened at line %d)",
                      r.depth, line_of(&r, r.last_open));
  if (info->census_count) qsort(info->census, info->census_count, sizeof *info->census, cmp_op);
  tcmma__ptx_requirement(info);
  return TCMMA_OK;
}

void tcmma_ptx_info_free(tcmma_ptx_info *info) {
  if (!info) return;
  free(info->target);
  for (size_t i = 0; i < info->modifier_count; i++) free(info->modifiers[i]);
  free(info->modifiers);
  for (size_t i = 0; i < info->entry_count; i++) free(info->entries[i]);
  free(info->entries);
  for (size_t i = 0; i < info->census_count; i++) free(info->census[i].opcode);
  free(info->census);
  memset(info, 0, sizeof *info);
}
