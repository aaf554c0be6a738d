/* The arm matrix (docs/design.md §12.1): every case the executors run, generated from
 * the compact axis tables below, never listed by hand.
 *
 * The expected arm or decline of each case is written here, in the
 * resolution rows, independently of tables/resolve.def and of
 * tcmma_resolve: the matrix is the oracle the planner is checked against.
 * Tiles are read from the arm table (through tcmma_arm_get) so that the
 * extents axis counts in tiles of the expected arm.
 *
 * Accepted cases: each tier-1 row runs the full product
 *   scopes (statement; fragment with outer reduction 1 and 3)
 *   x orientations (a, b stored transposed or not)
 *   x storages (global; shared plain; shared swizzled_b128 and a mix, the
 *     swizzled ones only for inline-PTX arms, since wmma has no swizzled load)
 * with the extents (1x1x1, 2x2x2, 3x1x2 tiles) rotating so that every
 * (row, scope, storage) sees every extent. Tier-2 rows (further destination
 * precisions, policies and devices) run scopes x storages with orientation
 * and extents rotating. Every row accepted on an inline-PTX arm (tier 1 or
 * 2) also runs each scope with each d storage (odd ld; transposed), with
 * orientation, a/b storage and extents rotating. Declined cases: one per
 * declining row and scope, plus the geometric mutations of the decline
 * table. */
#include <pthread.h>
#include <stdio.h>
#include <string.h>
#include "tools/verify/matrix.h"
#include "tools/verify/matrix_names.h"

/* ---- axis: storages of a and b ---- */

static const struct {
  matrix_storage a, b;
  bool inline_only; /* swizzled: wmma has no swizzled load (declined by layout) */
} storages[] = {
    {ST_GLOBAL, ST_GLOBAL, false},
    {ST_SHARED, ST_SHARED, false},
    {ST_SHARED, ST_GLOBAL, false},
    {ST_SWIZZLED, ST_SWIZZLED, true},
    {ST_SWIZZLED, ST_SHARED, true},
};

/* ---- axis: storages of d other than dense row-major (inline arms) ---- */

/* The inline d boundary moves register pairs as one access only where the
 * pair is adjacent and aligned (dense row-major d, every row above); these
 * take the element-by-element path: an odd ld misaligns every other row, a
 * transposed d puts a pair's elements in different stored rows. */
static const struct {
  bool transposed;
  long pad; /* elements added to the stored row length: the ld */
} d_storages[] = {{false, 1}, {true, 0}};

/* ---- the decline table: one mutation of a base call each ---- */

typedef enum { MUT_EXTENTS, MUT_LD, MUT_SPACE, MUT_LAYOUT, MUT_ORIGIN } mutation_kind;

typedef struct {
  tcmma_decline expect;
  const char *row;    /* label of a resolution row */
  tcmma_scope scope;
  mutation_kind kind;
  char operand;       /* 'd', 'a' or 'b' (MUT_LD, MUT_SPACE, MUT_LAYOUT) */
  bool transposed;    /* the mutated operand's orientation */
  long m, n, k;       /* MUT_EXTENTS: the extents (elements) */
  long ld;            /* MUT_LD, MUT_LAYOUT: the leading dimension */
  tcmma_space space;  /* MUT_SPACE, MUT_LAYOUT, MUT_ORIGIN */
  const char *what;   /* readable mutation, part of the name */
  tcmma_swizzle swizzle; /* MUT_ORIGIN: the operand's swizzle, ld and origin */
  long row0, col0;
} decline_row;

#define STMT TCMMA_SCOPE_STATEMENT
#define FRAG TCMMA_SCOPE_FRAGMENT
#define SH TCMMA_SPACE_SHARED
#define GL TCMMA_SPACE_GLOBAL
#define TH TCMMA_SPACE_THREAD

/* Each mutation breaks exactly one planning rule (docs/design.md §5). */
static const decline_row declines[] = {
    /* extents: not positive multiples of the tile */
    {D(EXTENTS), "f32=f16.f16/ptx", STMT, MUT_EXTENTS, 0, false, 16, 8, 24, 0, GL, "k=24"},
    {D(EXTENTS), "f32=bf16.bf16/ptx", FRAG, MUT_EXTENTS, 0, false, 8, 8, 16, 0, GL, "m=8"},
    {D(EXTENTS), "f32=bf16.bf16/ptx", STMT, MUT_EXTENTS, 0, false, 0, 8, 16, 0, GL, "m=0"},
    {D(EXTENTS), "f32=e4m3.e4m3", STMT, MUT_EXTENTS, 0, false, 16, 8, 16, 0, GL, "k=16"},
    {D(EXTENTS), "f16=f16.f16/narrow/wmma", STMT, MUT_EXTENTS, 0, false, 16, 8, 16, 0, GL, "n=8"},
    {D(EXTENTS), "f16=e4m3.e5m2/narrow", FRAG, MUT_EXTENTS, 0, false, 16, 8, 48, 0, GL, "k=48"},
    {D(EXTENTS), "f64=f64.f64", STMT, MUT_EXTENTS, 0, false, 12, 8, 4, 0, GL, "m=12"},
    {D(EXTENTS), "f32=f32.f32/tf32", FRAG, MUT_EXTENTS, 0, false, 16, 16, 4, 0, GL, "k=4"},
    {D(EXTENTS), "f16=f16.f16/wide@70", FRAG, MUT_EXTENTS, 0, false, 16, 24, 16, 0, GL, "n=24"},
    {D(EXTENTS), "f32=f16.f16/ptx@75", STMT, MUT_EXTENTS, 0, false, 16, 8, 12, 0, GL, "k=12"},
    /* stride: wmma's ldm must be a multiple of 16 bytes (PTX ISA); the rows
     * of a swizzled tile are whole spans of the atom (128 bytes here) */
    {D(STRIDE), "f16=f16.f16/narrow/wmma", STMT, MUT_LD, 'a', false, 0, 0, 0, 20, GL, "a.ld=20"},
    {D(STRIDE), "f32=f32.f32/tf32/wmma", STMT, MUT_LD, 'b', true, 0, 0, 0, 10, GL, "b=t.ld=10"},
    {D(STRIDE), "f32=f16.f16/wmma", FRAG, MUT_LD, 'd', false, 0, 0, 0, 18, GL, "d.ld=18"},
    {D(STRIDE), "f32=bf16.bf16/wmma", STMT, MUT_LD, 'a', true, 0, 0, 0, 20, SH, "a=t.shared.ld=20"},
    {D(STRIDE), "f32=f16.f16/ptx", STMT, MUT_LAYOUT, 'a', false, 0, 0, 0, 72, SH,
     "a=swizzled.ld=72"},
    {D(STRIDE), "f32=e4m3.e4m3", FRAG, MUT_LAYOUT, 'b', true, 0, 0, 0, 48, SH,
     "b=t.swizzled.ld=48"},
    {D(STRIDE), "s32=u8.s8/sat", STMT, MUT_LD, 'a', false, 0, 0, 0, 34, GL, "a.ld=34"},
    {D(STRIDE), "f64=f64.f64", FRAG, MUT_LAYOUT, 'b', true, 0, 0, 0, 12, SH, "b=t.swizzled.ld=12"},
    /* space: thread-space operands */
    {D(SPACE), "f32=f16.f16/ptx", STMT, MUT_SPACE, 'a', false, 0, 0, 0, 0, TH, "a=thread"},
    {D(SPACE), "f32=bf16.bf16/wmma", STMT, MUT_SPACE, 'b', false, 0, 0, 0, 0, TH, "b=thread"},
    {D(SPACE), "bf16=bf16.bf16", STMT, MUT_SPACE, 'd', false, 0, 0, 0, 0, TH, "d=thread"},
    {D(SPACE), "f32=e4m3.e4m3", FRAG, MUT_SPACE, 'a', false, 0, 0, 0, 0, TH, "a=thread"},
    /* layout: a swizzled operand the arm cannot load */
    {D(LAYOUT), "f16=f16.f16/narrow/wmma", STMT, MUT_LAYOUT, 'a', false, 0, 0, 0, 64, SH,
     "a=swizzled"},
    {D(LAYOUT), "f32=f32.f32/tf32/wmma", FRAG, MUT_LAYOUT, 'b', false, 0, 0, 0, 32, SH,
     "b=swizzled"},
    {D(LAYOUT), "f16=f16.f16/wide@70", FRAG, MUT_LAYOUT, 'b', true, 0, 0, 0, 64, SH,
     "b=t.swizzled"},
    {D(LAYOUT), "f32=f32.f32/tf32", STMT, MUT_LAYOUT, 'a', true, 0, 0, 0, 64, GL,
     "a=t.global.swizzled"},
    {D(LAYOUT), "f32=bf16.bf16/ptx", STMT, MUT_LAYOUT, 'a', false, 0, 0, 0, 64, GL,
     "a=global.swizzled"},
    /* overflow: offsets that would not fit */
    {D(OVERFLOW), "f32=f16.f16/ptx", STMT, MUT_EXTENTS, 0, false, 1L << 30, 8, 16, 0, GL,
     "m=2^30"},
    {D(OVERFLOW), "f32=e4m3.e4m3", STMT, MUT_EXTENTS, 0, false, 16, 8, 1L << 30, 0, GL,
     "k=2^30"},
    {D(OVERFLOW), "f32=f16.f16/wmma", STMT, MUT_LD, 'a', false, 0, 0, 0, 1L << 33, GL,
     "a.ld=2^33"},
    /* subtile: origins off their layout's period: a swizzled tile's rows
     * (8) and 16-byte units, 32-bit register loads (4 bytes), wmma's
     * 32-byte-aligned pointer */
    {D(SUBTILE), "f32=bf16.bf16/ptx", STMT, MUT_ORIGIN, 'a', false, 0, 0, 0, 64, SH,
     "a=swizzled.at=4:0", TCMMA_SWIZZLE_B128, 4, 0},
    {D(SUBTILE), "f32=f16.f16/ptx", FRAG, MUT_ORIGIN, 'b', true, 0, 0, 0, 32, SH,
     "b=t.swizzle=64.at=0:4", TCMMA_SWIZZLE_B64, 0, 4},
    {D(SUBTILE), "f32=e4m3.e4m3", STMT, MUT_ORIGIN, 'a', false, 0, 0, 0, 64, GL, "a.at=0:2",
     TCMMA_SWIZZLE_NONE, 0, 2},
    {D(SUBTILE), "s32=s8.s8", FRAG, MUT_ORIGIN, 'b', true, 0, 0, 0, 64, GL, "b=t.at=0:3",
     TCMMA_SWIZZLE_NONE, 0, 3},
    {D(SUBTILE), "f32=f16.f16/wmma", STMT, MUT_ORIGIN, 'a', false, 0, 0, 0, 24, GL,
     "a.ld=24.at=1:0", TCMMA_SWIZZLE_NONE, 1, 0},
    /* registers: accumulators beyond the default budget (192 per lane) */
    {D(REGISTERS), "f32=bf16.bf16/ptx", FRAG, MUT_EXTENTS, 0, false, 128, 64, 16, 0, GL,
     "128x64"},
    {D(REGISTERS), "f32=f16.f16/wmma", STMT, MUT_EXTENTS, 0, false, 64, 128, 16, 0, GL,
     "64x128"},
    /* unroll: more than 1024 tile products in one statement or update */
    {D(UNROLL), "f32=bf16.bf16/ptx", STMT, MUT_EXTENTS, 0, false, 16, 8, 16 * 1025, 0, GL,
     "k=16*1025"},
    {D(UNROLL), "f32=f32.f32/tf32", FRAG, MUT_EXTENTS, 0, false, 16, 16, 8 * 1025, 0, GL,
     "k=8*1025"},
};

/* ---- building ---- */

static pthread_once_t once = PTHREAD_ONCE_INIT;

static void add_accepted_d(const matrix_row *r, int s, int o, int st, int e, int ds) {
  tcmma_arm arm = r->arm[matrix_scopes[s].scope];
  const tcmma_arm_info *info = tcmma_arm_get(arm);
  if (!info) return;
  verify_case c;
  memset(&c, 0, sizeof c);
  c.call = matrix_base_call(r, matrix_scopes[s].scope);
  c.outer = matrix_scopes[s].outer;
  c.expect = TCMMA_DECLINE_NONE;
  c.expect_arm = arm;
  c.call.m = matrix_extents[e].mt * info->m;
  c.call.n = matrix_extents[e].nt * info->n;
  c.call.k = matrix_extents[e].kt * info->k;
  /* a: m x k (transposed: k x m); b: k x n (transposed: n x k) */
  matrix_set_operand(&c.call.a, matrix_orients[o].a_t, storages[st].a, matrix_orients[o].a_t ? c.call.m : c.call.k);
  matrix_set_operand(&c.call.b, matrix_orients[o].b_t, storages[st].b, matrix_orients[o].b_t ? c.call.k : c.call.n);
  char a[48], b[48], d[56] = "";
  matrix_describe(a, sizeof a, &c.call.a);
  matrix_describe(b, sizeof b, &c.call.b);
  if (ds >= 0) {
    /* d: m x n (transposed: n x m), global */
    c.call.d.transposed = d_storages[ds].transposed;
    c.call.d.ld = d_storages[ds].pad ? (c.call.d.transposed ? c.call.m : c.call.n) +
                                           d_storages[ds].pad
                                     : 0;
    snprintf(d, sizeof d, "/d=");
    matrix_describe(d + 3, sizeof d - 3, &c.call.d);
  }
  snprintf(c.name, sizeof c.name, "%s/%s/%s/%dx%dx%d/a=%s/b=%s%s", info->marker, r->label,
           matrix_scopes[s].label, c.call.m, c.call.n, c.call.k, a, b, d);
  matrix_add(&c);
}

static void add_accepted(const matrix_row *r, int s, int o, int st, int e) {
  add_accepted_d(r, s, o, st, e, -1);
}

/* The one-tile base geometry of a decline: a tile of the row's arm (of the
 * statement-scope arm, else the fragment-scope one), or 16x16x32, which is
 * a multiple of every arm's tile, when the row has no arm. */
static void base_extents(const matrix_row *r, tcmma_call *c) {
  const tcmma_arm_info *info = tcmma_arm_get(r->arm[c->scope]);
  if (!info) info = tcmma_arm_get(r->arm[TCMMA_SCOPE_FRAGMENT]);
  c->m = info ? info->m : 16;
  c->n = info ? info->n : 16;
  c->k = info ? info->k : 32;
}

static void add_resolution_decline(const matrix_row *r, int s) {
  verify_case c;
  memset(&c, 0, sizeof c);
  c.call = matrix_base_call(r, matrix_scopes[s].scope);
  c.outer = matrix_scopes[s].outer;
  c.expect = r->why[matrix_scopes[s].scope];
  c.expect_arm = TCMMA_ARM_NONE;
  base_extents(r, &c.call);
  snprintf(c.name, sizeof c.name, "decline-%s/%s/%s/%dx%dx%d", tcmma_decline_name(c.expect),
           r->label, matrix_scopes[s].label, c.call.m, c.call.n, c.call.k);
  matrix_add(&c);
}

static void add_mutation(const decline_row *dr) {
  const matrix_row *r = matrix_find_row(dr->row);
  if (!r) return;
  verify_case c;
  memset(&c, 0, sizeof c);
  c.call = matrix_base_call(r, dr->scope);
  c.outer = 1;
  c.expect = dr->expect;
  c.expect_arm = r->arm[dr->scope];
  base_extents(r, &c.call);
  tcmma_operand_desc *o = dr->operand == 'a'   ? &c.call.a
                          : dr->operand == 'b' ? &c.call.b
                          : dr->operand == 'd' ? &c.call.d
                                               : NULL;
  switch (dr->kind) {
  case MUT_EXTENTS:
    c.call.m = (int)dr->m, c.call.n = (int)dr->n, c.call.k = (int)dr->k;
    break;
  case MUT_LD:
    if (o) o->ld = dr->ld, o->transposed = dr->transposed, o->space = dr->space;
    break;
  case MUT_SPACE:
    if (o) o->space = dr->space, o->transposed = dr->transposed;
    break;
  case MUT_LAYOUT:
    if (o)
      o->swizzle = TCMMA_SWIZZLE_B128, o->space = dr->space, o->ld = dr->ld,
      o->transposed = dr->transposed;
    break;
  case MUT_ORIGIN:
    if (o)
      o->swizzle = dr->swizzle, o->space = dr->space, o->ld = dr->ld,
      o->transposed = dr->transposed, o->row0.value = dr->row0, o->col0.value = dr->col0;
    break;
  }
  snprintf(c.name, sizeof c.name, "decline-%s/%s/%s/%s", tcmma_decline_name(c.expect), r->label,
           tcmma_scope_name(dr->scope), dr->what);
  matrix_add(&c);
}

static void build(void) {
  const matrix_row *r;
  for (int i = 0; (r = matrix_row_at(i)) != NULL; i++) {
    for (int s = 0; s < COUNT(matrix_scopes); s++) {
      tcmma_scope sc = matrix_scopes[s].scope;
      if (r->why[sc] != TCMMA_DECLINE_NONE) {
        /* one case per declining scope; outer 3 adds nothing to a decline */
        if (matrix_scopes[s].outer == 1) add_resolution_decline(r, s);
        continue;
      }
      const tcmma_arm_info *info = tcmma_arm_get(r->arm[sc]);
      bool is_wmma = info && info->form == TCMMA_FORM_WMMA;
      for (int st = 0; st < COUNT(storages); st++) {
        if (storages[st].inline_only && is_wmma) continue;
        if (r->tier == 1) {
          for (int o = 0; o < COUNT(matrix_orients); o++)
            add_accepted(r, s, o, st, (o + st + s) % COUNT(matrix_extents));
        } else if (r->tier >= 2) {
          add_accepted(r, s, (s + st + i) % COUNT(matrix_orients), st, (s + 2 * st + i) % COUNT(matrix_extents));
        }
      }
      if (r->tier >= 1 && info && info->form == TCMMA_FORM_PTX)
        for (int ds = 0; ds < COUNT(d_storages); ds++)
          add_accepted_d(r, s, (i + s + ds) % COUNT(matrix_orients), (i + 2 * s + ds) % COUNT(storages),
                         (i + s + 2 * ds + 1) % COUNT(matrix_extents), ds);
    }
  }
  for (int i = 0; i < COUNT(declines); i++) add_mutation(&declines[i]);
  matrix_add_layout_cases();
}

static void build_once(void) { build(); }

size_t verify_matrix(const verify_case **out) {
  pthread_once(&once, build_once);
  return matrix_cases_built(out);
}

/* ---- expectations derived from the case ---- */

/* Whether the eight 16-byte rows of an ldmatrix matrix land in eight
 * distinct bank groups (address bits 4-6), for every 16-byte column unit:
 * the swizzle of docs/design.md §5 restated here, byte c of row r at
 * r*ld_bytes + (c ^ ((r >> (3 - B)) & (2^B - 1)) * 16). */
static bool rows_conflict_free(tcmma_swizzle sw, long ld_bytes) {
  static const int bits_of[] = {0, 1, 2, 3}; /* none, 32, 64, 128 */
  int b = bits_of[sw];
  if (ld_bytes % 16 || (b && ld_bytes % (16L << b))) return false;
  for (long unit = 0; unit < 8; unit++) {
    bool seen[8] = {false};
    for (long r = 0; r < 8; r++) {
      long mask = b ? ((r >> (3 - b)) & ((1 << b) - 1)) * 16 : 0;
      long group = ((r * ld_bytes + ((unit * 16) ^ mask)) / 16) % 8;
      if (seen[group]) return false;
      seen[group] = true;
    }
  }
  return true;
}

void verify_case_expect_ldmatrix(const verify_case *c, bool *a, bool *b) {
  const tcmma_arm_info *info = tcmma_arm_get(c->expect_arm);
  bool inline_arm = c->expect == TCMMA_DECLINE_NONE && info && info->form == TCMMA_FORM_PTX;
  const tcmma_operand_desc *o[2] = {&c->call.a, &c->call.b};
  bool out[2];
  for (int i = 0; i < 2; i++) {
    long eb = tcmma_prec_bytes(o[i]->prec), ld = o[i]->ld;
    if (!ld) tcmma_operand_stored_shape(&c->call, i ? TCMMA_OPERAND_B : TCMMA_OPERAND_A, NULL,
                                        NULL, &ld);
    long cm = o[i]->col0.multiple > 0 ? o[i]->col0.multiple : 1;
    /* every lane's row a whole 16-byte unit: the column origin too */
    bool unit_origin = (o[i]->col0.value * eb) % 16 == 0 && (!o[i]->col0.expr || (cm * eb) % 16 == 0);
    /* A's k runs along a stored row when not transposed; B's when transposed */
    bool k_contiguous = i == 0 ? !o[i]->transposed : o[i]->transposed;
    /* ldmatrix delivers 32-bit registers of stored bytes: 64-bit elements
     * never, nor registers packing more elements than their bytes fill
     * (m16n8k64's 4-bit fp4, stored a byte each) */
    int per = tcmma_fragment_elems_per_reg(c->expect_arm, i ? TCMMA_OPERAND_B : TCMMA_OPERAND_A);
    out[i] = inline_arm && per * tcmma_prec_bits(o[i]->prec) <= 32 &&
             o[i]->space == TCMMA_SPACE_SHARED && unit_origin &&
             rows_conflict_free(o[i]->swizzle, ld * eb) && tcmma_prec_bits(o[i]->prec) <= 32 &&
             (tcmma_prec_bits(o[i]->prec) == 16 || k_contiguous);
  }
  if (a) *a = out[0];
  if (b) *b = out[1];
}

bool verify_case_in_subset(const verify_case *c) {
  if (c->expect != TCMMA_DECLINE_NONE) return true;
  const verify_case *all;
  size_t n = verify_matrix(&all);
  bool a, b;
  verify_case_expect_ldmatrix(c, &a, &b);
  for (size_t i = 0; i < n && &all[i] != c; i++) {
    const verify_case *o = &all[i];
    bool oa, ob;
    verify_case_expect_ldmatrix(o, &oa, &ob);
    if (o->expect == TCMMA_DECLINE_NONE && o->expect_arm == c->expect_arm &&
        o->call.scope == c->call.scope && o->outer == c->outer && oa == a && ob == b &&
        o->call.a.transposed == c->call.a.transposed &&
        o->call.b.transposed == c->call.b.transposed)
      return false; /* an earlier case covers the stratum */
  }
  return true;
}
