/* trigger.c: what triggers a bug, by contrast (trigger.h): the neighbours of its representative
 * that ran on its frontend, sorted into those that pass and those that fail within the same bug,
 * and said as a change of the representative's dtype, parameters, rank or shape. */
#include <stdlib.h>
#include <string.h>

#include "strmap.h"
#include "trigger.h"
#include "xalloc.h"

/* What a neighbour changed, from vary's label (rules.h). */
enum change { CH_DTYPE, CH_PARAM_DEFAULT, CH_PARAM_SET, CH_RANK, CH_DIM, CH_OTHER };

enum verdict { V_OTHERWISE, V_PASSES, V_ALIKE };

struct nb {
	enum change kind;
	char *what;      /* the dtype, the parameter's name, the rank's delta ("-1"), the dimension */
	char *value;     /* CH_PARAM_SET: the value it was set to */
	enum verdict verdict;
};

struct nbs {
	struct nb *v;
	size_t n, cap;
	const char *bug_id;
	size_t ran;      /* neighbours with a result on the frontend */
};

static void parse_change(const char *label, struct nb *n)
{
	const char *eq;

	n->kind = CH_OTHER;
	if (!strncmp(label, "dtype:", 6) && strncmp(label, "dtype:in:", 9)) {
		n->kind = CH_DTYPE;
		n->what = xstrndup(label + 6, strcspn(label + 6, "+"));
	} else if (!strncmp(label, "param:-", 7)) {
		n->kind = CH_PARAM_DEFAULT;
		n->what = xstrdup(label + 7);
	} else if (!strncmp(label, "param:", 6) && (eq = strchr(label + 6, '='))) {
		const char *name = label + 6 + (label[6] == '+');

		n->kind = CH_PARAM_SET;
		n->what = xstrndup(name, (size_t)(eq - name));
		n->value = xstrdup(eq + 1);
	} else if (!strncmp(label, "rank:", 5)) {
		n->kind = CH_RANK;
		n->what = xstrdup(label + 5);
	} else if (!strncmp(label, "dim:", 4) && (eq = strchr(label, '=')) && !strcmp(eq, "=1")) {
		n->kind = CH_DIM;
		n->what = xstrndup(label + 4, (size_t)(eq - label - 4));
	}
	if (!n->what)
		n->what = xstrdup(label);
}

static int add_neighbour(void *ctx, const struct db_neighbour *row, struct err *e)
{
	struct nbs *s = ctx;
	struct nb *n;

	(void)e;
	if (!row->outcome)
		return 0;  /* not run on this frontend */
	s->ran++;
	XGROW(s->v, s->cap, s->n + 1);
	n = &s->v[s->n++];
	memset(n, 0, sizeof(*n));
	parse_change(row->change, n);
	if (!strcmp(row->outcome, "pass"))
		n->verdict = V_PASSES;
	else if (row->bug_id && !strcmp(row->bug_id, s->bug_id))
		n->verdict = V_ALIKE;
	else
		n->verdict = V_OTHERWISE;  /* another bug, or not a bug (unsupported, undefined) */
	return 0;
}

static void nbs_release(struct nbs *s)
{
	for (size_t i = 0; i < s->n; i++) {
		free(s->v[i].what);
		free(s->v[i].value);
	}
	free(s->v);
	s->v = NULL;
	s->n = s->cap = s->ran = 0;
}

/* --- the bug and its subject -------------------------------------------------------------------- */

struct find_bug {
	const char *bug_id;
	char *representative;
};

static int find_bug(void *ctx, const struct db_bug *b, struct err *e)
{
	struct find_bug *f = ctx;

	(void)e;
	if (!f->representative && !strcmp(b->bug_id, f->bug_id))
		f->representative = xstrdup(b->representative);
	return 0;
}

static int add_parent(void *ctx, const struct db_neighbour *row, struct err *e)
{
	(void)e;
	strmap_get(ctx, row->parent, NULL);
	return 0;
}

static int add_member(void *ctx, const char *frontend, const char *bug_id, const char *id, const char *op,
		      struct err *e)
{
	(void)frontend, (void)bug_id, (void)op, (void)e;
	strmap_get(ctx, id, NULL);
	return 0;
}

static int keep_record(void *ctx, const struct db_row *row, struct err *e)
{
	char **out = ctx;

	(void)e;
	if (row->record && !*out)
		*out = xstrdup(row->record);
	return 0;
}

/* --- the words ---------------------------------------------------------------------------------- */

/* A value as the library's user writes it: True, 3, 0.5, "same" as same, (2,2). */
static void value_words(const struct value *v, struct buf *out)
{
	switch (v->type) {
	case V_BOOL: buf_adds(out, v->u.b ? "True" : "False"); break;
	case V_INT: buf_addf(out, "%lld", (long long)v->u.i); break;
	case V_FLOAT: buf_addf(out, "%g", v->u.f); break;
	case V_NONE: buf_adds(out, "None"); break;
	case V_STR: case V_DTYPE: buf_adds(out, v->u.s); break;
	case V_LIST: case V_TUPLE:
		buf_addc(out, v->type == V_TUPLE ? '(' : '[');
		for (size_t i = 0; i < v->u.seq.n; i++) {
			if (i)
				buf_addc(out, ',');
			if (v->u.seq.items[i].type == V_INT || v->u.seq.items[i].type == V_BOOL ||
			    v->u.seq.items[i].type == V_FLOAT)
				value_words(&v->u.seq.items[i], out);
			else
				buf_adds(out, "...");
		}
		buf_addc(out, v->type == V_TUPLE ? ')' : ']');
		break;
	default: buf_adds(out, vtype_name(v->type)); break;
	}
}

/* A label's value in the same words: vary writes bools as true and false. */
static void label_value_words(const char *s, struct buf *out)
{
	buf_adds(out, !strcmp(s, "true") ? "True" : !strcmp(s, "false") ? "False" : s);
}

/* "a", "a and b", "a, b and c" of the words in items. */
static void join_and(char **items, size_t n, struct buf *out)
{
	for (size_t i = 0; i < n; i++)
		buf_addf(out, "%s%s", i == 0 ? "" : i + 1 == n ? " and " : ", ", items[i]);
}

struct words {
	char **v;
	size_t n, cap;
};

static void words_add(struct words *w, char *s)
{
	for (size_t i = 0; i < w->n; i++)
		if (!strcmp(w->v[i], s)) {
			free(s);
			return;
		}
	XGROW(w->v, w->cap, w->n + 1);
	w->v[w->n++] = s;
}

static void words_release(struct words *w)
{
	for (size_t i = 0; i < w->n; i++)
		free(w->v[i]);
	free(w->v);
	memset(w, 0, sizeof(*w));
}

static const struct tensor *first_tensor(const struct instance *in)
{
	for (size_t i = 0; i < in->ninputs; i++)
		if (in->inputs[i].type == V_TENSOR)
			return &in->inputs[i].u.t;
	return NULL;
}

/* The clauses of the neighbours of one verdict, as changes: "for float32 and int32", "with
 * ceil_mode at its default", "at rank 3", "with dim 2 of size 1". */
static void changed_clauses(const struct nbs *s, enum verdict which, const struct instance *in, struct words *out)
{
	const struct tensor *t = first_tensor(in);
	struct words dtypes = { NULL, 0, 0 };
	struct buf b = BUF_INIT;

	for (size_t i = 0; i < s->n; i++)
		if (s->v[i].verdict == which && s->v[i].kind == CH_DTYPE)
			words_add(&dtypes, xstrdup(s->v[i].what));
	if (dtypes.n) {
		buf_adds(&b, "for ");
		join_and(dtypes.v, dtypes.n, &b);
		if (which == V_ALIKE)
			buf_adds(&b, " inputs");
		words_add(out, buf_detach(&b));
	}
	for (size_t i = 0; i < s->n; i++) {
		const struct nb *n = &s->v[i];
		int dflt = 0, first = 1;

		if (n->verdict != which)
			continue;
		buf_reset(&b);
		switch (n->kind) {
		case CH_PARAM_DEFAULT:
		case CH_PARAM_SET:
			/* One clause per parameter: "with ceil_mode=0 or at its default". */
			for (size_t k = 0; k < i; k++) {
				const struct nb *m = &s->v[k];

				if (m->verdict == which && (m->kind == CH_PARAM_DEFAULT || m->kind == CH_PARAM_SET) &&
				    !strcmp(m->what, n->what))
					dflt = -1;
			}
			if (dflt < 0)
				break;
			for (size_t k = i; k < s->n; k++) {
				const struct nb *m = &s->v[k];

				if (m->verdict != which || strcmp(m->what, n->what))
					continue;
				if (m->kind == CH_PARAM_DEFAULT) {
					dflt = 1;
				} else if (m->kind == CH_PARAM_SET) {
					buf_addf(&b, first ? "with %s=" : " or ", n->what);
					label_value_words(m->value, &b);
					first = 0;
				}
			}
			if (dflt)
				buf_addf(&b, first ? "with %s at its default" : " or at its default", n->what);
			break;
		case CH_RANK: {
			/* One clause for the ranks: "at rank 1 and 3". */
			int lead = 1;

			for (size_t k = 0; k < i && lead; k++)
				lead = !(s->v[k].verdict == which && s->v[k].kind == CH_RANK);
			for (size_t k = i; t && lead && k < s->n; k++) {
				int to = t->rank + atoi(s->v[k].what);

				if (s->v[k].verdict != which || s->v[k].kind != CH_RANK || to < 0)
					continue;
				buf_addf(&b, b.len ? " and %d" : "at rank %d", to);
			}
			break;
		}
		case CH_DIM:
			buf_addf(&b, "with dim %s of size 1", n->what);
			break;
		case CH_OTHER:
			buf_addf(&b, "with %s", n->what);
			break;
		default:
			break;
		}
		if (b.len)
			words_add(out, buf_detach(&b));
	}
	words_release(&dtypes);
	buf_release(&b);
}

/* The clauses of what the subject is, for the changes that made it pass: "for int16 inputs" (with
 * the dtypes that failed alike), "with ceil_mode=True", "at rank 4", "with dim 2 of size 8". */
static void subject_clauses(const struct nbs *s, const struct instance *in, struct words *out)
{
	const struct tensor *t = first_tensor(in);
	struct words dtypes = { NULL, 0, 0 };
	struct buf b = BUF_INIT;
	int dtype_passes = 0;

	for (size_t i = 0; i < s->n; i++)
		dtype_passes |= s->v[i].kind == CH_DTYPE && s->v[i].verdict == V_PASSES;
	if (dtype_passes && t) {
		words_add(&dtypes, xstrdup(t->dtype));
		for (size_t i = 0; i < s->n; i++)
			if (s->v[i].kind == CH_DTYPE && s->v[i].verdict == V_ALIKE)
				words_add(&dtypes, xstrdup(s->v[i].what));
		buf_adds(&b, "for ");
		join_and(dtypes.v, dtypes.n, &b);
		buf_adds(&b, " inputs");
		words_add(out, buf_detach(&b));
	}
	for (size_t i = 0; i < s->n; i++) {
		const struct nb *n = &s->v[i];
		const struct value *v;

		if (n->verdict != V_PASSES)
			continue;
		buf_reset(&b);
		switch (n->kind) {
		case CH_PARAM_DEFAULT:
		case CH_PARAM_SET:
			if ((v = record_param(in, n->what))) {
				buf_addf(&b, "with %s=", n->what);
				value_words(v, &b);
			} else {
				buf_addf(&b, "with %s at its default", n->what);
			}
			break;
		case CH_RANK:
			if (t)
				buf_addf(&b, "at rank %d", t->rank);
			break;
		case CH_DIM: {
			int k = atoi(n->what);

			if (t && k >= 0 && k < t->rank && t->shape[k] != TENSOR_DIM_UNKNOWN)
				buf_addf(&b, "with dim %d of size %lld", k, (long long)t->shape[k]);
			break;
		}
		default:
			break;
		}
		if (b.len)
			words_add(out, buf_detach(&b));
	}
	words_release(&dtypes);
	buf_release(&b);
}

static void clauses_join(const struct words *w, struct buf *out)
{
	for (size_t i = 0; i < w->n; i++)
		buf_addf(out, "%s%s", i ? ", " : "", w->v[i]);
}

/* --- the entry point ---------------------------------------------------------------------------- */

int trigger_parents_in_bug(struct db *d, const char *frontend, const char *bug_id, const char *test,
			   struct strmap *out, struct err *e)
{
	struct strmap parents = STRMAP_INIT, members = STRMAP_INIT;
	int r = -1;

	if (db_neighbours(d, frontend, NULL, test, add_parent, &parents, e) < 0)
		goto out;
	if (parents.len && db_bug_members(d, frontend, bug_id, -1, add_member, &members, e) < 0)
		goto out;
	for (size_t i = 0; i < parents.cap; i++)
		if (parents.slots[i].key && strmap_find(&members, parents.slots[i].key))
			strmap_get(out, parents.slots[i].key, NULL);
	r = 0;
out:
	strmap_release(&parents);
	strmap_release(&members);
	return r;
}

int trigger_describe(struct db *d, const char *frontend, const char *bug_id, const char *representative,
		     struct buf *title, struct err *e)
{
	return trigger_describe_params(d, frontend, bug_id, representative, title, NULL, e);
}

int trigger_describe_params(struct db *d, const char *frontend, const char *bug_id, const char *representative,
			    struct buf *title, struct buf *params, struct err *e)
{
	struct find_bug f = { bug_id, NULL };
	struct nbs s = { NULL, 0, 0, bug_id, 0 };
	struct strmap parents = STRMAP_INIT;
	struct words fails = { NULL, 0, 0 }, passes = { NULL, 0, 0 }, alike = { NULL, 0, 0 };
	struct instance in = INSTANCE_INIT;
	char *subject = NULL, *record = NULL;
	int passed = 0, parsed = 0, r = -1;

	if (representative)
		f.representative = xstrdup(representative);
	else if (db_bugs(d, frontend, find_bug, &f, e) < 0)
		goto out;
	if (!f.representative) {
		r = 0;
		goto out;
	}
	subject = xstrdup(f.representative);
	if (db_neighbours(d, frontend, subject, NULL, add_neighbour, &s, e) < 0)
		goto out;
	/* A representative with none of its own that is a neighbour of a member (the bug's simplest
	 * test was found by the trigger stage): that member's neighbours tell. */
	if (!s.ran) {
		if (trigger_parents_in_bug(d, frontend, bug_id, subject, &parents, e) < 0)
			goto out;
		for (size_t i = 0; i < parents.cap && !s.ran; i++) {
			const char *p = parents.slots[i].key;

			if (!p)
				continue;
			nbs_release(&s);
			if (db_neighbours(d, frontend, p, NULL, add_neighbour, &s, e) < 0)
				goto out;
			if (s.ran) {
				free(subject);
				subject = xstrdup(p);
			}
		}
	}
	if (s.ran && db_result(d, frontend, subject, keep_record, &record, e) < 0)
		goto out;
	r = 0;
	if (!s.ran || !record)
		goto out;
	{
		struct err bad = ERR_INIT;

		parsed = record_parse(&in, record, strlen(record), &bad) == 0;
		err_release(&bad);
		if (!parsed)
			goto out;
	}
	for (size_t i = 0; i < s.n; i++)
		passed |= s.v[i].verdict == V_PASSES;
	if (passed) {
		subject_clauses(&s, &in, &fails);
		changed_clauses(&s, V_PASSES, &in, &passes);
		if (fails.n) {
			buf_adds(title, "fails ");
			clauses_join(&fails, title);
			buf_adds(title, "; ");
		}
		buf_adds(title, "passes ");
		clauses_join(&passes, title);
		if (params) {
			/* The parameters' clauses alone: the neighbours that changed one. */
			struct nbs only = s;
			struct words w = { NULL, 0, 0 };

			only.v = xcalloc(s.n + 1, sizeof(*only.v));
			only.n = 0;
			for (size_t i = 0; i < s.n; i++)
				if (s.v[i].kind == CH_PARAM_DEFAULT || s.v[i].kind == CH_PARAM_SET)
					only.v[only.n++] = s.v[i];
			changed_clauses(&only, V_PASSES, &in, &w);
			clauses_join(&w, params);
			words_release(&w);
			free(only.v);
		}
	} else {
		changed_clauses(&s, V_ALIKE, &in, &alike);
		if (alike.n) {
			buf_adds(title, "fails alike ");
			clauses_join(&alike, title);
		}
	}
out:
	if (parsed)
		record_release(&in);
	words_release(&fails);
	words_release(&passes);
	words_release(&alike);
	nbs_release(&s);
	strmap_release(&parents);
	free(f.representative);
	free(subject);
	free(record);
	return r;
}
