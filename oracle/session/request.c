/* request.c: the worker requests that run a test: the reference's, the differential oracle's (with
 * the outputs the other frontends kept) and the metamorphic oracle's. */
#include "private.h"
#include "fsutil.h"
#include "probe.h"
#include "protocol.h"
#include "xalloc.h"

#include <stdlib.h>
#include <string.h>

static cJSON *request_json(const char *id, const char *dir, int random, struct tolerance tol)
{
	cJSON *req = cJSON_CreateObject();

	cJSON_AddStringToObject(req, PROTO_KEY_TASK, PROTO_TASK_RUN);
	cJSON_AddStringToObject(req, PROTO_KEY_ID, id);
	cJSON_AddStringToObject(req, PROTO_KEY_DIR, dir);
	cJSON_AddBoolToObject(req, PROTO_KEY_RANDOM, random);
	cJSON_AddNumberToObject(req, PROTO_KEY_ATOL, tol.atol);
	cJSON_AddNumberToObject(req, PROTO_KEY_RTOL, tol.rtol);
	return req;
}

/* The request as a line of text; req is consumed. */
static char *request_text(cJSON *req)
{
	char *text = cJSON_PrintUnformatted(req);

	cJSON_Delete(req);
	return text;
}

char *session_request_dir(const char *id, const char *dir, int random, struct tolerance tol)
{
	return request_text(request_json(id, dir, random, tol));
}

char *session_request(const struct wrapped *t, const struct tolerance_rules *rules, const char *frontend,
		      struct tolerance defaults)
{
	struct tolerance tol = tolerance_for(rules, t->in.op, probe_dtype(&t->in), frontend, defaults);
	cJSON *req = request_json(t->in.id, t->dir, t->random, tol);

	cJSON_AddBoolToObject(req, PROTO_KEY_EXPLAIN, 1);
	return request_text(req);
}

/* Whether test t goes to the differential oracle: a multi-node graph (a record of kind "graph"), or
 * any test when the session was asked to. A node test alone pays nothing for it. */
int session_differential(const struct session *s, const struct wrapped *t)
{
	return s->o->differential || !strcmp(t->in.kind, "graph");
}

/* The request that runs test t: under the metamorphic oracle with its mutations and seed; for the
 * differential oracle with where its outputs are kept, and the outputs the other frontends kept of
 * it (a store holds one oracle's results: the metamorphic oracle's runs keep no outputs). */
char *session_job_request(struct session *s, const struct wrapped *t)
{
	struct tolerance tol = tolerance_for(&s->tol, t->in.op, probe_dtype(&t->in), s->fe->name,
					     (struct tolerance){ s->o->atol, s->o->rtol });
	cJSON *req, *against;
	char *dir;

	if (session_metamorphic(s->o->oracle)) {
		req = request_json(t->in.id, t->dir, t->random, tol);
		cJSON_AddStringToObject(req, PROTO_KEY_ORACLE, PROTO_ORACLE_METAMORPHIC);
		cJSON_AddNumberToObject(req, PROTO_KEY_MUTATIONS, s->o->mutations);
		cJSON_AddNumberToObject(req, PROTO_KEY_SEED, (double)s->o->seed);
		return request_text(req);
	}
	if (!session_differential(s, t))
		return session_request_dir(t->in.id, t->dir, t->random, tol);
	req = request_json(t->in.id, t->dir, t->random, tol);
	dir = xasprintf("%s/%s/%s", s->outputs, s->fe->label, t->in.id);
	cJSON_AddStringToObject(req, PROTO_KEY_SAVE, dir);
	free(dir);
	against = cJSON_AddArrayToObject(req, PROTO_KEY_AGAINST);
	for (size_t i = 0; i < s->npeers; i++) {
		char *kept = xasprintf("%s/%s/%s/outputs.json", s->outputs, s->peers[i], t->in.id);

		if (fs_exists(kept)) {
			cJSON *a = cJSON_CreateObject();

			kept[strlen(kept) - strlen("/outputs.json")] = '\0';
			cJSON_AddStringToObject(a, PROTO_KEY_FRONTEND, s->peers[i]);
			cJSON_AddStringToObject(a, PROTO_KEY_DIR, kept);
			cJSON_AddItemToArray(against, a);
		}
		free(kept);
	}
	return request_text(req);
}
