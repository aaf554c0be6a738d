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

/* The PTX line a ptxas log line points at ("ptx input, line N"), or 0. */
static long ptx_line_of(const char *line, size_t n) {
  static const char mark[] = "ptx input, line ";
  for (size_t i = 0; i + sizeof mark - 1 < n; i++)
    if (memcmp(line + i, mark, sizeof mark - 1) == 0) {
      long v = 0;
      for (size_t j = i + sizeof mark - 1; j < n && line[j] >= '0' && line[j] <= '9'; j++)
        v = v * 10 + (line[j] - '0');
      return v;
    }
  return 0;
}

/* log less the lines that point into another kernel's entry (lines outside
 * [first, last] that fall in some kernel's entry). */
static char *kernel_log(const char *log, long first, long last, const long (*ranges)[2],
                        size_t n) {
  size_t len = strlen(log), at = 0;
  char *out = malloc(len + 1);
  if (!out) return NULL;
  for (const char *p = log; *p;) {
    const char *nl = strchr(p, '\n');
    size_t k = nl ? (size_t)(nl - p) + 1 : strlen(p);
    long line = ptx_line_of(p, k);
    bool other = false;
    if (line && (line < first || line > last))
      for (size_t i = 0; i < n && !other; i++) other = line >= ranges[i][0] && line <= ranges[i][1];
    if (!other) memcpy(out + at, p, k), at += k;
    p += k;
  }
  out[at] = '\0';
  return out;
}

/* out[i] from the whole program: its copies and kernel i's PTX and log. */
static bool split_one(const tcmma_program *whole, char *ptx, size_t ptx_len, long first,
                      long last, const long (*ranges)[2], size_t n, tcmma_program *out) {
  memset(out, 0, sizeof *out);
  out->ptx = ptx, out->ptx_len = ptx_len;
  out->name = tcmma_strdup(whole->name);
  out->log = kernel_log(whole->log ? whole->log : "", first, last, ranges, n);
  out->cache_note = tcmma_strdup(whole->cache_note);
  out->options = calloc(whole->n_options ? whole->n_options : 1, sizeof *out->options);
  bool ok = out->name && out->log && out->options && (!whole->cache_note || out->cache_note);
  for (size_t i = 0; ok && i < whole->n_options; i++)
    ok = (out->options[out->n_options++] = tcmma_strdup(whole->options[i])) != NULL;
  if (ok && whole->cubin_len) {
    ok = (out->cubin = malloc(whole->cubin_len)) != NULL;
    if (ok) memcpy(out->cubin, whole->cubin, whole->cubin_len), out->cubin_len = whole->cubin_len;
  }
  out->nvrtc_major = whole->nvrtc_major, out->nvrtc_minor = whole->nvrtc_minor;
  memcpy(out->target_arch, whole->target_arch, sizeof out->target_arch);
  out->cache_hit = whole->cache_hit;
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
  st = tcmma_compile(source, len, opts, &whole, &compiled);
  if (st != TCMMA_OK && st != TCMMA_COMPILE && st != TCMMA_FLOOR) {
    if (err) *err = compiled;
    return st;
  }
  char **ptx = calloc(n, sizeof *ptx);
  size_t *ptx_len = calloc(n, sizeof *ptx_len);
  long (*ranges)[2] = calloc(n, sizeof *ranges);
  tcmma_status split = ptx && ptx_len && ranges ? TCMMA_OK : TCMMA_NO_MEMORY;
  for (size_t i = 0; split == TCMMA_OK && whole.ptx && i < n; i++) {
    int got = tcmma__ptx_slice(whole.ptx, whole.ptx_len, kernels[i], &ptx[i], &ptx_len[i],
                               &ranges[i][0], &ranges[i][1]);
    if (got == 0)
      split = tcmma_fail(err, TCMMA_INVALID, "tcmma_compile_batch: the PTX has no .entry %s",
                         kernels[i]);
    else if (got < 0)
      split = TCMMA_NO_MEMORY;
  }
  for (size_t i = 0; split == TCMMA_OK && i < n; i++) {
    if (!split_one(&whole, ptx[i], ptx_len[i], ranges[i][0], ranges[i][1],
                   (const long (*)[2])ranges, n, &out[i]))
      split = TCMMA_NO_MEMORY;
    ptx[i] = NULL; /* out[i] owns it now */
  }
  if (split == TCMMA_NO_MEMORY) tcmma_fail(err, TCMMA_NO_MEMORY, "no memory to split a batch");
  for (size_t i = 0; ptx && i < n; i++) free(ptx[i]);
  free(ptx), free(ptx_len), free(ranges);
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
