/* The simulator's wgmma model (mma/sim/wgmma.c, docs/sim.md "wgmma") runs
 * tcmma_wgmma_render's host dialect: every case of the verify matrix's
 * wgmma list (tools/verify/wgmma_cases.c: every row and precision pair,
 * K-major and M/N-major operands, 32-, 64- and 128-byte swizzles, n from 8
 * to 256, A from registers), bit for bit against the plain C reference of
 * tools/verify/wgmma_data.c on integer-exact inputs (integer rows over
 * their whole range, with s32 wrap-around and .satfinite clamping). The
 * operands are stored as the project's swizzle places them and the
 * accumulators and a register A placed through tcmma_wgmma_acc_layout /
 * _a_layout; the model decodes descriptors, swizzles by address bits and
 * lays out fragments on its own, so the two meet only where the ISA says
 * they must. Then the asynchronous misuses: a missing wait, a write to
 * accumulators in flight, a missing fence.proxy.async and a missing
 * wgmma.fence each fail the run naming it (each check was removed once:
 * its test failed). */
#include <dlfcn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "util.h"
#include "tcmma/tcmma.h"
#include "tcmma/sim.h"
#include "tools/verify/wgmma.h"

#define THREADS VERIFY_WGMMA_THREADS

/* The case's host module text (after: run between the product and the
 * store). */
static char *module_text(const verify_wgmma_data *x, const char *after) {
  tcmma_buf src = {0};
  tcmma_error err = {0};
  if (verify_wgmma_kernel(x, TCMMA_DIALECT_HOST, after, &src, &err) != TCMMA_OK)
    fail_msg("%s", err.message);
  return src.data;
}

static tcmma_status run(verify_wgmma_data *s, const char *text, tcmma_error *err) {
  host_entry_fn entry;
  void *h = host_module_entry(text, "tcmma_kernel_entry", &entry);
  void *args[5] = {s->d, s->ga, s->gb, s->c0, s->ra};
  tcmma_sim_config cfg = TCMMA_SIM_CONFIG_INIT({1, 1, 1}, {THREADS, 1, 1},
                                               (size_t)(s->b_at + s->b_bytes));
  tcmma_status st = tcmma_sim_launch_grid(entry, args, &cfg, err);
  dlclose(h);
  return st;
}

static void bit_exact_every_case(void **state) {
  (void)state;
  const verify_wgmma_case *cases;
  size_t n = verify_wgmma_matrix(&cases);
  unsigned rows_seen = 0;
  for (size_t i = 0; i < n; i++) {
    verify_wgmma_data x;
    assert_true(verify_wgmma_data_init(&x, &cases[i], 77u + (unsigned)i));
    rows_seen |= 1u << x.info->id;
    char *text = module_text(&x, NULL), why[256];
    tcmma_error err = {0};
    if (run(&x, text, &err) != TCMMA_OK) fail_msg("%s: %s", cases[i].name, err.message);
    if (!verify_wgmma_compare(&x, why, sizeof why)) fail_msg("%s: %s", cases[i].name, why);
    free(text);
    verify_wgmma_data_free(&x);
  }
  assert_int_equal(rows_seen, (1u << TCMMA_WGMMA_COUNT) - 1); /* every row of the table */
}

/* The list's shape: names unique; per row the three swizzles, n 8 (or the
 * row's smallest) and 256, a register A; M/N-major where the row has trans. */
static void the_cases_cover_the_rows(void **state) {
  (void)state;
  const verify_wgmma_case *c;
  size_t n = verify_wgmma_matrix(&c);
  for (size_t i = 0; i < n; i++)
    for (size_t j = i + 1; j < n; j++)
      if (strcmp(c[i].name, c[j].name) == 0) fail_msg("two cases named %s", c[i].name);
  for (int w = 0; w < TCMMA_WGMMA_COUNT; w++) {
    unsigned swizzles = 0;
    bool n8 = false, n256 = false, regs = false, mn = false;
    for (size_t i = 0; i < n; i++) {
      if (c[i].arm != (tcmma_wgmma)w) continue;
      swizzles |= 1u << c[i].sw;
      n8 |= c[i].n == 8, n256 |= c[i].n == TCMMA_WGMMA_N_MAX, regs |= c[i].a_regs;
      mn |= c[i].a_m_major || c[i].b_n_major;
    }
    assert_int_equal(swizzles, 1u << TCMMA_SWIZZLE_B32 | 1u << TCMMA_SWIZZLE_B64 | 1u << TCMMA_SWIZZLE_B128);
    assert_true(n8 && n256 && regs);
    assert_int_equal(mn, tcmma_wgmma_get((tcmma_wgmma)w)->trans);
  }
}

/* The misuses: each text edit fails the run with its message. */
/* The first bf16 case of the list, K-major (any row would do). */
static const verify_wgmma_case *a_case(void) {
  const verify_wgmma_case *c;
  size_t n = verify_wgmma_matrix(&c);
  for (size_t i = 0; i < n; i++)
    if (c[i].arm == TCMMA_WGMMA_BF16 && !c[i].a_regs && !c[i].b_n_major) return &c[i];
  fail_msg("no bf16 case");
  return NULL;
}

static void expect_failure(const char *from, const char *to, const char *after, const char *want) {
  verify_wgmma_data s;
  assert_true(verify_wgmma_data_init(&s, a_case(), 5));
  char *text = module_text(&s, after);
  if (from) text = text_edited(text, from, to);
  tcmma_error err = {0};
  assert_int_equal(run(&s, text, &err), TCMMA_INVALID);
  if (!strstr(err.message, want)) fail_msg("expected '%s' in: %s", want, err.message);
  free(text);
  verify_wgmma_data_free(&s);
}

static void missing_wait_is_reported(void **state) {
  (void)state;
  /* wait_group 1 leaves the group in flight; the thread ends without a wait */
  expect_failure("wgmma.wait_group.sync.aligned 0", "wgmma.wait_group.sync.aligned 1", NULL,
                 "wgmma accumulator arrays in flight");
}

static void write_in_flight_is_reported(void **state) {
  (void)state;
  expect_failure("wgmma.wait_group.sync.aligned 0", "wgmma.wait_group.sync.aligned 1",
                 "tcmma_acc[3] = 0; tcmma_sim_wgmma_wait(\"wgmma.wait_group.sync.aligned 0\");",
                 "wrote accumulator register 3");
}

static void missing_proxy_fence_is_reported(void **state) {
  (void)state;
  expect_failure("tcmma_sim_fence(\"fence.proxy.async.shared::cta\");", "", NULL,
                 "generic-proxy store changed");
}

static void missing_wgmma_fence_is_reported(void **state) {
  (void)state;
  expect_failure("tcmma_sim_wgmma_fence(\"wgmma.fence.sync.aligned\");", "", NULL,
                 "before any wgmma.fence");
}

/* Reading before the wait sees the poison; the later wait lands the result. */
static void results_land_at_the_wait(void **state) {
  (void)state;
  verify_wgmma_data s;
  assert_true(verify_wgmma_data_init(&s, a_case(), 9));
  char after[256];
  snprintf(after, sizeof after, "unsigned early; __builtin_memcpy(&early, tcmma_acc, 4); "
                               "tcmma_sim_wgmma_wait(\"wgmma.wait_group.sync.aligned 0\"); "
                               "if (tcmma_t == 0) ((unsigned *)d)[%d] = early == 0x%xu ? 0x600du : early;",
           THREADS * s.regs, TCMMA_SIM_WGMMA_POISON);
  char *text = module_text(&s, after);
  text = text_edited(text, "wgmma.wait_group.sync.aligned 0", "wgmma.wait_group.sync.aligned 1");
  tcmma_error err = {0};
  if (run(&s, text, &err) != TCMMA_OK) fail_msg("%s", err.message);
  /* thread 0's register 0 read before the wait, and after it */
  assert_int_equal(s.d[THREADS * s.regs], 0x600du); /* the poison, read before the wait */
  int row, col;
  tcmma_wgmma_acc_layout(s.c.arm, s.c.n, 0, 0, 0, &row, &col, NULL);
  assert_int_equal(s.d[0], verify_wgmma_reference(&s, row, col));
  free(text);
  verify_wgmma_data_free(&s);
}

int main(void) {
  if (!getenv("CC") && system("cc --version > /dev/null 2>&1") != 0) return 77;
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(bit_exact_every_case),
      cmocka_unit_test(the_cases_cover_the_rows),
      cmocka_unit_test(missing_wait_is_reported),
      cmocka_unit_test(write_in_flight_is_reported),
      cmocka_unit_test(missing_proxy_fence_is_reported),
      cmocka_unit_test(missing_wgmma_fence_is_reported),
      cmocka_unit_test(results_land_at_the_wait),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
