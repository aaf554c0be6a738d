/* The epilogue ops' tensors and their C reference (tools/verify/gemm_epilogue.h).
 * Each op is written here from its definition, not from tables/epilogues.def,
 * and in f32 in the order the kernel computes it, so that the integer pass
 * (exact inputs) compares bit for bit with the same libm; the real pass
 * propagates the GEMM's error bound through each op by a Lipschitz bound. */
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include "tools/verify/data.h"
#include "tools/verify/gemm_epilogue.h"

tcmma_prec verify_gemm_out_prec(const verify_gemm_case *c) {
  int n = c->epilogue_count;
  if (n > 0 && c->epilogue[n - 1].kind == TCMMA_EPILOGUE_CVT) return c->epilogue[n - 1].prec;
  return c->call.d.prec;
}

bool verify_gemm_epilogue_libm(const verify_gemm_case *c) {
  for (int i = 0; i < c->epilogue_count; i++)
    if (c->epilogue[i].kind == TCMMA_EPILOGUE_GELU_TANH ||
        c->epilogue[i].kind == TCMMA_EPILOGUE_GELU_ERF ||
        c->epilogue[i].kind == TCMMA_EPILOGUE_SILU)
      return true;
  return false;
}

static unsigned long long step(unsigned long long *s) {
  *s ^= *s << 13, *s ^= *s >> 7, *s ^= *s << 17;
  return *s;
}

/* Elements of op o's tensor over call c; 0 for an op without one. */
static long elements(const tcmma_epilogue_op *o, const tcmma_gemm_call *c,
                     const verify_gemm_launch *l, int *eb) {
  *eb = 4;
  switch (o->kind) {
    case TCMMA_EPILOGUE_BIAS:
    case TCMMA_EPILOGUE_SCALE:
      return o->axis == TCMMA_EPILOGUE_AXIS_ROW   ? c->m
             : o->axis == TCMMA_EPILOGUE_AXIS_COL ? c->n
                                                  : 1;
    case TCMMA_EPILOGUE_RESIDUAL: /* stored like c: the whole batch at c's stride */
      *eb = tcmma_prec_bytes(c->d.prec);
      return (long)((size_t)(l->info.batch - 1) * (l->stride[3] / (size_t)*eb)) +
             (long)c->m * c->d.ld;
    case TCMMA_EPILOGUE_AMAX: return 1;
    default: return 0;
  }
}

bool verify_gemm_extras_fill(const verify_gemm_case *cs, const tcmma_gemm_call *c,
                             const verify_gemm_launch *l, bool integer, unsigned long long seed,
                             verify_gemm_extras *x) {
  memset(x, 0, sizeof *x);
  x->residual_stride = l->stride[3] / (size_t)tcmma_prec_bytes(c->d.prec);
  for (int k = 0; k < cs->epilogue_count; k++) {
    const tcmma_epilogue_op *o = &cs->epilogue[k];
    int eb;
    long n = elements(o, c, l, &eb);
    if (!n) continue;
    int b = x->n++;
    x->op[b] = k, x->bytes[b] = (size_t)n * (size_t)eb;
    x->written[b] = o->kind == TCMMA_EPILOGUE_AMAX;
    if (!(x->ptr[b] = aligned_alloc(16, (x->bytes[b] + 15) / 16 * 16)))
      return verify_gemm_extras_free(x), false;
    for (long e = 0; e < n; e++) {
      unsigned long long v = step(&seed);
      /* scales stay near 1 (an f32 product of small integers stays exact) */
      double val = integer ? (double)(long)(v % 7) - 3.0
                           : (double)(v >> 11) / 9007199254740992.0 * 2.0 - 1.0;
      if (o->kind == TCMMA_EPILOGUE_SCALE)
        val = integer ? ldexp(1, (int)(v % 3) - 1) : 0.5 + fabs(val);
      if (o->kind == TCMMA_EPILOGUE_AMAX) val = 0;
      verify_storage_put(eb == 4 ? TCMMA_PREC_F32 : c->d.prec,
                         (unsigned char *)x->ptr[b] + (size_t)e * (size_t)eb, val);
    }
  }
  return true;
}

void verify_gemm_extras_free(verify_gemm_extras *x) {
  for (int b = 0; b < x->n; b++) free(x->ptr[b]);
  memset(x, 0, sizeof *x);
}

/* The buffer of op k. */
static const void *tensor(const verify_gemm_extras *x, int k) {
  for (int b = 0; b < x->n; b++)
    if (x->op[b] == k) return x->ptr[b];
  return NULL;
}

/* The largest finite value of cvt's precision p. */
static float largest(tcmma_prec p) {
  switch (p) {
    case TCMMA_PREC_F16: return 65504.0f;
    case TCMMA_PREC_BF16: return 0x1.fep127f;
    case TCMMA_PREC_E4M3: return 448.0f;
    case TCMMA_PREC_E5M2: return 57344.0f;
    default: return 0x1.fffffep127f;
  }
}

/* Op o on v at (i, j); *lip its Lipschitz bound. */
static float apply(const tcmma_epilogue_op *o, const void *t, const tcmma_gemm_call *c,
                   size_t base, long i, long j, float v, double *lip) {
  const float *f = t;
  long ix = o->axis == TCMMA_EPILOGUE_AXIS_ROW ? i : o->axis == TCMMA_EPILOGUE_AXIS_COL ? j : 0;
  float mx = largest(o->prec);
  *lip = 1;
  switch (o->kind) {
    case TCMMA_EPILOGUE_BIAS: return v + f[ix];
    case TCMMA_EPILOGUE_RELU: return v > 0.0f ? v : 0.0f;
    case TCMMA_EPILOGUE_GELU_TANH:
      *lip = 1.2; /* max |d/dx| of the tanh form: 1.13 */
      return 0.5f * v * (1.0f + tanhf(0.7978845608f * (v + 0.044715f * v * v * v)));
    case TCMMA_EPILOGUE_GELU_ERF: *lip = 1.2; return 0.5f * v * (1.0f + erff(v * 0.70710678f));
    case TCMMA_EPILOGUE_SILU: *lip = 1.2; return v / (1.0f + expf(-v)); /* max slope 1.1 */
    case TCMMA_EPILOGUE_CLAMP: return v < o->lo ? o->lo : v > o->hi ? o->hi : v;
    case TCMMA_EPILOGUE_RESIDUAL: {
      int eb = tcmma_prec_bytes(c->d.prec);
      return v + (float)verify_storage_get(
                     c->d.prec, (const unsigned char *)t +
                                    (base + (size_t)i * (size_t)c->d.ld + (size_t)j) * (size_t)eb);
    }
    case TCMMA_EPILOGUE_SCALE: *lip = fabs(f[ix]); return v * f[ix];
    case TCMMA_EPILOGUE_CVT: return v > mx ? mx : v < -mx ? -mx : v;
    case TCMMA_EPILOGUE_HOOK: *lip = 0.5; return v * 0.5f + (float)(i - j) * 0.25f;
    default: return v; /* amax: the caller records it */
  }
}

float verify_gemm_epilogue_ref(const verify_gemm_case *cs, const tcmma_gemm_call *c,
                               const verify_gemm_extras *x, int bi, long i, long j, float x0,
                               double *e,
                               float *amax_ref, double *amax_err) {
  float v = x0;
  for (int k = 0; k < cs->epilogue_count; k++) {
    const tcmma_epilogue_op *o = &cs->epilogue[k];
    if (o->kind == TCMMA_EPILOGUE_AMAX) {
      float a = fabsf(v);
      if (a > amax_ref[k] || isnan(a)) amax_ref[k] = a;
      if (*e > amax_err[k]) amax_err[k] = *e;
      continue;
    }
    double lip;
    float w = apply(o, tensor(x, k), c, (size_t)bi * x->residual_stride, i, j, v, &lip);
    if (*e > 0) *e = lip * *e + 8 * ldexp(1, -24) * (fabs(v) + fabs(w)) + ldexp(1, -126);
    v = w;
  }
  return v;
}

bool verify_gemm_amax_check(const verify_gemm_case *cs, const verify_gemm_extras *x, bool integer,
                            const float *amax_ref, const double *amax_err, const char *pass,
                            verify_case_result *r) {
  for (int b = 0; b < x->n; b++) {
    if (!x->written[b]) continue;
    int k = x->op[b];
    float got;
    memcpy(&got, x->ptr[b], sizeof got);
    double want = amax_ref[k], tol = 2 * amax_err[k] + 16 * ldexp(1, -24) * want;
    bool ok = integer ? memcmp(&got, &amax_ref[k], sizeof got) == 0 : fabs(got - want) <= tol;
    if (!ok)
      return verify_case_set(r, VERIFY_CASE_FAILED,
                             "%s: amax of op %d (%s) is %.9g, expected "
                             "%.9g",
                             pass, k, tcmma_epilogue_name(cs->epilogue[k].kind), got, want);
  }
  return true;
}
