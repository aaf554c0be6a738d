/* The check every reader of a tile plan makes on entry (renderers, census,
 * kernel prologue and layout): the plan must be exactly what tcmma_plan_call
 * gives for the plan's own call, so a plan its caller changed (a precision
 * or arm out of range, another arm, other tiles, a declined plan marked
 * accepted) is refused with the field it changed instead of crashing the
 * text or the arithmetic that trusts it. Also the census of a checked plan. */
#include <stdio.h>
#include <string.h>
#include "emit.h"

/* A struct's field as an integer from its bytes (never a typed load: a
 * changed bool or enum may hold any byte). */
static long long field_signed(const unsigned char *at, size_t size) {
  if (size == 1) { signed char v; memcpy(&v, at, 1); return v; }
  if (size == 2) { short v; memcpy(&v, at, 2); return v; }
  if (size == 4) { int v; memcpy(&v, at, 4); return v; }
  long long v = 0;
  memcpy(&v, at, size < sizeof v ? size : sizeof v);
  return v;
}

static unsigned long long field_unsigned(const unsigned char *at, size_t size) {
  unsigned long long v = 0;
  if (size == 1) { unsigned char b; memcpy(&b, at, 1); return b; }
  if (size == 2) { unsigned short s; memcpy(&s, at, 2); return s; }
  if (size == 4) { unsigned u; memcpy(&u, at, 4); return u; }
  memcpy(&v, at, size < sizeof v ? size : sizeof v);
  return v;
}

/* The field's value as message text: "true", "byte 7", "-3", "2 (mma-bf16)". */
static void field_text(const tcmma__emit_field *f, const void *s, char *buf, size_t cap) {
  const unsigned char *at = (const unsigned char *)s + f->offset;
  if (f->kind == TCMMA__FIELD_BOOL) {
    unsigned long long b = field_unsigned(at, f->size);
    if (b <= 1) snprintf(buf, cap, "%s", b ? "true" : "false");
    else snprintf(buf, cap, "byte %llu (not a bool)", b);
  } else if (f->kind == TCMMA__FIELD_UINT) {
    snprintf(buf, cap, "%llu", field_unsigned(at, f->size));
  } else {
    long long v = field_signed(at, f->size);
    if (f->kind == TCMMA__FIELD_ARM)
      snprintf(buf, cap, "%lld (%s)", v, v >= 0 && v < TCMMA_ARM_COUNT
                                             ? tcmma_arm_marker((tcmma_arm)v) : "no arm");
    else snprintf(buf, cap, "%lld", v);
  }
}

tcmma_status tcmma__emit_fields_differ(const void *got, const void *want,
                                       const tcmma__emit_field *fields, size_t count,
                                       tcmma_error *err) {
  for (size_t i = 0; i < count; i++) {
    const tcmma__emit_field *f = &fields[i];
    if (!memcmp((const char *)got + f->offset, (const char *)want + f->offset, f->size)) continue;
    char x[64], y[64];
    field_text(f, got, x, sizeof x);
    field_text(f, want, y, sizeof y);
    return tcmma_fail(err, TCMMA_INVALID, "%s: %s is %s, planning gives %s", TCMMA__CHANGED,
                      f->name, x, y);
  }
  return TCMMA_OK;
}

tcmma_status tcmma__emit_bools_ok(const void *got, const tcmma__emit_field *fields, size_t count,
                                  tcmma_error *err) {
  for (size_t i = 0; i < count; i++) {
    const tcmma__emit_field *f = &fields[i];
    if (f->kind != TCMMA__FIELD_BOOL) continue;
    const unsigned char *at = (const unsigned char *)got + f->offset;
    if (field_unsigned(at, f->size) > 1)
      return tcmma_fail(err, TCMMA_INVALID, "%s: %s holds byte %llu, not a bool (0 or 1)",
                        TCMMA__CHANGED, f->name, field_unsigned(at, f->size));
  }
  return TCMMA_OK;
}

#define F(member, kind) TCMMA__FIELD(tcmma_plan, member, #member, kind)
/* stored[op]'s three fields, named by the operand */
#define STORED(OP, op)                                                              \
  TCMMA__FIELD(tcmma_plan, stored[TCMMA_OPERAND_##OP].rows, "stored[" op "].rows", INT), \
      TCMMA__FIELD(tcmma_plan, stored[TCMMA_OPERAND_##OP].cols, "stored[" op "].cols", INT), \
      TCMMA__FIELD(tcmma_plan, stored[TCMMA_OPERAND_##OP].ld, "stored[" op "].ld", INT)

/* The bools of a plan and its call, checked before anything reads them. */
static const tcmma__emit_field plan_bools[] = {
    F(accepted, BOOL),           F(a_ldmatrix, BOOL),         F(b_ldmatrix, BOOL),
    F(call.d.transposed, BOOL),  F(call.a.transposed, BOOL),  F(call.b.transposed, BOOL),
    F(call.numerics.tf32, BOOL), F(call.numerics.saturate, BOOL)};

/* What planning derives from the call (the rest of the plan's call is the
 * call itself, which planning checks again; the message is not read). */
static const tcmma__emit_field plan_derived[] = {
    F(reason, INT),          F(arm, ARM),             F(mt, INT),
    F(nt, INT),              F(kt, INT),              F(a_ldmatrix, BOOL),
    F(b_ldmatrix, BOOL),     F(call.d.ld, INT),       F(call.a.ld, INT),
    F(call.b.ld, INT),       F(call.d.scale_ld, INT), F(call.a.scale_ld, INT),
    F(call.b.scale_ld, INT), STORED(C, "c"),          STORED(A, "a"),
    STORED(B, "b")};

#undef F
#undef STORED
#define COUNT(a) (sizeof(a) / sizeof(a)[0])

tcmma_status tcmma__emit_plan_check(const tcmma_plan *plan, const char *use, tcmma_error *err) {
  if (!plan) return tcmma_fail(err, TCMMA_INVALID, "the plan is NULL");
  tcmma_status st = tcmma__emit_bools_ok(plan, plan_bools, COUNT(plan_bools), err);
  if (st != TCMMA_OK) return st;
  if (!plan->accepted)
    return tcmma_fail(err, TCMMA_INVALID, "the plan was declined (%s): %s",
                      tcmma_decline_name(plan->reason), use);
  /* the planner stores this library's whole call; a smaller size would
   * default, in the check, fields the renderers then read as they are */
  if (plan->call.size != sizeof(tcmma_call))
    return tcmma_fail(err, TCMMA_INVALID, "%s: call.size is %zu, planning gives %zu",
                      TCMMA__CHANGED, plan->call.size, sizeof(tcmma_call));
  tcmma_plan fresh;
  tcmma_error why = {0};
  st = tcmma_plan_call(&plan->call, &fresh, &why);
  if (st == TCMMA_DECLINED)
    return tcmma_fail(err, TCMMA_INVALID, "%s: accepted is true, planning gives false (%s)",
                      TCMMA__CHANGED, fresh.message);
  if (st != TCMMA_OK)
    return tcmma_fail(err, TCMMA_INVALID, "%s: its call does not plan (%s)", TCMMA__CHANGED,
                      why.message);
  return tcmma__emit_fields_differ(plan, &fresh, plan_derived, COUNT(plan_derived), err);
}

tcmma_status tcmma_plan_census(const tcmma_plan *plan, tcmma_census *out, tcmma_error *err) {
  if (!out) return tcmma_fail(err, TCMMA_INVALID, "plan and out must not be NULL");
  tcmma_status st = tcmma__emit_plan_check(plan, "it has no census", err);
  if (st != TCMMA_OK) return st;
  const tcmma_arm_info *info = tcmma_arm_get(plan->arm);
  memset(out, 0, sizeof *out);
  out->a_ldmatrix = plan->a_ldmatrix;
  out->b_ldmatrix = plan->b_ldmatrix;
  out->tile_m = info->m, out->tile_n = info->n, out->tile_k = info->k;
  out->reloads = tcmma_arm_reloads(plan->arm);
  out->a_loads_per_k = tcmma__emit_loads_per_k(plan, TCMMA_OPERAND_A);
  out->b_loads_per_k = tcmma__emit_loads_per_k(plan, TCMMA_OPERAND_B);
  out->mt = plan->mt, out->nt = plan->nt, out->kt = plan->kt;
  out->mma_per_statement = plan->mt * plan->nt * plan->kt;
  out->a_vector = tcmma__emit_vector_loaded(plan, TCMMA_OPERAND_A);
  out->b_vector = tcmma__emit_vector_loaded(plan, TCMMA_OPERAND_B);
  out->d_vector = tcmma__emit_d_vector(plan);
  out->shared_bytes = tcmma__emit_stage_bytes(plan, 1);
  out->registers = (int)tcmma__emit_plan_registers(plan);
  tcmma__emit_ldmatrix_counts(plan, TCMMA_OPERAND_A, &out->a_ldmatrix_x4, &out->a_ldmatrix_x2,
                              &out->a_ldmatrix_x1);
  tcmma__emit_ldmatrix_counts(plan, TCMMA_OPERAND_B, &out->b_ldmatrix_x4, &out->b_ldmatrix_x2,
                              &out->b_ldmatrix_x1);
  return TCMMA_OK;
}
