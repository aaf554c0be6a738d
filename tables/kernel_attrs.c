/* Kernel attribute facts (tables/kernel_attrs.def): one row per attribute. */
#include "tcmma/kernel_attrs.h"

/* Indexed by value (a row's value column, not its position): [value] = row. */
static const tcmma_kernel_attr_info rows[TCMMA_KERNEL_ATTR_COUNT] = {
#define TCMMA_KERNEL_ATTR(ID, value, cuda, host, floor, suffix, lo, hi, step, directive) \
  [value] = {#ID, cuda, host, floor, (tcmma_ptx_suffix)(suffix), lo, hi, step, directive},
#include "tables/kernel_attrs.def"
#undef TCMMA_KERNEL_ATTR
};

const tcmma_kernel_attr_info *tcmma_kernel_attr_get(tcmma_kernel_attr a) {
  return (unsigned)a < TCMMA_KERNEL_ATTR_COUNT ? &rows[a] : NULL;
}
