/* report.h: ferry report's engine: a results store summarised for a reader, on a terminal (outcomes
 * per frontend, the reasons of what a frontend does not support, the operators with failures and the
 * failures, what the probes found, the releases), as one JSON document, or as one HTML page with
 * the bugs' reproducers; and with outdir, a standalone reproducer script per failure. ferry report
 * and ferry go's last stage call it. */
#ifndef FERRY_REPORT_H
#define FERRY_REPORT_H

#include <stdio.h>

#include "err.h"
#include "opts.h"

struct report_opts {
	const char *outdir;       /* also write a reproducer per failure into outdir, or NULL */
	const char *frontend;     /* only this frontend, or NULL: all */
	const char *glob;         /* only the tests of operators matching it, or NULL */
	const char *html;         /* write html/index.html and its reproducers instead, or NULL */
	const char *xfail;        /* write the expected-failure lists into xfail instead (xfail.h), or NULL */
	struct opts_list queues;  /* with html: the queues whose speed at finding the bugs it plots */
	int all;                  /* every failure (else the first 40 per frontend) */
	int json;                 /* one JSON document instead */
	int wide;                 /* lines not cut to the terminal's width */
	int durations;            /* also the slowest tests and where the time went */
	const char *python;       /* the interpreter the reproducers' templates run on */
	const char *triage;       /* the triage file (triage.h), or NULL: TRIAGE_DEFAULT when it exists */
	void (*warn)(void *ctx, const char *line);  /* what could not be made, one line each */
	void *warn_ctx;
	/* outdir and html are written only when new, empty or ferry's for this store (outdir.h); with
	 * own, they are the caller's own (ferry go's project directory) and taken even unmarked. */
	int own;
};

/* Summarise the store at path store (which must exist: else EXIT_INPUT) into out. 0, or -1 with e. */
int report_write(const char *store, const struct report_opts *o, FILE *out, struct err *e);

#endif
