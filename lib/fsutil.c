/* fsutil.c: file-system helpers. */
#include "fsutil.h"
#include "xalloc.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
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
		r = err_set(e, EXIT_ENV, "cannot create directory '%s': a file of that name exists", path);
	free(p);
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

int fs_write_atomic(const char *path, const void *data, size_t len, struct err *e)
{
	char *tmp = xasprintf("%s.tmp.%ld", path, (long)getpid());
	int fd = open(tmp, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0666);
	const char *p = data;
	int r = -1;

	if (fd < 0) {
		err_errno(e, EXIT_ENV, "cannot create '%s'", tmp);
		goto out;
	}
	while (len > 0) {
		ssize_t n = write(fd, p, len);

		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0) {
			err_errno(e, EXIT_ENV, "cannot write '%s'", tmp);
			close(fd);
			unlink(tmp);
			goto out;
		}
		p += n;
		len -= (size_t)n;
	}
	if (close(fd) < 0) {
		err_errno(e, EXIT_ENV, "cannot write '%s'", tmp);
		unlink(tmp);
		goto out;
	}
	if (rename(tmp, path) < 0) {
		err_errno(e, EXIT_ENV, "cannot rename '%s' to '%s'", tmp, path);
		unlink(tmp);
		goto out;
	}
	r = 0;
out:
	free(tmp);
	return r;
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

char *fs_python_dir(void)
{
	const char *env = getenv("FERRY_PYDIR");
	char *exe, *slash;
	int in_build_tree;

	if (env && *env)
		return xstrdup(env);
	exe = fs_self_exe();
	slash = strrchr(exe, '/');
	if (slash)
		*slash = '\0';
	/* Unit and CLI tests run the binary where make left it; its Python is then the source tree's. */
	in_build_tree = !strcmp(exe, ABS_TOP_BUILDDIR);
	free(exe);
	if (in_build_tree)
		return xstrdup(ABS_TOP_SRCDIR);
	return xstrdup(PKGDATADIR "/python");
}
