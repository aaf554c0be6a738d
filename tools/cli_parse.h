/* The CLI's text forms of library values: operand SPECs and compute
 * capabilities given as arguments. Errors as values, as in the library. */
#ifndef TCMMA_CLI_PARSE_H
#define TCMMA_CLI_PARSE_H

#include "tcmma/plan.h"

/* Parses an operand SPEC `PREC[,t][,ld=N][,global|shared|thread]
 * [,plain|swizzled|swizzle=32|64|128][,at=ROW0:COL0][,sld=N]` into *out
 * (defaults: not transposed, dense, global, plain, origin 0:0; swizzled is
 * swizzle=128; sld, a block-scaled precision's scale_ld: dense; the scale
 * pointer expression is the caller's).
 * TCMMA_INVALID naming the bad piece and the expected spellings otherwise. */
tcmma_status cli_parse_operand_spec(const char *spec, tcmma_operand_desc *out, tcmma_error *err);

/* Parses a decimal compute capability ("80") with the one number parser
 * (tables/decimal.h) into *out and checks it as tcmma_cc_check does;
 * TCMMA_INVALID naming the text otherwise (NULL, "", "abc", "8x", "-1",
 * "+80", "080", "99999"). */
tcmma_status cli_parse_cc(const char *text, int *out, tcmma_error *err);

#endif
