/* Taking a caller's size-carrying struct: mma/abi.h. */
#include <string.h>
#include "abi.h"

tcmma_status tcmma__abi_take(void *out, const void *in, size_t full, const void *defaults,
                             const char *name, const char *init, tcmma_error *err) {
  size_t size;
  memcpy(&size, in, sizeof size);
  if (size == 0)
    return tcmma_fail(err, TCMMA_INVALID, "%s.size is 0: start the struct with %s (this "
                      "library's %s has %zu bytes)", name, init, name, full);
  if (size < sizeof(size_t))
    return tcmma_fail(err, TCMMA_INVALID, "%s.size is %zu, below its own field (%zu bytes): "
                      "start the struct with %s", name, size, sizeof(size_t), init);
  if (size > full)
    return tcmma_fail(err, TCMMA_INVALID, "%s.size is %zu, larger than this library's %s "
                      "(%zu bytes): the caller was built against newer tcmma headers than the "
                      "library it runs with", name, size, name, full);
  if (out != defaults) memcpy(out, defaults, full);
  memmove(out, in, size);
  memcpy(out, &full, sizeof full);
  return TCMMA_OK;
}
