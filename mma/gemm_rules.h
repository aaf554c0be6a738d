/* Internal to mma/: the GEMM's copy unit and copy counts, shared by its
 * planner (mma/gemm_plan.c: shared memory, alignment, census, registers)
 * and its renderer (mma/render_gemm_io.c: the loader and epilogue loops),
 * so what the plan counts is what the kernel copies. Not installed. */
#ifndef TCMMA_MMA_GEMM_RULES_H
#define TCMMA_MMA_GEMM_RULES_H

#include "emit.h"
#include "tcmma/gemm.h"

/* Bytes of one unit of the GEMM's global traffic: cp.async.cg copies
 * exactly 16 bytes (the only size PTX gives it), and the epilogue stores
 * d in the same 16-byte units (one uint4), so global rows are whole units. */
enum { TCMMA__GEMM_COPY_BYTES = 16 };

/* Bytes at the end of a split-K kernel's dynamic shared memory for the
 * flag that tells its threads whether their slice arrived last (in the one
 * allocation the plan counts, not a static __shared__ one it would not). */
enum { TCMMA__GEMM_FLAG_BYTES = 16 };

/* Bytes of one mbarrier object in shared memory (PTX ISA, "Size and
 * alignment of mbarrier object": 8 bytes, 8-byte aligned). */
enum { TCMMA__GEMM_MBAR_BYTES = 8 };

/* The longest kernel name (a C identifier) and the suffix of the wgmma
 * kernel's tile product (NAME_wgmma: one per kernel, so that tuned variants
 * share one translation unit). */
#define TCMMA__GEMM_NAME_MAX 64
#define TCMMA__GEMM_TILE_SUFFIX "_wgmma"
#define TCMMA__GEMM_DRAIN_SUFFIX "_drain" /* no longer than the tile's */
/* and of the tcgen05 kernel's (NAME_umma, its one-thread tile product) */
#define TCMMA__GEMM_UMMA_SUFFIX "_umma"

/* The tcgen05 kernel's block (mma/gemm_plan_tcgen05.c plans it,
 * mma/render_gemm_tcgen05.c writes it): the epilogue warpgroup's four warps
 * (0-3: warp w reaches Tensor Memory lanes 32w..), the TMA producer's warp
 * and the MMA thread's, six in all; the accumulator columns one epilogue
 * tcgen05.ld reads (.32x32b.x16: 16 registers a thread), block_n whole
 * loads of them. */
enum {
  TCMMA__GEMM_TCGEN05_PRODUCER_WARP = 4,
  TCMMA__GEMM_TCGEN05_MMA_WARP = 5,
  TCMMA__GEMM_TCGEN05_WARPS = 6,
  TCMMA__GEMM_TMEM_LOAD_COLUMNS = 16
};

/* The comment lines around the wgmma kernel's helper functions (TMA and
 * mbarrier, the tile product, the drain), which each dialect writes its
 * own way; the kernel after them is one text (tests/test_sim_dialect.c). */
#define TCMMA__GEMM_HELPERS_BEGIN "/* tcmma: the kernel's helpers (each dialect's own) */"
#define TCMMA__GEMM_HELPERS_END "/* tcmma: end of the kernel's helpers */"

/* The smallest cp.async copy (cp.async.ca takes 4, 8 or 16 bytes): rows of
 * a class below it load with plain loads. */
enum { TCMMA__GEMM_ASYNC_MIN = 4 };

/* The cc from which the loader's copies may be cp.async (its marker's
 * floor, tables/markers.def); below it every copy is a plain load. */
int tcmma__emit_gemm_loader_floor(void);

/* The alignment classes of opts (0: the widest each ld allows) into info,
 * with the copy size and kind (cp.async or plain) they give each operand;
 * false with msg naming the operand when a class is no class or its rows
 * break it. g's call must be checked (ld filled). */
bool tcmma__emit_gemm_classes(const tcmma_gemm_plan *g, const tcmma_gemm_opts *o,
                              tcmma_gemm_info *i, char *msg, size_t cap);

/* The batch and the K slices of opts into info (1 when not asked), g's
 * grid z and the split-K workspace; false with msg for a value out of
 * range. g's grid and k tiles must be planned. */
bool tcmma__emit_gemm_batch(tcmma_gemm_plan *g, const tcmma_gemm_opts *o, tcmma_gemm_info *i,
                            char *msg, size_t cap);

/* The shapes an accepted g serves and which operands meet ragged edges,
 * into info (info->shape_args set, g's predication planned). */
void tcmma__emit_gemm_serves(const tcmma_gemm_plan *g, tcmma_gemm_info *i);

/* The 16-byte copies that fill operand op's (A or B) stage tile of g; g's
 * stage shape (a_rows/a_cols or b_rows/b_cols) must be set. */
long tcmma__emit_gemm_stage_copies(const tcmma_gemm_plan *g, tcmma_operand op);

/* The copies each of g's threads issues for op's stage tile (the loader
 * loop's trip count), and for a whole stage (A and B); exact once the
 * planner has checked that every tile's copies are a multiple of threads. */
long tcmma__emit_gemm_copies_per_thread(const tcmma_gemm_plan *g, tcmma_operand op);
long tcmma__emit_gemm_stage_copies_per_thread(const tcmma_gemm_plan *g);

/* Whether g's k loop runs its steady state unrolled by its stages (the
 * renderer's ring, mma/render_gemm.c): two stages or more, where ptxas does
 * not emulate the arm; the planner counts its registers. */
bool tcmma__emit_gemm_unrolled(const tcmma_gemm_plan *g);

/* Block-scaled GEMMs (mma/gemm_scale.c; docs/emit.md, Block-scaled
 * GEMMs). scale_block: k elements per scale of g's arm (0: unscaled).
 * pack: elements of a and b per stored byte (2 where the arm's registers
 * hold elements narrower than a byte: fp4 in global and shared memory
 * two a byte along k, the lower k in the low nibble; else 1). */
int tcmma__emit_gemm_scale_block(const tcmma_gemm_plan *g);
int tcmma__emit_gemm_pack(const tcmma_gemm_plan *g);
/* Scales per row of a stage's scale tiles (block_k / scale_block); bytes
 * of op's scale tile in a stage (block_m or block_n rows of them, rounded
 * up to a 16-byte copy); the scales loader's copy (the widest power of two
 * dividing a stage row and TCMMA_GEMM_SCALE_ROW_ALIGN); the scale
 * tensors' row bytes for k; the copies of op's tile and per thread (both
 * tiles, each rounded up: the loader strides by the block's threads). */
long tcmma__emit_gemm_scale_cols(const tcmma_gemm_plan *g);
size_t tcmma__emit_gemm_scale_tile_bytes(const tcmma_gemm_plan *g, tcmma_operand op);
int tcmma__emit_gemm_scale_unit(const tcmma_gemm_plan *g);
long tcmma__emit_gemm_scale_ld(const tcmma_gemm_plan *g, long k);
long tcmma__emit_gemm_scale_copies(const tcmma_gemm_plan *g, tcmma_operand op);
long tcmma__emit_gemm_scale_copies_per_thread(const tcmma_gemm_plan *g);
/* info's pack, scale_block, scale_ld and scale_copy_bytes from g (arm and
 * call planned). */
void tcmma__emit_gemm_scale_info(const tcmma_gemm_plan *g, tcmma_gemm_info *i);
/* The block-scaled arms' rules (true for an unscaled arm): one matrix
 * (CALL), packed operands k-major (ARM) and in whole bytes (ALIGNMENT);
 * false with *why and msg. g's call must be checked (ld filled). */
bool tcmma__emit_gemm_scale_rules(const tcmma_gemm_plan *g, const tcmma_gemm_opts *o,
                                  tcmma_gemm_decline *why, char *msg, size_t cap);
/* The byte twin of g's packed arm: the first inline 8-bit arm whose a and b
 * fragments are the packed fragments' bytes (checked element by element
 * from tcmma_fragment_layout), with the first 8-bit precision it takes;
 * false when no arm is. tcmma__emit_gemm_twin_call: the warp call that
 * loads g's packed stages through it (k over pack, the stages' stored rows
 * and swizzles, no scales); TCMMA_DECLINED when there is no twin. */
bool tcmma__emit_gemm_byte_twin(const tcmma_gemm_plan *g, tcmma_arm *arm, tcmma_prec *prec);
tcmma_status tcmma__emit_gemm_twin_call(const tcmma_gemm_plan *g, tcmma__emit_gemm_exprs *x,
                                        tcmma_call *out);

#endif
