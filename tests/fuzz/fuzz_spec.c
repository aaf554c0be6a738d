/* libFuzzer target: the CLI's text forms (tools/cli_parse.c): operand
 * SPECs, compute capabilities, the one number parser, and the names the
 * options take (precisions, arms, scopes, policies, operands). */
#include <limits.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "cli_parse.h"
#include "tables/decimal.h"
#include "tcmma/tcmma.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  char *text = malloc(size + 1);
  if (!text) return 0;
  memcpy(text, data, size);
  text[size] = '\0';
  tcmma_error err;
  tcmma_operand_desc d;
  cli_parse_operand_spec(text, &d, &err);
  int cc;
  cli_parse_cc(text, &cc, &err);
  long long v;
  tcmma__table_decimal(text, LLONG_MIN, LLONG_MAX, &v);
  tcmma__table_decimal(text, 1, 1000, &v);
  tcmma_prec p;
  tcmma_prec_parse(text, &p, &err);
  tcmma_arm arm;
  tcmma_arm_parse(text, &arm, &err);
  tcmma_scope scope;
  tcmma_scope_parse(text, &scope, &err);
  tcmma_fp16_mode fp16;
  tcmma_fp16_mode_parse(text, &fp16, &err);
  tcmma_prefer prefer;
  tcmma_prefer_parse(text, &prefer, &err);
  tcmma_operand op;
  tcmma_operand_parse(text, &op, &err);
  free(text);
  return 0;
}
