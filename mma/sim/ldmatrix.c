/* ldmatrix reference model (docs/design.md §7): lane l supplies the address of row
 * l&7 of matrix l>>3; register j of lane l receives matrix j, row l>>2,
 * columns 2(l&3) and 2(l&3)+1 (lower half first); .trans delivers the
 * transpose. Only the lanes whose rows are used are read. */
#include <stdio.h>
#include <string.h>
#include "mma/sim/internal.h"

typedef struct {
  uint32_t *regs;
  const void *row;
} ldmatrix_args;

/* ldmatrix.sync.aligned.m8n8.x{1,2,4}[.trans].shared{,::cta}.b16 */
static bool parse_opcode(const char *op, int *count, bool *trans) {
  static const char *const spaces[] = {".shared.b16", ".shared::cta.b16"};
  for (int x = 1; x <= 4; x *= 2)
    for (int t = 0; t < 2; t++)
      for (int s = 0; s < 2; s++) {
        char canon[96];
        snprintf(canon, sizeof canon, "ldmatrix.sync.aligned.m8n8.x%d%s%s", x, t ? ".trans" : "",
                 spaces[s]);
        if (op && strcmp(op, canon) == 0) return *count = x, *trans = t, true;
      }
  return false;
}

static void exec_ldmatrix(const char *opcode, void *const lane_args[SIM_LANES]) {
  int count;
  bool trans;
  if (!parse_opcode(opcode, &count, &trans)) {
    tcmma__sim_fail("unknown ldmatrix opcode '%s': expected "
                    "ldmatrix.sync.aligned.m8n8.{x1,x2,x4}[.trans].shared.b16",
                    opcode);
    return;
  }
  for (int lane = 0; lane < SIM_LANES; lane++)
    if (!((const ldmatrix_args *)lane_args[lane])->regs) {
      tcmma__sim_fail("%s: lane %d's destination registers are NULL", opcode, lane);
      return;
    }
  uint16_t m[4][8][8]; /* matrix, row, column */
  for (int lane = 0; lane < 8 * count; lane++) {
    const ldmatrix_args *x = lane_args[lane];
    if ((uintptr_t)x->row % 16 != 0) { /* NULL: the bounds check (track_read) */
      tcmma__sim_fail("%s: lane %d's row address %p is not 16-byte aligned", opcode, lane, x->row);
      return;
    }
    if (!tcmma__sim_track_read(x->row, 16, tcmma__sim_current_warp(), lane, opcode)) return;
    memcpy(m[lane >> 3][lane & 7], x->row, 16);
  }
  for (int lane = 0; lane < SIM_LANES; lane++) {
    const ldmatrix_args *x = lane_args[lane];
    int r = lane >> 2, c = 2 * (lane & 3);
    for (int j = 0; j < count; j++) {
      uint16_t lo = trans ? m[j][c][r] : m[j][r][c];
      uint16_t hi = trans ? m[j][c + 1][r] : m[j][r][c + 1];
      x->regs[j] = (uint32_t)lo | (uint32_t)hi << 16;
    }
  }
}

void tcmma_sim_ldmatrix(const char *opcode, uint32_t *regs, const void *row) {
  ldmatrix_args args = {regs, row};
  tcmma__sim_collective(opcode, exec_ldmatrix, &args);
}
