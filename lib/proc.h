/* proc.h: child processes, in the spirit of git's run-command.h. Compilers crash, hang and exhaust
 * memory; ferry watches them from outside, so every child it starts is built to be killed cleanly:
 *
 *   - it is the leader of a process group of its own, so that a timeout can end the whole tree it
 *     spawned (a compiler's own subprocesses) and not just the leader;
 *   - it inherits no descriptor above stderr (but the one it is given: pass_fd), so a worker
 *     cannot hold another worker's pipe open;
 *   - its signal dispositions and mask are reset, so it crashes the way it would from a shell;
 *   - an optional RLIMIT_AS caps its address space.
 *
 * Usage:
 *
 *   const char *argv[] = { "cat", NULL };
 *   struct child_process cp = PROC_INIT;
 *   cp.argv = argv;
 *   cp.in = PROC_PIPE;
 *   cp.out = PROC_PIPE;
 *   if (proc_start(&cp, e) < 0) ...
 *   write(cp.fd_in, ...); read(cp.fd_out, ...);
 *   if (proc_wait(&cp, &st, e) < 0) ...
 *   proc_release(&cp);
 *
 * Ownership: everything the caller sets (argv, env, dir, paths) is borrowed and only needs to live
 * until proc_start returns. The parent's ends of the pipes (fd_in, fd_out, fd_err) belong to the
 * struct: the caller may close one early (then set it to -1), and proc_release closes the rest.
 *
 * Reaping: only proc_wait, proc_try_wait and proc_kill reap the child, and proc_kill_strays the
 * children it is not told to keep. Nothing else in the process may call waitpid(-1) or ignore
 * SIGCHLD, or the child's status is lost.
 *
 * Descendants that escape the group: a grandchild that calls setsid() leaves its process group, so
 * no group signal reaches it, and when its parent exits it is reparented to init and outlives
 * everything. A process that runs untrusted children becomes a child subreaper
 * (proc_set_subreaper): orphans of its descendants are then reparented to it instead, and
 * proc_kill_strays ends them. */
#ifndef FERRY_PROC_H
#define FERRY_PROC_H

#include <signal.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include "buf.h"
#include "err.h"

/* Where one of the child's standard streams goes. */
enum proc_io {
	PROC_INHERIT = 0, /* the parent's own stream */
	PROC_NULL,        /* /dev/null */
	PROC_PIPE,        /* a pipe; the parent's end is fd_in, fd_out or fd_err */
	PROC_FILE,        /* the file in_path (read) or out_path / err_path (created or truncated) */
	PROC_STDOUT,      /* stderr only: wherever stdout goes (2>&1) */
};

/* How a child ended. */
struct proc_status {
	int code;      /* the exit status, or 128 + N when signal N killed it (as a shell reports it) */
	bool signaled; /* code is 128 + sig */
	int sig;       /* the signal, 0 when the child exited */
	bool by_parent; /* sig is the SIGTERM or SIGKILL that proc_kill or proc_release sent: the
			 * child did not die of its own accord */
	bool stopped;  /* from proc_stopped: the child has not ended but is stopped by sig (with
			* signaled set and code 128 + sig) */
};

struct child_process {
	/* Set by the caller (borrowed). */
	const char *const *argv; /* argv[0] is looked up in PATH unless it contains a '/' */
	const char *const *env;  /* NULL, or NULL-terminated changes to the parent's environment:
				  * "K=V" sets K, a bare "K" removes it; PATH here is also the PATH
				  * that argv[0] is looked up in */
	const char *const *env_keep; /* NULL, or NULL-terminated names of the parent's variables the
				  * child keeps ("LC_*": every name with that prefix); the others are
				  * dropped before env's changes apply */
	const char *dir;         /* NULL, or the directory the child runs in */
	enum proc_io in, out, err;
	const char *in_path, *out_path, *err_path; /* for PROC_FILE */
	uint64_t mem_limit;      /* RLIMIT_AS in bytes; 0: no limit */
	bool kill_group_on_exit; /* when the leader exits, SIGKILL what is left of its group before
				  * reaping it, so that no grandchild outlives a finished worker */
	int pass_fd;             /* -1, or a descriptor of the parent's that the child gets as fd
				  * PROC_PASSED_FD (without close-on-exec), the one exception to "nothing
				  * above stderr": a worker's status page */

	/* Set by proc_start and the wait functions. */
	pid_t pid;               /* the child, which is also its process group id; -1 before start */
	int fd_in, fd_out, fd_err; /* the parent's pipe ends (owned), -1 where there is no pipe */
	bool reaped;             /* pid was reaped: status is valid and pid may name another process */
	struct proc_status status;
};

#define PROC_INIT { NULL, NULL, NULL, NULL, PROC_INHERIT, PROC_INHERIT, PROC_INHERIT, NULL, NULL, NULL, \
		    0, false, -1, -1, -1, -1, -1, false, { 0, false, 0, false, false } }
/* Where the child finds pass_fd. */
#define PROC_PASSED_FD 3

void proc_init(struct child_process *cp);
/* Close the pipe ends. A child that was started and not reaped is killed, group and all, with
 * SIGKILL and reaped: a struct child_process never leaves a process behind. */
void proc_release(struct child_process *cp);

/* Start the child. Returns only once the child has exec'd, so a program that cannot be run (not
 * found, not executable, a directory that cannot be entered) is an error here, naming the program,
 * and no process is left behind. A struct starts one child: proc_release it before the next. */
int proc_start(struct child_process *cp, struct err *e);

/* Wait for the child to end and reap it; st (may be NULL) receives cp->status. */
int proc_wait(struct child_process *cp, struct proc_status *st, struct err *e);
/* Like proc_wait without blocking: returns 1 and fills st when the child has ended, 0 while it runs,
 * -1 on error. */
int proc_try_wait(struct child_process *cp, struct proc_status *st, struct err *e);
/* End the child: SIGTERM (and SIGCONT, in case it is stopped) to its process group; after the leader
 * exits or grace_ms pass, whichever is first, SIGKILL to the group, which also ends members that
 * ignored SIGTERM; then reap the leader. A child already reaped is left alone. */
int proc_kill(struct child_process *cp, int grace_ms, struct proc_status *st, struct err *e);

/* Like proc_try_wait for a stop: returns 1 when the child is stopped now (SIGSTOP, or SIGTSTP,
 * SIGTTIN, SIGTTOU) and fills st (stopped, signaled, sig, code 128 + sig) without reaping or
 * continuing it; 0 while it runs or after it has ended; -1 on error. */
int proc_stopped(struct child_process *cp, struct proc_status *st, struct err *e);

/* "exit status 1", "killed by signal 11 (SIGSEGV)", "stopped by signal 19 (SIGSTOP)". Since ferry
 * sends SIGTERM and SIGKILL itself, a death by either says whether ferry sent it:
 * "killed by signal 15 (SIGTERM, sent by ferry)" or "(SIGTERM, not sent by ferry)". */
void proc_status_describe(const struct proc_status *st, struct buf *out);

/* Make this process a child subreaper (PR_SET_CHILD_SUBREAPER) or stop being one; *was (may be
 * NULL) receives the previous setting, to restore it later. Orphaned descendants are then
 * reparented to this process, where proc_kill_strays finds them. -1 where the system has no such
 * thing (then orphans go to init as before). */
int proc_set_subreaper(bool on, bool *was, struct err *e);
/* SIGKILL and reap every child of this process that is not in keep (nkeep pids), zombies included,
 * then do the same to the orphans that their deaths hand over to this process (a subreaper's), until
 * none is left or wait_ms pass (a process stuck in the kernel cannot be reaped at once; it is
 * left). *killed (may be NULL) receives how many were reaped. The keep list is how the caller's own
 * children (those of struct child_process) survive: any other child is a stray. */
int proc_kill_strays(const pid_t *keep, size_t nkeep, int wait_ms, int *killed, struct err *e);

/* The resident set size of one process, in bytes, from /proc/PID/statm. */
int proc_rss(pid_t pid, uint64_t *bytes, struct err *e);
/* The sum of the resident set sizes of the live (not zombie) processes in process group pgid, in
 * bytes, and how many there are (nprocs may be NULL). Pages shared between members are counted once
 * per member, so this overestimates: for a memory limit, erring high is the safe side. A group with
 * no live members is 0 bytes, 0 processes. */
int proc_group_rss(pid_t pgid, uint64_t *bytes, int *nprocs, struct err *e);

/* A size-capped capture of what a child writes, so that a child printing megabytes to stderr
 * cannot exhaust ferry's memory: the first cap bytes are kept (or, with tail, the last cap bytes),
 * the rest are read and counted but dropped. */
struct proc_capture {
	struct buf buf;   /* the kept bytes (owned), NUL-terminated */
	size_t cap;
	uint64_t dropped; /* bytes read beyond cap */
	bool eof;         /* the writer closed its end */
	bool tail;        /* keep the last cap bytes instead of the first: where a crash says why */
};

#define PROC_CAPTURE_INIT(cap) { BUF_INIT, (cap), 0, false, false }
/* Most bytes that one proc_capture_read consumes, so that a child writing without pause cannot
 * keep the caller from its other duties (timeouts, other pipes). */
#define PROC_CAPTURE_BURST (1u << 20)

void proc_capture_init(struct proc_capture *c, size_t cap);
void proc_capture_release(struct proc_capture *c);
/* Read what fd holds now, without blocking (fd itself may be blocking or not): returns 0 when fd has
 * nothing more for now, at end of file (c->eof is then set), or after PROC_CAPTURE_BURST bytes;
 * -1 on a read error. */
int proc_capture_read(struct proc_capture *c, int fd, struct err *e);
/* Add n bytes that came by another way (a stray line on another stream) under the same cap. */
void proc_capture_add(struct proc_capture *c, const char *p, size_t n);

/* Look name up in path (NULL: $PATH, or /bin:/usr/bin when that is unset or empty) as execvp would,
 * but in the parent (execvp may allocate); a name with a slash is taken as it is. Returns the full
 * path of an executable regular file (owned by the caller) or NULL. */
char *proc_find_program(const char *name, const char *path);

/* What proc_catch_signals replaced, for proc_restore_signals. */
struct proc_signals {
	struct sigaction intr, term, pipe;
};

/* For a process that watches children with poll(): SIGINT and SIGTERM go to handler, without
 * SA_RESTART so that poll() returns on Ctrl-C, and SIGPIPE is ignored, so that a child that dies
 * mid-write costs a write error, not this process. What was there before is kept in saved. */
void proc_catch_signals(void (*handler)(int), struct proc_signals *saved);
/* Put back what proc_catch_signals replaced; SIGPIPE only if restore_pipe is set (a command whose
 * output may yet meet a closed pipe keeps it ignored until its last flush). */
void proc_restore_signals(const struct proc_signals *saved, int restore_pipe);

#endif
