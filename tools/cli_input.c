/* Input for CLI commands, from a path or standard input: whole files, or a
 * stream a chunk at a time (cli_stream_*: `tcmma ptx`, which parses as the
 * text arrives, nvrtc/ptx/stream.c). A
 * regular file is read whole at the size fstat gives, anything else chunk by
 * chunk as bytes arrive; nothing is mapped (a mapped file truncated while it
 * is read kills the process with SIGBUS): every input a
 * command takes is text, so a NUL byte ends it as "not text" at once (binary
 * files, /dev/zero, a pipe that stays open) instead of after the whole
 * input. */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>
#include "cli.h"
#include "cli_input.h"
#include "tables/file.h"

/* Room for cap bytes of a regular file's text. A large file's (2 MiB or
 * more) is 2 MiB-aligned and marked for huge pages: read into fresh 4 KiB
 * pages, a 64 MB module cost 16k page faults, as long as parsing it (perf);
 * the mark is a hint (ignored where transparent huge pages are off). It is
 * freed with free(), as any. */
static char *input_room(size_t cap) {
  enum { HUGE = 2u << 20 };
  if (cap < HUGE) return malloc(cap);
  void *p = NULL;
  if (posix_memalign(&p, HUGE, cap) != 0) return NULL;
#ifdef MADV_HUGEPAGE
  madvise(p, cap & ~(size_t)(HUGE - 1), MADV_HUGEPAGE);
#endif
  return p;
}

/* The input's name in messages: quoted, so an empty or odd path shows. */
static void name_of(const char *path, char *buf, size_t cap) {
  if (strcmp(path, "-") == 0) snprintf(buf, cap, "standard input");
  else snprintf(buf, cap, "'%s'", path);
}

/* path opened for reading, its name for messages in what; -1 after a
 * message. A named input is a regular file only (tables/file.h), never a
 * FIFO or a device that would block or never end; standard input streams. */
static int open_input(const char *cmd, const char *path, char *what, size_t cap) {
  name_of(path, what, cap);
  if (strcmp(path, "-") == 0) return 0;
  char why[512] = "";
  int fd = tcmma__table_open_file(path, NULL, why, sizeof why);
  if (fd < 0) {
    struct stat at;
    if (stat(path, &at) != 0) cli_fail(cmd, "cannot read %s: %s", what, strerror(errno));
    else cli_fail(cmd, "cannot read %s: %s", what, why); /* there, but no regular file */
  }
  return fd;
}

bool cli_stream_open(const char *cmd, const char *path, cli_stream *in) {
  *in = (cli_stream){.cmd = cmd, .is_stdin = strcmp(path, "-") == 0};
  return (in->fd = open_input(cmd, path, in->what, sizeof in->what)) >= 0;
}

long cli_stream_read(void *ctx, char *buf, size_t cap) {
  cli_stream *in = ctx;
  ssize_t got;
  while ((got = read(in->fd, buf, cap)) < 0 && errno == EINTR) continue;
  const char *nul = got > 0 ? memchr(buf, '\0', (size_t)got) : NULL;
  if (got < 0) cli_fail(in->cmd, "cannot read %s: %s", in->what, strerror(errno));
  else if (nul)
    cli_fail(in->cmd, "%s: not text: a NUL byte at offset %zu (binary input?)", in->what,
             in->total + (size_t)(nul - buf));
  else if ((in->total += (size_t)got) > CLI_INPUT_MAX) /* an endless stream of text ends here */
    cli_fail(in->cmd, "cannot read %s: larger than %d MiB", in->what, CLI_INPUT_MAX >> 20);
  else
    return (long)got;
  in->failed = true;
  return -1;
}

void cli_stream_close(cli_stream *in) {
  if (!in->is_stdin && in->fd >= 0) close(in->fd);
  in->fd = -1;
}

char *cli_read_input(const char *cmd, const char *path, size_t *len) {
  bool is_stdin = strcmp(path, "-") == 0;
  char what[512];
  int fd = open_input(cmd, path, what, sizeof what);
  if (fd < 0) return NULL;
  /* a regular file: room for all of it, so one read takes it */
  struct stat st;
  size_t cap = 1 << 16, n = 0;
  if (fstat(fd, &st) == 0 && S_ISREG(st.st_mode) && st.st_size > 0 &&
      (unsigned long long)st.st_size < CLI_INPUT_MAX)
    cap = (size_t)st.st_size + 2; /* + the NUL, + 1 to see the end in one more read */
  char *buf = input_room(cap);
  const char *problem = buf ? NULL : "out of memory";
  const char *nul = NULL;
  int saved = 0;
  while (!problem) {
    ssize_t got = read(fd, buf + n, cap - n - 1);
    if (got < 0 && errno == EINTR) continue;
    if (got < 0) {
      saved = errno;
      problem = "read error";
      break;
    }
    if (got == 0) break;
    if ((nul = memchr(buf + n, '\0', (size_t)got))) break;
    n += (size_t)got;
    if (n > CLI_INPUT_MAX) { /* an endless stream of text ends here */
      problem = "too big";
      break;
    }
    if (cap - n < 2) {
      char *grown = realloc(buf, cap * 2);
      if (!grown) problem = "out of memory";
      else buf = grown, cap *= 2;
    }
  }
  if (!is_stdin) close(fd);
  if (nul)
    cli_fail(cmd, "%s: not text: a NUL byte at offset %zu (binary input?)", what,
             (size_t)(nul - buf));
  else if (problem && saved)
    cli_fail(cmd, "cannot read %s: %s", what, strerror(saved));
  else if (problem && strcmp(problem, "too big") == 0)
    cli_fail(cmd, "cannot read %s: larger than %d MiB", what, CLI_INPUT_MAX >> 20);
  else if (problem)
    cli_fail(cmd, "cannot read %s: %s", what, problem);
  if (nul || problem) {
    free(buf);
    return NULL;
  }
  buf[n] = '\0';
  *len = n;
  return buf;
}
