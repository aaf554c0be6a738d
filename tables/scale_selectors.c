/* The block-scaled arms' selectors, from tables/scale_selectors.def. */
#include "tables/scale_selectors.h"

#include <stddef.h>

static const tcmma__table_scale_selector rows[] = {
#define TCMMA_SCALE_SELECTOR(blocks, byte_id, thread_a, thread_b) \
  {blocks, byte_id, thread_a, thread_b},
#include "tables/scale_selectors.def"
#undef TCMMA_SCALE_SELECTOR
};

const tcmma__table_scale_selector *tcmma__table_scale_selector_of(int blocks) {
  for (size_t i = 0; i < sizeof rows / sizeof rows[0]; i++)
    if (rows[i].blocks == blocks) return &rows[i];
  return NULL;
}
