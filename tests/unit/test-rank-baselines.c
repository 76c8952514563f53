/* test-rank-baselines.c: the baselines. FAST on a corpus whose similarities are known (two groups
 * of identical texts with no shingle in common), total and additional coverage on the textbook
 * example, coverage files in both forms, and the tiers: whatever the strategy, instances that cannot
 * run come last. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "fast.h"
#include "rank.h"
#include "tap.h"

static const char *order_str(const struct rank_set *s, const struct rank_queue *q)
{
	static char out[4096];
	size_t len = 0;

	out[0] = '\0';
	for (size_t k = 0; k < q->n; k++)
		len += (size_t)snprintf(out + len, sizeof(out) - len, "%s%s", k ? " " : "", rank_set_id(s, q->order[k]));
	return out;
}

static const char *seeded_str(const struct rank_set *s, uint64_t seed)
{
	static char out[4096];
	uint32_t order[64];
	size_t len = 0;

	rank_seeded_order(s, seed, order, NULL);
	for (size_t k = 0; k < s->n; k++)
		len += (size_t)snprintf(out + len, sizeof(out) - len, "%s%s", k ? " " : "", rank_set_id(s, order[k]));
	return out;
}

static void add_text(struct rank_set *s, const char *id, const char *text, enum rank_tier t)
{
	uint32_t i = rank_set_add(s, id, "Op", t, NULL, 0);

	fast_signature(text, strlen(text), &s->sig[(size_t)i * RANK_SIG]);
}

static void test_fast(void)
{
	struct rank_set s;
	struct rank_queue q = RANK_QUEUE_INIT;
	struct rank_opts o = RANK_OPTS_INIT;
	struct err e = ERR_INIT;
	const char *g1 = "ABCDEFGHIJKLMNOPQRSTUVWXYZ", *g2 = "0123456789abcdefghijklmnop";
	uint64_t a[RANK_SIG], b[RANK_SIG];
	int differ = 1;

	fast_signature(g1, strlen(g1), a);
	fast_signature(g2, strlen(g2), b);
	for (int k = 0; k < RANK_SIG; k++)
		differ &= a[k] != b[k];
	ok(differ, "texts with no shingle in common share no minhash");
	fast_signature(g1, strlen(g1), b);
	ok(!memcmp(a, b, sizeof(a)), "the same text, the same signature");

	rank_set_init(&s);
	s.want_sig = 1;
	add_text(&s, "x1", g1, RANK_TIER_OK);
	add_text(&s, "x2", g1, RANK_TIER_OK);
	add_text(&s, "y1", g2, RANK_TIER_OK);
	add_text(&s, "y2", g2, RANK_TIER_OK);
	add_text(&s, "bad", g2, RANK_TIER_INVALID);
	is(seeded_str(&s, 1), "y2 x2 x1 bad y1", "the seeded order for seed 1");
	/* FAST-pw: the first is the seeded first (y2). y1 shares every bucket with y2, so the candidates
	 * are x2 and x1: x2 (seeded first, both at distance 1). Now x1 and y1 each share some bucket with
	 * the chosen signature (the minimum of x's and y's), so it starts over: x1 (seeded first), then y1,
	 * which does not resemble x1. The invalid one is last. */
	o.strategy = RANK_FAST;
	ok(rank_run(&s, &o, &q, NULL, &e) == 0, "rank with fast");
	is(order_str(&s, &q), "y2 x2 x1 y1 bad", "the hand-worked FAST-pw order");
	ok(q.score[0] == 1 && q.score[1] == 1, "the first two are at distance 1 from what came before");
	o.fast = RANK_FAST_ALL;
	ok(rank_run(&s, &o, &q, NULL, &e) == 0 && q.n == 5 && !strcmp(rank_set_id(&s, q.order[4]), "bad"),
	   "FAST-all ranks everything, the invalid last");
	rank_queue_release(&q);
	rank_set_release(&s);

	/* Without signatures FAST cannot run. */
	rank_set_init(&s);
	rank_set_add(&s, "x", "Op", RANK_TIER_OK, NULL, 0);
	o.fast = RANK_FAST_PW;
	ok(rank_run(&s, &o, &q, NULL, &e) < 0 && e.code == EXIT_USAGE, "fast without signatures is refused");
	rank_queue_release(&q);
	rank_set_release(&s);
}

static char dir[64];

static void test_coverage(void)
{
	struct rank_set s;
	struct rank_queue q = RANK_QUEUE_INIT;
	struct rank_opts o = RANK_OPTS_INIT;
	struct err e = ERR_INIT;
	char path[128];
	size_t unknown;
	FILE *fp;

	rank_set_init(&s);
	rank_set_add(&s, "t1", "Op", RANK_TIER_OK, NULL, 0);
	rank_set_add(&s, "t2", "Op", RANK_TIER_OK, NULL, 0);
	rank_set_add(&s, "t3", "Op", RANK_TIER_OK, NULL, 0);
	rank_set_add(&s, "t4", "Op", RANK_TIER_OK, NULL, 0);
	rank_set_add(&s, "t5", "Op", RANK_TIER_OK, NULL, 0);
	rank_set_add(&s, "t6", "Op", RANK_TIER_INVALID, NULL, 0);

	o.strategy = RANK_TOTAL;
	ok(rank_run(&s, &o, &q, NULL, &e) < 0 && strstr(e.msg, "needs coverage"), "total without coverage is refused");

	/* t1 {1,2,3}, t2 {3,4}, t3 {5}, t4 {1,2,3,4}, t5 nothing, t6 (invalid) {1..6}; "zz" is no test. */
	snprintf(dir, sizeof(dir), "/tmp/ferry-test-cov-XXXXXX");
	if (!mkdtemp(dir))
		return;
	snprintf(path, sizeof(path), "%s/cov.jsonl", dir);
	fp = fopen(path, "w");
	fputs("{\"id\":\"t1\",\"covered\":[\"f.py:1\",\"f.py:2\",\"f.py:3\"]}\n"
	      "{\"id\":\"t2\",\"covered\":[\"f.py:3\",\"f.py:4\",\"f.py:4\"]}\n"
	      "{\"id\":\"t3\",\"covered\":[\"f.py:5\"]}\n"
	      "{\"id\":\"t4\",\"covered\":[\"f.py:1\",\"f.py:2\",\"f.py:3\",\"f.py:4\"]}\n"
	      "{\"id\":\"t6\",\"covered\":[\"f.py:1\",\"f.py:2\",\"f.py:3\",\"f.py:4\",\"f.py:5\",\"f.py:6\"]}\n"
	      "{\"id\":\"zz\",\"covered\":[\"f.py:9\"]}\n", fp);
	fclose(fp);
	ok(rank_set_load_coverage(&s, path, &unknown, &e) == 0, "load coverage from JSON lines");
	is_int((long long)unknown, 1, "coverage of an unknown test is counted apart");
	is_int((long long)s.ncovered, 5, "five tests have coverage");
	is_int((long long)(s.coff[2] - s.coff[1]), 2, "a repeated element counts once");

	/* Total: t4 (4), t1 (3), t2 (2), t3 (1), t5 (0); t6 last however much it covers. */
	ok(rank_run(&s, &o, &q, NULL, &e) == 0, "rank by total coverage");
	is(order_str(&s, &q), "t4 t1 t2 t3 t5 t6", "total coverage order");
	/* Additional: t4 (4 new), t3 (5: 1 new), then nothing adds: start over with t1, t2, t5 left:
	 * t1 (3), t2 (4 is new: 1), t5 covers nothing. */
	o.strategy = RANK_ADDITIONAL;
	ok(rank_run(&s, &o, &q, NULL, &e) == 0, "rank by additional coverage");
	is(order_str(&s, &q), "t4 t3 t1 t2 t5 t6", "additional coverage order, with a reset");
	ok(q.score[0] == 4 && q.score[1] == 1 && q.score[2] == 3 && q.score[3] == 1 && q.score[4] == 0,
	   "additional scores are the new elements: 4 1 3 1 0");
	unlink(path);

	/* The same coverage as a directory of one file per test. */
	{
		static const char *const files[][2] = {
			{ "t1.cov", "f.py:1\nf.py:2\nf.py:3\n" }, { "t2.txt", "f.py:3\nf.py:4\n" },
			{ "t3", "f.py:5\n" }, { "t4.cov", "f.py:1\nf.py:2\n\nf.py:3\nf.py:4" },
		};

		for (size_t k = 0; k < sizeof(files) / sizeof(files[0]); k++) {
			snprintf(path, sizeof(path), "%s/%s", dir, files[k][0]);
			fp = fopen(path, "w");
			fputs(files[k][1], fp);
			fclose(fp);
		}
		ok(rank_set_load_coverage(&s, dir, &unknown, &e) == 0 && unknown == 0, "load coverage from a directory");
		ok(rank_run(&s, &o, &q, NULL, &e) == 0, "rank by additional coverage again");
		is(order_str(&s, &q), "t4 t3 t1 t2 t5 t6", "the same order from the directory form");
		for (size_t k = 0; k < sizeof(files) / sizeof(files[0]); k++) {
			snprintf(path, sizeof(path), "%s/%s", dir, files[k][0]);
			unlink(path);
		}
	}
	rmdir(dir);
	rank_queue_release(&q);
	rank_set_release(&s);
}

int main(void)
{
	plan(21);
	test_fast();
	test_coverage();
	return done();
}
