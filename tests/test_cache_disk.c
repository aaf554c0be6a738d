/* The disk cache as another local user or a careless setup would meet it
 * (docs/nvrtc.md, Cache): a directory that is not the user's own or is
 * writable by others is refused with one warning and the compile runs
 * fresh; a symlink someone else owns is refused; a planted (forged) entry is
 * a miss; a FIFO in place of an entry is a miss, not a hang; files are
 * private; stale temporary files are swept; the size bound evicts the least
 * recently used first; `tcmma cache` reports and clears. Each setup runs in
 * a fresh CLI process, where the one warning is its own. */
#include "util.h"
#include <dirent.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>
#include "nvrtc/sha256.h"

#define NOBODY 65534

static char root[64], cache[128];

static int setup(void **state) {
  (void)state;
  snprintf(root, sizeof root, "/tmp/tcmma-disk-XXXXXX");
  if (!mkdtemp(root)) return -1;
  snprintf(cache, sizeof cache, "%s/cache", root);
  setenv("TCMMA_CACHE_DIR", cache, 1);
  unsetenv("TCMMA_CACHE");
  unsetenv("TCMMA_CACHE_MAX_BYTES");
  return 0;
}

static int teardown(void **state) {
  (void)state;
  char cmd[128];
  snprintf(cmd, sizeof cmd, "rm -rf '%s'", root);
  unsetenv("TCMMA_CACHE_DIR");
  unsetenv("TCMMA_CACHE_MAX_BYTES");
  return system(cmd) == 0 ? 0 : -1;
}

/* A kernel whose PTX stores `value`: distinct programs, distinct entries. */
static const char *kernel(int value) {
  static char buf[4][160];
  static int next;
  char *b = buf[next++ % 4];
  snprintf(b, sizeof buf[0], "extern \"C\" __global__ void k(int *p) { *p = %d; }\n", value);
  return b;
}

/* Compiles kernel(value) from stdin in a fresh process, PTX to stdout. */
static cli_result compile(int value) {
  const char *argv[] = {"compile", "-", "-o", "-", NULL};
  return run_cli(argv, kernel(value));
}

static bool stored(const cli_result *r, int value) {
  char want[32];
  snprintf(want, sizeof want, "%%r1, %d;", value);
  return r->out && strstr(r->out, want);
}

static void expect(int value, const char *how, const char *warning) {
  cli_result r = compile(value);
  if (r.exit_code != 0 || !stored(&r, value) || !strstr(r.err, how) ||
      (warning ? !strstr(r.err, warning) : strstr(r.err, "warning") != NULL))
    fail_msg("kernel %d: expected '%s'%s%s; got exit %d:\n%s", value, how,
             warning ? " with warning " : " and no warning", warning ? warning : "", r.exit_code,
             r.err);
  cli_result_free(&r);
}

/* The entry files (<64 hex>.bin) of the cache directory: how many, and the
 * path of the last one. */
static int entries(char *last, size_t cap) {
  DIR *d = opendir(cache);
  int n = 0;
  if (!d) return 0;
  for (struct dirent *e; (e = readdir(d));) {
    size_t len = strlen(e->d_name);
    if (len != 68 || strcmp(e->d_name + 64, ".bin") != 0) continue;
    n++;
    if (last) snprintf(last, cap, "%s/%s", cache, e->d_name);
  }
  closedir(d);
  return n;
}

static mode_t mode_of(const char *path) {
  struct stat st;
  assert_int_equal(lstat(path, &st), 0);
  return st.st_mode & 07777;
}

static void private_files(void **state) {
  (void)state;
  expect(1, "compiled", NULL);
  expect(1, "cache hit", NULL);
  assert_int_equal(mode_of(cache), 0700);
  char entry[512], secret[256];
  assert_int_equal(entries(entry, sizeof entry), 1);
  assert_int_equal(mode_of(entry), 0600);
  snprintf(secret, sizeof secret, "%s/secret", cache);
  assert_int_equal(mode_of(secret), 0600);
}

static void world_writable_refused(void **state) {
  (void)state;
  assert_int_equal(mkdir(cache, 0700), 0);
  assert_int_equal(chmod(cache, 0777), 0);
  expect(2, "compiled", "cache directory");
  expect(2, "compiled", "writable by group and others (mode 0777)"); /* nothing on disk */
  assert_int_equal(entries(NULL, 0), 0);
  assert_int_equal(chmod(cache, 0720), 0); /* group-writable is refused too */
  expect(2, "compiled", "writable by its group");
  assert_int_equal(chmod(cache, 0700), 0); /* once fixed, used again */
  expect(2, "compiled", NULL);
  expect(2, "cache hit", NULL);
}

/* A directory of someone else's, straight or through a symlink; a symlink
 * someone else owns, even to the user's own directory. Needs root to fake
 * the other user (chown). */
static void foreign_refused(void **state) {
  (void)state;
  if (geteuid() != 0) {
    print_message("not root: cannot give files to another user here\n");
    skip();
  }
  char theirs[128], link_to_theirs[128], mine[128];
  snprintf(theirs, sizeof theirs, "%s/theirs", root);
  snprintf(link_to_theirs, sizeof link_to_theirs, "%s/link", root);
  snprintf(mine, sizeof mine, "%s/mine", root);
  assert_int_equal(mkdir(theirs, 0700), 0);
  assert_int_equal(chown(theirs, NOBODY, NOBODY), 0);
  setenv("TCMMA_CACHE_DIR", theirs, 1);
  expect(3, "compiled", "owned by uid 65534, not by you (uid 0)");
  assert_int_equal(symlink(theirs, link_to_theirs), 0);
  setenv("TCMMA_CACHE_DIR", link_to_theirs, 1);
  expect(3, "compiled", "owned by uid 65534");
  assert_int_equal(mkdir(mine, 0700), 0);
  assert_int_equal(unlink(link_to_theirs), 0);
  assert_int_equal(symlink(mine, link_to_theirs), 0);
  assert_int_equal(lchown(link_to_theirs, NOBODY, NOBODY), 0);
  expect(3, "compiled", "a symlink owned by uid 65534");
  /* a symlink of the user's own to the user's own directory is fine */
  assert_int_equal(lchown(link_to_theirs, 0, 0), 0);
  expect(3, "compiled", NULL);
  expect(3, "cache hit", NULL);
  setenv("TCMMA_CACHE_DIR", cache, 1);
}

/* Rewrites the entry's PTX to store 666 and recomputes its checksum the way
 * an attacker without the secret could: plain SHA-256, or HMAC under a key
 * of the attacker's. */
static void forge(const char *entry, int way) {
  size_t len;
  char *bytes = read_file(entry, &len);
  assert_non_null(bytes);
  const size_t magic = 14, mac_at = magic + 32 + 16, head = mac_at + 32;
  char *at = memmem(bytes + head, len - head, "%r1, 4;", 7);
  assert_non_null(at);
  memcpy(at, "%r1, 6;", 7); /* same length: the header's lengths stay right */
  unsigned char sum[32];
  if (way == 0) {
    tcmma__sha256_state s;
    tcmma__sha256_init(&s);
    tcmma__sha256_update(&s, bytes, mac_at);
    tcmma__sha256_update(&s, bytes + head, len - head);
    tcmma__sha256_final(&s, sum);
  } else {
    unsigned char key[32] = "the attacker's own key";
    tcmma__sha256_hmac_state h;
    tcmma__sha256_hmac_init(&h, key, sizeof key);
    tcmma__sha256_hmac_update(&h, bytes, mac_at);
    tcmma__sha256_hmac_update(&h, bytes + head, len - head);
    tcmma__sha256_hmac_final(&h, sum);
  }
  memcpy(bytes + mac_at, sum, 32);
  FILE *f = fopen(entry, "wb");
  assert_non_null(f);
  assert_int_equal(fwrite(bytes, 1, len, f), len);
  fclose(f);
  free(bytes);
}

static void forged_entry_missed(void **state) {
  (void)state;
  for (int way = 0; way < 2; way++) {
    expect(4, way ? "cache hit" : "compiled", NULL);
    char entry[512];
    assert_int_equal(entries(entry, sizeof entry), 1);
    forge(entry, way);
    expect(4, "compiled", NULL); /* the genuine program, not the planted one */
    expect(4, "cache hit", NULL); /* the entry was written again, genuine */
  }
}

/* Runs compile(value) in a child and waits for it, a minute at most (a
 * guard against a hang, not a time limit); its result. */
static cli_result compile_guarded(int value) {
  int fds[2];
  assert_int_equal(pipe(fds), 0);
  pid_t pid = fork();
  if (pid == 0) {
    close(fds[0]);
    cli_result r = compile(value);
    char code = (char)r.exit_code;
    bool hit = r.err && strstr(r.err, "cache hit");
    char msg[2] = {code, (char)(stored(&r, value) ? (hit ? 'h' : 'c') : 'x')};
    _exit(write(fds[1], msg, 2) == 2 ? 0 : 1);
  }
  close(fds[1]);
  int status = 0;
  pid_t done = 0;
  for (int tenths = 0; tenths < 600 && (done = waitpid(pid, &status, WNOHANG)) == 0; tenths++)
    usleep(100000);
  if (done != pid) {
    kill(pid, SIGKILL), waitpid(pid, &status, 0);
    fail_msg("the compile still hangs on the FIFO after a minute");
  }
  char msg[2] = {0, 0};
  assert_int_equal(read(fds[0], msg, 2), 2);
  close(fds[0]);
  cli_result r = {.exit_code = msg[0]};
  r.out = strdup(msg[1] == 'h' ? "hit" : msg[1] == 'c' ? "compiled" : "wrong");
  return r;
}

static void fifo_entry_missed(void **state) {
  (void)state;
  expect(5, "compiled", NULL);
  char entry[512];
  assert_int_equal(entries(entry, sizeof entry), 1);
  assert_int_equal(unlink(entry), 0);
  assert_int_equal(mkfifo(entry, 0600), 0);
  cli_result r = compile_guarded(5);
  assert_int_equal(r.exit_code, 0);
  assert_string_equal(r.out, "compiled");
  cli_result_free(&r);
  struct stat st;
  assert_int_equal(lstat(entry, &st), 0);
  assert_true(S_ISREG(st.st_mode)); /* replaced by a real entry */
  expect(5, "cache hit", NULL);
}

/* Sets a file's mtime to `ago` seconds in the past. */
static void age(const char *path, int ago) {
  struct timespec t[2];
  clock_gettime(CLOCK_REALTIME, &t[0]);
  t[0].tv_sec -= ago;
  t[1] = t[0];
  assert_int_equal(utimensat(AT_FDCWD, path, t, AT_SYMLINK_NOFOLLOW), 0);
}

static void stale_temp_files_swept(void **state) {
  (void)state;
  expect(6, "compiled", NULL);
  char stale[256], fresh[256];
  snprintf(stale, sizeof stale, "%s/%064d.bin.tmp.dead", cache, 0);
  snprintf(fresh, sizeof fresh, "%s/%064d.bin.tmp.live", cache, 1);
  FILE *f = fopen(stale, "w");
  fputs("half an entry", f);
  fclose(f);
  f = fopen(fresh, "w");
  fclose(f);
  age(stale, 3600); /* an hour: its writer is long dead */
  /* the sweep comes with a walk of the directory, which a store makes when
   * there is no running estimate (or it crosses the bound, or every 256) */
  char state_file[300];
  snprintf(state_file, sizeof state_file, "%s/upkeep", cache);
  assert_int_equal(unlink(state_file), 0);
  expect(7, "compiled", NULL); /* a store runs the upkeep */
  assert_int_not_equal(access(stale, F_OK), 0);
  assert_int_equal(access(fresh, F_OK), 0); /* a writer may still be renaming it */
}

/* Whether name is among the n names of list. */
static bool listed(char (*list)[80], int n, const char *name) {
  for (int i = 0; i < n; i++)
    if (strcmp(list[i], name) == 0) return true;
  return false;
}

/* Compiles kernel(value) (a miss) and puts the path of the entry it adds
 * into path. */
static void entry_of(int value, char *path, size_t cap) {
  char before[16][80];
  int n = 0;
  DIR *d = opendir(cache);
  for (struct dirent *e; d && (e = readdir(d)) && n < 16;)
    if (strlen(e->d_name) == 68) snprintf(before[n++], sizeof before[0], "%s", e->d_name);
  if (d) closedir(d);
  expect(value, "compiled", NULL);
  path[0] = '\0';
  d = opendir(cache);
  assert_non_null(d);
  for (struct dirent *e; (e = readdir(d));)
    if (strlen(e->d_name) == 68 && !listed(before, n, e->d_name))
      snprintf(path, cap, "%s/%s", cache, e->d_name);
  closedir(d);
  assert_true(path[0] != '\0');
}

static void size_bound_evicts_least_recent(void **state) {
  (void)state;
  char a[512], b[512], c[512];
  entry_of(10, a, sizeof a);
  age(a, 300);
  entry_of(11, b, sizeof b);
  age(b, 200);
  struct stat st;
  assert_int_equal(stat(a, &st), 0);
  long long one = (long long)st.st_size;
  /* room for two entries (the three are about the same size) once the
   * upkeep evicts down to its low-water mark, 90% of the bound */
  char bound[32];
  snprintf(bound, sizeof bound, "%lld", (2 * one + one / 2) * 10 / 9);
  setenv("TCMMA_CACHE_MAX_BYTES", bound, 1);
  expect(10, "cache hit", NULL); /* a hit makes a the most recently used */
  entry_of(12, c, sizeof c);     /* a store over the bound: b, the least recent, goes */
  assert_int_equal(access(a, F_OK), 0);
  assert_int_not_equal(access(b, F_OK), 0);
  assert_int_equal(access(c, F_OK), 0);
  assert_int_equal(entries(NULL, 0), 2);
  /* a bad bound is an error naming it */
  setenv("TCMMA_CACHE_MAX_BYTES", "64M", 1);
  cli_result r = compile(13);
  assert_int_equal(r.exit_code, 1);
  assert_non_null(strstr(r.err, "TCMMA_CACHE_MAX_BYTES='64M'"));
  cli_result_free(&r);
  unsetenv("TCMMA_CACHE_MAX_BYTES");
}

static void long_path_warns(void **state) {
  (void)state;
  char *path = malloc(5000);
  assert_non_null(path);
  memset(path, 'd', 4999);
  path[0] = '/', path[4999] = '\0';
  setenv("TCMMA_CACHE_DIR", path, 1);
  free(path);
  expect(14, "compiled", "longer than PATH_MAX");
  setenv("TCMMA_CACHE_DIR", cache, 1);
}

static void cache_command(void **state) {
  (void)state;
  const char *info[] = {"cache", "--json", NULL}, *clear[] = {"cache", "clear", "--json", NULL};
  cli_result r = run_cli(info, NULL);
  assert_int_equal(r.exit_code, 0);
  assert_int_equal(json_int_of(r.out, "entries"), 0); /* no directory yet */
  assert_non_null(strstr(r.out, "\"enabled\": true"));
  cli_result_free(&r);
  expect(20, "compiled", NULL);
  expect(21, "compiled", NULL);
  char entry[512];
  entries(entry, sizeof entry);
  struct stat st;
  assert_int_equal(stat(entry, &st), 0);
  r = run_cli(info, NULL);
  assert_int_equal(r.exit_code, 0);
  char want[256];
  snprintf(want, sizeof want, "\"directory\": \"%s\"", cache);
  assert_non_null(strstr(r.out, want));
  /* the two programs and NVRTC's facts file (nvrtc/nvrtc_facts.c) */
  assert_int_equal(json_int_of(r.out, "entries"), 3);
  assert_true(json_int_of(r.out, "bytes") >= 2 * (long)st.st_size - 64);
  assert_int_equal(json_int_of(r.out, "max_bytes"), 256L << 20);
  cli_result_free(&r);
  r = run_cli(clear, NULL);
  assert_int_equal(r.exit_code, 0);
  assert_int_equal(json_int_of(r.out, "removed_entries"), 3);
  cli_result_free(&r);
  assert_int_equal(entries(NULL, 0), 0);
  expect(20, "compiled", NULL); /* cleared: compiled again */
  /* refused: reported, and never cleared */
  assert_int_equal(chmod(cache, 0777), 0);
  r = run_cli(info, NULL);
  assert_int_equal(r.exit_code, 0);
  assert_non_null(strstr(r.out, "\"enabled\": false"));
  assert_non_null(strstr(r.out, "writable by group and others"));
  cli_result_free(&r);
  r = run_cli(clear, NULL);
  assert_int_equal(r.exit_code, 1);
  assert_non_null(strstr(r.err, "writable by group and others"));
  cli_result_free(&r);
  assert_int_equal(entries(NULL, 0), 1);
  chmod(cache, 0700);
  setenv("TCMMA_CACHE", "0", 1);
  const char *text[] = {"cache", NULL};
  r = run_cli(text, NULL);
  assert_int_equal(r.exit_code, 0);
  assert_non_null(strstr(r.out, "TCMMA_CACHE=0"));
  cli_result_free(&r);
  unsetenv("TCMMA_CACHE");
  const char *bad[] = {"cache", "purge", NULL};
  r = run_cli(bad, NULL);
  assert_int_equal(r.exit_code, 2);
  assert_non_null(strstr(r.err, "'purge'"));
  cli_result_free(&r);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test_setup_teardown(private_files, setup, teardown),
      cmocka_unit_test_setup_teardown(world_writable_refused, setup, teardown),
      cmocka_unit_test_setup_teardown(foreign_refused, setup, teardown),
      cmocka_unit_test_setup_teardown(forged_entry_missed, setup, teardown),
      cmocka_unit_test_setup_teardown(fifo_entry_missed, setup, teardown),
      cmocka_unit_test_setup_teardown(stale_temp_files_swept, setup, teardown),
      cmocka_unit_test_setup_teardown(size_bound_evicts_least_recent, setup, teardown),
      cmocka_unit_test_setup_teardown(long_path_warns, setup, teardown),
      cmocka_unit_test_setup_teardown(cache_command, setup, teardown),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
