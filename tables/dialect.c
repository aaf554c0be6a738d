/* The two dialects' spellings, from tables/dialect.def. */
#include "tables/dialect.h"

static const struct {
  const char *cuda, *host, *desc;
} spellings[] = {
#define TCMMA_SPELLING(ID, cuda, host, desc) {cuda, host, desc},
#include "tables/dialect.def"
#undef TCMMA_SPELLING
};

const char *tcmma__table_spell(tcmma_dialect dialect, tcmma__table_spelling w) {
  if ((unsigned)w >= TCMMA__SPELL_COUNT) return "";
  return dialect == TCMMA_DIALECT_HOST ? spellings[w].host : spellings[w].cuda;
}

const char *tcmma__table_spell_desc(tcmma__table_spelling w) {
  return (unsigned)w < TCMMA__SPELL_COUNT ? spellings[w].desc : "";
}
