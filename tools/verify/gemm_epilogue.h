/* The GEMM matrix's epilogue cases (docs/verify.md, GEMM epilogues): the
 * cases themselves (tools/verify/gemm_epilogue_cases.c) and what a run of
 * one needs beyond A, B and C (tools/verify/gemm_epilogue_ref.c): the ops'
 * tensors and the C reference of each op, written apart from the table
 * the renderer spells (tables/epilogues.def) so that the two can disagree. */
#ifndef TCMMA_VERIFY_GEMM_EPILOGUE_H
#define TCMMA_VERIFY_GEMM_EPILOGUE_H

#include "tools/verify/gemm.h"

/* The hook every hook case renders (valid CUDA and C) and its reference. */
#define VERIFY_GEMM_HOOK_BODY "return x * 0.5f + (float)(row - col) * 0.25f;"

/* The most epilogue cases (the matrix's room for them). */
#define VERIFY_GEMM_EPILOGUE_CASES 32

/* The epilogue cases into out[0..cap): how many were written. */
size_t verify_gemm_epilogue_cases(verify_gemm_case *out, size_t cap);

/* Whether c's list calls libm (gelu-tanh, gelu-erf, silu): where the kernel's
 * libm is not the reference's (a GPU's) the integer pass compares within a
 * bound, not bit for bit. */
bool verify_gemm_epilogue_libm(const verify_gemm_case *c);

/* The stored precision of d (cvt's when the list ends with one). */
tcmma_prec verify_gemm_out_prec(const verify_gemm_case *c);

/* The ops' tensors of one run: one buffer per op that takes one, in list
 * order (the kernel's arguments after beta). */
typedef struct verify_gemm_extras {
  int n; /* buffers */
  void *ptr[TCMMA_EPILOGUE_OPS_MAX];
  size_t bytes[TCMMA_EPILOGUE_OPS_MAX];
  bool written[TCMMA_EPILOGUE_OPS_MAX]; /* amax: the kernel writes it */
  int op[TCMMA_EPILOGUE_OPS_MAX]; /* the op each belongs to */
  size_t residual_stride;         /* elements from one matrix of a residual to the next */
  /* a block-scaled plan's scale tensors sfa and sfb (the kernel's arguments
   * after beta; not the epilogue's, not freed with it): NULL unscaled */
  void *scale[2];
  size_t scale_bytes[2];
} verify_gemm_extras;

/* Allocates and fills the tensors of case cs over plan p's call and l's
 * batch (a residual: every matrix at c's stride; a bias or scale: one for
 * the batch) for pass
 * (integer: small integers; real: [-1, 1]), seeded by seed; amax zeroed.
 * false when out of memory (x is then freed). */
bool verify_gemm_extras_fill(const verify_gemm_case *cs, const tcmma_gemm_call *c,
                             const verify_gemm_launch *l, bool integer, unsigned long long seed,
                             verify_gemm_extras *x);
void verify_gemm_extras_free(verify_gemm_extras *x);

/* The reference of element (i, j) of matrix bi: x0 = the kernel's f32 x before the ops,
 * e its error bound (0 in the integer pass); applies the ops in order in
 * f32 as the kernel does, propagating e (each op's Lipschitz bound times e
 * plus 8 units of f32 rounding of the values on either side); raises
 * amax_ref[k] and amax_err[k] of amax op k. Returns the value before d's
 * conversion (saturated by cvt); *e the bound there. */
float verify_gemm_epilogue_ref(const verify_gemm_case *cs, const tcmma_gemm_call *c,
                               const verify_gemm_extras *x, int bi, long i, long j, float x0,
                               double *e,
                               float *amax_ref, double *amax_err);

/* The amax ops' outputs in x against the reference's amax_ref (bit for bit
 * in the integer pass, within 2 amax_err + 16 f32 units in the real one);
 * false with r FAILED naming the op and both values. */
bool verify_gemm_amax_check(const verify_gemm_case *cs, const verify_gemm_extras *x, bool integer,
                            const float *amax_ref, const double *amax_err, const char *pass,
                            verify_case_result *r);

#endif
