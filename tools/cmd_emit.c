/* tcmma emit: plan a tile-MMA and print its rendering (block, fragment scope
 * or a whole kernel), or why it was declined. */
#include <stdlib.h>
#include <string.h>
#include "cli.h"
#include "cli_parse.h"
#include "tcmma/tcmma.h"

static const char help[] =
    "usage: tcmma emit --m M --n N --k K --d SPEC --a SPEC --b SPEC\n"
    "                  [--scope statement|fragment] [--outer R] [--cc N]\n"
    "                  [--fp16 wide|narrow] [--tf32] [--prefer ptx|wmma] [--saturate]\n"
    "                  [--arm MARKER]\n"
    "                  [--init load|zero|scale] [--alpha X --beta Y] [--registers N]\n"
    "                  [--lane EXPR] [--dialect cuda|host] [--pieces] [--kernel] [--json]\n\n"
    "Plans D[M x N] += A[M x K] B[K x N] and prints the rendering: a statement block\n"
    "(pointers d, a, b; block scales sa, sb), or with --scope fragment the\n"
    "open/update/close of fragment 'frag'; --pieces prints the pieces instead\n"
    "(fragment declarations with two buffers, accumulator init, loads of k step 0,\n"
    "mma, store); --kernel prints a complete one-warp kernel tcmma_kernel(d, a, b\n"
    "[, sa, sb]) that stages shared operands and runs R (--outer) update steps (with\n"
    "--pieces: from the pieces, fragments double-buffered across k steps). --dialect\n"
    "host renders the C text the host warp simulator runs\n"
    "(include/tcmma/sim.h).\n\n"
    "SPEC = PREC[,t][,ld=N][,global|shared|thread][,plain|swizzled|swizzle=32|64|128]\n"
    "       [,at=ROW0:COL0][,sld=N]\n"
    "  PREC: %s;\n"
    "  t: stored as the transpose of its role;\n"
    "  ld: the parent's leading dimension in elements (default dense); swizzle: the\n"
    "  XOR of 16-byte units over spans of 32, 64 or 128 bytes (swizzled = 128);\n"
    "  at: the sub-tile's origin (stored row, column) in its parent tile.\n"    "  sld: a block-scaled operand's scales per row of a (column of b) in their\n"
    "  parent: one ue8m0 byte per 32 k at sa[i * sld + k / 32] (default dense).\n"
    "--init: load (D += A B, default), zero (D = A B) or scale (D = alpha A B + beta D,\n"
    "  with --alpha and --beta as float C expressions; int for an s32 accumulator,\n"
    "  in wrapping 32-bit arithmetic).\n"
    "--saturate: s32 accumulation clamps on overflow (.satfinite) instead of wrapping.\n"
    "--registers N: register budget per lane for the accumulator and one k step of\n"
    "  fragments (default 192, at most 255).\n"
    "--cc N: device compute capability (major*10+minor; default 0: any device).\n"
    "--arm MARKER: use this arm (one resolution can choose for the precisions).\n"
    "--json: {\"accepted\", \"arm\", \"reason\", \"message\", \"ldmatrix\", \"census\", \"text\"}.\n\n"
    "Exit status: 0 accepted, 3 declined (the reason on stderr), 2 usage error.\n";


typedef struct {
  tcmma_call call;
  long outer;
  bool kernel, json, pieces;
  bool outer_given; /* --outer: the kernel's steps, nothing without --kernel */
  tcmma_dialect dialect;
} emit_args;

/* The options that take a value, in the order take_value numbers them. */
static const char *const valued[] = {"--m", "--n", "--k", "--d", "--a", "--b", "--scope",
                                     "--outer", "--cc", "--fp16", "--prefer", "--lane",
                                     "--dialect", "--arm", "--init", "--alpha", "--beta",
                                     "--registers", NULL};

/* Takes value v of option o (valued[which]) into e, marking the required
 * ones in have; 0, or the usage error's exit status. */
static int take_value(int which, const char *o, const char *v, emit_args *e, bool *have) {
  const char *cmd = "emit";
  tcmma_error err = {0};
  tcmma_status st = TCMMA_OK;
  long n;
  switch (which) {
  case 0: case 1: case 2:
    if (!cli_int(cmd, o, v, 1, 1L << 30, &n)) return CLI_USAGE;
    *(which == 0 ? &e->call.m : which == 1 ? &e->call.n : &e->call.k) = (int)n;
    have[which] = true;
    break;
  case 3: st = cli_parse_operand_spec(v, &e->call.d, &err); have[3] = true; break;
  case 4: /* block scales at sa and sb, beside the pointers a and b */
    st = cli_parse_operand_spec(v, &e->call.a, &err), have[4] = true;
    if (tcmma_prec_is_scaled(e->call.a.prec)) e->call.a.scale = "sa";
    break;
  case 5:
    st = cli_parse_operand_spec(v, &e->call.b, &err), have[5] = true;
    if (tcmma_prec_is_scaled(e->call.b.prec)) e->call.b.scale = "sb";
    break;
  case 6: st = tcmma_scope_parse(v, &e->call.scope, &err); break;
  case 7:
    if (!cli_int(cmd, o, v, 1, TCMMA_KERNEL_OUTER_MAX, &e->outer)) return CLI_USAGE;
    e->outer_given = true;
    break;
  case 8:
    if (!cli_cc(cmd, o, v, &e->call.cc)) return CLI_USAGE;
    break;
  case 9: st = tcmma_fp16_mode_parse(v, &e->call.numerics.fp16, &err); break;
  case 10: st = tcmma_prefer_parse(v, &e->call.numerics.prefer, &err); break;
  case 11:
    if (!v[strspn(v, " \t")])
      return cli_usage(cmd, "--lane '%s': expected a C expression for the lane (without "
                       "--lane: threadIdx.x %% 32)", v);
    e->call.lane = v;
    break;
  case 12:
    if (strcmp(v, "cuda") == 0) e->dialect = TCMMA_DIALECT_CUDA;
    else if (strcmp(v, "host") == 0) e->dialect = TCMMA_DIALECT_HOST;
    else return cli_usage(cmd, "--dialect '%s': expected cuda or host", v);
    break;
  case 13:
    st = tcmma_arm_parse(v, NULL, &err);
    e->call.arm = v;
    break;
  case 14: st = tcmma_init_parse(v, &e->call.init, &err); break;
  case 15: e->call.alpha = v; break;
  case 16: e->call.beta = v; break;
  case 17:
    if (!cli_int(cmd, o, v, 1, TCMMA_REGISTERS_MAX, &n)) return CLI_USAGE;
    e->call.registers = (int)n;
    break;
  }
  if (st != TCMMA_OK) return cli_usage(cmd, "%s: %s", o, err.message);
  return 0;
}

/* The rules between options, once all are read: the required ones given,
 * --alpha/--beta exactly with --init scale, --outer only with --kernel. */
static int check_options(const emit_args *e, const bool *have) {
  const char *cmd = "emit";
  static const char *const required[6] = {"--m", "--n", "--k", "--d", "--a", "--b"};
  for (int j = 0; j < 6; j++)
    if (!have[j]) return cli_usage(cmd, "missing %s (required: --m --n --k --d --a --b)",
                                   required[j]);
  if (e->call.init == TCMMA_INIT_SCALE && (!e->call.alpha || !e->call.beta))
    return cli_usage(cmd, "--init scale needs --alpha and --beta");
  if (e->call.init != TCMMA_INIT_SCALE && (e->call.alpha || e->call.beta))
    return cli_usage(cmd, "--alpha and --beta need --init scale");
  if (e->outer_given && !e->kernel)
    return cli_usage(cmd, "--outer %ld: the number of update steps of the --kernel's loop; "
                     "without --kernel there is no loop (a generator runs the block in its own)",
                     e->outer);
  return 0;
}

static int parse(int argc, char **argv, emit_args *e) {
  const char *cmd = "emit";
  bool have[6] = {false};
  e->call = tcmma_call_default();
  e->outer = 1;
  e->dialect = TCMMA_DIALECT_CUDA;
  for (int i = 1; i < argc; i++) {
    const char *o = argv[i], *v = NULL;
    if (cli_is_help(o)) return cli_print_help_precs(help), -1;
    if (strcmp(o, "--tf32") == 0) { e->call.numerics.tf32 = true; continue; }
    if (strcmp(o, "--saturate") == 0) { e->call.numerics.saturate = true; continue; }
    if (strcmp(o, "--kernel") == 0) { e->kernel = true; continue; }
    if (strcmp(o, "--json") == 0) { e->json = true; continue; }
    if (strcmp(o, "--pieces") == 0) { e->pieces = true; continue; }
    int which = -1;
    for (int j = 0; valued[j]; j++)
      if (strcmp(o, valued[j]) == 0) which = j;
    if (which < 0)
      return cli_usage(cmd, "unknown option '%s': expected --m --n --k --d --a --b --scope "
                            "--outer --cc --fp16 --tf32 --prefer --saturate --arm --init --alpha "
                            "--beta --registers --lane --dialect --pieces --kernel --json", o);
    if (!(v = cli_value(cmd, argc, argv, &i))) return CLI_USAGE;
    int rc = take_value(which, o, v, e, have);
    if (rc) return rc;
  }
  return check_options(e, have);
}

/* The pieces one k step of a double-buffered loop uses, in order. */
static tcmma_status render_pieces(const tcmma_render_ctx *rc, tcmma_error *err) {
  tcmma_status st = tcmma_render_frag_decl(rc, TCMMA_OPERAND_C, "acc", 0, err);
  if (st == TCMMA_OK) st = tcmma_render_frag_decl(rc, TCMMA_OPERAND_A, "af", 2, err);
  if (st == TCMMA_OK) st = tcmma_render_frag_decl(rc, TCMMA_OPERAND_B, "bf", 2, err);
  if (st == TCMMA_OK) st = tcmma_render_acc_init(rc, "acc", "d", err);
  if (st == TCMMA_OK)
    st = tcmma_render_frag_load(rc, TCMMA_OPERAND_A, "af[0]", "a", "0", err);
  if (st == TCMMA_OK)
    st = tcmma_render_frag_load(rc, TCMMA_OPERAND_B, "bf[0]", "b", "0", err);
  if (st == TCMMA_OK) st = tcmma_render_frag_mma(rc, "acc", "af[0]", "bf[0]", err);
  if (st == TCMMA_OK) st = tcmma_render_acc_store(rc, "acc", "d", err);
  return st;
}

static tcmma_status render(const emit_args *e, const tcmma_plan *p, tcmma_buf *out,
                           tcmma_error *err) {
  tcmma_names nm = {NULL, 0};
  tcmma_render_ctx rc = tcmma_render_ctx_make(p, e->dialect, &nm, out);
  if (e->kernel) {
    tcmma_kernel_opts opts = TCMMA_KERNEL_OPTS_INIT((int)e->outer, e->pieces);
    return tcmma_render_kernel(&rc, &opts, err);
  }
  if (e->pieces) return render_pieces(&rc, err);
  if (p->call.scope == TCMMA_SCOPE_STATEMENT)
    return tcmma_render_statement(&rc, "d", "a", "b", err);
  tcmma_status st = tcmma_render_fragment_open(&rc, "frag", "d", err);
  if (st == TCMMA_OK)
    st = tcmma_render_fragment_update(&rc, "frag", "a", "b", err);
  if (st == TCMMA_OK) st = tcmma_render_fragment_close(&rc, "frag", "d", err);
  return st;
}

static void print_json(const tcmma_plan *p, const char *text) {
  json_writer w;
  json_init(&w, stdout);
  json_begin_object(&w);
  json_key(&w, "accepted"), json_bool(&w, p->accepted);
  json_key(&w, "arm");
  if (p->arm == TCMMA_ARM_NONE) json_null(&w);
  else json_string(&w, tcmma_arm_marker(p->arm));
  json_key(&w, "reason");
  if (p->accepted) json_null(&w);
  else json_string(&w, tcmma_decline_name(p->reason));
  json_key(&w, "message"), json_string(&w, p->message);
  json_key(&w, "ldmatrix"), json_begin_object(&w);
  json_key(&w, "a"), json_bool(&w, p->a_ldmatrix);
  json_key(&w, "b"), json_bool(&w, p->b_ldmatrix);
  json_end_object(&w);
  json_key(&w, "census");
  tcmma_census c;
  if (tcmma_plan_census(p, &c, NULL) == TCMMA_OK) {
    json_begin_object(&w);
    json_key(&w, "tile"), json_begin_array(&w);
    json_int(&w, c.tile_m), json_int(&w, c.tile_n), json_int(&w, c.tile_k);
    json_end_array(&w);
    json_key(&w, "tiles"), json_begin_array(&w);
    json_int(&w, c.mt), json_int(&w, c.nt), json_int(&w, c.kt);
    json_end_array(&w);
    json_key(&w, "a_ldmatrix"), json_bool(&w, c.a_ldmatrix);
    json_key(&w, "b_ldmatrix"), json_bool(&w, c.b_ldmatrix);
    json_key(&w, "reloads"), json_bool(&w, c.reloads);
    json_key(&w, "a_loads_per_k"), json_int(&w, c.a_loads_per_k);
    json_key(&w, "b_loads_per_k"), json_int(&w, c.b_loads_per_k);
    json_key(&w, "a_vector"), json_bool(&w, c.a_vector);
    json_key(&w, "b_vector"), json_bool(&w, c.b_vector);
    json_key(&w, "d_vector"), json_bool(&w, c.d_vector);
    json_key(&w, "mma_per_statement"), json_int(&w, c.mma_per_statement);
    json_key(&w, "shared_bytes"), json_int(&w, (long long)c.shared_bytes);
    json_key(&w, "ldmatrix_per_k"), json_begin_object(&w);
    json_key(&w, "a_x4"), json_int(&w, c.a_ldmatrix_x4);
    json_key(&w, "a_x2"), json_int(&w, c.a_ldmatrix_x2);
    json_key(&w, "a_x1"), json_int(&w, c.a_ldmatrix_x1);
    json_key(&w, "b_x4"), json_int(&w, c.b_ldmatrix_x4);
    json_key(&w, "b_x2"), json_int(&w, c.b_ldmatrix_x2);
    json_key(&w, "b_x1"), json_int(&w, c.b_ldmatrix_x1);
    json_end_object(&w);
    json_key(&w, "registers"), json_int(&w, c.registers);
    json_end_object(&w);
  } else {
    json_null(&w);
  }
  json_key(&w, "text"), json_string(&w, text);
  json_end_object(&w);
  json_finish(&w);
}

int cmd_emit(int argc, char **argv) {
  emit_args e;
  memset(&e, 0, sizeof e);
  int rc = parse(argc, argv, &e);
  if (rc != 0) return rc < 0 ? CLI_OK : rc;
  tcmma_plan plan;
  tcmma_error err = {0};
  tcmma_status st = tcmma_plan_call(&e.call, &plan, &err);
  if (st == TCMMA_DECLINED) {
    if (e.json) print_json(&plan, NULL);
    fprintf(stderr, "tcmma emit: declined: %s\n", plan.message);
    return CLI_DECLINED;
  }
  if (st != TCMMA_OK) return cli_usage("emit", "%s", err.message);
  tcmma_buf out = {0};
  st = render(&e, &plan, &out, &err);
  if (st != TCMMA_OK) {
    tcmma_buf_free(&out);
    return st == TCMMA_INVALID ? cli_usage("emit", "%s", err.message)
                               : cli_fail("emit", "%s", err.message);
  }
  if (e.json) print_json(&plan, tcmma_buf_str(&out));
  else fputs(tcmma_buf_str(&out), stdout);
  tcmma_buf_free(&out);
  return CLI_OK;
}
