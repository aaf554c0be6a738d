/* The PTX reader's state, shared by the whole-text parse (reader.c) and the
 * streaming parse (stream.c), which feeds it the input a chunk at a time. */
#ifndef TCMMA_PTX_READER_H
#define TCMMA_PTX_READER_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include "tcmma/ptx.h"

/* One slot of the census hash (reader.c). */
typedef struct {
  uint64_t lo, hi, hash;
  size_t op;
} tcmma__ptx_slot;

typedef struct {
  const char *text;       /* the text in hand: the whole module, or a window of it */
  size_t len, pos;
  size_t base_line;       /* line ends before text[0] (a stream's dropped text) */
  size_t lines_in_hand;   /* line ends in text[0..len) (a stream counts them) */
  int depth;
  size_t last_open;       /* offset of the last '{' opened */
  int last_open_line;     /* its line once its text is dropped; 0 until then */
  tcmma_ptx_info *info;
  tcmma_error *err;
  tcmma_status status;    /* first hard failure (NO_MEMORY, PARSE) */
  const char *truncated;  /* what ran into the end of input, when anything */
  size_t truncated_at;
  bool saw_version, saw_target;
  size_t line_break_at;   /* just after the last block comment that spans lines */
  /* census hash: open addressing at most a quarter full (a probe rarely
   * goes past its first slot), each slot holding what a probe compares:
   * the opcode's head (its first sixteen bytes zero-padded: an opcode
   * shorter than sixteen bytes is compared by these two words alone) and
   * hash, and its census index + 1 (0: empty); the lengths beside the census */
  tcmma__ptx_slot *slots;
  size_t slot_cap, op_cap;
  unsigned slot_shift;    /* 64 - log2(slot_cap): a hash's top bits pick its slot */
  size_t *op_len;
  size_t last_slot;       /* the slot the last instruction was counted in */
} tcmma__ptx_reader;

/* A reader over no text yet, filling info (zeroed) and failing into err. */
void tcmma__ptx_reader_init(tcmma__ptx_reader *r, tcmma_ptx_info *info, tcmma_error *err);

/* TCMMA_PARSE when t[0..n) holds a byte PTX text may not (a control byte,
 * DEL), named with its offset in the input (offset: t[0]'s); else adds its
 * line ends to *lines (NULL: not asked). */
tcmma_status tcmma__ptx_check_bytes(const char *t, size_t n, size_t offset, size_t *lines,
                                    tcmma_error *err);

/* Whether t[0..n) holds a byte above a blank (the input is not empty). */
bool tcmma__ptx_any_text(const char *t, size_t n);

/* Reads the statements of r->text[r->pos..len), len being the end of input. */
void tcmma__ptx_read_all(tcmma__ptx_reader *r, const char *text, size_t len);

/* Reads the whole statements of text[r->pos..len) when more input follows:
 * a statement that meets len (or fails within a few bytes of it) is
 * undone and r->pos left at its start, to be read again with more text. */
void tcmma__ptx_read_more(tcmma__ptx_reader *r, const char *text, size_t len);

/* Forgets r->text[0..cut) (read: cut <= r->pos): offsets become relative
 * to what was text[cut], its lines (lines_in_hand less those kept) moved
 * into base_line. */
void tcmma__ptx_drop(tcmma__ptx_reader *r, size_t cut);

/* The end of a parse of len bytes (any_text: not blanks only): empty
 * input, the reader's failure, a missing .version/.target, truncation, open
 * blocks; or the census sorted and its requirement found. Frees the
 * reader's own memory. */
tcmma_status tcmma__ptx_finish(tcmma__ptx_reader *r, size_t len, bool any_text);

/* Frees the reader's own memory (not info's); finish does it too. */
void tcmma__ptx_reader_free(tcmma__ptx_reader *r);

/* tcmma_ptx_parse_stream reading chunk bytes at a time (chunk >= 1): the
 * knob tests turn down to split every statement, comment and string. */
tcmma_status tcmma__ptx_parse_chunked(tcmma_ptx_read_fn read, void *ctx, size_t chunk,
                                      tcmma_ptx_info *info, tcmma_error *err);

#endif
