/* The CLI's text forms: an operand SPEC
 * (PREC[,t][,ld=N][,global|shared|thread][,plain|swizzled|swizzle=32|64|128]
 * [,at=ROW0:COL0]) and a decimal compute capability. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "cli_parse.h"

/* "ROW0:COL0": two decimal integers from 0 to INT_MAX. */
static bool parse_at(const char *text, long *row, long *col) {
  long v[2];
  const char *s = text;
  for (int i = 0; i < 2; i++) {
    size_t n = strspn(s, "0123456789");
    if (n == 0 || n > 9 || s[n] != (i ? '\0' : ':')) return false;
    v[i] = strtol(s, NULL, 10);
    s += n + 1;
  }
  *row = v[0], *col = v[1];
  return true;
}

tcmma_status cli_parse_operand_spec(const char *spec, tcmma_operand_desc *out, tcmma_error *err) {
  if (!spec || !out) return tcmma_fail(err, TCMMA_INVALID, "operand spec must not be NULL");
  char buf[256];
  if (snprintf(buf, sizeof buf, "%s", spec) >= (int)sizeof buf)
    return tcmma_fail(err, TCMMA_INVALID, "operand spec '%.40s...' is too long", spec);
  size_t n = strlen(buf);
  if (strstr(buf, ",,") || (n && buf[n - 1] == ','))
    return tcmma_fail(err, TCMMA_INVALID, "operand spec '%s' has an empty piece", spec);
  tcmma_operand_desc o = {.space = TCMMA_SPACE_GLOBAL, .swizzle = TCMMA_SWIZZLE_NONE};
  char *save = NULL, *piece = strtok_r(buf, ",", &save);
  if (!piece || buf[0] == ',')
    return tcmma_fail(err, TCMMA_INVALID,
                      "operand spec '%s': expected PREC[,t][,ld=N][,global|shared|thread]"
                      "[,plain|swizzled|swizzle=32|64|128][,at=ROW0:COL0]", spec);
  tcmma_status st = tcmma_prec_parse(piece, &o.prec, err);
  if (st != TCMMA_OK) return st;
  /* each kind of piece at most once: "shared,global" has no meaning, and a
   * silent last-one-wins would plan something the caller did not write */
  enum { KIND_T, KIND_SPACE, KIND_LAYOUT, KIND_LD, KIND_AT, KINDS };
  static const char *const kind_name[KINDS] = {"t", "a space", "a layout", "ld=", "at="};
  const char *seen[KINDS] = {NULL};
  while ((piece = strtok_r(NULL, ",", &save))) {
    int kind = strcmp(piece, "t") == 0 ? KIND_T
             : (!strcmp(piece, "global") || !strcmp(piece, "shared") || !strcmp(piece, "thread"))
                 ? KIND_SPACE
             : (!strcmp(piece, "plain") || !strcmp(piece, "swizzled") ||
                !strncmp(piece, "swizzle=", 8)) ? KIND_LAYOUT
             : strncmp(piece, "ld=", 3) == 0 ? KIND_LD
             : strncmp(piece, "at=", 3) == 0 ? KIND_AT : KINDS;
    if (kind != KINDS && seen[kind])
      return tcmma_fail(err, TCMMA_INVALID,
                        "operand spec '%s': '%s' after '%s': give %s at most once", spec, piece,
                        seen[kind], kind_name[kind]);
    if (kind != KINDS) seen[kind] = piece;
    if (strcmp(piece, "t") == 0) o.transposed = true;
    else if (strcmp(piece, "global") == 0) o.space = TCMMA_SPACE_GLOBAL;
    else if (strcmp(piece, "shared") == 0) o.space = TCMMA_SPACE_SHARED;
    else if (strcmp(piece, "thread") == 0) o.space = TCMMA_SPACE_THREAD;
    else if (strcmp(piece, "plain") == 0) o.swizzle = TCMMA_SWIZZLE_NONE;
    else if (strcmp(piece, "swizzled") == 0) o.swizzle = TCMMA_SWIZZLE_B128;
    else if (strncmp(piece, "swizzle=", 8) == 0) {
      tcmma_status st2 = tcmma_swizzle_parse(piece + 8, &o.swizzle, NULL);
      if (st2 != TCMMA_OK || o.swizzle == TCMMA_SWIZZLE_NONE)
        return tcmma_fail(err, TCMMA_INVALID,
                          "operand spec '%s': swizzle '%s': expected 32, 64 or 128 (bytes "
                          "per swizzled span; plain for none)", spec, piece + 8);
    } else if (strncmp(piece, "at=", 3) == 0) {
      if (!parse_at(piece + 3, &o.row0.value, &o.col0.value))
        return tcmma_fail(err, TCMMA_INVALID,
                          "operand spec '%s': at '%s': expected ROW0:COL0, two non-negative "
                          "integers (the sub-tile's origin in its parent)", spec, piece + 3);
    } else if (strncmp(piece, "ld=", 3) == 0) {
      char *end = NULL;
      errno = 0;
      long v = strtol(piece + 3, &end, 10);
      if (errno || end == piece + 3 || *end || v <= 0)
        return tcmma_fail(err, TCMMA_INVALID,
                          "operand spec '%s': ld '%s' is not a positive integer", spec,
                          piece + 3);
      o.ld = v;
    } else {
      return tcmma_fail(err, TCMMA_INVALID,
                        "operand spec '%s': unknown piece '%s': expected t, ld=N, global, "
                        "shared, thread, plain, swizzled, swizzle=32|64|128 or at=ROW0:COL0",
                        spec, piece);
    }
  }
  *out = o;
  return TCMMA_OK;
}

tcmma_status cli_parse_cc(const char *text, int *out, tcmma_error *err) {
  /* digits only: no sign, no spaces, at most 9 of them so the value fits */
  size_t n = text ? strspn(text, "0123456789") : 0;
  if (!text || n == 0 || text[n] != '\0' || n > 9 || tcmma_cc_check(atoi(text), NULL))
    return tcmma_fail(err, TCMMA_INVALID,
                      "compute capability '%s': expected 0 (any device) or major*10+minor "
                      "from %d to %d (80 for sm_80)",
                      text ? text : "(null)", TCMMA_CC_MIN, TCMMA_CC_MAX);
  if (out) *out = atoi(text);
  return TCMMA_OK;
}
