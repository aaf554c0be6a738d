/* Floors proven by compiling (docs/nvrtc.md, "Probes"): the source is
 * compiled up the ladder of NVRTC's targets through tcmma_compile, so every
 * rung is a cache entry and a second probe of the same source costs lookups
 * only. A rung passes when NVRTC takes the source, the PTX holds its own
 * .target (tcmma_ptx_check_target) and no kernel is compiled away: its
 * body idle (ret/exit) or trapping (trap/brkpt) while a higher passing rung
 * gives it work and no trap. */
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "tcmma/buf.h"
#include "tcmma/compile.h"
#include "tcmma/ptx.h"
#include "nvrtc/internal.h"
#include "mma/abi.h"

#define MAX_RUNGS (3 * TCMMA_ARCH_MAX_ARCHS)

typedef struct {
  int arch;
  char suffix;
} rung;

/* Every target NVRTC compiles for, ascending: each arch plain, family, then
 * arch-specific. */
static size_t ladder(const tcmma_arch_support *s, rung *out) {
  int archs[TCMMA_ARCH_MAX_ARCHS];
  size_t n = s->count < TCMMA_ARCH_MAX_ARCHS ? s->count : TCMMA_ARCH_MAX_ARCHS, k = 0;
  memcpy(archs, s->archs, n * sizeof *archs);
  for (size_t i = 1; i < n; i++) /* nvrtcGetSupportedArchs lists them ascending; be sure */
    for (size_t j = i; j > 0 && archs[j - 1] > archs[j]; j--) {
      int t = archs[j];
      archs[j] = archs[j - 1], archs[j - 1] = t;
    }
  for (size_t i = 0; i < n; i++) {
    out[k++] = (rung){archs[i], 0};
    if (s->accepts && s->accepts(archs[i], 'f', s->ctx)) out[k++] = (rung){archs[i], 'f'};
    if (s->accepts && s->accepts(archs[i], 'a', s->ctx)) out[k++] = (rung){archs[i], 'a'};
  }
  return k;
}

/* One rung's compile: its status and message, and its kernels with and
 * without work (space-separated names). */
typedef struct {
  tcmma_status st;
  char message[TCMMA_ERROR_MAX];
  tcmma_buf idle, busy;
  bool hit;
} outcome;

static void outcome_free(outcome *o) {
  tcmma_buf_free(&o->idle), tcmma_buf_free(&o->busy);
}

static tcmma_status try_rung(const char *source, size_t len, const tcmma_compile_opts *base,
                             rung r, outcome *o) {
  memset(o, 0, sizeof *o);
  tcmma_compile_opts opts = *base;
  /* a CUBIN: ptxas checks every instruction too, those no table row knows */
  opts.arch = r.arch, opts.arch_suffix = r.suffix, opts.sass = true;
  tcmma_program p;
  tcmma_error err = {0};
  o->st = tcmma_compile(source, len, &opts, &p, &err);
  snprintf(o->message, sizeof o->message, "%s", o->st == TCMMA_OK ? "" : err.message);
  o->hit = p.cache_hit;
  if (o->st == TCMMA_OK && p.ptx) tcmma__arch_kernels(p.ptx, p.ptx_len, &o->idle, &o->busy);
  tcmma_program_free(&p);
  if (o->idle.failed || o->busy.failed) return TCMMA_NO_MEMORY;
  /* NVRTC missing or out of memory: no rung can say anything */
  return o->st == TCMMA_UNAVAILABLE || o->st == TCMMA_NO_MEMORY ? o->st : TCMMA_OK;
}

/* Whether some kernel of list has work in o. */
static bool busy_in(const outcome *o, const char *list) {
  const char *b = tcmma_buf_str(&o->busy);
  for (const char *p = list; *p;) {
    const char *sp = strchr(p, ' ');
    size_t k = sp ? (size_t)(sp - p) : strlen(p);
    if (tcmma__arch_name_in(b, p, k)) return true;
    p += k + (sp != NULL);
  }
  return false;
}

static void rung_option(char *buf, size_t cap, rung r) {
  tcmma__arch_option(buf, cap, false, r.arch, r.suffix);
}

/* The first passing rung above rungs[from] that keeps work in a kernel of
 * idle, or -1; *ran and *hits count the compiles. */
static long climb(const char *source, size_t len, const tcmma_compile_opts *o, const rung *rungs,
                  size_t n, size_t from, const char *idle, int *ran, int *hits, tcmma_status *st) {
  for (size_t i = from + 1; i < n; i++) {
    outcome up;
    *st = try_rung(source, len, o, rungs[i], &up);
    ++*ran, *hits += up.hit;
    bool keeps = up.st == TCMMA_OK && busy_in(&up, idle);
    outcome_free(&up);
    if (*st != TCMMA_OK) return -1;
    if (keeps) return (long)i;
  }
  return -1;
}

/* Writes why rung r fails into out's below fields. */
static void record_below(tcmma_probe *out, rung r, const outcome *o, const char *keeper) {
  rung_option(out->below, sizeof out->below, r);
  out->below_status = o->st == TCMMA_OK ? TCMMA_FLOOR : o->st;
  out->below_empty = o->st == TCMMA_OK;
  if (o->st == TCMMA_OK)
    snprintf(out->evidence, sizeof out->evidence,
             "kernels compiled away (bodies of ret/exit only, or a trap/brkpt): %s; %s keeps their work",
             tcmma_buf_str(&o->idle), keeper);
  else
    snprintf(out->evidence, sizeof out->evidence, "%s", o->message);
}

/* The ladder walk: the lowest passing rung, with the failure just below. */
static tcmma_status walk(const char *source, size_t len, const tcmma_compile_opts *o,
                         const rung *rungs, size_t n, tcmma_probe *out) {
  outcome prev = {.st = TCMMA_OK};
  bool have_prev = false;
  char keeper[64] = "";
  tcmma_status st = TCMMA_OK;
  for (size_t i = 0; i < n && st == TCMMA_OK; i++) {
    outcome now;
    st = try_rung(source, len, o, rungs[i], &now);
    out->rungs++, out->cache_hits += now.hit;
    long up = -1;
    if (st == TCMMA_OK && now.st == TCMMA_OK && now.idle.len)
      up = climb(source, len, o, rungs, n, i, tcmma_buf_str(&now.idle), &out->rungs,
                 &out->cache_hits, &st);
    if (st == TCMMA_OK && now.st == TCMMA_OK && up < 0) { /* it passes */
      out->arch = rungs[i].arch, out->suffix = rungs[i].suffix;
      rung_option(out->option, sizeof out->option, rungs[i]);
      if (have_prev) record_below(out, rungs[i - 1], &prev, keeper);
      outcome_free(&now);
      break;
    }
    outcome_free(&prev);
    prev = now, have_prev = true;
    if (up >= 0) {
      /* every rung between gave the kernels no work: each fails as this one
       * does; go on at the keeper, with the rung below it as the evidence */
      rung_option(keeper, sizeof keeper, rungs[up]);
      if ((size_t)up - 1 > i) {
        outcome_free(&prev);
        st = try_rung(source, len, o, rungs[up - 1], &prev);
        out->rungs++, out->cache_hits += prev.hit;
      }
      i = (size_t)up - 1;
    }
  }
  if (st == TCMMA_OK && !out->arch && have_prev) { /* nothing passes: the top rung's failure */
    record_below(out, rungs[n - 1], &prev, keeper);
    out->below[0] = '\0';
  }
  outcome_free(&prev);
  return st;
}

/* The caller's options as this library's whole struct (NULL: defaults). */
static tcmma_status take_opts(tcmma_compile_opts *o, const tcmma_compile_opts *opts,
                              tcmma_error *err) {
  *o = tcmma_compile_opts_default();
  return opts ? tcmma__abi_take(o, opts, sizeof *o, o, "tcmma_compile_opts",
                                "tcmma_compile_opts_default() or TCMMA_COMPILE_OPTS_INIT", err)
              : TCMMA_OK;
}

/* Whether NVRTC refuses the source at r for host code or an nvcc-only
 * option (its error ends with a hint of tables/nvrtc_hints.def): then no
 * rung of NVRTC's ladder can pass, and nvcc climbs it instead. */
static bool host_code(const char *source, size_t len, const tcmma_compile_opts *o, rung r) {
  outcome first;
  bool host = try_rung(source, len, o, r, &first) == TCMMA_OK && first.st == TCMMA_COMPILE &&
              strstr(first.message, ". Hint: ") != NULL;
  outcome_free(&first);
  return host;
}

tcmma_status tcmma_probe_floor(const char *source, size_t len, const tcmma_compile_opts *opts,
                               tcmma_probe *out, tcmma_error *err) {
  if (!out || out->size == 0 || out->size > sizeof *out)
    return tcmma_fail(err, TCMMA_INVALID, "probe: out must be started with tcmma_probe_init()");
  if (!source) return tcmma_fail(err, TCMMA_INVALID, "probe: NULL source");
  tcmma_compile_opts o;
  tcmma_status st = take_opts(&o, opts, err);
  if (st != TCMMA_OK) return st;
  size_t size = out->size;
  tcmma_probe r = tcmma_probe_init();
  tcmma_arch_support s;
  if ((st = tcmma_nvrtc_support(&s, err)) != TCMMA_OK) return st;
  tcmma_arch_options markers;
  tcmma_error why;
  if (tcmma_gpu_arch_options(source, len, 0, TCMMA_TARGET_FLOOR, &markers, &why) == TCMMA_OK) {
    r.marker_floor = markers.floor;
    snprintf(r.marker_option, sizeof r.marker_option, "%s", markers.option);
  }
  rung rungs[MAX_RUNGS];
  size_t n = ladder(&s, rungs);
  char nvcc[PATH_MAX + 64];
  bool have_nvcc = !o.nvcc && tcmma__nvcc_identity(NULL, nvcc, sizeof nvcc);
  if (have_nvcc && n && host_code(source, len, &o, rungs[0])) o.nvcc = "";
  st = walk(source, len, &o, rungs, n, &r);
  if (st == TCMMA_OK && !r.arch && have_nvcc && !o.nvcc) {
    /* NVRTC took no rung (host code, host headers): the whole program with nvcc */
    tcmma_probe again = tcmma_probe_init();
    again.marker_floor = r.marker_floor;
    memcpy(again.marker_option, r.marker_option, sizeof again.marker_option);
    o.nvcc = "";
    st = walk(source, len, &o, rungs, n, &again);
    again.rungs += r.rungs, again.cache_hits += r.cache_hits;
    r = again;
  }
  r.compiler = o.nvcc ? "nvcc" : "nvrtc";
  if (st != TCMMA_OK) return tcmma_fail(err, st, "probe: a compile could not run: %s", tcmma_status_name(st));
  memcpy(out, &r, size);
  out->size = size;
  return TCMMA_OK;
}

/* The first rung above sm_<sm><suffix> that gives a kernel of suspects
 * work and no trap (its option into keeper), or -1. */
static long keeper_above(const char *source, size_t len, const tcmma_compile_opts *opts, int sm,
                         char suffix, const char *suspects, char *keeper, size_t cap,
                         tcmma_status *st, tcmma_error *err) {
  tcmma_arch_support s;
  rung rungs[MAX_RUNGS];
  tcmma_compile_opts o;
  if ((*st = tcmma_nvrtc_support(&s, err)) != TCMMA_OK) return -1;
  if ((*st = take_opts(&o, opts, err)) != TCMMA_OK) return -1;
  size_t n = ladder(&s, rungs), at = 0;
  while (at < n && !(rungs[at].arch == sm && rungs[at].suffix == suffix)) at++;
  int ran = 0, hits = 0;
  long up = at < n ? climb(source, len, &o, rungs, n, at, suspects, &ran, &hits, st) : -1;
  if (*st != TCMMA_OK) tcmma_fail(err, *st, "compiled-away check: a compile could not run");
  else if (up >= 0) rung_option(keeper, cap, rungs[up]);
  return up;
}

tcmma_status tcmma_check_compiled_away(const char *source, size_t len,
                                       const tcmma_compile_opts *opts, const tcmma_program *p,
                                       char *names, size_t cap, tcmma_error *err) {
  if (names && cap) names[0] = '\0';
  int sm;
  char suffix;
  if (!p || !p->ptx || tcmma_ptx_target_parse(p->target_arch, &sm, &suffix, NULL) != TCMMA_OK)
    return tcmma_fail(err, TCMMA_INVALID, "compiled-away check: the program has no PTX .target");
  tcmma_buf suspects = {0};
  tcmma__arch_kernels(p->ptx, p->ptx_len, &suspects, NULL);
  if (suspects.failed) {
    tcmma_buf_free(&suspects);
    return tcmma_fail(err, TCMMA_NO_MEMORY, "no memory for the kernels' names");
  }
  tcmma_status st = TCMMA_OK;
  char keeper[64];
  if (suspects.len &&
      keeper_above(source, len, opts, sm, suffix, tcmma_buf_str(&suspects), keeper,
                   sizeof keeper, &st, err) >= 0) {
    if (names && cap) snprintf(names, cap, "%s", tcmma_buf_str(&suspects));
    st = tcmma_fail(err, TCMMA_FLOOR,
                    "kernels compiled away at %s (bodies of ret/exit only, or a trap/brkpt): %s; "
                    "%s keeps their work (tcmma options --probe finds the lowest target that does)",
                    p->target_arch, tcmma_buf_str(&suspects), keeper);
  }
  tcmma_buf_free(&suspects);
  return st;
}
