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
	/* The writer's lock (db_lock): a descriptor of the store file holding flock(LOCK_EX). */
	int locked, lock_fd;
};

#define DB_INIT { NULL, NULL, NULL, NULL, 0, -1 }

/* How a store is opened. Each refuses a path that is not a regular file, and a file that is not a
 * ferry store (random bytes, another program's SQLite database) with EXIT_INPUT. */
enum db_mode {
	DB_WRITE = 0,   /* an existing store, to add to (the bugs table) */
	DB_CREATE = 1,  /* created (with its tables) when missing or empty */
	DB_READ = 2,    /* an existing store, read-only: nothing is created or changed */
};

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

/* Open the store at path (mode: enum db_mode). A missing store is bad input unless created. */
int db_open(struct db *d, const char *path, int mode, struct err *e);
/* Also releases the writer's lock. */
void db_close(struct db *d);

/* Make this process the store's one writer (of results: run, check, merge): two runs on one store
 * would run every test twice, the last to finish winning. The lock is an flock() on the store file
 * (SQLite's own locks are fcntl() locks, which it does not disturb); it ends with the process, so
 * a killed run leaves no stale lock. command (e.g. the command line) is kept in the store while the
 * lock is held, so that a second writer is refused (EXIT_ENV) with a message naming the first. */
int db_lock(struct db *d, const char *command, struct err *e);

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
