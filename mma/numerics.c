/* The numerics policy: defaults and parsing. */
#include <string.h>
#include "tcmma/numerics.h"

tcmma_numerics tcmma_numerics_default(void) {
  return (tcmma_numerics){.fp16 = TCMMA_FP16_WIDE, .tf32 = false, .prefer = TCMMA_PREFER_PTX};
}

/* Index of s in names[0..n), or -1 (also for NULL). */
static int find(const char *s, const char *const *names, int n) {
  for (int i = 0; s && i < n; i++)
    if (strcmp(s, names[i]) == 0) return i;
  return -1;
}

tcmma_status tcmma_fp16_mode_parse(const char *s, tcmma_fp16_mode *out, tcmma_error *err) {
  static const char *const names[] = {[TCMMA_FP16_WIDE] = "wide", [TCMMA_FP16_NARROW] = "narrow"};
  int i = find(s, names, 2);
  if (i < 0)
    return tcmma_fail(err, TCMMA_INVALID, "unknown fp16 mode '%s': expected wide or narrow",
                      s ? s : "(null)");
  if (out) *out = (tcmma_fp16_mode)i;
  return TCMMA_OK;
}

tcmma_status tcmma_prefer_parse(const char *s, tcmma_prefer *out, tcmma_error *err) {
  static const char *const names[] = {[TCMMA_PREFER_PTX] = "ptx", [TCMMA_PREFER_WMMA] = "wmma"};
  int i = find(s, names, 2);
  if (i < 0)
    return tcmma_fail(err, TCMMA_INVALID, "unknown preference '%s': expected ptx or wmma",
                      s ? s : "(null)");
  if (out) *out = (tcmma_prefer)i;
  return TCMMA_OK;
}
