/* onnx.c: ONNX Runtime's OpTester tests: each Run a TEST reaches becomes an ONNX node record
 * (suite "ort-cpp"), or is counted by why it cannot; count-tests counts each tester once. */
#include <cjson/cJSON.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "counts.h"
#include "cpp-int.h"
#include "xalloc.h"

#ifdef HAVE_LIBCLANG

static const struct { const char *c, *dtype; } dtypes[] = {
	{ "float", "float32" }, { "double", "float64" }, { "MLFloat16", "float16" }, { "BFloat16", "bfloat16" },
	{ "int8_t", "int8" }, { "uint8_t", "uint8" }, { "int16_t", "int16" }, { "uint16_t", "uint16" },
	{ "int32_t", "int32" }, { "uint32_t", "uint32" }, { "int64_t", "int64" }, { "uint64_t", "uint64" },
	{ "bool", "bool" }, { "string", "string" }, { "int", "int32" }, { "int8", "int8" },
	{ "Float8E4M3FN", "float8e4m3fn" }, { "Float8E5M2", "float8e5m2" }, { "Float8E4M3FNUZ", "float8e4m3fnuz" },
	{ "Float8E5M2FNUZ", "float8e5m2fnuz" },
	/* the builtin names a deduced type is spelled with */
	{ "signed char", "int8" }, { "unsigned char", "uint8" }, { "short", "int16" }, { "unsigned short", "uint16" },
	{ "unsigned int", "uint32" }, { "long", "int64" }, { "long long", "int64" }, { "unsigned long", "uint64" },
};

const char *cpp_dtype_of(const char *ctype)
{
	for (size_t i = 0; ctype && i < sizeof(dtypes) / sizeof(dtypes[0]); i++)
		if (!strcmp(ctype, dtypes[i].c))
			return dtypes[i].dtype;
	return NULL;
}

cJSON *cpp_json_number(const struct cval *v, int as_float)
{
	if (v->kind == CV_BOOL)
		return cJSON_CreateBool(v->i != 0);
	if (as_float || v->is_float) {
		if (isnan(v->d))
			return cJSON_CreateString("nan");
		if (isinf(v->d))
			return cJSON_CreateString(v->d > 0 ? "inf" : "-inf");
		return cJSON_CreateNumber(v->d);
	}
	if (v->i > (1LL << 53) || v->i < -(1LL << 53)) {
		char s[32];

		snprintf(s, sizeof(s), "%lld", v->i);
		return cJSON_CreateString(s);
	}
	return cJSON_CreateNumber((double)v->i);
}

/* An attribute as a typed value: the C++ type it was given says int, float or string. */
static cJSON *attr_json(const struct cval *v, const char *ctype, const char **why)
{
	cJSON *o = cJSON_CreateObject();
	int want_float = ctype && (strstr(ctype, "float") || strstr(ctype, "double"));
	int want_int = ctype && !want_float && cpp_type_is_int(ctype) && !strstr(ctype, "char*") &&
		       !strstr(ctype, "char *") && !strstr(ctype, "string");

	if (v->kind == CV_STR) {
		cJSON_AddStringToObject(o, "str", v->s);
	} else if (v->kind == CV_SYM && v->is_enum) {
		cJSON_AddNumberToObject(o, "int", (double)v->i);
	} else if (v->kind == CV_NUM || v->kind == CV_BOOL) {
		int fl = want_float || (!want_int && v->is_float);

		if (fl)
			cJSON_AddItemToObject(o, "float", cpp_json_number(v, 1));
		else
			cJSON_AddNumberToObject(o, "int", v->kind == CV_BOOL ? (double)v->i : (double)v->i);
	} else if (v->kind == CV_LIST) {
		cJSON *l = cJSON_AddArrayToObject(o, "list");
		int fl = want_float;

		for (size_t i = 0; i < v->n && !want_int; i++)
			if (v->items[i].kind == CV_NUM && v->items[i].is_float)
				fl = 1;
		for (size_t i = 0; i < v->n; i++) {
			const struct cval *it = &v->items[i];
			cJSON *x = cJSON_CreateObject();

			if (it->kind == CV_STR)
				cJSON_AddStringToObject(x, "str", it->s);
			else if (is_number(it) && fl)
				cJSON_AddItemToObject(x, "float", cpp_json_number(it, 1));
			else if (is_number(it))
				cJSON_AddNumberToObject(x, "int", (double)it->i);
			else {
				*why = it->kind == CV_UNKNOWN ? it->s :
				       "an attribute of a kind the harvester does not map";
				cJSON_Delete(x);
				cJSON_Delete(o);
				return NULL;
			}
			cJSON_AddItemToArray(l, x);
		}
	} else {
		*why = v->kind == CV_UNKNOWN ? v->s : "a tensor or graph attribute";
		cJSON_Delete(o);
		return NULL;
	}
	return o;
}

static int essential(const char *dtype)
{
	/* integer, boolean and string inputs are indices, shapes, axes, masks: their values matter */
	return strncmp(dtype, "float", 5) && strcmp(dtype, "bfloat16");
}

/* One port as a tensor value; NULL with *why when it cannot be one. values_ok: whether to keep its
 * values (an output's expected values only when every input's values are known). */
static cJSON *port_json(const struct port *p, int is_input, int values_ok, int *has_values, const char **why)
{
	const char *dtype = cpp_dtype_of(p->ctype);
	cJSON *o, *t, *shape;
	const struct cval *u;
	size_t total = 1;

	*has_values = 0;
	if (!p->ctype) {
		o = cJSON_CreateObject();
		cJSON_AddNullToObject(o, "none");
		return o;
	}
	if (!dtype) {
		*why = (strstr(p->ctype, "Int4") || strstr(p->ctype, "int4")) ? "a packed 4-bit element type" :
		       !*p->ctype ? "an element type the harvester cannot tell" :
		       strchr(p->ctype, '<') || !strcmp(p->ctype, "T") || !strcmp(p->ctype, "TypeParam") ?
		       "an element type from a template the test instantiates elsewhere" :
		       "an element type the harvester does not map";
		return NULL;
	}
	if ((u = cpp_first_unknown(&p->dims)) || p->dims.kind != CV_LIST) {
		*why = u ? u->s : "a shape that is not a list";
		return NULL;
	}
	o = cJSON_CreateObject();
	t = cJSON_AddObjectToObject(o, "tensor");
	cJSON_AddStringToObject(t, "dtype", dtype);
	shape = cJSON_AddArrayToObject(t, "shape");
	for (size_t i = 0; i < p->dims.n; i++) {
		if (p->dims.items[i].kind != CV_NUM || p->dims.items[i].i < 0) {
			cJSON_Delete(o);
			*why = "a shape that is not a list of sizes";
			return NULL;
		}
		cJSON_AddItemToArray(shape, cJSON_CreateNumber((double)p->dims.items[i].i));
		total *= (size_t)p->dims.items[i].i;
	}
	u = cpp_first_unknown(&p->values);
	if (!u && p->values.kind == CV_LIST && p->values.n == total) {
		int fl = !strncmp(dtype, "float", 5) || !strcmp(dtype, "bfloat16");
		cJSON *vals;

		if (!values_ok)
			return o;
		vals = cJSON_AddArrayToObject(t, "values");
		for (size_t i = 0; i < total; i++) {
			const struct cval *it = &p->values.items[i];

			if (!strcmp(dtype, "string") ? it->kind != CV_STR : !is_number(it)) {
				cJSON_Delete(o);
				*why = "values of another kind than the element type";
				return NULL;
			}
			if (it->kind == CV_STR)
				cJSON_AddItemToArray(vals, cJSON_CreateString(it->s));
			else if (!strcmp(dtype, "bool"))
				cJSON_AddItemToArray(vals, cJSON_CreateBool(it->d != 0));
			else
				cJSON_AddItemToArray(vals, cpp_json_number(it, fl));
		}
		*has_values = 1;
		return o;
	}
	if (!u && p->values.kind == CV_LIST) {
		cJSON_Delete(o);
		*why = "as many values as the shape does not hold";
		return NULL;
	}
	if (is_input && essential(dtype)) {
		cJSON_Delete(o);
		*why = u ? u->s : "values that are not a list";
		return NULL;
	}
	return o;
}

/* Why a Run cannot be an instance before its values are looked at (an expected failure, a tainted
 * tester, an operator, opset or domain the harvester cannot tell or does not take), or NULL; the
 * domain in *domain. */
static const char *drop_reason(const struct tester *t, int failure, const char **domain)
{
	*domain = "";
	if (failure)
		return "an expected failure (ExpectResult::kExpectFailure)";
	if (t->taint)
		return t->taint;
	if (t->op.kind != CV_STR)
		return t->op.kind == CV_UNKNOWN ? t->op.s : "an operator name that is not a string";
	if (t->opset.kind != CV_NUM || t->opset.i <= 0)
		return t->opset.kind == CV_UNKNOWN ? t->opset.s : "opset -1 (the latest ONNX Runtime knows)";
	if (t->domain.kind == CV_STR)
		*domain = t->domain.s;
	else if (t->domain.kind != CV_ABSENT)
		return "a domain the harvester cannot tell";
	if (**domain && strcmp(*domain, "ai.onnx") && strcmp(*domain, "ai.onnx.ml"))
		return "an operator of another domain than ONNX's (com.microsoft, ...)";
	return NULL;
}

/* The record's inputs and outputs (an output's expected values only when every input's values are
 * known), and the lines of the inputs for its source. 0, or -1 with *why. */
static int add_ports(struct run *r, struct tester *t, cJSON *rec, cJSON *lines, const char **why)
{
	cJSON *inputs = cJSON_AddArrayToObject(rec, "inputs"), *outputs;
	int all_inputs = 1;

	for (size_t i = 0; i < t->nin; i++) {
		int has;
		cJSON *p = port_json(&t->in[i], 1, 1, &has, why);

		if (!p)
			return -1;
		all_inputs &= has || !t->in[i].ctype;
		cJSON_AddItemToArray(inputs, p);
		cJSON_AddItemToArray(lines, cJSON_CreateNumber(t->in[i].line));
	}
	/* trailing optional outputs are outputs the node does not have */
	while (t->nout && !t->out[t->nout - 1].ctype)
		t->nout--;
	if (!t->nout) {
		/* every AddOutput sat in a branch the harvester could not decide (on TYPED_TEST's type) */
		*why = "a tester without an output the harvester could follow";
		return -1;
	}
	outputs = cJSON_AddArrayToObject(rec, "outputs");
	for (size_t i = 0; i < t->nout; i++) {
		int has;
		cJSON *p = port_json(&t->out[i], 0, all_inputs, &has, why);

		if (!p)
			return -1;
		if (has)
			count(r, "instances with expected outputs", 1);
		cJSON_AddItemToArray(outputs, p);
	}
	if (all_inputs && t->nin)
		count(r, "instances with every input's values", 1);
	return 0;
}

int cpp_onnx_run(struct run *r, struct tester *t, int failure, const char *msg, struct err *e)
{
	cJSON *rec = NULL, *ctx, *params, *src, *lines = NULL;
	const char *why, *domain;
	char *text = NULL;
	int rc = 0;

	count(r, "Runs reached", 1);
	(void)msg;
	if ((why = drop_reason(t, failure, &domain)))
		goto drop;
	rec = cJSON_CreateObject();
	cJSON_AddStringToObject(rec, "library", "onnx");
	if (r->version)
		cJSON_AddStringToObject(rec, "library_version", r->version);
	cJSON_AddStringToObject(rec, "kind", "node");
	if (*domain && strcmp(domain, "ai.onnx")) {
		/* an operator of another domain is named with it, as the ONNX template expects */
		char *q = xasprintf("%s.%s", domain, t->op.s);

		cJSON_AddStringToObject(rec, "op", q);
		free(q);
	} else {
		cJSON_AddStringToObject(rec, "op", t->op.s);
	}
	ctx = cJSON_AddObjectToObject(rec, "context");
	cJSON_AddNumberToObject(cJSON_AddObjectToObject(ctx, "opset"), "int", (double)t->opset.i);
	if (*domain && strcmp(domain, "ai.onnx"))
		cJSON_AddStringToObject(cJSON_AddObjectToObject(ctx, "domain"), "str", domain);
	params = cJSON_AddObjectToObject(rec, "params");
	for (size_t i = 0; i < t->np; i++) {
		cJSON *a = attr_json(&t->pvals[i], t->ptypes[i], &why);

		if (!a)
			goto drop;
		cJSON_DeleteItemFromObjectCaseSensitive(params, t->pnames[i]);
		cJSON_AddItemToObject(params, t->pnames[i], a);
	}
	lines = cJSON_CreateArray();
	if (add_ports(r, t, rec, lines, &why) < 0)
		goto drop;
	src = cJSON_AddObjectToObject(rec, "source");
	cJSON_AddStringToObject(src, "suite", "ort-cpp");
	cJSON_AddStringToObject(src, "test", r->test);
	cJSON_AddStringToObject(src, "file", r->file);
	cJSON_AddNumberToObject(src, "line", r->test_line);
	cJSON_AddNumberToObject(src, "tester_line", t->line);
	cJSON_AddItemToObject(src, "input_lines", lines);
	lines = NULL;
	if (r->commit)
		cJSON_AddStringToObject(src, "commit", r->commit);
	if (!(text = cJSON_PrintUnformatted(rec))) {
		rc = err_set(e, EXIT_ENV, "cannot print a record");
		goto out;
	}
	rc = r->o->emit(r->o->ctx, text, strlen(text), e);
	goto out;
drop:
	not_recorded(r, why);
out:
	free(text);
	cJSON_Delete(lines);
	cJSON_Delete(rec);
	return rc;
}

int cpp_harvest_onnx(char *const *files, size_t n, const struct cpp_opts *o, struct err *e)
{
	return cpp_parse_files(files, n, o, CPP_ONNX, NULL, e);
}

int cpp_count_run(struct run *r, struct tester *t, int failure, const char *msg, struct err *e)
{
	(void)failure;
	(void)msg;
	(void)e;
	/* a tester counts once, at its first Run */
	if (t->runs == 1 && t->op.kind == CV_STR)
		counts_add(r->counts, t->op.s, 1);
	return 0;
}

int cpp_count_onnx(struct counts *c, char *const *files, size_t n, const struct cpp_opts *o, struct err *e)
{
	return cpp_parse_files(files, n, o, CPP_COUNT, c, e);
}
#else

int cpp_harvest_onnx(char *const *files, size_t n, const struct cpp_opts *o, struct err *e)
{
	(void)files, (void)n, (void)o;
	return err_set(e, EXIT_ENV, "ferry was built without libclang (configure --without-libclang)");
}

int cpp_count_onnx(struct counts *c, char *const *files, size_t n, const struct cpp_opts *o, struct err *e)
{
	(void)c, (void)files, (void)n, (void)o;
	return err_set(e, EXIT_ENV, "ferry was built without libclang (configure --without-libclang)");
}
#endif
