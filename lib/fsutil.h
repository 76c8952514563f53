/* fsutil.h: file-system helpers: directories, whole-file I/O, atomic replacement, and where ferry's
 * own Python code lives (installed, or the source tree when run from the build tree). */
#ifndef FERRY_FSUTIL_H
#define FERRY_FSUTIL_H

#include <stddef.h>

#include "buf.h"
#include "err.h"

/* mkdir -p. */
int fs_mkdirs(const char *path, struct err *e);
/* Read a whole file into out (appended). */
int fs_read(const char *path, struct buf *out, struct err *e);
/* Write data to path through a temporary file in the same directory and rename(), so readers see the
 * old file or the new one, never half of one. */
int fs_write_atomic(const char *path, const void *data, size_t len, struct err *e);
int fs_exists(const char *path);
int fs_is_dir(const char *path);
/* An absolute version of path (the file need not exist). Caller frees. */
char *fs_abspath(const char *path);
/* The directory holding ferry's Python code: $FERRY_PYDIR, else the source tree when this binary
 * runs from its build tree, else PKGDATADIR/python. Caller frees. */
char *fs_python_dir(void);
/* The absolute path of the running executable. Caller frees. */
char *fs_self_exe(void);

#endif
