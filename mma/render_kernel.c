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

/* Indents body's text from byte start on by one level (a loop's contents). */
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

/* What the kernel's parts share: the plan, and per operand (d, a, b in
 * ops[] order) its element type, the bytes of its shared copy (0: read in
 * place) and the pointer expression the emission reads. */
typedef struct {
  const tcmma_plan *plan;
  tcmma_dialect dl;
  int outer;
  bool async;        /* stage with cp.async */
  const char *type[3];
  long bytes[3];
  char expr[3][160];
} kernel;

static const char *const names[3] = {"d", "a", "b"};

/* The shared copies' sizes, within static shared memory, and every global
 * buffer's bytes within an int (the kernel indexes with ints). */
static tcmma_status size_operands(kernel *k, tcmma_error *err) {
  const tcmma_call *call = &k->plan->call;
  long total = (long)tcmma_kernel_shared_bytes(k->plan, 1);
  for (int i = 0; i < 3; i++) {
    const tcmma_operand_desc *o = tcmma__desc(call, ops[i]);
    long rows, ld;
    tcmma_operand_stored_shape(call, ops[i], &rows, NULL, &ld);
    k->type[i] = tcmma__spell_type(k->dl, o->prec);
    k->bytes[i] = o->space == TCMMA_SPACE_SHARED ? rows * ld * tcmma_prec_bytes(o->prec) : 0;
    total += k->bytes[i];
    long elems = tcmma_kernel_operand_elems(k->plan, k->outer, ops[i]);
    if (elems > INT_MAX / tcmma_prec_bytes(o->prec))
      return tcmma_fail(err, TCMMA_OVERFLOW, "kernel: %s's %d tiles of %ld elements overflow int",
                        names[i], k->outer, elems / k->outer);
  }
  if (total > TCMMA_STATIC_SHARED_MAX)
    return tcmma_fail(err, TCMMA_OVERFLOW,
                      "kernel: %ld bytes of staged operands exceed %d bytes of static shared "
                      "memory", total, TCMMA_STATIC_SHARED_MAX);
  return TCMMA_OK;
}

/* The comment, includes and signature, the prologue and the shared copies. */
static tcmma_status open_kernel(const kernel *k, tcmma_buf *out, tcmma_error *err) {
  const tcmma_call *call = &k->plan->call;
  tcmma_buf_printf(out, "/* tcmma_kernel: %dx%dx%d (%s), %s scope, outer %d, one warp */\n",
                   call->m, call->n, call->k, tcmma_arm_marker(k->plan->arm),
                   tcmma_scope_name(call->scope), k->outer);
  if (k->dl == TCMMA_DIALECT_HOST) tcmma_buf_printf(out, "#include \"tcmma/sim.h\"\n");
  else cuda_includes(k->plan, out);
  tcmma_buf_printf(out, "\n%s tcmma_kernel(%s *d, const %s *a, const %s *b)\n{\n",
                   tcmma__spell(k->dl, TCMMA__SPELL_KERNEL), k->type[0], k->type[1], k->type[2]);
  tcmma_status st = tcmma_kernel_prologue(k->plan, 1, k->dl, out, err);
  if (st != TCMMA_OK) return st;
  for (int i = 0; i < 3; i++)
    if (k->bytes[i])
      tcmma_buf_printf(out, "  %s unsigned char __tcmma_k_%ss[%ld];\n",
                       tcmma__spell(k->dl, TCMMA__SPELL_SHARED), names[i], k->bytes[i]);
  return TCMMA_OK;
}

/* Operand i's tile in global memory at outer step __tcmma_k_r (d: one tile). */
static void global_tile(const kernel *k, int i, char *buf, size_t cap) {
  long rows, ld;
  tcmma_operand_stored_shape(&k->plan->call, ops[i], &rows, NULL, &ld);
  if (i == 0) snprintf(buf, cap, "d");
  else snprintf(buf, cap, "%s + __tcmma_k_r * %ld", names[i], rows * ld);
}

/* The pointer expressions the emission reads: the shared copies, or the
 * global tiles. */
static void operand_exprs(kernel *k) {
  for (int i = 0; i < 3; i++) {
    if (k->bytes[i])
      snprintf(k->expr[i], sizeof k->expr[i], "(%s%s *)__tcmma_k_%ss", i ? "const " : "",
               k->type[i], names[i]);
    else
      global_tile(k, i, k->expr[i], sizeof k->expr[i]);
  }
}

/* Copies operand i's global tile into its shared copy. */
static tcmma_status stage(const kernel *k, int i, tcmma_buf *body, tcmma_error *err) {
  const tcmma_operand_desc *o = tcmma__desc(&k->plan->call, ops[i]);
  long rows, cols, ld;
  tcmma_operand_stored_shape(&k->plan->call, ops[i], &rows, &cols, &ld);
  char dst[64], src[96];
  snprintf(dst, sizeof dst, "__tcmma_k_%ss", names[i]);
  global_tile(k, i, src, sizeof src);
  return tcmma_render_stage(k->dl, k->async, dst, src, rows, cols, ld, ld,
                            tcmma_prec_bytes(o->prec), o->layout, k->plan->call.lane, body, err);
}

/* The outer reduction: `outer` steps that restage a and b and run one
 * statement (or fragment update), between the fragment's open and close.
 * It stays a loop, as in the caller's kernel, so the PTX holds exactly one
 * statement's worth of products (a census that cannot depend on the
 * compiler's unrolling whim). Every block goes into one buffer, so their
 * local names never repeat. */
static tcmma_status reduction(const kernel *k, tcmma_buf *body, tcmma_error *err) {
  const tcmma_plan *plan = k->plan;
  bool frag = plan->call.scope == TCMMA_SCOPE_FRAGMENT;
  const char *F = "__tcmma_k_frag";
  tcmma_status st = TCMMA_OK;
  if (frag) st = tcmma_render_fragment_open(plan, k->dl, F, k->expr[0], body, err);
  if (st != TCMMA_OK) return st;
  tcmma_buf_printf(body, "%s\nfor (int __tcmma_k_r = 0; __tcmma_k_r < %d; ++__tcmma_k_r) {\n",
                   tcmma__spell(k->dl, TCMMA__SPELL_KEEP_LOOP), k->outer);
  size_t loop_start = body->len;
  for (int i = 1; i < 3 && st == TCMMA_OK; i++)
    if (k->bytes[i]) st = stage(k, i, body, err);
  if (st != TCMMA_OK) return st;
  if (frag) st = tcmma_render_fragment_update(plan, k->dl, F, k->expr[1], k->expr[2], body, err);
  else st = tcmma_render_statement(plan, k->dl, k->expr[0], k->expr[1], k->expr[2], body, err);
  if (st != TCMMA_OK) return st;
  tcmma_buf_printf(body, "%s; /* the next step restages shared operands */\n",
                   tcmma__spell(k->dl, TCMMA__SPELL_SYNCWARP));
  indent_from(body, loop_start);
  tcmma_buf_printf(body, "}\n");
  return frag ? tcmma_render_fragment_close(plan, k->dl, F, k->expr[0], body, err) : TCMMA_OK;
}

/* d back from its shared copy to global, through its layout's address map. */
static void write_back_d(const kernel *k, tcmma_buf *body) {
  const tcmma_plan *plan = k->plan;
  long rows, cols, ld;
  tcmma_operand_stored_shape(&plan->call, TCMMA_OPERAND_C, &rows, &cols, &ld);
  int eb = tcmma_prec_bytes(plan->call.d.prec);
  char laneb[256], off[600], r[64], c[64];
  tcmma__lane_expr(plan, k->dl, laneb, sizeof laneb);
  snprintf(r, sizeof r, "__tcmma_k_i / %ld", cols);
  snprintf(c, sizeof c, "__tcmma_k_i %% %ld", cols);
  tcmma__operand_offset(off, sizeof off, &plan->call.d, r, c);
  tcmma_buf_printf(body, "%s;\n", tcmma__spell(k->dl, TCMMA__SPELL_SYNCWARP));
  tcmma_buf_printf(body, "for (int __tcmma_k_i = (int)(%s); __tcmma_k_i < %ld; "
                         "__tcmma_k_i += %d) {\n", laneb, rows * cols, TCMMA_WARP_SIZE);
  tcmma_buf_printf(body, "  *(%s *)((unsigned char *)d + ((__tcmma_k_i / %ld) * %ld + "
                         "__tcmma_k_i %% %ld) * %d) =\n"
                         "      *(const %s *)(__tcmma_k_ds + %s);\n}\n",
                   tcmma__bits_type(eb), cols, ld, cols, eb, tcmma__bits_type(eb), off);
}

/* The body one level inside the kernel, the closing brace, and in the host
 * dialect the simulator's entry trampoline. */
static void close_kernel(const kernel *k, const tcmma_buf *body, tcmma_buf *out) {
  append_indented(out, tcmma_buf_str(body));
  tcmma_buf_printf(out, "}\n");
  if (k->dl == TCMMA_DIALECT_HOST)
    tcmma_buf_printf(out,
                     "\n/* The simulator's entry: args is a void *[3] of d, a, b. */\n"
                     "void tcmma_kernel_entry(void *args)\n{\n"
                     "  void **p = (void **)args;\n"
                     "  tcmma_kernel((%s *)p[0], (const %s *)p[1], (const %s *)p[2]);\n}\n",
                     k->type[0], k->type[1], k->type[2]);
}

tcmma_status tcmma_render_kernel(const tcmma_plan *plan, tcmma_dialect dl, int outer,
                                 tcmma_buf *out, tcmma_error *err) {
  tcmma_status st = tcmma__check(plan, dl, NULL, 0, out, err);
  if (st != TCMMA_OK) return st;
  if (outer < 1 || outer > TCMMA_KERNEL_OUTER_MAX)
    return tcmma_fail(err, TCMMA_INVALID, "outer %d: expected 1 to %d update steps", outer,
                      TCMMA_KERNEL_OUTER_MAX);
  /* cp.async's floor (tables/markers.def): the kernel stages with it only
   * when the arm's floor already reaches it, so it never raises its arm's */
  kernel k = {.plan = plan, .dl = dl, .outer = outer,
              .async = tcmma_arm_get(plan->arm)->floor >=
                       tcmma_marker_floor(TCMMA_MARKER_CP_ASYNC)};
  if ((st = size_operands(&k, err)) != TCMMA_OK || (st = open_kernel(&k, out, err)) != TCMMA_OK)
    return st;
  operand_exprs(&k);
  tcmma_buf body = {0};
  if (k.bytes[0]) st = stage(&k, 0, &body, err);
  if (st == TCMMA_OK) st = reduction(&k, &body, err);
  if (st == TCMMA_OK && k.bytes[0]) write_back_d(&k, &body);
  if (st == TCMMA_OK && body.failed) st = tcmma_fail(err, TCMMA_NO_MEMORY, "out of memory");
  if (st == TCMMA_OK) close_kernel(&k, &body, out);
  tcmma_buf_free(&body);
  if (st == TCMMA_OK && out->failed) st = tcmma_fail(err, TCMMA_NO_MEMORY, "out of memory");
  return st;
}
