/* Host-dialect text as a loaded shared object, for tests that run rendered
 * kernels on the simulator outside the sim executor. */
#include <dlfcn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "util.h"

#ifndef TCMMA_SANFLAGS
#define TCMMA_SANFLAGS ""
#endif

void *host_module_open(const char *text) {
  char src[] = "/tmp/tcmma-module-XXXXXX.c", so[64], cmd[4096];
  int fd = mkstemps(src, 2);
  FILE *f = fd >= 0 ? fdopen(fd, "w") : NULL;
  if (!f) return NULL;
  fputs(text, f);
  fclose(f);
  snprintf(so, sizeof so, "%.*s.so", (int)(strlen(src) - 2), src);
  char root[1024]; /* src_path's buffer is static: one copy */
  snprintf(root, sizeof root, "%s", src_path("."));
  snprintf(cmd, sizeof cmd,
           "${CC:-cc} -std=c11 -Wall -Wshadow -Werror -fno-strict-aliasing -fPIC -shared %s "
           "-I%s/include -I%s -o %s %s 2>&1", TCMMA_SANFLAGS, root, root, so, src);
  int rc = system(cmd);
  unlink(src);
  void *h = rc == 0 ? dlopen(so, RTLD_NOW | RTLD_LOCAL) : NULL;
  unlink(so); /* an open object stays mapped */
  return h;
}

void *host_module_entry(const char *text, const char *name, host_entry_fn *entry) {
  void *h = host_module_open(text);
  if (!h) fail_msg("the host module does not compile:\n%s", text);
  void *sym = dlsym(h, name);
  if (!sym) fail_msg("the host module has no %s", name);
  memcpy(entry, &sym, sizeof sym);
  return h;
}

tcmma_prec test_prec(const char *name) {
  tcmma_prec p = TCMMA_PREC_F32;
  tcmma_error err;
  if (tcmma_prec_parse(name, &p, &err) != TCMMA_OK) fail_msg("%s", err.message);
  return p;
}

char *text_edited(char *text, const char *from, const char *to) {
  char *at = strstr(text, from);
  if (!at) fail_msg("no '%s' in\n%s", from, text);
  size_t n = strlen(text) + strlen(to) + 1;
  char *out = malloc(n);
  if (!out) fail_msg("no memory");
  snprintf(out, n, "%.*s%s%s", (int)(at - text), text, to, at + strlen(from));
  free(text);
  return out;
}
