/* bugs.h: ferry bugs' engine: group the failures of a results store into unique bugs (dedup.h), keep
 * them in the store, and list them, one line each (or one JSON document), each with what ferry
 * reduce made of its simplest test. ferry bugs and ferry go's last stage call it. */
#ifndef FERRY_BUGS_H
#define FERRY_BUGS_H

#include <stdio.h>

#include "err.h"

struct bugs_opts {
	const char *frontend;   /* only this frontend's bugs, or NULL: all */
	const char *glob;       /* only the bugs with a member test of an operator matching it, or NULL */
	int json;               /* one JSON document, each bug with its member tests */
	int wide;               /* lines not cut to the terminal's width (never cut when out is no terminal) */
	const char *triage;     /* the triage file (triage.h), or NULL: TRIAGE_DEFAULT when it exists */
};

/* Group the failures of the store at path store (which must exist: else EXIT_INPUT) into unique
 * bugs, keep them in it, and write the list to out. 0, or -1 with e. */
int bugs_list(const char *store, const struct bugs_opts *o, FILE *out, struct err *e);

#endif
