/* Element containers of the f8f6f4 arms (tables/containers.def). */
#ifndef TCMMA_TABLES_CONTAINERS_H
#define TCMMA_TABLES_CONTAINERS_H

#include "tcmma/arm.h"
#include "tcmma/prec.h"

/* The register container bit where an element of precision prec sits in
 * arm's fragments (the left shift its loads take); 0 without a row. */
int tcmma__table_container_lsb(tcmma_arm arm, tcmma_prec prec);

#endif
