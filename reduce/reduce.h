/* reduce.h: ferry reduce's engine: failing multi-node ONNX tests of a store reduced to the smallest
 * subgraph that still fails the same way, each kept as a test directory and recorded in the store's
 * reductions, where show, bugs and report find it. */
#ifndef FERRY_REDUCE_H
#define FERRY_REDUCE_H

#include <stddef.h>
#include <stdio.h>

#include "err.h"

struct reduce_opts {
	const char *frontend;           /* only this frontend's failures (NAME@PYTHON: that release's) */
	const char *outdir;             /* where the reduced tests go, or NULL: STORE.reduced */
	int jobs;                       /* worker processes, or 0: the number of cores */
	int simplest;                   /* only each bug's simplest test */
	int again;                      /* results reduced before too */
	double timeout;                 /* a candidate's seconds, or 0: 60 */
	unsigned long long memory;      /* a worker's, or 0: a share of the machine's */
	const char *python;             /* the interpreter of the subgraph planner */
	void (*warn)(void *ctx, const char *line);  /* what could not be read or run, one line each */
	void *warn_ctx;
};

/* Reduce the failures of the store at path store (which must exist: else EXIT_INPUT), of the bugs
 * (ids or unique prefixes; none: every bug), saying each on out. 0, or -1 with e. */
int reduce_run(const char *store, const char *const *bugs, size_t nbugs, const struct reduce_opts *o, FILE *out,
	       struct err *e);

#endif
