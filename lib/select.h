/* select.h: choosing instances by operator and by test name, what every stage's --op PATTERN and
 * --test PATTERN mean (harvest, wrap, rank, run, check, go), and what report, bugs and show's --op
 * means: one matcher, so that a pattern selects the same everywhere. Each option is repeatable and
 * comma-separated; an instance is selected when its operator matches one of the --op patterns (or
 * there are none) and its test matches one of the --test patterns (or there are none).
 * A pattern is matched as pytest's -k and ripgrep's smart case lead a user to expect:
 * - without a glob character (* ? [) it is a word found anywhere in the name ('autopad' takes
 *   test_conv_autopad_same); with one, an fnmatch(3) glob matched against the whole name;
 * - without a capital letter it ignores case ('conv' takes Conv and conv2d); with one it does not
 *   ('Conv' takes Conv2d, not conv2d).
 * An operator glob also matches the part after the name's last '.', so that '--op conv*' takes
 * torch.nn.functional.conv2d (a record of kind graph is the operator "graph"); an instance recorded
 * with an "op_alias" (its operator's internal name, torch.functional.tensordot beside
 * torch.tensordot) is also selected by that name. The test is the record's source.test.
 *
 * Ownership: the struct owns copies of its patterns. */
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
/* Whether one --op pattern matches the operator op (NULL: no operator, matched by no pattern). */
int select_op_matches(const char *pattern, const char *op);
/* Whether one --test pattern matches the test name (NULL: matched by no pattern). */
int select_test_matches(const char *pattern, const char *test);
/* An fnmatch glob, matched case-sensitively against a whole name, that matches at least every name
 * pattern matches (for a harvester's pass-over, which knows globs only). Caller frees. */
char *select_widen(const char *pattern);
/* The same for an instance record: its op (or op_alias) and source.test. */
int select_instance(const struct select *s, const struct instance *in);
/* The globs as one line, "--op A,B --test C" ("" when none): what a stage was asked for, kept
 * beside its output so that a later run knows whether that output is current. Caller frees. */
char *select_describe(const struct select *s);
void select_release(struct select *s);

#endif
