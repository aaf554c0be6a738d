/* A block-scaled GEMM case's scale tensors (tools/verify/gemm.h;
 * docs/emit.md, Block-scaled GEMMs): sfa [m x scale_ld] and sfb [n x
 * scale_ld] bytes for each matrix of the batch, one after another,
 * row-major by k block as tcmma_gemm_info says, every
 * scale a power of two (ue8m0 exponents, or ue4m3 values for nvf4), the
 * rows' padding poisoned (0xff: NaN in both types) so that a kernel that
 * reads it fails, and the factor the reference multiplies each product by. */
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include "tools/verify/data.h"
#include "tools/verify/gemm.h"

bool verify_gemm_scales_init(verify_gemm_scales *s, const tcmma_gemm_call *c,
                             const tcmma_gemm_info *i) {
  memset(s, 0, sizeof *s);
  if (!i->scale_block) return true;
  s->block = i->scale_block, s->ld = i->scale_ld, s->blocks = (c->k + s->block - 1) / s->block;
  s->ue4m3 = strcmp(tcmma_prec_scale_type(c->a.prec), "ue4m3") == 0;
  s->batch = i->batch > 1 ? i->batch : 1;
  long rows[2] = {c->m, c->n};
  for (int o = 0; o < 2; o++) {
    s->rows[o] = rows[o];
    s->bytes[o] = (size_t)s->batch * (size_t)rows[o] * (size_t)s->ld;
    s->mem[o] = aligned_alloc(16, (s->bytes[o] + VERIFY_CANARY_BYTES + 15) / 16 * 16);
    s->before[o] = malloc(s->bytes[o] + VERIFY_CANARY_BYTES);
    if (!s->mem[o] || !s->before[o]) return false;
  }
  return true;
}

void verify_gemm_scales_fill(verify_gemm_scales *s, bool integer, unsigned long long *seed) {
  int span = integer ? 1 : 3; /* 2^-span .. 2^span: products stay exact in the integer pass */
  for (int o = 0; o < 2 && s->block; o++) {
    memset(s->mem[o], 0xff, s->bytes[o] + VERIFY_CANARY_BYTES);
    for (long r = 0; r < s->batch * s->rows[o]; r++) /* each matrix's rows after the last's */
      for (long b = 0; b < s->blocks; b++) {
        *seed ^= *seed << 13, *seed ^= *seed >> 7, *seed ^= *seed << 17;
        int e = (int)(*seed % (unsigned long long)(2 * span + 1)) - span;
        unsigned char *at = s->mem[o] + r * s->ld + b;
        if (s->ue4m3) verify_storage_put(TCMMA_PREC_UE4M3, at, ldexp(1, e));
        else *at = (unsigned char)(127 + e);
      }
    memcpy(s->before[o], s->mem[o], s->bytes[o] + VERIFY_CANARY_BYTES);
  }
}

double verify_gemm_scale(const verify_gemm_scales *s, int o, int bi, long row, long k) {
  if (!s->block) return 1;
  const unsigned char *at = s->before[o] + ((long)bi * s->rows[o] + row) * s->ld + k / s->block;
  if (s->ue4m3) return verify_storage_get(TCMMA_PREC_UE4M3, at);
  return *at == 0xff ? NAN : ldexp(1.0, (int)*at - 127);
}

bool verify_gemm_scales_intact(const verify_gemm_scales *s) {
  for (int o = 0; o < 2 && s->block; o++)
    if (memcmp(s->mem[o], s->before[o], s->bytes[o] + VERIFY_CANARY_BYTES)) return false;
  return true;
}

void verify_gemm_scales_free(verify_gemm_scales *s) {
  for (int o = 0; o < 2; o++) free(s->mem[o]), free(s->before[o]);
  memset(s, 0, sizeof *s);
}
