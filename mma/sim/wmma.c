/* wmma reference model. Fragment contents are opaque on the GPU; here
 * element t of lane l holds element t*32 + l of the fragment's matrix in
 * row-major order (a: M x K, b: K x N, c: M x N). f16 and bf16 elements hold
 * values of their precision; tf32 elements are read by mma through their
 * top 19 bits only (the text must convert with __float_to_tf32 to round);
 * an f16 accumulator rounds each result to f16. load, mma and store are
 * warp collectives with warp-uniform arguments; fill is per lane. */
#include <math.h>
#include <stdio.h>
#include <string.h>
#include "mma/sim/internal.h"

typedef enum { E_F16, E_BF16, E_TF32, E_F32 } elem_kind;

typedef struct {
  char use;          /* 'a', 'b' or 'c' */
  int m, n, k;
  elem_kind elem;
  int layout;        /* a, b: 0 row, 1 col (from DESC); c: -1 */
  int rows, cols;    /* of the fragment's own matrix */
} frag_desc;

static const char *const elem_names[] = {"f16", "bf16", "tf32", "f32"};

/* "<use>.m<M>n<N>k<K>.<elem>[.<row|col>]" */
static bool parse_desc(const char *desc, frag_desc *d) {
  char s[40], use, elem[8], lay[8], tail[2];
  if (!desc) return false;
  snprintf(s, sizeof s, "%.32s", desc); /* a fragment's desc may lack its NUL */
  int n = sscanf(s, "%c.m%dn%dk%d.%7[a-z0-9].%7[a-z]%1s", &use, &d->m, &d->n, &d->k, elem,
                     lay, tail);
  if (n != 5 && n != 6) return false;
  d->use = use;
  int e = -1;
  for (int i = 0; i < 4; i++)
    if (strcmp(elem, elem_names[i]) == 0) e = i;
  if (e < 0) return false;
  d->elem = (elem_kind)e;
  if (use == 'a' || use == 'b') {
    if (n != 6) return false;
    if (strcmp(lay, "row") == 0) d->layout = 0;
    else if (strcmp(lay, "col") == 0) d->layout = 1;
    else return false;
    if (d->elem == E_F32) return false;
  } else if (use == 'c') {
    if (n != 5) return false;
    if (d->elem != E_F32 && d->elem != E_F16) return false;
    d->layout = -1;
  } else {
    return false;
  }
  /* Rewrite canonically and compare: rejects stray text like "m016". */
  char canon[64];
  if (use == 'c') snprintf(canon, sizeof canon, "c.m%dn%dk%d.%s", d->m, d->n, d->k, elem);
  else snprintf(canon, sizeof canon, "%c.m%dn%dk%d.%s.%s", use, d->m, d->n, d->k, elem, lay);
  if (strcmp(canon, s) != 0) return false;
  /* The shapes the wmma API offers for these element types. */
  bool tf32_shape = d->m == 16 && d->n == 16 && d->k == 8;
  bool half_shape = d->k == 16 && ((d->m == 16 && d->n == 16) || (d->m == 32 && d->n == 8) ||
                                   (d->m == 8 && d->n == 32));
  bool shape_ok = d->elem == E_TF32 ? tf32_shape
                  : d->elem == E_F32 ? (tf32_shape || half_shape)
                                     : half_shape;
  if (!shape_ok) return false;
  d->rows = use == 'b' ? d->k : d->m;
  d->cols = use == 'a' ? d->k : d->n;
  return true;
}

static const char *desc_expected =
    "<a|b>.<shape>.<f16|bf16|tf32>.<row|col> or c.<shape>.<f32|f16>, e.g. a.m16n16k16.f16.row, "
    "c.m16n16k8.f32 (shapes m16n16k16, m32n8k16, m8n32k16; tf32: m16n16k8)";

static int elem_bytes(elem_kind e) { return e == E_F16 || e == E_BF16 ? 2 : 4; }

/* The value an element of kind e holds after a store of v into it (one
 * rounding, from double). */
static float to_elem(elem_kind e, double v) {
  if (e == E_F16)
    return (float)tcmma__sim_decode(&tcmma__sim_fmt_f16,
                                    tcmma__sim_encode(&tcmma__sim_fmt_f16, v, false));
  if (e == E_BF16)
    return (float)tcmma__sim_decode(&tcmma__sim_fmt_bf16,
                                    tcmma__sim_encode(&tcmma__sim_fmt_bf16, v, false));
  return (float)v;
}

static float read_mem(elem_kind e, const unsigned char *p) {
  if (e == E_F16 || e == E_BF16) {
    uint16_t h;
    memcpy(&h, p, 2);
    return (float)tcmma__sim_decode(e == E_F16 ? &tcmma__sim_fmt_f16 : &tcmma__sim_fmt_bf16, h);
  }
  float f;
  memcpy(&f, p, 4);
  return f;
}

static void write_mem(elem_kind e, unsigned char *p, float v) {
  if (e == E_F16 || e == E_BF16) {
    uint16_t h = (uint16_t)tcmma__sim_encode(
        e == E_F16 ? &tcmma__sim_fmt_f16 : &tcmma__sim_fmt_bf16, v, false);
    memcpy(p, &h, 2);
  } else {
    memcpy(p, &v, 4);
  }
}

void tcmma_sim_wmma_fill(tcmma_sim_fragment *f, const char *desc, float value) {
  frag_desc d;
  if (tcmma__sim_current_lane() < 0) return;
  if (!f)
    tcmma__sim_fail_lane("wmma fill: lane %d's fragment is NULL", tcmma__sim_current_lane());
  if (!parse_desc(desc, &d))
    tcmma__sim_fail_lane("wmma fill: unknown fragment '%s': expected %s", desc ? desc : "(null)",
                         desc_expected);
  snprintf(f->desc, sizeof f->desc, "%s", desc);
  f->num_elements = d.rows * d.cols / SIM_LANES;
  for (int t = 0; t < TCMMA_SIM_FRAGMENT_MAX; t++) f->x[t] = t < f->num_elements ? to_elem(d.elem, value) : 0;
}

typedef struct {
  tcmma_sim_fragment *f;
  const tcmma_sim_fragment *a, *b, *c;
  const char *desc;
  const void *ptr;
  unsigned ldm;
  int layout;
} wmma_args;

/* Warp-uniform arguments: every lane must pass the same pointer, ldm and
 * layout (and DESC for load). */
static bool uniform(const char *what, void *const lane_args[SIM_LANES]) {
  const wmma_args *x0 = lane_args[0];
  for (int l = 1; l < SIM_LANES; l++) {
    const wmma_args *x = lane_args[l];
    bool same = x->ptr == x0->ptr && x->ldm == x0->ldm && x->layout == x0->layout &&
                (x->desc == x0->desc || (x->desc && x0->desc && strcmp(x->desc, x0->desc) == 0));
    if (!same) {
      tcmma__sim_fail("%s: lane %d passes (%p, ldm %u, layout %d), lane 0 (%p, ldm %u, layout %d): "
                      "the arguments must be the same on every lane",
                      what, l, x->ptr, x->ldm, x->layout, x0->ptr, x0->ldm, x0->layout);
      return false;
    }
  }
  return true;
}

/* Every lane's fragment pointers that the collective uses (what: its name)
 * are set: f (load, mma), a, b, c (mma; c alone for store). */
static bool fragments(const char *what, void *const lane_args[SIM_LANES], bool f, bool abc,
                      bool c) {
  for (int l = 0; l < SIM_LANES; l++) {
    const wmma_args *x = lane_args[l];
    const char *which = f && !x->f ? "d" : abc && !x->a ? "a" : abc && !x->b ? "b"
                        : (abc || c) && !x->c ? "c" : NULL;
    if (which) {
      tcmma__sim_fail("%s: lane %d's fragment %s is NULL", what, l, which);
      return false;
    }
  }
  return true;
}

/* Checks pointer and ldm for a matrix of d stored with layout (0 row, 1
 * col): 32-byte aligned pointer, ldm*eb a multiple of 16 bytes, ldm at least
 * the stored row length. */
static bool check_memory(const char *what, const frag_desc *d, const void *ptr, unsigned ldm,
                         int layout) {
  int eb = elem_bytes(d->elem);
  unsigned inner = (unsigned)(layout == 0 ? d->cols : d->rows);
  if ((uintptr_t)ptr % 32) { /* NULL: the bounds check of the rows */
    tcmma__sim_fail("%s: pointer %p is not 32-byte aligned", what, ptr);
    return false;
  }
  if ((ldm * (unsigned)eb) % 16 || ldm < inner) {
    tcmma__sim_fail("%s: ldm %u: expected a multiple of %d elements (16 bytes) and at least %u",
                    what, ldm, 16 / eb, inner);
    return false;
  }
  return true;
}

static size_t offset(int r, int c, unsigned ldm, int layout, int eb) {
  return ((size_t)(layout == 0 ? r : c) * ldm + (size_t)(layout == 0 ? c : r)) * (size_t)eb;
}

static void exec_load(const char *opcode, void *const lane_args[SIM_LANES]) {
  (void)opcode;
  const wmma_args *x0 = lane_args[0];
  frag_desc d;
  if (!fragments("wmma load", lane_args, true, false, false) || !uniform("wmma load", lane_args))
    return;
  if (!parse_desc(x0->desc, &d)) {
    tcmma__sim_fail("wmma load: unknown fragment '%s': expected %s", x0->desc ? x0->desc : "(null)",
                    desc_expected);
    return;
  }
  int layout = d.use == 'c' ? x0->layout : d.layout;
  if (layout != 0 && layout != 1) {
    tcmma__sim_fail("wmma load: accumulator layout %d: expected 0 (row major) or 1 (col major)",
                    layout);
    return;
  }
  if (!check_memory("wmma load", &d, x0->ptr, x0->ldm, layout)) return;
  int eb = elem_bytes(d.elem), count = d.rows * d.cols / SIM_LANES;
  /* every stored row it reads: shared data copied by cp.async must have landed */
  int rows = layout == 0 ? d.rows : d.cols, inner = layout == 0 ? d.cols : d.rows;
  for (int r = 0; r < rows; r++)
    if (!tcmma__sim_track_read((const void *)((uintptr_t)x0->ptr + (size_t)r * x0->ldm * eb),
                               (unsigned)(inner * eb), tcmma__sim_current_warp(), 0, "wmma load"))
      return;
  for (int l = 0; l < SIM_LANES; l++) {
    wmma_args *x = lane_args[l];
    snprintf(x->f->desc, sizeof x->f->desc, "%s", x0->desc);
    x->f->num_elements = count;
    for (int t = 0; t < TCMMA_SIM_FRAGMENT_MAX; t++) {
      int p = t * SIM_LANES + l;
      x->f->x[t] = t < count ? read_mem(d.elem, (const unsigned char *)x0->ptr +
                                                    offset(p / d.cols, p % d.cols, x0->ldm,
                                                           layout, eb))
                             : 0;
    }
  }
}

void tcmma_sim_wmma_load(tcmma_sim_fragment *f, const char *desc, const void *ptr, unsigned ldm,
                         int layout) {
  wmma_args args = {.f = f, .desc = desc, .ptr = ptr, .ldm = ldm, .layout = layout};
  tcmma__sim_collective("wmma.load", exec_load, &args);
}

/* What the tensor core reads from an A or B element. */
static double operand(elem_kind e, float v) {
  if (e == E_TF32) {
    uint32_t u;
    memcpy(&u, &v, 4);
    if ((u & 0x7f800000u) != 0x7f800000u) u &= ~0x1fffu;
    memcpy(&v, &u, 4);
    return v;
  }
  return to_elem(e, v);
}

static void exec_mma(const char *opcode, void *const lane_args[SIM_LANES]) {
  (void)opcode;
  const wmma_args *x0 = lane_args[0];
  frag_desc da, db, dc;
  if (!fragments("wmma mma", lane_args, true, true, false)) return;
  if (!parse_desc(x0->a->desc, &da) || !parse_desc(x0->b->desc, &db) ||
      !parse_desc(x0->c->desc, &dc) || da.use != 'a' || db.use != 'b' || dc.use != 'c' ||
      da.m != db.m || da.m != dc.m || da.n != db.n || da.n != dc.n || da.k != db.k ||
      da.k != dc.k || da.elem != db.elem || (dc.elem == E_F16 && da.elem != E_F16)) {
    tcmma__sim_fail(
        "wmma mma: fragments a '%.32s', b '%.32s', c '%.32s' do not fit together: expected "
        "one shape, a and b of one element type, c f32 (or f16 with f16 a and b)",
        x0->a->desc, x0->b->desc, x0->c->desc);
    return;
  }
  for (int l = 1; l < SIM_LANES; l++) {
    const wmma_args *x = lane_args[l];
    if (strncmp(x->a->desc, x0->a->desc, 32) || strncmp(x->b->desc, x0->b->desc, 32) ||
        strncmp(x->c->desc, x0->c->desc, 32)) {
      tcmma__sim_fail("wmma mma: lane %d's fragments differ from lane 0's", l);
      return;
    }
  }
  double A[32][16], B[16][32], C[32][32];
  int M = da.m, N = da.n, K = da.k;
  for (int l = 0; l < SIM_LANES; l++) {
    const wmma_args *x = lane_args[l];
    for (int t = 0; t < M * K / SIM_LANES; t++) {
      int p = t * SIM_LANES + l;
      A[p / K][p % K] = operand(da.elem, x->a->x[t]);
    }
    for (int t = 0; t < K * N / SIM_LANES; t++) {
      int p = t * SIM_LANES + l;
      B[p / N][p % N] = operand(db.elem, x->b->x[t]);
    }
    for (int t = 0; t < M * N / SIM_LANES; t++) {
      int p = t * SIM_LANES + l;
      C[p / N][p % N] = x->c->x[t];
    }
  }
  char cdesc[32];
  snprintf(cdesc, sizeof cdesc, "%.31s", x0->c->desc);
  for (int l = 0; l < SIM_LANES; l++) {
    wmma_args *x = lane_args[l];
    snprintf(x->f->desc, sizeof x->f->desc, "%s", cdesc);
    x->f->num_elements = M * N / SIM_LANES;
    for (int t = 0; t < TCMMA_SIM_FRAGMENT_MAX; t++) {
      int p = t * SIM_LANES + l;
      if (t >= M * N / SIM_LANES) {
        x->f->x[t] = 0;
        continue;
      }
      double sum = C[p / N][p % N];
      for (int kk = 0; kk < K; kk++) sum += A[p / N][kk] * B[kk][p % N];
      x->f->x[t] = to_elem(dc.elem, sum);
    }
  }
}

void tcmma_sim_wmma_mma(tcmma_sim_fragment *d, const tcmma_sim_fragment *a,
                        const tcmma_sim_fragment *b, const tcmma_sim_fragment *c) {
  wmma_args args = {.f = d, .a = a, .b = b, .c = c};
  tcmma__sim_collective("wmma.mma", exec_mma, &args);
}

static void exec_store(const char *opcode, void *const lane_args[SIM_LANES]) {
  (void)opcode;
  const wmma_args *x0 = lane_args[0];
  frag_desc d;
  if (!fragments("wmma store", lane_args, false, false, true) ||
      !uniform("wmma store", lane_args))
    return;
  for (int l = 0; l < SIM_LANES; l++) {
    const wmma_args *x = lane_args[l];
    if (!parse_desc(x->c->desc, &d) || d.use != 'c' || strncmp(x->c->desc, x0->c->desc, 32)) {
      tcmma__sim_fail("wmma store: lane %d's fragment '%.32s' is not an accumulator (c.…) matching "
                      "lane 0's",
                      l, x->c->desc);
      return;
    }
  }
  if (x0->layout != 0 && x0->layout != 1) {
    tcmma__sim_fail("wmma store: layout %d: expected 0 (row major) or 1 (col major)", x0->layout);
    return;
  }
  if (!check_memory("wmma store", &d, x0->ptr, x0->ldm, x0->layout)) return;
  int eb = elem_bytes(d.elem), count = d.rows * d.cols / SIM_LANES;
  /* the stored rows span from ptr to the end of the last one */
  int rows = x0->layout == 0 ? d.rows : d.cols, inner = x0->layout == 0 ? d.cols : d.rows;
  size_t span = ((size_t)(rows - 1) * x0->ldm + (size_t)inner) * (size_t)eb;
  if (!tcmma__sim_access_check(x0->ptr, span, "wmma store", tcmma__sim_current_warp(), 0)) return;
  for (int l = 0; l < SIM_LANES; l++) {
    const wmma_args *x = lane_args[l];
    for (int t = 0; t < count; t++) {
      int p = t * SIM_LANES + l;
      write_mem(d.elem,
                (unsigned char *)x0->ptr + offset(p / d.cols, p % d.cols, x0->ldm, x0->layout, eb),
                x->c->x[t]);
    }
  }
}

void tcmma_sim_wmma_store(void *ptr, const tcmma_sim_fragment *f, unsigned ldm, int layout) {
  wmma_args args = {.c = f, .ptr = ptr, .ldm = ldm, .layout = layout};
  tcmma__sim_collective("wmma.store", exec_store, &args);
}
