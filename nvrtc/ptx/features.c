/* What PTX instructions need: tables/ptx_features.def, matched by tokens,
 * and the requirement and target checks of a parsed module built on it
 * (docs/design.md §10). An opcode needs what every row it matches needs;
 * one no row matches needs nothing when its root is an instruction of
 * tables/ptx_instructions.def, and is not known otherwise. */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "tcmma/ptx.h"
#include "nvrtc/internal.h"

#define TCMMA__UNPAREN(...) __VA_ARGS__
#define UP TCMMA_PTX_SM_UP
/* Indexed by value (a row's value column, not its position): tcmma_ptx_feature_get(i)
 * is the row of value i. */
static const tcmma_ptx_feature features[TCMMA_PTX_FEATURE_COUNT] = {
#define TCMMA_PTX_FEATURE(ID, value, tokens, suffix, sms, maj, min)                          \
  [value] = {#ID, tokens, TCMMA_PTX_SUFFIX_##suffix, {TCMMA__UNPAREN sms}, TCMMA_PTX_MIN_SM(ID), \
             (maj) * 10 + (min)},
#include "tables/ptx_features.def"
#undef TCMMA_PTX_FEATURE
};
#undef UP
_Static_assert(sizeof features / sizeof features[0] == TCMMA_PTX_FEATURE_COUNT,
               "one row per tcmma_ptx_feature_id");

size_t tcmma_ptx_feature_count(void) { return TCMMA_PTX_FEATURE_COUNT; }

const tcmma_ptx_feature *tcmma_ptx_feature_get(size_t i) {
  return i < TCMMA_PTX_FEATURE_COUNT ? &features[i] : NULL;
}

/* ---- matching ---- */

/* The length of the '.'-separated part that starts at s. */
static size_t part_len(const char *s) {
  const char *dot = strchr(s, '.');
  return dot ? (size_t)(dot - s) : strlen(s);
}

static bool has_parts_at(const char *p, const char *token, size_t n);

/* Whether part (n bytes) is one whole '.'-separated part of parts. */
static bool has_part(const char *parts, const char *part, size_t n) {
  for (const char *p = parts; *p;) {
    size_t len = part_len(p);
    if (len == n && strncmp(p, part, n) == 0) return true;
    if (!p[len]) break;
    p += len + 1;
  }
  return false;
}

/* Whether the parts of token (n bytes; '+' joins parts that must follow
 * each other: "f32+bf16", cvt's destination then source type) occur in
 * parts one after the other. */
static bool has_parts(const char *parts, const char *token, size_t n) {
  const char *plus = memchr(token, '+', n);
  if (!plus) return has_part(parts, token, n);
  size_t head = (size_t)(plus - token);
  for (const char *p = parts; *p;) {
    size_t len = part_len(p);
    if (len == head && strncmp(p, token, head) == 0 && p[len] &&
        has_parts_at(p + len + 1, plus + 1, n - head - 1))
      return true;
    if (!p[len]) break;
    p += len + 1;
  }
  return false;
}

/* Whether the parts of token ('+'-joined) are the leading parts of p. */
static bool has_parts_at(const char *p, const char *token, size_t n) {
  const char *plus = memchr(token, '+', n);
  size_t head = plus ? (size_t)(plus - token) : n, len = part_len(p);
  if (len != head || strncmp(p, token, head) != 0) return false;
  return !plus || (p[len] && has_parts_at(p + len + 1, plus + 1, n - head - 1));
}

/* Whether row f matches opcode, whose first part is `first` bytes long (the
 * callers scan every row for one opcode: the first byte turns most away).
 * A token written "!rn" matches when the part is absent. */
static bool matches(const tcmma_ptx_feature *f, const char *opcode, size_t first) {
  const char *t = f->tokens;
  if (t[0] != opcode[0] || strncmp(t, opcode, first) != 0 || (t[first] != '.' && t[first]))
    return false;
  const char *rest = opcode[first] ? opcode + first + 1 : "";
  for (t += first; *t;) {
    t++; /* the '.' before the token */
    bool absent = *t == '!';
    t += absent;
    size_t n = part_len(t);
    if (has_parts(rest, t, n) == absent) return false;
    t += n;
  }
  return true;
}

/* The rows grouped by the first byte of their tokens, in table order within
 * a group (so the first of equally strict rows still wins): an opcode is
 * matched against its group only. A counting sort, built once: a fresh
 * process that checks one PTX pays for it. */
static unsigned short by_byte[TCMMA_PTX_FEATURE_COUNT];
static unsigned short group_start[257];
static pthread_once_t index_once = PTHREAD_ONCE_INIT;
_Static_assert(TCMMA_PTX_FEATURE_COUNT <= 65535, "row indices fit in an unsigned short");

static void build_index(void) {
  unsigned short count[256] = {0};
  for (size_t i = 0; i < TCMMA_PTX_FEATURE_COUNT; i++) count[(unsigned char)features[i].tokens[0]]++;
  for (int c = 0; c < 256; c++) group_start[c + 1] = (unsigned short)(group_start[c] + count[c]);
  unsigned short at[256];
  memcpy(at, group_start, sizeof at);
  for (size_t i = 0; i < TCMMA_PTX_FEATURE_COUNT; i++)
    by_byte[at[(unsigned char)features[i].tokens[0]]++] = (unsigned short)i;
}

/* The rows that may match opcode: the table indices by_byte[*lo..*hi). */
static void rows_of(const char *opcode, size_t *lo, size_t *hi) {
  pthread_once(&index_once, build_index);
  unsigned char c = (unsigned char)opcode[0];
  *lo = group_start[c], *hi = group_start[c + 1];
}

bool tcmma_ptx_feature_matches(const tcmma_ptx_feature *f, const char *opcode) {
  return f && opcode && matches(f, opcode, part_len(opcode));
}

bool tcmma_ptx_feature_holds(const tcmma_ptx_feature *f, int sm, char suffix) {
  if (!f || (suffix == 'f' && sm < TCMMA_PTX_FAMILY_MIN_SM)) return false;
  if (suffix && suffix != 'a' && suffix != 'f') return false;
  if (f->suffix == TCMMA_PTX_SUFFIX_A && suffix != 'a') return false;
  if (f->suffix == TCMMA_PTX_SUFFIX_A_OR_F && suffix != 'a' && suffix != 'f') return false;
  for (int i = 0; i < TCMMA_PTX_SMS_MAX && f->sms[i]; i++) {
    if (f->sms[i] == TCMMA_PTX_SM_UP) return i > 0 && sm >= f->sms[i - 1];
    if (f->sms[i] == sm) return true;
  }
  return false;
}

static int strictness(tcmma_ptx_suffix s) {
  return s == TCMMA_PTX_SUFFIX_A ? 2 : s == TCMMA_PTX_SUFFIX_A_OR_F ? 1 : 0;
}

static size_t token_count(const char *tokens) {
  size_t n = 1;
  for (const char *p = tokens; *p; p++) n += *p == '.';
  return n;
}

/* Whether row a is stricter than row b (b may be NULL). */
static bool stricter(const tcmma_ptx_feature *a, const tcmma_ptx_feature *b) {
  if (!b) return true;
  if (a->min_sm != b->min_sm) return a->min_sm > b->min_sm;
  if (strictness(a->suffix) != strictness(b->suffix))
    return strictness(a->suffix) > strictness(b->suffix);
  if (a->min_ptx != b->min_ptx) return a->min_ptx > b->min_ptx;
  return token_count(a->tokens) > token_count(b->tokens);
}

const tcmma_ptx_feature *tcmma_ptx_feature_for(const char *opcode) {
  const tcmma_ptx_feature *best = NULL;
  size_t lo = 0, hi = 0, first = opcode ? part_len(opcode) : 0;
  if (opcode) rows_of(opcode, &lo, &hi);
  for (size_t k = lo; k < hi; k++) {
    const tcmma_ptx_feature *f = &features[by_byte[k]];
    if (matches(f, opcode, first) && stricter(f, best)) best = f;
  }
  return best;
}

bool tcmma_ptx_opcode_holds(const char *opcode, int sm, char suffix) {
  size_t lo = 0, hi = 0, first = opcode ? part_len(opcode) : 0;
  if (opcode) rows_of(opcode, &lo, &hi);
  for (size_t k = lo; k < hi; k++)
    if (matches(&features[by_byte[k]], opcode, first) &&
        !tcmma_ptx_feature_holds(&features[by_byte[k]], sm, suffix))
      return false;
  return true;
}

/* ---- the PTX ISA's instructions: tables/ptx_instructions.def ---- */

static const char *const instructions[] = {
#define TCMMA_PTX_INSTRUCTION(root) #root,
#include "tables/ptx_instructions.def"
#undef TCMMA_PTX_INSTRUCTION
};

bool tcmma_ptx_opcode_known(const char *opcode) {
  size_t n = opcode ? part_len(opcode) : 0;
  for (size_t i = 0; n && i < sizeof instructions / sizeof instructions[0]; i++)
    if (instructions[i][0] == opcode[0] && strncmp(instructions[i], opcode, n) == 0 &&
        !instructions[i][n])
      return true;
  return false;
}

/* ---- requirements: the lowest target that holds a set of rows ---- */

typedef struct {
  bool row[TCMMA_PTX_FEATURE_COUNT];
  const tcmma_ptx_feature *top; /* the strictest row of the set */
  int ptx;
} row_set;

static void add_opcode(row_set *set, const char *opcode) {
  size_t lo, hi, first = part_len(opcode);
  rows_of(opcode, &lo, &hi);
  for (size_t k = lo; k < hi; k++) {
    size_t i = by_byte[k];
    if (!matches(&features[i], opcode, first)) continue;
    set->row[i] = true;
    if (stricter(&features[i], set->top)) set->top = &features[i];
    if (features[i].min_ptx > set->ptx) set->ptx = features[i].min_ptx;
  }
}

static bool set_holds(const row_set *set, int sm, char suffix) {
  for (size_t i = 0; i < TCMMA_PTX_FEATURE_COUNT; i++)
    if (set->row[i] && !tcmma_ptx_feature_holds(&features[i], sm, suffix)) return false;
  return true;
}

/* The lowest listed sm of the set's rows that holds every row (*suffix: which
 * suffixes hold it there); 0 for an empty set; -1 when no target does. */
static int lowest_target(const row_set *set, tcmma_ptx_suffix *suffix) {
  int best = 0;
  *suffix = TCMMA_PTX_SUFFIX_ANY;
  if (!set->top) return 0;
  for (size_t i = 0; i < TCMMA_PTX_FEATURE_COUNT; i++) {
    for (int j = 0; set->row[i] && j < TCMMA_PTX_SMS_MAX && features[i].sms[j] > 0; j++) {
      int sm = features[i].sms[j];
      if (best && sm >= best) continue;
      bool plain = set_holds(set, sm, 0), a = set_holds(set, sm, 'a'), f = set_holds(set, sm, 'f');
      if (!plain && !a && !f) continue;
      best = sm;
      *suffix = plain ? TCMMA_PTX_SUFFIX_ANY : a && f ? TCMMA_PTX_SUFFIX_A_OR_F
                : a                                ? TCMMA_PTX_SUFFIX_A
                                                   : TCMMA_PTX_SUFFIX_A_OR_F;
    }
  }
  return best ? best : -1;
}

bool tcmma_ptx_opcode_need(const char *opcode, int *sm, tcmma_ptx_suffix *suffix, int *ptx) {
  row_set set = {0};
  if (opcode) add_opcode(&set, opcode);
  tcmma_ptx_suffix s;
  int low = lowest_target(&set, &s);
  if (sm) *sm = low >= 0 ? low : set.top->min_sm;
  if (suffix) *suffix = low >= 0 ? s : set.top->suffix;
  if (ptx) *ptx = set.ptx;
  return low >= 0;
}

void tcmma__ptx_requirement(tcmma_ptx_info *info) {
  row_set set = {0};
  for (size_t i = 0; i < info->census_count; i++) {
    const tcmma_ptx_feature *before = set.top;
    add_opcode(&set, info->census[i].opcode);
    if (set.top != before) info->required_by = info->census[i].opcode;
  }
  info->required_feature = set.top;
  info->required_ptx = set.ptx;
  tcmma_ptx_suffix s;
  int low = lowest_target(&set, &s);
  info->no_target = low < 0;
  info->required_sm = low >= 0 ? low : set.top->min_sm;
  info->required_suffix = low >= 0 ? s : set.top->suffix;
}

/* ---- text ---- */

const char *tcmma_ptx_suffix_text(tcmma_ptx_suffix suffix) {
  switch (suffix) {
  case TCMMA_PTX_SUFFIX_A: return "a";
  case TCMMA_PTX_SUFFIX_A_OR_F: return "a|f";
  default: return "";
  }
}

static void target_text(int sm, tcmma_ptx_suffix suffix, char *buf, size_t size) {
  if (suffix == TCMMA_PTX_SUFFIX_A) snprintf(buf, size, "sm_%da", sm);
  else if (suffix == TCMMA_PTX_SUFFIX_A_OR_F) snprintf(buf, size, "sm_%da|sm_%df", sm, sm);
  else snprintf(buf, size, "sm_%d", sm);
}

void tcmma_ptx_required_text(const tcmma_ptx_info *info, char *buf, size_t size) {
  if (!buf || size == 0) return;
  if (!info || info->required_sm == 0) snprintf(buf, size, "none");
  else if (info->no_target) snprintf(buf, size, "no target");
  else target_text(info->required_sm, info->required_suffix, buf, size);
}

void tcmma_ptx_feature_text(const tcmma_ptx_feature *f, char *buf, size_t size) {
  if (!buf || size == 0) return;
  buf[0] = '\0';
  size_t used = 0;
  for (int i = 0; f && i < TCMMA_PTX_SMS_MAX && f->sms[i] > 0 && used < size; i++) {
    bool up = i + 1 < TCMMA_PTX_SMS_MAX && f->sms[i + 1] == TCMMA_PTX_SM_UP;
    int n = snprintf(buf + used, size - used, "%ssm_%d%s%s", i ? ", " : "", f->sms[i],
                     tcmma_ptx_suffix_text(f->suffix), up ? "+" : "");
    if (n < 0) break;
    used += (size_t)n;
  }
}

/* ---- checks ---- */

tcmma_status tcmma_ptx_target_parse(const char *text, int *sm, char *suffix, tcmma_error *err) {
  const char *t = text ? text : "";
  int v = 0, digits = 0;
  const char *p = strncmp(t, "sm_", 3) == 0 ? t + 3 : t;
  for (; p > t && *p >= '0' && *p <= '9' && digits < 4; p++, digits++) v = v * 10 + (*p - '0');
  char s = (*p == 'a' || *p == 'f') ? *p++ : 0;
  if (!digits || *p || v == 0)
    return tcmma_fail(err, TCMMA_INVALID,
                      "target '%s': expected sm_<digits> with an optional a or f (sm_80, "
                      "sm_90a, sm_100f)",
                      t);
  if (s == 'f' && v < TCMMA_PTX_FAMILY_MIN_SM)
    return tcmma_fail(err, TCMMA_INVALID,
                      "target '%s': family targets (f) exist from sm_%d on; use sm_%da or sm_%d",
                      t, TCMMA_PTX_FAMILY_MIN_SM, v, v);
  if (sm) *sm = v;
  if (suffix) *suffix = s;
  return TCMMA_OK;
}

static const struct {
  int sm;
  char suffix;
  int ptx;
} targets[] = {
#define TCMMA_PTX_TARGET(sm, suffix, maj, min) {sm, suffix, (maj) * 10 + (min)},
#include "tables/ptx_targets.def"
#undef TCMMA_PTX_TARGET
};

int tcmma_ptx_target_ptx(int sm, char suffix) {
  for (size_t i = 0; i < sizeof targets / sizeof targets[0]; i++)
    if (targets[i].sm == sm && targets[i].suffix == suffix) return targets[i].ptx;
  return 0;
}

tcmma_status tcmma_ptx_check_target(const tcmma_ptx_info *info, tcmma_error *err) {
  if (!info || !info->target)
    return tcmma_fail(err, TCMMA_INVALID, "tcmma_ptx_check_target: no parsed module");
  if (info->target_sm == 0)
    return tcmma_fail(err, TCMMA_INVALID, ".target '%s' is not sm_<digits>[a|f]", info->target);
  int version = info->version_major * 10 + info->version_minor;
  int first = tcmma_ptx_target_ptx(info->target_sm, info->target_suffix);
  if (version < first)
    return tcmma_fail(err, TCMMA_FLOOR,
                      ".version %d.%d cannot write .target %s: that target needs PTX ISA %d.%d "
                      "or later",
                      info->version_major, info->version_minor, info->target, first / 10,
                      first % 10);
  for (size_t i = 0; i < info->census_count; i++) {
    const char *op = info->census[i].opcode;
    int sm, ptx;
    tcmma_ptx_suffix suffix;
    bool some = tcmma_ptx_opcode_need(op, &sm, &suffix, &ptx);
    if (sm == 0) continue;
    char need[48];
    target_text(sm, suffix, need, sizeof need);
    if (!tcmma_ptx_opcode_holds(op, info->target_sm, info->target_suffix))
      return tcmma_fail(err, TCMMA_FLOOR, ".target %s cannot hold '%s': it needs %s", info->target,
                        op, some ? need : "a target no row allows");
    if (version < ptx)
      return tcmma_fail(err, TCMMA_FLOOR, ".version %d.%d cannot hold '%s': it needs PTX ISA %d.%d",
                        info->version_major, info->version_minor, op, ptx / 10, ptx % 10);
  }
  return TCMMA_OK;
}

/* Whether PTX for the module's .target compiles to sm_<sm><suffix>. */
static bool target_compiles_to(const tcmma_ptx_info *info, int sm, char suffix) {
  int own = info->target_sm;
  switch (info->target_suffix) {
  case 'a': return sm == own && suffix == 'a';
  case 'f': return sm / 10 == own / 10 && sm >= own;
  default: return sm >= own;
  }
}

tcmma_status tcmma_ptx_check_on(const tcmma_ptx_info *info, int sm, char suffix,
                                tcmma_error *err) {
  tcmma_status st = tcmma_ptx_check_target(info, err);
  if (st != TCMMA_OK) return st;
  if (sm < TCMMA_PTXAS_SM_MIN)
    return tcmma_fail(err, TCMMA_FLOOR, "sm_%d%s: the CUDA 13 toolkit's ptxas has no such target "
                      "(its oldest is sm_%d): nothing it makes loads there", sm,
                      suffix == 'a' ? "a" : suffix == 'f' ? "f" : "", TCMMA_PTXAS_SM_MIN);
  if (!target_compiles_to(info, sm, suffix))
    return tcmma_fail(err, TCMMA_FLOOR, ".target %s does not compile to sm_%d%s: %s",
                      info->target, sm, suffix == 'a' ? "a" : suffix == 'f' ? "f" : "",
                      info->target_suffix == 'a'   ? "an arch-specific target runs on itself only"
                      : info->target_suffix == 'f' ? "a family target runs on later members of "
                                                     "its family only"
                                                   : "the GPU is older than the .target");
  return TCMMA_OK;
}

size_t tcmma_ptx_count(const tcmma_ptx_info *info, const char *prefix) {
  size_t total = 0, n = prefix ? strlen(prefix) : 0;
  if (!info || !prefix) return 0;
  for (size_t i = 0; i < info->census_count; i++) {
    const char *op = info->census[i].opcode;
    if (strncmp(op, prefix, n) == 0 && (op[n] == '\0' || op[n] == '.')) total += info->census[i].count;
  }
  return total;
}
