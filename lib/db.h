/* db.h: the results store, one SQLite file (shared/DESIGN.md, "Store"). It holds the instances a run
 * was given (with their wrap status), each test's result per frontend (with the tolerance that judged
 * it), the runs, and the unique bugs. Every result is committed as soon as it is known, so a run that
 * is killed loses nothing finished, and running the same command again resumes: a (frontend, instance)
 * pair with a result is not run again.
 *
 * This module owns the store's SQL: no other file prepares a statement. The commands ask it for
 * plain C values, through the queries below, and print them. Outcomes are those of outcome.h.
 *
 * Schema versions (the meta table's "schema"): 1, the first; 2 adds each result's atol and rtol; 3
 * each result's frontend version; 4 the reductions (ferry reduce); 5 the mutations table (the
 * metamorphic oracle's chains). A store of an older version is migrated when it is opened for
 * writing; opened read-only it is read as is, its results without a tolerance (NaN), without
 * reductions and without mutations. A store newer than this ferry is refused (EXIT_INPUT). */
#ifndef FERRY_DB_H
#define FERRY_DB_H

#include "err.h"
#include "outcome.h"
#include "record.h"

/* SQLite's handles, by their struct tags: whoever includes db.h sees no SQLite API. */
struct sqlite3;
struct sqlite3_stmt;

/* The schema this ferry writes, and the oldest it reads. */
#define DB_SCHEMA 7
#define DB_SCHEMA_OLDEST 1

struct db {
	struct sqlite3 *h;
	char *path;
	int schema;     /* the file's schema version (DB_SCHEMA once migrated) */
	/* The statements every test uses, prepared once (owned; finalized by db_close). */
	struct sqlite3_stmt *has_result, *put_result, *result_outcome;
	/* The writer's lock (db_lock): a descriptor of the store file holding flock(LOCK_EX). */
	int locked, lock_fd;
};

#define DB_INIT { NULL, NULL, 0, NULL, NULL, NULL, 0, -1 }

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
	enum outcome outcome;
	const char *stage;      /* load, compile, execute, or NULL */
	const char *exc_type;   /* exception type name, "SIGSEGV", or NULL */
	const char *message;    /* one line */
	const char *frame;      /* "file:function" where the failure arose, or NULL */
	const char *detail;     /* traceback, comparison detail, or the tail of the worker's stderr */
	double max_abs;         /* Chebyshev distance, or a NaN when not compared */
	double seconds;
	double atol, rtol;      /* the tolerance that judged it (NaN: none) */
	const char *frontend_version; /* the release that gave it, as its worker said, or NULL */
	/* Schema 6: where the test's time went, when the worker answered (timed): seconds in the
	 * frontend's load, compile and execute stages, as the worker measured them, and ferry's share
	 * of the rest (queueing, the protocol, reading inputs and references, comparing, judging).
	 * Untimed (0, as a zeroed struct says): NULL in the store. */
	int timed;
	double load_seconds, compile_seconds, execute_seconds, ferry_seconds;
	/* Schema 7: the size of the batch (ferry run --batch) whose one model gave this pass; 0 (NULL in
	 * the store): the test ran alone, as every failure did. */
	int batch;
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
 * lock is held, so that a second writer is refused (EXIT_ENV) with a message naming the first
 * (lib/lock.h, which the writers of wrap directories and variants share). */
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

/* 1 if the pair has a result other than error (ferry's own failure, which a run retries), 0 if not,
 * -1 on error. */
int db_has_result(struct db *d, const char *frontend, const char *id, struct err *e);
/* 1 with *outcome (an enum outcome) if the pair has a result, whatever it is, 0 if not, -1 on error:
 * what --rerun chooses by. */
int db_result_outcome(struct db *d, const char *frontend, const char *id, int *outcome, struct err *e);
/* Insert a result and commit it (unless a transaction is open). A second result for the same pair
 * replaces the first. */
int db_put_result(struct db *d, const struct db_result *r, struct err *e);

/* --- queries ------------------------------------------------------------------------------------
 * Each calls fn once per row; the row and its strings are borrowed for the call only. fn returns 0
 * to go on, or -1 (e filled) to stop: the query then returns -1. A frontend argument of NULL means
 * every frontend. */

/* A result with its instance. frontend, id and outcome are never NULL; the instance's op, library
 * and record are NULL only for a result whose instance is missing; the others may be NULL. */
struct db_row {
	const char *frontend, *id, *outcome;
	const char *op, *library, *record, *dir;
	const char *stage, *exc_type, *message, *frame, *detail;
	double max_abs, seconds;   /* NaN when not recorded */
	double atol, rtol;         /* NaN: stored before results kept their tolerance */
	const char *frontend_version; /* the release that gave it; before schema 3, its run's (or NULL) */
};

typedef int (*db_row_fn)(void *ctx, const struct db_row *row, struct err *e);

enum db_order {
	DB_BY_ID,        /* frontend, id */
	DB_BY_OP,        /* frontend, operator, id */
	DB_BY_OUTCOME,   /* frontend, outcome, operator, id */
};

/* The failing results (outcome.h), in order. */
int db_failures(struct db *d, const char *frontend, enum db_order order, db_row_fn fn, void *ctx, struct err *e);
/* The failing results that may be the frontend's bugs (outcome_is_bug: not ferry's errors), in order:
 * what unique bugs and baselines are made of. */
int db_bug_failures(struct db *d, const char *frontend, enum db_order order, db_row_fn fn, void *ctx,
		    struct err *e);
/* A frontend whose release could not take its format at all: why (NULL: forget it), and the release.
 * Kept until a later run of the frontend. */
int db_set_unavailable(struct db *d, const char *frontend, const char *version, const char *why, struct err *e);
/* Each frontend recorded unavailable (only: NULL for all), with its release (may be NULL) and why. */
int db_unavailable(struct db *d, const char *only,
		   int (*fn)(void *ctx, const char *frontend, const char *version, const char *why, struct err *e),
		   void *ctx, struct err *e);

/* The user's adapter of a frontend (a file adapter_NAME.py of FERRY_ADAPTERS) that the store was run
 * with, as oracle/locations.h records it: the hash of its source, never where it is (a store of an
 * older ferry may hold a path there: data, shown and never loaded). */
int db_set_adapter(struct db *d, const char *frontend, const char *record, struct err *e);
/* Each recorded adapter, by frontend name. */
int db_adapters(struct db *d, int (*fn)(void *ctx, const char *frontend, const char *record, struct err *e),
		void *ctx, struct err *e);

/* What a frontend supports (oracle/probe.h): the outcome of one probe, the simplest test of an
 * (operator, dtype) group, run through a release of the frontend. frontend is the store's name for
 * it; version "" (or NULL, stored as "") when its worker said none. */
struct db_support {
	const char *frontend, *version, *op, *dtype, *probe_id, *outcome, *stage, *message;
};

/* Record a probe's outcome (replacing an earlier one of the same group and release). */
int db_put_support(struct db *d, const struct db_support *s, struct err *e);
/* The probes of one release of a frontend (version NULL: ""), by operator and dtype; op and dtype
 * (each may be NULL: any) narrow them to a group. fn may be NULL. Returns the number of rows, or -1.
 * A store made before probes, opened read-only, has none. */
int db_support_rows(struct db *d, const char *frontend, const char *version, const char *op, const char *dtype,
		    int (*fn)(void *ctx, const struct db_support *s, struct err *e), void *ctx, struct err *e);
/* The probes of a frontend, any release, that passed: what it was seen to support. Returns the number
 * of rows, or -1. */
int db_support_passed(struct db *d, const char *frontend,
		      int (*fn)(void *ctx, const struct db_support *s, struct err *e), void *ctx, struct err *e);

/* The canary of a release of a frontend under an interpreter (oracle/canary.h): whether trivial tests
 * with known answers came out right. frontend is the store's name for it; version "" (or NULL) when
 * its worker said none; python the interpreter of NAME@PYTHON, "" (or NULL) for ferry's own; ok 1
 * (right), 0 (wrong: the environment is broken), -1 (inconclusive: NULL in the store); detail says
 * what the canary gave; seconds what it cost (NaN: unknown). */
struct db_environment {
	const char *frontend, *version, *python;
	long long ok;
	const char *detail;
	double seconds;
};

/* Record a canary's verdict (replacing an earlier one of the same release and interpreter, and
 * making it the newest: a run that takes a verdict from the store records it again). */
int db_put_environment(struct db *d, const struct db_environment *v, struct err *e);
/* The canaries of a frontend, newest first; version and python (NULL: any) narrow them to a release
 * and an interpreter. fn may be NULL; a nonzero return of it stops the walk. Returns the number of
 * rows read, or -1. A store made before the canary, opened read-only, has none. */
int db_environment(struct db *d, const char *frontend, const char *version, const char *python,
		   int (*fn)(void *ctx, const struct db_environment *v, struct err *e), void *ctx, struct err *e);

/* The results with one outcome (by name; NULL: every result), by frontend and id. */
int db_results_with(struct db *d, const char *frontend, const char *outcome, db_row_fn fn, void *ctx, struct err *e);
/* The result of one test: 1 (fn called), 0 when it has none, -1 on error. */
int db_result(struct db *d, const char *frontend, const char *id, db_row_fn fn, void *ctx, struct err *e);

struct db_summary {
	long long instances, valid, invalid, random, ops;
	long long results, tested;   /* results, and the instances that have one */
};
int db_summary(struct db *d, struct db_summary *s, struct err *e);

/* The frontends with results, by name (only: NULL, or just that one). */
int db_frontends(struct db *d, const char *only, int (*fn)(void *ctx, const char *frontend, struct err *e),
		 void *ctx, struct err *e);
/* The version the frontend's latest run reported, or NULL (*version is the caller's to free). */
int db_frontend_version(struct db *d, const char *frontend, char **version, struct err *e);
/* The frontend's results per outcome, in the order of enum outcome (names it does not know last). */
int db_outcome_counts(struct db *d, const char *frontend,
		      int (*fn)(void *ctx, const char *outcome, long long n, struct err *e), void *ctx, struct err *e);

/* An operator's results on a frontend, for the operators with failures. */
struct db_op_failures {
	const char *op;
	long long tests, mismatch, crash, timeout_oom, failed;
};
/* At most limit operators, the most failures first. */
int db_failing_ops(struct db *d, const char *frontend, long long limit,
		   int (*fn)(void *ctx, const struct db_op_failures *f, struct err *e), void *ctx, struct err *e);

/* A unique bug (oracle/dedup.h). */
struct db_bug {
	const char *bug_id, *frontend, *outcome, *stage, *signature, *representative, *ops, *message;
	long long members;
	/* db_bugs_replace only: the member tests' ids. */
	char *const *member_ids;
	size_t nmember_ids;
};

/* Replace the bugs of frontend (NULL: all) with bugs[0..n), in one transaction. */
int db_bugs_replace(struct db *d, const char *frontend, const struct db_bug *bugs, size_t n, struct err *e);
/* The bugs, by frontend, the most members first. */
int db_bugs(struct db *d, const char *frontend, int (*fn)(void *ctx, const struct db_bug *b, struct err *e),
	    void *ctx, struct err *e);
/* The bugs whose id starts with prefix, each with its representative's result. */
int db_bugs_by_prefix(struct db *d, const char *prefix,
		      int (*fn)(void *ctx, const struct db_bug *b, const struct db_row *rep, struct err *e),
		      void *ctx, struct err *e);
/* The member tests of a bug (frontend and bug_id NULL: of every bug), by operator, at most limit
 * (-1: all). */
int db_bug_members(struct db *d, const char *frontend, const char *bug_id, long long limit,
		   int (*fn)(void *ctx, const char *frontend, const char *bug_id, const char *id, const char *op,
			     struct err *e),
		   void *ctx, struct err *e);
/* The member tests of every bug of frontend (NULL: every frontend's), each with its record (NULL
 * where the store lacks its instance), by frontend and bug: what tells a harvested test from one
 * ferry made (a variant, a generated graph). */
int db_bug_member_records(struct db *d, const char *frontend,
			  int (*fn)(void *ctx, const char *frontend, const char *bug_id, const char *id,
				    const char *record, struct err *e),
			  void *ctx, struct err *e);

/* --- neighbours (ferry go's trigger stage, pipeline/triggers.h) ---------------------------------
 * A neighbour of a test is a test one change away from it (vary's one-change rules: another dtype,
 * rank or shape, a parameter at its default or at the corpus's common value), run on the frontends
 * where the test is a bug's simplest member, to tell which change makes the failure go away. Kept
 * by the test it is a change of, whatever frontend ran it; its results are ordinary results. */
struct db_neighbour {
	const char *parent, *id;
	const char *change;    /* vary's label: "dtype:int32", "param:-ceil_mode", "rank:-1", ... */
	const char *outcome;   /* its result on the frontend asked about, or NULL: none there */
	const char *bug_id;    /* the frontend's bug it is a member of, or NULL */
	const char *record;    /* its instance record, or NULL when the store has none */
};

/* Record that id is parent's neighbour by change (again: replaced). */
int db_put_neighbour(struct db *d, const char *parent, const char *id, const char *change, struct err *e);
/* The neighbours of parent (NULL: any), or the rows naming id as a neighbour (NULL: any), with their
 * result on frontend, by parent and change. fn may be NULL. The number of rows, or -1; a store made
 * before neighbours, opened read-only, has none. */
int db_neighbours(struct db *d, const char *frontend, const char *parent, const char *id,
		  int (*fn)(void *ctx, const struct db_neighbour *n, struct err *e), void *ctx, struct err *e);

/* --- reductions (ferry reduce) ------------------------------------------------------------------
 * The smallest subgraph of a failing multi-node test that still fails the same way, per result. */
struct db_reduction {
	const char *frontend, *id;
	const char *status;       /* "reduced": dir holds a smaller subgraph that fails the same way;
				   * "not reduced": none of the candidates did (dir NULL) */
	const char *dir;          /* the subgraph's test directory, or NULL */
	long long nodes_before, nodes_after, candidates;  /* candidates: those run through the frontend */
	const char *ops;          /* the subgraph's operators in node order, comma-separated, or NULL */
	const char *frontend_version;  /* the release that ran the candidates, or NULL */
};

/* Record (or replace) the reduction of a result. */
int db_put_reduction(struct db *d, const struct db_reduction *r, struct err *e);
/* The reductions (frontend, id: NULL for any), by frontend and id; a store of before schema 4 opened
 * read-only has none. Returns the number of rows, or -1. */
int db_reductions(struct db *d, const char *frontend, const char *id,
		  int (*fn)(void *ctx, const struct db_reduction *r, struct err *e), void *ctx, struct err *e);

/* --- the metamorphic oracle --------------------------------------------------------------------
 * A store holds the results of one oracle: the reference (the source library's outputs) unless it
 * says otherwise (the meta table's "oracle"), as a test has one result per frontend. */

/* Make oracle (a name: "reference", "metamorphic") the store's, or refuse (EXIT_USAGE) a store that
 * holds another's results. A store without results takes any; only another oracle than the
 * reference is written down. */
int db_check_oracle(struct db *d, const char *oracle, struct err *e);

/* One test's mutations on a frontend (oracle/metamorphic.py) and their reduction. */
struct db_mutation {
	const char *frontend, *id;
	long long seed, k;
	const char *chain;           /* JSON: the mutation records */
	const char *stats;           /* JSON: tried, applied, dropped (with reasons), skipped targets */
	long long nodes, original_nodes; /* of m' and m; -1: not known */
	/* "none" (nothing to reduce), "pending" (an inconsistency not reduced yet), "reduced", "partial"
	 * (its time ran out: the smallest failing m' found so far), "not reproduced", "failed" */
	const char *status;
	const char *reduced;         /* JSON: the reduction's account (keep, no_junk, tests, chain), or NULL */
	long long reduced_nodes;     /* -1: not reduced */
	const char *model, *outputs; /* base64: the reduced m', an npz of both outputs; NULL when not kept */
	const char *kind, *target_op; /* the minimal mutation's (what groups the bug) */
	const char *message;         /* the reduced pair's disagreement, or why the reduction failed */
};

/* Record a run's mutations of a test (replacing what the pair had: a new run, a new chain). */
int db_put_mutation(struct db *d, const struct db_mutation *m, struct err *e);
/* Record a reduction (status, reduced, reduced_nodes, model, outputs, kind, target_op, message), and
 * name the minimal mutation (kind:target_op) in the inconsistent result's frame, which groups it. */
int db_put_mutation_reduction(struct db *d, const struct db_mutation *m, struct err *e);
/* The mutations of one test: 1 (fn called; it may be NULL), 0 when there are none, -1 on error. */
int db_mutation(struct db *d, const char *frontend, const char *id,
		int (*fn)(void *ctx, const struct db_mutation *m, struct err *e), void *ctx, struct err *e);
/* Every test's mutations (frontend NULL: of every frontend), by frontend and id. */
int db_mutations(struct db *d, const char *frontend,
		 int (*fn)(void *ctx, const struct db_mutation *m, struct err *e), void *ctx, struct err *e);

/* Add the store at shard to this one, in one transaction: instances by id, runs renumbered, results
 * replacing this store's for the same test; *results gets how many were added. */
int db_merge(struct db *d, const char *shard, long long *results, struct err *e);

#endif
