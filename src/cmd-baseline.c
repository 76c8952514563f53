/* cmd-baseline.c: ferry baseline STORE -o FILE
 *
 * Writes the failures of a results store as a baseline: the expected failures that ferry check
 * compares a later run against, so that CI fails on what is new and not on what is known. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "baseline.h"
#include "cmd.h"
#include "fsutil.h"
#include "xalloc.h"

static const char usage[] =
	"usage: ferry baseline STORE -o FILE [-F FRONTEND]\n"
	"\n"
	"Write the failing tests of STORE as a baseline of known failures for ferry check.\n";

struct baseline_args {
	const char *output, *frontend;
};

#define AT(f) offsetof(struct baseline_args, f)

static const struct opt options[] = {
	OPT_STRING('o', "output", "FILE", "the baseline to write ('-' for standard output)", AT(output)),
	OPT_STRING('F', "frontend", "NAME", "only this frontend's failures", AT(frontend)),
	OPT_END(),
};

static int cmd_baseline(int argc, char **argv)
{
	struct baseline_args args = { 0 }, *a = &args;
	struct db db = DB_INIT;
	struct err e = ERR_INIT;
	struct fs_output out = FS_OUTPUT_INIT;
	size_t n = 0;
	int code = EXIT_OK;

	if (cmd_parse(&cmd_baseline_entry, argc, argv, a) < 0)
		return EXIT_USAGE;
	if (optind + 1 != argc)
		return cmd_usage_error(&cmd_baseline_entry, "baseline takes one STORE");
	if (!a->output)
		return cmd_usage_error(&cmd_baseline_entry, "no output: say where the baseline goes with -o");
	if (!fs_exists(argv[optind])) {
		err_set(&e, EXIT_INPUT, "cannot open the store '%s': No such file or directory", argv[optind]);
		return cmd_error(&e);
	}
	if (db_open(&db, argv[optind], DB_READ, &e) < 0)
		goto fail;
	if (fs_output_open(&out, a->output, &e) < 0)
		goto fail;
	{
		int to_stdout = out.fp == stdout;

		if (baseline_write(&db, a->frontend, out.fp, &n, &e) < 0 || fs_output_commit(&out, &e) < 0)
			goto fail;
		if (!to_stdout)
			printf("%zu known failures written to %s\n", n, a->output);
	}
	goto out;
fail:
	code = cmd_error(&e);
out:
	fs_output_abort(&out);
	db_close(&db);
	err_release(&e);
	return code;
}

const struct cmd_entry cmd_baseline_entry = {
	.name = "baseline", .fn = cmd_baseline, .needs = CMD_NEEDS_NOTHING, .usage = usage, .opts = options,
	.summary = "write a store's failures as the known failures for ferry check",
};
