/* The one way tcmma reads a file a user named (an #include, a library, an
 * input): never a FIFO or device (opened without blocking, refused by fstat),
 * never trusting st_size (read to the end, within a limit), and an error
 * naming the path and why. */
#include "tables/file.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static const char *kind_of(mode_t mode) {
  return S_ISDIR(mode)    ? "a directory"
         : S_ISFIFO(mode) ? "a FIFO"
         : S_ISCHR(mode)  ? "a character device"
         : S_ISBLK(mode)  ? "a block device"
         : S_ISSOCK(mode) ? "a socket"
                          : "not a regular file";
}

int tcmma__table_open_file(const char *path, struct stat *st, char *why, size_t cap) {
  struct stat own;
  if (!st) st = &own;
  if (!path || !*path) {
    snprintf(why, cap, "no file name");
    return -1;
  }
  int fd = open(path, O_RDONLY | O_NONBLOCK | O_NOCTTY | O_CLOEXEC);
  if (fd < 0 || fstat(fd, st) != 0) {
    snprintf(why, cap, "cannot read %.*s: %s", (int)(cap > 96 ? cap - 96 : 0), path,
             strerror(errno));
    if (fd >= 0) close(fd);
    return -1;
  }
  if (!S_ISREG(st->st_mode)) {
    snprintf(why, cap, "%.*s is %s, not a regular file", (int)(cap > 96 ? cap - 96 : 0), path,
             kind_of(st->st_mode));
    close(fd);
    return -1;
  }
  return fd;
}

bool tcmma__table_read_fd(int fd, const char *path, size_t limit, char **data, size_t *len,
                          char *why, size_t cap) {
  int room = (int)(cap > 96 ? cap - 96 : 0);
  struct stat st;
  /* st_size is a hint for the first buffer only */
  size_t size = fstat(fd, &st) == 0 && st.st_size > 0 && (size_t)st.st_size < limit
                    ? (size_t)st.st_size + 1 : 4096;
  size_t got = 0;
  char *buf = malloc(size + 1);
  *data = NULL, *len = 0;
  while (buf) {
    if (got == size) { /* full: grow, unless past the limit */
      if (got > limit) break;
      size_t grown = size * 2 > limit + 1 ? limit + 1 : size * 2;
      if (grown <= size) grown = size + 1;
      char *more = realloc(buf, grown + 1);
      if (!more) {
        free(buf), buf = NULL;
        break;
      }
      buf = more, size = grown;
    }
    ssize_t r = read(fd, buf + got, size - got);
    if (r < 0 && errno == EINTR) continue;
    if (r < 0) {
      snprintf(why, cap, "cannot read %.*s: %s", room, path, strerror(errno));
      free(buf);
      return false;
    }
    if (r == 0) break;
    got += (size_t)r;
  }
  if (!buf) {
    snprintf(why, cap, "no memory to read %.*s", room, path);
    return false;
  }
  if (got > limit) {
    snprintf(why, cap, "%.*s holds more than %zu bytes", room, path, limit);
    free(buf);
    return false;
  }
  buf[got] = '\0';
  *data = buf, *len = got;
  return true;
}

bool tcmma__table_read_file(const char *path, size_t limit, char **data, size_t *len,
                            struct stat *st, char *why, size_t cap) {
  int fd = tcmma__table_open_file(path, st, why, cap);
  if (fd < 0) return false;
  bool ok = tcmma__table_read_fd(fd, path, limit, data, len, why, cap);
  close(fd);
  return ok;
}

bool tcmma__table_regular_file(const char *path, char *why, size_t cap) {
  struct stat st;
  int room = (int)(cap > 96 ? cap - 96 : 0);
  if (!path || stat(path, &st) != 0) {
    snprintf(why, cap, "cannot read %.*s: %s", room, path ? path : "(null)", strerror(errno));
    return false;
  }
  if (S_ISREG(st.st_mode)) return true;
  snprintf(why, cap, "%.*s is %s, not a regular file", room, path, kind_of(st.st_mode));
  return false;
}
