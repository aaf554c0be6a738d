/* Kernel signatures and setmaxnreg (include/tcmma/kernel_attrs.h): every
 * tcmma kernel's `extern "C" __global__ void <attributes> name(` comes from
 * here, the attributes spelled by the rows of tables/kernel_attrs.def. */
#include "tcmma/kernel_attrs.h"

#include <stdio.h>
#include "mma/abi.h"
#include "mma/emit.h"
#include "tables/dialect.h"

#define ROW(ID) tcmma_kernel_attr_get(TCMMA_KERNEL_ATTR_##ID)

/* Whether v is one of row r's values (lo..hi, step apart). */
static bool in_row(const tcmma_kernel_attr_info *r, int v) {
  return v >= r->lo && v <= r->hi && (v - r->lo) % r->step == 0;
}

/* "1 to 1024", "a multiple of 8 in 24..256". */
static void expected(const tcmma_kernel_attr_info *r, char *buf, size_t cap) {
  if (r->step > 1) snprintf(buf, cap, "a multiple of %d in %d..%d", r->step, r->lo, r->hi);
  else snprintf(buf, cap, "%d to %d", r->lo, r->hi);
}

/* TCMMA_INVALID for a value v of field (0 allowed: none) outside row r. */
static tcmma_status value_ok(const tcmma_kernel_attr_info *r, const char *field, int v,
                             tcmma_error *err) {
  if (v == 0 || in_row(r, v)) return TCMMA_OK;
  char want[64];
  expected(r, want, sizeof want);
  return tcmma_fail(err, TCMMA_INVALID, "kernel attrs: %s %d: expected 0 (none) or %s (%s)", field,
                    v, want, r->cuda);
}

/* The caller's attrs as this library's whole struct (NULL: none). */
static tcmma_status take(const tcmma_kernel_attrs *in, tcmma_kernel_attrs *out, tcmma_error *err) {
  *out = tcmma_kernel_attrs_default();
  if (!in) return TCMMA_OK;
  return tcmma__abi_take(out, in, sizeof *out, out, "tcmma_kernel_attrs",
                         "tcmma_kernel_attrs_default() or TCMMA_KERNEL_ATTRS_INIT", err);
}

static tcmma_status cluster_ok(const tcmma_kernel_attrs *a, tcmma_error *err) {
  const int *c = a->cluster;
  if (!c[0] && !c[1] && !c[2]) return TCMMA_OK;
  const tcmma_kernel_attr_info *r = ROW(CLUSTER_DIMS);
  if (c[0] < 1 || c[1] < 1 || c[2] < 1 || !in_row(r, c[0] * c[1] * c[2])) {
    char want[64];
    expected(r, want, sizeof want);
    return tcmma_fail(err, TCMMA_INVALID, "kernel attrs: cluster %dx%dx%d: expected three "
                      "positive dims of %s blocks in all, or 0x0x0 (none) (%s)", c[0], c[1], c[2],
                      want, r->cuda);
  }
  return TCMMA_OK;
}

/* The rules between rows (tables/kernel_attrs.def). */
static tcmma_status rules_ok(const tcmma_kernel_attrs *a, tcmma_error *err) {
  if (a->min_blocks < 0)
    return tcmma_fail(err, TCMMA_INVALID, "kernel attrs: min_blocks %d: expected 0 (none) or more",
                      a->min_blocks);
  if (!a->max_threads && (a->min_blocks || a->cluster_blocks))
    return tcmma_fail(err, TCMMA_INVALID, "kernel attrs: %s %d without max_threads: expected "
                      "both (arguments of %s)", a->min_blocks ? "min_blocks" : "cluster_blocks",
                      a->min_blocks ? a->min_blocks : a->cluster_blocks, ROW(LAUNCH_BOUNDS)->cuda);
  if (a->max_threads && a->max_regs)
    return tcmma_fail(err, TCMMA_INVALID, "kernel attrs: max_regs %d with max_threads %d: expected "
                      "one of them (NVRTC never takes %s and %s on one kernel)", a->max_regs,
                      a->max_threads, ROW(MAXNREG)->cuda, ROW(LAUNCH_BOUNDS)->cuda);
  if (a->cluster_blocks && a->cluster[0])
    return tcmma_fail(err, TCMMA_INVALID, "kernel attrs: cluster_blocks %d with cluster %dx%dx%d: "
                      "expected one of them (ptxas never takes %s and %s on one kernel)",
                      a->cluster_blocks, a->cluster[0], a->cluster[1], a->cluster[2],
                      ROW(CLUSTER_BOUNDS)->directive, ROW(CLUSTER_DIMS)->directive);
  if ((a->setmaxnreg_dec || a->setmaxnreg_inc) && !a->max_regs && !a->min_blocks)
    return tcmma_fail(err, TCMMA_INVALID, "kernel attrs: setmaxnreg without a register count at "
                      "entry: expected max_regs, or max_threads with min_blocks (ptxas ignores "
                      "setmaxnreg otherwise)");
  return TCMMA_OK;
}

tcmma_status tcmma_kernel_attrs_check(const tcmma_kernel_attrs *attrs, tcmma_error *err) {
  tcmma_kernel_attrs a;
  tcmma_status st = take(attrs, &a, err);
  if (st == TCMMA_OK) st = value_ok(ROW(LAUNCH_BOUNDS), "max_threads", a.max_threads, err);
  if (st == TCMMA_OK) st = value_ok(ROW(CLUSTER_BOUNDS), "cluster_blocks", a.cluster_blocks, err);
  if (st == TCMMA_OK) st = value_ok(ROW(MAXNREG), "max_regs", a.max_regs, err);
  if (st == TCMMA_OK) st = value_ok(ROW(SETMAXNREG), "setmaxnreg_dec", a.setmaxnreg_dec, err);
  if (st == TCMMA_OK) st = value_ok(ROW(SETMAXNREG), "setmaxnreg_inc", a.setmaxnreg_inc, err);
  if (st == TCMMA_OK) st = cluster_ok(&a, err);
  if (st == TCMMA_OK) st = rules_ok(&a, err);
  return st;
}

/* Raises *floor and *suffix to row r's when used. */
static void need(bool used, const tcmma_kernel_attr_info *r, int *floor, tcmma_ptx_suffix *suffix) {
  if (!used || r->floor < *floor) return;
  if (r->floor > *floor || r->suffix != TCMMA_PTX_SUFFIX_ANY) *suffix = r->suffix;
  *floor = r->floor;
}

int tcmma_kernel_attrs_floor(const tcmma_kernel_attrs *attrs, tcmma_ptx_suffix *suffix) {
  tcmma_kernel_attrs a;
  tcmma_ptx_suffix s = TCMMA_PTX_SUFFIX_ANY;
  int floor = 0;
  if (take(attrs, &a, NULL) == TCMMA_OK) {
    need(a.max_threads, ROW(LAUNCH_BOUNDS), &floor, &s);
    need(a.max_regs, ROW(MAXNREG), &floor, &s);
    need(a.cluster_blocks, ROW(CLUSTER_BOUNDS), &floor, &s);
    need(a.cluster[0], ROW(CLUSTER_DIMS), &floor, &s);
    need(a.setmaxnreg_dec || a.setmaxnreg_inc, ROW(SETMAXNREG), &floor, &s);
  }
  if (suffix) *suffix = s;
  return floor;
}

static const char *spell(tcmma_dialect dl, const tcmma_kernel_attr_info *r) {
  return dl == TCMMA_DIALECT_HOST ? r->host : r->cuda;
}

void tcmma__emit_kernel_signature(tcmma_dialect dl, const tcmma_kernel_attrs *a, const char *name,
                                  tcmma_buf *out) {
  tcmma_buf_printf(out, "%s", tcmma__table_spell(dl, TCMMA__SPELL_KERNEL));
  bool any = false;
  if (a && a->max_threads) {
    tcmma_buf_printf(out, " %s(%d", spell(dl, ROW(LAUNCH_BOUNDS)), a->max_threads);
    if (a->min_blocks || a->cluster_blocks) tcmma_buf_printf(out, ", %d", a->min_blocks);
    if (a->cluster_blocks) tcmma_buf_printf(out, ", %d", a->cluster_blocks);
    tcmma_buf_printf(out, ")");
    any = true;
  }
  if (a && a->max_regs)
    tcmma_buf_printf(out, " %s(%d)", spell(dl, ROW(MAXNREG)), a->max_regs), any = true;
  if (a && a->cluster[0])
    tcmma_buf_printf(out, " %s(%d, %d, %d)", spell(dl, ROW(CLUSTER_DIMS)), a->cluster[0],
                     a->cluster[1], a->cluster[2]), any = true;
  tcmma_buf_printf(out, "%s%s(", any ? "\n" : " ", name);
}

const char *tcmma__emit_grid_constant(tcmma_dialect dl) {
  return spell(dl, ROW(GRID_CONSTANT));
}

static tcmma_status dialect_ok(tcmma_dialect dl, const char *what, tcmma_error *err) {
  if (dl == TCMMA_DIALECT_CUDA || dl == TCMMA_DIALECT_HOST) return TCMMA_OK;
  return tcmma_fail(err, TCMMA_INVALID, "%s: dialect %d: expected cuda (0) or host (1)", what,
                    (int)dl);
}

tcmma_status tcmma_render_kernel_signature(tcmma_dialect dialect, const tcmma_kernel_attrs *attrs,
                                           const char *name, const char *params, tcmma_buf *out,
                                           tcmma_error *err) {
  tcmma_status st = dialect_ok(dialect, "kernel signature", err);
  if (st != TCMMA_OK) return st;
  if (!out || !params)
    return tcmma_fail(err, TCMMA_INVALID, "kernel signature: %s must not be NULL",
                      out ? "params" : "out");
  if (!name || !tcmma__emit_is_ident(name, 64))
    return tcmma_fail(err, TCMMA_INVALID, "kernel signature: name '%s' is not a C identifier of "
                      "at most 64 characters", name ? name : "(null)");
  tcmma_kernel_attrs a;
  if ((st = tcmma_kernel_attrs_check(attrs, err)) != TCMMA_OK ||
      (st = take(attrs, &a, err)) != TCMMA_OK)
    return st;
  tcmma__emit_kernel_signature(dialect, &a, name, out);
  tcmma_buf_printf(out, "%s)", params);
  return out->failed ? tcmma_fail(err, TCMMA_NO_MEMORY, "kernel signature: out of memory")
                     : TCMMA_OK;
}

tcmma_status tcmma_render_setmaxnreg(tcmma_dialect dialect, tcmma_setmaxnreg_dir dir, int count,
                                     int depth, tcmma_buf *out, tcmma_error *err) {
  tcmma_status st = dialect_ok(dialect, "setmaxnreg", err);
  if (st != TCMMA_OK) return st;
  if (!out) return tcmma_fail(err, TCMMA_INVALID, "setmaxnreg: out must not be NULL");
  if (dir != TCMMA_SETMAXNREG_DEC && dir != TCMMA_SETMAXNREG_INC)
    return tcmma_fail(err, TCMMA_INVALID, "setmaxnreg: direction %d: expected dec (0) or inc (1)",
                      (int)dir);
  if (depth < 0 || depth > 32)
    return tcmma_fail(err, TCMMA_INVALID, "setmaxnreg: depth %d: expected 0 to 32", depth);
  const tcmma_kernel_attr_info *r = ROW(SETMAXNREG);
  if (!in_row(r, count)) {
    char want[64];
    expected(r, want, sizeof want);
    return tcmma_fail(err, TCMMA_INVALID, "setmaxnreg: count %d: expected %s registers per thread",
                      count, want);
  }
  char op[64];
  snprintf(op, sizeof op, r->cuda, dir == TCMMA_SETMAXNREG_INC ? "inc" : "dec");
  if (dialect == TCMMA_DIALECT_HOST)
    tcmma__emit_line(out, depth, "%s(\"%s\", %d);", r->host, op, count);
  else
    tcmma__emit_line(out, depth, "asm volatile(\"%s %d;\\n\" ::);", op, count);
  return out->failed ? tcmma_fail(err, TCMMA_NO_MEMORY, "setmaxnreg: out of memory") : TCMMA_OK;
}
