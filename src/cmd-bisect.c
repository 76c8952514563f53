/* cmd-bisect.c: ferry bisect STORE BUG --releases PACKAGE==FIRST..[LAST]
 *
 * Finds which releases of a frontend's package a bug affects: each release gets a cached
 * virtualenv with the numpy of its day, the bug's member tests run there into the same store (as
 * ferry run -F NAME@PYTHON would), and a bisection finds the first bad release, the last good one
 * and the one that fixed it (pipeline/releases.h). This file parses the options. */
#include <stdio.h>

#include "cmd.h"
#include "releases.h"

static const char usage[] =
	"usage: ferry bisect STORE BUG --releases PACKAGE==FIRST..[LAST] [options]\n"
	"\n"
	"Find the releases of the frontend's package that a bug (an id from ferry bugs, or a unique\n"
	"prefix of one) affects: each release that pip can install here gets a virtualenv of its own\n"
	"(cached, with the numpy of its day), the bug's tests run there into STORE under the label\n"
	"NAME@VERSION, and a bisection finds the first bad release, the last good one and the first good\n"
	"one after it (fixed in). A release already run is not run again.\n";

#define AT(f) offsetof(struct releases_opts, f)

static const struct opt options[] = {
	OPT_STRING(0, "releases", "SPEC",
		   "PACKAGE==FIRST..LAST (FIRST or LAST may be left out; PACKAGE==V is V alone):\n"
		   "the pip package and its releases to try", AT(spec)),
	OPT_INT(0, "tests", "N", "run the representative and up to N more member tests (default 2)", AT(more), 0,
		1000000),
	OPT_FLAG(0, "all", "try every release in the range, not a bisection", AT(all)),
	OPT_INT(0, "max-releases", "N", "install or run at most N releases in this call (default 8; 0: no bound);\n"
		"the same command again goes on", AT(max_releases), 0, 1000000),
	OPT_STRING('t', "timeout", "SECS", "time one test may take, as ferry run takes it", AT(timeout)),
	OPT_STRING('j', "jobs", "N", "worker processes of each run, as ferry run takes it", AT(jobs)),
	OPT_STRING(0, "venvs", "FILE",
		   "take the releases from FILE, lines of VERSION PYTHON (an interpreter that holds\n"
		   "that release), instead of PyPI and pip", AT(venvs)),
	OPT_FLAG(0, "json", "print the releases tried and the verdict as one JSON document", AT(json)),
	OPT_END(),
};

static void note(void *ctx, const char *line)
{
	(void)ctx;
	fflush(stdout);
	fprintf(stderr, "ferry: %s\n", line);
}

static int cmd_bisect(int argc, char **argv)
{
	struct releases_opts o = { .more = 2, .max_releases = 8, .python = cmd_python(), .note = note,
				   .warn = cmd_warn_line };
	struct err e = ERR_INIT;
	int code;

	if (cmd_parse(&cmd_bisect_entry, argc, argv, &o) < 0)
		return EXIT_USAGE;
	if (optind + 2 != argc)
		return cmd_usage_error(&cmd_bisect_entry, "bisect takes a STORE and a BUG");
	if (!o.spec)
		return cmd_usage_error(&cmd_bisect_entry, "bisect needs --releases PACKAGE==FIRST..[LAST]");
	o.store = argv[optind];
	o.bug = argv[optind + 1];
	code = releases_bisect(&o, stdout, &e);
	if (code != EXIT_OK) {
		if (code == EXIT_USAGE)
			cmd_usage_error(&cmd_bisect_entry, "%s", e.msg);
		else
			cmd_error(&e);
	}
	err_release(&e);
	return code;
}

const struct cmd_entry cmd_bisect_entry = {
	.name = "bisect", .fn = cmd_bisect, .needs = CMD_NEEDS_NOTHING, .usage = usage, .opts = options,
	.summary = "find the releases of a frontend that a bug affects: first bad, last good, fixed in",
};
