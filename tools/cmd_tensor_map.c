/* tcmma tensor-map: a TMA tensor map checked against the encoder's rules
 * (tables/tensor_map.def), printed, or its one-box test kernel rendered. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "cli.h"
#include "tables/decimal.h"
#include "tcmma/tcmma.h"

#define CMD "tensor-map"

static const char help[] =
    "usage: tcmma tensor-map --prec P --dims D0[,D1..] --box B0[,B1..] [--strides S0[,..]]\n"
    "                        [--estrides E0[,..]] [--address N] [--interleave none|16|32]\n"
    "                        [--swizzle none|32|64|128] [--l2 none|64|128|256] [--oob zero|nan]\n"
    "                        [--kernel [--dialect cuda|host]] [--json]\n"
    "       tcmma tensor-map --rules [--json]\n\n"
    "Checks a TMA tensor map (dimension 0 innermost: a row-major R x C matrix is --dims C,R)\n"
    "against cuTensorMapEncodeTiled's rules as tcmma holds them before the driver does\n"
    "(tables/tensor_map.def, from CUDA's cuda.h), then prints it with the bytes one box\n"
    "lands, or names the first broken rule. --strides defaults to dense rows; --estrides to\n"
    "1s. --kernel prints the one-box test kernel of the TMA and mbarrier pieces instead\n"
    "(tcmma_render_tma_kernel). --rules lists the rules.\n\n"
    "--json prints {\"valid\", \"rule\", \"message\", \"box_bytes\", \"map\": {\"prec\", \"rank\",\n"
    "\"address\", \"dims\", \"strides\", \"box\", \"element_strides\", \"interleave\", \"swizzle\",\n"
    "\"l2_promotion\", \"oob_fill\"}} (rule and message null when valid); --rules --json\n"
    "{\"rules\": [{\"name\", \"rule\"}]}.\n\n"
    "Exit status: 0 valid; 3 a rule is broken (named on stderr); 2 usage error.\n";

/* Up to max comma-separated decimals in [lo, hi] into v; the count, or -1
 * after a usage message. */
static int numbers(const char *opt, const char *text, unsigned long long lo,
                   unsigned long long hi, unsigned long long *v, int max) {
  int n = 0;
  char buf[256];
  if (strlen(text) >= sizeof buf) return cli_usage(CMD, "%s: '%s' is too long", opt, text), -1;
  snprintf(buf, sizeof buf, "%s", text);
  for (char *save = NULL, *tok = strtok_r(buf, ",", &save); tok; tok = strtok_r(NULL, ",", &save)) {
    long long x;
    if (n == max || !tcmma__table_decimal(tok, (long long)lo, (long long)hi, &x))
      return cli_usage(CMD, "%s '%s': expected at most %d comma-separated integers from %llu to "
                       "%llu", opt, text, max, lo, hi), -1;
    v[n++] = (unsigned long long)x;
  }
  if (n == 0) return cli_usage(CMD, "%s '%s': expected a number", opt, text), -1;
  return n;
}

static void json_list(json_writer *w, const char *key, const unsigned long long *v, int n) {
  json_key(w, key), json_begin_array(w);
  for (int i = 0; i < n; i++) json_int(w, (long long)v[i]);
  json_end_array(w);
}

static void print_json(const tcmma_tensor_map *m, tcmma_status s, tcmma_tmap_rule rule,
                       const char *message) {
  json_writer w;
  json_init(&w, stdout);
  json_begin_object(&w);
  json_key(&w, "valid"), json_bool(&w, s == TCMMA_OK);
  json_key(&w, "rule"), json_string(&w, s == TCMMA_OK ? NULL : tcmma_tensor_map_rule_name(rule));
  json_key(&w, "message"), json_string(&w, s == TCMMA_OK ? NULL : message);
  json_key(&w, "box_bytes"), json_int(&w, tcmma_tensor_map_box_bytes(m));
  json_key(&w, "map"), json_begin_object(&w);
  json_key(&w, "prec"), json_string(&w, tcmma_prec_name(m->prec));
  json_key(&w, "rank"), json_int(&w, m->rank);
  json_key(&w, "address"), json_int(&w, (long long)m->address);
  unsigned long long box[TCMMA_TMAP_RANK_MAX], es[TCMMA_TMAP_RANK_MAX];
  for (int i = 0; i < m->rank; i++) box[i] = m->box[i], es[i] = m->element_strides[i];
  json_list(&w, "dims", m->dims, m->rank);
  json_list(&w, "strides", m->strides, m->rank - 1);
  json_list(&w, "box", box, m->rank);
  json_list(&w, "element_strides", es, m->rank);
  json_key(&w, "interleave"), json_string(&w, tcmma_tmap_interleave_name(m->interleave));
  json_key(&w, "swizzle"), json_string(&w, tcmma_swizzle_name(m->swizzle));
  json_key(&w, "l2_promotion"), json_string(&w, tcmma_tmap_l2_name(m->l2_promotion));
  json_key(&w, "oob_fill"), json_string(&w, tcmma_tmap_oob_name(m->oob_fill));
  json_end_object(&w);
  json_end_object(&w);
  json_finish(&w);
}

static void print_text(const tcmma_tensor_map *m) {
  printf("tensor map: %s, rank %d, address %llu\n", tcmma_prec_name(m->prec), m->rank, m->address);
  const char *names[4] = {"dims", "strides", "box", "element strides"};
  for (int row = 0; row < 4; row++) {
    printf("  %-16s", names[row]);
    for (int i = 0; i < m->rank - (row == 1); i++)
      printf(" %llu", row == 0 ? m->dims[i] : row == 1 ? m->strides[i]
                      : row == 2 ? m->box[i] : m->element_strides[i]);
    printf(row == 1 ? " (bytes)\n" : "\n");
  }
  printf("  interleave %s, swizzle %s, l2 promotion %s, oob fill %s\n",
         tcmma_tmap_interleave_name(m->interleave), tcmma_swizzle_name(m->swizzle),
         tcmma_tmap_l2_name(m->l2_promotion), tcmma_tmap_oob_name(m->oob_fill));
  printf("valid: every rule holds; one box lands %lld bytes (its expect_tx)\n",
         tcmma_tensor_map_box_bytes(m));
}

static int print_rules(bool json) {
  json_writer w;
  if (json) json_init(&w, stdout), json_begin_object(&w), json_key(&w, "rules"), json_begin_array(&w);
  for (int r = 0; r < TCMMA_TMAP_RULE_COUNT; r++) {
    const char *name = tcmma_tensor_map_rule_name(r), *text = tcmma_tensor_map_rule_text(r);
    if (!json) {
      printf("%-20s %s\n", name, text);
      continue;
    }
    json_begin_object(&w);
    json_key(&w, "name"), json_string(&w, name);
    json_key(&w, "rule"), json_string(&w, text);
    json_end_object(&w);
  }
  if (json) json_end_array(&w), json_end_object(&w), json_finish(&w);
  return CLI_OK;
}

typedef struct {
  bool json, kernel, rules, strides_given;
  tcmma_dialect dialect;
  int n_dims, n_box, n_es;
} tmap_args;

/* One option (argv[*i]) into m and a; false after a usage message. */
static bool option(int argc, char **argv, int *i, tcmma_tensor_map *m, tmap_args *a) {
  const char *o = argv[*i], *v;
  unsigned long long tmp[TCMMA_TMAP_RANK_MAX];
  tcmma_error err;
  if (strcmp(o, "--json") == 0) return a->json = true;
  if (strcmp(o, "--kernel") == 0) return a->kernel = true;
  if (strcmp(o, "--rules") == 0) return a->rules = true;
  static const char *const valued[] = {"--prec", "--swizzle", "--interleave", "--l2", "--oob",
                                       "--dialect", "--address", "--dims", "--strides", "--box",
                                       "--estrides"};
  bool known = false;
  for (size_t k = 0; k < sizeof valued / sizeof valued[0]; k++) known = known || !strcmp(o, valued[k]);
  if (!known)
    return cli_usage(CMD, o[0] == '-' ? "unknown option '%s'" : "unexpected argument '%s'", o), false;
  if (!(v = cli_value(CMD, argc, argv, i))) return false;
  int n = 0;
  tcmma_status s = TCMMA_OK;
  if (strcmp(o, "--prec") == 0) s = tcmma_prec_parse(v, &m->prec, &err);
  else if (strcmp(o, "--swizzle") == 0) s = tcmma_swizzle_parse(v, &m->swizzle, &err);
  else if (strcmp(o, "--interleave") == 0) s = tcmma_tmap_interleave_parse(v, &m->interleave, &err);
  else if (strcmp(o, "--l2") == 0) s = tcmma_tmap_l2_parse(v, &m->l2_promotion, &err);
  else if (strcmp(o, "--oob") == 0) s = tcmma_tmap_oob_parse(v, &m->oob_fill, &err);
  else if (strcmp(o, "--dialect") == 0) {
    if (strcmp(v, "cuda") && strcmp(v, "host"))
      return cli_usage(CMD, "--dialect '%s': expected cuda or host", v), false;
    a->dialect = strcmp(v, "host") == 0 ? TCMMA_DIALECT_HOST : TCMMA_DIALECT_CUDA;
  } else if (strcmp(o, "--address") == 0) {
    if ((n = numbers(o, v, 0, (1ULL << 62), tmp, 1)) < 0) return false;
    m->address = tmp[0];
  } else if (strcmp(o, "--dims") == 0) {
    if ((a->n_dims = numbers(o, v, 0, (1ULL << 40), m->dims, TCMMA_TMAP_RANK_MAX)) < 0) return false;
  } else if (strcmp(o, "--strides") == 0) {
    if ((n = numbers(o, v, 0, (1ULL << 50), m->strides, TCMMA_TMAP_RANK_MAX - 1)) < 0) return false;
    a->strides_given = true;
  } else if (strcmp(o, "--box") == 0 || strcmp(o, "--estrides") == 0) {
    bool box = o[2] == 'b';
    if ((n = numbers(o, v, 0, 1u << 20, tmp, TCMMA_TMAP_RANK_MAX)) < 0) return false;
    for (int k = 0; k < n; k++) (box ? m->box : m->element_strides)[k] = (unsigned)tmp[k];
    *(box ? &a->n_box : &a->n_es) = n;
  }
  if (s != TCMMA_OK) return cli_usage(CMD, "%s", err.message), false;
  return true;
}

int cmd_tensor_map(int argc, char **argv) {
  tcmma_tensor_map m = tcmma_tensor_map_default();
  m.prec = TCMMA_PREC_COUNT; /* required */
  tmap_args a = {.dialect = TCMMA_DIALECT_CUDA};
  for (int i = 1; i < argc; i++) {
    if (cli_is_help(argv[i])) return fputs(help, stdout), CLI_OK;
    if (!option(argc, argv, &i, &m, &a)) return CLI_USAGE;
  }
  if (a.rules) return print_rules(a.json);
  if (m.prec == TCMMA_PREC_COUNT || !a.n_dims || !a.n_box)
    return cli_usage(CMD, "--prec, --dims and --box are required (tcmma tensor-map --help)");
  if (a.n_box != a.n_dims || (a.n_es && a.n_es != a.n_dims))
    return cli_usage(CMD, "--dims gives %d dimensions, --box %d, --estrides %d: expected the same "
                     "count (--estrides may be left out)", a.n_dims, a.n_box, a.n_es);
  m.rank = a.n_dims;
  unsigned long long dense = m.dims[0] * (unsigned long long)tcmma_prec_bytes(m.prec);
  for (int i = 0; !a.strides_given && i + 1 < m.rank; i++)
    m.strides[i] = dense, dense *= m.dims[i + 1];
  tcmma_error err = {0};
  tcmma_tmap_rule rule;
  tcmma_status s = tcmma_tensor_map_check(&m, &rule, &err);
  if (s == TCMMA_OK && a.kernel) {
    tcmma_buf out = {0};
    s = tcmma_render_tma_kernel(a.dialect, &m, NULL, &out, &err);
    if (s == TCMMA_OK) fputs(tcmma_buf_str(&out), stdout);
    tcmma_buf_free(&out);
    if (s != TCMMA_OK) return cli_fail(CMD, "%s", err.message);
    return CLI_OK;
  }
  if (a.json) print_json(&m, s, rule, err.message);
  else if (s == TCMMA_OK) print_text(&m);
  if (s == TCMMA_OK) return CLI_OK;
  cli_note_failure("%s", err.message);
  fprintf(stderr, "tcmma %s: %s\n", CMD, err.message);
  return CLI_DECLINED;
}
