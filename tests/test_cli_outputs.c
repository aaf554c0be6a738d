/* The CLI never loses data or looks successful when it failed: an output
 * that is its own input (the same path, a symlink, a hard link, a .ptx input
 * whose default output is itself) is refused and the input kept; a compile
 * that made nothing writes no file; a failing command asked for --json still
 * prints an object naming the error. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include "util.h"

static const char source[] = "extern \"C\" __global__ void k(int *p) { *p = 1; }\n";

static char dir[64];

static int make_dir(void **state) {
  (void)state;
  strcpy(dir, "/tmp/tcmma-outputs-XXXXXX");
  if (!mkdtemp(dir)) return -1;
  char path[128];
  snprintf(path, sizeof path, "%s/k.cu", dir);
  FILE *f = fopen(path, "w");
  if (!f) return -1;
  fputs(source, f);
  fclose(f);
  return 0;
}

static int remove_dir(void **state) {
  (void)state;
  char cmd[128];
  snprintf(cmd, sizeof cmd, "rm -rf '%s'", dir);
  return system(cmd) == 0 ? 0 : -1;
}

/* The file at dir/name still holds the source. */
static void assert_still_source(const char *name) {
  char path[128];
  snprintf(path, sizeof path, "%s/%s", dir, name);
  char *text = read_file(path, NULL);
  assert_non_null(text);
  assert_string_equal(text, source);
  free(text);
}

static void refused(const char *const *argv, const char *kept) {
  cli_result r = run_cli_in(dir, argv, NULL);
  assert_int_equal(r.exit_code, 1);
  if (!strstr(r.err, "is the input")) fail_msg("no refusal: %s", r.err);
  assert_still_source(kept);
  cli_result_free(&r);
}

static void output_over_its_input_is_refused(void **state) {
  (void)state;
  char a[128], b[128];
  snprintf(a, sizeof a, "%s/k.cu", dir);
  snprintf(b, sizeof b, "%s/link.cu", dir);
  assert_int_equal(symlink(a, b), 0);
  snprintf(b, sizeof b, "%s/hard.cu", dir);
  assert_int_equal(link(a, b), 0);
  snprintf(b, sizeof b, "%s/k.ptx", dir); /* a "PTX" input: the default output is itself */
  assert_int_equal(link(a, b), 0);
  refused((const char *[]){"compile", "k.cu", "-o", "k.cu", NULL}, "k.cu");
  refused((const char *[]){"compile", "k.cu", "-o", "./k.cu", NULL}, "k.cu");
  refused((const char *[]){"compile", "k.cu", "-o", "link.cu", NULL}, "k.cu");
  refused((const char *[]){"compile", "k.cu", "-o", "hard.cu", NULL}, "k.cu");
  refused((const char *[]){"compile", "link.cu", "-o", "k.cu", NULL}, "k.cu");
  refused((const char *[]){"compile", "k.ptx", NULL}, "k.ptx");
  /* another output still works */
  cli_result r = run_cli_in(dir, (const char *[]){"compile", "k.cu", "-o", "k.out", NULL}, NULL);
  assert_int_equal(r.exit_code, 0);
  cli_result_free(&r);
}

static void nothing_compiled_writes_nothing(void **state) {
  (void)state;
  char path[128];
  snprintf(path, sizeof path, "%s/m.cu", dir);
  FILE *f = fopen(path, "w");
  assert_non_null(f);
  fprintf(f, "/* tile-mma (mma-bf16) */\n%s", source);
  fclose(f);
  /* a device below the source's floor: no compile at all */
  cli_result r = run_cli_in(
      dir, (const char *[]){"compile", "--sass", "--cc", "75", "-o", "m.cubin", "m.cu", NULL},
      NULL);
  assert_int_equal(r.exit_code, 1);
  assert_null(strstr(r.out, "(null)"));
  assert_non_null(strstr(r.err, "needs cc 80"));
  snprintf(path, sizeof path, "%s/m.cubin", dir);
  struct stat st;
  assert_int_not_equal(stat(path, &st), 0);
  cli_result_free(&r);
}

/* The object every failing --json command prints: its command, exit code
 * and message. */
static void json_error(const char *const *argv, int code, const char *command, const char *words) {
  cli_result r = run_cli_in(dir, argv, NULL);
  assert_int_equal(r.exit_code, code);
  assert_non_null(r.out);
  if (!strstr(r.out, "\"error\": {")) fail_msg("no error object on stdout: '%s'", r.out);
  char want[64];
  snprintf(want, sizeof want, "\"command\": \"%s\"", command);
  assert_non_null(strstr(r.out, want));
  assert_int_equal(json_int_of(r.out, "exit_code"), code);
  if (!strstr(r.out, words)) fail_msg("the message lacks '%s': %s", words, r.out);
  cli_result_free(&r);
}

static void failing_json_commands_print_an_error_object(void **state) {
  (void)state;
  json_error((const char *[]){"compile", "--json", "k.cu", "--", "--no-such-option", NULL}, 1,
             "compile", "no-such-option");
  json_error((const char *[]){"compile", "--json", "--cc", "75", "m.cu", NULL}, 1, "compile",
             "needs cc 80");
  json_error((const char *[]){"compile", "--json", "missing.cu", NULL}, 1, "compile",
             "missing.cu");
  json_error((const char *[]){"ptx", "--json", "missing.ptx", NULL}, 1, "ptx", "missing.ptx");
  json_error((const char *[]){"ptx", "--json", "k.cu", NULL}, 1, "ptx", "k.cu");
  json_error((const char *[]){"ptx", "--json", "--bogus", NULL}, 2, "ptx", "--bogus");
  /* a command that writes its own JSON on failure writes it once */
  cli_result r = run_cli_in(dir, (const char *[]){"ptx", "--json", "-", NULL},
                            ".version 8.0\n.target sm_80\n");
  assert_int_equal(r.exit_code, 0);
  assert_null(strstr(r.out, "\"error\""));
  cli_result_free(&r);
}

/* A named input that is no regular file (a FIFO: opening it to read would
 * wait for a writer; a device: /dev/zero never ends) is refused at once,
 * naming what it is; "-" still streams standard input. */
static void named_inputs_are_regular_files(void **state) {
  (void)state;
  char fifo[128];
  snprintf(fifo, sizeof fifo, "%s/in.fifo", dir);
  assert_int_equal(mkfifo(fifo, 0600), 0);
  const char *fifo_cmds[][3] = {{"ptx", fifo, NULL}, {"options", fifo, NULL},
                                {"compile", fifo, NULL}};
  for (size_t i = 0; i < 3; i++) {
    alarm(60); /* a blocked read fails the test instead of hanging it */
    cli_result r = run_cli_in(dir, fifo_cmds[i], NULL);
    alarm(0);
    assert_int_equal(r.exit_code, 1);
    if (!strstr(r.err, "is a FIFO, not a regular file"))
      fail_msg("%s: %s", fifo_cmds[i][0], r.err);
    cli_result_free(&r);
  }
  cli_result r = run_cli_in(dir, (const char *[]){"ptx", "/dev/zero", NULL}, NULL);
  assert_int_equal(r.exit_code, 1);
  assert_non_null(strstr(r.err, "character device"));
  cli_result_free(&r);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(output_over_its_input_is_refused),
      cmocka_unit_test(nothing_compiled_writes_nothing),
      cmocka_unit_test(failing_json_commands_print_an_error_object),
      cmocka_unit_test(named_inputs_are_regular_files),
  };
  return cmocka_run_group_tests(tests, make_dir, remove_dir);
}
