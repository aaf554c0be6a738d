/* Clocks, medians, fresh processes and scratch files for tcmma bench. */
#include <errno.h>
#include <fcntl.h>
#include <ftw.h>
#include <signal.h>
#include <spawn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/time.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>
#include "bench.h"

double bench_wall(void) {
  struct timespec t;
  clock_gettime(CLOCK_MONOTONIC, &t);
  return (double)t.tv_sec + (double)t.tv_nsec * 1e-9;
}

double bench_cpu(void) {
  struct timespec t;
  clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &t);
  return (double)t.tv_sec + (double)t.tv_nsec * 1e-9;
}

bench_time bench_now(void) { return (bench_time){bench_wall(), bench_cpu()}; }

bench_time bench_since(bench_time start) {
  return (bench_time){bench_wall() - start.wall, bench_cpu() - start.cpu};
}

static int cmp_double(const void *a, const void *b) {
  double x = *(const double *)a, y = *(const double *)b;
  return (x > y) - (x < y);
}

double bench_median(double *v, size_t n) {
  if (!n) return 0;
  qsort(v, n, sizeof *v, cmp_double);
  return v[(n - 1) / 2];
}

extern char **environ;

/* environ with the settings of add replacing the ones they name. */
static char **merged_env(const char *const *add) {
  size_t n = 0, k = 0, extra = 0;
  while (environ[n]) n++;
  while (add && add[extra]) extra++;
  char **env = calloc(n + extra + 1, sizeof *env);
  if (!env) return NULL;
  for (size_t i = 0; i < n; i++) {
    bool replaced = false;
    for (size_t j = 0; j < extra && !replaced; j++) {
      size_t name = strcspn(add[j], "=");
      replaced = strncmp(environ[i], add[j], name + 1) == 0;
    }
    if (!replaced) env[k++] = environ[i];
  }
  for (size_t j = 0; j < extra; j++) env[k++] = (char *)add[j];
  return env;
}

static double seconds(struct timeval t) { return (double)t.tv_sec + (double)t.tv_usec * 1e-6; }

/* posix_spawn, not fork: glibc spawns with CLONE_VM|CLONE_VFORK, so the child
 * never owns a copy of this process's address space. After fork, execve's
 * teardown of that copy (NVRTC's 109 MB mapped, in bench compile) is charged
 * to the child's system time, ~1 ms a process, which is not the measured
 * program's cost. */
bool bench_spawn(const char *path, const char *const *argv, const char *const *env, int out_fd,
                 bench_time *t) {
  char self[4096];
  if (!path) {
    ssize_t n = readlink("/proc/self/exe", self, sizeof self - 1);
    if (n <= 0) return false;
    self[n] = '\0';
    path = self;
  }
  char **envp = merged_env(env);
  if (!envp) return false;
  posix_spawn_file_actions_t fa;
  if (posix_spawn_file_actions_init(&fa) != 0) return free(envp), false;
  bool ready = posix_spawn_file_actions_addopen(&fa, 0, "/dev/null", O_RDWR, 0) == 0 &&
               (out_fd >= 0 ? posix_spawn_file_actions_adddup2(&fa, out_fd, 1)
                            : posix_spawn_file_actions_adddup2(&fa, 0, 1)) == 0 &&
               posix_spawn_file_actions_adddup2(&fa, 0, 2) == 0;
  double start = bench_wall();
  pid_t pid = -1;
  bool spawned = ready && posix_spawn(&pid, path, &fa, NULL, (char *const *)argv, envp) == 0;
  posix_spawn_file_actions_destroy(&fa);
  free(envp);
  if (!spawned) return false;
  int status = 0;
  struct rusage ru;
  while (wait4(pid, &status, 0, &ru) < 0)
    if (errno != EINTR) return false;
  t->wall = bench_wall() - start;
  t->cpu = seconds(ru.ru_utime) + seconds(ru.ru_stime);
  return WIFEXITED(status) && WEXITSTATUS(status) == 0;
}

int bench_parse_args(const char *name, const char *help, int argc, char **argv, bench_args *a) {
  for (int i = 1; i < argc; i++) {
    const char *v;
    if (cli_is_help(argv[i])) return fputs(help, stdout), CLI_OK;
    if (strcmp(argv[i], "--json") == 0) {
      a->json = true;
    } else if (strcmp(argv[i], "--kernels") == 0) {
      if (!(v = cli_value("bench", argc, argv, &i)) ||
          !cli_int("bench", "--kernels", v, 1, 256, &a->kernels))
        return CLI_USAGE;
    } else if (strcmp(argv[i], "--repeat") == 0) {
      if (!(v = cli_value("bench", argc, argv, &i)) ||
          !cli_int("bench", "--repeat", v, 1, 64, &a->repeat))
        return CLI_USAGE;
    } else {
      return cli_usage("bench", "unknown option '%s' of bench %s: expected --kernels, "
                       "--repeat or --json", argv[i], name);
    }
  }
  return -1;
}

bool bench_tmpdir(char *buf, size_t cap) {
  const char *tmp = getenv("TMPDIR");
  int w = snprintf(buf, cap, "%s/tcmma-bench-XXXXXX", tmp && *tmp ? tmp : "/tmp");
  return w > 0 && (size_t)w < cap && mkdtemp(buf);
}

static int remove_one(const char *path, const struct stat *st, int flag, struct FTW *ftw) {
  (void)st, (void)flag, (void)ftw;
  remove(path);
  return 0;
}

void bench_rmdir(const char *dir) { nftw(dir, remove_one, 16, FTW_DEPTH | FTW_PHYS); }

bool bench_write_file(const char *path, const void *data, size_t n) {
  FILE *f = fopen(path, "wb");
  if (!f) return false;
  bool ok = fwrite(data, 1, n, f) == n;
  return (fclose(f) == 0) && ok;
}
