/* cmd-worker.c: ferry worker --run FRONTEND | --wrap
 *
 * Not for people: the runner starts workers (pool/runner.h) and speaks to them over stdin and
 * stdout. A worker imports its libraries once and serves test after test (oracle/worker.h). */
#include "py.h"

#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "cmd.h"
#include "worker.h"

static const char usage[] =
	"usage: ferry worker (--run FRONTEND | --wrap)\n"
	"\n"
	"A worker process of ferry's runner, speaking JSON Lines on stdin and stdout. ferry run and\n"
	"ferry wrap start these; there is no need to start one by hand.\n";

struct worker_args {
	const char *frontend;
	int wrap;
};

#define AT(f) offsetof(struct worker_args, f)

static const struct opt options[] = {
	OPT_STRING(0, "run", "FRONTEND", "serve FRONTEND's tests", AT(frontend)),
	OPT_FLAG(0, "wrap", "serve wrap's instances (the templates)", AT(wrap)),
	OPT_END(),
};

static int cmd_worker(int argc, char **argv)
{
	struct worker_args args = { 0 }, *a = &args;
	struct err e = ERR_INIT;
	int r;

	if (cmd_parse(&cmd_worker_entry, argc, argv, a) < 0)
		return EXIT_USAGE;
	if (!!a->frontend == a->wrap || optind != argc)
		return cmd_usage_error(&cmd_worker_entry, "a worker takes either --run FRONTEND or --wrap");
	r = worker_serve(a->frontend, &e);
	if (r < 0 && e.code != EXIT_OK)
		cmd_error(&e);
	fflush(NULL);
	/* The runner has what it needs. Unloading compiler runtimes with live thread pools can hang or
	 * crash in their destructors, and a worker's exit must be quick: skip interpreter finalisation. */
	_exit(r < 0 ? (e.code ? (int)e.code : EXIT_ENV) : EXIT_OK);
}

const struct cmd_entry cmd_worker_entry = {
	.name = "worker", .fn = cmd_worker, .needs = CMD_NEEDS_PYTHON, .usage = usage, .opts = options,
};
