/* Every numeric option of every command goes through one strict decimal
 * parser: digits only (no '+', no spaces, no leading zeros, '-' only where a
 * range holds negatives, never "-0"), within the option's range; anything
 * else is a usage error (exit 2) naming the option and the value. */
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "tables/decimal.h"
#include "util.h"

/* The argument vectors of each command with a numeric option, @ standing for
 * the value under test. */
static const char *const uses[][20] = {
    {"emit", "--m", "@", "--n", "8", "--k", "16", "--d", "f32", "--a", "f16", "--b", "f16", NULL},
    {"emit", "--m", "16", "--n", "8", "--k", "16", "--d", "f32", "--a", "f16", "--b", "f16",
     "--outer", "@", "--kernel", NULL},
    {"emit", "--m", "16", "--n", "8", "--k", "16", "--d", "f32", "--a", "f16", "--b", "f16",
     "--cc", "@", NULL},
    {"emit", "--m", "16", "--n", "8", "--k", "16", "--d", "f32", "--a", "f16,ld=@", "--b", "f16",
     NULL},
    {"resolve", "f32", "f16", "f16", "--cc", "@", NULL},
    {"descriptor", "--cc", "@", NULL},
    {"options", "-", "--cc", "@", NULL},
    {"compile", "-", "--cc", "@", "-o", "/dev/null", NULL},
};

/* Runs use number `use` with @ replaced by value. */
static cli_result run_with(size_t use, const char *value) {
  const char *argv[20] = {NULL};
  char subst[64];
  for (size_t i = 0; uses[use][i]; i++) {
    const char *at = strchr(uses[use][i], '@');
    argv[i] = uses[use][i];
    if (!at) continue;
    snprintf(subst, sizeof subst, "%.*s%s", (int)(at - uses[use][i]), uses[use][i], value);
    argv[i] = subst; /* one @ per use */
  }
  return run_cli(argv, "__global__ void k() {}\n");
}

static void malformed_numbers_rejected_everywhere(void **state) {
  (void)state;
  static const char *const bad[] = {"+80", " 80", "80 ", "-0", "080", "8x", "", "0x50",
                                    "99999999999999999999999"};
  for (size_t u = 0; u < sizeof uses / sizeof uses[0]; u++)
    for (size_t b = 0; b < sizeof bad / sizeof bad[0]; b++) {
      cli_result r = run_with(u, bad[b]);
      if (r.exit_code != 2)
        fail_msg("tcmma %s %s with '%s': exit %d, expected 2 (%s)", uses[u][0], uses[u][1],
                 bad[b], r.exit_code, r.err);
      char quoted[64];
      snprintf(quoted, sizeof quoted, "'%s'", bad[b]);
      if (!strstr(r.err, quoted)) fail_msg("message does not name %s: %s", quoted, r.err);
      assert_non_null(strstr(r.err, "decimal integer"));
      cli_result_free(&r);
    }
}

static void well_formed_numbers_accepted(void **state) {
  (void)state;
  setenv("TCMMA_CACHE", "0", 1);
  /* the same value works for every use: 80 is a cc, an extent and an outer
   * count; ld=80 keeps a's rows 160 bytes */
  for (size_t u = 0; u < sizeof uses / sizeof uses[0]; u++) {
    cli_result r = run_with(u, u == 0 ? "16" : "80");
    if (r.exit_code != 0)
      fail_msg("tcmma %s %s: exit %d (%s)", uses[u][0], uses[u][1], r.exit_code, r.err);
    cli_result_free(&r);
  }
  unsetenv("TCMMA_CACHE");
}

/* The parser itself: its edges, written out here. */
static void decimal_parser(void **state) {
  (void)state;
  static const struct { const char *text; long long lo, hi, want; bool ok; } cases[] = {
      {"0", 0, 10, 0, true},          {"10", 0, 10, 10, true},       {"11", 0, 10, 0, false},
      {"-5", -10, 10, -5, true},      {"-5", 0, 10, 0, false},       {"-0", -10, 10, 0, false},
      {"-", -10, 10, 0, false},       {"", 0, 10, 0, false},         {"00", 0, 10, 0, false},
      {"-05", -10, 10, 0, false},     {"+5", 0, 10, 0, false},       {"5 ", 0, 10, 0, false},
      {"9223372036854775807", 0, LLONG_MAX, LLONG_MAX, true},
      {"9223372036854775808", 0, LLONG_MAX, 0, false},
      {"-9223372036854775808", LLONG_MIN, 0, LLONG_MIN, true},
      {"-9223372036854775809", LLONG_MIN, 0, 0, false},
      {"99999999999999999999999999", LLONG_MIN, LLONG_MAX, 0, false},
  };
  for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
    long long v = 12345;
    bool ok = tcmma__table_decimal(cases[i].text, cases[i].lo, cases[i].hi, &v);
    if (ok != cases[i].ok) fail_msg("'%s': %s", cases[i].text, ok ? "accepted" : "rejected");
    assert_true(ok ? v == cases[i].want : v == 12345); /* nothing written on failure */
  }
  assert_false(tcmma__table_decimal(NULL, 0, 10, NULL));
  assert_true(tcmma__table_decimal("7", 0, 10, NULL));
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(decimal_parser),
      cmocka_unit_test(malformed_numbers_rejected_everywhere),
      cmocka_unit_test(well_formed_numbers_accepted),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
