/* TEMPORARY placeholder: the host warp simulator's executor lives on branch
 * `sim`, which replaces this file. Until it is merged, every case is
 * SKIPPED (never passed). */
#include <stdio.h>
#include "tools/verify.h"

void tcmma_exec_sim(const tcmma_case *c, tcmma_case_result *r) {
  (void)c;
  r->outcome = TCMMA_CASE_SKIPPED;
  snprintf(r->reason, sizeof r->reason, "sim executor not merged yet");
}
