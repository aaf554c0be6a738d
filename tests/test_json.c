/* Every --json document is valid UTF-8 whatever bytes the values hold: an
 * invalid byte in a file name or an expression becomes U+FFFD, valid UTF-8
 * passes through unchanged (tools/cli_util.c, the one JSON string writer). */
#include "util.h"
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* Length of the valid UTF-8 sequence at s (RFC 3629: no overlong forms, no
 * surrogates, nothing above U+10FFFF), or 0 when none starts there. */
static size_t utf8_seq(const unsigned char *s, size_t left) {
  unsigned char c = s[0];
  if (c < 0x80) return 1;
  size_t n = c >= 0xc2 && c <= 0xdf ? 2 : c >= 0xe0 && c <= 0xef ? 3 : c >= 0xf0 && c <= 0xf4 ? 4 : 0;
  if (!n || n > left) return 0;
  for (size_t i = 1; i < n; i++)
    if ((s[i] & 0xc0) != 0x80) return 0;
  if (c == 0xe0 && s[1] < 0xa0) return 0;              /* overlong */
  if (c == 0xed && s[1] >= 0xa0) return 0;             /* surrogate */
  if (c == 0xf0 && s[1] < 0x90) return 0;              /* overlong */
  if (c == 0xf4 && s[1] >= 0x90) return 0;             /* above U+10FFFF */
  return n;
}

static void assert_utf8(const char *text, size_t len) {
  const unsigned char *s = (const unsigned char *)text;
  for (size_t i = 0; i < len;) {
    size_t n = utf8_seq(s + i, len - i);
    if (!n) fail_msg("byte 0x%02x at offset %zu is not UTF-8", s[i], i);
    i += n;
  }
}

static void emit_lane_bytes(void **state) {
  (void)state;
  /* \xff, a lone continuation byte, a truncated sequence, an overlong '/',
   * a surrogate; then valid two- and three-byte characters */
  const char *lane = "\xff+\x80+\xe2\x82+\xc0\xaf+\xed\xa0\x80+\xc3\xa9\xe2\x82\xac";
  const char *argv[] = {"emit", "--m", "16", "--n", "8", "--k", "16", "--d", "f32", "--a", "f16",
                        "--b", "f16", "--lane", lane, "--json", NULL};
  cli_result r = run_cli(argv, NULL);
  assert_int_equal(r.exit_code, 0);
  assert_utf8(r.out, r.out_len);
  assert_non_null(strstr(r.out, "\\ufffd+\\ufffd+\\ufffd\\ufffd+\\ufffd\\ufffd+"
                                "\\ufffd\\ufffd\\ufffd+\xc3\xa9\xe2\x82\xac"));
  cli_result_free(&r);
}

static void compile_file_name_bytes(void **state) {
  (void)state;
  char dir[] = "/tmp/tcmma-json-XXXXXX";
  assert_non_null(mkdtemp(dir));
  char src[128], out[128];
  snprintf(src, sizeof src, "%s/k\xff\xfe.cu", dir);
  snprintf(out, sizeof out, "%s/k\xff\xfe.ptx", dir);
  FILE *f = fopen(src, "w");
  assert_non_null(f);
  fputs("extern \"C\" __global__ void k(int *p) { *p = 1; }\n", f);
  fclose(f);
  setenv("TCMMA_CACHE", "0", 1);
  const char *argv[] = {"compile", src, "--json", NULL};
  cli_result r = run_cli(argv, NULL);
  unsetenv("TCMMA_CACHE");
  assert_int_equal(r.exit_code, 0);
  assert_utf8(r.out, r.out_len);
  assert_non_null(strstr(r.out, "k\\ufffd\\ufffd.ptx\""));
  cli_result_free(&r);
  unlink(out), unlink(src), rmdir(dir);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(emit_lane_bytes),
      cmocka_unit_test(compile_file_name_bytes),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
