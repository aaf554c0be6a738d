/* The compile cache: memory always, disk unless TCMMA_CACHE=0
 * (docs/design.md §9). A disk entry is written to a temporary file and
 * renamed into place, so readers see a whole entry or none; it carries its
 * key and an HMAC-SHA256 of everything under the directory's secret
 * (nvrtc/cache_dir.c), so a truncated, corrupted or planted entry is a miss,
 * never a wrong program. Entries are opened without following links or
 * blocking and must be the user's own regular files (a FIFO in place of one
 * is a miss, not a hang). */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include "nvrtc/internal.h"
#include "nvrtc/sha256.h"

static const char magic[] = "TCMMA-CACHE-2\n";
#define MAGIC_LEN (sizeof magic - 1)
#define MAC_AT (MAGIC_LEN + 32 + 16)
#define HEADER_LEN (MAC_AT + 32)
#define MEMORY_ENTRIES 256
#define MAX_PAYLOAD ((uint64_t)1 << 30)

typedef struct {
  unsigned char key[32];
  char *ptx;
  size_t ptx_len;
  unsigned char *cubin;
  size_t cubin_len;
} entry;

static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static entry memory[MEMORY_ENTRIES];
static size_t memory_next; /* ring: the oldest entry is replaced first */
static char degraded_dir[PATH_MAX];
static char warning[PATH_MAX + 512];

tcmma_status tcmma_cache_check_setting(tcmma_error *err) {
  if (tcmma__cache_setting() < 0)
    return tcmma_fail(err, TCMMA_INVALID,
                      "TCMMA_CACHE='%s': expected 0 (memory cache only) or 1 (disk too, the "
                      "default)", getenv("TCMMA_CACHE"));
  if (!tcmma__cache_max_bytes(NULL))
    return tcmma_fail(err, TCMMA_INVALID,
                      "TCMMA_CACHE_MAX_BYTES='%s': expected a decimal number of bytes from 1 "
                      "(unset: %lld)", getenv("TCMMA_CACHE_MAX_BYTES"),
                      (long long)TCMMA__CACHE_MAX_BYTES_DEFAULT);
  return TCMMA_OK;
}

/* Raises the process's one warning (the first one stays) and stops using
 * dir on disk. */
static void degrade(const char *dir, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void degrade(const char *dir, const char *fmt, ...) {
  pthread_mutex_lock(&lock);
  snprintf(degraded_dir, sizeof degraded_dir, "%s", dir);
  if (!warning[0]) {
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(warning, sizeof warning, fmt, ap);
    va_end(ap);
  }
  pthread_mutex_unlock(&lock);
}

bool tcmma_cache_dir(char *buf, size_t cap) {
  char path[PATH_MAX];
  int got = tcmma__cache_path(path, sizeof path);
  if (got < 0) {
    degrade("", "the cache directory's path is %d bytes, longer than PATH_MAX (%d): caching "
            "in memory only", -got, PATH_MAX);
    return false;
  }
  if (got == 0) return false;
  pthread_mutex_lock(&lock);
  bool degraded = degraded_dir[0] && strcmp(degraded_dir, path) == 0;
  pthread_mutex_unlock(&lock);
  if (degraded || (size_t)snprintf(buf, cap, "%s", path) >= cap) return false;
  return true;
}

const char *tcmma_cache_warning(void) {
  pthread_mutex_lock(&lock);
  const char *w = warning[0] ? warning : NULL;
  pthread_mutex_unlock(&lock);
  return w;
}

static void entry_free(entry *e) {
  free(e->ptx), free(e->cubin);
  memset(e, 0, sizeof *e);
}

void tcmma_cache_clear_memory(void) {
  pthread_mutex_lock(&lock);
  for (size_t i = 0; i < MEMORY_ENTRIES; i++) entry_free(&memory[i]);
  memory_next = 0;
  pthread_mutex_unlock(&lock);
}

static bool fill(tcmma_program *out, const char *ptx, size_t ptx_len, const unsigned char *cubin,
                 size_t cubin_len) {
  out->ptx = malloc(ptx_len + 1);
  out->cubin = cubin_len ? malloc(cubin_len) : NULL;
  if (!out->ptx || (cubin_len && !out->cubin)) {
    free(out->ptx), free(out->cubin);
    out->ptx = NULL, out->cubin = NULL;
    return false;
  }
  memcpy(out->ptx, ptx, ptx_len);
  out->ptx[ptx_len] = '\0';
  out->ptx_len = ptx_len;
  if (cubin_len) memcpy(out->cubin, cubin, cubin_len);
  out->cubin_len = cubin_len;
  return true;
}

static void entry_name(const unsigned char key[32], char name[80]) {
  char hex[65];
  tcmma_sha256_hex(key, hex);
  snprintf(name, 80, "%s.bin", hex);
}

static void put_u64(unsigned char *p, uint64_t v) {
  for (int i = 0; i < 8; i++) p[i] = (unsigned char)(v >> (8 * i));
}

static uint64_t get_u64(const unsigned char *p) {
  uint64_t v = 0;
  for (int i = 0; i < 8; i++) v |= (uint64_t)p[i] << (8 * i);
  return v;
}

static void mac(const tcmma__cache_dir *d, const unsigned char *head, const void *payload,
                size_t n, unsigned char out[32]) {
  tcmma_hmac h;
  tcmma_hmac_init(&h, d->secret, sizeof d->secret);
  tcmma_hmac_update(&h, head, MAC_AT);
  tcmma_hmac_update(&h, payload, n);
  tcmma_hmac_final(&h, out);
}

/* Compares in time independent of where they differ. */
static bool same_mac(const unsigned char *a, const unsigned char *b) {
  unsigned char diff = 0;
  for (int i = 0; i < 32; i++) diff |= a[i] ^ b[i];
  return diff == 0;
}

static bool read_all(int fd, void *buf, size_t n) {
  for (size_t got = 0; got < n;) {
    ssize_t r = read(fd, (char *)buf + got, n - got);
    if (r < 0 && errno == EINTR) continue;
    if (r <= 0) return false;
    got += (size_t)r;
  }
  return true;
}

static bool write_all(int fd, const void *buf, size_t n) {
  for (size_t put = 0; put < n;) {
    ssize_t w = write(fd, (const char *)buf + put, n - put);
    if (w < 0 && errno == EINTR) continue;
    if (w <= 0) return false;
    put += (size_t)w;
  }
  return true;
}

/* Reads an entry; anything amiss (not a regular file of the user's, short,
 * another key, a MAC the secret does not give) is a miss. A hit touches the
 * entry: eviction goes by last use. */
static bool disk_lookup(const tcmma__cache_dir *d, const unsigned char key[32],
                        tcmma_program *out) {
  char name[80];
  entry_name(key, name);
  int fd = openat(d->fd, name, O_RDONLY | O_NONBLOCK | O_NOFOLLOW | O_CLOEXEC | O_NOCTTY);
  if (fd < 0) return false;
  unsigned char head[HEADER_LEN], sum[32];
  char *payload = NULL;
  bool ok = false;
  struct stat st;
  if (fstat(fd, &st) != 0 || !S_ISREG(st.st_mode) || st.st_uid != geteuid() ||
      !read_all(fd, head, HEADER_LEN) || memcmp(head, magic, MAGIC_LEN) != 0 ||
      memcmp(head + MAGIC_LEN, key, 32) != 0)
    goto done;
  uint64_t ptx_len = get_u64(head + MAGIC_LEN + 32), cubin_len = get_u64(head + MAGIC_LEN + 40);
  if (ptx_len > MAX_PAYLOAD || cubin_len > MAX_PAYLOAD ||
      (uint64_t)st.st_size != HEADER_LEN + ptx_len + cubin_len)
    goto done;
  payload = malloc(ptx_len + cubin_len + 1);
  if (!payload || !read_all(fd, payload, ptx_len + cubin_len)) goto done;
  mac(d, head, payload, ptx_len + cubin_len, sum);
  if (!same_mac(sum, head + MAC_AT)) goto done;
  ok = fill(out, payload, ptx_len, (unsigned char *)payload + ptx_len, cubin_len);
  if (ok) futimens(fd, NULL);
done:
  free(payload);
  close(fd);
  return ok;
}

/* Writes the entry (0600) under a temporary name and renames it into place;
 * false with errno set to the first failure's. */
static bool disk_store(const tcmma__cache_dir *d, const unsigned char key[32],
                       const tcmma_program *p) {
  char name[80], tmp[128], hex[17];
  entry_name(key, name);
  tcmma__random_hex(hex, 8);
  snprintf(tmp, sizeof tmp, "%s.tmp.%s", name, hex);
  int fd = openat(d->fd, tmp, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0600);
  if (fd < 0) return false;
  unsigned char head[HEADER_LEN];
  memcpy(head, magic, MAGIC_LEN);
  memcpy(head + MAGIC_LEN, key, 32);
  put_u64(head + MAGIC_LEN + 32, p->ptx_len);
  put_u64(head + MAGIC_LEN + 40, p->cubin_len);
  tcmma_hmac h;
  tcmma_hmac_init(&h, d->secret, sizeof d->secret);
  tcmma_hmac_update(&h, head, MAC_AT);
  tcmma_hmac_update(&h, p->ptx, p->ptx_len);
  if (p->cubin_len) tcmma_hmac_update(&h, p->cubin, p->cubin_len);
  tcmma_hmac_final(&h, head + MAC_AT);
  bool ok = write_all(fd, head, HEADER_LEN) && write_all(fd, p->ptx, p->ptx_len) &&
            (p->cubin_len == 0 || write_all(fd, p->cubin, p->cubin_len));
  int saved = errno;
  ok = (close(fd) == 0) && ok;
  if (ok && renameat(d->fd, tmp, d->fd, name) != 0) ok = false, saved = errno;
  if (!ok) {
    unlinkat(d->fd, tmp, 0);
    errno = saved;
  }
  return ok;
}

static void memory_store(const unsigned char key[32], const char *ptx, size_t ptx_len,
                         const unsigned char *cubin, size_t cubin_len) {
  tcmma_program copy = {0};
  if (!fill(&copy, ptx, ptx_len, cubin, cubin_len)) return;
  pthread_mutex_lock(&lock);
  for (size_t i = 0; i < MEMORY_ENTRIES; i++)
    if (memory[i].ptx && memcmp(memory[i].key, key, 32) == 0) {
      pthread_mutex_unlock(&lock);
      free(copy.ptx), free(copy.cubin);
      return;
    }
  entry *e = &memory[memory_next];
  memory_next = (memory_next + 1) % MEMORY_ENTRIES;
  entry_free(e);
  memcpy(e->key, key, 32);
  e->ptx = copy.ptx, e->ptx_len = copy.ptx_len;
  e->cubin = copy.cubin, e->cubin_len = copy.cubin_len;
  pthread_mutex_unlock(&lock);
}

/* The disk cache directory, opened and vetted; false when the disk cache is
 * off, or the directory is refused (one warning, memory only from then on)
 * or (for a lookup, create false) holds nothing yet. */
static bool open_disk(bool create, char *path, size_t cap, tcmma__cache_dir *d) {
  if (!tcmma_cache_dir(path, cap)) return false;
  char why[512];
  int got = tcmma__cache_open(path, create, d, why, sizeof why);
  if (got < 0)
    degrade(path, "cache directory %s is not usable (%s): caching in memory only", path, why);
  return got > 0;
}

bool tcmma_cache_lookup(const unsigned char key[32], tcmma_program *out) {
  bool hit = false;
  pthread_mutex_lock(&lock);
  for (size_t i = 0; i < MEMORY_ENTRIES && !hit; i++)
    if (memory[i].ptx && memcmp(memory[i].key, key, 32) == 0)
      hit = fill(out, memory[i].ptx, memory[i].ptx_len, memory[i].cubin, memory[i].cubin_len);
  pthread_mutex_unlock(&lock);
  if (hit) return true;
  char path[PATH_MAX];
  tcmma__cache_dir d;
  if (!open_disk(false, path, sizeof path, &d)) return false;
  hit = d.has_secret && disk_lookup(&d, key, out);
  tcmma__cache_close(&d);
  if (hit) memory_store(key, out->ptx, out->ptx_len, out->cubin, out->cubin_len);
  return hit;
}

void tcmma_cache_store(const unsigned char key[32], const tcmma_program *p) {
  if (!p->ptx) return;
  memory_store(key, p->ptx, p->ptx_len, p->cubin, p->cubin_len);
  char path[PATH_MAX];
  tcmma__cache_dir d;
  if (!open_disk(true, path, sizeof path, &d)) return;
  if (disk_store(&d, key, p)) {
    unsigned long long max_bytes = TCMMA__CACHE_MAX_BYTES_DEFAULT;
    tcmma__cache_max_bytes(&max_bytes);
    tcmma__cache_upkeep(d.fd, max_bytes);
  } else {
    degrade(path, "cache directory %s is not writable (%s): caching in memory only", path,
            strerror(errno));
  }
  tcmma__cache_close(&d);
}

/* ---- tcmma cache ---- */

tcmma_status tcmma_cache_info_get(tcmma_cache_info *out, tcmma_error *err) {
  if (!out) return tcmma_fail(err, TCMMA_INVALID, "tcmma_cache_info_get: out is NULL");
  memset(out, 0, sizeof *out);
  tcmma_status st = tcmma_cache_check_setting(err);
  if (st != TCMMA_OK) return st;
  tcmma__cache_max_bytes(&out->max_bytes);
  int got = tcmma__cache_path(out->directory, sizeof out->directory);
  if (got < 0) {
    snprintf(out->problem, sizeof out->problem,
             "the directory's path is %d bytes, longer than PATH_MAX (%d)", -got, PATH_MAX);
    return TCMMA_OK;
  }
  if (got == 0) {
    snprintf(out->problem, sizeof out->problem, "%s",
             tcmma__cache_setting() == 0 ? "TCMMA_CACHE=0: memory only"
                                         : "no TCMMA_CACHE_DIR, XDG_CACHE_HOME or HOME");
    return TCMMA_OK;
  }
  tcmma__cache_dir d;
  if (tcmma__cache_open(out->directory, false, &d, out->problem, sizeof out->problem) < 0)
    return TCMMA_OK;
  out->enabled = true;
  if (d.fd >= 0) tcmma__cache_survey(d.fd, false, &out->entries, &out->bytes, &out->temp_files);
  tcmma__cache_close(&d);
  return TCMMA_OK;
}

tcmma_status tcmma_cache_clear(tcmma_cache_info *removed, tcmma_error *err) {
  tcmma_cache_info info;
  tcmma_status st = tcmma_cache_info_get(&info, err);
  if (st != TCMMA_OK) return st;
  if (removed) *removed = info;
  if (!info.enabled)
    return tcmma_fail(err, info.directory[0] ? TCMMA_IO : TCMMA_UNAVAILABLE,
                      "no disk cache to clear%s%s%s%s", info.directory[0] ? " in " : "",
                      info.directory, info.problem[0] ? ": " : "", info.problem);
  tcmma__cache_dir d;
  char why[512];
  if (tcmma__cache_open(info.directory, false, &d, why, sizeof why) < 0)
    return tcmma_fail(err, TCMMA_IO, "cache directory %s: %s", info.directory, why);
  size_t entries = 0, temps = 0;
  unsigned long long bytes = 0;
  if (d.fd >= 0) tcmma__cache_survey(d.fd, true, &entries, &bytes, &temps);
  tcmma__cache_close(&d);
  tcmma_cache_clear_memory();
  if (removed) removed->entries = entries, removed->bytes = bytes, removed->temp_files = temps;
  return TCMMA_OK;
}
