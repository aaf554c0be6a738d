/* The figures ptxas -v writes into a CUBIN compile's log (NVRTC passes
 * --ptxas-options=-v through): registers per thread, spill bytes, stack
 * frame and static shared memory of each entry and function. */
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

void tcmma__ptxas_info(tcmma_program *p) {
  const char *log = p->log;
  p->ptxas_info = false;
  p->registers = p->spill_store_bytes = p->spill_load_bytes = p->stack_bytes = 0;
  p->shared_bytes = 0;
  for (const char *s = log; s && *s;) {
    const char *e = strchr(s, '\n');
    if (!e) e = s + strlen(s);
    long v;
    if ((v = number_before(s, e, "registers")) >= 0 && strstr(s, "Used") && strstr(s, "Used") < e) {
      p->ptxas_info = true;
      if (v > p->registers) p->registers = (int)v;
      long sm = number_before(s, e, "bytes smem");
      if (sm > p->shared_bytes) p->shared_bytes = (int)sm;
    }
    if ((v = number_before(s, e, "bytes spill stores")) >= 0) p->spill_store_bytes += (int)v;
    if ((v = number_before(s, e, "bytes spill loads")) >= 0) p->spill_load_bytes += (int)v;
    if ((v = number_before(s, e, "bytes stack frame")) > p->stack_bytes) p->stack_bytes = (int)v;
    s = *e ? e + 1 : e;
  }
}
