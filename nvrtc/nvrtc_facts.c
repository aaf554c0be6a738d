/* NVRTC's facts — version, supported archs, which a/f targets it takes, its
 * library, the toolkit's include directories and its exact build — known
 * without loading it where it can be (docs/design.md §9). Loading the 110 MB
 * library costs a fresh process more than a disk-cache hit itself, yet the
 * cache key and the options need only these facts. So the disk cache keeps
 * a facts file per NVRTC build, keyed by the library file's identity (real
 * path, GNU build-id, size, mtime, inode: nvrtc/library_id.c) and written
 * the first time that very library loads. A later process finds the library
 * the loader would try first (the first candidate path that is a file; a
 * bare soname leaves the choice to the loader, and then NVRTC loads), reads
 * its identity from the file, and takes the facts file for it; the builtin
 * headers' library (beside NVRTC, as nvrtc.c pins it) and the include
 * directories are read afresh. A changed library has another identity:
 * its facts are not found and NVRTC loads. */
#include <limits.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include "tcmma/tcmma.h"
#include "nvrtc/internal.h"
#include "nvrtc/sha256.h"

#define ACCEPTS_MAX 64

static struct {
  tcmma_status status;
  char message[TCMMA_ERROR_MAX];
  tcmma__nvrtc_facts facts;
  bool from_disk;           /* read from a facts file: NVRTC not loaded for them */
  bool keyed;               /* key names the facts file of facts.info.library */
  unsigned char key[32];
  struct {
    int arch;
    char suffix;
    bool ok;
  } accepts[ACCEPTS_MAX];
  size_t n_accepts;
} known;

static pthread_once_t once = PTHREAD_ONCE_INIT;
static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;

/* The facts file's key: the library path as tried and its file's identity
 * (real: its real path, NULL for none). */
static bool facts_key(const char *library, const char *real, unsigned char key[32]) {
  char id[PATH_MAX + 256];
  if (!strchr(library, '/') || !real ||
      !tcmma__nvrtc_resolved_library_identity(real, id, sizeof id))
    return false;
  tcmma__sha256_state s;
  tcmma__sha256_init(&s);
  static const char domain[] = "tcmma " TCMMA_VERSION " nvrtc facts";
  tcmma__sha256_update(&s, domain, sizeof domain);
  tcmma__sha256_update(&s, library, strlen(library) + 1);
  tcmma__sha256_update(&s, id, strlen(id) + 1);
  tcmma__sha256_final(&s, key);
  return true;
}

/* "version M m\narchs A B ...\naccepts 90a+ 75a- ...\n": what no file tells. */
static void encode(char *buf, size_t cap) {
  size_t n = (size_t)snprintf(buf, cap, "version %d %d\narchs", known.facts.info.major,
                              known.facts.info.minor);
  for (size_t i = 0; i < known.facts.n_archs && n < cap; i++)
    n += (size_t)snprintf(buf + n, cap - n, " %d", known.facts.archs[i]);
  if (n < cap) n += (size_t)snprintf(buf + n, cap - n, "\naccepts");
  for (size_t i = 0; i < known.n_accepts && n < cap; i++)
    n += (size_t)snprintf(buf + n, cap - n, " %d%c%c", known.accepts[i].arch,
                          known.accepts[i].suffix, known.accepts[i].ok ? '+' : '-');
  if (n < cap) snprintf(buf + n, cap - n, "\n");
}

/* Reads encode's text into known; false when it is not exactly that. */
static bool decode(const char *text) {
  int used = 0;
  tcmma__nvrtc_facts *f = &known.facts;
  if (sscanf(text, "version %d %d\narchs%n", &f->info.major, &f->info.minor, &used) != 2 ||
      !used)
    return false;
  const char *p = text + used;
  f->n_archs = 0;
  for (int a, k; *p == ' ' && sscanf(p, " %d%n", &a, &k) == 1; p += k) {
    if (f->n_archs == TCMMA_ARCH_MAX_ARCHS || a <= 0) return false;
    f->archs[f->n_archs++] = a;
  }
  if (strncmp(p, "\naccepts", 8) != 0 || !f->n_archs) return false;
  p += 8;
  known.n_accepts = 0;
  for (int a, k; *p == ' ';) {
    char suffix, ok;
    if (sscanf(p, " %d%c%c%n", &a, &suffix, &ok, &k) != 3 || known.n_accepts == ACCEPTS_MAX ||
        (suffix != 'a' && suffix != 'f') || (ok != '+' && ok != '-'))
      return false;
    known.accepts[known.n_accepts++] = (__typeof__(known.accepts[0])){a, suffix, ok == '+'};
    p += k;
  }
  return strcmp(p, "\n") == 0;
}

static void store(void) {
  char text[2048];
  encode(text, sizeof text);
  if (known.keyed) tcmma__cache_blob_put(known.key, TCMMA__CACHE_FACTS_SUFFIX, text, strlen(text));
}

/* The facts of the library the loader would take first, from its facts
 * file; false when they cannot be known so (NVRTC must load). */
static bool from_disk(void) {
  if (tcmma__cache_setting() != 1) return false;
  char paths[TCMMA__NVRTC_CANDIDATES][4096];
  int n = tcmma__nvrtc_candidates(paths);
  for (int i = 0; i < n; i++) {
    struct stat st;
    if (!strchr(paths[i], '/')) return false; /* a soname: the loader's search decides */
    if (stat(paths[i], &st) != 0 || !S_ISREG(st.st_mode)) continue; /* dlopen would fail */
    void *data = NULL;
    size_t len = 0;
    char real[PATH_MAX];
    if (!realpath(paths[i], real) || !facts_key(paths[i], real, known.key) ||
        !tcmma__cache_blob_get(known.key, TCMMA__CACHE_FACTS_SUFFIX, &data, &len))
      return false;
    char *text = malloc(len + 1);
    bool ok = text != NULL;
    if (ok) memcpy(text, data, len), text[len] = '\0';
    ok = ok && memchr(data, '\0', len) == NULL && decode(text);
    free(text), free(data);
    tcmma__nvrtc_facts *f = &known.facts;
    ok = ok && (size_t)snprintf(f->info.library, sizeof f->info.library, "%s", paths[i]) <
                   sizeof f->info.library;
    if (ok) tcmma__nvrtc_include_dirs(real, &f->info);
    ok = ok && tcmma__nvrtc_identity_of(paths[i], real, f->info.major, f->info.minor, false,
                                        f->identity, sizeof f->identity);
    known.keyed = ok;
    return ok;
  }
  return false;
}

static void find(void) {
  if (from_disk()) {
    known.from_disk = true;
    known.status = TCMMA_OK;
    return;
  }
  memset(&known, 0, sizeof known);
  tcmma_error err;
  const tcmma__nvrtc_facts *loaded = tcmma__nvrtc_loaded(&err);
  if (!loaded) {
    known.status = err.status;
    snprintf(known.message, sizeof known.message, "%s", err.message);
    return;
  }
  known.facts = *loaded;
  known.status = TCMMA_OK;
  char real[PATH_MAX];
  known.keyed = facts_key(loaded->info.library,
                          realpath(loaded->info.library, real) ? real : NULL, known.key);
  store();
}

static const tcmma__nvrtc_facts *facts(tcmma_error *err) {
  pthread_once(&once, find);
  if (known.status != TCMMA_OK) {
    tcmma_fail(err, known.status, "%s", known.message);
    return NULL;
  }
  return &known.facts;
}

const tcmma_nvrtc_info *tcmma__nvrtc_info(void) {
  const tcmma__nvrtc_facts *f = facts(NULL);
  return f ? &f->info : NULL;
}

const char *tcmma__nvrtc_identity(void) {
  const tcmma__nvrtc_facts *f = facts(NULL);
  return f ? f->identity : NULL;
}

bool tcmma__nvrtc_facts_current(void) {
  const tcmma__nvrtc_facts *f = facts(NULL), *loaded = tcmma__nvrtc_loaded(NULL);
  return f && loaded && strcmp(f->identity, loaded->identity) == 0;
}

tcmma_status tcmma_nvrtc_facts(tcmma_nvrtc_info *info, tcmma_error *err) {
  const tcmma__nvrtc_facts *f = facts(err);
  if (!f) return known.status;
  if (info) *info = f->info;
  return TCMMA_OK;
}

/* Whether NVRTC takes compute_<arch><suffix>: NVRTC 13 lists only numeric
 * archs, so the a/f variants are found by compiling an empty program for
 * them, once per NVRTC build: the answer joins the facts file. */
static bool accepts(int arch, char suffix, void *ctx) {
  (void)ctx;
  pthread_mutex_lock(&lock);
  for (size_t i = 0; i < known.n_accepts; i++)
    if (known.accepts[i].arch == arch && known.accepts[i].suffix == suffix) {
      bool ok = known.accepts[i].ok;
      pthread_mutex_unlock(&lock);
      return ok;
    }
  pthread_mutex_unlock(&lock);
  bool ok = tcmma__nvrtc_probe_arch(arch, suffix);
  pthread_mutex_lock(&lock);
  bool seen = false;
  for (size_t i = 0; i < known.n_accepts; i++)
    seen = seen || (known.accepts[i].arch == arch && known.accepts[i].suffix == suffix);
  if (!seen && known.n_accepts < ACCEPTS_MAX && tcmma__nvrtc_facts_current()) {
    known.accepts[known.n_accepts++] = (__typeof__(known.accepts[0])){arch, suffix, ok};
    store();
  }
  pthread_mutex_unlock(&lock);
  return ok;
}

tcmma_status tcmma_nvrtc_support(tcmma_arch_support *out, tcmma_error *err) {
  const tcmma__nvrtc_facts *f = facts(err);
  if (!f) return known.status;
  memset(out, 0, sizeof *out);
  memcpy(out->archs, f->archs, f->n_archs * sizeof f->archs[0]);
  out->count = f->n_archs;
  out->accepts = accepts;
  return TCMMA_OK;
}
