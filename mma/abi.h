/* Taking a caller's size-carrying struct (docs/design.md §15). */
#ifndef TCMMA_MMA_ABI_H
#define TCMMA_MMA_ABI_H

#include <stddef.h>
#include "tcmma/status.h"

/* Copies the caller's struct `in`, whose first field (size_t) is the sizeof
 * the caller was built with, into `out`, a whole struct of this library's
 * `full` bytes: `defaults` first, then the caller's `size` bytes over them,
 * so a caller built against older headers (a smaller struct) gets the
 * defaults for the fields it does not know; out's size becomes full.
 * TCMMA_INVALID naming the struct (`name`), both sizes and how to set the
 * size (`init`) when size is 0 (never initialised), below a size_t, or
 * above full (built against newer headers than the library). */
tcmma_status tcmma__abi_take(void *out, const void *in, size_t full, const void *defaults,
                             const char *name, const char *init, tcmma_error *err);

#endif
