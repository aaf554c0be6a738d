/* tcmma ptx: what a PTX module declares and contains, and what it requires. */
#include <stdlib.h>
#include <string.h>
#include "cli.h"
#include "cli_input.h"
#include "tcmma/tcmma.h"

static const char help[] =
    "usage: tcmma ptx FILE|- [--check TARGET] [--json]\n\n"
    "Reads a PTX module (FILE, or standard input for -) and prints its .version, its .target\n"
    "arch and modifiers (debug, texmode_...), .address_size, .entry names, the census of its\n"
    "instructions (each full opcode and its count, guard predicates left out) and the minimum\n"
    "target the census requires (tables/ptx_features.def), with the opcode that sets it.\n"
    "An opcode no row matches needs nothing (-) when it is a PTX instruction\n"
    "(tables/ptx_instructions.def), and is unknown when it is not.\n\n"
    "--json prints {\"version\", \"target\", \"modifiers\", \"address_size\", \"entries\",\n"
    "\"census\" (an object: opcode -> count, sorted by opcode), \"instructions\", \"required_sm\"\n"
    "(null when nothing in the table is used), \"required_suffix\" (\"\", \"a\" or \"a|f\"),\n"
    "\"required_target\", \"required_by\", \"required_ptx\", \"target_ok\", \"target_problem\",\n"
    "\"unknown\" (the census opcodes that are no PTX instruction)}.\n\n"
    "--check TARGET (sm_<N>[a|f]: sm_80, sm_90a, sm_100f): does the module load on a GPU of\n"
    "that target, as ptxas -arch decides? Its .target must compile to TARGET (sm_XY to any\n"
    "sm at or above XY; sm_XYf to the later members of its family; sm_XYa to itself only)\n"
    "and hold every instruction. Prints the reason and the instructions TARGET cannot hold;\n"
    "--json adds \"check\": {\"target\", \"ok\", \"reason\", \"blocked_by\": [{\"opcode\",\n"
    "\"count\", \"needs\"}]}.\n\n"
    "Exit status: 0 read (also when the .target is below what the census requires: see\n"
    "target_ok), and with --check: it loads on TARGET; 1 the input is not a readable PTX\n"
    "module, or with --check: it does not load on TARGET; 2 usage error.\n";

/* --check TARGET: the target and the verdict. */
typedef struct {
  const char *text; /* NULL: no check asked */
  int sm;
  char suffix;
  tcmma_status status;
  tcmma_error why;
} on_check;

/* What opcode needs, for people: "sm_80", "sm_90a", "sm_120a|sm_120f",
 * "no target"; "-" for nothing; "unknown" for no PTX instruction. */
static void need_text(const char *opcode, char *buf, size_t cap) {
  if (!tcmma_ptx_opcode_known(opcode)) {
    snprintf(buf, cap, "unknown");
    return;
  }
  tcmma_ptx_info one = {0};
  one.no_target = !tcmma_ptx_opcode_need(opcode, &one.required_sm, &one.required_suffix, NULL);
  if (one.required_sm == 0) snprintf(buf, cap, "-");
  else tcmma_ptx_required_text(&one, buf, cap);
}

/* Whether census line i blocks the checked target. */
static bool blocks(const tcmma_ptx_info *info, size_t i, const on_check *c) {
  return !tcmma_ptx_opcode_holds(info->census[i].opcode, c->sm, c->suffix);
}

static void print_check_json(json_writer *w, const tcmma_ptx_info *info, const on_check *c) {
  json_key(w, "check"), json_begin_object(w);
  json_key(w, "target"), json_string(w, c->text);
  json_key(w, "ok"), json_bool(w, c->status == TCMMA_OK);
  json_key(w, "reason"), json_string(w, c->status == TCMMA_OK ? NULL : c->why.message);
  json_key(w, "blocked_by"), json_begin_array(w);
  for (size_t i = 0; i < info->census_count; i++) {
    if (!blocks(info, i, c)) continue;
    char need[48];
    need_text(info->census[i].opcode, need, sizeof need);
    json_begin_object(w);
    json_key(w, "opcode"), json_string(w, info->census[i].opcode);
    json_key(w, "count"), json_int(w, (long long)info->census[i].count);
    json_key(w, "needs"), json_string(w, need);
    json_end_object(w);
  }
  json_end_array(w);
  json_end_object(w);
}

static void print_check_text(const tcmma_ptx_info *info, const on_check *c) {
  if (c->status == TCMMA_OK) {
    printf("check %s    loads\n", c->text);
    return;
  }
  printf("check %s    does not load: %s\n", c->text, c->why.message);
  for (size_t i = 0; i < info->census_count; i++) {
    if (!blocks(info, i, c)) continue;
    char need[48];
    need_text(info->census[i].opcode, need, sizeof need);
    printf("  blocked by  %s (x%zu): needs %s\n", info->census[i].opcode, info->census[i].count,
           need);
  }
}

static void print_json(const tcmma_ptx_info *info, const char *required, tcmma_status check,
                       const tcmma_error *why, const on_check *c) {
  json_writer w;
  char buf[32];
  json_init(&w, stdout);
  json_begin_object(&w);
  snprintf(buf, sizeof buf, "%d.%d", info->version_major, info->version_minor);
  json_key(&w, "version"), json_string(&w, buf);
  json_key(&w, "target"), json_string(&w, info->target);
  json_key(&w, "modifiers"), json_begin_array(&w);
  for (size_t i = 0; i < info->modifier_count; i++) json_string(&w, info->modifiers[i]);
  json_end_array(&w);
  json_key(&w, "address_size");
  if (info->address_size) json_int(&w, info->address_size);
  else json_null(&w);
  json_key(&w, "entries"), json_begin_array(&w);
  for (size_t i = 0; i < info->entry_count; i++) json_string(&w, info->entries[i]);
  json_end_array(&w);
  json_key(&w, "census"), json_begin_object(&w);
  for (size_t i = 0; i < info->census_count; i++)
    json_key(&w, info->census[i].opcode), json_int(&w, (long long)info->census[i].count);
  json_end_object(&w);
  json_key(&w, "instructions"), json_int(&w, (long long)info->instruction_count);
  json_key(&w, "required_sm");
  if (info->required_sm) json_int(&w, info->required_sm);
  else json_null(&w);
  json_key(&w, "required_suffix"), json_string(&w, tcmma_ptx_suffix_text(info->required_suffix));
  json_key(&w, "required_target"), json_string(&w, info->required_sm ? required : NULL);
  json_key(&w, "required_by"), json_string(&w, info->required_by);
  json_key(&w, "required_ptx");
  if (info->required_ptx) {
    snprintf(buf, sizeof buf, "%d.%d", info->required_ptx / 10, info->required_ptx % 10);
    json_string(&w, buf);
  } else {
    json_null(&w);
  }
  json_key(&w, "target_ok"), json_bool(&w, check == TCMMA_OK);
  json_key(&w, "target_problem"), json_string(&w, check == TCMMA_OK ? NULL : why->message);
  json_key(&w, "unknown"), json_begin_array(&w);
  for (size_t i = 0; i < info->census_count; i++)
    if (!tcmma_ptx_opcode_known(info->census[i].opcode)) json_string(&w, info->census[i].opcode);
  json_end_array(&w);
  if (c->text) print_check_json(&w, info, c);
  json_end_object(&w);
  json_finish(&w);
}

static void print_text(const tcmma_ptx_info *info, const char *required, tcmma_status check,
                       const tcmma_error *why, const on_check *c) {
  printf("version       %d.%d\n", info->version_major, info->version_minor);
  printf("target        %s", info->target);
  for (size_t i = 0; i < info->modifier_count; i++) printf("%s%s", i ? ", " : " (", info->modifiers[i]);
  printf("%s\n", info->modifier_count ? ")" : "");
  if (info->address_size) printf("address_size  %d\n", info->address_size);
  else printf("address_size  (none)\n");
  for (size_t i = 0; i < info->entry_count; i++) printf("entry         %s\n", info->entries[i]);
  printf("instructions  %zu (%zu distinct)\n", info->instruction_count, info->census_count);
  if (info->required_sm)
    printf("requires      %s, PTX ISA %d.%d (by %s)\n", required, info->required_ptx / 10,
           info->required_ptx % 10, info->required_by);
  else
    printf("requires      nothing from tables/ptx_features.def\n");
  printf("target check  %s\n", check == TCMMA_OK ? "ok" : why->message);
  if (c->text) print_check_text(info, c);
  if (!info->census_count) return;
  printf("\n");
  text_table t;
  table_init(&t, 3);
  table_row(&t, (const char *const[]){"COUNT", "NEEDS", "OPCODE"});
  for (size_t i = 0; i < info->census_count; i++) {
    char count[32], need[48];
    snprintf(count, sizeof count, "%zu", info->census[i].count);
    need_text(info->census[i].opcode, need, sizeof need);
    table_row(&t, (const char *const[]){count, need, info->census[i].opcode});
  }
  table_print(&t, stdout);
  table_free(&t);
}

int cmd_ptx(int argc, char **argv) {
  bool json = false;
  const char *path = NULL;
  on_check c = {0};
  for (int i = 1; i < argc; i++) {
    if (cli_is_help(argv[i])) return fputs(help, stdout), CLI_OK;
    if (strcmp(argv[i], "--json") == 0) json = true;
    else if (strcmp(argv[i], "--check") == 0) {
      if (!(c.text = cli_value("ptx", argc, argv, &i))) return CLI_USAGE;
      if (tcmma_ptx_target_parse(c.text, &c.sm, &c.suffix, &c.why) != TCMMA_OK)
        return cli_usage("ptx", "--check: %s", c.why.message);
    } else if (argv[i][0] == '-' && argv[i][1] != '\0')
      return cli_usage("ptx", "unknown option '%s': expected --check or --json", argv[i]);
    else if (path) return cli_usage("ptx", "a second input '%s': expected one FILE or -", argv[i]);
    else path = argv[i];
  }
  if (!path) return cli_usage("ptx", "missing input: expected FILE or - (standard input)");
  /* read as it arrives, in bounded memory (docs/ptx.md, Speed) */
  cli_stream in;
  if (!cli_stream_open("ptx", path, &in)) return CLI_FAIL;
  tcmma_ptx_info info;
  tcmma_error err;
  tcmma_status s = tcmma_ptx_parse_stream(cli_stream_read, &in, &info, &err);
  cli_stream_close(&in);
  if (s != TCMMA_OK) {
    tcmma_ptx_info_free(&info);
    if (in.failed) return CLI_FAIL; /* cli_stream_read said why */
    if (strcmp(path, "-") == 0) return cli_fail("ptx", "standard input: %s", err.message);
    return cli_fail("ptx", "'%s': %s", path, err.message);
  }
  char required[48];
  tcmma_ptx_required_text(&info, required, sizeof required);
  tcmma_error why;
  tcmma_error_clear(&why);
  tcmma_status check = tcmma_ptx_check_target(&info, &why);
  if (c.text) c.status = tcmma_ptx_check_on(&info, c.sm, c.suffix, &c.why);
  if (json) print_json(&info, required, check, &why, &c);
  else print_text(&info, required, check, &why, &c);
  tcmma_ptx_info_free(&info);
  return c.text && c.status != TCMMA_OK ? CLI_FAIL : CLI_OK;
}
