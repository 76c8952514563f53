/* select.h: choosing instances by operator and by test name, what every stage's --op GLOB and
 * --test GLOB mean (harvest, wrap, rank, run, check, go). Globs are fnmatch(3) patterns, each
 * option repeatable and comma-separated; an instance is selected when its operator matches one of
 * the --op globs (or there are none) and its test matches one of the --test globs (or there are
 * none). An operator glob matches the whole name or the part after its last '.', so that
 * '--op Conv2d' takes torch.nn.Conv2d and '--op conv*' torch.nn.functional.conv2d (a record of kind
 * graph is the operator "graph"). The test is the record's source.test.
 *
 * Ownership: the struct owns copies of its globs. */
#ifndef FERRY_SELECT_H
#define FERRY_SELECT_H

#include <stddef.h>

#include "record.h"

struct select {
	char **ops;
	size_t nops, ops_cap;
	char **tests;
	size_t ntests, tests_cap;
};

#define SELECT_INIT { NULL, 0, 0, NULL, 0, 0 }

/* Add the comma-separated globs of list to the operator globs (ops) or the test globs. */
void select_add(struct select *s, int ops, const char *list);
/* Whether s selects anything short of everything. */
int select_any(const struct select *s);
/* Whether an instance with this operator and test name (may be NULL) is selected. */
int select_match(const struct select *s, const char *op, const char *test);
/* The same for an instance record: its op and source.test. */
int select_instance(const struct select *s, const struct instance *in);
/* The globs as one line, "--op A,B --test C" ("" when none): what a stage was asked for, kept
 * beside its output so that a later run knows whether that output is current. Caller frees. */
char *select_describe(const struct select *s);
void select_release(struct select *s);

#endif
