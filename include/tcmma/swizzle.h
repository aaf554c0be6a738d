/* Shared-memory swizzle atoms (tables/swizzles.def, docs/design.md §5): the
 * XOR of 16-byte units over 8 rows that keeps ldmatrix's eight row reads in
 * distinct bank groups. */
#ifndef TCMMA_SWIZZLE_H
#define TCMMA_SWIZZLE_H

#include <stdbool.h>
#include "tcmma/buf.h"
#include "tcmma/status.h"

#ifdef __cplusplus
extern "C" {
#endif
#pragma GCC visibility push(default) /* public: the library builds with -fvisibility=hidden */

typedef enum {
#define TCMMA_SWIZZLE(ID, value, ...) TCMMA_SWIZZLE_##ID = (value),
#include "tables/swizzles.def"
#undef TCMMA_SWIZZLE
  /* the number of rows (the values: 0..COUNT-1 in any row order, mma/abi_values.c) */
  TCMMA_SWIZZLE_COUNT = 0
#define TCMMA_SWIZZLE(...) +1
#include "tables/swizzles.def"
#undef TCMMA_SWIZZLE
} tcmma_swizzle;

/* The unit a swizzle moves whole (bytes) and the rows after which its
 * pattern repeats: CuTe's Swizzle<B,4,3> (2^4-byte units, 2^3 rows). */
#define TCMMA_SWIZZLE_UNIT 16
#define TCMMA_SWIZZLE_ROWS 8

typedef struct {
  tcmma_swizzle id;
  const char *name;   /* "none", "32", "64", "128" */
  int bits;           /* B: low unit-index bits the row XORs (0: none) */
  int bytes;          /* the span the XOR permutes: TCMMA_SWIZZLE_UNIT << bits
                         (0 for none: no row rule) */
  const char *cute;   /* "Swizzle<3,4,3>"; "" for none */
} tcmma_swizzle_info;

/* The row of sw; NULL when sw is out of range. */
const tcmma_swizzle_info *tcmma_swizzle_get(tcmma_swizzle sw);

/* The name of sw ("128"); "?" when out of range. */
const char *tcmma_swizzle_name(tcmma_swizzle sw);

/* Parses a name ("none", "32", "64", "128") into *out; TCMMA_INVALID naming
 * the value and the valid names otherwise. */
tcmma_status tcmma_swizzle_parse(const char *name, tcmma_swizzle *out, tcmma_error *err);

/* Whether rows of ld_bytes bytes suit sw: positive, and a whole number of
 * spans for a swizzled atom. */
bool tcmma_swizzle_ld_ok(tcmma_swizzle sw, long ld_bytes);

/* Byte offset, from the parent tile's base, of byte c of stored row r in a
 * tile of sw with rows of ld_bytes bytes:
 * r*ld_bytes + (c ^ (((r >> (3 - B)) & (2^B - 1)) << 4)). -1 for negative
 * input, an out-of-range sw, rows that do not suit it (or exceed INT_MAX
 * bytes), or an offset past a long. */
long tcmma_swizzle_offset(tcmma_swizzle sw, long r, long c, long ld_bytes);

/* Whether the eight 16-byte rows of one ldmatrix matrix (8 consecutive
 * stored rows starting at a multiple of 8, any 16-byte column unit) fall in
 * eight distinct bank groups (address bits 4-6) when the base is 16-byte
 * aligned: the condition under which the plan loads a shared operand through
 * ldmatrix. False when the rows do not suit sw or are not 16-byte multiples. */
bool tcmma_swizzle_conflict_free(tcmma_swizzle sw, long ld_bytes);

/* Appends the offset of tcmma_swizzle_offset as a C int expression of the
 * row and byte-column expressions r and c (non-negative). TCMMA_INVALID for
 * empty expressions or rows that do not suit sw; TCMMA_NO_MEMORY when out
 * failed to grow. */
tcmma_status tcmma_render_swizzle_offset(tcmma_swizzle sw, const char *r, const char *c,
                                         long ld_bytes, tcmma_buf *out, tcmma_error *err);

#pragma GCC visibility pop
#ifdef __cplusplus
}
#endif

#endif
