/* The sim executor's module: every case's kernel rendered in the host
 * dialect into ONE C file (each renamed by a #define around its text), one
 * run of the system C compiler, one dlopen. The kernels' calls to
 * tcmma_sim_* resolve against the running program, which exports them
 * (Makefile: -Wl,--export-dynamic-symbol=tcmma_sim_*). Under SAN=1 the module
 * is compiled with the program's own -fsanitize flags. A compile error is
 * charged to the cases whose lines it names; they are dropped and the rest
 * recompiled. The compiler runs through fork and execve with an argument
 * vector: no shell reads TMPDIR, CC or the flags. A module that compiles at
 * the first try is kept in the disk cache by content (tools/verify/
 * sim_cache.c): the next run of the same kernels loads it. */
#include <dlfcn.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>
#include "tools/verify/sim.h"
#include "tools/verify/sim_cache.h"

#ifndef TCMMA_SRC_ROOT
#define TCMMA_SRC_ROOT "."
#endif
#ifndef TCMMA_PREFIX
#define TCMMA_PREFIX "/usr/local"
#endif
#ifndef TCMMA_SANFLAGS
#define TCMMA_SANFLAGS ""
#endif

typedef struct {
  const char *name;      /* the case's (borrowed) */
  char *text;            /* rendered kernel (host dialect) */
  long first, last;      /* its lines in the module source */
  char error[512];
  sim_entry entry;
} module_case;

struct sim_module {
  char dir[256];
  char compiler[1024];   /* the compiler's executable */
  void *handle;
  size_t count;
  module_case *cases;
};

static const char *compiler(void) {
  const char *cc = getenv("CC");
  return cc && *cc ? cc : "cc";
}

/* The executable the first word of the compiler command names, into full:
 * the word itself when it holds a '/', else its first match on PATH. */
static bool find_compiler(const char *cc, char *first, size_t cap, char *full, size_t full_cap) {
  size_t n = strcspn(cc, " \t");
  snprintf(first, cap, "%.*s", (int)n, cc);
  if (strchr(first, '/')) {
    snprintf(full, full_cap, "%s", first);
    return access(full, X_OK) == 0;
  }
  const char *path = getenv("PATH");
  if (!path || !first[0]) return false;
  while (*path) {
    size_t len = strcspn(path, ":");
    int w = snprintf(full, full_cap, "%.*s/%s", (int)len, path, first);
    if (w > 0 && (size_t)w < full_cap && access(full, X_OK) == 0) return true;
    path += len + (path[len] == ':');
  }
  return false;
}

static void set_error(module_case *mc, const char *what, const char *detail) {
  snprintf(mc->error, sizeof mc->error, "%s: %.400s", what, detail);
}

/* Writes the source of every case still without an error; records each
 * case's line range. */
static tcmma_status write_source(sim_module *m, const char *path, tcmma_error *err) {
  FILE *f = fopen(path, "w");
  if (!f) return tcmma_fail(err, TCMMA_IO, "cannot write %s: %s", path, strerror(errno));
  long line = 1;
  fputs("/* tcmma sim module: host-dialect kernels, one per case */\n"
        "#include <stddef.h>\n#include <stdint.h>\n#include \"tcmma/sim.h\"\n",
        f);
  line += 4;
  for (size_t i = 0; i < m->count; i++) {
    module_case *mc = &m->cases[i];
    if (mc->error[0] || !mc->text) continue;
    mc->first = line;
    char name[400];
    snprintf(name, sizeof name, "%s", mc->name);
    for (char *t = name; *t; t++)
      if (*t == '*' || *t == '/') *t = '_'; /* stays inside the comment */
    fprintf(f,
            "/* case %zu: %s */\n#define tcmma_kernel tcmma__sim_kernel_%zu\n"
            "#define tcmma_kernel_entry tcmma__sim_entry_%zu\n",
            i, name, i, i);
    line += 3;
    fputs(mc->text, f);
    for (const char *s = mc->text; *s; s++) line += *s == '\n';
    if (mc->text[0] && mc->text[strlen(mc->text) - 1] != '\n') fputc('\n', f), line++;
    fputs("#undef tcmma_kernel\n#undef tcmma_kernel_entry\n", f);
    line += 2;
    mc->last = line - 1;
  }
  bool bad = ferror(f) != 0;
  if (fclose(f) != 0 || bad) return tcmma_fail(err, TCMMA_IO, "cannot write %s", path);
  return TCMMA_OK;
}

static void charge(sim_module *m, size_t i, const char *line, int len, size_t *charged) {
  if (i >= m->count || m->cases[i].error[0] || !m->cases[i].text) return;
  module_case *mc = &m->cases[i];
  char detail[400];
  snprintf(detail, sizeof detail, "%.*s", len, line);
  set_error(mc, "host-dialect text does not compile", detail);
  (*charged)++;
}

/* Charges each error of the log to its case: by the "module.c:LINE:" it
 * names, else by the function gcc says it is in ("In function
 * 'tcmma__sim_kernel_N'"), which also covers errors reported at a macro's
 * definition. Returns how many cases were charged. */
static size_t charge_errors(sim_module *m, const char *log) {
  size_t charged = 0, in_case = (size_t)-1;
  for (const char *s = log; s && *s;) {
    const char *eol = strchr(s, '\n');
    int len = eol ? (int)(eol - s) : (int)strlen(s);
    char line[1024];
    snprintf(line, sizeof line, "%.*s", len, s);
    const char *fn = strstr(line, "In function");
    const char *k = fn ? strstr(fn, "tcmma__sim_kernel_") : NULL;
    const char *e = fn ? strstr(fn, "tcmma__sim_entry_") : NULL;
    if (k) in_case = strtoul(k + 18, NULL, 10);
    else if (e) in_case = strtoul(e + 17, NULL, 10);
    else if (fn) in_case = (size_t)-1;
    if (strstr(line, "error")) {
      size_t hit = (size_t)-1;
      if (strncmp(line, "module.c:", 9) == 0) {
        long at = strtol(line + 9, NULL, 10);
        for (size_t i = 0; i < m->count; i++)
          if (m->cases[i].text && at >= m->cases[i].first && at <= m->cases[i].last) hit = i;
      }
      if (hit == (size_t)-1) hit = in_case;
      if (hit != (size_t)-1) charge(m, hit, s, len, &charged);
    }
    s = eol ? eol + 1 : NULL;
  }
  return charged;
}

static char *read_all(const char *path) {
  FILE *f = fopen(path, "r");
  if (!f) return NULL;
  size_t cap = 4096, len = 0;
  char *buf = malloc(cap);
  size_t n;
  while (buf && (n = fread(buf + len, 1, cap - len - 1, f)) > 0) {
    len += n;
    if (cap - len < 2) {
      char *grown = realloc(buf, cap * 2);
      if (!grown) free(buf);
      buf = grown, cap *= 2;
    }
  }
  fclose(f);
  if (buf) buf[len] = '\0';
  return buf;
}

/* A growing argument vector. */
typedef struct {
  char **v;
  size_t n, cap;
  bool failed;
} args;

static void arg(args *a, const char *s) {
  if (a->failed) return;
  if (a->n + 2 > a->cap) {
    size_t cap = a->cap ? 2 * a->cap : 32;
    char **grown = realloc(a->v, cap * sizeof *grown);
    if (!grown) return (void)(a->failed = true);
    a->v = grown, a->cap = cap;
  }
  if (!(a->v[a->n] = strdup(s))) return (void)(a->failed = true);
  a->v[++a->n] = NULL;
}

/* Each blank-separated word of text (CC, CFLAGS-style settings: no shell
 * quoting, as make passes them). */
static void words(args *a, const char *text) {
  for (const char *p = text ? text : ""; *p;) {
    p += strspn(p, " \t\n");
    size_t n = strcspn(p, " \t\n");
    if (!n) break;
    char w[1024];
    snprintf(w, sizeof w, "%.*s", (int)n, p);
    arg(a, w);
    p += n;
  }
}

static void args_free(args *a) {
  for (size_t i = 0; i < a->n; i++) free(a->v[i]);
  free(a->v);
}

/* The compiler's command line, for messages. */
static void command_text(const args *a, char *buf, size_t cap) {
  size_t used = 0;
  buf[0] = '\0';
  for (size_t i = 0; i < a->n && used < cap; i++) {
    int w = snprintf(buf + used, cap - used, "%s%s", i ? " " : "", a->v[i]);
    if (w < 0) break;
    used += (size_t)w;
  }
}

extern char **environ;

/* Runs the compiler (full: its path; a: its argv) in dir with LC_ALL=C and
 * its output in dir/cc.log, through fork and execve: no shell ever reads
 * TMPDIR, CC or the flags. Its exit status, or -1 when it could not run. */
static int run_compiler(const char *dir, const char *full, const args *a) {
  size_t n_env = 0;
  while (environ[n_env]) n_env++;
  char **env = calloc(n_env + 2, sizeof *env);
  if (!env) return -1;
  size_t k = 0;
  for (size_t i = 0; i < n_env; i++)
    if (strncmp(environ[i], "LC_ALL=", 7) != 0) env[k++] = environ[i];
  env[k++] = "LC_ALL=C";
  pid_t pid = fork();
  if (pid == 0) { /* only async-signal-safe calls until execve */
    int log = -1;
    if (chdir(dir) != 0 ||
        (log = open("cc.log", O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0600)) < 0 ||
        dup2(log, 1) < 0 || dup2(log, 2) < 0)
      _exit(126);
    execve(full, a->v, env);
    _exit(127);
  }
  free(env);
  int status = 0;
  if (pid < 0) return -1;
  while (waitpid(pid, &status, 0) < 0)
    if (errno != EINTR) return -1;
  return WIFEXITED(status) ? WEXITSTATUS(status) : -1;
}

/* The compiler's argument vector for the module in m->dir. */
static void compiler_args(args *a) {
  words(a, compiler());
  /* -O0: the module runs once per case, the compile dominates; no strict
   * aliasing, as in CUDA where the gathers pun element bytes as words. */
  words(a, "-std=c11 -O0 -fPIC -shared -fno-strict-aliasing "
           "-Werror=implicit-function-declaration -Werror=int-conversion "
           "-Werror=incompatible-pointer-types");
  words(a, TCMMA_SANFLAGS);
  words(a, getenv("TCMMA_SIM_CFLAGS"));
  static const char *const roots[4][2] = {{TCMMA_SRC_ROOT, "/include"}, {TCMMA_SRC_ROOT, ""},
                                          {TCMMA_PREFIX, "/include"},
                                          {TCMMA_PREFIX, "/include/tcmma"}};
  for (int i = 0; i < 4; i++) {
    char inc[1200];
    snprintf(inc, sizeof inc, "-I%s%s", roots[i][0], roots[i][1]);
    arg(a, inc);
  }
  words(a, "-o module.so module.c");
}

static tcmma_status compile(sim_module *m, tcmma_error *err) {
  char src[300], so[300], log[300], cmd[4096];
  snprintf(src, sizeof src, "%s/module.c", m->dir);
  snprintf(so, sizeof so, "%s/module.so", m->dir);
  snprintf(log, sizeof log, "%s/cc.log", m->dir);
  args a = {0};
  compiler_args(&a);
  if (a.failed) {
    args_free(&a);
    return tcmma_fail(err, TCMMA_NO_MEMORY, "out of memory");
  }
  command_text(&a, cmd, sizeof cmd);
  bool built = false, keyed = false;
  unsigned char key[32];
  for (size_t attempt = 0; attempt <= m->count && !built; attempt++) { /* each retry drops a case */
    tcmma_status st = write_source(m, src, err);
    if (st != TCMMA_OK) return args_free(&a), st;
    if (attempt == 0) {
      keyed = sim_cache_key(src, m->compiler, (const char *const *)a.v, a.n, key);
      if (keyed && sim_cache_get(key, so)) {
        built = true; /* this very module, compiled by an earlier run */
        break;
      }
    }
    if (run_compiler(m->dir, m->compiler, &a) == 0) {
      if (attempt == 0 && keyed) sim_cache_put(key, so);
      built = true;
      break;
    }
    char *text = read_all(log);
    size_t charged = charge_errors(m, text);
    if (charged == 0) {
      tcmma_status fail = tcmma_fail(err, TCMMA_COMPILE, "the C compiler failed (%s): %.600s",
                                     cmd, text ? text : "(no log)");
      free(text);
      args_free(&a);
      return fail;
    }
    free(text);
  }
  args_free(&a);
  if (!built) return tcmma_fail(err, TCMMA_COMPILE, "the sim module still fails to compile "
                                "after dropping the cases its errors named (%s)", cmd);
  m->handle = dlopen(so, RTLD_NOW | RTLD_LOCAL);
  if (!m->handle)
    return tcmma_fail(err, TCMMA_COMPILE, "cannot load the sim module: %s", dlerror());
  for (size_t i = 0; i < m->count; i++) {
    module_case *mc = &m->cases[i];
    if (mc->error[0] || !mc->text) continue;
    char name[64];
    snprintf(name, sizeof name, "tcmma__sim_entry_%zu", i);
    /* POSIX: a function pointer round-trips through dlsym's void *. */
    void *sym = dlsym(m->handle, name);
    memcpy(&mc->entry, &sym, sizeof sym);
    if (!mc->entry) set_error(mc, "entry missing from the module", name);
  }
  return TCMMA_OK;
}

static void remove_dir(const char *dir) {
  static const char *const files[] = {"module.c", "module.so", "cc.log"};
  char path[300];
  for (size_t i = 0; i < sizeof files / sizeof *files; i++) {
    snprintf(path, sizeof path, "%s/%s", dir, files[i]);
    unlink(path);
  }
  rmdir(dir);
}

/* A module for count cases, its compiler found and its directory made. */
static tcmma_status module_new(size_t count, sim_module **out, tcmma_error *err) {
  *out = NULL;
  char first[256], full[1024];
  if (!find_compiler(compiler(), first, sizeof first, full, sizeof full))
    return tcmma_fail(err, TCMMA_UNAVAILABLE,
                      "no C compiler: '%s' (from $CC, default cc) is not on PATH", first);
  sim_module *m = calloc(1, sizeof *m);
  if (!m || !(m->cases = calloc(count ? count : 1, sizeof *m->cases))) {
    free(m);
    return tcmma_fail(err, TCMMA_NO_MEMORY, "out of memory");
  }
  m->count = count;
  snprintf(m->compiler, sizeof m->compiler, "%s", full);
  const char *tmp = getenv("TMPDIR");
  snprintf(m->dir, sizeof m->dir, "%s/tcmma-sim-XXXXXX", tmp && *tmp ? tmp : "/tmp");
  if (!mkdtemp(m->dir)) {
    tcmma_status st = tcmma_fail(err, TCMMA_IO, "cannot create %s: %s", m->dir, strerror(errno));
    free(m->cases), free(m);
    return st;
  }
  *out = m;
  return TCMMA_OK;
}

/* Compiles and loads m's texts; *out gets m, or m is freed on failure. */
static tcmma_status module_finish(sim_module *m, sim_module **out, tcmma_error *err) {
  tcmma_status st = compile(m, err);
  const char *keep = getenv("TCMMA_SIM_KEEP");
  if (!(keep && strcmp(keep, "1") == 0)) remove_dir(m->dir);
  if (st != TCMMA_OK) {
    sim_module_free(m);
    return st;
  }
  *out = m;
  return TCMMA_OK;
}

tcmma_status sim_module_build(const verify_case *const *cases, const tcmma_plan *plans,
                              size_t count, sim_module **out, tcmma_error *err) {
  sim_module *m;
  tcmma_status st = module_new(count, &m, err);
  *out = NULL;
  if (st != TCMMA_OK) return st;
  for (size_t i = 0; i < count; i++) {
    module_case *mc = &m->cases[i];
    mc->name = cases[i]->name;
    tcmma_buf buf = {0};
    tcmma_error e;
    tcmma_error_clear(&e);
    tcmma_kernel_opts opts = verify_case_kernel_opts(cases[i]);
    tcmma_render_ctx rc = tcmma_render_ctx_make(&plans[i], TCMMA_DIALECT_HOST, NULL, &buf);
    st = tcmma_render_kernel(&rc, &opts, &e);
    if (st == TCMMA_OK && buf.failed) st = tcmma_fail(&e, TCMMA_NO_MEMORY, "out of memory");
    if (st != TCMMA_OK) {
      set_error(mc, "host-dialect render failed", e.message);
      tcmma_buf_free(&buf);
      continue;
    }
    mc->text = buf.data; /* owned now */
  }
  return module_finish(m, out, err);
}

tcmma_status sim_module_build_texts(const char *const *names, const char *const *texts,
                                    size_t count, sim_module **out, tcmma_error *err) {
  sim_module *m;
  tcmma_status st = module_new(count, &m, err);
  *out = NULL;
  if (st != TCMMA_OK) return st;
  for (size_t i = 0; i < count; i++) {
    m->cases[i].name = names[i];
    size_t n = strlen(texts[i]) + 1;
    if ((m->cases[i].text = malloc(n))) memcpy(m->cases[i].text, texts[i], n);
    else set_error(&m->cases[i], "no memory for the text", names[i]);
  }
  return module_finish(m, out, err);
}

sim_entry sim_module_entry(const sim_module *m, size_t i, const char **why) {
  if (!m || i >= m->count) {
    *why = "case not in the module";
    return NULL;
  }
  *why = m->cases[i].error;
  return m->cases[i].entry;
}

size_t sim_module_find(const sim_module *m, const char *name) {
  for (size_t i = 0; m && i < m->count; i++)
    if (strcmp(m->cases[i].name, name) == 0) return i;
  return (size_t)-1;
}

void sim_module_free(sim_module *m) {
  if (!m) return;
  if (m->handle) dlclose(m->handle);
  for (size_t i = 0; i < m->count; i++) free(m->cases[i].text);
  free(m->cases);
  free(m);
}
