/* intern.h: the two lookup tables the ranking needs, both open addressing with linear probing and
 * dense ids handed out in order of first insertion:
 *
 *   struct intern   (scope, string) -> id, for operator names (scope 0) and the parameter names of one
 *                   operator (scope = the operator's id + 1); the strings are copied into an arena.
 *   struct idmap    (a, b) -> id for pairs of 64-bit words, compared exactly: a subspace code under its
 *                   parameter, a pair feature, an instance id's hash and its index.
 *
 * Dense ids let the ranking keep per-instance data in flat arrays of 32-bit words instead of strings,
 * which is what keeps a million-instance corpus in a few hundred megabytes.
 *
 * Ownership: each table owns its arrays and (intern) its copies of the strings; intern_str() returns
 * a pointer into the arena, valid until the table is released. */
#ifndef FERRY_INTERN_H
#define FERRY_INTERN_H

#include <stddef.h>
#include <stdint.h>

struct intern {
	uint32_t *slots;     /* cap entries: id + 1, or 0 for empty */
	size_t cap;          /* a power of two */
	uint64_t *hash;      /* per id */
	uint32_t *scope;     /* per id */
	size_t *off;         /* per id: offset of the string in arena */
	size_t n, ncap;
	char *arena;
	size_t alen, acap;
};

#define INTERN_INIT { NULL, 0, NULL, NULL, NULL, 0, 0, NULL, 0, 0 }

void intern_init(struct intern *t);
void intern_release(struct intern *t);
/* The id of (scope, s[0..len)), adding it if absent; *added (may be NULL) says whether it was. */
uint32_t intern_add(struct intern *t, uint32_t scope, const char *s, size_t len, int *added);
/* The same, with strhash = intern_hash(s, len) computed beforehand (on another thread, say). */
uint32_t intern_add_hashed(struct intern *t, uint32_t scope, const char *s, size_t len, uint64_t strhash,
			   int *added);
/* The hash of a string that intern_add_hashed takes. */
uint64_t intern_hash(const char *s, size_t len);
/* The id, or UINT32_MAX when absent. */
uint32_t intern_find(const struct intern *t, uint32_t scope, const char *s, size_t len);
/* The string of an id (NUL-terminated, borrowed). */
const char *intern_str(const struct intern *t, uint32_t id);

struct idmap {
	uint64_t *keys;      /* cap * 2 words */
	uint32_t *vals;      /* cap entries: value + 1, or 0 for empty */
	size_t cap, n;
};

#define IDMAP_INIT { NULL, NULL, 0, 0 }

void idmap_init(struct idmap *m);
void idmap_release(struct idmap *m);
/* Look (a, b) up; if absent, insert it with value v. Returns the value now stored; *added (may be
 * NULL) says whether the key was new. v must be below UINT32_MAX. */
uint32_t idmap_put(struct idmap *m, uint64_t a, uint64_t b, uint32_t v, int *added);
/* The value, or UINT32_MAX when absent. */
uint32_t idmap_get(const struct idmap *m, uint64_t a, uint64_t b);

/* A 64-bit finaliser with good avalanche (splitmix64's); the tables mix keys with it, and the ranking
 * builds its seeded orders and subspace codes from it. */
static inline uint64_t intern_mix(uint64_t x)
{
	x += 0x9e3779b97f4a7c15ULL;
	x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ULL;
	x = (x ^ (x >> 27)) * 0x94d049bb133111ebULL;
	return x ^ (x >> 31);
}

#endif
