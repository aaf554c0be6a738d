/* The ladder a probe climbs and its rungs' compiles (nvrtc/probe_ladder.c):
 * not public. A rung's compile runs once per ladder and is kept; a rung not
 * yet compiled is compiled with the next rungs above it, as one batch on
 * the cores, each through tcmma_compile and so through the cache. */
#ifndef TCMMA_NVRTC_PROBE_LADDER_H
#define TCMMA_NVRTC_PROBE_LADDER_H

#include <stdbool.h>
#include "tcmma/arch.h"
#include "tcmma/buf.h"
#include "tcmma/compile.h"

#define TCMMA__ARCH_RUNGS_MAX (3 * TCMMA_ARCH_MAX_ARCHS)

typedef struct {
  int arch;
  char suffix;
} tcmma__arch_rung;

/* One rung's compile: its status and message, its kernels without and
 * with work (space-separated names), whether the cache answered, and
 * TCMMA_UNAVAILABLE / TCMMA_NO_MEMORY in hard when it could not run. */
typedef struct {
  tcmma_status st, hard;
  char message[TCMMA_ERROR_MAX];
  tcmma_buf idle, busy;
  bool hit;
} tcmma__arch_outcome;

typedef struct {
  const char *source;
  size_t len;
  tcmma_compile_opts opts;     /* the ladder's arch, suffix and sass are each rung's */
  tcmma__arch_rung rungs[TCMMA__ARCH_RUNGS_MAX];
  size_t n;                    /* rungs, ascending */
  tcmma__arch_outcome done[TCMMA__ARCH_RUNGS_MAX];
  bool have[TCMMA__ARCH_RUNGS_MAX];
  size_t width;                /* compiles a batch runs at once: the online cores, at most 8 */
  int ran, hits, batches;      /* compiles run, of them answered by the cache, batches run */
} tcmma__arch_ladder;

/* A ladder of every target NVRTC compiles for, ascending (each arch plain,
 * family, arch-specific: s), for source with opts (copied; source is
 * borrowed), nothing compiled yet; NULL when there is no memory for it
 * (a few hundred KiB: kept off the stack). */
tcmma__arch_ladder *tcmma__arch_ladder_open(const tcmma_arch_support *s, const char *source,
                                            size_t len, const tcmma_compile_opts *opts);

/* Rung i's outcome, compiled now (with the next rungs not yet compiled
 * above it, up to width, at once) unless it was before. */
const tcmma__arch_outcome *tcmma__arch_ladder_at(tcmma__arch_ladder *l, size_t i);

/* Frees the ladder and what its outcomes hold; NULL is allowed. */
void tcmma__arch_ladder_close(tcmma__arch_ladder *l);

#endif
