/* libFuzzer target: the PTX reader (nvrtc/ptx/reader.c) on arbitrary bytes,
 * then everything that reads its result. No input may crash, leak or hit
 * undefined behaviour; a failure must be an error status. */
#include <stddef.h>
#include <stdint.h>
#include "tcmma/ptx.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  tcmma_ptx_info info;
  tcmma_error err;
  if (tcmma_ptx_parse((const char *)data, size, &info, &err) == TCMMA_OK) {
    char required[48];
    tcmma_ptx_required_text(&info, required, sizeof required);
    tcmma_ptx_check_target(&info, &err);
    tcmma_ptx_count(&info, "mma");
    for (size_t i = 0; i < info.census_count; i++) tcmma_ptx_feature_for(info.census[i].opcode);
  }
  tcmma_ptx_info_free(&info);
  return 0;
}
