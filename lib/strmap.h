/* strmap.h: a hash map from strings to a counter and an optional pointer, open addressing with
 * linear probing. Used for the sets and tallies of ferry's commands (seen ids, operators, reasons).
 * The map owns copies of its keys; values are the caller's. */
#ifndef FERRY_STRMAP_H
#define FERRY_STRMAP_H

#include <stddef.h>

struct strmap_entry {
	char *key;     /* owned; NULL for an empty slot */
	size_t count;
	void *ptr;
};

struct strmap {
	struct strmap_entry *slots;
	size_t cap;    /* a power of two, or 0 */
	size_t len;
};

#define STRMAP_INIT { NULL, 0, 0 }

void strmap_init(struct strmap *m);
void strmap_release(struct strmap *m);
/* The entry for key, created with count 0 and ptr NULL if absent; *created (may be NULL) says
 * which. The pointer is valid until the next insertion. */
struct strmap_entry *strmap_get(struct strmap *m, const char *key, int *created);
/* The entry for key, or NULL. */
struct strmap_entry *strmap_find(const struct strmap *m, const char *key);
/* The entries, sorted by count (descending), then key; the array is the caller's to free, the entries
 * stay the map's. */
struct strmap_entry **strmap_sorted(const struct strmap *m);

#endif
