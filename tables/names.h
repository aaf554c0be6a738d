/* Internal to the library: the list of an enum's names that a message
 * gives as what was expected ("expected none, 32, 64 or 128"), made from
 * the enum's own name function, so that a message never retypes a table.
 * Not installed. */
#ifndef TCMMA_TABLES_NAMES_H
#define TCMMA_TABLES_NAMES_H

#include <stddef.h>

/* The name of value i of an enum. */
typedef const char *(*tcmma__table_name_fn)(int i);

/* name(first), ..., name(last) as "a, b or c" ("a or b"; "a") into buf
 * (cut at cap); returns buf. */
const char *tcmma__table_names(char *buf, size_t cap, tcmma__table_name_fn name, int first,
                               int last);

/* The numerics policy's names (tables/numerics.c): "wide", "narrow";
 * "ptx", "wmma"; "?" out of range. */
const char *tcmma__table_fp16_name(int mode);
const char *tcmma__table_prefer_name(int prefer);

#endif
