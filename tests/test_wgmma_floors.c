/* Every wgmma arm's floor and instruction n, proven by ptxas
 * (docs/wgmma.md, docs/design.md §13): for each row of tables/wgmma.def and
 * each precision pair it takes, its own opcode (tcmma_wgmma_instruction)
 * assembles at sm_90a for every n of the row's list and is rejected at
 * sm_90 (no a), sm_89 and sm_100a (wgmma is not forward-compatible), with A
 * through a descriptor and from registers; an n off the list is rejected at
 * sm_90a. The floors also agree with the PTX
 * feature table the rows name. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "util.h"
#include "tcmma/tcmma.h"

#define JOBS_MAX 512
#define TEXT_MAX (64 * 1024)

typedef struct {
  tcmma_wgmma w;
  tcmma_prec a, b;
} pair;

/* Every (row, a, b) the row's ops column takes. */
static size_t pairs_of(pair *out, size_t cap) {
  size_t n = 0;
  for (int w = 0; w < TCMMA_WGMMA_COUNT; w++)
    for (int a = 0; a < TCMMA_PREC_COUNT; a++)
      for (int b = 0; b < TCMMA_PREC_COUNT; b++)
        if (tcmma_wgmma_takes((tcmma_wgmma)w, (tcmma_prec)a, (tcmma_prec)b) && n < cap)
          out[n++] = (pair){(tcmma_wgmma)w, (tcmma_prec)a, (tcmma_prec)b};
  return n;
}

/* One instruction line at n: the accumulator's registers, the two
 * descriptors, scale-d, and (floating point) imm-scale-a/-b and (rows with
 * imm-trans) both trans values (PTX ISA, wgmma.mma_async "Syntax"). */
static size_t line_of(char *buf, size_t cap, const pair *p, int n, bool a_regs) {
  const tcmma_wgmma_info *i = tcmma_wgmma_get(p->w);
  char op[128];
  tcmma_error err;
  if (tcmma_wgmma_instruction(p->w, n, p->a, p->b, op, sizeof op, &err) != TCMMA_OK) {
    /* an n off the list: the row's opcode spelled at that n all the same */
    assert_int_equal(tcmma_wgmma_instruction(p->w, 8, p->a, p->b, op, sizeof op, &err), TCMMA_OK);
    char *at = strstr(op, "n8k");
    assert_non_null(at);
    char rest[96];
    snprintf(rest, sizeof rest, "%s", at + 2);
    snprintf(at, sizeof op - (size_t)(at - op), "n%d%s", n, rest);
  }
  bool f32 = i->acc == TCMMA_PREC_F32, integer = i->acc == TCMMA_PREC_S32;
  int regs = n / 2 / (32 / tcmma_prec_bits(i->acc));
  size_t used = (size_t)snprintf(buf, cap, "%s {", op);
  for (int r = 0; r < regs; r++)
    used += (size_t)snprintf(buf + used, cap - used, "%s%s%d", r ? ", " : "", f32 ? "%f" : "%r", r);
  /* A from registers: four b32, and no imm-trans-a */
  used += (size_t)snprintf(buf + used, cap - used, "}, %s, %%rd2, 1%s%s;\n",
                           a_regs ? "{%r200, %r201, %r202, %r203}" : "%rd1", integer ? "" : ", 1, 1",
                           !i->trans ? "" : a_regs ? ", 0" : ", 0, 0");
  return used;
}

/* A module holding the lines at each n of ns (count of them); *first_line:
 * the line number of the first instruction. */
static char *module(const pair *p, const int *ns, int count, bool a_regs, int version,
                    const char *target, int *first_line) {
  char *text = malloc(TEXT_MAX);
  assert_non_null(text);
  size_t used = (size_t)snprintf(text, TEXT_MAX,
                                 ".version %d.%d\n.target %s\n.address_size 64\n"
                                 ".visible .entry k(.param .u64 p) {\n"
                                 ".reg .b64 %%rd<4>; .reg .f32 %%f<130>; .reg .b32 %%r<210>;\n"
                                 "ld.param.u64 %%rd1, [p];\nmov.b64 %%rd2, %%rd1;\n",
                                 version / 10, version % 10, target);
  *first_line = 8;
  for (int j = 0; j < count; j++) used += line_of(text + used, TEXT_MAX - used, p, ns[j], a_regs);
  snprintf(text + used, TEXT_MAX - used, "ret;\n}\n");
  return text;
}

static bool has_target(char (*targets)[16], size_t nt, const char *name) {
  for (size_t t = 0; t < nt; t++)
    if (strcmp(targets[t], name) == 0) return true;
  return false;
}

/* The floor and target every row states are what its opcode needs. */
static void floors_agree_with_the_feature_table(void **state) {
  (void)state;
  pair pairs[64];
  size_t n = pairs_of(pairs, 64);
  assert_true(n >= (size_t)TCMMA_WGMMA_COUNT);
  for (size_t j = 0; j < n; j++) {
    const tcmma_wgmma_info *i = tcmma_wgmma_get(pairs[j].w);
    char op[128];
    int sm = 0, ptx = 0;
    tcmma_ptx_suffix suffix;
    assert_int_equal(tcmma_wgmma_instruction(pairs[j].w, 64, pairs[j].a, pairs[j].b, op, sizeof op,
                                             NULL), TCMMA_OK);
    assert_true(tcmma_ptx_opcode_need(op, &sm, &suffix, &ptx));
    if (sm != i->floor || suffix != i->suffix)
      fail_msg("%s (%s): floor %d%s, the feature table says sm_%d%s", i->marker, op, i->floor,
               tcmma_ptx_suffix_text(i->suffix), sm, tcmma_ptx_suffix_text(suffix));
    assert_int_equal(i->suffix, TCMMA_PTX_SUFFIX_A);
  }
}

typedef struct {
  ptxas_job jobs[JOBS_MAX];
  bool want[JOBS_MAX];
  const pair *of[JOBS_MAX];
  size_t n;
} plan;

static void add(plan *pl, const pair *p, const int *ns, int count, bool a_regs, int version,
                const char *target, bool want) {
  assert_true(pl->n < JOBS_MAX);
  int line = 0;
  char *text = module(p, ns, count, a_regs, version, target, &line);
  pl->jobs[pl->n] = (ptxas_job){.text = text, .len = strlen(text), .arch = target};
  pl->want[pl->n] = want, pl->of[pl->n] = p;
  pl->n++;
}

/* Every n of the row's list at sm_90a (one module); the smallest at sm_90,
 * sm_89 and sm_100a; each n off the list (and 264) alone at sm_90a. */
static void add_pair(plan *pl, const pair *p, bool first_of_row, int version) {
  int ok[32], count = 0;
  for (int n = 8; n <= 256; n += 8)
    if (tcmma_wgmma_n_ok(p->w, n)) ok[count++] = n;
  assert_true(count > 0 && ok[0] == 8 && ok[count - 1] == 256);
  add(pl, p, ok, count, false, version, "sm_90a", true);
  static const char *const below[] = {"sm_90", "sm_89", "sm_100a"};
  for (int t = 0; t < 3; t++) add(pl, p, ok, 1, false, version, below[t], false);
  /* A from registers: every n at sm_90a, the smallest rejected at sm_90 */
  add(pl, p, ok, count, true, version, "sm_90a", true);
  add(pl, p, ok, 1, true, version, "sm_90", false);
  if (!first_of_row) return;
  for (int n = 8; n <= 264; n += 8)
    if (!tcmma_wgmma_n_ok(p->w, n)) add(pl, p, &n, 1, false, version, "sm_90a", false);
}

static void floors_proven_by_ptxas(void **state) {
  (void)state;
  if (!ptxas_path())
    fail_msg("ptxas not found under %s (the toolkit is part of the build)", cuda_home());
  char targets[64][16];
  size_t nt = ptxas_targets(targets, 64);
  static const char *const needed[] = {"sm_89", "sm_90", "sm_90a", "sm_100a"};
  for (int t = 0; t < 4; t++)
    if (!has_target(targets, nt, needed[t])) fail_msg("ptxas lists no %s target", needed[t]);
  int version = ptxas_top_version();
  assert_true(version >= 84); /* mixed s8 x u8 needs PTX ISA 8.4 */
  static pair pairs[64];
  size_t np = pairs_of(pairs, 64);
  static plan pl;
  pl.n = 0;
  for (size_t j = 0; j < np; j++) add_pair(&pl, &pairs[j], j == 0 || pairs[j - 1].w != pairs[j].w, version);
  ptxas_run(pl.jobs, pl.n);
  size_t bad = 0, rejected = 0, off_list = 0;
  for (size_t j = 0; j < pl.n; j++) {
    const ptxas_job *job = &pl.jobs[j];
    /* a rejection must be the instruction's own line, not a slip elsewhere */
    bool ok = pl.want[j] ? job->rc == 0 : job->rc != 0 && ptxas_error_at(job->log, 8);
    if (!ok) {
      print_message("%s %s x %s at %s: ptxas %s, expected it to %s\n%.*s\n%s\n",
                    tcmma_wgmma_marker(pl.of[j]->w), tcmma_prec_name(pl.of[j]->a),
                    tcmma_prec_name(pl.of[j]->b), job->arch, job->rc == 0 ? "accepted" : "rejected",
                    pl.want[j] ? "assemble" : "be rejected at line 8", 400, job->text,
                    job->log ? job->log : "");
      bad++;
    }
    rejected += !pl.want[j];
    off_list += !pl.want[j] && strcmp(job->arch, "sm_90a") == 0;
    free((char *)job->text);
  }
  ptxas_jobs_free(pl.jobs, pl.n);
  assert_int_equal(bad, 0);
  /* both kinds of rejection were tried: targets below or past, and n off a list */
  assert_true(rejected > 4 * np && off_list > (size_t)TCMMA_WGMMA_COUNT);
  print_message("%zu ptxas probes over %zu precision pairs\n", pl.n, np);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(floors_agree_with_the_feature_table),
      cmocka_unit_test(floors_proven_by_ptxas),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
