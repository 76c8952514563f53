/* test-proc.c: lib/proc.c against real programs: sh, cat, sleep, head, yes, dd. */
#define _GNU_SOURCE
#include "proc.h"
#include "tap.h"
#include "xalloc.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <poll.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

static long long now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (long long)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

/* Run argv to the end, streams inherited; returns the exit code or -1 (e says why). */
static int run(const char **argv, const char **env, struct err *e)
{
	struct child_process cp = PROC_INIT;
	struct proc_status st;
	int code = -1;

	cp.argv = argv;
	cp.env = env;
	if (proc_start(&cp, e) == 0 && proc_wait(&cp, &st, e) == 0)
		code = st.code;
	proc_release(&cp);
	return code;
}

/* Read fd into c until end of file, waiting at most timeout_ms. */
static int drain(int fd, struct proc_capture *c, int timeout_ms)
{
	struct err e = ERR_INIT;
	long long deadline = now_ms() + timeout_ms;

	while (!c->eof && now_ms() < deadline) {
		struct pollfd p = { fd, POLLIN, 0 };

		poll(&p, 1, 100);
		if (proc_capture_read(c, fd, &e) < 0) {
			diag("%s", e.msg);
			err_release(&e);
			return -1;
		}
	}
	return c->eof ? 0 : -1;
}

/* Wait for a process we adopted as subreaper; returns its wait status or -1 after timeout_ms. */
static int wait_adopted(pid_t pid, int timeout_ms)
{
	long long deadline = now_ms() + timeout_ms;
	int ws;

	while (now_ms() < deadline) {
		pid_t r = waitpid(pid, &ws, WNOHANG);

		if (r == pid)
			return ws;
		if (r < 0)
			return -1;
		usleep(10000);
	}
	kill(pid, SIGKILL);
	waitpid(pid, &ws, 0);
	return -1;
}

static void test_exit_codes(void)
{
	struct err e = ERR_INIT;
	const char *t[] = { "/bin/true", NULL }, *f[] = { "/bin/false", NULL };
	const char *t_path[] = { "true", NULL };
	const char *x42[] = { "sh", "-c", "exit 42", NULL };

	is_int(run(t, NULL, &e), 0, "/bin/true exits 0");
	is_int(run(f, NULL, &e), 1, "/bin/false exits 1");
	is_int(run(t_path, NULL, &e), 0, "'true' is found in PATH");
	is_int(run(x42, NULL, &e), 42, "sh -c 'exit 42' exits 42");
	err_release(&e);
}

static void test_signal(void)
{
	struct child_process cp = PROC_INIT;
	const char *argv[] = { "sh", "-c", "kill -SEGV $$", NULL };
	struct proc_status st = { -1, false, 0, false, false };
	struct buf b = BUF_INIT;
	struct err e = ERR_INIT;
	int r;

	cp.argv = argv;
	r = proc_start(&cp, &e) == 0 && proc_wait(&cp, &st, &e) == 0;
	ok(r, "a child that segfaults: %s", e.msg);
	is_int(st.code, 139, "SIGSEGV is reported as 128 + 11");
	ok(st.signaled && st.sig == SIGSEGV, "and flagged as a signal");
	proc_status_describe(&st, &b);
	is(b.data, "killed by signal 11 (SIGSEGV)", "status description");
	buf_reset(&b);
	proc_status_describe(&(struct proc_status){ 3, false, 0, false, false }, &b);
	is(b.data, "exit status 3", "exit status description");
	buf_release(&b);
	proc_release(&cp);
	err_release(&e);
}

/* What the parent ignores or blocks, the child must not: it should die as it would from a shell. */
static void test_signal_reset(void)
{
	const char *intr[] = { "sh", "-c", "kill -INT $$; exit 0", NULL };
	const char *term[] = { "sh", "-c", "kill -TERM $$; exit 0", NULL };
	struct sigaction ign, old;
	sigset_t block, old_mask;
	struct err e = ERR_INIT;

	memset(&ign, 0, sizeof(ign));
	ign.sa_handler = SIG_IGN;
	sigaction(SIGINT, &ign, &old);
	is_int(run(intr, NULL, &e), 128 + SIGINT, "SIGINT ignored in the parent still kills the child");
	sigaction(SIGINT, &old, NULL);

	sigemptyset(&block);
	sigaddset(&block, SIGTERM);
	sigprocmask(SIG_BLOCK, &block, &old_mask);
	is_int(run(term, NULL, &e), 128 + SIGTERM, "SIGTERM blocked in the parent still kills the child");
	sigprocmask(SIG_SETMASK, &old_mask, NULL);
	err_release(&e);
}

static void test_exec_failures(void)
{
	struct child_process cp = PROC_INIT;
	const char *missing[] = { "ferry-no-such-program", NULL };
	const char *missing_abs[] = { "/nonexistent/ferry-prog", NULL };
	const char *not_exec[] = { "/etc/passwd", NULL };
	const char *sh[] = { "sh", "-c", "true", NULL };
	const char *no_path[] = { "PATH=/nonexistent", NULL };
	struct err e = ERR_INIT;
	int ws;

	cp.argv = missing;
	ok(proc_start(&cp, &e) < 0 && strstr(e.msg, "'ferry-no-such-program'"),
	   "a program not in PATH is an error naming it: %s", e.msg);
	ok(cp.pid == -1 && cp.fd_out == -1, "and leaves no child");
	err_release(&e);

	cp.argv = missing_abs;
	ok(proc_start(&cp, &e) < 0 && strstr(e.msg, "'/nonexistent/ferry-prog'") &&
	   strstr(e.msg, strerror(ENOENT)), "exec of a missing path reports ENOENT from the child: %s", e.msg);
	err_release(&e);

	cp.argv = not_exec;
	ok(proc_start(&cp, &e) < 0 && strstr(e.msg, "'/etc/passwd'") && strstr(e.msg, strerror(EACCES)),
	   "exec of a file that is not executable reports EACCES: %s", e.msg);
	err_release(&e);

	cp.argv = sh;
	cp.dir = "/nonexistent-dir";
	ok(proc_start(&cp, &e) < 0 && strstr(e.msg, "'/nonexistent-dir'") && strstr(e.msg, "'sh'"),
	   "a directory that cannot be entered is an error naming it: %s", e.msg);
	err_release(&e);
	cp.dir = NULL;

	cp.env = no_path;
	ok(proc_start(&cp, &e) < 0 && strstr(e.msg, "not found in PATH"),
	   "PATH from the env changes is the one searched: %s", e.msg);
	err_release(&e);
	cp.env = NULL;

	ok(waitpid(-1, &ws, WNOHANG) < 0 && errno == ECHILD, "failed starts leave no zombie behind");
	proc_release(&cp);
}

static void test_kill(void)
{
	struct child_process cp = PROC_INIT;
	const char *sleeper[] = { "sleep", "100", NULL };
	const char *stubborn[] = { "sh", "-c", "trap '' TERM; sleep 100", NULL };
	struct proc_status st = { -1, false, 0, false, false };
	struct err e = ERR_INIT;
	long long t0;
	int r;

	cp.argv = sleeper;
	ok(proc_start(&cp, &e) == 0, "start sleep 100: %s", e.msg);
	is_int(proc_try_wait(&cp, &st, &e), 0, "proc_try_wait: still running");
	t0 = now_ms();
	ok(proc_kill(&cp, 5000, &st, &e) == 0, "proc_kill: %s", e.msg);
	ok(now_ms() - t0 < 2000, "a child that obeys SIGTERM ends well within the grace period (%lld ms)",
	   now_ms() - t0);
	is_int(st.code, 128 + SIGTERM, "killed by SIGTERM: 143");
	is_int(proc_kill(&cp, 100, &st, &e), 0, "a second proc_kill is harmless");
	is_int(st.code, 128 + SIGTERM, "and reports the same status");
	proc_release(&cp);

	cp.argv = stubborn;
	ok(proc_start(&cp, &e) == 0, "start a child that ignores SIGTERM: %s", e.msg);
	usleep(100000); /* let sh install its trap */
	t0 = now_ms();
	r = proc_kill(&cp, 300, &st, &e);
	ok(r == 0 && now_ms() - t0 >= 290 && now_ms() - t0 < 3000,
	   "it is killed after the 300 ms grace period (%lld ms)", now_ms() - t0);
	is_int(st.code, 128 + SIGKILL, "by SIGKILL: 137");
	proc_release(&cp);
	err_release(&e);
}

/* Start script with stdout piped and read the grandchild's pid from its first line. */
static pid_t start_with_grandchild(struct child_process *cp, const char *script, struct err *e)
{
	const char **argv = xcalloc(4, sizeof(*argv));
	char line[64] = "";
	size_t len = 0;

	argv[0] = "sh";
	argv[1] = "-c";
	argv[2] = script;
	cp->argv = argv;
	cp->out = PROC_PIPE;
	if (proc_start(cp, e) < 0) {
		free(argv);
		return -1;
	}
	free(argv);
	while (len + 1 < sizeof(line)) {
		ssize_t n = read(cp->fd_out, line + len, 1);

		if (n <= 0 || line[len] == '\n')
			break;
		len++;
	}
	line[len] = '\0';
	return (pid_t)atoi(line);
}

static void test_group(void)
{
	struct child_process cp = PROC_INIT;
	struct proc_status st;
	struct err e = ERR_INIT;
	pid_t gc;
	int ws, r;

	gc = start_with_grandchild(&cp, "sleep 100 & echo $!; wait", &e);
	ok(gc > 0, "a child with a grandchild (%d): %s", (int)gc, e.msg);
	ok(proc_kill(&cp, 2000, &st, &e) == 0, "proc_kill the child: %s", e.msg);
	ws = gc > 0 ? wait_adopted(gc, 5000) : -1;
	ok(ws != -1 && WIFSIGNALED(ws) && WTERMSIG(ws) == SIGTERM, "the grandchild got SIGTERM too");
	proc_release(&cp);

	proc_init(&cp);
	gc = start_with_grandchild(&cp, "trap '' TERM; sleep 100 & echo $!; wait", &e);
	ok(gc > 0, "a child with a grandchild, both ignoring SIGTERM: %s", e.msg);
	r = proc_kill(&cp, 200, &st, &e);
	ok(r == 0 && st.code == 137, "proc_kill: exit %d %s", st.code, e.msg);
	ws = gc > 0 ? wait_adopted(gc, 5000) : -1;
	ok(ws != -1 && WIFSIGNALED(ws) && WTERMSIG(ws) == SIGKILL, "the grandchild got SIGKILL");
	proc_release(&cp);

	proc_init(&cp);
	cp.kill_group_on_exit = true;
	gc = start_with_grandchild(&cp, "sleep 100 & echo $!", &e);
	ok(proc_wait(&cp, &st, &e) == 0 && st.code == 0, "kill_group_on_exit: the leader exits 0");
	ws = gc > 0 ? wait_adopted(gc, 5000) : -1;
	ok(ws != -1 && WIFSIGNALED(ws) && WTERMSIG(ws) == SIGKILL,
	   "kill_group_on_exit: the grandchild left behind is killed");
	proc_release(&cp);

	proc_init(&cp);
	gc = start_with_grandchild(&cp, "sleep 100 & echo $!", &e);
	ok(proc_wait(&cp, &st, &e) == 0 && st.code == 0, "without it: the leader exits 0");
	ok(gc > 0 && kill(gc, 0) == 0, "and the grandchild lives on");
	if (gc > 0) {
		kill(gc, SIGKILL);
		wait_adopted(gc, 5000);
	}
	proc_release(&cp);
	err_release(&e);
}

static void test_release_kills(void)
{
	struct child_process cp = PROC_INIT;
	const char *argv[] = { "sleep", "100", NULL };
	struct err e = ERR_INIT;
	pid_t pid;

	cp.argv = argv;
	ok(proc_start(&cp, &e) == 0, "start sleep 100: %s", e.msg);
	pid = cp.pid;
	proc_release(&cp);
	ok(kill(pid, 0) < 0 && errno == ESRCH, "proc_release kills and reaps a running child");
	err_release(&e);
}

static void test_pipes(void)
{
	struct child_process cp = PROC_INIT;
	struct proc_capture out = PROC_CAPTURE_INIT(4 << 20);
	const char *cat[] = { "cat", NULL };
	size_t total = 1 << 20, sent = 0;
	struct proc_status st;
	struct err e = ERR_INIT;
	char *data = xmalloc(total);
	int fails = 0;

	for (size_t i = 0; i < total; i++)
		data[i] = (char)('a' + i % 26);
	cp.argv = cat;
	cp.in = PROC_PIPE;
	cp.out = PROC_PIPE;
	ok(proc_start(&cp, &e) == 0 && cp.fd_in >= 0 && cp.fd_out >= 0 && cp.fd_err == -1,
	   "cat with stdin and stdout piped: %s", e.msg);
	fcntl(cp.fd_in, F_SETFL, O_NONBLOCK);
	/* Write and read in turn: 1 MiB does not fit in the pipes, so doing one then the other would
	 * deadlock. */
	while (!out.eof && fails < 1000) {
		struct pollfd p[2] = { { cp.fd_out, POLLIN, 0 }, { cp.fd_in, POLLOUT, 0 } };

		if (poll(p, cp.fd_in >= 0 ? 2 : 1, 1000) <= 0) {
			fails++;
			continue;
		}
		if (cp.fd_in >= 0 && (p[1].revents & POLLOUT)) {
			ssize_t n = write(cp.fd_in, data + sent, total - sent);

			if (n > 0)
				sent += (size_t)n;
			if (sent == total) {
				close(cp.fd_in);
				cp.fd_in = -1;
			}
		}
		if (proc_capture_read(&out, cp.fd_out, &e) < 0)
			fails++;
	}
	is_int((long long)out.buf.len, (long long)total, "1 MiB comes back through cat");
	ok(out.buf.len == total && memcmp(out.buf.data, data, total) == 0, "byte for byte");
	ok(proc_wait(&cp, &st, &e) == 0 && st.code == 0, "cat exits 0");
	proc_release(&cp);
	proc_capture_release(&out);
	free(data);
	err_release(&e);
}

/* Run script with the given stderr set-up; collect stdout (and stderr if piped). */
static int run_streams(const char *script, enum proc_io err_mode, const char *err_path,
		       struct proc_capture *out, struct proc_capture *errc)
{
	struct child_process cp = PROC_INIT;
	const char *argv[] = { "sh", "-c", script, NULL };
	struct proc_status st = { -1, false, 0, false, false };
	struct err e = ERR_INIT;

	cp.argv = argv;
	cp.in = PROC_NULL;
	cp.out = PROC_PIPE;
	cp.err = err_mode;
	cp.err_path = err_path;
	if (proc_start(&cp, &e) < 0) {
		diag("%s", e.msg);
		err_release(&e);
		return -1;
	}
	drain(cp.fd_out, out, 5000);
	if (cp.fd_err >= 0)
		drain(cp.fd_err, errc, 5000);
	proc_wait(&cp, &st, &e);
	proc_release(&cp);
	err_release(&e);
	return st.code;
}

static void test_streams(const char *tmp)
{
	struct proc_capture out = PROC_CAPTURE_INIT(1024), errc = PROC_CAPTURE_INIT(1024);
	const char *both = "echo out; echo err >&2";
	char *path = xasprintf("%s/stderr.txt", tmp), text[64] = "";
	FILE *f;

	is_int(run_streams(both, PROC_PIPE, NULL, &out, &errc), 0, "stdout and stderr piped apart");
	ok(strcmp(out.buf.data, "out\n") == 0 && strcmp(errc.buf.data, "err\n") == 0,
	   "each pipe gets its own stream");
	proc_capture_release(&out);
	proc_capture_release(&errc);

	run_streams(both, PROC_STDOUT, NULL, &out, &errc);
	is(out.buf.data, "out\nerr\n", "stderr to stdout (2>&1)");
	proc_capture_release(&out);

	run_streams(both, PROC_FILE, path, &out, &errc);
	f = fopen(path, "r");
	if (f) {
		size_t n = fread(text, 1, sizeof(text) - 1, f);

		text[n] = '\0';
		fclose(f);
	}
	ok(strcmp(out.buf.data, "out\n") == 0 && strcmp(text, "err\n") == 0, "stderr to a file");
	proc_capture_release(&out);

	run_streams(both, PROC_NULL, NULL, &out, &errc);
	is(out.buf.data, "out\n", "stderr to /dev/null");
	proc_capture_release(&out);

	is_int(run_streams("cat; echo done", PROC_INHERIT, NULL, &out, &errc), 0, "stdin from /dev/null");
	is(out.buf.data, "done\n", "cat sees end of file at once");
	proc_capture_release(&out);
	unlink(path);
	free(path);
}

static void test_env_and_dir(const char *tmp)
{
	struct child_process cp = PROC_INIT;
	struct proc_capture out = PROC_CAPTURE_INIT(1024);
	const char *argv[] = { "sh", "-c", "printf '%s|%s|%s' \"$FERRY_A\" \"${FERRY_B-unset}\" \"$(pwd -P)\"",
			       NULL };
	const char *env[] = { "FERRY_A=first", "FERRY_B", "FERRY_A=hello", NULL };
	struct err e = ERR_INIT;
	char real[PATH_MAX], *want;

	setenv("FERRY_B", "present", 1);
	cp.argv = argv;
	cp.env = env;
	cp.dir = tmp;
	cp.out = PROC_PIPE;
	ok(proc_start(&cp, &e) == 0, "start with env changes and a directory: %s", e.msg);
	drain(cp.fd_out, &out, 5000);
	if (!realpath(tmp, real))
		strcpy(real, tmp);
	want = xasprintf("hello|unset|%s", real);
	is(out.buf.data, want, "the child sees FERRY_A set (last change wins), FERRY_B removed, its dir");
	ok(getenv("FERRY_B") && strcmp(getenv("FERRY_B"), "present") == 0, "the parent's environment is untouched");
	proc_release(&cp);
	proc_capture_release(&out);
	unsetenv("FERRY_B");
	free(want);
	err_release(&e);
}

static void test_env_keep(void)
{
	struct child_process cp = PROC_INIT;
	struct proc_capture out = PROC_CAPTURE_INIT(1024);
	const char *argv[] = { "/bin/sh", "-c", "printf '%s|%s|%s|%s' \"${KEEP_A-unset}\" \"${DROP_B-unset}\" "
			       "\"${KEEPX_C-unset}\" \"${ADDED-unset}\"", NULL };
	const char *keep[] = { "KEEP_A", "KEEPX_*", NULL };
	const char *env[] = { "ADDED=new", NULL };
	struct err e = ERR_INIT;

	setenv("KEEP_A", "a", 1);
	setenv("DROP_B", "b", 1);
	setenv("KEEPX_C", "c", 1);
	cp.argv = argv;
	cp.env = env;
	cp.env_keep = keep;
	cp.out = PROC_PIPE;
	ok(proc_start(&cp, &e) == 0, "start with a kept environment: %s", e.msg);
	drain(cp.fd_out, &out, 5000);
	is(out.buf.data, "a|unset|c|new", "the child keeps the named variable and the prefix's, not the others; "
	   "the changes still apply");
	proc_release(&cp);
	proc_capture_release(&out);
	unsetenv("KEEP_A");
	unsetenv("DROP_B");
	unsetenv("KEEPX_C");
	err_release(&e);
}

static void test_fds_not_inherited(void)
{
	/* test is a dash builtin, so /proc/self is the shell that was exec'd. */
	const char *has37[] = { "sh", "-c", "test -e /proc/self/fd/37", NULL };
	const char *has1[] = { "sh", "-c", "test -e /proc/self/fd/1", NULL };
	struct err e = ERR_INIT;
	int fd = open("/dev/null", O_WRONLY);

	ok(fd >= 0 && dup2(fd, 37) == 37 && !(fcntl(37, F_GETFD) & FD_CLOEXEC),
	   "fd 37 is open in the parent, without close-on-exec");
	is_int(run(has37, NULL, &e), 1, "the child does not have fd 37");
	is_int(run(has1, NULL, &e), 0, "(while it has fd 1)");
	close(37);
	close(fd);
	err_release(&e);
}

/* The one descriptor a child is given: it arrives as fd 3, whatever number it had in the parent
 * (here 0..2's neighbour and a high one), without close-on-exec, and nothing else comes along. */
static void test_pass_fd(const char *tmp)
{
	/* The child reads fd 3 and says whether fd 37 (open in the parent) came too. */
	const char *argv[] = { "sh", "-c", "cat <&3; test -e /proc/self/fd/37 && echo leaked; exit 0", NULL };
	char *path = xasprintf("%s/passed", tmp);
	int sources[2] = { 3, 40 };

	for (int k = 0; k < 2; k++) {
		struct child_process cp = PROC_INIT;
		struct proc_capture out = PROC_CAPTURE_INIT(4096);
		struct proc_status st;
		struct err e = ERR_INIT;
		int fd = open(path, O_RDWR | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);
		int null = open("/dev/null", O_WRONLY);

		ok(fd >= 0 && write(fd, "page\n", 5) == 5 && lseek(fd, 0, SEEK_SET) == 0 &&
		   dup2(null, 37) == 37 && (fd == sources[k] || dup3(fd, sources[k], O_CLOEXEC) == sources[k]),
		   "a descriptor at %d (close-on-exec) to pass, and fd 37 open", sources[k]);
		cp.argv = argv;
		cp.out = PROC_PIPE;
		cp.pass_fd = sources[k];
		if (proc_start(&cp, &e) < 0)
			diag("%s", e.msg);
		drain(cp.fd_out, &out, 5000);
		proc_wait(&cp, &st, &e);
		is(out.buf.data ? out.buf.data : "", "page\n", "the child reads it as fd 3 (from %d), and has no fd 37",
		       sources[k]);
		proc_capture_release(&out);
		proc_release(&cp);
		err_release(&e);
		if (sources[k] != fd)
			close(sources[k]);
		close(fd);
		close(null);
		close(37);
	}
	unlink(path);
	free(path);
}

static void test_mem_limit(void)
{
	struct child_process cp = PROC_INIT;
	struct proc_capture out = PROC_CAPTURE_INIT(1024);
	const char *ulimit[] = { "sh", "-c", "ulimit -v", NULL };
	struct err e = ERR_INIT;

	cp.argv = ulimit;
	cp.out = PROC_PIPE;
	cp.mem_limit = 256ull << 20;
	ok(proc_start(&cp, &e) == 0, "start with a 256 MiB RLIMIT_AS: %s", e.msg);
	drain(cp.fd_out, &out, 5000);
	is(out.buf.data, "262144\n", "the child's ulimit -v is 262144 KiB");
	proc_release(&cp);
	proc_capture_release(&out);

	/* dd allocates its whole block at once: 1 MiB fits in 64 MiB of address space, 256 MiB does not.
	 * The C locale keeps a large locale archive from being mapped at start-up. */
	for (int i = 0; i < 2; i++) {
		const char *dd[] = { "dd", "if=/dev/zero", "of=/dev/null", i ? "bs=256M" : "bs=1M", "count=1",
				     NULL };
		const char *c_locale[] = { "LC_ALL=C", NULL };
		struct proc_status st = { -1, false, 0, false, false };
		int r;

		proc_init(&cp);
		cp.argv = dd;
		cp.env = c_locale;
		cp.out = PROC_NULL;
		cp.err = PROC_NULL;
		cp.mem_limit = 64ull << 20;
		r = proc_start(&cp, &e) == 0 && proc_wait(&cp, &st, &e) == 0;
		if (i == 0)
			ok(r && st.code == 0, "under a 64 MiB limit dd bs=1M runs (exit %d)", st.code);
		else
			ok(r && st.code == 1, "dd bs=256M runs out of memory (exit %d, want 1)", st.code);
		proc_release(&cp);
	}
	err_release(&e);
}

static void test_rss(void)
{
	struct child_process cp = PROC_INIT;
	const char *argv[] = { "sh", "-c", "sleep 100 & sleep 100 & wait", NULL };
	struct err e = ERR_INIT;
	uint64_t before = 0, after = 0, leader = 0, group = 0;
	size_t big = 64u << 20;
	long long deadline;
	int n = 0, r;
	char *p;

	r = proc_rss(getpid(), &before, &e);
	ok(r == 0 && before > 0, "our own RSS: %llu bytes", (unsigned long long)before);
	p = xmalloc(big);
	memset(p, 1, big);
	proc_rss(getpid(), &after, &e);
	ok(after >= before + big - (4u << 20), "touching 64 MiB raises it (%llu -> %llu)",
	   (unsigned long long)before, (unsigned long long)after);
	free(p);

	ok(proc_rss(999999999, &before, &e) < 0 && strstr(e.msg, "999999999"),
	   "a process that does not exist is an error: %s", e.msg);
	err_release(&e);

	cp.argv = argv;
	ok(proc_start(&cp, &e) == 0, "start sh with two sleeping children: %s", e.msg);
	deadline = now_ms() + 5000;
	while (now_ms() < deadline) {
		if (proc_group_rss(cp.pid, &group, &n, &e) < 0 || n >= 3)
			break;
		usleep(10000);
	}
	is_int(n, 3, "proc_group_rss counts the three members of the group");
	/* The leader first, then the group that holds it: the shell may still be growing as its
	 * children start, and a leader read after the group could have outgrown it. Two reads are two
	 * moments, and the shell's pages move between them (seen under a loaded machine): a few tries,
	 * each a fresh pair. A group that counted only its leader would never pass. */
	for (int tries = 0; tries < 20; tries++) {
		proc_rss(cp.pid, &leader, &e);
		proc_group_rss(cp.pid, &group, &n, &e);
		if (leader > 0 && group > leader)
			break;
		usleep(20000);
	}
	ok(leader > 0 && group > leader, "the group uses more than its leader (%llu > %llu)",
	   (unsigned long long)group, (unsigned long long)leader);
	proc_kill(&cp, 1000, NULL, &e);
	/* The two sleeps, orphaned, came to us as zombies: still in the group, but using no memory. */
	usleep(100000);
	r = proc_group_rss(cp.pid, &group, &n, &e);
	ok(r == 0 && n == 0 && group == 0, "after proc_kill the group has no live member (%d)", n);
	while (waitpid(-1, NULL, WNOHANG) > 0)
		;
	proc_release(&cp);
	err_release(&e);
}

/* On a regular file poll always says readable: only the burst limit makes proc_capture_read
 * return before the end. */
static void test_capture_burst(const char *tmp)
{
	struct proc_capture c = PROC_CAPTURE_INIT(100);
	char *path = xasprintf("%s/big", tmp), *zeros = xcalloc(1, 3u << 20);
	struct err e = ERR_INIT;
	int fd = open(path, O_RDWR | O_CREAT | O_TRUNC, 0600), calls = 0, r = 0;

	ok(fd >= 0 && write(fd, zeros, 3u << 20) == 3 << 20 && lseek(fd, 0, SEEK_SET) == 0,
	   "a 3 MiB file");
	r = proc_capture_read(&c, fd, &e);
	ok(r == 0 && !c.eof && c.buf.len + c.dropped == PROC_CAPTURE_BURST,
	   "one proc_capture_read consumes exactly one burst (%llu bytes)",
	   (unsigned long long)(c.buf.len + c.dropped));
	while (!c.eof && r == 0 && calls++ < 10)
		r = proc_capture_read(&c, fd, &e);
	ok(c.eof && c.buf.len == 100 && c.dropped == (3u << 20) - 100,
	   "then the rest, to end of file, in %d more calls", calls);
	close(fd);
	unlink(path);
	free(path);
	free(zeros);
	proc_capture_release(&c);
	err_release(&e);
}

/* In tail mode the last cap bytes are kept: the end of a crash's output is what says why. */
static void test_capture_tail(const char *tmp)
{
	struct proc_capture c = PROC_CAPTURE_INIT(100);
	char *path = xasprintf("%s/text", tmp), *text = xmalloc(200001);
	struct err e = ERR_INIT;
	int fd, r = 0, calls = 0;

	for (size_t i = 0; i < 200000; i++)
		text[i] = (char)('a' + i % 26);
	fd = open(path, O_RDWR | O_CREAT | O_TRUNC, 0600);
	ok(fd >= 0 && write(fd, text, 200000) == 200000 && lseek(fd, 0, SEEK_SET) == 0, "a 200000-byte file");
	c.tail = true;
	while (!c.eof && r == 0 && calls++ < 10)
		r = proc_capture_read(&c, fd, &e);
	ok(c.eof && c.buf.len == 100 && !memcmp(c.buf.data, text + 199900, 100) && c.dropped == 199900,
	   "tail mode keeps the last 100 bytes and counts the rest as dropped");
	close(fd);
	unlink(path);
	free(path);
	free(text);
	proc_capture_release(&c);
	err_release(&e);
}

static void test_capture(void)
{
	struct child_process cp = PROC_INIT;
	struct proc_capture c = PROC_CAPTURE_INIT(1000);
	const char *head[] = { "head", "-c", "3000000", "/dev/zero", NULL };
	const char *sleeper[] = { "sleep", "100", NULL };
	const char *yes[] = { "yes", NULL };
	struct proc_status st = { -1, false, 0, false, false };
	struct err e = ERR_INIT;
	long long t0;
	int r;

	cp.argv = head;
	cp.out = PROC_PIPE;
	ok(proc_start(&cp, &e) == 0, "a child writing 3 MB: %s", e.msg);
	ok(drain(cp.fd_out, &c, 10000) == 0, "read to end of file");
	is_int((long long)c.buf.len, 1000, "the first 1000 bytes are kept");
	is_int((long long)c.dropped, 3000000 - 1000, "the rest is counted as dropped");
	ok(proc_wait(&cp, &st, &e) == 0 && st.code == 0, "the child was never blocked: exit 0");
	proc_release(&cp);
	proc_capture_release(&c);

	proc_init(&cp);
	proc_capture_init(&c, 1000);
	cp.argv = sleeper;
	cp.out = PROC_PIPE;
	proc_start(&cp, &e);
	t0 = now_ms();
	ok(proc_capture_read(&c, cp.fd_out, &e) == 0 && !c.eof && c.buf.len == 0 && now_ms() - t0 < 500,
	   "a silent child: proc_capture_read returns at once with nothing");
	proc_kill(&cp, 1000, NULL, &e);
	ok(proc_capture_read(&c, cp.fd_out, &e) == 0 && c.eof, "after it dies: end of file");
	proc_release(&cp);
	proc_capture_release(&c);

	proc_init(&cp);
	proc_capture_init(&c, 10);
	cp.argv = yes;
	cp.out = PROC_PIPE;
	proc_start(&cp, &e);
	usleep(50000);
	r = proc_capture_read(&c, cp.fd_out, &e);
	ok(r == 0 && !c.eof && c.buf.len + c.dropped <= PROC_CAPTURE_BURST + 65536 && c.buf.len == 10,
	   "a child that never stops writing: proc_capture_read returns after a burst (%llu bytes)",
	   (unsigned long long)(c.buf.len + c.dropped));
	proc_release(&cp);
	proc_capture_release(&c);
	err_release(&e);
}

static void test_misuse(void)
{
	struct child_process cp = PROC_INIT;
	const char *argv[] = { "true", NULL };
	struct err e = ERR_INIT;

	ok(proc_wait(&cp, NULL, &e) < 0, "proc_wait before proc_start is an error: %s", e.msg);
	err_release(&e);
	cp.argv = argv;
	ok(proc_start(&cp, &e) == 0 && proc_wait(&cp, NULL, &e) == 0, "start and wait for true");
	ok(proc_start(&cp, &e) < 0 && strstr(e.msg, "not released"), "a second start without release: %s",
	   e.msg);
	err_release(&e);
	proc_release(&cp);
	{
		struct proc_capture c = PROC_CAPTURE_INIT(10);

		ok(proc_capture_read(&c, -1, &e) < 0, "proc_capture_read of fd -1 is an error");
		err_release(&e);
	}
	cp.argv = argv;
	cp.out = PROC_STDOUT;
	ok(proc_start(&cp, &e) < 0 && strstr(e.msg, "stdout"), "stdout to stdout is an error: %s", e.msg);
	err_release(&e);
	cp.out = PROC_FILE;
	ok(proc_start(&cp, &e) < 0 && strstr(e.msg, "no file"), "PROC_FILE without a path: %s", e.msg);
	err_release(&e);
	proc_release(&cp);
}

/* Who sent the signal: ferry's own kill says so, a child's own death says that it was not ferry. */
static void test_sender(void)
{
	struct child_process cp = PROC_INIT;
	const char *sleeper[] = { "sleep", "100", NULL };
	const char *self_term[] = { "sh", "-c", "kill -TERM $$", NULL };
	const char *self_kill[] = { "sh", "-c", "kill -KILL $$", NULL };
	struct proc_status st = { -1, false, 0, false, false };
	struct buf b = BUF_INIT;
	struct err e = ERR_INIT;
	siginfo_t si;

	cp.argv = sleeper;
	ok(proc_start(&cp, &e) == 0 && proc_kill(&cp, 2000, &st, &e) == 0, "proc_kill sleep: %s", e.msg);
	ok(st.signaled && st.sig == SIGTERM && st.by_parent, "its SIGTERM is marked as ferry's");
	proc_status_describe(&st, &b);
	is(b.data, "killed by signal 15 (SIGTERM, sent by ferry)", "and described so");
	proc_release(&cp);

	proc_init(&cp);
	cp.argv = self_term;
	ok(proc_start(&cp, &e) == 0 && proc_wait(&cp, &st, &e) == 0, "a child that sends itself SIGTERM");
	ok(st.sig == SIGTERM && !st.by_parent, "its SIGTERM is not ferry's");
	buf_reset(&b);
	proc_status_describe(&st, &b);
	is(b.data, "killed by signal 15 (SIGTERM, not sent by ferry)", "and described so");
	proc_release(&cp);

	/* Ended on its own before proc_kill came: proc_kill must not take the blame for it. */
	proc_init(&cp);
	cp.argv = self_kill;
	ok(proc_start(&cp, &e) == 0, "a child that sends itself SIGKILL: %s", e.msg);
	memset(&si, 0, sizeof(si));
	waitid(P_PID, (id_t)cp.pid, &si, WEXITED | WNOWAIT);
	ok(proc_kill(&cp, 2000, &st, &e) == 0 && st.sig == SIGKILL && !st.by_parent,
	   "proc_kill after it died keeps its own SIGKILL, not ferry's");
	proc_release(&cp);
	buf_release(&b);
	err_release(&e);
}

static void test_stopped(void)
{
	struct child_process cp = PROC_INIT;
	const char *stopper[] = { "sh", "-c", "kill -STOP $$; exit 7", NULL };
	const char *sleeper[] = { "sleep", "100", NULL };
	struct proc_status st = { -1, false, 0, false, false };
	struct buf b = BUF_INIT;
	struct err e = ERR_INIT;
	long long deadline;
	int r = 0;

	cp.argv = sleeper;
	ok(proc_start(&cp, &e) == 0 && proc_stopped(&cp, &st, &e) == 0, "a running child is not stopped");
	proc_release(&cp);

	proc_init(&cp);
	cp.argv = stopper;
	ok(proc_start(&cp, &e) == 0, "start a child that stops itself: %s", e.msg);
	deadline = now_ms() + 5000;
	while ((r = proc_stopped(&cp, &st, &e)) == 0 && now_ms() < deadline)
		usleep(1000);
	is_int(r, 1, "proc_stopped sees the stop");
	ok(st.stopped && st.signaled && st.sig == SIGSTOP && st.code == 128 + SIGSTOP, "with its signal");
	proc_status_describe(&st, &b);
	is(b.data, "stopped by signal 19 (SIGSTOP)", "described as a stop");
	is_int(proc_stopped(&cp, &st, &e), 1, "asking again does not consume the stop");
	is_int(proc_try_wait(&cp, &st, &e), 0, "a stopped child has not ended");
	kill(cp.pid, SIGCONT);
	ok(proc_wait(&cp, &st, &e) == 0 && st.code == 7 && !st.stopped, "continued, it ends as it would");
	is_int(proc_stopped(&cp, &st, &e), 0, "an ended child is not stopped");
	proc_release(&cp);

	proc_init(&cp);
	cp.argv = stopper;
	ok(proc_start(&cp, &e) == 0, "again: %s", e.msg);
	deadline = now_ms() + 5000;
	while (proc_stopped(&cp, NULL, &e) == 0 && now_ms() < deadline)
		usleep(1000);
	ok(proc_kill(&cp, 2000, &st, &e) == 0 && st.sig == SIGTERM && st.by_parent,
	   "proc_kill ends a stopped child with its SIGTERM");
	proc_release(&cp);
	buf_release(&b);
	err_release(&e);
}

static pid_t read_pid(const char *path, int timeout_ms)
{
	long long deadline = now_ms() + timeout_ms;

	while (now_ms() < deadline) {
		FILE *f = fopen(path, "r");
		int pid = 0;

		if (f) {
			int n = fscanf(f, "%d", &pid);

			fclose(f);
			if (n == 1 && pid > 0)
				return (pid_t)pid;
		}
		usleep(5000);
	}
	return -1;
}

static int is_my_child(pid_t pid)
{
	char path[64], text[512], *p;
	FILE *f;
	int ppid = -1;

	snprintf(path, sizeof(path), "/proc/%d/stat", (int)pid);
	if (!(f = fopen(path, "r")))
		return 0;
	if (!fgets(text, sizeof(text), f))
		text[0] = '\0';
	fclose(f);
	p = strrchr(text, ')');
	if (!p || sscanf(p + 1, " %*c %d", &ppid) != 1)
		return 0;
	return ppid == (int)getpid();
}

/* A setsid grandchild escapes the group kill; as a subreaper we adopt it and proc_kill_strays ends
 * it, and the daemon's own child after it, while a child we keep lives on. */
static void test_strays(const char *tmp)
{
	struct child_process cp = PROC_INIT, kept = PROC_INIT;
	const char *sleeper[] = { "sleep", "100", NULL };
	const char *argv[] = { "sh", "-c", NULL, NULL };
	char *script, *gfile = xasprintf("%s/gc", tmp), *ggfile = xasprintf("%s/ggc", tmp);
	struct proc_status st;
	struct err e = ERR_INIT;
	bool was = false;
	pid_t gc, ggc, keep[1];
	int killed = -1, ws;

	ok(proc_set_subreaper(true, &was, &e) == 0 && was, "proc_set_subreaper reports the old setting: %s", e.msg);
	ok(proc_set_subreaper(false, &was, &e) == 0 && was, "it can be turned off");
	ok(proc_set_subreaper(true, &was, &e) == 0 && !was, "and on again");

	kept.argv = sleeper;
	ok(proc_start(&kept, &e) == 0, "a child to keep: %s", e.msg);
	keep[0] = kept.pid;

	/* The child waits for the daemon to be in its own session before it exits, or the group kill
	 * that follows its exit would catch the daemon before its setsid. */
	script = xasprintf("setsid sh -c 'sleep 200 & echo $! > %s; echo $$ > %s.tmp; mv %s.tmp %s; wait' "
			   ">/dev/null 2>&1 & while [ ! -s %s ]; do sleep 0.01; done", ggfile, gfile, gfile, gfile, gfile);
	argv[2] = script;
	cp.argv = argv;
	cp.kill_group_on_exit = true;
	ok(proc_start(&cp, &e) == 0 && proc_wait(&cp, &st, &e) == 0 && st.code == 0,
	   "a child leaves a setsid daemon behind and exits: %s", e.msg);
	gc = read_pid(gfile, 5000);
	ggc = read_pid(ggfile, 5000);
	ok(gc > 0 && kill(gc, 0) == 0, "the daemon (%d) survived the group kill", (int)gc);
	ok(gc > 0 && is_my_child(gc), "and was handed to us, the subreaper");
	ok(proc_kill_strays(keep, 1, 2000, &killed, &e) == 0, "proc_kill_strays: %s", e.msg);
	ok(gc > 0 && kill(gc, 0) < 0 && errno == ESRCH, "the daemon is killed and reaped");
	ok(ggc > 0 && kill(ggc, 0) < 0 && errno == ESRCH, "so is its own child (%d), orphaned in turn",
	   (int)ggc);
	ok(killed >= 2, "both counted (%d)", killed);
	ok(kill(kept.pid, 0) == 0 && waitpid(kept.pid, &ws, WNOHANG) == 0, "the child we keep lives on");
	ok(waitpid(-1, &ws, WNOHANG) == 0, "and it is our only child: no zombie is left");
	proc_release(&kept);

	/* A zombie stray is reaped too. */
	argv[2] = "sleep 100 & exit 0";
	proc_init(&cp);
	cp.argv = argv;
	ok(proc_start(&cp, &e) == 0 && proc_wait(&cp, &st, &e) == 0, "a child that leaves a sleeper");
	ok(proc_kill_strays(NULL, 0, 2000, &killed, &e) == 0 && killed == 1,
	   "the sleeper is killed with nothing kept (%d)", killed);
	ok(waitpid(-1, &ws, WNOHANG) < 0 && errno == ECHILD, "no child at all is left");
	proc_release(&cp);
	unlink(gfile);
	unlink(ggfile);
	free(script);
	free(gfile);
	free(ggfile);
	err_release(&e);
}

static void test_capture_add(void)
{
	struct proc_capture c = PROC_CAPTURE_INIT(10);

	proc_capture_add(&c, "0123456789abcdefghijklmno", 25);
	ok(c.buf.len == 10 && !strcmp(c.buf.data, "0123456789") && c.dropped == 15,
	   "proc_capture_add keeps the first cap bytes");
	proc_capture_release(&c);
	proc_capture_init(&c, 10);
	c.tail = true;
	proc_capture_add(&c, "0123456789", 10);
	proc_capture_add(&c, "abcde", 5);
	ok(!strcmp(c.buf.data, "56789abcde") && c.dropped == 5, "or, with tail, the last: '%s'", c.buf.data);
	proc_capture_release(&c);
}

int main(void)
{
	struct rlimit no_core = { 0, 0 };
	char tmpl[] = "/tmp/ferry-test-proc-XXXXXX";
	char *tmp;

	/* The signal tests crash children on purpose: no core files. */
	setrlimit(RLIMIT_CORE, &no_core);
	/* Orphaned grandchildren come to us, so that the tests can see how they died. */
	prctl(PR_SET_CHILD_SUBREAPER, 1);
	tmp = mkdtemp(tmpl);
	if (!tmp) {
		printf("1..0 # SKIP cannot create a temporary directory\n");
		return 0;
	}

	plan(130);
	test_exit_codes();
	test_signal();
	test_signal_reset();
	test_exec_failures();
	test_kill();
	test_group();
	test_release_kills();
	test_pipes();
	test_streams(tmp);
	test_env_and_dir(tmp);
	test_env_keep();
	test_fds_not_inherited();
	test_pass_fd(tmp);
	test_mem_limit();
	test_rss();
	test_capture();
	test_capture_burst(tmp);
	test_capture_tail(tmp);
	test_misuse();
	test_sender();
	test_stopped();
	test_strays(tmp);
	test_capture_add();
	rmdir(tmp);
	return done();
}
