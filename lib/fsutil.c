/* fsutil.c: file-system helpers. */
#define _XOPEN_SOURCE 700 /* nftw */
#include "fsutil.h"
#include "xalloc.h"

#include <ctype.h>
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <ftw.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

int fs_mkdirs(const char *path, struct err *e)
{
	char *p = xstrdup(path);
	int r = 0;

	for (char *s = p + 1; ; s++) {
		if (*s != '/' && *s)
			continue;
		char saved = *s;

		*s = '\0';
		if (mkdir(p, 0777) < 0 && errno != EEXIST) {
			r = err_errno(e, EXIT_ENV, "cannot create directory '%s'", p);
			break;
		}
		*s = saved;
		if (!saved)
			break;
	}
	if (!r && !fs_is_dir(path))
		r = err_set(e, EXIT_INPUT, "cannot create directory '%s': a file of that name exists", path);
	free(p);
	return r;
}

/* Why a component of ferry's own that open(O_NOFOLLOW) refused cannot be used: -1 with e filled. */
static int refused(int dirfd, const char *name, const char *shown, int err, struct err *e)
{
	struct stat st;

	if (fstatat(dirfd, name, &st, AT_SYMLINK_NOFOLLOW) == 0 && S_ISLNK(st.st_mode))
		return err_set(e, EXIT_INPUT, "'%s' is a symbolic link: ferry follows no link inside a directory "
			       "of its own (remove it)", shown);
	errno = err;
	if (err == ENOTDIR)
		return err_set(e, EXIT_INPUT, "'%s' is not a directory", shown);
	return err_errno(e, err == ENOENT ? EXIT_INPUT : EXIT_ENV, "cannot open '%s'", shown);
}

int fs_dir_beneath(const char *path, int own, int make, struct err *e)
{
	char *p = xstrdup(path), *base, *rest = NULL;
	size_t n = strlen(p);
	int fd = -1, next;

	while (n > 1 && p[n - 1] == '/')
		p[--n] = '\0';
	/* The start of the last own components: the rest before it is the user's. */
	if (own > 0) {
		char *s = p + n;
		int k = 0;

		while (s > p && k < own) {
			while (s > p && s[-1] != '/')
				s--;
			if (++k < own)
				while (s > p && s[-1] == '/')
					s--;
		}
		rest = s;
	}
	if (rest && rest > p) {
		rest[-1] = '\0';
		base = *p ? p : "/";
	} else {
		base = rest ? (p[0] == '/' ? "/" : ".") : p;
	}
	if (make && strcmp(base, ".") && strcmp(base, "/") && !fs_is_dir(base) && fs_mkdirs(base, e) < 0)
		goto fail;
	if ((fd = open(base, O_RDONLY | O_DIRECTORY | O_CLOEXEC)) < 0) {
		err_errno(e, errno == ENOENT || errno == ENOTDIR ? EXIT_INPUT : EXIT_ENV, "cannot open directory '%s'",
			  base);
		goto fail;
	}
	for (char *save = NULL, *c = rest ? strtok_r(rest, "/", &save) : NULL; c; c = strtok_r(NULL, "/", &save)) {
		char *shown = xasprintf("%.*s", (int)(c + strlen(c) - p), path);

		if (!strcmp(c, ".") || !strcmp(c, "..")) {
			err_set(e, EXIT_INPUT, "'%s': ferry names no directory of its own '%s'", shown, c);
			free(shown);
			goto fail;
		}
		if (make && mkdirat(fd, c, 0777) < 0 && errno != EEXIST) {
			err_errno(e, EXIT_ENV, "cannot create directory '%s'", shown);
			free(shown);
			goto fail;
		}
		next = openat(fd, c, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
		if (next < 0) {
			refused(fd, c, shown, errno, e);
			free(shown);
			goto fail;
		}
		free(shown);
		close(fd);
		fd = next;
	}
	free(p);
	return fd;
fail:
	if (fd >= 0)
		close(fd);
	free(p);
	return -1;
}

int fs_write_beneath(int dirfd, const char *name, const char *shown, const void *data, size_t len,
		     struct err *e)
{
	static const char chars[] = "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789";
	static unsigned long counter;
	struct stat st;
	mode_t mode;
	char *tmp = NULL;
	const char *p = data;
	int fd = -1, r = -1;

	if (strchr(name, '/') || !strcmp(name, ".") || !strcmp(name, ".."))
		return err_set(e, EXIT_INPUT, "'%s': not a file name", shown);
	if (fstatat(dirfd, name, &st, AT_SYMLINK_NOFOLLOW) == 0) {
		if (S_ISLNK(st.st_mode))
			return err_set(e, EXIT_INPUT, "'%s' is a symbolic link: ferry writes no file through a link "
				       "inside a directory of its own (remove it)", shown);
		if (S_ISDIR(st.st_mode))
			return err_set(e, EXIT_INPUT, "cannot write '%s': it is a directory", shown);
		mode = st.st_mode & 07777;
	} else {
		mode_t mask = umask(0);

		umask(mask);
		mode = 0666 & ~mask;
	}
	/* name.tmp-XXXXXX, as fs_output names its temporary files; O_EXCL: a file that is there (a link
	 * planted under such a name included) is never opened, another name is tried. */
	for (int tries = 0; fd < 0 && tries < 100; tries++) {
		unsigned long v = (unsigned long)getpid() * 2654435761UL ^ (unsigned long)time(NULL) ^
				  ++counter * 40503UL;
		char suffix[7];

		for (int i = 0; i < 6; i++, v /= sizeof(chars) - 1)
			suffix[i] = chars[v % (sizeof(chars) - 1)];
		suffix[6] = '\0';
		free(tmp);
		tmp = xasprintf("%s.tmp-%s", name, suffix);
		fd = openat(dirfd, tmp, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0600);
		if (fd < 0 && errno != EEXIST) {
			err_errno(e, EXIT_ENV, "cannot create '%s'", shown);
			goto out;
		}
	}
	if (fd < 0) {
		err_set(e, EXIT_ENV, "cannot create '%s': no free temporary name", shown);
		goto out;
	}
	fchmod(fd, mode);
	while (len) {
		ssize_t w = write(fd, p, len);

		if (w < 0 && errno == EINTR)
			continue;
		if (w <= 0) {
			err_errno(e, EXIT_ENV, "cannot write '%s'", shown);
			goto out;
		}
		p += w;
		len -= (size_t)w;
	}
	if (close(fd) < 0) {
		fd = -1;
		err_errno(e, EXIT_ENV, "cannot write '%s'", shown);
		goto out;
	}
	fd = -1;
	/* renameat replaces what is at name, a link put there meanwhile included, and follows nothing. */
	if (renameat(dirfd, tmp, dirfd, name) < 0) {
		err_errno(e, EXIT_ENV, "cannot replace '%s'", shown);
		goto out;
	}
	free(tmp);
	tmp = NULL;
	r = 0;
out:
	if (fd >= 0)
		close(fd);
	if (tmp)
		unlinkat(dirfd, tmp, 0);
	free(tmp);
	return r;
}

int fs_read(const char *path, struct buf *out, struct err *e)
{
	char chunk[65536];
	FILE *fp = fopen(path, "rb");
	size_t n;
	int r = 0;

	if (!fp)
		return err_errno(e, errno == ENOENT ? EXIT_INPUT : EXIT_ENV, "cannot open '%s'", path);
	while ((n = fread(chunk, 1, sizeof(chunk), fp)) > 0)
		buf_add(out, chunk, n);
	if (ferror(fp))
		r = err_errno(e, EXIT_ENV, "cannot read '%s'", path);
	fclose(fp);
	return r;
}

/* What an output path names, and so how it is written. */
enum out_kind {
	OUT_NEW,        /* nothing yet: a temporary file renamed into place */
	OUT_REGULAR,    /* a regular file (maybe through links): the same, over the link's target */
	OUT_STDOUT,     /* the file that standard output already is */
	OUT_IN_PLACE,   /* a device, a FIFO, a socket: opened and written as it is */
	OUT_DANGLING,   /* a link to nothing: created through the link, like a shell's > does */
};

static enum out_kind out_classify(const char *path, char **target, struct err *e)
{
	struct stat st, lst, out;

	*target = NULL;
	if (!strcmp(path, "-"))
		return OUT_STDOUT;
	if (stat(path, &st) < 0) {
		if (errno == ENOENT && lstat(path, &lst) == 0 && S_ISLNK(lst.st_mode))
			return OUT_DANGLING;
		/* Nothing there (or a path that cannot be looked at, which creating the file will report). */
		*target = xstrdup(path);
		return OUT_NEW;
	}
	/* /dev/stdout, /dev/fd/1, or the very file the shell redirected stdout to: replacing that file
	 * would leave the shell's descriptor on an unlinked inode, and the output would be lost. */
	if (fstat(STDOUT_FILENO, &out) == 0 && st.st_dev == out.st_dev && st.st_ino == out.st_ino)
		return OUT_STDOUT;
	if (S_ISDIR(st.st_mode)) {
		err_set(e, EXIT_INPUT, "cannot write '%s': it is a directory", path);
		return -1;
	}
	if (!S_ISREG(st.st_mode))
		return OUT_IN_PLACE;
	/* Rename over a link would replace the link; the file it points to is what the user meant. */
	if (lstat(path, &lst) == 0 && S_ISLNK(lst.st_mode) && (*target = realpath(path, NULL)))
		return OUT_REGULAR;
	*target = xstrdup(path);
	return OUT_REGULAR;
}

/* The permissions a new file gets: the existing file's, else what open(0666) would give. */
static mode_t new_mode(const char *target)
{
	struct stat st;
	mode_t mask;

	if (stat(target, &st) == 0)
		return st.st_mode & 07777;
	mask = umask(0);
	umask(mask);
	return 0666 & ~mask;
}

/* Whether name is one of fs_output_open's temporary files for the file named base: "BASE.tmp-"
 * and mkstemp's six letters and digits. */
static int is_tmp_of(const char *name, const char *base)
{
	size_t n = strlen(base);

	if (strncmp(name, base, n) || strncmp(name + n, ".tmp-", 5))
		return 0;
	name += n + 5;
	for (int i = 0; i < 6; i++)
		if (!isalnum((unsigned char)name[i]))
			return 0;
	return name[6] == '\0';
}

/* Remove the temporary files that earlier writers of target, killed before their rename, left
 * beside it (a killed ferry generate leaves tens of megabytes each time): those that no live writer
 * holds. A writer holds flock() on its temporary file from its creation until its rename, and the
 * kernel lets go of it when the writer dies, whatever killed it; a file of ferry's pattern that
 * nobody holds is a dead writer's. How many were removed. */
static size_t remove_stale(const char *target)
{
	char *dir = xstrdup(target), *slash = strrchr(dir, '/');
	const char *base = target, *at = ".";
	struct dirent *de;
	size_t removed = 0;
	DIR *d;

	if (slash) {
		*slash = '\0';
		base = slash + 1;
		at = *dir ? dir : "/";
	}
	if (!(d = opendir(at))) {
		free(dir);
		return 0;
	}
	while ((de = readdir(d))) {
		struct stat st;
		int fd;

		if (!is_tmp_of(de->d_name, base))
			continue;
		fd = openat(dirfd(d), de->d_name, O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_NOCTTY | O_CLOEXEC);
		if (fd < 0)
			continue;
		if (fstat(fd, &st) == 0 && S_ISREG(st.st_mode) && flock(fd, LOCK_EX | LOCK_NB) == 0 &&
		    unlinkat(dirfd(d), de->d_name, 0) == 0)
			removed++;
		close(fd);
	}
	closedir(d);
	free(dir);
	return removed;
}

int fs_output_open(struct fs_output *o, const char *path, struct err *e)
{
	enum out_kind k;
	int fd = -1;

	o->fp = NULL;
	o->path = xstrdup(path);
	o->target = o->tmp = NULL;
	o->stale = 0;
	k = out_classify(path, &o->target, e);
	switch ((int)k) {
	case -1:
		goto fail;
	case OUT_STDOUT:
		o->fp = stdout;
		return 0;
	case OUT_IN_PLACE:
	case OUT_DANGLING:
		/* No O_TRUNC on a device: /dev/null needs none, and a FIFO or terminal has nothing to cut. */
		fd = open(path, O_WRONLY | O_NOCTTY | O_CLOEXEC | (k == OUT_DANGLING ? O_CREAT | O_TRUNC : 0), 0666);
		if (fd < 0) {
			err_errno(e, EXIT_ENV, "cannot open '%s'", path);
			goto fail;
		}
		break;
	default:
		o->stale = remove_stale(o->target);
		for (;;) {
			struct stat st;

			o->tmp = xasprintf("%s.tmp-XXXXXX", o->target);
			if ((fd = mkstemp(o->tmp)) < 0) {
				err_errno(e, EXIT_ENV, "cannot create '%s'", path);
				free(o->tmp);
				o->tmp = NULL;
				goto fail;
			}
			/* Held until the rename, so that no later writer takes it for a dead one's. One that
			 * did between mkstemp and here has removed it: another is made. (Without flock, as
			 * on a file system that has none, nobody removes anything.) */
			if (flock(fd, LOCK_EX) < 0 || (fstat(fd, &st) == 0 && st.st_nlink > 0))
				break;
			close(fd);
			free(o->tmp);
			o->tmp = NULL;
		}
		fchmod(fd, new_mode(o->target));
		break;
	}
	if (!(o->fp = fdopen(fd, "w"))) {
		err_errno(e, EXIT_ENV, "cannot write '%s'", path);
		close(fd);
		goto fail;
	}
	return 0;
fail:
	fs_output_abort(o);
	return -1;
}

int fs_output_in_place(const struct fs_output *o)
{
	return !o->tmp;
}

int fs_output_commit(struct fs_output *o, struct err *e)
{
	int r = -1;

	if (o->fp == stdout) {
		o->fp = NULL;
		if (fflush(stdout) != 0 || ferror(stdout)) {
			if (!strcmp(o->path, "-"))
				err_errno(e, EXIT_ENV, "cannot write to standard output");
			else
				err_errno(e, EXIT_ENV, "cannot write '%s'", o->path);
			goto out;
		}
		r = 0;
		goto out;
	}
	if (!o->fp) {
		err_set(e, EXIT_ENV, "cannot write '%s': not open", o->path);
		goto out;
	}
	/* Renamed before it is closed: closing lets go of its lock (fs_output_open), after which
	 * another writer of the same name would take it for a dead writer's and remove it. */
	if ((fflush(o->fp) != 0) | ferror(o->fp)) {
		err_errno(e, EXIT_ENV, "cannot write '%s'", o->path);
		goto out;
	}
	if (o->tmp && rename(o->tmp, o->target) < 0) {
		err_errno(e, EXIT_ENV, "cannot replace '%s'", o->path);
		goto out;
	}
	free(o->tmp);
	o->tmp = NULL;
	if (fclose(o->fp) != 0) {
		o->fp = NULL;
		err_errno(e, EXIT_ENV, "cannot write '%s'", o->path);
		goto out;
	}
	o->fp = NULL;
	r = 0;
out:
	fs_output_abort(o);
	return r;
}

void fs_output_abort(struct fs_output *o)
{
	if (o->fp && o->fp != stdout)
		fclose(o->fp);
	if (o->tmp)
		unlink(o->tmp);
	free(o->path);
	free(o->target);
	free(o->tmp);
	o->fp = NULL;
	o->path = o->target = o->tmp = NULL;
}

/* Copy the file at from into fp. */
static int copy_into(const char *from, FILE *fp, const char *to, struct err *e)
{
	char chunk[65536];
	FILE *in = fopen(from, "rb");
	size_t n;
	int r = 0;

	if (!in)
		return err_errno(e, EXIT_ENV, "cannot read '%s'", from);
	while ((n = fread(chunk, 1, sizeof(chunk), in)) > 0)
		if (fwrite(chunk, 1, n, fp) != n) {
			r = err_errno(e, EXIT_ENV, "cannot write '%s'", to);
			break;
		}
	if (!r && ferror(in))
		r = err_errno(e, EXIT_ENV, "cannot read '%s'", from);
	fclose(in);
	return r;
}

int fs_output_place(const char *tmp, const char *path, struct err *e)
{
	struct fs_output o = FS_OUTPUT_INIT;
	char *target = NULL;
	enum out_kind k = out_classify(path, &target, e);
	int r = -1;

	if ((int)k == -1)
		goto out;
	if (k == OUT_NEW || k == OUT_REGULAR) {
		if (rename(tmp, target) < 0) {
			err_errno(e, EXIT_ENV, "cannot replace '%s'", path);
			goto out;
		}
		r = 0;
		goto out;
	}
	if (fs_output_open(&o, path, e) < 0)
		goto out;
	if (copy_into(tmp, o.fp, path, e) < 0) {
		fs_output_abort(&o);
		goto out;
	}
	if (fs_output_commit(&o, e) < 0)
		goto out;
	unlink(tmp);
	r = 0;
out:
	free(target);
	return r;
}

int fs_write_atomic(const char *path, const void *data, size_t len, struct err *e)
{
	struct fs_output o = FS_OUTPUT_INIT;

	if (fs_output_open(&o, path, e) < 0)
		return -1;
	if (len && fwrite(data, 1, len, o.fp) != len) {
		err_errno(e, EXIT_ENV, "cannot write '%s'", path);
		fs_output_abort(&o);
		return -1;
	}
	return fs_output_commit(&o, e);
}

int fs_input_file(const char *path, struct err *e)
{
	struct stat st;

	if (!strcmp(path, "-"))
		return 0;
	if (stat(path, &st) < 0)
		return err_errno(e, errno == ENOENT || errno == ENOTDIR ? EXIT_INPUT : EXIT_ENV, "cannot open '%s'",
			path);
	if (S_ISDIR(st.st_mode))
		return err_set(e, EXIT_INPUT, "cannot read '%s': it is a directory", path);
	return 0;
}

int fs_regular_or_absent(const char *path, const char *what, struct err *e)
{
	struct stat st;
	const char *kind;

	if (stat(path, &st) < 0 || S_ISREG(st.st_mode))
		return 0;
	if (S_ISDIR(st.st_mode))
		kind = "a directory";
	else if (S_ISCHR(st.st_mode) || S_ISBLK(st.st_mode))
		kind = "a device";
	else if (S_ISFIFO(st.st_mode))
		kind = "a FIFO";
	else
		kind = "not a regular file";
	return err_set(e, EXIT_INPUT, "'%s' is %s: %s must be a regular file", path, kind, what);
}

int fs_exists(const char *path)
{
	return access(path, F_OK) == 0;
}

int fs_is_dir(const char *path)
{
	struct stat st;

	return stat(path, &st) == 0 && S_ISDIR(st.st_mode);
}

char *fs_abspath(const char *path)
{
	char cwd[PATH_MAX];

	if (path[0] == '/' || !getcwd(cwd, sizeof(cwd)))
		return xstrdup(path);
	return xasprintf("%s/%s", cwd, path);
}

char *fs_self_exe(void)
{
	char path[PATH_MAX];
	ssize_t n = readlink("/proc/self/exe", path, sizeof(path) - 1);

	if (n < 0)
		return xstrdup("ferry");
	path[n] = '\0';
	return xstrdup(path);
}

static int remove_one(const char *path, const struct stat *st, int flag, struct FTW *ftw)
{
	(void)st;
	(void)flag;
	(void)ftw;
	return remove(path) < 0 && errno != ENOENT ? -1 : 0;
}

int fs_remove_tree(const char *path, struct err *e)
{
	struct stat st;

	if (lstat(path, &st) < 0)
		return errno == ENOENT ? 0 : err_errno(e, EXIT_ENV, "cannot remove '%s'", path);
	/* Depth first, links as themselves: nothing outside path is touched. */
	if (nftw(path, remove_one, 16, FTW_DEPTH | FTW_PHYS) != 0)
		return err_errno(e, EXIT_ENV, "cannot remove '%s'", path);
	return 0;
}
