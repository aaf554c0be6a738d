/* The GPU executor (DESIGN §7.3): the compile executor's kernel, compiled
 * for the attached device, run by one warp through the CUDA driver API, and
 * compared exactly with a plain C reference on integer-valued inputs.
 *
 * Inputs are integers small enough that every product and partial sum is
 * exact in the accumulator and in d's storage: |a|, |b| <= vmax with vmax 3
 * for an f32 destination (K <= 192: sums below 2^11, exact even in an f16
 * accumulator), 2 for f16 (below 2048), 1 for bf16 (below 256); d starts in
 * [-2, 2]. Buffer elements the kernel must not read (padding of a leading
 * dimension) hold 64, so that a stray read shows in the result.
 *
 * The driver is loaded with dlopen (libcuda.so.1) on first use; without it,
 * or without a device, every accepted case is SKIPPED with the reason —
 * never passed. Declined cases still check their decline. */
#include <cuda.h>
#include <cudaTypedefs.h>
#include <dlfcn.h>
#include <math.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "tcmma/compile.h"
#include "tools/verify.h"

/* ---- the driver ---- */

static struct {
  char why[256];  /* "" when the driver and a device are up */
  int cc;
  CUcontext ctx;
  PFN_cuGetErrorString_v6000 error_string;
  PFN_cuModuleLoadData_v2000 module_load;
  PFN_cuModuleUnload_v2000 module_unload;
  PFN_cuModuleGetFunction_v2000 get_function;
  PFN_cuMemAlloc_v3020 alloc;
  PFN_cuMemFree_v3020 release;
  PFN_cuMemcpyHtoD_v3020 to_device;
  PFN_cuMemcpyDtoH_v3020 to_host;
  PFN_cuLaunchKernel_v4000 launch;
  PFN_cuCtxSynchronize_v2000 synchronize;
  PFN_cuCtxSetCurrent_v4000 set_current;
} drv;

static pthread_once_t drv_once = PTHREAD_ONCE_INIT;

static void *sym(void *lib, const char *name, bool *ok) {
  void *p = dlsym(lib, name);
  if (!p && *ok) {
    snprintf(drv.why, sizeof drv.why, "no CUDA driver: libcuda.so.1 lacks %s", name);
    *ok = false;
  }
  return p;
}

static void drv_load(void) {
  void *lib = dlopen("libcuda.so.1", RTLD_NOW | RTLD_LOCAL);
  if (!lib) {
    const char *e = dlerror();
    snprintf(drv.why, sizeof drv.why, "no CUDA driver (%s)", e ? e : "libcuda.so.1 not found");
    return;
  }
  bool ok = true;
  PFN_cuInit_v2000 init = (PFN_cuInit_v2000)sym(lib, "cuInit", &ok);
  PFN_cuDeviceGetCount_v2000 count = (PFN_cuDeviceGetCount_v2000)sym(lib, "cuDeviceGetCount", &ok);
  PFN_cuDeviceGet_v2000 get = (PFN_cuDeviceGet_v2000)sym(lib, "cuDeviceGet", &ok);
  PFN_cuDeviceGetAttribute_v2000 attr =
      (PFN_cuDeviceGetAttribute_v2000)sym(lib, "cuDeviceGetAttribute", &ok);
  PFN_cuDevicePrimaryCtxRetain_v7000 retain =
      (PFN_cuDevicePrimaryCtxRetain_v7000)sym(lib, "cuDevicePrimaryCtxRetain", &ok);
  drv.error_string = (PFN_cuGetErrorString_v6000)sym(lib, "cuGetErrorString", &ok);
  drv.module_load = (PFN_cuModuleLoadData_v2000)sym(lib, "cuModuleLoadData", &ok);
  drv.module_unload = (PFN_cuModuleUnload_v2000)sym(lib, "cuModuleUnload", &ok);
  drv.get_function = (PFN_cuModuleGetFunction_v2000)sym(lib, "cuModuleGetFunction", &ok);
  drv.alloc = (PFN_cuMemAlloc_v3020)sym(lib, "cuMemAlloc_v2", &ok);
  drv.release = (PFN_cuMemFree_v3020)sym(lib, "cuMemFree_v2", &ok);
  drv.to_device = (PFN_cuMemcpyHtoD_v3020)sym(lib, "cuMemcpyHtoD_v2", &ok);
  drv.to_host = (PFN_cuMemcpyDtoH_v3020)sym(lib, "cuMemcpyDtoH_v2", &ok);
  drv.launch = (PFN_cuLaunchKernel_v4000)sym(lib, "cuLaunchKernel", &ok);
  drv.synchronize = (PFN_cuCtxSynchronize_v2000)sym(lib, "cuCtxSynchronize", &ok);
  drv.set_current = (PFN_cuCtxSetCurrent_v4000)sym(lib, "cuCtxSetCurrent", &ok);
  if (!ok) return;
  int n = 0, major = 0, minor = 0;
  CUdevice dev;
  CUresult rc = init(0);
  if (rc == CUDA_SUCCESS) rc = count(&n);
  if (rc == CUDA_SUCCESS && n == 0) {
    snprintf(drv.why, sizeof drv.why, "the CUDA driver sees no device");
    return;
  }
  if (rc == CUDA_SUCCESS) rc = get(&dev, 0);
  if (rc == CUDA_SUCCESS) rc = attr(&major, CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MAJOR, dev);
  if (rc == CUDA_SUCCESS) rc = attr(&minor, CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MINOR, dev);
  if (rc == CUDA_SUCCESS) rc = retain(&drv.ctx, dev);
  if (rc != CUDA_SUCCESS) {
    const char *s = NULL;
    drv.error_string(rc, &s);
    snprintf(drv.why, sizeof drv.why, "CUDA driver start failed: %s", s ? s : "unknown error");
    return;
  }
  drv.cc = major * 10 + minor;
}

/* ---- storage formats (the reference's own: IEEE/OCP widths) ---- */

static const struct {
  tcmma_prec prec;
  int ebits, mbits;
} formats[] = {
    {TCMMA_PREC_F16, 5, 10}, {TCMMA_PREC_BF16, 8, 7},
    {TCMMA_PREC_E4M3, 4, 3}, {TCMMA_PREC_E5M2, 5, 2},
};

static bool format_of(tcmma_prec p, int *ebits, int *mbits) {
  for (size_t i = 0; i < sizeof formats / sizeof formats[0]; i++)
    if (formats[i].prec == p) return *ebits = formats[i].ebits, *mbits = formats[i].mbits, true;
  return false;
}

/* Stores the small integer v exactly in precision p at dst. */
static void encode(tcmma_prec p, double v, unsigned char *dst) {
  int ebits, mbits;
  if (p == TCMMA_PREC_F32) {
    float f = (float)v;
    memcpy(dst, &f, sizeof f);
    return;
  }
  if (p == TCMMA_PREC_F64) {
    memcpy(dst, &v, sizeof v);
    return;
  }
  uint32_t bits = 0;
  if (format_of(p, &ebits, &mbits) && v != 0) {
    int e;
    double m = frexp(fabs(v), &e); /* |v| = m * 2^e, m in [0.5, 1) */
    uint32_t bias = (1u << (ebits - 1)) - 1;
    bits = (v < 0 ? 1u : 0u) << (ebits + mbits) | (uint32_t)(e - 1 + (int)bias) << mbits |
           (uint32_t)((m * 2 - 1) * (1 << mbits));
  }
  int bytes = tcmma_prec_bytes(p);
  for (int i = 0; i < bytes; i++) dst[i] = (unsigned char)(bits >> (8 * i));
}

static double decode(tcmma_prec p, const unsigned char *src) {
  int ebits, mbits;
  if (p == TCMMA_PREC_F32) {
    float f;
    memcpy(&f, src, sizeof f);
    return f;
  }
  if (p == TCMMA_PREC_F64) {
    double d;
    memcpy(&d, src, sizeof d);
    return d;
  }
  if (!format_of(p, &ebits, &mbits)) return NAN;
  uint32_t bits = 0;
  for (int i = 0; i < tcmma_prec_bytes(p); i++) bits |= (uint32_t)src[i] << (8 * i);
  int bias = (1 << (ebits - 1)) - 1;
  uint32_t e = bits >> mbits & ((1u << ebits) - 1), f = bits & ((1u << mbits) - 1);
  double s = bits >> (ebits + mbits) & 1 ? -1 : 1;
  if (e == (1u << ebits) - 1 && p != TCMMA_PREC_E4M3) return NAN; /* inf or NaN */
  if (e == 0) return s * ldexp(f, 1 - bias - mbits);
  return s * ldexp(1.0 + ldexp(f, -mbits), (int)e - bias);
}

/* A deterministic small integer in [-vmax, vmax] for element (i, j) of an
 * operand; salt tells the operands apart. */
static int value(int salt, long i, long j, int vmax) {
  uint32_t h = (uint32_t)(i * 73856093L) ^ (uint32_t)(j * 19349663L) ^ (uint32_t)salt * 83492791u;
  h ^= h >> 13, h *= 0x5bd1e995u, h ^= h >> 15;
  return (int)(h % (uint32_t)(2 * vmax + 1)) - vmax;
}

static void case_result(tcmma_case_result *r, tcmma_case_outcome o, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));

static void case_result(tcmma_case_result *r, tcmma_case_outcome o, const char *fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  r->outcome = o;
  vsnprintf(r->reason, sizeof r->reason, fmt, ap);
  va_end(ap);
}

/* ---- one run ---- */

typedef struct {
  unsigned char *host[3]; /* d, a, b */
  size_t bytes[3];
  CUdeviceptr dev[3];
} buffers;

static const tcmma_operand ops[3] = {TCMMA_OPERAND_C, TCMMA_OPERAND_A, TCMMA_OPERAND_B};

static const tcmma_operand_desc *desc_of(const tcmma_call *c, int i) {
  return i == 0 ? &c->d : i == 1 ? &c->a : &c->b;
}

/* Fills the buffers per tcmma_kernel_operand_index and the reference
 * ref[i*n+j] = d0 + sum over the whole outer reduction of a*b. */
static bool fill(const tcmma_plan *p, int outer, buffers *b, double *ref) {
  const tcmma_call *c = &p->call;
  int vmax = c->d.prec == TCMMA_PREC_BF16 ? 1 : c->d.prec == TCMMA_PREC_F16 ? 2 : 3;
  for (int o = 0; o < 3; o++) {
    long elems = tcmma_kernel_operand_elems(p, outer, ops[o]);
    int eb = tcmma_prec_bytes(desc_of(c, o)->prec);
    if (elems <= 0) return false;
    b->bytes[o] = (size_t)elems * (size_t)eb;
    if (!(b->host[o] = malloc(b->bytes[o]))) return false;
    for (long e = 0; e < elems; e++) encode(desc_of(c, o)->prec, 64, b->host[o] + e * eb);
  }
  long m = c->m, n = c->n, k = c->k;
  for (long i = 0; i < m; i++)
    for (long j = 0; j < n; j++) {
      long at = tcmma_kernel_operand_index(p, TCMMA_OPERAND_C, 0, i, j);
      if (at < 0) return false;
      int v = value(1, i, j, 2);
      encode(c->d.prec, v, b->host[0] + at * tcmma_prec_bytes(c->d.prec));
      ref[i * n + j] = v;
    }
  for (int s = 0; s < outer; s++) {
    for (long i = 0; i < m; i++)
      for (long kk = 0; kk < k; kk++) {
        long at = tcmma_kernel_operand_index(p, TCMMA_OPERAND_A, s, i, kk);
        if (at < 0) return false;
        encode(c->a.prec, value(2, i, s * k + kk, vmax), b->host[1] + at * tcmma_prec_bytes(c->a.prec));
      }
    for (long kk = 0; kk < k; kk++)
      for (long j = 0; j < n; j++) {
        long at = tcmma_kernel_operand_index(p, TCMMA_OPERAND_B, s, kk, j);
        if (at < 0) return false;
        encode(c->b.prec, value(3, s * k + kk, j, vmax), b->host[2] + at * tcmma_prec_bytes(c->b.prec));
      }
    for (long i = 0; i < m; i++)
      for (long j = 0; j < n; j++)
        for (long kk = 0; kk < k; kk++)
          ref[i * n + j] += (double)value(2, i, s * k + kk, vmax) * value(3, s * k + kk, j, vmax);
  }
  return true;
}

static const char *cu_text(CUresult rc) {
  const char *s = NULL;
  drv.error_string(rc, &s);
  return s ? s : "unknown CUDA error";
}

static void run_on_device(const tcmma_case *c, const tcmma_plan *p, const tcmma_program *prog,
                          tcmma_case_result *r) {
  buffers b;
  memset(&b, 0, sizeof b);
  double *ref = calloc((size_t)c->call.m * (size_t)c->call.n, sizeof *ref);
  CUmodule mod = NULL;
  CUfunction fn;
  CUresult rc = drv.set_current(drv.ctx);
  if (!ref || !fill(p, c->outer, &b, ref)) {
    case_result(r, TCMMA_CASE_FAILED, "could not lay out the kernel's buffers");
    goto done;
  }
  if (rc == CUDA_SUCCESS) rc = drv.module_load(&mod, prog->cubin);
  if (rc == CUDA_SUCCESS) rc = drv.get_function(&fn, mod, "tcmma_kernel");
  for (int o = 0; o < 3 && rc == CUDA_SUCCESS; o++) {
    rc = drv.alloc(&b.dev[o], b.bytes[o]);
    if (rc == CUDA_SUCCESS) rc = drv.to_device(b.dev[o], b.host[o], b.bytes[o]);
  }
  if (rc == CUDA_SUCCESS) {
    void *args[3] = {&b.dev[0], &b.dev[1], &b.dev[2]};
    rc = drv.launch(fn, 1, 1, 1, 32, 1, 1, 0, NULL, args, NULL);
  }
  if (rc == CUDA_SUCCESS) rc = drv.synchronize();
  if (rc == CUDA_SUCCESS) rc = drv.to_host(b.host[0], b.dev[0], b.bytes[0]);
  if (rc != CUDA_SUCCESS) {
    case_result(r, TCMMA_CASE_FAILED, "CUDA: %s", cu_text(rc));
    goto done;
  }
  long bad = 0, fi = 0, fj = 0;
  double got0 = 0, want0 = 0;
  int eb = tcmma_prec_bytes(c->call.d.prec);
  for (long i = 0; i < c->call.m; i++)
    for (long j = 0; j < c->call.n; j++) {
      long at = tcmma_kernel_operand_index(p, TCMMA_OPERAND_C, 0, i, j);
      double got = decode(c->call.d.prec, b.host[0] + at * eb), want = ref[i * c->call.n + j];
      if (got != want && !bad++) fi = i, fj = j, got0 = got, want0 = want;
    }
  if (bad)
    case_result(r, TCMMA_CASE_FAILED, "%ld of %d d elements differ; first d[%ld][%ld] = %g, expected %g",
                bad, c->call.m * c->call.n, fi, fj, got0, want0);
  else case_result(r, TCMMA_CASE_PASSED, "bit-exact on cc %d", drv.cc);
done:
  for (int o = 0; o < 3; o++) {
    if (b.dev[o]) drv.release(b.dev[o]);
    free(b.host[o]);
  }
  if (mod) drv.module_unload(mod);
  free(ref);
}

void tcmma_exec_gpu(const tcmma_case *c, tcmma_case_result *r) {
  tcmma_plan plan;
  if (!tcmma_case_check_plan(c, &plan, r)) return;
  pthread_once(&drv_once, drv_load);
  if (drv.why[0]) {
    case_result(r, TCMMA_CASE_SKIPPED, "%s", drv.why);
    return;
  }
  if (!tcmma_arm_runs_on(plan.arm, drv.cc)) {
    case_result(r, TCMMA_CASE_SKIPPED, "the device (cc %d) does not run %s", drv.cc,
                tcmma_arm_marker(plan.arm));
    return;
  }
  tcmma_error err;
  tcmma_error_clear(&err);
  tcmma_buf src = {0};
  tcmma_status st = tcmma_render_kernel(&plan, TCMMA_DIALECT_CUDA, c->outer, &src, &err);
  if (st != TCMMA_OK || src.failed) {
    tcmma_buf_free(&src);
    case_result(r, TCMMA_CASE_FAILED, "render_kernel: %s", err.message);
    return;
  }
  /* a CUBIN runs only on its own major version: compile for this device */
  tcmma_compile_opts opts = {.name = "verify-gpu.cu", .target = TCMMA_TARGET_NATIVE,
                             .cc = drv.cc, .sass = true};
  tcmma_program prog;
  st = tcmma_compile(tcmma_buf_str(&src), src.len, &opts, &prog, &err);
  tcmma_buf_free(&src);
  if (st == TCMMA_UNAVAILABLE) case_result(r, TCMMA_CASE_SKIPPED, "NVRTC unavailable: %s", err.message);
  else if (st != TCMMA_OK || !prog.cubin)
    case_result(r, TCMMA_CASE_FAILED, "compile for cc %d failed: %s", drv.cc, err.message);
  else run_on_device(c, &plan, &prog, r);
  tcmma_program_free(&prog);
}
