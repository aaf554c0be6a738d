/* Keeping the disk cache bounded and clean: temporary files a killed writer
 * left behind are swept once they are old, and past the size bound the
 * least recently used entries go first (a hit touches its entry). Also the
 * survey and the clearing behind `tcmma cache`. */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "nvrtc/internal.h"
#include "tables/decimal.h"

#define STALE_TEMP_SECONDS 600 /* a writer takes milliseconds; ten minutes is dead */
#define TEMP_MARK ".tmp."

bool tcmma__cache_max_bytes(unsigned long long *out) {
  const char *v = getenv("TCMMA_CACHE_MAX_BYTES");
  long long n = TCMMA__CACHE_MAX_BYTES_DEFAULT;
  if (v && *v && !tcmma__table_decimal(v, 1, LLONG_MAX, &n)) return false;
  if (out) *out = (unsigned long long)n;
  return true;
}

static bool ends_with(const char *name, const char *suffix) {
  size_t n = strlen(name), k = strlen(suffix);
  return n > k && strcmp(name + n - k, suffix) == 0;
}

/* A compile's entry or a facts file (nvrtc/internal.h). */
static bool is_entry(const char *name) {
  return ends_with(name, TCMMA__CACHE_ENTRY_SUFFIX) || ends_with(name, TCMMA__CACHE_FACTS_SUFFIX);
}

static bool is_temp(const char *name) { return strstr(name, TEMP_MARK) != NULL; }

typedef struct {
  char name[128];
  unsigned long long size;
  struct timespec used;
} item;

static int older(const void *a, const void *b) {
  const struct timespec *x = &((const item *)a)->used, *y = &((const item *)b)->used;
  if (x->tv_sec != y->tv_sec) return x->tv_sec < y->tv_sec ? -1 : 1;
  return x->tv_nsec < y->tv_nsec ? -1 : x->tv_nsec > y->tv_nsec;
}

/* Walks the directory at dirfd: calls back for each entry and temporary
 * file (regular files only; a name of anything else is skipped). */
typedef void (*visit_fn)(int dirfd, const char *name, const struct stat *st, bool temp, void *ctx);

static void walk(int dirfd, visit_fn visit, void *ctx) {
  int fd = dup(dirfd);
  DIR *d = fd >= 0 ? fdopendir(fd) : NULL;
  if (!d) {
    if (fd >= 0) close(fd);
    return;
  }
  rewinddir(d);
  for (struct dirent *e; (e = readdir(d));) {
    bool temp = is_temp(e->d_name);
    struct stat st;
    if ((!temp && !is_entry(e->d_name)) ||
        fstatat(dirfd, e->d_name, &st, AT_SYMLINK_NOFOLLOW) != 0 || !S_ISREG(st.st_mode))
      continue;
    visit(dirfd, e->d_name, &st, temp, ctx);
  }
  closedir(d);
}

typedef struct {
  item *items;
  size_t count, cap;
  unsigned long long bytes;
  time_t now;
} upkeep;

static void upkeep_visit(int dirfd, const char *name, const struct stat *st, bool temp, void *ctx) {
  upkeep *u = ctx;
  if (temp) {
    if (st->st_mtime < u->now - STALE_TEMP_SECONDS) unlinkat(dirfd, name, 0);
    return;
  }
  if (u->count == u->cap) {
    size_t cap = u->cap ? 2 * u->cap : 64;
    item *grown = realloc(u->items, cap * sizeof *grown);
    if (!grown) return;
    u->items = grown, u->cap = cap;
  }
  if (strlen(name) >= sizeof u->items[0].name) return;
  item *it = &u->items[u->count++];
  strcpy(it->name, name);
  it->size = (unsigned long long)st->st_size;
  it->used = st->st_mtim;
  u->bytes += it->size;
}

void tcmma__cache_upkeep(int dirfd, unsigned long long max_bytes) {
  upkeep u = {.now = time(NULL)};
  walk(dirfd, upkeep_visit, &u);
  if (u.bytes > max_bytes && u.count) {
    qsort(u.items, u.count, sizeof *u.items, older);
    for (size_t i = 0; i < u.count && u.bytes > max_bytes; i++)
      if (unlinkat(dirfd, u.items[i].name, 0) == 0 || errno == ENOENT) u.bytes -= u.items[i].size;
  }
  free(u.items);
}

typedef struct {
  size_t entries, temps;
  unsigned long long bytes;
  bool remove;
  time_t now;
} survey;

static void survey_visit(int dirfd, const char *name, const struct stat *st, bool temp, void *ctx) {
  survey *s = ctx;
  if (s->remove) {
    /* clearing leaves a temporary file a writer may still be renaming */
    if (temp && st->st_mtime >= s->now - STALE_TEMP_SECONDS) return;
    if (unlinkat(dirfd, name, 0) != 0) return;
  }
  if (temp) s->temps++;
  else s->entries++, s->bytes += (unsigned long long)st->st_size;
}

void tcmma__cache_survey(int dirfd, bool remove, size_t *entries, unsigned long long *bytes,
                         size_t *temps) {
  survey s = {.remove = remove, .now = time(NULL)};
  walk(dirfd, survey_visit, &s);
  if (entries) *entries = s.entries;
  if (bytes) *bytes = s.bytes;
  if (temps) *temps = s.temps;
}
