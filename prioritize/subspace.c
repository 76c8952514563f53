/* subspace.c: values to subspace codes. */
#include "subspace.h"
#include "intern.h"
#include "xalloc.h"

#include <cjson/cJSON.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <xxhash.h>

/* Tokens that start each kind of description, so that an int 0 and a float 0.0 differ. */
enum {
	T_NONE = 0x100, T_BOOL, T_INT, T_FLOAT, T_STR, T_DTYPE, T_LIST, T_TUPLE, T_DICT, T_TENSOR,
	T_CALLABLE, T_OPAQUE, T_GRAPH, T_VALUES, T_END,
};

#define MAX_ITEMS 6        /* list items and tensor dimensions described one by one */
#define MAX_VALUES 8       /* kept tensor values described one by one */
#define RANK_CLASSES 6     /* 0..5, and 6 for ">5" */

static uint64_t mix(uint64_t h, uint64_t token)
{
	return intern_mix(h ^ token);
}

static uint64_t str_token(const char *s)
{
	return XXH3_64bits(s, strlen(s));
}

enum subspace_int subspace_int_class(int64_t i)
{
	if (i < -1)
		return SUB_INT_LT_M1;
	if (i > 1)
		return SUB_INT_GT_1;
	return i == -1 ? SUB_INT_M1 : i == 0 ? SUB_INT_0 : SUB_INT_1;
}

enum subspace_float subspace_float_class(double d)
{
	if (isnan(d))
		return SUB_F_NAN;
	if (isinf(d))
		return d > 0 ? SUB_F_INF : SUB_F_NINF;
	if (d == 0)
		return SUB_F_ZERO;
	return d > 0 ? SUB_F_POS : SUB_F_NEG;
}

static uint64_t size_class(size_t n)
{
	return n < RANK_CLASSES ? n : RANK_CLASSES;
}

/* One kept tensor value: a JSON number, a bool, or a string for nan/inf and integers beyond 2^53. */
static uint64_t json_value_code(uint64_t h, const cJSON *j)
{
	if (cJSON_IsBool(j))
		return mix(mix(h, T_BOOL), cJSON_IsTrue(j));
	if (cJSON_IsNumber(j)) {
		double d = j->valuedouble;

		if (d == floor(d) && fabs(d) < 9007199254740992.0)
			return mix(mix(h, T_INT), subspace_int_class((int64_t)d));
		return mix(mix(h, T_FLOAT), subspace_float_class(d));
	}
	if (cJSON_IsString(j)) {
		const char *s = j->valuestring;

		if (!strcmp(s, "nan"))
			return mix(mix(h, T_FLOAT), SUB_F_NAN);
		if (!strcmp(s, "inf"))
			return mix(mix(h, T_FLOAT), SUB_F_INF);
		if (!strcmp(s, "-inf"))
			return mix(mix(h, T_FLOAT), SUB_F_NINF);
		/* A decimal string: an integer too large for a double, so its class is its sign. */
		return mix(mix(h, T_INT), s[0] == '-' ? SUB_INT_LT_M1 : SUB_INT_GT_1);
	}
	return mix(h, T_NONE);
}

static uint64_t tensor_code(uint64_t h, const struct tensor *t)
{
	h = mix(mix(h, T_TENSOR), str_token(t->dtype ? t->dtype : ""));
	h = mix(h, size_class((size_t)t->rank));
	for (int d = 0; d < t->rank && d < MAX_ITEMS; d++)
		h = mix(h, t->shape[d] == TENSOR_DIM_UNKNOWN ? SUB_INT_NONE : subspace_int_class(t->shape[d]));
	if (t->values && cJSON_IsArray(t->values)) {
		int n = cJSON_GetArraySize(t->values);

		if (n <= MAX_VALUES) {
			const cJSON *c;

			h = mix(h, T_VALUES);
			cJSON_ArrayForEach(c, t->values)
				h = json_value_code(h, c);
		}
	}
	return mix(h, T_END);
}

static uint64_t value_code(uint64_t h, const struct value *v)
{
	switch (v->type) {
	case V_NONE:
		return mix(h, T_NONE);
	case V_BOOL:
		return mix(mix(h, T_BOOL), v->u.b);
	case V_INT:
		return mix(mix(h, T_INT), subspace_int_class(v->u.i));
	case V_FLOAT:
		return mix(mix(h, T_FLOAT), subspace_float_class(v->u.f));
	case V_STR:
		return mix(mix(h, T_STR), str_token(v->u.s));
	case V_DTYPE:
		return mix(mix(h, T_DTYPE), str_token(v->u.s));
	case V_CALLABLE:
		return mix(mix(h, T_CALLABLE), str_token(v->u.s));
	case V_OPAQUE:
		return mix(h, T_OPAQUE);
	case V_GRAPH:
		return mix(mix(h, T_GRAPH), str_token(v->u.graph.format ? v->u.graph.format : ""));
	case V_LIST:
	case V_TUPLE:
		h = mix(mix(h, v->type == V_LIST ? T_LIST : T_TUPLE), size_class(v->u.seq.n));
		for (size_t i = 0; i < v->u.seq.n && i < MAX_ITEMS; i++)
			h = value_code(h, &v->u.seq.items[i]);
		return mix(h, T_END);
	case V_DICT:
		h = mix(h, T_DICT);
		for (size_t i = 0; i < v->u.dict.n; i++)
			h = value_code(mix(h, str_token(v->u.dict.fields[i].name)), v->u.dict.fields[i].value);
		return mix(h, T_END);
	case V_TENSOR:
		return tensor_code(h, &v->u.t);
	}
	return mix(h, T_OPAQUE);
}

uint64_t subspace_code(const struct value *v)
{
	return value_code(0, v);
}

/* --- rows ------------------------------------------------------------------------------------- */

void subspace_row_init(struct subspace_row *r)
{
	struct subspace_row zero = SUBSPACE_ROW_INIT;

	*r = zero;
}

void subspace_row_release(struct subspace_row *r)
{
	free(r->p);
	free(r->inames);
	subspace_row_init(r);
}

void subspace_row_fill(struct subspace_row *r, const struct instance *in)
{
	size_t n = in->nparams + in->ninputs;

	XGROW(r->p, r->cap, n);
	if (in->ninputs > r->icap) {
		size_t old = r->icap;

		XGROW(r->inames, r->icap, in->ninputs);
		for (size_t i = old; i < r->icap; i++)
			snprintf(r->inames[i], sizeof(r->inames[i]), "inputs[%zu]", i);
	}
	r->n = 0;
	for (size_t i = 0; i < in->nparams; i++) {
		struct subspace_param *p = &r->p[r->n++];

		p->name = in->params[i].name;
		p->len = strlen(p->name);
		p->code = subspace_code(in->params[i].value);
	}
	for (size_t i = 0; i < in->ninputs; i++) {
		struct subspace_param *p = &r->p[r->n++];

		p->name = r->inames[i];
		p->len = strlen(p->name);
		p->code = subspace_code(&in->inputs[i]);
	}
}
