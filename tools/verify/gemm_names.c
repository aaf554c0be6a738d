/* What names a GEMM case (tools/verify/gemm.h): the arm its plan
 * multiplies with, for the matrix's and the epilogue cases' names alike. */
#include "tools/verify/gemm.h"

const char *verify_gemm_kernel_arm(const tcmma_gemm_plan *p, const tcmma_gemm_info *i) {
  if (i->kernel == TCMMA_GEMM_KERNEL_WGMMA) return tcmma_wgmma_marker(i->wgmma);
  if (i->kernel == TCMMA_GEMM_KERNEL_TCGEN05) return tcmma_tcgen05_marker((tcmma_tcgen05)i->tcgen05);
  return tcmma_arm_marker(p->arm);
}
