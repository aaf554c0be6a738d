/* tcmma verify --plan DEVICES (docs/verify.md, "GPU CI"): which listed
 * device runs which case of both matrices under the plan's coverage rules
 * (tools/verify/plan.h, verify_plan_mask), each arm's coverage, the cases
 * no listed device runs, and the CI jobs (device x shard) with the command
 * each runs. */
#include <stdlib.h>
#include <string.h>
#include "cli.h"
#include "tables/decimal.h"
#include "tools/cmd_verify.h"

/* One entry of a device list: a cc as every option reads one (decimal,
 * major*10+minor, tcmma_cc_check's range; 0 "any device" is no device);
 * -1 otherwise. */
static int parse_cc(const char *s, size_t len) {
  char buf[16];
  long long cc;
  if (len >= sizeof buf) return -1;
  memcpy(buf, s, len), buf[len] = '\0';
  if (!tcmma__table_decimal(buf, TCMMA_CC_MIN, TCMMA_CC_MAX, &cc)) return -1;
  return (int)cc;
}

static int cmp_int(const void *a, const void *b) {
  int x = *(const int *)a, y = *(const int *)b;
  return (x > y) - (x < y);
}

tcmma_status cmd_verify_devices_parse(const char *text, verify_devices *out, tcmma_error *err) {
  memset(out, 0, sizeof *out);
  const char *s = text ? text : "";
  if (!*s) return tcmma_fail(err, TCMMA_INVALID, "an empty device list: expected compute "
                             "capabilities such as 75,80,89,90,100,120");
  for (;;) {
    size_t len = strcspn(s, ",");
    int cc = parse_cc(s, len);
    if (cc < 0)
      return tcmma_fail(err, TCMMA_INVALID, "device '%.*s' in '%s': expected a compute "
                        "capability, major*10+minor from %d to %d (89 for sm_89)", (int)len, s,
                        text, TCMMA_CC_MIN, TCMMA_CC_MAX);
    for (size_t i = 0; i < out->n; i++)
      if (out->cc[i] == cc)
        return tcmma_fail(err, TCMMA_INVALID, "device %d is listed twice in '%s'", cc, text);
    if (out->n == VERIFY_PLAN_DEVICES_MAX)
      return tcmma_fail(err, TCMMA_INVALID, "more than %d devices in '%s'",
                        VERIFY_PLAN_DEVICES_MAX, text);
    out->cc[out->n++] = cc;
    if (s[len] == '\0') break;
    s += len + 1;
  }
  qsort(out->cc, out->n, sizeof out->cc[0], cmp_int);
  return TCMMA_OK;
}

tcmma_status cmd_verify_shard_parse(const char *text, int *index, int *count, tcmma_error *err) {
  const char *s = text ? text : "", *slash = strchr(s, '/');
  char head[16];
  long long i = 0, n = 0;
  bool ok = slash && (size_t)(slash - s) < sizeof head;
  if (ok) {
    memcpy(head, s, (size_t)(slash - s)), head[slash - s] = '\0';
    ok = tcmma__table_decimal(head, 1, VERIFY_SHARDS_MAX, &i) &&
         tcmma__table_decimal(slash + 1, 1, VERIFY_SHARDS_MAX, &n) && i <= n;
  }
  if (!ok)
    return tcmma_fail(err, TCMMA_INVALID, "shard '%s': expected I/N with 1 <= I <= N <= %d "
                      "(2/4: the second of four)", s, VERIFY_SHARDS_MAX);
  *index = (int)i - 1, *count = (int)n;
  return TCMMA_OK;
}

typedef struct {
  verify_item *items;
  size_t n;
  unsigned *mask; /* per item: verify_plan_mask */
} plan_data;

/* One device's share of the plan. */
typedef struct {
  int cases, arm_cases, gemm_cases, planning; /* planning: cases that need no device */
  int wgmma_cases;
  long long cost;
  int shards;                                 /* jobs: min(--shards, cases) */
} device_share;

static bool plan_build(const verify_devices *d, plan_data *p) {
  p->n = verify_items_all(&p->items);
  p->mask = calloc(p->n ? p->n : 1, sizeof *p->mask);
  if (!p->items || !p->n || !p->mask) return false;
  for (size_t i = 0; i < p->n; i++) p->mask[i] = verify_plan_mask(&p->items[i], d);
  return true;
}

/* Device dev's share; its jobs: --shards, or its cost over --job-cost
 * rounded up; never more than its cases or VERIFY_SHARDS_MAX. */
static device_share share_of(const verify_args *a, const plan_data *p, size_t dev) {
  device_share s = {0};
  for (size_t i = 0; i < p->n; i++) {
    if (!(p->mask[i] >> dev & 1u)) continue;
    const verify_item *it = &p->items[i];
    s.cases++, s.cost += it->cost;
    if (!it->accepted) s.planning++;
    else if (it->kind == VERIFY_ITEM_ARM) s.arm_cases++;
    else if (it->kind == VERIFY_ITEM_WGMMA) s.wgmma_cases++;
    else s.gemm_cases++;
  }
  long long shards = a->job_cost ? (s.cost + a->job_cost - 1) / a->job_cost : a->plan_shards;
  if (shards > VERIFY_SHARDS_MAX) shards = VERIFY_SHARDS_MAX;
  s.shards = s.cases < shards ? s.cases : (int)shards;
  return s;
}

void cmd_verify_job_command(const verify_args *a, int device, int shard, int shards, char *buf,
                            size_t cap) {
  char list[VERIFY_PLAN_DEVICES_MAX * 5 + 1];
  verify_devices_format(&a->devices, list, sizeof list);
  snprintf(buf, cap, "sh tools/gpu-job.sh --plan %s --device %d --shard %d/%d", list, device,
           shard + 1, shards);
}

/* The cost of each shard of device dev's cases into cost[0..shards). */
static void shard_costs(const plan_data *p, size_t dev, int shards, long long *cost, int *cases) {
  verify_item *sel = calloc(p->n, sizeof *sel);
  int *which = calloc(p->n, sizeof *which);
  size_t k = 0;
  for (size_t i = 0; sel && which && i < p->n; i++)
    if (p->mask[i] >> dev & 1u) sel[k++] = p->items[i];
  if (sel && which) verify_shard_assign(sel, k, shards, which);
  for (int s = 0; s < shards; s++) cost[s] = 0, cases[s] = 0;
  for (size_t i = 0; sel && which && i < k; i++) cost[which[i]] += sel[i].cost, cases[which[i]]++;
  free(sel), free(which);
}

/* A JSON string of plain text (the jobs' values: digits, names, the
 * command) into f. */
static void job_string(FILE *f, const char *s) {
  fputc('"', f);
  for (; *s; s++) {
    if (*s == '"' || *s == '\\') fputc('\\', f);
    if ((unsigned char)*s >= 0x20) fputc(*s, f);
  }
  fputc('"', f);
}

/* --ci-matrix: every job as one line of JSON, string values only (GitLab's
 * parallel:matrix takes strings; GitHub's fromJSON any). */
static void print_jobs(const verify_args *a, const plan_data *p, FILE *f) {
  fputc('[', f);
  bool first = true;
  long long cost[VERIFY_SHARDS_MAX];
  int cases[VERIFY_SHARDS_MAX];
  for (size_t d = 0; d < a->devices.n; d++) {
    device_share s = share_of(a, p, d);
    if (!s.cases) continue;
    shard_costs(p, d, s.shards, cost, cases);
    for (int k = 0; k < s.shards; k++) {
      char name[48], dev[16], shard[24], n[24], c[24], cmd[256];
      int cc = a->devices.cc[d];
      snprintf(name, sizeof name, "cc%d-%dof%d", cc, k + 1, s.shards);
      snprintf(dev, sizeof dev, "%d", cc), snprintf(shard, sizeof shard, "%d/%d", k + 1, s.shards);
      snprintf(n, sizeof n, "%d", cases[k]), snprintf(c, sizeof c, "%lld", cost[k]);
      cmd_verify_job_command(a, cc, k, s.shards, cmd, sizeof cmd);
      const char *keys[] = {"name", "device", "shard", "cases", "cost", "command"};
      const char *vals[] = {name, dev, shard, n, c, cmd};
      fputs(first ? "{" : ",{", f), first = false;
      for (int j = 0; j < 6; j++)
        fputs(j ? "," : "", f), job_string(f, keys[j]), fputc(':', f), job_string(f, vals[j]);
      fputc('}', f);
    }
  }
  fputs("]\n", f);
}

/* The lowest and the highest listed device that runs arm (0: none). */
static void arm_devices(const verify_devices *d, tcmma_arm arm, int *lowest, int *newest) {
  *lowest = *newest = 0;
  for (size_t i = 0; i < d->n; i++)
    if (tcmma_arm_runs_on(arm, d->cc[i])) {
      if (!*lowest) *lowest = d->cc[i];
      *newest = d->cc[i];
    }
}

/* Accepted cases of each kind per arm. */
static void arm_counts(const plan_data *p, tcmma_arm arm, int *arm_cases, int *gemm_cases) {
  *arm_cases = *gemm_cases = 0;
  for (size_t i = 0; i < p->n; i++)
    if (p->items[i].accepted && p->items[i].arm == arm)
      ++*(p->items[i].kind == VERIFY_ITEM_ARM ? arm_cases : gemm_cases);
}

/* One arm's coverage: its row, its accepted cases of each matrix, the
 * lowest and the newest listed device that runs it (0: none). */
typedef struct {
  const tcmma_arm_info *info;
  int arm_cases, gemm_cases, lowest, newest;
} arm_cover;

/* false when neither matrix holds a case of arm. */
static bool arm_cover_of(const verify_args *a, const plan_data *p, tcmma_arm arm, arm_cover *v) {
  v->info = tcmma_arm_get(arm);
  arm_counts(p, arm, &v->arm_cases, &v->gemm_cases);
  arm_devices(&a->devices, arm, &v->lowest, &v->newest);
  return v->info && (v->arm_cases || v->gemm_cases);
}

/* A wgmma row's coverage: its cases, the lowest and newest listed device
 * that runs it. */
typedef struct {
  const tcmma_wgmma_info *info;
  int cases, lowest, newest;
} wgmma_cover;

static wgmma_cover wgmma_cover_of(const verify_args *a, const plan_data *p, tcmma_wgmma w) {
  wgmma_cover v = {tcmma_wgmma_get(w), 0, 0, 0};
  for (size_t i = 0; i < p->n; i++)
    v.cases += p->items[i].kind == VERIFY_ITEM_WGMMA && p->items[i].wgmma == w;
  for (size_t i = 0; i < a->devices.n; i++)
    if (tcmma_wgmma_runs_on(w, a->devices.cc[i])) {
      if (!v.lowest) v.lowest = a->devices.cc[i];
      v.newest = a->devices.cc[i];
    }
  return v;
}

static size_t uncovered(const plan_data *p) {
  size_t k = 0;
  for (size_t i = 0; i < p->n; i++) k += p->mask[i] == 0;
  return k;
}

static void json_arms(json_writer *w, const verify_args *a, const plan_data *p) {
  json_key(w, "arms"), json_begin_array(w);
  for (int arm = 0; arm < TCMMA_ARM_COUNT; arm++) {
    arm_cover v;
    if (!arm_cover_of(a, p, (tcmma_arm)arm, &v)) continue;
    const tcmma_arm_info *info = v.info;
    int na = v.arm_cases, ng = v.gemm_cases, lowest = v.lowest, newest = v.newest;
    json_begin_object(w);
    json_key(w, "arm"), json_string(w, info->marker);
    json_key(w, "floor"), json_int(w, info->floor);
    json_key(w, "family"), json_bool(w, info->family);
    json_key(w, "arm_cases"), json_int(w, na);
    json_key(w, "gemm_cases"), json_int(w, ng);
    json_key(w, "floor_device");
    lowest ? json_int(w, lowest) : json_null(w);
    json_key(w, "floor_listed"), json_bool(w, lowest == info->floor);
    json_key(w, "newest_device");
    newest ? json_int(w, newest) : json_null(w);
    json_end_object(w);
  }
  for (int wi = 0; wi < TCMMA_WGMMA_COUNT; wi++) {
    wgmma_cover v = wgmma_cover_of(a, p, (tcmma_wgmma)wi);
    if (!v.cases) continue;
    json_begin_object(w);
    json_key(w, "arm"), json_string(w, v.info->marker);
    json_key(w, "floor"), json_int(w, v.info->floor);
    json_key(w, "family"), json_bool(w, false);
    json_key(w, "arm_cases"), json_int(w, v.cases);
    json_key(w, "gemm_cases"), json_int(w, 0);
    json_key(w, "floor_device");
    v.lowest ? json_int(w, v.lowest) : json_null(w);
    json_key(w, "floor_listed"), json_bool(w, v.lowest == v.info->floor);
    json_key(w, "newest_device");
    v.newest ? json_int(w, v.newest) : json_null(w);
    json_end_object(w);
  }
  json_end_array(w);
}

static void json_devices(json_writer *w, const verify_args *a, const plan_data *p) {
  json_key(w, "per_device"), json_begin_array(w);
  long long cost[VERIFY_SHARDS_MAX];
  int cases[VERIFY_SHARDS_MAX];
  for (size_t d = 0; d < a->devices.n; d++) {
    device_share s = share_of(a, p, d);
    json_begin_object(w);
    json_key(w, "device"), json_int(w, a->devices.cc[d]);
    json_key(w, "cases"), json_int(w, s.cases);
    json_key(w, "arm_cases"), json_int(w, s.arm_cases);
    json_key(w, "gemm_cases"), json_int(w, s.gemm_cases);
    json_key(w, "wgmma_cases"), json_int(w, s.wgmma_cases);
    json_key(w, "planning_only"), json_int(w, s.planning);
    json_key(w, "cost"), json_int(w, s.cost);
    json_key(w, "shards"), json_begin_array(w);
    if (s.shards) shard_costs(p, d, s.shards, cost, cases);
    for (int k = 0; k < s.shards; k++) {
      char cmd[256];
      cmd_verify_job_command(a, a->devices.cc[d], k, s.shards, cmd, sizeof cmd);
      json_begin_object(w);
      json_key(w, "cases"), json_int(w, cases[k]);
      json_key(w, "cost"), json_int(w, cost[k]);
      json_key(w, "command"), json_string(w, cmd);
      json_end_object(w);
    }
    json_end_array(w);
    json_key(w, "names"), json_begin_array(w);
    for (size_t i = 0; i < p->n; i++)
      if (p->mask[i] >> d & 1u) json_string(w, p->items[i].name);
    json_end_array(w);
    json_end_object(w);
  }
  json_end_array(w);
}

static void print_json(const verify_args *a, const plan_data *p) {
  json_writer w;
  json_init(&w, stdout);
  json_begin_object(&w);
  json_key(&w, "devices"), json_begin_array(&w);
  for (size_t d = 0; d < a->devices.n; d++) json_int(&w, a->devices.cc[d]);
  json_end_array(&w);
  json_key(&w, "cases"), json_int(&w, (long long)p->n);
  json_key(&w, "covered"), json_int(&w, (long long)(p->n - uncovered(p)));
  json_devices(&w, a, p);
  json_arms(&w, a, p);
  json_key(&w, "uncovered"), json_begin_array(&w);
  for (size_t i = 0; i < p->n; i++) {
    if (p->mask[i]) continue;
    char why[256];
    verify_plan_uncovered_reason(&p->items[i], &a->devices, why, sizeof why);
    json_begin_object(&w);
    json_key(&w, "case"), json_string(&w, p->items[i].name);
    json_key(&w, "reason"), json_string(&w, why);
    json_end_object(&w);
  }
  json_end_array(&w);
  json_end_object(&w);
  json_finish(&w);
}

static void text_devices(const verify_args *a, const plan_data *p) {
  text_table t;
  table_init(&t, 8);
  table_row(&t, (const char *const[]){"DEVICE", "CASES", "ARM", "GEMM", "WGMMA", "PLANNING",
                                      "COST", "JOBS"});
  for (size_t d = 0; d < a->devices.n; d++) {
    device_share s = share_of(a, p, d);
    char c[8][24];
    snprintf(c[0], 24, "%d", a->devices.cc[d]), snprintf(c[1], 24, "%d", s.cases);
    snprintf(c[2], 24, "%d", s.arm_cases), snprintf(c[3], 24, "%d", s.gemm_cases);
    snprintf(c[4], 24, "%d", s.wgmma_cases);
    snprintf(c[5], 24, "%d", s.planning), snprintf(c[6], 24, "%lld", s.cost);
    snprintf(c[7], 24, "%d", s.shards);
    table_row(&t, (const char *const[]){c[0], c[1], c[2], c[3], c[4], c[5], c[6], c[7]});
  }
  table_print(&t, stdout);
  table_free(&t);
}

static void text_arms(const verify_args *a, const plan_data *p) {
  text_table t;
  table_init(&t, 6);
  table_row(&t, (const char *const[]){"ARM", "FLOOR", "FLOOR DEVICE", "NEWEST DEVICE",
                                      "ARM CASES", "GEMM CASES"});
  for (int arm = 0; arm < TCMMA_ARM_COUNT; arm++) {
    arm_cover v;
    if (!arm_cover_of(a, p, (tcmma_arm)arm, &v)) continue;
    const tcmma_arm_info *info = v.info;
    int na = v.arm_cases, ng = v.gemm_cases, lowest = v.lowest, newest = v.newest;
    char c[5][48];
    snprintf(c[0], 48, "%d%s", info->floor, info->family ? " (family)" : "");
    if (!lowest) snprintf(c[1], 48, "none"), snprintf(c[2], 48, "none");
    else {
      snprintf(c[1], 48, lowest == info->floor ? "%d" : "%d (floor not listed)", lowest);
      snprintf(c[2], 48, "%d", newest);
    }
    snprintf(c[3], 48, "%d", na), snprintf(c[4], 48, "%d", ng);
    table_row(&t, (const char *const[]){info->marker, c[0], c[1], c[2], c[3], c[4]});
  }
  for (int w = 0; w < TCMMA_WGMMA_COUNT; w++) { /* the wgmma rows: their cases as arm cases */
    wgmma_cover v = wgmma_cover_of(a, p, (tcmma_wgmma)w);
    if (!v.cases) continue;
    char c[5][48];
    snprintf(c[0], 48, "%d (sm_%da only)", v.info->floor, v.info->floor);
    snprintf(c[1], 48, "%s", "none"), snprintf(c[2], 48, "%s", "none");
    if (v.lowest) snprintf(c[1], 48, "%d", v.lowest), snprintf(c[2], 48, "%d", v.newest);
    snprintf(c[3], 48, "%d", v.cases), snprintf(c[4], 48, "0");
    table_row(&t, (const char *const[]){v.info->marker, c[0], c[1], c[2], c[3], c[4]});
  }
  table_print(&t, stdout);
  table_free(&t);
}

/* The uncovered cases, grouped by reason (each reason once, its count and
 * an example; --json names every one). */
static void text_uncovered(const verify_args *a, const plan_data *p) {
  char why[256], other[256];
  for (size_t i = 0; i < p->n; i++) {
    if (p->mask[i]) continue;
    verify_plan_uncovered_reason(&p->items[i], &a->devices, why, sizeof why);
    bool seen = false;
    int count = 0;
    for (size_t j = 0; j < p->n && !seen; j++) {
      if (p->mask[j]) continue;
      verify_plan_uncovered_reason(&p->items[j], &a->devices, other, sizeof other);
      if (strcmp(why, other) != 0) continue;
      if (j < i) seen = true;
      else count++;
    }
    if (!seen)
      printf("UNCOVERED %d case%s (e.g. %s): %s\n", count, count == 1 ? "" : "s",
             p->items[i].name, why);
  }
}

int cmd_verify_plan_print(const verify_args *a) {
  plan_data p = {0};
  if (!plan_build(&a->devices, &p)) {
    free(p.items), free(p.mask);
    return cli_fail("verify", "out of memory for the plan");
  }
  if (a->ci_matrix) print_jobs(a, &p, stdout);
  else if (a->json) print_json(a, &p);
  else {
    size_t un = uncovered(&p);
    printf("verify --plan %s: %zu cases, %zu covered, %zu uncovered\n", a->plan, p.n, p.n - un,
           un);
    text_devices(a, &p);
    text_arms(a, &p);
    text_uncovered(a, &p);
  }
  free(p.items), free(p.mask);
  return CLI_OK;
}
