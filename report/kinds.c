/* kinds.c: what a failure is when it is not a frontend bug (kinds.h). */
#include "kinds.h"
#include "compare.h"
#include "dedup.h"
#include "strmap.h"
#include "xalloc.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const char *const names[KIND_COUNT] = {
	"bug", "unsupported", "lacks", "undefined", "disputed", "invalid", "environment",
};

static const char *const headings[KIND_COUNT] = {
	"frontend bugs",
	"unsupported (the frontend's message says so)",
	"the frontend lacks it (every form of the operator for that dtype fails alike)",
	"undefined (the difference is within the dtype's precision)",
	"reference disputed (frontends agree with each other, not with the reference)",
	"suspected invalid tests (every frontend that ran them refused them)",
	"environment (the frontend's environment fails ferry's canary)",
};

const char *kinds_name(enum kind k)
{
	return names[k];
}

const char *kinds_heading(enum kind k)
{
	return headings[k];
}

enum kind kinds_of_signature(const char *signature)
{
	for (int k = 1; signature && k < KIND_COUNT; k++) {
		size_t n = strlen(names[k]);

		if (!strncmp(signature, names[k], n) && signature[n] == '|')
			return (enum kind)k;
	}
	return KIND_BUG;
}

/* --- the evidence: every frontend's outcome on every test ----------------------------------------- */

/* What one frontend made of a test. A pair of frontends ("a~b", the differential oracle) is no
 * frontend of its own. */
struct seen {
	char *frontend, *outcome, *stage;
	char *summary;            /* a mismatch's description (the comparison's), else NULL */
};

struct test {
	struct seen *seen;
	size_t n, cap;
};

struct kinds_evidence {
	struct strmap tests;      /* id -> struct test */
};

static int add_seen(void *ctx, const struct db_row *row, struct err *e)
{
	struct kinds_evidence *ev = ctx;
	struct strmap_entry *ent;
	struct test *t;

	(void)e;
	if (strchr(row->frontend, '~'))
		return 0;
	ent = strmap_get(&ev->tests, row->id, NULL);
	if (!ent->ptr)
		ent->ptr = xcalloc(1, sizeof(struct test));
	t = ent->ptr;
	XGROW(t->seen, t->cap, t->n + 1);
	t->seen[t->n++] = (struct seen){
		xstrdup(row->frontend), xstrdup(row->outcome), row->stage ? xstrdup(row->stage) : NULL,
		!strcmp(row->outcome, "mismatch") && row->message ? xstrdup(row->message) : NULL,
	};
	return 0;
}

int kinds_load(struct db *d, struct kinds_evidence **out, struct err *e)
{
	struct kinds_evidence *ev = xcalloc(1, sizeof(*ev));

	if (db_results_with(d, NULL, NULL, add_seen, ev, e) < 0) {
		kinds_free(ev);
		return -1;
	}
	*out = ev;
	return 0;
}

void kinds_free(struct kinds_evidence *ev)
{
	if (!ev)
		return;
	for (size_t i = 0; i < ev->tests.cap; i++) {
		struct test *t = ev->tests.slots[i].key ? ev->tests.slots[i].ptr : NULL;

		for (size_t k = 0; t && k < t->n; k++) {
			free(t->seen[k].frontend);
			free(t->seen[k].outcome);
			free(t->seen[k].stage);
			free(t->seen[k].summary);
		}
		if (t)
			free(t->seen);
		free(t);
	}
	strmap_release(&ev->tests);
	free(ev);
}

/* --- the judgements ------------------------------------------------------------------------------ */

/* The largest difference of a half-precision mismatch in units in the last place of the reference
 * there, from the comparison's description ("max |got - want| = D at [i] (got G, want W), N of M
 * elements beyond atol A + rtol R or 2 ulp of float16"); -1 when it is no such description. */
static double worst_ulps(const char *message, enum dtype *t)
{
	static const char *const halves[] = { "float16", "bfloat16" };
	const char *u = message ? strstr(message, " ulp of ") : NULL, *at, *want;
	struct err e = ERR_INIT;
	char name[16];
	double d, w;
	int n = 0;

	if (!u || sscanf(u, " ulp of %15[a-z0-9]%n", name, &n) != 1)
		return -1;
	if (strcmp(name, halves[0]) && strcmp(name, halves[1]))
		return -1;
	if (compare_dtype_from_name(name, t, &e) < 0) {
		err_release(&e);
		return -1;
	}
	if (!(at = strstr(message, "max |got - want| = ")) || sscanf(at, "max |got - want| = %lf", &d) != 1 ||
	    !(want = strstr(at, ", want ")) || sscanf(want, ", want %lf", &w) != 1 || !isfinite(d) || !isfinite(w))
		return -1;
	return d / compare_half_ulp(w, *t);
}

/* A mismatch within the precision of its half-precision dtype (kinds.h, undefined). */
static bool within_precision(const struct kinds_case *c, struct buf *sig)
{
	enum dtype t;
	double ulps = worst_ulps(c->message, &t);

	if (ulps < 0 || ulps > COMPARE_HALF_ULPS)
		return false;
	buf_addf(sig, "undefined|precision|%s|%s", c->frontend, compare_dtype_name(t));
	return true;
}

/* The description of a mismatch after its output's number ("output N: "). */
static const char *answer(const char *summary)
{
	const char *colon = summary && !strncmp(summary, "output ", 7) ? strstr(summary, ": ") : NULL;

	return colon ? colon + 2 : summary ? summary : "";
}

/* The frontend whose word speaks for a library's specification: its reference runtime. */
static bool is_judge(const char *frontend)
{
	return !strcmp(frontend, "ort") || !strncmp(frontend, "ort@", 4);
}

/* A mismatch that frontends make alike, value for value, which none passes: the library's reference
 * runtime among two of them, or three without it (two releases of one era may share a mistake). */
static bool disputed(const struct test *t, const struct kinds_case *c, struct buf *sig)
{
	size_t agree = 0;
	bool judged = false;

	if (!t || !c->message)
		return false;
	for (size_t k = 0; k < t->n; k++) {
		const struct seen *s = &t->seen[k];

		if (!strcmp(s->outcome, "pass"))
			return false;
		if (s->summary && !strcmp(s->summary, c->message)) {
			agree++;
			judged |= is_judge(s->frontend);
		}
	}
	if (agree < 2 || (!judged && agree < 3))
		return false;
	/* Not the frontend's: the entry is the reference's, one for all the frontends that show it. */
	buf_addf(sig, "disputed|-|%s|%s", c->op ? c->op : "?",
		 strstr(answer(c->message), "shape") ? "shape" : "values");
	return true;
}

/* Refused: a crash or an unsupported verdict, at load, compile or execution (ONNX Runtime's kernels
 * check their inputs' shapes when they run). */
static bool refused(const struct seen *s)
{
	return !strcmp(s->outcome, "crash") || !strcmp(s->outcome, "unsupported");
}

/* A test ferry made that the library's reference runtime refused, and another frontend too; without
 * the reference runtime, one that two frontends or more refused and none ran (kinds.h, invalid).
 * Every failure of such a test is listed as its, a mismatch too: what a frontend answers to an
 * invalid model says nothing. */
static bool invalid(const struct test *t, const struct kinds_case *c, struct buf *sig)
{
	size_t refusals = 0, others = 0;
	bool judged = false, judge_refused = false;

	if (!t || !c->derived)
		return false;
	for (size_t k = 0; k < t->n; k++) {
		bool r = refused(&t->seen[k]);

		if (is_judge(t->seen[k].frontend)) {
			/* The reference runtime lacking a kernel ("NOT_IMPLEMENTED") is no verdict on the test. */
			judged = true;
			judge_refused = !strcmp(t->seen[k].outcome, "crash");
		} else {
			refusals += r;
			others += !r;
		}
	}
	if (judged ? !(judge_refused && refusals >= 1) : !(refusals >= 2 && !others))
		return false;
	/* The test's, not a frontend's: one entry for all the frontends that refused it. */
	buf_addf(sig, "invalid|-|%s", c->op ? c->op : "?");
	return true;
}

enum kind kinds_judge(const struct kinds_evidence *ev, const struct kinds_case *c, struct buf *sig)
{
	const struct strmap_entry *ent = ev ? strmap_find(&ev->tests, c->id) : NULL;
	const struct test *t = ent ? ent->ptr : NULL;

	if (invalid(t, c, sig))
		return KIND_INVALID;
	if (!strcmp(c->outcome, "mismatch")) {
		if (within_precision(c, sig))
			return KIND_UNDEFINED;
		if (disputed(t, c, sig))
			return KIND_DISPUTED;
	}
	return KIND_BUG;
}

/* The n-th field of a signature ("a|b|c": 0 is a), into out. */
static void field(const char *signature, int n, struct buf *out)
{
	const char *p = signature;

	for (; n > 0 && p; n--)
		if ((p = strchr(p, '|')))
			p++;
	if (p)
		buf_add(out, p, strcspn(p, "|"));
}

void kinds_reason(const char *signature, struct buf *out)
{
	struct buf a = BUF_INIT, b = BUF_INIT;
	const char *p;

	switch (kinds_of_signature(signature)) {
	case KIND_UNSUPPORTED:
		/* unsupported|FRONTEND|PATTERN: the pattern, which may hold '|', is the rest */
		p = strchr(signature, '|');
		p = p ? strchr(p + 1, '|') : NULL;
		buf_addf(out, "the frontend says it does not support it (ferry's pattern: %s)", p ? p + 1 : "?");
		break;
	case KIND_LACKS:
		/* lacks|FRONTEND|OP|DTYPE|... */
		field(signature, 2, &a);
		field(signature, 3, &b);
		buf_addf(out, "lacks %s for ", a.data ? a.data : "?");
		for (const char *d = b.data ? b.data : "-"; *d; d++)
			buf_adds(out, *d == ',' ? ", " : (char[]){ *d, 0 });
		buf_adds(out, ": every test of it for that dtype fails alike");
		break;
	case KIND_UNDEFINED:
		field(signature, 3, &a);
		buf_addf(out, "within the precision of %s: its largest difference is at most %d ulp there",
			 a.data ? a.data : "?", COMPARE_HALF_ULPS);
		break;
	case KIND_DISPUTED:
		field(signature, 2, &a);
		buf_addf(out, "%s: other frontends give the same answer, none the reference's", a.data ? a.data : "?");
		break;
	case KIND_INVALID:
		field(signature, 2, &a);
		buf_addf(out, "%s made by ferry, refused by every frontend that ran it", a.data ? a.data : "?");
		break;
	case KIND_ENVIRONMENT:
		/* environment|FRONTEND|WHY: why, which may hold '|', is the rest */
		p = strchr(signature, '|');
		p = p ? strchr(p + 1, '|') : NULL;
		buf_addf(out, "a 0-d input, the form of ferry's canary, which failed: %s",
			 p && p[1] ? p + 1 : "the frontend's environment fails it");
		break;
	case KIND_BUG:
		break;
	}
	buf_release(&a);
	buf_release(&b);
}

/* --- the tests of each entry, for ferry check ------------------------------------------------------ */

struct tests_of {
	struct db *d;
	struct strmap *out;
	enum kind kind;
	const char *signature;
};

static int add_test(void *ctx, const char *frontend, const char *bug_id, const char *id, const char *op,
		    struct err *e)
{
	struct tests_of *t = ctx;
	char *key = xasprintf("%s\x1f%s", frontend, id);
	struct strmap_entry *ent = strmap_get(t->out, key, NULL);
	struct buf why = BUF_INIT;

	(void)bug_id;
	(void)op;
	(void)e;
	free(key);
	kinds_reason(t->signature, &why);
	free(ent->ptr);
	ent->ptr = buf_detach(&why);
	ent->count = t->kind;
	return 0;
}

static int add_entry(void *ctx, const struct db_bug *b, struct err *e)
{
	struct tests_of *t = ctx;

	t->kind = kinds_of_signature(b->signature);
	t->signature = b->signature;
	if (t->kind == KIND_BUG)
		return 0;
	return db_bug_members(t->d, b->frontend, b->bug_id, -1, add_test, t, e);
}

int kinds_tests(struct db *d, struct strmap *out, struct err *e)
{
	struct tests_of t = { d, out, KIND_BUG, NULL };

	if (dedup_rebuild(d, NULL, NULL, NULL, e) < 0)
		return -1;
	return db_bugs(d, NULL, add_entry, &t, e);
}

void kinds_tests_release(struct strmap *m)
{
	for (size_t i = 0; i < m->cap; i++)
		if (m->slots[i].key)
			free(m->slots[i].ptr);
	strmap_release(m);
}
