/* cmd-show.c: ferry show STORE BUG [-o DIR]
 *
 * Prints one unique bug with its member tests and its reproducer, or writes them as a regression
 * test into DIR (report/show.h). This file parses the options. */
#include <stdio.h>

#include "cmd.h"
#include "show.h"

static const char usage[] =
	"usage: ferry show STORE BUG [-o DIR] [--minimal] [--json]\n"
	"   or: ferry show STORE --op GLOB [options]\n"
	"\n"
	"Print a unique bug (an id from ferry bugs, or a unique prefix of one) with its member tests and\n"
	"the reproducer of its simplest test. The DIR of -o is written only when new, empty or ferry's for\n"
	"STORE (DIR/.ferry-output), and what ferry wrote there before is removed first.\n";

#define AT(f) offsetof(struct show_opts, f)

static const struct opt options[] = {
	OPT_FLAG(0, "minimal", "print only the shortest standalone script that shows the bug (with -o: write\n"
		 "DIR/minimal.py): the inputs and the reference outputs as literals, got and\n"
		 "want printed, exit status 1 while the bug shows (ONNX frontends)", AT(minimal)),
	OPT_FLAG(0, "json", "print the bug as one JSON document (with its members and reproducer)", AT(json)),
	OPT_STRING(0, "op", "GLOB", "list only the members of operators matching GLOB (as --op everywhere);\n"
		   "without a BUG,"
		   "show the bug with the most tests of such operators", AT(glob)),
	OPT_STRING('o', "output", "DIR", "also write DIR/reproducer.py and the test in its compiler's own format\n"
		   "in DIR/test_OP_ID/ (OpenVINO, TVM: a pytest file in the manner of their\n"
		   "tests; IREE: a backend test-data directory and its onnx_ops config entry;\n"
		   "others: a backend test-data directory, PyTorch a pytest test function)", AT(outdir)),
	OPT_END(),
};

/* The bug found (the first of those that match) and its representative. */

static int cmd_show(int argc, char **argv)
{
	struct show_opts o = { .python = cmd_python(), .warn = cmd_warn_line };
	struct err e = ERR_INIT;
	int code = EXIT_OK;

	if (cmd_parse(&cmd_show_entry, argc, argv, &o) < 0)
		return EXIT_USAGE;
	if (optind + 2 != argc && !(o.glob && optind + 1 == argc))
		return cmd_usage_error(&cmd_show_entry, "show takes a STORE and a BUG (or --op GLOB)");
	if (o.minimal && o.json)
		return cmd_usage_error(&cmd_show_entry, "--minimal and --json: one at a time");
	if (show_bug(argv[optind], optind + 1 < argc ? argv[optind + 1] : NULL, &o, stdout, &e) < 0)
		code = cmd_error(&e);
	err_release(&e);
	return code;
}

const struct cmd_entry cmd_show_entry = {
	.name = "show", .fn = cmd_show, .needs = CMD_NEEDS_NOTHING, .usage = usage, .opts = options,
	.summary = "print a unique bug with its members and reproducer; export it as a test",
};
