/* The one parser of decimal numbers in text (CLI options, operand specs,
 * environment variables), so that a number reads the same everywhere. Not
 * public. */
#ifndef TCMMA_MMA_DECIMAL_H
#define TCMMA_MMA_DECIMAL_H

#include <stdbool.h>

/* Parses text as a decimal integer in [lo, hi] into *out (may be NULL):
 * digits only, '-' first only when lo < 0, no '+', blanks or leading zeros,
 * never "-0". false for NULL, "" and anything else (nothing written). */
bool tcmma__table_decimal(const char *text, long long lo, long long hi, long long *out);

#endif
