/* cmd-worker.c: ferry worker --run FRONTEND | --wrap
 *
 * Not for people: the runner starts workers (oracle/runner.h) and speaks to them over stdin and
 * stdout. A worker imports its libraries once and serves test after test (oracle/worker.h). */
#include "py.h"

#include <getopt.h>
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

static int cmd_worker(int argc, char **argv)
{
	static const struct option longopts[] = {
		{ "run", required_argument, NULL, 'r' },
		{ "wrap", no_argument, NULL, 'w' },
		{ NULL, 0, NULL, 0 },
	};
	struct err e = ERR_INIT;
	const char *frontend = NULL;
	int opt, wrap = 0, r;

	while ((opt = getopt_long(argc, argv, "", longopts, NULL)) != -1) {
		switch (opt) {
		case 'r': frontend = optarg; break;
		case 'w': wrap = 1; break;
		default: return cmd_usage_error(&cmd_worker_entry, "bad option");
		}
	}
	if (!!frontend == wrap || optind != argc)
		return cmd_usage_error(&cmd_worker_entry, "a worker takes either --run FRONTEND or --wrap");
	r = worker_serve(frontend, &e);
	if (r < 0 && e.code != EXIT_OK)
		cmd_error(&e);
	fflush(NULL);
	/* The runner has what it needs. Unloading compiler runtimes with live thread pools can hang or
	 * crash in their destructors, and a worker's exit must be quick: skip interpreter finalisation. */
	_exit(r < 0 ? (e.code ? (int)e.code : EXIT_ENV) : EXIT_OK);
}

const struct cmd_entry cmd_worker_entry = {
	"worker", cmd_worker, CMD_NEEDS_PYTHON, usage, NULL,
};
