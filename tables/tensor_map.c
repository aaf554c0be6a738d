/* Tensor maps (tables/tensor_map.def): the option names, the encoder's rules
 * checked in row order, and where a box lands in shared memory. Each rule is
 * one function below, named by its row; the table orders and names them. */
#include "tcmma/tensor_map.h"

#include <stdio.h>
#include <string.h>

#include "tables/names.h"

typedef struct {
  const char *name;
  int bytes;
} option_row;

static const option_row interleaves[TCMMA_TMAP_INTERLEAVE_COUNT] = {
#define TCMMA_TMAP_INTERLEAVE(ID, value, name, bytes) [value] = {name, bytes},
#include "tables/tensor_map.def"
};
static const option_row l2s[TCMMA_TMAP_L2_COUNT] = {
#define TCMMA_TMAP_L2(ID, value, name, bytes) [value] = {name, bytes},
#include "tables/tensor_map.def"
};
static const option_row oobs[TCMMA_TMAP_OOB_COUNT] = {
#define TCMMA_TMAP_OOB(ID, value, name) [value] = {name, 0},
#include "tables/tensor_map.def"
};

typedef struct {
  bool known;
  bool floating;
} dtype_row;
static const dtype_row dtypes[TCMMA_PREC_COUNT] = {
#define TCMMA_TMAP_DTYPE(PREC, cu_value, cu_name, floating) [TCMMA_PREC_##PREC] = {true, floating},
#include "tables/tensor_map.def"
};

static const char *interleave_at(int i) { return tcmma_tmap_interleave_name(i); }
static const char *l2_at(int i) { return tcmma_tmap_l2_name(i); }
static const char *oob_at(int i) { return tcmma_tmap_oob_name(i); }

const char *tcmma_tmap_interleave_name(tcmma_tmap_interleave v) {
  return (unsigned)v < TCMMA_TMAP_INTERLEAVE_COUNT ? interleaves[v].name : "?";
}
const char *tcmma_tmap_l2_name(tcmma_tmap_l2 v) {
  return (unsigned)v < TCMMA_TMAP_L2_COUNT ? l2s[v].name : "?";
}
const char *tcmma_tmap_oob_name(tcmma_tmap_oob v) {
  return (unsigned)v < TCMMA_TMAP_OOB_COUNT ? oobs[v].name : "?";
}

/* The index of name among n names of name_at, or -1 with err set. */
static int parse(const char *what, const char *name, int n, tcmma__table_name_fn name_at,
                 tcmma_error *err) {
  for (int i = 0; name && i < n; i++)
    if (strcmp(name, name_at(i)) == 0) return i;
  char names[96];
  tcmma__table_names(names, sizeof names, name_at, 0, n - 1);
  tcmma_fail(err, TCMMA_INVALID, "unknown %s '%s': expected %s", what, name ? name : "(null)",
             names);
  return -1;
}

tcmma_status tcmma_tmap_interleave_parse(const char *name, tcmma_tmap_interleave *out,
                                         tcmma_error *err) {
  int i = parse("interleave", name, TCMMA_TMAP_INTERLEAVE_COUNT, interleave_at, err);
  if (i < 0) return TCMMA_INVALID;
  if (out) *out = (tcmma_tmap_interleave)i;
  return TCMMA_OK;
}
tcmma_status tcmma_tmap_l2_parse(const char *name, tcmma_tmap_l2 *out, tcmma_error *err) {
  int i = parse("L2 promotion", name, TCMMA_TMAP_L2_COUNT, l2_at, err);
  if (i < 0) return TCMMA_INVALID;
  if (out) *out = (tcmma_tmap_l2)i;
  return TCMMA_OK;
}
tcmma_status tcmma_tmap_oob_parse(const char *name, tcmma_tmap_oob *out, tcmma_error *err) {
  int i = parse("out-of-bounds fill", name, TCMMA_TMAP_OOB_COUNT, oob_at, err);
  if (i < 0) return TCMMA_INVALID;
  if (out) *out = (tcmma_tmap_oob)i;
  return TCMMA_OK;
}

/* ---- the rules: each false with what is wrong in why ---- */

typedef bool (*rule_fn)(const tcmma_tensor_map *m, char *why, size_t cap);

static long long eb_of(const tcmma_tensor_map *m) { return tcmma_prec_bytes(m->prec); }
static bool none_interleave(const tcmma_tensor_map *m) {
  return m->interleave == TCMMA_TMAP_INTERLEAVE_NONE;
}

static bool rule_SIZE(const tcmma_tensor_map *m, char *why, size_t cap) {
  if (m->size >= sizeof *m) return true;
  snprintf(why, cap, "size %zu, expected at least %zu", m->size, sizeof *m);
  return false;
}
static bool rule_PREC(const tcmma_tensor_map *m, char *why, size_t cap) {
  if ((unsigned)m->prec < TCMMA_PREC_COUNT && dtypes[m->prec].known) return true;
  snprintf(why, cap, "element type %d is no storage precision", (int)m->prec);
  return false;
}
static bool rule_OPTIONS(const tcmma_tensor_map *m, char *why, size_t cap) {
  const char *what = (unsigned)m->interleave >= TCMMA_TMAP_INTERLEAVE_COUNT ? "interleave"
                     : (unsigned)m->swizzle >= TCMMA_SWIZZLE_COUNT          ? "swizzle"
                     : (unsigned)m->l2_promotion >= TCMMA_TMAP_L2_COUNT     ? "l2_promotion"
                     : (unsigned)m->oob_fill >= TCMMA_TMAP_OOB_COUNT        ? "oob_fill"
                                                                            : NULL;
  if (!what) return true;
  int v = what[0] == 'i' ? (int)m->interleave : what[0] == 's' ? (int)m->swizzle
        : what[0] == 'l' ? (int)m->l2_promotion : (int)m->oob_fill;
  snprintf(why, cap, "%s %d is out of range", what, v);
  return false;
}
static bool rule_RANK(const tcmma_tensor_map *m, char *why, size_t cap) {
  if (m->rank >= 1 && m->rank <= TCMMA_TMAP_RANK_MAX) return true;
  snprintf(why, cap, "rank %d, expected 1 to %d", m->rank, TCMMA_TMAP_RANK_MAX);
  return false;
}
static bool rule_INTERLEAVE_RANK(const tcmma_tensor_map *m, char *why, size_t cap) {
  if (none_interleave(m) || m->rank >= 3) return true;
  snprintf(why, cap, "interleave %s with rank %d, expected rank 3 or more",
           tcmma_tmap_interleave_name(m->interleave), m->rank);
  return false;
}
static bool rule_ADDRESS(const tcmma_tensor_map *m, char *why, size_t cap) {
  unsigned long long align = m->interleave == TCMMA_TMAP_INTERLEAVE_B32 ? 32 : 16;
  if (m->address % align == 0) return true;
  snprintf(why, cap, "address 0x%llx is not %llu-byte aligned", m->address, align);
  return false;
}
static bool rule_DIM(const tcmma_tensor_map *m, char *why, size_t cap) {
  for (int i = 0; i < m->rank; i++)
    if (m->dims[i] == 0 || m->dims[i] > (1ULL << 32)) {
      snprintf(why, cap, "dims[%d] %llu, expected 1 to 2^32", i, m->dims[i]);
      return false;
    }
  return true;
}
static bool rule_STRIDE(const tcmma_tensor_map *m, char *why, size_t cap) {
  unsigned long long mult = m->interleave == TCMMA_TMAP_INTERLEAVE_B32 ? 32 : 16;
  for (int i = 0; i + 1 < m->rank; i++)
    if (m->strides[i] % mult != 0 || m->strides[i] >= (1ULL << 40)) {
      snprintf(why, cap, "strides[%d] %llu bytes, expected a multiple of %llu below 2^40", i,
               m->strides[i], mult);
      return false;
    }
  return true;
}
static bool rule_STRIDE_COVERS(const tcmma_tensor_map *m, char *why, size_t cap) {
  unsigned long long below = m->dims[0] * (unsigned long long)eb_of(m);
  for (int i = 0; i + 1 < m->rank; i++) {
    if (m->strides[i] < below) {
      snprintf(why, cap, "strides[%d] %llu bytes, expected at least %llu (dimension %d's extent)",
               i, m->strides[i], below, i);
      return false;
    }
    /* saturated: 2^40 x 2^32 passes a long long */
    if (i + 2 < m->rank && __builtin_mul_overflow(m->strides[i], m->dims[i + 1], &below))
      below = ~0ULL;
  }
  return true;
}
/* Each of the rank values v[] (named what) in 1..max. */
static bool each_in(const tcmma_tensor_map *m, const unsigned *v, unsigned max, const char *what,
                    char *why, size_t cap) {
  for (int i = 0; i < m->rank; i++)
    if (v[i] == 0 || v[i] > max) {
      snprintf(why, cap, "%s[%d] %u, expected 1 to %u", what, i, v[i], max);
      return false;
    }
  return true;
}
static bool rule_BOX(const tcmma_tensor_map *m, char *why, size_t cap) {
  return each_in(m, m->box, 256, "box", why, cap);
}
static bool rule_BOX_INNER(const tcmma_tensor_map *m, char *why, size_t cap) {
  long long bytes = m->box[0] * eb_of(m);
  if (!none_interleave(m) || bytes % 16 == 0) return true;
  snprintf(why, cap, "box[0] %u x %lld bytes = %lld, expected a multiple of 16", m->box[0],
           eb_of(m), bytes);
  return false;
}
static bool rule_ELEMENT_STRIDE(const tcmma_tensor_map *m, char *why, size_t cap) {
  return each_in(m, m->element_strides, 8, "element_strides", why, cap);
}
static bool rule_SWIZZLE_SPAN(const tcmma_tensor_map *m, char *why, size_t cap) {
  long long bytes = m->box[0] * eb_of(m), span = tcmma_swizzle_get(m->swizzle)->bytes;
  if (!none_interleave(m) || !span || bytes <= span) return true;
  snprintf(why, cap, "box[0] %u x %lld bytes = %lld, above the %lld-byte span of swizzle %s",
           m->box[0], eb_of(m), bytes, span, tcmma_swizzle_name(m->swizzle));
  return false;
}
static bool rule_INTERLEAVE_SWIZZLE(const tcmma_tensor_map *m, char *why, size_t cap) {
  if (m->interleave != TCMMA_TMAP_INTERLEAVE_B32 || m->swizzle == TCMMA_SWIZZLE_B32) return true;
  snprintf(why, cap, "interleave 32 with swizzle %s, expected swizzle 32",
           tcmma_swizzle_name(m->swizzle));
  return false;
}
static bool rule_OOB_FLOAT(const tcmma_tensor_map *m, char *why, size_t cap) {
  if (m->oob_fill != TCMMA_TMAP_OOB_NAN || dtypes[m->prec].floating) return true;
  snprintf(why, cap, "oob fill nan for %s, whose TMA type is not floating-point",
           tcmma_prec_name(m->prec));
  return false;
}
static bool rule_MAP_ALIGN(const tcmma_tensor_map *m, char *why, size_t cap) {
  (void)m, (void)why, (void)cap; /* a rule of the encoded map: tcmma_tensor_map_encode */
  return true;
}

static const struct {
  tcmma_tmap_rule id;
  const char *name, *text;
  rule_fn ok;
} rules[] = {
#define TCMMA_TMAP_RULE(ID, value, name, text) {TCMMA_TMAP_RULE_##ID, name, text, rule_##ID},
#include "tables/tensor_map.def"
};
enum { N_RULES = sizeof rules / sizeof rules[0] };

static int rule_row(tcmma_tmap_rule r) {
  for (int i = 0; i < N_RULES; i++)
    if (rules[i].id == r) return i;
  return -1;
}

const char *tcmma_tensor_map_rule_name(tcmma_tmap_rule r) {
  int i = rule_row(r);
  return i < 0 ? "?" : rules[i].name;
}
const char *tcmma_tensor_map_rule_text(tcmma_tmap_rule r) {
  int i = rule_row(r);
  return i < 0 ? "?" : rules[i].text;
}

tcmma_status tcmma_tensor_map_check(const tcmma_tensor_map *map, tcmma_tmap_rule *broken,
                                    tcmma_error *err) {
  if (broken) *broken = TCMMA_TMAP_RULE_COUNT;
  char why[256];
  for (int i = 0; i < N_RULES; i++) {
    if (map && rules[i].ok(map, why, sizeof why)) continue;
    if (!map) snprintf(why, sizeof why, "the map is NULL");
    if (broken) *broken = rules[i].id;
    return tcmma_fail(err, TCMMA_INVALID, "tensor map rule %s: %s (%s)", rules[i].name, why,
                      rules[i].text);
  }
  return TCMMA_OK;
}

/* Elements of dimension i one copy lands (dimension 0 whole without interleave). */
static unsigned long long landed(const tcmma_tensor_map *m, int i) {
  unsigned e = i == 0 && none_interleave(m) ? 1 : m->element_strides[i];
  return (m->box[i] + e - 1) / e;
}

unsigned tcmma_tensor_map_box_elems(const tcmma_tensor_map *map, int dim) {
  if (tcmma_tensor_map_check(map, NULL, NULL) != TCMMA_OK || dim < 0 || dim >= map->rank) return 0;
  return (unsigned)landed(map, dim);
}

long long tcmma_tensor_map_box_bytes(const tcmma_tensor_map *map) {
  if (tcmma_tensor_map_check(map, NULL, NULL) != TCMMA_OK) return -1;
  long long n = eb_of(map);
  for (int i = 0; i < map->rank; i++) n *= (long long)landed(map, i);
  return n;
}

long long tcmma_tensor_map_shared_offset(const tcmma_tensor_map *map, const unsigned *idx) {
  if (!idx || tcmma_tensor_map_check(map, NULL, NULL) != TCMMA_OK || !none_interleave(map))
    return -1;
  long long off = 0;
  for (int i = map->rank - 1; i >= 0; i--) {
    if (idx[i] >= landed(map, i)) return -1;
    off = off * (long long)landed(map, i) + idx[i];
  }
  off *= eb_of(map);
  int bits = tcmma_swizzle_get(map->swizzle)->bits; /* Swizzle<B,4,3> */
  return off ^ (((off >> 7) & ((1 << bits) - 1)) << 4);
}
