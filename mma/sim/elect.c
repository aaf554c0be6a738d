/* elect.sync (PTX ISA "elect.sync", 8.0, sm_90): a warp collective, run
 * once per warp through the rendezvous, that elects one lane of membermask.
 * The ISA promises one lane, the same for the same mask every time, and
 * names none: the model elects the highest-numbered lane of the mask, so a
 * kernel that assumes lane 0 is caught. Every lane arrives (the
 * rendezvous's rule): a lane outside its own membermask is undefined in the
 * ISA and fails the run, so only the whole warp's mask passes here. */
#include <string.h>
#include "mma/sim/internal.h"

static const char *const op_elect = "elect.sync";

typedef struct {
  unsigned mask;
  unsigned leader;
  int elected;
} elect_args;

static void exec_elect(const char *opcode, void *const lane_args[SIM_LANES]) {
  int warp = tcmma__sim_current_warp();
  if (!opcode || strcmp(opcode, op_elect) != 0) {
    tcmma__sim_fail("elect by warp %d: unknown opcode '%s': expected %s", warp,
                    opcode ? opcode : "(null)", op_elect);
    return;
  }
  unsigned mask = ((const elect_args *)lane_args[0])->mask;
  for (unsigned l = 0; l < SIM_LANES; l++) {
    const elect_args *a = lane_args[l];
    if (a->mask != mask) {
      tcmma__sim_fail("%s by warp %d: lane %u's membermask 0x%08x is not lane 0's 0x%08x (one "
                      "mask for the warp)", opcode, warp, l, a->mask, mask);
      return;
    }
    if (!(mask >> l & 1u)) {
      tcmma__sim_fail("%s by warp %d: lane %u executes it outside its membermask 0x%08x "
                      "(undefined in the PTX ISA; every lane arrives here: use 0xffffffff)",
                      opcode, warp, l, mask);
      return;
    }
  }
  unsigned leader = 0; /* the mask's highest lane */
  for (unsigned l = 0; l < SIM_LANES; l++)
    if (mask >> l & 1u) leader = l;
  for (unsigned l = 0; l < SIM_LANES; l++) {
    elect_args *a = lane_args[l];
    a->leader = leader;
    a->elected = l == leader;
  }
}

int tcmma_sim_elect_sync(const char *opcode, unsigned membermask, unsigned *leader) {
  elect_args args = {membermask, 0, 0};
  if (!tcmma__sim_collective(opcode, exec_elect, &args)) return 0;
  if (leader) *leader = args.leader;
  return args.elected;
}
