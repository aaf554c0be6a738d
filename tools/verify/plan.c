/* The items of both matrices, the rule of which device runs which, and the
 * device plan's coverage rules (tools/verify/plan.h). The facts come from
 * the arm table through the public API (tcmma_arm_get, tcmma_arm_runs_on)
 * and from the GEMM plan (tcmma_shared_memory_max): nothing here names a
 * floor, an arm or a family. */
#include <stdlib.h>
#include <string.h>
#include "tcmma/gemm.h"
#include "tools/verify/plan.h"

verify_item verify_item_of_case(const verify_case *c) {
  verify_item it = {.kind = VERIFY_ITEM_ARM, .arm_case = c, .name = c->name,
                    .arm = TCMMA_ARM_NONE};
  it.accepted = c->expect == TCMMA_DECLINE_NONE && tcmma_arm_get(c->expect_arm) != NULL;
  if (it.accepted) it.arm = c->expect_arm;
  it.cost = verify_item_cost(&it);
  return it;
}

verify_item verify_item_of_gemm(const verify_gemm_case *c) {
  verify_item it = {.kind = VERIFY_ITEM_GEMM, .gemm_case = c, .name = c->name,
                    .arm = TCMMA_ARM_NONE};
  tcmma_gemm_plan p;
  verify_case_result r;
  if (verify_gemm_case_plan(c, &p, &r)) {
    it.accepted = true;
    it.arm = p.arm;
    it.shared_bytes = p.shared_bytes;
    it.gemm_plan = p;
  }
  it.cost = verify_item_cost(&it);
  return it;
}

verify_item verify_item_of_wgmma(const verify_wgmma_case *c) {
  verify_item it = {.kind = VERIFY_ITEM_WGMMA, .wgmma_case = c, .name = c->name,
                    .arm = TCMMA_ARM_NONE, .accepted = true, .wgmma = c->arm};
  it.cost = verify_item_cost(&it);
  return it;
}

size_t verify_items_all(verify_item **out) {
  const verify_case *arm;
  const verify_gemm_case *gemm;
  const verify_wgmma_case *wg;
  size_t na = verify_matrix(&arm), ng = verify_gemm_matrix(&gemm), nw = verify_wgmma_matrix(&wg);
  *out = calloc(na + ng + nw ? na + ng + nw : 1, sizeof **out);
  if (!*out) return 0;
  for (size_t i = 0; i < na; i++) (*out)[i] = verify_item_of_case(&arm[i]);
  for (size_t i = 0; i < ng; i++) (*out)[na + i] = verify_item_of_gemm(&gemm[i]);
  for (size_t i = 0; i < nw; i++) (*out)[na + ng + i] = verify_item_of_wgmma(&wg[i]);
  return na + ng + nw;
}

/* The mma products one rendered statement of an arm case holds. */
static long arm_products(const verify_case *c, tcmma_arm arm) {
  const tcmma_arm_info *info = tcmma_arm_get(arm);
  long mt = info->m ? (c->call.m + info->m - 1) / info->m : 1;
  long nt = info->n ? (c->call.n + info->n - 1) / info->n : 1;
  long kt = info->k ? (c->call.k + info->k - 1) / info->k : 1;
  return mt * nt * kt;
}

long verify_item_cost(const verify_item *it) {
  if (!it->accepted) return 1;
  if (it->kind == VERIFY_ITEM_ARM) return 60 + 2 * arm_products(it->arm_case, it->arm) + 4;
  if (it->kind == VERIFY_ITEM_WGMMA) {
    const verify_wgmma_case *w = it->wgmma_case;
    return 100 + 2L * (w->k / tcmma_wgmma_get(w->arm)->k) * (w->n / 8) + 4;
  }
  const tcmma_gemm_call *g = &it->gemm_case->call;
  int mma = it->gemm_plan.mma_per_k_tile;
  long long mnk = (long long)g->m * g->n * g->k;
  return 300 + 4L * mma + (long)(2 * mnk / 100000) + 8;
}

bool verify_gemm_runs_on(const tcmma_gemm_plan *p, const tcmma_gemm_opts *opts, int cc) {
  if (p->shared_bytes > tcmma_shared_memory_max(cc, 0)) return false;
  /* the plan's own kernel kind, asked for at cc */
  tcmma_gemm_info own = {.size = sizeof own}, info = {.size = sizeof info};
  tcmma_gemm_plan there;
  if (tcmma_gemm_plan_opts(&p->call, opts, &there, &own, NULL) != TCMMA_OK) return false;
  /* p->arm is an mma.sync row; a TMA kernel runs where its own row does
   * (its plan at cc declines elsewhere): the block-scaled tcgen05 kernel's
   * arm is the 12.x row of the same triple, which no 10.x device runs */
  if (own.kernel == TCMMA_GEMM_KERNEL_MMA_SYNC && !tcmma_arm_runs_on(p->arm, cc)) return false;
  tcmma_gemm_opts o = opts ? *opts : tcmma_gemm_opts_default();
  o.kernel = own.kernel;
  tcmma_gemm_call call = p->call;
  call.cc = cc;
  return tcmma_gemm_plan_opts(&call, &o, &there, &info, NULL) == TCMMA_OK &&
         there.arm == p->arm && info.kernel == own.kernel;
}

bool verify_item_runs_on(const verify_item *it, int cc) {
  if (!it->accepted) return true;
  if (it->kind == VERIFY_ITEM_GEMM) {
    tcmma_gemm_opts o = verify_gemm_case_opts(it->gemm_case);
    return verify_gemm_runs_on(&it->gemm_plan, &o, cc);
  }
  if (it->kind == VERIFY_ITEM_WGMMA) return tcmma_wgmma_runs_on(it->wgmma, cc);
  return tcmma_arm_runs_on(it->arm, cc);
}

unsigned verify_plan_mask(const verify_item *it, const verify_devices *d) {
  if (d->n == 0) return 0;
  if (!it->accepted) return 1u; /* planning only: once, on the lowest device */
  unsigned runners = 0;
  for (size_t i = 0; i < d->n; i++)
    if (verify_item_runs_on(it, d->cc[i])) runners |= 1u << i;
  if (it->kind == VERIFY_ITEM_GEMM || runners == 0) return runners;
  unsigned lowest = 0, highest = 0;
  for (size_t i = 0; i < d->n; i++)
    if (runners >> i & 1u) {
      if (!lowest) lowest = 1u << i;
      highest = 1u << i;
    }
  return lowest | highest;
}

/* A GEMM case of a TMA kernel (wgmma, tcgen05) runs only where its kind
 * does, whatever its mma.sync arm: the reason names the kind's row and its
 * devices (into buf; false for an mma.sync case). */
static bool gemm_kind_reason(const verify_item *it, const char *list, char *buf, size_t cap) {
  tcmma_gemm_opts o = verify_gemm_case_opts(it->gemm_case);
  tcmma_gemm_plan p;
  tcmma_gemm_info i = {.size = sizeof i};
  if (tcmma_gemm_plan_opts(&it->gemm_case->call, &o, &p, &i, NULL) != TCMMA_OK) return false;
  if (i.kernel == TCMMA_GEMM_KERNEL_WGMMA) {
    const tcmma_wgmma_info *w = tcmma_wgmma_get(i.wgmma);
    snprintf(buf, cap, "none of %s runs the wgmma kernel's %s (cc %d only, sm_%da: wgmma is not "
             "forward-compatible)", list, w->marker, w->floor, w->floor);
    return true;
  }
  if (i.kernel != TCMMA_GEMM_KERNEL_TCGEN05) return false;
  const tcmma_tcgen05_info *t = tcmma_tcgen05_get((tcmma_tcgen05)i.tcgen05);
  snprintf(buf, cap, "none of %s runs the tcgen05 kernel's %s (floor %d, only on %d.x devices "
           "that run it: tcmma_tcgen05_runs_on)", list, t->marker, t->floor, t->floor / 10);
  return true;
}

void verify_plan_uncovered_reason(const verify_item *it, const verify_devices *d, char *buf,
                                  size_t cap) {
  char list[VERIFY_PLAN_DEVICES_MAX * 5 + 1];
  verify_devices_format(d, list, sizeof list);
  const tcmma_wgmma_info *wg = it->kind == VERIFY_ITEM_WGMMA ? tcmma_wgmma_get(it->wgmma) : NULL;
  if (wg) {
    snprintf(buf, cap, "none of %s runs %s (floor %d, sm_%da only: wgmma is not "
             "forward-compatible)", list, wg->marker, wg->floor, wg->floor);
    return;
  }
  const tcmma_arm_info *info = tcmma_arm_get(it->arm);
  if (!info) {
    snprintf(buf, cap, "no device listed");
    return;
  }
  char family[64] = "";
  if (info->family) snprintf(family, sizeof family, ", only on %d.x devices", info->floor / 10);
  if (it->kind == VERIFY_ITEM_GEMM && gemm_kind_reason(it, list, buf, cap)) return;
  if (it->kind == VERIFY_ITEM_GEMM)
    snprintf(buf, cap, "none of %s runs %s (floor %d%s) with %zu bytes of shared memory", list,
             info->marker, info->floor, family, it->shared_bytes);
  else snprintf(buf, cap, "none of %s runs %s (floor %d%s)", list, info->marker, info->floor,
                family);
}
