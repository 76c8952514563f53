/* bisect.h: which releases of a frontend a bug affects, read from the store (doc/bisect.md). ferry
 * bisect runs the bug's member tests under other releases, whose results land under the labels
 * NAME@VERSION like any -F NAME@PYTHON run's; this module judges each release from those results,
 * per test id and label, never from a copy kept by bug id, so a verdict stays right when the bugs
 * are grouped anew. ferry bisect, the report and the issue text all say it through here.
 *
 * Ownership: every char * in these structs belongs to the struct; *_release frees it. */
#ifndef FERRY_BISECT_H
#define FERRY_BISECT_H

#include <stddef.h>

#include "buf.h"
#include "db.h"
#include "err.h"

/* What the member tests did under one release. */
enum bisect_verdict {
	BISECT_NOT_RUN,      /* no result of the tests under its label */
	BISECT_GOOD,         /* each test with a result passed (none failed) */
	BISECT_BAD,          /* a test failed as the bug does (its outcome) */
	BISECT_OTHER,        /* tests failed, none as the bug does: neither good nor bad */
	BISECT_UNDECIDED,    /* nothing passed or failed (unsupported, undefined, ferry's errors) */
	BISECT_UNAVAILABLE,  /* not installable, the adapter's format or API missing, or its canary
			      * wrong (a numpy newer than the release's): neither good nor bad */
};

/* "good", "bad", ... (a static string). */
const char *bisect_verdict_name(enum bisect_verdict v);

/* A bug, as ferry bugs groups it, and the tests bisect runs of it: the representative first. */
struct bisect_bug {
	char *bug_id, *frontend, *outcome;
	char *base;          /* the frontend's adapter name: the label without "@VERSION" */
	char *library;       /* the library of its models (the adapter's LIBRARY) */
	char *wrapdir;       /* the wrap directory that holds the representative's test */
	char *version;       /* the release number it was found in, or NULL */
	char **ids;
	size_t nids;
};

void bisect_bug_release(struct bisect_bug *b);
/* The bug that prefix names (a unique prefix of an id, as ferry show takes it) into b, with its
 * representative and at most more other members (-1: all). 0, or -1 with e (EXIT_INPUT: no such bug,
 * or several). */
int bisect_bug_load(struct db *db, const char *prefix, long more, struct bisect_bug *b, struct err *e);

struct bisect_judgement {
	enum bisect_verdict verdict;
	int tests, bad, other, passed;   /* results of the bug's tests, failures as the bug, others, passes */
	char *why;                       /* unavailable: why, or NULL */
};

void bisect_judgement_release(struct bisect_judgement *j);
/* Judge the release under label (NAME@VERSION, version its VERSION) from b's tests' results there. */
int bisect_judge(struct db *db, const struct bisect_bug *b, const char *label, const char *version,
		 struct bisect_judgement *j, struct err *e);

/* Append one line (with its newline) saying which releases bug (an id of frontend's, as the bugs
 * table holds it) affects, from the results of its member tests under every label of frontend's
 * adapter: "first bad 2024.1.0, last good 2024.0.0, still in 2026.4.0 (5 releases tried)"; nothing
 * when no other release of it ran any of them. 0, or -1 with e. */
int bisect_describe(struct db *db, const char *frontend, const char *bug, struct buf *out, struct err *e);

/* The line of bisect_describe from releases already judged, oldest first (versions[i] judged
 * verdicts[i]); nothing when none was run. */
void bisect_summary(const char *const *versions, const enum bisect_verdict *verdicts, size_t n, struct buf *out);

#endif
