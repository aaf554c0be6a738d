/* The simulator's wgmma model (mma/sim/wgmma.c, docs/sim.md "wgmma") runs
 * tcmma_wgmma_render's host dialect: every row of tables/wgmma.def, K-major
 * and M/N-major operands, 32-, 64- and 128-byte swizzles, n from 8 to 256
 * and A from registers, bit for bit against a plain C reference on
 * integer-exact inputs (integer rows over their whole range, with s32
 * wrap-around and .satfinite clamping). The operands are stored as the
 * project's swizzle places them (tcmma_swizzle_offset) and the accumulators
 * read through tcmma_wgmma_acc_layout, the register A written through
 * tcmma_wgmma_a_layout: the model decodes the descriptors, swizzles by
 * address bits and lays out fragments on its own, so the two sides meet
 * only where the ISA says they must. Then the asynchronous misuses: a
 * missing wait, a write to accumulators in flight, a missing
 * fence.proxy.async and a missing wgmma.fence each fail the run naming it. */
#include <dlfcn.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "util.h"
#include "tcmma/tcmma.h"
#include "tcmma/sim.h"

typedef struct {
  const char *arm, *a, *b;
  int n, k;
  bool a_m_major, b_n_major;
  tcmma_swizzle sw;
  long ld; /* elements per stored row of both operands */
  bool a_regs;
} wcase;

static const wcase cases[] = {
    {"wgmma-bf16", "bf16", "bf16", 128, 64, false, false, TCMMA_SWIZZLE_B128, 64, false},
    {"wgmma-bf16", "bf16", "bf16", 8, 16, false, false, TCMMA_SWIZZLE_B32, 16, false},
    {"wgmma-f16", "f16", "f16", 64, 32, false, true, TCMMA_SWIZZLE_B128, 64, false},
    {"wgmma-f16", "f16", "f16", 64, 32, true, true, TCMMA_SWIZZLE_B128, 64, false},
    {"wgmma-bf16", "bf16", "bf16", 32, 16, false, true, TCMMA_SWIZZLE_B64, 32, false},
    {"wgmma-f16-acc16", "f16", "f16", 256, 32, false, false, TCMMA_SWIZZLE_B64, 32, false},
    {"wgmma-tf32", "f32", "f32", 32, 32, false, false, TCMMA_SWIZZLE_B128, 32, false},
    {"wgmma-fp8", "e4m3", "e5m2", 256, 128, false, false, TCMMA_SWIZZLE_B128, 128, false},
    {"wgmma-fp8", "e5m2", "e4m3", 24, 64, false, false, TCMMA_SWIZZLE_B64, 64, false},
    {"wgmma-fp8-acc16", "e5m2", "e5m2", 16, 32, false, false, TCMMA_SWIZZLE_B32, 32, false},
    {"wgmma-s8", "s8", "u8", 48, 128, false, false, TCMMA_SWIZZLE_B128, 128, false},
    {"wgmma-s8", "u8", "s8", 8, 64, false, false, TCMMA_SWIZZLE_B64, 64, false},
    {"wgmma-s8-sat", "u8", "u8", 24, 32, false, false, TCMMA_SWIZZLE_B32, 32, false},
    {"wgmma-s8-sat", "s8", "s8", 256, 128, false, false, TCMMA_SWIZZLE_B128, 128, false},
    {"wgmma-bf16", "bf16", "bf16", 64, 32, false, false, TCMMA_SWIZZLE_B128, 64, true},
    {"wgmma-f16", "f16", "f16", 64, 32, false, true, TCMMA_SWIZZLE_B128, 64, true},
    {"wgmma-tf32", "f32", "f32", 16, 16, false, false, TCMMA_SWIZZLE_B128, 32, true},
    {"wgmma-fp8", "e4m3", "e4m3", 32, 64, false, false, TCMMA_SWIZZLE_B128, 128, true},
    {"wgmma-s8-sat", "s8", "u8", 32, 64, false, false, TCMMA_SWIZZLE_B128, 128, true},
};

enum { THREADS = 128, B_AT = 64 << 10 };

typedef struct {
  wcase c;
  tcmma_wgmma_call call;
  const tcmma_wgmma_info *info;
  int regs, steps, eb_a, eb_b;
  long a_bytes, b_bytes;
  double *A, *B, *C; /* logical 64 x k, k x n (B[j * n + i]), 64 x n */
  unsigned char *ga, *gb;
  uint32_t *c0, *d, *ra;
} setup;

static unsigned rng = 12345;
static int next(int lo, int hi) {
  rng = rng * 1103515245u + 12345u;
  return lo + (int)((rng >> 8) % (unsigned)(hi - lo + 1));
}

static tcmma_prec prec_of(const char *name) {
  tcmma_prec p;
  assert_int_equal(tcmma_prec_parse(name, &p, NULL), TCMMA_OK);
  return p;
}

/* The storage bits of value v in precision p (exact for the values used). */
static uint32_t encode(tcmma_prec p, double v) {
  float f = (float)v;
  uint32_t u;
  switch (p) {
  case TCMMA_PREC_F16: return tcmma_sim_float2half_rn(f).bits;
  case TCMMA_PREC_BF16: return tcmma_sim_float2bfloat16_rn(f).bits;
  case TCMMA_PREC_E4M3: return tcmma_sim_float_to_e4m3(f);
  case TCMMA_PREC_E5M2: return tcmma_sim_float_to_e5m2(f);
  case TCMMA_PREC_S8: case TCMMA_PREC_U8: return (uint32_t)(int)v & 0xffu;
  default: memcpy(&u, &f, sizeof u); return u;
  }
}

static double value_in(tcmma_prec p) {
  if (p == TCMMA_PREC_S8) return next(-128, 127);
  if (p == TCMMA_PREC_U8) return next(0, 255);
  return next(-3, 3);
}

static void put_bytes(unsigned char *dst, uint32_t bits, int eb) {
  for (int b = 0; b < eb; b++) dst[b] = (unsigned char)(bits >> (8 * b));
}

/* Element (i along m or n, j along k) of an operand stored K-major (row i)
 * or M/N-major (row j), swizzled as the project's layouts are. */
static long stored_at(const wcase *c, bool mn_major, int i, int j, int eb) {
  long r = mn_major ? j : i, col = (long)(mn_major ? i : j) * eb;
  long off = tcmma_swizzle_offset(c->sw, r, col, c->ld * eb);
  assert_true(off >= 0);
  return off;
}

static void build(setup *s, const wcase *c) {
  memset(s, 0, sizeof *s);
  s->c = *c;
  tcmma_wgmma_call call = TCMMA_WGMMA_CALL_INIT(.n = c->n, .k = c->k, .name = "tile",
                                                .dialect = TCMMA_DIALECT_HOST);
  assert_int_equal(tcmma_wgmma_parse(c->arm, &call.arm, NULL), TCMMA_OK);
  call.a.prec = prec_of(c->a), call.b.prec = prec_of(c->b);
  call.a.ld = call.b.ld = c->ld;
  call.a.swizzle = call.b.swizzle = c->sw;
  call.a.space = c->a_regs ? TCMMA_SPACE_THREAD : TCMMA_SPACE_SHARED;
  call.b.space = TCMMA_SPACE_SHARED;
  call.a.transposed = c->a_m_major, call.b.transposed = !c->b_n_major;
  s->call = call;
  s->info = tcmma_wgmma_get(call.arm);
  s->regs = tcmma_wgmma_acc_regs(call.arm, c->n);
  s->steps = c->k / s->info->k;
  s->eb_a = tcmma_prec_bits(call.a.prec) / 8, s->eb_b = tcmma_prec_bits(call.b.prec) / 8;
  s->a_bytes = (c->a_m_major ? c->k : 64) * c->ld * s->eb_a;
  s->b_bytes = (c->b_n_major ? c->k : c->n) * c->ld * s->eb_b;
  s->A = calloc(64 * (size_t)c->k, sizeof *s->A);
  s->B = calloc((size_t)c->k * c->n, sizeof *s->B);
  s->C = calloc(64 * (size_t)c->n, sizeof *s->C);
  s->ga = calloc((size_t)s->a_bytes, 1), s->gb = calloc((size_t)s->b_bytes, 1);
  s->c0 = calloc((size_t)THREADS * s->regs, 4), s->d = calloc((size_t)THREADS * s->regs + 1, 4);
  s->ra = calloc((size_t)THREADS * s->steps * 4, 4);
  for (int i = 0; i < 64; i++)
    for (int j = 0; j < c->k; j++) {
      double v = value_in(call.a.prec);
      s->A[i * c->k + j] = v;
      if (!c->a_regs)
        put_bytes(s->ga + stored_at(c, c->a_m_major, i, j, s->eb_a), encode(call.a.prec, v), s->eb_a);
    }
  for (int i = 0; i < c->n; i++)
    for (int j = 0; j < c->k; j++) {
      double v = value_in(call.b.prec);
      s->B[j * c->n + i] = v;
      put_bytes(s->gb + stored_at(c, c->b_n_major, i, j, s->eb_b), encode(call.b.prec, v), s->eb_b);
    }
  bool ints = s->info->acc == TCMMA_PREC_S32;
  for (int i = 0; i < 64 * c->n; i++)
    s->C[i] = ints ? (next(0, 3) == 0 ? (next(0, 1) ? 2147483647.0 - next(0, 99999)
                                                     : -2147483648.0 + next(0, 99999))
                                      : next(-1000000, 1000000))
                   : next(-8, 8);
  int per = tcmma_wgmma_acc_elems_per_reg(call.arm);
  for (int t = 0; t < THREADS; t++)
    for (int r = 0; r < s->regs; r++)
      for (int e = 0; e < per; e++) {
        int row, col;
        assert_int_equal(tcmma_wgmma_acc_layout(call.arm, c->n, t, r, e, &row, &col, NULL), TCMMA_OK);
        uint32_t bits = per == 2 ? encode(TCMMA_PREC_F16, s->C[row * c->n + col])
                        : ints ? (uint32_t)(int32_t)s->C[row * c->n + col]
                               : encode(TCMMA_PREC_F32, s->C[row * c->n + col]);
        s->c0[t * s->regs + r] |= per == 2 ? bits << (16 * e) : bits;
      }
  if (c->a_regs) { /* each k step's fragment as tcmma_wgmma_a_layout places it */
    int pa = tcmma_wgmma_a_elems_per_reg(call.arm), bits = 32 / pa;
    for (int t = 0; t < THREADS; t++)
      for (int st = 0; st < s->steps; st++)
        for (int r = 0; r < TCMMA_WGMMA_A_REGS; r++)
          for (int e = 0; e < pa; e++) {
            int row, col;
            assert_int_equal(tcmma_wgmma_a_layout(call.arm, t, r, e, &row, &col, NULL), TCMMA_OK);
            uint32_t v = encode(call.a.prec, s->A[row * c->k + st * s->info->k + col]);
            s->ra[(t * s->steps + st) * 4 + r] |= (bits == 32 ? v : v & ((1u << bits) - 1)) << (bits * e);
          }
  }
}

static void release(setup *s) {
  free(s->A), free(s->B), free(s->C), free(s->ga), free(s->gb), free(s->c0), free(s->d), free(s->ra);
}

/* The reference: per instruction (k step) D = C + A B, rounded to the
 * accumulator (f32, f16 to nearest even), s32 wrapped or clamped. */
static uint32_t reference(const setup *s, int row, int col) {
  const wcase *c = &s->c;
  double acc = s->C[row * c->n + col];
  for (int st = 0; st < s->steps; st++) {
    double sum = acc;
    for (int j = st * s->info->k; j < (st + 1) * s->info->k; j++)
      sum += s->A[row * c->k + j] * s->B[j * c->n + col];
    if (s->info->acc == TCMMA_PREC_F16) acc = tcmma_sim_half2float(tcmma_sim_float2half_rn((float)sum));
    else if (s->info->acc == TCMMA_PREC_F32) acc = (float)sum;
    else if (s->info->id == TCMMA_WGMMA_S8_SAT) acc = fmax(-2147483648.0, fmin(2147483647.0, sum));
    else acc = (double)(int32_t)(uint32_t)(int64_t)sum;
  }
  return s->info->acc == TCMMA_PREC_S32 ? (uint32_t)(int32_t)acc
         : s->info->acc == TCMMA_PREC_F16 ? encode(TCMMA_PREC_F16, acc)
                                           : encode(TCMMA_PREC_F32, acc);
}

/* The module: the rendering and an entry that stores A and B into dynamic
 * shared memory with ordinary stores, publishes, multiplies and writes acc.
 * body: what the entry does after the product (NULL: nothing). */
static char *module_text(const setup *s, const char *after) {
  tcmma_buf src = {0};
  tcmma_error err = {0};
  if (tcmma_wgmma_render(&s->call, &src, &err) != TCMMA_OK) fail_msg("%s", err.message);
  const char *acc_t = s->info->acc == TCMMA_PREC_F32 ? "float" : s->info->acc == TCMMA_PREC_S32 ? "int" : "unsigned";
  tcmma_buf_printf(&src,
                   "#include <string.h>\n"
                   "void wg_entry(void *args) {\n"
                   "  void **p = (void **)args;\n"
                   "  const unsigned char *ga = p[0], *gb = p[1];\n"
                   "  const unsigned *c0 = p[2], *ra = p[4];\n"
                   "  unsigned *d = p[3];\n"
                   "  unsigned char *s = tcmma_sim_dynamic_shared();\n"
                   "  unsigned t = tcmma_sim_lane();\n"
                   "  (void)ga; (void)ra;\n"
                   "  for (long i = t; i < %ld; i += %d) s[i] = ga[i];\n"
                   "  for (long i = t; i < %ld; i += %d) s[%d + i] = gb[i];\n"
                   "  tile_publish();\n"
                   "  %s acc[%d];\n"
                   "  memcpy(acc, c0 + t * %d, sizeof acc);\n"
                   "  unsigned a[%d][4];\n"
                   "  memcpy(a, ra + t * %d, sizeof a);\n"
                   "  tile(acc, %s, (const void *)(s + %d), 1);\n"
                   "  %s\n"
                   "  memcpy(d + t * %d, acc, sizeof acc);\n"
                   "}\n",
                   s->c.a_regs ? 0 : s->a_bytes, THREADS, s->b_bytes, THREADS, B_AT, acc_t,
                   s->regs, s->regs, s->steps, s->steps * 4,
                   s->c.a_regs ? "a" : "(const void *)s", B_AT, after ? after : "", s->regs);
  return src.data;
}

/* text with from replaced by to (fails when from is missing). */
static char *edited(char *text, const char *from, const char *to) {
  char *at = strstr(text, from);
  if (!at) fail_msg("no '%s' in\n%s", from, text);
  size_t n = strlen(text) + strlen(to) + 1;
  char *out = malloc(n);
  snprintf(out, n, "%.*s%s%s", (int)(at - text), text, to, at + strlen(from));
  free(text);
  return out;
}

typedef void (*entry_fn)(void *);

static tcmma_status run(setup *s, const char *text, tcmma_error *err) {
  void *h = host_module_open(text);
  if (!h) fail_msg("the host module does not compile:\n%s", text);
  void *sym = dlsym(h, "wg_entry");
  assert_non_null(sym);
  entry_fn entry;
  memcpy(&entry, &sym, sizeof sym);
  void *args[5] = {s->ga, s->gb, s->c0, s->d, s->ra};
  tcmma_sim_config cfg = TCMMA_SIM_CONFIG_INIT({1, 1, 1}, {THREADS, 1, 1}, B_AT + (size_t)s->b_bytes);
  tcmma_status st = tcmma_sim_launch_grid(entry, args, &cfg, err);
  dlclose(h);
  return st;
}

static void bit_exact_every_row(void **state) {
  (void)state;
  unsigned rows_seen = 0;
  for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
    setup s;
    build(&s, &cases[i]);
    rows_seen |= 1u << s.info->id;
    char *text = module_text(&s, NULL);
    tcmma_error err = {0};
    if (run(&s, text, &err) != TCMMA_OK) fail_msg("case %zu (%s n %d): %s", i, s.c.arm, s.c.n, err.message);
    int per = tcmma_wgmma_acc_elems_per_reg(s.call.arm), bad = 0;
    for (int t = 0; t < THREADS; t++)
      for (int r = 0; r < s.regs; r++)
        for (int e = 0; e < per; e++) {
          int row, col;
          tcmma_wgmma_acc_layout(s.call.arm, s.c.n, t, r, e, &row, &col, NULL);
          uint32_t got = s.d[t * s.regs + r], want = reference(&s, row, col);
          if (per == 2) got = got >> (16 * e) & 0xffffu;
          if (got != want && bad++ < 4)
            print_error("case %zu (%s %s.%s n %d k %d): D[%d][%d] = 0x%08x, expected 0x%08x\n", i,
                        s.c.arm, s.c.a, s.c.b, s.c.n, s.c.k, row, col, got, want);
        }
    if (bad) fail_msg("case %zu: %d accumulator elements differ", i, bad);
    free(text);
    release(&s);
  }
  assert_int_equal(rows_seen, (1u << TCMMA_WGMMA_COUNT) - 1); /* every row of the table */
}

/* The misuses: each text edit fails the run with its message. */
static void expect_failure(const char *from, const char *to, const char *after, const char *want) {
  setup s;
  build(&s, &cases[0]);
  char *text = module_text(&s, after);
  if (from) text = edited(text, from, to);
  tcmma_error err = {0};
  assert_int_equal(run(&s, text, &err), TCMMA_INVALID);
  if (!strstr(err.message, want)) fail_msg("expected '%s' in: %s", want, err.message);
  free(text);
  release(&s);
}

static void missing_wait_is_reported(void **state) {
  (void)state;
  /* wait_group 1 leaves the group in flight; the thread ends without a wait */
  expect_failure("wgmma.wait_group.sync.aligned 0", "wgmma.wait_group.sync.aligned 1", NULL,
                 "wgmma accumulator arrays in flight");
}

static void write_in_flight_is_reported(void **state) {
  (void)state;
  expect_failure("wgmma.wait_group.sync.aligned 0", "wgmma.wait_group.sync.aligned 1",
                 "acc[3] = 0; tcmma_sim_wgmma_wait(\"wgmma.wait_group.sync.aligned 0\");",
                 "wrote accumulator register 3");
}

static void missing_proxy_fence_is_reported(void **state) {
  (void)state;
  expect_failure("tcmma_sim_fence(\"fence.proxy.async.shared::cta\");", "", NULL,
                 "generic-proxy store changed");
}

static void missing_wgmma_fence_is_reported(void **state) {
  (void)state;
  expect_failure("tcmma_sim_wgmma_fence(\"wgmma.fence.sync.aligned\");", "", NULL,
                 "before any wgmma.fence");
}

/* Reading before the wait sees the poison; the later wait lands the result. */
static void results_land_at_the_wait(void **state) {
  (void)state;
  setup s;
  build(&s, &cases[1]);
  char after[256];
  snprintf(after, sizeof after, "unsigned early; memcpy(&early, acc, 4); "
                               "tcmma_sim_wgmma_wait(\"wgmma.wait_group.sync.aligned 0\"); "
                               "if (t == 0) d[%d] = early;", THREADS * s.regs);
  char *text = module_text(&s, after);
  text = edited(text, "wgmma.wait_group.sync.aligned 0", "wgmma.wait_group.sync.aligned 1");
  tcmma_error err = {0};
  if (run(&s, text, &err) != TCMMA_OK) fail_msg("%s", err.message);
  /* thread 0's register 0 read before the wait, and after it */
  assert_int_equal(s.d[THREADS * s.regs], TCMMA_SIM_WGMMA_POISON);
  int row, col;
  tcmma_wgmma_acc_layout(s.call.arm, s.c.n, 0, 0, 0, &row, &col, NULL);
  assert_int_equal(s.d[0], reference(&s, row, col));
  free(text);
  release(&s);
}

int main(void) {
  if (!getenv("CC") && system("cc --version > /dev/null 2>&1") != 0) return 77;
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(bit_exact_every_row),
      cmocka_unit_test(missing_wait_is_reported),
      cmocka_unit_test(write_in_flight_is_reported),
      cmocka_unit_test(missing_proxy_fence_is_reported),
      cmocka_unit_test(missing_wgmma_fence_is_reported),
      cmocka_unit_test(results_land_at_the_wait),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
