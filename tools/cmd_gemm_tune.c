/* tcmma gemm --tune: the configurations of tools/gemm_tune.def the planner
 * accepts for one problem (budgets of shared memory, registers, arch),
 * ranked first by the static model on the plan's ideal loop, the best
 * --tune-max compiled in one batch (tcmma_compile_batch), then ranked by the
 * static model on their SASS main loop (nvdisasm, tools/bench_sass.c; the
 * ideal loop without it) or, with a device, by measured time. The model
 * (docs/emit.md, Tuning): a block's k tile costs the larger of its issue
 * cycles (instructions per warp and k tile times warps, over 4
 * sub-partitions) and its tensor cycles (bm*bn*bk multiply-adds at 2048 per
 * mma_cycles per sub-partition) and its copy cycles (its bytes at
 * bytes_per_cycle); the problem costs that times its k tiles and its
 * blocks rounded up to whole waves of the device's SMs (one block per SM at
 * a time: no occupancy term). A kernel that spills ranks last. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "bench.h"
#include "bench_sass.h"
#include "cmd_gemm_tune.h"
#include "tcmma/tcmma.h"
#include "tcmma/compile.h"
#include "tcmma/driver.h"

/* The rows of tools/gemm_tune.def, one array per kind of row. */
#define TUNE_TILE(bm, bn)
#define TUNE_K(bk, b)
#define TUNE_WARPS(wm, wn)
#define TUNE_STAGES(s)
#define TUNE_ARCH(cc, c, b, sms)
static const int tiles[][2] = {
#undef TUNE_TILE
#define TUNE_TILE(bm, bn) {bm, bn},
#include "gemm_tune.def"
#undef TUNE_TILE
#define TUNE_TILE(bm, bn)
};
static const struct {
  int bk;
  bool byte_inputs;
} ks[] = {
#undef TUNE_K
#define TUNE_K(bk, b) {bk, b},
#include "gemm_tune.def"
#undef TUNE_K
#define TUNE_K(bk, b)
};
static const int warps[][2] = {
#undef TUNE_WARPS
#define TUNE_WARPS(wm, wn) {wm, wn},
#include "gemm_tune.def"
#undef TUNE_WARPS
#define TUNE_WARPS(wm, wn)
};
static const int stages[] = {
#undef TUNE_STAGES
#define TUNE_STAGES(s) s,
#include "gemm_tune.def"
#undef TUNE_STAGES
#define TUNE_STAGES(s)
};
static const int arch_cycles[][4] = {
#undef TUNE_ARCH
#define TUNE_ARCH(cc, c, b, sms) {cc, c, b, sms},
#include "gemm_tune.def"
};
#undef TUNE_TILE
#undef TUNE_K
#undef TUNE_WARPS
#undef TUNE_STAGES
#undef TUNE_ARCH
#define COUNT(a) (sizeof a / sizeof a[0])

/* The most candidates the planner may accept, all combinations. */
enum { MAX_CANDIDATES = COUNT(tiles) * COUNT(ks) * COUNT(warps) * COUNT(stages) };

typedef struct {
  tcmma_gemm_plan plan;
  char name[32];
  double insns;            /* per warp and k tile: the SASS loop's, else the ideal */
  bool sass, timed;
  int registers, spills;
  double score, ms;        /* the model's SM-cycles; the measured time */
  char note[300];
} cand;

/* The static model's cost of the whole problem (see the file comment). */
static double model(const cand *c, int cc) {
  const tcmma_gemm_plan *p = &c->plan;
  const int *a = arch_cycles[0];
  for (size_t i = 0; i < COUNT(arch_cycles); i++)
    if (arch_cycles[i][0] <= cc) a = arch_cycles[i];
  const tcmma_gemm_call *k = &p->call;
  int w = k->warps_m * k->warps_n;
  double issue = c->insns * w / 4.0;
  double tensor = (double)k->block_m * k->block_n * k->block_k * a[1] / (4 * 2048.0);
  double bytes = (double)k->block_k * (k->block_m * tcmma_prec_bytes(k->a.prec) +
                                       k->block_n * tcmma_prec_bytes(k->b.prec));
  double blocks = (double)p->grid[0] * p->grid[1] * p->grid[2];
  double waves = ceil(blocks / a[3]) * a[3]; /* an SM's share, whole waves */
  double cost = fmax(fmax(issue, tensor), bytes / a[2]);
  return waves * p->k_tiles * cost * (c->spills ? 1e6 : 1);
}

/* The ideal instructions per warp and k tile (bench gemm --static's). */
static double ideal(const tcmma_gemm_plan *p) {
  double v[BENCH_SASS_NCLASS];
  bench_gemm_ideal(p, v);
  double t = 0;
  for (int i = 0; i < BENCH_SASS_NCLASS; i++) t += v[i];
  return t;
}

/* Every accepted combination for base's problem into out; their count,
 * and the first decline's message in why. */
static size_t enumerate(const tcmma_gemm_call *base, int cc, cand *out, char *why, size_t cap) {
  bool bytes = tcmma_prec_bytes(base->a.prec) == 1 || tcmma_prec_bytes(base->b.prec) == 1;
  size_t n = 0;
  for (size_t t = 0; t < COUNT(tiles); t++)
    for (size_t k = 0; k < COUNT(ks); k++)
      for (size_t w = 0; w < COUNT(warps); w++)
        for (size_t s = 0; s < COUNT(stages) && ks[k].byte_inputs == bytes; s++) {
          tcmma_gemm_call c = *base;
          c.block_m = tiles[t][0], c.block_n = tiles[t][1], c.block_k = ks[k].bk;
          c.warps_m = warps[w][0], c.warps_n = warps[w][1], c.stages = stages[s];
          c.cc = cc;
          cand *x = &out[n];
          memset(x, 0, sizeof *x);
          snprintf(x->name, sizeof x->name, "tcmma_tune_%zu", n);
          c.name = NULL; /* set when rendered: the plan keeps the pointer */
          tcmma_error err = {0};
          if (tcmma_gemm_plan_call(&c, &x->plan, &err) != TCMMA_OK) {
            if (!why[0]) snprintf(why, cap, "%.400s", x->plan.accepted ? err.message : x->plan.message);
            continue;
          }
          x->insns = ideal(&x->plan);
          x->score = model(x, cc);
          n++;
        }
  return n;
}

/* By the model; at equal cost the fewer instructions per product (more
 * slack for latencies), the more stages, then the fewer registers. */
static int by_score(const void *a, const void *b) {
  const cand *x = a, *y = b;
  if (x->score != y->score) return x->score < y->score ? -1 : 1;
  double ix = x->insns / x->plan.mma_per_k_tile, iy = y->insns / y->plan.mma_per_k_tile;
  if (ix != iy) return ix < iy ? -1 : 1;
  if (x->plan.call.stages != y->plan.call.stages) /* more copies in flight */
    return x->plan.call.stages > y->plan.call.stages ? -1 : 1;
  return (x->registers > y->registers) - (x->registers < y->registers);
}

static int by_time(const void *a, const void *b) {
  const cand *x = a, *y = b;
  if (x->timed != y->timed) return x->timed ? -1 : 1;
  return x->ms < y->ms ? -1 : x->ms > y->ms ? 1 : by_score(a, b);
}

/* The kept candidates rendered into one source and compiled in one batch
 * at sm_cc; their ptxas figures, and *cubin the module (free it). */
static bool compile_all(cand *c, size_t n, int cc, unsigned char **cubin, size_t *cubin_len,
                        char *why, size_t cap) {
  tcmma_buf src = {0};
  const char **names = calloc(n, sizeof *names);
  tcmma_program *progs = calloc(n, sizeof *progs);
  tcmma_error err = {0};
  bool ok = names && progs;
  for (size_t i = 0; ok && i < n; i++) {
    snprintf(c[i].name, sizeof c[i].name, "tcmma_tune_%zu", i);
    c[i].plan.call.name = c[i].name, names[i] = c[i].name;
    tcmma_render_ctx rc = tcmma_render_ctx_make(NULL, TCMMA_DIALECT_CUDA, NULL, &src);
    ok = tcmma_render_gemm(&rc, &c[i].plan, &err) == TCMMA_OK;
  }
  /* the candidates share the call's arm: a family arm (12.x's block-scaled
   * mma) compiles at its family target, sm_120f */
  const tcmma_arm_info *arm = n ? tcmma_arm_get(c[0].plan.arm) : NULL;
  tcmma_compile_opts o = TCMMA_COMPILE_OPTS_INIT(.name = "tcmma-gemm-tune.cu", .sass = true,
                                                 .arch = cc, .cc = cc,
                                                 .arch_suffix = arm && arm->family ? 'f' : 0);
  ok = ok && tcmma_compile_batch(src.data, src.len, names, n, &o, progs, &err) == TCMMA_OK;
  if (!ok) snprintf(why, cap, "%s", err.message[0] ? err.message : "out of memory");
  for (size_t i = 0; ok && i < n; i++) {
    c[i].registers = progs[i].registers;
    c[i].spills = progs[i].spill_store_bytes + progs[i].spill_load_bytes;
  }
  *cubin = NULL, *cubin_len = 0;
  if (ok && (*cubin = malloc(progs[0].cubin_len)))
    memcpy(*cubin, progs[0].cubin, progs[0].cubin_len), *cubin_len = progs[0].cubin_len;
  for (size_t i = 0; progs && i < n; i++) tcmma_program_free(&progs[i]);
  free(progs), free(names), tcmma_buf_free(&src);
  return ok && *cubin;
}

/* Each kernel's main loop from the module's disassembly, when nvdisasm is
 * there; the ideal stays where it is not. */
static void read_sass(cand *c, size_t n, const unsigned char *cubin, size_t len, int cc) {
  char nvdisasm[4096], why[300];
  if (!bench_sass_find_nvdisasm(nvdisasm, sizeof nvdisasm)) return;
  char *text = bench_sass_disassemble(nvdisasm, cubin, len, why, sizeof why);
  for (size_t i = 0; text && i < n; i++) {
    bench_sass s;
    size_t first, last;
    if (!bench_sass_parse(text, c[i].name, &s, why, sizeof why)) continue;
    long bars = bench_sass_main_loop(&s, &first, &last)
                    ? bench_sass_count_op(&s, first, last, "BAR") : 0;
    double trips = (double)bars / (c[i].plan.call.stages == 1 ? 2 : 1);
    if (trips > 0) c[i].insns = (double)(last - first + 1) / trips, c[i].sass = true;
    bench_sass_free(&s);
  }
  free(text);
  for (size_t i = 0; i < n; i++) c[i].score = model(&c[i], cc);
}

/* Zero-filled operands for the problem on device dev; false with why. */
static bool alloc_operands(const tcmma_gemm_call *c, int dev, tcmma_devmem m[3], char *why,
                           size_t cap) {
  size_t bytes[3] = {(size_t)c->m * c->n * tcmma_prec_bytes(c->d.prec),
                     (size_t)c->m * c->k * tcmma_prec_bytes(c->a.prec),
                     (size_t)c->k * c->n * tcmma_prec_bytes(c->b.prec)};
  tcmma_error err = {0};
  for (int i = 0; i < 3; i++)
    if (tcmma_mem_alloc(dev, bytes[i], &m[i], &err) != TCMMA_OK)
      return snprintf(why, cap, "%.280s", err.message), false;
  return true;
}

/* Each kernel timed on device dev (cc its cc): 2 warm-up launches, then
 * the milliseconds per launch over 10 (tcmma_launch_timed). */
static void time_all(cand *c, size_t n, const tcmma_device_info *dev, const unsigned char *cubin,
                     size_t len) {
  tcmma_devmem m[3] = {{0}};
  tcmma_module *mod = NULL;
  tcmma_error err = {0};
  char why[300] = "";
  bool ok = alloc_operands(&c[0].plan.call, dev->ordinal, m, why, sizeof why) &&
            tcmma_module_load(dev->ordinal, cubin, len, &mod, &err) == TCMMA_OK;
  if (!ok && !why[0]) snprintf(why, sizeof why, "%.280s", err.message);
  float alpha = 1, beta = 0;
  void *args[6] = {&m[0].ptr, &m[1].ptr, &m[2].ptr, &m[0].ptr, &alpha, &beta};
  for (size_t i = 0; i < n; i++) {
    const tcmma_gemm_plan *p = &c[i].plan;
    tcmma_kernel fn;
    unsigned block[3] = {(unsigned)p->threads, 1, 1}, sh = (unsigned)p->shared_bytes;
    double ms;
    tcmma_status st = ok ? tcmma_module_kernel(mod, c[i].name, &fn, &err) : TCMMA_UNAVAILABLE;
    if (st == TCMMA_OK) st = tcmma_kernel_max_dynamic_shared(&fn, sh, &err);
    if (st == TCMMA_OK) st = tcmma_launch_timed(&fn, p->grid, block, sh, args, 2, &ms, &err);
    if (st == TCMMA_OK) st = tcmma_launch_timed(&fn, p->grid, block, sh, args, 10, &ms, &err);
    if (st == TCMMA_OK) c[i].ms = ms, c[i].timed = true;
    else snprintf(c[i].note, sizeof c[i].note, "not timed: %.280s", ok ? err.message : why);
  }
  tcmma_module_unload(mod);
  for (int i = 0; i < 3; i++) tcmma_mem_free(&m[i]);
}

static void json_cand(json_writer *w, const cand *c, int rank) {
  const tcmma_gemm_call *k = &c->plan.call;
  json_begin_object(w);
  json_key(w, "rank"), json_int(w, rank);
  json_key(w, "tile"), json_tile(w, k->block_m, k->block_n, k->block_k);
  json_key(w, "warps"), json_begin_array(w), json_int(w, k->warps_m), json_int(w, k->warps_n),
      json_end_array(w);
  json_key(w, "stages"), json_int(w, k->stages);
  json_key(w, "threads"), json_int(w, c->plan.threads);
  json_key(w, "shared_bytes"), json_int(w, (long long)c->plan.shared_bytes);
  json_key(w, "registers"), json_begin_object(w);
  json_key(w, "ptxas"), json_int(w, c->registers);
  json_key(w, "plan"), json_int(w, c->plan.registers);
  json_end_object(w);
  json_key(w, "spill_bytes"), json_int(w, c->spills);
  json_key(w, "instructions_per_k_tile"), json_double(w, c->insns);
  json_key(w, "from_sass"), json_bool(w, c->sass);
  json_key(w, "model_cycles"), json_double(w, c->score);
  json_key(w, "ms"), c->timed ? json_double(w, c->ms) : json_null(w);
  json_key(w, "note"), json_string(w, c->note);
  json_end_object(w);
}

static void print_ranked(const cand *c, size_t n, size_t accepted, int cc, bool timed, bool json) {
  const char *by = timed ? "measured time" : "static model";
  if (json) {
    json_writer w;
    json_init(&w, stdout);
    json_begin_object(&w);
    json_key(&w, "cc"), json_int(&w, cc);
    json_key(&w, "accepted"), json_int(&w, (long long)accepted);
    json_key(&w, "compiled"), json_int(&w, (long long)n);
    json_key(&w, "ranked_by"), json_string(&w, by);
    json_key(&w, "kernels"), json_begin_array(&w);
    for (size_t i = 0; i < n; i++) json_cand(&w, &c[i], (int)i + 1);
    json_end_array(&w);
    json_end_object(&w);
    json_finish(&w);
    return;
  }
  printf("%zu configurations accepted for sm_%d, the best %zu compiled, ranked by %s\n", accepted,
         cc, n, by);
  text_table t;
  table_init(&t, 8);
  const char *head[8] = {"rank", "config", "regs/plan", "shared", "insns/k-tile", "model Mcycles",
                         "ms", "note"};
  table_row(&t, head);
  for (size_t i = 0; i < n; i++) {
    char cells[8][96];
    const char *row[8];
    const tcmma_gemm_call *k = &c[i].plan.call;
    snprintf(cells[0], 96, "%zu", i + 1);
    snprintf(cells[1], 96, "%dx%dx%d w%dx%d s%d", k->block_m, k->block_n, k->block_k, k->warps_m,
             k->warps_n, k->stages);
    snprintf(cells[2], 96, "%d/%d", c[i].registers, c[i].plan.registers);
    snprintf(cells[3], 96, "%zu", c[i].plan.shared_bytes);
    snprintf(cells[4], 96, "%.1f%s", c[i].insns, c[i].sass ? "" : " (ideal)");
    snprintf(cells[5], 96, "%.2f", c[i].score / 1e6);
    snprintf(cells[6], 96, c[i].timed ? "%.4f" : "-", c[i].ms);
    snprintf(cells[7], 96, "%.90s", c[i].note);
    for (int j = 0; j < 8; j++) row[j] = cells[j];
    table_row(&t, row);
  }
  table_print(&t, stdout);
  table_free(&t);
}

int gemm_tune(const tcmma_gemm_call *base, int keep, bool json) {
  tcmma_device_info dev;
  tcmma_error err = {0};
  bool device = tcmma_device_get(0, &dev, &err) == TCMMA_OK;
  int cc = base->cc ? base->cc : device ? dev.cc : 80;
  cand *c = calloc(MAX_CANDIDATES, sizeof *c);
  if (!c) return cli_fail("gemm", "out of memory");
  char why[1100] = "";
  size_t accepted = enumerate(base, cc, c, why, sizeof why);
  if (!accepted) {
    free(c);
    char msg[1300];
    snprintf(msg, sizeof msg, "declined: no configuration of tools/gemm_tune.def fits the "
             "problem at cc %d (the first: %.1100s)", cc, why);
    cli_note_failure("%s", msg); /* the --json error object's message */
    return fprintf(stderr, "tcmma gemm: %s\n", msg), CLI_DECLINED;
  }
  qsort(c, accepted, sizeof *c, by_score);
  size_t n = accepted < (size_t)keep ? accepted : (size_t)keep;
  unsigned char *cubin;
  size_t len;
  if (!compile_all(c, n, cc, &cubin, &len, why, sizeof why))
    return free(c), cli_fail("gemm", "--tune: the batch compile failed: %s", why);
  read_sass(c, n, cubin, len, cc);
  bool timed = device && dev.cc == cc;
  if (timed) time_all(c, n, &dev, cubin, len);
  qsort(c, n, sizeof *c, timed ? by_time : by_score);
  print_ranked(c, n, accepted, cc, timed, json);
  free(cubin), free(c);
  return CLI_OK;
}
