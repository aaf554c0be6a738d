/* A document's C example, built as a program against the library the
 * tests run (the README's, docs/emit.md's): what the docs show is what
 * builds. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "util.h"

#ifndef TCMMA_SANFLAGS
#define TCMMA_SANFLAGS ""
#endif

char *doc_example_build(const char *doc, const char *heading, char *dir, size_t cap) {
  char *text = read_file(src_path(doc), NULL);
  const char *sec = text ? strstr(text, heading) : NULL;
  const char *code = sec ? strstr(sec, "```c\n") : NULL;
  const char *end = code ? strstr(code + 5, "```\n") : NULL;
  char tmpl[] = "/tmp/tcmma-example-XXXXXX";
  if (!end || !mkdtemp(tmpl)) {
    fprintf(stderr, "%s: no C example after '%s'\n", doc, heading);
    free(text);
    return NULL;
  }
  code += 5;
  snprintf(dir, cap, "%s", tmpl);
  char path[256], cmd[8192];
  snprintf(path, sizeof path, "%s/example.c", dir);
  FILE *f = fopen(path, "w");
  if (f) fwrite(code, 1, (size_t)(end - code), f), fclose(f);
  free(text);
  /* the sanitizers the library was built with (the environment's, else
   * this build's own) */
  const char *build = getenv("TCMMA_BUILD"), *san = getenv("TCMMA_SANFLAGS");
  if (!san) san = TCMMA_SANFLAGS;
  const char *cc = getenv("CC");
  char inc[1024], root[1024], lib[1024]; /* src_path returns one static buffer */
  snprintf(inc, sizeof inc, "%s", src_path("include"));
  snprintf(root, sizeof root, "%s", src_path("."));
  snprintf(lib, sizeof lib, "%s", build && *build ? build : src_path("build"));
  snprintf(cmd, sizeof cmd,
           "%s -std=c11 -Wall -Wextra -Werror %s -I%s -I%s %s %s/libtcmma.a -ldl -lpthread -lm "
           "-o %s/example 2>&1", cc && *cc ? cc : "cc", san ? san : "", inc, root, path, lib, dir);
  if (!f || system(cmd) != 0) {
    fprintf(stderr, "%s: the example after '%s' does not build: %s\n", doc, heading, cmd);
    return NULL;
  }
  char *exe = malloc(strlen(dir) + 16);
  if (exe) sprintf(exe, "%s/example", dir);
  return exe;
}

void doc_example_remove(const char *dir) {
  char cmd[512];
  snprintf(cmd, sizeof cmd, "rm -rf '%s'", dir);
  if (system(cmd) != 0) fprintf(stderr, "could not remove %s\n", dir);
}
