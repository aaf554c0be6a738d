/* The two dialects' spellings, from tables/dialect.def. */
#include "dialect.h"

static const struct { const char *cuda, *host, *desc; } spellings[] = {
#define TCMMA_SPELLING(ID, cuda, host, desc) {cuda, host, desc},
#include "tables/dialect.def"
#undef TCMMA_SPELLING
};

const char *tcmma__spell(tcmma_dialect dialect, tcmma__spelling w) {
  if ((unsigned)w >= TCMMA__SPELL_COUNT) return "";
  return dialect == TCMMA_DIALECT_HOST ? spellings[w].host : spellings[w].cuda;
}

const char *tcmma__spell_desc(tcmma__spelling w) {
  return (unsigned)w < TCMMA__SPELL_COUNT ? spellings[w].desc : "";
}

const char *tcmma__spell_type(tcmma_dialect dialect, tcmma_prec p) {
  return tcmma__spell(dialect, tcmma__prec_words_of(p)->type);
}
