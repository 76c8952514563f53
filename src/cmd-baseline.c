/* cmd-baseline.c: ferry baseline STORE -o FILE
 *
 * Writes the failures of a results store as a baseline: the expected failures that ferry check
 * compares a later run against, so that CI fails on what is new and not on what is known. */
#include <getopt.h>
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
	"Write the failing tests of STORE as a baseline of known failures for ferry check.\n"
	"\n"
	"Options:\n"
	"  -o, --output FILE    the baseline to write ('-' for standard output)\n"
	"  -F, --frontend NAME  only this frontend's failures\n";

static int cmd_baseline(int argc, char **argv)
{
	static const struct option longopts[] = {
		{ "output", required_argument, NULL, 'o' },
		{ "frontend", required_argument, NULL, 'F' },
		{ NULL, 0, NULL, 0 },
	};
	struct db db = DB_INIT;
	struct err e = ERR_INIT;
	const char *output = NULL, *frontend = NULL;
	struct fs_output out = FS_OUTPUT_INIT;
	size_t n = 0;
	int opt, code = EXIT_OK;

	while ((opt = getopt_long(argc, argv, "o:F:", longopts, NULL)) != -1) {
		switch (opt) {
		case 'o': output = optarg; break;
		case 'F': frontend = optarg; break;
		default: return cmd_usage_error(&cmd_baseline_entry, "bad option");
		}
	}
	if (optind + 1 != argc)
		return cmd_usage_error(&cmd_baseline_entry, "baseline takes one STORE");
	if (!output)
		return cmd_usage_error(&cmd_baseline_entry, "no output: say where the baseline goes with -o");
	if (!fs_exists(argv[optind])) {
		err_set(&e, EXIT_INPUT, "cannot open the store '%s': No such file or directory", argv[optind]);
		return cmd_error(&e);
	}
	if (db_open(&db, argv[optind], DB_READ, &e) < 0)
		goto fail;
	if (fs_output_open(&out, output, &e) < 0)
		goto fail;
	{
		int to_stdout = out.fp == stdout;

		if (baseline_write(&db, frontend, out.fp, &n, &e) < 0 || fs_output_commit(&out, &e) < 0)
			goto fail;
		if (!to_stdout)
			printf("%zu known failures written to %s\n", n, output);
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
	"baseline", cmd_baseline, CMD_NEEDS_NOTHING, usage,
	"write a store's failures as the known failures for ferry check",
};
