/* tcmma options: the --gpu-architecture a source needs. */
#include <stdlib.h>
#include <string.h>
#include "cli.h"
#include "cli_input.h"
#include "cli_target.h"
#include "tcmma/tcmma.h"

static const char help[] =
    "usage: tcmma options FILE|- [--cc N] [--target floor|native] [--no-probe | [--probe]\n"
    "                     [-I DIR]... [-D NAME[=V]]...] [--json]\n\n"
    "Prints the NVRTC architecture option FILE needs, from the markers it carries, read\n"
    "as CUDA C++ (comments and strings are not code; #define bodies are): each arm's\n"
    "(marker); nvcuda::wmma (also wmma:: under `using namespace nvcuda`), __half,\n"
    "__nv_bfloat16; wmma fragment types that need more (precision::tf32, double, 8-bit\n"
    "integers, ...); the kernel attributes of tables/kernel_attrs.def (__cluster_dims__\n"
    "and a __launch_bounds__ with max blocks per cluster: compute_90; __grid_constant__);\n"
    "the instructions inside asm(...) strings, at what\n"
    "tables/ptx_features.def says they need (wgmma: compute_90a; tcgen05: compute_100f,\n"
    "kind::i8 compute_100a; \"seen in a macro\" in a #define body; one no row matches\n"
    "needs nothing when it is a PTX instruction (tables/ptx_instructions.def: mov.b32,\n"
    "setp), and one that is none is listed as unknown); and __CUDA_ARCH__ >= N guards\n"
    "of an #if with no #else (at file scope, not one around a template specialisation:\n"
    "the primary template stands). Prints the floor, the marker that sets it and every\n"
    "marker with its line, and the guards whose body the chosen arch compiles away;\n"
    "then proves the floor by compiling (the probe, below). The options line is the\n"
    "markers' answer, the arch tcmma compile takes; FILE's #includes are not read for\n"
    "markers (the probe compiles them).\n"
    "  --cc N        the device's compute capability (major*10+minor); native without it\n"
    "                asks the CUDA driver for the lowest cc among attached devices\n"
    "  --target T    floor (the lowest arch the markers allow, raised to NVRTC's lowest)\n"
    "                or native (the device's cc, clamped to NVRTC's archs);\n"
    "                default: $TCMMA_PTX_TARGET, else floor\n"
    "  --no-probe    the markers' answer only: no compile (microseconds; NVRTC is still\n"
    "                asked for its targets, as the markers' answer always needs)\n"
    "  --probe       the default; prove the floor by compiling: NVRTC compiles FILE to\n"
    "                a CUBIN (ptxas checks every instruction) up the ladder of its\n"
    "                targets (sm_N, sm_Nf, sm_Na, N ascending) through the cache, a\n"
    "                batch of rungs at once on the cores (\"batches\" says how many);\n"
    "                the proven floor is the lowest that compiles, whose PTX holds its\n"
    "                .target and where no kernel is compiled away (a body of ret/exit\n"
    "                only, or one that traps, while a higher target gives it work and\n"
    "                no trap). Prints the marker floor, the proven floor and the\n"
    "                evidence (the error one step below, or the kernels compiled away\n"
    "                there). When NVRTC refuses host code or headers (or takes no\n"
    "                target), the ladder runs again with the toolkit's nvcc (tcmma\n"
    "                compile --nvcc). A probe that cannot run (that nvcc will not run)\n"
    "                prints \"not proven: WHY\" under the markers' answer, exit 0;\n"
    "                given --probe, it fails (exit 1)\n"
    "  -I DIR, -D NAME[=V]  the probe's include directories and defines\n"
    "  --json        {\"options\": [...], \"floor\": N|null, \"set_by\": MARKER|null,\n"
    "                \"markers\": [{\"text\", \"kind\", \"line\", \"floor\", \"needs\",\n"
    "                \"compiled_away\"}], \"note\": ..., \"cc\": N|null, \"cc_from_driver\": BOOL,\n"
    "                \"probe\": {\"marker_floor\", \"marker_option\", \"proven_option\", \"below\",\n"
    "                \"below_status\", \"below_empty\", \"evidence\", \"rungs\", \"cache_hits\",\n"
    "                \"compiler\", \"batches\"} (none with --no-probe; null, and \"not_proven\":\n"
    "                WHY, when the probe cannot run)}\n";

static const char *kind_name(tcmma_hit_kind k) {
  switch (k) {
  case TCMMA_HIT_ARM: return "arm";
  case TCMMA_HIT_FRAGMENT: return "fragment";
  case TCMMA_HIT_PTX: return "asm";
  case TCMMA_HIT_GUARD: return "guard";
  case TCMMA_HIT_MACRO: return "macro-asm";
  case TCMMA_HIT_UNKNOWN: return "unknown";
  case TCMMA_HIT_MACRO_UNKNOWN: return "macro-unknown";
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

static void json_probe(json_writer *w, const tcmma_probe *p) {
  json_key(w, "probe"), json_begin_object(w);
  json_key(w, "marker_floor");
  if (p->marker_floor) json_int(w, p->marker_floor);
  else json_null(w);
  json_key(w, "marker_option"), json_string(w, p->marker_option[0] ? p->marker_option : NULL);
  json_key(w, "proven_option"), json_string(w, p->option[0] ? p->option : NULL);
  json_key(w, "below"), json_string(w, p->below[0] ? p->below : NULL);
  json_key(w, "below_status");
  json_string(w, p->evidence[0] ? tcmma_status_name(p->below_status) : NULL);
  json_key(w, "below_empty"), json_bool(w, p->below_empty);
  json_key(w, "evidence"), json_string(w, p->evidence[0] ? p->evidence : NULL);
  json_key(w, "rungs"), json_int(w, p->rungs);
  json_key(w, "cache_hits"), json_int(w, p->cache_hits);
  json_key(w, "compiler"), json_string(w, p->compiler);
  json_key(w, "batches"), json_int(w, p->batches);
  json_key(w, "fails_at"), json_string(w, p->unproven ? p->fails_at : NULL);
  json_key(w, "unproven"), json_string(w, p->unproven);
  json_end_object(w);
}

/* How the probe went: it ran (probe), it was not asked (--no-probe), or it
 * could not run (not_proven says why). */
typedef struct {
  const tcmma_probe *probe;
  const char *not_proven;
} proof;

static void print_json(const tcmma_arch_options *o, proof pr) {
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
  if (pr.probe) json_probe(&w, pr.probe);
  if (pr.not_proven) {
    json_key(&w, "probe"), json_null(&w);
    json_key(&w, "not_proven"), json_string(&w, pr.not_proven);
  }
  json_end_object(&w);
  json_finish(&w);
}

static void text_probe(const tcmma_probe *p) {
  char counts[192];
  snprintf(counts, sizeof counts, "%d compile%s in %d batch%s%s, %d from the cache", p->rungs,
           p->rungs == 1 ? "" : "s", p->batches, p->batches == 1 ? "" : "es",
           strcmp(p->compiler, "nvcc") == 0
               ? "; NVRTC refused its host code, so nvcc compiled the whole program"
               : "",
           p->cache_hits);
  if (p->unproven) {
    printf("probe:   not proven: the source does not compile at %s: %s\n", p->fails_at,
           p->evidence);
    printf("         nor at any target: %s (%s)\n", p->unproven, counts);
    return;
  }
  printf("probe:   marker floor %s; proven floor %s (%s)\n",
         p->marker_option[0] ? p->marker_option : "none",
         p->option[0] ? p->option : "none: no target compiles it whole", counts);
  if (p->below[0])
    printf("         %s fails: %s\n", p->below, p->evidence);
  else if (p->evidence[0])
    printf("         the highest target fails: %s\n", p->evidence);
  else if (p->option[0])
    printf("         it is NVRTC's lowest target: nothing below it to fail\n");
}

static void print_text(const tcmma_arch_options *o, proof pr) {
  printf("options: %s\n", o->option[0] ? o->option : "(none: NVRTC's default arch)");
  const tcmma_marker_hit *by = set_by(o);
  char needs[64];
  if (by) {
    needs_text(by, needs, sizeof needs);
    printf("floor:   %s, set by %s on line %d\n", needs, by->text, by->line);
  } else {
    printf("floor:   none: no marker raises it (no tensor-core or async-copy construct\n"
           "         tcmma knows in this file or its #define bodies; its #includes are not read)\n");
  }
  for (size_t i = 0; i < o->n_markers; i++) {
    const tcmma_marker_hit *h = &o->markers[i];
    needs_text(h, needs, sizeof needs);
    if (h->kind == TCMMA_HIT_UNKNOWN || h->kind == TCMMA_HIT_MACRO_UNKNOWN)
      printf("unknown: line %-5d %-24s no PTX instruction (tables/ptx_instructions.def): what "
             "it needs is not known%s\n", h->line, h->text,
             h->kind == TCMMA_HIT_MACRO_UNKNOWN ? " (seen in a macro)" : "");
    else if (h->kind == TCMMA_HIT_GUARD && !h->floor)
      printf("guard:   line %-5d %s%s\n", h->line, h->text,
             h->compiled_away ? ": compiled away at the chosen arch (another branch, or the primary\n"
             "                                  template it specialises, stands)" : "");
    else
      printf("marker:  line %-5d %-24s %s%s\n", h->line, h->text, needs,
             h->kind == TCMMA_HIT_GUARD ? " (an #if with no #else)"
             : h->kind == TCMMA_HIT_MACRO ? " (seen in a macro)" : "");
  }
  if (o->cc_from_driver) printf("device:  cc %d (the lowest attached device)\n", o->cc);
  if (o->note[0]) printf("note:    %s\n", o->note);
  if (pr.probe) text_probe(pr.probe);
  if (pr.not_proven) printf("probe:   not proven: %s\n", pr.not_proven);
}

/* Whether to prove the floor by compiling: by default (a probe that cannot
 * run leaves the markers' answer), --probe (it must run), --no-probe. */
typedef enum { PROBE_DEFAULT, PROBE_ON, PROBE_OFF } probe_mode;

typedef struct {
  bool json;
  probe_mode probe;
  const char *file;
  int cc;
  tcmma_target target;
  cli_list includes, defines;
} args;

/* Fills a from argv: CLI_OK, or the exit code after a message (or help). */
static int parse(int argc, char **argv, args *a, bool *help_shown) {
  for (int i = 1; i < argc; i++) {
    const char *v;
    if (cli_is_help(argv[i])) return fputs(help, stdout), *help_shown = true, CLI_OK;
    if (strcmp(argv[i], "--json") == 0) a->json = true;
    else if (strcmp(argv[i], "--probe") == 0 || strcmp(argv[i], "--no-probe") == 0) {
      probe_mode m = argv[i][2] == 'n' ? PROBE_OFF : PROBE_ON;
      if (a->probe != PROBE_DEFAULT && a->probe != m)
        return cli_usage("options", "--probe and --no-probe: give one");
      a->probe = m;
    } else if (strcmp(argv[i], "--cc") == 0) {
      if (!(v = cli_value("options", argc, argv, &i)) || !cli_cc("options", "--cc", v, &a->cc))
        return CLI_USAGE;
    } else if (strcmp(argv[i], "--target") == 0) {
      if (!(v = cli_value("options", argc, argv, &i)) || !cli_target_option("options", v, &a->target))
        return CLI_USAGE;
    } else if (strncmp(argv[i], "-I", 2) == 0 || strncmp(argv[i], "-D", 2) == 0) {
      cli_list *l = argv[i][1] == 'I' ? &a->includes : &a->defines;
      if (!(v = argv[i][2] ? argv[i] + 2 : cli_value("options", argc, argv, &i))) return CLI_USAGE;
      if (!cli_list_push(l, v)) return cli_fail("options", "out of memory");
    } else if (argv[i][0] == '-' && argv[i][1] != '\0') {
      return cli_usage("options", "unknown option '%s': expected --cc, --target, --probe, "
                       "--no-probe, -I, -D or --json", argv[i]);
    } else if (a->file) {
      return cli_usage("options", "extra argument '%s': expected one FILE", argv[i]);
    } else {
      a->file = argv[i];
    }
  }
  if (!a->file) return cli_usage("options", "missing FILE (a CUDA source, or - for stdin)");
  if (a->probe == PROBE_OFF && (a->includes.count || a->defines.count))
    return cli_usage("options", "-I and -D are the probe's compile options: not with --no-probe");
  return CLI_OK;
}

/* The probe of source (its markers decided): TCMMA_OK with *probe filled,
 * or, by default, with *not_proven saying why it could not run (nvcc needed
 * and not runnable); the error otherwise. */
static tcmma_status prove(const args *a, const char *source, size_t len, tcmma_probe *probe,
                          tcmma_error *not_proven, tcmma_error *err) {
  tcmma_compile_opts c = tcmma_compile_opts_default();
  /* the path as given: NVRTC finds the source's "includes" next to it */
  c.name = strcmp(a->file, "-") == 0 ? "stdin.cu" : a->file;
  c.include_dirs = a->includes.items, c.n_include_dirs = a->includes.count;
  c.defines = a->defines.items, c.n_defines = a->defines.count;
  tcmma_status st = tcmma_probe_floor(source, len, &c, probe, err);
  if (st == TCMMA_UNAVAILABLE && a->probe == PROBE_DEFAULT)
    return *not_proven = *err, TCMMA_OK;
  return st;
}

static int run(const args *a) {
  size_t len = 0;
  char *source = cli_read_input("options", a->file, &len);
  if (!source) return CLI_FAIL;
  tcmma_arch_options o;
  tcmma_error err, why = {0};
  /* the markers' answer first: it needs NVRTC's targets, so without NVRTC
   * it fails as it always has, probe or not */
  tcmma_status st = tcmma_gpu_arch_options(source, len, a->cc, a->target, &o, &err);
  tcmma_probe probe = tcmma_probe_init();
  if (st == TCMMA_OK && a->probe != PROBE_OFF) st = prove(a, source, len, &probe, &why, &err);
  free(source);
  if (st != TCMMA_OK) return cli_fail("options", "%s", err.message);
  proof pr = {NULL, NULL};
  /* "probe: " once: the line says probe already */
  if (why.message[0]) pr.not_proven = why.message + (strncmp(why.message, "probe: ", 7) ? 0 : 7);
  else if (a->probe != PROBE_OFF) pr.probe = &probe;
  if (a->json) print_json(&o, pr);
  else print_text(&o, pr);
  return CLI_OK;
}

int cmd_options(int argc, char **argv) {
  args a = {.target = TCMMA_TARGET_CURRENT, .probe = PROBE_DEFAULT};
  bool help_shown = false;
  int rc = parse(argc, argv, &a, &help_shown);
  if (rc == CLI_OK && !help_shown) rc = run(&a);
  free(a.includes.items), free(a.defines.items);
  return rc;
}
