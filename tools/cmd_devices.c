/* tcmma devices: the attached CUDA devices, through the driver API. */
#include <stdlib.h>
#include "cli.h"
#include "tcmma/tcmma.h"

/* No driver or no device is not a failure of the tool: scripts tell it apart
 * (CLI_UNAVAILABLE). */
static const char help[] =
    "usage: tcmma devices [--json]\n\n"
    "Lists the attached CUDA devices: ordinal, name, compute capability, and the lowest\n"
    "compute capability among them (what a native target compiles for). The driver is\n"
    "libcuda.so.1, or the library named by TCMMA_LIBCUDA.\n\n"
    "--json prints {\"driver_version\", \"devices\": [{\"ordinal\", \"name\", \"cc\"}], \"lowest_cc\"}.\n\n"
    "Exit status: 0 devices listed; 4 no CUDA driver could be loaded, or it reports no\n"
    "device (the reason goes to stderr); 1 the driver failed; 2 usage error.\n";

int cmd_devices(int argc, char **argv) {
  bool json;
  int rc = cli_json_only("devices", help, argc, argv, &json);
  if (rc >= 0) return rc;
  tcmma_error err;
  int version = 0, count = 0, lowest = 0;
  tcmma_status s = tcmma_driver_version(&version, &err);
  if (s == TCMMA_OK) s = tcmma_device_count(&count, &err);
  if (s == TCMMA_OK) s = tcmma_device_lowest_cc(&lowest, &err);
  if (s != TCMMA_OK) {
    cli_fail("devices", "%s", err.message);
    return s == TCMMA_UNAVAILABLE ? CLI_UNAVAILABLE : CLI_FAIL;
  }
  tcmma_device_info *devs = calloc((size_t)count, sizeof *devs);
  if (!devs) return cli_fail("devices", "out of memory");
  for (int i = 0; i < count && s == TCMMA_OK; i++) s = tcmma_device_get(i, &devs[i], &err);
  if (s != TCMMA_OK) {
    free(devs);
    return cli_fail("devices", "%s", err.message);
  }
  if (json) {
    json_writer w;
    json_init(&w, stdout);
    json_begin_object(&w);
    json_key(&w, "driver_version"), json_int(&w, version);
    json_key(&w, "devices"), json_begin_array(&w);
    for (int i = 0; i < count; i++) {
      json_begin_object(&w);
      json_key(&w, "ordinal"), json_int(&w, devs[i].ordinal);
      json_key(&w, "name"), json_string(&w, devs[i].name);
      json_key(&w, "cc"), json_int(&w, devs[i].cc);
      json_end_object(&w);
    }
    json_end_array(&w);
    json_key(&w, "lowest_cc"), json_int(&w, lowest);
    json_end_object(&w);
    json_finish(&w);
  } else {
    printf("CUDA driver %d.%d, %d device(s), lowest compute capability %d.%d\n\n", version / 1000,
           version % 1000 / 10, count, lowest / 10, lowest % 10);
    text_table t;
    table_init(&t, 3);
    table_row(&t, (const char *const[]){"DEVICE", "CC", "NAME"});
    for (int i = 0; i < count; i++) {
      char ord[16], cc[16];
      snprintf(ord, sizeof ord, "%d", devs[i].ordinal);
      snprintf(cc, sizeof cc, "%d.%d", devs[i].cc / 10, devs[i].cc % 10);
      table_row(&t, (const char *const[]){ord, cc, devs[i].name});
    }
    table_print(&t, stdout);
    table_free(&t);
  }
  free(devs);
  return CLI_OK;
}
