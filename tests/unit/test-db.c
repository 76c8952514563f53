/* test-db.c: the results store: creation, instances, results committed one by one, resume
 * semantics, reopening, schema checks. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "db.h"
#include "tap.h"

static long long count(struct db *d, const char *sql)
{
	struct err e = ERR_INIT;
	sqlite3_stmt *st = db_prepare(d, sql, &e);
	long long n = -1;

	if (st && sqlite3_step(st) == SQLITE_ROW)
		n = sqlite3_column_int64(st, 0);
	sqlite3_finalize(st);
	return n;
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

	plan(19);
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
	r.outcome = "crash";
	r.stage = "compile";
	r.exc_type = "Fail";
	r.message = "boom";
	r.max_abs = NAN;
	r.seconds = 0.5;
	is_int(db_has_result(&d, "ort", in.id, &e), 0, "no result before the first");
	ok(db_put_result(&d, &r, &e) == 0, "put a result");
	is_int(db_has_result(&d, "ort", in.id, &e), 1, "the pair has a result");
	is_int(db_has_result(&d, "tvm", in.id, &e), 0, "another frontend's pair has none");

	/* Committed as it is known: another connection sees it before the first closes. */
	ok(db_open(&again, path, 0, &e) == 0 && db_has_result(&again, "ort", in.id, &e) == 1,
	   "a second connection sees the result at once");
	db_close(&again);

	r.outcome = "pass";
	r.stage = NULL;
	r.max_abs = 0.25;
	ok(db_put_result(&d, &r, &e) == 0, "a second result for the pair");
	is_int(count(&d, "SELECT count(*) FROM results"), 1, "replaces the first");
	is_int(count(&d, "SELECT max_abs = 0.25 AND stage IS NULL FROM results"), 1, "with its own fields");
	ok(db_finish_run(&d, run, "1.31.1", &e) == 0 &&
	   count(&d, "SELECT count(*) FROM runs WHERE frontend_version = '1.31.1' AND finished IS NOT NULL") == 1,
	   "finishing a run records the frontend's version");
	db_close(&d);
	record_release(&in);

	/* A store of another schema is refused, by name. */
	ok(db_open(&d, path, 0, &e) == 0 && sqlite3_exec(d.h, "UPDATE meta SET value = '99' WHERE key = 'schema'",
							     NULL, NULL, NULL) == SQLITE_OK, "pretend a future schema");
	db_close(&d);
	snprintf(text, sizeof(text), "the store '%s' has schema 99; this ferry reads schema 1", path);
	ok(db_open(&d, path, 0, &e) < 0 && !strcmp(e.msg, text), "a store of another schema is refused by name");
	err_release(&e);

	unlink(path);
	snprintf(text, sizeof(text), "%s/results.db-wal", dir);
	unlink(text);
	snprintf(text, sizeof(text), "%s/results.db-shm", dir);
	unlink(text);
	rmdir(dir);
	return done();
}
