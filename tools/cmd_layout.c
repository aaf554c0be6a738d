/* tcmma layout: where each fragment element of an inline-PTX arm, each
 * accumulator element of a wgmma arm, or each Tensor Memory cell of a
 * tcgen05 arm's accumulator, sits. */
#include <stdio.h>
#include <string.h>
#include "cli.h"
#include "tcmma/tcmma.h"

static const char help[] =
    "usage: tcmma layout ARM a|b|c [--m M] [--n N] [--json]\n\n"
    "The per-lane fragment layout of an inline-PTX arm's operand (PTX ISA): for every\n"
    "lane, register and element, the (row, col) it holds. A: row=m col=k; B: row=k\n"
    "col=n; C (and D): row=m col=n. elem is the element's index inside its 32-bit\n"
    "register (halves for 16-bit types, bytes for fp8, 0 for f32). wmma arms have no\n"
    "layout: their fragments are opaque.\n\n"
    "A wgmma arm (tables/wgmma.def) takes c, the accumulator of the 64 x N tile, and\n"
    "a, the fragment of one k step of an A read from registers (B is read from\n"
    "shared memory through a descriptor), for every thread of the warpgroup\n"
    "(0..127), register and element; row=m, col=n (c) or k (a).\n\n"
    "A tcgen05 arm (tables/tcgen05.def) takes c, the M x N accumulator in Tensor\n"
    "Memory: for every cell that holds an element, lane is its Tensor Memory lane\n"
    "(warp lane/32 of a warpgroup reads it, thread lane%32, with tcgen05.ld.32x32b),\n"
    "reg its column (that load's register), elem 0; row=m, col=n.\n\n"
    "  --m M    c of a tcgen05 arm: the instruction's m (64 or 128; default 128)\n"
    "  --n N    c: the wgmma or tcgen05 instruction's n (default 64; one of the arm's\n"
    "           list)\n"
    "  --json   a list of {\"lane\", \"reg\", \"elem\", \"row\", \"col\"} (wgmma:\n"
    "           \"thread\" in place of \"lane\")\n";

#define CMD "layout"

/* The inline-PTX arms' markers, for messages. */
static void inline_arms(char *buf, size_t cap) {
  size_t used = 0;
  buf[0] = '\0';
  for (int i = 0; i < TCMMA_ARM_COUNT; i++) {
    const tcmma_arm_info *a = tcmma_arm_get((tcmma_arm)i);
    if (a->form != TCMMA_FORM_PTX) continue;
    int n = snprintf(buf + used, cap - used, "%s%s", used ? " " : "", a->marker);
    if (n < 0 || (size_t)n >= cap - used) return;
    used += (size_t)n;
  }
}

typedef struct {
  bool json;
  json_writer w;
  text_table t;
  const char *who; /* "lane" or "thread" */
} printer;

static void print_begin(printer *p) {
  if (p->json) json_init(&p->w, stdout), json_begin_array(&p->w);
  else
    table_init(&p->t, 5),
        table_row(&p->t, (const char *const[]){p->who[0] == 'l' ? "LANE" : "THREAD", "REG", "ELEM",
                                               "ROW", "COL"});
}

static void print_row(printer *p, const int v[5]) {
  static const char *const keys[5] = {NULL, "reg", "elem", "row", "col"};
  if (p->json) {
    json_begin_object(&p->w);
    for (int j = 0; j < 5; j++) json_key(&p->w, j ? keys[j] : p->who), json_int(&p->w, v[j]);
    json_end_object(&p->w);
    return;
  }
  char c[5][16];
  for (int j = 0; j < 5; j++) snprintf(c[j], sizeof c[j], "%d", v[j]);
  table_row(&p->t, (const char *const[]){c[0], c[1], c[2], c[3], c[4]});
}

static int print_end(printer *p, const tcmma_error *failed) {
  if (failed) {
    if (!p->json) table_free(&p->t);
    return cli_fail(CMD, "%s", failed->message);
  }
  if (p->json) json_end_array(&p->w), json_finish(&p->w);
  else table_print(&p->t, stdout), table_free(&p->t);
  return CLI_OK;
}

static int inline_layout(tcmma_arm arm, tcmma_operand op, printer *p) {
  int regs = tcmma_fragment_regs(arm, op), per = tcmma_fragment_elems_per_reg(arm, op);
  tcmma_error err;
  print_begin(p);
  for (int lane = 0; lane < TCMMA_WARP_SIZE; lane++)
    for (int reg = 0; reg < regs; reg++)
      for (int elem = 0; elem < per; elem++) {
        int v[5] = {lane, reg, elem, 0, 0};
        if (tcmma_fragment_layout(arm, op, lane, reg, elem, &v[3], &v[4], &err))
          return print_end(p, &err);
        print_row(p, v);
      }
  return print_end(p, NULL);
}

static int wgmma_layout(tcmma_wgmma w, const char *operand, long n, bool n_given, printer *p) {
  bool a = strcmp(operand, "a") == 0;
  if (!a && strcmp(operand, "c") != 0)
    return cli_usage(CMD, "operand '%s' of %s: a wgmma arm reads b from shared memory through a "
                          "descriptor; expected a (from registers) or c", operand,
                     tcmma_wgmma_marker(w));
  if (a && n_given)
    return cli_usage(CMD, "--n: A's fragment of one k step is the same at every n");
  if (!a && !tcmma_wgmma_n_ok(w, (int)n))
    return cli_usage(CMD, "--n %ld is not an instruction n of %s (tables/wgmma.def)", n,
                     tcmma_wgmma_marker(w));
  int regs = a ? TCMMA_WGMMA_A_REGS : tcmma_wgmma_acc_regs(w, (int)n);
  int per = a ? tcmma_wgmma_a_elems_per_reg(w) : tcmma_wgmma_acc_elems_per_reg(w);
  tcmma_error err;
  p->who = "thread";
  print_begin(p);
  for (int t = 0; t < TCMMA_WARPGROUP_SIZE; t++)
    for (int reg = 0; reg < regs; reg++)
      for (int elem = 0; elem < per; elem++) {
        int v[5] = {t, reg, elem, 0, 0};
        tcmma_status s = a ? tcmma_wgmma_a_layout(w, t, reg, elem, &v[3], &v[4], &err)
                           : tcmma_wgmma_acc_layout(w, (int)n, t, reg, elem, &v[3], &v[4], &err);
        if (s) return print_end(p, &err);
        print_row(p, v);
      }
  return print_end(p, NULL);
}

static int tcgen05_layout(tcmma_tcgen05 w, const char *operand, long m, long n, printer *p) {
  if (strcmp(operand, "c") != 0)
    return cli_usage(CMD, "operand '%s' of %s: a tcgen05 arm reads a and b through descriptors "
                          "(or a from Tensor Memory); expected c", operand, tcmma_tcgen05_marker(w));
  if (!tcmma_tcgen05_shape_ok(w, (int)m, (int)n))
    return cli_usage(CMD, "--m %ld --n %ld is not an instruction shape of %s (tables/tcgen05.def)",
                     m, n, tcmma_tcgen05_marker(w));
  tcmma_error err;
  print_begin(p);
  for (int lane = 0; lane < TCMMA_TMEM_LANES; lane++)
    for (int col = 0; col < n; col++) {
      int v[5] = {lane, col, 0, 0, 0};
      if (tcmma_tcgen05_acc_layout(w, (int)m, (int)n, lane, col, &v[3], &v[4], &err))
        return print_end(p, &err);
      if (v[3] >= 0) print_row(p, v);
    }
  return print_end(p, NULL);
}

int cmd_layout(int argc, char **argv) {
  const char *pos[2];
  int npos = 0;
  long n = 64, m = 128;
  bool n_given = false, m_given = false;
  printer p = {.who = "lane"};
  for (int i = 1; i < argc; i++) {
    if (cli_is_help(argv[i])) return fputs(help, stdout), CLI_OK;
    if (strcmp(argv[i], "--json") == 0) p.json = true;
    else if (strcmp(argv[i], "--n") == 0) {
      const char *v = cli_value(CMD, argc, argv, &i);
      if (!v || !cli_int(CMD, "--n", v, 8, TCMMA_WGMMA_N_MAX, &n)) return CLI_USAGE;
      n_given = true;
    } else if (strcmp(argv[i], "--m") == 0) {
      const char *v = cli_value(CMD, argc, argv, &i);
      if (!v || !cli_int(CMD, "--m", v, 64, 128, &m)) return CLI_USAGE;
      m_given = true;
    } else if (argv[i][0] == '-' && argv[i][1] != '\0')
      return cli_usage(CMD, "unknown option '%s': expected --m, --n or --json", argv[i]);
    else if (npos == 2)
      return cli_usage(CMD, "unexpected argument '%s': expected ARM and one of a, b, c", argv[i]);
    else pos[npos++] = argv[i];
  }
  if (npos < 2) return cli_usage(CMD, "expected ARM and an operand (a, b or c), got %d", npos);
  tcmma_error err;
  tcmma_arm arm;
  tcmma_wgmma w;
  tcmma_tcgen05 tg;
  tcmma_operand op;
  char names[256];
  inline_arms(names, sizeof names);
  if (tcmma_tcgen05_parse(pos[0], &tg, NULL) == TCMMA_OK) return tcgen05_layout(tg, pos[1], m, n, &p);
  if (m_given) return cli_usage(CMD, "--m is a tcgen05 arm's instruction m; %s is not one", pos[0]);
  if (tcmma_wgmma_parse(pos[0], &w, NULL) == TCMMA_OK) return wgmma_layout(w, pos[1], n, n_given, &p);
  if (tcmma_arm_parse(pos[0], &arm, &err)) return cli_usage(CMD, "%s", err.message);
  if (n_given)
    return cli_usage(CMD, "--n is a wgmma arm's instruction n; %s has the fixed tile %dx%dx%d",
                     pos[0], tcmma_arm_get(arm)->m, tcmma_arm_get(arm)->n, tcmma_arm_get(arm)->k);
  if (tcmma_arm_get(arm)->form != TCMMA_FORM_PTX)
    return cli_usage(CMD, "arm '%s' is a wmma arm: its fragment layout is opaque; expected an "
                          "inline-PTX arm: %s", pos[0], names);
  if (tcmma_operand_parse(pos[1], &op, &err)) return cli_usage(CMD, "%s", err.message);
  return inline_layout(arm, op, &p);
}
