/* heap.h: a binary max-heap of 32-bit ids with a position index, so that an id's key can change in
 * place (heap_update) instead of being pushed again. The order comes from the caller: before(a, b)
 * says whether id a must leave the heap before id b; it must be a strict total order, which is how
 * the ranking makes ties reproducible (the seeded order decides, never the heap's layout).
 *
 * Ids are below the capacity given to heap_init. Ownership: the heap owns its two arrays, never the
 * caller's keys. */
#ifndef FERRY_HEAP_H
#define FERRY_HEAP_H

#include <stddef.h>
#include <stdint.h>

typedef int (*heap_before_fn)(uint32_t a, uint32_t b, const void *ctx);

struct heap {
	uint32_t *items;     /* items[0] is the top */
	uint32_t *pos;       /* pos[id]: index in items, or HEAP_ABSENT */
	size_t n;
	size_t max_id;       /* ids are below this */
	heap_before_fn before;
	const void *ctx;
};

#define HEAP_ABSENT UINT32_MAX
#define HEAP_INIT { NULL, NULL, 0, 0, NULL, NULL }

/* Room for ids 0..max_id-1. */
void heap_init(struct heap *h, size_t max_id, heap_before_fn before, const void *ctx);
void heap_release(struct heap *h);

/* Add an id that is not in the heap. */
void heap_push(struct heap *h, uint32_t id);
/* The top id, or HEAP_ABSENT when empty. */
uint32_t heap_top(const struct heap *h);
/* Remove and return the top id (HEAP_ABSENT when empty). */
uint32_t heap_pop(struct heap *h);
/* The key of an id in the heap changed: restore the order around it. */
void heap_update(struct heap *h, uint32_t id);
/* Remove an id if it is in the heap. */
void heap_remove(struct heap *h, uint32_t id);
int heap_contains(const struct heap *h, uint32_t id);
/* Put ids[0..n) in at once, in O(n) (Floyd's bottom-up construction); the heap must be empty. */
void heap_build(struct heap *h, const uint32_t *ids, size_t n);

#endif
