/* tcmma gemm --tune (tools/cmd_gemm_tune.c). */
#ifndef TCMMA_CMD_GEMM_TUNE_H
#define TCMMA_CMD_GEMM_TUNE_H

#include <stdbool.h>
#include "tcmma/gemm.h"

/* Tunes base's problem (its sizes, precisions, orientations, ld's, budget
 * and cc; its tile, warps and stages are the tuner's to choose): compiles
 * the best `keep` candidates of the static model in one batch and prints
 * them ranked, as a table or (json) JSON. The exit status: 0, 3 when no
 * configuration is accepted, 1 when the compile fails. */
int gemm_tune(const tcmma_gemm_call *base, int keep, bool json);

#endif
