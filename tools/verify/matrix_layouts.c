/* The matrix's layout and composition cases (docs/design.md §12.1), built
 * like the others from the resolution rows and axes of matrix.c:
 *   every swizzle atom (32, 64, 128) x orientation for each inline arm,
 *     rows of one span and of two (both sides of the ldmatrix bank rule);
 *   sub-tile placements: the warps of a 128x128 bf16 block (2x4 warps of
 *     64x32 over a k-major B), the same split along k, in swizzle 64 and
 *     128 stages, origins given as values and as block/warp expressions
 *     (0 in the one-warp test kernel) with declared multiples; and origins
 *     off their period (declined: subtile); block-scaled sub-tiles whose
 *     k origin is one scale block in, with wider scale rows;
 *   the pieces composed with double-buffered fragments, for every arm;
 *   zero and scaled (alpha 2, beta -1) accumulator starts, for every arm;
 *   wmma rows of an odd number of 16-byte units (ldm 16 bytes, not 32). */
#include <stdio.h>
#include <string.h>
#include "tools/verify/matrix.h"

#define COUNT(x) ((int)(sizeof(x) / sizeof((x)[0])))

static const tcmma_swizzle atoms[3] = {TCMMA_SWIZZLE_B32, TCMMA_SWIZZLE_B64, TCMMA_SWIZZLE_B128};

/* The scaled start's factors: exact in every storage, so the integer pass
 * stays bit for bit (tools/verify/data.c). */
#define ALPHA 2.0
#define BETA -1.0
static const char alpha_text[] = "2.0f", beta_text[] = "-1.0f";

/* A case of row r in scope s (matrix_scopes), extents e, accepted on the
 * row's arm for that scope; NULL arm info when the row has none. */
static const tcmma_arm_info *start(verify_case *c, const matrix_row *r, int s, int e) {
  memset(c, 0, sizeof *c);
  tcmma_scope scope = matrix_scopes[s].scope;
  const tcmma_arm_info *info = tcmma_arm_get(r->arm[scope]);
  if (!info || r->why[scope] != TCMMA_DECLINE_NONE) return NULL;
  c->call = matrix_base_call(r, scope);
  c->outer = matrix_scopes[s].outer;
  c->expect = TCMMA_DECLINE_NONE;
  c->expect_arm = r->arm[scope];
  if (e >= 0) {
    c->call.m = matrix_extents[e].mt * info->m;
    c->call.n = matrix_extents[e].nt * info->n;
    c->call.k = matrix_extents[e].kt * info->k;
  }
  return info;
}

/* Stored row lengths of a and b (the sub-tile's own). */
static long lead_a(const verify_case *c) { return c->call.a.transposed ? c->call.m : c->call.k; }
static long lead_b(const verify_case *c) { return c->call.b.transposed ? c->call.k : c->call.n; }

static void finish(verify_case *c, const matrix_row *r, const char *group, int s) {
  char a[96], b[96], d[96], scope[32];
  matrix_describe(a, sizeof a, &c->call.a);
  matrix_describe(b, sizeof b, &c->call.b);
  matrix_describe(d, sizeof d, &c->call.d);
  snprintf(scope, sizeof scope, "%s%s", c->pieces ? "pieces-r" : matrix_scopes[s].label,
           c->pieces ? (c->outer == 1 ? "1" : "3") : "");
  snprintf(c->name, sizeof c->name, "%s/%s/%s/%s/%dx%dx%d/a=%s/b=%s/d=%s%s",
           tcmma_arm_marker(c->expect_arm), r->label, group, scope, c->call.m, c->call.n,
           c->call.k, a, b, d, c->indexed ? "/indexed-bases" : "");
  matrix_add(c);
}

static bool is_inline(const tcmma_arm_info *info) { return info->form == TCMMA_FORM_PTX; }

/* Every atom x orientation, on each inline row of tier 1 (tier 3: two
 * orientations per atom, one of each padding); odd orientations pad the
 * rows by one more span (swizzle 32 and 64 then collide in the banks:
 * gathered, not ldmatrix). */
static void add_atoms(const matrix_row *r, int i) {
  for (int at = 0; at < COUNT(atoms); at++)
    for (int j = 0; j < (r->tier == 1 ? COUNT(matrix_orients) : 2); j++) {
      int o = r->tier == 1 ? j : ((i + at) & 2) | j;
      verify_case c;
      int s = (i + at + o) % COUNT(matrix_scopes);
      const tcmma_arm_info *info = start(&c, r, s, (at + 2 * o + 1) % COUNT(matrix_extents));
      if (!info || !is_inline(info)) return;
      long span = tcmma_swizzle_get(atoms[at])->bytes;
      c.call.a.transposed = matrix_orients[o].a_t, c.call.b.transposed = matrix_orients[o].b_t;
      long pad_a = o & 1 ? span / tcmma_prec_bytes(c.call.a.prec) : 0;
      long pad_b = o & 1 ? span / tcmma_prec_bytes(c.call.b.prec) : 0;
      matrix_set_swizzled(&c.call.a, atoms[at], lead_a(&c) + pad_a);
      matrix_set_swizzled(&c.call.b, atoms[at], lead_b(&c) + pad_b);
      char group[32];
      snprintf(group, sizeof group, "swizzle=%s", tcmma_swizzle_name(atoms[at]));
      finish(&c, r, group, s);
    }
}

/* One warp's tile of a 128x128 block: a (128 x bk, row-major) and b
 * (128 x bk, n x k: k-major) in a shared stage of swizzle sw, the warp at
 * (64*wm, 32*wn), its k columns from k0 to k0 + k; d the block's 128-wide
 * rows in global memory. With expr, each origin adds a block or warp index
 * expression (0 in the test kernel) of a declared multiple. */
static void add_placement(const matrix_row *r, int s, bool pieces, tcmma_swizzle sw, long bk,
                          int wm, int wn, long k0, long k, bool expr, const char *group) {
  verify_case c;
  if (!start(&c, r, s, -1)) return;
  c.pieces = pieces;
  c.call.m = 64, c.call.n = 32, c.call.k = (int)k;
  matrix_set_swizzled(&c.call.a, sw, bk);
  matrix_set_swizzled(&c.call.b, sw, bk);
  c.call.b.transposed = true;
  c.call.a.row0.value = 64L * wm, c.call.b.row0.value = 32L * wn;
  c.call.a.col0.value = c.call.b.col0.value = k0;
  c.call.d.ld = 128;
  c.call.d.row0.value = 64L * wm, c.call.d.col0.value = 32L * wn;
  c.indexed = !expr; /* block and warp indices in the bases, or in the origins */
  if (expr) {
    c.call.a.row0.expr = "(threadIdx.x / 32) * 64", c.call.a.row0.multiple = 64;
    c.call.b.row0.expr = "(threadIdx.x / 32) * 32", c.call.b.row0.multiple = 32;
    c.call.d.row0.expr = "blockIdx.x * 128", c.call.d.row0.multiple = 128;
    c.call.d.col0.expr = "(threadIdx.x / 64) * 32", c.call.d.col0.multiple = 32;
  }
  finish(&c, r, group, s);
}

static void add_placements(void) {
  const matrix_row *r = matrix_find_row("f32=bf16.bf16/ptx");
  if (!r) return;
  /* the whole block, warp by warp: fragment scope over 3 k tiles, or the
   * pieces; BK = 32 bf16 (64-byte rows: swizzle 64) */
  for (int wm = 0; wm < 2; wm++)
    for (int wn = 0; wn < 4; wn++)
      add_placement(r, 2, wn % 2 == 1, TCMMA_SWIZZLE_B64, 32, wm, wn, 0, 32, (wm + wn) % 2,
                    "block-2x4");
  /* the same split along k: each half of the stage's k (32 bytes in) */
  for (int ks = 0; ks < 2; ks++) {
    add_placement(r, 0, false, TCMMA_SWIZZLE_B64, 32, 1, 3, 16L * ks, 16, ks == 1, "k-split");
    add_placement(r, 1, false, TCMMA_SWIZZLE_B64, 32, 0, 1, 16L * ks, 16, false, "k-split");
    /* BK = 64 (128-byte rows: swizzle 128), k halves 64 bytes in */
    add_placement(r, 2, true, TCMMA_SWIZZLE_B128, 64, 1, 2, 32L * ks, 32, ks == 0, "k-split");
  }
}

/* Origins off their layout's period given as expressions: declined. */
static void add_origin_declines(void) {
  const matrix_row *r = matrix_find_row("f32=bf16.bf16/ptx");
  verify_case c;
  if (!r || !start(&c, r, 0, 0)) return;
  c.expect = TCMMA_DECLINE_SUBTILE;
  matrix_set_swizzled(&c.call.b, TCMMA_SWIZZLE_B64, 32);
  c.call.b.transposed = true;
  verify_case d = c;
  c.call.b.row0 = (tcmma_coord){0, "(threadIdx.x / 32) * 4", 4};
  snprintf(c.name, sizeof c.name, "decline-subtile/%s/statement/b=t.swizzle=64.at=warp*4:0",
           r->label);
  matrix_add(&c);
  d.call.b.col0 = (tcmma_coord){0, "blockIdx.x * 4", 4};
  snprintf(d.name, sizeof d.name, "decline-subtile/%s/statement/b=t.swizzle=64.at=0:block*4",
           r->label);
  matrix_add(&d);
}

/* a and b storages for the pieces: global, shared plain, swizzled (inline). */
static const matrix_storage piece_storage[3][2] = {
    {ST_GLOBAL, ST_GLOBAL}, {ST_SHARED, ST_SHARED}, {ST_SWIZZLED, ST_SHARED}};

/* The pieces, fragments double-buffered, in both fragment scopes. */
static void add_pieces(const matrix_row *r, int i) {
  for (int s = 1; s < COUNT(matrix_scopes); s++) {
    verify_case c;
    const tcmma_arm_info *info = start(&c, r, s, (i + 2 * s) % COUNT(matrix_extents));
    if (!info) return;
    c.pieces = true;
    int st = (i + s) % (is_inline(info) ? 3 : 2), o = (i + s) % COUNT(matrix_orients);
    c.call.a.transposed = matrix_orients[o].a_t, c.call.b.transposed = matrix_orients[o].b_t;
    matrix_set_operand(&c.call.a, c.call.a.transposed, piece_storage[st][0], lead_a(&c));
    matrix_set_operand(&c.call.b, c.call.b.transposed, piece_storage[st][1], lead_b(&c));
    c.indexed = s == 2;
    finish(&c, r, "double-buffered", s);
  }
}

/* Zero start (statement) and scaled start (fragment, and the pieces); an
 * inline arm's scaled fragment stores through an odd ld (element by
 * element). */
static void add_inits(const matrix_row *r, int i) {
  static const struct { tcmma_init init; int scope; bool pieces; } v[3] = {
      {TCMMA_INIT_ZERO, 0, false}, {TCMMA_INIT_SCALE, 2, false}, {TCMMA_INIT_SCALE, 1, true}};
  for (int j = 0; j < 3; j++) {
    verify_case c;
    const tcmma_arm_info *info = start(&c, r, v[j].scope, (i + j) % COUNT(matrix_extents));
    if (!info) return;
    c.pieces = v[j].pieces;
    c.call.init = v[j].init;
    if (v[j].init == TCMMA_INIT_SCALE) {
      c.call.alpha = alpha_text, c.call.beta = beta_text;
      c.alpha = ALPHA, c.beta = BETA;
    }
    int o = (i + j) % COUNT(matrix_orients);
    c.call.a.transposed = matrix_orients[o].a_t, c.call.b.transposed = matrix_orients[o].b_t;
    if (j == 1 && is_inline(info)) c.call.d.ld = c.call.n + 1;
    c.indexed = true;
    finish(&c, r, tcmma_init_name(v[j].init), v[j].scope);
  }
}

/* wmma rows of 16 bytes more than the tile (an odd number of 16-byte units
 * for every tile width): ldm is a multiple of 16 bytes, the tiles stay
 * 32-byte aligned. */
static void add_wmma_ldm(const matrix_row *r, int i) {
  int s = i % 2; /* statement, or fragment where the arm converts d */
  verify_case c;
  const tcmma_arm_info *info = start(&c, r, s, 1);
  if (!info && !(s = 1, info = start(&c, r, s, 1))) return;
  if (is_inline(info)) return;
  int o = i % COUNT(matrix_orients);
  c.call.a.transposed = matrix_orients[o].a_t, c.call.b.transposed = matrix_orients[o].b_t;
  long ea = tcmma_prec_bytes(c.call.a.prec), eb = tcmma_prec_bytes(c.call.b.prec);
  long ed = tcmma_prec_bytes(c.call.d.prec);
  c.call.a.space = c.call.b.space = TCMMA_SPACE_SHARED;
  c.call.a.ld = lead_a(&c) + 16 / ea;
  c.call.b.ld = lead_b(&c) + 16 / eb;
  c.call.d.ld = c.call.n + 16 / ed;
  finish(&c, r, "ldm16", s);
}

/* Block scales of sub-tiles: a and b start 32 k in (one scale block), the
 * k origin once as a value and once with a warp expression of multiple 32
 * (0 in the test kernel), a's scales in rows longer than dense (scale_ld
 * 5); a in plain shared rows (gathered), b in a swizzle-128 stage
 * (ldmatrix from 32 bytes in). */
static void add_scaled_placements(void) {
  const matrix_row *r = matrix_find_row("f32=mxe4m3.mxe4m3@120");
  for (int j = 0; r && j < 2; j++) {
    verify_case c;
    if (!start(&c, r, j ? 2 : 0, -1)) return;
    c.call.m = 32, c.call.n = 16, c.call.k = 64;
    c.call.a.space = TCMMA_SPACE_SHARED;
    c.call.a.ld = 128, c.call.a.col0.value = 32, c.call.a.scale_ld = 5;
    c.call.b.transposed = true;
    matrix_set_swizzled(&c.call.b, TCMMA_SWIZZLE_B128, 96);
    c.call.b.col0.value = 32;
    if (j) c.call.a.col0.expr = "(threadIdx.x / 32) * 32", c.call.a.col0.multiple = 32;
    c.indexed = j == 0;
    finish(&c, r, "k-split", j ? 2 : 0);
  }
}

void matrix_add_layout_cases(void) {
  for (int i = 0; matrix_row_at(i); i++) {
    const matrix_row *r = matrix_row_at(i);
    if (r->tier != 1 && r->tier != 3) continue;
    add_atoms(r, i);
    add_pieces(r, i);
    add_inits(r, i);
    add_wmma_ldm(r, i);
  }
  add_placements();
  add_scaled_placements();
  add_origin_declines();
}
