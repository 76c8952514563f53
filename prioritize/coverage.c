/* coverage.c: total and additional coverage prioritization. */
#include "coverage.h"
#include "heap.h"
#include "xalloc.h"

#include <stdlib.h>
#include <string.h>

struct cov_ctx {
	const uint32_t *key;   /* per position in idx */
};

/* Higher key first, then earlier in the seeded order (lower position). */
static int cov_before(uint32_t a, uint32_t b, const void *ctx)
{
	const struct cov_ctx *c = ctx;

	if (c->key[a] != c->key[b])
		return c->key[a] > c->key[b];
	return a < b;
}

static uint32_t covered_count(const struct rank_set *s, uint32_t i)
{
	return s->coff ? (uint32_t)(s->coff[i + 1] - s->coff[i]) : 0;
}

/* Elements of instance i not yet in seen. */
static uint32_t fresh_count(const struct rank_set *s, uint32_t i, const uint64_t *seen)
{
	uint32_t c = 0;

	for (size_t k = s->coff[i]; k < s->coff[i + 1]; k++)
		c += !(seen[s->cov[k] / 64] & (1ULL << (s->cov[k] % 64)));
	return c;
}

static void total_rank(const struct rank_set *s, const uint32_t *idx, size_t n, uint32_t *out, double *score)
{
	uint32_t *key = xmalloc((n ? n : 1) * sizeof(uint32_t));
	struct cov_ctx ctx = { key };
	struct heap h;
	uint32_t *all = xmalloc((n ? n : 1) * sizeof(uint32_t));

	for (size_t k = 0; k < n; k++) {
		key[k] = covered_count(s, idx[k]);
		all[k] = (uint32_t)k;
	}
	heap_init(&h, n, cov_before, &ctx);
	heap_build(&h, all, n);
	for (size_t k = 0; k < n; k++) {
		uint32_t p = heap_pop(&h);

		out[k] = idx[p];
		score[k] = key[p];
	}
	heap_release(&h);
	free(key);
	free(all);
}

static void additional_rank(const struct rank_set *s, const uint32_t *idx, size_t n, uint32_t *out, double *score)
{
	uint32_t *key = xmalloc((n ? n : 1) * sizeof(uint32_t));
	uint32_t *all = xmalloc((n ? n : 1) * sizeof(uint32_t));
	uint64_t *seen = xcalloc(((size_t)s->nelems + 63) / 64 + 1, sizeof(uint64_t));
	struct cov_ctx ctx = { key };
	struct heap h;
	size_t nout = 0, nseen = 0;

	for (size_t k = 0; k < n; k++) {
		key[k] = covered_count(s, idx[k]);
		all[k] = (uint32_t)k;
	}
	heap_init(&h, n, cov_before, &ctx);
	heap_build(&h, all, n);
	while (h.n) {
		uint32_t p = heap_top(&h), fresh;

		if (!key[p]) {
			/* The best bound is 0: nothing left adds coverage. Start over if something left covers
			 * anything at all; otherwise the rest keeps the seeded order. */
			size_t any = 0;

			if (nseen) {
				memset(seen, 0, (((size_t)s->nelems + 63) / 64 + 1) * sizeof(uint64_t));
				nseen = 0;
				for (size_t x = 0; x < h.n; x++) {
					uint32_t q = h.items[x];

					key[q] = covered_count(s, idx[q]);
					any += key[q] > 0;
				}
			}
			if (any) {
				size_t m = h.n;

				memcpy(all, h.items, m * sizeof(uint32_t));
				heap_release(&h);
				heap_init(&h, n, cov_before, &ctx);
				heap_build(&h, all, m);
				continue;
			}
			while (h.n) {
				p = heap_pop(&h);
				out[nout] = idx[p];
				score[nout++] = 0;
			}
			break;
		}
		fresh = fresh_count(s, idx[p], seen);
		if (fresh != key[p]) {
			key[p] = fresh;
			heap_update(&h, p);
			continue;
		}
		heap_pop(&h);
		out[nout] = idx[p];
		score[nout++] = fresh;
		for (size_t k = s->coff[idx[p]]; k < s->coff[idx[p] + 1]; k++) {
			uint32_t el = s->cov[k];

			if (!(seen[el / 64] & (1ULL << (el % 64)))) {
				seen[el / 64] |= 1ULL << (el % 64);
				nseen++;
			}
		}
	}
	heap_release(&h);
	free(key);
	free(all);
	free(seen);
}

void coverage_rank(const struct rank_set *s, const uint32_t *idx, size_t n, int additional,
		   uint32_t *out, double *score)
{
	if (additional)
		additional_rank(s, idx, n, out, score);
	else
		total_rank(s, idx, n, out, score);
}
