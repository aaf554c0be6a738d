/* The driver API wrapper: no driver, a library that is not a driver, and a
 * fake libcuda (tests/fake_cuda.c, built here with $CC) with two devices of
 * cc 8.0 and 9.0 by default, so that device queries, modules, launches,
 * memory and the error paths run without a GPU. */
#include <dirent.h>
#include <dlfcn.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "util.h"
#include "tcmma/tcmma.h"

static const char *fake_lib;

static int build_fake(void **state) {
  (void)state;
  return (fake_lib = fake_cuda_build()) ? 0 : -1;
}

static int remove_fake(void **state) {
  (void)state;
  fake_cuda_remove();
  return 0;
}

static void expect(tcmma_status got, tcmma_status want, const tcmma_error *err, const char *needle) {
  if (got != want || (needle && !strstr(err->message, needle)))
    fail_msg("got %s '%s', expected %s with '%s'", tcmma_status_name(got), err->message,
             tcmma_status_name(want), needle ? needle : "");
}

/* ---- no driver ---- */

static void every_call_without_driver(const char *needle) {
  tcmma_error err;
  int v;
  tcmma_device_info d;
  tcmma_module *m = (tcmma_module *)&v;
  tcmma_devmem mem;
  expect(tcmma_driver_load(&err), TCMMA_UNAVAILABLE, &err, needle);
  expect(tcmma_driver_version(&v, &err), TCMMA_UNAVAILABLE, &err, needle);
  expect(tcmma_device_count(&v, &err), TCMMA_UNAVAILABLE, &err, needle);
  assert_int_equal(v, 0);
  expect(tcmma_device_get(0, &d, &err), TCMMA_UNAVAILABLE, &err, needle);
  expect(tcmma_device_lowest_cc(&v, &err), TCMMA_UNAVAILABLE, &err, needle);
  expect(tcmma_module_load(0, ".version 8.0", 12, &m, &err), TCMMA_UNAVAILABLE, &err, needle);
  assert_null(m);
  expect(tcmma_mem_alloc(0, 64, &mem, &err), TCMMA_UNAVAILABLE, &err, needle);
  assert_int_equal(mem.ptr, 0);
  tcmma_mem_free(&mem);
  tcmma_module_unload(NULL);
}

static void absent_driver(void **state) {
  (void)state;
  fake_cuda_use("/nonexistent/libcuda.so.1");
  every_call_without_driver("no CUDA driver (/nonexistent/libcuda.so.1 could not be loaded: ");
  /* the default soname: absent here unless this machine has a driver */
  fake_cuda_use(NULL);
  void *real = dlopen("libcuda.so.1", RTLD_NOW | RTLD_LOCAL);
  tcmma_error err;
  if (!real) {
    every_call_without_driver("no CUDA driver (libcuda.so.1 could not be loaded: ");
  } else {
    tcmma_status s = tcmma_driver_load(&err);
    assert_true(s == TCMMA_OK || s == TCMMA_UNAVAILABLE || s == TCMMA_CUDA);
    dlclose(real);
  }
}

static void not_a_driver(void **state) {
  (void)state;
  fake_cuda_use("libm.so.6");
  every_call_without_driver("libm.so.6 has no cuInit");
}

/* ---- the fake driver ---- */

static void devices(void **state) {
  (void)state;
  fake_cuda_use(fake_lib);
  tcmma_error err;
  int count = -1, cc = 0, version = 0;
  expect(tcmma_device_count(&count, &err), TCMMA_OK, &err, NULL);
  assert_int_equal(count, 2);
  tcmma_device_info d;
  expect(tcmma_device_get(0, &d, &err), TCMMA_OK, &err, NULL);
  assert_int_equal(d.cc, 80);
  assert_int_equal(d.ordinal, 0);
  assert_string_equal(d.name, "Fake GPU 0 (cc 8.0)");
  expect(tcmma_device_get(1, &d, &err), TCMMA_OK, &err, NULL);
  assert_int_equal(d.cc, 90);
  expect(tcmma_device_get(2, &d, &err), TCMMA_INVALID, &err, "device 2: expected an ordinal from 0 to 1");
  expect(tcmma_device_get(-1, &d, &err), TCMMA_INVALID, &err, "device -1");
  expect(tcmma_device_lowest_cc(&cc, &err), TCMMA_OK, &err, NULL);
  assert_int_equal(cc, 80);
  expect(tcmma_driver_version(&version, &err), TCMMA_OK, &err, NULL);
  assert_int_equal(version, 13000);
  /* the lowest is the minimum wherever it sits */
  setenv("FAKE_CUDA_CCS", "90,75,121,86", 1);
  expect(tcmma_device_lowest_cc(&cc, &err), TCMMA_OK, &err, NULL);
  assert_int_equal(cc, 75);
  expect(tcmma_device_get(2, &d, &err), TCMMA_OK, &err, NULL);
  assert_int_equal(d.cc, 121);
  /* a driver with no device */
  setenv("FAKE_CUDA_CCS", "", 1);
  expect(tcmma_device_count(&count, &err), TCMMA_OK, &err, NULL);
  assert_int_equal(count, 0);
  expect(tcmma_device_lowest_cc(&cc, &err), TCMMA_UNAVAILABLE, &err, "no CUDA device");
  expect(tcmma_device_get(0, &d, &err), TCMMA_INVALID, &err, "device 0");
  /* a device reporting nonsense */
  setenv("FAKE_CUDA_CCS", "80,1000", 1);
  expect(tcmma_device_lowest_cc(&cc, &err), TCMMA_CUDA, &err, "compute capability 100.0");
}

static void init_failures(void **state) {
  (void)state;
  fake_cuda_use(fake_lib);
  tcmma_error err;
  int count;
  setenv("FAKE_CUDA_INIT", "100", 1); /* CUDA_ERROR_NO_DEVICE */
  expect(tcmma_device_count(&count, &err), TCMMA_UNAVAILABLE, &err,
         "no CUDA device (cuInit: CUDA_ERROR_NO_DEVICE");
  tcmma_driver_unload();
  setenv("FAKE_CUDA_INIT", "3", 1); /* CUDA_ERROR_NOT_INITIALIZED */
  expect(tcmma_device_count(&count, &err), TCMMA_CUDA, &err, "cuInit: CUDA_ERROR_NOT_INITIALIZED");
  /* remembered until unload, then loaded again */
  unsetenv("FAKE_CUDA_INIT");
  expect(tcmma_driver_load(&err), TCMMA_CUDA, &err, "cuInit");
  tcmma_driver_unload();
  expect(tcmma_device_count(&count, &err), TCMMA_OK, &err, NULL);
  assert_int_equal(count, 2);
}

/* Runs tests/data/add_one.ptx on device over 16 ints and checks the result;
 * the same body drives the fake and, where there is one, a real GPU. */
static void run_add_one(int device) {
  tcmma_error err;
  enum { N = 16 };
  int host[N], back[N];
  for (int i = 0; i < N; i++) host[i] = 3 * i - 7;
  size_t len;
  char *ptx = read_file(src_path("tests/data/add_one.ptx"), &len);
  assert_non_null(ptx);
  tcmma_devmem mem;
  expect(tcmma_mem_alloc(device, sizeof host, &mem, &err), TCMMA_OK, &err, NULL);
  assert_int_equal(mem.device, device);
  assert_int_equal(mem.bytes, sizeof host);
  expect(tcmma_mem_to_device(&mem, 0, host, sizeof host, &err), TCMMA_OK, &err, NULL);
  tcmma_module *m = NULL;
  /* no NUL at len: the wrapper must terminate its copy */
  ptx[len] = 'X';
  expect(tcmma_module_load(device, ptx, len, &m, &err), TCMMA_OK, &err, NULL);
  free(ptx);
  tcmma_kernel k;
  expect(tcmma_module_kernel(m, "add_one", &k, &err), TCMMA_OK, &err, NULL);
  unsigned n = N;
  void *params[] = {&mem.ptr, &n};
  expect(tcmma_launch(&k, (unsigned[]){1, 1, 1}, (unsigned[]){32, 1, 1}, 0, params, &err), TCMMA_OK,
         &err, NULL);
  expect(tcmma_mem_to_host(back, &mem, 0, sizeof back, &err), TCMMA_OK, &err, NULL);
  for (int i = 0; i < N; i++) assert_int_equal(back[i], 3 * i - 7 + 1);
  /* timed launches run every repeat; the attribute takes what a device
   * allows and refuses more (no device allows 300000 bytes a block) */
  double ms = -1;
  expect(tcmma_launch_timed(&k, (unsigned[]){1, 1, 1}, (unsigned[]){32, 1, 1}, 0, params, 4, &ms,
                            &err), TCMMA_OK, &err, NULL);
  assert_true(ms >= 0);
  expect(tcmma_mem_to_host(back, &mem, 0, sizeof back, &err), TCMMA_OK, &err, NULL);
  for (int i = 0; i < N; i++) assert_int_equal(back[i], 3 * i - 7 + 5);
  expect(tcmma_launch_timed(&k, (unsigned[]){1, 1, 1}, (unsigned[]){32, 1, 1}, 0, params, 0, &ms,
                            &err), TCMMA_INVALID, &err, "repeats 0");
  expect(tcmma_kernel_max_dynamic_shared(&k, 1024, &err), TCMMA_OK, &err, NULL);
  expect(tcmma_kernel_max_dynamic_shared(&k, 300000, &err), TCMMA_CUDA, &err, "cuFuncSetAttribute");
  /* partial copies at an offset */
  int two[2] = {100, 200};
  expect(tcmma_mem_to_device(&mem, 4 * sizeof(int), two, sizeof two, &err), TCMMA_OK, &err, NULL);
  expect(tcmma_mem_to_host(back, &mem, 0, sizeof back, &err), TCMMA_OK, &err, NULL);
  assert_int_equal(back[4], 100);
  assert_int_equal(back[5], 200);
  assert_int_equal(back[6], 3 * 6 - 7 + 5);
  /* bounds and bad arguments */
  expect(tcmma_mem_to_device(&mem, sizeof host - 3, two, sizeof two, &err), TCMMA_OVERFLOW, &err,
         "outside the 64-byte allocation");
  expect(tcmma_mem_to_host(back, &mem, (size_t)-1, 2, &err), TCMMA_OVERFLOW, &err, NULL);
  expect(tcmma_launch(&k, (unsigned[]){0, 1, 1}, (unsigned[]){32, 1, 1}, 0, params, &err),
         TCMMA_INVALID, &err, "grid 0x1x1");
  expect(tcmma_module_kernel(m, "missing_kernel", &k, &err), TCMMA_CUDA, &err,
         "cuModuleGetFunction('missing_kernel'): CUDA_ERROR_NOT_FOUND");
  tcmma_module_unload(m);
  tcmma_mem_free(&mem);
  assert_int_equal(mem.ptr, 0);
  tcmma_mem_free(&mem); /* twice: nothing */
  expect(tcmma_mem_alloc(device, 0, &mem, &err), TCMMA_INVALID, &err, "0 bytes");
  expect(tcmma_mem_alloc(device, (size_t)1 << 50, &mem, &err), TCMMA_CUDA, &err,
         "CUDA_ERROR_OUT_OF_MEMORY");
}

static void module_launch_memory(void **state) {
  (void)state;
  fake_cuda_use(fake_lib);
  run_add_one(1);
  tcmma_error err;
  tcmma_devmem mem;
  expect(tcmma_mem_alloc(5, 64, &mem, &err), TCMMA_INVALID, &err, "device 5");
}

/* The real driver, when this machine has one and a device. */
static void real_gpu(void **state) {
  (void)state;
  fake_cuda_use(NULL);
  tcmma_error err;
  int cc = 0;
  tcmma_status s = tcmma_device_lowest_cc(&cc, &err);
  if (s == TCMMA_UNAVAILABLE) {
    print_message("no GPU here (%s): real-driver test skipped\n", err.message);
    skip();
  }
  expect(s, TCMMA_OK, &err, NULL);
  assert_true(cc >= 75);
  tcmma_device_info d;
  expect(tcmma_device_get(0, &d, &err), TCMMA_OK, &err, NULL);
  print_message("device 0: %s, cc %d\n", d.name, d.cc);
  run_add_one(0);
}

/* tcmma ptx --check against the real driver: every module of the PTX corpus
 * (tests/data/ptx) loads on device 0 exactly when tcmma_ptx_check_on says a
 * GPU of its cc takes it (a GPU runs its own arch-specific target: sm_90a
 * on an H100 or H200). */
static void real_gpu_loads_as_checked(void **state) {
  (void)state;
  fake_cuda_use(NULL);
  tcmma_error err;
  tcmma_device_info d;
  if (tcmma_device_get(0, &d, &err) == TCMMA_UNAVAILABLE) {
    print_message("no GPU here (%s): real-driver corpus test skipped\n", err.message);
    skip();
  }
  expect(tcmma_device_get(0, &d, &err), TCMMA_OK, &err, NULL);
  DIR *dir = opendir(src_path("tests/data/ptx"));
  assert_non_null(dir);
  size_t n = 0, agree = 0, loaded = 0;
  for (struct dirent *e; (e = readdir(dir));) {
    size_t k = strlen(e->d_name);
    if (k < 5 || strcmp(e->d_name + k - 4, ".ptx") != 0) continue;
    char rel[300];
    snprintf(rel, sizeof rel, "tests/data/ptx/%s", e->d_name);
    size_t len;
    char *text = read_file(src_path(rel), &len);
    assert_non_null(text);
    tcmma_ptx_info info;
    assert_int_equal(tcmma_ptx_parse(text, len, &info, &err), TCMMA_OK);
    tcmma_error why;
    bool want = tcmma_ptx_check_on(&info, d.cc, 'a', &why) == TCMMA_OK;
    tcmma_module *m = NULL;
    bool got = tcmma_module_load(0, text, len, &m, &err) == TCMMA_OK;
    tcmma_module_unload(m);
    n++, agree += got == want, loaded += got;
    if (got != want)
      print_message("%s: the driver %s it, --check sm_%da says %s\n", e->d_name,
                    got ? "loads" : "refuses", d.cc, want ? "it loads" : why.message);
    tcmma_ptx_info_free(&info);
    free(text);
  }
  closedir(dir);
  print_message("ptx corpus on device 0 (cc %d): %zu of %zu modules agree with --check sm_%da "
                "(%zu load)\n", d.cc, agree, n, d.cc, loaded);
  assert_true(n > 0);
  assert_int_equal(agree, n);
}

static void module_errors(void **state) {
  (void)state;
  fake_cuda_use(fake_lib);
  tcmma_error err;
  tcmma_module *m = NULL;
  const char bad[] = ".version 8.0\n.target sm_80\n// FAKE_JIT_ERROR\n";
  expect(tcmma_module_load(0, bad, sizeof bad - 1, &m, &err), TCMMA_CUDA, &err,
         "JIT log: ptxas fatal   : fake JIT rejection");
  assert_non_null(strstr(err.message, "CUDA_ERROR_INVALID_PTX"));
  assert_null(m);
  expect(tcmma_module_load(0, "", 0, &m, &err), TCMMA_INVALID, &err, "empty image");
  /* a CUBIN goes to the driver as it is */
  const char elf[] = "\x7f" "ELF trap kernel image";
  expect(tcmma_module_load(0, elf, sizeof elf, &m, &err), TCMMA_OK, &err, NULL);
  tcmma_kernel k;
  expect(tcmma_module_kernel(m, "trap", &k, &err), TCMMA_OK, &err, NULL);
  int zero = 0;
  unsigned long long p = 0;
  void *params[] = {&p, &zero};
  expect(tcmma_launch(&k, (unsigned[]){1, 1, 1}, (unsigned[]){1, 1, 1}, 0, params, &err), TCMMA_CUDA,
         &err, "cuLaunchKernel: CUDA_ERROR_LAUNCH_FAILED");
  tcmma_module_unload(m);
  expect(tcmma_launch(NULL, (unsigned[]){1, 1, 1}, (unsigned[]){1, 1, 1}, 0, params, &err),
         TCMMA_INVALID, &err, "kernel");
}

static void *lowest_in_thread(void *arg) {
  tcmma_error err;
  int cc = 0;
  for (int i = 0; i < 50; i++)
    if (tcmma_device_lowest_cc(&cc, &err) != TCMMA_OK || cc != 80) return NULL;
  return arg;
}

static void threads(void **state) {
  (void)state;
  fake_cuda_use(fake_lib);
  pthread_t t[8];
  int ok = 1;
  for (int i = 0; i < 8; i++) assert_int_equal(pthread_create(&t[i], NULL, lowest_in_thread, &ok), 0);
  for (int i = 0; i < 8; i++) {
    void *r = NULL;
    pthread_join(t[i], &r);
    assert_ptr_equal(r, &ok);
  }
}

/* ---- tcmma devices ---- */

static void cli_devices(void **state) {
  (void)state;
  fake_cuda_use(fake_lib);
  cli_result r = run_cli((const char *const[]){"devices", "--json", NULL}, NULL);
  assert_int_equal(r.exit_code, 0);
  assert_non_null(strstr(r.out, "\"lowest_cc\": 80"));
  assert_non_null(strstr(r.out, "\"name\": \"Fake GPU 1 (cc 9.0)\""));
  cli_result_free(&r);
  r = run_cli((const char *const[]){"devices", NULL}, NULL);
  assert_int_equal(r.exit_code, 0);
  assert_non_null(strstr(r.out, "lowest compute capability 8.0"));
  cli_result_free(&r);
  setenv("FAKE_CUDA_INIT", "3", 1);
  r = run_cli((const char *const[]){"devices", NULL}, NULL);
  assert_int_equal(r.exit_code, 1);
  assert_non_null(strstr(r.err, "cuInit: CUDA_ERROR_NOT_INITIALIZED"));
  cli_result_free(&r);
  fake_cuda_use("/nonexistent/libcuda.so.1");
  r = run_cli((const char *const[]){"devices", "--json", NULL}, NULL);
  assert_int_equal(r.exit_code, 4);
  /* --json: the failure as an object on stdout too */
  assert_non_null(strstr(r.out, "\"error\": {"));
  assert_non_null(strstr(r.out, "no CUDA driver"));
  assert_non_null(strstr(r.err, "tcmma devices: no CUDA driver (/nonexistent/libcuda.so.1"));
  cli_result_free(&r);
  setenv("TCMMA_LIBCUDA", fake_lib, 1);
  setenv("FAKE_CUDA_CCS", "", 1);
  r = run_cli((const char *const[]){"devices", NULL}, NULL);
  assert_int_equal(r.exit_code, 4);
  assert_non_null(strstr(r.err, "no CUDA device"));
  cli_result_free(&r);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(absent_driver),
      cmocka_unit_test(not_a_driver),
      cmocka_unit_test(devices),
      cmocka_unit_test(init_failures),
      cmocka_unit_test(module_launch_memory),
      cmocka_unit_test(module_errors),
      cmocka_unit_test(threads),
      cmocka_unit_test(cli_devices),
      cmocka_unit_test(real_gpu),
      cmocka_unit_test(real_gpu_loads_as_checked),
  };
  return cmocka_run_group_tests_name("driver", tests, build_fake, remove_fake);
}
