/* The wgmma cases of the arm matrix (docs/verify.md, wgmma cases): one
 * warpgroup tile product of tcmma_wgmma_render per case (every row of
 * tables/wgmma.def, several n, K-major and M/N-major operands, 32-, 64- and
 * 128-byte swizzles, A from registers), with the data, the reference and
 * the comparison the sim and gpu executors share, and the compile
 * executor's PTX census. CLI-side, like the arm matrix. */
#ifndef TCMMA_VERIFY_WGMMA_H
#define TCMMA_VERIFY_WGMMA_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include "tcmma/wgmma.h"
#include "tools/verify/verify.h"

typedef struct {
  char name[128];     /* "wgmma/wgmma-bf16/bf16.bf16/n256k64/a=k/b=k/sw128" */
  tcmma_wgmma arm;
  tcmma_prec a, b;    /* the operands' storage */
  int n, k;
  bool a_m_major, b_n_major, a_regs;
  tcmma_swizzle sw;   /* both operands' */
  long ld;            /* elements per stored row of both operands: one span */
} verify_wgmma_case;

/* The whole list, built once. */
size_t verify_wgmma_matrix(const verify_wgmma_case **cases);

/* The case's call in dialect (its tile named name). */
tcmma_wgmma_call verify_wgmma_call(const verify_wgmma_case *c, tcmma_dialect dl, const char *name);

/* One case's data: logical operands and accumulators, the byte images the
 * kernel copies into shared memory, the threads' initial accumulators and
 * register A, and d (the threads' accumulators after the run, one word of
 * canary after them). */
typedef struct {
  verify_wgmma_case c;
  const tcmma_wgmma_info *info;
  int regs, steps, eb_a, eb_b;
  long a_bytes, b_bytes, b_at; /* B's image at b_at of the dynamic shared memory */
  double *A, *B, *C;           /* 64 x k, k x n (B[j * n + i]), 64 x n */
  unsigned char *ga, *gb;
  uint32_t *c0, *d, *ra;
} verify_wgmma_data;

/* Threads of the kernel: one warpgroup. */
#define VERIFY_WGMMA_THREADS 128

/* Fills x for c with integer-exact values from seed (integer rows over
 * their whole range, accumulators near the s32 limits). false: no memory. */
bool verify_wgmma_data_init(verify_wgmma_data *x, const verify_wgmma_case *c, unsigned seed);
void verify_wgmma_data_free(verify_wgmma_data *x);
/* The bits the reference gives D[row][col]: per instruction C + A B rounded
 * to the accumulator, s32 wrapped or clamped (.satfinite). */
uint32_t verify_wgmma_reference(const verify_wgmma_data *x, int row, int col);
/* Compares x->d with the reference bit for bit (and the canary): false
 * with why naming the first differing element. */
bool verify_wgmma_compare(const verify_wgmma_data *x, char *why, size_t cap);

/* The case's kernel `tcmma_kernel(d, ga, gb, c0, ra)` (and in the host
 * dialect `tcmma_kernel_entry(void **args)`) into out: one warpgroup copies
 * the images into dynamic shared memory with ordinary stores, publishes,
 * multiplies and stores its accumulators; after: host text run between the
 * product and the store (NULL: none). Its dynamic shared bytes: x->b_at +
 * x->b_bytes. */
tcmma_status verify_wgmma_kernel(const verify_wgmma_data *x, tcmma_dialect dl, const char *after,
                                 tcmma_buf *out, tcmma_error *err);

/* Runs case c through executor e into r. */
void verify_wgmma_exec(verify_executor e, const verify_wgmma_case *c, verify_case_result *r);

#endif
