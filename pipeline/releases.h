/* releases.h: ferry bisect's engine (doc/bisect.md): which releases of a frontend's package a bug
 * affects. It lists the releases pip can install here within a range (ferry.oracle.releases, on
 * PyPI's JSON), gives each one a cached virtualenv with the numpy of its day, runs the bug's member
 * tests there as "ferry run -F NAME@PYTHON -o STORE" (a child ferry, so its results land in the
 * store under NAME@VERSION and Ctrl-C loses nothing finished), and bisects: the first bad release,
 * the last good one before it, and the first good one after it (fixed in). Judgements are
 * report/bisect.h's, from the store, so a release already run is not run again. */
#ifndef FERRY_RELEASES_H
#define FERRY_RELEASES_H

#include <stdio.h>

#include "err.h"

struct releases_opts {
	const char *store, *bug, *spec;  /* STORE, BUG, --releases PACKAGE==FIRST..[LAST] */
	const char *venvs;      /* --venvs FILE: "VERSION PYTHON" lines instead of PyPI and pip, or NULL */
	int more;               /* --tests N: member tests beside the representative */
	int all;                /* every release in the range, not a bisection */
	int max_releases;       /* releases run (or installed) in this call at most; 0: no bound */
	const char *timeout;    /* -t SECS, as ferry run takes it, or NULL */
	const char *jobs;       /* -j N, or NULL */
	int json;
	const char *python;     /* ferry's interpreter: runs the PyPI and pip helper */
	void (*note)(void *ctx, const char *line);  /* progress: installing, running (stderr) */
	void (*warn)(void *ctx, const char *line);  /* a release unavailable, the bound reached */
	void *ctx;
};

/* Split spec "PACKAGE==FIRST..LAST" (FIRST or LAST may be empty; "PACKAGE==V" is V alone) into
 * its parts (the caller frees them). EXIT_USAGE naming spec when it is not one. */
int releases_parse_spec(const char *spec, char **package, char **first, char **last, struct err *e);

/* Bisect o->bug over o->spec's releases, printing the table and the verdict (text or JSON) on
 * out. EXIT_OK, or another exit code with e filled (EXIT_INTERRUPTED on Ctrl-C). */
int releases_bisect(const struct releases_opts *o, FILE *out, struct err *e);

#endif
