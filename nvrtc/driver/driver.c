/* The CUDA driver API through dlopen: the symbols are looked up by their
 * exported names (the _v2 ones where cuda.h maps a name to _v2) and typed
 * with cudaTypedefs.h, so nothing links against libcuda and a machine
 * without a driver gets TCMMA_UNAVAILABLE from every call. */
#include <cuda.h>
#include <cudaTypedefs.h>
#include <dlfcn.h>
#include <pthread.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include "tcmma/driver.h"
#include "tables/file.h"
#include "nvrtc/internal.h"

/* field, exported symbol, cudaTypedefs.h type */
#define DRIVER_FNS(X)                                                            \
  X(init, "cuInit", PFN_cuInit_v2000)                                            \
  X(error_name, "cuGetErrorName", PFN_cuGetErrorName_v6000)                      \
  X(error_string, "cuGetErrorString", PFN_cuGetErrorString_v6000)                \
  X(driver_version, "cuDriverGetVersion", PFN_cuDriverGetVersion_v2020)          \
  X(device_get, "cuDeviceGet", PFN_cuDeviceGet_v2000)                            \
  X(device_count, "cuDeviceGetCount", PFN_cuDeviceGetCount_v2000)                \
  X(device_name, "cuDeviceGetName", PFN_cuDeviceGetName_v2000)                   \
  X(device_attr, "cuDeviceGetAttribute", PFN_cuDeviceGetAttribute_v2000)         \
  X(ctx_retain, "cuDevicePrimaryCtxRetain", PFN_cuDevicePrimaryCtxRetain_v7000)  \
  X(ctx_release, "cuDevicePrimaryCtxRelease_v2", PFN_cuDevicePrimaryCtxRelease_v11000) \
  X(ctx_set, "cuCtxSetCurrent", PFN_cuCtxSetCurrent_v4000)                       \
  X(ctx_sync, "cuCtxSynchronize", PFN_cuCtxSynchronize_v2000)                    \
  X(module_load, "cuModuleLoadDataEx", PFN_cuModuleLoadDataEx_v2010)             \
  X(module_unload, "cuModuleUnload", PFN_cuModuleUnload_v2000)                   \
  X(module_function, "cuModuleGetFunction", PFN_cuModuleGetFunction_v2000)       \
  X(launch, "cuLaunchKernel", PFN_cuLaunchKernel_v4000)                          \
  X(mem_alloc, "cuMemAlloc_v2", PFN_cuMemAlloc_v3020)                            \
  X(mem_free, "cuMemFree_v2", PFN_cuMemFree_v3020)                               \
  X(htod, "cuMemcpyHtoD_v2", PFN_cuMemcpyHtoD_v3020)                             \
  X(dtoh, "cuMemcpyDtoH_v2", PFN_cuMemcpyDtoH_v3020)                             \
  X(func_attr, "cuFuncSetAttribute", PFN_cuFuncSetAttribute_v9000)               \
  X(event_create, "cuEventCreate", PFN_cuEventCreate_v2000)                      \
  X(event_record, "cuEventRecord", PFN_cuEventRecord_v2000)                      \
  X(event_sync, "cuEventSynchronize", PFN_cuEventSynchronize_v2000)              \
  X(event_elapsed, "cuEventElapsedTime", PFN_cuEventElapsedTime_v2000)           \
  X(event_destroy, "cuEventDestroy_v2", PFN_cuEventDestroy_v4000)

enum { MAX_DEVICES = 64, JIT_LOG = 8192 };

static pthread_mutex_t drv_lock = PTHREAD_MUTEX_INITIALIZER;
static struct {
  bool tried;
  tcmma_error failure;   /* why loading failed, when it did */
  void *lib;
#define X(field, sym, type) type field;
  DRIVER_FNS(X)
#undef X
  CUcontext ctx[MAX_DEVICES];
} drv;

struct tcmma_module {
  int device;
  CUmodule mod;
};

/* "cuInit: CUDA_ERROR_NO_DEVICE (no CUDA-capable device is detected)" */
static tcmma_status cuda_fail(tcmma_error *err, const char *call, CUresult r) {
  const char *name = NULL, *text = NULL;
  if (drv.error_name) drv.error_name(r, &name);
  if (drv.error_string) drv.error_string(r, &text);
  return tcmma_fail(err, TCMMA_CUDA, "%s: %s (%s)", call, name ? name : "unknown CUresult",
                    text ? text : "no description");
}

static tcmma_status load_locked(tcmma_error *err) {
  if (drv.tried) {
    if (drv.failure.status == TCMMA_OK) return TCMMA_OK;
    if (err) *err = drv.failure;
    return drv.failure.status;
  }
  drv.tried = true;
  tcmma_error_clear(&drv.failure);
  const char *path = getenv("TCMMA_LIBCUDA");
  if (!path || !*path) path = "libcuda.so.1";
  char why_not[512];
  /* a path (not the soname) must be a regular file: dlopen of a FIFO blocks */
  struct stat st; /* (a path that names nothing: dlopen's own reason) */
  if (strchr(path, '/') && stat(path, &st) == 0 &&
      !tcmma__table_regular_file(path, why_not, sizeof why_not)) {
    tcmma_fail(&drv.failure, TCMMA_UNAVAILABLE, "no CUDA driver (TCMMA_LIBCUDA: %s)", why_not);
  } else if (!(drv.lib = dlopen(path, RTLD_NOW | RTLD_LOCAL))) {
    const char *why = dlerror();
    tcmma_fail(&drv.failure, TCMMA_UNAVAILABLE, "no CUDA driver (%s could not be loaded: %s)",
               path, why ? why : "unknown reason");
  }
#define X(field, sym, type)                                                                \
  if (drv.lib && drv.failure.status == TCMMA_OK) {                                         \
    *(void **)&drv.field = dlsym(drv.lib, sym);                                            \
    if (!drv.field)                                                                        \
      tcmma_fail(&drv.failure, TCMMA_UNAVAILABLE,                                          \
                 "no CUDA driver (%s has no %s: not a CUDA driver, or one too old)", path, sym); \
  }
  DRIVER_FNS(X)
#undef X
  if (drv.failure.status == TCMMA_OK) {
    CUresult r = drv.init(0);
    if (r == CUDA_ERROR_NO_DEVICE) /* a driver but no GPU: the same as none for callers */
      tcmma_fail(&drv.failure, TCMMA_UNAVAILABLE,
                 "no CUDA device (cuInit: CUDA_ERROR_NO_DEVICE from %s)", path);
    else if (r != CUDA_SUCCESS)
      cuda_fail(&drv.failure, "cuInit", r);
  }
  if (drv.failure.status != TCMMA_OK) {
    if (err) *err = drv.failure;
    return drv.failure.status;
  }
  return TCMMA_OK;
}

tcmma_status tcmma_driver_load(tcmma_error *err) {
  pthread_mutex_lock(&drv_lock);
  tcmma_status s = load_locked(err);
  pthread_mutex_unlock(&drv_lock);
  return s;
}

void tcmma_driver_unload(void) {
  pthread_mutex_lock(&drv_lock);
  if (drv.lib) {
    for (int i = 0; i < MAX_DEVICES; i++)
      if (drv.ctx[i] && drv.ctx_release) {
        CUdevice dev;
        if (drv.device_get(&dev, i) == CUDA_SUCCESS) drv.ctx_release(dev);
      }
    dlclose(drv.lib);
  }
  memset(&drv, 0, sizeof drv);
  pthread_mutex_unlock(&drv_lock);
}

void *tcmma__nvrtc_driver_symbol(const char *sym, tcmma_error *err) {
  if (tcmma_driver_load(err) != TCMMA_OK) return NULL;
  pthread_mutex_lock(&drv_lock);
  void *fn = drv.lib ? dlsym(drv.lib, sym) : NULL;
  pthread_mutex_unlock(&drv_lock);
  if (!fn)
    tcmma_fail(err, TCMMA_UNAVAILABLE, "the CUDA driver has no %s (a driver before CUDA 12.0?)",
               sym);
  return fn;
}

tcmma_status tcmma_driver_version(int *version, tcmma_error *err) {
  if (!version) return tcmma_fail(err, TCMMA_INVALID, "tcmma_driver_version: version is NULL");
  tcmma_status s = tcmma_driver_load(err);
  if (s != TCMMA_OK) return s;
  CUresult r = drv.driver_version(version);
  return r == CUDA_SUCCESS ? TCMMA_OK : cuda_fail(err, "cuDriverGetVersion", r);
}

tcmma_status tcmma_device_count(int *count, tcmma_error *err) {
  if (!count) return tcmma_fail(err, TCMMA_INVALID, "tcmma_device_count: count is NULL");
  *count = 0;
  tcmma_status s = tcmma_driver_load(err);
  if (s != TCMMA_OK) return s;
  CUresult r = drv.device_count(count);
  if (r != CUDA_SUCCESS) return *count = 0, cuda_fail(err, "cuDeviceGetCount", r);
  return TCMMA_OK;
}

/* The CUdevice of ordinal, checked against the count. */
static tcmma_status device_of(int ordinal, CUdevice *dev, tcmma_error *err) {
  int count;
  tcmma_status s = tcmma_device_count(&count, err);
  if (s != TCMMA_OK) return s;
  if (ordinal < 0 || ordinal >= count)
    return tcmma_fail(err, TCMMA_INVALID, "device %d: expected an ordinal from 0 to %d", ordinal,
                      count - 1);
  CUresult r = drv.device_get(dev, ordinal);
  return r == CUDA_SUCCESS ? TCMMA_OK : cuda_fail(err, "cuDeviceGet", r);
}

tcmma_status tcmma_device_get(int ordinal, tcmma_device_info *out, tcmma_error *err) {
  if (!out) return tcmma_fail(err, TCMMA_INVALID, "tcmma_device_get: out is NULL");
  memset(out, 0, sizeof *out);
  CUdevice dev;
  tcmma_status s = device_of(ordinal, &dev, err);
  if (s != TCMMA_OK) return s;
  int major = 0, minor = 0;
  CUresult r = drv.device_name(out->name, (int)sizeof out->name, dev);
  if (r != CUDA_SUCCESS) return cuda_fail(err, "cuDeviceGetName", r);
  out->name[sizeof out->name - 1] = '\0';
  r = drv.device_attr(&major, CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MAJOR, dev);
  if (r == CUDA_SUCCESS) r = drv.device_attr(&minor, CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MINOR, dev);
  if (r != CUDA_SUCCESS) return cuda_fail(err, "cuDeviceGetAttribute(compute capability)", r);
  if (major <= 0 || major > 99 || minor < 0 || minor > 9)
    return tcmma_fail(err, TCMMA_CUDA, "device %d reports compute capability %d.%d", ordinal,
                      major, minor);
  out->ordinal = ordinal;
  out->cc = major * 10 + minor;
  return TCMMA_OK;
}

tcmma_status tcmma_device_lowest_cc(int *cc, tcmma_error *err) {
  if (!cc) return tcmma_fail(err, TCMMA_INVALID, "tcmma_device_lowest_cc: cc is NULL");
  *cc = 0;
  int count;
  tcmma_status s = tcmma_device_count(&count, err);
  if (s != TCMMA_OK) return s;
  if (count == 0)
    return tcmma_fail(err, TCMMA_UNAVAILABLE, "no CUDA device (the driver reports 0 devices)");
  int lowest = 0;
  for (int i = 0; i < count; i++) {
    tcmma_device_info d;
    s = tcmma_device_get(i, &d, err);
    if (s != TCMMA_OK) return s;
    if (lowest == 0 || d.cc < lowest) lowest = d.cc;
  }
  *cc = lowest;
  return TCMMA_OK;
}

/* Makes device's primary context current on this thread, retaining it once. */
static tcmma_status use_device(int ordinal, tcmma_error *err) {
  CUdevice dev;
  tcmma_status s = device_of(ordinal, &dev, err);
  if (s != TCMMA_OK) return s;
  if (ordinal >= MAX_DEVICES)
    return tcmma_fail(err, TCMMA_INVALID, "device %d: tcmma handles devices 0 to %d", ordinal,
                      MAX_DEVICES - 1);
  pthread_mutex_lock(&drv_lock);
  CUresult r = CUDA_SUCCESS;
  if (!drv.ctx[ordinal]) r = drv.ctx_retain(&drv.ctx[ordinal], dev);
  CUcontext ctx = drv.ctx[ordinal];
  pthread_mutex_unlock(&drv_lock);
  if (r != CUDA_SUCCESS) return cuda_fail(err, "cuDevicePrimaryCtxRetain", r);
  r = drv.ctx_set(ctx);
  return r == CUDA_SUCCESS ? TCMMA_OK : cuda_fail(err, "cuCtxSetCurrent", r);
}

static bool is_binary_image(const unsigned char *p, size_t len) {
  static const unsigned char elf[4] = {0x7f, 'E', 'L', 'F'}, fatbin[4] = {0x50, 0xed, 0x55, 0xba};
  return len >= 4 && (memcmp(p, elf, 4) == 0 || memcmp(p, fatbin, 4) == 0);
}

tcmma_status tcmma_module_load(int device, const void *image, size_t len, tcmma_module **out,
                               tcmma_error *err) {
  if (!out) return tcmma_fail(err, TCMMA_INVALID, "tcmma_module_load: out is NULL");
  *out = NULL;
  if (!image || len == 0)
    return tcmma_fail(err, TCMMA_INVALID, "tcmma_module_load: empty image: expected PTX or a CUBIN");
  tcmma_status s = use_device(device, err);
  if (s != TCMMA_OK) return s;
  /* the driver reads PTX up to its NUL: give it a terminated copy */
  bool binary = is_binary_image(image, len);
  char *copy = NULL;
  if (!binary) {
    if (!(copy = malloc(len + 1))) return tcmma_fail(err, TCMMA_NO_MEMORY, "out of memory copying %zu bytes of PTX", len);
    memcpy(copy, image, len);
    copy[len] = '\0';
  }
  tcmma_module *m = calloc(1, sizeof *m);
  char *log = calloc(1, JIT_LOG);
  if (!m || !log) {
    free(copy), free(m), free(log);
    return tcmma_fail(err, TCMMA_NO_MEMORY, "out of memory loading a module");
  }
  CUjit_option opts[2] = {CU_JIT_ERROR_LOG_BUFFER, CU_JIT_ERROR_LOG_BUFFER_SIZE_BYTES};
  void *vals[2] = {log, (void *)(uintptr_t)(JIT_LOG - 1)};
  CUresult r = drv.module_load(&m->mod, binary ? image : copy, 2, opts, vals);
  free(copy);
  if (r != CUDA_SUCCESS) {
    const char *name = NULL;
    drv.error_name(r, &name);
    tcmma_fail(err, TCMMA_CUDA, "cuModuleLoadDataEx (%s, %zu bytes) on device %d: %s; JIT log: %s",
               binary ? "CUBIN" : "PTX", len, device, name ? name : "unknown CUresult",
               log[0] ? log : "(empty)");
    free(log), free(m);
    return TCMMA_CUDA;
  }
  free(log);
  m->device = device;
  *out = m;
  return TCMMA_OK;
}

void tcmma_module_unload(tcmma_module *module) {
  if (!module) return;
  if (drv.module_unload && use_device(module->device, NULL) == TCMMA_OK)
    drv.module_unload(module->mod);
  free(module);
}

tcmma_status tcmma_module_kernel(tcmma_module *module, const char *name, tcmma_kernel *out,
                                 tcmma_error *err) {
  if (!module || !name || !out)
    return tcmma_fail(err, TCMMA_INVALID, "tcmma_module_kernel: module, name and out are required");
  memset(out, 0, sizeof *out);
  tcmma_status s = use_device(module->device, err);
  if (s != TCMMA_OK) return s;
  CUfunction fn;
  CUresult r = drv.module_function(&fn, module->mod, name);
  if (r != CUDA_SUCCESS) {
    char call[300];
    snprintf(call, sizeof call, "cuModuleGetFunction('%.256s')", name);
    return cuda_fail(err, call, r);
  }
  out->module = module;
  out->fn = fn;
  return TCMMA_OK;
}

/* A launch's kernel and shape (what: the caller, for messages), then its
 * device's context made current. */
static tcmma_status launch_ready(const char *what, const tcmma_kernel *kernel,
                                 const unsigned grid[3], const unsigned block[3],
                                 tcmma_error *err) {
  if (!kernel || !kernel->module || !kernel->fn || !grid || !block)
    return tcmma_fail(err, TCMMA_INVALID, "%s: a kernel, grid and block are required", what);
  for (int i = 0; i < 3; i++)
    if (grid[i] == 0 || block[i] == 0)
      return tcmma_fail(err, TCMMA_INVALID, "%s: grid %ux%ux%u, block %ux%ux%u: "
                        "every dimension must be at least 1", what, grid[0], grid[1], grid[2],
                        block[0], block[1], block[2]);
  return use_device(kernel->module->device, err);
}

tcmma_status tcmma_launch(const tcmma_kernel *kernel, const unsigned grid[3],
                          const unsigned block[3], unsigned shared_bytes, void **params,
                          tcmma_error *err) {
  tcmma_status s = launch_ready("tcmma_launch", kernel, grid, block, err);
  if (s != TCMMA_OK) return s;
  CUresult r = drv.launch((CUfunction)kernel->fn, grid[0], grid[1], grid[2], block[0], block[1],
                          block[2], shared_bytes, NULL, params, NULL);
  if (r != CUDA_SUCCESS) return cuda_fail(err, "cuLaunchKernel", r);
  r = drv.ctx_sync();
  return r == CUDA_SUCCESS ? TCMMA_OK : cuda_fail(err, "cuCtxSynchronize (kernel execution)", r);
}

tcmma_status tcmma_kernel_max_dynamic_shared(const tcmma_kernel *kernel, unsigned bytes,
                                             tcmma_error *err) {
  if (!kernel || !kernel->module || !kernel->fn)
    return tcmma_fail(err, TCMMA_INVALID, "tcmma_kernel_max_dynamic_shared: a kernel is required");
  tcmma_status s = use_device(kernel->module->device, err);
  if (s != TCMMA_OK) return s;
  CUresult r = drv.func_attr((CUfunction)kernel->fn,
                             CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES, (int)bytes);
  return r == CUDA_SUCCESS ? TCMMA_OK
                           : cuda_fail(err, "cuFuncSetAttribute (max dynamic shared memory)", r);
}

tcmma_status tcmma_launch_timed(const tcmma_kernel *kernel, const unsigned grid[3],
                                const unsigned block[3], unsigned shared_bytes, void **params,
                                int repeats, double *ms, tcmma_error *err) {
  if (!ms || repeats < 1)
    return tcmma_fail(err, TCMMA_INVALID, "tcmma_launch_timed: ms and repeats >= 1 are required "
                      "(repeats %d)", repeats);
  tcmma_status s = launch_ready("tcmma_launch_timed", kernel, grid, block, err);
  if (s != TCMMA_OK) return s;
  CUevent ev[2] = {NULL, NULL};
  CUresult r = drv.event_create(&ev[0], CU_EVENT_DEFAULT);
  if (r == CUDA_SUCCESS) r = drv.event_create(&ev[1], CU_EVENT_DEFAULT);
  const char *call = "cuEventCreate";
  if (r == CUDA_SUCCESS) r = drv.event_record(ev[0], NULL), call = "cuEventRecord";
  for (int i = 0; r == CUDA_SUCCESS && i < repeats; i++)
    r = drv.launch((CUfunction)kernel->fn, grid[0], grid[1], grid[2], block[0], block[1],
                   block[2], shared_bytes, NULL, params, NULL), call = "cuLaunchKernel";
  if (r == CUDA_SUCCESS) r = drv.event_record(ev[1], NULL), call = "cuEventRecord";
  if (r == CUDA_SUCCESS) r = drv.event_sync(ev[1]), call = "cuEventSynchronize (kernel execution)";
  float total = 0;
  if (r == CUDA_SUCCESS) r = drv.event_elapsed(&total, ev[0], ev[1]), call = "cuEventElapsedTime";
  for (int i = 0; i < 2; i++)
    if (ev[i]) drv.event_destroy(ev[i]);
  if (r != CUDA_SUCCESS) return cuda_fail(err, call, r);
  *ms = (double)total / repeats;
  return TCMMA_OK;
}

tcmma_status tcmma_mem_alloc(int device, size_t bytes, tcmma_devmem *out, tcmma_error *err) {
  if (!out) return tcmma_fail(err, TCMMA_INVALID, "tcmma_mem_alloc: out is NULL");
  memset(out, 0, sizeof *out);
  if (bytes == 0) return tcmma_fail(err, TCMMA_INVALID, "tcmma_mem_alloc: 0 bytes: expected at least 1");
  tcmma_status s = use_device(device, err);
  if (s != TCMMA_OK) return s;
  CUdeviceptr p = 0;
  CUresult r = drv.mem_alloc(&p, bytes);
  if (r != CUDA_SUCCESS) {
    char call[64];
    snprintf(call, sizeof call, "cuMemAlloc(%zu bytes)", bytes);
    return cuda_fail(err, call, r);
  }
  *out = (tcmma_devmem){device, (unsigned long long)p, bytes};
  return TCMMA_OK;
}

static tcmma_status check_range(const tcmma_devmem *m, size_t offset, size_t n, const char *what,
                                tcmma_error *err) {
  if (!m || !m->ptr) return tcmma_fail(err, TCMMA_INVALID, "%s: no device memory", what);
  if (offset > m->bytes || n > m->bytes - offset)
    return tcmma_fail(err, TCMMA_OVERFLOW, "%s: bytes %zu..+%zu outside the %zu-byte allocation",
                      what, offset, n, m->bytes);
  return use_device(m->device, err);
}

tcmma_status tcmma_mem_to_device(const tcmma_devmem *dst, size_t offset, const void *src,
                                 size_t n, tcmma_error *err) {
  if (!src && n) return tcmma_fail(err, TCMMA_INVALID, "tcmma_mem_to_device: src is NULL");
  tcmma_status s = check_range(dst, offset, n, "tcmma_mem_to_device", err);
  if (s != TCMMA_OK || n == 0) return s;
  CUresult r = drv.htod((CUdeviceptr)(dst->ptr + offset), src, n);
  return r == CUDA_SUCCESS ? TCMMA_OK : cuda_fail(err, "cuMemcpyHtoD", r);
}

tcmma_status tcmma_mem_to_host(void *dst, const tcmma_devmem *src, size_t offset, size_t n,
                               tcmma_error *err) {
  if (!dst && n) return tcmma_fail(err, TCMMA_INVALID, "tcmma_mem_to_host: dst is NULL");
  tcmma_status s = check_range(src, offset, n, "tcmma_mem_to_host", err);
  if (s != TCMMA_OK || n == 0) return s;
  CUresult r = drv.dtoh(dst, (CUdeviceptr)(src->ptr + offset), n);
  return r == CUDA_SUCCESS ? TCMMA_OK : cuda_fail(err, "cuMemcpyDtoH", r);
}

void tcmma_mem_free(tcmma_devmem *mem) {
  if (!mem || !mem->ptr) return;
  if (drv.mem_free && use_device(mem->device, NULL) == TCMMA_OK) drv.mem_free((CUdeviceptr)mem->ptr);
  memset(mem, 0, sizeof *mem);
}
