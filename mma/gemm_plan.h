/* Internal to mma/: what the GEMM's two planners share (mma/gemm_plan_base.c),
 * called by the kind's own planner (mma/gemm_plan.c for mma.sync and the
 * choice of kind, mma/gemm_plan_wgmma.c for wgmma): each calls down into
 * the base, never into the other. Not installed. */
#ifndef TCMMA_MMA_GEMM_PLAN_H
#define TCMMA_MMA_GEMM_PLAN_H

#include "tcmma/gemm.h"
#include "tcmma/tensor_map.h"
#include "tcmma/tcgen05.h"
#include "tcmma/wgmma.h"

/* Declines p with reason and a printf message (also copied into err):
 * TCMMA_DECLINED. The planners spell it `decline`. */
tcmma_status tcmma__emit_gemm_decline(tcmma_gemm_plan *p, tcmma_gemm_decline reason,
                                      tcmma_error *err, const char *fmt, ...)
    __attribute__((format(printf, 4, 5)));

/* The caller's call as this library's whole struct into out->call (out
 * zeroed, its arm NONE), the enums checked (TCMMA_INVALID: no plan can be
 * made of them). The zero fields stay zero: the kind's planner fills its
 * defaults. */
tcmma_status tcmma__emit_gemm_take_call(const tcmma_gemm_call *call, tcmma_gemm_plan *out,
                                        tcmma_error *err);

/* The call's ranges (stages 1..stages_max), its dense ld filled, and the
 * epilogue list's rules (decline CALL, ARCH). */
tcmma_status tcmma__emit_gemm_check_call(tcmma_gemm_plan *g, const tcmma_gemm_opts *o,
                                         int stages_max, tcmma_error *err);

/* The mma.sync arm of the caller's triple, forced or resolved, into g->arm
 * (decline ARM). */
tcmma_status tcmma__emit_gemm_choose_arm(tcmma_gemm_plan *g, tcmma_error *err);

/* The grid of block tiles, the k tiles and whether M, N or K is ragged
 * (decline PREDICATION, CALL). */
tcmma_status tcmma__emit_gemm_plan_grid(tcmma_gemm_plan *g, bool shape_args, tcmma_error *err);

/* The batch over grid z, the K slices and their workspace (mma/gemm_shape.c;
 * decline CALL). */
tcmma_status tcmma__emit_gemm_plan_batch(tcmma_gemm_plan *g, const tcmma_gemm_opts *o,
                                         tcmma_gemm_info *i, tcmma_error *err);

/* The target suffix accepted plan g of kind i->kernel compiles with at its
 * cc (tcmma_gemm_info.arch_suffix): 'a', 'f' or 0, from the arm rows'
 * tables/ptx_features.def suffixes (a wgmma row's A, a tcgen05 row's and
 * the tcgen05 feature's A_OR_F, a family mma.sync arm's f). */
char tcmma__emit_gemm_arch_suffix(const tcmma_gemm_plan *g, const tcmma_gemm_info *i);

/* Whether the wgmma kernel serves call c with options o (mma/gemm_plan_wgmma.c):
 * the cc, the arm, the operands' orientation and alignment, one matrix, no
 * split-K; c's zero fields and ld as the caller gave them. false with msg
 * naming what it cannot serve and *reason (KERNEL or ARCH). */
bool tcmma__emit_gemm_wgmma_serves(const tcmma_gemm_call *c, const tcmma_gemm_opts *o,
                                   tcmma_gemm_decline *reason, char *msg, size_t cap);

/* Whether the tcgen05 kernel serves call c with options o
 * (mma/gemm_plan_tcgen05.c): the cc (10.x), an f16, bf16 or fp8 triple with
 * a tcgen05 row of an f32 accumulator or a block-scaled one (mxe4m3/mxe5m2,
 * mxf4, nvf4; b K-major), K-major operands, the TMA kernels' rows (packed
 * fp4 in bytes) and batches. false with msg and *reason (KERNEL, ARCH or ARM). */
bool tcmma__emit_gemm_tcgen05_serves(const tcmma_gemm_call *c, const tcmma_gemm_opts *o,
                                     tcmma_gemm_decline *reason, char *msg, size_t cap);

/* A block-scaled tcgen05 plan's scale atoms in a stage, after A's and B's
 * tiles (tcmma_tcgen05_scale_atoms of block_m and block_n rows for
 * block_k): their count for operand op, and their bytes together, rounded
 * up to the stages' alignment (0 for an unscaled plan). */
int tcmma__emit_gemm_tcgen05_scale_atoms(const tcmma_gemm_plan *g, const tcmma_gemm_info *i,
                                         tcmma_operand op);
size_t tcmma__emit_gemm_tcgen05_scale_bytes(const tcmma_gemm_plan *g, const tcmma_gemm_info *i);

/* The tcgen05 planner (mma/gemm_plan_tcgen05.c), as the wgmma planner. */
tcmma_status tcmma__emit_gemm_plan_tcgen05(tcmma_gemm_plan *out, const tcmma_gemm_opts *o,
                                           tcmma_gemm_info *info, tcmma_error *err);

/* The tile product the tcgen05 kernel's MMA thread issues per k tile of
 * TCGEN05 plan g (info i), in dialect dl, named name: the block's m128 x
 * block_n accumulator in Tensor Memory from the stage's A and B. */
tcmma_tcgen05_call tcmma__emit_gemm_tcgen05_tile(const tcmma_gemm_plan *g,
                                                 const tcmma_gemm_info *i, tcmma_dialect dl,
                                                 const char *name);

/* The wgmma planner (mma/gemm_plan_wgmma.c): as tcmma__emit_gemm_plan, for
 * the WGMMA kind; out->call as the caller gave it (out taken by
 * tcmma__emit_gemm_take_call), info zeroed but for its size and shape_args. */
tcmma_status tcmma__emit_gemm_plan_wgmma(tcmma_gemm_plan *out, const tcmma_gemm_opts *o,
                                         tcmma_gemm_info *info, tcmma_error *err);

/* The rows of the block tile one consumer warp holds: a wgmma's m over the
 * warps of a warpgroup (16). */
int tcmma__emit_gemm_wgmma_warp_rows(void);

/* The tile product each consumer warpgroup of WGMMA plan g (info i) runs
 * per k tile, in dialect dl, named name: its m64 x n strip of the stages'
 * A and B as the descriptors read them (wait_group 1: the previous k
 * tile's products are done on return). */
tcmma_wgmma_call tcmma__emit_gemm_wgmma_tile(const tcmma_gemm_plan *g, const tcmma_gemm_info *i,
                                             tcmma_dialect dl, const char *name);

/* The TMA kernels' stages and maps (mma/gemm_plan_tma.c), for the wgmma and
 * the tcgen05 planners alike. The tensor maps of WGMMA or TCGEN05 plan g
 * (opts o, info i) at addresses a and b for shape m, n, k, lda, ldb
 * (elements; unchecked: tcmma_tensor_map_check them): 2-D, or 3-D over a
 * strided batch (the matrices one a box). */
void tcmma__emit_gemm_tma_maps(const tcmma_gemm_plan *g, const tcmma_gemm_opts *o,
                               const tcmma_gemm_info *i, unsigned long long a,
                               unsigned long long b, const int shape[5], tcmma_tensor_map maps[2]);

/* Bytes of operand op's tile in one stage, and the alignment the stages
 * start at (the swizzle's repeat). */
size_t tcmma__emit_gemm_tma_operand_bytes(const tcmma_gemm_plan *g, tcmma_operand op);
size_t tcmma__emit_gemm_tma_align(const tcmma_gemm_plan *g);

/* An M-major A's panel (a transposed): the m elements of one stored row,
 * one swizzle span (64 16-bit elements, a consumer's m64); the stage holds
 * block_m / panel panels of block_k rows, each its own TMA box. */
int tcmma__emit_gemm_tma_panel(const tcmma_gemm_plan *g);
/* And an N-major B's (b not transposed; the tcgen05 kernel only): the n
 * elements of one stored row, one swizzle span; the stage holds block_n /
 * panel panels of block_k rows, each its own TMA box and tile product. */
int tcmma__emit_gemm_tma_panel_b(const tcmma_gemm_plan *g);

/* The tensor maps of the call's own shape must pass the encoder's rules
 * (a box dim above 256, say: decline TILE naming the rule). */
tcmma_status tcmma__emit_gemm_tma_check_maps(tcmma_gemm_plan *g, const tcmma_gemm_opts *o,
                                             const tcmma_gemm_info *i, tcmma_error *err);

/* g's stage bytes; then the stages at the swizzle's repeat and
 * `cells` 8-byte cells after them (the mbarriers, the tcgen05 kernel's Tensor
 * Memory address), in one dynamic allocation with room to align its start
 * (the device gives 16 bytes), against the device's shared memory (decline
 * SHARED). */
tcmma_status tcmma__emit_gemm_tma_shared(tcmma_gemm_plan *g, int cells, tcmma_error *err);

/* What a TMA kernel (`kind`: "wgmma", "tcgen05", for the message) needs of
 * call c's operands and options o: a's and b's rows (pack elements a stored
 * byte: 2 for packed fp4, else 1) and asked classes whole 16 bytes (a tensor
 * map's stride and base), no K slices, no pointer arrays, a batch only
 * strided in a fixed-shape kernel. false with msg otherwise. */
bool tcmma__emit_gemm_tma_serves(const tcmma_gemm_call *c, const tcmma_gemm_opts *o, int pack,
                                 const char *kind, char *msg, size_t cap);

/* The call's ranges (tcmma__emit_gemm_check_call, stages 1..stages_max)
 * and a kernel name that leaves room for the `kind` kernel's tile product,
 * NAME`suffix` (decline CALL). */
tcmma_status tcmma__emit_gemm_tma_check_call(tcmma_gemm_plan *g, const tcmma_gemm_opts *o,
                                             int stages_max, const char *kind,
                                             const char *suffix, tcmma_error *err);

/* After the TMA kernel's tile: each operand's alignment class (ALIGNMENT),
 * the grid, the batch (CALL, PREDICATION), the tensor maps of the call's
 * shape (TILE) and shared memory with `cells` 8-byte cells after the stages
 * (SHARED). Then the plan's acceptance: the shapes served (no edge copies:
 * TMA fills zeros past the matrix), each operand's TMA box as its copy,
 * the compile target. */
tcmma_status tcmma__emit_gemm_tma_layout(tcmma_gemm_plan *g, const tcmma_gemm_opts *o,
                                         tcmma_gemm_info *i, int cells, tcmma_error *err);
void tcmma__emit_gemm_tma_accept(tcmma_gemm_plan *g, tcmma_gemm_info *i);

/* The swizzle whose span is a stage row of row_bytes (the descriptors read
 * rows of exactly one span); NONE when none is. */
tcmma_swizzle tcmma__emit_gemm_tma_span_swizzle(long row_bytes);

#endif
