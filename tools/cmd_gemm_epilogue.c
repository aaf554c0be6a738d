/* tcmma gemm --epilogue (docs/emit.md, GEMM epilogues): a comma-separated
 * list of NAME[:ARG[:ARG]] items, each one tcmma_epilogue_op, the argument
 * forms taken from tcmma_epilogue_args so that the CLI knows no op by name;
 * the hook's body comes from --epilogue-hook or --epilogue-hook-file (a
 * body holds commas, so it cannot sit in the list). */
#include <errno.h>
#include <float.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "tools/cli_input.h"
#include "tools/cmd_gemm_epilogue.h"

static const char *const cmd = "gemm";

int cli_epilogue_option(cli_epilogue *e, const char *a, const char *v) {
  if (strcmp(a, "--epilogue") == 0) return e->list = v, 1;
  if (strcmp(a, "--epilogue-hook") == 0) return e->hook = v, 1;
  if (strcmp(a, "--epilogue-hook-file") == 0) return e->hook_file = v, 1;
  return 0;
}

bool cli_finite_float(const char *what, const char *text, double *out) {
  char *end = NULL;
  errno = 0;
  double v = strtod(text, &end);
  if (!*text || *end || errno || !isfinite(v) || fabs(v) > FLT_MAX) {
    cli_usage(cmd, "%s '%s': expected a finite decimal number within a float's range", what, text);
    return false;
  }
  *out = v;
  return true;
}

/* A bound of clamp in item. */
static bool take_float(const char *item, const char *text, float *out) {
  char what[1100];
  double v;
  snprintf(what, sizeof what, "--epilogue '%s':", item);
  if (!cli_finite_float(what, text, &v)) return false;
  *out = (float)v;
  return true;
}

/* The hook's body, from the option or the file; NULL after a message. */
static const char *hook_body(cli_epilogue *e, const char *item) {
  if (e->hook && e->hook_file) {
    cli_usage(cmd, "--epilogue-hook and --epilogue-hook-file exclude each other");
    return NULL;
  }
  size_t len;
  if (e->hook_file && !e->hook_text && !(e->hook_text = cli_read_input(cmd, e->hook_file, &len)))
    return NULL; /* cli_read_input said why */
  const char *b = e->hook ? e->hook : e->hook_text;
  if (!b)
    cli_usage(cmd,
              "--epilogue '%s': expected --epilogue-hook BODY or --epilogue-hook-file "
              "FILE (the body of float f(float x, int row, int col))",
              item);
  return b;
}

/* The argument of item (name:arg...) of kind into o. */
static bool take_args(cli_epilogue *e, const char *item, const char *arg, tcmma_epilogue_op *o) {
  const char *form = tcmma_epilogue_args(o->kind), *name = tcmma_epilogue_name(o->kind);
  tcmma_error err = {0};
  if (strcmp(form, "body") == 0 || !form[0]) {
    if (arg) return cli_usage(cmd, "--epilogue '%s': %s takes no argument", item, name), false;
    return !form[0] || (o->body = hook_body(e, item)) != NULL;
  }
  if (!arg) return cli_usage(cmd, "--epilogue '%s': expected %s:%s", item, name, form), false;
  if (strcmp(form, "prec") == 0) {
    if (tcmma_prec_parse(arg, &o->prec, &err) == TCMMA_OK) return true;
    return cli_usage(cmd, "--epilogue '%s': %s", item, err.message), false;
  }
  if (strcmp(form, "lo:hi") == 0) {
    char lo[64];
    const char *colon = strchr(arg, ':');
    if (!colon || (size_t)(colon - arg) >= sizeof lo)
      return cli_usage(cmd, "--epilogue '%s': expected %s:lo:hi", item, name), false;
    snprintf(lo, sizeof lo, "%.*s", (int)(colon - arg), arg);
    return take_float(item, lo, &o->lo) && take_float(item, colon + 1, &o->hi);
  }
  for (int a = 0; a < TCMMA_EPILOGUE_AXIS_COUNT; a++) {
    const char *an = tcmma_epilogue_axis_name((tcmma_epilogue_axis)a);
    size_t n = strlen(an);
    /* the axis must be one of the form's words */
    const char *f = strstr(form, an);
    if (strcmp(arg, an) == 0 && f && (f[n] == '|' || !f[n])) return o->axis = a, true;
  }
  return cli_usage(cmd, "--epilogue '%s': expected %s:%s", item, name, form), false;
}

bool cli_epilogue_parse(cli_epilogue *e) {
  e->count = 0;
  if ((e->hook || e->hook_file) && !e->list)
    return cli_usage(cmd, "--epilogue-hook needs --epilogue with a hook item"), false;
  if (!e->list) return true;
  char buf[1024];
  if (strlen(e->list) >= sizeof buf)
    return cli_usage(cmd, "--epilogue: longer than %zu characters", sizeof buf - 1), false;
  snprintf(buf, sizeof buf, "%s", e->list);
  char *save = NULL;
  for (char *item = strtok_r(buf, ",", &save); item; item = strtok_r(NULL, ",", &save)) {
    if (e->count == TCMMA_EPILOGUE_OPS_MAX)
      return cli_usage(cmd, "--epilogue '%s': more than %d ops", e->list, TCMMA_EPILOGUE_OPS_MAX),
             false;
    char whole[1024];
    snprintf(whole, sizeof whole, "%s", item);
    char *arg = strchr(item, ':');
    if (arg) *arg++ = '\0';
    tcmma_epilogue_op *o = &e->ops[e->count];
    *o = tcmma_epilogue_op_default();
    tcmma_error err = {0};
    if (tcmma_epilogue_parse(item, &o->kind, &err) != TCMMA_OK)
      return cli_usage(cmd, "--epilogue: %s", err.message), false;
    if (!take_args(e, whole, arg, o)) return false;
    e->count++;
  }
  if (e->count == 0)
    return cli_usage(cmd, "--epilogue '%s': expected at least one op", e->list), false;
  return true;
}

void cli_epilogue_json(const cli_epilogue *e, json_writer *w) {
  json_begin_array(w);
  for (int i = 0; i < e->count; i++) {
    const tcmma_epilogue_op *o = &e->ops[i];
    const char *form = tcmma_epilogue_args(o->kind);
    json_begin_object(w);
    json_key(w, "op"), json_string(w, tcmma_epilogue_name(o->kind));
    if (strstr(form, "row|col"))
      json_key(w, "axis"), json_string(w, tcmma_epilogue_axis_name(o->axis));
    if (strcmp(form, "prec") == 0) json_key(w, "prec"), json_string(w, tcmma_prec_name(o->prec));
    if (strcmp(form, "lo:hi") == 0) {
      json_key(w, "lo"), json_double(w, o->lo);
      json_key(w, "hi"), json_double(w, o->hi);
    }
    if (strcmp(form, "body") == 0) json_key(w, "body"), json_string(w, o->body);
    json_end_object(w);
  }
  json_end_array(w);
}

void cli_epilogue_free(cli_epilogue *e) {
  free(e->hook_text);
  e->hook_text = NULL;
}
