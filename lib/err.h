/* err.h: how lib/ reports failure. lib/ never prints: a function that can fail returns 0 or -1 and
 * fills a struct err that its caller passed in; src/ prints it. Exit codes for the whole program live
 * here too so that every layer speaks of the same outcomes. */
#ifndef FERRY_ERR_H
#define FERRY_ERR_H

#include <stddef.h>

enum ferry_exit {
	EXIT_OK = 0,       /* done; for check-like commands: nothing failed */
	EXIT_FAILURES = 1, /* the check found failures */
	EXIT_USAGE = 2,    /* the command line was wrong */
	EXIT_ENV = 3,      /* the environment lacks something: a library, a compiler, a file system */
	EXIT_INPUT = 4,    /* the input was bad */
	EXIT_STOPPED = 5,  /* --maxfail (-x) stopped the run early: the rest of the tests were not run */
	EXIT_INTERRUPTED = 130,
};

/* An error: a one-line message, an exit code that fits it, and optional detail (a Python traceback, a
 * child's stderr) printed after the message. The struct owns both strings. */
struct err {
	char msg[1024];
	enum ferry_exit code;
	char *detail;
};

#define ERR_INIT { "", EXIT_OK, NULL }

void err_init(struct err *e);
void err_release(struct err *e);

/* Set the message (printf-style) and code; always returns -1 so that callers can write
 * "return err_set(e, EXIT_INPUT, ...)". Replaces any earlier message and detail. */
int err_set(struct err *e, enum ferry_exit code, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));
/* Like err_set, with ": strerror(errno)" appended. */
int err_errno(struct err *e, enum ferry_exit code, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));
/* Put "what: " in front of the current message, to give a low-level error its context. */
int err_prefix(struct err *e, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
/* Take ownership of detail text (may be NULL). */
void err_set_detail(struct err *e, char *detail);

#endif
