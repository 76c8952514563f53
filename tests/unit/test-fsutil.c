/* test-fsutil.c: writing inside ferry's own directories without following links planted there
 * (lib/fsutil.h fs_dir_beneath, fs_write_beneath). */
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "buf.h"
#include "err.h"
#include "fsutil.h"
#include "tap.h"
#include "xalloc.h"

static char *at(const char *root, const char *rel)
{
	return xasprintf("%s/%s", root, rel);
}

static int is_file_with(const char *path, const char *want)
{
	struct buf b = BUF_INIT;
	struct err e = ERR_INIT;
	int r = fs_read(path, &b, &e) == 0 && b.len == strlen(want) && !memcmp(b.data, want, b.len);

	buf_release(&b);
	err_release(&e);
	return r;
}

int main(void)
{
	char tmpl[] = "/tmp/ferry-test-fsutil.XXXXXX";
	char *root = mkdtemp(tmpl), *p, *q;
	struct err e = ERR_INIT;
	int fd;

	plan(17);
	if (!root)
		return 1;
	/* The user's part is made and followed; ferry's own is made beneath it. */
	p = at(root, "user/wrap/tests/6e/6e01");
	fd = fs_dir_beneath(p, 3, 1, &e);
	ok(fd >= 0, "the user's directory and ferry's three beneath it are made (%s)", e.msg);
	ok(fd >= 0 && fs_write_beneath(fd, "meta.json", "meta.json", "{}", 2, &e) == 0, "a file is written there");
	free(p);
	p = at(root, "user/wrap/tests/6e/6e01/meta.json");
	ok(is_file_with(p, "{}"), "with its contents");
	ok(fd >= 0 && fs_write_beneath(fd, "meta.json", "meta.json", "{\"a\":1}", 7, &e) == 0 && is_file_with(p, "{\"a\":1}"),
	   "and replaced");
	free(p);
	if (fd >= 0)
		close(fd);

	/* A link where the user's part is: followed (the user's choice). */
	p = at(root, "elsewhere");
	q = at(root, "linked");
	mkdir(p, 0777);
	ok(symlink(p, q) == 0, "a link to a directory");
	free(q);
	q = at(root, "linked/tests/ab/ab01");
	fd = fs_dir_beneath(q, 3, 1, &e);
	ok(fd >= 0, "a link the user named is followed (%s)", e.msg);
	if (fd >= 0)
		close(fd);
	free(q);
	q = at(root, "elsewhere/tests/ab/ab01");
	ok(fs_is_dir(q), "ferry's directories are made in its target");
	free(q);

	/* A link where ferry's part is: refused, nothing made through it. */
	q = at(root, "user/wrap/tests/7f");
	ok(symlink(p, q) == 0, "a link planted as tests/7f");
	free(q);
	q = at(root, "user/wrap/tests/7f/7f01");
	fd = fs_dir_beneath(q, 3, 1, &e);
	ok(fd < 0 && e.code == EXIT_INPUT, "is refused as bad input");
	ok(strstr(e.msg, "/user/wrap/tests/7f' is a symbolic link") != NULL, "naming it (%s)", e.msg);
	free(q);
	q = at(root, "elsewhere/7f01");
	ok(!fs_exists(q), "and nothing is made through it");
	free(q);
	err_release(&e);

	/* A link planted as a file: refused, the target untouched. */
	q = at(root, "victim");
	ok(fs_write_atomic(q, "keep", 4, &e) == 0, "a victim file");
	free(p);
	p = at(root, "user/wrap/tests/6e/6e01/record.json");
	ok(symlink(q, p) == 0, "a link planted as record.json");
	fd = fs_dir_beneath(p, 4, 0, &e);
	ok(fd < 0 && strstr(e.msg, "record.json' is a symbolic link"), "is no directory of ferry's (%s)", e.msg);
	free(p);
	p = at(root, "user/wrap/tests/6e/6e01");
	fd = fs_dir_beneath(p, 3, 0, &e);
	ok(fd >= 0 && fs_write_beneath(fd, "record.json", "X/record.json", "bad", 3, &e) < 0 &&
	   strstr(e.msg, "'X/record.json' is a symbolic link") != NULL, "writing it is refused, naming it (%s)", e.msg);
	ok(is_file_with(q, "keep"), "and the victim is untouched");
	if (fd >= 0)
		close(fd);
	free(p);
	free(q);
	p = at(root, "user/wrap/tests/../x");
	fd = fs_dir_beneath(p, 2, 1, &e);
	ok(fd < 0 && e.code == EXIT_INPUT, "'..' is no component of ferry's");
	free(p);
	err_release(&e);
	{
		char *cmd = xasprintf("rm -rf '%s'", root);

		if (system(cmd) != 0)
			fprintf(stderr, "cannot remove %s\n", root);
		free(cmd);
	}
	return done();
}
