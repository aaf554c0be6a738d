/* The executors of the GEMM matrix (tools/verify/gemm.h, docs/verify.md):
 * sim (the host text on the block simulator), compile (CUBIN at the floor:
 * no spills, registers within the plan, the plan's census per k tile;
 * batched in tools/verify/gemm_compile.c) and gpu (the kernel on device 0,
 * with the same data and checks as sim). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "tools/verify/gemm.h"
#include "tools/verify/sim.h"

static long census_count(const tcmma_ptx_info *info, const char *prefix) {
  long n = 0;
  for (size_t i = 0; i < info->census_count; i++)
    if (strncmp(info->census[i].opcode, prefix, strlen(prefix)) == 0)
      n += (long)info->census[i].count;
  return n;
}

bool verify_gemm_compile_check(const tcmma_gemm_plan *p, const tcmma_program *prog, char *why,
                               size_t cap) {
  if (!prog->ptxas_info) return snprintf(why, cap, "no ptxas figures in the compile log"), false;
  if (prog->spill_store_bytes || prog->spill_load_bytes || prog->registers > p->registers)
    return snprintf(why, cap, "ptxas: %d registers (the plan expects at most %d), %d/%d bytes "
                    "spilled (stores/loads)", prog->registers, p->registers,
                    prog->spill_store_bytes, prog->spill_load_bytes), false;
  tcmma_ptx_info info;
  if (tcmma_ptx_parse(prog->ptx, prog->ptx_len, &info, NULL) != TCMMA_OK)
    return snprintf(why, cap, "the PTX does not read"), false;
  long mma = census_count(&info, "mma.sync"), ldm = census_count(&info, "ldmatrix"),
       cp = census_count(&info, "cp.async.cg") + census_count(&info, "cp.async.ca");
  tcmma_ptx_info_free(&info);
  /* the k loop's body u times: kept (1), or unrolled by the compiler (a
   * short loop may be, whatever its pragma); a full unroll drops the
   * guarded refills past the last k tile, and a loop that refills nothing
   * has no copy at all */
  long u = p->mma_per_k_tile ? mma / p->mma_per_k_tile : 0, S = p->call.stages, KT = p->k_tiles;
  long prologue = S == 1 ? 0 : (S - 1 < KT ? S - 1 : KT), refills = KT - prologue;
  long copies = prologue + (refills == 0 ? 0 : u == KT ? refills : u);
  if (u < 1 || mma != u * p->mma_per_k_tile || ldm != u * p->ldmatrix_per_k_tile ||
      cp != p->cp_async_per_k_tile * copies)
    return snprintf(why, cap, "PTX has %ld mma, %ld ldmatrix, %ld cp.async; the plan says %d, %d, "
                    "%d per k tile (%ld k tile bodies, %ld tiles copied)", mma, ldm, cp,
                    p->mma_per_k_tile, p->ldmatrix_per_k_tile, p->cp_async_per_k_tile, u,
                    copies), false;
  return true;
}

static void exec_sim(const verify_gemm_case *c, const tcmma_gemm_plan *p, verify_case_result *r) {
  tcmma_buf text = {0};
  tcmma_error err = {0};
  tcmma_render_ctx rc = tcmma_render_ctx_make(NULL, TCMMA_DIALECT_HOST, NULL, &text);
  if (tcmma_render_gemm(&rc, p, &err) != TCMMA_OK) {
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
  if (!verify_gemm_case_plan(c, &p, r)) return; /* declined: r says whether as expected */
  if (e == VERIFY_EXEC_COMPILE)
    verify_gemm_exec_compile(c, &p, r);
  else if (e == VERIFY_EXEC_SIM)
    exec_sim(c, &p, r);
  else
    verify_gemm_exec_gpu(c, &p, r);
}
