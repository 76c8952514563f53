/* test-rank-io.c: the ranking's inputs and outputs. The subspace partition on values; a small ONNX
 * corpus read from JSON Lines and ranked with compiler-test counts (tiers from wrap's annotation and
 * from opaque values); bad corpus lines and bad counts files give clear messages that name the file
 * and line; the C++ OpTester scanner; the counts file format; and the queue file. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "apfd.h"
#include "counts.h"
#include "fsutil.h"
#include "jsonl.h"
#include "rank.h"
#include "subspace.h"
#include "tap.h"

#define DATA ABS_TOP_SRCDIR "/tests/data/rank/"

static uint64_t code_of(const char *json)
{
	struct instance in;
	struct err e = ERR_INIT;
	char line[1024];
	uint64_t c;

	snprintf(line, sizeof(line), "{\"library\":\"onnx\",\"op\":\"T\",\"inputs\":[%s]}", json);
	if (record_parse(&in, line, strlen(line), &e) < 0) {
		diag("cannot parse %s: %s", json, e.msg);
		return 0;
	}
	c = subspace_code(&in.inputs[0]);
	record_release(&in);
	return c;
}

#define SAME(a, b) ok(code_of(a) == code_of(b), "%s and %s share a subspace", a, b)
#define DIFF(a, b) ok(code_of(a) != code_of(b), "%s and %s do not", a, b)

static void test_subspaces(void)
{
	ok(subspace_int_class(-5) == SUB_INT_LT_M1 && subspace_int_class(-1) == SUB_INT_M1 &&
	   subspace_int_class(0) == SUB_INT_0 && subspace_int_class(1) == SUB_INT_1 && subspace_int_class(7) == SUB_INT_GT_1,
	   "integers: <-1, -1, 0, 1, >1");
	SAME("{\"int\":2}", "{\"int\":1000}");
	DIFF("{\"int\":0}", "{\"float\":0}");
	SAME("{\"float\":0.5}", "{\"float\":3e8}");
	SAME("{\"float\":0}", "{\"float\":-0.0}");
	DIFF("{\"float\":\"inf\"}", "{\"float\":\"-inf\"}");
	DIFF("{\"float\":\"nan\"}", "{\"float\":1}");
	DIFF("{\"str\":\"zeros\"}", "{\"str\":\"reflect\"}");
	SAME("{\"list\":[{\"int\":3},{\"int\":3}]}", "{\"list\":[{\"int\":5},{\"int\":2}]}");
	DIFF("{\"list\":[{\"int\":3},{\"int\":3}]}", "{\"list\":[{\"int\":1},{\"int\":3}]}");
	DIFF("{\"list\":[{\"int\":3},{\"int\":3}]}", "{\"tuple\":[{\"int\":3},{\"int\":3}]}");
	DIFF("{\"list\":[{\"int\":3}]}", "{\"list\":[{\"int\":3},{\"int\":3}]}");
	SAME("{\"tensor\":{\"dtype\":\"float32\",\"shape\":[2,3]}}", "{\"tensor\":{\"dtype\":\"float32\",\"shape\":[5,7]}}");
	DIFF("{\"tensor\":{\"dtype\":\"float32\",\"shape\":[2,3]}}", "{\"tensor\":{\"dtype\":\"float32\",\"shape\":[1,3]}}");
	DIFF("{\"tensor\":{\"dtype\":\"float32\",\"shape\":[2,3]}}", "{\"tensor\":{\"dtype\":\"float32\",\"shape\":[2,null]}}");
	DIFF("{\"tensor\":{\"dtype\":\"float32\",\"shape\":[2,3]}}", "{\"tensor\":{\"dtype\":\"float16\",\"shape\":[2,3]}}");
	DIFF("{\"tensor\":{\"dtype\":\"float32\",\"shape\":[2,3]}}", "{\"tensor\":{\"dtype\":\"float32\",\"shape\":[2,3,4]}}");
	SAME("{\"tensor\":{\"dtype\":\"float32\",\"shape\":[2,2,2,2,2,2]}}",
	     "{\"tensor\":{\"dtype\":\"float32\",\"shape\":[2,2,2,2,2,2,2]}}");
	DIFF("{\"tensor\":{\"dtype\":\"int64\",\"shape\":[2],\"values\":[-1,0]}}",
	     "{\"tensor\":{\"dtype\":\"int64\",\"shape\":[2],\"values\":[3,2]}}");
	SAME("{\"tensor\":{\"dtype\":\"int64\",\"shape\":[2],\"values\":[3,2]}}",
	     "{\"tensor\":{\"dtype\":\"int64\",\"shape\":[2],\"values\":[9,4]}}");
}

/* Name each record of a corpus by its line ("L1", "L2", ...), to read orders by line. */
static int label_of(const struct rank_set *s, uint32_t i, const char *path, char *out, size_t n)
{
	struct jsonl_reader r;
	struct instance in;
	struct err e = ERR_INIT;
	int st, found = 0;

	if (jsonl_open(&r, path, &e) < 0)
		return 0;
	while (!found && (st = jsonl_next(&r, &in, &e)) != JSONL_END && st != JSONL_FAIL) {
		if (st != JSONL_OK)
			continue;
		if (!strcmp(in.id, rank_set_id(s, i))) {
			snprintf(out, n, "L%zu", r.lineno);
			found = 1;
		}
		record_release(&in);
	}
	jsonl_close(&r);
	return found;
}

static const char *labels(const struct rank_set *s, const uint32_t *order, size_t n, const char *path)
{
	static char out[1024];
	size_t len = 0;

	out[0] = '\0';
	for (size_t k = 0; k < n; k++) {
		char l[16] = "?";

		label_of(s, order[k], path, l, sizeof(l));
		len += (size_t)snprintf(out + len, sizeof(out) - len, "%s%s", k ? " " : "", l);
	}
	return out;
}

struct bad {
	char msg[4][1024];
	int n;
};

static void on_bad(void *ctx, const struct err *e)
{
	struct bad *b = ctx;

	if (b->n < 4)
		snprintf(b->msg[b->n++], sizeof(b->msg[0]), "%s", e->msg);
}

static void test_corpus(void)
{
	struct rank_set s;
	struct rank_queue q = RANK_QUEUE_INIT;
	struct rank_opts o = RANK_OPTS_INIT;
	struct rank_stats st;
	struct counts c;
	struct err e = ERR_INIT;
	struct bad b = { .n = 0 };
	uint32_t order[16];
	size_t nbad;

	rank_set_init(&s);
	ok(rank_set_load(&s, DATA "corpus.jsonl", on_bad, &b, &nbad, &e) == 0 && nbad == 0 && s.n == 9,
	   "load a corpus of nine instances");
	rank_seeded_order(&s, 1, order, NULL);
	is(labels(&s, order, s.n, DATA "corpus.jsonl"), "L9 L6 L4 L8 L2 L1 L3 L5 L7", "its seeded order");
	counts_init(&c);
	ok(counts_load(&c, DATA "counts.json", &e) == 0, "load counts");
	o.counts = &c;
	ok(rank_run(&s, &o, &q, &st, &e) == 0, "rank");
	/* Op scores: Reshape (not in the counts) (2+1)/1 = 3; Conv (3+1)/(1+1) = 2; Relu (3+1)/(9+1) = 0.4.
	 * Conv has P = 3 (group, pads, inputs[0]), F = 6; Relu P = 1, F = 1; Reshape P = 2, F = 3.
	 * L8, the valid Reshape: 3 x 3/3. Conv in seeded order L2, L1, L3: L2 (group 3, pads [1,1], f32)
	 * 2 x 6/6. Then L1 (group 1 and pads [0,0] new, the f32 input seen; its three pairs new) and L3
	 * (group >1 seen; pads default and f16 new; three pairs new) both have 5 of 6 new: L1 first in
	 * seeded order, and it takes nothing from L3, so L3 follows at 5/6 too. Relu in seeded order L6,
	 * L4, L5: L6 (rank 0) 0.4, L4 (rank 2) 0.4, L5 (the subspace of L4) 0. Merged in turns, the better
	 * score first within one: L8 L2 L6, then L1 L4, then L3; the zero L5, then the invalid Reshape L7,
	 * then the opaque L9. */
	is(labels(&s, q.order, q.n, DATA "corpus.jsonl"), "L8 L2 L6 L1 L4 L3 L5 L7 L9", "the hand-worked order");
	is_dbl(q.score[0], 3, 1e-12, "the untested Reshape scores 3");
	is_dbl(q.score[3], 2 * 5.0 / 6, 1e-12, "the second Conv has 5 of 6 features new");
	is_dbl(q.score[5], 2 * 5.0 / 6, 1e-12, "and so has the third");
	is_int((long long)st.tier[RANK_TIER_INVALID], 1, "wrap's invalid annotation is read");
	is_int((long long)st.tier[RANK_TIER_UNMIGRATABLE], 1, "an opaque value makes an instance unmigratable");
	is_int((long long)st.counts_unknown, 1, "Softmax is counted but not in the corpus");
	ok(s.libs.n == 1 && !strcmp(intern_str(&s.libs, 0), "onnx"), "the corpus's library is known");
	counts_release(&c);
	rank_queue_release(&q);
	rank_set_release(&s);

	/* Bad lines are named by file and line, and the good ones still load. */
	rank_set_init(&s);
	ok(rank_set_load(&s, DATA "corpus-bad.jsonl", on_bad, &b, &nbad, &e) == 0 && nbad == 2 && s.n == 2,
	   "a corpus with two bad lines loads its two good ones");
	ok(b.n == 2 && strstr(b.msg[0], "corpus-bad.jsonl:2: params.alpha: unknown value type 'complex'"),
	   "an unknown value type: %s", b.msg[0]);
	ok(b.n == 2 && strstr(b.msg[1], "corpus-bad.jsonl:3: "), "a line that is no JSON: %s", b.msg[1]);
	rank_set_release(&s);
	rank_set_init(&s);
	ok(rank_set_load(&s, DATA "no-such-corpus.jsonl", on_bad, &b, &nbad, &e) < 0 &&
	   strstr(e.msg, "cannot open") && e.code == EXIT_INPUT, "a missing corpus: %s", e.msg);
	rank_set_release(&s);
}

static void test_counts(void)
{
	struct counts c, d;
	struct err e = ERR_INIT;
	struct buf out = BUF_INIT;
	char *text;
	FILE *fp;
	long len;

	counts_init(&c);
	ok(counts_load(&c, DATA "counts-bad.json", &e) < 0 && strstr(e.msg, "counts-bad.json: counts.Relu: expected a count") &&
	   e.code == EXIT_INPUT, "a negative count: %s", e.msg);
	counts_release(&c);
	counts_init(&c);
	ok(counts_parse(&c, "{\"counts\":{}}", 13, "x.json", &e) < 0 && strstr(e.msg, "x.json: not a counts file"),
	   "a file without the format: %s", e.msg);
	counts_release(&c);
	counts_init(&c);
	ok(counts_parse(&c, "[1,", 3, "x.json", &e) < 0 && strstr(e.msg, "x.json: not a JSON document"), "not JSON: %s", e.msg);
	counts_release(&c);
	counts_init(&c);
	text = "{\"format\":\"ferry-counts 1\",\"counts\":{\"A\":1,\"A\":2}}";
	ok(counts_parse(&c, text, strlen(text), "x.json", &e) < 0 && strstr(e.msg, "counts.A: appears twice"), "an operator twice");
	counts_release(&c);

	/* The C++ scanner: constructions count; comments, strings and non-literals do not. */
	counts_init(&c);
	fp = fopen(DATA "optester.cc", "r");
	fseek(fp, 0, SEEK_END);
	len = ftell(fp);
	rewind(fp);
	text = malloc((size_t)len + 1);
	if (fread(text, 1, (size_t)len, fp) != (size_t)len)
		len = 0;
	fclose(fp);
	counts_scan_cpp(&c, text, (size_t)len);
	free(text);
	ok(counts_get(&c, "Add") == 2 && counts_get(&c, "Mul") == 1 && counts_get(&c, "Cast") == 1 && counts_size(&c) == 3,
	   "OpTester: Add x2, Mul, Cast, and nothing from comments or strings");

	/* The MLIR scanner (IREE's imported ONNX tests): every torch.operator "onnx.Op", those in an If's
	 * branches too; not a commented-out line, nor an operator of another domain. */
	{
		struct counts m;
		struct buf mlir = BUF_INIT;

		counts_init(&m);
		if (fs_read(DATA "onnx_ops_if.mlir", &mlir, &e) == 0)
			counts_scan_mlir(&m, mlir.data, mlir.len);
		ok(counts_get(&m, "If") == 1 && counts_get(&m, "Constant") == 2 && counts_get(&m, "Add") == 1 &&
		   counts_size(&m) == 3, "torch.operator: If, Constant x2 (its branches), Add; not Relu (commented), "
		   "nor a com.microsoft operator (%zu names)", counts_size(&m));
		counts_release(&m);
		buf_release(&mlir);
	}

	/* Written and read back. */
	c.library = strdup("onnx");
	c.compiler = strdup("onnxruntime");
	counts_write(&c, &out);
	counts_init(&d);
	ok(counts_parse(&d, out.data, out.len, "written", &e) == 0 && counts_get(&d, "Add") == 2 && counts_size(&d) == 3 &&
	   !strcmp(d.library, "onnx") && !strcmp(d.compiler, "onnxruntime"), "a counts file reads back");
	counts_release(&d);
	counts_release(&c);
	buf_release(&out);
}

/* A counts file for another library is caught by the command; here, that its library is read. */
static void test_queue_file(void)
{
	struct rank_set s;
	struct rank_queue q = RANK_QUEUE_INIT;
	struct rank_opts o = RANK_OPTS_INIT;
	struct apfd_queue back;
	struct err e = ERR_INIT;
	struct buf line = BUF_INIT;
	char path[] = "/tmp/ferry-test-queue-XXXXXX";
	int fd = mkstemp(path), same = 1;

	close(fd);
	rank_set_init(&s);
	rank_set_add(&s, "x1", "A", RANK_TIER_OK, NULL, 0);
	rank_set_add(&s, "x2", "A", RANK_TIER_OK, NULL, 0);
	rank_set_add(&s, "q\"uote", "B", RANK_TIER_INVALID, NULL, 0);
	rank_run(&s, &o, &q, NULL, &e);
	rank_queue_line(&s, &q, 0, &line);
	ok(!strcmp(line.data, "{\"rank\":1,\"id\":\"x2\",\"op\":\"A\",\"score\":1}") ||
	   !strcmp(line.data, "{\"rank\":1,\"id\":\"x1\",\"op\":\"A\",\"score\":1}"), "a queue line: %s", line.data);
	buf_reset(&line);
	rank_queue_line(&s, &q, 2, &line);
	is(line.data, "{\"rank\":3,\"id\":\"q\\\"uote\",\"op\":\"B\",\"score\":1,\"status\":\"invalid\"}",
	   "an invalid instance's line, its id escaped");
	ok(rank_queue_write(&s, &q, path, &e) == 0, "write the queue");
	apfd_queue_init(&back);
	ok(apfd_queue_load(&back, path, &e) == 0 && back.n == 3, "read it back");
	for (size_t k = 0; k < back.n && k < q.n; k++)
		same &= !strcmp(back.ids[k], rank_set_id(&s, q.order[k]));
	ok(same, "the ids come back in queue order");
	apfd_queue_release(&back);
	ok(rank_queue_write(&s, &q, "/nonexistent-dir/q.jsonl", &e) < 0 && strstr(e.msg, "cannot create"),
	   "an unwritable queue: %s", e.msg);
	unlink(path);
	buf_release(&line);
	rank_queue_release(&q);
	rank_set_release(&s);
}

/* A corpus larger than the loader's blocks, with a line longer than a block, a bad line far from the
 * start and no newline at the end: the threaded loader must see exactly what a line-by-line read
 * sees, in the same order, with the same line numbers. */
static void test_big_corpus(void)
{
	char path[] = "/tmp/ferry-test-big-XXXXXX";
	int fd = mkstemp(path);
	FILE *fp = fdopen(fd, "w");
	struct rank_set s;
	struct jsonl_reader r;
	struct instance in;
	struct err e = ERR_INIT;
	struct bad b = { .n = 0 };
	size_t nbad, n = 0, same = 1;
	char *big = malloc(5 << 20);
	int st;

	for (int i = 0; i < 120000; i++) {
		if (i == 1000) {
			memset(big, 'a', (5 << 20) - 1);
			big[(5 << 20) - 1] = '\0';
			fprintf(fp, "{\"library\":\"onnx\",\"op\":\"Big\",\"params\":{\"s\":{\"str\":\"%s\"}}}\n", big);
		} else if (i == 100000) {
			fputs("{\"library\":\"onnx\",\"op\":\"Bad\",\"params\":{\"s\":{\"strr\":\"x\"}}}\r\n", fp);
		} else {
			fprintf(fp, "{\"library\":\"onnx\",\"op\":\"Op%d\",\"params\":{\"k\":{\"int\":%d}}}%s", i % 37, i,
				i + 1 < 120000 ? "\n" : "");
		}
		if (i == 5000)
			fputs("\n   \n", fp);
	}
	fclose(fp);
	free(big);
	rank_set_init(&s);
	st = rank_set_load(&s, path, on_bad, &b, &nbad, &e);
	ok(st == 0 && nbad == 1 && s.n == 119999, "a corpus of many blocks loads (%zu instances, %zu bad)", s.n, nbad);
	ok(b.n >= 1 && strstr(b.msg[b.n - 1], ":100003: params.s: unknown value type 'strr'"),
	   "the bad line is named by its line number");
	jsonl_open(&r, path, &e);
	while ((st = jsonl_next(&r, &in, &e)) != JSONL_END && st != JSONL_FAIL) {
		if (st != JSONL_OK)
			continue;
		if (n >= s.n || strcmp(in.id, rank_set_id(&s, (uint32_t)n)))
			same = 0;
		n++;
		record_release(&in);
	}
	jsonl_close(&r);
	ok(same && n == s.n, "the same records in the same order as a line-by-line read");
	rank_set_release(&s);
	unlink(path);
}

int main(void)
{
	plan(52);
	test_subspaces();
	test_corpus();
	test_counts();
	test_queue_file();
	test_big_corpus();
	return done();
}
