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

/* 5: the log keeps ptxas -v's lines (a batch reads each kernel's figures
 * from them); 4 had them dropped, so its entries are misses */
static const char magic[] = "TCMMA-CACHE-5\n";
#define MAGIC_LEN (sizeof magic - 1)
/* ptxas's figures of a CUBIN compile (tcmma_program's ptxas fields), kept
 * with the entry so that a hit need not read them from its log again */
#define FACTS 6
/* after the magic: the key, then little-endian u64: the status, the lengths
 * of the PTX (+1, 0 for none), the CUBIN, the log and the message, then the
 * FACTS */
#define FIELDS_AT (MAGIC_LEN + 32)
#define N_FIELDS (5 + FACTS)
#define MAC_AT (FIELDS_AT + 8 * N_FIELDS)
#define HEADER_LEN (MAC_AT + 32)
#define MEMORY_ENTRIES 256
#define MAX_PAYLOAD ((uint64_t)1 << 30)

/* An entry's payload: a compile's outcome (TCMMA_OK, or TCMMA_COMPILE when
 * NVRTC or ptxas rejected the source: the log and message say why, and a
 * ptxas rejection keeps the PTX it rejected). */
typedef struct {
  unsigned char key[32];
  tcmma_status status;
  char *ptx;             /* NULL: none */
  size_t ptx_len;
  unsigned char *cubin;
  size_t cubin_len;
  char *log, *message;
  uint32_t facts[FACTS];
} entry;

static void facts_of(const tcmma_program *p, uint32_t f[FACTS]) {
  f[0] = p->ptxas_info, f[1] = (uint32_t)p->registers, f[2] = (uint32_t)p->spill_store_bytes;
  f[3] = (uint32_t)p->spill_load_bytes, f[4] = (uint32_t)p->stack_bytes;
  f[5] = (uint32_t)p->shared_bytes;
}

static void facts_to(tcmma_program *p, const uint32_t f[FACTS]) {
  p->ptxas_info = f[0] != 0, p->registers = (int)f[1], p->spill_store_bytes = (int)f[2];
  p->spill_load_bytes = (int)f[3], p->stack_bytes = (int)f[4], p->shared_bytes = (int)f[5];
}

static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static entry memory[MEMORY_ENTRIES];
static size_t memory_next; /* ring: the oldest entry is replaced first */
static size_t memory_used; /* memory[0..memory_used) hold entries: a fresh process reads no more */
static char degraded_dir[PATH_MAX];
static char warning[PATH_MAX + 512];

tcmma_status tcmma__cache_check_setting(tcmma_error *err) {
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
  free(e->ptx), free(e->cubin), free(e->log), free(e->message);
  memset(e, 0, sizeof *e);
}

void tcmma_cache_clear_memory(void) {
  pthread_mutex_lock(&lock);
  for (size_t i = 0; i < memory_used; i++) entry_free(&memory[i]);
  memory_next = memory_used = 0;
  pthread_mutex_unlock(&lock);
}

/* A NUL-terminated copy of n bytes (NULL stays NULL); *failed on no memory. */
static char *copy_text(const char *s, size_t n, bool *failed) {
  if (!s) return NULL;
  char *d = malloc(n + 1);
  if (!d) return *failed = true, NULL;
  memcpy(d, s, n);
  d[n] = '\0';
  return d;
}

/* A deep copy of from into *to; false (to empty) on no memory. */
static bool entry_copy(const entry *from, entry *to) {
  bool failed = false;
  *to = *from;
  to->ptx = copy_text(from->ptx, from->ptx_len, &failed);
  to->cubin = NULL;
  if (from->cubin_len && !(to->cubin = malloc(from->cubin_len))) failed = true;
  else if (from->cubin_len) memcpy(to->cubin, from->cubin, from->cubin_len);
  to->log = copy_text(from->log, from->log ? strlen(from->log) : 0, &failed);
  to->message = copy_text(from->message, from->message ? strlen(from->message) : 0, &failed);
  if (failed) entry_free(to);
  return !failed;
}

/* The outcome of e into out (its PTX, CUBIN and log), *status and message. */
static bool entry_to_program(const entry *e, tcmma_program *out, tcmma_status *status,
                             char *message, size_t cap) {
  entry copy;
  if (!entry_copy(e, &copy)) return false;
  free(out->ptx), free(out->cubin), free(out->log);
  out->ptx = copy.ptx, out->ptx_len = copy.ptx ? copy.ptx_len : 0;
  out->cubin = copy.cubin, out->cubin_len = copy.cubin_len;
  out->log = copy.log ? copy.log : tcmma__compile_strdup("");
  facts_to(out, copy.facts);
  *status = copy.status;
  snprintf(message, cap, "%s", copy.message ? copy.message : "");
  free(copy.message);
  return out->log != NULL;
}

static void entry_name(const unsigned char key[32], const char *suffix, char name[96]) {
  char hex[65];
  tcmma__sha256_hex(key, hex);
  snprintf(name, 96, "%s%s", hex, suffix);
}

static void put_u64(unsigned char *p, uint64_t v) {
  for (int i = 0; i < 8; i++) p[i] = (unsigned char)(v >> (8 * i));
}

static uint64_t get_u64(const unsigned char *p) {
  uint64_t v = 0;
  for (int i = 0; i < 8; i++) v |= (uint64_t)p[i] << (8 * i);
  return v;
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

/* The payload's parts in file order, with their lengths. */
typedef struct {
  const void *part[4];
  uint64_t len[4];
} parts;

static parts parts_of(const entry *e) {
  return (parts){{e->ptx, e->cubin, e->log, e->message},
                 {e->ptx ? e->ptx_len : 0, e->cubin_len, e->log ? strlen(e->log) : 0,
                  e->message ? strlen(e->message) : 0}};
}

static void mac(const tcmma__cache_dir *d, const unsigned char *head, const parts *p,
                unsigned char out[32]) {
  tcmma__sha256_hmac_state h;
  tcmma__sha256_hmac_init(&h, d->secret, sizeof d->secret);
  tcmma__sha256_hmac_update(&h, head, MAC_AT);
  for (int i = 0; i < 4; i++)
    if (p->len[i]) tcmma__sha256_hmac_update(&h, p->part[i], (size_t)p->len[i]);
  tcmma__sha256_hmac_final(&h, out);
}

/* Reads the entry named by key and suffix into *out; anything amiss (not a
 * regular file of the user's, short, another key, a MAC the secret does not
 * give) is a miss. A hit touches the entry: eviction goes by last use. */
static bool disk_lookup(const tcmma__cache_dir *d, const unsigned char key[32],
                        const char *suffix, entry *out) {
  char name[96];
  entry_name(key, suffix, name);
  int fd = openat(d->fd, name, O_RDONLY | O_NONBLOCK | O_NOFOLLOW | O_CLOEXEC | O_NOCTTY);
  if (fd < 0) return false;
  unsigned char head[HEADER_LEN], sum[32];
  unsigned char *payload = NULL;
  bool ok = false;
  struct stat st;
  memset(out, 0, sizeof *out);
  if (fstat(fd, &st) != 0 || !S_ISREG(st.st_mode) || st.st_uid != geteuid() ||
      !read_all(fd, head, HEADER_LEN) || memcmp(head, magic, MAGIC_LEN) != 0 ||
      memcmp(head + MAGIC_LEN, key, 32) != 0)
    goto done;
  uint64_t f[N_FIELDS], total = 0;
  for (int i = 0; i < N_FIELDS; i++) f[i] = get_u64(head + FIELDS_AT + 8 * i);
  uint64_t len[4] = {f[1] ? f[1] - 1 : 0, f[2], f[3], f[4]};
  for (int i = 0; i < 4; i++) {
    if (len[i] > MAX_PAYLOAD) goto done;
    total += len[i];
  }
  if (f[0] != TCMMA_OK && f[0] != TCMMA_COMPILE) goto done;
  if ((uint64_t)st.st_size != HEADER_LEN + total) goto done;
  payload = malloc(total + 1);
  if (!payload || !read_all(fd, payload, (size_t)total)) goto done;
  parts p = {{payload, payload + len[0], payload + len[0] + len[1],
              payload + len[0] + len[1] + len[2]},
             {len[0], len[1], len[2], len[3]}};
  mac(d, head, &p, sum);
  if (!same_mac(sum, head + MAC_AT)) goto done;
  bool failed = false;
  memcpy(out->key, key, 32);
  out->status = (tcmma_status)f[0];
  out->ptx = f[1] ? copy_text((const char *)p.part[0], len[0], &failed) : NULL;
  out->ptx_len = len[0];
  if (len[1] && (out->cubin = malloc(len[1]))) memcpy(out->cubin, p.part[1], len[1]);
  else if (len[1]) failed = true;
  out->cubin_len = len[1];
  out->log = copy_text((const char *)p.part[2], len[2], &failed);
  out->message = copy_text((const char *)p.part[3], len[3], &failed);
  for (int i = 0; i < FACTS; i++) {
    if (f[5 + i] > UINT32_MAX) failed = true;
    out->facts[i] = (uint32_t)f[5 + i];
  }
  ok = !failed;
  if (!ok) entry_free(out);
  if (ok) futimens(fd, NULL);
done:
  free(payload);
  close(fd);
  return ok;
}

static int injected_failures, injected_errno; /* tests: tcmma__cache_inject_store_failures */

void tcmma__cache_inject_store_failures(int n, int error) {
  pthread_mutex_lock(&lock);
  injected_failures = n, injected_errno = error;
  pthread_mutex_unlock(&lock);
}

static bool injected_failure(void) {
  pthread_mutex_lock(&lock);
  bool fail = injected_failures > 0;
  if (fail) injected_failures--, errno = injected_errno;
  pthread_mutex_unlock(&lock);
  return fail;
}

/* The bytes an entry takes on disk. */
static unsigned long long entry_bytes(const entry *e) {
  parts p = parts_of(e);
  unsigned long long n = HEADER_LEN;
  for (int i = 0; i < 4; i++) n += p.len[i];
  return n;
}

/* Writes the entry (0600) under a temporary name and renames it into place;
 * false with errno set to the first failure's. */
static bool disk_store(const tcmma__cache_dir *d, const char *suffix, const entry *e) {
  char name[96], tmp[128], hex[17];
  if (injected_failure()) return false;
  entry_name(e->key, suffix, name);
  tcmma__cache_random_hex(hex, 8);
  snprintf(tmp, sizeof tmp, "%s.tmp.%s", name, hex);
  int fd = openat(d->fd, tmp, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0600);
  if (fd < 0) return false;
  parts p = parts_of(e);
  unsigned char head[HEADER_LEN];
  memcpy(head, magic, MAGIC_LEN);
  memcpy(head + MAGIC_LEN, e->key, 32);
  uint64_t f[N_FIELDS] = {(uint64_t)e->status, e->ptx ? e->ptx_len + 1 : 0, p.len[1], p.len[2],
                          p.len[3]};
  for (int i = 0; i < FACTS; i++) f[5 + i] = e->facts[i];
  for (int i = 0; i < N_FIELDS; i++) put_u64(head + FIELDS_AT + 8 * i, f[i]);
  mac(d, head, &p, head + MAC_AT);
  bool ok = write_all(fd, head, HEADER_LEN);
  for (int i = 0; i < 4 && ok; i++) ok = !p.len[i] || write_all(fd, p.part[i], (size_t)p.len[i]);
  int saved = errno;
  ok = (close(fd) == 0) && ok;
  if (ok && renameat(d->fd, tmp, d->fd, name) != 0) ok = false, saved = errno;
  if (!ok) {
    unlinkat(d->fd, tmp, 0);
    errno = saved;
  }
  return ok;
}

static void memory_store(const entry *e) {
  entry copy;
  if (!entry_copy(e, &copy)) return;
  pthread_mutex_lock(&lock);
  for (size_t i = 0; i < memory_used; i++)
    if (memory[i].log && memcmp(memory[i].key, e->key, 32) == 0) {
      pthread_mutex_unlock(&lock);
      entry_free(&copy);
      return;
    }
  entry *slot = &memory[memory_next];
  memory_next = (memory_next + 1) % MEMORY_ENTRIES;
  if (memory_used < MEMORY_ENTRIES) memory_used++;
  entry_free(slot);
  *slot = copy;
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

bool tcmma__cache_lookup(const unsigned char key[32], tcmma_program *out, tcmma_status *status,
                         char *message, size_t cap) {
  bool hit = false;
  pthread_mutex_lock(&lock);
  for (size_t i = 0; i < memory_used && !hit; i++)
    if (memory[i].log && memcmp(memory[i].key, key, 32) == 0)
      hit = entry_to_program(&memory[i], out, status, message, cap);
  pthread_mutex_unlock(&lock);
  if (hit) return true;
  char path[PATH_MAX];
  tcmma__cache_dir d;
  if (!open_disk(false, path, sizeof path, &d)) return false;
  entry e;
  hit = d.has_secret && disk_lookup(&d, key, TCMMA__CACHE_ENTRY_SUFFIX, &e);
  tcmma__cache_close(&d);
  if (!hit) return false;
  hit = entry_to_program(&e, out, status, message, cap);
  if (hit) memory_store(&e);
  entry_free(&e);
  return hit;
}

/* Stores e on disk under suffix, then the upkeep. A store that fails (a
 * full disk) makes room, evicting, and is tried once more; failing again it
 * is recorded for tcmma_cache_info and this process degrades to memory. */
static void store_on_disk(const entry *e, const char *suffix) {
  char path[PATH_MAX];
  tcmma__cache_dir d;
  if (!open_disk(true, path, sizeof path, &d)) return;
  unsigned long long max_bytes = TCMMA__CACHE_MAX_BYTES_DEFAULT;
  tcmma__cache_max_bytes(&max_bytes);
  bool stored = disk_store(&d, suffix, e);
  if (!stored) {
    tcmma__cache_make_room(d.fd, max_bytes);
    stored = disk_store(&d, suffix, e);
  }
  if (stored) {
    tcmma__cache_stored(d.fd, entry_bytes(e), max_bytes);
  } else {
    char why[TCMMA__CACHE_ERROR_MAX];
    snprintf(why, sizeof why, "storing an entry failed after evicting: %s", strerror(errno));
    tcmma__cache_store_failed(d.fd, why);
    degrade(path, "cache directory %s is not writable (%s): caching in memory only", path,
            strerror(errno));
  }
  tcmma__cache_close(&d);
}

void tcmma__cache_store(const unsigned char key[32], const tcmma_program *p, tcmma_status status,
                        const char *message) {
  if (status != TCMMA_OK && status != TCMMA_COMPILE) return;
  entry e = {.status = status, .ptx = p->ptx, .ptx_len = p->ptx_len, .cubin = p->cubin,
             .cubin_len = p->cubin_len, .log = p->log ? p->log : "",
             .message = (char *)(message ? message : "")};
  facts_of(p, e.facts);
  memcpy(e.key, key, 32);
  memory_store(&e);
  store_on_disk(&e, TCMMA__CACHE_ENTRY_SUFFIX);
}

bool tcmma__cache_blob_get(const unsigned char key[32], const char *suffix, void **data,
                           size_t *len) {
  char path[PATH_MAX];
  tcmma__cache_dir d;
  if (!open_disk(false, path, sizeof path, &d)) return false;
  entry e;
  bool hit = d.has_secret && disk_lookup(&d, key, suffix, &e);
  tcmma__cache_close(&d);
  if (!hit) return false;
  *data = e.cubin, *len = e.cubin_len;
  e.cubin = NULL;
  entry_free(&e);
  return *data != NULL;
}

void tcmma__cache_blob_put(const unsigned char key[32], const char *suffix, const void *data,
                           size_t len) {
  entry e = {.status = TCMMA_OK, .cubin = (unsigned char *)data, .cubin_len = len, .log = "",
             .message = ""};
  memcpy(e.key, key, 32);
  if (len) store_on_disk(&e, suffix);
}

/* ---- tcmma cache ---- */

tcmma_status tcmma_cache_info_get(tcmma_cache_info *out, tcmma_error *err) {
  if (!out) return tcmma_fail(err, TCMMA_INVALID, "tcmma_cache_info_get: out is NULL");
  memset(out, 0, sizeof *out);
  tcmma_status st = tcmma__cache_check_setting(err);
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
  if (d.fd >= 0)
    tcmma__cache_failures(d.fd, &out->store_failures, out->last_error, sizeof out->last_error);
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
  if (d.fd >= 0) tcmma__cache_state_reset(d.fd);
  tcmma__cache_close(&d);
  tcmma_cache_clear_memory();
  if (removed) removed->entries = entries, removed->bytes = bytes, removed->temp_files = temps;
  return TCMMA_OK;
}
