/* sandbox.h: where ferry runs code it does not trust (third-party test suites, harvested by ferry
 * harvest). Such code gets a scratch directory of its own, made fresh for each process and removed
 * after it, to be its working directory, HOME and TMPDIR; and, where the machine allows it, a
 * bubblewrap sandbox (the bwrap program, Debian package bubblewrap) that it cannot leave:
 *
 *   - a file system that shows only what the caller names (sandbox_add: the interpreter, its
 *     libraries, ferry, the suite) and the system's libraries (sandbox_add_system), all read-only;
 *     the scratch directory is the one place it can write, with a tmpfs /tmp; a private /dev
 *     (no terminal of the host's) and /proc;
 *   - a new session, so no controlling terminal: /dev/tty cannot be opened, and ioctl TIOCSTI has
 *     no terminal to type into (the caller gives it pipes for its standard streams);
 *   - a user namespace in which every capability is dropped, even when ferry runs as root, with no
 *     further user namespaces and no new privileges;
 *   - a seccomp filter that denies what a test has no use for: ioctl TIOCSTI and TIOCLINUX, mount and
 *     the new mount API, ptrace and process_vm_readv/writev, the kernel keyring, unshare, setns and
 *     clone into new namespaces, bpf, perf_event_open, io_uring, loading kernels and modules;
 *   - network, IPC, UTS and process-id namespaces of its own: only a loopback nobody else listens
 *     on, none of the host's abstract unix sockets, and no process of the host to signal.
 *
 * bwrap is looked up at run time ($FERRY_BWRAP, else bwrap in PATH) and tried once with the whole
 * sandbox around a trivial command. Where the machine refuses a part (no user namespaces in a
 * container, a kernel without seccomp), each part is tried alone, and the sandbox is made of those
 * that work: sandbox_missing says which are not there and what that leaves open. Where not even the
 * base works, the caller says so and goes on without bwrap.
 *
 * Scratch directories are $TMPDIR/ferry-scratch.XXXXXX, each with a file "owner" that the process
 * that made it keeps locked (flock) while it lives; sandbox_scratch_clean removes those whose owner
 * is gone (a harvest killed with SIGKILL) and never one whose lock is held. In the sandbox the owner
 * file is read-only, so the code in it cannot make its directory look abandoned.
 *
 * Ownership: returned char * and char ** belong to the caller; struct sandbox owns its contents. */
#ifndef FERRY_SANDBOX_H
#define FERRY_SANDBOX_H

#include <stddef.h>

#include "buf.h"
#include "err.h"

/* The parts of the sandbox that a machine may refuse, one bit each. */
enum sandbox_part {
	SANDBOX_USERNS = 1 << 0,   /* a user namespace of its own */
	SANDBOX_NOUSERNS = 1 << 1, /* no further user namespaces inside (bwrap --disable-userns) */
	SANDBOX_CAPS = 1 << 2,     /* every capability dropped */
	SANDBOX_SECCOMP = 1 << 3,  /* the seccomp filter */
	SANDBOX_NET = 1 << 4,      /* a network namespace of its own */
	SANDBOX_IPC = 1 << 5,      /* an IPC namespace of its own */
	SANDBOX_UTS = 1 << 6,      /* a UTS namespace of its own */
	SANDBOX_ALL = (1 << 7) - 1,
};

struct sandbox {
	char *bwrap;        /* the bwrap that works here, NULL before sandbox_setup or without one */
	unsigned parts;     /* the enum sandbox_part bits this machine allows (after sandbox_setup) */
	struct buf bpf;     /* the seccomp program (struct sock_filter[]), empty when there is none */
	char **binds;       /* real paths shown read-only (owned) */
	size_t nbinds, binds_cap;
	char **links;       /* pairs: where a symbolic link is, and its target (owned) */
	size_t nlinks, links_cap;
	struct buf why;     /* what bwrap said when it refused a part, for sandbox_missing */
};

void sandbox_init(struct sandbox *sb);
void sandbox_release(struct sandbox *sb);

/* Show path read-only in the sandbox, at the same place: each symbolic link on the way to it is made
 * again inside, and the directory or file it ends at is bound. A path that does not exist is passed
 * over; "/" is never bound whole. */
void sandbox_add(struct sandbox *sb, const char *path);
/* What any program needs: /usr and the /bin, /sbin and /lib* links or directories, the few files of
 * /etc that the dynamic loader and the C library read, the CPU topology under /sys, the files mapped
 * into this process (ferry's binary and its shared libraries, wherever they are) and the directories
 * of $LD_LIBRARY_PATH. */
void sandbox_add_system(struct sandbox *sb);

/* Find bwrap and try the whole sandbox (with what was added so far); where it fails, find the parts
 * that this machine allows (sb->parts). Returns 0 with sb->bwrap set, or -1 with e saying why there
 * is no sandbox at all (one line naming the missing package or bwrap's own complaint). */
int sandbox_setup(struct sandbox *sb, struct err *e);
/* What the parts missing from sb->parts leave open, as one sentence appended to out ("" when
 * nothing is missing): each part, why bwrap refused it, and what a test can then do. */
void sandbox_missing(const struct sandbox *sb, struct buf *out);

/* The argv that runs argv (NULL-terminated) inside the sandbox of sb (when sb and sb->bwrap are not
 * NULL) with the scratch directory as its writable working directory; without bwrap, a copy of argv.
 * NULL-terminated, every string owned: free it with sandbox_argv_free. With the seccomp part, bwrap
 * reads the filter from descriptor PROC_PASSED_FD (lib/proc.h): give the child sandbox_seccomp_fd's. */
char **sandbox_argv(const struct sandbox *sb, const char *scratch, const char *const *argv);
void sandbox_argv_free(char **argv);
/* In *fd, a descriptor that holds the seccomp filter for one bwrap to read (the caller closes it
 * after proc_start), or -1 when sb has no filter. Returns 0, or -1 with e filled. */
int sandbox_seccomp_fd(const struct sandbox *sb, int *fd, struct err *e);

/* The names of ferry's environment variables a sandboxed child keeps (for child_process.env_keep):
 * the locale, PATH, the dynamic loader's, Python's, ferry's and the DL libraries' own settings (thread
 * counts, TORCH_*, TF_*, ...), and the names in extra (nextra of them, borrowed: a user's --env).
 * Everything else (tokens, keys, the user's own settings) stays outside. NULL-terminated; the array
 * is the caller's to free, the strings are borrowed. */
const char **sandbox_env_keep(const char *const *extra, size_t nextra);

/* Make a fresh scratch directory under $TMPDIR (else /tmp), with home/ and tmp/ in it, and its owner
 * file locked through *lock (the caller closes it after sandbox_scratch_remove). Returns its path
 * (caller frees) or NULL. */
char *sandbox_scratch_new(int *lock, struct err *e);
/* Remove a scratch directory and everything in it, whatever the code that ran there left: files made
 * read-only or unreadable, and symbolic links, which are removed and never followed. */
int sandbox_scratch_remove(const char *dir, struct err *e);
/* Remove the scratch directories under $TMPDIR (else /tmp) that an earlier process made and left when
 * it was killed: only names of ferry's pattern, owned by this user, whose owner file exists and is
 * not locked. Returns how many were removed. */
size_t sandbox_scratch_clean(void);

#endif
