/* canary.c: the canary of the frontend being run (oracle/canary.h): wrapped when its run begins,
 * unless the store has its verdict; its tests handed out before any other once the workers said their
 * release, unless the store has the verdict of that release; its answers judged into the environment
 * table (never the results), and a broken environment said once, through the session's warn hook. */
#include "private.h"
#include "canary.h"
#include "xalloc.h"

#include <stdlib.h>
#include <string.h>

/* The store's verdict of a release under the frontend's interpreter, copied out of the query. */
struct kept {
	int found;
	long long ok;
	char *version, *detail;
	double seconds;
};

static int keep_row(void *ctx, const struct db_environment *v, struct err *e)
{
	struct kept *k = ctx;

	(void)e;
	k->found = 1;
	k->ok = v->ok;
	k->version = xstrdup(v->version ? v->version : "");
	k->detail = v->detail ? xstrdup(v->detail) : NULL;
	k->seconds = v->seconds;
	return 1;
}

/* 1 when the store has the canary's verdict of version under the frontend's interpreter, 0 when not,
 * -1 on error. A verdict taken is recorded again, so that it is the newest (environment_broken reads
 * the newest), and a broken environment is said again, each run, as it was found. */
static int in_store(struct session *s, const char *version, struct err *e)
{
	struct kept k = { 0, 0, NULL, NULL, 0 };
	struct db_environment v;
	struct buf warning = BUF_INIT;
	int n = db_environment(&s->db, session_store_name(s->fe), version, s->fe->python ? s->fe->python : "",
			       keep_row, &k, e);

	if (n > 0) {
		v = (struct db_environment){ session_store_name(s->fe), k.version, s->fe->python, k.ok, k.detail,
					     k.seconds };
		s->res->canary_cached = 1;
		n = db_put_environment(&s->db, &v, e) < 0 ? -1 : 1;
		if (n > 0 && k.ok == 0 && s->o->warn) {
			canary_warning(&v, &warning);
			buf_adds(&warning, " (the store's canary of this release)");
			s->o->warn(s->o->ctx, warning.data);
		}
	}
	free(k.version);
	free(k.detail);
	buf_release(&warning);
	return n < 0 ? -1 : n > 0;
}

int session_canary_begin(struct session *s, int *wanted, struct err *e)
{
	struct canary *c;
	char *version = NULL, *why = NULL;
	int n;

	*wanted = 0;
	/* The release the store saw last (the workers will say theirs only when they start): a verdict
	 * of it spares the wrap. A release that changed under the same interpreter since is checked on
	 * the next run, when the store has seen it. */
	if (db_frontend_version(&s->db, session_store_name(s->fe), &version, e) < 0)
		return -1;
	n = version ? in_store(s, version, e) : 0;
	free(version);
	if (n != 0)
		return n < 0 ? -1 : 0;
	c = xcalloc(1, sizeof(*c));
	if (canary_prepare(c, s->fe, &s->o->runner, &why, e) < 0) {
		canary_release(c);
		free(c);
		free(why);
		if (e->code == EXIT_INTERRUPTED)
			return -1;
		/* The tests are what the run is for: without its canary, it goes on, and says so. */
		s->res->canary_skipped = xasprintf("the canary could not be wrapped: %s", e->msg);
		err_release(e);
		if (s->o->warn) {
			char *msg = xasprintf("frontend '%s': %s", s->fe->label, s->res->canary_skipped);

			s->o->warn(s->o->ctx, msg);
			free(msg);
		}
		return 0;
	}
	if (!c->n) {
		s->res->canary_skipped = why ? why : xstrdup("no canary");
		canary_release(c);
		free(c);
		return 0;
	}
	s->canary = c;
	*wanted = 1;
	return 0;
}

int session_canary_job(struct session *s, struct runner_job *job, struct err *e)
{
	struct canary *c = s->canary;
	int n;

	if (!s->version_known || c->sent == c->n)
		return 0;
	if (c->sent == 0) {
		/* The store may have this release's verdict after all (the guess at begin was another). */
		if ((n = in_store(s, s->version ? s->version : "", e)) < 0)
			return -1;
		if (n > 0) {
			session_forget_canary(s);
			return 0;
		}
	}
	job->key = xasprintf(CANARY_KEY "%zu", c->sent);
	job->request = canary_request(c, c->sent, (struct tolerance){ s->o->atol, s->o->rtol });
	c->sent++;
	return 1;
}

int session_canary_done(struct session *s, const char *key, const struct runner_outcome *o, struct err *e)
{
	struct canary *c = s->canary;
	struct db_result res;
	struct db_environment v;
	struct buf msg = BUF_INIT, sig = BUF_INIT, stage = BUF_INIT, warning = BUF_INIT;
	size_t k = strtoul(key + strlen(CANARY_KEY), NULL, 10);
	int ret = 0;

	if (!c || k >= c->n)
		return 0;
	memset(&res, 0, sizeof(res));
	session_outcome(o, &res, &msg, &sig, &stage);
	canary_answer(c, k, &res);
	if (canary_done(c)) {
		canary_verdict(c, s->fe, s->version, &v);
		ret = db_put_environment(&s->db, &v, e);
		s->res->canary_ran = 1;
		s->res->canary_ok = (int)v.ok;
		s->res->canary_seconds = v.seconds;
		if (ret == 0 && v.ok == 0 && s->o->warn) {
			canary_warning(&v, &warning);
			s->o->warn(s->o->ctx, warning.data);
		}
		session_forget_canary(s);
	}
	buf_release(&msg);
	buf_release(&sig);
	buf_release(&stage);
	buf_release(&warning);
	return ret;
}

void session_forget_canary(struct session *s)
{
	if (!s->canary)
		return;
	canary_release(s->canary);
	free(s->canary);
	s->canary = NULL;
}
