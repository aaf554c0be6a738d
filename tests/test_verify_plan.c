/* The device plan's coverage rules and the shards (tools/verify/plan.h,
 * docs/verify.md "GPU CI"), without a GPU: every case of both matrices is
 * placed by rules re-derived here from the arm rows (floor, family) and
 * the GEMM planner, never where it cannot run; shards are even by cost,
 * deterministic and independent of the input order; the CLI's --plan,
 * --ci-matrix and --shard agree with the library and refuse bad values. */
#include "util.h"
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "tcmma/tcgen05.h"
#include "tools/verify/plan.h"

static verify_devices devices(const int *cc, size_t n) {
  verify_devices d = {.n = n};
  for (size_t i = 0; i < n; i++) d.cc[i] = cc[i];
  return d;
}

/* The fleets the rules are checked on: the issue's, one without a 12.x
 * device, a 12.x family of two, a lone Hopper, a Turing-only one. */
static const int fleet_all[] = {75, 80, 89, 90, 100, 120};
static const int fleet_no12[] = {75, 80, 89, 90, 100};
static const int fleet_family[] = {80, 120, 121};
static const int fleet_hopper[] = {90};
static const int fleet_turing[] = {75};

/* Whether arm runs on cc, from its row alone: at or above the floor, and
 * a family arm only on its floor's major version. */
static bool row_runs(tcmma_arm arm, int cc) {
  const tcmma_arm_info *info = tcmma_arm_get(arm);
  assert_non_null(info);
  return cc >= info->floor && (!info->family || cc / 10 == info->floor / 10);
}

/* Whether tcgen05 row w runs on cc, from its row: an arch-specific
 * (sm_100a) target on its floor's arch alone, a family one on its major. */
static bool tcgen05_row_runs(int w, int cc) {
  const tcmma_tcgen05_info *info = tcmma_tcgen05_get((tcmma_tcgen05)w);
  assert_non_null(info);
  return info->suffix == TCMMA_PTX_SUFFIX_A ? cc == info->floor : cc / 10 == info->floor / 10;
}

/* Whether GEMM case it runs on cc, from the planner: its call planned for
 * cc with its options and its own kernel kind must be accepted with the same
 * arm and kind (the wgmma kernel: cc 9.0 alone), within cc's shared memory;
 * the row that runs: the tcgen05 kernel's own (its arm, block-scaled, is
 * the 12.x row of the triple), else the arm's. */
static bool gemm_runs(const verify_item *it, int cc) {
  tcmma_gemm_call call = it->gemm_case->call;
  tcmma_gemm_opts o = verify_gemm_case_opts(it->gemm_case);
  tcmma_gemm_plan p;
  tcmma_gemm_info own = {.size = sizeof own}, there = {.size = sizeof there};
  assert_int_equal(tcmma_gemm_plan_opts(&call, &o, &p, &own, NULL), TCMMA_OK);
  bool row = own.kernel == TCMMA_GEMM_KERNEL_TCGEN05 ? tcgen05_row_runs(own.tcgen05, cc)
                                                    : row_runs(it->arm, cc);
  o.kernel = own.kernel;
  call.cc = cc;
  return row && tcmma_gemm_plan_opts(&call, &o, &p, &there, NULL) == TCMMA_OK &&
         p.arm == it->arm && there.kernel == own.kernel &&
         it->shared_bytes <= tcmma_shared_memory_max(cc, 0);
}

/* Whether wgmma row w runs on cc, from its row: an arch-specific (sm_90a)
 * target runs on its floor's arch alone. */
static bool wgmma_row_runs(tcmma_wgmma w, int cc) {
  const tcmma_wgmma_info *info = tcmma_wgmma_get(w);
  assert_non_null(info);
  return info->suffix == TCMMA_PTX_SUFFIX_A ? cc == info->floor : cc >= info->floor;
}

static bool item_runs(const verify_item *it, int cc) {
  if (it->kind == VERIFY_ITEM_GEMM) return gemm_runs(it, cc);
  if (it->kind == VERIFY_ITEM_WGMMA) return wgmma_row_runs(it->wgmma, cc);
  return row_runs(it->arm, cc);
}

/* The mask the rules give item on d, derived independently of plan.c. */
static unsigned expected_mask(const verify_item *it, const verify_devices *d) {
  if (!it->accepted) return 1u;
  unsigned runners = 0;
  for (size_t i = 0; i < d->n; i++)
    if (item_runs(it, d->cc[i])) runners |= 1u << i;
  if (it->kind == VERIFY_ITEM_GEMM || !runners) return runners;
  int lo = -1, hi = -1;
  for (size_t i = 0; i < d->n; i++)
    if (runners >> i & 1u) hi = (int)i, lo = lo < 0 ? (int)i : lo;
  return 1u << lo | 1u << hi;
}

static void check_fleet(const int *cc, size_t n) {
  verify_devices d = devices(cc, n);
  verify_item *items;
  size_t count = verify_items_all(&items);
  assert_true(count > 1000);
  for (size_t i = 0; i < count; i++) {
    const verify_item *it = &items[i];
    unsigned mask = verify_plan_mask(it, &d);
    if (mask != expected_mask(it, &d))
      fail_msg("%s: mask %#x, the rules give %#x", it->name, mask, expected_mask(it, &d));
    for (size_t k = 0; k < n; k++) /* never where it cannot run */
      if (mask >> k & 1u) assert_true(verify_item_runs_on(it, cc[k]));
  }
  free(items);
}

static void placed_by_the_rules(void **state) {
  (void)state;
  check_fleet(fleet_all, 6), check_fleet(fleet_no12, 5), check_fleet(fleet_family, 3);
  check_fleet(fleet_hopper, 1), check_fleet(fleet_turing, 1);
}

/* Devices of a mask as "75,120". */
static void mask_text(unsigned mask, const verify_devices *d, char *buf, size_t cap) {
  verify_devices sub = {0};
  for (size_t i = 0; i < d->n; i++)
    if (mask >> i & 1u) sub.cc[sub.n++] = d->cc[i];
  verify_devices_format(&sub, buf, cap);
}

/* Facts of the tables as the plan must show them on the fleet. */
static void known_placements(void **state) {
  (void)state;
  verify_devices all = devices(fleet_all, 6), no12 = devices(fleet_no12, 5);
  verify_item *items;
  size_t count = verify_items_all(&items);
  int mx = 0, fp8 = 0, wmma = 0, gemm75 = 0, gemm80 = 0, declines = 0, wgmma = 0;
  const int no90[] = {75, 80, 89, 100, 120};
  verify_devices without90 = devices(no90, 5);
  char where[64];
  for (size_t i = 0; i < count; i++) {
    const verify_item *it = &items[i];
    unsigned mask = verify_plan_mask(it, &all);
    mask_text(mask, &all, where, sizeof where);
    if (!it->accepted) {
      declines++;
      assert_string_equal(where, "75"); /* planning only: once, on the lowest */
    } else if (it->kind == VERIFY_ITEM_ARM && it->arm == TCMMA_ARM_MMA_MXFP8) {
      mx++;
      assert_string_equal(where, "120");              /* a family arm: 12.x only */
      assert_int_equal(verify_plan_mask(it, &no12), 0); /* uncovered without one */
    } else if (it->kind == VERIFY_ITEM_ARM && it->arm == TCMMA_ARM_MMA_FP8) {
      fp8++;
      assert_string_equal(where, "89,120"); /* its floor and the newest */
    } else if (it->kind == VERIFY_ITEM_ARM && it->arm == TCMMA_ARM_WMMA_F16) {
      wmma++;
      assert_string_equal(where, "75,120"); /* floor 70 is not listed: the lowest that runs it */
    } else if (it->kind == VERIFY_ITEM_WGMMA) {
      wgmma++;
      assert_string_equal(where, "90"); /* sm_90a only: not forward-compatible */
      assert_int_equal(verify_plan_mask(it, &without90), 0);
    } else if (it->kind == VERIFY_ITEM_GEMM) {
      assert_true(mask != 0);
      if (!(mask & 1u)) {
        gemm80++;
        continue;
      }
      /* on 7.5 only a kernel of plain loads: cp.async is 8.0's */
      gemm75++;
      tcmma_gemm_call c = it->gemm_case->call;
      c.cc = 75;
      tcmma_gemm_plan p;
      tcmma_gemm_info info = {.size = sizeof info};
      tcmma_error err = {0};
      assert_int_equal(tcmma_gemm_plan_opts(&c, &it->gemm_case->opts, &p, &info, &err), TCMMA_OK);
      assert_true(info.a_plain && info.b_plain);
    }
  }
  assert_true(mx > 0 && fp8 > 0 && wmma > 0 && declines > 0);
  const verify_wgmma_case *wc;
  assert_int_equal(wgmma, (int)verify_wgmma_matrix(&wc)); /* every wgmma case is an item */
  assert_true(gemm75 > 0 && gemm80 > 0);
  free(items);
}

static long long spread(const verify_item *items, size_t n, const int *shard, int count,
                        long long *max_item) {
  long long load[VERIFY_SHARDS_MAX] = {0}, lo, hi;
  *max_item = 0;
  for (size_t i = 0; i < n; i++) {
    assert_true(shard[i] >= 0 && shard[i] < count);
    load[shard[i]] += items[i].cost;
    if (items[i].cost > *max_item) *max_item = items[i].cost;
  }
  lo = hi = load[0];
  for (int s = 1; s < count; s++)
    lo = load[s] < lo ? load[s] : lo, hi = load[s] > hi ? load[s] : hi;
  return hi - lo;
}

/* Every item in exactly one shard; no shard heavier than another by more
 * than the largest item; the same split twice and for the items reversed. */
static void shards_even_and_deterministic(void **state) {
  (void)state;
  verify_item *items;
  size_t n = verify_items_all(&items);
  verify_item *rev = malloc(n * sizeof *rev);
  int *a = malloc(n * sizeof *a), *b = malloc(n * sizeof *b), *r = malloc(n * sizeof *r);
  assert_non_null(rev), assert_non_null(a), assert_non_null(b), assert_non_null(r);
  for (size_t i = 0; i < n; i++) rev[i] = items[n - 1 - i];
  for (int count = 1; count <= 64; count = count < 16 ? count + 1 : count * 2) {
    long long max_item;
    verify_shard_assign(items, n, count, a);
    verify_shard_assign(items, n, count, b);
    verify_shard_assign(rev, n, count, r);
    assert_memory_equal(a, b, n * sizeof *a);
    for (size_t i = 0; i < n; i++) assert_int_equal(a[i], r[n - 1 - i]);
    long long d = spread(items, n, a, count, &max_item);
    if (d > max_item)
      fail_msg("%d shards: spread %lld over the largest item %lld", count, d, max_item);
  }
  /* the control: a split by position (seven runs of neighbours) is not
   * even on this matrix, and the check above says so */
  for (size_t i = 0; i < n; i++) a[i] = (int)(i * 7 / n);
  long long max_item, d = spread(items, n, a, 7, &max_item);
  assert_true(d > max_item);
  free(items), free(rev), free(a), free(b), free(r);
}

/* The names a --list prints (one per line after the expectation), joined. */
static char *list_of(const char *const *argv) {
  cli_result r = run_cli(argv, NULL);
  assert_int_equal(r.exit_code, 0);
  char *out = r.out;
  r.out = NULL;
  cli_result_free(&r);
  return out;
}

static size_t lines(const char *s) {
  size_t n = 0;
  for (; *s; s++) n += *s == '\n';
  return n;
}

static int cmp_str(const void *a, const void *b) {
  return strcmp(*(char *const *)a, *(char *const *)b);
}

/* The lines of text (changed in place), sorted, into *out; their count. */
static size_t sorted_lines(char *text, char ***out) {
  size_t n = 0, cap = lines(text) + 1;
  *out = malloc(cap * sizeof **out);
  assert_non_null(*out);
  for (char *line = strtok(text, "\n"); line; line = strtok(NULL, "\n")) (*out)[n++] = line;
  qsort(*out, n, sizeof **out, cmp_str);
  return n;
}

/* The shards of a selection, listed by the CLI, are together exactly the
 * selection, each case in one shard, for the arm matrix, the GEMM matrix
 * and a device's plan. */
static void cli_shards_partition(void **state) {
  (void)state;
  const char *sel[][6] = {{"verify", NULL},
                          {"verify", "--case", "gemm", NULL},
                          {"verify", "--plan", "75,80,89,90,100,120", "--device", "120", NULL}};
  for (int s = 0; s < 3; s++) {
    const char *argv[12];
    int k = 0;
    for (; sel[s][k]; k++) argv[k] = sel[s][k];
    argv[k] = "--list", argv[k + 1] = NULL;
    char *whole = list_of(argv), *parts = calloc(1, 1);
    char shard[16];
    argv[k + 1] = "--shard", argv[k + 2] = shard, argv[k + 3] = NULL;
    for (int i = 1; i <= 5; i++) {
      snprintf(shard, sizeof shard, "%d/5", i);
      char *part = list_of(argv);
      assert_true(lines(part) > 0);
      size_t have = strlen(parts);
      parts = realloc(parts, have + strlen(part) + 1);
      assert_non_null(parts);
      memcpy(parts + have, part, strlen(part) + 1);
      free(part);
    }
    char **w, **p;
    size_t nw = sorted_lines(whole, &w), np = sorted_lines(parts, &p);
    assert_int_equal(nw, np);
    for (size_t i = 0; i < nw; i++) assert_string_equal(w[i], p[i]);
    free(w), free(p), free(whole), free(parts);
  }
}

/* --plan's JSON and --ci-matrix: every case counted, the jobs one per
 * device and shard with the runner command. */
static void cli_plan_and_jobs(void **state) {
  (void)state;
  cli_result r = run_cli((const char *[]){"verify", "--plan", "120,75,80", "--json", NULL}, NULL);
  assert_int_equal(r.exit_code, 0);
  verify_item *items;
  size_t n = verify_items_all(&items), covered = 0;
  const int fleet[] = {75, 80, 120};
  verify_devices d = devices(fleet, 3);
  for (size_t i = 0; i < n; i++) covered += expected_mask(&items[i], &d) != 0;
  free(items);
  assert_int_equal(json_int_of(r.out, "cases"), (long)n);
  /* 12.x listed: uncovered only what runs on 9.0 alone (the wgmma cases) */
  assert_true(covered < n);
  assert_int_equal(json_int_of(r.out, "covered"), (long)covered);
  cli_result_free(&r);
  r = run_cli((const char *[]){"verify", "--plan", "75,80,89,90,100", "--shards", "3",
                               "--ci-matrix", NULL}, NULL);
  assert_int_equal(r.exit_code, 0);
  assert_int_equal(lines(r.out), 1); /* one line: a GitHub output as is */
  size_t jobs = 0;
  for (const char *p = r.out; (p = strstr(p, "\"command\":")); p++) jobs++;
  assert_int_equal(jobs, 15);
  assert_non_null(strstr(r.out, "\"device\":\"89\",\"shard\":\"2/3\""));
  assert_non_null(
      strstr(r.out, "sh tools/gpu-job.sh --plan 75,80,89,90,100 --device 100 --shard 3/3"));
  cli_result_free(&r);
  r = run_cli((const char *[]){"verify", "--plan", "75,80,89,90,100", NULL}, NULL);
  assert_int_equal(r.exit_code, 0);
  assert_non_null(strstr(r.out, "UNCOVERED"));
  assert_non_null(strstr(r.out, "runs mma-mxfp8 (floor 120, only on 12.x devices)"));
  assert_non_null(strstr(r.out, "runs mma-nvf4 (floor 120, only on 12.x devices)"));
  cli_result_free(&r);
  /* a 12.x device in the plan takes the family arms: none left uncovered */
  r = run_cli((const char *[]){"verify", "--plan", "80,90,120", NULL}, NULL);
  assert_int_equal(r.exit_code, 0);
  assert_null(strstr(r.out, "12.x devices"));
  cli_result_free(&r);
}

/* --job-cost C: every job within C plus the largest case, each device as
 * many jobs as its cost needs. */
static void cli_job_cost(void **state) {
  (void)state;
  verify_item *items;
  size_t n = verify_items_all(&items);
  long largest = 0;
  for (size_t i = 0; i < n; i++) largest = items[i].cost > largest ? items[i].cost : largest;
  free(items);
  cli_result r = run_cli((const char *[]){"verify", "--plan", "75,80,89,90,100,120", "--job-cost",
                                          "10000", "--ci-matrix", NULL}, NULL);
  assert_int_equal(r.exit_code, 0);
  int jobs = 0;
  long total = 0;
  for (const char *p = r.out; (p = strstr(p, "\"cost\":\"")); jobs++) {
    p += strlen("\"cost\":\"");
    long cost = strtol(p, NULL, 10);
    if (cost > 10000 + largest) fail_msg("a job of cost %ld over 10000 + %ld", cost, largest);
    total += cost;
  }
  assert_true(jobs >= (total + 9999) / 10000); /* no job of much more than C */
  assert_true(jobs > 6);                       /* the heavy devices got more than one */
  cli_result_free(&r);
}

static void cli_refuses(void **state) {
  (void)state;
  const char *bad[][8] = {
      {"verify", "--plan", "", NULL},
      {"verify", "--plan", "80,abc", NULL},
      {"verify", "--plan", "80,80", NULL},
      {"verify", "--plan", "0", NULL},
      {"verify", "--plan", "80,1000", NULL},
      {"verify", "--device", "80", NULL},
      {"verify", "--plan", "80,90", "--device", "75", NULL},
      {"verify", "--shard", "0/3", "--list", NULL},
      {"verify", "--shard", "4/3", "--list", NULL},
      {"verify", "--shard", "1/x", "--list", NULL},
      {"verify", "--shard", "1/0", "--list", NULL},
      {"verify", "--plan", "80", "--device", "80", "--shards", "2", NULL},
      {"verify", "--plan", "80", "--shard", "1/2", NULL},
      {"verify", "--plan", "80", "--ci-matrix", "--json", NULL},
      {"verify", "--plan", "80", "--shards", "2", "--job-cost", "5", NULL},
      {"verify", "--plan", "80", "--job-cost", "0", NULL},
      {"verify", "--job-cost", "100", "--list", NULL},
      {"verify", "--tap", "--json", NULL},
      {"verify", "--junit", "x.xml", "--list", NULL},
      {"verify", "--case", "zzz", "--shard", "1/2", NULL},
  };
  for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
    cli_result r = run_cli(bad[i], NULL);
    if (r.exit_code != 2)
      fail_msg("case %zu (%s %s): exit %d, %s", i, bad[i][1], bad[i][2], r.exit_code, r.err);
    assert_true(r.err_len > 0);
    cli_result_free(&r);
  }
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(placed_by_the_rules),
      cmocka_unit_test(known_placements),
      cmocka_unit_test(shards_even_and_deterministic),
      cmocka_unit_test(cli_shards_partition),
      cmocka_unit_test(cli_plan_and_jobs),
      cmocka_unit_test(cli_job_cost),
      cmocka_unit_test(cli_refuses),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
