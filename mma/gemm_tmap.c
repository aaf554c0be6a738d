/* The tensor maps a Hopper GEMM's kernel takes (include/tcmma/gemm.h,
 * tcmma_gemm_tensor_maps; docs/emit.md, The Hopper GEMM): the plan checked
 * to be a WGMMA or TCGEN05 plan with its options, the launch's shape against what it
 * serves, then each operand's 2-D map as mma/gemm_plan_wgmma.c builds it,
 * checked against the encoder's rules. */
#include <stdio.h>
#include "emit.h"
#include "gemm_plan.h"
#include "tcmma/gemm_tma.h"

/* The launch's shape s (m, n, k, lda, ldb) against what plan g with info i
 * serves: a fixed-shape kernel its own, a shape-argument one any shape of
 * the multiples, with rows of whole 16 bytes. */
static tcmma_status shape_ok(const tcmma_gemm_plan *g, const tcmma_gemm_info *i, const int s[5],
                             tcmma_error *err) {
  const tcmma_gemm_call *c = &g->call;
  int own[5] = {c->m, c->n, c->k, (int)c->a.ld, (int)c->b.ld};
  int ea = tcmma_prec_bytes(c->a.prec), eb = tcmma_prec_bytes(c->b.prec);
  for (int d = 0; d < 5; d++) {
    static const char *const names[5] = {"m", "n", "k", "lda", "ldb"};
    int mult[3] = {i->m_multiple, i->n_multiple, i->k_multiple};
    bool bad = !i->shape_args ? s[d] != own[d]
               : d < 3        ? s[d] < 1 || s[d] > TCMMA_GEMM_EXTENT_MAX || s[d] % mult[d]
               : s[d] < (d == 3 && c->a.transposed    ? s[0]
                         : d == 4 && !c->b.transposed ? s[1]
                                                      : s[2]) ||
                     ((long)s[d] * (d == 3 ? ea : eb) / (i->pack > 1 ? i->pack : 1)) % (d == 3 ? i->a_align
                                                                           : i->b_align);
    if (bad)
      return tcmma_fail(err, TCMMA_INVALID, "gemm tensor maps: %s %d is not a shape the kernel "
                        "serves (%s)", names[d], s[d], !i->shape_args ? "a fixed-shape kernel: "
                        "the call's own" : "1.. the extent limit, a multiple of the plan's "
                        "multiples; ld at least its stored rows, rows of whole 16 bytes");
  }
  return TCMMA_OK;
}

tcmma_status tcmma_gemm_tensor_maps(const tcmma_gemm_plan *plan, const tcmma_gemm_opts *opts,
                                    unsigned long long a, unsigned long long b, const int *shape,
                                    tcmma_tensor_map maps[2], tcmma_error *err) {
  if (!plan || !maps)
    return tcmma_fail(err, TCMMA_INVALID, "gemm tensor maps: plan and maps are required");
  tcmma__emit_gemm_form f;
  tcmma_status st = tcmma__emit_gemm_form_take(plan, opts, &f, err);
  if (st != TCMMA_OK) return st;
  if (f.i.kernel != TCMMA_GEMM_KERNEL_WGMMA && f.i.kernel != TCMMA_GEMM_KERNEL_TCGEN05)
    return tcmma_fail(err, TCMMA_INVALID, "gemm tensor maps: the plan is a %s kernel's, which "
                      "takes no tensor maps", tcmma_gemm_kernel_name(f.i.kernel));
  const tcmma_gemm_call *c = &plan->call;
  int s[5] = {c->m, c->n, c->k, (int)c->a.ld, (int)c->b.ld};
  if (shape) {
    for (int d = 0; d < 5; d++) s[d] = shape[d];
    if ((st = shape_ok(plan, &f.i, s, err)) != TCMMA_OK) return st;
  }
  tcmma__emit_gemm_tma_maps(plan, &f.o, &f.i, a, b, s, maps);
  for (int k = 0; k < 2; k++)
    if ((st = tcmma_tensor_map_check(&maps[k], NULL, err)) != TCMMA_OK) return st;
  return TCMMA_OK;
}
