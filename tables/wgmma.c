/* Warpgroup arm facts (tables/wgmma.def): rows, instruction n, opcodes, the
 * accumulator layout and the matrix descriptor's bits (docs/wgmma.md). */
#include "tcmma/wgmma.h"

#include <stdio.h>
#include <string.h>

#include "tcmma/layout.h"
#include "tables/names.h"

/* Indexed by value (a row's value column, not its position): [value] = row. */
static const tcmma_wgmma_info rows[TCMMA_WGMMA_COUNT] = {
#define TCMMA_WGMMA(ID, value, marker, m, k, acc, ops, row, n_mask, trans, a_frag, instr)       \
  [value] = {TCMMA_##ID, marker, m, k, TCMMA_PREC_##acc, ops, TCMMA_PTX_MIN_SM(row),          \
             (tcmma_ptx_suffix)TCMMA_PTX_SUFFIX_OF(row), n_mask, trans, instr, TCMMA_ARM_##a_frag},
#include "tables/wgmma.def"
#undef TCMMA_WGMMA
};

const tcmma_wgmma_info *tcmma_wgmma_get(tcmma_wgmma w) {
  return (unsigned)w < TCMMA_WGMMA_COUNT ? &rows[w] : NULL;
}

const char *tcmma_wgmma_marker(tcmma_wgmma w) {
  const tcmma_wgmma_info *i = tcmma_wgmma_get(w);
  return i ? i->marker : "none";
}

static const char *marker_at(int i) { return tcmma_wgmma_marker((tcmma_wgmma)i); }

tcmma_status tcmma_wgmma_parse(const char *marker, tcmma_wgmma *out, tcmma_error *err) {
  for (int i = 0; marker && i < TCMMA_WGMMA_COUNT; i++)
    if (strcmp(marker, rows[i].marker) == 0) {
      if (out) *out = (tcmma_wgmma)i;
      return TCMMA_OK;
    }
  if (out) *out = TCMMA_WGMMA_NONE;
  char names[256];
  tcmma__table_names(names, sizeof names, marker_at, 0, TCMMA_WGMMA_COUNT - 1);
  return tcmma_fail(err, TCMMA_INVALID, "unknown wgmma arm '%s': expected %s",
                    marker ? marker : "(null)", names);
}

bool tcmma_wgmma_n_ok(tcmma_wgmma w, int n) {
  const tcmma_wgmma_info *i = tcmma_wgmma_get(w);
  return i && n >= 8 && n <= TCMMA_WGMMA_N_MAX && n % 8 == 0 && (i->n_mask >> (n / 8 - 1) & 1u);
}

bool tcmma_wgmma_takes(tcmma_wgmma w, tcmma_prec a, tcmma_prec b) {
  const tcmma_wgmma_info *i = tcmma_wgmma_get(w);
  return i && (unsigned)a < TCMMA_PREC_COUNT && (unsigned)b < TCMMA_PREC_COUNT &&
         (i->ops >> a & 1u) && (i->ops >> b & 1u);
}

bool tcmma_wgmma_runs_on(tcmma_wgmma w, int cc) {
  const tcmma_wgmma_info *i = tcmma_wgmma_get(w);
  if (!i || tcmma_cc_check(cc, NULL) != TCMMA_OK) return false;
  /* an arch-specific (a) target runs only on its own arch */
  return cc == 0 || (i->suffix == TCMMA_PTX_SUFFIX_A ? cc == i->floor : cc >= i->floor);
}

/* Appends piece to buf (used bytes so far); false when it does not fit. */
static bool put(char *buf, size_t cap, size_t *used, const char *piece) {
  size_t n = strlen(piece);
  if (*used + n + 1 > cap) return false;
  memcpy(buf + *used, piece, n + 1);
  *used += n;
  return true;
}

tcmma_status tcmma_wgmma_instruction(tcmma_wgmma w, int n, tcmma_prec a, tcmma_prec b, char *buf,
                                     size_t cap, tcmma_error *err) {
  const tcmma_wgmma_info *i = tcmma_wgmma_get(w);
  if (!i) return tcmma_fail(err, TCMMA_INVALID, "wgmma arm %d is out of range", (int)w);
  if (!tcmma_wgmma_n_ok(w, n))
    return tcmma_fail(err, TCMMA_INVALID, "%s: n %d is not an instruction n (8 to %d, see "
                      "tables/wgmma.def)", i->marker, n, TCMMA_WGMMA_N_MAX);
  if (!tcmma_wgmma_takes(w, a, b))
    return tcmma_fail(err, TCMMA_INVALID, "%s does not multiply %s by %s", i->marker,
                      tcmma_prec_name(a), tcmma_prec_name(b));
  if (!buf || cap == 0)
    return tcmma_fail(err, TCMMA_INVALID, "instruction of %s: no buffer to write into", i->marker);
  size_t used = 0;
  buf[0] = '\0';
  for (const char *p = i->instr; *p; p++) {
    char piece[16] = {*p, 0};
    if (p[0] == '%' && p[1] == 'n') snprintf(piece, sizeof piece, "%d", n), p++;
    else if (p[0] == '%' && (p[1] == 'a' || p[1] == 'b'))
      snprintf(piece, sizeof piece, "%s", tcmma_prec_ptx_type(p[1] == 'a' ? a : b)), p++;
    if (!put(buf, cap, &used, piece))
      return tcmma_fail(err, TCMMA_OVERFLOW, "instruction of %s does not fit in %zu bytes",
                        i->marker, cap);
  }
  return TCMMA_OK;
}

int tcmma_wgmma_acc_elems_per_reg(tcmma_wgmma w) {
  const tcmma_wgmma_info *i = tcmma_wgmma_get(w);
  return !i ? 0 : 32 / tcmma_prec_bits(i->acc);
}

int tcmma_wgmma_acc_regs(tcmma_wgmma w, int n) {
  /* 64 x n elements over 128 threads: n/2 per thread */
  return tcmma_wgmma_n_ok(w, n) ? n / 2 / tcmma_wgmma_acc_elems_per_reg(w) : 0;
}

tcmma_status tcmma_wgmma_acc_layout(tcmma_wgmma w, int n, int thread, int reg, int elem, int *row,
                                    int *col, tcmma_error *err) {
  const tcmma_wgmma_info *i = tcmma_wgmma_get(w);
  if (!i) return tcmma_fail(err, TCMMA_INVALID, "wgmma arm %d is out of range", (int)w);
  int regs = tcmma_wgmma_acc_regs(w, n), per = tcmma_wgmma_acc_elems_per_reg(w);
  if (!regs) return tcmma_fail(err, TCMMA_INVALID, "%s: n %d is not an instruction n", i->marker, n);
  if (thread < 0 || thread >= TCMMA_WARPGROUP_SIZE || reg < 0 || reg >= regs || elem < 0 ||
      elem >= per)
    return tcmma_fail(err, TCMMA_INVALID,
                      "%s at n %d: thread %d, register %d, element %d: expected thread 0..%d, "
                      "register 0..%d, element 0..%d",
                      i->marker, n, thread, reg, elem, TCMMA_WARPGROUP_SIZE - 1, regs - 1, per - 1);
  /* the x-th accumulator element of a thread: each warp owns 16 rows, each
   * 8-column block four elements per thread, as mma.sync's m16n8 C */
  int x = reg * per + elem, warp = thread / 32, lane = thread % 32;
  if (row) *row = 16 * warp + lane / 4 + 8 * ((x % 4) / 2);
  if (col) *col = 8 * (x / 4) + 2 * (lane % 4) + x % 2;
  return TCMMA_OK;
}

int tcmma_wgmma_a_elems_per_reg(tcmma_wgmma w) {
  const tcmma_wgmma_info *i = tcmma_wgmma_get(w);
  return i ? tcmma_fragment_elems_per_reg(i->a_frag, TCMMA_OPERAND_A) : 0;
}

tcmma_status tcmma_wgmma_a_layout(tcmma_wgmma w, int thread, int reg, int elem, int *row, int *col,
                                  tcmma_error *err) {
  const tcmma_wgmma_info *i = tcmma_wgmma_get(w);
  if (!i) return tcmma_fail(err, TCMMA_INVALID, "wgmma arm %d is out of range", (int)w);
  int per = tcmma_wgmma_a_elems_per_reg(w);
  if (thread < 0 || thread >= TCMMA_WARPGROUP_SIZE || reg < 0 || reg >= TCMMA_WGMMA_A_REGS ||
      elem < 0 || elem >= per)
    return tcmma_fail(err, TCMMA_INVALID,
                      "%s register A: thread %d, register %d, element %d: expected thread 0..%d, "
                      "register 0..%d, element 0..%d", i->marker, thread, reg, elem,
                      TCMMA_WARPGROUP_SIZE - 1, TCMMA_WGMMA_A_REGS - 1, per - 1);
  /* warp w's 16 rows as the one-warp arm's lanes hold its 16 x k tile */
  int r = 0;
  tcmma_status s = tcmma_fragment_layout(i->a_frag, TCMMA_OPERAND_A, thread % 32, reg, elem, &r,
                                         col, err);
  if (s == TCMMA_OK && row) *row = 16 * (thread / 32) + r;
  return s;
}

/* The descriptor's swizzle field (PTX ISA): 0 none, 1 128 B, 2 64 B, 3 32 B. */
static unsigned swizzle_code(tcmma_swizzle sw) {
  switch (sw) {
    case TCMMA_SWIZZLE_B128: return 1;
    case TCMMA_SWIZZLE_B64: return 2;
    case TCMMA_SWIZZLE_B32: return 3;
    default: return 0;
  }
}

/* A byte field: a multiple of 16 below 2^18, stored >> 4 in 14 bits. */
static bool field_ok(long v) { return v >= 0 && v < (1L << 18) && v % 16 == 0; }

tcmma_status tcmma_wgmma_desc_encode(long start, long lbo, long sbo, int base_offset,
                                     tcmma_swizzle swizzle, uint64_t *out, tcmma_error *err) {
  const char *bad = !field_ok(start) ? "start address" : !field_ok(lbo) ? "leading byte offset"
                    : !field_ok(sbo) ? "stride byte offset" : NULL;
  long v = !field_ok(start) ? start : !field_ok(lbo) ? lbo : sbo;
  if (bad)
    return tcmma_fail(err, TCMMA_INVALID,
                      "matrix descriptor: %s %ld: expected a multiple of 16 from 0 to %ld", bad,
                      v, (1L << 18) - 16);
  if (base_offset < 0 || base_offset > 7)
    return tcmma_fail(err, TCMMA_INVALID, "matrix descriptor: base offset %d: expected 0 to 7",
                      base_offset);
  if (!tcmma_swizzle_get(swizzle))
    return tcmma_fail(err, TCMMA_INVALID, "matrix descriptor: swizzle %d is out of range",
                      (int)swizzle);
  if (!out) return tcmma_fail(err, TCMMA_INVALID, "matrix descriptor: out must not be NULL");
  *out = (uint64_t)(start >> 4) | (uint64_t)(lbo >> 4) << 16 | (uint64_t)(sbo >> 4) << 32 |
         (uint64_t)base_offset << 49 | (uint64_t)swizzle_code(swizzle) << 62;
  return TCMMA_OK;
}

void tcmma_wgmma_desc_decode(uint64_t bits, long *start, long *lbo, long *sbo, int *base_offset,
                             tcmma_swizzle *swizzle) {
  static const tcmma_swizzle by_code[4] = {TCMMA_SWIZZLE_NONE, TCMMA_SWIZZLE_B128,
                                           TCMMA_SWIZZLE_B64, TCMMA_SWIZZLE_B32};
  if (start) *start = (long)(bits & 0x3FFF) << 4;
  if (lbo) *lbo = (long)(bits >> 16 & 0x3FFF) << 4;
  if (sbo) *sbo = (long)(bits >> 32 & 0x3FFF) << 4;
  if (base_offset) *base_offset = (int)(bits >> 49 & 7);
  if (swizzle) *swizzle = by_code[bits >> 62];
}
