/* The PTX reader on real modules (tests/data/ptx/README.md: nvcc, NVRTC,
 * LLVM and hand-written PTX from open projects), with every expected value
 * derived without it: header directives, entries and the instruction census
 * by a regex extractor written here, and what a module's targets hold by
 * ptxas (docs/design.md §13), at every target ptxas lists:
 *   as it is:  ptxas -arch T accepts it  <=>  tcmma_ptx_check_on(T)
 *              (and target_ok <=> some T accepts it);
 *   retargeted (.target T, ptxas's highest .version): ptxas accepts it
 *              <=>  tcmma_ptx_check_target.
 * The runs use ptxas's parse-only virtual targets (compute_<T>), which report
 * the same target errors as sm_<T> (tests/test_ptx_probe.c runs sm_<T>) in a
 * fraction of the time on large modules. */
#include <dirent.h>
#include <regex.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "util.h"
#include "tcmma/tcmma.h"

#define TARGETS_MAX 64
#define MODULES_MAX 32

/* ---- the independent extractor ---- */

/* text with comments and string contents blanked (newlines kept). */
static char *strip(const char *text) {
  char *s = strdup(text);
  assert_non_null(s);
  for (char *p = s; *p; p++) {
    if (p[0] == '/' && p[1] == '/')
      while (*p && *p != '\n') *p++ = ' ';
    else if (p[0] == '/' && p[1] == '*')
      for (; *p && !(p[0] == '*' && p[1] == '/'); p++) *p = *p == '\n' ? '\n' : ' ';
    else if (*p == '"')
      for (p++; *p && *p != '"'; p++) *p = ' ';
    if (!*p) break;
    if (p[0] == '*' && p[1] == '/') p[0] = p[1] = ' ';
  }
  return s;
}

static bool first_match(const char *text, const char *pattern, char *out, size_t cap) {
  regex_t re;
  regmatch_t m[2];
  assert_int_equal(regcomp(&re, pattern, REG_EXTENDED), 0);
  bool found = regexec(&re, text, 2, m, 0) == 0;
  if (found) snprintf(out, cap, "%.*s", (int)(m[1].rm_eo - m[1].rm_so), text + m[1].rm_so);
  regfree(&re);
  return found;
}

typedef struct {
  char *opcode;
  size_t count;
} tally;

typedef struct {
  char version[16], target[32], address_size[8];
  char **entries;
  size_t n_entries;
  tally *ops;
  size_t n_ops, instructions;
} extracted;

static void count_op(extracted *x, const char *op, size_t n) {
  for (size_t i = 0; i < x->n_ops; i++)
    if (strlen(x->ops[i].opcode) == n && strncmp(x->ops[i].opcode, op, n) == 0) {
      x->ops[i].count++;
      x->instructions++;
      return;
    }
  x->ops = realloc(x->ops, (x->n_ops + 1) * sizeof *x->ops);
  x->ops[x->n_ops++] = (tally){strndup(op, n), 1};
  x->instructions++;
}

/* Statements end at ';', but the directives PTX writes without one end at
 * their line, and a function header runs to its '{'. In each chunk between
 * two ';', lines are skipped while they are blank, labels, braces,
 * parentheses, line directives or a function header; then a line that starts
 * with '.' makes the chunk a directive, and any other holds the instruction:
 * an optional guard, then the opcode. */
static void extract(const char *text, extracted *x) {
  memset(x, 0, sizeof *x);
  char *s = strip(text);
  first_match(s, "\\.version[[:space:]]+([0-9]+\\.[0-9]+)", x->version, sizeof x->version);
  first_match(s, "\\.target[[:space:]]+([A-Za-z0-9_]+)", x->target, sizeof x->target);
  first_match(s, "\\.address_size[[:space:]]+([0-9]+)", x->address_size, sizeof x->address_size);
  regex_t entry, op, line_directive;
  assert_int_equal(regcomp(&line_directive,
                           "^\\.(loc|file|version|target|address_size|maxntid|reqntid|minnctapersm|"
                           "maxnctapersm|maxnreg|noreturn|explicitcluster|reqnctapercluster|"
                           "maxclusterrank|blocksareclusters)([^A-Za-z0-9_]|$)",
                           REG_EXTENDED | REG_NOSUB),
                   0);
  assert_int_equal(regcomp(&entry, "\\.entry[[:space:]]+([A-Za-z_$][A-Za-z0-9_$]*)", REG_EXTENDED), 0);
  assert_int_equal(regcomp(&op, "^[[:space:]]*(@!?%?[A-Za-z0-9_]+[[:space:]]+)?([a-z][a-z0-9_]*(\\.[A-Za-z0-9_:]+)*)",
                           REG_EXTENDED),
                   0);
  regmatch_t m[4];
  for (const char *p = s; regexec(&entry, p, 2, m, 0) == 0; p += m[0].rm_eo) {
    x->entries = realloc(x->entries, (x->n_entries + 1) * sizeof *x->entries);
    x->entries[x->n_entries++] = strndup(p + m[1].rm_so, (size_t)(m[1].rm_eo - m[1].rm_so));
  }
  char *save = NULL;
  for (char *chunk = strtok_r(s, ";", &save); chunk; chunk = strtok_r(NULL, ";", &save)) {
    char *s2 = NULL;
    bool header = false;
    for (char *line = strtok_r(chunk, "\n", &s2); line; line = strtok_r(NULL, "\n", &s2)) {
      while (*line == ' ' || *line == '\t' || *line == '\r') line++;
      size_t n = strlen(line);
      while (n && (line[n - 1] == ' ' || line[n - 1] == '\t' || line[n - 1] == '\r')) n--;
      if (header) {
        header = line[0] != '{';
        continue;
      }
      /* "{ cvt.rn.f16.f32 %rs1, %f1;}": a block opened on the instruction's line */
      while (n && (line[0] == '{' || line[0] == '}' || line[0] == ' ' || line[0] == '\t')) line++, n--;
      if (!n || strchr("()", line[0]) || line[n - 1] == ':' ||
          regexec(&line_directive, line, 0, NULL, 0) == 0)
        continue;
      if (line[0] == '.' && (strstr(line, ".entry") || strstr(line, ".func"))) {
        header = !strchr(line, '{');
        continue;
      }
      if (line[0] != '.' && regexec(&op, line, 4, m, 0) == 0)
        count_op(x, line + m[2].rm_so, (size_t)(m[2].rm_eo - m[2].rm_so));
      break;
    }
  }
  regfree(&entry);
  regfree(&op);
  regfree(&line_directive);
  free(s);
}

static void extracted_free(extracted *x) {
  for (size_t i = 0; i < x->n_entries; i++) free(x->entries[i]);
  for (size_t i = 0; i < x->n_ops; i++) free(x->ops[i].opcode);
  free(x->entries), free(x->ops);
}

/* ---- the corpus ---- */

typedef struct {
  char name[128];
  char *text;
  size_t len;
  tcmma_ptx_info info;
} module;

static module mods[MODULES_MAX];
static size_t n_mods;

static int load(void **state) {
  (void)state;
  DIR *d = opendir(src_path("tests/data/ptx"));
  if (!d) return -1;
  for (struct dirent *e; (e = readdir(d)) && n_mods < MODULES_MAX;) {
    size_t n = strlen(e->d_name);
    if (n < 5 || strcmp(e->d_name + n - 4, ".ptx") != 0) continue;
    module *m = &mods[n_mods++];
    snprintf(m->name, sizeof m->name, "%s", e->d_name);
    char rel[256];
    snprintf(rel, sizeof rel, "tests/data/ptx/%s", e->d_name);
    m->text = read_file(src_path(rel), &m->len);
    if (!m->text || tcmma_ptx_parse(m->text, m->len, &m->info, NULL) != TCMMA_OK) {
      print_message("%s: cannot read it as PTX\n", rel);
      return -1;
    }
  }
  closedir(d);
  return n_mods ? 0 : -1;
}

static int unload(void **state) {
  (void)state;
  for (size_t i = 0; i < n_mods; i++) free(mods[i].text), tcmma_ptx_info_free(&mods[i].info);
  return 0;
}

static void reader_matches_extractor(void **state) {
  (void)state;
  size_t instructions = 0;
  for (size_t k = 0; k < n_mods; k++) {
    module *m = &mods[k];
    extracted x;
    extract(m->text, &x);
    char version[16];
    snprintf(version, sizeof version, "%d.%d", m->info.version_major, m->info.version_minor);
    assert_string_equal(version, x.version);
    assert_string_equal(m->info.target, x.target);
    assert_int_equal(m->info.address_size, atoi(x.address_size));
    assert_int_equal(m->info.entry_count, x.n_entries);
    for (size_t i = 0; i < x.n_entries; i++) assert_string_equal(m->info.entries[i], x.entries[i]);
    for (size_t i = 0; i < x.n_ops; i++) {
      size_t got = 0;
      for (size_t j = 0; j < m->info.census_count; j++)
        if (strcmp(m->info.census[j].opcode, x.ops[i].opcode) == 0) got = m->info.census[j].count;
      if (got != x.ops[i].count)
        fail_msg("%s: %s counted %zu, the extractor %zu", m->name, x.ops[i].opcode, got, x.ops[i].count);
    }
    if (m->info.instruction_count != x.instructions || m->info.census_count != x.n_ops)
      fail_msg("%s: %zu instructions, %zu opcodes; the extractor: %zu, %zu", m->name,
               m->info.instruction_count, m->info.census_count, x.instructions, x.n_ops);
    instructions += x.instructions;
    extracted_free(&x);
  }
  print_message("ptx corpus: %zu modules, %zu instructions read alike\n", n_mods, instructions);
}

/* m's text with its .target arch replaced by target and .version by version. */
static char *retarget(const module *m, const char *target, int version) {
  const char *t = strstr(m->text, ".target");
  const char *v = strstr(m->text, ".version");
  assert_non_null(t);
  assert_non_null(v);
  assert_true(v < t);
  const char *arch = t + 7;
  while (*arch == ' ' || *arch == '\t') arch++;
  const char *arch_end = arch;
  while ((*arch_end >= 'a' && *arch_end <= 'z') || (*arch_end >= '0' && *arch_end <= '9') || *arch_end == '_')
    arch_end++;
  const char *v_end = strchr(v, '\n');
  size_t cap = m->len + 64;
  char *out = malloc(cap);
  assert_non_null(out);
  snprintf(out, cap, "%.*s.version %d.%d%.*s%s%s", (int)(v - m->text), m->text, version / 10,
           version % 10, (int)(arch - v_end), v_end, target, arch_end);
  return out;
}

static void compute_of(const char *target, char *arch, size_t cap) {
  snprintf(arch, cap, "compute_%s", target + 3);
}

/* Whether the module's required target is exact: the lowest ptxas target
 * its instructions fit (lowest, "" for none), as ptxas answered for the
 * module retargeted, is the required one (sm_N for a plain requirement,
 * sm_Na for an a or a|f one, no target for none; a floor below ptxas's
 * oldest target reads as that target). */
static bool required_is_exact(const tcmma_ptx_info *info, const char *lowest, const char *oldest) {
  char want[32];
  if (info->no_target) snprintf(want, sizeof want, "%s", "");
  else if (info->required_sm < TCMMA_PTXAS_SM_MIN) snprintf(want, sizeof want, "%s", oldest);
  else snprintf(want, sizeof want, "sm_%d%s", info->required_sm,
                info->required_suffix == TCMMA_PTX_SUFFIX_ANY ? "" : "a");
  if (strcmp(want, lowest) == 0) return true;
  char req[48];
  tcmma_ptx_required_text(info, req, sizeof req);
  print_message("required target %s (by %s), but the lowest target ptxas assembles it for is %s\n",
                req, info->required_by ? info->required_by : "-", *lowest ? lowest : "none");
  return false;
}

static void targets_agree_with_ptxas(void **state) {
  (void)state;
  if (!ptxas_path()) {
    print_message("ptxas not found under %s: skipped\n", cuda_home());
    skip();
  }
  static char targets[TARGETS_MAX][16];
  static char archs[TARGETS_MAX][24];
  size_t nt = ptxas_targets(targets, TARGETS_MAX);
  assert_true(nt >= 2);
  for (size_t t = 0; t < nt; t++) compute_of(targets[t], archs[t], sizeof archs[t]);
  int version = ptxas_top_version();
  assert_true(version > 0);
  size_t nj = n_mods * nt * 2, agree_on = 0, agree_held = 0, agree_ok = 0, exact = 0, bad = 0;
  ptxas_job *jobs = calloc(nj, sizeof *jobs);
  char **texts = calloc(nj, sizeof *texts);
  for (size_t k = 0, j = 0; k < n_mods; k++)
    for (size_t t = 0; t < nt; t++, j += 2) {
      jobs[j] = (ptxas_job){.text = mods[k].text, .len = mods[k].len, .arch = archs[t]};
      texts[j + 1] = retarget(&mods[k], targets[t], version);
      jobs[j + 1] = (ptxas_job){.text = texts[j + 1], .len = strlen(texts[j + 1]), .arch = archs[t]};
    }
  ptxas_run(jobs, nj);
  for (size_t k = 0, j = 0; k < n_mods; k++) {
    bool loads_somewhere = false;
    const char *lowest = "";
    for (size_t t = 0; t < nt; t++, j += 2) {
      if (!*lowest && jobs[j + 1].rc == 0) lowest = targets[t];
      int sm;
      char suffix;
      assert_int_equal(tcmma_ptx_target_parse(targets[t], &sm, &suffix, NULL), TCMMA_OK);
      tcmma_error why;
      bool ptxas_on = jobs[j].rc == 0, ours_on = tcmma_ptx_check_on(&mods[k].info, sm, suffix, &why) == TCMMA_OK;
      loads_somewhere = loads_somewhere || ptxas_on;
      if (ptxas_on == ours_on) agree_on++;
      else print_message("%s on %s: ptxas %s, check_on %s (%s)\n%.400s\n", mods[k].name, targets[t],
                         ptxas_on ? "loads it" : "refuses it", ours_on ? "loads it" : "refuses it",
                         ours_on ? "" : why.message, jobs[j].log), bad++;
      tcmma_ptx_info re;
      assert_int_equal(tcmma_ptx_parse(texts[j + 1], strlen(texts[j + 1]), &re, NULL), TCMMA_OK);
      bool ptxas_holds = jobs[j + 1].rc == 0, ours_holds = tcmma_ptx_check_target(&re, &why) == TCMMA_OK;
      if (ptxas_holds == ours_holds) agree_held++;
      else print_message("%s as .target %s: ptxas %s, target_ok %s (%s)\n%.400s\n", mods[k].name,
                         targets[t], ptxas_holds ? "accepts" : "refuses",
                         ours_holds ? "true" : "false", ours_holds ? "" : why.message,
                         jobs[j + 1].log), bad++;
      tcmma_ptx_info_free(&re);
      free(texts[j + 1]);
    }
    if (required_is_exact(&mods[k].info, lowest, targets[0])) exact++;
    else print_message("  in %s\n", mods[k].name), bad++;
    tcmma_error why;
    bool ours_ok = tcmma_ptx_check_target(&mods[k].info, &why) == TCMMA_OK;
    if (ours_ok == loads_somewhere) agree_ok++;
    else print_message("%s: target_ok %d, ptxas loads it on %s target\n", mods[k].name, ours_ok,
                       loads_somewhere ? "some" : "no"), bad++;
  }
  print_message("ptx corpus: target_ok agrees with ptxas on %zu of %zu modules; check_on on %zu of "
                "%zu (module, target) pairs; retargeted, %zu of %zu; the required target is "
                "exact on %zu of %zu modules\n",
                agree_ok, n_mods, agree_on, n_mods * nt, agree_held, n_mods * nt, exact, n_mods);
  ptxas_jobs_free(jobs, nj);
  free(jobs), free(texts);
  if (bad) fail_msg("%zu disagreements with ptxas (listed above)", bad);
}

/* tcmma ptx --check on a real module: exit 0/1 and what blocks it. */
static void cli_check(void **state) {
  (void)state;
  const char *f = "tests/data/ptx/nvcc_cute_wgmma_tma_sm90a.ptx";
  cli_result r = run_cli((const char *const[]){"ptx", f, "--check", "sm_90a", NULL}, NULL);
  assert_int_equal(r.exit_code, 0);
  assert_non_null(strstr(r.out, "check sm_90a    loads"));
  cli_result_free(&r);
  r = run_cli((const char *const[]){"ptx", f, "--check", "sm_100a", "--json", NULL}, NULL);
  assert_int_equal(r.exit_code, 1);
  assert_non_null(strstr(r.out, "\"ok\": false"));
  assert_non_null(strstr(r.out, "runs on itself only"));
  assert_non_null(strstr(r.out, "\"opcode\": \"wgmma.fence.sync.aligned\""));
  assert_non_null(strstr(r.out, "\"needs\": \"sm_90a\""));
  cli_result_free(&r);
  r = run_cli((const char *const[]){"ptx", f, "--check", "sm_90f", NULL}, NULL);
  assert_int_equal(r.exit_code, 2);
  assert_non_null(strstr(r.err, "sm_90f"));
  cli_result_free(&r);
  r = run_cli((const char *const[]){"ptx", f, "--check", NULL}, NULL);
  assert_int_equal(r.exit_code, 2);
  cli_result_free(&r);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(reader_matches_extractor),
      cmocka_unit_test(targets_agree_with_ptxas),
      cmocka_unit_test(cli_check),
  };
  return cmocka_run_group_tests_name("ptx_corpus", tests, load, unload);
}
