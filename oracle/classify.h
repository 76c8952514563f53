/* classify.h: telling "this frontend does not support that" from a bug (shared/DESIGN.md,
 * "Oracles"). A frontend that rejects an operator or an attribute it does not implement is not
 * broken; the messages that say so are listed per frontend in a data file
 * (oracle/unsupported/<frontend>.txt), and a crash whose message matches one of them is
 * classified unsupported.
 *
 * The file holds one POSIX extended regular expression per line, matched case-insensitively
 * anywhere in the message; blank lines and lines starting with '#' are ignored. The message is
 * usually a whole Python traceback, so '^' and '$' match at the start and end of each of its lines,
 * and '.' does not cross a newline: "^NotImplementedError" finds the exception line, and ".*"
 * cannot join a frame of the traceback to an unrelated line below it.
 *
 * Ownership: a struct classify owns its patterns; classify_release frees them. */
#ifndef FERRY_CLASSIFY_H
#define FERRY_CLASSIFY_H

#include <regex.h>
#include <stdbool.h>
#include <stddef.h>

#include "buf.h"
#include "err.h"

struct classify_pattern {
	regex_t re;
	char *text; /* the line as written (owned) */
	char *path; /* the file it came from (owned) */
	int line;   /* 1-based */
};

struct classify {
	struct classify_pattern *patterns; /* owned */
	size_t n, cap;
};

#define CLASSIFY_INIT { NULL, 0, 0 }

void classify_init(struct classify *c);
void classify_release(struct classify *c);
/* Release and free c itself; NULL is fine. */
void classify_free(struct classify *c);

/* Add the patterns of the file at path to c (a common list and a frontend's own can be loaded into
 * one struct). A pattern that does not compile is an error naming path:line with regerror's text;
 * on any error c is left as it was. */
int classify_load(struct classify *c, const char *path, struct err *e);

/* Whether any pattern matches message (NULL matches nothing). When one does and which is not NULL,
 * *which points to the first that matches (borrowed from c), for a report to name its file and
 * line. */
bool classify_match(const struct classify *c, const char *message, const struct classify_pattern **which);

/* A frontend's patterns: ferry's own (ferry/oracle/unsupported/FRONTEND.txt) and those beside an
 * adapter of the user's ($FERRY_ADAPTERS/unsupported/FRONTEND.txt). A file that is missing is fine. */
int classify_load_frontend(struct classify *c, const char *frontend, struct err *e);

/* The line of message (type: the exception type, prefixed to the first line as the worker matched
 * it) that a pattern matches, into out without its newline: what the frontend said it lacks, which a
 * cascade of failures after it (a later translator that then fails) must not hide. 0 when no single
 * line matches. */
int classify_matched_line(const struct classify *c, const char *type, const char *message, struct buf *out);

#endif
