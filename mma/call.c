/* The vocabulary of a call that planning and rendering both speak: default
 * call, the names of declines, spaces and init modes, an operand's
 * descriptor and stored shape. Depends on nothing but the tables. */
#include <string.h>
#include "tables/names.h"
#include "emit.h"

const tcmma_operand_desc *tcmma__emit_desc(const tcmma_call *call, tcmma_operand op) {
  return op == TCMMA_OPERAND_A ? &call->a : op == TCMMA_OPERAND_B ? &call->b : &call->d;
}

/* Indexed by value (a row's value column, not its position). */
static const struct { const char *name, *rule; } declines[TCMMA_DECLINE_COUNT] = {
#define TCMMA_DECLINE(ID, value, name, rule) [value] = {name, rule},
#include "tables/declines.def"
#undef TCMMA_DECLINE
};

const char *tcmma_decline_name(tcmma_decline r) {
  return (unsigned)r < TCMMA_DECLINE_COUNT ? declines[r].name : "?";
}
const char *tcmma_decline_rule(tcmma_decline r) {
  return (unsigned)r < TCMMA_DECLINE_COUNT ? declines[r].rule : "?";
}
const char *tcmma_space_name(tcmma_space s) {
  return s == TCMMA_SPACE_GLOBAL ? "global" : s == TCMMA_SPACE_SHARED ? "shared"
       : s == TCMMA_SPACE_THREAD ? "thread" : "?";
}
static const char *const inits[] = {"load", "zero", "scale"};

const char *tcmma_init_name(tcmma_init i) {
  return (unsigned)i <= TCMMA_INIT_SCALE ? inits[i] : "?";
}

static const char *init_at(int i) { return tcmma_init_name((tcmma_init)i); }

tcmma_status tcmma_init_parse(const char *name, tcmma_init *out, tcmma_error *err) {
  for (int i = 0; name && i <= TCMMA_INIT_SCALE; i++)
    if (strcmp(name, inits[i]) == 0) {
      if (out) *out = (tcmma_init)i;
      return TCMMA_OK;
    }
  char names[64];
  return tcmma_fail(err, TCMMA_INVALID, "unknown init '%s': expected %s", name ? name : "(null)",
                    tcmma__table_names(names, sizeof names, init_at, 0, TCMMA_INIT_SCALE));
}

void tcmma_operand_scale_shape(const tcmma_call *call, tcmma_operand op, int block, long *rows,
                               long *cols, long *ld, const tcmma_coord **free_origin,
                               const tcmma_coord **k_origin) {
  const tcmma_operand_desc *o = tcmma__emit_desc(call, op);
  /* the role's axes: a is m x k, b is k x n; transposed storage swaps them */
  bool k_in_rows = (op == TCMMA_OPERAND_B) != o->transposed;
  const tcmma_coord *kc = k_in_rows ? &o->row0 : &o->col0;
  const tcmma_coord *fc = k_in_rows ? &o->col0 : &o->row0;
  long extent = op == TCMMA_OPERAND_B ? call->n : call->m;
  long per = block > 0 ? (kc->value + call->k) / block : 0;
  if (rows) *rows = fc->value + extent;
  if (cols) *cols = per;
  if (ld) *ld = o->scale_ld ? o->scale_ld : per;
  if (free_origin) *free_origin = fc;
  if (k_origin) *k_origin = kc;
}

void tcmma_operand_stored_shape(const tcmma_call *call, tcmma_operand op, long *rows,
                                long *cols, long *ld) {
  long r = op == TCMMA_OPERAND_B ? call->k : call->m;
  long c = op == TCMMA_OPERAND_A ? call->k : call->n;
  const tcmma_operand_desc *o = tcmma__emit_desc(call, op);
  if (o->transposed) {
    long t = r;
    r = c, c = t;
  }
  if (rows) *rows = r;
  if (cols) *cols = c;
  if (ld) *ld = o->ld ? o->ld : o->col0.value + c;
}
