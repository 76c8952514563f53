/* outcome.c: the outcome table. */
#include "outcome.h"

#include <string.h>

static const struct {
	const char *name;
	int failure;
} table[OUTCOME_COUNT] = {
	[OUTCOME_PASS] = { "pass", 0 },
	[OUTCOME_MISMATCH] = { "mismatch", 1 },
	[OUTCOME_CRASH] = { "crash", 1 },
	[OUTCOME_TIMEOUT] = { "timeout", 1 },
	[OUTCOME_OOM] = { "oom", 1 },
	[OUTCOME_UNSUPPORTED] = { "unsupported", 0 },
	[OUTCOME_UNDEFINED] = { "undefined", 0 },
	[OUTCOME_ERROR] = { "error", 1 },
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

void outcome_failure_sql(const char *column, struct buf *out)
{
	int first = 1;

	buf_addf(out, "%s IN (", column);
	for (int i = 0; i < OUTCOME_COUNT; i++)
		if (table[i].failure) {
			buf_addf(out, "%s'%s'", first ? "" : ", ", table[i].name);
			first = 0;
		}
	buf_addc(out, ')');
}
