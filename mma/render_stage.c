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

tcmma_status tcmma_render_stage(tcmma_dialect dl, tcmma_names *names, bool async,
                                const char *dst, const char *src, long rows, long cols,
                                long dst_ld, long src_ld, int eb, tcmma_swizzle swizzle,
                                const char *lane, tcmma_buf *out, tcmma_error *err) {
  if (!out || !dst || !*dst || !src || !*src)
    return tcmma_fail(err, TCMMA_INVALID, "stage: dst, src and out must not be empty");
  if (dl != TCMMA_DIALECT_CUDA && dl != TCMMA_DIALECT_HOST)
    return tcmma_fail(err, TCMMA_INVALID, "dialect %d: expected cuda or host", (int)dl);
  if (lane && strlen(lane) > TCMMA_EXPR_MAX)
    return tcmma_fail(err, TCMMA_INVALID, "stage: lane expression of %zu characters: expected "
                      "at most %d", strlen(lane), TCMMA_EXPR_MAX);
  if (rows <= 0 || cols <= 0 || (eb != 1 && eb != 2 && eb != 4 && eb != 8) ||
      dst_ld < cols || src_ld < cols || rows > TCMMA_STAGE_EXTENT_MAX ||
      dst_ld > TCMMA_STAGE_EXTENT_MAX || src_ld > TCMMA_STAGE_EXTENT_MAX)
    return tcmma_fail(err, TCMMA_INVALID,
                      "stage: %ld x %ld tile of %d-byte elements, ld %ld/%ld: expected "
                      "positive sizes, 1-8 byte elements, ld >= cols", rows, cols, eb, dst_ld,
                      src_ld);
  /* the text computes offsets, and counts chunks, in int: the span of each
   * side, rows x ld x eb bytes, must be one (rows, ld <= 2^24: no overflow) */
  long span = rows * (dst_ld > src_ld ? dst_ld : src_ld) * eb;
  if (span > INT_MAX)
    return tcmma_fail(err, TCMMA_OVERFLOW,
                      "stage: %ld rows x ld %ld x %d bytes is %ld bytes, past the int range "
                      "of the offsets the text computes (%d)", rows,
                      dst_ld > src_ld ? dst_ld : src_ld, eb, span, INT_MAX);
  const tcmma_swizzle_info *sw = tcmma_swizzle_get(swizzle);
  if (!sw || !tcmma_swizzle_ld_ok(swizzle, dst_ld * eb))
    return tcmma_fail(err, TCMMA_INVALID,
                      "stage: swizzle %s with rows of %ld x %d bytes: expected none, or rows a "
                      "multiple of the atom's span", tcmma_swizzle_name(swizzle), dst_ld, eb);
  static const int async_sizes[3] = {16, 8, 4}, plain_sizes[3] = {4, 2, 1};
  int chunk = async ? chunk_bytes(async_sizes, 3, cols, dst_ld, src_ld, eb) : 0;
  bool use_async = chunk != 0;
  if (!use_async) chunk = chunk_bytes(plain_sizes, 3, cols, dst_ld, src_ld, eb);
  /* a copy moves whole elements: the column advances chunk / eb per copy */
  if (!use_async && chunk < eb) chunk = eb;
  long per_row = cols * eb / chunk;
  char P[64], lanebuf[TCMMA__EXPR_TEXT], i[96], r[160], c[160], soff[400],
      doff[TCMMA__ADDR_TEXT];
  tcmma_status st = tcmma__emit_next_prefix(names, P, sizeof P, err);
  if (st != TCMMA_OK) return st;
  tcmma__emit_warp_expr(dl, lane, '%', lanebuf, sizeof lanebuf);
  /* the title carries cp.async's marker (tables/markers.def) for the arch options */
  char marker[48] = "";
  if (use_async) snprintf(marker, sizeof marker, " (%s)", tcmma_marker_text(TCMMA_MARKER_CP_ASYNC));
  tcmma_buf_printf(out, TCMMA__STAGE_TITLE "%ldx%ld, %d-byte elements, %s%s, %d-byte %s%s */\n",
                   rows, cols, eb, sw->bits ? "swizzle " : "plain", sw->bits ? sw->name : "",
                   chunk, use_async ? "cp.async" : "copies", marker);
  tcmma_buf_printf(out, "{\n");
  tcmma_buf_printf(out, "  const unsigned char *%ssrc = (const unsigned char *)(%s);\n", P, src);
  tcmma_buf_printf(out, "  unsigned char *%sdst = (unsigned char *)(%s);\n", P, dst);
  snprintf(i, sizeof i, "%si", P);
  tcmma_buf_printf(out, "  for (int %s = (int)(%s); %s < %ld; %s += %d) {\n", i, lanebuf, i,
                   rows * per_row, i, TCMMA_WARP_SIZE);
  snprintf(r, sizeof r, "%s / %ld", i, per_row);
  snprintf(c, sizeof c, "%s %% %ld * %d", i, per_row, chunk / eb);
  tcmma_buf_printf(out, "    const int %sr = %s, %sc = %s;\n", P, r, P, c);
  snprintf(r, sizeof r, "%sr", P);
  snprintf(c, sizeof c, "%sc", P);
  tcmma__emit_offset_expr(doff, sizeof doff, swizzle, dst_ld, eb, r, c);
  snprintf(soff, sizeof soff, "(%s * %ld + %s) * %d", r, src_ld, c, eb);
  if (use_async) {
    const char *op =
        tcmma__emit_collective_opcode(chunk == 16 ? TCMMA__COLL_CP_CG : TCMMA__COLL_CP_CA);
    if (dl == TCMMA_DIALECT_HOST)
      tcmma_buf_printf(out, "    tcmma_sim_cp_async(\"%s\", %sdst + %s, %ssrc + %s, %d);\n", op,
                       P, doff, P, soff, chunk);
    else
      tcmma_buf_printf(out,
                       "    asm volatile(\"%s [%%0], [%%1], %d;\\n\"\n"
                       "        :: \"r\"((unsigned)__cvta_generic_to_shared(%sdst + %s)),\n"
                       "           \"l\"(%ssrc + %s));\n", op, chunk, P, doff, P, soff);
  } else {
    tcmma_buf_printf(out, "    *(%s *)(%sdst + %s) = *(const %s *)(%ssrc + %s);\n",
                     tcmma__emit_bits_type(chunk), P, doff, tcmma__emit_bits_type(chunk), P, soff);
  }
  tcmma_buf_printf(out, "  }\n");
  if (use_async) {
    const char *commit = tcmma__emit_collective_opcode(TCMMA__COLL_CP_COMMIT);
    const char *wait = tcmma__emit_collective_opcode(TCMMA__COLL_CP_WAIT);
    if (dl == TCMMA_DIALECT_HOST)
      tcmma_buf_printf(out, "  tcmma_sim_cp_async_commit();\n  tcmma_sim_cp_async_wait_all();\n");
    else
      tcmma_buf_printf(out, "  asm volatile(\"%s;\\n\" ::);\n"
                            "  asm volatile(\"%s;\\n\" ::: \"memory\");\n", commit, wait);
  }
  tcmma_buf_printf(out, "  %s;\n}\n", tcmma__table_spell(dl, TCMMA__SPELL_SYNCWARP));
  return out->failed ? tcmma_fail(err, TCMMA_NO_MEMORY, "out of memory") : TCMMA_OK;
}
