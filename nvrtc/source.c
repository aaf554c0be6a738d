/* Markers from any CUDA source (docs/design.md §8): the source is read as
 * C++ — comments, string and character literals, raw strings, preprocessor
 * lines — so that a marker's words count only where they mean something:
 * names in code, tcmma's "(tags)" outside strings, the instructions inside
 * asm(...) strings, fragment element types, and __CUDA_ARCH__ guards.
 * Pure: no NVRTC, no I/O. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "tcmma/arch.h"
#include "tcmma/arm.h"
#include "tcmma/buf.h"
#include "tcmma/ptx.h"
#include "tcmma/wgmma.h"
#include "tcmma/tcgen05.h"
#include "nvrtc/internal.h"

static const struct {
  const char *type;
  tcmma_ptx_feature_id row;
} fragment_rows[] = {
#define TCMMA_WMMA_FRAGMENT(ID, type, row) {type, TCMMA_PTX_F_##row},
#include "tables/wmma_fragments.def"
#undef TCMMA_WMMA_FRAGMENT
};
#define FRAGMENT_ROWS (sizeof fragment_rows / sizeof fragment_rows[0])

/* ---- hits ---- */

static bool ident_char(char c) {
  return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
         c == '_';
}

static size_t hit_hash(tcmma_hit_kind kind, int floor, const char *text, size_t n) {
  size_t h = 1469598103934665603u ^ ((size_t)kind * 31 + (size_t)(unsigned)floor);
  for (size_t i = 0; i < n; i++) h = (h ^ (unsigned char)text[i]) * 1099511628211u;
  return h;
}

/* The slot of s->index for kind, floor and text: the hit's, or an empty one. */
static size_t *hit_slot(tcmma__arch_scan *s, tcmma_hit_kind kind, int floor, const char *text,
                        size_t n) {
  size_t mask = s->index_cap - 1;
  for (size_t k = hit_hash(kind, floor, text, n) & mask;; k = (k + 1) & mask) {
    size_t *slot = &s->index[k];
    if (!*slot) return slot;
    const tcmma_marker_hit *h = &s->hits[*slot - 1];
    if (h->kind == kind && h->floor == floor && strlen(h->text) == n &&
        strncmp(h->text, text, n) == 0)
      return slot;
  }
}

/* Keeps the index at most half full (a hit's text as stored: it may be cut). */
static bool index_room(tcmma__arch_scan *s) {
  if (2 * (s->count + 1) <= s->index_cap) return true;
  size_t cap = s->index_cap ? 2 * s->index_cap : 64;
  size_t *grown = calloc(cap, sizeof *grown);
  if (!grown) return false;
  free(s->index);
  s->index = grown, s->index_cap = cap;
  for (size_t i = 0; i < s->count; i++) {
    const tcmma_marker_hit *h = &s->hits[i];
    *hit_slot(s, h->kind, h->floor, h->text, strlen(h->text)) = i + 1;
  }
  return true;
}

/* Adds a hit unless one with the same kind, text and floor exists (the
 * first occurrence is kept); the hit, or NULL on no memory. Found through
 * an index: a source of many distinct opcodes compared each with all. */
static tcmma_marker_hit *hit(tcmma__arch_scan *s, tcmma_hit_kind kind, const char *text, size_t n,
                             int floor, tcmma_ptx_suffix suffix, int line) {
  if (n >= sizeof s->hits[0].text) n = sizeof s->hits[0].text - 1; /* as it is kept */
  if (!index_room(s)) return NULL;
  size_t *slot = hit_slot(s, kind, floor, text, n);
  if (*slot) return &s->hits[*slot - 1];
  if (s->count == s->cap) {
    size_t cap = s->cap ? 2 * s->cap : 16;
    tcmma_marker_hit *grown = realloc(s->hits, cap * sizeof *grown);
    if (!grown) return NULL;
    s->hits = grown, s->cap = cap;
  }
  tcmma_marker_hit *h = &s->hits[s->count++];
  memset(h, 0, sizeof *h);
  snprintf(h->text, sizeof h->text, "%.*s", (int)n, text);
  h->kind = kind, h->floor = floor, h->suffix = suffix, h->line = line;
  h->family = suffix != TCMMA_PTX_SUFFIX_ANY;
  if (floor > s->floor) s->floor = floor;
  *slot = s->count;
  return h;
}

static bool add_hit(tcmma__arch_scan *s, tcmma_hit_kind kind, const char *text, size_t n, int floor,
                    tcmma_ptx_suffix suffix, int line) {
  return hit(s, kind, text, n, floor, suffix, line) != NULL;
}

/* ---- tags: "(marker)" outside strings ---- */

/* Whether the k bytes of text after its '(' at i are pat. */
static bool tag_is(const char *text, size_t i, size_t k, const char *pat) {
  return strlen(pat) == k && memcmp(text + i + 1, pat, k) == 0;
}

/* An arm table row's "(marker)" at text's '(' at i (k bytes inside): a hit
 * at the row's floor and targets. False when the hit list could not grow. */
static bool row_tag(tcmma__arch_scan *s, const char *text, size_t i, size_t k, const char *marker,
                    int floor, tcmma_ptx_suffix suffix, int at) {
  if (!tag_is(text, i, k, marker)) return true;
  char tag[48];
  int len = snprintf(tag, sizeof tag, "(%s)", marker);
  return add_hit(s, TCMMA_HIT_ARM, tag, (size_t)len, floor, suffix, at);
}

/* Looks for the arms' markers and the TAG rows in text (a comment or code). */
static bool scan_tags(tcmma__arch_scan *s, const char *text, size_t n, int line) {
  int at = line;
  size_t counted = 0; /* text[0..counted) holds at - line newlines */
  const char *open = memchr(text, '(', n);
  for (; open; open = memchr(open + 1, '(', n - (size_t)(open + 1 - text))) {
    size_t i = (size_t)(open - text);
    /* a tag is "(" name ")": no row can match without the ')' */
    const char *close = memchr(open + 1, ')', n - i - 1);
    if (!close || memchr(open + 1, '(', (size_t)(close - open - 1))) continue;
    size_t k = (size_t)(close - open - 1);
    for (; counted < i; counted++) at += text[counted] == '\n';
    for (int a = 0; a < TCMMA_ARM_COUNT; a++) {
      const tcmma_arm_info *arm = tcmma_arm_get((tcmma_arm)a);
      if (!row_tag(s, text, i, k, arm->marker, arm->floor,
                   arm->family ? TCMMA_PTX_SUFFIX_A_OR_F : TCMMA_PTX_SUFFIX_ANY, at))
        return false;
    }
    for (int w = 0; w < TCMMA_WGMMA_COUNT; w++) {
      const tcmma_wgmma_info *wg = tcmma_wgmma_get((tcmma_wgmma)w);
      if (!row_tag(s, text, i, k, wg->marker, wg->floor, wg->suffix, at)) return false;
    }
    for (int w = 0; w < TCMMA_TCGEN05_COUNT; w++) {
      const tcmma_tcgen05_info *tg = tcmma_tcgen05_get((tcmma_tcgen05)w);
      if (!row_tag(s, text, i, k, tg->marker, tg->floor, tg->suffix, at)) return false;
    }
    for (int m = 0; m < TCMMA_MARKER_COUNT; m++)
      if (tcmma_marker_is_tag(m) && tag_is(text, i, k, tcmma_marker_text(m)) &&
          !add_hit(s, TCMMA_HIT_MARKER, tcmma_marker_text(m), strlen(tcmma_marker_text(m)),
                   tcmma_marker_floor(m), TCMMA_PTX_SUFFIX_ANY, at))
        return false;
  }
  return true;
}

/* ---- the lexer ---- */

typedef struct {
  const char *src;
  size_t len, i;
  int line;
  tcmma__arch_scan *out;
  bool ok;
  bool nvcuda_ns, wmma_ns; /* using namespace nvcuda / nvcuda::wmma seen */
  bool macro;              /* reading a #define body: asm there is TCMMA_HIT_MACRO(_UNKNOWN) */
  int braces;              /* '{' depth of the code: 0 at file scope */
  /* #if groups: the guards each holds, whether it has another branch,
   * whether its first branch holds an #error, the '{' depth at the #if and
   * whether its first branch holds a template specialisation (an optional
   * one: the primary template stands without it) */
  struct group {
    size_t first_guard;
    bool has_else, in_first, error_in_first;
    int braces;
    bool specialisation;
  } groups[64];
  int depth;
  struct guard {
    char text[48];
    char op;
    int cc, line, group_depth;
    bool first_branch;
  } *guards;
  size_t n_guards, guard_cap;
} lexer;

static char at(const lexer *lx, size_t k) { return lx->i + k < lx->len ? lx->src[lx->i + k] : '\0'; }

static void advance(lexer *lx, size_t n) {
  for (size_t k = 0; k < n && lx->i < lx->len; k++) lx->line += lx->src[lx->i++] == '\n';
}

/* Skips a quoted literal (string or character) at lx->i; its contents go to
 * sink (decoded escapes) when sink is non-NULL. */
static void skip_quoted(lexer *lx, tcmma_buf *sink) {
  char q = at(lx, 0);
  advance(lx, 1);
  while (lx->i < lx->len && at(lx, 0) != q && at(lx, 0) != '\n') {
    char c = at(lx, 0);
    if (c == '\\' && lx->i + 1 < lx->len) {
      char e = at(lx, 1);
      char d = e == 'n' ? '\n' : e == 't' ? '\t' : e;
      if (sink) tcmma_buf_append(sink, &d, 1);
      advance(lx, 2);
      continue;
    }
    if (sink) tcmma_buf_append(sink, &c, 1);
    advance(lx, 1);
  }
  advance(lx, 1);
}

/* Skips a raw string R"delim(...)delim" whose '"' is at lx->i. */
static void skip_raw(lexer *lx, tcmma_buf *sink) {
  size_t open = lx->i + 1, d = 0;
  while (open + d < lx->len && lx->src[open + d] != '(' && d < 16) d++;
  char close[20];
  snprintf(close, sizeof close, ")%.*s\"", (int)d, lx->src + open);
  /* an unterminated delimiter at the end of the source: the body is empty */
  const char *body = lx->src + (open + d < lx->len ? open + d + 1 : lx->len), *end = NULL;
  for (const char *p = body; p + strlen(close) <= lx->src + lx->len; p++)
    if (memcmp(p, close, strlen(close)) == 0) {
      end = p;
      break;
    }
  if (!end) end = lx->src + lx->len;
  if (sink) tcmma_buf_append(sink, body, (size_t)(end - body));
  advance(lx, (size_t)(end - (lx->src + lx->i)) + strlen(close));
}

/* A comment at lx->i ("//" or "/ *"): its text is scanned for tags. */
static void comment(lexer *lx) {
  size_t start = lx->i;
  int line = lx->line;
  if (at(lx, 1) == '/') {
    while (lx->i < lx->len && at(lx, 0) != '\n') advance(lx, 1);
  } else {
    advance(lx, 2);
    while (lx->i < lx->len && !(at(lx, 0) == '*' && at(lx, 1) == '/')) advance(lx, 1);
    advance(lx, 2);
  }
  if (lx->ok) lx->ok = scan_tags(lx->out, lx->src + start, lx->i - start, line);
}

/* A name: identifiers joined by "::" ("nvcuda::wmma::fragment"). */
static size_t read_name(lexer *lx) {
  size_t start = lx->i;
  for (;;) {
    while (lx->i < lx->len && ident_char(at(lx, 0))) advance(lx, 1);
    if (at(lx, 0) == ':' && at(lx, 1) == ':' && ident_char(at(lx, 2))) advance(lx, 2);
    else break;
  }
  return lx->i - start;
}

static void skip_blanks(lexer *lx) {
  while (lx->i < lx->len) {
    char c = at(lx, 0);
    if (c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\f' || c == '\v') advance(lx, 1);
    else if (c == '/' && (at(lx, 1) == '/' || at(lx, 1) == '*')) comment(lx);
    else break;
  }
}

/* (the first byte first: every name of the source meets every word) */
static bool name_is(const char *name, size_t n, const char *word) {
  return n && name[0] == word[0] && strlen(word) == n && strncmp(name, word, n) == 0;
}

/* Whether name starts with prefix as whole parts ("nvcuda::wmma::x"). */
static bool name_starts(const char *name, size_t n, const char *prefix) {
  if (!n || name[0] != prefix[0]) return false;
  size_t k = strlen(prefix);
  return n >= k && strncmp(name, prefix, k) == 0 && (n == k || name[k] == ':');
}

/* ---- asm(...) ---- */

/* The PTX statements of an asm template: each opcode that needs anything is
 * a hit at the line its literal started on. */
static void asm_statements(lexer *lx, const char *text, const int *lines, size_t n) {
  size_t i = 0;
  while (i < n && lx->ok) {
    while (i < n && strchr(" \t\r\n;{}", text[i])) i++;
    if (i >= n) break;
    if (text[i] == '@') { /* a guard predicate */
      while (i < n && !strchr(" \t\r\n", text[i])) i++;
      while (i < n && strchr(" \t", text[i])) i++;
    }
    size_t op = i;
    while (i < n && (ident_char(text[i]) || text[i] == '.' || text[i] == ':')) i++;
    size_t k = i - op;
    bool label = k && text[i - 1] == ':' && (k < 2 || text[i - 2] != ':');
    if (k && !label && text[op] != '.' && !(text[op] >= '0' && text[op] <= '9')) {
      char opcode[160];
      snprintf(opcode, sizeof opcode, "%.*s", (int)k, text + op);
      int sm;
      tcmma_ptx_suffix suffix;
      tcmma_ptx_opcode_need(opcode, &sm, &suffix, NULL);
      /* an opcode that is no PTX ISA instruction is listed, never dropped:
       * what it needs is not known; one that is needs what its rows need,
       * nothing when none matches (mov.b32) */
      if (!tcmma_ptx_opcode_known(opcode))
        lx->ok = add_hit(lx->out, lx->macro ? TCMMA_HIT_MACRO_UNKNOWN : TCMMA_HIT_UNKNOWN, opcode,
                         k, 0, TCMMA_PTX_SUFFIX_ANY, lines[op]);
      else if (sm > 0)
        lx->ok = add_hit(lx->out, lx->macro ? TCMMA_HIT_MACRO : TCMMA_HIT_PTX, opcode, k, sm,
                         suffix, lines[op]);
    }
    /* the operands, to the statement's end: braces there are a vector
     * ({l, h}), not a scope, and what follows one is no opcode */
    while (i < n && text[i] != ';' && text[i] != '\n') i++;
  }
}

/* asm [volatile|goto|inline] ( "template" ... [: operands] ): the literals
 * before the first top-level ':' are the template. */
static void asm_statement(lexer *lx) {
  for (;;) {
    skip_blanks(lx);
    size_t save = lx->i;
    const char *w = lx->src + lx->i;
    size_t n = read_name(lx);
    if (n && (name_is(w, n, "volatile") || name_is(w, n, "__volatile__") ||
              name_is(w, n, "__volatile") || name_is(w, n, "goto") || name_is(w, n, "inline")))
      continue;
    lx->i = save;
    break;
  }
  if (at(lx, 0) != '(') return;
  advance(lx, 1);
  tcmma_buf text = {0};
  int *lines = NULL;
  size_t n_lines = 0, lines_cap = 0;
  int depth = 1;
  while (lx->i < lx->len && depth > 0) {
    char c = at(lx, 0);
    if (c == '"' || (c == 'R' && at(lx, 1) == '"')) {
      size_t before = text.len;
      int line = lx->line;
      if (c == 'R') advance(lx, 1), skip_raw(lx, &text);
      else skip_quoted(lx, &text);
      size_t after = text.len;
      if (after + 1 > lines_cap) { /* doubling: one realloc per literal copied it all */
        size_t cap = 2 * lines_cap > after + 1 ? 2 * lines_cap : after + 1;
        int *grown = realloc(lines, cap * sizeof *grown);
        if (!grown) {
          lx->ok = false;
          break;
        }
        lines = grown, lines_cap = cap;
      }
      for (size_t k = before; k < after; k++) lines[k] = line;
      n_lines = after;
      continue;
    }
    if (c == '/' && (at(lx, 1) == '/' || at(lx, 1) == '*')) {
      comment(lx);
      continue;
    }
    if (c == '(') depth++;
    else if (c == ')') depth--;
    else if (c == ':' && depth == 1) break;
    advance(lx, 1);
  }
  if (text.failed) lx->ok = false;
  if (lx->ok && n_lines) asm_statements(lx, tcmma_buf_str(&text), lines, n_lines);
  free(lines);
  tcmma_buf_free(&text);
}

/* ---- wmma fragments ---- */

/* fragment<...>: each template argument that names a type of
 * tables/wmma_fragments.def is a hit at its row's floor. */
static void fragment_args(lexer *lx) {
  skip_blanks(lx);
  if (at(lx, 0) != '<') return;
  advance(lx, 1);
  int depth = 1;
  while (lx->i < lx->len && depth > 0 && lx->ok) {
    skip_blanks(lx);
    size_t start = lx->i;
    int line = lx->line;
    int parens = 0; /* inside (...), '<' and '>' compare: (M > 8 ? 16 : 8) */
    while (lx->i < lx->len) {
      char c = at(lx, 0);
      if (c == '(') parens++;
      else if (c == ')' && parens) parens--;
      else if (!parens && c == '<') depth++;
      else if (!parens && c == '>') depth--;
      if (depth == 0 || (depth == 1 && !parens && c == ',')) break;
      advance(lx, 1);
    }
    size_t end = lx->i;
    while (end > start && strchr(" \t\r\n", lx->src[end - 1])) end--;
    const char *arg = lx->src + start;
    size_t n = end - start;
    static const char *const scopes[] = {"nvcuda::", "wmma::"};
    for (size_t k = 0; k < 2; k++)
      if (n > strlen(scopes[k]) && strncmp(arg, scopes[k], strlen(scopes[k])) == 0)
        arg += strlen(scopes[k]), n -= strlen(scopes[k]);
    for (size_t f = 0; f < FRAGMENT_ROWS; f++)
      if (name_is(arg, n, fragment_rows[f].type)) {
        const tcmma_ptx_feature *row = tcmma_ptx_feature_get(fragment_rows[f].row);
        lx->ok = add_hit(lx->out, TCMMA_HIT_FRAGMENT, arg, n, row->min_sm, row->suffix, line);
      }
    if (lx->i < lx->len) advance(lx, 1); /* the ',' or the closing '>' */
  }
}

/* Whether the "template" just read starts a specialisation: template <>
 * (explicit), or template <...> struct|class|union NAME < (partial). Only
 * looks: lx is where it was after. */
static bool specialisation_ahead(lexer *lx) {
  size_t save = lx->i;
  int line = lx->line;
  bool ok = lx->ok, yes = false;
  skip_blanks(lx);
  if (at(lx, 0) == '<') {
    advance(lx, 1);
    skip_blanks(lx);
    if (at(lx, 0) == '>') {
      yes = true;
    } else {
      for (int depth = 1; lx->i < lx->len && depth > 0; advance(lx, 1))
        depth += at(lx, 0) == '<' ? 1 : at(lx, 0) == '>' ? -1 : 0;
      skip_blanks(lx);
      const char *w = lx->src + lx->i;
      size_t k = read_name(lx);
      if (name_is(w, k, "struct") || name_is(w, k, "class") || name_is(w, k, "union")) {
        skip_blanks(lx);
        read_name(lx);
        skip_blanks(lx);
        yes = at(lx, 0) == '<';
      }
    }
  }
  lx->i = save, lx->line = line, lx->ok = ok;
  return yes;
}

/* An attribute's argument list ends within this many bytes, before any
 * ';', '{' or '}': the look ahead below stops there, so a source of many
 * unclosed calls costs no more than its length times this. */
#define CALL_LOOKAHEAD 1024

/* The arguments of the call the name just read makes ("f(a, g(b, c))": 2;
 * 0 when no '(' follows or the list does not close as an attribute's
 * does). Only looks: lx is where it was after. */
static int call_args(lexer *lx) {
  size_t save = lx->i;
  int line = lx->line, args = 0;
  bool ok = lx->ok;
  skip_blanks(lx);
  if (at(lx, 0) == '(') {
    size_t end = lx->i + CALL_LOOKAHEAD < lx->len ? lx->i + CALL_LOOKAHEAD : lx->len;
    advance(lx, 1);
    skip_blanks(lx);
    args = at(lx, 0) != ')';
    for (int depth = 1; depth > 0;) {
      char c = at(lx, 0);
      if (lx->i >= end || c == ';' || c == '{' || c == '}') {
        args = 0;
        break;
      }
      if (c == '"' || c == '\'') {
        skip_quoted(lx, NULL);
        continue;
      }
      if (c == '/' && (at(lx, 1) == '/' || at(lx, 1) == '*')) {
        skip_blanks(lx);
        continue;
      }
      depth += c == '(' ? 1 : c == ')' ? -1 : 0;
      args += c == ',' && depth == 1;
      advance(lx, 1);
    }
  }
  lx->i = save, lx->line = line, lx->ok = ok;
  return args;
}

/* A name in code: markers.def CODE rows, wmma:: in an nvcuda context,
 * fragment<...>, asm(...), using namespace. */
static void code_name(lexer *lx, const char *name, size_t n, int line) {
  if (name_is(name, n, "asm") || name_is(name, n, "__asm__") || name_is(name, n, "__asm")) {
    asm_statement(lx);
    return;
  }
  if (name_is(name, n, "template") && lx->depth && specialisation_ahead(lx))
    for (int d = 0; d < lx->depth; d++)
      if (lx->groups[d].in_first) lx->groups[d].specialisation = true;
  if (name_is(name, n, "using")) {
    skip_blanks(lx);
    const char *w = lx->src + lx->i;
    size_t k = read_name(lx);
    if (!name_is(w, k, "namespace")) return;
    skip_blanks(lx);
    w = lx->src + lx->i;
    k = read_name(lx);
    if (name_is(w, k, "nvcuda")) lx->nvcuda_ns = true;
    if (name_is(w, k, "nvcuda::wmma")) lx->wmma_ns = true;
    name = w, n = k;
  }
  for (int m = 0; m < TCMMA_MARKER_COUNT; m++)
    if (!tcmma_marker_is_tag(m) && name_starts(name, n, tcmma_marker_text(m)) &&
        call_args(lx) >= tcmma_marker_min_args(m))
      lx->ok = lx->ok && add_hit(lx->out, TCMMA_HIT_MARKER, tcmma_marker_text(m),
                                 strlen(tcmma_marker_text(m)), tcmma_marker_floor(m),
                                 TCMMA_PTX_SUFFIX_ANY, line);
  /* wmma::x where nvcuda's names are in scope counts as nvcuda::wmma */
  bool wmma = name_starts(name, n, "nvcuda::wmma") || (lx->nvcuda_ns && name_starts(name, n, "wmma"));
  if (wmma && !name_starts(name, n, "nvcuda::wmma"))
    lx->ok = lx->ok && add_hit(lx->out, TCMMA_HIT_MARKER, tcmma_marker_text(TCMMA_MARKER_WMMA_API),
                               strlen(tcmma_marker_text(TCMMA_MARKER_WMMA_API)),
                               tcmma_marker_floor(TCMMA_MARKER_WMMA_API), TCMMA_PTX_SUFFIX_ANY, line);
  size_t tail = n;
  while (tail && name[tail - 1] != ':') tail--;
  if (name_is(name + tail, n - tail, "fragment") && (wmma || (lx->wmma_ns && tail == 0)))
    fragment_args(lx);
}

/* ---- preprocessor guards ---- */

static void finish_group(lexer *lx) {
  struct group *g = &lx->groups[lx->depth - 1];
  for (size_t k = g->first_guard; k < lx->n_guards && lx->ok; k++) {
    struct guard *gd = &lx->guards[k];
    if (gd->group_depth != lx->depth) continue;
    /* a threshold at or below the lowest real cc (__CUDA_ARCH__ >= 0 .. 100)
     * holds on every device: it raises nothing */
    /* a '>' guard at file scope around a specialisation is optional: the
     * primary template compiles below it, nothing is lost */
    bool optional = g->braces == 0 && g->specialisation;
    bool raises = gd->first_branch && gd->cc > TCMMA_CC_MIN &&
                  (gd->op == '>' ? !g->has_else && !optional : g->error_in_first);
    tcmma_marker_hit *h = hit(lx->out, TCMMA_HIT_GUARD, gd->text, strlen(gd->text),
                              raises ? gd->cc : 0, TCMMA_PTX_SUFFIX_ANY, gd->line);
    if (!h) lx->ok = false;
    else h->guard_op = gd->op, h->guard_cc = gd->cc;
  }
  lx->n_guards = g->first_guard;
  lx->depth--;
}

/* The __CUDA_ARCH__ comparisons of an #if/#elif condition. */
static void guards_in(lexer *lx, const char *cond, size_t n, int line, bool first_branch) {
  static const char name[] = "__CUDA_ARCH__";
  for (const char *p = cond; (p = memmem(p, n - (size_t)(p - cond), name, sizeof name - 1));) {
    const char *q = p + sizeof name - 1, *end = cond + n;
    p = q;
    while (q < end && (*q == ' ' || *q == '\t' || *q == ')')) q++;
    char op[3] = {0};
    if (q < end && (*q == '>' || *q == '<' || *q == '=')) op[0] = *q++;
    if (q < end && *q == '=') op[1] = *q++;
    while (q < end && (*q == ' ' || *q == '\t' || *q == '(')) q++;
    long v = 0;
    const char *digits = q;
    while (q < end && *q >= '0' && *q <= '9' && v < 100000) v = v * 10 + (*q++ - '0');
    if (!op[0] || op[0] == '=' || q == digits) continue; /* == N: one arch, no floor */
    /* __CUDA_ARCH__ counts cc*10: 800 is cc 80, 1000 is cc 100 */
    int cc = op[0] == '>' ? (int)((v + (op[1] ? 9 : 10)) / 10) : (int)((v + (op[1] ? 10 : 9)) / 10);
    char kind = op[0];
    if (lx->n_guards == lx->guard_cap) {
      size_t cap = lx->guard_cap ? 2 * lx->guard_cap : 16;
      struct guard *grown = realloc(lx->guards, cap * sizeof *grown);
      if (!grown) return (void)(lx->ok = false);
      lx->guards = grown, lx->guard_cap = cap;
    }
    struct guard *g = &lx->guards[lx->n_guards++];
    snprintf(g->text, sizeof g->text, "__CUDA_ARCH__ %s %ld", op, v);
    g->op = kind, g->cc = cc, g->line = line, g->group_depth = lx->depth;
    g->first_branch = first_branch;
  }
}

static void define_body(lexer *lx, size_t from, size_t to, int line);

/* A preprocessor line at lx->i ('#'): its logical text, continuations
 * joined and comments left out. */
static void directive(lexer *lx) {
  int line = lx->line;
  tcmma_buf text = {0};
  advance(lx, 1);
  size_t from = lx->i;
  while (lx->i < lx->len && at(lx, 0) != '\n') {
    char c = at(lx, 0);
    if (c == '\\' && (at(lx, 1) == '\n' || (at(lx, 1) == '\r' && at(lx, 2) == '\n'))) {
      advance(lx, at(lx, 1) == '\r' ? 3 : 2);
      tcmma_buf_printf(&text, " ");
    } else if (c == '/' && (at(lx, 1) == '/' || at(lx, 1) == '*')) {
      bool block = at(lx, 1) == '*';
      comment(lx);
      if (!block) break;
      tcmma_buf_printf(&text, " ");
    } else if (c == '"' || c == '\'') {
      skip_quoted(lx, NULL);
      tcmma_buf_printf(&text, "\"\"");
    } else {
      tcmma_buf_append(&text, &c, 1);
      advance(lx, 1);
    }
  }
  if (text.failed) lx->ok = false;
  const char *t = tcmma_buf_str(&text);
  while (*t == ' ' || *t == '\t') t++;
  size_t w = 0;
  while (ident_char(t[w])) w++;
  const char *rest = t + w;
  size_t n = strlen(rest);
  if (name_is(t, w, "if") || name_is(t, w, "ifdef") || name_is(t, w, "ifndef")) {
    if (lx->depth == (int)(sizeof lx->groups / sizeof lx->groups[0])) finish_group(lx);
    lx->groups[lx->depth++] = (struct group){lx->n_guards, false, true, false, lx->braces, false};
    if (name_is(t, w, "if")) guards_in(lx, rest, n, line, true);
  } else if (lx->depth && (name_is(t, w, "elif") || name_is(t, w, "else"))) {
    struct group *g = &lx->groups[lx->depth - 1];
    g->has_else = true, g->in_first = false;
    if (name_is(t, w, "elif")) guards_in(lx, rest, n, line, false);
  } else if (lx->depth && name_is(t, w, "error")) {
    struct group *g = &lx->groups[lx->depth - 1];
    if (g->in_first) g->error_in_first = true;
  } else if (lx->depth && name_is(t, w, "endif")) {
    finish_group(lx);
  } else if (name_is(t, w, "define")) {
    define_body(lx, from, lx->i, line);
  }
  tcmma_buf_free(&text);
}

/* Whether lx->i starts a line's first token. */
static bool line_start(const lexer *lx) {
  for (size_t k = lx->i; k > 0; k--) {
    char c = lx->src[k - 1];
    if (c == '\n') return true;
    if (c != ' ' && c != '\t') return false;
  }
  return true;
}

/* Sorts hits by line, keeping the order of hits on one line (a merge sort:
 * an insertion sort was quadratic in the guards of a long #if); false on no
 * memory. */
static bool by_line(tcmma_marker_hit *hits, size_t n) {
  if (n < 2) return true;
  tcmma_marker_hit *tmp = malloc(n * sizeof *tmp);
  if (!tmp) return false;
  for (size_t width = 1; width < n; width *= 2) {
    for (size_t lo = 0; lo < n; lo += 2 * width) {
      size_t mid = lo + width < n ? lo + width : n, hi = lo + 2 * width < n ? lo + 2 * width : n;
      size_t a = lo, b = mid, k = lo;
      while (a < mid && b < hi) tmp[k++] = hits[b].line < hits[a].line ? hits[b++] : hits[a++];
      while (a < mid) tmp[k++] = hits[a++];
      while (b < hi) tmp[k++] = hits[b++];
    }
    memcpy(hits, tmp, n * sizeof *tmp);
  }
  free(tmp);
  return true;
}

/* One token of code at lx->i: a comment, a preprocessor line (not inside
 * a #define body), a literal, a "(tag)", a name, a number, a brace or any
 * other byte. */
static void step(lexer *lx) {
  char c = at(lx, 0);
  if (c == '/' && (at(lx, 1) == '/' || at(lx, 1) == '*')) {
    comment(lx);
  } else if (c == '#' && !lx->macro && line_start(lx)) {
    directive(lx);
  } else if (c == '"') {
    skip_quoted(lx, NULL);
  } else if (c == '\'') {
    /* a digit separator (1'000) is not a character literal */
    if (lx->i > 0 && ident_char(lx->src[lx->i - 1]) && ident_char(at(lx, 1))) advance(lx, 1);
    else skip_quoted(lx, NULL);
  } else if (c == '(') {
    size_t close = lx->i + 1;
    while (close < lx->len && close - lx->i < 48 && lx->src[close] != ')' && lx->src[close] != '\n') close++;
    lx->ok = scan_tags(lx->out, lx->src + lx->i, close < lx->len ? close - lx->i + 1 : lx->len - lx->i,
                       lx->line);
    advance(lx, 1);
  } else if (ident_char(c) && !(c >= '0' && c <= '9')) {
    size_t start = lx->i;
    int line = lx->line;
    size_t n = read_name(lx);
    /* R"(...)", u8R"(...)": a raw string */
    if (at(lx, 0) == '"' && lx->src[lx->i - 1] == 'R' && n <= 3) skip_raw(lx, NULL);
    else if (at(lx, 0) == '"' || at(lx, 0) == '\'') skip_quoted(lx, NULL); /* u8"..", L'x' */
    else code_name(lx, lx->src + start, n, line);
  } else if (c >= '0' && c <= '9') {
    while (lx->i < lx->len && (ident_char(at(lx, 0)) || at(lx, 0) == '.')) advance(lx, 1);
  } else {
    lx->braces += c == '{' ? 1 : c == '}' && lx->braces > 0 ? -1 : 0;
    advance(lx, 1);
  }
}

/* The body of "#define NAME[(params)] body" (src[from..to), after the '#'),
 * read as code: its asm() instructions are hits of kind MACRO, its names
 * count as anywhere else. */
static void define_body(lexer *lx, size_t from, size_t to, int line) {
  lexer body = {.src = lx->src, .len = to, .i = from, .line = line, .out = lx->out, .ok = true,
                .nvcuda_ns = lx->nvcuda_ns, .wmma_ns = lx->wmma_ns, .macro = true};
  skip_blanks(&body);
  read_name(&body); /* "define" */
  skip_blanks(&body);
  read_name(&body);
  if (at(&body, 0) == '(') /* a function-like macro's parameters */
    while (body.i < body.len && at(&body, 0) != ')') advance(&body, 1);
  while (body.i < body.len && body.ok) step(&body);
  lx->ok = lx->ok && body.ok;
}

tcmma_status tcmma__arch_scan_source(const char *source, size_t len, tcmma__arch_scan *out) {
  memset(out, 0, sizeof *out);
  lexer lx = {.src = source ? source : "", .len = source ? len : 0, .line = 1, .out = out, .ok = true};
  while (lx.i < lx.len && lx.ok) step(&lx);
  while (lx.depth && lx.ok) finish_group(&lx);
  free(lx.guards);
  /* source order: guards are known only at their #endif (a stable sort) */
  if (lx.ok) lx.ok = by_line(out->hits, out->count);
  free(out->index);
  out->index = NULL, out->index_cap = 0;
  if (!lx.ok) {
    tcmma__arch_scan_free(out);
    return TCMMA_NO_MEMORY;
  }
  return TCMMA_OK;
}

void tcmma__arch_scan_free(tcmma__arch_scan *s) {
  if (!s) return;
  free(s->hits), free(s->index);
  memset(s, 0, sizeof *s);
}

size_t tcmma_source_markers(const char *source, size_t len, tcmma_marker_hit *hits, size_t cap,
                            int *floor) {
  tcmma__arch_scan s;
  if (tcmma__arch_scan_source(source, len, &s) != TCMMA_OK) {
    if (floor) *floor = 0;
    return 0;
  }
  for (size_t i = 0; hits && i < s.count && i < cap; i++) hits[i] = s.hits[i];
  if (floor) *floor = s.floor;
  size_t n = s.count;
  tcmma__arch_scan_free(&s);
  return n;
}
