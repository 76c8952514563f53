/* metamorphic.c: the metamorphic oracle's part of a session (oracle/metamorphic.py): which frontends
 * it takes, the mutations each run records, and the reductions of the inconsistencies it finds, each
 * a worker job of its own, handed out before the next test. */
#include "private.h"
#include "buf.h"
#include "proc.h"
#include "protocol.h"
#include "py.h"
#include "xalloc.h"

#include <stdlib.h>
#include <string.h>

int session_metamorphic(const char *oracle)
{
	return oracle && !strcmp(oracle, PROTO_ORACLE_METAMORPHIC);
}

int session_check_metamorphic(const struct frontend *fes, size_t n, struct err *e)
{
	for (size_t i = 0; i < n; i++) {
		const char *args[] = { fes[i].name };
		char *format = strcmp(fes[i].library, "onnx") ? xstrdup("")
			       : py_call_strings("ferry.oracle.registry", "format_of", args, 1,
						 "cannot read an adapter", e);
		int onnx = format && !strcmp(format, "onnx");

		if (!format)
			return -1;
		free(format);
		if (!onnx)
			return err_set(e, EXIT_USAGE, "the metamorphic oracle mutates ONNX models, and frontend '%s' "
				       "does not take them (it takes %s models%s)", fes[i].label, fes[i].library,
				       strcmp(fes[i].library, "onnx") ? "" : " in another format");
	}
	return 0;
}

/* An inconsistency to reduce: its test, with the seed and k of the run that found it. */
struct reduction {
	char *id;
	long long seed, k;
};

/* Add a reduction to the queue (once per test). */
static void want_reduction(struct session *s, const char *id, long long seed, long long k)
{
	for (size_t i = 0; i < s->nreduce; i++)
		if (!strcmp(s->reduce[i].id, id))
			return;
	XGROW(s->reduce, s->reduce_cap, s->nreduce + 1);
	s->reduce[s->nreduce++] = (struct reduction){ xstrdup(id), seed, k };
}

void session_forget_reductions(struct session *s)
{
	for (size_t i = 0; i < s->nreduce; i++)
		free(s->reduce[i].id);
	free(s->reduce);
	s->reduce = NULL;
	s->nreduce = s->reduce_cap = 0;
}

int session_pending_reduction(void *ctx, const struct db_mutation *m, struct err *e)
{
	struct session *s = ctx;

	(void)e;
	if (m->status && !strcmp(m->status, "pending") && strmap_find(&s->index, m->id))
		want_reduction(s, m->id, m->seed, m->k);
	return 0;
}

/* The next reduction's job (1), or 0 when none waits. Its time is most of a test's: it keeps the
 * smallest failing model found when that runs out. */
int session_reduce_job(struct session *s, struct runner_job *job)
{
	struct reduction r;
	struct strmap_entry *t;
	const struct wrapped *test;
	cJSON *req;

	if (!s->nreduce)
		return 0;
	r = s->reduce[--s->nreduce];
	t = strmap_find(&s->index, r.id);
	test = &s->tests[t->count];
	req = cJSON_CreateObject();
	cJSON_AddStringToObject(req, PROTO_KEY_TASK, PROTO_TASK_REDUCE);
	cJSON_AddStringToObject(req, PROTO_KEY_ID, r.id);
	cJSON_AddStringToObject(req, PROTO_KEY_DIR, test->dir);
	cJSON_AddNumberToObject(req, PROTO_KEY_MUTATIONS, (double)r.k);
	cJSON_AddNumberToObject(req, PROTO_KEY_SEED, (double)r.seed);
	cJSON_AddNumberToObject(req, PROTO_KEY_SECONDS, 0.8 * s->o->runner.timeout);
	cJSON_AddBoolToObject(req, PROTO_KEY_RANDOM, test->random);
	{
		struct tolerance tol = tolerance_for(&s->tol, test->in.op, probe_dtype(&test->in), s->fe->name,
						     (struct tolerance){ s->o->atol, s->o->rtol });

		cJSON_AddNumberToObject(req, PROTO_KEY_ATOL, tol.atol);
		cJSON_AddNumberToObject(req, PROTO_KEY_RTOL, tol.rtol);
	}
	job->key = xasprintf(REDUCE_KEY "%s", r.id);
	job->request = cJSON_PrintUnformatted(req);
	cJSON_Delete(req);
	free(r.id);
	s->res->reductions++;
	return 1;
}

/* A reduction's outcome goes to the mutations table; the test's result stays inconsistent. One that
 * could not finish (the frontend died or hung while it ran) is recorded as failed, with why. */
int session_reduce_done(struct session *s, const char *id, const struct runner_outcome *o, struct err *e)
{
	const cJSON *r = o->end == RUNNER_REPLY ? cJSON_GetObjectItemCaseSensitive(o->reply, PROTO_KEY_REDUCED) : NULL;
	const cJSON *keep = cJSON_GetObjectItemCaseSensitive(r, "chain");
	struct db_mutation m;
	struct buf why = BUF_INIT;
	char *reduced = NULL;
	int ret;

	memset(&m, 0, sizeof(m));
	m.frontend = session_store_name(s->fe);
	m.id = id;
	m.reduced_nodes = -1;
	if (cJSON_IsObject(r)) {
		const cJSON *n = cJSON_GetObjectItemCaseSensitive(r, "reduced_nodes");
		cJSON *account = cJSON_Duplicate(r, 1);

		/* The models and outputs have columns of their own. */
		cJSON_DeleteItemFromObjectCaseSensitive(account, "model");
		cJSON_DeleteItemFromObjectCaseSensitive(account, "outputs");
		reduced = cJSON_PrintUnformatted(account);
		cJSON_Delete(account);
		m.status = session_json_str(r, "status") ? session_json_str(r, "status") : "failed";
		m.reduced = reduced;
		m.reduced_nodes = cJSON_IsNumber(n) ? (long long)n->valuedouble : -1;
		m.model = session_json_str(r, "model");
		m.outputs = session_json_str(r, "outputs");
		m.kind = session_json_str(r, "kind");
		m.target_op = session_json_str(r, "target_op");
		m.message = session_json_str(r, "message");
		s->res->reduced += cJSON_IsArray(keep) &&
				   (!strcmp(m.status, "reduced") || !strcmp(m.status, "partial"));
	} else {
		m.status = "failed";
		if (o->end == RUNNER_TIMEOUT)
			buf_addf(&why, "no result after %.0fs", o->seconds);
		else if (o->end == RUNNER_OOM)
			buf_adds(&why, "the worker passed the memory limit");
		else if (o->end == RUNNER_DIED)
			proc_status_describe(&o->status, &why);
		else if (session_json_str(o->reply, PROTO_KEY_MESSAGE))
			buf_adds(&why, session_json_str(o->reply, PROTO_KEY_MESSAGE));
		else
			buf_adds(&why, "the reduction gave no account");
		m.message = why.data;
	}
	ret = db_put_mutation_reduction(&s->db, &m, e);
	free(reduced);
	buf_release(&why);
	return ret;
}

/* A metamorphic run's result: its mutations go to the store, and an inconsistency to be reduced. */
int session_mutation_done(struct session *s, const struct db_result *res, const cJSON *reply, struct err *e)
{
	const cJSON *nodes = cJSON_GetObjectItemCaseSensitive(reply, PROTO_KEY_NODES);
	const cJSON *orig = cJSON_GetObjectItemCaseSensitive(reply, PROTO_KEY_ORIGINAL_NODES);
	int inconsistent = res->outcome == OUTCOME_INCONSISTENT;
	struct db_mutation m;

	if (!reply || !session_json_str(reply, PROTO_KEY_CHAIN))
		return 0;
	memset(&m, 0, sizeof(m));
	m.frontend = res->frontend;
	m.id = res->id;
	m.seed = s->o->seed;
	m.k = s->o->mutations;
	m.chain = session_json_str(reply, PROTO_KEY_CHAIN);
	m.stats = session_json_str(reply, PROTO_KEY_MUTATION_STATS);
	m.nodes = cJSON_IsNumber(nodes) ? (long long)nodes->valuedouble : -1;
	m.original_nodes = cJSON_IsNumber(orig) ? (long long)orig->valuedouble : -1;
	m.status = inconsistent ? "pending" : "none";
	m.reduced_nodes = -1;
	if (inconsistent)
		want_reduction(s, res->id, m.seed, m.k);
	return db_put_mutation(&s->db, &m, e);
}
