/* test-record.c: the instance record: parsing, validation messages, canonical form, ids. */
#include <cjson/cJSON.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "record.h"
#include "tap.h"

static int parse(struct instance *in, const char *text, struct err *e)
{
	return record_parse(in, text, strlen(text), e);
}

/* The canonical form of a record given as text; "" when it does not parse. */
static char *canon(const char *text)
{
	struct instance in;
	struct err e = ERR_INIT;
	struct buf b = BUF_INIT;

	if (parse(&in, text, &e) < 0) {
		diag("parse failed: %s", e.msg);
		return strdup("");
	}
	record_canonical(&in, &b);
	record_release(&in);
	return buf_detach(&b);
}

static char *id_of(const char *text)
{
	struct instance in;
	struct err e = ERR_INIT;
	char *id;

	if (parse(&in, text, &e) < 0)
		return strdup(e.msg);
	id = strdup(in.id);
	record_release(&in);
	return id;
}

static char *error_of(const char *text)
{
	struct instance in;
	struct err e = ERR_INIT;

	if (parse(&in, text, &e) == 0) {
		record_release(&in);
		return strdup("(parsed)");
	}
	return strdup(e.msg);
}

#define CHECK_STR(got_expr, want, ...) do { char *g_ = (got_expr); is(g_, want, __VA_ARGS__); free(g_); } while (0)

static void test_canonical(void)
{
	CHECK_STR(canon("{\"op\":\"Relu\",\"library\":\"onnx\"}"),
		  "{\"context\":{},\"inputs\":[],\"kind\":\"\",\"library\":\"onnx\",\"op\":\"Relu\",\"outputs\":[],\"params\":{}}",
		  "missing members canonicalise to empty ones");
	CHECK_STR(canon("{ \"params\": {\"b\": {\"int\": 2}, \"a\": {\"float\": 0.1}}, \"op\": \"X\", \"library\": \"l\" }"),
		  "{\"context\":{},\"inputs\":[],\"kind\":\"\",\"library\":\"l\",\"op\":\"X\",\"outputs\":[],\"params\":{\"a\":{\"float\":0.1},\"b\":{\"int\":2}}}",
		  "params sorted by name, white space dropped, 0.1 in shortest form");
	CHECK_STR(canon("{\"op\":\"X\",\"library\":\"l\",\"params\":{\"a\":{\"float\":\"nan\"},\"b\":{\"float\":\"-inf\"},\"c\":{\"float\":1e300},\"d\":{\"float\":0.30000000000000004}}}"),
		  "{\"context\":{},\"inputs\":[],\"kind\":\"\",\"library\":\"l\",\"op\":\"X\",\"outputs\":[],\"params\":{\"a\":{\"float\":\"nan\"},\"b\":{\"float\":\"-inf\"},\"c\":{\"float\":1e+300},\"d\":{\"float\":0.30000000000000004}}}",
		  "nan and inf spelled as strings, 17 digits only where needed");
	CHECK_STR(canon("{\"op\":\"Slice\",\"library\":\"onnx\",\"inputs\":[{\"tensor\":{\"dtype\":\"int64\",\"shape\":[2],\"values\":[\"9223372036854775807\",-1]}}],\"params\":{\"end\":{\"int\":\"9223372036854775807\"},\"small\":{\"int\":\"12\"}}}"),
		  "{\"context\":{},\"inputs\":[{\"tensor\":{\"dtype\":\"int64\",\"shape\":[2],\"values\":[\"9223372036854775807\",-1]}}],\"kind\":\"\",\"library\":\"onnx\",\"op\":\"Slice\",\"outputs\":[],\"params\":{\"end\":{\"int\":\"9223372036854775807\"},\"small\":{\"int\":12}}}",
		  "INT64_MAX kept exact as a string; a small int written as a string becomes a number");
	CHECK_STR(canon("{\"op\":\"M\",\"library\":\"torch\",\"params\":{\"k\":{\"tuple\":[{\"int\":3},{\"none\":null}]},\"cfg\":{\"dict\":{\"z\":{\"bool\":false},\"a\":{\"dtype\":\"float16\"}}},\"f\":{\"callable\":\"torch.relu\"}},\"inputs\":[{\"tensor\":{\"shape\":[1,null],\"dtype\":\"float32\",\"range\":[-3,3]}}]}"),
		  "{\"context\":{},\"inputs\":[{\"tensor\":{\"dtype\":\"float32\",\"range\":[-3,3],\"shape\":[1,null]}}],\"kind\":\"\",\"library\":\"torch\",\"op\":\"M\",\"outputs\":[],\"params\":{\"cfg\":{\"dict\":{\"a\":{\"dtype\":\"float16\"},\"z\":{\"bool\":false}}},\"f\":{\"callable\":\"torch.relu\"},\"k\":{\"tuple\":[{\"int\":3},{\"none\":null}]}}}",
		  "nested tuple, dict sorted, unknown dimension, range");
}

static void test_ids(void)
{
	char *a = id_of("{\"op\":\"Add\",\"library\":\"onnx\",\"source\":{\"test\":\"a\"},\"library_version\":\"1.0\"}");
	char *b = id_of("{\"library\":\"onnx\",\"op\":\"Add\",\"source\":{\"test\":\"b\"},\"library_version\":\"2.0\",\"id\":\"bogus\"}");
	char *c = id_of("{\"op\":\"Add\",\"library\":\"onnx\",\"params\":{\"x\":{\"int\":1}}}");
	char *d = id_of("{\"op\":\"Add\",\"library\":\"onnx\",\"params\":{\"x\":{\"float\":1}}}");

	is_int((long long)strlen(a), 32, "an id is 32 hex digits");
	is(a, b, "provenance, version, key order and a stale id do not change the id");
	ok(strcmp(a, c) != 0, "a parameter changes the id");
	ok(strcmp(c, d) != 0, "int 1 and float 1 are different instances");
	free(a);
	free(b);
	free(c);
	free(d);
}

static void test_errors(void)
{
	CHECK_STR(error_of("{\"op\":\"X\",\"library\":\"l\",\"params\":{\"k\":{\"int\":1.5}}}"),
		  "params.k: 1.5 is not an exact integer (write integers beyond 2^53 as strings)", "a fractional int");
	CHECK_STR(error_of("{\"op\":\"X\",\"library\":\"l\",\"params\":{\"k\":{\"list\":[{\"int\":1},{\"complex\":2}]}}}"),
		  "params.k[1]: unknown value type 'complex'", "an unknown value type names its place");
	CHECK_STR(error_of("{\"op\":\"X\",\"library\":\"l\",\"inputs\":[{\"tensor\":{\"dtype\":\"float32\"}}]}"),
		  "inputs[0]: a tensor needs a shape array", "a tensor without shape");
	CHECK_STR(error_of("{\"op\":\"X\",\"library\":\"l\",\"params\":{\"k\":3}}"),
		  "params.k: expected a tagged value (an object with exactly one member such as {\"int\": 3}), got a number",
		  "an untagged value");
	CHECK_STR(error_of("{\"library\":\"l\"}"), "missing member 'op'", "op is required");
	CHECK_STR(error_of("{\"op\":\"X\",\"library\":\"l\",\"params\":{\"k\":{\"int\":1}"),
		  "truncated JSON (the line ends inside a value)", "a truncated line");
	CHECK_STR(error_of("[1,2]"), "an instance must be a JSON object, got an array", "not an object");
	CHECK_STR(error_of("{\"op\":\"X\",\"library\":\"l\",\"params\":{\"k\":{\"float\":\"NaN\"}}}"),
		  "params.k: 'NaN' is not a float (only \"nan\", \"inf\" and \"-inf\" are spelled as strings)",
		  "a float string other than nan and inf");
}

static void test_roundtrip(void)
{
	const char *text = "{\"op\":\"Conv\",\"library\":\"onnx\",\"kind\":\"node\",\"library_version\":\"1.23.2\","
			   "\"context\":{\"opset\":{\"int\":13}},\"params\":{\"pads\":{\"list\":[{\"int\":1},{\"int\":1}]}},"
			   "\"inputs\":[{\"tensor\":{\"dtype\":\"float32\",\"shape\":[1,3,8,8]}}],"
			   "\"source\":{\"test\":\"test_conv\",\"line\":12},\"seen\":2}";
	struct instance a, b;
	struct err e = ERR_INIT;
	struct buf wa = BUF_INIT, wb = BUF_INIT;

	ok(parse(&a, text, &e) == 0, "a full record parses");
	record_write(&a, &wa);
	ok(parse(&b, wa.data, &e) == 0, "its written form parses");
	record_write(&b, &wb);
	is(wa.data, wb.data, "writing is a fixed point");
	is(a.id, b.id, "the id survives a write and read");
	ok(strstr(wa.data, "\"source\":{\"test\":\"test_conv\",\"line\":12}") != NULL, "provenance is carried");
	ok(!a.unmigratable, "no opaque value: migratable");
	ok(record_param(&a, "pads") && record_param(&a, "pads")->type == V_LIST, "record_param finds a parameter");
	ok(record_param(&a, "strides") == NULL, "record_param misses an absent one");
	record_release(&a);
	record_release(&b);
	buf_release(&wa);
	buf_release(&wb);

	ok(parse(&a, "{\"op\":\"X\",\"library\":\"torch\",\"params\":{\"gen\":{\"list\":[{\"opaque\":\"<Generator>\"}]}}}", &e) == 0 &&
	   a.unmigratable, "an opaque value deep inside marks the instance unmigratable");
	record_release(&a);
}

static void test_doubles(void)
{
	static const double cases[] = { 0.1, 1.0 / 3, 1e-300, 5e-324, 123456789.125, -0.0, 1e22, 2.5e-7 };
	int all = 1;

	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		struct buf b = BUF_INIT;

		json_add_double(&b, cases[i]);
		if (strtod(b.data, NULL) != cases[i] || signbit(strtod(b.data, NULL)) != signbit(cases[i])) {
			diag("%.17g printed as %s", cases[i], b.data);
			all = 0;
		}
		buf_release(&b);
	}
	ok(all, "every printed double reads back to itself");
}

int main(void)
{
	plan(27);
	test_canonical();
	test_ids();
	test_errors();
	test_roundtrip();
	test_doubles();
	return done();
}
