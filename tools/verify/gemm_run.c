/* One run of a GEMM case (tools/verify/gemm.h): buffers with poisoned
 * padding and canaries, integer and real inputs, the plain C reference and
 * the comparison, and the simulator's runner. */
#include <math.h>
#include <stdint.h>
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
  int pack;             /* elements a byte (packed fp4: 2, the lower column low) */
  long rows, cols, ld;  /* one matrix as stored */
  int count;            /* matrices: the batch */
  size_t stride;        /* elements from one matrix to the next */
  size_t bytes;         /* the whole batch, then the canary */
  unsigned char *mem, *before;
} gbuf;

typedef struct {
  const tcmma_gemm_call *call;
  tcmma_prec out;       /* d's stored precision (cvt's) */
  bool exact_libm;      /* the kernel's tanhf, erff, expf are the reference's (sim) */
  verify_gemm_extras x; /* the epilogue's tensors */
  gbuf b[4];
  verify_gemm_scales s; /* a block-scaled plan's sfa, sfb */
  double *c0;           /* C's values (storage-rounded), batch x m x n */
  int batch;            /* matrices */
  unsigned long long seed;
} gdata;

static unsigned long long next(unsigned long long *s) {
  *s ^= *s << 13, *s ^= *s >> 7, *s ^= *s << 17;
  return *s;
}

static bool buf_init(gbuf *g, tcmma_prec prec, int pack, long rows, long cols, long ld,
                     int count, size_t stride_bytes) {
  g->prec = prec, g->pack = pack, g->rows = rows, g->cols = cols, g->ld = ld, g->count = count;
  size_t eb = (size_t)tcmma_prec_bytes(prec);
  g->stride = stride_bytes / eb * (size_t)pack;
  g->bytes = ((size_t)(count - 1) * g->stride + (size_t)rows * (size_t)ld) * eb / (size_t)pack;
  /* 16-byte aligned for the kernel's vector copies */
  g->mem = aligned_alloc(16, (g->bytes + VERIFY_CANARY_BYTES + 15) / 16 * 16);
  g->before = malloc(g->bytes + VERIFY_CANARY_BYTES);
  return g->mem && g->before;
}

/* The byte holding element (r, c) of matrix bi (of a packed buffer: its
 * nibble c % pack). */
static unsigned char *at(const gbuf *g, unsigned char *mem, int bi, long r, long c) {
  return mem + ((size_t)bi * g->stride + (size_t)r * (size_t)g->ld + (size_t)c) /
                   (size_t)g->pack * (size_t)tcmma_prec_bytes(g->prec);
}

/* Element (r, c)'s value; put stores v there (a packed element in its
 * nibble, the other left alone). */
static double get(const gbuf *g, const unsigned char *mem, int bi, long r, long c) {
  const unsigned char *p = at(g, (unsigned char *)mem, bi, r, c);
  if (g->pack == 1) return verify_storage_get(g->prec, p);
  unsigned char code = (unsigned char)(*p >> (8 / g->pack * (int)(c % g->pack)) & 0xf);
  return verify_storage_get(g->prec, &code);
}
static void put(const gbuf *g, int bi, long r, long c, double v) {
  unsigned char *p = at(g, g->mem, bi, r, c), code[8];
  if (g->pack == 1) {
    verify_storage_put(g->prec, p, v);
    return;
  }
  verify_storage_put(g->prec, code, v);
  int sh = 8 / g->pack * (int)(c % g->pack);
  *p = (unsigned char)((*p & ~(0xf << sh)) | (code[0] & 0xf) << sh);
}

/* The value of role (i, j) of operand buffer k's matrix bi. */
static double role_get(const gdata *x, int k, int bi, long i, long j) {
  bool t = k == A_BUF ? x->call->a.transposed : k == B_BUF ? x->call->b.transposed : false;
  return t ? get(&x->b[k], x->b[k].mem, bi, j, i) : get(&x->b[k], x->b[k].mem, bi, i, j);
}

/* Poisons every byte (0xff: NaN in every format) and fills the stored
 * elements of every matrix: integers in [-3, 3] or reals in [-1, 1]. */
static void fill(gdata *x, int k, verify_pass pass) {
  gbuf *g = &x->b[k];
  memset(g->mem, 0xff, g->bytes + VERIFY_CANARY_BYTES);
  for (int bi = 0; bi < g->count; bi++)
    for (long r = 0; r < g->rows; r++)
      for (long c = 0; c < g->cols; c++) {
        unsigned long long v = next(&x->seed);
        double val = pass == VERIFY_PASS_INTEGER
                         ? (double)(long)(v % 7) - 3.0
                         : (double)(v >> 11) / 9007199254740992.0 * 2.0 - 1.0;
        put(g, bi, r, c, val);
      }
  memcpy(g->before, g->mem, g->bytes + VERIFY_CANARY_BYTES);
}

/* u (unit roundoff) and the smallest subnormal of d's storage. */
static void storage_units(tcmma_prec p, double *u, double *tiny) {
  int bits = tcmma_prec_bits(p);
  if (p == TCMMA_PREC_F32) *u = ldexp(1, -24), *tiny = ldexp(1, -149);
  else if (p == TCMMA_PREC_BF16) *u = ldexp(1, -8), *tiny = ldexp(1, -133);
  else if (p == TCMMA_PREC_F16) *u = ldexp(1, -11), *tiny = ldexp(1, -24);
  /* 8-bit d: u coarse but safe; tiny its subnormals' spacing (e4m3's is
   * 2^-9: a value under 2^-10 stores as 0) */
  else *u = ldexp(1, -(bits / 4)), *tiny = ldexp(1, p == TCMMA_PREC_E4M3 ? -9 : -16);
}

/* Whether the kernel wrote d's buffer only at the batch's m x n elements:
 * the buffer as it was, with those elements taken from the kernel's, is
 * the kernel's byte for byte (padding, gaps between matrices, canary). */
static bool d_written_inside(gdata *x, const char *pn, verify_case_result *r) {
  const tcmma_gemm_call *c = x->call;
  gbuf *d = &x->b[D_BUF];
  size_t eb = (size_t)tcmma_prec_bytes(d->prec), all = d->bytes + VERIFY_CANARY_BYTES;
  unsigned char *want = malloc(all);
  if (!want) return verify_case_set(r, VERIFY_CASE_FAILED, "no memory for the check");
  memcpy(want, d->before, all);
  for (int bi = 0; bi < d->count; bi++)
    for (long i = 0; i < c->m; i++)
      memcpy(at(d, want, bi, i, 0), at(d, d->mem, bi, i, 0), (size_t)c->n * eb);
  size_t o = 0;
  while (o < all && want[o] == d->mem[o]) o++;
  free(want);
  if (o == all) return true;
  if (o >= d->bytes)
    return verify_case_set(r, VERIFY_CASE_FAILED, "%s: the kernel wrote past d's buffer", pn);
  size_t e = o / eb, bi = e / d->stride, rem = e % d->stride;
  return verify_case_set(r, VERIFY_CASE_FAILED, "%s: the kernel wrote d's padding at (%zu, %zu) "
                         "of matrix %zu (element %zu past its start)", pn, rem / (size_t)d->ld,
                         rem % (size_t)d->ld, bi, rem);
}

/* What compare_matrix reads and raises: the pass, whether it compares
 * bit for bit, and the amax ops' running reference over the whole batch. */
typedef struct {
  verify_pass pass;
  bool exact;
  float amax_ref[TCMMA_EPILOGUE_OPS_MAX];
  double amax_err[TCMMA_EPILOGUE_OPS_MAX];
} gcheck;

/* d's elements of matrix bi against the reference (the kernel's f32 x, then
 * the epilogue's ops); counts the bad ones into *bad, the first into first. */
static void compare_matrix(const verify_gemm_case *cs, gdata *x, int bi, gcheck *k, long *bad,
                           char *first, size_t cap) {
  const tcmma_gemm_call *c = x->call;
  gbuf *d = &x->b[D_BUF];
  double u_d, tiny;
  storage_units(x->out, &u_d, &tiny);
  for (long i = 0; i < c->m; i++)
    for (long j = 0; j < c->n; j++) {
      double sum = 0, mag = 0;
      for (long kk = 0; kk < c->k; kk++) {
        /* block scales: each product times its k block's scales of row i and column j */
        double p = role_get(x, A_BUF, bi, i, kk) * role_get(x, B_BUF, bi, kk, j) *
                   verify_gemm_scale(&x->s, 0, bi, i, kk) * verify_gemm_scale(&x->s, 1, bi, j, kk);
        sum += p, mag += fabs(p);
      }
      double c0 = x->c0[((size_t)bi * c->m + i) * c->n + j];
      double ref = cs->alpha * sum + (cs->beta != 0 ? cs->beta * c0 : 0);
      double s = fabs(cs->alpha) * mag + fabs(cs->beta) * fabs(c0);
      /* docs/verify.md: every partial sum rounds at f32 (u = 2^-24), the
       * scale's f32 arithmetic adds 3 more, d rounds once (split-K's sum of
       * slices is more additions of the same k - 1) */
      double e = k->pass == VERIFY_PASS_INTEGER ? (k->exact ? 0 : ldexp(1, -126))
                                                : (double)(c->k + 2 + 3) * ldexp(1, -24) * s;
      if (cs->epilogue_count) {
        /* the kernel's f32 x, then the ops (exact inputs: x as the kernel has it) */
        float cx = cs->beta != 0 ? (float)cs->beta * (float)c0 : 0.0f;
        float x0 = k->pass == VERIFY_PASS_INTEGER ? (float)cs->alpha * (float)sum + cx : (float)ref;
        ref = verify_gemm_epilogue_ref(cs, c, &x->x, bi, i, j, x0, &e, k->amax_ref, k->amax_err);
      }
      unsigned char want[8];
      verify_storage_put(x->out, want, ref);
      double got = verify_storage_get(x->out, at(d, d->mem, bi, i, j));
      bool ok;
      if (k->exact)
        ok = memcmp(want, at(d, d->mem, bi, i, j), (size_t)tcmma_prec_bytes(x->out)) == 0;
      else
        ok = fabs(got - ref) <= 2 * e + 2 * (u_d * (fabs(ref) + 2 * e) + tiny);
      if (!ok && (*bad)++ == 0)
        snprintf(first, cap, "d[%d][%ld][%ld] = %.9g, expected %.9g", bi, i, j, got, ref);
    }
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
  if (!verify_gemm_scales_intact(&x->s))
    return verify_case_set(r, VERIFY_CASE_FAILED, "%s: the kernel wrote into sfa or sfb", pn);
  if (!d_written_inside(x, pn, r)) return false;
  long bad = 0;
  char first[300] = "";
  gcheck k = {pass, exact, {0}, {0}};
  for (int bi = 0; bi < x->batch; bi++) compare_matrix(cs, x, bi, &k, &bad, first, sizeof first);
  if (bad)
    return verify_case_set(r, VERIFY_CASE_FAILED, "%s: %s (%ld of %ld elements differ)", pn, first,
                           bad, (long)x->batch * c->m * c->n);
  return verify_gemm_amax_check(cs, &x->x, exact, k.amax_ref, k.amax_err, pn, r);
}

static void data_free(gdata *x) {
  for (int k = 0; k < 4; k++) free(x->b[k].mem), free(x->b[k].before);
  free(x->c0);
  verify_gemm_scales_free(&x->s);
  verify_gemm_extras_free(&x->x);
}

/* The buffers of a run of plan's call over l's batch. */
static bool data_init(gdata *x, const verify_gemm_case *cs, const tcmma_gemm_call *c,
                      const verify_gemm_launch *l) {
  memset(x, 0, sizeof *x);
  x->call = c, x->batch = l->info.batch;
  x->out = verify_gemm_out_prec(cs);
  int nb = x->batch, pk = l->info.pack;
  long ar = c->a.transposed ? c->k : c->m, ac = c->a.transposed ? c->m : c->k;
  long br = c->b.transposed ? c->n : c->k, bc = c->b.transposed ? c->k : c->n;
  return buf_init(&x->b[D_BUF], x->out, 1, c->m, c->n, c->d.ld, nb, l->stride[D_BUF]) &&
         buf_init(&x->b[A_BUF], c->a.prec, pk, ar, ac, c->a.ld, nb, l->stride[A_BUF]) &&
         buf_init(&x->b[B_BUF], c->b.prec, pk, br, bc, c->b.ld, nb, l->stride[B_BUF]) &&
         (cs->c_is_d ||
          buf_init(&x->b[C_BUF], c->d.prec, 1, c->m, c->n, c->d.ld, nb, l->stride[C_BUF])) &&
         verify_gemm_scales_init(&x->s, c, &l->info) &&
         (x->c0 = malloc(sizeof *x->c0 * (size_t)nb * (size_t)c->m * (size_t)c->n));
}

/* Fills pass p's inputs (seeded by the case's name) and keeps C's values. */
static void data_fill(gdata *x, const verify_gemm_case *cs, int p, verify_pass pass) {
  const tcmma_gemm_call *c = x->call;
  x->seed = 0x9e3779b97f4a7c15ull;
  for (const char *s = cs->name; *s; s++) x->seed = (x->seed ^ (unsigned char)*s) * 0x100000001b3ull;
  x->seed += (unsigned long long)p + 1;
  for (int k = A_BUF; k <= C_BUF; k++)
    if (x->b[k].mem) fill(x, k, pass);
  fill(x, D_BUF, pass); /* C's values when C is D; else poison the kernel overwrites */
  verify_gemm_scales_fill(&x->s, pass == VERIFY_PASS_INTEGER, &x->seed);
  const gbuf *cb = cs->c_is_d ? &x->b[D_BUF] : &x->b[C_BUF];
  for (int bi = 0; bi < x->batch; bi++)
    for (long i = 0; i < c->m; i++)
      for (long j = 0; j < c->n; j++)
        x->c0[((size_t)bi * c->m + i) * c->n + j] =
            get(cb, cb->mem, bi, i, j);
}

bool verify_gemm_case_run(const verify_gemm_case *cs, const tcmma_gemm_plan *plan,
                          tcmma_gemm_runner run, void *ctx, verify_case_result *r) {
  const tcmma_gemm_call *c = &plan->call;
  verify_gemm_launch l;
  tcmma_gemm_opts o = verify_gemm_case_opts(cs);
  if (!verify_gemm_launch_of(plan, &o, &l))
    return verify_case_set(r, VERIFY_CASE_FAILED, "the plan's call does not plan again");
  gdata x;
  bool ok = data_init(&x, cs, c, &l);
  x.exact_libm = run == verify_gemm_sim_runner;
  if (!ok) {
    data_free(&x);
    return verify_case_set(r, VERIFY_CASE_FAILED, "no memory for the buffers");
  }
  static const verify_pass passes[2] = {VERIFY_PASS_INTEGER, VERIFY_PASS_REAL};
  for (int p = 0; p < 2 && ok; p++) {
    data_fill(&x, cs, p, passes[p]);
    verify_gemm_extras_free(&x.x);
    if (!verify_gemm_extras_fill(cs, c, &l, passes[p] == VERIFY_PASS_INTEGER, x.seed, &x.x)) {
      ok = verify_case_set(r, VERIFY_CASE_FAILED, "no memory for the epilogue's tensors");
      break;
    }
    for (int so = 0; so < 2; so++) x.x.scale[so] = x.s.mem[so], x.x.scale_bytes[so] = x.s.bytes[so];
    void *bufs[4] = {x.b[D_BUF].mem, x.b[A_BUF].mem, x.b[B_BUF].mem,
                     cs->c_is_d ? x.b[D_BUF].mem : x.b[C_BUF].mem};
    char why[400] = "";
    if (!run(ctx, plan, &o, bufs, &x.x, (float)cs->alpha, (float)cs->beta, why, sizeof why)) {
      ok = verify_case_set(r, VERIFY_CASE_FAILED, "%s: %s", p ? "real pass" : "integer pass", why);
      break;
    }
    ok = compare(cs, &x, passes[p], r);
  }
  data_free(&x);
  if (ok) verify_case_set(r, VERIFY_CASE_PASSED, "passed");
  return ok;
}

tcmma_gemm_opts verify_gemm_case_opts(const verify_gemm_case *c) {
  tcmma_gemm_opts o = c->opts;
  o.epilogue = c->epilogue_count ? c->epilogue : NULL, o.epilogue_count = c->epilogue_count;
  return o;
}

/* d's stored precision: the last epilogue op's when it is cvt. */
static tcmma_prec out_prec(const tcmma_gemm_call *c, const tcmma_gemm_opts *o) {
  int n = o ? o->epilogue_count : 0;
  if (n > 0 && o->epilogue[n - 1].kind == TCMMA_EPILOGUE_CVT) return o->epilogue[n - 1].prec;
  return c->d.prec;
}

bool verify_gemm_launch_of(const tcmma_gemm_plan *plan, const tcmma_gemm_opts *opts,
                           verify_gemm_launch *out) {
  memset(out, 0, sizeof *out);
  out->info.size = sizeof out->info;
  tcmma_gemm_plan again;
  if (tcmma_gemm_plan_opts(&plan->call, opts, &again, &out->info, NULL) != TCMMA_OK) return false;
  const tcmma_gemm_call *c = &plan->call;
  long rows[4] = {c->m, c->a.transposed ? c->k : c->m, c->b.transposed ? c->n : c->k, c->m};
  long lds[4] = {c->d.ld, c->a.ld, c->b.ld, c->d.ld};
  long long asked[4] = {opts ? opts->stride_d : 0, opts ? opts->stride_a : 0,
                        opts ? opts->stride_b : 0, opts ? opts->stride_d : 0};
  tcmma_prec precs[4] = {out_prec(c, opts), c->a.prec, c->b.prec, c->d.prec};
  /* packed a and b: ld / pack bytes a row */
  int pack[4] = {1, out->info.pack, out->info.pack, 1};
  for (int k = 0; k < 4; k++)
    out->stride[k] = (size_t)(asked[k] ? asked[k] : (long long)rows[k] * lds[k]) *
                     (size_t)tcmma_prec_bytes(precs[k]) / (size_t)pack[k];
  return true;
}

size_t verify_gemm_args(const tcmma_gemm_plan *plan, const tcmma_gemm_opts *opts,
                        const verify_gemm_launch *l, void *const ptrs[4], float *alpha,
                        float *beta, void *const scales[2], int dims[7], long long strides[4],
                        void *workspace, void *args[20]) {
  const tcmma_gemm_call *c = &plan->call;
  size_t n = 0;
  for (int i = 0; i < 4; i++) args[n++] = ptrs[i];
  args[n++] = alpha, args[n++] = beta;
  if (l->info.scale_block) args[n++] = scales[0], args[n++] = scales[1];
  bool batched = l->info.batch > 1 || (opts && opts->pointer_array);
  if (l->info.shape_args) {
    int v[7] = {c->m, c->n, c->k, (int)c->a.ld, (int)c->b.ld, (int)c->d.ld, (int)c->d.ld};
    for (int i = 0; i < 7; i++) dims[i] = v[i], args[n++] = &dims[i];
  }
  if (l->info.shape_args && batched && !opts->pointer_array) {
    tcmma_prec precs[4] = {c->a.prec, c->b.prec, c->d.prec, out_prec(c, opts)};
    size_t bytes[4] = {l->stride[1], l->stride[2], l->stride[3], l->stride[0]};
    int pack[4] = {l->info.pack, l->info.pack, 1, 1}; /* packed a and b: ld / pack bytes a row */
    for (int i = 0; i < 4; i++)
      strides[i] = (long long)(bytes[i] * (size_t)pack[i] / (size_t)tcmma_prec_bytes(precs[i])),
      args[n++] = &strides[i];
  }
  if (l->info.split_k > 1) args[n++] = workspace;
  return n;
}

/* The pointer arrays of a pointer-array batch into arr (4 x batch), one
 * per matrix of each buffer; *ptrs[k] the array's address. */
static void pointer_arrays(const verify_gemm_launch *l, void *const bufs[4], void **arr,
                           void *ptrs[4]) {
  int nb = l->info.batch;
  for (int k = 0; k < 4; k++) {
    for (int i = 0; i < nb; i++) arr[k * nb + i] = (unsigned char *)bufs[k] + (size_t)i * l->stride[k];
    ptrs[k] = &arr[k * nb];
  }
}

bool verify_gemm_sim_runner(void *ctx, const tcmma_gemm_plan *plan, const tcmma_gemm_opts *opts,
                            void *const bufs[4], const verify_gemm_extras *x, float alpha,
                            float beta, char *why, size_t cap) {
  verify_gemm_launch l;
  if (!verify_gemm_launch_of(plan, opts, &l))
    return snprintf(why, cap, "the plan's call does not plan again"), false;
  void *args[VERIFY_GEMM_ARGS_MAX], *ptrs[4] = {bufs[0], bufs[1], bufs[2], bufs[3]};
  void *workspace = NULL;
  void **arr = NULL;
  int dims[7];
  long long strides[4];
  if (opts && opts->pointer_array) {
    if (!(arr = malloc(sizeof *arr * 4 * (size_t)l.info.batch)))
      return snprintf(why, cap, "no memory for the pointer arrays"), false;
    pointer_arrays(&l, bufs, arr, ptrs);
  }
  /* the workspace's counters start at zero, as the plan asks of the caller */
  if (l.info.workspace_bytes && !(workspace = calloc(1, l.info.workspace_bytes))) {
    free(arr);
    return snprintf(why, cap, "no memory for the workspace"), false;
  }
  /* the host entry takes the workspace itself, as it takes d, a, b and c */
  size_t n = verify_gemm_args(plan, opts, &l, ptrs, &alpha, &beta, x->scale, dims, strides,
                              workspace, args);
  for (int i = 0; i < x->n; i++) args[n + (size_t)i] = x->ptr[i]; /* the pointers themselves */
  /* a wgmma or tcgen05 kernel's tensor maps last: the simulator reads tcmma's own values */
  tcmma_tensor_map maps[2];
  if (l.info.kernel == TCMMA_GEMM_KERNEL_WGMMA || l.info.kernel == TCMMA_GEMM_KERNEL_TCGEN05) {
    tcmma_error merr = {0};
    if (tcmma_gemm_tensor_maps(plan, opts, (unsigned long long)(uintptr_t)bufs[1],
                               (unsigned long long)(uintptr_t)bufs[2], NULL, maps,
                               &merr) != TCMMA_OK) {
      free(arr), free(workspace);
      return snprintf(why, cap, "tensor maps: %s", merr.message), false;
    }
    args[n + (size_t)x->n] = &maps[0], args[n + (size_t)x->n + 1] = &maps[1];
  }
  tcmma_sim_config cfg = TCMMA_SIM_CONFIG_INIT({plan->grid[0], plan->grid[1], plan->grid[2]},
                          {(unsigned)plan->threads, 1, 1}, plan->shared_bytes, NULL, 0);
  tcmma_error err = {0};
  tcmma_status st = tcmma_sim_launch_grid(*(sim_entry *)ctx, args, &cfg, &err);
  free(arr), free(workspace);
  if (st == TCMMA_OK) return true;
  snprintf(why, cap, "simulator: %s", err.message);
  return false;
}
