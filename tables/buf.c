/* Growable text buffer. */
#include "tcmma/buf.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static bool reserve(tcmma_buf *b, size_t extra) {
  if (b->failed) return false;
  /* len + extra + 1 must not wrap: a wrapped sum would pass the test below */
  if (extra > (size_t)-1 - b->len - 1) return b->failed = true, false;
  if (b->len + extra + 1 <= b->cap) return true;
  size_t cap = b->cap ? b->cap : 256;
  while (cap < b->len + extra + 1) {
    if (cap > ((size_t)-1) / 2) return b->failed = true, false;
    cap *= 2;
  }
  char *grown = realloc(b->data, cap);
  if (!grown) return b->failed = true, false;
  b->data = grown;
  b->cap = cap;
  return true;
}

void tcmma_buf_append(tcmma_buf *b, const char *s, size_t n) {
  if (!b) return;
  if (!s && n) { /* nothing to copy from: the text would lie, so the buffer fails */
    b->failed = true;
    return;
  }
  if (!n || !reserve(b, n)) return;
  memcpy(b->data + b->len, s, n);
  b->len += n;
  b->data[b->len] = '\0';
}

void tcmma_buf_printf(tcmma_buf *b, const char *fmt, ...) {
  if (!b) return;
  if (!fmt) {
    b->failed = true;
    return;
  }
  va_list ap;
  va_start(ap, fmt);
  char small[256];
  int n = vsnprintf(small, sizeof small, fmt, ap);
  va_end(ap);
  if (n < 0) {
    b->failed = true;
    return;
  }
  if ((size_t)n < sizeof small) {
    tcmma_buf_append(b, small, (size_t)n);
    return;
  }
  if (!reserve(b, (size_t)n)) return;
  va_start(ap, fmt);
  vsnprintf(b->data + b->len, (size_t)n + 1, fmt, ap);
  va_end(ap);
  b->len += (size_t)n;
}

const char *tcmma_buf_str(const tcmma_buf *b) { return b && b->data ? b->data : ""; }

void tcmma_buf_free(tcmma_buf *b) {
  if (!b) return;
  free(b->data);
  memset(b, 0, sizeof *b);
}
