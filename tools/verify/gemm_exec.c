/* The executors of the GEMM matrix (tools/verify/gemm.h, docs/verify.md):
 * sim (the host text on the block simulator), compile (CUBIN at the floor:
 * no spills, registers within the plan, the plan's census per k tile;
 * batched and checked in tools/verify/gemm_compile.c) and gpu (the kernel on device 0,
 * with the same data and checks as sim). */
#include <stdlib.h>
#include <string.h>
#include "tools/verify/gemm.h"
#include "tools/verify/sim.h"

static void exec_sim(const verify_gemm_case *c, const tcmma_gemm_plan *p, verify_case_result *r) {
  tcmma_buf text = {0};
  tcmma_error err = {0};
  tcmma_render_ctx rc = tcmma_render_ctx_make(NULL, TCMMA_DIALECT_HOST, NULL, &text);
  tcmma_gemm_opts o = verify_gemm_case_opts(c);
  if (tcmma_render_gemm_opts(&rc, p, &o, &err) != TCMMA_OK) {
    verify_case_set(r, VERIFY_CASE_FAILED, "render: %s", err.message);
    tcmma_buf_free(&text);
    return;
  }
  const char *name = c->name, *t = tcmma_buf_str(&text);
  sim_module *m;
  tcmma_status st = sim_module_build_texts(&name, &t, 1, &m, &err);
  tcmma_buf_free(&text);
  if (st == TCMMA_UNAVAILABLE) {
    verify_case_set(r, VERIFY_CASE_SKIPPED, "%s", err.message);
    return;
  }
  if (st != TCMMA_OK) {
    verify_case_set(r, VERIFY_CASE_FAILED, "sim module: %s", err.message);
    return;
  }
  const char *why;
  sim_entry entry = sim_module_entry(m, 0, &why);
  if (!entry)
    verify_case_set(r, VERIFY_CASE_FAILED, "%s", why);
  else
    verify_gemm_case_run(c, p, verify_gemm_sim_runner, &entry, r);
  sim_module_free(m);
}

void verify_gemm_exec(verify_executor e, const verify_gemm_case *c, verify_case_result *r) {
  tcmma_gemm_plan p;
  tcmma_gemm_info info;
  if (!verify_gemm_case_plan_info(c, &p, &info, r)) return; /* declined: r says whether as expected */
  if (e == VERIFY_EXEC_COMPILE)
    verify_gemm_exec_compile(c, &p, &info, r);
  else if (e == VERIFY_EXEC_SIM)
    exec_sim(c, &p, r);
  else
    verify_gemm_exec_gpu(c, &p, r);
}
