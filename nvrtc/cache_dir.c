/* The disk cache's directory: where it is, and whether it is safe to use.
 * Other local users must not be able to plant entries or read them, so the
 * directory is created 0700, refused when it is not the user's own or is
 * writable by others (whatever symlink leads to it), and used only through
 * one descriptor, so that what was checked is what is used. Its secret (32
 * random bytes, a 0600 file) keys every entry's HMAC: an entry written by
 * anyone without the secret is a miss. */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/random.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>
#include "nvrtc/internal.h"

#define SECRET_FILE "secret"

/* TCMMA_CACHE: unset, empty or "1" is on, "0" is off; -1 for anything else. */
int tcmma__cache_setting(void) {
  const char *v = getenv("TCMMA_CACHE");
  if (!v || !*v || strcmp(v, "1") == 0) return 1;
  return strcmp(v, "0") == 0 ? 0 : -1;
}

int tcmma__cache_path(char *buf, size_t cap) {
  if (tcmma__cache_setting() != 1) return 0;
  const char *dir = getenv("TCMMA_CACHE_DIR"), *xdg = getenv("XDG_CACHE_HOME"),
             *home = getenv("HOME");
  int n;
  if (dir && *dir) n = snprintf(buf, cap, "%s", dir);
  /* the XDG spec: a relative path is invalid and must be ignored */
  else if (xdg && xdg[0] == '/') n = snprintf(buf, cap, "%s/tcmma", xdg);
  else if (home && *home) n = snprintf(buf, cap, "%s/.cache/tcmma", home);
  else return 0;
  if (n < 0) return 0;
  return (size_t)n >= cap ? -n : 1;
}

/* mkdir -p with mode 0700 for every directory it makes (existing ones are
 * left as they are: they are checked, not changed). */
static bool make_dirs(const char *dir) {
  char path[PATH_MAX];
  if (snprintf(path, sizeof path, "%s", dir) >= (int)sizeof path) return false;
  for (char *p = path + 1; *p; p++) {
    if (*p != '/') continue;
    *p = '\0';
    if (mkdir(path, 0700) != 0 && errno != EEXIST) return false;
    *p = '/';
  }
  return mkdir(path, 0700) == 0 || errno == EEXIST;
}

static bool random_bytes(unsigned char *out, size_t n) {
  size_t got = 0;
  while (got < n) {
    ssize_t r = getrandom(out + got, n - got, 0);
    if (r < 0 && errno == EINTR) continue;
    if (r <= 0) return false;
    got += (size_t)r;
  }
  return true;
}

void tcmma__cache_random_hex(char *out, size_t bytes) {
  unsigned char raw[32];
  if (bytes > sizeof raw) bytes = sizeof raw;
  if (!random_bytes(raw, bytes)) { /* unlikely; a clock-and-pid name still differs */
    struct timespec t;
    clock_gettime(CLOCK_REALTIME, &t);
    snprintf(out, 2 * bytes + 1, "%0*lx", (int)(2 * bytes),
             (unsigned long)t.tv_nsec ^ ((unsigned long)getpid() << 20));
    return;
  }
  for (size_t i = 0; i < bytes; i++) snprintf(out + 2 * i, 3, "%02x", raw[i]);
}

/* Reads the secret at dirfd/secret: a private regular file of 32 bytes of
 * the user's own. 1 read, 0 missing, -1 not safe (why set). */
static int read_secret(int dirfd, unsigned char secret[32], char *why, size_t cap) {
  int fd = openat(dirfd, SECRET_FILE, O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC);
  if (fd < 0 && errno == ENOENT) return 0;
  struct stat st;
  if (fd < 0 || fstat(fd, &st) != 0) {
    snprintf(why, cap, "its %s file cannot be read (%s)", SECRET_FILE, strerror(errno));
    if (fd >= 0) close(fd);
    return -1;
  }
  ssize_t got = S_ISREG(st.st_mode) && st.st_uid == geteuid() && !(st.st_mode & 077) &&
                        st.st_size == 32 ? read(fd, secret, 32) : -1;
  close(fd);
  if (got != 32) {
    snprintf(why, cap, "its %s file is not a private 32-byte file of yours", SECRET_FILE);
    return -1;
  }
  return 1;
}

/* Makes the secret: written whole under a temporary name, then linked into
 * place, which fails if another process got there first (its one is read). */
static int make_secret(int dirfd, unsigned char secret[32], char *why, size_t cap) {
  char tmp[64], hex[17];
  tcmma__cache_random_hex(hex, 8);
  snprintf(tmp, sizeof tmp, SECRET_FILE ".tmp.%s", hex);
  if (!random_bytes(secret, 32)) {
    snprintf(why, cap, "no random bytes for its secret (%s)", strerror(errno));
    return -1;
  }
  int fd = openat(dirfd, tmp, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0600);
  bool ok = fd >= 0 && write(fd, secret, 32) == 32;
  if (fd >= 0) ok = close(fd) == 0 && ok;
  if (ok && linkat(dirfd, tmp, dirfd, SECRET_FILE, 0) != 0 && errno != EEXIST) ok = false;
  int saved = errno;
  if (fd >= 0) unlinkat(dirfd, tmp, 0);
  if (!ok) {
    snprintf(why, cap, "cannot write its %s file (%s)", SECRET_FILE, strerror(saved));
    return -1;
  }
  return read_secret(dirfd, secret, why, cap) == 1 ? 1 : -1;
}

/* Whether the directory open at fd (reached through path) is the user's own
 * and writable by no one else. */
static bool vet(const char *path, int fd, char *why, size_t cap) {
  struct stat link, st;
  uid_t me = geteuid();
  if (lstat(path, &link) == 0 && S_ISLNK(link.st_mode) && link.st_uid != me && link.st_uid != 0) {
    snprintf(why, cap, "it is a symlink owned by uid %u, not by you (uid %u)",
             (unsigned)link.st_uid, (unsigned)me);
    return false;
  }
  if (fstat(fd, &st) != 0) {
    snprintf(why, cap, "%s", strerror(errno));
    return false;
  }
  if (st.st_uid != me) {
    snprintf(why, cap, "it is owned by uid %u, not by you (uid %u)", (unsigned)st.st_uid,
             (unsigned)me);
    return false;
  }
  if (st.st_mode & 022) {
    snprintf(why, cap, "it is writable by %s (mode %04o)",
             (st.st_mode & 022) == 022 ? "group and others" : st.st_mode & 002 ? "others" : "its group",
             (unsigned)(st.st_mode & 07777));
    return false;
  }
  return true;
}

int tcmma__cache_open(const char *path, bool create, tcmma__cache_dir *out, char *why,
                      size_t cap) {
  memset(out, 0, sizeof *out);
  out->fd = -1;
  why[0] = '\0';
  if (create && !make_dirs(path)) {
    snprintf(why, cap, "it cannot be created (%s)", strerror(errno));
    return -1;
  }
  int fd = open(path, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
  if (fd < 0) {
    if (!create && (errno == ENOENT || errno == ENOTDIR)) return 0; /* nothing cached yet */
    snprintf(why, cap, "it cannot be opened (%s)", strerror(errno));
    return -1;
  }
  if (!vet(path, fd, why, cap)) {
    close(fd);
    return -1;
  }
  int s = read_secret(fd, out->secret, why, cap);
  if (s == 0 && create) s = make_secret(fd, out->secret, why, cap);
  if (s < 0) {
    close(fd);
    return -1;
  }
  out->fd = fd;
  out->has_secret = s == 1; /* without one nothing can be trusted: every lookup misses */
  return 1;
}

void tcmma__cache_close(tcmma__cache_dir *d) {
  if (d->fd >= 0) close(d->fd);
  memset(d, 0, sizeof *d);
  d->fd = -1;
}
