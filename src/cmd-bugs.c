/* cmd-bugs.c: ferry bugs STORE
 *
 * Groups the failures of a results store into unique bugs, keeps them in the store, and lists them
 * (report/bugs.h). */
#include <stdio.h>

#include "bugs.h"
#include "cmd.h"
#include "triage.h"

static const char usage[] =
	"usage: ferry bugs STORE [-F FRONTEND] [--op GLOB] [--json] [--triage FILE]\n"
	"\n"
	"Group the failures in STORE into unique bugs (by frontend, conversion function and symptom)\n"
	"and list them, each with what the triage file decided about it (ferry triage). ferry show STORE\n"
	"BUG prints one with its reproducer.\n";

#define AT(f) offsetof(struct bugs_opts, f)

static const struct opt options[] = {
	OPT_STRING('F', "frontend", "NAME", "only this frontend", AT(frontend)),
	OPT_STRING(0, "op", "GLOB", "only the bugs with a member test of an operator matching GLOB (as --op\n"
		   "everywhere: a word, or a glob; lower case ignores case)",
		   AT(glob)),
	OPT_FLAG(0, "json", "print the bugs as one JSON document, each with its member tests", AT(json)),
	OPT_STRING(0, "triage", "FILE", "the decisions about bugs, shown with them (ferry triage; default:\n"
		   TRIAGE_DEFAULT " when it exists)", AT(triage)),
	OPT_FLAG('w', "wide", "do not cut lines to the terminal's width (they are never cut in a pipe)", AT(wide)),
	OPT_END(),
};

static int cmd_bugs(int argc, char **argv)
{
	struct bugs_opts o = { 0 };
	struct err e = ERR_INIT;
	int code = EXIT_OK;

	if (cmd_parse(&cmd_bugs_entry, argc, argv, &o) < 0)
		return EXIT_USAGE;
	if (optind + 1 != argc)
		return cmd_usage_error(&cmd_bugs_entry, "bugs takes one STORE");
	if (bugs_list(argv[optind], &o, stdout, &e) < 0)
		code = cmd_error(&e);
	err_release(&e);
	return code;
}

const struct cmd_entry cmd_bugs_entry = {
	.name = "bugs", .fn = cmd_bugs, .needs = CMD_NEEDS_NOTHING, .usage = usage, .opts = options,
	.summary = "group the failures of a store into unique bugs and list them",
};
