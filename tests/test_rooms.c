/* The rooms are one-way: no cycle between files, no call against the room
 * order, the verify harness and the CLI over public names only
 * (tests/rooms-test.sh; it also proves it fails on a control). */
#include "util.h"

static void rooms_are_one_way(void **state) {
  (void)state;
  assert_int_equal(run_script("tests/rooms-test.sh"), 0);
}

int main(void) {
  const struct CMUnitTest tests[] = {cmocka_unit_test(rooms_are_one_way)};
  return cmocka_run_group_tests(tests, NULL, NULL);
}
