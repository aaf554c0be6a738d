/* A scratch compile-cache directory per test (tests/util.h). */
#include "util.h"
#include <ftw.h>
#include <sys/wait.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>
#include "tcmma/compile.h"

void test_cache_fresh(char *dir, size_t cap, const char *tag) {
  static int n;
  snprintf(dir, cap, "/tmp/tcmma-test-%s-%d-%d", tag, (int)getpid(), n++);
  setenv("TCMMA_CACHE_DIR", dir, 1);
  unsetenv("TCMMA_CACHE");
  unsetenv("TCMMA_PTX_TARGET");
  tcmma_cache_clear_memory();
}

static int remove_one(const char *path, const struct stat *st, int flag, struct FTW *ftw) {
  (void)st, (void)flag, (void)ftw;
  return remove(path);
}

int test_in_child(int (*fn)(void)) {
  fflush(NULL);
  pid_t pid = fork();
  if (pid == 0) _exit(fn());
  int status = 0;
  assert_true(pid > 0);
  assert_int_equal(waitpid(pid, &status, 0), pid);
  assert_true(WIFEXITED(status));
  return WEXITSTATUS(status);
}

int test_cache_remove(const char *dir) {
  if (access(dir, F_OK) != 0) return 0; /* never made: nothing to remove */
  return nftw(dir, remove_one, 16, FTW_DEPTH | FTW_PHYS) == 0 ? 0 : -1;
}
