/* The figures ptxas -v writes into a CUBIN compile's log (NVRTC passes
 * --ptxas-options=-v through): registers per thread, spill bytes, stack
 * frame and static shared memory of each entry and function, read for the
 * whole program or for some of its functions (one kernel of a batch). The
 * figures go to the program's fields and their lines leave the log a
 * caller sees, so that it holds diagnostics only: an empty log still means
 * a compile without warnings, as without -v. */
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "nvrtc/internal.h"

/* The number just before `what` on line [s, e), or -1. */
static long number_before(const char *s, const char *e, const char *what) {
  size_t wl = strlen(what);
  for (const char *p = s; p + wl <= e; p++) {
    if (strncmp(p, what, wl) != 0) continue;
    const char *q = p;
    while (q > s && q[-1] == ' ') q--;
    const char *digits = q;
    while (digits > s && digits[-1] >= '0' && digits[-1] <= '9') digits--;
    if (digits == q) continue;
    return strtol(digits, NULL, 10);
  }
  return -1;
}

/* Whether line s is one of ptxas -v's: "ptxas info    : ..." or a
 * function property line "ptxas         .     N bytes stack frame, ...". */
static bool info_line(const char *s) {
  if (strncmp(s, "ptxas", 5) != 0) return false;
  s += 5;
  while (*s == ' ') s++;
  return strncmp(s, "info", 4) == 0 || *s == '.';
}

void tcmma__compile_ptxas_drop(char *log) {
  char *w = log;
  for (const char *s = log; s && *s;) {
    const char *e = strchr(s, '\n');
    size_t n = e ? (size_t)(e - s + 1) : strlen(s);
    if (!info_line(s)) {
      memmove(w, s, n);
      w += n;
    }
    s += n;
  }
  if (w) *w = '\0';
}

const char *tcmma__compile_log_first_diagnostic(const char *log) {
  const char *s = log;
  while (*s && info_line(s)) {
    const char *e = strchr(s, '\n');
    s = e ? e + 1 : s + strlen(s);
  }
  return s;
}

/* Whether [s, e) opens the figures of a function, and its name: ptxas
 * writes "Compiling entry function 'NAME' for 'sm_XX'" before an entry's
 * registers and "Function properties for NAME" before any function's stack
 * and spill line. */
static bool block_name(const char *s, const char *e, const char **name, size_t *len) {
  static const char quoted[] = "function '", props[] = "Function properties for ";
  for (const char *p = s; p < e; p++) {
    if ((size_t)(e - p) > sizeof quoted - 1 && memcmp(p, quoted, sizeof quoted - 1) == 0) {
      const char *n = p + sizeof quoted - 1, *q = memchr(n, '\'', (size_t)(e - n));
      if (!q) return false;
      *name = n, *len = (size_t)(q - n);
      return true;
    }
    if ((size_t)(e - p) > sizeof props - 1 && memcmp(p, props, sizeof props - 1) == 0) {
      const char *n = p + sizeof props - 1, *q = n;
      while (q < e && *q != ' ' && *q != '\r') q++;
      *name = n, *len = (size_t)(q - n);
      return true;
    }
  }
  return false;
}

void tcmma__compile_ptxas_figures(const char *log, tcmma__ptxas_filter wanted, const void *ctx,
                                  tcmma_program *p) {
  p->ptxas_info = false;
  p->registers = p->spill_store_bytes = p->spill_load_bytes = p->stack_bytes = 0;
  p->shared_bytes = 0;
  /* the lines before any function's block count only without a filter;
   * wanted is asked once per block (it may read a whole PTX part) */
  bool take = !wanted;
  for (const char *s = log; s && *s;) {
    const char *e = strchr(s, '\n');
    if (!e) e = s + strlen(s);
    bool info = info_line(s);
    const char *fn;
    size_t fn_len;
    if (info && wanted && block_name(s, e, &fn, &fn_len)) take = wanted(fn, fn_len, ctx);
    long v;
    if (info && take) {
      if ((v = number_before(s, e, "registers")) >= 0 && strstr(s, "Used") &&
          strstr(s, "Used") < e) {
        p->ptxas_info = true;
        if (v > p->registers) p->registers = (int)v;
        long sm = number_before(s, e, "bytes smem");
        if (sm > p->shared_bytes) p->shared_bytes = (int)sm;
      }
      if ((v = number_before(s, e, "bytes spill stores")) >= 0) p->spill_store_bytes += (int)v;
      if ((v = number_before(s, e, "bytes spill loads")) >= 0) p->spill_load_bytes += (int)v;
      if ((v = number_before(s, e, "bytes stack frame")) > p->stack_bytes) p->stack_bytes = (int)v;
    }
    s = *e ? e + 1 : e;
  }
}
