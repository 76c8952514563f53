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

struct merge_args {
	const char *output;
};

#define AT(f) offsetof(struct merge_args, f)

static const struct opt options[] = {
	OPT_STRING('o', "output", "STORE", "the store to write", AT(output)),
	OPT_END(),
};

static int cmd_merge(int argc, char **argv)
{
	struct merge_args args = { 0 }, *a = &args;
	struct db d = DB_INIT;
	struct err e = ERR_INIT;
	int code = EXIT_OK;

	if (cmd_parse(&cmd_merge_entry, argc, argv, a) < 0)
		return EXIT_USAGE;
	if (!a->output)
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
	if (db_open(&d, a->output, DB_CREATE, &e) < 0 || db_lock(&d, "ferry merge", &e) < 0)
		goto fail;
	for (int i = optind; i < argc; i++) {
		long long n = 0;
		char *x = fs_abspath(argv[i]), *b = fs_abspath(a->output);
		int same = !strcmp(x, b);

		free(x);
		free(b);
		if (same)
			continue;
		if (db_merge(&d, argv[i], &n, &e) < 0)
			goto fail;
		printf("merged %s\n", argv[i]);
	}
	if (dedup_rebuild(&d, NULL, NULL, NULL, &e) < 0)
		goto fail;
	{
		struct db_summary s;

		if (db_summary(&d, &s, &e) < 0)
			goto fail;
		printf("%s: %lld results of %lld tests\n", a->output, s.results, s.tested);
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
