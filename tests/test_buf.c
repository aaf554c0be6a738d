/* The text buffer under a careless caller: NULL buffers, NULL sources with a
 * length, NULL formats. Each is a no-op or marks the buffer failed; none
 * crashes, and the text already written stays. */
#include <string.h>
#include "util.h"
#include "tcmma/buf.h"

static void null_buffer_is_ignored(void **state) {
  (void)state;
  tcmma_buf_free(NULL);
  tcmma_buf_append(NULL, "x", 1);
  tcmma_buf_printf(NULL, "%d", 1);
  assert_string_equal(tcmma_buf_str(NULL), "");
}

static void null_source_with_a_length_fails(void **state) {
  (void)state;
  tcmma_buf b = {0};
  tcmma_buf_append(&b, "ab", 2);
  tcmma_buf_append(&b, NULL, 0); /* nothing to copy: fine */
  assert_false(b.failed);
  tcmma_buf_append(&b, NULL, 5);
  assert_true(b.failed);
  assert_int_equal(b.len, 2);
  assert_string_equal(tcmma_buf_str(&b), "ab");
  tcmma_buf_free(&b);
  assert_null(b.data);
  assert_false(b.failed);
}

static void null_format_fails(void **state) {
  (void)state;
  tcmma_buf b = {0};
  tcmma_buf_printf(&b, "%s", "ok");
  /* through a pointer without the format attribute: no compiler check sees
   * the NULL format a careless caller passes */
  void (*print)(tcmma_buf *, const char *, ...) = tcmma_buf_printf;
  const char *fmt = NULL;
  print(&b, fmt);
  assert_true(b.failed);
  assert_string_equal(tcmma_buf_str(&b), "ok");
  tcmma_buf_free(&b);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(null_buffer_is_ignored),
      cmocka_unit_test(null_source_with_a_length_fails),
      cmocka_unit_test(null_format_fails),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
