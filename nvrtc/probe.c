/* Floors proven by compiling (docs/nvrtc.md, "Probes"): the source is
 * compiled up the ladder of NVRTC's targets through tcmma_compile, a batch
 * of rungs at once on the cores (nvrtc/probe_ladder.c), so every rung is a
 * cache entry and a second probe of the same source costs lookups only. A rung passes when NVRTC takes the source, the PTX holds its own
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
#include "nvrtc/probe_ladder.h"
#include "mma/abi.h"

typedef tcmma__arch_rung rung;
typedef tcmma__arch_outcome outcome;
typedef tcmma__arch_ladder ladder;

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

/* Rung i's outcome, or NULL with *st why it could not be compiled. */
static const outcome *at(ladder *l, size_t i, tcmma_status *st) {
  const outcome *o = tcmma__arch_ladder_at(l, i);
  *st = o ? o->hard : TCMMA_INVALID;
  return *st == TCMMA_OK ? o : NULL;
}

/* The first passing rung above rung from that keeps work in a kernel of
 * idle, or -1 (*st: a compile that could not run). */
static long climb(ladder *l, size_t from, const char *idle, tcmma_status *st) {
  for (size_t i = from + 1; i < l->n; i++) {
    const outcome *up = at(l, i, st);
    if (!up) return -1;
    if (up->st == TCMMA_OK && busy_in(up, idle)) return (long)i;
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

/* Whether the ladder's first two rungs fail alike for a reason no target
 * changes (tcmma__arch_failure_fixed): then out says where, and the walk
 * stops (*st: a compile that could not run). */
static bool fails_everywhere(ladder *l, tcmma_probe *out, tcmma_status *st) {
  const char *name = l->opts.name && *l->opts.name ? l->opts.name : "tcmma.cu";
  char a[sizeof out->evidence], b[sizeof out->evidence];
  const outcome *first = l->n > 1 ? at(l, 0, st) : NULL, *second;
  if (!first || first->st != TCMMA_COMPILE ||
      !tcmma__arch_failure_fixed(l->source, l->len, name, first->message, a, sizeof a))
    return false;
  if (!(second = at(l, 1, st)) || second->st != TCMMA_COMPILE ||
      !tcmma__arch_failure_fixed(l->source, l->len, name, second->message, b, sizeof b) ||
      strcmp(a, b) != 0)
    return false;
  out->unproven = "an #include outside every #if names a file that is not found";
  rung_option(out->fails_at, sizeof out->fails_at, l->rungs[0]);
  out->below_status = TCMMA_COMPILE;
  snprintf(out->evidence, sizeof out->evidence, "%s", a);
  return true;
}

/* The ladder walk: the lowest passing rung, with the failure just below.
 * The rungs are compiled as the ladder batches them (nvrtc/probe_ladder.c);
 * the walk reads their outcomes in its own order, as it would compile them
 * one by one. */
static tcmma_status walk(ladder *l, tcmma_probe *out) {
  const outcome *prev = NULL;
  char keeper[64] = "";
  tcmma_status st = TCMMA_OK;
  if (fails_everywhere(l, out, &st) || st != TCMMA_OK) return st;
  for (size_t i = 0; i < l->n; i++) {
    const outcome *now = at(l, i, &st);
    if (!now) return st;
    long up = now->st == TCMMA_OK && now->idle.len ? climb(l, i, tcmma_buf_str(&now->idle), &st) : -1;
    if (st != TCMMA_OK) return st;
    if (now->st == TCMMA_OK && up < 0) { /* it passes */
      out->arch = l->rungs[i].arch, out->suffix = l->rungs[i].suffix;
      rung_option(out->option, sizeof out->option, l->rungs[i]);
      if (prev) record_below(out, l->rungs[i - 1], prev, keeper);
      return TCMMA_OK;
    }
    prev = now;
    if (up >= 0) {
      /* every rung between gave the kernels no work: each fails as this one
       * does; go on at the keeper, with the rung below it as the evidence */
      rung_option(keeper, sizeof keeper, l->rungs[up]);
      if ((size_t)up - 1 > i && !(prev = at(l, (size_t)up - 1, &st))) return st;
      i = (size_t)up - 1;
    }
  }
  if (prev) { /* nothing passes: the top rung's failure */
    record_below(out, l->rungs[l->n - 1], prev, keeper);
    out->below[0] = '\0';
  }
  return TCMMA_OK;
}

/* Adds the compiles l ran to out's counts. */
static void count(const ladder *l, tcmma_probe *out) {
  out->rungs += l->ran, out->cache_hits += l->hits, out->batches += l->batches;
}

/* The caller's options as this library's whole struct (NULL: defaults). */
static tcmma_status take_opts(tcmma_compile_opts *o, const tcmma_compile_opts *opts,
                              tcmma_error *err) {
  *o = tcmma_compile_opts_default();
  return opts ? tcmma__abi_take(o, opts, sizeof *o, o, "tcmma_compile_opts",
                                "tcmma_compile_opts_default() or TCMMA_COMPILE_OPTS_INIT", err)
              : TCMMA_OK;
}

/* Whether NVRTC refuses the source at l's first rung for host code or an
 * nvcc-only option (its error ends with a hint of tables/nvrtc_hints.def):
 * then no rung of NVRTC's ladder can pass, and nvcc climbs it instead. */
static bool host_code(ladder *l) {
  tcmma_status st;
  const outcome *first = l->n ? at(l, 0, &st) : NULL;
  return first && first->st == TCMMA_COMPILE && strstr(first->message, ". Hint: ") != NULL;
}

/* The message of the first rung of l that could not be compiled into why
 * (unchanged when there is none). */
static void hard_message(const ladder *l, char *why, size_t cap) {
  for (size_t i = 0; i < l->n; i++)
    if (l->have[i] && l->done[i].hard != TCMMA_OK) {
      snprintf(why, cap, "%s", l->done[i].message);
      return;
    }
}

/* The walk with NVRTC's ladder (o as given), then, where NVRTC refuses host
 * code or takes no rung and nvcc is present, with nvcc's: the whole program
 * (o->nvcc set). *r holds the markers; it gets the walk's answer and counts;
 * why, the message of a compile that could not run. */
static tcmma_status probe_ladders(const tcmma_arch_support *s, const char *source, size_t len,
                                  tcmma_compile_opts *o, tcmma_probe *r, char *why, size_t cap) {
  char nvcc[PATH_MAX + 64];
  bool have_nvcc = !o->nvcc && tcmma__nvcc_identity(NULL, nvcc, sizeof nvcc);
  ladder *l = tcmma__arch_ladder_open(s, source, len, o);
  if (!l) return TCMMA_NO_MEMORY;
  bool host = have_nvcc && host_code(l);
  tcmma_status st = host ? TCMMA_OK : walk(l, r);
  count(l, r);
  if (st != TCMMA_OK) hard_message(l, why, cap);
  tcmma__arch_ladder_close(l);
  if (st != TCMMA_OK || r->arch || !have_nvcc) return st;
  tcmma_probe again = tcmma_probe_init();
  again.marker_floor = r->marker_floor;
  memcpy(again.marker_option, r->marker_option, sizeof again.marker_option);
  again.rungs = r->rungs, again.cache_hits = r->cache_hits, again.batches = r->batches;
  o->nvcc = "";
  if (!(l = tcmma__arch_ladder_open(s, source, len, o))) return TCMMA_NO_MEMORY;
  st = walk(l, &again);
  count(l, &again);
  if (st != TCMMA_OK) hard_message(l, why, cap);
  tcmma__arch_ladder_close(l);
  *r = again;
  return st;
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
  char failed[TCMMA_ERROR_MAX] = "";
  st = probe_ladders(&s, source, len, &o, &r, failed, sizeof failed);
  r.compiler = o.nvcc ? "nvcc" : "nvrtc";
  if (st != TCMMA_OK)
    return tcmma_fail(err, st, "probe: a compile with %s could not run: %s", r.compiler,
                      failed[0] ? failed : tcmma_status_name(st));
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
  tcmma_compile_opts o;
  if ((*st = tcmma_nvrtc_support(&s, err)) != TCMMA_OK) return -1;
  if ((*st = take_opts(&o, opts, err)) != TCMMA_OK) return -1;
  ladder *l = tcmma__arch_ladder_open(&s, source, len, &o);
  if (!l) return *st = tcmma_fail(err, TCMMA_NO_MEMORY, "no memory for the ladder"), -1;
  size_t from = 0;
  while (from < l->n && !(l->rungs[from].arch == sm && l->rungs[from].suffix == suffix)) from++;
  long up = from < l->n ? climb(l, from, suspects, st) : -1;
  if (*st != TCMMA_OK) tcmma_fail(err, *st, "compiled-away check: a compile could not run");
  else if (up >= 0) rung_option(keeper, cap, l->rungs[up]);
  tcmma__arch_ladder_close(l);
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
