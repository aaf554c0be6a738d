/* PTX read as it arrives: one buffer takes a chunk at a time, the reader
 * reads the whole statements in it, and what is left (the statement cut at
 * the chunk's end) moves to the buffer's start for the next chunk to
 * complete. Memory stays a chunk and the longest statement, and the input
 * is read once: the page cache copied into a buffer that stays in the CPU's
 * cache, no large allocation's fresh pages to fault in and clear, and no
 * mapping (a mapped file truncated meanwhile kills the process: SIGBUS). */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "tcmma/ptx.h"
#include "nvrtc/ptx/reader.h"

/* 1 MiB: fewer read calls than 256 KiB, still in a large cache; measured
 * in docs/ptx.md (Speed). */
enum { CHUNK = 1 << 20 };

/* The input in hand: buf[0..have) of cap, total bytes read so far. */
typedef struct {
  char *buf;
  size_t cap, have, total;
} window;

/* Room for want more bytes after what is in hand. */
static bool room(window *w, size_t want) {
  if (w->cap - w->have >= want) return true;
  char *grown = realloc(w->buf, w->have + want);
  if (!grown) return false;
  w->buf = grown, w->cap = w->have + want;
  return true;
}

tcmma_status tcmma__ptx_parse_chunked(tcmma_ptx_read_fn read, void *ctx, size_t chunk,
                                      tcmma_ptx_info *info, tcmma_error *err) {
  if (!info) return tcmma_fail(err, TCMMA_INVALID, "tcmma_ptx_parse_stream: info is NULL");
  memset(info, 0, sizeof *info);
  if (!read) return tcmma_fail(err, TCMMA_INVALID, "tcmma_ptx_parse_stream: read is NULL");
  if (!chunk) chunk = CHUNK;
  tcmma__ptx_reader r;
  tcmma__ptx_reader_init(&r, info, err);
  window w = {0};
  size_t want = chunk;
  bool any_text = false, failed = false; /* failed: the reader stopped at an error */
  tcmma_status s = TCMMA_OK;
  for (;;) {
    if (!room(&w, want)) {
      s = tcmma_fail(err, TCMMA_NO_MEMORY, "out of memory reading PTX: %zu bytes in hand", w.have + want);
      break;
    }
    errno = 0;
    long got = read(ctx, w.buf + w.have, want);
    if (got < 0 || (size_t)got > want) {
      int e = errno;
      s = got < 0 ? tcmma_fail(err, TCMMA_IO, "reading PTX failed after %zu bytes%s%s", w.total,
                               e ? ": " : "", e ? strerror(e) : "")
                  : tcmma_fail(err, TCMMA_INVALID,
                               "tcmma_ptx_parse_stream: read gave %ld bytes for room of %zu", got,
                               want);
      break;
    }
    const char *fresh = w.buf + w.have;
    if ((s = tcmma__ptx_check_bytes(fresh, (size_t)got, w.total, &r.lines_in_hand, err)) !=
        TCMMA_OK)
      break;
    if (!any_text) any_text = tcmma__ptx_any_text(fresh, (size_t)got);
    w.total += (size_t)got;
    if (got == 0) { /* the end: what is in hand is the rest of the module */
      if (!failed && any_text) tcmma__ptx_read_all(&r, w.buf, w.have);
      tcmma_status done = tcmma__ptx_finish(&r, w.total, any_text);
      free(w.buf);
      if (done == TCMMA_OK) tcmma_error_clear(err);
      return done;
    }
    if (failed) continue; /* the rest is only looked at for control bytes, which come first */
    w.have += (size_t)got;
    tcmma__ptx_read_more(&r, w.buf, w.have);
    if (r.status == TCMMA_NO_MEMORY) {
      s = tcmma__ptx_finish(&r, w.total, true);
      free(w.buf);
      return s;
    }
    if (r.status != TCMMA_OK) { /* a failure no later text changes */
      failed = true, w.have = 0;
      continue;
    }
    size_t cut = r.pos;
    tcmma__ptx_drop(&r, cut);
    memmove(w.buf, w.buf + cut, w.have - cut);
    w.have -= cut;
    /* a statement longer than a chunk: read as much again as is in hand,
     * so it is read again a few times, not once per chunk */
    want = w.have > chunk ? w.have : chunk;
  }
  tcmma__ptx_reader_free(&r);
  free(w.buf);
  return s;
}

tcmma_status tcmma_ptx_parse_stream(tcmma_ptx_read_fn read, void *ctx, tcmma_ptx_info *info,
                                    tcmma_error *err) {
  return tcmma__ptx_parse_chunked(read, ctx, CHUNK, info, err);
}

static long read_fd(void *ctx, char *buf, size_t cap) {
  for (;;) {
    ssize_t got = read(*(const int *)ctx, buf, cap);
    if (got >= 0 || errno != EINTR) return (long)got;
  }
}

tcmma_status tcmma_ptx_parse_fd(int fd, tcmma_ptx_info *info, tcmma_error *err) {
  return tcmma_ptx_parse_stream(read_fd, &fd, info, err);
}
