/* opts.h: a command's options, declared once. Each src/cmd-NAME.c declares a table of struct opt
 * (a short and a long name, the argument's name, its kind, the help text and the variable it sets);
 * opts_parse() parses argv with it on top of getopt_long, and opts_usage() writes the usage text's
 * Options section from the same table, so that what a command takes and what its help says cannot
 * drift apart (as git's parse-options and tmux's args do). The variables a table points to are the
 * command's own (static storage), set to their defaults before opts_parse(). */
#ifndef FERRY_OPTS_H
#define FERRY_OPTS_H

#include <stddef.h>
#include <stdio.h>
#include <unistd.h> /* optind */

#include "err.h"

struct cmd_entry;

enum opt_kind {
	OPT_KIND_END,
	OPT_KIND_FLAG,     /* int *: set to 1 */
	OPT_KIND_STRING,   /* const char **: the argument (borrowed from argv); the last one wins */
	OPT_KIND_INT,      /* int *: a whole number in [lo, hi] */
	OPT_KIND_DOUBLE,   /* double *: a number, 0 or more */
	OPT_KIND_SECONDS,  /* double *: a number of seconds, more than 0 (cmd_parse_seconds) */
	OPT_KIND_SIZE,     /* unsigned long long *: a size such as 512M or 4G, more than 0 */
	OPT_KIND_LIST,     /* struct opts_list *: each argument, in order (repeatable) */
	OPT_KIND_CALL,     /* parse(value, arg, e): 0, or -1 with e->msg, said as a usage error */
	OPT_KIND_INCLUDE,  /* the options of another table, here (a shared fragment) */
};

struct opt {
	char short_name;        /* 0: a long option only */
	const char *long_name;
	const char *arg;        /* the argument's name in the usage text; NULL for a flag */
	enum opt_kind kind;
	const char *help;       /* lines after the first start with '\n' and are indented to match */
	void *value;            /* the variable set (borrowed) */
	int lo, hi;             /* OPT_KIND_INT */
	int (*parse)(void *value, const char *arg, struct err *e);
	const struct opt *include;
};

/* The arguments of a repeatable option: borrowed from argv; the array is the list's. */
struct opts_list {
	const char **v;
	size_t n, cap;
};

void opts_list_release(struct opts_list *l);

#define OPT_FLAG(s, l, help, v) { s, l, NULL, OPT_KIND_FLAG, help, v, 0, 0, NULL, NULL }
#define OPT_STRING(s, l, a, help, v) { s, l, a, OPT_KIND_STRING, help, v, 0, 0, NULL, NULL }
#define OPT_INT(s, l, a, help, v, lo, hi) { s, l, a, OPT_KIND_INT, help, v, lo, hi, NULL, NULL }
#define OPT_DOUBLE(s, l, a, help, v) { s, l, a, OPT_KIND_DOUBLE, help, v, 0, 0, NULL, NULL }
#define OPT_SECONDS(s, l, a, help, v) { s, l, a, OPT_KIND_SECONDS, help, v, 0, 0, NULL, NULL }
#define OPT_SIZE(s, l, a, help, v) { s, l, a, OPT_KIND_SIZE, help, v, 0, 0, NULL, NULL }
#define OPT_LIST(s, l, a, help, v) { s, l, a, OPT_KIND_LIST, help, v, 0, 0, NULL, NULL }
#define OPT_CALL(s, l, a, help, v, fn) { s, l, a, OPT_KIND_CALL, help, v, 0, 0, fn, NULL }
#define OPT_INCLUDE(t) { 0, NULL, NULL, OPT_KIND_INCLUDE, NULL, NULL, 0, 0, NULL, t }
#define OPT_END() { 0, NULL, NULL, OPT_KIND_END, NULL, NULL, 0, 0, NULL, NULL }

/* Parse argv (argv[0] is the command's name) with c->opts. Returns the index of the first argument
 * that is not an option (getopt_long moves those to the end; optind is left there too), or -1
 * after printing a usage error
 * ("ferry: error: ..." and the hint to see --help). */
int opts_parse(const struct cmd_entry *c, int argc, char **argv);

/* The usage text: c->usage, the Options section made from c->opts, then c->more. */
void opts_usage(const struct cmd_entry *c, FILE *fp);

#endif
