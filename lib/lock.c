/* lock.c: one writer at a time (lock.h). */
#include "lock.h"
#include "buf.h"
#include "xalloc.h"

#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

/* Whether the writer a note names has ended. Its lock can outlive it for a moment: a child it forked
 * holds a copy of the lock's descriptor until it closes it on its way to exec, and on a busy machine
 * that child may wait for a core a while after its parent was killed. */
static int writer_gone(const char *who)
{
	long pid;

	return who && sscanf(who, "pid %ld,", &pid) == 1 && pid > 0 && kill((pid_t)pid, 0) < 0 && errno == ESRCH;
}

int lock_take(int fd, const char *name, const char *kind, char *(*note)(void *ctx), void *ctx, struct err *e)
{
	char *who = NULL;
	int r = -1;

	for (int waited = 0; flock(fd, LOCK_EX | LOCK_NB) < 0; waited++) {
		struct timespec nap = { 0, 10000000 };

		if (errno != EWOULDBLOCK) {
			err_errno(e, EXIT_ENV, "cannot lock the %s '%s'", kind, name);
			goto out;
		}
		/* The holder says who it is; between its lock and its note there is nothing to read. A
		 * holder that has ended lets go within moments: up to 5 s are waited for it. */
		free(who);
		who = note(ctx);
		if (writer_gone(who) && waited < 500) {
			nanosleep(&nap, NULL);
			continue;
		}
		err_set(e, EXIT_ENV, "'%s' is being written by another ferry%s%s%s: wait for it to finish, or use "
			"another %s", name, who ? " (" : "", who ? who : "", who ? ")" : "", kind);
		goto out;
	}
	r = 0;
out:
	free(who);
	return r;
}

char *lock_note(const char *command)
{
	return xasprintf("pid %ld, '%s'", (long)getpid(), command ? command : "ferry");
}

char *lock_command_line(int argc, char *const *argv)
{
	struct buf b = BUF_INIT;

	buf_adds(&b, "ferry");
	for (int i = 0; i < argc; i++)
		buf_addf(&b, " %s", argv[i]);
	return buf_detach(&b);
}

/* The note in a lock file, or NULL when it holds none (yet). */
static char *file_note(void *ctx)
{
	char text[4096];
	ssize_t n = pread(*(int *)ctx, text, sizeof(text) - 1, 0);

	if (n <= 0)
		return NULL;
	text[n] = '\0';
	return xstrdup(text);
}

int lock_file(struct lock *l, const char *path, const char *name, const char *kind, const char *command,
	      struct err *e)
{
	char *note = NULL;
	int fd = -1, r = -1;

	if (l->fd >= 0)
		return 0;
	for (;;) {
		struct stat held, named;

		if ((fd = open(path, O_RDWR | O_CREAT | O_CLOEXEC | O_NOFOLLOW | O_NOCTTY, 0666)) < 0) {
			err_errno(e, EXIT_ENV, "cannot lock the %s '%s'", kind, name);
			goto out;
		}
		if (lock_take(fd, name, kind, file_note, &fd, e) < 0)
			goto out;
		/* The writer before may have removed the file between our open and our lock: a lock on
		 * that file guards nothing, since the next writer makes a new one. */
		if (fstat(fd, &held) == 0 && stat(path, &named) == 0 && held.st_dev == named.st_dev &&
		    held.st_ino == named.st_ino)
			break;
		close(fd);
		fd = -1;
	}
	note = lock_note(command);
	if (ftruncate(fd, 0) < 0 || pwrite(fd, note, strlen(note), 0) != (ssize_t)strlen(note)) {
		err_errno(e, EXIT_ENV, "cannot write the lock '%s'", path);
		unlink(path);
		goto out;
	}
	l->fd = fd;
	l->path = xstrdup(path);
	fd = -1;
	r = 0;
out:
	if (fd >= 0)
		close(fd);
	free(note);
	return r;
}

void lock_release(struct lock *l)
{
	/* Removed while still held, so that no writer takes a lock on a file about to go. */
	if (l->fd >= 0) {
		unlink(l->path);
		close(l->fd);
	}
	free(l->path);
	l->fd = -1;
	l->path = NULL;
}
