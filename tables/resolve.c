/* Resolution, derived from tables/resolve.def and the arms' floors. */
#include "tcmma/resolve.h"

#include <stdio.h>
#include <string.h>
#include "tables/names.h"

enum cond {
  COND_ANY,
  COND_FP16_NARROW,
  COND_FP16_WIDE,
  COND_PREFER_PTX,
  COND_PREFER_WMMA,
  COND_TF32_ON,
  COND_TF32_OFF,
  COND_SATURATE,
  COND_WRAP
};

typedef struct {
  tcmma_prec d, a, b;
  enum cond cond[2];
  tcmma_arm list[2][TCMMA_RESOLVE_LIST_MAX]; /* [scope][preference] */
  const char *why;
} resolve_row;

static const resolve_row rows[] = {
#define ARM_OR_NONE(X) TCMMA_ARM_##X
#define TCMMA_RESOLVE(D, A, B, COND, COND2, S1, S2, S3, F1, F2, F3, why) \
  {TCMMA_PREC_##D,                                                       \
   TCMMA_PREC_##A,                                                       \
   TCMMA_PREC_##B,                                                       \
   {COND_##COND, COND_##COND2},                                          \
   {{ARM_OR_NONE(S1), ARM_OR_NONE(S2), ARM_OR_NONE(S3)},                 \
    {ARM_OR_NONE(F1), ARM_OR_NONE(F2), ARM_OR_NONE(F3)}},                \
   why},
#include "tables/resolve.def"
#undef TCMMA_RESOLVE
};

const char *tcmma_scope_name(tcmma_scope scope) {
  return scope == TCMMA_SCOPE_STATEMENT  ? "statement"
         : scope == TCMMA_SCOPE_FRAGMENT ? "fragment"
                                         : "?";
}

static const char *scope_at(int i) { return tcmma_scope_name((tcmma_scope)i); }

/* "statement or fragment" */
static const char *scope_names(char *buf, size_t cap) {
  return tcmma__table_names(buf, cap, scope_at, TCMMA_SCOPE_STATEMENT, TCMMA_SCOPE_FRAGMENT);
}

tcmma_status tcmma_scope_parse(const char *s, tcmma_scope *out, tcmma_error *err) {
  for (int i = TCMMA_SCOPE_STATEMENT; s && i <= TCMMA_SCOPE_FRAGMENT; i++)
    if (strcmp(s, tcmma_scope_name((tcmma_scope)i)) == 0) {
      if (out) *out = (tcmma_scope)i;
      return TCMMA_OK;
    }
  char names[64];
  return tcmma_fail(err, TCMMA_INVALID, "unknown scope '%s': expected %s", s ? s : "(null)",
                    scope_names(names, sizeof names));
}

static bool cond_holds(enum cond c, const tcmma_numerics *p) {
  switch (c) {
    case COND_ANY:
      return true;
    case COND_FP16_NARROW:
      return p->fp16 == TCMMA_FP16_NARROW;
    case COND_FP16_WIDE:
      return p->fp16 == TCMMA_FP16_WIDE;
    case COND_PREFER_PTX:
      return p->prefer == TCMMA_PREFER_PTX;
    case COND_PREFER_WMMA:
      return p->prefer == TCMMA_PREFER_WMMA;
    case COND_TF32_ON:
      return p->tf32;
    case COND_TF32_OFF:
      return !p->tf32;
    case COND_SATURATE:
      return p->saturate;
    case COND_WRAP:
      return !p->saturate;
  }
  return false;
}

/* The first row that covers t under policy; NULL when none does. */
static const resolve_row *find_row(tcmma_triple t, const tcmma_numerics *policy) {
  for (size_t i = 0; i < sizeof rows / sizeof rows[0]; i++) {
    const resolve_row *r = &rows[i];
    if (r->d == t.d && r->a == t.a && r->b == t.b && cond_holds(r->cond[0], policy) &&
        cond_holds(r->cond[1], policy))
      return r;
  }
  return NULL;
}

size_t tcmma_resolve_list(tcmma_triple t, const tcmma_numerics *policy, tcmma_scope scope,
                          tcmma_arm *out, size_t cap) {
  tcmma_numerics def = tcmma_numerics_default();
  if (!policy) policy = &def;
  if (scope != TCMMA_SCOPE_STATEMENT && scope != TCMMA_SCOPE_FRAGMENT) return 0;
  const resolve_row *r = find_row(t, policy);
  size_t n = 0;
  for (int j = 0; r && j < TCMMA_RESOLVE_LIST_MAX && r->list[scope][j] != TCMMA_ARM_NONE; j++, n++)
    if (out && n < cap) out[n] = r->list[scope][j];
  return n;
}

tcmma_status tcmma_resolve(tcmma_triple t, const tcmma_numerics *policy, tcmma_scope scope, int cc,
                           tcmma_arm *out, tcmma_error *err) {
  tcmma_numerics def = tcmma_numerics_default();
  if (!policy) policy = &def;
  if (out) *out = TCMMA_ARM_NONE;
  if ((unsigned)t.d >= TCMMA_PREC_COUNT || (unsigned)t.a >= TCMMA_PREC_COUNT ||
      (unsigned)t.b >= TCMMA_PREC_COUNT)
    return tcmma_fail(err, TCMMA_INVALID, "storage precision out of range (d %d, a %d, b %d)",
                      (int)t.d, (int)t.a, (int)t.b);
  char names[64];
  if (scope != TCMMA_SCOPE_STATEMENT && scope != TCMMA_SCOPE_FRAGMENT)
    return tcmma_fail(err, TCMMA_INVALID, "scope %d: expected %s", (int)scope,
                      scope_names(names, sizeof names));
  if (policy->fp16 != TCMMA_FP16_WIDE && policy->fp16 != TCMMA_FP16_NARROW)
    return tcmma_fail(err, TCMMA_INVALID, "fp16 mode %d: expected %s", (int)policy->fp16,
                      tcmma__table_names(names, sizeof names, tcmma__table_fp16_name,
                                         TCMMA_FP16_WIDE, TCMMA_FP16_NARROW));
  if (policy->prefer != TCMMA_PREFER_PTX && policy->prefer != TCMMA_PREFER_WMMA)
    return tcmma_fail(err, TCMMA_INVALID, "preference %d: expected %s", (int)policy->prefer,
                      tcmma__table_names(names, sizeof names, tcmma__table_prefer_name,
                                         TCMMA_PREFER_PTX, TCMMA_PREFER_WMMA));
  tcmma_status s = tcmma_cc_check(cc, err);
  if (s != TCMMA_OK) return s;
  const char *d = tcmma_prec_name(t.d), *a = tcmma_prec_name(t.a), *b = tcmma_prec_name(t.b);
  const resolve_row *r = find_row(t, policy);
  if (r) {
    const tcmma_arm *list = r->list[scope];
    if (list[0] == TCMMA_ARM_NONE)
      return tcmma_fail(err, TCMMA_NO_ARM, "no tensor-core arm for %s = %s x %s: %s", d, a, b,
                        r->why[0] ? r->why : "the numerics policy excludes it");
    char tried[384] = "";
    size_t used = 0;
    for (int j = 0; j < TCMMA_RESOLVE_LIST_MAX && list[j] != TCMMA_ARM_NONE; j++) {
      if (tcmma_arm_runs_on(list[j], cc)) {
        if (out) *out = list[j];
        return TCMMA_OK;
      }
      const tcmma_arm_info *info = tcmma_arm_get(list[j]);
      char family[32] = "";
      if (info->family) snprintf(family, sizeof family, " (family %d.x only)", info->floor / 10);
      int n = snprintf(tried + used, sizeof tried - used, "%s%s needs cc %d%s", j ? ", " : "",
                       info->marker, info->floor, family);
      if (n > 0 && (size_t)n < sizeof tried - used) used += (size_t)n;
    }
    return tcmma_fail(err, TCMMA_FLOOR, "no arm for %s = %s x %s runs on cc %d: %s", d, a, b, cc,
                      tried);
  }
  return tcmma_fail(err, TCMMA_NO_ARM,
                    "no tensor-core arm for %s = %s x %s: the caller renders its scalar fallback",
                    d, a, b);
}
