/* heap.c: the binary heap with a position index. */
#include "heap.h"
#include "xalloc.h"

#include <stdlib.h>
#include <string.h>

void heap_init(struct heap *h, size_t max_id, heap_before_fn before, const void *ctx)
{
	h->items = xmalloc((max_id ? max_id : 1) * sizeof(*h->items));
	h->pos = xmalloc((max_id ? max_id : 1) * sizeof(*h->pos));
	memset(h->pos, 0xff, (max_id ? max_id : 1) * sizeof(*h->pos));
	h->n = 0;
	h->max_id = max_id;
	h->before = before;
	h->ctx = ctx;
}

void heap_release(struct heap *h)
{
	free(h->items);
	free(h->pos);
	h->items = NULL;
	h->pos = NULL;
	h->n = 0;
	h->max_id = 0;
}

/* Both sifts move a hole instead of swapping: one write per level instead of three. */
static void sift_up(struct heap *h, size_t i)
{
	uint32_t id = h->items[i];

	while (i > 0) {
		size_t parent = (i - 1) / 2;
		uint32_t p = h->items[parent];

		if (!h->before(id, p, h->ctx))
			break;
		h->items[i] = p;
		h->pos[p] = (uint32_t)i;
		i = parent;
	}
	h->items[i] = id;
	h->pos[id] = (uint32_t)i;
}

static void sift_down(struct heap *h, size_t i)
{
	uint32_t id = h->items[i];

	for (;;) {
		size_t c = 2 * i + 1;
		uint32_t cid;

		if (c >= h->n)
			break;
		if (c + 1 < h->n && h->before(h->items[c + 1], h->items[c], h->ctx))
			c++;
		cid = h->items[c];
		if (!h->before(cid, id, h->ctx))
			break;
		h->items[i] = cid;
		h->pos[cid] = (uint32_t)i;
		i = c;
	}
	h->items[i] = id;
	h->pos[id] = (uint32_t)i;
}

void heap_push(struct heap *h, uint32_t id)
{
	h->items[h->n] = id;
	h->pos[id] = (uint32_t)h->n;
	h->n++;
	sift_up(h, h->n - 1);
}

uint32_t heap_top(const struct heap *h)
{
	return h->n ? h->items[0] : HEAP_ABSENT;
}

uint32_t heap_pop(struct heap *h)
{
	uint32_t top;

	if (!h->n)
		return HEAP_ABSENT;
	top = h->items[0];
	h->pos[top] = HEAP_ABSENT;
	if (--h->n) {
		h->items[0] = h->items[h->n];
		sift_down(h, 0);
	}
	return top;
}

void heap_update(struct heap *h, uint32_t id)
{
	size_t i = h->pos[id];

	if (i == HEAP_ABSENT)
		return;
	if (i > 0 && h->before(id, h->items[(i - 1) / 2], h->ctx))
		sift_up(h, i);
	else
		sift_down(h, i);
}

void heap_remove(struct heap *h, uint32_t id)
{
	size_t i = h->pos[id];
	uint32_t last;

	if (i == HEAP_ABSENT)
		return;
	h->pos[id] = HEAP_ABSENT;
	last = h->items[--h->n];
	if (i == h->n)
		return;
	h->items[i] = last;
	h->pos[last] = (uint32_t)i;
	heap_update(h, last);
}

int heap_contains(const struct heap *h, uint32_t id)
{
	return id < h->max_id && h->pos[id] != HEAP_ABSENT;
}

void heap_build(struct heap *h, const uint32_t *ids, size_t n)
{
	memcpy(h->items, ids, n * sizeof(*ids));
	h->n = n;
	for (size_t i = 0; i < n; i++)
		h->pos[ids[i]] = (uint32_t)i;
	for (size_t i = n / 2; i-- > 0;)
		sift_down(h, i);
}
