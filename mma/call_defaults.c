/* The defaults of the call structs (and the GEMM options), written once: the inline
 * tcmma_call_default / tcmma_gemm_call_default of the headers and bindings
 * (which cannot call an inline function) both take them from here. Each
 * fills only the caller's size, so an older caller's smaller struct is never
 * written past its end. */
#include <string.h>
#include "tcmma/gemm.h"
#include "tcmma/plan.h"

/* Copies the first size bytes of full (of `have` bytes) to out, zeroing what
 * a newer caller's larger struct holds past it. */
static void fill(void *out, size_t size, const void *full, size_t have) {
  memcpy(out, full, size < have ? size : have);
  if (size > have) memset((char *)out + have, 0, size - have);
}

void tcmma_call_init(tcmma_call *out, size_t size) {
  if (!out || size < sizeof out->size) return;
  tcmma_call c;
  memset(&c, 0, sizeof c);
  c.size = size;
  c.d.prec = TCMMA_PREC_F32;
  c.a.prec = c.b.prec = TCMMA_PREC_F16;
  c.scope = TCMMA_SCOPE_STATEMENT;
  c.numerics = tcmma_numerics_default();
  fill(out, size, &c, sizeof c);
}

void tcmma_gemm_call_init(tcmma_gemm_call *out, size_t size) {
  if (!out || size < sizeof out->size) return;
  tcmma_gemm_call c;
  memset(&c, 0, sizeof c);
  c.size = size;
  c.m = c.n = c.k = 128;
  c.d.prec = TCMMA_PREC_F32;
  c.a.prec = c.b.prec = TCMMA_PREC_BF16;
  c.numerics = tcmma_numerics_default();
  fill(out, size, &c, sizeof c);
}

void tcmma_gemm_opts_init(tcmma_gemm_opts *out, size_t size) {
  if (!out || size < sizeof out->size) return;
  tcmma_gemm_opts o;
  memset(&o, 0, sizeof o);
  o.size = size;
  fill(out, size, &o, sizeof o);
}
