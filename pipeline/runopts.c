/* runopts.c: what a run of the session (oracle/session.h) shares between ferry run, ferry check and
 * ferry go: the set of its options, the progress line it draws and the summary it prints
 * (runopts.h); the command line that fills it is src/runargs.c's. */
#include "runopts.h"
#include "esc.h"
#include "fsutil.h"
#include "opts.h"
#include "py.h"
#include "tolerance.h"
#include "xalloc.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static void on_warn(void *ctx, const char *msg)
{
	struct runopts *r = ctx;

	progress_clear(&r->progress);
	if (r->warn)
		r->warn(NULL, msg);
}

static void on_started(void *ctx, const struct frontend *fe, const struct session_progress *lanes, size_t n)
{
	struct runopts *r = ctx;

	snprintf(r->label, sizeof(r->label), "run %s", fe->label);
	progress_start(&r->progress, r->label, 0, r->quiet);
	runopts_progress_lanes(r, lanes, n);
}

static void on_progress(void *ctx, const struct session_progress *lanes, size_t n, size_t failed)
{
	struct runopts *r = ctx;
	size_t tests[PROGRESS_MAX_LANES], probes[PROGRESS_MAX_LANES];
	double running[PROGRESS_MAX_LANES];

	n = n < PROGRESS_MAX_LANES ? n : PROGRESS_MAX_LANES;
	for (size_t i = 0; i < n; i++) {
		tests[i] = lanes[i].tests_done;
		probes[i] = lanes[i].probes_done;
		running[i] = lanes[i].longest;
	}
	progress_update_lanes(&r->progress, tests, probes, running, failed);
}

void runopts_progress_lanes(struct runopts *r, const struct session_progress *lanes, size_t n)
{
	size_t tests[PROGRESS_MAX_LANES], probes[PROGRESS_MAX_LANES];

	n = n < PROGRESS_MAX_LANES ? n : PROGRESS_MAX_LANES;
	for (size_t i = 0; i < n; i++) {
		tests[i] = lanes[i].tests;
		probes[i] = lanes[i].probes;
	}
	progress_lanes(&r->progress, n, tests, probes);
}

static void on_finished(void *ctx, int ok)
{
	struct runopts *r = ctx;

	if (ok)
		progress_finish(&r->progress);
	else
		progress_clear(&r->progress);
}

void runopts_init(struct runopts *r, void (*warn)(void *ctx, const char *line))
{
	memset(r, 0, sizeof(*r));
	r->s.atol = TOLERANCE_DEFAULT_ATOL;
	r->s.rtol = TOLERANCE_DEFAULT_RTOL;
	r->s.limit = -1;
	r->limit = -1;
	r->s.nshards = 1;
	r->s.runner.jobs = opts_default_jobs();
	r->s.runner.timeout = 60;
	r->s.runner.start_timeout = 300;
	r->s.runner.stderr_cap = 64 * 1024;
	r->mutations = r->seed = -1;
	r->s.ctx = r;
	r->s.warn = on_warn;
	r->s.started = on_started;
	r->s.progress = on_progress;
	r->s.finished = on_finished;
	r->quiet = 0;
	r->warn = warn;
}

void runopts_release(struct runopts *r)
{
	for (size_t i = 0; i < r->nfes; i++)
		frontend_release(&r->fes[i]);
	select_release(&r->select);
	free(r->command);
	r->nfes = 0;
	r->command = NULL;
}

void runopts_print(const struct runopts *r, const struct session_result *res)
{
	for (size_t i = 0; i < r->nfes; i++) {
		const struct session_result *x = &res[i];

		if (x->unavailable) {
			printf("run %s: unavailable: %s\n", esc_str(r->fes[i].label), esc_str(x->why));
			continue;
		}
		/* The version is the frontend's own word (esc.h); NAME@PYTHON's label already says it. */
		int v = x->version && !r->fes[i].python;

		printf("run %s%s%s%s:\n", esc_str(r->fes[i].label), v ? " (" : "", v ? esc_str(x->version) : "",
		       v ? ")" : "");
		printf("  ran now              %zu\n", x->ran);
		for (size_t k = 0; k < OUTCOME_COUNT; k++)
			if (x->counts[k])
				printf("    %-18s %zu\n", outcome_name(k), x->counts[k]);
		printf("  already in the store %zu\n", x->already);
		printf("  invalid, not run     %zu\n", x->invalid);
		if (x->rerun)
			printf("  run again            %zu (--rerun)\n", x->rerun);
		if (x->maxfail)
			printf("  stopped at --maxfail %d failures of this command\n", r->maxfail);
		if (x->budget_left_out)
			printf("  left for later       %zu (limit, budget or --maxfail)\n", x->budget_left_out);
		/* What the frontend supports, per (operator, dtype) group (oracle/probe.h). */
		if (x->probes)
			printf("  probed now           %zu groups: %zu supported, %zu unsupported, %zu failing (%zu "
			       "probes run apart from the tests)\n", x->probes, x->probe_classes[PROBE_SUPPORTED],
			       x->probe_classes[PROBE_UNSUPPORTED], x->probe_classes[PROBE_FAILING], x->probes_apart);
		if (x->probes_cached)
			printf("  probed before        %zu groups (this release)\n", x->probes_cached);
		if (x->reductions)
			printf("  reduced now          %zu of %zu inconsistencies (ferry bugs groups them, ferry show\n"
			       "                       writes each one's reproducer)\n", x->reduced, x->reductions);
	}
}

void runopts_print_selection(const struct runopts *r, const struct session *s)
{
	size_t queued, unknown, left_out;

	session_selection(s, &queued, &unknown, &left_out);
	if (r->quiet || (!unknown && !left_out))
		return;
	fflush(stdout);
	/* A queue of the whole corpus over a wrapped sample is normal: said in one line, no warning. */
	if (unknown)
		fprintf(stderr, "ferry: the queue '%s' names %zu tests, %zu of them wrapped (the others are not run)\n",
			esc_str(r->s.queue), queued, queued - unknown);
	if (left_out)
		fprintf(stderr, "ferry: --op/--test leave out %zu of the tests\n", left_out);
}

int runopts_add_format(struct wrap_opts *o, size_t *cap, const struct frontend *fe, struct err *e)
{
	const char *args[1] = { fe->name };
	struct wrap_format *fm = (struct wrap_format *)o->formats;
	char *format = py_call_strings("ferry.oracle.registry", "format_of", args, 1,
				       "cannot read the frontends' formats", e);

	if (!format)
		return -1;
	XGROW(fm, *cap, o->nformats + 1);
	fm[o->nformats].library = xstrdup(fe->library);
	fm[o->nformats++].format = format;
	o->formats = fm;
	return 0;
}

void runopts_formats_free(struct wrap_opts *o)
{
	for (size_t k = 0; k < o->nformats; k++) {
		free((char *)o->formats[k].library);
		free((char *)o->formats[k].format);
	}
	free((struct wrap_format *)o->formats);
	o->formats = NULL;
	o->nformats = 0;
}
