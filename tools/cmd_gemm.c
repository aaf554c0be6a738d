/* tcmma gemm: plan a whole GEMM kernel and print its plan, its JSON or the
 * kernel itself (docs/emit.md, GEMM kernels). */
#include <errno.h>
#include <float.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "tcmma/tcmma.h"
#include "tools/cli.h"
#include "tools/cli_parse.h"
#include "tools/cmd_gemm_tune.h"
#include "tools/cmd_gemm_epilogue.h"

static const char *const help =
    "usage: tcmma gemm --m M --n N --k K --d SPEC --a SPEC --b SPEC [--tile BMxBNxBK]\n"
    "                  [--warps WMxWN] [--stages S] [--alpha X --beta Y] [--cc N]\n"
    "                  [--arm MARKER] [--unpredicated] [--registers N] [--name NAME]\n"
    "                  [--shape-args] [--align A,B,D] [--batch N [--pointer-array]\n"
    "                  [--strides A,B,D]] [--split-k S]\n"
    "                  [--epilogue LIST [--epilogue-hook BODY|--epilogue-hook-file F]]\n"
    "                  [--kind auto|mma-sync|wgmma|tcgen05] [--dialect cuda|host]\n"
    "                  [--kernel|--json]\n"
    "       tcmma gemm --m M --n N --k K --d SPEC --a SPEC --b SPEC --tune [--tune-max N]\n"
    "                  [--cc N] [--registers N] [--json]\n\n"
    "Plans D = alpha*A*B + beta*C over whole global matrices (C stored like D;\n"
    "the kernel may get C = D) and prints the plan (threads, grid, dynamic shared\n"
    "bytes, registers expected, per-k-tile census), with --kernel the kernel,\n"
    "with --json the plan as JSON (--dialect host: the kernel's text for the host\n"
    "simulator, include/tcmma/sim.h). SPEC = PREC[,t][,ld=N] (t: stored as the\n"
    "transpose of its role; ld: leading dimension in elements, 0 = dense).\n"
    "Defaults: --tile 128x128x32 --warps 2x2 --stages 3 (the mma.sync kernel);\n"
    "the wgmma kernel's: --tile 128x256x(128 bytes of k) --warps 8x1 --stages 4.\n"
    "--kind: the kernel: auto (default) takes the warp-specialised wgmma kernel\n"
    "(TMA, mbarriers, setmaxnreg; sm_90a) for --cc 90 where it serves the call (a\n"
    "and b either way for f16/bf16, b k x n in whole 64-column panels a consumer;\n"
    "fp8 a m x k, b transposed; 16-byte rows, no split-K, a batch\n"
    "only strided and of a fixed shape; warps of 16 rows: --warps block_m/16 x N),\n"
    "else the mma.sync kernel;\n"
    "for --cc 100 or 103 auto takes the tcgen05 kernel where it serves the call\n"
    "(a either way for f16/bf16, k x m in 64-column panels; fp8 a m x k; b either\n"
    "way; 16-byte rows, the batches above; tile 128xNx(128 bytes of k), warps\n"
    "4x1: one tcgen05.mma thread, one TMA thread, an epilogue warpgroup reading\n"
    "Tensor Memory; sm_100f), also for the block-scaled mxe4m3/mxe5m2, mxf4 and\n"
    "nvf4 with b transposed (the scales sfa, sfb as at\n"
    "cc 12.x, copied to Tensor Memory with tcgen05.cp each k tile).\n"
    "mma-sync, wgmma or tcgen05 ask for one (wgmma and tcgen05 decline `kernel`\n"
    "where they cannot). The wgmma and tcgen05 kernels take the tensor maps of a\n"
    "and b as their last two arguments (tcmma_gemm_tensor_maps).\n"
    "--alpha/--beta (finite decimal numbers a float holds, default 1 and 0) are\n"
    "the values the plan shows for the launch: the kernel takes them as float\n"
    "arguments, so they never change its text.\n"
    "--shape-args: one kernel for every shape (m, n, k and the ld's are kernel\n"
    "arguments; the sizes given are one it serves). --align: the alignment class\n"
    "in bytes (16, 8, 4, 2, 1; 0 = the widest the ld allows) of a's, b's and d's\n"
    "rows and pointers: 16 copies with cp.async.cg, 8 and 4 with cp.async.ca, 2 and\n"
    "1 with plain loads (below --cc 80 every copy is a plain load).\n"
    "--batch: N GEMMs over grid z, each matrix --strides elements after the last\n"
    "(0 = dense; c's is d's) or, with --pointer-array, from arrays of N pointers.\n"
    "--split-k: S slices of K over grid z, summed in slice order in the kernel\n"
    "through a workspace (its bytes in the plan; its counters zero before the\n"
    "first launch) before the epilogue.\n"
    "--epilogue: ops applied in order after alpha and beta (after split-K's sum,\n"
    "once), NAME[:ARG] comma-separated: bias:row|col, relu, gelu-tanh, gelu-erf,\n"
    "silu, clamp:LO:HI, residual (stored like c, per matrix of a strided batch),\n"
    "scale:tensor|row|col, amax, cvt:PREC (last; f32, f16, bf16, e4m3, e5m2,\n"
    "saturating), hook (the body of float f(float x, int row, int col), from\n"
    "--epilogue-hook or --epilogue-hook-file); bias and scale vectors are one for\n"
    "the whole batch, amax one over the launch.\n"
    "--tune tries the tiles, warp grids and stages of tools/gemm_tune.def that fit\n"
    "the budgets, compiles the best N of the static model (default 8, at most 64) in\n"
    "one batch and prints them ranked: by measured time on device 0 when it is the\n"
    "--cc's (default: its cc, else 80), else by the static model on their SASS main\n"
    "loop (nvdisasm) or the ideal loop.\n"
    "Exit 0 accepted, 3 declined (reason on stderr), 2 usage error.\n";

static bool parse_dims(const char *cmd, const char *opt, const char *text, int count, int *out) {
  char buf[64];
  snprintf(buf, sizeof buf, "%s", text);
  char *s = buf;
  for (int i = 0; i < count; i++) {
    char *x = i + 1 < count ? strchr(s, 'x') : NULL;
    if (i + 1 < count && !x) {
      cli_usage(cmd, "%s '%s': expected %s", opt, text, count == 3 ? "BMxBNxBK" : "WMxWN");
      return false;
    }
    if (x) *x = '\0';
    long v;
    if (!cli_int(cmd, opt, s, 1, 1024, &v)) return false;
    out[i] = (int)v;
    s = x ? x + 1 : s;
  }
  return true;
}

/* A,B,D: three comma-separated integers lo..hi; false after a usage message. */
static bool parse_three(const char *cmd, const char *opt, const char *text, long lo, long hi,
                        long out[3]) {
  char buf[96];
  snprintf(buf, sizeof buf, "%s", text);
  char *s = buf;
  for (int i = 0; i < 3; i++) {
    char *comma = i < 2 ? strchr(s, ',') : NULL;
    if (i < 2 && !comma) {
      cli_usage(cmd, "%s '%s': expected A,B,D", opt, text);
      return false;
    }
    if (comma) *comma = '\0';
    if (!cli_int(cmd, opt, s, lo, hi, &out[i])) return false;
    s = comma ? comma + 1 : s;
  }
  return true;
}

/* --strides A,B,D: elements from one matrix of the batch to the next (0:
 * dense); the planner checks them against the matrices. */
static bool parse_strides(const char *cmd, const char *opt, const char *text, long out[3]) {
  return parse_three(cmd, opt, text, 0, 1L << 40, out);
}

/* --align A,B,D: three classes of 0..TCMMA_GEMM_ALIGN_MAX bytes (the
 * planner checks the rest); false after a usage message. */
static bool parse_classes(const char *cmd, const char *opt, const char *text, int out[3]) {
  long t[3];
  if (!parse_three(cmd, opt, text, 0, TCMMA_GEMM_ALIGN_MAX, t)) return false;
  for (int i = 0; i < 3; i++) out[i] = (int)t[i];
  return true;
}

/* A finite decimal number for --alpha/--beta that a float (the kernel's
 * argument) holds; false after a usage message. */
static bool parse_scalar(const char *cmd, const char *opt, const char *text, double *out) {
  (void)cmd;
  return cli_finite_float(opt, text, out);
}

/* How operand x's stage tiles are copied, as text. */
static const char *loader_name(bool plain, int bytes) {
  return plain ? "plain" : bytes == 16 ? "cp.async.cg" : "cp.async.ca";
}

static void json_shape(json_writer *w, const tcmma_gemm_info *i) {
  json_key(w, "shape_args"), json_bool(w, i->shape_args);
  json_key(w, "align"), json_begin_object(w);
  json_key(w, "a"), json_int(w, i->a_align);
  json_key(w, "b"), json_int(w, i->b_align);
  json_key(w, "d"), json_int(w, i->d_align);
  json_end_object(w);
  json_key(w, "loader"), json_begin_object(w);
  json_key(w, "a"), json_string(w, loader_name(i->a_plain, i->a_copy_bytes));
  json_key(w, "a_bytes"), json_int(w, i->a_copy_bytes);
  json_key(w, "a_edge"), json_bool(w, i->a_edge);
  json_key(w, "b"), json_string(w, loader_name(i->b_plain, i->b_copy_bytes));
  json_key(w, "b_bytes"), json_int(w, i->b_copy_bytes);
  json_key(w, "b_edge"), json_bool(w, i->b_edge);
  json_end_object(w);
  /* null: the call's own shape only */
  json_key(w, "serves"), json_begin_object(w);
  static const char *const keys[3] = {"m_multiple", "n_multiple", "k_multiple"};
  int v[3] = {i->m_multiple, i->n_multiple, i->k_multiple};
  for (int k = 0; k < 3; k++) {
    json_key(w, keys[k]);
    if (v[k]) json_int(w, v[k]);
    else json_string(w, NULL);
  }
  json_key(w, "extent_max"), json_int(w, TCMMA_GEMM_EXTENT_MAX);
  json_end_object(w);
  json_key(w, "batch"), json_int(w, i->batch);
  json_key(w, "split_k"), json_int(w, i->split_k);
  json_key(w, "k_tiles_per_split"), json_int(w, i->k_tiles_per_split);
  json_key(w, "workspace_bytes"), json_int(w, (long long)i->workspace_bytes);
  json_key(w, "workspace_counters"), json_int(w, (long long)i->workspace_counters);
  json_key(w, "pack"), json_int(w, i->pack);
  json_key(w, "scale_block"), json_int(w, i->scale_block);
  json_key(w, "scale_ld"), json_int(w, i->scale_ld);
  json_key(w, "scale_copy_bytes"), json_int(w, i->scale_copy_bytes);
}

/* The kernel kind and, for wgmma, its warpgroups and registers. */
static void json_kind(json_writer *w, const tcmma_gemm_info *i) {
  json_key(w, "kernel"), json_string(w, tcmma_gemm_kernel_name(i->kernel));
  if (i->kernel == TCMMA_GEMM_KERNEL_TCGEN05) {
    json_key(w, "tcgen05"), json_begin_object(w);
    json_key(w, "arm"), json_string(w, tcmma_tcgen05_marker((tcmma_tcgen05)i->tcgen05));
    json_key(w, "tmem_columns"), json_int(w, i->tmem_columns);
    json_end_object(w);
  }
  if (i->kernel != TCMMA_GEMM_KERNEL_WGMMA) return;
  json_key(w, "wgmma"), json_begin_object(w);
  json_key(w, "arm"), json_string(w, tcmma_wgmma_marker(i->wgmma));
  json_key(w, "consumer_warpgroups"), json_int(w, i->consumer_warpgroups);
  json_key(w, "n"), json_int(w, i->wgmma_n);
  json_key(w, "producer_registers"), json_int(w, i->producer_registers);
  json_key(w, "consumer_registers"), json_int(w, i->consumer_registers);
  json_end_object(w);
}

static void json_plan(const tcmma_gemm_plan *p, const tcmma_gemm_info *info, const char *text,
                      double alpha, double beta, const cli_epilogue *epi) {
  json_writer w;
  json_init(&w, stdout);
  json_begin_object(&w);
  json_key(&w, "accepted"), json_bool(&w, p->accepted);
  json_key(&w, "reason"), json_string(&w, tcmma_gemm_decline_name(p->reason));
  json_key(&w, "message"), json_string(&w, p->message);
  json_kind(&w, info);
  json_key(&w, "arm"), json_string(&w, p->arm == TCMMA_ARM_NONE ? NULL : tcmma_arm_marker(p->arm));
  json_key(&w, "tile"), json_tile(&w, p->call.block_m, p->call.block_n, p->call.block_k);
  json_key(&w, "warps"), json_begin_array(&w);
  json_int(&w, p->call.warps_m), json_int(&w, p->call.warps_n);
  json_end_array(&w);
  json_key(&w, "stages"), json_int(&w, p->call.stages);
  json_key(&w, "alpha"), json_double(&w, alpha);
  json_key(&w, "beta"), json_double(&w, beta);
  json_key(&w, "epilogue"), cli_epilogue_json(epi, &w);
  if (p->accepted) {
    json_key(&w, "threads"), json_int(&w, p->threads);
    json_key(&w, "grid"), json_begin_array(&w);
    for (int i = 0; i < 3; i++) json_int(&w, p->grid[i]);
    json_end_array(&w);
    json_key(&w, "shared_bytes"), json_int(&w, (long long)p->shared_bytes);
    json_key(&w, "shared_max"), json_int(&w, (long long)p->shared_max);
    json_key(&w, "registers"), json_int(&w, p->registers);
    json_key(&w, "predicated"), json_bool(&w, p->predicated);
    json_key(&w, "k_tiles"), json_int(&w, p->k_tiles);
    json_key(&w, "warp_tile"), json_tile(&w, p->warp_m, p->warp_n, p->call.block_k);
    json_key(&w, "swizzle"), json_begin_object(&w);
    json_key(&w, "a"), json_string(&w, tcmma_swizzle_name(p->a_swizzle));
    json_key(&w, "b"), json_string(&w, tcmma_swizzle_name(p->b_swizzle));
    json_end_object(&w);
    json_key(&w, "per_k_tile"), json_begin_object(&w);
    json_key(&w, "mma_per_warp"), json_int(&w, p->mma_per_k_tile);
    json_key(&w, "ldmatrix_per_warp"), json_int(&w, p->ldmatrix_per_k_tile);
    json_key(&w, "cp_async_per_thread"), json_int(&w, p->cp_async_per_k_tile);
    json_end_object(&w);
    json_shape(&w, info);
  }
  json_key(&w, "text"), json_string(&w, text);
  json_end_object(&w);
  json_finish(&w);
}

/* The wgmma kernel's lines of the plan (docs/emit.md, The Hopper GEMM). */
static void text_wgmma(const tcmma_gemm_plan *p, const tcmma_gemm_info *i, double alpha,
                       double beta) {
  const tcmma_gemm_call *c = &p->call;
  printf("gemm %dx%dx%d: kernel wgmma (%s), block %dx%dx%d, warps %dx%d: %d consumer "
         "warpgroups of m64 x n%d and a TMA producer warpgroup, %d stages%s\n", c->m, c->n, c->k,
         tcmma_wgmma_marker(i->wgmma), c->block_m, c->block_n,
         c->block_k, c->warps_m, c->warps_n, i->consumer_warpgroups, i->wgmma_n, c->stages,
         p->predicated ? ", ragged edges (TMA fills zeros, stores guarded)" : "");
  printf("launch: grid %ux%ux%u, %d threads, %zu bytes of dynamic shared memory (at most %zu), "
         "alpha %g, beta %g, then the tensor maps of a and b (tcmma_gemm_tensor_maps)\n",
         p->grid[0], p->grid[1], p->grid[2], p->threads, p->shared_bytes, p->shared_max, alpha,
         beta);
  if (i->consumer_registers)
    printf("registers per thread: %d at launch; setmaxnreg: producer %d, consumers %d\n",
           p->registers, i->producer_registers, i->consumer_registers);
  else
    printf("registers per thread expected: %d (no setmaxnreg: one consumer warpgroup)\n",
           p->registers);
  printf("per k tile: %d wgmma.mma_async per consumer warpgroup, TMA boxes a %d and b %d bytes "
         "swizzled %s (%d k tiles)\n", p->mma_per_k_tile, i->a_copy_bytes, i->b_copy_bytes,
         tcmma_swizzle_name(p->a_swizzle), p->k_tiles);
  printf("alignment classes a %d, b %d, d %d bytes; the epilogue from the accumulator registers\n",
         i->a_align, i->b_align, i->d_align);
  if (i->shape_args)
    printf("serves: m, n, k multiples of %d, %d, %d up to %d as kernel arguments\n",
           i->m_multiple, i->n_multiple, i->k_multiple, TCMMA_GEMM_EXTENT_MAX);
  else
    printf("serves: %dx%dx%d only (fixed shape)\n", c->m, c->n, c->k);
}

/* The tcgen05 kernel's lines of the plan (docs/emit.md, The Blackwell GEMM). */
static void text_tcgen05(const tcmma_gemm_plan *p, const tcmma_gemm_info *i, double alpha,
                         double beta) {
  const tcmma_gemm_call *c = &p->call;
  printf("gemm %dx%dx%d: kernel tcgen05 (%s), block %dx%dx%d, a %s-major, b %s-major: "
         "tcgen05.mma of m%d into %d Tensor Memory columns, a TMA thread, an MMA thread and an "
         "epilogue warpgroup, %d stages%s\n", c->m, c->n, c->k,
         tcmma_tcgen05_marker((tcmma_tcgen05)i->tcgen05), c->block_m, c->block_n, c->block_k,
         c->a.transposed ? "M" : "K", c->b.transposed ? "K" : "N", c->block_m, i->tmem_columns,
         c->stages, p->predicated ? ", ragged edges (TMA fills zeros, stores guarded)" : "");
  printf("launch: grid %ux%ux%u, %d threads, %zu bytes of dynamic shared memory (at most %zu), "
         "alpha %g, beta %g, then the tensor maps of a and b (tcmma_gemm_tensor_maps); compile "
         "for sm_%d%c\n", p->grid[0], p->grid[1], p->grid[2], p->threads, p->shared_bytes,
         p->shared_max, alpha, beta, c->cc, i->arch_suffix ? i->arch_suffix : ' ');
  printf("registers per thread expected: at most %d; per k tile: %d tcgen05.mma, TMA boxes a "
         "%d and b %d bytes swizzled %s (%d k tiles)\n", p->registers, p->mma_per_k_tile,
         i->a_copy_bytes, i->b_copy_bytes, tcmma_swizzle_name(p->a_swizzle), p->k_tiles);
  printf("alignment classes a %d, b %d, d %d bytes; the epilogue from Tensor Memory "
         "(tcgen05.ld)\n", i->a_align, i->b_align, i->d_align);
  if (i->shape_args)
    printf("serves: m, n, k multiples of %d, %d, %d up to %d as kernel arguments\n",
           i->m_multiple, i->n_multiple, i->k_multiple, TCMMA_GEMM_EXTENT_MAX);
  else
    printf("serves: %dx%dx%d only (fixed shape)\n", c->m, c->n, c->k);
}

static void text_plan(const tcmma_gemm_plan *p, const tcmma_gemm_info *i, double alpha,
                      double beta) {
  const tcmma_gemm_call *c = &p->call;
  if (i->kernel == TCMMA_GEMM_KERNEL_WGMMA) return text_wgmma(p, i, alpha, beta);
  if (i->kernel == TCMMA_GEMM_KERNEL_TCGEN05) return text_tcgen05(p, i, alpha, beta);
  printf("gemm %dx%dx%d: %s, block %dx%dx%d, warps %dx%d (warp tile %dx%d), %d stages%s\n",
         c->m, c->n, c->k, tcmma_arm_marker(p->arm), c->block_m, c->block_n, c->block_k,
         c->warps_m, c->warps_n, p->warp_m, p->warp_n, c->stages,
         p->predicated ? ", predicated edges" : "");
  printf("launch: grid %ux%ux%u, %d threads, %zu bytes of dynamic shared memory (at most %zu), "
         "alpha %g, beta %g\n", p->grid[0], p->grid[1], p->grid[2], p->threads, p->shared_bytes,
         p->shared_max, alpha, beta);
  printf("registers per thread expected: %d; stages swizzled a %s, b %s\n", p->registers,
         tcmma_swizzle_name(p->a_swizzle), tcmma_swizzle_name(p->b_swizzle));
  printf("per k tile: %d mma.sync and %d ldmatrix per warp, %d cp.async per thread "
         "(%d k tiles)\n", p->mma_per_k_tile, p->ldmatrix_per_k_tile, p->cp_async_per_k_tile,
         p->k_tiles);
  printf("alignment classes a %d, b %d, d %d bytes; loader a %s %d-byte%s, b %s %d-byte%s\n",
         i->a_align, i->b_align, i->d_align, loader_name(i->a_plain, i->a_copy_bytes),
         i->a_copy_bytes, i->a_edge ? " (edge tiles predicated)" : "",
         loader_name(i->b_plain, i->b_copy_bytes), i->b_copy_bytes,
         i->b_edge ? " (edge tiles predicated)" : "");
  if (i->shape_args)
    printf("serves: m, n, k multiples of %d, %d, %d up to %d as kernel arguments, ld's multiples "
           "of their class\n", i->m_multiple, i->n_multiple, i->k_multiple, TCMMA_GEMM_EXTENT_MAX);
  else
    printf("serves: %dx%dx%d only (fixed shape)\n", p->call.m, p->call.n, p->call.k);
  if (i->batch > 1 || i->split_k > 1)
    printf("grid z: batch %d x split-k %d (%d k tiles per slice); workspace %zu bytes, counters "
           "from byte %zu (zero before the first launch)\n", i->batch, i->split_k,
           i->k_tiles_per_split, i->workspace_bytes, i->workspace_counters);
  if (i->scale_block)
    printf("block scales: one %s per %d k of each row of a and column of b, in sfa [m x %ld] "
           "and sfb [n x %ld] bytes row-major by k block (kernel arguments after beta); a and b "
           "%s\n", tcmma_prec_scale_type(c->a.prec), i->scale_block, i->scale_ld, i->scale_ld,
           i->pack > 1 ? "packed two e2m1 a byte along k, low nibble first" : "one element a byte");
}

/* What the command line asks of tcmma gemm. */
typedef struct {
  tcmma_gemm_call c;
  tcmma_gemm_opts o;
  bool kernel, json, have[6], dialect_given, tune, shape_given, opts_given, kind_given;
  int tune_max;
  double alpha, beta;
  tcmma_dialect dialect;
  cli_epilogue epi;
} gemm_args;

/* Takes value v of an option that sets g->o (--align, --batch, --split-k,
 * --strides, --kind) into *rc (0, or the usage error's exit status); false
 * for another option. */
static bool take_opts_value(const char *a, const char *v, gemm_args *g, int *rc) {
  const char *cmd = "gemm";
  long x;
  tcmma_error err = {0};
  *rc = CLI_USAGE;
  if (strcmp(a, "--align") == 0) {
    int t[3];
    if (!parse_classes(cmd, a, v, t)) return true;
    g->o.a_align = t[0], g->o.b_align = t[1], g->o.d_align = t[2];
  } else if (strcmp(a, "--batch") == 0) {
    if (!cli_int(cmd, a, v, 1, TCMMA_GEMM_GRID_Z_MAX, &x)) return true;
    g->o.batch = (int)x;
  } else if (strcmp(a, "--split-k") == 0) {
    if (!cli_int(cmd, a, v, 1, TCMMA_GEMM_SPLIT_K_MAX, &x)) return true;
    g->o.split_k = (int)x;
  } else if (strcmp(a, "--strides") == 0) {
    long t[3];
    if (!parse_strides(cmd, a, v, t)) return true;
    g->o.stride_a = t[0], g->o.stride_b = t[1], g->o.stride_d = t[2];
  } else if (strcmp(a, "--kind") == 0) {
    if (tcmma_gemm_kernel_parse(v, &g->o.kernel, &err) != TCMMA_OK)
      return *rc = cli_usage(cmd, "--kind: %s", err.message), true;
    g->kind_given = true;
  } else {
    return false;
  }
  return *rc = 0, true;
}

/* Takes value v of option a into g; 0, or the usage error's exit status. */
static int take_value(const char *a, const char *v, gemm_args *g) {
  const char *cmd = "gemm";
  tcmma_gemm_call *c = &g->c;
  long x;
  tcmma_error err = {0};
  static const char *const sizes[3] = {"--m", "--n", "--k"};
  static const char *const specs[3] = {"--d", "--a", "--b"};
  int *dims[3] = {&c->m, &c->n, &c->k};
  tcmma_operand_desc *ops[3] = {&c->d, &c->a, &c->b};
  if (cli_epilogue_option(&g->epi, a, v)) return 0;
  for (int s = 0; s < 3; s++) {
    if (strcmp(a, sizes[s]) == 0) {
      if (!cli_int(cmd, a, v, 1, TCMMA_GEMM_EXTENT_MAX, &x)) return CLI_USAGE;
      return *dims[s] = (int)x, g->have[s] = true, 0;
    } else if (strcmp(a, specs[s]) == 0) {
      if (cli_parse_operand_spec(v, ops[s], &err) != TCMMA_OK)
        return cli_usage(cmd, "%s: %s", a, err.message);
      return g->have[3 + s] = true, 0;
    }
  }
  if (strcmp(a, "--tile") == 0 || strcmp(a, "--warps") == 0 || strcmp(a, "--stages") == 0)
    g->shape_given = true;
  if (strcmp(a, "--align") == 0 || strcmp(a, "--batch") == 0 || strcmp(a, "--split-k") == 0 ||
      strcmp(a, "--strides") == 0)
    g->opts_given = true;
  int rc;
  if (take_opts_value(a, v, g, &rc)) return rc;
  if (strcmp(a, "--tune-max") == 0) {
    if (!cli_int(cmd, a, v, 1, 64, &x)) return CLI_USAGE;
    g->tune_max = (int)x;
  } else if (strcmp(a, "--tile") == 0) {
    int t[3];
    if (!parse_dims(cmd, a, v, 3, t)) return CLI_USAGE;
    c->block_m = t[0], c->block_n = t[1], c->block_k = t[2];
  } else if (strcmp(a, "--warps") == 0) {
    int t[2];
    if (!parse_dims(cmd, a, v, 2, t)) return CLI_USAGE;
    c->warps_m = t[0], c->warps_n = t[1];
  } else if (strcmp(a, "--stages") == 0) {
    if (!cli_int(cmd, a, v, 1, TCMMA_GEMM_WGMMA_STAGES_MAX, &x)) return CLI_USAGE;
    c->stages = (int)x;
  } else if (strcmp(a, "--registers") == 0) {
    if (!cli_int(cmd, a, v, 1, TCMMA_REGISTERS_MAX, &x)) return CLI_USAGE;
    c->registers = (int)x;
  } else if (strcmp(a, "--cc") == 0) {
    if (!cli_cc(cmd, a, v, &c->cc)) return CLI_USAGE;
  } else if (strcmp(a, "--arm") == 0) {
    c->arm = v;
  } else if (strcmp(a, "--name") == 0) {
    c->name = v;
  } else if (strcmp(a, "--alpha") == 0) {
    if (!parse_scalar(cmd, a, v, &g->alpha)) return CLI_USAGE;
  } else if (strcmp(a, "--beta") == 0) {
    if (!parse_scalar(cmd, a, v, &g->beta)) return CLI_USAGE;
  } else if (strcmp(a, "--dialect") == 0) {
    if (strcmp(v, "cuda") == 0) g->dialect = TCMMA_DIALECT_CUDA;
    else if (strcmp(v, "host") == 0) g->dialect = TCMMA_DIALECT_HOST;
    else return cli_usage(cmd, "--dialect '%s': expected cuda or host", v);
    g->dialect_given = true;
  } else {
    return cli_usage(cmd, "unknown option '%s'", a);
  }
  return 0;
}

/* The options and the rules between them; -1 to go on, else the exit
 * status (help: CLI_OK). */
static int parse(int argc, char **argv, gemm_args *g) {
  const char *cmd = "gemm";
  *g = (gemm_args){.c = tcmma_gemm_call_default(), .o = tcmma_gemm_opts_default(), .alpha = 1,
                   .beta = 0, .dialect = TCMMA_DIALECT_CUDA};
  g->c.m = g->c.n = g->c.k = 0;
  for (int i = 1; i < argc; i++) {
    const char *a = argv[i], *v;
    if (cli_is_help(a)) return fputs(help, stdout), CLI_OK;
    if (strcmp(a, "--kernel") == 0) { g->kernel = true; continue; }
    if (strcmp(a, "--json") == 0) { g->json = true; continue; }
    if (strcmp(a, "--unpredicated") == 0) { g->c.unpredicated = true; continue; }
    if (strcmp(a, "--tune") == 0) { g->tune = true; continue; }
    if (strcmp(a, "--shape-args") == 0) { g->o.shape_args = g->opts_given = true; continue; }
    if (strcmp(a, "--pointer-array") == 0) { g->o.pointer_array = g->opts_given = true; continue; }
    if (!(v = cli_value(cmd, argc, argv, &i))) return CLI_USAGE;
    int rc = take_value(a, v, g);
    if (rc) return rc;
  }
  static const char *const need[6] = {"--m", "--n", "--k", "--d", "--a", "--b"};
  for (int i = 0; i < 6; i++)
    if (!g->have[i]) return cli_usage(cmd, "%s is required", need[i]);
  if (g->kernel && g->json) return cli_usage(cmd, "--kernel and --json exclude each other");
  if (g->tune && (g->kernel || g->dialect_given || g->shape_given))
    return cli_usage(cmd, "--tune chooses the tile, warps and stages and prints no kernel: "
                          "without --tile, --warps, --stages, --kernel and --dialect");
  if (g->tune && (g->opts_given || g->epi.list || g->kind_given))
    return cli_usage(cmd, "--tune ranks fixed-shape mma.sync kernels: without --shape-args, "
                          "--align, --batch, --pointer-array, --strides, --split-k, --epilogue "
                          "and --kind");
  if (g->tune_max && !g->tune) return cli_usage(cmd, "--tune-max needs --tune");
  if (!cli_epilogue_parse(&g->epi)) return CLI_USAGE;
  g->o.epilogue = g->epi.count ? g->epi.ops : NULL, g->o.epilogue_count = g->epi.count;
  if (g->dialect_given && !g->kernel && !g->json)
    return cli_usage(cmd, "--dialect chooses the kernel's text: it needs --kernel or --json");
  return -1;
}

/* Plans, renders and prints what g asks. */
static int run(const gemm_args *pg) {
  const char *cmd = "gemm";
  const gemm_args g = *pg;
  if (g.tune) return gemm_tune(&g.c, g.tune_max ? g.tune_max : 8, g.json);
  tcmma_gemm_call c = g.c;
  bool kernel = g.kernel, json = g.json;
  double alpha = g.alpha, beta = g.beta;
  tcmma_dialect dialect = g.dialect;
  tcmma_gemm_plan plan;
  tcmma_gemm_info info = {.size = sizeof info};
  tcmma_error err = {0};
  tcmma_status st = tcmma_gemm_plan_opts(&c, &g.o, &plan, &info, &err);
  if (st != TCMMA_OK && st != TCMMA_DECLINED) return cli_fail(cmd, "%s", err.message);
  tcmma_buf text = {0};
  tcmma_render_ctx ctx = tcmma_render_ctx_make(NULL, dialect, NULL, &text);
  if (plan.accepted && (kernel || json) &&
      tcmma_render_gemm_opts(&ctx, &plan, &g.o, &err) != TCMMA_OK) {
    tcmma_buf_free(&text);
    return cli_fail(cmd, "%s", err.message);
  }
  if (json)
    json_plan(&plan, &info, plan.accepted ? tcmma_buf_str(&text) : NULL, alpha, beta, &g.epi);
  else if (plan.accepted && kernel) fputs(tcmma_buf_str(&text), stdout);
  else if (plan.accepted) text_plan(&plan, &info, alpha, beta);
  tcmma_buf_free(&text);
  if (!plan.accepted) {
    fprintf(stderr, "tcmma gemm: declined: %s\n", plan.message);
    return CLI_DECLINED;
  }
  return CLI_OK;
}

int cmd_gemm(int argc, char **argv) {
  gemm_args g;
  int rc = parse(argc, argv, &g);
  if (rc < 0) rc = run(&g);
  cli_epilogue_free(&g.epi);
  return rc;
}
