/* The --arch option of tcmma compile. */
#ifndef TCMMA_CLI_ARCH_H
#define TCMMA_CLI_ARCH_H

#include <stdbool.h>
#include "tcmma/status.h"

/* Parses "compute_<N>[a|f]" (PTX) or "sm_<N>[a|f]" (a CUBIN: *sass true)
 * into *arch and *suffix (0, 'a' or 'f'); TCMMA_INVALID naming the text and
 * both forms otherwise. Whether NVRTC compiles for it is the compile's to say. */
tcmma_status cli_parse_arch(const char *text, int *arch, char *suffix, bool *sass, tcmma_error *err);

#endif
