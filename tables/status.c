/* Status names and the error-recording helper. */
#include "tcmma/status.h"

#include <stdio.h>

/* Indexed by value (a row's value column, not its position). */
static const char *const status_names[TCMMA_STATUS_COUNT] = {
#define TCMMA_STATUS(ID, value, name, meaning) [value] = name,
#include "tables/status.def"
#undef TCMMA_STATUS
};

static const char *const status_meanings[TCMMA_STATUS_COUNT] = {
#define TCMMA_STATUS(ID, value, name, meaning) [value] = meaning,
#include "tables/status.def"
#undef TCMMA_STATUS
};

const char *tcmma_status_name(tcmma_status status) {
  if ((unsigned)status >= TCMMA_STATUS_COUNT) return "unknown";
  return status_names[status];
}

const char *tcmma_status_meaning(tcmma_status status) {
  if ((unsigned)status >= TCMMA_STATUS_COUNT) return "unknown status";
  return status_meanings[status];
}

tcmma_status tcmma_fail(tcmma_error *err, tcmma_status status, const char *fmt, ...) {
  if (err) {
    va_list ap;
    va_start(ap, fmt);
    err->status = status;
    vsnprintf(err->message, sizeof err->message, fmt, ap);
    va_end(ap);
  }
  return status;
}

void tcmma_error_clear(tcmma_error *err) {
  if (!err) return;
  err->status = TCMMA_OK;
  err->message[0] = '\0';
}
