/* Swizzle atoms (tables/swizzles.def): the one byte map every shared tile
 * uses (staging, loads, stores), its C rendering, and the bank-group test
 * that decides ldmatrix. */
#include <limits.h>
#include <stdio.h>
#include <string.h>
#include "emit.h"

/* Indexed by value (a row's value column, not its position). */
static const tcmma_swizzle_info swizzles[TCMMA_SWIZZLE_COUNT] = {
#define TCMMA_SWIZZLE(ID, value, name, bits, cute) \
  [value] = {TCMMA_SWIZZLE_##ID, name, bits, (bits) ? TCMMA_SWIZZLE_UNIT << (bits) : 0, cute},
#include "tables/swizzles.def"
#undef TCMMA_SWIZZLE
};

/* The XOR below reads row bits 3-B .. 2: a pattern of 8 rows. */
_Static_assert(TCMMA_SWIZZLE_ROWS == 8, "the row shift 3 - B assumes 8-row patterns");
/* ... and the rendered '<< 4' a 16-byte unit. */
_Static_assert(TCMMA_SWIZZLE_UNIT == 1 << 4, "units of 16 bytes");

const tcmma_swizzle_info *tcmma_swizzle_get(tcmma_swizzle sw) {
  return (unsigned)sw < TCMMA_SWIZZLE_COUNT ? &swizzles[sw] : NULL;
}

const char *tcmma_swizzle_name(tcmma_swizzle sw) {
  const tcmma_swizzle_info *i = tcmma_swizzle_get(sw);
  return i ? i->name : "?";
}

tcmma_status tcmma_swizzle_parse(const char *name, tcmma_swizzle *out, tcmma_error *err) {
  for (int i = 0; name && i < TCMMA_SWIZZLE_COUNT; i++)
    if (strcmp(name, swizzles[i].name) == 0) {
      if (out) *out = (tcmma_swizzle)i;
      return TCMMA_OK;
    }
  return tcmma_fail(err, TCMMA_INVALID, "unknown swizzle '%s': expected none, 32, 64 or 128",
                    name ? name : "(null)");
}

bool tcmma_swizzle_ld_ok(tcmma_swizzle sw, long ld_bytes) {
  const tcmma_swizzle_info *i = tcmma_swizzle_get(sw);
  /* the rendered map multiplies rows in int: a row's bytes must be one */
  return i && ld_bytes > 0 && ld_bytes <= INT_MAX && (!i->bytes || ld_bytes % i->bytes == 0);
}

/* The XOR mask row r applies to its byte columns. */
static long row_mask(const tcmma_swizzle_info *i, long r) {
  long m = (1L << i->bits) - 1;
  return ((r >> (3 - i->bits)) & m) * TCMMA_SWIZZLE_UNIT;
}

long tcmma_swizzle_offset(tcmma_swizzle sw, long r, long c, long ld_bytes) {
  long row, at;
  if (r < 0 || c < 0 || !tcmma_swizzle_ld_ok(sw, ld_bytes) ||
      __builtin_mul_overflow(r, ld_bytes, &row))
    return -1;
  /* the mask changes only bits below 128, so c ^ mask <= c | 127 */
  long col = c ^ row_mask(tcmma_swizzle_get(sw), r);
  if (col < 0 || __builtin_add_overflow(row, col, &at)) return -1;
  return at;
}

bool tcmma_swizzle_conflict_free(tcmma_swizzle sw, long ld_bytes) {
  if (!tcmma_swizzle_ld_ok(sw, ld_bytes) || ld_bytes % TCMMA_SWIZZLE_UNIT) return false;
  /* a 16-byte-aligned base shifts every group alike: count from 0 */
  const int groups = 128 / TCMMA_SWIZZLE_UNIT;
  for (long unit = 0; unit < groups; unit++) {
    unsigned seen = 0;
    for (long r = 0; r < TCMMA_SWIZZLE_ROWS; r++) {
      long at = tcmma_swizzle_offset(sw, r, unit * TCMMA_SWIZZLE_UNIT, ld_bytes);
      unsigned bit = 1u << ((at / TCMMA_SWIZZLE_UNIT) % groups);
      if (seen & bit) return false;
      seen |= bit;
    }
  }
  return true;
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
  tcmma__swizzle_mask_expr(sw, r, mask, sizeof mask);
  if (!*mask) tcmma_buf_printf(out, "(%s) * %ld + (%s)", r, ld_bytes, c);
  else tcmma_buf_printf(out, "(%s) * %ld + ((%s) ^ %s)", r, ld_bytes, c, mask);
  return out->failed ? tcmma_fail(err, TCMMA_NO_MEMORY, "out of memory") : TCMMA_OK;
}
