/* Architecture options from source markers (nvrtc/source.c finds them).
 * Pure: what NVRTC supports is an argument (nvrtc/arch_options.c asks the
 * loaded NVRTC). */
#include <stdio.h>
#include <string.h>
#include "tcmma/arch.h"
#include "tcmma/arm.h"
#include "tcmma/ptx.h"
#include "nvrtc/internal.h"
#include "tables/names.h"

static const char *target_at(int i) { return tcmma_target_name((tcmma_target)i); }

const char *tcmma__arch_target_names(char *buf, size_t cap, bool current) {
  return tcmma__table_names(buf, cap, target_at,
                            current ? TCMMA_TARGET_CURRENT : TCMMA_TARGET_FLOOR,
                            TCMMA_TARGET_NATIVE);
}

tcmma_status tcmma_target_parse(const char *text, tcmma_target *out, tcmma_error *err) {
  for (int t = TCMMA_TARGET_FLOOR; text && t <= TCMMA_TARGET_NATIVE; t++)
    if (strcmp(text, target_at(t)) == 0) return *out = (tcmma_target)t, TCMMA_OK;
  char names[32];
  return tcmma_fail(err, TCMMA_INVALID, "unknown target '%s': expected %s",
                    text ? text : "(null)", tcmma__arch_target_names(names, sizeof names, false));
}

const char *tcmma_target_name(tcmma_target target) {
  switch (target) {
  case TCMMA_TARGET_CURRENT: return "current";
  case TCMMA_TARGET_FLOOR: return "floor";
  case TCMMA_TARGET_NATIVE: return "native";
  }
  return "?";
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

/* Whether the target arch<suffix> holds hit h. */
static bool hit_holds(const tcmma_marker_hit *h, int arch, char suffix) {
  if (h->kind == TCMMA_HIT_PTX || h->kind == TCMMA_HIT_MACRO)
    return tcmma_ptx_opcode_holds(h->text, arch, suffix);
  if (arch < h->floor) return false;
  switch (h->suffix) {
  /* an arch-specific arm (wgmma) runs on its floor's own arch only */
  case TCMMA_PTX_SUFFIX_A: return suffix == 'a' && arch == h->floor;
  /* a family arm runs on its floor's major version only */
  case TCMMA_PTX_SUFFIX_A_OR_F: return (suffix == 'a' || suffix == 'f') && arch / 10 == h->floor / 10;
  default: return true;
  }
}

static bool all_hold(const tcmma__arch_scan *s, int arch, char suffix) {
  for (size_t i = 0; i < s->count; i++)
    if (!hit_holds(&s->hits[i], arch, suffix)) return false;
  return true;
}

/* What hit h needs, for messages: "sm_90a", "a 12.x device (a family
 * target)", "cc 80". */
static void need_text(const tcmma_marker_hit *h, char *buf, size_t cap) {
  if (h->kind == TCMMA_HIT_PTX || h->kind == TCMMA_HIT_MACRO) {
    int sm, ptx;
    tcmma_ptx_suffix suffix;
    tcmma_ptx_opcode_need(h->text, &sm, &suffix, &ptx);
    tcmma_ptx_info one = {.required_sm = sm, .required_suffix = suffix};
    tcmma_ptx_required_text(&one, buf, cap);
  } else if (h->suffix == TCMMA_PTX_SUFFIX_A) {
    snprintf(buf, cap, "sm_%da", h->floor);
  } else if (h->suffix == TCMMA_PTX_SUFFIX_A_OR_F) {
    snprintf(buf, cap, "a %d.x device (a family target)", h->floor / 10);
  } else {
    snprintf(buf, cap, "cc %d", h->floor);
  }
}

static void where(const tcmma_marker_hit *h, char *buf, size_t cap) {
  snprintf(buf, cap, "%s on line %d", h->text, h->line);
}

/* The first hit a device of compute capability cc cannot run under any
 * target suffix, or NULL. */
static const tcmma_marker_hit *unrunnable(const tcmma__arch_scan *s, int cc) {
  for (size_t i = 0; i < s->count; i++) {
    const tcmma_marker_hit *h = &s->hits[i];
    if (!hit_holds(h, cc, 0) && !hit_holds(h, cc, 'a') && !hit_holds(h, cc, 'f')) return h;
  }
  return NULL;
}

static bool needs_family(const tcmma__arch_scan *s) {
  for (size_t i = 0; i < s->count; i++)
    if (s->hits[i].suffix == TCMMA_PTX_SUFFIX_A_OR_F) return true;
  return false;
}

/* The native target: the device's own arch, arch-specific when a marker
 * needs a suffix, else clamped to the highest NVRTC arch <= cc. */
static tcmma_status decide_native(const tcmma__arch_scan *scan, int cc, const tcmma_arch_support *s,
                                  tcmma_arch_options *out, tcmma_error *err) {
  if (all_hold(scan, cc, 0)) {
    int best = 0;
    for (size_t i = 0; i < s->count; i++)
      if (s->archs[i] <= cc && s->archs[i] > best) best = s->archs[i];
    set_option(out, best, 0);
    if (best != cc)
      snprintf(out->note, sizeof out->note,
               "cc %d is not an NVRTC arch: clamped to compute_%d, the highest supported <= %d",
               cc, best, cc);
    return TCMMA_OK;
  }
  static const char suffixes[] = {'a', 'f'};
  for (size_t k = 0; k < sizeof suffixes; k++)
    if (accepts(s, cc, suffixes[k]) && all_hold(scan, cc, suffixes[k])) {
      set_option(out, cc, suffixes[k]);
      return TCMMA_OK;
    }
  const tcmma_marker_hit *h = scan->hits;
  while (h < scan->hits + scan->count && hit_holds(h, cc, 0)) h++;
  char at[200];
  where(h, at, sizeof at);
  return tcmma_fail(err, TCMMA_UNAVAILABLE, "%s on native: NVRTC does not accept compute_%da",
                    at, cc);
}

/* The floor target: the lowest NVRTC arch at or above the floor whose plain,
 * family or arch-specific target (in that order) holds every marker; an
 * arch-specific target is the device's own when a cc is given. */
static tcmma_status decide_floor(const tcmma__arch_scan *scan, int cc, const tcmma_arch_support *s,
                                 int highest, tcmma_arch_options *out, tcmma_error *err) {
  if (scan->floor == 0 && all_hold(scan, 0, 0)) return TCMMA_OK;
  bool suffix_seen = false;
  for (int arch = scan->floor; arch <= highest; arch++) {
    bool listed = false;
    for (size_t i = 0; i < s->count; i++) listed = listed || s->archs[i] == arch;
    if (!listed) continue;
    if (all_hold(scan, arch, 0)) {
      set_option(out, arch, 0);
      if (arch != scan->floor)
        snprintf(out->note, sizeof out->note,
                 "floor %d raised to compute_%d, NVRTC's lowest supported arch >= %d",
                 scan->floor, arch, scan->floor);
      return TCMMA_OK;
    }
    if (accepts(s, arch, 'f') && all_hold(scan, arch, 'f')) {
      set_option(out, arch, 'f');
      return TCMMA_OK;
    }
    int own = cc && accepts(s, cc, 'a') && all_hold(scan, cc, 'a') ? cc : arch;
    if (accepts(s, own, 'a') && all_hold(scan, own, 'a')) {
      set_option(out, own, 'a');
      if (needs_family(scan))
        snprintf(out->note, sizeof out->note,
                 "NVRTC has no family (f) targets: compute_%da runs only on cc %d", own, own);
      return TCMMA_OK;
    }
    suffix_seen = suffix_seen || all_hold(scan, arch, 'a') || all_hold(scan, arch, 'f');
  }
  if (scan->floor > highest)
    return tcmma_fail(err, TCMMA_UNAVAILABLE,
                      "the source needs cc %d, above NVRTC's highest supported arch %d",
                      scan->floor, highest);
  if (suffix_seen)
    return tcmma_fail(err, TCMMA_UNAVAILABLE,
                      "the source needs an arch-specific or family target from cc %d: NVRTC "
                      "accepts neither compute_%df nor compute_%da",
                      scan->floor, scan->floor, scan->floor);
  /* two markers no single target holds: name the two */
  const tcmma_marker_hit *a = NULL, *b = NULL;
  for (size_t i = 0; i < scan->count && !b; i++)
    if (scan->hits[i].suffix != TCMMA_PTX_SUFFIX_ANY) {
      if (!a) a = &scan->hits[i];
      else if (scan->hits[i].floor != a->floor || strcmp(scan->hits[i].text, a->text)) b = &scan->hits[i];
    }
  char x[200] = "", y[200] = "", nx[96] = "", ny[96] = "";
  if (a) where(a, x, sizeof x), need_text(a, nx, sizeof nx);
  if (b) where(b, y, sizeof y), need_text(b, ny, sizeof ny);
  return tcmma_fail(err, TCMMA_INVALID,
                    "no target holds every marker of the source: %s needs %s, %s needs %s", x, nx,
                    y[0] ? y : "another marker", ny[0] ? ny : "another target");
}

/* Marks the guards whose body the chosen arch compiles away. */
static void mark_guards(tcmma_arch_options *out, int arch) {
  for (size_t i = 0; i < out->n_markers; i++) {
    tcmma_marker_hit *h = &out->markers[i];
    if (h->kind != TCMMA_HIT_GUARD) continue;
    h->compiled_away = h->guard_op == '<' ? arch >= h->guard_cc : arch < h->guard_cc;
  }
}

static tcmma_status decide(const tcmma__arch_scan *scan, int cc, tcmma_target target,
                           const tcmma_arch_support *support, tcmma_arch_options *out,
                           tcmma_error *err) {
  int lowest = tcmma_arch_support_lowest(support), highest = support->archs[0];
  for (size_t i = 1; i < support->count; i++)
    if (support->archs[i] > highest) highest = support->archs[i];
  char archs[256];
  list_archs(support, archs, sizeof archs);
  if (cc != 0 && cc < lowest)
    return tcmma_fail(err, TCMMA_FLOOR,
                      "device cc %d is below NVRTC's lowest supported arch %d (supported: %s)",
                      cc, lowest, archs);
  if (cc != 0 && scan->floor > cc) {
    const tcmma_marker_hit *why = scan->hits;
    while (why->floor != scan->floor) why++;
    char at[200];
    where(why, at, sizeof at);
    return tcmma_fail(err, TCMMA_FLOOR, "the source needs cc %d (marker %s) but the device is cc %d",
                      scan->floor, at, cc);
  }
  if (target == TCMMA_TARGET_NATIVE && cc == 0)
    return tcmma_fail(err, TCMMA_INVALID,
                      "the native target needs the device's compute capability (give a cc)");
  const tcmma_marker_hit *h = cc ? unrunnable(scan, cc) : NULL;
  if (h) {
    char at[200], need[96];
    where(h, at, sizeof at);
    need_text(h, need, sizeof need);
    return tcmma_fail(err, TCMMA_INVALID, "%s needs %s: the device is cc %d", at, need, cc);
  }
  tcmma_status st = target == TCMMA_TARGET_NATIVE ? decide_native(scan, cc, support, out, err)
                                                  : decide_floor(scan, cc, support, highest, out, err);
  if (st == TCMMA_OK) mark_guards(out, out->arch ? out->arch : lowest);
  return st;
}

/* Whether h is an instruction no table row knows (in code or a macro). */
static bool unknown_hit(const tcmma_marker_hit *h) {
  return h->kind == TCMMA_HIT_UNKNOWN || h->kind == TCMMA_HIT_MACRO_UNKNOWN;
}

/* The scan's hits into out->markers, in source order: when they do not
 * all fit, the unknown instructions give way to the markers that decide. */

static void keep_markers(const tcmma__arch_scan *scan, tcmma_arch_options *out) {
  size_t known = 0;
  for (size_t i = 0; i < scan->count; i++) known += !unknown_hit(&scan->hits[i]);
  size_t unknown_room = known < TCMMA_ARCH_MAX_MARKERS ? TCMMA_ARCH_MAX_MARKERS - known : 0;
  out->n_markers = 0;
  for (size_t i = 0; i < scan->count && out->n_markers < TCMMA_ARCH_MAX_MARKERS; i++) {
    bool unknown = unknown_hit(&scan->hits[i]);
    if (unknown && !unknown_room) continue;
    unknown_room -= unknown;
    out->markers[out->n_markers++] = scan->hits[i];
  }
}

tcmma_status tcmma_arch_decide(const char *source, size_t len, int cc, tcmma_target target,
                               const tcmma_arch_support *support, tcmma_arch_options *out,
                               tcmma_error *err) {
  memset(out, 0, sizeof *out);
  if (target != TCMMA_TARGET_FLOOR && target != TCMMA_TARGET_NATIVE)
    return tcmma_fail(err, TCMMA_INVALID, "target %d: expected floor or native", (int)target);
  tcmma_status st = tcmma_cc_check(cc, err);
  if (st != TCMMA_OK) return st;
  if (!support || support->count == 0)
    return tcmma_fail(err, TCMMA_UNAVAILABLE, "NVRTC reported no supported architectures");
  tcmma__arch_scan scan;
  if (tcmma__arch_scan_source(source, source ? len : 0, &scan) != TCMMA_OK)
    return tcmma_fail(err, TCMMA_NO_MEMORY, "no memory to scan a %zu-byte source", len);
  out->floor = scan.floor;
  keep_markers(&scan, out);
  st = decide(&scan, cc, target, support, out, err);
  tcmma__arch_scan_free(&scan);
  return st;
}

int tcmma_arch_support_lowest(const tcmma_arch_support *support) {
  if (!support || support->count == 0) return 0;
  int lowest = support->archs[0];
  for (size_t i = 1; i < support->count && i < TCMMA_ARCH_MAX_ARCHS; i++)
    if (support->archs[i] < lowest) lowest = support->archs[i];
  return lowest;
}
