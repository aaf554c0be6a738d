/* Text helpers every renderer shares: collective opcodes, naming contexts,
 * titles, lane locals, the address map of a (swizzled) sub-tile. */
#include <ctype.h>
#include <limits.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>
#include "emit.h"

static const char *const collectives[] = {
#define TCMMA_COLLECTIVE(ID, opcode) opcode,
#include "tables/collectives.def"
#undef TCMMA_COLLECTIVE
};

const char *tcmma__emit_collective_opcode(tcmma__emit_collective c) {
  return (unsigned)c < TCMMA__COLL_COUNT ? collectives[c] : "";
}

void tcmma__emit_asm_helper(tcmma_dialect dl, tcmma_buf *out, const char *name, const char *params,
                            const char *opcode, const char *asm_fmt, const char *host_fmt) {
  tcmma_buf_printf(out, "%s void %s(%s) {\n", tcmma__table_spell(dl, TCMMA__SPELL_DEVICE_FN), name,
                   params);
  tcmma_buf_printf(out, "  ");
  tcmma_buf_printf(out, dl == TCMMA_DIALECT_HOST ? host_fmt : asm_fmt, opcode);
  tcmma_buf_printf(out, "\n}\n");
}

bool tcmma__emit_is_ident(const char *s, size_t max) {
  bool ok = s && (isalpha((unsigned char)*s) || *s == '_') && strlen(s) <= max;
  for (const char *c = s; ok && *c; c++) ok = isalnum((unsigned char)*c) || *c == '_';
  return ok;
}

tcmma_status tcmma__emit_next_prefix(tcmma_names *names, char *buf, size_t cap, tcmma_error *err) {
  if (!names)
    return tcmma_fail(err, TCMMA_INVALID, "names must not be NULL: pass a tcmma_names the caller "
                      "owns ({NULL, 0} to start)");
  if (names->prefix && !tcmma__emit_is_ident(names->prefix, TCMMA_PREFIX_MAX))
    return tcmma_fail(err, TCMMA_INVALID, "name prefix '%.40s': expected a C identifier of at "
                      "most %d characters", names->prefix, TCMMA_PREFIX_MAX);
  if (names->next < 0 || names->next == INT_MAX)
    return tcmma_fail(err, TCMMA_INVALID, "names->next %d: expected 0 to %d", names->next,
                      INT_MAX - 1);
  snprintf(buf, cap, "%s%d_", names->prefix ? names->prefix : "__tcmma_", names->next++);
  return TCMMA_OK;
}

const char *tcmma__emit_bits_type(int bytes) {
  return bytes == 1 ? "unsigned char" : bytes == 2 ? "unsigned short"
       : bytes == 8 ? "unsigned long long" : "unsigned";
}

void tcmma__emit_title(tcmma_buf *out, const tcmma_plan *plan, const char *what) {
  tcmma_buf_printf(out, TCMMA__MMA_TITLE "%dx%dx%d (%s)%s%s */\n", plan->call.m, plan->call.n,
                   plan->call.k, tcmma_arm_marker(plan->arm), what && *what ? " " : "",
                   what ? what : "");
}

void tcmma__emit_tile_axes(const tcmma__emit_body *x, tcmma_operand op, const char *kstep, char *rv,
                           int *rt, char *cv, int *ct) {
  char mi[64], ni[64], k[TCMMA__EXPR_TEXT];
  snprintf(mi, sizeof mi, "%smi", x->prefix);
  snprintf(ni, sizeof ni, "%sni", x->prefix);
  tcmma__emit_postfix(kstep ? kstep : "0", k, sizeof k);
  const char *role_r = op == TCMMA_OPERAND_B ? k : mi;
  const char *role_c = op == TCMMA_OPERAND_A ? k : ni;
  int tr = op == TCMMA_OPERAND_B ? x->info->k : x->info->m;
  int tc = op == TCMMA_OPERAND_A ? x->info->k : x->info->n;
  bool t = tcmma__emit_desc(&x->p->call, op)->transposed;
  snprintf(rv, TCMMA__EXPR_TEXT, "%s", t ? role_c : role_r);
  snprintf(cv, TCMMA__EXPR_TEXT, "%s", t ? role_r : role_c);
  *rt = t ? tc : tr;
  *ct = t ? tr : tc;
}

void tcmma__emit_indent(tcmma_buf *out, int depth) {
  for (int i = 0; i < depth; i++) tcmma_buf_append(out, "  ", 2);
}

void tcmma__emit_open_loop(const tcmma__emit_body *x, const char *var, int count, int depth,
                           tcmma_buf *out) {
  const char *prefix = x->prefix;
  tcmma__emit_indent(out, depth);
  tcmma_buf_printf(out, "%s\n", tcmma__table_spell(x->dl, TCMMA__SPELL_UNROLL));
  tcmma__emit_indent(out, depth);
  tcmma_buf_printf(out, "for (int %s%s = 0; %s%s < %d; ++%s%s) {\n", prefix, var, prefix, var,
                   count, prefix, var);
}

void tcmma__emit_open_tiles(const tcmma__emit_body *x, tcmma_buf *out) {
  tcmma__emit_open_loop(x, "mi", x->p->mt, x->depth, out);
  tcmma__emit_open_loop(x, "ni", x->p->nt, x->depth + 1, out);
}

void tcmma__emit_close_tiles(const tcmma__emit_body *x, tcmma_buf *out) {
  tcmma__emit_close_brace(x->depth + 1, out);
  tcmma__emit_close_brace(x->depth, out);
}

void tcmma__emit_close_brace(int depth, tcmma_buf *out) {
  tcmma__emit_indent(out, depth);
  tcmma_buf_printf(out, "}\n");
}

void tcmma__emit_expr(tcmma_dialect dialect, const char *text, char *buf, size_t cap) {
  static const tcmma__table_spelling words[] = {
      TCMMA__SPELL_THREAD_IDX,   TCMMA__SPELL_BLOCK_IDX,   TCMMA__SPELL_THREAD_IDX_Y,
      TCMMA__SPELL_THREAD_IDX_Z, TCMMA__SPELL_BLOCK_IDX_Y, TCMMA__SPELL_BLOCK_IDX_Z,
      TCMMA__SPELL_BLOCK_DIM_X,  TCMMA__SPELL_BLOCK_DIM_Y, TCMMA__SPELL_BLOCK_DIM_Z,
      TCMMA__SPELL_GRID_DIM_X,   TCMMA__SPELL_GRID_DIM_Y,  TCMMA__SPELL_GRID_DIM_Z};
  size_t used = 0;
  buf[0] = '\0';
  for (const char *p = text; *p && used + 1 < cap;) {
    const char *host = NULL;
    size_t len = 0;
    for (size_t w = 0; w < sizeof words / sizeof *words && !host; w++) {
      const char *cuda = tcmma__table_spell(TCMMA_DIALECT_CUDA, words[w]);
      if (strncmp(p, cuda, strlen(cuda)) == 0)
        host = tcmma__table_spell(dialect, words[w]), len = strlen(cuda);
    }
    if (host) {
      int n = snprintf(buf + used, cap - used, "%s", host);
      if (n < 0 || (size_t)n >= cap - used) break;
      used += (size_t)n;
      p += len;
    } else {
      buf[used++] = *p++;
      buf[used] = '\0';
    }
  }
}

/* Expanded expressions fit their buffers: the host dialect's spelling of an
 * index word (threadIdx.x, gridDim.y, ...) is at most 2.4 times as long as
 * the CUDA one ("gridDim.x": "tcmma_sim_grid_dim(0)"). */
_Static_assert(TCMMA_EXPR_MAX * 3 + 1 <= TCMMA__EXPR_TEXT, "expression buffers too small");

void tcmma__emit_warp_expr(tcmma_dialect dialect, const char *expr, char op, char *buf,
                           size_t cap) {
  char dflt[64];
  snprintf(dflt, sizeof dflt, "%s %c %d",
           tcmma__table_spell(TCMMA_DIALECT_CUDA, TCMMA__SPELL_THREAD_IDX), op, TCMMA_WARP_SIZE);
  tcmma__emit_expr(dialect, expr && *expr ? expr : dflt, buf, cap);
}

void tcmma__emit_lane_expr(const tcmma_plan *plan, tcmma_dialect dialect, char *buf, size_t cap) {
  tcmma__emit_warp_expr(dialect, plan->call.lane, '%', buf, cap);
}

tcmma_status tcmma__emit_ctx_check(const tcmma_render_ctx *ctx, tcmma_error *err) {
  if (!ctx)
    return tcmma_fail(err, TCMMA_INVALID, "the render context is NULL: make one with "
                      "tcmma_render_ctx_make");
  if (ctx->size < sizeof(tcmma_render_ctx))
    return tcmma_fail(err, TCMMA_INVALID, "render context size %zu: expected at least %zu (make "
                      "it with tcmma_render_ctx_make or TCMMA_RENDER_CTX_INIT)", ctx->size,
                      sizeof(tcmma_render_ctx));
  if (!ctx->out) return tcmma_fail(err, TCMMA_INVALID, "the render context's out is NULL");
  if (ctx->dialect != TCMMA_DIALECT_CUDA && ctx->dialect != TCMMA_DIALECT_HOST)
    return tcmma_fail(err, TCMMA_INVALID, "dialect %d: expected cuda or host", (int)ctx->dialect);
  if (ctx->out->failed)
    return tcmma_fail(err, TCMMA_NO_MEMORY, "the output buffer already failed");
  return TCMMA_OK;
}

tcmma_status tcmma__emit_check(const tcmma_render_ctx *ctx, const char *const *exprs, int count,
                               tcmma_error *err) {
  tcmma_status st = tcmma__emit_ctx_check(ctx, err);
  if (st != TCMMA_OK) return st;
  if (!ctx->plan) return tcmma_fail(err, TCMMA_INVALID, "the render context's plan is NULL");
  if ((st = tcmma__emit_plan_check(ctx->plan, "nothing to render", err)) != TCMMA_OK) return st;
  for (int i = 0; i < count; i++) {
    if (!exprs[i] || !*exprs[i])
      return tcmma_fail(err, TCMMA_INVALID, "expression %d is NULL or empty", i + 1);
    if (strlen(exprs[i]) > TCMMA_EXPR_MAX)
      return tcmma_fail(err, TCMMA_INVALID, "expression %d has %zu characters: expected at most "
                        "%d", i + 1, strlen(exprs[i]), TCMMA_EXPR_MAX);
  }
  return TCMMA_OK;
}

/* Whether body reads the local prefix+name (not a longer identifier). */
static bool uses(const char *body, const char *prefix, const char *name) {
  char want[96];
  snprintf(want, sizeof want, "%s%s", prefix, name);
  size_t n = strlen(want);
  for (const char *p = body; (p = strstr(p, want)); p += n)
    if (!(isalnum((unsigned char)p[n]) || p[n] == '_')) return true;
  return false;
}

void tcmma__emit_lane_locals(const tcmma__emit_body *x, const char *body, tcmma_buf *out) {
  const char *prefix = x->prefix;
  int depth = x->depth;
  bool g = uses(body, prefix, "g"), q = uses(body, prefix, "q");
  bool lane = g || q || uses(body, prefix, "lane");
  char expr[256];
  tcmma__emit_lane_expr(x->p, x->dl, expr, sizeof expr);
  if (lane)
    tcmma__emit_indent(out, depth),
        tcmma_buf_printf(out, "const int %slane = (int)(%s);\n", prefix, expr);
  /* PTX fragment layouts: groupID g = lane >> 2, thread-in-group q = lane & 3 */
  if (g)
    tcmma__emit_indent(out, depth),
        tcmma_buf_printf(out, "const int %sg = %slane >> 2;\n", prefix, prefix);
  if (q)
    tcmma__emit_indent(out, depth),
        tcmma_buf_printf(out, "const int %sq = %slane & 3;\n", prefix, prefix);
  tcmma_buf_printf(out, "%s", body);
}

/* Byte offset of (sr, sc) + origin (or, oc: "" or "expr + value") with the
 * mask of sr alone. */
static void offset_at(char *buf, size_t cap, tcmma_swizzle sw, long ld, int eb, const char *or_,
                      const char *oc, const char *sr, const char *sc) {
  char r[TCMMA__ADDR_TEXT], c[TCMMA__ADDR_TEXT], mask[TCMMA__ADDR_TEXT];
  snprintf(r, sizeof r, "%s%s%s", *or_ ? or_ : "", *or_ ? " + " : "", sr);
  snprintf(c, sizeof c, "%s%s%s", *oc ? oc : "", *oc ? " + " : "", sc);
  tcmma__emit_swizzle_mask_expr(sw, sr, mask, sizeof mask);
  if (!*mask && eb == 1) snprintf(buf, cap, "(%s) * %ld + (%s)", r, ld, c);
  else if (!*mask) snprintf(buf, cap, "((%s) * %ld + (%s)) * %d", r, ld, c, eb);
  else if (eb == 1) snprintf(buf, cap, "(%s) * %ld + ((%s) ^ %s)", r, ld, c, mask);
  else snprintf(buf, cap, "(%s) * %ld + (((%s) * %d) ^ %s)", r, ld * eb, c, eb, mask);
}

void tcmma__emit_offset_expr(char *buf, size_t cap, tcmma_swizzle sw, long ld, int eb,
                             const char *sr, const char *sc) {
  offset_at(buf, cap, sw, ld, eb, "", "", sr, sc);
}

void tcmma__emit_coord_expr(tcmma_dialect dl, const tcmma_coord *c, char *buf, size_t cap) {
  char e[TCMMA__EXPR_TEXT] = "";
  if (c->expr) tcmma__emit_expr(dl, c->expr, e, sizeof e);
  if (c->expr && c->value) snprintf(buf, cap, "(%s) + %ld", e, c->value);
  else if (c->expr) snprintf(buf, cap, "(%s)", e);
  else if (c->value) snprintf(buf, cap, "%ld", c->value);
  else snprintf(buf, cap, "%s", "");
}

void tcmma__emit_operand_offset(char *buf, size_t cap, tcmma_dialect dl,
                                const tcmma_operand_desc *o, const char *sr, const char *sc) {
  char r0[TCMMA__EXPR_TEXT + 32], c0[TCMMA__EXPR_TEXT + 32];
  tcmma__emit_coord_expr(dl, &o->row0, r0, sizeof r0);
  tcmma__emit_coord_expr(dl, &o->col0, c0, sizeof c0);
  offset_at(buf, cap, o->swizzle, o->ld, tcmma_prec_bytes(o->prec), r0, c0, sr, sc);
}

void tcmma__emit_line(tcmma_buf *out, int depth, const char *fmt, ...) {
  char text[TCMMA__ADDR_TEXT + 512];
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(text, sizeof text, fmt, ap);
  va_end(ap);
  tcmma__emit_indent(out, depth);
  tcmma_buf_printf(out, "%s\n", text);
}

void tcmma__emit_postfix(const char *e, char *buf, size_t cap) {
  const char *s = e;
  while (isalnum((unsigned char)*s) || *s == '_') s++;
  bool simple = s > e && (!isdigit((unsigned char)*e) || strspn(e, "0123456789") == strlen(e));
  while (simple && *s == '[') {
    int depth = 0;
    do depth += *s == '[' ? 1 : *s == ']' ? -1 : 0;
    while (*++s && depth);
    simple = depth == 0;
  }
  snprintf(buf, cap, simple && !*s ? "%s" : "(%s)", e);
}

void tcmma__emit_append_indented(tcmma_buf *dst, const char *s, int depth) {
  while (*s) {
    const char *nl = strchr(s, '\n');
    size_t n = nl ? (size_t)(nl - s + 1) : strlen(s);
    if (n > 1 && (s[0] != '#' || strncmp(s, "#pragma", 7) == 0))
      for (int i = 0; i < depth; i++) tcmma_buf_append(dst, "  ", 2);
    tcmma_buf_append(dst, s, n);
    s += n;
  }
}

void tcmma__emit_cuda_includes(const tcmma_prec *precs, int n, tcmma_arm arm, tcmma_buf *out) {
  const char *done[TCMMA_PREC_COUNT];
  int count = 0;
  for (int p = 0; p < TCMMA_PREC_COUNT; p++) {
    const char *h = tcmma_prec_header((tcmma_prec)p);
    bool used = false;
    for (int i = 0; i < n; i++) used = used || precs[i] == (tcmma_prec)p;
    bool skip = !*h || !used;
    for (int i = 0; i < count && !skip; i++) skip = strcmp(done[i], h) == 0;
    if (skip) continue;
    done[count++] = h;
    tcmma_buf_printf(out, "#include <%s>\n", h);
  }
  const tcmma_arm_info *info = tcmma_arm_get(arm);
  if (info && *info->header) tcmma_buf_printf(out, "#include <%s>\n", info->header);
}
