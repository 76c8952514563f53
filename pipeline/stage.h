/* stage.h: what a stage of the pipeline says, and where (a struct stage_io that the command or ferry
 * go passes down): its summary on out, its warnings and errors through the caller's printing, so
 * that the stages' engines (pipeline/) print the way the commands always have without reaching
 * back up into src/. A stage returns an exit code (enum ferry_exit), having said why when it is not
 * EXIT_OK. */
#ifndef FERRY_STAGE_H
#define FERRY_STAGE_H

#include <stdio.h>

#include "err.h"
#include "warnlog.h"

struct stage_io {
	FILE *out;                                   /* the summary (stdout) */
	void (*warn)(void *ctx, const char *line);   /* "ferry: warning: ..." */
	int (*error)(const struct err *e);           /* "ferry: error: ..."; returns the exit code */
	const char *python;                          /* the interpreter of the libraries */
	struct warnlog *warnings;                    /* where the libraries' warnings go, or NULL */
};

/* A warning through io->warn, formatted. */
void stage_warn(const struct stage_io *io, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

#endif
