/* A swizzle atom's C rendering (the byte map of tables/swizzles.def as an
 * expression): the XOR mask of a stored row and the public byte-offset
 * renderer the staging and fragment code share. */
#include <stdio.h>

#include "emit.h"

/* The XOR below reads row bits 3-B .. 2: a pattern of 8 rows. */
_Static_assert(TCMMA_SWIZZLE_ROWS == 8, "the row shift 3 - B assumes 8-row patterns");
/* ... and the rendered '<< 4' a 16-byte unit. */
_Static_assert(TCMMA_SWIZZLE_UNIT == 1 << 4, "units of 16 bytes");

void tcmma__emit_swizzle_mask_expr(tcmma_swizzle sw, const char *r, char *buf, size_t cap) {
  const tcmma_swizzle_info *i = tcmma_swizzle_get(sw);
  int bits = i ? i->bits : 0;
  if (!bits)
    snprintf(buf, cap, "%s", "");
  else if (bits == 3)
    snprintf(buf, cap, "(((%s) & 7) << 4)", r);
  else
    snprintf(buf, cap, "((((%s) >> %d) & %d) << 4)", r, 3 - bits, (1 << bits) - 1);
}

tcmma_status tcmma_render_swizzle_offset(tcmma_swizzle sw, const char *r, const char *c,
                                         long ld_bytes, tcmma_buf *out, tcmma_error *err) {
  if (!r || !*r || !c || !*c || !out)
    return tcmma_fail(err, TCMMA_INVALID, "row and column expressions must not be empty");
  const tcmma_swizzle_info *i = tcmma_swizzle_get(sw);
  if (!tcmma_swizzle_ld_ok(sw, ld_bytes))
    return tcmma_fail(err, TCMMA_INVALID,
                      "rows of %ld bytes: swizzle %s needs a positive multiple of %d bytes",
                      ld_bytes, tcmma_swizzle_name(sw), i && i->bytes ? i->bytes : 1);
  char mask[TCMMA__ADDR_TEXT];
  tcmma__emit_swizzle_mask_expr(sw, r, mask, sizeof mask);
  if (!*mask)
    tcmma_buf_printf(out, "(%s) * %ld + (%s)", r, ld_bytes, c);
  else
    tcmma_buf_printf(out, "(%s) * %ld + ((%s) ^ %s)", r, ld_bytes, c, mask);
  return out->failed ? tcmma_fail(err, TCMMA_NO_MEMORY, "out of memory") : TCMMA_OK;
}
