/* The host warp simulator executor (docs/design.md §12.2): each accepted case's kernel,
 * rendered in the host dialect, compiled with the system C compiler, run as
 * one simulated warp and compared with a plain C reference
 * (tools/verify/sim_run.c). verify_exec_sim_prepare compiles many cases in
 * one go; a case not prepared compiles alone. */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "tools/verify/sim.h"

/* The kernels call these by name from a dlopen'ed module: referencing them
 * here links every simulator object into any program holding the executor
 * (the program must also export them: -Wl,--export-dynamic-symbol=tcmma_sim_*). */
typedef void (*any_fn)(void);
const any_fn verify_sim_keep[] = {
    (any_fn)tcmma_sim_launch,
    (any_fn)tcmma_sim_lane,
    (any_fn)tcmma_sim_block,
    (any_fn)tcmma_sim_mma,
    (any_fn)tcmma_sim_mma_scaled,
    (any_fn)tcmma_sim_cvt,
    (any_fn)tcmma_sim_ldmatrix,
    (any_fn)tcmma_sim_cp_async,
    (any_fn)tcmma_sim_cp_async_commit,
    (any_fn)tcmma_sim_cp_async_wait_all,
    (any_fn)tcmma_sim_syncwarp,
    (any_fn)tcmma_sim_elect_sync,
    (any_fn)tcmma_sim_wmma_fill,
    (any_fn)tcmma_sim_wmma_load,
    (any_fn)tcmma_sim_wmma_mma,
    (any_fn)tcmma_sim_wmma_store,
    (any_fn)tcmma_sim_half2float,
    (any_fn)tcmma_sim_float2half_rn,
    (any_fn)tcmma_sim_bfloat162float,
    (any_fn)tcmma_sim_float2bfloat16_rn,
    (any_fn)tcmma_sim_float_to_tf32,
    (any_fn)tcmma_sim_float_to_e4m3,
    (any_fn)tcmma_sim_make_int2,
    (any_fn)tcmma_sim_make_double2,
    (any_fn)tcmma_sim_float_to_e5m2,
    (any_fn)tcmma_sim_e4m3_to_float,
    (any_fn)tcmma_sim_e5m2_to_float,
    (any_fn)tcmma_sim_tcgen05_alloc,
    (any_fn)tcmma_sim_tcgen05_mma,
};

static pthread_mutex_t prepared_mu = PTHREAD_MUTEX_INITIALIZER;
static sim_module *prepared;
static tcmma_status prepared_status = TCMMA_OK; /* of the last prepare's build */
static char prepared_message[TCMMA_ERROR_MAX];
static const verify_case **prepared_cases; /* owned: the caller's list may go */
static size_t prepared_count;

/* A failed build: SKIPPED when this machine has no compiler, else FAILED. */
static void build_failed(tcmma_status st, const char *message, verify_case_result *r) {
  r->outcome = st == TCMMA_UNAVAILABLE ? VERIFY_CASE_SKIPPED : VERIFY_CASE_FAILED;
  snprintf(r->reason, sizeof r->reason, "%.500s", message);
}

void verify_exec_sim_prepare(const verify_case *const *cases, size_t count) {
  verify_exec_sim_finish();
  const verify_case **accepted = calloc(count ? count : 1, sizeof *accepted);
  tcmma_plan *plans = calloc(count ? count : 1, sizeof *plans);
  size_t n = 0;
  for (size_t i = 0; accepted && plans && i < count; i++) {
    verify_case_result r;
    if (verify_case_check_plan(cases[i], &plans[n], &r)) accepted[n++] = cases[i];
  }
  pthread_mutex_lock(&prepared_mu);
  if (!accepted || !plans) {
    prepared_status = TCMMA_NO_MEMORY;
    snprintf(prepared_message, sizeof prepared_message, "out of memory");
  } else if (n) {
    tcmma_error err;
    tcmma_error_clear(&err);
    prepared_status = sim_module_build(accepted, plans, n, &prepared, &err);
    snprintf(prepared_message, sizeof prepared_message, "%s", err.message);
  }
  prepared_cases = accepted, prepared_count = accepted ? n : 0;
  pthread_mutex_unlock(&prepared_mu);
  free(plans);
}

void verify_exec_sim_finish(void) {
  pthread_mutex_lock(&prepared_mu);
  sim_module_free(prepared);
  prepared = NULL;
  prepared_status = TCMMA_OK;
  prepared_message[0] = '\0';
  free(prepared_cases);
  prepared_cases = NULL, prepared_count = 0;
  pthread_mutex_unlock(&prepared_mu);
}

/* Whether c was among the cases built (so a failed build covers it). */
static bool was_prepared(const verify_case *c) {
  for (size_t i = 0; i < prepared_count; i++)
    if (prepared_cases[i] == c) return true;
  return false;
}

void verify_exec_sim(const verify_case *c, verify_case_result *r) {
  tcmma_plan plan;
  memset(r, 0, sizeof *r);
  if (!verify_case_check_plan(c, &plan, r)) return;
  pthread_mutex_lock(&prepared_mu);
  size_t at = sim_module_find(prepared, c->name);
  const char *why = NULL;
  sim_entry entry = at != (size_t)-1 ? sim_module_entry(prepared, at, &why) : NULL;
  bool covered = at != (size_t)-1 || (prepared_status != TCMMA_OK && was_prepared(c));
  if (covered) {
    if (prepared_status != TCMMA_OK) build_failed(prepared_status, prepared_message, r);
    else if (!entry) build_failed(TCMMA_COMPILE, why, r);
    else sim_run_case(c, &plan, entry, r);
    pthread_mutex_unlock(&prepared_mu);
    return;
  }
  pthread_mutex_unlock(&prepared_mu);
  /* Not prepared: a module of its own. */
  sim_module *m = NULL;
  tcmma_error err;
  tcmma_error_clear(&err);
  const verify_case *one[1] = {c};
  tcmma_status st = sim_module_build(one, &plan, 1, &m, &err);
  if (st != TCMMA_OK) {
    build_failed(st, err.message, r);
    return;
  }
  entry = sim_module_entry(m, 0, &why);
  if (!entry) build_failed(TCMMA_COMPILE, why, r);
  else sim_run_case(c, &plan, entry, r);
  sim_module_free(m);
}
