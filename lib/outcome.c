/* outcome.c: the outcome table. */
#include "outcome.h"

#include <string.h>

static const struct {
	const char *name;
	int failure;
	int bug; /* may be the frontend's bug: the failures but ferry's own errors */
} table[OUTCOME_COUNT] = {
	[OUTCOME_PASS] = { "pass", 0, 0 },
	[OUTCOME_MISMATCH] = { "mismatch", 1, 1 },
	[OUTCOME_INCONSISTENT] = { "inconsistent", 1, 1 },
	[OUTCOME_CRASH] = { "crash", 1, 1 },
	[OUTCOME_TIMEOUT] = { "timeout", 1, 1 },
	[OUTCOME_OOM] = { "oom", 1, 1 },
	[OUTCOME_UNSUPPORTED] = { "unsupported", 0, 0 },
	[OUTCOME_UNDEFINED] = { "undefined", 0, 0 },
	[OUTCOME_ERROR] = { "error", 1, 0 },
};

const char *outcome_name(enum outcome o)
{
	return (unsigned)o < OUTCOME_COUNT ? table[o].name : "?";
}

int outcome_from_name(const char *name)
{
	for (int i = 0; name && i < OUTCOME_COUNT; i++)
		if (!strcmp(table[i].name, name))
			return i;
	return -1;
}

int outcome_is_failure(enum outcome o)
{
	return (unsigned)o < OUTCOME_COUNT && table[o].failure;
}

int outcome_name_is_failure(const char *name)
{
	int o = outcome_from_name(name);

	return o >= 0 && table[o].failure;
}

int outcome_is_bug(enum outcome o)
{
	return (unsigned)o < OUTCOME_COUNT && table[o].bug;
}

int outcome_name_is_bug(const char *name)
{
	int o = outcome_from_name(name);

	return o >= 0 && table[o].bug;
}

static void in_sql(const char *column, int bugs, struct buf *out)
{
	int first = 1;

	buf_addf(out, "%s IN (", column);
	for (int i = 0; i < OUTCOME_COUNT; i++)
		if (bugs ? table[i].bug : table[i].failure) {
			buf_addf(out, "%s'%s'", first ? "" : ", ", table[i].name);
			first = 0;
		}
	buf_addc(out, ')');
}

void outcome_failure_sql(const char *column, struct buf *out)
{
	in_sql(column, 0, out);
}

void outcome_bug_sql(const char *column, struct buf *out)
{
	in_sql(column, 1, out);
}
