/* The tcgen05 tile product (docs/tcgen05.md): one tcgen05.mma per k step,
 * issued by one thread, through the operands' sm_100 shared-memory
 * descriptors (mma/tcgen05_plan.c) or an A in Tensor Memory, and the
 * instruction descriptor of the row (tables/tcgen05_desc.c). The host
 * dialect is the same text with each instruction a tcmma_sim_tcgen05_* call
 * carrying the same opcode (include/tcmma/sim.h). */
#include "tcmma/tcgen05.h"
#include "tcgen05_plan.h"
#include "emit.h"
#include "tables/dialect.h"

#include <stddef.h>
#include <stdio.h>
#include <string.h>

typedef struct {
  const tcmma_tcgen05_call *call;
  const tcmma_tcgen05_info *info;
  tcmma_tcgen05_operand a, b;
  long a_panel_rows, b_panel_rows; /* the call's, where its size covers them */
  const char *name;
  uint32_t idesc;
  bool scaled;       /* block-scaled: the scale addresses are parameters */
  bool host;
  tcmma_dialect dl;
} tc;

#define SPELL(g, id) tcmma__table_spell((g)->dl, TCMMA__SPELL_##id)

/* An A in Tensor Memory: K-major, a precision the row reads as tcmma
 * stores it (no fp6 or fp4). */
static tcmma_status check_tmem_a(const tcmma_tcgen05_call *c, const tcmma_tcgen05_info *i,
                                 tcmma_error *err) {
  if (!tcmma_tcgen05_shape_ok(c->arm, c->m, c->n))
    return tcmma_fail(err, TCMMA_DECLINED, "%s: %d x %d is not an instruction shape",
                      i->marker, c->m, c->n);
  if (c->a.transposed)
    return tcmma_fail(err, TCMMA_DECLINED, "%s: an A in Tensor Memory is K-major; this one is "
                      "stored transposed", i->marker);
  if (!tcmma_tcgen05_reads_storage(c->arm, c->a.prec))
    return tcmma_fail(err, TCMMA_DECLINED, "%s does not read an A of %s from Tensor Memory as "
                      "tcmma stores it", i->marker, tcmma_prec_name(c->a.prec));
  return TCMMA_OK;
}

/* Whether a K-major operand's row holds the call's k from its origin
 * (packed fp4 as its bytes), a panel-major one's panel. */
static tcmma_status k_fits(const tcmma_tcgen05_call *c, tcmma_operand op,
                           const tcmma_operand_desc *d, long panel_rows, tcmma_error *err) {
  tcmma_operand_desc twin;
  tcmma__desc_arm arm;
  tcmma__desc_plan scratch;
  long k;
  tcmma_status s = tcmma__tcgen05_twin(c->arm, c->m, d, c->k, &twin, &arm, &k, &scratch, err);
  arm.panel_rows = panel_rows;
  return s != TCMMA_OK ? s : tcmma__desc_k_fits(&arm, op, &twin, k, err);
}

/* The call's first version ends with dialect: a field appended later is
 * read only when the caller's size covers it (the panels). */
#define CALL_V1_SIZE (offsetof(tcmma_tcgen05_call, dialect) + sizeof(tcmma_dialect))
#define CALL_V2_SIZE offsetof(tcmma_tcgen05_call, a_panel_rows)

static tcmma_status check_call(const tcmma_tcgen05_call *c, tc *g, tcmma_error *err) {
  if (!c || c->size < CALL_V1_SIZE)
    return tcmma_fail(err, TCMMA_INVALID, "tcgen05 render: the call is NULL or its size %zu is "
                      "below %zu (start it with TCMMA_TCGEN05_CALL_INIT)", c ? c->size : 0,
                      (size_t)CALL_V1_SIZE);
  g->dl = c->dialect;
  if (g->dl != TCMMA_DIALECT_CUDA && g->dl != TCMMA_DIALECT_HOST)
    return tcmma_fail(err, TCMMA_INVALID, "tcgen05 render: dialect %d: expected cuda (0) or host "
                      "(1)", (int)g->dl);
  g->host = g->dl == TCMMA_DIALECT_HOST;
  if (!(g->info = tcmma_tcgen05_get(c->arm)))
    return tcmma_fail(err, TCMMA_INVALID, "tcgen05 arm %d is out of range", (int)c->arm);
  g->name = c->name ? c->name : "tcmma_tcgen05_tile";
  if (!tcmma__emit_is_ident(g->name, 64))
    return tcmma_fail(err, TCMMA_INVALID, "tcgen05 render: name '%s' is not a C identifier of at "
                      "most 64 characters", g->name);
  g->scaled = g->info->block > 0;
  if (c->k <= 0 || c->k % g->info->k)
    return tcmma_fail(err, TCMMA_DECLINED, "%s: k %d must be a positive multiple of %d",
                      g->info->marker, c->k, g->info->k);
  bool panels = c->size >= CALL_V2_SIZE + 2 * sizeof(long);
  long pa = g->a_panel_rows = panels && !c->a_tmem ? c->a_panel_rows : 0,
       pb = g->b_panel_rows = panels ? c->b_panel_rows : 0;
  tcmma_status s = c->a_tmem ? check_tmem_a(c, g->info, err)
                             : tcmma_tcgen05_operand_plan_panels(c->arm, TCMMA_OPERAND_A, c->m,
                                                                 c->n, &c->a, pa, &g->a, err);
  if (s == TCMMA_OK)
    s = tcmma_tcgen05_operand_plan_panels(c->arm, TCMMA_OPERAND_B, c->m, c->n, &c->b, pb, &g->b,
                                          err);
  /* the descriptors' k steps walk along a K-major operand's stored row, or
   * down a panel */
  if (s == TCMMA_OK && !c->a_tmem) s = k_fits(c, TCMMA_OPERAND_A, &c->a, pa, err);
  if (s == TCMMA_OK) s = k_fits(c, TCMMA_OPERAND_B, &c->b, pb, err);
  if (s != TCMMA_OK) return s;
  s = tcmma_tcgen05_idesc(c->arm, c->m, c->n, c->a.prec, c->b.prec, g->a.trans, g->b.trans,
                          &g->idesc, err);
  return s == TCMMA_INVALID ? tcmma_fail(err, TCMMA_DECLINED, "%s", err ? err->message : "") : s;
}

/* "K-major, 128-byte swizzle", "M-major, 128-byte swizzle, panels of 64
 * rows", or "Tensor Memory, K-major". */
static void where(const tcmma_operand_desc *d, const tcmma_tcgen05_operand *o, bool tmem, bool is_a,
                  long panel_rows, char *buf, size_t cap) {
  if (tmem) {
    snprintf(buf, cap, "Tensor Memory, K-major");
    return;
  }
  tcmma__desc_where(o->trans, is_a, d->swizzle, panel_rows, buf, cap);
}

static void header(const tc *g, tcmma_buf *out) {
  const tcmma_tcgen05_call *c = g->call;
  char a[80], b[80];
  where(&c->a, &g->a, c->a_tmem, true, g->a_panel_rows, a, sizeof a);
  where(&c->b, &g->b, false, false, g->b_panel_rows, b, sizeof b);
  tcmma_buf_printf(out,
                   "/* tcgen05 tile product (%s): D[%d x %d] += A[%d x %d] B[%d x %d]\n"
                   " * in Tensor Memory at d_tmem (D = A B when accumulate is false), %d x\n"
                   " *   %s\n"
                   " * instruction descriptor 0x%08x;\n"
                   " * A (%s) and B (%s).\n"
                   " * ONE thread calls it; it completes asynchronously: commit it to an\n"
                   " * mbarrier (tcmma_tcgen05_commit) and wait on that before reading D\n"
                   " * (tcmma layout %s c --m %d --n %d). */\n",
                   g->info->marker, c->m, c->n, c->m, c->k, c->k, c->n, c->k / g->info->k,
                   g->info->instr, (unsigned)g->idesc, a, b, g->info->marker, c->m, c->n);
}

/* The signature and the shared operands' addresses. */
static void signature(const tc *g, tcmma_buf *out) {
  const tcmma_tcgen05_call *c = g->call;
  tcmma_buf_printf(out, "%s void %s(unsigned tcmma_d, ", SPELL(g, DEVICE_FN), g->name);
  if (c->a_tmem) tcmma_buf_printf(out, "unsigned tcmma_a_tmem, ");
  else tcmma_buf_printf(out, "const %s *tcmma_a, ", tcmma__table_spell_type(g->dl, c->a.prec));
  tcmma_buf_printf(out, "const %s *tcmma_b,\n    %s tcmma_accumulate%s) {\n",
                   tcmma__table_spell_type(g->dl, c->b.prec), SPELL(g, BOOL),
                   g->scaled ? ", unsigned tcmma_sfa, unsigned tcmma_sfb" : "");
  if (!c->a_tmem)
    tcmma_buf_printf(out, "  const unsigned tcmma_a_at = (unsigned)%s(tcmma_a) + %ldu;\n",
                     SPELL(g, CVTA_SHARED), g->a.origin_bytes);
  tcmma_buf_printf(out, "  const unsigned tcmma_b_at = (unsigned)%s(tcmma_b) + %ldu;\n",
                   SPELL(g, CVTA_SHARED), g->b.origin_bytes);
  if (!g->scaled)
    tcmma_buf_printf(out, "  const unsigned tcmma_idesc = 0x%08xu;\n", (unsigned)g->idesc);
}

/* Columns a full cell of scales moves the address of rows rows. */
static int group_columns(const tc *g, int rows) {
  return tcmma_tcgen05_scale_atoms(g->call->arm, rows, g->info->block * TCMMA_TCGEN05_SCALE_BYTES) *
         TCMMA_TCGEN05_SCALE_ATOM_ROWS / TCMMA_TCGEN05_SCALE_LANES;
}

/* A block-scaled step's scale addresses and ids: step s reads blocks
 * vec s.. from the first address's byte (its top two bits) on, the id the
 * byte within the cell, the address a group of columns further per full
 * cell (tables/tcgen05_desc.def SCALE rows). */
static void step_scales(const tc *g, tcmma_buf *out) {
  const tcmma_tcgen05_call *c = g->call;
  int vec = g->info->k / g->info->block, cell = TCMMA_TCGEN05_SCALE_BYTES;
  tcmma_buf_printf(out,
                   "    /* the scales: byte (first + %d s) of the cells, %d (A) and %d (B)\n"
                   "     * columns further per %d bytes; the byte is the scale id */\n"
                   "    const unsigned tcmma_ba = (tcmma_sfa >> 30) + (unsigned)tcmma_s * %du;\n"
                   "    const unsigned tcmma_bb = (tcmma_sfb >> 30) + (unsigned)tcmma_s * %du;\n"
                   "    const unsigned tcmma_sfa_s = (tcmma_sfa & 0x3FFFFFFFu) + tcmma_ba / %du * %du;\n"
                   "    const unsigned tcmma_sfb_s = (tcmma_sfb & 0x3FFFFFFFu) + tcmma_bb / %du * %du;\n"
                   "    const unsigned tcmma_idesc = 0x%08xu | tcmma_ba %% %du << %d | tcmma_bb %% %du << %d;\n",
                   vec, group_columns(g, c->m), group_columns(g, c->n), cell, vec, vec, cell,
                   group_columns(g, c->m), cell, group_columns(g, c->n), (unsigned)g->idesc, cell,
                   tcmma_tcgen05_idesc_bit(c->arm, TCMMA_TCGEN05_IDESC_A_SCALE_ID), cell,
                   tcmma_tcgen05_idesc_bit(c->arm, TCMMA_TCGEN05_IDESC_B_SCALE_ID));
}

/* The instruction: inline asm (CUDA) or the simulator's call (host). */
static void mma(const tc *g, tcmma_buf *out) {
  const tcmma_tcgen05_call *c = g->call;
  const char *a = c->a_tmem ? "tcmma_a_step" : "tcmma_da";
  if (g->host) {
    tcmma_buf_printf(out, "    tcmma_sim_tcgen05_mma%s%s(\"%s\", tcmma_d, %s, tcmma_db, tcmma_idesc,%s\n"
                          "        (int)(tcmma_accumulate || tcmma_s > 0));\n",
                     g->scaled ? "_scaled" : "", c->a_tmem ? "_tmem_a" : "", g->info->instr, a,
                     g->scaled ? " tcmma_sfa_s, tcmma_sfb_s," : "");
    return;
  }
  int p = g->scaled ? 6 : 4; /* the operand the predicate is set from */
  tcmma_buf_printf(out, "    asm volatile(\"{\\n\"\n                 \".reg .pred p;\\n\"\n"
                        "                 \"setp.ne.b32 p, %%%d, 0;\\n\"\n"
                        "                 \"%s [%%0], %s, %%2, %%3%s, p;\\n\"\n"
                        "                 \"}\\n\"\n",
                   p, g->info->instr, c->a_tmem ? "[%1]" : "%1", g->scaled ? ", [%4], [%5]" : "");
  tcmma_buf_printf(out, "                 :: \"r\"(tcmma_d), \"%s\"(%s), \"l\"(tcmma_db), "
                        "\"r\"(tcmma_idesc),\n                    %s\"r\"((int)(tcmma_accumulate "
                        "|| tcmma_s > 0))\n                 : \"memory\");\n",
                   c->a_tmem ? "r" : "l", a, g->scaled ? "\"r\"(tcmma_sfa_s), \"r\"(tcmma_sfb_s), " : "");
}

static void body(const tc *g, tcmma_buf *out) {
  const tcmma_tcgen05_call *c = g->call;
  signature(g, out);
  /* each descriptor's start address (bits 0-13: >> 4) once; a k step adds
   * its advance >> 4 (the advances are whole 16 bytes, and a shared address
   * below 2^18 never carries out of the field) */
  if (!c->a_tmem)
    tcmma_buf_printf(out, "  const unsigned long long tcmma_da0 = 0x%016llxull | ((tcmma_a_at & "
                          "0x3FFFFu) >> 4);\n", (unsigned long long)g->a.desc);
  tcmma_buf_printf(out, "  const unsigned long long tcmma_db0 = 0x%016llxull | ((tcmma_b_at & "
                        "0x3FFFFu) >> 4);\n", (unsigned long long)g->b.desc);
  tcmma_buf_printf(out, "%s\n  for (int tcmma_s = 0; tcmma_s < %d; tcmma_s++) {\n",
                   SPELL(g, UNROLL), c->k / g->info->k);
  if (c->a_tmem)
    /* a k step of A: k elements of 32-bit columns further along each lane */
    tcmma_buf_printf(out, "    const unsigned tcmma_a_step = tcmma_a_tmem + tcmma_s * %du;\n",
                     g->info->k * tcmma_prec_bits(c->a.prec) / 32);
  else
    tcmma_buf_printf(out, "    const unsigned long long tcmma_da = tcmma_da0 + (unsigned long "
                          "long)(tcmma_s * %ld);\n", g->a.k_step_bytes >> 4);
  tcmma_buf_printf(out, "    const unsigned long long tcmma_db = tcmma_db0 + (unsigned long "
                        "long)(tcmma_s * %ld);\n", g->b.k_step_bytes >> 4);
  if (g->scaled) step_scales(g, out);
  mma(g, out);
  tcmma_buf_printf(out, "  }\n}\n");
}

tcmma_status tcmma_tcgen05_render(const tcmma_tcgen05_call *call, tcmma_buf *out, tcmma_error *err) {
  tc g = {.call = call};
  if (!out) return tcmma_fail(err, TCMMA_INVALID, "tcgen05 render: out must not be NULL");
  tcmma_status s = check_call(call, &g, err);
  if (s != TCMMA_OK) return s;
  if (g.host) {
    tcmma_buf_printf(out, "#include \"tcmma/sim.h\"\n");
  } else {
    /* the operands' types (cuda_bf16.h, cuda_fp8.h, ...) */
    const char *ha = tcmma_prec_header(call->a.prec), *hb = tcmma_prec_header(call->b.prec);
    if (ha[0]) tcmma_buf_printf(out, "#include <%s>\n", ha);
    if (hb[0] && strcmp(ha, hb) != 0) tcmma_buf_printf(out, "#include <%s>\n", hb);
  }
  header(&g, out);
  body(&g, out);
  return out->failed ? tcmma_fail(err, TCMMA_NO_MEMORY, "tcgen05 render: out of memory") : TCMMA_OK;
}
