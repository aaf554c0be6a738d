/* The two descriptors tcgen05.mma reads (tables/tcgen05_desc.def,
 * docs/tcgen05.md): the 32-bit instruction descriptor of a tables/tcgen05.def
 * row, encoded from its fields' rows and decoded back, and the sm_100
 * shared-memory matrix descriptor. */
#include "tcmma/tcgen05.h"

#include <string.h>

/* The descriptor formats: 0 dense (Table 42), 1 block-scaled (43-44). */
enum { DENSE, SCALED };

typedef struct {
  const char *name;
  int lo[2], bits[2], unit[2];
} idesc_row;

static const idesc_row idesc_rows[TCMMA_TCGEN05_IDESC_COUNT] = {
#define TCMMA_TCGEN05_IDESC(ID, value, name, dlo, dbits, dunit, slo, sbits, sunit) \
  [value] = {name, {dlo, slo}, {dbits, sbits}, {dunit, sunit}},
#include "tables/tcgen05_desc.def"
};

/* The type-code sets (tables/tcgen05.def types) and each row's set. */
typedef enum { SET_F16F32, SET_F8F6F4, SET_I8, SET_MXF4 } type_set;

static const type_set row_set[TCMMA_TCGEN05_COUNT] = {
#define TCMMA_TCGEN05(ID, value, marker, m_mask, k, acc, ops, types, ...) [value] = SET_##types,
#include "tables/tcgen05.def"
#undef TCMMA_TCGEN05
};

typedef struct {
  type_set set;
  tcmma_prec prec;
  int code;
  int pack;
} type_row;

static const type_row type_rows[] = {
#define TCMMA_TCGEN05_TYPE(SET, PREC, code, pack) {SET_##SET, TCMMA_PREC_##PREC, code, pack},
#include "tables/tcgen05_desc.def"
};

static const type_row *type_of(type_set set, tcmma_prec p) {
  for (size_t t = 0; t < sizeof type_rows / sizeof type_rows[0]; t++)
    if (type_rows[t].set == set && type_rows[t].prec == p) return &type_rows[t];
  return NULL;
}

static int dtype_code(tcmma_prec acc) {
#define TCMMA_TCGEN05_DTYPE(PREC, code) \
  if (acc == TCMMA_PREC_##PREC) return code;
#include "tables/tcgen05_desc.def"
  return -1;
}

static int stype_code(const char *scale) {
#define TCMMA_TCGEN05_STYPE(name, code) \
  if (strcmp(scale, name) == 0) return code;
#include "tables/tcgen05_desc.def"
  return -1;
}

static int form_of(const tcmma_tcgen05_info *i) { return i->scale[0] ? SCALED : DENSE; }

int tcmma_tcgen05_idesc_bit(tcmma_tcgen05 w, tcmma_tcgen05_idesc_field f) {
  const tcmma_tcgen05_info *i = tcmma_tcgen05_get(w);
  if (!i || (unsigned)f >= TCMMA_TCGEN05_IDESC_COUNT) return -1;
  int form = form_of(i);
  return idesc_rows[f].bits[form] ? idesc_rows[f].lo[form] : -1;
}

int tcmma_tcgen05_pack(tcmma_tcgen05 w, tcmma_prec p) {
  const type_row *t = tcmma_tcgen05_takes(w, p, p) ? type_of(row_set[w], p) : NULL;
  return t ? t->pack : 0;
}

bool tcmma_tcgen05_reads_storage(tcmma_tcgen05 w, tcmma_prec p) {
  return tcmma_tcgen05_pack(w, p) == 1;
}

const char *tcmma_tcgen05_idesc_field_name(tcmma_tcgen05_idesc_field f) {
  return (unsigned)f < TCMMA_TCGEN05_IDESC_COUNT ? idesc_rows[f].name : "?";
}

int tcmma_tcgen05_idesc_get(tcmma_tcgen05 w, tcmma_tcgen05_idesc_field f, uint32_t bits) {
  const tcmma_tcgen05_info *i = tcmma_tcgen05_get(w);
  if (!i || (unsigned)f >= TCMMA_TCGEN05_IDESC_COUNT) return -1;
  const idesc_row *r = &idesc_rows[f];
  int form = form_of(i);
  if (!r->bits[form]) return -1;
  return (int)(bits >> r->lo[form] & ((1u << r->bits[form]) - 1u));
}

/* Whether operand precision p of row i may be stored M/N-major: the row
 * allows it and p is no fp6 or fp4 (K-major only, PTX ISA). */
static bool trans_ok(const tcmma_tcgen05_info *i, tcmma_prec p) {
  const type_row *t = type_of(row_set[i->id], p);
  return i->trans && t && t->pack == 1;
}

/* Sets field f to value (already divided by its unit). */
static void put(uint32_t *bits, int form, tcmma_tcgen05_idesc_field f, unsigned value) {
  const idesc_row *r = &idesc_rows[f];
  *bits |= (value & ((1u << r->bits[form]) - 1u)) << r->lo[form];
}

tcmma_status tcmma_tcgen05_idesc(tcmma_tcgen05 w, int m, int n, tcmma_prec a, tcmma_prec b,
                                 bool trans_a, bool trans_b, uint32_t *out, tcmma_error *err) {
  const tcmma_tcgen05_info *i = tcmma_tcgen05_get(w);
  if (!i) return tcmma_fail(err, TCMMA_INVALID, "tcgen05 arm %d is out of range", (int)w);
  if (!out) return tcmma_fail(err, TCMMA_INVALID, "%s instruction descriptor: out must not be NULL",
                              i->marker);
  if (!tcmma_tcgen05_shape_ok(w, m, n))
    return tcmma_fail(err, TCMMA_INVALID, "%s: %d x %d is not an instruction shape "
                      "(tables/tcgen05.def)", i->marker, m, n);
  if (!tcmma_tcgen05_takes(w, a, b))
    return tcmma_fail(err, TCMMA_INVALID, "%s does not multiply %s by %s", i->marker,
                      tcmma_prec_name(a), tcmma_prec_name(b));
  if ((trans_a && !trans_ok(i, a)) || (trans_b && !trans_ok(i, b)))
    return tcmma_fail(err, TCMMA_INVALID, "%s: a %s operand is K-major only", i->marker,
                      tcmma_prec_name(trans_a && !trans_ok(i, a) ? a : b));
  int form = form_of(i);
  uint32_t bits = 0;
  if (form == DENSE) put(&bits, form, TCMMA_TCGEN05_IDESC_DTYPE, (unsigned)dtype_code(i->acc));
  else put(&bits, form, TCMMA_TCGEN05_IDESC_SCALE_TYPE, (unsigned)stype_code(i->scale));
  put(&bits, form, TCMMA_TCGEN05_IDESC_ATYPE, (unsigned)type_of(row_set[w], a)->code);
  put(&bits, form, TCMMA_TCGEN05_IDESC_BTYPE, (unsigned)type_of(row_set[w], b)->code);
  put(&bits, form, TCMMA_TCGEN05_IDESC_TRANSPOSE_A, trans_a);
  put(&bits, form, TCMMA_TCGEN05_IDESC_TRANSPOSE_B, trans_b);
  put(&bits, form, TCMMA_TCGEN05_IDESC_N, (unsigned)(n / idesc_rows[TCMMA_TCGEN05_IDESC_N].unit[form]));
  put(&bits, form, TCMMA_TCGEN05_IDESC_M, (unsigned)(m / idesc_rows[TCMMA_TCGEN05_IDESC_M].unit[form]));
  *out = bits;
  return TCMMA_OK;
}

/* The precision of a type code among row i's operand precisions. */
static bool prec_of(const tcmma_tcgen05_info *i, int code, tcmma_prec *p) {
  for (size_t t = 0; t < sizeof type_rows / sizeof type_rows[0]; t++)
    if (type_rows[t].set == row_set[i->id] && type_rows[t].code == code &&
        (i->ops >> type_rows[t].prec & 1u)) {
      *p = type_rows[t].prec;
      return true;
    }
  return false;
}

/* The fields tcmma never sets must be 0, and so must every bit no field of
 * the format covers; NULL when they are, else the offending field's name. */
static const char *stray_field(const tcmma_tcgen05_info *i, uint32_t bits, int *bit) {
  static const tcmma_tcgen05_idesc_field zero[] = {
      TCMMA_TCGEN05_IDESC_SPARSE_ID2, TCMMA_TCGEN05_IDESC_SPARSE,   TCMMA_TCGEN05_IDESC_SATURATE,
      TCMMA_TCGEN05_IDESC_NEGATE_A,   TCMMA_TCGEN05_IDESC_NEGATE_B, TCMMA_TCGEN05_IDESC_MAX_SHIFT,
      TCMMA_TCGEN05_IDESC_K_SIZE};
  int form = form_of(i);
  for (size_t z = 0; z < sizeof zero / sizeof zero[0]; z++)
    if (tcmma_tcgen05_idesc_get(i->id, zero[z], bits) > 0) return idesc_rows[zero[z]].name;
  uint32_t covered = 0;
  for (int f = 0; f < TCMMA_TCGEN05_IDESC_COUNT; f++)
    if (idesc_rows[f].bits[form])
      covered |= ((1u << idesc_rows[f].bits[form]) - 1u) << idesc_rows[f].lo[form];
  for (*bit = 0; *bit < 32; (*bit)++)
    if ((bits & ~covered) >> *bit & 1u) return "reserved";
  return NULL;
}

tcmma_status tcmma_tcgen05_idesc_decode(tcmma_tcgen05 w, uint32_t bits, int *m, int *n,
                                        tcmma_prec *a, tcmma_prec *b, bool *trans_a,
                                        bool *trans_b, tcmma_error *err) {
  const tcmma_tcgen05_info *i = tcmma_tcgen05_get(w);
  if (!i) return tcmma_fail(err, TCMMA_INVALID, "tcgen05 arm %d is out of range", (int)w);
  int form = form_of(i), bit = 0;
  const char *stray = stray_field(i, bits, &bit);
  if (stray)
    return tcmma_fail(err, TCMMA_INVALID, "%s instruction descriptor 0x%08x: %s %s set (tcmma "
                      "writes it 0)", i->marker, bits, stray,
                      strcmp(stray, "reserved") == 0 ? "bit" : "field");
  int sel = form == DENSE ? TCMMA_TCGEN05_IDESC_DTYPE : TCMMA_TCGEN05_IDESC_SCALE_TYPE;
  int want = form == DENSE ? dtype_code(i->acc) : stype_code(i->scale);
  if (tcmma_tcgen05_idesc_get(w, (tcmma_tcgen05_idesc_field)sel, bits) != want)
    return tcmma_fail(err, TCMMA_INVALID, "%s instruction descriptor 0x%08x: %s %d, expected %d",
                      i->marker, bits, idesc_rows[sel].name,
                      tcmma_tcgen05_idesc_get(w, (tcmma_tcgen05_idesc_field)sel, bits), want);
  tcmma_prec pa, pb;
  int ca = tcmma_tcgen05_idesc_get(w, TCMMA_TCGEN05_IDESC_ATYPE, bits),
      cb = tcmma_tcgen05_idesc_get(w, TCMMA_TCGEN05_IDESC_BTYPE, bits);
  if (!prec_of(i, ca, &pa) || !prec_of(i, cb, &pb))
    return tcmma_fail(err, TCMMA_INVALID, "%s instruction descriptor 0x%08x: %s code %d is not "
                      "one of its operand types", i->marker, bits,
                      prec_of(i, ca, &pa) ? "btype" : "atype", prec_of(i, ca, &pa) ? cb : ca);
  int mm = tcmma_tcgen05_idesc_get(w, TCMMA_TCGEN05_IDESC_M, bits) *
           idesc_rows[TCMMA_TCGEN05_IDESC_M].unit[form],
      nn = tcmma_tcgen05_idesc_get(w, TCMMA_TCGEN05_IDESC_N, bits) *
           idesc_rows[TCMMA_TCGEN05_IDESC_N].unit[form];
  bool ta = tcmma_tcgen05_idesc_get(w, TCMMA_TCGEN05_IDESC_TRANSPOSE_A, bits) == 1,
       tb = tcmma_tcgen05_idesc_get(w, TCMMA_TCGEN05_IDESC_TRANSPOSE_B, bits) == 1;
  uint32_t again = 0;
  tcmma_status s = tcmma_tcgen05_idesc(w, mm, nn, pa, pb, ta, tb, &again, err);
  if (s != TCMMA_OK) return s;
  if (m) *m = mm;
  if (n) *n = nn;
  if (a) *a = pa;
  if (b) *b = pb;
  if (trans_a) *trans_a = ta;
  if (trans_b) *trans_b = tb;
  return TCMMA_OK;
}

/* ---- the shared-memory descriptor */

typedef struct {
  const char *name;
  int lo, bits, unit;
  long fixed;
} sdesc_row;

static const sdesc_row sdesc_rows[TCMMA_TCGEN05_SDESC_COUNT] = {
#define TCMMA_TCGEN05_SDESC(ID, value, name, lo, bits, unit, fixed) [value] = {name, lo, bits, unit, fixed},
#include "tables/tcgen05_desc.def"
};

/* tcmma has no swizzle for a code of this row. */
#define TCMMA_SWIZZLE_NONE_OF_OURS ((tcmma_swizzle)-1)

typedef struct {
  unsigned code;
  tcmma_swizzle swizzle;
  const char *name;
} swizzle_row;

static const swizzle_row swizzle_rows[] = {
#define TCMMA_TCGEN05_SWIZZLE(code, SWIZZLE, name) {code, TCMMA_SWIZZLE_##SWIZZLE, name},
#include "tables/tcgen05_desc.def"
};
#define SWIZZLE_ROWS (sizeof swizzle_rows / sizeof swizzle_rows[0])

long tcmma_tcgen05_desc_get(tcmma_tcgen05_sdesc_field f, uint64_t bits) {
  if ((unsigned)f >= TCMMA_TCGEN05_SDESC_COUNT) return -1;
  return (long)(bits >> sdesc_rows[f].lo & ((1ull << sdesc_rows[f].bits) - 1ull));
}

static uint64_t sput(tcmma_tcgen05_sdesc_field f, long value) {
  const sdesc_row *r = &sdesc_rows[f];
  return ((uint64_t)(value / r->unit) & ((1ull << r->bits) - 1ull)) << r->lo;
}

/* A byte field: a multiple of 16 below 2^18 (stored >> 4 in 14 bits). */
static bool bytes_ok(long v) { return v >= 0 && v < (1L << 18) && v % 16 == 0; }

tcmma_status tcmma_tcgen05_desc_encode(long start, long lbo, long sbo, int base_offset,
                                       tcmma_swizzle swizzle, uint64_t *out, tcmma_error *err) {
  const long v[3] = {start, lbo, sbo};
  static const tcmma_tcgen05_sdesc_field f[3] = {
      TCMMA_TCGEN05_SDESC_START, TCMMA_TCGEN05_SDESC_LBO, TCMMA_TCGEN05_SDESC_SBO};
  for (int j = 0; j < 3; j++)
    if (!bytes_ok(v[j]))
      return tcmma_fail(err, TCMMA_INVALID, "tcgen05 shared-memory descriptor: %s %ld: expected "
                        "a multiple of 16 from 0 to %ld", sdesc_rows[f[j]].name, v[j],
                        (1L << 18) - 16);
  if (base_offset < 0 || base_offset > 7)
    return tcmma_fail(err, TCMMA_INVALID, "tcgen05 shared-memory descriptor: base offset %d: "
                      "expected 0 to 7", base_offset);
  const swizzle_row *sw = NULL;
  for (size_t r = 0; r < SWIZZLE_ROWS; r++)
    if (swizzle_rows[r].swizzle == swizzle && swizzle != TCMMA_SWIZZLE_NONE_OF_OURS)
      sw = &swizzle_rows[r];
  if (!sw)
    return tcmma_fail(err, TCMMA_INVALID, "tcgen05 shared-memory descriptor: swizzle %d is out "
                      "of range", (int)swizzle);
  if (!out)
    return tcmma_fail(err, TCMMA_INVALID, "tcgen05 shared-memory descriptor: out must not be NULL");
  *out = sput(TCMMA_TCGEN05_SDESC_START, start) | sput(TCMMA_TCGEN05_SDESC_LBO, lbo) |
         sput(TCMMA_TCGEN05_SDESC_SBO, sbo) |
         sput(TCMMA_TCGEN05_SDESC_VERSION, sdesc_rows[TCMMA_TCGEN05_SDESC_VERSION].fixed) |
         sput(TCMMA_TCGEN05_SDESC_BASE_OFFSET, base_offset) |
         sput(TCMMA_TCGEN05_SDESC_SWIZZLE, (long)sw->code);
  return TCMMA_OK;
}

/* A byte field's value: the field times its unit. */
static long field_bytes(tcmma_tcgen05_sdesc_field f, uint64_t bits) {
  return tcmma_tcgen05_desc_get(f, bits) * sdesc_rows[f].unit;
}

/* The first set bit no field covers; -1 when none. */
static int sdesc_reserved_bit(uint64_t bits) {
  uint64_t covered = 0;
  for (int f = 0; f < TCMMA_TCGEN05_SDESC_COUNT; f++)
    covered |= ((1ull << sdesc_rows[f].bits) - 1ull) << sdesc_rows[f].lo;
  for (int b = 0; b < 64; b++)
    if ((bits & ~covered) >> b & 1ull) return b;
  return -1;
}

tcmma_status tcmma_tcgen05_desc_decode(uint64_t bits, long *start, long *lbo, long *sbo,
                                       int *base_offset, tcmma_swizzle *swizzle,
                                       tcmma_error *err) {
  long version = tcmma_tcgen05_desc_get(TCMMA_TCGEN05_SDESC_VERSION, bits);
  if (version != sdesc_rows[TCMMA_TCGEN05_SDESC_VERSION].fixed)
    return tcmma_fail(err, TCMMA_INVALID, "tcgen05 shared-memory descriptor 0x%016llx: version "
                      "%ld, expected %ld", (unsigned long long)bits, version,
                      sdesc_rows[TCMMA_TCGEN05_SDESC_VERSION].fixed);
  if (tcmma_tcgen05_desc_get(TCMMA_TCGEN05_SDESC_LBO_MODE, bits))
    return tcmma_fail(err, TCMMA_INVALID, "tcgen05 shared-memory descriptor 0x%016llx: the "
                      "leading byte offset is absolute (mode 1); tcmma writes relative offsets",
                      (unsigned long long)bits);
  int reserved = sdesc_reserved_bit(bits);
  if (reserved >= 0)
    return tcmma_fail(err, TCMMA_INVALID, "tcgen05 shared-memory descriptor 0x%016llx: reserved "
                      "bit %d set", (unsigned long long)bits, reserved);
  unsigned code = (unsigned)tcmma_tcgen05_desc_get(TCMMA_TCGEN05_SDESC_SWIZZLE, bits);
  const swizzle_row *sw = NULL;
  for (size_t r = 0; r < SWIZZLE_ROWS; r++)
    if (swizzle_rows[r].code == code) sw = &swizzle_rows[r];
  if (!sw || sw->swizzle == TCMMA_SWIZZLE_NONE_OF_OURS)
    return tcmma_fail(err, TCMMA_INVALID, "tcgen05 shared-memory descriptor 0x%016llx: swizzle "
                      "code %u (%s) has no tcmma swizzle", (unsigned long long)bits, code,
                      sw ? sw->name : "not a code of the ISA");
  if (start) *start = field_bytes(TCMMA_TCGEN05_SDESC_START, bits);
  if (lbo) *lbo = field_bytes(TCMMA_TCGEN05_SDESC_LBO, bits);
  if (sbo) *sbo = field_bytes(TCMMA_TCGEN05_SDESC_SBO, bits);
  if (base_offset) *base_offset = (int)tcmma_tcgen05_desc_get(TCMMA_TCGEN05_SDESC_BASE_OFFSET, bits);
  if (swizzle) *swizzle = sw->swizzle;
  return TCMMA_OK;
}
