/* tcmma resolve: the arm a storage triple resolves to. */
#include <stdio.h>
#include <string.h>
#include "cli.h"
#include "tcmma/tcmma.h"

static const char help[] =
    "usage: tcmma resolve D A B [--scope statement|fragment] [--cc N] [--fp16 wide|narrow]\n"
    "                     [--tf32] [--prefer ptx|wmma] [--saturate] [--json]\n\n"
    "Resolves the storage triple D = A x B to a tensor-core arm (tables/resolve.def):\n"
    "the first arm of the triple's preference list whose floor the device meets.\n"
    "Precisions: %s.\n\n"
    "  --scope S     statement (default) or fragment\n"
    "  --cc N        device compute capability, major*10+minor; 0 (default): any device\n"
    "  --fp16 M      f16 d: wide (default, f32 accumulate) or narrow (f16 accumulator)\n"
    "  --tf32        allow f32 operands to round to tf32 (default: not)\n"
    "  --prefer F    ptx (default) or wmma, where both forms fit\n"
    "  --saturate    s32 accumulation clamps on overflow (.satfinite; default: wraps)\n"
    "  --json        {\"arm\": <marker or null>, \"reason\": <text when null>}\n\n"
    "Exit status: 0 an arm resolves; 3 none does (the reason says why: no arm for the\n"
    "triple and policy, or every candidate is above the cc); 2 usage error.\n";

#define CMD "resolve"

/* What the command line asks of tcmma resolve. */
typedef struct {
  const char *pos[3]; /* D A B as given */
  int npos, cc;
  bool json;
  tcmma_numerics policy;
  tcmma_scope scope;
} resolve_args;

/* The options and the three precisions' words; -1 to go on, else the
 * exit status (help: CLI_OK). */
static int parse(int argc, char **argv, resolve_args *r) {
  *r = (resolve_args){.policy = tcmma_numerics_default(), .scope = TCMMA_SCOPE_STATEMENT};
  tcmma_error err;
  for (int i = 1; i < argc; i++) {
    const char *arg = argv[i], *v;
    if (cli_is_help(arg)) return cli_print_help_precs(help), CLI_OK;
    if (strcmp(arg, "--json") == 0) {
      r->json = true;
    } else if (strcmp(arg, "--tf32") == 0) {
      r->policy.tf32 = true;
    } else if (strcmp(arg, "--saturate") == 0) {
      r->policy.saturate = true;
    } else if (strcmp(arg, "--scope") == 0) {
      if (!(v = cli_value(CMD, argc, argv, &i))) return CLI_USAGE;
      if (tcmma_scope_parse(v, &r->scope, &err))
        return cli_usage(CMD, "--scope: %s", err.message);
    } else if (strcmp(arg, "--fp16") == 0) {
      if (!(v = cli_value(CMD, argc, argv, &i))) return CLI_USAGE;
      if (tcmma_fp16_mode_parse(v, &r->policy.fp16, &err))
        return cli_usage(CMD, "--fp16: %s", err.message);
    } else if (strcmp(arg, "--prefer") == 0) {
      if (!(v = cli_value(CMD, argc, argv, &i))) return CLI_USAGE;
      if (tcmma_prefer_parse(v, &r->policy.prefer, &err))
        return cli_usage(CMD, "--prefer: %s", err.message);
    } else if (strcmp(arg, "--cc") == 0) {
      if (!(v = cli_value(CMD, argc, argv, &i)) || !cli_cc(CMD, "--cc", v, &r->cc))
        return CLI_USAGE;
    } else if (arg[0] == '-' && arg[1] != '\0') {
      return cli_usage(CMD, "unknown option '%s': expected --scope, --cc, --fp16, --tf32, "
                            "--prefer, --saturate or --json", arg);
    } else if (r->npos == 3) {
      return cli_usage(CMD, "unexpected argument '%s': expected three precisions D A B", arg);
    } else {
      r->pos[r->npos++] = arg;
    }
  }
  if (r->npos < 3)
    return cli_usage(CMD, "expected three precisions D A B, got %d", r->npos);
  return -1;
}

/* The resolution as a table: what was asked, then the arm (info) or the
 * reason none resolved (why). */
static void text_report(const resolve_args *r, const tcmma_arm_info *info, const char *why) {
  const tcmma_numerics *policy = &r->policy;
  char triple[64], pol[128], ccs[32], tile[32] = "", floor[16] = "";
  snprintf(triple, sizeof triple, "%s = %s x %s", r->pos[0], r->pos[1], r->pos[2]);
  snprintf(pol, sizeof pol, "fp16 %s, tf32 %s, prefer %s, s32 %s",
           policy->fp16 == TCMMA_FP16_WIDE ? "wide" : "narrow", policy->tf32 ? "on" : "off",
           policy->prefer == TCMMA_PREFER_PTX ? "ptx" : "wmma",
           policy->saturate ? "saturates" : "wraps");
  if (r->cc) snprintf(ccs, sizeof ccs, "%d", r->cc);
  else snprintf(ccs, sizeof ccs, "0 (any device)");
  text_table tb;
  table_init(&tb, 2);
  table_row(&tb, (const char *const[]){"triple", triple});
  table_row(&tb, (const char *const[]){"policy", pol});
  table_row(&tb, (const char *const[]){"scope", tcmma_scope_name(r->scope)});
  table_row(&tb, (const char *const[]){"cc", ccs});
  if (info) {
    snprintf(tile, sizeof tile, "%dx%dx%d", info->m, info->n, info->k);
    snprintf(floor, sizeof floor, "%d%s", info->floor, info->family ? " (family)" : "");
    table_row(&tb, (const char *const[]){"arm", info->marker});
    table_row(&tb, (const char *const[]){"form", tcmma_form_name(info->form)});
    table_row(&tb, (const char *const[]){"tile", tile});
    table_row(&tb, (const char *const[]){"floor", floor});
    table_row(&tb, (const char *const[]){"accumulator", tcmma_prec_name(info->acc)});
  } else {
    table_row(&tb, (const char *const[]){"arm", "none"});
    table_row(&tb, (const char *const[]){"reason", why});
  }
  table_print(&tb, stdout);
  table_free(&tb);
}

int cmd_resolve(int argc, char **argv) {
  resolve_args r;
  int rc = parse(argc, argv, &r);
  if (rc >= 0) return rc;
  tcmma_error err;
  tcmma_prec p[3];
  for (int i = 0; i < 3; i++)
    if (tcmma_prec_parse(r.pos[i], &p[i], &err))
      return cli_usage(CMD, "%c: %s", "DAB"[i], err.message);
  tcmma_triple t = {p[0], p[1], p[2]};
  tcmma_arm arm;
  tcmma_status s = tcmma_resolve(t, &r.policy, r.scope, r.cc, &arm, &err);
  if (s != TCMMA_OK && s != TCMMA_NO_ARM && s != TCMMA_FLOOR)
    return cli_fail(CMD, "%s", err.message);
  const tcmma_arm_info *info = tcmma_arm_get(arm);
  if (r.json) {
    json_writer w;
    json_init(&w, stdout);
    json_begin_object(&w);
    json_key(&w, "arm"), json_string(&w, info ? info->marker : NULL);
    if (!info) json_key(&w, "reason"), json_string(&w, err.message);
    json_end_object(&w);
    json_finish(&w);
  } else {
    text_report(&r, info, err.message);
  }
  return info ? CLI_OK : CLI_DECLINED;
}
