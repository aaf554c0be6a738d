/* The sim module in the disk cache (tools/verify/sim_cache.h): an entry of
 * the compile cache (nvrtc/cache.c), so the same per-user 0700 directory,
 * HMAC'd 0600 files, size bound and `tcmma cache clear` hold for it; a
 * shared object is only ever loaded from bytes this user's secret signed. */
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "nvrtc/internal.h"
#include "nvrtc/sha256.h"
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

static void part(tcmma__sha256_state *s, const void *data, size_t n) {
  unsigned char len[8];
  for (int i = 0; i < 8; i++) len[i] = (unsigned char)((uint64_t)n >> (8 * i));
  tcmma__sha256_update(s, len, 8);
  tcmma__sha256_update(s, data, n);
}

bool sim_cache_key(const char *source, const char *compiler, const char *const *argv,
                   size_t argc, unsigned char key[32]) {
  for (size_t i = 0; i < sizeof search_vars / sizeof *search_vars; i++)
    if (getenv(search_vars[i])) return false;
  char id[8192];
  size_t len = 0;
  if (!tcmma__nvrtc_library_identity(compiler, id, sizeof id)) return false;
  char *text = read_whole(source, &len);
  if (!text) return false;
  tcmma__sha256_state s;
  tcmma__sha256_init(&s);
  static const char domain[] = "tcmma " TCMMA_VERSION " sim module";
  part(&s, domain, sizeof domain);
  part(&s, id, strlen(id));
  for (size_t i = 0; i < argc; i++) part(&s, argv[i], strlen(argv[i]));
  part(&s, text, len);
  /* The module's directory is a fresh mkdtemp holding nothing but the
   * module, so a quoted include never resolves there; in the key a directory
   * that cannot hold files (/dev/null/) stands for it, and the key does not
   * depend on the random name. */
  bool certain =
      tcmma__cache_include_deps(text, len, "/dev/null/module.c", argv, argc, &s, NULL, 0);
  free(text);
  tcmma__sha256_final(&s, key);
  return certain;
}

bool sim_cache_get(const unsigned char key[32], const char *so) {
  void *data = NULL;
  size_t len = 0;
  if (!tcmma__cache_blob_get(key, TCMMA__CACHE_ENTRY_SUFFIX, &data, &len)) return false;
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
  if (data && len) tcmma__cache_blob_put(key, TCMMA__CACHE_ENTRY_SUFFIX, data, len);
  free(data);
}
