/* A one-block tcgen05 test kernel in either dialect (tests/util.h): the
 * public pieces (the TMA/mbarrier helpers, the Tensor Memory helpers, the
 * ld/st helpers and the tile product) around one product. */
#include <string.h>
#include "util.h"
#include "tcmma/tma.h"

/* Bytes of an operand: its rows times ld (or the dense row). */
static long operand_bytes(const tcmma_operand_desc *d, long rows, long k) {
  long eb = tcmma_prec_bits(d->prec) / 8, span = tcmma_swizzle_get(d->swizzle)->bytes;
  long row = d->ld ? d->ld : (span ? span / eb : k);
  return rows * row * eb;
}

static long a_rows(const tcmma_tcgen05_call *c) { return c->a.transposed ? c->k : c->m; }
static long b_rows(const tcmma_tcgen05_call *c) { return c->b.transposed ? c->n : c->k; }

long tcgen05_b_at(const tcmma_tcgen05_call *c) {
  long a = c->a_tmem ? 0 : operand_bytes(&c->a, a_rows(c), c->k);
  return (a + 1023) / 1024 * 1024;
}

/* Block-scaled rows: the scale atoms of A (m rows) and B (n), A's first. */
int tcgen05_scale_atoms(const tcmma_tcgen05_call *c, tcmma_operand op) {
  return tcmma_tcgen05_scale_atoms(c->arm, op == TCMMA_OPERAND_A ? c->m : c->n, c->k);
}

long tcgen05_sf_at(const tcmma_tcgen05_call *c) {
  return (tcgen05_b_at(c) + operand_bytes(&c->b, b_rows(c), c->k) + 15) / 16 * 16;
}

static long sf_bytes(const tcmma_tcgen05_call *c) {
  return (long)(tcgen05_scale_atoms(c, TCMMA_OPERAND_A) + tcgen05_scale_atoms(c, TCMMA_OPERAND_B)) *
         TCMMA_TCGEN05_SCALE_ATOM_BYTES;
}

static long bar_at(const tcmma_tcgen05_call *c) { return tcgen05_sf_at(c) + sf_bytes(c); }

/* Tensor Memory columns of A's and B's scales (4 per atom). */
static int sf_columns(const tcmma_tcgen05_call *c, tcmma_operand op) {
  return tcgen05_scale_atoms(c, op) * TCMMA_TCGEN05_SCALE_ATOM_ROWS / TCMMA_TCGEN05_SCALE_LANES;
}

size_t tcgen05_shared_bytes(const tcmma_tcgen05_call *c) { return (size_t)bar_at(c) + 16; }

int tcgen05_a_words(const tcmma_tcgen05_call *c) {
  return c->a_tmem ? c->k * tcmma_prec_bits(c->a.prec) / 32 : 0;
}

/* Columns: D's n, then A's words, then A's and B's scale columns; a power
 * of two of at least 32. */
static int columns(const tcmma_tcgen05_call *c) {
  int need = c->n + tcgen05_a_words(c) + sf_columns(c, TCMMA_OPERAND_A) +
             sf_columns(c, TCMMA_OPERAND_B), cols = 32;
  while (cols < need) cols *= 2;
  return cols;
}

/* Columns per tcgen05.ld: the largest power of two dividing n, at most 128. */
static int load_columns(const tcmma_tcgen05_call *c) {
  int chunk = c->n & -c->n;
  return chunk < 128 ? chunk : 128;
}

static void body(const tcmma_tcgen05_call *c, bool host, tcmma_buf *out) {
  const char *sync = host ? "tcmma_sim_syncthreads()" : "__syncthreads()";
  int aw = tcgen05_a_words(c), chunk = load_columns(c);
  bool scaled = tcmma_tcgen05_get(c->arm)->block > 0;
  tcmma_buf_printf(out,
      "  unsigned long long *tcmma_bar = (unsigned long long *)(tcmma_s + %ld);\n"
      "  unsigned *tcmma_slot = (unsigned *)(tcmma_s + %ld);\n"
      "  if (tcmma_t < 32) { tcmma_tmem_alloc(tcmma_slot, %d); tcmma_tmem_relinquish(); }\n"
      "  if (tcmma_t == 0) { tcmma_mbar_init(tcmma_bar, 1); tcmma_mbar_init_fence(); }\n"
      "  tcmma_fence_proxy_async();\n  tcmma_tcgen05_fence_before();\n  %s;\n"
      "  tcmma_tcgen05_fence_after();\n"
      "  const unsigned tcmma_tmem = *tcmma_slot;\n"
      "  const unsigned tcmma_lane = (tcmma_t / 32 * 32) << 16;\n",
      bar_at(c), bar_at(c) + 8, columns(c), sync);
  if (aw)
    tcmma_buf_printf(out, "  unsigned tcmma_aw[%d];\n"
                          "  for (int tcmma_j = 0; tcmma_j < %d; tcmma_j++) tcmma_aw[tcmma_j] = gta[tcmma_t * %d + tcmma_j];\n"
                          "  tcmma_tcgen05_st_32x32b_x%d(tcmma_tmem + tcmma_lane + %d, tcmma_aw);\n",
                     aw, aw, aw, aw, c->n);
  if (aw)
    tcmma_buf_printf(out, "  tcmma_tcgen05_fence_before();\n  %s;\n  tcmma_tcgen05_fence_after();\n", sync);
  int sfa_col = c->n + aw, sfb_col = sfa_col + sf_columns(c, TCMMA_OPERAND_A);
  tcmma_buf_printf(out, "  if (tcmma_t == 0) {\n");
  if (scaled) /* the scales' copies, then the product reading them (in order) */
    tcmma_buf_printf(out, "    tcmma_tcgen05_cp_scales(tcmma_tmem + %d, tcmma_s + %ld, %d);\n"
                          "    tcmma_tcgen05_cp_scales(tcmma_tmem + %d, tcmma_s + %ld, %d);\n",
                     sfa_col, tcgen05_sf_at(c), tcgen05_scale_atoms(c, TCMMA_OPERAND_A), sfb_col,
                     tcgen05_sf_at(c) + (long)tcgen05_scale_atoms(c, TCMMA_OPERAND_A) *
                                            TCMMA_TCGEN05_SCALE_ATOM_BYTES,
                     tcgen05_scale_atoms(c, TCMMA_OPERAND_B));
  tcmma_buf_printf(out, "    tcgen05_tile(tcmma_tmem, ");
  if (c->a_tmem) tcmma_buf_printf(out, "tcmma_tmem + %d, ", c->n);
  else tcmma_buf_printf(out, "(const %s *)tcmma_s, ", host ? "void" : tcmma_prec_cuda_type(c->a.prec));
  tcmma_buf_printf(out, "(const %s *)(tcmma_s + %ld), %s", host ? "void" : tcmma_prec_cuda_type(c->b.prec),
                   tcgen05_b_at(c), host ? "0" : "false");
  if (scaled) tcmma_buf_printf(out, ", tcmma_tmem + %d, tcmma_tmem + %d", sfa_col, sfb_col);
  tcmma_buf_printf(out, ");\n    tcmma_tcgen05_commit(tcmma_bar);\n  }\n"
                        "  tcmma_mbar_wait(tcmma_bar, 0);\n  tcmma_tcgen05_fence_after();\n"
                        "  for (int tcmma_c = 0; tcmma_c < %d; tcmma_c += %d) {\n"
                        "    unsigned tcmma_r[%d];\n"
                        "    tcmma_tcgen05_ld_32x32b_x%d(tcmma_tmem + tcmma_lane + tcmma_c, tcmma_r);\n"
                        "    for (int tcmma_j = 0; tcmma_j < %d; tcmma_j++) d[tcmma_t * %d + tcmma_c + tcmma_j] = tcmma_r[tcmma_j];\n"
                        "  }\n  tcmma_tcgen05_fence_before();\n  %s;\n"
                        "  if (tcmma_t < 32) tcmma_tmem_dealloc(tcmma_tmem, %d);\n}\n",
                   c->n, chunk, chunk, chunk, chunk, c->n, sync, columns(c));
}

void tcgen05_kernel(const tcmma_tcgen05_call *call, tcmma_buf *out) {
  tcmma_tcgen05_call c = *call;
  c.name = "tcgen05_tile";
  bool host = c.dialect == TCMMA_DIALECT_HOST;
  int aw = tcgen05_a_words(&c), chunk = load_columns(&c);
  if (host) tcmma_buf_printf(out, "#include \"tcmma/sim.h\"\n");
  assert_int_equal(tcmma_render_tma_helpers(c.dialect, out, NULL), TCMMA_OK);
  assert_int_equal(tcmma_render_tcgen05_helpers(c.dialect, out, NULL), TCMMA_OK);
  assert_int_equal(tcmma_render_tcgen05_ldst(c.dialect, TCMMA_TCGEN05_LDST_32X32B, chunk, false, out, NULL), TCMMA_OK);
  if (aw) assert_int_equal(tcmma_render_tcgen05_ldst(c.dialect, TCMMA_TCGEN05_LDST_32X32B, aw, true, out, NULL), TCMMA_OK);
  if (tcmma_tcgen05_get(c.arm)->block) assert_int_equal(tcmma_render_tcgen05_cp(c.dialect, out, NULL), TCMMA_OK);
  tcmma_error err = {0};
  if (tcmma_tcgen05_render(&c, out, &err) != TCMMA_OK) fail_msg("%s", err.message);
  tcmma_buf_printf(out, "%s tcmma_kernel(unsigned *d, const unsigned char *ga, const unsigned char *gb,\n"
                        "    const unsigned *gta, const unsigned *gsf) {\n",
                   host ? "void" : "extern \"C\" __global__ void __launch_bounds__(128, 1)");
  if (host) tcmma_buf_printf(out, "  unsigned char *tcmma_s = (unsigned char *)tcmma_sim_dynamic_shared();\n"
                                  "  const unsigned tcmma_t = tcmma_sim_lane();\n");
  else tcmma_buf_printf(out, "  extern __shared__ __align__(1024) unsigned char tcmma_s[];\n"
                             "  const unsigned tcmma_t = threadIdx.x;\n");
  long a_bytes = c.a_tmem ? 0 : operand_bytes(&c.a, a_rows(&c), c.k),
       b_bytes = operand_bytes(&c.b, b_rows(&c), c.k);
  tcmma_buf_printf(out, "  (void)ga, (void)gta, (void)gsf;\n"
                        "  for (long tcmma_i = tcmma_t; tcmma_i < %ld; tcmma_i += 128) tcmma_s[tcmma_i] = ga[tcmma_i];\n"
                        "  for (long tcmma_i = tcmma_t; tcmma_i < %ld; tcmma_i += 128) tcmma_s[%ld + tcmma_i] = gb[tcmma_i];\n"
                        "  for (long tcmma_i = tcmma_t; tcmma_i < %ld; tcmma_i += 128)\n"
                        "    tcmma_s[%ld + tcmma_i] = ((const unsigned char *)gsf)[tcmma_i];\n",
                   a_bytes, b_bytes, tcgen05_b_at(&c), sf_bytes(&c), tcgen05_sf_at(&c));
  body(&c, host, out);
  if (host)
    tcmma_buf_printf(out, "void tcmma_kernel_entry(void *args) {\n  void **p = (void **)args;\n"
                          "  tcmma_kernel(p[0], p[1], p[2], p[3], p[4]);\n}\n");
  assert_false(out->failed);
}
