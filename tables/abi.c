/* The ABI facts of tables/abi.def, measured where the library is built. The
 * simulator's config is measured from its header alone (no sim code here). */
#include "tcmma/abi.h"

#include "tcmma/sim.h"
#include "tcmma/tcmma.h"

typedef struct {
  const char *name;
  long value;
} abi_fact;

static const abi_fact facts[] = {
#define TCMMA_ABI_SIZE(type) {#type, (long)sizeof(type)},
#define TCMMA_ABI_COUNT(constant) {#constant, (long)(constant)},
#include "tables/abi.def"
#undef TCMMA_ABI_SIZE
#undef TCMMA_ABI_COUNT
};

const char *tcmma_version(void) { return TCMMA_VERSION; }

bool tcmma_abi_fact(size_t i, const char **name, long *value) {
  if (i >= sizeof facts / sizeof facts[0] || !name || !value) return false;
  *name = facts[i].name;
  *value = facts[i].value;
  return true;
}
