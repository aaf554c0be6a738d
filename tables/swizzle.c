/* Swizzle atoms (tables/swizzles.def): the one byte map every shared tile
 * uses (staging, loads, stores) and the bank-group test that decides
 * ldmatrix; its C rendering is mma/render_swizzle.c. */
#include "tcmma/swizzle.h"

#include <limits.h>
#include <stdio.h>
#include <string.h>

#include "tcmma/status.h"
#include "tables/names.h"

/* Indexed by value (a row's value column, not its position). */
static const tcmma_swizzle_info swizzles[TCMMA_SWIZZLE_COUNT] = {
#define TCMMA_SWIZZLE(ID, value, name, bits, cute) \
  [value] = {TCMMA_SWIZZLE_##ID, name, bits, (bits) ? TCMMA_SWIZZLE_UNIT << (bits) : 0, cute},
#include "tables/swizzles.def"
#undef TCMMA_SWIZZLE
};

const tcmma_swizzle_info *tcmma_swizzle_get(tcmma_swizzle sw) {
  return (unsigned)sw < TCMMA_SWIZZLE_COUNT ? &swizzles[sw] : NULL;
}

const char *tcmma_swizzle_name(tcmma_swizzle sw) {
  const tcmma_swizzle_info *i = tcmma_swizzle_get(sw);
  return i ? i->name : "?";
}

static const char *swizzle_at(int i) { return tcmma_swizzle_name((tcmma_swizzle)i); }

tcmma_status tcmma_swizzle_parse(const char *name, tcmma_swizzle *out, tcmma_error *err) {
  for (int i = 0; name && i < TCMMA_SWIZZLE_COUNT; i++)
    if (strcmp(name, swizzles[i].name) == 0) {
      if (out) *out = (tcmma_swizzle)i;
      return TCMMA_OK;
    }
  char names[64];
  tcmma__table_names(names, sizeof names, swizzle_at, 0, TCMMA_SWIZZLE_COUNT - 1);
  return tcmma_fail(err, TCMMA_INVALID, "unknown swizzle '%s': expected %s",
                    name ? name : "(null)", names);
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
