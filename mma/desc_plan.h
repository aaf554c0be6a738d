/* Internal to the library: the shared-memory operand plan both matrix
 * descriptors share (Hopper's wgmma and Blackwell's tcgen05 read the same
 * canonical core-matrix layouts; they differ in the descriptor's bits,
 * which each arm's plan encodes from the offsets planned here). Not
 * installed. */
#ifndef TCMMA_MMA_DESC_PLAN_H
#define TCMMA_MMA_DESC_PLAN_H

#include <stdbool.h>
#include "tcmma/plan.h"

/* What the plan needs of an arm, and how the operand's spans lie. */
typedef struct {
  const char *marker;
  int m, k;    /* rows of A; the instruction k */
  bool trans;  /* shared operands may be M/N-major */
  /* an M/N-major operand stored panel-major: its m or n in panels of one
   * swizzle span, each panel_rows stored (k) rows, panel p panel_rows * p
   * rows after the first (the descriptor's LBO); 0: one span only */
  long panel_rows;
} tcmma__desc_arm;

/* A planned operand, or the reason it is declined. */
typedef struct {
  tcmma_decline reason;   /* TCMMA_DECLINE_NONE: the descriptor expresses it */
  char message[256];
  bool trans;             /* stored M/N-major */
  long origin_bytes;      /* the sub-tile's first byte from the parent's base */
  long k_step_bytes;      /* the start address's advance per instruction k */
  long lbo, sbo;          /* the descriptor's leading and stride byte offsets */
} tcmma__desc_plan;

/* Records a decline in out (reason, message) and returns TCMMA_DECLINED
 * with the message in err. */
tcmma_status tcmma__desc_decline(tcmma__desc_plan *out, tcmma_decline why, tcmma_error *err,
                                 const char *fmt, ...) __attribute__((format(printf, 4, 5)));

/* Plans shared operand op (A: arm->m x k rows; B: k x n) of precision
 * d->prec from its v2 layout (an M/N-major one wider than a span from its
 * panels, arm->panel_rows): declines as docs/wgmma.md "The operand plan"
 * lists (space, stride, layout, subtile; one instruction's k past a K-major
 * row or a panel: layout); out->reason NONE otherwise. */
tcmma_status tcmma__desc_plan_shared(const tcmma__desc_arm *arm, tcmma_operand op, int n,
                                     const tcmma_operand_desc *d, tcmma__desc_plan *out,
                                     tcmma_error *err);

/* Whether a K-major shared operand op (layout d) holds k elements from its
 * origin column within one stored row, where a descriptor's k steps walk,
 * and a panel-major one k rows from its origin row within one panel:
 * TCMMA_OK, or TCMMA_DECLINED naming k, the origin and the row or panel
 * (other M/N-major and non-shared operands: TCMMA_OK). The tile products
 * ask it of the call's k; tcmma__desc_plan_shared of one instruction's. */
tcmma_status tcmma__desc_k_fits(const tcmma__desc_arm *arm, tcmma_operand op,
                                const tcmma_operand_desc *d, long k, tcmma_error *err);

/* Where a shared operand lies, for a tile product's header: "K-major,
 * 128-byte swizzle" or "N-major, 128-byte swizzle, panels of 64 rows"
 * (trans: stored M/N-major; is_a names M, else N) into buf of cap bytes. */
void tcmma__desc_where(bool trans, bool is_a, tcmma_swizzle swizzle, long panel_rows, char *buf,
                       size_t cap);

#endif
