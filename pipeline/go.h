/* go.h: ferry go's pipeline: for each library, harvest its tests into DIR/LIBRARY/corpus.jsonl,
 * rank the corpus for each frontend, take a sample down each queue, with vary_k and generate_n add
 * variants and generated graphs, wrap what will run, run every frontend into results.db, run a
 * few one-change neighbours of each bug's simplest test on its frontend (what triggers it), and
 * write bugs.txt, report.txt, the reproducers and the page (html/index.html); a stage whose output
 * is current is skipped, and the same call run again goes on where it stopped. src/cmd-go.c fills
 * the options. */
#ifndef FERRY_GO_H
#define FERRY_GO_H

#include <stddef.h>

#include "opts.h"
#include "runopts.h"
#include "stage.h"

#define GO_TRIGGERS 6
#define GO_TRIGGER_BUGS 100

struct go_opts {
	const char *output;             /* the project directory (-o), or NULL: the current one */
	const char *counts_opt;         /* rank every queue against these counts, or NULL: each frontend's */
	const char *tolerances_opt;     /* per-operator tolerances, or NULL: the library's own */
	struct opts_list suites;        /* torch, keras: the suites harvested, or none: all */
	int per_op, limit;              /* --per-op K, --limit N, or 0 */
	int quiet;
	int vary_k, generate_n;         /* --vary K, --generate N, or 0 */
	/* The trigger stage (pipeline/triggers.h): up to triggers neighbours of each bug's simplest
	 * test (0: GO_TRIGGERS), run on its frontend, for at most trigger_bugs bugs of a library (0:
	 * GO_TRIGGER_BUGS); no_triggers: no trigger stage. */
	int triggers, trigger_bugs, no_triggers;
	int no_html;                    /* no page (DIR/LIBRARY/html/index.html) */
	double budget;                  /* seconds from the start of the command, or 0 */
	double harvest_timeout;         /* a harvested test's (or sample's), or 0: the harvest's default */
	struct runopts r;               /* the run: frontends, --op/--test, -j, -t, -m, --rerun, --maxfail */
	/* --json: go_run adds an object per library to its "libraries" array, with the library's
	 * stages (what each said), the paths of its files and its store's results (doc/json.md); or NULL */
	struct cJSON *json;
};

/* Run the pipeline for each of the libraries, in dir/LIBRARY; start is when the command started
 * (progress_now), from which the budget counts. An exit code, said on stderr when not EXIT_OK. */
int go_run(struct go_opts *o, const char *const *libs, size_t nlibs, const char *dir, double start,
	   const struct stage_io *io);

#endif
