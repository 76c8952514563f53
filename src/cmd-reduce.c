/* cmd-reduce.c: ferry reduce STORE [BUG...] [-F FRONTEND] [-j N] [-t SECONDS] [-m SIZE] [-o DIR] [--simplest]
 *
 * Reduces failing multi-node ONNX tests to the smallest subgraph that still fails the same way, so
 * that a bug's reproducer is a model of a node or two (reduce/reduce.h). This file parses the
 * options. */
#include <stdio.h>

#include "cmd.h"
#include "reduce.h"

static const char usage[] =
	"usage: ferry reduce STORE [BUG...] [-F FRONTEND] [options]\n"
	"\n"
	"Reduce the failing multi-node ONNX tests of STORE (every member of the bugs, or each bug's\n"
	"simplest test with --simplest; only the BUGs given, by id or unique prefix) to the smallest\n"
	"subgraph that still fails the same way, running candidate subgraphs through the frontend,\n"
	"smallest first. ferry show then writes the reduced model as the bug's reproducer; a reduced\n"
	"failure groups into bugs by the operators of its subgraph.\n";

#define AT(f) offsetof(struct reduce_opts, f)

static const struct opt options[] = {
	OPT_STRING('F', "frontend", "NAME", "only this frontend's failures (NAME@PYTHON: the failures of that\n"
		   "release, whose workers run under PYTHON)", AT(frontend)),
	OPT_INT('j', "jobs", "N", "worker processes (default: the number of cores)", AT(jobs), 1, 256),
	OPT_SECONDS('t', "timeout", "SECONDS", "time a candidate may take (default: 60)", AT(timeout)),
	OPT_SIZE('m', "memory", "SIZE", "memory a worker may use (default: a share of the machine's)", AT(memory)),
	OPT_STRING('o', "output", "DIR", "where the reduced tests go (default: STORE.reduced)", AT(outdir)),
	OPT_FLAG(0, "simplest", "reduce only each bug's simplest test (a bug whose members are not all\n"
		 "reduced may then split: a reduced member groups by the operators that decide it)",
		 AT(simplest)),
	OPT_FLAG(0, "again", "reduce results that were reduced before", AT(again)),
	OPT_END(),
};

static int cmd_reduce(int argc, char **argv)
{
	struct reduce_opts o = { .python = cmd_python(), .warn = cmd_warn_line };
	struct err e = ERR_INIT;
	int code = EXIT_OK;

	if (cmd_parse(&cmd_reduce_entry, argc, argv, &o) < 0)
		return EXIT_USAGE;
	if (optind >= argc)
		return cmd_usage_error(&cmd_reduce_entry, "reduce takes a STORE, and the BUGs to reduce "
				       "(default: all)");
	if (reduce_run(argv[optind], (const char *const *)argv + optind + 1, (size_t)(argc - optind - 1), &o, stdout,
		       &e) < 0)
		code = cmd_error(&e);
	err_release(&e);
	return code;
}

const struct cmd_entry cmd_reduce_entry = {
	.name = "reduce", .fn = cmd_reduce, .needs = CMD_NEEDS_NOTHING, .usage = usage, .opts = options,
	.summary = "reduce failing multi-node ONNX tests to the smallest subgraph that fails the same way",
};
