/* A complete one-warp kernel around one plan: stage shared operands, run the
 * emission (statement, a fragment scope over an outer reduction, or the
 * pieces composed with double-buffered fragments), write d back. The HOST
 * dialect adds the simulator's entry trampoline. */
#include <limits.h>
#include <stdio.h>
#include <string.h>
#include "tcmma/arch.h"
#include "abi.h"
#include "emit.h"

static const tcmma_operand ops[3] = {TCMMA_OPERAND_C, TCMMA_OPERAND_A, TCMMA_OPERAND_B};

/* Whether plan passes the renderers' check (the layout has no error to say
 * why). Harnesses index every element through these functions, and planning
 * an arm whose fragments it gathers takes a while: each thread remembers the
 * last plan it checked, byte for byte, and does not plan an identical one
 * again (the layout reads no expression text, the one input bytes miss). */
static bool checked(const tcmma_plan *plan) {
  static _Thread_local struct {
    bool valid;
    tcmma_plan plan;
  } last;
  if (!plan) return false;
  if (last.valid && !memcmp(&last.plan, plan, sizeof *plan)) return true;
  if (tcmma__emit_plan_check(plan, "", NULL) != TCMMA_OK) return false;
  memcpy(&last.plan, plan, sizeof *plan);
  last.valid = true;
  return true;
}

/* The rows of op's parent up to the sub-tile's end (the origin's value). */
static long parent_rows(const tcmma_plan *plan, tcmma_operand op) {
  return tcmma__emit_desc(&plan->call, op)->row0.value + plan->stored[op].rows;
}

long tcmma_kernel_operand_elems(const tcmma_plan *plan, int outer, tcmma_operand op) {
  if (!checked(plan) || outer < 1 || (unsigned)op > TCMMA_OPERAND_C) return -1;
  return parent_rows(plan, op) * plan->stored[op].ld * (op == TCMMA_OPERAND_C ? 1 : outer);
}

long tcmma_kernel_operand_index(const tcmma_plan *plan, tcmma_operand op, int step, long i,
                                long j) {
  if (!checked(plan) || step < 0 || (unsigned)op > TCMMA_OPERAND_C) return -1;
  const tcmma_stored_shape *sh = &plan->stored[op];
  long rows = sh->rows, cols = sh->cols, ld = sh->ld;
  const tcmma_operand_desc *o = tcmma__emit_desc(&plan->call, op);
  long sr = o->transposed ? j : i, sc = o->transposed ? i : j;
  if (i < 0 || j < 0 || sr >= rows || sc >= cols || (op == TCMMA_OPERAND_C && step != 0))
    return -1;
  return (long)step * parent_rows(plan, op) * ld + (o->row0.value + sr) * ld + o->col0.value + sc;
}

/* The scale parent of a block-scaled plan's operand op: rows and leading
 * dimension, 0 for a plan without scales. */
static long scale_parent(const tcmma_plan *plan, tcmma_operand op, long *ld) {
  int block = tcmma_arm_get(plan->arm)->scale_block;
  long rows = 0;
  *ld = 0;
  if (block) tcmma_operand_scale_shape(&plan->call, op, block, &rows, NULL, ld, NULL, NULL);
  return rows;
}

long tcmma_kernel_scale_elems(const tcmma_plan *plan, int outer, tcmma_operand op) {
  if (!checked(plan) || outer < 1 ||
      (op != TCMMA_OPERAND_A && op != TCMMA_OPERAND_B))
    return -1;
  long ld, rows = scale_parent(plan, op, &ld);
  return rows * ld * outer;
}

long tcmma_kernel_scale_index(const tcmma_plan *plan, tcmma_operand op, int step, long i,
                              long kb) {
  if (!checked(plan) || step < 0 || (op != TCMMA_OPERAND_A && op != TCMMA_OPERAND_B))
    return -1;
  long ld, rows = scale_parent(plan, op, &ld);
  int block = tcmma_arm_get(plan->arm)->scale_block;
  long extent = op == TCMMA_OPERAND_A ? plan->call.m : plan->call.n;
  if (!rows || i < 0 || i >= extent || kb < 0 || kb >= plan->call.k / block) return -1;
  const tcmma_coord *fc, *kc;
  tcmma_operand_scale_shape(&plan->call, op, block, NULL, NULL, NULL, &fc, &kc);
  return (long)step * rows * ld + (fc->value + i) * ld + kc->value / block + kb;
}

/* Indents body's text from byte start on by one level (a loop's contents). */
static void indent_from(tcmma_buf *body, size_t start) {
  if (body->failed || start >= body->len) return;
  tcmma_buf tail = {0};
  tcmma__emit_append_indented(&tail, body->data + start, 1);
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
  bool pieces;       /* compose the update from the pieces, double-buffered */
  bool async;        /* stage with cp.async */
  tcmma_names names; /* every block of the kernel */
  const char *type[3];
  long bytes[3];
  bool indexed;      /* bases offset by block and warp indices (0 at run time) */
  char expr[3][TCMMA__EXPR_TEXT];
  bool scaled;       /* block scales: parameters sa and sb, read in place */
  tcmma_plan own;    /* a scaled plan with the kernel's scale expressions */
  char scale[2][TCMMA_EXPR_MAX + 1];
  tcmma_render_ctx rc; /* the plan's blocks, named by names, into the kernel's body */
} kernel;

static const char *const names[3] = {"d", "a", "b"};

/* The shared copies' sizes, within static shared memory, and every global
 * buffer's bytes within an int (the kernel indexes with ints). */
static tcmma_status size_operands(kernel *k, tcmma_error *err) {
  const tcmma_call *call = &k->plan->call;
  long total = (long)tcmma_kernel_shared_bytes(k->plan, 1);
  for (int i = 0; i < 3; i++) {
    const tcmma_operand_desc *o = tcmma__emit_desc(call, ops[i]);
    long ld = k->plan->stored[ops[i]].ld;
    k->type[i] = tcmma__table_spell_type(k->dl, o->prec);
    k->bytes[i] = o->space == TCMMA_SPACE_SHARED
                      ? parent_rows(k->plan, ops[i]) * ld * tcmma_prec_bytes(o->prec) : 0;
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
  tcmma_buf_printf(out, "/* tcmma_kernel: %dx%dx%d (%s), %s, outer %d, one warp */\n",
                   call->m, call->n, call->k, tcmma_arm_marker(k->plan->arm),
                   k->pieces ? "pieces, double-buffered fragments"
                   : call->scope == TCMMA_SCOPE_FRAGMENT ? "fragment scope" : "statement scope",
                   k->outer);
  tcmma_render_ctx oc = tcmma_render_ctx_make(k->plan, k->dl, NULL, out);
  tcmma_status st = tcmma_render_includes(&oc, false, err);
  if (st != TCMMA_OK) return st;
  tcmma_buf_printf(out, "\n");
  tcmma__emit_kernel_signature(k->dl, NULL, "tcmma_kernel", out);
  tcmma_buf_printf(out, "%s *d, const %s *a, const %s *b%s)\n{\n", k->type[0], k->type[1],
                   k->type[2],
                   k->scaled ? ", const unsigned char *sa, const unsigned char *sb" : "");
  st = tcmma_kernel_prologue(&oc, k->plan, 1, err);
  if (st != TCMMA_OK) return st;
  for (int i = 0; i < 3; i++)
    if (k->bytes[i])
      tcmma_buf_printf(out, "  %s unsigned char __tcmma_k_%ss[%ld];\n",
                       tcmma__table_spell(k->dl, TCMMA__SPELL_SHARED), names[i], k->bytes[i]);
  return TCMMA_OK;
}

/* Operand i's tile in global memory at outer step __tcmma_k_r (d: one tile). */
static void global_tile(const kernel *k, int i, char *buf, size_t cap) {
  long ld = k->plan->stored[ops[i]].ld;
  if (i == 0) snprintf(buf, cap, "d");
  else snprintf(buf, cap, "%s + __tcmma_k_r * %ld", names[i], parent_rows(k->plan, ops[i]) * ld);
}

/* The pointer expressions the emission reads: the shared copies, or the
 * global tiles. */
static void operand_exprs(kernel *k) {
  for (int i = 0; i < 3; i++) {
    char base[200];
    if (k->bytes[i])
      snprintf(base, sizeof base, "(%s%s *)__tcmma_k_%ss", i ? "const " : "", k->type[i],
               names[i]);
    else
      global_tile(k, i, base, sizeof base);
    if (!k->indexed) {
      snprintf(k->expr[i], sizeof k->expr[i], "%s", base);
      continue;
    }
    /* a block and warp tile's columns, added to the pointer as unsigned
     * terms the way a generator's tile bases are (multiples of 64
     * elements: the pointer contract's alignment holds, and the compiler
     * cannot see it from the kernel's parameters); 0 in a one-warp launch */
    char idx[160];
    tcmma__emit_expr(k->dl, "blockIdx.x * 128 + (threadIdx.x / 64) * 64", idx, sizeof idx);
    snprintf(k->expr[i], sizeof k->expr[i], "%s + %s", base, idx);
  }
}

/* Copies operand i's global parent tile (up to the sub-tile's end) into its
 * shared copy. */
static tcmma_status stage(kernel *k, int i, tcmma_error *err) {
  const tcmma_operand_desc *o = tcmma__emit_desc(&k->plan->call, ops[i]);
  const tcmma_stored_shape *sh = &k->plan->stored[ops[i]];
  char dst[64], src[96];
  snprintf(dst, sizeof dst, "__tcmma_k_%ss", names[i]);
  global_tile(k, i, src, sizeof src);
  tcmma_stage_opts so = tcmma_stage_opts_default();
  so.async = k->async, so.dst = dst, so.src = src;
  so.rows = parent_rows(k->plan, ops[i]), so.cols = o->col0.value + sh->cols;
  so.dst_ld = so.src_ld = sh->ld;
  so.elem_bytes = tcmma_prec_bytes(o->prec), so.swizzle = o->swizzle, so.lane = k->plan->call.lane;
  return tcmma_render_stage(&k->rc, &so, err);
}

/* One update from the pieces, fragments double-buffered: k step 0 loads
 * into buffer 0; step s loads step s+1 into the other buffer, then
 * multiplies its own (a generator's own code would go between). */
static tcmma_status pieces_update(kernel *k, const char *acc, tcmma_buf *body,
                                  tcmma_error *err) {
  const tcmma_plan *p = k->plan;
  const char *af = "__tcmma_k_af", *bf = "__tcmma_k_bf";
  tcmma_status st = tcmma_render_frag_load(&k->rc, TCMMA_OPERAND_A, "__tcmma_k_af[0]", k->expr[1],
                                           "0", err);
  if (st == TCMMA_OK)
    st = tcmma_render_frag_load(&k->rc, TCMMA_OPERAND_B, "__tcmma_k_bf[0]", k->expr[2], "0", err);
  if (st != TCMMA_OK) return st;
  tcmma_buf_printf(body, "%s\nfor (int __tcmma_k_s = 0; __tcmma_k_s < %d; ++__tcmma_k_s) {\n",
                   tcmma__table_spell(k->dl, TCMMA__SPELL_UNROLL), p->kt);
  size_t loop_start = body->len;
  char next[2][64], cur[2][64];
  for (int i = 0; i < 2; i++) {
    snprintf(next[i], sizeof next[i], "%s[(__tcmma_k_s + 1) & 1]", i ? bf : af);
    snprintf(cur[i], sizeof cur[i], "%s[__tcmma_k_s & 1]", i ? bf : af);
  }
  tcmma_buf_printf(body, "if (__tcmma_k_s + 1 < %d) {\n", p->kt);
  size_t if_start = body->len;
  st = tcmma_render_frag_load(&k->rc, TCMMA_OPERAND_A, next[0], k->expr[1], "__tcmma_k_s + 1", err);
  if (st == TCMMA_OK)
    st = tcmma_render_frag_load(&k->rc, TCMMA_OPERAND_B, next[1], k->expr[2], "__tcmma_k_s + 1",
                                err);
  if (st != TCMMA_OK) return st;
  indent_from(body, if_start);
  tcmma_buf_printf(body, "}\n/* a generator's own code between k steps goes here */\n");
  st = tcmma_render_frag_mma(&k->rc, acc, cur[0], cur[1], err);
  if (st != TCMMA_OK) return st;
  indent_from(body, loop_start);
  tcmma_buf_printf(body, "}\n");
  return TCMMA_OK;
}

/* The outer reduction: `outer` steps that restage a and b and run one
 * statement (or fragment update), between the fragment's open and close.
 * It stays a loop, as in the caller's kernel, so the PTX holds exactly one
 * statement's worth of products (a census that cannot depend on the
 * compiler's unrolling whim). Every block goes into one buffer, so their
 * local names never repeat. */
static tcmma_status reduction(kernel *k, tcmma_buf *body, tcmma_error *err) {
  const tcmma_plan *plan = k->plan;
  bool frag = plan->call.scope == TCMMA_SCOPE_FRAGMENT && !k->pieces;
  const char *F = "__tcmma_k_frag";
  tcmma_status st = TCMMA_OK;
  if (frag) st = tcmma_render_fragment_open(&k->rc, F, k->expr[0], err);
  if (k->pieces) {
    st = tcmma_render_frag_decl(&k->rc, TCMMA_OPERAND_C, F, 0, err);
    if (st == TCMMA_OK) st = tcmma_render_acc_init(&k->rc, F, k->expr[0], err);
    if (st == TCMMA_OK)
      st = tcmma_render_frag_decl(&k->rc, TCMMA_OPERAND_A, "__tcmma_k_af", 2, err);
    if (st == TCMMA_OK)
      st = tcmma_render_frag_decl(&k->rc, TCMMA_OPERAND_B, "__tcmma_k_bf", 2, err);
  }
  if (st != TCMMA_OK) return st;
  tcmma_buf_printf(body, "%s\nfor (int __tcmma_k_r = 0; __tcmma_k_r < %d; ++__tcmma_k_r) {\n",
                   tcmma__table_spell(k->dl, TCMMA__SPELL_KEEP_LOOP), k->outer);
  size_t loop_start = body->len;
  for (int i = 1; i < 3 && st == TCMMA_OK; i++)
    if (k->bytes[i]) st = stage(k, i, err);
  if (st != TCMMA_OK) return st;
  if (k->pieces) st = pieces_update(k, F, body, err);
  else if (frag)
    st = tcmma_render_fragment_update(&k->rc, F, k->expr[1], k->expr[2], err);
  else
    st = tcmma_render_statement(&k->rc, k->expr[0], k->expr[1], k->expr[2], err);
  if (st != TCMMA_OK) return st;
  tcmma_buf_printf(body, "%s; /* the next step restages shared operands */\n",
                   tcmma__table_spell(k->dl, TCMMA__SPELL_SYNCWARP));
  indent_from(body, loop_start);
  tcmma_buf_printf(body, "}\n");
  if (k->pieces) return tcmma_render_acc_store(&k->rc, F, k->expr[0], err);
  return frag ? tcmma_render_fragment_close(&k->rc, F, k->expr[0], err)
              : TCMMA_OK;
}

/* d back from its shared copy to global, through its layout's address map. */
static void write_back_d(const kernel *k, tcmma_buf *body) {
  const tcmma_plan *plan = k->plan;
  long rows = parent_rows(plan, TCMMA_OPERAND_C);
  long cols = plan->stored[TCMMA_OPERAND_C].cols, ld = plan->stored[TCMMA_OPERAND_C].ld;
  cols += plan->call.d.col0.value; /* the parent's columns up to the sub-tile's end */
  int eb = tcmma_prec_bytes(plan->call.d.prec);
  char laneb[TCMMA__EXPR_TEXT], off[TCMMA__ADDR_TEXT], r[64], c[64];
  tcmma__emit_lane_expr(plan, k->dl, laneb, sizeof laneb);
  snprintf(r, sizeof r, "__tcmma_k_i / %ld", cols);
  snprintf(c, sizeof c, "__tcmma_k_i %% %ld", cols);
  tcmma__emit_offset_expr(off, sizeof off, plan->call.d.swizzle, ld, eb, r, c);
  tcmma_buf_printf(body, "%s;\n", tcmma__table_spell(k->dl, TCMMA__SPELL_SYNCWARP));
  tcmma_buf_printf(body, "for (int __tcmma_k_i = (int)(%s); __tcmma_k_i < %ld; "
                         "__tcmma_k_i += %d) {\n", laneb, rows * cols, TCMMA_WARP_SIZE);
  tcmma_buf_printf(body,
                   "  *(%s *)((unsigned char *)d + ((__tcmma_k_i / %ld) * %ld + "
                   "__tcmma_k_i %% %ld) * %d) =\n"
                   "      *(const %s *)(__tcmma_k_ds + %s);\n}\n",
                   tcmma__emit_bits_type(eb), cols, ld, cols, eb, tcmma__emit_bits_type(eb), off);
}

/* The body one level inside the kernel, the closing brace, and in the host
 * dialect the simulator's entry trampoline. */
static void close_kernel(const kernel *k, const tcmma_buf *body, tcmma_buf *out) {
  tcmma__emit_append_indented(out, tcmma_buf_str(body), 1);
  tcmma_buf_printf(out, "}\n");
  if (k->dl == TCMMA_DIALECT_HOST)
    tcmma_buf_printf(out,
                     "\n/* The simulator's entry: args is a void *[%d] of d, a, b%s. */\n"
                     "void tcmma_kernel_entry(void *args)\n{\n"
                     "  void **p = (void **)args;\n"
                     "  tcmma_kernel((%s *)p[0], (const %s *)p[1], (const %s *)p[2]%s);\n}\n",
                     k->scaled ? 5 : 3, k->scaled ? ", sa, sb" : "", k->type[0], k->type[1],
                     k->type[2],
                     k->scaled ? ", (const unsigned char *)p[3], (const unsigned char *)p[4]"
                               : "");
}

tcmma_status tcmma_render_kernel(const tcmma_render_ctx *ctx, const tcmma_kernel_opts *opts,
                                 tcmma_error *err) {
  tcmma_status st = tcmma__emit_check(ctx, NULL, 0, err);
  if (st != TCMMA_OK) return st;
  const tcmma_plan *plan = ctx->plan;
  tcmma_dialect dl = ctx->dialect;
  tcmma_buf *out = ctx->out;
  /* the caller's options as this library's whole struct (an older, smaller
   * one gets the defaults for the rest) */
  tcmma_kernel_opts taken = tcmma_kernel_opts_default();
  if (opts && (st = tcmma__abi_take(&taken, opts, sizeof taken, &taken, "tcmma_kernel_opts",
                                    "tcmma_kernel_opts_default() or TCMMA_KERNEL_OPTS_INIT",
                                    err)) != TCMMA_OK)
    return st;
  if (opts) opts = &taken;
  int outer = opts && opts->outer ? opts->outer : 1;
  if (outer < 1 || outer > TCMMA_KERNEL_OUTER_MAX)
    return tcmma_fail(err, TCMMA_INVALID, "outer %d: expected 1 to %d update steps", outer,
                      TCMMA_KERNEL_OUTER_MAX);
  /* cp.async's floor (tables/markers.def): the kernel stages with it only
   * when the arm's floor already reaches it, so it never raises its arm's */
  kernel k = {.plan = plan, .dl = dl, .outer = outer, .pieces = opts && opts->pieces,
              .indexed = opts && opts->indexed_bases,
              .async = tcmma_arm_get(plan->arm)->floor >=
                       tcmma_marker_floor(TCMMA_MARKER_CP_ASYNC)};
  if (tcmma_arm_get(plan->arm)->scale_block) { /* scale parents: one per outer step */
    k.scaled = true, k.own = *plan, k.plan = &k.own;
    static const char *const sname[2] = {"sa", "sb"};
    for (int i = 0; i < 2; i++) {
      tcmma_operand op = i ? TCMMA_OPERAND_B : TCMMA_OPERAND_A;
      long elems = tcmma_kernel_scale_elems(plan, outer, op);
      if (elems > INT_MAX)
        return tcmma_fail(err, TCMMA_OVERFLOW, "kernel: %s's %d scale tiles of %ld bytes "
                          "overflow int", sname[i], outer, elems / outer);
      snprintf(k.scale[i], sizeof k.scale[i], "%s + __tcmma_k_r * %ld", sname[i], elems / outer);
    }
    k.own.call.a.scale = k.scale[0], k.own.call.b.scale = k.scale[1];
  }
  if ((st = size_operands(&k, err)) != TCMMA_OK || (st = open_kernel(&k, out, err)) != TCMMA_OK)
    return st;
  operand_exprs(&k);
  tcmma_buf body = {0};
  k.rc = tcmma_render_ctx_make(k.plan, dl, &k.names, &body);

  if (k.bytes[0]) st = stage(&k, 0, err);
  if (st == TCMMA_OK) st = reduction(&k, &body, err);
  if (st == TCMMA_OK && k.bytes[0]) write_back_d(&k, &body);
  if (st == TCMMA_OK && body.failed) st = tcmma_fail(err, TCMMA_NO_MEMORY, "out of memory");
  if (st == TCMMA_OK) close_kernel(&k, &body, out);
  tcmma_buf_free(&body);
  if (st == TCMMA_OK && out->failed) st = tcmma_fail(err, TCMMA_NO_MEMORY, "out of memory");
  return st;
}
