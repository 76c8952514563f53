/* show.h: ferry show's engine: one unique bug with its member tests and the standalone reproducer
 * of its simplest test (or of the subgraph ferry reduce left of it); with outdir, the reproducer
 * and the test in the compiler's own format written there; minimal, the shortest standalone
 * script; json, all of it as one JSON document. */
#ifndef FERRY_SHOW_H
#define FERRY_SHOW_H

#include <stdio.h>

#include "err.h"

struct show_opts {
	const char *outdir;     /* write the reproducer (and the test) there, or NULL */
	int minimal, json;      /* the shortest script / one JSON document (one at a time) */
	int file;               /* ferry file: the issue text, its reproducer and the regression test */
	const char *glob;       /* only member tests of operators matching it; with no bug, the bug with most */
	const char *python;     /* the interpreter of the templates */
	void (*warn)(void *ctx, const char *line);
	void *warn_ctx;
};

/* Show the bug (an id or a unique prefix; NULL: the one with the most tests that o->glob matches)
 * of the store at path store (which must exist: else EXIT_INPUT) on out. 0, or -1 with e. */
int show_bug(const char *store, const char *bug, const struct show_opts *o, FILE *out, struct err *e);

#endif
