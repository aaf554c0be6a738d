/* The GPU executor (docs/design.md §12.4): the compile executor's kernel, compiled
 * for the device's own cc, run by one warp through the library's driver API
 * (tcmma/driver.h) on the very buffers the sim executor uses
 * (tools/verify/data.c: poisoned padding, canaries, the integer pass
 * compared bit for bit and the real pass within the stated bound). Each
 * buffer goes to the device whole, canary included, and comes back whole,
 * so writes past it, into a or b, or outside d's tile show.
 *
 * The case runs on device 0. Without a driver or a device (the driver API's
 * TCMMA_UNAVAILABLE) every accepted case is SKIPPED with the driver's
 * message, never passed; a driver that loads but fails (TCMMA_CUDA: cuInit,
 * a rejected module with its JIT log, a launch) FAILS the case. Declined
 * cases still check their decline. */
#include <stdio.h>
#include "tcmma/compile.h"
#include "tcmma/driver.h"
#include "tools/verify/data.h"

enum { GPU_DEVICE = 0 }; /* the device every case runs on */

/* ---- one run ---- */

typedef struct {
  const tcmma_device_info *dev;
  const tcmma_program *prog;
  tcmma_kernel fn;
  tcmma_devmem mem[VERIFY_CASE_BUFS]; /* d, a, b[, sa, sb]; allocated on the first pass */
} gpu_ctx;

/* Copies the buffers in, launches one warp, copies them back; every driver
 * error fails the case with the driver's message. */
static bool gpu_runner(verify_case_data *x, const char *pass, void *ctx, verify_case_result *r) {
  gpu_ctx *g = ctx;
  tcmma_error err;
  tcmma_error_clear(&err);
  tcmma_status st = TCMMA_OK;
  for (int o = 0; o < x->nbuf && st == TCMMA_OK; o++) {
    if (!g->mem[o].ptr) st = tcmma_mem_alloc(g->dev->ordinal, x->buf[o].total, &g->mem[o], &err);
    if (st == TCMMA_OK)
      st = tcmma_mem_to_device(&g->mem[o], 0, x->buf[o].mem, x->buf[o].total, &err);
  }
  if (st == TCMMA_OK) {
    void *args[VERIFY_CASE_BUFS];
    for (int o = 0; o < x->nbuf; o++) args[o] = &g->mem[o].ptr;
    st = tcmma_launch(&g->fn, (const unsigned[3]){1, 1, 1}, (const unsigned[3]){TCMMA_WARP_SIZE, 1, 1}, 0, args,
                      &err);
  }
  for (int o = 0; o < x->nbuf && st == TCMMA_OK; o++)
    st = tcmma_mem_to_host(x->buf[o].mem, &g->mem[o], 0, x->buf[o].total, &err);
  if (st == TCMMA_OK) return true;
  return verify_case_set(r, VERIFY_CASE_FAILED, "%s on device %d (cc %d, %s): %s", pass,
                         g->dev->ordinal, g->dev->cc, g->prog->target_arch, err.message);
}

/* Loads the CUBIN, finds the kernel and runs both passes (a rejected module
 * fails the case with its JIT log). */
static void run_on_device(const verify_case *c, const tcmma_plan *p, const tcmma_program *prog,
                          const tcmma_device_info *dev, verify_case_result *r) {
  gpu_ctx g = {.dev = dev, .prog = prog};
  tcmma_module *mod = NULL;
  tcmma_error err;
  tcmma_error_clear(&err);
  tcmma_status st = tcmma_module_load(dev->ordinal, prog->cubin, prog->cubin_len, &mod, &err);
  if (st == TCMMA_OK) st = tcmma_module_kernel(mod, "tcmma_kernel", &g.fn, &err);
  if (st != TCMMA_OK)
    verify_case_set(r, VERIFY_CASE_FAILED, "on device %d (cc %d, %s): %s", dev->ordinal, dev->cc,
                    prog->target_arch, err.message);
  else if (verify_case_data_run(c, p, gpu_runner, &g, r)) {
    char passed[sizeof r->reason];
    snprintf(passed, sizeof passed, "%s", r->reason);
    verify_case_set(r, VERIFY_CASE_PASSED, "%.300s on device %d (cc %d), %s", passed, dev->ordinal,
                    dev->cc, prog->target_arch);
  }
  for (int o = 0; o < VERIFY_CASE_BUFS; o++) tcmma_mem_free(&g.mem[o]);
  tcmma_module_unload(mod);
}

/* The device the cases run on into *dev; false with r final (SKIPPED
 * without a driver or a device, FAILED when the driver itself fails). */
static bool gpu_device(tcmma_device_info *dev, verify_case_result *r) {
  tcmma_error err;
  tcmma_error_clear(&err);
  int count = 0;
  tcmma_status st = tcmma_device_count(&count, &err);
  if (st == TCMMA_OK && count == 0)
    st = tcmma_fail(&err, TCMMA_UNAVAILABLE, "no CUDA device (the driver reports 0 devices)");
  if (st == TCMMA_OK) st = tcmma_device_get(GPU_DEVICE, dev, &err);
  if (st == TCMMA_UNAVAILABLE)
    verify_case_set(r, VERIFY_CASE_SKIPPED, "%s", err.message);
  else if (st != TCMMA_OK)
    verify_case_set(r, VERIFY_CASE_FAILED, "CUDA driver: %s", err.message);
  return st == TCMMA_OK;
}

void verify_exec_gpu(const verify_case *c, verify_case_result *r) {
  tcmma_plan plan;
  if (!verify_case_check_plan(c, &plan, r)) return;
  tcmma_device_info dev;
  if (!gpu_device(&dev, r)) return;
  if (!tcmma_arm_runs_on(plan.arm, dev.cc)) {
    const tcmma_arm_info *info = tcmma_arm_get(plan.arm);
    if (info->family) /* e.g. mma-mxfp8: sm_120/121 only, not a later major */
      verify_case_set(r, VERIFY_CASE_SKIPPED,
                      "the device (cc %d) does not run %s: a family arm "
                      "runs only on %d.x devices (floor %d)",
                      dev.cc, info->marker, info->floor / 10, info->floor);
    else
      verify_case_set(r, VERIFY_CASE_SKIPPED, "the device (cc %d) does not run %s", dev.cc,
                      info->marker);
    return;
  }
  tcmma_error err;
  tcmma_error_clear(&err);
  tcmma_buf src = {0};
  tcmma_kernel_opts kopts = verify_case_kernel_opts(c);
  tcmma_render_ctx rc = tcmma_render_ctx_make(&plan, TCMMA_DIALECT_CUDA, NULL, &src);
  tcmma_status st = tcmma_render_kernel(&rc, &kopts, &err);
  if (st != TCMMA_OK || src.failed) {
    tcmma_buf_free(&src);
    verify_case_set(r, VERIFY_CASE_FAILED, "render_kernel: %s", err.message);
    return;
  }
  /* A CUBIN runs only on its own major version: the native target for this
   * device's cc (the compile API clamps it to NVRTC's highest arch <= cc and
   * adds the a/f suffix a family arm needs). */
  tcmma_compile_opts opts = TCMMA_COMPILE_OPTS_INIT(.name = "verify-gpu.cu",
                                                    .target = TCMMA_TARGET_NATIVE, .cc = dev.cc,
                                                    .sass = true);
  tcmma_program prog;
  st = tcmma_compile(tcmma_buf_str(&src), src.len, &opts, &prog, &err);
  tcmma_buf_free(&src);
  if (st == TCMMA_UNAVAILABLE)
    verify_case_set(r, VERIFY_CASE_SKIPPED, "NVRTC unavailable: %s", err.message);
  else if (st != TCMMA_OK || !prog.cubin)
    verify_case_set(r, VERIFY_CASE_FAILED, "compile for cc %d failed: %s", dev.cc, err.message);
  else run_on_device(c, &plan, &prog, &dev, r);
  tcmma_program_free(&prog);
}
