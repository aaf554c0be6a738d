/* A compiled program's storage, shared by NVRTC (which fills one), the
 * compile driver and the target records (which copy one). */
#include <stdlib.h>
#include <string.h>
#include "nvrtc/internal.h"

void tcmma_program_free(tcmma_program *p) {
  if (!p) return;
  for (size_t i = 0; i < p->n_options; i++) free(p->options[i]);
  free(p->options), free(p->name), free(p->ptx), free(p->cubin), free(p->log);
  free(p->cache_note);
  memset(p, 0, sizeof *p);
}

char *tcmma__compile_strdup(const char *s) {
  if (!s) return NULL;
  size_t n = strlen(s) + 1;
  char *d = malloc(n);
  if (d) memcpy(d, s, n);
  return d;
}
