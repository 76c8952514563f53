/* filing.c: the bugs in filing order (filing.h). */
#define _GNU_SOURCE /* strverscmp */
#include "filing.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "frontend.h"
#include "outcome.h"
#include "strmap.h"
#include "xalloc.h"

static char *dup_or_null(const char *s)
{
	return s ? xstrdup(s) : NULL;
}

static int keep(void *ctx, const struct db_bug *b, struct err *e)
{
	struct filing *f = ctx;
	struct filing_bug *x;

	(void)e;
	f->v = xrealloc(f->v, (f->n + 1) * sizeof(*f->v));
	x = &f->v[f->n++];
	memset(x, 0, sizeof(*x));
	x->b.bug_id = xstrdup(b->bug_id);
	x->b.frontend = xstrdup(b->frontend);
	x->b.outcome = xstrdup(b->outcome);
	x->b.stage = dup_or_null(b->stage);
	x->b.signature = dup_or_null(b->signature);
	x->b.representative = dup_or_null(b->representative);
	x->b.ops = dup_or_null(b->ops);
	x->b.message = dup_or_null(b->message);
	x->b.members = b->members;
	return 0;
}

static enum filing_severity severity_of(const struct db_bug *b)
{
	enum outcome o = outcome_from_name(b->outcome);
	const char *sig = b->signature ? b->signature : "";

	/* A signal death's signature holds its exception type, "signal N", as a field (dedup.c). */
	if (o == OUTCOME_CRASH)
		return strstr(sig, "|signal ") ? SEVERITY_SIGNAL : SEVERITY_CRASH;
	if (o == OUTCOME_TIMEOUT || o == OUTCOME_OOM)
		return SEVERITY_HANG;
	if (o == OUTCOME_MISMATCH || o == OUTCOME_INCONSISTENT)
		return SEVERITY_WRONG;
	return SEVERITY_OTHER;
}

/* The operators of a comma-separated list, a generated graph's "graph" not one of them. */
static size_t count_operators(const char *ops)
{
	size_t n = 0;

	for (const char *p = ops; p && *p;) {
		size_t len = strcspn(p, ",");

		n += !(len == 5 && !strncmp(p, "graph", 5));
		p += len + (p[len] == ',');
	}
	return n;
}

/* Which bugs are of an older release than the newest the store holds of their adapter: each label's
 * version read once (versions[i], owned), the newest per adapter kept in newest (ptr, borrowed). */
static int newest_of(struct db *d, struct filing *f, struct strmap *newest, struct err *e)
{
	char **versions = xcalloc(f->n + 1, sizeof(*versions));
	int ret = -1;

	for (size_t i = 0; i < f->n; i++) {
		char *adapter = session_adapter_name(f->v[i].b.frontend);
		struct strmap_entry *s;

		if (db_frontend_version(d, f->v[i].b.frontend, &versions[i], e) < 0) {
			free(adapter);
			goto out;
		}
		s = strmap_get(newest, adapter, NULL);
		if (versions[i] && (!s->ptr || strverscmp(versions[i], s->ptr) > 0))
			s->ptr = versions[i];
		free(adapter);
	}
	for (size_t i = 0; i < f->n; i++) {
		char *adapter = session_adapter_name(f->v[i].b.frontend);
		const struct strmap_entry *s = strmap_find(newest, adapter);

		f->v[i].older = s && s->ptr && versions[i] && strverscmp(versions[i], s->ptr) < 0;
		free(adapter);
	}
	ret = 0;
out:
	for (size_t i = 0; i < f->n; i++)
		free(versions[i]);
	free(versions);
	return ret;
}

static int by_filing(const void *pa, const void *pb)
{
	const struct filing_bug *a = pa, *b = pb;
	int c;

	if (a->kind != b->kind)
		return (int)a->kind - (int)b->kind;
	if (a->older != b->older)
		return a->older - b->older;
	if (a->score != b->score)
		return a->score > b->score ? -1 : 1;
	if (a->severity != b->severity)
		return (int)a->severity - (int)b->severity;
	if (a->b.members != b->b.members)
		return a->b.members > b->b.members ? -1 : 1;
	c = strcmp(a->b.frontend, b->b.frontend);
	return c ? c : strcmp(a->b.bug_id, b->b.bug_id);
}

int filing_load(struct db *d, const char *frontend, struct filing *f, struct err *e)
{
	struct strmap newest = STRMAP_INIT;
	int ret = -1;

	memset(f, 0, sizeof(*f));
	if (db_bugs(d, frontend, keep, f, e) < 0 || newest_of(d, f, &newest, e) < 0)
		goto out;
	for (size_t i = 0; i < f->n; i++) {
		struct filing_bug *x = &f->v[i];
		x->kind = kinds_of_signature(x->b.signature);
		x->severity = severity_of(&x->b);
		x->operators = count_operators(x->b.ops);
		x->score = ((double)x->operators + sqrt((double)x->b.members)) * (x->severity < SEVERITY_WRONG ? 2 : 1);
	}
	if (f->n)
		qsort(f->v, f->n, sizeof(*f->v), by_filing);
	for (size_t i = 0; i < f->n; i++)
		f->v[i].rank = i + 1;
	ret = 0;
out:
	strmap_release(&newest);
	if (ret < 0)
		filing_release(f);
	return ret;
}

void filing_release(struct filing *f)
{
	for (size_t i = 0; i < f->n; i++) {
		struct db_bug *b = &f->v[i].b;

		free((char *)b->bug_id);
		free((char *)b->frontend);
		free((char *)b->outcome);
		free((char *)b->stage);
		free((char *)b->signature);
		free((char *)b->representative);
		free((char *)b->ops);
		free((char *)b->message);
	}
	free(f->v);
	f->v = NULL;
	f->n = 0;
}

const char *filing_severity_name(enum filing_severity s)
{
	static const char *const names[] = { "signal", "crash", "hang", "wrong result", "other" };

	return s <= SEVERITY_OTHER ? names[s] : "other";
}
