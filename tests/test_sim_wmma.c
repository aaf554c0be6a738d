/* wmma model: load / mma / store round trips in both layouts for every
 * wmma arm's shape and types, compared with a plain C product; f16
 * accumulators round to f16; tf32 operands are read at tf32 precision. */
#include "util.h"
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "tcmma/sim.h"

enum { MAXD = 32 };

typedef enum { E_F16, E_BF16, E_TF32 } elem;

typedef struct {
  int m, n, k;
  elem ab;          /* element type of A and B */
  bool acc_f16;     /* f16 accumulator (wmma-f16) */
  int la, lb, lc;   /* 0 row, 1 col major, in memory */
  bool convert;     /* tf32: convert loaded elements with __float_to_tf32 */
  /* memory: A m x k, B k x n, C/D m x n, stored with ld = the row/col length
   * plus 8 (a padded leading dimension) */
  unsigned char a[MAXD * 48 * 4] __attribute__((aligned(32)));
  unsigned char b[MAXD * 48 * 4] __attribute__((aligned(32)));
  unsigned char c[MAXD * 48 * 4] __attribute__((aligned(32)));
  unsigned char d[MAXD * 48 * 4] __attribute__((aligned(32)));
  double av[MAXD][MAXD], bv[MAXD][MAXD], cv[MAXD][MAXD];
  unsigned lda, ldb, ldc;
} wcase;

static const char *elem_name(elem e) { return e == E_F16 ? "f16" : e == E_BF16 ? "bf16" : "tf32"; }
static int ab_bytes(elem e) { return e == E_TF32 ? 4 : 2; }

static void put(unsigned char *base, int bytes, size_t idx, float v, bool half_not_bf) {
  if (bytes == 4) {
    memcpy(base + idx * 4, &v, 4);
  } else {
    uint16_t h = half_not_bf ? tcmma_sim_float2half_rn(v).bits : tcmma_sim_float2bfloat16_rn(v).bits;
    memcpy(base + idx * 2, &h, 2);
  }
}

static size_t at(int r, int c, unsigned ld, int layout) {
  return layout == 0 ? (size_t)r * ld + (size_t)c : (size_t)c * ld + (size_t)r;
}

/* A host-dialect lane, as the renderer's wmma body would be. */
static void lane_wmma(void *arg) {
  wcase *t = arg;
  char da[32], db[32], dc[32];
  snprintf(da, sizeof da, "a.m%dn%dk%d.%s.%s", t->m, t->n, t->k, elem_name(t->ab), t->la ? "col" : "row");
  snprintf(db, sizeof db, "b.m%dn%dk%d.%s.%s", t->m, t->n, t->k, elem_name(t->ab), t->lb ? "col" : "row");
  snprintf(dc, sizeof dc, "c.m%dn%dk%d.%s", t->m, t->n, t->k, t->acc_f16 ? "f16" : "f32");
  tcmma_sim_fragment fa, fb, fc;
  tcmma_sim_wmma_load(&fa, da, t->a, t->lda, 0);
  tcmma_sim_wmma_load(&fb, db, t->b, t->ldb, 0);
  if (t->convert) {
    for (int i = 0; i < fa.num_elements; i++) fa.x[i] = tcmma_sim_float_to_tf32(fa.x[i]);
    for (int i = 0; i < fb.num_elements; i++) fb.x[i] = tcmma_sim_float_to_tf32(fb.x[i]);
  }
  tcmma_sim_wmma_load(&fc, dc, t->c, t->ldc, t->lc);
  tcmma_sim_wmma_mma(&fc, &fa, &fb, &fc);
  tcmma_sim_wmma_store(t->d, &fc, t->ldc, t->lc);
}

static float stored(elem e, float v) {
  if (e == E_F16) return tcmma_sim_half2float(tcmma_sim_float2half_rn(v));
  if (e == E_BF16) return tcmma_sim_bfloat162float(tcmma_sim_float2bfloat16_rn(v));
  return v;
}

/* An input element: a small integer (exact in every format) or one in [-1, 1]. */
static float input_value(bool ints) {
  return ints ? (float)(rand() % 7 - 3) : (float)((double)rand() / RAND_MAX * 2 - 1);
}

static wcase *make(int m, int n, int k, elem ab, bool acc_f16, int la, int lb, int lc, bool ints) {
  size_t size = (sizeof(wcase) + 63) / 64 * 64;
  wcase *t = aligned_alloc(64, size); /* the buffers must be 32-byte aligned */
  assert_non_null(t);
  memset(t, 0, size);
  t->m = m, t->n = n, t->k = k, t->ab = ab, t->acc_f16 = acc_f16, t->la = la, t->lb = lb, t->lc = lc;
  int eb = ab_bytes(ab);
  t->lda = (unsigned)((la == 0 ? k : m) + 16 / eb * 2);
  t->ldb = (unsigned)((lb == 0 ? n : k) + 16 / eb * 2);
  t->ldc = (unsigned)((lc == 0 ? n : m) + 16);
  srand((unsigned)(m * 31 + n * 7 + k + ab * 5 + la * 2 + lb * 3 + lc));
  for (int r = 0; r < m; r++)
    for (int c = 0; c < k; c++) {
      float v = input_value(ints);
      put(t->a, eb, at(r, c, t->lda, la), v, ab == E_F16);
      t->av[r][c] = stored(ab, v);
    }
  for (int r = 0; r < k; r++)
    for (int c = 0; c < n; c++) {
      float v = input_value(ints);
      put(t->b, eb, at(r, c, t->ldb, lb), v, ab == E_F16);
      t->bv[r][c] = stored(ab, v);
    }
  for (int r = 0; r < m; r++)
    for (int c = 0; c < n; c++) {
      float v = (float)(rand() % 41 - 20);
      put(t->c, acc_f16 ? 2 : 4, at(r, c, t->ldc, lc), v, true);
      t->cv[r][c] = v;
    }
  return t;
}

static float result(const wcase *t, int r, int c) {
  size_t i = at(r, c, t->ldc, t->lc);
  if (!t->acc_f16) {
    float f;
    memcpy(&f, t->d + i * 4, 4);
    return f;
  }
  uint16_t h;
  memcpy(&h, t->d + i * 2, 2);
  return tcmma_sim_half2float((tcmma_sim_half){h});
}

static void run_exact(int m, int n, int k, elem ab, bool acc_f16) {
  for (int la = 0; la < 2; la++)
    for (int lb = 0; lb < 2; lb++)
      for (int lc = 0; lc < 2; lc++) {
        wcase *t = make(m, n, k, ab, acc_f16, la, lb, lc, true);
        tcmma_error err;
        if (tcmma_sim_launch(lane_wmma, t, &err) != TCMMA_OK) fail_msg("%s", err.message);
        for (int r = 0; r < m; r++)
          for (int c = 0; c < n; c++) {
            double want = t->cv[r][c];
            for (int kk = 0; kk < k; kk++) want += t->av[r][kk] * t->bv[kk][c];
            if (result(t, r, c) != (float)want)
              fail_msg("m%dn%dk%d %s la=%d lb=%d lc=%d: D[%d][%d] = %g, expected %g", m, n, k,
                       elem_name(ab), la, lb, lc, r, c, result(t, r, c), want);
          }
        free(t);
      }
}

static void wmma_f16_shapes(void **state) {
  (void)state;
  run_exact(16, 16, 16, E_F16, false); /* wmma-f16f32, wmma-f16-wide */
  run_exact(16, 16, 16, E_F16, true);  /* wmma-f16 */
  run_exact(32, 8, 16, E_F16, false);
  run_exact(8, 32, 16, E_F16, true);
}

static void wmma_bf16_tf32(void **state) {
  (void)state;
  run_exact(16, 16, 16, E_BF16, false);
  run_exact(16, 16, 8, E_TF32, false);
}

/* An f16 accumulator rounds: 2048 + 1 is a tie in f16 and stays 2048;
 * f32 keeps 2049. */
static void wmma_f16_accumulator_rounds(void **state) {
  (void)state;
  for (int acc16 = 0; acc16 < 2; acc16++) {
    wcase *t = make(16, 16, 16, E_F16, acc16, 0, 0, 0, true);
    memset(t->a, 0, sizeof t->a), memset(t->b, 0, sizeof t->b);
    for (int r = 0; r < 16; r++) put(t->a, 2, at(r, 0, t->lda, 0), 1.0f, true);
    for (int c = 0; c < 16; c++) put(t->b, 2, at(0, c, t->ldb, 0), 1.0f, true);
    for (int r = 0; r < 16; r++)
      for (int c = 0; c < 16; c++) put(t->c, acc16 ? 2 : 4, at(r, c, t->ldc, 0), 2048.0f, true);
    tcmma_error err;
    assert_int_equal(tcmma_sim_launch(lane_wmma, t, &err), TCMMA_OK);
    assert_true(result(t, 3, 5) == (acc16 ? 2048.0f : 2049.0f));
    free(t);
  }
}

/* tf32: converted operands give the product of the cvt.rna-rounded inputs;
 * unconverted ones are read through their top 19 bits (truncated). */
static void wmma_tf32_precision(void **state) {
  (void)state;
  for (int convert = 0; convert < 2; convert++) {
    wcase *t = make(16, 16, 8, E_TF32, false, 0, 0, 0, false);
    t->convert = convert;
    memset(t->c, 0, sizeof t->c);
    tcmma_error err;
    assert_int_equal(tcmma_sim_launch(lane_wmma, t, &err), TCMMA_OK);
    for (int r = 0; r < 16; r++)
      for (int c = 0; c < 16; c++) {
        double want = 0;
        for (int kk = 0; kk < 8; kk++) {
          float a = (float)t->av[r][kk], b = (float)t->bv[kk][c];
          uint32_t ua, ub;
          memcpy(&ua, &a, 4), memcpy(&ub, &b, 4);
          if (convert) ua += 0x1000, ub += 0x1000; /* half away from zero */
          ua &= ~0x1fffu, ub &= ~0x1fffu;
          memcpy(&a, &ua, 4), memcpy(&b, &ub, 4);
          want += (double)a * b;
        }
        assert_true(fabs(result(t, r, c) - want) <= 1e-6 * (1 + fabs(want)));
      }
    free(t);
  }
}

static void lane_bad_desc(void *arg) {
  tcmma_sim_fragment f;
  tcmma_sim_wmma_load(&f, arg, NULL, 16, 0);
}

typedef struct { float mem[16 * 16] __attribute__((aligned(32))); } fmem;
static fmem shared_mem;
static void lane_misaligned(void *arg) {
  (void)arg;
  tcmma_sim_fragment f;
  tcmma_sim_wmma_load(&f, "c.m16n16k16.f32", shared_mem.mem + 1, 16, 0);
}

static void lane_nonuniform(void *arg) {
  (void)arg;
  tcmma_sim_fragment f;
  tcmma_sim_wmma_load(&f, "c.m16n16k16.f32", shared_mem.mem, tcmma_sim_lane() == 9 ? 24 : 16, 0);
}

/* The PTX ISA's ldm rule at its boundary: rows of 24 halves (48 bytes, an
 * odd multiple of 16) load; rows of 20 halves (40 bytes) do not. */
typedef struct { uint16_t mem[16 * 24] __attribute__((aligned(32))); } hmem;
static hmem half_mem;
static void lane_ldm(void *arg) {
  tcmma_sim_fragment f;
  tcmma_sim_wmma_load(&f, "a.m16n16k16.f16.row", half_mem.mem, *(unsigned *)arg, 0);
}

static void wmma_errors(void **state) {
  (void)state;
  tcmma_error err;
  assert_int_equal(tcmma_sim_launch(lane_bad_desc, "a.m16n16k16.f64.row", &err), TCMMA_INVALID);
  assert_non_null(strstr(err.message, "a.m16n16k16.f64.row"));
  assert_int_equal(tcmma_sim_launch(lane_bad_desc, "a.m16n16k16.f16", &err), TCMMA_INVALID);
  assert_int_equal(tcmma_sim_launch(lane_misaligned, NULL, &err), TCMMA_INVALID);
  assert_non_null(strstr(err.message, "aligned"));
  assert_int_equal(tcmma_sim_launch(lane_nonuniform, NULL, &err), TCMMA_INVALID);
  assert_non_null(strstr(err.message, "lane 9"));
  unsigned ldm = 24;
  assert_int_equal(tcmma_sim_launch(lane_ldm, &ldm, &err), TCMMA_OK);
  ldm = 20;
  assert_int_equal(tcmma_sim_launch(lane_ldm, &ldm, &err), TCMMA_INVALID);
  assert_non_null(strstr(err.message, "ldm 20"));
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(wmma_f16_shapes),     cmocka_unit_test(wmma_bf16_tf32),
      cmocka_unit_test(wmma_f16_accumulator_rounds), cmocka_unit_test(wmma_tf32_precision),
      cmocka_unit_test(wmma_errors),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
