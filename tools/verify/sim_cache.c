/* The sim module in the disk cache (tools/verify/sim_cache.h): a blob of
 * the public blob cache (tcmma_cache_key_make, _store, _fetch in
 * tcmma/compile.h), so the same per-user 0700 directory, HMAC'd 0600 files,
 * size bound and `tcmma cache clear` hold for it; a shared object is only
 * ever loaded from bytes this user's secret signed. The harness builds
 * against the installed library: it calls nothing else of the cache. */
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "tcmma/tcmma.h"
#include "tools/verify/sim_cache.h"

/* Variables through which the C compiler finds other headers or programs
 * than its command line says: with any set, the key cannot know them. */
static const char *const search_vars[] = {"CPATH", "C_INCLUDE_PATH", "GCC_EXEC_PREFIX",
                                          "COMPILER_PATH", "CCACHE_DIR"};

static char *read_whole(const char *path, size_t *len) {
  FILE *f = fopen(path, "rb");
  if (!f) return NULL;
  size_t cap = 1 << 16, n = 0, got;
  char *buf = malloc(cap);
  while (buf && (got = fread(buf + n, 1, cap - n, f)) > 0) {
    n += got;
    if (n == cap) {
      char *grown = realloc(buf, cap * 2);
      if (!grown) free(buf);
      buf = grown, cap *= 2;
    }
  }
  bool bad = ferror(f) != 0;
  fclose(f);
  if (bad) return free(buf), NULL;
  *len = n;
  return buf;
}

bool sim_cache_key(const char *source, const char *compiler, const char *const *argv,
                   size_t argc, unsigned char key[32]) {
  for (size_t i = 0; i < sizeof search_vars / sizeof *search_vars; i++)
    if (getenv(search_vars[i])) return false;
  size_t len = 0;
  char *text = read_whole(source, &len);
  if (!text) return false;
  /* The module's directory is a fresh mkdtemp holding nothing but the
   * module, so a quoted include never resolves there; in the key a directory
   * that cannot hold files (/dev/null/) stands for it, and the key does not
   * depend on the random name. */
  tcmma_cache_inputs in = TCMMA_CACHE_INPUTS_INIT;
  in.domain = "sim module";
  in.parts = argv, in.n_parts = argc;
  in.program = compiler;
  in.source = text, in.source_len = len, in.source_name = "/dev/null/module.c";
  tcmma_cache_key k;
  bool certain = tcmma_cache_key_make(&in, &k, NULL) == TCMMA_OK;
  free(text);
  if (certain) memcpy(key, k.bytes, sizeof k.bytes);
  return certain;
}

bool sim_cache_get(const unsigned char key[32], const char *so) {
  void *data = NULL;
  size_t len = 0;
  bool hit = false;
  tcmma_cache_key k;
  memcpy(k.bytes, key, sizeof k.bytes);
  if (tcmma_cache_fetch(&k, &data, &len, &hit, NULL) != TCMMA_OK || !hit) return false;
  int fd = open(so, O_WRONLY | O_CREAT | O_TRUNC | O_NOFOLLOW | O_CLOEXEC, 0600);
  bool ok = fd >= 0;
  for (size_t at = 0; ok && at < len;) {
    ssize_t w = write(fd, (const char *)data + at, len - at);
    ok = w > 0;
    if (ok) at += (size_t)w;
  }
  if (fd >= 0 && close(fd) != 0) ok = false;
  free(data);
  if (!ok) unlink(so);
  return ok;
}

void sim_cache_put(const unsigned char key[32], const char *so) {
  size_t len = 0;
  char *data = read_whole(so, &len);
  tcmma_cache_key k;
  memcpy(k.bytes, key, sizeof k.bytes);
  if (data && len) tcmma_cache_store(&k, data, len, NULL);
  free(data);
}
