/* The strict decimal parser (tables/decimal.h): strtol would take "+80", " 80"
 * and "-0", and a number must read the same in every command. */
#include "tables/decimal.h"

#include <limits.h>

bool tcmma__table_decimal(const char *text, long long lo, long long hi, long long *out) {
  if (!text || lo > hi) return false;
  bool negative = text[0] == '-';
  const char *p = text + negative;
  if (negative && lo >= 0) return false;
  if (*p < '0' || *p > '9' || (p[0] == '0' && p[1] != '\0') || (negative && p[0] == '0'))
    return false; /* no digit, a leading zero, or -0 */
  /* accumulate as a negative number: its range holds LLONG_MIN too */
  long long v = 0;
  for (; *p >= '0' && *p <= '9'; p++) {
    int d = *p - '0';
    if (v < (LLONG_MIN + d) / 10) return false;
    v = v * 10 - d;
  }
  if (*p != '\0') return false;
  if (!negative) {
    if (v == LLONG_MIN) return false;
    v = -v;
  }
  if (v < lo || v > hi) return false;
  if (out) *out = v;
  return true;
}
