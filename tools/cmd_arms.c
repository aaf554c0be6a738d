/* tcmma arms: every arm and its facts, as a table or JSON. */
#include "cli.h"
#include "tcmma/tcmma.h"

static const char help[] =
    "usage: tcmma arms [--json]\n\n"
    "Lists every tensor-core arm (tables/arms.def): marker, form (ptx|wmma), tile m x n x k,\n"
    "architecture floor, family flag, accumulator precision, ldmatrix rule, reload rule.\n";

int cmd_arms(int argc, char **argv) {
  bool json;
  int rc = cli_json_only("arms", help, argc, argv, &json);
  if (rc >= 0) return rc;
  if (json) {
    json_writer w;
    json_init(&w, stdout);
    json_begin_array(&w);
    for (int i = 0; i < TCMMA_ARM_COUNT; i++) {
      const tcmma_arm_info *a = tcmma_arm_get((tcmma_arm)i);
      json_begin_object(&w);
      json_key(&w, "arm"), json_string(&w, a->marker);
      json_key(&w, "form"), json_string(&w, tcmma_form_name(a->form));
      json_key(&w, "tile"), json_tile(&w, a->m, a->n, a->k);
      json_key(&w, "floor"), json_int(&w, a->floor);
      json_key(&w, "family"), json_bool(&w, a->family);
      json_key(&w, "accumulator"), json_string(&w, tcmma_prec_name(a->acc));
      json_key(&w, "ldmatrix"), json_string(&w, tcmma_ldmatrix_rule_text(a->ldmatrix));
      json_key(&w, "reloads"), json_bool(&w, tcmma_arm_reloads((tcmma_arm)i));
      json_end_object(&w);
    }
    json_end_array(&w);
    json_finish(&w);
    return CLI_OK;
  }
  text_table t;
  table_init(&t, 8);
  table_row(&t, (const char *const[]){"ARM", "FORM", "TILE", "FLOOR", "FAMILY", "ACC",
                                      "RELOADS", "LDMATRIX"});
  for (int i = 0; i < TCMMA_ARM_COUNT; i++) {
    const tcmma_arm_info *a = tcmma_arm_get((tcmma_arm)i);
    char tile[32], floor[16];
    snprintf(tile, sizeof tile, "%dx%dx%d", a->m, a->n, a->k);
    snprintf(floor, sizeof floor, "%d", a->floor);
    table_row(&t, (const char *const[]){a->marker, tcmma_form_name(a->form), tile, floor,
                                        a->family ? "yes" : "no", tcmma_prec_name(a->acc),
                                        tcmma_arm_reloads((tcmma_arm)i) ? "yes" : "no",
                                        tcmma_ldmatrix_rule_text(a->ldmatrix)});
  }
  table_print(&t, stdout);
  table_free(&t);
  return CLI_OK;
}
