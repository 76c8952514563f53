/* queue.c: opening a session: the wrap directory's tests into the store, in the queue's order, as
 * --op, --test and the shard select them; which of them have a result that stands. */
#include "private.h"
#include "fsutil.h"
#include "jsonl.h"
#include "locations.h"
#include "xalloc.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static void warn(const struct session_opts *o, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

static void warn(const struct session_opts *o, const char *fmt, ...)
{
	char msg[1024];
	va_list ap;

	if (!o->warn)
		return;
	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	o->warn(o->ctx, msg);
}

static void warn_line(void *ctx, const char *msg)
{
	warn(ctx, "%s", msg);
}

/* The queue's ids, in order, as indexes into the tests. Ids the wrap does not know are counted: a
 * queue of a whole corpus over a wrapped sample of it is the normal case. */
static int load_queue(struct session *s, const char *path, struct err *e)
{
	struct strmap index = STRMAP_INIT;
	struct jsonl_reader q;
	struct err bad = ERR_INIT;
	size_t cap = 0;
	enum jsonl_status st;
	char *id;
	int ret = -1;

	for (size_t i = 0; i < s->ntests; i++)
		strmap_get(&index, s->tests[i].in.id, NULL)->count = i;
	if (jsonl_open(&q, path, e) < 0)
		goto out;
	while ((st = jsonl_next_id(&q, &id, &bad)) != JSONL_END) {
		struct strmap_entry *t;

		if (st == JSONL_FAIL) {
			*e = bad;
			goto out;
		}
		if (st == JSONL_BAD) {
			warn(s->o, "%s", bad.msg);
			err_release(&bad);
			continue;
		}
		s->queued++;
		if (!(t = strmap_find(&index, id)))
			s->unknown++;
		else if (t->ptr) {
			/* Queued twice: it runs where it first stands. */
		} else {
			t->ptr = t;
			XGROW(s->order, cap, s->norder + 1);
			s->order[s->norder++] = t->count;
		}
		free(id);
	}
	ret = 0;
out:
	jsonl_close(&q);
	strmap_release(&index);
	return ret;
}

/* --op and --test: the tests they leave out are not the session's at all. */
static void take_selected(struct session *s)
{
	size_t k = 0;

	if (!select_any(s->o->select))
		return;
	for (size_t i = 0; i < s->norder; i++)
		if (select_instance(s->o->select, &s->tests[s->order[i]].in))
			s->order[k++] = s->order[i];
	s->left_out = s->norder - k;
	s->norder = k;
}

void session_selection(const struct session *s, size_t *queued, size_t *unknown, size_t *left_out)
{
	*queued = s->queued;
	*unknown = s->unknown;
	*left_out = s->left_out;
}

int session_rerun_parse(const char *word, enum session_rerun *out)
{
	static const char *const names[] = { "failed", "errors", "all" };

	for (size_t i = 0; i < sizeof(names) / sizeof(names[0]); i++)
		if (!strcmp(word, names[i])) {
			*out = (enum session_rerun)(i + 1);
			return 0;
		}
	return -1;
}

/* 1 when the test has a result that stands (the run leaves it), 0 when it is to run, -1 on error.
 * ferry's own errors never stand; --rerun makes failures, errors or every result run again. */
int session_has_result(struct session *s, const char *id, int *existed, struct err *e)
{
	int outcome, r;

	*existed = 0;
	if (s->o->rerun == SESSION_RERUN_NONE)
		return db_has_result(&s->db, s->fe->label, id, e);
	if ((r = db_result_outcome(&s->db, s->fe->label, id, &outcome, e)) <= 0)
		return r;
	*existed = outcome != OUTCOME_ERROR;
	switch (s->o->rerun) {
	case SESSION_RERUN_ALL:
		return 0;
	case SESSION_RERUN_FAILED:
		return !(outcome_is_failure((enum outcome)outcome) || outcome == OUTCOME_ERROR);
	case SESSION_RERUN_ERRORS:
		return !(outcome == OUTCOME_CRASH || outcome == OUTCOME_TIMEOUT || outcome == OUTCOME_OOM ||
			 outcome == OUTCOME_ERROR);
	default:
		return outcome != OUTCOME_ERROR;
	}
}

/* Keep every nshards-th entry of the order from offset shard: each shard starts at the top of the
 * queue, so every shard runs top-priority tests first. */
static void take_shard(struct session *s)
{
	size_t k = 0;

	if (s->o->nshards <= 1)
		return;
	for (size_t i = (size_t)s->o->shard; i < s->norder; i += (size_t)s->o->nshards)
		s->order[k++] = s->order[i];
	s->norder = k;
}

/* Each frontend must have a valid test to take, or a run of it succeeds having tested nothing. */
static int check_frontends(struct session *s, struct err *e)
{
	const struct session_opts *o = s->o;

	for (size_t f = 0; f < o->nfes; f++) {
		const struct frontend *fe = &o->fes[f];
		size_t of_library = 0, valid = 0;
		char where[64] = "";

		for (size_t i = 0; i < s->norder; i++) {
			const struct wrapped *t = &s->tests[s->order[i]];

			if (!strcmp(t->in.library, fe->library)) {
				of_library++;
				valid += t->valid;
			}
		}
		if (valid)
			continue;
		if (o->nshards > 1)
			snprintf(where, sizeof(where), " in shard %d/%d", o->shard, o->nshards);
		else if (o->queue)
			snprintf(where, sizeof(where), " in the queue");
		if (!of_library)
			return err_set(e, EXIT_INPUT,
				       "frontend '%s' takes %s models, and '%s' has none%s: nothing to test",
				       fe->label, fe->library, o->wrapdir, where);
		return err_set(e, EXIT_INPUT, "none of the %zu %s models of '%s'%s is valid: nothing to test on "
			       "frontend '%s'", of_library, fe->library, o->wrapdir, where, fe->label);
	}
	return 0;
}

int session_open(struct session **out, const struct session_opts *o, struct err *e)
{
	struct session *s = xcalloc(1, sizeof(*s));
	size_t bad = 0;

	s->o = o;
	if (o->store) {
		char *abs = fs_abspath(o->store);

		s->outputs = xasprintf("%s.outputs", abs);
		free(abs);
	}
	s->start = session_now();
	*out = NULL;
	/* Every input is checked before the store is created: a run that fails on its input leaves
	 * nothing behind. */
	if (o->queue && fs_input_file(o->queue, e) < 0)
		goto fail;
	if (!fs_is_dir(o->wrapdir)) {
		err_set(e, EXIT_INPUT, "'%s' is not a directory of wrapped models (the output of ferry wrap)%s",
			o->wrapdir, fs_exists(o->wrapdir) ? "" : ": No such file or directory");
		goto fail;
	}
	if (o->tolerances && tolerance_rules_load(&s->tol, o->tolerances, e) < 0)
		goto fail;
	if (wrapped_load(o->wrapdir, &s->tests, &s->ntests, &bad, warn_line, (void *)o, e) < 0)
		goto fail;
	if (!s->ntests) {
		err_set(e, EXIT_INPUT, "'%s' holds no wrapped models%s", o->wrapdir,
			bad ? " (every line of its wrapped.jsonl is bad)" : "");
		goto fail;
	}
	if (o->queue) {
		if (load_queue(s, o->queue, e) < 0)
			goto fail;
		/* A queue of another wrap, of plain ids, or of junk would run nothing and say it passed. */
		if (!s->norder) {
			err_set(e, EXIT_INPUT, "the queue '%s' names none of the wrapped models of '%s' "
				"(it should be ferry rank's output for their corpus)", o->queue, o->wrapdir);
			goto fail;
		}
	} else {
		s->order = xcalloc(s->ntests, sizeof(*s->order));
		for (size_t i = 0; i < s->ntests; i++)
			s->order[i] = i;
		s->norder = s->ntests;
	}
	take_selected(s);
	if (!s->norder) {
		char *sel = select_describe(s->o->select);

		err_set(e, EXIT_INPUT, "%s selects none of the %zu wrapped models of '%s'%s: nothing to test", sel,
			s->ntests, o->wrapdir, o->queue ? " in the queue" : "");
		free(sel);
		goto fail;
	}
	take_shard(s);
	if (check_frontends(s, e) < 0)
		goto fail;
	if (o->collect_only) {
		*out = s;
		return 0;
	}
	for (size_t i = 0; i < s->ntests; i++)
		strmap_get(&s->index, s->tests[i].in.id, NULL)->count = i;
	if (db_open(&s->db, o->store, DB_CREATE, e) < 0 || db_lock(&s->db, o->command, e) < 0 ||
	    db_check_oracle(&s->db, o->oracle ? o->oracle : "reference", e) < 0 ||
	    locations_record(&s->db, o->fes, o->nfes, e) < 0)
		goto fail;
	/* The store keeps the instances themselves, so that reports and reproducers need nothing else. */
	if (db_begin(&s->db, e) < 0)
		goto fail;
	for (size_t i = 0; i < s->ntests; i++) {
		const struct wrapped *t = &s->tests[i];

		if (db_put_instance(&s->db, &t->in, t->line, t->valid ? "ok" : "invalid", t->reason, t->random,
				    t->dir, e) < 0)
			goto fail;
	}
	if (db_commit(&s->db, e) < 0)
		goto fail;
	*out = s;
	return 0;
fail:
	session_close(s);
	return -1;
}

void session_close(struct session *s)
{
	if (!s)
		return;
	db_close(&s->db);
	wrapped_free(s->tests, s->ntests);
	free(s->order);
	strmap_release(&s->index);
	tolerance_rules_release(&s->tol);
	free(s->format_why);
	session_forget_groups(s);
	session_forget_peers(s);
	free(s->outputs);
	session_forget_reductions(s);
	free(s);
}

struct db *session_db(struct session *s)
{
	return &s->db;
}

int session_each(struct session *s, const struct frontend *fe,
		 int (*fn)(void *ctx, const struct wrapped *t), void *ctx)
{
	for (size_t i = 0; i < s->norder; i++) {
		const struct wrapped *t = &s->tests[s->order[i]];

		if ((!fe || !strcmp(t->in.library, fe->library)) && fn(ctx, t) < 0)
			return -1;
	}
	return 0;
}
