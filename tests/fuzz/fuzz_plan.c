/* libFuzzer target: the planner and the renderers with random calls. The
 * bytes decode into a tcmma_call (precisions, orientations, leading
 * dimensions, spaces, swizzles, sub-tile origins, block scales, extents,
 * scope, cc, policy, a forced arm, lane and warp expressions: mostly
 * plausible values, sometimes out of range); an accepted plan is rendered
 * as statement, fragment, pieces and kernel in both dialects under a
 * decoded naming context, with its census and kernel buffer layout (scale
 * buffers too); then the staging helper and the swizzle map with decoded
 * arguments. Every outcome must be a status, never a crash, a leak or
 * undefined behaviour; an accepted plan's census must be OK (the readers'
 * check plans its call again and must find the same plan). */
#include <limits.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>
#include "tcmma/tcmma.h"

/* A render context as one expression (as tests/util.h). */
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

static long wide(bytes *b) {
  unsigned long v = 0;
  for (int i = 0; i < 8; i++) v = v << 8 | byte(b);
  return (long)v;
}

/* An extent: a small multiple of 8 or 16 most of the time, else an edge. */
static int extent(bytes *b) {
  static const int edges[] = {0, -16, 1, 24, 1 << 20, 1 << 30, INT_MAX, 23168};
  unsigned k = byte(b);
  if (k < 200) return (int)(k % 12 + 1) * (k & 1 ? 8 : 16);
  return edges[k % 8];
}

static long ld(bytes *b) {
  static const long edges[] = {-1, 1, 7, 40, 1L << 30, LONG_MAX, 130, 4096};
  unsigned k = byte(b);
  if (k < 128) return 0; /* dense */
  if (k < 224) return (long)(k % 64) * 8 + (k & 7);
  return edges[k % 8];
}

/* A sub-tile origin coordinate: zero most of the time, else a multiple of
 * 8 or an edge, with or without a (borrowed, constant) expression. */
static tcmma_coord coord(bytes *b) {
  static const long edges[] = {-8, 1, 7, 1L << 30, LONG_MAX, 64};
  static const char *const exprs[] = {"0", "(threadIdx.x / 32) * 16", "w * 64", ""};
  tcmma_coord c = {0, NULL, 0};
  unsigned k = byte(b);
  if (k < 128) return c;
  c.value = k < 224 ? (long)(k % 8) * 8 : edges[k % 6];
  unsigned e = byte(b);
  if (e & 1) {
    c.expr = exprs[(e >> 1) % 4];
    c.multiple = (long)((e >> 3) % 5) * 8 - 8; /* -8, 0, 8, 16, 24 */
  }
  return c;
}

static void operand(bytes *b, tcmma_operand_desc *o) {
  o->prec = (tcmma_prec)pick(b, TCMMA_PREC_COUNT + 1); /* one past the last: invalid */
  o->transposed = byte(b) & 1;
  o->ld = ld(b);
  o->space = (tcmma_space)pick(b, 4);
  o->swizzle = (tcmma_swizzle)pick(b, TCMMA_SWIZZLE_COUNT + 1);
  o->row0 = coord(b);
  o->col0 = coord(b);
  /* block scales: none, a pointer expression, an empty one; dense or any ld */
  static const char *const scales[] = {NULL, "s", "(const unsigned char *)sp + 64", ""};
  o->scale = scales[pick(b, 4)];
  o->scale_ld = byte(b) & 1 ? 0 : ld(b);
}

/* A naming context: the default prefix, a custom one, or an invalid one. */
static tcmma_names names_of(bytes *b) {
  static const char *const prefixes[] = {NULL, "g_", "x", "9bad", "a-b", ""};
  tcmma_names n = {prefixes[pick(b, 6)], (int)pick(b, 4) - 1};
  return n;
}

/* The pieces composed as a generator would: fragments double-buffered. */
static void pieces(const tcmma_plan *p, tcmma_dialect d, bytes *b, tcmma_buf *out) {
  tcmma_error err;
  tcmma_names n = names_of(b);
  int buffers = (int)pick(b, TCMMA_FRAG_BUFFERS_MAX + 2) - 1;
  tcmma_render_frag_decl(RCTX(p, d, NULL, out), TCMMA_OPERAND_A, "af", buffers, &err);
  tcmma_render_frag_decl(RCTX(p, d, NULL, out), TCMMA_OPERAND_B, "bf", buffers, &err);
  tcmma_render_frag_decl(RCTX(p, d, NULL, out), TCMMA_OPERAND_C, "acc", 0, &err);
  tcmma_render_acc_init(RCTX(p, d, &n, out), "acc", "d", &err);
  const char *kstep = byte(b) & 1 ? "ks" : "0";
  tcmma_render_frag_load(RCTX(p, d, &n, out), TCMMA_OPERAND_A, "af[0]", "a", kstep, &err);
  tcmma_render_frag_load(RCTX(p, d, &n, out), TCMMA_OPERAND_B, "bf[0]", "b", kstep, &err);
  tcmma_render_frag_mma(RCTX(p, d, &n, out), "acc", "af[0]", "bf[0]", &err);
  tcmma_render_acc_store(RCTX(p, d, &n, out), "acc", "d", &err);
}

/* A short expression of the input's bytes (may exceed TCMMA_EXPR_MAX). */
static const char *expr(bytes *b, char *buf, size_t cap) {
  unsigned n = byte(b);
  if (n < 160) return NULL;
  n = (n - 160) * 3;
  size_t i = 0;
  for (; i < n && i + 1 < cap && b->n; i++) {
    char c = (char)byte(b);
    buf[i] = c ? c : 'x';
  }
  buf[i] = '\0';
  return buf;
}

static void render_all(const tcmma_plan *p, bytes *b) {
  for (int dl = 0; dl < 2; dl++) {
    tcmma_buf out = {0};
    tcmma_error err;
    tcmma_dialect d = (tcmma_dialect)dl;
    tcmma_names n = names_of(b);
    if (p->call.scope == TCMMA_SCOPE_STATEMENT) {
      tcmma_render_statement(RCTX(p, d, &n, &out), "d", "a", "b", &err);
    } else {
      tcmma_render_fragment_open(RCTX(p, d, &n, &out), "frag", "d", &err);
      tcmma_render_fragment_update(RCTX(p, d, &n, &out), "frag", "a", "b", &err);
      tcmma_render_fragment_close(RCTX(p, d, &n, &out), "frag", "d", &err);
    }
    pieces(p, d, b, &out);
    unsigned k = byte(b);
    tcmma_kernel_opts opts = TCMMA_KERNEL_OPTS_INIT((int)(k % 6), k & 8, k & 16);
    tcmma_render_kernel(RCTX(p, d, NULL, &out), &opts, &err);
    tcmma_kernel_prologue(RCTX(NULL, d, NULL, &out), p, 1, &err);
    tcmma_buf_free(&out);
  }
  tcmma_census c;
  tcmma_error err;
  /* every plan reader plans the plan's call again and refuses a plan that
   * differs: planning must give an accepted plan back unchanged */
  if (tcmma_plan_census(p, &c, &err) != TCMMA_OK) __builtin_trap();
  tcmma_kernel_shared_bytes(p, 1);
  int outer = (int)pick(b, 6);
  for (int op = 0; op < 3; op++) {
    tcmma_kernel_operand_elems(p, outer, (tcmma_operand)op);
    tcmma_kernel_operand_index(p, (tcmma_operand)op, (int)pick(b, 8) - 1, wide(b), wide(b));
    tcmma_kernel_scale_elems(p, outer, (tcmma_operand)op);
    tcmma_kernel_scale_index(p, (tcmma_operand)op, (int)pick(b, 8) - 1, wide(b), wide(b));
  }
}

static void stage(bytes *b) {
  static const long sizes[] = {1, 8, 16, 32, 64, 100, 1L << 15, 1L << 24, 1L << 25, -1};
  static const int ebs[] = {1, 2, 4, 8, 3, 0};
  char lane[256];
  const char *l = expr(b, lane, sizeof lane);
  long rows = sizes[pick(b, 10)], cols = sizes[pick(b, 10)];
  long dst_ld = byte(b) & 1 ? cols : sizes[pick(b, 10)];
  long src_ld = byte(b) & 1 ? cols : sizes[pick(b, 10)];
  tcmma_buf out = {0};
  tcmma_error err;
  tcmma_names n = names_of(b);
  tcmma_swizzle sw = (tcmma_swizzle)pick(b, TCMMA_SWIZZLE_COUNT + 1);
  tcmma_stage_opts so = {sizeof so, byte(b) & 1, "dst", "src", rows, cols, dst_ld, src_ld,
                         ebs[pick(b, 6)], sw, l};
  tcmma_render_stage(RCTX(NULL, (tcmma_dialect)pick(b, 3), &n, &out), &so, &err);
  sw = (tcmma_swizzle)pick(b, TCMMA_SWIZZLE_COUNT + 1);
  tcmma_render_swizzle_offset(sw, "r", "c", wide(b), &out, &err);
  tcmma_buf_free(&out);
  tcmma_swizzle_offset((tcmma_swizzle)pick(b, TCMMA_SWIZZLE_COUNT + 1), wide(b), wide(b),
                       wide(b));
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  static const int ccs[] = {0, 70, 75, 80, 86, 89, 90, 100, 120, 121, 5, 1000};
  static const char *const arms[] = {"mma-f16", "mma-bf16",  "mma-fp8",    "mma-mxfp8",
                                     "wmma-f16", "wmma-tf32", "wmma-f16-wide", "nonsense"};
  bytes b = {data, size};
  tcmma_call call = tcmma_call_default();
  operand(&b, &call.d);
  operand(&b, &call.a);
  operand(&b, &call.b);
  call.m = extent(&b), call.n = extent(&b), call.k = extent(&b);
  call.scope = (tcmma_scope)pick(&b, 3);
  call.cc = ccs[pick(&b, 12)];
  call.numerics.fp16 = (tcmma_fp16_mode)pick(&b, 3);
  call.numerics.tf32 = byte(&b) & 1;
  call.numerics.prefer = (tcmma_prefer)pick(&b, 3);
  unsigned a = byte(&b);
  call.arm = a < 192 ? NULL : arms[a % 8];
  char lane[512], warp[512];
  call.lane = expr(&b, lane, sizeof lane);
  call.warps = (int)pick(&b, 40) - 2;
  call.warp = expr(&b, warp, sizeof warp);
  tcmma_plan plan;
  tcmma_error err;
  if (tcmma_plan_call(&call, &plan, &err) == TCMMA_OK) render_all(&plan, &b);
  stage(&b);
  return 0;
}
