/* tcmma verify: runs the arm matrix (tools/verify/matrix.c), the GEMM
 * matrix or a device plan's cases (tools/verify/plan.h), or a shard of
 * them, through one executor and reports per arm (JUnit and TAP besides);
 * exit 0 if and only if every selected case passed (a skipped case checked
 * nothing, so it has its own status). */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include "cli.h"
#include "tools/cmd_verify.h"

static const char help[] =
    "usage: tcmma verify [--executor sim|compile|gpu] [--arm NAME] [--case TEXT] [--subset]\n"
    "                    [--list] [--json] [--shard I/N] [--junit FILE] [--tap]\n"
    "       tcmma verify --plan DEVICES [--shards N | --job-cost C] [--json | --ci-matrix]\n"
    "       tcmma verify --plan DEVICES --device CC [options above but --subset]\n\n"
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
    "--shard I/N  only the I-th of N shards of the selection, split evenly by expected cost\n"
    "             (the same split on every host; docs/verify.md, cost model)\n"
    "--junit FILE also write JUnit XML: a testcase per case, failures and skips with reasons\n"
    "--tap        a TAP (version 13) stream on stdout instead of the report\n"
    "--plan DEVICES  compute capabilities of a fleet (75,80,89,90,100,120): prints which\n"
    "             cases each device runs (each arm's cases on the lowest and the newest\n"
    "             listed device that runs the arm, every GEMM case on every device that\n"
    "             runs it, declined cases once on the lowest) and the uncovered cases;\n"
    "             --shards N splits each device's cases into N jobs (--job-cost C: into\n"
    "             jobs of about C cost units each, so that all end together);\n"
    "             --ci-matrix prints the jobs [{\"name\", \"device\", \"shard\", \"cases\",\n"
    "             \"cost\", \"command\"}] as one line of JSON (GitHub Actions\n"
    "             matrix.include, GitLab parallel:matrix)\n"
    "--device CC  with --plan: run the cases the plan gives device CC\n"
    "A skipped case is never counted as passed.\n\n"
    "Exit status: 0 when every selected case passed; 1 when a case failed (or the --junit\n"
    "file could not be written); 2 on a usage error, including a selection of no case;\n"
    "4 when none failed but some were skipped\n"
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

/* The slots a case counts under: its expected arm, "none" (no-arm and floor
 * declines) at TCMMA_ARM_COUNT, the GEMM cases together after it, then the
 * wgmma cases by row. */
enum { SLOT_NONE = TCMMA_ARM_COUNT, SLOT_GEMM, SLOT_WGMMA, SLOTS = SLOT_WGMMA + TCMMA_WGMMA_COUNT };

static int item_slot(const verify_item *it) {
  if (it->kind == VERIFY_ITEM_GEMM) return SLOT_GEMM;
  if (it->kind == VERIFY_ITEM_WGMMA) return SLOT_WGMMA + (int)it->wgmma;
  tcmma_arm arm = it->arm_case->expect_arm;
  return (unsigned)arm < TCMMA_ARM_COUNT ? (int)arm : SLOT_NONE;
}

static const char *slot_name(int slot) {
  return slot < TCMMA_ARM_COUNT ? tcmma_arm_marker((tcmma_arm)slot)
         : slot == SLOT_NONE    ? "none"
         : slot == SLOT_GEMM    ? "gemm"
                                : tcmma_wgmma_marker((tcmma_wgmma)(slot - SLOT_WGMMA));
}

static const char *expect_text(const verify_item *it, char *buf, size_t cap) {
  if (it->kind == VERIFY_ITEM_WGMMA) {
    snprintf(buf, cap, "accept %s", tcmma_wgmma_marker(it->wgmma));
    return buf;
  }
  if (it->kind == VERIFY_ITEM_GEMM) {
    const verify_gemm_case *g = it->gemm_case;
    if (g->expect == TCMMA_GEMM_DECLINE_NONE) snprintf(buf, cap, "accept");
    else snprintf(buf, cap, "decline %s", tcmma_gemm_decline_name(g->expect));
    return buf;
  }
  const verify_case *c = it->arm_case;
  if (c->expect == TCMMA_DECLINE_NONE)
    snprintf(buf, cap, "accept %s", tcmma_arm_marker(c->expect_arm));
  else snprintf(buf, cap, "decline %s", tcmma_decline_name(c->expect));
  return buf;
}

/* --list: each case with its expectation (the GEMM matrix's text: names
 * only). */
static int list_items(const verify_item *sel, size_t n, bool json, bool gemm_only) {
  char buf[64];
  if (json) {
    json_writer w;
    json_init(&w, stdout);
    json_begin_array(&w);
    for (size_t i = 0; i < n; i++) {
      json_begin_object(&w);
      json_key(&w, "case"), json_string(&w, sel[i].name);
      json_key(&w, "expect"), json_string(&w, expect_text(&sel[i], buf, sizeof buf));
      json_end_object(&w);
    }
    json_end_array(&w);
    json_finish(&w);
    return CLI_OK;
  }
  for (size_t i = 0; i < n; i++) {
    if (gemm_only) printf("%s\n", sel[i].name);
    else printf("%-16s %s\n", expect_text(&sel[i], buf, sizeof buf), sel[i].name);
  }
  return CLI_OK;
}

/* A value option's text, or NULL after the usage message. */
static int parse_value(int argc, char **argv, int *i, verify_args *a) {
  const char *opt = argv[*i], *v = cli_value("verify", argc, argv, i);
  tcmma_error err;
  if (!v) return CLI_USAGE;
  if (strcmp(opt, "--executor") == 0) {
    for (a->exec = 0; a->exec < N_EXECUTORS && strcmp(v, executors[a->exec].name) != 0;
         a->exec++) {
    }
    if (a->exec == N_EXECUTORS)
      return cli_usage("verify", "unknown executor '%s': expected sim, compile or gpu", v);
  } else if (strcmp(opt, "--arm") == 0) {
    if (tcmma_arm_parse(v, &a->arm, &err) != TCMMA_OK)
      return cli_usage("verify", "--arm: %s", err.message);
    a->have_arm = true;
  } else if (strcmp(opt, "--case") == 0) {
    a->text = v;
  } else if (strcmp(opt, "--plan") == 0) {
    if (cmd_verify_devices_parse(v, &a->devices, &err) != TCMMA_OK)
      return cli_usage("verify", "--plan: %s", err.message);
    a->plan = v;
  } else if (strcmp(opt, "--device") == 0) {
    if (!cli_cc("verify", "--device", v, &a->device)) return CLI_USAGE;
    if (a->device == 0) return cli_usage("verify", "--device 0: expected a device's cc");
  } else if (strcmp(opt, "--shard") == 0) {
    if (cmd_verify_shard_parse(v, &a->shard, &a->shards, &err) != TCMMA_OK)
      return cli_usage("verify", "--shard: %s", err.message);
    a->shard_text = v;
  } else if (strcmp(opt, "--shards") == 0) {
    if (!cli_int("verify", "--shards", v, 1, VERIFY_SHARDS_MAX, &a->plan_shards)) return CLI_USAGE;
  } else if (strcmp(opt, "--job-cost") == 0) {
    if (!cli_int("verify", "--job-cost", v, 1, 1000000000, &a->job_cost)) return CLI_USAGE;
  } else {
    a->junit = v; /* --junit */
  }
  return -1;
}

/* Parses the options into *a; -1 to go on, else the exit status. */
static int parse(int argc, char **argv, verify_args *a) {
  static const char *const values[] = {"--executor", "--arm", "--case", "--plan", "--device",
                                       "--shard", "--shards", "--job-cost", "--junit"};
  *a = (verify_args){.arm = TCMMA_ARM_NONE, .plan_shards = 1};
  for (int i = 1; i < argc; i++) {
    bool value = false;
    for (size_t k = 0; k < sizeof values / sizeof values[0]; k++)
      value |= !strcmp(argv[i], values[k]);
    if (cli_is_help(argv[i])) return fputs(help, stdout), CLI_OK;
    if (value) {
      int rc = parse_value(argc, argv, &i, a);
      if (rc >= 0) return rc;
    } else if (strcmp(argv[i], "--json") == 0) a->json = true;
    else if (strcmp(argv[i], "--subset") == 0) a->subset = true;
    else if (strcmp(argv[i], "--list") == 0) a->list = true;
    else if (strcmp(argv[i], "--tap") == 0) a->tap = true;
    else if (strcmp(argv[i], "--ci-matrix") == 0) a->ci_matrix = true;
    else
      return cli_usage("verify", "unknown option '%s': expected --executor, --arm, --case, "
                       "--subset, --list, --json, --shard, --junit, --tap, --plan, --device, "
                       "--shards, --job-cost or --ci-matrix", argv[i]);
  }
  return -1;
}

/* The combinations that would run or print something else than asked:
 * CLI_USAGE after saying which, else -1. */
static int check_combination(const verify_args *a) {
  bool printing = a->plan && !a->device;
  if (a->device && !a->plan)
    return cli_usage("verify", "--device %d needs --plan DEVICES: the plan says which cases a "
                     "device runs", a->device);
  if (a->device) {
    bool listed = false;
    for (size_t i = 0; i < a->devices.n; i++) listed |= a->devices.cc[i] == a->device;
    if (!listed) return cli_usage("verify", "--device %d is not in --plan %s", a->device, a->plan);
  }
  if ((a->ci_matrix || a->plan_shards != 1 || a->job_cost) && !printing)
    return cli_usage("verify", "%s goes with --plan DEVICES and no --device: it shapes the "
                     "printed plan",
                     a->ci_matrix ? "--ci-matrix" : a->job_cost ? "--job-cost" : "--shards");
  if (a->job_cost && a->plan_shards != 1)
    return cli_usage("verify", "--shards and --job-cost both say how many jobs: give one");
  if (printing &&
      (a->have_arm || a->text || a->subset || a->list || a->shards || a->junit || a->tap))
    return cli_usage("verify", "--plan without --device prints the plan; --arm, --case, --subset, "
                     "--list, --shard, --junit and --tap select or report a run: add --device CC");
  if (a->ci_matrix && a->json)
    return cli_usage("verify", "--ci-matrix is JSON already: drop --json");
  if (a->subset && a->plan)
    return cli_usage("verify", "--subset selects from the arm matrix alone; with --plan the "
                     "device's cases are the plan's");
  if (a->tap && (a->json || a->list))
    return cli_usage("verify", "--tap is the report on stdout: it goes with neither --json nor "
                     "--list");
  if (a->junit && a->list)
    return cli_usage("verify", "--junit reports a run: --list runs nothing");
  return -1;
}

/* The arm-matrix cases the options select, as items into sel; their count. */
static size_t select_arm(const verify_args *a, verify_item *sel) {
  const verify_case *all;
  size_t n_all = verify_matrix(&all), n = 0;
  for (size_t i = 0; i < n_all; i++) {
    const verify_case *c = &all[i];
    if (a->have_arm && c->expect_arm != a->arm) continue;
    if (a->text && !strstr(c->name, a->text)) continue;
    if (a->subset && !verify_case_in_subset(c)) continue;
    sel[n++] = verify_item_of_case(c);
  }
  /* the wgmma cases (no arm of tables/arms.def: not under --arm); the
   * subset keeps each row's first */
  const verify_wgmma_case *wg;
  size_t n_wg = verify_wgmma_matrix(&wg);
  for (size_t i = 0; i < n_wg && !a->have_arm; i++) {
    if (a->text && !strstr(wg[i].name, a->text)) continue;
    if (a->subset && i > 0 && wg[i - 1].arm == wg[i].arm) continue;
    sel[n++] = verify_item_of_wgmma(&wg[i]);
  }
  return n;
}

static size_t select_gemm(const verify_args *a, verify_item *sel) {
  const verify_gemm_case *all;
  size_t n_all = verify_gemm_matrix(&all), n = 0;
  for (size_t i = 0; i < n_all; i++)
    if (strstr(all[i].name, a->text)) sel[n++] = verify_item_of_gemm(&all[i]);
  return n;
}

/* The plan's cases for --device, narrowed by --case and --arm. */
static size_t select_plan(const verify_args *a, verify_item *sel) {
  verify_item *all;
  size_t n_all = verify_items_all(&all), n = 0;
  unsigned bit = 0;
  for (size_t d = 0; d < a->devices.n; d++)
    if (a->devices.cc[d] == a->device) bit = 1u << d;
  for (size_t i = 0; i < n_all; i++) {
    if (!(verify_plan_mask(&all[i], &a->devices) & bit)) continue;
    if (a->text && !strstr(all[i].name, a->text)) continue;
    if (a->have_arm && all[i].arm != a->arm) continue;
    sel[n++] = all[i];
  }
  free(all);
  return n;
}

/* Keeps the items of shard a->shard of a->shards (in their order). */
static size_t keep_shard(const verify_args *a, verify_item *sel, size_t n) {
  if (a->shards <= 1 || n == 0) return n;
  int *shard = malloc(n * sizeof *shard);
  if (!shard) return 0;
  verify_shard_assign(sel, n, a->shards, shard);
  size_t k = 0;
  for (size_t i = 0; i < n; i++)
    if (shard[i] == a->shard) sel[k++] = sel[i];
  free(shard);
  return k;
}

static double now(void) {
  struct timespec t;
  clock_gettime(CLOCK_MONOTONIC, &t);
  return (double)t.tv_sec + (double)t.tv_nsec / 1e9;
}

/* The executors' whole-selection work (sim: one C compile; compile: the
 * NVRTC compiles in batches on every core) before the first case. */
static void prepare(int exec, const verify_item *sel, size_t n, bool begin) {
  bool compile = executors[exec].executor == VERIFY_EXEC_COMPILE;
  if (!begin) {
    if (executors[exec].finish) executors[exec].finish();
    if (compile) verify_gemm_compile_finish();
    return;
  }
  const verify_case **arms = calloc(n ? n : 1, sizeof *arms);
  const verify_gemm_case **gemms = calloc(n ? n : 1, sizeof *gemms);
  size_t na = 0, ng = 0;
  for (size_t i = 0; arms && gemms && i < n; i++) {
    if (sel[i].kind == VERIFY_ITEM_ARM) arms[na++] = sel[i].arm_case;
    else if (sel[i].kind == VERIFY_ITEM_GEMM) gemms[ng++] = sel[i].gemm_case;
  }
  if (arms && na && executors[exec].prepare) executors[exec].prepare(arms, na);
  if (gemms && ng && compile) verify_gemm_compile_prepare(gemms, ng);
  free(arms), free(gemms);
}

/* Runs the selected cases through executor exec into res (each case's own
 * seconds into secs), streaming TAP when tap; returns the whole run's
 * seconds. */
static double run_items(int exec, const verify_item *sel, size_t n, verify_case_result *res,
                        double *secs, bool tap) {
  double t0 = now();
  if (tap) verify_report_tap_begin(stdout, n);
  prepare(exec, sel, n, true);
  for (size_t i = 0; i < n; i++) {
    double c0 = now();
    memset(&res[i], 0, sizeof res[i]);
    res[i].outcome = VERIFY_CASE_FAILED; /* an executor that forgets to say is a failure */
    snprintf(res[i].reason, sizeof res[i].reason, "the executor reported no outcome");
    if (sel[i].kind == VERIFY_ITEM_ARM) executors[exec].run(sel[i].arm_case, &res[i]);
    else if (sel[i].kind == VERIFY_ITEM_WGMMA)
      verify_wgmma_exec(executors[exec].executor, sel[i].wgmma_case, &res[i]);
    else verify_gemm_exec(executors[exec].executor, sel[i].gemm_case, &res[i]);
    secs[i] = now() - c0;
    if (tap)
      verify_report_tap_case(stdout, i + 1, &(verify_report_case){&sel[i], res[i].outcome,
                                                                   res[i].reason, secs[i]});
  }
  prepare(exec, sel, n, false);
  return now() - t0;
}

static void count(const verify_item *sel, size_t n, const verify_case_result *res, tally *total,
                  tally per[SLOTS]) {
  memset(per, 0, SLOTS * sizeof *per);
  *total = (tally){0};
  for (size_t i = 0; i < n; i++) {
    tally *t = &per[item_slot(&sel[i])];
    t->cases++, total->cases++;
    if (res[i].outcome == VERIFY_CASE_PASSED) t->passed++, total->passed++;
    else if (res[i].outcome == VERIFY_CASE_SKIPPED) t->skipped++, total->skipped++;
    else t->failed++, total->failed++;
  }
}

static void report_json(int exec, const verify_item *sel, size_t n, const verify_case_result *res,
                        const tally *total, const tally per_arm[SLOTS]) {
  json_writer w;
  json_init(&w, stdout);
  json_begin_object(&w);
  json_key(&w, "executor"), json_string(&w, executors[exec].name);
  json_key(&w, "cases"), json_int(&w, total->cases);
  json_key(&w, "passed"), json_int(&w, total->passed);
  json_key(&w, "failed"), json_int(&w, total->failed);
  json_key(&w, "skipped"), json_int(&w, total->skipped);
  json_key(&w, "arms"), json_begin_array(&w);
  for (int s = 0; s < SLOTS; s++) {
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
  const char *keys[2] = {"failures", "skips"};
  for (int k = 0; k < 2; k++) {
    json_key(&w, keys[k]), json_begin_array(&w);
    for (size_t i = 0; i < n; i++) {
      if ((res[i].outcome == VERIFY_CASE_SKIPPED) != (k == 1) ||
          res[i].outcome == VERIFY_CASE_PASSED)
        continue;
      json_begin_object(&w);
      json_key(&w, "case"), json_string(&w, sel[i].name);
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

static void report_text(const char *label, const verify_item *sel, size_t n,
                        const verify_case_result *res, const tally *total,
                        const tally per_arm[SLOTS], double secs) {
  text_table t;
  table_init(&t, 5);
  table_row(&t, (const char *const[]){"ARM", "CASES", "PASSED", "FAILED", "SKIPPED"});
  for (int s = 0; s < SLOTS; s++) {
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
      printf("FAIL %s: %s\n", sel[i].name, res[i].reason);
  /* skips: each distinct reason once, with how many cases it covers */
  for (size_t i = 0; i < n; i++) {
    if (res[i].outcome != VERIFY_CASE_SKIPPED) continue;
    bool seen = false;
    for (size_t j = 0; j < i && !seen; j++) seen = same_skip(res, i, j);
    if (seen) continue;
    int count = 0;
    for (size_t j = i; j < n; j++) count += same_skip(res, i, j);
    printf("SKIP %d case%s (e.g. %s): %s\n", count, count == 1 ? "" : "s", sel[i].name,
           res[i].reason);
  }
  printf("verify %s: %d cases, %d passed, %d failed, %d skipped (%.1f s)\n", label, total->cases,
         total->passed, total->failed, total->skipped, secs);
}

/* The GEMM matrix's report (--case gemm...): as JSON with every case's
 * outcome, or its failed and skipped cases and a closing line. */
static void report_gemm(const verify_args *a, const char *label, const verify_item *sel, size_t n,
                        const verify_case_result *res, const tally *total, double secs) {
  if (!a->json) {
    for (size_t i = 0; i < n; i++)
      if (res[i].outcome != VERIFY_CASE_PASSED)
        printf("%s %s: %s\n", res[i].outcome == VERIFY_CASE_SKIPPED ? "SKIP" : "FAIL",
               sel[i].name, res[i].reason);
    printf("verify %s: %d cases, %d passed, %d failed, %d skipped (%.1f s)\n", label, total->cases,
           total->passed, total->failed, total->skipped, secs);
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
  for (size_t i = 0; i < n; i++) {
    json_begin_object(&w);
    json_key(&w, "case"), json_string(&w, sel[i].name);
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

/* What the run was, for the closing line and the JUnit suite:
 * "--executor gpu --device 90 --shard 1/4". */
static void run_label(const verify_args *a, bool gemm_only, char *buf, size_t cap) {
  int w = snprintf(buf, cap, "--executor %s", executors[a->exec].name);
  if (gemm_only && w >= 0 && (size_t)w < cap)
    w += snprintf(buf + w, cap - (size_t)w, " --case %s", a->text);
  if (a->device && w >= 0 && (size_t)w < cap)
    w += snprintf(buf + w, cap - (size_t)w, " --device %d", a->device);
  if (a->shards && w >= 0 && (size_t)w < cap)
    snprintf(buf + w, cap - (size_t)w, " --shard %s", a->shard_text);
}

/* --junit FILE: the run as JUnit XML; false (after saying why) when the
 * file cannot be written. */
static bool write_junit(const verify_args *a, const char *label, const verify_item *sel, size_t n,
                        const verify_case_result *res, const double *secs, double total) {
  verify_report_case *cases = calloc(n ? n : 1, sizeof *cases);
  FILE *f = cases ? fopen(a->junit, "w") : NULL;
  if (!f) {
    free(cases);
    cli_fail("verify", "--junit '%s': %s", a->junit, cases ? strerror(errno) : "out of memory");
    return false;
  }
  for (size_t i = 0; i < n; i++)
    cases[i] = (verify_report_case){&sel[i], res[i].outcome, res[i].reason, secs[i]};
  char suite[512], host[256] = "localhost", stamp[32] = "1970-01-01T00:00:00", device[16] = "";
  snprintf(suite, sizeof suite, "tcmma verify %s", label);
  if (gethostname(host, sizeof host) != 0 || !host[0]) snprintf(host, sizeof host, "localhost");
  host[sizeof host - 1] = '\0';
  time_t t = time(NULL);
  struct tm tm;
  if (gmtime_r(&t, &tm)) strftime(stamp, sizeof stamp, "%Y-%m-%dT%H:%M:%S", &tm);
  if (a->device) snprintf(device, sizeof device, "%d", a->device);
  verify_report_info info = {.suite = suite, .executor = executors[a->exec].name, .plan = a->plan,
                             .device = a->device ? device : NULL, .shard = a->shard_text,
                             .seconds = total, .timestamp = stamp, .hostname = host};
  bool ok = verify_report_junit(f, &info, cases, n);
  ok = fclose(f) == 0 && ok;
  free(cases);
  if (!ok) cli_fail("verify", "--junit '%s': the write failed", a->junit);
  return ok;
}

/* The empty selection's usage error: it would check nothing. */
static int nothing_selected(const verify_args *a, bool gemm_only) {
  if (gemm_only)
    return cli_usage("verify", "no GEMM case matches --case '%s'%s%s: nothing would be checked "
                     "(tcmma verify --case gemm --list lists them)", a->text,
                     a->shards ? " --shard " : "", a->shards ? a->shard_text : "");
  char arm[64] = "", text[300] = "", more[128] = "";
  if (a->have_arm) snprintf(arm, sizeof arm, " --arm %s", tcmma_arm_marker(a->arm));
  if (a->text) snprintf(text, sizeof text, " --case '%s'", a->text);
  if (a->device) snprintf(more, sizeof more, " --plan %s --device %d", a->plan, a->device);
  if (a->shards) snprintf(more + strlen(more), sizeof more - strlen(more), " --shard %s",
                          a->shard_text);
  return cli_usage("verify", "no case matches%s%s%s%s: nothing would be checked (tcmma verify "
                   "--list lists the cases)", arm, text, a->subset ? " --subset" : "", more);
}

/* Runs (or lists) the selection sel[0..n) and reports it; the exit status. */
static int run_selection(const verify_args *a, verify_item *sel, size_t n, bool gemm_only) {
  if (a->list) return list_items(sel, n, a->json, gemm_only);
  verify_case_result *res = calloc(n, sizeof *res);
  double *secs = calloc(n, sizeof *secs);
  if (!res || !secs) return free(res), free(secs), cli_fail("verify", "out of memory");
  double total_secs = run_items(a->exec, sel, n, res, secs, a->tap);
  tally total, per[SLOTS];
  count(sel, n, res, &total, per);
  char label[256];
  run_label(a, gemm_only, label, sizeof label);
  int rc = total.failed ? CLI_FAIL : total.skipped ? CLI_SKIPPED : CLI_OK;
  if (a->tap) { /* the TAP stream was the report */
  } else if (gemm_only) report_gemm(a, label, sel, n, res, &total, total_secs);
  else if (a->json) report_json(a->exec, sel, n, res, &total, per);
  else report_text(label, sel, n, res, &total, per, total_secs);
  /* a report that cannot be written fails the run, whatever the cases did */
  if (a->junit && !write_junit(a, label, sel, n, res, secs, total_secs)) rc = CLI_FAIL;
  free(res), free(secs);
  return rc;
}

int cmd_verify(int argc, char **argv) {
  verify_args a;
  int rc = parse(argc, argv, &a);
  if (rc >= 0 || (rc = check_combination(&a)) >= 0) return rc;
  if (a.plan && !a.device) return cmd_verify_plan_print(&a);
  bool gemm_only = !a.plan && a.text && strncmp(a.text, "gemm", 4) == 0;
  /* silently running every GEMM case would check what was not asked for */
  if (gemm_only && (a.have_arm || a.subset))
    return cli_usage("verify", "%s selects from the arm matrix, not from the GEMM matrix "
                     "--case '%s' selects: narrow the GEMM cases with the --case text",
                     a.have_arm ? "--arm" : "--subset", a.text);
  const verify_case *arms;
  const verify_gemm_case *gemms;
  const verify_wgmma_case *wgs;
  size_t cap = verify_matrix(&arms) + verify_gemm_matrix(&gemms) + verify_wgmma_matrix(&wgs);
  verify_item *sel = calloc(cap ? cap : 1, sizeof *sel);
  if (!sel) return cli_fail("verify", "out of memory for %zu cases", cap);
  size_t n = a.plan ? select_plan(&a, sel) : gemm_only ? select_gemm(&a, sel) : select_arm(&a, sel);
  n = keep_shard(&a, sel, n);
  rc = n == 0 ? nothing_selected(&a, gemm_only) : run_selection(&a, sel, n, gemm_only);
  free(sel);
  return rc;
}
