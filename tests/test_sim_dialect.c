/* The host dialect differs from the CUDA text only in how collectives and
 * vendor types are spelled (docs/design.md §6): for every accepted matrix case,
 * both kernel renderings are normalized and must then be identical.
 *
 * Normalizing, in order, on each side:
 *   - what tcmma_render_includes writes goes (each dialect's headers, or the
 *     CUDA declarations of tables/cuda_words.def in place of the vendor's);
 *   - host only: the tcmma_kernel_entry wrapper the contract adds goes;
 *   - each collective becomes @COLL(opcode)@: CUDA `asm volatile("op …" …);`
 *     and the simulator calls (tcmma_sim_mma[_scaled]/ldmatrix/cp_async with the
 *     opcode as first argument; commit/wait_all with the opcodes of
 *     tables/collectives.def); operands are dropped (the simulator checks
 *     them);
 *   - each wmma call becomes @WMMA_<OP>(args)@ with the arguments both
 *     dialects share (host `&` dropped, host DESC dropped, CUDA
 *     mem_row_major/mem_col_major as the contract's 0/1); a CUDA fragment's
 *     template arguments go;
 *   - every other dialect word is a row of tables/dialect.def (the renderer's
 *     own table): its CUDA spelling and its host spelling both become @ID@.
 *     Rows whose host spelling is a plain C word also used elsewhere
 *     ("void", "float") map the CUDA spelling to the host one instead. */
#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "util.h"
#include "tools/verify/gemm.h"
#include "mma/gemm_rules.h" /* the wgmma kernel's helper markers */
#include "tools/verify/verify.h"

typedef struct {
  const char *id, *cuda, *host;
} spelling;

static const spelling spellings[] = {
#define TCMMA_SPELLING(ID, cuda, host, desc) {#ID, cuda, host},
#include "tables/dialect.def"
#undef TCMMA_SPELLING
/* the kernel attributes: the other table of words the dialects spell apart */
#define TCMMA_KERNEL_ATTR(ID, value, cuda, host, ...) {"KERNEL_ATTR_" #ID, cuda, host},
#include "tables/kernel_attrs.def"
#undef TCMMA_KERNEL_ATTR
};
enum { NSPELL = sizeof spellings / sizeof *spellings };

static const char *const collectives[][2] = {
#define TCMMA_COLLECTIVE(ID, opcode) {#ID, opcode},
#include "tables/collectives.def"
#undef TCMMA_COLLECTIVE
};

static const char *collective(const char *id) {
  for (size_t i = 0; i < sizeof collectives / sizeof *collectives; i++)
    if (strcmp(collectives[i][0], id) == 0) return collectives[i][1];
  fail_msg("tables/collectives.def has no %s", id);
  return "";
}

static const spelling *row(const char *id) {
  for (int i = 0; i < NSPELL; i++)
    if (strcmp(spellings[i].id, id) == 0) return &spellings[i];
  fail_msg("tables/dialect.def has no %s", id);
  return NULL;
}

static bool ident_char(char c) { return isalnum((unsigned char)c) || c == '_'; }

/* Whether word occurs at s (s inside text) with identifier boundaries where
 * the word itself starts or ends with an identifier character. */
static bool word_at(const char *text, const char *s, const char *word) {
  size_t n = strlen(word);
  if (strncmp(s, word, n) != 0) return false;
  if (ident_char(word[0]) && s > text && ident_char(s[-1])) return false;
  if (ident_char(word[n - 1]) && ident_char(s[n])) return false;
  return true;
}

/* End of the parenthesized group opening at open ('('), skipping string
 * literals; NULL when unbalanced. */
static const char *close_paren(const char *open) {
  int depth = 0;
  for (const char *s = open; *s; s++) {
    if (*s == '"') {
      for (s++; *s && *s != '"'; s++)
        if (*s == '\\' && s[1]) s++;
      if (!*s) return NULL;
    } else if (*s == '(') {
      depth++;
    } else if (*s == ')' && --depth == 0) {
      return s;
    }
  }
  return NULL;
}

/* Splits the top-level comma-separated arguments of (open, close). */
static int split_args(const char *open, const char *close, char args[][512], int max) {
  int n = 0, depth = 0;
  const char *start = open + 1;
  for (const char *s = open + 1; s <= close && n < max; s++) {
    if (*s == '"') {
      for (s++; *s != '"'; s++)
        if (*s == '\\') s++;
      continue;
    }
    if (*s == '(' || *s == '[' || *s == '{') depth++;
    if ((*s == ')' || *s == ']' || *s == '}') && s != close) depth--;
    if ((*s == ',' && depth == 0) || s == close) {
      while (start < s && isspace((unsigned char)*start)) start++;
      const char *end = s;
      while (end > start && isspace((unsigned char)end[-1])) end--;
      snprintf(args[n++], 512, "%.*s", (int)(end - start), start);
      start = s + 1;
    }
  }
  return n;
}

static const char *strip_amp(const char *a) { return a[0] == '&' ? a + 1 : a; }

/* The first string literal(s) of a call, concatenated, up to the first
 * blank, ';', '{' or escape: the opcode. */
static void opcode_of(const char *open, char *out, size_t cap) {
  size_t n = 0;
  const char *s = strchr(open, '"');
  out[0] = '\0';
  if (!s) return;
  for (s++; *s && *s != '"' && *s != ' ' && *s != ';' && *s != '{' && *s != '\\' && n + 1 < cap; s++)
    out[n++] = *s;
  out[n] = '\0';
}

static const char *layout_token(const char *a) {
  if (strstr(a, "mem_row_major")) return "0";
  if (strstr(a, "mem_col_major")) return "1";
  return a;
}

/* Rewrites collectives and wmma calls of one dialect into canonical form. */
static void canonical_calls(const char *text, bool cuda, tcmma_buf *out) {
  const spelling *frag = row("FRAGMENT");
  char args[8][512], op[128];
  for (const char *s = text; *s;) {
    const char *open = NULL, *end = NULL;
    if (cuda && word_at(text, s, "asm") && strncmp(s, "asm(", 4) == 0) {
      /* a per-lane instruction on one "+r" register: @CVT(opcode, register)@ */
      open = s + 3;
      end = close_paren(open);
      const char *reg = strstr(open, "\"+r\"(");
      const char *reg_end = reg ? close_paren(reg + 4) : NULL;
      opcode_of(open, op, sizeof op);
      if (!reg_end || reg_end > end) fail_msg("asm without a \"+r\" operand: %.80s", s);
      tcmma_buf_printf(out, "@CVT(%s, %.*s)@", op, (int)(reg_end - reg - 5), reg + 5);
    } else if (!cuda && word_at(text, s, "tcmma_sim_cvt")) {
      open = strchr(s, '(');
      end = close_paren(open);
      opcode_of(open, op, sizeof op);
      if (split_args(open, end, args, 8) != 2) fail_msg("tcmma_sim_cvt takes 2 arguments: %.80s", s);
      tcmma_buf_printf(out, "@CVT(%s, %s)@", op, strip_amp(args[1]));
    } else if (cuda && word_at(text, s, "asm") && strncmp(s, "asm volatile(", 13) == 0) {
      open = s + 12;
      end = close_paren(open);
      opcode_of(open, op, sizeof op);
      const char *wg = collective("CP_WAIT_GROUP"), *at = strstr(open, wg);
      const char *setmax = row("KERNEL_ATTR_SETMAXNREG")->cuda;
      if (strcmp(op, wg) == 0 && at) /* its group count is part of the instruction */
        tcmma_buf_printf(out, "@COLL(%s %ld)@", op, strtol(at + strlen(wg), NULL, 10));
      else if (strncmp(op, setmax, strlen("setmaxnreg.")) == 0) /* and the register count */
        tcmma_buf_printf(out, "@COLL(%s %ld)@", op, strtol(strchr(open, ' '), NULL, 10));
      else
        tcmma_buf_printf(out, "@COLL(%s)@", op);
    } else if (cuda && word_at(text, s, frag->cuda) && s[strlen(frag->cuda)] == '<') {
      const char *t = s + strlen(frag->cuda);
      int depth = 0;
      for (; *t; t++) {
        if (*t == '<') depth++;
        if (*t == '>' && --depth == 0) break;
      }
      tcmma_buf_printf(out, "@FRAGMENT@");
      s = *t ? t + 1 : t;
      continue;
    } else if (!cuda && word_at(text, s, frag->host)) {
      tcmma_buf_printf(out, "@FRAGMENT@");
      s += strlen(frag->host);
      continue;
    } else if (!cuda && (word_at(text, s, "tcmma_sim_mma") ||
                         word_at(text, s, "tcmma_sim_mma_scaled") ||
                         word_at(text, s, "tcmma_sim_ldmatrix") ||
                         word_at(text, s, "tcmma_sim_cp_async") ||
                         word_at(text, s, "tcmma_sim_cp_async_zfill"))) {
      open = strchr(s, '(');
      end = close_paren(open);
      opcode_of(open, op, sizeof op);
      tcmma_buf_printf(out, "@COLL(%s)@", op);
    } else if (!cuda && word_at(text, s, row("KERNEL_ATTR_SETMAXNREG")->host)) {
      open = strchr(s, '(');
      end = close_paren(open);
      opcode_of(open, op, sizeof op);
      if (split_args(open, end, args, 8) == 2) tcmma_buf_printf(out, "@COLL(%s %s)@", op, args[1]);
    } else if (!cuda && word_at(text, s, "tcmma_sim_cp_async_commit")) {
      open = strchr(s, '(');
      end = close_paren(open);
      tcmma_buf_printf(out, "@COLL(%s)@", collective("CP_COMMIT"));
    } else if (!cuda && word_at(text, s, "tcmma_sim_cp_async_wait_group")) {
      open = strchr(s, '(');
      end = close_paren(open);
      if (split_args(open, end, args, 8) == 1)
        tcmma_buf_printf(out, "@COLL(%s %s)@", collective("CP_WAIT_GROUP"), args[0]);
    } else if (!cuda && word_at(text, s, "tcmma_sim_cp_async_wait_all")) {
      open = strchr(s, '(');
      end = close_paren(open);
      tcmma_buf_printf(out, "@COLL(%s)@", collective("CP_WAIT"));
    } else if (word_at(text, s, cuda ? "nvcuda::wmma::load_matrix_sync" : "tcmma_sim_wmma_load")) {
      open = strchr(s, '(');
      end = close_paren(open);
      int n = split_args(open, end, args, 8);
      if (cuda && n >= 3) tcmma_buf_printf(out, "@WMMA_LOAD(%s, %s, %s)@", args[0], args[1], args[2]);
      else if (n >= 4) tcmma_buf_printf(out, "@WMMA_LOAD(%s, %s, %s)@", strip_amp(args[0]), args[2], args[3]);
    } else if (word_at(text, s, cuda ? "nvcuda::wmma::mma_sync" : "tcmma_sim_wmma_mma")) {
      open = strchr(s, '(');
      end = close_paren(open);
      if (split_args(open, end, args, 8) == 4)
        tcmma_buf_printf(out, "@WMMA_MMA(%s, %s, %s, %s)@", strip_amp(args[0]), strip_amp(args[1]),
                         strip_amp(args[2]), strip_amp(args[3]));
    } else if (word_at(text, s, cuda ? "nvcuda::wmma::store_matrix_sync" : "tcmma_sim_wmma_store")) {
      open = strchr(s, '(');
      end = close_paren(open);
      if (split_args(open, end, args, 8) == 4)
        tcmma_buf_printf(out, "@WMMA_STORE(%s, %s, %s, %s)@", args[0], strip_amp(args[1]), args[2],
                         layout_token(args[3]));
    } else if (word_at(text, s, cuda ? "nvcuda::wmma::fill_fragment" : "tcmma_sim_wmma_fill")) {
      open = strchr(s, '(');
      end = close_paren(open);
      int n = split_args(open, end, args, 8);
      if (cuda && n == 2) tcmma_buf_printf(out, "@WMMA_FILL(%s, %s)@", args[0], args[1]);
      else if (n == 3) tcmma_buf_printf(out, "@WMMA_FILL(%s, %s)@", strip_amp(args[0]), args[2]);
    }
    if (open) {
      if (!end) fail_msg("unbalanced call at: %.80s", s);
      s = end + 1;
      continue;
    }
    tcmma_buf_append(out, s, 1);
    s++;
  }
}

/* Whether a row's host spelling is a plain C word the text also uses for
 * itself (then the CUDA spelling maps to it rather than both to @ID@). */
static bool host_is_plain(const spelling *sp) {
  return strcmp(sp->host, "void") == 0 || strcmp(sp->host, "float") == 0 ||
         strcmp(sp->cuda, sp->host) == 0;
}

static void spell(const char *text, bool cuda, tcmma_buf *out) {
  for (const char *s = text; *s;) {
    const spelling *best = NULL;
    size_t best_len = 0;
    for (int i = 0; i < NSPELL; i++) {
      const spelling *sp = &spellings[i];
      const char *w = cuda ? sp->cuda : sp->host;
      if (!cuda && host_is_plain(sp)) continue;
      if (strlen(w) > best_len && word_at(text, s, w)) best = sp, best_len = strlen(w);
    }
    if (!best) {
      tcmma_buf_append(out, s, 1);
      s++;
      continue;
    }
    if (host_is_plain(best)) tcmma_buf_printf(out, "%s", best->host);
    else tcmma_buf_printf(out, "@%s@", best->id);
    s += best_len;
  }
}

/* Drops what tcmma_render_includes writes for the plan (once, where the
 * kernel has it; no plan: every #include line, as a GEMM kernel includes the
 * vendor headers) and (host) the tcmma_kernel_entry definition with the
 * comment line just before it; trims trailing blank lines. */
static char *strip(const char *with_includes, const tcmma_plan *plan, bool cuda) {
  tcmma_buf inc = {0}, out = {0}, cut_inc = {0};
  if (plan) {
    if (tcmma_render_includes(RCTX(plan, cuda ? TCMMA_DIALECT_CUDA : TCMMA_DIALECT_HOST, NULL,
                                   &inc),
                              false, NULL) != TCMMA_OK)
      fail_msg("render_includes failed");
    const char *at = strstr(with_includes, tcmma_buf_str(&inc));
    if (!at) fail_msg("the kernel lacks what render_includes writes:\n%s", tcmma_buf_str(&inc));
    tcmma_buf_append(&cut_inc, with_includes, (size_t)(at - with_includes));
    tcmma_buf_printf(&cut_inc, "%s", at + inc.len);
  } else {
    /* and the wgmma kernel's helpers, each dialect's own (TMA and mbarrier,
     * the tile product, the drain: asm against the simulator's calls, run
     * by the GEMM matrix on the simulator and compiled by its compile
     * executor): the kernel after them is what must agree */
    bool helpers = false;
    for (const char *s = with_includes; *s;) {
      const char *eol = strchr(s, '\n');
      size_t len = eol ? (size_t)(eol - s + 1) : strlen(s);
      if (strncmp(s, TCMMA__GEMM_HELPERS_BEGIN, strlen(TCMMA__GEMM_HELPERS_BEGIN)) == 0)
        helpers = true;
      if (!helpers && strncmp(s, "#include ", 9) != 0) tcmma_buf_append(&cut_inc, s, len);
      if (strncmp(s, TCMMA__GEMM_HELPERS_END, strlen(TCMMA__GEMM_HELPERS_END)) == 0)
        helpers = false;
      s += len;
    }
  }
  const char *text = tcmma_buf_str(&cut_inc);
  const char *entry = cuda ? NULL : strstr(text, "void tcmma_kernel_entry(");
  const char *cut = entry;
  if (entry) {
    /* back over blank lines and one comment line */
    const char *line = entry;
    while (line > text) {
      const char *prev = line - 1;
      while (prev > text && prev[-1] != '\n') prev--;
      bool blank = strspn(prev, " \t") == (size_t)(line - 1 - prev);
      bool comment = strncmp(prev, "/*", 2) == 0;
      if (!blank && !comment) break;
      line = prev;
      if (comment) break;
    }
    cut = line;
  }
  for (const char *s = text; *s && (!cut || s < cut);) {
    const char *eol = strchr(s, '\n');
    size_t len = eol ? (size_t)(eol - s + 1) : strlen(s);
    tcmma_buf_append(&out, s, len);
    s += len;
  }
  if (entry) {
    const char *brace = strchr(entry, '{');
    int depth = 0;
    const char *s = brace;
    for (; s && *s; s++) {
      if (*s == '{') depth++;
      if (*s == '}' && --depth == 0) break;
    }
    if (s && *s) tcmma_buf_printf(&out, "%s", s + 1);
  }
  char *r = strdup(tcmma_buf_str(&out));
  tcmma_buf_free(&out), tcmma_buf_free(&inc), tcmma_buf_free(&cut_inc);
  size_t n = strlen(r);
  while (n && isspace((unsigned char)r[n - 1])) r[--n] = '\0';
  return r;
}

static char *normalize(const char *text, const tcmma_plan *plan, bool cuda) {
  char *stripped = strip(text, plan, cuda);
  tcmma_buf calls = {0}, spelled = {0};
  canonical_calls(stripped, cuda, &calls);
  spell(tcmma_buf_str(&calls), cuda, &spelled);
  char *r = strdup(tcmma_buf_str(&spelled));
  free(stripped);
  tcmma_buf_free(&calls);
  tcmma_buf_free(&spelled);
  return r;
}

/* First differing line of two texts, for the failure message. */
static void first_difference(const char *a, const char *b, char *msg, size_t cap) {
  int line = 1;
  const char *la = a, *lb = b;
  while (*a && *a == *b) {
    if (*a == '\n') line++, la = a + 1, lb = b + 1;
    a++, b++;
  }
  snprintf(msg, cap, "line %d:\n  cuda: %.200s\n  host: %.200s", line, la, lb);
  for (char *s = msg; *s; s++)
    if (*s == '\n' && s[1] != ' ') *s = ' ';
}

static void render(const tcmma_plan *plan, const verify_case *c, tcmma_dialect dl, tcmma_buf *out) {
  tcmma_error err;
  tcmma_kernel_opts opts = verify_case_kernel_opts(c);
  if (tcmma_render_kernel(RCTX(plan, dl, NULL, out), &opts, &err) != TCMMA_OK)
    fail_msg("render (%s): %s", dl == TCMMA_DIALECT_HOST ? "host" : "cuda", err.message);
}

/* The rendering c (CUDA) and h (host) of `name` agree once normalized (plan:
 * the one-warp plan, NULL for a GEMM), and nothing dialect-specific is left;
 * both are freed. */
static void agree_in_spelling(const char *name, const tcmma_plan *plan, tcmma_buf *c,
                              tcmma_buf *h) {
  char *nc = normalize(tcmma_buf_str(c), plan, true);
  char *nh = normalize(tcmma_buf_str(h), plan, false);
  if (strcmp(nc, nh) != 0) {
    char msg[700];
    first_difference(nc, nh, msg, sizeof msg);
    fail_msg("%s: the dialects differ beyond spelling at %s", name, msg);
  }
  assert_null(strstr(nc, "asm"));
  assert_null(strstr(nh, "tcmma_sim_"));
  assert_null(strstr(nc, "nvcuda::"));
  /* a GEMM's copies keep their wait_group counts through normalizing */
  if (!plan && strstr(tcmma_buf_str(c), "cp.async.wait_group "))
    assert_non_null(strstr(nc, "@COLL(cp.async.wait_group "));
  free(nc), free(nh);
  tcmma_buf_free(c), tcmma_buf_free(h);
}

static void dialects_differ_only_in_spelling(void **state) {
  (void)state;
  const verify_case *cs;
  size_t n = verify_matrix(&cs), compared = 0;
  for (size_t i = 0; i < n; i++) {
    if (cs[i].expect != TCMMA_DECLINE_NONE) continue;
    tcmma_plan plan;
    tcmma_error err;
    if (tcmma_plan_call(&cs[i].call, &plan, &err) != TCMMA_OK)
      fail_msg("%s: plan: %s", cs[i].name, err.message);
    tcmma_buf c = {0}, h = {0};
    render(&plan, &cs[i], TCMMA_DIALECT_CUDA, &c);
    render(&plan, &cs[i], TCMMA_DIALECT_HOST, &h);
    /* The dialects do differ before normalizing. */
    assert_true(strcmp(tcmma_buf_str(&c), tcmma_buf_str(&h)) != 0);
    agree_in_spelling(cs[i].name, &plan, &c, &h);
    compared++;
  }
  if (compared < 200) fail_msg("only %zu cases compared", compared);
}

/* The same for every accepted GEMM kernel (tcmma_render_gemm, named
 * tcmma_kernel like the matrix's): the block simulator runs the very text
 * NVRTC compiles, copies with zero fill and wait_group counts included. */
static void gemm_dialects_differ_only_in_spelling(void **state) {
  (void)state;
  const verify_gemm_case *cs;
  size_t n = verify_gemm_matrix(&cs), compared = 0;
  for (size_t i = 0; i < n; i++) {
    tcmma_gemm_plan plan;
    verify_case_result r = {0};
    if (!verify_gemm_case_plan(&cs[i], &plan, &r)) continue;
    tcmma_buf c = {0}, h = {0};
    tcmma_error err;
    assert_int_equal(tcmma_render_gemm_opts(RCTX(NULL, TCMMA_DIALECT_CUDA, NULL, &c), &plan,
                                            &cs[i].opts, &err),
                     TCMMA_OK);
    assert_int_equal(tcmma_render_gemm_opts(RCTX(NULL, TCMMA_DIALECT_HOST, NULL, &h), &plan,
                                            &cs[i].opts, &err),
                     TCMMA_OK);
    agree_in_spelling(cs[i].name, NULL, &c, &h);
    compared++;
  }
  assert_true(compared >= 8);
}

/* The normalizer can fail: a host text with one index changed, or with a
 * collective's opcode changed, no longer matches. */
static void normalizer_sees_differences(void **state) {
  (void)state;
  const verify_case *cs;
  size_t n = verify_matrix(&cs);
  bool did_index = false, did_opcode = false;
  for (size_t i = 0; i < n && !(did_index && did_opcode); i++) {
    if (cs[i].expect != TCMMA_DECLINE_NONE) continue;
    tcmma_plan plan;
    tcmma_error err;
    assert_int_equal(tcmma_plan_call(&cs[i].call, &plan, &err), TCMMA_OK);
    tcmma_buf c = {0}, h = {0};
    render(&plan, &cs[i], TCMMA_DIALECT_CUDA, &c);
    render(&plan, &cs[i], TCMMA_DIALECT_HOST, &h);
    char *host = strdup(tcmma_buf_str(&h));
    char *p = strstr(host, "+ 8");
    char *q = strstr(host, "row.col");
    if (p && !did_index) {
      p[2] = '9';
      did_index = true;
    } else if (q && !did_opcode) {
      q[0] = 'c', q[1] = 'o', q[2] = 'l';
      did_opcode = true;
    } else {
      free(host), tcmma_buf_free(&c), tcmma_buf_free(&h);
      continue;
    }
    char *nc = normalize(tcmma_buf_str(&c), &plan, true), *nh = normalize(host, &plan, false);
    assert_true(strcmp(nc, nh) != 0);
    free(nc), free(nh), free(host);
    tcmma_buf_free(&c), tcmma_buf_free(&h);
  }
  assert_true(did_index && did_opcode);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(dialects_differ_only_in_spelling),
      cmocka_unit_test(normalizer_sees_differences),
      cmocka_unit_test(gemm_dialects_differ_only_in_spelling),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
