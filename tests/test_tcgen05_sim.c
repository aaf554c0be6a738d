/* tcmma_tcgen05_render's host dialect end to end on the simulator's tcgen05
 * model (mma/sim/tcgen05*.c, written from the PTX ISA apart from the
 * renderer): the one-block kernel of tests/util_tcgen05_kernel.c (Tensor
 * Memory allocation, one thread's product committed to an mbarrier, the
 * tcgen05.ld epilogue) runs, bit for bit against a plain C product here on
 * integer-exact inputs: operands stored as tcmma's v2 layouts place them
 * (tcmma_swizzle_offset), D read back through tcmma_tcgen05_acc_layout.
 * The renderer's descriptors, instruction descriptor and data path and the
 * model's decoding of them meet only where the ISA says they must. */
#include <dlfcn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "util.h"
#include "tcmma/tcmma.h"
#include "tcmma/sim.h"

typedef struct {
  const char *arm, *a, *b;
  int m, n, k;
  bool a_m_major, b_n_major, a_tmem;
  tcmma_swizzle sw;
} run_case;

static const run_case cases[] = {
    {"tcgen05-bf16", "bf16", "bf16", 128, 64, 32, false, false, false, TCMMA_SWIZZLE_B128},
    {"tcgen05-f16", "f16", "f16", 64, 32, 32, false, true, false, TCMMA_SWIZZLE_B128},
    {"tcgen05-f16", "f16", "f16", 64, 16, 16, true, false, false, TCMMA_SWIZZLE_B128},
    {"tcgen05-tf32", "f32", "f32", 128, 24, 16, false, false, false, TCMMA_SWIZZLE_B128},
    {"tcgen05-f8f6f4", "e4m3", "e5m2", 64, 40, 32, false, false, false, TCMMA_SWIZZLE_B32},
    {"tcgen05-i8", "s8", "u8", 128, 48, 64, false, false, false, TCMMA_SWIZZLE_B128},
    {"tcgen05-i8", "u8", "u8", 64, 8, 32, false, true, false, TCMMA_SWIZZLE_B64},
    {"tcgen05-bf16", "bf16", "bf16", 128, 256, 16, false, false, false, TCMMA_SWIZZLE_B128},
    {"tcgen05-bf16", "bf16", "bf16", 128, 32, 32, false, false, true, TCMMA_SWIZZLE_B128},
    {"tcgen05-mxf8f6f4", "mxe4m3", "mxe5m2", 128, 64, 32, false, false, false, TCMMA_SWIZZLE_B128},
    {"tcgen05-mxf8f6f4", "mxe5m2", "mxe4m3", 128, 16, 32, false, true, true, TCMMA_SWIZZLE_B32},
    /* several k steps, non-uniform scales: the ids and addresses advance */
    {"tcgen05-mxf8f6f4", "mxe4m3", "mxe5m2", 128, 32, 128, false, false, false, TCMMA_SWIZZLE_B128},
    {"tcgen05-mxf8f6f4", "mxe5m2", "mxe4m3", 128, 200, 64, false, false, false, TCMMA_SWIZZLE_B64},
    {"tcgen05-mxf4", "mxf4", "mxf4", 128, 64, 256, false, false, false, TCMMA_SWIZZLE_B128},
    {"tcgen05-mxf4", "mxf4", "mxf4", 128, 8, 128, false, false, false, TCMMA_SWIZZLE_B64},
    {"tcgen05-nvf4", "nvf4", "nvf4", 128, 144, 128, false, false, false, TCMMA_SWIZZLE_B128},
    {"tcgen05-nvf4", "nvf4", "nvf4", 128, 16, 256, false, false, false, TCMMA_SWIZZLE_B128},
};

static int next(unsigned *rng, int lo, int hi) {
  *rng = *rng * 1103515245u + 12345u;
  return lo + (int)((*rng >> 8) % (unsigned)(hi - lo + 1));
}

/* A value p holds exactly, and its storage bits. */
static int value_in(tcmma_prec p, unsigned *rng) {
  return p == TCMMA_PREC_S8 ? next(rng, -128, 127) : p == TCMMA_PREC_U8 ? next(rng, 0, 255)
                                                                         : next(rng, -4, 4);
}

static uint32_t encode(tcmma_prec p, int v) {
  float f = (float)v;
  uint32_t u;
  switch (p) {
  case TCMMA_PREC_F16: return tcmma_sim_float2half_rn(f).bits;
  case TCMMA_PREC_BF16: return tcmma_sim_float2bfloat16_rn(f).bits;
  case TCMMA_PREC_E4M3: case TCMMA_PREC_MXE4M3: return tcmma_sim_float_to_e4m3(f);
  case TCMMA_PREC_E5M2: case TCMMA_PREC_MXE5M2: return tcmma_sim_float_to_e5m2(f);
  case TCMMA_PREC_S8: case TCMMA_PREC_U8: return (uint32_t)v & 0xffu;
  case TCMMA_PREC_MXF4: case TCMMA_PREC_NVF4: return tcmma_sim_float_to_e2m1(f);
  default: memcpy(&u, &f, sizeof u); return u;
  }
}

static void put(unsigned char *at, uint32_t bits, int bytes) {
  for (int b = 0; b < bytes; b++) at[b] = (unsigned char)(bits >> (8 * b));
}

typedef struct {
  tcmma_tcgen05_call call;
  int *A, *B;              /* m x k, k x n */
  unsigned char *ga, *gb;  /* stored */
  unsigned *gta, *gsf, *d; /* A's Tensor Memory words, the scale atoms, D per lane */
  double *sa, *sb;         /* block-scaled: A's row and B's column scales per k block */
} data;

/* Byte offset of element (r, c) of a stored operand of rows of ld elements. */
static long at(const tcmma_operand_desc *d, long r, long c, long ld) {
  long eb = tcmma_prec_bits(d->prec) / 8;
  return tcmma_swizzle_offset(d->swizzle, r, c * eb, ld * eb);
}

/* Stores element (r, c) of a K-major or M/N-major operand: one a byte or
 * (packed fp4) two a byte along k, the lower k in the low nibble. */
static void store(const tcmma_tcgen05_call *call, const tcmma_operand_desc *d, unsigned char *g,
                  long r, long c, long ld, uint32_t bits) {
  long eb = tcmma_prec_bits(d->prec) / 8;
  if (tcmma_tcgen05_pack(call->arm, d->prec) == 2) /* K-major: c is k */
    g[at(d, r, c / 2, ld)] |= (unsigned char)(bits << (4 * (c % 2)));
  else put(g + at(d, r, c, ld), bits, (int)eb);
}

/* Block scales: 2^e, e in -1..1, per row and k block, stored in the atoms
 * where tcmma_tcgen05_scale_cell places them (A's atoms first). */
static void fill_scales(data *x, const run_case *c, unsigned *rng) {
  const tcmma_tcgen05_info *i = tcmma_tcgen05_get(x->call.arm);
  int blocks = c->k / i->block, rows[2] = {c->m, c->n};
  double *sc[2] = {x->sa, x->sb};
  long base[2] = {0, (long)tcgen05_scale_atoms(&x->call, TCMMA_OPERAND_A) * 512};
  unsigned char *g = (unsigned char *)x->gsf;
  for (int o = 0; o < 2; o++)
    for (int r = 0; r < rows[o]; r++)
      for (int kb = 0; kb < blocks; kb++) {
        int e = next(rng, -1, 1);
        unsigned col, byte;
        long src;
        assert_int_equal(tcmma_tcgen05_scale_cell(x->call.arm, rows[o], r, kb, &col, &byte, &src,
                                                  NULL), TCMMA_OK);
        g[base[o] + src] = strcmp(i->scale, "ue8m0") == 0 ? (unsigned char)(127 + e)
                                                          : tcmma_sim_float_to_ue4m3(e < 0 ? 0.5f : (float)(1 << e));
        sc[o][r * blocks + kb] = e < 0 ? 0.5 : (double)(1 << e);
      }
}

static void fill(data *x, const run_case *c) {
  tcmma_tcgen05_call *call = &x->call;
  unsigned rng = 12345u + (unsigned)c->n * 7u + (unsigned)c->k;
  long ea = tcmma_prec_bits(call->a.prec) / 8, eb = tcmma_prec_bits(call->b.prec) / 8;
  long lda = tcmma_swizzle_get(c->sw)->bytes / ea, ldb = tcmma_swizzle_get(c->sw)->bytes / eb;
  x->A = calloc((size_t)(c->m * c->k), sizeof(int));
  x->B = calloc((size_t)(c->k * c->n), sizeof(int));
  x->ga = calloc(1, 256 * 1024), x->gb = calloc(1, 256 * 1024);
  x->gta = calloc(128 * 64, sizeof(unsigned));
  x->gsf = calloc(64 * 512, 1);
  x->sa = calloc((size_t)(c->m * c->k), sizeof(double));
  x->sb = calloc((size_t)(c->n * c->k), sizeof(double));
  x->d = calloc(128 * (size_t)c->n, sizeof(unsigned));
  for (int i = 0; i < c->m; i++)
    for (int j = 0; j < c->k; j++) {
      int v = x->A[i * c->k + j] = value_in(call->a.prec, &rng);
      uint32_t bits = encode(call->a.prec, v);
      if (c->a_tmem) /* lane i, the k elements packed into 32-bit words, low first */
        x->gta[i * tcgen05_a_words(call) + j * ea / 4] |= bits << (8 * ((j * ea) % 4));
      else if (c->a_m_major) store(call, &call->a, x->ga, j, i, lda, bits);
      else store(call, &call->a, x->ga, i, j, lda, bits);
    }
  for (int i = 0; i < c->k; i++)
    for (int j = 0; j < c->n; j++) {
      int v = x->B[i * c->n + j] = value_in(call->b.prec, &rng);
      if (c->b_n_major) store(call, &call->b, x->gb, i, j, ldb, encode(call->b.prec, v));
      else store(call, &call->b, x->gb, j, i, ldb, encode(call->b.prec, v));
    }
  int block = tcmma_tcgen05_get(call->arm)->block;
  if (block) fill_scales(x, c, &rng);
}

/* The scale of A's row r (B's column j) at k: 1 for unscaled rows. */
static double scale_of(const data *x, const double *sc, int r, int kk) {
  int block = tcmma_tcgen05_get(x->call.arm)->block;
  return block ? sc[r * (x->call.k / block) + kk / block] : 1.0;
}

static void free_data(data *x) {
  free(x->A), free(x->B), free(x->ga), free(x->gb), free(x->gta), free(x->gsf), free(x->d);
  free(x->sa), free(x->sb);
}

static void run(data *x, const char *text) {
  host_entry_fn entry;
  void *h = host_module_entry(text, "tcmma_kernel_entry", &entry);
  void *args[5] = {x->d, x->ga, x->gb, x->gta, x->gsf};
  tcmma_sim_config cfg = TCMMA_SIM_CONFIG_INIT({1, 1, 1}, {128, 1, 1},
                                               tcgen05_shared_bytes(&x->call));
  tcmma_error err = {0};
  if (tcmma_sim_launch_grid(entry, args, &cfg, &err) != TCMMA_OK)
    fail_msg("%s: the simulator failed the run: %s", tcmma_tcgen05_marker(x->call.arm), err.message);
  dlclose(h);
}

/* D read back through the accumulator layout against the C product. */
static void check(const data *x, const run_case *c) {
  bool integer = tcmma_tcgen05_get(x->call.arm)->acc == TCMMA_PREC_S32;
  size_t cells = 0;
  for (int lane = 0; lane < 128; lane++)
    for (int col = 0; col < c->n; col++) {
      int r, cc;
      assert_int_equal(tcmma_tcgen05_acc_layout(x->call.arm, c->m, c->n, lane, col, &r, &cc, NULL),
                       TCMMA_OK);
      if (r < 0) continue;
      long long want = 0;
      double wantf = 0; /* exact: small integers times powers of two */
      for (int kk = 0; kk < c->k; kk++) {
        want += (long long)x->A[r * c->k + kk] * x->B[kk * c->n + cc];
        wantf += (double)x->A[r * c->k + kk] * x->B[kk * c->n + cc] *
                 scale_of(x, x->sa, r, kk) * scale_of(x, x->sb, cc, kk);
      }
      uint32_t bits = x->d[lane * c->n + col], expect;
      if (integer) expect = (uint32_t)(int32_t)want;
      else {
        float f = (float)wantf;
        memcpy(&expect, &f, sizeof expect);
      }
      if (bits != expect)
        fail_msg("%s %dx%dx%d: D(%d, %d) at lane %d column %d is 0x%08x, expected 0x%08x (%g)",
                 c->arm, c->m, c->n, c->k, r, cc, lane, col, bits, expect, wantf);
      cells++;
    }
  assert_int_equal(cells, (size_t)c->m * (size_t)c->n);
}

static void runs_bit_exact(void **state) {
  const run_case *c = *state;
  data x = {0};
  x.call = (tcmma_tcgen05_call)TCMMA_TCGEN05_CALL_INIT(.m = c->m, .n = c->n, .k = c->k,
                                                       .a_tmem = c->a_tmem,
                                                       .dialect = TCMMA_DIALECT_HOST);
  assert_int_equal(tcmma_tcgen05_parse(c->arm, &x.call.arm, NULL), TCMMA_OK);
  x.call.a = (tcmma_operand_desc){.transposed = c->a_m_major, .space = TCMMA_SPACE_SHARED,
                                  .swizzle = c->sw};
  x.call.b = (tcmma_operand_desc){.transposed = !c->b_n_major, .space = TCMMA_SPACE_SHARED,
                                  .swizzle = c->sw};
  assert_int_equal(tcmma_prec_parse(c->a, &x.call.a.prec, NULL), TCMMA_OK);
  assert_int_equal(tcmma_prec_parse(c->b, &x.call.b.prec, NULL), TCMMA_OK);
  fill(&x, c);
  tcmma_buf src = {0};
  tcgen05_kernel(&x.call, &src);
  run(&x, src.data);
  check(&x, c);
  tcmma_buf_free(&src);
  free_data(&x);
}

int main(void) {
  enum { N = sizeof cases / sizeof cases[0] };
  struct CMUnitTest tests[N];
  static char names[N][96];
  for (size_t i = 0; i < N; i++) {
    snprintf(names[i], sizeof names[i], "%s/%sx%s/m%d/n%d/k%d/%s%s%s%s", cases[i].arm, cases[i].a,
             cases[i].b, cases[i].m, cases[i].n, cases[i].k, tcmma_swizzle_name(cases[i].sw),
             cases[i].a_m_major ? "/a=m-major" : "", cases[i].b_n_major ? "/b=n-major" : "",
             cases[i].a_tmem ? "/a=tmem" : "");
    tests[i] = (struct CMUnitTest){names[i], runs_bit_exact, NULL, NULL, (void *)&cases[i]};
  }
  return cmocka_run_group_tests(tests, NULL, NULL);
}
