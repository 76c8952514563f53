/* cmd-merge.c: ferry merge -o STORE SHARD.db...
 *
 * Joins the stores of shards (ferry run/check --shard I/N, run as a CI matrix, a Slurm array or a
 * Kubernetes indexed job) into one, so that report, bugs and baseline see the whole run. Instances
 * merge by id; runs are renumbered; a test with results in two stores keeps the later store's. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cmd.h"
#include "db.h"
#include "dedup.h"
#include "fsutil.h"

static const char usage[] =
	"usage: ferry merge -o STORE SHARD.db...\n"
	"\n"
	"Join the results stores of shards into STORE (created, or added to).\n";

static const char *output;

static const struct opt options[] = {
	OPT_STRING('o', "output", "STORE", "the store to write", &output),
	OPT_END(),
};

static int merge_one(struct db *d, const char *path, long long *results, struct err *e)
{
	static const char *const steps[] = {
		"INSERT OR IGNORE INTO instances SELECT id, library, op, record, status, reason, random, dir"
		" FROM shard.instances",
		"CREATE TEMP TABLE run_map AS SELECT run_id AS old,"
		" run_id + (SELECT coalesce(max(run_id), 0) FROM main.runs) AS new FROM shard.runs",
		"INSERT INTO runs(run_id, frontend, frontend_version, command, started, finished)"
		" SELECT m.new, r.frontend, r.frontend_version, r.command, r.started, r.finished"
		" FROM shard.runs r JOIN run_map m ON m.old = r.run_id",
		"INSERT OR REPLACE INTO results(frontend, id, run_id, outcome, stage, exc_type, message, frame,"
		" detail, max_abs, seconds) SELECT r.frontend, r.id, m.new, r.outcome, r.stage, r.exc_type,"
		" r.message, r.frame, r.detail, r.max_abs, r.seconds FROM shard.results r"
		" LEFT JOIN run_map m ON m.old = r.run_id",
		"DROP TABLE run_map",
	};
	sqlite3_stmt *st = NULL;
	int r = -1;

	if (!(st = db_prepare(d, "ATTACH DATABASE ?1 AS shard", e)))
		return -1;
	sqlite3_bind_text(st, 1, path, -1, SQLITE_STATIC);
	if (sqlite3_step(st) != SQLITE_DONE) {
		db_error(d, e, "cannot attach a shard to the store");
		sqlite3_finalize(st);
		return -1;
	}
	sqlite3_finalize(st);
	if (db_begin(d, e) < 0)
		goto detach;
	for (size_t i = 0; i < sizeof(steps) / sizeof(steps[0]); i++)
		if (sqlite3_exec(d->h, steps[i], NULL, NULL, NULL) != SQLITE_OK) {
			db_error(d, e, "cannot merge into the store");
			err_prefix(e, "'%s'", path);
			sqlite3_exec(d->h, "ROLLBACK", NULL, NULL, NULL);
			goto detach;
		}
	*results = sqlite3_changes(d->h);
	if (db_commit(d, e) < 0)
		goto detach;
	r = 0;
detach:
	sqlite3_exec(d->h, "DETACH DATABASE shard", NULL, NULL, NULL);
	return r;
}

static int cmd_merge(int argc, char **argv)
{
	struct db d = DB_INIT;
	struct err e = ERR_INIT;
	int code = EXIT_OK;

	if (opts_parse(&cmd_merge_entry, argc, argv) < 0)
		return EXIT_USAGE;
	if (!output)
		return cmd_usage_error(&cmd_merge_entry, "no output: say which store to write with -o");
	if (optind == argc)
		return cmd_usage_error(&cmd_merge_entry, "merge takes one or more shard stores");
	/* Every shard is checked to be a store of this schema before the output is made or touched:
	 * a typo in the last shard's name must not leave a half-merged store. */
	for (int i = optind; i < argc; i++) {
		struct db probe = DB_INIT;

		if (db_open(&probe, argv[i], DB_READ, &e) < 0)
			goto fail;
		db_close(&probe);
	}
	if (db_open(&d, output, DB_CREATE, &e) < 0 || db_lock(&d, "ferry merge", &e) < 0)
		goto fail;
	for (int i = optind; i < argc; i++) {
		long long n = 0;
		char *a = fs_abspath(argv[i]), *b = fs_abspath(output);
		int same = !strcmp(a, b);

		free(a);
		free(b);
		if (same)
			continue;
		if (merge_one(&d, argv[i], &n, &e) < 0)
			goto fail;
		printf("merged %s\n", argv[i]);
	}
	if (dedup_rebuild(&d, NULL, NULL, NULL, &e) < 0)
		goto fail;
	{
		sqlite3_stmt *st = db_prepare(&d, "SELECT count(*), count(DISTINCT id) FROM results", &e);

		if (!st)
			goto fail;
		if (sqlite3_step(st) == SQLITE_ROW)
			printf("%s: %lld results of %lld tests\n", output, sqlite3_column_int64(st, 0),
			       sqlite3_column_int64(st, 1));
		sqlite3_finalize(st);
	}
	goto out;
fail:
	code = cmd_error(&e);
out:
	db_close(&d);
	err_release(&e);
	return code;
}

const struct cmd_entry cmd_merge_entry = {
	.name = "merge", .fn = cmd_merge, .needs = CMD_NEEDS_NOTHING, .usage = usage, .opts = options,
	.summary = "join the results stores of shards into one",
};
