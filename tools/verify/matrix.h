/* Internal to the arm matrix (tools/verify/matrix*.c): the resolution rows,
 * the shared axes and the helpers that build one case (matrix_build.c), so
 * that the layout and composition cases (matrix_layouts.c) are built like
 * the others (matrix.c). */
#ifndef TCMMA_VERIFY_MATRIX_H
#define TCMMA_VERIFY_MATRIX_H

#include "tools/verify/verify.h"

/* One resolution row: a storage triple, policy and device, with the arm or
 * decline expected in each scope. */
typedef struct {
  const char *label; /* "f32=f16.f16/ptx" */
  tcmma_prec d, a, b;
  tcmma_fp16_mode fp16;
  bool tf32;
  tcmma_prefer prefer;
  int cc;
  int tier;          /* 1: full geometry, 2: reduced geometry, 3: reduced geometry plus
                        the layout and composition cases, 0: declines only */
  tcmma_arm arm[2];  /* expected arm per scope [statement, fragment] */
  tcmma_decline why[2]; /* expected decline per scope (OK_: accepted) */
  const char *force;  /* the arm the call asks for by marker (NULL: resolve) */
  bool saturate;      /* policy: s32 accumulation saturates */
} matrix_row;

typedef struct {
  const char *label;
  tcmma_scope scope;
  int outer;
} matrix_scope;

typedef struct {
  int mt, nt, kt; /* tiles of the expected arm */
} matrix_extent;

typedef struct {
  bool a_t, b_t; /* a, b stored transposed */
} matrix_orient;

/* statement; fragment with an outer reduction of 1 and 3 */
extern const matrix_scope matrix_scopes[3];
/* 1x1x1, 2x2x2, 3x1x2 tiles */
extern const matrix_extent matrix_extents[3];
/* every orientation of a and b */
extern const matrix_orient matrix_orients[4];

typedef enum { ST_GLOBAL, ST_SHARED, ST_SWIZZLED } matrix_storage;

/* Row i of the resolution rows; NULL past the last. */
const matrix_row *matrix_row_at(int i);

/* The row labelled label; NULL when there is none. */
const matrix_row *matrix_find_row(const char *label);

/* A call of row r in scope: operands global, plain, dense; no extents. */
tcmma_call matrix_base_call(const matrix_row *r, tcmma_scope scope);

/* Operand o stored as st with stored rows of lead elements (global: dense;
 * shared: padded by 32 bytes; swizzled: swizzle 128), or in swizzle sw with
 * rows rounded up to whole spans of the atom. */
void matrix_set_operand(tcmma_operand_desc *o, bool transposed, matrix_storage st, long lead);
void matrix_set_swizzled(tcmma_operand_desc *o, tcmma_swizzle sw, long lead);

/* The readable form of o in a case name: "t,swizzle=64,ld=32,at=8:0". */
void matrix_describe(char *out, size_t cap, const tcmma_operand_desc *o);

/* Appends c to the matrix (beyond VERIFY_MATRIX_MAX: dropped, which
 * tests/test_matrix.c catches). */
void matrix_add(const verify_case *c);

/* The cases added so far into *out (may be NULL); returns their count. */
size_t matrix_cases_built(const verify_case **out);

/* The cases of layouts and compositions (matrix_layouts.c): every swizzle
 * atom, sub-tile placements and their declines, the pieces with
 * double-buffered fragments, zero and scaled inits, wmma row pitches. */
void matrix_add_layout_cases(void);

#endif
