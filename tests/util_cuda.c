/* CUDA pieces for tests: the toolkit's home, and the fake libcuda
 * (tests/fake_cuda.c) built once per test binary with cc, so that the driver
 * API and what depends on it (the native target) run without a GPU. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "util.h"
#include "tcmma/driver.h"

const char *cuda_home(void) {
  const char *home = getenv("CUDA_HOME");
  return home && *home ? home : TCMMA_CUDA_HOME;
}

static char fake_dir[] = "/tmp/tcmma-fakecuda-XXXXXX";
static char fake_lib[512];

const char *fake_cuda_build(void) {
  if (fake_lib[0]) return fake_lib;
  if (!mkdtemp(fake_dir)) return NULL;
  char lib[sizeof fake_lib];
  snprintf(lib, sizeof lib, "%s/libcuda.so.1", fake_dir);
  char cmd[2048];
  const char *cc = getenv("CC"); /* the compiler the tests run with, as for every helper */
  snprintf(cmd, sizeof cmd, "%s -shared -fPIC -I'%s/include' '%s' -o '%s'", cc && *cc ? cc : "cc",
           cuda_home(), src_path("tests/fake_cuda.c"), lib);
  if (system(cmd) != 0) {
    fprintf(stderr, "cannot build the fake driver: %s\n", cmd);
    rmdir(fake_dir);
    return NULL;
  }
  memcpy(fake_lib, lib, sizeof fake_lib);
  return fake_lib;
}

void fake_cuda_remove(void) {
  tcmma_driver_unload();
  if (!fake_lib[0]) return;
  unlink(fake_lib);
  rmdir(fake_dir);
  fake_lib[0] = '\0';
}

void fake_cuda_use(const char *library) {
  if (library) setenv("TCMMA_LIBCUDA", library, 1);
  else unsetenv("TCMMA_LIBCUDA");
  unsetenv("FAKE_CUDA_INIT");
  unsetenv("FAKE_CUDA_CCS");
  unsetenv("FAKE_CUDA_JIT_FAIL");
  unsetenv("FAKE_CUDA_KERNEL");
  unsetenv("FAKE_CUDA_TMAP_FAIL");
  tcmma_driver_unload();
}
