/* Internal to mma/: the words the renderers write, by row of
 * tables/dialect.def, and the words of each storage precision
 * (tables/prec.def names dialect rows). Not installed. */
#ifndef TCMMA_MMA_DIALECT_H
#define TCMMA_MMA_DIALECT_H

#include "tcmma/prec.h"
#include "tcmma/render.h"

typedef enum {
  TCMMA__SPELL_NONE = -1, /* an empty table cell: spelled "" */
#define TCMMA_SPELLING(ID, cuda, host, desc) TCMMA__SPELL_##ID,
#include "tables/dialect.def"
#undef TCMMA_SPELLING
  TCMMA__SPELL_COUNT
} tcmma__table_spelling;

/* Word w in dialect: its host spelling in TCMMA_DIALECT_HOST, its CUDA
 * spelling otherwise; "" for NONE or out of range. */
const char *tcmma__table_spell(tcmma_dialect dialect, tcmma__table_spelling w);

/* The element name a host wmma fragment DESC gives w ("f16", "tf32"); ""
 * when w is no fragment element type. */
const char *tcmma__table_spell_desc(tcmma__table_spelling w);

/* The CUDA words of a storage precision (the columns of tables/prec.def). */
typedef struct {
  tcmma__table_spelling type, to_f32, from_f32, pair, pair_to, pair_from;
} tcmma__table_prec_words;

/* p's words; every one NONE when p is out of range. */
const tcmma__table_prec_words *tcmma__table_prec_words_of(tcmma_prec p);

/* The inline-asm constraint letter of a fragment register holding one
 * element of p ("f", "d", "r"; tables/prec.def); "r" when out of range. */
const char *tcmma__table_prec_asm(tcmma_prec p);
/* The type of p's block scales ("ue8m0", "ue4m3"; "" when p is unscaled or
 * out of range). */
const char *tcmma__table_prec_scale(tcmma_prec p);

/* The element type of storage p in dialect ("__half", "tcmma_sim_half"). */
const char *tcmma__table_spell_type(tcmma_dialect dialect, tcmma_prec p);

#endif
