/* The arch options of a source against the loaded NVRTC and, for the native
 * target, the attached devices: tcmma_arch_decide (nvrtc/arch.c) with NVRTC's
 * archs asked, never assumed. */
#include <string.h>
#include "tcmma/arch.h"
#include "tcmma/compile.h"
#include "tcmma/driver.h"

tcmma_status tcmma_gpu_arch_options(const char *source, size_t len, int min_cc,
                                    tcmma_target target, tcmma_arch_options *out,
                                    tcmma_error *err) {
  if (!out) return tcmma_fail(err, TCMMA_INVALID, "no output for the arch options");
  memset(out, 0, sizeof *out);
  if (!source && len) return tcmma_fail(err, TCMMA_INVALID, "NULL source of %zu bytes", len);
  tcmma_status st = TCMMA_OK;
  if (target == TCMMA_TARGET_CURRENT && (st = tcmma_target_current(&target, err)) != TCMMA_OK)
    return st;
  int cc = min_cc;
  if (target == TCMMA_TARGET_NATIVE && cc == 0) {
    /* No cc given: the device is what native means, so ask the driver. */
    tcmma_error why;
    if ((st = tcmma_device_lowest_cc(&cc, &why)) != TCMMA_OK)
      return tcmma_fail(err, st,
                        "the native target needs a device's compute capability: %s; give "
                        "one instead (--cc N on the CLI, a cc to the API)",
                        why.message);
  }
  tcmma_arch_support support;
  if ((st = tcmma_nvrtc_support(&support, err)) != TCMMA_OK) return st;
  if ((st = tcmma_arch_decide(source, len, cc, target, &support, out, err)) != TCMMA_OK)
    return st;
  out->cc = cc;
  out->cc_from_driver = cc != min_cc;
  return TCMMA_OK;
}
