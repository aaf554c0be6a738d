/* The executors of the wgmma cases (tools/verify/wgmma.h, docs/verify.md):
 * sim (the host dialect on the block simulator, mma/sim/wgmma.c), compile
 * (NVRTC to a CUBIN at the (wgmma-*) marker's target, sm_90a, with no
 * warnings, and a PTX census: one wgmma.fence, one wgmma.mma_async per k
 * step, one commit and one wait, one fence.proxy.async) and gpu (the CUDA
 * kernel on device 0 when it runs the row: cc 9.0 alone). sim and gpu run
 * the same data against the same bit-exact reference. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "tcmma/compile.h"
#include "tcmma/driver.h"
#include "tools/verify/sim.h"
#include "tools/verify/wgmma.h"

static const unsigned grid1[3] = {1, 1, 1}, block1[3] = {VERIFY_WGMMA_THREADS, 1, 1};

static void passed(verify_case_result *r, const verify_wgmma_data *x, const char *where) {
  verify_case_set(r, VERIFY_CASE_PASSED, "bit-exact on integer-exact inputs (%d k steps, %d "
                  "accumulator registers a thread) %s", x->steps, x->regs, where);
}

static void exec_sim(const verify_wgmma_data *x, verify_case_result *r) {
  tcmma_buf text = {0};
  tcmma_error err = {0};
  if (verify_wgmma_kernel(x, TCMMA_DIALECT_HOST, NULL, &text, &err) != TCMMA_OK) {
    verify_case_set(r, VERIFY_CASE_FAILED, "render: %s", err.message);
    tcmma_buf_free(&text);
    return;
  }
  const char *name = x->c.name, *t = tcmma_buf_str(&text);
  sim_module *m;
  tcmma_status st = sim_module_build_texts(&name, &t, 1, &m, &err);
  tcmma_buf_free(&text);
  if (st != TCMMA_OK) {
    verify_case_set(r, st == TCMMA_UNAVAILABLE ? VERIFY_CASE_SKIPPED : VERIFY_CASE_FAILED,
                    "sim module: %s", err.message);
    return;
  }
  const char *why;
  sim_entry entry = sim_module_entry(m, 0, &why);
  void *args[5] = {x->d, x->ga, x->gb, x->c0, x->ra};
  tcmma_sim_config cfg = TCMMA_SIM_CONFIG_INIT({1, 1, 1}, {VERIFY_WGMMA_THREADS, 1, 1},
                                               (size_t)(x->b_at + x->b_bytes));
  char diff[256];
  if (!entry) verify_case_set(r, VERIFY_CASE_FAILED, "%s", why);
  else if (tcmma_sim_launch_grid(entry, args, &cfg, &err) != TCMMA_OK)
    verify_case_set(r, VERIFY_CASE_FAILED, "sim: %s", err.message);
  else if (!verify_wgmma_compare(x, diff, sizeof diff))
    verify_case_set(r, VERIFY_CASE_FAILED, "sim: %s", diff);
  else passed(r, x, "on the simulator");
  sim_module_free(m);
}

static int occurrences(const char *text, const char *word) {
  int n = 0;
  for (const char *p = text; (p = strstr(p, word)); p += strlen(word)) n++;
  return n;
}

/* The census of the tile product's PTX; false with why. */
static bool census(const verify_wgmma_data *x, const char *ptx, char *why, size_t cap) {
  char op[128];
  if (tcmma_wgmma_instruction(x->c.arm, x->c.n, x->c.a, x->c.b, op, sizeof op, NULL) != TCMMA_OK)
    return snprintf(why, cap, "no opcode for the case"), false;
  struct { const char *word; int want; } rows[] = {
      {op, x->steps}, {"wgmma.fence.sync.aligned", 1}, {"wgmma.commit_group.sync.aligned", 1},
      {"wgmma.wait_group.sync.aligned", 1}, {"fence.proxy.async", 1}, {".target sm_90a", 1}};
  for (size_t i = 0; i < sizeof rows / sizeof rows[0]; i++) {
    int got = occurrences(ptx, rows[i].word);
    if (got != rows[i].want)
      return snprintf(why, cap, "the PTX has %d '%s', expected %d", got, rows[i].word, rows[i].want),
             false;
  }
  return true;
}

/* The CUDA text compiled for cc (0: the marker's target) into *prog. */
static tcmma_status compile(const verify_wgmma_data *x, int cc, tcmma_program *prog,
                            tcmma_error *err) {
  tcmma_buf src = {0};
  tcmma_status st = verify_wgmma_kernel(x, TCMMA_DIALECT_CUDA, NULL, &src, err);
  if (st == TCMMA_OK) {
    tcmma_compile_opts o = TCMMA_COMPILE_OPTS_INIT(.name = "verify-wgmma.cu", .sass = true, .cc = cc,
                                                   .target = cc ? TCMMA_TARGET_NATIVE : TCMMA_TARGET_FLOOR);
    st = tcmma_compile(tcmma_buf_str(&src), src.len, &o, prog, err);
  }
  tcmma_buf_free(&src);
  return st;
}

static void exec_compile(const verify_wgmma_data *x, verify_case_result *r) {
  tcmma_program prog;
  tcmma_error err = {0};
  tcmma_status st = compile(x, 0, &prog, &err);
  char why[256];
  if (st != TCMMA_OK)
    verify_case_set(r, st == TCMMA_UNAVAILABLE ? VERIFY_CASE_SKIPPED : VERIFY_CASE_FAILED,
                    "compile: %s", err.message);
  else if (!prog.cubin) verify_case_set(r, VERIFY_CASE_FAILED, "NVRTC gave no CUBIN");
  else if (prog.log && strstr(prog.log, "warning"))
    verify_case_set(r, VERIFY_CASE_FAILED, "NVRTC warns: %s", prog.log);
  else if (!census(x, prog.ptx, why, sizeof why)) verify_case_set(r, VERIFY_CASE_FAILED, "%s", why);
  else verify_case_set(r, VERIFY_CASE_PASSED, "CUBIN for sm_90a, %d registers, census of %d "
                       "wgmma.mma_async", prog.registers, x->steps);
  if (st == TCMMA_OK || st == TCMMA_COMPILE || st == TCMMA_FLOOR) tcmma_program_free(&prog);
}

/* Copies x's buffers to device ordinal, launches fn, copies d back. */
static tcmma_status run_device(const verify_wgmma_data *x, int ordinal, const tcmma_kernel *fn,
                               tcmma_error *err) {
  const void *host[5] = {x->d, x->ga, x->gb, x->c0, x->ra};
  size_t bytes[5] = {((size_t)VERIFY_WGMMA_THREADS * (size_t)x->regs + 1) * 4, (size_t)x->a_bytes + 1,
                     (size_t)x->b_bytes, (size_t)VERIFY_WGMMA_THREADS * (size_t)x->regs * 4,
                     ((size_t)VERIFY_WGMMA_THREADS * (size_t)x->steps * 4 + 1) * 4};
  tcmma_devmem mem[5] = {{0}};
  tcmma_status st = TCMMA_OK;
  for (int i = 0; i < 5 && st == TCMMA_OK; i++) {
    st = tcmma_mem_alloc(ordinal, bytes[i], &mem[i], err);
    if (st == TCMMA_OK) st = tcmma_mem_to_device(&mem[i], 0, host[i], bytes[i], err);
  }
  void *args[5] = {&mem[0].ptr, &mem[1].ptr, &mem[2].ptr, &mem[3].ptr, &mem[4].ptr};
  if (st == TCMMA_OK)
    st = tcmma_launch(fn, grid1, block1, (unsigned)(x->b_at + x->b_bytes), args, err);
  if (st == TCMMA_OK) st = tcmma_mem_to_host(x->d, &mem[0], 0, bytes[0], err);
  for (int i = 0; i < 5; i++) tcmma_mem_free(&mem[i]);
  return st;
}

static void exec_gpu(const verify_wgmma_data *x, verify_case_result *r) {
  tcmma_error err = {0};
  tcmma_device_info dev;
  int count = 0;
  tcmma_status st = tcmma_device_count(&count, &err);
  if (st == TCMMA_OK && count == 0)
    st = tcmma_fail(&err, TCMMA_UNAVAILABLE, "no CUDA device (the driver reports 0 devices)");
  if (st == TCMMA_OK) st = tcmma_device_get(0, &dev, &err);
  if (st != TCMMA_OK) {
    verify_case_set(r, st == TCMMA_UNAVAILABLE ? VERIFY_CASE_SKIPPED : VERIFY_CASE_FAILED, "%s",
                    err.message);
    return;
  }
  if (!tcmma_wgmma_runs_on(x->c.arm, dev.cc)) { /* the device plan's rule */
    verify_case_set(r, VERIFY_CASE_SKIPPED, "the device (cc %d) does not run %s (sm_90a only)",
                    dev.cc, tcmma_wgmma_marker(x->c.arm));
    return;
  }
  tcmma_program prog;
  st = compile(x, dev.cc, &prog, &err);
  if (st != TCMMA_OK || !prog.cubin) {
    verify_case_set(r, st == TCMMA_UNAVAILABLE ? VERIFY_CASE_SKIPPED : VERIFY_CASE_FAILED,
                    "compile for cc %d: %s", dev.cc, st == TCMMA_OK ? "no CUBIN" : err.message);
    if (st == TCMMA_OK || st == TCMMA_COMPILE || st == TCMMA_FLOOR) tcmma_program_free(&prog);
    return;
  }
  tcmma_module *mod = NULL;
  tcmma_kernel fn;
  st = tcmma_module_load(dev.ordinal, prog.cubin, prog.cubin_len, &mod, &err);
  if (st == TCMMA_OK) st = tcmma_module_kernel(mod, "tcmma_kernel", &fn, &err);
  if (st == TCMMA_OK) st = tcmma_kernel_max_dynamic_shared(&fn, (unsigned)(x->b_at + x->b_bytes), &err);
  if (st == TCMMA_OK) st = run_device(x, dev.ordinal, &fn, &err);
  char diff[256], where[64];
  if (st != TCMMA_OK)
    verify_case_set(r, VERIFY_CASE_FAILED, "device %d (cc %d): %s", dev.ordinal, dev.cc, err.message);
  else if (!verify_wgmma_compare(x, diff, sizeof diff))
    verify_case_set(r, VERIFY_CASE_FAILED, "device %d (cc %d): %s", dev.ordinal, dev.cc, diff);
  else {
    snprintf(where, sizeof where, "on device %d (cc %d)", dev.ordinal, dev.cc);
    passed(r, x, where);
  }
  tcmma_module_unload(mod);
  tcmma_program_free(&prog);
}

void verify_wgmma_exec(verify_executor e, const verify_wgmma_case *c, verify_case_result *r) {
  verify_wgmma_data x;
  if (!verify_wgmma_data_init(&x, c, 0x5eed0000u + (unsigned)c->n)) {
    verify_case_set(r, VERIFY_CASE_FAILED, "no memory for the case's data");
    return;
  }
  if (e == VERIFY_EXEC_SIM) exec_sim(&x, r);
  else if (e == VERIFY_EXEC_COMPILE) exec_compile(&x, r);
  else exec_gpu(&x, r);
  verify_wgmma_data_free(&x);
}
