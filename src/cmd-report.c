/* cmd-report.c: ferry report STORE [-o DIR]
 *
 * Summarises a results store on the terminal: outcomes per frontend, the operators with failures,
 * and the failures themselves. With -o, writes one standalone reproducer script per failure (made by
 * the source library's template: it needs only the library and the compiler, not ferry). */
#include "py.h"

#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cmd.h"
#include "db.h"
#include "esc.h"
#include "fsutil.h"
#include "xalloc.h"

static const char usage[] =
	"usage: ferry report STORE [-o DIR] [options]\n"
	"\n"
	"Summarise the results in STORE: outcomes per frontend, operators with failures, failures.\n"
	"\n"
	"Options:\n"
	"  -o, --output DIR     also write a standalone reproducer script per failure into DIR\n"
	"  -F, --frontend NAME  only this frontend\n"
	"  -a, --all            list every failure (default: the first 40 per frontend)\n";

#define FAILURES_SHOWN 40
#define FAILED "outcome NOT IN ('pass', 'unsupported')"

struct report {
	struct db db;
	const char *frontend;   /* NULL: all */
	int all;
};

static const char *col(sqlite3_stmt *st, int i)
{
	const unsigned char *s = sqlite3_column_text(st, i);

	return s ? (const char *)s : "";
}

/* Bind the frontend filter (?1) when the statement has one. */
static sqlite3_stmt *query(struct report *r, const char *sql, struct err *e)
{
	sqlite3_stmt *st = db_prepare(&r->db, sql, e);

	if (st && sqlite3_bind_parameter_count(st) >= 1) {
		if (r->frontend)
			sqlite3_bind_text(st, 1, r->frontend, -1, SQLITE_STATIC);
		else
			sqlite3_bind_null(st, 1);
	}
	return st;
}

static int print_instances(struct report *r, struct err *e)
{
	sqlite3_stmt *st = query(r,
		"SELECT count(*), sum(status = 'ok'), sum(status != 'ok'), sum(random), count(DISTINCT op)"
		" FROM instances", e);

	if (!st)
		return -1;
	if (sqlite3_step(st) == SQLITE_ROW)
		printf("store %s: %lld instances of %lld operators (%lld valid, %lld invalid, %lld with random outputs)\n",
		       esc_str(r->db.path), sqlite3_column_int64(st, 0), sqlite3_column_int64(st, 4),
		       sqlite3_column_int64(st, 1), sqlite3_column_int64(st, 2), sqlite3_column_int64(st, 3));
	sqlite3_finalize(st);
	return 0;
}

static int print_frontend(struct report *r, const char *fe, struct err *e)
{
	sqlite3_stmt *st;
	long long shown = 0, total = 0;

	/* Outcomes. */
	st = db_prepare(&r->db,
		"SELECT outcome, count(*) FROM results WHERE frontend = ?1 GROUP BY outcome"
		" ORDER BY CASE outcome WHEN 'pass' THEN 0 WHEN 'mismatch' THEN 1 WHEN 'crash' THEN 2"
		" WHEN 'timeout' THEN 3 WHEN 'oom' THEN 4 WHEN 'unsupported' THEN 5 ELSE 6 END", e);
	if (!st)
		return -1;
	sqlite3_bind_text(st, 1, fe, -1, SQLITE_STATIC);
	printf("\nfrontend %s", esc_str(fe));
	{
		sqlite3_stmt *v = db_prepare(&r->db,
			"SELECT frontend_version FROM runs WHERE frontend = ?1 AND frontend_version IS NOT NULL"
			" ORDER BY run_id DESC LIMIT 1", e);

		if (v) {
			sqlite3_bind_text(v, 1, fe, -1, SQLITE_STATIC);
			if (sqlite3_step(v) == SQLITE_ROW)
				printf(" (%s)", esc_str(col(v, 0)));
			sqlite3_finalize(v);
		}
	}
	printf(":\n");
	while (sqlite3_step(st) == SQLITE_ROW) {
		printf("  %-12s %6lld\n", esc_str(col(st, 0)), sqlite3_column_int64(st, 1));
		total += sqlite3_column_int64(st, 1);
	}
	printf("  %-12s %6lld\n", "total", total);
	sqlite3_finalize(st);

	/* Operators with failures. */
	st = db_prepare(&r->db,
		"SELECT i.op, count(*), sum(outcome = 'mismatch'), sum(outcome = 'crash'),"
		" sum(outcome IN ('timeout', 'oom')), sum(" FAILED ") AS failed"
		" FROM results r JOIN instances i USING(id) WHERE r.frontend = ?1"
		" GROUP BY i.op HAVING failed > 0 ORDER BY failed DESC, i.op LIMIT 25", e);
	if (!st)
		return -1;
	sqlite3_bind_text(st, 1, fe, -1, SQLITE_STATIC);
	if (sqlite3_step(st) == SQLITE_ROW) {
		printf("\n  operators with failures    tests  mismatch  crash  timeout/oom\n");
		do {
			printf("  %-24s %7lld %9lld %6lld %12lld\n", esc_str(col(st, 0)), sqlite3_column_int64(st, 1),
			       sqlite3_column_int64(st, 2), sqlite3_column_int64(st, 3), sqlite3_column_int64(st, 4));
		} while (sqlite3_step(st) == SQLITE_ROW);
	}
	sqlite3_finalize(st);

	/* The failures. */
	st = db_prepare(&r->db,
		"SELECT r.outcome, i.op, r.id, coalesce(r.stage, ''), coalesce(r.exc_type, ''),"
		" replace(coalesce(r.message, ''), char(10), ' ')"
		" FROM results r JOIN instances i USING(id) WHERE r.frontend = ?1 AND r." FAILED
		" ORDER BY r.outcome, i.op, r.id", e);
	if (!st)
		return -1;
	sqlite3_bind_text(st, 1, fe, -1, SQLITE_STATIC);
	while (sqlite3_step(st) == SQLITE_ROW) {
		const char *stage = col(st, 3);

		if (!shown)
			printf("\n  failures:\n");
		if (!r->all && shown >= FAILURES_SHOWN) {
			shown++;
			continue;
		}
		printf("  %-9s %-20s %.12s  %s%s%s%.150s\n", esc_str(col(st, 0)), esc_str(col(st, 1)),
		       esc_str(col(st, 2)), *stage ? "[" : "", esc_str(stage), *stage ? "] " : "", esc_str(col(st, 5)));
		shown++;
	}
	if (!r->all && shown > FAILURES_SHOWN)
		printf("  ... and %lld more (ferry report --all)\n", shown - FAILURES_SHOWN);
	sqlite3_finalize(st);
	return 0;
}

/* Write a reproducer per failure: ferry.templates.LIBRARY.reproducer(record, testdir, frontend). */
static int write_reproducers(struct report *r, const char *outdir, struct err *e)
{
	sqlite3_stmt *st = query(r,
		"SELECT r.frontend, i.library, i.op, r.id, i.record, coalesce(i.dir, '')"
		" FROM results r JOIN instances i USING(id) WHERE (?1 IS NULL OR r.frontend = ?1) AND r." FAILED
		" ORDER BY r.frontend, i.op, r.id", e);
	size_t written = 0, failed = 0;
	int ret = -1;

	if (!st)
		return -1;
	if (py_start(cmd_python(), 1, e) < 0)
		goto out;
	while (sqlite3_step(st) == SQLITE_ROW) {
		const char *fe = col(st, 0), *lib = col(st, 1), *op = col(st, 2), *id = col(st, 3);
		const char *args[] = { col(st, 4), col(st, 5), fe };
		struct err pe = ERR_INIT;
		char module[80], *script, *dir, *path, *safe_op;
		int bad;

		if (py_template_module(lib, module, sizeof(module), &pe) < 0
		    || !(script = py_call_strings(module, "reproducer", args, 3, "cannot make a reproducer", &pe))) {
			cmd_warn("%s %s: %s", op, id, pe.msg);
			err_release(&pe);
			failed++;
			continue;
		}
		safe_op = xstrdup(op);
		for (char *c = safe_op; *c; c++)
			if (*c == '/' || *c == ' ')
				*c = '_';
		dir = xasprintf("%s/%s", outdir, fe);
		path = xasprintf("%s/%s-%.12s.py", dir, safe_op, id);
		bad = fs_mkdirs(dir, e) < 0 || fs_write_atomic(path, script, strlen(script), e) < 0;
		free(dir);
		free(path);
		free(safe_op);
		free(script);
		if (bad)
			goto out;
		written++;
	}
	printf("\nreproducers: %zu written to %s/FRONTEND/OP-ID.py%s\n", written, esc_str(outdir),
	       failed ? " (some could not be made; see the warnings)" : "");
	ret = 0;
out:
	sqlite3_finalize(st);
	return ret;
}

static int cmd_report(int argc, char **argv)
{
	static const struct option longopts[] = {
		{ "output", required_argument, NULL, 'o' },
		{ "frontend", required_argument, NULL, 'F' },
		{ "all", no_argument, NULL, 'a' },
		{ NULL, 0, NULL, 0 },
	};
	struct report r;
	struct err e = ERR_INIT;
	sqlite3_stmt *st = NULL;
	const char *outdir = NULL;
	int opt, code = EXIT_OK, any = 0;

	memset(&r, 0, sizeof(r));
	while ((opt = getopt_long(argc, argv, "o:F:a", longopts, NULL)) != -1) {
		switch (opt) {
		case 'o': outdir = optarg; break;
		case 'F': r.frontend = optarg; break;
		case 'a': r.all = 1; break;
		default: return cmd_usage_error(&cmd_report_entry, "bad option");
		}
	}
	if (optind + 1 != argc)
		return cmd_usage_error(&cmd_report_entry, "report takes one STORE");
	if (!fs_exists(argv[optind])) {
		err_set(&e, EXIT_INPUT, "cannot open the store '%s': No such file or directory", argv[optind]);
		return cmd_error(&e);
	}
	if (db_open(&r.db, argv[optind], DB_READ, &e) < 0 || print_instances(&r, &e) < 0)
		goto fail;
	if (!(st = query(&r, "SELECT DISTINCT frontend FROM results WHERE ?1 IS NULL OR frontend = ?1 ORDER BY 1", &e)))
		goto fail;
	while (sqlite3_step(st) == SQLITE_ROW) {
		char *fe = xstrdup(col(st, 0));
		int bad = print_frontend(&r, fe, &e);

		free(fe);
		any = 1;
		if (bad < 0)
			goto fail;
	}
	if (!any)
		printf("\nno results%s%s yet\n", r.frontend ? " for frontend " : "", r.frontend ? esc_str(r.frontend) : "");
	if (outdir && write_reproducers(&r, outdir, &e) < 0)
		goto fail;
	goto out;
fail:
	code = cmd_error(&e);
out:
	sqlite3_finalize(st);
	db_close(&r.db);
	err_release(&e);
	return code;
}

const struct cmd_entry cmd_report_entry = {
	"report", cmd_report, CMD_NEEDS_NOTHING, usage,
	"summarise a results store; write reproducers for its failures",
};
