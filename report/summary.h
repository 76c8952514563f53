/* summary.h: what report, bugs and show print of a store, computed once for every form they print it
 * in (the terminal, --json, --html): a failure's line led by what decides it, the results tallied per
 * frontend and operator (narrowed by --op GLOB), and the durations the store recorded.
 *
 * A failure's line: a crash's exception type and decisive line first (dedup_decisive, without the
 * location a compiler put before it: "<stdin>:4:10: error: "), then (with
 * SUMMARY_WHOLE) the whole message when that is more; a mismatch's parts in the order that decides (NaN/Inf, shape and
 * dtype, then how many elements are out of tolerance, then the largest difference); otherwise the
 * message. Nothing is cut here: summary_width() says how much a terminal line has room for.
 *
 * Ownership: a struct summary owns everything it holds; strings handed to callbacks are borrowed. */
#ifndef FERRY_SUMMARY_H
#define FERRY_SUMMARY_H

#include <stddef.h>
#include <stdio.h>

#include "buf.h"
#include "db.h"
#include "outcome.h"
#include "strmap.h"

/* Append a failure's line (its newlines as spaces): outcome, exc_type and message may be NULL. With
 * SUMMARY_WHOLE, a crash's decisive line is followed by its whole message (" -- ..."), for a line
 * that is all there is of it; without, the line is what decides alone (the message is shown apart). */
enum { SUMMARY_WHOLE = 1 };
void summary_failure_line(const char *outcome, const char *exc_type, const char *message, unsigned flags,
			  struct buf *out);

/* The characters a line may take on out: 0 (no limit) when out is not a terminal or wide is set,
 * else the terminal's width (COLUMNS, else the window's, else 100). */
size_t summary_width(FILE *out, int wide);
/* Write s to out cut to at most width - used characters (width 0: whole), "..." marking a cut. */
void summary_print_cut(FILE *out, const char *s, size_t used, size_t width);

/* Whether op matches glob (select_op_matches, as --op everywhere; NULL glob: every operator). A
 * result without an operator matches only no glob. */
int summary_op_matches(const char *glob, const char *op);

/* -1 (EXIT_INPUT, naming the pattern and the store) when glob is given and matches the operator of
 * none of the store's tests (of frontend, when not NULL): an empty selection means the same in
 * report, bugs and show as in run and check. */
int summary_require_match(struct db *d, const char *store, const char *frontend, const char *glob,
			  struct err *e);

/* One operator's results on a frontend. */
struct summary_op {
	long long tests, mismatch, crash, timeout_oom, failed;
	long long by_outcome[OUTCOME_COUNT];
};

/* Time spent by tests that ended in one place: "pass" (every stage ran), the stage a failure ended
 * in (load, compile, execute, wrap), or the outcome of a result without a stage ("mismatch": every
 * stage ran, the values differ). */
struct summary_time {
	double seconds;
	long long tests;
};

struct summary_frontend {
	char *name, *version;
	long long outcomes[OUTCOME_COUNT], other, total;
	struct strmap ops;       /* operator -> struct summary_op */
	struct strmap ended;     /* where tests ended -> struct summary_time */
	double seconds;          /* of the results with a time */
	long long timed;
};

#define SUMMARY_SLOWEST 10

struct summary_slow {
	char *frontend, *id, *op, *outcome;
	double seconds;
};

struct summary {
	const char *glob;        /* --op (borrowed), or NULL */
	struct summary_frontend *fe;
	size_t nfe, cap;
	struct summary_slow slowest[SUMMARY_SLOWEST];   /* the slowest first */
	size_t nslow;
	struct strmap all_ops;   /* operators with results on any frontend (count: results) */
};

/* Tally the results of the store (frontend NULL: all) whose operator matches glob. */
int summary_load(struct summary *s, struct db *d, const char *frontend, const char *glob, struct err *e);
void summary_release(struct summary *s);
/* A frontend's operators with failures, the most failures first (at most limit; 0: all): an array of
 * entries (ptr: struct summary_op) of f->ops that is the caller's to free; *n gets its length. */
struct strmap_entry **summary_failing_ops(const struct summary_frontend *f, size_t limit, size_t *n);
/* Write the durations to out: the slowest tests, the time per frontend and where its tests ended. */
void summary_print_durations(FILE *out, const struct summary *s);

#endif
