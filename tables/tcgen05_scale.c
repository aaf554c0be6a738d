/* Where a block-scaled tcgen05 product reads its scales (tables/tcgen05_desc.def
 * SCALE and SCALE_IDS rows, docs/tcgen05.md "Block scales"): the cell of
 * each row's block in Tensor Memory and in the 512-byte shared atoms that
 * tcgen05.cp.32x128b.warpx4 copies there, and the scale ids a row may name. */
#include "tcmma/tcgen05.h"

/* Scales a row per instruction (scale_vec): the row's k over its block. */
static int vec_of(const tcmma_tcgen05_info *i) { return i->block ? i->k / i->block : 0; }

unsigned tcmma_tcgen05_scale_ids(tcmma_tcgen05 w) {
  const tcmma_tcgen05_info *i = tcmma_tcgen05_get(w);
  int vec = i ? vec_of(i) : 0;
#define TCMMA_TCGEN05_SCALE_IDS(v, ids) \
  if (vec == (v)) return (ids);
#include "tables/tcgen05_desc.def"
  return 0;
}

/* Atoms side by side along the rows (one per ATOM_ROWS rows). */
static int row_atoms(int rows) {
  return (rows + TCMMA_TCGEN05_SCALE_ATOM_ROWS - 1) / TCMMA_TCGEN05_SCALE_ATOM_ROWS;
}

int tcmma_tcgen05_scale_atoms(tcmma_tcgen05 w, int rows, int k) {
  const tcmma_tcgen05_info *i = tcmma_tcgen05_get(w);
  if (!i || !i->block || rows < 1 || rows > 2 * TCMMA_TCGEN05_SCALE_ATOM_ROWS || k <= 0 ||
      k % i->k)
    return 0;
  int blocks = k / i->block, groups = (blocks + TCMMA_TCGEN05_SCALE_BYTES - 1) /
                                      TCMMA_TCGEN05_SCALE_BYTES;
  return groups * row_atoms(rows);
}

tcmma_status tcmma_tcgen05_scale_cell(tcmma_tcgen05 w, int rows, int x, int kb,
                                      unsigned *column, unsigned *byte, long *src,
                                      tcmma_error *err) {
  const tcmma_tcgen05_info *i = tcmma_tcgen05_get(w);
  if (!i || !i->block)
    return tcmma_fail(err, TCMMA_INVALID, "tcgen05 arm %d is not block-scaled (no scales)", (int)w);
  if (rows < 1 || rows > 2 * TCMMA_TCGEN05_SCALE_ATOM_ROWS || x < 0 || x >= rows || kb < 0)
    return tcmma_fail(err, TCMMA_INVALID, "%s scales: row %d of %d, block %d (expected rows "
                      "1..%d, 0 <= row < rows, block >= 0)", i->marker, x, rows, kb,
                      2 * TCMMA_TCGEN05_SCALE_ATOM_ROWS);
  if (!column || !byte || !src)
    return tcmma_fail(err, TCMMA_INVALID, "%s scales: NULL output", i->marker);
  enum { L = TCMMA_TCGEN05_SCALE_LANES, B = TCMMA_TCGEN05_SCALE_BYTES,
         R = TCMMA_TCGEN05_SCALE_ATOM_ROWS, COLS = R / L };
  /* group g of B blocks: row_atoms atoms of COLS columns; row x in atom x / R */
  int g = kb / B, atom = g * row_atoms(rows) + x / R, r = x % R;
  *column = (unsigned)(atom * COLS + r / L);
  *byte = (unsigned)(kb % B);
  *src = (long)atom * TCMMA_TCGEN05_SCALE_ATOM_BYTES + (long)(r % L) * (COLS * B) +
         (long)(r / L) * B + kb % B;
  return TCMMA_OK;
}
