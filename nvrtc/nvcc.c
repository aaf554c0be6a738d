/* Whole programs through the toolkit's nvcc (docs/nvrtc.md, "nvcc"): a
 * source NVRTC cannot take (host headers, host code, nvcc-only options)
 * compiles with nvcc to PTX, or to a CUBIN with the PTX kept, through the
 * same cache, records and .target check as an NVRTC compile
 * (nvrtc/compile.c calls this in NVRTC's place). nvcc runs through
 * posix_spawn with an argument vector: no shell reads the options. */
#include <errno.h>
#include <fcntl.h>
#include <dirent.h>
#include <limits.h>
#include <spawn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>
#include "tcmma/buf.h"
#include "nvrtc/internal.h"

#ifndef TCMMA_CUDA_HOME
#define TCMMA_CUDA_HOME "/usr/local/cuda"
#endif

extern char **environ;

static bool executable(const char *path) {
  struct stat st;
  return stat(path, &st) == 0 && S_ISREG(st.st_mode) && access(path, X_OK) == 0;
}

bool tcmma__nvcc_path(const char *given, char *buf, size_t cap, char *looked, size_t looked_cap) {
  if (!given || !*given) given = getenv("TCMMA_NVCC");
  const char *roots[] = {getenv("CUDA_HOME"), TCMMA_CUDA_HOME, "/usr/local/cuda"};
  size_t used = 0;
  char none[1];
  if (!looked) looked = none, looked_cap = sizeof none;
  looked[0] = '\0';
  for (int i = given && *given ? -1 : 0; i < 3; i++) {
    if (i >= 0 && (!roots[i] || !*roots[i])) continue;
    if (i >= 0 && given && *given) break; /* $TCMMA_NVCC alone when set */
    int w = i < 0 ? snprintf(buf, cap, "%s", given) : snprintf(buf, cap, "%s/bin/nvcc", roots[i]);
    if (w > 0 && (size_t)w < cap && executable(buf)) return true;
    int k = snprintf(looked + used, looked_cap - used, "%s%s", used ? ", " : "", buf);
    if (k > 0 && (size_t)k < looked_cap - used) used += (size_t)k;
  }
  buf[0] = '\0';
  return false;
}

bool tcmma__nvcc_identity(const char *given, char *buf, size_t cap) {
  char path[PATH_MAX], looked[1024], real[PATH_MAX];
  struct stat st;
  if (!tcmma__nvcc_path(given, path, sizeof path, looked, sizeof looked) || !realpath(path, real) ||
      stat(real, &st) != 0)
    return false;
  /* the binary's path, size and mtime: a toolkit upgrade is another key */
  snprintf(buf, cap, "nvcc %s %lld %lld", real, (long long)st.st_size, (long long)st.st_mtime);
  return true;
}

/* Reads path whole into *out (NUL-terminated; *len bytes); false if absent. */
static bool slurp(const char *path, char **out, size_t *len) {
  FILE *f = fopen(path, "rb");
  if (!f) return false;
  tcmma_buf b = {0};
  char chunk[65536];
  size_t n;
  while ((n = fread(chunk, 1, sizeof chunk, f)) > 0) tcmma_buf_append(&b, chunk, n);
  fclose(f);
  if (b.failed) return tcmma_buf_free(&b), false;
  *len = b.len;
  *out = b.data ? b.data : calloc(1, 1);
  return *out != NULL;
}

/* The file name nvcc compiles: name's last part, ending in .cu (nvcc goes
 * by the extension: a .hpp or a name without one would not be CUDA). */
static void source_name(const char *name, char *buf, size_t cap) {
  const char *base = strrchr(name, '/');
  base = base ? base + 1 : name;
  size_t n = strlen(base);
  bool cu = n > 3 && strcmp(base + n - 3, ".cu") == 0;
  snprintf(buf, cap, "%s%s", *base && base[0] != '.' ? base : "source", cu ? "" : ".cu");
}

/* Runs argv with stdout and stderr into log_path; the exit status, or -1
 * when it could not run. */
static int run(const char *const *argv, const char *log_path) {
  posix_spawn_file_actions_t fa;
  if (posix_spawn_file_actions_init(&fa) != 0) return -1;
  bool ready = posix_spawn_file_actions_addopen(&fa, 0, "/dev/null", O_RDONLY, 0) == 0 &&
               posix_spawn_file_actions_addopen(&fa, 1, log_path, O_WRONLY | O_CREAT | O_TRUNC,
                                                0600) == 0 &&
               posix_spawn_file_actions_adddup2(&fa, 1, 2) == 0;
  pid_t pid = -1;
  bool spawned = ready && posix_spawn(&pid, argv[0], &fa, NULL, (char *const *)argv, environ) == 0;
  posix_spawn_file_actions_destroy(&fa);
  if (!spawned) return -1;
  int status = 0;
  while (waitpid(pid, &status, 0) < 0)
    if (errno != EINTR) return -1;
  return WIFEXITED(status) ? WEXITSTATUS(status) : -1;
}

/* Removes the private directory dir and every file in it (nvcc --keep's
 * intermediates among them). */
static void remove_dir(const char *dir) {
  DIR *d = opendir(dir);
  if (d) {
    struct dirent *e;
    char path[PATH_MAX + 300];
    while ((e = readdir(d)))
      if (strcmp(e->d_name, ".") && strcmp(e->d_name, "..")) {
        snprintf(path, sizeof path, "%s/%s", dir, e->d_name);
        unlink(path);
      }
    closedir(d);
  }
  rmdir(dir);
}

/* The nvcc command line: the NVRTC option list less what nvcc lacks
 * (--minimal), the source's own directory first for its "includes", the
 * output, and the source. NULL on no memory (free the vector only: its
 * strings are options' or the caller's). */
static const char **command(const char *nvcc, const char *const *options, size_t n,
                            bool cubin, const char *dir, const char *own_dir, const char *src,
                            const char *output) {
  const char **argv = calloc(n + 12, sizeof *argv);
  if (!argv) return NULL;
  size_t k = 0;
  argv[k++] = nvcc;
  argv[k++] = cubin ? "-cubin" : "-ptx";
  if (cubin) argv[k++] = "--keep", argv[k++] = "--keep-dir", argv[k++] = dir;
  argv[k++] = own_dir;
  for (size_t i = 0; i < n; i++)
    if (strcmp(options[i], "--minimal") != 0) argv[k++] = options[i];
  argv[k++] = "-o", argv[k++] = output, argv[k++] = src;
  return argv;
}

/* Writes source into dir as file; false on an I/O error. */
static bool write_source(const char *path, const char *source, size_t len) {
  FILE *f = fopen(path, "wb");
  if (!f) return false;
  bool ok = fwrite(source, 1, len, f) == len;
  return (fclose(f) == 0) && ok;
}

/* nvcc's log as NVRTC writes ptxas -v's: nvcc prints a function's
 * properties ("    0 bytes stack frame, ...") without NVRTC's "ptxas ."
 * prefix, which nvrtc/ptxas_info.c reads and drops. NULL on no memory. */
static char *as_nvrtc_log(const char *log) {
  tcmma_buf b = {0};
  for (const char *s = log; *s;) {
    size_t n = strcspn(s, "\n");
    const char *t = s + strspn(s, " ");
    bool props = t > s && *t >= '0' && *t <= '9' && memmem(s, n, "bytes stack frame", 17);
    if (props) tcmma_buf_printf(&b, "ptxas         .     ");
    tcmma_buf_append(&b, props ? t : s, n - (size_t)(props ? t - s : 0));
    if (s[n]) tcmma_buf_append(&b, "\n", 1);
    s += n + (s[n] != '\0');
  }
  if (b.failed) return tcmma_buf_free(&b), NULL;
  return b.data ? b.data : calloc(1, 1);
}

/* What nvcc left: the log, the PTX and the CUBIN into out. */
static tcmma_status collect(const char *dir, const char *stem, bool cubin, int status,
                            tcmma_program *out, bool *rejected, tcmma_error *err) {
  char path[PATH_MAX + 300];
  size_t n = 0;
  snprintf(path, sizeof path, "%s/nvcc.log", dir);
  char *raw = NULL;
  out->log = slurp(path, &raw, &n) ? as_nvrtc_log(raw) : tcmma__compile_strdup("");
  free(raw);
  if (!out->log) return tcmma_fail(err, TCMMA_NO_MEMORY, "no memory for nvcc's log");
  tcmma__compile_ptxas_figures(out->log, NULL, NULL, out);
  if (status != 0) {
    if (rejected) *rejected = status > 0;
    const char *first = out->log ? tcmma__compile_log_first_diagnostic(out->log) : "";
    size_t k = strcspn(first, "\n");
    if (status < 0) return tcmma_fail(err, TCMMA_UNAVAILABLE, "nvcc could not be run");
    return tcmma_fail(err, TCMMA_COMPILE, "nvcc rejected the source: %.*s (full log in the program)",
                      (int)k, first);
  }
  snprintf(path, sizeof path, "%s/%s.ptx", dir, cubin ? stem : "out");
  if (!slurp(path, &out->ptx, &out->ptx_len))
    return tcmma_fail(err, TCMMA_IO, "nvcc wrote no PTX (%s)", path);
  if (cubin) {
    snprintf(path, sizeof path, "%s/out.cubin", dir);
    char *bytes = NULL;
    if (!slurp(path, &bytes, &out->cubin_len))
      return tcmma_fail(err, TCMMA_IO, "nvcc wrote no CUBIN (%s)", path);
    out->cubin = (unsigned char *)bytes;
  }
  return TCMMA_OK;
}

tcmma_status tcmma__nvcc_missing(const char *given, tcmma_error *err) {
  char nvcc[PATH_MAX], looked[1024];
  tcmma__nvcc_path(given, nvcc, sizeof nvcc, looked, sizeof looked);
  return tcmma_fail(err, TCMMA_UNAVAILABLE,
                    "nvcc not found (looked for %s): --nvcc needs the CUDA toolkit's nvcc; set "
                    "TCMMA_NVCC or CUDA_HOME",
                    looked);
}

tcmma_status tcmma__nvcc_compile_raw(const char *given, const char *source, size_t len,
                                     const char *name,
                                     const char *const *options, size_t n_options, bool cubin,
                                     tcmma_program *out, bool *rejected, tcmma_error *err) {
  if (rejected) *rejected = false;
  char nvcc[PATH_MAX];
  if (!tcmma__nvcc_path(given, nvcc, sizeof nvcc, NULL, 0)) return tcmma__nvcc_missing(given, err);
  const char *tmp = getenv("TMPDIR");
  char dir[PATH_MAX];
  snprintf(dir, sizeof dir, "%s/tcmma-nvcc-XXXXXX", tmp && *tmp ? tmp : "/tmp");
  if (!mkdtemp(dir)) return tcmma_fail(err, TCMMA_IO, "cannot make a directory for nvcc: %s", strerror(errno));
  char file[256], src[PATH_MAX + 300], output[PATH_MAX + 32], log[PATH_MAX + 32], own[PATH_MAX + 8];
  source_name(name, file, sizeof file);
  snprintf(src, sizeof src, "%s/%s", dir, file);
  snprintf(output, sizeof output, "%s/out.%s", dir, cubin ? "cubin" : "ptx");
  snprintf(log, sizeof log, "%s/nvcc.log", dir);
  /* the source is compiled from dir: its "includes" are where name is */
  const char *slash = strrchr(name, '/');
  snprintf(own, sizeof own, "-I%.*s", slash ? (slash == name ? 1 : (int)(slash - name)) : 1,
           slash ? name : ".");
  tcmma_status st;
  const char **argv = command(nvcc, options, n_options, cubin, dir, own, src, output);
  if (!argv) st = tcmma_fail(err, TCMMA_NO_MEMORY, "no memory for nvcc's command line");
  else if (!write_source(src, source, len))
    st = tcmma_fail(err, TCMMA_IO, "cannot write the source for nvcc (%s)", src);
  else {
    file[strlen(file) - 3] = '\0'; /* the stem --keep names its files by */
    st = collect(dir, file, cubin, run(argv, log), out, rejected, err);
  }
  free(argv);
  remove_dir(dir);
  return st;
}
