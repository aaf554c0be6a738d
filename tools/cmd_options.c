/* tcmma options: the --gpu-architecture a source needs. */
#include <stdlib.h>
#include <string.h>
#include "cli.h"
#include "cli_input.h"
#include "cli_target.h"
#include "tcmma/tcmma.h"

static const char help[] =
    "usage: tcmma options FILE|- [--cc N] [--target floor|native] [--json]\n\n"
    "Prints the NVRTC architecture option FILE needs, from the markers it carries (each\n"
    "arm's (marker), nvcuda::wmma, cp.async., __half, __nv_bfloat16), the highest floor\n"
    "and the markers found.\n"
    "  --cc N        the device's compute capability (major*10+minor); native without it\n"
    "                asks the CUDA driver for the lowest cc among attached devices\n"
    "  --target T    floor (the lowest arch the markers allow, raised to NVRTC's lowest)\n"
    "                or native (the device's cc, clamped to NVRTC's archs);\n"
    "                default: $TCMMA_PTX_TARGET, else floor\n"
    "  --json        {\"options\": [...], \"floor\": N|null, \"markers\": [...], \"note\": ...,\n"
    "                \"cc\": N|null, \"cc_from_driver\": BOOL}\n";

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
  if (json) {
    json_writer w;
    json_init(&w, stdout);
    json_begin_object(&w);
    json_key(&w, "options"), json_begin_array(&w);
    if (o.option[0]) json_string(&w, o.option);
    json_end_array(&w);
    json_key(&w, "floor");
    if (o.floor) json_int(&w, o.floor);
    else json_null(&w);
    json_key(&w, "markers"), json_begin_array(&w);
    for (size_t i = 0; i < o.n_markers; i++) json_string(&w, o.markers[i].text);
    json_end_array(&w);
    json_key(&w, "note"), json_string(&w, o.note[0] ? o.note : NULL);
    json_key(&w, "cc");
    if (o.cc) json_int(&w, o.cc);
    else json_null(&w);
    json_key(&w, "cc_from_driver"), json_bool(&w, o.cc_from_driver);
    json_end_object(&w);
    json_finish(&w);
    return CLI_OK;
  }
  printf("options: %s\n", o.option[0] ? o.option : "(none: NVRTC's default arch)");
  if (o.floor) printf("floor:   %d\n", o.floor);
  else printf("floor:   none (no marker)\n");
  for (size_t i = 0; i < o.n_markers; i++)
    printf("marker:  %-16s floor %d%s\n", o.markers[i].text, o.markers[i].floor,
           o.markers[i].family ? " (family target)" : "");
  if (o.cc_from_driver) printf("device:  cc %d (the lowest attached device)\n", o.cc);
  if (o.note[0]) printf("note:    %s\n", o.note);
  return CLI_OK;
}
