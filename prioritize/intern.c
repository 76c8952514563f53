/* intern.c: string interning and exact pair-keyed maps, open addressing. */
#include "intern.h"
#include "xalloc.h"

#include <stdlib.h>
#include <string.h>
#include <xxhash.h>

/* Tables stay at most half full: probes stay short, and a miss ends at the first empty slot. */
#define MIN_CAP 16

void intern_init(struct intern *t)
{
	struct intern zero = INTERN_INIT;

	*t = zero;
}

void intern_release(struct intern *t)
{
	free(t->slots);
	free(t->hash);
	free(t->scope);
	free(t->off);
	free(t->arena);
	intern_init(t);
}

uint64_t intern_hash(const char *s, size_t len)
{
	return XXH3_64bits(s, len);
}

/* The table's hash of (scope, string), from the string's own: so that a loader's threads can hash
 * the strings and the thread that interns them only mixes in the scope. */
static uint64_t scoped(uint32_t scope, uint64_t h)
{
	return scope ? intern_mix(h ^ ((uint64_t)scope << 32)) : h;
}

static int str_eq(const struct intern *t, uint32_t id, uint32_t scope, const char *s, size_t len)
{
	const char *p = t->arena + t->off[id];

	return t->scope[id] == scope && !memcmp(p, s, len) && p[len] == '\0';
}

static void intern_rehash(struct intern *t, size_t cap)
{
	free(t->slots);
	t->slots = xcalloc(cap, sizeof(*t->slots));
	t->cap = cap;
	for (uint32_t id = 0; id < t->n; id++) {
		size_t i = t->hash[id] & (cap - 1);

		while (t->slots[i])
			i = (i + 1) & (cap - 1);
		t->slots[i] = id + 1;
	}
}

uint32_t intern_find(const struct intern *t, uint32_t scope, const char *s, size_t len)
{
	uint64_t h;
	size_t i;

	if (!t->cap)
		return UINT32_MAX;
	h = scoped(scope, intern_hash(s, len));
	for (i = h & (t->cap - 1); t->slots[i]; i = (i + 1) & (t->cap - 1)) {
		uint32_t id = t->slots[i] - 1;

		if (t->hash[id] == h && str_eq(t, id, scope, s, len))
			return id;
	}
	return UINT32_MAX;
}

uint32_t intern_add(struct intern *t, uint32_t scope, const char *s, size_t len, int *added)
{
	return intern_add_hashed(t, scope, s, len, intern_hash(s, len), added);
}

uint32_t intern_add_hashed(struct intern *t, uint32_t scope, const char *s, size_t len, uint64_t strhash,
			   int *added)
{
	uint64_t h = scoped(scope, strhash);
	uint32_t id;
	size_t i;

	if (added)
		*added = 0;
	if (t->cap) {
		for (i = h & (t->cap - 1); t->slots[i]; i = (i + 1) & (t->cap - 1)) {
			id = t->slots[i] - 1;
			if (t->hash[id] == h && str_eq(t, id, scope, s, len))
				return id;
		}
	}
	id = (uint32_t)t->n;
	if (t->n + 1 > t->ncap) {
		size_t c = t->ncap ? 2 * t->ncap : MIN_CAP;

		t->hash = xrealloc(t->hash, c * sizeof(*t->hash));
		t->scope = xrealloc(t->scope, c * sizeof(*t->scope));
		t->off = xrealloc(t->off, c * sizeof(*t->off));
		t->ncap = c;
	}
	XGROW(t->arena, t->acap, t->alen + len + 1);
	memcpy(t->arena + t->alen, s, len);
	t->arena[t->alen + len] = '\0';
	t->hash[id] = h;
	t->scope[id] = scope;
	t->off[id] = t->alen;
	t->alen += len + 1;
	t->n++;
	if (2 * t->n > t->cap) {
		intern_rehash(t, t->cap ? 2 * t->cap : MIN_CAP);
	} else {
		for (i = h & (t->cap - 1); t->slots[i]; i = (i + 1) & (t->cap - 1))
			;
		t->slots[i] = id + 1;
	}
	if (added)
		*added = 1;
	return id;
}

const char *intern_str(const struct intern *t, uint32_t id)
{
	return t->arena + t->off[id];
}

/* --- idmap ------------------------------------------------------------------------------------- */

void idmap_init(struct idmap *m)
{
	struct idmap zero = IDMAP_INIT;

	*m = zero;
}

void idmap_release(struct idmap *m)
{
	free(m->keys);
	free(m->vals);
	idmap_init(m);
}

static size_t pair_slot(uint64_t a, uint64_t b, size_t cap)
{
	return intern_mix(a ^ intern_mix(b)) & (cap - 1);
}

static void idmap_rehash(struct idmap *m, size_t cap)
{
	uint64_t *keys = xmalloc(cap * 2 * sizeof(*keys));
	uint32_t *vals = xcalloc(cap, sizeof(*vals));

	for (size_t j = 0; j < m->cap; j++) {
		size_t i;

		if (!m->vals[j])
			continue;
		i = pair_slot(m->keys[2 * j], m->keys[2 * j + 1], cap);
		while (vals[i])
			i = (i + 1) & (cap - 1);
		keys[2 * i] = m->keys[2 * j];
		keys[2 * i + 1] = m->keys[2 * j + 1];
		vals[i] = m->vals[j];
	}
	free(m->keys);
	free(m->vals);
	m->keys = keys;
	m->vals = vals;
	m->cap = cap;
}

uint32_t idmap_get(const struct idmap *m, uint64_t a, uint64_t b)
{
	size_t i;

	if (!m->cap)
		return UINT32_MAX;
	for (i = pair_slot(a, b, m->cap); m->vals[i]; i = (i + 1) & (m->cap - 1))
		if (m->keys[2 * i] == a && m->keys[2 * i + 1] == b)
			return m->vals[i] - 1;
	return UINT32_MAX;
}

uint32_t idmap_put(struct idmap *m, uint64_t a, uint64_t b, uint32_t v, int *added)
{
	size_t i;

	if (added)
		*added = 0;
	if (2 * (m->n + 1) > m->cap)
		idmap_rehash(m, m->cap ? 2 * m->cap : MIN_CAP);
	for (i = pair_slot(a, b, m->cap); m->vals[i]; i = (i + 1) & (m->cap - 1))
		if (m->keys[2 * i] == a && m->keys[2 * i + 1] == b)
			return m->vals[i] - 1;
	m->keys[2 * i] = a;
	m->keys[2 * i + 1] = b;
	m->vals[i] = v + 1;
	m->n++;
	if (added)
		*added = 1;
	return v;
}
