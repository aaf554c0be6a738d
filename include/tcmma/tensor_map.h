/* TMA tensor maps as a value (tables/tensor_map.def, docs/emit.md "Tensor
 * maps"): a 1-D to 5-D tile of global memory, its box, element strides,
 * interleave, swizzle, L2 promotion and out-of-bounds fill. tcmma checks a
 * map against cuTensorMapEncodeTiled's rules before the driver sees it and
 * names the broken one; on a device the driver encodes it into the opaque
 * 128-byte CUtensorMap a kernel takes as `const __grid_constant__
 * CUtensorMap`; the host simulator reads the value itself. */
#ifndef TCMMA_TENSOR_MAP_H
#define TCMMA_TENSOR_MAP_H

#include <stddef.h>
#include "tcmma/prec.h"
#include "tcmma/status.h"
#include "tcmma/swizzle.h"

#ifdef __cplusplus
extern "C" {
#endif
#pragma GCC visibility push(default) /* public: the library builds with -fvisibility=hidden */

typedef enum {
#define TCMMA_TMAP_INTERLEAVE(ID, value, ...) TCMMA_TMAP_INTERLEAVE_##ID = (value),
#include "tables/tensor_map.def"
  /* the number of rows (the values: 0..COUNT-1 in any row order, mma/abi_values.c) */
  TCMMA_TMAP_INTERLEAVE_COUNT = 0
#define TCMMA_TMAP_INTERLEAVE(...) +1
#include "tables/tensor_map.def"
} tcmma_tmap_interleave;

typedef enum {
#define TCMMA_TMAP_L2(ID, value, ...) TCMMA_TMAP_L2_##ID = (value),
#include "tables/tensor_map.def"
  TCMMA_TMAP_L2_COUNT = 0
#define TCMMA_TMAP_L2(...) +1
#include "tables/tensor_map.def"
} tcmma_tmap_l2;

typedef enum {
#define TCMMA_TMAP_OOB(ID, value, ...) TCMMA_TMAP_OOB_##ID = (value),
#include "tables/tensor_map.def"
  TCMMA_TMAP_OOB_COUNT = 0
#define TCMMA_TMAP_OOB(...) +1
#include "tables/tensor_map.def"
} tcmma_tmap_oob;

/* The encoder's rules, in the order tcmma_tensor_map_check checks them. */
typedef enum {
#define TCMMA_TMAP_RULE(ID, value, ...) TCMMA_TMAP_RULE_##ID = (value),
#include "tables/tensor_map.def"
  TCMMA_TMAP_RULE_COUNT = 0
#define TCMMA_TMAP_RULE(...) +1
#include "tables/tensor_map.def"
} tcmma_tmap_rule;

#define TCMMA_TMAP_RANK_MAX 5
#define TCMMA_CU_TENSOR_MAP_BYTES 128 /* sizeof(CUtensorMap) */
#define TCMMA_CU_TENSOR_MAP_ALIGN 64  /* the alignment the encoder needs (cuda.h declares 128) */

/* A tile of global memory. Dimension 0 is the innermost (contiguous) one:
 * a row-major R x C matrix is dims {C, R}, strides {row bytes}. */
typedef struct {
  size_t size;                 /* sizeof(tcmma_tensor_map): tcmma_tensor_map_default() */
  tcmma_prec prec;             /* element type (its bytes: tcmma_prec_bytes) */
  int rank;                    /* dimensions used, 1..TCMMA_TMAP_RANK_MAX */
  unsigned long long address;  /* global base: a device address (the simulator: a host one) */
  unsigned long long dims[TCMMA_TMAP_RANK_MAX];    /* elements per dimension */
  unsigned long long strides[TCMMA_TMAP_RANK_MAX - 1]; /* bytes per step of dimension i+1 */
  unsigned box[TCMMA_TMAP_RANK_MAX];               /* the box one copy moves, elements */
  unsigned element_strides[TCMMA_TMAP_RANK_MAX];   /* 1 = every element */
  tcmma_tmap_interleave interleave;
  tcmma_swizzle swizzle;       /* of the box in shared memory (none, 32, 64, 128) */
  tcmma_tmap_l2 l2_promotion;
  tcmma_tmap_oob oob_fill;     /* what lands for elements outside dims */
} tcmma_tensor_map;

/* A map with its size set and every element stride 1, rank 0 (inline: the
 * caller's own sizeof). */
static inline tcmma_tensor_map tcmma_tensor_map_default(void) {
  tcmma_tensor_map m = {0};
  m.size = sizeof m;
  for (int i = 0; i < TCMMA_TMAP_RANK_MAX; i++) m.element_strides[i] = 1;
  return m;
}

/* A row-major rows x cols matrix of prec at address with rows of ld_bytes,
 * copied in boxes of box_rows x box_cols landing in swizzle sw. */
static inline tcmma_tensor_map tcmma_tensor_map_2d(tcmma_prec prec, unsigned long long address,
                                                   unsigned long long rows,
                                                   unsigned long long cols,
                                                   unsigned long long ld_bytes,
                                                   unsigned box_rows, unsigned box_cols,
                                                   tcmma_swizzle sw) {
  tcmma_tensor_map m = tcmma_tensor_map_default();
  m.prec = prec, m.rank = 2, m.address = address, m.swizzle = sw;
  m.dims[0] = cols, m.dims[1] = rows, m.strides[0] = ld_bytes;
  m.box[0] = box_cols, m.box[1] = box_rows;
  return m;
}

/* Checks map against every rule of tables/tensor_map.def in order:
 * TCMMA_OK (and *broken = TCMMA_TMAP_RULE_COUNT), or TCMMA_INVALID naming
 * the first broken rule, the value and what the rule expects, that rule in
 * *broken (broken may be NULL). A NULL map is TCMMA_INVALID (rule SIZE). */
tcmma_status tcmma_tensor_map_check(const tcmma_tensor_map *map, tcmma_tmap_rule *broken,
                                    tcmma_error *err);

/* Bytes one copy of a valid map's box lands in shared memory: the
 * product over dimensions of ceil(box / element stride) elements (dimension
 * 0 whole when interleave is none) times the element size; the
 * mbarrier transaction count of the copy. -1 for a map that fails the check. */
long long tcmma_tensor_map_box_bytes(const tcmma_tensor_map *map);

/* Elements of dimension dim one copy of a valid map lands: ceil(box[dim] /
 * element_strides[dim]), the whole box[0] without interleave (the TMA has
 * no stride in dimension 0); 0 for a map that fails the check or a dim
 * outside its rank. */
unsigned tcmma_tensor_map_box_elems(const tcmma_tensor_map *map, int dim);

/* Byte offset in shared memory, from the box's 128-byte-aligned base, of
 * the box element at index idx[0..rank-1] (counted in landed elements):
 * dense rows of the landed dimension 0, the swizzle's Swizzle<B,4,3> on the
 * byte offset. -1 for a map that fails the check, an interleaved map (not
 * modelled) or an index outside the landed box. */
long long tcmma_tensor_map_shared_offset(const tcmma_tensor_map *map, const unsigned *idx);

/* The name ("swizzle-span") and the requirement of rule r; "?" when out of range. */
const char *tcmma_tensor_map_rule_name(tcmma_tmap_rule r);
const char *tcmma_tensor_map_rule_text(tcmma_tmap_rule r);

/* Names of the option values ("none", "16", "32"; "none", "64", ...;
 * "zero", "nan"); "?" when out of range. */
const char *tcmma_tmap_interleave_name(tcmma_tmap_interleave v);
const char *tcmma_tmap_l2_name(tcmma_tmap_l2 v);
const char *tcmma_tmap_oob_name(tcmma_tmap_oob v);

/* Parses one of those names into *out; TCMMA_INVALID naming the value and
 * the valid names otherwise. */
tcmma_status tcmma_tmap_interleave_parse(const char *name, tcmma_tmap_interleave *out,
                                         tcmma_error *err);
tcmma_status tcmma_tmap_l2_parse(const char *name, tcmma_tmap_l2 *out, tcmma_error *err);
tcmma_status tcmma_tmap_oob_parse(const char *name, tcmma_tmap_oob *out, tcmma_error *err);

/* Encodes a map that passes the check through the driver's
 * cuTensorMapEncodeTiled into out (TCMMA_CU_TENSOR_MAP_BYTES bytes,
 * TCMMA_CU_TENSOR_MAP_ALIGN-aligned: the kernel's CUtensorMap argument).
 * TCMMA_INVALID for a map that fails the check (as tcmma_tensor_map_check)
 * or a NULL or misaligned out (rule MAP_ALIGN); TCMMA_UNAVAILABLE without a
 * driver, or with one lacking the encoder (before CUDA 12.0); TCMMA_CUDA
 * naming the CUresult when the driver refuses. */
tcmma_status tcmma_tensor_map_encode(const tcmma_tensor_map *map, void *out, tcmma_error *err);

#pragma GCC visibility pop
#ifdef __cplusplus
}
#endif

#endif
