/* probes.c: probing a frontend (oracle/probe.h): each (operator, dtype) group of the tests it takes
 * runs its simplest valid test first, unless the store has that probe for this release; probes go
 * to the support table, never to the results. */
#include "private.h"
#include "buf.h"
#include "probe.h"
#include "xalloc.h"

#include <stdlib.h>
#include <string.h>

/* Whose probe goes first, and whether it is settled for this run: in the store already, or sent. */
struct group {
	size_t probe;             /* index into tests */
	int settled;
	int cls;                  /* the probe's enum probe_class once known, else -1 */
};

/* The group of a test, "OP\tDTYPE"; in a run of probes only (generation's), by its signature
 * (probe_signature), as the support table then keeps it. */
static void group_key(const struct session *s, const struct instance *in, struct buf *key)
{
	if (s->o->probe_only)
		probe_signature_key(in, key);
	else
		probe_group_key(in, key);
}

/* The dtype column of the group's row in the support table: the part of group_key after the tab. */
static const char *group_dtype(const struct buf *key)
{
	return strchr(key->data, '\t') + 1;
}

/* The groups of the tests selected for the frontend, each with its probe: the simplest valid test. */
void session_find_groups(struct session *s)
{
	struct buf key = BUF_INIT;

	for (size_t i = 0; i < s->norder; i++) {
		const struct wrapped *t = &s->tests[s->order[i]];
		struct strmap_entry *g;
		struct group *gr;
		int created;

		if (!t->valid || strcmp(t->in.library, s->fe->library))
			continue;
		group_key(s, &t->in, &key);
		g = strmap_get(&s->groups, key.data, &created);
		if (created) {
			g->ptr = gr = xcalloc(1, sizeof(*gr));
			gr->probe = s->order[i];
			gr->cls = -1;
			continue;
		}
		gr = g->ptr;
		if (probe_cmp(&t->in, t->undefined != NULL, &s->tests[gr->probe].in,
			      s->tests[gr->probe].undefined != NULL) < 0)
			gr->probe = s->order[i];
	}
	buf_release(&key);
}

void session_forget_groups(struct session *s)
{
	for (size_t i = 0; i < s->groups.cap; i++)
		if (s->groups.slots[i].key)
			free(s->groups.slots[i].ptr);
	strmap_release(&s->groups);
	memset(&s->groups, 0, sizeof(s->groups));
	free(s->version);
	s->version = NULL;
	s->version_known = 0;
}

/* The class of a probe the store has. */
static int keep_class(void *ctx, const struct db_support *sup, struct err *e)
{
	(void)e;
	*(int *)ctx = (int)probe_class(sup->outcome);
	return 0;
}

/* Before test t: its group's probe, unless the store has it for this release or it went out
 * already. 1 and job filled, 0 for none, 2 when t is the probe itself (its job, once, is both),
 * -1 on error. */
int session_probe_job(struct session *s, const struct wrapped *t, struct runner_job *job, struct err *e)
{
	struct buf key = BUF_INIT;
	struct strmap_entry *g;
	struct group *gr;
	const struct wrapped *p;
	int n;

	group_key(s, &t->in, &key);
	g = strmap_find(&s->groups, key.data);
	if (!g || (gr = g->ptr)->settled) {
		buf_release(&key);
		return 0;
	}
	gr->settled = 1;
	p = &s->tests[gr->probe];
	n = db_support_rows(&s->db, session_store_name(s->fe), s->version, p->in.op, group_dtype(&key), keep_class,
			    &gr->cls, e);
	buf_release(&key);
	if (n < 0)
		return -1;
	if (n > 0) {
		s->res->probes_cached++;
		return 0;
	}
	s->res->probes++;
	if (p == t)
		return 2;
	if (!session_metamorphic(s->o->oracle) && session_differential(s, p) && session_outputs_dir(s, p, e) < 0)
		return -1;
	s->res->probes_apart++;
	job->key = xasprintf(PROBE_KEY "%s", p->in.id);
	job->request = session_job_request(s, p);
	return 1;
}

/* A probe's outcome goes to the support table, never to the results. */
int session_probe_done(struct session *s, const struct wrapped *test, const struct db_result *res, struct err *e)
{
	struct buf key = BUF_INIT;
	struct db_support sup = { session_store_name(s->fe), s->version, test ? test->in.op : "?",
				  PROBE_NO_DTYPE, res->id, outcome_name(res->outcome), res->stage, res->message };
	int r;

	if (test) {
		struct strmap_entry *g;

		group_key(s, &test->in, &key);
		sup.dtype = group_dtype(&key);
		if ((g = strmap_find(&s->groups, key.data)))
			((struct group *)g->ptr)->cls = (int)probe_class(sup.outcome);
	}
	s->res->probe_classes[probe_class(sup.outcome)]++;
	r = db_put_support(&s->db, &sup, e);
	buf_release(&key);
	return r;
}

/* The release the frontend's first worker announced: probes are chosen by it. */
void session_ready(void *ctx, const char *version)
{
	struct session *s = ctx;

	s->version = version ? xstrdup(version) : NULL;
	s->version_known = 1;
}

/* How many tests the frontend will take this time, for the progress line's total; with the probes
 * they need, as far as the store knows the release (the last one it saw: a new release probes more). */
size_t session_remaining(struct session *s, size_t *probes)
{
	struct err ignored = ERR_INIT;
	struct strmap seen = STRMAP_INIT;
	struct buf key = BUF_INIT;
	char *version = NULL;
	size_t n = 0;

	*probes = 0;
	if (!s->o->no_probe)
		db_frontend_version(&s->db, session_store_name(s->fe), &version, &ignored);
	for (size_t i = 0, reached = 0; i < s->norder && (s->o->limit < 0 || reached < (size_t)s->o->limit); i++) {
		const struct wrapped *t = &s->tests[s->order[i]];
		int created;

		if (!t->valid || strcmp(t->in.library, s->fe->library))
			continue;
		reached++;
		if (session_has_result(s, t->in.id, &created, &ignored) != 0)
			continue;
		n++;
		if (s->o->no_probe)
			continue;
		group_key(s, &t->in, &key);
		strmap_get(&seen, key.data, &created);
		if (created && db_support_rows(&s->db, session_store_name(s->fe), version, t->in.op,
					       group_dtype(&key), NULL, NULL, &ignored) == 0) {
			struct strmap_entry *g = strmap_find(&s->groups, key.data);

			/* A group whose first test is its probe runs it once, as both. */
			*probes += s->o->probe_only || !g || ((struct group *)g->ptr)->probe != s->order[i];
		}
	}
	err_release(&ignored);
	strmap_release(&seen);
	buf_release(&key);
	free(version);
	return n;
}

int session_batchable(const struct session *s, const struct wrapped *t)
{
	struct buf key = BUF_INIT;
	const struct strmap_entry *g;

	if (s->o->no_probe)
		return 1;
	group_key(s, &t->in, &key);
	g = strmap_find(&s->groups, key.data);
	buf_release(&key);
	return !g || ((const struct group *)g->ptr)->cls < 0 || ((const struct group *)g->ptr)->cls == PROBE_SUPPORTED;
}
