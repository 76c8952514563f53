/* htmlreport.h: ferry report --html DIR. One self-contained page per store, DIR/index.html: no
 * network, no file beside it but the reproducers it links to (DIR/reproducers/...), and no script
 * but its own few lines (the bug list's sort and filter), which its Content-Security-Policy names by
 * hash; without script the page is whole. It shows the outcomes per frontend, a frontend x operator
 * grid, the unsupported reasons, the list of bugs (each with the origin of its tests: harvested,
 * variant, graph, reduced), every unique bug with its whole message, its members and its
 * reproducer, the bug-discovery curve of each queue given (prioritize/apfd.h), and the timings; the
 * plots are inline SVG drawn here. Nothing on it is wider than the window but the grid, which
 * scrolls in its own box.
 *
 * Everything that came from a store (operators, ids, messages, tracebacks, paths) is data: it is
 * written through esc_add(ESC_XML), so a message holding "</script>" or "<img onerror=...>" is text
 * on the page. */
#ifndef FERRY_HTMLREPORT_H
#define FERRY_HTMLREPORT_H

#include <stddef.h>

#include "db.h"
#include "err.h"
#include "summary.h"
#include "triage.h"

struct htmlreport {
	struct db *db;               /* opened for writing: the bugs are grouped anew (dedup_rebuild) */
	const struct summary *sum;   /* the store's results, as narrowed by frontend and glob */
	const char *store, *dir, *frontend, *glob;
	const char *const *queues;   /* [LABEL=]QUEUE arguments */
	size_t nqueues;
	const struct triage *triage; /* the decisions about bugs (triage.h), shown with them, or NULL */
	/* Write the reproducer of a bug's representative under root; *path (the caller frees) is where,
	 * or NULL when it could not be made (a warning was printed). -1 only for an error that stops. */
	int (*reproduce)(void *ctx, const struct db_row *row, const char *root, char **path, struct err *e);
	void *ctx;
	/* Out: what was written. */
	size_t bytes, reproducers;
};

/* Write h->dir/index.html (and the reproducers). */
int htmlreport_write(struct htmlreport *h, struct err *e);

#endif
