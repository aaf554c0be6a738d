/* tools/gpu-job.sh, the runner of one device plan job, without a GPU: on
 * the fake libcuda (tests/fake_cuda.c) it runs exactly the job's cases (its
 * JUnit holds the names `--list` gives for the job, and validates), passes
 * only when every case passed, refuses a job that reached another device
 * before running anything, and stops on bad arguments with exit 2. */
#include "util.h"
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

static char out[256];

static int setup(void **state) {
  (void)state;
  snprintf(out, sizeof out, "/tmp/tcmma-gpu-job-%d", (int)getpid());
  return fake_cuda_build() ? 0 : -1;
}

static int teardown(void **state) {
  (void)state;
  char cmd[300];
  snprintf(cmd, sizeof cmd, "rm -rf %s", out);
  fake_cuda_remove();
  return system(cmd) == 0 ? 0 : -1;
}

/* Runs the script with env (NAME=VALUE words) and args in the source root,
 * output in `out`; its exit status. */
static int job(const char *env, const char *args) {
  char cmd[2048];
  const char *bin = getenv("TCMMA_BIN");
  snprintf(cmd, sizeof cmd,
           "cd '%s' && rm -rf '%s' && env OUT='%s' TCMMA_GPU_JOB_BUILD=0 TCMMA_BIN='%s' "
           "TCMMA_LIBCUDA='%s' %s sh tools/gpu-job.sh %s",
           src_path("."), out, out, bin && *bin ? bin : "build/tcmma", fake_cuda_build(), env,
           args);
  int st = system(cmd);
  return WIFEXITED(st) ? WEXITSTATUS(st) : -1;
}

static const char *file(const char *name) {
  static char buf[400];
  snprintf(buf, sizeof buf, "%s/%s", out, name);
  return buf;
}

/* Every name of the job's --list is a testcase of its JUnit, and the
 * JUnit holds no other; the file validates. */
static void junit_is_the_job(const char *tag) {
  char name[64], cmd[700];
  snprintf(name, sizeof name, "cases-%s.txt", tag);
  char *list = read_file(file(name), NULL);
  snprintf(name, sizeof name, "junit-%s.xml", tag);
  char *xml = read_file(file(name), NULL);
  assert_non_null(list), assert_non_null(xml);
  size_t cases = 0, testcases = 0;
  for (const char *p = xml; (p = strstr(p, "<testcase ")); p++) testcases++;
  for (char *line = strtok(list, "\n"); line; line = strtok(NULL, "\n"), cases++) {
    const char *at = strrchr(line, ' '); /* "accept ARM   NAME": the name is the last word */
    char want[512];
    snprintf(want, sizeof want, "<testcase name=\"%s\"", at ? at + 1 : line);
    if (!strstr(xml, want)) fail_msg("the JUnit lacks %s", want);
  }
  assert_true(cases > 0);
  assert_int_equal(cases, testcases);
  snprintf(cmd, sizeof cmd, "sh '%s' junit '%s'", src_path("tests/report-check.sh"), file(name));
  assert_int_equal(system(cmd), 0);
  free(list), free(xml);
}

/* A job of the planning-only cases passes: exit 0. */
static void passing_job(void **state) {
  (void)state;
  assert_int_equal(job("FAKE_CUDA_CCS=50", "--plan 50,80 --device 50 --shard 2/3"), 0);
  junit_is_the_job("cc50-2of3");
}

/* A job whose kernels compute nothing fails: exit 1, every case reported. */
static void failing_job(void **state) {
  (void)state;
  assert_int_equal(job("FAKE_CUDA_CCS=80 FAKE_CUDA_KERNEL=noop TCMMA_CACHE=0",
                       "--plan 75,80 --device 80 --shard 70/70"), 1);
  junit_is_the_job("cc80-70of70");
}

/* A job on another device runs nothing: exit 1, no JUnit. */
static void wrong_device_runs_nothing(void **state) {
  (void)state;
  assert_int_equal(job("FAKE_CUDA_CCS=90", "--plan 75,80 --device 80 --shard 1/70"), 1);
  assert_int_equal(access(file("junit-cc80-1of70.xml"), F_OK), -1);
  assert_int_equal(job("FAKE_CUDA_CCS=", "--plan 75,80 --device 80 --shard 1/70"), 1);
  assert_int_equal(access(file("junit-cc80-1of70.xml"), F_OK), -1);
}

static void bad_arguments(void **state) {
  (void)state;
  assert_int_equal(job("", "--plan 75,80 --device 70 --shard 1/2"), 2);
  assert_int_equal(job("", "--plan 75,80 --device 80 --shard 3/2"), 2);
  assert_int_equal(job("", "--plan 75,80 --device 80"), 2);
  assert_int_equal(job("", "--bogus"), 2);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(passing_job),
      cmocka_unit_test(failing_job),
      cmocka_unit_test(wrong_device_runs_nothing),
      cmocka_unit_test(bad_arguments),
  };
  return cmocka_run_group_tests(tests, setup, teardown);
}
