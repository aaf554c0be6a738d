/* tcmma verify: runs the arm matrix (tools/verify/matrix.c) through one
 * executor and reports per arm; exit 0 if and only if every selected case
 * passed (a skipped case checked nothing, so it has its own status). */
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include "cli.h"
#include "tools/verify/gemm.h"
#include "tools/verify/verify.h"

static const char help[] =
    "usage: tcmma verify [--executor sim|compile|gpu] [--arm NAME] [--case TEXT] [--subset]\n"
    "                    [--list] [--json]\n\n"
    "Runs every case of the arm matrix (arms x scopes x orientations x spaces x layouts x\n"
    "extents, plus declined cases that assert their reason) through one executor:\n"
    "  sim      the host warp simulator against a plain C reference: integer inputs bit for\n"
    "           bit, then real inputs within a stated bound (default)\n"
    "  compile  plan, render the one-warp kernel, compile it with NVRTC to a CUBIN at the\n"
    "           arm's floor, check the PTX census; inline-PTX arms must be rejected by\n"
    "           ptxas at the supported arch just below their floor\n"
    "  gpu      the same kernels, inputs and checks as sim through the CUDA driver on a\n"
    "           real GPU (skipped without one)\n"
    "--arm NAME   only the cases expected to run on that arm (tcmma arms lists them)\n"
    "--case TEXT  only the cases whose name contains TEXT; TEXT starting with gemm\n"
    "             selects from the GEMM matrix (whole kernels, tcmma gemm) instead\n"
    "--subset     a deterministic stratified subset: every declined case and one accepted\n"
    "             case per arm, scope, outer reduction, ldmatrix use and orientation\n"
    "--list       print the selected case names and expectations; run nothing\n"
    "--json       {\"executor\", \"cases\", \"passed\", \"failed\", \"skipped\", \"arms\": [...],\n"
    "             \"failures\": [{\"case\", \"reason\"}], \"skips\": [{\"case\", \"reason\"}]}\n"
    "A skipped case is never counted as passed.\n\n"
    "Exit status: 0 when every selected case passed; 1 when a case failed; 2 on a usage\n"
    "error, including a selection of no case; 4 when none failed but some were skipped\n"
    "(an executor could not run them here: no C compiler, no GPU, a device below the\n"
    "arm's floor; the skip reasons say which).\n";

static const struct {
  const char *name;
  verify_executor executor;
  void (*run)(const verify_case *, verify_case_result *);
  /* the whole selection's work done at once (optional, for speed) */
  void (*prepare)(const verify_case *const *, size_t);
  void (*finish)(void);
} executors[] = {
    {"sim", VERIFY_EXEC_SIM, verify_exec_sim, verify_exec_sim_prepare, verify_exec_sim_finish},
    {"compile", VERIFY_EXEC_COMPILE, verify_exec_compile, verify_exec_compile_prepare,
     verify_exec_compile_finish},
    {"gpu", VERIFY_EXEC_GPU, verify_exec_gpu, NULL, NULL},
};

#define N_EXECUTORS ((int)(sizeof executors / sizeof executors[0]))

typedef struct {
  int cases, passed, failed, skipped;
} tally;

/* The arm a case counts under: its expected arm, or "none" (no-arm and floor
 * declines) at index TCMMA_ARM_COUNT. */
static int arm_slot(const verify_case *c) {
  return (unsigned)c->expect_arm < TCMMA_ARM_COUNT ? (int)c->expect_arm : TCMMA_ARM_COUNT;
}

static const char *slot_name(int slot) {
  return slot < TCMMA_ARM_COUNT ? tcmma_arm_marker((tcmma_arm)slot) : "none";
}

static const char *expect_text(const verify_case *c, char *buf, size_t cap) {
  if (c->expect == TCMMA_DECLINE_NONE)
    snprintf(buf, cap, "accept %s", tcmma_arm_marker(c->expect_arm));
  else snprintf(buf, cap, "decline %s", tcmma_decline_name(c->expect));
  return buf;
}

static int list_cases(const verify_case **sel, size_t n, bool json) {
  char buf[64];
  if (json) {
    json_writer w;
    json_init(&w, stdout);
    json_begin_array(&w);
    for (size_t i = 0; i < n; i++) {
      json_begin_object(&w);
      json_key(&w, "case"), json_string(&w, sel[i]->name);
      json_key(&w, "expect"), json_string(&w, expect_text(sel[i], buf, sizeof buf));
      json_end_object(&w);
    }
    json_end_array(&w);
    json_finish(&w);
    return CLI_OK;
  }
  for (size_t i = 0; i < n; i++) printf("%-16s %s\n", expect_text(sel[i], buf, sizeof buf),
                                        sel[i]->name);
  return CLI_OK;
}

typedef struct {
  int exec;              /* index into executors */
  bool json, subset, list, have_arm;
  tcmma_arm arm;
  const char *text;      /* --case */
} verify_args;

/* Parses the options into *a; -1 to go on, else the exit status. */
static int parse(int argc, char **argv, verify_args *a) {
  *a = (verify_args){.arm = TCMMA_ARM_NONE};
  for (int i = 1; i < argc; i++) {
    const char *v;
    if (cli_is_help(argv[i])) return fputs(help, stdout), CLI_OK;
    if (strcmp(argv[i], "--json") == 0) a->json = true;
    else if (strcmp(argv[i], "--subset") == 0) a->subset = true;
    else if (strcmp(argv[i], "--list") == 0) a->list = true;
    else if (strcmp(argv[i], "--executor") == 0) {
      if (!(v = cli_value("verify", argc, argv, &i))) return CLI_USAGE;
      for (a->exec = 0; a->exec < N_EXECUTORS && strcmp(v, executors[a->exec].name) != 0;
           a->exec++) {}
      if (a->exec == N_EXECUTORS)
        return cli_usage("verify", "unknown executor '%s': expected sim, compile or gpu", v);
    } else if (strcmp(argv[i], "--arm") == 0) {
      if (!(v = cli_value("verify", argc, argv, &i))) return CLI_USAGE;
      tcmma_error err;
      if (tcmma_arm_parse(v, &a->arm, &err) != TCMMA_OK)
        return cli_usage("verify", "--arm: %s", err.message);
      a->have_arm = true;
    } else if (strcmp(argv[i], "--case") == 0) {
      if (!(a->text = cli_value("verify", argc, argv, &i))) return CLI_USAGE;
    } else {
      return cli_usage("verify",
                       "unknown option '%s': expected --executor, --arm, --case, --subset, "
                       "--list or --json",
                       argv[i]);
    }
  }
  return -1;
}

/* The cases of all that the options select, into sel; their count. */
static size_t select_cases(const verify_args *a, const verify_case *all, size_t n_all,
                           const verify_case **sel) {
  size_t n = 0;
  for (size_t i = 0; i < n_all; i++) {
    const verify_case *c = &all[i];
    if (a->have_arm && c->expect_arm != a->arm) continue;
    if (a->text && !strstr(c->name, a->text)) continue;
    if (a->subset && !verify_case_in_subset(c)) continue;
    sel[n++] = c;
  }
  return n;
}

/* Runs the selected cases through executor exec into res, counting them in
 * total and per arm slot; returns the seconds it took. */
static double run_cases(int exec, const verify_case **sel, size_t n, verify_case_result *res,
                        tally *total, tally per_arm[TCMMA_ARM_COUNT + 1]) {
  struct timespec t0, t1;
  clock_gettime(CLOCK_MONOTONIC, &t0);
  /* sim: one C compile for every selected case; compile: the NVRTC compiles
   * in batches on every core */
  if (executors[exec].prepare) executors[exec].prepare(sel, n);
  for (size_t i = 0; i < n; i++) {
    memset(&res[i], 0, sizeof res[i]);
    res[i].outcome = VERIFY_CASE_FAILED; /* an executor that forgets to say is a failure */
    snprintf(res[i].reason, sizeof res[i].reason, "the executor reported no outcome");
    executors[exec].run(sel[i], &res[i]);
    tally *t = &per_arm[arm_slot(sel[i])];
    t->cases++, total->cases++;
    switch (res[i].outcome) {
      case VERIFY_CASE_PASSED:
        t->passed++, total->passed++;
        break;
      case VERIFY_CASE_SKIPPED:
        t->skipped++, total->skipped++;
        break;
      default:
        t->failed++, total->failed++;
        break;
    }
  }
  if (executors[exec].finish) executors[exec].finish();
  clock_gettime(CLOCK_MONOTONIC, &t1);
  return (double)(t1.tv_sec - t0.tv_sec) + (double)(t1.tv_nsec - t0.tv_nsec) / 1e9;
}

static void report_json(int exec, const verify_case **sel, size_t n, const verify_case_result *res,
                        const tally *total, const tally per_arm[TCMMA_ARM_COUNT + 1]) {
  json_writer w;
  json_init(&w, stdout);
  json_begin_object(&w);
  json_key(&w, "executor"), json_string(&w, executors[exec].name);
  json_key(&w, "cases"), json_int(&w, total->cases);
  json_key(&w, "passed"), json_int(&w, total->passed);
  json_key(&w, "failed"), json_int(&w, total->failed);
  json_key(&w, "skipped"), json_int(&w, total->skipped);
  json_key(&w, "arms"), json_begin_array(&w);
  for (int s = 0; s <= TCMMA_ARM_COUNT; s++) {
    if (!per_arm[s].cases) continue;
    json_begin_object(&w);
    json_key(&w, "arm"), json_string(&w, slot_name(s));
    json_key(&w, "cases"), json_int(&w, per_arm[s].cases);
    json_key(&w, "passed"), json_int(&w, per_arm[s].passed);
    json_key(&w, "failed"), json_int(&w, per_arm[s].failed);
    json_key(&w, "skipped"), json_int(&w, per_arm[s].skipped);
    json_end_object(&w);
  }
  json_end_array(&w);
  const verify_case_outcome kinds[2] = {VERIFY_CASE_FAILED, VERIFY_CASE_SKIPPED};
  const char *keys[2] = {"failures", "skips"};
  for (int k = 0; k < 2; k++) {
    json_key(&w, keys[k]), json_begin_array(&w);
    for (size_t i = 0; i < n; i++) {
      if ((res[i].outcome == VERIFY_CASE_SKIPPED) != (kinds[k] == VERIFY_CASE_SKIPPED) ||
          res[i].outcome == VERIFY_CASE_PASSED)
        continue;
      json_begin_object(&w);
      json_key(&w, "case"), json_string(&w, sel[i]->name);
      json_key(&w, "reason"), json_string(&w, res[i].reason);
      json_end_object(&w);
    }
    json_end_array(&w);
  }
  json_end_object(&w);
  json_finish(&w);
}

/* Whether case j was skipped for the same reason as case i. */
static bool same_skip(const verify_case_result *res, size_t i, size_t j) {
  return res[j].outcome == VERIFY_CASE_SKIPPED && strcmp(res[j].reason, res[i].reason) == 0;
}

static void report_text(int exec, const verify_case **sel, size_t n, const verify_case_result *res,
                        const tally *total, const tally per_arm[TCMMA_ARM_COUNT + 1], double secs) {
  text_table t;
  table_init(&t, 5);
  table_row(&t, (const char *const[]){"ARM", "CASES", "PASSED", "FAILED", "SKIPPED"});
  for (int s = 0; s <= TCMMA_ARM_COUNT; s++) {
    if (!per_arm[s].cases) continue;
    char c[16], p[16], f[16], k[16];
    snprintf(c, sizeof c, "%d", per_arm[s].cases), snprintf(p, sizeof p, "%d", per_arm[s].passed);
    snprintf(f, sizeof f, "%d", per_arm[s].failed), snprintf(k, sizeof k, "%d", per_arm[s].skipped);
    table_row(&t, (const char *const[]){slot_name(s), c, p, f, k});
  }
  table_print(&t, stdout);
  table_free(&t);
  for (size_t i = 0; i < n; i++)
    if (res[i].outcome != VERIFY_CASE_PASSED && res[i].outcome != VERIFY_CASE_SKIPPED)
      printf("FAIL %s: %s\n", sel[i]->name, res[i].reason);
  /* skips: each distinct reason once, with how many cases it covers */
  for (size_t i = 0; i < n; i++) {
    if (res[i].outcome != VERIFY_CASE_SKIPPED) continue;
    bool seen = false;
    for (size_t j = 0; j < i && !seen; j++) seen = same_skip(res, i, j);
    if (seen) continue;
    int count = 0;
    for (size_t j = i; j < n; j++) count += same_skip(res, i, j);
    printf("SKIP %d case%s (e.g. %s): %s\n", count, count == 1 ? "" : "s", sel[i]->name,
           res[i].reason);
  }
  printf("verify --executor %s: %d cases, %d passed, %d failed, %d skipped (%.1f s)\n",
         executors[exec].name, total->cases, total->passed, total->failed, total->skipped, secs);
}

/* --case gemm --list: the selected GEMM cases' names (json: with what
 * each expects). */
static void list_gemm(const verify_args *a, const verify_gemm_case *all, size_t n_all,
                      const bool *sel) {
  json_writer w;
  if (a->json) json_init(&w, stdout), json_begin_array(&w);
  for (size_t i = 0; i < n_all; i++) {
    if (!sel[i]) continue;
    if (!a->json) {
      printf("%s\n", all[i].name);
      continue;
    }
    char expect[64] = "accept";
    if (all[i].expect != TCMMA_GEMM_DECLINE_NONE)
      snprintf(expect, sizeof expect, "decline %s", tcmma_gemm_decline_name(all[i].expect));
    json_begin_object(&w);
    json_key(&w, "case"), json_string(&w, all[i].name);
    json_key(&w, "expect"), json_string(&w, expect);
    json_end_object(&w);
  }
  if (a->json) json_end_array(&w), json_finish(&w);
}

/* Runs the selected cases through the executor (the compile executor
 * compiles them all at once first, in batches) into res and total;
 * returns the seconds they took. */
static double run_gemm(const verify_args *a, const verify_gemm_case *all, size_t n_all,
                       const bool *sel, size_t n, verify_case_result *res, tally *total) {
  struct timespec t0, t1;
  clock_gettime(CLOCK_MONOTONIC, &t0);
  const verify_gemm_case **list = NULL;
  if (executors[a->exec].executor == VERIFY_EXEC_COMPILE && (list = calloc(n, sizeof *list))) {
    size_t k = 0;
    for (size_t i = 0; i < n_all; i++)
      if (sel[i]) list[k++] = &all[i];
    verify_gemm_compile_prepare(list, k); /* every compile at once, in batches */
  }
  for (size_t i = 0; i < n_all; i++) {
    if (!sel[i]) continue;
    verify_gemm_exec(executors[a->exec].executor, &all[i], &res[i]);
    total->cases++;
    if (res[i].outcome == VERIFY_CASE_PASSED)
      total->passed++;
    else if (res[i].outcome == VERIFY_CASE_SKIPPED)
      total->skipped++;
    else total->failed++;
  }
  clock_gettime(CLOCK_MONOTONIC, &t1);
  if (list) verify_gemm_compile_finish(), free(list);
  return (double)(t1.tv_sec - t0.tv_sec) + (double)(t1.tv_nsec - t0.tv_nsec) / 1e9;
}

/* The outcome of each selected case and the tally, as JSON or as the
 * failed and skipped cases and a closing line. */
static void report_gemm(const verify_args *a, const verify_gemm_case *all, size_t n_all,
                        const bool *sel, const verify_case_result *res, const tally *total,
                        double secs) {
  if (!a->json) {
    for (size_t i = 0; i < n_all; i++)
      if (sel[i] && res[i].outcome != VERIFY_CASE_PASSED)
        printf("%s %s: %s\n", res[i].outcome == VERIFY_CASE_SKIPPED ? "SKIP" : "FAIL", all[i].name,
               res[i].reason);
    printf("verify --executor %s --case %s: %d cases, %d passed, %d failed, %d skipped (%.1f s)\n",
           executors[a->exec].name, a->text, total->cases, total->passed, total->failed,
           total->skipped, secs);
    return;
  }
  json_writer w;
  json_init(&w, stdout);
  json_begin_object(&w);
  json_key(&w, "executor"), json_string(&w, executors[a->exec].name);
  json_key(&w, "cases"), json_int(&w, total->cases);
  json_key(&w, "passed"), json_int(&w, total->passed);
  json_key(&w, "failed"), json_int(&w, total->failed);
  json_key(&w, "skipped"), json_int(&w, total->skipped);
  json_key(&w, "results"), json_begin_array(&w);
  for (size_t i = 0; i < n_all; i++) {
    if (!sel[i]) continue;
    json_begin_object(&w);
    json_key(&w, "case"), json_string(&w, all[i].name);
    json_key(&w, "outcome"), json_string(&w, res[i].outcome == VERIFY_CASE_PASSED    ? "passed"
                                             : res[i].outcome == VERIFY_CASE_SKIPPED ? "skipped"
                                                                                     : "failed");
    json_key(&w, "reason"), json_string(&w, res[i].reason);
    json_end_object(&w);
  }
  json_end_array(&w);
  json_end_object(&w);
  json_finish(&w);
}

/* --case gemm...: the GEMM matrix (tools/verify/gemm.h) instead of the arm
 * matrix, through the same executors, reported the same way. */
static int verify_gemm(const verify_args *a) {
  const verify_gemm_case *all;
  size_t n_all = verify_gemm_matrix(&all);
  verify_case_result *res = calloc(n_all ? n_all : 1, sizeof *res);
  bool *sel = calloc(n_all ? n_all : 1, sizeof *sel);
  if (!res || !sel) return free(res), free(sel), cli_fail("verify", "out of memory");
  size_t n = 0;
  for (size_t i = 0; i < n_all; i++) n += sel[i] = strstr(all[i].name, a->text) != NULL;
  /* as for the arm matrix: a selection of no case checks nothing */
  if (n == 0) {
    free(sel), free(res);
    return cli_usage("verify", "no GEMM case matches --case '%s': nothing would be checked "
                     "(tcmma verify --case gemm --list lists them)", a->text);
  }
  int rc = CLI_OK;
  if (a->list) {
    list_gemm(a, all, n_all, sel);
  } else {
    tally total = {0};
    double secs = run_gemm(a, all, n_all, sel, n, res, &total);
    rc = total.failed ? CLI_FAIL : total.skipped ? CLI_SKIPPED : CLI_OK;
    report_gemm(a, all, n_all, sel, res, &total, secs);
  }
  free(sel), free(res);
  return rc;
}

int cmd_verify(int argc, char **argv) {
  verify_args a;
  int rc = parse(argc, argv, &a);
  if (rc >= 0) return rc;
  if (a.text && strncmp(a.text, "gemm", 4) == 0) {
    /* silently running every GEMM case would check what was not asked for */
    if (a.have_arm || a.subset)
      return cli_usage("verify", "%s selects from the arm matrix, not from the GEMM matrix "
                       "--case '%s' selects: narrow the GEMM cases with the --case text",
                       a.have_arm ? "--arm" : "--subset", a.text);
    return verify_gemm(&a);
  }
  const verify_case *all;
  size_t n_all = verify_matrix(&all);
  const verify_case **sel = malloc((n_all ? n_all : 1) * sizeof *sel);
  verify_case_result *res = calloc(n_all ? n_all : 1, sizeof *res);
  if (!sel || !res) {
    free(sel), free(res);
    return cli_fail("verify", "out of memory for %zu cases", n_all);
  }
  size_t n = select_cases(&a, all, n_all, sel);
  if (n == 0) {
    free(sel), free(res);
    char arm[64] = "", text[300] = "";
    if (a.have_arm) snprintf(arm, sizeof arm, " --arm %s", tcmma_arm_marker(a.arm));
    if (a.text) snprintf(text, sizeof text, " --case '%s'", a.text);
    return cli_usage("verify", "no case matches%s%s%s: nothing would be checked (tcmma verify "
                     "--list lists the cases)", arm, text, a.subset ? " --subset" : "");
  }
  if (a.list) {
    rc = list_cases(sel, n, a.json);
    free(sel), free(res);
    return rc;
  }
  tally total = {0}, per_arm[TCMMA_ARM_COUNT + 1];
  memset(per_arm, 0, sizeof per_arm);
  double secs = run_cases(a.exec, sel, n, res, &total, per_arm);
  if (a.json) report_json(a.exec, sel, n, res, &total, per_arm);
  else report_text(a.exec, sel, n, res, &total, per_arm, secs);
  free(sel), free(res);
  return total.failed ? CLI_FAIL : total.skipped ? CLI_SKIPPED : CLI_OK;
}
