/* db.h: the results store, one SQLite file (shared/DESIGN.md, "Store"). It holds the instances a run
 * was given (with their wrap status), each test's result per frontend, and the runs. Every result is
 * committed as soon as it is known, so a run that is killed loses nothing finished, and running the
 * same command again resumes: a (frontend, instance) pair with a result is not run again.
 *
 * Outcomes: pass, mismatch (the value oracle), crash (an exception in a stage, or a fatal signal),
 * unsupported (a crash whose message says the frontend does not support the usage), timeout, oom,
 * error (ferry could not run the test: a worker that would not start, a missing model file). */
#ifndef FERRY_DB_H
#define FERRY_DB_H

#include <sqlite3.h>

#include "err.h"
#include "record.h"

struct db {
	sqlite3 *h;
	char *path;
	/* The statements every test uses, prepared once (owned; finalized by db_close). */
	sqlite3_stmt *has_result, *put_result;
};

#define DB_INIT { NULL, NULL, NULL, NULL }

struct db_result {
	const char *frontend;
	const char *id;
	long long run_id;
	const char *outcome;
	const char *stage;      /* load, compile, execute, or NULL */
	const char *exc_type;   /* exception type name, "SIGSEGV", or NULL */
	const char *message;    /* one line */
	const char *frame;      /* "file:function" where the failure arose, or NULL */
	const char *detail;     /* traceback, comparison detail, or the tail of the worker's stderr */
	double max_abs;         /* Chebyshev distance, or a NaN when not compared */
	double seconds;
};

/* Whether the file at path is an SQLite database (by its header), e.g. a store given where a text
 * file could also be. */
int db_is_store(const char *path);

/* Open (creating it and its tables when create is set) the store at path. */
int db_open(struct db *d, const char *path, int create, struct err *e);
void db_close(struct db *d);

int db_begin(struct db *d, struct err *e);
int db_commit(struct db *d, struct err *e);

/* Record (or update) an instance: the record's JSON line, its wrap status ("ok" or "invalid"), the
 * reason it is invalid, whether its output is random, and its test directory. */
int db_put_instance(struct db *d, const struct instance *in, const char *record_json, const char *status,
		    const char *reason, int random, const char *dir, struct err *e);

/* Start a run of a frontend; its row id goes to *run_id. */
int db_start_run(struct db *d, const char *frontend, const char *frontend_version, const char *command,
		 long long *run_id, struct err *e);
/* The run is over; the frontend said which version it is (may be NULL). */
int db_finish_run(struct db *d, long long run_id, const char *frontend_version, struct err *e);

/* 1 if the pair has a result, 0 if not, -1 on error. */
int db_has_result(struct db *d, const char *frontend, const char *id, struct err *e);
/* Insert a result and commit it (unless a transaction is open). A second result for the same pair
 * replaces the first. */
int db_put_result(struct db *d, const struct db_result *r, struct err *e);

/* Prepare a statement on the store (for the report's queries); NULL with e filled on error. */
sqlite3_stmt *db_prepare(struct db *d, const char *sql, struct err *e);
/* Fill e from the store's last error, prefixed by what; returns -1. */
int db_error(struct db *d, struct err *e, const char *what);

#endif
