/* test-probe.c: the probe of an (operator, dtype) group: the dtype a test is grouped by, the choice
 * of the simplest test (deterministic, whatever order the tests come in), what a probe's outcome
 * says, and reading the probes of a release back from a store by a test's record. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "probe.h"
#include "tap.h"

static const char *const records[] = {
	/* 0: 2x3 inputs, one parameter */
	"{\"library\":\"onnx\",\"op\":\"Add\",\"params\":{\"axis\":{\"int\":1}},\"inputs\":["
	"{\"tensor\":{\"dtype\":\"float32\",\"shape\":[2,3]}},{\"tensor\":{\"dtype\":\"float32\",\"shape\":[2,3]}}]}",
	/* 1: 1x3 + a scalar: the fewest elements (4) */
	"{\"library\":\"onnx\",\"op\":\"Add\",\"params\":{\"axis\":{\"int\":1},\"b\":{\"int\":2}},\"inputs\":["
	"{\"tensor\":{\"dtype\":\"float32\",\"shape\":[1,3]}},{\"tensor\":{\"dtype\":\"float32\",\"shape\":[]}}]}",
	/* 2: also 4 elements, no parameter: simpler than 1 */
	"{\"library\":\"onnx\",\"op\":\"Add\",\"inputs\":["
	"{\"tensor\":{\"dtype\":\"float32\",\"shape\":[3]}},{\"tensor\":{\"dtype\":\"float32\",\"shape\":[]}}]}",
	/* 3: an output of another dtype decides the group */
	"{\"library\":\"onnx\",\"op\":\"Cast\",\"params\":{\"to\":{\"int\":10}},\"inputs\":["
	"{\"tensor\":{\"dtype\":\"float32\",\"shape\":[3]}}],\"outputs\":[{\"tensor\":{\"dtype\":\"float16\",\"shape\":[3]}}]}",
	/* 4: no tensor at all */
	"{\"library\":\"onnx\",\"op\":\"Constant\",\"params\":{\"value_int\":{\"int\":3}}}",
	/* 5: an empty batch: no elements, no parameter, yet degenerate */
	"{\"library\":\"onnx\",\"op\":\"Add\",\"inputs\":["
	"{\"tensor\":{\"dtype\":\"float32\",\"shape\":[0,3]}},{\"tensor\":{\"dtype\":\"float32\",\"shape\":[]}}]}",
	/* 6: an empty axes tensor (ReduceSum's "no axes"): a form of the operator, not degenerate */
	"{\"library\":\"onnx\",\"op\":\"ReduceSum\",\"inputs\":["
	"{\"tensor\":{\"dtype\":\"float32\",\"shape\":[3]}},{\"tensor\":{\"dtype\":\"int64\",\"shape\":[0]}}]}",
	/* 7: an output with no elements */
	"{\"library\":\"onnx\",\"op\":\"Slice\",\"inputs\":[{\"tensor\":{\"dtype\":\"float32\",\"shape\":[3]}}],"
	"\"outputs\":[{\"tensor\":{\"dtype\":\"float32\",\"shape\":[0]}}]}",
};
#define N (sizeof(records) / sizeof(records[0]))

static int store_probe(struct db *d, const char *version, const char *op, const char *dtype, const char *outcome)
{
	struct db_support s = { "ort", version, op, dtype, "0123", outcome, NULL, "the message" };
	struct err e = ERR_INIT;
	int r = db_put_support(d, &s, &e);

	err_release(&e);
	return r;
}

int main(void)
{
	struct instance in[N];
	struct err e = ERR_INIT;
	struct buf key = BUF_INIT;
	char dir[] = "/tmp/ferry-test-probe-XXXXXX", path[256];
	struct db d = DB_INIT;
	struct strmap m = STRMAP_INIT;
	const struct probe_row *p;
	int parsed = 1;

	plan(29);
	for (size_t i = 0; i < N; i++)
		parsed &= record_parse(&in[i], records[i], strlen(records[i]), &e) == 0;
	if (!ok(parsed, "the records parse: %s", e.msg ? e.msg : "")) {
		err_release(&e);
		return done();
	}
	is(probe_dtype(&in[0]), "float32", "the dtype of a test without outputs is its first input's");
	is(probe_dtype(&in[3]), "float16", "an output's dtype comes first");
	ok(probe_dtype(&in[4]) == NULL, "a test without tensors has none");
	probe_group_key(&in[3], &key);
	is(key.data, "Cast\tfloat16", "a group's key is its operator and dtype");
	probe_group_key(&in[4], &key);
	is(key.data, "Constant\t" PROBE_NO_DTYPE, "and without a dtype, " PROBE_NO_DTYPE);

	is_int((long long)probe_elements(&in[0]), 12, "elements: the sum over the inputs");
	is_int((long long)probe_elements(&in[1]), 4, "a scalar is one element");
	is_int((long long)probe_elements(&in[5]), 1, "an empty tensor none");
	ok(probe_cmp(&in[1], 0, &in[0], 0) < 0 && probe_cmp(&in[0], 0, &in[1], 0) > 0,
	   "fewer input elements is simpler");
	ok(probe_cmp(&in[2], 0, &in[1], 0) < 0, "at equal elements, fewer parameters");
	ok(probe_cmp(&in[1], 1, &in[0], 0) > 0, "a test on an undefined input goes last, however small");
	ok(probe_cmp(&in[2], 0, &in[2], 0) == 0, "a test is as simple as itself");
	ok(probe_degenerate(&in[5]) && probe_degenerate(&in[7]) && !probe_degenerate(&in[0]) &&
	   !probe_degenerate(&in[4]), "degenerate: an empty operand or output");
	ok(!probe_degenerate(&in[6]), "an empty axes tensor of another dtype is a form, not an empty batch");
	ok(probe_cmp(&in[5], 0, &in[0], 0) > 0 && probe_cmp(&in[0], 0, &in[5], 0) < 0,
	   "a degenerate test goes after the others, however small");
	ok(probe_cmp(&in[5], 0, &in[7], 0) < 0, "among degenerate tests, the simplest");
	ok(probe_cmp(&in[5], 0, &in[0], 1) < 0, "and before a test on an undefined input");
	{
		/* The same group in every order gives the same probe. */
		const size_t orders[3][4] = { { 0, 1, 2, 5 }, { 5, 2, 1, 0 }, { 1, 5, 2, 0 } };
		int same = 1;

		for (int o = 0; o < 3; o++) {
			size_t best = orders[o][0];

			for (int k = 1; k < 4; k++)
				if (probe_cmp(&in[orders[o][k]], 0, &in[best], 0) < 0)
					best = orders[o][k];
			same &= best == 2;
		}
		ok(same, "the choice does not depend on the order of the tests");
	}

	is(probe_class_name(probe_class("pass")), "supported", "a pass is supported");
	is(probe_class_name(probe_class("mismatch")), "supported", "a mismatch too: the frontend ran it");
	is(probe_class_name(probe_class("unsupported")), "unsupported", "unsupported is unsupported");
	ok(probe_class("crash") == PROBE_FAILING && probe_class("timeout") == PROBE_FAILING &&
	   probe_class("oom") == PROBE_FAILING && probe_class("error") == PROBE_FAILING &&
	   probe_class("nonsense") == PROBE_FAILING, "crash, timeout, oom, error (and junk) are failing");

	/* Read back by record, per release. */
	if (!mkdtemp(dir))
		return 1;
	snprintf(path, sizeof(path), "%s/results.db", dir);
	ok(db_open(&d, path, DB_CREATE, &e) == 0 && store_probe(&d, "1.0", "Add", "float32", "pass") == 0 &&
	   store_probe(&d, "1.0", "Cast", "float16", "unsupported") == 0 &&
	   store_probe(&d, "2.0", "Add", "float32", "crash") == 0, "a store with probes of two releases");
	ok(probe_map_load(&m, &d, "ort", "1.0", &e) == 0 && m.len == 2, "the probes of one release");
	p = probe_map_find(&m, records[0]);
	ok(p && !strcmp(p->outcome, "pass") && p->cls == PROBE_SUPPORTED, "a test finds its group's probe");
	p = probe_map_find(&m, records[3]);
	ok(p && p->cls == PROBE_UNSUPPORTED && !strcmp(p->message, "the message"), "with its message");
	ok(probe_map_find(&m, records[4]) == NULL && probe_map_find(&m, "not json") == NULL,
	   "a group without a probe, or a record that does not parse, has none");
	probe_map_release(&m);
	ok(probe_map_load(&m, &d, "ort", "2.0", &e) == 0 && (p = probe_map_find(&m, records[1])) &&
	   p->cls == PROBE_FAILING, "another release has its own");
	probe_map_release(&m);
	db_close(&d);

	for (size_t i = 0; i < N; i++)
		record_release(&in[i]);
	buf_release(&key);
	err_release(&e);
	unlink(path);
	snprintf(path, sizeof(path), "%s/results.db-wal", dir);
	unlink(path);
	snprintf(path, sizeof(path), "%s/results.db-shm", dir);
	unlink(path);
	rmdir(dir);
	return done();
}
