/* tcmma bench emit: what emission (plan + render of the one-warp kernel)
 * costs next to compiling what it emits, per kernel of the bench set. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "bench.h"
#include "tcmma/tcmma.h"

static const char help[] =
    "usage: tcmma bench emit [--kernels N] [--repeat N] [--json]\n\n"
    "For each of N emitted kernels (default 24, as tcmma bench compile picks them): the\n"
    "median CPU time of planning and rendering it (many times per repeat, default 5\n"
    "repeats), and the median CPU time of compiling it cold in this process\n"
    "(tcmma_compile --minimal, memory cache emptied, disk cache off). Prints each kernel's\n"
    "emission as a share of its compile, the worst kernel, and the totals.\n"
    "--json  {\"kernels\", \"repeat\", \"emit_s\", \"compile_s\" (totals over the kernels),\n"
    "        \"worst\": {\"case\", \"emit_s\", \"compile_s\", \"share\"}, \"each\": [{\"case\",\n"
    "        \"emit_s\", \"compile_s\", \"share\"}]}\n"
    "Exit status: 0 measured; 1 a plan, render or compile failed; 2 usage error; 4 no NVRTC.\n";

/* Seconds of CPU for one plan + render of k, the median over repeat rounds
 * of enough renders to last a millisecond or more. */
static bool emit_time(const bench_kernel *k, int repeat, double *out) {
  double *t = calloc((size_t)repeat, sizeof *t);
  if (!t) return false;
  bool ok = true;
  for (int r = 0; r < repeat && ok; r++) {
    long n = 0;
    double t0 = bench_cpu(), dt;
    do {
      tcmma_plan plan;
      tcmma_buf buf = {0};
      tcmma_kernel_opts opts = verify_case_kernel_opts(k->c);
      tcmma_render_ctx rc = tcmma_render_ctx_make(&plan, TCMMA_DIALECT_CUDA, NULL, &buf);
      ok = tcmma_plan_call(&k->c->call, &plan, NULL) == TCMMA_OK &&
           tcmma_render_kernel(&rc, &opts, NULL) == TCMMA_OK &&
           !buf.failed;
      tcmma_buf_free(&buf);
      n++;
    } while (ok && (dt = bench_cpu() - t0) < 1e-3);
    t[r] = ok ? dt / (double)n : 0;
  }
  *out = bench_median(t, (size_t)repeat);
  free(t);
  return ok;
}

/* CPU seconds of a cold in-process compile of k, the median of repeat. */
static bool compile_time(const bench_kernel *k, int repeat, double *out) {
  double *t = calloc((size_t)repeat, sizeof *t);
  if (!t) return false;
  bool ok = true;
  setenv("TCMMA_CACHE", "0", 1);
  for (int r = 0; r < repeat && ok; r++) {
    tcmma_cache_clear_memory();
    tcmma_compile_opts o = TCMMA_COMPILE_OPTS_INIT(.target = TCMMA_TARGET_FLOOR, .minimal = true);
    tcmma_program p;
    double t0 = bench_cpu();
    ok = tcmma_compile(k->source, k->len, &o, &p, NULL) == TCMMA_OK && !p.cache_hit;
    t[r] = bench_cpu() - t0;
    tcmma_program_free(&p);
  }
  unsetenv("TCMMA_CACHE");
  *out = bench_median(t, (size_t)repeat);
  free(t);
  return ok;
}

int bench_emit(int argc, char **argv) {
  bench_args a = {.kernels = 24, .repeat = 5};
  int parsed = bench_parse_args("emit", help, argc, argv, &a);
  if (parsed >= 0) return parsed;
  long kernels = a.kernels, repeat = a.repeat;
  bool json = a.json;
  tcmma_error err;
  if (tcmma_nvrtc_load(NULL, &err) != TCMMA_OK)
    return fprintf(stderr, "tcmma bench: %s\n", err.message), CLI_UNAVAILABLE;
  bench_kernel *k;
  char why[256];
  size_t n = bench_kernels((size_t)kernels, &k, why, sizeof why);
  if (!n) return cli_fail("bench", "%s", why);
  double *emit = calloc(n, sizeof *emit), *comp = calloc(n, sizeof *comp);
  double emit_total = 0, comp_total = 0;
  size_t worst = 0;
  int rc = emit && comp ? CLI_OK : cli_fail("bench", "out of memory");
  for (size_t i = 0; rc == CLI_OK && i < n; i++) {
    if (!emit_time(&k[i], (int)repeat, &emit[i]) || !compile_time(&k[i], (int)repeat, &comp[i]))
      rc = cli_fail("bench", "%s: plan, render or compile failed", k[i].c->name);
    emit_total += emit[i], comp_total += comp[i];
    if (emit[i] / comp[i] > emit[worst] / comp[worst]) worst = i;
  }
  if (rc == CLI_OK && json) {
    json_writer w;
    json_init(&w, stdout);
    json_begin_object(&w);
    json_key(&w, "kernels"), json_int(&w, (long long)n);
    json_key(&w, "repeat"), json_int(&w, repeat);
    json_key(&w, "emit_s"), json_double(&w, emit_total);
    json_key(&w, "compile_s"), json_double(&w, comp_total);
    for (int pass = 0; pass < 2; pass++) {
      json_key(&w, pass ? "each" : "worst");
      if (pass) json_begin_array(&w);
      for (size_t i = pass ? 0 : worst; i < (pass ? n : worst + 1); i++) {
        json_begin_object(&w);
        json_key(&w, "case"), json_string(&w, k[i].c->name);
        json_key(&w, "emit_s"), json_double(&w, emit[i]);
        json_key(&w, "compile_s"), json_double(&w, comp[i]);
        json_key(&w, "share"), json_double(&w, emit[i] / comp[i]);
        json_end_object(&w);
      }
      if (pass) json_end_array(&w);
    }
    json_end_object(&w);
    json_finish(&w);
  } else if (rc == CLI_OK) {
    printf("bench emit: %zu kernels, median of %ld, CPU time\n", n, repeat);
    printf("%12s %12s %9s  %s\n", "emit ms", "compile ms", "share", "case");
    for (size_t i = 0; i < n; i++)
      printf("%12.4f %12.2f %8.4f%%  %s\n", emit[i] * 1e3, comp[i] * 1e3,
             100 * emit[i] / comp[i], k[i].c->name);
    printf("worst: %.4f%% of its compile (%s); all: %.4f ms emitting, %.1f ms compiling\n",
           100 * emit[worst] / comp[worst], k[worst].c->name, emit_total * 1e3,
           comp_total * 1e3);
  }
  free(emit), free(comp);
  bench_kernels_free(k, n);
  return rc;
}
