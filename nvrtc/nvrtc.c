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
#include "tables/file.h"

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
  tcmma__nvrtc_facts facts;      /* version, archs, library, include dirs, identity */
  tcmma_status status;
  char message[TCMMA_ERROR_MAX];
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

void tcmma__nvrtc_include_dirs(const char *real_library, tcmma_nvrtc_info *info) {
  char candidates[4][PATH_MAX + 32];
  int n = 0;
  info->include_dir[0] = info->cccl_include_dir[0] = '\0';
  const char *slash = real_library ? strrchr(real_library, '/') : NULL;
  if (slash)
    snprintf(candidates[n++], sizeof candidates[0], "%.*s/../include",
             (int)(slash - real_library), real_library);
  const char *roots[3];
  for (int i = 0, count = toolkit_roots(roots); i < count; i++)
    snprintf(candidates[n++], sizeof candidates[0], "%s/include", roots[i]);
  for (int i = 0; i < n; i++) {
    char probe[PATH_MAX + 64], dir[PATH_MAX];
    int w = snprintf(probe, sizeof probe, "%s/cuda_bf16.h", candidates[i]);
    if (w < 0 || (size_t)w >= sizeof probe || !is_file(probe) || !realpath(candidates[i], dir))
      continue;
    w = snprintf(info->include_dir, sizeof info->include_dir, "%s", dir);
    if (w <= 0 || (size_t)w >= sizeof info->include_dir) {
      info->include_dir[0] = '\0';
      continue;
    }
    /* CUDA 13 keeps libcu++ (<cuda/pipeline>, <cuda/barrier>) in include/cccl */
    char cccl[PATH_MAX + 64];
    w = snprintf(cccl, sizeof cccl, "%s/cccl", dir);
    struct stat st;
    if (w > 0 && (size_t)w < sizeof info->cccl_include_dir && stat(cccl, &st) == 0 &&
        S_ISDIR(st.st_mode))
      memcpy(info->cccl_include_dir, cccl, (size_t)w + 1);
    return;
  }
}

/* The library the handle loaded, as dlopen recorded it (the path given, or
 * where the soname was found). */
static void loaded_library(void) {
  struct link_map *lm = NULL;
  if (dlinfo(api.handle, RTLD_DI_LINKMAP, &lm) == 0 && lm && lm->l_name &&
      snprintf(api.facts.info.library, sizeof api.facts.info.library, "%s", lm->l_name) < 0)
    api.facts.info.library[0] = '\0';
}

bool tcmma__nvrtc_identity_of(const char *library, const char *real_library, int major,
                              int minor, bool pin, char *out, size_t cap) {
  char lib[PATH_MAX + 256], builtins[PATH_MAX + 256] = "none", soname[64];
  char beside[PATH_MAX + 64] = "";
  if (!real_library || !tcmma__nvrtc_resolved_library_identity(real_library, lib, sizeof lib))
    snprintf(lib, sizeof lib, "%.*s (unreadable)", PATH_MAX, library);
  snprintf(soname, sizeof soname, "libnvrtc-builtins.so.%d.%d", major, minor);
  const char *slash = real_library ? strrchr(real_library, '/') : NULL;
  if (slash)
    snprintf(beside, sizeof beside, "%.*s/%s", (int)(slash - real_library), real_library, soname);
  if (beside[0] && is_file(beside)) {
    if (pin) dlopen(beside, RTLD_LAZY | RTLD_LOCAL); /* kept open: see below */
    if (!tcmma__nvrtc_library_identity(beside, builtins, sizeof builtins))
      snprintf(builtins, sizeof builtins, "%.*s (unreadable)", PATH_MAX, beside);
  } else if (!pin) {
    return false; /* only the loader knows which one NVRTC would get */
  } else {
    void *b = dlopen(soname, RTLD_LAZY | RTLD_LOCAL);
    struct link_map *lm = NULL;
    if (b && dlinfo(b, RTLD_DI_LINKMAP, &lm) == 0 && lm && lm->l_name &&
        !tcmma__nvrtc_library_identity(lm->l_name, builtins, sizeof builtins))
      snprintf(builtins, sizeof builtins, "%.*s (unreadable)", PATH_MAX, lm->l_name);
  }
  int w = snprintf(out, cap, "nvrtc %d.%d %s; %s %s", major, minor, lib, soname, builtins);
  return w > 0 && (size_t)w < cap;
}

/* The exact NVRTC build, for the cache key: nvrtcVersion gives only
 * major.minor, so the library file's identity (path, GNU build-id, size,
 * mtime, inode), and that of the builtin-headers library it loads by soname
 * at its first compile. tcmma opens that library itself, now, and keeps it
 * open, so NVRTC's own dlopen of the soname gets this very one: the one
 * beside NVRTC's real path where there is one (so that its identity can be
 * known from the files alone, nvrtc/nvrtc_facts.c), else the one the loader
 * finds. */
static void find_identity(const char *real) {
  if (!tcmma__nvrtc_identity_of(api.facts.info.library, real, api.facts.info.major,
                                api.facts.info.minor, true, api.facts.identity,
                                sizeof api.facts.identity))
    api.facts.identity[0] = '\0';
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
  /* a path (not a soname the loader looks up) must be a regular file:
   * dlopen of a FIFO blocks for ever */
  struct stat st; /* (a path that names nothing: dlopen's own reason) */
  if (strchr(path, '/') && stat(path, &st) == 0 && !tcmma__table_regular_file(path, why, cap))
    return NULL;
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
  if (api.nvrtcVersion(&api.facts.info.major, &api.facts.info.minor) != NVRTC_SUCCESS ||
      api.nvrtcGetNumSupportedArchs(&count) != NVRTC_SUCCESS || count <= 0 ||
      count > TCMMA_ARCH_MAX_ARCHS || api.nvrtcGetSupportedArchs(api.facts.archs) != NVRTC_SUCCESS) {
    snprintf(why, cap, "did not report its version and supported archs (%d archs)", count);
    goto unusable;
  }
  api.facts.n_archs = (size_t)count;
  return h;
unusable:
  dlclose(h);
  api.handle = NULL;
  return NULL;
}

int tcmma__nvrtc_candidates(char paths[TCMMA__NVRTC_CANDIDATES][4096]) {
  int n = 0;
  const char *forced = getenv("TCMMA_NVRTC");
  if (forced && *forced) {
    snprintf(paths[n++], PATH_MAX, "%s", forced);
    return n;
  }
  const char *roots[3];
  for (int i = 0, count = toolkit_roots(roots); i < count; i++)
    snprintf(paths[n++], PATH_MAX, "%s/lib64/libnvrtc.so", roots[i]);
  snprintf(paths[n++], PATH_MAX, "libnvrtc.so.13");
  snprintf(paths[n++], PATH_MAX, "libnvrtc.so");
  return n;
}

/* Tries the candidates in order (docs/nvrtc.md); one that does not load or
 * is not NVRTC is named with its reason and the next one is tried. */
static void load(void) {
  char tried[TCMMA_ERROR_MAX - 128] = ""; /* the message's words around it fit */
  size_t used = 0;
  char paths[TCMMA__NVRTC_CANDIDATES][4096];
  int n = tcmma__nvrtc_candidates(paths);
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
  loaded_library();
  char real[PATH_MAX];
  bool resolved = realpath(api.facts.info.library, real) != NULL;
  tcmma__nvrtc_include_dirs(resolved ? real : NULL, &api.facts.info);
  find_identity(resolved ? real : NULL);
  api.status = TCMMA_OK;
}

const tcmma__nvrtc_facts *tcmma__nvrtc_loaded(tcmma_error *err) {
  pthread_once(&load_once, load);
  if (api.status != TCMMA_OK) {
    tcmma_fail(err, api.status, "%s", api.message);
    return NULL;
  }
  return &api.facts;
}

tcmma_status tcmma_nvrtc_load(tcmma_nvrtc_info *info, tcmma_error *err) {
  const tcmma__nvrtc_facts *f = tcmma__nvrtc_loaded(err);
  if (!f) return api.status;
  if (info) *info = f->info;
  return TCMMA_OK;
}


/* First line of log, for a one-line error message. */
static int first_line_len(const char *log) {
  const char *nl = strchr(log, '\n');
  size_t n = nl ? (size_t)(nl - log) : strlen(log);
  return n > 600 ? 600 : (int)n;
}

/* NVRTC's log of prog (malloc'ed, "" when it has none); NULL on no memory. */
static char *program_log(nvrtcProgram prog) {
  size_t n = 0;
  char *log = NULL;
  if (api.nvrtcGetProgramLogSize(prog, &n) == NVRTC_SUCCESS && (log = malloc(n + 1))) {
    if (api.nvrtcGetProgramLog(prog, log) != NVRTC_SUCCESS) n = 0;
    log[n] = '\0';
  }
  return log ? log : tcmma__compile_strdup("");
}

/* ptxas -v keeps some errors out of NVRTC's log (CUDA 13.0: an entry's "uses
 * too much shared data" leaves only the figures), so a rejection whose log
 * holds nothing once the figures are out is compiled again without -v for
 * the log that names the error; NULL when that gives none either. */
static char *log_without_v(const char *text, const char *name, const char *const *options,
                           size_t n_options) {
  const char **kept = malloc((n_options ? n_options : 1) * sizeof *kept);
  if (!kept) return NULL;
  int n = 0;
  for (size_t i = 0; i < n_options; i++)
    if (strcmp(options[i], "--ptxas-options=-v") != 0) kept[n++] = options[i];
  char *log = NULL;
  nvrtcProgram prog = NULL;
  if ((size_t)n < n_options && api.nvrtcCreateProgram(&prog, text, name, 0, NULL, NULL) ==
                                   NVRTC_SUCCESS) {
    if (api.nvrtcCompileProgram(prog, n, kept) != NVRTC_SUCCESS) log = program_log(prog);
    api.nvrtcDestroyProgram(&prog);
  }
  free(kept);
  if (log && !log[0]) free(log), log = NULL;
  return log;
}

/* The hint of tables/nvrtc_hints.def whose phrase the log holds; "" when none. */
static const char *hint_for(const char *log) {
  static const struct {
    const char *phrase, *hint;
  } hints[] = {
#define TCMMA_NVRTC_HINT(ID, phrase, hint) {phrase, hint},
#include "tables/nvrtc_hints.def"
#undef TCMMA_NVRTC_HINT
  };
  for (size_t i = 0; log && i < sizeof hints / sizeof hints[0]; i++)
    if (strstr(log, hints[i].phrase)) return hints[i].hint;
  return "";
}

tcmma_status tcmma__nvrtc_compile_raw(const char *source, size_t len, const char *name,
                                      const char *const *options, size_t n_options, bool want_cubin,
                                      tcmma_program *out, bool *rejected, tcmma_error *err) {
  if (rejected) *rejected = false;
  tcmma_status st = tcmma_nvrtc_load(NULL, err);
  if (st != TCMMA_OK) return st;
  out->nvrtc_major = api.facts.info.major, out->nvrtc_minor = api.facts.info.minor;
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
  st = TCMMA_OK;
  out->log = program_log(prog);
  /* ptxas -v's figures into the fields; their lines stay in the log (the
   * cache keeps them for a batch's per-kernel figures) */
  if (out->log) tcmma__compile_ptxas_figures(out->log, NULL, NULL, out);
  char *named = compiled == NVRTC_ERROR_COMPILATION && out->log &&
                        !*tcmma__compile_log_first_diagnostic(out->log)
                    ? log_without_v(text, name, options, n_options)
                    : NULL;
  if (named) free(out->log), out->log = named;
  size_t n = 0;
  if (compiled != NVRTC_SUCCESS) {
    const char *log = out->log ? tcmma__compile_log_first_diagnostic(out->log) : "";
    const char *rest = strchr(log, '\n');
    bool more = rest && *tcmma__compile_log_first_diagnostic(rest + 1);
    const char *hint = hint_for(out->log);
    st = tcmma_fail(err, TCMMA_COMPILE, "NVRTC %d.%d: %s: %.*s%s%s%s", api.facts.info.major,
                    api.facts.info.minor, api.nvrtcGetErrorString(compiled), first_line_len(log),
                    log, more ? " (full log in the program)" : "", *hint ? ". Hint: " : "",
                    hint);
    if (rejected) *rejected = compiled == NVRTC_ERROR_COMPILATION;
    /* ptxas rejected PTX that NVRTC made: keep it (the log's lines point into it) */
    if (api.nvrtcGetPTXSize(prog, &n) == NVRTC_SUCCESS && n > 1 && (out->ptx = malloc(n + 1))) {
      if (api.nvrtcGetPTX(prog, out->ptx) == NVRTC_SUCCESS) {
        out->ptx[n] = '\0';
        out->ptx_len = strlen(out->ptx);
      } else {
        free(out->ptx);
        out->ptx = NULL;
      }
    }
  } else {
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

bool tcmma__nvrtc_probe_arch(int arch, char suffix) {
  char option[64];
  tcmma__arch_option(option, sizeof option, false, arch, suffix);
  const char *opts[] = {option};
  tcmma_program p = {0};
  bool ok = tcmma__nvrtc_compile_raw("", 0, "probe.cu", opts, 1, false, &p, NULL, NULL) == TCMMA_OK;
  tcmma_program_free(&p);
  return ok;
}
