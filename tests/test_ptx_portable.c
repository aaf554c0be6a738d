/* The PTX reader's fast paths against its portable builds (docs/ptx.md,
 * Speed): the Makefile builds nvrtc/ptx/reader.c and stream.c twice more
 * under other names (tests/ptx_variant.h), without the AVX2 text check
 * (_sse2) and without SSE2 as well (_scalar: the byte loops and the
 * statement-by-statement read a CPU with neither runs). The library's own
 * reader (AVX2 where this CPU has it) and both builds must read every text
 * alike, whole and streamed: every module of tests/data, each cut short and
 * with bytes put in at many points, every byte value at the text check's
 * block edges, and texts made to reach each fast path's edges (opcodes of
 * every length up to 70 bytes, with "::", labels, operand lists past 64
 * bytes, directives with ".e" words, thousands of opcodes). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "util.h"
#include "tcmma/tcmma.h"
#include "nvrtc/ptx/reader.h"

/* The two builds' names for tcmma_ptx_parse and tcmma__ptx_parse_chunked. */
tcmma_status tcmma_ptx_parse_sse2(const char *text, size_t len, tcmma_ptx_info *info,
                                  tcmma_error *err);
tcmma_status tcmma_ptx_parse_scalar(const char *text, size_t len, tcmma_ptx_info *info,
                                    tcmma_error *err);
tcmma_status tcmma__ptx_parse_chunked_sse2(tcmma_ptx_read_fn read, void *ctx, size_t chunk,
                                           tcmma_ptx_info *info, tcmma_error *err);
tcmma_status tcmma__ptx_parse_chunked_scalar(tcmma_ptx_read_fn read, void *ctx, size_t chunk,
                                             tcmma_ptx_info *info, tcmma_error *err);

typedef tcmma_status (*parse_fn)(const char *, size_t, tcmma_ptx_info *, tcmma_error *);
typedef tcmma_status (*chunked_fn)(tcmma_ptx_read_fn, void *, size_t, tcmma_ptx_info *,
                                   tcmma_error *);

static const struct {
  const char *name;
  parse_fn parse;
  chunked_fn chunked;
} builds[] = {{"sse2", tcmma_ptx_parse_sse2, tcmma__ptx_parse_chunked_sse2},
              {"scalar", tcmma_ptx_parse_scalar, tcmma__ptx_parse_chunked_scalar}};


typedef struct {
  const char *text;
  size_t len, at;
} source;

static long source_read(void *ctx, char *buf, size_t cap) {
  source *s = ctx;
  size_t n = s->len - s->at < cap ? s->len - s->at : cap;
  memcpy(buf, s->text + s->at, n);
  s->at += n;
  return (long)n;
}

/* Fails unless got (status gs, message ge) is the library's read. */
static void same_read(tcmma_status ws, const tcmma_error *we, const tcmma_ptx_info *whole,
                      tcmma_status gs, const tcmma_error *ge, const tcmma_ptx_info *got,
                      const char *name, const char *how) {
  if (ws != gs) fail_msg("%s %s: status %d (%s), the library's reader %d (%s)", name, how, gs,
                         gs ? ge->message : "", ws, ws ? we->message : "");
  if (ws != TCMMA_OK && strcmp(we->message, ge->message) != 0)
    fail_msg("%s %s: '%s', the library's reader '%s'", name, how, ge->message, we->message);
  if (ws == TCMMA_OK) ptx_info_same(whole, got, name, how);
}

static size_t texts, parsed;

/* text[0..len) read alike by the library's reader and by both builds,
 * whole and in chunks: of 1, 61 and 4096 bytes up to 20000 bytes, of 4096
 * and 1 MiB (the default) past that. */
static void alike(const char *text, size_t len, const char *name) {
  static const size_t chunks[] = {1, 61, 4096, 1 << 20};
  tcmma_ptx_info whole, got;
  tcmma_error we, ge;
  tcmma_status ws = tcmma_ptx_parse(text, len, &whole, &we);
  for (size_t b = 0; b < sizeof builds / sizeof builds[0]; b++) {
    char how[96];
    snprintf(how, sizeof how, "(%zu bytes) read whole by the %s build", len, builds[b].name);
    tcmma_status gs = builds[b].parse(text, len, &got, &ge);
    same_read(ws, &we, &whole, gs, &ge, &got, name, how);
    tcmma_ptx_info_free(&got);
    for (size_t c = len > 20000 ? 2 : 0; c < (len > 20000 ? 4u : 3u); c++) {
      source s = {text, len, 0};
      snprintf(how, sizeof how, "(%zu bytes) read in chunks of %zu by the %s build", len,
               chunks[c], builds[b].name);
      gs = builds[b].chunked(source_read, &s, chunks[c], &got, &ge);
      same_read(ws, &we, &whole, gs, &ge, &got, name, how);
      tcmma_ptx_info_free(&got);
    }
  }
  texts++, parsed += ws == TCMMA_OK;
  tcmma_ptx_info_free(&whole);
}

/* Every module, whole. */
static void corpus_alike(void **state) {
  (void)state;
  texts = parsed = 0;
  for (size_t k = 0; k < ptx_corpus_count; k++)
    alike(ptx_corpus[k].text, ptx_corpus[k].len, ptx_corpus[k].name);
  print_message("ptx portable: %zu modules read alike by three builds, %zu of them read\n",
                texts, parsed);
  assert_true(parsed >= 10);
}

/* What is put into a module at a point: what ends or starts each fast
 * path's statement, or makes it go the slow way. */
static const char *const insertions[] = {
    ";", ":", "::", "/", "/*", "*/", "//", "\"", "{", "}", "=", ".", ".e", ".entry x(", "@",
    "@!%p9 ", "\t \n", "\r\n", "\v\f", "$L__x:", "lbl :", "xxxxxxxxxxxxxxxx", "\x01", "\x7f",
    "\xc3\xa9", "mov.u32\t%r1, 1;", "a.b.c.d.e.f.g.h.i.j.k.l.m.n.o.p.q.r.s.t.u.v.w.x.y.z;",
    ".reg .b32 %r<9>;", ".param .align 8 .b8 p[8] = {1, 2};", "ld.shared::cta.b32 %r1, [%r2];",
};

/* Each module cut short at 24 points (a byte or two apart), and with each
 * insertion put in at 24 points. */
static void cut_and_changed_alike(void **state) {
  (void)state;
  texts = parsed = 0;
  size_t n_ins = sizeof insertions / sizeof insertions[0];
  for (size_t k = 0; k < ptx_corpus_count; k++) {
    ptx_module *m = &ptx_corpus[k];
    char *copy = malloc(m->len + 64);
    assert_non_null(copy);
    for (size_t p = 0; p < 24; p++) {
      size_t at = m->len * p / 24 + p % 3;
      if (at > m->len) at = m->len;
      alike(m->text, at, m->name);
      const char *ins = insertions[(p + k) % n_ins];
      size_t n = strlen(ins);
      memcpy(copy, m->text, at);
      memcpy(copy + at, ins, n);
      memcpy(copy + at + n, m->text + at, m->len - at);
      alike(copy, m->len + n, m->name);
    }
    free(copy);
  }
  print_message("ptx portable: %zu cut or changed modules alike, %zu of them read\n", texts,
                parsed);
  assert_true(parsed > 0 && parsed < texts);
}

/* Every byte value at the text check's block edges (32 and 4064 bytes: an
 * AVX2 load, a block of 254 SSE2 loads) and near the start and end. */
static void every_byte_alike(void **state) {
  (void)state;
  texts = parsed = 0;
  ptx_module *m = &ptx_corpus[0];
  for (size_t k = 1; k < ptx_corpus_count; k++)
    if (ptx_corpus[k].len >= 8192 && (m->len < 8192 || ptx_corpus[k].len < m->len))
      m = &ptx_corpus[k];
  assert_true(m->len >= 8192);
  static const size_t offsets[] = {0, 1, 31, 32, 33, 4063, 4064, 4065, 8127, 8128};
  char *copy = malloc(8192);
  assert_non_null(copy);
  for (int byte = 0; byte < 256; byte++)
    for (size_t o = 0; o < sizeof offsets / sizeof offsets[0]; o++) {
      memcpy(copy, m->text, 8192);
      copy[offsets[o]] = (char)byte;
      alike(copy, 8192, m->name);
    }
  free(copy);
  print_message("ptx portable: %zu texts with a byte changed alike\n", texts);
  assert_true(texts == 2560);
}

/* Appends to buf (of cap, *n in it) what fmt makes of a and k: fmt takes
 * a %s, then (when any) a %d. */
static void add(char *buf, size_t cap, size_t *n, const char *fmt, const char *a, int k) {
  int w = snprintf(buf + *n, cap - *n, fmt, a, k);
  assert_true(w > 0 && (size_t)w < cap - *n);
  *n += (size_t)w;
}

/* A module made to reach the fast paths' edges, whole and cut at every
 * 97th byte. */
static void edges_alike(void **state) {
  (void)state;
  texts = parsed = 0;
  size_t cap = 1 << 20, n = 0;
  char *t = malloc(cap), name[80];
  assert_non_null(t);
  add(t, cap, &n, "%s.version 8.7\n.target sm_90a\n.address_size 64\n", "", 0);
  add(t, cap, &n, "%s.visible .entry k%d(\n\t.param .u64 p\n)\n{\n", "", 0);
  for (int len = 1; len <= 70; len++) { /* an opcode of each length, then forms of it */
    memset(name, 'a' + len % 26, sizeof name);
    name[0] = 'o', name[len] = '\0';
    add(t, cap, &n, "\t%s %%r%d;\n", name, len);
    add(t, cap, &n, "\t%s\t{%%r%d};\n", name, len);
    add(t, cap, &n, "%s:\n", name, 0);
    add(t, cap, &n, "%s :\n", name, 0);
    add(t, cap, &n, "\t%s /* c */ [%%r%d];\n", name, len);
    if (len > 3) {
      name[len / 2] = ':';
      add(t, cap, &n, "\t%s:x %%r%d;\n", name, len);
      name[len / 2] = 'a';
    }
    add(t, cap, &n, "\t@%s%%p%d ", "", len);
    add(t, cap, &n, "%s %%r1, \"s;/\";\n", name, 0);
    add(t, cap, &n, "\tmov.b32 %s, %d;\n", name, len); /* long operands */
    add(t, cap, &n, "\t.reg .b32 %s<%d>;\n", name, len);
    add(t, cap, &n, "\t.shared .align 4 .b8 %s[%d];\n", name, len);
    add(t, cap, &n, "\t{ // %s %d\n\t}\n", name, len);
  }
  for (int i = 0; i < 3000; i++) { /* thousands of opcodes: the census table grows */
    memset(name, 'x', sizeof name);
    name[i % 40 + 1] = '\0';
    add(t, cap, &n, "\tz%s.f%d %%r1;\n", name, i * 7919 % 5003);
  }
  add(t, cap, &n, "%s\t.extern .func f();\n\t.weak .entry w();\n}\n", "", 0);
  alike(t, n, "edges");
  for (size_t at = 97; at < n; at += 97) alike(t, at, "edges cut");
  free(t);
  print_message("ptx portable: %zu texts at the fast paths' edges alike, %zu of them read\n",
                texts, parsed);
  assert_true(parsed >= 1);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(corpus_alike),
      cmocka_unit_test(cut_and_changed_alike),
      cmocka_unit_test(every_byte_alike),
      cmocka_unit_test(edges_alike),
  };
  return cmocka_run_group_tests_name("ptx_portable", tests, ptx_corpus_setup, ptx_corpus_teardown);
}
