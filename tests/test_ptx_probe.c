/* tables/ptx_features.def proven by ptxas (docs/design.md §13): every row's
 * probes (tests/data/ptx_probes.def) assemble on exactly the ptxas targets
 * the reader says hold them, and at the PTX ISA version the rows give but not
 * at the version before, wherever the target can be written at that one.
 * One module per target holds every probe in its own kernel; ptxas reports
 * errors by line, so one run judges every probe. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "util.h"
#include "tcmma/tcmma.h"

static const struct {
  tcmma_ptx_feature_id row;
  const char *text;
} probes[] = {
#define TCMMA_PTX_PROBE(ID, text) {TCMMA_PTX_F_##ID, text},
#include "tests/data/ptx_probes.def"
#undef TCMMA_PTX_PROBE
};
#define PROBES (sizeof probes / sizeof probes[0])
#define TARGETS_MAX 64

/* Every probe kernel declares these; the probes use no others. */
static const char prologue[] =
    ".reg .b32 %r<200>; .reg .f32 %f<200>; .reg .b64 %rd<64>; .reg .f64 %fd<64>; "
    ".reg .pred %p<8>; .reg .b16 %h<32>;";
/* Not an instruction: ptxas must report it, which shows it read the module
 * to its end (a run that stopped early would pass the probes after it). */
static const char sentinel[] = "tcmma_probe_sentinel;";

/* The probe's instruction: after the declarations it may start with
 * (".reg .b128 %q<4>; ld.global.b128 ..."). */
static void opcode_of(const char *text, char *op, size_t cap) {
  while (*text == '.' && strchr(text, ';')) text = strchr(text, ';') + 1 + strspn(strchr(text, ';') + 1, " ");
  size_t n = strcspn(text, " \t;");
  snprintf(op, cap, "%.*s", (int)n, text);
}

static int parse_target(const char *t, char *suffix) {
  int sm;
  assert_int_equal(tcmma_ptx_target_parse(t, &sm, suffix, NULL), TCMMA_OK);
  return sm;
}

/* A module at version/target holding the probes picked (all when pick is
 * NULL) and the sentinel; line[i] gets probe i's line (0: left out). */
typedef struct {
  char *text;
  size_t len;
  int line[PROBES + 1];
  bool marked[4 * PROBES + 16]; /* lines that hold a probe or the sentinel */
} module;

static void build(module *m, int version, const char *target, const bool *pick) {
  size_t cap = 4096 + PROBES * 512;
  m->text = malloc(cap);
  assert_non_null(m->text);
  memset(m->line, 0, sizeof m->line);
  memset(m->marked, 0, sizeof m->marked);
  int n = snprintf(m->text, cap, ".version %d.%d\n.target %s\n.address_size 64\n", version / 10,
                   version % 10, target);
  int line = 4;
  for (size_t i = 0; i <= PROBES; i++) {
    if (i < PROBES && pick && !pick[i]) continue;
    const char *body = i < PROBES ? probes[i].text : sentinel;
    n += snprintf(m->text + n, cap - (size_t)n, ".visible .entry p%zu() { %s\n%s\nret; }\n", i,
                  prologue, body);
    m->line[i] = line + 1;
    m->marked[line + 1] = true;
    line += 3;
  }
  m->len = (size_t)n;
}

static void probe_rows_match(void **state) {
  (void)state;
  size_t per_row[TCMMA_PTX_FEATURE_COUNT] = {0};
  for (size_t i = 0; i < PROBES; i++) {
    char op[256];
    opcode_of(probes[i].text, op, sizeof op);
    const tcmma_ptx_feature *row = tcmma_ptx_feature_get(probes[i].row);
    if (!tcmma_ptx_feature_matches(row, op))
      fail_msg("probe %zu (%s) does not match its row %s (%s)", i, op, row->id, row->tokens);
    per_row[probes[i].row]++;
  }
  for (size_t r = 0; r < TCMMA_PTX_FEATURE_COUNT; r++)
    if (!per_row[r]) fail_msg("row %s has no probe", tcmma_ptx_feature_get(r)->id);
}

/* A row no probe can tell apart from a row with a subset of its tokens is a
 * fact written twice. */
static void no_redundant_rows(void **state) {
  (void)state;
  static const int sms[] = {75, 80, 86, 89, 90, 100, 103, 110, 120, 121};
  for (size_t i = 0; i < TCMMA_PTX_FEATURE_COUNT; i++)
    for (size_t j = 0; j < TCMMA_PTX_FEATURE_COUNT; j++) {
      const tcmma_ptx_feature *a = tcmma_ptx_feature_get(i), *b = tcmma_ptx_feature_get(j);
      if (i == j || a->min_ptx < b->min_ptx || strlen(b->tokens) <= strlen(a->tokens) ||
          !tcmma_ptx_feature_matches(a, b->tokens))
        continue;
      bool same = true;
      static const char suffixes[] = {0, 'a', 'f'};
      for (size_t k = 0; k < sizeof sms / sizeof sms[0]; k++)
        for (size_t s = 0; s < sizeof suffixes; s++)
          same = same && tcmma_ptx_feature_holds(a, sms[k], suffixes[s]) ==
                             tcmma_ptx_feature_holds(b, sms[k], suffixes[s]);
      if (same) fail_msg("row %s adds nothing to %s", b->id, a->id);
    }
}

/* The PTX ISA version the probe's rows need. */
static int probe_ptx(size_t i) {
  char op[256];
  int ptx;
  opcode_of(probes[i].text, op, sizeof op);
  tcmma_ptx_opcode_need(op, NULL, NULL, &ptx);
  return ptx;
}

static bool row_holds(tcmma_ptx_feature_id row, const char *target) {
  char suffix;
  int sm = parse_target(target, &suffix);
  return tcmma_ptx_feature_holds(tcmma_ptx_feature_get(row), sm, suffix);
}

/* The sweep: every probe at every target at ptxas's highest PTX version.
 * Fills accepted[i][t]. */
static int sweep(char (*targets)[16], size_t nt, bool accepted[][TARGETS_MAX], int version) {
  ptxas_job jobs[TARGETS_MAX];
  module mods[TARGETS_MAX];
  for (size_t t = 0; t < nt; t++) {
    build(&mods[t], version, targets[t], NULL);
    jobs[t] = (ptxas_job){.text = mods[t].text, .len = mods[t].len, .arch = targets[t]};
  }
  ptxas_run(jobs, nt);
  int bad = 0;
  for (size_t t = 0; t < nt; t++) {
    if (!ptxas_error_at(jobs[t].log, mods[t].line[PROBES]))
      fail_msg("%s: ptxas did not reach the sentinel:\n%s", targets[t], jobs[t].log);
    int stray = ptxas_error_outside(jobs[t].log, mods[t].marked, (int)(sizeof mods[t].marked));
    if (stray) fail_msg("%s: an error at line %d, which holds no probe:\n%s", targets[t], stray, jobs[t].log);
    char suffix;
    int sm = parse_target(targets[t], &suffix);
    for (size_t i = 0; i < PROBES; i++) {
      accepted[i][t] = !ptxas_error_at(jobs[t].log, mods[t].line[i]);
      char op[256];
      opcode_of(probes[i].text, op, sizeof op);
      if (accepted[i][t] != tcmma_ptx_opcode_holds(op, sm, suffix)) {
        print_message("%s on %s: ptxas %s, the table says %s\n", op, targets[t],
                      accepted[i][t] ? "accepts" : "rejects",
                      accepted[i][t] ? "no" : "yes");
        bad++;
      }
    }
    free(mods[t].text);
  }
  ptxas_jobs_free(jobs, nt);
  return bad;
}

/* ---- PTX ISA versions ---- */

/* What ptxas says of an empty module at version for target (cached):
 * WRITABLE, NOT_FOR_TARGET (the version exists but cannot hold the target;
 * no lower one can either) or UNKNOWN_VERSION (8.0 -> 7.9 does not exist). */
enum { UNSEEN = -1, UNKNOWN_VERSION, WRITABLE, NOT_FOR_TARGET };
static struct {
  char target[16];
  int version, state;
} writable_seen[256];
static size_t writable_count;

static void learn_writable(const char (*target)[16], const int *versions, size_t n) {
  ptxas_job jobs[64];
  char texts[64][160];
  size_t k = 0;
  for (size_t i = 0; i < n && k < 64; i++) {
    snprintf(texts[k], sizeof texts[k],
             ".version %d.%d\n.target %s\n.address_size 64\n.visible .entry e() { ret; }\n",
             versions[i] / 10, versions[i] % 10, target[i]);
    jobs[k] = (ptxas_job){.text = texts[k], .len = strlen(texts[k]), .arch = target[i]};
    k++;
  }
  ptxas_run(jobs, k);
  for (size_t i = 0; i < k && writable_count < 256; i++) {
    snprintf(writable_seen[writable_count].target, 16, "%.15s", target[i]);
    writable_seen[writable_count].version = versions[i];
    writable_seen[writable_count++].state =
        jobs[i].rc == 0                               ? WRITABLE
        : strstr(jobs[i].log, "does not support .target") ? NOT_FOR_TARGET
                                                      : UNKNOWN_VERSION;
  }
  ptxas_jobs_free(jobs, k);
}

static int known_writable(const char *target, int version) {
  for (size_t i = 0; i < writable_count; i++)
    if (writable_seen[i].version == version && strcmp(writable_seen[i].target, target) == 0)
      return writable_seen[i].state;
  return UNSEEN;
}


/* A group: the probes whose lowest accepting target and PTX need agree. */
typedef struct {
  const char *target;
  int version, prev; /* prev: the version just below that the target can be
                      * written at; 0 when there is none */
  bool done;
  bool pick[PROBES];
  size_t count;
} group;

static void find_prev(group *g, size_t n) {
  /* walk every group down one candidate version per round, in parallel */
  int cand[64];
  for (size_t i = 0; i < n; i++) cand[i] = g[i].version;
  for (int round = 0; round < 40; round++) {
    char targets[64][16];
    int versions[64];
    size_t k = 0;
    bool open = false;
    for (size_t i = 0; i < n; i++) {
      if (g[i].done || cand[i] <= 10) continue;
      cand[i]--; /* 8.0 -> 7.9, which ptxas does not know: the walk goes on to 7.8 */
      open = true;
      if (known_writable(g[i].target, cand[i]) == UNSEEN && k < 64) {
        snprintf(targets[k], 16, "%s", g[i].target);
        versions[k++] = cand[i];
      }
    }
    if (!open) break;
    learn_writable((const char(*)[16])targets, versions, k);
    for (size_t i = 0; i < n; i++) {
      int state = g[i].done ? UNSEEN : known_writable(g[i].target, cand[i]);
      if (state == WRITABLE) g[i].prev = cand[i];
      if (state == WRITABLE || state == NOT_FOR_TARGET) g[i].done = true;
    }
  }
}

typedef struct {
  size_t groups, proven, at_floor;
} version_report;

static int check_versions(char (*targets)[16], size_t nt, bool accepted[][TARGETS_MAX],
                          version_report *rep) {
  group g[64] = {0};
  size_t ng = 0;
  for (size_t i = 0; i < PROBES; i++) {
    size_t t0 = 0;
    while (t0 < nt && !accepted[i][t0]) t0++;
    if (t0 == nt) continue; /* the sweep has reported it */
    /* on its lowest target it needs the later of its rows' version and the
     * target's own first one (tables/ptx_targets.def) */
    char suffix;
    int sm = parse_target(targets[t0], &suffix), v = probe_ptx(i);
    if (tcmma_ptx_target_ptx(sm, suffix) > v) v = tcmma_ptx_target_ptx(sm, suffix);
    size_t k = 0;
    while (k < ng && !(g[k].version == v && strcmp(g[k].target, targets[t0]) == 0)) k++;
    if (k == ng) {
      assert_true(ng < 64);
      g[ng].target = targets[t0], g[ng].version = v, ng++;
    }
    g[k].pick[i] = true, g[k].count++;
  }
  find_prev(g, ng);
  ptxas_job jobs[128];
  module mods[128];
  size_t nj = 0;
  for (size_t k = 0; k < ng; k++) {
    build(&mods[nj], g[k].version, g[k].target, g[k].pick);
    jobs[nj] = (ptxas_job){.text = mods[nj].text, .len = mods[nj].len, .arch = g[k].target};
    nj++;
    if (!g[k].prev) continue;
    build(&mods[nj], g[k].prev, g[k].target, g[k].pick);
    jobs[nj] = (ptxas_job){.text = mods[nj].text, .len = mods[nj].len, .arch = g[k].target};
    nj++;
  }
  ptxas_run(jobs, nj);
  int bad = 0;
  for (size_t k = 0, j = 0; k < ng; k++) {
    module *at = &mods[j], *below = g[k].prev ? &mods[j + 1] : NULL;
    for (size_t i = 0; i < PROBES; i++) {
      if (!g[k].pick[i]) continue;
      if (ptxas_error_at(jobs[j].log, at->line[i])) {
        print_message("%s at PTX %d.%d on %s: rejected at the version its rows give\n",
                      probes[i].text, g[k].version / 10, g[k].version % 10, g[k].target);
        bad++;
      }
      if (!below) {
        rep->at_floor++;
        continue;
      }
      if (!ptxas_error_at(jobs[j + 1].log, below->line[i])) {
        print_message("%s at PTX %d.%d on %s: accepted below the version its rows give (%d.%d)\n",
                      probes[i].text, g[k].prev / 10, g[k].prev % 10, g[k].target,
                      g[k].version / 10, g[k].version % 10);
        bad++;
      } else {
        rep->proven++;
      }
    }
    free(at->text);
    if (below) free(below->text);
    j += below ? 2 : 1;
  }
  rep->groups = ng;
  ptxas_jobs_free(jobs, nj);
  return bad;
}

/* Each row must bind one of its probes: ptxas's targets for the probe are
 * exactly the row's, or the probe's PTX ISA version is the row's. */
static int check_binding(char (*targets)[16], size_t nt, bool accepted[][TARGETS_MAX],
                         size_t *proven_below) {
  int bad = 0;
  for (size_t r = 0; r < TCMMA_PTX_FEATURE_COUNT; r++) {
    const tcmma_ptx_feature *row = tcmma_ptx_feature_get(r);
    bool binds = false, below = false;
    for (size_t i = 0; i < PROBES; i++) {
      if (probes[i].row != (tcmma_ptx_feature_id)r) continue;
      bool same = true;
      for (size_t t = 0; t < nt; t++) {
        same = same && accepted[i][t] == row_holds(probes[i].row, targets[t]);
        /* a rejecting target below the row's floor, or at it without the suffix */
        char suffix;
        int sm = parse_target(targets[t], &suffix);
        below = below || (!accepted[i][t] && sm <= row->min_sm);
      }
      binds = binds || same || probe_ptx(i) == row->min_ptx;
    }
    if (!binds) {
      print_message("row %s binds none of its probes\n", row->id);
      bad++;
    }
    if (below) (*proven_below)++;
  }
  return bad;
}

static void probes_against_ptxas(void **state) {
  (void)state;
  if (!ptxas_path()) {
    print_message("ptxas not found under %s: skipped\n", cuda_home());
    skip();
  }
  static char targets[TARGETS_MAX][16];
  size_t nt = ptxas_targets(targets, TARGETS_MAX);
  assert_true(nt >= 2);
  int top = ptxas_top_version();
  assert_true(top > 0);
  static bool accepted[PROBES][TARGETS_MAX];
  int bad = sweep(targets, nt, accepted, top);
  size_t proven_below = 0;
  bad += check_binding(targets, nt, accepted, &proven_below);
  version_report rep = {0};
  bad += check_versions(targets, nt, accepted, &rep);
  print_message("ptx features: %zu rows, %zu probes, %zu ptxas targets (%s..%s), PTX %d.%d;\n"
                "  rows rejected below their floor or without their suffix: %zu (the rest sit\n"
                "  at ptxas's lowest target); PTX ISA floors proven from below: %zu probes,\n"
                "  %zu at their target's first version\n",
                tcmma_ptx_feature_count(), PROBES, nt, targets[0], targets[nt - 1], top / 10,
                top % 10, proven_below, rep.proven, rep.at_floor);
  if (bad) fail_msg("%d disagreements with ptxas (listed above)", bad);
}

/* tables/ptx_targets.def is ptxas's: every target ptxas lists has a row, and
 * an empty module at the row's version assembles for it but not at the
 * version before (7.9 and 8.9 do not exist: the walk passes over them). */
static void ptx_targets_match(void **state) {
  (void)state;
  if (!ptxas_path()) skip();
  char targets[TARGETS_MAX][16];
  size_t nt = ptxas_targets(targets, TARGETS_MAX);
  assert_true(nt >= 2);
  char names[TARGETS_MAX][16];
  int at[TARGETS_MAX] = {0};
  for (size_t t = 0; t < nt; t++) {
    char suffix;
    int sm = parse_target(targets[t], &suffix);
    at[t] = tcmma_ptx_target_ptx(sm, suffix);
    if (!at[t]) fail_msg("%s: ptxas has it, tables/ptx_targets.def does not", targets[t]);
    memcpy(names[t], targets[t], 16);
  }
  learn_writable((const char(*)[16])names, at, nt);
  group g[TARGETS_MAX] = {0};
  for (size_t t = 0; t < nt; t++) {
    if (known_writable(targets[t], at[t]) != WRITABLE)
      fail_msg("%s: ptxas refuses it at PTX %d.%d, its row's version", targets[t], at[t] / 10,
               at[t] % 10);
    g[t].target = targets[t], g[t].version = at[t];
  }
  find_prev(g, nt);
  for (size_t t = 0; t < nt; t++)
    if (g[t].prev) fail_msg("%s: ptxas writes it at PTX %d.%d, below its row's %d.%d", targets[t],
                            g[t].prev / 10, g[t].prev % 10, at[t] / 10, at[t] % 10);
  assert_int_equal(tcmma_ptx_target_ptx(70, 0), 0); /* ptxas 13 has no sm_70 */
  assert_int_equal(tcmma_ptx_target_ptx(90, 'f'), 0);
}

/* Family targets exist from TCMMA_PTX_FAMILY_MIN_SM on, as ptxas lists them. */
static void family_targets_start(void **state) {
  (void)state;
  if (!ptxas_path()) skip();
  char targets[TARGETS_MAX][16];
  size_t nt = ptxas_targets(targets, TARGETS_MAX);
  bool first = false;
  for (size_t t = 0; t < nt; t++) {
    size_t n = strlen(targets[t]);
    if (targets[t][n - 1] != 'f') continue;
    int sm = atoi(targets[t] + 3);
    assert_true(sm >= TCMMA_PTX_FAMILY_MIN_SM);
    first = first || sm == TCMMA_PTX_FAMILY_MIN_SM;
  }
  assert_true(first);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(probe_rows_match),
      cmocka_unit_test(no_redundant_rows),
      cmocka_unit_test(probes_against_ptxas),
      cmocka_unit_test(family_targets_start),
      cmocka_unit_test(ptx_targets_match),
  };
  return cmocka_run_group_tests_name("ptx_probe", tests, NULL, NULL);
}
