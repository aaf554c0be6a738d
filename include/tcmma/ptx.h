/* PTX reader: the header directives of a PTX module, its entries, a census
 * of its instructions and the minimum target that census requires
 * (tables/ptx_features.def). */
#ifndef TCMMA_PTX_H
#define TCMMA_PTX_H

#include <stdbool.h>
#include <stddef.h>
#include "tcmma/status.h"

#ifdef __cplusplus
extern "C" {
#endif
#pragma GCC visibility push(default) /* public: the library builds with -fvisibility=hidden */

/* Which target suffixes a feature accepts (tables/ptx_features.def). */
typedef enum {
  TCMMA_PTX_SUFFIX_ANY = 0, /* any target whose sm is listed */
  TCMMA_PTX_SUFFIX_A = 1,   /* only arch-specific targets: sm_90a */
  TCMMA_PTX_SUFFIX_A_OR_F = 2  /* arch-specific or family targets: sm_100a, sm_100f */
} tcmma_ptx_suffix;

/* The rows of tables/ptx_features.def. */
typedef enum {
#define TCMMA_PTX_FEATURE(ID, value, ...) TCMMA_PTX_F_##ID = (value),
#include "tables/ptx_features.def"
#undef TCMMA_PTX_FEATURE
  /* the number of rows (the values: 0..COUNT-1 in any row order, mma/abi_values.c) */
  TCMMA_PTX_FEATURE_COUNT = 0
#define TCMMA_PTX_FEATURE(...) +1
#include "tables/ptx_features.def"
#undef TCMMA_PTX_FEATURE
} tcmma_ptx_feature_id;

/* A row's lowest sm as a constant, for the tables that name a row's floor
 * (tables/markers.def): TCMMA_PTX_MIN_SM(CP_ASYNC) is 80. */
#define TCMMA__PTX_FIRST(first, ...) first
enum {
#define TCMMA_PTX_FEATURE(ID, value, tokens, suffix, sms, ptx_major, ptx_minor) \
  TCMMA_PTX_MIN_SM_##ID = TCMMA__PTX_FIRST sms,
#include "tables/ptx_features.def"
#undef TCMMA_PTX_FEATURE
};
#define TCMMA_PTX_MIN_SM(ID) TCMMA_PTX_MIN_SM_##ID
/* A row's suffix as a constant, for the tables that name a row's target
 * (tables/wgmma.def): TCMMA_PTX_SUFFIX_OF(WGMMA) is TCMMA_PTX_SUFFIX_A. */
enum {
#define TCMMA_PTX_FEATURE(ID, value, tokens, suffix, sms, ptx_major, ptx_minor) \
  TCMMA_PTX_SUFFIX_OF_##ID = TCMMA_PTX_SUFFIX_##suffix,
#include "tables/ptx_features.def"
#undef TCMMA_PTX_FEATURE
};
#define TCMMA_PTX_SUFFIX_OF(ID) TCMMA_PTX_SUFFIX_OF_##ID

#define TCMMA_PTX_SMS_MAX 6
/* In a row's sms: every sm above the one before holds it too. */
#define TCMMA_PTX_SM_UP (-1)
/* Family targets (sm_XXf) exist from sm_100 on (PTX ISA 8.8). */
#define TCMMA_PTX_FAMILY_MIN_SM 100

/* One row of tables/ptx_features.def. */
typedef struct {
  const char *id;      /* "MMA_M16N8K16_F64" */
  const char *tokens;  /* "mma.m16n8k16.f64": first part, then parts anywhere */
  tcmma_ptx_suffix suffix;
  int sms[TCMMA_PTX_SMS_MAX]; /* ascending; TCMMA_PTX_SM_UP after the last: and
                               * every later sm; 0 ends the list */
  int min_sm;          /* sms[0] */
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
  /* What the census requires: the lowest target that holds every
   * instruction (required_sm; 0: nothing from the table) and which suffixes
   * hold it there (ANY: sm_<sm> itself; A_OR_F: sm_<sm>a and sm_<sm>f; A:
   * sm_<sm>a only), the opcode and row that set it, and the highest min PTX
   * ISA (major*10+minor) of any matched row. no_target: no target holds
   * every instruction (wgmma with tcgen05); required_sm is then the highest
   * floor of the rows matched. */
  int required_sm;
  tcmma_ptx_suffix required_suffix;
  const char *required_by;    /* opcode in census, NULL when required_sm is 0 */
  const tcmma_ptx_feature *required_feature;
  int required_ptx;
  bool no_target;
} tcmma_ptx_info;

/* Parses PTX text (len bytes, NUL not needed) into *info, which the caller
 * frees with tcmma_ptx_info_free (also after a failure). TCMMA_PARSE naming
 * what is wrong for input that is not PTX text (NUL or control bytes, empty),
 * has no .version or .target, or is truncated (open comment, string or
 * block); TCMMA_NO_MEMORY; TCMMA_INVALID for NULL arguments. */
tcmma_status tcmma_ptx_parse(const char *text, size_t len, tcmma_ptx_info *info,
                             tcmma_error *err);

/* Where tcmma_ptx_parse_stream reads from: fills buf with 1 to cap bytes
 * and returns how many, 0 at the end of input, -1 on failure (errno may say
 * why). */
typedef long (*tcmma_ptx_read_fn)(void *ctx, char *buf, size_t cap);

/* tcmma_ptx_parse of the text read(ctx, ...) gives, read a chunk at a time
 * (1 MiB; more only for a longer statement) and parsed as it arrives, so
 * memory stays bounded: the same result, the same errors, and TCMMA_IO when
 * read fails. A control byte ends the read at once. */
tcmma_status tcmma_ptx_parse_stream(tcmma_ptx_read_fn read, void *ctx, tcmma_ptx_info *info,
                                    tcmma_error *err);

/* tcmma_ptx_parse_stream of file descriptor fd read to its end (read(2); fd
 * is not closed). TCMMA_IO naming the system's reason when a read fails. */
tcmma_status tcmma_ptx_parse_fd(int fd, tcmma_ptx_info *info, tcmma_error *err);

/* Frees everything tcmma_ptx_parse allocated and zeroes *info; NULL is allowed. */
void tcmma_ptx_info_free(tcmma_ptx_info *info);

/* Whether opcode ("mma.sync.aligned.m16n8k16.row.col.f32.f64...") matches
 * row f: its first part is the row's first token and every other token is a
 * whole part of it, in any order. false for NULL arguments. */
bool tcmma_ptx_feature_matches(const tcmma_ptx_feature *f, const char *opcode);

/* Whether the target sm_<sm><suffix> (suffix 0, 'a' or 'f') holds row f's
 * instructions. false for NULL f and for family targets below sm_100. */
bool tcmma_ptx_feature_holds(const tcmma_ptx_feature *f, int sm, char suffix);

/* The row that decides what opcode needs (the strictest it matches: highest
 * sm, then suffix, then PTX ISA version, then most tokens); NULL when none. */
const tcmma_ptx_feature *tcmma_ptx_feature_for(const char *opcode);

/* Whether opcode's root (its first '.'-separated part: "mov" of "mov.b32")
 * is an instruction of the PTX ISA (tables/ptx_instructions.def). One that
 * no row of tables/ptx_features.def matches needs nothing when it is; what
 * it needs is not known when it is not (a typo, a later instruction). false
 * for NULL. */
bool tcmma_ptx_opcode_known(const char *opcode);

/* Whether sm_<sm><suffix> holds opcode: every row it matches holds it. */
bool tcmma_ptx_opcode_holds(const char *opcode, int sm, char suffix);

/* What opcode alone needs, as tcmma_ptx_info's required_* fields say it:
 * *sm the lowest sm that holds it (0: nothing; the highest floor when no
 * target does, then false is returned), *suffix the suffixes that hold it
 * there, *ptx its PTX ISA version. true when a target holds it. */
bool tcmma_ptx_opcode_need(const char *opcode, int *sm, tcmma_ptx_suffix *suffix, int *ptx);

/* Number of rows in tables/ptx_features.def, and row i (NULL out of range). */
size_t tcmma_ptx_feature_count(void);
const tcmma_ptx_feature *tcmma_ptx_feature_get(size_t i);

/* Sum of the census counts of the opcodes whose leading parts are prefix
 * ("mma.sync", "cp.async"; whole parts). */
size_t tcmma_ptx_count(const tcmma_ptx_info *info, const char *prefix);

/* "" , "a" or "a|f": how a suffix rule is written for people. */
const char *tcmma_ptx_suffix_text(tcmma_ptx_suffix suffix);

/* Writes the required target for people into buf: "sm_80", "sm_90a",
 * "sm_120a|sm_120f", "none" when the census requires nothing, or "no
 * target" when none holds it all. */
void tcmma_ptx_required_text(const tcmma_ptx_info *info, char *buf, size_t size);

/* Writes what row f needs for people: "sm_80+", "sm_90a", "sm_100a|f,
 * sm_103a|f, sm_110a|f", "sm_120a|f+". */
void tcmma_ptx_feature_text(const tcmma_ptx_feature *f, char *buf, size_t size);

/* Parses a GPU target "sm_<digits>[a|f]" into *sm and *suffix (0, 'a', 'f');
 * TCMMA_INVALID naming the text and the expected form otherwise (also a
 * family target below sm_100, which does not exist). */
tcmma_status tcmma_ptx_target_parse(const char *text, int *sm, char *suffix, tcmma_error *err);

/* The first PTX ISA version (major*10+minor: 78 for 7.8) that can write
 * .target sm_<sm><suffix> (suffix 0, 'a' or 'f'), from tables/ptx_targets.def;
 * 0 for a target the toolkit's ptxas does not have. */
int tcmma_ptx_target_ptx(int sm, char suffix);

/* Checks the module's own .target and .version against every instruction of
 * its census, and the .version against the .target's first version
 * (tcmma_ptx_target_ptx): TCMMA_OK when they hold it; TCMMA_FLOOR naming the
 * target or version, the opcode and what it needs otherwise. */
tcmma_status tcmma_ptx_check_target(const tcmma_ptx_info *info, tcmma_error *err);

/* The oldest GPU target the CUDA 13 toolkit's ptxas assembles for: below it
 * (sm_70 and older) no module compiles or loads through this toolkit.
 * tests/test_ptx.c proves it against `ptxas --help`. */
#define TCMMA_PTXAS_SM_MIN 75

/* Whether the module loads on a GPU of target sm_<sm><suffix>, as ptxas
 * -arch decides: its .target compiles to that target (sm_XY to any sm at or
 * above XY; sm_XYf to sm_XZ, a or f in its family, Z >= Y; sm_XYa only to
 * itself) and its own .target and .version hold every instruction
 * (tcmma_ptx_check_target), and the toolkit's ptxas has that target at all
 * (sm >= TCMMA_PTXAS_SM_MIN). TCMMA_OK, or TCMMA_FLOOR naming the first reason. */
tcmma_status tcmma_ptx_check_on(const tcmma_ptx_info *info, int sm, char suffix,
                                tcmma_error *err);

#pragma GCC visibility pop
#ifdef __cplusplus
}
#endif

#endif
