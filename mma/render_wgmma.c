/* The warpgroup tile product (docs/wgmma.md): one wgmma.mma_async per k
 * step through the operands' matrix descriptors (mma/wgmma_plan.c), fenced
 * and committed as the PTX ISA asks, the accumulators held in place with
 * "+f"/"+r" constraints so that the compiler neither moves nor copies them
 * across the asynchronous instructions. The host dialect is the same text
 * with each instruction a tcmma_sim_wgmma_* call carrying the same opcode
 * (include/tcmma/sim.h) and the words of tables/dialect.def. */
#include "tcmma/wgmma.h"
#include "desc_plan.h"
#include "emit.h"
#include "tables/dialect.h"

#include <ctype.h>
#include <stddef.h>
#include <stdio.h>
#include <string.h>

typedef struct {
  const tcmma_wgmma_call *call;
  const tcmma_wgmma_info *info;
  tcmma_wgmma_operand a, b;
  const char *name;
  int regs;          /* 32-bit accumulator registers per thread */
  char acc_c;        /* the constraint letter: f (f32) or r (s32, f16 pairs) */
  const char *acc_t; /* the accumulator element's C type */
  char op[128];      /* the opcode */
  bool a_regs;       /* A from registers */
  long a_panel_rows, b_panel_rows; /* the call's, where its size covers them */
  tcmma_dialect dl;
  bool host;         /* dl is the host dialect */
} wg;

#define SPELL(g, id) tcmma__table_spell((g)->dl, TCMMA__SPELL_##id)

static bool identifier(const char *s) {
  if (!s || !(isalpha((unsigned char)s[0]) || s[0] == '_') || strlen(s) > 64) return false;
  for (; *s; s++)
    if (!isalnum((unsigned char)*s) && *s != '_') return false;
  return true;
}

/* A call built before the dialect field: its size stops there; one built
 * before the panels, at them. */
#define CALL_V1_SIZE offsetof(tcmma_wgmma_call, dialect)
#define CALL_V2_SIZE offsetof(tcmma_wgmma_call, a_panel_rows)

static tcmma_status check_call(const tcmma_wgmma_call *c, wg *g, tcmma_error *err) {
  if (!c || c->size < CALL_V1_SIZE)
    return tcmma_fail(err, TCMMA_INVALID, "wgmma render: the call is NULL or its size %zu is "
                      "below %zu (start it with TCMMA_WGMMA_CALL_INIT)", c ? c->size : 0,
                      (size_t)CALL_V1_SIZE);
  g->dl = c->size >= CALL_V1_SIZE + sizeof c->dialect ? c->dialect : TCMMA_DIALECT_CUDA;
  if (g->dl != TCMMA_DIALECT_CUDA && g->dl != TCMMA_DIALECT_HOST)
    return tcmma_fail(err, TCMMA_INVALID, "wgmma render: dialect %d: expected cuda (0) or host "
                      "(1)", (int)g->dl);
  g->host = g->dl == TCMMA_DIALECT_HOST;
  if (!(g->info = tcmma_wgmma_get(c->arm)))
    return tcmma_fail(err, TCMMA_INVALID, "wgmma arm %d is out of range", (int)c->arm);
  g->name = c->name ? c->name : "tcmma_wgmma_tile";
  if (!identifier(g->name))
    return tcmma_fail(err, TCMMA_INVALID, "wgmma render: name '%s' is not a C identifier of at "
                      "most 64 characters", g->name);
  if (c->wait < 0 || c->wait > 7)
    return tcmma_fail(err, TCMMA_INVALID, "wgmma render: wait %d: expected 0 to 7", c->wait);
  if (c->k <= 0 || c->k % g->info->k)
    return tcmma_fail(err, TCMMA_DECLINED, "%s: k %d must be a positive multiple of %d",
                      g->info->marker, c->k, g->info->k);
  bool panels = c->size >= CALL_V2_SIZE + 2 * sizeof(long);
  long pa = g->a_panel_rows = panels ? c->a_panel_rows : 0,
       pb = g->b_panel_rows = panels ? c->b_panel_rows : 0;
  tcmma_status s = tcmma_wgmma_operand_plan_panels(c->arm, TCMMA_OPERAND_A, c->n, &c->a, pa,
                                                   &g->a, err);
  if (s == TCMMA_OK)
    s = tcmma_wgmma_operand_plan_panels(c->arm, TCMMA_OPERAND_B, c->n, &c->b, pb, &g->b, err);
  /* the descriptors' k steps walk along a K-major operand's stored row, or
   * down a panel */
  tcmma__desc_arm arm = {g->info->marker, g->info->m, g->info->k, g->info->trans, pa};
  if (s == TCMMA_OK) s = tcmma__desc_k_fits(&arm, TCMMA_OPERAND_A, &c->a, c->k, err);
  arm.panel_rows = pb;
  if (s == TCMMA_OK) s = tcmma__desc_k_fits(&arm, TCMMA_OPERAND_B, &c->b, c->k, err);
  if (s != TCMMA_OK) return s;
  if (!tcmma_wgmma_takes(c->arm, c->a.prec, c->b.prec))
    return tcmma_fail(err, TCMMA_DECLINED, "%s does not multiply %s by %s", g->info->marker,
                      tcmma_prec_name(c->a.prec), tcmma_prec_name(c->b.prec));
  g->regs = tcmma_wgmma_acc_regs(c->arm, c->n);
  g->a_regs = c->a.space == TCMMA_SPACE_THREAD;
  g->acc_c = g->info->acc == TCMMA_PREC_F32 ? 'f' : 'r';
  g->acc_t = g->info->acc == TCMMA_PREC_F32 ? "float" : g->info->acc == TCMMA_PREC_S32 ? "int"
                                                                                        : "unsigned";
  return tcmma_wgmma_instruction(c->arm, c->n, c->a.prec, c->b.prec, g->op, sizeof g->op, err);
}

/* "K-major, 128-byte swizzle", "N-major, 128-byte swizzle, panels of 64
 * rows", or "registers, K-major". */
static void where(const tcmma_operand_desc *d, const tcmma_wgmma_operand *o, bool regs, bool is_a,
                  long panel_rows, char *buf, size_t cap) {
  if (regs) {
    snprintf(buf, cap, "registers, K-major");
    return;
  }
  tcmma__desc_where(o->trans, is_a, d->swizzle, panel_rows, buf, cap);
}

static void header(const wg *g, tcmma_buf *out) {
  const tcmma_wgmma_call *c = g->call;
  char a[80], b[80];
  where(&c->a, &g->a, g->a_regs, true, g->a_panel_rows, a, sizeof a);
  where(&c->b, &g->b, false, false, g->b_panel_rows, b, sizeof b);
  tcmma_buf_printf(out,
                   "/* warpgroup tile product (%s): acc[64 x %d] += A[64 x %d] B[%d x %d]\n"
                   " * (acc = A B when accumulate is false), %d x\n"
                   " *   %s\n"
                   " * A (%s) and B (%s); shared operands\n"
                   " * read through matrix descriptors, each parent 1024-byte aligned. Every\n"
                   " * thread of one warpgroup calls it together; acc is the thread's share\n"
                   " * (tcmma layout %s c --n %d). */\n",
                   g->info->marker, c->n, c->k, c->k, c->n, c->k / g->info->k, g->op, a, b,
                   g->info->marker, c->n);
  tcmma_buf_printf(out,
                   "/* after the block's ordinary stores of A and B: the async proxy (wgmma)\n"
                   " * sees them; every thread of the block */\n"
                   "%s void %s_publish(%s) {\n  ", SPELL(g, DEVICE_FN), g->name,
                   g->host ? "void" : "");
  tcmma_buf_printf(out, g->host ? "tcmma_sim_fence(\"%s\");\n" : "asm volatile(\"%s;\\n\" ::: \"memory\");\n",
                   tcmma__emit_collective_opcode(TCMMA__COLL_FENCE_PROXY_ASYNC));
  tcmma_buf_printf(out, "  %s;\n}\n\n", SPELL(g, SYNCTHREADS));
}

/* An instruction without operands of tables/collectives.def: the asm
 * statement, or the host's call fn with the same opcode. */
static void plain(const wg *g, const char *fn, const char *opcode, tcmma_buf *out) {
  if (g->host) tcmma_buf_printf(out, "  %s(\"%s\");\n", fn, opcode);
  else tcmma_buf_printf(out, "  asm volatile(\"%s;\\n\" ::: \"memory\");\n", opcode);
}

/* asm volatile("" : "+f"(acc[i])) for every register: the compiler keeps
 * each in place across the asynchronous instructions. */
static void hold(const wg *g, tcmma_buf *out) {
  if (g->host) {
    tcmma_buf_printf(out, "  tcmma_sim_wgmma_hold(tcmma_acc, %d);\n", g->regs);
    return;
  }
  tcmma_buf_printf(out,
                   "#pragma unroll\n"
                   "  for (int tcmma_i = 0; tcmma_i < %d; tcmma_i++)\n"
                   "    asm volatile(\"\" : \"+%c\"(tcmma_acc[tcmma_i])::\"memory\");\n",
                   g->regs, g->acc_c);
}

/* The opcode's operand list: the registers, both descriptors, scale-d and,
 * as the row has them, imm-scale-a/-b and imm-trans-a/-b. */
static void mma_asm(const wg *g, tcmma_buf *out) {
  int b_at = g->regs + (g->a_regs ? TCMMA_WGMMA_A_REGS : 1);
  tcmma_buf_printf(out, "    asm volatile(\"{\\n\"\n                 \".reg .pred p;\\n\"\n"
                        "                 \"setp.ne.b32 p, %%%d, 0;\\n\"\n"
                        "                 \"%s {\"\n                 \"", b_at + 1, g->op);
  for (int r = 0; r < g->regs; r++)
    tcmma_buf_printf(out, "%%%d%s", r, r + 1 == g->regs ? "" : (r % 8 == 7 ? ", \"\n                 \"" : ", "));
  if (g->a_regs)
    tcmma_buf_printf(out, "}, {%%%d, %%%d, %%%d, %%%d}, %%%d, p", g->regs, g->regs + 1,
                     g->regs + 2, g->regs + 3, b_at);
  else tcmma_buf_printf(out, "}, %%%d, %%%d, p", g->regs, b_at);
  if (g->info->acc != TCMMA_PREC_S32) tcmma_buf_printf(out, ", 1, 1");
  /* a register A has no imm-trans-a */
  if (g->info->trans && !g->a_regs) tcmma_buf_printf(out, ", %d, %d", g->a.trans, g->b.trans);
  else if (g->info->trans) tcmma_buf_printf(out, ", %d", g->b.trans);
  tcmma_buf_printf(out, ";\\n\"\n                 \"}\\n\"\n                 : ");
  for (int r = 0; r < g->regs; r++)
    tcmma_buf_printf(out, "\"+%c\"(tcmma_acc[%d])%s", g->acc_c, r,
                     r + 1 == g->regs ? "" : (r % 4 == 3 ? ",\n                   " : ", "));
  if (g->a_regs)
    tcmma_buf_printf(out, "\n                 : \"r\"(tcmma_a[tcmma_s][0]), \"r\"(tcmma_a[tcmma_s][1]), "
                          "\"r\"(tcmma_a[tcmma_s][2]),\n                   \"r\"(tcmma_a[tcmma_s][3]), "
                          "\"l\"(tcmma_db), \"r\"((int)(tcmma_accumulate || tcmma_s > 0)));\n");
  else
    tcmma_buf_printf(out, "\n                 : \"l\"(tcmma_da), \"l\"(tcmma_db), "
                          "\"r\"((int)(tcmma_accumulate || tcmma_s > 0)));\n");
}

/* The host dialect's product: the simulator's call, the same opcode and
 * operands (imm-trans 0 where the row has none). */
static void mma_call(const wg *g, tcmma_buf *out) {
  int ta = g->info->trans && !g->a_regs ? g->a.trans : 0, tb = g->info->trans ? g->b.trans : 0;
  tcmma_buf_printf(out, "    tcmma_sim_wgmma_mma(\"%s\", tcmma_acc, %s, %s, tcmma_db,\n"
                        "                        (int)(tcmma_accumulate || tcmma_s > 0), %d, %d);\n",
                   g->op, g->a_regs ? "tcmma_a[tcmma_s]" : "NULL", g->a_regs ? "0ull" : "tcmma_da",
                   ta, tb);
}

/* The signature and the operands' shared addresses (a register A: the
 * caller's fragments, one per k step). */
static void signature(const wg *g, tcmma_buf *out) {
  const tcmma_wgmma_call *c = g->call;
  const char *ta = tcmma__table_spell_type(g->dl, c->a.prec),
             *tb = tcmma__table_spell_type(g->dl, c->b.prec);
  /* CUDA: references to the caller's arrays; C: the arrays themselves */
  const char *ref_open = g->host ? "" : "(&", *ref_close = g->host ? "" : ")";
  tcmma_buf_printf(out, "%s void %s(%s %stcmma_acc%s[%d], ", SPELL(g, DEVICE_FN), g->name,
                   g->acc_t, ref_open, ref_close, g->regs);
  if (g->a_regs) tcmma_buf_printf(out, "const unsigned %stcmma_a%s[%d][%d],\n", ref_open, ref_close,
                                  c->k / g->info->k, TCMMA_WGMMA_A_REGS);
  else tcmma_buf_printf(out, "const %s *tcmma_a,\n", ta);
  tcmma_buf_printf(out, "    const %s *tcmma_b, %s tcmma_accumulate) {\n", tb, SPELL(g, BOOL));
  /* each descriptor with the first step's start address (bits 0-13: the
   * address >> 4); a step adds its advance >> 4 there, which never carries
   * out of the field: an operand's bytes lie in the 256 KiB it addresses */
  if (!g->a_regs)
    tcmma_buf_printf(out, "  const unsigned long long tcmma_da0 = 0x%016llxull |\n"
                          "      ((((unsigned)%s(tcmma_a) + %ldu) & 0x3FFFFu) >> 4);\n",
                     (unsigned long long)g->a.desc, SPELL(g, CVTA_SHARED), g->a.origin_bytes);
  tcmma_buf_printf(out, "  const unsigned long long tcmma_db0 = 0x%016llxull |\n"
                        "      ((((unsigned)%s(tcmma_b) + %ldu) & 0x3FFFFu) >> 4);\n",
                   (unsigned long long)g->b.desc, SPELL(g, CVTA_SHARED), g->b.origin_bytes);
}

static void body(const wg *g, tcmma_buf *out) {
  const tcmma_wgmma_call *c = g->call;
  signature(g, out);
  hold(g, out);
  plain(g, "tcmma_sim_wgmma_fence", tcmma__emit_collective_opcode(TCMMA__COLL_WGMMA_FENCE), out);
  tcmma_buf_printf(out, "%s\n"
                        "  for (int tcmma_s = 0; tcmma_s < %d; tcmma_s++) {\n"
                        "    /* each descriptor at this step's start address */\n",
                   SPELL(g, UNROLL), c->k / g->info->k);
  if (!g->a_regs)
    tcmma_buf_printf(out, "    const unsigned long long tcmma_da = tcmma_da0 + tcmma_s * %ldull; "
                          "/* %ld bytes a step */\n", g->a.k_step_bytes >> 4, g->a.k_step_bytes);
  tcmma_buf_printf(out, "    const unsigned long long tcmma_db = tcmma_db0 + tcmma_s * %ldull; "
                        "/* %ld bytes a step */\n", g->b.k_step_bytes >> 4, g->b.k_step_bytes);
  if (g->host) mma_call(g, out);
  else mma_asm(g, out);
  char wait[64];
  snprintf(wait, sizeof wait, tcmma__emit_collective_opcode(TCMMA__COLL_WGMMA_WAIT), c->wait);
  tcmma_buf_printf(out, "  }\n");
  plain(g, "tcmma_sim_wgmma_commit", tcmma__emit_collective_opcode(TCMMA__COLL_WGMMA_COMMIT), out);
  plain(g, "tcmma_sim_wgmma_wait", wait, out);
  hold(g, out);
  tcmma_buf_printf(out, "}\n");
}

tcmma_status tcmma_wgmma_render(const tcmma_wgmma_call *call, tcmma_buf *out, tcmma_error *err) {
  wg g = {.call = call};
  if (!out) return tcmma_fail(err, TCMMA_INVALID, "wgmma render: out must not be NULL");
  tcmma_status s = check_call(call, &g, err);
  if (s != TCMMA_OK) return s;
  if (g.host) {
    tcmma_buf_printf(out, "#include \"tcmma/sim.h\"\n");
    header(&g, out);
    body(&g, out);
    return TCMMA_OK;
  }
  /* the operands' types (cuda_bf16.h, cuda_fp8.h, ...) */
  const char *ha = tcmma_prec_header(call->a.prec), *hb = tcmma_prec_header(call->b.prec);
  if (ha[0]) tcmma_buf_printf(out, "#include <%s>\n", ha);
  if (hb[0] && strcmp(ha, hb) != 0) tcmma_buf_printf(out, "#include <%s>\n", hb);
  header(&g, out);
  body(&g, out);
  return TCMMA_OK;
}
