/* Arm facts, derived from tables/arms.def. */
#include "tcmma/arm.h"

#include <stdio.h>
#include <string.h>

#include "tcmma/ptx.h" /* the floors: rows of tables/ptx_features.def, as constants */

/* Indexed by value (a row's value column, not its position): [value] = row. */
static const tcmma_arm_info arms[TCMMA_ARM_COUNT] = {
#define TCMMA_ARM(ID, value, marker, form, m, n, k, floor, family, acc, ldm, cvt, tf32, \
                  scale_block, instr, a_regs, b_regs, c_regs, header)                 \
  [value] = {TCMMA_ARM_##ID, marker, TCMMA_FORM_##form, m, n, k, floor, family,            \
             TCMMA_PREC_##acc, TCMMA_LDMATRIX_##ldm, cvt, tf32, scale_block, instr, a_regs,   \
             b_regs, c_regs, header},
#include "tables/arms.def"
#undef TCMMA_ARM
};

const tcmma_arm_info *tcmma_arm_get(tcmma_arm arm) {
  return (unsigned)arm < TCMMA_ARM_COUNT ? &arms[arm] : NULL;
}

const char *tcmma_arm_marker(tcmma_arm arm) {
  const tcmma_arm_info *a = tcmma_arm_get(arm);
  return a ? a->marker : "none";
}

tcmma_status tcmma_arm_parse(const char *marker, tcmma_arm *out, tcmma_error *err) {
  for (int i = 0; marker && i < TCMMA_ARM_COUNT; i++)
    if (strcmp(marker, arms[i].marker) == 0) {
      if (out) *out = (tcmma_arm)i;
      return TCMMA_OK;
    }
  char names[512] = "";
  size_t used = 0;
  for (int i = 0; i < TCMMA_ARM_COUNT; i++) {
    int n = snprintf(names + used, sizeof names - used, "%s%s", i ? " " : "", arms[i].marker);
    if (n < 0 || (size_t)n >= sizeof names - used) break;
    used += (size_t)n;
  }
  if (out) *out = TCMMA_ARM_NONE;
  return tcmma_fail(err, TCMMA_INVALID, "unknown arm '%s': expected one of %s",
                    marker ? marker : "(null)", names);
}

const char *tcmma_form_name(tcmma_form form) {
  return form == TCMMA_FORM_PTX ? "ptx" : form == TCMMA_FORM_WMMA ? "wmma" : "?";
}

const char *tcmma_ldmatrix_rule_text(tcmma_ldmatrix_rule rule) {
  switch (rule) {
    case TCMMA_LDMATRIX_NEVER:
      return "never";
    case TCMMA_LDMATRIX_BOTH:
      return "A and B, either orientation";
    case TCMMA_LDMATRIX_A_ROW_B_T:
      return "A row-major only, B stored transposed only";
  }
  return "?";
}

bool tcmma_arm_runs_on(tcmma_arm arm, int cc) {
  const tcmma_arm_info *a = tcmma_arm_get(arm);
  if (!a || tcmma_cc_check(cc, NULL) != TCMMA_OK) return false;
  if (cc == 0) return true;
  if (cc < a->floor) return false;
  return !a->family || cc / 10 == a->floor / 10;
}

int tcmma_arm_sass_products(tcmma_arm arm, int cc) {
  if (cc == 0 || !tcmma_arm_runs_on(arm, cc)) return 0;
#define TCMMA_ARM_EMULATION(ARM, lo, hi, products, sass) \
  if (arm == TCMMA_ARM_##ARM && cc >= (lo) && cc <= (hi)) return (products);
#include "tables/arm_emulation.def"
#undef TCMMA_ARM_EMULATION
  return 1;
}

void tcmma_arm_ldmatrix_operands(tcmma_arm arm, bool a_eligible, bool a_transposed, bool b_eligible,
                                 bool b_transposed, bool *a_ldmatrix, bool *b_ldmatrix) {
  const tcmma_arm_info *info = tcmma_arm_get(arm);
  bool a = false, b = false;
  if (info) switch (info->ldmatrix) {
      case TCMMA_LDMATRIX_NEVER:
        break;
      case TCMMA_LDMATRIX_BOTH:
        a = a_eligible, b = b_eligible;
        break;
      case TCMMA_LDMATRIX_A_ROW_B_T:
        a = a_eligible && !a_transposed;
        b = b_eligible && b_transposed;
        break;
    }
  if (a_ldmatrix) *a_ldmatrix = a;
  if (b_ldmatrix) *b_ldmatrix = b;
}

tcmma_status tcmma_arm_instruction(tcmma_arm arm, tcmma_prec a, tcmma_prec b, char *buf, size_t cap,
                                   tcmma_error *err) {
  const tcmma_arm_info *info = tcmma_arm_get(arm);
  if (!info) return tcmma_fail(err, TCMMA_INVALID, "arm %d is out of range", (int)arm);
  if (info->form != TCMMA_FORM_PTX)
    return tcmma_fail(err, TCMMA_INVALID, "arm %s is a wmma arm: it has no mma.sync opcode",
                      info->marker);
  if ((unsigned)a >= TCMMA_PREC_COUNT || (unsigned)b >= TCMMA_PREC_COUNT)
    return tcmma_fail(err, TCMMA_INVALID, "operand precision out of range (a %d, b %d)", (int)a,
                      (int)b);
  if (!buf || cap == 0)
    return tcmma_fail(err, TCMMA_INVALID, "instruction of %s: no buffer to write into",
                      info->marker);
  size_t used = 0;
  for (const char *p = info->instr; *p; p++) {
    const char *piece = NULL;
    char one[2] = {*p, 0};
    if (p[0] == '%' && (p[1] == 'a' || p[1] == 'b')) {
      piece = tcmma_prec_ptx_type(p[1] == 'a' ? a : b);
      p++;
    } else {
      piece = one;
    }
    size_t n = strlen(piece);
    if (used + n + 1 > cap)
      return tcmma_fail(err, TCMMA_OVERFLOW, "instruction of %s does not fit in %zu bytes",
                        info->marker, cap);
    memcpy(buf + used, piece, n);
    used += n;
  }
  buf[used] = '\0';
  return TCMMA_OK;
}

tcmma_status tcmma_cc_check(int cc, tcmma_error *err) {
  if (cc == 0 || (cc >= TCMMA_CC_MIN && cc <= TCMMA_CC_MAX)) return TCMMA_OK;
  return tcmma_fail(err, TCMMA_INVALID,
                    "compute capability %d: expected 0 (any device) or major*10+minor "
                    "from %d to %d (80 for sm_80)",
                    cc, TCMMA_CC_MIN, TCMMA_CC_MAX);
}

tcmma_status tcmma_descriptor(int cc, tcmma_arm *out, size_t cap, size_t *count, tcmma_error *err) {
  tcmma_status s = tcmma_cc_check(cc, err);
  if (s != TCMMA_OK) return s;
  if (!count) return tcmma_fail(err, TCMMA_INVALID, "descriptor: count must not be NULL");
  if (!out && cap > 0)
    return tcmma_fail(err, TCMMA_INVALID, "descriptor: out is NULL but cap is %zu", cap);
  size_t n = 0;
  for (int i = 0; i < TCMMA_ARM_COUNT; i++)
    if (tcmma_arm_runs_on((tcmma_arm)i, cc)) {
      if (n < cap) out[n] = (tcmma_arm)i;
      n++;
    }
  *count = n;
  return TCMMA_OK;
}
