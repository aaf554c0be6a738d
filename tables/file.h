/* Reading a user-named file safely (tables/file.c): not public. */
#ifndef TCMMA_TABLES_FILE_H
#define TCMMA_TABLES_FILE_H

#include <stdbool.h>
#include <stddef.h>
#include <sys/stat.h>

/* Opens path read-only without blocking or taking a terminal
 * (O_NONBLOCK|O_NOCTTY|O_CLOEXEC) and keeps it only when fstat says it is a
 * regular file (a FIFO, device or directory is refused, never read). The
 * descriptor, *st (may be NULL) its fstat; -1 with why[cap] naming the path
 * and the reason. */
int tcmma__table_open_file(const char *path, struct stat *st, char *why, size_t cap);

/* Reads fd (opened by tcmma__table_open_file; path names it in why) to its
 * end: the size is what reading finds, never st_size (procfs and some FUSE
 * files report 0). *data (malloc'ed, NUL-terminated; it may hold NULs) and
 * *len; false with why[cap] when it cannot be read, or holds more than limit
 * bytes. */
bool tcmma__table_read_fd(int fd, const char *path, size_t limit, char **data, size_t *len,
                          char *why, size_t cap);

/* Both: the regular file at path, whole, at most limit bytes, into *data
 * and *len; *st (may be NULL) its fstat at open. false with why[cap]. */
bool tcmma__table_read_file(const char *path, size_t limit, char **data, size_t *len,
                            struct stat *st, char *why, size_t cap);

/* Whether path names a regular file (a symlink to one counts), for a path
 * handed to something that would open it blocking (dlopen); false with
 * why[cap] naming the path and what it is instead. */
bool tcmma__table_regular_file(const char *path, char *why, size_t cap);

#endif
