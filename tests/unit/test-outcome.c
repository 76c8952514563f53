/* test-outcome.c: the outcome table's views agree: names and enum, outcome_is_failure and the SQL
 * predicate the store's queries use (run by SQLite itself on every outcome), and the default
 * tolerance's number and text. */
#include <sqlite3.h>
#include <stdlib.h>
#include <string.h>

#include "outcome.h"
#include "tap.h"
#include "tolerance.h"

/* What SQLite makes of the predicate for one outcome name: 1, 0, or -1 on error. */
static int sql_says_of(sqlite3 *h, const char *name, int bugs)
{
	struct buf sql = BUF_INIT;
	sqlite3_stmt *st = NULL;
	int r = -1;

	buf_adds(&sql, "SELECT ");
	if (bugs)
		outcome_bug_sql("outcome", &sql);
	else
		outcome_failure_sql("outcome", &sql);
	buf_adds(&sql, " FROM (SELECT ?1 AS outcome)");
	if (sqlite3_prepare_v2(h, sql.data, -1, &st, NULL) == SQLITE_OK) {
		sqlite3_bind_text(st, 1, name, -1, SQLITE_STATIC);
		if (sqlite3_step(st) == SQLITE_ROW)
			r = sqlite3_column_int(st, 0);
	}
	sqlite3_finalize(st);
	buf_release(&sql);
	return r;
}

static int sql_says(sqlite3 *h, const char *name)
{
	return sql_says_of(h, name, 0);
}

int main(void)
{
	static const char *const failures[] = { "mismatch", "inconsistent", "crash", "timeout", "oom", "error" };
	static const char *const others[] = { "pass", "unsupported", "undefined" };
	sqlite3 *h = NULL;

	plan(3 * OUTCOME_COUNT + 6 + 3 + 3 + 2);
	if (sqlite3_open(":memory:", &h) != SQLITE_OK)
		return 1;
	for (int o = 0; o < OUTCOME_COUNT; o++) {
		const char *name = outcome_name(o);

		is_int(outcome_from_name(name), o, "'%s' names its outcome", name);
		is_int(sql_says(h, name), outcome_is_failure(o), "SQL and C agree on whether '%s' is a failure", name);
		is_int(sql_says_of(h, name, 1), outcome_is_bug(o), "and on whether it may be a bug");
	}
	/* ferry's own error fails a check, but is never the frontend's bug. */
	ok(outcome_is_failure(OUTCOME_ERROR) && !outcome_is_bug(OUTCOME_ERROR), "an error is a failure, not a bug");
	ok(outcome_is_bug(OUTCOME_CRASH) && outcome_is_bug(OUTCOME_MISMATCH) && !outcome_is_bug(OUTCOME_UNSUPPORTED),
	   "crashes and mismatches may be bugs, unsupported is not");
	for (size_t i = 0; i < sizeof(failures) / sizeof(*failures); i++)
		ok(outcome_name_is_failure(failures[i]), "'%s' is a failure", failures[i]);
	/* undefined: a failure on an input in the operator's undefined domain is flagged, never a bug. */
	for (size_t i = 0; i < sizeof(others) / sizeof(*others); i++)
		ok(!outcome_name_is_failure(others[i]), "'%s' is not a failure", others[i]);
	ok(outcome_from_name("skipped") < 0 && outcome_from_name(NULL) < 0, "unknown names are no outcome");
	is_int(sql_says(h, "nonsense"), outcome_name_is_failure("nonsense"), "nor a failure, in SQL or in C");
	ok(strtod(TOLERANCE_DEFAULT_TEXT, NULL) == TOLERANCE_DEFAULT_ATOL &&
	   strtod(TOLERANCE_DEFAULT_TEXT, NULL) == TOLERANCE_DEFAULT_RTOL, "the default tolerance's text is its number");
	sqlite3_close(h);
	return done();
}
