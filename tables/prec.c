/* Storage precisions, derived from tables/prec.def. */
#include <stdio.h>
#include <string.h>

#include "tables/dialect.h"

typedef struct {
  const char *name;
  int bits;
  const char *ptx_type, *header, *asm_constraint;
  bool integer;
  const char *scale;
  tcmma__table_prec_words words;
} prec_row;

/* Indexed by value (a row's value column, not its position). */
static const prec_row rows[TCMMA_PREC_COUNT] = {
#define TCMMA_PREC(ID, value, name, bits, cuda_type, ptx_type, to_f32, from_f32, pair, pair_to,  \
                   pair_from, header, asm, integer, scale)                                                \
  [value] = {name, bits, ptx_type, header, asm, integer, scale,                               \
   {TCMMA__SPELL_##cuda_type, TCMMA__SPELL_##to_f32, TCMMA__SPELL_##from_f32,       \
    TCMMA__SPELL_##pair, TCMMA__SPELL_##pair_to, TCMMA__SPELL_##pair_from}},
#include "tables/prec.def"
#undef TCMMA_PREC
};

static const prec_row *row(tcmma_prec p) {
  return (unsigned)p < TCMMA_PREC_COUNT ? &rows[p] : NULL;
}

void tcmma_prec_list(char *buf, unsigned cap) {
  if (!buf || cap == 0) return;
  buf[0] = '\0';
  size_t used = 0;
  for (int i = 0; i < TCMMA_PREC_COUNT; i++) {
    int n = snprintf(buf + used, cap - used, "%s%s", i ? " " : "", rows[i].name);
    if (n < 0 || (size_t)n >= cap - used) return;
    used += (size_t)n;
  }
}

tcmma_status tcmma_prec_parse(const char *name, tcmma_prec *out, tcmma_error *err) {
  for (int i = 0; name && i < TCMMA_PREC_COUNT; i++)
    if (strcmp(name, rows[i].name) == 0) {
      if (out) *out = (tcmma_prec)i;
      return TCMMA_OK;
    }
  char names[256];
  tcmma_prec_list(names, sizeof names);
  return tcmma_fail(err, TCMMA_INVALID, "unknown precision '%s': expected one of %s",
                    name ? name : "(null)", names);
}

const tcmma__table_prec_words *tcmma__table_prec_words_of(tcmma_prec p) {
  static const tcmma__table_prec_words none = {TCMMA__SPELL_NONE, TCMMA__SPELL_NONE,
                                               TCMMA__SPELL_NONE, TCMMA__SPELL_NONE,
                                               TCMMA__SPELL_NONE, TCMMA__SPELL_NONE};
  return row(p) ? &row(p)->words : &none;
}

/* A CUDA word of p; "?" when p is out of range. */
static const char *word(tcmma_prec p, tcmma__table_spelling w) {
  return row(p) ? tcmma__table_spell(TCMMA_DIALECT_CUDA, w) : "?";
}

const char *tcmma_prec_name(tcmma_prec p) { return row(p) ? row(p)->name : "?"; }
const char *tcmma__table_prec_asm(tcmma_prec p) { return row(p) ? row(p)->asm_constraint : "r"; }
bool tcmma_prec_is_integer(tcmma_prec p) { return row(p) && row(p)->integer; }
bool tcmma_prec_is_scaled(tcmma_prec p) { return row(p) && row(p)->scale[0]; }
const char *tcmma__table_prec_scale(tcmma_prec p) { return row(p) ? row(p)->scale : ""; }
const char *tcmma_prec_scale_type(tcmma_prec p) { return tcmma__table_prec_scale(p); }
int tcmma_prec_bits(tcmma_prec p) { return row(p) ? row(p)->bits : 0; }
int tcmma_prec_bytes(tcmma_prec p) { return row(p) ? row(p)->bits / 8 : 0; }
const char *tcmma_prec_ptx_type(tcmma_prec p) { return row(p) ? row(p)->ptx_type : "?"; }
const char *tcmma_prec_header(tcmma_prec p) { return row(p) ? row(p)->header : "?"; }
const char *tcmma_prec_cuda_type(tcmma_prec p) {
  return word(p, tcmma__table_prec_words_of(p)->type);
}
const char *tcmma_prec_to_f32(tcmma_prec p) {
  return word(p, tcmma__table_prec_words_of(p)->to_f32);
}
const char *tcmma_prec_from_f32(tcmma_prec p) {
  return word(p, tcmma__table_prec_words_of(p)->from_f32);
}
const char *tcmma_prec_pair_type(tcmma_prec p) {
  return word(p, tcmma__table_prec_words_of(p)->pair);
}
const char *tcmma_prec_pair_to_f32(tcmma_prec p) {
  return word(p, tcmma__table_prec_words_of(p)->pair_to);
}
const char *tcmma_prec_pair_from_f32(tcmma_prec p) {
  return word(p, tcmma__table_prec_words_of(p)->pair_from);
}

const char *tcmma__table_spell_type(tcmma_dialect dialect, tcmma_prec p) {
  return tcmma__table_spell(dialect, tcmma__table_prec_words_of(p)->type);
}
