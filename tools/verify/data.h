/* The data every running executor (sim, gpu) shares: a case's operand
 * buffers laid out as tcmma_render_kernel expects, their poisoned padding
 * and canaries, the integer and real inputs, the plain C reference and the
 * comparison (tools/verify/data.c says how each is chosen and bounded).
 * An executor only moves the buffers to where its kernel runs and back. */
#ifndef TCMMA_VERIFY_DATA_H
#define TCMMA_VERIFY_DATA_H

#include <stdbool.h>
#include <stddef.h>
#include "tools/verify/verify.h"

/* Bytes after each buffer that the kernel must leave alone. */
enum { VERIFY_CANARY_BYTES = 64 };

/* Element storage, through the simulator's exact conversions (tcmma/sim.h):
 * put rounds v to p (f16/bf16 nearest even, fp8 nearest even saturating) at
 * `at`; get reads the element at `at` back as a double. */
void verify_storage_put(tcmma_prec p, unsigned char *at, double v);
double verify_storage_get(tcmma_prec p, const unsigned char *at);

typedef enum { VERIFY_PASS_INTEGER, VERIFY_PASS_REAL } verify_pass;

/* One kernel buffer: elems elements (tcmma_kernel_operand_elems) in bytes
 * bytes, then the canary; `total` bytes in all, the size to copy to and from
 * a device. before: the buffer as filled, for the reference and the
 * checks. */
typedef struct {
  tcmma_operand op;
  tcmma_prec prec;
  long elems;
  size_t bytes, total;
  unsigned char *mem, *before;
} verify_operand_buf;

/* The most buffers a kernel takes: d, a, b, then a block-scaled arm's
 * scales of a and b (sa, sb: bytes, tcmma_kernel_scale_index). */
enum { VERIFY_CASE_BUFS = 5 };

/* A case's buffers, in the kernel's argument order d, a, b[, sa, sb]. */
typedef struct {
  const verify_case *c;
  const tcmma_plan *plan;
  const tcmma_arm_info *info;
  long m, n, K;          /* K = outer * k: the whole reduction */
  int d_roundings;       /* d is rounded once per update statement stored */
  int nbuf;              /* 3, or 5 with block scales */
  verify_operand_buf buf[VERIFY_CASE_BUFS];
} verify_case_data;

/* Runs the kernel over x's buffers (buf[i].mem, total bytes each; d, a, b
 * and for block scales sa, sb: nbuf of them)
 * and leaves what it wrote there. false with r FAILED saying why (prefixed
 * with pass, "integer pass" or "real pass") when it could not run. */
typedef bool (*tcmma_case_runner)(verify_case_data *x, const char *pass, void *ctx,
                                  verify_case_result *r);

/* The steps verify_case_data_run takes, for tests that check them apart:
 * init lays out x's buffers for the plan (false with r FAILED when a buffer
 * has no layout or no memory); fill poisons every buffer, writes the pass's
 * inputs (seeded by the case's name) and keeps them in `before`; reference
 * is d[i][j]'s expected value, *mag the magnitude its bound scales with;
 * free releases the buffers. */
bool verify_case_data_init(verify_case_data *x, const verify_case *c, const tcmma_plan *plan,
                           verify_case_result *r);
void verify_case_data_fill(verify_case_data *x, verify_pass pass);
double verify_case_data_reference(const verify_case_data *x, long i, long j, double *mag);
void verify_case_data_free(verify_case_data *x);

/* Runs both passes of an accepted case (plan checked): fills the buffers,
 * calls run, checks the buffers and compares d with the reference; integers
 * bit for bit, reals within the bound. r: PASSED, or FAILED with the first
 * difference (and how many elements differ). Returns whether it passed. */
bool verify_case_data_run(const verify_case *c, const tcmma_plan *plan, tcmma_case_runner run,
                          void *ctx, verify_case_result *r);

#endif
