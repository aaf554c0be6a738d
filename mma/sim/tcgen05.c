/* tcgen05 and Tensor Memory (docs/sim.md "tcgen05"): the entry points of
 * include/tcmma/sim.h. Placeholder while the model is written: every call
 * inside a launch fails the run naming the instruction. */
#include "mma/sim/internal.h"

static void not_yet(const char *what, const char *opcode) {
  if (tcmma__sim_current_thread() < 0) return;
  tcmma__sim_fail_lane("%s '%s': the tcgen05 model is not written yet", what,
                       opcode ? opcode : "(null)");
}

void tcmma_sim_tcgen05_alloc(const char *opcode, unsigned dst, unsigned ncols) {
  (void)dst, (void)ncols;
  not_yet("tcgen05.alloc", opcode);
}
void tcmma_sim_tcgen05_dealloc(const char *opcode, unsigned taddr, unsigned ncols) {
  (void)taddr, (void)ncols;
  not_yet("tcgen05.dealloc", opcode);
}
void tcmma_sim_tcgen05_relinquish(const char *opcode) { not_yet("tcgen05.relinquish", opcode); }
void tcmma_sim_tcgen05_mma(const char *opcode, unsigned d_tmem, uint64_t a_desc,
                           uint64_t b_desc, unsigned idesc, int enable_input_d) {
  (void)d_tmem, (void)a_desc, (void)b_desc, (void)idesc, (void)enable_input_d;
  not_yet("tcgen05.mma", opcode);
}
void tcmma_sim_tcgen05_mma_tmem_a(const char *opcode, unsigned d_tmem, unsigned a_tmem,
                                  uint64_t b_desc, unsigned idesc, int enable_input_d) {
  (void)d_tmem, (void)a_tmem, (void)b_desc, (void)idesc, (void)enable_input_d;
  not_yet("tcgen05.mma", opcode);
}
void tcmma_sim_tcgen05_mma_scaled(const char *opcode, unsigned d_tmem, uint64_t a_desc,
                                  uint64_t b_desc, unsigned idesc, unsigned sfa_tmem,
                                  unsigned sfb_tmem, int enable_input_d) {
  (void)d_tmem, (void)a_desc, (void)b_desc, (void)idesc, (void)sfa_tmem, (void)sfb_tmem;
  (void)enable_input_d;
  not_yet("tcgen05.mma", opcode);
}
void tcmma_sim_tcgen05_mma_scaled_tmem_a(const char *opcode, unsigned d_tmem, unsigned a_tmem,
                                         uint64_t b_desc, unsigned idesc, unsigned sfa_tmem,
                                         unsigned sfb_tmem, int enable_input_d) {
  (void)d_tmem, (void)a_tmem, (void)b_desc, (void)idesc, (void)sfa_tmem, (void)sfb_tmem;
  (void)enable_input_d;
  not_yet("tcgen05.mma", opcode);
}
void tcmma_sim_tcgen05_commit(const char *opcode, unsigned long long *bar) {
  (void)bar;
  not_yet("tcgen05.commit", opcode);
}
void tcmma_sim_tcgen05_ld(const char *opcode, uint32_t *regs, unsigned taddr) {
  (void)regs, (void)taddr;
  not_yet("tcgen05.ld", opcode);
}
void tcmma_sim_tcgen05_st(const char *opcode, unsigned taddr, const uint32_t *regs) {
  (void)regs, (void)taddr;
  not_yet("tcgen05.st", opcode);
}
void tcmma_sim_tcgen05_wait(const char *opcode) { not_yet("tcgen05.wait", opcode); }
void tcmma_sim_tcgen05_cp(const char *opcode, unsigned taddr, uint64_t s_desc) {
  (void)taddr, (void)s_desc;
  not_yet("tcgen05.cp", opcode);
}
void tcmma_sim_tcgen05_fence(const char *opcode) { not_yet("tcgen05.fence", opcode); }
