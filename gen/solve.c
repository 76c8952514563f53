/* solve.c: one operator instantiated on the graph being built (solve.h). Every choice is uniform
 * over its domain, filtered by the where clause when there is one; nothing is ever undone. */
#include "solve.h"

#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "xalloc.h"

/* --- random numbers ---------------------------------------------------------------------------- */

static uint64_t splitmix(uint64_t *x)
{
	uint64_t z = (*x += 0x9e3779b97f4a7c15ULL);

	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
	return z ^ (z >> 31);
}

void solve_rng_seed(struct solve_rng *r, uint64_t seed)
{
	for (int k = 0; k < 4; k++)
		r->s[k] = splitmix(&seed);
}

static uint64_t rotl(uint64_t x, int k)
{
	return (x << k) | (x >> (64 - k));
}

uint64_t solve_rng_next(struct solve_rng *r)
{
	uint64_t *s = r->s, out = rotl(s[1] * 5, 7) * 9, t = s[1] << 17;

	s[2] ^= s[0];
	s[3] ^= s[1];
	s[1] ^= s[2];
	s[0] ^= s[3];
	s[2] ^= t;
	s[3] = rotl(s[3], 45);
	return out;
}

uint64_t solve_rng_below(struct solve_rng *r, uint64_t n)
{
	/* Lemire's multiply-shift; the bias for the small n here is far below anything observable. */
	return (uint64_t)(((unsigned __int128)solve_rng_next(r) * n) >> 64);
}

double solve_rng_double(struct solve_rng *r)
{
	return (double)(solve_rng_next(r) >> 11) * 0x1.0p-53;
}

/* --- the pool ----------------------------------------------------------------------------------- */

void solve_pool_init(struct solve_pool *p)
{
	memset(p, 0, sizeof(*p));
}

void solve_pool_reset(struct solve_pool *p)
{
	p->n = 0;
	memset(p->nby, 0, sizeof(p->nby));
}

void solve_pool_release(struct solve_pool *p)
{
	free(p->t);
	free(p->id);
	for (int d = 0; d < DT_COUNT; d++)
		for (int r = 0; r <= GEN_MAX_RANK; r++)
			free(p->by[d][r]);
	solve_pool_init(p);
}

void solve_pool_add(struct solve_pool *p, const struct gen_tensor *t, int id)
{
	int d = t->dtype, r = t->rank;
	size_t cap = (size_t)p->cap, capby;

	if (r < 0 || r > GEN_MAX_RANK || d < 0 || d >= DT_COUNT)
		return;
	capby = (size_t)p->capby[d][r];
	if (p->n + 1 > p->cap) {
		p->t = xgrow(p->t, &cap, (size_t)p->n + 1, sizeof(*p->t));
		cap = (size_t)p->cap;
		p->id = xgrow(p->id, &cap, (size_t)p->n + 1, sizeof(*p->id));
		p->cap = (int)cap;
	}
	p->t[p->n] = *t;
	p->t[p->n].known = t->rank;
	p->id[p->n] = id;
	p->by[d][r] = xgrow(p->by[d][r], &capby, (size_t)p->nby[d][r] + 1, sizeof(int));
	p->capby[d][r] = (int)capby;
	p->by[d][r][p->nby[d][r]++] = p->n;
	p->n++;
}

/* --- solving ------------------------------------------------------------------------------------ */

struct run {
	struct solver *sv;
	const struct block *b;
	const struct solve_pool *pool;
	struct solve_node *out;
	struct val *slots;
	struct expr_env env;
	int in_cap, out_cap, attr_cap;
	int seen_input;            /* the first input statement has been solved */
};

static int bug(struct run *r, const struct stmt *s, const char *fmt, ...) __attribute__((format(printf, 3, 4)));

/* A spec bug at statement s (or where evaluation failed inside it). */
static int bug(struct run *r, const struct stmt *s, const char *fmt, ...)
{
	va_list ap;

	r->out->bug_line = s->line;
	r->out->bug_col = s->col;
	va_start(ap, fmt);
	vsnprintf(r->out->bug, sizeof(r->out->bug), fmt, ap);
	va_end(ap);
	return SOLVE_SPEC_BUG;
}

/* The evaluator's failure as a spec bug, at the expression's own place. */
static int eval_bug(struct run *r, const struct stmt *s)
{
	struct expr_fail *f = &r->sv->fail;

	r->out->bug_line = f->line ? f->line : s->line;
	r->out->bug_col = f->line ? f->col : s->col;
	snprintf(r->out->bug, sizeof(r->out->bug), "%s", f->msg);
	return SOLVE_SPEC_BUG;
}

static int eval(struct run *r, const struct stmt *s, const struct expr *x, struct val *v)
{
	return expr_eval(x, &r->env, v) < 0 ? eval_bug(r, s) : 0;
}

static int eval_list(struct run *r, const struct stmt *s, const struct expr *x, struct val *v)
{
	struct val t;

	if (expr_eval(x, &r->env, &t) < 0 || expr_as_list(&t, &r->env, x, v) < 0)
		return eval_bug(r, s);
	return 0;
}

/* A domain: a list, or one value standing for the list of it ("rank 2"). */
static int eval_domain(struct run *r, const struct stmt *s, const struct expr *x, struct val *v)
{
	struct val t;

	if (expr_eval(x, &r->env, &t) < 0)
		return eval_bug(r, s);
	if (t.kind == VAL_INT || t.kind == VAL_FLOAT || t.kind == VAL_STR) {
		v->kind = VAL_LIST;
		v->n = 1;
		v->u.items = expr_alloc(r->env.arena, sizeof(*v->u.items));
		v->u.items[0] = t;
		return 0;
	}
	if (expr_as_list(&t, &r->env, x, v) < 0)
		return eval_bug(r, s);
	return 0;
}

static int eval_int(struct run *r, const struct stmt *s, const struct expr *x, int64_t *i)
{
	struct val t;

	if (expr_eval(x, &r->env, &t) < 0 || expr_as_int(&t, &r->env, x, i) < 0)
		return eval_bug(r, s);
	return 0;
}

static int *scratch(struct solver *sv, int n)
{
	size_t cap = (size_t)sv->cap_scratch;

	if (n > sv->cap_scratch) {
		sv->scratch = xgrow(sv->scratch, &cap, (size_t)n, sizeof(int));
		sv->cap_scratch = (int)cap;
	}
	return sv->scratch;
}

static void describe_first(struct run *r, const char *name, const struct gen_tensor *t)
{
	struct val v = { VAL_TENSOR, 0, { .t = t } };
	char d[80];

	if (r->seen_input)
		return;
	r->seen_input = 1;
	expr_describe(&v, d, sizeof(d));
	snprintf(r->out->first, sizeof(r->out->first), "%s: %s", name, d);
}

/* Choose one item of list l uniformly among those for which cond holds (cond NULL: all), with
 * the chosen name's slot set to each candidate while cond is evaluated. Returns 1 and *out, 0
 * when none fits (an empty domain), or a SOLVE_SPEC_BUG status as -1. */
static int choose(struct run *r, const struct stmt *s, const struct val *l, const struct expr *cond, int slot,
		  struct val *out)
{
	struct val *items;
	int n = l->n;

	if (!cond) {
		if (!n)
			return 0;
		*out = l->u.items[solve_rng_below(r->sv->rng, (uint64_t)n)];
		return 1;
	}
	/* A random order, taking the first that fits: uniform over the fits, and it stops early. */
	items = expr_alloc(r->env.arena, (size_t)(n ? n : 1) * sizeof(*items));
	memcpy(items, l->u.items, (size_t)n * sizeof(*items));
	while (n > 0) {
		int j = (int)solve_rng_below(r->sv->rng, (uint64_t)n);
		struct val saved = r->slots[slot], c;
		int t;

		r->slots[slot] = items[j];
		if (expr_eval(cond, &r->env, &c) < 0 || (t = expr_truth(&c, &r->env, cond)) < 0) {
			r->slots[slot] = saved;
			eval_bug(r, s);
			return -1;
		}
		r->slots[slot] = saved;
		if (t) {
			*out = items[j];
			return 1;
		}
		items[j] = items[--n];
	}
	return 0;
}

/* The dtype set of an input's or output's type; binds nothing. */
static unsigned type_set(const struct run *r, const struct stmt *s)
{
	int ord;

	if (s->tyvar < 0)
		return 1u << s->dtype;
	if (r->slots[s->tyvar].kind == VAL_DTYPE)
		return 1u << r->slots[s->tyvar].u.i;
	ord = spec_tyvar_ordinal(r->b, s->tyvar);
	return r->b->tyvar_set[ord];
}

static int draw_dtype(struct run *r, unsigned set)
{
	int n = __builtin_popcount(set), k = (int)solve_rng_below(r->sv->rng, (uint64_t)n);

	for (int d = 0; d < DT_COUNT; d++)
		if (set & (1u << d) && k-- == 0)
			return d;
	return 0;
}

static void bind_tyvar(struct run *r, int slot, int dtype)
{
	if (slot >= 0 && r->slots[slot].kind != VAL_DTYPE) {
		r->slots[slot].kind = VAL_DTYPE;
		r->slots[slot].u.i = dtype;
	}
}

/* Type variables a statement mentions are drawn when first needed. */
static void bind_mentioned(struct run *r, const struct stmt *s, int except_slot)
{
	for (int k = 0; k < r->b->ntyvars; k++) {
		int slot = r->b->tyvar_slot[k];

		if ((s->tyrefs & (1u << k)) && slot != except_slot && r->slots[slot].kind != VAL_DTYPE)
			bind_tyvar(r, slot, draw_dtype(r, r->b->tyvar_set[k]));
	}
}

static int64_t elements(const struct gen_tensor *t)
{
	int64_t n = 1;

	for (int k = 0; k < t->rank; k++) {
		if (t->dims[k] && n > INT64_MAX / t->dims[k])
			return INT64_MAX;
		n *= t->dims[k];
	}
	return n;
}

/* A shape from a list value: ints >= 0; rank over GEN_MAX_RANK is SOLVE_TOO_DEEP. */
static int shape_from(struct run *r, const struct stmt *s, const char *what, const struct val *l, struct gen_tensor *t)
{
	if (l->n > GEN_MAX_RANK)
		return SOLVE_TOO_DEEP;
	t->rank = t->known = l->n;
	for (int k = 0; k < l->n; k++) {
		const struct val *v = &l->u.items[k];

		if (v->kind != VAL_INT)
			return bug(r, s, "the shape of '%s' holds %s", what, expr_kind_name(v->kind));
		if (v->u.i < 0)
			return bug(r, s, "the shape of '%s' has a negative dim (%lld)", what, (long long)v->u.i);
		t->dims[k] = v->u.i;
	}
	return SOLVE_OK;
}

/* Whether pool tensor c fits input s's dims (its rank and dtype fit already); t is the view that
 * the dims clause sees as the input while it is checked. */
static int fits(struct run *r, const struct stmt *s, const struct gen_tensor *c, struct gen_tensor *t, int *status)
{
	*t = *c;
	for (int i = 0; i < c->rank; i++) {
		struct val l;
		int found = 0;

		t->known = i;
		r->slots[s->islot].kind = VAL_INT;
		r->slots[s->islot].u.i = i;
		if ((*status = eval_domain(r, s, s->dims, &l)) != SOLVE_OK)
			return 0;
		for (int k = 0; k < l.n && !found; k++)
			found = l.u.items[k].kind == VAL_INT && l.u.items[k].u.i == c->dims[i];
		if (!found)
			return 0;
	}
	t->known = t->rank;
	return 1;
}

static int try_reuse(struct run *r, const struct stmt *s, unsigned set, struct gen_tensor *t, int *id)
{
	const struct solve_pool *p = r->pool;
	unsigned ranks = 0;
	struct gen_tensor exact;
	int n = 0, *ids, status = SOLVE_OK;

	if (s->shape) {
		struct val l;

		if ((status = eval_list(r, s, s->shape, &l)) != SOLVE_OK)
			return status;
		if ((status = shape_from(r, s, s->name, &l, &exact)) != SOLVE_OK)
			return status == SOLVE_TOO_DEEP ? SOLVE_OK : status;
		ranks = 1u << exact.rank;
	} else if (s->rank) {
		struct val l;

		if ((status = eval_domain(r, s, s->rank, &l)) != SOLVE_OK)
			return status;
		for (int k = 0; k < l.n; k++)
			if (l.u.items[k].kind == VAL_INT && l.u.items[k].u.i >= 0 && l.u.items[k].u.i <= GEN_MAX_RANK)
				ranks |= 1u << l.u.items[k].u.i;
	} else {
		ranks = (1u << (GEN_MAX_RANK + 1)) - 1;
	}
	for (int d = 0; d < DT_COUNT; d++)
		if (set & (1u << d))
			for (int k = 0; k <= GEN_MAX_RANK; k++)
				if (ranks & (1u << k))
					n += p->nby[d][k];
	if (!n)
		return SOLVE_OK;
	ids = scratch(r->sv, n);
	n = 0;
	for (int d = 0; d < DT_COUNT; d++)
		if (set & (1u << d))
			for (int k = 0; k <= GEN_MAX_RANK; k++)
				if ((ranks & (1u << k)) && p->nby[d][k]) {
					memcpy(ids + n, p->by[d][k], (size_t)p->nby[d][k] * sizeof(int));
					n += p->nby[d][k];
				}
	while (n > 0) {
		int j = (int)solve_rng_below(r->sv->rng, (uint64_t)n), c = ids[j], ok;

		if (s->shape)
			ok = !memcmp(p->t[c].dims, exact.dims, (size_t)exact.rank * sizeof(int64_t));
		else if (s->dims)
			ok = fits(r, s, &p->t[c], t, &status);
		else
			ok = 1;
		if (status != SOLVE_OK)
			return status;
		if (ok) {
			*t = p->t[c];
			t->known = t->rank;
			*id = p->id[c];
			return SOLVE_OK;
		}
		/* The scratch array may have been reused by a nested evaluation: none uses it. */
		ids[j] = ids[--n];
	}
	return SOLVE_OK;
}

static double default_range(int dt, int hi)
{
	if (dt == DT_BOOL)
		return hi ? 1 : 0;
	if (expr_dtype_is_float(dt))
		return hi ? 1 : -1;
	if (expr_dtype_is_unsigned(dt))
		return hi ? 10 : 0;
	return hi ? 10 : -10;
}

static struct solve_input *add_input(struct run *r)
{
	struct solve_node *o = r->out;

	if (o->nin == r->in_cap) {
		struct solve_input *in = expr_alloc(r->env.arena, (size_t)(r->in_cap * 2 + 4) * sizeof(*in));

		/* o->in is NULL before the first input (memcpy from NULL is undefined, even of 0 bytes) */
		if (o->nin)
			memcpy(in, o->in, (size_t)o->nin * sizeof(*in));
		o->in = in;
		r->in_cap = r->in_cap * 2 + 4;
	}
	memset(&o->in[o->nin], 0, sizeof(o->in[o->nin]));
	return &o->in[o->nin++];
}

/* The shape of a new input tensor: its shape clause, or its rank and each dim (from their clauses,
 * else drawn; the first input may have a dims bound of its own). */
static int draw_shape(struct run *r, const struct stmt *s, const char *name, struct gen_tensor *t, int first)
{
	int status;

	if (s->shape) {
		struct val l;

		if ((status = eval_list(r, s, s->shape, &l)) != SOLVE_OK ||
		    (status = shape_from(r, s, name, &l, t)) != SOLVE_OK)
			return status;
	} else {
		struct val l, v;
		int64_t hi = first && r->sv->o.first_dims_max ? r->sv->o.first_dims_max : r->sv->o.max_dim;

		if (s->rank) {
			int got;

			if ((status = eval_domain(r, s, s->rank, &l)) != SOLVE_OK)
				return status;
			if ((got = choose(r, s, &l, NULL, 0, &v)) == 0)
				return bug(r, s, "the domain of '%s.rank' is empty", name);
			if (v.kind != VAL_INT || v.u.i < 0)
				return bug(r, s, "the rank of '%s' must be an int from 0, got %s", name,
					expr_kind_name(v.kind));
			if (v.u.i > GEN_MAX_RANK)
				return SOLVE_TOO_DEEP;
			t->rank = (int)v.u.i;
		} else {
			t->rank = (int)solve_rng_below(r->sv->rng, GEN_MAX_RANK + 1);
		}
		for (int i = 0; i < t->rank; i++) {
			t->known = i;
			if (s->dims) {
				r->slots[s->islot].kind = VAL_INT;
				r->slots[s->islot].u.i = i;
				if ((status = eval_domain(r, s, s->dims, &l)) != SOLVE_OK)
					return status;
				if (!choose(r, s, &l, NULL, 0, &v))
					return bug(r, s, "the domain of '%s[%d]' is empty", name, i);
				if (v.kind != VAL_INT || v.u.i < 0)
					return bug(r, s, "dim %d of '%s' must be an int from 0, got %s", i, name,
						   v.kind == VAL_INT ? "a negative one" : expr_kind_name(v.kind));
				t->dims[i] = v.u.i;
			} else {
				t->dims[i] = 1 + (int64_t)solve_rng_below(r->sv->rng, (uint64_t)hi);
			}
		}
		t->known = t->rank;
	}
	return SOLVE_OK;
}

/* What a new input holds: the exact values of its values clause, or the range its values are
 * drawn from (its own, else its dtype's default). */
static int input_values(struct run *r, const struct stmt *s, const char *name, const struct gen_tensor *t,
			struct solve_input *in)
{
	int status;

	if (s->values) {
		struct val l;

		if ((status = eval_list(r, s, s->values, &l)) != SOLVE_OK)
			return status;
		if (l.n != elements(t))
			return bug(r, s, "'%s' has %lld elements but its values are %d", name, (long long)elements(t),
				l.n);
		for (int k = 0; k < l.n; k++)
			if (l.u.items[k].kind != VAL_INT && !(l.u.items[k].kind == VAL_FLOAT
				&& expr_dtype_is_float(t->dtype)))
				return bug(r, s, "value %d of '%s' is %s, not a number of its dtype %s", k, name,
					   expr_kind_name(l.u.items[k].kind), expr_dtype_name(t->dtype));
		in->values = expr_alloc(r->env.arena, sizeof(*in->values));
		*(struct val *)in->values = l;
		return SOLVE_OK;
	}
	in->has_range = 1;
	if (s->lo) {
		struct val lo, hi;

		if ((status = eval(r, s, s->lo, &lo)) != SOLVE_OK || (status = eval(r, s, s->hi, &hi)) != SOLVE_OK)
			return status;
		if ((lo.kind != VAL_INT && lo.kind != VAL_FLOAT) || (hi.kind != VAL_INT && hi.kind != VAL_FLOAT))
			return bug(r, s, "the values range of '%s' takes numbers", name);
		in->range[0] = lo.kind == VAL_INT ? (double)lo.u.i : lo.u.f;
		in->range[1] = hi.kind == VAL_INT ? (double)hi.u.i : hi.u.f;
		if (in->range[0] > in->range[1])
			return bug(r, s, "the values range of '%s' is empty (%g > %g)", name, in->range[0],
				in->range[1]);
	} else {
		in->range[0] = default_range(t->dtype, 0);
		in->range[1] = default_range(t->dtype, 1);
	}
	return SOLVE_OK;
}

/* One input: s is input or inputs (then k is the tensor's index in the group, and t the group's
 * slot for it). */
static int solve_input(struct run *r, const struct stmt *s, struct gen_tensor *t, const char *name)
{
	struct solve_input *in = add_input(r);
	unsigned set = type_set(r, s);
	int status, id = -1, first = !r->seen_input;

	memset(t, 0, sizeof(*t));
	if (s->optional && (solve_rng_next(r->sv->rng) >> 63)) {
		in->kind = IN_ABSENT;
		return SOLVE_OK;
	}
	if (s->cond) {
		struct val c;
		int truth;

		if ((status = eval(r, s, s->cond, &c)) != SOLVE_OK)
			return status;
		if ((truth = expr_truth(&c, &r->env, s->cond)) < 0)
			return eval_bug(r, s);
		if (!truth) {
			in->kind = IN_ABSENT;
			return SOLVE_OK;
		}
	}
	if (!s->is_const && !s->lo && r->pool && solve_rng_double(r->sv->rng) < r->sv->o.pick_rate) {
		if ((status = try_reuse(r, s, set, t, &id)) != SOLVE_OK)
			return status;
		if (id >= 0) {
			in->kind = IN_REUSE;
			in->id = id;
			in->t = *t;
			bind_tyvar(r, s->tyvar, t->dtype);
			describe_first(r, name, t);
			return SOLVE_OK;
		}
	}
	/* A new tensor. */
	t->dtype = draw_dtype(r, set);
	bind_tyvar(r, s->tyvar, t->dtype);
	if ((status = draw_shape(r, s, name, t, first)) != SOLVE_OK)
		return status;
	if (elements(t) > r->sv->o.max_elements)
		return SOLVE_TOO_LARGE;
	in->kind = s->is_const ? IN_CONST : IN_GRAPH;
	in->t = *t;
	describe_first(r, name, t);
	return input_values(r, s, name, t, in);
}

static int stmt_input(struct run *r, const struct stmt *s)
{
	struct gen_tensor *t;
	int status;

	if (s->kind == S_INPUT) {
		t = expr_alloc(r->env.arena, sizeof(*t));
		r->slots[s->slot].kind = VAL_TENSOR;
		r->slots[s->slot].u.t = t;
		if ((status = solve_input(r, s, t, s->name)) != SOLVE_OK)
			return status;
		if (r->out->in[r->out->nin - 1].kind == IN_ABSENT)
			r->slots[s->slot].kind = VAL_NONE;
		return SOLVE_OK;
	} else {
		struct gen_group *g = expr_alloc(r->env.arena, sizeof(*g));
		struct val l, v;
		char name[64];

		if ((status = eval_domain(r, s, s->count, &l)) != SOLVE_OK)
			return status;
		if (!choose(r, s, &l, NULL, 0, &v))
			return bug(r, s, "the domain of '%s.count' is empty", s->name);
		if (v.kind != VAL_INT || v.u.i < 0 || v.u.i > 64)
			return bug(r, s, "the count of '%s' must be an int from 0 to 64", s->name);
		g->n = (int)v.u.i;
		g->t = expr_alloc(r->env.arena, (size_t)(g->n ? g->n : 1) * sizeof(*g->t));
		memset(g->t, 0, (size_t)(g->n ? g->n : 1) * sizeof(*g->t));
		r->slots[s->slot].kind = VAL_GROUP;
		r->slots[s->slot].u.g = g;
		for (int k = 0; k < g->n; k++) {
			t = expr_alloc(r->env.arena, sizeof(*t));
			g->t[k] = t;
			r->slots[s->kslot].kind = VAL_INT;
			r->slots[s->kslot].u.i = k;
			snprintf(name, sizeof(name), "%s[%d]", s->name, k);
			if ((status = solve_input(r, s, t, name)) != SOLVE_OK)
				return status;
			if (r->out->in[r->out->nin - 1].kind == IN_ABSENT)
				g->t[k] = NULL;
		}
		return SOLVE_OK;
	}
}

static int add_output(struct run *r, const struct stmt *s, const char *name, struct gen_tensor **out)
{
	struct solve_node *o = r->out;
	struct val l;
	int status;

	if (o->nout == r->out_cap) {
		struct gen_tensor *t = expr_alloc(r->env.arena, (size_t)(r->out_cap * 2 + 4) * sizeof(*t));

		if (o->nout)
			memcpy(t, o->out, (size_t)o->nout * sizeof(*t));
		o->out = t;
		r->out_cap = r->out_cap * 2 + 4;
	}
	*out = &o->out[o->nout];
	memset(*out, 0, sizeof(**out));
	if ((status = eval_list(r, s, s->shape, &l)) != SOLVE_OK ||
	    (status = shape_from(r, s, name, &l, *out)) != SOLVE_OK)
		return status;
	if (s->tyvar >= 0) {
		if (r->slots[s->tyvar].kind != VAL_DTYPE)
			bind_tyvar(r, s->tyvar, draw_dtype(r, type_set(r, s)));
		(*out)->dtype = (int)r->slots[s->tyvar].u.i;
	} else {
		(*out)->dtype = s->dtype;
	}
	if (elements(*out) > r->sv->o.max_elements)
		return SOLVE_TOO_LARGE;
	o->nout++;
	return SOLVE_OK;
}

static int stmt_output(struct run *r, const struct stmt *s)
{
	struct gen_tensor *t;
	int status;

	if (s->kind == S_OUTPUT) {
		/* The output's place may move as the array grows: the slot gets its own copy. */
		struct gen_tensor *copy = expr_alloc(r->env.arena, sizeof(*copy));

		if ((status = add_output(r, s, s->name, &t)) != SOLVE_OK)
			return status;
		*copy = *t;
		r->slots[s->slot].kind = VAL_TENSOR;
		r->slots[s->slot].u.t = copy;
		return SOLVE_OK;
	} else {
		struct gen_group *g = expr_alloc(r->env.arena, sizeof(*g));
		int64_t n;
		char name[64];

		if ((status = eval_int(r, s, s->count, &n)) != SOLVE_OK)
			return status;
		if (n < 0 || n > 64)
			return bug(r, s, "the count of '%s' must be from 0 to 64, got %lld", s->name, (long long)n);
		g->n = (int)n;
		g->t = expr_alloc(r->env.arena, (size_t)(n ? n : 1) * sizeof(*g->t));
		memset(g->t, 0, (size_t)(n ? n : 1) * sizeof(*g->t));
		r->slots[s->slot].kind = VAL_GROUP;
		r->slots[s->slot].u.g = g;
		for (int k = 0; k < g->n; k++) {
			r->slots[s->kslot].kind = VAL_INT;
			r->slots[s->kslot].u.i = k;
			snprintf(name, sizeof(name), "%s[%d]", s->name, k);
			if ((status = add_output(r, s, name, &t)) != SOLVE_OK)
				return status;
			g->t[k] = expr_alloc(r->env.arena, sizeof(*t));
			*g->t[k] = *t;
		}
		return SOLVE_OK;
	}
}

static int stmt_ints(struct run *r, const struct stmt *s)
{
	struct val *l = &r->slots[s->slot], dom, v;
	int64_t n;
	int status, got;

	if ((status = eval_int(r, s, s->len, &n)) != SOLVE_OK)
		return status;
	if (n < 0 || n > 1024)
		return bug(r, s, "the len of '%s' must be from 0 to 1024, got %lld", s->name, (long long)n);
	l->kind = VAL_LIST;
	l->n = 0;
	l->u.items = expr_alloc(r->env.arena, (size_t)(n ? n : 1) * sizeof(struct val));
	for (int i = 0; i < n; i++) {
		r->slots[s->islot].kind = VAL_INT;
		r->slots[s->islot].u.i = i;
		if ((status = eval_domain(r, s, s->e, &dom)) != SOLVE_OK)
			return status;
		/* While the where is evaluated, NAME[i] is the candidate: the list has i + 1 items. */
		if (s->cond) {
			struct val *items = (struct val *)l->u.items, *cand = expr_alloc(r->env.arena,
				(size_t)(dom.n ? dom.n : 1) * sizeof(*cand));
			int m = dom.n;

			memcpy(cand, dom.u.items, (size_t)m * sizeof(*cand));
			got = 0;
			l->n = i + 1;
			while (m > 0 && !got) {
				int j = (int)solve_rng_below(r->sv->rng, (uint64_t)m), t;
				struct val c;

				items[i] = cand[j];
				if (expr_eval(s->cond, &r->env, &c) < 0 || (t = expr_truth(&c, &r->env, s->cond)) < 0)
					return eval_bug(r, s);
				if (t) {
					v = cand[j];
					got = 1;
				} else {
					cand[j] = cand[--m];
				}
			}
			l->n = i;
		} else {
			got = choose(r, s, &dom, NULL, 0, &v);
		}
		if (!got)
			return bug(r, s, "the domain of '%s[%d]' is empty", s->name, i);
		l->u.items[i] = v;
		l->n = i + 1;
	}
	return SOLVE_OK;
}

static double round3(double x)
{
	char tmp[32];

	snprintf(tmp, sizeof(tmp), "%.3g", x);
	return strtod(tmp, NULL);
}

static int stmt_attr(struct run *r, const struct stmt *s)
{
	struct solve_node *o = r->out;
	struct val v, c;
	int status, t;

	if (s->cond) {
		if ((status = eval(r, s, s->cond, &c)) != SOLVE_OK)
			return status;
		if ((t = expr_truth(&c, &r->env, s->cond)) < 0)
			return eval_bug(r, s);
		if (!t)
			return SOLVE_OK;
	}
	if ((status = eval(r, s, s->e, &v)) != SOLVE_OK)
		return status;
	if (v.kind == VAL_TENSOR)
		return bug(r, s, "attribute '%s' is a tensor: an attribute is an int, float, string, dtype or a list",
			   s->name);
	if (v.kind == VAL_LIST) {
		int kinds = 0;

		for (int k = 0; k < v.n; k++)
			kinds |= 1 << v.u.items[k].kind;
		if (kinds & ~((1 << VAL_INT) | (1 << VAL_FLOAT) | (1 << VAL_STR)) ||
		    ((kinds & (1 << VAL_STR)) && kinds != (1 << VAL_STR)))
			return bug(r, s, "attribute '%s' is a list that mixes kinds or holds tensors or lists",
				s->name);
	} else if (v.kind == VAL_GROUP) {
		return bug(r, s, "attribute '%s' is a group of tensors", s->name);
	}
	if (o->nattrs == r->attr_cap) {
		struct solve_attr *a = expr_alloc(r->env.arena, (size_t)(r->attr_cap * 2 + 8) * sizeof(*a));

		if (o->nattrs)
			memcpy(a, o->attrs, (size_t)o->nattrs * sizeof(*a));
		o->attrs = a;
		r->attr_cap = r->attr_cap * 2 + 8;
	}
	for (int k = 0; k < o->nattrs; k++)
		if (o->attrs[k].name == s->name)
			return bug(r, s, "attribute '%s' is emitted twice", s->name);
	/* Sorted by name as it goes: blocks emit a handful. */
	{
		int k = o->nattrs;

		while (k > 0 && strcmp(o->attrs[k - 1].name, s->name) > 0) {
			o->attrs[k] = o->attrs[k - 1];
			k--;
		}
		o->attrs[k].name = s->name;
		o->attrs[k].v = v;
		o->nattrs++;
	}
	return SOLVE_OK;
}

static int run_stmt(struct run *r, const struct stmt *s)
{
	struct val l, v;
	int status, got;

	if (s->tyrefs)
		bind_mentioned(r, s, s->kind == S_INPUT || s->kind == S_INPUTS ? s->tyvar : -1);
	switch (s->kind) {
	case S_TYPE:
		return SOLVE_OK;
	case S_INPUT: case S_INPUTS:
		return stmt_input(r, s);
	case S_LET:
		return eval(r, s, s->e, &r->slots[s->slot]);
	case S_INT: case S_STR:
		if ((status = eval_domain(r, s, s->e, &l)) != SOLVE_OK)
			return status;
		if ((got = choose(r, s, &l, s->cond, s->slot, &v)) < 0)
			return SOLVE_SPEC_BUG;
		if (!got)
			return bug(r, s, "the domain of '%s' is empty", s->name);
		if (v.kind != (s->kind == S_INT ? VAL_INT : VAL_STR))
			return bug(r, s, "'%s' chose %s from its list", s->name, expr_kind_name(v.kind));
		r->slots[s->slot] = v;
		return SOLVE_OK;
	case S_INTS:
		return stmt_ints(r, s);
	case S_FLOAT:
		if (s->lo) {
			struct val lo, hi;
			double a, b;

			if ((status = eval(r, s, s->lo, &lo)) != SOLVE_OK || (status = eval(r, s, s->hi,
				&hi)) != SOLVE_OK)
				return status;
			if ((lo.kind != VAL_INT && lo.kind != VAL_FLOAT) || (hi.kind != VAL_INT
				&& hi.kind != VAL_FLOAT))
				return bug(r, s, "uniform() of '%s' takes numbers", s->name);
			a = lo.kind == VAL_INT ? (double)lo.u.i : lo.u.f;
			b = hi.kind == VAL_INT ? (double)hi.u.i : hi.u.f;
			if (a > b)
				return bug(r, s, "the domain of '%s' is empty (uniform(%g, %g))", s->name, a, b);
			/* Three significant digits: attributes are float32 in the model, and short values
			 * read the same in the record, the model and a reproducer. */
			v.kind = VAL_FLOAT;
			v.u.f = round3(a + (b - a) * solve_rng_double(r->sv->rng));
			if (v.u.f < a || v.u.f > b)
				v.u.f = a;
		} else {
			if ((status = eval_domain(r, s, s->e, &l)) != SOLVE_OK)
				return status;
			if (!choose(r, s, &l, NULL, 0, &v))
				return bug(r, s, "the domain of '%s' is empty", s->name);
			if (v.kind == VAL_INT) {
				v.kind = VAL_FLOAT;
				v.u.f = (double)v.u.i;
			}
			if (v.kind != VAL_FLOAT)
				return bug(r, s, "'%s' chose %s from its list", s->name, expr_kind_name(v.kind));
		}
		r->slots[s->slot] = v;
		return SOLVE_OK;
	case S_ATTR:
		return stmt_attr(r, s);
	case S_OUTPUT: case S_OUTPUTS:
		return stmt_output(r, s);
	}
	return SOLVE_OK;
}

void solve_init(struct solver *sv, const struct solve_opts *o, struct solve_rng *rng)
{
	memset(sv, 0, sizeof(*sv));
	sv->o = *o;
	sv->rng = rng;
}

void solve_release(struct solver *sv)
{
	expr_arena_release(&sv->arena);
	free(sv->scratch);
	memset(sv, 0, sizeof(*sv));
}

enum solve_status solve_node(struct solver *sv, const struct block *b, const char *op, const struct solve_pool *pool,
			     struct solve_node *out)
{
	struct run r;
	int status = SOLVE_OK;

	expr_arena_reset(&sv->arena);
	memset(out, 0, sizeof(*out));
	memset(&r, 0, sizeof(r));
	out->b = b;
	out->op = op;
	r.sv = sv;
	r.b = b;
	r.pool = pool;
	r.out = out;
	r.slots = expr_alloc(&sv->arena, (size_t)(b->nslots ? b->nslots : 1) * sizeof(*r.slots));
	memset(r.slots, 0, (size_t)(b->nslots ? b->nslots : 1) * sizeof(*r.slots));
	r.env.slots = r.slots;
	r.env.arena = &sv->arena;
	r.env.fail = &sv->fail;
	for (int k = 0; k < b->nstmts && status == SOLVE_OK; k++)
		status = run_stmt(&r, &b->stmts[k]);
	if (status != SOLVE_OK)
		return (enum solve_status)status;
	if (!out->nout)
		return (enum solve_status)bug(&r, &b->stmts[b->nstmts - 1], "the node has no output");
	/* Trailing absent inputs are dropped; the others stay as "". */
	while (out->nin > 0 && out->in[out->nin - 1].kind == IN_ABSENT)
		out->nin--;
	return SOLVE_OK;
}

int solve_check(const struct spec_set *s, const struct solve_opts *o, int samples, struct err *e)
{
	struct solve_rng rng;
	struct solver sv;
	struct solve_node node;
	struct solve_opts so = *o;
	int rc = 0;

	solve_rng_seed(&rng, 0x5eed);
	solve_init(&sv, &so, &rng);
	for (size_t k = 0; k < s->nblocks && rc == 0; k++) {
		const struct block *b = s->blocks[k];

		for (int n = 0; n < samples; n++) {
			/* A third of the first inputs have dims up to three times the usual bound, as the
			 * tensors that earlier operators made and that this one may reuse can have. */
			sv.o.first_dims_max = n % 3 == 2 ? 3 * o->max_dim : o->max_dim;
			if (solve_node(&sv, b, b->ops[0], NULL, &node) != SOLVE_SPEC_BUG)
				continue;
			rc = err_set(e, EXIT_INPUT,
				"%s:%d:%d: %s (first input %s): a spec must keep every domain non-empty "
				     "given what came before, since generation never backtracks", b->file,
					node.bug_line,
				     node.bug_col, node.bug, node.first[0] ? node.first : "none");
			break;
		}
	}
	solve_release(&sv);
	return rc;
}
