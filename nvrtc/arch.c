/* Architecture options from source markers. Facts come from tables/arms.def
 * (through arm.h) and tables/markers.def. Pure: what NVRTC supports is an
 * argument (nvrtc/arch_options.c asks the loaded NVRTC). */
#include <stdio.h>
#include <string.h>
#include "tcmma/arch.h"
#include "tcmma/arm.h"
#include "nvrtc/internal.h"

static const struct {
  const char *text;
  int floor;
} other_markers[] = {
#define TCMMA_MARKER(ID, text, floor) {text, floor},
#include "tables/markers.def"
#undef TCMMA_MARKER
};

const char *tcmma_marker_text(tcmma_marker m) {
  return (unsigned)m < TCMMA_MARKER_COUNT ? other_markers[m].text : "";
}

int tcmma_marker_floor(tcmma_marker m) {
  return (unsigned)m < TCMMA_MARKER_COUNT ? other_markers[m].floor : 0;
}

tcmma_status tcmma_target_parse(const char *text, tcmma_target *out, tcmma_error *err) {
  if (text && strcmp(text, "floor") == 0) return *out = TCMMA_TARGET_FLOOR, TCMMA_OK;
  if (text && strcmp(text, "native") == 0) return *out = TCMMA_TARGET_NATIVE, TCMMA_OK;
  return tcmma_fail(err, TCMMA_INVALID, "unknown target '%s': expected floor or native",
                    text ? text : "(null)");
}

const char *tcmma_target_name(tcmma_target target) {
  switch (target) {
  case TCMMA_TARGET_CURRENT: return "current";
  case TCMMA_TARGET_FLOOR: return "floor";
  case TCMMA_TARGET_NATIVE: return "native";
  }
  return "?";
}

static bool ident_char(char c) {
  return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
         c == '_';
}

/* Whether pat occurs in s[0..len) as a whole: an end of pat that is an
 * identifier character must not touch another identifier character, so
 * "__half" is not found in "__half2" nor "nvcuda::wmma" in "xnvcuda::wmma".
 * Arm markers carry their parentheses, which makes them exact by themselves. */
static bool contains_exact(const char *s, size_t len, const char *pat) {
  size_t n = strlen(pat);
  if (n == 0 || n > len) return false;
  for (size_t i = 0; i + n <= len; i++) {
    if (s[i] != pat[0] || memcmp(s + i, pat, n) != 0) continue;
    if (ident_char(pat[0]) && i > 0 && ident_char(s[i - 1])) continue;
    if (ident_char(pat[n - 1]) && i + n < len && ident_char(s[i + n])) continue;
    return true;
  }
  return false;
}

size_t tcmma_source_markers(const char *source, size_t len, tcmma_marker_hit *hits,
                            size_t cap, int *floor) {
  size_t found = 0;
  int top = 0;
  if (!source) len = 0;
  for (int i = 0; i < TCMMA_ARM_COUNT; i++) {
    const tcmma_arm_info *a = tcmma_arm_get((tcmma_arm)i);
    char pat[sizeof hits[0].text];
    snprintf(pat, sizeof pat, "(%s)", a->marker);
    if (!contains_exact(source, len, pat)) continue;
    if (hits && found < cap) {
      tcmma_marker_hit *h = &hits[found];
      snprintf(h->text, sizeof h->text, "%s", pat);
      h->floor = a->floor;
      h->family = a->family;
    }
    found++;
    if (a->floor > top) top = a->floor;
  }
  for (int i = 0; i < TCMMA_MARKER_COUNT; i++) {
    if (!contains_exact(source, len, other_markers[i].text)) continue;
    if (hits && found < cap) {
      tcmma_marker_hit *h = &hits[found];
      snprintf(h->text, sizeof h->text, "%s", other_markers[i].text);
      h->floor = other_markers[i].floor;
      h->family = false;
    }
    found++;
    if (other_markers[i].floor > top) top = other_markers[i].floor;
  }
  if (floor) *floor = top;
  return found;
}

static void list_archs(const tcmma_arch_support *s, char *buf, size_t cap) {
  size_t used = 0;
  buf[0] = '\0';
  for (size_t i = 0; i < s->count; i++) {
    int n = snprintf(buf + used, cap - used, "%s%d", i ? " " : "", s->archs[i]);
    if (n < 0 || (size_t)n >= cap - used) break;
    used += (size_t)n;
  }
}

static bool accepts(const tcmma_arch_support *s, int arch, char suffix) {
  return s->accepts && s->accepts(arch, suffix, s->ctx);
}

const char *tcmma__arch_suffix(char suffix) {
  return suffix == 'a' ? "a" : suffix == 'f' ? "f" : "";
}

void tcmma__arch_option(char *buf, size_t cap, bool sass, int arch, char suffix) {
  snprintf(buf, cap, "--gpu-architecture=%s_%d%s", sass ? "sm" : "compute", arch,
           tcmma__arch_suffix(suffix));
}

static void set_option(tcmma_arch_options *out, int arch, char suffix) {
  out->arch = arch;
  out->suffix = suffix;
  tcmma__arch_option(out->option, sizeof out->option, false, arch, suffix);
}

/* The family marker found (its floor names the family), or NULL. */
static const tcmma_marker_hit *family_hit(const tcmma_arch_options *o) {
  for (size_t i = 0; i < o->n_markers && i < TCMMA_ARCH_MAX_MARKERS; i++)
    if (o->markers[i].family) return &o->markers[i];
  return NULL;
}

static tcmma_status decide_family(const tcmma_marker_hit *fam, int cc, tcmma_target target,
                                  const tcmma_arch_support *s, tcmma_arch_options *out,
                                  tcmma_error *err) {
  int major = fam->floor / 10;
  if (cc != 0 && cc / 10 != major)
    return tcmma_fail(err, TCMMA_INVALID,
                      "%s needs a %d.x device (a family target): the device is cc %d",
                      fam->text, major, cc);
  if (target == TCMMA_TARGET_NATIVE) {
    if (!accepts(s, cc, 'a'))
      return tcmma_fail(err, TCMMA_UNAVAILABLE, "%s on native: NVRTC does not accept compute_%da",
                        fam->text, cc);
    set_option(out, cc, 'a');
    return TCMMA_OK;
  }
  if (accepts(s, fam->floor, 'f')) {
    set_option(out, fam->floor, 'f');
    return TCMMA_OK;
  }
  int arch = cc ? cc : fam->floor;
  if (!accepts(s, arch, 'a'))
    return tcmma_fail(err, TCMMA_UNAVAILABLE,
                      "%s: NVRTC accepts neither compute_%df nor compute_%da", fam->text,
                      fam->floor, arch);
  set_option(out, arch, 'a');
  snprintf(out->note, sizeof out->note,
           "NVRTC has no family (f) targets: compute_%da runs only on cc %d", arch, arch);
  return TCMMA_OK;
}

tcmma_status tcmma_arch_decide(const char *source, size_t len, int cc, tcmma_target target,
                               const tcmma_arch_support *support, tcmma_arch_options *out,
                               tcmma_error *err) {
  memset(out, 0, sizeof *out);
  if (target != TCMMA_TARGET_FLOOR && target != TCMMA_TARGET_NATIVE)
    return tcmma_fail(err, TCMMA_INVALID, "target %d: expected floor or native", (int)target);
  tcmma_status cc_ok = tcmma_cc_check(cc, err);
  if (cc_ok != TCMMA_OK) return cc_ok;
  if (!support || support->count == 0)
    return tcmma_fail(err, TCMMA_UNAVAILABLE, "NVRTC reported no supported architectures");
  out->n_markers = tcmma_source_markers(source, len, out->markers, TCMMA_ARCH_MAX_MARKERS,
                                        &out->floor);
  if (out->n_markers > TCMMA_ARCH_MAX_MARKERS) out->n_markers = TCMMA_ARCH_MAX_MARKERS;
  int lowest = tcmma_arch_support_lowest(support), highest = support->archs[0];
  for (size_t i = 1; i < support->count; i++)
    if (support->archs[i] > highest) highest = support->archs[i];
  char archs[256];
  list_archs(support, archs, sizeof archs);
  if (cc != 0 && cc < lowest)
    return tcmma_fail(err, TCMMA_FLOOR,
                      "device cc %d is below NVRTC's lowest supported arch %d (supported: %s)",
                      cc, lowest, archs);
  if (cc != 0 && out->floor > cc) {
    const char *why = "";
    for (size_t i = 0; i < out->n_markers; i++)
      if (out->markers[i].floor == out->floor) why = out->markers[i].text;
    return tcmma_fail(err, TCMMA_FLOOR,
                      "the source needs cc %d (marker %s) but the device is cc %d", out->floor,
                      why, cc);
  }
  if (target == TCMMA_TARGET_NATIVE && cc == 0)
    return tcmma_fail(err, TCMMA_INVALID,
                      "the native target needs the device's compute capability (give a cc)");
  const tcmma_marker_hit *fam = family_hit(out);
  if (fam) return decide_family(fam, cc, target, support, out, err);
  if (target == TCMMA_TARGET_NATIVE) {
    int best = 0;
    for (size_t i = 0; i < support->count; i++)
      if (support->archs[i] <= cc && support->archs[i] > best) best = support->archs[i];
    set_option(out, best, 0);
    if (best != cc)
      snprintf(out->note, sizeof out->note,
               "cc %d is not an NVRTC arch: clamped to compute_%d, the highest supported <= %d",
               cc, best, cc);
    return TCMMA_OK;
  }
  if (out->floor == 0) return TCMMA_OK;
  int best = 0;
  for (size_t i = 0; i < support->count; i++)
    if (support->archs[i] >= out->floor && (best == 0 || support->archs[i] < best))
      best = support->archs[i];
  if (best == 0)
    return tcmma_fail(err, TCMMA_UNAVAILABLE,
                      "the source needs cc %d, above NVRTC's highest supported arch %d",
                      out->floor, highest);
  set_option(out, best, 0);
  if (best != out->floor)
    snprintf(out->note, sizeof out->note,
             "floor %d raised to compute_%d, NVRTC's lowest supported arch >= %d", out->floor,
             best, out->floor);
  return TCMMA_OK;
}

int tcmma_arch_support_lowest(const tcmma_arch_support *support) {
  if (!support || support->count == 0) return 0;
  int lowest = support->archs[0];
  for (size_t i = 1; i < support->count && i < TCMMA_ARCH_MAX_ARCHS; i++)
    if (support->archs[i] < lowest) lowest = support->archs[i];
  return lowest;
}
