/* Staging a global tile into shared memory: cp.async (16-byte .cg where
 * aligned, smaller .ca copies otherwise) or ordinary copies, in any
 * swizzle atom. */
#include <limits.h>
#include <stdio.h>
#include <string.h>
#include "tcmma/arch.h"
#include "emit.h"

/* The widest chunk of `sizes` bytes dividing every row length and stride. */
static int chunk_bytes(const int *sizes, int count, long cols, long dst_ld, long src_ld,
                       int eb) {
  for (int i = 0; i < count; i++) {
    long c = sizes[i];
    if ((cols * eb) % c == 0 && (dst_ld * eb) % c == 0 && (src_ld * eb) % c == 0)
      return (int)c;
  }
  return 0;
}

tcmma_stage_opts tcmma_stage_opts_default(void) {
  tcmma_stage_opts o;
  memset(&o, 0, sizeof o);
  o.size = sizeof o;
  o.swizzle = TCMMA_SWIZZLE_NONE;
  return o;
}

/* The copy's expressions and sizes, and the span of each side within int. */
static tcmma_status check_opts(const tcmma_stage_opts *o, tcmma_error *err) {
  if (!o) return tcmma_fail(err, TCMMA_INVALID, "stage: opts must not be NULL");
  if (o->size < sizeof(tcmma_stage_opts))
    return tcmma_fail(err, TCMMA_INVALID, "stage: opts size %zu: expected at least %zu (start "
                      "from tcmma_stage_opts_default)", o->size, sizeof(tcmma_stage_opts));
  if (!o->dst || !*o->dst || !o->src || !*o->src)
    return tcmma_fail(err, TCMMA_INVALID, "stage: dst, src and out must not be empty");
  if (o->lane && strlen(o->lane) > TCMMA_EXPR_MAX)
    return tcmma_fail(err, TCMMA_INVALID, "stage: lane expression of %zu characters: expected "
                      "at most %d", strlen(o->lane), TCMMA_EXPR_MAX);
  long rows = o->rows, cols = o->cols, dst_ld = o->dst_ld, src_ld = o->src_ld;
  int eb = o->elem_bytes;
  if (rows <= 0 || cols <= 0 || (eb != 1 && eb != 2 && eb != 4 && eb != 8) ||
      dst_ld < cols || src_ld < cols || rows > TCMMA_STAGE_EXTENT_MAX ||
      dst_ld > TCMMA_STAGE_EXTENT_MAX || src_ld > TCMMA_STAGE_EXTENT_MAX)
    return tcmma_fail(err, TCMMA_INVALID,
                      "stage: %ld x %ld tile of %d-byte elements, ld %ld/%ld: expected "
                      "positive sizes, 1-8 byte elements, ld >= cols", rows, cols, eb, dst_ld,
                      src_ld);
  /* the text computes offsets, and counts chunks, in int: the span of each
   * side, rows x ld x eb bytes, must be one (rows, ld <= 2^24: no overflow) */
  long ld = dst_ld > src_ld ? dst_ld : src_ld, span = rows * ld * eb;
  if (span > INT_MAX)
    return tcmma_fail(err, TCMMA_OVERFLOW,
                      "stage: %ld rows x ld %ld x %d bytes is %ld bytes, past the int range "
                      "of the offsets the text computes (%d)", rows, ld, eb, span, INT_MAX);
  if (!tcmma_swizzle_get(o->swizzle) || !tcmma_swizzle_ld_ok(o->swizzle, dst_ld * eb))
    return tcmma_fail(err, TCMMA_INVALID,
                      "stage: swizzle %s with rows of %ld x %d bytes: expected none, or rows a "
                      "multiple of the atom's span", tcmma_swizzle_name(o->swizzle), dst_ld, eb);
  return TCMMA_OK;
}

/* How the copy moves the tile: chunk bytes per copy, through cp.async or
 * not, per_row chunks to a row. */
typedef struct {
  int chunk;
  bool async;
  long per_row;
} stage_moves;

static stage_moves choose_moves(const tcmma_stage_opts *o) {
  static const int async_sizes[3] = {16, 8, 4}, plain_sizes[3] = {4, 2, 1};
  int eb = o->elem_bytes;
  stage_moves m;
  m.chunk = o->async ? chunk_bytes(async_sizes, 3, o->cols, o->dst_ld, o->src_ld, eb) : 0;
  m.async = m.chunk != 0;
  if (!m.async) m.chunk = chunk_bytes(plain_sizes, 3, o->cols, o->dst_ld, o->src_ld, eb);
  /* a copy moves whole elements: the column advances chunk / eb per copy */
  if (!m.async && m.chunk < eb) m.chunk = eb;
  m.per_row = o->cols * eb / m.chunk;
  return m;
}

/* The block's title, which carries cp.async's marker (tables/markers.def)
 * for the arch options. */
static void stage_title(const tcmma_stage_opts *o, const stage_moves *m, tcmma_buf *out) {
  const tcmma_swizzle_info *sw = tcmma_swizzle_get(o->swizzle);
  char marker[48] = "";
  if (m->async) snprintf(marker, sizeof marker, " (%s)", tcmma_marker_text(TCMMA_MARKER_CP_ASYNC));
  tcmma_buf_printf(out, TCMMA__STAGE_TITLE "%ldx%ld, %d-byte elements, %s%s, %d-byte %s%s */\n",
                   o->rows, o->cols, o->elem_bytes, sw->bits ? "swizzle " : "plain",
                   sw->bits ? sw->name : "", m->chunk, m->async ? "cp.async" : "copies", marker);
}

/* The one copy of chunk (r, c) of the loop's body, from src to dst + doff. */
static void copy_chunk(tcmma_dialect dl, const char *P, const stage_moves *m, const char *doff,
                       const char *soff, tcmma_buf *out) {
  if (!m->async) {
    const char *t = tcmma__emit_bits_type(m->chunk);
    tcmma_buf_printf(out, "    *(%s *)(%sdst + %s) = *(const %s *)(%ssrc + %s);\n", t, P, doff,
                     t, P, soff);
    return;
  }
  const char *op =
      tcmma__emit_collective_opcode(m->chunk == 16 ? TCMMA__COLL_CP_CG : TCMMA__COLL_CP_CA);
  if (dl == TCMMA_DIALECT_HOST)
    tcmma_buf_printf(out, "    tcmma_sim_cp_async(\"%s\", %sdst + %s, %ssrc + %s, %d);\n", op, P,
                     doff, P, soff, m->chunk);
  else
    tcmma_buf_printf(out,
                     "    asm volatile(\"%s [%%0], [%%1], %d;\\n\"\n"
                     "        :: \"r\"((unsigned)__cvta_generic_to_shared(%sdst + %s)),\n"
                     "           \"l\"(%ssrc + %s));\n", op, m->chunk, P, doff, P, soff);
}

/* The lanes' loop over the tile's chunks, each lane one chunk per pass. */
static void copy_loop(const tcmma_stage_opts *o, tcmma_dialect dl, const char *P,
                      const stage_moves *m, tcmma_buf *out) {
  char lanebuf[TCMMA__EXPR_TEXT], i[96], r[160], c[160], soff[400], doff[TCMMA__ADDR_TEXT];
  int eb = o->elem_bytes;
  tcmma__emit_warp_expr(dl, o->lane, '%', lanebuf, sizeof lanebuf);
  snprintf(i, sizeof i, "%si", P);
  tcmma_buf_printf(out, "  for (int %s = (int)(%s); %s < %ld; %s += %d) {\n", i, lanebuf, i,
                   o->rows * m->per_row, i, TCMMA_WARP_SIZE);
  snprintf(r, sizeof r, "%s / %ld", i, m->per_row);
  snprintf(c, sizeof c, "%s %% %ld * %d", i, m->per_row, m->chunk / eb);
  tcmma_buf_printf(out, "    const int %sr = %s, %sc = %s;\n", P, r, P, c);
  snprintf(r, sizeof r, "%sr", P);
  snprintf(c, sizeof c, "%sc", P);
  tcmma__emit_offset_expr(doff, sizeof doff, o->swizzle, o->dst_ld, eb, r, c);
  snprintf(soff, sizeof soff, "(%s * %ld + %s) * %d", r, o->src_ld, c, eb);
  copy_chunk(dl, P, m, doff, soff, out);
  tcmma_buf_printf(out, "  }\n");
}

/* cp.async's commit and wait, then the warp's barrier. */
static void finish_copies(tcmma_dialect dl, const stage_moves *m, tcmma_buf *out) {
  if (m->async && dl == TCMMA_DIALECT_HOST)
    tcmma_buf_printf(out, "  tcmma_sim_cp_async_commit();\n  tcmma_sim_cp_async_wait_all();\n");
  else if (m->async)
    tcmma_buf_printf(out, "  asm volatile(\"%s;\\n\" ::);\n"
                          "  asm volatile(\"%s;\\n\" ::: \"memory\");\n",
                     tcmma__emit_collective_opcode(TCMMA__COLL_CP_COMMIT),
                     tcmma__emit_collective_opcode(TCMMA__COLL_CP_WAIT));
  tcmma_buf_printf(out, "  %s;\n}\n", tcmma__table_spell(dl, TCMMA__SPELL_SYNCWARP));
}

tcmma_status tcmma_render_stage(const tcmma_render_ctx *ctx, const tcmma_stage_opts *opts,
                                tcmma_error *err) {
  tcmma_status st = tcmma__emit_ctx_check(ctx, err);
  if (st == TCMMA_OK) st = check_opts(opts, err);
  char P[64];
  if (st == TCMMA_OK) st = tcmma__emit_next_prefix(ctx->names, P, sizeof P, err);
  if (st != TCMMA_OK) return st;
  tcmma_buf *out = ctx->out;
  stage_moves m = choose_moves(opts);
  stage_title(opts, &m, out);
  tcmma_buf_printf(out, "{\n");
  tcmma_buf_printf(out, "  const unsigned char *%ssrc = (const unsigned char *)(%s);\n", P,
                   opts->src);
  tcmma_buf_printf(out, "  unsigned char *%sdst = (unsigned char *)(%s);\n", P, opts->dst);
  copy_loop(opts, ctx->dialect, P, &m, out);
  finish_copies(ctx->dialect, &m, out);
  return out->failed ? tcmma_fail(err, TCMMA_NO_MEMORY, "out of memory") : TCMMA_OK;
}
