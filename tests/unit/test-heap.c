/* test-heap.c: the binary heap gives ids back in the caller's order, through pushes, pops, key
 * changes in both directions, removals and bulk building; checked against a sort. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "heap.h"
#include "tap.h"

static int64_t key[4096];

/* Higher key first, then lower id: a strict total order. */
static int before(uint32_t a, uint32_t b, const void *ctx)
{
	(void)ctx;
	if (key[a] != key[b])
		return key[a] > key[b];
	return a < b;
}

static int cmp_ids(const void *pa, const void *pb)
{
	uint32_t a = *(const uint32_t *)pa, b = *(const uint32_t *)pb;

	return before(a, b, NULL) ? -1 : before(b, a, NULL) ? 1 : 0;
}

static uint64_t rng = 42;

static uint64_t next(void)
{
	rng ^= rng << 13;
	rng ^= rng >> 7;
	rng ^= rng << 17;
	return rng;
}

/* Pop everything and compare with the sorted ids of the members. */
static int drains_sorted(struct heap *h, const unsigned char *member, size_t n)
{
	uint32_t want[4096], got;
	size_t m = 0, k = 0;

	for (uint32_t i = 0; i < n; i++)
		if (member[i])
			want[m++] = i;
	qsort(want, m, sizeof(want[0]), cmp_ids);
	while ((got = heap_pop(h)) != HEAP_ABSENT) {
		if (k >= m || got != want[k])
			return 0;
		k++;
	}
	return k == m;
}

int main(void)
{
	struct heap h;
	unsigned char member[4096];
	uint32_t ids[4096];
	int ok_all;

	plan(9);

	heap_init(&h, 8, before, NULL);
	is_int(heap_top(&h), HEAP_ABSENT, "an empty heap has no top");
	is_int(heap_pop(&h), HEAP_ABSENT, "popping an empty heap gives nothing");
	key[3] = 5;
	key[1] = 5;
	key[6] = 9;
	heap_push(&h, 3);
	heap_push(&h, 1);
	heap_push(&h, 6);
	is_int(heap_top(&h), 6, "the highest key is on top");
	key[6] = 0;
	heap_update(&h, 6);
	is_int(heap_pop(&h), 1, "after lowering 6, the tie at 5 goes to the lower id");
	key[6] = 7;
	heap_update(&h, 6);
	is_int(heap_pop(&h), 6, "raising a key moves the id up");
	heap_release(&h);

	/* Random pushes, updates and removals against a sort. */
	heap_init(&h, 4096, before, NULL);
	memset(member, 0, sizeof(member));
	for (uint32_t i = 0; i < 4096; i++) {
		key[i] = (int64_t)(next() % 100);
		if (next() % 2) {
			heap_push(&h, i);
			member[i] = 1;
		}
	}
	for (int r = 0; r < 3000; r++) {
		uint32_t i = (uint32_t)(next() % 4096);

		if (!member[i])
			continue;
		if (next() % 5 == 0) {
			heap_remove(&h, i);
			member[i] = 0;
		} else {
			key[i] = (int64_t)(next() % 100);
			heap_update(&h, i);
		}
	}
	ok(drains_sorted(&h, member, 4096), "random pushes, key changes and removals drain in order");
	ok(!heap_contains(&h, 0) && h.n == 0, "a drained heap contains nothing");

	/* Bulk build. */
	for (uint32_t i = 0; i < 4096; i++) {
		key[i] = (int64_t)(next() % 17);
		ids[i] = 4095 - i;
		member[i] = 1;
	}
	heap_build(&h, ids, 4096);
	ok_all = heap_contains(&h, 17) && heap_contains(&h, 4095);
	ok(ok_all, "a built heap contains its ids");
	ok(drains_sorted(&h, member, 4096), "a built heap drains in order");
	heap_release(&h);
	return done();
}
