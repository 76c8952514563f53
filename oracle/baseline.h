/* baseline.h: the expected failures a CI check compares against. A baseline file is text:
 *   # comments
 *   FRONTEND  ID  OUTCOME  OP
 * one line per test known to fail. A results store can serve as a baseline too: its failing results
 * are read the same way. */
#ifndef FERRY_BASELINE_H
#define FERRY_BASELINE_H

#include <stdio.h>

#include "db.h"
#include "err.h"
#include "strmap.h"

/* The key of a test in a baseline set: "FRONTEND ID". Caller frees. */
char *baseline_key(const char *frontend, const char *id);

/* Add the expected failures of path (a baseline file or a store) to set, keyed by baseline_key, with
 * the expected outcome as the entry's ptr (owned by the caller: free with baseline_release). A bad
 * line is an error naming path:line. */
int baseline_load(const char *path, struct strmap *set, struct err *e);
void baseline_release(struct strmap *set);

/* Write the failing results of the store (frontend NULL: all) as a baseline file to fp; ferry's own
 * errors are left out (outcome_is_bug), in a file and in a store read as a baseline. */
int baseline_write(struct db *d, const char *frontend, FILE *fp, size_t *n, struct err *e);

#endif
