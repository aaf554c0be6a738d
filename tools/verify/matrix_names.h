/* The short names the matrix's tables are written in (tools/verify/matrix*.c
 * only): precisions, arms, declines and policies as the rows spell them. */
#ifndef TCMMA_VERIFY_MATRIX_NAMES_H
#define TCMMA_VERIFY_MATRIX_NAMES_H

#define NONE_ARM TCMMA_ARM_NONE
#define OK_ TCMMA_DECLINE_NONE
#define COUNT(x) ((int)(sizeof(x) / sizeof((x)[0])))
#define P(x) TCMMA_PREC_##x
#define A(x) TCMMA_ARM_##x
#define D(x) TCMMA_DECLINE_##x
#define W TCMMA_FP16_WIDE
#define N TCMMA_FP16_NARROW
#define PTX TCMMA_PREFER_PTX
#define WMMA TCMMA_PREFER_WMMA

#endif
