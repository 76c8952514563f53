/* sandbox.c: the scratch directory and the bubblewrap sandbox for untrusted code (see sandbox.h). */
#define _GNU_SOURCE
#include "sandbox.h"
#include "proc.h"
#include "xalloc.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <ftw.h>
#include <limits.h>
#include <pwd.h>
#include <grp.h>
#include <sched.h>
#include <seccomp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

/* What bwrap may print on stderr while it tries: enough for its one-line complaint. */
#define PROBE_STDERR_CAP 4096
/* Symbolic links followed on the way to one path before it is given up (the kernel's limit). */
#define MAX_LINKS 40
#define SCRATCH_PREFIX "ferry-scratch."
/* mkdtemp's XXXXXX */
#define SCRATCH_SUFFIX_LEN 6
#define OWNER "owner"

void sandbox_init(struct sandbox *sb)
{
	memset(sb, 0, sizeof(*sb));
	buf_init(&sb->bpf);
	buf_init(&sb->why);
}

void sandbox_release(struct sandbox *sb)
{
	for (size_t i = 0; i < sb->nbinds; i++)
		free(sb->binds[i]);
	for (size_t i = 0; i < 2 * sb->nlinks; i++)
		free(sb->links[i]);
	free(sb->binds);
	free(sb->links);
	free(sb->bwrap);
	buf_release(&sb->bpf);
	buf_release(&sb->why);
	sandbox_init(sb);
}

/* --- what the sandbox shows ---------------------------------------------------------------------- */

/* Whether path is dir or under it. */
static int under(const char *path, const char *dir)
{
	size_t n = strlen(dir);

	if (n == 1 && dir[0] == '/')
		return 1;
	return !strncmp(path, dir, n) && (path[n] == '\0' || path[n] == '/');
}

static void add_bind(struct sandbox *sb, const char *real)
{
	for (size_t i = 0; i < sb->nbinds; i++)
		if (!strcmp(sb->binds[i], real))
			return;
	XGROW(sb->binds, sb->binds_cap, sb->nbinds + 1);
	sb->binds[sb->nbinds++] = xstrdup(real);
}

static void add_link(struct sandbox *sb, const char *where, const char *target)
{
	for (size_t i = 0; i < sb->nlinks; i++)
		if (!strcmp(sb->links[2 * i], where))
			return;
	XGROW(sb->links, sb->links_cap, 2 * (sb->nlinks + 1));
	sb->links[2 * sb->nlinks] = xstrdup(where);
	sb->links[2 * sb->nlinks + 1] = xstrdup(target);
	sb->nlinks++;
}

/* Walk path one component at a time, as the kernel does: a symbolic link on the way is recorded
 * (where it is, what it says) and the walk goes on through its target, so that the sandbox can make
 * the same links and bind only real directories and files. */
void sandbox_add(struct sandbox *sb, const char *path)
{
	struct buf cur = BUF_INIT, todo = BUF_INIT, next = BUF_INIT;
	char target[PATH_MAX];
	int links = 0;

	if (!path || path[0] != '/')
		return;
	buf_adds(&todo, path);
	buf_adds(&cur, "");
	for (;;) {
		const char *p = todo.data, *end;
		size_t len;
		struct stat st;
		ssize_t n;

		p += strspn(p, "/");
		if (!*p)
			break;
		end = p + strcspn(p, "/");
		len = (size_t)(end - p);
		if (len == 1 && p[0] == '.') {
			memmove(todo.data, end, strlen(end) + 1);
			todo.len = strlen(todo.data);
			continue;
		}
		if (len == 2 && p[0] == '.' && p[1] == '.') {
			char *slash = strrchr(cur.data, '/');

			if (slash) {
				*slash = '\0';
				cur.len = (size_t)(slash - cur.data);
			}
			memmove(todo.data, end, strlen(end) + 1);
			todo.len = strlen(todo.data);
			continue;
		}
		buf_reset(&next);
		buf_addf(&next, "%s/%.*s", cur.data, (int)len, p);
		if (lstat(next.data, &st) < 0)
			goto out;
		if (!S_ISLNK(st.st_mode)) {
			buf_reset(&cur);
			buf_adds(&cur, next.data);
			memmove(todo.data, end, strlen(end) + 1);
			todo.len = strlen(todo.data);
			continue;
		}
		if (++links > MAX_LINKS || (n = readlink(next.data, target, sizeof(target) - 1)) <= 0)
			goto out;
		target[n] = '\0';
		add_link(sb, next.data, target);
		/* The rest of the walk: the target (from / or from the link's directory), then what
		 * followed the link. */
		{
			struct buf rest = BUF_INIT;

			buf_addf(&rest, "%s%s%s%s", target[0] == '/' ? "" : cur.data, target[0] == '/' ? "" : "/",
				 target, end);
			buf_reset(&todo);
			buf_adds(&todo, rest.data);
			buf_release(&rest);
			buf_reset(&cur);
			buf_adds(&cur, "");
		}
	}
	/* The root itself is never shown whole: that is what the sandbox is for. */
	if (cur.len)
		add_bind(sb, cur.data);
out:
	buf_release(&cur);
	buf_release(&todo);
	buf_release(&next);
}

/* Every file mapped into this process: ferry's binary, libpython and the other shared libraries,
 * wherever configure found them. */
static void add_mapped(struct sandbox *sb)
{
	FILE *fp = fopen("/proc/self/maps", "re");
	char line[PATH_MAX + 256];

	if (!fp)
		return;
	while (fgets(line, sizeof(line), fp)) {
		char *path = strchr(line, '/');
		size_t n;
		struct stat st;

		if (!path)
			continue;
		n = strcspn(path, "\n");
		path[n] = '\0';
		/* "(deleted)" files and what lives in /dev (a shared mapping of /dev/zero) are not files
		 * to show. */
		if (strstr(path, " (deleted)") || !strncmp(path, "/dev/", 5) || !strncmp(path, "/proc/", 6) ||
		    stat(path, &st) < 0 || !S_ISREG(st.st_mode))
			continue;
		sandbox_add(sb, path);
	}
	fclose(fp);
}

void sandbox_add_system(struct sandbox *sb)
{
	static const char *const paths[] = {
		"/usr", "/bin", "/sbin", "/lib", "/lib32", "/lib64", "/libx32",
		/* the dynamic loader's cache and configuration; the C library's name service switch; the
		 * time zone; the links that Debian's alternatives put under /usr/bin. Not the password
		 * database (the scratch directory has one of its own), no keys, no certificates. */
		"/etc/ld.so.cache", "/etc/ld.so.conf", "/etc/ld.so.conf.d", "/etc/nsswitch.conf",
		"/etc/localtime", "/etc/timezone", "/etc/alternatives",
		/* how many CPUs there are: thread pools size themselves by it */
		"/sys/devices/system/cpu",
	};
	const char *ld = getenv("LD_LIBRARY_PATH");

	for (size_t i = 0; i < sizeof(paths) / sizeof(paths[0]); i++)
		sandbox_add(sb, paths[i]);
	add_mapped(sb);
	if (ld && *ld) {
		char *copy = xstrdup(ld), *save = NULL;

		for (char *d = strtok_r(copy, ":", &save); d; d = strtok_r(NULL, ":", &save))
			sandbox_add(sb, d);
		free(copy);
	}
}

/* --- the seccomp filter -------------------------------------------------------------------------- */

/* System calls a test has no use for, denied with EPERM. Names this architecture does not have are
 * passed over (libseccomp says so). */
static const char *const denied_calls[] = {
	/* the file system's shape: the read-only binds stay read-only even with a capability */
	"mount", "umount", "umount2", "pivot_root", "chroot", "move_mount", "open_tree", "fsopen", "fsconfig",
	"fsmount", "fspick", "mount_setattr",
	/* other processes' memory */
	"ptrace", "process_vm_readv", "process_vm_writev",
	/* the kernel keyring, shared with the host's processes of the same user */
	"keyctl", "add_key", "request_key",
	/* new namespaces, where capabilities come back (clone is below, by its flags) */
	"unshare", "setns",
	/* the kernel's large and often vulnerable interfaces */
	"bpf", "perf_event_open", "userfaultfd", "io_uring_setup", "io_uring_enter", "io_uring_register",
	/* the machine's */
	"kexec_load", "kexec_file_load", "init_module", "finit_module", "delete_module", "reboot", "swapon",
	"swapoff", "syslog", "acct", "iopl", "ioperm", "quotactl", "lookup_dcookie", "uselib", "vhangup",
	/* files by handle, past the mount namespace */
	"open_by_handle_at", "name_to_handle_at",
};

/* Namespace flags of clone: a process made with any of them could get its capabilities back. */
static const unsigned long clone_ns_flags[] = {
	CLONE_NEWNS, CLONE_NEWCGROUP, CLONE_NEWUTS, CLONE_NEWIPC, CLONE_NEWUSER, CLONE_NEWPID, CLONE_NEWNET,
#ifdef CLONE_NEWTIME
	CLONE_NEWTIME,
#endif
};

/* Build the filter into sb->bpf. The architecture is this build's (libseccomp checks it first in the
 * program): a system call made through another ABI (32-bit calls on x86-64) kills the process, since
 * the rules here name this ABI's numbers. */
static int build_filter(struct sandbox *sb, struct err *e)
{
	scmp_filter_ctx ctx = seccomp_init(SCMP_ACT_ALLOW);
	int fd = -1, rc = 0, r = -1;
	const char *what = "";
	char chunk[4096];
	ssize_t n;

	if (!ctx)
		return err_set(e, EXIT_ENV, "cannot make a seccomp filter (libseccomp)");
	if ((rc = seccomp_attr_set(ctx, SCMP_FLTATR_ACT_BADARCH, SCMP_ACT_KILL_PROCESS)) < 0) {
		what = "bad architecture";
		goto fail;
	}
	for (size_t i = 0; i < sizeof(denied_calls) / sizeof(denied_calls[0]); i++) {
		int nr = seccomp_syscall_resolve_name(denied_calls[i]);

		if (nr < 0)
			continue;
		if ((rc = seccomp_rule_add(ctx, SCMP_ACT_ERRNO(EPERM), nr, 0)) < 0) {
			what = denied_calls[i];
			goto fail;
		}
	}
	/* The ioctl request is an unsigned int to the kernel: only its low 32 bits are compared, so that
	 * high bits set in the 64-bit argument cannot slip past. */
	if ((rc = seccomp_rule_add(ctx, SCMP_ACT_ERRNO(EPERM), SCMP_SYS(ioctl), 1,
				   SCMP_A1(SCMP_CMP_MASKED_EQ, 0xffffffffu, (scmp_datum_t)TIOCSTI))) < 0 ||
	    (rc = seccomp_rule_add(ctx, SCMP_ACT_ERRNO(EPERM), SCMP_SYS(ioctl), 1,
				   SCMP_A1(SCMP_CMP_MASKED_EQ, 0xffffffffu, (scmp_datum_t)TIOCLINUX))) < 0) {
		what = "ioctl";
		goto fail;
	}
	for (size_t i = 0; i < sizeof(clone_ns_flags) / sizeof(clone_ns_flags[0]); i++) {
		/* clone's flags are its first argument on the architectures ferry builds for (not s390) */
		if ((rc = seccomp_rule_add(ctx, SCMP_ACT_ERRNO(EPERM), SCMP_SYS(clone), 1,
					   SCMP_A0(SCMP_CMP_MASKED_EQ, clone_ns_flags[i], clone_ns_flags[i]))) < 0) {
			what = "clone";
			goto fail;
		}
	}
	/* clone3 passes its flags in memory, out of a filter's sight: ENOSYS makes the C library fall
	 * back to clone, whose flags are checked above. */
	if (seccomp_syscall_resolve_name("clone3") >= 0 &&
	    (rc = seccomp_rule_add(ctx, SCMP_ACT_ERRNO(ENOSYS), seccomp_syscall_resolve_name("clone3"), 0)) < 0) {
		what = "clone3";
		goto fail;
	}
	if ((fd = memfd_create("ferry-seccomp", MFD_CLOEXEC)) < 0) {
		err_errno(e, EXIT_ENV, "cannot make a seccomp filter: memfd_create");
		goto out;
	}
	if ((rc = seccomp_export_bpf(ctx, fd)) < 0) {
		what = "export";
		goto fail;
	}
	if (lseek(fd, 0, SEEK_SET) < 0) {
		err_errno(e, EXIT_ENV, "cannot make a seccomp filter: lseek");
		goto out;
	}
	buf_reset(&sb->bpf);
	while ((n = read(fd, chunk, sizeof(chunk))) > 0)
		buf_add(&sb->bpf, chunk, (size_t)n);
	if (n < 0) {
		err_errno(e, EXIT_ENV, "cannot make a seccomp filter: read");
		goto out;
	}
	r = 0;
	goto out;
fail:
	err_set(e, EXIT_ENV, "cannot make a seccomp filter (libseccomp, %s): %s", what, strerror(-rc));
out:
	if (fd >= 0)
		close(fd);
	seccomp_release(ctx);
	return r;
}

int sandbox_seccomp_fd(const struct sandbox *sb, int *fd, struct err *e)
{
	*fd = -1;
	if (!sb || !sb->bwrap || !(sb->parts & SANDBOX_SECCOMP) || !sb->bpf.len)
		return 0;
	if ((*fd = memfd_create("ferry-seccomp", MFD_CLOEXEC)) < 0)
		return err_errno(e, EXIT_ENV, "cannot pass the seccomp filter: memfd_create");
	if (write(*fd, sb->bpf.data, sb->bpf.len) != (ssize_t)sb->bpf.len || lseek(*fd, 0, SEEK_SET) < 0) {
		err_errno(e, EXIT_ENV, "cannot pass the seccomp filter");
		close(*fd);
		*fd = -1;
		return -1;
	}
	return 0;
}

/* --- the argv ------------------------------------------------------------------------------------ */

struct argv_b {
	char **v;
	size_t n, cap;
};

static void push(struct argv_b *a, const char *s)
{
	XGROW(a->v, a->cap, a->n + 2);
	a->v[a->n++] = xstrdup(s);
	a->v[a->n] = NULL;
}

static void push_path(struct argv_b *a, const char *dir, const char *name)
{
	char *p = xasprintf("%s/%s", dir, name);

	push(a, p);
	free(p);
}

static int by_path(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

/* The options of the parts in parts, and the file system; no "--" and no command. */
static void options(const struct sandbox *sb, unsigned parts, const char *scratch, struct argv_b *a)
{
	char **binds = xcalloc(sb->nbinds + 1, sizeof(*binds));
	size_t nb = 0;

	push(a, sb->bwrap);
	/* Namespaces first, so that a machine that refuses one says so before anything is mounted. */
	if (parts & SANDBOX_USERNS)
		push(a, "--unshare-user");
	if ((parts & SANDBOX_NOUSERNS) && (parts & SANDBOX_USERNS))
		push(a, "--disable-userns");
	if (parts & SANDBOX_CAPS) {
		push(a, "--cap-drop");
		push(a, "ALL");
	}
	if (parts & SANDBOX_NET)
		push(a, "--unshare-net");
	if (parts & SANDBOX_IPC)
		push(a, "--unshare-ipc");
	if (parts & SANDBOX_UTS)
		push(a, "--unshare-uts");
	if (parts & SANDBOX_SECCOMP) {
		char fd[16];

		snprintf(fd, sizeof(fd), "%d", PROC_PASSED_FD);
		push(a, "--seccomp");
		push(a, fd);
	}
	/* A test's stray processes cannot outlive it, nor signal ferry; it has no terminal. */
	push(a, "--unshare-pid");
	push(a, "--die-with-parent");
	push(a, "--new-session");
	/* The root is a tmpfs of bwrap's, made read-only below once everything is mounted on it. */
	push(a, "--dev");
	push(a, "/dev");
	push(a, "--proc");
	push(a, "/proc");
	push(a, "--tmpfs");
	push(a, "/tmp");
	/* Parents before their children (sorted), and nothing already shown by a parent. */
	for (size_t i = 0; i < sb->nbinds; i++)
		binds[nb++] = sb->binds[i];
	qsort(binds, nb, sizeof(*binds), by_path);
	for (size_t i = 0; i < nb; i++) {
		int shown = 0;

		for (size_t j = 0; j < i && !shown; j++)
			shown = binds[j] && under(binds[i], binds[j]);
		if (shown) {
			binds[i] = NULL;
			continue;
		}
		push(a, "--ro-bind");
		push(a, binds[i]);
		push(a, binds[i]);
	}
	for (size_t i = 0; i < sb->nlinks; i++) {
		const char *where = sb->links[2 * i];
		int shown = 0;

		/* a link inside a bound directory is there already, as the host has it */
		for (size_t j = 0; j < nb && !shown; j++)
			shown = binds[j] && under(where, binds[j]);
		if (shown)
			continue;
		push(a, "--symlink");
		push(a, sb->links[2 * i + 1]);
		push(a, where);
	}
	if (scratch) {
		push(a, "--bind");
		push(a, scratch);
		push(a, scratch);
		/* The lock that says the directory is in use: the test cannot replace it. */
		push(a, "--ro-bind");
		push_path(a, scratch, OWNER);
		push_path(a, scratch, OWNER);
		push(a, "--ro-bind");
		push_path(a, scratch, "passwd");
		push(a, "/etc/passwd");
		push(a, "--ro-bind");
		push_path(a, scratch, "group");
		push(a, "/etc/group");
		push(a, "--chdir");
		push(a, scratch);
	}
	push(a, "--remount-ro");
	push(a, "/");
	free(binds);
}

char **sandbox_argv(const struct sandbox *sb, const char *scratch, const char *const *argv)
{
	struct argv_b a = { NULL, 0, 0 };

	if (sb && sb->bwrap) {
		options(sb, sb->parts, scratch, &a);
		push(&a, "--");
	}
	for (size_t i = 0; argv[i]; i++)
		push(&a, argv[i]);
	if (!a.v)
		a.v = xcalloc(1, sizeof(*a.v));
	return a.v;
}

void sandbox_argv_free(char **argv)
{
	for (size_t i = 0; argv && argv[i]; i++)
		free(argv[i]);
	free(argv);
}

/* --- probing ------------------------------------------------------------------------------------- */

/* Run bwrap with the parts given around "true": the only sure way to know that this machine allows
 * them. Returns 0, or -1 with bwrap's complaint in e. */
static int probe(const struct sandbox *sb, unsigned parts, struct err *e)
{
	static const char *const cmd[] = { "true", NULL };
	struct child_process cp = PROC_INIT;
	struct proc_capture cap = PROC_CAPTURE_INIT(PROBE_STDERR_CAP);
	struct proc_status st;
	struct argv_b a = { NULL, 0, 0 };
	char *scratch = NULL, *nl;
	int lock = -1, r = -1;

	if (!(scratch = sandbox_scratch_new(&lock, e)))
		goto out;
	options(sb, parts, scratch, &a);
	push(&a, "--");
	push(&a, cmd[0]);
	cp.argv = (const char *const *)a.v;
	cp.in = PROC_NULL;
	cp.out = PROC_NULL;
	cp.err = PROC_PIPE;
	if (parts & SANDBOX_SECCOMP) {
		struct sandbox with = *sb;

		/* the filter goes with this probe's parts, whatever sb->parts says so far */
		with.parts = parts;
		if (sandbox_seccomp_fd(&with, &cp.pass_fd, e) < 0)
			goto out;
	}
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
		err_set(e, EXIT_ENV, "%s", cap.buf.len ? cap.buf.data : "it failed without saying why");
		goto out;
	}
	r = 0;
out:
	if (cp.pass_fd >= 0)
		close(cp.pass_fd);
	proc_release(&cp);
	proc_capture_release(&cap);
	sandbox_argv_free(a.v);
	if (scratch) {
		struct err ignored = ERR_INIT;

		sandbox_scratch_remove(scratch, &ignored);
		err_release(&ignored);
		free(scratch);
	}
	if (lock >= 0)
		close(lock);
	return r;
}

/* The parts, in the order they are tried one by one on a machine that refuses the whole: the user
 * namespace first, since dropping capabilities and disabling namespaces need it where ferry is not
 * root. */
static const struct {
	unsigned part;
	const char *name;     /* what is missing */
	const char *leaves;   /* what a test can then do */
} parts_said[] = {
	{ SANDBOX_USERNS, "no user namespace",
	  "the tests run as ferry's user in the host's user namespace" },
	{ SANDBOX_CAPS, "capabilities not dropped",
	  "the tests keep ferry's capabilities (as root: remounting the read-only file system and writing the "
	  "host's files)" },
	{ SANDBOX_NOUSERNS, "user namespaces not disabled inside",
	  "the tests can make user namespaces of their own, unless the seccomp filter stops them" },
	{ SANDBOX_SECCOMP, "no seccomp filter",
	  "the tests can call mount, ptrace, keyctl, unshare, bpf and ioctl TIOCSTI" },
	{ SANDBOX_NET, "no network namespace",
	  "the tests can reach the network, the host's loopback listeners and its abstract unix sockets" },
	{ SANDBOX_IPC, "no IPC namespace", "the tests can reach the host's System V IPC and message queues" },
	{ SANDBOX_UTS, "no UTS namespace", "the tests share the host's name" },
};

#define NPARTS (sizeof(parts_said) / sizeof(parts_said[0]))

/* What a library's test needs to run as it would outside and nothing that identifies the user. */
static const char *const env_kept[] = {
	"PATH", "LANG", "LANGUAGE", "LC_*", "TZ", "LD_LIBRARY_PATH", "LD_PRELOAD",
	"PYTHONPATH", "PYTHONHOME", "PYTHONHASHSEED", "VIRTUAL_ENV", "FERRY_*",
	"ASAN_OPTIONS", "UBSAN_OPTIONS", "LSAN_OPTIONS",
	"OMP_*", "KMP_*", "MKL_*", "OPENBLAS_*", "TORCH_*", "PYTORCH_*", "TF_*", "KERAS_*", "XLA_FLAGS",
	"ORT_*", "OV_*", "TVM_*", "CUDA_VISIBLE_DEVICES",
};

const char **sandbox_env_keep(const char *const *extra, size_t nextra)
{
	size_t n = sizeof(env_kept) / sizeof(env_kept[0]);
	const char **keep = xcalloc(n + nextra + 1, sizeof(*keep));

	for (size_t i = 0; i < n; i++)
		keep[i] = env_kept[i];
	for (size_t i = 0; i < nextra; i++)
		keep[n + i] = extra[i];
	return keep;
}

int sandbox_setup(struct sandbox *sb, struct err *e)
{
	const char *name = getenv("FERRY_BWRAP");
	struct err why = ERR_INIT, base_why = ERR_INIT;
	unsigned want = SANDBOX_ALL;
	int r = -1;

	buf_reset(&sb->why);
	sb->parts = 0;
	free(sb->bwrap);
	sb->bwrap = NULL;
	if (!name || !*name)
		name = "bwrap";
	if (!(sb->bwrap = proc_find_program(name, NULL))) {
		err_set(e, EXIT_ENV, "bubblewrap (Debian package bubblewrap) not found ('%s')", name);
		goto out;
	}
	if (build_filter(sb, &why) < 0) {
		/* Without libseccomp's program the rest still stands: said like a refused part. */
		want &= ~(unsigned)SANDBOX_SECCOMP;
		buf_addf(&sb->why, "%s", why.msg);
	}
	if (probe(sb, want, &why) == 0) {
		sb->parts = want;
		r = 0;
		goto out;
	}
	/* The machine refuses something: the base alone, then each part added to what works so far. */
	if (probe(sb, 0, &base_why) < 0) {
		err_set(e, EXIT_ENV, "bubblewrap ('%s') cannot make a sandbox here (%s)", sb->bwrap, base_why.msg);
		goto out;
	}
	for (size_t i = 0; i < NPARTS; i++) {
		struct err no = ERR_INIT;
		unsigned p = parts_said[i].part;

		if (!(want & p))
			continue;
		if (probe(sb, sb->parts | p, &no) == 0)
			sb->parts |= p;
		else if (!sb->why.len)
			buf_addf(&sb->why, "%s", no.msg);
		err_release(&no);
	}
	if (!sb->why.len)
		buf_addf(&sb->why, "%s", why.msg);
	r = 0;
out:
	if (r < 0) {
		free(sb->bwrap);
		sb->bwrap = NULL;
	}
	err_release(&why);
	err_release(&base_why);
	return r;
}

void sandbox_missing(const struct sandbox *sb, struct buf *out)
{
	size_t n = 0;

	if (!sb->bwrap)
		return;
	for (size_t i = 0; i < NPARTS; i++) {
		if (sb->parts & parts_said[i].part)
			continue;
		/* Without a user namespace, disabling further ones is moot: said once, as the namespace. */
		if (parts_said[i].part == SANDBOX_NOUSERNS && !(sb->parts & SANDBOX_USERNS))
			continue;
		buf_addf(out, "%s%s: %s", n++ ? "; " : "", parts_said[i].name, parts_said[i].leaves);
	}
	if (n && sb->why.len)
		buf_addf(out, " (bwrap: %s)", sb->why.data);
}

/* --- scratch directories ------------------------------------------------------------------------- */

/* The password and group databases the sandbox shows: this user alone, at home in the scratch
 * directory, so that getpwuid() works in the tests without the host's list of users. */
static int write_file(const char *dir, const char *name, const char *text, struct err *e)
{
	char *path = xasprintf("%s/%s", dir, name);
	int fd = open(path, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC | O_NOFOLLOW, 0644);
	size_t n = strlen(text);
	int r = 0;

	if (fd < 0 || write(fd, text, n) != (ssize_t)n)
		r = err_errno(e, EXIT_ENV, "cannot write '%s'", path);
	if (fd >= 0)
		close(fd);
	free(path);
	return r;
}

static int write_identity(const char *dir, struct err *e)
{
	uid_t uid = getuid();
	gid_t gid = getgid();
	struct passwd *pw = getpwuid(uid);
	struct group *gr = getgrgid(gid);
	const char *user = pw && pw->pw_name ? pw->pw_name : "ferry";
	const char *group = gr && gr->gr_name ? gr->gr_name : "ferry";
	char *passwd, *groups;
	int r;

	/* names with a colon or a newline would break the format: the fallback name instead */
	if (strpbrk(user, ":\n"))
		user = "ferry";
	if (strpbrk(group, ":\n"))
		group = "ferry";
	passwd = xasprintf("%s:x:%u:%u::%s/home:/bin/sh\n", user, (unsigned)uid, (unsigned)gid, dir);
	groups = xasprintf("%s:x:%u:\n", group, (unsigned)gid);
	r = write_file(dir, "passwd", passwd, e) < 0 || write_file(dir, "group", groups, e) < 0 ? -1 : 0;
	free(passwd);
	free(groups);
	return r;
}

/* The owner file, locked before it gets its name: a cleaner never sees it unlocked while this
 * process lives. */
static int make_owner(const char *dir, int *lock, struct err *e)
{
	char *tmp = xasprintf("%s/" OWNER ".new", dir), *path = xasprintf("%s/" OWNER, dir);
	char pid[32];
	int fd = open(tmp, O_RDWR | O_CREAT | O_EXCL | O_CLOEXEC | O_NOFOLLOW, 0444);
	int r = -1, n;

	if (fd < 0) {
		err_errno(e, EXIT_ENV, "cannot create '%s'", tmp);
		goto out;
	}
	n = snprintf(pid, sizeof(pid), "%ld\n", (long)getpid());
	if (flock(fd, LOCK_EX) < 0 || write(fd, pid, (size_t)n) != n || rename(tmp, path) < 0) {
		err_errno(e, EXIT_ENV, "cannot lock '%s'", path);
		close(fd);
		goto out;
	}
	*lock = fd;
	r = 0;
out:
	free(tmp);
	free(path);
	return r;
}

static const char *tmp_dir(void)
{
	const char *tmp = getenv("TMPDIR");

	return tmp && *tmp ? tmp : "/tmp";
}

char *sandbox_scratch_new(int *lock, struct err *e)
{
	char *dir = xasprintf("%s/" SCRATCH_PREFIX "XXXXXX", tmp_dir());
	char *sub = NULL;

	*lock = -1;
	if (!mkdtemp(dir)) {
		err_errno(e, EXIT_ENV, "cannot create a scratch directory in '%s'", tmp_dir());
		free(dir);
		return NULL;
	}
	if (make_owner(dir, lock, e) < 0)
		goto fail;
	for (int i = 0; i < 2; i++) {
		free(sub);
		sub = xasprintf("%s/%s", dir, i ? "tmp" : "home");
		if (mkdir(sub, 0700) < 0) {
			err_errno(e, EXIT_ENV, "cannot create '%s'", sub);
			goto fail;
		}
	}
	if (write_identity(dir, e) < 0)
		goto fail;
	free(sub);
	return dir;
fail:
	{
		struct err ignored = ERR_INIT;

		sandbox_scratch_remove(dir, &ignored);
		err_release(&ignored);
	}
	if (*lock >= 0)
		close(*lock);
	*lock = -1;
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

/* Whether name is one mkdtemp made from ferry's pattern. */
static int scratch_name(const char *name)
{
	size_t n = strlen(SCRATCH_PREFIX);

	if (strncmp(name, SCRATCH_PREFIX, n) || strlen(name + n) != SCRATCH_SUFFIX_LEN)
		return 0;
	for (const char *p = name + n; *p; p++)
		if (!((*p >= 'a' && *p <= 'z') || (*p >= 'A' && *p <= 'Z') || (*p >= '0' && *p <= '9')))
			return 0;
	return 1;
}

size_t sandbox_scratch_clean(void)
{
	const char *tmp = tmp_dir();
	DIR *d = opendir(tmp);
	struct dirent *de;
	size_t removed = 0;

	if (!d)
		return 0;
	while ((de = readdir(d))) {
		struct stat st;
		char *path;
		int dfd, lock;

		if (!scratch_name(de->d_name))
			continue;
		/* A directory of this user's, not a link to one; its owner file a regular file whose lock
		 * nobody holds. No owner file (made by an older ferry, or not yet made): not provably
		 * abandoned, so left alone. */
		if (fstatat(dirfd(d), de->d_name, &st, AT_SYMLINK_NOFOLLOW) < 0 || !S_ISDIR(st.st_mode) ||
		    st.st_uid != geteuid())
			continue;
		if ((dfd = openat(dirfd(d), de->d_name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC)) < 0)
			continue;
		lock = openat(dfd, OWNER, O_RDONLY | O_NOFOLLOW | O_CLOEXEC | O_NONBLOCK);
		close(dfd);
		if (lock < 0)
			continue;
		if (fstat(lock, &st) == 0 && S_ISREG(st.st_mode) && flock(lock, LOCK_EX | LOCK_NB) == 0) {
			struct err ignored = ERR_INIT;

			path = xasprintf("%s/%s", tmp, de->d_name);
			if (sandbox_scratch_remove(path, &ignored) == 0)
				removed++;
			err_release(&ignored);
			free(path);
		}
		close(lock);
	}
	closedir(d);
	return removed;
}
