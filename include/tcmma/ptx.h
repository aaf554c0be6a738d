/* PTX reader: the header directives of a PTX module, its entries, a census
 * of its instructions and the minimum target that census requires
 * (tables/ptx_features.def). */
#ifndef TCMMA_PTX_H
#define TCMMA_PTX_H

#include <stddef.h>
#include "tcmma/status.h"

#ifdef __cplusplus
extern "C" {
#endif
#pragma GCC visibility push(default) /* public: the library builds with -fvisibility=hidden */

/* Which target suffixes a feature accepts (tables/ptx_features.def). */
typedef enum {
  TCMMA_PTX_SUFFIX_ANY,    /* any target at or above the sm */
  TCMMA_PTX_SUFFIX_A,      /* only sm_<sm>a */
  TCMMA_PTX_SUFFIX_A_OR_F  /* sm_<sm>a/f or a later a/f member of its family */
} tcmma_ptx_suffix;

/* One row of tables/ptx_features.def. */
typedef struct {
  const char *id;      /* "MMA_K16" */
  const char *prefix;  /* leading opcode parts */
  const char *needs;   /* "|"-separated parts the opcode must contain */
  int min_sm;          /* 80 */
  tcmma_ptx_suffix suffix;
  int min_ptx;         /* PTX ISA major*10+minor: 70 for 7.0 */
} tcmma_ptx_feature;

/* One census line: a full opcode and how many times it occurs. */
typedef struct {
  char *opcode;  /* "mma.sync.aligned.m16n8k16.row.col.f32.bf16.bf16.f32" */
  size_t count;
} tcmma_ptx_op;

typedef struct {
  int version_major, version_minor;  /* .version 8.7 -> 8, 7 */
  char *target;          /* .target arch without modifiers: "sm_80", "sm_90a" */
  int target_sm;         /* 80, 90; 0 when the arch is not sm_<digits> */
  char target_suffix;    /* 'a', 'f' or '\0' */
  char **modifiers;      /* the other .target words: "debug", "texmode_independent" */
  size_t modifier_count;
  int address_size;      /* 32 or 64; 0 when the module has no .address_size */
  char **entries;        /* .entry names, in order */
  size_t entry_count;
  tcmma_ptx_op *census;  /* distinct opcodes, sorted by opcode */
  size_t census_count;
  size_t instruction_count;   /* all instructions (the census counts summed) */
  /* What the census requires: the highest min_sm of the features matched
   * (0: nothing from the table), its suffix rule, the opcode and row that set
   * it, and the highest min PTX ISA (major*10+minor) of any matched row. */
  int required_sm;
  tcmma_ptx_suffix required_suffix;
  const char *required_by;    /* opcode in census, NULL when required_sm is 0 */
  const tcmma_ptx_feature *required_feature;
  int required_ptx;
} tcmma_ptx_info;

/* Parses PTX text (len bytes, NUL not needed) into *info, which the caller
 * frees with tcmma_ptx_info_free (also after a failure). TCMMA_PARSE naming
 * what is wrong for input that is not PTX text (NUL or control bytes, empty),
 * has no .version or .target, or is truncated (open comment, string or
 * block); TCMMA_NO_MEMORY; TCMMA_INVALID for NULL arguments. */
tcmma_status tcmma_ptx_parse(const char *text, size_t len, tcmma_ptx_info *info,
                             tcmma_error *err);

/* Frees everything tcmma_ptx_parse allocated and zeroes *info; NULL is allowed. */
void tcmma_ptx_info_free(tcmma_ptx_info *info);

/* The first row of tables/ptx_features.def that opcode matches; NULL when none. */
const tcmma_ptx_feature *tcmma_ptx_feature_for(const char *opcode);

/* Number of rows in tables/ptx_features.def, and row i (NULL out of range). */
size_t tcmma_ptx_feature_count(void);
const tcmma_ptx_feature *tcmma_ptx_feature_get(size_t i);

/* Sum of the census counts of the opcodes whose leading parts are prefix
 * ("mma.sync", "cp.async"; whole parts, as in the table). */
size_t tcmma_ptx_count(const tcmma_ptx_info *info, const char *prefix);

/* "" , "a" or "a|f": how a suffix rule is written for people. */
const char *tcmma_ptx_suffix_text(tcmma_ptx_suffix suffix);

/* Writes the required target for people into buf: "sm_80", "sm_90a",
 * "sm_120a|sm_120f", or "none" when the census requires nothing. */
void tcmma_ptx_required_text(const tcmma_ptx_info *info, char *buf, size_t size);

/* Checks the module's own .target against what its census requires:
 * TCMMA_OK when it meets it; TCMMA_FLOOR naming the target, the requirement
 * and the opcode that sets it otherwise. */
tcmma_status tcmma_ptx_check_target(const tcmma_ptx_info *info, tcmma_error *err);

#pragma GCC visibility pop
#ifdef __cplusplus
}
#endif

#endif
