/* counts_py.h: the Python half of ferry count-tests. Python test files are parsed with the embedded
 * interpreter's ast module (prioritize/count_tests.py says what counts as a use of an operator);
 * the result is added to a struct counts (prioritize/counts.h), whose C++ half is counts_scan_cpp.
 * The interpreter must have been started (lib/py.h). */
#ifndef FERRY_COUNTS_PY_H
#define FERRY_COUNTS_PY_H

#include <stddef.h>

#include "counts.h"
#include "err.h"

/* Run count_tests.count(paths, library) and add its result to c. A file that did not parse is
 * skipped, and skipped(ctx, why) (may be NULL) is told why. 0, or -1 with e filled. */
int counts_py_count(struct counts *c, char *const *paths, size_t n, const char *library,
		    void (*skipped)(void *ctx, const char *why), void *ctx, struct err *e);

#endif
