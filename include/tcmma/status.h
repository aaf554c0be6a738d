/* Errors as values: every fallible tcmma function returns a tcmma_status and,
 * when given a non-NULL tcmma_error, leaves a message there naming the bad
 * value and what was expected. The library never prints or exits. */
#ifndef TCMMA_STATUS_H
#define TCMMA_STATUS_H

#include <stdarg.h>

#ifdef __cplusplus
extern "C" {
#endif
#pragma GCC visibility push(default) /* public: the library builds with -fvisibility=hidden */

typedef enum {
#define TCMMA_STATUS(ID, value, ...) TCMMA_##ID = (value),
#include "tables/status.def"
#undef TCMMA_STATUS
  /* the number of rows (the values: 0..COUNT-1 in any row order, mma/abi_values.c) */
  TCMMA_STATUS_COUNT = 0
#define TCMMA_STATUS(...) +1
#include "tables/status.def"
#undef TCMMA_STATUS
} tcmma_status;

#define TCMMA_ERROR_MAX 1024

typedef struct {
  tcmma_status status;
  char message[TCMMA_ERROR_MAX];
} tcmma_error;

/* Short name of a status ("ok", "floor", ...); "unknown" when out of range. */
const char *tcmma_status_name(tcmma_status status);

/* One-line meaning of a status; "unknown status" when out of range. */
const char *tcmma_status_meaning(tcmma_status status);

/* Records status and a printf-style message in err (when err is non-NULL)
 * and returns status, so callers can `return tcmma_fail(err, ...)`. */
tcmma_status tcmma_fail(tcmma_error *err, tcmma_status status, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));

/* Clears err to TCMMA_OK with an empty message; NULL is allowed. */
void tcmma_error_clear(tcmma_error *err);

#pragma GCC visibility pop
#ifdef __cplusplus
}
#endif

#endif
