/* A growable text buffer: what the renderers write into. */
#ifndef TCMMA_BUF_H
#define TCMMA_BUF_H

#include <stdbool.h>
#include <stddef.h>

#ifdef __cplusplus
extern "C" {
#endif
#pragma GCC visibility push(default) /* public: the library builds with -fvisibility=hidden */

typedef struct {
  char *data;  /* NUL-terminated (NULL until the first write) */
  size_t len;
  size_t cap;
  bool failed; /* an allocation failed: data holds what fit */
} tcmma_buf;

/* Appends printf-formatted text; on allocation failure (or a NULL fmt) sets
 * b->failed. A NULL b is ignored. */
void tcmma_buf_printf(tcmma_buf *b, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

/* Appends n bytes of s; s NULL with n > 0 sets b->failed (nothing to copy),
 * and a NULL b is ignored. */
void tcmma_buf_append(tcmma_buf *b, const char *s, size_t n);

/* The text so far ("" when empty or b is NULL). */
const char *tcmma_buf_str(const tcmma_buf *b);

/* Frees the storage and resets b to empty; NULL is ignored, like free(NULL). */
void tcmma_buf_free(tcmma_buf *b);

#pragma GCC visibility pop
#ifdef __cplusplus
}
#endif

#endif
