/* The GEMM matrix's epilogue cases (tools/verify/gemm_epilogue.h): every op
 * of tables/epilogues.def at least once on the simulator, whole and ragged
 * tiles, every cvt target (saturating: the integer pass's sums pass e4m3's
 * 448 and, with alpha 1000, f16's 65504), the fp8 recipe (two per-tensor
 * scales, a per-row scale, amax, cvt:e4m3), and one case per rule a list
 * can break. */
#include <stdio.h>
#include <string.h>
#include "tools/verify/gemm_epilogue.h"

enum { MAX_OPS = 8 };

typedef struct {
  tcmma_epilogue_kind kind;
  int arg; /* axis (bias, scale) or precision (cvt) */
  float lo, hi;
} op_spec;

typedef struct {
  const char *d, *a, *b;
  int m, n, k, bm, bn, bk, cc;
  long ldd;
  double alpha, beta;
  int count; /* ops */
  op_spec ops[MAX_OPS];
  tcmma_gemm_decline expect;
  bool args, parr; /* opts: shape arguments, a pointer-array batch */
  int batch, split; /* opts: batch (strided unless parr), split-K slices */
  bool wg;          /* a TMA GEMM: b stored n x k; the Hopper one (cc 90) on warps of 16
                       rows, the Blackwell one (cc 10.x) on its 4x1 */
  bool n_major;     /* with wg: b stored k x n instead (N-major) */
} row;

#define E(k) TCMMA_EPILOGUE_##k
#define AX(a) TCMMA_EPILOGUE_AXIS_##a
#define PR(p) TCMMA_PREC_##p
#define OK TCMMA_GEMM_DECLINE_NONE

static const row rows[] = {
    {"f32", "bf16", "bf16", 64, 64, 64, 64, 64, 32, 80, 0, 1, 0, 2,
     {{E(BIAS), AX(COL)}, {E(RELU)}}, OK},
    {"bf16", "bf16", "bf16", 65, 72, 64, 64, 64, 32, 80, 0, 2, 1, 2,
     {{E(BIAS), AX(ROW)}, {E(GELU_TANH)}}, OK},
    /* f32 out: a transcendental op's last bits show (bf16 would round them off) */
    {"f32", "bf16", "bf16", 64, 72, 32, 64, 64, 32, 80, 0, 0.25, 0, 3,
     {{E(GELU_TANH)}, {E(GELU_ERF)}, {E(SILU)}}, OK},
    {"f16", "f16", "f16", 64, 64, 48, 64, 64, 16, 80, 0, 1, -1, 2,
     {{E(GELU_ERF)}, {E(CLAMP), 0, -1.5f, 2.5f}}, OK},
    {"f32", "f16", "f16", 64, 64, 64, 64, 64, 32, 80, 0, 1, 0, 3,
     {{E(SILU)}, {E(SCALE), AX(COL)}, {E(CVT), PR(F32)}}, OK},
    /* the fp8 recipe: scale_a * scale_b per tensor, a per-row scale, amax, e4m3 */
    {"f32", "e4m3", "e4m3", 64, 64, 128, 64, 64, 64, 89, 0, 1, 0, 5,
     {{E(SCALE), AX(TENSOR)}, {E(SCALE), AX(TENSOR)}, {E(SCALE), AX(ROW)}, {E(AMAX)},
      {E(CVT), PR(E4M3)}}, OK},
    {"f32", "bf16", "bf16", 64, 64, 64, 64, 64, 32, 80, 0, 1, 2, 3,
     {{E(RESIDUAL)}, {E(HOOK)}, {E(CVT), PR(BF16)}}, OK},
    {"f32", "bf16", "bf16", 50, 48, 40, 64, 64, 32, 80, 48, 1, 1, 4,
     {{E(AMAX)}, {E(RELU)}, {E(AMAX)}, {E(CVT), PR(E5M2)}}, OK},
    {"bf16", "bf16", "bf16", 64, 64, 64, 64, 64, 32, 80, 0, 1000, 0, 1,
     {{E(CVT), PR(F16)}}, OK},
    /* declined: a rule each */
    {"f32", "bf16", "bf16", 64, 64, 64, 64, 64, 32, 80, 0, 1, 0, 2,
     {{E(CVT), PR(BF16)}, {E(RELU)}}, TCMMA_GEMM_DECLINE_CALL},
    {"f32", "bf16", "bf16", 64, 64, 64, 64, 64, 32, 80, 0, 1, 0, 1,
     {{E(CLAMP), 0, 2.0f, 1.0f}}, TCMMA_GEMM_DECLINE_CALL},
    {"f32", "bf16", "bf16", 64, 64, 64, 64, 64, 32, 80, 0, 1, 0, 1,
     {{E(BIAS), AX(TENSOR)}}, TCMMA_GEMM_DECLINE_CALL},
    /* a residual moves through a strided batch as c does; a pointer array has none */
    {"f32", "bf16", "bf16", 64, 64, 64, 64, 64, 32, 80, 0, 1, 1, 1,
     {{E(RESIDUAL)}}, TCMMA_GEMM_DECLINE_CALL, false, true, 2},
    /* cvt narrower than d where 16-byte stores do not fit d's rows (72 e4m3
     * bytes): element by element */
    {"f32", "bf16", "bf16", 64, 72, 64, 64, 64, 32, 80, 0, 1, 0, 1,
     {{E(CVT), PR(E4M3)}}, OK},
    /* with the other options: shape arguments (c's own offset; cvt narrower
     * than d's class allows stores element by element), batches (the bias
     * shared, the residual per matrix, one amax over the launch), split-K
     * (the ops once, in the slice that arrives last) */
    {"f32", "bf16", "bf16", 65, 72, 40, 64, 64, 32, 80, 0, 1, 1, 4,
     {{E(BIAS), AX(ROW)}, {E(RESIDUAL)}, {E(AMAX)}, {E(CVT), PR(BF16)}}, OK, true},
    {"bf16", "bf16", "bf16", 70, 64, 64, 64, 64, 32, 80, 0, 1, 0.5, 4,
     {{E(BIAS), AX(COL)}, {E(RESIDUAL)}, {E(RELU)}, {E(AMAX)}}, OK, false, false, 3},
    {"f32", "f16", "f16", 64, 72, 64, 64, 64, 32, 80, 0, 1, 0, 3,
     {{E(SCALE), AX(ROW)}, {E(RESIDUAL)}, {E(HOOK)}}, OK, true, false, 2},
    {"f32", "bf16", "bf16", 64, 64, 64, 64, 64, 32, 80, 0, 1, 0, 3,
     {{E(BIAS), AX(COL)}, {E(AMAX)}, {E(CVT), PR(E4M3)}}, OK, false, true, 2},
    {"f32", "bf16", "bf16", 64, 72, 256, 64, 64, 32, 80, 0, 1, 1, 4,
     {{E(BIAS), AX(COL)}, {E(RESIDUAL)}, {E(AMAX)}, {E(CVT), PR(E4M3)}}, OK, false, false, 0, 3},
    {"bf16", "bf16", "bf16", 66, 64, 200, 64, 64, 32, 80, 0, 1, 0, 3,
     {{E(SCALE), AX(COL)}, {E(RESIDUAL)}, {E(AMAX)}}, OK, true, false, 2, 2},
    /* block-scaled at cc 12.x: NVFP4's per-tensor scales of a and b (its
     * second level) as two scale:tensor, a bias, cvt:bf16; MXFP4 with shape
     * arguments into e4m3 with amax */
    {"f32", "nvf4", "nvf4", 65, 72, 256, 64, 64, 128, 120, 0, 1, 1, 5,
     {{E(SCALE), AX(TENSOR)}, {E(SCALE), AX(TENSOR)}, {E(BIAS), AX(ROW)}, {E(RELU)},
      {E(CVT), PR(BF16)}}, OK},
    {"f32", "mxf4", "mxf4", 64, 70, 192, 64, 64, 128, 120, 0, 1, 0, 2,
     {{E(AMAX)}, {E(CVT), PR(E4M3)}}, OK, true},
    /* the Hopper GEMM's epilogue from the accumulator registers: two
     * consumers, ragged edges with cvt, the fp8 recipe, a hook with shape
     * arguments */
    {"f32", "bf16", "bf16", 128, 128, 128, 128, 128, 64, 90, 0, 1, 0.5, 4,
     {{E(BIAS), AX(ROW)}, {E(GELU_TANH)}, {E(RESIDUAL)}, {E(AMAX)}}, OK, false, false, 0, 0, true},
    {"f32", "bf16", "bf16", 65, 72, 64, 64, 64, 64, 90, 80, 1, 1, 4,
     {{E(SCALE), AX(COL)}, {E(SILU)}, {E(CLAMP), 0, -3.0f, 40.0f}, {E(CVT), PR(E4M3)}}, OK, false,
     false, 0, 0, true},
    {"f32", "e4m3", "e4m3", 128, 64, 256, 128, 64, 128, 90, 0, 1, 0, 5,
     {{E(SCALE), AX(TENSOR)}, {E(SCALE), AX(TENSOR)}, {E(SCALE), AX(ROW)}, {E(AMAX)},
      {E(CVT), PR(E4M3)}}, OK, false, false, 0, 0, true},
    {"f16", "f16", "f16", 64, 64, 64, 64, 64, 64, 90, 0, 1, 1, 3,
     {{E(HOOK)}, {E(GELU_ERF)}, {E(BIAS), AX(COL)}}, OK, true, false, 0, 0, true},
    /* an N-major b: ragged over two panels, alpha and beta, a column bias,
     * gelu and cvt */
    {"bf16", "bf16", "bf16", 100, 136, 96, 64, 128, 64, 90, 144, 0.5, 2, 3,
     {{E(BIAS), AX(COL)}, {E(GELU_TANH)}, {E(CVT), PR(BF16)}}, OK, false, false, 0, 0, true, true},
    /* the Blackwell GEMM's epilogue from Tensor Memory (tcgen05.ld): every op
     * across three cases, ragged edges with cvt, the fp8 recipe, a hook with
     * shape arguments */
    {"f32", "bf16", "bf16", 128, 128, 128, 128, 128, 64, 100, 0, 1, 0.5, 5,
     {{E(BIAS), AX(ROW)}, {E(GELU_TANH)}, {E(RESIDUAL)}, {E(AMAX)}, {E(CVT), PR(BF16)}}, OK,
     false, false, 0, 0, true},
    {"f32", "bf16", "bf16", 65, 72, 64, 128, 80, 64, 100, 80, 1, 1, 5,
     {{E(SCALE), AX(COL)}, {E(SILU)}, {E(CLAMP), 0, -3.0f, 40.0f}, {E(RELU)}, {E(CVT), PR(E4M3)}},
     OK, false, false, 0, 0, true},
    {"f32", "e4m3", "e4m3", 128, 64, 256, 128, 64, 128, 100, 0, 1, 1, 6,
     {{E(SCALE), AX(TENSOR)}, {E(SCALE), AX(ROW)}, {E(BIAS), AX(COL)}, {E(HOOK)}, {E(GELU_ERF)},
      {E(CVT), PR(E5M2)}}, OK, true, false, 0, 0, true},
};
enum { ROWS = sizeof rows / sizeof rows[0] };
_Static_assert(ROWS <= VERIFY_GEMM_EPILOGUE_CASES, "the matrix has room for every case");

static void parse_prec(const char *s, tcmma_prec *out) {
  tcmma_error e;
  if (tcmma_prec_parse(s, out, &e) != TCMMA_OK) *out = TCMMA_PREC_F32; /* the rows are valid */
}

/* The list as the CLI spells it ("bias:col,relu") into out. */
static void list_text(const verify_gemm_case *c, char *out, size_t cap) {
  size_t n = 0;
  out[0] = '\0';
  for (int i = 0; i < c->epilogue_count && n < cap; i++) {
    const tcmma_epilogue_op *o = &c->epilogue[i];
    const char *form = tcmma_epilogue_args(o->kind);
    char arg[64] = "";
    if (strstr(form, "row|col"))
      snprintf(arg, sizeof arg, ":%s", tcmma_epilogue_axis_name(o->axis));
    else if (strcmp(form, "prec") == 0) snprintf(arg, sizeof arg, ":%s", tcmma_prec_name(o->prec));
    else if (strcmp(form, "lo:hi") == 0) snprintf(arg, sizeof arg, ":%g:%g", o->lo, o->hi);
    n += (size_t)snprintf(out + n, cap - n, "%s%s%s", i ? "," : "", tcmma_epilogue_name(o->kind),
                          arg);
  }
}

static void build(const row *w, verify_gemm_case *c) {
  memset(c, 0, sizeof *c);
  c->call = tcmma_gemm_call_default();
  tcmma_gemm_call *g = &c->call;
  parse_prec(w->d, &g->d.prec), parse_prec(w->a, &g->a.prec), parse_prec(w->b, &g->b.prec);
  /* fp8, fp4, TMA GEMMs: k-major B, but where a TMA row asks for N-major */
  g->b.transposed = (w->wg && !w->n_major) || tcmma_prec_bytes(g->b.prec) == 1;
  g->m = w->m, g->n = w->n, g->k = w->k, g->d.ld = w->ldd;
  g->block_m = w->bm, g->block_n = w->bn, g->block_k = w->bk, g->cc = w->cc;
  g->warps_m = g->warps_n = 2, g->stages = 2;
  if (w->wg) g->warps_m = w->bm / (w->cc >= 100 ? 32 : 16), g->warps_n = 1, g->stages = 3;
  g->name = "tcmma_kernel";
  c->alpha = w->alpha, c->beta = w->beta, c->expect = w->expect;
  c->opts = tcmma_gemm_opts_default();
  c->opts.shape_args = w->args, c->opts.pointer_array = w->parr;
  c->opts.batch = w->batch, c->opts.split_k = w->split;
  for (int i = 0; i < w->count; i++) {
    tcmma_epilogue_op *o = &c->epilogue[c->epilogue_count++];
    *o = tcmma_epilogue_op_default();
    o->kind = w->ops[i].kind, o->lo = w->ops[i].lo, o->hi = w->ops[i].hi;
    if (o->kind == TCMMA_EPILOGUE_CVT) o->prec = (tcmma_prec)w->ops[i].arg;
    else o->axis = (tcmma_epilogue_axis)w->ops[i].arg;
    if (o->kind == TCMMA_EPILOGUE_HOOK) o->body = VERIFY_GEMM_HOOK_BODY;
  }
  char list[200], ld[96] = "";
  list_text(c, list, sizeof list);
  int at = w->ldd ? snprintf(ld, sizeof ld, "/ld=0,0,%ld", w->ldd) : 0;
  if (w->args) at += snprintf(ld + at, sizeof ld - (size_t)at, "/args");
  if (w->n_major) at += snprintf(ld + at, sizeof ld - (size_t)at, "/b-n-major");
  if (w->batch)
    at += snprintf(ld + at, sizeof ld - (size_t)at, "/batch=%d%s", w->batch,
                   w->parr ? ",pointers" : "");
  if (w->split) snprintf(ld + at, sizeof ld - (size_t)at, "/split-k=%d", w->split);
  tcmma_gemm_plan plan;
  tcmma_gemm_info info = {.size = sizeof info};
  const char *arm = "declined";
  tcmma_gemm_opts o = verify_gemm_case_opts(c);
  if (!w->expect && tcmma_gemm_plan_opts(g, &o, &plan, &info, NULL) == TCMMA_OK)
    arm = verify_gemm_kernel_arm(&plan, &info);
  snprintf(c->name, sizeof c->name, "gemm/%s%s/%dx%dx%d/d=%s/a=%s/b=%s/%dx%dx%d%s/alpha=%g,beta=%g/"
           "epilogue=%s", w->expect ? "decline-" : "",
           w->expect ? tcmma_gemm_decline_name(w->expect) : arm, w->bm, w->bn, w->bk, w->d, w->a,
           w->b, w->m, w->n, w->k, ld, w->alpha, w->beta, list);
}

size_t verify_gemm_epilogue_cases(verify_gemm_case *out, size_t cap) {
  size_t n = 0;
  for (; n < ROWS && n < cap; n++) build(&rows[n], &out[n]);
  return n;
}
