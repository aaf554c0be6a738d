/* Running the CLI from tests: fork/exec with captured stdout and stderr. */
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>
#include "util.h"

char *read_file(const char *path, size_t *len) {
  FILE *f = fopen(path, "rb");
  if (!f) return NULL;
  size_t cap = 4096, n = 0;
  char *buf = malloc(cap);
  for (size_t got; buf && (got = fread(buf + n, 1, cap - n - 1, f)) > 0;) {
    n += got;
    if (cap - n < 2) {
      char *grown = realloc(buf, cap *= 2);
      if (!grown) { free(buf); buf = NULL; }
      buf = grown;
    }
  }
  fclose(f);
  if (!buf) return NULL;
  buf[n] = '\0';
  if (len) *len = n;
  return buf;
}

const char *src_path(const char *rel) {
  static char buf[4096];
  const char *root = getenv("TCMMA_SRCDIR");
  snprintf(buf, sizeof buf, "%s/%s", root && *root ? root : ".", rel);
  return buf;
}

int run_script(const char *rel) {
  char cmd[4200];
  snprintf(cmd, sizeof cmd, "sh '%s' 2>&1", src_path(rel));
  FILE *p = popen(cmd, "r");
  if (!p) return -1;
  char line[4096];
  while (fgets(line, sizeof line, p)) fputs(line, stdout);
  return pclose(p);
}

static char *temp_file(char *tmpl) {
  int fd = mkstemp(tmpl);
  if (fd < 0) return NULL;
  close(fd);
  return tmpl;
}

cli_result run_cli(const char *const *argv, const char *input) {
  return run_cli_in(NULL, argv, input);
}

cli_result run_cli_in(const char *dir, const char *const *argv, const char *input) {
  cli_result r = {.exit_code = -1};
  const char *bin = getenv("TCMMA_BIN");
  if (!bin || !*bin) bin = "build/tcmma";
  char abs_bin[4096];
  if (bin[0] != '/' && getcwd(abs_bin, sizeof abs_bin)) { /* before the child's chdir */
    size_t n = strlen(abs_bin);
    snprintf(abs_bin + n, sizeof abs_bin - n, "/%s", bin);
    bin = abs_bin;
  }
  char out_path[] = "/tmp/tcmma-test-out-XXXXXX", err_path[] = "/tmp/tcmma-test-err-XXXXXX",
       in_path[] = "/tmp/tcmma-test-in-XXXXXX";
  if (!temp_file(out_path) || !temp_file(err_path) || !temp_file(in_path)) return r;
  if (input) {
    FILE *f = fopen(in_path, "wb");
    if (f) { fputs(input, f); fclose(f); }
  }
  int argc = 0;
  while (argv && argv[argc]) argc++;
  char **args = calloc((size_t)argc + 2, sizeof *args);
  args[0] = (char *)bin;
  for (int i = 0; i < argc; i++) args[i + 1] = (char *)argv[i];
  pid_t pid = fork();
  if (pid == 0) {
    int in = open(in_path, O_RDONLY), out = open(out_path, O_WRONLY | O_TRUNC),
        err = open(err_path, O_WRONLY | O_TRUNC);
    dup2(in, 0), dup2(out, 1), dup2(err, 2);
    const char *root = dir ? dir : getenv("TCMMA_SRCDIR");
    if (root && *root && chdir(root) != 0) _exit(126);
    execv(bin, args);
    _exit(127);
  }
  int status = 0;
  if (pid > 0 && waitpid(pid, &status, 0) == pid)
    r.exit_code = WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
  free(args);
  r.out = read_file(out_path, &r.out_len);
  r.err = read_file(err_path, &r.err_len);
  unlink(out_path), unlink(err_path), unlink(in_path);
  return r;
}

void cli_result_free(cli_result *r) {
  free(r->out);
  free(r->err);
  r->out = r->err = NULL;
}

long json_int_of(const char *json, const char *key) {
  char pat[64];
  snprintf(pat, sizeof pat, "\"%s\": ", key);
  const char *p = json ? strstr(json, pat) : NULL;
  return p ? strtol(p + strlen(pat), NULL, 10) : -1;
}
