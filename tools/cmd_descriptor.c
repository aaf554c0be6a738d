/* tcmma descriptor: the arms a device of one compute capability can run. */
#include <stdio.h>
#include <string.h>
#include "cli.h"
#include "tcmma/tcmma.h"

static const char help[] =
    "usage: tcmma descriptor --cc N [--json]\n\n"
    "The tile-MMA descriptor of compute capability N (major*10+minor, 0: any device): every\n"
    "arm a device of that cc can run, in table order, with its floor and tile m x n x k.\n"
    "A family arm runs only on devices of its floor's major version (FAMILY column).\n\n"
    "  --json   a list of {\"arm\": <marker>, \"floor\": <int>, \"tile\": [m, n, k]}\n";

#define CMD "descriptor"

int cmd_descriptor(int argc, char **argv) {
  bool json = false, have_cc = false;
  int cc = 0;
  for (int i = 1; i < argc; i++) {
    const char *v;
    if (cli_is_help(argv[i])) return fputs(help, stdout), CLI_OK;
    if (strcmp(argv[i], "--json") == 0) {
      json = true;
    } else if (strcmp(argv[i], "--cc") == 0) {
      if (!(v = cli_value(CMD, argc, argv, &i)) || !cli_cc(CMD, "--cc", v, &cc)) return CLI_USAGE;
      have_cc = true;
    } else {
      return cli_usage(CMD, "unknown argument '%s': expected --cc N or --json", argv[i]);
    }
  }
  if (!have_cc) return cli_usage(CMD, "missing --cc N: expected a compute capability (e.g. 80)");
  tcmma_arm arms[TCMMA_ARM_COUNT];
  size_t count = 0;
  tcmma_error err;
  if (tcmma_descriptor(cc, arms, TCMMA_ARM_COUNT, &count, &err))
    return cli_fail(CMD, "%s", err.message);
  json_writer w;
  text_table t;
  if (json) json_init(&w, stdout), json_begin_array(&w);
  else table_init(&t, 4), table_row(&t, (const char *const[]){"ARM", "FLOOR", "TILE", "FAMILY"});
  for (size_t i = 0; i < count; i++) {
    const tcmma_arm_info *a = tcmma_arm_get(arms[i]);
    if (json) {
      json_begin_object(&w);
      json_key(&w, "arm"), json_string(&w, a->marker);
      json_key(&w, "floor"), json_int(&w, a->floor);
      json_key(&w, "tile"), json_tile(&w, a->m, a->n, a->k);
      json_end_object(&w);
    } else {
      char floor[16], tile[32];
      snprintf(floor, sizeof floor, "%d", a->floor);
      snprintf(tile, sizeof tile, "%dx%dx%d", a->m, a->n, a->k);
      table_row(&t, (const char *const[]){a->marker, floor, tile, a->family ? "yes" : "no"});
    }
  }
  if (json) {
    json_end_array(&w), json_finish(&w);
  } else {
    if (count) table_print(&t, stdout);
    else printf("no tensor-core arm runs on cc %d\n", cc);
    table_free(&t);
  }
  return CLI_OK;
}
