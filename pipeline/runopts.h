/* runopts.h: what ferry run, ferry check and ferry go share of a run of the session
 * (oracle/session.h): the options that shape it, the progress line it draws, and the summary it
 * prints. src/runargs.h fills it from the command line. */
#ifndef FERRY_RUNOPTS_H
#define FERRY_RUNOPTS_H

#include <stdio.h>

#include "progress.h"
#include "session.h"
#include "wrap.h"

#define RUNOPTS_MAX_FRONTENDS 16

struct runopts {
	struct session_opts s;
	struct frontend fes[RUNOPTS_MAX_FRONTENDS];
	size_t nfes;
	int quiet;
	int json;                       /* --json: one JSON document on stdout instead of the text */
	int maxfail;                    /* --maxfail, or 0 (-x: 1) */
	int exitfirst;                  /* -x */
	int collect_only;               /* --collect-only: list the selected tests, run nothing */
	int limit;                      /* --limit, or -1 */
	unsigned long long memory;      /* --memory, or 0 */
	const char *oracle;             /* --oracle, or NULL */
	int mutations, seed;            /* -k and --seed (the metamorphic oracle's), or -1 */
	struct select select;           /* --op, --test */
	struct progress progress;
	char label[160];
	char *command;
	void (*warn)(void *ctx, const char *line);  /* what the session warns of (after the progress line) */
};

/* Defaults; warn says the session's warnings. r points to itself afterwards: init it in place. */
void runopts_init(struct runopts *r, void (*warn)(void *ctx, const char *line));
void runopts_release(struct runopts *r);
/* Add to o->formats the model files frontend fe reads: its adapter's LIBRARY and FORMAT, read without
 * importing the adapter (the interpreter must be started). *cap is the array's capacity. The array
 * and its strings are o's, to be freed with runopts_formats_free, on failure too. */
int runopts_add_format(struct wrap_opts *o, size_t *cap, const struct frontend *fe, struct err *e);
void runopts_formats_free(struct wrap_opts *o);
/* After progress_start on r->progress: the session's lanes (session_opts.started's) as its lanes. */
void runopts_progress_lanes(struct runopts *r, const struct session_progress *lanes, size_t n);
/* Print what each frontend's run did. */
void runopts_print(const struct runopts *r, const struct session_result *res);
/* --json (doc/json.md): what each frontend's run did, one object each, in an array (new). */
struct cJSON *runopts_json(const struct runopts *r, const struct session_result *res);
/* The bug of each failing test after dedup_rebuild (report/dedup.h), "FRONTEND\x1fID" -> ptr: the
 * bug id (owned: runopts_bugs_release). */
int runopts_bugs(struct db *d, struct strmap *out, struct err *e);
void runopts_bugs_release(struct strmap *m);
/* --json of ferry run: append to failures the failing results of the session's tests, each with its
 * name, kind (kinds.h) and bug; groups the store's failures afresh (dedup_rebuild). */
int runopts_json_failures(const struct runopts *r, struct session *s, struct cJSON *failures, struct err *e);
/* --json of ferry go: add to into, for the store (none yet: nothing), "outcomes" (by frontend, the
 * results by outcome) and "failures" (as runopts_json_failures', of every test). */
int runopts_json_store(const char *store, struct cJSON *into, struct err *e);
/* Print doc on stdout, and free it. */
void runopts_json_print(struct cJSON *doc);
/* s as a JSON string, or null when NULL: what run's, check's and go's documents give for a value
 * that may be missing. */
struct cJSON *runopts_json_string(const char *s);
/* --collect-only, after session_open (with collect_only): print the tests the session would take
 * for each frontend (each at most --limit valid ones; every library's without a frontend), one line
 * each (id, operator, test, kind), then how many. */
void runopts_collect(const struct runopts *r, struct session *s);
/* One line of that list: the instance's id, operator, test and kind. */
void runopts_collect_line(const struct instance *in);
/* After a run: when --maxfail stopped it, say so on stderr, with how many tests it left out, and
 * return EXIT_STOPPED; else EXIT_OK. */
int runopts_stopped(const struct runopts *r, const struct session_result *res);
/* After session_open: one line on stderr for what the queue and --op/--test selected, when they
 * left tests out (unless quiet). */
void runopts_print_selection(const struct runopts *r, const struct session *s);

#endif
