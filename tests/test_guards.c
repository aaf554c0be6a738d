/* __CUDA_ARCH__ guards whose threshold lies below every real compute
 * capability (>= 0 .. >= 100: at most cc 1.0, the lowest) hold on every device: they raise
 * no floor, and `tcmma options` never prints an empty or sub-1.0 floor for
 * them. A real threshold still raises it. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "util.h"
#include "tcmma/tcmma.h"

static int floor_of(long v) {
  char src[256];
  snprintf(src, sizeof src,
           "#if __CUDA_ARCH__ >= %ld\n__global__ void k(int *p) { *p = 1; }\n#endif\n", v);
  tcmma_marker_hit hits[8];
  int floor = -1;
  size_t n = tcmma_source_markers(src, strlen(src), hits, 8, &floor);
  assert_int_equal(n, 1); /* the guard is still reported */
  assert_int_equal(hits[0].kind, TCMMA_HIT_GUARD);
  return floor;
}

static void thresholds_below_every_device_raise_nothing(void **state) {
  (void)state;
  static const long none[] = {0, 1, 9, 10, 50, 90, 99, 100};
  for (size_t i = 0; i < sizeof none / sizeof none[0]; i++)
    if (floor_of(none[i]) != 0)
      fail_msg(">= %ld raised the floor to %d", none[i], floor_of(none[i]));
  assert_int_equal(floor_of(750), 75);
  assert_int_equal(floor_of(900), 90);
  assert_int_equal(floor_of(1000), 100);
}

static void options_never_prints_an_empty_floor(void **state) {
  (void)state;
  char dir[] = "/tmp/tcmma-guards-XXXXXX";
  assert_non_null(mkdtemp(dir));
  char path[128];
  snprintf(path, sizeof path, "%s/g.cu", dir);
  FILE *f = fopen(path, "w");
  assert_non_null(f);
  fputs("#if __CUDA_ARCH__ >= 0\n__global__ void k(int *p) { *p = 1; }\n#endif\n", f);
  fclose(f);
  cli_result r = run_cli((const char *[]){"options", path, "--no-probe", NULL}, NULL);
  assert_int_equal(r.exit_code, 0);
  if (strstr(r.out, "floor:   ,") || !strstr(r.out, "floor:   none"))
    fail_msg("bad floor line: %s", r.out);
  cli_result_free(&r);
  remove(path);
  remove(dir);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(thresholds_below_every_device_raise_nothing),
      cmocka_unit_test(options_never_prints_an_empty_floor),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
