/* The GEMM matrix and its runs (docs/verify.md, GEMM cases): whole kernels
 * from tcmma_render_gemm over arms, tiles, warp grids, stages, orientations,
 * odd sizes and alpha/beta, with the data, the reference and the comparison
 * every running executor (sim, gpu) shares. CLI-side, like the arm matrix. */
#ifndef TCMMA_VERIFY_GEMM_H
#define TCMMA_VERIFY_GEMM_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include "tcmma/gemm.h"
#include "tools/verify/verify.h"

typedef struct {
  char name[512];            /* "gemm/mma-bf16/128x128x32/w2x2/s3/..." */
  tcmma_gemm_call call;      /* call.name is "tcmma_kernel" (the module's entry) */
  tcmma_gemm_opts opts;      /* shape arguments, alignment classes, batches, split-K (its
                                epilogue is the case's own list: verify_gemm_case_opts) */
  double alpha, beta;
  bool c_is_d;               /* C is D: d holds C's values before the run */
  tcmma_gemm_decline expect; /* NONE: must be accepted */
  tcmma_epilogue_op epilogue[TCMMA_EPILOGUE_OPS_MAX]; /* after alpha and beta */
  int epilogue_count;
} verify_gemm_case;

/* The case's options with its epilogue list (pointing into c). */
tcmma_gemm_opts verify_gemm_case_opts(const verify_gemm_case *c);

/* The arm a case's plan multiplies with, as its name says: the wgmma or
 * tcgen05 row of those kernels, else the mma.sync arm. */
const char *verify_gemm_kernel_arm(const tcmma_gemm_plan *p, const tcmma_gemm_info *i);

/* The whole GEMM matrix, built once. */
size_t verify_gemm_matrix(const verify_gemm_case **cases);

/* Up to want accepted cases (expect NONE) into out[0..want) from at most
 * `tries` calls drawn by a fixed-seed generator over the planner's whole
 * space (tools/verify/gemm_sample.c): the same seed gives the same cases on
 * every host. Returns how many were kept; *drawn (may be NULL) the draws. */
size_t verify_gemm_sample(uint64_t seed, size_t want, size_t tries, verify_gemm_case *out,
                          size_t *drawn);

/* Plans c and checks the outcome against its expectation (a declined case
 * must decline with the expected reason). true with *plan filled when the
 * case is accepted as expected; false with r set (FAILED, or PASSED for a
 * declined case that declined as expected). */
bool verify_gemm_case_plan(const verify_gemm_case *c, tcmma_gemm_plan *plan, verify_case_result *r);
/* The same, with the plan's info into *info (its size set here). */
bool verify_gemm_case_plan_info(const verify_gemm_case *c, tcmma_gemm_plan *plan,
                                tcmma_gemm_info *info, verify_case_result *r);

/* The kernel's buffers d, a, b, c (c NULL when C is D; each the whole
 * batch at its stride) and the epilogue's tensors x
 * (tools/verify/gemm_epilogue.h): runs the kernel made with opts (its
 * shape, batch, pointer arrays, workspace and epilogue as opts and the
 * plan's call say), leaves what it wrote there. false with why filled when it could not run. */
typedef struct verify_gemm_extras verify_gemm_extras;
typedef bool (*tcmma_gemm_runner)(void *ctx, const tcmma_gemm_plan *plan,
                                  const tcmma_gemm_opts *opts, void *const bufs[4],
                                  const verify_gemm_extras *x, float alpha, float beta, char *why,
                                  size_t cap);

/* What a launch of plan with opts takes beyond the buffers (the batch,
 * each operand's stride in bytes, the workspace's bytes), from
 * tcmma_gemm_plan_opts; false when the call does not plan again. */
typedef struct {
  tcmma_gemm_info info;
  size_t stride[4]; /* bytes from one matrix of d, a, b, c to the next */
} verify_gemm_launch;
bool verify_gemm_launch_of(const tcmma_gemm_plan *plan, const tcmma_gemm_opts *opts,
                           verify_gemm_launch *out);

/* The kernel's argument array (tcmma_render_gemm_opts; docs/emit.md,
 * GEMM): ptrs[0..4) point at d, a, b, c's pointers (or pointer arrays),
 * then alpha and beta, a block-scaled plan's sfa and sfb (scales[0..2),
 * as launchers take them), the shape's m, n, k, lda, ldb, ldc (= ldd), ldd,
 * the strides (elements; stored into dims and strides) and the workspace
 * slot as opts asks. Like ptrs, the slot is what the launcher takes: the
 * host entry the workspace itself, the driver a pointer to the device
 * pointer. Returns the count. */
size_t verify_gemm_args(const tcmma_gemm_plan *plan, const tcmma_gemm_opts *opts,
                        const verify_gemm_launch *l, void *const ptrs[4], float *alpha,
                        float *beta, void *const scales[2], int dims[7], long long strides[4],
                        void *workspace, void *args[20]);
/* The most arguments a kernel takes: those, one per epilogue op and a
 * wgmma kernel's two tensor maps. */
#define VERIFY_GEMM_ARGS_MAX (20 + TCMMA_EPILOGUE_OPS_MAX + 2)

/* A block-scaled case's scale tensors (tools/verify/gemm_scales.c): sfa
 * (o 0, m rows) and sfb (o 1, n rows) of scale_ld bytes for each matrix of
 * the batch, one after another, row-major by k block (tcmma_gemm_info),
 * each scale a power of two, the rows' padding 0xff. init allocates them
 * (nothing for an unscaled plan: block 0; false out of memory), fill draws
 * 2^-1..2^1 (integer pass) or 2^-3..2^3, verify_gemm_scale is the factor
 * of matrix bi's row `row` scale at reduction index k as filled (1
 * unscaled), intact whether the kernel left them as filled. */
typedef struct {
  int block;               /* k elements a scale; 0: no scales */
  bool ue4m3;              /* nvf4's scales; else ue8m0 */
  long ld, blocks;         /* bytes a row; scales a row holds (ceil(k / block)) */
  int batch;               /* matrices */
  long rows[2];
  size_t bytes[2];
  unsigned char *mem[2], *before[2];
} verify_gemm_scales;
bool verify_gemm_scales_init(verify_gemm_scales *s, const tcmma_gemm_call *c,
                             const tcmma_gemm_info *i);
void verify_gemm_scales_fill(verify_gemm_scales *s, bool integer, unsigned long long *seed);
double verify_gemm_scale(const verify_gemm_scales *s, int o, int bi, long row, long k);
bool verify_gemm_scales_intact(const verify_gemm_scales *s);
void verify_gemm_scales_free(verify_gemm_scales *s);

/* Runs both passes of an accepted case: integer-valued inputs (d must match
 * the reference bit for bit) and real ones (within the bound of
 * docs/verify.md); fails on writes outside d's matrix, into its padding,
 * past any buffer or into a, b, c. Returns whether it passed. */
bool verify_gemm_case_run(const verify_gemm_case *c, const tcmma_gemm_plan *plan,
                          tcmma_gemm_runner run, void *ctx, verify_case_result *r);

/* The simulator's runner: ctx is the case's entry (a sim_entry *); runs the
 * whole grid with tcmma_sim_launch_grid. */
bool verify_gemm_sim_runner(void *ctx, const tcmma_gemm_plan *plan, const tcmma_gemm_opts *opts,
                            void *const bufs[4], const verify_gemm_extras *x, float alpha,
                            float beta, char *why, size_t cap);

/* Runs case c through executor e into r: the plan and its expectation
 * first (a declined case passes when it declines as expected), then sim
 * (host text on the block simulator, both passes), compile (CUBIN for the
 * plan's cc, at the floor for cc 0; verify_gemm_compile_check) or gpu (verify_gemm_exec_gpu). */
void verify_gemm_exec(verify_executor e, const verify_gemm_case *c, verify_case_result *r);

/* The compile executor's check of a CUBIN compile of plan p: ptxas's
 * figures present, no spill bytes and no stack, registers within
 * p->registers, and the PTX census per k tile as planned (mma and ldmatrix per warp, 16-byte
 * cp.async per thread; a loop the compiler unrolled counts its copies).
 * false with why filled otherwise. */
bool verify_gemm_compile_check(const tcmma_gemm_plan *p, const tcmma_program *prog, char *why,
                               size_t cap);
/* The same for a plan made with opts (NULL: the defaults): an operand whose
 * ragged tiles take their own predicated path may show its copies once or
 * twice per load site. */
bool verify_gemm_compile_check_opts(const tcmma_gemm_plan *p, const tcmma_gemm_opts *opts,
                                    const tcmma_program *prog, char *why, size_t cap);

/* The compile executor over many cases (tools/verify/gemm_compile.c):
 * prepare renders every case of list[0..count) the plan accepts and
 * compiles them all in batches on every core; finish frees what prepare
 * kept. verify_gemm_exec_compile checks accepted case c (plan p, its info:
 * the target it compiles for, tcmma_gemm_info.arch_suffix) with
 * verify_gemm_compile_check: from its prepared compile, else compiling it
 * alone. */
void verify_gemm_compile_prepare(const verify_gemm_case *const *list, size_t count);
void verify_gemm_compile_finish(void);
void verify_gemm_exec_compile(const verify_gemm_case *c, const tcmma_gemm_plan *p,
                              const tcmma_gemm_info *info, verify_case_result *r);

/* The gpu executor for an accepted case: device 0, compiled for its cc,
 * SKIPPED without a driver or a device, or when the device does not run the
 * arm or lacks the shared memory. */
void verify_gemm_exec_gpu(const verify_gemm_case *c, const tcmma_gemm_plan *p,
                          verify_case_result *r);

#endif
