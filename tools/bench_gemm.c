/* tcmma bench gemm: TFLOP/s of the emitted GEMM (tcmma_render_gemm) on device 0
 * for bf16 and f16 (f32 accumulate) and fp8 where the device runs it, at
 * a few block-tile configurations per size, the best per size and type,
 * beside torch.matmul (cuBLAS) on the same device in the same run when
 * torch is importable. Each configuration's output is spot-checked against
 * a host reference before its time counts.
 * usage: tcmma bench gemm [--json] [--sizes N[,N...]] [--repeats R]   (GPU only) */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "bench.h"
#include "cli.h"
#include "tcmma/tcmma.h"

typedef bench_gemm_dtype dtype;
typedef bench_gemm_config config;

const bench_gemm_dtype bench_gemm_dtypes[] = {
#define BENCH_GEMM_DTYPE(name, d, a, b, bits, cc) \
  {name, TCMMA_PREC_##d, TCMMA_PREC_##a, TCMMA_PREC_##b, bits, cc},
#define BENCH_GEMM_CONFIG(bm, bn, bk, wm, wn, stages, bt, bits, kind)
#include "bench_gemm.def"
#undef BENCH_GEMM_DTYPE
#undef BENCH_GEMM_CONFIG
};

const bench_gemm_config bench_gemm_configs[] = {
#define BENCH_GEMM_DTYPE(name, d, a, b, bits, cc)
#define BENCH_GEMM_CONFIG(bm, bn, bk, wm, wn, stages, bt, bits, kind) \
  {bm, bn, bk, wm, wn, stages, bt, bits, TCMMA_GEMM_KERNEL_##kind},
#include "bench_gemm.def"
#undef BENCH_GEMM_DTYPE
#undef BENCH_GEMM_CONFIG
};

enum {
  N_DTYPES = sizeof bench_gemm_dtypes / sizeof bench_gemm_dtypes[0],
  N_CONFIGS = sizeof bench_gemm_configs / sizeof bench_gemm_configs[0]
};
const int bench_gemm_n_dtypes = N_DTYPES, bench_gemm_n_configs = N_CONFIGS;
#define dtypes bench_gemm_dtypes
#define configs bench_gemm_configs

void bench_gemm_config_json(json_writer *w, const bench_gemm_config *c) {
  json_key(w, "tile"), json_tile(w, c->bm, c->bn, c->bk);
  json_key(w, "warps"), json_begin_array(w), json_int(w, c->wm), json_int(w, c->wn),
      json_end_array(w);
  json_key(w, "stages"), json_int(w, c->stages);
  json_key(w, "b_transposed"), json_bool(w, c->bt);
  json_key(w, "kernel"), json_string(w, tcmma_gemm_kernel_name(c->kernel));
}

tcmma_gemm_opts bench_gemm_opts(const bench_gemm_config *c) {
  tcmma_gemm_opts o = tcmma_gemm_opts_default();
  o.kernel = c->kernel;
  return o;
}

tcmma_gemm_call bench_gemm_call(const bench_gemm_dtype *t, const bench_gemm_config *c, int m,
                                int n, int k, int cc) {
  tcmma_gemm_call call = tcmma_gemm_call_default();
  call.m = m, call.n = n, call.k = k;
  call.d.prec = t->d, call.a.prec = t->a, call.b.prec = t->b;
  call.b.transposed = c->bt;
  call.block_m = c->bm, call.block_n = c->bn, call.block_k = c->bk;
  call.warps_m = c->wm, call.warps_n = c->wn, call.stages = c->stages;
  call.cc = cc;
  return call;
}

void bench_gemm_config_text(const bench_gemm_config *c, char *buf, size_t cap) {
  snprintf(buf, cap, "%dx%dx%d w%dx%d s%d%s%s%s", c->bm, c->bn, c->bk, c->wm, c->wn, c->stages,
           c->bt ? " b,t" : "", c->kernel == TCMMA_GEMM_KERNEL_MMA_SYNC ? "" : " ",
           c->kernel == TCMMA_GEMM_KERNEL_MMA_SYNC ? "" : tcmma_gemm_kernel_name(c->kernel));
}

typedef struct {
  int size;
  const dtype *t;
  const config *c;
  bool ran, correct;
  char note[1100];
  double ms, tflops;
  int registers, spills;
} result;

static unsigned long long rng = 88172645463325252ull;
static double next_unit(void) {
  rng ^= rng << 13, rng ^= rng >> 7, rng ^= rng << 17;
  return (double)(rng >> 11) / 9007199254740992.0;
}

/* Small values in storage p at byte pointer out (n elements), as a float
 * copy too for the reference. Integers in [-2, 2] keep every format exact. */
static void fill(tcmma_prec p, unsigned char *out, float *vals, size_t n) {
  int eb = tcmma_prec_bytes(p);
  for (size_t i = 0; i < n; i++) {
    int v = (int)(next_unit() * 5) - 2;
    vals[i] = (float)v;
    unsigned bits;
    if (p == TCMMA_PREC_BF16) bits = v == 0 ? 0 : (unsigned)((v < 0) << 15) | (unsigned)(127 + (abs(v) == 2)) << 7;
    else if (p == TCMMA_PREC_F16) bits = v == 0 ? 0 : (unsigned)((v < 0) << 15) | (unsigned)(15 + (abs(v) == 2)) << 10;
    else bits = v == 0 ? 0 : (unsigned)((v < 0) << 7) | (unsigned)(7 + (abs(v) == 2)) << 3; /* e4m3 */
    memcpy(out + i * (size_t)eb, &bits, (size_t)eb); /* little-endian */
  }
}

static double get(tcmma_prec p, const unsigned char *at) {
  if (p == TCMMA_PREC_F32) {
    float f;
    memcpy(&f, at, 4);
    return f;
  }
  unsigned bits = at[0] | (unsigned)at[1] << 8;
  int man = p == TCMMA_PREC_BF16 ? 7 : 10, bias = p == TCMMA_PREC_BF16 ? 127 : 15;
  int e = (int)(bits >> man) & (p == TCMMA_PREC_BF16 ? 0xff : 0x1f);
  double m = (double)(bits & ((1u << man) - 1));
  double v = e == 0 ? ldexp(m, 1 - bias - man) : ldexp(m + (1 << man), e - bias - man);
  return bits >> 15 ? -v : v;
}

/* Plans (with the configuration's kernel kind), renders, compiles and loads
 * r's kernel for an S x S x S problem into *mod and *fn (*p its plan);
 * TCMMA_DECLINED with r->note set when the plan declines. */
static tcmma_status build(result *r, const tcmma_device_info *dev, tcmma_gemm_plan *p,
                          tcmma_module **mod, tcmma_kernel *fn, tcmma_error *err) {
  int S = r->size;
  tcmma_gemm_call call = bench_gemm_call(r->t, r->c, S, S, S, dev->cc);
  tcmma_gemm_opts o = bench_gemm_opts(r->c);
  if (tcmma_gemm_plan_opts(&call, &o, p, NULL, err) != TCMMA_OK) {
    snprintf(r->note, sizeof r->note, "declined: %s", p->message);
    return TCMMA_DECLINED;
  }
  tcmma_buf src = {0};
  tcmma_render_ctx rc = tcmma_render_ctx_make(NULL, TCMMA_DIALECT_CUDA, NULL, &src);
  tcmma_program prog = {0};
  tcmma_compile_opts opts = TCMMA_COMPILE_OPTS_INIT(.name = "bench-gemm.cu",
                                                    .target = TCMMA_TARGET_NATIVE, .cc = dev->cc,
                                                    .sass = true);
  tcmma_status st = tcmma_render_gemm_opts(&rc, p, &o, err);
  if (st == TCMMA_OK) st = tcmma_compile(src.data, src.len, &opts, &prog, err);
  if (st == TCMMA_OK) {
    r->registers = prog.registers, r->spills = prog.spill_store_bytes + prog.spill_load_bytes;
    st = tcmma_module_load(dev->ordinal, prog.cubin, prog.cubin_len, mod, err);
  }
  if (st == TCMMA_OK) st = tcmma_module_kernel(*mod, "tcmma_gemm", fn, err);
  if (st == TCMMA_OK) st = tcmma_kernel_max_dynamic_shared(fn, (unsigned)p->shared_bytes, err);
  tcmma_program_free(&prog);
  tcmma_buf_free(&src);
  return st;
}

/* 64 elements of d against the host reference (exact integers); false
 * with r->note naming the first wrong one. */
static bool spot_check(result *r, const tcmma_gemm_call *call, const tcmma_devmem *d,
                       const float *av, const float *bv, tcmma_error *err) {
  int S = r->size;
  size_t ed = (size_t)tcmma_prec_bytes(call->d.prec);
  unsigned char *row = malloc((size_t)S * ed);
  bool ok = row != NULL;
  for (int s = 0; row && s < 64 && ok; s++) {
    int i = (int)(next_unit() * S), j = (int)(next_unit() * S);
    if (tcmma_mem_to_host(row, d, (size_t)i * S * ed, (size_t)S * ed, err) != TCMMA_OK) {
      ok = false;
      snprintf(r->note, sizeof r->note, "%s", err->message);
      break;
    }
    double ref = 0;
    for (int k = 0; k < S; k++)
      ref += (double)av[(size_t)i * S + k] * bv[call->b.transposed ? (size_t)j * S + k : (size_t)k * S + j];
    double got = get(call->d.prec, row + (size_t)j * ed), tol = call->d.prec == TCMMA_PREC_F32 ? 0 : fabs(ref) / 128;
    if (fabs(got - ref) > tol) {
      ok = false;
      snprintf(r->note, sizeof r->note, "wrong: d[%d][%d] = %g, expected %g", i, j, got, ref);
    }
  }
  free(row);
  return ok;
}

/* A wgmma or tcgen05 plan's tensor maps of a and b on the device, encoded by the
 * driver (the kernel's last two arguments). */
static tcmma_status encode_maps(const tcmma_gemm_plan *p, const tcmma_gemm_opts *o,
                                const tcmma_devmem mem[3],
                                unsigned char enc[2][TCMMA_CU_TENSOR_MAP_BYTES], tcmma_error *err) {
  tcmma_tensor_map maps[2];
  tcmma_status st = tcmma_gemm_tensor_maps(p, o, mem[1].ptr, mem[2].ptr, NULL, maps, err);
  for (int k = 0; k < 2 && st == TCMMA_OK; k++) st = tcmma_tensor_map_encode(&maps[k], enc[k], err);
  return st;
}

/* Plans, compiles, loads, checks and times one configuration. */
static void run_one(result *r, const tcmma_device_info *dev, tcmma_devmem mem[3], const float *av,
                    const float *bv, int repeats) {
  int S = r->size;
  tcmma_gemm_plan p;
  tcmma_module *mod = NULL;
  tcmma_kernel fn;
  tcmma_error err = {0};
  if (tcmma_prec_is_scaled(r->t->a)) { /* its kernel takes sfa and sfb besides */
    snprintf(r->note, sizeof r->note, "not timed: block-scaled (the bench makes no scale "
             "tensors; tcmma verify --case gemm/mma-mx --executor gpu runs such kernels)");
    return;
  }
  tcmma_status st = build(r, dev, &p, &mod, &fn, &err);
  if (st == TCMMA_DECLINED) return;
  float alpha = 1, beta = 0;
  _Alignas(TCMMA_CU_TENSOR_MAP_ALIGN) unsigned char enc[2][TCMMA_CU_TENSOR_MAP_BYTES];
  void *args[8] = {&mem[0].ptr, &mem[1].ptr, &mem[2].ptr, &mem[0].ptr, &alpha, &beta, enc[0], enc[1]};
  tcmma_gemm_opts o = bench_gemm_opts(r->c);
  if (st == TCMMA_OK && r->c->kernel != TCMMA_GEMM_KERNEL_MMA_SYNC) /* wgmma, tcgen05 */
    st = encode_maps(&p, &o, mem, enc, &err);
  unsigned block[3] = {(unsigned)p.threads, 1, 1};
  if (st == TCMMA_OK) st = tcmma_launch(&fn, p.grid, block, (unsigned)p.shared_bytes, args, &err);
  r->correct = st == TCMMA_OK && spot_check(r, &p.call, &mem[0], av, bv, &err);
  if (st == TCMMA_OK && r->correct) {
    double ms;
    st = tcmma_launch_timed(&fn, p.grid, block, (unsigned)p.shared_bytes, args, 2, &ms, &err);
    if (st == TCMMA_OK)
      st = tcmma_launch_timed(&fn, p.grid, block, (unsigned)p.shared_bytes, args, repeats, &ms, &err);
    if (st == TCMMA_OK) {
      r->ran = true, r->ms = ms;
      r->tflops = 2.0 * S * (double)S * S / (ms * 1e-3) / 1e12;
    }
  }
  if (st != TCMMA_OK) snprintf(r->note, sizeof r->note, "%s", err.message);
  tcmma_module_unload(mod);
}

/* torch.matmul's TFLOP/s for dtype name at size, from one python run for
 * every (dtype, size); -1 where torch is not importable or failed. */
static void torch_times(const int *sizes, int n_sizes, double torch[][N_DTYPES], char *why,
                        size_t cap) {
  for (int s = 0; s < n_sizes; s++)
    for (int t = 0; t < N_DTYPES; t++) torch[s][t] = -1;
  char path[] = "/tmp/tcmma-bench-torch-XXXXXX.py";
  int fd = mkstemps(path, 3);
  FILE *f = fd >= 0 ? fdopen(fd, "w") : NULL;
  if (!f) return (void)snprintf(why, cap, "no temporary file for the torch script");
  fputs("import sys\n"
        "try:\n  import torch\nexcept Exception as e:\n  print('error', repr(e)); sys.exit(0)\n"
        "if not torch.cuda.is_available():\n  print('error no CUDA device for torch'); sys.exit(0)\n"
        "ty = {'bf16': torch.bfloat16, 'f16': torch.float16}\n"
        "for n in map(int, sys.argv[1:]):\n"
        "  for name, t in ty.items():\n"
        "    a = torch.randn(n, n, device='cuda', dtype=t); b = torch.randn(n, n, device='cuda', dtype=t)\n"
        "    for _ in range(3): torch.matmul(a, b)\n"
        "    torch.cuda.synchronize()\n"
        "    s = torch.cuda.Event(enable_timing=True); e = torch.cuda.Event(enable_timing=True)\n"
        "    r = 10 if n <= 4096 else 5\n"
        "    s.record()\n"
        "    for _ in range(r): torch.matmul(a, b)\n"
        "    e.record(); torch.cuda.synchronize()\n"
        "    ms = s.elapsed_time(e) / r\n"
        "    print(name, n, 2.0 * n ** 3 / (ms * 1e-3) / 1e12)\n", f);
  fclose(f);
  char cmd[512];
  int used = snprintf(cmd, sizeof cmd, "python3 %s", path);
  for (int s = 0; s < n_sizes; s++) used += snprintf(cmd + used, sizeof cmd - (size_t)used, " %d", sizes[s]);
  snprintf(cmd + used, sizeof cmd - (size_t)used, " 2>&1");
  FILE *p = popen(cmd, "r");
  char line[512];
  snprintf(why, cap, "python3 did not run");
  while (p && fgets(line, sizeof line, p)) {
    char name[16];
    int n;
    double tf;
    if (strncmp(line, "error", 5) == 0) {
      line[strcspn(line, "\n")] = '\0';
      snprintf(why, cap, "torch: %.500s", line + 6);
    } else if (sscanf(line, "%15s %d %lf", name, &n, &tf) == 3) {
      why[0] = '\0';
      for (int s = 0; s < n_sizes; s++)
        for (int t = 0; t < N_DTYPES; t++)
          if (sizes[s] == n && strcmp(dtypes[t].name, name) == 0) torch[s][t] = tf;
    }
  }
  if (p) pclose(p);
  unlink(path);
}

static const char gemm_usage[] =
    "usage: tcmma bench gemm [--json] [--sizes N[,N...]] [--repeats R]\n"
    "       tcmma bench gemm --static [OPTIONS]   (no GPU: the SASS main loop; --static --help)\n\n"
    "TFLOP/s of the emitted GEMM on device 0 (bf16, f16, fp8 where the device runs it),\n"
    "best block-tile configuration per size and type, beside torch.matmul when torch\n"
    "imports. Sizes: multiples of 128 in 128..16384 (default 4096,8192); repeats: timed\n"
    "launches per configuration, 1..1000 (default 20 up to 4096, else 5). Needs a GPU\n"
    "(exit 4 without one).\n";

/* What the command line asks of bench gemm. */
typedef struct {
  bool json;
  int sizes[8], n_sizes, repeats; /* repeats 0: by size */
} gemm_opts;

/* --sizes' list, rejected whole on an empty piece (a typo, not a size to
 * skip), more than 8 sizes, or a size off 128..16384 in steps of 128. */
static bool parse_sizes(int argc, char **argv, int *i, gemm_opts *o) {
  const char *list = cli_value("bench gemm", argc, argv, i);
  if (!list) return false;
  size_t len = strlen(list);
  if (!len || list[0] == ',' || list[len - 1] == ',' || strstr(list, ",,"))
    return fprintf(stderr, "tcmma bench gemm: --sizes '%s': expected N[,N...] with no empty "
                           "piece\n", list), false;
  o->n_sizes = 0;
  for (char *s = strtok(argv[*i], ","); s; s = strtok(NULL, ",")) {
    long v;
    if (o->n_sizes == 8)
      return fprintf(stderr, "tcmma bench gemm: --sizes: at most 8 sizes\n"), false;
    if (!cli_int("bench gemm", "--sizes", s, 128, 16384, &v)) return false;
    if (v % 128)
      return fprintf(stderr, "tcmma bench gemm: --sizes: %ld: expected a multiple of 128\n", v),
             false;
    o->sizes[o->n_sizes++] = (int)v;
  }
  return true;
}

/* The options, or false with *rc the exit status (help: CLI_OK). */
static bool parse_gemm_opts(int argc, char **argv, gemm_opts *o, int *rc) {
  *o = (gemm_opts){.sizes = {4096, 8192}, .n_sizes = 2};
  *rc = CLI_USAGE;
  for (int i = 1; i < argc; i++) {
    long v;
    if (cli_is_help(argv[i])) return fputs(gemm_usage, stdout), *rc = CLI_OK, false;
    if (strcmp(argv[i], "--json") == 0) o->json = true;
    else if (strcmp(argv[i], "--sizes") == 0) {
      if (!parse_sizes(argc, argv, &i, o)) return false;
    } else if (strcmp(argv[i], "--repeats") == 0) {
      const char *r = cli_value("bench gemm", argc, argv, &i);
      if (!r || !cli_int("bench gemm", "--repeats", r, 1, 1000, &v)) return false;
      o->repeats = (int)v;
    } else {
      return fprintf(stderr, "tcmma bench gemm: unknown option '%s'\n%s", argv[i], gemm_usage),
             false;
    }
  }
  return true;
}

/* c as the tables print it, into buf (64 bytes). */
static const char *cfg_text(const config *c, char buf[64]) {
  bench_gemm_config_text(c, buf, 64);
  return buf;
}

/* Every configuration of every type at size S, appended to res (progress
 * on stderr unless json); one set of inputs per type. False: out of memory. */
static bool measure_size(const tcmma_device_info *dev, int S, const gemm_opts *o, result *res,
                         size_t *nres) {
  size_t elems = (size_t)S * S;
  float *av = malloc(elems * sizeof *av), *bv = malloc(elems * sizeof *bv);
  unsigned char *ab = malloc(elems * 2), *bb = malloc(elems * 2);
  bool ok = av && bv && ab && bb;
  for (int t = 0; ok && t < N_DTYPES; t++) {
    const dtype *ty = &dtypes[t];
    fill(ty->a, ab, av, elems);
    fill(ty->b, bb, bv, elems);
    tcmma_devmem mem[3] = {{0}};
    tcmma_error err = {0};
    tcmma_status st = tcmma_mem_alloc(dev->ordinal, elems * 4, &mem[0], &err);
    if (st == TCMMA_OK) st = tcmma_mem_alloc(dev->ordinal, elems * 2, &mem[1], &err);
    if (st == TCMMA_OK) st = tcmma_mem_alloc(dev->ordinal, elems * 2, &mem[2], &err);
    if (st == TCMMA_OK)
      st = tcmma_mem_to_device(&mem[1], 0, ab, elems * (size_t)tcmma_prec_bytes(ty->a), &err);
    if (st == TCMMA_OK)
      st = tcmma_mem_to_device(&mem[2], 0, bb, elems * (size_t)tcmma_prec_bytes(ty->b), &err);
    for (int c = 0; c < N_CONFIGS; c++) {
      if (configs[c].bits != ty->bits) continue;
      result *r = &res[(*nres)++];
      char cfg[64];
      r->size = S, r->t = ty, r->c = &configs[c];
      if (st != TCMMA_OK) snprintf(r->note, sizeof r->note, "%s", err.message);
      else run_one(r, dev, mem, av, bv, o->repeats ? o->repeats : S <= 4096 ? 20 : 5);
      if (!o->json)
        fprintf(stderr, "  %5d %-5s %s: %s%.1f TFLOP/s %s\n", S, ty->name, cfg_text(r->c, cfg),
                r->ran ? "" : "(not run) ", r->tflops, r->note);
    }
    for (int i = 0; i < 3; i++) tcmma_mem_free(&mem[i]);
  }
  free(av), free(bv), free(ab), free(bb);
  return ok;
}

/* The JSON head and every result; leaves the "best" array open. */
static void json_results(json_writer *w, const tcmma_device_info *dev, const char *torch_why,
                         const result *res, size_t nres) {
  json_begin_object(w);
  json_key(w, "device"), json_string(w, dev->name);
  json_key(w, "cc"), json_int(w, dev->cc);
  json_key(w, "torch"), json_string(w, torch_why[0] ? torch_why : "ok");
  json_key(w, "results"), json_begin_array(w);
  for (size_t i = 0; i < nres; i++) {
    const result *r = &res[i];
    json_begin_object(w);
    json_key(w, "size"), json_int(w, r->size);
    json_key(w, "dtype"), json_string(w, r->t->name);
    bench_gemm_config_json(w, r->c);
    json_key(w, "ran"), json_bool(w, r->ran);
    json_key(w, "ms"), json_double(w, r->ms);
    json_key(w, "tflops"), json_double(w, r->tflops);
    json_key(w, "registers"), json_int(w, r->registers);
    json_key(w, "spill_bytes"), json_int(w, r->spills);
    json_key(w, "note"), json_string(w, r->note);
    json_end_object(w);
  }
  json_end_array(w);
  json_key(w, "best"), json_begin_array(w);
}

/* The fastest configuration that ran at size and type t; NULL: none ran. */
static const result *best_of(const result *res, size_t nres, int size, const dtype *t) {
  const result *best = NULL;
  for (size_t i = 0; i < nres; i++)
    if (res[i].size == size && res[i].t == t && res[i].ran &&
        (!best || res[i].tflops > best->tflops))
      best = &res[i];
  return best;
}

/* One row of the best table (json: one object), beside torch's tt. */
static void print_best(json_writer *w, bool json, int size, const dtype *t, const result *best,
                       double tt) {
  char cfg[64] = "-";
  if (best) bench_gemm_config_text(best->c, cfg, sizeof cfg);
  double ratio = best && tt > 0 ? best->tflops / tt : -1;
  if (json) {
    json_begin_object(w);
    json_key(w, "size"), json_int(w, size);
    json_key(w, "dtype"), json_string(w, t->name);
    json_key(w, "config"), json_string(w, best ? cfg : NULL);
    json_key(w, "tflops"), best ? json_double(w, best->tflops) : json_null(w);
    json_key(w, "torch_tflops"), tt > 0 ? json_double(w, tt) : json_null(w);
    json_key(w, "ratio"), ratio > 0 ? json_double(w, ratio) : json_null(w);
    json_end_object(w);
  } else {
    char tts[16] = "-", rs[16] = "-";
    if (tt > 0) snprintf(tts, sizeof tts, "%.1f", tt);
    if (ratio > 0) snprintf(rs, sizeof rs, "%.2f", ratio);
    printf("%6d %-5s %-22s %9.1f %9s %9s\n", size, t->name, cfg, best ? best->tflops : 0.0, tts,
           rs);
  }
}

int bench_gemm(int argc, char **argv) {
  for (int i = 1; i < argc; i++)
    if (strcmp(argv[i], "--static") == 0) {
      /* the rest of the command line, without --static (argv itself is
       * the caller's: it reads it again for --json on a failure) */
      char **rest = malloc((size_t)argc * sizeof *rest);
      if (!rest) return fprintf(stderr, "tcmma bench gemm: out of memory\n"), CLI_FAIL;
      int n = 0;
      for (int j = 0; j < argc; j++)
        if (j != i) rest[n++] = argv[j];
      rest[n] = NULL;
      int rc = bench_gemm_static(n, rest);
      free(rest);
      return rc;
    }
  gemm_opts o;
  int rc;
  if (!parse_gemm_opts(argc, argv, &o, &rc)) return rc;
  tcmma_device_info dev;
  tcmma_error err = {0};
  if (tcmma_device_get(0, &dev, &err) != TCMMA_OK)
    return fprintf(stderr, "tcmma bench gemm: needs a GPU: %s\n", err.message), CLI_UNAVAILABLE;
  result *res = calloc((size_t)o.n_sizes * N_DTYPES * N_CONFIGS, sizeof *res);
  if (!res) return fprintf(stderr, "tcmma bench gemm: out of memory\n"), CLI_FAIL;
  size_t nres = 0;
  for (int s = 0; s < o.n_sizes; s++)
    if (!measure_size(&dev, o.sizes[s], &o, res, &nres))
      return free(res), fprintf(stderr, "tcmma bench gemm: out of memory\n"), CLI_FAIL;
  double torch[8][N_DTYPES];
  char torch_why[600] = "";
  torch_times(o.sizes, o.n_sizes, torch, torch_why, sizeof torch_why);
  json_writer w;
  if (o.json) {
    json_init(&w, stdout);
    json_results(&w, &dev, torch_why, res, nres);
  } else {
    printf("device 0: %s (cc %d); torch.matmul: %s\n", dev.name, dev.cc,
           torch_why[0] ? torch_why : "measured in this run");
    printf("%6s %-5s %-22s %9s %9s %9s\n", "size", "type", "best config", "TFLOP/s", "torch",
           "ratio");
  }
  for (int s = 0; s < o.n_sizes; s++)
    for (int t = 0; t < N_DTYPES; t++)
      print_best(&w, o.json, o.sizes[s], &dtypes[t],
                 best_of(res, nres, o.sizes[s], &dtypes[t]), torch[s][t]);
  if (o.json) {
    json_end_array(&w);
    json_end_object(&w);
    json_finish(&w);
  }
  free(res);
  return 0;
}
