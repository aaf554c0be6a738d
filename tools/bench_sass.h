/* Reading nvdisasm's text (tools/bench_sass.c): one function's
 * instructions, their classes (tools/bench_sass.def), the k-tile main loop
 * of a GEMM kernel and its instruction mix. For `tcmma bench gemm --static`;
 * it measures, never judges. */
#ifndef TCMMA_BENCH_SASS_H
#define TCMMA_BENCH_SASS_H

#include <stdbool.h>
#include <stddef.h>
#include "tcmma/gemm.h"

typedef enum {
#define BENCH_SASS_CLASS(id, name, what) BENCH_SASS_##id,
#define BENCH_SASS_OP(op, cls)
#include "bench_sass.def"
#undef BENCH_SASS_CLASS
#undef BENCH_SASS_OP
  BENCH_SASS_NCLASS
} bench_sass_class;

/* The class's report name ("mma") and what it holds. */
const char *bench_sass_class_name(bench_sass_class c);
const char *bench_sass_class_what(bench_sass_class c);

/* The class of an opcode: its name before the first '.' ("HMMA" of
 * "HMMA.16816.F32.BF16") looked up in tools/bench_sass.def; OTHER when
 * not listed. */
bench_sass_class bench_sass_classify(const char *opcode);

typedef struct {
  unsigned long addr;     /* its offset in the function (nvdisasm's comment) */
  char op[32];            /* the whole opcode with its modifiers ("BAR.SYNC.DEFER_BLOCKING") */
  bench_sass_class cls;
  long target;            /* a branch's target: index of the instruction at its label; -1 */
} bench_sass_insn;

typedef struct {
  bench_sass_insn *v;
  size_t n;
} bench_sass;

/* The instructions of function `name` (NULL: the first) in text, nvdisasm's
 * output (`nvdisasm -c`), in address order, with branch targets resolved
 * to indices. false, with why, when the function is not there, has no
 * instruction, a branch names a label the function lacks, or memory runs
 * out. Free with bench_sass_free. */
bool bench_sass_parse(const char *text, const char *name, bench_sass *out, char *why, size_t cap);
void bench_sass_free(bench_sass *s);

/* The k-tile main loop: of the innermost loops (a branch back to an earlier
 * or the same instruction, its body from the target to the branch) that hold
 * an mma and a BAR, the one with the most BARs (k tiles a trip), then the
 * shortest. Its first and last indices; false when there is none. */
bool bench_sass_main_loop(const bench_sass *s, size_t *first, size_t *last);

/* The block a forward branch inside v[first..last] skips (from the
 * instruction after it to the one before its target) that holds an
 * instruction of class cls: in a GEMM's main loop, with LDGSTS, the ring's
 * refill that the last k tiles skip. The first such block; false when
 * there is none. */
bool bench_sass_skipped_block(const bench_sass *s, size_t first, size_t last, bench_sass_class cls,
                              size_t *block_first, size_t *block_last);

/* The instructions in v[first..last] whose opcode is op, modifiers aside
 * ("BAR" counts BAR.SYNC.DEFER_BLOCKING, not DEPBAR). */
long bench_sass_count_op(const bench_sass *s, size_t first, size_t last, const char *op);

/* The waits of a k tile in v[first..last]: the block barrier (BAR) of the
 * mma.sync ring, the full mbarrier's wait (SYNCS.PHASECHK) of the wgmma
 * consumers. The main loop is the innermost loop holding an mma and one. */
long bench_sass_k_waits(const bench_sass *s, size_t first, size_t last);

/* counts[c]: the instructions of class c in v[first..last]. */
void bench_sass_count(const bench_sass *s, size_t first, size_t last,
                      long counts[BENCH_SASS_NCLASS]);

/* The ideal main loop of GEMM plan p per warp and k tile, by class: the
 * plan's mma, ldmatrix and cp.async counts, the barrier with the cp.async
 * commit and wait (a second barrier with one stage); a trip of S k tiles
 * (the ring unrolled by its stages) adds one back-edge branch and 6 integer
 * operations (tools/bench_gemm_static.c says which). */
void bench_gemm_ideal(const tcmma_gemm_plan *p, double ideal[BENCH_SASS_NCLASS]);

/* The k tiles one trip of plan p's main loop covers: the ring's stages, its
 * steady state unrolled (mma/render_gemm.c, unrolled_loop); 1 with one
 * stage or where ptxas emulates the arm (the loop stays rolled). */
double bench_gemm_trip(const tcmma_gemm_plan *p);

/* nvdisasm's path into buf: $TCMMA_NVDISASM, PATH, /usr/local/cuda/bin,
 * the nvidia-cuda-nvdisasm wheel's (nvidia/<*>/bin/nvdisasm under the
 * nvidia package python3 imports). false when none is executable. */
bool bench_sass_find_nvdisasm(char *buf, size_t cap);

/* `nvdisasm -c` of a CUBIN (len bytes), NUL-terminated (free it); NULL with
 * why set when it cannot be written or nvdisasm fails. */
char *bench_sass_disassemble(const char *nvdisasm, const unsigned char *cubin, size_t len,
                             char *why, size_t cap);

#endif
