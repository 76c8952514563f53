/* test-status.c: pool/status.c, the page a worker shares with its runner, between real processes:
 * a child that attaches to the page as a worker does, what it says, reads while it writes (never a
 * torn stage name), and a writer killed in the middle. */
#define _GNU_SOURCE
#include "status.h"
#include "tap.h"

#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

/* Fork a child that gets the page's descriptor as a worker does (fd STATUS_FD, STATUS_ENV_SET) and
 * runs body; returns its pid. */
static pid_t worker(int fd, void (*body)(struct status *s))
{
	pid_t pid = fork();

	if (pid == 0) {
		struct status s = STATUS_INIT;
		struct err e = ERR_INIT;

		if (dup2(fd, STATUS_FD) < 0 || putenv((char *)STATUS_ENV_SET) != 0 || status_attach(&s, &e) < 0 ||
		    !s.page)
			_exit(2);
		body(&s);
		status_release(&s);
		_exit(0);
	}
	return pid;
}

static void says_compile(struct status *s)
{
	status_take(s, 7);
	status_stage(s, "load");
	status_stage(s, "compile");
}

static void says_too_much(struct status *s)
{
	status_take(s, 1);
	status_stage(s, "a stage whose name is far longer than the page keeps");
}

/* Two names of the page's full length: a read in the middle of a write would mix them. */
#define A "aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa"
#define B "bbbbbbbbbbbbbbbbbbbbbbbbbbbbbbb"

static void flips(struct status *s)
{
	status_take(s, 2);
	for (;;) {
		status_stage(s, A);
		status_stage(s, B);
	}
}

static int wait_code(pid_t pid)
{
	int ws;

	return waitpid(pid, &ws, 0) == pid && WIFEXITED(ws) ? WEXITSTATUS(ws) : -1;
}

int main(void)
{
	struct status s = STATUS_INIT, none = STATUS_INIT;
	struct err e = ERR_INIT;
	char stage[STATUS_STAGE_MAX];
	int fd, torn = 0, seen_a = 0, seen_b = 0;
	pid_t pid;

	plan(12);
	unsetenv(STATUS_ENV);
	ok(status_attach(&none, &e) == 0 && !none.page, "without its variable a worker runs with no page");
	status_stage(&none, "load");
	is_int((long long)status_read(&none, stage), 0, "which reads as nothing taken");
	is(stage, "", "  ... in no stage");

	if (!ok(status_create(&s, &fd, &e) == 0, "the runner makes a page")) {
		diag("%s", e.msg);
		return done();
	}
	is_int((long long)status_read(&s, stage), 0, "a fresh page: nothing taken");

	pid = worker(fd, says_compile);
	is_int(wait_code(pid), 0, "a worker attaches to it at fd %d", STATUS_FD);
	is_int((long long)status_read(&s, stage), 7, "the runner reads the request it took");
	is(stage, "compile", "  ... and its stage");

	pid = worker(fd, says_too_much);
	wait_code(pid);
	status_read(&s, stage);
	is_int((long long)strlen(stage), STATUS_STAGE_MAX - 1, "a long stage name is cut to the page");

	/* Reads while the worker writes: each is one whole name, never a mix of two. */
	pid = worker(fd, flips);
	while (status_read(&s, stage) != 2)
		usleep(1000);
	for (int i = 0; i < 200000; i++) {
		status_read(&s, stage);
		seen_a += !strcmp(stage, A);
		seen_b += !strcmp(stage, B);
		if (strcmp(stage, A) && strcmp(stage, B) && torn++ < 3)
			diag("torn: [%s]", stage);
	}
	ok(!torn, "200000 reads during writes: each a whole name, never a mix (%d a, %d b)",
	   seen_a, seen_b);
	/* Killed wherever it is, perhaps mid-write: a read still returns, with a terminated name. */
	kill(pid, SIGKILL);
	waitpid(pid, NULL, 0);
	status_read(&s, stage);
	ok(memchr(stage, '\0', STATUS_STAGE_MAX) != NULL, "a writer killed mid-write leaves a page that reads");
	is_int((long long)status_read(&s, stage), 2, "  ... and its request");
	close(fd);
	status_release(&s);
	return done();
}
