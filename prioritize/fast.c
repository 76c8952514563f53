/* fast.c: FAST (minhash + LSH similarity-based prioritization). */
#include "fast.h"
#include "intern.h"
#include "xalloc.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <xxhash.h>

#define NONE_SIG UINT64_MAX

void fast_signature(const char *text, size_t len, uint64_t *sig)
{
	size_t k = len < RANK_SHINGLE ? len : RANK_SHINGLE;

	for (int i = 0; i < RANK_SIG; i++)
		sig[i] = NONE_SIG;
	for (size_t at = 0; at + k <= len; at++) {
		/* One real hash per shingle; the RANK_SIG functions are cheap remixes of it. */
		uint64_t h = XXH3_64bits(text + at, k);

		for (int i = 0; i < RANK_SIG; i++) {
			uint64_t v = intern_mix(h ^ (0x51ed270b27a6c3a9ULL * (uint64_t)(i + 1)));

			if (v < sig[i])
				sig[i] = v;
		}
		if (!k)
			break;
	}
}

/* LSH buckets: for each band, the instances (positions in idx) grouped by their band value. */
struct buckets {
	struct idmap map;       /* (band, value) -> bucket */
	uint32_t *start;        /* nb + 1 */
	uint32_t *items;        /* n * RANK_SIG */
	size_t nb;
};

static void buckets_build(struct buckets *b, const struct rank_set *s, const uint32_t *idx, size_t n)
{
	uint32_t *bid = xmalloc(n * RANK_SIG * sizeof(uint32_t));
	uint32_t *fill;

	idmap_init(&b->map);
	b->nb = 0;
	for (size_t k = 0; k < n; k++) {
		const uint64_t *sig = &s->sig[(size_t)idx[k] * RANK_SIG];

		for (int band = 0; band < RANK_SIG; band++) {
			int added;

			bid[k * RANK_SIG + band] = idmap_put(&b->map, (uint64_t)band, sig[band], (uint32_t)b->nb,
				&added);
			if (added)
				b->nb++;
		}
	}
	b->start = xcalloc(b->nb + 1, sizeof(uint32_t));
	for (size_t x = 0; x < n * RANK_SIG; x++)
		b->start[bid[x] + 1]++;
	for (size_t x = 0; x < b->nb; x++)
		b->start[x + 1] += b->start[x];
	fill = xmalloc((b->nb + 1) * sizeof(uint32_t));
	memcpy(fill, b->start, (b->nb + 1) * sizeof(uint32_t));
	b->items = xmalloc(n * RANK_SIG * sizeof(uint32_t));
	for (size_t x = 0; x < n * RANK_SIG; x++)
		b->items[fill[bid[x]]++] = (uint32_t)(x / RANK_SIG);
	free(fill);
	free(bid);
}

static void buckets_release(struct buckets *b)
{
	idmap_release(&b->map);
	free(b->start);
	free(b->items);
}

static double distance(const uint64_t *a, const uint64_t *u)
{
	int same = 0;

	for (int i = 0; i < RANK_SIG; i++)
		same += a[i] == u[i];
	return 1.0 - (double)same / RANK_SIG;
}

static uint64_t rng_next(uint64_t *state)
{
	*state += 0x9e3779b97f4a7c15ULL;
	return intern_mix(*state);
}

static size_t sample_size(enum rank_fast_variant v, size_t c)
{
	size_t k;

	switch (v) {
	case RANK_FAST_ONE: k = 1; break;
	case RANK_FAST_LOG: k = (size_t)log2((double)c); break;
	case RANK_FAST_SQRT: k = (size_t)sqrt((double)c); break;
	case RANK_FAST_ALL: k = c; break;
	default: k = 1; break;
	}
	return k < 1 ? 1 : k > c ? c : k;
}

void fast_rank(const struct rank_set *s, const uint32_t *idx, size_t n, enum rank_fast_variant v,
	       uint64_t seed, uint32_t *out, double *score)
{
	struct buckets b;
	uint64_t u[RANK_SIG];
	uint32_t *rest = xmalloc((n ? n : 1) * sizeof(uint32_t));  /* remaining positions, seeded order */
	uint32_t *stamp = xcalloc(n ? n : 1, sizeof(uint32_t));    /* == iteration: similar to u */
	uint32_t *cand = xmalloc((n ? n : 1) * sizeof(uint32_t));
	unsigned char *done = xcalloc(n ? n : 1, 1);
	uint64_t rng = intern_mix(seed ^ 0xfa57fa57fa57fa57ULL);
	size_t nrest = n, nout = 0;
	uint32_t iter = 0;

	buckets_build(&b, s, idx, n);
	for (size_t k = 0; k < n; k++)
		rest[k] = (uint32_t)k;
	for (int i = 0; i < RANK_SIG; i++)
		u[i] = NONE_SIG;
	while (nout < n) {
		size_t nc = 0, w = 0;

		iter++;
		/* Mark what shares a bucket with the chosen signature. */
		for (int band = 0; band < RANK_SIG; band++) {
			uint32_t bk;

			if (u[band] == NONE_SIG || (bk = idmap_get(&b.map, (uint64_t)band, u[band])) == UINT32_MAX)
				continue;
			for (uint32_t x = b.start[bk]; x < b.start[bk + 1]; x++)
				stamp[b.items[x]] = iter;
		}
		/* Compact the remaining list and collect the candidates. */
		for (size_t r = 0; r < nrest; r++) {
			uint32_t k = rest[r];

			if (done[k])
				continue;
			rest[w++] = k;
			if (stamp[k] != iter)
				cand[nc++] = k;
		}
		nrest = w;
		if (!nc) {
			/* Everything left resembles what was chosen: start the chosen signature over. */
			for (int i = 0; i < RANK_SIG; i++)
				u[i] = NONE_SIG;
			memcpy(cand, rest, nrest * sizeof(uint32_t));
			nc = nrest;
		}
		if (v == RANK_FAST_PW) {
			size_t best = 0;
			double bd = -1;

			for (size_t c = 0; c < nc; c++) {
				double d = distance(&s->sig[(size_t)idx[cand[c]] * RANK_SIG], u);

				if (d > bd) {
					bd = d;
					best = c;
				}
			}
			cand[0] = cand[best];
			nc = 1;
		} else {
			size_t want = sample_size(v, nc);

			/* A partial Fisher-Yates shuffle: the first `want` entries are the draw. */
			for (size_t c = 0; c < want; c++) {
				size_t r = c + (size_t)(rng_next(&rng) % (nc - c));
				uint32_t t = cand[c];

				cand[c] = cand[r];
				cand[r] = t;
			}
			nc = want;
		}
		for (size_t c = 0; c < nc; c++) {
			uint32_t k = cand[c];
			const uint64_t *sig = &s->sig[(size_t)idx[k] * RANK_SIG];

			score[nout] = distance(sig, u);
			out[nout++] = idx[k];
			done[k] = 1;
			for (int i = 0; i < RANK_SIG; i++)
				if (sig[i] < u[i])
					u[i] = sig[i];
		}
	}
	buckets_release(&b);
	free(rest);
	free(stamp);
	free(cand);
	free(done);
}
