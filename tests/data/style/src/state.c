/* state.c: a command file for tests/style/checksrc.sh's state rule: the static variables at lines
 * 6, 7 and 12 can change (an option left set for the next call, a buffer shared between calls);
 * the others cannot. */
static const char usage[] = "usage: ferry state\n";
static const char *const names[] = { "a", "b" };
static const char *output;
static int quiet, limit;

static const char *first(const char *s)
{
	static const char *const empty = "";
	static char line[64];

	(void)line;
	return s ? s : empty;
}

int state_main(void)
{
	return first(usage) == names[0] && !output && !quiet && !limit;
}
