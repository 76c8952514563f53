/* rules.c: the variation rules (rules.h). A rule reads the parent as a struct instance, and writes
 * each candidate as JSON (the parent's record with one thing changed), which record_from_json then
 * checks and turns back into an instance: a candidate that would not read back is never made. */
#include "libraries.h"
#include "rules.h"
#include "xalloc.h"

#include <cjson/cJSON.h>
#include <ctype.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* How many distinct values a pool keeps per key: enough for every enum a signature allows,
 * few enough that a free-form string parameter (a layer's name) does not flood the candidates. */
#define POOL_CAP 16
/* Alternatives tried per str/dtype parameter, values per added parameter, pairs per parent. */
#define STR_ALTS 8
#define ADDED_VALUES 3
#define PAIRS 3
/* A parent's work is linear in its size: each candidate is a copy of the parent, so the rules that
 * make candidates per input (or per group of inputs of one dtype) take the first few only. A
 * Concat of 200,000 inputs would otherwise make a candidate per input, each as big as the parent:
 * minutes, and memory by the square of its size. No operator of a test suite comes near these. */
#define VARIED_INPUTS 16
#define DTYPE_GROUPS 4

#define EXACT 9007199254740992.0 /* 2^53 */

/* --- the seeded order --------------------------------------------------------------------------- */

static uint64_t splitmix(uint64_t *s)
{
	uint64_t z = (*s += 0x9e3779b97f4a7c15ULL);

	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
	return z ^ (z >> 31);
}

/* A generator for one parent and one purpose: the same seed, parent and purpose, the same draws. */
static uint64_t rng_for(uint64_t seed, const struct instance *p, const char *purpose)
{
	uint64_t s = seed * 0x100000001b3ULL;

	for (const char *c = p->id; *c; c++)
		s = (s ^ (unsigned char)*c) * 0x100000001b3ULL;
	for (const char *c = purpose; *c; c++)
		s = (s ^ (unsigned char)*c) * 0x100000001b3ULL;
	return s;
}

static size_t draw(uint64_t *s, size_t n)
{
	return n ? (size_t)(splitmix(s) % n) : 0;
}

/* --- candidate lists ---------------------------------------------------------------------------- */

void rules_cands_release(struct rules_cands *c)
{
	for (size_t i = 0; i < c->n; i++) {
		free(c->v[i].label);
		record_release(&c->v[i].in);
	}
	free(c->v);
	memset(c, 0, sizeof(*c));
}

static int (*stop_check)(void);
/* rules_all's parent as text, written once for all its candidates (each is the parent's record
 * parsed again and changed): the writing is a third of a candidate's cost. */
static const struct instance *text_of;
static struct buf parent_text = BUF_INIT;

void rules_stop_when(int (*stop)(void))
{
	stop_check = stop;
}

/* The parent's record as JSON to change: without its id (recomputed), "seen" (a count of the
 * parent's harvest) and any earlier "variant" or "wrap" annotation. Once the caller's stop check
 * says so, an empty object, cheap to change, which no candidate reads back from: the rules then run
 * through their loops in no time and make nothing more. */
static cJSON *parent_json(const struct instance *p)
{
	struct buf b = BUF_INIT;
	cJSON *j;

	if (stop_check && stop_check())
		return cJSON_CreateObject();
	if (p == text_of) {
		j = cJSON_Parse(parent_text.data);
	} else {
		record_write(p, &b);
		j = cJSON_Parse(b.data);
		buf_release(&b);
	}
	cJSON_DeleteItemFromObjectCaseSensitive(j, "id");
	cJSON_DeleteItemFromObjectCaseSensitive(j, "seen");
	cJSON_DeleteItemFromObjectCaseSensitive(j, "variant");
	cJSON_DeleteItemFromObjectCaseSensitive(j, "wrap");
	cJSON_DeleteItemFromObjectCaseSensitive(j, "wrap_options");
	return j;
}

/* Take j (consumed) as a candidate, if it reads back as a record. */
static void emit(struct rules_cands *out, cJSON *j, enum rules_dim dim, const char *label)
{
	struct instance in;
	struct err e = ERR_INIT;

	if (j && record_from_json(&in, j, &e) == 0) {
		if (out->n == out->cap) {
			out->cap = out->cap ? 2 * out->cap : 16;
			out->v = xrealloc(out->v, out->cap * sizeof(*out->v));
		}
		out->v[out->n].label = xstrdup(label);
		out->v[out->n].dim = dim;
		out->v[out->n].in = in;
		out->n++;
	}
	err_release(&e);
	cJSON_Delete(j);
}

/* Move src's candidates to the end of out in an order drawn from s. */
static void shuffle_into(struct rules_cands *out, struct rules_cands *src, uint64_t s)
{
	for (size_t i = src->n; i > 1; i--) {
		size_t k = draw(&s, i);
		struct rules_cand t = src->v[i - 1];

		src->v[i - 1] = src->v[k];
		src->v[k] = t;
	}
	for (size_t i = 0; i < src->n; i++) {
		if (out->n == out->cap) {
			out->cap = out->cap ? 2 * out->cap : 16;
			out->v = xrealloc(out->v, out->cap * sizeof(*out->v));
		}
		out->v[out->n++] = src->v[i];
	}
	out->skipped += src->skipped;
	free(src->v);
	memset(src, 0, sizeof(*src));
}

/* --- JSON helpers ------------------------------------------------------------------------------- */

static cJSON *tensor_of(cJSON *rec, size_t i)
{
	cJSON *in = cJSON_GetArrayItem(cJSON_GetObjectItemCaseSensitive(rec, "inputs"), (int)i);

	return cJSON_GetObjectItemCaseSensitive(in, "tensor");
}

/* The first of rec's inputs, to walk with ->next: cJSON_GetArrayItem walks from the start each
 * time, which over every input of a parent of many is quadratic. */
static cJSON *first_input(cJSON *rec)
{
	cJSON *in = cJSON_GetObjectItemCaseSensitive(rec, "inputs");

	return in ? in->child : NULL;
}

/* The elements of a JSON array, indexable (caller frees; *n their number). */
static const cJSON **elements(const cJSON *a, int64_t *n)
{
	const cJSON **v, *c;
	int64_t k = 0;

	*n = 0;
	cJSON_ArrayForEach(c, a)
		(*n)++;
	v = xcalloc(*n ? (size_t)*n : 1, sizeof(*v));
	cJSON_ArrayForEach(c, a)
		v[k++] = c;
	return v;
}

static cJSON *float_json(double d)
{
	if (isnan(d))
		return cJSON_CreateString("nan");
	if (isinf(d))
		return cJSON_CreateString(d > 0 ? "inf" : "-inf");
	return cJSON_CreateNumber(d);
}

static double elem_double(const cJSON *c)
{
	if (cJSON_IsBool(c))
		return cJSON_IsTrue(c) ? 1 : 0;
	if (cJSON_IsNumber(c))
		return c->valuedouble;
	if (cJSON_IsString(c)) {
		if (!strcmp(c->valuestring, "nan"))
			return NAN;
		if (!strcmp(c->valuestring, "inf"))
			return INFINITY;
		if (!strcmp(c->valuestring, "-inf"))
			return -INFINITY;
		return strtod(c->valuestring, NULL);
	}
	return NAN;
}

static cJSON *tagged(const char *tag, cJSON *body)
{
	cJSON *o = cJSON_CreateObject();

	cJSON_AddItemToObject(o, tag, body);
	return o;
}

static void set_member(cJSON *obj, const char *name, cJSON *v)
{
	if (cJSON_GetObjectItemCaseSensitive(obj, name))
		cJSON_ReplaceItemInObjectCaseSensitive(obj, name, v);
	else
		cJSON_AddItemToObject(obj, name, v);
}

static cJSON *shape_json(const int64_t *shape, int rank)
{
	cJSON *a = cJSON_CreateArray();

	for (int i = 0; i < rank; i++)
		cJSON_AddItemToArray(a, shape[i] == TENSOR_DIM_UNKNOWN ? cJSON_CreateNull()
				     : cJSON_CreateNumber((double)shape[i]));
	return a;
}

/* Replace a tensor's values by the range they span (nan left out), where a shape change leaves no
 * way for them to follow. */
static void values_to_range(cJSON *t)
{
	cJSON *vals = cJSON_GetObjectItemCaseSensitive(t, "values"), *c, *r;
	double lo = INFINITY, hi = -INFINITY;

	if (!vals)
		return;
	cJSON_ArrayForEach(c, vals) {
		double d = elem_double(c);

		if (isnan(d))
			continue;
		lo = fmin(lo, d);
		hi = fmax(hi, d);
	}
	cJSON_DeleteItemFromObjectCaseSensitive(t, "values");
	if (lo <= hi) {
		r = cJSON_CreateArray();
		cJSON_AddItemToArray(r, float_json(lo));
		cJSON_AddItemToArray(r, float_json(hi));
		set_member(t, "range", r);
	}
}

/* The first tensor input, or -1. */
static int first_tensor(const struct instance *p)
{
	for (size_t i = 0; i < p->ninputs; i++)
		if (p->inputs[i].type == V_TENSOR)
			return (int)i;
	return -1;
}

static int same_shape(const struct tensor *a, const struct tensor *b)
{
	if (a->rank != b->rank)
		return 0;
	for (int i = 0; i < a->rank; i++)
		if (a->shape[i] != b->shape[i])
			return 0;
	return 1;
}

/* --- dtype -------------------------------------------------------------------------------------- */

static const char *const no_dtypes[] = { NULL };

/* The library's template declares them (DTYPES), in the order they are tried. */
const char *const *rules_dtypes(const char *library)
{
	const struct library *l = libraries_find(library);

	return l ? (const char *const *)l->dtypes : no_dtypes;
}

/* 'f' floating, 'c' complex, 'b' bool, 'i' integer (lo, hi its range), 0 unknown. */
static char dtype_class(const char *d, double *lo, double *hi)
{
	static const struct { const char *name; double lo, hi; } ints[] = {
		{ "int8", -128, 127 }, { "int16", -32768, 32767 }, { "int32", -2147483648.0, 2147483647.0 },
		{ "int64", -9223372036854775808.0, 9223372036854775807.0 }, { "uint8", 0, 255 },
		{ "uint16", 0, 65535 }, { "uint32", 0, 4294967295.0 }, { "uint64", 0, 18446744073709551615.0 },
	};

	for (size_t i = 0; i < sizeof(ints) / sizeof(ints[0]); i++)
		if (!strcmp(d, ints[i].name)) {
			*lo = ints[i].lo;
			*hi = ints[i].hi;
			return 'i';
		}
	if (!strcmp(d, "bool")) {
		*lo = 0;
		*hi = 1;
		return 'b';
	}
	if (!strncmp(d, "complex", 7))
		return 'c';
	if (!strncmp(d, "float", 5) || !strcmp(d, "bfloat16"))
		return 'f';
	return 0;
}

/* An integer value of a tensor: exact as a number up to 2^53, as a decimal string beyond, and the
 * 64-bit bounds spelled exactly (the doubles nearest them are out of range). */
static cJSON *int_json(double t, const char *dtype)
{
	char s[32];

	if (fabs(t) <= EXACT)
		return cJSON_CreateNumber(t);
	if (!strcmp(dtype, "uint64") && t >= 18446744073709551615.0)
		return cJSON_CreateString("18446744073709551615");
	if (t >= 9223372036854775807.0 && strcmp(dtype, "uint64"))
		return cJSON_CreateString("9223372036854775807");
	if (t <= -9223372036854775808.0)
		return cJSON_CreateString("-9223372036854775808");
	snprintf(s, sizeof(s), "%.0f", t);
	return cJSON_CreateString(s);
}

/* Convert tensor t (JSON) to dtype to: its values, its range. 0, or -1 where a value cannot be
 * had in the new dtype (nan or inf to an integer). */
static int convert_tensor(cJSON *t, const char *to)
{
	cJSON *vals = cJSON_GetObjectItemCaseSensitive(t, "values"), *range, *c, *nv;
	double lo = 0, hi = 0;
	char k = dtype_class(to, &lo, &hi);

	set_member(t, "dtype", cJSON_CreateString(to));
	if (vals && k == 'c') {
		values_to_range(t);
	} else if (vals) {
		nv = cJSON_CreateArray();
		cJSON_ArrayForEach(c, vals) {
			double d = elem_double(c);

			if (k == 'b') {
				cJSON_AddItemToArray(nv, cJSON_CreateBool(d != 0));
			} else if (k == 'i') {
				if (!isfinite(d)) {
					cJSON_Delete(nv);
					return -1;
				}
				cJSON_AddItemToArray(nv, int_json(fmin(fmax(trunc(d), lo), hi), to));
			} else if (cJSON_IsString(c) && (isnan(d) || isinf(d))) {
				cJSON_AddItemToArray(nv, cJSON_Duplicate(c, 1));
			} else {
				cJSON_AddItemToArray(nv, float_json(d));
			}
		}
		set_member(t, "values", nv);
	}
	range = cJSON_GetObjectItemCaseSensitive(t, "range");
	if (range && (k == 'i' || k == 'b')) {
		double r0 = elem_double(cJSON_GetArrayItem(range, 0)), r1 = elem_double(cJSON_GetArrayItem(range, 1));

		r0 = fmin(fmax(r0, lo), hi);
		r1 = fmin(fmax(r1, lo), hi);
		if (r1 < r0)
			r1 = r0;
		cJSON_ReplaceItemInArray(range, 0, float_json(r0));
		cJSON_ReplaceItemInArray(range, 1, float_json(r1));
	}
	return 0;
}

/* Emit j, a dtype candidate of p, labelled label. A torch module's weights are made in float32
 * unless its constructor's dtype says otherwise, and a floating input of another dtype is then an
 * error no real model makes: with a floating or complex target, the module is also tried with its
 * weights in that dtype (params.dtype, "dtype:T+weights"). Both are tried, since a module without
 * weights (ReLU) takes no dtype argument and one with them takes no other input dtype. */
static void torch_module_dtype(const struct instance *p, cJSON *j, const char *to, const char *label,
			       struct rules_cands *out)
{
	double lo, hi;
	char k = dtype_class(to, &lo, &hi);
	const struct value *had = record_param(p, "dtype");
	cJSON *w, *params, *context;
	char wl[80];

	if (strcmp(p->library, "torch") || strcmp(p->kind, "module") || (k != 'f' && k != 'c')) {
		emit(out, j, RULES_DTYPE, label);
		return;
	}
	if (!had && !record_context(p, "dtype")) {
		/* The harvest records context.dtype wherever the module holds floating parameters or
		 * buffers: without it there are no weights to make in the dtype, and the constructors
		 * of such modules (ReLU6, the poolings) take no dtype argument. */
		emit(out, j, RULES_DTYPE, label);
		out->skipped++;
		return;
	}
	w = cJSON_Duplicate(j, 1);
	params = cJSON_GetObjectItemCaseSensitive(w, "params");
	if (!params)
		params = cJSON_AddObjectToObject(w, "params");
	set_member(params, "dtype", tagged("dtype", cJSON_CreateString(to)));
	/* The template casts a module to its context.dtype once built (as the harvest saw it): that
	 * is the weights' dtype now, else the cast undoes the constructor's dtype. */
	context = cJSON_GetObjectItemCaseSensitive(w, "context");
	if (cJSON_GetObjectItemCaseSensitive(context, "dtype"))
		set_member(context, "dtype", tagged("dtype", cJSON_CreateString(to)));
	if (had && had->type == V_DTYPE) {
		/* The parent says its weights' dtype already: it moves with the inputs, alone. */
		cJSON_Delete(j);
		emit(out, w, RULES_DTYPE, label);
		return;
	}
	emit(out, j, RULES_DTYPE, label);
	snprintf(wl, sizeof(wl), "%s+weights", label);
	emit(out, w, RULES_DTYPE, wl);
}

/* The dtype candidates of one group: the tensor inputs of dtype old all change to each other dtype
 * of the library. first: the group's first input; the first group's labels are "dtype:T", another's
 * "dtype:in:K:T". */
static void dtype_group(const struct instance *p, size_t first, const char *old, struct rules_cands *out)
{
	int first_group = (int)first == first_tensor(p);

	for (const char *const *d = rules_dtypes(p->library); *d; d++) {
		cJSON *j, *params, *dt, *item;
		char label[64];
		int ok = 1;

		if (!strcmp(*d, old))
			continue;
		j = parent_json(p);
		item = first_input(j);
		for (size_t i = 0; i < p->ninputs && ok; i++, item = item ? item->next : NULL)
			if (p->inputs[i].type == V_TENSOR && !strcmp(p->inputs[i].u.t.dtype, old))
				ok = convert_tensor(cJSON_GetObjectItemCaseSensitive(item, "tensor"), *d) == 0;
		if (!ok) {
			cJSON_Delete(j);
			continue;
		}
		if (first_group) {
			/* A Keras layer's dtype policy: Keras casts the inputs to it, so it moves with them. */
			params = cJSON_GetObjectItemCaseSensitive(j, "params");
			dt = cJSON_GetObjectItemCaseSensitive(params, "dtype");
			if (!strcmp(p->library, "keras") &&
			    cJSON_IsString(cJSON_GetObjectItemCaseSensitive(dt, "str")) &&
			    !strcmp(cJSON_GetObjectItemCaseSensitive(dt, "str")->valuestring, old))
				cJSON_ReplaceItemInObjectCaseSensitive(dt, "str", cJSON_CreateString(*d));
			snprintf(label, sizeof(label), "dtype:%s", *d);
			torch_module_dtype(p, j, *d, label, out);
		} else {
			snprintf(label, sizeof(label), "dtype:in:%zu:%s", first, *d);
			emit(out, j, RULES_DTYPE, label);
		}
	}
}

/* Each group of tensor inputs that share a dtype is varied apart: Where's condition (bool) and its
 * data, Gather's data and its int64 indices, a loss's input and its target. The first
 * DTYPE_GROUPS groups, in the order of their first inputs. */
void rules_dtype(const struct instance *p, uint64_t seed, struct rules_cands *out)
{
	struct rules_cands mine = { NULL, 0, 0, 0 };
	const char *groups[DTYPE_GROUPS];
	int ngroups = 0;

	for (size_t i = 0; i < p->ninputs && ngroups < DTYPE_GROUPS; i++) {
		int seen = 0;

		if (p->inputs[i].type != V_TENSOR)
			continue;
		for (int k = 0; k < ngroups && !seen; k++)
			seen = !strcmp(groups[k], p->inputs[i].u.t.dtype);
		if (seen)
			continue;
		groups[ngroups++] = p->inputs[i].u.t.dtype;
		dtype_group(p, i, p->inputs[i].u.t.dtype, &mine);
	}
	shuffle_into(out, &mine, rng_for(seed, p, "dtype"));
}

/* --- rank and shape ----------------------------------------------------------------------------- */

/* How a shape change moves kept values. */
enum follow { F_REPEAT, F_FIRST_SLICE, F_INDEX0, F_EMPTY, F_RANGE };

static int64_t product(const int64_t *s, int from, int to)
{
	int64_t n = 1;

	for (int i = from; i < to; i++)
		n *= s[i];
	return n;
}

/* The values of a tensor of shape old (rank r) after the change: 0, or -1 where they cannot follow
 * (values that do not fill the shape). k: the dimension set to 1 (F_INDEX0). */
static int follow_values(cJSON *t, const struct tensor *old, enum follow how, int k)
{
	cJSON *vals = cJSON_GetObjectItemCaseSensitive(t, "values"), *nv;
	const cJSON **at;
	int64_t n = 0;

	if (!vals)
		return 0;
	for (int i = 0; i < old->rank; i++)
		if (old->shape[i] == TENSOR_DIM_UNKNOWN)
			return -1;
	if (how == F_RANGE) {
		values_to_range(t);
		return 0;
	}
	if (how == F_EMPTY) {
		set_member(t, "values", cJSON_CreateArray());
		return 0;
	}
	at = elements(vals, &n);
	if (n != product(old->shape, 0, old->rank)) {
		free(at);
		return -1;
	}
	nv = cJSON_CreateArray();
	if (how == F_REPEAT) {
		for (int r = 0; r < 2; r++)
			for (int64_t i = 0; i < n; i++)
				cJSON_AddItemToArray(nv, cJSON_Duplicate(at[i], 1));
	} else if (how == F_FIRST_SLICE) {
		int64_t m = product(old->shape, 1, old->rank);

		if (old->shape[0] == 0 && m) {
			cJSON_Delete(nv);
			free(at);
			return -1;
		}
		for (int64_t i = 0; i < m && i < n; i++)
			cJSON_AddItemToArray(nv, cJSON_Duplicate(at[i], 1));
	} else {
		int64_t outer = product(old->shape, 0, k), dk = old->shape[k];
		int64_t inner = product(old->shape, k + 1, old->rank);

		if (dk == 0 && outer && inner) {
			cJSON_Delete(nv);
			free(at);
			return -1;
		}
		for (int64_t o = 0; o < outer && dk; o++)
			for (int64_t i = 0; i < inner; i++)
				cJSON_AddItemToArray(nv, cJSON_Duplicate(at[o * dk * inner + i], 1));
	}
	free(at);
	set_member(t, "values", nv);
	return 0;
}

/* A candidate with every tensor input of the first one's shape given shape ns (rank nr). */
static void reshape(const struct instance *p, const int64_t *ns, int nr, enum follow how, int k,
		    const char *label, struct rules_cands *out)
{
	const struct tensor *t0 = &p->inputs[first_tensor(p)].u.t;
	cJSON *j = parent_json(p), *item = first_input(j);

	for (size_t i = 0; i < p->ninputs; i++, item = item ? item->next : NULL) {
		cJSON *t;

		if (p->inputs[i].type != V_TENSOR || !same_shape(&p->inputs[i].u.t, t0))
			continue;
		t = cJSON_GetObjectItemCaseSensitive(item, "tensor");
		if (follow_values(t, &p->inputs[i].u.t, how, k) < 0) {
			cJSON_Delete(j);
			return;
		}
		set_member(t, "shape", shape_json(ns, nr));
	}
	emit(out, j, RULES_SHAPE, label);
}

/* A parameter's integers (an int, or a tuple or list of ints): how many, into v (up to 8). */
static int ints_of(const struct value *v, int64_t *out)
{
	if (!v)
		return 0;
	if (v->type == V_INT) {
		out[0] = v->u.i;
		return 1;
	}
	if ((v->type == V_TUPLE || v->type == V_LIST) && v->u.seq.n && v->u.seq.n <= 8) {
		for (size_t i = 0; i < v->u.seq.n; i++) {
			if (v->u.seq.items[i].type != V_INT)
				return 0;
			out[i] = v->u.seq.items[i].u.i;
		}
		return (int)v->u.seq.n;
	}
	return 0;
}

/* The spatial rank an operator's name says ("Conv2d", "MaxPooling3D"), or 0. */
static int name_rank(const char *op)
{
	const char *s = strrchr(op, '.');

	s = s ? s + 1 : op;
	for (; *s; s++)
		if (s[0] >= '1' && s[0] <= '3' && tolower((unsigned char)s[1]) == 'd')
			return s[0] - '0';
	return 0;
}

static void spatial(const struct instance *p, struct rules_cands *out)
{
	const struct tensor *t0 = &p->inputs[first_tensor(p)].u.t;
	const char *kname = !strcmp(p->library, "onnx") ? "kernel_shape" : "kernel_size";
	const struct value *kv = record_param(p, kname), *sv, *fmt;
	int64_t kern[8], stride[8], ns[64];
	int n, ns_n, first, pool = strstr(p->op, "Pool") != NULL;

	if (!kv && !strcmp(p->library, "keras"))
		kv = record_param(p, "pool_size");
	if (!(n = ints_of(kv, kern)))
		return;
	if (n == 1 && kv->type == V_INT && name_rank(p->op) > 1) {
		n = name_rank(p->op);
		for (int i = 1; i < n; i++)
			kern[i] = kern[0];
	}
	sv = record_param(p, !strcmp(p->library, "torch") ? "stride" : "strides");
	ns_n = ints_of(sv, stride);
	if (ns_n == 1 && n > 1)
		for (int i = 1; i < n; i++)
			stride[i] = stride[0];
	else if (ns_n != n)
		for (int i = 0; i < n; i++)
			stride[i] = pool && strcmp(p->library, "onnx") ? kern[i] : 1;
	if (t0->rank < n + 1 || t0->rank > 64)
		return;
	fmt = record_param(p, "data_format");
	first = t0->rank - n;
	if (!strcmp(p->library, "keras") && !(fmt && fmt->type == V_STR && !strcmp(fmt->u.s, "channels_first")))
		first = 1;
	if (first + n > t0->rank)
		return;
	for (int i = first; i < first + n; i++)
		if (t0->shape[i] == TENSOR_DIM_UNKNOWN)
			return;
	for (int which = 0; which < 4; which++) {
		static const char *const labels[] = {
			"spatial:kernel", "spatial:kernel-1", "spatial:kernel+stride-1", "spatial:nonsquare",
		};
		int same = 1;

		memcpy(ns, t0->shape, (size_t)t0->rank * sizeof(ns[0]));
		for (int i = 0; i < n; i++) {
			int64_t *d = &ns[first + i];

			switch (which) {
			case 0: *d = kern[i]; break;
			case 1: *d = kern[i] - 1; break;
			case 2: *d = kern[i] + stride[i] - 1; break;
			default:
				if (t0->shape[first + i] != t0->shape[first])
					same = 2;
				if (i == n - 1)
					*d += 1;
				break;
			}
			if (*d < 0)
				same = 2;
		}
		if (which == 3 && n < 2)
			continue;
		/* With stride 1, kernel+stride-1 is the kernel itself. */
		if (which == 2) {
			int ones = 1;

			for (int i = 0; i < n; i++)
				ones &= stride[i] == 1;
			if (ones)
				continue;
		}
		for (int i = 0; i < t0->rank && same == 1; i++)
			same = ns[i] == t0->shape[i];
		if (!same)
			reshape(p, ns, t0->rank, F_RANGE, 0, labels[which], out);
	}
}

void rules_shape(const struct instance *p, uint64_t seed, struct rules_cands *out)
{
	struct rules_cands mine = { NULL, 0, 0, 0 };
	int f = first_tensor(p);
	const struct tensor *t0;
	int64_t ns[65];
	uint64_t s = rng_for(seed, p, "dim");
	char label[64];

	if (f < 0 || p->inputs[f].u.t.rank > 63)
		return;
	t0 = &p->inputs[f].u.t;
	ns[0] = 2;
	memcpy(ns + 1, t0->shape, (size_t)t0->rank * sizeof(ns[0]));
	reshape(p, ns, t0->rank + 1, F_REPEAT, 0, "rank:+1", &mine);
	if (t0->rank >= 1 && t0->shape[0] != TENSOR_DIM_UNKNOWN)
		reshape(p, t0->shape + 1, t0->rank - 1, F_FIRST_SLICE, 0, "rank:-1", &mine);
	for (int to = 1; to >= 0; to--) {
		int dims[64], nd = 0, k;

		for (int i = 0; i < t0->rank; i++)
			if (t0->shape[i] != TENSOR_DIM_UNKNOWN && t0->shape[i] != to)
				dims[nd++] = i;
		if (!nd)
			continue;
		k = dims[draw(&s, (size_t)nd)];
		memcpy(ns, t0->shape, (size_t)t0->rank * sizeof(ns[0]));
		ns[k] = to;
		snprintf(label, sizeof(label), "dim:%d=%d", k, to);
		reshape(p, ns, t0->rank, to ? F_INDEX0 : F_EMPTY, k, label, &mine);
	}
	spatial(p, &mine);
	shuffle_into(out, &mine, rng_for(seed, p, "shape"));
}

/* --- parameter values --------------------------------------------------------------------------- */

/* The extremes vary knows, the most extreme first: a parameter's alternatives are tried in this
 * order (see schedule), so that its boundary values come alone before anything else of it. */
static const int64_t int_points[] = { 1024, 0, -1, -2, 1, 2 };
static const double float_points[] = { 1e30, INFINITY, NAN, 1e-30, 0, -1.5 };
static const char *const float_texts[] = { "1e30", "inf", "nan", "1e-30", "0", "-1.5" };

/* The ranker's integer subspaces, with "large" apart: <-1, -1, 0, 1, >1, large. */
static int int_subspace(int64_t v)
{
	if (v < -1) return 0;
	if (v <= 1) return (int)v + 2;
	return v < 1024 ? 4 : 5;
}

/* One parameter changed: its name, the new tagged value (owned), and its text for a label; k its
 * place among the alternatives of its parameter (0: the first made), input the positional input it
 * replaces (-1: a parameter), added whether the parent lacks the parameter. */
struct single {
	char *name;
	cJSON *value;
	char *text;
	size_t k;
	int input, added;
};

struct singles {
	struct single *v;
	size_t n, cap;
};

static void singles_add(struct singles *s, const char *name, cJSON *value, const char *text)
{
	if (s->n == s->cap) {
		s->cap = s->cap ? 2 * s->cap : 16;
		s->v = xrealloc(s->v, s->cap * sizeof(*s->v));
	}
	s->v[s->n].name = xstrdup(name);
	s->v[s->n].value = value;
	s->v[s->n].text = xstrdup(text);
	/* A parameter's alternatives are made one after another. */
	s->v[s->n].k = s->n && !strcmp(s->v[s->n - 1].name, name) ? s->v[s->n - 1].k + 1 : 0;
	s->v[s->n].input = -1;
	s->v[s->n].added = 0;
	s->n++;
}

static void singles_release(struct singles *s)
{
	for (size_t i = 0; i < s->n; i++) {
		free(s->v[i].name);
		cJSON_Delete(s->v[i].value);
		free(s->v[i].text);
	}
	free(s->v);
}

/* An int sequence of the parent's kind (tuple or list) from ints. */
static cJSON *int_seq(enum vtype type, const int64_t *v, int n, struct buf *text)
{
	cJSON *a = cJSON_CreateArray();

	buf_addc(text, type == V_TUPLE ? '(' : '[');
	for (int i = 0; i < n; i++) {
		cJSON_AddItemToArray(a, tagged("int", cJSON_CreateNumber((double)v[i])));
		buf_addf(text, "%s%lld", i ? "," : "", (long long)v[i]);
	}
	buf_addc(text, type == V_TUPLE ? ')' : ']');
	return tagged(type == V_TUPLE ? "tuple" : "list", a);
}

/* A short text of a canonical value for a label: the scalar itself, else its type. */
static void value_text(const cJSON *v, struct buf *out)
{
	const cJSON *b = v ? v->child : NULL;

	if (!b)
		buf_adds(out, "?");
	else if (cJSON_IsString(b) && (!strcmp(b->string, "str") || !strcmp(b->string, "dtype")))
		buf_adds(out, b->valuestring);
	else if (!strcmp(b->string, "int") || !strcmp(b->string, "float") || !strcmp(b->string, "bool") ||
		 !strcmp(b->string, "none")) {
		char *s = cJSON_PrintUnformatted(b);

		buf_adds(out, cJSON_IsString(b) ? b->valuestring : s);
		cJSON_free(s);
	} else {
		buf_adds(out, b->string);
	}
}

/* Whether every value the corpus shows for (op, param) is the int 0 or 1: an ONNX attribute that
 * is a flag (keepdims, align_corners, reverse, periodic, training_mode). ONNX has no bool attribute;
 * its reference evaluator takes any int there as true, where the spec and every runtime take 0 and
 * 1 only, so -2 or 1024 would make a variant the library accepts and no frontend can. */
static int flag_pool(const struct rules_pools *pools, const char *key_op)
{
	struct strmap_entry *e = pools ? strmap_find(&pools->op_param, key_op) : NULL;
	struct rules_list *l = e ? e->ptr : NULL;

	if (!l || !l->n)
		return 0;
	for (size_t i = 0; i < l->n; i++)
		if (strcmp(l->items[i], "{\"int\":0}") && strcmp(l->items[i], "{\"int\":1}"))
			return 0;
	return 1;
}

/* The other ints the corpus shows for (op, param), beside the subspace points: an int that is an
 * enum (ONNX's Cast to, a mode) takes the values its operator's tests use, which -2 or 1024 are
 * not. At most STR_ALTS, in the order the corpus shows them. */
static void int_pool(int64_t own, const char *name, const struct rules_pools *pools, const char *key_op,
		     struct singles *s)
{
	struct strmap_entry *e = pools ? strmap_find(&pools->op_param, key_op) : NULL;
	struct rules_list *l = e ? e->ptr : NULL;
	size_t taken = 0;
	char text[32];

	for (size_t i = 0; l && i < l->n && taken < STR_ALTS; i++) {
		cJSON *j = cJSON_Parse(l->items[i]);
		const cJSON *n = cJSON_GetObjectItemCaseSensitive(j, "int");
		int64_t x;
		int dup;

		if (!cJSON_IsNumber(n) || n->valuedouble != floor(n->valuedouble) ||
		    fabs(n->valuedouble) > 9007199254740992.0) {
			cJSON_Delete(j);
			continue;
		}
		x = (int64_t)n->valuedouble;
		dup = x == own;
		for (size_t k = 0; k < sizeof(int_points) / sizeof(int_points[0]) && !dup; k++)
			dup = x == int_points[k];
		if (!dup) {
			snprintf(text, sizeof(text), "%lld", (long long)x);
			singles_add(s, name, j, text);
			taken++;
		} else {
			cJSON_Delete(j);
		}
	}
}

/* The alternatives of a value v (not consumed): each appended to s under name. seed: for the
 * non-square element. pools: str and dtype values seen for the op (key_op) and the library.
 * flag: an int that takes 0 and 1 only (flag_pool). */
static void alternatives(const struct value *v, const char *name, const struct rules_pools *pools,
			 const char *key_op, const char *key_lib, int flag, uint64_t *seed, struct singles *s)
{
	struct buf text = BUF_INIT, cur = BUF_INIT;
	int64_t ints[8];
	cJSON *seq;
	int n;

	switch (v->type) {
	case V_INT:
		if (flag) {
			if (v->u.i == 0 || v->u.i == 1)
				singles_add(s, name, tagged("int", cJSON_CreateNumber((double)!v->u.i)),
					    v->u.i ? "0" : "1");
			break;
		}
		for (size_t i = 0; i < sizeof(int_points) / sizeof(int_points[0]); i++) {
			if (int_subspace(int_points[i]) == int_subspace(v->u.i))
				continue;
			buf_reset(&text);
			buf_addf(&text, "%lld", (long long)int_points[i]);
			singles_add(s, name, tagged("int", cJSON_CreateNumber((double)int_points[i])), text.data);
		}
		int_pool(v->u.i, name, pools, key_op, s);
		break;
	case V_FLOAT:
		for (size_t i = 0; i < sizeof(float_points) / sizeof(float_points[0]); i++)
			if (!(float_points[i] == v->u.f || (isnan(float_points[i]) && isnan(v->u.f))))
				singles_add(s, name, tagged("float", float_json(float_points[i])), float_texts[i]);
		break;
	case V_BOOL:
		singles_add(s, name, tagged("bool", cJSON_CreateBool(!v->u.b)), v->u.b ? "false" : "true");
		break;
	case V_STR: case V_DTYPE: {
		size_t taken = 0;

		value_canonical(v, &cur);
		for (int pass = 0; pass < 2 && pools; pass++) {
			struct strmap_entry *e = strmap_find(pass ? &pools->lib_param : &pools->op_param,
							     pass ? key_lib : key_op);
			struct rules_list *l = e ? e->ptr : NULL;

			for (size_t i = 0; l && i < l->n && taken < STR_ALTS; i++) {
				cJSON *alt;
				int dup = !strcmp(l->items[i], cur.data);

				/* Not the parent's own value, not one already taken from the op's pool. */
				for (size_t k = s->n - taken; k < s->n && !dup; k++) {
					char *t = cJSON_PrintUnformatted(s->v[k].value);

					dup = !strcmp(t, l->items[i]);
					cJSON_free(t);
				}
				alt = dup ? NULL : cJSON_Parse(l->items[i]);
				if (!alt || !alt->child || strcmp(alt->child->string, vtype_name(v->type))) {
					cJSON_Delete(alt);
					continue;
				}
				buf_reset(&text);
				value_text(alt, &text);
				singles_add(s, name, alt, text.data);
				taken++;
			}
		}
		break;
	}
	case V_TUPLE: case V_LIST:
		if (!(n = ints_of(v, ints)))
			break;
		for (size_t i = 0; i < sizeof(int_points) / sizeof(int_points[0]); i++) {
			int64_t all[8];
			int already = 1;

			for (int k = 0; k < n; k++) {
				all[k] = int_points[i];
				already &= int_subspace(ints[k]) == int_subspace(int_points[i]);
			}
			if (already)
				continue;
			buf_reset(&text);
			seq = int_seq(v->type, all, n, &text);
			singles_add(s, name, seq, text.data);
		}
		if (n >= 2) {
			size_t k = draw(seed, (size_t)n);

			ints[k] += 1;
			buf_reset(&text);
			seq = int_seq(v->type, ints, n, &text);
			singles_add(s, name, seq, text.data);
		}
		break;
	default:
		break;
	}
	buf_release(&text);
	buf_release(&cur);
}

static char *pool_key(const char *a, const char *b)
{
	return xasprintf("%s\x1f%s", a, b);
}

/* The order of a parameter's alternatives, the same for every parent of op under seed whatever
 * else the parent sets: drawn from the seed, the operator and the parameter's name. */
static uint64_t group_key(uint64_t seed, const char *op, const char *name)
{
	uint64_t h = seed * 0x100000001b3ULL ^ 0xcbf29ce484222325ULL;

	for (const char *c = op; *c; c++)
		h = (h ^ (unsigned char)*c) * 0x100000001b3ULL;
	h = (h ^ 0x1f) * 0x100000001b3ULL;
	for (const char *c = name; *c; c++)
		h = (h ^ (unsigned char)*c) * 0x100000001b3ULL;
	return splitmix(&h);
}

struct slot {
	size_t k;
	uint64_t key;
	size_t i;
};

static int slot_cmp(const void *a, const void *b)
{
	const struct slot *x = a, *y = b;

	if (x->k != y->k)
		return x->k < y->k ? -1 : 1;
	if (x->key != y->key)
		return x->key < y->key ? -1 : 1;
	return x->i < y->i ? -1 : x->i > y->i;
}

/* The order singles are tried in (order[n], indices into s): the first alternative of every
 * parameter (its most extreme value), then the second of each, and so on, the parameters in an
 * order drawn per operator (group_key); rotated by nth, the parent's place among its operator's
 * parents, so that the parents of one operator start each at another parameter's extreme, and a
 * parent's quota, which takes a few of them, reaches each extreme alone within a few parents. */
static void schedule(const struct singles *s, const char *op, uint64_t seed, size_t nth, size_t *order)
{
	struct slot *v = xcalloc(s->n ? s->n : 1, sizeof(*v));

	for (size_t i = 0; i < s->n; i++) {
		v[i].k = s->v[i].k;
		v[i].key = group_key(seed, op, s->v[i].name);
		v[i].i = i;
	}
	qsort(v, s->n, sizeof(*v), slot_cmp);
	for (size_t i = 0; i < s->n; i++)
		order[i] = v[(i + nth) % s->n].i;
	free(v);
}

/* The parent with single x applied, as JSON. */
static cJSON *with_single(const struct instance *p, const struct single *x)
{
	cJSON *j = parent_json(p), *pj;

	if (x->input >= 0) {
		cJSON_ReplaceItemInArray(cJSON_GetObjectItemCaseSensitive(j, "inputs"), x->input,
					 cJSON_Duplicate(x->value, 1));
		return j;
	}
	pj = cJSON_GetObjectItemCaseSensitive(j, "params");
	if (!pj)
		pj = cJSON_AddObjectToObject(j, "params");
	set_member(pj, x->name, cJSON_Duplicate(x->value, 1));
	return j;
}

static void single_label(const struct single *x, char *label, size_t size)
{
	if (x->input >= 0)
		snprintf(label, size, "in:%d=%s", x->input, x->text);
	else
		snprintf(label, size, "param:%s%s=%s", x->added ? "+" : "", x->name, x->text);
}

/* A pair of singles a < b (indices), drawn. */
struct pair {
	size_t a, b;
};

/* Emit s's singles in schedule's order, and each pair of pairs right after the later of its two
 * singles: a parameter's value is tried alone before any pair that holds it. */
static void emit_scheduled(const struct instance *p, const struct singles *s, const struct pair *pairs,
			   size_t npairs, uint64_t seed, size_t nth, enum rules_dim dim, struct rules_cands *out)
{
	size_t *order = xcalloc(s->n ? s->n : 1, sizeof(*order)), *pos = xcalloc(s->n ? s->n : 1, sizeof(*pos));
	char label[512];

	schedule(s, p->op, seed, nth, order);
	for (size_t q = 0; q < s->n; q++)
		pos[order[q]] = q;
	for (size_t q = 0; q < s->n; q++) {
		const struct single *x = &s->v[order[q]];

		single_label(x, label, sizeof(label));
		emit(out, with_single(p, x), dim, label);
		for (size_t k = 0; k < npairs; k++) {
			const struct single *a = &s->v[pairs[k].a], *b = &s->v[pairs[k].b];
			size_t last = pos[pairs[k].a] > pos[pairs[k].b] ? pos[pairs[k].a] : pos[pairs[k].b];
			cJSON *j, *pj;

			if (last != q)
				continue;
			snprintf(label, sizeof(label), "pair:%s=%s,%s=%s", a->name, a->text, b->name, b->text);
			j = parent_json(p);
			pj = cJSON_GetObjectItemCaseSensitive(j, "params");
			cJSON_ReplaceItemInObjectCaseSensitive(pj, a->name, cJSON_Duplicate(a->value, 1));
			cJSON_ReplaceItemInObjectCaseSensitive(pj, b->name, cJSON_Duplicate(b->value, 1));
			emit(out, j, dim, label);
		}
	}
	free(order);
	free(pos);
}

void rules_param(const struct instance *p, const struct rules_pools *pools, uint64_t seed, size_t nth,
		 struct rules_cands *out)
{
	struct singles params = { NULL, 0, 0 };
	struct pair pairs[PAIRS];
	size_t npairs = 0, own;
	uint64_t s = rng_for(seed, p, "param");
	char name[32];

	for (size_t i = 0; i < p->nparams; i++) {
		char *ko = pool_key(p->op, p->params[i].name), *kl = pool_key(p->library, p->params[i].name);

		alternatives(p->params[i].value, p->params[i].name, pools, ko, kl,
			     !strcmp(p->library, "onnx") && flag_pool(pools, ko), &s, &params);
		free(ko);
		free(kl);
	}
	own = params.n;
	/* Pairs: two parameters changed together, drawn from the single changes. */
	if (own >= 2) {
		for (size_t tries = 0; tries < 8 * PAIRS && npairs < PAIRS; tries++) {
			size_t a = draw(&s, own), b = draw(&s, own);
			int dup = 0;

			if (!strcmp(params.v[a].name, params.v[b].name))
				continue;
			if (strcmp(params.v[a].name, params.v[b].name) > 0) {
				size_t t = a;

				a = b;
				b = t;
			}
			/* The same pair drawn twice is one candidate. */
			for (size_t k = 0; k < npairs; k++)
				dup |= pairs[k].a == a && pairs[k].b == b;
			if (!dup) {
				pairs[npairs].a = a;
				pairs[npairs++].b = b;
			}
		}
	}
	/* Parameters the parent lacks that other instances of its operator have. */
	if (pools) {
		struct strmap_entry *e = strmap_find(&pools->op_params, p->op);
		struct rules_list *names = e ? e->ptr : NULL;

		for (size_t i = 0; names && i < names->n; i++) {
			char *ko;
			struct rules_list *vals;

			if (record_param(p, names->items[i]))
				continue;
			ko = pool_key(p->op, names->items[i]);
			e = strmap_find(&pools->op_param, ko);
			vals = e ? e->ptr : NULL;
			for (size_t k = 0; vals && k < vals->n && k < ADDED_VALUES; k++) {
				cJSON *v = cJSON_Parse(vals->items[k]);
				struct buf text = BUF_INIT;

				if (!v)
					continue;
				value_text(v, &text);
				singles_add(&params, names->items[i], v, text.data);
				params.v[params.n - 1].added = 1;
				buf_release(&text);
			}
			free(ko);
		}
	}
	/* Positional inputs that are not tensors (the first VARIED_INPUTS of them). */
	for (size_t i = 0, varied = 0; i < p->ninputs && varied < VARIED_INPUTS; i++) {
		size_t from = params.n;

		if (p->inputs[i].type == V_TENSOR || p->inputs[i].type == V_STR || p->inputs[i].type == V_DTYPE)
			continue;
		varied++;
		snprintf(name, sizeof(name), "in:%zu", i);
		alternatives(&p->inputs[i], name, NULL, "", "", 0, &s, &params);
		for (size_t k = from; k < params.n; k++)
			params.v[k].input = (int)i;
	}
	emit_scheduled(p, &params, pairs, npairs, seed, nth, RULES_PARAM, out);
	singles_release(&params);
}

/* --- the type of a value ------------------------------------------------------------------------ */

/* A float's text that says it is one: "2.0", "1e-12", "inf". */
static void float_text(double d, struct buf *out)
{
	char t[40];

	if (isnan(d) || isinf(d)) {
		buf_adds(out, isnan(d) ? "nan" : d > 0 ? "inf" : "-inf");
		return;
	}
	snprintf(t, sizeof(t), "%.15g", d);
	if (strtod(t, NULL) != d)
		snprintf(t, sizeof(t), "%.17g", d);
	buf_adds(out, t);
	if (!strpbrk(t, ".e"))
		buf_adds(out, ".0");
}

/* The same value in other Python types the library may take for it (each appended to s under
 * name), most telling first: a float as an int (the nearest, but 0 made +-1, so that a parameter
 * that must be positive stays so: normalize's eps=1e-12 as eps=1), an int as a float and, when 0 or
 * 1, as a bool, a bool as an int; then a scalar as a one-element list and as a one-element tuple. */
static void retyped(const struct value *v, const char *name, struct singles *s)
{
	struct buf text = BUF_INIT, elem = BUF_INIT;
	cJSON *body;

	switch (v->type) {
	case V_FLOAT: {
		double r = nearbyint(v->u.f);

		if (!isfinite(v->u.f) || fabs(r) > EXACT)
			break;
		if (r == 0)
			r = signbit(v->u.f) ? -1 : 1;
		buf_addf(&text, "%lld", (long long)r);
		singles_add(s, name, tagged("int", cJSON_CreateNumber(r)), text.data);
		float_text(v->u.f, &elem);
		break;
	}
	case V_INT:
		if (fabs((double)v->u.i) > EXACT)
			break;
		float_text((double)v->u.i, &text);
		singles_add(s, name, tagged("float", cJSON_CreateNumber((double)v->u.i)), text.data);
		if (v->u.i == 0 || v->u.i == 1)
			singles_add(s, name, tagged("bool", cJSON_CreateBool(v->u.i)), v->u.i ? "true" : "false");
		buf_addf(&elem, "%lld", (long long)v->u.i);
		break;
	case V_BOOL:
		singles_add(s, name, tagged("int", cJSON_CreateNumber(v->u.b)), v->u.b ? "1" : "0");
		break;
	default:
		break;
	}
	if (elem.len) {
		for (int tuple = 0; tuple < 2; tuple++) {
			cJSON *a = cJSON_CreateArray();

			body = v->type == V_FLOAT ? tagged("float", float_json(v->u.f))
				: tagged("int", cJSON_CreateNumber((double)v->u.i));
			cJSON_AddItemToArray(a, body);
			buf_reset(&text);
			buf_addf(&text, tuple ? "(%s,)" : "[%s]", elem.data);
			singles_add(s, name, tagged(tuple ? "tuple" : "list", a), text.data);
		}
	}
	buf_release(&text);
	buf_release(&elem);
}

void rules_type(const struct instance *p, uint64_t seed, size_t nth, struct rules_cands *out)
{
	struct singles all = { NULL, 0, 0 };
	char name[32];

	/* ONNX's attributes and inputs are typed by the operator's schema: an int attribute given
	 * as a float is another attribute type, which the checker refuses, not another spelling. */
	if (!strcmp(p->library, "onnx"))
		return;
	for (size_t i = 0; i < p->nparams; i++)
		retyped(p->params[i].value, p->params[i].name, &all);
	for (size_t i = 0, varied = 0; i < p->ninputs && varied < VARIED_INPUTS; i++) {
		size_t from = all.n;

		if (p->inputs[i].type != V_INT && p->inputs[i].type != V_FLOAT && p->inputs[i].type != V_BOOL)
			continue;
		varied++;
		snprintf(name, sizeof(name), "in:%zu", i);
		retyped(&p->inputs[i], name, &all);
		for (size_t k = from; k < all.n; k++)
			all.v[k].input = (int)i;
	}
	emit_scheduled(p, &all, NULL, 0, seed, nth, RULES_TYPE, out);
	singles_release(&all);
}

/* --- scalar vs tensor --------------------------------------------------------------------------- */

void rules_scalar(const struct instance *p, uint64_t seed, struct rules_cands *out)
{
	struct rules_cands mine = { NULL, 0, 0, 0 };
	char label[64];

	/* An ONNX node takes tensors only: a Python number is no input of it. Nor does ONNX take a
	 * scalar and a one-element tensor alike: its spec fixes the rank of each index-like input
	 * (axes, starts, pads are 1-D; Range's bounds, Clip's min 0-d), which its reference evaluator
	 * does not check and its shape inference often cannot, so such a variant reports a runtime
	 * for keeping to the spec: 11 of the 102 bug groups of ONNX variants on ORT were such inputs
	 * (ReduceSum's axes, Slice's starts, "An axes tensor must be a vector tensor"). */
	if (!strcmp(p->library, "onnx"))
		return;
	for (size_t i = 0, varied = 0; i < p->ninputs && varied < VARIED_INPUTS; i++) {
		const struct value *v = &p->inputs[i];
		cJSON *j, *t, *vals;
		int64_t one_dim = 1;

		if (v->type == V_INT || v->type == V_FLOAT) {
			t = cJSON_CreateObject();
			cJSON_AddStringToObject(t, "dtype", v->type == V_INT ? "int64" : "float32");
			cJSON_AddItemToObject(t, "shape", cJSON_CreateArray());
			vals = cJSON_AddArrayToObject(t, "values");
			cJSON_AddItemToArray(vals, v->type == V_INT ? int_json((double)v->u.i, "int64")
					     : float_json(v->u.f));
			j = parent_json(p);
			cJSON_ReplaceItemInArray(cJSON_GetObjectItemCaseSensitive(j, "inputs"), (int)i,
						 tagged("tensor", t));
			snprintf(label, sizeof(label), "scalar:in:%zu=tensor", i);
			emit(&mine, j, RULES_SCALAR, label);
			varied++;
		} else if (v->type == V_TENSOR && !(i == 0 && !strcmp(p->kind, "method"))) {
			const cJSON *c = v->u.t.values ? cJSON_GetArrayItem(v->u.t.values, 0) : NULL;
			double lo, hi, d = c ? elem_double(c) : 0;
			char k = dtype_class(v->u.t.dtype, &lo, &hi);
			int one = 1;

			for (int r = 0; r < v->u.t.rank; r++)
				one &= v->u.t.shape[r] == 1;
			if (!one)
				continue;
			varied++;
			/* A scalar and a one-element tensor: the 0-d form becomes [1], any other the 0-d. */
			j = parent_json(p);
			set_member(tensor_of(j, i), "shape", shape_json(&one_dim, v->u.t.rank == 0));
			snprintf(label, sizeof(label), "scalar:in:%zu=%s", i, v->u.t.rank ? "0-d" : "1-element");
			emit(&mine, j, RULES_SCALAR, label);
			if (!c || !k || k == 'c')
				continue;
			if (k == 'b')
				t = tagged("bool", cJSON_CreateBool(d != 0));
			else if (k == 'i')
				t = tagged("int", cJSON_IsString(c) ? cJSON_CreateString(c->valuestring)
					   : cJSON_CreateNumber(d));
			else
				t = tagged("float", float_json(d));
			j = parent_json(p);
			cJSON_ReplaceItemInArray(cJSON_GetObjectItemCaseSensitive(j, "inputs"), (int)i, t);
			snprintf(label, sizeof(label), "tensor:in:%zu=number", i);
			emit(&mine, j, RULES_SCALAR, label);
		}
	}
	shuffle_into(out, &mine, rng_for(seed, p, "scalar"));
}

/* --- all of them -------------------------------------------------------------------------------- */

void rules_all(const struct instance *p, const struct rules_pools *pools, uint64_t seed, size_t nth,
	       struct rules_cands *out)
{
	struct rules_cands dims[RULES_NDIMS];
	size_t at[RULES_NDIMS] = { 0 };
	int more = 1;

	memset(dims, 0, sizeof(dims));
	buf_reset(&parent_text);
	record_write(p, &parent_text);
	text_of = p;
	rules_dtype(p, seed, &dims[RULES_DTYPE]);
	rules_shape(p, seed, &dims[RULES_SHAPE]);
	rules_param(p, pools, seed, nth, &dims[RULES_PARAM]);
	rules_scalar(p, seed, &dims[RULES_SCALAR]);
	rules_type(p, seed, nth, &dims[RULES_TYPE]);
	text_of = NULL;
	buf_release(&parent_text);
	while (more) {
		more = 0;
		for (int d = 0; d < RULES_NDIMS; d++)
			if (at[d] < dims[d].n) {
				if (out->n == out->cap) {
					out->cap = out->cap ? 2 * out->cap : 16;
					out->v = xrealloc(out->v, out->cap * sizeof(*out->v));
				}
				out->v[out->n++] = dims[d].v[at[d]++];
				more = 1;
			}
	}
	for (int d = 0; d < RULES_NDIMS; d++) {
		out->skipped += dims[d].skipped;
		free(dims[d].v);
	}
}

/* --- one change at a time: a failure's neighbours ---------------------------------------------- */

/* The dtypes a trigger contrasts with, most telling first: a failure of int16 that float32 and
 * int32 pass is a dtype's, and the common dtypes are those a maintainer reads at once. */
static const char *const neighbour_dtypes[] = {
	"float32", "int32", "float64", "int64", "float16", "bfloat16", "int16", "int8", "uint8", "bool",
	"complex64", "complex128", NULL,
};

static size_t dtype_rank(const char *label)
{
	const char *d = label + strlen("dtype:");
	size_t n = strcspn(d, "+"), i;

	for (i = 0; neighbour_dtypes[i]; i++)
		if (strlen(neighbour_dtypes[i]) == n && !strncmp(neighbour_dtypes[i], d, n))
			return i;
	return i;
}

/* Move c to the end of out. */
static void cand_push(struct rules_cands *out, struct rules_cand *c)
{
	if (out->n == out->cap) {
		out->cap = out->cap ? 2 * out->cap : 16;
		out->v = xrealloc(out->v, out->cap * sizeof(*out->v));
	}
	out->v[out->n++] = *c;
	memset(c, 0, sizeof(*c));
}

static void cand_drop(struct rules_cand *c)
{
	free(c->label);
	record_release(&c->in);
	memset(c, 0, sizeof(*c));
}

/* The first group's other dtypes (labels "dtype:T"), NEIGHBOUR_DTYPES of them in neighbour_dtypes'
 * order; a PyTorch module's with its weights in the dtype where vary makes that (a real model's). */
#define NEIGHBOUR_DTYPES 3
static void neighbour_dtype(const struct instance *p, struct rules_cands *out)
{
	struct rules_cands all = { NULL, 0, 0, 0 };
	size_t taken = 0;

	rules_dtype(p, 0, &all);
	for (size_t rank = 0; rank <= sizeof(neighbour_dtypes) / sizeof(neighbour_dtypes[0]); rank++) {
		for (size_t pass = 0; pass < 2; pass++)
			for (size_t i = 0; i < all.n && taken < NEIGHBOUR_DTYPES; i++) {
				struct rules_cand *c = &all.v[i];
				int weights;

				if (!c->label || strncmp(c->label, "dtype:", 6) || !strncmp(c->label, "dtype:in:", 9) ||
				    dtype_rank(c->label) != rank)
					continue;
				weights = strstr(c->label, "+weights") != NULL;
				/* The weights' form first; the plain one only when there is none. */
				if (pass == 0 && !weights)
					continue;
				cand_push(out, c);
				taken++;
				for (size_t k = 0; k < all.n; k++) {
					const char *l = all.v[k].label;

					if (l && !strncmp(l, "dtype:", 6) && strncmp(l, "dtype:in:", 9) &&
					    dtype_rank(l) == rank)
						cand_drop(&all.v[k]);
				}
			}
	}
	for (size_t i = 0; i < all.n; i++)
		cand_drop(&all.v[i]);
	free(all.v);
}

/* A smaller shape: the first input one rank less, one of its dimensions 1, then one rank more. */
static void neighbour_shape(const struct instance *p, struct rules_cands *out)
{
	static const char *const wanted[] = { "rank:-1", "dim:", "rank:+1" };
	struct rules_cands all = { NULL, 0, 0, 0 };

	rules_shape(p, 0, &all);
	for (size_t w = 0; w < sizeof(wanted) / sizeof(wanted[0]); w++)
		for (size_t i = 0; i < all.n; i++) {
			const char *l = all.v[i].label;

			if (l && !strncmp(l, wanted[w], strlen(wanted[w])) &&
			    (w != 1 || (strlen(l) > 2 && !strcmp(l + strlen(l) - 2, "=1"))))
				cand_push(out, &all.v[i]);
		}
	for (size_t i = 0; i < all.n; i++)
		cand_drop(&all.v[i]);
	free(all.v);
}

/* A value's text for a label: a scalar, or a sequence of ints as "(2,2)" or "[2,2]". */
static void short_text(const cJSON *v, struct buf *out)
{
	const cJSON *b = v ? v->child : NULL, *c;
	int first = 1;

	if (!b || (strcmp(b->string, "tuple") && strcmp(b->string, "list")) || !cJSON_IsArray(b)) {
		value_text(v, out);
		return;
	}
	buf_addc(out, !strcmp(b->string, "tuple") ? '(' : '[');
	cJSON_ArrayForEach(c, b) {
		const cJSON *n = cJSON_GetObjectItemCaseSensitive(c, "int");

		if (!cJSON_IsNumber(n)) {
			buf_reset(out);
			value_text(v, out);
			return;
		}
		buf_addf(out, "%s%lld", first ? "" : ",", (long long)n->valuedouble);
		first = 0;
	}
	buf_addc(out, !strcmp(b->string, "tuple") ? ')' : ']');
}

/* Each parameter at its default (left out: "param:-NAME") and at the value the corpus shows most
 * often for it ("param:NAME=V"), when that is not the parent's. */
static void neighbour_param(const struct instance *p, const struct rules_pools *pools, struct rules_cands *out)
{
	struct buf cur = BUF_INIT, text = BUF_INIT;
	char label[512];

	for (size_t i = 0; i < p->nparams; i++) {
		const char *name = p->params[i].name;
		char *ko = pool_key(p->op, name);
		struct strmap_entry *e = pools ? strmap_find(&pools->op_param, ko) : NULL;
		struct rules_list *l = e ? e->ptr : NULL;
		size_t best = 0;
		cJSON *j = parent_json(p);

		cJSON_DeleteItemFromObjectCaseSensitive(cJSON_GetObjectItemCaseSensitive(j, "params"), name);
		snprintf(label, sizeof(label), "param:-%s", name);
		emit(out, j, RULES_PARAM, label);
		buf_reset(&cur);
		value_canonical(p->params[i].value, &cur);
		for (size_t k = 1; l && k < l->n; k++)
			if (l->counts[k] > l->counts[best])
				best = k;
		if (l && l->n && strcmp(l->items[best], cur.data)) {
			cJSON *v = cJSON_Parse(l->items[best]);

			if (v) {
				j = parent_json(p);
				cJSON_ReplaceItemInObjectCaseSensitive(cJSON_GetObjectItemCaseSensitive(j, "params"),
								       name, v);
				buf_reset(&text);
				short_text(v, &text);
				snprintf(label, sizeof(label), "param:%s=%s", name, text.data ? text.data : "");
				emit(out, j, RULES_PARAM, label);
			}
		}
		free(ko);
	}
	buf_release(&cur);
	buf_release(&text);
}

void rules_neighbours(const struct instance *p, const struct rules_pools *pools, struct rules_cands *out)
{
	struct rules_cands dims[3];
	size_t at[3] = { 0 };
	int more = 1;

	memset(dims, 0, sizeof(dims));
	buf_reset(&parent_text);
	record_write(p, &parent_text);
	text_of = p;
	neighbour_dtype(p, &dims[0]);
	neighbour_param(p, pools, &dims[1]);
	neighbour_shape(p, &dims[2]);
	text_of = NULL;
	buf_release(&parent_text);
	while (more) {
		more = 0;
		for (int d = 0; d < 3; d++)
			if (at[d] < dims[d].n) {
				cand_push(out, &dims[d].v[at[d]++]);
				more = 1;
			}
	}
	for (int d = 0; d < 3; d++)
		free(dims[d].v);
}

/* --- pools -------------------------------------------------------------------------------------- */

void rules_pools_init(struct rules_pools *p)
{
	memset(p, 0, sizeof(*p));
}

static void list_add(struct strmap *m, const char *key, const char *item)
{
	struct strmap_entry *e = strmap_get(m, key, NULL);
	struct rules_list *l = e->ptr;

	if (!l)
		l = e->ptr = xcalloc(1, sizeof(*l));
	for (size_t i = 0; i < l->n; i++)
		if (!strcmp(l->items[i], item)) {
			l->counts[i]++;
			return;
		}
	if (l->n >= POOL_CAP)
		return;
	l->items = xrealloc(l->items, (l->n + 1) * sizeof(*l->items));
	l->counts = xrealloc(l->counts, (l->n + 1) * sizeof(*l->counts));
	l->counts[l->n] = 1;
	l->items[l->n++] = xstrdup(item);
}

void rules_pools_add(struct rules_pools *p, const struct instance *in)
{
	struct buf b = BUF_INIT;

	for (size_t i = 0; i < in->nparams; i++) {
		const struct value *v = in->params[i].value;
		char *ko = pool_key(in->op, in->params[i].name);

		buf_reset(&b);
		value_canonical(v, &b);
		/* A tensor or a graph is no value to add to another instance; an opaque one cannot be. */
		if (v->type != V_TENSOR && v->type != V_GRAPH && v->type != V_OPAQUE && b.len < 256) {
			list_add(&p->op_param, ko, b.data);
			list_add(&p->op_params, in->op, in->params[i].name);
		}
		if (v->type == V_STR || v->type == V_DTYPE) {
			char *kl = pool_key(in->library, in->params[i].name);

			list_add(&p->lib_param, kl, b.data);
			free(kl);
		}
		free(ko);
	}
	buf_release(&b);
}

static void lists_release(struct strmap *m)
{
	for (size_t i = 0; i < m->cap; i++) {
		struct rules_list *l = m->slots[i].key ? m->slots[i].ptr : NULL;

		if (!l)
			continue;
		for (size_t k = 0; k < l->n; k++)
			free(l->items[k]);
		free(l->items);
		free(l->counts);
		free(l);
	}
	strmap_release(m);
}

void rules_pools_release(struct rules_pools *p)
{
	lists_release(&p->op_param);
	lists_release(&p->lib_param);
	lists_release(&p->op_params);
}
