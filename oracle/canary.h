/* canary.h: the canary, a few trivial tests whose answers are known (ferry/oracle/canary.py: Add of
 * two 0-d floats, Range(0, 3, 1) on 0-d int64 inputs, torch.add and keras.ops.add of two), run through
 * a frontend at the start of its run, once per release of it and interpreter (the store keeps the
 * verdict: db.h, struct db_environment; a virtualenv whose packages change in place keeps its path,
 * and its verdict: a new one, as scripts/venv-release makes, is checked anew). They are wrapped by
 * the library's template into a directory of ferry's own and run by the frontend's workers like any
 * test, but their results go to the environment table, never to the results. A wrong answer means
 * the frontend's environment is broken (OpenVINO 2023.0 under numpy 2 reads 0-d inputs as garbage):
 * its failures on 0-d inputs, the canary's form, are then no frontend bugs (ferry bugs lists them
 * apart, report/environment.h), and the run says so once, with the fix (the numpy of the
 * release's day). A crash is not taken for one: every crash of the canary measured was the
 * frontend's own (TVM 0.25 refuses Range on 0-d inputs under numpy 1.26 too; TVM's TFLite path
 * crashes on 0-d inputs under .venv's numpy). A crash, "unsupported" or ferry's own error tells
 * nothing; one right answer vouches for the rest (the verdict passes), none leaves it inconclusive,
 * which counts as not broken. What a store's verdict says of a frontend: report/environment.h. */
#ifndef FERRY_CANARY_H
#define FERRY_CANARY_H

#include <stddef.h>

#include "buf.h"
#include "db.h"
#include "err.h"
#include "frontend.h"
#include "runner.h"
#include "tolerance.h"
#include "wrapped.h"

/* A canary job's key: the canary test's index after this prefix. */
#define CANARY_KEY "canary:"

/* The canary of one frontend's run, from its wrap to its verdict. */
struct canary {
	char *dir;              /* ferry's own temporary directory: DIR/wrapped.jsonl, tests, outputs */
	struct wrapped *tests;
	size_t n;
	char **expected;        /* per test: "Range(0, 3, 1) = [0, 1, 2]" */
	size_t sent, answered;
	size_t wrong, inconclusive;
	struct buf detail;      /* what the wrong or inconclusive answers were, "; "-separated */
	double seconds;         /* its cost so far: the wrap, then each answer's time */
};

/* Wrap the canary of fe's library into a new directory (the wrap engine, in workers, as ferry wrap
 * does; jobs, timeout and memory limit from ro). 0 with c->n tests; 0 with c->n == 0 when the
 * library has none or its template gives a reference other than the known answer (then *why, owned,
 * says so); -1 on error. */
int canary_prepare(struct canary *c, const struct frontend *fe, const struct runner_opts *ro, char **why,
		   struct err *e);
/* The worker request that runs canary test k with tolerance tol: as a test's, with its outputs kept
 * for the warning. Caller frees. */
char *canary_request(const struct canary *c, size_t k, struct tolerance tol);
/* Canary test k's result (its outcome, stage and message as session_outcome judged them). */
void canary_answer(struct canary *c, size_t k, const struct db_result *res);
/* Every canary test answered; then its row for the store (fe's label and interpreter, version and
 * c->detail's text borrowed). */
int canary_done(const struct canary *c);
void canary_verdict(const struct canary *c, const struct frontend *fe, const char *version,
		    struct db_environment *v);
/* The warning of a broken environment, one line into out (appended). */
void canary_warning(const struct db_environment *v, struct buf *out);
/* Remove the directory and free everything (c may be all zero). */
void canary_release(struct canary *c);

#endif
