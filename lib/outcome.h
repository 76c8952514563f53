/* outcome.h: the outcomes a test can have, in one table: their names (as stored and printed), their
 * order in reports, and which of them are failures (possible bugs). Every judgement of "is this a
 * failure" (the run's counts, ferry check, baselines, unique bugs, reports and reproducers) comes from
 * here, in C through outcome_is_failure and in SQL through outcome_failure_sql, both made from the
 * same table.
 *
 * Not failures: pass; unsupported (the frontend says it does not support the usage); undefined (a
 * failure on an input in the operator's undefined domain, such as an integer division by zero: the
 * frontend may answer anything there, so it is flagged, never a bug).
 * Failures: mismatch (the value oracle), inconsistent (the metamorphic oracle: the frontend's outputs on
 * a model and on a mutation of it that computes the same function disagree), crash (an exception in
 * a stage, or a fatal signal), timeout,
 * oom, and error (ferry could not run the test: a worker that would not start, a missing model file,
 * a template that could not make the model the frontend takes), which is counted as a failure so that
 * a broken test can never pass a CI check unnoticed.
 * Bugs (possibly the frontend's): the failures but error. An error is never a bug of the frontend: it
 * stays out of unique bugs and baselines, and the same run command run again retries it. */
#ifndef FERRY_OUTCOME_H
#define FERRY_OUTCOME_H

#include "buf.h"

enum outcome {
	OUTCOME_PASS,
	OUTCOME_MISMATCH,
	OUTCOME_INCONSISTENT,
	OUTCOME_CRASH,
	OUTCOME_TIMEOUT,
	OUTCOME_OOM,
	OUTCOME_UNSUPPORTED,
	OUTCOME_UNDEFINED,
	OUTCOME_ERROR,
};
#define OUTCOME_COUNT (OUTCOME_ERROR + 1)

/* "pass", "mismatch", ...: the name as stored and printed (a static string). */
const char *outcome_name(enum outcome o);
/* The outcome of a name; -1 for a name that is none (nothing ferry writes). */
int outcome_from_name(const char *name);
int outcome_is_failure(enum outcome o);
/* By name: 0 for a name that is no outcome, as the SQL predicate says. */
int outcome_name_is_failure(const char *name);
/* Append "COLUMN IN ('mismatch', 'crash', ...)": the failures as an SQL expression, for the store's
 * queries (column: e.g. "r.outcome"). */
void outcome_failure_sql(const char *column, struct buf *out);
/* Whether a failure of this outcome may be the frontend's bug (every failure but ferry's error). */
int outcome_is_bug(enum outcome o);
int outcome_name_is_bug(const char *name);
/* The same as an SQL expression: "COLUMN IN ('mismatch', 'crash', ...)". */
void outcome_bug_sql(const char *column, struct buf *out);

#endif
