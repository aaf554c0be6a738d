/* One sim run of a case: inputs, the kernel on the simulated warp, and the
 * plain C reference.
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
 * is |got - ref| <= 2e + 2*(u_d*(|ref| + 2e) + tiny_d), tiny_d the
 * smallest subnormal of d's storage. */
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "tools/verify_sim.h"

enum { CANARY = 64 };

/* One kernel buffer, laid out as tcmma_kernel_operand_index says. */
typedef struct {
  const tcmma_plan *plan;
  tcmma_operand op;
  tcmma_prec prec;
  long elems;
  unsigned char *mem;
  size_t bytes;
} matrix;

static uint64_t next_random(uint64_t *s) {
  *s ^= *s << 13, *s ^= *s >> 7, *s ^= *s << 17;
  return *s;
}

static double uniform(uint64_t *s) { return (double)(next_random(s) >> 11) / 9007199254740992.0 * 2 - 1; }

static void put(tcmma_prec p, unsigned char *at, double v) {
  float f = (float)v;
  uint16_t h;
  uint8_t q;
  switch (p) {
  case TCMMA_PREC_F16: h = tcmma_sim_float2half_rn(f).bits, memcpy(at, &h, 2); break;
  case TCMMA_PREC_BF16: h = tcmma_sim_float2bfloat16_rn(f).bits, memcpy(at, &h, 2); break;
  case TCMMA_PREC_E4M3: q = tcmma_sim_float_to_e4m3(f), memcpy(at, &q, 1); break;
  case TCMMA_PREC_E5M2: q = tcmma_sim_float_to_e5m2(f), memcpy(at, &q, 1); break;
  default: memcpy(at, &f, 4); break;
  }
}

static double get(tcmma_prec p, const unsigned char *at) {
  uint16_t h;
  float f;
  switch (p) {
  case TCMMA_PREC_F16: memcpy(&h, at, 2); return tcmma_sim_half2float((tcmma_sim_half){h});
  case TCMMA_PREC_BF16: memcpy(&h, at, 2); return tcmma_sim_bfloat162float((tcmma_sim_bfloat16){h});
  case TCMMA_PREC_E4M3: return tcmma_sim_e4m3_to_float(*at);
  case TCMMA_PREC_E5M2: return tcmma_sim_e5m2_to_float(*at);
  default: memcpy(&f, at, 4); return f;
  }
}

/* v rounded to storage precision p. */
static double stored(tcmma_prec p, double v) {
  unsigned char b[4];
  put(p, b, v);
  return get(p, b);
}

static double exact_limit(tcmma_prec p) {
  return p == TCMMA_PREC_F16 ? 2048 : p == TCMMA_PREC_BF16 ? 256 : 16777216;
}

static double unit_roundoff(tcmma_prec p) {
  return p == TCMMA_PREC_F16 ? 0x1p-11 : p == TCMMA_PREC_BF16 ? 0x1p-8 : 0x1p-24;
}

static double tiny(tcmma_prec p) {
  return p == TCMMA_PREC_F16 ? 0x1p-24 : p == TCMMA_PREC_BF16 ? 0x1p-133 : 0x1p-149;
}

/* Every byte 0xff: NaN in every storage format, so a kernel that reads
 * outside its tiles (padding past a row, a wrong step) poisons its result. */
static bool alloc_matrix(matrix *x, const tcmma_plan *plan, int outer, tcmma_operand op) {
  const tcmma_call *call = &plan->call;
  x->plan = plan, x->op = op;
  x->prec = op == TCMMA_OPERAND_A ? call->a.prec : op == TCMMA_OPERAND_B ? call->b.prec : call->d.prec;
  x->elems = tcmma_kernel_operand_elems(plan, outer, op);
  if (x->elems <= 0) return false;
  x->bytes = (size_t)x->elems * (size_t)tcmma_prec_bytes(x->prec);
  size_t total = (x->bytes + CANARY + 255) / 256 * 256;
  x->mem = aligned_alloc(256, total);
  if (!x->mem) return false;
  memset(x->mem, 0xff, x->bytes);
  memset(x->mem + x->bytes, 0x5a, total - x->bytes);
  return true;
}

/* Element (r, c) of the role over the whole outer reduction (d: m x n,
 * a: m x K, b: K x n): tile step c / k of a (r / k of b). */
static unsigned char *elem(const matrix *x, long r, long c) {
  long k = x->plan->call.k, step = 0;
  if (x->op == TCMMA_OPERAND_A) step = c / k, c %= k;
  if (x->op == TCMMA_OPERAND_B) step = r / k, r %= k;
  long at = tcmma_kernel_operand_index(x->plan, x->op, (int)step, r, c);
  return at < 0 ? NULL : x->mem + (size_t)at * (size_t)tcmma_prec_bytes(x->prec);
}

typedef struct {
  const tcmma_case *c;
  const tcmma_plan *plan;
  const tcmma_arm_info *info;
  long m, n, K;
  matrix d, a, b;
  bool tf32; /* the arm rounds f32 operands to tf32 */
  int d_roundings; /* statement scope stores d after every step */
} run_ctx;

static double operand(const run_ctx *x, const matrix *mat, long r, long c) {
  double v = get(mat->prec, elem(mat, r, c));
  return x->tf32 ? tcmma_sim_float_to_tf32((float)v) : v;
}

static void fill_integers(run_ctx *x, uint64_t *seed) {
  const tcmma_call *call = &x->plan->call;
  double limit = fmin(exact_limit(x->info->acc), exact_limit(call->d.prec));
  int v = 3, w = (int)fmin(8, limit / 4);
  long nnz = (long)((limit - w) / (v * v));
  for (long i = 0; i < x->m; i++) {
    /* at most nnz nonzeros in this row of a, at random positions */
    for (long k = 0; k < x->K; k++) put(x->a.prec, elem(&x->a, i, k), 0);
    long placed = 0;
    for (long k = 0; k < x->K; k++) {
      bool take = x->K <= nnz || (long)(next_random(seed) % (uint64_t)(x->K - k)) < nnz - placed;
      if (!take) continue;
      placed++;
      put(x->a.prec, elem(&x->a, i, k),
          (double)((long)(next_random(seed) % (uint64_t)(2 * v + 1)) - v));
    }
  }
  for (long k = 0; k < x->K; k++)
    for (long j = 0; j < x->n; j++)
      put(x->b.prec, elem(&x->b, k, j),
          (double)((long)(next_random(seed) % (uint64_t)(2 * v + 1)) - v));
  for (long i = 0; i < x->m; i++)
    for (long j = 0; j < x->n; j++)
      put(x->d.prec, elem(&x->d, i, j),
          (double)((long)(next_random(seed) % (uint64_t)(2 * w + 1)) - w));
}

static void fill_reals(run_ctx *x, uint64_t *seed) {
  for (long i = 0; i < x->m; i++)
    for (long k = 0; k < x->K; k++)
      put(x->a.prec, elem(&x->a, i, k), uniform(seed));
  for (long k = 0; k < x->K; k++)
    for (long j = 0; j < x->n; j++)
      put(x->b.prec, elem(&x->b, k, j), uniform(seed));
  for (long i = 0; i < x->m; i++)
    for (long j = 0; j < x->n; j++)
      put(x->d.prec, elem(&x->d, i, j), uniform(seed));
}

/* The reference for d[i][j]: d0 plus the products in order, each sum
 * rounded to the accumulator's precision; *mag gets S (see the top). */
static double reference(const run_ctx *x, const matrix *d0, long i, long j, double *mag) {
  const tcmma_call *call = &x->plan->call;
  double d = get(d0->prec, elem(d0, i, j));
  double acc = d, s = fabs(d);
  for (long k = 0; k < x->K; k++) {
    double p = operand(x, &x->a, i, k) *
               operand(x, &x->b, k, j);
    s += fabs(p);
    acc = x->info->acc == TCMMA_PREC_F16 ? stored(TCMMA_PREC_F16, acc + p) : (float)(acc + p);
  }
  *mag = s;
  return stored(call->d.prec, acc);
}

static bool case_fail(tcmma_case_result *r, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static bool case_fail(tcmma_case_result *r, const char *fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  r->outcome = TCMMA_CASE_FAILED;
  vsnprintf(r->reason, sizeof r->reason, fmt, ap);
  va_end(ap);
  return false;
}

static bool canary_intact(const matrix *x) {
  for (size_t i = 0; i < CANARY; i++)
    if (x->mem[x->bytes + i] != 0x5a) return false;
  return true;
}

/* Whether every byte of d that is no element of the tile (row padding) is
 * still 0xff. */
static bool outside_untouched(const run_ctx *x) {
  int eb = tcmma_prec_bytes(x->d.prec);
  unsigned char *mine = calloc((size_t)x->d.elems, 1);
  if (!mine) return true;
  for (long i = 0; i < x->m; i++)
    for (long j = 0; j < x->n; j++) {
      const unsigned char *at = elem(&x->d, i, j);
      if (at) mine[(at - x->d.mem) / eb] = 1;
    }
  bool ok = true;
  for (long e = 0; ok && e < x->d.elems; e++)
    for (int b = 0; !mine[e] && b < eb; b++) ok = x->d.mem[e * eb + b] == 0xff;
  free(mine);
  return ok;
}

/* One pass: fill, run, compare. */
static bool run_pass(run_ctx *x, sim_entry entry, bool integers, tcmma_case_result *r) {
  uint64_t seed = 0x9e3779b97f4a7c15ull ^ (integers ? 1 : 2);
  for (const char *s = x->c->name; *s; s++) seed = (seed ^ (unsigned char)*s) * 0x100000001b3ull;
  if (!seed) seed = 1;
  if (integers) fill_integers(x, &seed);
  else fill_reals(x, &seed);
  matrix d0 = x->d, a0 = x->a, b0 = x->b;
  d0.mem = malloc(x->d.bytes), a0.mem = malloc(x->a.bytes), b0.mem = malloc(x->b.bytes);
  if (!d0.mem || !a0.mem || !b0.mem) {
    free(d0.mem), free(a0.mem), free(b0.mem);
    return case_fail(r, "out of memory");
  }
  memcpy(d0.mem, x->d.mem, x->d.bytes);
  memcpy(a0.mem, x->a.mem, x->a.bytes);
  memcpy(b0.mem, x->b.mem, x->b.bytes);
  const char *pass = integers ? "integer pass" : "real pass";
  void *args[3] = {x->d.mem, x->a.mem, x->b.mem};
  tcmma_error err;
  tcmma_error_clear(&err);
  bool ok = true;
  if (tcmma_sim_launch(entry, args, &err) != TCMMA_OK) ok = case_fail(r, "%s: simulator: %s", pass, err.message);
  else if (!canary_intact(&x->d) || !canary_intact(&x->a) || !canary_intact(&x->b))
    ok = case_fail(r, "%s: the kernel wrote past the end of an operand", pass);
  else if (memcmp(a0.mem, x->a.mem, x->a.bytes) || memcmp(b0.mem, x->b.mem, x->b.bytes))
    ok = case_fail(r, "%s: the kernel modified an input (a or b)", pass);
  if (ok && !outside_untouched(x)) ok = case_fail(r, "%s: the kernel wrote d outside its m x n tile", pass);
  const tcmma_call *call = &x->plan->call;
  long bad = 0;
  for (long i = 0; ok && i < x->m; i++)
    for (long j = 0; j < x->n; j++) {
      double mag, want = reference(x, &d0, i, j, &mag);
      const unsigned char *at = elem(&x->d, i, j);
      double got = get(x->d.prec, at);
      bool match;
      double tol = 0;
      if (integers) {
        unsigned char wb[4];
        put(x->d.prec, wb, want);
        match = memcmp(wb, at, (size_t)tcmma_prec_bytes(x->d.prec)) == 0;
      } else {
        double e = (double)(x->K + 2) * unit_roundoff(x->info->acc) * mag;
        tol = 2 * e + 2 * x->d_roundings *
                          (unit_roundoff(call->d.prec) * (fabs(want) + 2 * e) + tiny(call->d.prec));
        match = fabs(got - want) <= tol;
      }
      if (match) continue;
      if (bad++ > 0) continue;
      if (integers) case_fail(r, "%s: d[%ld][%ld] = %.9g, expected %.9g bit for bit", pass, i, j, got, want);
      else case_fail(r, "%s: d[%ld][%ld] = %.9g, expected %.9g within %.3g", pass, i, j, got, want, tol);
    }
  if (bad > 1) {
    size_t n = strlen(r->reason);
    snprintf(r->reason + n, sizeof r->reason - n, "; %ld of %ld elements differ", bad, x->m * x->n);
  }
  free(d0.mem), free(a0.mem), free(b0.mem);
  return ok && bad == 0;
}

/* Back to all-0xff between the passes, so padding stays poisoned. */
static bool reset(run_ctx *x) {
  memset(x->d.mem, 0xff, x->d.bytes);
  memset(x->a.mem, 0xff, x->a.bytes);
  memset(x->b.mem, 0xff, x->b.bytes);
  return true;
}

void sim_run_case(const tcmma_case *c, const tcmma_plan *plan, sim_entry entry,
                  tcmma_case_result *r) {
  run_ctx x = {c, plan, tcmma_arm_get(plan->arm)};
  const tcmma_call *call = &plan->call;
  x.m = call->m, x.n = call->n;
  x.K = (long)call->k * c->outer;
  x.d_roundings = call->scope == TCMMA_SCOPE_FRAGMENT ? 1 : c->outer;
  x.tf32 = strstr(x.info->frag_elem, "tf32") != NULL;
  bool ok = alloc_matrix(&x.d, plan, c->outer, TCMMA_OPERAND_C) &&
            alloc_matrix(&x.a, plan, c->outer, TCMMA_OPERAND_A) &&
            alloc_matrix(&x.b, plan, c->outer, TCMMA_OPERAND_B);
  if (!ok) case_fail(r, "out of memory");
  else if (run_pass(&x, entry, true, r) && reset(&x) && run_pass(&x, entry, false, r)) {
    r->outcome = TCMMA_CASE_PASSED;
    snprintf(r->reason, sizeof r->reason, "bit-exact on integers, within bound on reals");
  }
  free(x.d.mem), free(x.a.mem), free(x.b.mem);
}
