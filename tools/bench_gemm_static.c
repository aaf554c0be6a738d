/* tcmma bench gemm --static: no GPU needed. Compiles the shipped GEMM
 * configurations (tools/bench_gemm.def) to CUBIN at sm_80 and sm_90,
 * disassembles each with nvdisasm, finds the k-tile main loop
 * (tools/bench_sass.c) and reports its instruction mix per warp and k tile
 * beside the ideal the plan implies, their ratio, and ptxas's registers
 * beside the plan's estimate. It measures; nothing here passes or fails on
 * a figure. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "bench.h"
#include "bench_sass.h"
#include "tcmma/tcmma.h"
#include "tcmma/compile.h"

static const char static_usage[] =
    "usage: tcmma bench gemm --static [--arch CC] [--dtype NAME] [--config N]\n"
    "                        [--size N] [--dump FILE] [--json]\n\n"
    "Compiles the shipped GEMM configurations (tools/bench_gemm.def; --config N:\n"
    "the Nth, from 1) for an NxNxN problem (--size, default 4096) to CUBIN at sm_80\n"
    "and sm_90, mxf4 and nvf4 at sm_120f (--arch CC: sm_CC alone; a bad CC lists\n"
    "those taken; the wgmma configurations plan at 90 alone, for sm_90a, the\n"
    "tcgen05 ones at --arch 100 or 103, for sm_100f/sm_103f, and show as declined\n"
    "elsewhere), disassembles them with nvdisasm ($TCMMA_NVDISASM, PATH,\n"
    "/usr/local/cuda/bin, or the nvidia-cuda-nvdisasm wheel that make deps\n"
    "installs) and prints per kernel the k-tile main loop's instructions per warp\n"
    "and k tile by class beside the ideal (the plan's mma, ldmatrix and cp.async\n"
    "counts, one barrier, one commit and one wait, a block-scaled arm's scale\n"
    "loads; once a trip of the loop, which the ring unrolls by its stages: one\n"
    "back-edge branch and 6 integer operations), the ratio, and ptxas's\n"
    "registers beside the plan's.\n"
    "--dump FILE writes the one selected kernel's disassembly. Needs no GPU;\n"
    "exit 4 without nvdisasm.\n";

/* The ideal integer operations a trip of the loop: the loop counter's add
 * and compare, one 64-bit advance of each operand's global base (2 each);
 * the ring unrolled by its stages has no stage offsets to advance or wrap
 * (the stages are immediates). One back-edge branch a trip. */
enum { IDEAL_INT = 6, IDEAL_BRANCH = 1 };

typedef struct {
  int arch;
  const bench_gemm_dtype *t;
  const bench_gemm_config *c;
  int index;               /* the config's number, from 1 */
  bool accepted, measured;
  char note[600];
  int plan_registers, registers, spills;
  long counts[BENCH_SASS_NCLASS], loop_insns;
  double ideal[BENCH_SASS_NCLASS];
  long refill_int;         /* integer operations inside the ring's refill block; -1: no block */
  double k_tiles;          /* k tiles one trip of the loop covers */
  tcmma_gemm_kernel kind;  /* the kind planned: the Hopper GEMM's consumers' loop, the
                              Blackwell GEMM's MMA thread's loop, else the warps' */
} static_result;

/* The archs --arch takes (NVRTC 13 compiles each to a CUBIN). */
static const int archs_known[] = {80, 86, 89, 90, 100, 120};

typedef struct {
  int arch, size, config;  /* 0: every one */
  const char *dtype, *dump;
  bool json;
} static_opts;

/* The disassembly of prog's CUBIN; NULL with r->note set. */
static char *disassemble(const char *nvdisasm, const tcmma_program *prog, static_result *r) {
  return bench_sass_disassemble(nvdisasm, prog->cubin, prog->cubin_len, r->note, sizeof r->note);
}

double bench_gemm_trip(const tcmma_gemm_plan *p) {
  bool emulated = tcmma_arm_sass_products(p->arm, p->call.cc) > 1;
  return p->call.stages > 1 && !emulated ? p->call.stages : 1;
}

void bench_gemm_ideal(const tcmma_gemm_plan *p, double ideal[BENCH_SASS_NCLASS]) {
  double trip = bench_gemm_trip(p);
  for (int i = 0; i < BENCH_SASS_NCLASS; i++) ideal[i] = 0;
  ideal[BENCH_SASS_MMA] = p->mma_per_k_tile;
  ideal[BENCH_SASS_LDSM] = p->ldmatrix_per_k_tile;
  ideal[BENCH_SASS_LDGSTS] = p->cp_async_per_k_tile;
  /* the barrier, the commit and the wait; one stage has a second barrier */
  ideal[BENCH_SASS_SYNC] = p->call.stages == 1 ? 4 : 3;
  ideal[BENCH_SASS_INT] = IDEAL_INT / trip;
  ideal[BENCH_SASS_BRANCH] = IDEAL_BRANCH / trip;
  /* a block-scaled arm's scale registers: one shared load each a tile of
   * a and of b per k step (docs/emit.md, Block-scaled GEMMs) */
  if (tcmma_arm_get(p->arm)->scale_block)
    ideal[BENCH_SASS_OTHER] = (double)(p->census.mt + p->census.nt) * p->census.kt;
}

/* The wgmma kernel's ideal consumer loop per warp and k tile: the plan's
 * wgmma.mma_async (one HGMMA each), the full mbarrier's wait, the wgmma
 * fence and wait_group and the empty mbarrier's arrival, the stage and
 * phase step with the loop counter, one back-edge branch. */
static void wgmma_ideal(const tcmma_gemm_plan *p, double ideal[BENCH_SASS_NCLASS]) {
  for (int i = 0; i < BENCH_SASS_NCLASS; i++) ideal[i] = 0;
  ideal[BENCH_SASS_MMA] = p->mma_per_k_tile;
  ideal[BENCH_SASS_SYNC] = 4;
  ideal[BENCH_SASS_INT] = IDEAL_INT;
  ideal[BENCH_SASS_BRANCH] = IDEAL_BRANCH;
}

/* The tcgen05 kernel's ideal MMA-thread loop per k tile: the plan's
 * tcgen05.mma (one UTC*MMA each), the full mbarrier's wait and the commit
 * to the empty one, the stage/phase step, the loop counter and the
 * descriptors' start, one back-edge branch. */
static void tcgen05_ideal(const tcmma_gemm_plan *p, double ideal[BENCH_SASS_NCLASS]) {
  wgmma_ideal(p, ideal);
  ideal[BENCH_SASS_SYNC] = 2;
}

/* The tensor-core instructions per k tile against the plan's: an mma.sync
 * ptxas emulates issues several per product (tables/arm_emulation.def); a
 * wgmma one HGMMA per warp, a tcgen05.mma one UTC*MMA. */
static void check_products(const tcmma_gemm_plan *p, const long *c, static_result *r) {
  bool one = r->kind != TCMMA_GEMM_KERNEL_MMA_SYNC;
  const char *what = r->kind == TCMMA_GEMM_KERNEL_WGMMA     ? "wgmma.mma_async"
                     : r->kind == TCMMA_GEMM_KERNEL_TCGEN05 ? "tcgen05.mma"
                                                            : "mma.sync";
  int products = one ? 1 : tcmma_arm_sass_products(p->arm, r->arch);
  double per_tile = r->k_tiles > 0 ? (double)c[BENCH_SASS_MMA] / r->k_tiles : 0;
  if (r->k_tiles > 0 && per_tile != (double)p->mma_per_k_tile * products)
    snprintf(r->note, sizeof r->note, "%g tensor-core instructions per k tile for the plan's %d "
             "%s: not the %d per product %s", per_tile, p->mma_per_k_tile, what, products,
             one ? "of a warpgroup or tcgen05 product" : "tables/arm_emulation.def gives");
  else if (products > 1)
    snprintf(r->note, sizeof r->note, "%g tensor-core instructions per k tile for the plan's %d "
             "mma.sync: ptxas emulates %s on sm_%d (tables/arm_emulation.def)", per_tile,
             p->mma_per_k_tile, tcmma_arm_marker(p->arm), r->arch);
}

/* Reads the main loop of the disassembly text into r. */
static void measure_loop(const char *text, const char *name, const tcmma_gemm_plan *p,
                         static_result *r) {
  bench_sass s;
  size_t first, last;
  if (!bench_sass_parse(text, name, &s, r->note, sizeof r->note)) return;
  if (!bench_sass_main_loop(&s, &first, &last)) {
    snprintf(r->note, sizeof r->note, "no loop with an mma and a barrier or mbarrier wait in the "
             "SASS");
  } else {
    long c[BENCH_SASS_NCLASS];
    bench_sass_count(&s, first, last, c);
    r->loop_insns = (long)(last - first + 1);
    size_t bf, bl;
    long rc[BENCH_SASS_NCLASS];
    r->refill_int = -1;
    if (bench_sass_skipped_block(&s, first, last, BENCH_SASS_LDGSTS, &bf, &bl))
      bench_sass_count(&s, bf, bl, rc), r->refill_int = rc[BENCH_SASS_INT];
    /* k tiles per trip from the barriers (one per k tile, two with one
     * stage; the wgmma consumers' full-mbarrier wait): the mma count is
     * what is measured (an arch that emulates an mma.sync issues several
     * per product) */
    long bars = bench_sass_k_waits(&s, first, last);
    r->k_tiles = (double)bars / (r->kind == TCMMA_GEMM_KERNEL_MMA_SYNC && p->call.stages == 1 ? 2 : 1);
    check_products(p, c, r);
    for (int i = 0; i < BENCH_SASS_NCLASS; i++) r->counts[i] = c[i];
    if (r->kind == TCMMA_GEMM_KERNEL_WGMMA) wgmma_ideal(p, r->ideal);
    else if (r->kind == TCMMA_GEMM_KERNEL_TCGEN05) tcgen05_ideal(p, r->ideal);
    else bench_gemm_ideal(p, r->ideal);
    r->measured = r->k_tiles > 0;
  }
  bench_sass_free(&s);
}

/* Plans, renders, compiles and reads one kernel into r; the disassembly
 * also to dump when not NULL. */
static void static_one(static_result *r, int size, const char *nvdisasm, const char *dump) {
  tcmma_gemm_call call = bench_gemm_call(r->t, r->c, size, size, size, r->arch);
  tcmma_gemm_opts o = bench_gemm_opts(r->c);
  tcmma_gemm_plan p;
  tcmma_gemm_info info = {.size = sizeof info};
  tcmma_error err = {0};
  if (tcmma_gemm_plan_opts(&call, &o, &p, &info, &err) != TCMMA_OK) {
    snprintf(r->note, sizeof r->note, "declined: %.580s", p.accepted ? err.message : p.message);
    return;
  }
  r->accepted = true, r->plan_registers = p.registers;
  r->kind = info.kernel;
  tcmma_buf src = {0};
  tcmma_render_ctx rc = tcmma_render_ctx_make(NULL, TCMMA_DIALECT_CUDA, NULL, &src);
  tcmma_program prog = {0};
  /* the plan's target: sm_90a, sm_100f, sm_120f (tcmma_gemm_info.arch_suffix) */
  tcmma_compile_opts opts = TCMMA_COMPILE_OPTS_INIT(.name = "bench-gemm-static.cu",
                                                    .cc = r->arch, .arch = r->arch,
                                                    .arch_suffix = info.arch_suffix, .sass = true);
  tcmma_status st = tcmma_render_gemm_opts(&rc, &p, &o, &err);
  if (st == TCMMA_OK) st = tcmma_compile(src.data, src.len, &opts, &prog, &err);
  char *text = NULL;
  if (st != TCMMA_OK) {
    snprintf(r->note, sizeof r->note, "%.590s", err.message);
  } else {
    r->registers = prog.registers, r->spills = prog.spill_store_bytes + prog.spill_load_bytes;
    text = disassemble(nvdisasm, &prog, r);
  }
  if (text) measure_loop(text, call.name ? call.name : "tcmma_gemm", &p, r);
  if (text && dump && !bench_write_file(dump, text, strlen(text)))
    snprintf(r->note, sizeof r->note, "cannot write %.500s", dump);
  free(text);
  tcmma_program_free(&prog);
  tcmma_buf_free(&src);
}

/* The options, or false with *rc the exit status (help: CLI_OK). */
static bool parse_static(int argc, char **argv, static_opts *o, int *rc) {
  const char *cmd = "bench gemm --static";
  *o = (static_opts){.size = 4096};
  *rc = CLI_USAGE;
  for (int i = 1; i < argc; i++) {
    const char *v;
    long x;
    if (cli_is_help(argv[i])) return fputs(static_usage, stdout), *rc = CLI_OK, false;
    if (strcmp(argv[i], "--json") == 0) { o->json = true; continue; }
    if (!(v = cli_value(cmd, argc, argv, &i))) return false;
    if (strcmp(argv[i - 1], "--arch") == 0) {
      bool known = false;
      char list[64] = "";
      for (size_t a = 0; a < sizeof archs_known / sizeof archs_known[0]; a++) {
        if (atoi(v) == archs_known[a] && strspn(v, "0123456789") == strlen(v)) known = true;
        snprintf(list + strlen(list), sizeof list - strlen(list), " %d", archs_known[a]);
      }
      if (!known) return cli_usage(cmd, "--arch '%s': expected one of%s", v, list), false;
      o->arch = atoi(v);
    } else if (strcmp(argv[i - 1], "--dtype") == 0) {
      bool known = false;
      for (int t = 0; t < bench_gemm_n_dtypes; t++) known |= !strcmp(v, bench_gemm_dtypes[t].name);
      if (!known)
        return cli_usage(cmd, "--dtype '%s': expected bf16, f16, e4m3, mxf4 or nvf4", v), false;
      o->dtype = v;
    } else if (strcmp(argv[i - 1], "--config") == 0) {
      if (!cli_int(cmd, "--config", v, 1, bench_gemm_n_configs, &x)) return false;
      o->config = (int)x;
    } else if (strcmp(argv[i - 1], "--size") == 0) {
      if (!cli_int(cmd, "--size", v, 128, 16384, &x)) return false;
      if (x % 256) return cli_usage(cmd, "--size %ld: expected a multiple of 256", x), false;
      o->size = (int)x;
    } else if (strcmp(argv[i - 1], "--dump") == 0) {
      o->dump = v;
    } else {
      return cli_usage(cmd, "unknown option '%s'", argv[i - 1]), false;
    }
  }
  return true;
}

/* The kernels the options select, into res (room for every one); count. */
static size_t select_kernels(const static_opts *o, static_result *res) {
  static const int archs[] = {80, 90}; /* the default pair */
  int n_archs = o->arch ? 1 : 2;
  size_t n = 0;
  for (int a = 0; a < n_archs; a++)
    for (int t = 0; t < bench_gemm_n_dtypes; t++)
      for (int c = 0; c < bench_gemm_n_configs; c++) {
        const bench_gemm_dtype *ty = &bench_gemm_dtypes[t];
        const bench_gemm_config *cf = &bench_gemm_configs[c];
        if ((o->dtype && strcmp(o->dtype, ty->name)) ||
            (o->config && o->config != c + 1) || cf->bits != ty->bits)
          continue;
        /* a dtype of one arch (the 12.x block-scaled ones) is compiled there only */
        int arch = o->arch ? o->arch : ty->cc ? ty->cc : archs[a];
        if ((ty->cc && (arch != ty->cc || a > 0)) || (!ty->cc && arch == 120 && !o->arch))
          continue;
        res[n++] = (static_result){.arch = arch, .t = ty, .c = cf, .index = c + 1};
      }
  return n;
}

static double total(const long *v) {
  double s = 0;
  for (int i = 0; i < BENCH_SASS_NCLASS; i++) s += (double)v[i];
  return s;
}
static double total_d(const double *v) {
  double s = 0;
  for (int i = 0; i < BENCH_SASS_NCLASS; i++) s += v[i];
  return s;
}

static void json_mix(json_writer *w, const char *key, const double *v) {
  json_key(w, key), json_begin_object(w);
  for (int i = 0; i < BENCH_SASS_NCLASS; i++)
    json_key(w, bench_sass_class_name((bench_sass_class)i)), json_double(w, v[i]);
  json_key(w, "total"), json_double(w, total_d(v));
  json_end_object(w);
}

static void json_one(json_writer *w, const static_result *r) {
  json_begin_object(w);
  json_key(w, "arch"), json_int(w, r->arch);
  json_key(w, "dtype"), json_string(w, r->t->name);
  json_key(w, "config"), json_int(w, r->index);
  bench_gemm_config_json(w, r->c);
  json_key(w, "accepted"), json_bool(w, r->accepted);
  json_key(w, "measured"), json_bool(w, r->measured);
  json_key(w, "registers"), json_begin_object(w);
  json_key(w, "ptxas"), json_int(w, r->registers);
  json_key(w, "plan"), json_int(w, r->plan_registers);
  json_end_object(w);
  json_key(w, "spill_bytes"), json_int(w, r->spills);
  if (r->measured) {
    json_key(w, "loop_instructions"), json_int(w, r->loop_insns);
    json_key(w, "k_tiles_per_trip"), json_double(w, r->k_tiles);
    double per[BENCH_SASS_NCLASS];
    for (int i = 0; i < BENCH_SASS_NCLASS; i++) per[i] = (double)r->counts[i] / r->k_tiles;
    json_mix(w, "per_k_tile", per);
    json_mix(w, "ideal", r->ideal);
    json_key(w, "ratio"), json_double(w, total(r->counts) / r->k_tiles / total_d(r->ideal));
    /* how much of "int" the global loader's refill block holds */
    json_key(w, "refill_int_per_k_tile");
    if (r->refill_int >= 0) json_double(w, (double)r->refill_int / r->k_tiles);
    else json_null(w);
  }
  json_key(w, "note"), json_string(w, r->note);
  json_end_object(w);
}

/* One text row: per class "measured/ideal", then totals and the ratio. */
static void text_row(text_table *tt, const static_result *r) {
  char cells[6 + BENCH_SASS_NCLASS][64], cfg[48];
  const char *row[6 + BENCH_SASS_NCLASS];
  bench_gemm_config_text(r->c, cfg, sizeof cfg);
  snprintf(cells[0], 64, "sm_%d", r->arch);
  snprintf(cells[1], 64, "%s", r->t->name);
  snprintf(cells[2], 64, "%d: %s", r->index, cfg);
  snprintf(cells[3], 64, r->accepted ? "%d/%d" : "-", r->registers, r->plan_registers);
  for (int i = 0; i < BENCH_SASS_NCLASS; i++)
    snprintf(cells[4 + i], 64, r->measured ? "%.4g/%.3g" : "-", (double)r->counts[i] / r->k_tiles,
             r->ideal[i]);
  if (r->measured && r->refill_int >= 0) /* the int the loader's refill block holds */
    snprintf(cells[4 + BENCH_SASS_INT], 64, "%.4g/%.3g (%.4g refill)",
             (double)r->counts[BENCH_SASS_INT] / r->k_tiles, r->ideal[BENCH_SASS_INT],
             (double)r->refill_int / r->k_tiles);
  snprintf(cells[4 + BENCH_SASS_NCLASS], 64, r->measured ? "%.4g/%.4g" : "-",
           total(r->counts) / r->k_tiles, total_d(r->ideal));
  snprintf(cells[5 + BENCH_SASS_NCLASS], 64, r->measured ? "%.2f" : "-",
           total(r->counts) / r->k_tiles / total_d(r->ideal));
  for (int i = 0; i < 6 + BENCH_SASS_NCLASS; i++) row[i] = cells[i];
  table_row(tt, row);
}

static void print_text(const static_result *res, size_t n) {
  text_table tt;
  const char *head[6 + BENCH_SASS_NCLASS] = {"arch", "type", "config", "regs/plan"};
  for (int i = 0; i < BENCH_SASS_NCLASS; i++) head[4 + i] = bench_sass_class_name((bench_sass_class)i);
  head[4 + BENCH_SASS_NCLASS] = "total/ideal", head[5 + BENCH_SASS_NCLASS] = "ratio";
  table_init(&tt, 6 + BENCH_SASS_NCLASS);
  table_row(&tt, head);
  for (size_t i = 0; i < n; i++) text_row(&tt, &res[i]);
  printf("k-tile main loop, instructions per warp and k tile (measured/ideal); registers "
         "ptxas/plan\n");
  table_print(&tt, stdout);
  table_free(&tt);
  for (size_t i = 0; i < n; i++)
    if (res[i].note[0])
      printf("sm_%d %s config %d: %s\n", res[i].arch, res[i].t->name, res[i].index, res[i].note);
}

int bench_gemm_static(int argc, char **argv) {
  static_opts o;
  int rc;
  if (!parse_static(argc, argv, &o, &rc)) return rc;
  char nvdisasm[4096];
  if (!bench_sass_find_nvdisasm(nvdisasm, sizeof nvdisasm))
    return fprintf(stderr, "tcmma bench gemm --static: no nvdisasm (TCMMA_NVDISASM, PATH, "
                           "/usr/local/cuda/bin, or pip install nvidia-cuda-nvdisasm: make deps)\n"),
           CLI_UNAVAILABLE;
  static_result *res = calloc((size_t)(2 * bench_gemm_n_dtypes * bench_gemm_n_configs), sizeof *res);
  if (!res) return fprintf(stderr, "tcmma bench gemm --static: out of memory\n"), CLI_FAIL;
  size_t n = select_kernels(&o, res);
  if (o.dump && n != 1)
    return free(res), cli_usage("bench gemm --static", "--dump writes one kernel's disassembly: "
                                "the options select %zu", n);
  for (size_t i = 0; i < n; i++) {
    static_one(&res[i], o.size, nvdisasm, o.dump);
    if (!o.json)
      fprintf(stderr, "  sm_%d %s config %d: %s\n", res[i].arch, res[i].t->name, res[i].index,
              res[i].measured ? "measured" : res[i].note);
  }
  if (o.json) {
    json_writer w;
    json_init(&w, stdout);
    json_begin_object(&w);
    json_key(&w, "size"), json_int(&w, o.size);
    json_key(&w, "nvdisasm"), json_string(&w, nvdisasm);
    json_key(&w, "kernels"), json_begin_array(&w);
    for (size_t i = 0; i < n; i++) json_one(&w, &res[i]);
    json_end_array(&w);
    json_end_object(&w);
    json_finish(&w);
  } else {
    print_text(res, n);
  }
  free(res);
  return CLI_OK;
}
