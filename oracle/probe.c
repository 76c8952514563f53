/* probe.c: the probe of an (operator, dtype) group, and what its outcome says. */
#include "probe.h"
#include "outcome.h"

#include "xalloc.h"

#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

const char *probe_dtype(const struct instance *in)
{
	for (size_t i = 0; i < in->noutputs; i++)
		if (in->outputs[i].type == V_TENSOR)
			return in->outputs[i].u.t.dtype;
	for (size_t i = 0; i < in->ninputs; i++)
		if (in->inputs[i].type == V_TENSOR)
			return in->inputs[i].u.t.dtype;
	return NULL;
}

uint64_t probe_elements(const struct instance *in)
{
	uint64_t total = 0;

	for (size_t i = 0; i < in->ninputs; i++) {
		const struct tensor *t = &in->inputs[i].u.t;
		uint64_t n = 1;

		if (in->inputs[i].type != V_TENSOR)
			continue;
		for (int k = 0; k < t->rank; k++) {
			uint64_t d = t->shape[k] >= 0 ? (uint64_t)t->shape[k] : 1;

			n = d && n > UINT64_MAX / d ? UINT64_MAX : n * d;
		}
		total = total > UINT64_MAX - n ? UINT64_MAX : total + n;
	}
	return total;
}

static bool has_zero_dim(const struct value *v)
{
	if (v->type != V_TENSOR)
		return false;
	for (int k = 0; k < v->u.t.rank; k++)
		if (v->u.t.shape[k] == 0)
			return true;
	return false;
}

bool probe_degenerate(const struct instance *in)
{
	const char *dtype = probe_dtype(in);
	bool first = true;

	for (size_t i = 0; i < in->noutputs; i++)
		if (has_zero_dim(&in->outputs[i]))
			return true;
	for (size_t i = 0; i < in->ninputs; i++) {
		const struct value *v = &in->inputs[i];

		if (v->type != V_TENSOR)
			continue;
		/* An empty index or axes tensor is a form of the operator (ReduceSum's "no axes"); an
		 * empty operand is an empty batch. */
		if ((first || (dtype && v->u.t.dtype && !strcmp(v->u.t.dtype, dtype))) && has_zero_dim(v))
			return true;
		first = false;
	}
	return false;
}

int probe_cmp(const struct instance *a, int a_undefined, const struct instance *b, int b_undefined)
{
	uint64_t ea, eb;
	bool da, db;

	if (!a_undefined != !b_undefined)
		return a_undefined ? 1 : -1;
	/* An empty tensor takes a path of its own in most frontends (and hits bugs of its own): a
	 * verdict on it says little about the group. */
	da = probe_degenerate(a);
	db = probe_degenerate(b);
	if (da != db)
		return da ? 1 : -1;
	ea = probe_elements(a);
	eb = probe_elements(b);
	if (ea != eb)
		return ea < eb ? -1 : 1;
	if (a->nparams != b->nparams)
		return a->nparams < b->nparams ? -1 : 1;
	return strcmp(a->id, b->id);
}

enum probe_class probe_class(const char *outcome)
{
	switch (outcome_from_name(outcome)) {
	case OUTCOME_PASS:
	case OUTCOME_MISMATCH:
	case OUTCOME_INCONSISTENT:
		return PROBE_SUPPORTED;
	case OUTCOME_UNSUPPORTED:
		return PROBE_UNSUPPORTED;
	default:
		return PROBE_FAILING;
	}
}

const char *probe_class_name(enum probe_class c)
{
	static const char *const names[PROBE_NCLASSES] = { "supported", "unsupported", "failing" };

	return (unsigned)c < PROBE_NCLASSES ? names[c] : "?";
}

void probe_group_key(const struct instance *in, struct buf *key)
{
	const char *dtype = probe_dtype(in);

	buf_reset(key);
	buf_addf(key, "%s\t%s", in->op, dtype ? dtype : PROBE_NO_DTYPE);
}

void probe_signature(const struct instance *in, struct buf *sig)
{
	const char *dtype = probe_dtype(in);

	buf_reset(sig);
	/* The group's dtype is the first output's when there is one, and it leads the signature. */
	dtype = in->noutputs && in->outputs[0].type == V_TENSOR ? in->outputs[0].u.t.dtype :
		in->noutputs ? PROBE_NO_DTYPE : dtype ? dtype : PROBE_NO_DTYPE;
	buf_addf(sig, "%s(", dtype);
	for (size_t i = 0; i < in->ninputs; i++)
		buf_addf(sig, "%s%s", i ? "," : "",
			 in->inputs[i].type == V_TENSOR ? in->inputs[i].u.t.dtype : PROBE_NO_DTYPE);
	buf_addc(sig, ')');
}

void probe_signature_key(const struct instance *in, struct buf *key)
{
	struct buf sig = BUF_INIT;

	probe_signature(in, &sig);
	buf_reset(key);
	buf_addf(key, "%s\t%s", in->op, sig.data);
	buf_release(&sig);
}

static char *dup_or_null(const char *s)
{
	return s ? xstrdup(s) : NULL;
}

static int add_row(void *ctx, const struct db_support *s, struct err *e)
{
	struct strmap *m = ctx;
	struct buf key = BUF_INIT;
	struct strmap_entry *ent;
	struct probe_row *p;
	int created;

	(void)e;
	buf_addf(&key, "%s\t%s", s->op, s->dtype);
	ent = strmap_get(m, key.data, &created);
	buf_release(&key);
	if (!created)
		return 0;
	ent->ptr = p = xcalloc(1, sizeof(*p));
	p->op = xstrdup(s->op);
	p->dtype = xstrdup(s->dtype);
	p->outcome = xstrdup(s->outcome);
	p->stage = dup_or_null(s->stage);
	p->message = dup_or_null(s->message);
	p->probe_id = xstrdup(s->probe_id);
	p->cls = probe_class(s->outcome);
	return 0;
}

int probe_map_load(struct strmap *m, struct db *d, const char *frontend, const char *version, struct err *e)
{
	return db_support_rows(d, frontend, version, NULL, NULL, add_row, m, e) < 0 ? -1 : 0;
}

void probe_map_release(struct strmap *m)
{
	for (size_t i = 0; i < m->cap; i++) {
		struct probe_row *p = m->slots[i].key ? m->slots[i].ptr : NULL;

		if (!p)
			continue;
		free(p->op);
		free(p->dtype);
		free(p->outcome);
		free(p->stage);
		free(p->message);
		free(p->probe_id);
		free(p);
	}
	strmap_release(m);
	strmap_init(m);
}

const struct probe_row *probe_map_find(const struct strmap *m, const char *record)
{
	struct instance in;
	struct err ignored = ERR_INIT;
	struct buf key = BUF_INIT;
	const struct strmap_entry *ent = NULL;

	if (!m->len || !record)
		return NULL;
	if (record_parse(&in, record, strlen(record), &ignored) == 0) {
		probe_group_key(&in, &key);
		ent = strmap_find(m, key.data);
		record_release(&in);
	}
	err_release(&ignored);
	buf_release(&key);
	return ent ? ent->ptr : NULL;
}
