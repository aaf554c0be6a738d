/* Lists of an enum's names for messages (tables/names.h). */
#include <stdio.h>
#include "tables/names.h"

const char *tcmma__table_names(char *buf, size_t cap, tcmma__table_name_fn name, int first,
                               int last) {
  if (!buf || cap == 0) return buf;
  buf[0] = '\0';
  size_t used = 0;
  for (int i = first; i <= last; i++) {
    const char *sep = i == first ? "" : i == last ? " or " : ", ";
    int n = snprintf(buf + used, cap - used, "%s%s", sep, name(i));
    if (n < 0 || (size_t)n >= cap - used) break;
    used += (size_t)n;
  }
  return buf;
}
