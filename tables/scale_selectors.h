/* The block-scaled arms' selectors (tables/scale_selectors.def). */
#ifndef TCMMA_TABLES_SCALE_SELECTORS_H
#define TCMMA_TABLES_SCALE_SELECTORS_H

typedef struct {
  int blocks, byte_id, thread_id_a, thread_id_b;
} tcmma__table_scale_selector;

/* The row of an mma taking `blocks` scales a row (1, 2 or 4); NULL for
 * any other count. */
const tcmma__table_scale_selector *tcmma__table_scale_selector_of(int blocks);

#endif
