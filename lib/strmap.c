/* strmap.c: struct strmap. */
#include "strmap.h"
#include "xalloc.h"

#include <stdlib.h>
#include <string.h>
#include <xxhash.h>

void strmap_init(struct strmap *m)
{
	m->slots = NULL;
	m->cap = 0;
	m->len = 0;
}

void strmap_release(struct strmap *m)
{
	for (size_t i = 0; i < m->cap; i++)
		free(m->slots[i].key);
	free(m->slots);
	strmap_init(m);
}

static size_t slot_of(const struct strmap_entry *slots, size_t cap, const char *key)
{
	size_t i = (size_t)XXH3_64bits(key, strlen(key)) & (cap - 1);

	while (slots[i].key && strcmp(slots[i].key, key))
		i = (i + 1) & (cap - 1);
	return i;
}

static void rehash(struct strmap *m, size_t cap)
{
	struct strmap_entry *slots = xcalloc(cap, sizeof(*slots));

	for (size_t i = 0; i < m->cap; i++)
		if (m->slots[i].key)
			slots[slot_of(slots, cap, m->slots[i].key)] = m->slots[i];
	free(m->slots);
	m->slots = slots;
	m->cap = cap;
}

struct strmap_entry *strmap_find(const struct strmap *m, const char *key)
{
	size_t i;

	if (!m->cap)
		return NULL;
	i = slot_of(m->slots, m->cap, key);
	return m->slots[i].key ? &m->slots[i] : NULL;
}

struct strmap_entry *strmap_get(struct strmap *m, const char *key, int *created)
{
	size_t i;

	if ((m->len + 1) * 4 > m->cap * 3)
		rehash(m, m->cap ? m->cap * 2 : 16);
	i = slot_of(m->slots, m->cap, key);
	if (created)
		*created = !m->slots[i].key;
	if (!m->slots[i].key) {
		m->slots[i].key = xstrdup(key);
		m->len++;
	}
	return &m->slots[i];
}

static int by_count(const void *a, const void *b)
{
	const struct strmap_entry *x = *(struct strmap_entry *const *)a, *y = *(struct strmap_entry *const *)b;

	if (x->count != y->count)
		return x->count < y->count ? 1 : -1;
	return strcmp(x->key, y->key);
}

struct strmap_entry **strmap_sorted(const struct strmap *m)
{
	struct strmap_entry **v = xcalloc(m->len + 1, sizeof(*v));
	size_t n = 0;

	for (size_t i = 0; i < m->cap; i++)
		if (m->slots[i].key)
			v[n++] = &m->slots[i];
	qsort(v, n, sizeof(*v), by_count);
	return v;
}
