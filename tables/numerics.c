/* The numerics policy: defaults and parsing. */
#include "tcmma/numerics.h"

#include <string.h>
#include "tables/names.h"

static const char *const fp16_names[] = {[TCMMA_FP16_WIDE] = "wide",
                                         [TCMMA_FP16_NARROW] = "narrow"};
static const char *const prefer_names[] = {[TCMMA_PREFER_PTX] = "ptx",
                                           [TCMMA_PREFER_WMMA] = "wmma"};

const char *tcmma__table_fp16_name(int mode) {
  return mode >= 0 && mode < 2 ? fp16_names[mode] : "?";
}
const char *tcmma__table_prefer_name(int prefer) {
  return prefer >= 0 && prefer < 2 ? prefer_names[prefer] : "?";
}

tcmma_numerics tcmma_numerics_default(void) {
  return (tcmma_numerics){
      .fp16 = TCMMA_FP16_WIDE, .tf32 = false, .prefer = TCMMA_PREFER_PTX, .saturate = false};
}

/* Both policy knobs are two-valued enums spelled by names[0] and names[1]. */
static tcmma_status parse_two(const char *s, const char *const names[2], const char *what, int *out,
                              tcmma_error *err) {
  for (int i = 0; s && i < 2; i++)
    if (strcmp(s, names[i]) == 0) return *out = i, TCMMA_OK;
  return tcmma_fail(err, TCMMA_INVALID, "unknown %s '%s': expected %s or %s", what,
                    s ? s : "(null)", names[0], names[1]);
}

tcmma_status tcmma_fp16_mode_parse(const char *s, tcmma_fp16_mode *out, tcmma_error *err) {
  int i;
  tcmma_status st = parse_two(s, fp16_names, "fp16 mode", &i, err);
  if (st == TCMMA_OK && out) *out = (tcmma_fp16_mode)i;
  return st;
}

tcmma_status tcmma_prefer_parse(const char *s, tcmma_prefer *out, tcmma_error *err) {
  int i;
  tcmma_status st = parse_two(s, prefer_names, "preference", &i, err);
  if (st == TCMMA_OK && out) *out = (tcmma_prefer)i;
  return st;
}
