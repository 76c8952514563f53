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
#include <stddef.h>
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
	"  load_seconds REAL, compile_seconds REAL, execute_seconds REAL, ferry_seconds REAL, batch INTEGER,"
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
	/* Added without a schema version, as the support table: ferry go's trigger stage's one-change
	 * neighbours of each bug's simplest test (pipeline/triggers.h), by the test they are a change of. */
	"CREATE TABLE IF NOT EXISTS neighbours("
	"  parent TEXT NOT NULL, id TEXT NOT NULL, change TEXT NOT NULL, PRIMARY KEY(parent, id));"
	/* Added without a schema version, as support: the canary of each release of a frontend under
	 * each interpreter (oracle/canary.h); ok 1 passed, 0 failed, NULL inconclusive. */
	"CREATE TABLE IF NOT EXISTS environment("
	"  frontend TEXT NOT NULL, version TEXT NOT NULL, python TEXT NOT NULL, ok INTEGER, detail TEXT,"
	"  seconds REAL, PRIMARY KEY(frontend, version, python));"
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

/* --- statements ----------------------------------------------------------------------------------
 * Every statement goes through one small API, so that each query below reads as its SQL and what a
 * row becomes: its values are a typed list bound to ?1, ?2, ... in order (ARGS), and a row fills a
 * struct through a column map (COLS) or is read by hand from q.st.
 *
 *	query_start(&q, d, "SELECT ... WHERE frontend = ?1", ARGS(TEXT(frontend)), e);
 *	while (r == 0 && query_row(&q, COLS(map), &x))
 *		r = fn(ctx, &x, e);
 *	return query_end(&q, r, "cannot query the store", e);
 */

/* What a value bound, or a column read into a field, is. */
enum val {
	DBV_TEXT,  /* const char *: NULL is SQL's NULL */
	DBV_INT,   /* long long (a NULL column reads 0) */
	DBV_REAL,  /* double: a NaN is SQL's NULL, and a NULL column reads NaN */
	DBV_COUNT, /* long long: a negative count is SQL's NULL, and a NULL column reads -1 */
};

struct arg {
	enum val kind;
	const char *s;
	long long n;
	double x;
};

#define TEXT(v) { DBV_TEXT, .s = (v) }
#define INT(v) { DBV_INT, .n = (v) }
#define REAL(v) { DBV_REAL, .x = (v) }
#define COUNT(v) { DBV_COUNT, .n = (v) }
/* A statement's values, as the (args, nargs) of query_start and run (sizeof evaluates nothing). */
#define ARGS(...) (const struct arg[]){ __VA_ARGS__ }, sizeof((const struct arg[]){ __VA_ARGS__ }) / sizeof(struct arg)
#define NO_ARGS NULL, 0

/* The field of struct s that a column is read into, in a map whose k-th entry is the row's k-th
 * column. The kind follows the field's type, so that a map cannot read text into a number. */
struct col {
	enum val kind;
	size_t at;
};

#define COL(s, f) { _Generic(((struct s *)0)->f, const char *: DBV_TEXT, long long: DBV_INT, double: DBV_REAL), \
		    offsetof(struct s, f) }
#define COUNT_COL(s, f) { DBV_COUNT, offsetof(struct s, f) }
#define COLS(map) map, sizeof(map) / sizeof(map[0])

/* A statement being stepped: query_start prepares it and binds its values, query_row steps it to
 * each row, query_end finalizes it (or resets it, when it is kept for the next call). */
struct query {
	struct db *d;
	sqlite3_stmt *st;    /* NULL when it could not be prepared (e filled) */
	sqlite3_stmt **kept; /* where it is kept between calls, or NULL */
	int rc;              /* the last step's */
	int rows;            /* the rows read */
};

static const char *text(sqlite3_stmt *st, int i)
{
	return (const char *)sqlite3_column_text(st, i);
}

static double real(sqlite3_stmt *st, int i)
{
	return sqlite3_column_type(st, i) == SQLITE_NULL ? NAN : sqlite3_column_double(st, i);
}

static long long count_or_none(sqlite3_stmt *st, int i)
{
	return sqlite3_column_type(st, i) == SQLITE_NULL ? -1 : sqlite3_column_int64(st, i);
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

static void bind(sqlite3_stmt *st, const struct arg *args, size_t nargs)
{
	for (size_t i = 0; i < nargs; i++) {
		const struct arg *a = &args[i];
		int k = (int)i + 1;

		if (a->kind == DBV_TEXT ? !a->s : a->kind == DBV_REAL ? isnan(a->x) : a->kind == DBV_COUNT && a->n < 0)
			sqlite3_bind_null(st, k);
		else if (a->kind == DBV_TEXT)
			sqlite3_bind_text(st, k, a->s, -1, SQLITE_STATIC);
		else if (a->kind == DBV_REAL)
			sqlite3_bind_double(st, k, a->x);
		else
			sqlite3_bind_int64(st, k, a->n);
	}
}

/* Columns first, first + 1, ... of the row into the fields cols names. */
static void read_cols(sqlite3_stmt *st, int first, const struct col *cols, size_t ncols, void *out)
{
	for (size_t i = 0; i < ncols; i++) {
		char *field = (char *)out + cols[i].at;
		int k = first + (int)i;

		switch (cols[i].kind) {
		case DBV_TEXT:
			*(const char **)field = text(st, k);
			break;
		case DBV_INT:
			*(long long *)field = sqlite3_column_int64(st, k);
			break;
		case DBV_REAL:
			*(double *)field = real(st, k);
			break;
		case DBV_COUNT:
			*(long long *)field = count_or_none(st, k);
			break;
		}
	}
}

/* As query_start, with the statement prepared on its first use and kept in *slot for the next (the
 * statements every test uses). */
static void query_kept(struct query *q, struct db *d, sqlite3_stmt **slot, const char *sql, const struct arg *args,
		       size_t nargs, struct err *e)
{
	q->d = d;
	q->kept = slot;
	q->rc = SQLITE_DONE;
	q->rows = 0;
	if (slot && *slot) {
		q->st = *slot;
		sqlite3_reset(q->st);
		sqlite3_clear_bindings(q->st);
	} else {
		q->st = prepare(d, sql, e);
		if (slot)
			*slot = q->st;
	}
	if (q->st)
		bind(q->st, args, nargs);
}

static void query_start(struct query *q, struct db *d, const char *sql, const struct arg *args, size_t nargs,
			struct err *e)
{
	query_kept(q, d, NULL, sql, args, nargs, e);
}

/* Step to the next row and read it into *out through cols (none: the caller reads q->st): 1, or 0
 * at the end, when SQLite fails or when the statement could not be prepared (query_end says which). */
static int query_row(struct query *q, const struct col *cols, size_t ncols, void *out)
{
	if (!q->st || (q->rc = sqlite3_step(q->st)) != SQLITE_ROW)
		return 0;
	q->rows++;
	read_cols(q->st, 0, cols, ncols, out);
	return 1;
}

/* Done with the statement; r is what the last row's callback returned (-1: it stopped the query, e
 * filled). 0, or -1 when the statement could not be prepared, r is -1 or SQLite failed (what says
 * what was being done; NULL: a failed step is not an error, the caller makes do with what it read). */
static int query_end(struct query *q, int r, const char *what, struct err *e)
{
	int failed = !q->st || r < 0;

	if (!failed && what && q->rc != SQLITE_DONE && q->rc != SQLITE_ROW)
		failed = db_error(q->d, e, what) < 0;
	/* Reset at once, a kept one too: a statement left mid-step would hold its transaction open. */
	if (q->kept && q->st)
		sqlite3_reset(q->st);
	else if (!q->kept)
		sqlite3_finalize(q->st);
	return failed ? -1 : 0;
}

/* A statement that returns no rows (a write), done at once; slot as query_kept's (NULL: none). */
static int run_kept(struct db *d, sqlite3_stmt **slot, const char *sql, const struct arg *args, size_t nargs,
		    const char *what, struct err *e)
{
	struct query q;

	query_kept(&q, d, slot, sql, args, nargs, e);
	query_row(&q, NULL, 0, NULL);
	return query_end(&q, 0, what, e);
}

static int run(struct db *d, const char *sql, const struct arg *args, size_t nargs, const char *what, struct err *e)
{
	return run_kept(d, NULL, sql, args, nargs, what, e);
}

/* Whether the file is a ferry store, before anything is written to it: *tables gets the number of
 * tables it holds, *ours whether one of them is ferry's meta table. A file that is not an SQLite
 * database at all (random bytes) fails here, as bad input. */
static int inspect(struct db *d, int *tables, int *ours, struct err *e)
{
	struct query q;
	int rc;

	*tables = *ours = 0;
	query_start(&q, d, "SELECT count(*), coalesce(sum(name = 'meta'), 0) FROM sqlite_master WHERE type = 'table'",
		    NO_ARGS, e);
	if (query_row(&q, NULL, 0, NULL)) {
		*tables = sqlite3_column_int(q.st, 0);
		*ours = sqlite3_column_int(q.st, 1) > 0;
	}
	/* What failed (the statement or its step) is told apart by SQLite's code, below. */
	if (query_end(&q, 0, NULL, e) == 0 && q.rows)
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

/* The column schema 7 added to results: the size of the batch that gave a pass (NULL: alone). */
#define BATCH_COLUMN " ALTER TABLE results ADD COLUMN batch INTEGER;"

/* Schema 1 results had no tolerance, schema 2 results no frontend version (the run's, where the run
 * recorded one, stands in for it), schema 3 stores no reductions, schema 4 no mutations, schema 5
 * no timing columns, schema 6 no batch column (both read as absent: nothing that reads a store asks
 * for them). Opened
 * for writing, the store gains the columns (and the tables, which the schema's text made); opened
 * read-only, a temporary view of the same name stands in front of the results table (SQLite looks
 * in temp before main), so that every query reads one shape of results, and the reductions and
 * mutations are read as none (has_table). */
/* Whether the results table has the timing columns: a store that says an older schema may have
 * them (a ferry of schema 6 wrote it, and something set its schema back). */
static int results_have(struct db *d, const char *column)
{
	struct err scratch = ERR_INIT;
	struct query q;
	int has = 0;

	/* Not knowing is not having them: the migration then adds them, and says why it cannot. */
	query_start(&q, d, "SELECT count(*) FROM pragma_table_info('results') WHERE name = ?1", ARGS(TEXT(column)),
		    &scratch);
	if (query_row(&q, NULL, 0, NULL))
		has = sqlite3_column_int(q.st, 0) > 0;
	query_end(&q, 0, NULL, &scratch);
	err_release(&scratch);
	return has;
}

static int migrate(struct db *d, int mode, struct err *e)
{
	static const char run_version[] =
		"(SELECT frontend_version FROM main.runs u WHERE u.run_id = results.run_id)";
	struct buf sql = BUF_INIT;
	const char *timing, *batch;
	int r = 0;

	if (mode == DB_READ && d->schema >= 3) {
		r = 0;
		goto out;
	}
	timing = results_have(d, "ferry_seconds") ? "" : TIMING_COLUMNS;
	batch = results_have(d, "batch") ? "" : BATCH_COLUMN;
	if (d->schema >= 3) {
		buf_addf(&sql, "BEGIN IMMEDIATE;%s%s UPDATE meta SET value = '" FERRY_STR(DB_SCHEMA) "'"
			 " WHERE key = 'schema'; COMMIT", timing, batch);
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
	buf_addf(&sql, "BEGIN IMMEDIATE;%s%s%s%s%s%s"
		 " UPDATE meta SET value = '" FERRY_STR(DB_SCHEMA) "' WHERE key = 'schema'; COMMIT",
		 d->schema == 1 ? " ALTER TABLE results ADD COLUMN atol REAL; ALTER TABLE results ADD COLUMN rtol REAL;"
				: "",
		 d->schema < 3 ? " ALTER TABLE results ADD COLUMN frontend_version TEXT; UPDATE results SET"
				 " frontend_version = " : "",
		 d->schema < 3 ? run_version : "", d->schema < 3 ? ";" : "", timing, batch);
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
	struct query q;
	char *v = NULL, *end;
	long n;
	int r = -1;

	query_start(&q, d, "SELECT value FROM meta WHERE key = 'schema'", NO_ARGS, e);
	if (query_row(&q, NULL, 0, NULL) && text(q.st, 0))
		v = xstrdup(text(q.st, 0));
	if (query_end(&q, 0, NULL, e) < 0)
		return -1;
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
	struct err scratch = ERR_INIT;
	struct query q;
	char *who = NULL;

	query_start(&q, d, "SELECT value FROM meta WHERE key = 'writer'", NO_ARGS, &scratch);
	if (query_row(&q, NULL, 0, NULL) && text(q.st, 0))
		who = xstrdup(text(q.st, 0));
	query_end(&q, 0, NULL, &scratch);
	err_release(&scratch);
	return who;
}

int db_lock(struct db *d, const char *command, struct err *e)
{
	char *who = NULL;
	int fd, r = -1;

	if (d->locked)
		return 0;
	if ((fd = open(d->path, O_RDONLY | O_CLOEXEC)) < 0)
		return err_errno(e, EXIT_ENV, "cannot open the store '%s'", d->path);
	if (lock_take(fd, d->path, "store", writer_note, d, e) < 0)
		goto out;
	who = lock_note(command);
	if (run(d, "INSERT OR REPLACE INTO meta(key, value) VALUES('writer', ?1)", ARGS(TEXT(who)),
		"cannot write to the store", e) < 0)
		goto out;
	d->locked = 1;
	d->lock_fd = fd;
	fd = -1;
	r = 0;
out:
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

int db_put_instance(struct db *d, const struct instance *in, const char *record_json, const char *status,
		    const char *reason, int random, const char *dir, struct err *e)
{
	return run(d, "INSERT INTO instances(id, library, op, record, status, reason, random, dir)"
		   " VALUES(?,?,?,?,?,?,?,?)"
		   " ON CONFLICT(id) DO UPDATE SET record = excluded.record, status = excluded.status,"
		   " reason = excluded.reason, random = excluded.random, dir = excluded.dir"
		   " WHERE record IS NOT excluded.record OR dir IS NOT excluded.dir",
		   ARGS(TEXT(in->id), TEXT(in->library), TEXT(in->op), TEXT(record_json), TEXT(status ? status : "ok"),
			TEXT(reason), INT(random), TEXT(dir)),
		   "cannot write to the store", e);
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
	if (run(d, "INSERT INTO runs(frontend, frontend_version, command, started) VALUES(?,?,?,?)",
		ARGS(TEXT(frontend), TEXT(frontend_version), TEXT(command), REAL(wall_now())),
		"cannot write to the store", e) < 0)
		return -1;
	*run_id = sqlite3_last_insert_rowid(d->h);
	return 0;
}

int db_finish_run(struct db *d, long long run_id, const char *frontend_version, struct err *e)
{
	return run(d, "UPDATE runs SET finished = ?, frontend_version = coalesce(?, frontend_version) WHERE run_id = ?",
		   ARGS(REAL(wall_now()), TEXT(frontend_version), INT(run_id)), "cannot write to the store", e);
}

int db_has_result(struct db *d, const char *frontend, const char *id, struct err *e)
{
	struct query q;
	int has;

	/* ferry's own errors do not count: running the command again retries them. */
	query_kept(&q, d, &d->has_result, "SELECT 1 FROM results WHERE frontend = ?1 AND id = ?2 AND outcome <> ?3",
		   ARGS(TEXT(frontend), TEXT(id), TEXT(outcome_name(OUTCOME_ERROR))), e);
	has = query_row(&q, NULL, 0, NULL);
	return query_end(&q, 0, "cannot query the store", e) < 0 ? -1 : has;
}

int db_result_outcome(struct db *d, const char *frontend, const char *id, int *outcome, struct err *e)
{
	struct query q;
	int has, known;

	query_kept(&q, d, &d->result_outcome, "SELECT outcome FROM results WHERE frontend = ?1 AND id = ?2",
		   ARGS(TEXT(frontend), TEXT(id)), e);
	if ((has = query_row(&q, NULL, 0, NULL))) {
		known = outcome_from_name(text(q.st, 0));
		/* An outcome this ferry does not know is no result it can judge: run it again. */
		*outcome = known >= 0 ? known : OUTCOME_ERROR;
	}
	return query_end(&q, 0, "cannot query the store", e) < 0 ? -1 : has;
}

int db_put_result(struct db *d, const struct db_result *r, struct err *e)
{
	return run_kept(d, &d->put_result,
			"INSERT OR REPLACE INTO results(frontend, id, run_id, outcome, stage, exc_type, message, frame,"
			" detail, max_abs, seconds, atol, rtol, frontend_version, load_seconds, compile_seconds,"
			" execute_seconds, ferry_seconds, batch) VALUES(?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?)",
			ARGS(TEXT(r->frontend), TEXT(r->id), INT(r->run_id), TEXT(outcome_name(r->outcome)),
			     TEXT(r->stage), TEXT(r->exc_type), TEXT(r->message), TEXT(r->frame), TEXT(r->detail),
			     REAL(r->max_abs), REAL(r->seconds), REAL(r->atol), REAL(r->rtol),
			     TEXT(r->frontend_version), REAL(r->timed ? r->load_seconds : NAN),
			     REAL(r->timed ? r->compile_seconds : NAN), REAL(r->timed ? r->execute_seconds : NAN),
			     REAL(r->timed ? r->ferry_seconds : NAN), COUNT(r->batch > 0 ? r->batch : -1)),
			"cannot write to the store", e);
}

/* --- queries ------------------------------------------------------------------------------------ */

/* The columns of a struct db_row, from results r and instances i, in row_cols' order. */
#define ROW_COLUMNS "r.frontend, r.id, r.outcome, i.op, i.library, i.record, i.dir, r.stage, r.exc_type," \
	" r.message, r.frame, r.detail, r.max_abs, r.seconds, r.atol, r.rtol, r.frontend_version"

static const struct col row_cols[] = {
	COL(db_row, frontend), COL(db_row, id), COL(db_row, outcome), COL(db_row, op), COL(db_row, library),
	COL(db_row, record), COL(db_row, dir), COL(db_row, stage), COL(db_row, exc_type), COL(db_row, message),
	COL(db_row, frame), COL(db_row, detail), COL(db_row, max_abs), COL(db_row, seconds), COL(db_row, atol),
	COL(db_row, rtol), COL(db_row, frontend_version),
};

/* Each row of sql (ROW_COLUMNS) to fn: the number of rows, or -1. */
static int rows(struct db *d, const char *sql, const struct arg *args, size_t nargs, db_row_fn fn, void *ctx,
		struct err *e)
{
	struct db_row row;
	struct query q;
	int r = 0;

	query_start(&q, d, sql, args, nargs, e);
	while (r == 0 && query_row(&q, COLS(row_cols), &row))
		r = fn(ctx, &row, e);
	return query_end(&q, r, "cannot query the store", e) < 0 ? -1 : q.rows;
}

/* Whether the store has a table: a store made before it (the support table, the reductions, the
 * mutations), opened read-only, has not. */
static int has_table(struct db *d, const char *name, struct err *e)
{
	struct query q;
	int has;

	query_start(&q, d, "SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = ?1", ARGS(TEXT(name)), e);
	has = query_row(&q, NULL, 0, NULL);
	return query_end(&q, 0, "cannot query the store", e) < 0 ? -1 : has;
}

static int failures(struct db *d, const char *frontend, enum db_order order, int bugs, db_row_fn fn, void *ctx,
		    struct err *e)
{
	static const char *const orders[] = {
		[DB_BY_ID] = "r.frontend, r.id",
		[DB_BY_OP] = "r.frontend, i.op, r.id",
		[DB_BY_OUTCOME] = "r.frontend, r.outcome, i.op, r.id",
	};
	struct buf sql = BUF_INIT;
	int r, reduced = bugs ? has_table(d, "reductions", e) : 0;

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
	r = rows(d, sql.data, ARGS(TEXT(frontend)), fn, ctx, e) < 0 ? -1 : 0;
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
	int r = value ? run(d, "INSERT OR REPLACE INTO meta(key, value) VALUES(?1, ?2)", ARGS(TEXT(key), TEXT(value)),
			    what, e)
		      : run(d, "DELETE FROM meta WHERE key = ?1", ARGS(TEXT(key)), what, e);

	free(key);
	return r;
}

typedef int (*meta_fn)(void *ctx, const char *frontend, const char *value, struct err *e);

/* Each fact under prefix, by frontend; only that frontend's when only is not NULL. */
static int meta_each(struct db *d, const char *prefix, const char *only, meta_fn fn, void *ctx, const char *what,
		     struct err *e)
{
	struct query q;
	int r = 0;

	query_start(&q, d, "SELECT substr(key, length(?1) + 2), value FROM meta"
		    " WHERE substr(key, 1, length(?1) + 1) = ?1 || ':'"
		    " AND (?2 IS NULL OR key = ?1 || ':' || ?2) ORDER BY key", ARGS(TEXT(prefix), TEXT(only)), e);
	while (r == 0 && query_row(&q, NULL, 0, NULL))
		r = fn(ctx, text(q.st, 0) ? text(q.st, 0) : "", text(q.st, 1) ? text(q.st, 1) : "", e);
	return query_end(&q, r, what, e);
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
	return run(d, "INSERT OR REPLACE INTO support(frontend, version, op, dtype, probe_id, outcome, stage, message)"
		   " VALUES(?,?,?,?,?,?,?,?)",
		   ARGS(TEXT(s->frontend), TEXT(s->version ? s->version : ""), TEXT(s->op), TEXT(s->dtype),
			TEXT(s->probe_id), TEXT(s->outcome), TEXT(s->stage), TEXT(s->message)),
		   "cannot write to the store", e);
}

#define SUPPORT_COLUMNS "SELECT frontend, version, op, dtype, probe_id, outcome, stage, message FROM support"

/* The support rows that sql (SUPPORT_COLUMNS with its own WHERE) with args picks, to fn. */
static int support_rows(struct db *d, const char *sql, const struct arg *args, size_t nargs,
			int (*fn)(void *ctx, const struct db_support *s, struct err *e), void *ctx, struct err *e)
{
	static const struct col cols[] = {
		COL(db_support, frontend), COL(db_support, version), COL(db_support, op), COL(db_support, dtype),
		COL(db_support, probe_id), COL(db_support, outcome), COL(db_support, stage), COL(db_support, message),
	};
	struct db_support s;
	struct query q;
	int has, r = 0;

	if ((has = has_table(d, "support", e)) <= 0)
		return has;
	query_start(&q, d, sql, args, nargs, e);
	while (r == 0 && query_row(&q, COLS(cols), &s))
		r = fn ? fn(ctx, &s, e) : 0;
	return query_end(&q, r, "cannot read the support table", e) < 0 ? -1 : q.rows;
}

int db_support_rows(struct db *d, const char *frontend, const char *version, const char *op, const char *dtype,
		    int (*fn)(void *ctx, const struct db_support *s, struct err *e), void *ctx, struct err *e)
{
	return support_rows(d, SUPPORT_COLUMNS " WHERE frontend = ?1 AND version = ?2 AND (?3 IS NULL OR op = ?3)"
			    " AND (?4 IS NULL OR dtype = ?4) ORDER BY op, dtype",
			    ARGS(TEXT(frontend), TEXT(version ? version : ""), TEXT(op), TEXT(dtype)), fn, ctx, e);
}

int db_support_passed(struct db *d, const char *frontend,
		      int (*fn)(void *ctx, const struct db_support *s, struct err *e), void *ctx, struct err *e)
{
	return support_rows(d, SUPPORT_COLUMNS " WHERE frontend = ?1 AND outcome = 'pass' ORDER BY op, dtype",
			    ARGS(TEXT(frontend)), fn, ctx, e);
}

/* --- neighbours: the trigger stage's one-change tests ------------------------------------------ */

int db_put_neighbour(struct db *d, const char *parent, const char *id, const char *change, struct err *e)
{
	return run(d, "INSERT OR REPLACE INTO neighbours(parent, id, change) VALUES(?,?,?)",
		   ARGS(TEXT(parent), TEXT(id), TEXT(change)), "cannot write to the store", e);
}

int db_neighbours(struct db *d, const char *frontend, const char *parent, const char *id,
		  int (*fn)(void *ctx, const struct db_neighbour *n, struct err *e), void *ctx, struct err *e)
{
	static const struct col cols[] = {
		COL(db_neighbour, parent), COL(db_neighbour, id), COL(db_neighbour, change),
		COL(db_neighbour, outcome), COL(db_neighbour, bug_id), COL(db_neighbour, record),
	};
	struct db_neighbour n;
	struct query q;
	int has, r = 0;

	if ((has = has_table(d, "neighbours", e)) <= 0)
		return has;
	query_start(&q, d, "SELECT n.parent, n.id, n.change, r.outcome, m.bug_id, i.record FROM neighbours n"
		    " LEFT JOIN results r ON r.id = n.id AND r.frontend = ?1"
		    " LEFT JOIN bug_members m ON m.id = n.id AND m.frontend = ?1"
		    " LEFT JOIN instances i ON i.id = n.id"
		    " WHERE (?2 IS NULL OR n.parent = ?2) AND (?3 IS NULL OR n.id = ?3)"
		    " ORDER BY n.parent, n.change, n.id",
		    ARGS(TEXT(frontend), TEXT(parent), TEXT(id)), e);
	while (r == 0 && query_row(&q, COLS(cols), &n))
		r = fn ? fn(ctx, &n, e) : 0;
	return query_end(&q, r, "cannot read the neighbours table", e) < 0 ? -1 : q.rows;
}

/* --- environment (the canary) -------------------------------------------------------------------- */

int db_put_environment(struct db *d, const struct db_environment *v, struct err *e)
{
	return run(d, "INSERT OR REPLACE INTO environment(frontend, version, python, ok, detail, seconds)"
		   " VALUES(?,?,?,?,?,?)",
		   ARGS(TEXT(v->frontend), TEXT(v->version ? v->version : ""), TEXT(v->python ? v->python : ""),
			COUNT(v->ok), TEXT(v->detail), REAL(v->seconds)),
		   "cannot write to the store", e);
}

int db_environment(struct db *d, const char *frontend, const char *version, const char *python,
		   int (*fn)(void *ctx, const struct db_environment *v, struct err *e), void *ctx, struct err *e)
{
	static const struct col cols[] = {
		COL(db_environment, frontend), COL(db_environment, version), COL(db_environment, python),
		COUNT_COL(db_environment, ok), COL(db_environment, detail), COL(db_environment, seconds),
	};
	struct db_environment v;
	struct query q;
	int has, r = 0;

	if ((has = has_table(d, "environment", e)) <= 0)
		return has;
	/* The newest row first (rowid: INSERT OR REPLACE gives a replaced row a new one). */
	query_start(&q, d, "SELECT frontend, version, python, ok, detail, seconds FROM environment"
		    " WHERE frontend = ?1 AND (?2 IS NULL OR version = ?2) AND (?3 IS NULL OR python = ?3)"
		    " ORDER BY rowid DESC", ARGS(TEXT(frontend), TEXT(version), TEXT(python)), e);
	while (r == 0 && query_row(&q, COLS(cols), &v))
		r = fn ? fn(ctx, &v, e) : 0;
	return query_end(&q, r, "cannot read the environment table", e) < 0 ? -1 : q.rows;
}

/* --- reductions ---------------------------------------------------------------------------------- */

int db_put_reduction(struct db *d, const struct db_reduction *r, struct err *e)
{
	return run(d, "INSERT OR REPLACE INTO reductions(frontend, id, status, dir, nodes_before, nodes_after,"
		   " candidates, ops, frontend_version) VALUES(?,?,?,?,?,?,?,?,?)",
		   ARGS(TEXT(r->frontend), TEXT(r->id), TEXT(r->status), TEXT(r->dir), INT(r->nodes_before),
			INT(r->nodes_after), INT(r->candidates), TEXT(r->ops), TEXT(r->frontend_version)),
		   "cannot write to the store", e);
}

int db_reductions(struct db *d, const char *frontend, const char *id,
		  int (*fn)(void *ctx, const struct db_reduction *r, struct err *e), void *ctx, struct err *e)
{
	static const struct col cols[] = {
		COL(db_reduction, frontend), COL(db_reduction, id), COL(db_reduction, status), COL(db_reduction, dir),
		COL(db_reduction, nodes_before), COL(db_reduction, nodes_after), COL(db_reduction, candidates),
		COL(db_reduction, ops), COL(db_reduction, frontend_version),
	};
	struct db_reduction x;
	struct query q;
	int has, r = 0;

	if ((has = has_table(d, "reductions", e)) <= 0)
		return has;
	query_start(&q, d, "SELECT frontend, id, status, dir, nodes_before, nodes_after, candidates, ops,"
		    " frontend_version FROM reductions WHERE (?1 IS NULL OR frontend = ?1)"
		    " AND (?2 IS NULL OR id = ?2) ORDER BY frontend, id", ARGS(TEXT(frontend), TEXT(id)), e);
	while (r == 0 && query_row(&q, COLS(cols), &x))
		r = fn ? fn(ctx, &x, e) : 0;
	return query_end(&q, r, "cannot read the reductions", e) < 0 ? -1 : q.rows;
}

int db_results_with(struct db *d, const char *frontend, const char *outcome, db_row_fn fn, void *ctx, struct err *e)
{
	return rows(d, "SELECT " ROW_COLUMNS " FROM results r LEFT JOIN instances i USING(id)"
		    " WHERE (?1 IS NULL OR r.frontend = ?1) AND (?2 IS NULL OR r.outcome = ?2)"
		    " ORDER BY r.frontend, r.id",
		    ARGS(TEXT(frontend), TEXT(outcome)), fn, ctx, e) < 0 ? -1 : 0;
}

int db_result(struct db *d, const char *frontend, const char *id, db_row_fn fn, void *ctx, struct err *e)
{
	int n = rows(d, "SELECT " ROW_COLUMNS " FROM results r LEFT JOIN instances i USING(id)"
		     " WHERE r.frontend = ?1 AND r.id = ?2", ARGS(TEXT(frontend), TEXT(id)), fn, ctx, e);

	return n < 0 ? -1 : n > 0;
}

int db_summary(struct db *d, struct db_summary *s, struct err *e)
{
	static const struct col cols[] = {
		COL(db_summary, instances), COL(db_summary, valid), COL(db_summary, invalid), COL(db_summary, random),
		COL(db_summary, ops), COL(db_summary, results), COL(db_summary, tested),
	};
	struct query q;

	memset(s, 0, sizeof(*s));
	query_start(&q, d, "SELECT count(*), coalesce(sum(status = 'ok'), 0), coalesce(sum(status != 'ok'), 0),"
		    " coalesce(sum(random), 0), count(DISTINCT op),"
		    " (SELECT count(*) FROM results), (SELECT count(DISTINCT id) FROM results) FROM instances",
		    NO_ARGS, e);
	query_row(&q, COLS(cols), s);
	return query_end(&q, 0, "cannot query the store", e);
}

int db_frontends(struct db *d, const char *only, int (*fn)(void *ctx, const char *frontend, struct err *e),
		 void *ctx, struct err *e)
{
	struct query q;
	int r = 0;

	query_start(&q, d, "SELECT DISTINCT frontend FROM results WHERE ?1 IS NULL OR frontend = ?1 ORDER BY 1",
		    ARGS(TEXT(only)), e);
	while (r == 0 && query_row(&q, NULL, 0, NULL))
		r = fn(ctx, text(q.st, 0), e);
	return query_end(&q, r, "cannot query the store", e);
}

int db_frontend_version(struct db *d, const char *frontend, char **version, struct err *e)
{
	struct query q;

	*version = NULL;
	query_start(&q, d, "SELECT frontend_version FROM runs WHERE frontend = ?1 AND frontend_version IS NOT NULL"
		    " ORDER BY run_id DESC LIMIT 1", ARGS(TEXT(frontend)), e);
	if (query_row(&q, NULL, 0, NULL))
		*version = xstrdup(text(q.st, 0));
	return query_end(&q, 0, "cannot query the store", e);
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
	struct outcome_count *c = NULL;
	struct query q;
	size_t n = 0, cap = 0;
	int r = -1;

	query_start(&q, d, "SELECT outcome, count(*) FROM results WHERE frontend = ?1 GROUP BY outcome",
		    ARGS(TEXT(frontend)), e);
	while (query_row(&q, NULL, 0, NULL)) {
		int o = outcome_from_name(text(q.st, 0));

		XGROW(c, cap, n + 1);
		c[n].name = xstrdup(text(q.st, 0) ? text(q.st, 0) : "");
		c[n].n = sqlite3_column_int64(q.st, 1);
		c[n].rank = o >= 0 ? o : OUTCOME_COUNT;
		n++;
	}
	if (query_end(&q, 0, "cannot query the store", e) < 0)
		goto out;
	/* The outcomes' own order (outcome.h), not SQL's: the table is the one source of it. */
	if (n)
		qsort(c, n, sizeof(*c), by_rank);
	for (size_t i = 0; i < n; i++)
		if (fn(ctx, c[i].name, c[i].n, e) < 0)
			goto out;
	r = 0;
out:
	for (size_t i = 0; i < n; i++)
		free(c[i].name);
	free(c);
	return r;
}

int db_failing_ops(struct db *d, const char *frontend, long long limit,
		   int (*fn)(void *ctx, const struct db_op_failures *f, struct err *e), void *ctx, struct err *e)
{
	static const struct col cols[] = {
		COL(db_op_failures, op), COL(db_op_failures, tests), COL(db_op_failures, mismatch),
		COL(db_op_failures, crash), COL(db_op_failures, timeout_oom), COL(db_op_failures, failed),
	};
	struct db_op_failures f;
	struct buf sql = BUF_INIT;
	struct query q;
	int r = 0;

	buf_adds(&sql, "SELECT i.op, count(*), sum(r.outcome = ?2), sum(r.outcome = ?3),"
		 " sum(r.outcome IN (?4, ?5)), sum(");
	outcome_failure_sql("r.outcome", &sql);
	buf_adds(&sql, ") AS failed FROM results r JOIN instances i USING(id) WHERE r.frontend = ?1"
		 " GROUP BY i.op HAVING failed > 0 ORDER BY failed DESC, i.op LIMIT ?6");
	query_start(&q, d, sql.data, ARGS(TEXT(frontend), TEXT(outcome_name(OUTCOME_MISMATCH)),
					  TEXT(outcome_name(OUTCOME_CRASH)), TEXT(outcome_name(OUTCOME_TIMEOUT)),
					  TEXT(outcome_name(OUTCOME_OOM)), INT(limit)), e);
	while (r == 0 && query_row(&q, COLS(cols), &f))
		r = fn(ctx, &f, e);
	r = query_end(&q, r, "cannot query the store", e);
	buf_release(&sql);
	return r;
}

/* --- bugs --------------------------------------------------------------------------------------- */

static int put_bugs(struct db *d, const char *frontend, const struct db_bug *bugs, size_t n, struct err *e)
{
	static const char what[] = "cannot write to the store";
	/* Prepared once for all the bugs and their members. */
	sqlite3_stmt *ins = NULL, *mem = NULL;
	int r = -1;

	if (run(d, "DELETE FROM bugs WHERE ?1 IS NULL OR frontend = ?1", ARGS(TEXT(frontend)), what, e) < 0 ||
	    run(d, "DELETE FROM bug_members WHERE ?1 IS NULL OR frontend = ?1", ARGS(TEXT(frontend)), what, e) < 0)
		goto out;
	for (size_t i = 0; i < n; i++) {
		const struct db_bug *b = &bugs[i];

		if (run_kept(d, &ins, "INSERT INTO bugs(bug_id, frontend, outcome, stage, signature, representative,"
			     " members, ops, message) VALUES(?,?,?,?,?,?,?,?,?)",
			     ARGS(TEXT(b->bug_id), TEXT(b->frontend), TEXT(b->outcome), TEXT(b->stage),
				  TEXT(b->signature), TEXT(b->representative), INT(b->members), TEXT(b->ops),
				  TEXT(b->message)),
			     what, e) < 0)
			goto out;
		for (size_t m = 0; m < b->nmember_ids; m++)
			if (run_kept(d, &mem, "INSERT OR REPLACE INTO bug_members(bug_id, frontend, id) VALUES(?,?,?)",
				     ARGS(TEXT(b->bug_id), TEXT(b->frontend), TEXT(b->member_ids[m])), what, e) < 0)
				goto out;
	}
	r = 0;
out:
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

static const struct col bug_cols[] = {
	COL(db_bug, bug_id), COL(db_bug, frontend), COL(db_bug, outcome), COL(db_bug, stage), COL(db_bug, signature),
	COL(db_bug, representative), COL(db_bug, ops), COL(db_bug, message), COL(db_bug, members),
};

int db_bugs(struct db *d, const char *frontend, int (*fn)(void *ctx, const struct db_bug *b, struct err *e),
	    void *ctx, struct err *e)
{
	struct db_bug b = { 0 };
	struct query q;
	int r = 0;

	query_start(&q, d, "SELECT " BUG_COLUMNS " FROM bugs b WHERE ?1 IS NULL OR b.frontend = ?1"
		    " ORDER BY b.frontend, b.members DESC, b.bug_id", ARGS(TEXT(frontend)), e);
	while (r == 0 && query_row(&q, COLS(bug_cols), &b))
		r = fn(ctx, &b, e);
	return query_end(&q, r, "cannot query the store", e);
}

int db_bugs_by_prefix(struct db *d, const char *prefix,
		      int (*fn)(void *ctx, const struct db_bug *b, const struct db_row *rep, struct err *e),
		      void *ctx, struct err *e)
{
	struct db_bug b = { 0 };
	struct db_row rep;
	struct query q;
	int r = 0;

	/* A prefix, not a LIKE pattern: '%' and '_' in it are themselves. */
	query_start(&q, d, "SELECT " BUG_COLUMNS ", " ROW_COLUMNS " FROM bugs b"
		    " JOIN results r ON r.id = b.representative AND r.frontend = b.frontend"
		    " LEFT JOIN instances i ON i.id = b.representative"
		    " WHERE substr(b.bug_id, 1, length(?1)) = lower(?1)"
		    " ORDER BY b.frontend, b.bug_id", ARGS(TEXT(prefix)), e);
	while (r == 0 && query_row(&q, COLS(bug_cols), &b)) {
		read_cols(q.st, sizeof(bug_cols) / sizeof(bug_cols[0]), COLS(row_cols), &rep);
		r = fn(ctx, &b, &rep, e);
	}
	return query_end(&q, r, "cannot query the store", e);
}

int db_bug_members(struct db *d, const char *frontend, const char *bug_id, long long limit,
		   int (*fn)(void *ctx, const char *frontend, const char *bug_id, const char *id, const char *op,
			     struct err *e),
		   void *ctx, struct err *e)
{
	struct query q;
	int r = 0;

	query_start(&q, d, "SELECT m.frontend, m.bug_id, m.id, i.op FROM bug_members m"
		    " LEFT JOIN instances i USING(id)"
		    " WHERE (?1 IS NULL OR m.frontend = ?1) AND (?2 IS NULL OR m.bug_id = ?2)"
		    " ORDER BY m.frontend, m.bug_id, i.op, m.id LIMIT ?3",
		    ARGS(TEXT(frontend), TEXT(bug_id), INT(limit)), e);
	while (r == 0 && query_row(&q, NULL, 0, NULL))
		r = fn(ctx, text(q.st, 0), text(q.st, 1), text(q.st, 2), text(q.st, 3), e);
	return query_end(&q, r, "cannot query the store", e);
}

int db_bug_member_records(struct db *d, const char *frontend,
			  int (*fn)(void *ctx, const char *frontend, const char *bug_id, const char *id,
				    const char *record, struct err *e),
			  void *ctx, struct err *e)
{
	struct query q;
	int r = 0;

	query_start(&q, d, "SELECT m.frontend, m.bug_id, m.id, i.record FROM bug_members m"
		    " LEFT JOIN instances i USING(id) WHERE ?1 IS NULL OR m.frontend = ?1"
		    " ORDER BY m.frontend, m.bug_id, m.id", ARGS(TEXT(frontend)), e);
	while (r == 0 && query_row(&q, NULL, 0, NULL))
		r = fn(ctx, text(q.st, 0), text(q.st, 1), text(q.st, 2), text(q.st, 3), e);
	return query_end(&q, r, "cannot query the store", e);
}

/* --- merging shards ----------------------------------------------------------------------------- */

/* The schema of the attached shard: its results have a tolerance from schema 2 on. */
static int shard_schema(struct db *d, struct err *e)
{
	struct query q;
	int v = -1;

	query_start(&q, d, "SELECT value FROM shard.meta WHERE key = 'schema'", NO_ARGS, e);
	if (query_row(&q, NULL, 0, NULL))
		v = atoi(text(q.st, 0) ? text(q.st, 0) : "");
	if (query_end(&q, 0, NULL, e) < 0)
		return -1;
	if (v < DB_SCHEMA_OLDEST || v > DB_SCHEMA)
		return err_set(e, EXIT_INPUT, "the shard has schema %d; this ferry reads schema %d to %d", v,
			       DB_SCHEMA_OLDEST, DB_SCHEMA);
	return v;
}

/* The attached shard's oracle against the store's; *sql copies its mutations, where it has them. */
static int merge_oracle(struct db *d, const char *shard, const char **sql, struct err *e)
{
	struct query q;
	char *oracle = NULL;
	int any = 0, r;

	query_start(&q, d, "SELECT (SELECT value FROM shard.meta WHERE key = 'oracle'),"
		    " EXISTS(SELECT 1 FROM shard.results),"
		    " EXISTS(SELECT 1 FROM shard.sqlite_master WHERE type = 'table' AND name = 'mutations')",
		    NO_ARGS, e);
	if (query_row(&q, NULL, 0, NULL)) {
		oracle = text(q.st, 0) ? xstrdup(text(q.st, 0)) : NULL;
		any = sqlite3_column_int(q.st, 1);
		if (sqlite3_column_int(q.st, 2))
			*sql = "INSERT OR REPLACE INTO main.mutations SELECT * FROM shard.mutations";
	}
	if (query_end(&q, 0, NULL, e) < 0)
		return -1;
	r = oracle || any ? db_check_oracle(d, oracle ? oracle : "reference", e) : 0;
	if (r < 0)
		err_prefix(e, "'%s'", shard);
	free(oracle);
	return r;
}

/* Whether the attached shard has a table: 1, 0, or -1 with e. */
static int shard_has(struct db *d, const char *table, struct err *e)
{
	struct query q;
	int has = 0;

	query_start(&q, d, "SELECT count(*) FROM shard.sqlite_master WHERE type = 'table' AND name = ?1",
		    ARGS(TEXT(table)), e);
	if (query_row(&q, NULL, 0, NULL))
		has = sqlite3_column_int(q.st, 0) > 0;
	return query_end(&q, 0, NULL, e) < 0 ? -1 : has;
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
	struct query q;
	char *results_sql = NULL;
	const char *support_sql = "SELECT 1", *mutations_sql = "SELECT 1", *extra[2];
	size_t nextra = 0;
	int version, has, r = -1;

	if (run(d, "ATTACH DATABASE ?1 AS shard", ARGS(TEXT(shard)), "cannot attach a shard to the store", e) < 0)
		return -1;
	if ((version = shard_schema(d, e)) < 0)
		goto detach;
	/* A shard of before schema 3: its results' release is their run's (as migrate says). */
	results_sql = xasprintf("INSERT OR REPLACE INTO main.results(frontend, id, run_id, outcome, stage, exc_type,"
				" message, frame, detail, max_abs, seconds, atol, rtol, frontend_version, load_seconds,"
				" compile_seconds, execute_seconds, ferry_seconds, batch)"
				" SELECT r.frontend, r.id, m.new,"
				" r.outcome, r.stage, r.exc_type, r.message, r.frame, r.detail, r.max_abs, r.seconds,"
				" %s, %s, %s, %s"
				" FROM shard.results r LEFT JOIN run_map m ON m.old = r.run_id",
				version >= 2 ? "r.atol, r.rtol" : "NULL, NULL",
				version >= 3 ? "r.frontend_version"
				: "(SELECT u.frontend_version FROM shard.runs u WHERE u.run_id = r.run_id)",
				version >= 6 ? "r.load_seconds, r.compile_seconds, r.execute_seconds, r.ferry_seconds"
				: "NULL, NULL, NULL, NULL", version >= 7 ? "r.batch" : "NULL");
	/* A shard's probes are the same release's answers: kept, the store's own first. A shard made
	 * before probes has no such table. */
	query_start(&q, d, "SELECT count(*) FROM shard.sqlite_master WHERE type = 'table' AND name = 'support'",
		    NO_ARGS, e);
	if (query_row(&q, NULL, 0, NULL) && sqlite3_column_int(q.st, 0) > 0)
		support_sql = "INSERT OR IGNORE INTO main.support(frontend, version, op, dtype, probe_id, outcome,"
			      " stage, message) SELECT frontend, version, op, dtype, probe_id, outcome, stage,"
			      " message FROM shard.support";
	if (query_end(&q, 0, NULL, e) < 0)
		goto detach;
	/* The trigger stage's neighbours and the canary's verdicts, where the shard has them (a shard of
	 * before them has not): kept, the store's own first. */
	if ((has = shard_has(d, "neighbours", e)) < 0)
		goto detach;
	if (has)
		extra[nextra++] = "INSERT OR IGNORE INTO main.neighbours(parent, id, change)"
				  " SELECT parent, id, change FROM shard.neighbours";
	if ((has = shard_has(d, "environment", e)) < 0)
		goto detach;
	if (has)
		extra[nextra++] = "INSERT OR IGNORE INTO main.environment(frontend, version, python, ok, detail,"
				  " seconds) SELECT frontend, version, python, ok, detail, seconds"
				  " FROM shard.environment";
	/* The shard's oracle must be the store's (db_check_oracle), its mutations come with its results. */
	if (merge_oracle(d, shard, &mutations_sql, e) < 0)
		goto detach;
	if (db_begin(d, e) < 0)
		goto detach;
	for (size_t i = 0; i < nextra; i++)
		if (sqlite3_exec(d->h, extra[i], NULL, NULL, NULL) != SQLITE_OK) {
			db_error(d, e, "cannot merge into the store");
			err_prefix(e, "'%s'", shard);
			sqlite3_exec(d->h, "ROLLBACK", NULL, NULL, NULL);
			goto detach;
		}
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
	struct query q;
	char *have = NULL;
	int any = 0, r = -1;

	query_start(&q, d, "SELECT (SELECT value FROM meta WHERE key = 'oracle'), EXISTS(SELECT 1 FROM results)",
		    NO_ARGS, e);
	if (query_row(&q, NULL, 0, NULL)) {
		have = text(q.st, 0) ? xstrdup(text(q.st, 0)) : NULL;
		any = sqlite3_column_int(q.st, 1);
	}
	if (query_end(&q, 0, NULL, e) < 0)
		return -1;
	/* Results without a word of their oracle are the reference's: all there was before schema 4. */
	if (!have && any)
		have = xstrdup("reference");
	if (have && strcmp(have, oracle)) {
		err_set(e, EXIT_USAGE, "the store '%s' holds the %s oracle's results, and a test has one result per "
			"frontend: write the %s oracle's into another store", d->path, have, oracle);
		goto out;
	}
	r = 0;
	if (!have && strcmp(oracle, "reference"))
		r = run(d, "INSERT OR REPLACE INTO meta(key, value) VALUES('oracle', ?1)", ARGS(TEXT(oracle)),
			"cannot write to the store", e);
out:
	free(have);
	return r;
}

int db_put_mutation(struct db *d, const struct db_mutation *m, struct err *e)
{
	return run(d, "INSERT OR REPLACE INTO mutations(frontend, id, seed, k, chain, stats, nodes, original_nodes,"
		   " status, kind, target_op, message) VALUES(?,?,?,?,?,?,?,?,?,?,?,?)",
		   ARGS(TEXT(m->frontend), TEXT(m->id), INT(m->seed), INT(m->k), TEXT(m->chain), TEXT(m->stats),
			COUNT(m->nodes), COUNT(m->original_nodes), TEXT(m->status ? m->status : "none"), TEXT(m->kind),
			TEXT(m->target_op), TEXT(m->message)),
		   "cannot write to the store", e);
}

int db_put_mutation_reduction(struct db *d, const struct db_mutation *m, struct err *e)
{
	static const char what[] = "cannot write to the store";
	char *frame = m->kind && m->target_op ? xasprintf("%s:%s", m->kind, m->target_op) : NULL;
	int r = -1;

	if (db_begin(d, e) < 0)
		goto out;
	if (run(d, "UPDATE mutations SET status = ?3, reduced = ?4, reduced_nodes = ?5, model = ?6, outputs = ?7,"
		" kind = coalesce(?8, kind), target_op = coalesce(?9, target_op), message = ?10"
		" WHERE frontend = ?1 AND id = ?2",
		ARGS(TEXT(m->frontend), TEXT(m->id), TEXT(m->status), TEXT(m->reduced), COUNT(m->reduced_nodes),
		     TEXT(m->model), TEXT(m->outputs), TEXT(m->kind), TEXT(m->target_op), TEXT(m->message)),
		what, e) < 0)
		goto rollback;
	if (frame && run(d, "UPDATE results SET frame = ?3 WHERE frontend = ?1 AND id = ?2 AND outcome = ?4",
			 ARGS(TEXT(m->frontend), TEXT(m->id), TEXT(frame), TEXT(outcome_name(OUTCOME_INCONSISTENT))),
			 what, e) < 0)
		goto rollback;
	r = db_commit(d, e);
	goto out;
rollback:
	sqlite3_exec(d->h, "ROLLBACK", NULL, NULL, NULL);
out:
	free(frame);
	return r;
}

static int mutations(struct db *d, const char *frontend, const char *id,
		     int (*fn)(void *ctx, const struct db_mutation *m, struct err *e), void *ctx, struct err *e)
{
	static const struct col cols[] = {
		COL(db_mutation, frontend), COL(db_mutation, id), COL(db_mutation, seed), COL(db_mutation, k),
		COL(db_mutation, chain), COL(db_mutation, stats), COUNT_COL(db_mutation, nodes),
		COUNT_COL(db_mutation, original_nodes), COL(db_mutation, status), COL(db_mutation, reduced),
		COUNT_COL(db_mutation, reduced_nodes), COL(db_mutation, model), COL(db_mutation, outputs),
		COL(db_mutation, kind), COL(db_mutation, target_op), COL(db_mutation, message),
	};
	struct db_mutation m;
	struct query q;
	int has, r = 0;

	if ((has = has_table(d, "mutations", e)) <= 0)
		return has;
	query_start(&q, d, "SELECT frontend, id, seed, k, chain, stats, nodes, original_nodes, status, reduced,"
		    " reduced_nodes, model, outputs, kind, target_op, message FROM mutations"
		    " WHERE (?1 IS NULL OR frontend = ?1) AND (?2 IS NULL OR id = ?2) ORDER BY frontend, id",
		    ARGS(TEXT(frontend), TEXT(id)), e);
	while (r == 0 && query_row(&q, COLS(cols), &m))
		r = fn ? fn(ctx, &m, e) : 0;
	return query_end(&q, r, "cannot query the store", e) < 0 ? -1 : q.rows;
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
