/* runopts.c: what a run of the session (oracle/session.h) shares between ferry run, ferry check and
 * ferry go: the set of its options, the progress line it draws and the summary it prints
 * (runopts.h); the command line that fills it is src/runargs.c's. */
#include "runopts.h"
#include "dedup.h"
#include "esc.h"
#include "fsutil.h"
#include "kinds.h"
#include "opts.h"
#include "py.h"
#include "tolerance.h"
#include "xalloc.h"

#include <cjson/cJSON.h>
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

/* --- --json ----------------------------------------------------------------------------------- */

cJSON *runopts_json_string(const char *s)
{
	return s ? cJSON_CreateString(s) : cJSON_CreateNull();
}

cJSON *runopts_json(const struct runopts *r, const struct session_result *res)
{
	cJSON *all = cJSON_CreateArray();

	for (size_t i = 0; i < r->nfes; i++) {
		const struct session_result *x = &res[i];
		cJSON *o = cJSON_CreateObject(), *counts;

		cJSON_AddStringToObject(o, "frontend", r->fes[i].label);
		cJSON_AddItemToObject(o, "version", runopts_json_string(x->version));
		cJSON_AddItemToObject(o, "unavailable", runopts_json_string(x->unavailable ? x->why : NULL));
		cJSON_AddNumberToObject(o, "ran", (double)x->ran);
		counts = cJSON_AddObjectToObject(o, "outcomes");
		for (size_t k = 0; k < OUTCOME_COUNT; k++)
			if (x->counts[k])
				cJSON_AddNumberToObject(counts, outcome_name(k), (double)x->counts[k]);
		cJSON_AddNumberToObject(o, "already", (double)x->already);
		cJSON_AddNumberToObject(o, "invalid", (double)x->invalid);
		cJSON_AddNumberToObject(o, "rerun", (double)x->rerun);
		cJSON_AddNumberToObject(o, "left_for_later", (double)x->budget_left_out);
		cJSON_AddBoolToObject(o, "maxfail", x->maxfail);
		cJSON_AddItemToArray(all, o);
	}
	return all;
}

static int add_member(void *ctx, const char *fe, const char *bug_id, const char *id, const char *op,
		      struct err *e)
{
	struct strmap_entry *m;
	char *key = xasprintf("%s\x1f%s", fe, id);

	(void)op;
	(void)e;
	m = strmap_get(ctx, key, NULL);
	free(key);
	if (!m->ptr)
		m->ptr = xstrdup(bug_id);
	return 0;
}

int runopts_bugs(struct db *d, struct strmap *out, struct err *e)
{
	return db_bug_members(d, NULL, NULL, -1, add_member, out, e);
}

void runopts_bugs_release(struct strmap *m)
{
	for (size_t i = 0; i < m->cap; i++)
		if (m->slots[i].key)
			free(m->slots[i].ptr);
	strmap_release(m);
}

struct failures {
	struct session *s;
	const char *fe;             /* the frontend of the session's tests being listed */
	struct strmap kinds, bugs;
	cJSON *out, *counts;        /* counts: with runopts_json_store, "FRONTEND" -> {outcome: n} */
	struct err *e;
};

static int add_failure(void *ctx, const struct db_row *row, struct err *e)
{
	struct failures *f = ctx;
	char *key, *name;
	const struct strmap_entry *kind, *bug;
	cJSON *o, *prov;

	(void)e;
	if (f->counts) {
		cJSON *fe = cJSON_GetObjectItemCaseSensitive(f->counts, row->frontend), *n;

		if (!fe)
			fe = cJSON_AddObjectToObject(f->counts, row->frontend);
		if ((n = cJSON_GetObjectItemCaseSensitive(fe, row->outcome)))
			cJSON_SetNumberValue(n, n->valuedouble + 1);
		else
			cJSON_AddNumberToObject(fe, row->outcome, 1);
	}
	if (!outcome_name_is_failure(row->outcome))
		return 0;
	key = xasprintf("%s\x1f%s", row->frontend, row->id);
	kind = strmap_find(&f->kinds, key);
	bug = strmap_find(&f->bugs, key);
	free(key);
	prov = row->record ? cJSON_Parse(row->record) : NULL;
	o = cJSON_CreateObject();
	cJSON_AddStringToObject(o, "frontend", row->frontend);
	cJSON_AddStringToObject(o, "id", row->id);
	cJSON_AddItemToObject(o, "op", runopts_json_string(row->op));
	cJSON_AddStringToObject(o, "origin", record_origin_name(record_origin(prov)));
	name = record_name(prov, row->id);
	cJSON_AddStringToObject(o, "name", name);
	free(name);
	cJSON_Delete(prov);
	cJSON_AddStringToObject(o, "outcome", row->outcome);
	cJSON_AddItemToObject(o, "stage", runopts_json_string(row->stage));
	/* ferry's own error is no one's bug; else the kind its group was found (kinds.h). */
	cJSON_AddItemToObject(o, "kind", outcome_name_is_bug(row->outcome) ?
			      cJSON_CreateString(kinds_name(kind ? (enum kind)kind->count : KIND_BUG)) :
			      cJSON_CreateNull());
	cJSON_AddItemToObject(o, "bug", runopts_json_string(bug ? bug->ptr : NULL));
	cJSON_AddItemToObject(o, "message", runopts_json_string(row->message));
	cJSON_AddItemToArray(f->out, o);
	return 0;
}

static int each_failure(void *ctx, const struct wrapped *t)
{
	struct failures *f = ctx;

	if (!t->valid)
		return 0;
	return db_result(session_db(f->s), f->fe, t->in.id, add_failure, f, f->e) < 0 ? -1 : 0;
}

int runopts_json_failures(const struct runopts *r, struct session *s, cJSON *failures, struct err *e)
{
	struct failures f = { s, NULL, STRMAP_INIT, STRMAP_INIT, failures, NULL, e };
	int ret = -1;

	/* kinds_tests groups the store's failures afresh first: the bug ids are then today's. */
	if (kinds_tests(session_db(s), &f.kinds, e) < 0 || runopts_bugs(session_db(s), &f.bugs, e) < 0)
		goto out;
	for (size_t i = 0; i < r->nfes; i++) {
		f.fe = r->fes[i].label;
		if (session_each(s, &r->fes[i], each_failure, &f) < 0)
			goto out;
	}
	ret = 0;
out:
	kinds_tests_release(&f.kinds);
	runopts_bugs_release(&f.bugs);
	return ret;
}

int runopts_json_store(const char *store, cJSON *into, struct err *e)
{
	struct db d = DB_INIT;
	struct failures f = { NULL, NULL, STRMAP_INIT, STRMAP_INIT, NULL, NULL, e };
	int ret = -1;

	f.counts = cJSON_AddObjectToObject(into, "outcomes");
	f.out = cJSON_AddArrayToObject(into, "failures");
	if (!fs_exists(store))
		return 0;
	if (db_open(&d, store, DB_WRITE, e) < 0 || kinds_tests(&d, &f.kinds, e) < 0 ||
	    runopts_bugs(&d, &f.bugs, e) < 0 || db_results_with(&d, NULL, NULL, add_failure, &f, e) < 0)
		goto out;
	ret = 0;
out:
	kinds_tests_release(&f.kinds);
	runopts_bugs_release(&f.bugs);
	db_close(&d);
	return ret;
}

void runopts_json_print(cJSON *doc)
{
	char *text = cJSON_Print(doc);

	printf("%s\n", text);
	free(text);
	cJSON_Delete(doc);
}

struct collected {
	long limit;
	size_t listed, invalid;
};

void runopts_collect_line(const struct instance *in)
{
	const cJSON *src = in->extra ? cJSON_GetObjectItemCaseSensitive(in->extra, "source") : NULL;
	const cJSON *test = src ? cJSON_GetObjectItemCaseSensitive(src, "test") : NULL;

	/* esc_str's buffer is reused: one call per printf. */
	printf("%s  %s", in->id, esc_str(in->op));
	printf("  %s", cJSON_IsString(test) ? esc_str(test->valuestring) : "-");
	printf("  %s\n", esc_str(in->kind));
}

static int collect_one(void *ctx, const struct wrapped *t)
{
	struct collected *c = ctx;

	if (!t->valid) {
		c->invalid++;
		return 0;
	}
	if (c->limit >= 0 && c->listed >= (size_t)c->limit)
		return 0;
	c->listed++;
	runopts_collect_line(&t->in);
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
