/* The GEMM matrix's compile executor (docs/verify.md, GEMM cases):
 * verify_gemm_compile_prepare renders every selected case the plan accepts
 * and compiles them all through tools/verify/batch.c, as the arm matrix's
 * executor does (kernels of one arch share an NVRTC program, the programs
 * run on every core, each kernel's PTX and ptxas figures are its own);
 * verify_gemm_exec_compile then only checks (verify_gemm_compile_check:
 * ptxas figures and the PTX census against the plan), and compiles a case
 * that was not prepared alone. */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "tools/verify/batch.h"
#include "tools/verify/gemm.h"

static long census_count(const tcmma_ptx_info *info, const char *prefix) {
  long n = 0;
  for (size_t i = 0; i < info->census_count; i++)
    if (strncmp(info->census[i].opcode, prefix, strlen(prefix)) == 0)
      n += (long)info->census[i].count;
  return n;
}

/* A block-scaled plan's cp.async copies per thread and k tile of op's scale
 * tile (block_m or block_n rows of block_k / scale_block bytes, in copies
 * of scale_copy_bytes shared out over the threads; none below 4 bytes). */
static long scale_copies(const tcmma_gemm_plan *p, const tcmma_gemm_info *i, int op) {
  if (!i->scale_block || i->scale_copy_bytes < 4) return 0;
  long rows = op ? p->call.block_n : p->call.block_m;
  long copies = rows * (p->call.block_k / i->scale_block) / i->scale_copy_bytes;
  return (copies + p->threads - 1) / p->threads;
}

/* Operand op's (0: a, 1: b) cp.async copies per thread and k tile: its
 * stage tile in copies of its class, none for plain loads, and its scales'. */
static long async_copies(const tcmma_gemm_plan *p, const tcmma_gemm_info *i, int op) {
  const tcmma_gemm_call *c = &p->call;
  long bytes = op ? p->b_rows * p->b_cols * tcmma_prec_bytes(c->b.prec)
                  : p->a_rows * p->a_cols * tcmma_prec_bytes(c->a.prec);
  bool plain = op ? i->b_plain : i->a_plain;
  return (plain ? 0 : bytes / (op ? i->b_copy_bytes : i->a_copy_bytes) / p->threads) +
         scale_copies(p, i, op);
}

/* The cp.async instructions the PTX may hold for operand copies per thread
 * of `per` a k tile over `sites` loads: an operand whose ragged tiles take
 * a separate predicated path has both paths at each site, unless the
 * compiler folds or merges them. */
static void copy_range(long per, bool edge, long sites, long *lo, long *hi) {
  *lo += per * sites;
  *hi += per * sites * (edge ? 2 : 1);
}

/* Each operand's stage tile of a TMA kernel in boxes (an M-major A, an
 * N-major B: a box per panel). */
static long stage_boxes(const tcmma_gemm_plan *p, const tcmma_gemm_info *i) {
  const tcmma_gemm_call *c = &p->call;
  return p->a_rows * p->a_cols * tcmma_prec_bytes(c->a.prec) / i->a_copy_bytes +
         p->b_rows * p->b_cols * tcmma_prec_bytes(c->b.prec) / i->b_copy_bytes;
}

/* The wgmma kernel's PTX census (docs/emit.md, The Hopper GEMM): the tile
 * product once in the k loop (mma_per_k_tile wgmma.mma_async), the
 * producer's TMA loads (a stage's boxes: its bytes over each operand's copy
 * bytes), setmaxnreg where planned, no mma.sync, ldmatrix or cp.async. */
static bool wgmma_census(const tcmma_gemm_plan *p, const tcmma_gemm_info *i, const tcmma_ptx_info *px,
                         char *why, size_t cap) {
  long wg = census_count(px, "wgmma.mma_async"), tma = census_count(px, "cp.async.bulk.tensor"),
       setmax = census_count(px, "setmaxnreg"),
       other = census_count(px, "mma.sync") + census_count(px, "ldmatrix") +
               census_count(px, "cp.async.cg") + census_count(px, "cp.async.ca");
  long want_setmax = i->consumer_registers ? 2 : 0;
  long boxes = stage_boxes(p, i);
  if (wg == p->mma_per_k_tile && tma == boxes && setmax == want_setmax && other == 0) return true;
  return snprintf(why, cap, "PTX has %ld wgmma.mma_async, %ld cp.async.bulk.tensor, %ld setmaxnreg, "
                  "%ld mma.sync/ldmatrix/cp.async; the plan says %d, %ld, %ld, 0", wg, tma, setmax,
                  other, p->mma_per_k_tile, boxes, want_setmax), false;
}

/* The tcgen05 kernel's PTX census (docs/emit.md, The Blackwell GEMM): the
 * tile product once in the MMA thread's k loop (mma_per_k_tile
 * tcgen05.mma), the stages' commit and the accumulator's, the producer's
 * TMA boxes, one Tensor Memory alloc, relinquish and dealloc, one
 * tcgen05.ld; no mma.sync, wgmma, ldmatrix or cp.async. */
static bool tcgen05_census(const tcmma_gemm_plan *p, const tcmma_gemm_info *i,
                           const tcmma_ptx_info *px, char *why, size_t cap) {
  long mma = census_count(px, "tcgen05.mma"), tma = census_count(px, "cp.async.bulk.tensor"),
       commit = census_count(px, "tcgen05.commit"), ld = census_count(px, "tcgen05.ld"),
       tmem = census_count(px, "tcgen05.alloc") + census_count(px, "tcgen05.dealloc") +
              census_count(px, "tcgen05.relinquish_alloc_permit"),
       other = census_count(px, "mma.sync") + census_count(px, "wgmma.mma_async") +
               census_count(px, "ldmatrix") + census_count(px, "cp.async.cg") +
               census_count(px, "cp.async.ca");
  long boxes = stage_boxes(p, i);
  /* the stage's commit folds away where the one k tile is the last */
  long commits = i->shape_args || p->k_tiles > 1 ? 2 : 1;
  if (mma == p->mma_per_k_tile && tma == boxes && commit == commits && ld == 1 && tmem == 3 &&
      other == 0)
    return true;
  return snprintf(why, cap, "PTX has %ld tcgen05.mma, %ld cp.async.bulk.tensor, %ld "
                  "tcgen05.commit, %ld tcgen05.ld, %ld alloc/relinquish/dealloc, %ld "
                  "mma.sync/wgmma/ldmatrix/cp.async; the plan says %d, %ld, %ld, 1, 3, 0", mma,
                  tma, commit, ld, tmem, other, p->mma_per_k_tile, boxes, commits), false;
}

bool verify_gemm_compile_check_opts(const tcmma_gemm_plan *p, const tcmma_gemm_opts *opts,
                                    const tcmma_program *prog, char *why, size_t cap) {
  if (!prog->ptxas_info) return snprintf(why, cap, "no ptxas figures in the compile log"), false;
  if (prog->spill_store_bytes || prog->spill_load_bytes || prog->stack_bytes ||
      prog->registers > p->registers)
    return snprintf(why, cap, "ptxas: %d registers (the plan expects at most %d), %d/%d bytes "
                    "spilled (stores/loads), %d bytes of stack", prog->registers, p->registers,
                    prog->spill_store_bytes, prog->spill_load_bytes, prog->stack_bytes), false;
  /* every byte of shared memory is in the plan's dynamic shared_bytes, which
   * it checked against the device */
  if (prog->shared_bytes)
    return snprintf(why, cap, "ptxas: %d bytes of static shared memory the plan does not count",
                    prog->shared_bytes), false;
  tcmma_gemm_plan again;
  tcmma_gemm_info info = {.size = sizeof info};
  if (tcmma_gemm_plan_opts(&p->call, opts, &again, &info, NULL) != TCMMA_OK)
    return snprintf(why, cap, "the plan's call does not plan again with its options"), false;
  tcmma_ptx_info px;
  if (tcmma_ptx_parse(prog->ptx, prog->ptx_len, &px, NULL) != TCMMA_OK)
    return snprintf(why, cap, "the PTX does not read"), false;
  if (info.kernel == TCMMA_GEMM_KERNEL_WGMMA || info.kernel == TCMMA_GEMM_KERNEL_TCGEN05) {
    bool ok = info.kernel == TCMMA_GEMM_KERNEL_WGMMA ? wgmma_census(p, &info, &px, why, cap)
                                                     : tcgen05_census(p, &info, &px, why, cap);
    tcmma_ptx_info_free(&px);
    return ok;
  }
  long mma = census_count(&px, "mma.sync"), ldm = census_count(&px, "ldmatrix"),
       cp = census_count(&px, "cp.async.cg") + census_count(&px, "cp.async.ca");
  tcmma_ptx_info_free(&px);
  /* the k loop's bodies u: the ring's steady state unrolled by its S
   * stages (trips from k tile 0 while kt + 2S - 2 < KT, one refill a body;
   * not where ptxas emulates the arm), then the loop of the last k tiles
   * (one guarded refill); either unrolled further by the compiler (a short
   * loop may be, whatever its pragma). A full unroll drops the guarded
   * refills past the last k tile; a loop that refills nothing has no copy. */
  long u = p->mma_per_k_tile ? mma / p->mma_per_k_tile : 0, S = p->call.stages, KT = p->k_tiles;
  bool unrolled = S > 1 && tcmma_arm_sass_products(p->arm, p->call.cc) <= 1;
  long prologue = S == 1 ? 0 : (S - 1 < KT ? S - 1 : KT), refills = KT - prologue;
  long steady = unrolled && KT >= 2 * S - 1 ? S : 0; /* the unrolled bodies, when they run */
  long copies_lo, copies_hi;
  if (refills == 0 || u == KT) {
    copies_lo = copies_hi = prologue + refills;
  } else {
    copies_lo = prologue + (steady ? steady : 1), copies_hi = prologue + u;
  }
  if (info.shape_args || info.split_k > 1) /* every site: the k tiles are counted at run time */
    copies_lo = copies_hi = S == 1 ? 1 : unrolled ? 2 * S : S;
  long copies = copies_hi;
  long lo = 0, hi = 0;
  for (int op = 0; op < 2; op++) {
    long per = async_copies(p, &info, op), lo_op = 0, hi_op = 0;
    copy_range(per, op ? info.b_edge : info.a_edge, copies_lo, &lo, &hi_op);
    copy_range(per, op ? info.b_edge : info.a_edge, copies_hi, &lo_op, &hi);
  }
  if (u < 1 || mma != u * p->mma_per_k_tile || ldm != u * p->ldmatrix_per_k_tile || cp < lo ||
      cp > hi)
    return snprintf(why, cap, "PTX has %ld mma, %ld ldmatrix, %ld cp.async; the plan says %d, %d, "
                    "%d per k tile (%ld k tile bodies, %ld..%ld tiles copied: %ld..%ld cp.async)",
                    mma, ldm, cp, p->mma_per_k_tile, p->ldmatrix_per_k_tile,
                    p->cp_async_per_k_tile, u, copies_lo, copies, lo, hi), false;
  return true;
}

bool verify_gemm_compile_check(const tcmma_gemm_plan *p, const tcmma_program *prog, char *why,
                               size_t cap) {
  return verify_gemm_compile_check_opts(p, NULL, prog, why, cap);
}

/* One case's compile: the kernel's text and its job. */
typedef struct {
  const verify_gemm_case *c;
  tcmma_buf text;
  tcmma_error render_err;
  bool rendered;
  verify_job job;
} gemm_compile;

static pthread_mutex_t mu = PTHREAD_MUTEX_INITIALIZER;
static struct {
  gemm_compile *items;
  size_t count;
} prepared;

/* Renders plan's kernel into g and makes its job: a CUBIN for the plan's cc
 * and target suffix (info->arch_suffix: sm_90a, sm_100f, sm_120f; at the
 * floor for cc 0), one program name for all, so that every case of one arch
 * can share a batch. */
static void start(const verify_gemm_case *c, const tcmma_gemm_plan *p, const tcmma_gemm_info *info,
                  gemm_compile *g) {
  memset(g, 0, sizeof *g);
  g->c = c;
  tcmma_render_ctx rc = tcmma_render_ctx_make(NULL, TCMMA_DIALECT_CUDA, NULL, &g->text);
  tcmma_gemm_opts o = verify_gemm_case_opts(c);
  g->rendered = tcmma_render_gemm_opts(&rc, p, &o, &g->render_err) == TCMMA_OK;
  g->job = (verify_job){.source = tcmma_buf_str(&g->text), .len = g->text.len,
                        .opts = TCMMA_COMPILE_OPTS_INIT(.name = "verify-gemm.cu", .sass = true,
                                                        .arch = p->call.cc,
                                                        .arch_suffix = info->arch_suffix)};
}

static void release(gemm_compile *items, size_t n) {
  for (size_t i = 0; items && i < n; i++) {
    tcmma_buf_free(&items[i].text);
    tcmma_program_free(&items[i].job.prog);
  }
  free(items);
}

/* The case's outcome from its compile. */
static void judge(const tcmma_gemm_plan *p, const gemm_compile *g, verify_case_result *r) {
  const verify_job *j = &g->job;
  tcmma_gemm_opts o = verify_gemm_case_opts(g->c);
  char why[400];
  if (!g->rendered)
    verify_case_set(r, VERIFY_CASE_FAILED, "render: %s", g->render_err.message);
  else if (j->status == TCMMA_UNAVAILABLE)
    verify_case_set(r, VERIFY_CASE_SKIPPED, "%s", j->err.message);
  else if (j->status != TCMMA_OK)
    verify_case_set(r, VERIFY_CASE_FAILED, "compile: %s", j->err.message);
  else if (!verify_gemm_compile_check_opts(p, &o, &j->prog, why, sizeof why))
    verify_case_set(r, VERIFY_CASE_FAILED, "%s", why);
  else
    verify_case_set(r, VERIFY_CASE_PASSED, "%d registers (plan %d), no spills, census as planned",
                    j->prog.registers, p->registers);
}

void verify_gemm_compile_prepare(const verify_gemm_case *const *list, size_t count) {
  verify_gemm_compile_finish();
  gemm_compile *items = calloc(count ? count : 1, sizeof *items);
  verify_job *jobs = calloc(count ? count : 1, sizeof *jobs);
  size_t *slot = calloc(count ? count : 1, sizeof *slot);
  if (!items || !jobs || !slot) { /* the cases then compile one by one */
    free(items), free(jobs), free(slot);
    return;
  }
  size_t n = 0, k = 0;
  for (size_t i = 0; i < count; i++) {
    tcmma_gemm_plan p;
    tcmma_gemm_info info;
    verify_case_result r;
    memset(&r, 0, sizeof r);
    if (!verify_gemm_case_plan_info(list[i], &p, &info, &r)) continue; /* declined: nothing to compile */
    start(list[i], &p, &info, &items[n]);
    if (items[n].rendered) jobs[k] = items[n].job, slot[k++] = n;
    n++;
  }
  verify_compile_jobs(jobs, k);
  for (size_t i = 0; i < k; i++) items[slot[i]].job = jobs[i];
  free(jobs), free(slot);
  pthread_mutex_lock(&mu);
  prepared.items = items, prepared.count = n;
  pthread_mutex_unlock(&mu);
}

void verify_gemm_compile_finish(void) {
  pthread_mutex_lock(&mu);
  release(prepared.items, prepared.count);
  memset(&prepared, 0, sizeof prepared);
  pthread_mutex_unlock(&mu);
}

void verify_gemm_exec_compile(const verify_gemm_case *c, const tcmma_gemm_plan *p,
                              const tcmma_gemm_info *info, verify_case_result *r) {
  pthread_mutex_lock(&mu);
  for (size_t i = 0; i < prepared.count; i++)
    if (prepared.items[i].c == c) {
      judge(p, &prepared.items[i], r);
      pthread_mutex_unlock(&mu);
      return;
    }
  pthread_mutex_unlock(&mu);
  gemm_compile one;
  start(c, p, info, &one);
  if (one.rendered) verify_compile_jobs(&one.job, 1);
  judge(p, &one, r);
  tcmma_buf_free(&one.text);
  tcmma_program_free(&one.job.prog);
}
