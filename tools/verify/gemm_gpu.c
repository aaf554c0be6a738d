/* The GEMM matrix on a GPU (tools/verify/gemm.h): the CUDA kernel compiled
 * for device 0's own cc, launched with the plan's grid, threads and dynamic
 * shared bytes (the attribute raised first), on the very buffers the sim
 * runner uses (copied whole, canaries included, and back). Without a
 * driver or a device the case is SKIPPED; a device below the arm's floor
 * skips with "does not run"; driver failures fail the case. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "tcmma/compile.h"
#include "tcmma/driver.h"
#include "tools/verify/data.h"
#include "tools/verify/gemm_epilogue.h"
#include "tools/verify/plan.h"

typedef struct {
  tcmma_device_info dev;
  tcmma_kernel fn;
  tcmma_prec out; /* d's stored precision */
} gpu_gemm;

/* Device pointer arrays of a pointer-array batch: arr[k] holds the
 * addresses of buffer k's matrices. */
static tcmma_status device_arrays(const gpu_gemm *g, const verify_gemm_launch *l,
                                  const tcmma_devmem mem[4], tcmma_devmem arr[4],
                                  tcmma_error *err) {
  int nb = l->info.batch;
  unsigned long long host[64];
  if (nb > 64) return tcmma_fail(err, TCMMA_INVALID, "pointer-array batch of %d: the gpu "
                                 "runner takes at most 64", nb);
  tcmma_status st = TCMMA_OK;
  for (int k = 0; k < 4 && st == TCMMA_OK; k++) {
    const tcmma_devmem *m = mem[k].ptr ? &mem[k] : &mem[0]; /* C is D */
    for (int i = 0; i < nb; i++) host[i] = m->ptr + (unsigned long long)i * l->stride[k];
    st = tcmma_mem_alloc(g->dev.ordinal, sizeof host[0] * (size_t)nb, &arr[k], err);
    if (st == TCMMA_OK) st = tcmma_mem_to_device(&arr[k], 0, host, sizeof host[0] * (size_t)nb, err);
  }
  return st;
}

/* A wgmma kernel's tensor maps of the device's a and b, encoded by the
 * driver into enc (the kernel's last two arguments). */
static tcmma_status encode_maps(const tcmma_gemm_plan *p, const tcmma_gemm_opts *opts,
                                const tcmma_devmem mem[4], unsigned char enc[2][TCMMA_CU_TENSOR_MAP_BYTES],
                                tcmma_error *err) {
  tcmma_tensor_map maps[2];
  tcmma_status st = tcmma_gemm_tensor_maps(p, opts, mem[1].ptr, mem[2].ptr, NULL, maps, err);
  for (int k = 0; k < 2 && st == TCMMA_OK; k++) st = tcmma_tensor_map_encode(&maps[k], enc[k], err);
  return st;
}

/* Launches the kernel on device copies of bufs (their whole batch) with
 * the arguments opts asks for. */
static tcmma_status launch(gpu_gemm *g, const tcmma_gemm_plan *p, const tcmma_gemm_opts *opts,
                           const verify_gemm_launch *l, tcmma_devmem mem[4],
                           const tcmma_devmem *xm, int nx, float alpha, float beta,
                           tcmma_error *err) {
  tcmma_devmem arr[4] = {{0}}, ws = {0};
  tcmma_status st = TCMMA_OK;
  unsigned long long ptr[4];
  for (int k = 0; k < 4; k++) ptr[k] = mem[k].ptr ? mem[k].ptr : mem[0].ptr;
  if (opts && opts->pointer_array && (st = device_arrays(g, l, mem, arr, err)) == TCMMA_OK)
    for (int k = 0; k < 4; k++) ptr[k] = arr[k].ptr;
  if (st == TCMMA_OK && l->info.workspace_bytes) {
    unsigned char *zero = calloc(1, l->info.workspace_bytes);
    st = zero ? tcmma_mem_alloc(g->dev.ordinal, l->info.workspace_bytes, &ws, err)
              : tcmma_fail(err, TCMMA_NO_MEMORY, "no memory for the workspace");
    if (st == TCMMA_OK) st = tcmma_mem_to_device(&ws, 0, zero, l->info.workspace_bytes, err);
    free(zero);
  }
  if (st == TCMMA_OK) {
    void *ptrs[4] = {&ptr[0], &ptr[1], &ptr[2], &ptr[3]}, *args[VERIFY_GEMM_ARGS_MAX];
    void *wsp = &ws.ptr;
    int dims[7];
    long long strides[4];
    const tcmma_devmem *sm = &xm[TCMMA_EPILOGUE_OPS_MAX]; /* sfa, sfb after the ops' */
    void *sf[2] = {(void *)&sm[0].ptr, (void *)&sm[1].ptr};
    size_t n = verify_gemm_args(p, opts, l, ptrs, &alpha, &beta, sf, dims, strides, wsp, args);
    for (int i = 0; i < nx; i++) args[n + (size_t)i] = (void *)&xm[i].ptr;
    _Alignas(TCMMA_CU_TENSOR_MAP_ALIGN) unsigned char enc[2][TCMMA_CU_TENSOR_MAP_BYTES];
    if ((l->info.kernel == TCMMA_GEMM_KERNEL_WGMMA || l->info.kernel == TCMMA_GEMM_KERNEL_TCGEN05) &&
        (st = encode_maps(p, opts, mem, enc, err)) == TCMMA_OK)
      args[n + (size_t)nx] = enc[0], args[n + (size_t)nx + 1] = enc[1];
    unsigned block[3] = {(unsigned)p->threads, 1, 1};
    if (st == TCMMA_OK)
      st = tcmma_launch(&g->fn, p->grid, block, (unsigned)p->shared_bytes, args, err);
  }
  for (int k = 0; k < 4; k++) tcmma_mem_free(&arr[k]);
  tcmma_mem_free(&ws);
  return st;
}

static bool runner(void *ctx, const tcmma_gemm_plan *p, const tcmma_gemm_opts *opts,
                   void *const bufs[4], const verify_gemm_extras *x, float alpha, float beta,
                   char *why, size_t cap) {
  gpu_gemm *g = ctx;
  const tcmma_gemm_call *c = &p->call;
  verify_gemm_launch l;
  if (!verify_gemm_launch_of(p, opts, &l))
    return snprintf(why, cap, "the plan's call does not plan again"), false;
  long rows[4] = {c->m, c->a.transposed ? c->k : c->m, c->b.transposed ? c->n : c->k, c->m};
  long lds[4] = {c->d.ld, c->a.ld, c->b.ld, c->d.ld};
  tcmma_prec precs[4] = {g->out, c->a.prec, c->b.prec, c->d.prec};
  size_t bytes[4];
  int pack[4] = {1, l.info.pack, l.info.pack, 1}; /* packed fp4: ld / pack bytes a row */
  for (int i = 0; i < 4; i++)
    bytes[i] = (size_t)(l.info.batch - 1) * l.stride[i] +
               (size_t)rows[i] * (size_t)lds[i] * (size_t)tcmma_prec_bytes(precs[i]) /
                   (size_t)pack[i];
  /* the epilogue's tensors, then the scale tensors sfa and sfb */
  tcmma_devmem mem[4] = {{0}}, xm[TCMMA_EPILOGUE_OPS_MAX + 2] = {{0}};
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
  for (int i = 0; i < 2 && st == TCMMA_OK && x->scale[i]; i++) {
    tcmma_devmem *sm = &xm[TCMMA_EPILOGUE_OPS_MAX + i];
    st = tcmma_mem_alloc(g->dev.ordinal, x->scale_bytes[i], sm, &err);
    if (st == TCMMA_OK) st = tcmma_mem_to_device(sm, 0, x->scale[i], x->scale_bytes[i], &err);
  }
  if (st == TCMMA_OK) st = launch(g, p, opts, &l, mem, xm, x->n, alpha, beta, &err);
  for (int i = 0; i < 4 && st == TCMMA_OK; i++)
    if (mem[i].ptr)
      st = tcmma_mem_to_host(bufs[i], &mem[i], 0, bytes[i] + VERIFY_CANARY_BYTES, &err);
  for (int i = 0; i < x->n && st == TCMMA_OK; i++)
    if (x->written[i]) st = tcmma_mem_to_host(x->ptr[i], &xm[i], 0, x->bytes[i], &err);
  for (int i = 0; i < 4; i++) tcmma_mem_free(&mem[i]);
  for (int i = 0; i < x->n; i++) tcmma_mem_free(&xm[i]);
  for (int i = 0; i < 2; i++) tcmma_mem_free(&xm[TCMMA_EPILOGUE_OPS_MAX + i]);
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
  tcmma_gemm_opts o = verify_gemm_case_opts(c);
  if (!verify_gemm_runs_on(p, &o, g.dev.cc)) { /* the device plan's rule */
    verify_case_set(r, VERIFY_CASE_SKIPPED,
                    "the device (cc %d) does not run %s with %zu bytes of "
                    "shared memory",
                    g.dev.cc, tcmma_arm_marker(p->arm), p->shared_bytes);
    return;
  }
  tcmma_buf src = {0};
  tcmma_render_ctx rc = tcmma_render_ctx_make(NULL, TCMMA_DIALECT_CUDA, NULL, &src);
  g.out = verify_gemm_out_prec(c);
  if (tcmma_render_gemm_opts(&rc, p, &o, &err) != TCMMA_OK) {
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
