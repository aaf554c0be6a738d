/* tcmma layout: where each fragment element of an inline-PTX arm sits. */
#include <stdio.h>
#include <string.h>
#include "cli.h"
#include "tcmma/tcmma.h"

static const char help[] =
    "usage: tcmma layout ARM a|b|c [--json]\n\n"
    "The per-lane fragment layout of an inline-PTX arm's operand (PTX ISA): for every\n"
    "lane, register and element, the (row, col) it holds. A: row=m col=k; B: row=k\n"
    "col=n; C (and D): row=m col=n. elem is the element's index inside its 32-bit\n"
    "register (halves for 16-bit types, bytes for fp8, 0 for f32). wmma arms have no\n"
    "layout: their fragments are opaque.\n\n"
    "  --json   a list of {\"lane\", \"reg\", \"elem\", \"row\", \"col\"}\n";

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

int cmd_layout(int argc, char **argv) {
  const char *pos[2];
  int npos = 0;
  bool json = false;
  for (int i = 1; i < argc; i++) {
    if (cli_is_help(argv[i])) return fputs(help, stdout), CLI_OK;
    if (strcmp(argv[i], "--json") == 0) json = true;
    else if (argv[i][0] == '-' && argv[i][1] != '\0')
      return cli_usage(CMD, "unknown option '%s': expected --json", argv[i]);
    else if (npos == 2)
      return cli_usage(CMD, "unexpected argument '%s': expected ARM and one of a, b, c", argv[i]);
    else pos[npos++] = argv[i];
  }
  if (npos < 2) return cli_usage(CMD, "expected ARM and an operand (a, b or c), got %d", npos);
  tcmma_error err;
  tcmma_arm arm;
  tcmma_operand op;
  char names[256];
  inline_arms(names, sizeof names);
  if (tcmma_arm_parse(pos[0], &arm, &err)) return cli_usage(CMD, "%s", err.message);
  if (tcmma_arm_get(arm)->form != TCMMA_FORM_PTX)
    return cli_usage(CMD, "arm '%s' is a wmma arm: its fragment layout is opaque; expected an "
                          "inline-PTX arm: %s", pos[0], names);
  if (tcmma_operand_parse(pos[1], &op, &err)) return cli_usage(CMD, "%s", err.message);
  int regs = tcmma_fragment_regs(arm, op), per = tcmma_fragment_elems_per_reg(arm, op);
  json_writer w;
  text_table t;
  if (json) json_init(&w, stdout), json_begin_array(&w);
  else table_init(&t, 5), table_row(&t, (const char *const[]){"LANE", "REG", "ELEM", "ROW", "COL"});
  for (int lane = 0; lane < TCMMA_WARP_SIZE; lane++)
    for (int reg = 0; reg < regs; reg++)
      for (int elem = 0; elem < per; elem++) {
        int row, col;
        if (tcmma_fragment_layout(arm, op, lane, reg, elem, &row, &col, &err)) {
          if (!json) table_free(&t);
          return cli_fail(CMD, "%s", err.message);
        }
        if (json) {
          json_begin_object(&w);
          json_key(&w, "lane"), json_int(&w, lane);
          json_key(&w, "reg"), json_int(&w, reg);
          json_key(&w, "elem"), json_int(&w, elem);
          json_key(&w, "row"), json_int(&w, row);
          json_key(&w, "col"), json_int(&w, col);
          json_end_object(&w);
        } else {
          char c[5][16];
          int v[5] = {lane, reg, elem, row, col};
          for (int j = 0; j < 5; j++) snprintf(c[j], sizeof c[j], "%d", v[j]);
          table_row(&t, (const char *const[]){c[0], c[1], c[2], c[3], c[4]});
        }
      }
  if (json) json_end_array(&w), json_finish(&w);
  else table_print(&t, stdout), table_free(&t);
  return CLI_OK;
}
