/* The include memo across processes (nvrtc/includes.c): a fresh process
 * trusts a remembered header read only on the terms the process that read it
 * did (same device, inode, size, mtime and ctime, settled when read). A
 * header rewritten at the same size with its mtime set back changes its
 * ctime, so the next process reads it again and compiles the new value.
 * Each step runs in a fresh child process. */
#include "util.h"
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>
#include "tcmma/tcmma.h"

static char cache_dir[256], src_dir[300], header[400], source_path[400];

static const char source[] =
    "#include \"h.h\"\n"
    "extern \"C\" __global__ void k(int *d) { d[threadIdx.x] = VAL; }\n";

/* 1 a hit, 2 the PTX holds want, 64 + status on a failed compile. */
static const char *want;

static int child_compile(void) {
  tcmma_program p;
  tcmma_compile_opts o = TCMMA_COMPILE_OPTS_INIT(.name = source_path);
  tcmma_status st = tcmma_compile(source, strlen(source), &o, &p, NULL);
  if (st != TCMMA_OK) return 64 + (int)st;
  int seen = (p.cache_hit ? 1 : 0) | (strstr(p.ptx, want) ? 2 : 0);
  if (p.cache_note) seen = 32;
  tcmma_program_free(&p);
  return seen;
}

static void write_header(const char *text) {
  int fd = open(header, O_WRONLY | O_CREAT | O_TRUNC, 0600);
  assert_true(fd >= 0);
  assert_int_equal(write(fd, text, strlen(text)), (ssize_t)strlen(text));
  close(fd);
}

static void same_size_rewrite_seen_across_processes(void **state) {
  (void)state;
  test_cache_fresh(cache_dir, sizeof cache_dir, "memo");
  snprintf(src_dir, sizeof src_dir, "%s-src", cache_dir);
  assert_int_equal(mkdir(src_dir, 0700), 0);
  snprintf(header, sizeof header, "%s/h.h", src_dir);
  snprintf(source_path, sizeof source_path, "%s/k.cu", src_dir);
  write_header("#define VAL 1111\n");
  struct stat before;
  assert_int_equal(stat(header, &before), 0);
  sleep(3); /* settled: the memo may remember this read (memo_trusted) */
  want = "1111";
  assert_int_equal(test_in_child(child_compile), 2);     /* compiled; the read remembered on disk */
  assert_int_equal(test_in_child(child_compile), 1 | 2); /* a hit in a fresh process */
  /* the same size, the mtime set back: only the ctime tells */
  write_header("#define VAL 2222\n");
  struct timespec times[2] = {before.st_atim, before.st_mtim};
  assert_int_equal(utimensat(AT_FDCWD, header, times, 0), 0);
  want = "2222";
  assert_int_equal(test_in_child(child_compile), 2);     /* read again: a new key, compiled */
  assert_int_equal(test_in_child(child_compile), 1 | 2);
  unlink(header), rmdir(src_dir);
  assert_int_equal(test_cache_remove(cache_dir), 0);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(same_size_rewrite_seen_across_processes),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
