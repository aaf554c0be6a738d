/* The GEMM's epilogue list (include/tcmma/gemm.h, tcmma_epilogue_op;
 * docs/emit.md, GEMM epilogues): the table's rows by value, the ops' names,
 * the caller's array taken element by element, and the rules a list must
 * keep before the renderer writes it. */
#include <math.h>
#include <stdio.h>
#include <string.h>
#include "abi.h"
#include "gemm_epilogue.h"
#include "gemm_rules.h"

static const tcmma__epi_row rows[TCMMA_EPILOGUE_COUNT] = {
#define TCMMA_EPILOGUE(ID, value, name, args, param, floor, render) \
  [value] = {name, TCMMA__EPI_ARGS_##args, TCMMA__EPI_PARAM_##param, floor, render},
#include "tables/epilogues.def"
#undef TCMMA_EPILOGUE
};

static const char *const axis_names[TCMMA_EPILOGUE_AXIS_COUNT] = {
#define TCMMA_EPILOGUE_AXIS(ID, value, name, index) [value] = name,
#include "tables/epilogue_axes.def"
#undef TCMMA_EPILOGUE_AXIS
};

static const struct {
  tcmma_prec prec;
  const char *max;
} targets[] = {
#define TCMMA_EPILOGUE_TARGET(P, max, narrow) {TCMMA_PREC_##P, max},
#include "tables/epilogues.def"
#undef TCMMA_EPILOGUE_TARGET
};

const tcmma__epi_row *tcmma__emit_epilogue_row(tcmma_epilogue_kind kind) {
  return &rows[kind];
}

const char *tcmma_epilogue_name(tcmma_epilogue_kind kind) {
  return (unsigned)kind < TCMMA_EPILOGUE_COUNT ? rows[kind].name : "?";
}

const char *tcmma_epilogue_axis_name(tcmma_epilogue_axis axis) {
  return (unsigned)axis < TCMMA_EPILOGUE_AXIS_COUNT ? axis_names[axis] : "?";
}

tcmma_status tcmma_epilogue_parse(const char *name, tcmma_epilogue_kind *out, tcmma_error *err) {
  char list[256] = "";
  for (int k = 0; k < TCMMA_EPILOGUE_COUNT; k++) {
    if (name && out && strcmp(name, rows[k].name) == 0)
      return *out = (tcmma_epilogue_kind)k, TCMMA_OK;
    size_t n = strlen(list);
    snprintf(list + n, sizeof list - n, "%s%s", k ? ", " : "", rows[k].name);
  }
  return tcmma_fail(err, TCMMA_INVALID, "epilogue op '%s': expected one of %s",
                    name ? name : "(null)", list);
}

const char *tcmma_epilogue_args(tcmma_epilogue_kind kind) {
  if ((unsigned)kind >= TCMMA_EPILOGUE_COUNT) return "?";
  switch (rows[kind].args) {
    case TCMMA__EPI_ARGS_AXIS_RC: return "row|col";
    case TCMMA__EPI_ARGS_AXIS_TRC: return "tensor|row|col";
    case TCMMA__EPI_ARGS_RANGE: return "lo:hi";
    case TCMMA__EPI_ARGS_PREC: return "prec";
    case TCMMA__EPI_ARGS_BODY: return "body";
    default: return "";
  }
}

void tcmma_epilogue_op_init(tcmma_epilogue_op *out, size_t size) {
  if (!out || size < sizeof out->size) return;
  tcmma_epilogue_op o;
  memset(&o, 0, sizeof o);
  o.size = size;
  o.kind = TCMMA_EPILOGUE_RELU;
  o.axis = TCMMA_EPILOGUE_AXIS_COL;
  o.prec = TCMMA_PREC_F32;
  memcpy(out, &o, size < sizeof o ? size : sizeof o);
  if (size > sizeof o) memset((char *)out + sizeof o, 0, size - sizeof o);
}

const char *tcmma__emit_epilogue_target_max(tcmma_prec p) {
  for (size_t i = 0; i < sizeof targets / sizeof targets[0]; i++)
    if (targets[i].prec == p) return targets[i].max;
  return NULL;
}

tcmma_epilogue_op tcmma__emit_gemm_epilogue_op(const tcmma__gemm_epi *e, int i) {
  tcmma_epilogue_op o = tcmma_epilogue_op_default(), d = o;
  size_t stride;
  memcpy(&stride, e->ops, sizeof stride);
  tcmma__abi_take(&o, (const char *)e->ops + (size_t)i * stride, sizeof o, &d, "tcmma_epilogue_op",
                  "tcmma_epilogue_op_default()", NULL);
  return o;
}

tcmma__gemm_epi tcmma__emit_gemm_epi_of(const tcmma_gemm_opts *o) {
  return (tcmma__gemm_epi){o->epilogue, o->epilogue_count};
}

tcmma_prec tcmma__emit_gemm_out_prec(const tcmma_gemm_call *c, const tcmma__gemm_epi *e) {
  if (e->count < 1 || !e->ops) return c->d.prec;
  tcmma_epilogue_op o = tcmma__emit_gemm_epilogue_op(e, e->count - 1);
  return o.kind == TCMMA_EPILOGUE_CVT ? o.prec : c->d.prec;
}

/* A hook body the kernel can hold: not blank, braces balanced (the body
 * cannot close its function early), not too long. NULL when it is. */
static const char *body_problem(const char *b) {
  if (!b) return "no body (NULL)";
  size_t n = strnlen(b, TCMMA_EPILOGUE_BODY_MAX + 1);
  if (n > TCMMA_EPILOGUE_BODY_MAX) return "longer than TCMMA_EPILOGUE_BODY_MAX bytes";
  if (strspn(b, " \t\r\n\f\v") == n) return "blank";
  long depth = 0;
  for (size_t i = 0; i < n && depth >= 0; i++) depth += b[i] == '{' ? 1 : b[i] == '}' ? -1 : 0;
  return depth ? "unbalanced braces" : NULL;
}

/* The argument rules of op o at place i of a list of count (decline CALL,
 * ARCH); its enums are in range. cvt to a narrower precision than d's
 * needs no rule of its own: the epilogue stores element by element when
 * its 16-byte stores do not fit d's rows (mma/render_gemm_io.c). */
static tcmma_status op_rules(const tcmma_gemm_call *c, const tcmma_epilogue_op *o, int i, int count,
                             bool pointer_array, tcmma_gemm_decline *reason, char *msg,
                             size_t cap) {
  const tcmma__epi_row *r = &rows[o->kind];
  int n = snprintf(msg, cap, "epilogue op %d (%s): ", i, r->name);
  char *m = msg + n;
  size_t mc = cap - (size_t)n;
  *reason = TCMMA_GEMM_DECLINE_CALL;
  if (r->floor && c->cc && c->cc < r->floor)
    return *reason = TCMMA_GEMM_DECLINE_ARCH,
           snprintf(m, mc, "cc %d: expected cc %d or later", c->cc, r->floor), TCMMA_DECLINED;
  if (r->args == TCMMA__EPI_ARGS_AXIS_RC && o->axis == TCMMA_EPILOGUE_AXIS_TENSOR)
    return snprintf(m, mc, "axis tensor: expected row or col"), TCMMA_DECLINED;
  if (r->args == TCMMA__EPI_ARGS_RANGE && !(isfinite(o->lo) && isfinite(o->hi) && o->lo <= o->hi))
    return snprintf(m, mc, "lo %.9g, hi %.9g: expected finite lo <= hi", o->lo, o->hi),
           TCMMA_DECLINED;
  const char *why = r->args == TCMMA__EPI_ARGS_BODY ? body_problem(o->body) : NULL;
  if (why)
    return snprintf(m, mc, "body %s: expected the statements of a function", why), TCMMA_DECLINED;
  if (r->args == TCMMA__EPI_ARGS_PREC &&
      (!tcmma__emit_epilogue_target_max(o->prec) || i + 1 != count))
    return snprintf(m, mc,
                    "%s at place %d of %d: expected the last op, to f32, f16, bf16, e4m3 "
                    "or e5m2",
                    tcmma_prec_name(o->prec), i, count),
           TCMMA_DECLINED;
  /* a pointer-array batch has no residual array to index */
  if (r->param == TCMMA__EPI_PARAM_C && pointer_array)
    return snprintf(m, mc, "with pointer_array: expected a strided batch (a residual moves "
                    "through the batch as c does; there is no array of residuals)"),
           TCMMA_DECLINED;
  return TCMMA_OK;
}

tcmma_status tcmma__emit_gemm_epilogue_rules(const tcmma_gemm_call *c, const tcmma_gemm_opts *opts,
                                             tcmma_gemm_decline *reason, char *msg, size_t cap) {
  tcmma__gemm_epi e0 = tcmma__emit_gemm_epi_of(opts), *e = &e0;
  *reason = TCMMA_GEMM_DECLINE_CALL;
  if (e->count < 0 || e->count > TCMMA_EPILOGUE_OPS_MAX)
    return snprintf(msg, cap, "epilogue of %d ops: expected 0..%d", e->count,
                    TCMMA_EPILOGUE_OPS_MAX),
           TCMMA_DECLINED;
  if (e->count == 0) return TCMMA_OK;
  if (!e->ops)
    return snprintf(msg, cap, "gemm plan: epilogue ops NULL with a count of %d", e->count),
           TCMMA_INVALID;
  size_t stride;
  memcpy(&stride, e->ops, sizeof stride);
  for (int i = 0; i < e->count; i++) {
    const char *at = (const char *)e->ops + (i ? (size_t)i * stride : 0);
    tcmma_epilogue_op o, d = tcmma_epilogue_op_default();
    tcmma_error why = {0};
    size_t size;
    memcpy(&size, at, sizeof size);
    if (size != stride || tcmma__abi_take(&o, at, sizeof o, &d, "tcmma_epilogue_op",
                                          "tcmma_epilogue_op_default()", &why) != TCMMA_OK)
      return snprintf(msg, cap, "gemm plan: epilogue op %d: size %zu (op 0's %zu)%s%s", i, size,
                      stride, why.message[0] ? ": " : "", why.message),
             TCMMA_INVALID;
    if ((unsigned)o.kind >= TCMMA_EPILOGUE_COUNT || (unsigned)o.axis >= TCMMA_EPILOGUE_AXIS_COUNT ||
        (unsigned)o.prec >= TCMMA_PREC_COUNT)
      return snprintf(msg, cap,
                      "gemm plan: epilogue op %d: kind %d, axis %d or precision %d out "
                      "of range (0..%d, 0..%d, 0..%d)",
                      i, (int)o.kind, (int)o.axis, (int)o.prec, TCMMA_EPILOGUE_COUNT - 1,
                      TCMMA_EPILOGUE_AXIS_COUNT - 1, TCMMA_PREC_COUNT - 1),
             TCMMA_INVALID;
    tcmma_status st = op_rules(c, &o, i, e->count, opts->pointer_array, reason, msg, cap);
    if (st != TCMMA_OK) return st;
  }
  return TCMMA_OK;
}
