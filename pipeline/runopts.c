/* runopts.c: what a run of the session (oracle/session.h) shares between ferry run, ferry check and
 * ferry go: the set of its options, the progress line it draws and the summary it prints
 * (runopts.h); the command line that fills it is src/runargs.c's. */
#include "runopts.h"

#include <cjson/cJSON.h>

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

static void on_started(void *ctx, const struct frontend *fe, size_t total)
{
	struct runopts *r = ctx;

	snprintf(r->label, sizeof(r->label), "run %s", fe->label);
	progress_start(&r->progress, r->label, total, r->quiet);
}

static void on_progress(void *ctx, size_t done, size_t failed)
{
	struct runopts *r = ctx;

	progress_update(&r->progress, done, failed);
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

struct collected {
	long limit;
	size_t listed, invalid;
};

static int collect_one(void *ctx, const struct wrapped *t)
{
	struct collected *c = ctx;
	const cJSON *src = t->in.extra ? cJSON_GetObjectItemCaseSensitive(t->in.extra, "source") : NULL;
	const cJSON *test = src ? cJSON_GetObjectItemCaseSensitive(src, "test") : NULL;

	if (!t->valid) {
		c->invalid++;
		return 0;
	}
	if (c->limit >= 0 && c->listed >= (size_t)c->limit)
		return 0;
	c->listed++;
	/* esc_str's buffer is reused: one call per printf. */
	printf("%s  %s", t->in.id, esc_str(t->in.op));
	printf("  %s", cJSON_IsString(test) ? esc_str(test->valuestring) : "-");
	printf("  %s\n", esc_str(t->in.kind));
	return 0;
}

void runopts_collect(const struct runopts *r, struct session *s)
{
	for (size_t i = 0; i < (r->nfes ? r->nfes : 1); i++) {
		struct collected c = { r->limit, 0, 0 };
		const struct frontend *fe = r->nfes ? &r->fes[i] : NULL;

		if (r->nfes > 1)
			printf("%s%s:\n", i ? "\n" : "", esc_str(fe->label));
		session_each(s, fe, collect_one, &c);
		printf("%zu test%s selected%s%s", c.listed, c.listed == 1 ? "" : "s", fe ? " for " : "",
		       fe ? esc_str(fe->label) : "");
		if (c.invalid)
			printf(" (%zu invalid, not run)", c.invalid);
		printf("; nothing run (--collect-only)\n");
	}
}

int runopts_stopped(const struct runopts *r, const struct session_result *res)
{
	size_t left = 0, failures = 0;
	int stopped = 0;

	for (size_t i = 0; i < r->nfes; i++) {
		stopped |= res[i].maxfail;
		left += res[i].budget_left_out;
		for (size_t k = 0; k < OUTCOME_COUNT; k++)
			if (outcome_is_failure(k))
				failures += res[i].counts[k];
	}
	if (!stopped)
		return EXIT_OK;
	/* As pytest -x says it: a run cut short must not read as a run that passed. The tests running
	 * when the limit was reached finish, so there may be more failures than --maxfail. */
	fprintf(stderr, "ferry: stopped early after %zu failure%s (--maxfail %d): %zu test%s not run\n", failures,
		failures == 1 ? "" : "s", r->maxfail, left, left == 1 ? " was" : "s were");
	return EXIT_STOPPED;
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
