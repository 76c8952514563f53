/* xalloc.h: allocation that cannot fail. Out of memory aborts with a message: no caller in ferry can
 * do anything better, and checking every allocation would bury the logic. */
#ifndef FERRY_XALLOC_H
#define FERRY_XALLOC_H

#include <stddef.h>

void *xmalloc(size_t n);
void *xcalloc(size_t count, size_t size);
void *xrealloc(void *p, size_t n);
/* Grow an array of count elements of size bytes to hold at least need elements; updates *cap. */
void *xgrow(void *p, size_t *cap, size_t need, size_t size);
char *xstrdup(const char *s);
char *xstrndup(const char *s, size_t n);
char *xasprintf(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

#define XGROW(arr, cap, need) ((arr) = xgrow((arr), &(cap), (need), sizeof(*(arr))))

#endif
