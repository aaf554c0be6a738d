/* Internal to the library: a tcgen05 operand as its descriptor reads it in
 * bytes (mma/tcgen05_plan.c): packed fp4 (tcmma_tcgen05_pack 2) as the
 * byte layout of its pairs. Not installed. */
#ifndef TCMMA_MMA_TCGEN05_PLAN_H
#define TCMMA_MMA_TCGEN05_PLAN_H

#include "desc_plan.h"
#include "tcmma/tcgen05.h"

/* The byte twin of w's operand d and the arm's k in its units: d itself
 * (*arm's k the row's) for one element a byte; for packed fp4 its ld and
 * origin column halved and k halved (two elements a byte along k).
 * TCMMA_DECLINED (out->reason layout or subtile, message) for a packed
 * operand stored M/N-major or with an odd ld, origin column or k. */
tcmma_status tcmma__tcgen05_twin(tcmma_tcgen05 w, int m, const tcmma_operand_desc *d, long k,
                                 tcmma_operand_desc *twin, tcmma__desc_arm *arm, long *twin_k,
                                 tcmma__desc_plan *out, tcmma_error *err);

#endif
