/* The GPU executor (DESIGN §7.3): the compile executor's kernel, compiled
 * for the device's own cc, run by one warp through the library's driver API
 * (tcmma/driver.h), and compared exactly with a plain C reference on
 * integer-valued inputs.
 *
 * Inputs are integers small enough that every product and partial sum is
 * exact in the accumulator and in d's storage: |a|, |b| <= vmax with vmax 3
 * for an f32 destination (K <= 192: sums below 2^11, exact even in an f16
 * accumulator), 2 for f16 (below 2048), 1 for bf16 (below 256); d starts in
 * [-2, 2]. Buffer elements the kernel must not read (padding of a leading
 * dimension) hold 64, so that a stray read shows in the result.
 *
 * The case runs on device 0. Without a driver or a device (the driver API's
 * TCMMA_UNAVAILABLE) every accepted case is SKIPPED with the driver's
 * message, never passed; a driver that loads but fails (TCMMA_CUDA: cuInit,
 * a rejected module with its JIT log, a launch) FAILS the case. Declined
 * cases still check their decline. */
#include <math.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "tcmma/compile.h"
#include "tcmma/driver.h"
#include "tools/verify.h"

enum { GPU_DEVICE = 0 }; /* the device every case runs on */

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
  tcmma_devmem dev[3];
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

/* Copies in, loads the CUBIN, launches one warp, copies d back and compares;
 * every driver error fails the case with the driver's message (a rejected
 * module: with its JIT log). */
static void run_on_device(const tcmma_case *c, const tcmma_plan *p, const tcmma_program *prog,
                          const tcmma_device_info *dev, tcmma_case_result *r) {
  buffers b;
  memset(&b, 0, sizeof b);
  double *ref = calloc((size_t)c->call.m * (size_t)c->call.n, sizeof *ref);
  tcmma_module *mod = NULL;
  tcmma_kernel fn;
  tcmma_error err;
  tcmma_error_clear(&err);
  tcmma_status st = TCMMA_OK;
  if (!ref || !fill(p, c->outer, &b, ref)) {
    case_result(r, TCMMA_CASE_FAILED, "could not lay out the kernel's buffers");
    goto done;
  }
  for (int o = 0; o < 3 && st == TCMMA_OK; o++) {
    st = tcmma_mem_alloc(dev->ordinal, b.bytes[o], &b.dev[o], &err);
    if (st == TCMMA_OK) st = tcmma_mem_to_device(&b.dev[o], 0, b.host[o], b.bytes[o], &err);
  }
  if (st == TCMMA_OK)
    st = tcmma_module_load(dev->ordinal, prog->cubin, prog->cubin_len, &mod, &err);
  if (st == TCMMA_OK) st = tcmma_module_kernel(mod, "tcmma_kernel", &fn, &err);
  if (st == TCMMA_OK) {
    void *args[3] = {&b.dev[0].ptr, &b.dev[1].ptr, &b.dev[2].ptr};
    st = tcmma_launch(&fn, (const unsigned[3]){1, 1, 1}, (const unsigned[3]){32, 1, 1}, 0, args,
                      &err);
  }
  if (st == TCMMA_OK) st = tcmma_mem_to_host(b.host[0], &b.dev[0], 0, b.bytes[0], &err);
  if (st != TCMMA_OK) {
    case_result(r, TCMMA_CASE_FAILED, "on device %d (cc %d, %s): %s", dev->ordinal, dev->cc,
                prog->target_arch, err.message);
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
  else case_result(r, TCMMA_CASE_PASSED, "bit-exact on device %d (cc %d), %s", dev->ordinal, dev->cc,
                   prog->target_arch);
done:
  for (int o = 0; o < 3; o++) {
    tcmma_mem_free(&b.dev[o]);
    free(b.host[o]);
  }
  tcmma_module_unload(mod);
  free(ref);
}

/* The device the cases run on into *dev; false with r final (SKIPPED
 * without a driver or a device, FAILED when the driver itself fails). */
static bool gpu_device(tcmma_device_info *dev, tcmma_case_result *r) {
  tcmma_error err;
  tcmma_error_clear(&err);
  int count = 0;
  tcmma_status st = tcmma_device_count(&count, &err);
  if (st == TCMMA_OK && count == 0)
    st = tcmma_fail(&err, TCMMA_UNAVAILABLE, "no CUDA device (the driver reports 0 devices)");
  if (st == TCMMA_OK) st = tcmma_device_get(GPU_DEVICE, dev, &err);
  if (st == TCMMA_UNAVAILABLE) case_result(r, TCMMA_CASE_SKIPPED, "%s", err.message);
  else if (st != TCMMA_OK) case_result(r, TCMMA_CASE_FAILED, "CUDA driver: %s", err.message);
  return st == TCMMA_OK;
}

void tcmma_exec_gpu(const tcmma_case *c, tcmma_case_result *r) {
  tcmma_plan plan;
  if (!tcmma_case_check_plan(c, &plan, r)) return;
  tcmma_device_info dev;
  if (!gpu_device(&dev, r)) return;
  if (!tcmma_arm_runs_on(plan.arm, dev.cc)) {
    case_result(r, TCMMA_CASE_SKIPPED, "the device (cc %d) does not run %s", dev.cc,
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
  /* A CUBIN runs only on its own major version: the native target for this
   * device's cc (the compile API clamps it to NVRTC's highest arch <= cc and
   * adds the a/f suffix a family arm needs). */
  tcmma_compile_opts opts = {.name = "verify-gpu.cu", .target = TCMMA_TARGET_NATIVE,
                             .cc = dev.cc, .sass = true};
  tcmma_program prog;
  st = tcmma_compile(tcmma_buf_str(&src), src.len, &opts, &prog, &err);
  tcmma_buf_free(&src);
  if (st == TCMMA_UNAVAILABLE)
    case_result(r, TCMMA_CASE_SKIPPED, "NVRTC unavailable: %s", err.message);
  else if (st != TCMMA_OK || !prog.cubin)
    case_result(r, TCMMA_CASE_FAILED, "compile for cc %d failed: %s", dev.cc, err.message);
  else run_on_device(c, &plan, &prog, &dev, r);
  tcmma_program_free(&prog);
}
