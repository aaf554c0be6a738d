/* --arch compute_XX|sm_XX[a|f]: the sm_ form is the PTX reader's target
 * syntax (tcmma_ptx_target_parse); compute_ is the same arch without a CUBIN. */
#include <stdio.h>
#include <string.h>
#include "cli_arch.h"
#include "tcmma/ptx.h"

tcmma_status cli_parse_arch(const char *text, int *arch, char *suffix, bool *sass, tcmma_error *err) {
  const char *t = text ? text : "";
  bool compute = strncmp(t, "compute_", 8) == 0;
  char sm[48];
  snprintf(sm, sizeof sm, "sm_%s", compute ? t + 8 : strncmp(t, "sm_", 3) == 0 ? t + 3 : "");
  if ((!compute && strncmp(t, "sm_", 3) != 0) ||
      tcmma_ptx_target_parse(sm, arch, suffix, NULL) != TCMMA_OK)
    return tcmma_fail(err, TCMMA_INVALID,
                      "arch '%s': expected compute_<N> (PTX) or sm_<N> (a CUBIN), with an "
                      "optional a or f (compute_80, sm_90a, compute_100f)",
                      t);
  *sass = !compute;
  return TCMMA_OK;
}
