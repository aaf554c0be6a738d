/* One sim run of a case: the host kernel on the simulated warp, over the
 * buffers, inputs, reference and comparison of tools/verify/data.c. */
#include "tools/verify/data.h"
#include "tools/verify/sim.h"

/* The kernel runs in place on the buffers (the simulator's memory is the
 * host's). */
static bool sim_runner(verify_case_data *x, const char *pass, void *ctx, verify_case_result *r) {
  void *args[VERIFY_CASE_BUFS];
  for (int o = 0; o < x->nbuf; o++) args[o] = x->buf[o].mem;
  tcmma_error err;
  tcmma_error_clear(&err);
  if (tcmma_sim_launch(*(sim_entry *)ctx, args, &err) == TCMMA_OK) return true;
  return verify_case_set(r, VERIFY_CASE_FAILED, "%s: simulator: %s", pass, err.message);
}

void sim_run_case(const verify_case *c, const tcmma_plan *plan, sim_entry entry,
                  verify_case_result *r) {
  verify_case_data_run(c, plan, sim_runner, &entry, r);
}
