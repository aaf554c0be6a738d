/* libFuzzer target: the include scan behind the cache key
 * (nvrtc/includes.c) on arbitrary source text. Byte 0 picks the options;
 * the program name lies in a directory that does not exist, so quoted
 * includes resolve nowhere unless absolute. */
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include "nvrtc/internal.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  static const char *const options[][3] = {
      {NULL}, {"-I/nonexistent-tcmma-fuzz", NULL}, {"--std=c++14", NULL},
      {"-I", "/nonexistent-tcmma-fuzz", NULL}, {"--pre-include=x.h", NULL}};
  static bool memory_only;
  if (!memory_only) /* the memo of header reads stays in memory: no disk cache */
    memory_only = setenv("TCMMA_CACHE", "0", 1) == 0;
  if (size < 1) return 0;
  const char *const *opts = options[data[0] % 5];
  size_t n = 0;
  while (n < 3 && opts[n]) n++;
  tcmma__sha256_state key;
  tcmma__sha256_init(&key);
  char note[512];
  tcmma__cache_include_deps((const char *)data + 1, size - 1, "/nonexistent-tcmma-fuzz/k.cu", opts,
                            n, &key, note, sizeof note);
  unsigned char digest[32];
  tcmma__sha256_final(&key, digest);
  return 0;
}
