/* test-db.c: the results store: creation, instances, results committed one by one, resume
 * semantics, reopening, schema checks, and the migration of a store of schema 1 (made by the ferry
 * of before results kept their tolerance: tests/data/stores/schema1.db), and the probes of what a
 * frontend supports, per release (the support table), and ferry reduce's reductions (schema 4), and
 * every column a query maps back into its field. The test reads the store
 * with SQL of its own, as an outsider checking what the store module wrote. */
#include <fcntl.h>
#include <math.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/wait.h>
#include <unistd.h>

#include <sqlite3.h>

#include "buf.h"
#include "db.h"
#include "fsutil.h"
#include "tap.h"
#include "xalloc.h"

static long long count(struct db *d, const char *sql)
{
	sqlite3_stmt *st = NULL;
	long long n = -1;

	if (sqlite3_prepare_v2(d->h, sql, -1, &st, NULL) == SQLITE_OK && sqlite3_step(st) == SQLITE_ROW)
		n = sqlite3_column_int64(st, 0);
	sqlite3_finalize(st);
	return n;
}

static int first_reduction(void *ctx, const struct db_reduction *r, struct err *e)
{
	(void)e;
	snprintf(ctx, 64, "%s %lld %lld %lld %s", r->status, r->nodes_before, r->nodes_after, r->candidates,
		 r->ops ? r->ops : "-");
	return 0;
}

/* A process that holds the store's lock for ms milliseconds (as a child a killed writer forked
 * holds it until it execs); returns its pid once it holds it. */
static pid_t hold_lock(const char *path, int ms)
{
	int p[2];
	char c;
	pid_t pid;

	if (pipe(p) < 0)
		return -1;
	pid = fork();
	if (pid == 0) {
		int fd = open(path, O_RDONLY);

		if (fd < 0 || flock(fd, LOCK_EX) < 0 || write(p[1], "x", 1) != 1)
			_exit(1);
		usleep((useconds_t)ms * 1000);
		_exit(0);
	}
	close(p[1]);
	if (pid < 0 || read(p[0], &c, 1) != 1)
		pid = -1;
	close(p[0]);
	return pid;
}

/* Note a writer in the store as db_lock does: "pid N, 'command'". */
static void note_writer(const char *path, long pid)
{
	sqlite3 *h = NULL;
	char *sql = xasprintf("INSERT OR REPLACE INTO meta(key, value) VALUES('writer', 'pid %ld, ''ferry run''')", pid);

	sqlite3_open(path, &h);
	sqlite3_exec(h, sql, NULL, NULL, NULL);
	sqlite3_close(h);
	free(sql);
}

/* One writer: a live one's lock refuses a second at once, naming it; the lock a writer that has
 * ended leaves in a child of its for a moment is waited for. */
static void test_lock(const char *path)
{
	struct db d = DB_INIT;
	struct err e = ERR_INIT;
	pid_t holder, dead;
	int ws;

	holder = hold_lock(path, 5000);
	note_writer(path, (long)holder);
	ok(db_open(&d, path, DB_WRITE, &e) == 0 && db_lock(&d, "ferry run", &e) < 0 && e.code == EXIT_ENV &&
	   strstr(e.msg, "being written by another ferry (pid "), "a live writer's lock is refused: %s", e.msg);
	err_release(&e);
	db_close(&d);
	kill(holder, SIGKILL);
	waitpid(holder, &ws, 0);

	dead = fork();
	if (dead == 0)
		_exit(0);
	waitpid(dead, &ws, 0);
	holder = hold_lock(path, 300);
	note_writer(path, (long)dead);
	ok(holder > 0 && db_open(&d, path, DB_WRITE, &e) == 0 && db_lock(&d, "ferry run", &e) == 0,
	   "the lock of a writer that has ended, held a moment longer by another process, is waited for%s",
	   e.msg);
	err_release(&e);
	db_close(&d);
	waitpid(holder, &ws, 0);
}

/* The schema the file says it has, read without the store module. */
static long long count_schema(const char *path)
{
	sqlite3 *h = NULL;
	sqlite3_stmt *st = NULL;
	long long v = -1;

	if (sqlite3_open_v2(path, &h, SQLITE_OPEN_READONLY, NULL) == SQLITE_OK &&
	    sqlite3_prepare_v2(h, "SELECT value FROM meta WHERE key = 'schema'", -1, &st, NULL) == SQLITE_OK &&
	    sqlite3_step(st) == SQLITE_ROW)
		v = sqlite3_column_int64(st, 0);
	sqlite3_finalize(st);
	sqlite3_close(h);
	return v;
}

static int count_row(void *ctx, const struct db_row *row, struct err *e)
{
	long long *n = ctx;

	(void)row;
	(void)e;
	(*n)++;
	return 0;
}

/* The release of the first row. */
static int first_version(void *ctx, const struct db_row *row, struct err *e)
{
	char *v = ctx;

	(void)e;
	if (!*v)
		snprintf(v, 32, "%s", row->frontend_version ? row->frontend_version : "(null)");
	return 0;
}

static int first_tolerance(void *ctx, const struct db_row *row, struct err *e)
{
	double *tol = ctx;

	(void)e;
	tol[0] = row->atol;
	tol[1] = row->rtol;
	return 0;
}

static int first_support(void *ctx, const struct db_support *s, struct err *e)
{
	char **seen = ctx;

	(void)e;
	if (!*seen)
		*seen = xasprintf("%s %s %s %s", s->op, s->dtype, s->outcome, s->stage ? s->stage : "-");
	return 0;
}

/* Copy the golden store of schema 1 to path. */
static int copy_golden(const char *path)
{
	struct buf data = BUF_INIT;
	struct err e = ERR_INIT;
	int r = fs_read(ABS_TOP_SRCDIR "/tests/data/stores/schema1.db", &data, &e) == 0 &&
		fs_write_atomic(path, data.data, data.len, &e) == 0 ? 0 : -1;

	if (r < 0)
		printf("# %s\n", e.msg);
	err_release(&e);
	buf_release(&data);
	return r;
}

/* The first mutation row's status, reduced nodes and target op, as "STATUS NODES KIND:OP". */
static int first_mutation(void *ctx, const struct db_mutation *m, struct err *e)
{
	(void)e;
	snprintf(ctx, 128, "%s %lld %s:%s", m->status, m->reduced_nodes, m->kind ? m->kind : "-",
		 m->target_op ? m->target_op : "-");
	return 0;
}

/* The metamorphic oracle's part of the store: one oracle per store, a test's mutations and their
 * reduction, which names the minimal mutation in the inconsistent result's frame. */
static void metamorphic(const char *dir)
{
	char path[256], seen[128] = "";
	struct db d = DB_INIT;
	struct err e = ERR_INIT;
	struct db_result r;
	struct db_mutation m;

	snprintf(path, sizeof(path), "%s/meta.db", dir);
	ok(db_open(&d, path, DB_CREATE, &e) == 0 && db_check_oracle(&d, "reference", &e) == 0 &&
	   count(&d, "SELECT count(*) FROM meta WHERE key = 'oracle'") == 0,
	   "a new store takes the reference oracle, and says nothing of it");
	ok(db_check_oracle(&d, "metamorphic", &e) == 0 && db_check_oracle(&d, "metamorphic", &e) == 0,
	   "or the metamorphic one, again and again");
	ok(db_check_oracle(&d, "reference", &e) < 0 && e.code == EXIT_USAGE && strstr(e.msg, "metamorphic oracle's"),
	   "then the reference is refused: %s", e.msg);
	err_release(&e);
	memset(&r, 0, sizeof(r));
	r.frontend = "ort";
	r.id = "abc";
	r.outcome = OUTCOME_INCONSISTENT;
	r.frame = "uoc:Add (inserted)";
	r.max_abs = r.atol = r.rtol = NAN;
	memset(&m, 0, sizeof(m));
	m.frontend = "ort";
	m.id = "abc";
	m.seed = 7;
	m.k = 3;
	m.chain = "[]";
	m.status = "pending";
	m.nodes = 30;
	m.original_nodes = 1;
	m.reduced_nodes = -1;
	ok(db_put_result(&d, &r, &e) == 0 && db_put_mutation(&d, &m, &e) == 0, "an inconsistency and its mutations");
	ok(db_mutation(&d, "ort", "abc", first_mutation, seen, &e) == 1 && !strcmp(seen, "pending -1 -:-"),
	   "read back, waiting for its reduction (%s)", seen);
	m.status = "reduced";
	m.reduced_nodes = 12;
	m.kind = "pioc";
	m.target_op = "Conv";
	ok(db_put_mutation_reduction(&d, &m, &e) == 0 && db_mutation(&d, "ort", "abc", first_mutation, seen, &e) == 1 &&
	   !strcmp(seen, "reduced 12 pioc:Conv"), "its reduction (%s)", seen);
	is_int(count(&d, "SELECT count(*) FROM results WHERE frame = 'pioc:Conv'"), 1,
	       "names the minimal mutation in the result's frame, which groups it");
	is_int(db_mutation(&d, "ort", "nope", first_mutation, seen, &e), 0, "a test without mutations has none");
	db_close(&d);
	unlink(path);
	snprintf(path, sizeof(path), "%s/meta.db-wal", dir);
	unlink(path);
	snprintf(path, sizeof(path), "%s/meta.db-shm", dir);
	unlink(path);
}

/* Each query's rows as text, one "|"-separated line per row, appended to a buffer. */
static void add_field(struct buf *b, const char *s)
{
	buf_addf(b, "%s|", s ? s : "NULL");
}

static int row_text(void *ctx, const struct db_row *r, struct err *e)
{
	struct buf *b = ctx;
	const char *texts[] = { r->frontend, r->id, r->outcome, r->op, r->library, r->record, r->dir, r->stage,
				r->exc_type, r->message, r->frame, r->detail, r->frontend_version };

	for (size_t i = 0; i < sizeof(texts) / sizeof(texts[0]); i++)
		add_field(b, texts[i]);
	buf_addf(b, "%g|%g|%g|%g\n", r->max_abs, r->seconds, r->atol, r->rtol);
	return 0;
}

static int bug_text(void *ctx, const struct db_bug *g, const struct db_row *rep, struct err *e)
{
	struct buf *b = ctx;
	const char *texts[] = { g->bug_id, g->frontend, g->outcome, g->stage, g->signature, g->representative, g->ops,
				g->message };

	for (size_t i = 0; i < sizeof(texts) / sizeof(texts[0]); i++)
		add_field(b, texts[i]);
	buf_addf(b, "%lld|", g->members);
	return row_text(ctx, rep, e);
}

static int mutation_text(void *ctx, const struct db_mutation *m, struct err *e)
{
	buf_addf(ctx, "%s|%s|%lld|%lld|%s|%s|%lld|%lld|%s|%s|%lld|%s|%s|%s|%s|%s\n", m->frontend, m->id, m->seed, m->k,
		 m->chain, m->stats, m->nodes, m->original_nodes, m->status, m->reduced ? m->reduced : "NULL",
		 m->reduced_nodes, m->model ? m->model : "NULL", m->outputs ? m->outputs : "NULL", m->kind,
		 m->target_op, m->message ? m->message : "NULL");
	return 0;
}

static int op_text(void *ctx, const struct db_op_failures *f, struct err *e)
{
	buf_addf(ctx, "%s|%lld|%lld|%lld|%lld|%lld\n", f->op, f->tests, f->mismatch, f->crash, f->timeout_oom,
		 f->failed);
	return 0;
}

/* Every column a query reads comes back in its own field, as it was written: text, NULL, whole
 * numbers, reals, a NaN as NULL and a count of -1 as none (the store's column maps). */
static void round_trip(const char *dir)
{
	char path[256];
	struct db d = DB_INIT;
	struct err e = ERR_INIT;
	struct buf got = BUF_INIT;
	struct instance in;
	struct db_result r;
	struct db_summary s;
	struct db_mutation m = { .frontend = "ort", .id = "b1", .seed = 7, .k = 3, .chain = "[1]", .stats = "{}",
				 .nodes = -1, .original_nodes = 4, .kind = "pioc", .target_op = "Conv" };
	char *ids[] = { "b1" };
	struct db_bug bug = { "0123456789ab", "ort", "crash", "load", "sig", "b1", "Relu", "boom", 1, ids, 1 };

	snprintf(path, sizeof(path), "%s/round.db", dir);
	memset(&in, 0, sizeof(in));
	in.library = "onnx";
	in.op = "Relu";
	ok(db_open(&d, path, DB_CREATE, &e) == 0, "a store for the round trip");
	strcpy(in.id, "b1");
	db_put_instance(&d, &in, "{\"b\":1}", "ok", NULL, 1, "/t/b1", &e);
	strcpy(in.id, "b2");
	in.op = "Conv";
	db_put_instance(&d, &in, "{\"b\":2}", "invalid", "why", 0, NULL, &e);
	memset(&r, 0, sizeof(r));
	r.frontend = "ort";
	r.id = "b1";
	r.run_id = 1;
	r.outcome = OUTCOME_CRASH;
	r.stage = "load";
	r.exc_type = "SIGSEGV";
	r.message = "boom";
	r.frame = "a.py:f";
	r.detail = "trace";
	r.max_abs = NAN;
	r.seconds = 0.5;
	r.atol = 0.25;
	r.rtol = NAN;
	r.frontend_version = "1.2";
	ok(db_put_result(&d, &r, &e) == 0, "a result with every field");
	memset(&r, 0, sizeof(r));
	r.frontend = "ort";
	r.id = "b2";
	r.outcome = OUTCOME_MISMATCH;
	r.max_abs = 3.5;
	r.seconds = 1;
	r.atol = r.rtol = NAN;
	ok(db_put_result(&d, &r, &e) == 0, "and one with most of them NULL");
	is_int(count(&d, "SELECT count(*) FROM results WHERE batch IS NULL"), 2, "both ran alone: no batch");
	r.id = "b3";
	r.outcome = OUTCOME_PASS;
	r.batch = 8;
	ok(db_put_result(&d, &r, &e) == 0 && count(&d, "SELECT batch FROM results WHERE id = 'b3'") == 8,
	   "a pass of a batch keeps the batch's size");
	ok(sqlite3_exec(d.h, "DELETE FROM results WHERE id = 'b3'", NULL, NULL, NULL) == SQLITE_OK, "(gone again)");
	db_results_with(&d, NULL, NULL, row_text, &got, &e);
	is(got.data, "ort|b1|crash|Relu|onnx|{\"b\":1}|/t/b1|load|SIGSEGV|boom|a.py:f|trace|1.2|nan|0.5|0.25|nan\n"
	   "ort|b2|mismatch|Conv|onnx|{\"b\":2}|NULL|NULL|NULL|NULL|NULL|NULL|NULL|3.5|1|nan|nan\n",
	   "the results read back field by field");
	buf_reset(&got);
	ok(db_summary(&d, &s, &e) == 0 && s.instances == 2 && s.valid == 1 && s.invalid == 1 && s.random == 1 &&
	   s.ops == 2 && s.results == 2 && s.tested == 2, "the summary counts each in its field");
	db_failing_ops(&d, "ort", 10, op_text, &got, &e);
	is(got.data, "Conv|1|1|0|0|1\nRelu|1|0|1|0|1\n", "the failing operators, each count in its field");
	buf_reset(&got);
	ok(db_bugs_replace(&d, "ort", &bug, 1, &e) == 0, "a bug");
	db_bugs_by_prefix(&d, "0123", bug_text, &got, &e);
	is(got.data, "0123456789ab|ort|crash|load|sig|b1|Relu|boom|1|"
	   "ort|b1|crash|Relu|onnx|{\"b\":1}|/t/b1|load|SIGSEGV|boom|a.py:f|trace|1.2|nan|0.5|0.25|nan\n",
	   "read back with its representative's result after its own columns");
	buf_reset(&got);
	ok(db_put_mutation(&d, &m, &e) == 0, "a mutation whose nodes are not known");
	db_mutations(&d, NULL, mutation_text, &got, &e);
	is(got.data, "ort|b1|7|3|[1]|{}|-1|4|none|NULL|-1|NULL|NULL|pioc|Conv|NULL\n",
	   "read back with -1 for the counts not known");
	buf_release(&got);
	db_close(&d);
	unlink(path);
	snprintf(path, sizeof(path), "%s/round.db-wal", dir);
	unlink(path);
	snprintf(path, sizeof(path), "%s/round.db-shm", dir);
	unlink(path);
}

int main(void)
{
	char dir[] = "/tmp/ferry-test-db-XXXXXX";
	char path[256], text[512];
	struct db d = DB_INIT, again = DB_INIT;
	struct err e = ERR_INIT;
	struct instance in;
	struct db_result r;
	long long run = 0;
	const char *rec = "{\"op\":\"Relu\",\"library\":\"onnx\"}";

	plan(82);
	if (!mkdtemp(dir))
		return 1;
	snprintf(path, sizeof(path), "%s/results.db", dir);

	ok(db_open(&d, path, 0, &e) < 0 && e.code == EXIT_INPUT, "a missing store is not created without asking");
	err_release(&e);
	ok(db_open(&d, path, 1, &e) == 0, "create a store");
	ok(db_is_store(path), "it is recognised as a store by its header");
	ok(record_parse(&in, rec, strlen(rec), &e) == 0, "an instance");
	ok(db_put_instance(&d, &in, rec, "ok", NULL, 0, "/tmp/t", &e) == 0, "record it");
	ok(db_put_instance(&d, &in, rec, "ok", NULL, 0, "/tmp/t", &e) == 0, "record it again");
	is_int(count(&d, "SELECT count(*) FROM instances"), 1, "one instance, however often recorded");
	ok(db_start_run(&d, "ort", NULL, "ferry run", &run, &e) == 0 && run > 0, "start a run");

	memset(&r, 0, sizeof(r));
	r.frontend = "ort";
	r.id = in.id;
	r.run_id = run;
	r.outcome = OUTCOME_CRASH;
	r.stage = "compile";
	r.exc_type = "Fail";
	r.message = "boom";
	r.max_abs = NAN;
	r.seconds = 0.5;
	r.atol = 0.25;
	r.rtol = 1e-5;
	is_int(db_has_result(&d, "ort", in.id, &e), 0, "no result before the first");
	ok(db_put_result(&d, &r, &e) == 0, "put a result");
	is_int(db_has_result(&d, "ort", in.id, &e), 1, "the pair has a result");
	is_int(db_has_result(&d, "tvm", in.id, &e), 0, "another frontend's pair has none");

	/* Committed as it is known: another connection sees it before the first closes. */
	ok(db_open(&again, path, 0, &e) == 0 && db_has_result(&again, "ort", in.id, &e) == 1,
	   "a second connection sees the result at once");
	db_close(&again);

	is_int(count(&d, "SELECT atol = 0.25 AND rtol = 1e-5 FROM results"), 1, "a result keeps the tolerance that judged it");
	/* ferry's own error is kept, but does not count as a result: the run command run again retries
	 * it, and it is a failure yet never a bug of the frontend. */
	r.outcome = OUTCOME_ERROR;
	ok(db_put_result(&d, &r, &e) == 0, "an error replaces the crash");
	is_int(db_has_result(&d, "ort", in.id, &e), 0, "an errored pair has no result: a run retries it");
	{
		long long n = 0, nb = 0;

		ok(db_failures(&d, "ort", DB_BY_ID, count_row, &n, &e) == 0 && n == 1 &&
		   db_bug_failures(&d, "ort", DB_BY_ID, count_row, &nb, &e) == 0 && nb == 0,
		   "the error is a failure (%lld) but not a possible bug (%lld)", n, nb);
	}
	r.outcome = OUTCOME_PASS;
	r.stage = NULL;
	r.max_abs = 0.25;
	ok(db_put_result(&d, &r, &e) == 0, "a second result for the pair");
	is_int(count(&d, "SELECT count(*) FROM results"), 1, "replaces the first");
	is_int(count(&d, "SELECT max_abs = 0.25 AND stage IS NULL FROM results"), 1, "with its own fields");
	ok(db_finish_run(&d, run, "1.31.1", &e) == 0 &&
	   count(&d, "SELECT count(*) FROM runs WHERE frontend_version = '1.31.1' AND finished IS NOT NULL") == 1,
	   "finishing a run records the frontend's version");

	/* Probes, per frontend release and (operator, dtype) group. */
	{
		struct db_support sup = { "ort", "1.31.1", "Relu", "float32", in.id, "pass", NULL, NULL };
		char *seen = NULL;

		is_int(db_support_rows(&d, "ort", "1.31.1", "Relu", "float32", NULL, NULL, &e), 0, "no probe yet");
		ok(db_put_support(&d, &sup, &e) == 0, "record a probe");
		is_int(db_support_rows(&d, "ort", "1.31.1", "Relu", "float32", NULL, NULL, &e), 1, "the group has it");
		is_int(db_support_rows(&d, "ort", "1.32.0", "Relu", "float32", NULL, NULL, &e), 0,
		       "another release has not: it probes again");
		is_int(db_support_rows(&d, "tvm", "1.31.1", NULL, NULL, NULL, NULL, &e), 0, "nor another frontend");
		is_int(db_support_rows(&d, "ort", "1.31.1", "Relu", "int8", NULL, NULL, &e), 0, "nor another dtype");
		sup.outcome = "unsupported";
		sup.stage = "compile";
		sup.message = "no kernel for Relu(int8)";
		sup.dtype = "int8";
		ok(db_put_support(&d, &sup, &e) == 0, "a second group");
		sup.version = NULL;
		ok(db_put_support(&d, &sup, &e) == 0 &&
		   db_support_rows(&d, "ort", NULL, NULL, NULL, NULL, NULL, &e) == 1,
		   "a release that said no version is its own (\"\")");
		ok(db_put_support(&d, &sup, &e) == 0 && count(&d, "SELECT count(*) FROM support") == 3,
		   "the same probe again replaces it");
		ok(db_support_rows(&d, "ort", "1.31.1", NULL, NULL, first_support, &seen, &e) == 2 && seen &&
		   !strcmp(seen, "Relu float32 pass -"), "read back by operator and dtype (first: %s)", seen);
		free(seen);
	}
	db_close(&d);
	record_release(&in);

	/* A store of another schema is refused, by name. */
	ok(db_open(&d, path, 0, &e) == 0 && sqlite3_exec(d.h, "UPDATE meta SET value = '99' WHERE key = 'schema'",
							     NULL, NULL, NULL) == SQLITE_OK, "pretend a future schema");
	db_close(&d);
	snprintf(text, sizeof(text), "the store '%s' has schema 99, newer than this ferry reads (1 to 7): it was "
		 "made by a newer ferry", path);
	ok(db_open(&d, path, 0, &e) < 0 && e.code == EXIT_INPUT && !strcmp(e.msg, text),
	   "a store of a newer schema is refused by name, as bad input");
	err_release(&e);
	ok(db_open(&d, path, DB_READ, &e) < 0 && e.code == EXIT_INPUT, "read-only too");
	err_release(&e);
	unlink(path);

	/* A store of schema 1, read as it is: its results have no tolerance. */
	ok(copy_golden(path) == 0, "a store of schema 1 (made by the ferry of before)");
	ok(db_open(&d, path, DB_READ, &e) == 0 && d.schema == 1, "opens read-only, unchanged: %s", e.msg);
	is_int(db_support_rows(&d, "fault", NULL, NULL, NULL, NULL, NULL, &e), 0,
	       "read-only, a store made before probes has none");
	{
		long long n = 0;
		double tol[2] = { 0, 0 };
		int rc = db_failures(&d, NULL, DB_BY_ID, count_row, &n, &e);

		ok(rc == 0 && n == 3, "its failures: mismatch and crashes, not the undefined one (%lld)", n);
		ok(db_failures(&d, "fault", DB_BY_ID, first_tolerance, tol, &e) == 0 && isnan(tol[0]) && isnan(tol[1]),
		   "read-only, its results have no tolerance");
	}
	{
		char v[32] = "";

		ok(db_results_with(&d, "ort", "pass", first_version, v, &e) == 0 && !strcmp(v, "1.31.1"),
		   "read-only, its results have their run's frontend version (%s)", v);
	}
	is_int(db_reductions(&d, NULL, NULL, NULL, NULL, &e), 0, "read-only, a store made before reductions has none");
	db_close(&d);
	is_int(count_schema(path), 1, "reading left it at schema 1");
	ok(db_open(&d, path, DB_READ, &e) == 0 && db_mutation(&d, "ort", in.id, NULL, NULL, &e) == 0,
	   "read-only, a store made before the metamorphic oracle has no mutations");
	db_close(&d);

	/* Opened for writing, it is migrated. */
	ok(db_open(&d, path, DB_WRITE, &e) == 0 && d.schema == 7, "opened for writing, it migrates to schema 7");
	is_int(count(&d, "SELECT count(*) FROM results WHERE atol IS NULL AND rtol IS NULL"), 14,
	       "old results get no tolerance");
	is_int(count(&d, "SELECT count(*) FROM results WHERE frontend = 'ort' AND frontend_version = '1.31.1'"), 7,
	       "old results get their run's frontend version");
	is_int(count(&d, "SELECT count(*) FROM results WHERE batch IS NULL"), 14,
	       "old results gain the batch column, empty: they ran alone");
	{
		double tol[2] = { 0, 0 };

		ok(db_failures(&d, "fault", DB_BY_ID, first_tolerance, tol, &e) == 0 && isnan(tol[0]),
		   "and read as none");
	}
	db_close(&d);
	is_int(count_schema(path), 7, "the file says schema 7");
	ok(db_open(&d, path, DB_READ, &e) == 0 && d.schema == 7, "and opens as such");
	is_int(db_mutation(&d, "ort", in.id, NULL, NULL, &e), 0, "with no mutations");
	db_close(&d);
	metamorphic(dir);
	round_trip(dir);

	/* A store of schema 3 (no reductions table) gains it when opened for writing. */
	ok(db_open(&d, path, DB_WRITE, &e) == 0 && sqlite3_exec(d.h, "DROP TABLE reductions; UPDATE meta SET value = '3'"
							     " WHERE key = 'schema'", NULL, NULL, NULL) == SQLITE_OK,
	   "a store of schema 3, as the ferry before reductions left it");
	db_close(&d);
	ok(db_open(&d, path, DB_READ, &e) == 0 && d.schema == 3 && db_reductions(&d, NULL, NULL, NULL, NULL, &e) == 0,
	   "read-only, it stays schema 3 and has no reductions");
	db_close(&d);
	ok(db_open(&d, path, DB_WRITE, &e) == 0 && d.schema == 7, "opened for writing, it migrates to schema 7");
	{
		struct db_reduction r = { "ort", "abc", "reduced", "/x/abc", 7, 2, 9, "MaxPool,Relu", "1.0" };
		char got[64] = "";

		ok(db_put_reduction(&d, &r, &e) == 0, "a reduction is recorded: %s", e.msg);
		r.nodes_after = 1;
		r.ops = "Relu";
		ok(db_put_reduction(&d, &r, &e) == 0, "and replaced");
		ok(db_reductions(&d, "ort", "abc", first_reduction, got, &e) == 1 && !strcmp(got, "reduced 7 1 9 Relu"),
		   "read back (%s)", got);
		is_int(db_reductions(&d, "tvm-onnx", NULL, NULL, NULL, &e), 0, "none for another frontend");
	}
	db_close(&d);
	is_int(count_schema(path), 7, "the file says schema 7");
	test_lock(path);

	unlink(path);
	snprintf(text, sizeof(text), "%s/results.db-wal", dir);
	unlink(text);
	snprintf(text, sizeof(text), "%s/results.db-shm", dir);
	unlink(text);
	rmdir(dir);
	return done();
}
