/* The CLI's text forms: an operand SPEC
 * (PREC[,t][,ld=N][,global|shared|thread][,plain|swizzled|swizzle=32|64|128]
 * [,at=ROW0:COL0][,sld=N]) and a decimal compute capability. */
#include "cli_parse.h"

#include <limits.h>
#include <stdio.h>
#include <string.h>

#include "tables/decimal.h"

/* "ROW0:COL0": two decimal integers from 0 to INT_MAX, each read by the
 * one number parser (tcmma__table_decimal). */
static bool parse_at(const char *text, long *row, long *col) {
  char buf[64];
  const char *colon = strchr(text, ':');
  if (!colon || (size_t)(colon - text) >= sizeof buf) return false;
  memcpy(buf, text, (size_t)(colon - text));
  buf[colon - text] = '\0';
  long long r, c;
  if (!tcmma__table_decimal(buf, 0, INT_MAX, &r) ||
      !tcmma__table_decimal(colon + 1, 0, INT_MAX, &c))
    return false;
  *row = (long)r, *col = (long)c;
  return true;
}

/* "mxe4m3, mxe5m2, ...": the block-scaled precisions, from the precision
 * table (public tcmma_prec_is_scaled). */
static const char *scaled_names(char *buf, size_t cap) {
  size_t used = 0;
  buf[0] = '\0';
  for (int p = 0; p < TCMMA_PREC_COUNT; p++) {
    if (!tcmma_prec_is_scaled((tcmma_prec)p)) continue;
    int n = snprintf(buf + used, cap - used, "%s%s", used ? ", " : "", tcmma_prec_name((tcmma_prec)p));
    if (n < 0 || (size_t)n >= cap - used) break;
    used += (size_t)n;
  }
  return buf;
}

/* "32, 64 or 128": the swizzles other than none, from the swizzle table. */
static const char *swizzle_spans(char *buf, size_t cap) {
  size_t used = 0;
  buf[0] = '\0';
  for (int i = TCMMA_SWIZZLE_NONE + 1; i < TCMMA_SWIZZLE_COUNT; i++) {
    const char *sep = i == TCMMA_SWIZZLE_NONE + 1    ? ""
                      : i == TCMMA_SWIZZLE_COUNT - 1 ? " or "
                                                     : ", ";
    int n = snprintf(buf + used, cap - used, "%s%s", sep, tcmma_swizzle_name((tcmma_swizzle)i));
    if (n < 0 || (size_t)n >= cap - used) break;
    used += (size_t)n;
  }
  return buf;
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
                      "[,plain|swizzled|swizzle=32|64|128][,at=ROW0:COL0][,sld=N]", spec);
  tcmma_status st = tcmma_prec_parse(piece, &o.prec, err);
  if (st != TCMMA_OK) return st;
  /* each kind of piece at most once: "shared,global" has no meaning, and a
   * silent last-one-wins would plan something the caller did not write */
  enum { KIND_T, KIND_SPACE, KIND_LAYOUT, KIND_LD, KIND_AT, KIND_SLD, KINDS };
  static const char *const kind_name[KINDS] = {"t", "a space", "a layout", "ld=", "at=", "sld="};
  const char *seen[KINDS] = {NULL};
  while ((piece = strtok_r(NULL, ",", &save))) {
    int kind = strcmp(piece, "t") == 0 ? KIND_T
             : (!strcmp(piece, "global") || !strcmp(piece, "shared") || !strcmp(piece, "thread"))
                 ? KIND_SPACE
             : (!strcmp(piece, "plain") || !strcmp(piece, "swizzled") ||
                !strncmp(piece, "swizzle=", 8)) ? KIND_LAYOUT
             : strncmp(piece, "ld=", 3) == 0 ? KIND_LD
             : strncmp(piece, "at=", 3) == 0 ? KIND_AT
             : strncmp(piece, "sld=", 4) == 0 ? KIND_SLD : KINDS;
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
      char spans[64];
      if (st2 != TCMMA_OK || o.swizzle == TCMMA_SWIZZLE_NONE)
        return tcmma_fail(err, TCMMA_INVALID,
                          "operand spec '%s': swizzle '%s': expected %s (bytes per swizzled "
                          "span; plain for none)", spec, piece + 8,
                          swizzle_spans(spans, sizeof spans));
    } else if (strncmp(piece, "at=", 3) == 0) {
      if (!parse_at(piece + 3, &o.row0.value, &o.col0.value))
        return tcmma_fail(err, TCMMA_INVALID,
                          "operand spec '%s': at '%s': expected ROW0:COL0, two integers from 0 to "
                          "2147483647 (the sub-tile's origin in its parent)", spec, piece + 3);
    } else if (strncmp(piece, "ld=", 3) == 0 || strncmp(piece, "sld=", 4) == 0) {
      bool scales = piece[0] == 's';
      const char *text = piece + (scales ? 4 : 3);
      long long v;
      if (!tcmma__table_decimal(text, 1, LONG_MAX, &v))
        return tcmma_fail(err, TCMMA_INVALID,
                          "operand spec '%s': %s '%s': expected a decimal integer from 1 to %ld",
                          spec, scales ? "sld" : "ld", text, LONG_MAX);
      char names[128];
      if (scales && !tcmma_prec_is_scaled(o.prec))
        return tcmma_fail(err, TCMMA_INVALID,
                          "operand spec '%s': sld (the block scales' leading dimension) needs a "
                          "block-scaled precision (%s), not %s", spec,
                          scaled_names(names, sizeof names), tcmma_prec_name(o.prec));
      *(scales ? &o.scale_ld : &o.ld) = (long)v;
    } else {
      return tcmma_fail(err, TCMMA_INVALID,
                        "operand spec '%s': unknown piece '%s': expected t, ld=N, global, "
                        "shared, thread, plain, swizzled, swizzle=32|64|128, at=ROW0:COL0 or "
                        "sld=N",
                        spec, piece);
    }
  }
  *out = o;
  return TCMMA_OK;
}

tcmma_status cli_parse_cc(const char *text, int *out, tcmma_error *err) {
  long long cc = -1;
  if (!tcmma__table_decimal(text, 0, TCMMA_CC_MAX, &cc) || tcmma_cc_check((int)cc, NULL))
    return tcmma_fail(err, TCMMA_INVALID,
                      "compute capability '%s': expected a decimal integer, 0 (any device) or "
                      "major*10+minor from %d to %d (80 for sm_80)",
                      text ? text : "(null)", TCMMA_CC_MIN, TCMMA_CC_MAX);
  if (out) *out = (int)cc;
  return TCMMA_OK;
}
