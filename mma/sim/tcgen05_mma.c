/* tcgen05.mma reference model (docs/sim.md "tcgen05"), cta_group::1: one
 * thread issues the whole M x N x K product (single-thread semantics). The
 * 32-bit instruction descriptor is decoded from the PTX ISA's tables 42-44
 * ("Instruction descriptor"), A and B gathered through sm_100 shared memory
 * descriptors (umma_desc.c) or A from Tensor Memory, block scales from
 * Tensor Memory; D = A B (+ D) computed as mma.c does (exact products,
 * scaled, summed in double, one rounding per instruction; integers exact,
 * wrapped or clamped) and written to Tensor Memory at once under the
 * thread's open ticket: tmem.c refuses a tcgen05.ld of it until the
 * tcgen05.commit covering it completed and the reader observed that.
 *
 * Data path (PTX ISA "Data Path Layout Organization", layouts D and F): M 128
 * puts row m at lane m; M 64 uses half of each 32-lane quarter, row m at lane
 * base + 32 (m / 16) + m % 16 with base 0 or 16 the address's lane. D's
 * column n is word n (a 16-bit D in its low half, "not packed"); A in Tensor
 * Memory packs its row's K elements into words from the low bits (fp6/fp4 of
 * the f8f6f4 kinds one per 8-bit container as mma.sync's: e2m1 in bits 5..2,
 * fp6 in 5..0; mxf4's two per byte). Block scales ("Block Scaling for
 * tcgen05.mma", CUTLASS's tmem_sf_frg): the scale of row m (A) or column n
 * (B) for K block b is byte ID + b of the word at lane (m or n) % 32 and
 * column base + (m or n) / 32, duplicated in all four 32-lane quarters. */
#include <math.h>
#include <stdio.h>
#include <string.h>
#include "mma/sim/internal.h"

#define sh tcmma__sim_state

typedef enum { K_F16, K_TF32, K_F8F6F4, K_I8, K_MXF8F6F4, K_MXF4, K_MXF4NVF4 } mkind;
static const char *const kind_names[] = {"f16", "tf32", "f8f6f4", "i8", "mxf8f6f4", "mxf4",
                                         "mxf4nvf4"};
/* element types: the descriptor's codes per kind, mapped here */
typedef enum { E_F16, E_BF16, E_TF32, E_E4M3, E_E5M2, E_E2M3, E_E3M2, E_E2M1, E_U8, E_S8 } etype;
static const int etype_bits[] = {16, 16, 32, 8, 8, 6, 6, 4, 8, 8};

typedef struct {
  mkind kind;
  int vec;              /* scale_vec: scales per row of K (block-scaled kinds) */
  int m, n, k;
  etype a, b;
  int d;                /* 0 f16, 1 f32, 2 s32 */
  bool sat, neg_a, neg_b, mn_a, mn_b;
  int sfa_id, sfb_id;
  bool ue8m0;           /* scale type */
} mshape;

enum { M_MAX = 128, N_MAX = 256, K_MAX = 64 };

/* ---- the opcode ---- */

static const char *const prefix = "tcgen05.mma.cta_group::1.kind::";

/* Parses the opcode: the kind, whether block-scaled, its scale_vec (0 when
 * the opcode names none). */
static bool parse_opcode(const char *opcode, bool scaled, mshape *s) {
  size_t n = strlen(prefix);
  if (!opcode || strncmp(opcode, prefix, n)) return false;
  const char *rest = opcode + n;
  for (int k = 0; k < (int)(sizeof kind_names / sizeof kind_names[0]); k++) {
    size_t kl = strlen(kind_names[k]);
    if (strncmp(rest, kind_names[k], kl) || (rest[kl] && rest[kl] != '.')) continue;
    s->kind = (mkind)k;
    rest += kl;
    bool block = k >= K_MXF8F6F4;
    if (block != scaled) return false;
    if (!block) return *rest == '\0';
    if (strncmp(rest, ".block_scale", 12)) return false;
    rest += 12;
    /* .scale_vec::NX or the .block32/.block16 aliases (K 32/64: 1X for
     * mxf8f6f4, 2X for the fp4 kinds; .block16 4X) */
    int dflt = k == K_MXF8F6F4 ? 1 : 2;
    if (!*rest) s->vec = k == K_MXF4NVF4 ? 0 : dflt; /* mxf4nvf4 must name it */
    else if (!strcmp(rest, ".scale_vec::1X")) s->vec = 1;
    else if (!strcmp(rest, ".scale_vec::2X")) s->vec = 2;
    else if (!strcmp(rest, ".scale_vec::4X")) s->vec = 4;
    else if (!strcmp(rest, ".block32")) s->vec = dflt;
    else if (!strcmp(rest, ".block16")) s->vec = 4;
    else return false;
    int ok_vec = k == K_MXF8F6F4 ? s->vec == 1 : k == K_MXF4 ? s->vec == 2
                                                             : s->vec == 2 || s->vec == 4;
    return ok_vec;
  }
  return false;
}

/* ---- the instruction descriptor ---- */

static bool f8f6f4_type(unsigned code, etype *out) {
  static const int map[8] = {E_E4M3, E_E5M2, -1, E_E2M3, E_E3M2, E_E2M1, -1, -1};
  if (map[code & 7] < 0) return false;
  *out = (etype)map[code & 7];
  return true;
}

/* The operand types of the descriptor's codes a, b for the kind. */
static const char *types_of(mshape *s, unsigned a, unsigned b) {
  switch (s->kind) {
  case K_F16:
    if (a > 1 || a != b) return "atype and btype must be the same, F16 (0) or BF16 (1)";
    s->a = s->b = a ? E_BF16 : E_F16;
    if (s->d == 0 && a) return "an F16 D takes F16 operands only";
    return s->d <= 1 ? NULL : "dtype must be F16 (0) or F32 (1)";
  case K_TF32:
    s->a = s->b = E_TF32;
    return a != 2 || b != 2 ? "atype and btype must be TF32 (2)"
                            : s->d == 1 ? NULL : "dtype must be F32 (1)";
  case K_I8:
    if (a > 1 || b > 1) return "atype and btype must be U8 (0) or S8 (1)";
    s->a = a ? E_S8 : E_U8, s->b = b ? E_S8 : E_U8;
    return s->d == 2 ? NULL : "dtype must be S32 (2)";
  case K_F8F6F4:
  case K_MXF8F6F4:
    if (!f8f6f4_type(a, &s->a) || !f8f6f4_type(b, &s->b))
      return "atype and btype must be E4M3 (0), E5M2 (1), E2M3 (3), E3M2 (4) or E2M1 (5)";
    return s->kind == K_MXF8F6F4 || s->d <= 1 ? NULL : "dtype must be F16 (0) or F32 (1)";
  default:
    s->a = s->b = E_E2M1;
    return a == 1 && b == 1 ? NULL : "atype and btype must be E2M1 (1)";
  }
}

static bool sub_byte(etype t) { return etype_bits[t] < 8; }

/* Dense kinds' fields (table 42). */
static const char *decode_dense(unsigned d, mshape *s) {
  if (d >> 2 & 1) return "sparse (bit 2) is not modelled";
  if (d & 3) return "the sparsity selector (bits 0-1) must be 0 when dense";
  if (d >> 6 & 1 || d >> 23 & 1 || d >> 29 & 1) return "reserved bits 6, 23 or 29 are set";
  if (d >> 30) return "the .ws B-reuse shift (bits 30-31) must be 0 without .ws";
  s->sat = d >> 3 & 1, s->d = (int)(d >> 4 & 3), s->m = (int)(d >> 24 & 31) << 4;
  if (s->sat && s->kind != K_I8) return "saturate (bit 3) is for kind::i8 only";
  if (s->kind == K_I8 && (s->neg_a || s->neg_b)) return "kind::i8 cannot negate (bits 13-14)";
  if (s->m != 64 && s->m != 128) return "M (bits 24-28, M >> 4) must be 64 or 128";
  bool n_ok = s->n >= 8 && s->n <= 256 && s->n % 8 == 0;
  if (s->kind == K_I8) n_ok = n_ok && (s->n <= 32 || s->n % 16 == 0);
  if (!n_ok) return "N (bits 17-22, N >> 3) is not one of the kind's (8..256 by 8; kind::i8 "
                    "8, 16, 24, 32, then by 16)";
  return types_of(s, d >> 7 & 7, d >> 10 & 7);
}

/* Block-scaled kinds' fields (tables 43 and 44). */
static const char *decode_scaled(unsigned d, mshape *s) {
  if (d >> 2 & 1) return "sparse (bit 2) is not modelled";
  if (d & 3 || d >> 3 & 1 || d >> 6 & 1 || d >> 24 & 7) return "reserved bits 0-1, 3, 6 or 24-26 are set";
  if (d >> 31) return s->kind == K_MXF8F6F4 ? "reserved bit 31 is set"
                                            : "K 96 (bit 31) is for cta_group::2 only";
  s->d = 1, s->m = (int)(d >> 27 & 3) << 7;
  s->sfb_id = (int)(d >> 4 & 3), s->sfa_id = (int)(d >> 29 & 3), s->ue8m0 = d >> 23 & 1;
  if (s->m != 128) return "M (bits 27-28, M >> 7) must be 128 for a block-scaled cta_group::1";
  if (s->n < 8 || s->n > 256 || s->n % 8) return "N (bits 17-22) must be 8..256 by 8";
  if (s->kind != K_MXF8F6F4 && d >> 12 & 1) return "reserved bit 12 is set";
  const char *why = types_of(s, d >> 7 & 7, d >> 10 & (s->kind == K_MXF8F6F4 ? 7 : 3));
  if (why) return why;
  if (!s->ue8m0 && (s->kind != K_MXF4NVF4 || s->vec != 4))
    return "UE4M3 scales (bit 23 clear) are for kind::mxf4nvf4 with scale_vec::4X only";
  int step = s->vec == 1 ? 1 : s->vec == 2 ? 2 : 4;
  if (s->sfa_id % step || s->sfb_id % step)
    return "the scale factor IDs (bits 29-30, 4-5) must be multiples of the scale_vec "
           "(0-3 for 1X, 0 or 2 for 2X, 0 for 4X)";
  return NULL;
}

static bool decode_idesc(const char *opcode, unsigned d, mshape *s) {
  s->neg_a = d >> 13 & 1, s->neg_b = d >> 14 & 1, s->mn_a = d >> 15 & 1, s->mn_b = d >> 16 & 1;
  s->n = (int)(d >> 17 & 63) << 3;
  const char *why = s->kind >= K_MXF8F6F4 ? decode_scaled(d, s) : decode_dense(d, s);
  if (!why) {
    s->k = s->kind == K_F16 ? 16 : s->kind == K_TF32 ? 8 : s->kind >= K_MXF4 ? 64 : 32;
    if ((s->mn_a && sub_byte(s->a)) || (s->mn_b && sub_byte(s->b)) ||
        (s->kind >= K_MXF4 && (s->mn_a || s->mn_b)))
      why = "transpose (MN-major, bits 15-16) is for 8-bit, 16-bit and 32-bit types only";
  }
  if (!why) return true;
  tcmma__sim_fail("tcgen05.mma '%s' by thread %d: instruction descriptor 0x%08x: %s", opcode,
                  tcmma__sim_current_thread(), d, why);
  return false;
}

/* ---- element values ---- */

static double value(etype t, uint32_t v) {
  switch (t) {
  case E_F16: return tcmma__sim_decode(&tcmma__sim_fmt_f16, v & 0xffffu);
  case E_BF16: return tcmma__sim_decode(&tcmma__sim_fmt_bf16, v & 0xffffu);
  case E_TF32: { /* read through its top 19 bits, as the tensor core does */
    uint32_t w = v & 0xffffe000u;
    float f;
    memcpy(&f, &w, sizeof f);
    return f;
  }
  case E_E4M3: return tcmma__sim_decode(&tcmma__sim_fmt_e4m3, v & 0xff);
  case E_E5M2: return tcmma__sim_decode(&tcmma__sim_fmt_e5m2, v & 0xff);
  case E_E2M3: return tcmma__sim_decode(&tcmma__sim_fmt_e2m3, v & 0x3f);
  case E_E3M2: return tcmma__sim_decode(&tcmma__sim_fmt_e3m2, v & 0x3f);
  case E_E2M1: return tcmma__sim_decode(&tcmma__sim_fmt_e2m1, v & 0xf);
  case E_U8: return (double)(v & 0xff);
  default: return (double)(int8_t)(v & 0xff);
  }
}

/* T: elements a 16-byte chunk of shared memory holds (fp6/fp4 of the
 * f8f6f4 kinds padded to 16 a chunk; mxf4's fp4 packed, 32). */
static int per_chunk(const mshape *s, etype t) {
  if (s->kind == K_MXF4 || s->kind == K_MXF4NVF4) return 32;
  return sub_byte(t) ? 16 : 128 / etype_bits[t];
}

/* Element u of a 16-byte chunk: dense types at u times their bytes; padded
 * fp6 at bit 6u, padded or packed fp4 at nibble u (low nibble first). */
static uint32_t chunk_element(const unsigned char *c, etype t, int u) {
  int bits = etype_bits[t], at = bits * u;
  uint32_t w = 0;
  memcpy(&w, c + at / 8, (size_t)((at % 8 + bits + 7) / 8));
  return (w >> (at % 8)) & (bits == 32 ? 0xffffffffu : (1u << bits) - 1);
}

/* rows x K elements of an operand through its descriptor into out. */
static bool gather_smem(const mshape *s, uint64_t desc, bool mn_major, etype t, int rows,
                        const char *name, int warp, double *out) {
  char what[64];
  snprintf(what, sizeof what, "tcgen05.mma (operand %s)", name);
  sim_umma_desc d;
  if (!tcmma__sim_umma_desc(desc, what, &d)) return false;
  if (mn_major && etype_bits[t] == 32 && d.mode != 1) {
    tcmma__sim_fail("%s: an MN-major 32-bit operand takes only the 128-byte swizzle with 32-byte "
                    "atomicity (mode 1; descriptor 0x%016llx)", what, (unsigned long long)desc);
    return false;
  }
  if (mn_major && etype_bits[t] < 32 && d.mode == 1) {
    tcmma__sim_fail("%s: an MN-major 8/16-bit operand cannot take the 128-byte swizzle with "
                    "32-byte atomicity (mode 1)", what);
    return false;
  }
  int tc = per_chunk(s, t);
  for (int i = 0; i < rows; i++)
    for (int j = 0; j < s->k; j++) {
      int u;
      long at = tcmma__sim_umma_chunk(&d, mn_major, tc, i, j, &u);
      unsigned char chunk[16];
      if (!tcmma__sim_umma_read(at, 16, what, warp, chunk)) return false;
      out[i * s->k + j] = value(t, chunk_element(chunk, t, u));
    }
  return true;
}

/* The data path lane of row m (layout D for M 128, F for M 64 at base). */
static unsigned row_lane(int m_total, unsigned base, int m) {
  return m_total == 128 ? (unsigned)m : base + 32u * (unsigned)(m / 16) + (unsigned)(m % 16);
}

/* Checks an address's lane field for the data path; sets *base. */
static bool lane_base(const mshape *s, uint32_t taddr, const char *what, unsigned *base) {
  *base = taddr >> 16;
  if (*base == 0 || (s->m == 64 && *base == 16)) return true;
  tcmma__sim_fail("tcgen05.mma by thread %d: %s at 0x%08x: lane %u (expected lane 0%s for M %d)",
                  tcmma__sim_current_thread(), what, taddr, *base,
                  s->m == 64 ? " or 16" : "", s->m);
  return false;
}

/* A (M x K) from Tensor Memory at a_tmem (M 64: at D's lane alignment, as
 * the ISA's half-data-path layout F requires). */
static bool gather_tmem(const mshape *s, uint32_t a_tmem, uint32_t d_tmem, int thread,
                        double *out) {
  unsigned base, col = a_tmem & 0xffffu, bits = s->kind >= K_MXF4 ? 4 : sub_byte(s->a) ? 8
                                                                         : (unsigned)etype_bits[s->a];
  unsigned words = (unsigned)s->k * bits / 32;
  if ((a_tmem >> 16) != (d_tmem >> 16)) {
    tcmma__sim_fail("tcgen05.mma by thread %d: A at lane %u, D at lane %u (A and D share the "
                    "data path's lane alignment)", thread, a_tmem >> 16, d_tmem >> 16);
    return false;
  }
  if (!lane_base(s, a_tmem, "A", &base) ||
      !tcmma__sim_tmem_range("tcgen05.mma (A in Tensor Memory)", thread, base,
                             row_lane(s->m, base, s->m - 1) - base + 1, col, words))
    return false;
  for (int m = 0; m < s->m; m++)
    for (int j = 0; j < s->k; j++) {
      unsigned lane = row_lane(s->m, base, m), w = (unsigned)j * bits / 32;
      if (!tcmma__sim_tmem_readable("tcgen05.mma (A in Tensor Memory)", thread, true, lane, col + w))
        return false;
      uint32_t v = *tcmma__sim_tmem_word(lane, col + w) >> ((unsigned)j * bits % 32);
      v &= bits == 32 ? 0xffffffffu : (1u << bits) - 1;
      if (bits == 8 && sub_byte(s->a)) {
        unsigned lsb = s->a == E_E2M1 ? 2 : 0, width = (unsigned)etype_bits[s->a];
        if (v & ~(((1u << width) - 1) << lsb)) {
          tcmma__sim_fail("tcgen05.mma by thread %d: A's element %d,%d in Tensor Memory (lane %u, "
                          "column %u) has container 0x%02x: a %s sits in bits %u..%u, the rest 0",
                          thread, m, j, lane, col + w, v, s->a == E_E2M1 ? "e2m1" : "fp6",
                          lsb + width - 1, lsb);
          return false;
        }
        v >>= lsb;
      }
      out[m * s->k + j] = value(s->a, v);
    }
  return true;
}

/* ---- block scales ---- */

/* The scale of row or column x (of count) for K block b, at sf_tmem with
 * byte id; checks the four quarters hold the same byte. */
static bool scale_at(const mshape *s, uint32_t sf_tmem, int id, int x, int b, const char *name,
                     int thread, double *out) {
  unsigned col = (sf_tmem & 0xffffu) + (unsigned)x / 32, lane = (unsigned)x % 32;
  unsigned byte = (unsigned)(id + b), first = 0;
  char what[64];
  snprintf(what, sizeof what, "tcgen05.mma (scale %s)", name);
  for (unsigned q = 0; q < 4; q++) {
    if (!tcmma__sim_tmem_readable(what, thread, true, lane + 32 * q, col)) return false;
    unsigned v = *tcmma__sim_tmem_word(lane + 32 * q, col) >> (8 * byte) & 0xff;
    if (q == 0) first = v;
    else if (v != first) {
      tcmma__sim_fail("%s by thread %d: the scale of %s %d, block %d is 0x%02x at lane %u but "
                      "0x%02x at lane %u (column %u, byte %u): scale factors must be duplicated "
                      "in all four 32-lane quarters", what, thread, name[0] == 'A' ? "row" : "column",
                      x, b, first, lane, v, lane + 32 * q, col, byte);
      return false;
    }
  }
  *out = s->ue8m0 ? (first == 0xff ? NAN : ldexp(1.0, (int)first - 127))
                  : tcmma__sim_decode(&tcmma__sim_fmt_ue4m3, first);
  return true;
}

/* Scales A (M x K) and B (N x K) in place by their blocks' factors. */
static bool apply_scales(const mshape *s, uint32_t sfa, uint32_t sfb, int thread, double *A,
                         double *B) {
  const uint32_t addr[2] = {sfa & 0x3fffffffu, sfb & 0x3fffffffu};
  const char *names[2] = {"A", "B"};
  int rows[2] = {s->m, s->n}, ids[2] = {s->sfa_id, s->sfb_id}, block = s->k / s->vec;
  double *mat[2] = {A, B};
  for (int o = 0; o < 2; o++) {
    char what[64];
    snprintf(what, sizeof what, "tcgen05.mma (scale %s)", names[o]);
    if (addr[o] >> 16) {
      tcmma__sim_fail("%s by thread %d: address 0x%08x: lane %u (expected lane 0: the scales "
                      "fill lanes 0..127)", what, thread, addr[o], addr[o] >> 16);
      return false;
    }
    if (!tcmma__sim_tmem_range(what, thread, 0, TMEM_LANES, addr[o],
                               (unsigned)(rows[o] + 31) / 32))
      return false;
    for (int x = 0; x < rows[o]; x++)
      for (int b = 0; b < s->vec; b++) {
        double f;
        if (!scale_at(s, addr[o], ids[o], x, b, names[o], thread, &f)) return false;
        for (int j = b * block; j < (b + 1) * block; j++) mat[o][x * s->k + j] *= f;
      }
  }
  return true;
}

/* ---- the product ---- */

static double d_get(const mshape *s, uint32_t w) {
  if (s->d == 0) return tcmma__sim_decode(&tcmma__sim_fmt_f16, w & 0xffffu);
  if (s->d == 2) return (double)(int32_t)w;
  float f;
  memcpy(&f, &w, sizeof f);
  return f;
}

static uint32_t d_put(const mshape *s, double v) {
  if (s->d == 0) return tcmma__sim_encode(&tcmma__sim_fmt_f16, v, false);
  if (s->d == 1) {
    float f = (float)v;
    uint32_t w;
    memcpy(&w, &f, sizeof w);
    return w;
  }
  if (s->sat) v = fmax(-2147483648.0, fmin(2147483647.0, v));
  return (uint32_t)(int64_t)v; /* wraps mod 2^32 */
}

static bool product(const mshape *s, uint32_t d_tmem, int enable_d, int thread, const double *A,
                    const double *B) {
  unsigned base, col = d_tmem & 0xffffu;
  if (!lane_base(s, d_tmem, "D", &base) ||
      !tcmma__sim_tmem_range("tcgen05.mma (D)", thread, base,
                             row_lane(s->m, base, s->m - 1) - base + 1, col, (unsigned)s->n))
    return false;
  unsigned ticket = tcmma__sim_tmem_async_ticket(thread);
  for (int m = 0; m < s->m; m++)
    for (int n = 0; n < s->n; n++) {
      unsigned lane = row_lane(s->m, base, m);
      if (enable_d && !tcmma__sim_tmem_readable("tcgen05.mma (D)", thread, true, lane, col + n))
        return false;
      uint32_t *w = tcmma__sim_tmem_word(lane, col + (unsigned)n);
      double sum = enable_d ? d_get(s, *w) : 0.0;
      for (int j = 0; j < s->k; j++) sum += A[m * s->k + j] * B[n * s->k + j];
      *w = d_put(s, sum);
      tcmma__sim_tmem_tag(lane, col + (unsigned)n, ticket);
    }
  return true;
}

typedef struct {
  const char *opcode;
  bool scaled, a_in_tmem;
  uint32_t d_tmem, a_tmem, sfa, sfb;
  uint64_t a_desc, b_desc;
  unsigned idesc;
  int enable_d;
} mma_call;

static void issue(const mma_call *c) {
  int thread = tcmma__sim_current_thread();
  if (thread < 0) return;
  tcmma__sim_lock();
  tcmma__sim_tmem_touch();
  mshape s = {0};
  static double A[M_MAX * K_MAX], B[N_MAX * K_MAX]; /* lock held: one product at a time */
  int warp = thread / SIM_LANES;
  if (!parse_opcode(c->opcode, c->scaled, &s))
    tcmma__sim_fail("tcgen05.mma by thread %d: unknown opcode '%s' (expected "
                    "tcgen05.mma.cta_group::1.kind::{f16,tf32,f8f6f4,i8}%s)", thread,
                    c->opcode ? c->opcode : "(null)",
                    c->scaled ? ", or with kind::{mxf8f6f4,mxf4,mxf4nvf4}.block_scale[.scale_vec::NX] "
                                "for the block-scaled calls"
                              : "");
  else if (decode_idesc(c->opcode, c->idesc, &s) &&
           (c->a_in_tmem ? gather_tmem(&s, c->a_tmem, c->d_tmem, thread, A)
                         : gather_smem(&s, c->a_desc, s.mn_a, s.a, s.m, "A", warp, A)) &&
           gather_smem(&s, c->b_desc, s.mn_b, s.b, s.n, "B", warp, B) &&
           (!c->scaled || apply_scales(&s, c->sfa, c->sfb, thread, A, B))) {
    for (int i = 0; i < s.m * s.k && s.neg_a; i++) A[i] = -A[i];
    for (int i = 0; i < s.n * s.k && s.neg_b; i++) B[i] = -B[i];
    product(&s, c->d_tmem, c->enable_d, thread, A, B);
  }
  bool failed = sh.failed;
  tcmma__sim_unlock();
  if (failed) tcmma__sim_stop_thread();
}

void tcmma_sim_tcgen05_mma(const char *opcode, unsigned d_tmem, uint64_t a_desc,
                           uint64_t b_desc, unsigned idesc, int enable_input_d) {
  mma_call c = {opcode, false, false, d_tmem, 0, 0, 0, a_desc, b_desc, idesc, enable_input_d};
  issue(&c);
}

void tcmma_sim_tcgen05_mma_tmem_a(const char *opcode, unsigned d_tmem, unsigned a_tmem,
                                  uint64_t b_desc, unsigned idesc, int enable_input_d) {
  mma_call c = {opcode, false, true, d_tmem, a_tmem, 0, 0, 0, b_desc, idesc, enable_input_d};
  issue(&c);
}

void tcmma_sim_tcgen05_mma_scaled(const char *opcode, unsigned d_tmem, uint64_t a_desc,
                                  uint64_t b_desc, unsigned idesc, unsigned sfa_tmem,
                                  unsigned sfb_tmem, int enable_input_d) {
  mma_call c = {opcode, true, false, d_tmem, 0, sfa_tmem, sfb_tmem, a_desc, b_desc, idesc,
                enable_input_d};
  issue(&c);
}

void tcmma_sim_tcgen05_mma_scaled_tmem_a(const char *opcode, unsigned d_tmem, unsigned a_tmem,
                                         uint64_t b_desc, unsigned idesc, unsigned sfa_tmem,
                                         unsigned sfb_tmem, int enable_input_d) {
  mma_call c = {opcode, true, true, d_tmem, a_tmem, sfa_tmem, sfb_tmem, 0, b_desc, idesc,
                enable_input_d};
  issue(&c);
}
