/* PTX reader. PTX is read as a stream of statements: a directive ('.' word)
 * runs to ';' or to the '{' that opens its body; a few directives end at the
 * end of their line instead (.version, .target, .loc, the performance
 * directives, ...), because PTX writes them without ';'. Anything else is
 * `[label:] [@pred] opcode operands ;`. Comments are skipped everywhere. */
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#ifdef __SSE2__
#include <emmintrin.h>
#endif
#if defined(__x86_64__) && defined(__GNUC__) && !defined(TCMMA_PTX_NO_AVX2)
#include <immintrin.h>
#define HAVE_AVX2_PATH 1 /* built for any x86-64, taken where the CPU has AVX2 */
#endif
#include "tcmma/ptx.h"
#include "nvrtc/internal.h"
#include "nvrtc/ptx/reader.h"

/* ---- the reader ---- */

typedef tcmma__ptx_reader reader;

/* The number of line ends in t[0..n): sixteen bytes at a time where SSE2
 * is (a stream counts the lines of all it drops). */
static size_t count_lines(const char *t, size_t n) {
  size_t lines = 0, i = 0;
#ifdef __SSE2__
  const __m128i nl = _mm_set1_epi8('\n');
  while (n - i >= 16) {
    __m128i sum = _mm_setzero_si128(); /* per byte: up to 255 blocks, then added up */
    size_t blocks = (n - i) / 16 < 255 ? (n - i) / 16 : 255;
    for (size_t b = 0; b < blocks; b++, i += 16)
      sum = _mm_sub_epi8(sum, _mm_cmpeq_epi8(_mm_loadu_si128((const __m128i *)(t + i)), nl));
    __m128i wide = _mm_sad_epu8(sum, _mm_setzero_si128());
    lines += (size_t)_mm_cvtsi128_si32(wide) + (size_t)_mm_extract_epi16(wide, 4);
  }
#endif
  for (; i < n; i++) lines += t[i] == '\n';
  return lines;
}

static int line_of(const reader *r, size_t pos) {
  return (int)(1 + r->base_line + count_lines(r->text, pos < r->len ? pos : r->len));
}

static bool at_end(const reader *r) { return r->pos >= r->len; }
static char peek(const reader *r, size_t ahead) {
  return r->pos + ahead < r->len ? r->text[r->pos + ahead] : '\0';
}

static void truncate_at(reader *r, const char *what, size_t at) {
  if (!r->truncated) {
    r->truncated = what;
    r->truncated_at = at;
  }
  r->pos = r->len;
}

/* Skips blanks and comments. With stop_at_newline it stops at a line end and
 * returns true: before a '\n', or just after a block comment that spans lines
 * (which counts as the line break, so what follows it starts a new line). */
static bool skip_space_slow(reader *r, bool stop_at_newline) {
  if (stop_at_newline && r->pos == r->line_break_at) return true;
  while (!at_end(r)) {
    char c = peek(r, 0);
    if (c == '\n') {
      if (stop_at_newline) return true;
      r->pos++;
    } else if (c == ' ' || c == '\t' || c == '\r' || c == '\f' || c == '\v') {
      r->pos++;
      while (r->pos < r->len && (r->text[r->pos] == ' ' || r->text[r->pos] == '\t')) r->pos++;
    } else if (c == '/' && peek(r, 1) == '/') {
      const char *nl = memchr(r->text + r->pos, '\n', r->len - r->pos);
      r->pos = nl ? (size_t)(nl - r->text) : r->len;
    } else if (c == '/' && peek(r, 1) == '*') {
      size_t start = r->pos;
      const char *end = NULL;
      for (size_t i = r->pos + 2; i + 1 < r->len; i++) {
        const char *star = memchr(r->text + i, '*', r->len - 1 - i);
        if (!star) break;
        i = (size_t)(star - r->text);
        if (star[1] == '/') {
          end = star;
          break;
        }
      }
      if (!end) {
        truncate_at(r, "a /* comment", start);
        return false;
      }
      bool newline = memchr(r->text + start, '\n', (size_t)(end - (r->text + start))) != NULL;
      r->pos = (size_t)(end - r->text) + 2;
      if (newline) r->line_break_at = r->pos;
      if (newline && stop_at_newline) return true;
    } else {
      return false;
    }
  }
  return false;
}

/* The blanks skip_space steps over: '\n' too when a line end does not stop it. */
static const unsigned char blank_byte[256] = {[' '] = 1, ['\t'] = 1, ['\r'] = 1, ['\f'] = 1,
                                              ['\v'] = 1, ['\n'] = 2};

#ifdef __SSE2__
static inline __m128i load16(const char *p) { return _mm_loadu_si128((const __m128i *)p); }

/* Bit i set where byte i of v is an opcode byte (byte_class:
 * a letter, a digit, '_', '$' or '.'; with dot false, a word byte: no '.'). */
static inline unsigned opcode_bits(__m128i v, bool dot) {
  __m128i dl = _mm_sub_epi8(_mm_or_si128(v, _mm_set1_epi8(0x20)), _mm_set1_epi8('a'));
  __m128i letter = _mm_cmpeq_epi8(_mm_min_epu8(dl, _mm_set1_epi8('z' - 'a')), dl);
  __m128i dd = _mm_sub_epi8(v, _mm_set1_epi8('0'));
  __m128i digit = _mm_cmpeq_epi8(_mm_min_epu8(dd, _mm_set1_epi8(9)), dd);
  __m128i other = _mm_or_si128(_mm_or_si128(_mm_cmpeq_epi8(v, _mm_set1_epi8('_')),
                                            _mm_cmpeq_epi8(v, _mm_set1_epi8('$'))),
                               _mm_cmpeq_epi8(v, _mm_set1_epi8(dot ? '.' : '_')));
  return (unsigned)_mm_movemask_epi8(_mm_or_si128(_mm_or_si128(letter, digit), other));
}
#endif

/* The first byte at or after p (below len) that is no blank or line end.
 * A byte loop: the indent between statements is a byte or a few (sixteen at
 * a time measured slower: its load waits for the statement's end, where a
 * predicted loop runs ahead). */
static inline size_t skip_blanks(const char *t, size_t p, size_t len) {
  while (p < len && blank_byte[(unsigned char)t[p]]) p++;
  return p;
}

/* skip_space, with the common cases inline: a word starts right here, or
 * (not stopping at line ends) a run of blanks and line ends, the indent
 * between two statements; only a '/' or a line end that stops goes slow. */
static inline bool skip_space(reader *r, bool stop_at_newline) {
  size_t p = r->pos;
  if (!stop_at_newline) {
    r->pos = p = skip_blanks(r->text, p, r->len);
    return p < r->len && r->text[p] == '/' ? skip_space_slow(r, false) : false;
  }
  if (p < r->len && (unsigned char)r->text[p] > ' ' && r->text[p] != '/' && p != r->line_break_at)
    return false;
  return skip_space_slow(r, stop_at_newline);
}

/* Byte classes, looked up: 1 a word byte (letters, digits, '_', '$'), 2 '.'. */
static const unsigned char byte_class[256] = {
    ['a' ... 'z'] = 1, ['A' ... 'Z'] = 1, ['0' ... '9'] = 1, ['_'] = 1, ['$'] = 1, ['.'] = 2};

static bool word_char(char c) { return byte_class[(unsigned char)c] == 1; }

/* Bytes a directive's body stops at (everything else is skipped in a run),
 * and the ones an initializer's braces stop at: each list makes a table
 * for the byte loop and the compares of the sixteen-byte scan. */
#define DIRECTIVE_STOPS(X) X(';') X('{') X('}') X('"') X('.') X('=') X('/') X('\n')
#define INITIALIZER_STOPS(X) X('{') X('}') X('"') X('/')
#define STOP_ENTRY(c) [c] = 1,
static const unsigned char directive_stop[256] = {DIRECTIVE_STOPS(STOP_ENTRY)};
static const unsigned char initializer_stop[256] = {INITIALIZER_STOPS(STOP_ENTRY)};
#undef STOP_ENTRY

#ifdef __SSE2__
#define STOP_EQ(c) hit = _mm_or_si128(hit, _mm_cmpeq_epi8(v, _mm_set1_epi8(c)));
static inline unsigned directive_stop_bits(__m128i v) {
  __m128i hit = _mm_setzero_si128();
  DIRECTIVE_STOPS(STOP_EQ)
  return (unsigned)_mm_movemask_epi8(hit);
}
static inline unsigned initializer_stop_bits(__m128i v) {
  __m128i hit = _mm_setzero_si128();
  INITIALIZER_STOPS(STOP_EQ)
  return (unsigned)_mm_movemask_epi8(hit);
}
#undef STOP_EQ
#endif

/* Moves pos over the bytes the directive's (or with initializer, the
 * initializer's) stops do not mark: sixteen at a time where SSE2 is (a
 * .param's name, an initializer's thousand bytes of numbers). */
static void skip_plain(reader *r, bool initializer) {
  const unsigned char *stop = initializer ? initializer_stop : directive_stop;
#ifdef __SSE2__
  for (; r->len - r->pos >= 16; r->pos += 16) {
    __m128i v = load16(r->text + r->pos);
    unsigned hit = initializer ? initializer_stop_bits(v) : directive_stop_bits(v);
    if (hit) {
      r->pos += (size_t)__builtin_ctz(hit);
      return;
    }
  }
#endif
  while (r->pos < r->len && !stop[(unsigned char)r->text[r->pos]]) r->pos++;
}

/* Reads an identifier at pos; returns its length (0 when none). */
static size_t read_ident(reader *r, const char **start) {
  *start = r->text + r->pos;
  size_t begin = r->pos;
#ifdef __SSE2__
  unsigned stop = 0; /* sixteen at a time, as read_opcode */
  while (r->len - r->pos >= 16 && !(stop = ~opcode_bits(load16(r->text + r->pos), false) & 0xffffu))
    r->pos += 16;
  if (stop) r->pos += (size_t)__builtin_ctz(stop);
  else
#endif
    while (r->pos < r->len && word_char(r->text[r->pos])) r->pos++;
  return r->pos - begin;
}

/* Reads an opcode: identifier parts joined by '.' or "::". */
static size_t read_opcode(reader *r, const char **start) {
  *start = r->text + r->pos;
  size_t begin = r->pos;
  for (;;) {
#ifdef __SSE2__
    unsigned stop = 0; /* sixteen at a time: a byte loop's exit is mispredicted */
    while (r->len - r->pos >= 16 &&
           !(stop = ~opcode_bits(load16(r->text + r->pos), true) & 0xffffu))
      r->pos += 16;
    if (stop) r->pos += (size_t)__builtin_ctz(stop);
    else
#endif
      while (r->pos < r->len && byte_class[(unsigned char)r->text[r->pos]]) r->pos++;
    if (peek(r, 0) != ':' || peek(r, 1) != ':') return r->pos - begin;
    r->pos += 2;
  }
}

static void skip_string(reader *r) {
  size_t start = r->pos++;
  while (!at_end(r)) {
    char c = r->text[r->pos++];
    if (c == '\\' && !at_end(r)) r->pos++;
    else if (c == '"') return;
  }
  truncate_at(r, "a string", start);
}

static char *dup_n(reader *r, const char *s, size_t n) {
  char *d = malloc(n + 1);
  if (!d) {
    r->status = TCMMA_NO_MEMORY;
    return NULL;
  }
  memcpy(d, s, n);
  d[n] = '\0';
  return d;
}

static bool push_string(reader *r, char ***list, size_t *count, const char *s, size_t n) {
  char **grown = realloc(*list, (*count + 1) * sizeof **list);
  if (!grown) return r->status = TCMMA_NO_MEMORY, false;
  *list = grown;
  char *d = dup_n(r, s, n);
  if (!d) return false;
  grown[(*count)++] = d;
  return true;
}

static inline uint64_t load64(const char *p) {
  uint64_t w;
  memcpy(&w, p, 8);
  return w;
}

/* A multiplicative hash eight bytes at a time (opcodes are a dozen or two
 * bytes long: two or three rounds, not one multiply per byte); the last
 * word overlaps what came before, so no byte loop (and its mispredicted
 * exit) runs for the tail. For opcodes of sixteen bytes or more: shorter
 * ones are hashed by their head (hash_head). */
static inline uint64_t hash(const char *s, size_t n) {
  uint64_t h = (uint64_t)n * 0x9e3779b97f4a7c15ull;
  for (size_t i = 0; i + 8 < n; i += 8) {
    h = (h ^ load64(s + i)) * 0xff51afd7ed558ccdull;
    h ^= h >> 32;
  }
  h = (h ^ load64(s + n - 8)) * 0xc4ceb9fe1a85ec53ull;
  return h ^ (h >> 29);
}

/* An opcode shorter than sixteen bytes is its head: its bytes zero-padded
 * to sixteen, as two words (lo: the first eight). Opcode bytes are never
 * zero, so equal heads are equal opcodes, and no longer opcode's head (its
 * first sixteen bytes) equals a short one's. Two multiplies side by side:
 * the slot is taken from the top bits, which every bit of both words
 * reaches. */
static inline uint64_t hash_head(uint64_t lo, uint64_t hi) {
  return lo * 0x9e3779b97f4a7c15ull ^ hi * 0xff51afd7ed558ccdull;
}

/* Whether the n bytes at a and at b are the same (n >= 16): word loads as
 * hash reads them, not a call to memcmp. */
static inline bool same_bytes(const char *a, const char *b, size_t n) {
  for (size_t i = 0; i + 8 < n; i += 8)
    if (load64(a + i) != load64(b + i)) return false;
  return load64(a + n - 8) == load64(b + n - 8);
}

/* The slot a hash starts its probe at: its top bits. */
static inline size_t slot_of(const reader *r, uint64_t h) { return (size_t)(h >> r->slot_shift); }

/* Moves the slots to a table of cap (a power of two, at least 2). */
static bool rehash(reader *r, size_t cap) {
  tcmma__ptx_slot *slots = calloc(cap, sizeof *slots);
  if (!slots) return r->status = TCMMA_NO_MEMORY, false;
  unsigned shift = 64;
  for (size_t c = cap; c > 1; c >>= 1) shift--;
  for (size_t i = 0; i < r->slot_cap; i++) {
    if (!r->slots[i].op) continue;
    size_t s = (size_t)(r->slots[i].hash >> shift);
    while (slots[s].op) s = (s + 1) & (cap - 1);
    slots[s] = r->slots[i];
  }
  free(r->slots);
  r->slots = slots;
  r->slot_cap = cap, r->slot_shift = shift;
  return true;
}

/* Grows the census and its lengths to room for one more. */
static bool census_room(reader *r) {
  tcmma_ptx_info *info = r->info;
  if (info->census_count < r->op_cap) return true;
  size_t cap = r->op_cap ? 2 * r->op_cap : 32;
  tcmma_ptx_op *grown = realloc(info->census, cap * sizeof *grown);
  if (!grown) return r->status = TCMMA_NO_MEMORY, false;
  info->census = grown;
  size_t *lens = realloc(r->op_len, cap * sizeof *lens);
  if (!lens) return r->status = TCMMA_NO_MEMORY, false;
  r->op_len = lens;
  r->op_cap = cap;
  return true;
}

/* Adds the opcode op[0..n), first seen, at the empty slot s with hash h
 * and head lo, hi, and counts it. */
static void add_opcode(reader *r, size_t s, const char *op, size_t n, uint64_t h, uint64_t lo,
                       uint64_t hi) {
  tcmma_ptx_info *info = r->info;
  if (!census_room(r)) return;
  char *d = dup_n(r, op, n);
  if (!d) return;
  size_t i = info->census_count;
  info->census[i] = (tcmma_ptx_op){d, 1};
  r->op_len[i] = n;
  r->slots[s] = (tcmma__ptx_slot){lo, hi, h, ++info->census_count};
  info->instruction_count++;
  r->last_slot = s;
}

/* Counts one more of the opcode op[0..n) at slot s: found there, or (an
 * empty slot) added. */
static inline void count_at(reader *r, size_t s, const char *op, size_t n, uint64_t h,
                            uint64_t lo, uint64_t hi) {
  if (__builtin_expect(!r->slots[s].op, 0)) return add_opcode(r, s, op, n, h, lo, hi);
  r->info->census[r->slots[s].op - 1].count++;
  r->info->instruction_count++;
  r->last_slot = s;
}

/* Room in the slots for one more opcode (at most a quarter full). */
static inline bool slot_room(reader *r) {
  return (r->info->census_count + 1) * 4 <= r->slot_cap ||
         rehash(r, r->slot_cap ? r->slot_cap * 4 : 256);
}

/* Counts the opcode op[0..n), n < 16, whose head is lo, hi: its slot is
 * found by the head alone (two word compares in the slot itself). */
static inline void count_short(reader *r, const char *op, size_t n, uint64_t lo, uint64_t hi) {
  if (!slot_room(r)) return;
  uint64_t h = hash_head(lo, hi);
  size_t s = slot_of(r, h);
  while (r->slots[s].op && (r->slots[s].lo != lo || r->slots[s].hi != hi))
    s = (s + 1) & (r->slot_cap - 1);
  count_at(r, s, op, n, h, lo, hi);
}

static void count_opcode(reader *r, const char *op, size_t n) {
  uint64_t head[2] = {0, 0};
  memcpy(head, op, n < 16 ? n : 16);
  if (n < 16) return count_short(r, op, n, head[0], head[1]);
  if (!slot_room(r)) return;
  uint64_t h = hash(op, n);
  size_t s = slot_of(r, h), i;
  while ((i = r->slots[s].op) && (r->slots[s].hash != h || r->op_len[i - 1] != n ||
                                  !same_bytes(r->info->census[i - 1].opcode, op, n)))
    s = (s + 1) & (r->slot_cap - 1);
  count_at(r, s, op, n, h, head[0], head[1]);
}

/* What a directive's name asks of the reader. */
typedef enum { DIR_OTHER, DIR_LINE, DIR_VERSION, DIR_TARGET, DIR_ADDRESS_SIZE, DIR_ENTRY } dir_kind;

/* The directives the reader knows by name: those PTX ends at the end of
 * their line rather than with ';' (DIR_LINE and the three it reads), and
 * .entry, whose name it notes. */
static inline dir_kind directive_kind(const char *w, size_t n) {
#define IS(s) (n == sizeof s - 1 && memcmp(w, s, sizeof s - 1) == 0)
  /* by length, then a compare of known size (a few word compares): a
   * module's directives are mostly .reg and .param, turned away at once */
  switch (n) {
  case 3: return IS("loc") ? DIR_LINE : DIR_OTHER;
  case 4: return IS("file") ? DIR_LINE : DIR_OTHER;
  case 5: return IS("entry") ? DIR_ENTRY : DIR_OTHER;
  case 6: return IS("target") ? DIR_TARGET : DIR_OTHER;
  case 7: return IS("version") ? DIR_VERSION
                 : IS("maxntid") || IS("reqntid") || IS("maxnreg") ? DIR_LINE
                                                                   : DIR_OTHER;
  case 8: return IS("noreturn") ? DIR_LINE : DIR_OTHER;
  case 12: return IS("address_size")                     ? DIR_ADDRESS_SIZE
                  : IS("minnctapersm") || IS("maxnctapersm") ? DIR_LINE
                                                             : DIR_OTHER;
  case 14: return IS("maxclusterrank") ? DIR_LINE : DIR_OTHER;
  case 15: return IS("explicitcluster") ? DIR_LINE : DIR_OTHER;
  case 17: return IS("reqnctapercluster") || IS("blocksareclusters") ? DIR_LINE : DIR_OTHER;
  default: return DIR_OTHER;
  }
#undef IS
}

static tcmma_status bad(reader *r, size_t at, const char *fmt, const char *what) {
  r->status = tcmma_fail(r->err, TCMMA_PARSE, fmt, line_of(r, at), what);
  return r->status;
}

/* .version MAJOR.MINOR: each part one to four digits, then the end of the
 * line (or a comment). More digits or trailing junk are malformed, not a
 * shorter version: "12345.6" read as 1234.5 would pass a check ptxas fails. */
static void read_version(reader *r, size_t at) {
  bool line_end = skip_space(r, true);
  int major = 0, minor = 0, nd1 = 0, nd2 = 0;
  while (!line_end && !at_end(r) && peek(r, 0) >= '0' && peek(r, 0) <= '9' && nd1 < 5)
    major = major * 10 + (peek(r, 0) - '0'), r->pos++, nd1++;
  bool dot = !at_end(r) && peek(r, 0) == '.';
  if (dot) r->pos++;
  while (dot && !at_end(r) && peek(r, 0) >= '0' && peek(r, 0) <= '9' && nd2 < 5)
    minor = minor * 10 + (peek(r, 0) - '0'), r->pos++, nd2++;
  bool spaced = at_end(r) || strchr(" \t\r\f\v\n/", peek(r, 0));
  bool ends = spaced && (skip_space(r, true) || at_end(r));
  if (!nd1 || !nd2 || nd1 > 4 || nd2 > 4 || !ends) {
    bad(r, at, "malformed .version at line %d: expected MAJOR.MINOR such as 8.7, then the end "
        "of the line%s", "");
    return;
  }
  if (!r->saw_version) {
    r->info->version_major = major;
    r->info->version_minor = minor;
    r->saw_version = true;
  }
}

/* .target ARCH[, MODIFIER]... */
static void read_target(reader *r, size_t at) {
  if (r->saw_target) return (void)bad(r, at, "a second .target at line %d%s", "");
  for (int i = 0;; i++) {
    bool line_end = skip_space(r, true);
    const char *w;
    size_t n = line_end ? 0 : read_ident(r, &w);
    if (!n) {
      bad(r, at, "malformed .target at line %d: expected an arch such as sm_80%s",
          i ? " after ','" : "");
      return;
    }
    if (i == 0) {
      if (!(r->info->target = dup_n(r, w, n))) return;
      int sm = 0;
      size_t j = 3;
      if (n > 3 && strncmp(w, "sm_", 3) == 0)
        for (; j < n && w[j] >= '0' && w[j] <= '9' && sm < 100000; j++) sm = sm * 10 + (w[j] - '0');
      bool ok = j > 3 && (j == n || (j + 1 == n && (w[j] == 'a' || w[j] == 'f')));
      r->info->target_sm = ok ? sm : 0;
      r->info->target_suffix = ok && j < n ? w[j] : '\0';
    } else if (!push_string(r, &r->info->modifiers, &r->info->modifier_count, w, n)) {
      return;
    }
    if (skip_space(r, true) || peek(r, 0) != ',') break;
    r->pos++;
  }
  r->saw_target = true;
}

static void read_address_size(reader *r, size_t at) {
  bool line_end = skip_space(r, true);
  int v = 0, nd = 0;
  while (!line_end && !at_end(r) && peek(r, 0) >= '0' && peek(r, 0) <= '9' && nd < 4)
    v = v * 10 + (peek(r, 0) - '0'), r->pos++, nd++;
  if (v != 32 && v != 64) {
    bad(r, at, "malformed .address_size at line %d: expected 32 or 64%s", "");
    return;
  }
  r->info->address_size = v;
}

/* A directive statement starting at '.': runs to the end of its line (line
 * directives) or to ';' (consumed) or a '{' / '}' (left for the block
 * counter), skipping an initializer's braces after '='. Notes .entry names. */
static void read_directive(reader *r) {
  size_t at = r->pos++;
  const char *w;
  size_t n = read_ident(r, &w);
  dir_kind kind = directive_kind(w, n);
  bool line = kind != DIR_OTHER && kind != DIR_ENTRY;
  if (kind == DIR_VERSION) read_version(r, at);
  else if (kind == DIR_TARGET) read_target(r, at);
  else if (kind == DIR_ADDRESS_SIZE) read_address_size(r, at);
  bool initializer = false, want_entry = kind == DIR_ENTRY;
  while (r->status == TCMMA_OK && !at_end(r)) {
    if (skip_space(r, line)) return; /* a line directive ends with its line */
    if (at_end(r)) break;
    char c = peek(r, 0);
    if (want_entry && word_char(c)) {
      size_t n2 = read_ident(r, &w);
      push_string(r, &r->info->entries, &r->info->entry_count, w, n2);
      want_entry = false;
    } else if (c == ';') {
      r->pos++;
      return;
    } else if (c == '{' && initializer) {
      int d = 0;
      size_t open = r->pos;
      do {
        char k = peek(r, 0);
        if (k == '{') d++;
        else if (k == '}') d--;
        else if (k == '"') {
          skip_string(r);
          continue;
        }
        r->pos++;
        if (d > 0) skip_plain(r, true);
        skip_space(r, false);
      } while (d > 0 && !at_end(r));
      if (d > 0) truncate_at(r, "an initializer's '{'", open);
    } else if (c == '{' || c == '}') {
      return;
    } else if (c == '"') {
      skip_string(r);
    } else if (c == '.') {
      r->pos++;
      n = read_ident(r, &w);
      if (n == 5 && memcmp(w, "entry", 5) == 0) want_entry = true;
    } else {
      if (c == '=') initializer = true;
      r->pos++;
      if (!want_entry) skip_plain(r, false);
    }
  }
  if (!line && at_end(r) && r->status == TCMMA_OK)
    truncate_at(r, "a directive without its ';' or '{'", at);
}

/* The first ';', '"' or '/' in [p, end), or end. Sixteen bytes at a time
 * where SSE2 is: an instruction's operands are a few dozen plain bytes. */
static const char *operand_stop(const char *p, const char *end) {
#ifdef __SSE2__
  const __m128i semi = _mm_set1_epi8(';'), quote = _mm_set1_epi8('"'), slash = _mm_set1_epi8('/');
  for (; end - p >= 16; p += 16) {
    __m128i v = _mm_loadu_si128((const __m128i *)p);
    int hit = _mm_movemask_epi8(_mm_or_si128(
        _mm_or_si128(_mm_cmpeq_epi8(v, semi), _mm_cmpeq_epi8(v, quote)), _mm_cmpeq_epi8(v, slash)));
    if (hit) return p + __builtin_ctz((unsigned)hit);
  }
#endif
  for (; p < end; p++)
    if (*p == ';' || *p == '"' || *p == '/') return p;
  return end;
}

/* Skips an instruction's operands up to and including its ';'. Operands
 * rarely hold a string or a comment: plain bytes are skipped in one scan,
 * and only a '"' or a '/' is looked at on its own. */
static void skip_operands(reader *r, size_t at) {
  while (!at_end(r)) {
    const char *p = operand_stop(r->text + r->pos, r->text + r->len);
    r->pos = (size_t)(p - r->text);
    if (at_end(r)) break;
    if (*p == ';') {
      r->pos++;
      return;
    }
    if (*p == '"') {
      skip_string(r);
    } else if (!skip_space(r, false) && r->pos == (size_t)(p - r->text)) {
      r->pos++; /* a '/' that starts no comment */
    }
  }
  truncate_at(r, "an instruction without its ';'", at);
}

/* An instruction or a label at pos, whose first byte c is a letter, '_' or
 * '$': the opcode (a '$' or '_' name is no instruction), then a label's ':'
 * (after blanks, line ends or comments), or operands to the ';'. */
static void read_instruction(reader *r, char c) {
  size_t at = r->pos;
  const char *op;
  size_t n = read_opcode(r, &op);
  size_t after = r->pos, q = after;
  while (q < r->len && (r->text[q] == ' ' || r->text[q] == '\t')) q++;
  if (q < r->len && (r->text[q] == '/' || (r->text[q] >= '\n' && r->text[q] <= '\r'))) {
    skip_space(r, false); /* a comment or a line end before what follows */
    q = r->pos;
  }
  if (q < r->len && r->text[q] == ':') { /* a label */
    r->pos = q + 1;
    return;
  }
  r->pos = after;
  if (c != '$' && c != '_') count_opcode(r, op, n);
  skip_operands(r, at);
}

#ifdef __SSE2__
/* The 64 bytes at p, four vectors, and which of them pass a test: bit i
 * of the mask for byte i. */
typedef struct {
  __m128i q[4];
} block64;

static inline block64 load_block64(const char *p) {
  block64 b = {{load16(p), load16(p + 16), load16(p + 32), load16(p + 48)}};
  return b;
}

/* written out, not a loop: a loop kept the vectors on the stack */
static inline uint64_t block_bits(const block64 *b, __m128i (*test)(__m128i)) {
  return (uint64_t)(unsigned)_mm_movemask_epi8(test(b->q[0])) |
         (uint64_t)(unsigned)_mm_movemask_epi8(test(b->q[1])) << 16 |
         (uint64_t)(unsigned)_mm_movemask_epi8(test(b->q[2])) << 32 |
         (uint64_t)(unsigned)_mm_movemask_epi8(test(b->q[3])) << 48;
}

static inline __m128i eq(__m128i v, char c) { return _mm_cmpeq_epi8(v, _mm_set1_epi8(c)); }
/* what ends an instruction's plain run: its ';', a string, a comment, a label's ':' */
static inline __m128i instruction_stop(__m128i v) { /* ':' | 1 is ';' */
  return _mm_or_si128(eq(_mm_or_si128(v, _mm_set1_epi8(1)), ';'),
                      _mm_or_si128(eq(v, '"'), eq(v, '/')));
}
/* what ends a directive's plain run: its ';', a '{' or '}', a string, an
 * initializer's '=', a comment */
static inline __m128i directive_end(__m128i v) { /* ';' | 0x40 is '{', '=' | 0x40 is '}' */
  __m128i w = _mm_or_si128(v, _mm_set1_epi8(0x40));
  return _mm_or_si128(_mm_or_si128(eq(w, '{'), eq(w, '}')), _mm_or_si128(eq(v, '"'), eq(v, '/')));
}
static inline __m128i is_dot(__m128i v) { return eq(v, '.'); }
static inline __m128i is_e(__m128i v) { return eq(v, 'e'); }
static inline __m128i is_newline(__m128i v) { return eq(v, '\n'); }
/* what may stand between a name and a label's ':' without a comment */
static inline __m128i is_blank(__m128i v) {
  __m128i d = _mm_sub_epi8(v, _mm_set1_epi8('\t')); /* '\t' to '\r': 0 to 4 */
  return _mm_or_si128(_mm_cmpeq_epi8(_mm_min_epu8(d, _mm_set1_epi8(4)), d), eq(v, ' '));
}
#endif

/* What a statement may change, to undo it when it met the end of the text
 * in hand (tcmma__ptx_read_more): what any statement may change, and what
 * only a directive does (taken for directives only: fewer stores a
 * statement). */
typedef struct {
  size_t pos, last_open, line_break_at, instructions;
  int depth, last_open_line;
  bool directive;
  size_t entries, modifiers;
  int version_major, version_minor, address_size;
  bool saw_version, saw_target, had_target;
} mark;

static inline void mark_set(const reader *r, mark *m) {
  m->pos = r->pos, m->last_open = r->last_open, m->line_break_at = r->line_break_at;
  m->instructions = r->info->instruction_count;
  m->depth = r->depth, m->last_open_line = r->last_open_line;
  m->directive = false;
}

static void mark_directive(const reader *r, mark *m) {
  const tcmma_ptx_info *i = r->info;
  m->directive = true;
  m->entries = i->entry_count, m->modifiers = i->modifier_count;
  m->version_major = i->version_major, m->version_minor = i->version_minor;
  m->address_size = i->address_size;
  m->saw_version = r->saw_version, m->saw_target = r->saw_target;
  m->had_target = i->target != NULL;
}

/* One statement, at pos (blanks skipped, not at the end); m (when not
 * NULL) takes what a directive may change. */
static inline void read_statement(reader *r, mark *m) {
  char c = peek(r, 0);
  if (c == '{') {
    r->last_open = r->pos, r->last_open_line = 0;
    r->depth++;
    r->pos++;
  } else if (c == '}') {
    if (r->depth == 0) {
      bad(r, r->pos, "unbalanced '}' at line %d: no block is open%s", "");
      return;
    }
    r->depth--;
    r->pos++;
  } else if (c == ';') {
    r->pos++;
  } else if (c == '.') {
    if (m) mark_directive(r, m);
    read_directive(r);
  } else if (c == '@') { /* guard predicate: @%p1 or @!%p1, then the opcode */
    r->pos++;
    if (peek(r, 0) == '!') r->pos++;
    if (peek(r, 0) == '%') r->pos++;
    const char *w;
    read_ident(r, &w);
  } else if ((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c == '_' || c == '$') {
    read_instruction(r, c);
  } else { /* not a statement start: skip the rest of the line */
    while (!at_end(r) && peek(r, 0) != '\n' && peek(r, 0) != ';') r->pos++;
  }
}

/* Undoes what was read since m: a statement has at most one instruction,
 * counted last (a new opcode's slot was the last filled, so emptying it
 * leaves every other opcode's probe intact). */
static void mark_undo(reader *r, const mark *m) {
  tcmma_ptx_info *i = r->info;
  if (i->instruction_count != m->instructions) {
    size_t op = r->slots[r->last_slot].op - 1;
    i->instruction_count--;
    if (--i->census[op].count == 0) {
      free(i->census[op].opcode);
      i->census_count--;
      r->slots[r->last_slot].op = 0;
    }
  }
  if (m->directive) {
    while (i->entry_count > m->entries) free(i->entries[--i->entry_count]);
    while (i->modifier_count > m->modifiers) free(i->modifiers[--i->modifier_count]);
    if (!m->had_target && i->target) {
      free(i->target);
      i->target = NULL, i->target_sm = 0, i->target_suffix = '\0';
    }
    i->version_major = m->version_major, i->version_minor = m->version_minor;
    i->address_size = m->address_size;
    r->saw_version = m->saw_version, r->saw_target = m->saw_target;
  }
  r->pos = m->pos, r->last_open = m->last_open, r->line_break_at = m->line_break_at;
  r->depth = m->depth, r->last_open_line = m->last_open_line;
  r->truncated = NULL, r->status = TCMMA_OK;
}

/* How near the end of the text in hand a failure may depend on what
 * follows: a directive's number or word cut off (".version 8." then "7"),
 * a '/' that may start a comment; a byte or two, given room. */
enum { END_REACH = 64 };

#ifdef __SSE2__
/* The head of the n < 16 bytes whose first sixteen are v: those n,
 * zero-padded (count_short's lo and hi are its two words). */
static inline __m128i head_of(__m128i v, size_t n) {
  return _mm_and_si128(v, _mm_cmpgt_epi8(_mm_set1_epi8((char)n),
                                         _mm_setr_epi8(0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12,
                                                       13, 14, 15)));
}

static inline uint64_t low_word(__m128i v) { return (uint64_t)_mm_cvtsi128_si64(v); }
static inline uint64_t high_word(__m128i v) { return low_word(_mm_unpackhi_epi64(v, v)); }

/* count_short with the opcode's first sixteen bytes in v. */
static inline void count_head(reader *r, const char *op, size_t n, __m128i v) {
  __m128i head = head_of(v, n);
  count_short(r, op, n, low_word(head), high_word(head));
}

/* Counts the n < 16 bytes whose first sixteen are v when they are an
 * opcode already in the census; false (nothing counted) when not. */
static inline bool count_known(reader *r, __m128i v, size_t n) {
  if (!r->slot_cap) return false;
  __m128i head = head_of(v, n);
  uint64_t lo = low_word(head), hi = high_word(head);
  for (size_t s = slot_of(r, hash_head(lo, hi)); r->slots[s].op; s = (s + 1) & (r->slot_cap - 1))
    if (r->slots[s].lo == lo && r->slots[s].hi == hi) {
      r->info->census[r->slots[s].op - 1].count++;
      r->info->instruction_count++;
      r->last_slot = s;
      return true;
    }
  return false;
}
#endif

/* The statements most of a module is, read from one scan of the 64 bytes
 * at t[p] (65 in hand): an instruction up to a ';' with no string, comment
 * or ':' before it; a label (a name, then ':'); a directive the reader does
 * not act on (.reg, .param, ...) up to a ';' (taken) or a '{' or '}' (left)
 * with no string, comment, initializer or word starting ".e" (.entry)
 * before it; '{' and '}'; a guard predicate; a '//' comment. Returns the
 * position after the statement, or 0 when t[p] starts none of these (read
 * the slow way, statement by statement, as before).
 *
 * Where a statement ends does not wait for what it is (the opcode's length,
 * the directive's name): the reader is bound by the chain from one
 * statement's position to the next, not by the work beside it, and the
 * position stays in a register (stores through the census may alias
 * r->pos). A statement read here ends within what is in hand, so a stream
 * never undoes one. */
static inline __attribute__((always_inline)) size_t read_fast(reader *r, const char *t,
                                                               size_t len, size_t p) {
#ifdef __SSE2__
  if (len - p <= 64) return 0;
  const char *s = t + p;
  char c = s[0];
  block64 b = load_block64(s);
  if ((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c == '_' || c == '$') {
    uint64_t stops = block_bits(&b, instruction_stop);
    size_t e = stops ? (size_t)__builtin_ctzll(stops) : 64;
    if (e < 64 && s[e] == ';' && c != '$' && c != '_') {
      /* the opcode most likely ends at the first blank (or the ';'): bytes
       * the census holds as an opcode, with a blank or the ';' after them,
       * are the opcode (census opcodes are opcode bytes, or '::', and no
       * ':' comes before the ';'), found without working out which bytes
       * are opcode bytes */
      unsigned near = (unsigned)_mm_movemask_epi8(is_blank(b.q[0])) | (unsigned)(stops & 0xffffu);
      size_t g = (size_t)__builtin_ctz(near | 0x10000u);
      if (g < 16 && count_known(r, b.q[0], g)) return p + e + 1;
    }
    unsigned name = ~(opcode_bits(b.q[0], true) | opcode_bits(b.q[1], true) << 16);
    size_t n = name ? (size_t)__builtin_ctz(name) : 32;
    if (e == 64) { /* a long operand list: its ';' further on, when no label */
      if (n == 32 || !(~block_bits(&b, is_blank) >> n)) return 0;
      e = (size_t)(operand_stop(s + 64, t + len) - s);
      if (p + e == len || s[e] != ';') return 0;
    }
    if (s[e] == ':') /* a label: the name, then ':' (not '::') */
      return e == n && s[e + 1] != ':' ? p + e + 1 : 0;
    if (s[e] != ';') return 0;
    if (c == '$' || c == '_') return p + e + 1;
    if (n < 16) {
      count_head(r, s, n, b.q[0]);
    } else {
      if (n == 32) /* 32 bytes or more: it ends before the ';' */
        n = 32 + (size_t)__builtin_ctz(
                     ~(opcode_bits(b.q[2], true) | opcode_bits(b.q[3], true) << 16));
      count_opcode(r, s, n);
    }
    return p + e + 1;
  }
  if (c == '.') {
    uint64_t ends = block_bits(&b, directive_end);
    size_t e = ends ? (size_t)__builtin_ctzll(ends) : 64;
    unsigned name = ~opcode_bits(load16(s + 1), false) & 0xffffu;
    size_t n = name ? (size_t)__builtin_ctz(name) : 16;
    if (e == 64 || n == 16) return 0;
    uint64_t dots = block_bits(&b, is_dot) & ((1ull << e) - 1) & ~1ull;
    if ((dots & block_bits(&b, is_e) >> 1) || directive_kind(s + 1, n) != DIR_OTHER) return 0;
    if (s[e] == ';') return p + e + 1; /* branches: the next statement need not wait for s[e] */
    if (s[e] == '{' || s[e] == '}') return p + e;
    return 0;
  }
  if (c == '{') {
    r->last_open = p, r->last_open_line = 0;
    r->depth++;
    return p + 1;
  }
  if (c == '}' && r->depth > 0) {
    r->depth--;
    return p + 1;
  }
  if (c == '@') { /* @%p1 or @!%p1: the opcode follows as the next statement */
    size_t k = 1 + (s[1] == '!');
    k += s[k] == '%';
    unsigned word = ~opcode_bits(load16(s + k), false) & 0xffffu;
    return word ? p + k + (size_t)__builtin_ctz(word) : 0;
  }
  if (c == '/' && s[1] == '/') { /* to the line end, left for the blanks */
    uint64_t nl = block_bits(&b, is_newline);
    return nl ? p + (size_t)__builtin_ctzll(nl) : 0;
  }
#else
  (void)r, (void)t, (void)len, (void)p;
#endif
  return 0;
}

/* The statement loop, one for both reads (read_statement inlined once:
 * inlined twice, the compiler stopped inlining what it calls). more: the
 * text in hand ends before the input does, so a statement that meets its
 * end (or fails within END_REACH bytes of it) is undone, to be read again
 * with what follows. */
static void read_statements(reader *r, const char *text, size_t len, bool more) {
  r->text = text, r->len = len;
  for (size_t pos = r->pos;; pos = r->pos) {
    size_t next;
    while ((next = read_fast(r, text, len, skip_blanks(text, pos, len))))
      pos = next;
    r->pos = pos;
    if (r->status != TCMMA_OK) return; /* no memory for an opcode */
    mark m;
    if (more) mark_set(r, &m);
    skip_space(r, false);
    if (at_end(r)) {
      if (more) mark_undo(r, &m);
      return;
    }
    read_statement(r, more ? &m : NULL);
    if (__builtin_expect(r->pos < len && !r->truncated && r->status == TCMMA_OK, 1)) continue;
    if (r->status == TCMMA_NO_MEMORY) return;
    if (!more) {
      if (r->status != TCMMA_OK) return;
      continue; /* truncated or at the end: the next turn ends */
    }
    if (r->pos >= len || r->truncated || (r->status != TCMMA_OK && r->pos + END_REACH >= len)) {
      mark_undo(r, &m);
      return;
    }
    if (r->status != TCMMA_OK) return; /* a failure no later text changes */
  }
}

void tcmma__ptx_read_all(reader *r, const char *text, size_t len) {
  read_statements(r, text, len, false);
}

void tcmma__ptx_read_more(reader *r, const char *text, size_t len) {
  read_statements(r, text, len, true);
}

void tcmma__ptx_drop(reader *r, size_t cut) {
  /* the lines in hand were counted as they arrived: what is kept (the cut
   * statement) and what follows the last '{' are short, counted again */
  size_t dropped = r->lines_in_hand - count_lines(r->text + cut, r->len - cut);
  if (r->depth > 0 && !r->last_open_line && r->last_open < cut)
    r->last_open_line =
        (int)(1 + r->base_line + dropped - count_lines(r->text + r->last_open, cut - r->last_open));
  r->base_line += dropped, r->lines_in_hand -= dropped;
  r->text += cut, r->len -= cut, r->pos -= cut;
  r->last_open = r->last_open >= cut ? r->last_open - cut : 0;
  r->line_break_at = r->line_break_at != SIZE_MAX && r->line_break_at >= cut
                         ? r->line_break_at - cut
                         : SIZE_MAX;
}

static int cmp_op(const void *a, const void *b) {
  return strcmp(((const tcmma_ptx_op *)a)->opcode, ((const tcmma_ptx_op *)b)->opcode);
}

/* Whether c may appear in PTX text: printable, a blank, or a byte >= 0x80. */
static bool text_byte(unsigned char c) {
  return (c >= 0x20 && c != 0x7f) || (c >= '\t' && c <= '\r');
}

/* Whether block [start, end) of t holds a byte that may not appear in PTX
 * text (a control byte other than a blank, or DEL). Sixteen bytes at a
 * time where SSE2 is. */
/* ... and adds its line ends to *lines (counted here, where every byte is
 * loaded anyway: a stream needs the lines of all the text it drops). A
 * block is at most 255 loads of sixteen, as many as a byte counts. */
enum { CHECK_BLOCK = 254 * 16 };
static bool block_bad(const unsigned char *t, size_t start, size_t end, size_t *lines) {
  size_t i = start;
  bool bad = false;
#ifdef __SSE2__
  __m128i any_bad = _mm_setzero_si128(), nl_count = _mm_setzero_si128();
  const __m128i c1f = _mm_set1_epi8(0x1f), c7f = _mm_set1_epi8(0x7f);
  const __m128i c9 = _mm_set1_epi8(9), c4 = _mm_set1_epi8(4), nl = _mm_set1_epi8('\n');
  for (; i + 16 <= end; i += 16) {
    __m128i v = _mm_loadu_si128((const __m128i *)(t + i));
    __m128i control = _mm_cmpeq_epi8(_mm_min_epu8(v, c1f), v);            /* v <= 0x1f */
    __m128i d = _mm_sub_epi8(v, c9);
    __m128i blank = _mm_cmpeq_epi8(_mm_min_epu8(d, c4), d);               /* 9 <= v <= 13 */
    any_bad = _mm_or_si128(any_bad, _mm_or_si128(_mm_andnot_si128(blank, control),
                                                  _mm_cmpeq_epi8(v, c7f)));
    nl_count = _mm_sub_epi8(nl_count, _mm_cmpeq_epi8(v, nl));
  }
  bad = _mm_movemask_epi8(any_bad) != 0;
  __m128i wide = _mm_sad_epu8(nl_count, _mm_setzero_si128());
  *lines += (size_t)_mm_cvtsi128_si32(wide) + (size_t)_mm_extract_epi16(wide, 4);
#endif
  for (; i < end; i++) bad = bad || !text_byte(t[i]), *lines += t[i] == '\n';
  return bad;
}

#ifdef HAVE_AVX2_PATH
/* block_bad thirty-two bytes at a time: the check reads every byte of the
 * input, an eighth of tcmma ptx's time at sixteen (perf). A byte is looked
 * up by its two halves (vpshufb): bit 1 where the high half is 0 and the
 * low one is not 9 to 13 (a control byte other than a blank), bit 2 for a
 * high half of 1, bit 4 for 0x7f; a byte from 0x80 looks up 0. */
__attribute__((target("avx2"))) static bool block_bad_avx2(const unsigned char *t, size_t start,
                                                           size_t end, size_t *lines) {
  size_t i = start;
  __m256i any_bad = _mm256_setzero_si256(), nl_count = _mm256_setzero_si256();
  const __m256i by_low = _mm256_setr_epi8(3, 3, 3, 3, 3, 3, 3, 3, 3, 2, 2, 2, 2, 2, 3, 7,
                                          3, 3, 3, 3, 3, 3, 3, 3, 3, 2, 2, 2, 2, 2, 3, 7);
  const __m256i by_high = _mm256_setr_epi8(1, 2, 0, 0, 0, 0, 0, 4, 0, 0, 0, 0, 0, 0, 0, 0,
                                           1, 2, 0, 0, 0, 0, 0, 4, 0, 0, 0, 0, 0, 0, 0, 0);
  const __m256i low4 = _mm256_set1_epi8(0x0f), nl = _mm256_set1_epi8('\n');
  for (; i + 32 <= end; i += 32) {
    __m256i v = _mm256_loadu_si256((const __m256i *)(t + i));
    __m256i high = _mm256_and_si256(_mm256_srli_epi16(v, 4), low4);
    any_bad = _mm256_or_si256(any_bad, _mm256_and_si256(_mm256_shuffle_epi8(by_low, v),
                                                        _mm256_shuffle_epi8(by_high, high)));
    nl_count = _mm256_sub_epi8(nl_count, _mm256_cmpeq_epi8(v, nl));
  }
  bool bad = !_mm256_testz_si256(any_bad, any_bad);
  __m256i wide = _mm256_sad_epu8(nl_count, _mm256_setzero_si256());
  *lines += (size_t)_mm256_extract_epi64(wide, 0) + (size_t)_mm256_extract_epi64(wide, 1) +
            (size_t)_mm256_extract_epi64(wide, 2) + (size_t)_mm256_extract_epi64(wide, 3);
  for (; i < end; i++) bad = bad || !text_byte(t[i]), *lines += t[i] == '\n';
  return bad;
}
#endif

/* Text that holds NUL or control bytes is not PTX. Checked a block at a
 * time; a block with a bad byte is looked at byte by byte for the first. */
tcmma_status tcmma__ptx_check_bytes(const char *text, size_t len, size_t offset,
                                    size_t *lines, tcmma_error *err) {
  const unsigned char *t = (const unsigned char *)text;
  size_t counted = 0;
#ifdef HAVE_AVX2_PATH
  bool avx2 = __builtin_cpu_supports("avx2");
#endif
  for (size_t start = 0; start < len; start += CHECK_BLOCK) {
    size_t end = len - start < CHECK_BLOCK ? len : start + CHECK_BLOCK;
#ifdef HAVE_AVX2_PATH
    if (avx2 ? !block_bad_avx2(t, start, end, &counted) : !block_bad(t, start, end, &counted))
      continue;
#else
    if (!block_bad(t, start, end, &counted)) continue;
#endif
    for (size_t i = start; i < end; i++)
      if (!text_byte(t[i]))
        return tcmma_fail(err, TCMMA_PARSE,
                          "not PTX text: control byte 0x%02x at offset %zu (binary input?)", t[i],
                          offset + i);
  }
  if (lines) *lines += counted;
  return TCMMA_OK;
}

/* Text of blanks only is empty (the first byte above a blank is near the
 * start of any module). */
bool tcmma__ptx_any_text(const char *text, size_t len) {
  const unsigned char *t = (const unsigned char *)text;
  size_t i = 0;
  while (i < len && t[i] <= ' ') i++;
  return i < len;
}

void tcmma__ptx_reader_init(reader *r, tcmma_ptx_info *info, tcmma_error *err) {
  memset(info, 0, sizeof *info);
  *r = (reader){.info = info, .err = err, .line_break_at = SIZE_MAX};
}

void tcmma__ptx_reader_free(reader *r) {
  free(r->slots), free(r->op_len);
  r->slots = NULL, r->op_len = NULL;
}

tcmma_status tcmma__ptx_finish(reader *r, size_t len, bool any_text) {
  tcmma__ptx_reader_free(r);
  tcmma_error *err = r->err;
  tcmma_ptx_info *info = r->info;
  if (!any_text)
    return tcmma_fail(err, TCMMA_PARSE,
                      "empty input: expected PTX text with .version and .target directives");
  if (r->status == TCMMA_NO_MEMORY)
    return tcmma_fail(err, TCMMA_NO_MEMORY, "out of memory reading %zu bytes of PTX", len);
  if (r->status != TCMMA_OK) return r->status;
  if (!r->saw_version || !r->saw_target)
    return tcmma_fail(err, TCMMA_PARSE, "not a PTX module: no %s directive%s",
                      !r->saw_target && !r->saw_version ? ".version or .target"
                      : !r->saw_target                  ? ".target"
                                                        : ".version",
                      !r->saw_target && !r->saw_version ? "s (is this PTX text?)" : "");
  if (r->truncated)
    return tcmma_fail(err, TCMMA_PARSE,
                      "truncated PTX: %s at line %d runs to the end of input", r->truncated,
                      line_of(r, r->truncated_at));
  if (r->depth > 0)
    return tcmma_fail(err, TCMMA_PARSE,
                      "truncated PTX: %d block(s) still open at the end of input "
                      "(the innermost opened at line %d)",
                      r->depth, r->last_open_line ? r->last_open_line : line_of(r, r->last_open));
  if (info->census_count) qsort(info->census, info->census_count, sizeof *info->census, cmp_op);
  tcmma__ptx_requirement(info);
  return TCMMA_OK;
}

tcmma_status tcmma_ptx_parse(const char *text, size_t len, tcmma_ptx_info *info,
                             tcmma_error *err) {
  if (!info) return tcmma_fail(err, TCMMA_INVALID, "tcmma_ptx_parse: info is NULL");
  memset(info, 0, sizeof *info);
  if (!text && len) return tcmma_fail(err, TCMMA_INVALID, "tcmma_ptx_parse: text is NULL");
  if (!text) text = "";
  tcmma_status s = tcmma__ptx_check_bytes(text, len, 0, NULL, err);
  if (s != TCMMA_OK) return s;
  reader r;
  tcmma__ptx_reader_init(&r, info, err);
  bool any_text = tcmma__ptx_any_text(text, len);
  if (any_text) tcmma__ptx_read_all(&r, text, len);
  return tcmma__ptx_finish(&r, len, any_text);
}

void tcmma_ptx_info_free(tcmma_ptx_info *info) {
  if (!info) return;
  free(info->target);
  for (size_t i = 0; i < info->modifier_count; i++) free(info->modifiers[i]);
  free(info->modifiers);
  for (size_t i = 0; i < info->entry_count; i++) free(info->entries[i]);
  free(info->entries);
  for (size_t i = 0; i < info->census_count; i++) free(info->census[i].opcode);
  free(info->census);
  memset(info, 0, sizeof *info);
}
