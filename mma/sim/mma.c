/* mma.sync reference model (docs/design.md §7, §11). It gathers the warp's A,
 * B and C from the lanes' registers by the PTX ISA's fragment layouts
 * ("Matrix Fragments for mma.m16n8k8 / m16n8k16 / m16n8k32 / m8n8k4", written
 * here element by element, apart from the renderer's mma/layout.c), computes
 * D = A*B + C and scatters D back:
 *   f16, bf16, tf32, fp8 inputs: exact products summed in double, one
 *     rounding to the accumulator (f32, or f16 to nearest even);
 *   fp8/fp6/fp4 (kind::f8f6f4, m16n8k32): the same, every element in an
 *     8-bit container at the k32 8-bit layout: e2m1 in bits 5..2, e2m3 and
 *     e3m2 in bits 5..0 (the PTX ISA's kind::f8f6f4 fragments; CUTLASS's
 *     sm120 traits shift e2m1 left by two), any other bit set fails;
 *   block-scaled (kind::mxf8f6f4, the same element types): each product
 *     scaled by 2^(SF_A - 127) * 2^(SF_B - 127), the ue8m0 scales chosen by
 *     the selectors of "Block Scaling for mma.sync";
 *   s8/u8: exact in 64 bits, then wrapped to s32, or clamped with .satfinite;
 *   f64: fused multiply-adds in k order from C.
 * Integer-valued inputs in range are bit-exact on any summation order, which
 * is what the matrix checks compare. */
#include <math.h>
#include <stdio.h>
#include <string.h>
#include "mma/sim/internal.h"

typedef enum {
  EL_F16, EL_BF16, EL_TF32, EL_E4M3, EL_E5M2, EL_S8, EL_U8, EL_F32, EL_S32, EL_F64,
  EL_E2M1, EL_E2M3, EL_E3M2
} elem;

static const struct {
  const char *name;
  int bits; /* storage width inside a register */
} elems[] = {[EL_F16] = {"f16", 16}, [EL_BF16] = {"bf16", 16}, [EL_TF32] = {"tf32", 32},
             [EL_E4M3] = {"e4m3", 8}, [EL_E5M2] = {"e5m2", 8},  [EL_S8] = {"s8", 8},
             [EL_U8] = {"u8", 8},     [EL_F32] = {"f32", 32},   [EL_S32] = {"s32", 32},
             [EL_F64] = {"f64", 64},    [EL_E2M1] = {"e2m1", 8},  [EL_E2M3] = {"e2m3", 8},
             [EL_E3M2] = {"e3m2", 8}};
#define NELEMS (int)(sizeof elems / sizeof elems[0])

typedef struct {
  int m, n, k;
  bool satfinite, scaled, f8f6f4; /* f8f6f4: kind::f8f6f4 or kind::mxf8f6f4 */
  int vec;                        /* block-scaled: scales per row (scale_vec::1X, 2X, 4X) */
  bool ue4m3;                     /* the scales' type: ue4m3, else ue8m0 */
  elem d, a, b, c;
} mma_shape;

/* The block-scaled kinds this model knows: kind::mxf8f6f4 at m16n8k32 with
 * one ue8m0 scale per row (column); kind::mxf4nvf4 at m16n8k64, e2m1 only,
 * with 2 (ue8m0) or 4 (ue8m0, ue4m3) per row (PTX ISA, "Block Scaling for
 * mma.sync": the valid .kind, .stype and .scale_vec_size). */
static const struct {
  const char *text;
  int vec;
} scaled_kinds[] = {{"kind::mxf8f6f4.block_scale.scale_vec::1X.", 1},
                    {"kind::mxf4nvf4.block_scale.scale_vec::2X.", 2},
                    {"kind::mxf4nvf4.block_scale.scale_vec::4X.", 4}};
static const char f8f6f4_kind[] = "kind::f8f6f4.";

/* The element type named by the '.'-ended word at *s; advances past it. */
static bool take_elem(const char **s, elem *out) {
  size_t n = strcspn(*s, ".");
  for (int e = 0; e < NELEMS; e++)
    if (strlen(elems[e].name) == n && strncmp(*s, elems[e].name, n) == 0) {
      *out = (elem)e;
      *s += n + ((*s)[n] == '.');
      return true;
    }
  return false;
}

static bool is_fp8(elem e) { return e == EL_E4M3 || e == EL_E5M2; }
/* the element types of kind::f8f6f4 and kind::mxf8f6f4 */
static bool is_f8f6f4(elem e) { return is_fp8(e) || e == EL_E2M1 || e == EL_E2M3 || e == EL_E3M2; }
static bool is_int8(elem e) { return e == EL_S8 || e == EL_U8; }

/* Whether the shape and types form an instruction of the PTX ISA this model
 * knows (the "Syntax" of mma: half, alternate floating point, integer and
 * double precision forms). */
static bool valid(const mma_shape *s) {
  bool f16acc = s->d == s->c && (s->d == EL_F32 || s->d == EL_F16);
  if (s->scaled && s->vec > 1) /* kind::mxf4nvf4: ue4m3 with 4X only */
    return s->m == 16 && s->n == 8 && s->k == 64 && !s->satfinite && s->d == EL_F32 &&
           s->c == EL_F32 && s->a == EL_E2M1 && s->b == EL_E2M1 && (!s->ue4m3 || s->vec == 4);
  if (s->scaled && s->ue4m3) return false;
  if (s->f8f6f4)
    return s->m == 16 && s->n == 8 && s->k == 32 && !s->satfinite && s->d == EL_F32 &&
           s->c == EL_F32 && is_f8f6f4(s->a) && is_f8f6f4(s->b);
  if (s->satfinite && s->d != EL_S32) return false;
  if (s->m == 8 && s->n == 8 && s->k == 4)
    return s->d == EL_F64 && s->a == EL_F64 && s->b == EL_F64 && s->c == EL_F64;
  if (s->m != 16 || s->n != 8) return false;
  switch (s->k) {
  case 8:
    if (s->a == EL_TF32 && s->b == EL_TF32) return s->d == EL_F32 && s->c == EL_F32;
    return s->a == EL_F16 && s->b == EL_F16 && f16acc;
  case 16:
    if (s->a == EL_BF16 && s->b == EL_BF16) return s->d == EL_F32 && s->c == EL_F32;
    return s->a == EL_F16 && s->b == EL_F16 && f16acc;
  case 32:
    if (is_int8(s->a) && is_int8(s->b)) return s->d == EL_S32 && s->c == EL_S32;
    return is_fp8(s->a) && is_fp8(s->b) && f16acc;
  }
  return false;
}

/* mma.sync.aligned[.kind::f8f6f4 | a block-scaled kind of scaled_kinds]
 * .mMnNkK.row.col[.satfinite].D.A.B.C[.ue8m0 | .ue4m3]: parsed, checked,
 * and rebuilt to compare with the text, so nothing else passes. */
static bool parse_opcode(const char *op, bool scaled, mma_shape *s) {
  static const char head[] = "mma.sync.aligned.";
  memset(s, 0, sizeof *s);
  s->scaled = scaled;
  if (!op || strncmp(op, head, sizeof head - 1) != 0) return false;
  const char *p = op + sizeof head - 1, *kind = NULL;
  if (scaled) {
    for (size_t i = 0; i < sizeof scaled_kinds / sizeof scaled_kinds[0]; i++)
      if (strncmp(p, scaled_kinds[i].text, strlen(scaled_kinds[i].text)) == 0)
        kind = scaled_kinds[i].text, s->vec = scaled_kinds[i].vec;
    if (!kind) return false;
    s->f8f6f4 = s->vec == 1; /* kind::mxf4nvf4 packs e2m1 at 4 bits instead */
    size_t len = strlen(op);
    s->ue4m3 = len > 6 && strcmp(op + len - 6, ".ue4m3") == 0;
  } else if (strncmp(p, f8f6f4_kind, strlen(f8f6f4_kind)) == 0) {
    kind = f8f6f4_kind, s->f8f6f4 = true;
  }
  if (kind) p += strlen(kind);
  int used = 0;
  if (sscanf(p, "m%dn%dk%d.row.col.%n", &s->m, &s->n, &s->k, &used) != 3 || !used) return false;
  p += used;
  if (strncmp(p, "satfinite.", 10) == 0) s->satfinite = true, p += 10;
  if (!take_elem(&p, &s->d) || !take_elem(&p, &s->a) || !take_elem(&p, &s->b) ||
      !take_elem(&p, &s->c) || !valid(s))
    return false;
  char canon[192];
  snprintf(canon, sizeof canon, "%s%sm%dn%dk%d.row.col.%s%s.%s.%s.%s%s", head,
           kind ? kind : "", s->m, s->n, s->k, s->satfinite ? "satfinite." : "",
           elems[s->d].name, elems[s->a].name, elems[s->b].name, elems[s->c].name,
           !scaled ? "" : s->ue4m3 ? ".ue4m3" : ".ue8m0");
  return strcmp(canon, op) == 0;
}

/* ---- fragment layouts, from the PTX ISA (g = lane >> 2, q = lane & 3) ---- */

/* Element i of a lane's A fragment: (row m, column k). */
static void a_at(const mma_shape *s, int lane, int i, int *row, int *col) {
  int g = lane >> 2, q = lane & 3;
  if (s->k == 4) { /* m8n8k4 f64: a0 */
    *row = g, *col = q;
  } else if (s->k == 8 && s->a == EL_TF32) { /* a0 (g,q) a1 (g+8,q) a2 (g,q+4) a3 (g+8,q+4) */
    *row = g + 8 * (i & 1), *col = q + 4 * (i >> 1);
  } else if (s->k == 8) { /* f16: a0,a1 row g; a2,a3 row g+8; col 2q + (i&1) */
    *row = g + 8 * (i >> 1), *col = 2 * q + (i & 1);
  } else if (s->k == 16) { /* a0,a1,a4,a5 row g; col 2q + (i&1) + 8 for i >= 4 */
    *row = (i == 0 || i == 1 || i == 4 || i == 5) ? g : g + 8;
    *col = 2 * q + (i & 1) + 8 * (i >= 4);
  } else if (s->k == 64) { /* 4-bit: a0..a7, a16..a23 row g; col 8q + (i&7) + 32 for i >= 16 */
    *row = g + 8 * ((i >> 3) & 1);
    *col = 8 * q + (i & 7) + 32 * (i >= 16);
  } else { /* k32 8-bit: a0..a3, a8..a11 row g; col 4q + (i&3) + 16 for i >= 8 */
    *row = (i < 4 || (i >= 8 && i < 12)) ? g : g + 8;
    *col = 4 * q + (i & 3) + 16 * (i >= 8);
  }
}

/* Element i of a lane's B fragment: (row k, column n = g). */
static int b_k(const mma_shape *s, int lane, int i) {
  int q = lane & 3;
  if (s->k == 4) return q;                                  /* b0 */
  if (s->k == 8 && s->b == EL_TF32) return q + 4 * i;       /* b0 q, b1 q+4 */
  if (s->k == 8) return 2 * q + i;                          /* b0, b1 */
  if (s->k == 16) return 2 * q + (i & 1) + 8 * (i >= 2);    /* b0..b3 */
  if (s->k == 64) return 8 * q + (i & 7) + 32 * (i >= 8);   /* b0..b15, 4-bit */
  return 4 * q + (i & 3) + 16 * (i >= 4);                   /* b0..b7 */
}

/* Element i of a lane's C/D fragment: (row m, column n). */
static void c_at(const mma_shape *s, int lane, int i, int *row, int *col) {
  int g = lane >> 2, q = lane & 3;
  *row = s->m == 8 ? g : g + 8 * (i >= 2);
  *col = 2 * q + (i & 1);
}

/* ---- element values ---- */

/* The bits of an 8-bit container an element of type e may set (kind::f8f6f4
 * fragments): e2m1 in 5..2, e2m3 and e3m2 in 5..0, fp8 all; and where its
 * value starts. */
static uint32_t container_mask(elem e) {
  return e == EL_E2M1 ? 0x3cu : e == EL_E2M3 || e == EL_E3M2 ? 0x3fu : 0xffu;
}
static int container_lsb(elem e) { return e == EL_E2M1 ? 2 : 0; }

/* An element's width in the registers of shape s: m16n8k64 packs e2m1 at 4
 * bits (eight a register, low k first); elsewhere its container's. */
static int reg_bits(const mma_shape *s, elem e) {
  return s->k == 64 && e == EL_E2M1 ? 4 : elems[e].bits;
}

/* Element i of a lane's registers of type e, bits wide: packed low element
 * first in 32-bit registers, or one f64 per 64-bit register. */
static double get(const void *regs, elem e, int i, int bits) {
  if (e == EL_F64) return ((const double *)regs)[i];
  int per = 32 / bits;
  uint32_t word = ((const uint32_t *)regs)[i / per];
  uint32_t v = bits == 32 ? word : (word >> (bits * (i % per))) & ((1u << bits) - 1);
  float f;
  switch (e) {
  case EL_F16: return tcmma__sim_decode(&tcmma__sim_fmt_f16, v);
  case EL_BF16: return tcmma__sim_decode(&tcmma__sim_fmt_bf16, v);
  case EL_E4M3: return tcmma__sim_decode(&tcmma__sim_fmt_e4m3, v);
  case EL_E5M2: return tcmma__sim_decode(&tcmma__sim_fmt_e5m2, v);
  case EL_E2M1: return tcmma__sim_decode(&tcmma__sim_fmt_e2m1, bits == 4 ? v : v >> container_lsb(e));
  case EL_E2M3: return tcmma__sim_decode(&tcmma__sim_fmt_e2m3, v);
  case EL_E3M2: return tcmma__sim_decode(&tcmma__sim_fmt_e3m2, v);
  case EL_S8: return (int8_t)v;
  case EL_U8: return (uint8_t)v;
  case EL_S32: return (int32_t)v;
  case EL_TF32: v &= ~0x1fffu; /* the tensor core reads the top 19 bits */
    /* fall through */
  default: memcpy(&f, &v, sizeof f); return f;
  }
}

static void put(void *regs, elem e, int i, double x, bool satfinite) {
  uint32_t *w = regs;
  float f = (float)x;
  switch (e) {
  case EL_F64: ((double *)regs)[i] = x; return;
  case EL_F32: memcpy(&w[i], &f, sizeof f); return;
  case EL_F16: {
    uint32_t h = tcmma__sim_encode(&tcmma__sim_fmt_f16, x, false), sh = 16 * (unsigned)(i % 2);
    w[i / 2] = (w[i / 2] & ~(0xffffu << sh)) | h << sh;
    return;
  }
  default: /* s32: x holds an exact 64-bit sum */
    if (satfinite) x = fmax(-2147483648.0, fmin(2147483647.0, x));
    w[i] = (uint32_t)(int64_t)x; /* two's complement: wraps mod 2^32 */
    return;
  }
}

/* ---- the warp's operation ---- */

typedef struct {
  void *d;
  const void *a, *b, *c;
  uint32_t scale[2];    /* scale-a-data, scale-b-data */
  unsigned byte_id[2];  /* byte-id-a, byte-id-b */
  unsigned thread_id[2]; /* thread-id-a, thread-id-b */
} mma_args;

/* Every container of the a and b registers of an f8f6f4 shape holds its
 * element in the bits its type defines (the ISA gives no meaning to others:
 * a set one is a packing error, e.g. an e2m1 left in the low nibble). */
static bool containers_clean(const char *opcode, const mma_shape *s,
                             void *const lane_args[SIM_LANES]) {
  if (!s->f8f6f4) return true;
  for (int lane = 0; lane < SIM_LANES; lane++)
    for (int o = 0; o < 2; o++) {
      const mma_args *x = lane_args[lane];
      elem e = o ? s->b : s->a;
      int words = o ? 2 : 4;
      for (int w = 0; w < words; w++) {
        uint32_t word = ((const uint32_t *)(o ? x->b : x->a))[w];
        for (int byte = 0; byte < 4; byte++) {
          uint32_t v = (word >> (8 * byte)) & 0xffu;
          if (v & ~container_mask(e)) {
            tcmma__sim_fail("%s: lane %d's %s register %d byte %d is 0x%02x: a %s container holds "
                            "its value in bits 0x%02x only", opcode, lane, o ? "b" : "a", w,
                            byte, v, elems[e].name, container_mask(e));
            return false;
          }
        }
      }
    }
  return true;
}

/* One scale's factor: ue8m0 2^(e-127) (0xff NaN), or ue4m3 (an unsigned
 * e4m3, 0x7f NaN). */
static double scale_value(const mma_shape *s, uint32_t e) {
  if (s->ue4m3) return tcmma_sim_ue4m3_to_float((uint8_t)e);
  return e == 0xff ? NAN : ldexp(1.0, (int)e - 127);
}

/* The scale factors of the warp's block-scaled operands (PTX ISA, "Block
 * Scaling for mma.sync"): SF_A of row r from lane 4*(r%8) + 2*thread-id-a
 * + r/8 (the selected thread pair of the row's quad: its lower thread holds
 * row g, the upper row g+8), SF_B of column n from lane 4*n + thread-id-b;
 * with scale_vec::VX the V blocks of k (k/V each) from bytes byte-id ..
 * byte-id+V-1 of that lane's scale data. The selectors must be the same in
 * every lane: byte-id 0..3 for 1X; for 2X and 4X this model knows byte-id
 * 0 only (its bytes 0.. hold the blocks, low k first), which is what the
 * renderer gives. */
static bool scales(const mma_shape *s, void *const lane_args[SIM_LANES], double sf_a[16][4],
                   double sf_b[8][4]) {
  const mma_args *l0 = lane_args[0];
  static const unsigned thread_max[2] = {1, 3};
  unsigned byte_max = s->vec == 1 ? 3 : 0;
  for (int o = 0; o < 2; o++) {
    for (int l = 1; l < SIM_LANES; l++) {
      const mma_args *x = lane_args[l];
      if (x->byte_id[o] != l0->byte_id[o] || x->thread_id[o] != l0->thread_id[o]) {
        tcmma__sim_fail("block-scaled mma: lane %d's %s selectors {%u, %u} differ from lane "
                        "0's {%u, %u}", l, o ? "b" : "a", x->byte_id[o], x->thread_id[o],
                        l0->byte_id[o], l0->thread_id[o]);
        return false;
      }
    }
    if (l0->byte_id[o] > byte_max || l0->thread_id[o] > thread_max[o]) {
      tcmma__sim_fail("block-scaled mma: %s selectors {byte-id %u, thread-id %u}: expected "
                      "byte-id 0..%u and thread-id 0..%u (scale_vec::%dX)", o ? "b" : "a",
                      l0->byte_id[o], l0->thread_id[o], byte_max, thread_max[o], s->vec);
      return false;
    }
  }
  for (int j = 0; j < s->vec; j++) {
    for (int r = 0; r < 16; r++) {
      const mma_args *x = lane_args[4 * (r % 8) + 2 * (int)l0->thread_id[0] + r / 8];
      sf_a[r][j] = scale_value(s, (x->scale[0] >> (8 * (l0->byte_id[0] + (unsigned)j))) & 0xffu);
    }
    for (int n = 0; n < 8; n++) {
      const mma_args *x = lane_args[4 * n + (int)l0->thread_id[1]];
      sf_b[n][j] = scale_value(s, (x->scale[1] >> (8 * (l0->byte_id[1] + (unsigned)j))) & 0xffu);
    }
  }
  return true;
}

/* The warp's D = A * B + C for shape s, scales applied when given. */
static void multiply(const mma_shape *s, void *const lane_args[SIM_LANES],
                     const double (*sf_a)[4], const double (*sf_b)[4]) {
  double A[16][64], B[64][8], C[16][8];
  int a_per = s->m * s->k / SIM_LANES, b_per = s->k * s->n / SIM_LANES;
  int c_per = s->m * s->n / SIM_LANES;
  for (int lane = 0; lane < SIM_LANES; lane++) {
    const mma_args *x = lane_args[lane];
    int row, col;
    for (int i = 0; i < a_per; i++) {
      a_at(s, lane, i, &row, &col);
      A[row][col] = get(x->a, s->a, i, reg_bits(s, s->a));
    }
    for (int i = 0; i < b_per; i++)
      B[b_k(s, lane, i)][lane >> 2] = get(x->b, s->b, i, reg_bits(s, s->b));
    for (int i = 0; i < c_per; i++) {
      c_at(s, lane, i, &row, &col);
      C[row][col] = get(x->c, s->c, i, reg_bits(s, s->c));
    }
  }
  double D[16][8];
  for (int r = 0; r < s->m; r++)
    for (int c = 0; c < s->n; c++) {
      double sum = C[r][c];
      for (int kk = 0; kk < s->k; kk++) {
        if (s->d == EL_F64) sum = fma(A[r][kk], B[kk][c], sum);
        else if (sf_a) { /* block kk / (k / vec) of the row and of the column */
          int j = kk / (s->k / s->vec);
          sum += A[r][kk] * B[kk][c] * sf_a[r][j] * sf_b[c][j];
        }
        else sum += A[r][kk] * B[kk][c];
      }
      D[r][c] = sum;
    }
  for (int lane = 0; lane < SIM_LANES; lane++) {
    const mma_args *x = lane_args[lane];
    for (int i = 0; i < c_per; i++) {
      int row, col;
      c_at(s, lane, i, &row, &col);
      put(x->d, s->d, i, D[row][col], s->satfinite);
    }
  }
}

static const char known[] =
    "mma.sync.aligned.{m16n8k8,m16n8k16}.row.col.{f32,f16}.f16.f16.{f32,f16}, "
    "m16n8k16.row.col.f32.bf16.bf16.f32, m16n8k8.row.col.f32.tf32.tf32.f32, "
    "m16n8k32.row.col.{f32,f16}.{e4m3,e5m2}.{e4m3,e5m2}.{f32,f16}, "
    "kind::f8f6f4.m16n8k32.row.col.f32.{e4m3,e5m2,e2m3,e3m2,e2m1}.{same}.f32, "
    "m16n8k32.row.col[.satfinite].s32.{s8,u8}.{s8,u8}.s32 or m8n8k4.row.col.f64.f64.f64.f64";

/* Every lane's register pointers are set (the model reads and writes them). */
static bool registers(const char *opcode, void *const lane_args[SIM_LANES]) {
  for (int lane = 0; lane < SIM_LANES; lane++) {
    const mma_args *x = lane_args[lane];
    const char *which = !x->d ? "d" : !x->a ? "a" : !x->b ? "b" : !x->c ? "c" : NULL;
    if (which) {
      tcmma__sim_fail("%s: lane %d's %s registers are NULL", opcode, lane, which);
      return false;
    }
  }
  return true;
}

static void exec_mma(const char *opcode, void *const lane_args[SIM_LANES]) {
  mma_shape s;
  if (!parse_opcode(opcode, false, &s)) {
    tcmma__sim_fail("unknown mma opcode '%s': expected %s", opcode, known);
    return;
  }
  if (registers(opcode, lane_args) && containers_clean(opcode, &s, lane_args))
    multiply(&s, lane_args, NULL, NULL);
}

static void exec_mma_scaled(const char *opcode, void *const lane_args[SIM_LANES]) {
  mma_shape s;
  double sf_a[16][4], sf_b[8][4];
  if (!parse_opcode(opcode, true, &s)) {
    tcmma__sim_fail("unknown block-scaled mma opcode '%s': expected mma.sync.aligned."
                    "kind::mxf8f6f4.block_scale.scale_vec::1X.m16n8k32.row.col.f32."
                    "{e4m3,e5m2,e2m3,e3m2,e2m1}.{same}.f32.ue8m0 or kind::mxf4nvf4.block_scale."
                    "scale_vec::{2X,4X}.m16n8k64.row.col.f32.e2m1.e2m1.f32.{ue8m0,ue4m3 (4X)}",
                    opcode);
    return;
  }
  if (registers(opcode, lane_args) && containers_clean(opcode, &s, lane_args) &&
      scales(&s, lane_args, sf_a, sf_b))
    multiply(&s, lane_args, (const double (*)[4])sf_a, (const double (*)[4])sf_b);
}

void tcmma_sim_mma(const char *opcode, void *d, const void *a, const void *b, const void *c) {
  mma_args args = {d, a, b, c, {0, 0}, {0, 0}, {0, 0}};
  tcmma__sim_collective(opcode, exec_mma, &args);
}

void tcmma_sim_mma_scaled(const char *opcode, void *d, const void *a, const void *b,
                          const void *c, uint32_t scale_a, unsigned byte_a, unsigned thread_a,
                          uint32_t scale_b, unsigned byte_b, unsigned thread_b) {
  mma_args args = {d, a, b, c, {scale_a, scale_b}, {byte_a, byte_b}, {thread_a, thread_b}};
  tcmma__sim_collective(opcode, exec_mma_scaled, &args);
}
