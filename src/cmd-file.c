/* cmd-file.c: ferry file STORE BUG [-o DIR]
 *
 * One bug as an issue a compiler team can act on (report/file.h). This file parses the options. */
#include <stdio.h>

#include "cmd.h"
#include "show.h"

static const char usage[] =
	"usage: ferry file STORE BUG [-o DIR]\n"
	"\n"
	"Write a unique bug (an id from ferry bugs, or a unique prefix of one) as an issue ready to file\n"
	"upstream: a title that states the cause, the versions, a reproducer of about 30 lines that needs\n"
	"only the frontend and the library (exit status 1 while the bug shows, 0 once fixed), what it\n"
	"printed here (the elements that differ, with a float64 reference where the library gives one),\n"
	"the reference and tolerance it was compared with, what does not trigger it and the releases it\n"
	"affects. Without -o, the issue text is printed. The DIR of -o is written only when new, empty or\n"
	"ferry's for STORE (DIR/.ferry-output), and what ferry wrote there before is removed first.\n";

#define AT(f) offsetof(struct show_opts, f)

static const struct opt options[] = {
	OPT_STRING('o', "output", "DIR", "write DIR/issue.md, DIR/repro.py and the regression test in the compiler's\n"
		   "own format (DIR/test_OP_ID/)", AT(outdir)),
	OPT_END(),
};

static int cmd_file(int argc, char **argv)
{
	struct show_opts o = { .python = cmd_python(), .warn = cmd_warn_line, .file = 1 };
	struct err e = ERR_INIT;
	int code = EXIT_OK;

	if (cmd_parse(&cmd_file_entry, argc, argv, &o) < 0)
		return EXIT_USAGE;
	if (optind + 2 != argc)
		return cmd_usage_error(&cmd_file_entry, "file takes a STORE and a BUG");
	if (show_bug(argv[optind], argv[optind + 1], &o, stdout, &e) < 0)
		code = cmd_error(&e);
	err_release(&e);
	return code;
}

const struct cmd_entry cmd_file_entry = {
	.name = "file", .fn = cmd_file, .needs = CMD_NEEDS_NOTHING, .usage = usage, .opts = options,
	.summary = "write a bug as an issue ready to file, with a short reproducer and a regression test",
};
