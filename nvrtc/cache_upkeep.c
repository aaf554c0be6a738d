/* Keeping the disk cache bounded and clean: temporary files a killed writer
 * left behind are swept once they are old, and past the size bound the
 * least recently used entries go first (a hit touches its entry). The walk
 * that finds them is amortised: a small state file keeps a running size
 * estimate, and the directory is walked only when the estimate crosses the
 * bound or every WALK_EVERY stores (walking after every store cost ~0.5 s a
 * store at 100 k entries). The state file also keeps the stores that failed
 * (a full disk), for `tcmma cache`. Also the survey and the clearing. */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/file.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "nvrtc/internal.h"
#include "tables/decimal.h"

#define STALE_TEMP_SECONDS 600 /* a writer takes milliseconds; ten minutes is dead */
#define TEMP_MARK ".tmp."
#define STATE_FILE "upkeep"
#define WALK_EVERY 256          /* stores between walks while the estimate is under the bound */
#define LOW_WATER 10            /* past the bound, evict down to 1 - 1/LOW_WATER of it */
static const char state_magic[16] = "TCMMA-UPKEEP-1\n";
#define ERROR_AT (16 + 3 * 8)
#define STATE_LEN (ERROR_AT + TCMMA__CACHE_ERROR_MAX)

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

static size_t walks; /* this process's, for tests (atomic: stores run in many threads) */

size_t tcmma__cache_upkeep_walks(void) { return __atomic_load_n(&walks, __ATOMIC_RELAXED); }

/* Walks the directory, sweeps stale temporary files and removes the least
 * recently used entries while they exceed target (with half, half of what
 * they are, at most target); the bytes left. */
static unsigned long long evict_to(int dirfd, unsigned long long target, bool half) {
  upkeep u = {.now = time(NULL)};
  __atomic_fetch_add(&walks, 1, __ATOMIC_RELAXED);
  walk(dirfd, upkeep_visit, &u);
  if (half) target = (u.bytes < target ? u.bytes : target) / 2;
  if (u.bytes > target && u.count) {
    qsort(u.items, u.count, sizeof *u.items, older);
    for (size_t i = 0; i < u.count && u.bytes > target; i++)
      if (unlinkat(dirfd, u.items[i].name, 0) == 0 || errno == ENOENT) u.bytes -= u.items[i].size;
  }
  free(u.items);
  return u.bytes;
}

void tcmma__cache_upkeep(int dirfd, unsigned long long max_bytes) {
  evict_to(dirfd, max_bytes, false);
}

/* ---- the state file: estimate, stores since the last walk, failures ---- */

typedef struct {
  uint64_t bytes, stores, failures;
  char error[TCMMA__CACHE_ERROR_MAX];
  bool known; /* read whole; else the estimate is unknown: walk */
} state;

static uint64_t get64(const unsigned char *p) {
  uint64_t v = 0;
  for (int i = 0; i < 8; i++) v |= (uint64_t)p[i] << (8 * i);
  return v;
}

static void put64(unsigned char *p, uint64_t v) {
  for (int i = 0; i < 8; i++) p[i] = (unsigned char)(v >> (8 * i));
}

/* The state file, opened (made when missing) and locked; -1 when it cannot
 * be (then every store walks, as before). */
static int state_open(int dirfd, bool create) {
  int fd = openat(dirfd, STATE_FILE, O_RDWR | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC | O_NOCTTY |
                                         (create ? O_CREAT : 0), 0600);
  struct stat st;
  if (fd < 0) return -1;
  if (fstat(fd, &st) != 0 || !S_ISREG(st.st_mode) || st.st_uid != geteuid() ||
      flock(fd, LOCK_EX) != 0) {
    close(fd);
    return -1;
  }
  return fd;
}

static state state_read(int fd) {
  unsigned char b[STATE_LEN];
  state s = {0};
  if (pread(fd, b, sizeof b, 0) != (ssize_t)sizeof b || memcmp(b, state_magic, 16) != 0)
    return s;
  s.bytes = get64(b + 16), s.stores = get64(b + 24), s.failures = get64(b + 32);
  memcpy(s.error, b + ERROR_AT, sizeof s.error);
  s.error[sizeof s.error - 1] = '\0';
  s.known = true;
  return s;
}

/* Written in place, at a fixed size: a full disk has no room for a new file,
 * but the blocks this one holds are its own. */
static void state_write(int fd, const state *s) {
  unsigned char b[STATE_LEN] = {0};
  memcpy(b, state_magic, 16);
  put64(b + 16, s->bytes), put64(b + 24, s->stores), put64(b + 32, s->failures);
  memcpy(b + ERROR_AT, s->error, strnlen(s->error, sizeof s->error - 1));
  if (pwrite(fd, b, sizeof b, 0) != (ssize_t)sizeof b) return;
}

void tcmma__cache_stored(int dirfd, unsigned long long size, unsigned long long max_bytes) {
  int fd = state_open(dirfd, true);
  state s = fd >= 0 ? state_read(fd) : (state){0};
  s.bytes += size, s.stores++;
  s.error[0] = '\0'; /* a store works again */
  if (!s.known || s.bytes > max_bytes || s.stores >= WALK_EVERY) {
    /* down to the low-water mark: a full cache is not walked again at once */
    s.bytes = evict_to(dirfd, s.bytes > max_bytes ? max_bytes - max_bytes / LOW_WATER : max_bytes,
                       false);
    s.stores = 0;
  }
  if (fd >= 0) state_write(fd, &s), close(fd);
}

void tcmma__cache_make_room(int dirfd, unsigned long long max_bytes) {
  int fd = state_open(dirfd, false);
  state s = fd >= 0 ? state_read(fd) : (state){0};
  /* how much the disk lacks is not known: the older half goes */
  s.bytes = evict_to(dirfd, max_bytes, true);
  s.stores = 0;
  if (fd >= 0) state_write(fd, &s), close(fd);
}

void tcmma__cache_store_failed(int dirfd, const char *error) {
  int fd = state_open(dirfd, false);
  if (fd < 0) return;
  state s = state_read(fd);
  s.failures++;
  snprintf(s.error, sizeof s.error, "%s", error);
  state_write(fd, &s);
  close(fd);
}

void tcmma__cache_failures(int dirfd, size_t *failures, char *error, size_t cap) {
  int fd = state_open(dirfd, false);
  state s = fd >= 0 ? state_read(fd) : (state){0};
  if (fd >= 0) close(fd);
  *failures = (size_t)s.failures;
  snprintf(error, cap, "%s", s.error);
}

void tcmma__cache_state_reset(int dirfd) {
  int fd = state_open(dirfd, false);
  if (fd < 0) return;
  state s = {0};
  s.known = true;
  state_write(fd, &s);
  close(fd);
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
