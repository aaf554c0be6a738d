/* The GEMM matrix on a GPU (tools/verify/gemm.h): the CUDA kernel compiled
 * for device 0's own cc, launched with the plan's grid, threads and dynamic
 * shared bytes (the attribute raised first), on the very buffers the sim
 * runner uses (copied whole, canaries included, and back). Without a
 * driver or a device the case is SKIPPED; a device below the arm's floor
 * skips with "does not run"; driver failures fail the case. */
#include <stdio.h>
#include <string.h>
#include "tcmma/compile.h"
#include "tcmma/driver.h"
#include "tools/verify/data.h"
#include "tools/verify/gemm_epilogue.h"

typedef struct {
  tcmma_device_info dev;
  tcmma_kernel fn;
  tcmma_prec out; /* d's stored precision */
} gpu_gemm;

static bool runner(void *ctx, const tcmma_gemm_plan *p, void *const bufs[4],
                   const verify_gemm_extras *x, float alpha, float beta, char *why, size_t cap) {
  gpu_gemm *g = ctx;
  const tcmma_gemm_call *c = &p->call;
  long ar = c->a.transposed ? c->k : c->m, br = c->b.transposed ? c->n : c->k;
  size_t bytes[4] = {(size_t)c->m * (size_t)c->d.ld * (size_t)tcmma_prec_bytes(g->out),
                     (size_t)ar * (size_t)c->a.ld * (size_t)tcmma_prec_bytes(c->a.prec),
                     (size_t)br * (size_t)c->b.ld * (size_t)tcmma_prec_bytes(c->b.prec), 0};
  bytes[3] = (size_t)c->m * (size_t)c->d.ld * (size_t)tcmma_prec_bytes(c->d.prec);
  tcmma_devmem mem[4] = {{0}}, xm[TCMMA_EPILOGUE_OPS_MAX] = {{0}};
  tcmma_error err = {0};
  tcmma_status st = TCMMA_OK;
  for (int i = 0; i < 4 && st == TCMMA_OK; i++) {
    if (i == 3 && (!bufs[3] || bufs[3] == bufs[0])) break; /* C is D */
    st = tcmma_mem_alloc(g->dev.ordinal, bytes[i] + VERIFY_CANARY_BYTES, &mem[i], &err);
    if (st == TCMMA_OK)
      st = tcmma_mem_to_device(&mem[i], 0, bufs[i], bytes[i] + VERIFY_CANARY_BYTES, &err);
  }
  for (int i = 0; i < x->n && st == TCMMA_OK; i++) {
    st = tcmma_mem_alloc(g->dev.ordinal, x->bytes[i], &xm[i], &err);
    if (st == TCMMA_OK) st = tcmma_mem_to_device(&xm[i], 0, x->ptr[i], x->bytes[i], &err);
  }
  unsigned long long cptr = mem[3].ptr ? mem[3].ptr : mem[0].ptr;
  if (st == TCMMA_OK) {
    void *args[6 + TCMMA_EPILOGUE_OPS_MAX] = {&mem[0].ptr, &mem[1].ptr, &mem[2].ptr, &cptr,
                                              &alpha, &beta};
    for (int i = 0; i < x->n; i++) args[6 + i] = &xm[i].ptr;
    unsigned block[3] = {(unsigned)p->threads, 1, 1};
    st = tcmma_launch(&g->fn, p->grid, block, (unsigned)p->shared_bytes, args, &err);
  }
  for (int i = 0; i < 4 && st == TCMMA_OK; i++)
    if (mem[i].ptr)
      st = tcmma_mem_to_host(bufs[i], &mem[i], 0, bytes[i] + VERIFY_CANARY_BYTES, &err);
  for (int i = 0; i < x->n && st == TCMMA_OK; i++)
    if (x->written[i]) st = tcmma_mem_to_host(x->ptr[i], &xm[i], 0, x->bytes[i], &err);
  for (int i = 0; i < 4; i++) tcmma_mem_free(&mem[i]);
  for (int i = 0; i < x->n; i++) tcmma_mem_free(&xm[i]);
  if (st == TCMMA_OK) return true;
  snprintf(why, cap, "device %d (cc %d): %s", g->dev.ordinal, g->dev.cc, err.message);
  return false;
}

void verify_gemm_exec_gpu(const verify_gemm_case *c, const tcmma_gemm_plan *p,
                          verify_case_result *r) {
  gpu_gemm g;
  memset(&g, 0, sizeof g);
  tcmma_error err = {0};
  int count = 0;
  tcmma_status st = tcmma_device_count(&count, &err);
  if (st == TCMMA_OK && count == 0)
    st = tcmma_fail(&err, TCMMA_UNAVAILABLE, "no CUDA device (the driver reports 0 devices)");
  if (st == TCMMA_OK) st = tcmma_device_get(0, &g.dev, &err);
  if (st != TCMMA_OK) {
    verify_case_set(r, st == TCMMA_UNAVAILABLE ? VERIFY_CASE_SKIPPED : VERIFY_CASE_FAILED, "%s",
                    err.message);
    return;
  }
  if (!tcmma_arm_runs_on(p->arm, g.dev.cc) || p->shared_bytes > tcmma_shared_memory_max(g.dev.cc, 0)) {
    verify_case_set(r, VERIFY_CASE_SKIPPED,
                    "the device (cc %d) does not run %s with %zu bytes of "
                    "shared memory",
                    g.dev.cc, tcmma_arm_marker(p->arm), p->shared_bytes);
    return;
  }
  tcmma_buf src = {0};
  tcmma_render_ctx rc = tcmma_render_ctx_make(NULL, TCMMA_DIALECT_CUDA, NULL, &src);
  g.out = verify_gemm_out_prec(c);
  if (tcmma_render_gemm_epilogue(&rc, p, c->epilogue, c->epilogue_count, &err) != TCMMA_OK) {
    tcmma_buf_free(&src);
    verify_case_set(r, VERIFY_CASE_FAILED, "render: %s", err.message);
    return;
  }
  tcmma_compile_opts opts = TCMMA_COMPILE_OPTS_INIT(.name = "verify-gemm.cu",
                                                    .target = TCMMA_TARGET_NATIVE, .cc = g.dev.cc,
                                                    .sass = true);
  tcmma_program prog;
  st = tcmma_compile(tcmma_buf_str(&src), src.len, &opts, &prog, &err);
  tcmma_buf_free(&src);
  if (st != TCMMA_OK || !prog.cubin) {
    verify_case_set(r, st == TCMMA_UNAVAILABLE ? VERIFY_CASE_SKIPPED : VERIFY_CASE_FAILED,
                    "compile for cc %d: %s", g.dev.cc,
                    st == TCMMA_OK ? "compiled, but NVRTC gave no CUBIN" : err.message);
    if (st == TCMMA_OK || st == TCMMA_COMPILE || st == TCMMA_FLOOR) tcmma_program_free(&prog);
    return;
  }
  tcmma_module *mod = NULL;
  st = tcmma_module_load(g.dev.ordinal, prog.cubin, prog.cubin_len, &mod, &err);
  if (st == TCMMA_OK) st = tcmma_module_kernel(mod, p->call.name, &g.fn, &err);
  if (st == TCMMA_OK) st = tcmma_kernel_max_dynamic_shared(&g.fn, (unsigned)p->shared_bytes, &err);
  if (st != TCMMA_OK)
    verify_case_set(r, VERIFY_CASE_FAILED, "device %d (cc %d, %s): %s", g.dev.ordinal, g.dev.cc,
                    prog.target_arch, err.message);
  else if (verify_gemm_case_run(c, p, runner, &g, r))
    verify_case_set(r, VERIFY_CASE_PASSED,
                    "bit-exact on integers, within bound on reals on device "
                    "%d (cc %d), %s, %d registers",
                    g.dev.ordinal, g.dev.cc, prog.target_arch, prog.registers);
  tcmma_module_unload(mod);
  tcmma_program_free(&prog);
}
