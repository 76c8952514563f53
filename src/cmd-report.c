/* cmd-report.c: ferry report STORE [-o DIR]
 *
 * Summarises a results store on the terminal, as JSON or as an HTML page, and with -o writes a
 * standalone reproducer script per failure (report/report.h); with --xfail, the expected-failure
 * lists of the compilers' own test runners (report/xfail.h). */
#include <stdio.h>

#include "cmd.h"
#include "report.h"
#include "triage.h"
#include "xfail.h"

static const char usage[] =
	"usage: ferry report STORE [-o DIR] [--html DIR] [--json] [options]\n"
	"   or: ferry report STORE --xfail DIR [-F NAME]\n"
	"\n"
	"Summarise the results in STORE: outcomes per frontend, operators with failures, failures.\n"
	"The DIR of -o, --html and --xfail is written only when new, empty or ferry's for STORE\n"
	"(DIR/.ferry-output), and what ferry wrote there before is removed first.\n";

#define AT(f) offsetof(struct report_opts, f)

static const struct opt options[] = {
	OPT_STRING('o', "output", "DIR", "also write a standalone reproducer script per failure into DIR",
		AT(outdir)),
	OPT_STRING('F', "frontend", "NAME", "only this frontend", AT(frontend)),
	OPT_STRING(0, "op", "GLOB", "only the tests of operators matching GLOB (as --op everywhere: 'conv',\n"
		   "'Conv*', 'torch.nn.*')",
		   AT(glob)),
	OPT_FLAG('a', "all", "list every failure (default: the first 40 per frontend)", AT(all)),
	OPT_FLAG(0, "json", "print the report as one JSON document (every failure, whole)", AT(json)),
	OPT_FLAG('w', "wide", "do not cut lines to the terminal's width (they are never cut in a pipe)",
		 AT(wide)),
	OPT_FLAG(0, "durations", "also the slowest tests and the time per frontend and where tests ended",
		 AT(durations)),
	OPT_STRING(0, "html", "DIR", "write DIR/index.html, one self-contained page (no network), with the\n"
		   "reproducers of the bugs in DIR/reproducers/", AT(html)),
	OPT_STRING(0, "xfail", "DIR", "instead, write the failing tests as expected failures, per frontend:\n"
		   "DIR/FRONTEND/conftest.py (pytest xfail marks), onnx_backend_exclude.txt\n"
		   "(BackendTest.exclude patterns) and iree_onnx_ops.json (IREE's onnx_ops config)",
		   AT(xfail)),
	OPT_STRING(0, "triage", "FILE", "the decisions about bugs (ferry triage; default: " TRIAGE_DEFAULT "\n"
		   "when it exists): shown with the bugs, and the decided ones left out of those worth filing",
		   AT(triage)),
	OPT_LIST(0, "queue", "[LABEL=]QUEUE", "with --html: plot how fast this queue finds the store's bugs\n"
		 "(repeatable; the queues of 'ferry rank', or one test id a line)", AT(queues)),
	OPT_END(),
};

static int cmd_report(int argc, char **argv)
{
	struct report_opts o = { .python = cmd_python(), .warn = cmd_warn_line };
	struct err e = ERR_INIT;
	int code = EXIT_OK;

	if (cmd_parse(&cmd_report_entry, argc, argv, &o) < 0)
		code = EXIT_USAGE;
	else if (optind + 1 != argc)
		code = cmd_usage_error(&cmd_report_entry, "report takes one STORE");
	else if (o.queues.n && !o.html)
		code = cmd_usage_error(&cmd_report_entry, "--queue plots into the page of --html DIR");
	else if (o.json && o.html)
		code = cmd_usage_error(&cmd_report_entry, "--json and --html: one at a time");
	else if (o.xfail && (o.outdir || o.html || o.json || o.glob))
		code = cmd_usage_error(&cmd_report_entry, "--xfail writes only the lists (with -F at most)");
	else if (o.xfail ? xfail_write(argv[optind], o.frontend, o.xfail, o.python, stdout, &e) < 0
			 : report_write(argv[optind], &o, stdout, &e) < 0)
		code = cmd_error(&e);
	opts_list_release(&o.queues);
	err_release(&e);
	return code;
}

const struct cmd_entry cmd_report_entry = {
	.name = "report", .fn = cmd_report, .needs = CMD_NEEDS_NOTHING, .usage = usage, .opts = options,
	.summary = "summarise a results store; write reproducers for its failures",
};
