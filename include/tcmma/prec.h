/* Storage precisions (tables/prec.def). */
#ifndef TCMMA_PREC_H
#define TCMMA_PREC_H

#include <stdbool.h>
#include "tcmma/status.h"

#ifdef __cplusplus
extern "C" {
#endif
#pragma GCC visibility push(default) /* public: the library builds with -fvisibility=hidden */

typedef enum {
#define TCMMA_PREC(ID, value, ...) TCMMA_PREC_##ID = (value),
#include "tables/prec.def"
#undef TCMMA_PREC
  /* the number of rows (the values: 0..COUNT-1 in any row order, mma/abi_values.c) */
  TCMMA_PREC_COUNT = 0
#define TCMMA_PREC(...) +1
#include "tables/prec.def"
#undef TCMMA_PREC
} tcmma_prec;

/* Parses a precision name ("f32", "bf16", "e4m3", ...) into *out.
 * TCMMA_INVALID (naming the value and listing the valid names) otherwise. */
tcmma_status tcmma_prec_parse(const char *name, tcmma_prec *out, tcmma_error *err);

/* The name of p; "?" when p is out of range. */
const char *tcmma_prec_name(tcmma_prec p);

/* Whether p holds integers (s8, u8, s32); false when out of range. */
bool tcmma_prec_is_integer(tcmma_prec p);

/* Whether p is block-scaled storage (mxe4m3, mxe5m2, mxf4, mxe2m3, mxe3m2
 * with ue8m0 scales; nvf4 with ue4m3 scales): its elements come with block
 * scales given apart (tcmma_operand_desc scale); false when out of range. */
bool tcmma_prec_is_scaled(tcmma_prec p);

/* The type of p's block scales: "ue8m0", "ue4m3" (nvf4), "" for unscaled
 * storage or p out of range. */
const char *tcmma_prec_scale_type(tcmma_prec p);

/* Storage width of one element in bits / bytes; 0 when p is out of range. */
int tcmma_prec_bits(tcmma_prec p);
int tcmma_prec_bytes(tcmma_prec p);

/* CUDA C element type, mma.sync type suffix, widening and narrowing
 * intrinsics of p ("" where the table has none; "?" when out of range). */
const char *tcmma_prec_cuda_type(tcmma_prec p);
const char *tcmma_prec_ptx_type(tcmma_prec p);
const char *tcmma_prec_to_f32(tcmma_prec p);
const char *tcmma_prec_from_f32(tcmma_prec p);

/* The CUDA pair type of p (two adjacent elements as one access aligned to
 * its size: "float2", "__half2"), the intrinsic widening a pair to float2
 * ("" for float2 itself) and the one packing two floats into a pair ("" for
 * all three when p has no pair; "?" when out of range). */
const char *tcmma_prec_pair_type(tcmma_prec p);
const char *tcmma_prec_pair_to_f32(tcmma_prec p);
const char *tcmma_prec_pair_from_f32(tcmma_prec p);

/* The CUDA header a kernel includes to use p's type and intrinsics
 * ("cuda_fp16.h"; "" for a built-in type; "?" when out of range). */
const char *tcmma_prec_header(tcmma_prec p);

/* Writes the valid names, space-separated, into buf (for messages). */
void tcmma_prec_list(char *buf, unsigned cap);

#pragma GCC visibility pop
#ifdef __cplusplus
}
#endif

#endif
