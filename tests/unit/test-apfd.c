/* test-apfd.c: APFD, NAPFD and RAUC against values worked out by hand, and bad bug files and queues. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "apfd.h"
#include "tap.h"

static void queue_of(struct apfd_queue *q, const char *ids)
{
	char *copy = strdup(ids), *save = NULL;

	apfd_queue_init(q);
	for (char *t = strtok_r(copy, " ", &save); t; t = strtok_r(NULL, " ", &save))
		apfd_queue_add(q, t);
	free(copy);
}

static char *write_temp(const char *text)
{
	static char path[64];
	int fd;

	snprintf(path, sizeof(path), "/tmp/ferry-test-apfd-XXXXXX");
	fd = mkstemp(path);
	if (write(fd, text, strlen(text)) != (ssize_t)strlen(text))
		return NULL;
	close(fd);
	return path;
}

int main(void)
{
	struct apfd_bugs b;
	struct apfd_queue q;
	struct apfd_result r = APFD_RESULT_INIT;
	struct err e = ERR_INIT;
	const char *csv = "test_id,bug_id\n"
			  "T2,B1\n"
			  "T4,B1\n"
			  "# a comment, then a blank line\n"
			  "\n"
			  "T5, B2\n"
			  "T2,B3\n"
			  "T9,B4\n";
	char *path;

	plan(26);

	apfd_bugs_init(&b);
	ok(apfd_bugs_parse_csv(&b, csv, strlen(csv), "bugs.csv", &e) == 0, "a bug CSV with a header, a comment and a blank line");
	is_int((long long)b.n, 5, "five pairs");

	/* Queue T1..T5: B1 and B3 first found by T2 (position 2), B2 by T5 (5). B4's test T9 is not
	 * queued. n = 5, m = 3, sum TF = 9: APFD = 1 - 9/15 + 1/10 = 0.5. */
	queue_of(&q, "T1 T2 T3 T4 T5");
	ok(apfd_eval(&q, &b, 2, &r, &e) == 0, "evaluate");
	is_int((long long)r.n, 5, "n = 5 tests");
	is_int((long long)r.m, 3, "m = 3 bugs found by the queue");
	is_int((long long)r.missing, 1, "B4 is revealed by no queued test");
	is_dbl(r.apfd, 0.5, 1e-12, "APFD = 1 - 9/15 + 1/10");
	/* Budget 2: B1 and B3 found at 2, p = 2/3; NAPFD = 2/3 - 4/(2*3) + (2/3)/4 = 1/6. */
	is_int((long long)r.found_in_budget, 2, "two bugs within the budget");
	is_dbl(r.napfd, 1.0 / 6, 1e-12, "NAPFD at 2 tests = 2/3 - 4/6 + 1/6");
	/* Found after k tests: 0 2 2 2 3. The ideal order runs T2 (B1, B3) then T5: 2 3 3 3 3.
	 * 25%: k <= 2: 2 / 5. 50%: k <= 3: 4 / 8. 75%: k <= 4: 6 / 11. 100%: 9 / 14. */
	is_dbl(r.rauc[0], 2.0 / 5, 1e-12, "RAUC at 25%%");
	is_dbl(r.rauc[1], 4.0 / 8, 1e-12, "RAUC at 50%%");
	is_dbl(r.rauc[2], 6.0 / 11, 1e-12, "RAUC at 75%%");
	is_dbl(r.rauc[3], 9.0 / 14, 1e-12, "RAUC at 100%%");
	ok(r.ncurve == 3 && r.curve_tests[0] == 2 && r.curve_tests[1] == 2 && r.curve_tests[2] == 5,
	   "the curve rises at tests 2, 2 and 5");
	apfd_queue_release(&q);

	/* The best order: T2 then T5: TF = 1, 1, 2: APFD = 1 - 4/15 + 1/10. RAUC at 100% is 1. */
	queue_of(&q, "T2 T5 T1 T3 T4");
	apfd_eval(&q, &b, 0, &r, &e);
	is_dbl(r.apfd, 1 - 4.0 / 15 + 0.1, 1e-12, "APFD of the best order");
	is_dbl(r.rauc[3], 1, 1e-12, "the best order has RAUC 1");
	ok(isnan(r.napfd), "no budget, no NAPFD");
	apfd_queue_release(&q);

	/* A budget as large as the queue gives NAPFD = APFD when every bug is found. */
	queue_of(&q, "T1 T2 T3 T4 T5");
	apfd_eval(&q, &b, 100, &r, &e);
	is_dbl(r.napfd, r.apfd, 1e-12, "NAPFD over the whole queue equals APFD");
	apfd_queue_release(&q);

	/* No bug found: APFD is undefined. */
	queue_of(&q, "T1 T3");
	apfd_eval(&q, &b, 0, &r, &e);
	ok(r.m == 0 && isnan(r.apfd) && isnan(r.rauc[0]), "no bugs: APFD and RAUC are undefined");
	apfd_queue_release(&q);

	queue_of(&q, "T1 T2 T1");
	ok(apfd_eval(&q, &b, 0, &r, &e) < 0 && strstr(e.msg, "'T1' twice"), "a test queued twice is an error");
	apfd_queue_release(&q);
	apfd_result_release(&r);
	apfd_bugs_release(&b);

	/* Bad bug files name the line. */
	apfd_bugs_init(&b);
	ok(apfd_bugs_parse_csv(&b, "T1,B1\nT2\n", 9, "b.csv", &e) < 0 && !strcmp(e.msg, "b.csv:2: expected 'test_id,bug_id', got 'T2'"),
	   "a line without a comma: %s", e.msg);
	ok(apfd_bugs_parse_csv(&b, "T1,B1,x\n", 8, "b.csv", &e) < 0 && strstr(e.msg, "b.csv:1:"), "three columns");
	ok(apfd_bugs_parse_csv(&b, "T1,\n", 4, "b.csv", &e) < 0 && !strcmp(e.msg, "b.csv:1: the bug id is empty"), "an empty bug id");
	apfd_bugs_release(&b);

	/* Queue files: ferry rank's JSON Lines, or plain ids. */
	path = write_temp("{\"rank\":1,\"id\":\"T2\",\"op\":\"A\",\"score\":1}\n\nT5\n");
	apfd_queue_init(&q);
	ok(apfd_queue_load(&q, path, &e) == 0 && q.n == 2 && !strcmp(q.ids[0], "T2") && !strcmp(q.ids[1], "T5"),
	   "a queue of JSON lines and plain ids");
	apfd_queue_release(&q);
	unlink(path);
	path = write_temp("{\"rank\":1}\n");
	ok(apfd_queue_load(&q, path, &e) < 0 && strstr(e.msg, ":1: a queue line needs a string \"id\""), "a queue line without an id");
	apfd_queue_release(&q);
	unlink(path);
	path = write_temp("a\nb\na\n");
	ok(apfd_queue_load(&q, path, &e) < 0 && strstr(e.msg, ":3: 'a' is queued twice"), "a queue file with an id twice");
	apfd_queue_release(&q);
	unlink(path);
	return done();
}
