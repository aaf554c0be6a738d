/* The PTX reader's fast paths against slow references, on every module of
 * tests/data (docs/ptx.md, Speed):
 *  - features: each census opcode, and the opcode each row's tokens spell
 *    (so every row is matched, not only those the corpus holds), is matched
 *    here against every row of tables/ptx_features.def one by one, by a
 *    token matcher written here (the library looks at the rows of the
 *    opcode's first byte only); the row tcmma_ptx_feature_for answers,
 *    tcmma_ptx_opcode_holds at every listed target, and each module's
 *    requirement (row, opcode, PTX ISA, lowest target and suffix) must be
 *    what the slow matches give;
 *  - the scan: the module's text read at each of sixteen start offsets in
 *    an exact-size buffer, so the sixteen-byte loads meet the end of input
 *    at every phase, and with its blanks widened (tabs to spaces, each line
 *    end doubled), must give the census, entries and header the first read
 *    gave. The census counts themselves are checked against a regex
 *    extractor in test_ptx_corpus. */
#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "util.h"
#include "tcmma/tcmma.h"

#define PARTS_MAX 48
#define PART_LEN 96
#define MODULES_MAX 48

/* ---- the slow matcher ---- */

/* s split at sep into parts[] (each copied, at most PARTS_MAX). */
static size_t split(const char *s, char sep, char parts[][PART_LEN]) {
  size_t n = 0;
  for (const char *p = s;; n++) {
    const char *e = strchr(p, sep);
    size_t len = e ? (size_t)(e - p) : strlen(p);
    assert_true(n < PARTS_MAX && len < PART_LEN);
    memcpy(parts[n], p, len);
    parts[n][len] = '\0';
    if (!e) return n + 1;
    p = e + 1;
  }
}

/* Whether row tokens match opcode: the first parts equal; each further
 * token ('+' joining parts that must follow one another) found among the
 * opcode's later parts, or, written "!tok", not found. */
static bool slow_match(const char *tokens, const char *opcode) {
  static char t[PARTS_MAX][PART_LEN], o[PARTS_MAX][PART_LEN], seq[PARTS_MAX][PART_LEN];
  size_t nt = split(tokens, '.', t), no = split(opcode, '.', o);
  if (strcmp(t[0], o[0]) != 0) return false;
  for (size_t i = 1; i < nt; i++) {
    bool absent = t[i][0] == '!';
    size_t ns = split(t[i] + absent, '+', seq);
    bool found = false;
    for (size_t j = 1; j + ns <= no && !found; j++) {
      found = true;
      for (size_t k = 0; k < ns && found; k++) found = strcmp(o[j + k], seq[k]) == 0;
    }
    if (found == absent) return false;
  }
  return true;
}

static int strictness(tcmma_ptx_suffix s) {
  return s == TCMMA_PTX_SUFFIX_A ? 2 : s == TCMMA_PTX_SUFFIX_A_OR_F ? 1 : 0;
}

/* docs/ptx.md's order of rows: higher floor, then stricter suffix, then
 * later PTX ISA, then more tokens (b may be NULL). */
static bool slow_stricter(const tcmma_ptx_feature *a, const tcmma_ptx_feature *b) {
  if (!b) return true;
  if (a->min_sm != b->min_sm) return a->min_sm > b->min_sm;
  if (strictness(a->suffix) != strictness(b->suffix))
    return strictness(a->suffix) > strictness(b->suffix);
  if (a->min_ptx != b->min_ptx) return a->min_ptx > b->min_ptx;
  static char x[PARTS_MAX][PART_LEN];
  return split(a->tokens, '.', x) > split(b->tokens, '.', x);
}

/* What the slow matches of a census give: the rows matched, the first of
 * the strictest, the opcode that brought it, the highest PTX ISA. */
typedef struct {
  bool row[TCMMA_PTX_FEATURE_COUNT];
  const tcmma_ptx_feature *top;
  const char *by;
  int ptx;
} slow_set;

static bool set_holds(const slow_set *s, int sm, char suffix) {
  for (size_t i = 0; i < tcmma_ptx_feature_count(); i++)
    if (s->row[i] && !tcmma_ptx_feature_holds(tcmma_ptx_feature_get(i), sm, suffix)) return false;
  return true;
}

/* The lowest sm any matched row lists that holds them all (*suffix: which
 * suffixes do there), 0 when nothing matched, -1 when none holds. */
static int slow_lowest(const slow_set *s, tcmma_ptx_suffix *suffix) {
  *suffix = TCMMA_PTX_SUFFIX_ANY;
  if (!s->top) return 0;
  int best = -1;
  for (size_t i = 0; i < tcmma_ptx_feature_count(); i++)
    for (int j = 0; s->row[i] && j < TCMMA_PTX_SMS_MAX; j++) {
      int sm = tcmma_ptx_feature_get(i)->sms[j];
      if (sm <= 0 || (best > 0 && sm >= best)) continue;
      bool plain = set_holds(s, sm, 0), a = set_holds(s, sm, 'a'), f = set_holds(s, sm, 'f');
      if (!plain && !a && !f) continue;
      best = sm;
      *suffix = plain ? TCMMA_PTX_SUFFIX_ANY : a && !f ? TCMMA_PTX_SUFFIX_A : TCMMA_PTX_SUFFIX_A_OR_F;
    }
  return best;
}

static const char suffixes[3] = {'\0', 'a', 'f'};

/* Adds opcode's slow matches to s; checks feature_for and opcode_holds for
 * it at every sm and suffix a row lists. Returns how many rows matched. */
static size_t add_slow(slow_set *s, const char *opcode, const char *module) {
  const tcmma_ptx_feature *own = NULL;
  slow_set one = {0};
  size_t matched = 0;
  for (size_t i = 0; i < tcmma_ptx_feature_count(); i++) {
    const tcmma_ptx_feature *f = tcmma_ptx_feature_get(i);
    if (!slow_match(f->tokens, opcode)) continue;
    matched++;
    s->row[i] = one.row[i] = true;
    if (slow_stricter(f, own)) own = f;
    if (slow_stricter(f, s->top)) s->top = f, s->by = opcode;
    if (f->min_ptx > s->ptx) s->ptx = f->min_ptx;
  }
  if (tcmma_ptx_feature_for(opcode) != own)
    fail_msg("%s: %s: feature_for says %s, the slow scan %s", module, opcode,
             tcmma_ptx_feature_for(opcode) ? tcmma_ptx_feature_for(opcode)->id : "none",
             own ? own->id : "none");
  for (size_t i = 0; i < tcmma_ptx_feature_count(); i++)
    for (int j = 0; j < TCMMA_PTX_SMS_MAX && tcmma_ptx_feature_get(i)->sms[j] > 0; j++)
      for (const char *sx = suffixes; sx < suffixes + 3; sx++) {
        int sm = tcmma_ptx_feature_get(i)->sms[j];
        if (*sx == 'f' && sm < TCMMA_PTX_FAMILY_MIN_SM) continue;
        bool fast = tcmma_ptx_opcode_holds(opcode, sm, *sx), slow = set_holds(&one, sm, *sx);
        if (fast != slow)
          fail_msg("%s: %s at sm_%d%c: opcode_holds %d, the slow scan %d", module, opcode, sm,
                   *sx ? *sx : ' ', fast, slow);
      }
  return matched;
}

/* ---- the corpus ---- */

typedef struct {
  char name[160];
  char *text;
  size_t len;
} module;

static module mods[MODULES_MAX];
static size_t n_mods;

static void load_dir(const char *rel) {
  DIR *d = opendir(src_path(rel));
  assert_non_null(d);
  for (struct dirent *e; (e = readdir(d));) {
    size_t n = strlen(e->d_name);
    if (n < 5 || strcmp(e->d_name + n - 4, ".ptx") != 0) continue;
    assert_true(n_mods < MODULES_MAX);
    module *m = &mods[n_mods++];
    snprintf(m->name, sizeof m->name, "%s/%s", rel, e->d_name);
    m->text = read_file(src_path(m->name), &m->len);
    assert_non_null(m->text);
  }
  closedir(d);
}

static int load(void **state) {
  (void)state;
  load_dir("tests/data");
  load_dir("tests/data/ptx");
  return n_mods >= 10 ? 0 : -1;
}

static int unload(void **state) {
  (void)state;
  for (size_t i = 0; i < n_mods; i++) free(mods[i].text);
  return 0;
}

/* The opcode a row's tokens spell: '+' joins made '.', "!tok" left out. */
static void row_opcode(const char *tokens, char *out, size_t cap) {
  size_t o = 0;
  for (const char *p = tokens; *p && o + 1 < cap;) {
    if (p[0] == '.' && p[1] == '!') {
      p += 2;
      while (*p && *p != '.') p++;
      continue;
    }
    out[o++] = *p == '+' ? '.' : *p;
    p++;
  }
  out[o] = '\0';
}

/* Every module's requirement as the slow matches give it; and the opcode
 * each row spells, so that every row is matched, not only the corpus's. */
static void features_match_slow_scan(void **state) {
  (void)state;
  size_t opcodes = 0, matched = 0, parsed = 0;
  for (size_t i = 0; i < tcmma_ptx_feature_count(); i++) {
    char op[256];
    row_opcode(tcmma_ptx_feature_get(i)->tokens, op, sizeof op);
    slow_set scratch = {0};
    if (!add_slow(&scratch, op, "tables/ptx_features.def") || !scratch.row[i])
      fail_msg("row %s: its own opcode %s does not match it", tcmma_ptx_feature_get(i)->id, op);
  }
  for (size_t k = 0; k < n_mods; k++) {
    tcmma_ptx_info info;
    tcmma_error err;
    if (tcmma_ptx_parse(mods[k].text, mods[k].len, &info, &err) != TCMMA_OK) {
      tcmma_ptx_info_free(&info); /* a module meant to fail (no .target) */
      continue;
    }
    parsed++;
    slow_set s = {0};
    for (size_t i = 0; i < info.census_count; i++, opcodes++)
      matched += add_slow(&s, info.census[i].opcode, mods[k].name);
    tcmma_ptx_suffix suffix;
    int low = slow_lowest(&s, &suffix);
    const char *name = mods[k].name;
    if (info.required_feature != s.top)
      fail_msg("%s: required row %s, the slow scan %s", name,
               info.required_feature ? info.required_feature->id : "none", s.top ? s.top->id : "none");
    if (!s.by) assert_null(info.required_by);
    else if (!info.required_by || strcmp(info.required_by, s.by) != 0)
      fail_msg("%s: required by %s, the slow scan %s", name,
               info.required_by ? info.required_by : "none", s.by);
    assert_int_equal(info.required_ptx, s.ptx);
    assert_int_equal(info.no_target, low < 0);
    if (low >= 0) {
      assert_int_equal(info.required_sm, low);
      assert_int_equal(info.required_suffix, suffix);
    }
    tcmma_ptx_info_free(&info);
  }
  print_message("ptx reference: %zu modules read, %zu opcodes, %zu row matches alike\n", parsed,
                opcodes, matched);
  assert_true(parsed >= 10 && matched > 0);
}

/* text with tabs made spaces and each line end doubled; *len its length. */
static char *widened(const char *text, size_t n, size_t *len) {
  char *w = malloc(2 * n + 1);
  assert_non_null(w);
  size_t o = 0;
  for (size_t i = 0; i < n; i++) {
    if (text[i] == '\t') w[o++] = ' ';
    else if (text[i] == '\n') w[o++] = '\n', w[o++] = '\n';
    else w[o++] = text[i];
  }
  *len = o;
  return w;
}

/* Each module read at every offset of sixteen, its end the buffer's, and
 * with its blanks widened, reads as it did. */
static void scan_alike_at_every_offset(void **state) {
  (void)state;
  size_t reads = 0;
  for (size_t k = 0; k < n_mods; k++) {
    tcmma_ptx_info first, again;
    tcmma_error err;
    module *m = &mods[k];
    tcmma_status st = tcmma_ptx_parse(m->text, m->len, &first, &err);
    for (size_t off = 0; off < 16; off++, reads++) {
      size_t size = m->len + off; /* exact: ASan sees a byte read past the end */
      char *buf = malloc(size ? size : 1);
      assert_non_null(buf);
      memcpy(buf + off, m->text, m->len);
      assert_int_equal(tcmma_ptx_parse(buf + off, m->len, &again, &err), st);
      if (st == TCMMA_OK) {
        char how[32];
        snprintf(how, sizeof how, "at offset %zu", off);
        ptx_info_same(&first, &again, m->name, how);
      }
      tcmma_ptx_info_free(&again);
      free(buf);
    }
    size_t wlen;
    char *w = widened(m->text, m->len, &wlen);
    assert_int_equal(tcmma_ptx_parse(w, wlen, &again, &err), st);
    if (st == TCMMA_OK) ptx_info_same(&first, &again, m->name, "widened");
    tcmma_ptx_info_free(&again), tcmma_ptx_info_free(&first);
    free(w);
  }
  print_message("ptx reference: %zu reads of %zu modules alike\n", reads, n_mods);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(features_match_slow_scan),
      cmocka_unit_test(scan_alike_at_every_offset),
  };
  return cmocka_run_group_tests_name("ptx_reference", tests, load, unload);
}
