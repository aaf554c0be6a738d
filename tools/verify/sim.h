/* Internal to the sim executor (tools/verify/sim*.c): the compiled module of
 * host-dialect kernels, and one run of a case on the simulated warp. */
#ifndef TCMMA_VERIFY_SIM_H
#define TCMMA_VERIFY_SIM_H

#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include "tcmma/sim.h"
#include "tools/verify/verify.h"

/* ---- the module: host-dialect kernels compiled into one shared object ---- */

/* A kernel's entry: args points at {d, a, b} (three void *). */
typedef void (*sim_entry)(void *args);

typedef struct sim_module sim_module;

/* Renders the kernel of each accepted plan in the host dialect into one C
 * file (entries renamed per case), compiles it with $CC (default cc) into a
 * shared object and dlopens it. Cases whose text does not render or compile
 * get an error (sim_module_entry) while the others still build.
 * TCMMA_UNAVAILABLE: no C compiler here (message says which was tried);
 * TCMMA_IO / TCMMA_NO_MEMORY: the temporary files failed. */
tcmma_status sim_module_build(const verify_case *const *cases, const tcmma_plan *plans,
                              size_t count, sim_module **out, tcmma_error *err);

/* The same for kernels already rendered in the host dialect: texts[i]
 * (copied) defines `tcmma_kernel` and `tcmma_kernel_entry`; names[i] is
 * borrowed for the module's lifetime. */
tcmma_status sim_module_build_texts(const char *const *names, const char *const *texts,
                                    size_t count, sim_module **out, tcmma_error *err);

/* The entry of case i of m; NULL with *why saying what went wrong for it. */
sim_entry sim_module_entry(const sim_module *m, size_t i, const char **why);

/* Index of the case named name in m, or (size_t)-1. */
size_t sim_module_find(const sim_module *m, const char *name);

void sim_module_free(sim_module *m);

/* ---- one run of a case ---- */

/* Runs entry on both passes of tools/verify/data.c (integer-valued inputs
 * compared bit for bit, real-valued ones within the documented bound) with
 * the plain C reference. Fills r (PASSED or FAILED with the first mismatch). */
void sim_run_case(const verify_case *c, const tcmma_plan *plan, sim_entry entry,
                  verify_case_result *r);

#endif
