/* tables/ptx_instructions.def proven by ptxas (docs/design.md §13): every
 * root is a PTX instruction ptxas 13 assembles. Its probes
 * (tests/data/ptx_instruction_probes.def) assemble at ptxas's lowest target,
 * where tcmma says that target holds them; a root with no such probe is
 * one none of whose forms that target holds, and has a probe of
 * tests/data/ptx_probes.def (test_ptx_probe assembles those at their rows'
 * targets). Every feature row's first token is a root, and a name that is no
 * root is refused by ptxas and not known to tcmma. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "util.h"
#include "tcmma/tcmma.h"

static const char *const roots[] = {
#define TCMMA_PTX_INSTRUCTION(root) #root,
#include "tables/ptx_instructions.def"
#undef TCMMA_PTX_INSTRUCTION
};
#define ROOTS (sizeof roots / sizeof roots[0])

static const struct {
  const char *root, *text;
} probes[] = {
#define TCMMA_PTX_INSTRUCTION_PROBE(root, text) {#root, text},
#include "tests/data/ptx_instruction_probes.def"
#undef TCMMA_PTX_INSTRUCTION_PROBE
};
#define PROBES (sizeof probes / sizeof probes[0])

static const char *const feature_probes[] = {
#define TCMMA_PTX_PROBE(ID, text) text,
#include "tests/data/ptx_probes.def"
#undef TCMMA_PTX_PROBE
};
#define FEATURE_PROBES (sizeof feature_probes / sizeof feature_probes[0])

/* The probe kernel's registers (as tests/test_ptx_probe.c declares them). */
static const char prologue[] =
    ".reg .b32 %r<200>; .reg .f32 %f<200>; .reg .b64 %rd<64>; .reg .f64 %fd<64>; "
    ".reg .pred %p<8>; .reg .b16 %h<32>;";
/* No PTX instruction: ptxas must refuse its name, which also shows it read
 * the module to its end. */
static const char sentinel[] = "tcmma_no_instruction.b32 %r0, %r1;";

/* The opcode of root in text: the first token that is root or starts with
 * "root." (after labels, declarations and a guard); "" when none is. */
static void opcode_in(const char *text, const char *root, char *op, size_t cap) {
  size_t n = strlen(root);
  op[0] = '\0';
  for (const char *p = text; (p = strstr(p, root)); p++) {
    bool starts = p == text || strchr(" \t;{}", p[-1]);
    if (!starts || !strchr(". \t;", p[n])) continue;
    snprintf(op, cap, "%.*s", (int)strcspn(p, " \t;"), p);
    return;
  }
}

static void every_probe_is_its_root(void **state) {
  (void)state;
  for (size_t i = 0; i < PROBES; i++) {
    char op[256];
    opcode_in(probes[i].text, probes[i].root, op, sizeof op);
    if (!op[0]) fail_msg("probe %zu (%s) does not use %s", i, probes[i].text, probes[i].root);
    if (!tcmma_ptx_opcode_known(op)) fail_msg("probe %zu: %s is not known", i, op);
    size_t r = 0;
    while (r < ROOTS && strcmp(roots[r], probes[i].root) != 0) r++;
    if (r == ROOTS) fail_msg("probe %zu names %s, no row", i, probes[i].root);
  }
}

/* Whether a probe of ptx_probes.def uses root. */
static bool feature_probe_of(const char *root) {
  for (size_t i = 0; i < FEATURE_PROBES; i++) {
    char op[256];
    opcode_in(feature_probes[i], root, op, sizeof op);
    if (op[0] && strncmp(feature_probes[i], op, strlen(op)) == 0) return true;
  }
  return false;
}

static void every_root_has_a_probe(void **state) {
  (void)state;
  for (size_t r = 0; r < ROOTS; r++) {
    bool own = false;
    for (size_t i = 0; i < PROBES && !own; i++) own = strcmp(probes[i].root, roots[r]) == 0;
    if (!own && !feature_probe_of(roots[r])) fail_msg("root %s has no probe", roots[r]);
    for (size_t s = 0; s < r; s++)
      if (strcmp(roots[s], roots[r]) == 0) fail_msg("root %s has two rows", roots[r]);
  }
}

/* The two tables agree: a feature row is a requirement of an instruction. */
static void feature_rows_are_instructions(void **state) {
  (void)state;
  for (size_t i = 0; i < tcmma_ptx_feature_count(); i++) {
    const tcmma_ptx_feature *f = tcmma_ptx_feature_get(i);
    if (!tcmma_ptx_opcode_known(f->tokens))
      fail_msg("row %s (%s): its first token is no root of tables/ptx_instructions.def", f->id,
               f->tokens);
  }
}

static void known_is_the_root(void **state) {
  (void)state;
  assert_true(tcmma_ptx_opcode_known("mov.b32"));
  assert_true(tcmma_ptx_opcode_known("mov"));
  assert_true(tcmma_ptx_opcode_known("mov.b128")); /* known, and a row says what it needs */
  assert_true(tcmma_ptx_opcode_known("wgmma.fence.sync.aligned"));
  assert_true(tcmma_ptx_opcode_known("vabsdiff4.u32.u32.u32.add"));
  assert_false(tcmma_ptx_opcode_known("movv.b32"));
  assert_false(tcmma_ptx_opcode_known("mo.b32")); /* a root's prefix is no root */
  assert_false(tcmma_ptx_opcode_known("movmatrixx"));
  assert_false(tcmma_ptx_opcode_known("vendor_op.sync.u32"));
  assert_false(tcmma_ptx_opcode_known(""));
  assert_false(tcmma_ptx_opcode_known(".reg"));
  assert_false(tcmma_ptx_opcode_known(NULL));
}

/* Every probe in one module at ptxas's lowest target and highest PTX ISA
 * version, a kernel each, one line each. */
static void probes_assemble_at_the_lowest_target(void **state) {
  (void)state;
  if (!ptxas_path()) {
    print_message("ptxas not found under %s: skipped\n", cuda_home());
    skip();
  }
  char targets[64][16];
  size_t nt = ptxas_targets(targets, 64);
  int top = ptxas_top_version();
  assert_true(nt >= 1 && top > 0);
  char suffix;
  int sm;
  assert_int_equal(tcmma_ptx_target_parse(targets[0], &sm, &suffix, NULL), TCMMA_OK);
  assert_int_equal(sm, TCMMA_PTXAS_SM_MIN);
  size_t cap = 4096 + (PROBES + 1) * 512;
  char *text = malloc(cap);
  assert_non_null(text);
  int n = snprintf(text, cap, ".version %d.%d\n.target %s\n.address_size 64\n", top / 10, top % 10,
                   targets[0]);
  static int line[PROBES + 1];
  static bool marked[4 * PROBES + 16];
  for (size_t i = 0; i <= PROBES; i++) {
    n += snprintf(text + n, cap - (size_t)n, ".visible .entry p%zu() { %s\n%s\nret; }\n", i,
                  prologue, i < PROBES ? probes[i].text : sentinel);
    line[i] = 5 + 3 * (int)i, marked[line[i]] = true;
  }
  ptxas_job job = {.text = text, .len = (size_t)n, .arch = targets[0]};
  ptxas_run(&job, 1);
  if (!ptxas_error_at(job.log, line[PROBES]) ||
      !strstr(job.log, "Not a name of any known instruction: 'tcmma_no_instruction'"))
    fail_msg("ptxas did not refuse the sentinel:\n%s", job.log);
  int stray = ptxas_error_outside(job.log, marked, (int)(sizeof marked));
  if (stray) fail_msg("an error at line %d, which holds no probe:\n%s", stray, job.log);
  int bad = 0;
  for (size_t i = 0; i < PROBES; i++) {
    char op[256];
    opcode_in(probes[i].text, probes[i].root, op, sizeof op);
    bool taken = !ptxas_error_at(job.log, line[i]), holds = tcmma_ptx_opcode_holds(op, sm, suffix);
    if (!taken || !holds) {
      print_message("%s on %s: ptxas %s it, tcmma says %s\n", probes[i].text, targets[0],
                    taken ? "accepts" : "rejects", holds ? "it holds" : "it does not hold");
      bad++;
    }
  }
  print_message("ptx instructions: %zu roots, %zu probes at %s (PTX %d.%d)\n", ROOTS, PROBES,
                targets[0], top / 10, top % 10);
  ptxas_jobs_free(&job, 1);
  free(text);
  if (bad) fail_msg("%d probes disagree (listed above):\n", bad);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(every_probe_is_its_root),
      cmocka_unit_test(every_root_has_a_probe),
      cmocka_unit_test(feature_rows_are_instructions),
      cmocka_unit_test(known_is_the_root),
      cmocka_unit_test(probes_assemble_at_the_lowest_target),
  };
  return cmocka_run_group_tests_name("ptx_instructions", tests, NULL, NULL);
}
