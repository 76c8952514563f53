/* cmd-run.c: ferry run DIR --frontend NAME[,NAME...] -o STORE
 *
 * Feeds the wrapped models of DIR to compiler frontends, each test in one of ferry's watched worker
 * processes, and records every result in the store as soon as it is known (oracle/session.h). The
 * oracles run in the worker: a crash in a stage (load, compile, execute), a message that means
 * "unsupported", or outputs that differ from the source library's reference. The same command run
 * again skips the tests that already have a result, so an interrupted or killed run resumes. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cmd.h"
#include "runopts.h"
#include "xalloc.h"

static const char usage[] =
	"usage: ferry run DIR --frontend NAME[,NAME...] -o STORE [options]\n"
	"\n"
	"Run the wrapped models of DIR (from ferry wrap) through compiler frontends and record each\n"
	"result in STORE (SQLite). Running the same command again resumes where it stopped.\n";

static const struct opt options[] = {
	OPT_INCLUDE(runopts_options),
	OPT_END(),
};

static int cmd_run(int argc, char **argv)
{
	struct runopts *ro = &runopts;
	struct session *s = NULL;
	struct session_result res[RUNOPTS_MAX_FRONTENDS];
	struct err e = ERR_INIT;
	int code = EXIT_OK, ran = 0;

	runopts_init(ro);
	memset(res, 0, sizeof(res));
	if (opts_parse(&cmd_run_entry, argc, argv) < 0) {
		code = EXIT_USAGE;
		goto out;
	}
	if (optind + 1 != argc) {
		code = cmd_usage_error(&cmd_run_entry, "run takes one DIR (the output of ferry wrap)");
		goto out;
	}
	if (runopts_finish(ro, &cmd_run_entry, argv[optind], argc, argv) < 0) {
		code = EXIT_USAGE;
		goto out;
	}
	if (session_open(&s, &ro->s, &e) < 0) {
		code = cmd_error(&e);
		goto out;
	}
	ran = 1;
	if (session_run(s, ro->fes, ro->nfes, res, &e) < 0) {
		code = cmd_error(&e);
		if (e.code == EXIT_INTERRUPTED)
			fprintf(stderr, "ferry: results so far are in '%s'; run the same command to go on\n",
				ro->s.store);
		goto out;
	}
	runopts_print(ro, res);
	for (size_t i = 0; i < ro->nfes; i++)
		if (res[i].unavailable)
			cmd_warn("frontend '%s' is unavailable: %s", ro->fes[i].label, res[i].why);
out:
	if (ran)
		for (size_t i = 0; i < ro->nfes; i++)
			session_result_release(&res[i]);
	session_close(s);
	runopts_release(ro);
	err_release(&e);
	return code;
}

const struct cmd_entry cmd_run_entry = {
	.name = "run", .fn = cmd_run, .needs = CMD_NEEDS_NOTHING, .usage = usage, .opts = options,
	.summary = "run wrapped models through compiler frontends into a results store",
};
