/* test-rank.c: the OPERA ranking. A hand-computed corpus with and without compiler-test counts, the
 * tiers, defaults, the properties (a permutation; the same seed gives the same order; the order of the
 * corpus's lines does not matter; ranking twice is stable), and a brute-force greedy that recounts
 * every instance at every step, which the fast incremental ranking must match exactly on random
 * corpora. The coverage the ranking reports (distinct singles and pairs of the instances that can
 * run) is counted by hand on the small corpora and by brute force on the random ones. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "counts.h"
#include "intern.h"
#include "opera.h"
#include "rank.h"
#include "subspace.h"
#include "tap.h"

static struct subspace_param param(const char *name, uint64_t code)
{
	struct subspace_param p = { name, strlen(name), code };

	return p;
}

/* Codes through the real value classes, so that the corpus reads like records. */
static uint64_t int_code(int64_t i)
{
	struct value v = { .type = V_INT, .u.i = i };

	return subspace_code(&v);
}

static uint64_t bool_code(int b)
{
	struct value v = { .type = V_BOOL, .u.b = b };

	return subspace_code(&v);
}

static uint64_t str_code(const char *s)
{
	struct value v = { .type = V_STR, .u.s = (char *)s };

	return subspace_code(&v);
}

static void add_xy(struct rank_set *s, const char *id, enum rank_tier t, int64_t x, int y)
{
	struct subspace_param p[2] = { param("x", int_code(x)), param("y", bool_code(y)) };

	rank_set_add(s, id, "A", t, p, 2);
}

static void add_z(struct rank_set *s, const char *id, const char *z)
{
	struct subspace_param p[1] = { param("z", str_code(z)) };

	rank_set_add(s, id, "B", RANK_TIER_OK, p, 1);
}

/* The queue's ids joined by spaces. */
static const char *order_str(const struct rank_set *s, const struct rank_queue *q)
{
	static char out[4096];
	size_t len = 0;

	out[0] = '\0';
	for (size_t k = 0; k < q->n && len + 40 < sizeof(out); k++)
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

static void hand_corpus(struct rank_set *s)
{
	rank_set_init(s);
	add_xy(s, "u1", RANK_TIER_UNMIGRATABLE, 1, 1);
	add_xy(s, "a1", RANK_TIER_OK, 0, 1);
	add_xy(s, "a2", RANK_TIER_OK, 0, 0);
	add_xy(s, "a3", RANK_TIER_OK, 5, 1);
	add_xy(s, "a4", RANK_TIER_OK, 5, 0);
	add_xy(s, "a5", RANK_TIER_OK, 7, 0);   /* the subspaces of a4 */
	add_xy(s, "c1", RANK_TIER_INVALID, -3, 1);
	add_z(s, "b1", "p");
	add_z(s, "b2", "q");
	add_z(s, "b3", "p");
}

static void test_hand(void)
{
	struct rank_set s;
	struct rank_queue q = RANK_QUEUE_INIT;
	struct rank_opts o = RANK_OPTS_INIT;
	struct rank_stats st;
	struct counts c;
	struct err e = ERR_INIT;

	hand_corpus(&s);
	/* The tie-breaking order everything below was worked out from. */
	is(seeded_str(&s, 1), "u1 a2 a3 a4 a1 b3 b2 b1 a5 c1", "the seeded order for seed 1");

	/* A: 7 instances, 3 compiler tests: (7+1)/(3+1) = 2. B: 3 instances, none: (3+1)/1 = 4.
	 * A has P = 2 (x, y), F = 3; B has P = 1, F = 1.
	 * B alone: b3 (4), then b2 (4, z=q is new), b1 (0). A alone: a2 (2x3/3), a3 (all new: 2),
	 * then a4, a1, a5 each have one new pair: a4 (2/3) first in seeded order, which makes a5's
	 * pair seen, then a1 (2/3), a5 (0). Merged, the operators take turns, the better score first
	 * within a turn: b3 a2, then b2 a3, then A alone (a4, a1); then the zeros in seeded order (b1
	 * before a5), the invalid tier (c1), the unmigratable (u1). By score alone B's two would both
	 * go before A's first. */
	counts_init(&c);
	counts_add(&c, "A", 3);
	counts_add(&c, "B", 0);
	counts_add(&c, "Nope", 9);
	o.counts = &c;
	ok(rank_run(&s, &o, &q, &st, &e) == 0, "rank with counts");
	is(order_str(&s, &q), "b3 a2 b2 a3 a4 a1 b1 a5 c1 u1", "the hand-computed order with counts: turns");
	is_dbl(q.score[0], 4, 1e-12, "b3 scores 4 x 1");
	is_dbl(q.score[1], 2, 1e-12, "a2 scores 2 x 3/3");
	is_dbl(q.score[4], 2.0 / 3, 1e-12, "a4 scores 2 x 1/3 (one new pair)");
	is_dbl(q.score[6], 0, 0, "b1 has nothing new");
	is_int((long long)st.tier[RANK_TIER_OK], 8, "eight instances can run");
	is_int((long long)st.tier[RANK_TIER_INVALID], 1, "one is invalid");
	is_int((long long)st.tier[RANK_TIER_UNMIGRATABLE], 1, "one is unmigratable");
	is_int((long long)st.ops_counted, 2, "both operators are in the counts");
	is_int((long long)st.counts_unknown, 1, "the counts name one operator the corpus lacks");
	is(st.unknown_example, "Nope", "and say which");
	/* Coverage of the eight that can run. A: x in {0, >1} (a1..a5: 0, 0, 5, 5, 7), y in {true,
	 * false}: 4 singles, and all 4 pairs of them occur. B: z in {p, q}: 2 singles, no pair (one
	 * parameter). u1 (x=1) and c1 (x=-3) cannot run: with them x would have 4 subspaces. */
	ok(st.have_cover, "opera reports coverage");
	is_int((long long)st.cover.ops, 2, "coverage: two operators can run");
	is_int((long long)st.cover.singles, 6, "coverage: 4 + 2 singles, the other tiers left out");
	is_int((long long)st.cover.pairs, 4, "coverage: 4 pairs, all of A");

	/* Without counts every operator scores 1: within a turn the ties (a2 and b3, then a3 and b2) go
	 * by the seeded order. */
	o.counts = NULL;
	ok(rank_run(&s, &o, &q, &st, &e) == 0, "rank without counts");
	is(order_str(&s, &q), "a2 b3 a3 b2 a4 a1 b1 a5 c1 u1", "the hand-computed order without counts: turns");

	/* Random is a seeded order of its own (seed rank_random_seed(1)), tier by tier. */
	is(seeded_str(&s, rank_random_seed(1)), "a3 u1 b2 a2 a1 b3 c1 a4 b1 a5", "the random order for seed 1");
	o.strategy = RANK_RANDOM;
	ok(rank_run(&s, &o, &q, &st, &e) == 0, "rank at random");
	ok(!st.have_cover, "random counts no coverage: it has no subspaces");
	is(order_str(&s, &q), "a3 b2 a2 a1 b3 a4 b1 a5 c1 u1", "random: its seeded order, invalid and unmigratable last");

	counts_release(&c);
	rank_queue_release(&q);
	rank_set_release(&s);
}

/* The random baseline is independent of OPERA's tie-breaking: on a corpus where OPERA's order is all
 * ties (2,000 instances of one usage), the tops of the two queues share about what chance gives
 * (200 x 200 / 2,000 = 20), for the default seed and another; with the same order they shared all. */
static void test_random_independent(void)
{
	struct rank_set s;
	struct rank_queue qo = RANK_QUEUE_INIT, qr = RANK_QUEUE_INIT;
	struct rank_opts o = RANK_OPTS_INIT;
	struct err e = ERR_INIT;
	char id[32];
	enum { N = 2000, TOP = 200 };

	rank_set_init(&s);
	for (int i = 0; i < N; i++) {
		struct subspace_param p[1] = { param("k", int_code(1)) };

		snprintf(id, sizeof(id), "t%d", i);
		rank_set_add(&s, id, "T", RANK_TIER_OK, p, 1);
	}
	for (uint64_t seed = 1; seed <= 2; seed++) {
		unsigned char in_top[N] = { 0 };
		int shared = 0;

		o.seed = seed;
		o.strategy = RANK_OPERA;
		ok(rank_run(&s, &o, &qo, NULL, &e) == 0, "opera, seed %d", (int)seed);
		o.strategy = RANK_RANDOM;
		ok(rank_run(&s, &o, &qr, NULL, &e) == 0, "random, seed %d", (int)seed);
		for (int k = 0; k < TOP; k++)
			in_top[qo.order[k]] = 1;
		for (int k = 0; k < TOP; k++)
			shared += in_top[qr.order[k]];
		diag("seed %d: the top %d of opera and random share %d", (int)seed, TOP, shared);
		ok(shared <= 40, "seed %d: the tops share %d of %d, no more than twice chance (20)", (int)seed, shared,
		   TOP);
	}
	rank_queue_release(&qo);
	rank_queue_release(&qr);
	rank_set_release(&s);
}

/* An absent parameter is at its default, which is one subspace of its own. */
static void test_defaults(void)
{
	struct rank_set s;
	struct rank_queue q = RANK_QUEUE_INIT;
	struct rank_opts o = RANK_OPTS_INIT;
	struct rank_stats st;
	struct err e = ERR_INIT;
	struct subspace_param p[2];

	rank_set_init(&s);
	/* d1 sets k=2 and m=true; d2 sets k=3 (same subspace) and leaves m out; d3 sets k=4 and m=true.
	 * P = 2 (the union), F = 3. Seeded order decides the first pick among the three at 3/3. */
	p[0] = param("k", int_code(2));
	p[1] = param("m", bool_code(1));
	rank_set_add(&s, "d1", "D", RANK_TIER_OK, p, 2);
	p[0] = param("k", int_code(3));
	rank_set_add(&s, "d2", "D", RANK_TIER_OK, p, 1);
	p[0] = param("k", int_code(4));
	rank_set_add(&s, "d3", "D", RANK_TIER_OK, p, 2);
	is(seeded_str(&s, 1), "d2 d3 d1", "the seeded order of the defaults corpus");
	/* d2 first (k>1, m default, pair): then d3 and d1 both have m=true and its pair new (2 of 3):
	 * d3 is first in seeded order; then d1 has nothing new. */
	ok(rank_run(&s, &o, &q, &st, &e) == 0, "rank the defaults corpus");
	is(order_str(&s, &q), "d2 d3 d1", "a parameter left out counts as its default subspace");
	is_dbl(q.score[1], 2.0 / 3, 1e-12, "m=true and its pair are new against the default");
	/* k: {>1}; m: {true, default}: 3 singles; pairs (>1, true), (>1, default). */
	ok(st.cover.singles == 3 && st.cover.pairs == 2 && st.cover.ops == 1,
	   "coverage counts the default as a subspace: 3 singles, 2 pairs (got %zu, %zu)", st.cover.singles,
	   st.cover.pairs);
	rank_queue_release(&q);
	rank_set_release(&s);
}

/* --- properties and the brute-force reference ------------------------------------------------------ */

static uint64_t rng;

static uint64_t next(void)
{
	rng = rng * 6364136223846793005ULL + 1442695040888963407ULL;
	return intern_mix(rng);
}

/* A random corpus: nops operators with 0..6 parameters each, of few subspaces so that ties and
 * exhausted diversity are common, with parameters randomly left out. */
static void random_corpus(struct rank_set *s, size_t n, uint32_t nops, uint64_t seed, int shuffled)
{
	static const char *names[] = { "p0", "p1", "p2", "p3", "p4", "p5" };
	size_t *perm = malloc(n * sizeof(*perm));

	rank_set_init(s);
	for (size_t i = 0; i < n; i++)
		perm[i] = i;
	if (shuffled) {
		rng = 99;
		for (size_t i = n - 1; i > 0; i--) {
			size_t j = next() % (i + 1), t = perm[i];

			perm[i] = perm[j];
			perm[j] = t;
		}
	}
	for (size_t k = 0; k < n; k++) {
		size_t i = perm[k];
		struct subspace_param p[6];
		char id[32], op[16];
		uint32_t o, np = 0, P;
		enum rank_tier tier;

		/* Everything about instance i comes from i and seed, so a shuffled corpus has the same
		 * instances. */
		rng = seed * 1000003 + i;
		o = (uint32_t)(next() % nops);
		P = o % 7;
		snprintf(id, sizeof(id), "i%zu", i);
		snprintf(op, sizeof(op), "op%u", o);
		for (uint32_t j = 0; j < P; j++) {
			if (next() % 4 == 0)
				continue;
			p[np++] = param(names[j], next() % (2 + j % 3));
		}
		tier = next() % 10 == 0 ? RANK_TIER_INVALID : RANK_TIER_OK;
		rank_set_add(s, id, op, tier, p, np);
	}
	free(perm);
}

/* The greedy exactly as the design states it, recounting every remaining instance each step: of the
 * instances with something new, those whose operator has had the fewest turns, the best score first;
 * then those with nothing new, in the seeded order. */
static void brute_force(const struct rank_set *s, const double *opscore, uint64_t seed, uint32_t *out, double *sc)
{
	size_t n = s->n;
	uint32_t *pos = malloc(n * sizeof(*pos));
	uint32_t *turns = calloc(s->ops.n + 1, sizeof(*turns));
	unsigned char *done = calloc(n, 1);
	/* seen singles and pairs, as (op and parameters, code a, code b) in a flat list */
	uint64_t (*seen)[3] = malloc(n * 64 * sizeof(*seen));
	size_t nseen = 0, nout = 0;

	rank_seeded_order(s, seed, NULL, pos);
	for (int tier = 0; tier < RANK_TIERS; tier++) {
		nseen = 0;
		memset(turns, 0, (s->ops.n + 1) * sizeof(*turns));
		for (;;) {
			int64_t best = -1;
			double bs = -1;
			uint32_t bf = 0, F = 0;

			for (size_t i = 0; i < n; i++) {
				uint32_t o = s->op[i], P, Fi, fresh = 0;
				uint64_t sub[8];
				double score;
				int better;

				if (done[i] || s->tier[i] != tier)
					continue;
				opera_shape(s, o, &P, &Fi);
				for (uint32_t a = 0; a < P; a++)
					sub[a] = UINT64_MAX;  /* default */
				for (size_t k = s->poff[i]; k < s->poff[i + 1]; k++)
					sub[s->pslot[k]] = s->pcode[k];
				for (uint32_t a = 0; a < P; a++)
					for (uint32_t b = a; b < P; b++) {
						uint64_t f0 = (uint64_t)o << 32 | a << 8 | b;
						uint64_t f2 = a == b ? 0 : sub[b];
						int found = 0;

						for (size_t x = 0; x < nseen && !found; x++)
							found = seen[x][0] == f0 && seen[x][1] == sub[a] && seen[x][2] == f2;
						fresh += !found;
					}
				score = fresh ? opscore[o] * ((double)fresh / Fi) : 0;
				if (best >= 0 && score > 0 && bs > 0 && turns[o] != turns[s->op[best]])
					better = turns[o] < turns[s->op[best]];
				else
					better = score > bs || (best >= 0 && score == bs && pos[i] < pos[best]);
				if (better) {
					bs = score;
					best = (int64_t)i;
					bf = fresh;
					F = Fi;
				}
			}
			if (best < 0)
				break;
			(void)F;
			out[nout] = (uint32_t)best;
			sc[nout++] = bs;
			done[best] = 1;
			turns[s->op[best]]++;
			if (bf) {
				uint32_t o = s->op[best], P, Fi;
				uint64_t sub[8];

				opera_shape(s, o, &P, &Fi);
				for (uint32_t a = 0; a < P; a++)
					sub[a] = UINT64_MAX;
				for (size_t k = s->poff[best]; k < s->poff[best + 1]; k++)
					sub[s->pslot[k]] = s->pcode[k];
				for (uint32_t a = 0; a < P; a++)
					for (uint32_t b = a; b < P; b++) {
						seen[nseen][0] = (uint64_t)o << 32 | a << 8 | b;
						seen[nseen][1] = sub[a];
						seen[nseen][2] = a == b ? 0 : sub[b];
						nseen++;
					}
			}
		}
	}
	free(pos);
	free(turns);
	free(done);
	free(seen);
}

static int tuple_cmp(const void *pa, const void *pb)
{
	const uint64_t *a = pa, *b = pb;

	for (int k = 0; k < 3; k++)
		if (a[k] != b[k])
			return a[k] < b[k] ? -1 : 1;
	return 0;
}

/* The distinct singles and pairs of the instances that can run, listed and sorted: the definition,
 * with no tables. */
static void brute_cover(const struct rank_set *s, struct rank_cover *c)
{
	uint64_t (*f)[3] = malloc((s->n * 64 + 1) * sizeof(*f));
	unsigned char *has = calloc(s->ops.n + 1, 1);
	size_t nf = 0;

	memset(c, 0, sizeof(*c));
	for (size_t i = 0; i < s->n; i++) {
		uint32_t o = s->op[i], P, Fi;
		uint64_t sub[8];

		if (s->tier[i] != RANK_TIER_OK)
			continue;
		has[o] = 1;
		opera_shape(s, o, &P, &Fi);
		for (uint32_t a = 0; a < P; a++)
			sub[a] = UINT64_MAX;
		for (size_t k = s->poff[i]; k < s->poff[i + 1]; k++)
			sub[s->pslot[k]] = s->pcode[k];
		for (uint32_t a = 0; a < P; a++)
			for (uint32_t b = a; b < P; b++) {
				f[nf][0] = (uint64_t)o << 32 | a << 8 | b;
				f[nf][1] = sub[a];
				f[nf++][2] = a == b ? 0 : sub[b];
			}
	}
	qsort(f, nf, sizeof(*f), tuple_cmp);
	for (size_t k = 0; k < nf; k++) {
		uint64_t a = f[k][0] >> 8 & 0xff, b = f[k][0] & 0xff;

		if (k && !tuple_cmp(f[k], f[k - 1]))
			continue;
		if (a == b)
			c->singles++;
		else
			c->pairs++;
	}
	for (size_t o = 0; o < s->ops.n; o++)
		c->ops += has[o];
	free(f);
	free(has);
}

static void test_properties(void)
{
	struct rank_set s, t;
	struct rank_queue q = RANK_QUEUE_INIT, q2 = RANK_QUEUE_INIT;
	struct rank_opts o = RANK_OPTS_INIT;
	struct err e = ERR_INIT;
	struct counts c;
	int perm_ok = 1, same = 1, shuffled_same = 1, brute_ok = 1, seeds_differ = 0, cover_ok = 1;
	struct rank_stats st, st2;
	struct rank_cover bc;

	counts_init(&c);
	for (int op = 0; op < 12; op += 2) {
		char name[16];

		snprintf(name, sizeof(name), "op%d", op);
		counts_add(&c, name, (uint64_t)op * 3);
	}
	for (uint64_t seed = 1; seed <= 6; seed++) {
		size_t n = 300 + 150 * seed;
		unsigned char *seen;
		double *opscore;
		uint32_t *bo;
		double *bsc;

		random_corpus(&s, n, 4 + (uint32_t)seed, seed, 0);
		o.seed = seed;
		o.counts = seed % 2 ? &c : NULL;
		rank_run(&s, &o, &q, &st, &e);
		seen = calloc(n, 1);
		for (size_t k = 0; k < q.n; k++) {
			if (q.order[k] >= n || seen[q.order[k]])
				perm_ok = 0;
			else
				seen[q.order[k]] = 1;
		}
		perm_ok &= q.n == n;
		free(seen);
		brute_cover(&s, &bc);
		if (st.cover.ops != bc.ops || st.cover.singles != bc.singles || st.cover.pairs != bc.pairs) {
			diag("seed %llu: coverage %zu ops, %zu singles, %zu pairs; brute force %zu, %zu, %zu",
			     (unsigned long long)seed, st.cover.ops, st.cover.singles, st.cover.pairs, bc.ops,
			     bc.singles, bc.pairs);
			cover_ok = 0;
		}
		o.jobs = (int)seed % 3 + 2;
		rank_run(&s, &o, &q2, &st2, &e);
		cover_ok &= !memcmp(&st.cover, &st2.cover, sizeof(st.cover));
		o.jobs = 1;
		same &= !memcmp(q.order, q2.order, n * sizeof(*q.order));
		rank_run(&s, &o, &q2, NULL, &e);
		o.jobs = 0;
		same &= !memcmp(q.order, q2.order, n * sizeof(*q.order));

		/* The same corpus, lines shuffled: the same ids in the same order. */
		random_corpus(&t, n, 4 + (uint32_t)seed, seed, 1);
		rank_run(&t, &o, &q2, NULL, &e);
		for (size_t k = 0; k < n; k++)
			if (strcmp(rank_set_id(&s, q.order[k]), rank_set_id(&t, q2.order[k])))
				shuffled_same = 0;
		rank_set_release(&t);

		/* Another seed: another order, somewhere. */
		o.seed = seed + 100;
		rank_run(&s, &o, &q2, NULL, &e);
		seeds_differ += memcmp(q.order, q2.order, n * sizeof(*q.order)) != 0;
		o.seed = seed;

		opscore = malloc(s.ops.n * sizeof(*opscore));
		opera_op_scores(&s, o.counts, opscore, NULL);
		bo = malloc(n * sizeof(*bo));
		bsc = malloc(n * sizeof(*bsc));
		brute_force(&s, opscore, seed, bo, bsc);
		for (size_t k = 0; k < n; k++)
			if (bo[k] != q.order[k] || bsc[k] != q.score[k]) {
				if (brute_ok)
					diag("seed %llu: position %zu: brute force %s (%g), ranking %s (%g)",
					     (unsigned long long)seed, k, rank_set_id(&s, bo[k]), bsc[k],
					     rank_set_id(&s, q.order[k]), q.score[k]);
				brute_ok = 0;
				break;
			}
		free(opscore);
		free(bo);
		free(bsc);
		rank_set_release(&s);
	}
	ok(perm_ok, "the queue is a permutation of the corpus");
	ok(same, "ranking twice gives the same order, on one thread or several");
	ok(shuffled_same, "the order of the corpus's lines does not change the queue");
	ok(seeds_differ == 6, "another seed breaks ties another way");
	ok(brute_ok, "the incremental ranking equals the brute-force greedy on random corpora");
	ok(cover_ok, "the coverage equals the distinct singles and pairs counted by brute force, on any number of threads");
	counts_release(&c);
	rank_queue_release(&q);
	rank_queue_release(&q2);
}

/* An operator with no parameters: its first instance is new, the rest are not. */
static void test_no_params(void)
{
	struct rank_set s;
	struct rank_queue q = RANK_QUEUE_INIT;
	struct rank_opts o = RANK_OPTS_INIT;
	struct rank_stats st;
	struct err e = ERR_INIT;

	rank_set_init(&s);
	rank_set_add(&s, "n1", "Nullary", RANK_TIER_OK, NULL, 0);
	rank_set_add(&s, "n2", "Nullary", RANK_TIER_OK, NULL, 0);
	rank_set_add(&s, "n3", "Nullary", RANK_TIER_OK, NULL, 0);
	rank_run(&s, &o, &q, &st, &e);
	ok(q.score[0] == 1 && q.score[1] == 0 && q.score[2] == 0, "a parameterless operator: 1, then 0, 0");
	ok(st.cover.singles == 1 && st.cover.pairs == 0, "a parameterless operator covers its one pseudo-single");
	rank_queue_release(&q);
	rank_set_release(&s);
}

int main(void)
{
	plan(42);
	test_hand();
	test_defaults();
	test_random_independent();
	test_no_params();
	test_properties();
	return done();
}
