/* nvdisasm found and run for `tcmma bench gemm --static` and `tcmma gemm
 * --tune` (tools/bench_sass.h). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include "bench.h"
#include "bench_sass.h"

/* Whether path names an executable regular file. */
static bool executable(const char *path) {
  struct stat st;
  return stat(path, &st) == 0 && S_ISREG(st.st_mode) && access(path, X_OK) == 0;
}

/* nvdisasm's path into buf: $TCMMA_NVDISASM, PATH, the toolkit's bin/, the
 * pip wheel's (nvidia/<*>/bin/nvdisasm under the nvidia package). */
bool bench_sass_find_nvdisasm(char *buf, size_t cap) {
  const char *env = getenv("TCMMA_NVDISASM");
  if (env && *env) return snprintf(buf, cap, "%s", env), executable(buf);
  const char *path = getenv("PATH");
  for (const char *p = path; p && *p;) {
    size_t len = strcspn(p, ":");
    snprintf(buf, cap, "%.*s/nvdisasm", (int)len, p);
    if (len && executable(buf)) return true;
    p += len + (p[len] == ':');
  }
  snprintf(buf, cap, "/usr/local/cuda/bin/nvdisasm");
  if (executable(buf)) return true;
  FILE *py = popen("python3 -c \"import glob, os, nvidia\n"
                   "for d in nvidia.__path__:\n"
                   "  for p in sorted(glob.glob(os.path.join(d, '*', 'bin', 'nvdisasm'))):\n"
                   "    print(p)\" 2>/dev/null", "r");
  bool found = false;
  while (py && !found && fgets(buf, (int)cap, py)) {
    buf[strcspn(buf, "\n")] = '\0';
    found = executable(buf);
  }
  if (py) pclose(py);
  return found;
}

/* The whole of file path, NUL-terminated (free it); NULL on failure. */
static char *read_all(const char *path) {
  FILE *f = fopen(path, "rb");
  if (!f) return NULL;
  size_t n = 0, cap = 1 << 16;
  char *s = malloc(cap);
  size_t got;
  while (s && (got = fread(s + n, 1, cap - n - 1, f)) > 0) {
    n += got;
    if (cap - n - 1 == 0) {
      char *t = realloc(s, cap *= 2);
      if (!t) free(s);
      s = t;
    }
  }
  fclose(f);
  if (s) s[n] = '\0';
  return s;
}

char *bench_sass_disassemble(const char *nvdisasm, const unsigned char *cubin_bytes, size_t len,
                             char *why, size_t cap) {
  char dir[4096], cubin[4200], sass[4200];
  if (!bench_tmpdir(dir, sizeof dir))
    return snprintf(why, cap, "no scratch directory"), NULL;
  snprintf(cubin, sizeof cubin, "%s/k.cubin", dir);
  snprintf(sass, sizeof sass, "%s/k.sass", dir);
  char *text = NULL;
  FILE *out = NULL;
  if (bench_write_file(cubin, cubin_bytes, len) && (out = fopen(sass, "w"))) {
    const char *argv[] = {nvdisasm, "-c", cubin, NULL};
    bench_time t;
    bool ran = bench_spawn(nvdisasm, argv, NULL, fileno(out), &t);
    fclose(out);
    text = ran ? read_all(sass) : NULL;
    if (!ran) snprintf(why, cap, "%.500s -c failed on the CUBIN", nvdisasm);
  } else {
    snprintf(why, cap, "cannot write the CUBIN under %.500s", dir);
  }
  bench_rmdir(dir);
  return text;
}

