/* NVRTC loaded with dlopen: the build machines (and users' machines) may
 * lack it, and the library must then answer with a status, not fail to load.
 * Function-pointer types are checked against the toolkit's own nvrtc.h. */
#include <dlfcn.h>
#include <link.h>
#include <limits.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <nvrtc.h>
#include "nvrtc/internal.h"

#ifndef TCMMA_CUDA_HOME
#define TCMMA_CUDA_HOME "/usr/local/cuda"
#endif

#define NVRTC_FUNCTIONS(X)                                                                 \
  X(nvrtcGetErrorString, const char *, (nvrtcResult))                                     \
  X(nvrtcVersion, nvrtcResult, (int *, int *))                                            \
  X(nvrtcGetNumSupportedArchs, nvrtcResult, (int *))                                      \
  X(nvrtcGetSupportedArchs, nvrtcResult, (int *))                                         \
  X(nvrtcCreateProgram, nvrtcResult,                                                      \
    (nvrtcProgram *, const char *, const char *, int, const char *const *,                \
     const char *const *))                                                                \
  X(nvrtcDestroyProgram, nvrtcResult, (nvrtcProgram *))                                   \
  X(nvrtcCompileProgram, nvrtcResult, (nvrtcProgram, int, const char *const *))           \
  X(nvrtcGetPTXSize, nvrtcResult, (nvrtcProgram, size_t *))                               \
  X(nvrtcGetPTX, nvrtcResult, (nvrtcProgram, char *))                                     \
  X(nvrtcGetCUBINSize, nvrtcResult, (nvrtcProgram, size_t *))                             \
  X(nvrtcGetCUBIN, nvrtcResult, (nvrtcProgram, char *))                                   \
  X(nvrtcGetProgramLogSize, nvrtcResult, (nvrtcProgram, size_t *))                        \
  X(nvrtcGetProgramLog, nvrtcResult, (nvrtcProgram, char *))

#define TYPEDEF(name, ret, args)                                                           \
  typedef ret(*name##_fn) args;                                                            \
  _Static_assert(__builtin_types_compatible_p(__typeof__(&name), name##_fn),               \
                 #name " differs from the toolkit's nvrtc.h");
NVRTC_FUNCTIONS(TYPEDEF)
#undef TYPEDEF

static struct {
#define FIELD(name, ret, args) name##_fn name;
  NVRTC_FUNCTIONS(FIELD)
#undef FIELD
  void *handle;
  tcmma_nvrtc_info info;
  char identity[3 * PATH_MAX];   /* the exact build: see find_identity */
  tcmma_status status;
  char message[TCMMA_ERROR_MAX];
  int archs[TCMMA_ARCH_MAX_ARCHS];
  size_t n_archs;
} api;

static pthread_once_t load_once = PTHREAD_ONCE_INIT;

static bool is_file(const char *path) {
  struct stat st;
  return stat(path, &st) == 0 && S_ISREG(st.st_mode);
}

/* The toolkit directories to look in, in order: $CUDA_HOME, the build's
 * CUDA_HOME, /usr/local/cuda (repeats dropped). Returns how many. */
static int toolkit_roots(const char *roots[3]) {
  const char *list[] = {getenv("CUDA_HOME"), TCMMA_CUDA_HOME, "/usr/local/cuda"};
  int n = 0;
  for (int i = 0; i < 3; i++) {
    if (!list[i] || !*list[i]) continue;
    bool seen = false;
    for (int j = 0; j < n; j++) seen = seen || strcmp(roots[j], list[i]) == 0;
    if (!seen) roots[n++] = list[i];
  }
  return n;
}

/* The toolkit include/ next to the loaded library (lib64/.. or
 * targets/<arch>/lib/..), else $CUDA_HOME/include, else the build's. */
static void find_include_dir(void) {
  char candidates[4][PATH_MAX + 32];
  int n = 0;
  struct link_map *lm = NULL;
  char real[PATH_MAX];
  if (dlinfo(api.handle, RTLD_DI_LINKMAP, &lm) == 0 && lm && lm->l_name &&
      realpath(lm->l_name, real)) {
    if (snprintf(api.info.library, sizeof api.info.library, "%s", lm->l_name) < 0)
      api.info.library[0] = '\0';
    char *slash = strrchr(real, '/');
    if (slash) {
      *slash = '\0';
      snprintf(candidates[n++], sizeof candidates[0], "%s/../include", real);
    }
  }
  const char *roots[3];
  for (int i = 0, count = toolkit_roots(roots); i < count; i++)
    snprintf(candidates[n++], sizeof candidates[0], "%s/include", roots[i]);
  for (int i = 0; i < n; i++) {
    char probe[PATH_MAX + 64], dir[PATH_MAX];
    int w = snprintf(probe, sizeof probe, "%s/cuda_bf16.h", candidates[i]);
    if (w < 0 || (size_t)w >= sizeof probe || !is_file(probe) || !realpath(candidates[i], dir))
      continue;
    w = snprintf(api.info.include_dir, sizeof api.info.include_dir, "%s", dir);
    if (w <= 0 || (size_t)w >= sizeof api.info.include_dir) {
      api.info.include_dir[0] = '\0';
      continue;
    }
    /* CUDA 13 keeps libcu++ (<cuda/pipeline>, <cuda/barrier>) in include/cccl */
    char cccl[PATH_MAX + 64];
    w = snprintf(cccl, sizeof cccl, "%s/cccl", dir);
    struct stat st;
    if (w > 0 && (size_t)w < sizeof api.info.cccl_include_dir && stat(cccl, &st) == 0 &&
        S_ISDIR(st.st_mode))
      memcpy(api.info.cccl_include_dir, cccl, (size_t)w + 1);
    return;
  }
}

/* The exact NVRTC build, for the cache key: nvrtcVersion gives only
 * major.minor, so the library file's identity (path, GNU build-id, size,
 * mtime, inode), and that of the builtin-headers library it loads by soname
 * at its first compile. tcmma opens that library itself, now, through the
 * same loader search, and keeps it open: NVRTC's own dlopen of the soname
 * then gets this very one. */
static void find_identity(void) {
  char lib[PATH_MAX + 256], builtins[PATH_MAX + 256] = "none", soname[64];
  if (!tcmma__library_identity(api.info.library, lib, sizeof lib))
    snprintf(lib, sizeof lib, "%.*s (unreadable)", PATH_MAX, api.info.library);
  snprintf(soname, sizeof soname, "libnvrtc-builtins.so.%d.%d", api.info.major, api.info.minor);
  void *b = dlopen(soname, RTLD_LAZY | RTLD_LOCAL);
  struct link_map *lm = NULL;
  if (b && dlinfo(b, RTLD_DI_LINKMAP, &lm) == 0 && lm && lm->l_name &&
      !tcmma__library_identity(lm->l_name, builtins, sizeof builtins))
    snprintf(builtins, sizeof builtins, "%.*s (unreadable)", PATH_MAX, lm->l_name);
  snprintf(api.identity, sizeof api.identity, "nvrtc %d.%d %s; %s %s", api.info.major,
           api.info.minor, lib, soname, builtins);
}

const char *tcmma__nvrtc_identity(void) {
  return tcmma_nvrtc_load(NULL, NULL) == TCMMA_OK ? api.identity : NULL;
}

/* Appends "path (why)" to the list of candidates tried. */
static void note_tried(char *tried, size_t cap, size_t *used, const char *path, const char *why) {
  size_t n = strlen(path);
  /* dlerror() usually starts with the path itself: say it once */
  if (strncmp(why, path, n) == 0 && why[n] == ':') why += n + 1 + (why[n + 1] == ' ');
  int w = snprintf(tried + *used, cap - *used, "%s%s (%s)", *used ? ", " : "", path, why);
  if (w > 0) *used = (size_t)w < cap - *used ? *used + (size_t)w : cap - 1;
}

/* Opens path as NVRTC: every function resolved, version and archs read.
 * NULL when it is not usable, with why (a static or dlerror() text). */
static void *open_candidate(const char *path, char *why, size_t cap) {
  void *h = dlopen(path, RTLD_NOW | RTLD_LOCAL);
  if (!h) {
    const char *e = dlerror();
    snprintf(why, cap, "%s", e ? e : "dlopen failed");
    return NULL;
  }
  api.handle = h;
#define RESOLVE(name, ret, args)                                                           \
  if (!(api.name = (name##_fn)dlsym(h, #name))) {                                          \
    snprintf(why, cap, "lacks %s", #name);                                                 \
    goto unusable;                                                                         \
  }
  NVRTC_FUNCTIONS(RESOLVE)
#undef RESOLVE
  int count = 0;
  if (api.nvrtcVersion(&api.info.major, &api.info.minor) != NVRTC_SUCCESS ||
      api.nvrtcGetNumSupportedArchs(&count) != NVRTC_SUCCESS || count <= 0 ||
      count > TCMMA_ARCH_MAX_ARCHS || api.nvrtcGetSupportedArchs(api.archs) != NVRTC_SUCCESS) {
    snprintf(why, cap, "did not report its version and supported archs (%d archs)", count);
    goto unusable;
  }
  api.n_archs = (size_t)count;
  return h;
unusable:
  dlclose(h);
  api.handle = NULL;
  return NULL;
}

/* Tries the candidates in order (docs/nvrtc.md); one that does not load or
 * is not NVRTC is named with its reason and the next one is tried. */
static void load(void) {
  char tried[TCMMA_ERROR_MAX] = "";
  size_t used = 0;
  char paths[6][PATH_MAX];
  int n = 0;
  const char *forced = getenv("TCMMA_NVRTC");
  if (forced && *forced) {
    snprintf(paths[n++], PATH_MAX, "%s", forced);
  } else {
    const char *roots[3];
    for (int i = 0, count = toolkit_roots(roots); i < count; i++)
      snprintf(paths[n++], PATH_MAX, "%s/lib64/libnvrtc.so", roots[i]);
    snprintf(paths[n++], PATH_MAX, "libnvrtc.so.13");
    snprintf(paths[n++], PATH_MAX, "libnvrtc.so");
  }
  for (int i = 0; i < n && !api.handle; i++) {
    char why[512];
    if (!open_candidate(paths[i], why, sizeof why))
      note_tried(tried, sizeof tried, &used, paths[i], why);
  }
  if (!api.handle) {
    api.status = TCMMA_UNAVAILABLE;
    snprintf(api.message, sizeof api.message,
             "cannot load NVRTC: tried %s (set TCMMA_NVRTC to the library's path)", tried);
    return;
  }
  find_include_dir();
  find_identity();
  api.status = TCMMA_OK;
}

const tcmma_nvrtc_info *tcmma__nvrtc_info(void) {
  pthread_once(&load_once, load);
  return api.status == TCMMA_OK ? &api.info : NULL;
}

tcmma_status tcmma_nvrtc_load(tcmma_nvrtc_info *info, tcmma_error *err) {
  pthread_once(&load_once, load);
  if (api.status != TCMMA_OK) return tcmma_fail(err, api.status, "%s", api.message);
  if (info) *info = api.info;
  return TCMMA_OK;
}


/* First line of log, for a one-line error message. */
static int first_line_len(const char *log) {
  const char *nl = strchr(log, '\n');
  size_t n = nl ? (size_t)(nl - log) : strlen(log);
  return n > 600 ? 600 : (int)n;
}

tcmma_status tcmma_nvrtc_compile_raw(const char *source, size_t len, const char *name,
                                     const char *const *options, size_t n_options,
                                     bool want_cubin, tcmma_program *out, tcmma_error *err) {
  tcmma_status st = tcmma_nvrtc_load(NULL, err);
  if (st != TCMMA_OK) return st;
  out->nvrtc_major = api.info.major, out->nvrtc_minor = api.info.minor;
  if (n_options > INT_MAX) return tcmma_fail(err, TCMMA_INVALID, "too many options");
  char *text = malloc(len + 1);
  if (!text) return tcmma_fail(err, TCMMA_NO_MEMORY, "no memory for a %zu-byte source", len);
  memcpy(text, source, len);
  text[len] = '\0';
  nvrtcProgram prog = NULL;
  nvrtcResult r = api.nvrtcCreateProgram(&prog, text, name, 0, NULL, NULL);
  if (r != NVRTC_SUCCESS) {
    free(text);
    return tcmma_fail(err, r == NVRTC_ERROR_OUT_OF_MEMORY ? TCMMA_NO_MEMORY : TCMMA_COMPILE,
                      "nvrtcCreateProgram: %s", api.nvrtcGetErrorString(r));
  }
  nvrtcResult compiled = api.nvrtcCompileProgram(prog, (int)n_options, options);
  size_t log_size = 0;
  st = TCMMA_OK;
  if (api.nvrtcGetProgramLogSize(prog, &log_size) == NVRTC_SUCCESS &&
      (out->log = malloc(log_size + 1))) {
    if (api.nvrtcGetProgramLog(prog, out->log) != NVRTC_SUCCESS) log_size = 0;
    out->log[log_size] = '\0';
  }
  if (!out->log) out->log = tcmma_strdup("");
  if (compiled != NVRTC_SUCCESS) {
    const char *log = out->log ? out->log : "";
    st = tcmma_fail(err, TCMMA_COMPILE, "NVRTC %d.%d: %s: %.*s%s", api.info.major,
                    api.info.minor, api.nvrtcGetErrorString(compiled), first_line_len(log),
                    log, strchr(log, '\n') ? " (full log in the program)" : "");
  } else {
    size_t n = 0;
    if (api.nvrtcGetPTXSize(prog, &n) != NVRTC_SUCCESS || !(out->ptx = malloc(n + 1)) ||
        api.nvrtcGetPTX(prog, out->ptx) != NVRTC_SUCCESS) {
      st = tcmma_fail(err, TCMMA_NO_MEMORY, "could not fetch %zu bytes of PTX", n);
    } else {
      out->ptx[n] = '\0';
      out->ptx_len = strlen(out->ptx);
    }
    if (st == TCMMA_OK && want_cubin) {
      n = 0;
      if (api.nvrtcGetCUBINSize(prog, &n) != NVRTC_SUCCESS || n == 0 ||
          !(out->cubin = malloc(n)) || api.nvrtcGetCUBIN(prog, (char *)out->cubin) != NVRTC_SUCCESS)
        st = tcmma_fail(err, TCMMA_COMPILE, "NVRTC produced no CUBIN (%zu bytes)", n);
      else
        out->cubin_len = n;
    }
  }
  api.nvrtcDestroyProgram(&prog);
  free(text);
  return st;
}

static pthread_mutex_t accepts_lock = PTHREAD_MUTEX_INITIALIZER;
static struct { int arch; char suffix; bool ok; } accepts_seen[32];
static size_t accepts_count;

/* Whether NVRTC takes compute_<arch><suffix>: NVRTC 13 lists only numeric
 * archs, so the a/f variants are found by compiling an empty program for
 * them (once per process each). */
static bool nvrtc_accepts(int arch, char suffix, void *ctx) {
  (void)ctx;
  pthread_mutex_lock(&accepts_lock);
  for (size_t i = 0; i < accepts_count; i++)
    if (accepts_seen[i].arch == arch && accepts_seen[i].suffix == suffix) {
      bool ok = accepts_seen[i].ok;
      pthread_mutex_unlock(&accepts_lock);
      return ok;
    }
  pthread_mutex_unlock(&accepts_lock);
  char option[64];
  tcmma__arch_option(option, sizeof option, false, arch, suffix);
  const char *opts[] = {option};
  tcmma_program p = {0};
  bool ok = tcmma_nvrtc_compile_raw("", 0, "probe.cu", opts, 1, false, &p, NULL) == TCMMA_OK;
  tcmma_program_free(&p);
  pthread_mutex_lock(&accepts_lock);
  if (accepts_count < sizeof accepts_seen / sizeof accepts_seen[0])
    accepts_seen[accepts_count++] = (__typeof__(accepts_seen[0])){arch, suffix, ok};
  pthread_mutex_unlock(&accepts_lock);
  return ok;
}

tcmma_status tcmma_nvrtc_support(tcmma_arch_support *out, tcmma_error *err) {
  tcmma_status st = tcmma_nvrtc_load(NULL, err);
  if (st != TCMMA_OK) return st;
  memset(out, 0, sizeof *out);
  memcpy(out->archs, api.archs, api.n_archs * sizeof api.archs[0]);
  out->count = api.n_archs;
  out->accepts = nvrtc_accepts;
  return TCMMA_OK;
}
