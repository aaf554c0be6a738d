/* ptxas for tests: the toolkit's assembler is the authority on what a PTX
 * target holds, so the feature table and the reader are checked against it.
 * Runs go in parallel (one per online CPU) from temporary files. */
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>
#include "util.h"

const char *ptxas_path(void) {
  static char path[1024];
  snprintf(path, sizeof path, "%s/bin/ptxas", cuda_home());
  return access(path, X_OK) == 0 ? path : NULL;
}

/* sm_75 < sm_90 < sm_90a < sm_100 < sm_100a < sm_100f */
static int by_sm(const void *a, const void *b) {
  const char *x = a, *y = b;
  int d = atoi(x + 3) - atoi(y + 3);
  return d ? d : strcmp(x, y);
}

size_t ptxas_targets(char (*out)[16], size_t cap) {
  const char *ptxas = ptxas_path();
  if (!ptxas) return 0;
  char cmd[1200];
  snprintf(cmd, sizeof cmd, "'%s' --help 2>&1", ptxas);
  FILE *p = popen(cmd, "r");
  if (!p) return 0;
  size_t n = 0;
  char line[4096];
  /* the --gpu-name paragraph lists 'sm_75','sm_80',...,'sm_90a', ... */
  while (fgets(line, sizeof line, p))
    for (char *q = strstr(line, "'sm_"); q; q = strstr(q + 1, "'sm_")) {
      char name[16];
      size_t len = strcspn(q + 1, "'");
      if (len == 0 || len >= sizeof name) continue;
      memcpy(name, q + 1, len), name[len] = '\0';
      bool seen = false;
      for (size_t i = 0; i < n; i++) seen = seen || strcmp(out[i], name) == 0;
      if (!seen && n < cap) memcpy(out[n++], name, sizeof name);
    }
  pclose(p);
  qsort(out, n, sizeof *out, by_sm);
  return n;
}

static char *write_temp(const char *text, size_t len) {
  char *path = strdup("/tmp/tcmma-ptxas-XXXXXX.ptx");
  int fd = path ? mkstemps(path, 4) : -1;
  if (fd < 0) return free(path), NULL;
  bool ok = write(fd, text, len) == (ssize_t)len;
  close(fd);
  if (!ok) unlink(path), free(path), path = NULL;
  return path;
}

typedef struct {
  pid_t pid;
  char *ptx, *log;
} running;

static void finish(ptxas_job *job, running *r, int status) {
  job->rc = WIFEXITED(status) ? WEXITSTATUS(status) : -1;
  job->log = read_file(r->log, NULL);
  if (!job->log) job->log = strdup("");
  unlink(r->ptx), unlink(r->log);
  free(r->ptx), free(r->log);
  r->pid = 0;
}

static bool start(const char *ptxas, ptxas_job *job, running *r) {
  char log[] = "/tmp/tcmma-ptxas-log-XXXXXX";
  int fd = mkstemp(log);
  if (fd < 0) return false;
  close(fd);
  r->ptx = write_temp(job->text, job->len);
  r->log = strdup(log);
  if (!r->ptx || !r->log) return unlink(log), free(r->ptx), free(r->log), false;
  r->pid = fork();
  if (r->pid == 0) {
    int out = open(r->log, O_WRONLY | O_TRUNC);
    dup2(out, 1), dup2(out, 2);
    execl(ptxas, ptxas, "-arch", job->arch, r->ptx, "-o", "/dev/null", (char *)NULL);
    _exit(127);
  }
  return r->pid > 0;
}

void ptxas_run(ptxas_job *jobs, size_t n) {
  const char *ptxas = ptxas_path();
  long cpus = sysconf(_SC_NPROCESSORS_ONLN);
  size_t width = cpus > 0 && cpus < 16 ? (size_t)cpus : 2, next = 0, busy = 0;
  running slots[16] = {0};
  size_t owner[16];
  while (next < n || busy) {
    for (size_t s = 0; s < width && next < n; s++) {
      if (slots[s].pid) continue;
      jobs[next].rc = -1, jobs[next].log = NULL;
      if (ptxas && start(ptxas, &jobs[next], &slots[s])) owner[s] = next, busy++;
      else jobs[next].log = strdup("ptxas could not be started");
      next++;
    }
    if (!busy) continue;
    int status;
    pid_t done = wait(&status);
    for (size_t s = 0; s < width; s++)
      if (slots[s].pid && slots[s].pid == done) finish(&jobs[owner[s]], &slots[s], status), busy--;
  }
}

/* The next "line N; error" or "line N; fatal" report at or after *p. */
static int next_error_line(const char **p) {
  for (const char *q = *p; (q = strstr(q, "line ")); q++) {
    char *end;
    long line = strtol(q + 5, &end, 10);
    if (end == q + 5 || strncmp(end, "; ", 2) != 0) continue;
    if (strncmp(end + 2, "error", 5) != 0 && strncmp(end + 2, "fatal", 5) != 0) continue;
    *p = end;
    return (int)line;
  }
  return 0;
}

bool ptxas_error_at(const char *log, int line) {
  for (const char *p = log ? log : ""; ;) {
    int at = next_error_line(&p);
    if (at == 0) return false;
    if (at == line) return true;
  }
}

int ptxas_error_outside(const char *log, const bool *lines, int count) {
  for (const char *p = log ? log : ""; ;) {
    int at = next_error_line(&p);
    if (at == 0) return 0;
    if (at >= count || !lines[at]) return at;
  }
}

void ptxas_jobs_free(ptxas_job *jobs, size_t n) {
  for (size_t i = 0; i < n; i++) free(jobs[i].log), jobs[i].log = NULL;
}

int ptxas_top_version(void) {
  /* refused a version it does not know, ptxas names its own */
  const char *probe = ".version 99.9\n.target sm_80\n.address_size 64\n";
  ptxas_job job = {.text = probe, .len = strlen(probe), .arch = "sm_80"};
  ptxas_run(&job, 1);
  const char *cur = strstr(job.log ? job.log : "", "current version is '");
  int v = 0;
  if (cur && strchr(cur + 20, '.')) v = atoi(cur + 20) * 10 + atoi(strchr(cur + 20, '.') + 1);
  ptxas_jobs_free(&job, 1);
  return v;
}
