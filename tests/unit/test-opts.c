/* test-opts.c: lib/opts parses a command's options into the struct the call passes, so that what one
 * call set is not set for the next (ferry go runs several stages in one process): two parses in a
 * row with different arguments, a fragment included at an offset, and the usage errors. */
#include <stddef.h>
#include <string.h>

#include "opts.h"
#include "tap.h"

struct inner {
	int quiet;
	const char *output;
};

struct args {
	int limit;
	double timeout;
	struct opts_list names;
	struct inner in;
};

#define IN(f) offsetof(struct inner, f)
#define AT(f) offsetof(struct args, f)

static const struct opt inner_options[] = {
	OPT_FLAG('q', "quiet", "no progress", IN(quiet)),
	OPT_STRING('o', "output", "FILE", "where", IN(output)),
	OPT_END(),
};

static const struct opt options[] = {
	OPT_INT('n', "limit", "N", "at most N", AT(limit), 1, 100),
	OPT_SECONDS('t', "timeout", "SECS", "a test's time", AT(timeout)),
	OPT_LIST(0, "name", "NAME", "a name (repeatable)", AT(names)),
	OPT_INCLUDE(inner_options, AT(in)),
	OPT_END(),
};

static int parse(struct args *a, int argc, char **argv, struct err *e)
{
	memset(a, 0, sizeof(*a));
	a->limit = -1;
	return opts_parse(options, argc, argv, a, e);
}

int main(void)
{
	char *first[] = { "cmd", "-q", "-n", "7", "--name", "a", "-o", "out.txt", "--name", "b", "-t", "2.5", "rest",
			  NULL };
	char *second[] = { "cmd", "rest", NULL };
	char *bad[] = { "cmd", "-n", "700", NULL };
	char *unknown[] = { "cmd", "--nosuch", NULL };
	struct args a, b;
	struct err e = ERR_INIT;
	int i;

	plan(14);
	i = parse(&a, 13, first, &e);
	ok(i == 12, "the first call stops at the first argument (%d)", i);
	ok(a.in.quiet == 1 && a.in.output && !strcmp(a.in.output, "out.txt"),
	   "an included fragment's options land at its offset");
	ok(a.limit == 7 && a.timeout == 2.5, "a number and a number of seconds");
	ok(a.names.n == 2 && !strcmp(a.names.v[0], "a") && !strcmp(a.names.v[1], "b"), "a repeatable option, in order");
	i = parse(&b, 2, second, &e);
	ok(i == 1, "the second call parses (%d)", i);
	ok(b.in.quiet == 0, "a flag of the first call is not set for the second");
	ok(b.in.output == NULL, "nor a string");
	ok(b.limit == -1 && b.timeout == 0, "nor a number: the second call's defaults stand");
	ok(b.names.n == 0 && b.names.v == NULL, "nor a list");
	ok(a.in.quiet == 1 && a.limit == 7, "and the first call's struct is as it was");
	ok(parse(&b, 3, bad, &e) < 0 && e.code == EXIT_USAGE, "a number out of range is a usage error");
	ok(strstr(e.msg, "--limit takes a number from 1 to 100") != NULL, "which names the option (%s)", e.msg);
	err_release(&e);
	ok(parse(&b, 2, unknown, &e) < 0 && strstr(e.msg, "unknown option '--nosuch'") != NULL,
	   "an unknown option is named (%s)", e.msg);
	err_release(&e);
	ok(opts_default_jobs() >= 1, "at least one worker by default");
	opts_list_release(&a.names);
	opts_list_release(&b.names);
	return done();
}
