/* The inputs, the reference and the comparison of a case (tools/verify/data.h),
 * the same for every executor that runs kernels.
 *
 * Buffers: laid out as tcmma_kernel_operand_index says; every byte that is
 * no element of the case (row padding) is 0xff, NaN in every storage format,
 * so a kernel that reads outside its tiles poisons its result; 64 canary
 * bytes follow each buffer. The run fails when the kernel writes past a
 * buffer, into a or b, or into d outside its m x n tile.
 *
 * Pass 1, integer-valued: entries of a and b are integers in [-v, v], d's
 * are in [-w, w], and each row of a has at most (L - w) / v^2 nonzeros,
 * where L is the largest integer below which every integer is exact in both
 * the accumulator and d's storage (f32 2^24, f16 2^11, bf16 2^8) and v <= 3
 * is exact in every operand format (e5m2 holds 0..8). Every product and
 * every partial sum is then exact in any order: d must match bit for bit.
 *
 * Pass 2, real-valued: entries uniform in [-1, 1], stored at their storage
 * precision (a tf32 arm's operands further rounded with cvt.rna, as its text
 * converts them). The reference sums the exact products in order at the
 * arm's accumulator precision (unit roundoff u_acc) and rounds once to d's
 * storage (u_d). With S = |d0| + sum |a*b| over the K = outer*k terms, any
 * summation order is within e = (K+2)*u_acc*S of the exact sum, so the bound
 * is |got - ref| <= 2e + 2R*(u_d*(|ref| + 2e) + tiny_d), R the number of
 * roundings of d (1 in fragment scope, outer in statement scope), tiny_d the
 * smallest subnormal of d's storage.
 *
 * Block scales (block-scaled arms): every scale byte is a ue8m0 exponent
 * e, the factor 2^(e-127); poisoned bytes (0xff) are NaN. Pass 1 draws
 * factors in [1/2, 2], so products are multiples of 1/4 up to 4 v^2: the
 * row's nonzeros shrink by 16 (a factor 4 in magnitude, 4 in granularity)
 * and stay exact. Pass 2 draws factors in [1/8, 8]; the bound's S takes
 * the scaled products. */
#include <limits.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "tcmma/sim.h"
#include "tools/verify/data.h"

enum { POISON = 0xff, CANARY = 0x5a };

void verify_storage_put(tcmma_prec p, unsigned char *at, double v) {
  float f = (float)v;
  uint16_t h;
  /* integers: two's complement, wrapped to the width (v is an integer) */
  uint32_t u = (uint32_t)(int64_t)v;
  switch (p) {
  case TCMMA_PREC_F64: memcpy(at, &v, sizeof v); break;
  case TCMMA_PREC_S8: case TCMMA_PREC_U8: *at = (unsigned char)u; break;
  case TCMMA_PREC_S32: memcpy(at, &u, sizeof u); break;
  case TCMMA_PREC_F16: h = tcmma_sim_float2half_rn(f).bits, memcpy(at, &h, 2); break;
  case TCMMA_PREC_BF16: h = tcmma_sim_float2bfloat16_rn(f).bits, memcpy(at, &h, 2); break;
  case TCMMA_PREC_E4M3: case TCMMA_PREC_MXE4M3: *at = tcmma_sim_float_to_e4m3(f); break;
  case TCMMA_PREC_E5M2: case TCMMA_PREC_MXE5M2: *at = tcmma_sim_float_to_e5m2(f); break;
  case TCMMA_PREC_E2M1: case TCMMA_PREC_MXF4: case TCMMA_PREC_NVF4:
    *at = tcmma_sim_float_to_e2m1(f);
    break;
  case TCMMA_PREC_E2M3: case TCMMA_PREC_MXE2M3: *at = tcmma_sim_float_to_e2m3(f); break;
  case TCMMA_PREC_E3M2: case TCMMA_PREC_MXE3M2: *at = tcmma_sim_float_to_e3m2(f); break;
  case TCMMA_PREC_UE4M3: *at = tcmma_sim_float_to_ue4m3(f); break;
  default: memcpy(at, &f, sizeof f); break;
  }
}

double verify_storage_get(tcmma_prec p, const unsigned char *at) {
  uint16_t h;
  float f;
  double d;
  int32_t i;
  switch (p) {
  case TCMMA_PREC_F64: memcpy(&d, at, sizeof d); return d;
  case TCMMA_PREC_S8: return (signed char)*at;
  case TCMMA_PREC_U8: return *at;
  case TCMMA_PREC_S32: memcpy(&i, at, sizeof i); return i;
  case TCMMA_PREC_F16: memcpy(&h, at, 2); return tcmma_sim_half2float((tcmma_sim_half){h});
  case TCMMA_PREC_BF16: memcpy(&h, at, 2); return tcmma_sim_bfloat162float((tcmma_sim_bfloat16){h});
  case TCMMA_PREC_E4M3: case TCMMA_PREC_MXE4M3: return tcmma_sim_e4m3_to_float(*at);
  case TCMMA_PREC_E5M2: case TCMMA_PREC_MXE5M2: return tcmma_sim_e5m2_to_float(*at);
  case TCMMA_PREC_E2M1: case TCMMA_PREC_MXF4: case TCMMA_PREC_NVF4:
    return tcmma_sim_e2m1_to_float(*at);
  case TCMMA_PREC_E2M3: case TCMMA_PREC_MXE2M3: return tcmma_sim_e2m3_to_float(*at);
  case TCMMA_PREC_E3M2: case TCMMA_PREC_MXE3M2: return tcmma_sim_e3m2_to_float(*at);
  case TCMMA_PREC_UE4M3: return tcmma_sim_ue4m3_to_float(*at);
  default: memcpy(&f, at, sizeof f); return f;
  }
}

/* v rounded to storage precision p. */
static double stored(tcmma_prec p, double v) {
  unsigned char b[8];
  verify_storage_put(p, b, v);
  return verify_storage_get(p, b);
}

static double exact_limit(tcmma_prec p) {
  return p == TCMMA_PREC_F16 ? 2048 : p == TCMMA_PREC_BF16 ? 256 : p == TCMMA_PREC_S32 ? 0x1p31
       : p == TCMMA_PREC_F64 ? 0x1p53 : 0x1p24;
}

/* Whether the case's arm accumulates integers (s32): both passes exact. */
static bool integer_arm(const verify_case_data *x) { return tcmma_prec_is_integer(x->info->acc); }

static double unit_roundoff(tcmma_prec p) {
  return p == TCMMA_PREC_F16 ? 0x1p-11 : p == TCMMA_PREC_BF16 ? 0x1p-8
       : p == TCMMA_PREC_F64 ? 0x1p-53 : 0x1p-24;
}

static double tiny(tcmma_prec p) {
  return p == TCMMA_PREC_F16 ? 0x1p-24 : p == TCMMA_PREC_BF16 ? 0x1p-133
       : p == TCMMA_PREC_F64 ? 0x1p-1074 : 0x1p-149;
}

/* acc + p rounded to the accumulator's precision. */
static double accumulate(tcmma_prec acc, double sum) {
  return acc == TCMMA_PREC_F16 ? stored(TCMMA_PREC_F16, sum)
       : acc == TCMMA_PREC_F64 ? sum : (double)(float)sum;
}

static uint64_t next_random(uint64_t *s) {
  *s ^= *s << 13, *s ^= *s >> 7, *s ^= *s << 17;
  return *s;
}

static double uniform(uint64_t *s) {
  return (double)(next_random(s) >> 11) / 9007199254740992.0 * 2 - 1;
}

static int small_int(uint64_t *s, int v) {
  return (int)(next_random(s) % (uint64_t)(2 * v + 1)) - v;
}

/* An operand's integer in [-v, v], or [0, v] for unsigned storage. */
static int operand_int(uint64_t *s, tcmma_prec p, int v) {
  return p == TCMMA_PREC_U8 ? (int)(next_random(s) % (uint64_t)(v + 1)) : small_int(s, v);
}

/* ---- buffers ---- */

void verify_case_data_free(verify_case_data *x) {
  for (int o = 0; o < VERIFY_CASE_BUFS; o++) free(x->buf[o].mem), free(x->buf[o].before);
}

/* false with r FAILED when a buffer has no layout or no memory. */
bool verify_case_data_init(verify_case_data *x, const verify_case *c, const tcmma_plan *plan,
                           verify_case_result *r) {
  static const tcmma_operand ops[VERIFY_CASE_BUFS] = {
      TCMMA_OPERAND_C, TCMMA_OPERAND_A, TCMMA_OPERAND_B, TCMMA_OPERAND_A, TCMMA_OPERAND_B};
  const tcmma_call *call = &plan->call;
  /* scale bytes: ue8m0 exponents (held as u8), or ue4m3 values (nvf4) */
  tcmma_prec sp = strcmp(tcmma_prec_scale_type(call->a.prec), "ue4m3") == 0 ? TCMMA_PREC_UE4M3
                                                                               : TCMMA_PREC_U8;
  const tcmma_prec precs[VERIFY_CASE_BUFS] = {call->d.prec, call->a.prec, call->b.prec, sp, sp};
  memset(x, 0, sizeof *x);
  x->c = c, x->plan = plan, x->info = tcmma_arm_get(plan->arm);
  x->m = call->m, x->n = call->n, x->K = (long)call->k * c->outer;
  x->d_roundings = call->scope == TCMMA_SCOPE_FRAGMENT ? 1 : c->outer;
  x->nbuf = x->info->scale_block ? 5 : 3;
  for (int o = 0; o < x->nbuf; o++) {
    verify_operand_buf *b = &x->buf[o];
    b->op = ops[o], b->prec = precs[o];
    b->elems = o < 3 ? tcmma_kernel_operand_elems(plan, c->outer, b->op)
                     : tcmma_kernel_scale_elems(plan, c->outer, b->op);
    if (b->elems <= 0)
      return verify_case_data_free(x),
             verify_case_set(r, VERIFY_CASE_FAILED, "no kernel buffer layout for %s",
                             tcmma_operand_name(b->op));
    b->bytes = (size_t)b->elems * (size_t)tcmma_prec_bytes(b->prec);
    b->total = (b->bytes + VERIFY_CANARY_BYTES + 255) / 256 * 256;
    b->mem = aligned_alloc(256, b->total);
    b->before = malloc(b->bytes);
    if (!b->mem || !b->before)
      return verify_case_data_free(x), verify_case_set(r, VERIFY_CASE_FAILED, "out of memory");
  }
  return true;
}

/* The element (r, c) of the operand over the whole outer reduction (d: m x n,
 * a: m x K, b: K x n) in base (mem or before): tile step c / k of a, r / k
 * of b. */
static unsigned char *elem(const verify_case_data *x, const verify_operand_buf *b,
                           unsigned char *base, long r, long c) {
  long k = x->plan->call.k, step = 0;
  if (b->op == TCMMA_OPERAND_A) step = c / k, c %= k;
  if (b->op == TCMMA_OPERAND_B) step = r / k, r %= k;
  long at = tcmma_kernel_operand_index(x->plan, b->op, (int)step, r, c);
  return at < 0 ? NULL : base + (size_t)at * (size_t)tcmma_prec_bytes(b->prec);
}

/* The scale byte of row i of a (o 3) or column i of b (o 4) for reduction
 * index k of the whole outer reduction, in base (mem or before). */
static unsigned char *scale_at(const verify_case_data *x, int o, unsigned char *base, long i,
                               long k) {
  long tk = x->plan->call.k, at = tcmma_kernel_scale_index(
                                      x->plan, x->buf[o].op, (int)(k / tk), i,
                                      k % tk / x->info->scale_block);
  return at < 0 ? NULL : base + at;
}

/* Draws every scale: powers of two 2^-span .. 2^span (ue8m0: exponents
 * 127 - span .. 127 + span; ue4m3 holds them exactly for span <= 6). */
static void fill_scales(verify_case_data *x, uint64_t *seed, int span) {
  for (int o = 3; o < x->nbuf; o++) {
    long rows = o == 3 ? x->m : x->n;
    for (long i = 0; i < rows; i++)
      for (long k = 0; k < x->K; k += x->info->scale_block) {
        int e = (int)(next_random(seed) % (uint64_t)(2 * span + 1)) - span;
        unsigned char *at = scale_at(x, o, x->buf[o].mem, i, k);
        if (x->buf[o].prec == TCMMA_PREC_UE4M3) verify_storage_put(TCMMA_PREC_UE4M3, at, ldexp(1, e));
        else *at = (unsigned char)(127 + e);
      }
  }
}

/* The factor 2^(e-127) of the scale of a's (i, k) (o 1) or b's (k, j)
 * (o 2) as filled; 1 without block scales. */
static double scale_factor(const verify_case_data *x, int o, long r, long c) {
  if (x->nbuf < 5 || o == 0) return 1;
  const unsigned char *at =
      scale_at(x, o + 2, x->buf[o + 2].before, o == 1 ? r : c, o == 1 ? c : r);
  if (x->buf[o + 2].prec == TCMMA_PREC_UE4M3) return verify_storage_get(TCMMA_PREC_UE4M3, at);
  return *at == 0xff ? NAN : ldexp(1.0, (int)*at - 127);
}

static void set(verify_case_data *x, int o, long r, long c, double v) {
  verify_storage_put(x->buf[o].prec, elem(x, &x->buf[o], x->buf[o].mem, r, c), v);
}

/* The scale factors of the case's store: (alpha, beta) for init scale;
 * (1, 1) for load (d0 is the accumulator's start); (1, 0) for zero. */
static void scales(const verify_case_data *x, double *alpha, double *beta) {
  tcmma_init init = x->plan->call.init;
  *alpha = init == TCMMA_INIT_SCALE ? x->c->alpha : 1;
  *beta = init == TCMMA_INIT_SCALE ? x->c->beta : init == TCMMA_INIT_LOAD ? 1 : 0;
}

static void fill_integers(verify_case_data *x, uint64_t *seed) {
  double limit = fmin(exact_limit(x->info->acc), exact_limit(x->buf[0].prec)), alpha, beta;
  int v = 3, w = (int)fmin(8, limit / 4);
  scales(x, &alpha, &beta);
  /* block scales in [1/2, 2]: products up to 4 v^2 in quarters */
  double grain = x->nbuf == 5 ? 16 : 1;
  if (x->nbuf == 5) fill_scales(x, seed, 1);
  /* |alpha * sum| + |beta * d0| stays below the limit */
  long nnz = (long)((limit - fabs(beta) * w) / fmax(fabs(alpha), 1) / (v * v) / grain);
  for (long i = 0; i < x->m; i++) {
    /* at most nnz nonzeros in this row of a, at random positions */
    long placed = 0;
    for (long k = 0; k < x->K; k++) {
      bool take = x->K <= nnz || (long)(next_random(seed) % (uint64_t)(x->K - k)) < nnz - placed;
      placed += take;
      set(x, 1, i, k, take ? operand_int(seed, x->buf[1].prec, v) : 0);
    }
  }
  for (long k = 0; k < x->K; k++)
    for (long j = 0; j < x->n; j++) set(x, 2, k, j, operand_int(seed, x->buf[2].prec, v));
  for (long i = 0; i < x->m; i++)
    for (long j = 0; j < x->n; j++) set(x, 0, i, j, small_int(seed, w));
}

/* The whole range of an integer storage: s8, u8, s32; every other s32
 * within 2^20 of INT32_MAX or INT32_MIN, so that sums overflow and the
 * arm's wrap or saturation shows. */
static double full_range(uint64_t *s, tcmma_prec p) {
  uint64_t r = next_random(s);
  if (p == TCMMA_PREC_S8) return (int8_t)r;
  if (p == TCMMA_PREC_U8) return (uint8_t)r;
  if (r & 1) return (int32_t)(uint32_t)(r >> 8);
  return r & 2 ? (double)INT32_MAX - (double)(r >> 12 & 0xfffff)
               : (double)INT32_MIN + (double)(r >> 12 & 0xfffff);
}

static void fill_reals(verify_case_data *x, uint64_t *seed) {
  if (integer_arm(x)) { /* every operand and d across its whole range */
    for (int o = 0; o < 3; o++) {
      long rows = o == 2 ? x->K : x->m, cols = o == 1 ? x->K : x->n;
      for (long r = 0; r < rows; r++)
        for (long c = 0; c < cols; c++) set(x, o, r, c, full_range(seed, x->buf[o].prec));
    }
    return;
  }
  if (x->nbuf == 5) fill_scales(x, seed, 3);
  for (long i = 0; i < x->m; i++)
    for (long k = 0; k < x->K; k++) set(x, 1, i, k, uniform(seed));
  for (long k = 0; k < x->K; k++)
    for (long j = 0; j < x->n; j++) set(x, 2, k, j, uniform(seed));
  for (long i = 0; i < x->m; i++)
    for (long j = 0; j < x->n; j++) set(x, 0, i, j, uniform(seed));
}

/* Poisons every buffer, writes the pass's inputs (seeded by the case's
 * name) and keeps a copy of them in `before`. */
void verify_case_data_fill(verify_case_data *x, verify_pass pass) {
  for (int o = 0; o < x->nbuf; o++) {
    memset(x->buf[o].mem, POISON, x->buf[o].bytes);
    memset(x->buf[o].mem + x->buf[o].bytes, CANARY, x->buf[o].total - x->buf[o].bytes);
  }
  uint64_t seed = 0x9e3779b97f4a7c15ull ^ (pass == VERIFY_PASS_INTEGER ? 1 : 2);
  for (const char *s = x->c->name; *s; s++) seed = (seed ^ (unsigned char)*s) * 0x100000001b3ull;
  if (!seed) seed = 1;
  if (pass == VERIFY_PASS_INTEGER)
    fill_integers(x, &seed);
  else fill_reals(x, &seed);
  for (int o = 0; o < x->nbuf; o++) memcpy(x->buf[o].before, x->buf[o].mem, x->buf[o].bytes);
}

/* ---- reference and comparison ---- */

/* Element (r, c) of buffer o as filled: an operand of a tf32 arm rounded as
 * its text converts it, of a block-scaled arm times its block's factor, d
 * (o 0) as stored. */
static double input(const verify_case_data *x, int o, long r, long c) {
  const verify_operand_buf *b = &x->buf[o];
  double v = verify_storage_get(b->prec, elem(x, b, b->before, r, c));
  return (x->info->tf32 && o > 0 ? tcmma_sim_float_to_tf32((float)v) : v) *
         scale_factor(x, o, r, c);
}

/* The reference for d[i][j]: the accumulator's start (d0 for init load,
 * else 0) plus the products in order, each sum rounded to the
 * accumulator's precision, then for init scale alpha * acc + beta * d0;
 * *mag gets S (see the top: the start's and the products' magnitudes, each
 * times its scale factor). */
/* x + y in s32 as the arm accumulates: wrapped, or clamped (.satfinite). */
static int64_t s32_add(int64_t x, int64_t y, bool saturate) {
  int64_t s = x + y;
  if (saturate) return s > INT32_MAX ? INT32_MAX : s < INT32_MIN ? INT32_MIN : s;
  return (int32_t)(uint32_t)(uint64_t)s;
}

/* An s32 accumulator's reference: each mma instruction adds its tile_k
 * exact products to the accumulator at once, wrapping or clamping
 * (.satfinite, in the arm's opcode) per instruction; the scaled store is
 * alpha * acc + beta * d0 in wrapping 32-bit arithmetic, alpha and beta
 * converted to int as the text does. */
static double integer_reference(const verify_case_data *x, long i, long j) {
  double alpha, beta;
  scales(x, &alpha, &beta);
  bool saturate = strstr(x->info->instr, ".satfinite.") != NULL;
  int64_t d0 = (int64_t)input(x, 0, i, j);
  int64_t acc = x->plan->call.init == TCMMA_INIT_LOAD ? d0 : 0;
  for (long k0 = 0; k0 < x->K; k0 += x->info->k) {
    int64_t sum = 0;
    for (long k = k0; k < k0 + x->info->k; k++)
      sum += (int64_t)input(x, 1, i, k) * (int64_t)input(x, 2, k, j);
    acc = s32_add(acc, sum, saturate);
  }
  if (x->plan->call.init == TCMMA_INIT_SCALE)
    acc = (int32_t)(uint32_t)((uint64_t)(int64_t)alpha * (uint64_t)acc +
                              (uint64_t)(int64_t)beta * (uint64_t)d0);
  return (double)acc;
}

double verify_case_data_reference(const verify_case_data *x, long i, long j, double *mag) {
  if (integer_arm(x)) return *mag = 0, integer_reference(x, i, j);
  double alpha, beta, d0 = input(x, 0, i, j);
  scales(x, &alpha, &beta);
  bool load = x->plan->call.init == TCMMA_INIT_LOAD;
  double acc = load ? d0 : 0, s = 0;
  for (long k = 0; k < x->K; k++) {
    double p = input(x, 1, i, k) * input(x, 2, k, j);
    s += fabs(p);
    acc = accumulate(x->info->acc, acc + p);
  }
  *mag = fabs(alpha) * s + fabs(beta) * fabs(d0);
  if (x->plan->call.init == TCMMA_INIT_SCALE) acc = alpha * acc + beta * d0;
  return stored(x->buf[0].prec, acc);
}

static bool canary_intact(const verify_operand_buf *b) {
  for (size_t i = b->bytes; i < b->total; i++)
    if (b->mem[i] != CANARY) return false;
  return true;
}

/* Whether every byte of d that is no element of the tile (row padding) is
 * still poison. */
static bool outside_untouched(const verify_case_data *x) {
  const verify_operand_buf *d = &x->buf[0];
  int eb = tcmma_prec_bytes(d->prec);
  unsigned char *mine = calloc((size_t)d->elems, 1);
  if (!mine) return true;
  for (long i = 0; i < x->m; i++)
    for (long j = 0; j < x->n; j++) {
      const unsigned char *at = elem(x, d, d->mem, i, j);
      if (at) mine[(at - d->mem) / eb] = 1;
    }
  bool ok = true;
  for (long e = 0; ok && e < d->elems; e++)
    for (int b = 0; !mine[e] && b < eb; b++) ok = d->mem[e * eb + b] == POISON;
  free(mine);
  return ok;
}

/* The pass in messages: an integer arm's second pass is full-range
 * integers, compared exactly like the first. */
static const char *pass_name(const verify_case_data *x, verify_pass pass) {
  return pass == VERIFY_PASS_INTEGER ? "integer pass"
         : integer_arm(x)            ? "full-range pass"
                                     : "real pass";
}

/* After a run: the buffers, then every element of d against the reference. */
static bool data_check(const verify_case_data *x, verify_pass pass, verify_case_result *r) {
  const char *name = pass_name(x, pass);
  static const char *const buf_name[VERIFY_CASE_BUFS] = {"d", "a", "b", "sa", "sb"};
  const verify_operand_buf *d = &x->buf[0];
  for (int o = 0; o < x->nbuf; o++) {
    const verify_operand_buf *in = &x->buf[o];
    if (!canary_intact(in))
      return verify_case_set(r, VERIFY_CASE_FAILED,
                             "%s: the kernel wrote past the end of an "
                             "operand (%s)",
                             name, buf_name[o]);
    if (o && memcmp(in->before, in->mem, in->bytes))
      return verify_case_set(r, VERIFY_CASE_FAILED, "%s: the kernel modified an input (%s)", name,
                             buf_name[o]);
  }
  if (!outside_untouched(x))
    return verify_case_set(r, VERIFY_CASE_FAILED, "%s: the kernel wrote d outside its m x n tile",
                           name);
  long bad = 0;
  int eb = tcmma_prec_bytes(d->prec);
  for (long i = 0; i < x->m; i++)
    for (long j = 0; j < x->n; j++) {
      double mag, want = verify_case_data_reference(x, i, j, &mag), tol = 0;
      const unsigned char *at = elem(x, d, d->mem, i, j);
      double got = verify_storage_get(d->prec, at);
      bool match;
      if (pass == VERIFY_PASS_INTEGER || integer_arm(x)) {
        unsigned char wb[8];
        verify_storage_put(d->prec, wb, want);
        match = memcmp(wb, at, (size_t)eb) == 0;
      } else {
        /* init scale adds three roundings (two products, one sum) in the
         * scale's arithmetic: f32, or f64 for an f64 accumulator */
        double us = x->info->acc == TCMMA_PREC_F64 ? 0x1p-53 : 0x1p-24;
        double e = (double)(x->K + 2) * unit_roundoff(x->info->acc) * mag +
                   (x->plan->call.init == TCMMA_INIT_SCALE ? 3 * us * mag : 0);
        tol = 2 * e + 2 * x->d_roundings *
                          (unit_roundoff(d->prec) * (fabs(want) + 2 * e) + tiny(d->prec));
        match = fabs(got - want) <= tol;
      }
      if (match || bad++ > 0) continue;
      if (pass == VERIFY_PASS_INTEGER || integer_arm(x))
        verify_case_set(r, VERIFY_CASE_FAILED, "%s: d[%ld][%ld] = %.9g, expected %.9g bit for bit",
                        name, i, j, got, want);
      else
        verify_case_set(r, VERIFY_CASE_FAILED, "%s: d[%ld][%ld] = %.9g, expected %.9g within %.3g",
                        name, i, j, got, want, tol);
    }
  if (bad > 1) {
    size_t n = strlen(r->reason);
    snprintf(r->reason + n, sizeof r->reason - n, "; %ld of %ld elements differ", bad, x->m * x->n);
  }
  return bad == 0;
}

bool verify_case_data_run(const verify_case *c, const tcmma_plan *plan, tcmma_case_runner run,
                          void *ctx, verify_case_result *r) {
  verify_case_data x;
  if (!verify_case_data_init(&x, c, plan, r)) return false;
  bool ok = true;
  for (int p = VERIFY_PASS_INTEGER; ok && p <= VERIFY_PASS_REAL; p++) {
    verify_case_data_fill(&x, (verify_pass)p);
    ok = run(&x, pass_name(&x, (verify_pass)p), ctx, r) && data_check(&x, (verify_pass)p, r);
  }
  bool integers = integer_arm(&x);
  verify_case_data_free(&x);
  if (ok)
    verify_case_set(r, VERIFY_CASE_PASSED,
                    integers ? "bit-exact on small and full-range integers"
                             : "bit-exact on integers, within bound on reals");
  return ok;
}
