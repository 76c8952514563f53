/* cmd-vary.c: ferry vary CORPUS -o VARIANTS
 *
 * Grows every instance of a corpus along dtype, rank and shape, parameter values, and scalar vs
 * tensor, and keeps the variants that the source library accepts (the engine: vary/vary.h).
 * VARIANTS is a corpus like any other, each line naming its parent and what changed; VARIANTS.log
 * holds every candidate tried, so running the same command again goes on where an interrupted run
 * stopped. The same corpus, seed and options make the same VARIANTS whatever -j; one vary at a time
 * writes VARIANTS (a second is refused, naming the first). This file parses the options, shows
 * progress and prints the summary. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cmd.h"
#include "esc.h"
#include "lock.h"
#include "progress.h"
#include "vary.h"

static const char usage[] =
	"usage: ferry vary CORPUS -o VARIANTS [options]\n"
	"\n"
	"Derive variants of every instance of CORPUS (other dtypes, ranks, shapes, parameter values,\n"
	"scalars for tensors and back) and keep those the source library accepts, in VARIANTS.\n"
	"Every candidate tried is logged in VARIANTS.log; an interrupted vary resumes when run again.\n";

static const char *output;
static int per_instance, budget, seed, jobs, quiet;
static double timeout;
static unsigned long long memory;

/* A candidate's reference is one operator on small inputs: one that needs more than this is a
 * parameter at an extreme (a 1024-wide kernel, a repeat by 1024), cut short rather than left to
 * take a quarter of the machine and minutes of swapping before the limit of ferry run would. */
#define VARY_MEMORY (4ULL << 30)

static const struct opt options[] = {
	OPT_STRING('o', "output", "VARIANTS", "where the variants go (a corpus)", &output),
	OPT_INT(0, "per-instance", "N", "variants kept per instance at most (default 8)", &per_instance, 1, 1000000),
	OPT_INT(0, "seed", "S", "the seed of the candidates' order (default 1)", &seed, 0, 2147483647),
	OPT_INT(0, "budget", "N", "candidates tried in all, earlier runs included (default: no limit)", &budget,
		1, 2147483647),
	OPT_INT('j', "jobs", "N", "worker processes (default: the number of cores)", &jobs, 1, 256),
	OPT_SECONDS('t', "timeout", "SECS", "time one candidate may take (default 60)", &timeout),
	OPT_SIZE('m', "memory", "SIZE", "memory one worker may use (default 4G, or a share of the machine's if less)",
		 &memory),
	OPT_FLAG('q', "quiet", "no progress line", &quiet),
	OPT_END(),
};

struct show {
	struct progress progress;
};

static void on_warn(void *ctx, const char *msg)
{
	struct show *sh = ctx;

	progress_clear(&sh->progress);
	cmd_warn("%s", msg);
}

static void on_progress(void *ctx, size_t tried, size_t dropped)
{
	struct show *sh = ctx;

	progress_update(&sh->progress, tried, dropped);
}

static void print_summary(const struct vary *v, const char *corpus, const char *out)
{
	struct strmap_entry **r = strmap_sorted(&v->reasons);

	printf("vary %s -> %s:\n", esc_str(corpus), esc_str(out));
	printf("  parents              %zu\n", v->parents);
	if (v->graphs)
		printf("  graphs, not varied   %zu\n", v->graphs);
	printf("  tried                %zu\n", v->tried);
	printf("    kept               %zu\n", v->kept);
	printf("      undefined        %zu\n", v->undefined);
	printf("    duplicates         %zu\n", v->duplicates);
	printf("    dropped            %zu\n", v->dropped);
	for (size_t i = 0; r[i] && i < 10; i++)
		printf("      %6zu  %s\n", r[i]->count, esc_str(r[i]->key));  /* the library's words */
	if (v->reasons.len > 10)
		printf("      (%zu more reasons)\n", v->reasons.len - 10);
	/* What the log holds from earlier runs: those are not tried again (and a parent whose quota
	 * they filled is not reopened). */
	if (v->log_tried)
		printf("  earlier runs tried   %zu\n", v->log_tried);
	/* Validated ahead of the order by a worker that had nothing else to do, and not reached: its
	 * parent's quota was met first. Nothing of them is written. */
	if (v->unused)
		printf("  validated, not used  %zu\n", v->unused);
	if (v->bad_lines)
		printf("  bad corpus lines     %zu\n", v->bad_lines);
	if (v->cut)
		printf("  torn line cut        %zu bytes\n", v->cut);
	printf("  validated per second %.1f\n", v->seconds > 0 ? (double)v->tried / v->seconds : 0.0);
	printf("  per dimension        tried  kept\n");
	for (int d = 0; d < RULES_NDIMS; d++)
		printf("    %-18s %6zu %5zu\n", vary_dim_name((enum rules_dim)d), v->dims[d].tried, v->dims[d].kept);
	free(r);
}

static int cmd_vary(int argc, char **argv)
{
	struct vary v;
	struct vary_opts o;
	struct show sh;
	struct err e = ERR_INIT;
	char *command = NULL;
	int code = EXIT_OK;

	memset(&v, 0, sizeof(v));
	memset(&o, 0, sizeof(o));
	memset(&sh, 0, sizeof(sh));
	jobs = cmd_default_jobs();
	timeout = 60;
	per_instance = 8;
	seed = 1;
	if (opts_parse(&cmd_vary_entry, argc, argv) < 0)
		return EXIT_USAGE;
	if (optind + 1 != argc)
		return cmd_usage_error(&cmd_vary_entry, "vary takes one CORPUS");
	if (!output)
		return cmd_usage_error(&cmd_vary_entry, "no output: say where the variants go with -o VARIANTS");
	if (!strcmp(output, argv[optind]))
		return cmd_usage_error(&cmd_vary_entry, "the variants cannot go into the corpus they are made from");
	o.corpus = argv[optind];
	o.output = output;
	o.per_instance = per_instance;
	o.seed = (uint64_t)seed;
	o.budget = (size_t)budget;
	o.command = command = lock_command_line(argc, argv);
	o.jobs = jobs;
	o.timeout = timeout;
	o.mem_limit = memory;
	o.python = cmd_python();
	if (!memory) {
		unsigned long long share = cmd_default_memory(jobs);

		o.mem_limit = share && share < VARY_MEMORY ? share : VARY_MEMORY;
	}
	o.ctx = &sh;
	o.warn = on_warn;
	o.progress = on_progress;
	if (vary_open(&v, &o, &e) < 0) {
		code = cmd_error(&e);
		goto out;
	}
	progress_start(&sh.progress, "vary", 0, quiet);
	sh.progress.failed_word = "dropped";  /* the library rejected them: not a failure */
	if (vary_run(&v, &e) < 0) {
		progress_clear(&sh.progress);
		code = cmd_error(&e);
		if (e.code == EXIT_INTERRUPTED || (e.code == EXIT_ENV && v.tried))
			fprintf(stderr, "ferry: %zu variants kept so far are in '%s'; run the same command to go on\n",
				v.kept, output);
		goto out;
	}
	progress_finish(&sh.progress);
	print_summary(&v, o.corpus, o.output);
out:
	vary_release(&v);
	err_release(&e);
	free(command);
	return code;
}

const struct cmd_entry cmd_vary_entry = {
	.name = "vary", .fn = cmd_vary, .needs = CMD_NEEDS_NOTHING, .usage = usage, .opts = options,
	.summary = "derive variants of every instance, kept where the library accepts them",
};
