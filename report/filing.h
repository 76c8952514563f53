/* filing.h: the bugs in the order most worth a maintainer's time (ferry bugs, the HTML page's bug
 * list, ferry file). Frontend bugs come first, the other kinds (kinds.h) after; among the bugs, those
 * of the newest release the store holds of their adapter before those of an older one (a bug that
 * only an older release shows may be fixed), then by score, the most first: what the bug reaches,
 * its distinct operators plus the square root of its tests (a cause that fails ten operators
 * outweighs one operator's hundred variants), doubled when it stops the user (a crash, a signal
 * death, a timeout or running out of memory) rather than giving a wrong result, which can be a
 * precision question; then the more severe (a signal, a crash, a hang, a wrong result), then by
 * frontend and id so that the order is stable. */
#ifndef FERRY_FILING_H
#define FERRY_FILING_H

#include <stddef.h>

#include "db.h"
#include "err.h"
#include "kinds.h"

/* What a bug does to a user, most severe first: the order's third key. */
enum filing_severity { SEVERITY_SIGNAL, SEVERITY_CRASH, SEVERITY_HANG, SEVERITY_WRONG, SEVERITY_OTHER };

struct filing_bug {
	struct db_bug b;        /* its strings owned (b.member_ids unset) */
	enum kind kind;
	enum filing_severity severity;
	int older;              /* 1: its label is an older release of an adapter the store holds newer */
	size_t operators;       /* distinct operators among its tests (a generated graph's "graph" not one) */
	double score;
	size_t rank;            /* 1-based place in the order */
};

struct filing {
	struct filing_bug *v;
	size_t n;
};

/* The store's bugs (frontend NULL: every frontend's) in filing order. 0, or -1 with e. */
int filing_load(struct db *d, const char *frontend, struct filing *f, struct err *e);
void filing_release(struct filing *f);
/* "signal", "crash", "hang", "wrong result", "other": the severity's name, for --json. */
const char *filing_severity_name(enum filing_severity s);

#endif
