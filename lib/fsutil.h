/* fsutil.h: file-system helpers: directories, whole-file I/O, atomic replacement, the running
 * executable's path (where ferry's own files are is home.h's). */
#ifndef FERRY_FSUTIL_H
#define FERRY_FSUTIL_H

#include <stddef.h>
#include <stdio.h>

#include "buf.h"
#include "err.h"

/* mkdir -p. */
int fs_mkdirs(const char *path, struct err *e);

/* Directories that ferry makes inside one the user named (a wrap directory's tests/XX/ID, a store's
 * STORE.outputs/LABEL/ID, report -o DIR's FRONTEND) may come from someone else, unpacked from an
 * archive with links planted in them: nothing ferry writes there follows a link.
 *
 * A descriptor of the directory path (close it), whose last own components are ferry's: each is made
 * where missing (with make) and opened relative to the one before with O_NOFOLLOW, so a link there is
 * refused (EXIT_INPUT, naming it), never followed; the part before them is the user's (a link there is
 * the user's choice), made with fs_mkdirs where missing. A component "." or ".." is refused too. */
int fs_dir_beneath(const char *path, int own, int make, struct err *e);
/* Write data as the file name (no '/') of the directory dirfd (a descriptor of fs_dir_beneath; shown
 * is the file's path for messages): through a temporary file created there O_EXCL|O_NOFOLLOW and
 * renamed over name, so a reader sees the old file or the new one. A link (or a directory) at name is
 * refused with EXIT_INPUT, naming shown, never followed. */
int fs_write_beneath(int dirfd, const char *name, const char *shown, const void *data, size_t len,
		     struct err *e);
/* Read a whole file into out (appended). */
int fs_read(const char *path, struct buf *out, struct err *e);
/* An output file. A regular file (or a path that does not exist yet) is written through a temporary
 * file beside it and renamed over it on commit, so that readers see the old file or the new one,
 * never half of one, and a failed command leaves the old one alone. Anything else is written in
 * place, since renaming over it would replace it with a regular file: a device (-o /dev/null), a
 * FIFO, a terminal, and the command's own standard output (by "-", /dev/stdout, or any path that
 * names the file standard output already is). A symbolic link is followed: its target is what gets
 * replaced or written, and the link stays. A directory is refused (EXIT_INPUT).
 *
 * fs_output_open(), write to o->fp, then fs_output_commit() (which closes it) or fs_output_abort()
 * (which closes it and removes the temporary file; an in-place write cannot be undone).
 *
 * The temporary file is TARGET.tmp-XXXXXX, held with flock() until its rename; fs_output_open
 * removes the ones beside TARGET that nobody holds: what earlier writers killed before their rename
 * left (o->stale counts them). */
struct fs_output {
	FILE *fp;       /* where to write; stdout for "-" and its equivalents */
	char *path;     /* the path named (owned) */
	char *target;   /* the file to replace when tmp is set: path, or the link's target (owned) */
	char *tmp;      /* the temporary file, or NULL when writing in place (owned) */
	size_t stale;   /* temporary files of killed writers removed by fs_output_open */
};

#define FS_OUTPUT_INIT { NULL, NULL, NULL, NULL, 0 }

int fs_output_open(struct fs_output *o, const char *path, struct err *e);
int fs_output_commit(struct fs_output *o, struct err *e);
/* Close and remove the temporary file; safe on an output that was never opened or is committed. */
void fs_output_abort(struct fs_output *o);
/* Whether o writes in place (a device, a FIFO, standard output): nothing to rename. */
int fs_output_in_place(const struct fs_output *o);

/* Put a finished temporary file tmp at path by the rule above: renamed over a regular file (or a
 * link's regular target, or nothing), copied into anything else, then removed. For a command that
 * wrote its own temporary file. */
int fs_output_place(const char *tmp, const char *path, struct err *e);

/* Write data to path as an fs_output: atomically for a regular file, in place for a device. */
int fs_write_atomic(const char *path, const void *data, size_t len, struct err *e);
int fs_exists(const char *path);
/* Check, before anything is created, that an input file named by the user can be read as one: 0 for
 * "-" (standard input) or an existing file that is not a directory; -1 with EXIT_INPUT when it is
 * missing or a directory (fopen() opens a directory, and reading it fails later as if the disk had). */
int fs_input_file(const char *path, struct err *e);
/* 0 when path is a regular file (after links) or does not exist: what a file that ferry creates and
 * keeps (a results store) may be; otherwise -1 with e filled (EXIT_INPUT), saying that what must be
 * a regular file (what, e.g. "a results store") is not one. */
int fs_regular_or_absent(const char *path, const char *what, struct err *e);
int fs_is_dir(const char *path);
/* rm -rf: path and everything under it, symbolic links removed, never followed. A path that does not
 * exist is fine. */
int fs_remove_tree(const char *path, struct err *e);
/* An absolute version of path (the file need not exist). Caller frees. */
char *fs_abspath(const char *path);
/* The absolute path of the running executable. Caller frees. */
char *fs_self_exe(void);

#endif
