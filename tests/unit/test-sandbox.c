/* test-sandbox.c: lib/sandbox.c: scratch directories are made, locked while their maker lives, and
 * removed whatever the code that ran there left behind (without following a link out of them);
 * abandoned ones are cleaned up, live ones never; paths are shown through the links on the way to
 * them; the seccomp filter denies what it says (loaded here, in a child, and tried); and where bwrap
 * works, its sandbox shows only what was added, read-only, without capabilities or network. */
#define _GNU_SOURCE
#include "proc.h"
#include "sandbox.h"
#include "tap.h"
#include "xalloc.h"

#include <errno.h>
#include <fcntl.h>
#include <linux/filter.h>
#include <linux/seccomp.h>
#include <sched.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/ioctl.h>
#include <sys/mount.h>
#include <sys/prctl.h>
#include <sys/ptrace.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

static int is_dir(const char *dir, const char *sub)
{
	char *p = xasprintf("%s/%s", dir, sub);
	struct stat sb;
	int r = stat(p, &sb) == 0 && S_ISDIR(sb.st_mode);

	free(p);
	return r;
}

static int exists(const char *dir, const char *sub)
{
	char *p = xasprintf("%s/%s", dir, sub);
	struct stat sb;
	int r = lstat(p, &sb) == 0;

	free(p);
	return r;
}

/* Run sh -c script in the sandbox of sb around scratch; its exit code, or -1. */
static int run_in(const struct sandbox *sb, const char *scratch, const char *script)
{
	const char *cmd[] = { "sh", "-c", script, NULL };
	char **argv = sandbox_argv(sb, scratch, cmd);
	struct child_process cp = PROC_INIT;
	struct proc_status st;
	struct err e = ERR_INIT;
	int r = -1;

	cp.argv = (const char *const *)argv;
	cp.in = PROC_NULL;
	cp.err = PROC_NULL;
	if (sandbox_seccomp_fd(sb, &cp.pass_fd, &e) == 0 && proc_start(&cp, &e) == 0 &&
	    proc_wait(&cp, &st, &e) == 0)
		r = st.code;
	if (cp.pass_fd >= 0)
		close(cp.pass_fd);
	proc_release(&cp);
	err_release(&e);
	sandbox_argv_free(argv);
	return r;
}

/* Whether argv holds the option opt (followed by value, when not NULL). */
static int has(char **argv, const char *opt, const char *value)
{
	for (size_t i = 0; argv[i]; i++)
		if (!strcmp(argv[i], opt) && (!value || (argv[i + 1] && !strcmp(argv[i + 1], value))))
			return 1;
	return 0;
}

/* The calls the filter must deny, tried in a child that loaded it: a bit per call that was not
 * denied as it should be. */
enum {
	F_TIOCSTI = 1 << 0, F_TIOCSTI_HIGH = 1 << 1, F_MOUNT = 1 << 2, F_UNSHARE = 1 << 3, F_CLONE_NS = 1 << 4,
	F_CLONE3 = 1 << 5, F_PTRACE = 1 << 6, F_KEYCTL = 1 << 7, F_ALLOWED = 1 << 8, F_LOAD = 1 << 9,
};

static int try_filter(const struct buf *bpf)
{
	struct sock_fprog prog = { (unsigned short)(bpf->len / sizeof(struct sock_filter)),
				   (struct sock_filter *)bpf->data };
	int status, pty, bad = 0;
	pid_t pid = fork();

	if (pid < 0)
		return -1;
	if (pid > 0) {
		if (waitpid(pid, &status, 0) < 0 || !WIFEXITED(status))
			return -1;
		return WEXITSTATUS(status);
	}
	/* A terminal to type into: one of our own, not the user's. */
	pty = posix_openpt(O_RDWR | O_NOCTTY);
	if (pty < 0 || grantpt(pty) < 0 || unlockpt(pty) < 0 || (pty = open(ptsname(pty), O_RDWR | O_NOCTTY)) < 0)
		_exit(0xff);
	if (prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) < 0 || prctl(PR_SET_SECCOMP, SECCOMP_MODE_FILTER, &prog) < 0)
		_exit(F_LOAD);
	{
		char c = 'x';

		if (!(ioctl(pty, TIOCSTI, &c) < 0 && errno == EPERM))
			bad |= F_TIOCSTI;
		/* the request is 32 bits to the kernel: bits above must not hide it from the filter */
		if (!(syscall(SYS_ioctl, pty, (unsigned long)TIOCSTI | (1ul << 32), &c) < 0 && errno == EPERM))
			bad |= F_TIOCSTI_HIGH;
	}
	/* denied before the kernel looks: EPERM, not the ENOENT of a missing mount point */
	if (!(mount("none", "/nonexistent/ferry-test", "tmpfs", 0, NULL) < 0 && errno == EPERM))
		bad |= F_MOUNT;
	if (!(unshare(CLONE_NEWUSER) < 0 && errno == EPERM))
		bad |= F_UNSHARE;
	{
		long r = syscall(SYS_clone, (unsigned long)(CLONE_NEWNET | SIGCHLD), 0, 0, 0, 0);

		if (r == 0)
			_exit(0);
		if (r > 0)
			waitpid((pid_t)r, NULL, 0);
		if (!(r < 0 && errno == EPERM))
			bad |= F_CLONE_NS;
	}
#ifdef SYS_clone3
	if (!(syscall(SYS_clone3, NULL, 0) < 0 && errno == ENOSYS))
		bad |= F_CLONE3;
#endif
	if (!(ptrace(PTRACE_TRACEME, 0, NULL, NULL) < 0 && errno == EPERM))
		bad |= F_PTRACE;
	/* KEYCTL_GET_KEYRING_ID (0) of the session keyring (-3) */
	if (!(syscall(SYS_keyctl, 0, -3, 0) < 0 && errno == EPERM))
		bad |= F_KEYCTL;
	/* what a test does use still works: a plain fork and an ordinary ioctl */
	{
		pid_t child = fork();
		int winsz[4];

		if (child == 0)
			_exit(0);
		if (child < 0 || waitpid(child, NULL, 0) < 0 || ioctl(pty, TIOCGWINSZ, winsz) < 0)
			bad |= F_ALLOWED;
	}
	_exit(bad);
}

/* A system call through another ABI (32-bit int 0x80 on x86-64) must not slip past rules written in
 * this ABI's numbers: the filter kills the process. Returns the signal that ended the child, 0 when
 * it exited, -1 when this cannot be tried here. */
static int try_foreign_abi(const struct buf *bpf)
{
#if defined(__x86_64__)
	struct sock_fprog prog = { (unsigned short)(bpf->len / sizeof(struct sock_filter)),
				   (struct sock_filter *)bpf->data };
	int status;
	pid_t pid = fork();

	if (pid < 0)
		return -1;
	if (pid == 0) {
		long r = 20; /* getpid in the 32-bit table */

		if (prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) < 0 || prctl(PR_SET_SECCOMP, SECCOMP_MODE_FILTER, &prog) < 0)
			_exit(1);
		__asm__ volatile("int $0x80" : "+a"(r) : : "memory");
		_exit(0);
	}
	if (waitpid(pid, &status, 0) < 0)
		return -1;
	return WIFSIGNALED(status) ? WTERMSIG(status) : 0;
#else
	(void)bpf;
	return -1;
#endif
}

int main(void)
{
	struct err e = ERR_INIT;
	struct sandbox sb;
	char outside[] = "/tmp/ferry-test-sandbox.XXXXXX";
	char *scratch, *p;
	const char *cmd[] = { "true", "x", NULL };
	char **argv;
	struct stat st;
	size_t n;
	int lock, other, r;

	plan(39);
	if (!mkdtemp(outside))
		return 1;
	setenv("TMPDIR", outside, 1);

	/* --- scratch directories --- */
	scratch = sandbox_scratch_new(&lock, &e);
	ok(scratch && !strncmp(scratch, outside, strlen(outside)), "a scratch directory is made under $TMPDIR");
	ok(scratch && is_dir(scratch, "home") && is_dir(scratch, "tmp"), "... with home/ and tmp/ in it");
	ok(scratch && exists(scratch, "passwd") && exists(scratch, "group"), "... and a password database of its own");
	p = xasprintf("%s/owner", scratch);
	other = open(p, O_RDONLY);
	ok(lock >= 0 && other >= 0 && flock(other, LOCK_EX | LOCK_NB) < 0 && errno == EWOULDBLOCK,
	   "... whose owner file is locked while its maker lives");
	if (other >= 0)
		close(other);
	free(p);

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
	ok(stat(scratch, &st) < 0, "... all of it");
	p = xasprintf("%s/keep/file", outside);
	ok(stat(p, &st) == 0, "... and a link out of it was not followed");
	unlink(p);
	free(p);
	p = xasprintf("%s/keep", outside);
	rmdir(p);
	free(p);
	free(scratch);
	close(lock);

	/* --- leftovers: only ferry's own, only abandoned ones --- */
	{
		int live_lock, dead_lock;
		char *live = sandbox_scratch_new(&live_lock, &e);
		char *dead = sandbox_scratch_new(&dead_lock, &e);
		char *bare = xasprintf("%s/ferry-scratch.abcDEF", outside);
		char *other_name = xasprintf("%s/ferry-scratch.keepme-too", outside);
		char *link = xasprintf("%s/ferry-scratch.LINK00", outside);
		char *target = xasprintf("%s/target", outside);
		char *target_owner = xasprintf("%s/target/owner", outside);
		size_t removed;

		/* the one whose maker is gone (a killed harvest): its lock is released */
		close(dead_lock);
		mkdir(bare, 0700);
		mkdir(other_name, 0700);
		mkdir(target, 0700);
		fclose(fopen(target_owner, "w"));
		symlink(target, link);
		p = xasprintf("%s/owner", other_name);
		fclose(fopen(p, "w"));
		free(p);
		removed = sandbox_scratch_clean();
		ok(removed == 1 && stat(dead, &st) < 0, "a scratch directory whose maker is gone is removed (%zu)", removed);
		ok(live && stat(live, &st) == 0 && exists(live, "owner"), "... one whose maker lives is not");
		ok(stat(bare, &st) == 0, "... nor one without an owner file (not provably abandoned)");
		ok(stat(other_name, &st) == 0, "... nor a name that is not ferry's pattern");
		ok(lstat(link, &st) == 0 && stat(target_owner, &st) == 0, "... nor a link, nor what it points to");
		sandbox_scratch_remove(live, &e);
		close(live_lock);
		sandbox_scratch_remove(bare, &e);
		sandbox_scratch_remove(other_name, &e);
		sandbox_scratch_remove(target, &e);
		unlink(link);
		free(live);
		free(dead);
		free(bare);
		free(other_name);
		free(link);
		free(target);
		free(target_owner);
	}

	/* --- what the sandbox shows --- */
	sandbox_init(&sb);
	{
		char *real = xasprintf("%s/real", outside), *via = xasprintf("%s/via", outside);
		char *file = xasprintf("%s/real/file", outside), *through = xasprintf("%s/via/file", outside);
		int bound = 0, linked = 0;

		mkdir(real, 0755);
		fclose(fopen(file, "w"));
		symlink("real", via);
		sandbox_add(&sb, through);
		sandbox_add(&sb, "/nonexistent/ferry");
		sandbox_add(&sb, "/");
		for (size_t i = 0; i < sb.nbinds; i++)
			bound += !strcmp(sb.binds[i], file);
		for (size_t i = 0; i < sb.nlinks; i++)
			linked += !strcmp(sb.links[2 * i], via) && !strcmp(sb.links[2 * i + 1], "real");
		ok(bound == 1 && sb.nbinds == 1, "a path is bound where its links lead (%zu binds)", sb.nbinds);
		ok(linked == 1 && sb.nlinks == 1, "... and each link on the way is made again (%zu links)", sb.nlinks);
		unlink(file);
		unlink(via);
		rmdir(real);
		free(real);
		free(via);
		free(file);
		free(through);
	}
	sandbox_release(&sb);

	argv = sandbox_argv(NULL, "/s", cmd);
	ok(!strcmp(argv[0], "true") && !strcmp(argv[1], "x") && !argv[2], "without bwrap, the argv is the command's");
	sandbox_argv_free(argv);
	sandbox_init(&sb);
	sb.bwrap = xstrdup("/usr/bin/bwrap");
	sb.parts = SANDBOX_ALL;
	argv = sandbox_argv(&sb, "/s", cmd);
	for (n = 0; argv[n]; n++)
		;
	ok(!strcmp(argv[0], "/usr/bin/bwrap") && n > 3 && !strcmp(argv[n - 3], "--") &&
	   !strcmp(argv[n - 2], "true") && !strcmp(argv[n - 1], "x"), "with bwrap, bwrap's options, --, then the command");
	ok(has(argv, "--new-session", NULL) && has(argv, "--unshare-user", NULL) && has(argv, "--cap-drop", "ALL") &&
	   has(argv, "--disable-userns", NULL) && has(argv, "--seccomp", "3") && has(argv, "--unshare-net", NULL) &&
	   has(argv, "--unshare-ipc", NULL) && has(argv, "--unshare-uts", NULL) && has(argv, "--unshare-pid", NULL),
	   "... a new session, user, network, IPC, UTS and pid namespaces, no capabilities, the filter");
	ok(!has(argv, "--ro-bind", "/") && has(argv, "--remount-ro", "/"), "... and not the host's root, a read-only one");
	sandbox_argv_free(argv);
	sandbox_release(&sb);

	setenv("FERRY_BWRAP", "/nonexistent/bwrap", 1);
	sandbox_init(&sb);
	ok(sandbox_setup(&sb, &e) < 0 && strstr(e.msg, "Debian package bubblewrap"),
	   "a missing bwrap is named by its package (%s)", e.msg);
	sandbox_release(&sb);
	err_release(&e);
	unsetenv("FERRY_BWRAP");

	/* --- the filter, loaded here in a child --- */
	sandbox_init(&sb);
	sandbox_add_system(&sb);
	p = xasprintf("%s/shown", outside);
	mkdir(p, 0755);
	sandbox_add(&sb, p);
	free(p);
	p = xasprintf("%s/shown/file", outside);
	fclose(fopen(p, "w"));
	free(p);
	r = sandbox_setup(&sb, &e);
	if (r < 0 || !sb.bpf.len) {
		for (int i = 0; i < 10; i++)
			ok(1, "# SKIP no seccomp filter here: %s", r < 0 ? e.msg : sb.why.data);
	} else {
		int bad = try_filter(&sb.bpf);

		ok(bad >= 0 && !(bad & F_LOAD), "the filter loads (%d)", bad);
		ok(bad >= 0 && !(bad & F_TIOCSTI), "ioctl TIOCSTI is denied");
		ok(bad >= 0 && !(bad & F_TIOCSTI_HIGH), "... also with bits above its 32 set");
		ok(bad >= 0 && !(bad & F_MOUNT), "mount is denied");
		ok(bad >= 0 && !(bad & F_UNSHARE), "unshare is denied");
		ok(bad >= 0 && !(bad & F_CLONE_NS), "clone into a new namespace is denied");
		ok(bad >= 0 && !(bad & F_CLONE3), "clone3 says ENOSYS, so that the C library uses clone");
		ok(bad >= 0 && !(bad & (F_PTRACE | F_KEYCTL)), "ptrace and keyctl are denied");
		ok(bad >= 0 && !(bad & F_ALLOWED), "fork and an ordinary ioctl still work");
		bad = try_foreign_abi(&sb.bpf);
		if (bad < 0 || bad == SIGSEGV)
			ok(1, "# SKIP no 32-bit system calls to try here");
		else
			ok(bad == SIGSYS, "a 32-bit system call kills the process (signal %d)", bad);
	}

	/* --- the sandbox itself, where bwrap works --- */
	if (r < 0) {
		for (int i = 0; i < 10; i++)
			ok(1, "# SKIP bwrap cannot make a sandbox here: %s", e.msg);
	} else {
		struct buf missing = BUF_INIT;
		char *script, *secret = xasprintf("%s/secret", outside);

		sandbox_missing(&sb, &missing);
		/* where the machine refuses a part, the caller must be told which */
		ok(sb.parts == SANDBOX_ALL || missing.len, "every part is there, or what is missing is said (%s)",
		   missing.len ? missing.data : "all there");
		fclose(fopen(secret, "w"));
		scratch = sandbox_scratch_new(&lock, &e);
		ok(run_in(&sb, scratch, "touch ./inside") == 0, "in the sandbox, the scratch directory is writable");
		script = xasprintf("cat '%s/shown/file' && ! touch '%s/shown/file' '%s/shown/new'", outside, outside,
				   outside);
		ok(run_in(&sb, scratch, script) == 0, "what was added can be read, not written");
		free(script);
		script = xasprintf("touch '%s/escaped'", outside);
		run_in(&sb, scratch, script);
		free(script);
		p = xasprintf("%s/escaped", outside);
		ok(stat(p, &st) < 0, "... and a write elsewhere (its own /tmp) does not reach the host");
		free(p);
		ok(run_in(&sb, scratch, "touch /x || touch /usr/x; test ! -e /x -a ! -e /usr/x") == 0,
		   "... not even on the sandbox's own root");
		script = xasprintf("test ! -e '%s' && ! ls '%s' | grep -q secret", secret, outside);
		ok(run_in(&sb, scratch, script) == 0, "a file outside what was added is not there to read or list");
		free(script);
		script = xasprintf("test \"$(pwd)\" = '%s'", scratch);
		ok(run_in(&sb, scratch, script) == 0, "the command runs in the scratch directory");
		free(script);
		if (sb.parts & SANDBOX_CAPS)
			ok(run_in(&sb, scratch, "grep -q '^CapEff:[[:space:]]*0*$' /proc/self/status") == 0,
			   "no capability is left, even to root");
		else
			ok(1, "# SKIP capabilities cannot be dropped here");
		if (sb.parts & SANDBOX_NET)
			ok(run_in(&sb, scratch, "test \"$(grep -c : /proc/net/dev)\" = 1 && grep -q 'lo:' /proc/net/dev") == 0,
			   "the only network interface is a loopback of its own");
		else
			ok(1, "# SKIP no network namespace here");
		ok(run_in(&sb, scratch, "exec 3</dev/tty") != 0, "there is no terminal to open");
		unlink(secret);
		free(secret);
		buf_release(&missing);
		sandbox_scratch_remove(scratch, &e);
		close(lock);
		free(scratch);
	}
	sandbox_release(&sb);
	err_release(&e);
	p = xasprintf("%s/shown", outside);
	sandbox_scratch_remove(p, &e);
	free(p);
	rmdir(outside);
	return done();
}
