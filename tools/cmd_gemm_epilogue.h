/* tcmma gemm's epilogue options (tools/cmd_gemm_epilogue.c): --epilogue
 * LIST, --epilogue-hook BODY and --epilogue-hook-file FILE, and the list in
 * JSON. */
#ifndef TCMMA_TOOLS_CMD_GEMM_EPILOGUE_H
#define TCMMA_TOOLS_CMD_GEMM_EPILOGUE_H

#include <stdbool.h>
#include "tcmma/tcmma.h"
#include "tools/cli.h"

typedef struct {
  const char *list; /* --epilogue, NULL when not given */
  const char *hook; /* --epilogue-hook */
  const char *hook_file; /* --epilogue-hook-file */
  char *hook_text; /* the file's text (malloc'ed) */
  tcmma_epilogue_op ops[TCMMA_EPILOGUE_OPS_MAX];
  int count;
} cli_epilogue;

/* Takes option a with value v when it is one of the three: 1 taken, 0 not
 * this file's option. */
int cli_epilogue_option(cli_epilogue *e, const char *a, const char *v);

/* Parses e->list into e->ops (names, arguments, the hook's body): true, or
 * false after a usage message naming the bad item and what was expected. */
bool cli_epilogue_parse(cli_epilogue *e);

/* The list as a JSON array of {"op", and its argument} objects. */
void cli_epilogue_json(const cli_epilogue *e, json_writer *w);

void cli_epilogue_free(cli_epilogue *e);

/* A finite decimal number a float holds (--alpha, --beta, clamp's bounds);
 * false after a usage message of tcmma gemm naming what and text. */
bool cli_finite_float(const char *what, const char *text, double *out);

#endif
