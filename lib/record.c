/* record.c: the operator instance: parsing and validation, canonical form, id. */
#include "record.h"
#include "xalloc.h"

#include <cjson/cJSON.h>
#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <xxhash.h>

/* Doubles hold every integer up to 2^53 exactly; beyond that a JSON number may already have lost
 * digits, so the record spells such integers as strings. The same bound in both types: the writer
 * must compare integers as integers, since (double)(2^53 + 1) rounds down to 2^53 and would pass. */
#define EXACT_INT_LIMIT 9007199254740992.0
#define EXACT_INT_MAX (INT64_C(1) << 53)

static const char *const vtype_names[] = {
	[V_NONE] = "none", [V_BOOL] = "bool", [V_INT] = "int", [V_FLOAT] = "float", [V_STR] = "str",
	[V_DTYPE] = "dtype", [V_LIST] = "list", [V_TUPLE] = "tuple", [V_DICT] = "dict",
	[V_TENSOR] = "tensor", [V_CALLABLE] = "callable", [V_OPAQUE] = "opaque", [V_GRAPH] = "graph",
};

#define N_VTYPES (sizeof(vtype_names) / sizeof(vtype_names[0]))

const char *vtype_name(enum vtype t)
{
	return (unsigned)t < N_VTYPES ? vtype_names[t] : "?";
}

void record_init(struct instance *in)
{
	struct instance zero = INSTANCE_INIT;

	*in = zero;
}

static void fields_release(struct field *f, size_t n)
{
	for (size_t i = 0; i < n; i++) {
		free(f[i].name);
		value_release(f[i].value);
		free(f[i].value);
	}
	free(f);
}

static void values_release(struct value *v, size_t n)
{
	for (size_t i = 0; i < n; i++)
		value_release(&v[i]);
	free(v);
}

void value_release(struct value *v)
{
	if (!v)
		return;
	switch (v->type) {
	case V_STR: case V_DTYPE: case V_CALLABLE: case V_OPAQUE:
		free(v->u.s);
		break;
	case V_LIST: case V_TUPLE:
		values_release(v->u.seq.items, v->u.seq.n);
		break;
	case V_DICT:
		fields_release(v->u.dict.fields, v->u.dict.n);
		break;
	case V_TENSOR:
		free(v->u.t.dtype);
		free(v->u.t.shape);
		cJSON_Delete(v->u.t.values);
		break;
	case V_GRAPH:
		free(v->u.graph.format);
		free(v->u.graph.data);
		break;
	default:
		break;
	}
	v->type = V_NONE;
}

void record_release(struct instance *in)
{
	free(in->library);
	free(in->library_version);
	free(in->op);
	free(in->kind);
	fields_release(in->context, in->ncontext);
	fields_release(in->params, in->nparams);
	values_release(in->inputs, in->ninputs);
	values_release(in->outputs, in->noutputs);
	cJSON_Delete(in->extra);
	free(in->graph);
	record_init(in);
}

/* --- parsing ---------------------------------------------------------------------------------- */

/* The path of the member being parsed ("params.kernel_shape[1]"), for error messages. */
struct path {
	char s[256];
	size_t len;
};

static size_t path_push(struct path *p, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

static size_t path_push(struct path *p, const char *fmt, ...)
{
	size_t old = p->len;
	va_list ap;
	int n;

	va_start(ap, fmt);
	n = vsnprintf(p->s + p->len, sizeof(p->s) - p->len, fmt, ap);
	va_end(ap);
	if (n > 0)
		p->len += (size_t)n < sizeof(p->s) - p->len ? (size_t)n : sizeof(p->s) - p->len - 1;
	return old;
}

static void path_pop(struct path *p, size_t old)
{
	p->len = old;
	p->s[old] = '\0';
}

static int bad(struct err *e, const struct path *p, const char *fmt, ...) __attribute__((format(printf, 3, 4)));

static int bad(struct err *e, const struct path *p, const char *fmt, ...)
{
	char what[512];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(what, sizeof(what), fmt, ap);
	va_end(ap);
	return err_set(e, EXIT_INPUT, "%s: %s", p->s, what);
}

static const char *json_kind(const cJSON *j)
{
	if (cJSON_IsNull(j)) return "null";
	if (cJSON_IsBool(j)) return "a boolean";
	if (cJSON_IsNumber(j)) return "a number";
	if (cJSON_IsString(j)) return "a string";
	if (cJSON_IsArray(j)) return "an array";
	if (cJSON_IsObject(j)) return "an object";
	return "nothing";
}

/* An integer: a JSON number that is whole and exact, or a decimal string. */
static int parse_int(const cJSON *j, int64_t *out, struct err *e, const struct path *p)
{
	if (cJSON_IsNumber(j)) {
		double d = j->valuedouble;

		if (d != floor(d) || fabs(d) > EXACT_INT_LIMIT)
			return bad(e, p, "%.17g is not an exact integer (write integers beyond 2^53 as strings)", d);
		*out = (int64_t)d;
		return 0;
	}
	if (cJSON_IsString(j)) {
		const char *s = j->valuestring;
		char *end;
		long long v;

		errno = 0;
		v = strtoll(s, &end, 10);
		if (!*s || *end || (errno && errno != ERANGE))
			return bad(e, p, "'%s' is not an integer", s);
		if (errno == ERANGE)
			return bad(e, p, "'%s' is out of the range of a 64-bit integer", s);
		*out = v;
		return 0;
	}
	return bad(e, p, "expected an integer, got %s", json_kind(j));
}

static int parse_float(const cJSON *j, double *out, struct err *e, const struct path *p)
{
	if (cJSON_IsNumber(j)) {
		*out = j->valuedouble;
		return 0;
	}
	if (cJSON_IsString(j)) {
		const char *s = j->valuestring;

		if (!strcmp(s, "nan")) *out = NAN;
		else if (!strcmp(s, "inf")) *out = INFINITY;
		else if (!strcmp(s, "-inf")) *out = -INFINITY;
		else return bad(e, p,
			"'%s' is not a float (only \"nan\", \"inf\" and \"-inf\" are spelled as strings)", s);
		return 0;
	}
	return bad(e, p, "expected a float, got %s", json_kind(j));
}

static int parse_string(const cJSON *j, char **out, struct err *e, const struct path *p)
{
	if (!cJSON_IsString(j))
		return bad(e, p, "expected a string, got %s", json_kind(j));
	*out = xstrdup(j->valuestring);
	return 0;
}

static int parse_value(const cJSON *j, struct value *v, bool *opaque, struct err *e, struct path *p);

static int name_cmp(const void *a, const void *b)
{
	return strcmp(*(const char *const *)a, *(const char *const *)b);
}

/* The name of a member that appears twice in object j, or NULL. cJSON keeps both and its lookups
 * return the first, so a second "dtype" or "params" would otherwise be read by one part of ferry and
 * ignored by another; in the identity that makes two different texts one id. Sorting keeps this
 * O(n log n) for an object of many members. */
static const char *duplicate_member(const cJSON *j)
{
	const char **names, *dup = NULL;
	const cJSON *c;
	size_t n = 0, i = 0;

	cJSON_ArrayForEach(c, j)
		n++;
	if (n < 2)
		return NULL;
	names = xcalloc(n, sizeof(*names));
	cJSON_ArrayForEach(c, j)
		names[i++] = c->string;
	qsort(names, n, sizeof(*names), name_cmp);
	for (i = 1; i < n && !dup; i++)
		if (!strcmp(names[i - 1], names[i]))
			dup = names[i];
	free(names);
	return dup;
}

static int field_cmp(const void *a, const void *b)
{
	return strcmp(((const struct field *)a)->name, ((const struct field *)b)->name);
}

/* A JSON object of name -> tagged value, sorted by name. */
static int parse_fields(const cJSON *j, struct field **out, size_t *nout, bool *opaque,
			struct err *e, struct path *p)
{
	struct field *f;
	size_t n = 0, i = 0;
	const cJSON *c;

	if (!cJSON_IsObject(j))
		return bad(e, p, "expected an object, got %s", json_kind(j));
	cJSON_ArrayForEach(c, j)
		n++;
	f = xcalloc(n, sizeof(*f));
	cJSON_ArrayForEach(c, j) {
		size_t mark = path_push(p, ".%s", c->string);

		f[i].name = xstrdup(c->string);
		f[i].value = xcalloc(1, sizeof(struct value));
		i++;
		if (parse_value(c, f[i - 1].value, opaque, e, p) < 0) {
			fields_release(f, i);
			return -1;
		}
		path_pop(p, mark);
	}
	qsort(f, n, sizeof(*f), field_cmp);
	for (i = 1; i < n; i++)
		if (!strcmp(f[i - 1].name, f[i].name)) {
			bad(e, p, "member '%s' appears twice", f[i].name);
			fields_release(f, n);
			return -1;
		}
	*out = f;
	*nout = n;
	return 0;
}

static int parse_values(const cJSON *j, struct value **out, size_t *nout, bool *opaque,
			struct err *e, struct path *p)
{
	struct value *v;
	size_t n, i = 0;
	const cJSON *c;

	if (!cJSON_IsArray(j))
		return bad(e, p, "expected an array, got %s", json_kind(j));
	n = (size_t)cJSON_GetArraySize(j);
	v = xcalloc(n, sizeof(*v));
	cJSON_ArrayForEach(c, j) {
		size_t mark = path_push(p, "[%zu]", i);

		if (parse_value(c, &v[i], opaque, e, p) < 0) {
			values_release(v, i);
			return -1;
		}
		i++;
		path_pop(p, mark);
	}
	*out = v;
	*nout = n;
	return 0;
}

/* A dimension: null (unknown until run time) or a whole number from 0 to 2^53. The bound is checked on
 * the double, before any conversion: casting 1e19 to int64_t is undefined behaviour, and in practice
 * gave INT64_MIN, the unknown marker. */
static int parse_dim(const cJSON *c, int i, int64_t *out, struct err *e, const struct path *p)
{
	double d;

	if (cJSON_IsNull(c)) {
		*out = TENSOR_DIM_UNKNOWN;
		return 0;
	}
	if (!cJSON_IsNumber(c))
		return bad(e, p, "shape[%d] is %s; a dimension is a non-negative integer or null (unknown)",
			   i, json_kind(c));
	d = c->valuedouble;
	if (d != floor(d) || d < 0 || d > EXACT_INT_LIMIT)
		return bad(e, p, "shape[%d] is %.17g; a dimension is an integer from 0 to 2^53 or null (unknown)",
			   i, d);
	*out = (int64_t)d;
	return 0;
}

static int parse_tensor(const cJSON *j, struct tensor *t, struct err *e, struct path *p)
{
	const cJSON *c, *shape, *values, *range;
	const char *dup;
	int i = 0;

	if (!cJSON_IsObject(j))
		return bad(e, p, "expected an object with dtype and shape, got %s", json_kind(j));
	cJSON_ArrayForEach(c, j)
		if (strcmp(c->string, "dtype") && strcmp(c->string, "shape") &&
		    strcmp(c->string, "values") && strcmp(c->string, "range"))
			return bad(e, p, "unknown tensor member '%s'", c->string);
	if ((dup = duplicate_member(j)))
		return bad(e, p, "tensor member '%s' appears twice", dup);
	c = cJSON_GetObjectItemCaseSensitive(j, "dtype");
	if (!cJSON_IsString(c) || !*c->valuestring)
		return bad(e, p, "a tensor needs a dtype string");
	shape = cJSON_GetObjectItemCaseSensitive(j, "shape");
	if (!cJSON_IsArray(shape))
		return bad(e, p, "a tensor needs a shape array");
	t->rank = cJSON_GetArraySize(shape);
	t->shape = xcalloc((size_t)t->rank, sizeof(int64_t));
	t->dtype = xstrdup(c->valuestring);
	cJSON_ArrayForEach(c, shape) {
		if (parse_dim(c, i, &t->shape[i], e, p) < 0)
			return -1;
		i++;
	}
	values = cJSON_GetObjectItemCaseSensitive(j, "values");
	if (values) {
		if (!cJSON_IsArray(values))
			return bad(e, p, "tensor values must be a flat array");
		i = 0;
		cJSON_ArrayForEach(c, values) {
			if (!cJSON_IsNumber(c) && !cJSON_IsString(c) && !cJSON_IsBool(c))
				return bad(e, p, "values[%d] is %s; tensor values are a flat array of numbers, strings "
					   "and booleans", i, json_kind(c));
			i++;
		}
		t->values = cJSON_Duplicate(values, 1);
	}
	range = cJSON_GetObjectItemCaseSensitive(j, "range");
	if (range) {
		if (!cJSON_IsArray(range) || cJSON_GetArraySize(range) != 2)
			return bad(e, p, "tensor range must be [lo, hi]");
		if (parse_float(cJSON_GetArrayItem(range, 0), &t->range[0], e, p) < 0 ||
		    parse_float(cJSON_GetArrayItem(range, 1), &t->range[1], e, p) < 0)
			return -1;
		t->has_range = true;
	}
	return 0;
}

static int parse_value(const cJSON *j, struct value *v, bool *opaque, struct err *e, struct path *p)
{
	const cJSON *body;
	size_t t;

	v->type = V_NONE;
	if (!cJSON_IsObject(j) || !j->child || j->child->next)
		return bad(e, p,
			"expected a tagged value (an object with exactly one member such as {\"int\": 3}), got %s",
			   json_kind(j));
	body = j->child;
	for (t = 0; t < N_VTYPES; t++)
		if (!strcmp(body->string, vtype_names[t]))
			break;
	if (t == N_VTYPES)
		return bad(e, p, "unknown value type '%s'", body->string);
	switch ((enum vtype)t) {
	case V_NONE:
		if (!cJSON_IsNull(body))
			return bad(e, p, "none takes null");
		return 0;
	case V_BOOL:
		if (!cJSON_IsBool(body))
			return bad(e, p, "expected true or false, got %s", json_kind(body));
		v->u.b = cJSON_IsTrue(body);
		break;
	case V_INT:
		if (parse_int(body, &v->u.i, e, p) < 0)
			return -1;
		break;
	case V_FLOAT:
		if (parse_float(body, &v->u.f, e, p) < 0)
			return -1;
		break;
	case V_STR: case V_DTYPE: case V_CALLABLE: case V_OPAQUE:
		if (parse_string(body, &v->u.s, e, p) < 0)
			return -1;
		if (t == V_OPAQUE)
			*opaque = true;
		break;
	case V_LIST: case V_TUPLE:
		if (parse_values(body, &v->u.seq.items, &v->u.seq.n, opaque, e, p) < 0)
			return -1;
		break;
	case V_DICT:
		if (parse_fields(body, &v->u.dict.fields, &v->u.dict.n, opaque, e, p) < 0)
			return -1;
		break;
	case V_TENSOR:
		v->type = V_TENSOR;
		if (parse_tensor(body, &v->u.t, e, p) < 0) {
			value_release(v);
			return -1;
		}
		return 0;
	case V_GRAPH: {
		const cJSON *f = cJSON_GetObjectItemCaseSensitive(body, "format");
		const cJSON *d = cJSON_GetObjectItemCaseSensitive(body, "data");
		const cJSON *c;
		const char *dup;

		/* Only format and data are hashed: any other member, or a second copy of one, would be
		 * dropped from the canonical form, and two different graphs would share an id. */
		if (!cJSON_IsObject(body) || !cJSON_IsString(f) || !cJSON_IsString(d))
			return bad(e, p, "a graph needs format and data strings");
		cJSON_ArrayForEach(c, body)
			if (strcmp(c->string, "format") && strcmp(c->string, "data"))
				return bad(e, p, "unknown graph member '%s'", c->string);
		if ((dup = duplicate_member(body)))
			return bad(e, p, "graph member '%s' appears twice", dup);
		v->u.graph.format = xstrdup(f->valuestring);
		v->u.graph.data = xstrdup(d->valuestring);
		break;
	}
	}
	v->type = (enum vtype)t;
	return 0;
}

void record_hash(struct instance *in)
{
	struct buf b = BUF_INIT;
	XXH128_hash_t h;

	record_canonical(in, &b);
	h = XXH3_128bits(b.data, b.len);
	snprintf(in->id, sizeof(in->id), "%016llx%016llx",
		 (unsigned long long)h.high64, (unsigned long long)h.low64);
	buf_release(&b);
}

int record_from_json(struct instance *in, const cJSON *obj, struct err *e)
{
	struct path p = { "", 0 };
	const cJSON *c;
	const char *dup;
	bool opaque = false;

	record_init(in);
	if (!cJSON_IsObject(obj))
		return err_set(e, EXIT_INPUT, "an instance must be a JSON object, got %s", json_kind(obj));
	/* Checked before anything is parsed: a second "params" would otherwise replace the first (leaking
	 * it) and a second annotation would be written back twice. */
	if ((dup = duplicate_member(obj)))
		return err_set(e, EXIT_INPUT, "member '%s' appears twice", dup);
	cJSON_ArrayForEach(c, obj) {
		size_t mark = path_push(&p, "%s", c->string ? c->string : "?");
		int r = 0;

		if (!strcmp(c->string, "library"))
			r = parse_string(c, &in->library, e, &p);
		else if (!strcmp(c->string, "op"))
			r = parse_string(c, &in->op, e, &p);
		else if (!strcmp(c->string, "kind"))
			r = parse_string(c, &in->kind, e, &p);
		else if (!strcmp(c->string, "library_version"))
			r = parse_string(c, &in->library_version, e, &p);
		else if (!strcmp(c->string, "context"))
			r = parse_fields(c, &in->context, &in->ncontext, &opaque, e, &p);
		else if (!strcmp(c->string, "params"))
			r = parse_fields(c, &in->params, &in->nparams, &opaque, e, &p);
		else if (!strcmp(c->string, "inputs"))
			r = parse_values(c, &in->inputs, &in->ninputs, &opaque, e, &p);
		else if (!strcmp(c->string, "outputs"))
			r = parse_values(c, &in->outputs, &in->noutputs, &opaque, e, &p);
		else if (!strcmp(c->string, "graph")) {
			struct buf g = BUF_INIT;

			if (!cJSON_IsObject(c))
				r = bad(e, &p, "expected an object, got %s", json_kind(c));
			else if ((r = json_canonical(c, &g, e)) < 0)
				err_prefix(e, "graph");
			else
				in->graph = buf_detach(&g);
			buf_release(&g);
		} else if (strcmp(c->string, "id")) {
			/* An annotation: carried, not hashed. */
			if (!in->extra)
				in->extra = cJSON_CreateObject();
			cJSON_AddItemToObject(in->extra, c->string, cJSON_Duplicate(c, 1));
		}
		if (r < 0)
			goto fail;
		path_pop(&p, mark);
	}
	if (!in->library || !*in->library) {
		err_set(e, EXIT_INPUT, "missing member 'library'");
		goto fail;
	}
	if (!in->op || !*in->op) {
		err_set(e, EXIT_INPUT, "missing member 'op'");
		goto fail;
	}
	if (!in->kind)
		in->kind = xstrdup("");
	in->unmigratable = opaque;
	record_hash(in);
	return 0;
fail:
	record_release(in);
	return -1;
}

#if JSON_MAX_DEPTH >= CJSON_NESTING_LIMIT
#error "JSON_MAX_DEPTH must be below cJSON's nesting limit, so that a deep line is always named as such"
#endif

/* One pass over JSON text that skips strings: the first column where it goes deeper than
 * JSON_MAX_DEPTH levels (or 0), and whether it ends inside a string or an open bracket. Exact for
 * well-formed text; for other text a best guess. */
struct json_shape {
	size_t deep_at;
	int open;
};

static struct json_shape json_shape(const char *text, size_t len)
{
	struct json_shape sh = { 0, 0 };
	int depth = 0, in_string = 0;

	for (size_t i = 0; i < len; i++) {
		char c = text[i];

		if (in_string) {
			if (c == '\\')
				i++;
			else if (c == '"')
				in_string = 0;
		} else if (c == '"') {
			in_string = 1;
		} else if (c == '{' || c == '[') {
			if (++depth > JSON_MAX_DEPTH && !sh.deep_at)
				sh.deep_at = i + 1;
		} else if (c == '}' || c == ']') {
			depth--;
		}
	}
	sh.open = in_string || depth > 0;
	return sh;
}

static int too_deep(struct err *e, size_t column)
{
	return err_set(e, EXIT_INPUT, "JSON nested too deep at column %zu (more than %d levels)",
		       column, JSON_MAX_DEPTH);
}

int json_parse_text(const char *text, size_t len, cJSON **out, struct err *e)
{
	const char *end = NULL;
	cJSON *j = cJSON_ParseWithLengthOpts(text, len, &end, 0);
	size_t deep;

	*out = NULL;
	if (!j)
		return json_parse_error(e, text, len, end);
	/* cJSON stops after the first value: "{...}{...}", two records whose newline was lost, would
	 * otherwise read as the first alone. */
	while (end < text + len && (*end == ' ' || *end == '\t' || *end == '\r' || *end == '\n'))
		end++;
	if (end < text + len) {
		cJSON_Delete(j);
		return err_set(e, EXIT_INPUT, "malformed JSON at column %zu (text after the value)",
			       (size_t)(end - text) + 1);
	}
	if ((deep = json_shape(text, len).deep_at)) {
		cJSON_Delete(j);
		return too_deep(e, deep);
	}
	*out = j;
	return 0;
}

int record_parse(struct instance *in, const char *text, size_t len, struct err *e)
{
	cJSON *j;
	int r;

	if (json_parse_text(text, len, &j, e) < 0) {
		record_init(in);
		return -1;
	}
	r = record_from_json(in, j, e);
	cJSON_Delete(j);
	return r;
}

/* A line cut short (a write interrupted, a file truncated) leaves brackets or a string open; say so,
 * since "malformed at column N" would send the user looking for a typo. cJSON also gives up past
 * CJSON_NESTING_LIMIT levels, where the text may be well formed: that is "too deep", as it is past
 * JSON_MAX_DEPTH when cJSON succeeds. */
int json_parse_error(struct err *e, const char *text, size_t len, const char *end)
{
	struct json_shape sh = json_shape(text, len);

	/* cJSON stops at the bracket that goes too deep, unless the text went wrong before it. */
	if (sh.deep_at && (!end || end >= text + sh.deep_at - 1))
		return too_deep(e, sh.deep_at);
	if (sh.open)
		return err_set(e, EXIT_INPUT, "truncated JSON (the line ends inside a value)");
	return err_set(e, EXIT_INPUT, "malformed JSON at column %zu",
		       end && end >= text ? (size_t)(end - text) + 1 : (size_t)1);
}

/* --- canonical form ----------------------------------------------------------------------------- */

void json_add_double(struct buf *out, double d)
{
	char tmp[40];

	if (isnan(d)) {
		buf_adds(out, "\"nan\"");
		return;
	}
	if (isinf(d)) {
		buf_adds(out, d > 0 ? "\"inf\"" : "\"-inf\"");
		return;
	}
	/* Whole numbers (shapes, indices, most tensor values) print exactly as integers; %.0f gives the
	 * same digits as the loop below would, without its formatting and re-parsing. */
	if (d == floor(d) && fabs(d) < 1e15) {
		buf_addf(out, "%.0f", d);
		return;
	}
	/* %g drops trailing zeros, so the first precision that reads back is the shortest form. */
	for (int prec = 15; prec <= 17; prec++) {
		snprintf(tmp, sizeof(tmp), "%.*g", prec, d);
		if (prec == 17 || strtod(tmp, NULL) == d)
			break;
	}
	buf_adds(out, tmp);
}

static void add_int(struct buf *out, int64_t i)
{
	if (i > EXACT_INT_MAX || i < -EXACT_INT_MAX)
		buf_addf(out, "\"%lld\"", (long long)i);
	else
		buf_addf(out, "%lld", (long long)i);
}

static void fields_canonical(const struct field *f, size_t n, struct buf *out)
{
	buf_addc(out, '{');
	for (size_t i = 0; i < n; i++) {
		if (i)
			buf_addc(out, ',');
		buf_add_json_string(out, f[i].name);
		buf_addc(out, ':');
		value_canonical(f[i].value, out);
	}
	buf_addc(out, '}');
}

static void values_canonical(const struct value *v, size_t n, struct buf *out)
{
	buf_addc(out, '[');
	for (size_t i = 0; i < n; i++) {
		if (i)
			buf_addc(out, ',');
		value_canonical(&v[i], out);
	}
	buf_addc(out, ']');
}

static void raw_canonical(const cJSON *j, struct buf *out)
{
	if (cJSON_IsNumber(j))
		json_add_double(out, j->valuedouble);
	else if (cJSON_IsString(j))
		buf_add_json_string(out, j->valuestring);
	else if (cJSON_IsBool(j))
		buf_adds(out, cJSON_IsTrue(j) ? "true" : "false");
	else
		buf_adds(out, "null");
}

static int member_cmp(const void *a, const void *b)
{
	return strcmp((*(const cJSON *const *)a)->string, (*(const cJSON *const *)b)->string);
}

int json_canonical(const cJSON *j, struct buf *out, struct err *e)
{
	const cJSON **m = NULL, *c;
	size_t n = 0, i = 0;
	int r = 0;

	if (cJSON_IsArray(j)) {
		buf_addc(out, '[');
		cJSON_ArrayForEach(c, j) {
			if (i++)
				buf_addc(out, ',');
			if (json_canonical(c, out, e) < 0)
				return -1;
		}
		buf_addc(out, ']');
		return 0;
	}
	if (!cJSON_IsObject(j)) {
		raw_canonical(j, out);
		return 0;
	}
	cJSON_ArrayForEach(c, j)
		n++;
	m = xcalloc(n ? n : 1, sizeof(*m));
	cJSON_ArrayForEach(c, j)
		m[i++] = c;
	qsort(m, n, sizeof(*m), member_cmp);
	buf_addc(out, '{');
	for (i = 0; i < n && r == 0; i++) {
		if (i && !strcmp(m[i - 1]->string, m[i]->string)) {
			r = err_set(e, EXIT_INPUT, "member '%s' appears twice", m[i]->string);
			break;
		}
		if (i)
			buf_addc(out, ',');
		buf_add_json_string(out, m[i]->string);
		buf_addc(out, ':');
		r = json_canonical(m[i], out, e);
	}
	buf_addc(out, '}');
	free(m);
	return r;
}

static void tensor_canonical(const struct tensor *t, struct buf *out)
{
	const cJSON *c;
	int first = 1;

	buf_adds(out, "{\"dtype\":");
	buf_add_json_string(out, t->dtype);
	if (t->has_range) {
		buf_adds(out, ",\"range\":[");
		json_add_double(out, t->range[0]);
		buf_addc(out, ',');
		json_add_double(out, t->range[1]);
		buf_addc(out, ']');
	}
	buf_adds(out, ",\"shape\":[");
	for (int i = 0; i < t->rank; i++) {
		if (i)
			buf_addc(out, ',');
		if (t->shape[i] == TENSOR_DIM_UNKNOWN)
			buf_adds(out, "null");
		else
			buf_addf(out, "%lld", (long long)t->shape[i]);
	}
	buf_addc(out, ']');
	if (t->values) {
		buf_adds(out, ",\"values\":[");
		cJSON_ArrayForEach(c, t->values) {
			if (!first)
				buf_addc(out, ',');
			first = 0;
			raw_canonical(c, out);
		}
		buf_addc(out, ']');
	}
	buf_addc(out, '}');
}

void value_canonical(const struct value *v, struct buf *out)
{
	buf_addc(out, '{');
	buf_add_json_string(out, vtype_name(v->type));
	buf_addc(out, ':');
	switch (v->type) {
	case V_NONE: buf_adds(out, "null"); break;
	case V_BOOL: buf_adds(out, v->u.b ? "true" : "false"); break;
	case V_INT: add_int(out, v->u.i); break;
	case V_FLOAT: json_add_double(out, v->u.f); break;
	case V_STR: case V_DTYPE: case V_CALLABLE: case V_OPAQUE:
		buf_add_json_string(out, v->u.s);
		break;
	case V_LIST: case V_TUPLE: values_canonical(v->u.seq.items, v->u.seq.n, out); break;
	case V_DICT: fields_canonical(v->u.dict.fields, v->u.dict.n, out); break;
	case V_TENSOR: tensor_canonical(&v->u.t, out); break;
	case V_GRAPH:
		buf_adds(out, "{\"data\":");
		buf_add_json_string(out, v->u.graph.data);
		buf_adds(out, ",\"format\":");
		buf_add_json_string(out, v->u.graph.format);
		buf_addc(out, '}');
		break;
	}
	buf_addc(out, '}');
}

/* The identity members without the enclosing braces, in sorted key order. */
static void identity_members(const struct instance *in, struct buf *out)
{
	buf_adds(out, "\"context\":");
	fields_canonical(in->context, in->ncontext, out);
	if (in->graph) {
		buf_adds(out, ",\"graph\":");
		buf_adds(out, in->graph);
	}
	buf_adds(out, ",\"inputs\":");
	values_canonical(in->inputs, in->ninputs, out);
	buf_adds(out, ",\"kind\":");
	buf_add_json_string(out, in->kind);
	buf_adds(out, ",\"library\":");
	buf_add_json_string(out, in->library);
	buf_adds(out, ",\"op\":");
	buf_add_json_string(out, in->op);
	buf_adds(out, ",\"outputs\":");
	values_canonical(in->outputs, in->noutputs, out);
	buf_adds(out, ",\"params\":");
	fields_canonical(in->params, in->nparams, out);
}

void record_canonical(const struct instance *in, struct buf *out)
{
	buf_addc(out, '{');
	identity_members(in, out);
	buf_addc(out, '}');
}

/* Any JSON (an annotation) with ferry's number spelling. cJSON's printer is not used: it prints 15
 * digits when they are within a relative epsilon, which loses the last bits of a double, and for
 * DBL_MAX gives 1.79769313486232e+308, which reads back as inf and is then printed as null. */
static void json_write(const cJSON *j, struct buf *out)
{
	const cJSON *c;
	int first = 1;

	if (cJSON_IsObject(j) || cJSON_IsArray(j)) {
		buf_addc(out, cJSON_IsObject(j) ? '{' : '[');
		cJSON_ArrayForEach(c, j) {
			if (!first)
				buf_addc(out, ',');
			first = 0;
			if (cJSON_IsObject(j)) {
				buf_add_json_string(out, c->string);
				buf_addc(out, ':');
			}
			json_write(c, out);
		}
		buf_addc(out, cJSON_IsObject(j) ? '}' : ']');
	} else {
		raw_canonical(j, out);
	}
}

void record_write(const struct instance *in, struct buf *out)
{
	const cJSON *c;

	buf_adds(out, "{\"id\":\"");
	buf_adds(out, in->id);
	buf_adds(out, "\",");
	identity_members(in, out);
	if (in->library_version) {
		buf_adds(out, ",\"library_version\":");
		buf_add_json_string(out, in->library_version);
	}
	if (in->extra)
		cJSON_ArrayForEach(c, in->extra) {
			buf_addc(out, ',');
			buf_add_json_string(out, c->string);
			buf_addc(out, ':');
			json_write(c, out);
		}
	buf_addc(out, '}');
}

const struct value *record_param(const struct instance *in, const char *name)
{
	struct field key = { (char *)name, NULL };
	const struct field *f;

	/* An instance without params has params NULL, which bsearch must not be given. */
	if (!in->nparams)
		return NULL;
	f = bsearch(&key, in->params, in->nparams, sizeof(key), field_cmp);
	return f ? f->value : NULL;
}

const struct value *record_context(const struct instance *in, const char *name)
{
	struct field key = { (char *)name, NULL };
	const struct field *f;

	if (!in->ncontext)
		return NULL;
	f = bsearch(&key, in->context, in->ncontext, sizeof(key), field_cmp);
	return f ? f->value : NULL;
}

/* --- names ------------------------------------------------------------------------------------- */

static const char *prov_string(const cJSON *o, const char *a, const char *b)
{
	const cJSON *x = cJSON_GetObjectItemCaseSensitive(o, a);

	if (b)
		x = cJSON_GetObjectItemCaseSensitive(x, b);
	return cJSON_IsString(x) ? x->valuestring : NULL;
}

enum record_origin record_origin(const cJSON *prov)
{
	const char *suite = prov_string(prov, "source", "suite");

	if (prov_string(prov, "variant", "parent"))
		return RECORD_VARIANT;
	if (suite && !strcmp(suite, "generate"))
		return RECORD_GENERATED;
	return RECORD_HARVESTED;
}

const char *record_origin_name(enum record_origin o)
{
	return o == RECORD_VARIANT ? "variant" : o == RECORD_GENERATED ? "generated" : "harvested";
}

/* A vary label (vary/rules.h) in words: "param:+output_shape=(2,2)" is "param output_shape=(2,2)
 * added"; a label without a rule of its own reads with its first colon a space ("rank +1"). */
static char *change_words(const char *label)
{
	const char *colon = strchr(label, ':');

	if (!strncmp(label, "param:+", 7))
		return xasprintf("param %s added", label + 7);
	if (!strncmp(label, "param:-", 7))
		return xasprintf("param %s removed", label + 7);
	if (!strncmp(label, "in:", 3))
		return xasprintf("input %s", label + 3);
	if (!colon)
		return xstrdup(label);
	return xasprintf("%.*s %s", (int)(colon - label), label, colon + 1);
}

char *record_what(const cJSON *prov)
{
	const char *test = prov_string(prov, "source", "test");
	const cJSON *src = cJSON_GetObjectItemCaseSensitive(prov, "source");
	const cJSON *seed = cJSON_GetObjectItemCaseSensitive(src, "seed");
	const cJSON *index = cJSON_GetObjectItemCaseSensitive(src, "index");
	char *what;

	switch (record_origin(prov)) {
	case RECORD_VARIANT: {
		const char *vary = prov_string(prov, "variant", "vary");
		char *change = change_words(vary ? vary : "?");

		/* A variant carries its parent's source: the library test it grew from. */
		if (test)
			what = xasprintf("variant of %s: %s", test, change);
		else
			what = xasprintf("variant of %.12s: %s", prov_string(prov, "variant", "parent"), change);
		free(change);
		break;
	}
	case RECORD_GENERATED:
		what = xasprintf("%sgenerated by ferry generate (seed %.0f, #%.0f)",
				 cJSON_IsTrue(cJSON_GetObjectItemCaseSensitive(src, "probe")) ? "probe " : "",
				 cJSON_IsNumber(seed) ? seed->valuedouble : 0,
				 cJSON_IsNumber(index) ? index->valuedouble : 0);
		break;
	default:
		what = test ? xstrdup(test) : NULL;
	}
	return what;
}

char *record_name(const cJSON *prov, const char *id)
{
	char *what = record_what(prov), *name;

	if (!what)
		return xstrdup(id);
	name = xasprintf("%s [%.12s]", what, id);
	free(what);
	return name;
}
