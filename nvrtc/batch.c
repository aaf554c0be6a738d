/* tcmma_compile_batch: many kernels in one NVRTC program, one result per
 * kernel (docs/design.md §9). The compile is tcmma_compile's, cache entry
 * and all, so a batch's hit is exactly its fresh compile; the split runs
 * after it, the same on a hit as on a miss. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "tcmma/compile.h"
#include "tcmma/ptx.h"
#include "nvrtc/internal.h"

/* Where the number of the PTX line a ptxas log line points at ("ptx input,
 * line N") starts in line[0..n), or NULL. */
static const char *ptx_line_at(const char *line, size_t n) {
  static const char mark[] = "ptx input, line ";
  for (size_t i = 0; i + sizeof mark - 1 < n; i++)
    if (memcmp(line + i, mark, sizeof mark - 1) == 0) return line + i + sizeof mark - 1;
  return NULL;
}

/* The length of the line at s, without its newline. */
static size_t line_len(const char *s) {
  const char *nl = strchr(s, '\n');
  return nl ? (size_t)(nl - s) : strlen(s);
}

/* For each line L (from 1) of module, map[L]: its line in part, 0 when part
 * does not hold it. part is module's kept items in order, each made of whole
 * lines of module (tcmma__ptx_slice), so its lines are found in order among
 * module's. *lines gets module's line count. NULL on no memory. */
static long *line_map(const char *module, const char *part, long *lines) {
  long count = 1;
  for (const char *p = module; (p = strchr(p, '\n')); p++) count++;
  long *map = calloc((size_t)count + 1, sizeof *map);
  if (!map) return NULL;
  long at = 1, line = 0;
  const char *q = part;
  for (const char *p = module; at <= count && q; at++) {
    size_t n = line_len(p), m = line_len(q);
    if (*q && n == m && memcmp(p, q, n) == 0) {
      map[at] = ++line;
      q = q[m] ? q + m + 1 : NULL;
    }
    p += n + (p[n] != '\0');
  }
  *lines = count;
  return map;
}

/* Whether line[0..n) quotes one of the batch's kernels other than kernels[self]
 * ('name': ptxas names entries so) and not kernels[self]. */
static bool names_other_kernel(const char *line, size_t n, const char *const *kernels,
                               size_t count, size_t self) {
  bool other = false;
  for (size_t i = 0; i < count; i++) {
    size_t k = strlen(kernels[i]);
    bool quoted = false;
    for (size_t j = 0; j + k + 2 <= n && !quoted; j++)
      quoted = line[j] == '\'' && memcmp(line + j + 1, kernels[i], k) == 0 && line[j + k + 1] == '\'';
    if (quoted && i == self) return false;
    other = other || quoted;
  }
  return other;
}

/* log less its ptxas lines that point outside kernel self's part of the PTX
 * (map: the module's lines into the part) or name another kernel of the
 * batch, and with the line numbers of the part. */
static char *kernel_log(const char *log, const long *map, long lines, const char *const *kernels,
                        size_t count, size_t self) {
  size_t len = strlen(log), at = 0;
  char *out = malloc(len + 1);
  if (!out) return NULL;
  for (const char *p = log; *p;) {
    size_t k = line_len(p);
    k += p[k] == '\n';
    const char *number = ptx_line_at(p, k);
    if (number) {
      long line = 0;
      const char *digits = number;
      for (; digits < p + k && *digits >= '0' && *digits <= '9'; digits++)
        line = line > lines ? line : line * 10 + (*digits - '0'); /* past the module: dropped */
      if (line >= 1 && line <= lines && map[line]) {
        /* the part's line number is never longer than the module's */
        at += (size_t)sprintf(out + at, "%.*s%ld", (int)(number - p), p, map[line]);
        memcpy(out + at, digits, (size_t)(p + k - digits)), at += (size_t)(p + k - digits);
      }
    } else if (!names_other_kernel(p, k, kernels, count, self)) {
      memcpy(out + at, p, k), at += k;
    }
    p += k;
  }
  out[at] = '\0';
  return out;
}

/* Which functions' ptxas figures are kernel self's: its entry and the .func
 * definitions of its part of the PTX, never another kernel of the batch. */
typedef struct {
  const char *const *kernels;
  size_t count, self;
  const char *part;
  size_t part_len;
} own_functions;

static bool is_own(const char *name, size_t len, const void *ctx) {
  const own_functions *o = ctx;
  for (size_t i = 0; i < o->count; i++)
    if (strlen(o->kernels[i]) == len && memcmp(o->kernels[i], name, len) == 0) return i == o->self;
  return o->part && tcmma__ptx_defines_func(o->part, o->part_len, name, len);
}

/* out[i] from the whole program: its copies, kernel i's PTX (NULL after
 * NVRTC's front end rejected the source), log and ptxas figures. */
static bool split_one(const tcmma_program *whole, char *ptx, size_t ptx_len,
                      const char *const *kernels, size_t n, size_t self, tcmma_program *out) {
  memset(out, 0, sizeof *out);
  out->ptx = ptx, out->ptx_len = ptx_len;
  out->name = tcmma__compile_strdup(whole->name);
  long lines = 0, *map = ptx ? line_map(whole->ptx, ptx, &lines) : calloc(1, sizeof *map);
  if (map) out->log = kernel_log(whole->log ? whole->log : "", map, lines, kernels, n, self);
  free(map);
  out->cache_note = tcmma__compile_strdup(whole->cache_note);
  out->options = calloc(whole->n_options ? whole->n_options : 1, sizeof *out->options);
  bool ok = out->name && out->log && out->options && (!whole->cache_note || out->cache_note);
  for (size_t i = 0; ok && i < whole->n_options; i++)
    ok = (out->options[out->n_options++] = tcmma__compile_strdup(whole->options[i])) != NULL;
  if (ok && whole->cubin_len) {
    ok = (out->cubin = malloc(whole->cubin_len)) != NULL;
    if (ok) memcpy(out->cubin, whole->cubin, whole->cubin_len), out->cubin_len = whole->cubin_len;
  }
  out->nvrtc_major = whole->nvrtc_major, out->nvrtc_minor = whole->nvrtc_minor;
  memcpy(out->target_arch, whole->target_arch, sizeof out->target_arch);
  out->cache_hit = whole->cache_hit;
  if (ok && whole->ptxas_info) {
    own_functions own = {kernels, n, self, ptx, ptx_len};
    tcmma__compile_ptxas_figures(whole->log, is_own, &own, out);
  }
  if (out->log) tcmma__compile_ptxas_drop(out->log);
  return ok;
}

static tcmma_status check_names(const char *const *kernels, size_t n, tcmma_error *err) {
  if (!n || !kernels) return tcmma_fail(err, TCMMA_INVALID, "tcmma_compile_batch: no kernel");
  for (size_t i = 0; i < n; i++) {
    if (!kernels[i] || !kernels[i][0])
      return tcmma_fail(err, TCMMA_INVALID, "tcmma_compile_batch: kernel %zu has no name", i);
    for (size_t j = 0; j < i; j++)
      if (strcmp(kernels[i], kernels[j]) == 0)
        return tcmma_fail(err, TCMMA_INVALID, "tcmma_compile_batch: kernel '%s' named twice",
                          kernels[i]);
  }
  return TCMMA_OK;
}

/* The first kernel whose own PTX needs more than its .target holds. */
static tcmma_status check_each(tcmma_program *out, const char *const *kernels, size_t n,
                               tcmma_error *err) {
  for (size_t i = 0; i < n; i++) {
    tcmma_ptx_info info;
    tcmma_error why;
    tcmma_status st = TCMMA_OK;
    if (tcmma_ptx_parse(out[i].ptx, out[i].ptx_len, &info, NULL) == TCMMA_OK &&
        tcmma_ptx_check_target(&info, &why) == TCMMA_FLOOR)
      st = tcmma_fail(err, TCMMA_FLOOR, "kernel %s: the PTX needs more than its .target holds: %s",
                      kernels[i], why.message);
    tcmma_ptx_info_free(&info);
    if (st != TCMMA_OK) return st;
  }
  return TCMMA_OK;
}

tcmma_status tcmma_compile_batch(const char *source, size_t len, const char *const *kernels,
                                 size_t n, const tcmma_compile_opts *opts, tcmma_program *out,
                                 tcmma_error *err) {
  if (!out) return tcmma_fail(err, TCMMA_INVALID, "tcmma_compile_batch: no output programs");
  memset(out, 0, n * sizeof *out);
  tcmma_status st = check_names(kernels, n, err);
  if (st != TCMMA_OK) return st;
  tcmma_program whole;
  tcmma_error compiled;
  st = tcmma__compile_keeping_figures(source, len, opts, &whole, &compiled);
  if (st != TCMMA_OK && st != TCMMA_COMPILE && st != TCMMA_FLOOR) {
    if (err) *err = compiled;
    return st;
  }
  char **ptx = calloc(n, sizeof *ptx);
  size_t *ptx_len = calloc(n, sizeof *ptx_len);
  tcmma_status split = ptx && ptx_len ? TCMMA_OK : TCMMA_NO_MEMORY;
  for (size_t i = 0; split == TCMMA_OK && whole.ptx && i < n; i++) {
    long first, last;
    int got = tcmma__ptx_slice(whole.ptx, whole.ptx_len, kernels[i], &ptx[i], &ptx_len[i],
                               &first, &last);
    if (got == 0)
      split = tcmma_fail(err, TCMMA_INVALID, "tcmma_compile_batch: the PTX has no .entry %s",
                         kernels[i]);
    else if (got < 0)
      split = TCMMA_NO_MEMORY;
  }
  for (size_t i = 0; split == TCMMA_OK && i < n; i++) {
    if (!split_one(&whole, ptx[i], ptx_len[i], kernels, n, i, &out[i]))
      split = TCMMA_NO_MEMORY;
    ptx[i] = NULL; /* out[i] owns it now */
  }
  if (split == TCMMA_NO_MEMORY) tcmma_fail(err, TCMMA_NO_MEMORY, "no memory to split a batch");
  for (size_t i = 0; ptx && i < n; i++) free(ptx[i]);
  free(ptx), free(ptx_len);
  tcmma_program_free(&whole);
  if (split != TCMMA_OK) {
    for (size_t i = 0; i < n; i++) tcmma_program_free(&out[i]);
    return split;
  }
  if (st == TCMMA_COMPILE) {
    if (err) *err = compiled;
    return st;
  }
  return check_each(out, kernels, n, err);
}
