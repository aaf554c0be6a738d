/* tcmma bench compile: the emitted kernels compiled by plain NVRTC in a fresh
 * process (the baseline), by `tcmma compile` in a fresh process with an empty
 * cache and with a warm disk cache, by tcmma_compile from the memory cache,
 * and all of them at once through tcmma_compile_batch in a fresh process;
 * medians of repeats, CPU and wall time, all in one run. */
#include <dlfcn.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "bench.h"
#include "cli_input.h"
#include "tcmma/tcmma.h"
#include "tools/verify/batch.h"

static const char help[] =
    "usage: tcmma bench compile [--kernels N] [--repeat N] [--json]\n\n"
    "Compiles N distinct emitted kernels (default 24: accepted cases of the arm matrix, one\n"
    "per arm, scope and tile count) to PTX at the arch their markers ask for, each way\n"
    "repeated (default 5 times), and prints the medians of the totals over the kernels,\n"
    "CPU seconds (user + system, every thread and child) and wall seconds:\n"
    "  naive     plain NVRTC in a fresh process per kernel: dlopen, one program,\n"
    "            --gpu-architecture=compute_XX and the toolkit's -I, no PCH; the kernel\n"
    "            as a generator without tcmma writes it (its vendor headers included)\n"
    "  cold      `tcmma compile FILE --minimal` in a fresh process, empty disk cache\n"
    "  warm      the same with the disk cache warm (a hit in a fresh process)\n"
    "  warm_mem  tcmma_compile in this process, a memory-cache hit\n"
    "  batch     every kernel in a fresh process through tcmma_compile_batch (kernels\n"
    "            of one arch in one NVRTC program, programs on every core), empty cache\n"
    "  process   `tcmma --version` in a fresh process, once per kernel: the floor under\n"
    "            warm (starting and ending a process that does no work)\n"
    "and each one's ratio to naive (CPU). Uses a scratch cache directory, never yours.\n"
    "(--naive and --batch, as a first argument, are the child modes it spawns itself.)\n"
    "--json  {\"kernels\", \"inline_kernels\", \"wmma_kernels\", \"repeat\",\n"
    "        \"batched\" (kernels the batch compiled in a program with others; the rest\n"
    "        were compiled alone), \"naive_s\", \"cold_s\", \"warm_s\", \"warm_mem_s\",\n"
    "        \"batch_s\", \"process_s\" (CPU), \"wall\": {the same}, \"ratio\": {\"cold\", \"warm\", \"warm_mem\", \"batch\", \"process\"},\n"
    "        \"inline\" and \"wmma\": {\"naive_s\", \"cold_s\", \"warm_s\"}}\n"
    "Exit status: 0 measured; 1 a compile failed; 2 usage error; 4 no NVRTC here.\n";

enum { NAIVE, COLD, WARM, WARM_MEM, BATCH, PROCESS, MODES };
static const char *const mode_key[MODES] = {"naive", "cold", "warm", "warm_mem", "batch",
                                            "process"};
static const char *const mode_text[MODES] = {
    "naive NVRTC, fresh process", "tcmma compile, empty cache, fresh process",
    "tcmma compile, disk hit, fresh process", "tcmma_compile, memory hit, in process",
    "tcmma_compile_batch, empty cache, fresh process",
    "tcmma --version, fresh process (the floor)"};

/* ---- the naive baseline, run in a child: tcmma bench compile --naive ---- */

typedef int (*create_fn)(void **, const char *, const char *, int, const char *const *,
                         const char *const *);
typedef int (*compile_fn)(void *, int, const char *const *);
typedef int (*size_fn)(void *, size_t *);
typedef int (*get_fn)(void *, char *);
typedef int (*destroy_fn)(void **);

/* --naive LIBRARY ARCH-OPTION INCLUDE-DIR FILE: what a generator without
 * tcmma does, in this process. */
static int naive_child(int argc, char **argv) {
  if (argc != 6) return CLI_USAGE;
  void *h = dlopen(argv[2], RTLD_NOW | RTLD_LOCAL);
  if (!h) return CLI_UNAVAILABLE;
  create_fn create = (create_fn)dlsym(h, "nvrtcCreateProgram");
  compile_fn compile = (compile_fn)dlsym(h, "nvrtcCompileProgram");
  size_fn ptx_size = (size_fn)dlsym(h, "nvrtcGetPTXSize");
  get_fn get_ptx = (get_fn)dlsym(h, "nvrtcGetPTX");
  destroy_fn destroy = (destroy_fn)dlsym(h, "nvrtcDestroyProgram");
  if (!create || !compile || !ptx_size || !get_ptx || !destroy) return CLI_UNAVAILABLE;
  size_t len;
  char *src = cli_read_input("bench", argv[5], &len);
  if (!src) return CLI_FAIL;
  char inc[4200], cccl[4200];
  snprintf(inc, sizeof inc, "-I%s", argv[4]);
  snprintf(cccl, sizeof cccl, "-I%s/cccl", argv[4]);
  const char *opts[] = {argv[3], inc, cccl};
  void *prog = NULL;
  size_t n = 0;
  int rc = create(&prog, src, argv[5], 0, NULL, NULL) == 0 && compile(prog, 3, opts) == 0 &&
                   ptx_size(prog, &n) == 0 && n > 0
               ? CLI_OK : CLI_FAIL;
  char *ptx = rc == CLI_OK ? malloc(n) : NULL;
  if (ptx && get_ptx(prog, ptx) != 0) rc = CLI_FAIL;
  free(ptx), free(src);
  if (prog) destroy(&prog);
  return rc;
}

/* ---- the batch, run in a child: tcmma bench compile --batch ---- */

/* The kernels through tools/verify/batch.c: one program per arch (a few
 * where the cores want more), on every core. Prints how many outcomes came
 * from a batch (the rest were compiled alone: a batch that failed, or a
 * lone kernel of its arch), which the parent reports. */
static bool batch_compile(char **src, const size_t *len, size_t n) {
  verify_job *jobs = calloc(n ? n : 1, sizeof *jobs);
  if (!jobs) return false;
  for (size_t i = 0; i < n; i++)
    jobs[i] = (verify_job){.source = src[i], .len = len[i],
                           .opts = TCMMA_COMPILE_OPTS_INIT(.name = "bench.cu",
                                                           .target = TCMMA_TARGET_FLOOR,
                                                           .minimal = true)};
  verify_compile_jobs(jobs, n);
  bool ok = true;
  size_t batched = 0;
  for (size_t i = 0; i < n; i++) {
    ok = ok && jobs[i].status == TCMMA_OK;
    batched += jobs[i].batched;
    tcmma_program_free(&jobs[i].prog);
  }
  free(jobs);
  return printf("batched %zu\n", batched) > 0 && ok;
}

/* --batch FILE...: every file's kernel through tcmma_compile_batch. */
static int batch_child(int argc, char **argv) {
  size_t n = (size_t)argc - 2;
  char **src = calloc(n ? n : 1, sizeof *src);
  size_t *len = calloc(n ? n : 1, sizeof *len);
  int rc = src && len ? CLI_OK : CLI_FAIL;
  for (size_t i = 0; rc == CLI_OK && i < n; i++)
    if (!(src[i] = cli_read_input("bench", argv[2 + i], &len[i]))) rc = CLI_FAIL;
  if (rc == CLI_OK) rc = batch_compile(src, len, n) ? CLI_OK : CLI_FAIL;
  for (size_t i = 0; src && i < n; i++) free(src[i]);
  free(src), free(len);
  return rc;
}

/* ---- the measurements ---- */

typedef struct {
  char dir[4096];
  bench_kernel *k;
  size_t n;
  tcmma_nvrtc_info nvrtc;
  /* per repeat: totals (all kernels, and inline and wmma ones) */
  double cpu[MODES][3][64], wall[MODES][64];
  long batched; /* kernels whose outcome came from a batch, in the last batch run */
} bench;

static void path_of(const bench *b, char *buf, size_t cap, const char *what, size_t i) {
  snprintf(buf, cap, "%s/%s%zu.cu", b->dir, what, i);
}

/* One fresh-process measure of kernel i; false when it failed. */
static bool run_one(bench *b, int mode, size_t i, int r) {
  char file[4400], out[4400], cache[4400], env_dir[4500];
  path_of(b, file, sizeof file, mode == NAIVE ? "naive" : "kernel", i);
  snprintf(out, sizeof out, "%s/out.ptx", b->dir);
  snprintf(cache, sizeof cache, "%s/cache-%d", b->dir, mode == WARM ? 0 : r);
  snprintf(env_dir, sizeof env_dir, "TCMMA_CACHE_DIR=%s", cache);
  const char *env[] = {env_dir, "TCMMA_CACHE=1", "TCMMA_PTX_TARGET=floor", NULL};
  bench_time t;
  bool ok;
  if (mode == NAIVE) {
    const char *argv[] = {"tcmma", "bench", "compile", "--naive", b->nvrtc.library,
                          b->k[i].arch, b->nvrtc.include_dir, file, NULL};
    ok = bench_spawn(NULL, argv, NULL, -1, &t);
  } else if (mode == PROCESS) {
    const char *argv[] = {"tcmma", "--version", NULL};
    ok = bench_spawn(NULL, argv, env, -1, &t);
  } else {
    const char *argv[] = {"tcmma", "compile", file, "--minimal", "-o", out, NULL};
    ok = bench_spawn(NULL, argv, env, -1, &t);
  }
  int form = b->k[i].wmma ? 2 : 1;
  b->cpu[mode][0][r] += t.cpu, b->cpu[mode][form][r] += t.cpu;
  b->wall[mode][r] += t.wall;
  return ok;
}

/* The memory hits of every kernel, in this process. */
static bool run_memory(bench *b, int r) {
  char cache[4400];
  snprintf(cache, sizeof cache, "%s/cache-0", b->dir);
  setenv("TCMMA_CACHE_DIR", cache, 1);
  for (size_t i = 0; i < b->n; i++) {
    tcmma_compile_opts o = TCMMA_COMPILE_OPTS_INIT(.target = TCMMA_TARGET_FLOOR, .minimal = true);
    tcmma_program p;
    tcmma_status st = tcmma_compile(b->k[i].source, b->k[i].len, &o, &p, NULL); /* warms */
    tcmma_program_free(&p);
    if (st != TCMMA_OK) return false;
    bench_time t0 = bench_now();
    st = tcmma_compile(b->k[i].source, b->k[i].len, &o, &p, NULL);
    bench_time t = bench_since(t0);
    bool hit = p.cache_hit;
    tcmma_program_free(&p);
    if (st != TCMMA_OK || !hit) return false;
    int form = b->k[i].wmma ? 2 : 1;
    b->cpu[WARM_MEM][0][r] += t.cpu, b->cpu[WARM_MEM][form][r] += t.cpu;
    b->wall[WARM_MEM][r] += t.wall;
  }
  return true;
}

/* Every kernel in one child through the batch API. */
static bool run_batch(bench *b, int r) {
  char cache[4400], env_dir[4500];
  snprintf(cache, sizeof cache, "%s/cache-batch-%d", b->dir, r);
  snprintf(env_dir, sizeof env_dir, "TCMMA_CACHE_DIR=%s", cache);
  const char *env[] = {env_dir, "TCMMA_CACHE=1", "TCMMA_PTX_TARGET=floor", NULL};
  const char **argv = calloc(b->n + 5, sizeof *argv);
  char (*files)[4400] = calloc(b->n ? b->n : 1, sizeof *files);
  if (!argv || !files) return free(argv), free(files), false;
  argv[0] = "tcmma", argv[1] = "bench", argv[2] = "compile", argv[3] = "--batch";
  for (size_t i = 0; i < b->n; i++) {
    path_of(b, files[i], sizeof files[i], "kernel", i);
    argv[4 + i] = files[i];
  }
  char out[4400];
  snprintf(out, sizeof out, "%s/batch-out", b->dir);
  int fd = open(out, O_RDWR | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);
  bench_time t;
  bool ok = fd >= 0 && bench_spawn(NULL, argv, env, fd, &t);
  if (fd >= 0) close(fd);
  b->cpu[BATCH][0][r] = t.cpu, b->wall[BATCH][r] = t.wall;
  size_t len = 0;
  char *said = ok ? cli_read_input("bench", out, &len) : NULL;
  ok = said && sscanf(said, "batched %ld", &b->batched) == 1;
  free(said), free(argv), free(files);
  return ok;
}

static bool write_kernels(const bench *b) {
  for (size_t i = 0; i < b->n; i++) {
    char path[4400];
    path_of(b, path, sizeof path, "kernel", i);
    if (!bench_write_file(path, b->k[i].source, b->k[i].len)) return false;
    path_of(b, path, sizeof path, "naive", i);
    if (!bench_write_file(path, b->k[i].naive, b->k[i].naive_len)) return false;
  }
  return true;
}

typedef struct {
  double cpu[MODES][3], wall[MODES];
} medians;

static medians median_of(bench *b, int repeat) {
  medians m;
  for (int mode = 0; mode < MODES; mode++) {
    for (int f = 0; f < 3; f++) m.cpu[mode][f] = bench_median(b->cpu[mode][f], (size_t)repeat);
    m.wall[mode] = bench_median(b->wall[mode], (size_t)repeat);
  }
  return m;
}

static double ratio(double x, double base) { return base > 0 ? x / base : 0; }

static void report_json(const bench *b, const medians *m, int repeat) {
  size_t wmma = 0;
  for (size_t i = 0; i < b->n; i++) wmma += b->k[i].wmma;
  json_writer w;
  json_init(&w, stdout);
  json_begin_object(&w);
  json_key(&w, "kernels"), json_int(&w, (long long)b->n);
  json_key(&w, "inline_kernels"), json_int(&w, (long long)(b->n - wmma));
  json_key(&w, "wmma_kernels"), json_int(&w, (long long)wmma);
  json_key(&w, "repeat"), json_int(&w, repeat);
  json_key(&w, "batched"), json_int(&w, b->batched);
  char key[32];
  for (int mode = 0; mode < MODES; mode++) {
    snprintf(key, sizeof key, "%s_s", mode_key[mode]);
    json_key(&w, key), json_double(&w, m->cpu[mode][0]);
  }
  json_key(&w, "wall"), json_begin_object(&w);
  for (int mode = 0; mode < MODES; mode++) {
    snprintf(key, sizeof key, "%s_s", mode_key[mode]);
    json_key(&w, key), json_double(&w, m->wall[mode]);
  }
  json_end_object(&w);
  json_key(&w, "ratio"), json_begin_object(&w);
  for (int mode = COLD; mode < MODES; mode++)
    json_key(&w, mode_key[mode]), json_double(&w, ratio(m->cpu[mode][0], m->cpu[NAIVE][0]));
  json_end_object(&w);
  static const char *const forms[2] = {"inline", "wmma"};
  for (int f = 1; f <= 2; f++) {
    json_key(&w, forms[f - 1]), json_begin_object(&w);
    for (int mode = NAIVE; mode <= WARM; mode++) {
      snprintf(key, sizeof key, "%s_s", mode_key[mode]);
      json_key(&w, key), json_double(&w, m->cpu[mode][f]);
    }
    json_end_object(&w);
  }
  json_end_object(&w);
  json_finish(&w);
}

static void report_text(const bench *b, const medians *m, int repeat) {
  size_t wmma = 0;
  for (size_t i = 0; i < b->n; i++) wmma += b->k[i].wmma;
  printf("bench compile: %zu kernels (%zu inline-PTX, %zu wmma), NVRTC %d.%d, median of %d\n",
         b->n, b->n - wmma, wmma, b->nvrtc.major, b->nvrtc.minor, repeat);
  printf("%-50s %10s %10s %9s\n", "total over the kernels", "CPU s", "wall s", "CPU/naive");
  for (int mode = 0; mode < MODES; mode++)
    printf("%-50s %10.4f %10.4f %9.4f\n", mode_text[mode], m->cpu[mode][0], m->wall[mode],
           ratio(m->cpu[mode][0], m->cpu[NAIVE][0]));
  printf("one file, cold/naive (CPU): inline-PTX kernels %.3f, wmma kernels %.3f\n",
         ratio(m->cpu[COLD][1], m->cpu[NAIVE][1]), ratio(m->cpu[COLD][2], m->cpu[NAIVE][2]));
  printf("batch: %ld of %zu kernels compiled in a batch, the rest alone\n", b->batched, b->n);
}

static int measure(bench *b, int repeat, bool json) {
  for (int r = 0; r < repeat; r++) {
    /* the floor right after NVRTC ran, as the disk hit runs right after the
     * cold compile: both start with the caches NVRTC left */
    static const int order[] = {NAIVE, PROCESS, COLD, WARM};
    for (size_t i = 0; i < b->n; i++)
      for (size_t k = 0; k < sizeof order / sizeof order[0]; k++)
        if (!run_one(b, order[k], i, r))
          return cli_fail("bench", "%s of %s failed", mode_key[order[k]], b->k[i].c->name);
    if (!run_memory(b, r)) return cli_fail("bench", "a memory-cache hit failed");
    if (!run_batch(b, r)) return cli_fail("bench", "the batch compile failed");
  }
  medians m = median_of(b, repeat);
  if (json) report_json(b, &m, repeat);
  else report_text(b, &m, repeat);
  return CLI_OK;
}

int bench_compile(int argc, char **argv) {
  if (argc > 1 && strcmp(argv[1], "--naive") == 0) return naive_child(argc, argv);
  if (argc > 1 && strcmp(argv[1], "--batch") == 0) return batch_child(argc, argv);
  bench_args a = {.kernels = 24, .repeat = 5};
  int parsed = bench_parse_args("compile", help, argc, argv, &a);
  if (parsed >= 0) return parsed;
  long kernels = a.kernels, repeat = a.repeat;
  bool json = a.json;
  static bench b;
  tcmma_error err;
  if (tcmma_nvrtc_load(&b.nvrtc, &err) != TCMMA_OK)
    return fprintf(stderr, "tcmma bench: %s\n", err.message), CLI_UNAVAILABLE;
  char why[256];
  if (!(b.n = bench_kernels((size_t)kernels, &b.k, why, sizeof why)))
    return cli_fail("bench", "%s", why);
  int rc;
  if (!bench_tmpdir(b.dir, sizeof b.dir)) {
    rc = cli_fail("bench", "cannot make a scratch directory");
  } else {
    rc = write_kernels(&b) ? measure(&b, (int)repeat, json)
                           : cli_fail("bench", "cannot write the kernels to %s", b.dir);
    bench_rmdir(b.dir);
  }
  bench_kernels_free(b.k, b.n);
  return rc;
}
