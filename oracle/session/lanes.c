/* lanes.c: running a session's frontends: one after another, each on a pool of its own, or side by
 * side on one shared pool (runner_run_shared), each frontend's state a lane swapped in for its
 * callbacks. */
#include "private.h"
#include "buf.h"
#include "fsutil.h"
#include "xalloc.h"

#include <stdlib.h>
#include <string.h>

static size_t results_of(const struct session_result *r);

#define LANE_SWAP(f) do { __typeof__(s->f) tmp_ = s->f; s->f = l->f; l->f = tmp_; } while (0)

/* Exchange the frontend state of s with lane l's: the first call takes l's state in, the second
 * puts it back. session_next_job, session_job_done and the rest work on s's fields, as for a frontend run alone. */
static void lane_swap(struct session *s, struct lane *l)
{
	LANE_SWAP(fe);
	LANE_SWAP(res);
	LANE_SWAP(run_id);
	LANE_SWAP(cursor);
	LANE_SWAP(reached);
	LANE_SWAP(failed);
	LANE_SWAP(out_of_time);
	LANE_SWAP(format_why);
	LANE_SWAP(groups);
	LANE_SWAP(version);
	LANE_SWAP(version_known);
	LANE_SWAP(peers);
	LANE_SWAP(npeers);
	LANE_SWAP(reduce);
	LANE_SWAP(nreduce);
	LANE_SWAP(reduce_cap);
	LANE_SWAP(canary);
	LANE_SWAP(halves);
	LANE_SWAP(nhalves);
	LANE_SWAP(halves_cap);
	LANE_SWAP(batches_out);
	LANE_SWAP(held);
	LANE_SWAP(batch_k);
	s->cur = s->cur == l ? NULL : l;
}

/* A job handed out to lane l's workers / answered (or given up). */
static void flight_start(struct lane *l, const struct runner_job *job)
{
	XGROW(l->flights, l->flights_cap, l->nflights + 1);
	l->flights[l->nflights].key = xstrdup(job->key);
	l->flights[l->nflights++].start = session_now();
}

static void flight_end(struct lane *l, const struct runner_job *job)
{
	for (size_t i = 0; i < l->nflights; i++)
		if (!strcmp(l->flights[i].key, job->key)) {
			free(l->flights[i].key);
			l->flights[i] = l->flights[--l->nflights];
			return;
		}
}

static void flights_forget(struct lane *l)
{
	for (size_t i = 0; i < l->nflights; i++)
		free(l->flights[i].key);
	free(l->flights);
	l->flights = NULL;
	l->nflights = l->flights_cap = 0;
}

double session_longest(const struct lane *l)
{
	double now = session_now(), most = 0;

	for (size_t i = 0; i < l->nflights; i++)
		if (now - l->flights[i].start > most)
			most = now - l->flights[i].start;
	return most;
}

/* The start of frontend fe's run (with s holding its state): the store's run, its groups and
 * peers, pending reductions, the tests it will take; ro and cb for its workers. */
static int lane_begin(struct session *s, struct lane *l, struct session_result *res, struct runner_opts *ro,
		      struct runner_callbacks *cb, struct err *e)
{
	const struct frontend *fe = l->frontend;
	int ret;

	l->self = fs_self_exe();
	session_worker_command(fe, l->self, l->wargv, l->env);
	session_worker_opts(ro, &s->o->runner, l->wargv, l->env);
	s->fe = fe;
	s->res = res;
	s->cursor = 0;
	s->reached = 0;
	s->failed = 0;
	s->out_of_time = 0;
	free(s->format_why);
	s->format_why = NULL;
	ret = db_start_run(&s->db, fe->label, NULL, s->o->command, &s->run_id, e);
	if (ret == 0)
		ret = db_set_unavailable(&s->db, fe->label, NULL, NULL, e);
	if (ret < 0)
		return -1;
	l->started = 1;
	if (!s->o->no_probe)
		session_find_groups(s);
	session_find_peers(s);
	/* Inconsistencies an interrupted run left unreduced go first. */
	if (session_metamorphic(s->o->oracle) &&
	    db_mutations(&s->db, session_store_name(fe), session_pending_reduction, s, e) < 0)
		return -1;
	{
		size_t probes, tests = session_remaining(s, &probes);
		int canary = 0;

		/* The canary runs where tests do: a run with nothing to do starts no worker for it. */
		if (tests && session_canary_begin(s, &canary, e) < 0)
			return -1;
		/* Probes and the canary are chosen by the release: the workers say it before the first job. */
		if ((!s->o->no_probe || canary) && tests)
			cb->ready = session_ready;
		l->tests = s->o->probe_only ? 0 : tests;
		l->probes = probes;
	}
	return 0;
}

/* The end of the run begun by lane_begin (s holding its state), ret its outcome so far: a release
 * that cannot take the format is recorded unavailable; a run that went through is finished. */
static int lane_end(struct session *s, struct lane *l, int ret, struct err *e)
{
	struct session_result *res = s->res;
	struct buf why = BUF_INIT;

	session_forget_groups(s);
	session_forget_reductions(s);
	session_forget_canary(s);
	session_forget_batches(s);
	if (ret < 0 && s->format_why && e->code == EXIT_ENV) {
		/* Recorded for report, and no test of it counted as run. */
		err_release(e);
		res->unavailable = 1;
		res->why = xasprintf("this release cannot take %s", s->format_why);
		res->ran = 0;
		buf_addf(&why, "unavailable for %s", s->format_why);
		ret = db_set_unavailable(&s->db, l->frontend->label, res->version, why.data, e);
	}
	if (ret == 0 && l->started)
		ret = db_finish_run(&s->db, s->run_id, res->version, e);
	/* session_job_done's, and s holds it only while the lane is swapped in: a shared pool's lanes are
	 * freed without it */
	free(s->format_why);
	s->format_why = NULL;
	buf_release(&why);
	free(l->env[0]);
	free(l->self);
	l->env[0] = l->self = NULL;
	flights_forget(l);
	return ret;
}

/* A frontend run alone: its callbacks, with its jobs in flight kept (s->alone). */
static int alone_next(void *ctx, struct runner_job *job, struct err *e)
{
	struct session *s = ctx;
	int r = session_next_job(s, job, e);

	if (r == 1)
		flight_start(s->alone, job);
	return r;
}

static int alone_done(void *ctx, const struct runner_job *job, const struct runner_outcome *o, struct err *e)
{
	struct session *s = ctx;

	flight_end(s->alone, job);
	return session_job_done(s, job, o, e);
}

static int run_frontend(struct session *s, const struct frontend *fe, struct session_result *res, struct err *e)
{
	struct runner_opts ro = s->o->runner;
	struct runner_callbacks cb = { s, alone_next, alone_done, session_tick, NULL };
	struct lane l;
	int ret;

	memset(&l, 0, sizeof(l));
	l.s = s;
	l.frontend = fe;
	/* A release whose worker could not start when it was labelled: reported once, as a missing
	 * package is, and nothing recorded under a label that names no release. */
	if (fe->why)
		return err_set(e, EXIT_ENV, "%s", fe->why);
	ret = lane_begin(s, &l, res, &ro, &cb, e);
	if (ret == 0) {
		struct session_progress sp = { l.tests, l.probes, 0, 0, 0 };

		s->alone = &l;
		if (s->o->started)
			s->o->started(s->o->ctx, fe, &sp, 1);
		ret = runner_run(&ro, &cb, &res->version, e);
		s->alone = NULL;
		if (s->o->finished)
			s->o->finished(s->o->ctx, ret == 0);
	}
	return lane_end(s, &l, ret, e);
}

/* The shared pool's callbacks: each runs its lane's frontend state in s. */
static int lane_next(void *ctx, struct runner_job *job, struct err *e)
{
	struct lane *l = ctx;
	int r;

	lane_swap(l->s, l);
	r = session_next_job(l->s, job, e);
	lane_swap(l->s, l);
	if (r == 1)
		flight_start(l, job);
	return r;
}

static int lane_done(void *ctx, const struct runner_job *job, const struct runner_outcome *o, struct err *e)
{
	struct lane *l = ctx;
	int r;

	flight_end(l, job);
	lane_swap(l->s, l);
	r = session_job_done(l->s, job, o, e);
	lane_swap(l->s, l);
	return r;
}

static void lane_ready(void *ctx, const char *version)
{
	struct lane *l = ctx;

	lane_swap(l->s, l);
	session_ready(l->s, version);
	lane_swap(l->s, l);
}

static void lane_tick(void *ctx)
{
	session_tick(((struct lane *)ctx)->s);
}

/* Whether the frontends may share one pool. The differential oracle compares a frontend's outputs
 * of a test with those the frontends before it kept: it needs them to have run the test first, so a
 * session that takes it runs one frontend after another. */
static int shareable(const struct session *s, size_t nfes)
{
	if (nfes < 2 || s->o->differential)
		return 0;
	for (size_t i = 0; i < s->norder; i++)
		if (!strcmp(s->tests[s->order[i]].in.kind, "graph"))
			return 0;
	return 1;
}

/* Every frontend at once on one pool of s->o->runner.jobs workers (runner_run_shared): each keeps
 * its own queue order, probes, reductions and results; one progress line counts them all. A
 * frontend that cannot start, or whose release cannot take the format, is unavailable as in a run
 * of it alone, and the others go on. */
static int run_shared(struct session *s, const struct frontend *fes, size_t nfes, struct session_result *results,
		      struct err *e)
{
	struct lane *lanes = xcalloc(nfes, sizeof(*lanes));
	struct runner_shared *rs = xcalloc(nfes, sizeof(*rs));
	struct runner_shared **order = xcalloc(nfes, sizeof(*order));
	struct frontend all;
	struct buf labels = BUF_INIT;
	struct session_progress *sp = xcalloc(nfes, sizeof(*sp));
	size_t nrun = 0, unavailable = 0;
	int ret = 0, pool;

	memset(&all, 0, sizeof(all));
	s->lanes = lanes;
	s->nlanes = nfes;
	for (size_t i = 0; i < nfes && ret == 0; i++) {
		struct lane *l = &lanes[i];

		l->s = s;
		l->frontend = &fes[i];
		buf_addf(&labels, "%s%s", labels.len ? "," : "", fes[i].label);
		if (fes[i].why) {
			results[i].unavailable = 1;
			results[i].why = xstrdup(fes[i].why);
			unavailable++;
			continue;
		}
		rs[nrun].cb = (struct runner_callbacks){ l, lane_next, lane_done, nrun ? NULL : lane_tick, NULL };
		lane_swap(s, l);
		ret = lane_begin(s, l, &results[i], &rs[nrun].opts, &rs[nrun].cb, e);
		lane_swap(s, l);
		if (rs[nrun].cb.ready)
			rs[nrun].cb.ready = lane_ready;
		sp[nrun].tests = l->tests;
		sp[nrun].probes = l->probes;
		order[i] = &rs[nrun++];
	}
	all.label = labels.data;
	if (ret == 0 && s->o->started)
		s->o->started(s->o->ctx, &all, sp, nrun);
	free(sp);
	pool = ret == 0 ? runner_run_shared(rs, nrun, s->o->runner.jobs, e) : -1;
	if (ret == 0 && s->o->finished)
		s->o->finished(s->o->ctx, pool == 0);
	for (size_t i = 0; i < nfes; i++) {
		struct lane *l = &lanes[i];
		struct runner_shared *r = order[i];
		struct err le = ERR_INIT;
		int lret;

		if (!r)
			continue;
		results[i].version = r->version;
		r->version = NULL;
		if (pool < 0) {
			/* Interrupted or failed as a whole: what finished is stored, nothing more recorded. */
			lane_swap(s, l);
			session_forget_groups(s);
			session_forget_reductions(s);
			session_forget_canary(s);
			free(s->format_why);
			s->format_why = NULL;
			lane_swap(s, l);
			free(l->env[0]);
			free(l->self);
			flights_forget(l);
			err_release(&r->err);
			continue;
		}
		lret = r->err.code != EXIT_OK ? -1 : 0;
		le = r->err;
		lane_swap(s, l);
		lret = lane_end(s, l, lret, &le);
		lane_swap(s, l);
		if (lret == 0) {
			unavailable += results[i].unavailable;
		} else if (le.code != EXIT_ENV || results_of(&results[i]) > 0) {
			/* As a run of the frontends in turn would have stopped here. */
			if (ret == 0)
				*e = le;
			else
				err_release(&le);
			ret = -1;
		} else {
			results[i].unavailable = 1;
			results[i].why = xstrdup(le.msg);
			err_release(&le);
			unavailable++;
		}
	}
	if (pool < 0)
		ret = -1;
	s->lanes = NULL;
	s->nlanes = 0;
	buf_release(&labels);
	free(order);
	free(rs);
	free(lanes);
	if (ret == 0 && nfes && unavailable == nfes)
		return err_set(e, EXIT_ENV, "no frontend could be run: %s", results[0].why);
	return ret;
}

static size_t results_of(const struct session_result *r)
{
	size_t n = 0;

	for (size_t i = 0; i < OUTCOME_COUNT; i++)
		n += r->counts[i];
	return n;
}

int session_run(struct session *s, const struct frontend *fes, size_t nfes, struct session_result *results,
		struct err *e)
{
	size_t unavailable = 0;

	memset(results, 0, nfes * sizeof(*results));
	if (shareable(s, nfes))
		return run_shared(s, fes, nfes, results, e);
	for (size_t i = 0; i < nfes; i++) {
		if (run_frontend(s, &fes[i], &results[i], e) == 0) {
			unavailable += results[i].unavailable;
			continue;
		}
		/* A worker that cannot start before any result: the frontend's package is missing or broken. */
		if (e->code != EXIT_ENV || results_of(&results[i]) > 0)
			return -1;
		results[i].unavailable = 1;
		results[i].why = xstrdup(e->msg);
		err_release(e);
		unavailable++;
	}
	if (nfes && unavailable == nfes)
		return err_set(e, EXIT_ENV, "no frontend could be run: %s", results[0].why);
	return 0;
}

void session_result_release(struct session_result *r)
{
	free(r->version);
	free(r->why);
	free(r->canary_skipped);
	memset(r, 0, sizeof(*r));
}
