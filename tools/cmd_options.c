/* tcmma options: the --gpu-architecture a source needs. */
#include <stdlib.h>
#include <string.h>
#include "cli.h"
#include "cli_input.h"
#include "cli_target.h"
#include "tcmma/tcmma.h"

static const char help[] =
    "usage: tcmma options FILE|- [--cc N] [--target floor|native] [--json]\n\n"
    "Prints the NVRTC architecture option FILE needs, from the markers it carries, read\n"
    "as CUDA C++ (comments and strings are not code): each arm's (marker); nvcuda::wmma\n"
    "(also wmma:: under `using namespace nvcuda`), __half, __nv_bfloat16; wmma fragment\n"
    "types that need more (precision::tf32, double, 8-bit integers, ...); tensor-core and\n"
    "async-copy instructions inside asm(...) strings, at what tables/ptx_features.def\n"
    "says they need (wgmma: compute_90a); and __CUDA_ARCH__ >= N guards of an #if with no\n"
    "#else. Prints the floor, the marker that sets it and every marker with its line, and\n"
    "the guards whose body the chosen arch compiles away. FILE's #includes are not read.\n"
    "  --cc N        the device's compute capability (major*10+minor); native without it\n"
    "                asks the CUDA driver for the lowest cc among attached devices\n"
    "  --target T    floor (the lowest arch the markers allow, raised to NVRTC's lowest)\n"
    "                or native (the device's cc, clamped to NVRTC's archs);\n"
    "                default: $TCMMA_PTX_TARGET, else floor\n"
    "  --json        {\"options\": [...], \"floor\": N|null, \"set_by\": MARKER|null,\n"
    "                \"markers\": [{\"text\", \"kind\", \"line\", \"floor\", \"needs\",\n"
    "                \"compiled_away\"}], \"note\": ..., \"cc\": N|null, \"cc_from_driver\": BOOL}\n";

static const char *kind_name(tcmma_hit_kind k) {
  switch (k) {
  case TCMMA_HIT_ARM: return "arm";
  case TCMMA_HIT_FRAGMENT: return "fragment";
  case TCMMA_HIT_PTX: return "asm";
  case TCMMA_HIT_GUARD: return "guard";
  default: return "marker";
  }
}

/* What marker h needs, for people: "sm_80", "sm_90a", "sm_120a|sm_120f";
 * "" for a guard that raises nothing. */
static void needs_text(const tcmma_marker_hit *h, char *buf, size_t cap) {
  tcmma_ptx_info one = {.required_sm = h->floor, .required_suffix = h->suffix};
  buf[0] = '\0';
  if (h->floor) tcmma_ptx_required_text(&one, buf, cap);
}

/* The marker that sets the decision: of the highest floor, one that needs a
 * suffix first, then one that is not a guard, then the first. */
static const tcmma_marker_hit *set_by(const tcmma_arch_options *o) {
  const tcmma_marker_hit *best = NULL;
  if (!o->floor) return NULL; /* floor 0: nothing sets one (never an empty "floor: ,") */
  for (size_t i = 0; i < o->n_markers; i++) {
    const tcmma_marker_hit *h = &o->markers[i];
    if (h->floor != o->floor) continue;
    int rank = (h->family ? 2 : 0) + (h->kind != TCMMA_HIT_GUARD);
    int best_rank = best ? (best->family ? 2 : 0) + (best->kind != TCMMA_HIT_GUARD) : -1;
    if (rank > best_rank) best = h;
  }
  return best;
}

static void print_json(const tcmma_arch_options *o) {
  json_writer w;
  json_init(&w, stdout);
  json_begin_object(&w);
  json_key(&w, "options"), json_begin_array(&w);
  if (o->option[0]) json_string(&w, o->option);
  json_end_array(&w);
  json_key(&w, "floor");
  if (o->floor) json_int(&w, o->floor);
  else json_null(&w);
  const tcmma_marker_hit *by = set_by(o);
  json_key(&w, "set_by"), json_string(&w, by ? by->text : NULL);
  json_key(&w, "markers"), json_begin_array(&w);
  for (size_t i = 0; i < o->n_markers; i++) {
    const tcmma_marker_hit *h = &o->markers[i];
    char needs[64];
    needs_text(h, needs, sizeof needs);
    json_begin_object(&w);
    json_key(&w, "text"), json_string(&w, h->text);
    json_key(&w, "kind"), json_string(&w, kind_name(h->kind));
    json_key(&w, "line"), json_int(&w, h->line);
    json_key(&w, "floor");
    if (h->floor) json_int(&w, h->floor);
    else json_null(&w);
    json_key(&w, "needs"), json_string(&w, needs[0] ? needs : NULL);
    json_key(&w, "compiled_away"), json_bool(&w, h->compiled_away);
    json_end_object(&w);
  }
  json_end_array(&w);
  json_key(&w, "note"), json_string(&w, o->note[0] ? o->note : NULL);
  json_key(&w, "cc");
  if (o->cc) json_int(&w, o->cc);
  else json_null(&w);
  json_key(&w, "cc_from_driver"), json_bool(&w, o->cc_from_driver);
  json_end_object(&w);
  json_finish(&w);
}

static void print_text(const tcmma_arch_options *o) {
  printf("options: %s\n", o->option[0] ? o->option : "(none: NVRTC's default arch)");
  const tcmma_marker_hit *by = set_by(o);
  char needs[64];
  if (by) {
    needs_text(by, needs, sizeof needs);
    printf("floor:   %s, set by %s on line %d\n", needs, by->text, by->line);
  } else {
    printf("floor:   none: no marker (no tensor-core or async-copy construct in this file;\n"
           "         its #includes are not read)\n");
  }
  for (size_t i = 0; i < o->n_markers; i++) {
    const tcmma_marker_hit *h = &o->markers[i];
    needs_text(h, needs, sizeof needs);
    if (h->kind == TCMMA_HIT_GUARD && !h->floor)
      printf("guard:   line %-5d %s%s\n", h->line, h->text,
             h->compiled_away ? ": compiled away at the chosen arch (its #else stands)" : "");
    else
      printf("marker:  line %-5d %-24s %s%s\n", h->line, h->text, needs,
             h->kind == TCMMA_HIT_GUARD ? " (an #if with no #else)" : "");
  }
  if (o->cc_from_driver) printf("device:  cc %d (the lowest attached device)\n", o->cc);
  if (o->note[0]) printf("note:    %s\n", o->note);
}

int cmd_options(int argc, char **argv) {
  bool json = false;
  const char *file = NULL;
  int cc = 0;
  tcmma_target target = TCMMA_TARGET_CURRENT;
  for (int i = 1; i < argc; i++) {
    const char *v;
    if (cli_is_help(argv[i])) return fputs(help, stdout), CLI_OK;
    if (strcmp(argv[i], "--json") == 0) json = true;
    else if (strcmp(argv[i], "--cc") == 0) {
      if (!(v = cli_value("options", argc, argv, &i)) || !cli_cc("options", "--cc", v, &cc))
        return CLI_USAGE;
    } else if (strcmp(argv[i], "--target") == 0) {
      if (!(v = cli_value("options", argc, argv, &i)) || !cli_target_option("options", v, &target))
        return CLI_USAGE;
    } else if (argv[i][0] == '-' && argv[i][1] != '\0') {
      return cli_usage("options", "unknown option '%s': expected --cc, --target or --json",
                       argv[i]);
    } else if (file) {
      return cli_usage("options", "extra argument '%s': expected one FILE", argv[i]);
    } else {
      file = argv[i];
    }
  }
  if (!file) return cli_usage("options", "missing FILE (a CUDA source, or - for stdin)");
  size_t len = 0;
  char *source = cli_read_input("options", file, &len);
  if (!source) return CLI_FAIL;
  tcmma_arch_options o;
  tcmma_error err;
  tcmma_status st = tcmma_gpu_arch_options(source, len, cc, target, &o, &err);
  free(source);
  if (st != TCMMA_OK) return cli_fail("options", "%s", err.message);
  if (json) print_json(&o);
  else print_text(&o);
  return CLI_OK;
}
