/* expr.c: evaluation of spec expressions (expr.h), with Python's integer semantics: / is floor
 * division and % floor modulo on integers, a[i] counts from the end for negative i, slices clamp. */
#include "expr.h"

#include <limits.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "xalloc.h"

static const char *const dtype_names[DT_COUNT] = {
	"float16", "float32", "float64", "bfloat16", "int8", "int16", "int32", "int64",
	"uint8", "uint16", "uint32", "uint64", "bool",
};

/* onnx.TensorProto.DataType. */
static const int dtype_onnx[DT_COUNT] = { 10, 1, 11, 16, 3, 5, 6, 7, 2, 4, 12, 13, 9 };

const char *expr_dtype_name(int dt)
{
	return dt >= 0 && dt < DT_COUNT ? dtype_names[dt] : "?";
}

int expr_dtype_onnx(int dt)
{
	return dt >= 0 && dt < DT_COUNT ? dtype_onnx[dt] : 0;
}

int expr_dtype_parse(const char *name)
{
	for (int i = 0; i < DT_COUNT; i++)
		if (!strcmp(name, dtype_names[i]))
			return i;
	return -1;
}

int expr_dtype_is_float(int dt)
{
	return dt == DT_FLOAT16 || dt == DT_FLOAT32 || dt == DT_FLOAT64 || dt == DT_BFLOAT16;
}

int expr_dtype_is_unsigned(int dt)
{
	return dt == DT_UINT8 || dt == DT_UINT16 || dt == DT_UINT32 || dt == DT_UINT64;
}

/* --- the arena ----------------------------------------------------------------------------------- */

struct arena_block {
	struct arena_block *next;
	size_t used, cap;
	_Alignas(16) char data[];
};

#define ARENA_BLOCK (64 * 1024)

void *expr_alloc(struct arena *a, size_t n)
{
	struct arena_block *b = a->head, **pp;
	void *p;

	n = (n + 15) & ~(size_t)15;
	if (!b || b->cap - b->used < n) {
		/* A spare block big enough, else a new one. */
		for (pp = &a->spare; *pp && (*pp)->cap < n; pp = &(*pp)->next)
			;
		if (*pp) {
			b = *pp;
			*pp = b->next;
		} else {
			size_t cap = n > ARENA_BLOCK ? n : ARENA_BLOCK;

			b = xmalloc(sizeof(*b) + cap);
			b->cap = cap;
		}
		b->used = 0;
		b->next = a->head;
		a->head = b;
	}
	p = b->data + b->used;
	b->used += n;
	return p;
}

void expr_arena_reset(struct arena *a)
{
	while (a->head) {
		struct arena_block *b = a->head;

		a->head = b->next;
		b->next = a->spare;
		a->spare = b;
	}
}

void expr_arena_release(struct arena *a)
{
	expr_arena_reset(a);
	while (a->spare) {
		struct arena_block *b = a->spare;

		a->spare = b->next;
		free(b);
	}
}

/* --- helpers ------------------------------------------------------------------------------------- */

int expr_failf(struct expr_env *env, const struct expr *x, const char *fmt, ...)
{
	va_list ap;

	if (env->fail) {
		env->fail->line = x ? x->line : 0;
		env->fail->col = x ? x->col : 0;
		va_start(ap, fmt);
		vsnprintf(env->fail->msg, sizeof(env->fail->msg), fmt, ap);
		va_end(ap);
	}
	return -1;
}

const char *expr_kind_name(int kind)
{
	switch (kind) {
	case VAL_INT: return "an int";
	case VAL_FLOAT: return "a float";
	case VAL_STR: return "a string";
	case VAL_LIST: return "a list";
	case VAL_TENSOR: return "a tensor";
	case VAL_GROUP: return "a group of tensors";
	case VAL_DTYPE: return "a dtype";
	default: return "nothing";
	}
}

static void describe(const struct val *v, char *out, size_t size, size_t *len)
{
	int n;

#define PUT(...) do { \
		n = snprintf(out + *len, *len < size ? size - *len : 0, __VA_ARGS__); \
		if (n > 0) \
			*len += (size_t)n; \
	} while (0)
	switch (v->kind) {
	case VAL_INT: PUT("%lld", (long long)v->u.i); break;
	case VAL_FLOAT: PUT("%g", v->u.f); break;
	case VAL_STR: PUT("\"%s\"", v->u.s); break;
	case VAL_DTYPE: PUT("%s", expr_dtype_name((int)v->u.i)); break;
	case VAL_LIST:
		PUT("[");
		for (int i = 0; i < v->n && *len < size; i++) {
			if (i)
				PUT(", ");
			describe(&v->u.items[i], out, size, len);
		}
		PUT("]");
		break;
	case VAL_TENSOR:
		PUT("%s[", expr_dtype_name(v->u.t->dtype));
		for (int i = 0; i < v->u.t->known; i++)
			PUT(i ? ",%lld" : "%lld", (long long)v->u.t->dims[i]);
		PUT("]");
		break;
	case VAL_GROUP: PUT("%d tensors", v->u.g->n); break;
	default: PUT("nothing"); break;
	}
#undef PUT
}

void expr_describe(const struct val *v, char *out, size_t size)
{
	size_t len = 0;

	if (!size)
		return;
	out[0] = '\0';
	describe(v, out, size, &len);
	if (len >= size && size > 4)
		memcpy(out + size - 4, "...", 4);
}

int expr_truth(const struct val *v, struct expr_env *env, const struct expr *at)
{
	switch (v->kind) {
	case VAL_INT: return v->u.i != 0;
	case VAL_FLOAT: return v->u.f != 0;
	case VAL_STR: return v->u.s[0] != '\0';
	case VAL_LIST: return v->n > 0;
	default: return expr_failf(env, at, "%s has no truth value", expr_kind_name(v->kind));
	}
}

static double num(const struct val *v)
{
	return v->kind == VAL_INT ? (double)v->u.i : v->u.f;
}

static int is_num(const struct val *v)
{
	return v->kind == VAL_INT || v->kind == VAL_FLOAT;
}

static int equal(const struct val *a, const struct val *b, int depth, long *budget)
{
	if (--*budget < 0 || depth > EXPR_EQUAL_MAX_DEPTH)
		return -1;
	if (a->kind == VAL_INT && b->kind == VAL_INT)
		return a->u.i == b->u.i;
	if (is_num(a) && is_num(b))
		return num(a) == num(b);
	if (a->kind != b->kind)
		return 0;
	switch (a->kind) {
	case VAL_STR: return a->u.s == b->u.s || !strcmp(a->u.s, b->u.s);
	case VAL_DTYPE: return a->u.i == b->u.i;
	case VAL_LIST:
		if (a->n != b->n)
			return 0;
		for (int i = 0; i < a->n; i++) {
			int r = equal(&a->u.items[i], &b->u.items[i], depth + 1, budget);

			if (r <= 0)
				return r;
		}
		return 1;
	case VAL_TENSOR: return a->u.t == b->u.t;
	default: return 0;
	}
}

int expr_equal(const struct val *a, const struct val *b, long *budget)
{
	long own = EXPR_EQUAL_MAX_ITEMS;

	return equal(a, b, 1, budget ? budget : &own);
}

/* expr_equal's -1, said at x. */
static int equal_fail(struct expr_env *env, const struct expr *x)
{
	return expr_failf(env, x, "lists nested more than %d deep or of more than %d values in all cannot be "
			  "compared", EXPR_EQUAL_MAX_DEPTH, EXPR_EQUAL_MAX_ITEMS);
}

static struct val *new_items(struct expr_env *env, size_t n)
{
	return expr_alloc(env->arena, (n ? n : 1) * sizeof(struct val));
}

static int tensor_shape(const struct gen_tensor *t, struct expr_env *env, const struct expr *at, struct val *out)
{
	if (t->known < t->rank)
		return expr_failf(env, at, "the shape is used before all its dims are chosen");
	out->kind = VAL_LIST;
	out->n = t->rank;
	out->u.items = new_items(env, (size_t)t->rank);
	for (int i = 0; i < t->rank; i++) {
		out->u.items[i].kind = VAL_INT;
		out->u.items[i].u.i = t->dims[i];
	}
	return 0;
}

int expr_as_list(const struct val *v, struct expr_env *env, const struct expr *at, struct val *out)
{
	if (v->kind == VAL_LIST) {
		*out = *v;
		return 0;
	}
	if (v->kind == VAL_TENSOR)
		return tensor_shape(v->u.t, env, at, out);
	return expr_failf(env, at, "expected a list, got %s", expr_kind_name(v->kind));
}

int expr_as_int(const struct val *v, struct expr_env *env, const struct expr *at, int64_t *out)
{
	if (v->kind == VAL_INT) {
		*out = v->u.i;
		return 0;
	}
	if (v->kind == VAL_FLOAT && v->u.f == floor(v->u.f) && fabs(v->u.f) < 9e15) {
		*out = (int64_t)v->u.f;
		return 0;
	}
	return expr_failf(env, at, "expected an int, got %s", expr_kind_name(v->kind));
}

static int eval_int(const struct expr *x, struct expr_env *env, int64_t *out)
{
	struct val v;

	if (expr_eval(x, env, &v) < 0)
		return -1;
	return expr_as_int(&v, env, x, out);
}

static int eval_list(const struct expr *x, struct expr_env *env, struct val *out)
{
	struct val v;

	if (expr_eval(x, env, &v) < 0)
		return -1;
	return expr_as_list(&v, env, x, out);
}

/* Python's index: negative counts from the end; -1 when out of [0, n). */
static int norm_index(int64_t i, int64_t n)
{
	if (i < 0)
		i += n;
	return i < 0 || i >= n ? -1 : (int)i;
}

static int64_t floor_div(int64_t a, int64_t b)
{
	int64_t q = a / b;

	if ((a % b != 0) && ((a < 0) != (b < 0)))
		q--;
	return q;
}

static int64_t floor_mod(int64_t a, int64_t b)
{
	int64_t m = a % b;

	if (m != 0 && ((m < 0) != (b < 0)))
		m += b;
	return m;
}

#define MAX_LIST 1000000

static int make_range(int64_t lo, int64_t hi, struct expr_env *env, const struct expr *at, struct val *out)
{
	int64_t n = hi >= lo ? hi - lo + 1 : 0;

	if (n > MAX_LIST)
		return expr_failf(env, at, "a range of %lld values (%lld..%lld)", (long long)n, (long long)lo,
				  (long long)hi);
	out->kind = VAL_LIST;
	out->n = (int)n;
	out->u.items = new_items(env, (size_t)n);
	for (int64_t i = 0; i < n; i++) {
		out->u.items[i].kind = VAL_INT;
		out->u.items[i].u.i = lo + i;
	}
	return 0;
}

static int eval_bin(const struct expr *x, struct expr_env *env, struct val *out)
{
	struct val a, b;
	int64_t r;

	if (expr_eval(x->a[0], env, &a) < 0 || expr_eval(x->a[1], env, &b) < 0)
		return -1;
	if (x->op >= OP_EQ) {
		out->kind = VAL_INT;
		if (x->op == OP_EQ || x->op == OP_NE) {
			int eq = expr_equal(&a, &b, NULL);

			if (eq < 0)
				return equal_fail(env, x);
			out->u.i = eq == (x->op == OP_EQ);
			return 0;
		}
		if (a.kind == VAL_INT && b.kind == VAL_INT) {
			int64_t p = a.u.i, q = b.u.i;

			out->u.i = x->op == OP_LT ? p < q : x->op == OP_LE ? p <= q : x->op == OP_GT ? p > q : p >= q;
			return 0;
		}
		if (is_num(&a) && is_num(&b)) {
			double p = num(&a), q = num(&b);

			out->u.i = x->op == OP_LT ? p < q : x->op == OP_LE ? p <= q : x->op == OP_GT ? p > q : p >= q;
			return 0;
		}
		return expr_failf(env, x, "cannot order %s and %s", expr_kind_name(a.kind), expr_kind_name(b.kind));
	}
	if (a.kind == VAL_INT && b.kind == VAL_INT) {
		out->kind = VAL_INT;
		switch (x->op) {
		case OP_ADD:
			if (__builtin_add_overflow(a.u.i, b.u.i, &r))
				return expr_failf(env, x, "integer overflow");
			break;
		case OP_SUB:
			if (__builtin_sub_overflow(a.u.i, b.u.i, &r))
				return expr_failf(env, x, "integer overflow");
			break;
		case OP_MUL:
			if (__builtin_mul_overflow(a.u.i, b.u.i, &r))
				return expr_failf(env, x, "integer overflow");
			break;
		case OP_DIV: case OP_MOD:
			if (b.u.i == 0)
				return expr_failf(env, x, "division by zero");
			if (a.u.i == INT64_MIN && b.u.i == -1)
				return expr_failf(env, x, "integer overflow");
			r = x->op == OP_DIV ? floor_div(a.u.i, b.u.i) : floor_mod(a.u.i, b.u.i);
			break;
		default:
			r = 0;
		}
		out->u.i = r;
		return 0;
	}
	if (is_num(&a) && is_num(&b)) {
		double p = num(&a), q = num(&b), f;

		if ((x->op == OP_DIV || x->op == OP_MOD) && q == 0)
			return expr_failf(env, x, "division by zero");
		switch (x->op) {
		case OP_ADD: f = p + q; break;
		case OP_SUB: f = p - q; break;
		case OP_MUL: f = p * q; break;
		case OP_DIV: f = p / q; break;
		default:
			f = fmod(p, q);
			if (f != 0 && ((f < 0) != (q < 0)))
				f += q;
		}
		out->kind = VAL_FLOAT;
		out->u.f = f;
		return 0;
	}
	if (x->op == OP_ADD && a.kind == VAL_LIST && b.kind == VAL_LIST) {
		/* checked as the other ways to make a list are: a chain of lets doubling a list would
		 * otherwise grow it without bound */
		if ((int64_t)a.n + b.n > MAX_LIST)
			return expr_failf(env, x, "a list of %lld values", (long long)a.n + b.n);
		out->kind = VAL_LIST;
		out->n = a.n + b.n;
		out->u.items = new_items(env, (size_t)out->n);
		memcpy(out->u.items, a.u.items, (size_t)a.n * sizeof(struct val));
		memcpy(out->u.items + a.n, b.u.items, (size_t)b.n * sizeof(struct val));
		return 0;
	}
	if (x->op == OP_MUL && ((a.kind == VAL_LIST && b.kind == VAL_INT) || (a.kind == VAL_INT
		&& b.kind == VAL_LIST))) {
		const struct val *l = a.kind == VAL_LIST ? &a : &b;
		int64_t times = a.kind == VAL_INT ? a.u.i : b.u.i;

		if (times < 0)
			times = 0;
		if ((int64_t)l->n * times > MAX_LIST)
			return expr_failf(env, x, "a list of %lld values", (long long)l->n * (long long)times);
		out->kind = VAL_LIST;
		out->n = (int)(l->n * times);
		out->u.items = new_items(env, (size_t)out->n);
		for (int64_t t = 0; t < times; t++)
			memcpy(out->u.items + t * l->n, l->u.items, (size_t)l->n * sizeof(struct val));
		return 0;
	}
	return expr_failf(env, x, "cannot apply '%s' to %s and %s",
			  (const char *[]){ "+", "-", "*", "/", "%" }[x->op], expr_kind_name(a.kind),
				expr_kind_name(b.kind));
}

static int eval_index(const struct expr *x, struct expr_env *env, struct val *out)
{
	struct val base;
	int64_t i;
	int k;

	if (expr_eval(x->a[0], env, &base) < 0 || eval_int(x->a[1], env, &i) < 0)
		return -1;
	switch (base.kind) {
	case VAL_TENSOR:
		if ((k = norm_index(i, base.u.t->rank)) < 0)
			return expr_failf(env, x, "dim %lld of a tensor of rank %d", (long long)i, base.u.t->rank);
		if (k >= base.u.t->known)
			return expr_failf(env, x, "dim %d is used before it is chosen", k);
		out->kind = VAL_INT;
		out->u.i = base.u.t->dims[k];
		return 0;
	case VAL_GROUP:
		if ((k = norm_index(i, base.u.g->n)) < 0)
			return expr_failf(env, x, "tensor %lld of a group of %d", (long long)i, base.u.g->n);
		if (!base.u.g->t[k])
			return expr_failf(env, x, "tensor %d of the group is absent or not chosen yet", k);
		out->kind = VAL_TENSOR;
		out->u.t = base.u.g->t[k];
		return 0;
	case VAL_LIST:
		if ((k = norm_index(i, base.n)) < 0)
			return expr_failf(env, x, "index %lld of a list of %d", (long long)i, base.n);
		*out = base.u.items[k];
		return 0;
	default:
		return expr_failf(env, x, "cannot index %s", expr_kind_name(base.kind));
	}
}

static int eval_slice(const struct expr *x, struct expr_env *env, struct val *out)
{
	struct val l;
	int64_t lo = 0, hi, n;

	if (eval_list(x->a[0], env, &l) < 0)
		return -1;
	n = l.n;
	hi = n;
	if (x->a[1] && eval_int(x->a[1], env, &lo) < 0)
		return -1;
	if (x->a[2] && eval_int(x->a[2], env, &hi) < 0)
		return -1;
	if (lo < 0)
		lo = lo + n < 0 ? 0 : lo + n;
	if (hi < 0)
		hi = hi + n < 0 ? 0 : hi + n;
	if (lo > n)
		lo = n;
	if (hi > n)
		hi = n;
	out->kind = VAL_LIST;
	out->n = hi > lo ? (int)(hi - lo) : 0;
	out->u.items = l.u.items + (out->n ? lo : 0);
	return 0;
}

static int eval_list_literal(const struct expr *x, struct expr_env *env, struct val *out)
{
	struct val *parts = new_items(env, (size_t)x->n);
	int total = 0, at = 0;

	for (int i = 0; i < x->n; i++) {
		const struct expr *e = x->a[i];

		if (e->kind == X_SPLICE) {
			if (eval_list(e->a[0], env, &parts[i]) < 0)
				return -1;
			total += parts[i].n;
		} else {
			if (expr_eval(e, env, &parts[i]) < 0)
				return -1;
			total++;
		}
		if (total > MAX_LIST)
			return expr_failf(env, x, "a list of more than %d values", MAX_LIST);
	}
	out->kind = VAL_LIST;
	out->n = total;
	out->u.items = new_items(env, (size_t)total);
	for (int i = 0; i < x->n; i++) {
		if (x->a[i]->kind == X_SPLICE) {
			memcpy(out->u.items + at, parts[i].u.items, (size_t)parts[i].n * sizeof(struct val));
			at += parts[i].n;
		} else {
			out->u.items[at++] = parts[i];
		}
	}
	return 0;
}

static int eval_comp(const struct expr *x, struct expr_env *env, struct val *out)
{
	struct val src, saved = env->slots[x->slot];
	int m = 0, r = 0;

	if (eval_list(x->a[1], env, &src) < 0)
		return -1;
	out->kind = VAL_LIST;
	out->u.items = new_items(env, (size_t)src.n);
	for (int i = 0; i < src.n && r == 0; i++) {
		env->slots[x->slot] = src.u.items[i];
		if (x->a[2]) {
			struct val c;
			int t;

			if (expr_eval(x->a[2], env, &c) < 0 || (t = expr_truth(&c, env, x->a[2])) < 0) {
				r = -1;
				break;
			}
			if (!t)
				continue;
		}
		r = expr_eval(x->a[0], env, &out->u.items[m]);
		m++;
	}
	out->n = m;
	env->slots[x->slot] = saved;
	return r;
}

static int eval_in(const struct expr *x, struct expr_env *env, struct val *out)
{
	struct val v, l;
	long budget = EXPR_EQUAL_MAX_ITEMS;
	int found = 0;

	if (expr_eval(x->a[0], env, &v) < 0 || eval_list(x->a[1], env, &l) < 0)
		return -1;
	/* one budget for the whole search: a long list of big lists is as costly as one deep list */
	for (int i = 0; i < l.n && !found; i++)
		if ((found = expr_equal(&v, &l.u.items[i], &budget)) < 0)
			return equal_fail(env, x);
	out->kind = VAL_INT;
	out->u.i = x->kind == X_IN ? found : !found;
	return 0;
}

/* min and max: of one list, or of two or more values. */
static int eval_minmax(const struct expr *x, struct expr_env *env, struct val *args, struct val *out)
{
	struct val l;
	int best = 0;

	if (x->n == 1) {
		if (expr_as_list(&args[0], env, x, &l) < 0)
			return -1;
	} else {
		l.kind = VAL_LIST;
		l.n = x->n;
		l.u.items = args;
	}
	if (!l.n)
		return expr_failf(env, x, "%s of an empty list", x->op == FN_MIN ? "min" : "max");
	for (int i = 0; i < l.n; i++) {
		if (!is_num(&l.u.items[i]))
			return expr_failf(env, x, "%s of %s", x->op == FN_MIN ? "min" : "max",
					  expr_kind_name(l.u.items[i].kind));
		if (i && (x->op == FN_MIN ? num(&l.u.items[i]) < num(&l.u.items[best])
			  : num(&l.u.items[i]) > num(&l.u.items[best])))
			best = i;
	}
	*out = l.u.items[best];
	return 0;
}

static int eval_call(const struct expr *x, struct expr_env *env, struct val *out)
{
	struct val args[8], l;
	int64_t a, b;

	for (int i = 0; i < x->n; i++)
		if (expr_eval(x->a[i], env, &args[i]) < 0)
			return -1;
	switch (x->op) {
	case FN_LEN:
		out->kind = VAL_INT;
		if (args[0].kind == VAL_LIST)
			out->u.i = args[0].n;
		else if (args[0].kind == VAL_STR)
			out->u.i = (int64_t)strlen(args[0].u.s);
		else if (args[0].kind == VAL_GROUP)
			out->u.i = args[0].u.g->n;
		else
			return expr_failf(env, x, "len of %s (a tensor's is X.rank)", expr_kind_name(args[0].kind));
		return 0;
	case FN_SUM: case FN_PROD: {
		int64_t acc = x->op == FN_SUM ? 0 : 1;
		double facc = (double)acc;
		int fl = 0;

		if (expr_as_list(&args[0], env, x, &l) < 0)
			return -1;
		for (int i = 0; i < l.n; i++) {
			const struct val *v = &l.u.items[i];

			if (!is_num(v))
				return expr_failf(env, x, "%s of a list holding %s", x->op == FN_SUM ? "sum" : "prod",
						  expr_kind_name(v->kind));
			if (v->kind == VAL_FLOAT)
				fl = 1;
			facc = x->op == FN_SUM ? facc + num(v) : facc * num(v);
			if (v->kind == VAL_INT && (x->op == FN_SUM ? __builtin_add_overflow(acc, v->u.i, &acc)
						   : __builtin_mul_overflow(acc, v->u.i, &acc)))
				return expr_failf(env, x, "integer overflow");
		}
		if (fl) {
			out->kind = VAL_FLOAT;
			out->u.f = facc;
		} else {
			out->kind = VAL_INT;
			out->u.i = acc;
		}
		return 0;
	}
	case FN_MIN: case FN_MAX:
		return eval_minmax(x, env, args, out);
	case FN_ABS:
		if (args[0].kind == VAL_INT) {
			if (args[0].u.i == INT64_MIN)
				return expr_failf(env, x, "integer overflow");
			out->kind = VAL_INT;
			out->u.i = args[0].u.i < 0 ? -args[0].u.i : args[0].u.i;
			return 0;
		}
		if (args[0].kind == VAL_FLOAT) {
			out->kind = VAL_FLOAT;
			out->u.f = fabs(args[0].u.f);
			return 0;
		}
		return expr_failf(env, x, "abs of %s", expr_kind_name(args[0].kind));
	case FN_DIVISORS: {
		int m = 0;

		if (expr_as_int(&args[0], env, x->a[0], &a) < 0)
			return -1;
		if (a > MAX_LIST)
			return expr_failf(env, x, "divisors of %lld", (long long)a);
		out->kind = VAL_LIST;
		out->u.items = new_items(env, a > 0 ? (size_t)(2 * sqrt((double)a) + 2) : 0);
		/* Ascending: the small divisors, then their partners from the top. */
		for (int64_t d = 1; a > 0 && d * d <= a; d++)
			if (a % d == 0) {
				out->u.items[m].kind = VAL_INT;
				out->u.items[m++].u.i = d;
			}
		for (int i = m - 1, small = m; i >= 0 && small; i--) {
			int64_t d = a / out->u.items[i].u.i;

			if (d != out->u.items[i].u.i) {
				out->u.items[m].kind = VAL_INT;
				out->u.items[m++].u.i = d;
			}
		}
		out->n = m;
		return 0;
	}
	case FN_CEIL_DIV:
		if (expr_as_int(&args[0], env, x->a[0], &a) < 0 || expr_as_int(&args[1], env, x->a[1], &b) < 0)
			return -1;
		if (b == 0)
			return expr_failf(env, x, "division by zero");
		out->kind = VAL_INT;
		out->u.i = -floor_div(-a, b);
		return 0;
	case FN_RANGE:
		if (expr_as_int(&args[0], env, x->a[0], &a) < 0 || expr_as_int(&args[1], env, x->a[1], &b) < 0)
			return -1;
		return make_range(a, b, env, x, out);
	default:
		return expr_failf(env, x, "uniform() chooses a float attribute: float NAME in uniform(LO, HI)");
	}
}

int expr_eval(const struct expr *x, struct expr_env *env, struct val *out)
{
	struct val v;
	int t;

	switch (x->kind) {
	case X_INT:
		out->kind = VAL_INT;
		out->u.i = x->i;
		return 0;
	case X_FLOAT:
		out->kind = VAL_FLOAT;
		out->u.f = x->f;
		return 0;
	case X_STR:
		out->kind = VAL_STR;
		out->u.s = x->s;
		return 0;
	case X_NAME:
		*out = env->slots[x->slot];
		if (out->kind == VAL_NONE)
			return expr_failf(env, x, "'%s' has no value here (an absent optional input?)", x->s);
		return 0;
	case X_LIST:
		return eval_list_literal(x, env, out);
	case X_SPLICE:
		return expr_failf(env, x, "'...' splices a list into a list literal only");
	case X_RANGE: {
		int64_t lo, hi;

		if (eval_int(x->a[0], env, &lo) < 0 || eval_int(x->a[1], env, &hi) < 0)
			return -1;
		return make_range(lo, hi, env, x, out);
	}
	case X_INDEX:
		return eval_index(x, env, out);
	case X_SLICE:
		return eval_slice(x, env, out);
	case X_RANK: case X_SHAPE: case X_COUNT:
		if (expr_eval(x->a[0], env, &v) < 0)
			return -1;
		if (x->kind == X_COUNT) {
			if (v.kind != VAL_GROUP)
				return expr_failf(env, x, ".count of %s (a group's)", expr_kind_name(v.kind));
			out->kind = VAL_INT;
			out->u.i = v.u.g->n;
			return 0;
		}
		if (v.kind != VAL_TENSOR)
			return expr_failf(env, x, ".%s of %s (a tensor's)", x->kind == X_RANK ? "rank" : "shape",
					  expr_kind_name(v.kind));
		if (x->kind == X_SHAPE)
			return tensor_shape(v.u.t, env, x, out);
		out->kind = VAL_INT;
		out->u.i = v.u.t->rank;
		return 0;
	case X_COMP:
		return eval_comp(x, env, out);
	case X_BIN:
		return eval_bin(x, env, out);
	case X_NEG:
		if (expr_eval(x->a[0], env, &v) < 0)
			return -1;
		if (v.kind == VAL_INT && v.u.i != INT64_MIN) {
			out->kind = VAL_INT;
			out->u.i = -v.u.i;
		} else if (v.kind == VAL_FLOAT) {
			out->kind = VAL_FLOAT;
			out->u.f = -v.u.f;
		} else {
			return expr_failf(env, x, "cannot negate %s", expr_kind_name(v.kind));
		}
		return 0;
	case X_NOT:
		if (expr_eval(x->a[0], env, &v) < 0 || (t = expr_truth(&v, env, x->a[0])) < 0)
			return -1;
		out->kind = VAL_INT;
		out->u.i = !t;
		return 0;
	case X_AND: case X_OR:
		if (expr_eval(x->a[0], env, &v) < 0 || (t = expr_truth(&v, env, x->a[0])) < 0)
			return -1;
		if (t == (x->kind == X_OR)) {
			out->kind = VAL_INT;
			out->u.i = t;
			return 0;
		}
		if (expr_eval(x->a[1], env, &v) < 0 || (t = expr_truth(&v, env, x->a[1])) < 0)
			return -1;
		out->kind = VAL_INT;
		out->u.i = t;
		return 0;
	case X_COND:
		if (expr_eval(x->a[0], env, &v) < 0 || (t = expr_truth(&v, env, x->a[0])) < 0)
			return -1;
		return expr_eval(x->a[t ? 1 : 2], env, out);
	case X_IN: case X_NOTIN:
		return eval_in(x, env, out);
	case X_CALL:
		return eval_call(x, env, out);
	}
	return expr_failf(env, x, "unknown expression");
}
