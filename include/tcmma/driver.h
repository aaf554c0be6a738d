/* The CUDA driver API, loaded with dlopen on first use: devices and their
 * compute capabilities, modules (PTX or CUBIN), kernel launches and device
 * memory. Without a driver every call returns TCMMA_UNAVAILABLE ("no CUDA
 * driver (...)"); no call ever needs libcuda at link time. Thread-safe: one
 * lock guards loading; each call makes the device's primary context current
 * on the calling thread. */
#ifndef TCMMA_DRIVER_H
#define TCMMA_DRIVER_H

#include <stddef.h>
#include "tcmma/status.h"

#ifdef __cplusplus
extern "C" {
#endif
#pragma GCC visibility push(default) /* public: the library builds with -fvisibility=hidden */

/* One attached device. */
typedef struct {
  int ordinal;
  char name[256];
  int cc;          /* compute capability major*10+minor: 80, 90, 120 */
} tcmma_device_info;

typedef struct tcmma_module tcmma_module;  /* a loaded module (opaque) */

/* A kernel of a loaded module; valid until the module is unloaded. */
typedef struct {
  tcmma_module *module;
  void *fn;        /* CUfunction */
} tcmma_kernel;

/* Device memory: where it lives and how big it is (bounds of every copy). */
typedef struct {
  int device;
  unsigned long long ptr;  /* CUdeviceptr; 0 when not allocated */
  size_t bytes;
} tcmma_devmem;

/* Loads libcuda ($TCMMA_LIBCUDA, else libcuda.so.1) and runs cuInit once.
 * TCMMA_UNAVAILABLE naming the library and dlerror when it cannot be loaded
 * or lacks a symbol, or when cuInit finds no device; TCMMA_CUDA naming the
 * CUresult when cuInit fails otherwise. Every
 * other call does this first; a failure is remembered until unload. */
tcmma_status tcmma_driver_load(tcmma_error *err);

/* Releases the primary contexts and dlcloses the library; the next call
 * loads again (re-reading TCMMA_LIBCUDA). Modules and memory from before
 * must not be used afterwards. */
void tcmma_driver_unload(void);

/* The driver's CUDA version (13000 for 13.0) into *version. */
tcmma_status tcmma_driver_version(int *version, tcmma_error *err);

/* Number of attached devices (0 is not an error here) into *count. */
tcmma_status tcmma_device_count(int *count, tcmma_error *err);

/* Name and compute capability of device ordinal into *out; TCMMA_INVALID
 * for an ordinal outside [0, count). */
tcmma_status tcmma_device_get(int ordinal, tcmma_device_info *out, tcmma_error *err);

/* The lowest compute capability among attached devices into *cc;
 * TCMMA_UNAVAILABLE "no CUDA device" when there are none. */
tcmma_status tcmma_device_lowest_cc(int *cc, tcmma_error *err);

/* Loads a module on device from len bytes of PTX text or a CUBIN/fatbin
 * image (told apart by the ELF / fatbin magic) into *out. TCMMA_CUDA with
 * the driver's JIT error log when the driver rejects it. */
tcmma_status tcmma_module_load(int device, const void *image, size_t len, tcmma_module **out,
                               tcmma_error *err);

/* Unloads a module (NULL allowed). */
void tcmma_module_unload(tcmma_module *module);

/* Looks up kernel name in module into *out; TCMMA_CUDA naming it when absent. */
tcmma_status tcmma_module_kernel(tcmma_module *module, const char *name, tcmma_kernel *out,
                                 tcmma_error *err);

/* Launches kernel on grid x block threads with shared_bytes of dynamic
 * shared memory and params (an array of pointers to each argument, as
 * cuLaunchKernel takes), then waits for it; TCMMA_INVALID for zero
 * dimensions, TCMMA_CUDA for launch or execution errors. */
tcmma_status tcmma_launch(const tcmma_kernel *kernel, const unsigned grid[3],
                          const unsigned block[3], unsigned shared_bytes, void **params,
                          tcmma_error *err);

/* Lets kernel launch with up to bytes of dynamic shared memory
 * (CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES): a launch above 48 KiB
 * needs it. TCMMA_CUDA naming the CUresult when the device refuses. */
tcmma_status tcmma_kernel_max_dynamic_shared(const tcmma_kernel *kernel, unsigned bytes,
                                             tcmma_error *err);

/* Launches kernel `repeats` (>= 1) times back to back between two events,
 * waits for the second, and puts the events' milliseconds per launch in
 * *ms. Errors as tcmma_launch; TCMMA_INVALID for repeats < 1. */
tcmma_status tcmma_launch_timed(const tcmma_kernel *kernel, const unsigned grid[3],
                                const unsigned block[3], unsigned shared_bytes, void **params,
                                int repeats, double *ms, tcmma_error *err);

/* Allocates bytes (> 0) on device into *out. */
tcmma_status tcmma_mem_alloc(int device, size_t bytes, tcmma_devmem *out, tcmma_error *err);

/* Copies n bytes from host src to dst at byte offset; TCMMA_OVERFLOW when
 * offset + n exceeds dst->bytes. */
tcmma_status tcmma_mem_to_device(const tcmma_devmem *dst, size_t offset, const void *src,
                                 size_t n, tcmma_error *err);

/* Copies n bytes from src at byte offset to host dst; TCMMA_OVERFLOW as above. */
tcmma_status tcmma_mem_to_host(void *dst, const tcmma_devmem *src, size_t offset, size_t n,
                               tcmma_error *err);

/* Frees device memory and zeroes *mem (NULL or unallocated: nothing). */
void tcmma_mem_free(tcmma_devmem *mem);

#pragma GCC visibility pop
#ifdef __cplusplus
}
#endif

#endif
