/* sandbox.c: the scratch directory and the bubblewrap sandbox for untrusted code (see sandbox.h). */
#define _GNU_SOURCE
#include "sandbox.h"
#include "proc.h"
#include "xalloc.h"

#include <errno.h>
#include <ftw.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

/* What bwrap may print on stderr while it tries: enough for its one-line complaint. */
#define PROBE_STDERR_CAP 4096

const char **sandbox_argv(const char *bwrap, const char *scratch, const char *const *argv)
{
	const char *pre[] = {
		bwrap,
		/* Everything read-only: the tests, the libraries and ferry itself are all readable. */
		"--ro-bind", "/", "/",
		"--dev", "/dev", "--proc", "/proc",
		"--bind", scratch, scratch,
		"--chdir", scratch,
		/* A test's stray processes cannot outlive it, nor signal ferry. */
		"--unshare-pid", "--die-with-parent",
		"--",
	};
	size_t npre = bwrap ? sizeof(pre) / sizeof(pre[0]) : 0, n = 0;
	const char **v;

	while (argv[n])
		n++;
	v = xcalloc(npre + n + 1, sizeof(*v));
	memcpy(v, pre, npre * sizeof(*v));
	memcpy(v + npre, argv, n * sizeof(*v));
	return v;
}

/* Run bwrap once around "true": the only sure way to know that it can make namespaces here. */
static int probe(const char *bwrap, struct err *e)
{
	static const char *const cmd[] = { "true", NULL };
	struct child_process cp = PROC_INIT;
	struct proc_capture cap = PROC_CAPTURE_INIT(PROBE_STDERR_CAP);
	struct proc_status st;
	const char **argv = NULL;
	char *scratch = NULL, *nl;
	int r = -1;

	if (!(scratch = sandbox_scratch_new(e)))
		goto out;
	argv = sandbox_argv(bwrap, scratch, cmd);
	cp.argv = argv;
	cp.in = PROC_NULL;
	cp.out = PROC_NULL;
	cp.err = PROC_PIPE;
	if (proc_start(&cp, e) < 0)
		goto out;
	while (!cap.eof)
		if (proc_capture_read(&cap, cp.fd_err, e) < 0)
			goto out;
	if (proc_wait(&cp, &st, e) < 0)
		goto out;
	if (st.code != 0) {
		if ((nl = strchr(cap.buf.data ? cap.buf.data : "", '\n')))
			*nl = '\0';
		err_set(e, EXIT_ENV, "bubblewrap ('%s') cannot make a sandbox here (%s)", bwrap,
			cap.buf.len ? cap.buf.data : "it failed without saying why");
		goto out;
	}
	r = 0;
out:
	proc_release(&cp);
	proc_capture_release(&cap);
	free(argv);
	if (scratch) {
		struct err ignored = ERR_INIT;

		sandbox_scratch_remove(scratch, &ignored);
		err_release(&ignored);
		free(scratch);
	}
	return r;
}

char *sandbox_find(struct err *e)
{
	const char *name = getenv("FERRY_BWRAP");
	char *path;

	if (!name || !*name)
		name = "bwrap";
	if (!(path = proc_find_program(name, NULL))) {
		err_set(e, EXIT_ENV, "bubblewrap (Debian package bubblewrap) not found ('%s')", name);
		return NULL;
	}
	if (probe(path, e) < 0) {
		free(path);
		return NULL;
	}
	return path;
}

char *sandbox_scratch_new(struct err *e)
{
	const char *tmp = getenv("TMPDIR");
	char *dir = xasprintf("%s/ferry-scratch.XXXXXX", tmp && *tmp ? tmp : "/tmp");
	char *sub = NULL;

	if (!mkdtemp(dir)) {
		err_errno(e, EXIT_ENV, "cannot create a scratch directory in '%s'", tmp && *tmp ? tmp : "/tmp");
		goto fail;
	}
	for (int i = 0; i < 2; i++) {
		free(sub);
		sub = xasprintf("%s/%s", dir, i ? "tmp" : "home");
		if (mkdir(sub, 0700) < 0) {
			err_errno(e, EXIT_ENV, "cannot create '%s'", sub);
			goto fail;
		}
	}
	free(sub);
	return dir;
fail:
	free(sub);
	free(dir);
	return NULL;
}

/* nftw passes no context: the first error of a removal, kept here. */
static int remove_errno;
static const char *remove_failed;
static char remove_path[4096];
static int saw_unreadable;

static int open_up(const char *path, const struct stat *sb, int flag, struct FTW *ftw)
{
	(void)sb;
	(void)ftw;
	/* Code that made a directory unreadable or unwritable must not keep its contents from going. */
	if (flag == FTW_D || flag == FTW_DNR)
		chmod(path, 0700);
	/* nftw cannot descend into it this time; the next pass will. */
	saw_unreadable |= flag == FTW_DNR;
	return 0;
}

static int remove_one(const char *path, const struct stat *sb, int flag, struct FTW *ftw)
{
	(void)sb;
	(void)flag;
	(void)ftw;
	if (remove(path) < 0 && errno != ENOENT && !remove_failed) {
		remove_errno = errno;
		snprintf(remove_path, sizeof(remove_path), "%s", path);
		remove_failed = remove_path;
	}
	return 0;
}

int sandbox_scratch_remove(const char *dir, struct err *e)
{
	remove_failed = NULL;
	/* One pass per level of directories made unreadable inside one another, within reason. */
	for (int pass = 0; pass < 64; pass++) {
		saw_unreadable = 0;
		nftw(dir, open_up, 16, FTW_PHYS | FTW_MOUNT);
		if (!saw_unreadable)
			break;
	}
	if (nftw(dir, remove_one, 16, FTW_DEPTH | FTW_PHYS | FTW_MOUNT) < 0 && errno != ENOENT)
		return err_errno(e, EXIT_ENV, "cannot remove the scratch directory '%s'", dir);
	if (remove_failed) {
		errno = remove_errno;
		return err_errno(e, EXIT_ENV, "cannot remove '%s'", remove_failed);
	}
	return 0;
}
