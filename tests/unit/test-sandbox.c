/* test-sandbox.c: lib/sandbox.c: scratch directories are made and removed whatever the code that ran
 * there left behind (without following a link out of them); the argv wraps the command; a missing
 * bubblewrap is named by its package; and where bwrap works, its sandbox is read-only outside the
 * scratch directory. */
#define _GNU_SOURCE
#include "proc.h"
#include "sandbox.h"
#include "tap.h"
#include "xalloc.h"

#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

static int is_dir(const char *dir, const char *sub)
{
	char *p = xasprintf("%s/%s", dir, sub);
	struct stat sb;
	int r = stat(p, &sb) == 0 && S_ISDIR(sb.st_mode);

	free(p);
	return r;
}

/* Run sh -c script in bwrap's sandbox around scratch; its exit code, or -1. */
static int run_in(const char *bwrap, const char *scratch, const char *script)
{
	const char *cmd[] = { "sh", "-c", script, NULL };
	const char **argv = sandbox_argv(bwrap, scratch, cmd);
	struct child_process cp = PROC_INIT;
	struct proc_status st;
	struct err e = ERR_INIT;
	int r = -1;

	cp.argv = argv;
	cp.err = PROC_NULL;
	if (proc_start(&cp, &e) == 0 && proc_wait(&cp, &st, &e) == 0)
		r = st.code;
	proc_release(&cp);
	err_release(&e);
	free(argv);
	return r;
}

int main(void)
{
	struct err e = ERR_INIT;
	char outside[] = "/tmp/ferry-test-sandbox.XXXXXX";
	char *scratch, *p, *bwrap;
	const char *cmd[] = { "true", "x", NULL };
	const char **argv;
	struct stat sb;
	size_t n;

	plan(12);
	if (!mkdtemp(outside))
		return 1;
	setenv("TMPDIR", outside, 1);

	scratch = sandbox_scratch_new(&e);
	ok(scratch && !strncmp(scratch, outside, strlen(outside)), "a scratch directory is made under $TMPDIR");
	ok(scratch && is_dir(scratch, "home") && is_dir(scratch, "tmp"), "... with home/ and tmp/ in it");

	/* What a test may leave: a link to a directory outside, a directory it cannot read. */
	p = xasprintf("%s/keep", outside);
	mkdir(p, 0755);
	free(p);
	p = xasprintf("%s/keep/file", outside);
	fclose(fopen(p, "w"));
	free(p);
	p = xasprintf("%s/keep", outside);
	{
		char *link = xasprintf("%s/tmp/link", scratch);
		char *deep = xasprintf("%s/home/a/b", scratch);
		char *a = xasprintf("%s/home/a", scratch);

		symlink(p, link);
		mkdir(a, 0755);
		mkdir(deep, 0755);
		chmod(deep, 0);
		chmod(a, 0);
		free(link);
		free(deep);
		free(a);
	}
	free(p);
	ok(sandbox_scratch_remove(scratch, &e) == 0, "the scratch directory is removed (%s)", e.msg);
	ok(stat(scratch, &sb) < 0, "... all of it");
	p = xasprintf("%s/keep/file", outside);
	ok(stat(p, &sb) == 0, "... and a link out of it was not followed");
	unlink(p);
	free(p);
	p = xasprintf("%s/keep", outside);
	rmdir(p);
	free(p);
	free(scratch);

	argv = sandbox_argv(NULL, "/s", cmd);
	ok(!strcmp(argv[0], "true") && !strcmp(argv[1], "x") && !argv[2], "without bwrap, the argv is the command's");
	free(argv);
	argv = sandbox_argv("/usr/bin/bwrap", "/s", cmd);
	for (n = 0; argv[n]; n++)
		;
	ok(!strcmp(argv[0], "/usr/bin/bwrap") && n > 3 && !strcmp(argv[n - 3], "--") &&
	   !strcmp(argv[n - 2], "true") && !strcmp(argv[n - 1], "x"), "with bwrap, bwrap's options, --, then the command");
	free(argv);

	setenv("FERRY_BWRAP", "/nonexistent/bwrap", 1);
	ok(!sandbox_find(&e) && strstr(e.msg, "Debian package bubblewrap"), "a missing bwrap is named by its package (%s)",
	   e.msg);
	err_release(&e);
	unsetenv("FERRY_BWRAP");

	if (!(bwrap = sandbox_find(&e))) {
		for (int i = 0; i < 4; i++)
			ok(1, "# SKIP bwrap cannot make a sandbox here: %s", e.msg);
	} else {
		char *script;

		scratch = sandbox_scratch_new(&e);
		ok(run_in(bwrap, scratch, "touch ./inside") == 0, "in the sandbox, the scratch directory is writable");
		script = xasprintf("touch '%s/escaped'", outside);
		ok(run_in(bwrap, scratch, script) != 0, "... and the rest is not");
		free(script);
		p = xasprintf("%s/escaped", outside);
		ok(stat(p, &sb) < 0, "... so nothing was written outside");
		free(p);
		script = xasprintf("test \"$(pwd)\" = '%s'", scratch);
		ok(run_in(bwrap, scratch, script) == 0, "the command runs in the scratch directory");
		free(script);
		sandbox_scratch_remove(scratch, &e);
		free(scratch);
		free(bwrap);
	}
	err_release(&e);
	rmdir(outside);
	return done();
}
