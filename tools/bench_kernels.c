/* The kernels tcmma bench compiles and emits: accepted cases of the arm
 * matrix, one per arm, scope and tile count, round-robin over the arms. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "bench.h"
#include "tcmma/tcmma.h"
#include "tools/verify/verify.h"

typedef struct {
  tcmma_arm arm;
  tcmma_scope scope;
  int tiles;
} bench_key;

/* The case's tile count in its arm's tiles. */
static int tiles_of(const tcmma_plan *p) { return p->mt * p->nt * p->kt; }

/* Renders case c into *k; false when it does not render. */
static bool render(const verify_case *c, const tcmma_plan *plan, bench_kernel *k) {
  tcmma_buf src = {0}, naive = {0};
  tcmma_error err;
  tcmma_kernel_opts opts = verify_case_kernel_opts(c);
  tcmma_render_ctx rc = tcmma_render_ctx_make(plan, TCMMA_DIALECT_CUDA, NULL, &src);
  tcmma_render_ctx nc = tcmma_render_ctx_make(plan, TCMMA_DIALECT_CUDA, NULL, &naive);
  if (tcmma_render_kernel(&rc, &opts, &err) != TCMMA_OK || src.failed)
    return tcmma_buf_free(&src), false;
  /* the vendor headers a hand-written kernel includes (tcmma's declarations
   * of their words then step aside) */
  if (tcmma_render_includes(&nc, true, &err) != TCMMA_OK)
    return tcmma_buf_free(&src), tcmma_buf_free(&naive), false;
  tcmma_buf_append(&naive, src.data, src.len);
  tcmma_arch_options *arch = malloc(sizeof *arch);
  bool ok = !naive.failed && arch &&
            tcmma_gpu_arch_options(src.data, src.len, 0, TCMMA_TARGET_FLOOR, arch, &err) == TCMMA_OK;
  if (ok) {
    k->c = c;
    snprintf(k->arch, sizeof k->arch, "%s", arch->option);
    k->source = src.data, k->len = src.len;
    k->naive = naive.data, k->naive_len = naive.len;
    k->wmma = tcmma_arm_get(plan->arm)->form == TCMMA_FORM_WMMA;
  } else {
    tcmma_buf_free(&src), tcmma_buf_free(&naive);
  }
  free(arch);
  return ok;
}

size_t bench_kernels(size_t want, bench_kernel **out, char *why, size_t cap) {
  const verify_case *all;
  size_t n_all = verify_matrix(&all), n = 0, n_keys = 0;
  bench_key *keys = calloc(n_all ? n_all : 1, sizeof *keys);
  const verify_case **picked = calloc(n_all ? n_all : 1, sizeof *picked);
  tcmma_plan *plans = calloc(n_all ? n_all : 1, sizeof *plans);
  *out = calloc(want ? want : 1, sizeof **out);
  if (!keys || !picked || !plans || !*out) {
    snprintf(why, cap, "out of memory");
    free(keys), free(picked), free(plans), free(*out);
    *out = NULL;
    return 0;
  }
  /* one candidate per (arm, scope, tiles), outer reduction of one */
  for (size_t i = 0; i < n_all; i++) {
    verify_case_result r;
    tcmma_plan plan;
    if (all[i].outer != 1 || all[i].pieces || !verify_case_check_plan(&all[i], &plan, &r)) continue;
    bench_key key = {plan.arm, plan.call.scope, tiles_of(&plan)};
    bool seen = false;
    for (size_t j = 0; j < n_keys && !seen; j++)
      seen = keys[j].arm == key.arm && keys[j].scope == key.scope && keys[j].tiles == key.tiles;
    if (seen) continue;
    keys[n_keys] = key, picked[n_keys] = &all[i], plans[n_keys] = plan;
    n_keys++;
  }
  /* round-robin over the arms, in matrix order within an arm */
  bool *used = calloc(n_keys ? n_keys : 1, sizeof *used);
  for (bool progress = true; used && n < want && progress;) {
    progress = false;
    for (int arm = 0; arm < TCMMA_ARM_COUNT && n < want; arm++)
      for (size_t j = 0; j < n_keys; j++) {
        if (used[j] || keys[j].arm != (tcmma_arm)arm) continue;
        used[j] = true, progress = true;
        if (render(picked[j], &plans[j], &(*out)[n])) n++;
        break;
      }
  }
  if (!n) snprintf(why, cap, "no kernel of the arm matrix rendered");
  free(used), free(keys), free(picked), free(plans);
  return n;
}

void bench_kernels_free(bench_kernel *k, size_t n) {
  for (size_t i = 0; k && i < n; i++) free(k[i].source), free(k[i].naive);
  free(k);
}
