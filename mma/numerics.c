/* The numerics policy: defaults and parsing. */
#include <string.h>
#include "tcmma/numerics.h"

tcmma_numerics tcmma_numerics_default(void) {
  return (tcmma_numerics){.fp16 = TCMMA_FP16_WIDE, .tf32 = false, .prefer = TCMMA_PREFER_PTX};
}

tcmma_status tcmma_fp16_mode_parse(const char *s, tcmma_fp16_mode *out, tcmma_error *err) {
  if (s && strcmp(s, "wide") == 0) return *out = TCMMA_FP16_WIDE, TCMMA_OK;
  if (s && strcmp(s, "narrow") == 0) return *out = TCMMA_FP16_NARROW, TCMMA_OK;
  return tcmma_fail(err, TCMMA_INVALID, "unknown fp16 mode '%s': expected wide or narrow",
                    s ? s : "(null)");
}

tcmma_status tcmma_prefer_parse(const char *s, tcmma_prefer *out, tcmma_error *err) {
  if (s && strcmp(s, "ptx") == 0) return *out = TCMMA_PREFER_PTX, TCMMA_OK;
  if (s && strcmp(s, "wmma") == 0) return *out = TCMMA_PREFER_WMMA, TCMMA_OK;
  return tcmma_fail(err, TCMMA_INVALID, "unknown preference '%s': expected ptx or wmma",
                    s ? s : "(null)");
}
