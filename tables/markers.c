/* The source markers besides the arms' own (tables/markers.def): the facts
 * emission writes into its text and arch targeting reads back. */
#include "tcmma/arch.h"
#include "tcmma/kernel_attrs.h"

static const struct {
  const char *text;
  bool tag;
  int args; /* a CODE name counts only called with this many arguments (0: any use) */
  int floor;
} rows[TCMMA_MARKER_COUNT] = { /* indexed by value, not row position */
#define TCMMA_MARKER(ID, value, text, where, floor) [value] = {text, TCMMA__WHERE_##where, floor},
#define TCMMA__WHERE_CODE false, 0
#define TCMMA__WHERE_CALL3 false, 3
#define TCMMA__WHERE_TAG true, 0
#include "tables/markers.def"
#undef TCMMA__WHERE_CODE
#undef TCMMA__WHERE_CALL3
#undef TCMMA__WHERE_TAG
#undef TCMMA_MARKER
};

const char *tcmma_marker_text(tcmma_marker m) {
  return (unsigned)m < TCMMA_MARKER_COUNT ? rows[m].text : "";
}

int tcmma_marker_floor(tcmma_marker m) {
  return (unsigned)m < TCMMA_MARKER_COUNT ? rows[m].floor : 0;
}

bool tcmma_marker_is_tag(tcmma_marker m) { return (unsigned)m < TCMMA_MARKER_COUNT && rows[m].tag; }

int tcmma_marker_min_args(tcmma_marker m) {
  return (unsigned)m < TCMMA_MARKER_COUNT ? rows[m].args : 0;
}
