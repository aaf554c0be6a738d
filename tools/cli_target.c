/* The --target option of the options and compile commands. */
#include "cli_target.h"

bool cli_target_option(const char *cmd, const char *text, tcmma_target *out) {
  tcmma_error err;
  if (tcmma_target_parse(text, out, &err) == TCMMA_OK) return true;
  cli_usage(cmd, "--target: %s", err.message);
  return false;
}
