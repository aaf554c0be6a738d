/* The streaming PTX read (nvrtc/ptx/stream.c, docs/ptx.md) against the
 * whole-text parse: every module of tests/data's corpus read in chunks of
 * 1, 2, 3, 7, 16, 61 and 4096 bytes (so every statement, comment, string
 * and directive is cut somewhere), and through a source that hands over
 * one byte per call, must read as the whole text does; cut short at many
 * points, or with a byte spoiled, it must fail with the very status and
 * message the whole text gets. File descriptors and sources that fail give
 * TCMMA_IO naming why, and memory stays a chunk for a large module. */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "util.h"
#include "tcmma/tcmma.h"
#include "nvrtc/ptx/reader.h"


/* A source over text in memory handing over at most most bytes a call;
 * it notes the largest room it was offered, and fails after fail_at bytes
 * when fail_at is not SIZE_MAX. */
typedef struct {
  const char *text;
  size_t len, at, most, fail_at, largest_room;
} source;

static long source_read(void *ctx, char *buf, size_t cap) {
  source *s = ctx;
  if (cap > s->largest_room) s->largest_room = cap;
  if (s->at >= s->fail_at) return errno = EIO, -1;
  size_t n = s->len - s->at;
  if (n > cap) n = cap;
  if (n > s->most) n = s->most;
  memcpy(buf, s->text + s->at, n);
  s->at += n;
  return (long)n;
}

static source over(const char *text, size_t len, size_t most) {
  return (source){text, len, 0, most, SIZE_MAX, 0};
}

/* text[0..len) read in chunks of chunk bytes from a source handing over
 * most a call must read as the whole text: the same status and message, or
 * the same module. Returns the status. */
static tcmma_status alike(const char *text, size_t len, size_t chunk, size_t most,
                          const char *name) {
  tcmma_ptx_info whole, part;
  tcmma_error we, pe;
  tcmma_status ws = tcmma_ptx_parse(text, len, &whole, &we);
  source s = over(text, len, most);
  tcmma_status ps = tcmma__ptx_parse_chunked(source_read, &s, chunk, &part, &pe);
  char how[96];
  snprintf(how, sizeof how, "(%zu bytes) in chunks of %zu, %zu a read", len, chunk, most);
  if (ws != ps) fail_msg("%s %s: status %d (%s), the whole text %d (%s)", name, how, ps,
                         ps ? pe.message : "", ws, ws ? we.message : "");
  if (ws != TCMMA_OK && strcmp(we.message, pe.message) != 0)
    fail_msg("%s %s: '%s', the whole text '%s'", name, how, pe.message, we.message);
  if (ws == TCMMA_OK) ptx_info_same(&whole, &part, name, how);
  tcmma_ptx_info_free(&whole), tcmma_ptx_info_free(&part);
  return ws;
}

static const size_t chunks[] = {1, 2, 3, 7, 16, 61, 4096};

/* Every module, whole, in every chunk size and one byte a read. */
static void corpus_alike_in_chunks(void **state) {
  (void)state;
  size_t reads = 0, ok = 0;
  for (size_t k = 0; k < ptx_corpus_count; k++) {
    for (size_t c = 0; c < sizeof chunks / sizeof chunks[0]; c++, reads++)
      ok += alike(ptx_corpus[k].text, ptx_corpus[k].len, chunks[c], SIZE_MAX, ptx_corpus[k].name) == TCMMA_OK;
    alike(ptx_corpus[k].text, ptx_corpus[k].len, 1 << 20, 1, ptx_corpus[k].name), reads++;
  }
  print_message("ptx stream: %zu reads of %zu modules alike (%zu parsed)\n", reads, ptx_corpus_count, ok);
  assert_true(ok >= 10 * 7);
}

/* Each module cut short at 40 points (and a byte or two either side of
 * each), and with a byte at those points spoiled (a control byte, a '}',
 * a '"', a '/', a '.'), fails or reads as the whole text does. */
static void cut_and_spoiled_alike(void **state) {
  (void)state;
  static const char spoil[] = {'\x01', '}', '"', '/', '.', '{', ';'};
  size_t cases = 0, failed = 0;
  for (size_t k = 0; k < ptx_corpus_count; k++) {
    ptx_module *m = &ptx_corpus[k];
    char *copy = malloc(m->len + 1);
    assert_non_null(copy);
    for (size_t p = 0; p < 40; p++) {
      size_t at = m->len * p / 40;
      for (size_t d = 0; d < 3 && at + d <= m->len; d++, cases++)
        failed += alike(m->text, at + d, chunks[(p + d) % 7], SIZE_MAX, m->name) != TCMMA_OK;
      if (at >= m->len) continue;
      memcpy(copy, m->text, m->len);
      copy[at] = spoil[p % sizeof spoil];
      failed += alike(copy, m->len, chunks[p % 7], SIZE_MAX, m->name) != TCMMA_OK, cases++;
    }
    free(copy);
  }
  print_message("ptx stream: %zu cut or spoiled texts alike, %zu of them failures\n", cases,
                failed);
  assert_true(failed > cases / 2);
}

/* Small texts whose failure sits at a chunk's end: a directive's number
 * cut, a '/' that may start a comment, a failure and a control byte after
 * it (the control byte is reported, as for the whole text). */
static void edge_texts_alike(void **state) {
  (void)state;
  static const char *const texts[] = {
      "",
      " \n\t ",
      ".version 8.7\n.target sm_90a\n.address_size 64\n",
      ".version 8.\n.target sm_80\n",
      ".version 8.7/\n.target sm_80\n",
      ".version 8.7//x\n.target sm_80\n",
      ".version 8.7 /* a\nb */ .target sm_80\n",
      ".version 8.7\n.target sm_80, debug, texmode_independent\n.address_size 6",
      ".version 8.7\n.target sm_80\n.address_size 64\n.entry k ( .param .u64 p ) { ret; }",
      ".version 8.7\n.target sm_80\n}\n",
      ".version 8.7\n.target sm_80\n}\n\x02",
      ".version 8.7\n.target sm_80\n.entry k() { { { mov.b32 %r1, 1;\n",
      ".version 8.7\n.target sm_80\n.global .b8 s[3] = {1, 2, 3};\n.entry k() { l:: ret; }",
      ".version 8.7\n.target sm_80\n.entry k() { a: \n : ret; \"x\\\"y\" ; }",
      ".version 8.7\n.target sm_80\n.entry k() { @%p1 bra L; @!%p2 ret; /* x */ }",
      ".version 8.7\n.target sm_80\n.entry k() { /* never closed",
      ".version 8.7\n.target sm_80\n.entry k() { mov.b32 %r1, \"x",
      ".version 8.7\n.target sm_80\n.target sm_90\n",
      ".target sm_80\n",
  };
  for (size_t i = 0; i < sizeof texts / sizeof texts[0]; i++)
    for (size_t c = 0; c < sizeof chunks / sizeof chunks[0]; c++)
      for (size_t most = 1; most <= 3; most += 2)
        alike(texts[i], strlen(texts[i]), chunks[c], most == 3 ? SIZE_MAX : most, texts[i]);
}

/* Random bytes, printable and not, read alike. */
static void garbage_alike(void **state) {
  (void)state;
  uint64_t x = 0x9e3779b97f4a7c15ull;
  char buf[600];
  for (int t = 0; t < 300; t++) {
    size_t len = (size_t)(t * 2);
    for (size_t i = 0; i < len; i++) {
      x = x * 6364136223846793005ull + 1442695040888963407ull;
      unsigned b = (unsigned)(x >> 56);
      buf[i] = t % 3 ? " \n.;{}/*\"@%:abcmov.b32sm_80 versiontarget"[b % 41] : (char)b;
    }
    alike(buf, len, chunks[t % 7], SIZE_MAX, "garbage");
  }
}

/* parse_fd on a file reads as the whole text; on a directory, a closed
 * descriptor and a source that fails: TCMMA_IO with the reason; a source
 * that gives more than it was offered, NULL arguments: TCMMA_INVALID. */
static void files_and_failures(void **state) {
  (void)state;
  ptx_module *m = &ptx_corpus[0];
  for (size_t k = 1; k < ptx_corpus_count; k++)
    if (ptx_corpus[k].len > m->len) m = &ptx_corpus[k];
  int fd = open(src_path(m->name), O_RDONLY);
  assert_true(fd >= 0);
  tcmma_ptx_info a, b;
  tcmma_error err;
  assert_int_equal(tcmma_ptx_parse_fd(fd, &b, &err), TCMMA_OK);
  close(fd);
  assert_int_equal(tcmma_ptx_parse(m->text, m->len, &a, &err), TCMMA_OK);
  ptx_info_same(&a, &b, m->name, "from its file");
  tcmma_ptx_info_free(&a), tcmma_ptx_info_free(&b);

  fd = open(src_path("tests/data"), O_RDONLY | O_DIRECTORY);
  assert_true(fd >= 0);
  assert_int_equal(tcmma_ptx_parse_fd(fd, &b, &err), TCMMA_IO);
  assert_non_null(strstr(err.message, strerror(EISDIR)));
  tcmma_ptx_info_free(&b);
  close(fd);
  assert_int_equal(tcmma_ptx_parse_fd(fd, &b, &err), TCMMA_IO); /* closed now */
  assert_non_null(strstr(err.message, strerror(EBADF)));
  tcmma_ptx_info_free(&b);

  source s = over(m->text, m->len, SIZE_MAX);
  s.fail_at = 5000;
  assert_int_equal(tcmma__ptx_parse_chunked(source_read, &s, 4096, &b, &err), TCMMA_IO);
  assert_non_null(strstr(err.message, "failed after 8192 bytes"));
  assert_non_null(strstr(err.message, strerror(EIO)));
  tcmma_ptx_info_free(&b);
  assert_int_equal(tcmma_ptx_parse_stream(NULL, NULL, &b, &err), TCMMA_INVALID);
  assert_int_equal(tcmma_ptx_parse_stream(source_read, &s, NULL, &err), TCMMA_INVALID);
  tcmma_ptx_info_free(&b);
}

static long too_much(void *ctx, char *buf, size_t cap) {
  (void)ctx, (void)buf;
  return (long)cap + 1;
}

/* A source that claims more than the room it was given is refused (the
 * reader never trusts a length it did not bound). */
static void source_overrun_refused(void **state) {
  (void)state;
  tcmma_ptx_info b;
  tcmma_error err;
  assert_int_equal(tcmma_ptx_parse_stream(too_much, NULL, &b, &err), TCMMA_INVALID);
  assert_non_null(strstr(err.message, "for room of"));
  tcmma_ptx_info_free(&b);
}

/* The largest module repeated to over 8 MiB, read through parse_stream:
 * the room it offers its source stays one chunk (1 MiB), not the module,
 * and the census is the repeats' sum. */
static void memory_stays_a_chunk(void **state) {
  (void)state;
  ptx_module *m = &ptx_corpus[0];
  for (size_t k = 1; k < ptx_corpus_count; k++)
    if (ptx_corpus[k].len > m->len) m = &ptx_corpus[k];
  const char *body = strstr(m->text, ".address_size");
  assert_non_null(body);
  body = strchr(body, '\n') + 1;
  size_t head = (size_t)(body - m->text), blen = m->len - head, copies = (8u << 20) / blen + 1;
  char *big = malloc(head + copies * blen);
  assert_non_null(big);
  memcpy(big, m->text, head);
  for (size_t i = 0; i < copies; i++) memcpy(big + head + i * blen, body, blen);
  tcmma_ptx_info one, many;
  tcmma_error err;
  assert_int_equal(tcmma_ptx_parse(m->text, m->len, &one, &err), TCMMA_OK);
  source s = over(big, head + copies * blen, SIZE_MAX);
  assert_int_equal(tcmma_ptx_parse_stream(source_read, &s, &many, &err), TCMMA_OK);
  assert_int_equal(many.instruction_count, copies * one.instruction_count);
  assert_int_equal(many.entry_count, copies * one.entry_count);
  print_message("ptx stream: %zu bytes read offering at most %zu a read\n", s.len,
                s.largest_room);
  assert_true(s.largest_room <= (1u << 20));
  tcmma_ptx_info_free(&one), tcmma_ptx_info_free(&many);
  free(big);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(corpus_alike_in_chunks), cmocka_unit_test(cut_and_spoiled_alike),
      cmocka_unit_test(edge_texts_alike),       cmocka_unit_test(garbage_alike),
      cmocka_unit_test(files_and_failures),     cmocka_unit_test(source_overrun_refused),
      cmocka_unit_test(memory_stays_a_chunk),
  };
  return cmocka_run_group_tests_name("ptx_stream", tests, ptx_corpus_setup, ptx_corpus_teardown);
}
