/* The rules planning, rendering and the census share (mma/emit.h). */
#include <ctype.h>
#include <errno.h>
#include <limits.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>
#include "emit.h"

/* Whether a coordinate's every value is a multiple of m. */
static bool coord_multiple(const tcmma_coord *c, long m) {
  long mult = c->multiple > 0 ? c->multiple : 1;
  return c->value % m == 0 && (!c->expr || mult % m == 0);
}

bool tcmma__emit_ldmatrix_eligible(const tcmma_operand_desc *o) {
  long eb = tcmma_prec_bytes(o->prec), unit = TCMMA_SWIZZLE_UNIT;
  /* each lane's row is one whole 16-byte unit: aligned rows and origin */
  /* an ld whose bytes overflow is declined by the stride rules later */
  return o->space == TCMMA_SPACE_SHARED && eb > 0 && unit % eb == 0 && o->ld <= LONG_MAX / eb &&
         coord_multiple(&o->col0, unit / eb) &&
         tcmma_swizzle_conflict_free(o->swizzle, o->ld * eb);
}

static bool regs_contiguous(tcmma_arm arm, tcmma_operand op, bool transposed) {
  int regs = tcmma_fragment_regs(arm, op), per = tcmma_fragment_elems_per_reg(arm, op);
  /* more than four elements a register: 4-bit elements (m16n8k64), each a
   * byte in storage, which the gather packs; never one load of the register */
  if (regs == 0 || per > 4) return false;
  for (int lane = 0; lane < TCMMA_WARP_SIZE; lane++)
    for (int r = 0; r < regs; r++) {
      int r0, c0;
      if (tcmma_fragment_layout(arm, op, lane, r, 0, &r0, &c0, NULL) != TCMMA_OK) return false;
      for (int e = 1; e < per; e++) {
        int re, ce;
        if (tcmma_fragment_layout(arm, op, lane, r, e, &re, &ce, NULL) != TCMMA_OK) return false;
        /* stored coordinates: transposed storage swaps the role's axes */
        int dr = transposed ? ce - c0 : re - r0, dc = transposed ? re - r0 : ce - c0;
        if (dr != 0 || dc != e) return false;
      }
    }
  return true;
}

/* Planning asks this of every operand several times and every plan reader
 * plans again (mma/plan_check.c): each answer, a fact of the arm's layout
 * table, is worked out once (0: not yet, 1: false, 2: true). Threads that
 * race write the same answer. */
bool tcmma__emit_regs_contiguous(tcmma_arm arm, tcmma_operand op, bool transposed) {
  static atomic_uchar known[TCMMA_ARM_COUNT][3][2];
  if ((unsigned)arm >= TCMMA_ARM_COUNT || (unsigned)op > TCMMA_OPERAND_C)
    return regs_contiguous(arm, op, transposed);
  atomic_uchar *k = &known[arm][op][transposed];
  unsigned char v = atomic_load_explicit(k, memory_order_relaxed);
  if (!v) {
    v = regs_contiguous(arm, op, transposed) ? 2 : 1;
    atomic_store_explicit(k, v, memory_order_relaxed);
  }
  return v == 2;
}

bool tcmma__emit_vector_loaded(const tcmma_plan *plan, tcmma_operand op) {
  const tcmma_arm_info *info = tcmma_arm_get(plan->arm);
  if (!info || info->form != TCMMA_FORM_PTX || op == TCMMA_OPERAND_C) return false;
  bool ldm = op == TCMMA_OPERAND_A ? plan->a_ldmatrix : plan->b_ldmatrix;
  return !ldm &&
         tcmma__emit_regs_contiguous(plan->arm, op, tcmma__emit_desc(&plan->call, op)->transposed);
}

bool tcmma__emit_d_vector(const tcmma_plan *plan) {
  const tcmma_arm_info *info = tcmma_arm_get(plan->arm);
  if (!info || info->form != TCMMA_FORM_PTX) return false;
  const tcmma_call *c = &plan->call;
  long eb = tcmma_prec_bytes(c->d.prec), vb = 2 * eb, ld = plan->stored[TCMMA_OPERAND_C].ld;
  int per = tcmma_fragment_elems_per_reg(plan->arm, TCMMA_OPERAND_C);
  int elems = tcmma_fragment_regs(plan->arm, TCMMA_OPERAND_C) * per;
  if (!tcmma_prec_pair_type(c->d.prec)[0] || elems % 2) return false;
  /* offset = base + row*ld*eb + col*eb (swizzled: the same within a 16-byte
   * unit, which an aligned pair of at most 16 bytes never leaves): aligned
   * for every row when the base and the row pitch are, and col*eb is */
  long tile_cols = c->d.transposed ? info->m : info->n;
  if (TCMMA_POINTER_ALIGN % vb || (ld * eb) % vb || (tile_cols * eb) % vb) return false;
  /* the origin's columns move every pair alike (its rows: whole rows) */
  if (!coord_multiple(&c->d.col0, vb / eb)) return false;
  /* elements 2j and 2j+1 (two registers, or the two halves of one) */
  for (int lane = 0; lane < TCMMA_WARP_SIZE; lane++)
    for (int i = 0; i < elems; i += 2) {
      int r0, c0, r1, c1;
      if (tcmma_fragment_layout(plan->arm, TCMMA_OPERAND_C, lane, i / per, i % per, &r0, &c0,
                                NULL) != TCMMA_OK ||
          tcmma_fragment_layout(plan->arm, TCMMA_OPERAND_C, lane, (i + 1) / per, (i + 1) % per,
                                &r1, &c1, NULL) != TCMMA_OK)
        return false;
      /* stored coordinates: transposed storage swaps the role's axes */
      int sr0 = c->d.transposed ? c0 : r0, sc0 = c->d.transposed ? r0 : c0;
      int sr1 = c->d.transposed ? c1 : r1, sc1 = c->d.transposed ? r1 : c1;
      if (sr1 != sr0 || sc1 != sc0 + 1 || (sc0 * eb) % vb) return false;
    }
  return true;
}

void tcmma__emit_operand_align(const tcmma_plan *plan, tcmma_operand op, tcmma__emit_align *out) {
  const tcmma_arm_info *info = tcmma_arm_get(plan->arm);
  const tcmma_operand_desc *o = tcmma__emit_desc(&plan->call, op);
  *out = (tcmma__emit_align){1, "no rule", 1, "no rule"};
  if (!info) return;
  if (info->form == TCMMA_FORM_WMMA) {
    /* the converted destination is gathered element by element */
    if (op == TCMMA_OPERAND_C && info->converted_dest) return;
    *out = (tcmma__emit_align){TCMMA_WMMA_LDM_BYTES, "wmma's ldm is a multiple of 16 bytes",
                               TCMMA_WMMA_ALIGN, "wmma loads and stores start 32-byte aligned"};
    return;
  }
  if (op != TCMMA_OPERAND_C && tcmma__emit_regs_contiguous(plan->arm, op, o->transposed))
    *out = (tcmma__emit_align){4, "each fragment register is one aligned 32-bit load", 4,
                               "each fragment register is one aligned 32-bit load"};
  const tcmma_swizzle_info *sw = tcmma_swizzle_get(o->swizzle);
  if (sw && sw->bits) out->rows = sw->bytes, out->rows_why = "swizzled rows are whole spans of the atom";
}

void tcmma__emit_reg_words_of(const tcmma_plan *plan, tcmma_operand op, tcmma_dialect dl,
                              tcmma__emit_reg_words *out) {
  const tcmma_arm_info *info = tcmma_arm_get(plan->arm);
  tcmma_prec prec = op == TCMMA_OPERAND_C ? info->acc : tcmma__emit_desc(&plan->call, op)->prec;
  int per = tcmma_fragment_elems_per_reg(plan->arm, op);
  const tcmma__table_prec_words *w = tcmma__table_prec_words_of(prec);
  *out = (tcmma__emit_reg_words){"unsigned", "r", false, per};
  if (tcmma_prec_bits(prec) == 64 || (op == TCMMA_OPERAND_C && per == 1))
    out->type = tcmma__table_spell(dl, w->type), out->constraint = tcmma__table_prec_asm(prec);
  else if (op == TCMMA_OPERAND_C) /* packed accumulator elements: the pair type */
    out->type = tcmma__table_spell(dl, w->pair), out->pun = true;
}

int tcmma_tile_registers(tcmma_arm arm, tcmma_operand op, tcmma_prec prec) {
  const tcmma_arm_info *info = tcmma_arm_get(arm);
  long bits = tcmma_prec_bits(prec);
  if (!info || bits == 0 || (unsigned)op > TCMMA_OPERAND_C) return 0;
  /* an inline fragment packing more elements than storage bytes fit in a
   * register (4-bit elements stored a byte each) holds them at its width */
  int per = tcmma_fragment_elems_per_reg(arm, op);
  if (per > 1 && 32 / per < bits) bits = 32 / per;
  long elems = op == TCMMA_OPERAND_A ? info->m * info->k
             : op == TCMMA_OPERAND_B ? info->k * info->n : info->m * info->n;
  /* a lane's share of the tile, at storage width, in whole 32-bit words,
   * and a block-scaled operand's scale register */
  long lane_bits = elems / TCMMA_WARP_SIZE * bits;
  return (int)((lane_bits + 31) / 32) + (info->scale_block && op != TCMMA_OPERAND_C);
}

long tcmma__emit_plan_registers(const tcmma_plan *plan) {
  const tcmma_call *c = &plan->call;
  const tcmma_arm_info *info = tcmma_arm_get(plan->arm);
  if (!info) return 0;
  return (long)plan->mt * plan->nt * tcmma_tile_registers(plan->arm, TCMMA_OPERAND_C, info->acc) +
         (long)plan->mt * tcmma_tile_registers(plan->arm, TCMMA_OPERAND_A, c->a.prec) +
         (long)plan->nt * tcmma_tile_registers(plan->arm, TCMMA_OPERAND_B, c->b.prec);
}

bool tcmma__emit_needs_stage(const tcmma_plan *plan) {
  const tcmma_arm_info *info = plan && plan->accepted ? tcmma_arm_get(plan->arm) : NULL;
  return info && info->form == TCMMA_FORM_WMMA && info->converted_dest;
}

long tcmma__emit_stage_elems(const tcmma_plan *plan) {
  if (!tcmma__emit_needs_stage(plan)) return 0;
  const tcmma_arm_info *info = tcmma_arm_get(plan->arm);
  /* one accumulator tile per warp, converted one tile at a time */
  return (long)info->m * info->n * (plan->call.warps > 1 ? plan->call.warps : 1);
}

/* Fragment loads per k step of an operand with `own` tiles along its free
 * axis when the other operand has `other`: every body loads each fragment
 * once per k step and reuses it across the other operand's tiles. */
static int fragment_loads(int own, int other) {
  (void)other; /* a body that reloaded would load own * other */
  return own;
}

int tcmma__emit_loads_per_k(const tcmma_plan *plan, tcmma_operand op) {
  /* the renderers' load loops run to this bound */
  return op == TCMMA_OPERAND_A ? fragment_loads(plan->mt, plan->nt)
                               : fragment_loads(plan->nt, plan->mt);
}

void tcmma__emit_ldmatrix_counts(const tcmma_plan *plan, tcmma_operand op, int *x4, int *x2,
                                 int *x1) {
  bool ldm = op == TCMMA_OPERAND_A ? plan->a_ldmatrix : op == TCMMA_OPERAND_B && plan->b_ldmatrix;
  int regs = tcmma_fragment_regs(plan->arm, op), tiles = tcmma__emit_loads_per_k(plan, op);
  *x4 = *x2 = *x1 = 0;
  if (!ldm || regs <= 0 || 4 % regs) return;
  /* ldmatrix moves four 8x8 matrices at most: 4 / regs tiles at a time, the
   * rest's matrices in one .x2 and one .x1 */
  int matrices = tiles * regs;
  *x4 = matrices / 4;
  *x2 = matrices % 4 / 2;
  *x1 = matrices % 2;
}

bool tcmma_arm_reloads(tcmma_arm arm) {
  /* reloading shows as loads that grow with the other operand's tiles */
  return tcmma_arm_get(arm) && fragment_loads(1, 2) > fragment_loads(1, 1);
}

/* The one predicate behind the prologue and its byte count: the largest
 * stage tile any plan needs, at its accumulator precision. */
long tcmma__emit_stage_need(const tcmma_plan *plans, size_t count, tcmma_prec *prec) {
  long elems = 0;
  for (size_t i = 0; plans && i < count; i++) {
    long e = tcmma__emit_stage_elems(&plans[i]);
    if (e > elems) elems = e, *prec = tcmma_arm_get(plans[i].arm)->acc;
  }
  return elems;
}

size_t tcmma__emit_stage_bytes(const tcmma_plan *plans, size_t count) {
  tcmma_prec prec = TCMMA_PREC_F32;
  long elems = tcmma__emit_stage_need(plans, count, &prec);
  return (size_t)elems * (size_t)tcmma_prec_bytes(prec);
}

bool tcmma__emit_expr_ok(const char *expr) {
  if (!expr) return false;
  size_t n = strlen(expr);
  return n >= 1 && n <= TCMMA_EXPR_MAX && expr[strspn(expr, " \t\r\n\f\v")] != '\0';
}

int tcmma__emit_literal(const char *expr, long *value) {
  const char *s = expr + strspn(expr, " \t");
  char *end;
  errno = 0;
  long v = strtol(s, &end, 0);
  if (end == s || !isxdigit((unsigned char)end[-1]) || end[strspn(end, " \t")]) return 0;
  *value = v;
  return errno == ERANGE ? -1 : 1;
}

/* The end of the comment, string or character literal that starts at p
 * (p itself when none starts there). */
static const char *skip_opaque(const char *p) {
  if (p[0] == '/' && p[1] == '*') {
    const char *e = strstr(p + 2, "*/");
    return e ? e + 2 : p + strlen(p);
  }
  if (p[0] == '/' && p[1] == '/') return p + strcspn(p, "\n");
  if (*p != '"' && *p != '\'') return p;
  char q = *p++;
  while (*p && *p != q) p += p[0] == '\\' && p[1] ? 2 : 1;
  return *p ? p + 1 : p;
}

void tcmma__emit_rename(const char *text, const char *const *from, const char *const *to, int n,
                        tcmma_buf *out) {
  const char *p = text;
  bool member = false; /* after . or ->: a field name, never renamed */
  while (*p) {
    const char *e = skip_opaque(p);
    if (e == p && (isalnum((unsigned char)*p) || *p == '_')) {
      e = p;
      while (isalnum((unsigned char)*e) || *e == '_') e++;
      int hit = -1;
      for (int i = 0; i < n && hit < 0 && !member && !isdigit((unsigned char)*p); i++)
        if (strlen(from[i]) == (size_t)(e - p) && strncmp(p, from[i], (size_t)(e - p)) == 0)
          hit = i;
      if (hit >= 0) tcmma_buf_append(out, to[hit], strlen(to[hit]));
      else tcmma_buf_append(out, p, (size_t)(e - p));
      member = false;
      p = e;
      continue;
    }
    if (e == p) e = p + 1;
    if (!isspace((unsigned char)*p))
      member = *p == '.' || (*p == '>' && p > text && p[-1] == '-');
    tcmma_buf_append(out, p, (size_t)(e - p));
    p = e;
  }
}
