/* triggers.h: the files and the store's rows of ferry go's trigger stage (pipeline/go.c), which
 * says what triggers each bug by contrast (issue 29, item 2; report/trigger.h reads the result):
 *
 *   1. triggers_plan: the store's failures are grouped into bugs (dedup_rebuild), and the bugs of
 *      the run's frontends are taken, the most members first, round-robin across the frontends, at
 *      most max_bugs in all; the records of their representatives (their simplest tests, as the
 *      store holds them) join DIR/LIBRARY/trigger-parents.jsonl, which gathers every parent ever
 *      taken, as vary-parents.jsonl does for --vary;
 *   2. the vary stage in its one-change mode (variants.h: one_change, the pools of the harvested
 *      corpus) makes up to K neighbours of each parent that the library's reference accepts, in
 *      DIR/LIBRARY/triggers.jsonl, each naming its parent and its change ("variant": {"parent",
 *      "vary"}), every candidate tried logged in triggers.jsonl.log;
 *   3. triggers_record: the neighbours the log names (kept now or before, or the same test as one
 *      there is) go into the store's neighbours table (parent, id, change), and, per frontend, the
 *      neighbours of its own bugs' representatives are the tests it runs: only there, so that a
 *      frontend runs no neighbour of another's bug;
 *   4. go wraps and runs them: their results are ordinary results, so a neighbour that fails joins
 *      a bug like any failure.
 *
 * Ownership: a plan owns its strings. */
#ifndef FERRY_TRIGGERS_H
#define FERRY_TRIGGERS_H

#include <stddef.h>

#include "err.h"
#include "strmap.h"

struct triggers_bug {
	char *frontend, *bug_id, *representative;
};

struct triggers_plan {
	struct triggers_bug *bugs;    /* the bugs whose representatives get neighbours */
	size_t nbugs, cap;
	struct strmap parents;        /* the representatives (each once) */
	size_t graphs;                /* bugs passed over: a graph's representative (vary grows no graph) */
};

/* The frontends' own tests: per frontend label, the ids it runs (ids_of, filled by
 * triggers_record). */
struct triggers_run {
	char *frontend;
	struct strmap ids;
};

void triggers_plan_release(struct triggers_plan *p);

/* Step 1: regroup the store's failures and choose the bugs of frontends[0..nfes) (store labels),
 * at most max_bugs (0: no limit); append the records of their representatives that parents does
 * not hold yet to it (made when missing). *added: how many. 0, or -1 with e. */
int triggers_plan(const char *store, const char *const *frontends, size_t nfes, size_t max_bugs,
		  const char *parents, struct triggers_plan *p, size_t *added, struct err *e);

/* Step 3: read log (vary's OUTPUT.log of step 2), put every neighbour it names into the store's
 * neighbours table, and fill runs[i].ids (runs[i].frontend set by the caller) with the neighbours of
 * the planned bugs of that frontend; all of them into every (the union, for the wrap). *neighbours:
 * how many rows the table got. 0, or -1 with e. */
int triggers_record(const char *store, const char *log, const struct triggers_plan *p, struct triggers_run *runs,
		    size_t nruns, struct strmap *every, size_t *neighbours, struct err *e);

#endif
