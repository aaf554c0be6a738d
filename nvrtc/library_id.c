/* The identity of a shared library file, for the cache key: the exact NVRTC
 * build must be part of it (nvrtcVersion says only major.minor). Read from
 * the file, not from a loaded copy, so that it can be known before loading. */
#include <fcntl.h>
#include <limits.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include "nvrtc/internal.h"
#include "tables/file.h"

#define PHDRS_MAX 64
#define NOTE_BYTES_MAX 4096

static uint64_t le(const unsigned char *p, int n) {
  uint64_t v = 0;
  for (int i = n - 1; i >= 0; i--) v = v << 8 | p[i];
  return v;
}

/* The GNU build-id note of a 64-bit little-endian ELF file, as hex into
 * out[cap] (at least 2 * 20 + 1); false when it has none. */
static bool build_id(int fd, char *out, size_t cap) {
  /* the header and, in every library seen, the program headers: one read */
  unsigned char head[64 + PHDRS_MAX * 56];
  ssize_t got = pread(fd, head, sizeof head, 0);
  if (got < 64 || memcmp(head, "\177ELF", 4) != 0 || head[4] != 2 || head[5] != 1) return false;
  uint64_t phoff = le(head + 32, 8);
  unsigned phentsize = (unsigned)le(head + 54, 2), phnum = (unsigned)le(head + 56, 2);
  if (phentsize != 56 || phnum > PHDRS_MAX || phoff > (uint64_t)1 << 40) return false;
  for (unsigned i = 0; i < phnum; i++) {
    unsigned char ph[56], note[NOTE_BYTES_MAX];
    uint64_t at_ph = phoff + (uint64_t)i * 56;
    if (at_ph + 56 <= (uint64_t)got) memcpy(ph, head + at_ph, 56);
    else if (pread(fd, ph, sizeof ph, (off_t)at_ph) != (ssize_t)sizeof ph) continue;
    if (le(ph, 4) != 4 /* PT_NOTE */) continue;
    uint64_t off = le(ph + 8, 8), size = le(ph + 32, 8);
    if (size > sizeof note || off > (uint64_t)1 << 40 ||
        pread(fd, note, (size_t)size, (off_t)off) != (ssize_t)size)
      continue;
    for (uint64_t at = 0; at + 12 <= size;) {
      uint64_t namesz = le(note + at, 4), descsz = le(note + at + 4, 4), type = le(note + at + 8, 4);
      uint64_t name_at = at + 12, desc_at = name_at + ((namesz + 3) & ~(uint64_t)3);
      uint64_t next = desc_at + ((descsz + 3) & ~(uint64_t)3);
      if (next > size || next <= at) break;
      if (type == 3 /* NT_GNU_BUILD_ID */ && namesz == 4 && memcmp(note + name_at, "GNU", 4) == 0 &&
          descsz > 0 && 2 * descsz < cap) {
        for (uint64_t j = 0; j < descsz; j++)
          snprintf(out + 2 * j, 3, "%02x", note[desc_at + j]);
        return true;
      }
      at = next;
    }
  }
  return false;
}

bool tcmma__nvrtc_resolved_library_identity(const char *real, char *out, size_t cap) {
  char id[2 * 64 + 1] = "none", why[PATH_MAX + 128];
  struct stat st;
  int fd = real ? tcmma__table_open_file(real, &st, why, sizeof why) : -1; /* never a FIFO */
  if (fd < 0) return false;
  if (!build_id(fd, id, sizeof id)) snprintf(id, sizeof id, "none");
  close(fd);
  int w = snprintf(out, cap, "%s build-id %s size %lld mtime %lld.%09ld inode %llu", real, id,
                   (long long)st.st_size, (long long)st.st_mtim.tv_sec, st.st_mtim.tv_nsec,
                   (unsigned long long)st.st_ino);
  return w > 0 && (size_t)w < cap;
}

bool tcmma__nvrtc_library_identity(const char *path, char *out, size_t cap) {
  char real[PATH_MAX];
  return path && realpath(path, real) && tcmma__nvrtc_resolved_library_identity(real, out, cap);
}
