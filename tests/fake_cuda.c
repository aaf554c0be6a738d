/* A stand-in libcuda for tests on machines without a GPU, built by
 * test_driver at run time. Devices come from FAKE_CUDA_CCS ("80,90" by
 * default: two devices, cc 8.0 and 9.0); FAKE_CUDA_INIT=<CUresult> makes
 * cuInit fail. Device memory is host memory. A module is its image's text;
 * a kernel exists when its name occurs in it. Kernel "add_one"(int *p, int n)
 * adds 1 to n ints; kernel "trap" fails at launch. An image containing
 * FAKE_JIT_ERROR, or any image while FAKE_CUDA_JIT_FAIL=1, is rejected with a
 * JIT log. FAKE_CUDA_KERNEL=noop|scribble makes any module hold
 * "tcmma_kernel"(d, a, b) and the tuner's "tcmma_tune_<n>"(d, a, b, ...),
 * which do nothing (noop) or overwrite the first byte of a (scribble). Calls that need a context fail
 * with CUDA_ERROR_INVALID_CONTEXT when none is current. cuTensorMapEncodeTiled
 * writes its arguments into the map as 16 words (fake_tmap_words below);
 * FAKE_CUDA_TMAP_FAIL=1 makes it return CUDA_ERROR_INVALID_VALUE. */
#include <cuda.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int initialized;
static CUcontext current;
static int primary[64];

static int ccs(int *out) {
  const char *s = getenv("FAKE_CUDA_CCS");
  if (!s) s = "80,90";
  int n = 0;
  for (char *end; *s && n < 64; s = *end ? end + 1 : end) {
    long v = strtol(s, &end, 10);
    if (end == s) break;
    out[n++] = (int)v;
  }
  return n;
}

CUresult cuGetErrorName(CUresult e, const char **s) {
  switch (e) {
  case CUDA_SUCCESS: *s = "CUDA_SUCCESS"; return CUDA_SUCCESS;
  case CUDA_ERROR_NO_DEVICE: *s = "CUDA_ERROR_NO_DEVICE"; return CUDA_SUCCESS;
  case CUDA_ERROR_NOT_INITIALIZED: *s = "CUDA_ERROR_NOT_INITIALIZED"; return CUDA_SUCCESS;
  case CUDA_ERROR_INVALID_PTX: *s = "CUDA_ERROR_INVALID_PTX"; return CUDA_SUCCESS;
  case CUDA_ERROR_NOT_FOUND: *s = "CUDA_ERROR_NOT_FOUND"; return CUDA_SUCCESS;
  case CUDA_ERROR_LAUNCH_FAILED: *s = "CUDA_ERROR_LAUNCH_FAILED"; return CUDA_SUCCESS;
  case CUDA_ERROR_INVALID_CONTEXT: *s = "CUDA_ERROR_INVALID_CONTEXT"; return CUDA_SUCCESS;
  case CUDA_ERROR_OUT_OF_MEMORY: *s = "CUDA_ERROR_OUT_OF_MEMORY"; return CUDA_SUCCESS;
  case CUDA_ERROR_INVALID_VALUE: *s = "CUDA_ERROR_INVALID_VALUE"; return CUDA_SUCCESS;
  default: *s = NULL; return CUDA_ERROR_INVALID_VALUE;
  }
}

CUresult cuGetErrorString(CUresult e, const char **s) {
  *s = e == CUDA_ERROR_NO_DEVICE ? "no CUDA-capable device is detected" : "fake error";
  return CUDA_SUCCESS;
}

CUresult cuInit(unsigned flags) {
  const char *fail = getenv("FAKE_CUDA_INIT");
  if (flags != 0) return CUDA_ERROR_INVALID_VALUE;
  if (fail && atoi(fail)) return (CUresult)atoi(fail);
  initialized = 1;
  return CUDA_SUCCESS;
}

CUresult cuDriverGetVersion(int *v) {
  *v = 13000;
  return CUDA_SUCCESS;
}

CUresult cuDeviceGetCount(int *count) {
  int c[64];
  if (!initialized) return CUDA_ERROR_NOT_INITIALIZED;
  *count = ccs(c);
  return CUDA_SUCCESS;
}

CUresult cuDeviceGet(CUdevice *dev, int ordinal) {
  int c[64];
  if (!initialized) return CUDA_ERROR_NOT_INITIALIZED;
  if (ordinal < 0 || ordinal >= ccs(c)) return CUDA_ERROR_INVALID_DEVICE;
  *dev = ordinal;
  return CUDA_SUCCESS;
}

CUresult cuDeviceGetName(char *name, int len, CUdevice dev) {
  int c[64];
  if (dev < 0 || dev >= ccs(c)) return CUDA_ERROR_INVALID_DEVICE;
  snprintf(name, (size_t)len, "Fake GPU %d (cc %d.%d)", dev, c[dev] / 10, c[dev] % 10);
  return CUDA_SUCCESS;
}

CUresult cuDeviceGetAttribute(int *v, CUdevice_attribute attr, CUdevice dev) {
  int c[64];
  if (dev < 0 || dev >= ccs(c)) return CUDA_ERROR_INVALID_DEVICE;
  if (attr == CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MAJOR) *v = c[dev] / 10;
  else if (attr == CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MINOR) *v = c[dev] % 10;
  else return CUDA_ERROR_INVALID_VALUE;
  return CUDA_SUCCESS;
}

CUresult cuDevicePrimaryCtxRetain(CUcontext *ctx, CUdevice dev) {
  primary[dev]++;
  *ctx = (CUcontext)(uintptr_t)(0x1000 + dev);
  return CUDA_SUCCESS;
}

CUresult cuDevicePrimaryCtxRelease(CUdevice dev) {
  if (primary[dev] <= 0) return CUDA_ERROR_INVALID_CONTEXT;
  primary[dev]--;
  return CUDA_SUCCESS;
}

CUresult cuCtxSetCurrent(CUcontext ctx) {
  current = ctx;
  return CUDA_SUCCESS;
}

CUresult cuCtxSynchronize(void) { return current ? CUDA_SUCCESS : CUDA_ERROR_INVALID_CONTEXT; }

typedef struct {
  char *text;
} fake_module;

CUresult cuModuleLoadDataEx(CUmodule *mod, const void *image, unsigned n, CUjit_option *opts,
                            void **vals) {
  if (!current) return CUDA_ERROR_INVALID_CONTEXT;
  const char *text = image;
  if (memcmp(image, "\x7f" "ELF", 4) == 0) text += 4;
  const char *jit_fail = getenv("FAKE_CUDA_JIT_FAIL");
  if (strstr(text, "FAKE_JIT_ERROR") || (jit_fail && strcmp(jit_fail, "1") == 0)) {
    char *log = NULL;
    size_t size = 0;
    for (unsigned i = 0; i < n; i++) {
      if (opts[i] == CU_JIT_ERROR_LOG_BUFFER) log = vals[i];
      if (opts[i] == CU_JIT_ERROR_LOG_BUFFER_SIZE_BYTES) size = (size_t)(uintptr_t)vals[i];
    }
    if (log && size) snprintf(log, size, "ptxas fatal   : fake JIT rejection");
    return CUDA_ERROR_INVALID_PTX;
  }
  fake_module *m = malloc(sizeof *m);
  m->text = strdup(text);
  *mod = (CUmodule)m;
  return CUDA_SUCCESS;
}

CUresult cuModuleUnload(CUmodule mod) {
  fake_module *m = (fake_module *)mod;
  free(m->text);
  free(m);
  return CUDA_SUCCESS;
}

CUresult cuModuleGetFunction(CUfunction *fn, CUmodule mod, const char *name) {
  fake_module *m = (fake_module *)mod;
  if (!current) return CUDA_ERROR_INVALID_CONTEXT;
  if (strcmp(name, "add_one") == 0 && strstr(m->text, name)) *fn = (CUfunction)(uintptr_t)1;
  else if (strcmp(name, "trap") == 0 && strstr(m->text, name)) *fn = (CUfunction)(uintptr_t)2;
  else if ((strcmp(name, "tcmma_kernel") == 0 || strncmp(name, "tcmma_tune_", 11) == 0) &&
           getenv("FAKE_CUDA_KERNEL"))
    *fn = (CUfunction)(uintptr_t)3;
  else return CUDA_ERROR_NOT_FOUND;
  return CUDA_SUCCESS;
}

CUresult cuLaunchKernel(CUfunction f, unsigned gx, unsigned gy, unsigned gz, unsigned bx,
                        unsigned by, unsigned bz, unsigned shared, CUstream stream, void **params,
                        void **extra) {
  (void)gx, (void)gy, (void)gz, (void)bx, (void)by, (void)bz, (void)shared, (void)stream, (void)extra;
  if (!current) return CUDA_ERROR_INVALID_CONTEXT;
  if ((uintptr_t)f == 2) return CUDA_ERROR_LAUNCH_FAILED;
  if ((uintptr_t)f == 3) {
    const char *mode = getenv("FAKE_CUDA_KERNEL");
    unsigned char *a = (unsigned char *)(uintptr_t)*(CUdeviceptr *)params[1];
    if (mode && strcmp(mode, "scribble") == 0) a[0] ^= 0x01;
    return CUDA_SUCCESS;
  }
  int *p = (int *)(uintptr_t)*(CUdeviceptr *)params[0];
  int n = *(int *)params[1];
  for (int i = 0; i < n; i++) p[i] += 1;
  return CUDA_SUCCESS;
}

CUresult cuMemAlloc(CUdeviceptr *p, size_t bytes) {
  if (!current) return CUDA_ERROR_INVALID_CONTEXT;
  if (bytes > ((size_t)1 << 30)) return CUDA_ERROR_OUT_OF_MEMORY;
  *p = (CUdeviceptr)(uintptr_t)calloc(1, bytes);
  return *p ? CUDA_SUCCESS : CUDA_ERROR_OUT_OF_MEMORY;
}

CUresult cuMemFree(CUdeviceptr p) {
  free((void *)(uintptr_t)p);
  return CUDA_SUCCESS;
}

CUresult cuMemcpyHtoD(CUdeviceptr dst, const void *src, size_t n) {
  if (!current) return CUDA_ERROR_INVALID_CONTEXT;
  memcpy((void *)(uintptr_t)dst, src, n);
  return CUDA_SUCCESS;
}

CUresult cuMemcpyDtoH(void *dst, CUdeviceptr src, size_t n) {
  if (!current) return CUDA_ERROR_INVALID_CONTEXT;
  memcpy(dst, (const void *)(uintptr_t)src, n);
  return CUDA_SUCCESS;
}

/* Launch attributes and events: accepted; an event pair reads 1 ms. */
CUresult cuFuncSetAttribute(CUfunction f, CUfunction_attribute a, int v) {
  (void)f, (void)a;
  return current ? (v > 232448 ? CUDA_ERROR_INVALID_VALUE : CUDA_SUCCESS) : CUDA_ERROR_INVALID_CONTEXT;
}
CUresult cuEventCreate(CUevent *e, unsigned flags) {
  (void)flags;
  static int events;
  *e = (CUevent)(uintptr_t)++events;
  return current ? CUDA_SUCCESS : CUDA_ERROR_INVALID_CONTEXT;
}
CUresult cuEventRecord(CUevent e, CUstream s) { (void)e, (void)s; return CUDA_SUCCESS; }
CUresult cuEventSynchronize(CUevent e) { (void)e; return CUDA_SUCCESS; }
#undef cuEventElapsedTime /* cuda.h names the _v2 entry; the driver API loads this one */
CUresult cuEventElapsedTime(float *ms, CUevent a, CUevent b) {
  (void)a, (void)b;
  *ms = 1.0f;
  return CUDA_SUCCESS;
}
CUresult cuEventDestroy_v2(CUevent e) { (void)e; return CUDA_SUCCESS; }

/* The map as words: type, rank, address, dims[5], strides[4] (the rank - 1
 * given), box and element strides 12 bits each, the four options a byte
 * each, then the number of calls so far. */
CUresult cuTensorMapEncodeTiled(CUtensorMap *map, CUtensorMapDataType type, cuuint32_t rank,
                                void *address, const cuuint64_t *dims, const cuuint64_t *strides,
                                const cuuint32_t *box, const cuuint32_t *estrides,
                                CUtensorMapInterleave il, CUtensorMapSwizzle sw,
                                CUtensorMapL2promotion l2, CUtensorMapFloatOOBfill oob) {
  static unsigned long long calls;
  const char *fail = getenv("FAKE_CUDA_TMAP_FAIL");
  if ((fail && strcmp(fail, "1") == 0) || rank < 1 || rank > 5) return CUDA_ERROR_INVALID_VALUE;
  unsigned long long w[16] = {0};
  w[0] = (unsigned long long)type, w[1] = rank, w[2] = (unsigned long long)(uintptr_t)address;
  for (unsigned i = 0; i < rank; i++) {
    w[3 + i] = dims[i];
    if (i + 1 < rank) w[8 + i] = strides[i];
    w[12] |= (unsigned long long)box[i] << (12 * i);
    w[13] |= (unsigned long long)estrides[i] << (12 * i);
  }
  w[14] = (unsigned long long)il | (unsigned long long)sw << 8 | (unsigned long long)l2 << 16 |
          (unsigned long long)oob << 24;
  w[15] = ++calls;
  memcpy(map, w, sizeof w);
  return CUDA_SUCCESS;
}
