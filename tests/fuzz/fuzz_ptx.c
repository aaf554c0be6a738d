/* libFuzzer target: the PTX reader (nvrtc/ptx/reader.c) on arbitrary bytes,
 * then everything that reads its result. No input may crash, leak or hit
 * undefined behaviour; a failure must be an error status. The streaming
 * read (nvrtc/ptx/stream.c), in chunks of 1 to 8 bytes, must give the same
 * status and message, and so must the reader's portable build (no SSE2,
 * no AVX2: the Makefile builds it as tcmma_ptx_parse_scalar, see
 * tests/ptx_variant.h), with the same counts. */
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include "tcmma/ptx.h"
#include "nvrtc/ptx/reader.h"

typedef struct {
  const uint8_t *data;
  size_t size, at;
} source;

static long source_read(void *ctx, char *buf, size_t cap) {
  source *s = ctx;
  size_t n = s->size - s->at < cap ? s->size - s->at : cap;
  memcpy(buf, s->data + s->at, n);
  s->at += n;
  return (long)n;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);
tcmma_status tcmma_ptx_parse_scalar(const char *text, size_t len, tcmma_ptx_info *info,
                                    tcmma_error *err);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  tcmma_ptx_info info, streamed;
  tcmma_error err, serr;
  tcmma_status st = tcmma_ptx_parse((const char *)data, size, &info, &err);
  source src = {data, size, 0};
  tcmma_status ss = tcmma__ptx_parse_chunked(source_read, &src, 1 + size % 8, &streamed, &serr);
  /* what a failed read left in info is not part of its result */
  if (ss != st || (st != TCMMA_OK && strcmp(err.message, serr.message) != 0) ||
      (st == TCMMA_OK && (streamed.instruction_count != info.instruction_count ||
                          streamed.census_count != info.census_count)))
    abort(); /* the streaming read differs from the whole-text one */
  tcmma_ptx_info_free(&streamed);
  ss = tcmma_ptx_parse_scalar((const char *)data, size, &streamed, &serr);
  if (ss != st || (st != TCMMA_OK && strcmp(err.message, serr.message) != 0) ||
      (st == TCMMA_OK && (streamed.instruction_count != info.instruction_count ||
                          streamed.census_count != info.census_count ||
                          streamed.entry_count != info.entry_count)))
    abort(); /* the portable build reads otherwise */
  for (size_t i = 0; st == TCMMA_OK && i < info.census_count; i++)
    if (strcmp(streamed.census[i].opcode, info.census[i].opcode) != 0 ||
        streamed.census[i].count != info.census[i].count)
      abort();
  tcmma_ptx_info_free(&streamed);
  if (st == TCMMA_OK) {
    char required[48];
    tcmma_ptx_required_text(&info, required, sizeof required);
    tcmma_ptx_check_target(&info, &err);
    tcmma_ptx_count(&info, "mma");
    for (size_t i = 0; i < info.census_count; i++) tcmma_ptx_feature_for(info.census[i].opcode);
  }
  tcmma_ptx_info_free(&info);
  return 0;
}
