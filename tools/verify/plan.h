/* GPU CI over the verify matrices (docs/verify.md, "GPU CI"): every case of
 * the arm matrix and of the GEMM matrix as one item with the arm it runs on
 * and an expected cost; a device plan (which listed device runs which
 * item); shards of any selection, even by cost; JUnit and TAP reports.
 * Everything is derived from the matrices, the arm table (floor, family:
 * tcmma_arm_runs_on) and the GEMM plan (its arm and shared memory:
 * tcmma_shared_memory_max). CLI-side, like the matrices. */
#ifndef TCMMA_VERIFY_PLAN_H
#define TCMMA_VERIFY_PLAN_H

#include <stdio.h>
#include "tools/verify/gemm.h"
#include "tools/verify/verify.h"
#include "tools/verify/wgmma.h"

typedef enum { VERIFY_ITEM_ARM, VERIFY_ITEM_GEMM, VERIFY_ITEM_WGMMA } verify_item_kind;

typedef struct {
  verify_item_kind kind;
  const verify_case *arm_case;       /* VERIFY_ITEM_ARM */
  const verify_gemm_case *gemm_case; /* VERIFY_ITEM_GEMM */
  const char *name;                  /* the case's name */
  bool accepted;       /* the case expects a plan (not a decline) and, for a GEMM case,
                          the planner gives one: it needs a device */
  tcmma_arm arm;       /* the arm it runs on; TCMMA_ARM_NONE when not accepted */
  size_t shared_bytes; /* GEMM: dynamic shared memory per block; 0 otherwise */
  tcmma_gemm_plan gemm_plan; /* GEMM, accepted: the case's plan */
  long cost;           /* expected cost in model units (verify_item_cost) */
  const verify_wgmma_case *wgmma_case; /* VERIFY_ITEM_WGMMA */
  tcmma_wgmma wgmma;   /* VERIFY_ITEM_WGMMA: the row it runs on (arm is TCMMA_ARM_NONE) */
} verify_item;

/* The item of arm-matrix case c / GEMM case c (planned for its arm and
 * shared memory; a plan that declines unexpectedly is an item that needs
 * no device, whose run reports the failure). */
verify_item verify_item_of_case(const verify_case *c);
verify_item verify_item_of_gemm(const verify_gemm_case *c);
/* The item of wgmma case c (tools/verify/wgmma.h): always accepted. */
verify_item verify_item_of_wgmma(const verify_wgmma_case *c);

/* Every case of the matrices, arm matrix first, then the GEMM matrix, then
 * the wgmma cases, each in matrix order, into
 * a new array *out (free it); the count, 0 when out of memory. */
size_t verify_items_all(verify_item **out);

/* The cost model (docs/verify.md, "Cost model"): what running the item on
 * the gpu executor is expected to take, in units of about a millisecond.
 * A case that needs no device: 1 (planning only). An arm case: 60 (one
 * NVRTC compile of a one-warp kernel) + 2 per mma product of the rendered
 * statement (mt*nt*kt, its code size) + 4 (two passes: copies, launches).
 * A GEMM case: 300 (the whole kernel's compile) + 4 per mma per warp and k
 * tile (the unrolled body) + 2*m*n*k/100000 (the host's double reference
 * of two passes) + 8 (copies, launches). A wgmma case: 100 (the compile of
 * a warpgroup kernel) + 2 per wgmma.mma_async per n/8 (its accumulator
 * registers: the code size) + 4 (one pass). */
long verify_item_cost(const verify_item *it);

/* Whether a device of compute capability cc can run item: a case that
 * needs no device runs anywhere; an arm case where its arm runs
 * (tcmma_arm_runs_on: floor and family); a GEMM case where its arm runs
 * and its shared memory fits (tcmma_shared_memory_max); a wgmma case where
 * its row runs (tcmma_wgmma_runs_on: cc 9.0 alone). The rule the gpu
 * executors skip by. */
bool verify_item_runs_on(const verify_item *it, int cc);

/* The GEMM half of that rule for plan p made with opts (the gpu executor's
 * skip, tools/verify/gemm_gpu.c): p's arm runs on cc, its shared memory
 * fits cc's, and the planner accepts p's call for cc with the same arm and
 * the same kernel kind (which adds what the kernel needs besides the arm:
 * cp.async's floor; the wgmma kernel's cc 9.0). */
bool verify_gemm_runs_on(const tcmma_gemm_plan *p, const tcmma_gemm_opts *opts, int cc);

/* ---- devices and the plan ---- */

#define VERIFY_PLAN_DEVICES_MAX 16

typedef struct {
  int cc[VERIFY_PLAN_DEVICES_MAX]; /* ascending, distinct */
  size_t n;
} verify_devices;

/* "75,80,89" (ascending) into buf. */
void verify_devices_format(const verify_devices *d, char *buf, size_t cap);

/* Which of d's devices run item under the plan's coverage rules, as a bit
 * mask over d->cc (bit i: d->cc[i]); 0: uncovered.
 *   - a case that needs no device: the lowest listed device only;
 *   - an arm-matrix case and a wgmma case: the lowest listed device that
 *     runs its arm (its floor device) and the highest (the newest that has
 *     it);
 *   - a GEMM case: every listed device that runs it. */
unsigned verify_plan_mask(const verify_item *it, const verify_devices *d);

/* Why no listed device runs item (for the uncovered list) into buf. */
void verify_plan_uncovered_reason(const verify_item *it, const verify_devices *d, char *buf,
                                  size_t cap);

/* ---- shards ---- */

#define VERIFY_SHARDS_MAX 256

/* Splits items[0..n) into count shards, even by cost: longest processing
 * time first (by cost descending, ties by name), each to the least loaded
 * shard (ties: the lowest); shard[i] gets item i's shard (0-based). The
 * same items give the same split in any order on every host; no shard
 * exceeds another by more than the largest item's cost. */
void verify_shard_assign(const verify_item *items, size_t n, int count, int *shard);

/* ---- reports CI systems read ---- */

typedef struct {
  const verify_item *item;
  verify_case_outcome outcome;
  const char *reason;
  double seconds; /* the case's own run (a batched compile is the suite's) */
} verify_report_case;

typedef struct {
  const char *suite;    /* the testsuite's name: "tcmma verify --executor gpu ..." */
  const char *executor; /* properties */
  const char *plan, *device, *shard; /* NULL when not given */
  double seconds;       /* the whole run, batched work included */
  const char *timestamp; /* ISO 8601, "2026-12-02T07:00:00" */
  const char *hostname;
} verify_report_info;

/* JUnit XML (tests/data/junit/junit.xsd): one testsuite, a testcase per
 * case (classname "tcmma.verify.ARM" or "tcmma.verify.gemm"), failures and
 * skips with their reason, times. Text is escaped for XML 1.0 (bytes that
 * are no valid UTF-8 or no XML character become '?'). false on a write
 * error. */
bool verify_report_junit(FILE *f, const verify_report_info *info, const verify_report_case *cases,
                         size_t n);

/* TAP version 13: the plan line, then one line per case as it finishes
 * (verify_report_tap_case), a failure's reason in a YAML block, a skip's as
 * its SKIP directive. */
void verify_report_tap_begin(FILE *f, size_t n);
void verify_report_tap_case(FILE *f, size_t number, const verify_report_case *c);

#endif
