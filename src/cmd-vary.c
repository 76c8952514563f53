/* cmd-vary.c: ferry vary CORPUS -o VARIANTS
 *
 * Grows every instance of a corpus along dtype, rank and shape, parameter values, scalar vs tensor
 * and a value's Python type, and keeps the variants that the source library accepts, resuming where an interrupted run
 * stopped (pipeline/variants.h). */
#include <stdlib.h>
#include <string.h>

#include "cmd.h"
#include "lock.h"
#include "variants.h"

static const char usage[] =
	"usage: ferry vary CORPUS -o VARIANTS [options]\n"
	"\n"
	"Derive variants of every instance of CORPUS (other dtypes, ranks, shapes, parameter values,\n"
	"scalars for tensors and back, values in other Python types) and keep those the source library\n"
	"accepts, in VARIANTS.\n"
	"Every candidate tried is logged in VARIANTS.log; an interrupted vary resumes when run again.\n";

#define AT(f) offsetof(struct variants_opts, f)

static const struct opt options[] = {
	OPT_STRING('o', "output", "VARIANTS", "where the variants go (a corpus)", AT(output)),
	OPT_INT(0, "per-instance", "N", "variants kept per instance at most (default 8)", AT(per_instance), 1, 1000000),
	OPT_INT(0, "seed", "S", "the seed of the candidates' order (default 1)", AT(seed), 0, 2147483647),
	OPT_INT(0, "budget", "N", "candidates tried in all, earlier runs included (default: no limit)", AT(budget),
		1, 2147483647),
	OPT_INT('j', "jobs", "N", "worker processes (default: the number of cores)", AT(jobs), 1, 256),
	OPT_SECONDS('t', "timeout", "SECS", "time one candidate may take (default 60)", AT(timeout)),
	OPT_SIZE('m', "memory", "SIZE", "memory one worker may use (default 4G, or a share of the machine's if less)",
		 AT(memory)),
	OPT_FLAG('q', "quiet", "no progress line", AT(quiet)),
	OPT_END(),
};

static int cmd_vary(int argc, char **argv)
{
	struct variants_opts o = { .per_instance = 8, .seed = 1, .jobs = opts_default_jobs(), .timeout = 60 };
	struct stage_io io = { stdout, cmd_warn_line, cmd_error, cmd_python(), NULL };
	char *command = NULL;
	int code;

	if (cmd_parse(&cmd_vary_entry, argc, argv, &o) < 0)
		return EXIT_USAGE;
	if (optind + 1 != argc)
		return cmd_usage_error(&cmd_vary_entry, "vary takes one CORPUS");
	if (!o.output)
		return cmd_usage_error(&cmd_vary_entry, "no output: say where the variants go with -o VARIANTS");
	if (!strcmp(o.output, argv[optind]))
		return cmd_usage_error(&cmd_vary_entry, "the variants cannot go into the corpus they are made from");
	o.corpus = argv[optind];
	o.command = command = lock_command_line(argc, argv);
	code = variants_make(&o, &io);
	free(command);
	return code;
}

const struct cmd_entry cmd_vary_entry = {
	.name = "vary", .fn = cmd_vary, .needs = CMD_NEEDS_NOTHING, .usage = usage, .opts = options,
	.summary = "derive variants of every instance, kept where the library accepts them",
};
