/* Every CLI case of tests/golden/cases.list against its reviewed outputs:
 * exit code, stdout (NAME.out) and stderr (NAME.err, empty when absent). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "util.h"

typedef struct {
  char name[128];
  int exit_code;
  char *argv[64];
  char *owned[64]; /* argv entries built from @SRC@, freed with the case */
  char line[1024];
} golden_case;

static void check_case(void **state) {
  golden_case *c = *state;
  cli_result r = run_cli((const char *const *)c->argv, NULL);
  char path[512];
  snprintf(path, sizeof path, "tests/golden/%s.out", c->name);
  char *want_out = read_file(src_path(path), NULL);
  snprintf(path, sizeof path, "tests/golden/%s.err", c->name);
  char *want_err = read_file(src_path(path), NULL);
  if (!want_out) fail_msg("%s: no golden stdout (run make golden)", c->name);
  if (r.exit_code != c->exit_code)
    fail_msg("%s: exit %d, expected %d; stderr: %s", c->name, r.exit_code, c->exit_code,
             r.err ? r.err : "");
  assert_non_null(r.out);
  assert_string_equal(r.out, want_out);
  assert_string_equal(r.err ? r.err : "", want_err ? want_err : "");
  free(want_out), free(want_err);
  cli_result_free(&r);
}

int main(void) {
  char *list = read_file(src_path("tests/golden/cases.list"), NULL);
  if (!list) {
    fprintf(stderr, "test_golden: cannot read tests/golden/cases.list\n");
    return 1;
  }
  size_t cap = 0, count = 0;
  struct CMUnitTest *tests = NULL;
  for (char *save = NULL, *line = strtok_r(list, "\n", &save); line;
       line = strtok_r(NULL, "\n", &save)) {
    while (*line == ' ') line++;
    if (*line == '#' || *line == '\0') continue;
    golden_case *c = calloc(1, sizeof *c);
    if (!c) {
      fprintf(stderr, "test_golden: out of memory\n");
      return 1;
    }
    snprintf(c->line, sizeof c->line, "%s", line);
    char *save2 = NULL, *tok = strtok_r(c->line, " \t", &save2);
    snprintf(c->name, sizeof c->name, "%s", tok);
    tok = strtok_r(NULL, " \t", &save2);
    c->exit_code = tok ? atoi(tok) : -1;
    int argc = 0;
    const char *root = getenv("TCMMA_SRCDIR");
    while ((tok = strtok_r(NULL, " \t", &save2)) && argc < 63) {
      char *at = strstr(tok, "@SRC@");
      if (at) {
        size_t n = strlen(tok) + strlen(root ? root : ".") + 1;
        char *s = malloc(n);
        snprintf(s, n, "%.*s%s%s", (int)(at - tok), tok, root ? root : ".", at + 5);
        tok = c->owned[argc] = s;
      }
      c->argv[argc++] = tok;
    }
    if (count == cap) {
      struct CMUnitTest *grown = realloc(tests, (cap = cap ? 2 * cap : 64) * sizeof *tests);
      if (!grown) {
        fprintf(stderr, "test_golden: out of memory\n");
        return 1;
      }
      tests = grown;
    }
    tests[count++] = (struct CMUnitTest){c->name, check_case, NULL, NULL, c};
  }
  int failed = _cmocka_run_group_tests("golden", tests, count, NULL, NULL);
  for (size_t i = 0; i < count; i++) {
    golden_case *c = tests[i].initial_state;
    for (int j = 0; j < 64; j++) free(c->owned[j]);
    free(c);
  }
  free(tests);
  free(list);
  return failed;
}
