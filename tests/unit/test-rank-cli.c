/* test-rank-cli.c: the commands as a user runs them -- ferry rank, ferry apfd, ferry count-tests --
 * through the built binary ($FERRY): their output files, their messages for bad input, and their
 * exit codes (0 ok, 2 usage, 4 bad input). count-tests needs the embedded interpreter and onnx; when
 * the binary cannot start them, those checks are skipped, saying so. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "counts.h"
#include "fsutil.h"
#include "tap.h"

#define DATA ABS_TOP_SRCDIR "/tests/data/rank/"

static const char *ferry;
static char dir[64];
static char out_text[1 << 16], err_text[1 << 16];

static void slurp(const char *path, char *buf, size_t cap)
{
	FILE *fp = fopen(path, "r");
	size_t n = fp ? fread(buf, 1, cap - 1, fp) : 0;

	buf[n] = '\0';
	if (fp)
		fclose(fp);
}

/* Run "ferry ARGS" in the work directory; stdout and stderr go to out_text and err_text. */
static int run(const char *args)
{
	char cmd[4096];
	int st;

	snprintf(cmd, sizeof(cmd), "cd '%s' && '%s' %s >out.txt 2>err.txt", dir, ferry, args);
	st = system(cmd);
	snprintf(cmd, sizeof(cmd), "%s/out.txt", dir);
	slurp(cmd, out_text, sizeof(out_text));
	snprintf(cmd, sizeof(cmd), "%s/err.txt", dir);
	slurp(cmd, err_text, sizeof(err_text));
	return WIFEXITED(st) ? WEXITSTATUS(st) : 128;
}

static int lines_of(const char *name)
{
	char path[256], buf[1 << 16];
	int n = 0;

	snprintf(path, sizeof(path), "%s/%s", dir, name);
	buf[0] = '\0';
	slurp(path, buf, sizeof(buf));
	for (char *p = buf; *p; p++)
		n += *p == '\n';
	return n;
}

static int exists(const char *name)
{
	char path[256];

	snprintf(path, sizeof(path), "%s/%s", dir, name);
	return access(path, F_OK) == 0;
}

static void test_rank(void)
{
	int code;

	code = run("rank " DATA "corpus.jsonl --counts " DATA "counts.json -o q.jsonl");
	ok(code == 0 && lines_of("q.jsonl") == 9, "rank writes one line per instance (exit %d)", code);
	{
		char path[256], q[4096];
		int jsonl = 1, k = 1;

		snprintf(path, sizeof(path), "%s/q.jsonl", dir);
		slurp(path, q, sizeof(q));
		for (char *l = q; *l; k++) {
			char *nl = strchr(l, '\n'), want[32];

			snprintf(want, sizeof(want), "{\"rank\":%d,\"id\":\"", k);
			jsonl &= nl && nl[-1] == '}' && !strncmp(l, want, strlen(want));
			l = nl ? nl + 1 : l + strlen(l);
		}
		ok(jsonl, "the queue is JSON lines, ranked from 1");
		ok(strstr(q, "\"op\":\"Reshape\",\"score\":3}") && strstr(q, "\"op\":\"Reshape\",\"score\":3}") < strchr(q, '\n'),
		   "the untested Reshape comes first");
		ok(strstr(q, "\"status\":\"invalid\"") && strstr(q, "\"status\":\"unmigratable\"") &&
		   strstr(q, "\"status\":\"invalid\"") < strstr(q, "\"status\":\"unmigratable\""),
		   "invalid, then unmigratable, last");
	}
	ok(strstr(err_text, "ferry: 2 of the 4 operators are in the counts of '" DATA "counts.json', which name 1 operator "
			    "the corpus does not have (such as 'Softmax')") != NULL,
	   "counts for an operator the corpus lacks: said in the summary, with its name");
	ok(strstr(err_text, "ferry: ranked 9 instances of 4 operators with opera: 7 can run, 1 invalid, 1 unmigratable") != NULL,
	   "a summary on stderr");
	/* Counted by hand over the 7 that can run. Conv (group, pads, inputs[0]): group {1, >1}, pads
	 * {[0,0], [1,1], default}, inputs[0] {float32, float16} of [1,3,8,8]: 7 singles, and each of the
	 * 3 pairs of parameters takes 3 combinations over the 3 instances: 9 pairs. Relu (inputs[0]):
	 * rank 2 with both sizes >1 ([2,3], [5,7]: one subspace) and rank 0: 2 singles. Reshape
	 * (inputs[0], inputs[1], from both instances) can run once: 2 singles, 1 pair. Custom is
	 * unmigratable and counts nothing. */
	ok(strstr(err_text, "ferry: the 7 that can run cover 11 (operator, parameter, subspace) singles and 10 pairs, "
			    "over 3 operators\n") != NULL, "the summary says the coverage, counted as the ranking does");

	code = run("rank " DATA "corpus.jsonl --counts " DATA "counts.json -o q2.jsonl --quiet");
	ok(code == 0 && !*err_text, "rank again, quietly");
	{
		char a[256], b[256], cmd[600];

		snprintf(a, sizeof(a), "%s/q.jsonl", dir);
		snprintf(b, sizeof(b), "%s/q2.jsonl", dir);
		snprintf(cmd, sizeof(cmd), "cmp -s '%s' '%s'", a, b);
		ok(system(cmd) == 0, "ranking twice gives the same queue file");
	}

	code = run("rank " DATA "corpus-bad.jsonl -o bad.jsonl");
	ok(code == 0 && lines_of("bad.jsonl") == 2, "a corpus with bad lines: the good ones are ranked (got %d)", code);
	ok(strstr(err_text, "ferry: warning: " DATA "corpus-bad.jsonl:2: params.alpha: unknown value type 'complex'") != NULL,
	   "the unknown type is named by file:line and member");
	ok(strstr(err_text, "ferry: 2 bad lines of '" DATA "corpus-bad.jsonl' left out of the queue") != NULL,
	   "and the summary says how many were left out");
	{
		char path[256];

		snprintf(path, sizeof(path), "%s/bad.jsonl", dir);
		unlink(path);
	}
	code = run("rank " DATA "corpus-bad.jsonl -o bad.jsonl --strict");
	ok(code == 4 && strstr(err_text, "has 2 bad lines (--strict"), "--strict refuses it: exit 4");
	ok(!exists("bad.jsonl"), "and writes no queue");

	code = run("rank " DATA "corpus.jsonl --counts " DATA "counts-torch.json -o x.jsonl");
	ok(code == 4 && strstr(err_text, "counts operators of library 'torch', but '" DATA "corpus.jsonl' holds instances of 'onnx'"),
	   "counts for another library: exit 4, and the message names both libraries");
	code = run("rank " DATA "corpus.jsonl --counts " DATA "counts-bad.json -o x.jsonl");
	ok(code == 4 && strstr(err_text, "counts-bad.json: counts.Relu: expected a count"), "a bad count: exit 4");
	code = run("rank " DATA "corpus.jsonl -o x.jsonl --strategy nope");
	ok(code == 2 && strstr(err_text, "unknown strategy 'nope'"), "an unknown strategy: exit 2");
	code = run("rank " DATA "corpus.jsonl -o x.jsonl --strategy additional");
	ok(code == 2 && strstr(err_text, "needs --coverage"), "additional without coverage: exit 2");
	code = run("rank " DATA "corpus.jsonl");
	ok(code == 2 && strstr(err_text, "no output"), "no -o: exit 2");

	code = run("rank " DATA "corpus.jsonl --stats");
	is(out_text, "{\"instances\":9,\"can_run\":7,\"operators\":3,\"singles\":11,\"pairs\":10}\n",
	   "--stats: the coverage alone, one JSON line on stdout");
	ok(code == 0 && !*err_text, "--stats: no queue needed, no summary (exit %d)", code);
	code = run("rank " DATA "corpus.jsonl --stats -o stats-q.jsonl");
	ok(code == 0 && lines_of("stats-q.jsonl") == 9, "--stats with -o writes the queue too");
	code = run("rank " DATA "corpus.jsonl --stats -o -");
	ok(code == 2 && strstr(err_text, "cannot go there too"), "--stats with the queue on stdout: exit 2");
	code = run("rank " DATA "corpus.jsonl --stats --strategy random");
	ok(code == 2 && strstr(err_text, "as the opera strategy does"), "--stats with another strategy: exit 2");

	code = run("rank " DATA "corpus.jsonl -o fast.jsonl --strategy fast");
	ok(code == 0 && lines_of("fast.jsonl") == 9, "rank with fast");
	code = run("rank " DATA "corpus.jsonl -o random.jsonl --strategy random --seed 7");
	ok(code == 0 && lines_of("random.jsonl") == 9, "rank at random");
}

static void test_apfd(void)
{
	char path[256], q[4096], id1[40] = "", id2[40] = "";
	const char *p;
	FILE *fp;
	int code;

	/* Bugs revealed by the first and the last queued tests of the opera queue. */
	snprintf(path, sizeof(path), "%s/q.jsonl", dir);
	slurp(path, q, sizeof(q));
	if ((p = strstr(q, "\"id\":\"")))
		memcpy(id1, p + 6, 32);
	if ((p = strrchr(q, '\n')) && p > q) {
		const char *last = p;

		while (last > q && last[-1] != '\n')
			last--;
		if ((p = strstr(last, "\"id\":\"")))
			memcpy(id2, p + 6, 32);
	}
	snprintf(path, sizeof(path), "%s/bugs.csv", dir);
	fp = fopen(path, "w");
	fprintf(fp, "test_id,bug_id\n%s,crash-1\n%s,wrong-2\nnot-a-queued-test,lost-3\n", id1, id2);
	fclose(fp);
	/* opera: found at 1 and 9 of 9: APFD = 1 - 10/18 + 1/18 = 0.5. */
	code = run("apfd --bugs bugs.csv --budget 50% opera=q.jsonl random.jsonl --curve curve.csv");
	ok(code == 0, "apfd over two queues (exit %d)", code);
	ok(strstr(out_text, "queue               tests  bugs  missing    APFD     NAPFD budget   RAUC25   RAUC50   RAUC75  RAUC100\n") != NULL,
	   "a table header");
	ok(strstr(out_text, "\nopera                   9     2        1  0.5000") != NULL, "opera's row: APFD 0.5");
	ok(strstr(out_text, "\nrandom                  9     2        1 ") != NULL, "a row named after the file");
	ok(lines_of("curve.csv") >= 5, "the curve file");
	code = run("apfd --bugs bugs.csv --format csv q.jsonl");
	ok(code == 0 && !strncmp(out_text, "queue,tests,bugs,missing,apfd,rauc25,rauc50,rauc75,rauc100\n\"q\",9,2,1,0.5000,", 75),
	   "CSV output");
	code = run("apfd --bugs nothing.csv q.jsonl");
	ok(code == 4 && strstr(err_text, "cannot open") != NULL, "a missing bug file: exit 4 (%d)", code);
	code = run("apfd q.jsonl");
	ok(code == 2, "no --bugs: exit 2");
}

static void test_count_tests(void)
{
	struct counts c;
	struct err e = ERR_INIT;
	int code = run("count-tests --library onnx " DATA "frontend_test.py " DATA "optester.cc");

	if (code == 3) {
		for (int k = 0; k < 6; k++)
			ok(1, "# SKIP the embedded interpreter cannot start here: %.100s", err_text);
		return;
	}
	counts_init(&c);
	ok(code == 0 && counts_parse(&c, out_text, strlen(out_text), "stdout", &e) == 0, "count-tests writes a counts file");
	ok(counts_get(&c, "Conv") == 2 && counts_get(&c, "Relu") == 2 && counts_get(&c, "Sigmoid") == 1 &&
	   counts_get(&c, "Add") == 2 && counts_get(&c, "Mul") == 1 && counts_get(&c, "Cast") == 1 && counts_size(&c) == 6,
	   "ONNX operator names from Python (not the docstring) and OpTester from C++");
	counts_release(&c);
	code = run("count-tests --library torch " DATA "frontend_test.py");
	counts_init(&c);
	ok(code == 0 && counts_parse(&c, out_text, strlen(out_text), "stdout", &e) == 0 &&
	   counts_get(&c, "torch.nn.Conv2d") == 1 && counts_get(&c, "torch.nn.functional.relu") == 1 &&
	   counts_get(&c, "torch.add") == 1 && counts_size(&c) == 3, "torch names resolved through the imports");
	counts_release(&c);
	code = run("count-tests " DATA "frontend_test.py");
	ok(code == 2 && strstr(err_text, "--library is required"), "no --library: exit 2");
	code = run("count-tests --library onnx " DATA);
	counts_init(&c);
	ok(code == 0 && counts_parse(&c, out_text, strlen(out_text), "stdout", &e) == 0 && counts_get(&c, "If") == 1 &&
	   counts_get(&c, "Constant") == 2 && counts_get(&c, "Add") == 3 && strstr(out_text, "onnx_ops_if.mlir") &&
	   strstr(err_text, "in 1 Python, 1 C++ and 1 MLIR files"), "a directory: its MLIR files are counted too");
	counts_release(&c);
	code = run("count-tests --library torch " DATA "onnx_ops_if.mlir");
	ok(code == 2 && strstr(err_text, "MLIR files are counted for --library onnx only"),
	   "an MLIR file for another library: exit 2");
}

int main(void)
{
	ferry = getenv("FERRY");
	if (!ferry || access(ferry, X_OK) != 0) {
		printf("1..0 # SKIP $FERRY is not the built ferry binary\n");
		return 0;
	}
	plan(40);
	snprintf(dir, sizeof(dir), "/tmp/ferry-test-rank-cli-XXXXXX");
	if (!mkdtemp(dir))
		return 1;
	test_rank();
	test_apfd();
	test_count_tests();
	{
		char cmd[128];

		snprintf(cmd, sizeof(cmd), "rm -rf '%s'", dir);
		if (system(cmd) != 0)
			diag("could not remove %s", dir);
	}
	return done();
}
