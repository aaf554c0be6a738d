/* tcgen05 arm facts (tables/tcgen05.def): rows, shapes, targets, the
 * accumulator's cells in Tensor Memory and the tcgen05.ld/st shapes
 * (docs/tcgen05.md). The descriptors are tables/tcgen05_desc.c's. */
#include "tcmma/tcgen05.h"

#include <string.h>

#include "tables/names.h"
#include "tcmma/arm.h"

/* Indexed by value (a row's value column, not its position): [value] = row. */
static const tcmma_tcgen05_info rows[TCMMA_TCGEN05_COUNT] = {
#define TCMMA_TCGEN05(ID, value, marker, m_mask, k, acc, ops, types, row, n_mask, trans, scale, \
                      block, instr)                                                              \
  [value] = {TCMMA_##ID, marker, m_mask, k, TCMMA_PREC_##acc, ops, TCMMA_PTX_MIN_SM(row),         \
             (tcmma_ptx_suffix)TCMMA_PTX_SUFFIX_OF(row), n_mask, trans, scale, block, instr},
#include "tables/tcgen05.def"
#undef TCMMA_TCGEN05
};

const tcmma_tcgen05_info *tcmma_tcgen05_get(tcmma_tcgen05 w) {
  return (unsigned)w < TCMMA_TCGEN05_COUNT ? &rows[w] : NULL;
}

const char *tcmma_tcgen05_marker(tcmma_tcgen05 w) {
  const tcmma_tcgen05_info *i = tcmma_tcgen05_get(w);
  return i ? i->marker : "none";
}

static const char *marker_at(int i) { return tcmma_tcgen05_marker((tcmma_tcgen05)i); }

tcmma_status tcmma_tcgen05_parse(const char *marker, tcmma_tcgen05 *out, tcmma_error *err) {
  for (int i = 0; marker && i < TCMMA_TCGEN05_COUNT; i++)
    if (strcmp(marker, rows[i].marker) == 0) {
      if (out) *out = (tcmma_tcgen05)i;
      return TCMMA_OK;
    }
  if (out) *out = TCMMA_TCGEN05_NONE;
  char names[320];
  tcmma__table_names(names, sizeof names, marker_at, 0, TCMMA_TCGEN05_COUNT - 1);
  return tcmma_fail(err, TCMMA_INVALID, "unknown tcgen05 arm '%s': expected %s",
                    marker ? marker : "(null)", names);
}

bool tcmma_tcgen05_shape_ok(tcmma_tcgen05 w, int m, int n) {
  const tcmma_tcgen05_info *i = tcmma_tcgen05_get(w);
  unsigned mbit = m == 64 ? TCMMA_TCGEN05_M64 : m == 128 ? TCMMA_TCGEN05_M128 : 0;
  return i && (i->m_mask & mbit) && n >= 8 && n <= 256 && n % 8 == 0 &&
         (i->n_mask >> (n / 8 - 1) & 1u);
}

bool tcmma_tcgen05_takes(tcmma_tcgen05 w, tcmma_prec a, tcmma_prec b) {
  const tcmma_tcgen05_info *i = tcmma_tcgen05_get(w);
  return i && (unsigned)a < TCMMA_PREC_COUNT && (unsigned)b < TCMMA_PREC_COUNT &&
         (i->ops >> a & 1u) && (i->ops >> b & 1u);
}

bool tcmma_tcgen05_runs_on(tcmma_tcgen05 w, int cc) {
  const tcmma_tcgen05_info *i = tcmma_tcgen05_get(w);
  if (!i || tcmma_cc_check(cc, NULL) != TCMMA_OK) return false;
  if (cc == 0) return true;
  /* arch-specific: the floor's own arch; family: its major version */
  return i->suffix == TCMMA_PTX_SUFFIX_A ? cc == i->floor : cc / 10 == i->floor / 10;
}

bool tcmma_tcgen05_alloc_ok(int ncols) {
  return ncols >= TCMMA_TMEM_ALLOC_MIN && ncols <= TCMMA_TMEM_COLUMNS && (ncols & (ncols - 1)) == 0;
}

/* The lanes an m's accumulator uses in each 32-lane quarter; 0 for none. */
static int datapath_lanes(int m) {
#define TCMMA_TCGEN05_DATAPATH(rows_m, lanes) \
  if (m == rows_m) return lanes;
#include "tables/tcgen05_desc.def"
  return 0;
}

/* The shared checks of acc_cell and acc_layout. */
static tcmma_status acc_check(tcmma_tcgen05 w, int m, int n, tcmma_error *err) {
  const tcmma_tcgen05_info *i = tcmma_tcgen05_get(w);
  if (!i) return tcmma_fail(err, TCMMA_INVALID, "tcgen05 arm %d is out of range", (int)w);
  if (!tcmma_tcgen05_shape_ok(w, m, n) || !datapath_lanes(m))
    return tcmma_fail(err, TCMMA_INVALID, "%s: %d x %d is not an instruction shape "
                      "(tables/tcgen05.def)", i->marker, m, n);
  if (tcmma_prec_bits(i->acc) != 32)
    return tcmma_fail(err, TCMMA_DECLINED, "%s: where an f16 accumulator's elements sit in "
                      "Tensor Memory is not modelled here (docs/tcgen05.md)", i->marker);
  return TCMMA_OK;
}

tcmma_status tcmma_tcgen05_acc_cell(tcmma_tcgen05 w, int m, int n, int row, int col, int *lane,
                                    int *column, tcmma_error *err) {
  tcmma_status s = acc_check(w, m, n, err);
  if (s != TCMMA_OK) return s;
  if (row < 0 || row >= m || col < 0 || col >= n)
    return tcmma_fail(err, TCMMA_INVALID, "%s at %d x %d: element (%d, %d): expected row 0..%d, "
                      "column 0..%d", tcmma_tcgen05_marker(w), m, n, row, col, m - 1, n - 1);
  int lanes = datapath_lanes(m);
  if (lane) *lane = 32 * (row / lanes) + row % lanes;
  if (column) *column = col;
  return TCMMA_OK;
}

tcmma_status tcmma_tcgen05_acc_layout(tcmma_tcgen05 w, int m, int n, int lane, int column,
                                      int *row, int *col, tcmma_error *err) {
  tcmma_status s = acc_check(w, m, n, err);
  if (s != TCMMA_OK) return s;
  if (lane < 0 || lane >= TCMMA_TMEM_LANES || column < 0 || column >= n)
    return tcmma_fail(err, TCMMA_INVALID, "%s at %d x %d: cell (lane %d, column %d): expected "
                      "lane 0..%d, column 0..%d", tcmma_tcgen05_marker(w), m, n, lane, column,
                      TCMMA_TMEM_LANES - 1, n - 1);
  int lanes = datapath_lanes(m), in = lane % 32;
  bool used = in < lanes;
  if (row) *row = used ? lane / 32 * lanes + in : -1;
  if (col) *col = used ? column : -1;
  return TCMMA_OK;
}

typedef struct {
  const char *name;
  int lanes, bits;
} ldst_row;

static const ldst_row ldst_rows[TCMMA_TCGEN05_LDST_COUNT] = {
#define TCMMA_TCGEN05_LDST(ID, value, name, lanes, bits) [value] = {name, lanes, bits},
#include "tables/tcgen05_desc.def"
};

int tcmma_tcgen05_ldst_regs(tcmma_tcgen05_ldst shape, int num) {
  if ((unsigned)shape >= TCMMA_TCGEN05_LDST_COUNT || num < 1 || num > 128 || (num & (num - 1)))
    return 0;
  /* a warp moves lanes x bits x num: over 32 threads of 32-bit registers */
  int regs = ldst_rows[shape].lanes * ldst_rows[shape].bits * num / (32 * 32);
  return regs >= 1 && regs <= 128 ? regs : 0;
}

const char *tcmma_tcgen05_ldst_name(tcmma_tcgen05_ldst shape) {
  return (unsigned)shape < TCMMA_TCGEN05_LDST_COUNT ? ldst_rows[shape].name : "?";
}
