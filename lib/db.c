/* db.c: the SQLite results store, and all of ferry's SQL. */
#include "db.h"
#include "buf.h"
#include "fsutil.h"
#include "lock.h"
#include "xalloc.h"

#include <sqlite3.h>

#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#define FERRY_STR_(x) #x
#define FERRY_STR(x) FERRY_STR_(x)

static const char schema[] =
	"CREATE TABLE IF NOT EXISTS meta(key TEXT PRIMARY KEY, value TEXT NOT NULL);"
	"CREATE TABLE IF NOT EXISTS instances("
	"  id TEXT PRIMARY KEY, library TEXT NOT NULL, op TEXT NOT NULL, record TEXT NOT NULL,"
	"  status TEXT NOT NULL DEFAULT 'ok', reason TEXT, random INTEGER NOT NULL DEFAULT 0, dir TEXT);"
	"CREATE TABLE IF NOT EXISTS runs("
	"  run_id INTEGER PRIMARY KEY, frontend TEXT NOT NULL, frontend_version TEXT, command TEXT,"
	"  started REAL NOT NULL, finished REAL);"
	"CREATE TABLE IF NOT EXISTS results("
	"  frontend TEXT NOT NULL, id TEXT NOT NULL, run_id INTEGER, outcome TEXT NOT NULL, stage TEXT,"
	"  exc_type TEXT, message TEXT, frame TEXT, detail TEXT, max_abs REAL, seconds REAL,"
	"  atol REAL, rtol REAL, frontend_version TEXT,"
	"  load_seconds REAL, compile_seconds REAL, execute_seconds REAL, ferry_seconds REAL,"
	"  PRIMARY KEY(frontend, id));"
	"CREATE INDEX IF NOT EXISTS results_outcome ON results(frontend, outcome);"
	"CREATE TABLE IF NOT EXISTS bugs("
	"  bug_id TEXT NOT NULL, frontend TEXT NOT NULL, outcome TEXT NOT NULL, stage TEXT, signature TEXT NOT NULL,"
	"  representative TEXT NOT NULL, members INTEGER NOT NULL, ops TEXT, message TEXT,"
	"  PRIMARY KEY(frontend, bug_id));"
	"CREATE TABLE IF NOT EXISTS bug_members("
	"  bug_id TEXT NOT NULL, frontend TEXT NOT NULL, id TEXT NOT NULL, PRIMARY KEY(frontend, id));"
	/* Added without a schema version: a store opened for writing gains it; one opened read-only
	 * without it reads as having no probes (db_support_rows). */
	"CREATE TABLE IF NOT EXISTS support("
	"  frontend TEXT NOT NULL, version TEXT NOT NULL, op TEXT NOT NULL, dtype TEXT NOT NULL,"
	"  probe_id TEXT NOT NULL, outcome TEXT NOT NULL, stage TEXT, message TEXT,"
	"  PRIMARY KEY(frontend, version, op, dtype));"
	/* Schema 4: ferry reduce's subgraphs, one per failing result it reduced. */
	"CREATE TABLE IF NOT EXISTS reductions("
	"  frontend TEXT NOT NULL, id TEXT NOT NULL, status TEXT NOT NULL, dir TEXT, nodes_before INTEGER NOT NULL,"
	"  nodes_after INTEGER NOT NULL, candidates INTEGER NOT NULL, ops TEXT, frontend_version TEXT,"
	"  PRIMARY KEY(frontend, id));"
	/* Schema 5: the metamorphic oracle's mutations of each test, and their reduction. */
	"CREATE TABLE IF NOT EXISTS mutations("
	"  frontend TEXT NOT NULL, id TEXT NOT NULL, seed INTEGER, k INTEGER, chain TEXT, stats TEXT,"
	"  nodes INTEGER, original_nodes INTEGER, status TEXT NOT NULL, reduced TEXT, reduced_nodes INTEGER,"
	"  model TEXT, outputs TEXT, kind TEXT, target_op TEXT, message TEXT,"
	"  PRIMARY KEY(frontend, id));";

int db_is_store(const char *path)
{
	char head[16] = "";
	FILE *fp = fopen(path, "rb");
	size_t n = fp ? fread(head, 1, sizeof(head), fp) : 0;

	if (fp)
		fclose(fp);
	return n == sizeof(head) && !memcmp(head, "SQLite format 3", 16);
}

static sqlite3_stmt *prepare(struct db *d, const char *sql, struct err *e);

static int db_error(struct db *d, struct err *e, const char *what)
{
	return err_set(e, EXIT_ENV, "%s '%s': %s", what, d->path ? d->path : "?",
		       d->h ? sqlite3_errmsg(d->h) : "no database");
}

static int exec(struct db *d, const char *sql, struct err *e)
{
	char *msg = NULL;

	if (sqlite3_exec(d->h, sql, NULL, NULL, &msg) != SQLITE_OK) {
		err_set(e, EXIT_ENV, "store '%s': %s", d->path, msg ? msg : sqlite3_errmsg(d->h));
		sqlite3_free(msg);
		return -1;
	}
	return 0;
}

/* Whether the file is a ferry store, before anything is written to it: *tables gets the number of
 * tables it holds, *ours whether one of them is ferry's meta table. A file that is not an SQLite
 * database at all (random bytes) fails here, as bad input. */
static int inspect(struct db *d, int *tables, int *ours, struct err *e)
{
	sqlite3_stmt *st = NULL;
	int rc;

	*tables = *ours = 0;
	rc = sqlite3_prepare_v2(d->h, "SELECT count(*), coalesce(sum(name = 'meta'), 0) FROM sqlite_master"
				" WHERE type = 'table'", -1, &st, NULL);
	if (rc == SQLITE_OK && (rc = sqlite3_step(st)) == SQLITE_ROW) {
		*tables = sqlite3_column_int(st, 0);
		*ours = sqlite3_column_int(st, 1) > 0;
		rc = SQLITE_OK;
	}
	sqlite3_finalize(st);
	if (rc == SQLITE_OK)
		return 0;
	rc = sqlite3_errcode(d->h);
	if (rc == SQLITE_NOTADB || rc == SQLITE_CORRUPT)
		return err_set(e, EXIT_INPUT, "'%s' is not a ferry results store: %s", d->path, sqlite3_errmsg(d->h));
	return db_error(d, e, "cannot read the store");
}

/* The columns schema 6 added to results: where a test's time went (NULL for older results). */
#define TIMING_COLUMNS " ALTER TABLE results ADD COLUMN load_seconds REAL;" \
	" ALTER TABLE results ADD COLUMN compile_seconds REAL; ALTER TABLE results ADD COLUMN execute_seconds REAL;" \
	" ALTER TABLE results ADD COLUMN ferry_seconds REAL;"

/* Schema 1 results had no tolerance, schema 2 results no frontend version (the run's, where the run
 * recorded one, stands in for it), schema 3 stores no reductions, schema 4 no mutations, schema 5
 * no timing columns (read as absent: nothing that reads a store asks for them). Opened
 * for writing, the store gains the columns (and the tables, which the schema's text made); opened
 * read-only, a temporary view of the same name stands in front of the results table (SQLite looks
 * in temp before main), so that every query reads one shape of results, and the reductions and
 * mutations are read as none (has_table). */
/* Whether the results table has the timing columns: a store that says an older schema may have
 * them (a ferry of schema 6 wrote it, and something set its schema back). */
static int timed_results(struct db *d)
{
	sqlite3_stmt *st = NULL;
	int has = 0;

	if (sqlite3_prepare_v2(d->h, "SELECT count(*) FROM pragma_table_info('results') WHERE name = 'ferry_seconds'",
			       -1, &st, NULL) == SQLITE_OK && sqlite3_step(st) == SQLITE_ROW)
		has = sqlite3_column_int(st, 0) > 0;
	sqlite3_finalize(st);
	return has;
}

static int migrate(struct db *d, int mode, struct err *e)
{
	static const char run_version[] =
		"(SELECT frontend_version FROM main.runs u WHERE u.run_id = results.run_id)";
	struct buf sql = BUF_INIT;
	const char *timing;
	int r = 0;

	if (mode == DB_READ && d->schema >= 3) {
		r = 0;
		goto out;
	}
	timing = timed_results(d) ? "" : TIMING_COLUMNS;
	if (d->schema >= 3) {
		buf_addf(&sql, "BEGIN IMMEDIATE;%s UPDATE meta SET value = '" FERRY_STR(DB_SCHEMA) "'"
			 " WHERE key = 'schema'; COMMIT", timing);
		r = exec(d, sql.data, e);
		if (r == 0)
			d->schema = DB_SCHEMA;
		else
			sqlite3_exec(d->h, "ROLLBACK", NULL, NULL, NULL);
		goto out;
	}
	if (mode == DB_READ) {
		if (d->schema < 3) {
			buf_addf(&sql, "CREATE TEMP VIEW results AS SELECT *,%s %s AS frontend_version"
				 " FROM main.results", d->schema == 1 ? " NULL AS atol, NULL AS rtol," : "",
				 run_version);
			r = exec(d, sql.data, e);
		}
		goto out;
	}
	buf_addf(&sql, "BEGIN IMMEDIATE;%s%s%s%s%s"
		 " UPDATE meta SET value = '" FERRY_STR(DB_SCHEMA) "' WHERE key = 'schema'; COMMIT",
		 d->schema == 1 ? " ALTER TABLE results ADD COLUMN atol REAL; ALTER TABLE results ADD COLUMN rtol REAL;"
				: "",
		 d->schema < 3 ? " ALTER TABLE results ADD COLUMN frontend_version TEXT; UPDATE results SET"
				 " frontend_version = " : "",
		 d->schema < 3 ? run_version : "", d->schema < 3 ? ";" : "", timing);
	if ((r = exec(d, sql.data, e)) < 0) {
		sqlite3_exec(d->h, "ROLLBACK", NULL, NULL, NULL);
		goto out;
	}
	d->schema = DB_SCHEMA;
out:
	buf_release(&sql);
	return r;
}

/* The file's schema version: this ferry's, or an older one it migrates, or refused. */
static int check_schema(struct db *d, int mode, struct err *e)
{
	sqlite3_stmt *st = prepare(d, "SELECT value FROM meta WHERE key = 'schema'", e);
	char *v = NULL, *end;
	long n;
	int r = -1;

	if (!st)
		return -1;
	if (sqlite3_step(st) == SQLITE_ROW && sqlite3_column_text(st, 0))
		v = xstrdup((const char *)sqlite3_column_text(st, 0));
	sqlite3_finalize(st);
	if (!v) {
		if (mode == DB_READ) {
			err_set(e, EXIT_INPUT, "'%s' is not a ferry results store (it has no schema version)", d->path);
			goto out;
		}
		/* A new store: its tables were just made in this ferry's schema. */
		d->schema = DB_SCHEMA;
		r = exec(d, "INSERT INTO meta(key, value) VALUES('schema', '" FERRY_STR(DB_SCHEMA) "')", e);
		goto out;
	}
	n = strtol(v, &end, 10);
	if (*end || end == v || n < DB_SCHEMA_OLDEST) {
		err_set(e, EXIT_INPUT, "the store '%s' has schema %s; this ferry reads schema %d to %d", d->path, v,
			DB_SCHEMA_OLDEST, DB_SCHEMA);
		goto out;
	}
	if (n > DB_SCHEMA) {
		err_set(e, EXIT_INPUT, "the store '%s' has schema %s, newer than this ferry reads (%d to %d): it was "
			"made by a newer ferry", d->path, v, DB_SCHEMA_OLDEST, DB_SCHEMA);
		goto out;
	}
	d->schema = (int)n;
	r = d->schema < DB_SCHEMA ? migrate(d, mode, e) : 0;
out:
	free(v);
	return r;
}

int db_open(struct db *d, const char *path, int mode, struct err *e)
{
	int flags = mode == DB_READ ? SQLITE_OPEN_READONLY
		  : SQLITE_OPEN_READWRITE | (mode == DB_CREATE ? SQLITE_OPEN_CREATE : 0);
	int tables, ours, r = -1;

	d->path = xstrdup(path);
	d->schema = 0;
	d->locked = 0;
	d->lock_fd = -1;
	/* SQLite would open a device or a FIFO, and later replace it through its journal. */
	if (fs_regular_or_absent(path, "a results store", e) < 0)
		goto out;
	if (mode != DB_CREATE && !fs_exists(path)) {
		err_set(e, EXIT_INPUT, "cannot open the store '%s': No such file or directory", path);
		goto out;
	}
	if (sqlite3_open_v2(path, &d->h, flags, NULL) != SQLITE_OK) {
		if (mode != DB_CREATE)
			err_set(e, EXIT_INPUT, "cannot open the store '%s': %s", path, sqlite3_errmsg(d->h));
		else
			db_error(d, e, "cannot create the store");
		goto out;
	}
	sqlite3_busy_timeout(d->h, 10000);
	if (inspect(d, &tables, &ours, e) < 0)
		goto out;
	/* An empty file is an empty database: a store only when one is being made. Another program's
	 * database never is one: ferry's tables are not to be added to it. */
	if (!ours && (tables || mode != DB_CREATE)) {
		err_set(e, EXIT_INPUT, "'%s' is not a ferry results store (%s)", path,
			tables ? "an SQLite database without ferry's tables" : "it is empty");
		goto out;
	}
	if (mode != DB_READ) {
		/* WAL with synchronous=NORMAL survives a killed process (the case that matters: a crashed or
		 * interrupted run), at a fraction of the cost of a full sync per result. */
		if (exec(d, "PRAGMA journal_mode=WAL; PRAGMA synchronous=NORMAL; PRAGMA foreign_keys=ON;", e) < 0)
			goto out;
		if (exec(d, schema, e) < 0)
			goto out;
	}
	if (check_schema(d, mode, e) < 0)
		goto out;
	r = 0;
out:
	if (r < 0) {
		struct err keep = *e;

		db_close(d);
		*e = keep;
	}
	return r;
}

/* The writer's note ("pid N, 'command'"), or NULL when there is none. Caller frees. */
static char *writer_note(void *ctx)
{
	struct db *d = ctx;
	sqlite3_stmt *st = NULL;
	char *who = NULL;

	if (sqlite3_prepare_v2(d->h, "SELECT value FROM meta WHERE key = 'writer'", -1, &st, NULL) == SQLITE_OK &&
	    sqlite3_step(st) == SQLITE_ROW && sqlite3_column_text(st, 0))
		who = xstrdup((const char *)sqlite3_column_text(st, 0));
	sqlite3_finalize(st);
	return who;
}

int db_lock(struct db *d, const char *command, struct err *e)
{
	sqlite3_stmt *st = NULL;
	char *who = NULL;
	int fd, r = -1;

	if (d->locked)
		return 0;
	if ((fd = open(d->path, O_RDONLY | O_CLOEXEC)) < 0)
		return err_errno(e, EXIT_ENV, "cannot open the store '%s'", d->path);
	if (lock_take(fd, d->path, "store", writer_note, d, e) < 0)
		goto out;
	if (!(st = prepare(d, "INSERT OR REPLACE INTO meta(key, value) VALUES('writer', ?1)", e)))
		goto out;
	who = lock_note(command);
	sqlite3_bind_text(st, 1, who, -1, SQLITE_STATIC);
	if (sqlite3_step(st) != SQLITE_DONE) {
		db_error(d, e, "cannot write to the store");
		goto out;
	}
	d->locked = 1;
	d->lock_fd = fd;
	fd = -1;
	r = 0;
out:
	sqlite3_finalize(st);
	free(who);
	if (fd >= 0)
		close(fd);
	return r;
}

void db_close(struct db *d)
{
	sqlite3_finalize(d->has_result);
	sqlite3_finalize(d->put_result);
	sqlite3_finalize(d->result_outcome);
	d->has_result = d->put_result = d->result_outcome = NULL;
	if (d->locked && d->h)
		sqlite3_exec(d->h, "DELETE FROM meta WHERE key = 'writer'", NULL, NULL, NULL);
	if (d->h)
		sqlite3_close(d->h);
	/* After SQLite has let go, so that the next writer finds the store at rest. */
	if (d->locked)
		close(d->lock_fd);
	d->locked = 0;
	d->lock_fd = -1;
	free(d->path);
	d->h = NULL;
	d->path = NULL;
}

int db_begin(struct db *d, struct err *e)
{
	return exec(d, "BEGIN", e);
}

int db_commit(struct db *d, struct err *e)
{
	return exec(d, "COMMIT", e);
}

static sqlite3_stmt *prepare(struct db *d, const char *sql, struct err *e)
{
	sqlite3_stmt *st = NULL;

	if (sqlite3_prepare_v2(d->h, sql, -1, &st, NULL) != SQLITE_OK) {
		db_error(d, e, "cannot query the store");
		return NULL;
	}
	return st;
}

static void bind_text(sqlite3_stmt *st, int i, const char *s)
{
	if (s)
		sqlite3_bind_text(st, i, s, -1, SQLITE_STATIC);
	else
		sqlite3_bind_null(st, i);
}

/* NaN is SQL's NULL. */
static void bind_real(sqlite3_stmt *st, int i, double x)
{
	if (isnan(x))
		sqlite3_bind_null(st, i);
	else
		sqlite3_bind_double(st, i, x);
}

/* Step a statement that returns no rows, then finalize it. */
static int step_done(struct db *d, sqlite3_stmt *st, struct err *e, const char *what)
{
	int rc = sqlite3_step(st);
	int r = rc == SQLITE_DONE ? 0 : db_error(d, e, what);

	sqlite3_finalize(st);
	return r;
}

int db_put_instance(struct db *d, const struct instance *in, const char *record_json, const char *status,
		    const char *reason, int random, const char *dir, struct err *e)
{
	sqlite3_stmt *st = prepare(d,
		"INSERT INTO instances(id, library, op, record, status, reason, random, dir) VALUES(?,?,?,?,?,?,?,?)"
		" ON CONFLICT(id) DO UPDATE SET record = excluded.record, status = excluded.status,"
		" reason = excluded.reason, random = excluded.random, dir = excluded.dir"
		" WHERE record IS NOT excluded.record OR dir IS NOT excluded.dir", e);

	if (!st)
		return -1;
	bind_text(st, 1, in->id);
	bind_text(st, 2, in->library);
	bind_text(st, 3, in->op);
	bind_text(st, 4, record_json);
	bind_text(st, 5, status ? status : "ok");
	bind_text(st, 6, reason);
	sqlite3_bind_int(st, 7, random);
	bind_text(st, 8, dir);
	return step_done(d, st, e, "cannot write to the store");
}

static double wall_now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_REALTIME, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

int db_start_run(struct db *d, const char *frontend, const char *frontend_version, const char *command,
		 long long *run_id, struct err *e)
{
	sqlite3_stmt *st = prepare(d,
		"INSERT INTO runs(frontend, frontend_version, command, started) VALUES(?,?,?,?)", e);

	if (!st)
		return -1;
	bind_text(st, 1, frontend);
	bind_text(st, 2, frontend_version);
	bind_text(st, 3, command);
	sqlite3_bind_double(st, 4, wall_now());
	if (step_done(d, st, e, "cannot write to the store") < 0)
		return -1;
	*run_id = sqlite3_last_insert_rowid(d->h);
	return 0;
}

int db_finish_run(struct db *d, long long run_id, const char *frontend_version, struct err *e)
{
	sqlite3_stmt *st = prepare(d,
		"UPDATE runs SET finished = ?, frontend_version = coalesce(?, frontend_version) WHERE run_id = ?", e);

	if (!st)
		return -1;
	sqlite3_bind_double(st, 1, wall_now());
	bind_text(st, 2, frontend_version);
	sqlite3_bind_int64(st, 3, run_id);
	return step_done(d, st, e, "cannot write to the store");
}

/* A statement prepared on first use and kept; reset and unbound for the next. */
static sqlite3_stmt *cached(struct db *d, sqlite3_stmt **slot, const char *sql, struct err *e)
{
	if (!*slot)
		*slot = prepare(d, sql, e);
	else {
		sqlite3_reset(*slot);
		sqlite3_clear_bindings(*slot);
	}
	return *slot;
}

int db_has_result(struct db *d, const char *frontend, const char *id, struct err *e)
{
	/* ferry's own errors do not count: running the command again retries them. */
	sqlite3_stmt *st = cached(d, &d->has_result,
				  "SELECT 1 FROM results WHERE frontend = ?1 AND id = ?2 AND outcome <> ?3", e);
	int rc;

	if (!st)
		return -1;
	bind_text(st, 1, frontend);
	bind_text(st, 2, id);
	bind_text(st, 3, outcome_name(OUTCOME_ERROR));
	rc = sqlite3_step(st);
	sqlite3_reset(st);
	if (rc == SQLITE_ROW)
		return 1;
	if (rc == SQLITE_DONE)
		return 0;
	return db_error(d, e, "cannot query the store");
}

int db_result_outcome(struct db *d, const char *frontend, const char *id, int *outcome, struct err *e)
{
	sqlite3_stmt *st = cached(d, &d->result_outcome,
				  "SELECT outcome FROM results WHERE frontend = ?1 AND id = ?2", e);
	int rc, known;

	if (!st)
		return -1;
	bind_text(st, 1, frontend);
	bind_text(st, 2, id);
	rc = sqlite3_step(st);
	if (rc == SQLITE_ROW) {
		known = outcome_from_name((const char *)sqlite3_column_text(st, 0));
		/* An outcome this ferry does not know is no result it can judge: run it again. */
		*outcome = known >= 0 ? known : OUTCOME_ERROR;
	}
	sqlite3_reset(st);
	if (rc == SQLITE_ROW)
		return 1;
	if (rc == SQLITE_DONE)
		return 0;
	return db_error(d, e, "cannot query the store");
}

int db_put_result(struct db *d, const struct db_result *r, struct err *e)
{
	sqlite3_stmt *st = cached(d, &d->put_result,
		"INSERT OR REPLACE INTO results(frontend, id, run_id, outcome, stage, exc_type, message, frame,"
		" detail, max_abs, seconds, atol, rtol, frontend_version, load_seconds, compile_seconds,"
		" execute_seconds, ferry_seconds) VALUES(?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?)", e);
	int rc;

	if (!st)
		return -1;
	bind_text(st, 1, r->frontend);
	bind_text(st, 2, r->id);
	sqlite3_bind_int64(st, 3, r->run_id);
	bind_text(st, 4, outcome_name(r->outcome));
	bind_text(st, 5, r->stage);
	bind_text(st, 6, r->exc_type);
	bind_text(st, 7, r->message);
	bind_text(st, 8, r->frame);
	bind_text(st, 9, r->detail);
	bind_real(st, 10, r->max_abs);
	sqlite3_bind_double(st, 11, r->seconds);
	bind_real(st, 12, r->atol);
	bind_real(st, 13, r->rtol);
	bind_text(st, 14, r->frontend_version);
	bind_real(st, 15, r->timed ? r->load_seconds : NAN);
	bind_real(st, 16, r->timed ? r->compile_seconds : NAN);
	bind_real(st, 17, r->timed ? r->execute_seconds : NAN);
	bind_real(st, 18, r->timed ? r->ferry_seconds : NAN);
	rc = sqlite3_step(st);
	/* Reset at once: a statement left mid-step would hold the write transaction open. */
	sqlite3_reset(st);
	return rc == SQLITE_DONE ? 0 : db_error(d, e, "cannot write to the store");
}

/* --- queries ------------------------------------------------------------------------------------ */

static const char *text(sqlite3_stmt *st, int i)
{
	return (const char *)sqlite3_column_text(st, i);
}

static double real(sqlite3_stmt *st, int i)
{
	return sqlite3_column_type(st, i) == SQLITE_NULL ? NAN : sqlite3_column_double(st, i);
}

/* The columns of a struct db_row, from results r and instances i, in row_read's order. */
#define ROW_COLUMNS "r.frontend, r.id, r.outcome, i.op, i.library, i.record, i.dir, r.stage, r.exc_type," \
	" r.message, r.frame, r.detail, r.max_abs, r.seconds, r.atol, r.rtol, r.frontend_version"
#define ROW_NCOLUMNS 17

static void row_read(sqlite3_stmt *st, int first, struct db_row *r)
{
	r->frontend = text(st, first + 0);
	r->id = text(st, first + 1);
	r->outcome = text(st, first + 2);
	r->op = text(st, first + 3);
	r->library = text(st, first + 4);
	r->record = text(st, first + 5);
	r->dir = text(st, first + 6);
	r->stage = text(st, first + 7);
	r->exc_type = text(st, first + 8);
	r->message = text(st, first + 9);
	r->frame = text(st, first + 10);
	r->detail = text(st, first + 11);
	r->max_abs = real(st, first + 12);
	r->seconds = real(st, first + 13);
	r->atol = real(st, first + 14);
	r->rtol = real(st, first + 15);
	r->frontend_version = text(st, first + 16);
}

/* Step st to its end; -1 (e filled) when SQLite fails or the row callback stops. each is called
 * with every row. */
static int each_row(struct db *d, sqlite3_stmt *st, int (*each)(sqlite3_stmt *st, void *arg, struct err *e),
		    void *arg, struct err *e)
{
	int rc;

	while ((rc = sqlite3_step(st)) == SQLITE_ROW)
		if (each(st, arg, e) < 0)
			return -1;
	return rc == SQLITE_DONE ? 0 : db_error(d, e, "cannot query the store");
}

struct row_call {
	db_row_fn fn;
	void *ctx;
	int rows;
};

static int call_row(sqlite3_stmt *st, void *arg, struct err *e)
{
	struct row_call *c = arg;
	struct db_row row;

	row_read(st, 0, &row);
	c->rows++;
	return c->fn(c->ctx, &row, e);
}

static int has_table(struct db *d, const char *name, struct err *e);

static int failures(struct db *d, const char *frontend, enum db_order order, int bugs, db_row_fn fn, void *ctx,
		    struct err *e)
{
	static const char *const orders[] = {
		[DB_BY_ID] = "r.frontend, r.id",
		[DB_BY_OP] = "r.frontend, i.op, r.id",
		[DB_BY_OUTCOME] = "r.frontend, r.outcome, i.op, r.id",
	};
	struct row_call c = { fn, ctx, 0 };
	struct buf sql = BUF_INIT;
	sqlite3_stmt *st;
	int r = -1;

	int reduced = bugs ? has_table(d, "reductions", e) : 0;

	if (reduced < 0)
		return -1;
	/* What groups a failure into a bug is what decides it: a graph test that ferry reduce cut down
	 * to a subgraph counts as the operators of that subgraph ("graph:MaxPool,Relu"), not as one
	 * operator "graph" that every graph failure shares. */
	if (reduced) {
		struct buf cols = BUF_INIT;
		const char *at = strstr(ROW_COLUMNS, "i.op,");

		buf_add(&cols, ROW_COLUMNS, (size_t)(at - ROW_COLUMNS));
		buf_adds(&cols, "CASE WHEN x.ops IS NOT NULL THEN 'graph:' || x.ops ELSE i.op END,");
		buf_adds(&cols, at + strlen("i.op,"));
		buf_addf(&sql, "SELECT %s FROM results r LEFT JOIN instances i USING(id) LEFT JOIN reductions x"
			 " ON x.frontend = r.frontend AND x.id = r.id AND x.status = 'reduced'"
			 " WHERE (?1 IS NULL OR r.frontend = ?1) AND ", cols.data);
		buf_release(&cols);
	} else {
		buf_adds(&sql, "SELECT " ROW_COLUMNS " FROM results r LEFT JOIN instances i USING(id)"
			 " WHERE (?1 IS NULL OR r.frontend = ?1) AND ");
	}
	if (bugs)
		outcome_bug_sql("r.outcome", &sql);
	else
		outcome_failure_sql("r.outcome", &sql);
	buf_addf(&sql, " ORDER BY %s", orders[order]);
	if ((st = prepare(d, sql.data, e))) {
		bind_text(st, 1, frontend);
		r = each_row(d, st, call_row, &c, e);
	}
	sqlite3_finalize(st);
	buf_release(&sql);
	return r;
}

int db_failures(struct db *d, const char *frontend, enum db_order order, db_row_fn fn, void *ctx, struct err *e)
{
	return failures(d, frontend, order, 0, fn, ctx, e);
}

int db_bug_failures(struct db *d, const char *frontend, enum db_order order, db_row_fn fn, void *ctx,
		    struct err *e)
{
	return failures(d, frontend, order, 1, fn, ctx, e);
}

/* Facts about frontends, kept in the meta table as "PREFIX:FRONTEND" = VALUE: no schema change, and a
 * store of before them simply has none. A NULL value removes the fact. */
static int meta_put(struct db *d, const char *prefix, const char *frontend, const char *value, const char *what,
		    struct err *e)
{
	char *key = xasprintf("%s:%s", prefix, frontend);
	sqlite3_stmt *st = prepare(d, value ? "INSERT OR REPLACE INTO meta(key, value) VALUES(?1, ?2)"
				   : "DELETE FROM meta WHERE key = ?1", e);
	int r = -1;

	if (st) {
		bind_text(st, 1, key);
		if (value)
			bind_text(st, 2, value);
		r = step_done(d, st, e, what);
	}
	free(key);
	return r;
}

typedef int (*meta_fn)(void *ctx, const char *frontend, const char *value, struct err *e);

/* Each fact under prefix, by frontend; only that frontend's when only is not NULL. */
static int meta_each(struct db *d, const char *prefix, const char *only, meta_fn fn, void *ctx, const char *what,
		     struct err *e)
{
	sqlite3_stmt *st = prepare(d, "SELECT substr(key, length(?1) + 2), value FROM meta"
				   " WHERE substr(key, 1, length(?1) + 1) = ?1 || ':'"
				   " AND (?2 IS NULL OR key = ?1 || ':' || ?2) ORDER BY key", e);
	int r = 0, rc;

	if (!st)
		return -1;
	bind_text(st, 1, prefix);
	bind_text(st, 2, only);
	while (r == 0 && (rc = sqlite3_step(st)) == SQLITE_ROW) {
		const char *fe = (const char *)sqlite3_column_text(st, 0);
		const char *value = (const char *)sqlite3_column_text(st, 1);

		r = fn(ctx, fe ? fe : "", value ? value : "", e);
	}
	if (r == 0 && rc != SQLITE_DONE)
		r = db_error(d, e, what);
	sqlite3_finalize(st);
	return r;
}

/* "unavailable:FRONTEND" = "VERSION\tWHY". */
int db_set_unavailable(struct db *d, const char *frontend, const char *version, const char *why, struct err *e)
{
	char *value = why ? xasprintf("%s\t%s", version ? version : "", why) : NULL;
	int r = meta_put(d, "unavailable", frontend, value, "cannot record an unavailable frontend", e);

	free(value);
	return r;
}

struct unavailable_each {
	int (*fn)(void *ctx, const char *frontend, const char *version, const char *why, struct err *e);
	void *ctx;
};

static int unavailable_row(void *ctx, const char *frontend, const char *value, struct err *e)
{
	const struct unavailable_each *u = ctx;
	const char *tab = strchr(value, '\t');
	char *version = tab && tab > value ? xstrndup(value, (size_t)(tab - value)) : NULL;
	int r = u->fn(u->ctx, *frontend ? frontend : "?", version, tab ? tab + 1 : value, e);

	free(version);
	return r;
}

int db_unavailable(struct db *d, const char *only,
		   int (*fn)(void *ctx, const char *frontend, const char *version, const char *why, struct err *e),
		   void *ctx, struct err *e)
{
	struct unavailable_each u = { fn, ctx };

	return meta_each(d, "unavailable", only, unavailable_row, &u, "cannot read the unavailable frontends", e);
}

/* "adapter:FRONTEND" = the hash of its source (a path, in a store of an older ferry). */
int db_set_adapter(struct db *d, const char *frontend, const char *record, struct err *e)
{
	return meta_put(d, "adapter", frontend, record, "cannot record an adapter", e);
}

int db_adapters(struct db *d, int (*fn)(void *ctx, const char *frontend, const char *record, struct err *e),
		void *ctx, struct err *e)
{
	return meta_each(d, "adapter", NULL, fn, ctx, "cannot read the store's adapters", e);
}

/* --- what a frontend supports: probes per (operator, dtype) ------------------------------------- */

int db_put_support(struct db *d, const struct db_support *s, struct err *e)
{
	sqlite3_stmt *st = prepare(d, "INSERT OR REPLACE INTO support(frontend, version, op, dtype, probe_id,"
				   " outcome, stage, message) VALUES(?,?,?,?,?,?,?,?)", e);

	if (!st)
		return -1;
	bind_text(st, 1, s->frontend);
	bind_text(st, 2, s->version ? s->version : "");
	bind_text(st, 3, s->op);
	bind_text(st, 4, s->dtype);
	bind_text(st, 5, s->probe_id);
	bind_text(st, 6, s->outcome);
	bind_text(st, 7, s->stage);
	bind_text(st, 8, s->message);
	return step_done(d, st, e, "cannot write to the store");
}

/* Whether the store has a table: a store made before it (the support table, the reductions, the
 * mutations), opened read-only, has not. */
static int has_table(struct db *d, const char *name, struct err *e)
{
	sqlite3_stmt *st = prepare(d, "SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = ?1", e);
	int rc;

	if (!st)
		return -1;
	bind_text(st, 1, name);
	rc = sqlite3_step(st);
	sqlite3_finalize(st);
	if (rc == SQLITE_ROW)
		return 1;
	return rc == SQLITE_DONE ? 0 : db_error(d, e, "cannot query the store");
}

int db_support_rows(struct db *d, const char *frontend, const char *version, const char *op, const char *dtype,
		    int (*fn)(void *ctx, const struct db_support *s, struct err *e), void *ctx, struct err *e)
{
	sqlite3_stmt *st = NULL;
	int has, rc, r = 0, rows = 0;

	if ((has = has_table(d, "support", e)) <= 0)
		return has;
	if (!(st = prepare(d, "SELECT frontend, version, op, dtype, probe_id, outcome, stage, message FROM support"
			   " WHERE frontend = ?1 AND version = ?2 AND (?3 IS NULL OR op = ?3)"
			   " AND (?4 IS NULL OR dtype = ?4) ORDER BY op, dtype", e)))
		return -1;
	bind_text(st, 1, frontend);
	bind_text(st, 2, version ? version : "");
	bind_text(st, 3, op);
	bind_text(st, 4, dtype);
	while (r == 0 && (rc = sqlite3_step(st)) == SQLITE_ROW) {
		struct db_support s = { text(st, 0), text(st, 1), text(st, 2), text(st, 3), text(st, 4), text(st, 5),
					text(st, 6), text(st, 7) };

		rows++;
		if (fn)
			r = fn(ctx, &s, e);
	}
	if (r == 0 && rc != SQLITE_DONE)
		r = db_error(d, e, "cannot read the support table");
	sqlite3_finalize(st);
	return r < 0 ? -1 : rows;
}

/* --- reductions ---------------------------------------------------------------------------------- */

int db_put_reduction(struct db *d, const struct db_reduction *r, struct err *e)
{
	sqlite3_stmt *st = prepare(d, "INSERT OR REPLACE INTO reductions(frontend, id, status, dir, nodes_before,"
				   " nodes_after, candidates, ops, frontend_version) VALUES(?,?,?,?,?,?,?,?,?)", e);

	if (!st)
		return -1;
	bind_text(st, 1, r->frontend);
	bind_text(st, 2, r->id);
	bind_text(st, 3, r->status);
	bind_text(st, 4, r->dir);
	sqlite3_bind_int64(st, 5, r->nodes_before);
	sqlite3_bind_int64(st, 6, r->nodes_after);
	sqlite3_bind_int64(st, 7, r->candidates);
	bind_text(st, 8, r->ops);
	bind_text(st, 9, r->frontend_version);
	return step_done(d, st, e, "cannot write to the store");
}

int db_reductions(struct db *d, const char *frontend, const char *id,
		  int (*fn)(void *ctx, const struct db_reduction *r, struct err *e), void *ctx, struct err *e)
{
	sqlite3_stmt *st = NULL;
	int has, rc, r = 0, rows = 0;

	if ((has = has_table(d, "reductions", e)) <= 0)
		return has;
	if (!(st = prepare(d, "SELECT frontend, id, status, dir, nodes_before, nodes_after, candidates, ops,"
			   " frontend_version FROM reductions WHERE (?1 IS NULL OR frontend = ?1)"
			   " AND (?2 IS NULL OR id = ?2) ORDER BY frontend, id", e)))
		return -1;
	bind_text(st, 1, frontend);
	bind_text(st, 2, id);
	while (r == 0 && (rc = sqlite3_step(st)) == SQLITE_ROW) {
		struct db_reduction x = { text(st, 0), text(st, 1), text(st, 2), text(st, 3),
					  sqlite3_column_int64(st, 4), sqlite3_column_int64(st, 5),
					  sqlite3_column_int64(st, 6), text(st, 7), text(st, 8) };

		rows++;
		if (fn)
			r = fn(ctx, &x, e);
	}
	if (r == 0 && rc != SQLITE_DONE)
		r = db_error(d, e, "cannot read the reductions");
	sqlite3_finalize(st);
	return r < 0 ? -1 : rows;
}

int db_results_with(struct db *d, const char *frontend, const char *outcome, db_row_fn fn, void *ctx, struct err *e)
{
	struct row_call c = { fn, ctx, 0 };
	sqlite3_stmt *st = prepare(d, "SELECT " ROW_COLUMNS " FROM results r LEFT JOIN instances i USING(id)"
				   " WHERE (?1 IS NULL OR r.frontend = ?1) AND (?2 IS NULL OR r.outcome = ?2)"
				   " ORDER BY r.frontend, r.id", e);
	int r = -1;

	if (st) {
		bind_text(st, 1, frontend);
		bind_text(st, 2, outcome);
		r = each_row(d, st, call_row, &c, e);
	}
	sqlite3_finalize(st);
	return r;
}

int db_result(struct db *d, const char *frontend, const char *id, db_row_fn fn, void *ctx, struct err *e)
{
	struct row_call c = { fn, ctx, 0 };
	sqlite3_stmt *st = prepare(d, "SELECT " ROW_COLUMNS " FROM results r LEFT JOIN instances i USING(id)"
				   " WHERE r.frontend = ?1 AND r.id = ?2", e);
	int r = -1;

	if (st) {
		bind_text(st, 1, frontend);
		bind_text(st, 2, id);
		r = each_row(d, st, call_row, &c, e);
	}
	sqlite3_finalize(st);
	return r < 0 ? -1 : c.rows > 0;
}

int db_summary(struct db *d, struct db_summary *s, struct err *e)
{
	sqlite3_stmt *st = prepare(d,
		"SELECT count(*), coalesce(sum(status = 'ok'), 0), coalesce(sum(status != 'ok'), 0),"
		" coalesce(sum(random), 0), count(DISTINCT op),"
		" (SELECT count(*) FROM results), (SELECT count(DISTINCT id) FROM results) FROM instances", e);
	int r = -1;

	memset(s, 0, sizeof(*s));
	if (!st)
		return -1;
	if (sqlite3_step(st) == SQLITE_ROW) {
		s->instances = sqlite3_column_int64(st, 0);
		s->valid = sqlite3_column_int64(st, 1);
		s->invalid = sqlite3_column_int64(st, 2);
		s->random = sqlite3_column_int64(st, 3);
		s->ops = sqlite3_column_int64(st, 4);
		s->results = sqlite3_column_int64(st, 5);
		s->tested = sqlite3_column_int64(st, 6);
		r = 0;
	} else {
		db_error(d, e, "cannot query the store");
	}
	sqlite3_finalize(st);
	return r;
}

struct name_call {
	int (*fn)(void *ctx, const char *name, struct err *e);
	void *ctx;
};

static int call_name(sqlite3_stmt *st, void *arg, struct err *e)
{
	struct name_call *c = arg;

	return c->fn(c->ctx, text(st, 0), e);
}

int db_frontends(struct db *d, const char *only, int (*fn)(void *ctx, const char *frontend, struct err *e),
		 void *ctx, struct err *e)
{
	struct name_call c = { fn, ctx };
	sqlite3_stmt *st = prepare(d, "SELECT DISTINCT frontend FROM results WHERE ?1 IS NULL OR frontend = ?1"
				   " ORDER BY 1", e);
	int r = -1;

	if (st) {
		bind_text(st, 1, only);
		r = each_row(d, st, call_name, &c, e);
	}
	sqlite3_finalize(st);
	return r;
}

int db_frontend_version(struct db *d, const char *frontend, char **version, struct err *e)
{
	sqlite3_stmt *st = prepare(d,
		"SELECT frontend_version FROM runs WHERE frontend = ?1 AND frontend_version IS NOT NULL"
		" ORDER BY run_id DESC LIMIT 1", e);
	int rc;

	*version = NULL;
	if (!st)
		return -1;
	bind_text(st, 1, frontend);
	rc = sqlite3_step(st);
	if (rc == SQLITE_ROW)
		*version = xstrdup(text(st, 0));
	sqlite3_finalize(st);
	return rc == SQLITE_ROW || rc == SQLITE_DONE ? 0 : db_error(d, e, "cannot query the store");
}

struct outcome_count {
	char *name;
	long long n;
	int rank;
};

static int by_rank(const void *a, const void *b)
{
	const struct outcome_count *x = a, *y = b;

	return x->rank != y->rank ? (x->rank < y->rank ? -1 : 1) : strcmp(x->name, y->name);
}

int db_outcome_counts(struct db *d, const char *frontend,
		      int (*fn)(void *ctx, const char *outcome, long long n, struct err *e), void *ctx, struct err *e)
{
	sqlite3_stmt *st = prepare(d, "SELECT outcome, count(*) FROM results WHERE frontend = ?1 GROUP BY outcome", e);
	struct outcome_count *c = NULL;
	size_t n = 0, cap = 0;
	int rc, r = -1;

	if (!st)
		return -1;
	bind_text(st, 1, frontend);
	while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
		int o = outcome_from_name(text(st, 0));

		XGROW(c, cap, n + 1);
		c[n].name = xstrdup(text(st, 0) ? text(st, 0) : "");
		c[n].n = sqlite3_column_int64(st, 1);
		c[n].rank = o >= 0 ? o : OUTCOME_COUNT;
		n++;
	}
	if (rc != SQLITE_DONE) {
		db_error(d, e, "cannot query the store");
		goto out;
	}
	/* The outcomes' own order (outcome.h), not SQL's: the table is the one source of it. */
	if (n)
		qsort(c, n, sizeof(*c), by_rank);
	for (size_t i = 0; i < n; i++)
		if (fn(ctx, c[i].name, c[i].n, e) < 0)
			goto out;
	r = 0;
out:
	sqlite3_finalize(st);
	for (size_t i = 0; i < n; i++)
		free(c[i].name);
	free(c);
	return r;
}

int db_failing_ops(struct db *d, const char *frontend, long long limit,
		   int (*fn)(void *ctx, const struct db_op_failures *f, struct err *e), void *ctx, struct err *e)
{
	struct buf sql = BUF_INIT;
	sqlite3_stmt *st;
	int rc = SQLITE_DONE, r = -1;

	buf_adds(&sql, "SELECT i.op, count(*), sum(r.outcome = ?2), sum(r.outcome = ?3),"
		 " sum(r.outcome IN (?4, ?5)), sum(");
	outcome_failure_sql("r.outcome", &sql);
	buf_adds(&sql, ") AS failed FROM results r JOIN instances i USING(id) WHERE r.frontend = ?1"
		 " GROUP BY i.op HAVING failed > 0 ORDER BY failed DESC, i.op LIMIT ?6");
	if (!(st = prepare(d, sql.data, e)))
		goto out;
	bind_text(st, 1, frontend);
	bind_text(st, 2, outcome_name(OUTCOME_MISMATCH));
	bind_text(st, 3, outcome_name(OUTCOME_CRASH));
	bind_text(st, 4, outcome_name(OUTCOME_TIMEOUT));
	bind_text(st, 5, outcome_name(OUTCOME_OOM));
	sqlite3_bind_int64(st, 6, limit);
	while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
		struct db_op_failures f = {
			text(st, 0), sqlite3_column_int64(st, 1), sqlite3_column_int64(st, 2),
			sqlite3_column_int64(st, 3),
			sqlite3_column_int64(st, 4), sqlite3_column_int64(st, 5),
		};

		if (fn(ctx, &f, e) < 0)
			goto out;
	}
	r = rc == SQLITE_DONE ? 0 : db_error(d, e, "cannot query the store");
out:
	sqlite3_finalize(st);
	buf_release(&sql);
	return r;
}

/* --- bugs --------------------------------------------------------------------------------------- */

static int put_bugs(struct db *d, const char *frontend, const struct db_bug *bugs, size_t n, struct err *e)
{
	sqlite3_stmt *del1 = NULL, *del2 = NULL, *ins = NULL, *mem = NULL;
	int r = -1;

	if (!(del1 = prepare(d, "DELETE FROM bugs WHERE ?1 IS NULL OR frontend = ?1", e)) ||
	    !(del2 = prepare(d, "DELETE FROM bug_members WHERE ?1 IS NULL OR frontend = ?1", e)) ||
	    !(ins = prepare(d, "INSERT INTO bugs(bug_id, frontend, outcome, stage, signature, representative,"
			    " members, ops, message) VALUES(?,?,?,?,?,?,?,?,?)", e)) ||
	    !(mem = prepare(d, "INSERT OR REPLACE INTO bug_members(bug_id, frontend, id) VALUES(?,?,?)", e)))
		goto out;
	bind_text(del1, 1, frontend);
	bind_text(del2, 1, frontend);
	if (sqlite3_step(del1) != SQLITE_DONE || sqlite3_step(del2) != SQLITE_DONE) {
		db_error(d, e, "cannot write to the store");
		goto out;
	}
	for (size_t i = 0; i < n; i++) {
		const struct db_bug *b = &bugs[i];

		sqlite3_reset(ins);
		bind_text(ins, 1, b->bug_id);
		bind_text(ins, 2, b->frontend);
		bind_text(ins, 3, b->outcome);
		bind_text(ins, 4, b->stage);
		bind_text(ins, 5, b->signature);
		bind_text(ins, 6, b->representative);
		sqlite3_bind_int64(ins, 7, b->members);
		bind_text(ins, 8, b->ops);
		bind_text(ins, 9, b->message);
		if (sqlite3_step(ins) != SQLITE_DONE) {
			db_error(d, e, "cannot write to the store");
			goto out;
		}
		for (size_t m = 0; m < b->nmember_ids; m++) {
			sqlite3_reset(mem);
			bind_text(mem, 1, b->bug_id);
			bind_text(mem, 2, b->frontend);
			bind_text(mem, 3, b->member_ids[m]);
			if (sqlite3_step(mem) != SQLITE_DONE) {
				db_error(d, e, "cannot write to the store");
				goto out;
			}
		}
	}
	r = 0;
out:
	sqlite3_finalize(del1);
	sqlite3_finalize(del2);
	sqlite3_finalize(ins);
	sqlite3_finalize(mem);
	return r;
}

int db_bugs_replace(struct db *d, const char *frontend, const struct db_bug *bugs, size_t n, struct err *e)
{
	if (db_begin(d, e) < 0)
		return -1;
	if (put_bugs(d, frontend, bugs, n, e) < 0) {
		sqlite3_exec(d->h, "ROLLBACK", NULL, NULL, NULL);
		return -1;
	}
	return db_commit(d, e);
}

#define BUG_COLUMNS "b.bug_id, b.frontend, b.outcome, b.stage, b.signature, b.representative, b.ops," \
	" b.message, b.members"
#define BUG_NCOLUMNS 9

static void bug_read(sqlite3_stmt *st, struct db_bug *b)
{
	memset(b, 0, sizeof(*b));
	b->bug_id = text(st, 0);
	b->frontend = text(st, 1);
	b->outcome = text(st, 2);
	b->stage = text(st, 3);
	b->signature = text(st, 4);
	b->representative = text(st, 5);
	b->ops = text(st, 6);
	b->message = text(st, 7);
	b->members = sqlite3_column_int64(st, 8);
}

struct bug_call {
	int (*fn)(void *ctx, const struct db_bug *b, struct err *e);
	int (*fn_rep)(void *ctx, const struct db_bug *b, const struct db_row *rep, struct err *e);
	void *ctx;
};

static int call_bug(sqlite3_stmt *st, void *arg, struct err *e)
{
	struct bug_call *c = arg;
	struct db_bug b;
	struct db_row rep;

	bug_read(st, &b);
	if (c->fn)
		return c->fn(c->ctx, &b, e);
	row_read(st, BUG_NCOLUMNS, &rep);
	return c->fn_rep(c->ctx, &b, &rep, e);
}

int db_bugs(struct db *d, const char *frontend, int (*fn)(void *ctx, const struct db_bug *b, struct err *e),
	    void *ctx, struct err *e)
{
	struct bug_call c = { fn, NULL, ctx };
	sqlite3_stmt *st = prepare(d, "SELECT " BUG_COLUMNS " FROM bugs b WHERE ?1 IS NULL OR b.frontend = ?1"
				   " ORDER BY b.frontend, b.members DESC, b.bug_id", e);
	int r = -1;

	if (st) {
		bind_text(st, 1, frontend);
		r = each_row(d, st, call_bug, &c, e);
	}
	sqlite3_finalize(st);
	return r;
}

int db_bugs_by_prefix(struct db *d, const char *prefix,
		      int (*fn)(void *ctx, const struct db_bug *b, const struct db_row *rep, struct err *e),
		      void *ctx, struct err *e)
{
	struct bug_call c = { NULL, fn, ctx };
	/* A prefix, not a LIKE pattern: '%' and '_' in it are themselves. */
	sqlite3_stmt *st = prepare(d, "SELECT " BUG_COLUMNS ", " ROW_COLUMNS " FROM bugs b"
				   " JOIN results r ON r.id = b.representative AND r.frontend = b.frontend"
				   " LEFT JOIN instances i ON i.id = b.representative"
				   " WHERE substr(b.bug_id, 1, length(?1)) = lower(?1)"
				   " ORDER BY b.frontend, b.bug_id", e);
	int r = -1;

	if (st) {
		bind_text(st, 1, prefix);
		r = each_row(d, st, call_bug, &c, e);
	}
	sqlite3_finalize(st);
	return r;
}

struct member_call {
	int (*fn)(void *ctx, const char *frontend, const char *bug_id, const char *id, const char *op, struct err *e);
	void *ctx;
};

static int call_member(sqlite3_stmt *st, void *arg, struct err *e)
{
	struct member_call *c = arg;

	return c->fn(c->ctx, text(st, 0), text(st, 1), text(st, 2), text(st, 3), e);
}

int db_bug_members(struct db *d, const char *frontend, const char *bug_id, long long limit,
		   int (*fn)(void *ctx, const char *frontend, const char *bug_id, const char *id, const char *op,
			     struct err *e),
		   void *ctx, struct err *e)
{
	struct member_call c = { fn, ctx };
	sqlite3_stmt *st = prepare(d, "SELECT m.frontend, m.bug_id, m.id, i.op FROM bug_members m"
				   " LEFT JOIN instances i USING(id)"
				   " WHERE (?1 IS NULL OR m.frontend = ?1) AND (?2 IS NULL OR m.bug_id = ?2)"
				   " ORDER BY m.frontend, m.bug_id, i.op, m.id LIMIT ?3", e);
	int r = -1;

	if (st) {
		bind_text(st, 1, frontend);
		bind_text(st, 2, bug_id);
		sqlite3_bind_int64(st, 3, limit);
		r = each_row(d, st, call_member, &c, e);
	}
	sqlite3_finalize(st);
	return r;
}

/* --- merging shards ----------------------------------------------------------------------------- */

/* The schema of the attached shard: its results have a tolerance from schema 2 on. */
static int shard_schema(struct db *d, struct err *e)
{
	sqlite3_stmt *st = prepare(d, "SELECT value FROM shard.meta WHERE key = 'schema'", e);
	int v = -1;

	if (!st)
		return -1;
	if (sqlite3_step(st) == SQLITE_ROW)
		v = atoi(text(st, 0) ? text(st, 0) : "");
	sqlite3_finalize(st);
	if (v < DB_SCHEMA_OLDEST || v > DB_SCHEMA)
		return err_set(e, EXIT_INPUT, "the shard has schema %d; this ferry reads schema %d to %d", v,
			       DB_SCHEMA_OLDEST, DB_SCHEMA);
	return v;
}

/* The attached shard's oracle against the store's; *sql copies its mutations, where it has them. */
static int merge_oracle(struct db *d, const char *shard, const char **sql, struct err *e)
{
	sqlite3_stmt *st = prepare(d, "SELECT (SELECT value FROM shard.meta WHERE key = 'oracle'),"
				   " EXISTS(SELECT 1 FROM shard.results),"
				   " EXISTS(SELECT 1 FROM shard.sqlite_master"
				   " WHERE type = 'table' AND name = 'mutations')", e);
	char *oracle = NULL;
	int any = 0, r;

	if (!st)
		return -1;
	if (sqlite3_step(st) == SQLITE_ROW) {
		oracle = text(st, 0) ? xstrdup(text(st, 0)) : NULL;
		any = sqlite3_column_int(st, 1);
		if (sqlite3_column_int(st, 2))
			*sql = "INSERT OR REPLACE INTO main.mutations SELECT * FROM shard.mutations";
	}
	sqlite3_finalize(st);
	r = oracle || any ? db_check_oracle(d, oracle ? oracle : "reference", e) : 0;
	if (r < 0)
		err_prefix(e, "'%s'", shard);
	free(oracle);
	return r;
}

int db_merge(struct db *d, const char *shard, long long *results, struct err *e)
{
	static const char *const steps[] = {
		"INSERT OR IGNORE INTO instances SELECT id, library, op, record, status, reason, random, dir"
		" FROM shard.instances",
		"CREATE TEMP TABLE run_map AS SELECT run_id AS old,"
		" run_id + (SELECT coalesce(max(run_id), 0) FROM main.runs) AS new FROM shard.runs",
		"INSERT INTO runs(run_id, frontend, frontend_version, command, started, finished)"
		" SELECT m.new, r.frontend, r.frontend_version, r.command, r.started, r.finished"
		" FROM shard.runs r JOIN run_map m ON m.old = r.run_id",
		NULL, /* the results: below, by the shard's version */
		"DROP TABLE run_map",
		NULL, /* the probes, where the shard has them: below */
		NULL, /* the mutations, where the shard has them: below */
		/* the shard's user adapters (db_set_adapter), the store's own first */
		"INSERT OR IGNORE INTO main.meta(key, value) SELECT key, value FROM shard.meta"
		" WHERE key LIKE 'adapter:%'",
	};
	sqlite3_stmt *st = NULL;
	char *results_sql = NULL;
	const char *support_sql = "SELECT 1", *mutations_sql = "SELECT 1";
	int version, r = -1;

	if (!(st = prepare(d, "ATTACH DATABASE ?1 AS shard", e)))
		return -1;
	bind_text(st, 1, shard);
	if (sqlite3_step(st) != SQLITE_DONE) {
		db_error(d, e, "cannot attach a shard to the store");
		sqlite3_finalize(st);
		return -1;
	}
	sqlite3_finalize(st);
	if ((version = shard_schema(d, e)) < 0)
		goto detach;
	/* A shard of before schema 3: its results' release is their run's (as migrate says). */
	results_sql = xasprintf("INSERT OR REPLACE INTO main.results(frontend, id, run_id, outcome, stage, exc_type,"
				" message, frame, detail, max_abs, seconds, atol, rtol, frontend_version, load_seconds,"
				" compile_seconds, execute_seconds, ferry_seconds)"
				" SELECT r.frontend, r.id, m.new,"
				" r.outcome, r.stage, r.exc_type, r.message, r.frame, r.detail, r.max_abs, r.seconds,"
				" %s, %s, %s"
				" FROM shard.results r LEFT JOIN run_map m ON m.old = r.run_id",
				version >= 2 ? "r.atol, r.rtol" : "NULL, NULL",
				version >= 3 ? "r.frontend_version"
				: "(SELECT u.frontend_version FROM shard.runs u WHERE u.run_id = r.run_id)",
				version >= 6 ? "r.load_seconds, r.compile_seconds, r.execute_seconds, r.ferry_seconds"
				: "NULL, NULL, NULL, NULL");
	/* A shard's probes are the same release's answers: kept, the store's own first. A shard made
	 * before probes has no such table. */
	if (!(st = prepare(d, "SELECT count(*) FROM shard.sqlite_master"
			   " WHERE type = 'table' AND name = 'support'", e)))
		goto detach;
	if (sqlite3_step(st) == SQLITE_ROW && sqlite3_column_int(st, 0) > 0)
		support_sql = "INSERT OR IGNORE INTO main.support(frontend, version, op, dtype, probe_id, outcome,"
			      " stage, message) SELECT frontend, version, op, dtype, probe_id, outcome, stage,"
			      " message FROM shard.support";
	sqlite3_finalize(st);
	/* The shard's oracle must be the store's (db_check_oracle), its mutations come with its results. */
	if (merge_oracle(d, shard, &mutations_sql, e) < 0)
		goto detach;
	if (db_begin(d, e) < 0)
		goto detach;
	for (size_t i = 0; i < sizeof(steps) / sizeof(steps[0]); i++) {
		const char *sql = steps[i] ? steps[i] : i == 3 ? results_sql : i == 5 ? support_sql : mutations_sql;

		if (sqlite3_exec(d->h, sql, NULL, NULL, NULL) != SQLITE_OK) {
			db_error(d, e, "cannot merge into the store");
			err_prefix(e, "'%s'", shard);
			sqlite3_exec(d->h, "ROLLBACK", NULL, NULL, NULL);
			goto detach;
		}
		if (i == 3)
			*results = sqlite3_changes(d->h);
	}
	if (db_commit(d, e) < 0)
		goto detach;
	r = 0;
detach:
	free(results_sql);
	sqlite3_exec(d->h, "DETACH DATABASE shard", NULL, NULL, NULL);
	return r;
}

/* --- the metamorphic oracle ---------------------------------------------------------------------- */

int db_check_oracle(struct db *d, const char *oracle, struct err *e)
{
	sqlite3_stmt *st = prepare(d, "SELECT (SELECT value FROM meta WHERE key = 'oracle'),"
				   " EXISTS(SELECT 1 FROM results)", e);
	char *have = NULL;
	int any = 0, r = -1;

	if (!st)
		return -1;
	if (sqlite3_step(st) == SQLITE_ROW) {
		have = text(st, 0) ? xstrdup(text(st, 0)) : NULL;
		any = sqlite3_column_int(st, 1);
	}
	sqlite3_finalize(st);
	/* Results without a word of their oracle are the reference's: all there was before schema 4. */
	if (!have && any)
		have = xstrdup("reference");
	if (have && strcmp(have, oracle)) {
		err_set(e, EXIT_USAGE, "the store '%s' holds the %s oracle's results, and a test has one result per "
			"frontend: write the %s oracle's into another store", d->path, have, oracle);
		goto out;
	}
	r = 0;
	if (!have && strcmp(oracle, "reference")) {
		if (!(st = prepare(d, "INSERT OR REPLACE INTO meta(key, value) VALUES('oracle', ?1)", e)))
			r = -1;
		else {
			bind_text(st, 1, oracle);
			r = step_done(d, st, e, "cannot write to the store");
		}
	}
out:
	free(have);
	return r;
}

static void bind_count(sqlite3_stmt *st, int i, long long n)
{
	if (n < 0)
		sqlite3_bind_null(st, i);
	else
		sqlite3_bind_int64(st, i, n);
}

int db_put_mutation(struct db *d, const struct db_mutation *m, struct err *e)
{
	sqlite3_stmt *st = prepare(d, "INSERT OR REPLACE INTO mutations(frontend, id, seed, k, chain, stats, nodes,"
				   " original_nodes, status, kind, target_op, message)"
				   " VALUES(?,?,?,?,?,?,?,?,?,?,?,?)", e);

	if (!st)
		return -1;
	bind_text(st, 1, m->frontend);
	bind_text(st, 2, m->id);
	sqlite3_bind_int64(st, 3, m->seed);
	sqlite3_bind_int64(st, 4, m->k);
	bind_text(st, 5, m->chain);
	bind_text(st, 6, m->stats);
	bind_count(st, 7, m->nodes);
	bind_count(st, 8, m->original_nodes);
	bind_text(st, 9, m->status ? m->status : "none");
	bind_text(st, 10, m->kind);
	bind_text(st, 11, m->target_op);
	bind_text(st, 12, m->message);
	return step_done(d, st, e, "cannot write to the store");
}

int db_put_mutation_reduction(struct db *d, const struct db_mutation *m, struct err *e)
{
	sqlite3_stmt *st = NULL;
	char *frame = m->kind && m->target_op ? xasprintf("%s:%s", m->kind, m->target_op) : NULL;
	int r = -1;

	if (db_begin(d, e) < 0)
		goto out;
	if (!(st = prepare(d, "UPDATE mutations SET status = ?3, reduced = ?4, reduced_nodes = ?5, model = ?6,"
			   " outputs = ?7, kind = coalesce(?8, kind), target_op = coalesce(?9, target_op),"
			   " message = ?10"
			   " WHERE frontend = ?1 AND id = ?2", e)))
		goto rollback;
	bind_text(st, 1, m->frontend);
	bind_text(st, 2, m->id);
	bind_text(st, 3, m->status);
	bind_text(st, 4, m->reduced);
	bind_count(st, 5, m->reduced_nodes);
	bind_text(st, 6, m->model);
	bind_text(st, 7, m->outputs);
	bind_text(st, 8, m->kind);
	bind_text(st, 9, m->target_op);
	bind_text(st, 10, m->message);
	if (step_done(d, st, e, "cannot write to the store") < 0)
		goto rollback;
	if (frame) {
		if (!(st = prepare(d, "UPDATE results SET frame = ?3 WHERE frontend = ?1 AND id = ?2 AND outcome = ?4",
				   e)))
			goto rollback;
		bind_text(st, 1, m->frontend);
		bind_text(st, 2, m->id);
		bind_text(st, 3, frame);
		bind_text(st, 4, outcome_name(OUTCOME_INCONSISTENT));
		if (step_done(d, st, e, "cannot write to the store") < 0)
			goto rollback;
	}
	r = db_commit(d, e);
	goto out;
rollback:
	sqlite3_exec(d->h, "ROLLBACK", NULL, NULL, NULL);
out:
	free(frame);
	return r;
}

struct mutation_call {
	int (*fn)(void *ctx, const struct db_mutation *m, struct err *e);
	void *ctx;
	int rows;
};

static long long count_or_none(sqlite3_stmt *st, int i)
{
	return sqlite3_column_type(st, i) == SQLITE_NULL ? -1 : sqlite3_column_int64(st, i);
}

static int call_mutation(sqlite3_stmt *st, void *arg, struct err *e)
{
	struct mutation_call *c = arg;
	struct db_mutation m = {
		text(st, 0), text(st, 1), sqlite3_column_int64(st, 2), sqlite3_column_int64(st, 3), text(st, 4),
		text(st, 5), count_or_none(st, 6), count_or_none(st, 7), text(st, 8), text(st, 9),
		count_or_none(st, 10), text(st, 11), text(st, 12), text(st, 13), text(st, 14), text(st, 15),
	};

	c->rows++;
	return c->fn ? c->fn(c->ctx, &m, e) : 0;
}

static int mutations(struct db *d, const char *frontend, const char *id,
		     int (*fn)(void *ctx, const struct db_mutation *m, struct err *e), void *ctx, struct err *e)
{
	struct mutation_call c = { fn, ctx, 0 };
	sqlite3_stmt *st;
	int has, r;

	if ((has = has_table(d, "mutations", e)) <= 0)
		return has;
	if (!(st = prepare(d, "SELECT frontend, id, seed, k, chain, stats, nodes, original_nodes, status, reduced,"
			   " reduced_nodes, model, outputs, kind, target_op, message FROM mutations"
			   " WHERE (?1 IS NULL OR frontend = ?1) AND (?2 IS NULL OR id = ?2)"
			   " ORDER BY frontend, id", e)))
		return -1;
	bind_text(st, 1, frontend);
	bind_text(st, 2, id);
	r = each_row(d, st, call_mutation, &c, e);
	sqlite3_finalize(st);
	return r < 0 ? -1 : c.rows;
}

int db_mutation(struct db *d, const char *frontend, const char *id,
		int (*fn)(void *ctx, const struct db_mutation *m, struct err *e), void *ctx, struct err *e)
{
	int n = mutations(d, frontend, id, fn, ctx, e);

	return n < 0 ? -1 : n > 0;
}

int db_mutations(struct db *d, const char *frontend,
		 int (*fn)(void *ctx, const struct db_mutation *m, struct err *e), void *ctx, struct err *e)
{
	return mutations(d, frontend, NULL, fn, ctx, e) < 0 ? -1 : 0;
}
