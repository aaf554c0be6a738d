/* libFuzzer target: plans changed by their caller after planning. The
 * bytes pick one of a few planned calls (inline and wmma arms, ldmatrix,
 * block scales, a converted destination, a declined call) and a GEMM plan,
 * then change them: typed fields set to decoded values (precisions, arms,
 * tiles, extents, ld, stored shapes, enums), bools set to any byte, another
 * real arm or another plan's fields swapped in, raw bytes flipped, or the
 * whole plan overwritten and marked accepted. Every plan reader then runs
 * on the result: the renderers and pieces in both dialects, the kernel and
 * its prologue, the census, the shared bytes and the kernel layout, and
 * tcmma_render_gemm. A changed plan must be refused and one the changes
 * leave valid must render: never a crash, a leak or undefined behaviour.
 * An unchanged accepted plan must pass (its census is OK), else it traps.
 * The pointers in a plan's call (borrowed expressions) are never changed:
 * no check can tell a live pointer from a stale one. */
#include <limits.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>
#include "tcmma/tcmma.h"

#define RCTX(plan, dialect, names, out) \
  (&(tcmma_render_ctx)TCMMA_RENDER_CTX_INIT((plan), (dialect), (names), (out)))

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

typedef struct {
  const uint8_t *p;
  size_t n;
} bytes;

static unsigned byte(bytes *b) {
  if (!b->n) return 0;
  b->n--;
  return *b->p++;
}

static unsigned pick(bytes *b, unsigned n) { return byte(b) % n; }

/* A value for an integer field: small, an edge, or any 64 bits. */
static long long value(bytes *b) {
  static const long long edges[] = {0,       1,        -1,      2,         3,
                                    16,      64,       INT_MAX, INT_MIN,   LONG_MAX,
                                    LONG_MIN, 1LL << 31, 255,   TCMMA_ARM_COUNT, TCMMA_PREC_COUNT};
  unsigned k = byte(b);
  if (k < 96) return (long long)(k % 48) - 8;
  if (k < 224) return edges[k % (sizeof edges / sizeof edges[0])];
  unsigned long long v = 0;
  for (int i = 0; i < 8; i++) v = v << 8 | byte(b);
  return (long long)v;
}

/* Writes v into a field of size bytes (truncated as a cast would). */
static void put(void *at, size_t size, long long v) {
  if (size == 1) { unsigned char x = (unsigned char)v; memcpy(at, &x, 1); }
  else if (size == 2) { short x = (short)v; memcpy(at, &x, 2); }
  else if (size == 4) { int x = (int)v; memcpy(at, &x, 4); }
  else memcpy(at, &v, size < sizeof v ? size : sizeof v);
}

typedef struct {
  size_t offset, size;
} field;
#define FIELD(type, member) {offsetof(type, member), sizeof(((type *)0)->member)}
#define OPERAND(type, op)                                                              \
  FIELD(type, call.op.prec), FIELD(type, call.op.transposed), FIELD(type, call.op.ld), \
      FIELD(type, call.op.space), FIELD(type, call.op.swizzle),                        \
      FIELD(type, call.op.row0.value), FIELD(type, call.op.row0.multiple),             \
      FIELD(type, call.op.col0.value), FIELD(type, call.op.col0.multiple),             \
      FIELD(type, call.op.scale_ld)

/* Every non-pointer field of a tile plan a reader might trust. */
static const field plan_fields[] = {
    FIELD(tcmma_plan, accepted),       FIELD(tcmma_plan, reason),
    FIELD(tcmma_plan, arm),            FIELD(tcmma_plan, mt),
    FIELD(tcmma_plan, nt),             FIELD(tcmma_plan, kt),
    FIELD(tcmma_plan, a_ldmatrix),     FIELD(tcmma_plan, b_ldmatrix),
    FIELD(tcmma_plan, stored[0].rows), FIELD(tcmma_plan, stored[0].cols),
    FIELD(tcmma_plan, stored[0].ld),   FIELD(tcmma_plan, stored[1].rows),
    FIELD(tcmma_plan, stored[1].cols), FIELD(tcmma_plan, stored[1].ld),
    FIELD(tcmma_plan, stored[2].rows), FIELD(tcmma_plan, stored[2].cols),
    FIELD(tcmma_plan, stored[2].ld),   FIELD(tcmma_plan, call.size),
    FIELD(tcmma_plan, call.m),         FIELD(tcmma_plan, call.n),
    FIELD(tcmma_plan, call.k),         OPERAND(tcmma_plan, d),
    OPERAND(tcmma_plan, a),            OPERAND(tcmma_plan, b),
    FIELD(tcmma_plan, call.scope),     FIELD(tcmma_plan, call.cc),
    FIELD(tcmma_plan, call.numerics.fp16), FIELD(tcmma_plan, call.numerics.tf32),
    FIELD(tcmma_plan, call.numerics.prefer), FIELD(tcmma_plan, call.numerics.saturate),
    FIELD(tcmma_plan, call.warps),     FIELD(tcmma_plan, call.init),
    FIELD(tcmma_plan, call.registers)};

/* The pointers of a tile plan's call: raw byte changes leave them alone. */
static const field plan_pointers[] = {
    FIELD(tcmma_plan, call.d.row0.expr), FIELD(tcmma_plan, call.d.col0.expr),
    FIELD(tcmma_plan, call.d.scale),     FIELD(tcmma_plan, call.a.row0.expr),
    FIELD(tcmma_plan, call.a.col0.expr), FIELD(tcmma_plan, call.a.scale),
    FIELD(tcmma_plan, call.b.row0.expr), FIELD(tcmma_plan, call.b.col0.expr),
    FIELD(tcmma_plan, call.b.scale),     FIELD(tcmma_plan, call.lane),
    FIELD(tcmma_plan, call.warp),        FIELD(tcmma_plan, call.arm),
    FIELD(tcmma_plan, call.alpha),       FIELD(tcmma_plan, call.beta)};

static const field gemm_fields[] = {
    FIELD(tcmma_gemm_plan, accepted),     FIELD(tcmma_gemm_plan, reason),
    FIELD(tcmma_gemm_plan, arm),          FIELD(tcmma_gemm_plan, warp_m),
    FIELD(tcmma_gemm_plan, warp_n),       FIELD(tcmma_gemm_plan, census.mt),
    FIELD(tcmma_gemm_plan, census.nt),    FIELD(tcmma_gemm_plan, census.kt),
    FIELD(tcmma_gemm_plan, census.a_ldmatrix), FIELD(tcmma_gemm_plan, census.registers),
    FIELD(tcmma_gemm_plan, a_rows),       FIELD(tcmma_gemm_plan, a_cols),
    FIELD(tcmma_gemm_plan, b_rows),       FIELD(tcmma_gemm_plan, b_cols),
    FIELD(tcmma_gemm_plan, a_swizzle),    FIELD(tcmma_gemm_plan, b_swizzle),
    FIELD(tcmma_gemm_plan, epilogue_ld),  FIELD(tcmma_gemm_plan, predicated),
    FIELD(tcmma_gemm_plan, threads),      FIELD(tcmma_gemm_plan, grid[0]),
    FIELD(tcmma_gemm_plan, grid[1]),      FIELD(tcmma_gemm_plan, k_tiles),
    FIELD(tcmma_gemm_plan, stage_bytes),  FIELD(tcmma_gemm_plan, shared_bytes),
    FIELD(tcmma_gemm_plan, registers),    FIELD(tcmma_gemm_plan, cp_async_per_k_tile),
    FIELD(tcmma_gemm_plan, call.size),    FIELD(tcmma_gemm_plan, call.m),
    FIELD(tcmma_gemm_plan, call.n),       FIELD(tcmma_gemm_plan, call.k),
    OPERAND(tcmma_gemm_plan, d),          OPERAND(tcmma_gemm_plan, a),
    OPERAND(tcmma_gemm_plan, b),          FIELD(tcmma_gemm_plan, call.cc),
    FIELD(tcmma_gemm_plan, call.block_m), FIELD(tcmma_gemm_plan, call.block_n),
    FIELD(tcmma_gemm_plan, call.block_k), FIELD(tcmma_gemm_plan, call.warps_m),
    FIELD(tcmma_gemm_plan, call.warps_n), FIELD(tcmma_gemm_plan, call.stages),
    FIELD(tcmma_gemm_plan, call.unpredicated), FIELD(tcmma_gemm_plan, call.registers)};

static const field gemm_pointers[] = {
    FIELD(tcmma_gemm_plan, call.d.row0.expr), FIELD(tcmma_gemm_plan, call.d.col0.expr),
    FIELD(tcmma_gemm_plan, call.d.scale),     FIELD(tcmma_gemm_plan, call.a.row0.expr),
    FIELD(tcmma_gemm_plan, call.a.col0.expr), FIELD(tcmma_gemm_plan, call.a.scale),
    FIELD(tcmma_gemm_plan, call.b.row0.expr), FIELD(tcmma_gemm_plan, call.b.col0.expr),
    FIELD(tcmma_gemm_plan, call.b.scale),     FIELD(tcmma_gemm_plan, call.arm),
    FIELD(tcmma_gemm_plan, call.name)};

#define COUNT(a) (sizeof(a) / sizeof(a)[0])

static bool in_pointer(const field *ptrs, size_t n, size_t at) {
  for (size_t i = 0; i < n; i++)
    if (at >= ptrs[i].offset && at < ptrs[i].offset + ptrs[i].size) return true;
  return false;
}

/* Saves the pointers of a struct and puts them back (after an overwrite). */
static void keep_pointers(void *s, const void *orig, const field *ptrs, size_t n) {
  for (size_t i = 0; i < n; i++)
    memcpy((char *)s + ptrs[i].offset, (const char *)orig + ptrs[i].offset, ptrs[i].size);
}

/* One change to plan s (bytes_n bytes; its typed fields and its pointers
 * given, its arm at arm_offset); other: another plan of the same type. */
static void change(bytes *b, void *s, size_t bytes_n, const void *other, const field *fields,
                   size_t nf, const field *ptrs, size_t np, size_t arm_offset) {
  unsigned char *u = s;
  unsigned what = pick(b, 8);
  if (what <= 2) { /* a typed field */
    const field *f = &fields[pick(b, (unsigned)nf)];
    put(u + f->offset, f->size, value(b));
  } else if (what == 3) { /* another real arm */
    put(u + arm_offset, sizeof(tcmma_arm), (long long)pick(b, TCMMA_ARM_COUNT));
  } else if (what == 4) { /* a field of the other plan */
    const field *f = &fields[pick(b, (unsigned)nf)];
    memcpy(u + f->offset, (const unsigned char *)other + f->offset, f->size);
  } else if (what == 5) { /* flipped bytes outside the pointers */
    size_t at = ((size_t)byte(b) << 8 | byte(b)) % bytes_n;
    if (!in_pointer(ptrs, np, at)) u[at] ^= (unsigned char)(byte(b) | 1);
  } else if (what == 6) { /* the other plan whole (a declined one's fields too) */
    memcpy(u, other, bytes_n);
  } else { /* garbage marked accepted */
    unsigned char orig[sizeof(tcmma_gemm_plan) > sizeof(tcmma_plan) ? sizeof(tcmma_gemm_plan)
                                                                     : sizeof(tcmma_plan)];
    memcpy(orig, u, bytes_n);
    for (size_t i = 0; i < bytes_n; i++) u[i] = (unsigned char)byte(b);
    keep_pointers(u, orig, ptrs, np);
    u[0] = 1; /* accepted is each plan's first field */
  }
}

/* Every tile plan reader, in both dialects. */
static void read_all(const tcmma_plan *p, bytes *b) {
  static const char *const ksteps[] = {"0", "1", "ks", "-1", "7", "0x1", " 2 "};
  tcmma_error err;
  for (int dl = 0; dl < 2; dl++) {
    tcmma_buf out = {0};
    tcmma_dialect d = (tcmma_dialect)dl;
    tcmma_names n = {NULL, 0};
    tcmma_render_statement(RCTX(p, d, &n, &out), "d", "a", "b", &err);
    tcmma_render_fragment_open(RCTX(p, d, &n, &out), "fr", "d", &err);
    tcmma_render_fragment_update(RCTX(p, d, &n, &out), "fr", "a", "b", &err);
    tcmma_render_fragment_close(RCTX(p, d, &n, &out), "fr", "d", &err);
    for (int op = 0; op < 3; op++)
      tcmma_render_frag_decl(RCTX(p, d, NULL, &out), (tcmma_operand)op, "f", op < 2, &err);
    const char *ks = ksteps[pick(b, COUNT(ksteps))];
    tcmma_render_frag_load(RCTX(p, d, &n, &out), TCMMA_OPERAND_A, "af[0]", "a", ks, &err);
    tcmma_render_frag_load(RCTX(p, d, &n, &out), TCMMA_OPERAND_B, "bf[0]", "b", ks, &err);
    tcmma_render_frag_mma(RCTX(p, d, &n, &out), "acc", "af[0]", "bf[0]", &err);
    tcmma_render_acc_init(RCTX(p, d, &n, &out), "acc", "d", &err);
    tcmma_render_acc_store(RCTX(p, d, &n, &out), "acc", "d", &err);
    tcmma_render_includes(RCTX(p, d, NULL, &out), byte(b) & 1, &err);
    unsigned k = byte(b);
    tcmma_kernel_opts opts = TCMMA_KERNEL_OPTS_INIT((int)(k % 3), k & 4, k & 8);
    tcmma_render_kernel(RCTX(p, d, NULL, &out), &opts, &err);
    tcmma_kernel_prologue(RCTX(NULL, d, NULL, &out), p, 1, &err);
    tcmma_buf_free(&out);
  }
  tcmma_census c;
  tcmma_plan_census(p, &c, &err);
  tcmma_kernel_shared_bytes(p, 1);
  for (int op = 0; op < 3; op++) {
    tcmma_kernel_operand_elems(p, 2, (tcmma_operand)op);
    tcmma_kernel_operand_index(p, (tcmma_operand)op, 1, (long)value(b), (long)value(b));
    tcmma_kernel_scale_elems(p, 2, (tcmma_operand)op);
    tcmma_kernel_scale_index(p, (tcmma_operand)op, 1, (long)value(b), (long)value(b));
  }
}

/* The planned calls the changes start from. */
static tcmma_call base_call(int i) {
  tcmma_call c = tcmma_call_default();
  c.m = 32, c.n = 16, c.k = 32;
  c.scope = TCMMA_SCOPE_FRAGMENT;
  switch (i) {
  case 0: /* mma-f16, ldmatrix */
    c.a.space = c.b.space = TCMMA_SPACE_SHARED;
    break;
  case 1: /* bf16, b transposed, gathered */
    c.a.prec = c.b.prec = TCMMA_PREC_BF16, c.b.transposed = true;
    c.scope = TCMMA_SCOPE_STATEMENT;
    break;
  case 2: /* wmma with a converted destination (the stage tile), two warps */
    c.d.prec = TCMMA_PREC_F16, c.arm = "wmma-f16-wide", c.m = c.n = c.k = 16, c.warps = 2;
    break;
  case 3: /* block-scaled */
    c.a.prec = c.b.prec = TCMMA_PREC_MXE4M3, c.k = 64;
    c.a.scale = "sa", c.b.scale = "sb";
    break;
  case 4: /* f64 with a sub-tile origin and init scale */
    c.d.prec = c.a.prec = c.b.prec = TCMMA_PREC_F64, c.m = 16, c.n = 16, c.k = 8;
    c.a.ld = 40, c.a.row0 = (tcmma_coord){8, "w * 8", 8}, c.init = TCMMA_INIT_SCALE;
    c.alpha = "2.0f", c.beta = "0.5f";
    break;
  default: /* declined: m is not a multiple of the tile */
    c.m = 24;
    break;
  }
  return c;
}

#define N_BASES 6

static void tile_plans(bytes *b) {
  static tcmma_plan bases[N_BASES];
  static bool planned;
  if (!planned) {
    for (int i = 0; i < N_BASES; i++) {
      tcmma_call c = base_call(i);
      tcmma_status st = tcmma_plan_call(&c, &bases[i], NULL);
      if ((st == TCMMA_OK) != (i < N_BASES - 1)) __builtin_trap(); /* the bases plan as named */
    }
    planned = true;
  }
  unsigned i = pick(b, N_BASES), j = pick(b, N_BASES);
  tcmma_plan p = bases[i];
  unsigned changes = pick(b, 4);
  for (unsigned c = 0; c < changes; c++)
    change(b, &p, sizeof p, &bases[j], plan_fields, COUNT(plan_fields), plan_pointers,
           COUNT(plan_pointers), offsetof(tcmma_plan, arm));
  if (!changes && i < N_BASES - 1) { /* an unchanged accepted plan passes */
    tcmma_census c;
    if (tcmma_plan_census(&p, &c, NULL) != TCMMA_OK) __builtin_trap();
  }
  read_all(&p, b);
}

static void gemm_plans(bytes *b) {
  static tcmma_gemm_plan bases[2];
  static bool planned;
  if (!planned) {
    tcmma_gemm_call c = tcmma_gemm_call_default();
    if (tcmma_gemm_plan_call(&c, &bases[0], NULL) != TCMMA_OK) __builtin_trap();
    /* ragged: predicated (on a 64x64 block tile: the default 128x128 one's
     * predicated estimate is over the register budget) */
    c.m = 100, c.n = 72, c.k = 40, c.b.transposed = true;
    c.block_m = c.block_n = 64, c.block_k = 32;
    if (tcmma_gemm_plan_call(&c, &bases[1], NULL) != TCMMA_OK) __builtin_trap();
    planned = true;
  }
  tcmma_gemm_plan g = bases[pick(b, 2)];
  unsigned changes = pick(b, 4);
  for (unsigned c = 0; c < changes; c++)
    change(b, &g, sizeof g, &bases[pick(b, 2)], gemm_fields, COUNT(gemm_fields), gemm_pointers,
           COUNT(gemm_pointers), offsetof(tcmma_gemm_plan, arm));
  tcmma_buf out = {0};
  tcmma_error err;
  tcmma_render_gemm(RCTX(NULL, (tcmma_dialect)pick(b, 2), NULL, &out), &g, &err);
  tcmma_buf_free(&out);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  bytes b = {data, size};
  if (byte(&b) & 1) gemm_plans(&b);
  else tile_plans(&b);
  return 0;
}
