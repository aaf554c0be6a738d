/* The tcgen05 tests' kernel (tests/util_tcgen05.h), written by hand in the
 * host dialect: the calls the renderer's text would make, in its order. */
#include <sched.h>
#include <string.h>
#include "util_tcgen05.h"

#define ST "tcgen05.st.sync.aligned.32x32b.x"
static const char *const op_alloc = "tcgen05.alloc.cta_group::1.sync.aligned.shared::cta.b32";
static const char *const op_dealloc = "tcgen05.dealloc.cta_group::1.sync.aligned.b32";
static const char *const op_relinquish = "tcgen05.relinquish_alloc_permit.cta_group::1.sync.aligned";
static const char *const op_commit =
    "tcgen05.commit.cta_group::1.mbarrier::arrive::one.shared::cluster.b64";
static const char *const op_wait_ld = "tcgen05.wait::ld.sync.aligned";
static const char *const op_wait_st = "tcgen05.wait::st.sync.aligned";
static const char *const op_before = "tcgen05.fence::before_thread_sync";
static const char *const op_after = "tcgen05.fence::after_thread_sync";
static const char *const op_try_wait = "mbarrier.try_wait.parity.shared::cta.b64";

/* This warp's quarter of rows [from] (count columns) stored at column col. */
static void store(const uint32_t *rows, size_t pitch, unsigned count, uint32_t taddr) {
  uint32_t regs[128];
  unsigned lane = tcmma_sim_thread_idx(0) % 32, q = 32 * (tcmma_sim_thread_idx(0) / 32 % 4);
  for (unsigned c = 0; c < count; c += 4) {
    for (unsigned i = 0; i < 4; i++) regs[i] = rows[(q + lane) * pitch + c + i];
    tcmma_sim_tcgen05_st(ST "4.b32", taddr + (q << 16) + c, regs);
  }
}

static void store_all(tc_run *r, uint32_t base) {
  store(&r->d0[0][0], 256, 256, base + TC_D_COL);
  if (r->a_tmem) store(&r->a_words[0][0], 8, 8, base + TC_A_COL);
  if (r->scaled && !r->cp_scales) {
    store(&r->sfa[0][0], 4, 4, base + TC_SFA_COL);
    store(&r->sfb[0][0], 8, 8, base + TC_SFB_COL);
  }
  if (r->brk != TC_ST_NO_WAIT) tcmma_sim_tcgen05_wait(op_wait_st);
}

/* The stores, then a flag in plain memory instead of a barrier. */
static void setup_flag(tc_run *r, uint32_t base) {
  unsigned t = tcmma_sim_thread_idx(0);
  store_all(r, base);
  tcmma_sim_tcgen05_fence(op_before);
  if (t >= 32 && t % 32 == 0) __atomic_add_fetch(&r->ready, 1, __ATOMIC_SEQ_CST);
  while (t == 0 && __atomic_load_n(&r->ready, __ATOMIC_SEQ_CST) < 3) sched_yield();
  tcmma_sim_tcgen05_fence(op_after);
}

static void setup(tc_run *r, uint32_t base) {
  if (r->brk == TC_ST_NO_SYNC) {
    setup_flag(r, base);
    return;
  }
  bool own = r->brk == TC_OWN_WARP_ST, warp0 = tcmma_sim_thread_idx(0) < 32;
  if (!own || !warp0) store_all(r, base);
  if (r->brk != TC_NO_FENCE_BEFORE) tcmma_sim_tcgen05_fence(op_before);
  tcmma_sim_syncthreads();
  if (r->brk != TC_NO_FENCE_AFTER_ST) tcmma_sim_tcgen05_fence(op_after);
  if (own && warp0) store_all(r, base); /* the issuing thread's own warp: no barrier needed */
}

static void issue(tc_run *r, uint32_t base, unsigned long long *bar) {
  uint32_t d = base + (r->d_lane << 16) + (r->brk == TC_MMA_OUTSIDE ? 480 : TC_D_COL);
  uint32_t a = base + ((r->d_lane + (r->brk == TC_A_LANE ? 16 : 0)) << 16) + TC_A_COL;
  uint32_t sfa = base + TC_SFA_COL, sfb = base + TC_SFB_COL;
  if (r->cp_scales) {
    tcmma_sim_tcgen05_cp("tcgen05.cp.cta_group::1.32x128b.warpx4", sfa, r->sfa_desc);
    tcmma_sim_tcgen05_cp("tcgen05.cp.cta_group::1.32x128b.warpx4", sfb, r->sfb_desc);
    tcmma_sim_tcgen05_cp("tcgen05.cp.cta_group::1.32x128b.warpx4", sfb + 4, r->sfb_desc + 32);
  }
  if (r->scaled && r->a_tmem)
    tcmma_sim_tcgen05_mma_scaled_tmem_a(r->opcode, d, a, r->bdesc, r->idesc, sfa, sfb, r->enable_d);
  else if (r->scaled)
    tcmma_sim_tcgen05_mma_scaled(r->opcode, d, r->adesc, r->bdesc, r->idesc, sfa, sfb, r->enable_d);
  else if (r->a_tmem)
    tcmma_sim_tcgen05_mma_tmem_a(r->opcode, d, a, r->bdesc, r->idesc, r->enable_d);
  else
    tcmma_sim_tcgen05_mma(r->opcode, d, r->adesc, r->bdesc, r->idesc, r->enable_d);
  if (r->brk != TC_NO_COMMIT && r->brk != TC_LD_UNCOMMITTED) tcmma_sim_tcgen05_commit(op_commit, bar);
}

/* Each warp reads its quarter's 256 columns of D. */
static void read_back(tc_run *r, uint32_t base) {
  static const char *const ld = "tcgen05.ld.sync.aligned.32x32b.x128.b32";
  unsigned t = tcmma_sim_thread_idx(0), lane = t % 32, q = 32 * (t / 32 % 4);
  uint32_t regs[2][128];
  if (r->brk == TC_LD_WRONG_QUARTER) q = 32 * ((t / 32 + 1) % 4);
  unsigned col = r->brk == TC_LD_OUTSIDE ? 256 : TC_D_COL;
  if (r->brk == TC_LD_NONUNIFORM && lane == 5) col += 4;
  tcmma_sim_tcgen05_ld(ld, regs[0], base + (q << 16) + col);
  tcmma_sim_tcgen05_ld(ld, regs[1], base + (q << 16) + col + 128);
  if (r->brk == TC_NO_WAIT_LD && t == 0) memcpy(r->early, regs[0], sizeof r->early);
  if (r->brk == TC_NEVER_WAIT_LD) return;
  tcmma_sim_tcgen05_wait(op_wait_ld);
  memcpy(r->out[q + lane], regs, sizeof regs);
}

static void kernel(void *arg) {
  tc_run *r = arg;
  unsigned char *s = tcmma_sim_dynamic_shared();
  unsigned t = tcmma_sim_thread_idx(0), warp = t / 32;
  unsigned long long *bar = (unsigned long long *)(void *)(s + TC_BAR_AT);
  uint32_t *slot = (uint32_t *)(void *)(s + TC_SLOT_AT);
  if (t == 0) {
    memcpy(s, r->smem, TC_BAR_AT);
    tcmma_sim_mbar_init("mbarrier.init.shared::cta.b64", bar, 1);
    tcmma_sim_fence("fence.mbarrier_init.release.cluster");
    tcmma_sim_fence("fence.proxy.async.shared::cta");
  }
  bool small = r->brk == TC_LD_OUTSIDE || r->brk == TC_ST_OUTSIDE || r->brk == TC_CP_OUTSIDE;
  unsigned cols = small ? 256 : TC_COLS;
  if (warp == 0) {
    if (r->brk == TC_ALLOC_AFTER_RELINQUISH) tcmma_sim_tcgen05_relinquish(op_relinquish);
    tcmma_sim_tcgen05_alloc(op_alloc, tcmma_sim_cvta_shared(slot), cols);
  }
  tcmma_sim_syncthreads();
  uint32_t base = *slot;
  setup(r, base);
  if (t == 0) issue(r, base, bar);
  /* the broken reads come after the issue, whatever the threads' order */
  if (r->brk == TC_LD_BEFORE_WAIT || r->brk == TC_OBSERVER_ONLY || r->brk == TC_LD_UNCOMMITTED)
    tcmma_sim_syncthreads();
  if (r->brk != TC_LD_BEFORE_WAIT && r->brk != TC_LD_UNCOMMITTED && (r->brk != TC_OBSERVER_ONLY || t == 0))
    tcmma_sim_mbar_wait(op_try_wait, bar, 0);
  if (r->brk != TC_NO_FENCE_AFTER) tcmma_sim_tcgen05_fence(op_after);
  read_back(r, base);
  tcmma_sim_tcgen05_fence(op_before);
  tcmma_sim_syncthreads();
  if (warp == 0 && r->brk != TC_NO_DEALLOC) {
    unsigned n = r->brk == TC_DEALLOC_SIZE ? 256 : cols;
    tcmma_sim_tcgen05_dealloc(op_dealloc, base, n);
    if (r->brk == TC_DOUBLE_DEALLOC) tcmma_sim_tcgen05_dealloc(op_dealloc, base, n);
  }
}

tcmma_status tc_launch(tc_run *r, tcmma_error *err) {
  tcmma_sim_config cfg = TCMMA_SIM_CONFIG_INIT({1, 1, 1}, {128, 1, 1}, TC_SMEM);
  return tcmma_sim_launch_grid(kernel, r, &cfg, err);
}
