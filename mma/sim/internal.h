/* Internals shared by the host warp simulator's sources (mma/sim/):
 * the lockstep rendezvous every collective goes through, failure reporting,
 * and the exact small-float codec the conversions and models share. */
#ifndef TCMMA_SIM_INTERNAL_H
#define TCMMA_SIM_INTERNAL_H

#include <stdbool.h>
#include <stdint.h>
#include "tcmma/arm.h"
#include "tcmma/sim.h"

#define SIM_LANES TCMMA_WARP_SIZE

/* Runs once per collective, by the last lane to arrive, with the opcode all
 * lanes passed and every lane's argument block (indexed by lane); may call
 * tcmma__sim_fail. */
typedef void (*sim_exec_fn)(const char *opcode, void *const lane_args[SIM_LANES]);

/* Called by each lane at a collective: waits for all 32 lanes, checks that
 * they all reached the same collective (exec and opcode), runs exec once, and
 * releases them. On any failure of the run the calling lane stops (never
 * returns). Outside a launch there is no warp: it does nothing and returns
 * false. */
bool tcmma__sim_collective(const char *opcode, sim_exec_fn exec, void *lane_arg);

/* Records the run's first failure (TCMMA_INVALID, printf-style message).
 * Inside an exec the rendezvous stops every lane afterwards; in lane code
 * (non-collective calls), use tcmma__sim_fail_lane to stop the calling lane too. */
void tcmma__sim_fail(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
_Noreturn void tcmma__sim_fail_lane(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

/* The calling lane, or -1 outside a launch. */
int tcmma__sim_current_lane(void);

/* Per-lane cp.async state, released when the lane ends: returns how many
 * copies were still pending (never waited for). */
unsigned tcmma__sim_cp_async_lane_end(void);

/* A binary floating-point format: exp_bits, man_bits, bias; has_inf: the
 * all-ones exponent is Inf/NaN (IEEE); otherwise (e4m3) only all-ones
 * exponent and mantissa is NaN and the rest of that binade is finite. */
typedef struct {
  int exp_bits, man_bits, bias;
  bool has_inf;
} sim_format;

extern const sim_format tcmma__sim_fmt_f16, tcmma__sim_fmt_bf16, tcmma__sim_fmt_e4m3,
    tcmma__sim_fmt_e5m2;

/* The value of bits in fmt (NaN, Inf, subnormals exact). */
double tcmma__sim_decode(const sim_format *fmt, uint32_t bits);

/* x rounded to nearest even in fmt. Overflow: Inf when fmt has_inf and
 * !satfinite, else the largest finite with x's sign. NaN: the canonical NaN
 * (all ones but the sign). */
uint32_t tcmma__sim_encode(const sim_format *fmt, double x, bool satfinite);

#endif
