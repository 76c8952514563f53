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

/* Write a record, read it back and write it again: both writings and both ids must agree, or the
 * store would hold one instance under two ids. */
static int stable(const char *text, const char *want_piece)
{
	struct instance a, b;
	struct err e = ERR_INIT;
	struct buf wa = BUF_INIT, wb = BUF_INIT;
	int good = 0;

	if (parse(&a, text, &e) < 0) {
		diag("parse failed: %s", e.msg);
		return 0;
	}
	record_write(&a, &wa);
	if (parse(&b, wa.data, &e) < 0) {
		diag("the written form does not parse: %s: %s", e.msg, wa.data);
	} else {
		record_write(&b, &wb);
		good = !strcmp(wa.data, wb.data) && !strcmp(a.id, b.id) && strstr(wa.data, want_piece);
		if (!good)
			diag("first:  %s\n# second: %s", wa.data, wb.data);
		record_release(&b);
	}
	record_release(&a);
	buf_release(&wa);
	buf_release(&wb);
	return good;
}

static void test_big_ints(void)
{
	ok(stable("{\"op\":\"X\",\"library\":\"l\",\"params\":{\"k\":{\"int\":\"9007199254740993\"}}}",
		  "{\"int\":\"9007199254740993\"}"), "2^53 + 1 is written as a string and keeps its id");
	ok(stable("{\"op\":\"X\",\"library\":\"l\",\"params\":{\"k\":{\"int\":\"-9007199254740993\"}}}",
		  "{\"int\":\"-9007199254740993\"}"), "-(2^53 + 1) likewise");
	ok(stable("{\"op\":\"X\",\"library\":\"l\",\"params\":{\"k\":{\"int\":9007199254740992}}}",
		  "{\"int\":9007199254740992}"), "2^53 itself is exact as a number and stays one");
	ok(stable("{\"op\":\"X\",\"library\":\"l\",\"params\":{\"k\":{\"int\":\"-9223372036854775808\"}}}",
		  "{\"int\":\"-9223372036854775808\"}"), "INT64_MIN round-trips");
	CHECK_STR(error_of("{\"op\":\"X\",\"library\":\"l\",\"params\":{\"k\":{\"int\":\"9223372036854775808\"}}}"),
		  "params.k: '9223372036854775808' is out of the range of a 64-bit integer", "an int beyond int64 is an error");
	CHECK_STR(error_of("{\"op\":\"X\",\"library\":\"l\",\"params\":{\"k\":{\"int\":1e19}}}"),
		  "params.k: 1e+19 is not an exact integer (write integers beyond 2^53 as strings)",
		  "an int number beyond 2^53 is an error");
}

static void test_annotations(void)
{
	ok(stable("{\"op\":\"X\",\"library\":\"l\",\"note\":{\"max\":1.7976931348623157e308,\"l\":[0.30000000000000004,-0.0,12]}}",
		  "\"note\":{\"max\":1.7976931348623157e+308,\"l\":[0.30000000000000004,-0,12]}"),
	   "annotation numbers keep every bit (DBL_MAX no longer turns into null, nor 0.1 + 0.2 into 0.3)");
}

static void test_dims(void)
{
	CHECK_STR(error_of("{\"op\":\"X\",\"library\":\"l\",\"inputs\":[{\"tensor\":{\"dtype\":\"float32\",\"shape\":[2,1e19]}}]}"),
		  "inputs[0]: shape[1] is 1e+19; a dimension is an integer from 0 to 2^53 or null (unknown)",
		  "a dimension of 1e19 is an error, not an unknown dimension");
	CHECK_STR(error_of("{\"op\":\"X\",\"library\":\"l\",\"inputs\":[{\"tensor\":{\"dtype\":\"float32\",\"shape\":[-1]}}]}"),
		  "inputs[0]: shape[0] is -1; a dimension is an integer from 0 to 2^53 or null (unknown)",
		  "-1 is not a dimension (null is the unknown marker)");
	CHECK_STR(error_of("{\"op\":\"X\",\"library\":\"l\",\"outputs\":[{\"tensor\":{\"dtype\":\"float32\",\"shape\":[-9223372036854775808]}}]}"),
		  "outputs[0]: shape[0] is -9.2233720368547758e+18; a dimension is an integer from 0 to 2^53 or null (unknown)",
		  "INT64_MIN, the unknown marker's bit pattern, is not a dimension either");
	CHECK_STR(error_of("{\"op\":\"X\",\"library\":\"l\",\"inputs\":[{\"tensor\":{\"dtype\":\"float32\",\"shape\":[\"3\"]}}]}"),
		  "inputs[0]: shape[0] is a string; a dimension is a non-negative integer or null (unknown)",
		  "a string is not a dimension");
	ok(stable("{\"op\":\"X\",\"library\":\"l\",\"inputs\":[{\"tensor\":{\"dtype\":\"float32\",\"shape\":[0,null,9007199254740992]}}]}",
		  "\"shape\":[0,null,9007199254740992]"), "0, unknown and 2^53 are dimensions");
}

static void test_duplicates(void)
{
	CHECK_STR(error_of("{\"op\":\"X\",\"library\":\"a\",\"library\":\"b\"}"),
		  "member 'library' appears twice", "a second library is an error (it leaked and won)");
	CHECK_STR(error_of("{\"op\":\"X\",\"library\":\"l\",\"params\":{},\"params\":{\"k\":{\"int\":1}}}"),
		  "member 'params' appears twice", "a second params is an error");
	CHECK_STR(error_of("{\"op\":\"X\",\"library\":\"l\",\"seen\":1,\"seen\":2}"),
		  "member 'seen' appears twice", "a second annotation is an error");
	CHECK_STR(error_of("{\"op\":\"X\",\"library\":\"l\",\"params\":{\"k\":{\"int\":1},\"k\":{\"int\":2}}}"),
		  "params: member 'k' appears twice", "a parameter twice");
	CHECK_STR(error_of("{\"op\":\"X\",\"library\":\"l\",\"params\":{\"d\":{\"dict\":{\"a\":{\"none\":null},\"a\":{\"int\":1}}}}}"),
		  "params.d: member 'a' appears twice", "a dict key twice");
	CHECK_STR(error_of("{\"op\":\"X\",\"library\":\"l\",\"inputs\":[{\"tensor\":{\"dtype\":\"float32\",\"shape\":[1],\"dtype\":\"int8\"}}]}"),
		  "inputs[0]: tensor member 'dtype' appears twice", "a tensor member twice");
	CHECK_STR(error_of("{\"op\":\"X\",\"library\":\"l\",\"inputs\":[{\"graph\":{\"format\":\"onnx\",\"data\":\"AA\",\"data\":\"BB\"}}]}"),
		  "inputs[0]: graph member 'data' appears twice", "a graph member twice");
	CHECK_STR(error_of("{\"op\":\"X\",\"library\":\"l\",\"inputs\":[{\"graph\":{\"format\":\"onnx\",\"data\":\"AA\",\"note\":1}}]}"),
		  "inputs[0]: unknown graph member 'note'", "an unhashed graph member is an error");
}

/* "{"op":"X","library":"l","source":" then levels of '[' and as many ']', then "}". */
static char *nested(int levels)
{
	struct buf b = BUF_INIT;

	buf_adds(&b, "{\"op\":\"X\",\"library\":\"l\",\"source\":");
	for (int i = 0; i < levels; i++)
		buf_addc(&b, '[');
	for (int i = 0; i < levels; i++)
		buf_addc(&b, ']');
	buf_addc(&b, '}');
	return buf_detach(&b);
}

static void test_depth(void)
{
	char *deep = nested(1200), *limit = nested(99), *over = nested(100);
	char want[128];

	/* The object is level 1, so the 100th '[' is level 101; 33 characters come before the first. */
	snprintf(want, sizeof(want), "JSON nested too deep at column %d (more than 100 levels)", 33 + 100);
	CHECK_STR(error_of(deep), want, "1200 levels (past cJSON's limit): too deep, not malformed");
	CHECK_STR(error_of(over), want, "101 levels (within cJSON's limit): too deep");
	CHECK_STR(error_of(limit), "(parsed)", "100 levels parse");
	deep[5] = '=';
	CHECK_STR(error_of(deep), "malformed JSON at column 6", "an earlier typo is still a typo");
	free(deep);
	free(limit);
	free(over);
	CHECK_STR(error_of("{\"op\":\"X\",\"library\":\"l\"}{\"op\":\"Y\",\"library\":\"l\"}"),
		  "malformed JSON at column 25 (text after the value)", "two records on one line are an error");
	CHECK_STR(error_of("{\"op\":\"X\",\"library\":\"l\"} \t"), "(parsed)", "trailing white space is fine");
}

/* The name of a record's test, from its provenance given as JSON text. */
static char *name_of(const char *prov)
{
	cJSON *j = cJSON_Parse(prov);
	char *name = record_name(j, "0123456789abcdef0123456789abcdef");

	cJSON_Delete(j);
	return name;
}

static void test_names(void)
{
	CHECK_STR(name_of("{\"source\":{\"suite\":\"onnx-node\",\"test\":\"test_ceil\"}}"),
		  "test_ceil [0123456789ab]", "a harvested test is its library test's, with the id's start");
	CHECK_STR(name_of("{\"source\":{\"test\":\"test_convtranspose_autopad_same\"},"
			  "\"variant\":{\"parent\":\"ff\",\"vary\":\"param:+output_shape=(2,2)\"}}"),
		  "variant of test_convtranspose_autopad_same: param output_shape=(2,2) added [0123456789ab]",
		  "a variant is named a variant of its parent's test, with what changed in words");
	CHECK_STR(name_of("{\"source\":{\"test\":\"t\"},\"variant\":{\"parent\":\"ff\",\"vary\":\"param:-bias\"}}"),
		  "variant of t: param bias removed [0123456789ab]", "a parameter removed says so");
	CHECK_STR(name_of("{\"variant\":{\"parent\":\"aaaabbbbccccdddd\",\"vary\":\"rank:+1\"}}"),
		  "variant of aaaabbbbcccc: rank +1 [0123456789ab]", "a variant of an unnamed test names its parent's id");
	CHECK_STR(name_of("{\"source\":{\"suite\":\"generate\",\"seed\":1,\"index\":7}}"),
		  "generated by ferry generate (seed 1, #7) [0123456789ab]", "a generated test says it was generated, and which");
	CHECK_STR(name_of("{}"), "0123456789abcdef0123456789abcdef", "a test of no known source is its id");
	is(record_origin_name(record_origin(NULL)), "harvested", "no provenance reads as harvested");
}

int main(void)
{
	plan(60);
	test_canonical();
	test_ids();
	test_errors();
	test_roundtrip();
	test_doubles();
	test_big_ints();
	test_annotations();
	test_dims();
	test_duplicates();
	test_depth();
	test_names();
	return done();
}
