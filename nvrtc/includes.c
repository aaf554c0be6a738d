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

/* Skips blanks and comments from p; a block comment may span lines (it is
 * one space), a line comment ends the line: *p is then '\n' or '\0'. */
static const char *skip_blank(const char *p) {
  for (;;) {
    while (blank(*p)) p++;
    if (p[0] == '/' && p[1] == '*') {
      const char *end = strstr(p + 2, "*/");
      if (!end) return p + strlen(p);
      p = end + 2;
    } else if (p[0] == '/' && p[1] == '/') {
      return p + strcspn(p, "\n");
    } else {
      return p;
    }
  }
}

static bool ident_char(char c) {
  return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '_';
}

/* Reads a header-name at p ("x" or <x>, on one line) into *d; NULL when p
 * holds anything else (a macro). Returns the position after it. */
static const char *header_name(const char *p, directive *d) {
  char close = *p == '"' ? '"' : *p == '<' ? '>' : 0;
  if (!close) return NULL;
  const char *end = p + 1 + strcspn(p + 1, close == '"' ? "\"\n" : ">\n");
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
static void directive_at(const char *text, const char *p, const char *where, file_scan *f,
                         size_t *cap) {
  p = skip_blank(p);
  if (*p == '#') p++;
  else if (p[0] == '%' && p[1] == ':') p += 2;
  else return;
  p = skip_blank(p);
  const char *word = p;
  while (ident_char(*p)) p++;
  size_t n = (size_t)(p - word);
  bool next = n == 12 && strncmp(word, "include_next", 12) == 0;
  if (!next && !(n == 7 && strncmp(word, "include", 7) == 0) &&
      !(n == 6 && strncmp(word, "import", 6) == 0))
    return;
  directive d = {.next = next};
  p = skip_blank(p);
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
static void has_include_at(const char *text, const char *p, const char *where, file_scan *f,
                           size_t *cap) {
  const char *word = p;
  p += strlen("__has_include");
  bool next = strncmp(p, "_next", 5) == 0;
  if (next) p += 5;
  if (ident_char(*p) || (word > text && ident_char(word[-1]))) return;
  p = skip_blank(p);
  directive d = {.next = next, .exists_only = true};
  if (*p != '(' || !header_name(skip_blank(p + 1), &d)) {
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

/* Joins the lines that end in a backslash (translation phase 2): a new string. */
static char *join_lines(const char *text, size_t len) {
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
  return out;
}

/* Finds the directives of text (len bytes; where names it in notes), and
 * the first trigraph that could spell a '#' or a line splice. */
static void scan_directives(const char *text, size_t len, const char *where, file_scan *f) {
  if (memchr(text, '\0', len)) {
    snprintf(f->problem, sizeof f->problem, "%s holds a NUL byte", where);
    return;
  }
  char *t = join_lines(text, len);
  if (!t) {
    snprintf(f->problem, sizeof f->problem, "out of memory scanning %s", where);
    return;
  }
  const char *tri = strstr(t, "\?\?=");
  if (!tri) tri = strstr(t, "\?\?/");
  if (tri) f->trigraph_line = line_of(t, tri);
  size_t cap = 0; /* each kind of place found with the C library's fast scans */
  for (const char *p = t; p && !f->problem[0]; p = strchr(p, '\n'), p = p ? p + 1 : NULL)
    directive_at(t, p, where, f, &cap);
  for (const char *p = t; (p = strstr(p, "*/")) && !f->problem[0];)
    directive_at(t, p += 2, where, f, &cap);
  for (const char *p = t; (p = strstr(p, "__has_include")) && !f->problem[0]; p++)
    has_include_at(t, p, where, f, &cap);
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
  static const char domain[] = "tcmma " TCMMA_VERSION " include memo 1";
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
                    (uint64_t)e->result.trigraph_line, e->result.count};
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

/* Reads and scans the regular file at path (opened without blocking, so a
 * FIFO or device never hangs the compile). */
static void read_file_scan(const char *path, file_scan *f) {
  memset(f, 0, sizeof *f);
  int fd = open(path, O_RDONLY | O_NONBLOCK | O_CLOEXEC | O_NOCTTY);
  struct stat st, after;
  if (fd < 0 || fstat(fd, &st) != 0) {
    snprintf(f->problem, sizeof f->problem, "cannot read %.200s: %s", path, strerror(errno));
    if (fd >= 0) close(fd);
    return;
  }
  if (!S_ISREG(st.st_mode) || st.st_size > FILE_BYTES_MAX) {
    snprintf(f->problem, sizeof f->problem, "%.200s is %s", path,
             S_ISREG(st.st_mode) ? "larger than 64 MiB" : "not a regular file");
    close(fd);
    return;
  }
  if (memo_get(path, &st, f)) {
    close(fd);
    return;
  }
  struct timespec at;
  clock_gettime(CLOCK_REALTIME, &at);
  size_t len = (size_t)st.st_size, got = 0;
  char *text = malloc(len + 1);
  while (text && got < len) {
    ssize_t r = read(fd, text + got, len - got);
    if (r < 0 && errno == EINTR) continue;
    if (r <= 0) break;
    got += (size_t)r;
  }
  bool changed = fstat(fd, &after) != 0 || !same_file(&st, &after) || got != len;
  close(fd);
  if (!text || changed) {
    snprintf(f->problem, sizeof f->problem, "%.200s %s while it was read", path,
             text ? "changed" : "(no memory)");
    free(text);
    return;
  }
  tcmma__sha256_state h;
  tcmma__sha256_init(&h);
  tcmma__sha256_update(&h, text, len);
  tcmma__sha256_final(&h, f->digest);
  scan_directives(text, len, path, f);
  free(text);
  if (!f->problem[0]) memo_put(path, &st, at, f);
}

/* ---- resolving, recursively ---- */

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
 * on), -1 anything else (uncertain: what NVRTC makes of it is not known). */
static int probe(const char *path) {
  struct stat st;
  if (stat(path, &st) == 0) return S_ISREG(st.st_mode) ? 1 : -1;
  return errno == ENOENT || errno == ENOTDIR ? 0 : -1;
}

static void scan_file(scan *s, const char *path, int depth);

/* Resolves d as included from a file in dir; records what it found. */
static void resolve(scan *s, const directive *d, const char *dir, int depth) {
  char path[PATH_MAX];
  size_t first = d->form == INC_QUOTE ? 0 : 1; /* candidate 0: the includer's directory */
  bool found = false;
  add_text(s, d->exists_only ? "has_include" : d->next ? "include_next" : "include");
  add_text(s, d->form == INC_QUOTE ? "\"" : "<");
  add_text(s, d->name);
  for (size_t i = d->name[0] == '/' ? 0 : first; i <= s->n_dirs && s->certain; i++) {
    const char *base = i == 0 ? dir : s->dirs[i - 1];
    if (!join(base, d->name, path, sizeof path)) return uncertain(s, "a path longer than PATH_MAX");
    int kind = probe(path);
    if (kind < 0) return uncertain(s, "%s is not a regular file (or cannot be read)", path);
    if (kind == 1) {
      found = true;
      add_text(s, path);
      if (!d->exists_only) scan_file(s, path, depth + 1);
      if (!d->next || d->name[0] == '/') break; /* include_next: every match */
    }
    if (d->name[0] == '/') break;
  }
  if (!found) add_text(s, "(not found)");
}

static void scan_file(scan *s, const char *path, int depth) {
  if (depth > DEPTH_MAX) return uncertain(s, "includes nested deeper than %d", DEPTH_MAX);
  file_scan f;
  read_file_scan(path, &f);
  if (f.problem[0] || (s->trigraphs && f.trigraph_line)) {
    if (f.problem[0]) uncertain(s, "%s", f.problem);
    else uncertain(s, "%s:%d: a trigraph under a standard before C++17", path, f.trigraph_line);
    return file_scan_free(&f);
  }
  add_part(s, f.digest, sizeof f.digest);
  if (!seen_before(s, path)) {
    if (s->n_seen > FILES_MAX) uncertain(s, "more than %d included files", FILES_MAX);
    char dir[PATH_MAX];
    snprintf(dir, sizeof dir, "%s", path);
    *strrchr(dir, '/') = '\0'; /* path is absolute */
    if (!dir[0]) snprintf(dir, sizeof dir, "/");
    for (size_t i = 0; i < f.count && s->certain; i++) resolve(s, &f.items[i], dir, depth);
  }
  file_scan_free(&f);
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

/* The -I directories, in order; options that read files another way make
 * the compile uncertain. */
static void read_options(scan *s, const char *cwd, const char *const *options, size_t n) {
  for (size_t i = 0; i < n && s->certain; i++) {
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
    } else if (!starts(o, "-D") && !starts(o, "--define-macro") && !starts(o, "-U") &&
               !starts(o, "--undefine-macro") && (strstr(o, "include") || strstr(o, "pch"))) {
      /* --pre-include, --no-source-include, PCH: files tcmma does not follow */
      return uncertain(s, "option %s reads files tcmma does not follow", o);
    }
    if (dir && (!*dir || blank(*dir) || blank(dir[strlen(dir) - 1]) || !add_dir(s, cwd, dir)))
      return uncertain(s, "include directory option '%s'", o);
  }
}

bool tcmma__cache_include_deps(const char *source, size_t len, const char *name,
                               const char *const *options, size_t n_options,
                               tcmma__sha256_state *key, char *note, size_t note_cap) {
  scan s = {.key = key, .note = note, .note_cap = note_cap, .certain = true};
  if (note && note_cap) note[0] = '\0';
  char cwd[PATH_MAX], dir[PATH_MAX];
  if (!getcwd(cwd, sizeof cwd)) {
    uncertain(&s, "the current directory is unknown (%s)", strerror(errno));
    return false;
  }
  read_options(&s, cwd, options, n_options);
  /* the source's own directory: the program name's, else the current one */
  const char *slash = name ? strrchr(name, '/') : NULL;
  char named[PATH_MAX];
  int w = slash ? snprintf(named, sizeof named, "%.*s", (int)(slash - name), name)
                : snprintf(named, sizeof named, "%s", cwd);
  if (w < 0 || (size_t)w >= sizeof named ||
      !join(cwd, slash == name ? "/" : named, dir, sizeof dir))
    uncertain(&s, "the program name '%.200s' is longer than PATH_MAX", name);
  file_scan f = {0};
  if (s.certain) {
    const char *where = name ? name : "the source";
    scan_directives(source, len, where, &f);
    if (f.problem[0]) uncertain(&s, "%s", f.problem);
    else if (s.trigraphs && f.trigraph_line)
      uncertain(&s, "%s:%d: a trigraph under a standard before C++17", where, f.trigraph_line);
  }
  add_text(&s, "includes");
  add_text(&s, dir);
  for (size_t i = 0; i < f.count && s.certain; i++) resolve(&s, &f.items[i], dir, 0);
  file_scan_free(&f);
  for (size_t i = 0; i < s.n_dirs; i++) free(s.dirs[i]);
  for (size_t i = 0; i < s.n_seen; i++) free(s.seen[i]);
  free(s.dirs), free(s.seen);
  memo_save();
  return s.certain;
}
