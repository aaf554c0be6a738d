/* Internal to mma/: the GEMM's epilogue list (tables/epilogues.def), shared
 * by its planner (mma/gemm_epilogue.c: the rules) and its renderer
 * (mma/render_gemm_epilogue.c: the kernel's arguments and each element's
 * statements). Not installed. */
#ifndef TCMMA_MMA_GEMM_EPILOGUE_H
#define TCMMA_MMA_GEMM_EPILOGUE_H

#include "tcmma/gemm.h"
#include "emit.h"

/* A GEMM's epilogue list as planned and rendered (the caller's array,
 * borrowed): ops[0..count). */
typedef struct tcmma__gemm_epi {
  const tcmma_epilogue_op *ops;
  int count;
} tcmma__gemm_epi;

/* How an op's row renders and what it takes (one row of the table). */
typedef enum {
  TCMMA__EPI_ARGS_NONE,
  TCMMA__EPI_ARGS_AXIS_RC,
  TCMMA__EPI_ARGS_AXIS_TRC,
  TCMMA__EPI_ARGS_RANGE,
  TCMMA__EPI_ARGS_PREC,
  TCMMA__EPI_ARGS_BODY
} tcmma__epi_args;
typedef enum {
  TCMMA__EPI_PARAM_NONE,
  TCMMA__EPI_PARAM_F32,
  TCMMA__EPI_PARAM_C,
  TCMMA__EPI_PARAM_AMAX
} tcmma__epi_param;
typedef struct {
  const char *name;
  tcmma__epi_args args;
  tcmma__epi_param param;
  int floor;
  const char *render;
} tcmma__epi_row;

/* The row of kind (in range). */
const tcmma__epi_row *tcmma__emit_epilogue_row(tcmma_epilogue_kind kind);

/* Op i of e, as this library's whole struct (the caller's array is strided
 * by its first element's size, checked by planning). */
tcmma_epilogue_op tcmma__emit_gemm_epilogue_op(const tcmma__gemm_epi *e, int i);

/* The epilogue list of opts (borrowed). */
tcmma__gemm_epi tcmma__emit_gemm_epi_of(const tcmma_gemm_opts *o);

/* The rules of opts' epilogue list for call c once c's ld and tile are
 * filled: TCMMA_OK; TCMMA_INVALID (an enum or size out of range) or
 * TCMMA_DECLINED with *reason (CALL: an argument, cvt not last, a residual
 * with pointer arrays; ARCH) and msg naming the op, the value and what was
 * expected. */
tcmma_status tcmma__emit_gemm_epilogue_rules(const tcmma_gemm_call *c, const tcmma_gemm_opts *opts,
                                             tcmma_gemm_decline *reason, char *msg, size_t cap);

/* The precision d is stored in: the last op's when it is cvt, else d's. */
tcmma_prec tcmma__emit_gemm_out_prec(const tcmma_gemm_call *c, const tcmma__gemm_epi *e);

/* cvt's largest finite value of target p as a float literal, and the
 * dialect row narrowing to it (tables/epilogues.def, TARGET); NULL when p
 * is no target. */
const char *tcmma__emit_epilogue_target_max(tcmma_prec p);

/* The renderer's pieces (mma/render_gemm_epilogue.c) for the plan and
 * options of f (its list: f->o.epilogue), in dialect dl at depth. element:
 * one element's statements, from acc (its f32 accumulator) and cval (its
 * element of c) to dst (its stored lvalue), with the element loop's locals
 * gr, o (oc in a shape-argument kernel, c's own), gc and j (the kernel's
 * prefix) in scope. params: the ops' kernel arguments after the others
 * (", const float *bias0, ..."), param_count how many; entry_args: the host entry's casts of
 * args[first..] to them; prelude: <math.h> for the host and the hook
 * functions, before the kernel; begin/end: around the element loop, each
 * thread's running amax and its atomicMax; vectors: the declarations of
 * the store vector v (d's stored type) and c's cv, vec elements each;
 * load_c: cv from c at offset off when beta is not 0; residual_base: each
 * residual moved to the block's matrix of a strided batch by c's stride
 * (text). */
void tcmma__emit_gemm_epilogue_element(const tcmma__emit_gemm_form *f, tcmma_dialect dl, int depth,
                                       const char *acc, const char *cval, const char *dst,
                                       tcmma_buf *out);
void tcmma__emit_gemm_epilogue_params(const tcmma__emit_gemm_form *f, tcmma_dialect dl,
                                      tcmma_buf *out);
int tcmma__emit_gemm_epilogue_param_count(const tcmma__emit_gemm_form *f);
void tcmma__emit_gemm_epilogue_entry_args(const tcmma__emit_gemm_form *f, tcmma_dialect dl,
                                          int first, tcmma_buf *out);
void tcmma__emit_gemm_epilogue_prelude(const tcmma__emit_gemm_form *f, tcmma_dialect dl,
                                       tcmma_buf *out);
void tcmma__emit_gemm_epilogue_begin(const tcmma__emit_gemm_form *f, int depth, tcmma_buf *out);
void tcmma__emit_gemm_epilogue_end(const tcmma__emit_gemm_form *f, tcmma_dialect dl, int depth,
                                   tcmma_buf *out);
void tcmma__emit_gemm_epilogue_vectors(const tcmma__emit_gemm_form *f, tcmma_dialect dl, int vec,
                                       int depth, tcmma_buf *out);
void tcmma__emit_gemm_epilogue_load_c(const tcmma_gemm_plan *g, tcmma_dialect dl, int vec,
                                      const char *off, int depth, tcmma_buf *out);
void tcmma__emit_gemm_epilogue_residual_base(const tcmma__emit_gemm_form *f, const char *stride,
                                             int depth, tcmma_buf *out);

#endif
