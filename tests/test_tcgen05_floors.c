/* Every tcgen05 arm's and piece's targets, proven by ptxas on both sides
 * (docs/tcgen05.md, docs/design.md §13): each row's own opcode (A through a
 * descriptor and from Tensor Memory; block-scaled rows with their scale
 * addresses) assembles at the arch-specific targets sm_100a, sm_103a and
 * sm_110a and, for a family row, at sm_100f, sm_103f and sm_110f, and is
 * rejected at sm_90a, sm_120a, sm_120f and plain sm_100 (kind::i8 also at
 * every family target and at sm_103a); every instruction the rendered
 * helpers and ld/st pieces hold (taken from their CUDA text) likewise (each
 * ld/st at four of the targets, two on each side). The
 * floors also agree with the PTX feature table the rows name. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "util.h"
#include "tcmma/tcmma.h"

#define JOBS_MAX 1024
#define TEXT_MAX (16 * 1024)
#define LINE 8 /* the instruction's line in every module */

/* The targets every form is tried at, and which of them hold it: the
 * ISA's and ptxas's word, written here apart from the tables. */
static const struct {
  const char *target;
  bool family_row, i8_row; /* accepted for a family row / for kind::i8 */
} targets[] = {
    {"sm_100a", true, true},   {"sm_103a", true, false},  {"sm_110a", true, true},
    {"sm_100f", true, false},  {"sm_103f", true, false},  {"sm_110f", true, false},
    {"sm_90a", false, false},  {"sm_100", false, false},  {"sm_120a", false, false},
    {"sm_120f", false, false},
};
#define NTARGETS (sizeof targets / sizeof targets[0])

typedef struct {
  ptxas_job jobs[JOBS_MAX];
  bool want[JOBS_MAX];
  char what[JOBS_MAX][96];
  size_t n;
} plan;

/* A module whose line LINE is instr (one or more lines). */
static char *module(const char *instr, int version, const char *target) {
  char *text = malloc(TEXT_MAX);
  assert_non_null(text);
  snprintf(text, TEXT_MAX,
           ".version %d.%d\n.target %s\n.address_size 64\n"
           ".visible .entry k(.param .u64 p) {\n"
           ".reg .b32 %%r<300>; .reg .b64 %%rd<4>; .reg .pred %%p<2>;\n"
           "ld.param.u64 %%rd1, [p];\n"
           "mov.b64 %%rd2, %%rd1; cvt.u32.u64 %%r1, %%rd1; setp.ne.b32 %%p1, %%r1, 0;\n"
           "%sret;\n}\n",
           version / 10, version % 10, target, instr);
  return text;
}

static void add(plan *pl, const char *instr, const char *what, int version, const char *target,
                bool want) {
  assert_true(pl->n < JOBS_MAX);
  char *text = module(instr, version, target);
  pl->jobs[pl->n] = (ptxas_job){.text = text, .len = strlen(text), .arch = target};
  pl->want[pl->n] = want;
  snprintf(pl->what[pl->n], sizeof pl->what[0], "%s", what);
  pl->n++;
}

/* The PTX ISA's operands of tcgen05.mma: [d], a-desc|[a-tmem], b-desc,
 * idesc[, [scale-a], [scale-b]], enable-input-d. */
static void mma_line(char *buf, size_t cap, const tcmma_tcgen05_info *i, bool a_tmem) {
  snprintf(buf, cap, "%s [%%r1], %s, %%rd2, %%r2%s, %%p1;\n", i->instr,
           a_tmem ? "[%r5]" : "%rd1", i->block ? ", [%r3], [%r4]" : "");
}

/* The instructions inside each `asm volatile("...")` of text, operands %N
 * spelled %rN (every helper operand is a 32-bit register). */
static size_t asm_lines(const char *text, char (*out)[1024], size_t cap) {
  size_t n = 0;
  for (const char *p = strstr(text, "asm volatile(\""); p && n < cap;
       p = strstr(p + 1, "asm volatile(\"")) {
    char *o = out[n];
    size_t used = 0;
    const char *q = p + strlen("asm volatile(");
    while (*q == '"') { /* concatenated literals */
      for (q++; *q && *q != '"'; q++) {
        char c = *q;
        if (c == '\\') c = *++q == 'n' ? '\n' : *q;
        if (c == '%' && q[1] >= '0' && q[1] <= '9') used += (size_t)snprintf(o + used, 1024 - used, "%%r");
        else if (used + 1 < 1024) o[used++] = c;
      }
      for (q++; *q == ' ' || *q == '\n'; q++) {}
    }
    o[used] = '\0';
    if (used) n++;
  }
  return n;
}

static void floors_agree_with_the_feature_table(void **state) {
  (void)state;
  for (int w = 0; w < TCMMA_TCGEN05_COUNT; w++) {
    const tcmma_tcgen05_info *i = tcmma_tcgen05_get((tcmma_tcgen05)w);
    int sm = 0, ptx = 0;
    tcmma_ptx_suffix suffix;
    assert_true(tcmma_ptx_opcode_need(i->instr, &sm, &suffix, &ptx));
    if (sm != i->floor || suffix != i->suffix)
      fail_msg("%s (%s): floor %d%s, the feature table says sm_%d%s", i->marker, i->instr,
               i->floor, tcmma_ptx_suffix_text(i->suffix), sm, tcmma_ptx_suffix_text(suffix));
  }
}

static void add_arms(plan *pl, int version) {
  for (int w = 0; w < TCMMA_TCGEN05_COUNT; w++) {
    const tcmma_tcgen05_info *i = tcmma_tcgen05_get((tcmma_tcgen05)w);
    bool i8 = i->acc == TCMMA_PREC_S32;
    for (int tmem = 0; tmem < 2; tmem++) {
      char line[256], what[96];
      mma_line(line, sizeof line, i, tmem);
      snprintf(what, sizeof what, "%s%s", i->marker, tmem ? " (A from Tensor Memory)" : "");
      for (size_t t = 0; t < NTARGETS; t++)
        add(pl, line, what, version, targets[t].target,
            i8 ? targets[t].i8_row : targets[t].family_row);
    }
  }
}

/* The helpers' and the ld/st pieces' instructions, each at every target. */
static size_t add_pieces(plan *pl, int version) {
  tcmma_buf text = {0};
  assert_int_equal(tcmma_render_tcgen05_helpers(TCMMA_DIALECT_CUDA, &text, NULL), TCMMA_OK);
  assert_int_equal(tcmma_render_tcgen05_cp(TCMMA_DIALECT_CUDA, &text, NULL), TCMMA_OK);
  for (int s = 0; s < TCMMA_TCGEN05_LDST_COUNT; s++)
    for (int num = 1; num <= 128; num *= 2)
      for (int st = 0; st < 2; st++)
        if (tcmma_tcgen05_ldst_regs((tcmma_tcgen05_ldst)s, num))
          assert_int_equal(tcmma_render_tcgen05_ldst(TCMMA_DIALECT_CUDA, (tcmma_tcgen05_ldst)s, num,
                                                     st, &text, NULL), TCMMA_OK);
  static char lines[128][1024];
  size_t n = asm_lines(text.data, lines, 128);
  tcmma_buf_free(&text);
  /* 8 helpers, the scales' copy, then (32x32b, 16x64b: 8 nums; 16x128b: 7;
   * 16x256b: 6) x ld, st */
  assert_int_equal(n, 9 + 2 * (8 + 8 + 7 + 6));
  /* the copy's source is a 64-bit shared-memory descriptor */
  char *desc = strstr(lines[8], "tcgen05.cp.cta_group::1.32x128b.warpx4 [%r0], %r1;");
  assert_non_null(desc);
  memcpy(strstr(desc, "%r1;"), "%rd1;", 6);
  for (size_t l = 0; l < n; l++) {
    char what[96];
    snprintf(what, sizeof what, "%.60s", lines[l]);
    /* the helpers at every target; each ld/st shape and num at four */
    for (size_t t = 0; t < NTARGETS; t++)
      if (l < 9 || t % 3 == 0)
        add(pl, lines[l], what, version, targets[t].target, targets[t].family_row);
  }
  return n;
}

static void targets_proven_by_ptxas(void **state) {
  (void)state;
  if (!ptxas_path())
    fail_msg("ptxas not found under %s (the toolkit is part of the build)", cuda_home());
  char have[64][16];
  size_t nt = ptxas_targets(have, 64);
  for (size_t t = 0; t < NTARGETS; t++) {
    bool found = false;
    for (size_t h = 0; h < nt; h++) found |= strcmp(have[h], targets[t].target) == 0;
    if (!found) fail_msg("ptxas lists no %s target", targets[t].target);
  }
  int version = ptxas_top_version();
  assert_true(version >= 90); /* sm_110a needs PTX ISA 9.0 */
  static plan pl;
  pl.n = 0;
  add_arms(&pl, version);
  size_t pieces = add_pieces(&pl, version);
  ptxas_run(pl.jobs, pl.n);
  size_t bad = 0, rejected = 0;
  for (size_t j = 0; j < pl.n; j++) {
    const ptxas_job *job = &pl.jobs[j];
    /* a rejection must be the instruction's own line, not a slip elsewhere */
    bool ok = pl.want[j] ? job->rc == 0 : job->rc != 0 && ptxas_error_at(job->log, LINE);
    if (!ok) {
      print_message("%s at %s: ptxas %s, expected it to %s\n%s\n", pl.what[j], job->arch,
                    job->rc == 0 ? "accepted" : "rejected",
                    pl.want[j] ? "assemble" : "be rejected at its line", job->log ? job->log : "");
      bad++;
    }
    rejected += !pl.want[j];
    free((char *)job->text);
  }
  ptxas_jobs_free(pl.jobs, pl.n);
  assert_int_equal(bad, 0);
  assert_true(rejected > 2 * (2 * (size_t)TCMMA_TCGEN05_COUNT + pieces));
  print_message("%zu ptxas probes: %d arms (two forms each) and %zu pieces at %zu targets\n", pl.n,
                TCMMA_TCGEN05_COUNT, pieces, NTARGETS);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(floors_agree_with_the_feature_table),
      cmocka_unit_test(targets_proven_by_ptxas),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
