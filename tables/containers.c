/* Element containers of the f8f6f4 arms, from tables/containers.def. */
#include "tables/containers.h"

int tcmma__table_container_lsb(tcmma_arm arm, tcmma_prec prec) {
#define TCMMA_CONTAINER(ARM, PREC, lsb) \
  if (arm == TCMMA_ARM_##ARM && prec == TCMMA_PREC_##PREC) return lsb;
#include "tables/containers.def"
#undef TCMMA_CONTAINER
  return 0;
}
