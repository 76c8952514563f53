/* variants.c: ferry vary's stage (variants.h), which ferry vary and ferry go call:
 *
 * Grows every instance of a corpus along dtype, rank and shape, parameter values, scalar vs tensor
 * and a value's Python type, and keeps the variants that the source library accepts (the engine: vary/vary.h).
 * VARIANTS is a corpus like any other, each line naming its parent and what changed; VARIANTS.log
 * holds every candidate tried, so running the same command again goes on where an interrupted run
 * stopped. The same corpus, seed and options make the same VARIANTS whatever -j; one vary at a time
 * writes VARIANTS (a second is refused, naming the first). This file shows progress and prints
 * the summary around the engine. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "esc.h"
#include "opts.h"
#include "progress.h"
#include "variants.h"
#include "vary.h"

/* A candidate's reference is one operator on small inputs: one that needs more than this is a
 * parameter at an extreme (a 1024-wide kernel, a repeat by 1024), cut short rather than left to
 * take a quarter of the machine and minutes of swapping before the limit of ferry run would. */
#define VARY_MEMORY (4ULL << 30)

struct show {
	struct progress progress;
	const struct stage_io *io;
};

static void on_warn(void *ctx, const char *msg)
{
	struct show *sh = ctx;

	progress_clear(&sh->progress);
	sh->io->warn(NULL, msg);
}

static void on_progress(void *ctx, size_t tried, size_t dropped)
{
	struct show *sh = ctx;

	progress_update(&sh->progress, tried, dropped);
}

static void print_summary(FILE *fp, const struct vary *v, const char *what, const char *corpus, const char *out)
{
	struct strmap_entry **r = strmap_sorted(&v->reasons);

	fprintf(fp, "%s %s -> %s:\n", what, esc_str(corpus), esc_str(out));
	fprintf(fp, "  parents              %zu\n", v->parents);
	if (v->graphs)
		fprintf(fp, "  graphs, not varied   %zu\n", v->graphs);
	fprintf(fp, "  tried                %zu\n", v->tried);
	fprintf(fp, "    kept               %zu\n", v->kept);
	fprintf(fp, "      undefined        %zu\n", v->undefined);
	fprintf(fp, "    duplicates         %zu\n", v->duplicates);
	fprintf(fp, "    dropped            %zu\n", v->dropped);
	for (size_t i = 0; r[i] && i < 10; i++)
		fprintf(fp, "      %6zu  %s\n", r[i]->count, esc_str(r[i]->key));  /* the library's words */
	if (v->reasons.len > 10)
		fprintf(fp, "      (%zu more reasons)\n", v->reasons.len - 10);
	/* What the log holds from earlier runs: those are not tried again (and a parent whose quota
	 * they filled is not reopened). */
	if (v->log_tried)
		fprintf(fp, "  earlier runs tried   %zu\n", v->log_tried);
	/* Validated ahead of the order by a worker that had nothing else to do, and not reached: its
	 * parent's quota was met first. Nothing of them is written. */
	if (v->unused)
		fprintf(fp, "  validated, not used  %zu\n", v->unused);
	/* Made known refused by the rules, so not tried: a weightless torch module's dtype= argument. */
	if (v->skipped)
		fprintf(fp, "  skipped, not tried   %zu\n", v->skipped);
	if (v->bad_lines)
		fprintf(fp, "  bad corpus lines     %zu\n", v->bad_lines);
	if (v->cut)
		fprintf(fp, "  torn line cut        %zu bytes\n", v->cut);
	fprintf(fp, "  validated per second %.1f\n", v->seconds > 0 ? (double)v->tried / v->seconds : 0.0);
	fprintf(fp, "  per dimension        tried  kept\n");
	for (int d = 0; d < RULES_NDIMS; d++)
		fprintf(fp, "    %-18s %6zu %5zu\n", vary_dim_name((enum rules_dim)d), v->dims[d].tried,
			v->dims[d].kept);
	free(r);
}

int variants_make(const struct variants_opts *a, const struct stage_io *io)
{
	struct vary v;
	struct vary_opts o;
	struct show sh;
	struct err e = ERR_INIT;
	int code = EXIT_OK;

	memset(&v, 0, sizeof(v));
	memset(&o, 0, sizeof(o));
	memset(&sh, 0, sizeof(sh));
	sh.io = io;
	o.corpus = a->corpus;
	o.output = a->output;
	o.per_instance = a->per_instance;
	o.seed = (uint64_t)a->seed;
	o.budget = (size_t)a->budget;
	o.command = a->command;
	o.jobs = a->jobs;
	o.timeout = a->timeout;
	o.mem_limit = a->memory;
	o.python = io->python;
	o.one_change = a->one_change;
	o.pools_corpus = a->pools_corpus;
	if (!a->memory) {
		unsigned long long share = opts_default_memory(a->jobs);

		o.mem_limit = share && share < VARY_MEMORY ? share : VARY_MEMORY;
	}
	o.ctx = &sh;
	o.warn = on_warn;
	o.progress = on_progress;
	if (vary_open(&v, &o, &e) < 0) {
		code = io->error(&e);
		goto out;
	}
	progress_start(&sh.progress, a->what ? a->what : "vary", 0, a->quiet);
	sh.progress.failed_word = "dropped";  /* the library rejected them: not a failure */
	if (vary_run(&v, &e) < 0) {
		progress_clear(&sh.progress);
		code = io->error(&e);
		if (e.code == EXIT_INTERRUPTED || (e.code == EXIT_ENV && v.tried))
			fprintf(stderr, "ferry: %zu variants kept so far are in '%s'; run the same command to go on\n",
				v.kept, a->output);
		goto out;
	}
	progress_finish(&sh.progress);
	print_summary(io->out, &v, a->what ? a->what : "vary", o.corpus, o.output);
out:
	vary_release(&v);
	err_release(&e);
	return code;
}
