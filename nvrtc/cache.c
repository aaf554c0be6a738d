/* The compile cache: memory always, disk unless TCMMA_CACHE=0. A disk entry
 * is written to a temporary file and renamed into place, so readers see a
 * whole entry or none; it carries its key and a SHA-256 of everything, so a
 * truncated or corrupted entry is a miss, never a wrong program. */
#include <errno.h>
#include <limits.h>
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include "nvrtc/internal.h"
#include "nvrtc/sha256.h"

static const char magic[] = "TCMMA-CACHE-1\n";
#define MAGIC_LEN (sizeof magic - 1)
#define HEADER_LEN (MAGIC_LEN + 32 + 8 + 8 + 32)
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
static char warning[PATH_MAX + 256];

bool tcmma_cache_dir(char *buf, size_t cap) {
  const char *off = getenv("TCMMA_CACHE");
  if (off && strcmp(off, "0") == 0) return false;
  const char *dir = getenv("TCMMA_CACHE_DIR"), *xdg = getenv("XDG_CACHE_HOME"),
             *home = getenv("HOME");
  int n;
  if (dir && *dir) n = snprintf(buf, cap, "%s", dir);
  else if (xdg && *xdg) n = snprintf(buf, cap, "%s/tcmma", xdg);
  else if (home && *home) n = snprintf(buf, cap, "%s/.cache/tcmma", home);
  else return false;
  if (n < 0 || (size_t)n >= cap) return false;
  pthread_mutex_lock(&lock);
  bool degraded = degraded_dir[0] && strcmp(degraded_dir, buf) == 0;
  pthread_mutex_unlock(&lock);
  return !degraded;
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

static void entry_path(const char *dir, const unsigned char key[32], char *path, size_t cap) {
  char hex[65];
  tcmma_sha256_hex(key, hex);
  snprintf(path, cap, "%s/%s.bin", dir, hex);
}

static void put_u64(unsigned char *p, uint64_t v) {
  for (int i = 0; i < 8; i++) p[i] = (unsigned char)(v >> (8 * i));
}

static uint64_t get_u64(const unsigned char *p) {
  uint64_t v = 0;
  for (int i = 0; i < 8; i++) v |= (uint64_t)p[i] << (8 * i);
  return v;
}

static void checksum(const unsigned char *head, const char *ptx, size_t ptx_len,
                     const unsigned char *cubin, size_t cubin_len, unsigned char out[32]) {
  tcmma_sha256 s;
  tcmma_sha256_init(&s);
  tcmma_sha256_update(&s, head, MAGIC_LEN + 32 + 16);
  tcmma_sha256_update(&s, ptx, ptx_len);
  tcmma_sha256_update(&s, cubin, cubin_len);
  tcmma_sha256_final(&s, out);
}

/* Reads a disk entry; any mismatch (short, wrong key, bad checksum) is a miss. */
static bool disk_lookup(const char *dir, const unsigned char key[32], tcmma_program *out) {
  char path[PATH_MAX + 80];
  entry_path(dir, key, path, sizeof path);
  FILE *f = fopen(path, "rb");
  if (!f) return false;
  unsigned char head[HEADER_LEN], sum[32];
  char *payload = NULL;
  bool ok = false;
  struct stat st;
  if (fread(head, 1, HEADER_LEN, f) != HEADER_LEN || memcmp(head, magic, MAGIC_LEN) != 0 ||
      memcmp(head + MAGIC_LEN, key, 32) != 0 || fstat(fileno(f), &st) != 0)
    goto done;
  uint64_t ptx_len = get_u64(head + MAGIC_LEN + 32), cubin_len = get_u64(head + MAGIC_LEN + 40);
  if (ptx_len > MAX_PAYLOAD || cubin_len > MAX_PAYLOAD ||
      (uint64_t)st.st_size != HEADER_LEN + ptx_len + cubin_len)
    goto done;
  payload = malloc(ptx_len + cubin_len + 1);
  if (!payload || fread(payload, 1, ptx_len + cubin_len, f) != ptx_len + cubin_len) goto done;
  checksum(head, payload, ptx_len, (unsigned char *)payload + ptx_len, cubin_len, sum);
  if (memcmp(sum, head + MAGIC_LEN + 48, 32) != 0) goto done;
  ok = fill(out, payload, ptx_len, (unsigned char *)payload + ptx_len, cubin_len);
done:
  free(payload);
  fclose(f);
  return ok;
}

static bool make_dirs(const char *dir) {
  char path[PATH_MAX];
  if (snprintf(path, sizeof path, "%s", dir) >= (int)sizeof path) return false;
  for (char *p = path + 1; *p; p++) {
    if (*p != '/') continue;
    *p = '\0';
    if (mkdir(path, 0755) != 0 && errno != EEXIST) return false;
    *p = '/';
  }
  return mkdir(path, 0755) == 0 || errno == EEXIST;
}

/* Writes the entry; false with errno set to the first failure's. */
static bool disk_store(const char *dir, const unsigned char key[32], const tcmma_program *p) {
  if (!make_dirs(dir)) return false;
  char path[PATH_MAX + 80], tmp[PATH_MAX + 96];
  entry_path(dir, key, path, sizeof path);
  snprintf(tmp, sizeof tmp, "%s.tmp.XXXXXX", path);
  int fd = mkstemp(tmp);
  if (fd < 0) return false;
  FILE *f = fdopen(fd, "wb");
  if (!f) {
    close(fd), unlink(tmp);
    return false;
  }
  unsigned char head[HEADER_LEN];
  memcpy(head, magic, MAGIC_LEN);
  memcpy(head + MAGIC_LEN, key, 32);
  put_u64(head + MAGIC_LEN + 32, p->ptx_len);
  put_u64(head + MAGIC_LEN + 40, p->cubin_len);
  checksum(head, p->ptx, p->ptx_len, p->cubin, p->cubin_len, head + MAGIC_LEN + 48);
  bool ok = fwrite(head, 1, HEADER_LEN, f) == HEADER_LEN &&
            fwrite(p->ptx, 1, p->ptx_len, f) == p->ptx_len &&
            (p->cubin_len == 0 || fwrite(p->cubin, 1, p->cubin_len, f) == p->cubin_len);
  ok = (fclose(f) == 0) && ok;
  ok = ok && chmod(tmp, 0644) == 0 && rename(tmp, path) == 0;
  if (!ok) {
    int saved = errno;
    unlink(tmp);
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

bool tcmma_cache_lookup(const unsigned char key[32], tcmma_program *out) {
  bool hit = false;
  pthread_mutex_lock(&lock);
  for (size_t i = 0; i < MEMORY_ENTRIES && !hit; i++)
    if (memory[i].ptx && memcmp(memory[i].key, key, 32) == 0)
      hit = fill(out, memory[i].ptx, memory[i].ptx_len, memory[i].cubin, memory[i].cubin_len);
  pthread_mutex_unlock(&lock);
  if (hit) return true;
  char dir[PATH_MAX];
  if (!tcmma_cache_dir(dir, sizeof dir) || !disk_lookup(dir, key, out)) return false;
  memory_store(key, out->ptx, out->ptx_len, out->cubin, out->cubin_len);
  return true;
}

void tcmma_cache_store(const unsigned char key[32], const tcmma_program *p) {
  if (!p->ptx) return;
  memory_store(key, p->ptx, p->ptx_len, p->cubin, p->cubin_len);
  char dir[PATH_MAX];
  if (!tcmma_cache_dir(dir, sizeof dir) || disk_store(dir, key, p)) return;
  int saved = errno;
  pthread_mutex_lock(&lock);
  snprintf(degraded_dir, sizeof degraded_dir, "%s", dir);
  if (!warning[0])
    snprintf(warning, sizeof warning,
             "cache directory %s is not writable (%s): caching in memory only", dir,
             strerror(saved));
  pthread_mutex_unlock(&lock);
}
