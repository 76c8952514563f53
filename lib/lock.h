/* lock.h: one writer at a time. A results store (lib/db.h), a wrap directory's wrapped.jsonl and
 * ferry vary's variants are each written by one ferry process: two would run every test twice, or
 * write every line twice. The lock is an flock() held for the writer's life, which the kernel drops
 * when the process ends, even by SIGKILL, so a killed writer leaves no stale lock. The writer leaves
 * a note, "pid N, 'command line'", so that a second writer is refused (EXIT_ENV) with a message
 * naming the first. A writer that has just ended may hold the lock a moment longer (a child it
 * forked keeps a copy of the descriptor until its exec): it is waited for, 5 s at most. */
#ifndef FERRY_LOCK_H
#define FERRY_LOCK_H

#include "err.h"

/* Take flock(LOCK_EX) on fd, or fail: EXIT_ENV, "'NAME' is being written by another ferry (NOTE):
 * wait for it to finish, or use another KIND". note(ctx) gives the holder's note (caller of note
 * frees it; NULL when there is none). */
int lock_take(int fd, const char *name, const char *kind, char *(*note)(void *ctx), void *ctx, struct err *e);

/* The note of this process: "pid N, 'command'" (command NULL: "ferry"). Caller frees. */
char *lock_note(const char *command);

/* "ferry ARGV[0] ARGV[1] ...", a command's line as a note names it (argv[0]: the command's name).
 * Caller frees. */
char *lock_command_line(int argc, char *const *argv);

/* A lock of its own beside what it guards: path (e.g. DIR/wrapped.jsonl.lock), holding the note,
 * made when taken and removed when released. */
struct lock {
	int fd;
	char *path;   /* owned */
};

#define LOCK_INIT { -1, NULL }

/* Take the lock at path for a writer of name (a directory, an output: kind says which, for the
 * message), leaving command's note in it. 0, or -1 with e filled (EXIT_ENV). */
int lock_file(struct lock *l, const char *path, const char *name, const char *kind, const char *command,
	      struct err *e);
/* Remove the lock file and let go; safe on a lock never taken. */
void lock_release(struct lock *l);

#endif
