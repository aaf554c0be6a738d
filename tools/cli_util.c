/* Argument helpers, the JSON writer and the text table of the CLI. */
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "cli_parse.h"
#include "tables/decimal.h"

/* The last failure's message, and whether JSON went to stdout: a command run
 * with --json that fails before it wrote its object still owes its reader
 * one (cli_json_failure). One process runs one command: plain statics. */
static char last_failure[1024];
static bool wrote_json;

static void vreport(const char *cmd, const char *fmt, va_list ap) {
  va_list copy;
  va_copy(copy, ap);
  vsnprintf(last_failure, sizeof last_failure, fmt, copy);
  va_end(copy);
  fprintf(stderr, "tcmma %s: ", cmd);
  vfprintf(stderr, fmt, ap);
  fputc('\n', stderr);
}

void cli_note_failure(const char *fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(last_failure, sizeof last_failure, fmt, ap);
  va_end(ap);
}

bool cli_wants_json(int argc, char **argv) {
  for (int i = 1; i < argc && strcmp(argv[i], "--") != 0; i++)
    if (strcmp(argv[i], "--json") == 0) return true;
  return false;
}

void cli_json_failure(const char *command, int rc) {
  if (wrote_json) return;
  json_writer w;
  json_init(&w, stdout);
  json_begin_object(&w);
  json_key(&w, "error"), json_begin_object(&w);
  json_key(&w, "command"), json_string(&w, command);
  json_key(&w, "exit_code"), json_int(&w, rc);
  json_key(&w, "message"), json_string(&w, last_failure[0] ? last_failure : NULL);
  json_end_object(&w);
  json_end_object(&w);
  json_finish(&w);
}

int cli_usage(const char *cmd, const char *fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  vreport(cmd, fmt, ap);
  va_end(ap);
  fprintf(stderr, "(see: tcmma %s --help)\n", cmd);
  return CLI_USAGE;
}

int cli_fail(const char *cmd, const char *fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  vreport(cmd, fmt, ap);
  va_end(ap);
  return CLI_FAIL;
}

bool cli_is_help(const char *arg) {
  return strcmp(arg, "-h") == 0 || strcmp(arg, "--help") == 0;
}

int cli_dispatch(const char *who, const char *kind, const cli_subcommand *table, size_t n,
                 void (*usage)(FILE *out), int argc, char **argv) {
  if (argc < 2) {
    usage(stderr);
    return CLI_USAGE;
  }
  if (cli_is_help(argv[1])) {
    usage(stdout);
    return CLI_OK;
  }
  for (size_t i = 0; i < n; i++)
    if (strcmp(argv[1], table[i].name) == 0) return table[i].fn(argc - 1, argv + 1);
  fprintf(stderr, "%s: unknown %s '%s': expected one of", who, kind, argv[1]);
  for (size_t i = 0; i < n; i++) fprintf(stderr, " %s", table[i].name);
  fprintf(stderr, "\n");
  return CLI_USAGE;
}

void cli_print_help_precs(const char *help) {
  char precs[256];
  tcmma_prec_list(precs, sizeof precs);
  printf(help, precs);
}

int cli_json_only(const char *cmd, const char *help, int argc, char **argv, bool *json) {
  *json = false;
  for (int i = 1; i < argc; i++) {
    if (cli_is_help(argv[i])) return fputs(help, stdout), CLI_OK;
    if (strcmp(argv[i], "--json") == 0) *json = true;
    else return cli_usage(cmd, "unknown option '%s': expected --json", argv[i]);
  }
  return -1;
}

const char *cli_value(const char *cmd, int argc, char **argv, int *i) {
  if (*i + 1 >= argc) {
    cli_usage(cmd, "option %s needs a value", argv[*i]);
    return NULL;
  }
  return argv[++*i];
}

bool cli_int(const char *cmd, const char *opt, const char *text, long lo, long hi, long *out) {
  long long v;
  if (!tcmma__table_decimal(text, lo, hi, &v)) {
    cli_usage(cmd, "%s '%s': expected a decimal integer from %ld to %ld", opt, text, lo, hi);
    return false;
  }
  *out = (long)v;
  return true;
}

bool cli_cc(const char *cmd, const char *opt, const char *text, int *out) {
  tcmma_error err;
  if (cli_parse_cc(text, out, &err) == TCMMA_OK) return true;
  cli_usage(cmd, "%s: %s", opt, err.message);
  return false;
}

/* ---- JSON ---- */

void json_init(json_writer *w, FILE *out) {
  memset(w, 0, sizeof *w);
  w->out = out;
  wrote_json = wrote_json || out == stdout;
}

static void indent(json_writer *w) {
  fputc('\n', w->out);
  for (int i = 0; i < w->depth; i++) fputs("  ", w->out);
}

static void before_value(json_writer *w) {
  if (w->after_key) {
    w->after_key = false;
    return;
  }
  if (w->depth > 0) {
    if (w->need_comma[w->depth]) fputc(',', w->out);
    indent(w);
  }
  w->need_comma[w->depth] = true;
}

static void open(json_writer *w, char c) {
  before_value(w);
  fputc(c, w->out);
  if (w->depth < 63) w->depth++;
  w->need_comma[w->depth] = false;
}

static void close_(json_writer *w, char c) {
  bool had = w->need_comma[w->depth];
  if (w->depth > 0) w->depth--;
  if (had) indent(w);
  fputc(c, w->out);
}

void json_begin_object(json_writer *w) { open(w, '{'); }
void json_end_object(json_writer *w) { close_(w, '}'); }
void json_begin_array(json_writer *w) { open(w, '['); }
void json_end_array(json_writer *w) { close_(w, ']'); }

/* Length of the well-formed UTF-8 sequence at p (RFC 3629: shortest form,
 * no surrogates, at most U+10FFFF), or 0 when p starts none. */
static size_t utf8_length(const unsigned char *p) {
  unsigned char c = p[0];
  size_t n = c < 0x80 ? 1 : c >= 0xc2 && c <= 0xdf ? 2 : c >= 0xe0 && c <= 0xef ? 3
           : c >= 0xf0 && c <= 0xf4 ? 4 : 0;
  for (size_t i = 1; i < n; i++) /* stops at the NUL too: it is no continuation byte */
    if ((p[i] & 0xc0) != 0x80) return 0;
  if ((c == 0xe0 && p[1] < 0xa0) || (c == 0xf0 && p[1] < 0x90) || /* overlong */
      (c == 0xed && p[1] >= 0xa0) ||                               /* a surrogate */
      (c == 0xf4 && p[1] >= 0x90))                                 /* past U+10FFFF */
    return 0;
  return n;
}

/* A JSON string: escapes quotes, backslashes and control bytes; a byte that
 * starts no well-formed UTF-8 sequence becomes U+FFFD, so the document is
 * valid UTF-8 whatever a file name or an expression holds. */
static void raw_string(FILE *out, const char *s) {
  fputc('"', out);
  for (const unsigned char *p = (const unsigned char *)s; *p;) {
    size_t n = utf8_length(p);
    if (n == 0) {
      fputs("\\ufffd", out);
      p++;
      continue;
    }
    if (n > 1) {
      fwrite(p, 1, n, out);
      p += n;
      continue;
    }
    switch (*p) {
    case '"': fputs("\\\"", out); break;
    case '\\': fputs("\\\\", out); break;
    case '\n': fputs("\\n", out); break;
    case '\t': fputs("\\t", out); break;
    case '\r': fputs("\\r", out); break;
    default:
      if (*p < 0x20) fprintf(out, "\\u%04x", *p);
      else fputc(*p, out);
    }
    p++;
  }
  fputc('"', out);
}

void json_key(json_writer *w, const char *key) {
  before_value(w);
  raw_string(w->out, key);
  fputs(": ", w->out);
  w->after_key = true;
}

void json_string(json_writer *w, const char *s) {
  if (!s) return json_null(w);
  before_value(w);
  raw_string(w->out, s);
}

void json_int(json_writer *w, long long v) {
  before_value(w);
  fprintf(w->out, "%lld", v);
}

void json_double(json_writer *w, double v) {
  before_value(w);
  fprintf(w->out, "%.17g", v);
}

void json_bool(json_writer *w, bool v) {
  before_value(w);
  fputs(v ? "true" : "false", w->out);
}

void json_null(json_writer *w) {
  before_value(w);
  fputs("null", w->out);
}

void json_tile(json_writer *w, int m, int n, int k) {
  json_begin_array(w);
  json_int(w, m), json_int(w, n), json_int(w, k);
  json_end_array(w);
}

void json_finish(json_writer *w) { fputc('\n', w->out); }

/* ---- text tables ---- */

void table_init(text_table *t, int cols) {
  memset(t, 0, sizeof *t);
  t->cols = cols;
}

void table_row(text_table *t, const char *const *cells) {
  if (t->rows == t->cap) {
    int cap = t->cap ? 2 * t->cap : 16;
    char **grown = realloc(t->cells, (size_t)cap * (size_t)t->cols * sizeof *grown);
    if (!grown) return; /* out of memory: the row is dropped, never a crash */
    t->cells = grown;
    t->cap = cap;
  }
  for (int c = 0; c < t->cols; c++) {
    const char *s = cells[c] ? cells[c] : "";
    t->cells[t->rows * t->cols + c] = strdup(s);
  }
  t->rows++;
}

void table_print(const text_table *t, FILE *out) {
  int width[32] = {0};
  for (int r = 0; r < t->rows; r++)
    for (int c = 0; c < t->cols && c < 32; c++) {
      const char *s = t->cells[r * t->cols + c];
      int n = s ? (int)strlen(s) : 0;
      if (n > width[c]) width[c] = n;
    }
  for (int r = 0; r < t->rows; r++) {
    for (int c = 0; c < t->cols; c++) {
      const char *s = t->cells[r * t->cols + c];
      if (c == t->cols - 1) fprintf(out, "%s", s ? s : "");
      else fprintf(out, "%-*s  ", c < 32 ? width[c] : 0, s ? s : "");
    }
    fputc('\n', out);
  }
}

void table_free(text_table *t) {
  for (int i = 0; i < t->rows * t->cols; i++) free(t->cells[i]);
  free(t->cells);
  memset(t, 0, sizeof *t);
}

bool cli_list_push(cli_list *l, const char *v) {
  const char **grown = realloc(l->items, (l->count + 1) * sizeof *grown);
  if (!grown) return false;
  l->items = grown;
  l->items[l->count++] = v;
  return true;
}
