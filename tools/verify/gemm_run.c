/* One run of a GEMM case (tools/verify/gemm.h): buffers with poisoned
 * padding and canaries, integer and real inputs, the plain C reference and
 * the comparison, and the simulator's runner. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "tcmma/sim.h"
#include "tools/verify/data.h"
#include "tools/verify/gemm_epilogue.h"
#include "tools/verify/sim.h"

enum { D_BUF, A_BUF, B_BUF, C_BUF };

typedef struct {
  tcmma_prec prec;
  long rows, cols, ld;  /* as stored */
  size_t bytes;         /* rows * ld elements, then the canary */
  unsigned char *mem, *before;
} gbuf;

typedef struct {
  const tcmma_gemm_call *call;
  tcmma_prec out;       /* d's stored precision (cvt's) */
  bool exact_libm;      /* the kernel's tanhf, erff, expf are the reference's (sim) */
  verify_gemm_extras x; /* the epilogue's tensors */
  gbuf b[4];
  double *c0;           /* C's values (storage-rounded), m x n */
  unsigned long long seed;
} gdata;

static unsigned long long next(unsigned long long *s) {
  *s ^= *s << 13, *s ^= *s >> 7, *s ^= *s << 17;
  return *s;
}

static bool buf_init(gbuf *g, tcmma_prec prec, long rows, long cols, long ld) {
  g->prec = prec, g->rows = rows, g->cols = cols, g->ld = ld;
  size_t eb = (size_t)tcmma_prec_bytes(prec);
  g->bytes = (size_t)rows * (size_t)ld * eb;
  /* 16-byte aligned for the kernel's vector copies */
  g->mem = aligned_alloc(16, (g->bytes + VERIFY_CANARY_BYTES + 15) / 16 * 16);
  g->before = malloc(g->bytes + VERIFY_CANARY_BYTES);
  return g->mem && g->before;
}

static unsigned char *at(const gbuf *g, unsigned char *mem, long r, long c) {
  return mem + ((size_t)r * (size_t)g->ld + (size_t)c) * (size_t)tcmma_prec_bytes(g->prec);
}

/* The stored element of role (i, j) of operand buffer k. */
static unsigned char *role_at(const gdata *x, int k, unsigned char *mem, long i, long j) {
  bool t = k == A_BUF ? x->call->a.transposed : k == B_BUF ? x->call->b.transposed : false;
  return t ? at(&x->b[k], mem, j, i) : at(&x->b[k], mem, i, j);
}

/* Poisons every byte (0xff: NaN in every format) and fills the stored
 * elements: integers in [-3, 3] or reals in [-1, 1]. */
static void fill(gdata *x, int k, verify_pass pass) {
  gbuf *g = &x->b[k];
  memset(g->mem, 0xff, g->bytes + VERIFY_CANARY_BYTES);
  for (long r = 0; r < g->rows; r++)
    for (long c = 0; c < g->cols; c++) {
      unsigned long long v = next(&x->seed);
      double val = pass == VERIFY_PASS_INTEGER ? (double)(long)(v % 7) - 3.0
                                               : (double)(v >> 11) / 9007199254740992.0 * 2.0 - 1.0;
      verify_storage_put(g->prec, at(g, g->mem, r, c), val);
    }
  memcpy(g->before, g->mem, g->bytes + VERIFY_CANARY_BYTES);
}

/* u (unit roundoff) and the smallest subnormal of d's storage. */
static void storage_units(tcmma_prec p, double *u, double *tiny) {
  int bits = tcmma_prec_bits(p);
  if (p == TCMMA_PREC_F32) *u = ldexp(1, -24), *tiny = ldexp(1, -149);
  else if (p == TCMMA_PREC_BF16) *u = ldexp(1, -8), *tiny = ldexp(1, -133);
  else if (p == TCMMA_PREC_F16) *u = ldexp(1, -11), *tiny = ldexp(1, -24);
  else *u = ldexp(1, -(bits / 4)), *tiny = ldexp(1, -16); /* 8-bit d: coarse but safe */
}

static bool compare(const verify_gemm_case *cs, gdata *x, verify_pass pass, verify_case_result *r) {
  const tcmma_gemm_call *c = x->call;
  const char *pn = pass == VERIFY_PASS_INTEGER ? "integer pass" : "real pass";
  /* integers bit for bit, but through another libm (a GPU's) within a bound
   * that starts at the smallest normal: docs/verify.md */
  bool exact = pass == VERIFY_PASS_INTEGER && (x->exact_libm || !verify_gemm_epilogue_libm(cs));
  /* a, b, c untouched; canaries intact */
  for (int k = A_BUF; k <= C_BUF; k++)
    if (x->b[k].mem && memcmp(x->b[k].mem, x->b[k].before, x->b[k].bytes + VERIFY_CANARY_BYTES))
      return verify_case_set(r, VERIFY_CASE_FAILED, "%s: the kernel wrote into %s", pn,
                             k == A_BUF   ? "a"
                             : k == B_BUF ? "b"
                                          : "c");
  gbuf *d = &x->b[D_BUF];
  if (memcmp(d->mem + d->bytes, d->before + d->bytes, VERIFY_CANARY_BYTES))
    return verify_case_set(r, VERIFY_CASE_FAILED, "%s: the kernel wrote past d's buffer", pn);
  for (long i = 0; i < d->rows; i++)
    for (long j = c->n; j < d->ld; j++)
      if (memcmp(at(d, d->mem, i, j), at(d, d->before, i, j), (size_t)tcmma_prec_bytes(d->prec)))
        return verify_case_set(r, VERIFY_CASE_FAILED,
                               "%s: the kernel wrote d's padding at (%ld, "
                               "%ld)",
                               pn, i, j);
  double u_d, tiny;
  storage_units(x->out, &u_d, &tiny);
  float amax_ref[TCMMA_EPILOGUE_OPS_MAX] = {0};
  double amax_err[TCMMA_EPILOGUE_OPS_MAX] = {0};
  long bad = 0;
  char first[300] = "";
  for (long i = 0; i < c->m; i++)
    for (long j = 0; j < c->n; j++) {
      double sum = 0, mag = 0;
      for (long k = 0; k < c->k; k++) {
        double p = verify_storage_get(c->a.prec, role_at(x, A_BUF, x->b[A_BUF].mem, i, k)) *
                   verify_storage_get(c->b.prec, role_at(x, B_BUF, x->b[B_BUF].mem, k, j));
        sum += p, mag += fabs(p);
      }
      double c0 = x->c0[i * c->n + j];
      double ref = cs->alpha * sum + (cs->beta != 0 ? cs->beta * c0 : 0);
      double s = fabs(cs->alpha) * mag + fabs(cs->beta) * fabs(c0);
      /* docs/verify.md: every partial sum rounds at f32 (u = 2^-24), the
       * scale's f32 arithmetic adds 3 more, d rounds once */
      double e = pass == VERIFY_PASS_INTEGER ? (exact ? 0 : ldexp(1, -126))
                                             : (double)(c->k + 2 + 3) * ldexp(1, -24) * s;
      if (cs->epilogue_count) {
        /* the kernel's f32 x, then the ops (exact inputs: x as the kernel has it) */
        float cx = cs->beta != 0 ? (float)cs->beta * (float)c0 : 0.0f;
        float x0 = pass == VERIFY_PASS_INTEGER ? (float)cs->alpha * (float)sum + cx : (float)ref;
        ref = verify_gemm_epilogue_ref(cs, c, &x->x, i, j, x0, &e, amax_ref, amax_err);
      }
      unsigned char want[8];
      verify_storage_put(x->out, want, ref);
      double got = verify_storage_get(x->out, at(d, d->mem, i, j));
      bool ok;
      if (exact)
        ok = memcmp(want, at(d, d->mem, i, j), (size_t)tcmma_prec_bytes(x->out)) == 0;
      else
        ok = fabs(got - ref) <= 2 * e + 2 * (u_d * (fabs(ref) + 2 * e) + tiny);
      if (!ok && bad++ == 0)
        snprintf(first, sizeof first, "d[%ld][%ld] = %.9g, expected %.9g", i, j, got, ref);
    }
  if (bad)
    return verify_case_set(r, VERIFY_CASE_FAILED, "%s: %s (%ld of %ld elements differ)", pn, first,
                           bad, (long)c->m * c->n);
  return verify_gemm_amax_check(cs, &x->x, exact, amax_ref, amax_err, pn, r);
}

static void data_free(gdata *x) {
  for (int k = 0; k < 4; k++) free(x->b[k].mem), free(x->b[k].before);
  free(x->c0);
  verify_gemm_extras_free(&x->x);
}

bool verify_gemm_case_run(const verify_gemm_case *cs, const tcmma_gemm_plan *plan,
                          tcmma_gemm_runner run, void *ctx, verify_case_result *r) {
  const tcmma_gemm_call *c = &plan->call;
  gdata x;
  memset(&x, 0, sizeof x);
  x.call = c;
  x.out = verify_gemm_out_prec(cs);
  x.exact_libm = run == verify_gemm_sim_runner;
  long ar = c->a.transposed ? c->k : c->m, ac = c->a.transposed ? c->m : c->k;
  long br = c->b.transposed ? c->n : c->k, bc = c->b.transposed ? c->k : c->n;
  bool ok = buf_init(&x.b[D_BUF], x.out, c->m, c->n, c->d.ld) &&
            buf_init(&x.b[A_BUF], c->a.prec, ar, ac, c->a.ld) &&
            buf_init(&x.b[B_BUF], c->b.prec, br, bc, c->b.ld) &&
            (cs->c_is_d || buf_init(&x.b[C_BUF], c->d.prec, c->m, c->n, c->d.ld)) &&
            (x.c0 = malloc(sizeof *x.c0 * (size_t)c->m * (size_t)c->n));
  if (!ok) {
    data_free(&x);
    return verify_case_set(r, VERIFY_CASE_FAILED, "no memory for the buffers");
  }
  static const verify_pass passes[2] = {VERIFY_PASS_INTEGER, VERIFY_PASS_REAL};
  for (int p = 0; p < 2 && ok; p++) {
    x.seed = 0x9e3779b97f4a7c15ull;
    for (const char *s = cs->name; *s; s++) x.seed = (x.seed ^ (unsigned char)*s) * 0x100000001b3ull;
    x.seed += (unsigned long long)p + 1;
    for (int k = A_BUF; k <= C_BUF; k++)
      if (x.b[k].mem) fill(&x, k, passes[p]);
    fill(&x, D_BUF, passes[p]); /* C's values when C is D; else poison the kernel overwrites */
    verify_gemm_extras_free(&x.x);
    if (!verify_gemm_extras_fill(cs, c, passes[p] == VERIFY_PASS_INTEGER, x.seed, &x.x)) {
      ok = verify_case_set(r, VERIFY_CASE_FAILED, "no memory for the epilogue's tensors");
      break;
    }
    const gbuf *cb = cs->c_is_d ? &x.b[D_BUF] : &x.b[C_BUF];
    for (long i = 0; i < c->m; i++)
      for (long j = 0; j < c->n; j++)
        x.c0[i * c->n + j] = verify_storage_get(c->d.prec, at(cb, cb->mem, i, j));
    void *bufs[4] = {x.b[D_BUF].mem, x.b[A_BUF].mem, x.b[B_BUF].mem,
                     cs->c_is_d ? x.b[D_BUF].mem : x.b[C_BUF].mem};
    char why[400] = "";
    if (!run(ctx, plan, bufs, &x.x, (float)cs->alpha, (float)cs->beta, why, sizeof why)) {
      ok = verify_case_set(r, VERIFY_CASE_FAILED, "%s: %s", p ? "real pass" : "integer pass", why);
      break;
    }
    ok = compare(cs, &x, passes[p], r);
  }
  data_free(&x);
  if (ok) verify_case_set(r, VERIFY_CASE_PASSED, "passed");
  return ok;
}

bool verify_gemm_sim_runner(void *ctx, const tcmma_gemm_plan *plan, void *const bufs[4],
                            const verify_gemm_extras *x, float alpha, float beta, char *why,
                            size_t cap) {
  void *args[6 + TCMMA_EPILOGUE_OPS_MAX] = {bufs[0], bufs[1], bufs[2], bufs[3], &alpha, &beta};
  for (int i = 0; i < x->n; i++) args[6 + i] = x->ptr[i];
  tcmma_sim_config cfg = TCMMA_SIM_CONFIG_INIT({plan->grid[0], plan->grid[1], plan->grid[2]},
                          {(unsigned)plan->threads, 1, 1}, plan->shared_bytes, NULL, 0);
  tcmma_error err = {0};
  if (tcmma_sim_launch_grid(*(sim_entry *)ctx, args, &cfg, &err) == TCMMA_OK) return true;
  snprintf(why, cap, "simulator: %s", err.message);
  return false;
}
