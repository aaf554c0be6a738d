/* The files a compile reads through #include, found the way NVRTC finds
 * them, so that the cache key covers their contents (docs/design.md §9).
 * NVRTC reports no dependencies, so tcmma scans for them itself:
 *
 * - directives are looked for at every line start and after every block
 *   comment, with comments skipped, before any other parsing: a directive
 *   can be reported that the preprocessor would not see (in a comment, an
 *   #if 0 branch), never missed. Conditions are not evaluated, so every
 *   branch's includes count;
 * - "x" is searched in the includer's directory (for the source itself, the
 *   directory of the program name, else the current one), then in each -I
 *   directory in order; <x> in the -I directories; include_next counts every
 *   match; __has_include records whether and where its file exists;
 * - each include adds its spelling, the path it resolved to (or that it did
 *   not) and the SHA-256 of that file's bytes to the key, and the file is
 *   scanned in turn. A file that appears later in an earlier directory, or
 *   one that changes, changes the key.
 *
 * What cannot be resolved for certain (#include MACRO, a trigraph, a file
 * that is not a regular file, options that read files tcmma does not model)
 * makes the compile uncacheable, with a note saying why. */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>
#include "nvrtc/internal.h"
#include "nvrtc/sha256.h"
#include "tables/file.h"
#include "tcmma/tcmma.h"

#define FILES_MAX 4096               /* more files than this: uncacheable */
#define DEPTH_MAX 200                /* nesting deeper than this: uncacheable */
#define FILE_BYTES_MAX (64L << 20)   /* a header larger than this: uncacheable */
#define MEMO_MAX 4096
#define SETTLED_SECONDS 2            /* see memo_trusted */

typedef enum { INC_QUOTE, INC_ANGLE } inc_form;

typedef struct {
  bool next;         /* include_next: every match counts */
  bool exists_only;  /* __has_include: only whether and where it exists */
  inc_form form;
  char *name;
} directive;

/* What scanning one file found: its digest and its directives. */
typedef struct {
  unsigned char digest[32];
  directive *items;
  size_t count;
  char problem[256]; /* non-empty: the file makes the compile uncacheable */
  int trigraph_line; /* the first "\?\?=" or "\?\?/", or 0 */
  int clock_line;    /* the first use of a clock macro (clock_macros), or 0 */
  int clock_macro;   /* which: its index + 1 */
} file_scan;

typedef struct {
  char **dirs;       /* the -I directories, absolute, in order */
  size_t n_dirs;
  tcmma__sha256_state *key;
  char *note;
  size_t note_cap;
  bool certain;
  bool trigraphs;    /* a --std before c++17: trigraphs may be replaced */
  char **seen;       /* files already scanned */
  size_t n_seen, seen_cap;
  struct frame *frames; /* the files being scanned, innermost last (walk) */
  size_t n_frames, frames_cap;
  bool fatal;        /* the compile must not run: note says why */
} scan;

static void uncertain(scan *s, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void uncertain(scan *s, const char *fmt, ...) {
  if (s->certain && s->note && s->note_cap) {
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(s->note, s->note_cap, fmt, ap);
    va_end(ap);
  }
  s->certain = false;
}

static void add_part(scan *s, const void *data, size_t n) {
  unsigned char len[8];
  for (int i = 0; i < 8; i++) len[i] = (unsigned char)((uint64_t)n >> (8 * i));
  tcmma__sha256_update(s->key, len, sizeof len);
  tcmma__sha256_update(s->key, data, n);
}

static void add_text(scan *s, const char *text) { add_part(s, text, strlen(text)); }

/* ---- finding directives in one file's text ---- */

static bool blank(char c) { return c == ' ' || c == '\t' || c == '\f' || c == '\v' || c == '\r'; }

/* A text with where its comments end, so that no place is skipped over
 * twice: every "*" "/" and every newline (offsets, ascending), and for each
 * comment end where skip_blank from it arrives. (Searching for the end of a
 * comment from each line start walked to the end of the text for every line
 * opening a comment that never closes: quadratic.) */
typedef struct {
  const char *t;
  size_t len;
  uint32_t *closes, *after; /* a comment end's offset; skip_blank from its end */
  size_t n_closes;
  uint32_t *newlines;
  size_t n_newlines;
} text_index;

/* The first of a[0..n) at or after x (n when none). */
static size_t first_from(const uint32_t *a, size_t n, size_t x) {
  size_t lo = 0, hi = n;
  while (lo < hi) {
    size_t mid = lo + (hi - lo) / 2;
    if (a[mid] < x) lo = mid + 1;
    else hi = mid;
  }
  return lo;
}

/* Where a line comment starting at offset at ends (its '\n', or the end). */
static size_t line_end(const text_index *ix, size_t at) {
  size_t k = first_from(ix->newlines, ix->n_newlines, at);
  return k < ix->n_newlines ? ix->newlines[k] : ix->len;
}

/* After a "/" "*" at offset at: skip_blank's answer past its comment. */
static size_t past_comment(const text_index *ix, size_t at) {
  size_t k = first_from(ix->closes, ix->n_closes, at + 2);
  return k < ix->n_closes ? ix->after[k] : ix->len;
}

/* Blanks and comments from offset at, one step: the offset of what follows. */
static size_t skip_from(const text_index *ix, size_t at) {
  const char *t = ix->t;
  while (blank(t[at])) at++;
  if (t[at] == '/' && t[at + 1] == '*') return past_comment(ix, at);
  if (t[at] == '/' && t[at + 1] == '/') return line_end(ix, at);
  return at;
}

static bool index_text(text_index *ix, const char *t, size_t len) {
  memset(ix, 0, sizeof *ix);
  ix->t = t, ix->len = len;
  size_t nc = 0, nn = 0;
  for (size_t i = 0; i < len; i++) {
    nn += t[i] == '\n';
    nc += t[i] == '*' && t[i + 1] == '/';
  }
  ix->closes = malloc((nc ? nc : 1) * sizeof *ix->closes);
  ix->after = malloc((nc ? nc : 1) * sizeof *ix->after);
  ix->newlines = malloc((nn ? nn : 1) * sizeof *ix->newlines);
  if (!ix->closes || !ix->after || !ix->newlines) return false;
  for (size_t i = 0; i < len; i++) {
    if (t[i] == '\n') ix->newlines[ix->n_newlines++] = (uint32_t)i;
    if (t[i] == '*' && t[i + 1] == '/') ix->closes[ix->n_closes++] = (uint32_t)i;
  }
  /* from the last comment end back: what follows one is known for every
   * later one, so each blank run is walked once */
  for (size_t k = nc; k-- > 0;) {
    size_t at = ix->closes[k] + 2;
    while (blank(t[at])) at++;
    if (t[at] == '/' && t[at + 1] == '*') {
      size_t next = first_from(ix->closes, nc, at + 2); /* > k: known */
      ix->after[k] = next < nc ? ix->after[next] : (uint32_t)len;
    } else if (t[at] == '/' && t[at + 1] == '/') {
      ix->after[k] = (uint32_t)line_end(ix, at);
    } else {
      ix->after[k] = (uint32_t)at;
    }
  }
  return true;
}

static void index_free(text_index *ix) {
  free(ix->closes), free(ix->after), free(ix->newlines);
  memset(ix, 0, sizeof *ix);
}

/* Skips blanks and comments from p; a block comment may span lines (it is
 * one space), a line comment ends the line: *p is then '\n' or '\0'. */
static const char *skip_blank(const text_index *ix, const char *p) {
  return ix->t + skip_from(ix, (size_t)(p - ix->t));
}

static bool ident_char(char c) {
  return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '_';
}

/* Reads a header-name at p ("x" or <x>, on one line, at most PATH_MAX bytes:
 * no longer name can be found, and a bound keeps a line of unclosed names
 * linear) into *d; NULL when p holds anything else (a macro). Returns the
 * position after it. */
static const char *header_name(const char *p, directive *d) {
  char close = *p == '"' ? '"' : *p == '<' ? '>' : 0;
  if (!close) return NULL;
  const char *end = p + 1;
  while (*end && *end != close && *end != '\n' && end - p <= PATH_MAX) end++;
  if (*end != close || end == p + 1) return NULL;
  if (!(d->name = malloc((size_t)(end - p)))) return NULL;
  memcpy(d->name, p + 1, (size_t)(end - p - 1));
  d->name[end - p - 1] = '\0';
  d->form = close == '"' ? INC_QUOTE : INC_ANGLE;
  return end + 1;
}

static bool push(file_scan *f, size_t *cap, directive d) {
  if (f->count == *cap) {
    size_t grown_cap = *cap ? 2 * *cap : 16;
    directive *grown = realloc(f->items, grown_cap * sizeof *grown);
    if (!grown) return false;
    f->items = grown, *cap = grown_cap;
  }
  f->items[f->count++] = d;
  return true;
}

static int line_of(const char *text, const char *at) {
  int line = 1;
  for (const char *p = text; p < at; p++) line += *p == '\n';
  return line;
}

/* The directive that may start at p (a line start, or just after a block
 * comment): # or %:, then include, include_next or import. */
static void directive_at(const text_index *ix, const char *p, const char *where, file_scan *f,
                         size_t *cap) {
  const char *text = ix->t;
  p = skip_blank(ix, p);
  if (*p == '#') p++;
  else if (p[0] == '%' && p[1] == ':') p += 2;
  else return;
  p = skip_blank(ix, p);
  const char *word = p;
  while (ident_char(*p)) p++;
  size_t n = (size_t)(p - word);
  bool next = n == 12 && strncmp(word, "include_next", 12) == 0;
  if (!next && !(n == 7 && strncmp(word, "include", 7) == 0) &&
      !(n == 6 && strncmp(word, "import", 6) == 0))
    return;
  directive d = {.next = next};
  p = skip_blank(ix, p);
  if (!header_name(p, &d)) {
    if (!f->problem[0])
      snprintf(f->problem, sizeof f->problem, "%s:%d: an #%.*s tcmma cannot resolve (not \"file\" "
               "or <file>)", where, line_of(text, word), (int)n, word);
    return;
  }
  if (!push(f, cap, d)) {
    free(d.name);
    snprintf(f->problem, sizeof f->problem, "out of memory scanning %s", where);
  }
}

/* __has_include("x") and __has_include(<x>), anywhere: whether and where x
 * exists changes what the preprocessor keeps. */
static void has_include_at(const text_index *ix, const char *p, const char *where, file_scan *f,
                           size_t *cap) {
  const char *text = ix->t;
  const char *word = p;
  p += strlen("__has_include");
  bool next = strncmp(p, "_next", 5) == 0;
  if (next) p += 5;
  if (ident_char(*p) || (word > text && ident_char(word[-1]))) return;
  p = skip_blank(ix, p);
  directive d = {.next = next, .exists_only = true};
  if (*p != '(' || !header_name(skip_blank(ix, p + 1), &d)) {
    if (!f->problem[0])
      snprintf(f->problem, sizeof f->problem, "%s:%d: a __has_include tcmma cannot resolve",
               where, line_of(text, word));
    return;
  }
  if (!push(f, cap, d)) {
    free(d.name);
    snprintf(f->problem, sizeof f->problem, "out of memory scanning %s", where);
  }
}

/* The macros whose value is the time of the compile: a program using one is
 * not the same program when compiled again, so it is never cached. */
static const char *const clock_macros[] = {"__TIME__", "__DATE__", "__TIMESTAMP__"};
#define CLOCK_MACROS (sizeof clock_macros / sizeof clock_macros[0])

/* The first use of a clock macro in t as a name in code: comments, string
 * and character literals and raw strings are passed over; #if 0 branches
 * and macro bodies count (conservative). One pass. */
static void clock_use(const char *t, size_t len, file_scan *f) {
  int line = 1;
  for (size_t i = 0; i < len;) {
    char c = t[i];
    if (c == '\n') {
      line++, i++;
    } else if (c == '/' && t[i + 1] == '/') {
      while (i < len && t[i] != '\n') i++;
    } else if (c == '/' && t[i + 1] == '*') {
      const char *end = strstr(t + i + 2, "*/");
      size_t stop = end ? (size_t)(end - t) + 2 : len;
      for (; i < stop; i++) line += t[i] == '\n';
    } else if (c == '"' || (c == '\'' && !(i && ident_char(t[i - 1])))) {
      for (i++; i < len && t[i] != c && t[i] != '\n'; i++)
        if (t[i] == '\\' && i + 1 < len && t[i + 1] != '\n') i++;
      if (i < len && t[i] == c) i++;
    } else if (ident_char(c)) {
      size_t start = i;
      while (i < len && ident_char(t[i])) i++;
      size_t n = i - start;
      bool raw = t[i] == '"' && t[i - 1] == 'R' && n <= 3; /* R"d(...)d", u8R"(...)" */
      if (raw) {
        size_t open = i + 1, d = 0;
        while (open + d < len && t[open + d] != '(' && d < 16) d++;
        char close[20];
        snprintf(close, sizeof close, ")%.*s\"", (int)d, t + open);
        const char *end = open + d < len ? strstr(t + open + d, close) : NULL;
        if (end) { /* unterminated: read on as code */
          size_t stop = (size_t)(end - t) + strlen(close);
          for (; i < stop; i++) line += t[i] == '\n';
        }
        continue;
      }
      for (size_t m = 0; m < CLOCK_MACROS && !f->clock_line; m++)
        if (n == strlen(clock_macros[m]) && memcmp(t + start, clock_macros[m], n) == 0)
          f->clock_line = line, f->clock_macro = (int)m + 1;
      if (f->clock_line) return;
    } else {
      i++;
    }
  }
}

/* Joins the lines that end in a backslash (translation phase 2): a new string. */
static char *join_lines(const char *text, size_t len, size_t *out_len) {
  char *out = malloc(len + 1);
  if (!out) return NULL;
  size_t n = 0;
  for (size_t i = 0; i < len; i++) {
    if (text[i] == '\\' && i + 1 < len && text[i + 1] == '\n') { i++; continue; }
    if (text[i] == '\\' && i + 2 < len && text[i + 1] == '\r' && text[i + 2] == '\n') {
      i += 2;
      continue;
    }
    out[n++] = text[i];
  }
  out[n] = '\0';
  *out_len = n;
  return out;
}

/* Finds the directives of text (len bytes; where names it in notes), the
 * first trigraph that could spell a '#' or a line splice, and the first use
 * of a clock macro. Linear in len (but for the binary searches). */
static void scan_directives(const char *text, size_t len, const char *where, file_scan *f) {
  if (memchr(text, '\0', len)) {
    snprintf(f->problem, sizeof f->problem, "%s holds a NUL byte", where);
    return;
  }
  if (len >= UINT32_MAX) {
    snprintf(f->problem, sizeof f->problem, "%s is 4 GiB or larger", where);
    return;
  }
  size_t n = 0;
  char *t = join_lines(text, len, &n);
  text_index ix;
  if (!t || !index_text(&ix, t, n)) {
    if (t) index_free(&ix);
    free(t);
    snprintf(f->problem, sizeof f->problem, "out of memory scanning %s", where);
    return;
  }
  const char *tri = strstr(t, "\?\?=");
  if (!tri) tri = strstr(t, "\?\?/");
  if (tri) f->trigraph_line = line_of(t, tri);
  clock_use(t, n, f);
  size_t cap = 0; /* each kind of place found with the C library's fast scans */
  directive_at(&ix, t, where, f, &cap);
  for (size_t k = 0; k < ix.n_newlines && !f->problem[0]; k++)
    directive_at(&ix, t + ix.newlines[k] + 1, where, f, &cap);
  for (size_t k = 0; k < ix.n_closes && !f->problem[0]; k++)
    directive_at(&ix, t + ix.closes[k] + 2, where, f, &cap);
  for (const char *p = t; (p = strstr(p, "__has_include")) && !f->problem[0]; p++)
    has_include_at(&ix, p, where, f, &cap);
  index_free(&ix);
  free(t);
}

static void file_scan_free(file_scan *f) {
  for (size_t i = 0; i < f->count; i++) free(f->items[i].name);
  free(f->items);
  memset(f, 0, sizeof *f);
}

/* ---- reading a header, remembered per process ---- */

typedef struct {
  char *path;
  struct stat st;
  struct timespec at; /* when it was read */
  file_scan result;
} memo_entry;

static pthread_mutex_t memo_lock = PTHREAD_MUTEX_INITIALIZER;
static memo_entry memo[MEMO_MAX];
static size_t memo_count;
static bool memo_dirty;              /* entries the disk copy lacks */
static pthread_once_t memo_loaded = PTHREAD_ONCE_INIT;

static bool same_file(const struct stat *a, const struct stat *b) {
  return a->st_dev == b->st_dev && a->st_ino == b->st_ino && a->st_size == b->st_size &&
         a->st_mtim.tv_sec == b->st_mtim.tv_sec && a->st_mtim.tv_nsec == b->st_mtim.tv_nsec &&
         a->st_ctim.tv_sec == b->st_ctim.tv_sec && a->st_ctim.tv_nsec == b->st_ctim.tv_nsec;
}

static bool before(struct timespec t, struct timespec limit) {
  return t.tv_sec < limit.tv_sec || (t.tv_sec == limit.tv_sec && t.tv_nsec < limit.tv_nsec);
}

/* A remembered read stands for the file only if the file had settled when
 * it was read: its mtime and ctime more than SETTLED_SECONDS older than the
 * read. A later change then sets a later ctime (which no one can set back),
 * so the stat differs; a change within the same clock tick as an earlier
 * one cannot go unseen (the file is read again until it has settled). */
static bool memo_trusted(const memo_entry *m) {
  struct timespec limit = m->at;
  limit.tv_sec -= SETTLED_SECONDS;
  return before(m->st.st_mtim, limit) && before(m->st.st_ctim, limit);
}

static bool copy_scan(const file_scan *from, file_scan *to) {
  *to = *from;
  to->items = from->count ? calloc(from->count, sizeof *to->items) : NULL;
  if (from->count && !to->items) return false;
  for (size_t i = 0; i < from->count; i++) {
    to->items[i] = from->items[i];
    if (!(to->items[i].name = tcmma__compile_strdup(from->items[i].name))) {
      to->count = i;
      return false;
    }
  }
  return true;
}

static void memo_load(void);

static bool memo_get(const char *path, const struct stat *st, file_scan *out) {
  bool hit = false;
  pthread_once(&memo_loaded, memo_load);
  pthread_mutex_lock(&memo_lock);
  for (size_t i = 0; i < memo_count && !hit; i++)
    if (strcmp(memo[i].path, path) == 0 && same_file(&memo[i].st, st) && memo_trusted(&memo[i])) {
      hit = copy_scan(&memo[i].result, out);
      if (!hit) file_scan_free(out);
    }
  pthread_mutex_unlock(&memo_lock);
  return hit;
}

static void memo_put(const char *path, const struct stat *st, struct timespec at,
                     const file_scan *f) {
  memo_entry e = {.st = *st, .at = at};
  if (!memo_trusted(&e)) return; /* not settled: read it again next time */
  if (!(e.path = tcmma__compile_strdup(path))) return;
  if (!copy_scan(f, &e.result)) {
    file_scan_free(&e.result);
    free(e.path);
    return;
  }
  pthread_mutex_lock(&memo_lock);
  for (size_t i = 0; i < memo_count; i++)
    if (strcmp(memo[i].path, path) == 0) { /* replace the stale one */
      free(memo[i].path), file_scan_free(&memo[i].result);
      memo[i] = e;
      memo_dirty = true;
      pthread_mutex_unlock(&memo_lock);
      return;
    }
  if (memo_count < MEMO_MAX) memo[memo_count++] = e, memo_dirty = true;
  else free(e.path), file_scan_free(&e.result);
  pthread_mutex_unlock(&memo_lock);
}

/* ---- the memo across processes ----
 * A fresh process would read and hash every header again (the 23 files
 * mma.h pulls in: most of a disk hit's time). So the memo is kept in the
 * disk cache too, as one entry (HMAC'd under the user's secret, like every
 * entry): each remembered read with the stat it was made at. It stands for
 * a file only on the very terms it does in memory (same device, inode,
 * size, mtime and ctime, settled when read: memo_trusted). */

static void memo_disk_key(unsigned char key[32]) {
  static const char domain[] = "tcmma " TCMMA_VERSION " include memo 2";
  tcmma__sha256_state h;
  tcmma__sha256_init(&h);
  tcmma__sha256_update(&h, domain, sizeof domain);
  tcmma__sha256_final(&h, key);
}

typedef struct {
  const unsigned char *p, *end;
  bool ok;
} reader;

static uint64_t get_u64(reader *r) {
  uint64_t v = 0;
  if (r->end - r->p < 8) return r->ok = false, 0;
  for (int i = 0; i < 8; i++) v |= (uint64_t)r->p[i] << (8 * i);
  r->p += 8;
  return v;
}

/* A NUL-free string of n bytes, copied; NULL (r->ok false) when it is not. */
static char *get_text(reader *r, uint64_t n) {
  if (!r->ok || n == 0 || n > PATH_MAX || (uint64_t)(r->end - r->p) < n ||
      memchr(r->p, '\0', (size_t)n))
    return r->ok = false, NULL;
  char *t = malloc((size_t)n + 1);
  if (!t) return r->ok = false, NULL;
  memcpy(t, r->p, (size_t)n);
  t[n] = '\0';
  r->p += n;
  return t;
}

static bool get_entry(reader *r, memo_entry *e) {
  memset(e, 0, sizeof *e);
  e->path = get_text(r, get_u64(r));
  e->st.st_dev = (dev_t)get_u64(r), e->st.st_ino = (ino_t)get_u64(r);
  e->st.st_size = (off_t)get_u64(r);
  e->st.st_mtim.tv_sec = (time_t)get_u64(r), e->st.st_mtim.tv_nsec = (long)get_u64(r);
  e->st.st_ctim.tv_sec = (time_t)get_u64(r), e->st.st_ctim.tv_nsec = (long)get_u64(r);
  e->at.tv_sec = (time_t)get_u64(r), e->at.tv_nsec = (long)get_u64(r);
  e->result.trigraph_line = (int)get_u64(r);
  e->result.clock_line = (int)get_u64(r), e->result.clock_macro = (int)get_u64(r);
  if (e->result.clock_macro < 0 || e->result.clock_macro > (int)CLOCK_MACROS) r->ok = false;
  uint64_t count = get_u64(r);
  if (r->ok && (r->end - r->p < 32 || count > FILES_MAX)) r->ok = false;
  if (r->ok) memcpy(e->result.digest, r->p, 32), r->p += 32;
  if (r->ok && count && !(e->result.items = calloc((size_t)count, sizeof *e->result.items)))
    r->ok = false;
  for (uint64_t i = 0; r->ok && i < count; i++) {
    directive *d = &e->result.items[e->result.count];
    uint64_t flags = get_u64(r);
    d->next = flags & 1, d->exists_only = (flags >> 1) & 1;
    d->form = (flags >> 2) & 1 ? INC_ANGLE : INC_QUOTE;
    if ((d->name = get_text(r, get_u64(r)))) e->result.count++;
  }
  if (r->ok && memo_trusted(e)) return true;
  free(e->path), file_scan_free(&e->result);
  return false;
}

static void memo_load(void) {
  unsigned char key[32];
  memo_disk_key(key);
  void *data = NULL;
  size_t len = 0;
  if (!tcmma__cache_blob_get(key, TCMMA__CACHE_ENTRY_SUFFIX, &data, &len)) return;
  reader r = {data, (const unsigned char *)data + len, true};
  pthread_mutex_lock(&memo_lock);
  while (r.ok && r.p < r.end && memo_count < MEMO_MAX) {
    memo_entry e;
    if (get_entry(&r, &e)) memo[memo_count++] = e;
  }
  pthread_mutex_unlock(&memo_lock);
  free(data);
}

static void put_u64(tcmma_buf *b, uint64_t v) {
  unsigned char p[8];
  for (int i = 0; i < 8; i++) p[i] = (unsigned char)(v >> (8 * i));
  tcmma_buf_append(b, (const char *)p, 8);
}

/* Writes the memo to the disk cache when it gained entries. */
static void memo_save(void) {
  tcmma_buf b = {0};
  pthread_mutex_lock(&memo_lock);
  bool dirty = memo_dirty;
  memo_dirty = false;
  for (size_t i = 0; dirty && i < memo_count; i++) {
    const memo_entry *e = &memo[i];
    put_u64(&b, strlen(e->path)), tcmma_buf_append(&b, e->path, strlen(e->path));
    uint64_t f[] = {(uint64_t)e->st.st_dev, (uint64_t)e->st.st_ino, (uint64_t)e->st.st_size,
                    (uint64_t)e->st.st_mtim.tv_sec, (uint64_t)e->st.st_mtim.tv_nsec,
                    (uint64_t)e->st.st_ctim.tv_sec, (uint64_t)e->st.st_ctim.tv_nsec,
                    (uint64_t)e->at.tv_sec, (uint64_t)e->at.tv_nsec,
                    (uint64_t)e->result.trigraph_line, (uint64_t)e->result.clock_line,
                    (uint64_t)e->result.clock_macro, e->result.count};
    for (size_t k = 0; k < sizeof f / sizeof f[0]; k++) put_u64(&b, f[k]);
    tcmma_buf_append(&b, (const char *)e->result.digest, 32);
    for (size_t k = 0; k < e->result.count; k++) {
      const directive *d = &e->result.items[k];
      put_u64(&b, (uint64_t)d->next | (uint64_t)d->exists_only << 1 |
                      (uint64_t)(d->form == INC_ANGLE) << 2);
      put_u64(&b, strlen(d->name)), tcmma_buf_append(&b, d->name, strlen(d->name));
    }
  }
  pthread_mutex_unlock(&memo_lock);
  if (dirty && !b.failed && b.len) {
    unsigned char key[32];
    memo_disk_key(key);
    tcmma__cache_blob_put(key, TCMMA__CACHE_ENTRY_SUFFIX, b.data, b.len);
  }
  tcmma_buf_free(&b);
}

/* Reads and scans the regular file at path (tcmma__table_open_file: a FIFO
 * or device is refused, never read). Read to its end, whatever its st_size
 * says; a file whose stat does not describe its bytes (procfs: size 0) is
 * read again every time, never remembered by its stat. */
static void read_file_scan(const char *path, file_scan *f) {
  memset(f, 0, sizeof *f);
  struct stat st, after;
  int fd = tcmma__table_open_file(path, &st, f->problem, sizeof f->problem);
  if (fd < 0) return;
  if (memo_get(path, &st, f)) {
    close(fd);
    return;
  }
  struct timespec at;
  clock_gettime(CLOCK_REALTIME, &at);
  char *text = NULL;
  size_t len = 0;
  if (!tcmma__table_read_fd(fd, path, FILE_BYTES_MAX, &text, &len, f->problem,
                            sizeof f->problem)) {
    close(fd);
    return;
  }
  bool changed = fstat(fd, &after) != 0 || !same_file(&st, &after);
  close(fd);
  if (changed) {
    snprintf(f->problem, sizeof f->problem, "%.200s changed while it was read", path);
    free(text);
    return;
  }
  tcmma__sha256_state h;
  tcmma__sha256_init(&h);
  tcmma__sha256_update(&h, text, len);
  tcmma__sha256_final(&h, f->digest);
  scan_directives(text, len, path, f);
  free(text);
  if (!f->problem[0] && (off_t)len == st.st_size) memo_put(path, &st, at, f);
}

/* ---- resolving, with the open files on a stack of their own ----
 * (the files being read nest as deep as the includes: DEPTH_MAX levels of a
 * few KiB each on the thread's stack overflowed small thread stacks) */

/* One file being scanned: its directives and where the search for the
 * current one stands, so that it resumes once an included file is done. */
typedef struct frame {
  file_scan f;
  char *dir;      /* its directory, for "x" */
  size_t item;    /* the directive being resolved */
  size_t cand;    /* its next candidate: 0 dir, i the -I directory i - 1 */
  bool started;   /* item's spelling is in the key */
  bool found;     /* item matched some candidate */
  bool done;      /* no more candidates for item */
} frame;

static bool seen_before(scan *s, const char *path) {
  for (size_t i = 0; i < s->n_seen; i++)
    if (strcmp(s->seen[i], path) == 0) return true;
  if (s->n_seen == s->seen_cap) {
    size_t cap = s->seen_cap ? 2 * s->seen_cap : 64;
    char **grown = realloc(s->seen, cap * sizeof *grown);
    if (!grown) return uncertain(s, "out of memory scanning includes"), true;
    s->seen = grown, s->seen_cap = cap;
  }
  if (!(s->seen[s->n_seen] = tcmma__compile_strdup(path)))
    return uncertain(s, "out of memory"), true;
  s->n_seen++;
  return false;
}

/* dir/name, made absolute against the current directory. */
static bool join(const char *dir, const char *name, char *out, size_t cap) {
  int w = name[0] == '/' ? snprintf(out, cap, "%s", name) : snprintf(out, cap, "%s/%s", dir, name);
  return w > 0 && (size_t)w < cap;
}

/* Whether path names something: 1 a regular file, 0 nothing (the search goes
 * on), -1 anything else (uncertain: what NVRTC makes of it is not known),
 * -2 a FIFO, socket or device (NVRTC would block on it, or read forever). */
static int probe(const char *path) {
  struct stat st;
  if (stat(path, &st) == 0) {
    if (S_ISREG(st.st_mode)) return 1;
    return S_ISFIFO(st.st_mode) || S_ISSOCK(st.st_mode) || S_ISCHR(st.st_mode) ||
                   S_ISBLK(st.st_mode) ? -2 : -1;
  }
  return errno == ENOENT || errno == ENOTDIR ? 0 : -1;
}

static void frames_pop(scan *s) {
  frame *fr = &s->frames[--s->n_frames];
  file_scan_free(&fr->f);
  free(fr->dir);
}

/* Puts f (taken over) for the file at path on the stack. */
static void frames_push(scan *s, const char *path, file_scan *f) {
  if (s->n_frames == s->frames_cap) {
    size_t cap = s->frames_cap ? 2 * s->frames_cap : 16;
    frame *grown = realloc(s->frames, cap * sizeof *grown);
    if (!grown) {
      file_scan_free(f);
      return uncertain(s, "out of memory scanning includes");
    }
    s->frames = grown, s->frames_cap = cap;
  }
  frame *fr = &s->frames[s->n_frames];
  memset(fr, 0, sizeof *fr);
  fr->f = *f;
  if (!(fr->dir = tcmma__compile_strdup(path))) {
    file_scan_free(f);
    return uncertain(s, "out of memory scanning includes");
  }
  char *slash = strrchr(fr->dir, '/'); /* path is absolute */
  if (slash == fr->dir) slash[1] = '\0';
  else if (slash) *slash = '\0';
  s->n_frames++;
}

static void clock_note(scan *s, const char *where, const file_scan *f) {
  uncertain(s, "%s:%d: uses %s, whose value is the time of the compile", where, f->clock_line,
            clock_macros[f->clock_macro - 1]);
}

/* Reads the file at path, included at depth n_frames: its digest into the
 * key, and, the first time it is met, its directives onto the stack. */
static void enter(scan *s, const char *path) {
  if (s->n_frames > DEPTH_MAX) return uncertain(s, "includes nested deeper than %d", DEPTH_MAX);
  file_scan f;
  read_file_scan(path, &f);
  if (f.problem[0] || (s->trigraphs && f.trigraph_line) || f.clock_line) {
    if (f.problem[0]) uncertain(s, "%s", f.problem);
    else if (f.clock_line) clock_note(s, path, &f);
    else uncertain(s, "%s:%d: a trigraph under a standard before C++17", path, f.trigraph_line);
    return file_scan_free(&f);
  }
  add_part(s, f.digest, sizeof f.digest);
  if (seen_before(s, path)) return file_scan_free(&f);
  if (s->n_seen > FILES_MAX) {
    uncertain(s, "more than %d included files", FILES_MAX);
    return file_scan_free(&f);
  }
  frames_push(s, path, &f);
}

/* Resolves the directives of the files on the stack, depth first: each
 * include's spelling, what it resolved to (or that it did not) and the
 * included file's own, in the order the preprocessor meets them. Goes on
 * after the compile is known uncertain (only a FIFO or device stops it:
 * NVRTC must not be given one). */
static void walk(scan *s) {
  while (s->n_frames && !s->fatal) {
    size_t top = s->n_frames - 1;
    frame *fr = &s->frames[top];
    if (fr->item == fr->f.count) {
      frames_pop(s);
      continue;
    }
    const directive *d = &fr->f.items[fr->item];
    bool absolute = d->name[0] == '/';
    if (!fr->started) {
      add_text(s, d->exists_only ? "has_include" : d->next ? "include_next" : "include");
      add_text(s, d->form == INC_QUOTE ? "\"" : "<");
      add_text(s, d->name);
      fr->started = true;
      fr->cand = absolute || d->form == INC_QUOTE ? 0 : 1; /* 0: the includer's directory */
    }
    bool entered = false;
    while (!fr->done && fr->cand <= s->n_dirs && !s->fatal && !entered) {
      size_t i = fr->cand++;
      char path[PATH_MAX];
      if (!join(i == 0 ? fr->dir : s->dirs[i - 1], d->name, path, sizeof path)) {
        uncertain(s, "a path longer than PATH_MAX");
        fr->done = true;
        break;
      }
      int kind = probe(path);
      if (kind == -2) {
        s->fatal = true;
        snprintf(s->note, s->note_cap, "#include \"%s\" names %.*s, not a regular file (a FIFO, "
                 "socket or device): NVRTC would block reading it", d->name, PATH_MAX, path);
        break;
      }
      if (kind < 0) {
        uncertain(s, "%s is not a regular file (or cannot be read)", path);
        fr->done = true;
        break;
      }
      if (absolute) fr->done = true;
      if (kind == 1) {
        fr->found = true;
        add_text(s, path);
        if (!d->next) fr->done = true; /* include_next: every match */
        if (!d->exists_only) {
          size_t before = s->n_frames;
          enter(s, path);
          entered = s->n_frames > before;
          fr = &s->frames[top]; /* the stack may have moved */
          d = &fr->f.items[fr->item];
        }
      }
    }
    if (entered || s->fatal) continue;
    if (!fr->found) add_text(s, "(not found)");
    fr->item++, fr->started = fr->found = fr->done = false;
  }
}

/* ---- the option list ---- */

static bool starts(const char *s, const char *prefix) {
  return strncmp(s, prefix, strlen(prefix)) == 0;
}

static bool add_dir(scan *s, const char *cwd, const char *dir) {
  char abs[PATH_MAX];
  if (!*dir || !join(cwd, dir, abs, sizeof abs)) return false;
  char **grown = realloc(s->dirs, (s->n_dirs + 1) * sizeof *grown);
  if (!grown) return false;
  s->dirs = grown;
  return (s->dirs[s->n_dirs] = tcmma__compile_strdup(abs)) ? (s->n_dirs++, true) : false;
}

/* Options naming a file NVRTC reads or writes besides the includes (NVRTC's
 * option list, nvrtc.h; --no-source-include changes where "x" is looked
 * for): a compile given one is never cached, since the key cannot cover
 * what the file holds, and a hit would not write it. Matched alone or
 * before "=". */
static const char *const file_options[] = {
    "--pre-include", "-include", "--no-source-include", "-no-source-include", "--pch", "-pch",
    "--create-pch", "-create-pch", "--use-pch", "-use-pch", "--pch-dir", "-pch-dir", "--time",
    "-time", "--fdevice-time-trace", "-fdevice-time-trace", "--options-file", "-optf"};
/* ptxas's own, inside --ptxas-options / -Xptxas (a list split by blanks or ',') */
static const char *const ptxas_file_options[] = {"--options-file", "-optf"};

static bool option_named(const char *o, const char *name) {
  size_t n = strlen(name);
  return strncmp(o, name, n) == 0 && (o[n] == '\0' || o[n] == '=');
}

/* Whether the ptxas option list v names one of ptxas_file_options. */
static bool ptxas_reads_file(const char *v) {
  for (size_t k = 0; k < sizeof ptxas_file_options / sizeof *ptxas_file_options; k++) {
    const char *name = ptxas_file_options[k];
    size_t n = strlen(name);
    for (const char *p = v; (p = strstr(p, name)); p += n)
      if ((p == v || blank(p[-1]) || p[-1] == ',' || p[-1] == '=') &&
          (!p[n] || blank(p[n]) || p[n] == '=' || p[n] == ','))
        return true;
  }
  return false;
}

/* The name of the file_options row o is, or NULL. */
static const char *file_option(const char *o) {
  for (size_t k = 0; k < sizeof file_options / sizeof *file_options; k++)
    if (option_named(o, file_options[k])) return file_options[k];
  return NULL;
}

/* The -I directories, in order; options that read files another way make
 * the compile uncertain (read on after one: the directories still matter
 * for finding a FIFO). */
static void read_options(scan *s, const char *cwd, const char *const *options, size_t n) {
  for (size_t i = 0; i < n; i++) {
    const char *o = options[i];
    const char *dir = NULL;
    if (strcmp(o, "-I") == 0 || strcmp(o, "--include-path") == 0) {
      if (i + 1 >= n) return uncertain(s, "option %s without a directory", o);
      dir = options[++i];
    } else if (starts(o, "--include-path=")) {
      dir = o + strlen("--include-path=");
    } else if (starts(o, "-I")) {
      dir = o + 2;
    } else if (starts(o, "-std=") || starts(o, "--std=")) {
      const char *v = strchr(o, '=') + 1;
      s->trigraphs = strcmp(v, "c++03") == 0 || strcmp(v, "c++11") == 0 || strcmp(v, "c++14") == 0;
    } else if (option_named(o, "--ptxas-options") || option_named(o, "-Xptxas")) {
      const char *v = strchr(o, '=') ? strchr(o, '=') + 1 : i + 1 < n ? options[++i] : "";
      if (ptxas_reads_file(v))
        uncertain(s, "option %s%s%s names a file ptxas reads (not in the cache key)", o,
                  strchr(o, '=') ? "" : " ", strchr(o, '=') ? "" : v);
    } else if (file_option(o)) {
      uncertain(s, "option %s names a file NVRTC reads or writes (%s: not in the cache key)", o,
                file_option(o));
    } else if (!starts(o, "-D") && !starts(o, "--define-macro") && !starts(o, "-U") &&
               !starts(o, "--undefine-macro") && (strstr(o, "include") || strstr(o, "pch"))) {
      /* any other spelling of the kind: files tcmma does not follow */
      uncertain(s, "option %s reads files tcmma does not follow", o);
    }
    if (dir && (!*dir || blank(*dir) || blank(dir[strlen(dir) - 1]) || !add_dir(s, cwd, dir)))
      uncertain(s, "include directory option '%s'", o);
  }
}

/* 1 certain, 0 uncertain (note says why), -1 the compile must not run (note
 * names the file NVRTC would block on). */
int tcmma__cache_include_scan(const char *source, size_t len, const char *name,
                              const char *const *options, size_t n_options,
                              tcmma__sha256_state *key, char *note, size_t note_cap) {
  scan s = {.key = key, .note = note, .note_cap = note_cap, .certain = true};
  if (note && note_cap) note[0] = '\0';
  char cwd[PATH_MAX], dir[PATH_MAX];
  if (!getcwd(cwd, sizeof cwd)) {
    uncertain(&s, "the current directory is unknown (%s)", strerror(errno));
    return 0;
  }
  read_options(&s, cwd, options, n_options);
  /* the source's own directory: the program name's, else the current one */
  const char *slash = name ? strrchr(name, '/') : NULL;
  char named[PATH_MAX];
  int w = slash ? snprintf(named, sizeof named, "%.*s", (int)(slash - name), name)
                : snprintf(named, sizeof named, "%s", cwd);
  if (w < 0 || (size_t)w >= sizeof named ||
      !join(cwd, slash == name ? "/" : named, dir, sizeof dir)) {
    uncertain(&s, "the program name '%.200s' is longer than PATH_MAX", name);
    snprintf(dir, sizeof dir, "%s", cwd);
  }
  file_scan f = {0};
  const char *where = name ? name : "the source";
  scan_directives(source, len, where, &f);
  if (f.problem[0]) uncertain(&s, "%s", f.problem);
  else if (f.clock_line) clock_note(&s, where, &f);
  else if (s.trigraphs && f.trigraph_line)
    uncertain(&s, "%s:%d: a trigraph under a standard before C++17", where, f.trigraph_line);
  add_text(&s, "includes");
  add_text(&s, dir);
  /* the source is the stack's root: "x" is looked for in dir */
  char root[PATH_MAX + 2];
  snprintf(root, sizeof root, "%s/", dir);
  frames_push(&s, root, &f);
  walk(&s);
  while (s.n_frames) frames_pop(&s);
  for (size_t i = 0; i < s.n_dirs; i++) free(s.dirs[i]);
  for (size_t i = 0; i < s.n_seen; i++) free(s.seen[i]);
  free(s.dirs), free(s.seen), free(s.frames);
  memo_save();
  return s.fatal ? -1 : s.certain;
}

bool tcmma__cache_include_deps(const char *source, size_t len, const char *name,
                               const char *const *options, size_t n_options,
                               tcmma__sha256_state *key, char *note, size_t note_cap) {
  return tcmma__cache_include_scan(source, len, name, options, n_options, key, note,
                                   note_cap) == 1;
}
