/* bisect.c: a bug's releases judged from the results of its member tests under each label of its
 * adapter (bisect.h). Releases are ordered as ferry report orders them, by strverscmp. */
#define _GNU_SOURCE
#include "bisect.h"

#include <stdlib.h>
#include <string.h>

#include "outcome.h"
#include "xalloc.h"

static const char *const verdict_names[] = {
	[BISECT_NOT_RUN] = "not run", [BISECT_GOOD] = "good", [BISECT_BAD] = "bad",
	[BISECT_OTHER] = "fails otherwise", [BISECT_UNDECIDED] = "undecided", [BISECT_UNAVAILABLE] = "unavailable",
};

const char *bisect_verdict_name(enum bisect_verdict v)
{
	return verdict_names[v];
}

void bisect_bug_release(struct bisect_bug *b)
{
	free(b->bug_id);
	free(b->frontend);
	free(b->outcome);
	free(b->base);
	free(b->library);
	free(b->wrapdir);
	free(b->version);
	for (size_t i = 0; i < b->nids; i++)
		free(b->ids[i]);
	free(b->ids);
	memset(b, 0, sizeof(*b));
}

static void add_id(struct bisect_bug *b, const char *id)
{
	for (size_t i = 0; i < b->nids; i++)
		if (!strcmp(b->ids[i], id))
			return;
	b->ids = xrealloc(b->ids, (b->nids + 1) * sizeof(*b->ids));
	b->ids[b->nids++] = xstrdup(id);
}

/* The release number at the head of a frontend's version string ("2023.0.0-10926-b44..." gives
 * "2023.0.0"), or NULL when it has none. */
static char *release_number(const char *v)
{
	size_t n = 0;

	if (!v)
		return NULL;
	while (v[n] && (strchr("0123456789.", v[n])))
		n++;
	while (n && v[n - 1] == '.')
		n--;
	return n ? xstrndup(v, n) : NULL;
}

struct found {
	struct bisect_bug *b;
	int matches;
};

static int found_bug(void *ctx, const struct db_bug *bug, const struct db_row *rep, struct err *e)
{
	struct found *f = ctx;
	struct bisect_bug *b = f->b;
	const char *at = strchr(bug->frontend, '@');
	const char *dir = rep->dir ? rep->dir : "";
	size_t n = strlen(dir);

	(void)e;
	if (f->matches++)
		return 0;
	b->bug_id = xstrdup(bug->bug_id);
	b->frontend = xstrdup(bug->frontend);
	b->outcome = xstrdup(bug->outcome);
	b->base = at ? xstrndup(bug->frontend, (size_t)(at - bug->frontend)) : xstrdup(bug->frontend);
	b->library = xstrdup(rep->library ? rep->library : "");
	b->version = release_number(rep->frontend_version);
	/* A test's directory is WRAPDIR/tests/XX/ID: the wrap directory is three levels up. */
	for (int up = 0; up < 3 && n; up++) {
		while (n && dir[n - 1] != '/')
			n--;
		while (n > 1 && dir[n - 1] == '/')
			n--;
	}
	b->wrapdir = xstrndup(dir, n);
	add_id(b, bug->representative);
	return 0;
}

struct members {
	struct bisect_bug *b;
	long more;
};

static int member(void *ctx, const char *frontend, const char *bug_id, const char *id, const char *op,
		  struct err *e)
{
	struct members *m = ctx;

	(void)frontend;
	(void)bug_id;
	(void)op;
	(void)e;
	/* The representative plus at most more others. */
	if (m->more < 0 || m->b->nids < (size_t)m->more + 1)
		add_id(m->b, id);
	return 0;
}

int bisect_bug_load(struct db *db, const char *prefix, long more, struct bisect_bug *b, struct err *e)
{
	struct found f = { b, 0 };
	struct members m = { b, more };

	memset(b, 0, sizeof(*b));
	if (db_bugs_by_prefix(db, prefix, found_bug, &f, e) < 0)
		goto fail;
	if (f.matches != 1) {
		if (f.matches)
			err_set(e, EXIT_INPUT, "'%s' names %d bugs; give more of the id", prefix, f.matches);
		else
			err_set(e, EXIT_INPUT, "no bug '%s' in '%s' (see ferry bugs)", prefix, db->path);
		goto fail;
	}
	if (db_bug_members(db, b->frontend, b->bug_id, -1, member, &m, e) < 0)
		goto fail;
	return 0;
fail:
	bisect_bug_release(b);
	return -1;
}

void bisect_judgement_release(struct bisect_judgement *j)
{
	free(j->why);
	memset(j, 0, sizeof(*j));
}

struct judging {
	const struct bisect_bug *b;
	struct bisect_judgement *j;
};

static int judge_row(void *ctx, const struct db_row *row, struct err *e)
{
	struct judging *g = ctx;
	int o = outcome_from_name(row->outcome);

	(void)e;
	g->j->tests++;
	if (o == OUTCOME_PASS)
		g->j->passed++;
	else if (o >= 0 && outcome_is_bug((enum outcome)o))
		/* A crash of the release where the bug is a mismatch (or the reverse) is another cause. */
		*(!strcmp(row->outcome, g->b->outcome) ? &g->j->bad : &g->j->other) += 1;
	return 0;
}

static int unavailable_row(void *ctx, const char *frontend, const char *version, const char *why, struct err *e)
{
	struct bisect_judgement *j = ctx;

	(void)frontend;
	(void)version;
	(void)e;
	free(j->why);
	j->why = xasprintf("the adapter cannot use it: %s", why ? why : "?");
	return 0;
}

static int canary_row(void *ctx, const struct db_environment *v, struct err *e)
{
	struct bisect_judgement *j = ctx;

	(void)e;
	/* The newest verdict only: a release whose virtualenv was made anew is checked anew. */
	if (v->ok == 0) {
		free(j->why);
		j->why = xasprintf("its canary gave wrong answers (%s): a numpy newer than the release's?",
				   v->detail ? v->detail : "?");
	}
	return 1;
}

int bisect_judge(struct db *db, const struct bisect_bug *b, const char *label, const char *version,
		 struct bisect_judgement *j, struct err *e)
{
	struct judging g = { b, j };

	(void)version;
	memset(j, 0, sizeof(*j));
	for (size_t i = 0; i < b->nids; i++)
		if (db_result(db, label, b->ids[i], judge_row, &g, e) < 0)
			return -1;
	if (db_unavailable(db, label, unavailable_row, j, e) < 0 ||
	    db_environment(db, label, NULL, NULL, canary_row, j, e) < 0)
		return -1;
	if (j->why)
		j->verdict = BISECT_UNAVAILABLE;
	else if (j->bad)
		j->verdict = BISECT_BAD;
	else if (j->other)
		j->verdict = BISECT_OTHER;
	else if (j->passed)
		j->verdict = BISECT_GOOD;
	else
		j->verdict = j->tests ? BISECT_UNDECIDED : BISECT_NOT_RUN;
	return 0;
}

void bisect_summary(const char *const *versions, const enum bisect_verdict *verdicts, size_t n, struct buf *out)
{
	size_t tried = 0, unavailable = 0;
	long first_bad = -1, last_good = -1, fixed = -1, newest = -1;

	for (size_t i = 0; i < n; i++) {
		if (verdicts[i] == BISECT_NOT_RUN)
			continue;
		tried++;
		unavailable += verdicts[i] == BISECT_UNAVAILABLE;
		if (verdicts[i] != BISECT_GOOD && verdicts[i] != BISECT_BAD)
			continue;
		newest = (long)i;
		if (verdicts[i] == BISECT_BAD && first_bad < 0)
			first_bad = (long)i;
		else if (verdicts[i] == BISECT_GOOD && first_bad < 0)
			last_good = (long)i;
		else if (verdicts[i] == BISECT_GOOD && fixed < 0)
			fixed = (long)i;
	}
	if (!tried)
		return;
	if (first_bad < 0)
		buf_addf(out, "not seen in any release tried");
	else if (last_good < 0)
		buf_addf(out, "bad since the oldest tried, %s", versions[first_bad]);
	else
		buf_addf(out, "first bad %s, last good %s", versions[first_bad], versions[last_good]);
	if (first_bad >= 0 && fixed >= 0)
		buf_addf(out, ", fixed in %s", versions[fixed]);
	else if (first_bad >= 0)
		buf_addf(out, ", still in %s", versions[newest]);
	buf_addf(out, " (%zu release%s tried", tried, tried == 1 ? "" : "s");
	if (unavailable)
		buf_addf(out, ", %zu unavailable", unavailable);
	buf_adds(out, ")\n");
}

/* --- bisect_describe ---------------------------------------------------------------------------- */

struct label {
	char *label;
	const char *version;
	struct bisect_judgement j;
};

struct labels {
	const char *base;
	struct label *v;
	size_t n;
};

static int take_label(void *ctx, const char *frontend, struct err *e)
{
	struct labels *l = ctx;
	size_t n = strlen(l->base);

	(void)e;
	if (strncmp(frontend, l->base, n) || frontend[n] != '@')
		return 0;
	l->v = xrealloc(l->v, (l->n + 1) * sizeof(*l->v));
	memset(&l->v[l->n], 0, sizeof(*l->v));
	l->v[l->n].label = xstrdup(frontend);
	l->v[l->n].version = l->v[l->n].label + n + 1;
	l->n++;
	return 0;
}

/* The bug's outcome: the failures under another release that count as it. */
static int bug_outcome(void *ctx, const struct db_bug *bug, struct err *e)
{
	struct bisect_bug *b = ctx;

	(void)e;
	if (!b->outcome && !strcmp(bug->bug_id, b->bug_id))
		b->outcome = xstrdup(bug->outcome);
	return 0;
}

static int by_version(const void *a, const void *b)
{
	return strverscmp(((const struct label *)a)->version, ((const struct label *)b)->version);
}

int bisect_describe(struct db *db, const char *frontend, const char *bug, struct buf *out, struct err *e)
{
	struct bisect_bug b = { 0 };
	struct members m = { &b, -1 };
	struct labels l = { NULL, NULL, 0 };
	const char *at = strchr(frontend, '@');
	const char **versions = NULL;
	enum bisect_verdict *verdicts = NULL;
	int r = -1;

	b.bug_id = xstrdup(bug);
	b.frontend = xstrdup(frontend);
	b.base = at ? xstrndup(frontend, (size_t)(at - frontend)) : xstrdup(frontend);
	/* No other release of the adapter in the store (most stores): nothing to say, and nothing read. */
	l.base = b.base;
	if (db_frontends(db, NULL, take_label, &l, e) < 0)
		goto out;
	if (!l.n) {
		r = 0;
		goto out;
	}
	if (db_bugs(db, frontend, bug_outcome, &b, e) < 0)
		goto out;
	if (!b.outcome) {
		r = 0;  /* no such bug (any more): nothing to say */
		goto out;
	}
	if (db_bug_members(db, frontend, bug, -1, member, &m, e) < 0)
		goto out;
	qsort(l.v, l.n, sizeof(*l.v), by_version);
	versions = xcalloc(l.n + 1, sizeof(*versions));
	verdicts = xcalloc(l.n + 1, sizeof(*verdicts));
	for (size_t i = 0; i < l.n; i++) {
		if (bisect_judge(db, &b, l.v[i].label, l.v[i].version, &l.v[i].j, e) < 0)
			goto out;
		versions[i] = l.v[i].version;
		verdicts[i] = l.v[i].j.verdict;
	}
	bisect_summary(versions, verdicts, l.n, out);
	r = 0;
out:
	for (size_t i = 0; i < l.n; i++) {
		free(l.v[i].label);
		bisect_judgement_release(&l.v[i].j);
	}
	free(l.v);
	free(versions);
	free(verdicts);
	bisect_bug_release(&b);
	return r;
}
