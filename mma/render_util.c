/* Text helpers every renderer shares: collective opcodes, block numbering,
 * titles, lane locals, the swizzled_b128 address map. */
#include <ctype.h>
#include <limits.h>
#include <stdio.h>
#include <string.h>
#include "emit.h"

static const char *const collectives[] = {
#define TCMMA_COLLECTIVE(ID, opcode) opcode,
#include "tables/collectives.def"
#undef TCMMA_COLLECTIVE
};

const char *tcmma__collective_opcode(tcmma__collective c) {
  return (unsigned)c < TCMMA__COLL_COUNT ? collectives[c] : "";
}

int tcmma__block_id(const tcmma_buf *out, const char *title) {
  int n = 0;
  for (const char *p = tcmma_buf_str(out); (p = strstr(p, title)); p += strlen(title)) n++;
  return n;
}

const char *tcmma__bits_type(int bytes) {
  return bytes == 1 ? "unsigned char" : bytes == 2 ? "unsigned short" : "unsigned";
}

void tcmma__title(tcmma_buf *out, const tcmma_plan *plan, const char *what) {
  tcmma_buf_printf(out, TCMMA__MMA_TITLE "%dx%dx%d (%s)%s%s */\n", plan->call.m, plan->call.n,
                   plan->call.k, tcmma_arm_marker(plan->arm), what && *what ? " " : "",
                   what ? what : "");
}

void tcmma__tile_axes(const tcmma__body *x, tcmma_operand op, const char **rv, int *rt,
                      const char **cv, int *ct) {
  const char *role_r = op == TCMMA_OPERAND_B ? "ki" : "mi";
  const char *role_c = op == TCMMA_OPERAND_A ? "ki" : "ni";
  int tr = op == TCMMA_OPERAND_B ? x->info->k : x->info->m;
  int tc = op == TCMMA_OPERAND_A ? x->info->k : x->info->n;
  if (tcmma__desc(&x->p->call, op)->transposed) {
    *rv = role_c, *rt = tc, *cv = role_r, *ct = tr;
  } else {
    *rv = role_r, *rt = tr, *cv = role_c, *ct = tc;
  }
}

void tcmma__indent(tcmma_buf *out, int depth) {
  for (int i = 0; i < depth; i++) tcmma_buf_append(out, "  ", 2);
}

void tcmma__open_loop(tcmma_dialect dialect, const char *prefix, const char *var, int count,
                      int depth, tcmma_buf *out) {
  tcmma__indent(out, depth);
  tcmma_buf_printf(out, "%s\n", tcmma__spell(dialect, TCMMA__SPELL_UNROLL));
  tcmma__indent(out, depth);
  tcmma_buf_printf(out, "for (int %s%s = 0; %s%s < %d; ++%s%s) {\n", prefix, var, prefix, var,
                   count, prefix, var);
}

void tcmma__close_brace(int depth, tcmma_buf *out) {
  tcmma__indent(out, depth);
  tcmma_buf_printf(out, "}\n");
}

void tcmma__expr(tcmma_dialect dialect, const char *text, char *buf, size_t cap) {
  const char *tid = tcmma__spell(TCMMA_DIALECT_CUDA, TCMMA__SPELL_THREAD_IDX);
  const char *host = tcmma__spell(dialect, TCMMA__SPELL_THREAD_IDX);
  size_t used = 0;
  buf[0] = '\0';
  for (const char *p = text; *p && used + 1 < cap;) {
    if (strncmp(p, tid, strlen(tid)) == 0) {
      int n = snprintf(buf + used, cap - used, "%s", host);
      if (n < 0 || (size_t)n >= cap - used) break;
      used += (size_t)n;
      p += strlen(tid);
    } else {
      buf[used++] = *p++;
      buf[used] = '\0';
    }
  }
}

/* Expanded expressions fit their 256-byte buffers: the host dialect's
 * longest spelling of threadIdx.x grows it by less than half. */
_Static_assert(TCMMA_EXPR_MAX * 3 / 2 + 1 <= 256, "lane/warp buffers too small");

void tcmma__warp_expr(tcmma_dialect dialect, const char *expr, char op, char *buf, size_t cap) {
  char dflt[64];
  snprintf(dflt, sizeof dflt, "%s %c %d", tcmma__spell(TCMMA_DIALECT_CUDA, TCMMA__SPELL_THREAD_IDX),
           op, TCMMA_WARP_SIZE);
  tcmma__expr(dialect, expr && *expr ? expr : dflt, buf, cap);
}

void tcmma__lane_expr(const tcmma_plan *plan, tcmma_dialect dialect, char *buf, size_t cap) {
  tcmma__warp_expr(dialect, plan->call.lane, '%', buf, cap);
}

tcmma_status tcmma__check(const tcmma_plan *plan, tcmma_dialect dialect,
                          const char *const *names, int count, tcmma_buf *out,
                          tcmma_error *err) {
  if (!plan || !out) return tcmma_fail(err, TCMMA_INVALID, "plan and out must not be NULL");
  if (!plan->accepted || !tcmma_arm_get(plan->arm))
    return tcmma_fail(err, TCMMA_INVALID, "the plan was declined (%s): nothing to render",
                      tcmma_decline_name(plan->reason));
  if (dialect != TCMMA_DIALECT_CUDA && dialect != TCMMA_DIALECT_HOST)
    return tcmma_fail(err, TCMMA_INVALID, "dialect %d: expected cuda or host", (int)dialect);
  if (!tcmma_arm_get(plan->arm)->emitted)
    return tcmma_fail(err, TCMMA_INVALID, "%s is not rendered by this emitter",
                      tcmma_arm_marker(plan->arm));
  for (int i = 0; i < count; i++)
    if (!names[i] || !*names[i])
      return tcmma_fail(err, TCMMA_INVALID, "expression %d is NULL or empty", i + 1);
  if (out->failed) return tcmma_fail(err, TCMMA_NO_MEMORY, "the output buffer already failed");
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

void tcmma__lane_locals(const tcmma_plan *p, tcmma_dialect dl, const char *prefix,
                        const char *body, int depth, tcmma_buf *out) {
  bool g = uses(body, prefix, "g"), q = uses(body, prefix, "q");
  bool lane = g || q || uses(body, prefix, "lane");
  char expr[256];
  tcmma__lane_expr(p, dl, expr, sizeof expr);
  if (lane) tcmma__indent(out, depth), tcmma_buf_printf(out, "const int %slane = (int)(%s);\n",
                                                       prefix, expr);
  /* PTX fragment layouts: groupID g = lane >> 2, thread-in-group q = lane & 3 */
  if (g) tcmma__indent(out, depth), tcmma_buf_printf(out, "const int %sg = %slane >> 2;\n",
                                                    prefix, prefix);
  if (q) tcmma__indent(out, depth), tcmma_buf_printf(out, "const int %sq = %slane & 3;\n",
                                                    prefix, prefix);
  tcmma_buf_printf(out, "%s", body);
}

/* The map below: 16-byte units, XORed with row % 8, span one line. */
_Static_assert(TCMMA_SWIZZLE_LINE == 16 * 8, "swizzle line is 8 units of 16 bytes");

bool tcmma__swizzle_ld_ok(long ld, int elem_bytes) {
  /* the rendered map multiplies in int: the row's bytes must be one */
  return ld > 0 && elem_bytes > 0 && ld <= INT_MAX / elem_bytes &&
         (ld * elem_bytes) % TCMMA_SWIZZLE_LINE == 0;
}

long tcmma_swizzle_offset(long r, long c, long ld, int elem_bytes) {
  long eb = elem_bytes, row, cb, at;
  if (r < 0 || c < 0 || ld <= 0 || eb <= 0 || __builtin_mul_overflow(r, ld, &row) ||
      __builtin_mul_overflow(row, eb, &row) || __builtin_mul_overflow(c, eb, &cb))
    return -1;
  /* the XOR changes only the unit's low three bits: unit ^ (r % 8) <= unit | 7 */
  long unit = (cb / 16) ^ (r % 8);
  if (__builtin_mul_overflow(unit, 16L, &at) || __builtin_add_overflow(at, cb % 16, &at) ||
      __builtin_add_overflow(row, at, &at))
    return -1;
  return at;
}

tcmma_status tcmma_render_swizzle_offset(const char *r, const char *c, long ld, int elem_bytes,
                                         tcmma_buf *out, tcmma_error *err) {
  if (!r || !*r || !c || !*c || !out)
    return tcmma_fail(err, TCMMA_INVALID, "row and column expressions must not be empty");
  if (!tcmma__swizzle_ld_ok(ld, elem_bytes))
    return tcmma_fail(err, TCMMA_INVALID,
                      "ld %ld x %d bytes: swizzled_b128 rows must be a positive multiple of "
                      "%d bytes, at most %d", ld, elem_bytes, TCMMA_SWIZZLE_LINE, INT_MAX);
  char cb[160];
  if (elem_bytes == 1) snprintf(cb, sizeof cb, "(%s)", c);
  else snprintf(cb, sizeof cb, "(%s) * %d", c, elem_bytes);
  /* r%8 and x/16, x%16 as shifts and masks: r, c are never negative */
  tcmma_buf_printf(out, "((%s) * %ld + ((((%s) >> 4) ^ ((%s) & 7)) << 4) + ((%s) & 15))", r,
                   ld * elem_bytes, cb, r, cb);
  return out->failed ? tcmma_fail(err, TCMMA_NO_MEMORY, "out of memory") : TCMMA_OK;
}

void tcmma__offset_expr(char *buf, size_t cap, tcmma_layout layout, long ld, int eb,
                        const char *sr, const char *sc) {
  if (layout == TCMMA_LAYOUT_SWIZZLED_B128) {
    tcmma_buf b = {0};
    if (tcmma_render_swizzle_offset(sr, sc, ld, eb, &b, NULL) == TCMMA_OK)
      snprintf(buf, cap, "%s", tcmma_buf_str(&b));
    else
      snprintf(buf, cap, "/* bad swizzle */ 0");
    tcmma_buf_free(&b);
  } else if (eb == 1) {
    snprintf(buf, cap, "(%s) * %ld + (%s)", sr, ld, sc);
  } else {
    snprintf(buf, cap, "((%s) * %ld + (%s)) * %d", sr, ld, sc, eb);
  }
}

void tcmma__operand_offset(char *buf, size_t cap, const tcmma_operand_desc *o, const char *sr,
                           const char *sc) {
  tcmma__offset_expr(buf, cap, o->layout, o->ld, tcmma_prec_bytes(o->prec), sr, sc);
}
