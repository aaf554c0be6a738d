/* A complete one-warp kernel around one plan: stage shared operands, run the
 * emission (statement, or a fragment scope over an outer reduction), write d
 * back. The HOST dialect adds the simulator's entry trampoline. */
#include <limits.h>
#include <stdio.h>
#include <string.h>
#include "tcmma/arch.h"
#include "emit.h"

static const tcmma_operand ops[3] = {TCMMA_OPERAND_C, TCMMA_OPERAND_A, TCMMA_OPERAND_B};

long tcmma_kernel_operand_elems(const tcmma_plan *plan, int outer, tcmma_operand op) {
  if (!plan || !plan->accepted || outer < 1 || (unsigned)op > TCMMA_OPERAND_C) return -1;
  long rows, ld;
  tcmma_operand_stored_shape(&plan->call, op, &rows, NULL, &ld);
  return rows * ld * (op == TCMMA_OPERAND_C ? 1 : outer);
}

long tcmma_kernel_operand_index(const tcmma_plan *plan, tcmma_operand op, int step, long i,
                                long j) {
  if (!plan || !plan->accepted || step < 0 || (unsigned)op > TCMMA_OPERAND_C) return -1;
  long rows, cols, ld;
  tcmma_operand_stored_shape(&plan->call, op, &rows, &cols, &ld);
  bool t = tcmma__desc(&plan->call, op)->transposed;
  long sr = t ? j : i, sc = t ? i : j;
  if (i < 0 || j < 0 || sr >= rows || sc >= cols || (op == TCMMA_OPERAND_C && step != 0))
    return -1;
  return (long)step * rows * ld + sr * ld + sc;
}

static bool uses_prec(const tcmma_plan *p, tcmma_prec prec) {
  for (int i = 0; i < 3; i++)
    if (tcmma__desc(&p->call, ops[i])->prec == prec) return true;
  return false;
}

/* The CUDA headers the kernel needs: those of its operands' precisions
 * (tables/prec.def, in table order, each once), then its arm's. */
static void cuda_includes(const tcmma_plan *plan, tcmma_buf *out) {
  const char *done[TCMMA_PREC_COUNT];
  int n = 0;
  for (int p = 0; p < TCMMA_PREC_COUNT; p++) {
    const char *h = tcmma_prec_header((tcmma_prec)p);
    bool skip = !*h || !uses_prec(plan, (tcmma_prec)p);
    for (int i = 0; i < n && !skip; i++) skip = strcmp(done[i], h) == 0;
    if (skip) continue;
    done[n++] = h;
    tcmma_buf_printf(out, "#include <%s>\n", h);
  }
  const char *arm = tcmma_arm_get(plan->arm)->header;
  if (*arm) tcmma_buf_printf(out, "#include <%s>\n", arm);
}

/* Indents body's text from byte start on by one level (a loop's contents). */
/* Appends s to dst one level deeper; preprocessor lines other than
 * pragmas (which belong to the loop below them) stay in column 0. */
static void append_indented(tcmma_buf *dst, const char *s) {
  while (*s) {
    const char *nl = strchr(s, '\n');
    size_t n = nl ? (size_t)(nl - s + 1) : strlen(s);
    if (n > 1 && (s[0] != '#' || strncmp(s, "#pragma", 7) == 0)) tcmma_buf_append(dst, "  ", 2);
    tcmma_buf_append(dst, s, n);
    s += n;
  }
}

static void indent_from(tcmma_buf *body, size_t start) {
  if (body->failed || start >= body->len) return;
  tcmma_buf tail = {0};
  append_indented(&tail, body->data + start);
  body->len = start;
  body->data[start] = '\0';
  tcmma_buf_append(body, tcmma_buf_str(&tail), tail.len);
  if (tail.failed) body->failed = true;
  tcmma_buf_free(&tail);
}

tcmma_status tcmma_render_kernel(const tcmma_plan *plan, tcmma_dialect dl, int outer,
                                 tcmma_buf *out, tcmma_error *err) {
  tcmma_status st = tcmma__check(plan, dl, NULL, 0, out, err);
  if (st != TCMMA_OK) return st;
  if (outer < 1 || outer > TCMMA_KERNEL_OUTER_MAX)
    return tcmma_fail(err, TCMMA_INVALID, "outer %d: expected 1 to %d update steps", outer,
                      TCMMA_KERNEL_OUTER_MAX);
  const tcmma_arm_info *info = tcmma_arm_get(plan->arm);
  bool frag = plan->call.scope == TCMMA_SCOPE_FRAGMENT;
  /* cp.async's floor (tables/markers.def): the kernel stages with it only
   * when the arm's floor already reaches it, so it never raises its arm's */
  bool async = info->floor >= tcmma_marker_floor(TCMMA_MARKER_CP_ASYNC);
  const char *names[3] = {"d", "a", "b"};
  long bytes[3] = {0, 0, 0}, total = (long)tcmma_kernel_shared_bytes(plan, 1);
  for (int i = 0; i < 3; i++) {
    const tcmma_operand_desc *o = tcmma__desc(&plan->call, ops[i]);
    long rows, ld;
    tcmma_operand_stored_shape(&plan->call, ops[i], &rows, NULL, &ld);
    if (o->space == TCMMA_SPACE_SHARED) bytes[i] = rows * ld * tcmma_prec_bytes(o->prec);
    total += bytes[i];
    long elems = tcmma_kernel_operand_elems(plan, outer, ops[i]);
    if (elems > INT_MAX / tcmma_prec_bytes(o->prec)) /* the kernel indexes bytes with ints */
      return tcmma_fail(err, TCMMA_OVERFLOW, "kernel: %s's %d tiles of %ld elements overflow int",
                        names[i], outer, elems / outer);
  }
  if (total > TCMMA_STATIC_SHARED_MAX)
    return tcmma_fail(err, TCMMA_OVERFLOW,
                      "kernel: %ld bytes of staged operands exceed %d bytes of static shared "
                      "memory", total, TCMMA_STATIC_SHARED_MAX);
  const char *type[3];
  for (int i = 0; i < 3; i++)
    type[i] = tcmma__spell_type(dl, tcmma__desc(&plan->call, ops[i])->prec);

  tcmma_buf_printf(out, "/* tcmma_kernel: %dx%dx%d (%s), %s scope, outer %d, one warp */\n",
                   plan->call.m, plan->call.n, plan->call.k, info->marker,
                   tcmma_scope_name(plan->call.scope), outer);
  if (dl == TCMMA_DIALECT_HOST) {
    tcmma_buf_printf(out, "#include \"tcmma/sim.h\"\n");
  } else {
    cuda_includes(plan, out);
  }
  tcmma_buf_printf(out, "\n%s tcmma_kernel(%s *d, const %s *a, const %s *b)\n{\n",
                   tcmma__spell(dl, TCMMA__SPELL_KERNEL), type[0], type[1], type[2]);
  if ((st = tcmma_kernel_prologue(plan, 1, dl, out, err)) != TCMMA_OK) return st;
  for (int i = 0; i < 3; i++)
    if (bytes[i])
      tcmma_buf_printf(out, "  %s unsigned char __tcmma_k_%ss[%ld];\n",
                       tcmma__spell(dl, TCMMA__SPELL_SHARED), names[i], bytes[i]);

  /* the pointer expressions the emission reads: shared copies or the
   * global tile of step __tcmma_k_r */
  char expr[3][160];
  for (int i = 0; i < 3; i++) {
    long rows, ld;
    tcmma_operand_stored_shape(&plan->call, ops[i], &rows, NULL, &ld);
    if (bytes[i])
      snprintf(expr[i], sizeof expr[i], "(%s%s *)__tcmma_k_%ss", i ? "const " : "", type[i],
               names[i]);
    else if (i == 0)
      snprintf(expr[i], sizeof expr[i], "d");
    else
      snprintf(expr[i], sizeof expr[i], "%s + __tcmma_k_r * %ld", names[i], rows * ld);
  }
  tcmma_buf body = {0};
  const char *lane = plan->call.lane;
  for (int i = 0; i < 3 && st == TCMMA_OK; i++) {
    if (!bytes[i] || i != 0) continue;
    long rows, cols, ld;
    tcmma_operand_stored_shape(&plan->call, ops[i], &rows, &cols, &ld);
    const tcmma_operand_desc *o = tcmma__desc(&plan->call, ops[i]);
    char dst[64];
    snprintf(dst, sizeof dst, "__tcmma_k_%ss", names[i]);
    st = tcmma_render_stage(dl, async, dst, "d", rows, cols, ld, ld, tcmma_prec_bytes(o->prec),
                            o->layout, lane, &body, err);
  }
  if (st == TCMMA_OK && frag)
    st = tcmma_render_fragment_open(plan, dl, "__tcmma_k_frag", expr[0], &body, err);
  /* the outer reduction stays a loop, as in the caller's kernel, so the
   * PTX holds exactly one statement's worth of products (a census that
   * cannot depend on the compiler's unrolling whim) */
  if (st == TCMMA_OK)
    tcmma_buf_printf(&body, "%s\nfor (int __tcmma_k_r = 0; __tcmma_k_r < %d; ++__tcmma_k_r) {\n",
                     tcmma__spell(dl, TCMMA__SPELL_KEEP_LOOP), outer);
  size_t loop_start = body.len;
  for (int i = 1; i < 3 && st == TCMMA_OK; i++) {
    if (!bytes[i]) continue;
    long rows, cols, ld;
    tcmma_operand_stored_shape(&plan->call, ops[i], &rows, &cols, &ld);
    const tcmma_operand_desc *o = tcmma__desc(&plan->call, ops[i]);
    char dst[64], src[96];
    snprintf(dst, sizeof dst, "__tcmma_k_%ss", names[i]);
    snprintf(src, sizeof src, "%s + __tcmma_k_r * %ld", names[i], rows * ld);
    st = tcmma_render_stage(dl, async, dst, src, rows, cols, ld, ld, tcmma_prec_bytes(o->prec),
                            o->layout, lane, &body, err);
  }
  /* every block goes into one buffer, so their local names never repeat */
  if (st == TCMMA_OK) {
    if (frag)
      st = tcmma_render_fragment_update(plan, dl, "__tcmma_k_frag", expr[1], expr[2], &body, err);
    else
      st = tcmma_render_statement(plan, dl, expr[0], expr[1], expr[2], &body, err);
  }
  if (st == TCMMA_OK) {
    tcmma_buf_printf(&body, "%s; /* the next step restages shared operands */\n",
                     tcmma__spell(dl, TCMMA__SPELL_SYNCWARP));
    indent_from(&body, loop_start);
    tcmma_buf_printf(&body, "}\n");
    if (frag) st = tcmma_render_fragment_close(plan, dl, "__tcmma_k_frag", expr[0], &body, err);
  }
  if (st == TCMMA_OK && bytes[0]) {
    /* d back from shared to global, through its layout's address map */
    long rows, cols, ld;
    tcmma_operand_stored_shape(&plan->call, TCMMA_OPERAND_C, &rows, &cols, &ld);
    int eb = tcmma_prec_bytes(plan->call.d.prec);
    char laneb[256], off[600], r[64], c[64];
    tcmma__lane_expr(plan, dl, laneb, sizeof laneb);
    snprintf(r, sizeof r, "__tcmma_k_i / %ld", cols);
    snprintf(c, sizeof c, "__tcmma_k_i %% %ld", cols);
    tcmma__operand_offset(off, sizeof off, &plan->call.d, r, c);
    tcmma_buf_printf(&body, "%s;\n", tcmma__spell(dl, TCMMA__SPELL_SYNCWARP));
    tcmma_buf_printf(&body, "for (int __tcmma_k_i = (int)(%s); __tcmma_k_i < %ld; "
                            "__tcmma_k_i += %d) {\n", laneb, rows * cols, TCMMA_WARP_SIZE);
    tcmma_buf_printf(&body, "  *(%s *)((unsigned char *)d + ((__tcmma_k_i / %ld) * %ld + "
                            "__tcmma_k_i %% %ld) * %d) =\n"
                            "      *(const %s *)(__tcmma_k_ds + %s);\n}\n",
                     tcmma__bits_type(eb), cols, ld, cols, eb, tcmma__bits_type(eb), off);
  }
  if (st == TCMMA_OK && body.failed) st = tcmma_fail(err, TCMMA_NO_MEMORY, "out of memory");
  if (st == TCMMA_OK) {
    append_indented(out, tcmma_buf_str(&body)); /* one level inside the kernel */
    tcmma_buf_printf(out, "}\n");
    if (dl == TCMMA_DIALECT_HOST)
      tcmma_buf_printf(out,
                       "\n/* The simulator's entry: args is a void *[3] of d, a, b. */\n"
                       "void tcmma_kernel_entry(void *args)\n{\n"
                       "  void **p = (void **)args;\n"
                       "  tcmma_kernel((%s *)p[0], (const %s *)p[1], (const %s *)p[2]);\n}\n",
                       type[0], type[1], type[2]);
  }
  tcmma_buf_free(&body);
  if (st == TCMMA_OK && out->failed) st = tcmma_fail(err, TCMMA_NO_MEMORY, "out of memory");
  return st;
}
