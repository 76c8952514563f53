/* db.c: the SQLite results store. */
#include "db.h"
#include "fsutil.h"
#include "xalloc.h"

#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <time.h>
#include <unistd.h>

#define SCHEMA_VERSION "1"

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
	"  PRIMARY KEY(frontend, id));"
	"CREATE INDEX IF NOT EXISTS results_outcome ON results(frontend, outcome);"
	"CREATE TABLE IF NOT EXISTS bugs("
	"  bug_id TEXT NOT NULL, frontend TEXT NOT NULL, outcome TEXT NOT NULL, stage TEXT, signature TEXT NOT NULL,"
	"  representative TEXT NOT NULL, members INTEGER NOT NULL, ops TEXT, message TEXT,"
	"  PRIMARY KEY(frontend, bug_id));"
	"CREATE TABLE IF NOT EXISTS bug_members("
	"  bug_id TEXT NOT NULL, frontend TEXT NOT NULL, id TEXT NOT NULL, PRIMARY KEY(frontend, id));";

int db_is_store(const char *path)
{
	char head[16] = "";
	FILE *fp = fopen(path, "rb");
	size_t n = fp ? fread(head, 1, sizeof(head), fp) : 0;

	if (fp)
		fclose(fp);
	return n == sizeof(head) && !memcmp(head, "SQLite format 3", 16);
}

int db_error(struct db *d, struct err *e, const char *what)
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

int db_open(struct db *d, const char *path, int mode, struct err *e)
{
	int flags = mode == DB_READ ? SQLITE_OPEN_READONLY
		  : SQLITE_OPEN_READWRITE | (mode == DB_CREATE ? SQLITE_OPEN_CREATE : 0);
	sqlite3_stmt *st = NULL;
	int tables, ours, r = -1;

	d->path = xstrdup(path);
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
	if (!(st = db_prepare(d, "SELECT value FROM meta WHERE key = 'schema'", e)))
		goto out;
	if (sqlite3_step(st) == SQLITE_ROW) {
		const char *v = (const char *)sqlite3_column_text(st, 0);

		if (strcmp(v, SCHEMA_VERSION)) {
			err_set(e, EXIT_INPUT, "the store '%s' has schema %s; this ferry reads schema %s", path, v,
				SCHEMA_VERSION);
			goto out;
		}
	} else if (mode == DB_READ) {
		err_set(e, EXIT_INPUT, "'%s' is not a ferry results store (it has no schema version)", path);
		goto out;
	} else if (exec(d, "INSERT INTO meta(key, value) VALUES('schema', '" SCHEMA_VERSION "')", e) < 0) {
		goto out;
	}
	r = 0;
out:
	sqlite3_finalize(st);
	if (r < 0) {
		struct err keep = *e;

		db_close(d);
		*e = keep;
	}
	return r;
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
	if (flock(fd, LOCK_EX | LOCK_NB) < 0) {
		if (errno != EWOULDBLOCK) {
			err_errno(e, EXIT_ENV, "cannot lock the store '%s'", d->path);
			goto out;
		}
		/* The holder says who it is; between its lock and its note there is nothing to read. */
		if (sqlite3_prepare_v2(d->h, "SELECT value FROM meta WHERE key = 'writer'", -1, &st, NULL) ==
		    SQLITE_OK &&
		    sqlite3_step(st) == SQLITE_ROW && sqlite3_column_text(st, 0))
			who = xasprintf(" (%s)", (const char *)sqlite3_column_text(st, 0));
		err_set(e, EXIT_ENV, "'%s' is being written by another ferry%s: wait for it to finish, or use "
			"another store", d->path, who ? who : "");
		goto out;
	}
	if (!(st = db_prepare(d, "INSERT OR REPLACE INTO meta(key, value) VALUES('writer', ?1)", e)))
		goto out;
	who = xasprintf("pid %ld, '%s'", (long)getpid(), command ? command : "ferry");
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
	d->has_result = d->put_result = NULL;
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

sqlite3_stmt *db_prepare(struct db *d, const char *sql, struct err *e)
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
	sqlite3_stmt *st = db_prepare(d,
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
	sqlite3_stmt *st = db_prepare(d,
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
	sqlite3_stmt *st = db_prepare(d,
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
		*slot = db_prepare(d, sql, e);
	else {
		sqlite3_reset(*slot);
		sqlite3_clear_bindings(*slot);
	}
	return *slot;
}

int db_has_result(struct db *d, const char *frontend, const char *id, struct err *e)
{
	sqlite3_stmt *st = cached(d, &d->has_result, "SELECT 1 FROM results WHERE frontend = ? AND id = ?", e);
	int rc;

	if (!st)
		return -1;
	bind_text(st, 1, frontend);
	bind_text(st, 2, id);
	rc = sqlite3_step(st);
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
		" detail, max_abs, seconds) VALUES(?,?,?,?,?,?,?,?,?,?,?)", e);
	int rc;

	if (!st)
		return -1;
	bind_text(st, 1, r->frontend);
	bind_text(st, 2, r->id);
	sqlite3_bind_int64(st, 3, r->run_id);
	bind_text(st, 4, r->outcome);
	bind_text(st, 5, r->stage);
	bind_text(st, 6, r->exc_type);
	bind_text(st, 7, r->message);
	bind_text(st, 8, r->frame);
	bind_text(st, 9, r->detail);
	if (isnan(r->max_abs))
		sqlite3_bind_null(st, 10);
	else
		sqlite3_bind_double(st, 10, r->max_abs);
	sqlite3_bind_double(st, 11, r->seconds);
	rc = sqlite3_step(st);
	/* Reset at once: a statement left mid-step would hold the write transaction open. */
	sqlite3_reset(st);
	return rc == SQLITE_DONE ? 0 : db_error(d, e, "cannot write to the store");
}
