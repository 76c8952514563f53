/* jobs.c: the runner's callbacks for the frontend being run: the next job (a reduction, a probe or
 * a test, within the limit, the budget and --maxfail), and a job's outcome judged into the store. */
#include "private.h"
#include "buf.h"
#include "canary.h"
#include "probe.h"
#include "protocol.h"
#include "xalloc.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

double session_now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

const char *session_json_str(const cJSON *o, const char *key)
{
	const cJSON *v = o ? cJSON_GetObjectItemCaseSensitive(o, key) : NULL;

	return cJSON_IsString(v) ? v->valuestring : NULL;
}

/* The test id of a job key in a batch: a probe, or a test that is its group's probe, is there as its
 * job key. */
static const char *test_id(const char *key)
{
	if (!strncmp(key, PROBE_TEST_KEY, strlen(PROBE_TEST_KEY)))
		return key + strlen(PROBE_TEST_KEY);
	return !strncmp(key, PROBE_KEY, strlen(PROBE_KEY)) ? key + strlen(PROBE_KEY) : key;
}

/* The next job down the queue (a probe or a test), as session_next_job's; *alone: the test (the
 * probe's, for a probe's job) that a batch could take in, or NULL where the job runs alone. */
static int next_test(struct session *s, struct runner_job *job, const struct wrapped **alone, struct err *e)
{
	const struct session_opts *o = s->o;

	*alone = NULL;
	while (s->cursor < s->norder) {
		struct wrapped *t = &s->tests[s->order[s->cursor++]];
		int has, probe, existed;

		if (strcmp(t->in.library, s->fe->library))
			continue;
		if (!t->valid) {
			s->res->invalid++;
			continue;
		}
		if ((has = session_has_result(s, t->in.id, &existed, e)) < 0)
			return -1;
		/* The limit is the top of the queue, done or not: a resumed run finishes the same tests. */
		if (o->limit >= 0 && s->reached >= (size_t)o->limit) {
			s->res->budget_left_out += !has;
			continue;
		}
		s->reached++;
		if (has) {
			s->res->already++;
			continue;
		}
		if (o->maxfail > 0 && s->failures >= (size_t)o->maxfail)
			s->res->maxfail = 1;
		if (s->res->maxfail || s->out_of_time || (o->budget > 0 && session_now() - s->start >= o->budget)) {
			/* Count what the budget or --maxfail leaves out, then stop taking tests. */
			s->out_of_time = 1;
			s->res->budget_left_out++;
			continue;
		}
		/* The group's probe first; t is taken again next time. */
		probe = s->version_known ? session_probe_job(s, t, job, e) : 0;
		if (probe < 0 || probe == 1) {
			s->cursor -= probe == 1;
			s->reached -= probe == 1;
			/* A probe, like a test, may join a batch. */
			if (probe == 1 && !session_metamorphic(o->oracle)) {
				const struct strmap_entry *p = strmap_find(&s->index, test_id(job->key));

				if (p && !session_differential(s, &s->tests[p->count]))
					*alone = &s->tests[p->count];
			}
			return probe;
		}
		if (o->probe_only) {
			/* A test is only its group's probe here: run as one when it is, else skipped. */
			if (probe != 2)
				continue;
			s->res->probes_apart++;
			job->key = xasprintf(PROBE_KEY "%s", t->in.id);
			job->request = session_job_request(s, t);
			if (!session_metamorphic(o->oracle) && !session_differential(s, t))
				*alone = t;
			return 1;
		}
		if (!session_metamorphic(o->oracle) && session_differential(s, t) && session_outputs_dir(s, t, e) < 0)
			return -1;
		s->res->ran++;
		s->res->rerun += existed;
		job->key = probe == 2 ? xasprintf(PROBE_TEST_KEY "%s", t->in.id) : xstrdup(t->in.id);
		job->request = session_job_request(s, t);
		/* A test that is its group's probe may join a batch too: most probes pass, and one that
		 * fails its batch is found alone like any test. */
		if (!session_metamorphic(o->oracle) && !session_differential(s, t) &&
		    (o->batch < 2 || probe == 2 || session_batchable(s, t)))
			*alone = t;
		return 1;
	}
	return 0;
}

/* The request that runs the tests of ids (a batch's key after BATCH_KEY) as one model. */
static char *batch_request(struct session *s, const char *ids)
{
	cJSON *req = cJSON_CreateObject(), *items;
	char *text;

	cJSON_AddStringToObject(req, PROTO_KEY_TASK, PROTO_TASK_RUN);
	cJSON_AddStringToObject(req, PROTO_KEY_ID, BATCH_KEY);
	items = cJSON_AddArrayToObject(req, PROTO_KEY_BATCH);
	for (const char *p = ids; *p; p += strcspn(p, BATCH_SEP) + (p[strcspn(p, BATCH_SEP)] != '\0')) {
		char *id = xstrndup(p, strcspn(p, BATCH_SEP));
		struct strmap_entry *ent = strmap_find(&s->index, test_id(id));
		const struct wrapped *t = ent ? &s->tests[ent->count] : NULL;

		if (t) {
			char *one = session_job_request(s, t);

			cJSON_AddItemToArray(items, cJSON_Parse(one));
			free(one);
		}
		free(id);
	}
	text = cJSON_PrintUnformatted(req);
	cJSON_Delete(req);
	return text;
}

/* The job of key (a half of a failed batch): a batch's, or a test's alone as it runs without
 * --batch. */
static void half_job(struct session *s, char *key, struct runner_job *job)
{
	struct strmap_entry *ent;

	job->key = key;
	if (!strncmp(key, BATCH_KEY, strlen(BATCH_KEY))) {
		job->request = batch_request(s, key + strlen(BATCH_KEY));
		s->batches_out++;
	} else {
		ent = strmap_find(&s->index, test_id(key));
		job->request = session_job_request(s, &s->tests[ent->count]);
	}
}

/* The first batches' size, below --batch's: K grows from it while batches pass. */
#define BATCH_FIRST_K 4

/* Results of the frontend's before its share of tests that do not pass bounds the batches. */
#define BATCH_EVIDENCE 8
/* A batch that failed as a whole with at most this many tests runs them alone, not in halves. */
#define BATCH_ALONE 4

/* The most tests a batch of this frontend should hold: a batch pays only when it is likely to pass
 * whole (a failure anywhere in it costs each of its tests another compilation at least), so while the
 * share q of its tests that did not pass (smoothed: (fails + 1) / (results + 2)) allows K tests to pass
 * together at even odds at least, (1 - q)^K >= 1/2. A frontend that fails or lacks one test in two
 * runs every test alone: on such a sample batches cost 0.8x (bench/README.md). */
static int batch_cap(const struct session *s)
{
	size_t all = 0;
	double q, cap;

	for (int k = 0; k < OUTCOME_COUNT; k++)
		all += s->res->counts[k];
	if (all < BATCH_EVIDENCE)
		return s->o->batch;
	q = ((double)(all - s->res->counts[OUTCOME_PASS]) + 1) / ((double)all + 2);
	if (q >= 0.5)
		return 1;
	cap = log(0.5) / log(1 - q);
	return cap >= s->o->batch ? s->o->batch : (int)cap;
}

/* Fill a batch: the test of job (taken alone) and up to s->batch_k - 1 more after it, each a test
 * or probe that a batch may take; the first job down the queue that is none (a test of the
 * differential oracle, one whose group's probe failed) is held for the next call. One test stays
 * job as it was. */
static int fill_batch(struct session *s, struct runner_job *job, struct err *e)
{
	struct buf key = BUF_INIT;
	int n = 1, cap = batch_cap(s);

	if (cap < 2)
		return 1;
	buf_addf(&key, BATCH_KEY "%s", job->key);
	if (s->batch_k < 2)
		s->batch_k = s->o->batch < BATCH_FIRST_K ? s->o->batch : BATCH_FIRST_K;
	while (n < s->batch_k && n < cap) {
		struct runner_job more = { NULL, NULL };
		const struct wrapped *t;
		int r = next_test(s, &more, &t, e);

		if (r < 0) {
			buf_release(&key);
			return -1;
		}
		if (r == 0)
			break;
		if (!t) {
			s->held = more;
			break;
		}
		buf_addf(&key, BATCH_SEP "%s", more.key);
		runner_job_release(&more);
		n++;
	}
	if (n == 1) {
		buf_release(&key);
		return 1;
	}
	runner_job_release(job);
	half_job(s, buf_detach(&key), job);
	return 1;
}

void session_forget_batches(struct session *s)
{
	for (size_t i = 0; i < s->nhalves; i++)
		free(s->halves[i]);
	free(s->halves);
	s->halves = NULL;
	s->nhalves = s->halves_cap = s->batches_out = 0;
	runner_job_release(&s->held);
}

int session_next_job(void *ctx, struct runner_job *job, struct err *e)
{
	struct session *s = ctx;
	const struct session_opts *o = s->o;
	const struct wrapped *alone;
	int r;

	if (session_reduce_job(s, job))
		return 1;
	if (s->canary) {
		int c = session_canary_job(s, job, e);

		if (c != 0)
			return c;
	}
	if (s->held.key) {
		*job = s->held;
		s->held.key = s->held.request = NULL;
		return 1;
	}
	/* A failed batch's halves before anything new: its tests were counted as run. */
	if (s->nhalves) {
		half_job(s, s->halves[--s->nhalves], job);
		return 1;
	}
	r = next_test(s, job, &alone, e);
	if (r == 1 && alone && o->batch > 1 && s->fe->batch)
		return fill_batch(s, job, e);
	if (r != 0)
		return r;
	/* A test in flight may still turn out inconsistent, and its reduction goes next; a batch in
	 * flight may fail, and its halves go next. */
	return session_metamorphic(o->oracle) || s->batches_out ? 2 : 0;
}

static void count(struct session *s, enum outcome o)
{
	s->res->counts[o]++;
	if (outcome_is_failure(o)) {
		s->failed++;
		s->failures++;
	}
}

/* Tests answered: each counted once, by its outcome. */
static size_t answered(const struct session_result *r)
{
	size_t n = 0;

	for (size_t k = 0; k < OUTCOME_COUNT; k++)
		n += r->counts[k];
	return n;
}

void session_tick(void *ctx)
{
	struct session *s = ctx;
	struct session_progress sp[64];
	size_t n = 0, failed = 0;

	if (!s->o->progress)
		return;
	if (!s->nlanes) {
		if (!s->alone)
			return;
		sp[0] = (struct session_progress){ s->alone->tests, s->alone->probes, answered(s->res),
						   s->res->probes_answered, session_longest(s->alone) };
		s->o->progress(s->o->ctx, sp, 1, s->failed);
		return;
	}
	/* The shared pool: one line for every frontend; the lane in s (if any) has its state there. */
	for (size_t i = 0; i < s->nlanes && n < sizeof(sp) / sizeof(sp[0]); i++) {
		const struct lane *l = &s->lanes[i];
		const struct session_result *r = l == s->cur ? s->res : l->res;

		if (!r)
			continue;
		sp[n++] = (struct session_progress){ l->tests, l->probes, answered(r), r->probes_answered,
						     session_longest(l) };
		failed += l == s->cur ? s->failed : l->failed;
	}
	s->o->progress(s->o->ctx, sp, n, failed);
}

void session_outcome(const struct runner_outcome *o, struct db_result *res, struct buf *msg, struct buf *sig,
		     struct buf *stage)
{
	/* A stage of the mutated model (the metamorphic oracle) is recorded as the stage, and the
	 * message says whose. */
	const char *of_mutated = "";

	res->stage = o->stage;
	if (o->stage && strlen(o->stage) > strlen(PROTO_STAGE_MUTATED) &&
	    !strcmp(o->stage + strlen(o->stage) - strlen(PROTO_STAGE_MUTATED), PROTO_STAGE_MUTATED)) {
		buf_add(stage, o->stage, strlen(o->stage) - strlen(PROTO_STAGE_MUTATED));
		res->stage = stage->data;
		of_mutated = " of the mutated model (m')";
	}
	res->exc_type = res->message = res->frame = NULL;
	res->max_abs = NAN;
	res->seconds = o->seconds;
	res->detail = o->stderr_text && *o->stderr_text ? o->stderr_text : NULL;
	switch (o->end) {
	case RUNNER_REPLY: {
		const cJSON *m = cJSON_GetObjectItemCaseSensitive(o->reply, PROTO_KEY_MAX_ABS);
		const char *outcome = session_json_str(o->reply, PROTO_KEY_OUTCOME);
		int known = outcome_from_name(outcome);

		res->outcome = known >= 0 ? (enum outcome)known : OUTCOME_ERROR;
		res->stage = session_json_str(o->reply, PROTO_KEY_STAGE);
		res->exc_type = session_json_str(o->reply, PROTO_KEY_EXC_TYPE);
		res->message = session_json_str(o->reply, PROTO_KEY_MESSAGE);
		if (known < 0) {
			buf_addf(msg, "the worker's result has %s%s%s",
				 outcome ? "an unknown outcome '" : "no outcome",
				 outcome ? outcome : "", outcome ? "'" : "");
			res->message = msg->data;
		}
		res->frame = session_json_str(o->reply, PROTO_KEY_FRAME);
		if (session_json_str(o->reply, PROTO_KEY_DETAIL))
			res->detail = session_json_str(o->reply, PROTO_KEY_DETAIL);
		if (cJSON_IsNumber(m))
			res->max_abs = m->valuedouble;
		break;
	}
	case RUNNER_TIMEOUT:
		res->outcome = OUTCOME_TIMEOUT;
		buf_addf(msg, "no result after %.0fs%s%s%s", o->seconds, res->stage ? " in stage " : "",
			 res->stage ? res->stage : "", of_mutated);
		res->message = msg->data;
		break;
	case RUNNER_OOM:
		res->outcome = OUTCOME_OOM;
		res->message = *of_mutated ? "the worker passed the memory limit on the mutated model (m')"
			     : "the worker passed the memory limit";
		break;
	case RUNNER_DIED:
		res->outcome = OUTCOME_CRASH;
		if (o->why) {
			/* ferry ended the worker itself: its signal is not the test's */
			buf_adds(msg, o->why);
			if (res->stage)
				buf_addf(msg, " in stage %s%s", res->stage, of_mutated);
			res->message = msg->data;
			break;
		}
		buf_adds(msg, "the worker ");
		proc_status_describe(&o->status, msg);
		if (res->stage)
			buf_addf(msg, " during %s%s", res->stage, of_mutated);
		res->message = msg->data;
		if (o->status.signaled)
			buf_addf(sig, "signal %d", o->status.sig);
		else
			buf_addf(sig, "exit %d", o->status.code);
		res->exc_type = sig->data;
		break;
	}
}

/* Where a test's time went, when its worker answered with the times of the frontend's stages: the
 * rest, up to this moment (just before its row is written), is ferry's. */
static void time_result(const struct runner_outcome *o, struct db_result *res, double entered)
{
	const cJSON *t = o->end == RUNNER_REPLY ? cJSON_GetObjectItemCaseSensitive(o->reply, PROTO_KEY_TIMES) : NULL;
	const cJSON *l = cJSON_GetObjectItemCaseSensitive(t, PROTO_STAGE_LOAD);
	const cJSON *c = cJSON_GetObjectItemCaseSensitive(t, PROTO_STAGE_COMPILE);
	const cJSON *x = cJSON_GetObjectItemCaseSensitive(t, PROTO_STAGE_EXECUTE);
	const cJSON *wait = cJSON_GetObjectItemCaseSensitive(t, PROTO_TIME_WAIT);
	const cJSON *worker = cJSON_GetObjectItemCaseSensitive(t, PROTO_TIME_WORKER);
	double ferry;

	res->timed = cJSON_IsNumber(l) && cJSON_IsNumber(c) && cJSON_IsNumber(x);
	if (!res->timed)
		return;
	res->load_seconds = l->valuedouble;
	res->compile_seconds = c->valuedouble;
	res->execute_seconds = x->valuedouble;
	/* The worker's wait for the request and its time with the test, on its clock: a worker that
	 * has its next request behind the current one goes on at once, while ferry reads the answer
	 * and writes the request after; the runner's clock (queued, seconds) when it did not say. */
	if (cJSON_IsNumber(wait) && cJSON_IsNumber(worker))
		ferry = wait->valuedouble + worker->valuedouble;
	else
		ferry = o->queued + o->seconds;
	ferry += (session_now() - entered) - l->valuedouble - c->valuedouble - x->valuedouble;
	/* Two clocks (the worker's and ours) read apart: never below nothing. */
	res->ferry_seconds = ferry > 0 ? ferry : 0;
}

/* A timed result's seconds into the frontend's account, with the write of its row (which the row
 * cannot hold): ferry's too. */
static void add_time(struct session_result *r, const struct db_result *res, double write)
{
	r->timed++;
	r->load_seconds += res->load_seconds;
	r->compile_seconds += res->compile_seconds;
	r->execute_seconds += res->execute_seconds;
	r->ferry_seconds += res->ferry_seconds + write;
}

/* A job's outcome o into the store: a test's (batch: the size of the batch that gave it, or 0), a
 * probe's, a canary's or a reduction's. */
static int job_done(struct session *s, const struct runner_job *job, const struct runner_outcome *o, int batch,
		    struct err *e)
{
	struct db_result res;
	struct buf msg = BUF_INIT, sig = BUF_INIT, undef = BUF_INIT;
	int probe = !strncmp(job->key, PROBE_KEY, strlen(PROBE_KEY));
	int both = !strncmp(job->key, PROBE_TEST_KEY, strlen(PROBE_TEST_KEY));
	const char *id = probe ? job->key + strlen(PROBE_KEY) : both ? job->key + strlen(PROBE_TEST_KEY) : job->key;
	struct strmap_entry *t = strmap_find(&s->index, id);
	const struct wrapped *test = t ? &s->tests[t->count] : NULL;
	struct tolerance tol = { s->o->atol, s->o->rtol };
	struct buf mutated = BUF_INIT;
	double entered = session_now();
	int ret;

	if (!strncmp(job->key, REDUCE_KEY, strlen(REDUCE_KEY))) {
		ret = session_reduce_done(s, job->key + strlen(REDUCE_KEY), o, e);
		session_tick(s);
		return ret;
	}
	memset(&res, 0, sizeof(res));
	/* The tolerance that judged the test, as session_next_job chose it, kept with the result for its
	 * reproducer. */
	if (test)
		tol = tolerance_for(&s->tol, test->in.op, probe_dtype(&test->in), s->fe->name, tol);
	res.atol = tol.atol;
	res.rtol = tol.rtol;
	res.frontend = s->fe->label;
	res.frontend_version = o->version;
	res.id = id;
	res.run_id = s->run_id;
	res.batch = batch;
	/* A frontend that cannot take the format at all: no result, the run of it stops (the tests are
	 * left to a later run, with another release), and the session says so once. */
	if (o->end == RUNNER_REPLY && session_json_str(o->reply, PROTO_KEY_UNAVAILABLE)) {
		if (!s->format_why)
			s->format_why = xstrdup(session_json_str(o->reply, PROTO_KEY_UNAVAILABLE));
		return err_set(e, EXIT_ENV, "frontend '%s' is unavailable for %s", s->fe->label, s->format_why);
	}
	if (!strncmp(job->key, CANARY_KEY, strlen(CANARY_KEY))) {
		ret = session_canary_done(s, job->key, o, e);
		session_tick(s);
		return ret;
	}
	session_outcome(o, &res, &msg, &sig, &mutated);
	/* A failure on an input in the operator's undefined domain is flagged, never reported as a bug:
	 * the frontend may answer anything there. What it did answer stays in the message. Where only
	 * the values are in question (a reference that is not finite), a crash is still a crash. */
	if (outcome_is_failure(res.outcome) &&
	    !(test && test->undefined_values && res.outcome != OUTCOME_MISMATCH)) {
		const char *why = test ? test->undefined : NULL;

		if (why) {
			buf_addf(&undef, "%s (the frontend gave %s: %s)", why, outcome_name(res.outcome),
				 res.message ? res.message : "");
			res.outcome = OUTCOME_UNDEFINED;
			res.message = undef.data;
		}
	}
	s->res->probes_answered += probe;
	ret = probe || both ? session_probe_done(s, test, &res, e) : 0;
	if (!probe && ret == 0) {
		double written;

		count(s, res.outcome);
		time_result(o, &res, entered);
		written = session_now();
		ret = db_put_result(&s->db, &res, e);
		if (res.timed)
			add_time(s->res, &res, session_now() - written);
		if (ret == 0 && o->end == RUNNER_REPLY && session_metamorphic(s->o->oracle))
			ret = session_mutation_done(s, &res, o->reply, e);
	}
	if (!probe && ret == 0 && o->end == RUNNER_REPLY)
		ret = session_put_pairs(s, &res, o->reply, e);
	buf_release(&undef);
	buf_release(&msg);
	buf_release(&sig);
	buf_release(&mutated);
	session_tick(s);
	return ret;
}

/* A key of ids for the tests of ids[0..n): a batch's, or one test's id. Caller frees. */
static char *half_key(char *const *ids, size_t n)
{
	struct buf key = BUF_INIT;

	if (n > 1)
		buf_adds(&key, BATCH_KEY);
	for (size_t i = 0; i < n; i++)
		buf_addf(&key, "%s%s", i ? BATCH_SEP : "", ids[i]);
	return buf_detach(&key);
}

static void push_half(struct session *s, char *key)
{
	if (s->nhalves == s->halves_cap) {
		s->halves_cap = s->halves_cap ? 2 * s->halves_cap : 8;
		s->halves = xrealloc(s->halves, s->halves_cap * sizeof(*s->halves));
	}
	s->halves[s->nhalves++] = key;
}

/* A batch's outcome. Where the batch's model ran through (the worker answered with a verdict for
 * each test, in order), each test that passed is recorded as a pass of a batch of its size, with its
 * share of the batch's time, and each other test runs again alone, first among the jobs to come: its
 * wrong result may be the frontend's mixing of tests, and a failure is recorded only from a test run
 * alone. Where the batch failed as a whole (a stage of the merged model, a signal, a timeout, the
 * memory limit), no test can be told apart: its halves go first among the jobs to come, down to single
 * tests that run as they do without --batch. */
static int batch_done(struct session *s, const struct runner_job *job, const struct runner_outcome *o, struct err *e)
{
	const cJSON *items = o->end == RUNNER_REPLY ? cJSON_GetObjectItemCaseSensitive(o->reply, PROTO_KEY_BATCH)
			     : NULL;
	char *copy = xstrdup(job->key + strlen(BATCH_KEY)), **ids = NULL;
	size_t n = 0, cap = 0, k = 0, failed;
	int ran, ret = 0;
	const cJSON *item;

	for (char *p = strtok(copy, BATCH_SEP); p; p = strtok(NULL, BATCH_SEP)) {
		if (n == cap) {
			cap = cap ? 2 * cap : 16;
			ids = xrealloc(ids, cap * sizeof(*ids));
		}
		ids[n++] = p;
	}
	s->batches_out--;
	ran = n > 0 && cJSON_IsArray(items) && (size_t)cJSON_GetArraySize(items) == n;
	cJSON_ArrayForEach(item, items) {
		const char *id = session_json_str(item, PROTO_KEY_ID);

		if (!ran || k >= n || !session_json_str(item, PROTO_KEY_OUTCOME) || !id || strcmp(id, test_id(ids[k])))
			ran = 0;
		k++;
	}
	/* K adapts: a batch that failed as a whole costs every test in it another compilation per
	 * halving, so the next is half as large; one whose tests all passed lets the next double. */
	if (!ran && s->batch_k > 2)
		s->batch_k /= 2;
	if (!ran) {
		/* Halves, down to single tests; four or fewer run alone at once: halving them costs up to
		 * six compilations where running them alone costs four. */
		if (n > BATCH_ALONE) {
			push_half(s, half_key(ids + n / 2, n - n / 2));
			push_half(s, half_key(ids, n / 2));
		} else {
			for (k = n; k-- > 0;)
				push_half(s, xstrdup(ids[k]));
		}
		session_tick(s);
		goto out;
	}
	/* The failures first onto the stack, last first: they run in the batch's order. */
	for (k = n, failed = 0; k-- > 0;) {
		const char *outcome = session_json_str(cJSON_GetArrayItem(items, (int)k), PROTO_KEY_OUTCOME);

		if (strcmp(outcome, outcome_name(OUTCOME_PASS))) {
			push_half(s, xstrdup(ids[k]));
			failed++;
		}
	}
	if (!failed && n >= (size_t)s->batch_k)
		s->batch_k = 2 * s->batch_k > s->o->batch ? s->o->batch : 2 * s->batch_k;
	k = 0;
	cJSON_ArrayForEach(item, items) {
		struct runner_outcome one = *o;
		struct runner_job alone = { ids[k++], NULL };

		if (strcmp(session_json_str(item, PROTO_KEY_OUTCOME), outcome_name(OUTCOME_PASS)))
			continue;
		one.reply = item;
		one.seconds = o->seconds / (double)n;
		one.queued = o->queued / (double)n;
		one.stderr_text = NULL;
		if ((ret = job_done(s, &alone, &one, (int)n, e)) < 0)
			break;
	}
	session_tick(s);
out:
	free(ids);
	free(copy);
	return ret;
}

int session_job_done(void *ctx, const struct runner_job *job, const struct runner_outcome *o, struct err *e)
{
	struct session *s = ctx;

	if (!strncmp(job->key, BATCH_KEY, strlen(BATCH_KEY)))
		return batch_done(s, job, o, e);
	return job_done(s, job, o, 0, e);
}
