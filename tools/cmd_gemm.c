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
#include "tools/cmd_gemm_epilogue.h"

static const char *const help =
    "usage: tcmma gemm --m M --n N --k K --d SPEC --a SPEC --b SPEC [--tile BMxBNxBK]\n"
    "                  [--warps WMxWN] [--stages S] [--alpha X --beta Y] [--cc N]\n"
    "                  [--arm MARKER] [--unpredicated] [--registers N] [--name NAME]\n"
    "                  [--epilogue LIST [--epilogue-hook BODY|--epilogue-hook-file F]]\n"
    "                  [--dialect cuda|host] [--kernel|--json]\n\n"
    "Plans D = alpha*A*B + beta*C over whole global matrices (C stored like D;\n"
    "the kernel may get C = D) and prints the plan (threads, grid, dynamic shared\n"
    "bytes, registers expected, per-k-tile census), with --kernel the kernel,\n"
    "with --json the plan as JSON (--dialect host: the kernel's text for the host\n"
    "simulator, include/tcmma/sim.h). SPEC = PREC[,t][,ld=N] (t: stored as the\n"
    "transpose of its role; ld: leading dimension in elements, 0 = dense).\n"
    "Defaults: --tile 128x128x32 --warps 2x2 --stages 3. --alpha/--beta (finite\n"
    "decimal numbers a float holds, default 1 and 0) are the values the plan\n"
    "shows for the launch: the kernel takes them as float arguments, so they\n"
    "never change its text. --epilogue: ops applied in order after alpha and\n"
    "beta, NAME[:ARG] comma-separated: bias:row|col, relu, gelu-tanh, gelu-erf,\n"
    "silu, clamp:LO:HI, residual, scale:tensor|row|col, amax, cvt:PREC (last;\n"
    "f32, f16, bf16, e4m3, e5m2, saturating), hook (the body of float f(float x,\n"
    "int row, int col), from --epilogue-hook or --epilogue-hook-file).\n"
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

/* A finite decimal number for --alpha/--beta that a float (the kernel's
 * argument) holds; false after a usage message. */
static bool parse_scalar(const char *cmd, const char *opt, const char *text, double *out) {
  (void)cmd;
  return cli_finite_float(opt, text, out);
}

static void json_plan(const tcmma_gemm_plan *p, const char *text, double alpha, double beta,
                      const cli_epilogue *epi) {
  json_writer w;
  json_init(&w, stdout);
  json_begin_object(&w);
  json_key(&w, "accepted"), json_bool(&w, p->accepted);
  json_key(&w, "reason"), json_string(&w, tcmma_gemm_decline_name(p->reason));
  json_key(&w, "message"), json_string(&w, p->message);
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
  }
  json_key(&w, "text"), json_string(&w, text);
  json_end_object(&w);
  json_finish(&w);
}

static void text_plan(const tcmma_gemm_plan *p, double alpha, double beta) {
  const tcmma_gemm_call *c = &p->call;
  printf("gemm %dx%dx%d: %s, block %dx%dx%d, warps %dx%d (warp tile %dx%d), %d stages%s\n",
         c->m, c->n, c->k, tcmma_arm_marker(p->arm), c->block_m, c->block_n, c->block_k,
         c->warps_m, c->warps_n, p->warp_m, p->warp_n, c->stages,
         p->predicated ? ", predicated edges" : "");
  printf("launch: grid %ux%ux%u, %d threads, %zu bytes of dynamic shared memory (at most %zu), "
         "alpha %g, beta %g\n", p->grid[0], p->grid[1], p->grid[2], p->threads, p->shared_bytes,
         p->shared_max, alpha, beta);
  printf("registers per thread expected: %d; stages swizzled a %s, b %s\n", p->registers,
         tcmma_swizzle_name(p->a_swizzle), tcmma_swizzle_name(p->b_swizzle));
  printf("per k tile: %d mma.sync and %d ldmatrix per warp, %d 16-byte cp.async per thread "
         "(%d k tiles)\n", p->mma_per_k_tile, p->ldmatrix_per_k_tile, p->cp_async_per_k_tile,
         p->k_tiles);
}

/* What the command line asks of tcmma gemm. */
typedef struct {
  tcmma_gemm_call c;
  bool kernel, json, have[6], dialect_given;
  double alpha, beta;
  tcmma_dialect dialect;
  cli_epilogue epi;
} gemm_args;

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
  if (strcmp(a, "--tile") == 0) {
    int t[3];
    if (!parse_dims(cmd, a, v, 3, t)) return CLI_USAGE;
    c->block_m = t[0], c->block_n = t[1], c->block_k = t[2];
  } else if (strcmp(a, "--warps") == 0) {
    int t[2];
    if (!parse_dims(cmd, a, v, 2, t)) return CLI_USAGE;
    c->warps_m = t[0], c->warps_n = t[1];
  } else if (strcmp(a, "--stages") == 0) {
    if (!cli_int(cmd, a, v, 1, TCMMA_GEMM_STAGES_MAX, &x)) return CLI_USAGE;
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
  *g = (gemm_args){.c = tcmma_gemm_call_default(), .alpha = 1, .beta = 0,
                   .dialect = TCMMA_DIALECT_CUDA};
  g->c.m = g->c.n = g->c.k = 0;
  for (int i = 1; i < argc; i++) {
    const char *a = argv[i], *v;
    if (cli_is_help(a)) return fputs(help, stdout), CLI_OK;
    if (strcmp(a, "--kernel") == 0) { g->kernel = true; continue; }
    if (strcmp(a, "--json") == 0) { g->json = true; continue; }
    if (strcmp(a, "--unpredicated") == 0) { g->c.unpredicated = true; continue; }
    if (!(v = cli_value(cmd, argc, argv, &i))) return CLI_USAGE;
    int rc = take_value(a, v, g);
    if (rc) return rc;
  }
  static const char *const need[6] = {"--m", "--n", "--k", "--d", "--a", "--b"};
  for (int i = 0; i < 6; i++)
    if (!g->have[i]) return cli_usage(cmd, "%s is required", need[i]);
  if (g->kernel && g->json) return cli_usage(cmd, "--kernel and --json exclude each other");
  if (!cli_epilogue_parse(&g->epi)) return CLI_USAGE;
  if (g->dialect_given && !g->kernel && !g->json)
    return cli_usage(cmd, "--dialect chooses the kernel's text: it needs --kernel or --json");
  return -1;
}

/* Plans, renders and prints what g asks. */
static int run(const gemm_args *pg) {
  const char *cmd = "gemm";
  const gemm_args g = *pg;
  tcmma_gemm_call c = g.c;
  bool kernel = g.kernel, json = g.json;
  double alpha = g.alpha, beta = g.beta;
  tcmma_dialect dialect = g.dialect;
  tcmma_gemm_plan plan;
  tcmma_error err = {0};
  tcmma_status st = tcmma_gemm_plan_epilogue(&c, g.epi.ops, g.epi.count, &plan, &err);
  if (st != TCMMA_OK && st != TCMMA_DECLINED) return cli_fail(cmd, "%s", err.message);
  tcmma_buf text = {0};
  tcmma_render_ctx ctx = tcmma_render_ctx_make(NULL, dialect, NULL, &text);
  if (plan.accepted && (kernel || json) &&
      tcmma_render_gemm_epilogue(&ctx, &plan, g.epi.ops, g.epi.count, &err) != TCMMA_OK) {
    tcmma_buf_free(&text);
    return cli_fail(cmd, "%s", err.message);
  }
  if (json) json_plan(&plan, plan.accepted ? tcmma_buf_str(&text) : NULL, alpha, beta, &g.epi);
  else if (plan.accepted && kernel) fputs(tcmma_buf_str(&text), stdout);
  else if (plan.accepted) text_plan(&plan, alpha, beta);
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
