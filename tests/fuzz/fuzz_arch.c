/* libFuzzer target: the marker scanner and the arch decision
 * (nvrtc/arch.c) with a fixed support shaped like NVRTC 13's (its numeric
 * archs; a/f targets from 90a and 100 up). Byte 0 picks the device cc, byte
 * 1 the target, byte 2 the markers' capacity; the rest is the source. */
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include "tcmma/arch.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static bool accepts(int arch, char suffix, void *ctx) {
  (void)ctx;
  return (suffix == 'a' && (arch == 90 || arch >= 100)) || (suffix == 'f' && arch >= 100);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  static const int ccs[] = {0, 10, 53, 70, 75, 80, 86, 89, 90, 100, 120, 121, 999, -1, 1000};
  if (size < 3) return 0;
  tcmma_arch_support s = {.archs = {75, 80, 86, 87, 88, 89, 90, 100, 103, 110, 120, 121},
                          .count = 12, .accepts = accepts};
  int cc = ccs[data[0] % (sizeof ccs / sizeof ccs[0])];
  tcmma_target target = (tcmma_target)(data[1] % 4); /* 3 is out of range */
  size_t cap = data[2] % (TCMMA_ARCH_MAX_MARKERS + 1);
  const char *src = (const char *)data + 3;
  size_t len = size - 3;
  tcmma_arch_options o;
  tcmma_error err;
  tcmma_arch_decide(src, len, cc, target, &s, &o, &err);
  tcmma_marker_hit hits[TCMMA_ARCH_MAX_MARKERS];
  int floor = 0;
  tcmma_source_markers(src, len, cap ? hits : NULL, cap, &floor);
  char *text = malloc(len + 1); /* the target's name, as text */
  if (text) {
    memcpy(text, src, len);
    text[len] = '\0';
    tcmma_target t;
    tcmma_target_parse(text, &t, &err);
    free(text);
  }
  return 0;
}
