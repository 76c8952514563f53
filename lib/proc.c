/* proc.c: child processes (see proc.h). Everything that can allocate or fail in an interesting way
 * happens in the parent before fork: the PATH lookup, the environment, the files and pipes. Between
 * fork and exec the child makes only async-signal-safe system calls, because the parent may be
 * multithreaded (the embedded interpreter, the libraries' thread pools) and a lock held by another
 * thread at fork time would never be released in the child. */
#define _GNU_SOURCE
#include "proc.h"
#include "xalloc.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

extern char **environ;

/* glibc's execvp falls back to this when PATH is unset (confstr(_CS_PATH)). */
#define DEFAULT_PATH "/bin:/usr/bin"
/* Without close_range, the child closes descriptors one by one up to the soft RLIMIT_NOFILE; a
 * container may set that to a billion, so the loop stops here. */
#define CLOSE_LOOP_MAX 65536
/* How many rounds proc_kill_strays makes at most: each kills the orphans the last one's deaths
 * handed over, so only a tree that forks faster than it is killed needs more. */
#define STRAY_ROUNDS_MAX 64

/* What the child tells the parent through the report pipe when it cannot exec. */
enum child_stage { STAGE_SETPGID, STAGE_STDIO, STAGE_CHDIR, STAGE_RLIMIT, STAGE_EXEC };

struct child_report {
	int stage;
	int errnum;
};

/* Everything the child needs, prepared by the parent so that the child only makes system calls. */
struct launch {
	const char *path;
	char *const *argv;
	char *const *envp;
	const char *dir;
	int src[3];      /* descriptor to become fd 0, 1, 2; -1: leave the inherited one */
	bool err_to_out;
	int report_fd;
	int pass_fd;     /* -1, or the descriptor to become PROC_PASSED_FD */
	bool set_rlimit;
	struct rlimit rl;
	int close_max;
};

void proc_init(struct child_process *cp)
{
	struct child_process zero = PROC_INIT;

	*cp = zero;
}

static void close_fd(int *fd)
{
	if (*fd >= 0)
		close(*fd);
	*fd = -1;
}

static void set_status(struct child_process *cp, int wstatus)
{
	struct proc_status st = { 0, false, 0, false, false };

	if (WIFSIGNALED(wstatus)) {
		st.signaled = true;
		st.sig = WTERMSIG(wstatus);
		st.code = 128 + st.sig;
	} else {
		st.code = WEXITSTATUS(wstatus);
	}
	cp->status = st;
	cp->reaped = true;
}

static int reap(struct child_process *cp, struct err *e)
{
	int ws;

	while (waitpid(cp->pid, &ws, 0) < 0) {
		if (errno != EINTR)
			return err_errno(e, EXIT_ENV, "cannot wait for process %d", (int)cp->pid);
	}
	set_status(cp, ws);
	return 0;
}

/* Signal the child's process group, and the child itself if it has left the group (setsid), so
 * that neither escapes. */
static void signal_group(pid_t pid, int sig)
{
	kill(-pid, sig);
	if (getpgid(pid) != pid)
		kill(pid, sig);
}

void proc_release(struct child_process *cp)
{
	struct err e = ERR_INIT;

	if (cp->pid > 0 && !cp->reaped) {
		signal_group(cp->pid, SIGKILL);
		if (reap(cp, &e) == 0 && cp->status.signaled && cp->status.sig == SIGKILL)
			cp->status.by_parent = true;
	}
	close_fd(&cp->fd_in);
	close_fd(&cp->fd_out);
	close_fd(&cp->fd_err);
	cp->pid = -1;
	cp->reaped = false;
	err_release(&e);
}

/* Variable name length of a "K=V" or "K" entry. */
static size_t env_name_len(const char *s)
{
	const char *eq = strchr(s, '=');

	return eq ? (size_t)(eq - s) : strlen(s);
}

static bool env_same_name(const char *a, const char *b)
{
	size_t n = env_name_len(a);

	return n == env_name_len(b) && memcmp(a, b, n) == 0;
}

/* Whether keep (NULL: everything) names the variable of entry, a "K=V" string. */
static bool env_kept(const char *const *keep, const char *entry)
{
	size_t n = env_name_len(entry);

	if (!keep)
		return true;
	for (size_t i = 0; keep[i]; i++) {
		size_t k = strlen(keep[i]);

		if (k && keep[i][k - 1] == '*' ? n >= k - 1 && memcmp(entry, keep[i], k - 1) == 0
					       : n == k && memcmp(entry, keep[i], k) == 0)
			return true;
	}
	return false;
}

/* The parent's environment, cut to what keep names, with the caller's changes applied. The array
 * is owned by the caller; the strings are borrowed from environ and the changes. */
static char **build_envp(const char *const *keep, const char *const *changes)
{
	size_t n_env = 0, n_changes = 0, n = 0;
	char **envp;

	while (environ && environ[n_env])
		n_env++;
	while (changes && changes[n_changes])
		n_changes++;
	envp = xcalloc(n_env + n_changes + 1, sizeof(*envp));
	for (size_t i = 0; i < n_env; i++) {
		bool changed = !env_kept(keep, environ[i]);

		for (size_t j = 0; j < n_changes && !changed; j++)
			changed = env_same_name(environ[i], changes[j]);
		if (!changed)
			envp[n++] = environ[i];
	}
	for (size_t j = 0; j < n_changes; j++) {
		bool later = false;

		/* The last change to a name wins, as if they were applied in order. */
		for (size_t k = j + 1; k < n_changes && !later; k++)
			later = env_same_name(changes[j], changes[k]);
		if (!later && strchr(changes[j], '='))
			envp[n++] = (char *)changes[j];
	}
	envp[n] = NULL;
	return envp;
}

/* The PATH that argv[0] is looked up in: the child's, which the caller's changes may set. */
static const char *lookup_path(const char *const *changes)
{
	const char *path = getenv("PATH");

	for (size_t j = 0; changes && changes[j]; j++) {
		if (env_same_name(changes[j], "PATH")) {
			const char *eq = strchr(changes[j], '=');

			path = eq ? eq + 1 : NULL;
		}
	}
	return path ? path : DEFAULT_PATH;
}

char *proc_find_program(const char *name, const char *path)
{
	const char *p = path ? path : getenv("PATH");

	if (strchr(name, '/'))
		return access(name, X_OK) == 0 ? xstrdup(name) : NULL;
	if (!p || !*p)
		p = DEFAULT_PATH;

	for (;;) {
		const char *end = strchr(p, ':');
		size_t len = end ? (size_t)(end - p) : strlen(p);
		/* An empty PATH entry means the current directory. */
		char *cand = len ? xasprintf("%.*s/%s", (int)len, p, name) : xasprintf("./%s", name);
		struct stat sb;

		if (stat(cand, &sb) == 0 && S_ISREG(sb.st_mode) && access(cand, X_OK) == 0)
			return cand;
		free(cand);
		if (!end)
			return NULL;
		p = end + 1;
	}
}

static void __attribute__((noreturn)) report_and_exit(int fd, enum child_stage stage)
{
	struct child_report r = { (int)stage, errno };
	ssize_t n;

	do
		n = write(fd, &r, sizeof(r));
	while (n < 0 && errno == EINTR);
	_exit(127);
}

/* Move fd to first or above, out of the way of the descriptors about to be installed below first
 * (the standard streams, the passed descriptor), so that installing them cannot clobber it. */
static int move_from_below(int fd, int first)
{
	return fd >= 0 && fd < first ? fcntl(fd, F_DUPFD_CLOEXEC, first) : fd;
}

/* Close every descriptor from first up, but keep. */
static void close_fds_from(int first, int keep, int close_max)
{
#ifdef SYS_close_range
	bool ok = true;

	if (keep > first)
		ok = syscall(SYS_close_range, (unsigned)first, (unsigned)keep - 1, 0u) == 0;
	if (ok && syscall(SYS_close_range, (unsigned)keep + 1, ~0u, 0u) == 0)
		return;
#endif
	for (int fd = first; fd < close_max; fd++) {
		if (fd != keep)
			close(fd);
	}
}

/* The child, between fork and exec: async-signal-safe calls only. */
static void __attribute__((noreturn)) run_child(struct launch *l)
{
	struct sigaction dfl;
	sigset_t none;

	if (setpgid(0, 0) < 0)
		report_and_exit(l->report_fd, STAGE_SETPGID);

	/* The report pipe and the passed descriptor go above every descriptor the child gets. */
	l->report_fd = move_from_below(l->report_fd, PROC_PASSED_FD + 1);
	if (l->report_fd < 0)
		_exit(127);
	if (l->pass_fd >= 0 && (l->pass_fd = move_from_below(l->pass_fd, PROC_PASSED_FD + 1)) < 0)
		report_and_exit(l->report_fd, STAGE_STDIO);
	for (int i = 0; i < 3; i++) {
		if (l->src[i] >= 0 && (l->src[i] = move_from_below(l->src[i], 3)) < 0)
			report_and_exit(l->report_fd, STAGE_STDIO);
	}
	for (int i = 0; i < 3; i++) {
		if (l->src[i] >= 0 && dup2(l->src[i], i) < 0)
			report_and_exit(l->report_fd, STAGE_STDIO);
	}
	if (l->err_to_out && dup2(1, 2) < 0)
		report_and_exit(l->report_fd, STAGE_STDIO);
	/* dup2 leaves the copy without close-on-exec: it is the child's. */
	if (l->pass_fd >= 0 && dup2(l->pass_fd, PROC_PASSED_FD) < 0)
		report_and_exit(l->report_fd, STAGE_STDIO);
	close_fds_from(l->pass_fd >= 0 ? PROC_PASSED_FD + 1 : 3, l->report_fd, l->close_max);

	if (l->dir && chdir(l->dir) < 0)
		report_and_exit(l->report_fd, STAGE_CHDIR);
	/* setrlimit is not on POSIX's async-signal-safe list, but on Linux it is one system call. */
	if (l->set_rlimit && setrlimit(RLIMIT_AS, &l->rl) < 0)
		report_and_exit(l->report_fd, STAGE_RLIMIT);

	/* Ignored signals stay ignored across exec; a compiler must die of SIGPIPE or SIGSEGV as it
	 * would from a shell, whatever ferry itself does with them. */
	memset(&dfl, 0, sizeof(dfl));
	dfl.sa_handler = SIG_DFL;
	sigemptyset(&dfl.sa_mask);
	for (int sig = 1; sig < NSIG; sig++)
		sigaction(sig, &dfl, NULL);
	sigemptyset(&none);
	sigprocmask(SIG_SETMASK, &none, NULL);

	execve(l->path, l->argv, l->envp);
	report_and_exit(l->report_fd, STAGE_EXEC);
}

/* Open the child's end of one stream: a pipe (the parent's end goes to *parent) or a file. */
static int open_stream(int which, enum proc_io io, const char *path, int *child, int *parent,
		       struct err *e)
{
	static const char *const names[] = { "stdin", "stdout", "stderr" };
	int fds[2];

	*child = -1;
	*parent = -1;
	switch (io) {
	case PROC_INHERIT:
		return 0;
	case PROC_STDOUT:
		if (which != 2)
			return err_set(e, EXIT_USAGE, "cannot send %s to stdout", names[which]);
		return 0;
	case PROC_NULL:
		path = "/dev/null";
		/* fall through */
	case PROC_FILE:
		if (!path)
			return err_set(e, EXIT_USAGE, "no file given for the child's %s", names[which]);
		/* /dev/null is opened as it is, never created: were it missing, O_CREAT would make a
		 * regular file of it, and every later reader of "nothing" would read old output. */
		*child = which == 0 ? open(path, O_RDONLY | O_CLOEXEC)
			: io == PROC_NULL ? open(path, O_WRONLY | O_CLOEXEC)
				    : open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0666);
		if (*child < 0)
			return err_errno(e, EXIT_ENV, "cannot open '%s'", path);
		return 0;
	case PROC_PIPE:
		/* CLOEXEC on both ends: another thread's child must not inherit them, or the reader
		 * would never see end of file. */
		if (pipe2(fds, O_CLOEXEC) < 0)
			return err_errno(e, EXIT_ENV, "cannot create a pipe");
		*child = which == 0 ? fds[0] : fds[1];
		*parent = which == 0 ? fds[1] : fds[0];
		return 0;
	}
	return err_set(e, EXIT_USAGE, "bad mode %d for the child's %s", (int)io, names[which]);
}

static void describe_failure(const struct child_process *cp, const struct launch *l,
			     const struct child_report *r, struct err *e)
{
	const char *prog = cp->argv[0];

	errno = r->errnum;
	switch (r->stage) {
	case STAGE_SETPGID:
		err_errno(e, EXIT_ENV, "cannot make a process group for '%s'", prog);
		break;
	case STAGE_STDIO:
		err_errno(e, EXIT_ENV, "cannot set up the standard streams of '%s'", prog);
		break;
	case STAGE_CHDIR:
		err_errno(e, EXIT_ENV, "cannot change to directory '%s' to run '%s'", l->dir, prog);
		break;
	case STAGE_RLIMIT:
		err_errno(e, EXIT_ENV, "cannot limit the memory of '%s' to %llu bytes", prog,
			  (unsigned long long)l->rl.rlim_cur);
		break;
	default:
		err_errno(e, EXIT_ENV, "cannot run '%s'", prog);
		break;
	}
}

int proc_start(struct child_process *cp, struct err *e)
{
	struct launch l;
	enum proc_io modes[3] = { cp->in, cp->out, cp->err };
	const char *paths[3] = { cp->in_path, cp->out_path, cp->err_path };
	int parent_fd[3] = { -1, -1, -1 }, report[2] = { -1, -1 };
	char *path = NULL, **envp = NULL;
	struct child_report r;
	sigset_t all, old;
	ssize_t n;
	pid_t pid;
	int ret = -1;

	memset(&l, 0, sizeof(l));
	l.src[0] = l.src[1] = l.src[2] = -1;
	/* Its pipe ends and status belong to the last child until proc_release. */
	if (cp->pid > 0) {
		err_set(e, EXIT_USAGE, "process %d was started with this struct and not released",
			(int)cp->pid);
		goto out;
	}
	cp->reaped = false;
	if (!cp->argv || !cp->argv[0] || !cp->argv[0][0]) {
		err_set(e, EXIT_USAGE, "no program to run");
		goto out;
	}

	if (strchr(cp->argv[0], '/')) {
		path = xstrdup(cp->argv[0]);
	} else if (!(path = proc_find_program(cp->argv[0], lookup_path(cp->env)))) {
		err_set(e, EXIT_ENV, "cannot run '%s': not found in PATH", cp->argv[0]);
		goto out;
	}
	envp = build_envp(cp->env_keep, cp->env);

	for (int i = 0; i < 3; i++) {
		if (open_stream(i, modes[i], paths[i], &l.src[i], &parent_fd[i], e) < 0)
			goto out;
	}
	if (pipe2(report, O_CLOEXEC) < 0) {
		err_errno(e, EXIT_ENV, "cannot create a pipe");
		goto out;
	}

	l.path = path;
	l.argv = (char *const *)cp->argv;
	l.envp = envp;
	l.dir = cp->dir;
	l.err_to_out = cp->err == PROC_STDOUT;
	l.report_fd = report[1];
	l.pass_fd = cp->pass_fd;
	if (cp->mem_limit) {
		struct rlimit cur;

		/* An unprivileged process cannot raise its hard limit: never ask for more. */
		if (getrlimit(RLIMIT_AS, &cur) < 0) {
			err_errno(e, EXIT_ENV, "cannot read the memory limit");
			goto out;
		}
		l.set_rlimit = true;
		l.rl.rlim_cur = l.rl.rlim_max = cp->mem_limit;
		if (cur.rlim_max != RLIM_INFINITY && cur.rlim_max < l.rl.rlim_max)
			l.rl.rlim_cur = l.rl.rlim_max = cur.rlim_max;
	}
	{
		long m = sysconf(_SC_OPEN_MAX);

		l.close_max = m < 0 || m > CLOSE_LOOP_MAX ? CLOSE_LOOP_MAX : (int)m;
	}

	/* Blocked across fork, so that none of the parent's handlers runs in the child before it has
	 * reset them; sigprocmask acts on the calling thread only on Linux, as pthread_sigmask. */
	sigfillset(&all);
	sigprocmask(SIG_SETMASK, &all, &old);
	pid = fork();
	if (pid == 0)
		run_child(&l);
	sigprocmask(SIG_SETMASK, &old, NULL);
	if (pid < 0) {
		err_errno(e, EXIT_ENV, "cannot fork to run '%s'", cp->argv[0]);
		goto out;
	}

	close_fd(&report[1]);
	do
		n = read(report[0], &r, sizeof(r));
	while (n < 0 && errno == EINTR);
	if (n != 0) {
		int ws;

		/* The child reported a failure (or the pipe broke, which should not happen): either way
		 * it did not exec and is exiting; reap it so that nothing is left behind. */
		while (waitpid(pid, &ws, 0) < 0 && errno == EINTR)
			;
		if (n == (ssize_t)sizeof(r))
			describe_failure(cp, &l, &r, e);
		else
			err_set(e, EXIT_ENV, "cannot run '%s': lost contact with the child", cp->argv[0]);
		goto out;
	}

	cp->pid = pid;
	cp->fd_in = parent_fd[0];
	cp->fd_out = parent_fd[1];
	cp->fd_err = parent_fd[2];
	parent_fd[0] = parent_fd[1] = parent_fd[2] = -1;
	ret = 0;
out:
	for (int i = 0; i < 3; i++) {
		close_fd(&l.src[i]);
		close_fd(&parent_fd[i]);
	}
	close_fd(&report[0]);
	close_fd(&report[1]);
	free(envp);
	free(path);
	return ret;
}

static int check_started(const struct child_process *cp, struct err *e)
{
	if (cp->pid <= 0)
		return err_set(e, EXIT_USAGE, "no child process to wait for");
	return 0;
}

/* Wait until the leader has exited without reaping it: while it is a zombie its pid, and so its
 * process group id, cannot be reused, and the group can be signalled without hitting a stranger.
 * Returns 1 when it has exited, 0 when not (only with WNOHANG), -1 on error. */
static int wait_exited(struct child_process *cp, int flags, struct err *e)
{
	siginfo_t si;

	for (;;) {
		memset(&si, 0, sizeof(si));
		if (waitid(P_PID, (id_t)cp->pid, &si, WEXITED | WNOWAIT | flags) == 0)
			return si.si_pid != 0;
		if (errno != EINTR)
			return err_errno(e, EXIT_ENV, "cannot wait for process %d", (int)cp->pid);
	}
}

static int finish(struct child_process *cp, struct proc_status *st, struct err *e)
{
	if (cp->kill_group_on_exit)
		kill(-cp->pid, SIGKILL);
	if (reap(cp, e) < 0)
		return -1;
	if (st)
		*st = cp->status;
	return 0;
}

int proc_wait(struct child_process *cp, struct proc_status *st, struct err *e)
{
	if (check_started(cp, e) < 0)
		return -1;
	if (!cp->reaped) {
		if (wait_exited(cp, 0, e) < 0)
			return -1;
		return finish(cp, st, e);
	}
	if (st)
		*st = cp->status;
	return 0;
}

int proc_try_wait(struct child_process *cp, struct proc_status *st, struct err *e)
{
	int r;

	if (check_started(cp, e) < 0)
		return -1;
	if (!cp->reaped) {
		r = wait_exited(cp, WNOHANG, e);
		if (r <= 0)
			return r;
		if (finish(cp, st, e) < 0)
			return -1;
		return 1;
	}
	if (st)
		*st = cp->status;
	return 1;
}

static long long now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (long long)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

int proc_kill(struct child_process *cp, int grace_ms, struct proc_status *st, struct err *e)
{
	long long deadline;
	long nap_us = 500;
	int r, ended;

	if (check_started(cp, e) < 0)
		return -1;
	if (cp->reaped) {
		if (st)
			*st = cp->status;
		return 0;
	}
	/* A child that has already ended keeps the status it ended with: ferry must not take the
	 * blame for a death, nor a child for ferry's signal. The group is still signalled, for what
	 * the leader left behind. */
	if ((ended = wait_exited(cp, WNOHANG, e)) < 0)
		return -1;
	signal_group(cp->pid, SIGTERM);
	signal_group(cp->pid, SIGCONT);
	deadline = now_ms() + (grace_ms > 0 ? grace_ms : 0);
	while ((r = wait_exited(cp, WNOHANG, e)) == 0) {
		long long left = deadline - now_ms();
		struct timespec ts;

		if (left <= 0)
			break;
		/* Short naps first: most children die at once, and a kill should not cost 10 ms. */
		if (nap_us > left * 1000)
			nap_us = (long)(left * 1000);
		ts.tv_sec = 0;
		ts.tv_nsec = nap_us * 1000;
		nanosleep(&ts, NULL);
		if (nap_us < 10000)
			nap_us *= 2;
	}
	if (r < 0)
		return -1;
	signal_group(cp->pid, SIGKILL);
	if (reap(cp, e) < 0)
		return -1;
	if (!ended && cp->status.signaled && (cp->status.sig == SIGTERM || cp->status.sig == SIGKILL))
		cp->status.by_parent = true;
	if (st)
		*st = cp->status;
	return 0;
}

int proc_stopped(struct child_process *cp, struct proc_status *st, struct err *e)
{
	siginfo_t si;

	if (check_started(cp, e) < 0)
		return -1;
	if (cp->reaped)
		return 0;
	/* WNOWAIT: the stop stays reportable (and a later SIGCONT still clears it). */
	for (;;) {
		memset(&si, 0, sizeof(si));
		if (waitid(P_PID, (id_t)cp->pid, &si, WSTOPPED | WNOHANG | WNOWAIT) == 0)
			break;
		if (errno != EINTR)
			return err_errno(e, EXIT_ENV, "cannot wait for process %d", (int)cp->pid);
	}
	if (si.si_pid == 0 || si.si_code != CLD_STOPPED)
		return 0;
	if (st) {
		memset(st, 0, sizeof(*st));
		st->stopped = true;
		st->signaled = true;
		st->sig = si.si_status;
		st->code = 128 + si.si_status;
	}
	return 1;
}

void proc_status_describe(const struct proc_status *st, struct buf *out)
{
	static const struct { int sig; const char *name; } names[] = {
		{ SIGHUP, "SIGHUP" }, { SIGINT, "SIGINT" }, { SIGQUIT, "SIGQUIT" }, { SIGILL, "SIGILL" },
		{ SIGTRAP, "SIGTRAP" }, { SIGABRT, "SIGABRT" }, { SIGBUS, "SIGBUS" }, { SIGFPE, "SIGFPE" },
		{ SIGKILL, "SIGKILL" }, { SIGUSR1, "SIGUSR1" }, { SIGSEGV, "SIGSEGV" },
		{ SIGUSR2, "SIGUSR2" }, { SIGPIPE, "SIGPIPE" }, { SIGALRM, "SIGALRM" },
		{ SIGTERM, "SIGTERM" }, { SIGXCPU, "SIGXCPU" }, { SIGXFSZ, "SIGXFSZ" }, { SIGSYS, "SIGSYS" },
		{ SIGSTOP, "SIGSTOP" }, { SIGTSTP, "SIGTSTP" }, { SIGTTIN, "SIGTTIN" }, { SIGTTOU, "SIGTTOU" },
	};

	if (!st->signaled) {
		buf_addf(out, "exit status %d", st->code);
		return;
	}
	buf_addf(out, "%s by signal %d", st->stopped ? "stopped" : "killed", st->sig);
	for (size_t i = 0; i < sizeof(names) / sizeof(names[0]); i++) {
		if (names[i].sig == st->sig) {
			buf_addf(out, " (%s", names[i].name);
			/* These two are the ones ferry sends: say whose they were. */
			if (!st->stopped && (st->sig == SIGTERM || st->sig == SIGKILL))
				buf_adds(out, st->by_parent ? ", sent by ferry" : ", not sent by ferry");
			buf_addc(out, ')');
			break;
		}
	}
}

int proc_set_subreaper(bool on, bool *was, struct err *e)
{
#ifdef PR_SET_CHILD_SUBREAPER
	int cur = 0;

	if (prctl(PR_GET_CHILD_SUBREAPER, &cur, 0, 0, 0) < 0)
		return err_errno(e, EXIT_ENV, "cannot ask whether this process is a child subreaper");
	if (was)
		*was = cur != 0;
	if (prctl(PR_SET_CHILD_SUBREAPER, on ? 1 : 0, 0, 0, 0) < 0)
		return err_errno(e, EXIT_ENV, "cannot make this process a child subreaper");
	return 0;
#else
	(void)on;
	if (was)
		*was = false;
	return err_set(e, EXIT_ENV, "this system has no child subreaper");
#endif
}

/* Read a small /proc file whole into b (size bytes, NUL-terminated). Returns -1 with errno. */
static int read_small(const char *path, char *b, size_t size)
{
	size_t len = 0;
	ssize_t n;
	int fd = open(path, O_RDONLY | O_CLOEXEC);

	if (fd < 0)
		return -1;
	while (len + 1 < size) {
		n = read(fd, b + len, size - 1 - len);
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0) {
			int saved = errno;

			close(fd);
			errno = saved;
			return -1;
		}
		if (n == 0)
			break;
		len += (size_t)n;
	}
	b[len] = '\0';
	close(fd);
	return 0;
}

int proc_rss(pid_t pid, uint64_t *bytes, struct err *e)
{
	char path[64], text[256];
	unsigned long long size, resident;

	snprintf(path, sizeof(path), "/proc/%d/statm", (int)pid);
	if (read_small(path, text, sizeof(text)) < 0)
		return err_errno(e, EXIT_ENV, "cannot read the memory use of process %d", (int)pid);
	if (sscanf(text, "%llu %llu", &size, &resident) != 2)
		return err_set(e, EXIT_ENV, "cannot parse '%s'", path);
	*bytes = (uint64_t)resident * (uint64_t)sysconf(_SC_PAGESIZE);
	return 0;
}

/* From the text of /proc/PID/stat, the state, the parent, the process group and the resident pages.
 * The command name (field 2) may hold spaces and parentheses, so fields are counted from the last
 * ')'. */
static int parse_stat(const char *text, char *state, long long *ppid, long long *pgrp,
		      unsigned long long *rss)
{
	const char *p = strrchr(text, ')');
	int field = 2;

	if (!p)
		return -1;
	p++;
	while (*p) {
		char *end;

		while (*p == ' ')
			p++;
		if (!*p)
			break;
		field++;
		if (field == 3)
			*state = *p;
		else if (field == 4)
			*ppid = strtoll(p, &end, 10);
		else if (field == 5)
			*pgrp = strtoll(p, &end, 10);
		else if (field == 24) {
			*rss = strtoull(p, &end, 10);
			return 0;
		}
		while (*p && *p != ' ')
			p++;
	}
	return -1;
}

/* One process of /proc, as the scans below need it. */
struct proc_entry {
	pid_t pid;
	char state;
	long long ppid, pgrp;
	unsigned long long rss; /* pages */
};

/* Call fn for every process in /proc whose stat can be read (a process may exit between readdir and
 * open: it is simply not seen). */
static int proc_each(void (*fn)(const struct proc_entry *p, void *ctx), void *ctx, struct err *e)
{
	struct dirent *de;
	DIR *d = opendir("/proc");

	if (!d)
		return err_errno(e, EXIT_ENV, "cannot open '/proc'");
	while ((de = readdir(d))) {
		struct proc_entry p = { 0, '?', -1, -1, 0 };
		char path[300], text[1024];

		if (de->d_name[0] < '1' || de->d_name[0] > '9')
			continue;
		snprintf(path, sizeof(path), "/proc/%s/stat", de->d_name);
		if (read_small(path, text, sizeof(text)) < 0 ||
		    parse_stat(text, &p.state, &p.ppid, &p.pgrp, &p.rss) < 0)
			continue;
		p.pid = (pid_t)atoi(de->d_name);
		fn(&p, ctx);
	}
	closedir(d);
	return 0;
}

struct group_rss {
	pid_t pgid;
	uint64_t pages;
	int count;
};

static void add_group_rss(const struct proc_entry *p, void *ctx)
{
	struct group_rss *g = ctx;

	/* A zombie stays in its group until reaped but holds no memory: not a member that counts. */
	if (p->pgrp != (long long)g->pgid || p->state == 'Z' || p->state == 'X')
		return;
	g->pages += p->rss;
	g->count++;
}

int proc_group_rss(pid_t pgid, uint64_t *bytes, int *nprocs, struct err *e)
{
	struct group_rss g = { pgid, 0, 0 };

	if (proc_each(add_group_rss, &g, e) < 0)
		return -1;
	*bytes = g.pages * (uint64_t)sysconf(_SC_PAGESIZE);
	if (nprocs)
		*nprocs = g.count;
	return 0;
}

void proc_capture_init(struct proc_capture *c, size_t cap)
{
	buf_init(&c->buf);
	c->cap = cap;
	c->dropped = 0;
	c->eof = false;
	c->tail = false;
}

void proc_capture_release(struct proc_capture *c)
{
	buf_release(&c->buf);
	c->dropped = 0;
	c->eof = false;
}

/* Append n bytes keeping only the last cap of everything read. */
static void capture_tail(struct proc_capture *c, const char *p, size_t n)
{
	size_t excess;

	if (n >= c->cap) {
		c->dropped += c->buf.len + (n - c->cap);
		buf_reset(&c->buf);
		buf_add(&c->buf, p + (n - c->cap), c->cap);
		return;
	}
	excess = c->buf.len + n > c->cap ? c->buf.len + n - c->cap : 0;
	if (excess) {
		memmove(c->buf.data, c->buf.data + excess, c->buf.len - excess);
		c->buf.len -= excess;
		c->buf.data[c->buf.len] = '\0';
		c->dropped += excess;
	}
	buf_add(&c->buf, p, n);
}

void proc_capture_add(struct proc_capture *c, const char *p, size_t n)
{
	size_t keep;

	if (c->tail) {
		capture_tail(c, p, n);
		return;
	}
	keep = c->buf.len < c->cap ? c->cap - c->buf.len : 0;
	if (keep > n)
		keep = n;
	buf_add(&c->buf, p, keep);
	c->dropped += (uint64_t)(n - keep);
}

int proc_capture_read(struct proc_capture *c, int fd, struct err *e)
{
	char chunk[65536];
	size_t consumed = 0;

	/* poll would skip a negative fd silently and make it look like a quiet child. */
	if (fd < 0)
		return err_set(e, EXIT_USAGE, "no descriptor to read from");

	while (!c->eof && consumed < PROC_CAPTURE_BURST) {
		struct pollfd pfd = { fd, POLLIN, 0 };
		size_t keep;
		ssize_t n;
		int r = poll(&pfd, 1, 0);

		if (r < 0 && errno == EINTR)
			continue;
		if (r < 0)
			return err_errno(e, EXIT_ENV, "cannot poll descriptor %d", fd);
		if (r == 0)
			return 0;
		/* poll said readable (or hung up), so this read does not block even on a blocking fd. */
		n = read(fd, chunk, sizeof(chunk));
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0 && (errno == EAGAIN || errno == EWOULDBLOCK))
			return 0;
		if (n < 0)
			return err_errno(e, EXIT_ENV, "cannot read from descriptor %d", fd);
		if (n == 0) {
			c->eof = true;
			break;
		}
		consumed += (size_t)n;
		if (c->tail) {
			capture_tail(c, chunk, (size_t)n);
			continue;
		}
		keep = c->buf.len < c->cap ? c->cap - c->buf.len : 0;
		if (keep > (size_t)n)
			keep = (size_t)n;
		buf_add(&c->buf, chunk, keep);
		c->dropped += (uint64_t)n - keep;
	}
	return 0;
}

struct strays {
	long long self;
	const pid_t *keep;
	size_t nkeep;
	pid_t *v;
	size_t n, cap;
};

static void add_stray(const struct proc_entry *p, void *ctx)
{
	struct strays *s = ctx;

	if (p->ppid != s->self)
		return;
	for (size_t i = 0; i < s->nkeep; i++)
		if (s->keep[i] == p->pid)
			return;
	if (s->n == s->cap) {
		s->cap = s->cap ? 2 * s->cap : 16;
		s->v = xrealloc(s->v, s->cap * sizeof(*s->v));
	}
	s->v[s->n++] = p->pid;
}

/* The children of this process that are not in keep, into *v (grown as needed; *n of them). */
static int list_strays(const pid_t *keep, size_t nkeep, pid_t **v, size_t *n, size_t *cap, struct err *e)
{
	struct strays s = { (long long)getpid(), keep, nkeep, *v, 0, *cap };
	int r = proc_each(add_stray, &s, e);

	*v = s.v;
	*n = s.n;
	*cap = s.cap;
	return r;
}

int proc_kill_strays(const pid_t *keep, size_t nkeep, int wait_ms, int *killed, struct err *e)
{
	long long deadline = now_ms() + (wait_ms > 0 ? wait_ms : 0);
	pid_t *v = NULL;
	size_t n = 0, cap = 0;
	int reaped = 0, ret = -1;

	for (int round = 0; round < STRAY_ROUNDS_MAX; round++) {
		size_t left;

		if (list_strays(keep, nkeep, &v, &n, &cap, e) < 0)
			goto out;
		if (!n)
			break;
		/* A child of ours cannot be reused by another process before we reap it, so these
		 * pids, read from /proc a moment ago, still name the same processes. */
		for (size_t i = 0; i < n; i++)
			kill(v[i], SIGKILL);
		left = n;
		for (;;) {
			struct timespec nap = { 0, 1000000 };

			for (size_t i = 0; i < n; i++) {
				int ws;
				pid_t r;

				if (v[i] <= 0)
					continue;
				while ((r = waitpid(v[i], &ws, WNOHANG)) < 0 && errno == EINTR)
					;
				if (r == 0)
					continue;
				if (r == v[i])
					reaped++;
				v[i] = 0;
				left--;
			}
			if (!left || now_ms() >= deadline)
				break;
			nanosleep(&nap, NULL);
		}
		if (left)
			break;
	}
	ret = 0;
out:
	free(v);
	if (killed)
		*killed = reaped;
	return ret;
}

void proc_catch_signals(void (*handler)(int), struct proc_signals *saved)
{
	struct sigaction sa, ign;

	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = handler;
	sigemptyset(&sa.sa_mask);
	sigaction(SIGINT, &sa, &saved->intr);
	sigaction(SIGTERM, &sa, &saved->term);
	memset(&ign, 0, sizeof(ign));
	ign.sa_handler = SIG_IGN;
	sigemptyset(&ign.sa_mask);
	sigaction(SIGPIPE, &ign, &saved->pipe);
}

void proc_restore_signals(const struct proc_signals *saved, int restore_pipe)
{
	sigaction(SIGINT, &saved->intr, NULL);
	sigaction(SIGTERM, &saved->term, NULL);
	if (restore_pipe)
		sigaction(SIGPIPE, &saved->pipe, NULL);
}
