/* Every inline arm's floor, proven by ptxas on both sides of the line
 * (docs/design.md §13): for each arm and each pair of operand precisions
 * resolution can give it, its own mma.sync instruction (tables/arms.def,
 * with register operands of the PTX ISA's types) assembles at the floor and
 * is rejected at the highest ptxas target below it; a family arm assembles
 * on the a and f targets of its family only. The floors also agree with the
 * PTX feature table (tables/ptx_features.def) the arm rows name. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "util.h"
#include "tcmma/tcmma.h"

#define TARGETS_MAX 64
#define PAIRS_MAX 256

typedef struct {
  tcmma_arm arm;
  tcmma_prec a, b;
} arm_pair;

/* Every (arm, a, b) some resolution row lists, over every triple, policy
 * and scope. */
static size_t resolved_pairs(arm_pair *out, size_t cap) {
  size_t n = 0;
  for (int d = 0; d < TCMMA_PREC_COUNT; d++)
    for (int a = 0; a < TCMMA_PREC_COUNT; a++)
      for (int b = 0; b < TCMMA_PREC_COUNT; b++)
        for (int p = 0; p < 16; p++) {
          tcmma_numerics num = tcmma_numerics_default();
          num.fp16 = p & 1 ? TCMMA_FP16_NARROW : TCMMA_FP16_WIDE;
          num.tf32 = (p & 2) != 0;
          num.prefer = p & 4 ? TCMMA_PREFER_WMMA : TCMMA_PREFER_PTX;
          num.saturate = (p & 8) != 0;
          tcmma_triple t = {(tcmma_prec)d, (tcmma_prec)a, (tcmma_prec)b};
          for (int s = 0; s < 2; s++) {
            tcmma_arm list[TCMMA_RESOLVE_LIST_MAX];
            size_t k = tcmma_resolve_list(t, &num, (tcmma_scope)s, list, TCMMA_RESOLVE_LIST_MAX);
            for (size_t i = 0; i < k; i++) {
              bool seen = false;
              for (size_t j = 0; j < n; j++)
                seen = seen || (out[j].arm == list[i] && out[j].a == t.a && out[j].b == t.b);
              if (!seen && n < cap) out[n++] = (arm_pair){list[i], t.a, t.b};
            }
          }
        }
  return n;
}

/* "{%f0, %f1}": count registers of kind ("%f" f32, "%fd" f64, "%r" b32),
 * numbered from *next. */
static void regs(char *buf, size_t cap, const char *kind, int count, int *next) {
  size_t n = (size_t)snprintf(buf, cap, "{");
  for (int i = 0; i < count; i++)
    n += (size_t)snprintf(buf + n, cap - n, "%s%s%d", i ? ", " : "", kind, (*next)++);
  snprintf(buf + n, cap - n, "}");
}

/* The probe module: one kernel holding the arm's instruction. */
static char *probe(const arm_pair *p, int version, const char *target) {
  const tcmma_arm_info *info = tcmma_arm_get(p->arm);
  char op[256], d[256], a[256], b[256], c[256];
  assert_int_equal(tcmma_arm_instruction(p->arm, p->a, p->b, op, sizeof op, NULL), TCMMA_OK);
  /* the accumulator's registers (f32 %f, f64 %fd, f16 pairs and s32 %r),
   * operands of 64-bit elements in f64 registers, others packed in b32
   * (PTX ISA, mma "Syntax") */
  int next_f = 0, next_r = 0, next_fd = 0;
  bool f32 = info->acc == TCMMA_PREC_F32, f64 = tcmma_prec_bits(info->acc) == 64;
  const char *acc = f32 ? "%f" : f64 ? "%fd" : "%r";
  int *acc_next = f32 ? &next_f : f64 ? &next_fd : &next_r;
  bool a64 = tcmma_prec_bits(p->a) == 64, b64 = tcmma_prec_bits(p->b) == 64;
  regs(d, sizeof d, acc, info->c_regs, acc_next);
  regs(a, sizeof a, a64 ? "%fd" : "%r", info->a_regs, a64 ? &next_fd : &next_r);
  regs(b, sizeof b, b64 ? "%fd" : "%r", info->b_regs, b64 ? &next_fd : &next_r);
  regs(c, sizeof c, acc, info->c_regs, acc_next);
  char scales[64] = "";
  if (info->scale_block)
    snprintf(scales, sizeof scales, ", %%r%d, {0, 0}, %%r%d, {0, 0}", next_r, next_r + 1);
  char *text = malloc(2048);
  assert_non_null(text);
  snprintf(text, 2048,
           ".version %d.%d\n.target %s\n.address_size 64\n.visible .entry k() {\n"
           ".reg .b32 %%r<64>; .reg .f32 %%f<64>; .reg .f64 %%fd<64>;\n%s %s, %s, %s, %s%s;\n"
           "ret;\n}\n",
           version / 10, version % 10, target, op, d, a, b, c, scales);
  return text;
}

static int sm_of(const char *target, char *suffix) {
  int sm = 0;
  assert_int_equal(tcmma_ptx_target_parse(target, &sm, suffix, NULL), TCMMA_OK);
  return sm;
}

/* Each inline arm's floor is what the feature table says its instruction
 * needs, for every precision pair it takes; family arms want a or f. */
static void floors_agree_with_the_feature_table(void **state) {
  (void)state;
  arm_pair pairs[PAIRS_MAX];
  size_t n = resolved_pairs(pairs, PAIRS_MAX), inline_pairs = 0;
  assert_true(n < PAIRS_MAX);
  for (size_t i = 0; i < n; i++) {
    const tcmma_arm_info *info = tcmma_arm_get(pairs[i].arm);
    if (info->form != TCMMA_FORM_PTX) continue;
    char op[256];
    int sm = 0, ptx = 0;
    tcmma_ptx_suffix suffix;
    assert_int_equal(tcmma_arm_instruction(pairs[i].arm, pairs[i].a, pairs[i].b, op, sizeof op,
                                           NULL), TCMMA_OK);
    assert_true(tcmma_ptx_opcode_need(op, &sm, &suffix, &ptx));
    if (sm != info->floor || (suffix != TCMMA_PTX_SUFFIX_ANY) != info->family)
      fail_msg("%s (%s): floor %d family %d, the feature table says sm_%d%s", info->marker, op,
               info->floor, info->family, sm, tcmma_ptx_suffix_text(suffix));
    inline_pairs++;
  }
  assert_true(inline_pairs >= 8);
}

/* ptxas on both sides of each floor. */
static void floors_proven_by_ptxas(void **state) {
  (void)state;
  if (!ptxas_path()) fail_msg("ptxas not found under %s (the toolkit is part of the build)",
                              cuda_home());
  char targets[TARGETS_MAX][16];
  size_t nt = ptxas_targets(targets, TARGETS_MAX);
  assert_true(nt > 0);
  int version = ptxas_top_version();
  assert_true(version >= 87);
  arm_pair pairs[PAIRS_MAX];
  size_t n = resolved_pairs(pairs, PAIRS_MAX);
  ptxas_job *jobs = calloc(PAIRS_MAX * TARGETS_MAX, sizeof *jobs);
  bool *want = calloc(PAIRS_MAX * TARGETS_MAX, sizeof *want);
  size_t *pair_of = calloc(PAIRS_MAX * TARGETS_MAX, sizeof *pair_of);
  assert_true(jobs && want && pair_of);
  size_t nj = 0, below_floor = 0, without_below = 0;
  bool saw_100a = false, saw_90 = false;
  for (size_t i = 0; i < n; i++) {
    const tcmma_arm_info *info = tcmma_arm_get(pairs[i].arm);
    if (info->form != TCMMA_FORM_PTX) continue;
    /* the highest plain target below the floor */
    int below = -1;
    for (size_t t = 0; t < nt; t++) {
      char sfx = 0;
      int sm = sm_of(targets[t], &sfx);
      if (!sfx && sm < info->floor && (below < 0 || sm > sm_of(targets[below], &sfx)))
        below = (int)t;
    }
    for (size_t t = 0; t < nt; t++) {
      char sfx = 0;
      int sm = sm_of(targets[t], &sfx);
      bool at_floor, hold;
      if (info->family) {
        /* the family's a and f targets hold it; none below the floor does */
        at_floor = sm / 10 == info->floor / 10 && sm >= info->floor && sfx;
        hold = at_floor;
        if (!at_floor && sm >= info->floor) continue;
        saw_100a = saw_100a || (sm == 100 && sfx == 'a');
        saw_90 = saw_90 || (sm == 90 && !sfx);
      } else {
        at_floor = sm == info->floor && !sfx;
        hold = at_floor;
        if (!at_floor && (int)t != below) continue;
      }
      below_floor += !hold;
      jobs[nj] = (ptxas_job){.arch = targets[t]};
      char *text = probe(&pairs[i], version, targets[t]);
      jobs[nj].text = text, jobs[nj].len = strlen(text);
      want[nj] = hold, pair_of[nj] = i;
      nj++;
    }
    /* only an arm at ptxas's lowest target has none below it */
    char sfx = 0;
    if (below < 0 && info->floor > sm_of(targets[0], &sfx))
      fail_msg("%s: no ptxas target below floor %d", info->marker, info->floor);
    without_below += below < 0;
  }
  ptxas_run(jobs, nj);
  size_t bad = 0;
  for (size_t j = 0; j < nj; j++) {
    const arm_pair *p = &pairs[pair_of[j]];
    if ((jobs[j].rc == 0) != want[j]) {
      print_message("%s %s x %s at %s: ptxas %s, expected it to %s\n%s\n",
                    tcmma_arm_marker(p->arm), tcmma_prec_name(p->a), tcmma_prec_name(p->b),
                    jobs[j].arch, jobs[j].rc == 0 ? "accepted it" : "rejected it",
                    want[j] ? "assemble" : "be rejected", jobs[j].log ? jobs[j].log : "");
      bad++;
    }
    free((char *)jobs[j].text);
  }
  ptxas_jobs_free(jobs, nj);
  free(jobs), free(want), free(pair_of);
  assert_int_equal(bad, 0);
  /* rejections were tried, the family ones on sm_100a and sm_90; the
   * floor-75 arms have no ptxas target below them (ptxas 13 starts at
   * sm_75, docs/design.md §13) */
  assert_true(below_floor > 0 && saw_100a && saw_90);
  print_message("%zu probes; %zu precision pairs at ptxas's lowest target\n", nj, without_below);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(floors_agree_with_the_feature_table),
      cmocka_unit_test(floors_proven_by_ptxas),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
